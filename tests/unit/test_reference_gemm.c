/*
 * test_reference_gemm.c — kf_ref_gemm against a naive triple loop, thread
 * count invariance, batched matmul broadcasting and linear.
 */
#include <config.h>

#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <time.h>

#include "../kf_test.h"
#include "reference/ref_internal.h"
#include "reference/reference.h"

static double *rand_mat(long n, uint64_t seed)
{
    double *m = malloc(sizeof(double) * (size_t)(n > 0 ? n : 1));
    uint64_t s = seed * 6364136223846793005ULL + 1442695040888963407ULL;
    for (long i = 0; i < n; i++) {
        s = s * 6364136223846793005ULL + 1442695040888963407ULL;
        m[i] = (double)(s >> 11) * 0x1p-53 * 2.0 - 1.0;
    }
    return m;
}

static void naive(const double *A, const double *B, double *C, long M, long N, long K, int tb)
{
    for (long i = 0; i < M; i++)
        for (long j = 0; j < N; j++) {
            long double s = 0;
            for (long p = 0; p < K; p++)
                s += (long double)A[i * K + p] * (tb ? B[j * K + p] : B[p * N + j]);
            C[i * N + j] = (double)s;
        }
}

/* max |C - ref| / (sum_p |A||B| bound) relative error */
static void check_gemm(long M, long N, long K, int tb, int threads)
{
    double *A = rand_mat(M * K, 1), *B = rand_mat(K * N, 2);
    double *C = malloc(sizeof(double) * (size_t)(M * N)), *R = malloc(sizeof(double) * (size_t)(M * N));
    for (long i = 0; i < M * N; i++)
        C[i] = NAN;                       /* every element must be written */
    kf_ref_gemm(A, B, C, M, N, K, tb, threads);
    naive(A, B, R, M, N, K, tb);
    double worst = 0;
    for (long i = 0; i < M * N; i++) {
        double e = fabs(C[i] - R[i]) / (double)(K > 0 ? K : 1);
        if (!(e <= worst))
            worst = isnan(e) ? INFINITY : e;
    }
    KF_CHECK_MSG(worst < 1e-14, "gemm %ldx%ldx%ld tb=%d threads=%d: max error/K %g", M, N, K,
                 tb, threads, worst);
    free(A);
    free(B);
    free(C);
    free(R);
}

KF_TEST(gemm_1x1x1)
{
    double a = 3.0, b = -2.5, c = 0;
    kf_ref_gemm(&a, &b, &c, 1, 1, 1, 0, 1);
    KF_CHECK_NEAR(c, -7.5, 0);
    kf_ref_gemm(&a, &b, &c, 1, 1, 1, 1, 4);
    KF_CHECK_NEAR(c, -7.5, 0);
}

KF_TEST(gemm_2x2_by_hand)
{
    /* [1 2; 3 4] @ [5 6; 7 8] = [19 22; 43 50]; with B^T: [17 23; 39 53] */
    double A[] = {1, 2, 3, 4}, B[] = {5, 6, 7, 8}, C[4];
    kf_ref_gemm(A, B, C, 2, 2, 2, 0, 1);
    KF_CHECK_NEAR(C[0], 19, 0);
    KF_CHECK_NEAR(C[1], 22, 0);
    KF_CHECK_NEAR(C[2], 43, 0);
    KF_CHECK_NEAR(C[3], 50, 0);
    kf_ref_gemm(A, B, C, 2, 2, 2, 1, 1);
    KF_CHECK_NEAR(C[0], 17, 0);
    KF_CHECK_NEAR(C[1], 23, 0);
    KF_CHECK_NEAR(C[2], 39, 0);
    KF_CHECK_NEAR(C[3], 53, 0);
}

KF_TEST(gemm_odd_sizes)
{
    check_gemm(7, 13, 5, 0, 1);
    check_gemm(7, 13, 5, 1, 1);
    check_gemm(13, 7, 300, 0, 2);     /* K spans two KC blocks */
    check_gemm(1, 1000, 17, 1, 4);    /* one row: split over columns */
}

KF_TEST_TIMEOUT(gemm_127x250x333_both_ways, 120)
{
    check_gemm(127, 333, 250, 0, 1);
    check_gemm(127, 333, 250, 1, 1);
    check_gemm(127, 333, 250, 0, 3);
    check_gemm(127, 333, 250, 1, 0);
}

KF_TEST(gemm_k_zero_gives_zero)
{
    double C[6] = {1, 2, 3, 4, 5, 6};
    kf_ref_gemm(NULL, NULL, C, 2, 3, 0, 0, 1);
    for (int i = 0; i < 6; i++)
        KF_CHECK_NEAR(C[i], 0, 0);
}

