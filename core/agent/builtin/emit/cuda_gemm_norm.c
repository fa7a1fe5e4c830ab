/*
 * cuda_gemm_norm.c — a GroupNorm or a training-mode BatchNorm that follows
 * a wgmma GEMM (cuda_gemm_wgmma.c), fused into the GEMM's epilogue, for the
 * cuda-c emitter at fusion ROWS (the point's rows-fused; at fusion EPILOGUE
 * the norm keeps its own kernels, builtin_ocl_reduce.c, so the search can
 * compare the two).  The GEMM group's values (bias, the elementwise ops
 * before the norm) are computed on the accumulators first, in place; then,
 * by the norm and its shape (2-D input (M, N), channel = column):
 *
 *  - GroupNorm, groups of G channels with G % 8 == 0 and the block tile BN
 *    a multiple of G (a tile holds whole groups): finished in the tile
 *    (row panel).  The 4 threads of a quad hold a row's BN columns, so a
 *    group's mean and then its biased variance (two passes over registers)
 *    are two shuffles each; the affine terms and the norm group's
 *    elementwise tail follow and only the norm group's stores are written
 *    (C itself only when something else reads it).  One kernel.
 *  - GroupNorm with G a multiple of BN (a group spans G / BN tiles): a
 *    two-pass split.  The epilogue writes C and, per (row, tile), the mean
 *    and M2 (sum of squared deviations from that mean) of the tile's BN
 *    columns into a scratch of M x N/BN pairs; a second kernel, one
 *    work-group per (row, group), combines the G / BN partials with Chan's
 *    formula (equal counts: mean of the means, M2 = sum of M2_i + BN * sum
 *    of (mean_i - mean)^2), then normalises the group's elements of C, the
 *    affine terms and the tail, writing the output: C is read once.
 *  - BatchNorm in training mode (batch statistics per column): the
 *    epilogue writes C and, per (128-row tile, column), the tile's mean and
 *    M2 over its valid rows (the warp's 16 rows by shuffles, the 8 warps
 *    through shared memory, two passes); a combine kernel (one work-item
 *    per column) merges the M / 128 partials with Chan's formula into the
 *    mean and 1/sqrt(var + eps) that the normalise kernel of
 *    builtin_ocl_reduce.c (ocl_gen_batch_norm_apply) reads.
 *
 * Sums of squares (E[x^2] - mean^2) are never formed: the partials are
 * centred, so a large mean does not cancel the variance.  Other shapes,
 * group sizes, the mma.sync and FP32 GEMMs keep the separate kernels.
 */
#include <config.h>

#include "builtin_ocl_internal.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#define BM 128

/* The norm node after GEMM group gi, or NULL when the next group is not a
 * GroupNorm/training BatchNorm over the GEMM's 2-D result. */
static const kf_node *norm_after(const ocl_gen *g, int gi)
{
    const kf_bt_plan *pl = g->plan;
    if (gi + 1 >= pl->n_groups) return NULL;
    const kf_bt_group *grp = &pl->groups[gi], *ng = &pl->groups[gi + 1];
    const kf_node *an = &g->p->nodes[ng->nodes[0]];
    if (an->n_in < 1 || an->in[0].is_scalar || an->in[0].value != grp->last_value) return NULL;
    const kf_shape *xs = &g->r->shapes[grp->last_value];
    if (grp->gemm.batch != 1 || xs->rank != 2 || xs->d[0] != grp->gemm.M || xs->d[1] != grp->gemm.N) return NULL;
    if (an->op == KF_OP_GROUP_NORM && ng->kind == KF_BT_ROW) return an;
    if (an->op == KF_OP_BATCH_NORM && an->training) return an;
    return NULL;
}

int ocl_gemm_norm_mode(const ocl_gen *g, int gi, int bn)
{
    if (!g->tc || g->pt->baseline || g->plan->fusion != KF_BT_FUSE_ROWS || !ocl_gemm_wgmma_applies(g, gi))
        return OCL_NORM_NONE;
    const kf_node *an = norm_after(g, gi);
    if (!an) return OCL_NORM_NONE;
    if (an->op == KF_OP_BATCH_NORM) return OCL_NORM_BN_SPLIT;
    const int64_t N = g->plan->groups[gi].gemm.N;
    if (an->groups <= 0 || N % an->groups) return OCL_NORM_NONE;
    const int64_t G = N / an->groups;
    if (G % 8 == 0 && bn % G == 0) return OCL_NORM_GN_PANEL;
    if (G % bn == 0) return OCL_NORM_GN_SPLIT;
    return OCL_NORM_NONE;
}

