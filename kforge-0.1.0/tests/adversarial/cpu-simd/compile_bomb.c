/* Resources: a macro explosion that takes the compiler to gigabytes; the
 * worker's memory limit holds for the compiler too. */
#include "kforge-cpu.h"
#define A(x) x x x x x x x x x x
#define B(x) A(A(A(x)))
#define C(x) B(B(x))
static const char *s[] = {C(C("kforge"))};
void kf_kernel(const kf_cpu_args *a)
{
    (void)a;
    (void)s;
}