KF_TEST_TIMEOUT(gemm_threads_bitwise_equal, 120)
{
    long M = 301, N = 517, K = 613;
    for (int tb = 0; tb < 2; tb++) {
        double *A = rand_mat(M * K, 3), *B = rand_mat(K * N, 4);
        double *C1 = malloc(sizeof(double) * (size_t)(M * N));
        double *C2 = malloc(sizeof(double) * (size_t)(M * N));
        double *C3 = malloc(sizeof(double) * (size_t)(M * N));
        kf_ref_gemm(A, B, C1, M, N, K, tb, 1);
        kf_ref_gemm(A, B, C2, M, N, K, tb, 2);
        kf_ref_gemm(A, B, C3, M, N, K, tb, 7);
        KF_CHECK(memcmp(C1, C2, sizeof(double) * (size_t)(M * N)) == 0);
        KF_CHECK(memcmp(C1, C3, sizeof(double) * (size_t)(M * N)) == 0);
        free(A);
        free(B);
        free(C1);
        free(C2);
        free(C3);
    }
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Reports GFLOP/s (TAP diagnostics); asserts only that the blocked GEMM
 * beats a naive loop's typical 1 GFLOP/s, since CI may run sanitizers. */
KF_TEST_TIMEOUT(gemm_throughput, 300)
{
    static const long sizes[][3] = {{512, 2048, 2048}, {1024, 2048, 2048}};
    for (int s = 0; s < 2; s++) {
        long M = sizes[s][0], N = sizes[s][1], K = sizes[s][2];
        double *A = rand_mat(M * K, 5), *B = rand_mat(K * N, 6);
        double *C = malloc(sizeof(double) * (size_t)(M * N));
        for (int tb = 0; tb < 2; tb++) {
            double t0 = now();
            kf_ref_gemm(A, B, C, M, N, K, tb, 0);
            double dt = now() - t0;
            double gf = 2.0 * (double)M * (double)N * (double)K / dt * 1e-9;
            fprintf(stderr, "# kf_ref_gemm %ldx%ldx%ld trans_b=%d: %.3f s, %.1f GFLOP/s (%d threads)\n",
                    M, N, K, tb, dt, gf, kf_parallel_threads(0));
            KF_CHECK_MSG(gf > 1.0, "gemm only %.2f GFLOP/s", gf);
        }
        /* spot-check a few entries against dot products */
        for (long t = 0; t < 5; t++) {
            long i = (t * 97) % M, j = (t * 389) % N;
            double ref = 0;
            for (long p = 0; p < K; p++)
                ref += A[i * K + p] * B[j * K + p];
            KF_CHECK_NEAR(C[i * N + j], ref, 1e-10);
        }
        free(A);
        free(B);
        free(C);
    }
}

/* Products of 2 GFLOP and more go to OpenBLAS's dgemm where configure found
 * it (ref_gemm.c): the same values as the blocked path to the last bits of
 * double, both transposes, odd sizes, every element written. */
KF_TEST_TIMEOUT(gemm_large_blas_path_matches_blocked, 300)
{
    long M = 701, N = 1103, K = 1409;   /* 2.18 GFLOP */
    for (int tb = 0; tb < 2; tb++) {
        double *A = rand_mat(M * K, 7), *B = rand_mat(K * N, 8);
        double *C1 = malloc(sizeof(double) * (size_t)(M * N)), *C2 = malloc(sizeof(double) * (size_t)(M * N));
        for (long i = 0; i < M * N; i++) C1[i] = C2[i] = NAN;
        unsetenv("KFORGE_REF_NO_BLAS");
        kf_ref_gemm(A, B, C1, M, N, K, tb, 0);
        setenv("KFORGE_REF_NO_BLAS", "1", 1);
        kf_ref_gemm(A, B, C2, M, N, K, tb, 0);
        unsetenv("KFORGE_REF_NO_BLAS");
        double worst = 0;
        for (long i = 0; i < M * N; i++) {
            double e = fabs(C1[i] - C2[i]) / (double)K;
            if (!(e <= worst)) worst = isnan(e) ? INFINITY : e;
        }
        KF_CHECK_MSG(worst < 1e-14, "trans_b=%d: max |blas - blocked|/K %g", tb, worst);
        free(A);
        free(B);
        free(C1);
        free(C2);
    }
}

/* After a product on OpenBLAS the parent's CPUs are free again at once: its
 * idle threads would otherwise spin for about 0.1 s, over the candidate's
 * next timed runs (ref_gemm.c, blas_load). */
KF_TEST_TIMEOUT(gemm_blas_threads_idle_after, 300)
{
    long M = 1024, N = 1024, K = 1024;   /* 2.1 GFLOP: the OpenBLAS path */
    double *A = rand_mat(M * K, 9), *B = rand_mat(K * N, 10), *C = malloc(sizeof(double) * (size_t)(M * N));
    unsetenv("KFORGE_REF_NO_BLAS");
    unsetenv("OPENBLAS_THREAD_TIMEOUT");
    kf_ref_gemm(A, B, C, M, N, K, 0, 2);
    void *h = dlopen("libopenblas.so.0", RTLD_NOW | RTLD_NOLOAD);
    if (!h) h = dlopen("libopenblas.so", RTLD_NOW | RTLD_NOLOAD);
    if (!h) {
        fprintf(stderr, "# OpenBLAS not loaded: the blocked path ran, nothing to check\n");
    } else {
        struct timespec t0, t1, pause = {0, 200000000};
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t0);
        nanosleep(&pause, NULL);
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t1);
        double busy = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
        KF_CHECK_MSG(busy < 0.02, "the process used %.1f ms of CPU in a 200 ms pause after the product", busy * 1e3);
        dlclose(h);
    }
    free(A);
    free(B);
    free(C);
}

