/* cuda_from_ocl.c — the "cuda-c" emitter (emit.h): CUDA C for the cuda
 * plugin, translated from the OpenCL C emitter's kernels through a small
 * compatibility prelude (work-item functions, barriers, float2/4/8 with
 * OpenCL's .s0.. components, vload/vstore) and two rewrites the
 * preprocessor cannot do (a __local pointer parameter is a plain pointer in
 * CUDA; reqd_work_group_size becomes __launch_bounds__).  The search space
 * is the OpenCL emitter's, minus fp16 storage, plus the precision knob
 * fp32 / TF32 / BF16: with TF32 every GEMM group runs on tensor cores
 * (cuda_gemm_tc.c); with BF16 on BF16 tensor cores after converting its
 * operands (cuda_gemm_bf16.c, knobs tc_bn and tc_stages), the default on
 * sm_80 and later, falling back to 3xBF16 then fp32 when verification
 * fails.  Knob tc_wgmma = 1 (the default on compute capability 9.0 where
 * the plugin encodes no tensor maps) runs the BF16 and TF32 GEMMs through Hopper wgmma (cuda_gemm_wgmma.c,
 * sm_90a); a failed BF16 wgmma point falls back to TF32 wgmma first.
 * tc_wgmma = 2 loads the wgmma GEMM's tiles by TMA through tensor maps
 * (plan ABI 1.5) where the plugin says it encodes them (compute capability
 * 9.0): there it is the default, at 128 x 256; each of 1 and 2 is the
 * other's neighbour.  The op-by-op baseline and the GEMM anchor call cuBLAS sgemm in
 * FP32 for their GEMMs (cuda_cublas.c): what PyTorch eager does. */
