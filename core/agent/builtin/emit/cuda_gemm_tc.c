/*
 * cuda_gemm_tc.c — the GEMM of a GEMM group on tensor cores, for the cuda-c
 * emitter: TF32 inputs, FP32 accumulation, through inline PTX
 * (mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32; no header needed,
 * so NVRTC compiles it as is).  A block of 256 threads (8 warps as 2 x 4)
 * computes a 128 x 128 tile of C; each warp a 64 x 32 part as 4 x 4 mma
 * tiles.  K advances in steps of 32 through shared memory: A as [m][k],
 * B as [n][k] for either layout (rounded to TF32 on the way in), rows
 * padded by 4 floats.  Edges load zeros and skip the stores.  The group's
 * map ops run on every accumulator before its single store (the same
 * epilogue code as the OpenCL GEMM).  TF32 keeps 10 mantissa bits: the
 * point is kept only if the candidate passes verification.
 */
#include <config.h>

#include "builtin_ocl_internal.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

/* The k8 steps over one shared-memory tile of depth `depth`: fragments of
 * A and B read from As`stage`[..] and Bs`stage`[..] through `cvt` (TF32
 * rounding, or none when the tile holds TF32 already), 4 x 4 mma.sync per
 * step per warp. */
void ocl_emit_tf32_mma_steps(ocl_kernel *k, int depth, const char *stage, const char *cvt, const char *u32)
{
    OCL_P(k, "#pragma unroll\n"
             "        for (int kk = 0; kk < %d; kk += 8) {\n"
             "            %s a[4][4], b[4][2];\n"
             "#pragma unroll\n"
             "            for (int i = 0; i < 4; i++) {\n"
             "                const int r = wm * 64 + i * 16 + gid;\n"
             "                a[i][0] = %s(As%s[r][kk + tig]);\n"
             "                a[i][1] = %s(As%s[r + 8][kk + tig]);\n"
             "                a[i][2] = %s(As%s[r][kk + tig + 4]);\n"
             "                a[i][3] = %s(As%s[r + 8][kk + tig + 4]);\n"
             "            }\n"
             "#pragma unroll\n"
             "            for (int j = 0; j < 4; j++) {\n"
             "                const int c = wn * 32 + j * 8 + gid;\n"
             "                b[j][0] = %s(Bs%s[c][kk + tig]);\n"
             "                b[j][1] = %s(Bs%s[c][kk + tig + 4]);\n"
             "            }\n"
             "#pragma unroll\n"
             "            for (int i = 0; i < 4; i++)\n"
             "#pragma unroll\n"
             "                for (int j = 0; j < 4; j++)\n"
             "                    asm volatile(\"mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 \"\n"
             "                                 \"{%%0, %%1, %%2, %%3}, {%%4, %%5, %%6, %%7}, {%%8, %%9}, {%%0, %%1, %%2, %%3};\"\n"
             "                                 : \"+f\"(acc[i][j][0]), \"+f\"(acc[i][j][1]), \"+f\"(acc[i][j][2]), \"+f\"(acc[i][j][3])\n"
             "                                 : \"r\"(a[i][0]), \"r\"(a[i][1]), \"r\"(a[i][2]), \"r\"(a[i][3]), \"r\"(b[j][0]), \"r\"(b[j][1]));\n"
             "        }\n", depth, u32, cvt, stage, cvt, stage, cvt, stage, cvt, stage, cvt, stage, cvt, stage);
}

/* The two-stage cp.async main loop of the TF32 GEMM (A and B tiles of
 * depth 16 in As/Bs[2][128][20], kf_cp16 per 16 bytes, B (K, N) through
 * registers), in the dialect's spelling of the barrier, the TF32 rounding
 * and the 32-bit type: shared by the CUDA (here) and OpenCL inline-PTX
 * (ocl_gemm_ptx.c) kernels, which write the same instructions. */
