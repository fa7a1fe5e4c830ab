/* OpenCL C -> CUDA C compatibility (kforge built-in agent, cuda-c emitter) */
#define __kernel extern "C" __global__
#define __global
#define __local __shared__
#define __constant const
#define restrict __restrict__
#define CLK_LOCAL_MEM_FENCE 1
#define CLK_GLOBAL_MEM_FENCE 2
#define barrier(flags) __syncthreads()
#ifndef INFINITY
#define INFINITY __int_as_float(0x7f800000)
#endif
#ifndef NAN
#define NAN __int_as_float(0x7fffffff)
#endif
static __device__ __forceinline__ size_t get_local_id(int d) { return d == 0 ? threadIdx.x : d == 1 ? threadIdx.y : threadIdx.z; }
static __device__ __forceinline__ size_t get_group_id(int d) { return d == 0 ? blockIdx.x : d == 1 ? blockIdx.y : blockIdx.z; }
static __device__ __forceinline__ size_t get_local_size(int d) { return d == 0 ? blockDim.x : d == 1 ? blockDim.y : blockDim.z; }
static __device__ __forceinline__ size_t get_num_groups(int d) { return d == 0 ? gridDim.x : d == 1 ? gridDim.y : gridDim.z; }
static __device__ __forceinline__ size_t get_global_id(int d) { return get_group_id(d) * get_local_size(d) + get_local_id(d); }
static __device__ __forceinline__ size_t get_global_size(int d) { return get_num_groups(d) * get_local_size(d); }
static __device__ __forceinline__ float mad(float a, float b, float c) { return fmaf(a, b, c); }
struct kf_float4 {
    float s0, s1, s2, s3;
    __device__ kf_float4() {}
    __device__ kf_float4(float v) : s0(v), s1(v), s2(v), s3(v) {}
    __device__ kf_float4(float a, float b, float c, float d) : s0(a), s1(b), s2(c), s3(d) {}
};
struct kf_float2 {
    float s0, s1;
    __device__ kf_float2() {}
    __device__ kf_float2(float v) : s0(v), s1(v) {}
    __device__ kf_float2(float a, float b) : s0(a), s1(b) {}
};
struct kf_float8 {
    float s0, s1, s2, s3, s4, s5, s6, s7;
    __device__ kf_float8() {}
    __device__ kf_float8(float v) : s0(v), s1(v), s2(v), s3(v), s4(v), s5(v), s6(v), s7(v) {}
    __device__ kf_float8(float a, float b, float c, float d, float e, float f, float g, float h)
        : s0(a), s1(b), s2(c), s3(d), s4(e), s5(f), s6(g), s7(h) {}
};
#define float8 kf_float8
#define float4 kf_float4
#define float2 kf_float2
static __device__ __forceinline__ float4 operator+(float4 a, float4 b) { return float4(a.s0 + b.s0, a.s1 + b.s1, a.s2 + b.s2, a.s3 + b.s3); }
static __device__ __forceinline__ float4 operator*(float4 a, float4 b) { return float4(a.s0 * b.s0, a.s1 * b.s1, a.s2 * b.s2, a.s3 * b.s3); }
static __device__ __forceinline__ float2 operator+(float2 a, float2 b) { return float2(a.s0 + b.s0, a.s1 + b.s1); }
static __device__ __forceinline__ float2 operator*(float2 a, float2 b) { return float2(a.s0 * b.s0, a.s1 * b.s1); }
static __device__ __forceinline__ float4 mad(float4 a, float4 b, float4 c) { return float4(fmaf(a.s0, b.s0, c.s0), fmaf(a.s1, b.s1, c.s1), fmaf(a.s2, b.s2, c.s2), fmaf(a.s3, b.s3, c.s3)); }
static __device__ __forceinline__ float2 mad(float2 a, float2 b, float2 c) { return float2(fmaf(a.s0, b.s0, c.s0), fmaf(a.s1, b.s1, c.s1)); }
static __device__ __forceinline__ float8 mad(float8 a, float8 b, float8 c) { return float8(fmaf(a.s0, b.s0, c.s0), fmaf(a.s1, b.s1, c.s1), fmaf(a.s2, b.s2, c.s2), fmaf(a.s3, b.s3, c.s3), fmaf(a.s4, b.s4, c.s4), fmaf(a.s5, b.s5, c.s5), fmaf(a.s6, b.s6, c.s6), fmaf(a.s7, b.s7, c.s7)); }
static __device__ __forceinline__ float8 vload8(size_t i, const float *p) { p += 8 * i; return float8(p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7]); }
static __device__ __forceinline__ void vstore8(float8 v, size_t i, float *p) { p += 8 * i; p[0] = v.s0; p[1] = v.s1; p[2] = v.s2; p[3] = v.s3; p[4] = v.s4; p[5] = v.s5; p[6] = v.s6; p[7] = v.s7; }
static __device__ __forceinline__ float4 vload4(size_t i, const float *p) { p += 4 * i; return float4(p[0], p[1], p[2], p[3]); }
static __device__ __forceinline__ void vstore4(float4 v, size_t i, float *p) { p += 4 * i; p[0] = v.s0; p[1] = v.s1; p[2] = v.s2; p[3] = v.s3; }
static __device__ __forceinline__ float2 vload2(size_t i, const float *p) { p += 2 * i; return float2(p[0], p[1]); }
static __device__ __forceinline__ void vstore2(float2 v, size_t i, float *p) { p += 2 * i; p[0] = v.s0; p[1] = v.s1; }
/* tensor-core helpers (cuda_gemm_tc.c): round to TF32; a 16-byte cp.async
 * that zero-fills when !ok (src must then still be a valid address) */
