/* builtin_prelude.c — the op functions as source text (one body, two
 * dialects), the dialect-neutral map-op expressions, and the small string
 * builder the generators write with (see builtin.h). */
#include "builtin.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ */
/* string builder                                                      */


char *kf_bt_flit(double v, char buf[48])
{
    if (isnan(v)) { strcpy(buf, "NAN"); return buf; }
    if (isinf(v)) { strcpy(buf, v > 0 ? "INFINITY" : "(-INFINITY)"); return buf; }
    char t[40];
    snprintf(t, sizeof t, "%.9g", v);
    if (!strpbrk(t, ".eEn")) strcat(t, ".0");
    snprintf(buf, 48, "%s%sf%s", v < 0 ? "(" : "", t, v < 0 ? ")" : "");
    return buf;
}

/* ------------------------------------------------------------------ */
/* the prelude                                                         */

/* The C dialect gets vectorisable float versions of exp, expm1, log1p,
 * tanh and erf (Cephes-style range reduction + polynomials, ~1e-7
 * relative error; erf: Abramowitz-Stegun 7.1.26, |error| < 1.5e-7): glibc's
 * scalar calls do not vectorise without -ffast-math, and PyTorch's eager
 * CPU kernels use vectorised (Sleef) math too.  NaN propagates; exp
 * covers the whole float range (denormal results, inf above 88.72), log
 * takes denormal inputs.  Bounds checked by test_builtin's
 * c_prelude_math_against_libm (tests/unit/prelude_math_check.c): at most
 * 1 ulp for exp, 3.3 for expm1, 10 for erf near 0.5, on this VM. */