#include "agent/builtin/builtin.h"
#include "builtin_ocl_internal.h"
#include "ocl_knobs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char COMPAT[] =
    "/* OpenCL C -> CUDA C compatibility (kforge built-in agent, cuda-c emitter) */\n"
    "#define __kernel extern \"C\" __global__\n"
    "#define __global\n"
    "#define __local __shared__\n"
    "#define __constant const\n"
    "#define restrict __restrict__\n"
    "#define CLK_LOCAL_MEM_FENCE 1\n"
    "#define CLK_GLOBAL_MEM_FENCE 2\n"
    "#define barrier(flags) __syncthreads()\n"
    "#ifndef INFINITY\n#define INFINITY __int_as_float(0x7f800000)\n#endif\n"
    "#ifndef NAN\n#define NAN __int_as_float(0x7fffffff)\n#endif\n"
    "static __device__ __forceinline__ size_t get_local_id(int d) { return d == 0 ? threadIdx.x : d == 1 ? threadIdx.y : threadIdx.z; }\n"
    "static __device__ __forceinline__ size_t get_group_id(int d) { return d == 0 ? blockIdx.x : d == 1 ? blockIdx.y : blockIdx.z; }\n"
    "static __device__ __forceinline__ size_t get_local_size(int d) { return d == 0 ? blockDim.x : d == 1 ? blockDim.y : blockDim.z; }\n"
    "static __device__ __forceinline__ size_t get_num_groups(int d) { return d == 0 ? gridDim.x : d == 1 ? gridDim.y : gridDim.z; }\n"
    "static __device__ __forceinline__ size_t get_global_id(int d) { return get_group_id(d) * get_local_size(d) + get_local_id(d); }\n"
    "static __device__ __forceinline__ size_t get_global_size(int d) { return get_num_groups(d) * get_local_size(d); }\n"
    "static __device__ __forceinline__ float mad(float a, float b, float c) { return fmaf(a, b, c); }\n"
    "struct kf_float4 {\n"
    "    float s0, s1, s2, s3;\n"
    "    __device__ kf_float4() {}\n"
    "    __device__ kf_float4(float v) : s0(v), s1(v), s2(v), s3(v) {}\n"
    "    __device__ kf_float4(float a, float b, float c, float d) : s0(a), s1(b), s2(c), s3(d) {}\n"
    "};\n"
    "struct kf_float2 {\n"
    "    float s0, s1;\n"
    "    __device__ kf_float2() {}\n"
    "    __device__ kf_float2(float v) : s0(v), s1(v) {}\n"
    "    __device__ kf_float2(float a, float b) : s0(a), s1(b) {}\n"
    "};\n"
    "struct kf_float8 {\n"
    "    float s0, s1, s2, s3, s4, s5, s6, s7;\n"
    "    __device__ kf_float8() {}\n"
    "    __device__ kf_float8(float v) : s0(v), s1(v), s2(v), s3(v), s4(v), s5(v), s6(v), s7(v) {}\n"
    "    __device__ kf_float8(float a, float b, float c, float d, float e, float f, float g, float h)\n"
    "        : s0(a), s1(b), s2(c), s3(d), s4(e), s5(f), s6(g), s7(h) {}\n"
    "};\n"
    "#define float8 kf_float8\n"
    "#define float4 kf_float4\n"
    "#define float2 kf_float2\n"
    "static __device__ __forceinline__ float4 operator+(float4 a, float4 b) { return float4(a.s0 + b.s0, a.s1 + b.s1, a.s2 + b.s2, a.s3 + b.s3); }\n"
    "static __device__ __forceinline__ float4 operator*(float4 a, float4 b) { return float4(a.s0 * b.s0, a.s1 * b.s1, a.s2 * b.s2, a.s3 * b.s3); }\n"
    "static __device__ __forceinline__ float2 operator+(float2 a, float2 b) { return float2(a.s0 + b.s0, a.s1 + b.s1); }\n"
    "static __device__ __forceinline__ float2 operator*(float2 a, float2 b) { return float2(a.s0 * b.s0, a.s1 * b.s1); }\n"
    "static __device__ __forceinline__ float4 mad(float4 a, float4 b, float4 c) { return float4(fmaf(a.s0, b.s0, c.s0), fmaf(a.s1, b.s1, c.s1), fmaf(a.s2, b.s2, c.s2), fmaf(a.s3, b.s3, c.s3)); }\n"
    "static __device__ __forceinline__ float2 mad(float2 a, float2 b, float2 c) { return float2(fmaf(a.s0, b.s0, c.s0), fmaf(a.s1, b.s1, c.s1)); }\n"
    "static __device__ __forceinline__ float8 mad(float8 a, float8 b, float8 c) { return float8(fmaf(a.s0, b.s0, c.s0), fmaf(a.s1, b.s1, c.s1), fmaf(a.s2, b.s2, c.s2), fmaf(a.s3, b.s3, c.s3), fmaf(a.s4, b.s4, c.s4), fmaf(a.s5, b.s5, c.s5), fmaf(a.s6, b.s6, c.s6), fmaf(a.s7, b.s7, c.s7)); }\n"
    "static __device__ __forceinline__ float8 vload8(size_t i, const float *p) { p += 8 * i; return float8(p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7]); }\n"
    "static __device__ __forceinline__ void vstore8(float8 v, size_t i, float *p) { p += 8 * i; p[0] = v.s0; p[1] = v.s1; p[2] = v.s2; p[3] = v.s3; p[4] = v.s4; p[5] = v.s5; p[6] = v.s6; p[7] = v.s7; }\n"
    "static __device__ __forceinline__ float4 vload4(size_t i, const float *p) { p += 4 * i; return float4(p[0], p[1], p[2], p[3]); }\n"
    "static __device__ __forceinline__ void vstore4(float4 v, size_t i, float *p) { p += 4 * i; p[0] = v.s0; p[1] = v.s1; p[2] = v.s2; p[3] = v.s3; }\n"
    "static __device__ __forceinline__ float2 vload2(size_t i, const float *p) { p += 2 * i; return float2(p[0], p[1]); }\n"
    "static __device__ __forceinline__ void vstore2(float2 v, size_t i, float *p) { p += 2 * i; p[0] = v.s0; p[1] = v.s1; }\n"
    "/* tensor-core helpers (cuda_gemm_tc.c): round to TF32; a 16-byte cp.async\n"
    " * that zero-fills when !ok (src must then still be a valid address) */\n"
    "static __device__ __forceinline__ unsigned kf_tf32(float x) { unsigned t; asm(\"cvt.rna.tf32.f32 %0, %1;\" : \"=r\"(t) : \"f\"(x)); return t; }\n"
    "static __device__ __forceinline__ void kf_cp16(void *dst, const void *src, int ok) {\n"
    "    unsigned s; asm volatile(\"{ .reg .u64 t; cvta.to.shared.u64 t, %1; cvt.u32.u64 %0, t; }\" : \"=r\"(s) : \"l\"(dst));\n"
    "    asm volatile(\"cp.async.cg.shared.global [%0], [%1], 16, %2;\" :: \"r\"(s), \"l\"(src), \"r\"(ok ? 16 : 0));\n"
    "}\n"
    "/* BF16 tensor-core helpers (cuda_gemm_bf16.c, sm_80 and later): two floats\n"
    " * to a bf16x2 word (lo first in memory), a shared-memory address as u32,\n"
    " * a 16-byte cp.async to it, ldmatrix x4, mma m16n8k16 bf16 -> f32 */\n"
    "static __device__ __forceinline__ unsigned kf_bf16x2(float lo, float hi) { unsigned d; asm(\"cvt.rn.bf16x2.f32 %0, %1, %2;\" : \"=r\"(d) : \"f\"(hi), \"f\"(lo)); return d; }\n"
    "static __device__ __forceinline__ unsigned kf_smem_u32(const void *p) {\n"
    "    unsigned s; asm(\"{ .reg .u64 t; cvta.to.shared.u64 t, %1; cvt.u32.u64 %0, t; }\" : \"=r\"(s) : \"l\"(p)); return s;\n"
    "}\n"
    "static __device__ __forceinline__ void kf_cp16_u32(unsigned dst, const void *src) {\n"
    "    asm volatile(\"cp.async.cg.shared.global [%0], [%1], 16;\" :: \"r\"(dst), \"l\"(src));\n"
    "}\n"
    "static __device__ __forceinline__ void kf_ldsm_x4(unsigned r[4], unsigned addr) {\n"
    "    asm volatile(\"ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\"\n"
    "                 : \"=r\"(r[0]), \"=r\"(r[1]), \"=r\"(r[2]), \"=r\"(r[3]) : \"r\"(addr));\n"
    "}\n"
    "static __device__ __forceinline__ void kf_mma_bf16(float c[4], const unsigned a[4], const unsigned b[2]) {\n"
    "    asm volatile(\"mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\"\n"
    "                 : \"+f\"(c[0]), \"+f\"(c[1]), \"+f\"(c[2]), \"+f\"(c[3])\n"
    "                 : \"r\"(a[0]), \"r\"(a[1]), \"r\"(a[2]), \"r\"(a[3]), \"r\"(b[0]), \"r\"(b[1]));\n"
    "}\n"
    "/* ------------------------------------------------------------------ */\n";

