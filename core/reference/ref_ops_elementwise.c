/*
 * ref_ops_elementwise.c — unary activations and broadcasting binary ops in
 * double precision, PyTorch semantics (problems/FORMAT.md).
 */
#include <config.h>

#include <math.h>

#include "ref_internal.h"

#define ELEM_MIN_PER_THREAD 32768

/* SELU constants as in PyTorch (torch/nn/functional.py). */
static const double SELU_ALPHA = 1.6732632423543772848170429916717;
static const double SELU_SCALE = 1.0507009873554804934193349852946;

/* log(1 + exp(z)) without overflow. */
static double softplus1(double z)
{
    return (z > 0 ? z : 0.0) + log1p(exp(-fabs(z)));
}

static double sigmoid1(double x)
{
    if (x >= 0)
        return 1.0 / (1.0 + exp(-x));
    double e = exp(x);
    return e / (1.0 + e);
}

double kf_ref_unary1(kf_op op, const kf_node *node, double x)
{
    switch (op) {
    case KF_OP_RELU:
        return x > 0 || isnan(x) ? x : 0.0;
    case KF_OP_SIGMOID:
        return sigmoid1(x);
    case KF_OP_TANH:
        return tanh(x);
    case KF_OP_EXP:
        return exp(x);
    case KF_OP_LOG:
        return log(x);
    case KF_OP_ABS:
        return fabs(x);
    case KF_OP_NEG:
        return -x;
    case KF_OP_SQRT:
        return sqrt(x);
    case KF_OP_RSQRT:
        return 1.0 / sqrt(x);
    case KF_OP_SQUARE:
        return x * x;
    case KF_OP_SELU:
        return x > 0 ? SELU_SCALE * x : SELU_SCALE * SELU_ALPHA * expm1(x);
    case KF_OP_MISH:
        return x * tanh(softplus1(x));
    case KF_OP_HARDSWISH: {
        double r = x + 3.0;
        r = r < 0 ? 0 : (r > 6 ? 6 : r);
        return x * r / 6.0;
    }
    case KF_OP_IDENTITY:
    case KF_OP_DROPOUT:          /* evaluation mode */
        return x;
    case KF_OP_SILU:
        return x * sigmoid1(x);
    case KF_OP_GELU:
        if (node->gelu_tanh) {
            const double k = 0.79788456080286535587989211986876;   /* sqrt(2/pi) */
            return 0.5 * x * (1.0 + tanh(k * (x + 0.044715 * x * x * x)));
        }
        return 0.5 * x * (1.0 + erf(x * 0.70710678118654752440084436210485));
    case KF_OP_LEAKY_RELU:
        return x > 0 ? x : node->alpha * x;
    case KF_OP_HARDTANH:
        if (isnan(x))
            return x;
        return x < node->lo ? node->lo : (x > node->hi ? node->hi : x);
    case KF_OP_CLAMP:
        if (isnan(x))
            return x;
        if (!isnan(node->lo) && x < node->lo)
            x = node->lo;
        if (!isnan(node->hi) && x > node->hi)
            x = node->hi;
        return x;
    case KF_OP_SOFTPLUS: {
        double bx = node->alpha * x;          /* alpha = beta, beta = threshold */
        return bx > node->beta ? x : softplus1(bx) / node->alpha;
    }
    case KF_OP_ELU:
        return x > 0 ? x : node->alpha * expm1(x);
    default:
        return NAN;
    }
}

typedef struct unary_job {
    kf_op op;
    const kf_node *node;
    const double *x;
    double *y;
} unary_job;

static void unary_range(void *ctx, long begin, long end)
{
    const unary_job *j = ctx;
    for (long i = begin; i < end; i++)
        j->y[i] = kf_ref_unary1(j->op, j->node, j->x[i]);
}

int kf_ref_unary(kf_op op, const kf_node *node, const double *x, double *y, int64_t n,
                 int n_threads, kf_error *err)
{
    if (op < KF_OP_RELU || op > KF_OP_DROPOUT)
        return kf_fail(err, KF_E_BAD_INPUT, "reference: op %d is not a unary elementwise op", (int)op);
    unary_job j = {op, node, x, y};
    kf_parallel((long)n, ELEM_MIN_PER_THREAD, n_threads, unary_range, &j);
    return 0;
}

/* ------------------------------------------------------------ binary */

static inline double binary1(kf_op op, double a, double b)
{
    switch (op) {
    case KF_OP_ADD:
        return a + b;
    case KF_OP_SUB:
        return a - b;
    case KF_OP_MUL:
        return a * b;
    case KF_OP_DIV:
        return a / b;
    case KF_OP_MAXIMUM:
        return isnan(a) || isnan(b) ? NAN : (a > b ? a : b);
    case KF_OP_MINIMUM:
        return isnan(a) || isnan(b) ? NAN : (a < b ? a : b);
    case KF_OP_POW:
        return pow(a, b);
    default:
        return NAN;
    }
}

