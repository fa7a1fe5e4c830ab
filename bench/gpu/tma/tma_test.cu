// tma_test.cu — standalone check and timing of the Hopper wgmma GEMM with
// its tiles loaded by TMA (cp.async.bulk.tensor, one producer warp,
// mbarriers) against the same GEMM loaded by cp.async (the cuda-c
// emitter's kernel today, bench/gpu/wgmma/wgmma_test.cu), for KernelBench
// L2 problem 9 (x 1024x8192, W 8192x8192 fp32): BF16 (after an FP32->BF16
// pass) and TF32 (straight from FP32).  Reference: cublasSgemm (FP32).
// Build: nvcc -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a tma_test.cu -lcublas -lcuda
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <cmath>
#include <vector>
#include <algorithm>
#include <cuda.h>
#include <cuda_runtime.h>
#include <cublas_v2.h>
#include "wgmma_ops.h"

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { printf("CUDA %s at %s:%d\n", cudaGetErrorString(e_), __FILE__, __LINE__); exit(1); } } while (0)

static __device__ __forceinline__ unsigned smem_u32(const void *p) { return (unsigned)__cvta_generic_to_shared(p); }
static __device__ __forceinline__ void cp16(unsigned dst, const void *src, int ok) {
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" :: "r"(dst), "l"(src), "r"(ok ? 16 : 0));
}
static __device__ __forceinline__ unsigned long long desc_sw128(unsigned addr) {
    return (unsigned long long)((addr & 0x3FFFF) >> 4) | (1ull << 16) | ((unsigned long long)(1024 >> 4) << 32) | (1ull << 62);
}
static __device__ __forceinline__ unsigned bf16x2(float lo, float hi) { unsigned d; asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(d) : "f"(hi), "f"(lo)); return d; }

template <int TF32, int BN>
static __device__ __forceinline__ void mma4(float *d, unsigned long long da, unsigned long long db)
{
#pragma unroll
    for (int s = 0; s < 4; s++) {   // four k steps of 32 bytes
        if (TF32) { if (BN == 256) wgmma_tf32_n256(d, da + 2 * s, db + 2 * s); else wgmma_tf32_n128(d, da + 2 * s, db + 2 * s); }
        else { if (BN == 256) wgmma_bf16_n256(d, da + 2 * s, db + 2 * s); else wgmma_bf16_n128(d, da + 2 * s, db + 2 * s); }
    }
}

template <int BN>
static __device__ __forceinline__ void epilogue(const float *d, const float *bias, float *C, int M, int N, int m0, int n0, int tid, float sub, float mul, int relu)
{
    const int wg = tid >> 7, lw = (tid >> 5) & 3, lane = tid & 31, gid = lane >> 2, tig = lane & 3;
#pragma unroll
    for (int j = 0; j < BN / 8; j++)
#pragma unroll
        for (int h = 0; h < 2; h++) {
            const int m = m0 + wg * 64 + lw * 16 + gid + h * 8, n = n0 + j * 8 + tig * 2;
            if (m >= M) continue;
            float v0 = d[4 * j + 2 * h], v1 = d[4 * j + 2 * h + 1];
            if (n + 1 < N) {
                v0 = (v0 + bias[n] - sub) * mul; v1 = (v1 + bias[n + 1] - sub) * mul;
                if (relu) { v0 = fmaxf(v0, 0.0f); v1 = fmaxf(v1, 0.0f); }
                *(float2 *)(C + (size_t)m * N + n) = make_float2(v0, v1);
            } else if (n < N) { v0 = (v0 + bias[n] - sub) * mul; C[(size_t)m * N + n] = relu ? fmaxf(v0, 0.0f) : v0; }
        }
}

static __device__ __forceinline__ void tile_of(int M, int N, int BN, int &m0, int &n0)
{
    const int MT = (M + 127) / 128, NT = (N + BN - 1) / BN;
    const int bid = blockIdx.x, per_group = 8 * NT, first = bid / per_group * 8;
    const int rows_in = MT - first < 8 ? MT - first : 8;
    m0 = (first + (bid % per_group) % rows_in) * 128; n0 = (bid % per_group) / rows_in * BN;
}