/* Appends src[0..n) to the growing text; -1 when out of memory. */
static int add(char **t, size_t *len, size_t *cap, const char *s, size_t n)
{
    if (*len + n + 1 > *cap) {
        size_t c = *cap ? *cap * 2 : 4096;
        while (c < *len + n + 1) c *= 2;
        char *p = realloc(*t, c);
        if (!p) return -1;
        *t = p;
        *cap = c;
    }
    memcpy(*t + *len, s, n);
    *len += n;
    (*t)[*len] = '\0';
    return 0;
}

/* The two rewrites the prelude's macros cannot do. */
static char *translate(const char *cl)
{
    char *t = NULL;
    size_t len = 0, cap = 0;
    if (add(&t, &len, &cap, COMPAT, strlen(COMPAT)) != 0) return NULL;
    const char *p = cl;
    while (*p) {
        static const char LOC[] = "__local ", RWG[] = "__attribute__((reqd_work_group_size(";
        if (!strncmp(p, LOC, sizeof LOC - 1)) {
            /* "__local [const] T *": a pointer into shared memory, which
               CUDA spells without a qualifier */
            const char *q = p + sizeof LOC - 1;
            while (*q && *q != '*' && *q != ';' && *q != '[' && *q != '=' && *q != '(' && *q != ')' && *q != ',') q++;
            if (*q == '*') p += sizeof LOC - 1;
        } else if (!strncmp(p, RWG, sizeof RWG - 1)) {
            const char *q = p + sizeof RWG - 1, *e = strstr(q, ")))");
            if (e) {
                char lb[128];
                int x = 1, y = 1, z = 1;
                sscanf(q, "%d , %d , %d", &x, &y, &z);
                snprintf(lb, sizeof lb, "__launch_bounds__(%d)", x * y * z);
                if (add(&t, &len, &cap, lb, strlen(lb)) != 0) { free(t); return NULL; }
                p = e + 3;
                continue;
            }
        }
        if (add(&t, &len, &cap, p, 1) != 0) { free(t); return NULL; }
        p++;
    }
    return t;
}

