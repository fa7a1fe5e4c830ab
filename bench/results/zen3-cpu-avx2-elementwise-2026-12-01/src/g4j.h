/* J vectors interleaved; PERM: vpermilps (4-entry) or vpermps (8-entry); DEGV degree; OFF: -0.5 (uncentred) or 0 */
#define DEFBLK(NAME, J, PERM, DEGV, UNC)                                                         \
static void NAME(float *restrict y, int64_t nn, const float (*T)[8], float inv, float amax)     \
{                                                                                             \
    __m256 t[DEGV + 1];                                                                       \
    for (int k = 0; k <= DEGV; k++) t[k] = _mm256_load_ps(T[k]);                              \
    const __m256 big = _mm256_set1_ps(12582912.0f);                                           \
    for (int64_t i = 0; i + 8 * J <= nn; i += 8 * J) {                                         \
        __m256 x[J], a[J], r[J], p[J]; __m256i n[J];                                          \
        for (int j = 0; j < J; j++) {                                                          \
            x[j] = _mm256_loadu_ps(y + i + 8 * j);                                            \
            a[j] = _mm256_min_ps(_mm256_andnot_ps(_mm256_set1_ps(-0.0f), x[j]), _mm256_set1_ps(amax)); \
            __m256 s;                                                                         \
            if (UNC) { const __m256 u = _mm256_fmadd_ps(a[j], _mm256_set1_ps(inv), _mm256_set1_ps(-0.5f)); \
                s = _mm256_add_ps(u, big); r[j] = _mm256_sub_ps(u, _mm256_sub_ps(s, big)); }  \
            else { s = _mm256_fmadd_ps(a[j], _mm256_set1_ps(inv), big);                        \
                r[j] = _mm256_fmsub_ps(a[j], _mm256_set1_ps(inv), _mm256_sub_ps(s, big)); }   \
            n[j] = _mm256_castps_si256(s);                                                    \
            p[j] = PERM(t[DEGV], n[j]);                                                       \
        }                                                                                     \
        for (int k = DEGV - 1; k >= 0; k--)                                                    \
            for (int j = 0; j < J; j++) p[j] = _mm256_fmadd_ps(p[j], r[j], PERM(t[k], n[j])); \
        for (int j = 0; j < J; j++) {                                                          \
            __m256 q = UNC ? _mm256_and_ps(p[j], _mm256_cmp_ps(a[j], _mm256_set1_ps(amax), _CMP_LT_OQ)) : p[j]; \
            const __m256 neg = _mm256_cmp_ps(x[j], _mm256_setzero_ps(), _CMP_LT_OQ);          \
            _mm256_storeu_ps(y + i + 8 * j, _mm256_mul_ps(x[j], _mm256_blendv_ps(_mm256_sub_ps(_mm256_set1_ps(1.0f), q), q, neg))); \
        }                                                                                     \
    }                                                                                         \
}
#define PERMIL(t, n) _mm256_permutevar_ps(t, n)
#define PERM8(t, n) _mm256_permutevar8x32_ps(t, n)
DEFBLK(b4_j2, 2, PERMIL, 7, 1)
DEFBLK(b4_j4, 4, PERMIL, 7, 1)
DEFBLK(b4_j8, 8, PERMIL, 7, 1)
DEFBLK(b8_j1, 1, PERM8, 6, 0)
DEFBLK(b8_j4, 4, PERM8, 6, 0)
DEFBLK(b8_j8, 8, PERM8, 6, 0)
