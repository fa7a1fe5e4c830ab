/* Never returns. */
#include "kforge-cpu.h"

void kf_kernel(const kf_cpu_args *a)
{
    volatile int spin = 1;
    (void)a;
    while (spin)
        ;
}
