/*
 * builtin_ocl_reduce.c — OpenCL kernels of reduction-like groups.
 *
 * The anchor works over segments of its input: outer x len x inner, the
 * len elements of a segment `inner` apart.  Contiguous segments (inner 1:
 * reductions and softmax over the last dim, layer/rms norm, group norm per
 * (row, group), instance norm per (n, c)) get one work-group per segment
 * and __local tree reductions (kf_wg_sum/kf_wg_max of the header);
 * strided segments (a reduction or softmax over an inner dim) get one
 * work-item per (outer, inner) pair looping over len, neighbouring
 * work-items reading neighbouring addresses.  Batch norm in training mode:
 * a per-channel statistics kernel (32 channels per work-group, coalesced
 * across channels, each channel's rows split over 8 work-items) and a
 * normalise kernel over every element.  Short contiguous segments (under
 * 64 elements) share a work-group, L work-items each (kf_seg_*).  The group's
 * map ops follow each produced element (the tail) before its store.
 */
#include <config.h>

#include "builtin_ocl_internal.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct seg_geo {
    int64_t outer, len, inner;
    int64_t channels, groups, spatial;   /* group/instance norm: channel of an element */
} seg_geo;

static int64_t prod(const kf_shape *s, int from, int to)
{
    int64_t n = 1;
    for (int i = from; i < to; i++) n *= s->d[i];
    return n;
}

static void geometry(const kf_node *nd, const kf_shape *x, seg_geo *s)
{
    int64_t e = kf_shape_elems(x);
    s->inner = 1;
    s->channels = s->groups = s->spatial = 1;
    switch (nd->op) {
    case KF_OP_LAYER_NORM: case KF_OP_RMS_NORM:
        s->len = prod(x, x->rank - nd->normalized_dims, x->rank);
        break;
    case KF_OP_GROUP_NORM:
        s->channels = x->rank >= 2 ? x->d[1] : 1;
        s->groups = nd->groups > 0 ? nd->groups : 1;
        s->spatial = prod(x, 2, x->rank);
        s->len = s->channels / s->groups * s->spatial;
        break;
    case KF_OP_INSTANCE_NORM:   /* (C, L), (N, C, L) or (N, C, H, W): a segment per channel */
        s->channels = x->rank >= 3 ? x->d[1] : x->rank == 2 ? x->d[0] : 1;
        s->len = x->rank >= 3 ? prod(x, 2, x->rank) : x->d[x->rank - 1];
        break;
    default:   /* reductions, softmax, log_softmax over nd->dim */
        s->len = x->rank ? x->d[nd->dim] : 1;
        s->inner = prod(x, nd->dim + 1, x->rank);
        break;
    }
    s->outer = (s->len > 0 && s->inner > 0) ? e / (s->len * s->inner) : 0;
}

/* How segment elements are visited: by a work-group (row) or one
 * work-item (column). */
typedef struct walk {
    int row;
    int L;                    /* work-items per segment in the row form */
    int spg;                  /* segments per work-group (short segments share one) */
    char x[200];              /* element j of the segment */
    char loop[160];           /* loop over j */
    char eidx[160];           /* output index of element j (elementwise ops) */
    const char *ridx;         /* output index of the segment's result (reductions) */
} walk;

static void combine(ocl_kernel *k, const walk *w, const char *fn, const char *var)
{
    if (!w->row) return;
    if (w->spg > 1) OCL_P(k, "    %s = kf_seg_%s(%s, part, %d);\n", var, fn, var, w->L);
    else OCL_P(k, "    %s = kf_wg_%s(%s, part);\n", var, fn, var);
}

/* Affine weight/bias term of operand i of the anchor at index `at`, or
 * NULL when absent. */
static char *affine(ocl_kernel *k, const kf_node *an, int i, const char *at)
{
    if (an->n_in <= i || an->in[i].is_scalar) return NULL;
    return ocl_elem(k, an->in[i].value, at);
}