static __device__ __forceinline__ unsigned kf_tf32(float x) { unsigned t; asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(t) : "f"(x)); return t; }
static __device__ __forceinline__ void kf_cp16(void *dst, const void *src, int ok) {
    unsigned s; asm volatile("{ .reg .u64 t; cvta.to.shared.u64 t, %1; cvt.u32.u64 %0, t; }" : "=r"(s) : "l"(dst));
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" :: "r"(s), "l"(src), "r"(ok ? 16 : 0));
}
/* BF16 tensor-core helpers (cuda_gemm_bf16.c, sm_80 and later): two floats
 * to a bf16x2 word (lo first in memory), a shared-memory address as u32,
 * a 16-byte cp.async to it, ldmatrix x4, mma m16n8k16 bf16 -> f32 */
static __device__ __forceinline__ unsigned kf_bf16x2(float lo, float hi) { unsigned d; asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(d) : "f"(hi), "f"(lo)); return d; }
static __device__ __forceinline__ unsigned kf_smem_u32(const void *p) {
    unsigned s; asm("{ .reg .u64 t; cvta.to.shared.u64 t, %1; cvt.u32.u64 %0, t; }" : "=r"(s) : "l"(p)); return s;
}
static __device__ __forceinline__ void kf_cp16_u32(unsigned dst, const void *src) {
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" :: "r"(dst), "l"(src));
}
static __device__ __forceinline__ void kf_ldsm_x4(unsigned r[4], unsigned addr) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(addr));
}
static __device__ __forceinline__ void kf_mma_bf16(float c[4], const unsigned a[4], const unsigned b[2]) {
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
                 : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}
/* ------------------------------------------------------------------ */
/*
 * 12_Gemm_Multiply_LeakyReLU — generated by the kforge built-in agent (OpenCL C 1.2)
 * gemm ts64 wpt8 v4 local rows-fused
 * point: {"backend":"cuda","baseline":0,"fusion":2,"precision":0,"ts":64,"wpt":8,"vec":4,"local_mem":1}
 *
 * plan (one group per line):
 *   g0 gemm    h=linear(x,W,b) -> h1=mul(h,2) -> y=leaky_relu(h1) (1024,8192)  stores: y->out[0]
 *
 * Sizes are baked in as constants (preset "kernelbench": B=1024 K=8192 N=8192).  Every kernel receives the dims and returns
 * at once when they differ, leaving the outputs unwritten (NaN).
 */

