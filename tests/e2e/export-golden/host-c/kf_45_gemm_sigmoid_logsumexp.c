/* kf_45_gemm_sigmoid_logsumexp.c — calls the exported kernel through kforge-cpu.h's convention. */
#include <stdlib.h>
#include <unistd.h>
#if defined(__x86_64__) && defined(__linux__)
#include <sys/syscall.h>
#endif
#include "kforge-cpu.h"
#include "kf_45_gemm_sigmoid_logsumexp.h"

/* kf_cpu_args.features: the AMX tile state, asked for as kforge's cpu-simd plugin
 * does (an AMX kernel writes nothing without it). */
static uint32_t kf_45_gemm_sigmoid_logsumexp_features(void)
{
#if defined(__x86_64__) && defined(__linux__)
    unsigned long m = 0;
    if (syscall(SYS_arch_prctl, 0x1023 /* ARCH_REQ_XCOMP_PERM */, 18) == 0 &&
        syscall(SYS_arch_prctl, 0x1022 /* ARCH_GET_XCOMP_PERM */, &m) == 0 && (m & (1ul << 18)))
        return KF_CPU_FEAT_AMX_BF16;
#endif
    return 0;
}

void kf_kernel(const kf_cpu_args *a);

int kf_45_gemm_sigmoid_logsumexp(const float *x, const float *W1, const float *b1, const float *W2, const float *b2, float *y, int n_threads)
{
    const float *in[5] = {x, W1, b1, W2, b2};
    float *out[1] = {y};
    const int64_t dims[4] = {127LL, 250LL, 333LL, 111LL};
    float *scratch[2] = {0};
    int rc = 0;
    if (!(scratch[0] = aligned_alloc(4096, (169164ULL + 4095) / 4096 * 4096))) rc = -1;
    if (!(scratch[1] = aligned_alloc(4096, (56388ULL + 4095) / 4096 * 4096))) rc = -1;
    if (rc == 0) {
        if (n_threads <= 0) n_threads = (int)sysconf(_SC_NPROCESSORS_ONLN);
        kf_cpu_args a = {in, out, scratch, dims, 5, 1, 2, 4, n_threads > 0 ? n_threads : 1,
                         kf_45_gemm_sigmoid_logsumexp_features()};
        kf_kernel(&a);
    }
    for (int s = 0; s < 2; s++) free(scratch[s]);
    return rc;
}
