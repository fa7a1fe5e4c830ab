/* Does not compile: an undeclared identifier and a missing semicolon. */
#include "kforge-cpu.h"

void kf_kernel(const kf_cpu_args *a)
{
    float *y = a->out[0]
    y[0] = undeclared_thing;
}