static const char C_HEAD[] =
    "/* ---- kforge builtin prelude (C): one function per op, PyTorch semantics ---- */\n"
    "#include <math.h>\n"
    "#include <stdint.h>\n"
    "#include <string.h>\n"
    "/* FP exception flags are never read here: let GCC if-convert and vectorise\n"
    " * (values, NaN and inf are unchanged; this is not -ffast-math) */\n"
    "#pragma GCC optimize (\"no-trapping-math\")\n"
    "/* GCC's tuning for these CPUs vectorises with 256-bit registers where the\n"
    " * code has no intrinsics; the elementwise tails (exp, divisions) run at\n"
    " * half the width then (2-core Xeon, AMX GEMM + Mish Mish: 13% slower) */\n"
    "#if defined(__AVX512F__) && defined(__GNUC__) && !defined(__clang__)\n"
    "#pragma GCC target (\"prefer-vector-width=512\")\n"
    "#endif\n"
    "#define KF_FN static inline __attribute__((unused))\n"
    "typedef union { float f; int32_t i; } kf__pun;\n"
    "KF_FN float kf__bits2f(int32_t i) { kf__pun u; u.i = i; return u.f; }\n"
    "KF_FN int32_t kf__f2bits(float f) { kf__pun u; u.f = f; return u.i; }\n"
    "/* e^r for x = n ln2 + r, |r| <= ln2/2, by a degree-6 polynomial; *n_out: n */\n"
    "KF_FN float kf__exp_r(float xc, int32_t *n_out)\n"
    "{\n"
    "    float t = xc * 1.44269504088896341f + 12582912.0f;   /* n in t's low bits (1.5 2^23) */\n"
    "    float n = t - 12582912.0f;\n"
    "    float r = xc - n * 0.693359375f + n * 2.12194440e-4f;\n"
    "    float p = 1.9875691500e-4f;\n"
    "    p = p * r + 1.3981999507e-3f;\n"
    "    p = p * r + 8.3334519073e-3f;\n"
    "    p = p * r + 4.1665795894e-2f;\n"
    "    p = p * r + 1.6666665459e-1f;\n"
    "    p = p * r + 5.0000001201e-1f;\n"
    "    *n_out = kf__f2bits(t) - 0x4B400000;\n"
    "    return p * r * r + r + 1.0f;\n"
    "}\n"
    "/* e^x: e^r times 2^n as 2^h 2^(n-h), h = n/2, through the exponent bits (each factor\n"
    " * a normal float, so the products overflow to inf and underflow through the denormals\n"
    " * to 0 as e^x does); NaN stays */\n"
    "KF_FN float kf__exp(float x)\n"
    "{\n"
    "    float xc = x < -104.0f ? -104.0f : x;\n"
    "    xc = xc > 89.0f ? 89.0f : xc;\n"
    "    int32_t ni;   /* n, in [-150, 129] */\n"
    "    float y = kf__exp_r(xc, &ni);\n"
    "    int32_t h = ni >> 1;\n"
    "    y *= kf__bits2f((int32_t)((uint32_t)(h + 127) << 23));\n"
    "    return y * kf__bits2f((int32_t)((uint32_t)(ni - h + 127) << 23));\n"
    "}\n"
    "/* e^xc for xc in [-86, 89] (or NaN): n in [-124, 128], so 2^n is one normal factor,\n"
    " * 2 2^(n-1): one scaling instead of kf__exp's two; above 88.72 the product overflows to inf */\n"
    "KF_FN float kf__exp_1s(float xc)\n"
    "{\n"
    "    int32_t ni;\n"
    "    float y = kf__exp_r(xc, &ni);\n"
    "    return (y + y) * kf__bits2f((int32_t)((uint32_t)(ni + 126) << 23));\n"
    "}\n"
    "/* e^x for terms that are added to 1 or multiply a bounded factor (sigmoid, silu, the\n"
    " * GELUs, tanh, erf): x under -86 is taken as -86 (4.5e-38 where e^x is smaller or a\n"
    " * denormal); overflow to inf and NaN as e^x */\n"
    "KF_FN float kf__exp_sat(float x)\n"
    "{\n"
    "    float xc = x < -86.0f ? -86.0f : x;\n"
    "    return kf__exp_1s(xc > 89.0f ? 89.0f : xc);\n"
    "}\n"
    "/* kf__exp_sat for x <= 0 (or NaN): the lower clamp only (gcc turns the two clamps into\n"
    " * three compares and two blends; one costs a compare and a blend: GELU's loop 9-14% less) */\n"
    "KF_FN float kf__exp_neg(float x) { return kf__exp_1s(x < -86.0f ? -86.0f : x); }\n"
    "/* kf__exp_1s where about 1e-7 relative is enough (the GELUs: Phi(-|x|) under 1/2 times x,\n"
    " * x / (1 + e)): one ln 2 step (n ln 2 rounded once: n 1.9e-9 more in r) and a degree-5\n"
    " * polynomial fitted on |r| <= ln2/2 (1.1e-7 before float rounding); three FMAs fewer\n"
    " * (degree 6: 26 and 88 2-6% slower in a harness on the 2-core Zen 4).  xc in [-86, 89] */\n"
    "KF_FN float kf__exp_1l(float xc)\n"
    "{\n"
    "    float t = xc * 1.44269504088896341f + 12582912.0f;\n"
    "    float n = t - 12582912.0f;\n"
    "    float r = xc - n * 0.693147182464599609375f;\n"
    "    float p = 8.3125010133e-3f;\n"
    "    p = p * r + 4.1890330613e-2f;\n"
    "    p = p * r + 1.6667115688e-1f;\n"
    "    p = p * r + 4.9999231100e-1f;\n"
    "    float y = p * r * r + r + 1.0f;\n"
    "    int32_t ni = kf__f2bits(t) - 0x4B400000;   /* n, in [-124, 128] */\n"
    "    return (y + y) * kf__bits2f((int32_t)((uint32_t)(ni + 126) << 23));\n"
    "}\n"
    "KF_FN float kf__exp_negl(float x) { return kf__exp_1l(x < -86.0f ? -86.0f : x); }\n"
    "KF_FN float kf__exp_satl(float x)\n"
    "{\n"
    "    float xc = x < -86.0f ? -86.0f : x;\n"
    "    return kf__exp_1l(xc > 89.0f ? 89.0f : xc);\n"
    "}\n"
    "KF_FN float kf__expm1(float x)\n"
    "{   /* small |x|: the series avoids the cancellation of exp(x) - 1 */\n"
    "    float s = x * (1.0f + x * (0.5f + x * (0.166666667f + x * (0.0416666667f + x * (0.00833333333f\n"
    "              + x * (1.38888889e-3f + x * 1.98412698e-4f))))));   /* to x^7: 4e-10 at |x| = 0.25 */\n"
    "    float l = kf__exp(x) - 1.0f;\n"
    "    float ax = x < 0.0f ? -x : x;\n"
    "    return ax < 0.25f ? s : l;\n"
    "}\n"
    "/* log(u), u > 0: u = m 2^e, m in [sqrt(1/2), sqrt(2)), Cephes logf polynomial;\n"
    " * the tests are on the bits (integer compares never trap, so loops vectorise) */\n"
    "KF_FN float kf__log(float x)\n"
    "{\n"
    "    int32_t bits0 = kf__f2bits(x);\n"
    "    int32_t sub = (bits0 & 0x7f800000) == 0;                   /* denormal (or zero): times 2^23 */\n"
    "    float xn = x * 8388608.0f;\n"
    "    int32_t bits = sub ? kf__f2bits(xn) : bits0;\n"
    "    int32_t e = ((bits >> 23) & 0xff) - 126 - (sub ? 23 : 0);\n"
    "    float m = kf__bits2f((bits & 0x007fffff) | 0x3f000000);   /* [0.5, 1) */\n"
    "    int32_t small = (bits & 0x007fffff) < 0x003504f3;          /* m < sqrt(1/2) */\n"
    "    float m2 = m + m - 1.0f, m1 = m - 1.0f;\n"
    "    e -= small;\n"
    "    m = small ? m2 : m1;\n"
    "    float z = m * m;\n"
    "    float p = 7.0376836292e-2f;\n"
    "    p = p * m - 1.1514610310e-1f;\n"
    "    p = p * m + 1.1676998740e-1f;\n"
    "    p = p * m - 1.2420140846e-1f;\n"
    "    p = p * m + 1.4249322787e-1f;\n"
    "    p = p * m - 1.6668057665e-1f;\n"
    "    p = p * m + 2.0000714765e-1f;\n"
    "    p = p * m - 2.4999993993e-1f;\n"
    "    p = p * m + 3.3333331174e-1f;\n"
    "    float y = m * z * p - 0.5f * z + m + (float)e * 0.693147180559945f;\n"
    "    int32_t mag = bits0 & 0x7fffffff;\n"
    "    y = mag >= 0x7f800000 ? x : y;                  /* +inf, NaN */\n"
    "    y = (bits0 < 0) & (mag != 0) ? NAN : y;         /* negative */\n"
    "    y = mag == 0 ? -INFINITY : y;                   /* zero */\n"
    "    return (mag > 0x7f800000) ? x : y;\n"
    "}\n"
    "KF_FN float kf__log1p(float x)\n"
    "{   /* log(1+x) * x / ((1+x) - 1) corrects the rounding of 1+x */\n"
    "    float u = 1.0f + x;\n"
    "    float d = u - 1.0f;\n"
    "    float y = kf__log(u);\n"
    "    float c = y * (x / d);\n"
    "    c = u == INFINITY ? y : c;\n"
    "    return d == 0.0f ? x : c;\n"
    "}\n"
    "KF_FN float kf__tanh(float x)\n"
    "{\n"
    "    float ax = x < 0.0f ? -x : x;\n"
    "    float z = x * x;\n"
    "    float p = -5.70498872745e-3f;\n"
    "    p = p * z + 2.06390887954e-2f;\n"
    "    p = p * z - 5.37397155531e-2f;\n"
    "    p = p * z + 1.33314422036e-1f;\n"
    "    p = p * z - 3.33332819422e-1f;\n"
    "    float small = x + x * z * p;\n"
    "    float big = 1.0f - 2.0f / (kf__exp_sat(2.0f * ax) + 1.0f);\n"
    "    big = x < 0.0f ? -big : big;\n"
    "    return ax < 0.625f ? small : big;\n"
    "}\n"
    "KF_FN float kf__erf(float x)\n"
    "{\n"
    "    float ax = x < 0.0f ? -x : x;\n"
    "    float t = 1.0f / (1.0f + 0.3275911f * ax);\n"
    "    float p = 1.061405429f;\n"
    "    p = p * t - 1.453152027f;\n"
    "    p = p * t + 1.421413741f;\n"
    "    p = p * t - 0.284496736f;\n"
    "    p = p * t + 0.254829592f;\n"
    "    float y = 1.0f - p * t * kf__exp_neg(-ax * ax);\n"
    "    y = x < 0.0f ? -y : y;\n"
    "    float z = x * x;   /* |x| < 0.5: the Taylor series keeps the relative error small */\n"
    "    float s = x * (1.12837916709551257f + z * (-0.376126389031837524f + z * (0.112837916709551257f\n"
    "              + z * (-0.0268661706451312518f + z * 0.00522397762544218784f))));\n"
    "    return ax < 0.5f ? s : y;\n"
    "}\n"
    "#define kf__sqrt sqrtf\n#define kf__fabs fabsf\n#define kf__pow powf\n"
    "/* the body's forms; the C dialect's follow the body */\n"
    "#define kf_mish kf__mish_generic\n#define kf_sigmoid kf__sigmoid_generic\n#define kf_silu kf__silu_generic\n"
    "#define kf_gelu kf__gelu_generic\n#define kf_gelu_tanh kf__gelu_tanh_generic\n";