// ---- cp.async (today's emitter kernel): all 256 threads load, S stages, one batch in flight
template <int TF32, int BN, int S>
__global__ void __launch_bounds__(256, 1) gemm_cpasync(const void *Av, const void *Bv, const float *bias, float *C, int M, int N, int K, float sub, float mul, int relu)
{
    constexpr int E = TF32 ? 4 : 2, BK = 128 / E, BM = 128;
    constexpr int A_BYTES = BM * 128, STAGE = (BM + BN) * 128, P = S - 2;
    extern __shared__ __align__(1024) unsigned char smem_raw[];
    const unsigned sm = (smem_u32(smem_raw) + 1023) & ~1023u;
    const int tid = threadIdx.x, wg = tid >> 7;
    int m0, n0; tile_of(M, N, BN, m0, n0);
    const char *A = (const char *)Av, *B = (const char *)Bv;
    const size_t pitch = (size_t)K * E;
    const int nk = (K + BK - 1) / BK;
    auto load = [&](int st, int kt) {
        const unsigned sa = sm + st * STAGE, sb = sa + A_BYTES;
        const int kb = kt * 128;
#pragma unroll
        for (int i = 0; i < BM * 8 / 256; i++) {
            const int c = tid + i * 256, r = c >> 3, ch = c & 7;
            const int ok = m0 + r < M && kb + ch * 16 < (int)pitch;
            cp16(sa + r * 128 + ((ch ^ (r & 7)) << 4), A + (ok ? (size_t)(m0 + r) * pitch + kb + ch * 16 : 0), ok);
        }
#pragma unroll
        for (int i = 0; i < BN * 8 / 256; i++) {
            const int c = tid + i * 256, r = c >> 3, ch = c & 7;
            const int ok = n0 + r < N && kb + ch * 16 < (int)pitch;
            cp16(sb + r * 128 + ((ch ^ (r & 7)) << 4), B + (ok ? (size_t)(n0 + r) * pitch + kb + ch * 16 : 0), ok);
        }
    };
    float d[BN / 2];
#pragma unroll
    for (int i = 0; i < BN / 2; i++) d[i] = 0.0f;
#pragma unroll
    for (int s = 0; s < P; s++) { if (s < nk) load(s, s); asm volatile("cp.async.commit_group;"); }
    for (int kt = 0; kt < nk; kt++) {
        asm volatile("cp.async.wait_group %0;" :: "n"(P - 1));
        asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
        __syncthreads();
        if (kt + P < nk) load((kt + P) % S, kt + P);
        asm volatile("cp.async.commit_group;");
        const unsigned st = sm + (kt % S) * STAGE;
        const unsigned long long da = desc_sw128(st + wg * 64 * 128), db = desc_sw128(st + A_BYTES);
#pragma unroll
        for (int i = 0; i < BN / 2; i++) asm volatile("" : "+f"(d[i]) :: "memory");
        asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
        mma4<TF32, BN>(d, da, db);
        asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
        asm volatile("wgmma.wait_group.sync.aligned 1;" ::: "memory");
#pragma unroll
        for (int i = 0; i < BN / 2; i++) asm volatile("" : "+f"(d[i]) :: "memory");
    }
    asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
#pragma unroll
    for (int i = 0; i < BN / 2; i++) asm volatile("" : "+f"(d[i]) :: "memory");
    asm volatile("cp.async.wait_group 0;");
    epilogue<BN>(d, bias, C, M, N, m0, n0, tid, sub, mul, relu);
}

