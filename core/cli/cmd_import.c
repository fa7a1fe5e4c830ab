/*
 * cmd_import.c — `kforge import MODEL.py [--out P.json] [--preset NAME=D=V,..]
 * [--name N] [--eval]`: a KernelBench-style PyTorch file to a problem file.
 * The tracing is done by the Python helper kforge_import.py (pyhelper.h);
 * its JSON is parsed again here with the real problem parser (every preset
 * resolved) before anything is written, so a problem that `import` writes is
 * one that `check` and `run` accept.
 * Exit 0 ok, 2 the model cannot be expressed / bad option / no PyTorch,
 * 3 internal or I/O error.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "common.h"
#include "pyhelper.h"
#include "problem/problem.h"
#include "util/error.h"
#include "util/fileio.h"

#define MAX_PRESETS 32

static void usage(FILE *f)
{
    fprintf(f,
        "usage: kforge import MODEL.py [--out P.json] [--preset NAME=DIM=V,DIM=V...] [--name N] [--eval]\n"
        "\n"
        "Traces a KernelBench-style PyTorch file (class Model(nn.Module), get_inputs(),\n"
        "get_init_inputs(), module-level sizes such as batch_size) with torch.fx and writes\n"
        "the problem file: dims named after the file's size constants (their values are\n"
        "the preset 'file'), inputs and parameters with the distributions the module draws\n"
        "them from, the op graph, and the default tolerance.  A node with no op in the\n"
        "vocabulary is an error naming it, its target and its source line.\n"
        "Needs python3 with PyTorch ($KFORGE_PYTHON picks the interpreter).\n"
        "\n"
        "  -o, --out P.json   write here (default: standard output)\n"
        "  -p, --preset S     add a preset, e.g. small=batch_size=128,in_features=256 (repeatable)\n"
        "  -n, --name N       problem name (default: the file's name)\n"
        "      --eval         trace the model in evaluation mode (model.eval()): dropout is the\n"
        "                     identity and BatchNorm uses its running statistics\n"
        "  -h, --help         this help\n"
        "\n"
        "Exit status: 0 written, 2 the model cannot be expressed or PyTorch is missing,\n"
        "3 internal or I/O error.\n");
}

int kf_cmd_import(int argc, char **argv)
{
    static const struct option opts[] = {
        {"out", required_argument, NULL, 'o'},
        {"preset", required_argument, NULL, 'p'},
        {"name", required_argument, NULL, 'n'},
        {"eval", no_argument, NULL, 'e'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *out = NULL, *name = NULL;
    const char *presets[MAX_PRESETS];
    int n_presets = 0, eval_mode = 0, c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "o:p:n:h", opts, NULL)) != -1) {
        switch (c) {
        case 'o': out = optarg; break;
        case 'n': name = optarg; break;
        case 'e': eval_mode = 1; break;
        case 'p':
            if (n_presets == MAX_PRESETS) {
                kf_cli_error("import: at most %d --preset options", MAX_PRESETS);
                return KF_EXIT_BAD_INPUT;
            }
            presets[n_presets++] = optarg;
            break;
        case 'h': usage(stdout); return KF_EXIT_OK;
        default:
            if (optopt == 'o' || optopt == 'p' || optopt == 'n')
                kf_cli_error("import: option '%s' needs a value", argv[optind - 1]);
            else if (optopt) kf_cli_error("import: unknown option '-%c'", optopt);
            else kf_cli_error("import: unknown option '%s'", argv[optind - 1]);
            usage(stderr);
            return KF_EXIT_BAD_INPUT;
        }
    }
    if (argc - optind != 1) {
        kf_cli_error("import: %s", argc - optind == 0 ? "no model file given" : "give exactly one model file");
        usage(stderr);
        return KF_EXIT_BAD_INPUT;
    }
    const char *model = argv[optind];

    const char *args[2 * MAX_PRESETS + 8];
    int na = 0;
    args[na++] = model;
    if (name) {
        args[na++] = "--name";
        args[na++] = name;
    }
    for (int i = 0; i < n_presets; i++) {
        args[na++] = "--preset";
        args[na++] = presets[i];
    }
    if (eval_mode) args[na++] = "--eval";
    args[na] = NULL;

    char *json = NULL;
    int rc = kf_py_run("kforge_import.py", args, &json);
    if (rc == 127) {
        free(json);
        return KF_EXIT_BAD_INPUT;
    }
    if (rc != 0) {   /* the helper said why on stderr (2: refused, 3: its bug) */
        free(json);
        if (rc == KF_EXIT_BAD_INPUT) return KF_EXIT_BAD_INPUT;
        if (rc != KF_EXIT_INTERNAL && rc > 0)
            kf_cli_error("import: the Python helper failed (exit %d)", rc);
        return KF_EXIT_INTERNAL;
    }
    kf_error err = {0};
    char label[4200];
    snprintf(label, sizeof label, "%s (imported)", model);
    kf_problem *p = json ? kf_problem_parse(json, label, &err) : NULL;
    if (!p) {
        kf_cli_error("import: %s", json ? err.msg : "the helper printed nothing");
        free(json);
        return json ? kf_exit_code(err.kind) : KF_EXIT_INTERNAL;
    }
    for (int i = 0; i < p->n_presets; i++) {   /* every preset resolves (kf_problem_parse did; be sure) */
        kf_resolved r;
        if (kf_resolve(p, i, &r, &err) != 0) {
            kf_cli_error("import: preset '%s': %s", p->preset_names[i], err.msg);
            kf_problem_free(p);
            free(json);
            return kf_exit_code(err.kind);
        }
        kf_resolved_free(&r);
    }
    rc = KF_EXIT_OK;
    if (out) {
        if (kf_write_file_atomic(out, json, &err) != 0) {
            kf_cli_error("import: %s", err.msg);
            rc = kf_exit_code(err.kind);
        } else {
            fprintf(stderr, "kforge: wrote %s: problem '%s', %d dims, %d inputs, %d nodes, presets:",
                    out, p->name, p->n_dims, p->n_inputs, p->n_nodes);
            for (int i = 0; i < p->n_presets; i++) fprintf(stderr, " %s", p->preset_names[i]);
            fputc('\n', stderr);
        }
    } else {
        fputs(json, stdout);
        if (fflush(stdout) != 0) rc = KF_EXIT_INTERNAL;
    }
    kf_problem_free(p);
    free(json);
    return rc;
}