/* The C dialect's mish, after the body: tanh(softplus(x)) = ((1+e)^2 - 1) /
 * ((1+e)^2 + 1) with e = exp(x), so mish(x) = x * n / (n + 2), n = e (e + 2):
 * one vectorised exp and one division instead of exp, log1p and tanh (a
 * second exp and division); no cancellation for x < 0 (n ~ 2e), and for x
 * >= 20 the ratio is 1 in float (softplus's threshold), so e is taken at
 * min(x, 20) and never overflows.
 * Its sigmoid, silu and GELUs likewise: one kf__exp_sat or kf__exp_neg (one
 * scaling by 2^n) and one division each; GELU as x Phi(x) with Phi(-|x|) = erfc(|x|/sqrt 2)/2
 * (no series branch, no cancellation for x < 0), the tanh GELU as
 * x / (1 + e^(-2u)).  On the 2-core Xeon, GELU's map over 1024 x 16384 took
 * 0.69-0.73x the time of the body's forms at 2 threads, the tanh GELU
 * 0.66-0.67x (bench/results/xeon2-cpu-gelu-2026-11-29). */
static const char C_TAIL[] =
    "/* ---- the C dialect's mish, sigmoid, silu and GELUs (replace the body's) ---- */\n"
    "#undef kf_mish\n"
    "KF_FN float kf_mish(float x)\n"
    "{   /* x tanh(softplus(x)) = x n / (n + 2), n = e^x (e^x + 2) */\n"
    "    float e = kf__exp(x < 20.0f ? x : 20.0f);\n"
    "    float n = e * (e + 2.0f);\n"
    "    return x * (n / (n + 2.0f));\n"
    "}\n"
    "#undef kf_sigmoid\n#undef kf_silu\n#undef kf_gelu\n#undef kf_gelu_tanh\n"
    "KF_FN float kf_sigmoid(float x) { return 1.0f / (1.0f + kf__exp_sat(-x)); }\n"
    "KF_FN float kf_silu(float x) { return x / (1.0f + kf__exp_sat(-x)); }\n"
    "/* x Phi(x), Phi(-|x|) = erfc(|x| / sqrt 2) / 2 by A-S 7.1.26 (the erf of kf__erf, its\n"
    " * coefficients halved and 0.3275911 / sqrt 2): no cancellation in 1 + erf for x < 0,\n"
    " * no series for small |x| (Phi is near 1/2 there), one polynomial */\n"
    "KF_FN float kf_gelu(float x)\n"
    "{\n"
    "    float ax = x < 0.0f ? -x : x;\n"
    "    float t = 1.0f / (1.0f + 0.2316418883f * ax);\n"
    "    float p = 0.5307027145f;\n"
    "    p = p * t - 0.7265760135f;\n"
    "    p = p * t + 0.7107068705f;\n"
    "    p = p * t - 0.142248368f;\n"
    "    p = p * t + 0.127414796f;\n"
    "    float q = p * t * kf__exp_negl(-0.5f * x * x);   /* Phi(-|x|) */\n"
    "    return x * (x < 0.0f ? q : 1.0f - q);\n"
    "}\n"
    "/* 0.5 x (1 + tanh(u)) = x / (1 + e^(-2u)), u = sqrt(2/pi) (x + 0.044715 x^3): one exp\n"
    " * and one division, no cancellation for x < 0; x = -inf gives NaN as the tanh form */\n"
    "KF_FN float kf_gelu_tanh(float x)\n"
    "{\n"
    "    float v = x * (-1.59576912160573072f - 0.0713548162726f * (x * x));   /* -2u */\n"
    "    return x / (1.0f + kf__exp_satl(v));\n"
    "}\n"
    "/* ---- row helpers: the hot loops of softmax, logsumexp and norm rows ---- */\n"
    "#if defined(__AVX512F__)\n"
    "#include <immintrin.h>\n"
    "/* e^x for 16 floats (softmax's and logsumexp's terms): one ln 2 step, as in\n"
    " * kf__exp_1l, and a degree-6 polynomial, two FMAs fewer than kf__exp's (23 Softmax 5-8%\n"
    " * faster on the 2-core Zen 4): 1.2e-7 relative on [-20, 0], 3.1e-7 at the ends\n"
    " * of [-104, 89] (8.3e-8 before), the scaling by 2^n in vscalefps\n"
    " * (correct overflow, underflow and denormals); NaN stays */\n"
    "static inline __m512 kf__exp16(__m512 x)\n"
    "{\n"
    "    x = _mm512_max_ps(_mm512_set1_ps(-104.0f), x);   /* NaN: the second operand */\n"
    "    x = _mm512_min_ps(_mm512_set1_ps(89.0f), x);\n"
    "    const __m512 big = _mm512_set1_ps(12582912.0f);   /* 1.5 2^23: rounds to nearest */\n"
    "    __m512 n = _mm512_sub_ps(_mm512_fmadd_ps(x, _mm512_set1_ps(1.44269504088896341f), big), big);\n"
    "    __m512 r = _mm512_fnmadd_ps(n, _mm512_set1_ps(0.693147182464599609375f), x);\n"
    "    __m512 p = _mm512_set1_ps(1.3814622071e-3f);\n"
    "    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(8.3687100559e-3f));\n"
    "    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(4.1668388993e-2f));\n"
    "    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.6666521132e-1f));\n"
    "    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(4.9999994040e-1f));\n"
    "    __m512 y = _mm512_add_ps(_mm512_fmadd_ps(p, _mm512_mul_ps(r, r), r), _mm512_set1_ps(1.0f));\n"
    "    return _mm512_scalef_ps(y, n);\n"
    "}\n"
    "#endif\n"
    "/* max of x[0..n) ignoring NaN (a NaN row gives NaN through the sum), -inf if empty */\n"
    "KF_FN float kf_row_max(const float *restrict x, int64_t n)\n"
    "{\n"
    "    float m = -INFINITY;\n"
    "    int64_t k = 0;\n"
    "#if defined(__AVX512F__)\n"
    "    __m512 m0 = _mm512_set1_ps(-INFINITY), m1 = m0, m2 = m0, m3 = m0;\n"
    "    for (const int64_t nv = n & ~(int64_t)63; k < nv; k += 64) {   /* vmaxps(x, m): m where x is NaN */\n"
    "        m0 = _mm512_max_ps(_mm512_loadu_ps(x + k), m0);\n"
    "        m1 = _mm512_max_ps(_mm512_loadu_ps(x + k + 16), m1);\n"
    "        m2 = _mm512_max_ps(_mm512_loadu_ps(x + k + 32), m2);\n"
    "        m3 = _mm512_max_ps(_mm512_loadu_ps(x + k + 48), m3);\n"
    "    }\n"
    "    m = _mm512_reduce_max_ps(_mm512_max_ps(_mm512_max_ps(m0, m1), _mm512_max_ps(m2, m3)));\n"
    "    for (; k < n; k++) m = x[k] > m ? x[k] : m;\n"
    "#else\n"
    "    #pragma omp simd reduction(max:m)\n"
    "    for (int64_t j = 0; j < n; j++) m = x[j] > m ? x[j] : m;\n"
    "    (void)k;\n"
    "#endif\n"
    "    return m;\n"
    "}\n"
    "/* sum of e^(x[k] - m) over x[0..n), each term also stored in ex[k] unless ex\n"
    " * is NULL; float partial sums of at most 256 terms, added in double.  next:\n"
    " * the n floats to be read after these (the next row), prefetched into L2 while\n"
    " * the exps are computed (the max pass reads them from memory otherwise, with\n"
    " * no arithmetic to overlap), or NULL */\n"
    "KF_FN double kf_row_exp_sum(const float *restrict x, float m, float *restrict ex, int64_t n,\n"
    "                            const float *next)\n"
    "{\n"
    "    double s = 0.0;\n"
    "    int64_t k = 0;\n"
    "#if defined(__AVX512F__)\n"
    "    const __m512 vm = _mm512_set1_ps(m);\n"
    "    __m512d d0 = _mm512_setzero_pd(), d1 = d0;\n"
    "    while (k + 16 <= n) {\n"
    "        __m512 a0 = _mm512_setzero_ps(), a1 = a0;\n"
    "        const int64_t end = k + 256 < n ? k + 256 : n;\n"
    "        for (; k + 32 <= end; k += 32) {\n"
    "            if (next) { _mm_prefetch((const char *)(next + k), _MM_HINT_T1); _mm_prefetch((const char *)(next + k + 16), _MM_HINT_T1); }\n"
    "            __m512 e0 = kf__exp16(_mm512_sub_ps(_mm512_loadu_ps(x + k), vm));\n"
    "            __m512 e1 = kf__exp16(_mm512_sub_ps(_mm512_loadu_ps(x + k + 16), vm));\n"
    "            if (ex) { _mm512_storeu_ps(ex + k, e0); _mm512_storeu_ps(ex + k + 16, e1); }\n"
    "            a0 = _mm512_add_ps(a0, e0);\n"
    "            a1 = _mm512_add_ps(a1, e1);\n"
    "        }\n"
    "        for (; k + 16 <= end; k += 16) {\n"
    "            __m512 e0 = kf__exp16(_mm512_sub_ps(_mm512_loadu_ps(x + k), vm));\n"
    "            if (ex) _mm512_storeu_ps(ex + k, e0);\n"
    "            a0 = _mm512_add_ps(a0, e0);\n"
    "        }\n"
    "        a0 = _mm512_add_ps(a0, a1);\n"
    "        d0 = _mm512_add_pd(d0, _mm512_cvtps_pd(_mm512_castps512_ps256(a0)));\n"
    "        d1 = _mm512_add_pd(d1, _mm512_cvtps_pd(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(a0), 1))));\n"
    "    }\n"
    "    s = _mm512_reduce_add_pd(_mm512_add_pd(d0, d1));\n"
    "    for (; k < n; k++) { float e = kf_exp(x[k] - m); if (ex) ex[k] = e; s += e; }\n"
    "#else\n"
    "    (void)k;\n"
    "    (void)next;\n"
    "    if (ex) {\n"
    "        #pragma omp simd reduction(+:s)\n"
    "        for (int64_t j = 0; j < n; j++) { ex[j] = kf_exp(x[j] - m); s += ex[j]; }\n"
    "    } else {\n"
    "        #pragma omp simd reduction(+:s)\n"
    "        for (int64_t j = 0; j < n; j++) s += kf_exp(x[j] - m);\n"
    "    }\n"
    "#endif\n"
    "    return s;\n"
    "}\n"
    "/* kf_row_exp_sum over one block of n <= 64 terms, each stored in ex[k]: the\n"
    " * pipelined softmax's loop (one block of a row's exps beside one block of the\n"
    " * last row's streamed stores); the block's float sum, in double.  next: the n\n"
    " * floats to be read after these (the next row's block), prefetched into L2, or NULL */\n"
    "KF_FN double kf_row_exp_block(const float *restrict x, float m, float *restrict ex, int64_t n,\n"
    "                              const float *next)\n"
    "{\n"
    "    if (next)\n"
    "        for (int64_t k = 0; k < n; k += 16) __builtin_prefetch((const void *)(next + k), 0, 2);\n"
    "#if defined(__AVX512F__)\n"
    "    if (n == 64) {\n"
    "        const __m512 vm = _mm512_set1_ps(m);\n"
    "        __m512 e0 = kf__exp16(_mm512_sub_ps(_mm512_loadu_ps(x), vm));\n"
    "        __m512 e1 = kf__exp16(_mm512_sub_ps(_mm512_loadu_ps(x + 16), vm));\n"
    "        __m512 e2 = kf__exp16(_mm512_sub_ps(_mm512_loadu_ps(x + 32), vm));\n"
    "        __m512 e3 = kf__exp16(_mm512_sub_ps(_mm512_loadu_ps(x + 48), vm));\n"
    "        _mm512_storeu_ps(ex, e0);\n"
    "        _mm512_storeu_ps(ex + 16, e1);\n"
    "        _mm512_storeu_ps(ex + 32, e2);\n"
    "        _mm512_storeu_ps(ex + 48, e3);\n"
    "        return (double)_mm512_reduce_add_ps(_mm512_add_ps(_mm512_add_ps(e0, e1), _mm512_add_ps(e2, e3)));\n"
    "    }\n"
    "#endif\n"
    "    float s = 0.0f;\n"
    "    #pragma omp simd reduction(+:s)\n"
    "    for (int64_t k = 0; k < n; k++) { ex[k] = kf_exp(x[k] - m); s += ex[k]; }\n"
    "    return (double)s;\n"
    "}\n"
    "/* *s_out = sum of (x[k] - c), *q_out = sum of (x[k] - c)^2 over x[0..n): float sums\n"
    " * of at most 8 terms a lane (four accumulators, blocks of 512), added in double;\n"
    " * a norm's statistics with c a shift near the mean (x[0], or the mean of a first\n"
    " * pass: then sum (x - mean)^2 = q - s^2 / n exactly).  next: as kf_row_exp_sum's; the row's\n"
    " * own next page is prefetched as it goes (the hardware's streamer stops at page boundaries) */\n"
    "KF_FN void kf_row_moments(const float *restrict x, int64_t n, float c, double *s_out, double *q_out,\n"
    "                          const float *next)\n"
    "{\n"
    "    double s = 0.0, q = 0.0;\n"
    "#if defined(__AVX512F__)\n"
    "    int64_t k = 0;\n"
    "    const __m512 vc = _mm512_set1_ps(c);\n"
    "    __m512d ds = _mm512_setzero_pd(), dq = ds;\n"
    "    for (const int64_t nv = n & ~(int64_t)63; k < nv;) {\n"
    "        __m512 s0 = _mm512_setzero_ps(), s1 = s0, s2 = s0, s3 = s0, q0 = s0, q1 = s0, q2 = s0, q3 = s0;\n"
    "        for (const int64_t end = k + 512 < nv ? k + 512 : nv; k < end; k += 64) {\n"
    "            if (next)\n"
    "                for (int j = 0; j < 64; j += 16) _mm_prefetch((const char *)(next + k + j), _MM_HINT_T1);\n"
    "            _mm_prefetch((const char *)((uintptr_t)(x + k) + 4096), _MM_HINT_T0);   /* the next page */\n"
    "            __m512 d0 = _mm512_sub_ps(_mm512_loadu_ps(x + k), vc), d1 = _mm512_sub_ps(_mm512_loadu_ps(x + k + 16), vc);\n"
    "            __m512 d2 = _mm512_sub_ps(_mm512_loadu_ps(x + k + 32), vc), d3 = _mm512_sub_ps(_mm512_loadu_ps(x + k + 48), vc);\n"
    "            s0 = _mm512_add_ps(s0, d0); s1 = _mm512_add_ps(s1, d1); s2 = _mm512_add_ps(s2, d2); s3 = _mm512_add_ps(s3, d3);\n"
    "            q0 = _mm512_fmadd_ps(d0, d0, q0); q1 = _mm512_fmadd_ps(d1, d1, q1);\n"
    "            q2 = _mm512_fmadd_ps(d2, d2, q2); q3 = _mm512_fmadd_ps(d3, d3, q3);\n"
    "        }\n"
    "        s0 = _mm512_add_ps(_mm512_add_ps(s0, s1), _mm512_add_ps(s2, s3));\n"
    "        q0 = _mm512_add_ps(_mm512_add_ps(q0, q1), _mm512_add_ps(q2, q3));\n"
    "        ds = _mm512_add_pd(ds, _mm512_add_pd(_mm512_cvtps_pd(_mm512_castps512_ps256(s0)),\n"
    "                                             _mm512_cvtps_pd(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(s0), 1)))));\n"
    "        dq = _mm512_add_pd(dq, _mm512_add_pd(_mm512_cvtps_pd(_mm512_castps512_ps256(q0)),\n"
    "                                             _mm512_cvtps_pd(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(q0), 1)))));\n"
    "    }\n"
    "    s = _mm512_reduce_add_pd(ds);\n"
    "    q = _mm512_reduce_add_pd(dq);\n"
    "    for (; k < n; k++) { double d = (double)x[k] - c; s += d; q += d * d; }\n"
    "#else\n"
    "    (void)next;\n"
    "    #pragma omp simd reduction(+:s, q)\n"
    "    for (int64_t j = 0; j < n; j++) { double d = (double)x[j] - c; s += d; q += d * d; }\n"
    "#endif\n"
    "    *s_out = s;\n"
    "    *q_out = q;\n"
    "}\n"
    "/* Chan's update over rows of n floats: row k (the first is 0), whose plain sum is s0, joins\n"
    " * the running mean *mu and sum of squared deviations *m2 of rows 0..k-1; the row is read\n"
    " * again about its own mean s0 / n (from cache: it was just read), so the statistics do not\n"
    " * depend on how far apart the rows' means are */\n"
    "KF_FN void kf_chan_row(const float *restrict x, int64_t n, double s0, int64_t k, double *mu, double *m2)\n"
    "{\n"
    "    double s, q;\n"
    "    const float c = (float)(s0 / (double)n);   /* the shift the deviations are taken from */\n"
    "    kf_row_moments(x, n, c, &s, &q, NULL);\n"
    "    const double d = (double)c + s / (double)n - *mu;\n"
    "    *mu += d / (double)(k + 1);\n"
    "    *m2 += (q - s * s / (double)n) + d * d * (double)n * (double)k / (double)(k + 1);\n"
    "}\n"
    "/* the sum of x[0..n), n <= 64, added to the 8 double lanes of acc (64-byte aligned,\n"
    " * zeroed by the caller; kf_sum_lanes totals them): a float sum of the block, then\n"
    " * double.  Large-group GroupNorm takes the next group's sum block by block in the\n"
    " * current group's output loop, its first group's the same way: the same sums\n"
    " * whichever thread starts where */\n"
    "KF_FN void kf_sum_block(const float *restrict x, int64_t n, double *restrict acc)\n"
    "{\n"
    "#if defined(__AVX512F__)\n"
    "    if (n == 64) {\n"
    "        __m512 t = _mm512_add_ps(_mm512_add_ps(_mm512_loadu_ps(x), _mm512_loadu_ps(x + 16)),\n"
    "                                 _mm512_add_ps(_mm512_loadu_ps(x + 32), _mm512_loadu_ps(x + 48)));\n"
    "        __m512d d = _mm512_add_pd(_mm512_cvtps_pd(_mm512_castps512_ps256(t)),\n"
    "                                  _mm512_cvtps_pd(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(t), 1))));\n"
    "        _mm512_store_pd(acc, _mm512_add_pd(_mm512_load_pd(acc), d));\n"
    "        return;\n"
    "    }\n"
    "#endif\n"
    "    float s = 0.0f;\n"
    "    #pragma omp simd reduction(+:s)\n"
    "    for (int64_t k = 0; k < n; k++) s += x[k];\n"
    "    acc[0] += (double)s;\n"
    "}\n"
    "KF_FN double kf_sum_lanes(const double *acc)\n"
    "{\n"
    "    return ((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7]));\n"
    "}\n";

