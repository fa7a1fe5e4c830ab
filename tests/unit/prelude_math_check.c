/* prelude_math_check.c — the C prelude's float math against glibc's double
 * math, compiled by test_builtin's c_prelude_math_against_libm case with
 * the cpu-simd plugin's flags (so GCC vectorises the loops as it does in a
 * kernel) after the prelude text, written to kf_prelude.h beside it.
 *
 * Each function is evaluated twice over the same inputs: in a loop GCC
 * vectorises (`omp simd`, as the kernels' loops) and one value at a time
 * through a noinline call (the scalar code).  Inputs: a dense sweep of each
 * function's interesting range, every float exponent from tiny to huge with
 * both signs, and the special values (±0, ±inf, NaN, the edges of exp's
 * float range).  Error: |got - want| <= atol + rtol |want| with want the
 * double result; where that rounds to NaN or inf in float, got must be NaN
 * or the same inf.
 * Prints one line per function (worst error in ulps of want, the largest
 * error as a share of its bound, count of failures) and exits 1 if any check failed. */
#include "kf_prelude.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N_MAX 400000

static float xs[N_MAX], vec[N_MAX], sca[N_MAX];
static int n_x;

static void add(float x) { if (n_x < N_MAX) xs[n_x++] = x; }

static void inputs(float lo, float hi, int dense)
{
    n_x = 0;
    for (int i = 0; i <= dense; i++) add(lo + (hi - lo) * (float)i / (float)dense);
    for (int e = -149; e <= 127; e++)
        for (int m = 0; m < 8; m++) {
            float v = ldexpf(1.0f + (float)m / 8.0f, e);
            add(v);
            add(-v);
        }
    const float sp[] = {0.0f, -0.0f, INFINITY, -INFINITY, NAN, -NAN, 88.0f, 88.5f, 88.72f, 88.73f,
                        89.0f, -87.0f, -87.5f, -88.0f, -100.0f, -103.0f, -104.0f, -110.0f,
                        FLT_MIN, -FLT_MIN, FLT_MAX, -FLT_MAX, 1e-30f, -1e-30f, 0.5f, -0.5f};
    for (size_t i = 0; i < sizeof sp / sizeof sp[0]; i++) add(sp[i]);
}

typedef struct {
    const char *name;
    float lo, hi;          /* dense sweep */
    double atol, rtol;
} fn_spec;

#define DEF(NAME, EXPR_F, EXPR_D)                                                            \
    static void vec_##NAME(const float *restrict x, float *restrict y, int n)               \
    {                                                                                        \
        _Pragma("omp simd")                                                                  \
        for (int i = 0; i < n; i++) y[i] = EXPR_F(x[i]);                                     \
    }                                                                                        \
    static __attribute__((noinline)) float sca_##NAME(float v) { return EXPR_F(v); }        \
    static double ref_##NAME(double v) { return EXPR_D; }

static double gelu_d(double x) { return 0.5 * x * (1.0 + erf(x / sqrt(2.0))); }
static double gelu_tanh_d(double x)
{
    return 0.5 * x * (1.0 + tanh(0.79788456080286536 * (x + 0.044715 * x * x * x)));
}
static double softplus_d(double x) { return x > 20.0 ? x : log1p(exp(x)); }
static double mish_d(double x) { return x * tanh(softplus_d(x)); }
static float softplus_f(float x) { return kf_softplus(x, 1.0f, 20.0f); }
static float elu_f(float x) { return kf_elu(x, 1.0f); }

DEF(exp, kf__exp, exp(v))
DEF(expm1, kf__expm1, expm1(v))
DEF(log, kf__log, log(v))
DEF(log1p, kf__log1p, log1p(v))
DEF(tanh, kf__tanh, tanh(v))
DEF(erf, kf__erf, erf(v))
DEF(sigmoid, kf_sigmoid, 1.0 / (1.0 + exp(-v)))
DEF(silu, kf_silu, v / (1.0 + exp(-v)))
DEF(gelu, kf_gelu, gelu_d(v))
DEF(gelu_tanh, kf_gelu_tanh, gelu_tanh_d(v))
/* the block forms' element functions: the table's one-float form where the blocks read
 * a table (both GELUs with AVX-512 and GCC, the erf GELU with AVX2 + FMA), else the
 * element forms themselves */