static void emit_norm(ocl_kernel *k, int gi, const kf_node *an, const walk *w, const seg_geo *s,
                      const char *t)
{
    char eps[48];
    kf_bt_flit(an->eps, eps);
    if (an->op == KF_OP_RMS_NORM) {
        OCL_P(k, "    float q = 0.0f;\n    %s { const float v = %s; q = mad(v, v, q); }\n", w->loop, w->x);
        combine(k, w, "sum", "q");
        OCL_P(k, "    const float inv = rsqrt(q / %" PRId64 ".0f + %s);\n", s->len, eps);
    } else {
        OCL_P(k, "    float s = 0.0f;\n    %s s += %s;\n", w->loop, w->x);
        combine(k, w, "sum", "s");
        OCL_P(k, "    const float mean = s / %" PRId64 ".0f;\n", s->len);
        OCL_P(k, "    float q = 0.0f;\n    %s { const float d = %s - mean; q = mad(d, d, q); }\n", w->loop, w->x);
        combine(k, w, "sum", "q");
        OCL_P(k, "    const float inv = rsqrt(q / %" PRId64 ".0f + %s);   /* biased variance */\n", s->len, eps);
    }
    const char *at = "j";
    if (an->op == KF_OP_GROUP_NORM) {
        OCL_P(k, "    const int ch0 = (int)(seg %% %" PRId64 ") * %" PRId64 ";   /* first channel of the group */\n",
              s->groups, s->channels / s->groups);
        at = "ch";
    } else if (an->op == KF_OP_INSTANCE_NORM) {
        OCL_P(k, "    const int ch = (int)(seg %% %" PRId64 ");\n", s->channels);
        at = "ch";
    }
    int has_bias = an->op != KF_OP_RMS_NORM;
    OCL_P(k, "    %s {\n", w->loop);
    if (an->op == KF_OP_GROUP_NORM) OCL_P(k, "        const int ch = ch0 + j / %" PRId64 ";\n", s->spatial);
    char *wt = affine(k, an, 1, at), *bs = has_bias ? affine(k, an, 2, at) : NULL;
    OCL_P(k, "        const size_t idx = %s;\n", w->eidx);
    if (an->op == KF_OP_RMS_NORM) OCL_P(k, "        float y = %s * inv;\n", w->x);
    else OCL_P(k, "        float y = (%s - mean) * inv;\n", w->x);
    if (wt) OCL_P(k, "        y *= %s;\n", wt);
    if (bs) OCL_P(k, "        y += %s;\n", bs);
    OCL_P(k, "        const float %s = y;\n", t);
    free(wt);
    free(bs);
    ocl_emit_tail(k, gi, 1, "idx", NULL, "        ");
    OCL_P(k, "    }\n");
}

static void emit_reduction(ocl_kernel *k, int gi, const kf_node *an, const walk *w, const seg_geo *s,
                           const char *t)
{
    const char *res = "s";
    switch (an->op) {
    case KF_OP_SUM: case KF_OP_MEAN:
        OCL_P(k, "    float s = 0.0f;\n    %s s += %s;\n", w->loop, w->x);
        combine(k, w, "sum", "s");
        if (an->op == KF_OP_MEAN) OCL_P(k, "    s /= %" PRId64 ".0f;\n", s->len);
        break;
    case KF_OP_AMAX: case KF_OP_AMIN: {
        int mx = an->op == KF_OP_AMAX;
        OCL_P(k, "    float s = %s;\n    %s s = %s(s, %s);\n", mx ? "-INFINITY" : "INFINITY", w->loop,
              mx ? "fmax" : "fmin", w->x);
        combine(k, w, mx ? "max" : "min", "s");
        break;
    }
    default:   /* logsumexp */
        OCL_P(k, "    float m = -INFINITY;\n    %s m = fmax(m, %s);\n", w->loop, w->x);
        combine(k, w, "max", "m");
        OCL_P(k, "    float s = 0.0f;\n    %s s += exp(%s - m);\n", w->loop, w->x);
        combine(k, w, "sum", "s");
        OCL_P(k, "    const float lse = isinf(m) ? m : m + log(s);\n");
        res = "lse";
        break;
    }
    OCL_P(k, "    %s{\n        const size_t idx = %s;\n        const float %s = %s;\n",
          !w->row ? "" : w->spg > 1 ? "if (l == 0 && LEN > 0) " : "if (get_local_id(0) == 0 && kf_ok) ", w->ridx, t, res);
    ocl_emit_tail(k, gi, 1, "idx", NULL, "        ");
    OCL_P(k, "    }\n");
}