// ---- TMA: warps 0-7 (two consumer warpgroups) compute, warp 8 (the producer) loads;
// full[s]: the producer's expect_tx + the TMA's complete_tx; empty[s]: one arrival per consumer thread
static __device__ __forceinline__ void mbar_init(unsigned a, unsigned n) { asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" :: "r"(a), "r"(n)); }
static __device__ __forceinline__ void mbar_wait(unsigned a, unsigned parity) {
    asm volatile("{ .reg .pred p;\nW: mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n@!p bra W; }" :: "r"(a), "r"(parity) : "memory");
}
// arrives when c is nonzero (predicated, no branch)
static __device__ __forceinline__ void mbar_arrive_if(unsigned a, int c) { asm volatile("{ .reg .pred p; setp.ne.b32 p, %1, 0;\n@p mbarrier.arrive.shared::cta.b64 _, [%0]; }" :: "r"(a), "r"(c) : "memory"); }
static __device__ __forceinline__ void mbar_expect(unsigned a, unsigned bytes) { asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" :: "r"(a), "r"(bytes) : "memory"); }
static __device__ __forceinline__ void tma_load(unsigned dst, const CUtensorMap *m, int c0, int c1, unsigned bar) {
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];"
                 :: "r"(dst), "l"(m), "r"(c0), "r"(c1), "r"(bar) : "memory");
}

template <int TF32, int BN, int S>
__global__ void __launch_bounds__(288, 1) gemm_tma(const __grid_constant__ CUtensorMap tA, const __grid_constant__ CUtensorMap tB, const float *bias, float *C, int M, int N, int K, float sub, float mul, int relu)
{
    constexpr int E = TF32 ? 4 : 2, BK = 128 / E, BM = 128;
    constexpr int A_BYTES = BM * 128, STAGE = (BM + BN) * 128;
    extern __shared__ __align__(1024) unsigned char smem_raw[];
    __shared__ __align__(8) unsigned long long bars[2 * S];
    const unsigned sm = (smem_u32(smem_raw) + 1023) & ~1023u, full0 = smem_u32(bars), empty0 = full0 + 8 * S;
    const int tid = threadIdx.x, wg = tid >> 7;
    int m0, n0; tile_of(M, N, BN, m0, n0);
    const int nk = (K + BK - 1) / BK;
    if (tid == 0) {
        for (int s = 0; s < S; s++) { mbar_init(full0 + 8 * s, 1); mbar_init(empty0 + 8 * s, 256); }
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    }
    __syncthreads();
    if (tid >= 256) {   // the producer warp: lane 0 issues every copy
        if (tid == 256)
            for (int kt = 0; kt < nk; kt++) {
                const int s = kt % S;
                if (kt >= S) mbar_wait(empty0 + 8 * s, ((kt / S) - 1) & 1);
                const unsigned sa = sm + s * STAGE;
                mbar_expect(full0 + 8 * s, STAGE);
                tma_load(sa, &tA, kt * BK, m0, full0 + 8 * s);
                tma_load(sa + A_BYTES, &tB, kt * BK, n0, full0 + 8 * s);
            }
        return;
    }
    float d[BN / 2];
#pragma unroll
    for (int i = 0; i < BN / 2; i++) d[i] = 0.0f;
    for (int kt = 0; kt < nk; kt++) {
        const int s = kt % S;
        mbar_wait(full0 + 8 * s, (kt / S) & 1);
        const unsigned st = sm + s * STAGE;
        const unsigned long long da = desc_sw128(st + wg * 64 * 128), db = desc_sw128(st + A_BYTES);
#pragma unroll
        for (int i = 0; i < BN / 2; i++) asm volatile("" : "+f"(d[i]) :: "memory");
        asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
        mma4<TF32, BN>(d, da, db);
        asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
        asm volatile("wgmma.wait_group.sync.aligned 1;" ::: "memory");
        // tile kt - 1's wgmmas are done: its stage goes back to the producer (every consumer thread
        // arrives: with one lane per warp, ptxas serialized the wgmmas)
        mbar_arrive_if(empty0 + 8 * ((kt + S - 1) % S), kt > 0);
#pragma unroll
        for (int i = 0; i < BN / 2; i++) asm volatile("" : "+f"(d[i]) :: "memory");
    }
    asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
#pragma unroll
    for (int i = 0; i < BN / 2; i++) asm volatile("" : "+f"(d[i]) :: "memory");
    epilogue<BN>(d, bias, C, M, N, m0, n0, tid, sub, mul, relu);
}

