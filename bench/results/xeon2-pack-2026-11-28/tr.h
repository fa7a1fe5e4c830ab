#if defined(__AVX2__)
/* dst[c * ldd + r] = src[r * lds + c], r, c < 8: an 8 x 8 transpose in
 * registers (packing rows into [k][MR] / [k][NR] panels 8 at a time
 * instead of one scalar store per element).  kf_tr8x8_part: only the
 * first `live` rows of src are read (the rest are zeros) and only the
 * first `lanes` floats of each dst row are written (AVX masked stores),
 * for the last rows of an MR panel that are not a multiple of 8 (MR 12:
 * rows 8..11), the rows past the matrix's edge and the edge B panel. */
#define KF_TR8 1
static inline void kf_tr8x8_regs(__m256 r0, __m256 r1, __m256 r2, __m256 r3, __m256 r4, __m256 r5, __m256 r6,
                                 __m256 r7, __m256 o[8])
{
    __m256 t0 = _mm256_unpacklo_ps(r0, r1), t1 = _mm256_unpackhi_ps(r0, r1), t2 = _mm256_unpacklo_ps(r2, r3),
           t3 = _mm256_unpackhi_ps(r2, r3), t4 = _mm256_unpacklo_ps(r4, r5), t5 = _mm256_unpackhi_ps(r4, r5),
           t6 = _mm256_unpacklo_ps(r6, r7), t7 = _mm256_unpackhi_ps(r6, r7);
    __m256 s0 = _mm256_shuffle_ps(t0, t2, 0x44), s1 = _mm256_shuffle_ps(t0, t2, 0xee),
           s2 = _mm256_shuffle_ps(t1, t3, 0x44), s3 = _mm256_shuffle_ps(t1, t3, 0xee),
           s4 = _mm256_shuffle_ps(t4, t6, 0x44), s5 = _mm256_shuffle_ps(t4, t6, 0xee),
           s6 = _mm256_shuffle_ps(t5, t7, 0x44), s7 = _mm256_shuffle_ps(t5, t7, 0xee);
    o[0] = _mm256_permute2f128_ps(s0, s4, 0x20);
    o[1] = _mm256_permute2f128_ps(s1, s5, 0x20);
    o[2] = _mm256_permute2f128_ps(s2, s6, 0x20);
    o[3] = _mm256_permute2f128_ps(s3, s7, 0x20);
    o[4] = _mm256_permute2f128_ps(s0, s4, 0x31);
    o[5] = _mm256_permute2f128_ps(s1, s5, 0x31);
    o[6] = _mm256_permute2f128_ps(s2, s6, 0x31);
    o[7] = _mm256_permute2f128_ps(s3, s7, 0x31);
}
static inline void kf_tr8x8(const float *src, int64_t lds, float *dst, int64_t ldd)
{
    __m256 o[8];
    kf_tr8x8_regs(_mm256_loadu_ps(src), _mm256_loadu_ps(src + lds), _mm256_loadu_ps(src + 2 * lds),
                  _mm256_loadu_ps(src + 3 * lds), _mm256_loadu_ps(src + 4 * lds), _mm256_loadu_ps(src + 5 * lds),
                  _mm256_loadu_ps(src + 6 * lds), _mm256_loadu_ps(src + 7 * lds), o);
#pragma GCC unroll 8
    for (int c = 0; c < 8; c++) _mm256_storeu_ps(dst + c * ldd, o[c]);
}
static inline void kf_tr8x8_part(const float *src, int64_t lds, int64_t live, float *dst, int64_t ldd, int64_t lanes)
{
    __m256 r[8], o[8];
#pragma GCC unroll 8
    for (int i = 0; i < 8; i++) r[i] = i < live ? _mm256_loadu_ps(src + i * lds) : _mm256_setzero_ps();
    kf_tr8x8_regs(r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7], o);
    const __m256i mask = _mm256_cmpgt_epi32(_mm256_set1_epi32((int)lanes), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
#pragma GCC unroll 8
    for (int c = 0; c < 8; c++) _mm256_maskstore_ps(dst + c * ldd, mask, o[c]);
}
#else
#define KF_TR8 0
#endif