/* ---- kforge builtin prelude (OpenCL C): one function per op, PyTorch semantics ---- */
#define KF_FN
#define kf__exp exp
#define kf__expm1 expm1
#define kf__log log
#define kf__log1p log1p
#define kf__erf erf
#define kf__tanh tanh
#define kf__sqrt sqrt
#define kf__fabs fabs
#define kf__pow pow
KF_FN float kf_add(float a, float b) { return a + b; }
KF_FN float kf_sub(float a, float b) { return a - b; }
KF_FN float kf_mul(float a, float b) { return a * b; }
KF_FN float kf_div(float a, float b) { return a / b; }
KF_FN float kf_max(float a, float b) { float y = a > b ? a : b; return a != a ? a : y; }  /* torch.maximum: NaN wins */
KF_FN float kf_min(float a, float b) { float y = a < b ? a : b; return a != a ? a : y; }
KF_FN float kf_pow(float a, float b) { return kf__pow(a, b); }
KF_FN float kf_identity(float x) { return x; }              /* also dropout (eval mode) */
KF_FN float kf_relu(float x) { float y = x > 0.0f ? x : 0.0f; return x != x ? x : y; }
KF_FN float kf_sigmoid(float x) { return 1.0f / (1.0f + kf__exp(-x)); }
KF_FN float kf_tanh(float x) { return kf__tanh(x); }
KF_FN float kf_exp(float x) { return kf__exp(x); }
KF_FN float kf_log(float x) { return kf__log(x); }
KF_FN float kf_abs(float x) { return kf__fabs(x); }
KF_FN float kf_neg(float x) { return -x; }
KF_FN float kf_sqrt(float x) { return kf__sqrt(x); }
KF_FN float kf_rsqrt(float x) { return 1.0f / kf__sqrt(x); }
KF_FN float kf_square(float x) { return x * x; }
/* SELU: scale * (x > 0 ? x : alpha * (exp(x) - 1)) */
KF_FN float kf_selu(float x) { float n = 1.6732632423543772f * kf__expm1(x); return 1.0507009873554805f * (x > 0.0f ? x : n); }
/* softplus(x) = log(1 + exp(beta x)) / beta, x itself when beta x > threshold */
KF_FN float kf_softplus(float x, float beta, float threshold)
{ float s = kf__log1p(kf__exp(beta * x)) / beta; return beta * x > threshold ? x : s; }
KF_FN float kf_mish(float x) { return x * kf__tanh(kf_softplus(x, 1.0f, 20.0f)); }
KF_FN float kf_hardswish(float x) { float t = x + 3.0f; t = t < 0.0f ? 0.0f : t; t = t > 6.0f ? 6.0f : t; return x * t / 6.0f; }
KF_FN float kf_silu(float x) { return x / (1.0f + kf__exp(-x)); }
/* GELU, exact erf form and the tanh approximation */
KF_FN float kf_gelu(float x) { return 0.5f * x * (1.0f + kf__erf(x * 0.70710678118654752f)); }
KF_FN float kf_gelu_tanh(float x)
{ return 0.5f * x * (1.0f + kf__tanh(0.79788456080286536f * (x + 0.044715f * x * x * x))); }
KF_FN float kf_leaky_relu(float x, float slope) { float n = x * slope; return x > 0.0f ? x : n; }
KF_FN float kf_hardtanh(float x, float lo, float hi) { float y = x < lo ? lo : x; return y > hi ? hi : y; }
KF_FN float kf_elu(float x, float alpha) { float n = alpha * kf__expm1(x); return x > 0.0f ? x : n; }
/* ---- end of prelude ---- */

/* Kernels without barriers return at once on other sizes; kernels with
 * barriers (PoCL mishandles an early return before one) run their loops
 * zero times and store nothing when kf_ok is 0. */