static const char OCL_HEAD[] =
    "/* ---- kforge builtin prelude (OpenCL C): one function per op, PyTorch semantics ---- */\n"
    "#define KF_FN\n"
    "#define kf__exp exp\n#define kf__expm1 expm1\n#define kf__log log\n"
    "#define kf__log1p log1p\n#define kf__erf erf\n#define kf__tanh tanh\n"
    "#define kf__sqrt sqrt\n#define kf__fabs fabs\n#define kf__pow pow\n";

/* Shared body: valid C and OpenCL C once the head's macros are defined.
 * Both arms of a select are computed before it, so that GCC can if-convert
 * and vectorise the loops that call these (it never speculates a
 * floating-point operation that C evaluates conditionally). */
static const char BODY[] =
    "KF_FN float kf_add(float a, float b) { return a + b; }\n"
    "KF_FN float kf_sub(float a, float b) { return a - b; }\n"
    "KF_FN float kf_mul(float a, float b) { return a * b; }\n"
    "KF_FN float kf_div(float a, float b) { return a / b; }\n"
    "KF_FN float kf_max(float a, float b) { float y = a > b ? a : b; return a != a ? a : y; }  /* torch.maximum: NaN wins */\n"
    "KF_FN float kf_min(float a, float b) { float y = a < b ? a : b; return a != a ? a : y; }\n"
    "KF_FN float kf_pow(float a, float b) { return kf__pow(a, b); }\n"
    "KF_FN float kf_identity(float x) { return x; }              /* also dropout (eval mode) */\n"
    "KF_FN float kf_relu(float x) { float y = x > 0.0f ? x : 0.0f; return x != x ? x : y; }\n"
    "KF_FN float kf_sigmoid(float x) { return 1.0f / (1.0f + kf__exp(-x)); }\n"
    "KF_FN float kf_tanh(float x) { return kf__tanh(x); }\n"
    "KF_FN float kf_exp(float x) { return kf__exp(x); }\n"
    "KF_FN float kf_log(float x) { return kf__log(x); }\n"
    "KF_FN float kf_abs(float x) { return kf__fabs(x); }\n"
    "KF_FN float kf_neg(float x) { return -x; }\n"
    "KF_FN float kf_sqrt(float x) { return kf__sqrt(x); }\n"
    "KF_FN float kf_rsqrt(float x) { return 1.0f / kf__sqrt(x); }\n"
    "KF_FN float kf_square(float x) { return x * x; }\n"
    "/* SELU: scale * (x > 0 ? x : alpha * (exp(x) - 1)) */\n"
    "KF_FN float kf_selu(float x) { float n = 1.6732632423543772f * kf__expm1(x); return 1.0507009873554805f * (x > 0.0f ? x : n); }\n"
    "/* softplus(x) = log(1 + exp(beta x)) / beta, x itself when beta x > threshold */\n"
    "KF_FN float kf_softplus(float x, float beta, float threshold)\n"
    "{ float s = kf__log1p(kf__exp(beta * x)) / beta; return beta * x > threshold ? x : s; }\n"
    "KF_FN float kf_mish(float x) { return x * kf__tanh(kf_softplus(x, 1.0f, 20.0f)); }\n"
    "KF_FN float kf_hardswish(float x) { float t = x + 3.0f; t = t < 0.0f ? 0.0f : t; t = t > 6.0f ? 6.0f : t; return x * t / 6.0f; }\n"
    "KF_FN float kf_silu(float x) { return x / (1.0f + kf__exp(-x)); }\n"
    "/* GELU, exact erf form and the tanh approximation */\n"
    "KF_FN float kf_gelu(float x) { return 0.5f * x * (1.0f + kf__erf(x * 0.70710678118654752f)); }\n"
    "KF_FN float kf_gelu_tanh(float x)\n"
    "{ return 0.5f * x * (1.0f + kf__tanh(0.79788456080286536f * (x + 0.044715f * x * x * x))); }\n"
    "KF_FN float kf_leaky_relu(float x, float slope) { float n = x * slope; return x > 0.0f ? x : n; }\n"
    "KF_FN float kf_hardtanh(float x, float lo, float hi) { float y = x < lo ? lo : x; return y > hi ? hi : y; }\n"
    "KF_FN float kf_elu(float x, float alpha) { float n = alpha * kf__expm1(x); return x > 0.0f ? x : n; }\n"
    "/* ---- end of prelude ---- */\n";