/* The affine term of operand i of the norm at channel expression `ch`, or
 * NULL when absent. */
static char *affine(ocl_kernel *k, const kf_node *an, int i, const char *ch)
{
    if (an->n_in <= i || an->in[i].is_scalar) return NULL;
    return ocl_elem(k, an->in[i].value, ch);
}

/* y = (x - mean) * inv already in `y`; the affine terms, the norm's
 * register and the norm group's tail with its stores at idx. */
static void emit_norm_out(ocl_kernel *k, int ni, const kf_node *an, const char *ch, const char *ind)
{
    ocl_gen *g = k->g;
    char *wt = affine(k, an, 1, ch), *bs = affine(k, an, 2, ch);
    if (wt) OCL_P(k, "%sy *= %s;\n", ind, wt);
    if (bs) OCL_P(k, "%sy += %s;\n", ind, bs);
    free(wt);
    free(bs);
    OCL_P(k, "%sconst float t_%s = y;\n", ind, g->ident[g->p->n_inputs + g->plan->groups[ni].nodes[0]]);
    ocl_emit_tail(k, ni, 1, "idx", ch, ind);
}

/* Does a tail node of group ni read a value computed in group gi (then
 * that value must be in memory)? */
static int tail_reads_group(const ocl_gen *g, int ni, int gi)
{
    const kf_bt_group *ng = &g->plan->groups[ni];
    for (int n = 1; n < ng->n_nodes; n++) {
        const kf_node *nd = &g->p->nodes[ng->nodes[n]];
        for (int i = 0; i < nd->n_in; i++)
            if (!nd->in[i].is_scalar && g->plan->group_of[nd->in[i].value] == gi) return 1;
    }
    return 0;
}

int ocl_norm_keeps_in_registers(const ocl_gen *g, int v)
{
    const int gi = g->plan->group_of[v];
    if (gi < 0 || g->plan->groups[gi].kind != KF_BT_GEMM || g->plan->groups[gi].last_value != v) return 0;
    if (g->plan->store[v].kind != KF_BT_ST_LOCAL) return 0;
    return ocl_gemm_norm_mode(g, gi, g->pt->knob[KU_TC_BN] == 256 ? 256 : 128) == OCL_NORM_GN_PANEL &&
           !tail_reads_group(g, gi + 1, gi);
}

#define EACH_ACC(bn)                                                                                   \
    "#pragma unroll\n    for (int j = 0; j < " #bn "; j++)\n#pragma unroll\n        for (int e = 0; e < 4; e++) {\n"

