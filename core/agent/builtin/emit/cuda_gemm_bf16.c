/*
 * cuda_gemm_bf16.c — the GEMM of a GEMM group on BF16 tensor cores, for the
 * cuda-c emitter (precision KF_BT_BF16): FP32 accumulation, the group's
 * epilogue on the accumulators, FP32 output.
 *
 * Why two passes.  Reading FP32 operands tile by tile costs the L2 twice
 * the bytes of BF16 ones, and on an H100 that traffic, not the tensor
 * cores, bounded the TF32 kernel (cuda_gemm_tc.c) near 100 TFLOP/s.  So
 * the operands are first converted once (round to nearest even) into
 * zero-padded BF16 scratch, A as [Mp][Kp] and B as [Np][Kp] whatever its
 * layout (a (K, N) B is transposed on the way), Mp and Np multiples of the
 * block tile and Kp of its depth: the GEMM then loads with no bounds
 * checks.
 *
 * The GEMM: 256 threads (8 warps as 2 x 4) per 128 x BN tile of C (BN 128
 * or 256: knob tc_bn), each warp 64 x BN/4 as m16n8k16 mma.sync tiles;
 * K in steps of BK (32 or 64: knob tc_bk) through a cp.async pipeline of
 * `tc_stages` stages in dynamic shared memory, rows padded by 16 bytes so
 * ldmatrix is free of bank conflicts; tiles visited in groups of 8 block rows so the B panel
 * of a group stays in L2.  Edges: only the stores check m < M, n < N.
 * Batched GEMMs keep the TF32 kernel.
 *
 * BF16 keeps 8 mantissa bits: the point is kept only if the candidate
 * passes verification.  When it does not, the search tries 3xBF16
 * (precision KF_BT_BF16X3, g->tc == 3): each operand split into a high and
 * a low BF16 part (x = hi + lo, lo = bf16(x - hi), 16 bits kept), C
 * accumulating hi*hi + hi*lo + lo*hi — three MMAs per tile and twice the
 * shared memory, about as accurate as FP32 inputs for these problems (the
 * lo*lo term is below FP32's rounding); then FP32.
 */
#include <config.h>

#include "builtin_ocl_internal.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#define BM 128

/* A kernel that writes value v (rows x K, or K x rows when `trans`) as
 * BF16 into scratch `dst` laid [rp][kp], zeros outside; with `dst_lo`, the
 * low parts (x - hi rounded to BF16) into it, laid the same. */