#define KF_DIMS_OK (dim_B == 1024 && dim_K == 8192 && dim_N == 8192)
#define KF_CHECK_DIMS if (!KF_DIMS_OK) return

/* Work-group reductions: every work-item passes its partial value and
 * gets the combined one; part holds get_local_size(0) floats (a power of 2). */
float kf_wg_sum(float v, float *part)
{
    const int l = get_local_id(0);
    part[l] = v;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int w = get_local_size(0) / 2; w > 0; w >>= 1) {
        if (l < w) part[l] += part[l + w];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    const float r = part[0];
    barrier(CLK_LOCAL_MEM_FENCE);
    return r;
}

float kf_wg_max(float v, float *part)
{
    const int l = get_local_id(0);
    part[l] = v;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int w = get_local_size(0) / 2; w > 0; w >>= 1) {
        if (l < w) part[l] = fmax(part[l], part[l + w]);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    const float r = part[0];
    barrier(CLK_LOCAL_MEM_FENCE);
    return r;
}

float kf_wg_min(float v, float *part)
{
    return -kf_wg_max(-v, part);
}

#ifndef KF_WGMMA_HELPERS
#define KF_WGMMA_HELPERS
#if defined(__CUDA_ARCH__) && !defined(__CUDA_ARCH_FEAT_SM90_ALL)
#error "this candidate uses wgmma (Hopper tensor cores): compile it for sm_90a"
#endif
/* wgmma (cuda_gemm_wgmma.c): a shared-memory matrix descriptor, K-major,
 * 128-byte swizzle, 8-row groups 1024 bytes apart; m64nNk16 (bf16) and
 * m64nNk8 (tf32) into FP32 accumulators d[0..N/2) */
static __device__ __forceinline__ unsigned long long kf_wg_desc(unsigned addr) {
    return (unsigned long long)((addr & 0x3FFFF) >> 4) | (1ull << 16) | (64ull << 32) | (1ull << 62);
}
static __device__ __forceinline__ void kf_wgmma_bf16_n128(float *d, unsigned long long da, unsigned long long db) {
    asm volatile("{ .reg .pred p; setp.ne.b32 p, %66, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31,%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,%46,%47,%48,%49,%50,%51,%52,%53,%54,%55,%56,%57,%58,%59,%60,%61,%62,%63}, %64, %65, p, 1, 1, 0, 0; }\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
        : "l"(da), "l"(db), "r"(1));
}
static __device__ __forceinline__ void kf_wgmma_bf16_n256(float *d, unsigned long long da, unsigned long long db) {
    asm volatile("{ .reg .pred p; setp.ne.b32 p, %130, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16 {%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31,%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,%46,%47,%48,%49,%50,%51,%52,%53,%54,%55,%56,%57,%58,%59,%60,%61,%62,%63,%64,%65,%66,%67,%68,%69,%70,%71,%72,%73,%74,%75,%76,%77,%78,%79,%80,%81,%82,%83,%84,%85,%86,%87,%88,%89,%90,%91,%92,%93,%94,%95,%96,%97,%98,%99,%100,%101,%102,%103,%104,%105,%106,%107,%108,%109,%110,%111,%112,%113,%114,%115,%116,%117,%118,%119,%120,%121,%122,%123,%124,%125,%126,%127}, %128, %129, p, 1, 1, 0, 0; }\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]), "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]), "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]), "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]), "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]), "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]), "+f"(d[110]), "+f"(d[111]), "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]), "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]), "+f"(d[120]), "+f"(d[121]), "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])
        : "l"(da), "l"(db), "r"(1));
}
static __device__ __forceinline__ void kf_wgmma_tf32_n128(float *d, unsigned long long da, unsigned long long db) {
    asm volatile("{ .reg .pred p; setp.ne.b32 p, %66, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n128k8.f32.tf32.tf32 {%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31,%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,%46,%47,%48,%49,%50,%51,%52,%53,%54,%55,%56,%57,%58,%59,%60,%61,%62,%63}, %64, %65, p, 1, 1; }\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
        : "l"(da), "l"(db), "r"(1));
}
static __device__ __forceinline__ void kf_wgmma_tf32_n256(float *d, unsigned long long da, unsigned long long db) {
    asm volatile("{ .reg .pred p; setp.ne.b32 p, %130, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n256k8.f32.tf32.tf32 {%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31,%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,%46,%47,%48,%49,%50,%51,%52,%53,%54,%55,%56,%57,%58,%59,%60,%61,%62,%63,%64,%65,%66,%67,%68,%69,%70,%71,%72,%73,%74,%75,%76,%77,%78,%79,%80,%81,%82,%83,%84,%85,%86,%87,%88,%89,%90,%91,%92,%93,%94,%95,%96,%97,%98,%99,%100,%101,%102,%103,%104,%105,%106,%107,%108,%109,%110,%111,%112,%113,%114,%115,%116,%117,%118,%119,%120,%121,%122,%123,%124,%125,%126,%127}, %128, %129, p, 1, 1; }\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]), "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]), "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]), "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]), "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]), "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]), "+f"(d[110]), "+f"(d[111]), "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]), "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]), "+f"(d[120]), "+f"(d[121]), "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])
        : "l"(da), "l"(db), "r"(1));
}
#endif