__global__ void cvt_v1(const float *src, unsigned short *dst, size_t n8)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n8) return;
    const uint4 *q = (const uint4 *)(src + i * 8);
    uint4 u = q[0], w = q[1], o;
    o.x = bf16x2(__uint_as_float(u.x), __uint_as_float(u.y)); o.y = bf16x2(__uint_as_float(u.z), __uint_as_float(u.w));
    o.z = bf16x2(__uint_as_float(w.x), __uint_as_float(w.y)); o.w = bf16x2(__uint_as_float(w.z), __uint_as_float(w.w));
    *(uint4 *)(dst + i * 8) = o;
}
__global__ void epi_ref(float *C, const float *bias, int M, int N, int full)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= (size_t)M * N) return;
    C[i] = full ? fmaxf((C[i] + bias[i % N] - 2.0f) * 1.5f, 0.0f) : C[i] + bias[i % N];
}
__global__ void fill(float *p, size_t n, unsigned seed, float lo, float hi)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned h = (unsigned)i * 2654435761u ^ seed; h ^= h >> 15; h *= 2246822519u; h ^= h >> 13; h *= 3266489917u; h ^= h >> 16;
    p[i] = lo + (hi - lo) * (h >> 8) * (1.0f / 16777216.0f);
}

static float median(std::vector<float> v) { std::sort(v.begin(), v.end()); return v[v.size() / 2]; }
template <class F> static float time_ms(F f, int reps = 20)
{
    cudaEvent_t a, b; CK(cudaEventCreate(&a)); CK(cudaEventCreate(&b));
    for (int i = 0; i < 3; i++) f();
    CK(cudaGetLastError()); CK(cudaDeviceSynchronize());
    std::vector<float> t;
    for (int i = 0; i < reps; i++) { CK(cudaEventRecord(a)); f(); CK(cudaEventRecord(b)); CK(cudaEventSynchronize(b)); float ms; CK(cudaEventElapsedTime(&ms, a, b)); t.push_back(ms); }
    CK(cudaGetLastError());
    return median(t);
}

static int M = 1024, N = 8192, K = 8192;
static float *dx, *dw, *db, *dc, *dref;
static unsigned short *xb, *wb;
static std::vector<float> href, hraw;

static void check(const char *name, float ms, double flop, const std::vector<float> &ref)
{
    std::vector<float> h((size_t)M * N);
    CK(cudaMemcpy(h.data(), dc, h.size() * 4, cudaMemcpyDeviceToHost));
    double num = 0, den = 0; size_t bad = 0, nan = 0;
    for (size_t i = 0; i < h.size(); i++) {
        double dd = (double)h[i] - ref[i];
        if (!std::isfinite(h[i])) nan++;
        num += dd * dd; den += (double)ref[i] * ref[i];
        if (!(fabs(dd) <= 1e-2 + 1e-2 * fabs(ref[i]))) bad++;
    }
    printf("%-40s %8.1f us %7.1f TFLOP/s  rel_l2 %.2e  outside 1e-2: %zu  nonfinite %zu  %s\n", name, ms * 1000,
           ms > 0 ? flop / (ms * 1e-3) / 1e12 : 0.0, sqrt(num / den), bad, nan, bad || nan ? "FAIL" : "ok");
}