static void emit_softmax(ocl_kernel *k, int gi, const kf_node *an, const walk *w, const char *t)
{
    OCL_P(k, "    float m = -INFINITY;\n    %s m = fmax(m, %s);\n", w->loop, w->x);
    combine(k, w, "max", "m");
    OCL_P(k, "    float s = 0.0f;\n    %s s += exp(%s - m);\n", w->loop, w->x);
    combine(k, w, "sum", "s");
    if (an->op == KF_OP_SOFTMAX) OCL_P(k, "    const float inv = 1.0f / s;\n");
    else OCL_P(k, "    const float lse = m + log(s);\n");
    OCL_P(k, "    %s {\n        const size_t idx = %s;\n", w->loop, w->eidx);
    if (an->op == KF_OP_SOFTMAX) OCL_P(k, "        const float %s = exp(%s - m) * inv;\n", t, w->x);
    else OCL_P(k, "        const float %s = %s - lse;\n", t, w->x);
    ocl_emit_tail(k, gi, 1, "idx", NULL, "        ");
    OCL_P(k, "    }\n");
}

void ocl_gen_reduce(ocl_gen *g, int gi)
{
    const kf_problem *p = g->p;
    const kf_bt_group *grp = &g->plan->groups[gi];
    const kf_node *an = &p->nodes[grp->nodes[0]];
    int av = p->n_inputs + grp->nodes[0];
    int xv = an->in[0].value;
    const kf_shape *xs = &g->r->shapes[xv];
    seg_geo s;
    geometry(an, xs, &s);
    if (s.len <= 0 || s.outer <= 0 || s.len > INT32_MAX / 2) {
        ocl_failf(g, "group g%d: %s over %" PRId64 " elements per segment is outside the generator's range",
                  gi, kf_op_name(an->op), s.len);
        return;
    }
    walk w = {0};
    w.row = s.inner == 1;
    if (w.row && ocl_row_local(s.len) < 64) ocl_emit_seg_helpers(g);
    ocl_kernel kk;
    ocl_kernel *k = &kk;
    ocl_kernel_begin(k, g, gi, kf_op_name(an->op));
    const char *xb = ocl_buf_value(k, xv, 0);
    int hx = g->half[xv];
    char t[200];
    snprintf(t, sizeof t, "t_%s", g->ident[av]);
    int64_t global[3] = {0, 1, 1}, local[3] = {1, 1, 1};
    if (w.row) {
        w.L = ocl_row_local(s.len);
        /* short segments (a GroupNorm group of 16 elements, say): 256 / L of
           them share a work-group, each reduced by its own L work-items,
           rather than a launch of as many 16-item groups as segments */
        w.spg = w.L < 64 ? 256 / w.L : 1;
        if (w.spg > 1)
            OCL_P(k, "    /* %s of %s: %" PRId64 " segments of %" PRId64 " contiguous elements, %d per work-group,"
                  " %d work-items each, __local tree reductions per segment */\n", kf_op_name(an->op),
                  kf_problem_value_name(p, xv), s.outer, s.len, w.spg, w.L);
        else
            OCL_P(k, "    /* %s of %s: %" PRId64 " segments of %" PRId64 " contiguous elements, one work-group of %d"
                  " per segment, __local tree reductions */\n", kf_op_name(an->op), kf_problem_value_name(p, xv),
                  s.outer, s.len, w.L);
        k->barriers = 1;
        if (w.spg > 1) {
            OCL_P(k, "    __local float part[%d];\n"
                     "    const size_t seg = get_group_id(0) * %d + get_local_id(0) / %d;\n"
                     "    const int l = get_local_id(0) %% %d;\n"
                     "    const int LEN = kf_ok && seg < %" PRId64 " ? %" PRId64 " : 0;   /* segment length */\n",
                  w.L * w.spg, w.spg, w.L, w.L, s.outer, s.len);
            OCL_P(k, "    __global const %s *src = %s + (seg < %" PRId64 " ? seg : 0) * %" PRId64 ";\n",
                  hx ? "half" : "float", xb, s.outer, s.len);
        } else {
            OCL_P(k, "    const int LEN = kf_ok ? %" PRId64 " : 0;   /* segment length */\n", s.len);
            OCL_P(k, "    __local float part[%d];\n"
                     "    const size_t seg = get_group_id(0);\n"
                     "    const int l = get_local_id(0);\n"
                     "    __global const %s *src = %s + seg * %" PRId64 ";\n", w.L, hx ? "half" : "float", xb, s.len);
        }
        snprintf(w.loop, sizeof w.loop, "for (int j = l; j < LEN; j += %d)", w.L);
        snprintf(w.x, sizeof w.x, hx ? "vload_half(j, src)" : "src[j]");
        snprintf(w.eidx, sizeof w.eidx, "seg * %" PRId64 " + j", s.len);
        w.ridx = "seg";
        global[0] = (s.outer + w.spg - 1) / w.spg * w.L * w.spg;
        local[0] = w.L * w.spg;
    } else {
        OCL_P(k, "    /* %s of %s over dim %d: %" PRId64 " x %" PRId64 " x %" PRId64 " (outer x len x inner), one"
              " work-item per (outer, inner) pair, neighbours read neighbouring addresses */\n",
              kf_op_name(an->op), kf_problem_value_name(p, xv), an->dim, s.outer, s.len, s.inner);
        OCL_P(k, "    const size_t q = get_global_id(0);\n"
                 "    if (q >= %" PRId64 ") return;\n"
                 "    const size_t o = q / %" PRId64 ", i = q %% %" PRId64 ";\n"
                 "    const size_t base = o * %" PRId64 " + i;\n"
                 "    __global const %s *src = %s + base;\n", s.outer * s.inner, s.inner, s.inner,
              s.len * s.inner, hx ? "half" : "float", xb);
        snprintf(w.loop, sizeof w.loop, "for (int j = 0; j < %" PRId64 "; j++)", s.len);
        snprintf(w.x, sizeof w.x, hx ? "vload_half((size_t)j * %" PRId64 ", src)" : "src[(size_t)j * %" PRId64 "]",
                 s.inner);
        snprintf(w.eidx, sizeof w.eidx, "base + (size_t)j * %" PRId64, s.inner);
        w.ridx = "q";
        global[0] = ocl_round_up(s.outer * s.inner, 64);
        local[0] = 64;
    }
    switch (an->op) {
    case KF_OP_SUM: case KF_OP_MEAN: case KF_OP_AMAX: case KF_OP_AMIN: case KF_OP_LOGSUMEXP:
        emit_reduction(k, gi, an, &w, &s, t);
        break;
    case KF_OP_SOFTMAX: case KF_OP_LOG_SOFTMAX:
        emit_softmax(k, gi, an, &w, t);
        break;
    default:
        if (!w.row) {
            ocl_failf(g, "group g%d: %s over strided segments (generator limit)", gi, kf_op_name(an->op));
            ocl_kernel_drop(k);
            return;
        }
        emit_norm(k, gi, an, &w, &s, t);
        break;
    }
    ocl_kernel_finish(k, 1, global, local);
}