#if defined(KF__GELU_LOOP)
#define gelu_blk kf_gelu
#else
static float gelu_blk(float x) { return kf__gelu_q1(x, kf__q_gelu); }
#endif
#if defined(KF__GELU_TANH_LOOP)
#define gelu_tanh_blk kf_gelu_tanh
#else
static float gelu_tanh_blk(float x) { return kf__gelu_q1(x, kf__q_gelu_tanh); }
#endif
DEF(gelu_block, gelu_blk, gelu_d(v))
DEF(gelu_tanh_block, gelu_tanh_blk, gelu_tanh_d(v))
DEF(softplus, softplus_f, softplus_d(v))
DEF(mish, kf_mish, mish_d(v))
DEF(elu, elu_f, v > 0 ? v : expm1(v))
DEF(selu, kf_selu, 1.0507009873554805 * (v > 0 ? v : 1.6732632423543772 * expm1(v)))

typedef struct {
    fn_spec s;
    void (*vec)(const float *, float *, int);
    float (*sca)(float);
    double (*ref)(double);
} fn;

#define FN(NAME, LO, HI, ATOL, RTOL) {{#NAME, LO, HI, ATOL, RTOL}, vec_##NAME, sca_##NAME, ref_##NAME}

/* the relative error kf_row_exp_sum's terms e^(x - m) may have: the
 * polynomial's (with the vector helper 1.1e-7 measured near 0) and t =
 * (x - m) log2(e) rounded once to float (2^-24 |t| ln 2 = 6e-8 |x - m|; the
 * float x - m of a plain softmax has the same), log2(e)'s float, and c =
 * -m log2(e) rounded once (6e-8 |m|, a factor common to the row) */
static double exp16_rtol(double d, double m)
{
    return 2.5e-7 + 1e-7 * ((isfinite(d) ? fabs(d) : 0.0) + (isfinite(m) ? fabs(m) : 0.0));
}

/* kf_row_max, kf_row_exp_sum, the online softmax's kf_row_exp_block_online
 * and kf_row_block_factors, and kf_row_moments (AVX-512 or AVX2 intrinsics where the CPU has
 * them): every exp stored against exp() in double, the sum against the double sum, the online
 * outputs against e^(x - m) / sum, over row lengths around the vector, unroll and 256-term
 * block edges; rows with -inf (exp 0), one NaN (sum NaN), all -inf, a max that rises block by
 * block and a first block of -inf. */
