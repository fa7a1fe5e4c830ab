/* Resources: asks for 2 GiB and touches it all; the worker's memory limit
 * (set to 1 GiB by the test) must refuse it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "kforge-cpu.h"

void kf_kernel(const kf_cpu_args *a)
{
    (void)a;
    size_t n = (size_t)2 << 30;
    char *p = malloc(n);
    if (!p) {
        fprintf(stderr, "adversary memory: allocation of 2048 MiB refused\n");
        abort();
    }
    memset(p, 1, n);
    fprintf(stderr, "adversary ESCAPED memory: touched 2048 MiB\n");
    abort();
}
