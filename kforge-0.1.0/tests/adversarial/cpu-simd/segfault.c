/* Says something on stderr, then writes through a NULL pointer. */
#include <stdio.h>
#include "kforge-cpu.h"

void kf_kernel(const kf_cpu_args *a)
{
    volatile float *volatile p = 0;
    (void)a;
    fprintf(stderr, "segfault candidate: writing to NULL\n");
    *p = 1.0f;
}