static int check_rows(void)
{
    static const int64_t lens[] = {0, 1, 15, 16, 17, 31, 32, 33, 63, 64, 65, 255, 256, 257, 1000, 16384, 16397};
    static float x[16400], ex[16400], exb[16400];
    int bad = 0;
    for (size_t li = 0; li < sizeof lens / sizeof lens[0]; li++) {
        int64_t n = lens[li];
        for (int kind = 0; kind < 6; kind++) {
            for (int64_t k = 0; k < n; k++) x[k] = (float)((k * 7919) % 2003) / 97.0f - 10.0f;
            if (kind == 1 && n > 3) x[n / 3] = -INFINITY, x[n - 1] = -INFINITY;
            if (kind == 2 && n > 0) x[n / 2] = NAN;
            if (kind == 3) for (int64_t k = 0; k < n; k++) x[k] = -INFINITY;
            if (kind == 4) for (int64_t k = 0; k < n; k++) x[k] = 30.0f * (float)k / (float)n - 10.0f;   /* the max rises block by block */
            if (kind == 5) for (int64_t k = 0; k < n && k < 70; k++) x[k] = -INFINITY;   /* a first block of -inf */
            double mw = -INFINITY;
            for (int64_t k = 0; k < n; k++) if (x[k] > mw) mw = x[k];
            float m = kf_row_max(x, n);
            if (m != (float)mw) { printf("  kf_row_max: n %lld kind %d: %g, want %g\n", (long long)n, kind, m, mw); bad++; }
            double s = kf_row_exp_sum(x, m, ex, n, NULL), sw = 0.0;
            double s2 = kf_row_exp_sum(x, m, NULL, n, x);   /* prefetching the row itself: same sums */
            for (int64_t k = 0; k < n; k++) {
                double e = exp((double)x[k] - (double)m);
                sw += e;
                int ok = isnan(e) ? isnan(ex[k]) : fabs(ex[k] - e) <= 1e-38 + exp16_rtol(x[k] - m, m) * e;
                if (!ok && bad++ < 3) printf("  kf_row_exp_sum: n %lld kind %d: ex[%lld] = %g, want %g\n", (long long)n, kind, (long long)k, ex[k], e);
            }
            int ok = isnan(sw) ? isnan(s) && isnan(s2) : fabs(s - sw) <= (1e-6 + exp16_rtol(0.0, m)) * sw && s2 == s;
            if (!ok) { printf("  kf_row_exp_sum: n %lld kind %d: sum %.9g / %.9g, want %.9g\n", (long long)n, kind, s, s2, sw); bad++; }
            /* the online softmax: kf_row_exp_block_online a block of up to 64 at a time, the
             * row's max found as it goes, then kf_row_block_factors (the block maxes padded
             * with -inf to 16): each output exb[k] f[k / 64] against e^(x - m) / sum */
            static float mbo[272], fo[272];
            const int64_t nb = (n + 63) / 64, nbp = (nb + 15) / 16 * 16;
            float mo = -INFINITY;
            double so = 0.0;
            for (int64_t j = nb; j < nbp; j++) mbo[j] = -INFINITY;
            for (int64_t k = 0; k < n; k += 64)
                mbo[k / 64] = kf_row_exp_block_online(x + k, &mo, &so, exb + k, n - k < 64 ? n - k : 64, k + 64 < n ? x + k + 64 : NULL);
            if (mo != m) { printf("  kf_row_exp_block_online: n %lld kind %d: max %g, want %g\n", (long long)n, kind, mo, m); bad++; }
            kf_row_block_factors(mbo, mo, (float)(1.0 / so), fo, nbp);
            for (int64_t k = 0; k < n; k++) {
                const double y = (double)exb[k] * fo[k / 64], want = exp((double)x[k] - (double)m) / sw;
                int yok = isnan(want) ? isnan(y) : fabs(y - want) <= 1e-38 + (2.0 * exp16_rtol(x[k] - m, m) + 2e-6) * want;
                if (!yok && bad++ < 3)
                    printf("  kf_row_exp_block_online: n %lld kind %d: y[%lld] = %g, want %g\n", (long long)n, kind, (long long)k, y, want);
            }
            if (kind != 0) continue;
            /* kf_row_moments about 0, x[0] and an offset mean (the rows
             * shifted by 1000: the float differences stay exact-ish) */
            for (int64_t k = 0; k < n; k++) x[k] += 1000.0f;
            const float cs[3] = {0.0f, n ? x[0] : 0.0f, 1000.37f};
            for (int ci = 0; ci < 3; ci++) {
                double ms, mq, ws = 0.0, wq = 0.0;
                kf_row_moments(x, n, cs[ci], &ms, &mq, ci == 2 ? x : NULL);
                for (int64_t k = 0; k < n; k++) { double d = (double)x[k] - cs[ci]; ws += d; wq += d * d; }
                if (fabs(ms - ws) > 1e-6 * (fabs(ws) + 1e-3 * wq + 1.0) || fabs(mq - wq) > 1e-6 * wq + 1e-30) {
                    printf("  kf_row_moments: n %lld c %g: %.9g %.9g, want %.9g %.9g\n", (long long)n, cs[ci], ms, mq, ws, wq);
                    bad++;
                }
            }
        }
    }
    /* kf_chan_join over rows far from 0 whose means differ (row k about
     * 1e4 + 0.5 k, spread 1: the rows' own spreads and the spread of their
     * means are of the same size), each row's sums about its own
     * kf_row_shift taken by kf_row_moments and, a block of up to 64 at a
     * time, by kf_moments_block: the combined mean and sum of squared
     * deviations as a two-pass double computation gives them (float sums
     * about 0 lose the spread entirely, dropping the between-rows term
     * loses half of it); row lengths with and without a tail, and one
     * whose first float is an outlier 50 spreads off */
    static const int64_t clens[] = {1, 17, 64, 1000, 16384, 16397};
    for (size_t li = 0; li < sizeof clens / sizeof clens[0] * 2; li++) {
        const int64_t n = clens[li / 2], rows = 6;
        const int outlier = li % 2;
        double mu = 0.0, m2 = 0.0, bmu = 0.0, bm2 = 0.0, wm = 0.0, wq = 0.0;
        for (int64_t k = 0; k < rows; k++) {
            for (int64_t j = 0; j < n; j++) x[j] = 1e4f + 0.5f * (float)k + (float)((j * 7919 + k * 31) % 2003) / 1001.5f - 1.0f;
            if (outlier) x[0] += 50.0f;
            const float c = kf_row_shift(x, n);
            double s, q;
            kf_row_moments(x, n, c, &s, &q, NULL);
            kf_chan_join(s, q, c, n, k, &mu, &m2);
            double as[8] __attribute__((aligned(64))) = {0}, aq[8] __attribute__((aligned(64))) = {0};
            for (int64_t j = 0; j < n; j += 64) kf_moments_block(x + j, n - j < 64 ? n - j : 64, c, as, aq);
            kf_chan_join(kf_sum_lanes(as), kf_sum_lanes(aq), c, n, k, &bmu, &bm2);
            for (int64_t j = 0; j < n; j++) wm += x[j];
        }
        wm /= (double)(rows * n);
        for (int64_t k = 0; k < rows; k++)
            for (int64_t j = 0; j < n; j++) {
                double d = (double)(1e4f + 0.5f * (float)k + (float)((j * 7919 + k * 31) % 2003) / 1001.5f - 1.0f +
                                    (outlier && j == 0 ? 50.0f : 0.0f)) - wm;
                wq += d * d;
            }
        if (fabs(mu - wm) > 1e-9 * fabs(wm) + 1e-12 || fabs(m2 - wq) > 1e-6 * wq ||
            fabs(bmu - wm) > 1e-9 * fabs(wm) + 1e-12 || fabs(bm2 - wq) > 1e-6 * wq) {
            printf("  kf_chan_join: n %lld%s: mean %.12g / %.12g m2 %.12g / %.12g, want %.12g %.12g\n", (long long)n,
                   outlier ? " (outlier first)" : "", mu, bmu, m2, bm2, wm, wq);
            bad++;
        }
    }
    /* the vector exp over the whole float range (m = 0): overflow, the
     * denormals, underflow, ±inf and NaN.  AVX2's kf__exp8 takes only the
     * row helpers' terms (x - m <= 0, or +inf): 0 under 2^-126.5 (an absolute
     * error under 1.2e-38) and inf from 2^127.5 (x > 88.37) */
    inputs(-110.0f, 90.0f, 200000);
    kf_row_exp_sum(xs, 0.0f, vec, n_x, NULL);
#if !defined(__AVX512F__) && defined(__AVX2__) && defined(__FMA__)
    const double flush = 1.2e-38, inf_from = 88.37;
#else
    const double flush = 1e-45, inf_from = INFINITY;
#endif
    for (int i = 0; i < n_x; i++) {
        double e = exp((double)xs[i]);
        float want = (float)e;
        double tol = flush + exp16_rtol(xs[i], 0.0f) * e;
        /* at the overflow edge either side of FLT_MAX is within the error */
        int ok = isnan(e) ? isnan(vec[i])
               : isinf(vec[i]) && xs[i] > inf_from ? vec[i] > 0.0f
               : isinf(want) || isinf(vec[i]) ? vec[i] == want || fabs((double)FLT_MAX - e) <= tol
               : fabs(vec[i] - e) <= tol;
        if (!ok && bad++ < 6) printf("  kf_row_exp_sum: exp(%.9g) = %.9g, want %.9g\n", xs[i], vec[i], want);
    }
    printf("rows       %d failed\n", bad);
    return bad;
}

