/*
 * test_reference_ops.c — each reference op kernel against hand-computed
 * values (expected numbers computed offline with python3's math module
 * and pasted in).
 */
#include <config.h>

#include <stdlib.h>

#include "../kf_test.h"
#include "reference/ref_internal.h"

#define TOL 1e-13

static kf_node node_of(kf_op op)
{
    kf_node n;
    memset(&n, 0, sizeof n);
    n.op = op;
    n.lo = NAN;
    n.hi = NAN;
    return n;
}

static double u1(kf_op op, double x)
{
    kf_node n = node_of(op);
    return kf_ref_unary1(op, &n, x);
}

/* --------------------------------------------------------------- unary */

KF_TEST(gelu_erf_and_tanh_differ)
{
    kf_node n = node_of(KF_OP_GELU);
    KF_CHECK_NEAR(kf_ref_unary1(KF_OP_GELU, &n, 1.0), 0.8413447460685429, TOL);
    KF_CHECK_NEAR(kf_ref_unary1(KF_OP_GELU, &n, -0.5), -0.15426876936299344, TOL);
    KF_CHECK_NEAR(kf_ref_unary1(KF_OP_GELU, &n, 2.0), 1.9544997361036416, TOL);
    n.gelu_tanh = 1;
    KF_CHECK_NEAR(kf_ref_unary1(KF_OP_GELU, &n, 1.0), 0.8411919906082768, TOL);
    KF_CHECK_NEAR(kf_ref_unary1(KF_OP_GELU, &n, -0.5), -0.15428599017485606, TOL);
    KF_CHECK_NEAR(kf_ref_unary1(KF_OP_GELU, &n, 2.0), 1.954597694087775, TOL);
}

KF_TEST(mish_selu_hardswish_elu)
{
    KF_CHECK_NEAR(u1(KF_OP_MISH, 1.0), 0.8650983882673103, TOL);
    KF_CHECK_NEAR(u1(KF_OP_MISH, -2.0), -0.2525014826957089, TOL);
    KF_CHECK_NEAR(u1(KF_OP_MISH, 30.0), 30.0, TOL);
    KF_CHECK_NEAR(u1(KF_OP_MISH, 1000.0), 1000.0, TOL);   /* no overflow */
    KF_CHECK_NEAR(u1(KF_OP_SELU, -1.0), -1.1113307378125625, TOL);
    KF_CHECK_NEAR(u1(KF_OP_SELU, 1.0), 1.0507009873554805, TOL);
    KF_CHECK_NEAR(u1(KF_OP_SELU, 2.5), 2.626752468388701, TOL);
    KF_CHECK_NEAR(u1(KF_OP_HARDSWISH, -4.0), 0.0, 0);
    KF_CHECK_NEAR(u1(KF_OP_HARDSWISH, -1.0), -1.0 / 3.0, TOL);
    KF_CHECK_NEAR(u1(KF_OP_HARDSWISH, 1.0), 2.0 / 3.0, TOL);
    KF_CHECK_NEAR(u1(KF_OP_HARDSWISH, 4.0), 4.0, 0);
    kf_node n = node_of(KF_OP_ELU);
    n.alpha = 1.5;
    KF_CHECK_NEAR(kf_ref_unary1(KF_OP_ELU, &n, -1.0), -0.9481808382428365, TOL);
    KF_CHECK_NEAR(kf_ref_unary1(KF_OP_ELU, &n, 2.0), 2.0, 0);
}

KF_TEST(softplus_beta_and_threshold)
{
    kf_node n = node_of(KF_OP_SOFTPLUS);
    n.alpha = 1.0;    /* beta */
    n.beta = 20.0;    /* threshold */
    KF_CHECK_NEAR(kf_ref_unary1(KF_OP_SOFTPLUS, &n, 1.0), 1.3132616875182228, TOL);
    KF_CHECK_NEAR(kf_ref_unary1(KF_OP_SOFTPLUS, &n, -3.0), 0.04858735157374206, TOL);
    KF_CHECK_NEAR(kf_ref_unary1(KF_OP_SOFTPLUS, &n, 25.0), 25.0, 0);
    n.alpha = 2.0;
    n.beta = 1.0;
    /* beta*x = 1.2 > 1: linear; beta*x = 0.8: log1p(exp(0.8)) / 2 */
    KF_CHECK_NEAR(kf_ref_unary1(KF_OP_SOFTPLUS, &n, 0.6), 0.6, 0);
    KF_CHECK_NEAR(kf_ref_unary1(KF_OP_SOFTPLUS, &n, 0.4), 0.5855503329738889, TOL);
}