void ocl_emit_wgmma_norm(ocl_gen *g, ocl_kernel *k, int gi, int mode, int BN, int bias)
{
    const kf_problem *p = g->p;
    const kf_bt_group *grp = &g->plan->groups[gi];
    const kf_bt_gemm *gm = &grp->gemm;
    const int ni = gi + 1;
    const kf_node *an = norm_after(g, gi);
    const int anchor_v = p->n_inputs + grp->nodes[0], last = grp->last_value;
    char eps[48];
    kf_bt_flit(an->eps, eps);
    const int JN = BN / 8;
    /* 1. the GEMM group's values on the accumulators (C stored where it has
       a buffer: not in the panel when only the norm reads it,
       ocl_norm_keeps_in_registers) */
    OCL_P(k, "    if (!kf_ok) return;\n"
             "    /* the GEMM group's values, in place of the accumulators (elements past M or N keep 0) */\n"
             "#pragma unroll\n"
             "    for (int j = 0; j < %d; j++)\n"
             "#pragma unroll\n"
             "        for (int e = 0; e < 4; e++) {\n"
             "            const int m = m0 + wg * 64 + lw * 16 + gid + (e >> 1) * 8;\n"
             "            const int n = n0 + j * 8 + tig * 2 + (e & 1);\n"
             "            if (m >= M || n >= N) continue;\n"
             "            const size_t idx = (size_t)m * N + n;\n", JN);
    if (bias) {
        char *b = ocl_elem(k, gm->bias, "n");
        OCL_P(k, "            const float t_%s = acc[0][j][e] + %s;\n", g->ident[anchor_v], b ? b : "0.0f");
        free(b);
    } else {
        OCL_P(k, "            const float t_%s = acc[0][j][e];\n", g->ident[anchor_v]);
    }
    ocl_emit_tail(k, gi, 1, "idx", "n", "            ");
    OCL_P(k, "            acc[0][j][e] = t_%s;\n        }\n", g->ident[last]);
    const int64_t M = gm->M, N = gm->N;
    if (mode == OCL_NORM_GN_PANEL || mode == OCL_NORM_GN_SPLIT) {
        const int64_t G = N / an->groups;
        const int gw = mode == OCL_NORM_GN_PANEL ? (int)G : BN;   /* columns reduced per quad */
        const int JG = gw / 8;
        OCL_P(k, "    /* %s: a quad's 4 threads hold the %d columns of each of its rows (2 per j); per row h\n"
                 "       and group of %d columns, the mean then the sum of squared deviations, shuffles within the quad */\n",
              mode == OCL_NORM_GN_PANEL ? "GroupNorm finished in the tile (its groups lie inside it)"
                                        : "GroupNorm's per-tile partial statistics (mean, M2 of BN columns)",
              BN, gw);
        OCL_P(k, "#pragma unroll\n"
                 "    for (int h = 0; h < 2; h++)\n"
                 "#pragma unroll\n"
                 "        for (int q = 0; q < %d; q++) {\n"
                 "            float s = 0.0f;\n"
                 "#pragma unroll\n"
                 "            for (int j = q * %d; j < (q + 1) * %d; j++) s += acc[0][j][2 * h] + acc[0][j][2 * h + 1];\n"
                 "            s += __shfl_xor_sync(0xffffffffu, s, 1);\n"
                 "            s += __shfl_xor_sync(0xffffffffu, s, 2);\n"
                 "            const float mean = s / %d.0f;\n"
                 "            float v = 0.0f;\n"
                 "#pragma unroll\n"
                 "            for (int j = q * %d; j < (q + 1) * %d; j++) {\n"
                 "                const float d0 = acc[0][j][2 * h] - mean, d1 = acc[0][j][2 * h + 1] - mean;\n"
                 "                v = fmaf(d0, d0, v);\n"
                 "                v = fmaf(d1, d1, v);\n"
                 "            }\n"
                 "            v += __shfl_xor_sync(0xffffffffu, v, 1);\n"
                 "            v += __shfl_xor_sync(0xffffffffu, v, 2);\n",
              BN / gw, JG, JG, gw, JG, JG);
        if (mode == OCL_NORM_GN_PANEL) {
            OCL_P(k, "            const float inv = rsqrtf(v / %d.0f + %s);   /* biased variance */\n"
                     "#pragma unroll\n"
                     "            for (int j = q * %d; j < (q + 1) * %d; j++) {\n"
                     "                acc[0][j][2 * h] = (acc[0][j][2 * h] - mean) * inv;\n"
                     "                acc[0][j][2 * h + 1] = (acc[0][j][2 * h + 1] - mean) * inv;\n"
                     "            }\n"
                     "        }\n", gw, eps, JG, JG);
            OCL_P(k, "    /* the affine terms and the norm group's tail */\n" EACH_ACC(%d), JN);
            OCL_P(k, "            const int m = m0 + wg * 64 + lw * 16 + gid + (e >> 1) * 8;\n"
                     "            const int n = n0 + j * 8 + tig * 2 + (e & 1);\n"
                     "            if (m >= M || n >= N) continue;\n"
                     "            const size_t idx = (size_t)m * N + n;\n"
                     "            float y = acc[0][j][e];\n");
            emit_norm_out(k, ni, an, "n", "            ");
            OCL_P(k, "        }\n");
            return;
        }
        const char *pb = ocl_buf_named(k, g->gn_part, 1);
        OCL_P(k, "            const int m = m0 + wg * 64 + lw * 16 + gid + h * 8;\n"
                 "            if (tig == 0 && m < M) {\n"
                 "                %s[(size_t)m * %" PRId64 " + n0 / %d] = mean;\n"
                 "                %s[%" PRId64 " + (size_t)m * %" PRId64 " + n0 / %d] = v;\n"
                 "            }\n"
                 "        }\n", pb, N / BN, BN, pb, M * (N / BN), N / BN, BN);
        return;
    }
    /* BatchNorm: per (tile, column) mean and M2 over the tile's valid rows */
    const char *pb = ocl_buf_named(k, g->gn_part, 1);
    OCL_P(k, "    /* BatchNorm's per-tile partial statistics of each column: a warp's 16 rows by shuffles over\n"
             "       the 8 quads (lanes 4 apart), the 8 warps through shared memory; mean first, then M2 */\n"
             "    __syncthreads();   /* every warpgroup's wgmmas have read the stages: reuse them */\n"
             "    float *red = (float *)kf_dyn_smem, *tmean = red + 8 * %d;\n"
             "    const int w8 = wg * 4 + lw, rows = M - m0 < %d ? M - m0 : %d;\n"
             "    for (int pass = 0; pass < 2; pass++) {\n"
             "#pragma unroll\n"
             "        for (int j = 0; j < %d; j++)\n"
             "#pragma unroll\n"
             "            for (int c = 0; c < 2; c++) {\n"
             "                const int col = j * 8 + tig * 2 + c, r0 = wg * 64 + lw * 16 + gid;\n"
             "                float s;\n"
             "                if (pass == 0) {\n"
             "                    s = acc[0][j][c] + acc[0][j][2 + c];   /* rows past M hold 0 */\n"
             "                } else {\n"
             "                    const float mu = tmean[col], d0 = acc[0][j][c] - mu, d1 = acc[0][j][2 + c] - mu;\n"
             "                    s = (r0 < rows ? d0 * d0 : 0.0f) + (r0 + 8 < rows ? d1 * d1 : 0.0f);\n"
             "                }\n"
             "                s += __shfl_xor_sync(0xffffffffu, s, 4);\n"
             "                s += __shfl_xor_sync(0xffffffffu, s, 8);\n"
             "                s += __shfl_xor_sync(0xffffffffu, s, 16);\n"
             "                if (gid == 0) red[w8 * %d + col] = s;\n"
             "            }\n"
             "        __syncthreads();\n"
             "        if (tid < %d) {\n"
             "            float a = 0.0f;\n"
             "#pragma unroll\n"
             "            for (int w = 0; w < 8; w++) a += red[w * %d + tid];\n"
             "            if (pass == 0) tmean[tid] = a / (float)rows;\n"
             "            else if (n0 + tid < N) {\n"
             "                %s[(size_t)(m0 / %d) * %" PRId64 " + n0 + tid] = tmean[tid];\n"
             "                %s[%" PRId64 " + (size_t)(m0 / %d) * %" PRId64 " + n0 + tid] = a;\n"
             "            }\n"
             "        }\n"
             "        __syncthreads();\n"
             "    }\n",
          BN, BM, BM, JN, BN, BN, BN, pb, BM, N, pb, ocl_round_up(M, BM) / BM * N, BM, N);
}