/* kf_gelu_block and kf_gelu_tanh_block (a streamed map's block buffer, in place) give
 * their element function's bits (gelu_blk through a noinline call and in an `omp simd`
 * loop; main checks it against the double GELUs) at every length 0..67 from every
 * offset 0..15 of a 64-byte-aligned buffer, NaN, ±inf and ±0 among the inputs, and
 * leave the floats past the end alone; over the dense sweep of inputs() too. */
static int check_blocks(void)
{
    static float buf[96] __attribute__((aligned(64))), in[96], lane[96];
    static const float sp[] = {NAN, INFINITY, -INFINITY, 0.0f, -0.0f, 5.9f, -5.9f, 1e-40f, 5.6f, -5.6f, 5.5999994f, -5.5999994f};
    int bad = 0;
    for (int f = 0; f < 2; f++)
        for (int off = 0; off < 16; off++)
            for (int n = 0; n <= 67; n++) {
                for (int i = 0; i < 80; i++) {
                    float x = -13.0f + 26.0f * (float)((i * 37 + off * 11 + n * 5) % 1009) / 1008.0f;
                    if ((i + n) % 13 == 0) x = sp[(i + off) % (int)(sizeof sp / sizeof sp[0])];
                    in[i] = buf[off + i] = x;
                }
                if (f) vec_gelu_tanh_block(in, lane, n); else vec_gelu_block(in, lane, n);
                if (f) kf_gelu_tanh_block(buf + off, n); else kf_gelu_block(buf + off, n);
                for (int i = 0; i < 80; i++) {
                    float want = i < n ? (f ? sca_gelu_tanh_block(in[i]) : sca_gelu_block(in[i])) : in[i];
                    float got = buf[off + i];
                    int same = memcmp(&got, &want, sizeof got) == 0 && (i >= n || memcmp(&got, &lane[i], sizeof got) == 0);
                    if (!same && bad++ < 6)
                        printf("  kf_gelu%s_block: n %d off %d [%d] of %.9g: %.9g, element form %.9g, in a loop %.9g\n",
                               f ? "_tanh" : "", n, off, i, in[i], got, want, i < n ? lane[i] : want);
                }
            }
    /* and over the dense sweep: the block, the loop and the call agree bit for bit */
    inputs(-13.0f, 13.0f, 200000);
    for (int f = 0; f < 2; f++) {
        memcpy(sca, xs, sizeof(float) * (size_t)n_x);
        if (f) { vec_gelu_tanh_block(xs, vec, n_x); kf_gelu_tanh_block(sca, n_x); }
        else { vec_gelu_block(xs, vec, n_x); kf_gelu_block(sca, n_x); }
        for (int i = 0; i < n_x; i++) {
            float one = f ? sca_gelu_tanh_block(xs[i]) : sca_gelu_block(xs[i]);
            if ((memcmp(&one, &vec[i], sizeof one) || memcmp(&one, &sca[i], sizeof one)) && bad++ < 6)
                printf("  gelu%s of %.9g: call %.9g, loop %.9g, block %.9g\n", f ? "_tanh" : "", xs[i], one, vec[i], sca[i]);
        }
    }
#ifdef KF__Q_STREAM
    /* kf__q_stream (a streamed map's full block, its GELU stored from the registers): the
     * in-place block's bits at n = 16, 32, 48, 64 into a destination at every offset 0..15
     * (streamed when aligned, plain stores else), the source left as it was and nothing
     * written past n */
    static float src[64] __attribute__((aligned(64))), ref[64], dst[96] __attribute__((aligned(64)));
    for (int f = 0; f < 2; f++)
        for (int off = 0; off < 16; off++)
            for (int n = 16; n <= 64; n += 16) {
                for (int i = 0; i < 64; i++) {
                    float x = -13.0f + 26.0f * (float)((i * 53 + off * 7 + n * 3) % 1013) / 1012.0f;
                    if ((i + off) % 11 == 0) x = sp[(i + n) % (int)(sizeof sp / sizeof sp[0])];
                    ref[i] = src[i] = x;
                }
                for (int i = 0; i < 96; i++) dst[i] = -7.0f;
                if (f) { kf__q_stream(dst + off, src, n, kf__q_gelu_tanh); kf_gelu_tanh_block(ref, n); }
                else { kf__q_stream(dst + off, src, n, kf__q_gelu); kf_gelu_block(ref, n); }
                _mm_sfence();
                for (int i = 0; i < 80; i++) {
                    float want = i >= off && i < off + n ? ref[i - off] : -7.0f;
                    if (memcmp(&dst[i], &want, sizeof want) && bad++ < 6)
                        printf("  kf__q_stream%s: n %d off %d [%d]: %.9g, want %.9g\n", f ? " (tanh)" : "", n, off, i,
                               dst[i], want);
                }
                for (int i = 0; i < 64; i++) {
                    float x = -13.0f + 26.0f * (float)((i * 53 + off * 7 + n * 3) % 1013) / 1012.0f;
                    if ((i + off) % 11 == 0) x = sp[(i + n) % (int)(sizeof sp / sizeof sp[0])];
                    if (memcmp(&src[i], &x, sizeof x) && bad++ < 6) printf("  kf__q_stream changed its source at [%d]\n", i);
                }
            }
#endif
    printf("blocks     %d failed\n", bad);
    return bad;
}

