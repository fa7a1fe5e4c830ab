/*
 * cuda_gemm_wgmma.c — the GEMM of a GEMM group on Hopper tensor cores
 * through wgmma (sm_90a only), for the cuda-c emitter (knob tc_wgmma = 1,
 * which the defaults set on compute capability 9.0 only): BF16 operands
 * (precision KF_BT_BF16, converted first as in cuda_gemm_bf16.c) or TF32
 * straight from the FP32 inputs (KF_BT_TF32: no conversion pass; the
 * tensor cores read the FP32 words and use their TF32 bits), FP32
 * accumulation, the group's epilogue on the accumulators, FP32 output.
 *
 * The kernel: 256 threads = 2 warpgroups per 128 x BN tile of C (BN 128
 * or 256: knob tc_bn); warpgroup w computes rows 64w..64w+63 with one
 * wgmma.mma_async m64nBNk16 (bf16) or m64nBNk8 (tf32) per 32 bytes of K,
 * both operands from shared memory through matrix descriptors, K-major
 * with the 128-byte swizzle: a stage holds A (128 rows) then B (BN rows)
 * of 128 bytes each (64 bf16 or 32 fp32 of K), 16-byte chunk c of row r
 * at r * 128 + ((c ^ (r & 7)) << 4) from a 1024-byte aligned base (the
 * layout the descriptor's swizzle mode 1 reads; SBO 1024 bytes between
 * 8-row groups; the k steps advance the start address by 32 bytes).  All
 * 256 threads load the tiles with cp.async (zero-filled past the edges),
 * ocl_wgmma_stages() stages (tc_stages + 1 of 48 KiB at BN 256, tc_stages
 * + 3 of 32 KiB at BN 128, fewer when the device's opt-in shared memory
 * cannot hold them), one wgmma batch left in flight while the next is
 * issued (a stage is refilled two tiles after it was read);
 * each thread fences its copies to the async proxy
 * (fence.proxy.async.shared::cta) before the barrier that publishes them.
 * Tiles are visited in groups of 8 block rows (the B panel stays in L2).
 *
 * Measured on an H100 (bench/results/h100-wgmma-2026-11-24: problem 9 at
 * the kernelbench preset, x 1024 x 8192, W 8192 x 8192): the standalone
 * version of this kernel (bench/gpu/wgmma/wgmma_test.cu) ran the BF16 GEMM
 * in 235 us at 128 x 128 with 6 stages (584 TFLOP/s; 253 us at 128 x 256
 * with 4; 280-305 us waiting for each batch), TF32 in 440 us; as emitted
 * here 273 us, after 159 us of conversion: kforge run 453 us (the mma.sync
 * BF16 kernel: 623 us).  TF32 served problems 30, 62 and 88, which fail
 * BF16's tolerance, in 0.60-0.86 ms (3xBF16: 1.49-1.60 ms).  Hence the
 * default on sm_90 (cuda_from_ocl.c): BF16, 128 x 128, tc_stages 3 (6
 * stages); after a failure, TF32 on wgmma before 3xBF16.
 *
 * Knob tc_wgmma = 2 (the default where the plugin encodes tensor maps, at
 * 128 x 256; a neighbour of every wgmma point) loads the same stages by TMA
 * instead, except for a GEMM whose norm fuses into the cp.async kernel's
 * epilogue (cuda_gemm_norm.c) (gen_tma_kernel): 288 threads, warps
 * 0-7 the consumers above, warp 8 a producer whose lane 0 issues one
 * cp.async.bulk.tensor.2d per operand per stage through tensor maps of the
 * plan (plan ABI 1.5: 128-byte swizzle, boxes of 128 (BN) rows x 128 bytes
 * over the BF16 scratch, or the FP32 inputs for TF32, whose zero fill does
 * the edges); per stage a full mbarrier (expect_tx of the stage's bytes)
 * and an empty one that the 256 consumer threads arrive on once
 * wgmma.wait_group 1 says the stage's wgmmas are done (one arrival per warp
 * made ptxas serialize the wgmmas).  Generated only where the device's
 * detail says "tensor maps (TMA) supported" (the cuda plugin, cc >= 9.0).
 * Measured on the H100 (bench/results/h100-tma-2026-11-25): standalone BF16
 * 229.7 us at 128 x 128 (cp.async 233.9), 198.4 us at 128 x 256 (cp.async
 * 247.5); kforge run problem 9 427.7 us at 128 x 128 and 381.8 us at
 * 128 x 256 against 450.2 us for the default, problem 12 428.9 / 382.4
 * against 447.1 (verified, rel L2 2.3e-3); TF32 with TMA 515.0 us on
 * problem 12.
 *
 * TF32 needs K-major B (nn.Linear's (N, K)) and K % 4 == 0 (16-byte
 * rows); otherwise, and for batched GEMMs, and for a one-block-row BF16
 * GEMM (which the mma.sync kernel does without converting B), the
 * mma.sync kernels are used.  The candidate's source refuses to compile
 * for anything but sm_90a (#error), so a wgmma point on another device
 * fails to compile and is dropped by the search.
 */
