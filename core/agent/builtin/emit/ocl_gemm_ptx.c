/*
 * ocl_gemm_ptx.c — the GEMM of a GEMM group on NVIDIA tensor cores from
 * OpenCL C: NVIDIA's OpenCL compiler passes inline PTX (`asm volatile`)
 * through to ptxas, so the TF32 mma.sync.aligned.m16n8k8 of the cuda-c
 * emitter (cuda_gemm_tc.c) is reachable from an OpenCL kernel.  Offered
 * only at precision TF32, which the OpenCL space gives only to devices
 * whose plugin reports TF32 matrix units (plugins/opencl: an NVIDIA device
 * of compute capability 8.0 or later); PoCL and other vendors never see it.
 *
 * The tile scheme is cuda_gemm_tc.c's: a work-group of 256 work-items (8
 * warps as 2 x 4) computes a 128 x 128 tile of C, each warp a 64 x 32 part
 * as 4 x 4 mma tiles.  Where K is a multiple of 4 the tiles (A as [m][k],
 * B as [n][k] when it is stored (N, K)) stream into __local memory with
 * cp.async, two stages of depth 16, and are rounded to TF32 as the
 * fragments are read; otherwise K advances in steps of 32 with plain loads
 * rounded on the way in (cvt.rna.tf32.f32), rows padded by 4 floats.  Edges
 * load zeros and skip the stores.  The group's map ops run on every
 * accumulator before its single store (ocl_emit_mma_store, the same
 * epilogue as every other GEMM).  TF32 keeps 10 mantissa bits: the point is
 * kept only when the candidate passes verification.  The warp layout
 * assumes NVIDIA's 32-wide warps (sub-groups), which only NVIDIA devices
 * reach this code with.
 */
#include <config.h>

#include "builtin_ocl_internal.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

/* Loads a 128 x 32 slice of a row-major operand whose rows run along the
 * tile (A, or B stored (N, K)) into tile[row][k], rounded to TF32. */
static void load_rows_tf32(ocl_kernel *k, const char *tile, const char *ptr, const char *rows, const char *r0)
{
    OCL_P(k, "        for (int i = tid; i < 128 * 32; i += 256) {\n"
             "            const int r = i >> 5, c = i & 31, gr = %s + r, gk = k0 + c;\n"
             "            %s[r][c] = kf_tf32((gr < %s && gk < K) ? %s[(size_t)gr * K + gk] : 0.0f);\n"
             "        }\n", r0, tile, rows, ptr);
}

/* The GEMM of group gi on TF32 tensor cores (mma.sync m16n8k8 through inline
 * PTX).  Its mma steps and cp.async main loop are the CUDA TF32 kernel's
 * (ocl_emit_tf32_mma_steps, ocl_emit_tf32_cp_async_loop in cuda_gemm_tc.c;
 * kf_tf32u rounds raw FP32, as_uint takes values already rounded). */