const char *kf_bt_prelude(kf_bt_dialect d)
{
    static char c_text[sizeof C_HEAD + sizeof BODY + sizeof C_TAIL];
    static char ocl_text[sizeof OCL_HEAD + sizeof BODY];
    char *t = d == KF_BT_OCL ? ocl_text : c_text;
    if (!t[0]) {   /* built once; the result is the same for every caller */
        strcpy(t, d == KF_BT_OCL ? OCL_HEAD : C_HEAD);
        strcat(t, BODY);
        if (d != KF_BT_OCL) strcat(t, C_TAIL);
    }
    return t;
}

/* ------------------------------------------------------------------ */
/* map-op expressions                                                  */

int kf_bt_is_map_op(kf_op op)
{
    return kf_op_is_unary(op) || kf_op_is_binary(op);
}

static char *fmt(const char *f, ...) KF_PRINTF(1, 2);
static char *fmt(const char *f, ...)
{
    va_list ap;
    va_start(ap, f);
    char *s = NULL;
    if (vasprintf(&s, f, ap) < 0) s = NULL;
    va_end(ap);
    return s;
}

static const char *unary_fn(const kf_node *nd)
{
    switch (nd->op) {
    case KF_OP_RELU: return "kf_relu";
    case KF_OP_SIGMOID: return "kf_sigmoid";
    case KF_OP_TANH: return "kf_tanh";
    case KF_OP_EXP: return "kf_exp";
    case KF_OP_LOG: return "kf_log";
    case KF_OP_ABS: return "kf_abs";
    case KF_OP_NEG: return "kf_neg";
    case KF_OP_SQRT: return "kf_sqrt";
    case KF_OP_RSQRT: return "kf_rsqrt";
    case KF_OP_SQUARE: return "kf_square";
    case KF_OP_SELU: return "kf_selu";
    case KF_OP_MISH: return "kf_mish";
    case KF_OP_HARDSWISH: return "kf_hardswish";
    case KF_OP_IDENTITY: case KF_OP_DROPOUT: return "kf_identity";
    case KF_OP_SILU: return "kf_silu";
    case KF_OP_GELU: return nd->gelu_tanh ? "kf_gelu_tanh" : "kf_gelu";
    default: return NULL;
    }
}

