/* test_cuda_blas.c — the CUDA plugin's library launches without a GPU:
 * checking a "cublas:*" launch against the problem's buffers, the mapping
 * of its row-major arguments onto cuBLAS's column-major call (run through
 * a naive column-major sgemm with cuBLAS's semantics and compared with a
 * row-major GEMM, every transpose, padded leading dimensions, batched),
 * and loading cuBLAS: a missing library is a clear error naming it. */
#include "kf_test.h"

#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#include "cu_blas_plan.h"
#include "kfcu.h"

static kf_arg buf(kf_arg_kind k, int i) { kf_arg a = {k, i, 0, 0, 0}; return a; }
static kf_arg iv(long long v) { kf_arg a = {KF_ARG_INT, 0, v, 0, 0}; return a; }
static kf_arg fv(double v) { kf_arg a = {KF_ARG_FLOAT, 0, 0, v, 0}; return a; }

/* A problem with inputs A (na elements), B (nb), output C (nc). */
typedef struct prob {
    const char *in_names[2], *out_names[1];
    int64_t in_elems[2], out_elems[1];
    kf_problem_view v;
} prob;

static void prob_init(prob *p, int64_t na, int64_t nb, int64_t nc)
{
    memset(p, 0, sizeof *p);
    p->in_names[0] = "A";
    p->in_names[1] = "B";
    p->out_names[0] = "C";
    p->in_elems[0] = na;
    p->in_elems[1] = nb;
    p->out_elems[0] = nc;
    p->v.name = "t";
    p->v.n_inputs = 2;
    p->v.input_names = p->in_names;
    p->v.input_elems = p->in_elems;
    p->v.n_outputs = 1;
    p->v.output_names = p->out_names;
    p->v.output_elems = p->out_elems;
}

/* A row-major GEMM launch: 13 args (17 when batched). */
static int gemm_args(kf_arg *a, long long M, long long N, long long K, int ta, int tb, long long lda, long long ldb,
                     long long ldc, double alpha, double beta, long long batch, long long sa, long long sb,
                     long long sc)
{
    int n = 0;
    a[n++] = buf(KF_ARG_INPUT, 0);
    a[n++] = buf(KF_ARG_INPUT, 1);
    a[n++] = buf(KF_ARG_OUTPUT, 0);
    a[n++] = iv(M); a[n++] = iv(N); a[n++] = iv(K);
    a[n++] = iv(ta); a[n++] = iv(tb);
    a[n++] = iv(lda); a[n++] = iv(ldb); a[n++] = iv(ldc);
    a[n++] = fv(alpha); a[n++] = fv(beta);
    if (batch > 0) { a[n++] = iv(batch); a[n++] = iv(sa); a[n++] = iv(sb); a[n++] = iv(sc); }
    return n;
}

/* cuBLAS's sgemm semantics, column-major: C = alpha op(X) op(Y) + beta C,
 * X(i,j) at x[i + j*ldx]. */
static void colmajor_sgemm(int transa, int transb, int m, int n, int k, float alpha, const float *x, int ldx,
                           const float *y, int ldy, float beta, float *c, int ldc)
{
    for (int j = 0; j < n; j++)
        for (int i = 0; i < m; i++) {
            double s = 0;
            for (int p = 0; p < k; p++) {
                double xv = transa ? x[p + (size_t)i * ldx] : x[i + (size_t)p * ldx];
                double yv = transb ? y[j + (size_t)p * ldy] : y[p + (size_t)j * ldy];
                s += xv * yv;
            }
            c[i + (size_t)j * ldc] = (float)(alpha * s + beta * c[i + (size_t)j * ldc]);
        }
}

/* Runs one mapped call on row-major data and compares it with the
 * row-major definition. */
