/* Isolation: looks for secrets in its environment and reports what it
 * sees, then aborts so the report reaches the diagnostics.  The sandbox's
 * allow-list must have removed every key and token. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "kforge-cpu.h"

extern char **environ;

void kf_kernel(const kf_cpu_args *a)
{
    (void)a;
    const char *names[] = {"OPENAI_API_KEY", "ANTHROPIC_API_KEY", "KFORGE_TEST_SECRET_TOKEN", "KF_ADV_CANARY"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        const char *v = getenv(names[i]);
        fprintf(stderr, "adversary env %s: %s\n", names[i], v ? v : "absent");
    }
    for (char **e = environ; *e; e++) fprintf(stderr, "adversary environ: %.60s\n", *e);
    abort();
}
