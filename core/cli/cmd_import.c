/*
 * cmd_import.c — `kforge import MODEL.py [--out P.json] [--preset NAME=D=V,..]
 * [--name N] [--eval]`: a KernelBench-style PyTorch file to a problem file;
 * with --class NAME / --inputs SPEC / --init-args JSON, or a pkg.module:NAME
 * target, a class of a file or module with its example inputs' shapes and
 * constructor arguments named on the command line.  The options' syntax is
 * checked here (no Python needed to refuse a bad SPEC); the rest by the helper.
 * The tracing is done by the Python helper kforge_import.py (pyhelper.h);
 * its JSON is parsed again here with the real problem parser (every preset
 * resolved) before anything is written, so a problem that `import` writes is
 * one that `check` and `run` accept.
 * Exit 0 ok, 2 the model cannot be expressed / bad option / no PyTorch,
 * 3 internal or I/O error.
 */
#include <ctype.h>
#include <getopt.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
        "       kforge import FILE.py --class NAME [--inputs SPEC] [--init-args JSON] [options]\n"
        "       kforge import pkg.module:NAME --inputs SPEC [--init-args JSON] [options]\n"
        "\n"
        "Traces a KernelBench-style PyTorch file (class Model(nn.Module), get_inputs(),\n"
        "get_init_inputs(), module-level sizes such as batch_size) with torch.fx and writes\n"
        "the problem file: dims named after the file's size constants (their values are\n"
        "the preset 'file'), inputs and parameters with the distributions the module draws\n"
        "them from, the op graph, and the default tolerance.  A node with no op in the\n"
        "vocabulary is an error naming it, its target and its source line.\n"
        "Needs python3 with PyTorch ($KFORGE_PYTHON picks the interpreter).\n"
        "The second and third forms import class NAME of a file or of an importable module\n"
        "(on PYTHONPATH): its example inputs are drawn from --inputs (replacing get_inputs),\n"
        "its constructor arguments are --init-args (replacing get_init_inputs; default: the\n"
        "file's get_init_inputs() if any, else none).  Each distinct size of SPEC is one dim,\n"
        "named after the file's one module-level int constant of that value, else d0, d1...\n"
        "in order of first appearance; an int of --init-args equal to a size follows it.\n"
        "\n"
        "  -o, --out P.json   write here (default: standard output)\n"
        "  -p, --preset S     add a preset, e.g. small=batch_size=128,in_features=256 (repeatable)\n"
        "  -n, --name N       problem name (default: the file's name)\n"
        "      --eval         trace the model in evaluation mode (model.eval()): dropout is the\n"
        "                     identity and BatchNorm uses its running statistics\n"
        "      --class NAME   the nn.Module class to import (default: Model)\n"
        "      --inputs SPEC  example inputs, comma-separated shapes, each [rand:|randn:]AxBx..\n"
        "                     (default randn), e.g. 128x256,256 for two tensors\n"
        "      --init-args J  the constructor's arguments as a JSON list, e.g. '[256, 512]'\n"
        "  -h, --help         this help\n"
        "\n"
        "Exit status: 0 written, 2 the model cannot be expressed or PyTorch is missing,\n"
        "3 internal or I/O error.\n");
}

/* SPEC: [rand:|randn:]SIZE[xSIZE]... joined by ',', sizes positive integers
 * of rank 1 to 4 (the helper checks the same). */
static int spec_ok(const char *s)
{
    for (;;) {
        if (strncmp(s, "rand:", 5) == 0) s += 5;
        else if (strncmp(s, "randn:", 6) == 0) s += 6;
        for (int rank = 1;; rank++) {
            if (*s < '1' || *s > '9' || rank > 4) return 0;
            while (isdigit((unsigned char)*s)) s++;
            if (*s != 'x') break;
            s++;
        }
        if (*s == '\0') return 1;
        if (*s++ != ',') return 0;
    }
}