static void check_mapping(int M, int N, int K, int ta, int tb, int pad, int batch)
{
    int lda = (ta ? M : K) + pad, ldb = (tb ? K : N) + pad, ldc = N + pad;
    int arows = ta ? K : M, brows = tb ? N : K;
    long long sa = (long long)arows * lda + 3, sb = (long long)brows * ldb + 5, sc = (long long)M * ldc + 1;
    size_t na = (size_t)(batch * sa), nb = (size_t)(batch * sb), nc = (size_t)(batch * sc);
    float *A = malloc(na * sizeof *A), *B = malloc(nb * sizeof *B), *C = malloc(nc * sizeof *C),
          *R = malloc(nc * sizeof *R);
    KF_CHECK(A && B && C && R);
    if (!A || !B || !C || !R) { free(A); free(B); free(C); free(R); return; }
    for (size_t i = 0; i < na; i++) A[i] = (float)((i * 7 + 3) % 11) - 5.0f;
    for (size_t i = 0; i < nb; i++) B[i] = (float)((i * 5 + 1) % 13) - 6.0f;
    for (size_t i = 0; i < nc; i++) C[i] = R[i] = (float)(i % 5) - 2.0f;
    const float alpha = 1.5f, beta = 0.5f;
    /* the row-major definition */
    for (int t = 0; t < batch; t++)
        for (int m = 0; m < M; m++)
            for (int n = 0; n < N; n++) {
                double s = 0;
                for (int k = 0; k < K; k++) {
                    double av = ta ? A[t * sa + (size_t)k * lda + m] : A[t * sa + (size_t)m * lda + k];
                    double bv = tb ? B[t * sb + (size_t)n * ldb + k] : B[t * sb + (size_t)k * ldb + n];
                    s += av * bv;
                }
                float *r = &R[t * sc + (size_t)m * ldc + n];
                *r = (float)(alpha * s + beta * *r);
            }
    kf_arg args[17];
    kf_launch l = {batch > 1 ? "cublas:sgemm_batched" : "cublas:sgemm", 1, {1, 1, 1}, {1, 1, 1}, 0, args, 0};
    l.n_args = gemm_args(args, M, N, K, ta, tb, lda, ldb, ldc, alpha, beta, batch > 1 ? batch : 0, sa, sb, sc);
    prob p;
    prob_init(&p, (int64_t)na, (int64_t)nb, (int64_t)nc);
    kfcu_blas_call c;
    char *err = NULL;
    kf_status st = kfcu_blas_plan(&l, 0, &p.v, &c, &err);
    KF_CHECK_MSG(st == KF_OK, "M%d N%d K%d ta%d tb%d pad%d batch%d: %s", M, N, K, ta, tb, pad, batch,
                 err ? err : "?");
    if (st == KF_OK) {
        KF_CHECK_INT(c.first_is_b, 1);
        KF_CHECK_INT(c.m, N);
        KF_CHECK_INT(c.n, M);
        KF_CHECK_INT(c.k, K);
        for (int t = 0; t < (c.batched ? c.batch : 1); t++)
            colmajor_sgemm(c.transa, c.transb, c.m, c.n, c.k, c.alpha, B + t * c.stride_first, c.lda,
                           A + t * c.stride_second, c.ldb, c.beta, C + t * c.stride_c, c.ldc);
        double worst = 0;
        for (size_t i = 0; i < nc; i++) {
            double d = C[i] - R[i];
            if (d < 0) d = -d;
            if (d > worst) worst = d;
        }
        KF_CHECK_MSG(worst < 1e-3, "M%d N%d K%d ta%d tb%d pad%d batch%d: the column-major call differs from "
                     "the row-major GEMM by %g", M, N, K, ta, tb, pad, batch, worst);
    }
    free(err);
    free(A); free(B); free(C); free(R);
}

KF_TEST(mapping_matches_rowmajor_gemm)
{
    for (int ta = 0; ta < 2; ta++)
        for (int tb = 0; tb < 2; tb++) {
            check_mapping(5, 7, 3, ta, tb, 0, 1);
            check_mapping(4, 6, 9, ta, tb, 2, 1);
            check_mapping(3, 5, 4, ta, tb, 1, 3);
            check_mapping(1, 8, 16, ta, tb, 0, 1);   /* GEMV-like shapes */
            check_mapping(9, 1, 6, ta, tb, 0, 1);
        }
}

KF_TEST(library_names)
{
    KF_CHECK(kfcu_blas_is_library("cublas:sgemm"));
    KF_CHECK(!kfcu_blas_is_library("g0_gemm"));
    KF_CHECK(!kfcu_blas_is_library(NULL));
    KF_CHECK_CONTAINS(kfcu_blas_names(), "cublas:gemm_tf32");
}

/* Checks that launch l is refused with a message containing `want`. */
static void refused(const char *kernel, kf_arg *args, int n, const prob *p, const char *want)
{
    kf_launch l = {kernel, 1, {1, 1, 1}, {1, 1, 1}, n, args, 0};
    kfcu_blas_call c;
    char *err = NULL;
    kf_status st = kfcu_blas_plan(&l, 2, &p->v, &c, &err);
    KF_CHECK_MSG(st == KF_ERR_INVALID, "%s with want '%s' was accepted", kernel, want);
    KF_CHECK_CONTAINS(err, want);
    KF_CHECK_CONTAINS(err, "launch[2]");
    free(err);
}