#include <config.h>

#include "builtin_ocl_internal.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BM 128

/* The wgmma wrappers (once per source): kf_wgmma_<bf16|tf32>_n<128|256>(d,
 * desc_a, desc_b) accumulate into d[0..N/2), scale-d 1. */
static void emit_helpers(ocl_gen *g)
{
    kf_sb *s = &g->src;
    kf_sb_puts(s, "#ifndef KF_WGMMA_HELPERS\n"
                  "#define KF_WGMMA_HELPERS\n"
                  "#if defined(__CUDA_ARCH__) && !defined(__CUDA_ARCH_FEAT_SM90_ALL)\n"
                  "#error \"this candidate uses wgmma (Hopper tensor cores): compile it for sm_90a\"\n"
                  "#endif\n"
                  "/* wgmma (cuda_gemm_wgmma.c): a shared-memory matrix descriptor, K-major,\n"
                  " * 128-byte swizzle, 8-row groups 1024 bytes apart; m64nNk16 (bf16) and\n"
                  " * m64nNk8 (tf32) into FP32 accumulators d[0..N/2) */\n"
                  "static __device__ __forceinline__ unsigned long long kf_wg_desc(unsigned addr) {\n"
                  "    return (unsigned long long)((addr & 0x3FFFF) >> 4) | (1ull << 16) | (64ull << 32) | (1ull << 62);\n"
                  "}\n");
    static const char *const ty[2] = {"bf16", "tf32"};
    for (int t = 0; t < 2; t++)
        for (int n = 128; n <= 256; n += 128) {
            const int r = n / 2;
            kf_sb_printf(s, "static __device__ __forceinline__ void kf_wgmma_%s_n%d(float *d, unsigned long long da, "
                            "unsigned long long db) {\n"
                            "    asm volatile(\"{ .reg .pred p; setp.ne.b32 p, %%%d, 0;\\n\"\n"
                            "        \"wgmma.mma_async.sync.aligned.m64n%dk%d.f32.%s.%s {",
                         ty[t], n, r + 2, n, t ? 8 : 16, ty[t], ty[t]);
            for (int i = 0; i < r; i++) kf_sb_printf(s, "%s%%%d", i ? "," : "", i);
            kf_sb_printf(s, "}, %%%d, %%%d, p, 1, 1%s; }\\n\"\n        :", r, r + 1, t ? "" : ", 0, 0");
            for (int i = 0; i < r; i++) kf_sb_printf(s, "%s \"+f\"(d[%d])", i ? "," : "", i);
            kf_sb_puts(s, "\n        : \"l\"(da), \"l\"(db), \"r\"(1));\n}\n");
        }
    kf_sb_puts(s, "#endif\n\n");
}

/* The TMA pieces (once per source): the tensor-map parameter type (the
 * 128-byte CUtensorMap, which NVRTC has no header for), mbarriers, the
 * 2-D tiled bulk tensor copy. */