KF_TEST(slopes_and_clamps)
{
    kf_node n = node_of(KF_OP_LEAKY_RELU);
    n.alpha = 0.1;
    KF_CHECK_NEAR(kf_ref_unary1(KF_OP_LEAKY_RELU, &n, -2.0), -0.2, TOL);
    KF_CHECK_NEAR(kf_ref_unary1(KF_OP_LEAKY_RELU, &n, 3.0), 3.0, 0);
    n = node_of(KF_OP_HARDTANH);
    n.lo = -2;
    n.hi = 2;
    KF_CHECK_NEAR(kf_ref_unary1(KF_OP_HARDTANH, &n, -3.0), -2.0, 0);
    KF_CHECK_NEAR(kf_ref_unary1(KF_OP_HARDTANH, &n, 1.5), 1.5, 0);
    KF_CHECK_NEAR(kf_ref_unary1(KF_OP_HARDTANH, &n, 2.5), 2.0, 0);
    n = node_of(KF_OP_CLAMP);
    n.lo = 0.5;                       /* max absent */
    KF_CHECK_NEAR(kf_ref_unary1(KF_OP_CLAMP, &n, 0.0), 0.5, 0);
    KF_CHECK_NEAR(kf_ref_unary1(KF_OP_CLAMP, &n, 1e9), 1e9, 0);
    n.lo = NAN;
    n.hi = -1.0;                      /* min absent */
    KF_CHECK_NEAR(kf_ref_unary1(KF_OP_CLAMP, &n, -1e9), -1e9, 0);
    KF_CHECK_NEAR(kf_ref_unary1(KF_OP_CLAMP, &n, 0.0), -1.0, 0);
}

KF_TEST(simple_unary_ops)
{
    KF_CHECK_NEAR(u1(KF_OP_SIGMOID, 0.5), 0.6224593312018546, TOL);
    KF_CHECK_NEAR(u1(KF_OP_SIGMOID, -800.0), 0.0, 0);
    KF_CHECK_NEAR(u1(KF_OP_SILU, -0.5), -0.1887703343990727, TOL);
    KF_CHECK_NEAR(u1(KF_OP_RELU, -1.0), 0.0, 0);
    KF_CHECK_NEAR(u1(KF_OP_RELU, 2.0), 2.0, 0);
    KF_CHECK_NEAR(u1(KF_OP_TANH, 0.5), 0.46211715726000974, TOL);
    KF_CHECK_NEAR(u1(KF_OP_EXP, 1.0), 2.718281828459045, TOL);
    KF_CHECK_NEAR(u1(KF_OP_LOG, 2.0), 0.6931471805599453, TOL);
    KF_CHECK_NEAR(u1(KF_OP_ABS, -3.0), 3.0, 0);
    KF_CHECK_NEAR(u1(KF_OP_NEG, 3.0), -3.0, 0);
    KF_CHECK_NEAR(u1(KF_OP_SQRT, 2.0), 1.4142135623730951, TOL);
    KF_CHECK_NEAR(u1(KF_OP_RSQRT, 4.0), 0.5, TOL);
    KF_CHECK_NEAR(u1(KF_OP_SQUARE, -3.0), 9.0, 0);
    KF_CHECK_NEAR(u1(KF_OP_IDENTITY, 1.25), 1.25, 0);
    KF_CHECK_NEAR(u1(KF_OP_DROPOUT, 1.25), 1.25, 0);    /* evaluation mode */
}