void ocl_emit_tf32_cp_async_loop(ocl_kernel *k, const kf_bt_gemm *gm, const char *sync, const char *cvt,
                                 const char *u32)
{
    OCL_P(k, "#define KF_LOAD_STAGE(st, k0) do { \\\n"
             "        for (int c = tid; c < 512; c += 256) { \\\n"
             "            const int r = c >> 2, kq = (c & 3) * 4, gr = m0 + r, gk = (k0) + kq; \\\n"
             "            kf_cp16(&As[st][r][kq], gr < M && gk < K ? A + (size_t)gr * K + gk : A, gr < M && gk < K); \\\n"
             "        } \\\n");
    if (gm->trans_b)
        OCL_P(k, "        for (int c = tid; c < 512; c += 256) { \\\n"
                 "            const int r = c >> 2, kq = (c & 3) * 4, gn = n0 + r, gk = (k0) + kq; \\\n"
                 "            kf_cp16(&Bs[st][r][kq], gn < N && gk < K ? Bm + (size_t)gn * K + gk : Bm, gn < N && gk < K); \\\n"
                 "        } \\\n");
    else
        OCL_P(k, "        for (int c = tid; c < 128 * 16; c += 256) { \\\n"
                 "            const int kk_ = c >> 7, r = c & 127, gn = n0 + r, gk = (k0) + kk_; \\\n"
                 "            Bs[st][r][kk_] = (gn < N && gk < K) ? Bm[(size_t)gk * N + gn] : 0.0f; \\\n"
                 "        } \\\n");
    OCL_P(k, "        asm volatile(\"cp.async.commit_group;\"); \\\n"
             "    } while (0)\n"
             "    if (nk > 0) KF_LOAD_STAGE(0, 0);\n"
             "    for (int kt = 0; kt < nk; kt++) {\n"
             "        const int st = kt & 1;\n"
             "        if (kt + 1 < nk) {\n"
             "            KF_LOAD_STAGE(st ^ 1, (kt + 1) * 16);\n"
             "            asm volatile(\"cp.async.wait_group 1;\");\n"
             "        } else {\n"
             "            asm volatile(\"cp.async.wait_group 0;\");\n"
             "        }\n"
             "        %s;\n", sync);
    ocl_emit_tf32_mma_steps(k, 16, "[st]", cvt, u32);
    OCL_P(k, "        %s;\n"
             "    }\n"
             "#undef KF_LOAD_STAGE\n", sync);
}

/* The store of one accumulator element of an mma tile (inside the i/j/e
 * loops, m, n and idx set): the bias, the group's epilogue, the write, and
 * the loop's closing brace.  Shared by the TF32 and BF16 GEMMs. */
void ocl_emit_mma_store(ocl_gen *g, ocl_kernel *k, int gi, int anchor_v, int bias)
{
    const kf_bt_group *grp = &g->plan->groups[gi];
    const kf_bt_gemm *gm = &grp->gemm;
    if (bias) {
        char *b = ocl_elem(k, gm->bias, "n");
        OCL_P(k, "                const float t_%s = acc[i][j][e] + %s;\n", g->ident[anchor_v], b ? b : "0.0f");
        free(b);
    } else {
        OCL_P(k, "                const float t_%s = acc[i][j][e];\n", g->ident[anchor_v]);
    }
    if (grp->n_nodes > 1) OCL_P(k, "                /* epilogue */\n");
    ocl_emit_tail(k, gi, 1, "idx", "n", "                ");
    OCL_P(k, "            }\n");
}