void ocl_gen_bf16_convert(ocl_gen *g, int gi, int v, int64_t rows, int64_t K, int trans, int64_t rp, int64_t kp,
                          const char *dst, const char *dst_lo, const char *what)
{
    ocl_kernel kk;
    ocl_kernel *k = &kk;
    ocl_kernel_begin(k, g, gi, what);
    const char *src = ocl_buf_value(k, v, 0);
    const char *out = ocl_buf_named(k, dst, 1);
    const char *out_lo = dst_lo ? ocl_buf_named(k, dst_lo, 1) : NULL;
    OCL_P(k, "    /* %s (%s) to BF16%s, [%" PRId64 "][%" PRId64 "] zero-padded%s; one 16-byte chunk of 8 per thread */\n",
          kf_problem_value_name(g->p, v), trans ? "K x N" : "rows x K", dst_lo ? " high and low parts" : "", rp, kp,
          trans ? ", transposed" : "");
    if (trans)
        OCL_P(k, "    const int r = blockIdx.x * 32 + threadIdx.x, c = blockIdx.y * 8 + threadIdx.y;\n");
    else
        OCL_P(k, "    const int c = blockIdx.x * 32 + threadIdx.x, r = blockIdx.y * 8 + threadIdx.y;\n");
    OCL_P(k, "    if (r >= %" PRId64 " || c >= %" PRId64 ") return;\n"
             "    const int R = %" PRId64 ", K = %" PRId64 ", k0 = c * 8;\n"
             "    float x[8];\n", rp, kp / 8, rows, K);
    if (!trans && K % 4 == 0)
        OCL_P(k, "    if (r < R && k0 + 8 <= K) {\n"
                 "        const uint4 *q = (const uint4 *)(%s + (size_t)r * K + k0);\n"
                 "        const uint4 u = q[0], w = q[1];\n"
                 "        x[0] = __uint_as_float(u.x); x[1] = __uint_as_float(u.y);\n"
                 "        x[2] = __uint_as_float(u.z); x[3] = __uint_as_float(u.w);\n"
                 "        x[4] = __uint_as_float(w.x); x[5] = __uint_as_float(w.y);\n"
                 "        x[6] = __uint_as_float(w.z); x[7] = __uint_as_float(w.w);\n"
                 "    } else\n", src);
    OCL_P(k, "#pragma unroll\n"
             "    for (int e = 0; e < 8; e++)\n"
             "        x[e] = r < R && k0 + e < K ? %s[%s] : 0.0f;\n", src,
          trans ? "(size_t)(k0 + e) * R + r" : "(size_t)r * K + k0 + e");
    OCL_P(k, "    uint4 o;\n"
             "    o.x = kf_bf16x2(x[0], x[1]); o.y = kf_bf16x2(x[2], x[3]);\n"
             "    o.z = kf_bf16x2(x[4], x[5]); o.w = kf_bf16x2(x[6], x[7]);\n"
             "    *(uint4 *)((unsigned short *)%s + (size_t)r * %" PRId64 " + k0) = o;\n", out, kp);
    if (out_lo)
        OCL_P(k, "    /* the low parts: x minus its BF16 value (a bf16 is the top half of a float) */\n"
                 "    uint4 l;\n"
                 "    l.x = kf_bf16x2(x[0] - __uint_as_float(o.x << 16), x[1] - __uint_as_float(o.x & 0xffff0000u));\n"
                 "    l.y = kf_bf16x2(x[2] - __uint_as_float(o.y << 16), x[3] - __uint_as_float(o.y & 0xffff0000u));\n"
                 "    l.z = kf_bf16x2(x[4] - __uint_as_float(o.z << 16), x[5] - __uint_as_float(o.z & 0xffff0000u));\n"
                 "    l.w = kf_bf16x2(x[6] - __uint_as_float(o.w << 16), x[7] - __uint_as_float(o.w & 0xffff0000u));\n"
                 "    *(uint4 *)((unsigned short *)%s + (size_t)r * %" PRId64 " + k0) = l;\n", out_lo, kp);
    int64_t global[3], local[3] = {32, 8, 1};
    if (trans) { global[0] = ocl_round_up(rp, 32); global[1] = ocl_round_up(kp / 8, 8); }
    else { global[0] = ocl_round_up(kp / 8, 32); global[1] = ocl_round_up(rp, 8); }
    global[2] = 1;
    ocl_kernel_finish(k, 2, global, local);
}

