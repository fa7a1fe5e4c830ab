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
 * 0.66-0.67x (bench/results/xeon2-cpu-gelu-2026-11-29).  A streamed map
 * whose last op is a GELU applies kf_gelu_block to its block buffer
 * (kf_bt_block_fn), which with AVX-512 and GCC reads q(|x|) from a table of
 * polynomials (prelude_qtables.py; the text's own comment says how and why
 * only there, doc/design.md what it measured). */
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
    "/* The GELUs as x q(|x|) for x < 0 and x (1 - q(|x|)) otherwise, q(a) the share of |x|\n"
    " * they take away: no cancellation for x < 0 (q is small, not 1 - something near 1).\n"
    " * GELU: q(|x|) = Phi(-|x|) = erfc(|x| / sqrt 2) / 2 by A-S 7.1.26 (the erf of kf__erf,\n"
    " * its coefficients halved and 0.3275911 / sqrt 2): no series for small |x| (Phi is near\n"
    " * 1/2 there), one polynomial */\n"
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
    "/* y[0..n) = GELU(y[0..n)) in place: a streamed map's block buffer when the GELU is the\n"
    " * map's last op (kf_bt_block_fn).  With AVX-512 and GCC q is read from 32 degree-4\n"
    " * polynomials over |x| in [0, 5.9] (vpermt2ps picks each lane's coefficients;\n"
    " * prelude_qtables.py writes them): 18 instructions for 16 floats, no exp and no division,\n"
    " * within the bounds kf_gelu and kf_gelu_tanh meet but not their bits.  Only here: a loop\n"
    " * calling a vector function is not vectorised by GCC before 14 when anything else in it\n"
    " * branches (a clamp, a ReLU: a GEMM epilogue), and one call a float costs more than the\n"
    " * formulas above (bench/results/xeon16-cpu-l2-2026-11-30) */\n"
    "#if defined(__AVX512F__) && defined(__GNUC__) && !defined(__clang__)\n"
    "#include <immintrin.h>\n"
    "#define KF__Q_INV_H 5.333333492e+00f   /* 16/3: 1 / the intervals' width */\n"
    "#define KF__Q_A_MAX 5.904374599e+00f   /* |x| clamped here: the last interval */\n"
    "static const float kf__q_gelu[5][32] __attribute__((aligned(64))) = {\n"
    "    {5.000000000e-01, 4.256343246e-01, 3.538302481e-01, 2.868877053e-01,\n"
    "     2.266273648e-01, 1.742507219e-01, 1.302945316e-01, 9.467574954e-02,\n"
    "     6.680721045e-02, 4.575362802e-02, 3.039636649e-02, 1.958008111e-02,\n"
    "     1.222447492e-02, 7.394608576e-03, 4.332449287e-03, 2.457901835e-03,\n"
    "     1.349898404e-03, 7.175425417e-04, 3.690785961e-04, 1.836700394e-04,\n"
    "     8.841732779e-05, 4.116748823e-05, 1.853674985e-05, 8.070949661e-06,\n"
    "     3.397675755e-06, 1.382814730e-06, 5.440427913e-07, 2.068972691e-07,\n"
    "     7.604970165e-08, 2.701671420e-08, 9.275414214e-09, 0.000000000e+00},\n"
    "    {-7.480163127e-02, -7.349824905e-02, -6.972280145e-02, -6.385640800e-02,\n"
    "     -5.646326765e-02, -4.820137098e-02, -3.972689435e-02, -3.161124885e-02,\n"
    "     -2.428457700e-02, -1.801155321e-02, -1.289744303e-02, -8.916363120e-03,\n"
    "     -5.951187573e-03, -3.834874835e-03, -2.385779982e-03, -1.432983670e-03,\n"
    "     -8.309667464e-04, -4.652191710e-04, -2.514566004e-04, -1.312199747e-04,\n"
    "     -6.611016579e-05, -3.215643665e-05, -1.510076163e-05, -6.846380529e-06,\n"
    "     -2.996776857e-06, -1.266423283e-06, -5.166951951e-07, -2.035264970e-07,\n"
    "     -7.739954100e-08, -2.841755276e-08, -1.007315920e-08, 0.000000000e+00},\n"
    "    {-6.501636438e-16, 1.291959779e-03, 2.451189095e-03, 3.367423546e-03,\n"
    "     3.970068414e-03, 4.236443434e-03, 4.189941101e-03, 3.889661515e-03,\n"
    "     3.415015759e-03, 2.849482466e-03, 2.267127857e-03, 1.724062837e-03,\n"
    "     1.255329582e-03, 8.763301885e-04, 5.871270550e-04, 3.778389073e-04,\n"
    "     2.337106271e-04, 1.390215475e-04, 7.956317131e-05, 4.382593397e-05,\n"
    "     2.324219713e-05, 1.187046200e-05, 5.839876849e-06, 2.768044169e-06,\n"
    "     1.264305524e-06, 5.565547099e-07, 2.361563389e-07, 9.660059419e-08,\n"
    "     3.809738303e-08, 1.448729936e-08, 5.312442486e-09, 0.000000000e+00},\n"
    "    {4.375695426e-04, 4.148544685e-04, 3.505944624e-04, 2.555256651e-04,\n"
    "     1.447526884e-04, 3.443289825e-05, -6.144872896e-05, -1.334078697e-04,\n"
    "     -1.774406846e-04, -1.946485136e-04, -1.898699120e-04, -1.698707492e-04,\n"
    "     -1.416266605e-04, -1.110658413e-04, -8.241626347e-05, -5.810398579e-05,\n"
    "     -3.903198012e-05, -2.503759970e-05, -1.536165109e-05, -9.026447515e-06,\n"
    "     -5.084847999e-06, -2.748439101e-06, -1.426403742e-06, -7.112118396e-07,\n"
    "     -3.408541147e-07, -1.570844290e-07, -6.963850296e-08, -2.970662827e-08,\n"
    "     -1.219730450e-08, -4.821536947e-09, -1.835315899e-09, 0.000000000e+00},\n"
    "    {3.681468616e-15, -1.119772969e-05, -2.049091745e-05, -2.642333675e-05,\n"
    "     -2.830125413e-05, -2.628782204e-05, -2.126856089e-05, -1.455223537e-05,\n"
    "     -7.514383014e-06, -1.291439730e-06, 3.402032917e-06, 6.312482583e-06,\n"
    "     7.569143690e-06, 7.541394098e-06, 6.687389032e-06, 5.434542345e-06,\n"
    "     4.109995189e-06, 2.919234248e-06, 1.958977919e-06, 1.247120395e-06,\n"
    "     7.554367016e-07, 4.363842834e-07, 2.408084470e-07, 1.271158823e-07,\n"
    "     6.425885601e-08, 3.113615321e-08, 1.447183973e-08, 6.456331025e-09,\n"
    "     2.766220364e-09, 1.138752537e-09, 4.505982254e-10, 0.000000000e+00},\n"
    "};\n"
    "static const float kf__q_gelu_tanh[5][32] __attribute__((aligned(64))) = {\n"
    "    {5.000000000e-01, 4.256364405e-01, 3.538459539e-01, 2.869344056e-01,\n"
    "     2.267192602e-01, 1.743900329e-01, 1.304668635e-01, 9.485213459e-02,\n"
    "     6.695228815e-02, 4.583668336e-02, 3.040051833e-02, 1.950631291e-02,\n"
    "     1.208948251e-02, 7.224258967e-03, 4.153871909e-03, 2.293103375e-03,\n"
    "     1.212464413e-03, 6.124840584e-04, 2.948233741e-04, 1.348649239e-04,\n"
    "     5.846725253e-05, 2.395495540e-05, 9.249772120e-06, 3.356594334e-06,\n"
    "     1.141498615e-06, 3.627738749e-07, 1.074373941e-07, 2.956707235e-08,\n"
    "     7.539959768e-09, 1.776691239e-09, 3.857550390e-10, 0.000000000e+00},\n"
    "    {-7.480163127e-02, -7.349200547e-02, -6.970079243e-02, -6.381697208e-02,\n"
    "     -5.641438067e-02, -4.815832153e-02, -3.970645368e-02, -3.162471578e-02,\n"
    "     -2.433291078e-02, -1.808486879e-02, -1.297884248e-02, -8.988109417e-03,\n"
    "     -6.000337657e-03, -3.856257768e-03, -2.381762490e-03, -1.410903176e-03,\n"
    "     -7.997848443e-04, -4.327602801e-04, -2.229332604e-04, -1.090349542e-04,\n"
    "     -5.048968887e-05, -2.207261969e-05, -9.084094927e-06, -3.509521093e-06,\n"
    "     -1.269160748e-06, -4.284059401e-07, -1.345970304e-07, -3.924918346e-08,\n"
    "     -1.059296828e-08, -2.638609997e-09, -6.048995749e-10, 0.000000000e+00},\n"
    "    {-2.436130019e-16, 1.297948882e-03, 2.460279036e-03, 3.374921624e-03,\n"
    "     3.971382976e-03, 4.229156766e-03, 4.175094422e-03, 3.871503519e-03,\n"
    "     3.399246838e-03, 2.840874251e-03, 2.267716685e-03, 1.732703997e-03,\n"
    "     1.268608612e-03, 8.901699912e-04, 5.982674775e-04, 3.846317995e-04,\n"
    "     2.361254155e-04, 1.381124894e-04, 7.677780377e-05, 4.045654714e-05,\n"
    "     2.015034806e-05, 9.459843568e-06, 4.174005880e-06, 1.726045411e-06,\n"
    "     6.670377957e-07, 2.402285588e-07, 8.040055377e-08, 2.493700535e-08,\n"
    "     7.147854753e-09, 1.888218470e-09, 4.584322089e-10, 0.000000000e+00},\n"
    "    {4.397224111e-04, 4.164977290e-04, 3.508946684e-04, 2.541696012e-04,\n"
    "     1.421341003e-04, 3.155452578e-05, -6.338987441e-05, -1.335747802e-04,\n"
    "     -1.757456776e-04, -1.917581831e-04, -1.868467662e-04, -1.676792454e-04,\n"
    "     -1.407690288e-04, -1.114916522e-04, -8.367912960e-05, -5.962973592e-05,\n"
    "     -4.035260281e-05, -2.590784607e-05, -1.575412170e-05, -9.053141184e-06,\n"
    "     -4.904117759e-06, -2.497631613e-06, -1.192681111e-06, -5.325563848e-07,\n"
    "     -2.217551014e-07, -8.587724665e-08, -3.084726785e-08, -1.025022822e-08,\n"
    "     -3.142513583e-09, -8.865407852e-10, -2.295358209e-10, 0.000000000e+00},\n"
    "    {2.322213246e-15, -1.144496127e-05, -2.089376721e-05, -2.681902697e-05,\n"
    "     -2.851093086e-05, -2.619957377e-05, -2.090337694e-05, -1.406212323e-05,\n"
    "     -7.105433724e-06, -1.119189278e-06, 3.300746585e-06, 6.017742180e-06,\n"
    "     7.220205589e-06, 7.264957276e-06, 6.550236776e-06, 5.435454568e-06,\n"
    "     4.202174296e-06, 3.043196784e-06, 2.068265530e-06, 1.318987302e-06,\n"
    "     7.882960062e-07, 4.407057475e-07, 2.299757398e-07, 1.117607198e-07,\n"
    "     5.045938067e-08, 2.111541519e-08, 8.169869226e-09, 2.915652386e-09,\n"
    "     9.574211424e-10, 2.885701955e-10, 7.963582571e-11, 0.000000000e+00},\n"
    "};\n"
    "/* x q(|x|) or x (1 - q(|x|)) with q from table c, one float (prelude_math_check's\n"
    " * reference for the blocks) and 16 with the same operations, the same bits:\n"
    " * a = min(|x|, A_MAX) (NaN gives A_MAX, as vminps),\n"
    " * n = a 16/3 rounded by adding 1.5 2^23 (the sum's low 5 bits are n),\n"
    " * r = a 16/3 - n in [-1/2, 1/2] */\n"
    "static inline float kf__gelu_q1(float x, const float (*c)[32])\n"
    "{\n"
    "    float a = kf__fabs(x);\n"
    "    a = a < KF__Q_A_MAX ? a : KF__Q_A_MAX;\n"
    "    const float nf = __builtin_fmaf(a, KF__Q_INV_H, 12582912.0f) - 12582912.0f;\n"
    "    const float r = __builtin_fmaf(a, KF__Q_INV_H, -nf);\n"
    "    const int n = (int)nf;\n"
    "    float p = c[4][n];\n"
    "    p = __builtin_fmaf(p, r, c[3][n]);\n"
    "    p = __builtin_fmaf(p, r, c[2][n]);\n"
    "    p = __builtin_fmaf(p, r, c[1][n]);\n"
    "    const float q = __builtin_fmaf(p, r, c[0][n]);\n"
    "    return x * (x < 0.0f ? q : 1.0f - q);\n"
    "}\n"
    "static inline __m512 kf__gelu_q16(__m512 x, const float (*c)[32])\n"
    "{\n"
    "    const __m512 a = _mm512_min_ps(_mm512_abs_ps(x), _mm512_set1_ps(KF__Q_A_MAX));\n"
    "    const __m512 big = _mm512_set1_ps(12582912.0f);\n"
    "    const __m512 s = _mm512_fmadd_ps(a, _mm512_set1_ps(KF__Q_INV_H), big);\n"
    "    const __m512 r = _mm512_fmsub_ps(a, _mm512_set1_ps(KF__Q_INV_H), _mm512_sub_ps(s, big));\n"
    "    const __m512i n = _mm512_castps_si512(s);\n"
    "#define KF__QC(k) _mm512_permutex2var_ps(_mm512_load_ps(c[k]), n, _mm512_load_ps(c[k] + 16))\n"
    "    __m512 p = _mm512_fmadd_ps(KF__QC(4), r, KF__QC(3));\n"
    "    p = _mm512_fmadd_ps(p, r, KF__QC(2));\n"
    "    p = _mm512_fmadd_ps(p, r, KF__QC(1));\n"
    "    const __m512 q = _mm512_fmadd_ps(p, r, KF__QC(0));\n"
    "#undef KF__QC\n"
    "    const __mmask16 neg = _mm512_cmp_ps_mask(x, _mm512_setzero_ps(), _CMP_LT_OQ);\n"
    "    return _mm512_mul_ps(x, _mm512_mask_blend_ps(neg, _mm512_sub_ps(_mm512_set1_ps(1.0f), q), q));\n"
    "}\n"
    "static inline void kf__q_block(float *restrict y, int64_t n, const float (*c)[32])\n"
    "{\n"
    "    int64_t i = 0;\n"
    "    for (; i + 16 <= n; i += 16) _mm512_storeu_ps(y + i, kf__gelu_q16(_mm512_loadu_ps(y + i), c));\n"
    "    if (i < n) {   /* the last 1..15 */\n"
    "        const __mmask16 m = (__mmask16)((1u << (n - i)) - 1u);\n"
    "        _mm512_mask_storeu_ps(y + i, m, kf__gelu_q16(_mm512_maskz_loadu_ps(m, y + i), c));\n"
    "    }\n"
    "}\n"
    "KF_FN void kf_gelu_block(float *restrict y, int64_t n) { kf__q_block(y, n, kf__q_gelu); }\n"
    "KF_FN void kf_gelu_tanh_block(float *restrict y, int64_t n) { kf__q_block(y, n, kf__q_gelu_tanh); }\n"
    "#else\n"
    "KF_FN void kf_gelu_block(float *restrict y, int64_t n)\n"
    "{\n"
    "    #pragma omp simd\n"
    "    for (int64_t i = 0; i < n; i++) y[i] = kf_gelu(y[i]);\n"
    "}\n"
    "KF_FN void kf_gelu_tanh_block(float *restrict y, int64_t n)\n"
    "{\n"
    "    #pragma omp simd\n"
    "    for (int64_t i = 0; i < n; i++) y[i] = kf_gelu_tanh(y[i]);\n"
    "}\n"
    "#endif\n"
    "/* ---- row helpers: the hot loops of softmax, logsumexp and norm rows ---- */\n"
    "#if defined(__AVX512F__)\n"
    "#include <immintrin.h>\n"
    "/* 2^(x log2(e) + c) for 16 floats, c = -m log2(e): e^(x - m), softmax's and\n"
    " * logsumexp's terms, the subtraction of the row's max folded into one FMA;\n"
    " * t = n + f, f in [-1/2, 1/2] (vreduceps), a degree-6 polynomial for 2^f and\n"
    " * the scaling by 2^n in vscalefps (correct overflow, underflow, denormals;\n"
    " * t = -inf gives 0, +inf gives inf, NaN stays): 10 instructions, 14 with the\n"
    " * ln 2 step of kf__exp_1l before (23 Softmax with its rows in cache: 14-17%\n"
    " * less time on one Zen 4 core).\n"
    " * Relative error about 1e-7 + 7e-8 |x - m| + 6e-8 |m| (measured 1.1e-7 for\n"
    " * |x - m| < 1, 1e-6 below 20, 3.8e-6 at 87): t is rounded once, as the float\n"
    " * x - m that torch's softmax takes the exp of is, and the |m| part (c rounded)\n"
    " * is one factor for the whole row, which softmax's division cancels */\n"
    "static inline __m512 kf__exp16(__m512 x, __m512 c)\n"
    "{\n"
    "    __m512 t = _mm512_fmadd_ps(x, _mm512_set1_ps(1.44269504088896341f), c);\n"
    "#if defined(__AVX512DQ__)\n"
    "    const __m512 f = _mm512_reduce_ps(t, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);   /* t - round(t); 0 at +-inf */\n"
    "    const __m512 n = _mm512_sub_ps(t, f);\n"
    "#else\n"
    "    t = _mm512_min_ps(_mm512_set1_ps(129.0f), _mm512_max_ps(_mm512_set1_ps(-151.0f), t));   /* NaN: the second operand */\n"
    "    const __m512 n = _mm512_roundscale_ps(t, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);\n"
    "    const __m512 f = _mm512_sub_ps(t, n);\n"
    "#endif\n"
    "    __m512 p = _mm512_set1_ps(1.5345800784e-4f);   /* relative minimax on [-1/2, 1/2]: 1.9e-9 */\n"
    "    p = _mm512_fmadd_ps(p, f, _mm512_set1_ps(1.3399930904e-3f));\n"
    "    p = _mm512_fmadd_ps(p, f, _mm512_set1_ps(9.6184890717e-3f));\n"
    "    p = _mm512_fmadd_ps(p, f, _mm512_set1_ps(5.5503286421e-2f));\n"
    "    p = _mm512_fmadd_ps(p, f, _mm512_set1_ps(2.4022646248e-1f));\n"
    "    p = _mm512_fmadd_ps(p, f, _mm512_set1_ps(6.9314718246e-1f));\n"
    "    p = _mm512_fmadd_ps(p, f, _mm512_set1_ps(1.0f));\n"
    "    return _mm512_scalef_ps(p, n);\n"
    "}\n"
    "/* the row helpers' vector: 16 floats */\n"
    "typedef __m512 kf_vf;\n"
    "#define KF_VL 16\n"
    "#define kf_vload _mm512_loadu_ps\n"
    "#define kf_vstore _mm512_storeu_ps\n"
    "#define kf_vadd _mm512_add_ps\n"
    "#define kf_vmax _mm512_max_ps\n"
    "#define kf_vset1 _mm512_set1_ps\n"
    "#define kf_vzero _mm512_setzero_ps\n"
    "#define kf_vexp kf__exp16\n"
    "#define kf_vhmax _mm512_reduce_max_ps\n"
    "#define kf_vhsum _mm512_reduce_add_ps\n"
    "typedef __m512d kf_vd;   /* v's floats widened to double, its halves added, and added into d's lanes */\n"
    "static inline kf_vd kf_vaddw(kf_vd d, kf_vf v)\n"
    "{\n"
    "    return _mm512_add_pd(d, _mm512_add_pd(_mm512_cvtps_pd(_mm512_castps512_ps256(v)),\n"
    "                                          _mm512_cvtps_pd(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(v), 1)))));\n"
    "}\n"
    "#define kf_vdzero _mm512_setzero_pd\n"
    "#define kf_vdhsum _mm512_reduce_add_pd\n"
    "#elif defined(__AVX2__) && defined(__FMA__)\n"
    "#include <immintrin.h>\n"
    "/* kf__exp16's 2^(x log2(e) + c) for 8 floats where there is no AVX-512 (no\n"
    " * vreduceps, no vscalefps): t clamped to [-152, 129], n = round(t), the same\n"
    " * polynomial for 2^(t - n), and 2^n applied as two factors 2^(n >> 1) and\n"
    " * 2^(n - (n >> 1)), each a normal float, so that a denormal result is rounded\n"
    " * once and t >= 128 gives inf, t = -inf 0 (2^-152 rounds to 0); NaN stays\n"
    " * (the clamps return their second operand, and p is NaN).  20 instructions for\n"
    " * 8 floats; the same error as kf__exp16 */\n"
    "static inline __m256 kf__exp8(__m256 x, __m256 c)\n"
    "{\n"
    "    __m256 t = _mm256_fmadd_ps(x, _mm256_set1_ps(1.44269504088896341f), c);\n"
    "    t = _mm256_min_ps(_mm256_set1_ps(129.0f), _mm256_max_ps(_mm256_set1_ps(-152.0f), t));\n"
    "    const __m256 n = _mm256_round_ps(t, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);\n"
    "    const __m256 f = _mm256_sub_ps(t, n);\n"
    "    __m256 p = _mm256_set1_ps(1.5345800784e-4f);\n"
    "    p = _mm256_fmadd_ps(p, f, _mm256_set1_ps(1.3399930904e-3f));\n"
    "    p = _mm256_fmadd_ps(p, f, _mm256_set1_ps(9.6184890717e-3f));\n"
    "    p = _mm256_fmadd_ps(p, f, _mm256_set1_ps(5.5503286421e-2f));\n"
    "    p = _mm256_fmadd_ps(p, f, _mm256_set1_ps(2.4022646248e-1f));\n"
    "    p = _mm256_fmadd_ps(p, f, _mm256_set1_ps(6.9314718246e-1f));\n"
    "    p = _mm256_fmadd_ps(p, f, _mm256_set1_ps(1.0f));\n"
    "    const __m256i ni = _mm256_cvtps_epi32(n), n1 = _mm256_srai_epi32(ni, 1), n2 = _mm256_sub_epi32(ni, n1);\n"
    "    const __m256i bias = _mm256_set1_epi32(127);\n"
    "    const __m256 s1 = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(n1, bias), 23));\n"
    "    const __m256 s2 = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(n2, bias), 23));\n"
    "    return _mm256_mul_ps(_mm256_mul_ps(p, s1), s2);\n"
    "}\n"
    "/* the row helpers' vector: 8 floats */\n"
    "typedef __m256 kf_vf;\n"
    "#define KF_VL 8\n"
    "#define kf_vload _mm256_loadu_ps\n"
    "#define kf_vstore _mm256_storeu_ps\n"
    "#define kf_vadd _mm256_add_ps\n"
    "#define kf_vmax _mm256_max_ps\n"
    "#define kf_vset1 _mm256_set1_ps\n"
    "#define kf_vzero _mm256_setzero_ps\n"
    "#define kf_vexp kf__exp8\n"
    "static inline float kf_vhmax(kf_vf v)\n"
    "{\n"
    "    __m128 h = _mm_max_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));\n"
    "    h = _mm_max_ps(h, _mm_movehl_ps(h, h));\n"
    "    return _mm_cvtss_f32(_mm_max_ss(h, _mm_shuffle_ps(h, h, 1)));\n"
    "}\n"
    "static inline float kf_vhsum(kf_vf v)\n"
    "{\n"
    "    __m128 h = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));\n"
    "    h = _mm_add_ps(h, _mm_movehl_ps(h, h));\n"
    "    return _mm_cvtss_f32(_mm_add_ss(h, _mm_shuffle_ps(h, h, 1)));\n"
    "}\n"
    "typedef __m256d kf_vd;   /* v's floats widened to double and added into d's lanes */\n"
    "static inline kf_vd kf_vaddw(kf_vd d, kf_vf v)\n"
    "{\n"
    "    d = _mm256_add_pd(d, _mm256_cvtps_pd(_mm256_castps256_ps128(v)));\n"
    "    return _mm256_add_pd(d, _mm256_cvtps_pd(_mm256_extractf128_ps(v, 1)));\n"
    "}\n"
    "#define kf_vdzero _mm256_setzero_pd\n"
    "static inline double kf_vdhsum(kf_vd d)\n"
    "{\n"
    "    __m128d h = _mm_add_pd(_mm256_castpd256_pd128(d), _mm256_extractf128_pd(d, 1));\n"
    "    return _mm_cvtsd_f64(_mm_add_sd(h, _mm_unpackhi_pd(h, h)));\n"
    "}\n"
    "#endif\n"
    "#if defined(KF_VL)\n"
    "/* kf__exp16's and kf__exp8's c for a row whose max is m */\n"
    "static inline kf_vf kf__exp_c(float m) { return kf_vset1(-m * 1.44269504088896341f); }\n"
    "#endif\n"
    "/* max of x[0..n) ignoring NaN (a NaN row gives NaN through the sum), -inf if empty */\n"
    "KF_FN float kf_row_max(const float *restrict x, int64_t n)\n"
    "{\n"
    "    float m = -INFINITY;\n"
    "    int64_t k = 0;\n"
    "#if defined(KF_VL)\n"
    "    kf_vf m0 = kf_vset1(-INFINITY), m1 = m0, m2 = m0, m3 = m0;\n"
    "    for (const int64_t nv = n & ~(int64_t)(4 * KF_VL - 1); k < nv; k += 4 * KF_VL) {   /* vmaxps(x, m): m where x is NaN */\n"
    "        m0 = kf_vmax(kf_vload(x + k), m0);\n"
    "        m1 = kf_vmax(kf_vload(x + k + KF_VL), m1);\n"
    "        m2 = kf_vmax(kf_vload(x + k + 2 * KF_VL), m2);\n"
    "        m3 = kf_vmax(kf_vload(x + k + 3 * KF_VL), m3);\n"
    "    }\n"
    "    m = kf_vhmax(kf_vmax(kf_vmax(m0, m1), kf_vmax(m2, m3)));\n"
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
    "#if defined(KF_VL)\n"
    "    const kf_vf vm = kf__exp_c(m);\n"
    "    kf_vd d0 = kf_vdzero();\n"
    "    while (k + KF_VL <= n) {\n"
    "        kf_vf a0 = kf_vzero(), a1 = a0;\n"
    "        const int64_t end = k + 256 < n ? k + 256 : n;\n"
    "        for (; k + 2 * KF_VL <= end; k += 2 * KF_VL) {\n"
    "            if (next)\n"
    "                for (int j = 0; j < 2 * KF_VL; j += 16) _mm_prefetch((const char *)(next + k + j), _MM_HINT_T1);\n"
    "            kf_vf e0 = kf_vexp(kf_vload(x + k), vm);\n"
    "            kf_vf e1 = kf_vexp(kf_vload(x + k + KF_VL), vm);\n"
    "            if (ex) { kf_vstore(ex + k, e0); kf_vstore(ex + k + KF_VL, e1); }\n"
    "            a0 = kf_vadd(a0, e0);\n"
    "            a1 = kf_vadd(a1, e1);\n"
    "        }\n"
    "        for (; k + KF_VL <= end; k += KF_VL) {\n"
    "            kf_vf e0 = kf_vexp(kf_vload(x + k), vm);\n"
    "            if (ex) kf_vstore(ex + k, e0);\n"
    "            a0 = kf_vadd(a0, e0);\n"
    "        }\n"
    "        d0 = kf_vaddw(d0, kf_vadd(a0, a1));\n"
    "    }\n"
    "    s = kf_vdhsum(d0);\n"
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
    "#if defined(KF_VL)\n"
    "    if (n == 64) {\n"
    "        const kf_vf vm = kf__exp_c(m);\n"
    "        kf_vf a[64 / KF_VL];\n"
    "        for (int j = 0; j < 64 / KF_VL; j++) {\n"
    "            a[j] = kf_vexp(kf_vload(x + j * KF_VL), vm);\n"
    "            kf_vstore(ex + j * KF_VL, a[j]);\n"
    "        }\n"
    "        for (int w = 64 / KF_VL / 2; w > 0; w /= 2)   /* a tree: (e0 + e1) + (e2 + e3), ... */\n"
    "            for (int j = 0; j < w; j++) a[j] = kf_vadd(a[2 * j], a[2 * j + 1]);\n"
    "        return (double)kf_vhsum(a[0]);\n"
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
    "        ds = kf_vaddw(ds, s0);\n"
    "        dq = kf_vaddw(dq, q0);\n"
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
    "/* the shift a norm's one-pass sums are taken about: the mean of x's first min(n, 16)\n"
    " * floats (n >= 1).  Its distance from the true mean, in standard deviations, is what\n"
    " * the float differences lose (a variance off by about 1.2e-7 (1 + d^2) of itself at d\n"
    " * deviations): an outlier at x[0] moves it a sixteenth as far as a shift of x[0] would */\n"
    "KF_FN float kf_row_shift(const float *restrict x, int64_t n)\n"
    "{\n"
    "    const int64_t m = n < 16 ? n : 16;\n"
    "    float s = 0.0f;\n"
    "    for (int64_t k = 0; k < m; k++) s += x[k];\n"
    "    return s / (float)m;\n"
    "}\n"
    "/* Chan's update over rows of n floats: row k (the first is 0), whose sums of x - c and\n"
    " * (x - c)^2 are s and q (kf_row_moments, or kf_moments_block's lanes totalled), joins the\n"
    " * running mean *mu and sum of squared deviations *m2 of rows 0..k-1.  Each row has its own\n"
    " * shift c (kf_row_shift), so the statistics do not depend on how far apart the rows'\n"
    " * means are, and no row is read a second time */\n"
    "KF_FN void kf_chan_join(double s, double q, float c, int64_t n, int64_t k, double *mu, double *m2)\n"
    "{\n"
    "    const double d = (double)c + s / (double)n - *mu;\n"
    "    *mu += d / (double)(k + 1);\n"
    "    *m2 += (q - s * s / (double)n) + d * d * (double)n * (double)k / (double)(k + 1);\n"
    "}\n"
    "/* the sums of x[k] - c and of (x[k] - c)^2 over x[0..n), n <= 64, added to the 8 double\n"
    " * lanes of as and aq (64-byte aligned, zeroed by the caller; kf_sum_lanes totals them):\n"
    " * float sums over the block, then double.  A norm whose statistics come from\n"
    " * the loop that writes the previous unit's outputs (large-group GroupNorm's next group,\n"
    " * BatchNorm's next channel) takes them a block at a time, so the unit is read from\n"
    " * memory once, beside the stores, and once more from cache for its outputs */\n"
    "KF_FN void kf_moments_block(const float *restrict x, int64_t n, float c, double *restrict as,\n"
    "                            double *restrict aq)\n"
    "{\n"
    "#if defined(__AVX512F__)\n"
    "    if (n == 64) {\n"
    "        const __m512 vc = _mm512_set1_ps(c);\n"
    "        const __m512 d0 = _mm512_sub_ps(_mm512_loadu_ps(x), vc), d1 = _mm512_sub_ps(_mm512_loadu_ps(x + 16), vc);\n"
    "        const __m512 d2 = _mm512_sub_ps(_mm512_loadu_ps(x + 32), vc), d3 = _mm512_sub_ps(_mm512_loadu_ps(x + 48), vc);\n"
    "        const __m512 t = _mm512_add_ps(_mm512_add_ps(d0, d1), _mm512_add_ps(d2, d3));\n"
    "        const __m512 u = _mm512_fmadd_ps(d3, d3, _mm512_fmadd_ps(d2, d2, _mm512_fmadd_ps(d1, d1, _mm512_mul_ps(d0, d0))));\n"
    "        _mm512_store_pd(as, kf_vaddw(_mm512_load_pd(as), t));\n"
    "        _mm512_store_pd(aq, kf_vaddw(_mm512_load_pd(aq), u));\n"
    "        return;\n"
    "    }\n"
    "#endif\n"
    "    float s = 0.0f, q = 0.0f;\n"
    "    #pragma omp simd reduction(+:s, q)\n"
    "    for (int64_t k = 0; k < n; k++) { const float d = x[k] - c; s += d; q += d * d; }\n"
    "    as[0] += (double)s;\n"
    "    aq[0] += (double)q;\n"
    "}\n"
    "/* kf_moments_block over x[0..n) a block of 64 at a time from x[0]: a unit's first sums\n"
    " * by the blocks its carried sums would take (the same figures whichever thread starts where) */\n"
    "KF_FN void kf_moments_blocks(const float *restrict x, int64_t n, float c, double *restrict as,\n"
    "                             double *restrict aq)\n"
    "{\n"
    "    for (int64_t k = 0; k < n; k += 64) kf_moments_block(x + k, n - k < 64 ? n - k : 64, c, as, aq);\n"
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

const char *kf_bt_block_fn(const kf_node *nd)
{
    if (nd->op != KF_OP_GELU) return NULL;
    return nd->gelu_tanh ? "kf_gelu_tanh_block" : "kf_gelu_block";
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
