/* Placeholder until the owning issue lands: fails loudly, never pretends. */
#include <stdio.h>
#include "commands.h"
#include "error.h"

int kf_cmd_suite(int argc, char **argv)
{
    (void)argc;
    fprintf(stderr, "kforge: '%s' is not built yet in this tree\n", argv[0]);
    return KF_EXIT_INTERNAL;
}