/* ------------------------------------------------------------------ */
/* batch norm                                                          */

/* The statistics kernel's combination: the 8 partial values of each of
 * the work-group's 32 channels (work-item t = slice * 32 + channel) summed
 * into `all`, the same for the channel's 8 work-items. */
static void bn_fold(ocl_kernel *k, const char *part, const char *all)
{
    OCL_P(k, "    part[t] = %s;\n"
             "    barrier(CLK_LOCAL_MEM_FENCE);\n"
             "    if (sl == 0) { float a = 0.0f; for (int i = 0; i < 8; i++) a += part[i * 32 + cl]; part[cl] = a; }\n"
             "    barrier(CLK_LOCAL_MEM_FENCE);\n"
             "    const float %s = part[cl];\n"
             "    barrier(CLK_LOCAL_MEM_FENCE);\n", part, all);
}

void ocl_gen_batch_norm(ocl_gen *g, int gi)
{
    const kf_problem *p = g->p;
    const kf_bt_group *grp = &g->plan->groups[gi];
    const kf_node *an = &p->nodes[grp->nodes[0]];
    int xv = an->in[0].value;
    const kf_shape *xs = &g->r->shapes[xv];
    if (xs->rank < 2 || xs->rank > 4) {
        ocl_failf(g, "group g%d: batch_norm needs (N, C), (N, C, L) or (N, C, H, W) input", gi);
        return;
    }
    const int64_t NB = xs->d[0], C = xs->d[1], L = xs->rank >= 3 ? kf_shape_elems(xs) / (NB * C) : 1;
    char eps[48], x[160];
    kf_bt_flit(an->eps, eps);
    const char *stats = NULL;
    ocl_kernel kk;
    ocl_kernel *k = &kk;
    if (an->training) {
        char stem[64];
        snprintf(stem, sizeof stem, "kf_bn_stats_g%d", gi);
        if (!(stats = ocl_private_scratch(g, stem, 8 * C))) return;
        ocl_kernel_begin(k, g, gi, "batch_norm_stats");
        const char *xb = ocl_buf_value(k, xv, 0);
        const char *sb = ocl_buf_named(k, stats, 1);
        /* 32 channels per work-group, their N x L rows split over 8
           work-items each: one work-item per channel left a large
           batch with too few threads for the machine (problem 41 on an
           H100: 853 us for 32 MB, 2% of the SMs' throughput) */
        k->barriers = 1;
        OCL_P(k, "    /* batch statistics of %s (%" PRId64 " x %" PRId64 " x %" PRId64 "): 32 channels per work-group,"
              " neighbouring channels at neighbouring addresses, each channel's rows split over 8 work-items and"
              " combined in __local memory; two passes (mean, biased variance) */\n",
              kf_problem_value_name(p, xv), NB, C, L);
        OCL_P(k, "    __local float part[256];\n"
                 "    const int t = get_local_id(0), cl = t %% 32, sl = t / 32;\n"
                 "    const int c = get_group_id(0) * 32 + cl;\n"
                 "    const int R = kf_ok && c < %" PRId64 " ? %" PRId64 " : 0;   /* rows n * L + l of this channel */\n",
              C, NB * L);
        if (g->half[xv])
            snprintf(x, sizeof x, "vload_half((size_t)(r / %" PRId64 " * %" PRId64 " + c) * %" PRId64 " + r %% %" PRId64 ", %s)",
                     L, C, L, L, xb);
        else
            snprintf(x, sizeof x, "%s[(size_t)(r / %" PRId64 " * %" PRId64 " + c) * %" PRId64 " + r %% %" PRId64 "]", xb,
                     L, C, L, L);
        const char *loop = "for (int r = sl; r < R; r += 8)";
        OCL_P(k, "    float s = 0.0f;\n    %s s += %s;\n", loop, x);
        bn_fold(k, "s", "s_all");
        OCL_P(k, "    const float mean = s_all / %" PRId64 ".0f;\n", NB * L);
        OCL_P(k, "    float q = 0.0f;\n    %s { const float d = %s - mean; q = mad(d, d, q); }\n", loop, x);
        bn_fold(k, "q", "q_all");
        OCL_P(k, "    if (sl == 0 && R > 0) {\n        %s[c] = mean;\n        %s[%" PRId64 " + c] = rsqrt(q_all / %" PRId64 ".0f + %s);\n    }\n",
              sb, sb, C, NB * L, eps);
        int64_t gl[3] = {(C + 31) / 32 * 256, 1, 1}, lo[3] = {256, 1, 1};
        ocl_kernel_finish(k, 1, gl, lo);
        if (g->failed) return;
    } else if (an->n_in < 5 || an->in[3].is_scalar || an->in[4].is_scalar) {
        ocl_failf(g, "group g%d: batch_norm in evaluation mode needs running_mean and running_var", gi);
        return;
    }
    ocl_gen_batch_norm_apply(g, gi, stats);
}

