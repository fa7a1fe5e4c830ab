/* variants of the 4-interval vpermilps GELU: J vectors side by side; the mask taken early, x reloaded */
#define DEFV(NAME, J)                                                                              \
static inline void NAME##_v(float *restrict y, const __m256 *t)                                   \
{                                                                                                  \
    const __m256 big = _mm256_set1_ps(12582912.0f), amax = _mm256_set1_ps(AMAX_erf);              \
    __m256 r[J], p[J], m[J]; __m256i n[J];                                                         \
    for (int j = 0; j < J; j++) {                                                                  \
        const __m256 a = _mm256_min_ps(_mm256_andnot_ps(_mm256_set1_ps(-0.0f), _mm256_loadu_ps(y + 8 * j)), amax); \
        m[j] = _mm256_cmp_ps(a, amax, _CMP_LT_OQ);                                                 \
        const __m256 u = _mm256_fmadd_ps(a, _mm256_set1_ps(INV_erf), _mm256_set1_ps(-0.5f));      \
        const __m256 s = _mm256_add_ps(u, big);                                                    \
        r[j] = _mm256_sub_ps(u, _mm256_sub_ps(s, big));                                            \
        n[j] = _mm256_castps_si256(s);                                                             \
        p[j] = _mm256_permutevar_ps(t[7], n[j]);                                                   \
    }                                                                                              \
    for (int k = 6; k >= 0; k--)                                                                   \
        for (int j = 0; j < J; j++) p[j] = _mm256_fmadd_ps(p[j], r[j], _mm256_permutevar_ps(t[k], n[j])); \
    for (int j = 0; j < J; j++) {                                                                  \
        const __m256 x = _mm256_loadu_ps(y + 8 * j), q = _mm256_and_ps(p[j], m[j]);               \
        _mm256_storeu_ps(y + 8 * j, _mm256_mul_ps(x, _mm256_blendv_ps(_mm256_sub_ps(_mm256_set1_ps(1.0f), q), q, x))); \
    }                                                                                              \
}                                                                                                  \
static void NAME(float *restrict y, int64_t nn, const float (*T)[8])                              \
{                                                                                                  \
    __m256 t[8];                                                                                   \
    for (int k = 0; k < 8; k++) t[k] = _mm256_load_ps(T[k]);                                       \
    for (int64_t i = 0; i + 8 * J <= nn; i += 8 * J) NAME##_v(y + i, t);                           \
}
DEFV(v_j1, 1)
DEFV(v_j2, 2)
DEFV(v_j4, 4)