int kf_bt_gen_cuda(const kf_bt_plan *plan, const kf_bt_point *pt, const char *backend, const kf_device_info *dev,
                   kf_candidate **out, char **label, kf_error *err)
{
    *out = NULL;
    if (label) *label = NULL;
    if (pt->precision != KF_BT_FP32 && pt->precision != KF_BT_TF32 && pt->precision != KF_BT_BF16 &&
        pt->precision != KF_BT_BF16X3)
        return kf_fail(err, KF_E_BAD_INPUT, "CUDA point: precision %d; this emitter writes fp32 (0), TF32 (2), BF16 (3) "
                       "or 3xBF16 (4) tensor-core GEMMs", pt->precision);
    if (pt->knob[KU_TC_BN] != 128 && pt->knob[KU_TC_BN] != 256)
        return kf_fail(err, KF_E_BAD_INPUT, "CUDA point: tc_bn = %d; use 128 or 256", pt->knob[KU_TC_BN]);
    if (pt->knob[KU_TC_STAGES] < 2 || pt->knob[KU_TC_STAGES] > 4)
        return kf_fail(err, KF_E_BAD_INPUT, "CUDA point: tc_stages = %d; use 2, 3 or 4", pt->knob[KU_TC_STAGES]);
    if (pt->knob[KU_TC_BK] != 32 && pt->knob[KU_TC_BK] != 64)
        return kf_fail(err, KF_E_BAD_INPUT, "CUDA point: tc_bk = %d; use 32 or 64", pt->knob[KU_TC_BK]);
    if (pt->knob[KU_TC_WGMMA] < 0 || pt->knob[KU_TC_WGMMA] > 2)
        return kf_fail(err, KF_E_BAD_INPUT, "CUDA point: tc_wgmma = %d; use 0 (mma.sync), 1 (wgmma, sm_90a) or 2 "
                       "(wgmma with TMA loads)", pt->knob[KU_TC_WGMMA]);
    kf_bt_point q = *pt;
    q.em = &kf_bt_emit_opencl_c;
    q.precision = KF_BT_FP32;
    kf_candidate *c = NULL;
    int tc = pt->precision == KF_BT_BF16X3 ? 3 : pt->precision == KF_BT_BF16 ? 2 : pt->precision == KF_BT_TF32 ? 1 : 0;
    /* the op-by-op baseline calls cuBLAS for its GEMMs, in FP32 as PyTorch
       eager does (cuda_cublas.c) */
    if (kf_bt_gen_ocl_tc(plan, &q, backend, dev, tc, pt->baseline, &c, label, err) != 0) return -1;
    if (label && *label && tc) {
        char *l2 = NULL;
        const int wg = pt->knob[KU_TC_WGMMA] >= 1 && tc <= 2;
        int n = wg ? asprintf(&l2, "%s, %s wgmma%s 128x%d %d-stage (mma.sync where wgmma does not apply)", *label,
                              tc == 2 ? "BF16" : "TF32", pt->knob[KU_TC_WGMMA] == 2 ? "+TMA" : "", pt->knob[KU_TC_BN],
                              ocl_wgmma_stages(pt->knob[KU_TC_BN], pt->knob[KU_TC_STAGES], dev))
                : tc >= 2 ? asprintf(&l2, "%s, %s tensor cores 128x%dx%d %d-stage", *label, tc == 3 ? "3xBF16" : "BF16",
                                     pt->knob[KU_TC_BN], pt->knob[KU_TC_BK], pt->knob[KU_TC_STAGES])
                          : asprintf(&l2, "%s, TF32 tensor cores", *label);
        if (n >= 0) { free(*label); *label = l2; }
    }
    for (int i = 0; i < c->n_sources; i++) {
        char *cu = translate(c->sources[i].text);
        char *name = NULL;
        const char *dot = strrchr(c->sources[i].name, '.');
        if (!cu || asprintf(&name, "%.*s.cu", (int)(dot ? dot - c->sources[i].name : (long)strlen(c->sources[i].name)),
                            c->sources[i].name) < 0) {
            free(cu);
            kf_candidate_free(c);
            if (label) { free(*label); *label = NULL; }
            return kf_fail(err, KF_E_INTERNAL, "cuda generator: out of memory");
        }
        free(c->sources[i].text);
        free(c->sources[i].name);
        c->sources[i].text = cu;
        c->sources[i].size = strlen(cu);
        c->sources[i].name = name;
    }
    free(c->build_options);
    c->build_options = strdup("");   /* -cl-* options are OpenCL's; NVRTC fuses mul-add by default */
    *out = c;
    return c->build_options ? 0 : kf_fail(err, KF_E_INTERNAL, "cuda generator: out of memory");
}