void ocl_gen_norm_second(ocl_gen *g, int gi, int mode, int BN)
{
    const kf_problem *p = g->p;
    const kf_bt_gemm *gm = &g->plan->groups[gi].gemm;
    const int ni = gi + 1;
    const kf_node *an = norm_after(g, gi);
    const int last = g->plan->groups[gi].last_value;
    const int64_t M = gm->M, N = gm->N;
    char eps[48];
    kf_bt_flit(an->eps, eps);
    if (mode == OCL_NORM_GN_PANEL) return;
    ocl_kernel kk;
    ocl_kernel *k = &kk;
    if (mode == OCL_NORM_GN_SPLIT) {
        const int64_t groups = an->groups, G = N / groups, P = G / BN, NT = N / BN;
        const int L = ocl_row_local(G);
        ocl_kernel_begin(k, g, ni, "group_norm_apply");
        const char *pb = ocl_buf_named(k, g->gn_part, 0);
        const char *xb = ocl_buf_value(k, last, 0);
        OCL_P(k, "    /* GroupNorm of %s (%" PRId64 " x %" PRId64 ", %" PRId64 " groups of %" PRId64 "), second pass:"
                 " one work-group per (row, group) combines the group's %" PRId64 " tile partials (mean, M2 of %d"
                 " columns; Chan's formula, equal counts), then normalises its elements once */\n",
              kf_problem_value_name(p, last), M, N, groups, G, P, BN);
        OCL_P(k, "    const size_t seg = get_group_id(0);\n"
                 "    const int l = get_local_id(0);\n"
                 "    const size_t row = seg / %" PRId64 ", q = seg %% %" PRId64 ";\n"
                 "    const float *pm = %s + row * %" PRId64 " + q * %" PRId64 ", *pq = pm + %" PRId64 ";\n"
                 "    float mean = 0.0f;\n"
                 "    for (int i = 0; i < %" PRId64 "; i++) mean += pm[i];\n"
                 "    mean /= %" PRId64 ".0f;\n"
                 "    float m2 = 0.0f;\n"
                 "    for (int i = 0; i < %" PRId64 "; i++) { const float d = pm[i] - mean; m2 += pq[i] + %d.0f * d * d; }\n"
                 "    const float inv = rsqrtf(m2 / %" PRId64 ".0f + %s);   /* biased variance */\n"
                 "    for (int j = l; j < %" PRId64 "; j += %d) {\n"
                 "        const int ch = (int)(q * %" PRId64 ") + j;\n"
                 "        const size_t idx = row * %" PRId64 " + ch;\n"
                 "        float y = (%s[idx] - mean) * inv;\n",
              groups, groups, pb, NT, P, M * NT, P, P, P, BN, G, eps, G, L, G, N, xb);
        emit_norm_out(k, ni, an, "ch", "        ");
        OCL_P(k, "    }\n");
        int64_t gl[3] = {M * groups * L, 1, 1}, lo[3] = {L, 1, 1};
        ocl_kernel_finish(k, 1, gl, lo);
        return;
    }
    /* BatchNorm: combine the M-tile partials per column, then normalise */
    const int64_t MT = ocl_round_up(M, BM) / BM, lastn = M - (MT - 1) * BM;
    char stem[64];
    snprintf(stem, sizeof stem, "kf_bn_stats_g%d", ni);
    const char *stats = ocl_private_scratch(g, stem, 8 * N);
    if (!stats) return;
    ocl_kernel_begin(k, g, ni, "batch_norm_combine");
    const char *pb = ocl_buf_named(k, g->gn_part, 0);
    const char *sb = ocl_buf_named(k, stats, 1);
    OCL_P(k, "    /* batch statistics of %s (%" PRId64 " x %" PRId64 ") from the GEMM's %" PRId64 " per-tile partials"
             " (mean, M2 of %d rows) of each column, merged with Chan's formula; one work-item per column */\n",
          kf_problem_value_name(p, last), M, N, MT, BM);
    OCL_P(k, "    const size_t c = get_global_id(0);\n"
             "    if (c >= %" PRId64 ") return;\n"
             "    float na = 0.0f, mean = 0.0f, m2 = 0.0f;\n"
             "#pragma unroll 16\n"
             "    for (int t = 0; t < %" PRId64 "; t++) {   /* the loads do not wait for the merge: 16 in flight */\n"
             "        const float nb = t < %" PRId64 " ? %d.0f : %" PRId64 ".0f, nab = na + nb;\n"
             "        const float d = %s[(size_t)t * %" PRId64 " + c] - mean;\n"
             "        mean += d * (nb / nab);\n"
             "        m2 += %s[%" PRId64 " + (size_t)t * %" PRId64 " + c] + d * d * (na * nb / nab);\n"
             "        na = nab;\n"
             "    }\n"
             "    %s[c] = mean;\n"
             "    %s[%" PRId64 " + c] = rsqrtf(m2 / %" PRId64 ".0f + %s);   /* biased variance */\n",
          N, MT, MT - 1, BM, lastn, pb, N, pb, MT * N, N, sb, sb, N, M, eps);
    int64_t gl[3] = {ocl_round_up(N, 256), 1, 1}, lo[3] = {256, 1, 1};
    ocl_kernel_finish(k, 1, gl, lo);
    if (!g->failed) ocl_gen_batch_norm_apply(g, ni, stats);
}

const char *ocl_norm_scratch(ocl_gen *g, int gi, int mode, int BN)
{
    const kf_bt_gemm *gm = &g->plan->groups[gi].gemm;
    char stem[64];
    snprintf(stem, sizeof stem, "kf_norm_part_g%d", gi + 1);
    int64_t pairs = mode == OCL_NORM_GN_SPLIT ? gm->M * (gm->N / BN)
                    : mode == OCL_NORM_BN_SPLIT ? ocl_round_up(gm->M, BM) / BM * gm->N : 0;
    if (!pairs) return NULL;
    return ocl_private_scratch(g, stem, pairs * 8);
}