void ocl_gen_gemm_tc(ocl_gen *g, int gi)
{
    const kf_bt_group *grp = &g->plan->groups[gi];
    const kf_bt_gemm *gm = &grp->gemm;
    const kf_problem *p = g->p;
    const kf_node *an = &p->nodes[grp->nodes[0]];
    int anchor_v = p->n_inputs + grp->nodes[0];
    if (ocl_gemm_wgmma_applies(g, gi)) {
        ocl_gen_gemm_wgmma(g, gi);
        return;
    }
    if ((g->tc == 2 || g->tc == 3) && gm->batch == 1) {
        ocl_gen_gemm_bf16(g, gi);
        return;
    }
    if (g->tc == 3) {   /* batched 3xBF16: the FP32 CUDA-core GEMM, as accurate */
        ocl_gen_gemm(g, gi);
        return;
    }
    if (g->half[gm->a] || g->half[gm->b]) {
        ocl_failf(g, "group g%d: the tensor-core GEMM reads fp32 operands only", gi);
        return;
    }
    ocl_kernel kk;
    ocl_kernel *k = &kk;
    ocl_kernel_begin(k, g, gi, grp->n_nodes > 1 ? "gemm_tc_epilogue" : "gemm_tc");
    k->barriers = 1;
    const char *A = ocl_buf_value(k, gm->a, 0);
    const char *B = ocl_buf_value(k, gm->b, 0);
    const char *bias = gm->bias >= 0 ? ocl_buf_value(k, gm->bias, 0) : NULL;
    OCL_P(k, "    /* %s: C (%" PRId64 " x %" PRId64 ")%s = %s (%" PRId64 " x %" PRId64 ") * %s%s%s on tensor cores\n"
          "     * (TF32 in, FP32 accumulate): a 128x128 tile per block of 8 warps, 64x32 per warp */\n",
          an->out, gm->M, gm->N, gm->batch > 1 ? " per batch" : "", kf_problem_value_name(p, gm->a), gm->M, gm->K,
          kf_problem_value_name(p, gm->b), gm->trans_b ? "^T" : "", bias ? " + bias" : "");
    OCL_P(k, "    const int M = %" PRId64 ", N = %" PRId64 ", K = %" PRId64 ";\n", gm->M, gm->N, gm->K);
    OCL_P(k, "    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;\n"
             "    const int wm = warp >> 2, wn = warp & 3, gid = lane >> 2, tig = lane & 3;\n"
             "    const int n0 = blockIdx.x * 128, m0 = blockIdx.y * 128;\n");
    if (gm->batch > 1) {
        OCL_P(k, "    const int bt = blockIdx.z;\n"
                 "    size_t a_off = 0, b_off = 0;\n"
                 "    int rem = bt, bc;\n");
        for (int d = gm->n_batch_dims - 1; d >= 0; d--)
            OCL_P(k, "    bc = rem %% %" PRId64 "; rem /= %" PRId64 "; a_off += (size_t)bc * %" PRId64
                  "; b_off += (size_t)bc * %" PRId64 ";\n", gm->batch_dims[d], gm->batch_dims[d],
                  gm->a_bstride[d], gm->b_bstride[d]);
        OCL_P(k, "    const size_t c_off = (size_t)bt * M * N;\n");
    } else {
        OCL_P(k, "    const size_t a_off = 0, b_off = 0, c_off = 0;\n");
    }
    if (gm->K % 4 == 0) {
        /* K a multiple of 4: rows of A (and of B when it is (N, K)) start
           16-byte aligned, so the tiles stream in with cp.async, two stages
           deep, while the tensor cores work on the previous one */
        OCL_P(k, "    const float *A = %s + a_off;\n"
                 "    const float *Bm = %s + b_off;\n"
                 "    __shared__ __align__(16) float As[2][128][20];\n"
                 "    __shared__ __align__(16) float Bs[2][128][20];\n"
                 "    float acc[4][4][4];\n"
                 "#pragma unroll\n"
                 "    for (int i = 0; i < 4; i++)\n"
                 "#pragma unroll\n"
                 "        for (int j = 0; j < 4; j++)\n"
                 "#pragma unroll\n"
                 "            for (int e = 0; e < 4; e++) acc[i][j][e] = 0.0f;\n"
                 "    const int nk = kf_ok ? (K + 15) / 16 : 0;\n", A, B);
        ocl_emit_tf32_cp_async_loop(k, gm, "__syncthreads()", "kf_tf32", "unsigned");
    } else {
    OCL_P(k, "    const float *A = %s + a_off;\n"
             "    const float *Bm = %s + b_off;\n"
             "    __shared__ float As[128][36];\n"
             "    __shared__ float Bs[128][36];\n"
             "    float acc[4][4][4];\n"
             "#pragma unroll\n"
             "    for (int i = 0; i < 4; i++)\n"
             "#pragma unroll\n"
             "        for (int j = 0; j < 4; j++)\n"
             "#pragma unroll\n"
             "            for (int e = 0; e < 4; e++) acc[i][j][e] = 0.0f;\n"
             "    for (int k0 = 0; k0 < (kf_ok ? K : 0); k0 += 32) {\n"
             "        for (int i = tid; i < 128 * 32; i += 256) {\n"
             "            const int r = i >> 5, c = i & 31, gr = m0 + r, gk = k0 + c;\n"
             "            float v = (gr < M && gk < K) ? A[(size_t)gr * K + gk] : 0.0f;\n"
             "            unsigned t;\n"
             "            asm(\"cvt.rna.tf32.f32 %%0, %%1;\" : \"=r\"(t) : \"f\"(v));\n"
             "            As[r][c] = __uint_as_float(t);\n"
             "        }\n", A, B);
    if (gm->trans_b)
        OCL_P(k, "        for (int i = tid; i < 128 * 32; i += 256) {\n"
                 "            const int r = i >> 5, c = i & 31, gn = n0 + r, gk = k0 + c;\n"
                 "            float v = (gn < N && gk < K) ? Bm[(size_t)gn * K + gk] : 0.0f;\n");
    else
        OCL_P(k, "        for (int i = tid; i < 128 * 32; i += 256) {\n"
                 "            const int c = i >> 7, r = i & 127, gn = n0 + r, gk = k0 + c;\n"
                 "            float v = (gn < N && gk < K) ? Bm[(size_t)gk * N + gn] : 0.0f;\n");
    OCL_P(k, "            unsigned t;\n"
             "            asm(\"cvt.rna.tf32.f32 %%0, %%1;\" : \"=r\"(t) : \"f\"(v));\n"
             "            Bs[r][c] = __uint_as_float(t);\n"
             "        }\n"
             "        __syncthreads();\n"
             );
    ocl_emit_tf32_mma_steps(k, 32, "", "__float_as_uint", "unsigned");
    OCL_P(k, "        __syncthreads();\n"
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
