/* cu_blas_plan.c — checking a library launch and mapping its row-major
 * arguments onto cuBLAS's column-major call (cu_blas_plan.h).  Pure: no
 * CUDA header, no device. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "cu_blas_plan.h"
#include "kforge-plugin.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct {
    const char *name;
    int tf32, batched;
} names[] = {
    {"cublas:sgemm", 0, 0},
    {"cublas:gemm_tf32", 1, 0},
    {"cublas:sgemm_batched", 0, 1},
    {"cublas:gemm_tf32_batched", 1, 1},
};
#define N_NAMES ((int)(sizeof names / sizeof names[0]))

const char *kfcu_blas_names(void)
{
    return "cublas:sgemm, cublas:gemm_tf32, cublas:sgemm_batched, cublas:gemm_tf32_batched";
}

int kfcu_blas_is_library(const char *kernel)
{
    return kernel && strchr(kernel, ':') != NULL;
}

static const char *const arg_names[] = {"A", "B", "C", "M", "N", "K", "trans_a", "trans_b", "lda", "ldb",
                                        "ldc", "alpha", "beta", "batch", "stride_a", "stride_b", "stride_c"};

static const char *kind_name(kf_arg_kind k)
{
    switch (k) {
    case KF_ARG_INPUT: return "an input buffer";
    case KF_ARG_OUTPUT: return "an output buffer";
    case KF_ARG_SCRATCH: return "a scratch buffer";
    case KF_ARG_INT: return "an int";
    case KF_ARG_LONG: return "a long";
    case KF_ARG_FLOAT: return "a float";
    case KF_ARG_LOCAL: return "local memory";
    case KF_ARG_TENSOR_MAP: return "a tensor map";
    }
    return "an unknown kind";
}

/* Elements (float32) of the buffer an argument names; -1 when the index is
 * out of range. */
static int64_t buffer_elems(const kf_problem_view *p, const kf_arg *g)
{
    switch (g->kind) {
    case KF_ARG_INPUT:
        return g->index >= 0 && g->index < p->n_inputs && p->input_elems ? p->input_elems[g->index] : -1;
    case KF_ARG_OUTPUT:
        return g->index >= 0 && g->index < p->n_outputs && p->output_elems ? p->output_elems[g->index] : -1;
    case KF_ARG_SCRATCH:
        return g->index >= 0 && g->index < p->n_scratch && p->scratch_bytes ? p->scratch_bytes[g->index] / 4 : -1;
    default:
        return -1;
    }
}

static const char *buffer_name(const kf_problem_view *p, const kf_arg *g, char *buf, size_t n)
{
    if (g->kind == KF_ARG_INPUT && p->input_names && g->index >= 0 && g->index < p->n_inputs)
        snprintf(buf, n, "input '%s'", p->input_names[g->index]);
    else if (g->kind == KF_ARG_OUTPUT && p->output_names && g->index >= 0 && g->index < p->n_outputs)
        snprintf(buf, n, "output '%s'", p->output_names[g->index]);
    else
        snprintf(buf, n, "scratch buffer %d", g->index);
    return buf;
}

/* Elements a row-major rows x cols operand with leading dimension ld
 * spans, batch copies stride apart: (batch-1)*stride + (rows-1)*ld + cols
 * (rows, cols, ld, batch <= INT_MAX; INT64_MAX when it overflows). */
static int64_t span(int64_t rows, int64_t cols, int64_t ld, int64_t batch, int64_t stride)
{
    int64_t b, r = (rows - 1) * ld + cols;
    if (__builtin_mul_overflow(batch - 1, stride, &b) || __builtin_add_overflow(b, r, &r)) return INT64_MAX;
    return r;
}

