/*
 * cuda_gemm_sum.c — an algebraic rewrite for the opencl-c and cuda-c
 * emitters: a GEMM whose rows are summed right away is a matrix-vector product.
 *
 *   sum_j f(x[m] . B[:, j] + bias[j])  with f(h) = a*h + c (scalar
 *   multiplies, divisions, additions, subtractions, negation)
 *   = a * (x[m] . s + sum_j bias[j]) + N*c,   s[k] = sum_j B[k][j]
 *
 * so instead of 2*M*N*K FLOPs the candidate reads B once (its column sums,
 * in 64 row chunks then folded) and does a GEMV over x.  Exact in real
 * arithmetic; in floating point it is the better conditioned order: the
 * GEMM-then-sum order subtracts large partial sums (problem 14's rows
 * cancel to ~1e-3 of their terms, so TF32 and 3xBF16 GEMMs fail its
 * tolerance, and an FP32 GEMM only just passes).
 *
 * Applies where kf_bt_gemm_sum_match (builtin_rewrite.c, shared with the
 * C emitter) says so: the GEMM is not batched, every value of its group
 * but the last lives only in registers, the last is read only by a sum
 * over the last dimension that anchors the next row group, and the GEMM
 * group's other ops are scalar affine maps.  The row group's remaining ops
 * run on the sum as usual.  Written in OpenCL C like the other kernels
 * of the emitter (the cuda-c emitter's prelude maps the work-item
 * functions), so both the opencl-c and the cuda-c emitters use it.
 */
#include <config.h>

#include "builtin_ocl_internal.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHUNKS 64