#ifndef KF_TMA_HELPERS
#define KF_TMA_HELPERS
/* TMA (cuda_gemm_wgmma.c): a tensor map the plugin encodes (cuTensorMapEncodeTiled) and passes
 * by value; mbarrier init / arrive / expect_tx / try_wait.parity; a 2-D tile copy that completes
 * on an mbarrier */
struct __align__(64) kf_tmap_t { unsigned long long q[16]; };
static __device__ __forceinline__ void kf_mbar_init(unsigned a, unsigned n) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" :: "r"(a), "r"(n));
}
static __device__ __forceinline__ void kf_mbar_wait(unsigned a, unsigned parity) {
    asm volatile("{ .reg .pred p;\nW: mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n@!p bra W; }"
                 :: "r"(a), "r"(parity) : "memory");
}
/* arrives when c is nonzero (predicated: no branch between the wgmmas) */
static __device__ __forceinline__ void kf_mbar_arrive_if(unsigned a, int c) {
    asm volatile("{ .reg .pred p; setp.ne.b32 p, %1, 0;\n@p mbarrier.arrive.shared::cta.b64 _, [%0]; }"
                 :: "r"(a), "r"(c) : "memory");
}
static __device__ __forceinline__ void kf_mbar_expect(unsigned a, unsigned bytes) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" :: "r"(a), "r"(bytes) : "memory");
}
static __device__ __forceinline__ void kf_tma_2d(unsigned dst, const kf_tmap_t *m, int c0, int c1, unsigned bar) {
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];"
                 :: "r"(dst), "l"(m), "r"(c0), "r"(c1), "r"(bar) : "memory");
}
#endif