static const int TC_BNS[] = {128, 256};
static const int TC_STAGES[] = {2, 3, 4};
static const int TC_BKS[] = {32, 64};

static const kf_bt_knob knobs[KU_N] = {
    KF_BT_OCL_KNOB_ENTRIES,
    [KU_TC_BN] = {"tc_bn", 128, 256, TC_BNS, 2, "the BF16 GEMM's block tile N"},
    [KU_TC_STAGES] = {"tc_stages", 2, 4, TC_STAGES, 3, "the BF16 GEMM's pipeline stages"},
    [KU_TC_BK] = {"tc_bk", 32, 64, TC_BKS, 2, "the BF16 GEMM's stage depth"},
    [KU_TC_WGMMA] = {"tc_wgmma", 0, 2, NULL, 0,
                     "the tensor-core instruction (1: Hopper wgmma, 2: wgmma with TMA loads, 0: mma.sync)"},
};

static int offerable(const kf_bt_point *p)
{
    return (p->precision == KF_BT_FP32 || p->precision == KF_BT_TF32 || p->precision == KF_BT_BF16 ||
            p->precision == KF_BT_BF16X3) &&
           (p->knob[KU_TC_BN] == 128 || p->knob[KU_TC_BN] == 256) && (p->knob[KU_TC_BK] == 32 || p->knob[KU_TC_BK] == 64) &&
           (p->knob[KU_TC_WGMMA] >= 0 && p->knob[KU_TC_WGMMA] <= 2) && kf_bt_ocl_offerable(p);
}

/* BF16 tensor cores where the device has them (sm_80 and later: the
 * plugin's device detail names the compute capability), else fp32; the
 * BF16 GEMM at 128 x 128 x 64 tiles, 3 stages (110 KiB: two blocks per SM
 * on an H100, one on an A100); on 9.0 (H100, H200) through wgmma at
 * 128 x 128, 6 stages (bench/results/h100-wgmma-2026-11-24).  The tiling was picked on the H100 in a
 * session whose records were lost; its timings are not yet in
 * bench/results, so treat it as a starting point the search moves from. */
static void defaults(kf_bt_point *p, const kf_resolved *r, const kf_device_info *dev)
{
    kf_bt_ocl_defaults(p, r, dev);
    p->knob[KU_TC_BN] = 128;
    p->knob[KU_TC_STAGES] = 3;
    p->knob[KU_TC_BK] = 64;
    p->knob[KU_TC_WGMMA] = 0;
    const char *cc = dev ? strstr(dev->detail, "compute capability ") : NULL;
    if (cc && atoi(cc + 19) >= 8) p->precision = KF_BT_BF16;
    if (cc && !strncmp(cc + 19, "9.0", 3)) {   /* Hopper: wgmma (sm_90a), 128 x 128 tiles, 6 stages */
        p->knob[KU_TC_WGMMA] = 1;
        p->knob[KU_TC_BN] = 128;
        p->knob[KU_TC_STAGES] = 3;
        /* where the plugin encodes tensor maps: the tiles by TMA, 128 x 256
           (4 stages): problems 9 and 12 382 us against 450 us with cp.async
           at 128 x 128 (bench/results/h100-tma-2026-11-25); a GEMM whose
           GroupNorm/BatchNorm fuses into its epilogue keeps the cp.async
           kernel (cuda_gemm_wgmma.c) */
        if (strstr(dev->detail, "tensor maps (TMA) supported")) {
            p->knob[KU_TC_WGMMA] = 2;
            p->knob[KU_TC_BN] = 256;
        }
    }
}