KF_TEST(unary_array_threads_in_place)
{
    long n = 100003;
    double *x = malloc(sizeof(double) * (size_t)n), *y = malloc(sizeof(double) * (size_t)n);
    for (long i = 0; i < n; i++)
        x[i] = (double)(i % 200) / 10.0 - 10.0;
    kf_node nd = node_of(KF_OP_MISH);
    KF_CHECK_INT(kf_ref_unary(KF_OP_MISH, &nd, x, y, n, 3, NULL), 0);
    KF_CHECK_INT(kf_ref_unary(KF_OP_MISH, &nd, x, x, n, 2, NULL), 0);   /* y aliases x */
    KF_CHECK(memcmp(x, y, sizeof(double) * (size_t)n) == 0);
    KF_CHECK_NEAR(y[110], 0.8650983882673103, TOL);                    /* x = 1.0 */
    kf_error err = {0};
    KF_CHECK_INT(kf_ref_unary(KF_OP_ADD, &nd, x, y, n, 1, &err), -1);
    KF_CHECK_CONTAINS(err.msg, "not a unary");
    free(x);
    free(y);
}

/* -------------------------------------------------------------- binary */

KF_TEST(broadcast_vector_plus_matrix)
{
    /* (3) + (2,3) -> (2,3) */
    kf_shape sa = {1, {3}}, sb = {2, {2, 3}}, sy = {2, {2, 3}};
    double a[] = {10, 20, 30}, b[] = {1, 2, 3, 4, 5, 6}, y[6];
    KF_CHECK_INT(kf_ref_binary(KF_OP_ADD, a, &sa, b, &sb, y, &sy, 1, NULL), 0);
    double want[] = {11, 22, 33, 14, 25, 36};
    for (int i = 0; i < 6; i++)
        KF_CHECK_NEAR(y[i], want[i], 0);
    /* column broadcast: (2,1) * (1,3) -> (2,3) */
    kf_shape sc = {2, {2, 1}}, sr = {2, {1, 3}};
    double c[] = {2, -1}, r[] = {1, 2, 3};
    KF_CHECK_INT(kf_ref_binary(KF_OP_MUL, c, &sc, r, &sr, y, &sy, 2, NULL), 0);
    double want2[] = {2, 4, 6, -1, -2, -3};
    for (int i = 0; i < 6; i++)
        KF_CHECK_NEAR(y[i], want2[i], 0);
}

KF_TEST(scalar_operand_order)
{
    kf_shape ss = {0, {0}}, sx = {1, {3}};
    double two = 2.0, x[] = {0.5, 4, -1}, y[3];
    KF_CHECK_INT(kf_ref_binary(KF_OP_SUB, &two, &ss, x, &sx, y, &sx, 1, NULL), 0);  /* 2 - x */
    KF_CHECK_NEAR(y[0], 1.5, 0);
    KF_CHECK_NEAR(y[1], -2, 0);
    KF_CHECK_NEAR(y[2], 3, 0);
    KF_CHECK_INT(kf_ref_binary(KF_OP_SUB, x, &sx, &two, &ss, y, &sx, 1, NULL), 0);  /* x - 2 */
    KF_CHECK_NEAR(y[0], -1.5, 0);
    KF_CHECK_INT(kf_ref_binary(KF_OP_DIV, &two, &ss, x, &sx, y, &sx, 1, NULL), 0);  /* 2 / x */
    KF_CHECK_NEAR(y[0], 4, 0);
    KF_CHECK_NEAR(y[1], 0.5, 0);
    KF_CHECK_INT(kf_ref_binary(KF_OP_POW, x, &sx, &two, &ss, y, &sx, 1, NULL), 0);
    KF_CHECK_NEAR(y[1], 16, 0);
    KF_CHECK_INT(kf_ref_binary(KF_OP_MINIMUM, x, &sx, &two, &ss, y, &sx, 1, NULL), 0);
    KF_CHECK_NEAR(y[0], 0.5, 0);
    KF_CHECK_NEAR(y[1], 2, 0);
    KF_CHECK_INT(kf_ref_binary(KF_OP_MAXIMUM, &two, &ss, x, &sx, y, &sx, 1, NULL), 0);
    KF_CHECK_NEAR(y[1], 4, 0);
    KF_CHECK_NEAR(y[2], 2, 0);
}