int main(void)
{
    /* Bounds: a few ulps relative (rtol) plus an absolute floor where the
     * function passes through 0 or the formula cancels (erf's A-S 7.1.26:
     * 1.5e-7 absolute; expm1/log1p near their switch points). */
    const fn fns[] = {
        FN(exp, -104.0f, 89.0f, 1e-45, 4e-7),
        FN(expm1, -20.0f, 20.0f, 1e-37, 4e-7),
        FN(log, 1e-6f, 1e6f, 1e-37, 4e-7),
        FN(log1p, -0.999f, 100.0f, 1e-37, 4e-7),
        FN(tanh, -12.0f, 12.0f, 1e-37, 5e-7),
        FN(erf, -6.0f, 6.0f, 3e-7, 4e-7),
        FN(sigmoid, -104.0f, 104.0f, 1.2e-38, 5e-7),   /* 1 / (1 + inf) = 0 under 1e-38, as PyTorch */
        /* x / (1 + e^-x) and 0.5 x (1 + tanh(..)) in float, as PyTorch
         * computes them: 0 where the true value is under 1e-36 / 1e-7 */
        FN(silu, -104.0f, 104.0f, 1e-36, 5e-7),
        FN(gelu, -12.0f, 12.0f, 3e-7, 5e-7),
        FN(gelu_tanh, -12.0f, 12.0f, 1e-7, 1e-6),
        FN(gelu_block, -12.0f, 12.0f, 3e-7, 5e-7),
        FN(gelu_tanh_block, -12.0f, 12.0f, 1e-7, 1e-6),
        FN(softplus, -104.0f, 40.0f, 1e-37, 5e-7),
        FN(mish, -30.0f, 30.0f, 1e-36, 1e-6),
        FN(elu, -104.0f, 20.0f, 1e-37, 4e-7),
        FN(selu, -104.0f, 20.0f, 1e-37, 4e-7),
    };
    int bad_total = check_rows() + check_blocks();
    for (size_t f = 0; f < sizeof fns / sizeof fns[0]; f++) {
        const fn *F = &fns[f];
        inputs(F->s.lo, F->s.hi, 200000);
        F->vec(xs, vec, n_x);
        for (int i = 0; i < n_x; i++) sca[i] = F->sca(xs[i]);
        int bad = 0;
        double worst = 0.0, share = 0.0;   /* ulps; the largest error over its bound */
        float worst_x = 0.0f, share_x = 0.0f;
        for (int i = 0; i < n_x; i++) {
            double wd = F->ref((double)xs[i]);
            float want = (float)wd;
            for (int k = 0; k < 2; k++) {
                float got = k ? sca[i] : vec[i];
                int ok;
                if (isnan(want)) ok = isnan(got);
                else if (isinf(want)) ok = got == want;
                else if (!isfinite(got)) ok = 0;
                else {
                    double bound = F->s.atol + F->s.rtol * fabs(wd), e = fabs((double)got - wd);
                    ok = e <= bound;
                    if (e / bound > share) { share = e / bound; share_x = xs[i]; }
                }
                if (!isnan(want) && isfinite(got) && want != 0.0f) {
                    double ulps = fabs((double)got - wd) / (nextafterf(fabsf(want), INFINITY) - fabsf(want));
                    if (ulps > worst) { worst = ulps; worst_x = xs[i]; }
                }
                if (!ok) {
                    if (bad < 3)
                        printf("  %s(%.9g) = %.9g (%s), want %.9g\n", F->s.name, xs[i], got,
                               k ? "scalar" : "vector", want);
                    bad++;
                }
            }
        }
        printf("%-10s %d inputs, worst %.1f ulp at %.9g, %.2f of the bound at %.9g, %d failed\n", F->s.name,
               n_x, worst, worst_x, share, share_x, bad);
        bad_total += bad;
    }
    printf("%s\n", bad_total ? "FAILED" : "ok");
    return bad_total != 0;
}