int ocl_gen_gemm_sum(ocl_gen *g, int gi)
{
    double a, c;
    int ri = kf_bt_gemm_sum_match(g->plan, gi, &a, &c);
    if (ri < 0) return -1;
    const kf_bt_group *grp = &g->plan->groups[gi];
    const kf_bt_gemm *gm = &grp->gemm;
    const kf_problem *p = g->p;
    if (g->half[gm->a] || g->half[gm->b] || (gm->bias >= 0 && g->half[gm->bias])) return -1;
    const int64_t M = gm->M, N = gm->N, K = gm->K;
    const int64_t rows_per = (N + CHUNKS - 1) / CHUNKS;
    const char *part = ocl_private_scratch(g, "colsum_part", CHUNKS * K * 4);
    const char *svec = ocl_private_scratch(g, "colsum", (K + 1) * 4);
    if (!part || !svec) return ri;   /* the generation failed and says why */
    char an[48], cn[48];
    kf_bt_flit(a, an);
    kf_bt_flit((double)N * c, cn);

    /* 1: column sums of B over 64 chunks of its N rows */
    ocl_kernel kk;
    ocl_kernel *k = &kk;
    ocl_kernel_begin(k, g, gi, "colsum_part");
    const char *B = ocl_buf_value(k, gm->b, 0);
    const char *P = ocl_buf_named(k, part, 1);
    char bidx[96];   /* B(k, j): W[j][k] when B is (N, K), else B[k][j] */
    if (gm->trans_b) snprintf(bidx, sizeof bidx, "(size_t)j * %" PRId64 " + k", K);
    else snprintf(bidx, sizeof bidx, "(size_t)k * %" PRId64 " + j", N);
    OCL_P(k, "    /* sum(%s(...)) over its last dim is a GEMV with the column sums of %s (cuda_gemm_sum.c);\n"
             "     * part[c][k] = sum of B(k, j) over rows j of chunk c (%" PRId64 " rows each) */\n"
             "    const int k = get_group_id(0) * 256 + get_local_id(0), ch = get_group_id(1);\n"
             "    if (k >= %" PRId64 ") return;\n"
             "    const int j0 = ch * %" PRId64 ", j1 = j0 + %" PRId64 " < %" PRId64 " ? j0 + %" PRId64 " : %" PRId64 ";\n"
             "    float s = 0.0f;\n"
             "    for (int j = j0; j < j1; j++) s += %s[%s];\n"
             "    %s[(size_t)ch * %" PRId64 " + k] = s;\n",
          kf_op_name(p->nodes[grp->nodes[0]].op), kf_problem_value_name(p, gm->b), rows_per, K, rows_per, rows_per, N,
          rows_per, N, B, bidx, P, K);
    int64_t g1[3] = {ocl_round_up(K, 256), CHUNKS, 1}, l1[3] = {256, 1, 1};
    ocl_kernel_finish(k, 2, g1, l1);

    /* 2: fold the chunks; the last block sums the bias into s[K] */
    ocl_kernel_begin(k, g, gi, "colsum_fold");
    k->barriers = 1;
    P = ocl_buf_named(k, part, 0);
    const char *S = ocl_buf_named(k, svec, 1);
    const char *bias = gm->bias >= 0 ? ocl_buf_value(k, gm->bias, 0) : NULL;
    /* no return before a barrier: every work-group runs the tree (PoCL
     * hangs on a barrier some work-items of the group returned before) */
    OCL_P(k, "    __local float red[256];\n"
             "    const int k = get_group_id(0) * 256 + get_local_id(0);\n"
             "    const int last = get_group_id(0) == get_num_groups(0) - 1;\n"
             "    if (kf_ok && !last && k < %" PRId64 ") {\n"
             "        float s = 0.0f;\n"
             "        for (int ch = 0; ch < %d; ch++) s += %s[(size_t)ch * %" PRId64 " + k];\n"
             "        %s[k] = s;\n"
             "    }\n"
             "    float b = 0.0f;\n", K, CHUNKS, P, K, S);
    if (bias)
        OCL_P(k, "    if (kf_ok && last)\n"
                 "        for (int j = get_local_id(0); j < %" PRId64 "; j += 256) b += %s[j];\n", N, bias);
    OCL_P(k, "    red[get_local_id(0)] = b;\n"
             "    barrier(CLK_LOCAL_MEM_FENCE);\n"
             "    for (int w = 128; w > 0; w >>= 1) {\n"
             "        if (get_local_id(0) < w) red[get_local_id(0)] += red[get_local_id(0) + w];\n"
             "        barrier(CLK_LOCAL_MEM_FENCE);\n"
             "    }\n"
             "    if (kf_ok && last && get_local_id(0) == 0) %s[%" PRId64 "] = red[0];\n", S, K);
    int64_t g2[3] = {ocl_round_up(K, 256) + 256, 1, 1}, l2[3] = {256, 1, 1};
    ocl_kernel_finish(k, 1, g2, l2);

    /* 3: the GEMV, one block per row, then the row group's ops */
    const kf_bt_group *rg = &g->plan->groups[ri];
    int sum_v = p->n_inputs + rg->nodes[0];
    ocl_kernel_begin(k, g, ri, "gemv_sum");
    k->barriers = 1;
    const char *A = ocl_buf_value(k, gm->a, 0);
    S = ocl_buf_named(k, svec, 0);
    OCL_P(k, "    __local float red[256];\n"
             "    const int m = get_group_id(0);\n"
             "    float acc = 0.0f;\n"
             "    if (kf_ok)\n"
             "        for (int k = get_local_id(0); k < %" PRId64 "; k += 256) acc += %s[(size_t)m * %" PRId64 " + k] * %s[k];\n"
             "    red[get_local_id(0)] = acc;\n"
             "    barrier(CLK_LOCAL_MEM_FENCE);\n"
             "    for (int w = 128; w > 0; w >>= 1) {\n"
             "        if (get_local_id(0) < w) red[get_local_id(0)] += red[get_local_id(0) + w];\n"
             "        barrier(CLK_LOCAL_MEM_FENCE);\n"
             "    }\n"
             "    if (!kf_ok || get_local_id(0) != 0 || m >= %" PRId64 ") return;\n"
             "    /* sum_j (a*h_j + c) = a*(x.s + sum b) + N*c with a = %s, N*c = %s */\n"
             "    const size_t idx = (size_t)m;\n"
             "    const float t_%s = %s * (red[0] + %s[%" PRId64 "]) + %s;\n",
          K, A, K, S, M, an, cn, g->ident[sum_v], an, S, K, cn);
    ocl_emit_tail(k, ri, 1, "idx", "0", "    ");
    int64_t g3[3] = {M * 256, 1, 1}, l3[3] = {256, 1, 1};
    ocl_kernel_finish(k, 1, g3, l3);
    g->n_gemv_sums++;
    return ri;
}