KF_TEST(binary_rejects_bad_broadcast)
{
    kf_shape sa = {1, {3}}, sb = {2, {2, 4}}, sy = {2, {2, 4}};
    double a[3] = {0}, b[8] = {0}, y[8];
    kf_error err = {0};
    KF_CHECK_INT(kf_ref_binary(KF_OP_ADD, a, &sa, b, &sb, y, &sy, 1, &err), -1);
    KF_CHECK_CONTAINS(err.msg, "(3) and (2, 4) do not broadcast to (2, 4)");
}

KF_TEST(maximum_propagates_nan)
{
    kf_shape s = {1, {2}};
    double a[] = {NAN, 1}, b[] = {0, NAN}, y[2];
    KF_CHECK_INT(kf_ref_binary(KF_OP_MAXIMUM, a, &s, b, &s, y, &s, 1, NULL), 0);
    KF_CHECK(isnan(y[0]) && isnan(y[1]));
}

/* ---------------------------------------------------------- reductions */

KF_TEST(reductions_over_each_dim)
{
    kf_shape s = {2, {2, 3}};
    double x[] = {1, 5, 3, -4, 2, 6}, y[3];
    KF_CHECK_INT(kf_ref_reduce(KF_OP_SUM, x, &s, 1, y, 1, NULL), 0);
    KF_CHECK_NEAR(y[0], 9, 0);
    KF_CHECK_NEAR(y[1], 4, 0);
    KF_CHECK_INT(kf_ref_reduce(KF_OP_SUM, x, &s, 0, y, 1, NULL), 0);
    KF_CHECK_NEAR(y[0], -3, 0);
    KF_CHECK_NEAR(y[1], 7, 0);
    KF_CHECK_NEAR(y[2], 9, 0);
    KF_CHECK_INT(kf_ref_reduce(KF_OP_MEAN, x, &s, -1, y, 1, NULL), 0);   /* negative dim */
    KF_CHECK_NEAR(y[0], 3, TOL);
    KF_CHECK_NEAR(y[1], 4.0 / 3.0, TOL);
    KF_CHECK_INT(kf_ref_reduce(KF_OP_AMAX, x, &s, 0, y, 1, NULL), 0);
    KF_CHECK_NEAR(y[0], 1, 0);
    KF_CHECK_NEAR(y[1], 5, 0);
    KF_CHECK_NEAR(y[2], 6, 0);
    KF_CHECK_INT(kf_ref_reduce(KF_OP_AMIN, x, &s, 1, y, 1, NULL), 0);
    KF_CHECK_NEAR(y[0], 1, 0);
    KF_CHECK_NEAR(y[1], -4, 0);
    kf_error err = {0};
    KF_CHECK_INT(kf_ref_reduce(KF_OP_SUM, x, &s, 2, y, 1, &err), -1);
    KF_CHECK_CONTAINS(err.msg, "dim 2 is out of range for shape (2, 3)");
}

KF_TEST(reduce_middle_dim_of_3d)
{
    /* x (2,3,2), sum over dim 1 -> (2,2) */
    kf_shape s = {3, {2, 3, 2}};
    double x[12], y[4];
    for (int i = 0; i < 12; i++)
        x[i] = i;
    KF_CHECK_INT(kf_ref_reduce(KF_OP_SUM, x, &s, 1, y, 2, NULL), 0);
    KF_CHECK_NEAR(y[0], 0 + 2 + 4, 0);
    KF_CHECK_NEAR(y[1], 1 + 3 + 5, 0);
    KF_CHECK_NEAR(y[2], 6 + 8 + 10, 0);
    KF_CHECK_NEAR(y[3], 7 + 9 + 11, 0);
}

