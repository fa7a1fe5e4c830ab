/* cuda_cublas.c — cuBLAS in the cuda-c emitter: the op-by-op baseline's
 * GEMMs as library launches of the cuda plugin ("cublas:sgemm", true FP32,
 * what PyTorch eager calls for a float32 matmul; plugins/cuda/kf-cuda.md),
 * and the GEMM anchor's candidate (emit.h, library_gemm).  The launch's
 * arguments are row-major: A, B, C, M, N, K, trans_a, trans_b, lda, ldb,
 * ldc, alpha, beta [, batch, stride_a, stride_b, stride_c]. */
#include <config.h>

#include "builtin_ocl_internal.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The single element stride of a batch whose dims are dims[0..n) (the last
 * fastest) and per-dim strides str[], or -1 when the strides do not
 * collapse to one (e.g. a broadcast over one batch dim but not another). */
static int64_t flat_stride(int n, const int64_t *dims, const int64_t *str)
{
    int64_t s = -1, mul = 1;
    for (int d = n - 1; d >= 0; d--) {
        if (dims[d] == 1) continue;
        if (s < 0) s = str[d];
        if (str[d] != s * mul) return -1;
        mul *= dims[d];
    }
    return s < 0 ? 0 : s;
}

/* Appends the arguments of a row-major GEMM launch to L (room for 17). */
static int gemm_args(kf_cand_launch *L, const char *a, const char *b, const char *c, const kf_bt_gemm *gm,
                     double beta, int64_t sa, int64_t sb)
{
    const int64_t ints[8] = {gm->M, gm->N, gm->K, 0, gm->trans_b, gm->K, gm->trans_b ? gm->K : gm->N, gm->N};
    const char *names[3] = {a, b, c};
    int n = 0;
    L->n_args = 17;   /* the zeroed room, so a failure half-way frees what was made */
    for (int i = 0; i < 3; i++) {
        L->args[n].kind = KF_CARG_NAME;
        if (!(L->args[n++].text = strdup(names[i]))) return -1;
    }
    for (int i = 0; i < 8; i++) {
        L->args[n].kind = KF_CARG_INT;
        if (asprintf(&L->args[n++].text, "%" PRId64, ints[i]) < 0) { L->args[n - 1].text = NULL; return -1; }
    }
    L->args[n].kind = KF_CARG_FLOAT;
    L->args[n++].fval = 1.0;
    L->args[n].kind = KF_CARG_FLOAT;
    L->args[n++].fval = beta;
    if (gm->batch > 1) {
        const int64_t more[4] = {gm->batch, sa, sb, gm->M * gm->N};
        for (int i = 0; i < 4; i++) {
            L->args[n].kind = i ? KF_CARG_LONG : KF_CARG_INT;
            if (asprintf(&L->args[n++].text, "%" PRId64, more[i]) < 0) { L->args[n - 1].text = NULL; return -1; }
        }
    }
    L->n_args = n;
    return 0;
}

/* Appends a library launch of a GEMM to candidate c; -1 out of memory. */
static int add_gemm_launch(kf_candidate *c, const char *a, const char *b, const char *cc, const kf_bt_gemm *gm,
                           double beta, int64_t sa, int64_t sb)
{
    kf_cand_launch *ls = realloc(c->launches, (size_t)(c->n_launches + 1) * sizeof *ls);
    if (!ls) return -1;
    c->launches = ls;
    kf_cand_launch *L = &ls[c->n_launches];
    memset(L, 0, sizeof *L);
    c->n_launches++;
    L->work_dim = 1;
    if (!(L->kernel = strdup(gm->batch > 1 ? "cublas:sgemm_batched" : "cublas:sgemm")) ||
        !(L->global[0] = strdup("1")) || !(L->local[0] = strdup("1")) ||
        !(L->args = calloc(17, sizeof *L->args)))
        return -1;
    return gemm_args(L, a, b, cc, gm, beta, sa, sb);
}