static void emit_tma_helpers(ocl_gen *g)
{
    kf_sb_puts(&g->src,
               "#ifndef KF_TMA_HELPERS\n"
               "#define KF_TMA_HELPERS\n"
               "/* TMA (cuda_gemm_wgmma.c): a tensor map the plugin encodes (cuTensorMapEncodeTiled) and passes\n"
               " * by value; mbarrier init / arrive / expect_tx / try_wait.parity; a 2-D tile copy that completes\n"
               " * on an mbarrier */\n"
               "struct __align__(64) kf_tmap_t { unsigned long long q[16]; };\n"
               "static __device__ __forceinline__ void kf_mbar_init(unsigned a, unsigned n) {\n"
               "    asm volatile(\"mbarrier.init.shared::cta.b64 [%0], %1;\" :: \"r\"(a), \"r\"(n));\n"
               "}\n"
               "static __device__ __forceinline__ void kf_mbar_wait(unsigned a, unsigned parity) {\n"
               "    asm volatile(\"{ .reg .pred p;\\nW: mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\\n@!p bra W; }\"\n"
               "                 :: \"r\"(a), \"r\"(parity) : \"memory\");\n"
               "}\n"
               "/* arrives when c is nonzero (predicated: no branch between the wgmmas) */\n"
               "static __device__ __forceinline__ void kf_mbar_arrive_if(unsigned a, int c) {\n"
               "    asm volatile(\"{ .reg .pred p; setp.ne.b32 p, %1, 0;\\n@p mbarrier.arrive.shared::cta.b64 _, [%0]; }\"\n"
               "                 :: \"r\"(a), \"r\"(c) : \"memory\");\n"
               "}\n"
               "static __device__ __forceinline__ void kf_mbar_expect(unsigned a, unsigned bytes) {\n"
               "    asm volatile(\"mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\" :: \"r\"(a), \"r\"(bytes) : \"memory\");\n"
               "}\n"
               "static __device__ __forceinline__ void kf_tma_2d(unsigned dst, const kf_tmap_t *m, int c0, int c1, unsigned bar) {\n"
               "    asm volatile(\"cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];\"\n"
               "                 :: \"r\"(dst), \"l\"(m), \"r\"(c0), \"r\"(c1), \"r\"(bar) : \"memory\");\n"
               "}\n"
               "#endif\n\n");
}

int ocl_wgmma_stages(int bn, int knob_stages, const kf_device_info *dev)
{
    const int64_t stage_bytes = (int64_t)(BM + (bn == 256 ? 256 : 128)) * 128;
    const int64_t smem_max = dev && dev->local_mem_per_group_optin > 0 ? dev->local_mem_per_group_optin : 227 << 10;
    int stages = (knob_stages >= 2 && knob_stages <= 4 ? knob_stages : 3) + (bn == 256 ? 1 : 3);
    while (stages > 3 && stage_bytes * stages + 1024 > smem_max) stages--;
    return stages;
}

int ocl_gemm_wgmma_applies(const ocl_gen *g, int gi)
{
    const kf_bt_gemm *gm = &g->plan->groups[gi].gemm;
    if (g->pt->knob[KU_TC_WGMMA] < 1 || gm->batch != 1) return 0;
    if (g->tc == 1) return gm->trans_b && gm->K % 4 == 0;
    if (g->tc == 2) return !(gm->M <= BM && gm->trans_b && gm->K % 4 == 0);   /* else the on-load mma.sync kernel */
    return 0;
}

/* The epilogue of both wgmma kernels: accumulator d[4j + e] is row
 * 64 wg + 16 lw + gid + 8 (e >> 1), column 8j + 2 tig + (e & 1) of the tile
 * (the mma.sync m16n8 layout per warp); the group's ops on each, one store
 * (ocl_emit_mma_store). */
static void emit_acc_store(ocl_gen *g, ocl_kernel *k, int gi, int BN, int has_bias)
{
    OCL_P(k, "    if (!kf_ok) return;\n"
             "    const int i = 0;\n"
             "#pragma unroll\n"
             "    for (int j = 0; j < %d; j++)\n"
             "#pragma unroll\n"
             "        for (int e = 0; e < 4; e++) {\n"
             "                const int m = m0 + wg * 64 + lw * 16 + gid + (e >> 1) * 8;\n"
             "                const int n = n0 + j * 8 + tig * 2 + (e & 1);\n"
             "                if (m >= M || n >= N) continue;\n"
             "                const size_t idx = (size_t)m * N + n;\n", BN / 8);
    ocl_emit_mma_store(g, k, gi, g->p->n_inputs + g->plan->groups[gi].nodes[0], has_bias);
}

/* The kernel with its tiles loaded by TMA (knob tc_wgmma = 2): 288 threads,
 * warps 0-7 the two consumer warpgroups, warp 8 the producer; the operands
 * (Ma x Kr rows of A, Nb x Kr of B, `pitch` bytes apart, in `abuf` and
 * `bbuf`) reach the kernel as tensor maps with the 128-byte swizzle, boxes
 * of 128 (BN) rows x 128 bytes; the map's out-of-bounds zero fill does the
 * edges. */