void ocl_gen_gemm_ptx(ocl_gen *g, int gi)
{
    const kf_bt_group *grp = &g->plan->groups[gi];
    const kf_bt_gemm *gm = &grp->gemm;
    const kf_problem *p = g->p;
    const kf_node *an = &p->nodes[grp->nodes[0]];
    int anchor_v = p->n_inputs + grp->nodes[0];
    if (g->half[gm->a] || g->half[gm->b]) {
        ocl_failf(g, "group g%d: the tensor-core GEMM reads fp32 operands only", gi);
        return;
    }
    ocl_kernel kk;
    ocl_kernel *k = &kk;
    ocl_kernel_begin(k, g, gi, grp->n_nodes > 1 ? "gemm_ptx_epilogue" : "gemm_ptx");
    k->barriers = 1;
    const char *A = ocl_buf_value(k, gm->a, 0);
    const char *B = ocl_buf_value(k, gm->b, 0);
    const char *bias = gm->bias >= 0 ? ocl_buf_value(k, gm->bias, 0) : NULL;
    OCL_P(k, "    /* %s: C (%" PRId64 " x %" PRId64 ")%s = %s (%" PRId64 " x %" PRId64 ") * %s%s%s on tensor cores\n"
          "     * through inline PTX (TF32 in, FP32 accumulate; NVIDIA only): a 128x128 tile per\n"
          "     * work-group of 8 warps, 64x32 per warp */\n",
          an->out, gm->M, gm->N, gm->batch > 1 ? " per batch" : "", kf_problem_value_name(p, gm->a), gm->M, gm->K,
          kf_problem_value_name(p, gm->b), gm->trans_b ? "^T" : "", bias ? " + bias" : "");
    OCL_P(k, "    const int M = %" PRId64 ", N = %" PRId64 ", K = %" PRId64 ";\n", gm->M, gm->N, gm->K);
    OCL_P(k, "    const int tid = get_local_id(0), lane = tid & 31, warp = tid >> 5;\n"
             "    const int wm = warp >> 2, wn = warp & 3, gid = lane >> 2, tig = lane & 3;\n"
             "    const int n0 = get_group_id(0) * 128, m0 = get_group_id(1) * 128;\n");
    ocl_emit_batch_offsets(k, gm, "get_group_id(2)");
    OCL_P(k, "    __global const float *A = %s + a_off;\n"
             "    __global const float *Bm = %s + b_off;\n"
             "    float acc[4][4][4];\n"
             "#pragma unroll\n"
             "    for (int i = 0; i < 4; i++)\n"
             "#pragma unroll\n"
             "        for (int j = 0; j < 4; j++)\n"
             "#pragma unroll\n"
             "            for (int e = 0; e < 4; e++) acc[i][j][e] = 0.0f;\n", A, B);
    if (gm->K % 4 == 0) {
        /* K a multiple of 4: rows of A (and of B when it is (N, K)) start
           16-byte aligned, so the tiles stream in with cp.async, two stages
           of depth 16, while the tensor cores work on the previous one */
        OCL_P(k, "    __local float As[2][128][20] __attribute__((aligned(16)));\n"
                 "    __local float Bs[2][128][20] __attribute__((aligned(16)));\n"
                 "    const int nk = kf_ok ? (K + 15) / 16 : 0;\n");
        ocl_emit_tf32_cp_async_loop(k, gm, "barrier(CLK_LOCAL_MEM_FENCE)", "kf_tf32u", "uint");
    } else {
        OCL_P(k, "    __local float As[128][36];\n"
                 "    __local float Bs[128][36];\n"
                 "    for (int k0 = 0; k0 < (kf_ok ? K : 0); k0 += 32) {\n");
        load_rows_tf32(k, "As", "A", "M", "m0");
        if (gm->trans_b)
            load_rows_tf32(k, "Bs", "Bm", "N", "n0");
        else   /* B stored (K, N): consecutive work-items read consecutive columns */
            OCL_P(k, "        for (int i = tid; i < 128 * 32; i += 256) {\n"
                     "            const int c = i >> 7, r = i & 127, gn = n0 + r, gk = k0 + c;\n"
                     "            Bs[r][c] = kf_tf32((gn < N && gk < K) ? Bm[(size_t)gk * N + gn] : 0.0f);\n"
                     "        }\n");
        OCL_P(k, "        barrier(CLK_LOCAL_MEM_FENCE);\n");
        ocl_emit_tf32_mma_steps(k, 32, "", "as_uint", "uint");
        OCL_P(k, "        barrier(CLK_LOCAL_MEM_FENCE);\n"
                 "    }\n");
    }
    OCL_P(k, "    if (!kf_ok) return;\n"
             "#pragma unroll\n"
             "    for (int i = 0; i < 4; i++)\n"
             "#pragma unroll\n"
             "        for (int j = 0; j < 4; j++)\n"
             "#pragma unroll\n"
             "            for (int e = 0; e < 4; e++) {\n"
             "                const int m = m0 + wm * 64 + i * 16 + gid + (e >> 1) * 8;\n"
             "                const int n = n0 + wn * 32 + j * 8 + tig * 2 + (e & 1);\n"
             "                if (m >= M || n >= N) continue;\n"
             "                const size_t idx = c_off + (size_t)m * N + n;\n");
    ocl_emit_mma_store(g, k, gi, anchor_v, bias != NULL);
    int64_t global[3] = {(gm->N + 127) / 128 * 256, (gm->M + 127) / 128, gm->batch};
    int64_t local[3] = {256, 1, 1};
    ocl_kernel_finish(k, gm->batch > 1 ? 3 : 2, global, local);
}