static const char *binary_fn(kf_op op)
{
    switch (op) {
    case KF_OP_ADD: return "kf_add";
    case KF_OP_SUB: return "kf_sub";
    case KF_OP_MUL: return "kf_mul";
    case KF_OP_DIV: return "kf_div";
    case KF_OP_MAXIMUM: return "kf_max";
    case KF_OP_MINIMUM: return "kf_min";
    case KF_OP_POW: return "kf_pow";
    default: return NULL;
    }
}

char *kf_bt_map_expr(const kf_node *nd, const char *x, const char *y)
{
    char l0[48], l1[48];
    if (kf_op_is_binary(nd->op)) {
        const char *f = binary_fn(nd->op);
        const char *a = nd->in[0].is_scalar ? kf_bt_flit(nd->in[0].scalar, l0) : x;
        const char *b = nd->in[1].is_scalar ? kf_bt_flit(nd->in[1].scalar, l1) : y;
        if (!f || !a || !b) return NULL;
        return fmt("%s(%s, %s)", f, a, b);
    }
    if (kf_op_is_shape(nd->op))   /* a copy group's anchor: the elements in row-major order */
        return x ? fmt("kf_identity(%s)", x) : NULL;
    if (!kf_op_is_unary(nd->op) || !x) return NULL;
    switch (nd->op) {
    case KF_OP_LEAKY_RELU:
        return fmt("kf_leaky_relu(%s, %s)", x, kf_bt_flit(nd->alpha, l0));
    case KF_OP_HARDTANH:
        return fmt("kf_hardtanh(%s, %s, %s)", x, kf_bt_flit(nd->lo, l0), kf_bt_flit(nd->hi, l1));
    case KF_OP_ELU:
        return fmt("kf_elu(%s, %s)", x, kf_bt_flit(nd->alpha, l0));
    case KF_OP_SOFTPLUS:
        return fmt("kf_softplus(%s, %s, %s)", x, kf_bt_flit(nd->alpha, l0), kf_bt_flit(nd->beta, l1));
    case KF_OP_CLAMP:
        if (!isnan(nd->lo) && !isnan(nd->hi))   /* torch.clamp: min then max */
            return fmt("kf_min(kf_max(%s, %s), %s)", x, kf_bt_flit(nd->lo, l0), kf_bt_flit(nd->hi, l1));
        if (!isnan(nd->lo)) return fmt("kf_max(%s, %s)", x, kf_bt_flit(nd->lo, l0));
        if (!isnan(nd->hi)) return fmt("kf_min(%s, %s)", x, kf_bt_flit(nd->hi, l1));
        return fmt("kf_identity(%s)", x);
    default: {
        const char *f = unary_fn(nd);
        return f ? fmt("%s(%s)", f, x) : NULL;
    }
    }
}