int ocl_gen_gemm_cublas(ocl_gen *g, int gi)
{
    const kf_bt_group *grp = &g->plan->groups[gi];
    const kf_bt_gemm *gm = &grp->gemm;
    int anchor_v = g->p->n_inputs + grp->nodes[0];
    if (grp->n_nodes != 1 || g->half[gm->a] || g->half[gm->b] || g->half[anchor_v] || !g->store_name[gm->a] ||
        !g->store_name[gm->b] || !g->store_name[anchor_v])
        return -1;   /* an epilogue or a value without its own buffer: the own kernel */
    int64_t sa = 0, sb = 0;
    if (gm->batch > 1 && ((sa = flat_stride(gm->n_batch_dims, gm->batch_dims, gm->a_bstride)) < 0 ||
                          (sb = flat_stride(gm->n_batch_dims, gm->batch_dims, gm->b_bstride)) < 0))
        return -1;
    if (gm->bias >= 0) {
        /* C = bias broadcast over the rows, then C = A B + 1 * C (PyTorch's
           addmm does the same with beta = 1) */
        ocl_kernel kk;
        ocl_kernel *k = &kk;
        ocl_kernel_begin(k, g, gi, "bias");
        const char *C = ocl_buf_value(k, anchor_v, 1);
        char *b = ocl_elem(k, gm->bias, "n");
        int64_t total = gm->batch * gm->M * gm->N;
        OCL_P(k, "    /* %s = the bias of the linear, broadcast; cuBLAS adds A * B to it (beta = 1) */\n"
                 "    const size_t i = get_global_id(0);\n"
                 "    if (i >= %" PRId64 ") return;\n"
                 "    const int n = (int)(i %% %" PRId64 ");\n"
                 "    %s[i] = %s;\n",
              kf_problem_value_name(g->p, anchor_v), total, gm->N, C, b ? b : "0.0f");
        free(b);
        int64_t global[3] = {ocl_round_up(total, 256), 1, 1}, local[3] = {256, 1, 1};
        ocl_kernel_finish(k, 1, global, local);
    }
    if (!g->failed && add_gemm_launch(g->cand, g->store_name[gm->a], g->store_name[gm->b], g->store_name[anchor_v], gm,
                                      gm->bias >= 0 ? 1.0 : 0.0, sa, sb) != 0)
        ocl_failf(g, "out of memory while generating the cuBLAS launch");
    g->n_library++;
    return 0;
}

int kf_bt_cuda_library_gemm(const kf_resolved *r, const kf_bt_gemm *g, const char *backend, kf_candidate **out,
                            char **call, kf_error *err)
{
    *out = NULL;
    *call = NULL;
    char *src = NULL;
    if (asprintf(&src,
                 "/*\n"
                 " * GEMM anchor of %s (preset %s): its main GEMM alone through cuBLAS\n"
                 " * (the launch plan's \"cublas:%s\": true FP32, no TF32, as PyTorch eager).\n"
                 " * A standalone library timing measured next to the op-by-op baseline; NOT\n"
                 " * a kernel for %s.  No kernel here: the plan's only launch is the library's.\n"
                 " */\n",
                 r->problem->name, r->problem->preset_names[r->preset], g->batch > 1 ? "sgemm_batched" : "sgemm",
                 r->problem->name) < 0)
        src = NULL;
    kf_candidate *c = src ? kf_candidate_new(backend) : NULL;
    int bad = !c || kf_candidate_add_source(c, "anchor.cu", src) != 0 ||
              add_gemm_launch(c, "a", "b", "c", g, 0.0, g->M * g->K, g->N * g->K) != 0;
    free(src);
    if (!bad) {
        free(c->notes);
        c->notes = strdup("GEMM anchor: a standalone library timing of the problem's main GEMM, not a kernel for it");
        bad = !c->notes || asprintf(call, "cublas:%s alone (cuBLAS, FP32 without TF32)",
                                    g->batch > 1 ? "sgemm_batched" : "sgemm") < 0;
    }
    if (bad) {
        kf_candidate_free(c);
        *call = NULL;
        return kf_fail(err, KF_E_INTERNAL, "out of memory");
    }
    *out = c;
    return 0;
}