void ocl_gen_batch_norm_apply(ocl_gen *g, int gi, const char *stats)
{
    const kf_problem *p = g->p;
    const kf_bt_group *grp = &g->plan->groups[gi];
    const kf_node *an = &p->nodes[grp->nodes[0]];
    int av = p->n_inputs + grp->nodes[0];
    int xv = an->in[0].value;
    const kf_shape *xs = &g->r->shapes[xv];
    const int64_t NB = xs->d[0], C = xs->d[1], L = xs->rank >= 3 ? kf_shape_elems(xs) / (NB * C) : 1;
    const int64_t E = NB * C * L;
    char eps[48];
    kf_bt_flit(an->eps, eps);
    ocl_kernel kk;
    ocl_kernel *k = &kk;
    ocl_kernel_begin(k, g, gi, "batch_norm");
    OCL_P(k, "    /* batch_norm (%s) of %s, then the group's elementwise tail */\n",
          an->training ? "training: batch statistics" : "evaluation: running statistics",
          kf_problem_value_name(p, xv));
    OCL_P(k, "    const size_t idx = get_global_id(0);\n    if (idx >= %" PRId64 ") return;\n", E);
    OCL_P(k, "    const int c = (int)((idx / %" PRId64 ") %% %" PRId64 ");\n", L, C);
    char *xe = ocl_elem(k, xv, "idx");
    if (an->training) {
        const char *sb = ocl_buf_named(k, stats, 0);
        OCL_P(k, "    float y = (%s - %s[c]) * %s[%" PRId64 " + c];\n", xe ? xe : "0.0f", sb, sb, C);
    } else {
        char *rm = ocl_elem(k, an->in[3].value, "c"), *rv = ocl_elem(k, an->in[4].value, "c");
        OCL_P(k, "    float y = (%s - %s) * rsqrt(%s + %s);\n", xe ? xe : "0.0f", rm ? rm : "0.0f",
              rv ? rv : "1.0f", eps);
        free(rm);
        free(rv);
    }
    free(xe);
    char *wt = affine(k, an, 1, "c"), *bs = affine(k, an, 2, "c");
    if (wt) OCL_P(k, "    y *= %s;\n", wt);
    if (bs) OCL_P(k, "    y += %s;\n", bs);
    free(wt);
    free(bs);
    OCL_P(k, "    const float t_%s = y;\n", g->ident[av]);
    ocl_emit_tail(k, gi, 1, "idx", NULL, "    ");
    int64_t gl[3] = {ocl_round_up(E, 256), 1, 1}, lo[3] = {256, 1, 1};
    ocl_kernel_finish(k, 1, gl, lo);
}