typedef struct binary_job {
    kf_op op;
    const double *a, *b;
    double *y;
    int rank;                       /* output rank, >= 1 */
    int64_t d[KF_MAX_RANK];         /* output dims */
    int64_t sta[KF_MAX_RANK];       /* element strides of a per output dim (0: broadcast) */
    int64_t stb[KF_MAX_RANK];
    int64_t inner;                  /* d[rank-1] */
} binary_job;

/* Rows of the output (all dims but the last). */
static void binary_rows(void *ctx, long begin, long end)
{
    const binary_job *j = ctx;
    int last = j->rank - 1;
    int64_t ia = j->sta[last], ib = j->stb[last];
    for (long r = begin; r < end; r++) {
        int64_t rem = r, oa = 0, ob = 0;
        for (int k = last - 1; k >= 0; k--) {
            int64_t idx = rem % j->d[k];
            rem /= j->d[k];
            oa += idx * j->sta[k];
            ob += idx * j->stb[k];
        }
        const double *pa = j->a + oa, *pb = j->b + ob;
        double *py = j->y + (int64_t)r * j->inner;
        for (int64_t i = 0; i < j->inner; i++)
            py[i] = binary1(j->op, pa[i * ia], pb[i * ib]);
    }
}

/* Flat case: each operand is either the full output shape or one value. */
static void binary_flat(void *ctx, long begin, long end)
{
    const binary_job *j = ctx;
    int64_t ia = j->sta[0], ib = j->stb[0];
    for (long i = begin; i < end; i++)
        j->y[i] = binary1(j->op, j->a[i * ia], j->b[i * ib]);
}

static int set_strides(const kf_shape *s, const kf_shape *sy, int64_t *st)
{
    int off = sy->rank - s->rank;
    if (off < 0)
        return -1;
    int64_t stride = 1;
    for (int k = sy->rank - 1; k >= 0; k--) {
        int ks = k - off;
        if (ks < 0) {
            st[k] = 0;
            continue;
        }
        if (s->d[ks] != sy->d[k] && s->d[ks] != 1)
            return -1;
        st[k] = s->d[ks] == 1 ? 0 : stride;
        stride *= s->d[ks];
    }
    return 0;
}

int kf_ref_binary(kf_op op, const double *a, const kf_shape *sa, const double *b,
                  const kf_shape *sb, double *y, const kf_shape *sy, int n_threads,
                  kf_error *err)
{
    char s1[96], s2[96], s3[96];
    if (op < KF_OP_ADD || op > KF_OP_POW)
        return kf_fail(err, KF_E_BAD_INPUT, "reference: op %d is not a binary op", (int)op);
    binary_job j = {.op = op, .a = a, .b = b, .y = y};
    int64_t n = kf_ref_elems(sy);
    if (sy->rank == 0) {
        if (kf_ref_elems(sa) != 1 || kf_ref_elems(sb) != 1)
            goto bad;
        y[0] = binary1(op, a[0], b[0]);
        return 0;
    }
    j.rank = sy->rank;
    for (int k = 0; k < sy->rank; k++)
        j.d[k] = sy->d[k];
    if (set_strides(sa, sy, j.sta) < 0 || set_strides(sb, sy, j.stb) < 0)
        goto bad;
    j.inner = sy->d[sy->rank - 1];
    int64_t na = kf_ref_elems(sa), nb = kf_ref_elems(sb);
    if ((na == n || na == 1) && (nb == n || nb == 1)) {
        j.sta[0] = na == 1 ? 0 : 1;
        j.stb[0] = nb == 1 ? 0 : 1;
        kf_parallel((long)n, ELEM_MIN_PER_THREAD, n_threads, binary_flat, &j);
        return 0;
    }
    long rows = j.inner ? (long)(n / j.inner) : 0;
    long min_rows = j.inner >= ELEM_MIN_PER_THREAD ? 1 : (long)(ELEM_MIN_PER_THREAD / j.inner);
    kf_parallel(rows, min_rows, n_threads, binary_rows, &j);
    return 0;
bad:
    return kf_fail(err, KF_E_BAD_INPUT, "binary op: shapes %s and %s do not broadcast to %s",
                   kf_ref_shape_str(sa, s1, sizeof s1), kf_ref_shape_str(sb, s2, sizeof s2),
                   kf_ref_shape_str(sy, s3, sizeof s3));
}