KF_TEST(logsumexp_is_stable)
{
    kf_shape s = {1, {2}};
    double x[] = {1000, 1001}, y;
    KF_CHECK_INT(kf_ref_reduce(KF_OP_LOGSUMEXP, x, &s, 0, &y, 1, NULL), 0);
    KF_CHECK(isfinite(y));
    KF_CHECK_NEAR(y, 1001.3132616875182, 1e-12);
    double z[] = {-1000, -1001};
    KF_CHECK_INT(kf_ref_reduce(KF_OP_LOGSUMEXP, z, &s, 0, &y, 1, NULL), 0);
    KF_CHECK_NEAR(y, -999.6867383124818, 1e-12);
    double m[] = {-INFINITY, -INFINITY};
    KF_CHECK_INT(kf_ref_reduce(KF_OP_LOGSUMEXP, m, &s, 0, &y, 1, NULL), 0);
    KF_CHECK(isinf(y) && y < 0);
}

KF_TEST(softmax_large_inputs)
{
    kf_shape s = {2, {2, 3}};
    double x[] = {1000, 1001, 1002, 0, 1, 2}, y[6];
    KF_CHECK_INT(kf_ref_softmax(x, &s, 1, 0, y, 1, NULL), 0);
    for (int r = 0; r < 2; r++) {
        KF_CHECK_NEAR(y[3 * r + 0], 0.09003057317038046, TOL);
        KF_CHECK_NEAR(y[3 * r + 1], 0.24472847105479764, TOL);
        KF_CHECK_NEAR(y[3 * r + 2], 0.6652409557748218, TOL);
        KF_CHECK_NEAR(y[3 * r] + y[3 * r + 1] + y[3 * r + 2], 1.0, 1e-15);
    }
    KF_CHECK_INT(kf_ref_softmax(x, &s, -1, 1, y, 1, NULL), 0);
    KF_CHECK_NEAR(y[0], -2.4076059644443806, 1e-12);
    KF_CHECK_NEAR(y[5], -0.4076059644443804, 1e-12);
    /* over dim 0: columns (1000, 0) -> (1, e^-1000 = 0) */
    KF_CHECK_INT(kf_ref_softmax(x, &s, 0, 0, y, 1, NULL), 0);
    KF_CHECK_NEAR(y[0], 1.0, 0);
    KF_CHECK_NEAR(y[3], 0.0, 0);
}

KF_TEST(softmax_rows_sum_to_one_many_threads)
{
    kf_shape s = {2, {64, 1000}};
    double *x = malloc(sizeof(double) * 64000), *y = malloc(sizeof(double) * 64000);
    for (int i = 0; i < 64000; i++)
        x[i] = 500.0 + (double)((i * 7919) % 1000);
    KF_CHECK_INT(kf_ref_softmax(x, &s, 1, 0, y, 4, NULL), 0);
    for (int r = 0; r < 64; r++) {
        double t = 0;
        for (int i = 0; i < 1000; i++)
            t += y[r * 1000 + i];
        KF_CHECK_NEAR(t, 1.0, 1e-12);
    }
    free(x);
    free(y);
}

/* --------------------------------------------------------------- norms */

static const double LN4[] = {-1.3416354199689269, -0.447211806656309, 0.447211806656309,
                             1.3416354199689269};            /* [1,2,3,4], eps 1e-5 */
static const double LN40[] = {-1.3416407328342457, -0.4472135776114152, 0.4472135776114152,
                              1.3416407328342457};           /* [10,20,30,40] */

KF_TEST(layer_norm_and_rms_norm)
{
    kf_shape s = {2, {2, 4}};
    double x[] = {1, 2, 3, 4, 10, 20, 30, 40}, y[8];
    KF_CHECK_INT(kf_ref_layer_norm(x, &s, 1, NULL, NULL, 1e-5, 0, y, 1, NULL), 0);
    for (int i = 0; i < 4; i++) {
        KF_CHECK_NEAR(y[i], LN4[i], TOL);
        KF_CHECK_NEAR(y[4 + i], LN40[i], TOL);
    }
    /* over both dims: mean 13.75 of all eight values, with weight and bias */
    double w[8], b[8];
    for (int i = 0; i < 8; i++) {
        w[i] = 2;
        b[i] = 1;
    }
    KF_CHECK_INT(kf_ref_layer_norm(x, &s, 2, w, b, 1e-5, 0, y, 1, NULL), 0);
    KF_CHECK_NEAR(y[0], -0.9257438102773368 * 2 + 1, 1e-12);
    double rms[] = {0.3651483687681722, 0.7302967375363444, 1.0954451063045167,
                    1.4605934750726888};
    KF_CHECK_INT(kf_ref_layer_norm(x, &s, 1, NULL, NULL, 1.1920929e-07, 1, y, 1, NULL), 0);
    for (int i = 0; i < 4; i++)
        KF_CHECK_NEAR(y[i], rms[i], TOL);
}