static void gen_tma_kernel(ocl_gen *g, int gi, int BN, int stages, int tf32, const char *abuf, const char *bbuf,
                           int64_t Ma, int64_t Nb, int64_t Kr)
{
    const kf_bt_group *grp = &g->plan->groups[gi];
    const kf_bt_gemm *gm = &grp->gemm;
    const kf_problem *p = g->p;
    const kf_node *an = &p->nodes[grp->nodes[0]];
    const int E = tf32 ? 4 : 2, BK = 128 / E;
    const int64_t stage_bytes = (int64_t)(BM + BN) * 128, pitch = Kr * E, nk = (Kr * E + 127) / 128;
    emit_tma_helpers(g);
    ocl_kernel kk;
    ocl_kernel *k = &kk;
    ocl_kernel_begin(k, g, gi, tf32 ? (grp->n_nodes > 1 ? "gemm_wgmma_tma_tf32_epilogue" : "gemm_wgmma_tma_tf32")
                                    : grp->n_nodes > 1 ? "gemm_wgmma_tma_bf16_epilogue" : "gemm_wgmma_tma_bf16");
    k->barriers = 1;
    k->dyn_shared = stage_bytes * stages + 1024;   /* + the 1024-byte alignment */
    const uint32_t dt = tf32 ? KF_DT_F32 : KF_DT_BF16;
    const char *ta = ocl_tmap_2d(k, abuf, dt, Ma, Kr, pitch, BM, BK, 128);
    const char *tb = ocl_tmap_2d(k, bbuf, dt, Nb, Kr, pitch, BN, BK, 128);
    const char *bias = gm->bias >= 0 ? ocl_buf_value(k, gm->bias, 0) : NULL;
    const int64_t MT = ocl_round_up(gm->M, BM) / BM, NT = ocl_round_up(gm->N, BN) / BN;
    OCL_P(k, "    /* %s: C (%" PRId64 " x %" PRId64 ") = %s (%" PRId64 " x %" PRId64 ") * %s%s%s on Hopper tensor cores\n"
             "     * (wgmma, %s in, FP32 accumulate): %d x %d tiles, 2 consumer warpgroups of 64 x %d and one\n"
             "     * producer warp, K in stages of 128 bytes (%d elements), %d stages loaded by TMA (tensor maps\n"
             "     * %s, %s), 128-byte swizzle; full[s] completes on the copies' bytes, empty[s] on the 256\n"
             "     * consumer threads once their wgmmas have read the stage */\n",
          an->out, gm->M, gm->N, kf_problem_value_name(p, gm->a), gm->M, gm->K, kf_problem_value_name(p, gm->b),
          gm->trans_b ? "^T" : "", bias ? " + bias" : "", tf32 ? "TF32 (the FP32 inputs as they are)" : "BF16",
          BM, BN, BN, BK, stages, ta, tb);
    OCL_P(k, "    const int M = %" PRId64 ", N = %" PRId64 ";\n"
             "    const int tid = threadIdx.x, wg = tid >> 7, lw = (tid >> 5) & 3, gid = (tid & 31) >> 2, tig = tid & 3;\n"
             "    /* groups of 8 block rows, block columns in order within a group */\n"
             "    const int bid = blockIdx.x, per_group = 8 * %" PRId64 ", first = bid / per_group * 8;\n"
             "    const int rows_in = %" PRId64 " - first < 8 ? %" PRId64 " - first : 8;\n"
             "    const int m0 = (first + (bid %% per_group) %% rows_in) * %d, n0 = (bid %% per_group) / rows_in * %d;\n"
             "    extern __shared__ __align__(16) unsigned char kf_dyn_smem[];\n"
             "    __shared__ __align__(8) unsigned long long kf_bars[%d];\n"
             "    const unsigned sm = (kf_smem_u32(kf_dyn_smem) + 1023u) & ~1023u;\n"
             "    const unsigned full0 = kf_smem_u32(kf_bars), empty0 = full0 + %du;\n"
             "    const int nk = kf_ok ? %" PRId64 " : 0;\n"
             "    if (tid == 0) {\n"
             "        for (int s = 0; s < %d; s++) { kf_mbar_init(full0 + 8 * s, 1); kf_mbar_init(empty0 + 8 * s, 256); }\n"
             "        asm volatile(\"fence.mbarrier_init.release.cluster;\" ::: \"memory\");\n"
             "    }\n"
             "    __syncthreads();\n"
             "    if (tid >= 256) {   /* the producer warp: lane 0 issues every copy */\n"
             "        if (tid == 256)\n"
             "            for (int kt = 0; kt < nk; kt++) {\n"
             "                const int s = kt %% %d;\n"
             "                if (kt >= %d) kf_mbar_wait(empty0 + 8 * s, ((kt / %d) - 1) & 1);\n"
             "                const unsigned sa = sm + s * %" PRId64 "u;\n"
             "                kf_mbar_expect(full0 + 8 * s, %" PRId64 "u);\n"
             "                kf_tma_2d(sa, &%s, kt * %d, m0, full0 + 8 * s);\n"
             "                kf_tma_2d(sa + %du, &%s, kt * %d, n0, full0 + 8 * s);\n"
             "            }\n"
             "        return;\n"
             "    }\n",
          gm->M, gm->N, NT, MT, MT, BM, BN, 2 * stages, 8 * stages, nk, stages, stages, stages, stages, stage_bytes,
          stage_bytes, ta, BK, BM * 128, tb, BK);
    OCL_P(k, "    float acc[1][%d][4];\n"
             "#pragma unroll\n"
             "    for (int j = 0; j < %d; j++)\n"
             "#pragma unroll\n"
             "        for (int e = 0; e < 4; e++) acc[0][j][e] = 0.0f;\n"
             "    float *d = &acc[0][0][0];\n"
             "    for (int kt = 0; kt < nk; kt++) {\n"
             "        const int s = kt %% %d;\n"
             "        kf_mbar_wait(full0 + 8 * s, (kt / %d) & 1);\n"
             "        const unsigned st = sm + s * %" PRId64 "u;\n"
             "        const unsigned long long da = kf_wg_desc(st + wg * %du), db = kf_wg_desc(st + %du);\n"
             "#pragma unroll\n"
             "        for (int i = 0; i < %d; i++) asm volatile(\"\" : \"+f\"(d[i]) :: \"memory\");\n"
             "        asm volatile(\"wgmma.fence.sync.aligned;\" ::: \"memory\");\n"
             "#pragma unroll\n"
             "        for (int s4 = 0; s4 < 4; s4++) kf_wgmma_%s_n%d(d, da + 2 * s4, db + 2 * s4);   /* 32 bytes of K each */\n"
             "        asm volatile(\"wgmma.commit_group.sync.aligned;\" ::: \"memory\");\n"
             "        asm volatile(\"wgmma.wait_group.sync.aligned 1;\" ::: \"memory\");\n"
             "        /* tile kt - 1's wgmmas are done: its stage goes back to the producer (every consumer\n"
             "           thread arrives; with one lane per warp ptxas serialized the wgmmas) */\n"
             "        kf_mbar_arrive_if(empty0 + 8 * ((kt + %d) %% %d), kt > 0);\n"
             "#pragma unroll\n"
             "        for (int i = 0; i < %d; i++) asm volatile(\"\" : \"+f\"(d[i]) :: \"memory\");\n"
             "    }\n"
             "    asm volatile(\"wgmma.wait_group.sync.aligned 0;\" ::: \"memory\");\n"
             "#pragma unroll\n"
             "    for (int i = 0; i < %d; i++) asm volatile(\"\" : \"+f\"(d[i]) :: \"memory\");\n",
          BN / 8, BN / 8, stages, stages, stage_bytes, 64 * 128, BM * 128, BN / 2, tf32 ? "tf32" : "bf16", BN,
          stages - 1, stages, BN / 2, BN / 2);
    emit_acc_store(g, k, gi, BN, bias != NULL);
    int64_t global[3] = {MT * NT * 288, 1, 1};
    int64_t local[3] = {288, 1, 1};
    ocl_kernel_finish(k, 1, global, local);
}