/* pkg.module:NAME (identifiers joined by '.', then ':' and one identifier),
 * and not a file of that name. */
static int module_target(const char *t)
{
    const char *colon = strchr(t, ':');
    if (!colon || strchr(colon + 1, ':') || access(t, F_OK) == 0) return 0;
    int start = 1;
    for (const char *p = t; *p; p++) {
        if (p == colon || *p == '.') {
            if (start) return 0;   /* empty identifier */
            start = 1;
            if (p == colon) continue;
            if (p > colon) return 0;   /* a '.' in NAME */
            continue;
        }
        if (!(isalpha((unsigned char)*p) || *p == '_' || (!start && isdigit((unsigned char)*p)))) return 0;
        start = 0;
    }
    return !start;
}

int kf_cmd_import(int argc, char **argv)
{
    static const struct option opts[] = {
        {"out", required_argument, NULL, 'o'},
        {"preset", required_argument, NULL, 'p'},
        {"name", required_argument, NULL, 'n'},
        {"eval", no_argument, NULL, 'e'},
        {"class", required_argument, NULL, 'C'},
        {"inputs", required_argument, NULL, 'I'},
        {"init-args", required_argument, NULL, 'A'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *out = NULL, *name = NULL, *cls = NULL, *spec = NULL, *init_args = NULL;
    const char *presets[MAX_PRESETS];
    int n_presets = 0, eval_mode = 0, c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "o:p:n:h", opts, NULL)) != -1) {
        switch (c) {
        case 'o': out = optarg; break;
        case 'n': name = optarg; break;
        case 'e': eval_mode = 1; break;
        case 'C': cls = optarg; break;
        case 'I': spec = optarg; break;
        case 'A': init_args = optarg; break;
        case 'p':
            if (n_presets == MAX_PRESETS) {
                kf_cli_error("import: at most %d --preset options", MAX_PRESETS);
                return KF_EXIT_BAD_INPUT;
            }
            presets[n_presets++] = optarg;
            break;
        case 'h': usage(stdout); return KF_EXIT_OK;
        default:
            if (optopt == 'o' || optopt == 'p' || optopt == 'n' || optopt == 'C' || optopt == 'I' || optopt == 'A')
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
    if (module_target(model)) {
        if (cls) {
            kf_cli_error("import: %s names its class after ':'; give no --class with it", model);
            return KF_EXIT_BAD_INPUT;
        }
        if (!spec) {
            kf_cli_error("import: %s: a module's class needs --inputs SPEC (its example inputs' shapes, e.g. 128x256,256)", model);
            return KF_EXIT_BAD_INPUT;
        }
    }
    if (cls && !(isalpha((unsigned char)cls[0]) || cls[0] == '_')) {
        kf_cli_error("import: --class %s: not a Python class name", cls);
        return KF_EXIT_BAD_INPUT;
    }
    if (spec && !spec_ok(spec)) {
        kf_cli_error("import: --inputs %s: not [rand:|randn:]SIZExSIZE... (rank 1 to 4, positive integer sizes) "
                     "joined by ',', e.g. 128x256,256", spec);
        return KF_EXIT_BAD_INPUT;
    }
    if (init_args) {
        json_object *j = json_tokener_parse(init_args);
        int is_list = j && json_object_is_type(j, json_type_array);
        json_object_put(j);
        if (!is_list) {
            kf_cli_error("import: --init-args %s: not a JSON list of the constructor's arguments (e.g. '[256, 512]')", init_args);
            return KF_EXIT_BAD_INPUT;
        }
    }

    const char *args[2 * MAX_PRESETS + 16];
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
    if (cls) {
        args[na++] = "--class";
        args[na++] = cls;
    }
    if (spec) {
        args[na++] = "--inputs";
        args[na++] = spec;
    }
    if (init_args) {
        args[na++] = "--init-args";
        args[na++] = init_args;
    }
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