void ocl_gen_gemm_bf16(ocl_gen *g, int gi)
{
    const kf_bt_group *grp = &g->plan->groups[gi];
    const kf_bt_gemm *gm = &grp->gemm;
    const kf_problem *p = g->p;
    const kf_node *an = &p->nodes[grp->nodes[0]];
    int anchor_v = p->n_inputs + grp->nodes[0];
    const int split = g->tc == 3;   /* 3xBF16: high and low parts */
    /* one block row (M <= 128): every element of B is read by one block
       only, so converting B first would only add its traffic twice; the
       kernel reads B's FP32 rows itself and converts them on the way into
       shared memory, two stages through registers */
    const int onload = !split && gm->M <= BM && gm->trans_b && gm->K % 4 == 0;
    /* a TMA point's 128 x 256 tile is the wgmma kernel's (the sm_90 default,
       cuda_from_ocl.c); this kernel, which a one-block-row GEMM gets instead,
       keeps 128 there: on the H100 problems 56/59 ran 2.0 ms at 256 against
       1.7 ms at 128 (half the blocks for the SMs), 68 791 against 476 us */
    const int BN = g->pt->knob[KU_TC_BN] == 256 && !(onload && g->pt->knob[KU_TC_WGMMA] == 2) ? 256 : 128;
    int stages = g->pt->knob[KU_TC_STAGES] >= 2 && g->pt->knob[KU_TC_STAGES] <= 4 ? g->pt->knob[KU_TC_STAGES] : 3;
    const int WN = BN / 32;   /* n8 tiles per warp */
    const int BK = g->pt->knob[KU_TC_BK] == 64 ? 64 : 32;
    const int ROW_H = BK + 8; /* bf16 elements per shared-memory row (80 or 144 bytes) */
    const int CPR = BK / 8, CPR_SHIFT = BK == 64 ? 3 : 2;   /* 16-byte chunks per row */
    if (onload) stages = 2;
    if (g->half[gm->a] || g->half[gm->b]) {
        ocl_failf(g, "group g%d: the tensor-core GEMM reads fp32 operands only", gi);
        return;
    }
    const int64_t Mp = ocl_round_up(gm->M, BM), Np = ocl_round_up(gm->N, BN), Kp = ocl_round_up(gm->K, BK);
    /* a stage: A then B tiles (then their low parts when split); fewer
       stages when the device's opt-in shared memory (227 KiB on an H100,
       163 on an A100) cannot hold them */
    const int64_t stage_bytes = (int64_t)(BM + BN) * ROW_H * 2 * (split ? 2 : 1);
    const int64_t smem_max = g->dev && g->dev->local_mem_per_group_optin > 0 ? g->dev->local_mem_per_group_optin : 227 << 10;
    while (stages > 2 && stage_bytes * stages > smem_max) stages--;
    const char *abf = ocl_private_scratch(g, "a_bf16", Mp * Kp * 2);
    const char *bbf = onload ? "" : ocl_private_scratch(g, "b_bf16", Np * Kp * 2);
    const char *alo = split ? ocl_private_scratch(g, "a_bf16_lo", Mp * Kp * 2) : NULL;
    const char *blo = split ? ocl_private_scratch(g, "b_bf16_lo", Np * Kp * 2) : NULL;
    if (!abf || !bbf || (split && (!alo || !blo))) return;
    ocl_gen_bf16_convert(g, gi, gm->a, gm->M, gm->K, 0, Mp, Kp, abf, alo, "a_to_bf16");
    if (!onload) ocl_gen_bf16_convert(g, gi, gm->b, gm->N, gm->K, !gm->trans_b, Np, Kp, bbf, blo, "b_to_bf16");
    if (g->failed) return;

    ocl_kernel kk;
    ocl_kernel *k = &kk;
    ocl_kernel_begin(k, g, gi, split ? (grp->n_nodes > 1 ? "gemm_3xbf16_epilogue" : "gemm_3xbf16")
                                      : grp->n_nodes > 1 ? "gemm_bf16_epilogue" : "gemm_bf16");
    k->barriers = 1;
    k->dyn_shared = stage_bytes * stages;
    const char *A = ocl_buf_named(k, abf, 0);
    const char *B = onload ? ocl_buf_value(k, gm->b, 0) : ocl_buf_named(k, bbf, 0);
    const char *AL = split ? ocl_buf_named(k, alo, 0) : NULL;
    const char *BL = split ? ocl_buf_named(k, blo, 0) : NULL;
    const char *bias = gm->bias >= 0 ? ocl_buf_value(k, gm->bias, 0) : NULL;
    const int64_t MT = Mp / BM, NT = Np / BN;
    OCL_P(k, "    /* %s: C (%" PRId64 " x %" PRId64 ") = %s (%" PRId64 " x %" PRId64 ") * %s%s%s on tensor cores\n"
             "     * (%s in, FP32 accumulate): %d x %d x %d tiles, 8 warps of 64 x %d, %d-stage %s */\n",
          an->out, gm->M, gm->N, kf_problem_value_name(p, gm->a), gm->M, gm->K, kf_problem_value_name(p, gm->b),
          gm->trans_b ? "^T" : "", bias ? " + bias" : "", split ? "3xBF16: hi*hi + hi*lo + lo*hi" : "BF16", BM, BN, BK,
          BN / 4, stages, onload ? "pipeline, B read as FP32 and converted on the way" : "cp.async");
    OCL_P(k, "    const int M = %" PRId64 ", N = %" PRId64 ";\n"
             "    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;\n"
             "    const int wm = warp >> 2, wn = warp & 3, gid = lane >> 2, tig = lane & 3;\n"
             "    /* groups of 8 block rows, block columns in order within a group */\n"
             "    const int bid = blockIdx.x, per_group = 8 * %" PRId64 ", first = bid / per_group * 8;\n"
             "    const int rows_in = %" PRId64 " - first < 8 ? %" PRId64 " - first : 8;\n"
             "    const int m0 = (first + (bid %% per_group) %% rows_in) * %d, n0 = (bid %% per_group) / rows_in * %d;\n",
          gm->M, gm->N, NT, MT, MT, BM, BN);
    const int64_t half = (int64_t)(BM + BN) * ROW_H * 2;   /* the low parts' offset in a stage */
    OCL_P(k, "    const unsigned short *Ag = (const unsigned short *)%s + (size_t)m0 * %" PRId64 ";\n", A, Kp);
    if (onload) OCL_P(k, "    const float *Bw = %s + (size_t)n0 * %" PRId64 ";\n", B, gm->K);
    else OCL_P(k, "    const unsigned short *Bg = (const unsigned short *)%s + (size_t)n0 * %" PRId64 ";\n", B, Kp);
    if (split)
        OCL_P(k, "    const unsigned short *Agl = (const unsigned short *)%s + (size_t)m0 * %" PRId64 ";\n"
                 "    const unsigned short *Bgl = (const unsigned short *)%s + (size_t)n0 * %" PRId64 ";\n",
              AL, Kp, BL, Kp);
    OCL_P(k, "    extern __shared__ __align__(16) unsigned char kf_dyn_smem[];\n"
             "    const unsigned sm = kf_smem_u32(kf_dyn_smem);\n"
             "    /* stage s: A rows at sm + s * %" PRId64 ", then B rows%s; %d bytes per row */\n",
          stage_bytes, split ? ", then the low parts of both" : "", ROW_H * 2);
    OCL_P(k, "    float acc[4][%d][4];\n"
             "#pragma unroll\n"
             "    for (int i = 0; i < 4; i++)\n"
             "#pragma unroll\n"
             "        for (int j = 0; j < %d; j++)\n"
             "#pragma unroll\n"
             "            for (int e = 0; e < 4; e++) acc[i][j][e] = 0.0f;\n"
             "    const int nk = kf_ok ? %" PRId64 " : 0;\n", WN, WN, Kp / BK);
    if (onload) {
        const int NB = BN * BK / 4 / 256, QR = BK / 4;   /* float4s per thread; per row */
        OCL_P(k, "    uint4 breg[%d];\n"
                 "#define KF_LOAD_A(st, k0) do { \\\n"
                 "        const unsigned sa = sm + (st) * %" PRId64 "; \\\n"
                 "        for (int c = tid; c < %d; c += 256) \\\n"
                 "            kf_cp16_u32(sa + (c >> %d) * %d + (c & %d) * 16, Ag + (size_t)(c >> %d) * %" PRId64 " + (k0) + (c & %d) * 8); \\\n"
                 "    } while (0)\n"
                 "#define KF_LOAD_B(k0) do { \\\n"
                 "        for (int i = 0; i < %d; i++) { \\\n"
                 "            const int c = tid + i * 256, r = c / %d, gk = (k0) + (c %% %d) * 4; \\\n"
                 "            if (n0 + r < N && gk < %" PRId64 ") breg[i] = *(const uint4 *)(Bw + (size_t)r * %" PRId64 " + gk); \\\n"
                 "            else breg[i].x = breg[i].y = breg[i].z = breg[i].w = 0u; \\\n"
                 "        } \\\n"
                 "    } while (0)\n"
                 "#define KF_STORE_B(st) do { \\\n"
                 "        for (int i = 0; i < %d; i++) { \\\n"
                 "            const int c = tid + i * 256, r = c / %d, q = c %% %d; \\\n"
                 "            uint2 v; \\\n"
                 "            v.x = kf_bf16x2(__uint_as_float(breg[i].x), __uint_as_float(breg[i].y)); \\\n"
                 "            v.y = kf_bf16x2(__uint_as_float(breg[i].z), __uint_as_float(breg[i].w)); \\\n"
                 "            *(uint2 *)(kf_dyn_smem + (st) * %" PRId64 " + %d + r * %d + q * 8) = v; \\\n"
                 "        } \\\n"
                 "    } while (0)\n",
              NB, stage_bytes, BM * CPR, CPR_SHIFT, ROW_H * 2, CPR - 1, CPR_SHIFT, Kp, CPR - 1,
              NB, QR, QR, gm->K, gm->K,
              NB, QR, QR, stage_bytes, BM * ROW_H * 2, ROW_H * 2);
        OCL_P(k, "    if (nk > 0) {\n"
                 "        KF_LOAD_B(0);\n"
                 "        KF_LOAD_A(0, 0);\n"
                 "        asm volatile(\"cp.async.commit_group;\");\n"
                 "        KF_STORE_B(0);\n"
                 "        asm volatile(\"cp.async.wait_group 0;\");\n"
                 "    }\n"
                 "    __syncthreads();\n"
                 "    for (int kt = 0; kt < nk; kt++) {\n"
                 "        const int st = kt & 1;\n"
                 "        if (kt + 1 < nk) {\n"
                 "            KF_LOAD_B((kt + 1) * %d);   /* in flight while the tensor cores work */\n"
                 "            KF_LOAD_A(st ^ 1, (kt + 1) * %d);\n"
                 "        }\n"
                 "        asm volatile(\"cp.async.commit_group;\");\n"
                 "        const unsigned sa = sm + st * %" PRId64 ", sb = sa + %d;\n",
              BK, BK, stage_bytes, BM * ROW_H * 2);
    } else {
    /* one stage: A 128 x CPR chunks, B BN x CPR chunks of 16 bytes (and
       the same again for the low parts) */
    OCL_P(k, "#define KF_LOAD_STAGE(st, k0) do { \\\n"
             "        const unsigned sa = sm + (st) * %" PRId64 ", sb = sa + %d; \\\n"
             "        for (int c = tid; c < %d; c += 256) { \\\n"
             "            const unsigned o = (c >> %d) * %d + (c & %d) * 16; const size_t q = (size_t)(c >> %d) * %" PRId64 " + (k0) + (c & %d) * 8; \\\n"
             "            kf_cp16_u32(sa + o, Ag + q);%s \\\n"
             "        } \\\n"
             "        for (int c = tid; c < %d; c += 256) { \\\n"
             "            const unsigned o = (c >> %d) * %d + (c & %d) * 16; const size_t q = (size_t)(c >> %d) * %" PRId64 " + (k0) + (c & %d) * 8; \\\n"
             "            kf_cp16_u32(sb + o, Bg + q);%s \\\n"
             "        } \\\n"
             "    } while (0)\n",
          stage_bytes, BM * ROW_H * 2,
          BM * CPR, CPR_SHIFT, ROW_H * 2, CPR - 1, CPR_SHIFT, Kp, CPR - 1,
          split ? " kf_cp16_u32(sa + KF_LO + o, Agl + q);" : "",
          BN * CPR, CPR_SHIFT, ROW_H * 2, CPR - 1, CPR_SHIFT, Kp, CPR - 1,
          split ? " kf_cp16_u32(sb + KF_LO + o, Bgl + q);" : "");
    if (split) OCL_P(k, "#define KF_LO %" PRId64 "\n", half);
    OCL_P(k, "#pragma unroll\n"
             "    for (int s = 0; s < %d; s++) {\n"
             "        if (s < nk) KF_LOAD_STAGE(s, s * %d);\n"
             "        asm volatile(\"cp.async.commit_group;\");\n"
             "    }\n"
             "    for (int kt = 0; kt < nk; kt++) {\n"
             "        asm volatile(\"cp.async.wait_group %d;\");\n"
             "        __syncthreads();\n"
             "        {\n"
             "            const int nt = kt + %d;\n"
             "            if (nt < nk) KF_LOAD_STAGE(nt %% %d, nt * %d);\n"
             "            asm volatile(\"cp.async.commit_group;\");\n"
             "        }\n"
             "        const unsigned sa = sm + (kt %% %d) * %" PRId64 ", sb = sa + %d;\n",
          stages - 1, BK, stages - 2, stages - 1, stages, BK, stages, stage_bytes, BM * ROW_H * 2);
    }
    /* fragments of one k16 step: A (4 m16 tiles) and B (WN n8 tiles) from
       shared memory at offset `lo` (0, or KF_LO for the low parts) */
    OCL_P(k, "#define KF_FRAGS(a, b, lo) do { \\\n"
             "            for (int i = 0; i < 4; i++) \\\n"
             "                kf_ldsm_x4(a[i], sa + (lo) + (wm * 64 + i * 16 + (lane & 15)) * %d + (kk + (lane >> 4) * 8) * 2); \\\n"
             "            for (int j = 0; j < %d; j += 2) { \\\n"
             "                unsigned t[4]; \\\n"
             "                kf_ldsm_x4(t, sb + (lo) + (wn * %d + j * 8 + (lane >> 4) * 8 + (lane & 7)) * %d \\\n"
             "                                 + (kk + ((lane >> 3) & 1) * 8) * 2); \\\n"
             "                b[j][0] = t[0]; b[j][1] = t[1]; b[j + 1][0] = t[2]; b[j + 1][1] = t[3]; \\\n"
             "            } \\\n"
             "        } while (0)\n",
          ROW_H * 2, WN, WN * 8, ROW_H * 2);
    OCL_P(k, "#pragma unroll\n"
             "        for (int kk = 0; kk < %d; kk += 16) {\n"
             "            unsigned a[4][4], b[%d][2];\n"
             "            KF_FRAGS(a, b, 0);\n", BK, WN);
    if (split)
        OCL_P(k, "            unsigned al[4][4], bl[%d][2];\n"
                 "            KF_FRAGS(al, bl, KF_LO);\n"
                 "#pragma unroll\n"
                 "            for (int i = 0; i < 4; i++)\n"
                 "#pragma unroll\n"
                 "                for (int j = 0; j < %d; j++) {\n"
                 "                    kf_mma_bf16(acc[i][j], al[i], b[j]);\n"
                 "                    kf_mma_bf16(acc[i][j], a[i], bl[j]);\n"
                 "                }\n", WN, WN);
    OCL_P(k, "#pragma unroll\n"
             "            for (int i = 0; i < 4; i++)\n"
             "#pragma unroll\n"
             "                for (int j = 0; j < %d; j++) kf_mma_bf16(acc[i][j], a[i], b[j]);\n"
             "        }\n"
             "%s"
             "    }\n"
             "    asm volatile(\"cp.async.wait_group 0;\");\n"
             "#undef %s\n"
             "#undef KF_FRAGS\n%s",
          WN,
          onload ? "        if (kt + 1 < nk) KF_STORE_B(st ^ 1);   /* the other stage: free since the last barrier */\n"
                   "        asm volatile(\"cp.async.wait_group 0;\");\n"
                   "        __syncthreads();\n" : "",
          onload ? "KF_LOAD_A\n#undef KF_LOAD_B\n#undef KF_STORE_B" : "KF_LOAD_STAGE",
          split ? "#undef KF_LO\n" : "");
    OCL_P(k, "    if (!kf_ok) return;\n"
             "#pragma unroll\n"
             "    for (int i = 0; i < 4; i++)\n"
             "#pragma unroll\n"
             "        for (int j = 0; j < %d; j++)\n"
             "#pragma unroll\n"
             "            for (int e = 0; e < 4; e++) {\n"
             "                const int m = m0 + wm * 64 + i * 16 + gid + (e >> 1) * 8;\n"
             "                const int n = n0 + wn * %d + j * 8 + tig * 2 + (e & 1);\n"
             "                if (m >= M || n >= N) continue;\n"
             "                const size_t idx = (size_t)m * N + n;\n", WN, WN * 8);
    ocl_emit_mma_store(g, k, gi, anchor_v, bias != NULL);
    int64_t global[3] = {MT * NT * 256, 1, 1};
    int64_t local[3] = {256, 1, 1};
    ocl_kernel_finish(k, 1, global, local);
}