/* ------------------------------------------------------- matmul / linear */

KF_TEST(matmul_batched_broadcast)
{
    /* a (2,1,2,3) @ b (3,3,2): batch dims (2,1) x (3) -> (2,3), out (2,3,2,2) */
    kf_shape sa = {4, {2, 1, 2, 3}}, sb = {3, {3, 3, 2}}, sy = {4, {2, 3, 2, 2}};
    double *a = rand_mat(12, 7), *b = rand_mat(18, 8), y[24];
    kf_error err = {0};
    KF_CHECK_INT(kf_ref_matmul(a, &sa, b, &sb, 0, y, &sy, 2, &err), 0);
    for (int i0 = 0; i0 < 2; i0++)
        for (int i1 = 0; i1 < 3; i1++)
            for (int m = 0; m < 2; m++)
                for (int n = 0; n < 2; n++) {
                    double ref = 0;
                    for (int k = 0; k < 3; k++)
                        ref += a[i0 * 6 + m * 3 + k] * b[i1 * 6 + k * 2 + n];
                    KF_CHECK_NEAR(y[((i0 * 3 + i1) * 2 + m) * 2 + n], ref, 1e-15);
                }
    /* transpose_b: b (3, N=2, K=3) */
    kf_shape sbt = {3, {3, 2, 3}};
    KF_CHECK_INT(kf_ref_matmul(a, &sa, b, &sbt, 1, y, &sy, 1, &err), 0);
    for (int i0 = 0; i0 < 2; i0++)
        for (int i1 = 0; i1 < 3; i1++)
            for (int m = 0; m < 2; m++)
                for (int n = 0; n < 2; n++) {
                    double ref = 0;
                    for (int k = 0; k < 3; k++)
                        ref += a[i0 * 6 + m * 3 + k] * b[i1 * 6 + n * 3 + k];
                    KF_CHECK_NEAR(y[((i0 * 3 + i1) * 2 + m) * 2 + n], ref, 1e-15);
                }
    free(a);
    free(b);
}

KF_TEST(matmul_rejects_mismatched_k)
{
    kf_shape sa = {2, {2, 3}}, sb = {2, {4, 2}}, sy = {2, {2, 2}};
    double a[6] = {0}, b[8] = {0}, y[4];
    kf_error err = {0};
    KF_CHECK_INT(kf_ref_matmul(a, &sa, b, &sb, 0, y, &sy, 1, &err), -1);
    KF_CHECK_CONTAINS(err.msg, "inner dims differ: (2, 3) @ (4, 2)");
}

KF_TEST(matmul_vector)
{
    /* (2,3) @ (3) -> (2) */
    kf_shape sa = {2, {2, 3}}, sb = {1, {3}}, sy = {1, {2}};
    double a[] = {1, 2, 3, 4, 5, 6}, b[] = {1, 0, -1}, y[2];
    KF_CHECK_INT(kf_ref_matmul(a, &sa, b, &sb, 0, y, &sy, 1, NULL), 0);
    KF_CHECK_NEAR(y[0], -2, 0);
    KF_CHECK_NEAR(y[1], -2, 0);
}

KF_TEST(linear_with_and_without_bias)
{
    /* x (2,3), W (2,3): y = x W^T + b */
    kf_shape sx = {2, {2, 3}}, sw = {2, {2, 3}}, sb = {1, {2}}, sy = {2, {2, 2}};
    double x[] = {1, 2, 3, 4, 5, 6}, w[] = {1, 0, 1, 0, 1, 0}, b[] = {0.5, -1}, y[4];
    KF_CHECK_INT(kf_ref_linear(x, &sx, w, &sw, b, &sb, y, &sy, 1, NULL), 0);
    KF_CHECK_NEAR(y[0], 4.5, 0);
    KF_CHECK_NEAR(y[1], 1, 0);
    KF_CHECK_NEAR(y[2], 10.5, 0);
    KF_CHECK_NEAR(y[3], 4, 0);
    KF_CHECK_INT(kf_ref_linear(x, &sx, w, &sw, NULL, NULL, y, &sy, 1, NULL), 0);
    KF_CHECK_NEAR(y[0], 4, 0);
    KF_CHECK_NEAR(y[3], 5, 0);
}

int main(void)
{
    return kf_test_main();
}