void ocl_gen_gemm_wgmma(ocl_gen *g, int gi)
{
    const kf_bt_group *grp = &g->plan->groups[gi];
    const kf_bt_gemm *gm = &grp->gemm;
    const kf_problem *p = g->p;
    const kf_node *an = &p->nodes[grp->nodes[0]];
    const int tf32 = g->tc == 1;
    const int BN = g->pt->knob[KU_TC_BN] == 256 ? 256 : 128;
    const int E = tf32 ? 4 : 2, BK = 128 / E;   /* a stage row is 128 bytes of K */
    if (g->half[gm->a] || g->half[gm->b]) {
        ocl_failf(g, "group g%d: the tensor-core GEMM reads fp32 operands only", gi);
        return;
    }
    const int64_t stage_bytes = (int64_t)(BM + BN) * 128;
    const int stages = ocl_wgmma_stages(BN, g->pt->knob[KU_TC_STAGES], g->dev);
    const int pre = stages - 2;   /* tiles in flight ahead of the one computed */
    /* operands: BF16 scratch [Mp][Kp] and [Np][Kp] (zero-padded), or the
       FP32 inputs as they are (rows of K, read with bounds) */
    int64_t Ma = gm->M, Nb = gm->N, Kr = gm->K;
    const char *abf = NULL, *bbf = NULL;
    if (!tf32) {
        Ma = ocl_round_up(gm->M, BM);
        Nb = ocl_round_up(gm->N, BN);
        Kr = ocl_round_up(gm->K, BK);
        abf = ocl_private_scratch(g, "a_bf16", Ma * Kr * 2);
        bbf = ocl_private_scratch(g, "b_bf16", Nb * Kr * 2);
        if (!abf || !bbf) return;
        ocl_gen_bf16_convert(g, gi, gm->a, gm->M, gm->K, 0, Ma, Kr, abf, NULL, "a_to_bf16");
        ocl_gen_bf16_convert(g, gi, gm->b, gm->N, gm->K, !gm->trans_b, Nb, Kr, bbf, NULL, "b_to_bf16");
        if (g->failed) return;
    }
    emit_helpers(g);
    /* TMA loads (tc_wgmma 2) unless a GroupNorm/BatchNorm after the GEMM
       fuses into its epilogue, which only the cp.async kernel below does */
    if (g->pt->knob[KU_TC_WGMMA] == 2 && !ocl_gemm_norm_mode(g, gi, BN)) {
        /* offered where the plugin says it encodes tensor maps (no device: compile-only, --arch) */
        if (g->dev && g->dev->detail[0] && !strstr(g->dev->detail, "tensor maps (TMA) supported")) {
            ocl_failf(g, "group g%d: tc_wgmma 2 loads tiles by TMA, but the device's plugin does not offer tensor "
                      "maps (it needs compute capability 9.0 and a driver with cuTensorMapEncodeTiled)", gi);
            return;
        }
        if (tf32 && (!g->store_name[gm->a] || !g->store_name[gm->b])) {
            ocl_failf(g, "group g%d: the TMA GEMM reads its operands from buffers (plan/generator mismatch)", gi);
            return;
        }
        if (tf32) gen_tma_kernel(g, gi, BN, stages, 1, g->store_name[gm->a], g->store_name[gm->b], gm->M, gm->N, gm->K);
        else gen_tma_kernel(g, gi, BN, stages, 0, abf, bbf, Ma, Nb, Kr);
        return;
    }
    /* a GroupNorm/BatchNorm after it, fused into the epilogue (cuda_gemm_norm.c; the cp.async
       kernel only: the TMA one above leaves the norm to its own kernels) */
    const int norm = ocl_gemm_norm_mode(g, gi, BN);
    g->gn_part = norm ? ocl_norm_scratch(g, gi, norm, BN) : NULL;
    if (g->failed) return;
    ocl_kernel kk;
    ocl_kernel *k = &kk;
    ocl_kernel_begin(k, g, gi, norm == OCL_NORM_GN_PANEL ? (tf32 ? "gemm_wgmma_tf32_group_norm" : "gemm_wgmma_bf16_group_norm")
                               : norm ? (tf32 ? "gemm_wgmma_tf32_norm_stats" : "gemm_wgmma_bf16_norm_stats")
                               : tf32 ? (grp->n_nodes > 1 ? "gemm_wgmma_tf32_epilogue" : "gemm_wgmma_tf32")
                                    : grp->n_nodes > 1 ? "gemm_wgmma_bf16_epilogue" : "gemm_wgmma_bf16");
    k->barriers = 1;
    k->dyn_shared = stage_bytes * stages + 1024;   /* + the 1024-byte alignment */
    const char *A = tf32 ? ocl_buf_value(k, gm->a, 0) : ocl_buf_named(k, abf, 0);
    const char *B = tf32 ? ocl_buf_value(k, gm->b, 0) : ocl_buf_named(k, bbf, 0);
    const char *bias = gm->bias >= 0 ? ocl_buf_value(k, gm->bias, 0) : NULL;
    const int64_t MT = ocl_round_up(gm->M, BM) / BM, NT = ocl_round_up(gm->N, BN) / BN;
    const int64_t pitch = Kr * E, nk = (Kr * E + 127) / 128;
    OCL_P(k, "    /* %s: C (%" PRId64 " x %" PRId64 ") = %s (%" PRId64 " x %" PRId64 ") * %s%s%s on Hopper tensor cores\n"
             "     * (wgmma, %s in, FP32 accumulate): %d x %d tiles, 2 warpgroups of 64 x %d, K in stages of\n"
             "     * 128 bytes (%d elements), %d stages through cp.async, 128-byte swizzle */\n",
          an->out, gm->M, gm->N, kf_problem_value_name(p, gm->a), gm->M, gm->K, kf_problem_value_name(p, gm->b),
          gm->trans_b ? "^T" : "", bias ? " + bias" : "", tf32 ? "TF32 (the FP32 inputs as they are)" : "BF16",
          BM, BN, BN, BK, stages);
    OCL_P(k, "    const int M = %" PRId64 ", N = %" PRId64 ";\n"
             "    const int tid = threadIdx.x, wg = tid >> 7, lw = (tid >> 5) & 3, gid = (tid & 31) >> 2, tig = tid & 3;\n"
             "    /* groups of 8 block rows, block columns in order within a group */\n"
             "    const int bid = blockIdx.x, per_group = 8 * %" PRId64 ", first = bid / per_group * 8;\n"
             "    const int rows_in = %" PRId64 " - first < 8 ? %" PRId64 " - first : 8;\n"
             "    const int m0 = (first + (bid %% per_group) %% rows_in) * %d, n0 = (bid %% per_group) / rows_in * %d;\n"
             "    const unsigned char *Ag = (const unsigned char *)%s, *Bg = (const unsigned char *)%s;\n"
             "    extern __shared__ __align__(16) unsigned char kf_dyn_smem[];\n"
             "    const unsigned sm = (kf_smem_u32(kf_dyn_smem) + 1023u) & ~1023u;\n",
          gm->M, gm->N, NT, MT, MT, BM, BN, A, B);
    /* a stage: A rows then B rows, 8 chunks of 16 bytes each; a chunk past
       the operand's rows or K is zero-filled from a valid address */
    OCL_P(k, "#define KF_WG_LOAD(st, kt) do { \\\n"
             "        const unsigned sa = sm + (st) * %" PRId64 "u, sb = sa + %du; \\\n"
             "        const int kb = (kt) * 128; \\\n"
             "        for (int i = 0; i < %d; i++) { \\\n"
             "            const int c = tid + i * 256, r = c >> 3, ch = c & 7; \\\n"
             "            const int ok = m0 + r < %" PRId64 " && kb + ch * 16 < %" PRId64 "; \\\n"
             "            asm volatile(\"cp.async.cg.shared.global [%%0], [%%1], 16, %%2;\" :: \"r\"(sa + r * 128 + ((ch ^ (r & 7)) << 4)), \\\n"
             "                         \"l\"(Ag + (ok ? (size_t)(m0 + r) * %" PRId64 " + kb + ch * 16 : 0)), \"r\"(ok ? 16 : 0)); \\\n"
             "        } \\\n"
             "        for (int i = 0; i < %d; i++) { \\\n"
             "            const int c = tid + i * 256, r = c >> 3, ch = c & 7; \\\n"
             "            const int ok = n0 + r < %" PRId64 " && kb + ch * 16 < %" PRId64 "; \\\n"
             "            asm volatile(\"cp.async.cg.shared.global [%%0], [%%1], 16, %%2;\" :: \"r\"(sb + r * 128 + ((ch ^ (r & 7)) << 4)), \\\n"
             "                         \"l\"(Bg + (ok ? (size_t)(n0 + r) * %" PRId64 " + kb + ch * 16 : 0)), \"r\"(ok ? 16 : 0)); \\\n"
             "        } \\\n"
             "    } while (0)\n",
          stage_bytes, BM * 128, BM * 8 / 256, Ma, pitch, pitch, BN * 8 / 256, Nb, pitch, pitch);
    OCL_P(k, "    float acc[1][%d][4];\n"
             "#pragma unroll\n"
             "    for (int j = 0; j < %d; j++)\n"
             "#pragma unroll\n"
             "        for (int e = 0; e < 4; e++) acc[0][j][e] = 0.0f;\n"
             "    float *d = &acc[0][0][0];\n"
             "    const int nk = kf_ok ? %" PRId64 " : 0;\n"
             "#pragma unroll\n"
             "    for (int s = 0; s < %d; s++) {\n"
             "        if (s < nk) KF_WG_LOAD(s, s);\n"
             "        asm volatile(\"cp.async.commit_group;\");\n"
             "    }\n"
             "    for (int kt = 0; kt < nk; kt++) {\n"
             "        asm volatile(\"cp.async.wait_group %d;\");\n"
             "        asm volatile(\"fence.proxy.async.shared::cta;\" ::: \"memory\");   /* the copies, to the tensor cores */\n"
             "        __syncthreads();\n"
             "        /* stage (kt + %d) %% %d was last read by the wgmmas of tile kt - 2, which every\n"
             "           thread has waited for before this barrier */\n"
             "        if (kt + %d < nk) KF_WG_LOAD((kt + %d) %% %d, kt + %d);\n"
             "        asm volatile(\"cp.async.commit_group;\");\n"
             "        const unsigned st = sm + (kt %% %d) * %" PRId64 "u;\n"
             "        const unsigned long long da = kf_wg_desc(st + wg * %du), db = kf_wg_desc(st + %du);\n"
             "#pragma unroll\n"
             "        for (int i = 0; i < %d; i++) asm volatile(\"\" : \"+f\"(d[i]) :: \"memory\");\n"
             "        asm volatile(\"wgmma.fence.sync.aligned;\" ::: \"memory\");\n"
             "#pragma unroll\n"
             "        for (int s = 0; s < 4; s++) kf_wgmma_%s_n%d(d, da + 2 * s, db + 2 * s);   /* 32 bytes of K each */\n"
             "        asm volatile(\"wgmma.commit_group.sync.aligned;\" ::: \"memory\");\n"
             "        asm volatile(\"wgmma.wait_group.sync.aligned 1;\" ::: \"memory\");\n"
             "#pragma unroll\n"
             "        for (int i = 0; i < %d; i++) asm volatile(\"\" : \"+f\"(d[i]) :: \"memory\");\n"
             "    }\n"
             "    asm volatile(\"wgmma.wait_group.sync.aligned 0;\" ::: \"memory\");\n"
             "#pragma unroll\n"
             "    for (int i = 0; i < %d; i++) asm volatile(\"\" : \"+f\"(d[i]) :: \"memory\");\n"
             "    asm volatile(\"cp.async.wait_group 0;\");\n"
             "#undef KF_WG_LOAD\n",
          BN / 8, BN / 8, nk, pre, pre - 1, pre, stages, pre, pre, stages, pre, stages, stage_bytes, 64 * 128, BM * 128,
          BN / 2, tf32 ? "tf32" : "bf16", BN, BN / 2, BN / 2);
    /* accumulator d[4j + e]: row 64 wg + 16 lw + gid + 8 (e >> 1), column
       8j + 2 tig + (e & 1) (the mma.sync m16n8 layout per warp) */
    int64_t global[3] = {MT * NT * 256, 1, 1};
    int64_t local[3] = {256, 1, 1};
    if (norm) {
        ocl_emit_wgmma_norm(g, k, gi, norm, BN, bias != NULL);
        ocl_kernel_finish(k, 1, global, local);
        if (!g->failed) ocl_gen_norm_second(g, gi, norm, BN);
        g->gn_part = NULL;
        g->skip_group = gi + 1;   /* emitted here */
        g->n_norm_fused++;
        g->norm_modes |= norm;
        return;
    }
    emit_acc_store(g, k, gi, BN, bias != NULL);
    ocl_kernel_finish(k, 1, global, local);
}