KF_TEST(plan_validation)
{
    kf_arg a[17];
    prob p;
    prob_init(&p, 6 * 4, 4 * 5, 6 * 5);   /* A 6x4, B 4x5, C 6x5 */
    int n = gemm_args(a, 6, 5, 4, 0, 0, 4, 5, 5, 1, 0, 0, 0, 0, 0);
    kf_launch ok = {"cublas:gemm_tf32", 1, {1, 1, 1}, {1, 1, 1}, n, a, 0};
    kfcu_blas_call c;
    char *err = NULL;
    KF_CHECK_INT(kfcu_blas_plan(&ok, 0, &p.v, &c, &err), KF_OK);
    KF_CHECK_INT(c.tf32, 1);
    KF_CHECK_INT(c.batched, 0);
    free(err);
    err = NULL;

    refused("cublas:dgemm", a, n, &p, "not a library this plugin calls");
    refused("cublas:sgemm", a, n - 1, &p, "12 arguments; it takes 13");
    refused("cublas:sgemm_batched", a, n, &p, "it takes 17");
    kf_arg b[17];
    memcpy(b, a, sizeof a);
    b[3] = fv(6);
    refused("cublas:sgemm", b, n, &p, "argument 3 (M) is a float");
    memcpy(b, a, sizeof a);
    b[11] = iv(1);
    refused("cublas:sgemm", b, n, &p, "argument 11 (alpha) is an int");
    memcpy(b, a, sizeof a);
    b[0] = iv(0);
    refused("cublas:sgemm", b, n, &p, "argument 0 (A) is an int; it must be a buffer");
    memcpy(b, a, sizeof a);
    b[2] = buf(KF_ARG_INPUT, 0);
    refused("cublas:sgemm", b, n, &p, "C is an input buffer");
    memcpy(b, a, sizeof a);
    b[6] = iv(2);
    refused("cublas:sgemm", b, n, &p, "must be 0 or 1");
    memcpy(b, a, sizeof a);
    b[5] = iv(0);
    refused("cublas:sgemm", b, n, &p, "K = 0");
    memcpy(b, a, sizeof a);
    b[8] = iv(3);
    refused("cublas:sgemm", b, n, &p, "lda = 3; it must be at least the stored row length 4");
    memcpy(b, a, sizeof a);
    b[1] = buf(KF_ARG_INPUT, 5);
    refused("cublas:sgemm", b, n, &p, "B names input 5");
    memcpy(b, a, sizeof a);
    b[5] = iv(5);   /* K = 5: A (6 x 5) needs 30 of its 24 */
    b[8] = iv(5);
    refused("cublas:sgemm", b, n, &p, "A (input 'A') has 24 elements but 6 x 5 with ld 5 needs 30");
    memcpy(b, a, sizeof a);
    b[10] = iv(6);  /* ldc 6: C needs 5 * 6 + 5 = 35 of 30 */
    refused("cublas:sgemm", b, n, &p, "C (output 'C') has 30 elements");
    memcpy(b, a, sizeof a);
    b[7] = iv(1);   /* B stored transposed: 5 x 4 with ldb 5 needs 24 > 20 */
    refused("cublas:sgemm", b, n, &p, "(B stored transposed)");
    /* batched: a batch of 2 needs twice the buffers */
    n = gemm_args(a, 6, 5, 4, 0, 0, 4, 5, 5, 1, 0, 2, 24, 20, 30);
    refused("cublas:sgemm_batched", a, n, &p, "A (input 'A') has 24 elements but 6 x 4 with ld 4, batch and stride "
            "needs 48");
    prob_init(&p, 48, 40, 60);
    n = gemm_args(a, 6, 5, 4, 0, 0, 4, 5, 5, 1, 0, 2, 24, 20, 10);
    refused("cublas:sgemm_batched", a, n, &p, "stride_c = 10 makes the batch's C matrices overlap");
    /* a stride whose product with the batch overflows is a too-small buffer, not UB */
    n = gemm_args(a, 6, 5, 4, 0, 0, 4, 5, 5, 1, 0, 3, 24, 20, 30);
    a[14] = (kf_arg){KF_ARG_LONG, 0, (int64_t)1 << 62, 0, 0};
    refused("cublas:sgemm_batched", a, n, &p, "A (input 'A') has 48 elements");
    n = gemm_args(a, 6, 5, 4, 0, 0, 4, 5, 5, 1, 0, 2, 24, 0, 30);   /* B broadcast over the batch */
    kf_launch bl = {"cublas:sgemm_batched", 1, {1, 1, 1}, {1, 1, 1}, n, a, 0};
    KF_CHECK_INT(kfcu_blas_plan(&bl, 0, &p.v, &c, &err), KF_OK);
    KF_CHECK_INT(c.stride_first, 0);
    KF_CHECK_INT(c.stride_second, 24);
    KF_CHECK_INT(c.batch, 2);
    free(err);
}

KF_TEST(missing_libcublas_is_a_clear_error)
{
    static const char *const libs[] = {"libcublas-kforge-missing.so.99", NULL};
    char why[512] = "";
    KF_CHECK_INT(kfcu_blas_load_from(libs, why, sizeof why), KF_ERR_UNAVAILABLE);
    KF_CHECK_CONTAINS(why, "libcublas-kforge-missing.so.99 not found");
    KF_CHECK_CONTAINS(why, "cuBLAS");
    KF_CHECK_CONTAINS(why, "LD_LIBRARY_PATH");
    KF_CHECK(kfcu_blas_lib() == NULL);
}

/* Where this machine has cuBLAS (the CUDA toolkit), every function the
 * plugin calls binds under the name it uses. */
KF_TEST(installed_libcublas_binds)
{
    void *h = dlopen("libcublas.so.13", RTLD_NOW | RTLD_LOCAL);
    if (!h) h = dlopen("libcublas.so.12", RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        kf_test_skip("no libcublas.so.13/.12 on this machine");
        return;
    }
    dlclose(h);
    char why[512] = "";
    kf_status st = kfcu_load_blas(why, sizeof why);
    KF_CHECK_MSG(st == KF_OK, "%s", why);
    KF_CHECK(kfcu_blas_lib() && !strncmp(kfcu_blas_lib(), "libcublas.so.1", 14));
}

int main(void) { return kf_test_main(); }