KF_TEST(group_norm_groups_contiguous_channels)
{
    /* x (1, 4, 2): channels [1,2] [3,4] [10,20] [30,40]; 2 groups = channels
     * {0,1} and {2,3}.  Interleaved grouping ({0,2}, {1,3}) gives other numbers. */
    kf_shape s = {3, {1, 4, 2}};
    double x[] = {1, 2, 3, 4, 10, 20, 30, 40}, y[8];
    KF_CHECK_INT(kf_ref_group_norm(x, &s, 2, NULL, NULL, 1e-5, y, 1, NULL), 0);
    for (int i = 0; i < 4; i++) {
        KF_CHECK_NEAR(y[i], LN4[i], TOL);
        KF_CHECK_NEAR(y[4 + i], LN40[i], TOL);
    }
    double w[] = {1, 2, 3, 4}, b[] = {0, 0.5, 0, -1};
    double want[] = {-1.3416354199689269, -0.447211806656309, 1.394423613312618,
                     3.1832708399378538, -4.024922198502737, -1.3416407328342457,
                     0.7888543104456609, 4.366562931336983};
    KF_CHECK_INT(kf_ref_group_norm(x, &s, 2, w, b, 1e-5, y, 2, NULL), 0);
    for (int i = 0; i < 8; i++)
        KF_CHECK_NEAR(y[i], want[i], TOL);
    /* (N, C) input: each row's C channels in G groups */
    kf_shape s2 = {2, {2, 4}};
    KF_CHECK_INT(kf_ref_group_norm(x, &s2, 1, NULL, NULL, 1e-5, y, 1, NULL), 0);
    for (int i = 0; i < 4; i++)
        KF_CHECK_NEAR(y[i], LN4[i], TOL);
    kf_error err = {0};
    KF_CHECK_INT(kf_ref_group_norm(x, &s, 3, NULL, NULL, 1e-5, y, 1, &err), -1);
    KF_CHECK_CONTAINS(err.msg, "3 groups do not divide C = 4");
}

KF_TEST(instance_norm_per_channel)
{
    kf_shape s = {2, {2, 4}};   /* unbatched (C, L) */
    double x[] = {1, 2, 3, 4, 10, 20, 30, 40}, y[8];
    KF_CHECK_INT(kf_ref_instance_norm(x, &s, NULL, NULL, 1e-5, y, 1, NULL), 0);
    for (int i = 0; i < 4; i++) {
        KF_CHECK_NEAR(y[i], LN4[i], TOL);
        KF_CHECK_NEAR(y[4 + i], LN40[i], TOL);
    }
    kf_shape s3 = {3, {2, 1, 4}};
    KF_CHECK_INT(kf_ref_instance_norm(x, &s3, NULL, NULL, 1e-5, y, 2, NULL), 0);
    KF_CHECK_NEAR(y[7], LN40[3], TOL);
}

KF_TEST(batch_norm_training_biased_variance)
{
    /* (N=4, C=2): channel 0 = 1,2,3,4; channel 1 = 10..40 */
    kf_shape s = {2, {4, 2}};
    double x[] = {1, 10, 2, 20, 3, 30, 4, 40}, y[8];
    KF_CHECK_INT(kf_ref_batch_norm(x, &s, NULL, NULL, NULL, NULL, 1, 1e-5, y, 1, NULL), 0);
    for (int n = 0; n < 4; n++) {
        KF_CHECK_NEAR(y[2 * n], LN4[n], TOL);
        KF_CHECK_NEAR(y[2 * n + 1], LN40[n], TOL);
    }
    KF_CHECK(fabs(y[0] - -1.1618915181928988) > 0.1);   /* what the unbiased variance gives */
    /* (N=2, C=2, L=2): same channel contents spread over N and L */
    kf_shape s3 = {3, {2, 2, 2}};
    double x3[] = {1, 2, 10, 20, 3, 4, 30, 40};
    KF_CHECK_INT(kf_ref_batch_norm(x3, &s3, NULL, NULL, NULL, NULL, 1, 1e-5, y, 2, NULL), 0);
    double want[] = {LN4[0], LN4[1], LN40[0], LN40[1], LN4[2], LN4[3], LN40[2], LN40[3]};
    for (int i = 0; i < 8; i++)
        KF_CHECK_NEAR(y[i], want[i], TOL);
}