__kernel __launch_bounds__(288)
void g0_gemm_wgmma_tma_tf32_epilogue(__global const float *restrict g_b,
    __global float *g_y,
    const __grid_constant__ kf_tmap_t tm_0,
    const __grid_constant__ kf_tmap_t tm_1, int dim_B, int dim_K, int dim_N)
{
    const int kf_ok = KF_DIMS_OK;
    /* h: C (1024 x 8192) = x (1024 x 8192) * W^T + bias on Hopper tensor cores
     * (wgmma, TF32 (the FP32 inputs as they are) in, FP32 accumulate): 128 x 128 tiles, 2 consumer warpgroups of 64 x 128 and one
     * producer warp, K in stages of 128 bytes (32 elements), 6 stages loaded by TMA (tensor maps
     * tm_0, tm_1), 128-byte swizzle; full[s] completes on the copies' bytes, empty[s] on the 256
     * consumer threads once their wgmmas have read the stage */
    const int M = 1024, N = 8192;
    const int tid = threadIdx.x, wg = tid >> 7, lw = (tid >> 5) & 3, gid = (tid & 31) >> 2, tig = tid & 3;
    /* groups of 8 block rows, block columns in order within a group */
    const int bid = blockIdx.x, per_group = 8 * 64, first = bid / per_group * 8;
    const int rows_in = 8 - first < 8 ? 8 - first : 8;
    const int m0 = (first + (bid % per_group) % rows_in) * 128, n0 = (bid % per_group) / rows_in * 128;
    extern __shared__ __align__(16) unsigned char kf_dyn_smem[];
    __shared__ __align__(8) unsigned long long kf_bars[12];
    const unsigned sm = (kf_smem_u32(kf_dyn_smem) + 1023u) & ~1023u;
    const unsigned full0 = kf_smem_u32(kf_bars), empty0 = full0 + 48u;
    const int nk = kf_ok ? 256 : 0;
    if (tid == 0) {
        for (int s = 0; s < 6; s++) { kf_mbar_init(full0 + 8 * s, 1); kf_mbar_init(empty0 + 8 * s, 256); }
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    }
    __syncthreads();
    if (tid >= 256) {   /* the producer warp: lane 0 issues every copy */
        if (tid == 256)
            for (int kt = 0; kt < nk; kt++) {
                const int s = kt % 6;
                if (kt >= 6) kf_mbar_wait(empty0 + 8 * s, ((kt / 6) - 1) & 1);
                const unsigned sa = sm + s * 32768u;
                kf_mbar_expect(full0 + 8 * s, 32768u);
                kf_tma_2d(sa, &tm_0, kt * 32, m0, full0 + 8 * s);
                kf_tma_2d(sa + 16384u, &tm_1, kt * 32, n0, full0 + 8 * s);
            }
        return;
    }
    float acc[1][16][4];
#pragma unroll
    for (int j = 0; j < 16; j++)
#pragma unroll
        for (int e = 0; e < 4; e++) acc[0][j][e] = 0.0f;
    float *d = &acc[0][0][0];
    for (int kt = 0; kt < nk; kt++) {
        const int s = kt % 6;
        kf_mbar_wait(full0 + 8 * s, (kt / 6) & 1);
        const unsigned st = sm + s * 32768u;
        const unsigned long long da = kf_wg_desc(st + wg * 8192u), db = kf_wg_desc(st + 16384u);
#pragma unroll
        for (int i = 0; i < 64; i++) asm volatile("" : "+f"(d[i]) :: "memory");
        asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
#pragma unroll
        for (int s4 = 0; s4 < 4; s4++) kf_wgmma_tf32_n128(d, da + 2 * s4, db + 2 * s4);   /* 32 bytes of K each */
        asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
        asm volatile("wgmma.wait_group.sync.aligned 1;" ::: "memory");
        /* tile kt - 1's wgmmas are done: its stage goes back to the producer (every consumer
           thread arrives; with one lane per warp ptxas serialized the wgmmas) */
        kf_mbar_arrive_if(empty0 + 8 * ((kt + 5) % 6), kt > 0);
#pragma unroll
        for (int i = 0; i < 64; i++) asm volatile("" : "+f"(d[i]) :: "memory");
    }
    asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
#pragma unroll
    for (int i = 0; i < 64; i++) asm volatile("" : "+f"(d[i]) :: "memory");
    if (!kf_ok) return;
    const int i = 0;
#pragma unroll
    for (int j = 0; j < 16; j++)
#pragma unroll
        for (int e = 0; e < 4; e++) {
                const int m = m0 + wg * 64 + lw * 16 + gid + (e >> 1) * 8;
                const int n = n0 + j * 8 + tig * 2 + (e & 1);
                if (m >= M || n >= N) continue;
                const size_t idx = (size_t)m * N + n;
                const float t_h = acc[i][j][e] + g_b[n];
                /* epilogue */
                const float t_h1 = kf_mul(t_h, 2.0f);   /* mul */
                const float t_y = kf_leaky_relu(t_h1, 0.1f);   /* leaky_relu */
                g_y[idx] = t_y;
            }
}

