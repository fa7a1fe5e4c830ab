/* kforge — command-line entry point: dispatches to the sub-commands. */
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "config.h"
#include "util/error.h"

static void usage(FILE *f)
{
    fprintf(f,
        "usage: kforge COMMAND [options]\n"
        "\n"
        "commands:\n"
        "  backends [--json]                       list backend plugins, their devices, and skipped files\n"
        "  check PROBLEM.json [--preset P]          validate a problem; print graph, FLOPs, bytes, roofline\n"
        "  verify --backend B --problem P CAND      compile and verify a candidate (exit 0 ok, 1 failed, 2 bad input)\n"
        "  profile --backend B --problem P CAND     verify, then time a candidate\n"
        "  run PROBLEM.json --backend B [...]       generate, verify and optimise kernels with an agent\n"
        "  suite DIR --backend B --report DIR       run every problem of a directory and write reports\n"
        "  report A B                              compare two suite reports: per-problem ratio, Wilcoxon test\n"
        "  import MODEL.py [--out P.json]           a KernelBench-style PyTorch file to a problem file\n"
        "  export RUN_DIR --to torch|c [--out DIR]  the run's best kernel as a PyTorch package or C files\n"
        "  version                                  print the version\n"
        "\n"
        "Run 'kforge COMMAND --help' for a command's options.  See 'man kforge'.\n");
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return KF_EXIT_BAD_INPUT;
    }
    const char *cmd = argv[1];
    if (!strcmp(cmd, "-h") || !strcmp(cmd, "--help") || !strcmp(cmd, "help")) {
        usage(stdout);
        return 0;
    }
    if (!strcmp(cmd, "version") || !strcmp(cmd, "--version")) {
        printf("kforge %s (plugin ABI %d.%d)\n", PACKAGE_VERSION, 1, 0);
        return 0;
    }
    if (!strcmp(cmd, "backends")) return kf_cmd_backends(argc - 1, argv + 1);
    if (!strcmp(cmd, "check")) return kf_cmd_check(argc - 1, argv + 1);
    if (!strcmp(cmd, "verify") || !strcmp(cmd, "profile")) return kf_cmd_verify(argc - 1, argv + 1);
    if (!strcmp(cmd, "run")) return kf_cmd_run(argc - 1, argv + 1);
    if (!strcmp(cmd, "suite")) return kf_cmd_suite(argc - 1, argv + 1);
    if (!strcmp(cmd, "report")) return kf_cmd_report(argc - 1, argv + 1);
    if (!strcmp(cmd, "import")) return kf_cmd_import(argc - 1, argv + 1);
    if (!strcmp(cmd, "export")) return kf_cmd_export(argc - 1, argv + 1);
    fprintf(stderr, "kforge: unknown command '%s'\n\n", cmd);
    usage(stderr);
    return KF_EXIT_BAD_INPUT;
}