KF_TEST(batch_norm_eval_running_stats)
{
    kf_shape s = {2, {1, 2}};
    double x[] = {3, 2.5}, rm[] = {1, 2}, rv[] = {4, 0.25}, w[] = {2, 1}, b[] = {0, 1}, y[2];
    KF_CHECK_INT(kf_ref_batch_norm(x, &s, w, b, rm, rv, 0, 1e-5, y, 1, NULL), 0);
    KF_CHECK_NEAR(y[0], 1.9999975000046875, TOL);
    KF_CHECK_NEAR(y[1], 1.99998000059998, TOL);
    kf_error err = {0};
    KF_CHECK_INT(kf_ref_batch_norm(x, &s, w, b, NULL, NULL, 0, 1e-5, y, 1, &err), -1);
    KF_CHECK_CONTAINS(err.msg, "running_mean");
}

/* ------------------------------------------------------------- pooling */

KF_TEST(pool1d_stride_and_padding)
{
    kf_shape sx = {2, {2, 6}}, sy = {2, {2, 3}};
    double x[] = {1, 5, 2, 8, 3, 7, -1, -5, -2, -8, -3, -7}, y[6];
    /* k=3, s=2, p=1: windows [-1..1], [1..3], [3..5] */
    KF_CHECK_INT(kf_ref_pool1d(KF_OP_MAX_POOL1D, x, &sx, 3, 2, 1, y, &sy, 1, NULL), 0);
    KF_CHECK_NEAR(y[0], 5, 0);
    KF_CHECK_NEAR(y[1], 8, 0);
    KF_CHECK_NEAR(y[2], 8, 0);
    KF_CHECK_NEAR(y[3], -1, 0);     /* padding is -inf, not 0 */
    KF_CHECK_NEAR(y[4], -2, 0);
    KF_CHECK_NEAR(y[5], -3, 0);
    KF_CHECK_INT(kf_ref_pool1d(KF_OP_AVG_POOL1D, x, &sx, 3, 2, 1, y, &sy, 1, NULL), 0);
    KF_CHECK_NEAR(y[0], 2, TOL);    /* (0 + 1 + 5) / 3: padding counted */
    KF_CHECK_NEAR(y[1], 5, TOL);
    KF_CHECK_NEAR(y[2], 6, TOL);
    KF_CHECK_NEAR(y[3], -2, TOL);
    /* k=2, stride 2, no padding */
    KF_CHECK_INT(kf_ref_pool1d(KF_OP_MAX_POOL1D, x, &sx, 2, 2, 0, y, &sy, 1, NULL), 0);
    KF_CHECK_NEAR(y[0], 5, 0);
    KF_CHECK_NEAR(y[1], 8, 0);
    KF_CHECK_NEAR(y[2], 7, 0);
    KF_CHECK_INT(kf_ref_pool1d(KF_OP_AVG_POOL1D, x, &sx, 2, 2, 0, y, &sy, 1, NULL), 0);
    KF_CHECK_NEAR(y[0], 3, 0);
    KF_CHECK_NEAR(y[1], 5, 0);
    KF_CHECK_NEAR(y[2], 5, 0);
    kf_shape bad = {2, {2, 4}};
    kf_error err = {0};
    KF_CHECK_INT(kf_ref_pool1d(KF_OP_MAX_POOL1D, x, &sx, 2, 2, 0, y, &bad, 1, &err), -1);
    KF_CHECK_CONTAINS(err.msg, "last dim must be 3");
}

int main(void)
{
    return kf_test_main();
}