/* On tensor cores the OpenCL tile knobs only shape the non-GEMM kernels:
 * BF16 and 3xBF16 points step their own tile, stages and depth first,
 * then precision (-> TF32); TF32 points offer BF16 and fp32; fp32 points
 * the OpenCL neighbours (fp16 storage is not offered) and TF32. */
static void neighbours(const kf_bt_point *p, kf_bt_nbr_sink *s)
{
    kf_bt_point q = *p;
    if (p->knob[KU_TC_WGMMA] >= 1 && (p->precision == KF_BT_BF16 || p->precision == KF_BT_TF32)) {
        /* wgmma (set by the defaults on sm_90 only, never offered from a
           mma.sync point): its tile and stages (tc_bk does not shape it),
           the other precision, the same on mma.sync, then the other way
           of loading its tiles (cp.async <-> TMA; a TMA point fails to
           generate where the plugin offers no tensor maps) */
        kf_bt_step_knob(p, KU_TC_BN, s);
        kf_bt_step_knob(p, KU_TC_STAGES, s);
        q.precision = p->precision == KF_BT_BF16 ? KF_BT_TF32 : KF_BT_BF16;
        kf_bt_nbr_push(s, &q);
        q = *p;
        q.knob[KU_TC_WGMMA] = 0;
        kf_bt_nbr_push(s, &q);
        q.knob[KU_TC_WGMMA] = p->knob[KU_TC_WGMMA] == 1 ? 2 : 1;
        kf_bt_nbr_push(s, &q);
        return;
    }
    if (p->precision == KF_BT_BF16 || p->precision == KF_BT_BF16X3) {
        kf_bt_step_knob(p, KU_TC_BN, s);
        kf_bt_step_knob(p, KU_TC_STAGES, s);
        kf_bt_step_knob(p, KU_TC_BK, s);
        q.precision = KF_BT_TF32;
        kf_bt_nbr_push(s, &q);
        return;
    }
    if (p->precision == KF_BT_TF32) {
        q.precision = KF_BT_BF16;
        kf_bt_nbr_push(s, &q);
        q.precision = KF_BT_FP32;
        kf_bt_nbr_push(s, &q);
        return;
    }
    kf_bt_ocl_neighbours(p, s);
    q.precision = KF_BT_TF32;
    kf_bt_nbr_push(s, &q);
}

/* After a failed wgmma point: BF16 -> TF32 (wgmma, from the FP32 inputs:
 * 10 mantissa bits, and on an H100 problem 30 ran 0.60 ms in TF32 against
 * 1.49 ms in 3xBF16) -> 3xBF16 (mma.sync); mma.sync points keep the common
 * order.  TF32 takes the 128 x 256 tile (4 stages): a TF32 stage row holds
 * half the K of a BF16 one, so the wider tile's reuse pays more (on an H100,
 * bench/results/h100-cuda-gnorm-2026-11-25: problem 62 with its GroupNorm
 * in the epilogue 549 us at 128 x 128, 472 us at 128 x 256; problem 12
 * 546 us at 128 x 128); 3xBF16 goes back to 128. */
static int more_accurate(kf_bt_point *p)
{
    if (p->knob[KU_TC_WGMMA] < 1) return 0;
    if (p->precision == KF_BT_BF16) { p->precision = KF_BT_TF32; p->knob[KU_TC_BN] = 256; return 1; }
    if (p->precision == KF_BT_TF32) { p->precision = KF_BT_BF16X3; p->knob[KU_TC_BN] = 128; return 1; }
    return 0;
}

const kf_bt_emitter kf_bt_emit_cuda_c = {
    .language = "cuda-c",
    .what = "CUDA C from the OpenCL C kernels; GEMMs on BF16, 3xBF16 or TF32 tensor cores (mma.sync, or wgmma on sm_90a) or FP32 CUDA cores",
    .n_knobs = KU_N,
    .knobs = knobs,
    .defaults = defaults,
    .offerable = offerable,
    .more_accurate = more_accurate,
    .conservative = kf_bt_ocl_conservative,
    .neighbours = neighbours,
    .label = kf_bt_ocl_label,
    .describe_change = kf_bt_ocl_describe_change,
    .generate = kf_bt_gen_cuda,
    .library_gemm = kf_bt_cuda_library_gemm,
};