static CUtensorMap make_map(const void *base, int tf32, int rows, int K_, int box_rows)
{
    CUtensorMap m;
    const int E = tf32 ? 4 : 2;
    cuuint64_t dims[2] = {(cuuint64_t)K_, (cuuint64_t)rows}, strides[1] = {(cuuint64_t)K_ * E};
    cuuint32_t box[2] = {(cuuint32_t)(128 / E), (cuuint32_t)box_rows}, es[2] = {1, 1};
    CUresult r = cuTensorMapEncodeTiled(&m, tf32 ? CU_TENSOR_MAP_DATA_TYPE_FLOAT32 : CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2,
                                        (void *)base, dims, strides, box, es, CU_TENSOR_MAP_INTERLEAVE_NONE,
                                        CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_128B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    if (r != CUDA_SUCCESS) { printf("cuTensorMapEncodeTiled: %d\n", (int)r); exit(1); }
    return m;
}

// kind 0: cp.async, 1: TMA
template <int KIND, int TF32, int BN, int S> static void run(const char *name, int with_cvt)
{
    constexpr int STAGE = (128 + BN) * 128;
    const int smem = S * STAGE + 1024, threads = KIND ? 288 : 256;
    const int blocks = ((M + 127) / 128) * ((N + BN - 1) / BN);
    const void *a = TF32 ? (const void *)dx : (const void *)xb, *b = TF32 ? (const void *)dw : (const void *)wb;
    const size_t n8w = (size_t)N * K / 8, n8x = (size_t)M * K / 8;
    CUtensorMap ta, tb;
    if (KIND) { ta = make_map(a, TF32, M, K, 128); tb = make_map(b, TF32, N, K, BN); }
    cudaError_t e = KIND ? cudaFuncSetAttribute(gemm_tma<TF32, BN, S>, cudaFuncAttributeMaxDynamicSharedMemorySize, smem)
                         : cudaFuncSetAttribute(gemm_cpasync<TF32, BN, S>, cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
    if (e != cudaSuccess) { printf("%-40s skipped: %d bytes of shared memory: %s\n", name, smem, cudaGetErrorString(e)); cudaGetLastError(); return; }
    auto gemm = [&](float sub, float mul, int relu) {
        if (KIND) gemm_tma<TF32, BN, S><<<blocks, threads, smem>>>(ta, tb, db, dc, M, N, K, sub, mul, relu);
        else gemm_cpasync<TF32, BN, S><<<blocks, threads, smem>>>(a, b, db, dc, M, N, K, sub, mul, relu);
    };
    if (!TF32) { cvt_v1<<<(n8x + 255) / 256, 256>>>(dx, xb, n8x); cvt_v1<<<(n8w + 255) / 256, 256>>>(dw, wb, n8w); }
    CK(cudaMemset(dc, 0xff, (size_t)M * N * 4));
    gemm(0.0f, 1.0f, 0);
    CK(cudaGetLastError()); CK(cudaDeviceSynchronize());
    char nm[96]; snprintf(nm, sizeof nm, "  check x W^T + b: %s", name);
    check(nm, 0.0f, 0, hraw);
    CK(cudaMemset(dc, 0xff, (size_t)M * N * 4));
    float ms = time_ms([&] {
        if (!TF32 && with_cvt) { cvt_v1<<<(n8x + 255) / 256, 256>>>(dx, xb, n8x); cvt_v1<<<(n8w + 255) / 256, 256>>>(dw, wb, n8w); }
        gemm(2.0f, 1.5f, 1);
    });
    check(name, ms, 2.0 * M * N * K, href);
}

int main()
{
    cudaDeviceProp pr; CK(cudaGetDeviceProperties(&pr, 0));
    printf("%s, %d SMs, cc %d.%d, smem optin %zu\n", pr.name, pr.multiProcessorCount, pr.major, pr.minor, pr.sharedMemPerBlockOptin);
    CK(cudaMalloc(&dx, (size_t)M * K * 4)); CK(cudaMalloc(&dw, (size_t)N * K * 4)); CK(cudaMalloc(&db, (size_t)N * 4));
    CK(cudaMalloc(&dc, (size_t)M * N * 4)); CK(cudaMalloc(&dref, (size_t)M * N * 4));
    CK(cudaMalloc(&xb, (size_t)M * K * 2)); CK(cudaMalloc(&wb, (size_t)N * K * 2));
    cublasHandle_t hb; cublasCreate(&hb);
    const float one = 1.0f, zero = 0.0f;
    auto sg = [&](float *out) { cublasSgemm(hb, CUBLAS_OP_T, CUBLAS_OP_N, N, M, K, &one, dw, K, dx, K, &zero, out, N); };
    auto refs = [&] {
        const float bw = 1.0f / sqrtf((float)K);
        fill<<<(M * (size_t)K + 255) / 256, 256>>>(dx, (size_t)M * K, 17, 0.0f, 1.0f);
        fill<<<(N * (size_t)K + 255) / 256, 256>>>(dw, (size_t)N * K, 91, -bw, bw);
        fill<<<(N + 255) / 256, 256>>>(db, N, 5, -bw, bw);
        cublasSetMathMode(hb, CUBLAS_DEFAULT_MATH);
        href.resize((size_t)M * N); hraw.resize((size_t)M * N);
        sg(dref); epi_ref<<<((size_t)M * N + 255) / 256, 256>>>(dref, db, M, N, 0); CK(cudaDeviceSynchronize());
        CK(cudaMemcpy(hraw.data(), dref, hraw.size() * 4, cudaMemcpyDeviceToHost));
        sg(dref); epi_ref<<<((size_t)M * N + 255) / 256, 256>>>(dref, db, M, N, 1); CK(cudaDeviceSynchronize());
        CK(cudaMemcpy(href.data(), dref, href.size() * 4, cudaMemcpyDeviceToHost));
        printf("reference M %d N %d K %d (cublasSgemm FP32)\n", M, N, K);
    };
    refs();
    const double fl = 2.0 * M * N * K;
    cublasSetMathMode(hb, CUBLAS_TF32_TENSOR_OP_MATH);
    { float ms = time_ms([&] { sg(dc); }); printf("cublasSgemm tf32                         %8.1f us  %.1f TFLOP/s\n", ms * 1000, fl / (ms * 1e-3) / 1e12); }
    cublasSetMathMode(hb, CUBLAS_DEFAULT_MATH);
    {
        const size_t n8w = (size_t)N * K / 8, n8x = (size_t)M * K / 8;
        cvt_v1<<<(n8x + 255) / 256, 256>>>(dx, xb, n8x); cvt_v1<<<(n8w + 255) / 256, 256>>>(dw, wb, n8w);
        const float a = 1.0f, z = 0.0f;
        float ms = time_ms([&] { cublasGemmEx(hb, CUBLAS_OP_T, CUBLAS_OP_N, N, M, K, &a, wb, CUDA_R_16BF, K, xb, CUDA_R_16BF, K, &z, dc, CUDA_R_32F, N, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT); });
        printf("cublasGemmEx bf16 (operands bf16)        %8.1f us  %.1f TFLOP/s\n", ms * 1000, fl / (ms * 1e-3) / 1e12);
    }
    run<0, 0, 128, 6>("cp.async bf16 128x128 S6", 0);
    run<1, 0, 128, 6>("TMA bf16 128x128 S6", 0);
    run<1, 0, 128, 7>("TMA bf16 128x128 S7", 0);
    run<1, 0, 128, 4>("TMA bf16 128x128 S4", 0);
    run<0, 0, 256, 4>("cp.async bf16 128x256 S4", 0);
    run<1, 0, 256, 4>("TMA bf16 128x256 S4", 0);
    run<0, 0, 128, 6>("cp.async bf16 128x128 S6 + cvt", 1);
    run<1, 0, 128, 6>("TMA bf16 128x128 S6 + cvt", 1);
    run<0, 1, 128, 6>("cp.async tf32 128x128 S6", 0);
    run<1, 1, 128, 6>("TMA tf32 128x128 S6", 0);
    run<1, 1, 256, 4>("TMA tf32 128x256 S4", 0);
    M = 1000; N = 8000; K = 8180;   // ragged: the TMA's out-of-bounds zero fill at every edge
    refs();
    run<0, 1, 128, 6>("cp.async tf32 128x128 S6 ragged", 0);
    run<1, 1, 128, 6>("TMA tf32 128x128 S6 ragged", 0);
    return 0;
}