kf_status kfcu_blas_plan(const kf_launch *l, int li, const kf_problem_view *p, kfcu_blas_call *out, char **error)
{
    memset(out, 0, sizeof *out);
    const char *kn = l && l->kernel ? l->kernel : "";
    int which = -1;
    for (int i = 0; i < N_NAMES; i++)
        if (!strcmp(kn, names[i].name)) which = i;
    if (which < 0)
        return kf_hook_fail(error, KF_ERR_INVALID, "launch[%d]: '%s' is not a library this plugin calls; the library launches are %s "
                                         "(kernels need a plain CUDA identifier)", li, kn, kfcu_blas_names());
    if (!p) return kf_hook_fail(error, KF_ERR_INVALID, "launch[%d] (%s): no problem to check its buffers against", li, kn);
    out->tf32 = names[which].tf32;
    out->batched = names[which].batched;
    int want = out->batched ? 17 : 13;
    if (l->n_args != want)
        return kf_hook_fail(error, KF_ERR_INVALID, "launch[%d] (%s): %d arguments; it takes %d: A, B, C, M, N, K, trans_a, trans_b, lda, "
                                         "ldb, ldc, alpha, beta%s", li, kn, l->n_args, want,
                                         out->batched ? ", batch, stride_a, stride_b, stride_c" : "");
    int64_t v[17] = {0};
    for (int i = 0; i < want; i++) {
        const kf_arg *g = &l->args[i];
        int is_buf = i < 3, is_float = i == 11 || i == 12;
        int ok = is_buf ? (g->kind == KF_ARG_INPUT || g->kind == KF_ARG_OUTPUT || g->kind == KF_ARG_SCRATCH)
                 : is_float ? g->kind == KF_ARG_FLOAT
                 : (g->kind == KF_ARG_INT || g->kind == KF_ARG_LONG);
        if (!ok)
            return kf_hook_fail(error, KF_ERR_INVALID, "launch[%d] (%s): argument %d (%s) is %s; it must be %s", li, kn, i, arg_names[i],
                                             kind_name(g->kind), is_buf ? "a buffer (input, output or scratch)"
                                             : is_float ? "a float" : "an int or a long");
        if (!is_buf && !is_float) v[i] = g->ival;
    }
    out->a = l->args[0];
    out->b = l->args[1];
    out->c = l->args[2];
    if (out->c.kind == KF_ARG_INPUT)
        return kf_hook_fail(error, KF_ERR_INVALID, "launch[%d] (%s): C is an input buffer; inputs are read-only: write an output or a "
                                         "scratch buffer", li, kn);
    int64_t M = v[3], N = v[4], K = v[5], ta = v[6], tb = v[7], lda = v[8], ldb = v[9], ldc = v[10];
    int64_t batch = out->batched ? v[13] : 1, sa = v[14], sb = v[15], sc = v[16];
    for (int i = 3; i <= 5; i++)
        if (v[i] < 1 || v[i] > INT_MAX)
            return kf_hook_fail(error, KF_ERR_INVALID, "launch[%d] (%s): %s = %lld; it must be 1 .. %d (cuBLAS's int)", li, kn,
                                             arg_names[i], (long long)v[i], INT_MAX);
    if ((ta != 0 && ta != 1) || (tb != 0 && tb != 1))
        return kf_hook_fail(error, KF_ERR_INVALID, "launch[%d] (%s): trans_a = %lld, trans_b = %lld; each must be 0 or 1", li, kn,
                                         (long long)ta, (long long)tb);
    /* stored row lengths (row-major): A is M x K or K x M, B K x N or N x K */
    int64_t a_rows = ta ? K : M, a_cols = ta ? M : K;
    int64_t b_rows = tb ? N : K, b_cols = tb ? K : N;
    const struct { const char *name; int64_t ld, cols; } lds[3] = {{"lda", lda, a_cols}, {"ldb", ldb, b_cols},
                                                                   {"ldc", ldc, N}};
    for (int i = 0; i < 3; i++)
        if (lds[i].ld < lds[i].cols || lds[i].ld > INT_MAX)
            return kf_hook_fail(error, KF_ERR_INVALID, "launch[%d] (%s): %s = %lld; it must be at least the stored row length %lld "
                                             "(and at most %d)", li, kn, lds[i].name, (long long)lds[i].ld, (long long)lds[i].cols,
                                             INT_MAX);
    if (out->batched) {
        if (batch < 1 || batch > INT_MAX)
            return kf_hook_fail(error, KF_ERR_INVALID, "launch[%d] (%s): batch = %lld; it must be 1 .. %d", li, kn, (long long)batch,
                                             INT_MAX);
        if (sa < 0 || sb < 0 || sc < 0)
            return kf_hook_fail(error, KF_ERR_INVALID, "launch[%d] (%s): strides %lld, %lld, %lld; they must be >= 0", li, kn,
                                             (long long)sa, (long long)sb, (long long)sc);
        if (batch > 1 && sc < (M - 1) * ldc + N)
            return kf_hook_fail(error, KF_ERR_INVALID, "launch[%d] (%s): stride_c = %lld makes the batch's C matrices overlap (each spans "
                                             "%lld elements)", li, kn, (long long)sc, (long long)((M - 1) * ldc + N));
    }
    const struct { const kf_arg *g; const char *what; int64_t rows, cols, ld, stride; } ops[3] = {
        {&out->a, "A", a_rows, a_cols, lda, sa}, {&out->b, "B", b_rows, b_cols, ldb, sb},
        {&out->c, "C", M, N, ldc, sc}};
    for (int i = 0; i < 3; i++) {
        int64_t have = buffer_elems(p, ops[i].g);
        char bn[96];
        if (have < 0)
            return kf_hook_fail(error, KF_ERR_INVALID, "launch[%d] (%s): %s names %s %d, which the problem does not have", li, kn,
                                             ops[i].what, ops[i].g->kind == KF_ARG_INPUT ? "input" : ops[i].g->kind == KF_ARG_OUTPUT ?
                                             "output" : "scratch buffer", ops[i].g->index);
        int64_t need = span(ops[i].rows, ops[i].cols, ops[i].ld, batch, ops[i].stride);
        if (need > have)
            return kf_hook_fail(error, KF_ERR_INVALID, "launch[%d] (%s): %s (%s) has %lld elements but %lld x %lld%s with ld %lld%s needs "
                                             "%lld; check M, N, K, the transposes and the leading dimensions", li, kn, ops[i].what,
                                             buffer_name(p, ops[i].g, bn, sizeof bn), (long long)have, (long long)ops[i].rows,
                                             (long long)ops[i].cols, i == 0 && ta ? " (A stored transposed)" : i == 1 && tb ?
                                             " (B stored transposed)" : "", (long long)ops[i].ld, out->batched ? ", batch and stride" : "",
                                             (long long)need);
    }
    /* row-major C = op(A) op(B)  <=>  column-major C^T = op(B)^T op(A)^T:
       cuBLAS's first operand is B (its stored layout read column-major is
       B^T, so the flag is the plan's trans_b), its second is A */
    out->first_is_b = 1;
    out->transa = (int)tb;
    out->transb = (int)ta;
    out->m = (int)N;
    out->n = (int)M;
    out->k = (int)K;
    out->lda = (int)ldb;
    out->ldb = (int)lda;
    out->ldc = (int)ldc;
    out->alpha = (float)l->args[11].fval;
    out->beta = (float)l->args[12].fval;
    out->batch = (int)batch;
    out->stride_first = sb;
    out->stride_second = sa;
    out->stride_c = sc;
    return KF_OK;
}
