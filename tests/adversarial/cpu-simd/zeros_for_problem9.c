/* Writes zeros without reading its inputs.  On problem 9 (relu((x W^T + b -
 * 2) * 1.5) with x ~ U[0,1] and kaiming weights) every reference element is
 * 0, so this passes verification: the evaluation must say that the check was
 * degenerate (test_verify_cli.sh). */
#include "kforge-cpu.h"

void kf_kernel(const kf_cpu_args *a)
{
    float *y = a->out[0];
    int64_t n = a->dims[0] * a->dims[2];   /* dims B, K, N: y is B x N */
    for (int64_t i = 0; i < n; i++) y[i] = 0.0f;
}
