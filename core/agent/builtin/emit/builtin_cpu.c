/* builtin_cpu.c — the C + OpenMP generator of the built-in agent for the
 * cpu-simd backend (see builtin.h for the contract, plugins/cpu-simd/
 * kforge-cpu.h for the calling convention).
 *
 * One C file per candidate: the prelude, a GEMM library (packing routines
 * and an FMA micro-kernel for AVX-512 / AVX2 / plain C) when the plan has
 * GEMM groups, one static function per group, and kf_kernel() calling them
 * in order.  Sizes of the run's preset are baked in as constants and
 * checked against a->dims on entry. */
#include <config.h>
#include "agent/builtin/builtin.h"
#include "cpu_knobs.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(HAVE_OPENBLAS) && KF_BASELINE_BLAS_PARALLEL == 2
#define KF_BLAS_OPENMP 1
#else
#define KF_BLAS_OPENMP 0
#endif

/* ------------------------------------------------------------------ */
/* the GEMM library (emitted once when a GEMM group exists)            */

/* The longest row whose per-element buffers a row op keeps on the stack
 * (emit_row_body: softmax's exps, small-group GroupNorm's mean and rstd;
 * 64 KiB a buffer: 23 Softmax's rows of 16384 at the cpu preset computed
 * each exp twice at 8192) */
#define KF_ROW_BUF 16384
/* Norm rows longer than this (floats: 1 MiB, half an L2 of the Xeons we
 * measure on) take their mean and variance in one pass, as sums of the
 * differences from kf_row_shift, the mean of its first 16 floats
 * (double): the two-pass form reads a row that has left the cache from
 * memory twice */
#define KF_ROW_ONE_PASS 262144
/* middle-dim reductions read whole rows (emit_middle_rows_open): inner rows
 * of at least this many floats, blocks of at most KF_MID_COLS positions,
 * KF_MID_FLOAT_ROWS rows summed in float before double, parts of at least
 * KF_MID_PART_ROWS rows */
#define KF_MID_ROWS_MIN 256
#define KF_MID_COLS 2048
#define KF_MID_FLOAT_ROWS 16
#define KF_MID_PART_ROWS 64
/* Fewer norm rows than this, each longer than KF_ROW_ONE_PASS, are split
 * over the team (emit_row_group_split): 40 LayerNorm at the cpu preset has
 * 4 rows of 4M, so 4 of the 16-core host's threads worked (34% of the
 * roofline floor) */
#define KF_SPLIT_ROWS 64
/* ... and take the next row's sums in chunks of this many floats (a
 * multiple of the streamed block: a chunk starts where a block does) while
 * writing this row's outputs */
#define KF_SPLIT_CHUNK 512
_Static_assert(KF_SPLIT_CHUNK % KF_BT_CPU_STREAM_BLOCK == 0, "a split row's chunks must start at streamed blocks");

static const char GEMM_LIB[] =
    "/* ---- GEMM library: packing + register-blocked FMA micro-kernel ----\n"
    " * (AVX-512: 32 vector registers, AVX2: 16, NEON: 32, else GCC vectors)\n"
    " * C[MR x NR] tiles are computed from an A micro-panel (MR rows, laid out\n"
    " * [k][MR]) and a B micro-panel (NR columns, laid out [k][NR]); panels are\n"
    " * zero-padded so the micro-kernel never branches.  Edge tiles go through a\n"
    " * small tile buffer. */\n"
    "#if defined(__x86_64__) || defined(__i386__)\n"
    "#include <immintrin.h>\n"
    "#endif\n"
    "#if defined(__AVX512F__)\n"
    "#define KF_VL 16\n"
    "typedef __m512 kf_v;\n"
    "#define kf_vbcast(x) _mm512_set1_ps(x)\n"
    "#define kf_vfma(a, b, c) _mm512_fmadd_ps((a), (b), (c))\n"
    "#ifndef kf_vload   /* else the prelude's row helpers defined these four, the same */\n"
    "#define kf_vload(p) _mm512_loadu_ps(p)\n"
    "#define kf_vstore(p, v) _mm512_storeu_ps((p), (v))\n"
    "#define kf_vadd(a, b) _mm512_add_ps((a), (b))\n"
    "#define kf_vzero() _mm512_setzero_ps()\n"
    "#endif\n"
    "#elif defined(__AVX2__) && defined(__FMA__)\n"
    "#define KF_VL 8\n"
    "typedef __m256 kf_v;\n"
    "#define kf_vbcast(x) _mm256_set1_ps(x)\n"
    "#define kf_vfma(a, b, c) _mm256_fmadd_ps((a), (b), (c))\n"
    "#ifndef kf_vload   /* else the prelude's row helpers defined these four, the same */\n"
    "#define kf_vload(p) _mm256_loadu_ps(p)\n"
    "#define kf_vstore(p, v) _mm256_storeu_ps((p), (v))\n"
    "#define kf_vadd(a, b) _mm256_add_ps((a), (b))\n"
    "#define kf_vzero() _mm256_setzero_ps()\n"
    "#endif\n"
    "#elif defined(__aarch64__) && defined(__ARM_NEON)\n"
    "#include <arm_neon.h>\n"
    "#define KF_VL 4\n"
    "typedef float32x4_t kf_v;\n"
    "#define kf_vload(p) vld1q_f32(p)\n"
    "#define kf_vstore(p, v) vst1q_f32((p), (v))\n"
    "#define kf_vbcast(x) vdupq_n_f32(x)\n"
    "#define kf_vfma(a, b, c) vfmaq_f32((c), (a), (b))\n"
    "#define kf_vadd(a, b) vaddq_f32((a), (b))\n"
    "#define kf_vzero() vdupq_n_f32(0.0f)\n"
    "#else /* portable: GCC vector extensions, 4 floats */\n"
    "#define KF_VL 4\n"
    "typedef float kf_v __attribute__((vector_size(16)));\n"
    "static inline kf_v kf_vload(const float *p) { kf_v v; memcpy(&v, p, sizeof v); return v; }\n"
    "static inline void kf_vstore(float *p, kf_v v) { memcpy(p, &v, sizeof v); }\n"
    "#define kf_vbcast(x) ((kf_v){(x), (x), (x), (x)})\n"
    "#define kf_vfma(a, b, c) ((a) * (b) + (c))\n"
    "#define kf_vadd(a, b) ((a) + (b))\n"
    "#define kf_vzero() ((kf_v){0, 0, 0, 0})\n"
    "#endif\n"
    "#if KF_NR % KF_VL != 0\n"
    "#error \"KF_NR must be a multiple of the vector width\"\n"
    "#endif\n"
    "#define KF_NV (KF_NR / KF_VL)\n"
    "/* Per-thread work buffers (packed panels, the row panel, the AMX claim\n"
    " * states and centres) are kept for the calling thread from one call to the\n"
    " * next, slot by slot, and grown when a call needs more.  Allocated and\n"
    " * freed on every call, they landed at fresh addresses (glibc's aligned\n"
    " * allocations fragment the heap) and every call faulted their pages in\n"
    " * again: 528 faults a thread and call for problem 9's AMX kernel on the\n"
    " * 2-core VM, 2 MiB zeroed by the kernel each time.  Never freed: they live\n"
    " * as long as the thread (a thread pool's threads, as in a BLAS library).\n"
    " * NULL when out of memory. */\n"
    "enum { KF_KEEP_PACK, KF_KEEP_PANEL, KF_KEEP_STATE, KF_KEEP_CENTRE_B, KF_KEEP_CENTRES, KF_KEEP_SLOTS };\n"
    "static __attribute__((unused)) void *kf_keep(int slot, size_t bytes)\n"
    "{\n"
    "    static __thread struct { void *p; size_t n; } kept[KF_KEEP_SLOTS];\n"
    "    if (kept[slot].n < bytes) {\n"
    "        free(kept[slot].p);\n"
    "        kept[slot].p = aligned_alloc(64, (bytes + 63) / 64 * 64);\n"
    "        kept[slot].n = kept[slot].p ? bytes : 0;\n"
    "    }\n"
    "    return kept[slot].p;\n"
    "}\n"
    "/* The column-block order's block width for nt threads (cpu_knobs.h,\n"
    " * KF_BT_CPU_COLUMN_WIDTH_FN: the cost model's rule, kf_bt_cpu_column_width) */\n"
    KF_BT_CPU_COLUMN_WIDTH_SRC
    "#if defined(__AVX2__)\n"
    "/* o[c] = column c of the 8 x 8 block whose rows are r0 .. r7: a transpose in\n"
    " * registers, for the fp32 packers (kf_tr8x8) and i16's (int32 pairs moved as\n"
    " * floats' bits) */\n"
    "static inline void kf_tr8x8_regs(__m256 r0, __m256 r1, __m256 r2, __m256 r3, __m256 r4, __m256 r5, __m256 r6,\n"
    "                                 __m256 r7, __m256 o[8])\n"
    "{\n"
    "    __m256 t0 = _mm256_unpacklo_ps(r0, r1), t1 = _mm256_unpackhi_ps(r0, r1), t2 = _mm256_unpacklo_ps(r2, r3),\n"
    "           t3 = _mm256_unpackhi_ps(r2, r3), t4 = _mm256_unpacklo_ps(r4, r5), t5 = _mm256_unpackhi_ps(r4, r5),\n"
    "           t6 = _mm256_unpacklo_ps(r6, r7), t7 = _mm256_unpackhi_ps(r6, r7);\n"
    "    __m256 s0 = _mm256_shuffle_ps(t0, t2, 0x44), s1 = _mm256_shuffle_ps(t0, t2, 0xee),\n"
    "           s2 = _mm256_shuffle_ps(t1, t3, 0x44), s3 = _mm256_shuffle_ps(t1, t3, 0xee),\n"
    "           s4 = _mm256_shuffle_ps(t4, t6, 0x44), s5 = _mm256_shuffle_ps(t4, t6, 0xee),\n"
    "           s6 = _mm256_shuffle_ps(t5, t7, 0x44), s7 = _mm256_shuffle_ps(t5, t7, 0xee);\n"
    "    o[0] = _mm256_permute2f128_ps(s0, s4, 0x20);\n"
    "    o[1] = _mm256_permute2f128_ps(s1, s5, 0x20);\n"
    "    o[2] = _mm256_permute2f128_ps(s2, s6, 0x20);\n"
    "    o[3] = _mm256_permute2f128_ps(s3, s7, 0x20);\n"
    "    o[4] = _mm256_permute2f128_ps(s0, s4, 0x31);\n"
    "    o[5] = _mm256_permute2f128_ps(s1, s5, 0x31);\n"
    "    o[6] = _mm256_permute2f128_ps(s2, s6, 0x31);\n"
    "    o[7] = _mm256_permute2f128_ps(s3, s7, 0x31);\n"
    "}\n"
    "#endif\n"
    "\n";

/* fp32: packing copies, the micro-kernel broadcasts A and FMAs B rows. */
static const char GEMM_LIB_FP32[] =
    "#if defined(__AVX2__)\n"
    "/* dst[c * ldd + r] = src[r * lds + c], r, c < 8: an 8 x 8 transpose in\n"
    " * registers (packing rows into [k][MR] / [k][NR] panels 8 at a time\n"
    " * instead of one scalar store per element).  kf_tr8x8_part: only the\n"
    " * first `live` rows of src are read (the rest are zeros) and only the\n"
    " * first `lanes` floats of each dst row are written (AVX masked stores),\n"
    " * for the last rows of an MR panel that are not a multiple of 8 (MR 12:\n"
    " * rows 8..11), the rows past the matrix's edge and the edge B panel. */\n"
    "#define KF_TR8 1\n"
    "static inline void kf_tr8x8(const float *src, int64_t lds, float *dst, int64_t ldd)\n"
    "{\n"
    "    __m256 o[8];\n"
    "    kf_tr8x8_regs(_mm256_loadu_ps(src), _mm256_loadu_ps(src + lds), _mm256_loadu_ps(src + 2 * lds),\n"
    "                  _mm256_loadu_ps(src + 3 * lds), _mm256_loadu_ps(src + 4 * lds), _mm256_loadu_ps(src + 5 * lds),\n"
    "                  _mm256_loadu_ps(src + 6 * lds), _mm256_loadu_ps(src + 7 * lds), o);\n"
    "#pragma GCC unroll 8\n"
    "    for (int c = 0; c < 8; c++) _mm256_storeu_ps(dst + c * ldd, o[c]);\n"
    "}\n"
    "static inline void kf_tr8x8_part(const float *src, int64_t lds, int64_t live, float *dst, int64_t ldd, int64_t lanes)\n"
    "{\n"
    "    __m256 r[8], o[8];\n"
    "#pragma GCC unroll 8\n"
    "    for (int i = 0; i < 8; i++) r[i] = i < live ? _mm256_loadu_ps(src + i * lds) : _mm256_setzero_ps();\n"
    "    kf_tr8x8_regs(r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7], o);\n"
    "    const __m256i mask = _mm256_cmpgt_epi32(_mm256_set1_epi32((int)lanes), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));\n"
    "#pragma GCC unroll 8\n"
    "    for (int c = 0; c < 8; c++) _mm256_maskstore_ps(dst + c * ldd, mask, o[c]);\n"
    "}\n"
    "#else\n"
    "#define KF_TR8 0\n"
    "#endif\n"
    "#if defined(__AVX512F__)\n"
    "/* dst[c * ldd + r] = src[r * lds + c], r, c < 16, with AVX-512: 64\n"
    " * shuffles per 256 floats against kf_tr8x8's 96.  On the 2-core Xeon,\n"
    " * packing W's full B panels alone ran at 1.3-1.8x the 8 x 8 order's rate,\n"
    " * and inside problem 9's kernel B's packing took 11-17% less time, A's\n"
    " * 6-13% less (bench/results/xeon2-pack-2026-11-28). */\n"
    "#define KF_TR16 1\n"
    "static inline void kf_tr16x16(const float *src, int64_t lds, int64_t live, float *dst, int64_t ldd, int64_t lanes)\n"
    "{   /* only the first `live` rows of src are read (the rest are zeros), the first `lanes` floats of each dst row written */\n"
    "    __m512 r[16], t[16];\n"
    "    const __mmask16 keep = (__mmask16)((1u << lanes) - 1);\n"
    "#pragma GCC unroll 16\n"
    "    for (int i = 0; i < 16; i++) r[i] = i < live ? _mm512_loadu_ps(src + i * lds) : _mm512_setzero_ps();\n"
    "#pragma GCC unroll 8\n"
    "    for (int i = 0; i < 16; i += 2) {   /* pairs of rows interleaved */\n"
    "        t[i] = _mm512_unpacklo_ps(r[i], r[i + 1]);\n"
    "        t[i + 1] = _mm512_unpackhi_ps(r[i], r[i + 1]);\n"
    "    }\n"
    "#pragma GCC unroll 4\n"
    "    for (int i = 0; i < 16; i += 4) {   /* 4 rows x 4 columns in each 128-bit lane */\n"
    "        r[i] = _mm512_shuffle_ps(t[i], t[i + 2], 0x44);\n"
    "        r[i + 1] = _mm512_shuffle_ps(t[i], t[i + 2], 0xee);\n"
    "        r[i + 2] = _mm512_shuffle_ps(t[i + 1], t[i + 3], 0x44);\n"
    "        r[i + 3] = _mm512_shuffle_ps(t[i + 1], t[i + 3], 0xee);\n"
    "    }\n"
    "#pragma GCC unroll 4\n"
    "    for (int i = 0; i < 4; i++) {   /* then the 128-bit lanes, twice */\n"
    "        t[i] = _mm512_shuffle_f32x4(r[i], r[i + 4], 0x88);\n"
    "        t[i + 4] = _mm512_shuffle_f32x4(r[i], r[i + 4], 0xdd);\n"
    "        t[i + 8] = _mm512_shuffle_f32x4(r[i + 8], r[i + 12], 0x88);\n"
    "        t[i + 12] = _mm512_shuffle_f32x4(r[i + 8], r[i + 12], 0xdd);\n"
    "    }\n"
    "#pragma GCC unroll 4\n"
    "    for (int i = 0; i < 4; i++) {\n"
    "        r[i] = _mm512_shuffle_f32x4(t[i], t[i + 8], 0x88);\n"
    "        r[i + 8] = _mm512_shuffle_f32x4(t[i], t[i + 8], 0xdd);\n"
    "        r[i + 4] = _mm512_shuffle_f32x4(t[i + 4], t[i + 12], 0x88);\n"
    "        r[i + 12] = _mm512_shuffle_f32x4(t[i + 4], t[i + 12], 0xdd);\n"
    "    }\n"
    "#pragma GCC unroll 16\n"
    "    for (int i = 0; i < 16; i++) {\n"
    "        if (lanes == 16) _mm512_storeu_ps(dst + i * ldd, r[i]);\n"
    "        else _mm512_mask_storeu_ps(dst + i * ldd, keep, r[i]);\n"
    "    }\n"
    "}\n"
    "#else\n"
    "#define KF_TR16 0\n"
    "#endif\n"
    "\n"
    "/* Packs rows [i0, i0+mc) x depth [p0, p0+kc) of row-major A (leading\n"
    " * dimension lda) into ceil(mc/MR) micro-panels [k][MR], zero-padded. */\n"
    "static void kf_pack_a(const float *A, int64_t lda, int64_t i0, int64_t mc, int64_t p0, int64_t kc, float *ap)\n"
    "{\n"
    "    for (int64_t ir = 0; ir < mc; ir += KF_MR) {\n"
    "        float *dst = ap + ir * kc;\n"
    "        int64_t m = mc - ir < KF_MR ? mc - ir : KF_MR;\n"
    "#if KF_TR16 && KF_MR > 8 && KF_MR <= 16\n"
    "        {   /* the panel's rows (masked) x 16 k at a time, then the k tail */\n"
    "            const int64_t k16 = kc & ~(int64_t)15;\n"
    "            const float *src = A + (i0 + ir) * lda + p0;\n"
    "            for (int64_t k = 0; k < k16; k += 16) kf_tr16x16(src + k, lda, m, dst + k * KF_MR, KF_MR, KF_MR);\n"
    "            for (int64_t r = 0; r < KF_MR; r++)\n"
    "                for (int64_t k = k16; k < kc; k++) dst[k * KF_MR + r] = r < m ? src[r * lda + k] : 0.0f;\n"
    "            continue;\n"
    "        }\n"
    "#endif\n"
    "#if KF_TR8\n"
    "        const int64_t k8 = kc & ~(int64_t)7;\n"
    "        for (int64_t ii = 0; ii < KF_MR; ii += 8) {   /* 8 rows (or the panel's last) x 8 k at a time, then the k tail */\n"
    "            const int64_t lanes = KF_MR - ii < 8 ? KF_MR - ii : 8;\n"
    "            const int64_t live = m - ii <= 0 ? 0 : m - ii < lanes ? m - ii : lanes;   /* rows of A, the rest 0 */\n"
    "            const float *src = live ? A + (i0 + ir + ii) * lda + p0 : A;\n"
    "            if (live == 8 && lanes == 8)\n"
    "                for (int64_t k = 0; k < k8; k += 8) kf_tr8x8(src + k, lda, dst + k * KF_MR + ii, KF_MR);\n"
    "            else\n"
    "                for (int64_t k = 0; k < k8; k += 8) kf_tr8x8_part(src + k, lda, live, dst + k * KF_MR + ii, KF_MR, lanes);\n"
    "            for (int64_t r = 0; r < lanes; r++)\n"
    "                for (int64_t k = k8; k < kc; k++) dst[k * KF_MR + ii + r] = r < live ? src[r * lda + k] : 0.0f;\n"
    "        }\n"
    "#else\n"
    "        for (int64_t ii = 0; ii < KF_MR; ii++) {\n"
    "            if (ii < m) {\n"
    "                const float *src = A + (i0 + ir + ii) * lda + p0;\n"
    "                for (int64_t k = 0; k < kc; k++) dst[k * KF_MR + ii] = src[k];\n"
    "            } else {\n"
    "                for (int64_t k = 0; k < kc; k++) dst[k * KF_MR + ii] = 0.0f;\n"
    "            }\n"
    "        }\n"
    "#endif\n"
    "    }\n"
    "}\n"
    "\n"
    "/* Packs NR-column micro-panel jp (columns [jp*NR, jp*NR+NR) of B, depth\n"
    " * [p0, p0+kc)) into bp laid out [k][NR], zero-padded past column n.\n"
    " * trans_b: B is (N, K) row-major (nn.Linear weights), else (K, N). */\n"
    "static void kf_pack_b(const float *B, int64_t ldb, int trans_b, int64_t n, int64_t jp, int64_t p0, int64_t kc, float *bp)\n"
    "{\n"
    "    int64_t j0 = jp * KF_NR;\n"
    "    int64_t w = n - j0 < KF_NR ? n - j0 : KF_NR;\n"
    "    if (trans_b) {\n"
    "#if KF_TR16 && KF_NR % 16 == 0\n"
    "        if (w == KF_NR) {   /* a full panel: 16 k x 16 columns at a time, k outer (each row of bp\n"
    "                               written whole while in L1), then the k tail */\n"
    "            const int64_t k16 = kc & ~(int64_t)15;\n"
    "            for (int64_t k = 0; k < k16; k += 16)\n"
    "                for (int64_t j16 = 0; j16 < KF_NR; j16 += 16)\n"
    "                    kf_tr16x16(B + (j0 + j16) * ldb + p0 + k, ldb, 16, bp + k * KF_NR + j16, KF_NR, 16);\n"
    "            for (int64_t k = k16; k < kc; k++)\n"
    "                for (int64_t jj = 0; jj < KF_NR; jj++) bp[k * KF_NR + jj] = B[(j0 + jj) * ldb + p0 + k];\n"
    "            return;\n"
    "        }\n"
    "#endif\n"
    "#if KF_TR8   /* KF_NR is a multiple of 8 */\n"
    "        const int64_t k8 = kc & ~(int64_t)7;\n"
    "        if (w == KF_NR)   /* a full panel: 8 k at a time across all its columns, so that each row of bp\n"
    "                             is written whole while in L1 (not a 32-byte part a pass over kc) */\n"
    "            for (int64_t k = 0; k < k8; k += 8)\n"
    "                for (int64_t j8 = 0; j8 < KF_NR; j8 += 8)\n"
    "                    kf_tr8x8(B + (j0 + j8) * ldb + p0 + k, ldb, bp + k * KF_NR + j8, KF_NR);\n"
    "        for (int64_t j8 = 0; j8 < KF_NR; j8 += 8) {\n"
    "            const int64_t live = w - j8 <= 0 ? 0 : w - j8 < 8 ? w - j8 : 8;   /* columns of B, the rest 0 */\n"
    "            const float *src = live ? B + (j0 + j8) * ldb + p0 : B;   /* 8 columns x 8 k at a time, then the k tail */\n"
    "            if (w == KF_NR) {}   /* above */\n"
    "            else if (live == 8)\n"
    "                for (int64_t k = 0; k < k8; k += 8) kf_tr8x8(src + k, ldb, bp + k * KF_NR + j8, KF_NR);\n"
    "            else\n"
    "                for (int64_t k = 0; k < k8; k += 8) kf_tr8x8_part(src + k, ldb, live, bp + k * KF_NR + j8, KF_NR, 8);\n"
    "            for (int64_t r = 0; r < 8; r++)\n"
    "                for (int64_t k = k8; k < kc; k++) bp[k * KF_NR + j8 + r] = r < live ? src[r * ldb + k] : 0.0f;\n"
    "        }\n"
    "#else\n"
    "        for (int64_t jj = 0; jj < KF_NR; jj++) {\n"
    "            if (jj < w) {\n"
    "                const float *src = B + (j0 + jj) * ldb + p0;\n"
    "                for (int64_t k = 0; k < kc; k++) bp[k * KF_NR + jj] = src[k];\n"
    "            } else {\n"
    "                for (int64_t k = 0; k < kc; k++) bp[k * KF_NR + jj] = 0.0f;\n"
    "            }\n"
    "        }\n"
    "#endif\n"
    "    } else {\n"
    "        for (int64_t k = 0; k < kc; k++) {\n"
    "            const float *src = B + (p0 + k) * ldb + j0;\n"
    "            for (int64_t jj = 0; jj < KF_NR; jj++) bp[k * KF_NR + jj] = jj < w ? src[jj] : 0.0f;\n"
    "        }\n"
    "    }\n"
    "}\n"
    "\n"
    "/* c[MR x NR] (leading dimension ldc) = (add ? c : 0) + ap * bp over kc.\n"
    " * The B micro-panel streams from L2 (the A one stays in L1): its rows\n"
    " * KF_PF_B steps ahead are prefetched, one per 64-byte line (measured on\n"
    " * the 2-core Xeon, 12 x 32, kc 512, B panels cycling through 1 MiB: 217\n"
    " * GFLOP/s a core without, 240 with; the hardware prefetcher alone lags). */\n"
    "#define KF_PF_B 8\n"
    "static inline void kf_ukernel(int64_t kc, const float *restrict ap, const float *restrict bp,\n"
    "                              float *restrict c, int64_t ldc, int add)\n"
    "{\n"
    "    kf_v acc[KF_MR][KF_NV];\n"
    "#pragma GCC unroll 64\n"
    "    for (int i = 0; i < KF_MR; i++)\n"
    "#pragma GCC unroll 8\n"
    "        for (int v = 0; v < KF_NV; v++) acc[i][v] = kf_vzero();\n"
    "#pragma GCC unroll KF_UNROLL_LIT\n"
    "    for (int64_t k = 0; k < kc; k++) {\n"
    "        kf_v b[KF_NV];\n"
    "#pragma GCC unroll 8\n"
    "        for (int v = 0; v < KF_NV; v++) b[v] = kf_vload(bp + k * KF_NR + v * KF_VL);\n"
    "#pragma GCC unroll 8\n"
    "        for (int l = 0; l < KF_NR; l += 16)   /* an address, not a pointer: it may pass the panel's end */\n"
    "            __builtin_prefetch((const void *)((uintptr_t)bp + (uintptr_t)((k + KF_PF_B) * KF_NR + l) * sizeof(float)), 0, 3);\n"
    "#pragma GCC unroll 64\n"
    "        for (int i = 0; i < KF_MR; i++) {\n"
    "            kf_v a = kf_vbcast(ap[k * KF_MR + i]);\n"
    "#pragma GCC unroll 8\n"
    "            for (int v = 0; v < KF_NV; v++) acc[i][v] = kf_vfma(a, b[v], acc[i][v]);\n"
    "        }\n"
    "    }\n"
    "#pragma GCC unroll 64\n"
    "    for (int i = 0; i < KF_MR; i++)\n"
    "#pragma GCC unroll 8\n"
    "        for (int v = 0; v < KF_NV; v++) {\n"
    "            float *p = c + i * ldc + v * KF_VL;\n"
    "            kf_vstore(p, add ? kf_vadd(kf_vload(p), acc[i][v]) : acc[i][v]);\n"
    "        }\n"
    "}\n"
    "/* ---- end of GEMM library ---- */\n";

/* ------------------------------------------------------------------ */
/* helpers                                                             */

#define KF_STR_(x) #x
#define KF_STR(x) KF_STR_(x)

/* Streaming stores (KC_STREAM, cpu_knobs.h): a block computed into an L1
 * buffer goes out with non-temporal stores (kf_stream_block: one full
 * block, streamed where the destination is aligned; kf_stream_store: any
 * length, the aligned middle streamed and the ends as plain stores), so
 * no output line is read before it is overwritten.
 * kf_stream_fence orders them before the team's end (each thread, once). */
static const char STREAM_LIB[] =
    "#if defined(__x86_64__) || defined(__i386__)\n"
    "#include <immintrin.h>\n"
    "#endif\n"
    "static inline __attribute__((unused)) void kf_stream_store(float *restrict dst, const float *restrict src, int64_t n)\n"
    "{\n"
    "    int64_t i = 0;\n"
    "#if defined(__AVX512F__)\n"
    "    for (; i < n && ((uintptr_t)(dst + i) & 63); i++) dst[i] = src[i];\n"
    "    for (; i + 16 <= n; i += 16) _mm512_stream_ps(dst + i, _mm512_loadu_ps(src + i));\n"
    "#elif defined(__AVX__)\n"
    "    for (; i < n && ((uintptr_t)(dst + i) & 31); i++) dst[i] = src[i];\n"
    "    for (; i + 8 <= n; i += 8) _mm256_stream_ps(dst + i, _mm256_loadu_ps(src + i));\n"
    "#elif defined(__SSE2__)\n"
    "    for (; i < n && ((uintptr_t)(dst + i) & 15); i++) dst[i] = src[i];\n"
    "    for (; i + 4 <= n; i += 4) _mm_stream_ps(dst + i, _mm_loadu_ps(src + i));\n"
    "#endif\n"
    "    if (i < n) memcpy(dst + i, src + i, (size_t)(n - i) * sizeof(float));\n"
    "}\n"
    "#define KF_STREAM_BLOCK " KF_STR(KF_BT_CPU_STREAM_BLOCK) "\n"
    "static inline __attribute__((unused)) void kf_stream_block(float *restrict dst, const float *restrict src)\n"
    "{   /* KF_STREAM_BLOCK floats from a 64-byte aligned src: streamed where dst is aligned, else plain\n"
    "       vector stores (no scalar peel: the compiler keeps src in registers) */\n"
    "#if defined(__AVX512F__)\n"
    "    if (!((uintptr_t)dst & 63))\n"
    "        for (int i = 0; i < KF_STREAM_BLOCK; i += 16) _mm512_stream_ps(dst + i, _mm512_load_ps(src + i));\n"
    "    else\n"
    "        for (int i = 0; i < KF_STREAM_BLOCK; i += 16) _mm512_storeu_ps(dst + i, _mm512_load_ps(src + i));\n"
    "#elif defined(__AVX__)\n"
    "    if (!((uintptr_t)dst & 31))\n"
    "        for (int i = 0; i < KF_STREAM_BLOCK; i += 8) _mm256_stream_ps(dst + i, _mm256_load_ps(src + i));\n"
    "    else\n"
    "        for (int i = 0; i < KF_STREAM_BLOCK; i += 8) _mm256_storeu_ps(dst + i, _mm256_load_ps(src + i));\n"
    "#elif defined(__SSE2__)\n"
    "    if (!((uintptr_t)dst & 15))\n"
    "        for (int i = 0; i < KF_STREAM_BLOCK; i += 4) _mm_stream_ps(dst + i, _mm_load_ps(src + i));\n"
    "    else\n"
    "        for (int i = 0; i < KF_STREAM_BLOCK; i += 4) _mm_storeu_ps(dst + i, _mm_load_ps(src + i));\n"
    "#else\n"
    "    memcpy(dst, src, KF_STREAM_BLOCK * sizeof(float));\n"
    "#endif\n"
    "}\n"
    "#define KF_PREFETCH_AHEAD " KF_STR(KF_BT_CPU_PREFETCH_AHEAD) "\n"
    "/* the line KF_PREFETCH_AHEAD floats past p into L1: an address, not a pointer (it may pass\n"
    " * the array's end; a prefetch never faults) */\n"
    "static inline __attribute__((unused)) void kf_prefetch_ahead(const float *p)\n"
    "{\n"
    "    __builtin_prefetch((const void *)((uintptr_t)p + KF_PREFETCH_AHEAD * sizeof(float)), 0, 3);\n"
    "}\n"
    "#define KF_PREFETCH_L2_AHEAD " KF_STR(KF_BT_CPU_PREFETCH_L2_AHEAD) "\n"
    "/* a streamed map's block at p: kf_prefetch_ahead's line, and the block's KF_STREAM_BLOCK\n"
    " * floats KF_PREFETCH_L2_AHEAD further on into L2, every line of them */\n"
    "static inline __attribute__((unused)) void kf_prefetch_block_ahead(const float *p)\n"
    "{\n"
    "    kf_prefetch_ahead(p);\n"
    "    for (int i = 0; i < KF_STREAM_BLOCK; i += 16)\n"
    "        __builtin_prefetch((const void *)((uintptr_t)p + (KF_PREFETCH_L2_AHEAD + i) * sizeof(float)), 0, 2);\n"
    "}\n"
    "/* a full block whose map ends in a GELU (the block buffer holds the GELU's input): with the\n"
    " * prelude's AVX-512 table form (KF__Q_STREAM) each vector's GELU is stored from its registers,\n"
    " * not written back to the buffer for kf_stream_block to read again; else those two steps */\n"
    "#ifdef KF__Q_STREAM\n"
    "#define KF__GELU_STREAM(fn, block_fn, table) \\\n"
    "    static inline __attribute__((unused)) void fn(float *restrict dst, float *restrict src) \\\n"
    "    { kf__q_stream(dst, src, KF_STREAM_BLOCK, table); }\n"
    "#else\n"
    "#define KF__GELU_STREAM(fn, block_fn, table) \\\n"
    "    static inline __attribute__((unused)) void fn(float *restrict dst, float *restrict src) \\\n"
    "    { block_fn(src, KF_STREAM_BLOCK); kf_stream_block(dst, src); }\n"
    "#endif\n"
    "KF__GELU_STREAM(kf_gelu_stream_block, kf_gelu_block, kf__q_gelu)\n"
    "KF__GELU_STREAM(kf_gelu_tanh_stream_block, kf_gelu_tanh_block, kf__q_gelu_tanh)\n"
    "static inline __attribute__((unused)) void kf_stream_fence(void)\n"
    "{\n"
    "#if defined(__SSE2__)\n"
    "    _mm_sfence();\n"
    "#endif\n"
    "}\n\n";

typedef struct gen {
    const kf_bt_plan *pl;
    const kf_resolved *r;
    const kf_problem *p;
    const kf_bt_point *pt;
    kf_sb b;
    int n_scratch;            /* plan scratch + packing buffers */
    char **scratch_names;
    int64_t *scratch_bytes;
    int uses_blas;
    int blas_split;           /* the library is not the OpenMP build: run it single-threaded
                                 on each OpenMP thread's rows (one thread pool) */
    char *declared;           /* per value: V<v> declared in the current function */
    int stream;               /* the group being emitted streams its stores (KC_STREAM) */
    const char *st_idx;       /* set while streaming: the stores go to S<v>[st_idx], the block buffers */
    size_t sl_body;           /* open_stream_loop: where the loop's body starts in b */
    char sl_var[8], sl_hi[64];   /* ... its index variable and end */
    const char *simd_clause;  /* appended to the group's element loop's `omp simd` (a reduction), or NULL */
    const char *row_next;     /* set in a row group: the next row's first element (prefetched), or NULL */
    int gn_carry;             /* set in a streamed row group of large GroupNorm groups (gn_carries) */
    int block_v;              /* in a streamed map: the stored value whose op runs on its block
                                 buffer after the element loop (block_fn, e.g. kf_gelu_block), or -1 */
    const char *block_fn;
    const char *block_stream_fn;   /* block_fn and a full block's streaming stores in one (kf_bt_block_stream_fn) */
    kf_error *err;
    int failed;
} gen_t;

static int add_scratch(gen_t *g, const char *name, int64_t bytes)
{
    char **n = realloc(g->scratch_names, (size_t)(g->n_scratch + 1) * sizeof *n);
    if (!n) return -1;
    g->scratch_names = n;
    int64_t *b = realloc(g->scratch_bytes, (size_t)(g->n_scratch + 1) * sizeof *b);
    if (!b) return -1;
    g->scratch_bytes = b;
    g->scratch_names[g->n_scratch] = strdup(name);
    g->scratch_bytes[g->n_scratch] = bytes < 64 ? 64 : bytes;
    return g->n_scratch++;
}

static int64_t elems(const gen_t *g, int v) { return kf_shape_elems(&g->r->shapes[v]); }

/* C expression of the buffer that holds value v ("a->in[0]" ...). */
static const char *buf_of(const gen_t *g, int v, char *buf, size_t n)
{
    const kf_bt_store *s = &g->pl->store[v];
    switch (s->kind) {
    case KF_BT_ST_INPUT: snprintf(buf, n, "a->in[%d]", s->index); break;
    case KF_BT_ST_OUTPUT: snprintf(buf, n, "a->out[%d]", s->index); break;
    case KF_BT_ST_SCRATCH: snprintf(buf, n, "a->scratch[%d]", s->index); break;
    default: snprintf(buf, n, "NULL"); break;
    }
    return buf;
}

/* Declares a pointer variable V<v> for every value a group reads from
 * memory or stores to memory. */
static void declare_ptr(gen_t *g, int v, int writable)
{
    char bb[64];
    if (g->declared[v]) return;
    g->declared[v] = 1;
    kf_sb_printf(&g->b, "    %sfloat *restrict V%d = %s;   /* %s */\n", writable ? "" : "const ", v,
                    buf_of(g, v, bb, sizeof bb), kf_problem_value_name(g->p, v));
}

/* Starts a generated function: forgets the pointers declared so far. */
static void begin_fn(gen_t *g) { memset(g->declared, 0, (size_t)g->pl->n_values); }

static int in_group(const gen_t *g, int gi, int v) { return g->pl->group_of[v] == gi; }

/* Rows x cols view of a shape: cols = last dim (1 for rank 0). */
static int64_t ncols(const kf_shape *s) { return s->rank ? s->d[s->rank - 1] : 1; }

/* Is operand u of a group of shape S read whole, element for element (the
 * same number of elements, not broadcast): then its offset is ro<u> plus
 * the column.  st: its broadcast strides against S. */
static int full_size_operand(const gen_t *g, int u, const kf_shape *S, int64_t st[KF_MAX_RANK])
{
    const kf_shape *us = &g->r->shapes[u];
    int other_shape = kf_bt_bcast_strides(us, S, st) != 0;   /* the operand of a shape-op copy */
    return kf_shape_elems(us) == kf_shape_elems(S) && (us->rank == S->rank || other_shape);
}

/* Offset expression of out-of-group operand u in a group of shape S at
 * element (row variable rv, column variable cv); per-row parts are hoisted
 * into a variable ro<u> declared by emit_rowoffs(). */
static void operand_offset(gen_t *g, int u, const kf_shape *S, const char *cv, char *out, size_t n)
{
    int64_t st[KF_MAX_RANK];
    int full = full_size_operand(g, u, S, st);
    int64_t last = S->rank ? st[S->rank - 1] : 0;
    if (kf_shape_elems(&g->r->shapes[u]) == 1) { snprintf(out, n, "0"); return; }
    if (full) { snprintf(out, n, "ro%d + %s", u, cv); return; }
    if (last == 0) snprintf(out, n, "ro%d", u);
    else if (last == 1) snprintf(out, n, "ro%d + %s", u, cv);
    else snprintf(out, n, "ro%d + %s * %" PRId64, u, cv, last);
}

/* Declares int64_t ro<u> = row offset of operand u at row variable rv. */
static void emit_rowoff(gen_t *g, int u, const kf_shape *S, const char *rv, const char *indent)
{
    int64_t st[KF_MAX_RANK];
    int full = full_size_operand(g, u, S, st);
    if (kf_shape_elems(&g->r->shapes[u]) == 1) return;
    if (full) {
        kf_sb_printf(&g->b, "%sconst int64_t ro%d = %s * %" PRId64 ";\n", indent, u, rv, ncols(S));
        return;
    }
    kf_sb_printf(&g->b, "%sconst int64_t ro%d = 0", indent, u);
    int64_t inner = 1;
    for (int d = S->rank - 2; d >= 0; d--) {
        if (st[d]) kf_sb_printf(&g->b, " + ((%s / %" PRId64 ") %% %" PRId64 ") * %" PRId64, rv, inner, S->d[d], st[d]);
        inner *= S->d[d];
    }
    kf_sb_puts(&g->b, ";\n");
}

/* Collects the out-of-group tensor operands of nodes[from..] of group gi. */
static int outside_operands(const gen_t *g, int gi, int from, int *ops, int max)
{
    const kf_bt_group *gr = &g->pl->groups[gi];
    int n = 0;
    for (int k = from; k < gr->n_nodes; k++) {
        const kf_node *nd = &g->p->nodes[gr->nodes[k]];
        for (int i = 0; i < nd->n_in; i++) {
            if (nd->in[i].is_scalar || in_group(g, gi, nd->in[i].value)) continue;
            int u = nd->in[i].value, seen = 0;
            for (int j = 0; j < n; j++) seen |= ops[j] == u;
            if (!seen && n < max) ops[n++] = u;
        }
    }
    return n;
}

/* Emits `const float t<v> = ...;` for node nd (value v) and one element,
 * from operand expressions xs and ys: its map expression, or for g->block_v
 * its operand alone (its op runs on the block buffer, stream_out).  Sets
 * g->failed when nd is not a map op or memory runs out. */
static void emit_node(gen_t *g, const kf_node *nd, int v, const char *xs, const char *ys, const char *indent)
{
    char *ex = v == g->block_v ? strdup(xs) : kf_bt_map_expr(nd, xs, ys);
    if (!ex) { g->failed = 1; return; }
    kf_sb_printf(&g->b, "%sconst float t%d = %s;   /* %s%s */\n", indent, v, ex, nd->out,
                 v == g->block_v ? ", its op on the block" : "");
    free(ex);
}

/* Emits the map-op chain nodes[from..] of group gi for one element: the
 * anchor's value is already in local t<anchor value>; out-of-group operands
 * are read at offsets built from column variable cv (row offsets hoisted by
 * emit_rowoff).  Stores every materialised value of the chain (and of the
 * anchor when store_anchor) at flat index expression `e`.  acc_buf, if not
 * NULL, receives the last value at index acc_idx instead of its own store
 * (the GEMM accumulation panel). */
static void emit_chain(gen_t *g, int gi, int from, const char *cv, const char *e, const char *indent,
                       int store_anchor, const char *acc_buf, const char *acc_idx)
{
    const kf_bt_group *gr = &g->pl->groups[gi];
    const kf_shape *S = &gr->shape;
    int ni = g->p->n_inputs;
    for (int k = from; k < gr->n_nodes; k++) {
        const kf_node *nd = &g->p->nodes[gr->nodes[k]];
        char xs[96] = "", ys[96] = "";
        char *dst[2] = {xs, ys};
        for (int i = 0; i < nd->n_in && i < 2; i++) {
            if (nd->in[i].is_scalar) continue;
            int u = nd->in[i].value;
            if (in_group(g, gi, u)) { snprintf(dst[i], 96, "t%d", u); continue; }
            char off[80];
            operand_offset(g, u, S, cv, off, sizeof off);
            snprintf(dst[i], 96, "V%d[%s]", u, off);
        }
        emit_node(g, nd, ni + gr->nodes[k], xs, ys, indent);
        if (g->failed) return;
    }
    for (int k = store_anchor ? 0 : 1; k < gr->n_nodes; k++) {
        int v = ni + gr->nodes[k];
        if (v == gr->last_value && acc_buf) {   /* the accumulation buffer holds it */
            kf_sb_printf(&g->b, "%s%s[%s] = t%d;\n", indent, acc_buf, acc_idx, v);
            continue;
        }
        if (g->pl->store[v].kind == KF_BT_ST_LOCAL) continue;
        if (g->st_idx) kf_sb_printf(&g->b, "%sS%d[%s] = t%d;\n", indent, v, g->st_idx, v);
        else kf_sb_printf(&g->b, "%sV%d[%s] = t%d;\n", indent, v, e, v);
    }
}

/* Declares pointers for a group: out-of-group operands (read-only) and
 * materialised values of the group (writable). */
static void declare_group_ptrs(gen_t *g, int gi, int from)
{
    const kf_bt_group *gr = &g->pl->groups[gi];
    int ops[64];
    int n = outside_operands(g, gi, from, ops, 64);
    for (int i = 0; i < n; i++) declare_ptr(g, ops[i], 0);
    for (int k = 0; k < gr->n_nodes; k++) {
        int v = g->p->n_inputs + gr->nodes[k];
        if (g->pl->store[v].kind != KF_BT_ST_LOCAL) declare_ptr(g, v, 1);
    }
}

static void emit_rowoffs(gen_t *g, int gi, int from, const char *rv, const char *indent)
{
    int ops[64];
    int n = outside_operands(g, gi, from, ops, 64);
    for (int i = 0; i < n; i++) emit_rowoff(g, ops[i], &g->pl->groups[gi].shape, rv, indent);
}

/* ------------------------------------------------------------------ */
/* streaming stores (KC_STREAM)                                         */

/* A training batch_norm over (N, C, L) whose channel (N x L floats) fits
 * half an L2 is normalised right after its statistics, in the channel loop
 * (emit_generic_group). */
static int bn_in_channel(const gen_t *g, const kf_bt_group *gr)
{
    const kf_node *an = &g->p->nodes[gr->nodes[0]];
    return gr->kind == KF_BT_GENERIC && an->op == KF_OP_BATCH_NORM && an->training && gr->gen.inner > 1 &&
           gr->gen.outer * gr->gen.inner <= KF_ROW_ONE_PASS;
}

/* A training batch_norm over (N, C) (no L: a GEMM's output, Level 2's 33
 * and 41): statistics from each thread's block of rows read in order, then
 * those rows normalised (emit_generic_group). */
#define KF_BN_SUM_CHANNELS 512   /* channels whose sums (8 KiB) a pass over a thread's rows keeps in L1 */
static int bn_by_rows(const gen_t *g, const kf_bt_group *gr)
{
    const kf_node *an = &g->p->nodes[gr->nodes[0]];
    return gr->kind == KF_BT_GENERIC && an->op == KF_OP_BATCH_NORM && an->training && gr->gen.inner == 1;
}

/* Does group gi stream its stores: the knob on (never in the baseline), a
 * map group, a row op with an output per element or an in-channel
 * batch_norm, and at least KF_BT_CPU_STREAM_MIN_BYTES stored? */
static int group_streams(const gen_t *g, int gi)
{
    const kf_bt_group *gr = &g->pl->groups[gi];
    if (g->pt->baseline || !g->pt->knob[KC_STREAM]) return 0;
    if (bn_in_channel(g, gr)) {
        /* streams: the rows of the channel's outputs */
    } else if (gr->kind == KF_BT_ROW) {
        switch (g->p->nodes[gr->nodes[0]].op) {
        case KF_OP_SOFTMAX: case KF_OP_LOG_SOFTMAX: case KF_OP_LAYER_NORM: case KF_OP_RMS_NORM:
        case KF_OP_INSTANCE_NORM: case KF_OP_GROUP_NORM: break;
        default: return 0;
        }
    } else if (gr->kind != KF_BT_MAP) {
        return 0;
    }
    int64_t bytes = 0;
    for (int k = 0; k < gr->n_nodes; k++) {
        int v = g->p->n_inputs + gr->nodes[k];
        if (g->pl->store[v].kind != KF_BT_ST_LOCAL) bytes += elems(g, v) * (int64_t)sizeof(float);
    }
    return bytes >= KF_BT_CPU_STREAM_MIN_BYTES;
}

/* Does any group of the plan stream (then the kernel has STREAM_LIB)? */
static int plan_streams(const gen_t *g)
{
    for (int gi = 0; gi < g->pl->n_groups; gi++)
        if (g->pl->groups[gi].fused_into < 0 && group_streams(g, gi)) return 1;
    return 0;
}

/* Declares the block buffers S<v> of group gi's stored values. */
static void stream_buffers(gen_t *g, int gi, const char *ind)
{
    const kf_bt_group *gr = &g->pl->groups[gi];
    for (int k = 0; k < gr->n_nodes; k++) {
        int v = g->p->n_inputs + gr->nodes[k];
        if (g->pl->store[v].kind != KF_BT_ST_LOCAL)
            kf_sb_printf(&g->b, "%sfloat S%d[%d] __attribute__((aligned(64)));\n", ind, v, KF_BT_CPU_STREAM_BLOCK);
    }
}

/* Streams a block out for each stored value: S<v>[0, count) to V<v> + off,
 * count NULL for a full block. */
static void stream_out(gen_t *g, int gi, const char *off, const char *count, const char *ind)
{
    const kf_bt_group *gr = &g->pl->groups[gi];
    for (int k = 0; k < gr->n_nodes; k++) {
        int v = g->p->n_inputs + gr->nodes[k];
        if (g->pl->store[v].kind == KF_BT_ST_LOCAL) continue;
        if (v == g->block_v && !count) {   /* the op and the stores in one pass */
            kf_sb_printf(&g->b, "%s%s(V%d + %s, S%d);\n", ind, g->block_stream_fn, v, off, v);
            continue;
        }
        if (v == g->block_v) kf_sb_printf(&g->b, "%s%s(S%d, %s);\n", ind, g->block_fn, v, count);
        if (count)
            kf_sb_printf(&g->b, "%skf_stream_store(V%d + %s, S%d, %s);\n", ind, v, off, v, count);
        else
            kf_sb_printf(&g->b, "%skf_stream_block(V%d + %s, S%d);\n", ind, v, off, v);
    }
}

/* Appends text with every line indented by ind more. */
static void append_indented(kf_sb *b, const char *text, const char *ind)
{
    while (*text) {
        const char *nl = strchr(text, '\n');
        size_t n = nl ? (size_t)(nl - text) + 1 : strlen(text);
        if (n > 1) kf_sb_puts(b, ind);
        kf_sb_append(b, text, n);
        text += n;
    }
}

/* A streamed loop: `var` over [lo, hi) (C expressions, hi evaluated once a
 * block) in blocks of KF_BT_CPU_STREAM_BLOCK.  A full block runs a loop of
 * constant trip count whose stores go to S<v>[l_] and then out with
 * kf_stream_block; the last, partial block runs the same body and
 * kf_stream_store.  The caller emits the body once, indented one level
 * under `ind`, between open_stream_loop and close_stream_loop, which copies
 * it into both loops; `off` (close) is the stores' offset at the block's
 * start c0_.  pf (or NULL): statements run at each block's start, one a
 * line (the map's prefetches). */
static void open_stream_loop(gen_t *g, int gi, const char *ind, const char *var, const char *lo, const char *hi,
                             const char *pf)
{
    if (strlen(var) >= sizeof g->sl_var || strlen(hi) >= sizeof g->sl_hi) {
        g->failed = 1;
        kf_fail(g->err, KF_E_INTERNAL, "builtin cpu generator: streamed loop bound too long (%s)", hi);
        return;
    }
    char in8[64];
    snprintf(in8, sizeof in8, "%s        ", ind);
    char in4[64];
    snprintf(in4, sizeof in4, "%s    ", ind);
    kf_sb_printf(&g->b, "%sfor (int64_t c0_ = %s; c0_ < %s; c0_ += %d) {\n", ind, lo, hi, KF_BT_CPU_STREAM_BLOCK);
    if (pf) append_indented(&g->b, pf, in4);
    kf_sb_printf(&g->b, "%sif (c0_ + %d <= %s) {\n", in4, KF_BT_CPU_STREAM_BLOCK, hi);
    stream_buffers(g, gi, in8);
    kf_sb_printf(&g->b,
                 "%s#pragma omp simd%s\n"
                 "%sfor (int64_t l_ = 0; l_ < %d; l_++) {\n"
                 "%s    const int64_t %s = c0_ + l_;\n",
                 in8, g->simd_clause ? g->simd_clause : "", in8, KF_BT_CPU_STREAM_BLOCK, in8, var);
    g->sl_body = g->b.len;
    snprintf(g->sl_var, sizeof g->sl_var, "%s", var);
    snprintf(g->sl_hi, sizeof g->sl_hi, "%s", hi);
    g->st_idx = "l_";
}

static void close_stream_loop(gen_t *g, int gi, const char *ind, const char *off)
{
    if (g->failed) return;   /* open_stream_loop failed: no loop to close */
    char *body = strdup(g->b.s + g->sl_body);
    if (!body) {
        g->failed = 1;
        kf_fail(g->err, KF_E_INTERNAL, "out of memory");
        return;
    }
    g->b.len = g->sl_body;
    g->b.s[g->b.len] = '\0';
    char in8[64], in4[64];
    snprintf(in4, sizeof in4, "%s    ", ind);
    snprintf(in8, sizeof in8, "%s        ", ind);
    const char *v = g->sl_var;
    append_indented(&g->b, body, "        ");
    kf_sb_printf(&g->b, "%s}\n", in8);
    stream_out(g, gi, off, NULL, in8);
    kf_sb_printf(&g->b, "%s} else {   /* the last block, partial */\n", in4);
    stream_buffers(g, gi, in8);
    kf_sb_printf(&g->b,
                 "%s#pragma omp simd%s\n"
                 "%sfor (int64_t %s = c0_; %s < %s; %s++) {\n"
                 "%s    const int64_t l_ = %s - c0_;\n",
                 in8, g->simd_clause ? g->simd_clause : "", in8, v, v, g->sl_hi, v, in8, v);
    append_indented(&g->b, body, "        ");
    free(body);
    char count[80];
    snprintf(count, sizeof count, "%s - c0_", g->sl_hi);
    kf_sb_printf(&g->b, "%s}\n", in8);
    stream_out(g, gi, off, count, in8);
    kf_sb_printf(&g->b, "%s}\n%s}\n", in4, ind);
    g->st_idx = NULL;
}

/* The team of a group's loop: one `parallel for`, or with streaming a
 * parallel region whose threads fence their streamed stores after the
 * loop (close_team). */
static void open_team(gen_t *g)
{
    if (g->stream)
        kf_sb_puts(&g->b, "    #pragma omp parallel num_threads(nt)\n    {\n    #pragma omp for schedule(static)\n");
    else
        kf_sb_puts(&g->b, "    #pragma omp parallel for num_threads(nt) schedule(static)\n");
}

static void close_team(gen_t *g)
{
    if (g->stream) kf_sb_puts(&g->b, "    kf_stream_fence();\n    }\n");
}

/* The prelude function a streamed loop of kind site (KF_BT_CPU_PF_*) reads
 * ahead of each block with, at the point's prefetch knob; NULL: none */
static const char *prefetch_fn(const gen_t *g, unsigned site)
{
    switch (kf_bt_cpu_pf_kind(site, g->pt->knob[KC_PREFETCH])) {
    case KF_BT_CPU_PF_LINE: return "kf_prefetch_ahead";
    case KF_BT_CPU_PF_BLOCK: return "kf_prefetch_block_ahead";
    default: return NULL;
    }
}

/* ------------------------------------------------------------------ */
/* MAP groups                                                          */

static void emit_map_group(gen_t *g, int gi)
{
    const kf_bt_group *gr = &g->pl->groups[gi];
    const kf_shape *S = &gr->shape;
    int64_t cols = ncols(S), rows = kf_shape_elems(S) / (cols ? cols : 1);
    int64_t chunk = cols < 4096 ? cols : 2048;
    int64_t nch = (cols + chunk - 1) / chunk;
    begin_fn(g);
    g->stream = group_streams(g, gi);
    if (g->stream) {   /* a last op with a block form (the GELUs) runs on each block buffer */
        const kf_node *ln = &g->p->nodes[gr->nodes[gr->n_nodes - 1]];
        int lv = g->p->n_inputs + gr->nodes[gr->n_nodes - 1];
        g->block_fn = kf_bt_block_fn(ln);
        g->block_stream_fn = kf_bt_block_stream_fn(ln);
        if (g->block_fn && !ln->in[0].is_scalar && g->pl->store[lv].kind != KF_BT_ST_LOCAL) g->block_v = lv;
    }
    kf_sb_printf(&g->b, "static void group%d(const kf_cpu_args *a, int nt)\n{\n", gi);
    declare_group_ptrs(g, gi, 0);
    kf_sb_printf(&g->b, "    /* elementwise over %" PRId64 " rows x %" PRId64 " columns, in chunks of %" PRId64 "%s */\n",
                 rows, cols, chunk, g->stream ? ", stored in blocks through a buffer with streaming stores" : "");
    open_team(g);
    kf_sb_printf(&g->b,
                    "    for (int64_t w = 0; w < %" PRId64 "; w++) {\n"
                    "        const int64_t r = w / %" PRId64 ", j0 = (w %% %" PRId64 ") * %" PRId64 ";\n"
                    "        const int64_t j1 = j0 + %" PRId64 " < %" PRId64 " ? j0 + %" PRId64 " : %" PRId64 ";\n",
                    rows * nch, nch, nch, chunk, chunk, cols, chunk, cols);
    emit_rowoffs(g, gi, 0, "r", "        ");
    if (g->stream) {   /* the full-size inputs prefetched ahead of each block */
        kf_sb pf = {0};
        int ops[64], nops = outside_operands(g, gi, 0, ops, 64);
        const char *fn = prefetch_fn(g, KF_BT_CPU_PF_MAP);
        for (int i = 0; fn && i < nops; i++) {
            int64_t st[KF_MAX_RANK];
            if (full_size_operand(g, ops[i], S, st)) kf_sb_printf(&pf, "%s(V%d + ro%d + c0_);\n", fn, ops[i], ops[i]);
        }
        if (pf.oom) {
            kf_sb_free(&pf);
            g->failed = 1;
            kf_fail(g->err, KF_E_INTERNAL, "out of memory");
            return;
        }
        open_stream_loop(g, gi, "        ", "j", "j0", "j1", pf.s);
        kf_sb_free(&pf);
    } else {
        kf_sb_puts(&g->b, "        #pragma omp simd\n        for (int64_t j = j0; j < j1; j++) {\n");
    }
    /* the anchor itself is a map op over memory operands; the rest of the
       chain follows it in registers */
    const kf_node *an = &g->p->nodes[gr->nodes[0]];
    int ni = g->p->n_inputs;
    {
        char xs[96] = "", ys[96] = "";
        char *dst[2] = {xs, ys};
        for (int i = 0; i < an->n_in && i < 2; i++) {
            if (an->in[i].is_scalar) continue;
            int u = an->in[i].value;
            char off[80];
            operand_offset(g, u, S, "j", off, sizeof off);
            snprintf(dst[i], 96, "V%d[%s]", u, off);
        }
        emit_node(g, an, ni + gr->nodes[0], xs, ys, "            ");
        if (g->failed) return;
    }
    char e[64];
    snprintf(e, sizeof e, "r * %" PRId64 " + j", cols);
    emit_chain(g, gi, 1, "j", e, "            ", 1, NULL, NULL);
    if (g->stream) {
        char off[64];
        snprintf(off, sizeof off, "r * %" PRId64 " + c0_", cols);
        close_stream_loop(g, gi, "        ", off);
    } else {
        kf_sb_puts(&g->b, "        }\n");
    }
    kf_sb_puts(&g->b, "    }\n");
    close_team(g);
    kf_sb_puts(&g->b, "}\n\n");
    g->stream = 0;
    g->block_v = -1;
}

/* ------------------------------------------------------------------ */
/* ROW groups: the anchor over each contiguous row, then its map tail    */

/* The map tail of ROW group gi for element o of row rr (both in scope,
 * with the anchor's value in t<anchor value>), indented by ind plus four:
 * its out-of-group operands at the flat output index, then the chain from
 * node 1, storing every materialised value (the anchor's too). */
static void emit_row_tail(gen_t *g, int gi, const char *ind)
{
    const kf_bt_group *gr = &g->pl->groups[gi];
    kf_sb *b = &g->b;
    char e[64], cv[16] = "o";
    snprintf(e, sizeof e, "rr * %" PRId64 " + o", gr->row.out_len);
    char ind2[64];
    snprintf(ind2, sizeof ind2, "%s    ", ind);
    int ops[64];
    int nops = outside_operands(g, gi, 1, ops, 64);
    if (nops) {
        /* operands of the tail are indexed by the flat output index */
        kf_sb_printf(b, "%sconst int64_t e_ = %s;\n", ind2, e);
        for (int i = 0; i < nops; i++) {
            const kf_shape *us = &g->r->shapes[ops[i]];
            int64_t st[KF_MAX_RANK];
            kf_bt_bcast_strides(us, &gr->shape, st);
            if (kf_shape_elems(us) == 1) continue;
            kf_sb_printf(b, "%sconst int64_t ro%d = 0", ind2, ops[i]);
            int64_t inner = 1, OL = gr->row.out_len;
            for (int d = gr->shape.rank - 1; d >= 0; d--) {
                int64_t span = inner * gr->shape.d[d];
                /* dims within the row are read off o (e_ = rr * OL + o, o <
                   OL): no 64-bit division by the row index in a loop the
                   compiler is to vectorise (88's row tail: 16.9 -> 10.5 ms) */
                if (st[d] && span == OL)
                    kf_sb_printf(b, " + (o / %" PRId64 ") * %" PRId64, inner, st[d]);
                else if (st[d] && OL % span == 0)
                    kf_sb_printf(b, " + ((o / %" PRId64 ") %% %" PRId64 ") * %" PRId64, inner, gr->shape.d[d], st[d]);
                else if (st[d])
                    kf_sb_printf(b, " + ((e_ / %" PRId64 ") %% %" PRId64 ") * %" PRId64, inner, gr->shape.d[d], st[d]);
                inner = span;
            }
            kf_sb_puts(b, ";\n");
        }
        snprintf(cv, sizeof cv, "0");
    }
    /* operand_offset() adds the column for full-shape operands: with cv "0"
       every offset is the hoisted flat one */
    emit_chain(g, gi, 1, cv, e, ind2, 1, NULL, NULL);
}

/* The loop of a row op's outputs, o over [lo, hi) (C expressions), at
 * indent ind; streamed (g->stream) through open_stream_loop, with pf (or
 * NULL) at each block's start. */
static void open_out_loop(gen_t *g, int gi, const char *ind, const char *lo, const char *hi, const char *pf)
{
    if (g->stream)
        open_stream_loop(g, gi, ind, "o", lo, hi, pf);
    else
        kf_sb_printf(&g->b, "%s#pragma omp simd\n%sfor (int64_t o = %s; o < %s; o++) {\n", ind, ind, lo, hi);
}

static void close_out_loop(gen_t *g, int gi, const char *ind)
{
    if (!g->stream) {
        kf_sb_printf(&g->b, "%s}\n", ind);
        return;
    }
    char off[64];
    snprintf(off, sizeof off, "rr * %" PRId64 " + c0_", g->pl->groups[gi].row.out_len);
    close_stream_loop(g, gi, ind, off);
}

/* The next row's pointer for the row helpers' prefetch: C text, "NULL" outside a row group. */
static const char *row_next(const gen_t *g)
{
    return g->row_next ? g->row_next : "NULL";
}

/* Emits the body that computes one row: input row pointer `xr`, row
 * index `rr` (0..rows-1), writes the tail's stores at flat index
 * rr*out_len + o.  Shared by standalone ROW groups and ROW tails fused
 * into a GEMM row panel. */
static void emit_row_body(gen_t *g, int gi, const char *ind)
{
    const kf_bt_group *gr = &g->pl->groups[gi];
    const kf_node *an = &g->p->nodes[gr->nodes[0]];
    int av = g->p->n_inputs + gr->nodes[0];
    int64_t L = gr->row.row_len, OL = gr->row.out_len;
    char epsl[48];
    kf_bt_flit(an->eps, epsl);
    kf_sb *b = &g->b;
    int wv = an->n_in > 1 && !an->in[1].is_scalar ? an->in[1].value : -1;
    int bv = an->n_in > 2 && !an->in[2].is_scalar ? an->in[2].value : -1;
    char wexpr[96] = "", bexpr[96] = "";
    char ol[32], ind4[64];   /* the output length; the indent of a loop nested once */
    snprintf(ol, sizeof ol, "%" PRId64, OL);
    snprintf(ind4, sizeof ind4, "%s    ", ind);
    int loop = 0;   /* the output loop is open (open_out_loop) */

    switch (an->op) {
    case KF_OP_SUM: case KF_OP_MEAN: case KF_OP_LOGSUMEXP: case KF_OP_AMAX: case KF_OP_AMIN: {
        if (an->op == KF_OP_AMAX || an->op == KF_OP_AMIN) {
            const char *cmp = an->op == KF_OP_AMAX ? ">" : "<";
            kf_sb_printf(b, "%sfloat m = xr[0];\n%sfor (int64_t k = 1; k < %" PRId64 "; k++) m = (xr[k] %s m || xr[k] != xr[k]) ? xr[k] : m;\n",
                            ind, ind, L, cmp);
            kf_sb_printf(b, "%sconst float t%d = m;\n", ind, av);
        } else if (an->op == KF_OP_LOGSUMEXP) {
            kf_sb_printf(b,
                            "%sfloat m = kf_row_max(xr, %" PRId64 ");   /* as softmax's */\n"
                            "%sif (isinf(m)) m = 0.0f;   /* all -inf (or an inf): as torch.logsumexp */\n"
                            "%sconst double s = kf_row_exp_sum(xr, m, NULL, %" PRId64 ", %s);\n"
                            "%sconst float t%d = (float)(log(s) + m);\n",
                            ind, L, ind, ind, L, row_next(g), ind, av);
        } else {
            char div[48] = "";
            if (an->op == KF_OP_MEAN) snprintf(div, sizeof div, " / %" PRId64 ".0", L);
            kf_sb_printf(b,
                            "%sdouble s = 0.0;\n"
                            "%s#pragma omp simd reduction(+:s)\n"
                            "%sfor (int64_t k = 0; k < %" PRId64 "; k++) s += xr[k];\n"
                            "%sconst float t%d = (float)(s%s);\n",
                            ind, ind, ind, L, ind, av, div);
        }
        kf_sb_printf(b, "%s{\n%s    const int64_t o = 0;\n", ind, ind);
        break;
    }
    case KF_OP_SOFTMAX: case KF_OP_LOG_SOFTMAX: {
        /* the max and the sum of exps through the prelude's row helpers
           (AVX-512 intrinsics where the CPU has them: GCC's vectorised
           kf_exp took about twice the instructions; NaN is never the max,
           as before); softmax keeps each exp in a row buffer where the row
           fits KF_ROW_BUF, so the output loop does not compute it again
           (99's softmax row op: 23% -> 10% of its AMX kernel's samples on
           the 2-core VM) */
        int keep = an->op == KF_OP_SOFTMAX && OL == L && L <= KF_ROW_BUF;
        kf_sb_printf(b, "%sconst float m = kf_row_max(xr, %" PRId64 ");\n", ind, L);
        if (keep)
            kf_sb_printf(b,
                            "%sfloat ex[%" PRId64 "] __attribute__((aligned(64)));\n"
                            "%sconst double s = kf_row_exp_sum(xr, m, ex, %" PRId64 ", %s);\n",
                            ind, L, ind, L, row_next(g));
        else
            kf_sb_printf(b, "%sconst double s = kf_row_exp_sum(xr, m, NULL, %" PRId64 ", %s);\n", ind, L,
                         row_next(g));
        if (an->op == KF_OP_SOFTMAX)
            kf_sb_printf(b, "%sconst float inv = (float)(1.0 / s);\n", ind);
        else
            kf_sb_printf(b, "%sconst float lse = (float)log(s) + m;\n", ind);
        open_out_loop(g, gi, ind, "0", ol, NULL);
        loop = 1;
        kf_sb_printf(b, an->op == KF_OP_LOG_SOFTMAX ? "%s    const float t%d = xr[o] - lse;\n"
                        : keep ? "%s    const float t%d = ex[o] * inv;\n"
                               : "%s    const float t%d = kf_exp(xr[o] - m) * inv;\n", ind, av);
        break;
    }
    case KF_OP_LAYER_NORM: case KF_OP_RMS_NORM: case KF_OP_INSTANCE_NORM:
        /* the statistics through the prelude's kf_row_moments (float
           block sums added in double: the per-element double arithmetic
           before cost 0.2 ns an element a thread in batch_norm's variance
           pass from L2 on the 2-core VM, xeon2-cpu-norms-2026-11-29) */
        if (an->op == KF_OP_RMS_NORM)
            kf_sb_printf(b,
                            "%sdouble s, q;\n"
                            "%skf_row_moments(xr, %" PRId64 ", 0.0f, &s, &q, %s);\n"
                            "%sconst float mean = 0.0f, rstd = (float)(1.0 / sqrt(q / %" PRId64 ".0 + %s));\n",
                            ind, ind, L, row_next(g), ind, L, epsl);
        else if (L > KF_ROW_ONE_PASS)
            kf_sb_printf(b,
                            "%sconst float sh = kf_row_shift(xr, %" PRId64 ");   /* one pass: sums of x - shift */\n"
                            "%sdouble s, q;\n"
                            "%skf_row_moments(xr, %" PRId64 ", sh, &s, &q, %s);\n"
                            "%sconst double mu = sh + s / %" PRId64 ".0, var = (q - s * s / %" PRId64 ".0) / %" PRId64 ".0;\n"
                            "%sconst float mean = (float)mu, rstd = (float)(1.0 / sqrt((var > 0.0 ? var : 0.0) + %s));\n",
                            ind, L, ind, ind, L, row_next(g), ind, L, L, L, ind, epsl);
        else
            kf_sb_printf(b,
                            "%sdouble s, q;   /* two passes: the mean, then sums of x - mean */\n"
                            "%skf_row_moments(xr, %" PRId64 ", 0.0f, &s, &q, NULL);\n"
                            "%sconst double mu = s / %" PRId64 ".0;\n"
                            "%skf_row_moments(xr, %" PRId64 ", (float)mu, &s, &q, %s);\n"
                            "%sconst double var = (q - s * s / %" PRId64 ".0) / %" PRId64 ".0;\n"
                            "%sconst float mean = (float)mu, rstd = (float)(1.0 / sqrt((var > 0.0 ? var : 0.0) + %s));\n",
                            ind, ind, L, ind, L, ind, L, row_next(g), ind, L, L, ind, epsl);
        if (an->op != KF_OP_INSTANCE_NORM) {
            if (wv >= 0) snprintf(wexpr, sizeof wexpr, " * V%d[o]", wv);
            if (bv >= 0) snprintf(bexpr, sizeof bexpr, " + V%d[o]", bv);
        }
        open_out_loop(g, gi, ind, "0", ol, NULL);
        loop = 1;
        kf_sb_printf(b, "%s    const float t%d = (xr[o] - mean) * rstd%s%s;\n", ind, av, wexpr, bexpr);
        break;
    case KF_OP_GROUP_NORM: {
        int64_t G = an->groups, gl = L / G, inner = gr->row.inner;
        char cexpr[64];
        if (inner == 1) snprintf(cexpr, sizeof cexpr, "o");
        else snprintf(cexpr, sizeof cexpr, "(o / %" PRId64 ")", inner);
        if (wv >= 0) snprintf(wexpr, sizeof wexpr, " * V%d[%s]", wv, cexpr);
        if (bv >= 0) snprintf(bexpr, sizeof bexpr, " + V%d[%s]", bv, cexpr);
        if (gl < KF_GN_SMALL_GROUP && L <= KF_ROW_BUF) {
            /* Small groups (88: 8 channels, 62: 4): loops of gl elements per
               group left most of each vector idle and paid a loop's overhead
               and a horizontal sum per group (the row op took 43% of 88's
               3xbf16 kernel on the 2-core VM).  Instead the statistics are
               vectorised across the groups, each group's mean and rstd spread
               over its elements, and the row runs as one loop (88: 17.0 ->
               10.5 ms there, the same outputs). */
            kf_sb_printf(b,
                            "%sdouble mean_g[%" PRId64 "], rstd_g[%" PRId64 "];   /* groups of %" PRId64 " contiguous channels */\n"
                            "%sfloat mean_e[%" PRId64 "] __attribute__((aligned(64))), rstd_e[%" PRId64 "] __attribute__((aligned(64)));\n"
                            "%s#pragma omp simd\n"
                            "%sfor (int64_t q0 = 0; q0 < %" PRId64 "; q0++) {   /* across the groups */\n"
                            "%s    double s = 0.0;\n"
                            "%s    for (int64_t k = 0; k < %" PRId64 "; k++) s += xr[q0 * %" PRId64 " + k];\n"
                            "%s    mean_g[q0] = s / %" PRId64 ".0;\n"
                            "%s}\n"
                            "%s#pragma omp simd\n"
                            "%sfor (int64_t q0 = 0; q0 < %" PRId64 "; q0++) {\n"
                            "%s    double q = 0.0;\n"
                            "%s    for (int64_t k = 0; k < %" PRId64 "; k++) { double d = xr[q0 * %" PRId64 " + k] - mean_g[q0]; q += d * d; }\n"
                            "%s    rstd_g[q0] = 1.0 / sqrt(q / %" PRId64 ".0 + %s);\n"
                            "%s}\n"
                            "%sfor (int64_t q0 = 0; q0 < %" PRId64 "; q0++)   /* each group's figures on its elements */\n"
                            "%s    for (int64_t k = 0; k < %" PRId64 "; k++) {\n"
                            "%s        mean_e[q0 * %" PRId64 " + k] = (float)mean_g[q0];\n"
                            "%s        rstd_e[q0 * %" PRId64 " + k] = (float)rstd_g[q0];\n"
                            "%s    }\n"
                            "%s{\n",
                            ind, G, G, gl / inner, ind, L, L, ind, ind, G, ind, ind, gl, gl, ind, gl, ind, ind, ind, G,
                            ind, ind, gl, gl, ind, gl, epsl, ind, ind, G, ind, gl, ind, gl, ind, gl, ind, ind);
            char len[32];
            snprintf(len, sizeof len, "%" PRId64, L);
            open_out_loop(g, gi, ind4, "0", len, NULL);
            kf_sb_printf(b, "%s    const float t%d = (xr[o] - mean_e[o]) * rstd_e[o]%s%s;\n", ind4, av, wexpr, bexpr);
            break;
        }
        kf_sb_printf(b,
                        "%sfloat mean_g[%" PRId64 "], rstd_g[%" PRId64 "];\n"
                        "%sfor (int64_t q0 = 0; q0 < %" PRId64 "; q0++) {   /* groups of %" PRId64 " contiguous channels */\n"
                        "%s    const float *xg = xr + q0 * %" PRId64 ";\n",
                        ind, G, G, ind, G, gl / inner, ind, gl);
        if (g->gn_carry)   /* one pass, read beside the last group's stores */
            kf_sb_printf(b,
                            "%s    const float *gnn_ = q0 + 1 < %" PRId64 " || rr + 1 < r1_ ? xg + %" PRId64 " : NULL;   /* this thread's next group */\n"
                            "%s    float sh = gnh_;   /* sums of x - sh: from the last group's output loop but in the thread's first */\n"
                            "%s    if (rr == r0_ && q0 == 0) {   /* by the same blocks: the same sums whichever thread starts where */\n"
                            "%s        sh = kf_row_shift(xg, %" PRId64 ");\n"
                            "%s        kf_moments_blocks(xg, %" PRId64 ", sh, gns_, gnq_);\n"
                            "%s    }\n"
                            "%s    const double s = kf_sum_lanes(gns_), q = kf_sum_lanes(gnq_);\n"
                            "%s    for (int j_ = 0; j_ < 8; j_++) gns_[j_] = gnq_[j_] = 0.0;\n"
                            "%s    gnh_ = gnn_ ? kf_row_shift(gnn_, %" PRId64 ") : 0.0f;\n"
                            "%s    const double mu = sh + s / %" PRId64 ".0;\n",
                            ind, G, gl, ind, ind, ind, gl, ind, gl, ind, ind, ind, ind, gl, ind, gl);
        else
            kf_sb_printf(b,
                            "%s    double s, q;   /* the mean, then sums of x - mean */\n"
                            "%s    kf_row_moments(xg, %" PRId64 ", 0.0f, &s, &q, NULL);\n"
                            "%s    const double mu = s / %" PRId64 ".0;\n"
                            "%s    kf_row_moments(xg, %" PRId64 ", (float)mu, &s, &q, NULL);\n",
                            ind, ind, gl, ind, gl, ind, gl);
        kf_sb_printf(b,
                        "%s    const double var = (q - s * s / %" PRId64 ".0) / %" PRId64 ".0;\n"
                        "%s    mean_g[q0] = (float)mu;\n"
                        "%s    rstd_g[q0] = (float)(1.0 / sqrt((var > 0.0 ? var : 0.0) + %s));\n",
                        ind, gl, gl, ind, ind, epsl);
        /* each group's outputs right after its statistics, while the group
           is still in cache (35 at the cpu preset: groups of 512 KiB, rows
           of 4 MiB: the row was read from memory twice) */
        kf_sb_printf(b, "%s    const float mean = mean_g[q0], rstd = rstd_g[q0];\n", ind);
        char lo[48], hi[48], pf[512];
        snprintf(lo, sizeof lo, "q0 * %" PRId64, gl);
        snprintf(hi, sizeof hi, "(q0 + 1) * %" PRId64, gl);
        const char *fn = prefetch_fn(g, KF_BT_CPU_PF_GROUPS);   /* the next group read ahead */
        int n = fn ? snprintf(pf, sizeof pf, "if (gnn_) %s(gnn_ + (c0_ - %s));\n", fn, lo) : 0;
        snprintf(pf + n, sizeof pf - (size_t)n, "if (gnn_) kf_moments_block(gnn_ + (c0_ - %s), %s - c0_ < %d ? %s - c0_ : %d, gnh_, gns_, gnq_);\n",
                 lo, hi, KF_BT_CPU_STREAM_BLOCK, hi, KF_BT_CPU_STREAM_BLOCK);
        open_out_loop(g, gi, ind4, lo, hi, g->gn_carry ? pf : NULL);
        kf_sb_printf(b, "%s    const float t%d = (xr[o] - mean) * rstd%s%s;\n", ind4, av, wexpr, bexpr);
        break;
    }
    case KF_OP_MAX_POOL1D: case KF_OP_AVG_POOL1D: {
        int ismax = an->op == KF_OP_MAX_POOL1D;
        char avgexpr[48];   /* count_include_pad: divide by the window size */
        snprintf(avgexpr, sizeof avgexpr, "acc / %d.0f", an->kernel_size);
        kf_sb_printf(b, "%sfor (int64_t o = 0; o < %" PRId64 "; o++) {\n", ind, OL);
        kf_sb_printf(b,
                        "%s    const int64_t s0 = o * %d - %d;\n"
                        "%s    float acc = %s;\n"
                        "%s    for (int64_t q = 0; q < %d; q++) {\n"
                        "%s        const int64_t k = s0 + q;\n"
                        "%s        if (k < 0 || k >= %" PRId64 ") continue;   /* padding */\n"
                        "%s        %s\n"
                        "%s    }\n"
                        "%s    const float t%d = %s;\n",
                        ind, an->stride, an->padding, ind, ismax ? "-INFINITY" : "0.0f", ind, an->kernel_size,
                        ind, ind, L, ind,
                        ismax ? "acc = (xr[k] > acc || xr[k] != xr[k]) ? xr[k] : acc;" : "acc += xr[k];", ind, ind,
                        av, ismax ? "acc" : avgexpr);
        break;
    }
    default:
        g->failed = 1;
        kf_fail(g->err, KF_E_INTERNAL, "builtin cpu generator: %s is not a row op", kf_op_name(an->op));
        return;
    }
    /* the map tail, element o of this row (group norm's loop is nested once) */
    emit_row_tail(g, gi, an->op == KF_OP_GROUP_NORM ? ind4 : ind);
    if (an->op == KF_OP_GROUP_NORM) {
        close_out_loop(g, gi, ind4);
        kf_sb_printf(b, "%s}\n", ind);
    } else if (loop) {
        close_out_loop(g, gi, ind);
    } else {
        kf_sb_printf(b, "%s}\n", ind);
    }
}

/* The pointers of ROW group gi: its row op's operands (read-only), then
 * its tail's outside operands and stored values (declare_group_ptrs). */
static void declare_row_ptrs(gen_t *g, int gi)
{
    const kf_node *an = &g->p->nodes[g->pl->groups[gi].nodes[0]];
    declare_ptr(g, an->in[0].value, 0);
    for (int i = 1; i < an->n_in; i++)
        if (!an->in[i].is_scalar) declare_ptr(g, an->in[i].value, 0);
    declare_group_ptrs(g, gi, 1);
}

/* Is group gi a norm of few long rows (KF_SPLIT_ROWS) that each thread
 * takes a slice of (never in the baseline, which keeps a row a thread)? */
static int row_group_splits(const gen_t *g, int gi)
{
    const kf_bt_group *gr = &g->pl->groups[gi];
    if (g->pt->baseline || gr->kind != KF_BT_ROW || gr->fused_into >= 0) return 0;
    kf_op op = g->p->nodes[gr->nodes[0]].op;
    return (op == KF_OP_LAYER_NORM || op == KF_OP_RMS_NORM || op == KF_OP_INSTANCE_NORM) &&
           gr->row.rows < KF_SPLIT_ROWS && gr->row.row_len > KF_ROW_ONE_PASS && gr->row.out_len == gr->row.row_len;
}

static int gn_carries(const gen_t *g, int gi);

unsigned kf_bt_cpu_prefetch_sites(const kf_resolved *r, const kf_bt_point *pt)
{
    kf_bt_plan plan;
    if (!r || kf_bt_plan_point(r, pt, &plan, NULL) != 0) return 0;
    const gen_t g = {.pl = &plan, .r = r, .p = r->problem, .pt = pt, .block_v = -1};
    unsigned sites = 0;
    for (int gi = 0; gi < plan.n_groups; gi++) {
        const kf_bt_group *gr = &plan.groups[gi];
        if (gr->fused_into >= 0 || !group_streams(&g, gi)) continue;
        if (gr->kind == KF_BT_MAP) {   /* emit_map_group: a full-size operand is prefetched */
            int ops[64], nops = outside_operands(&g, gi, 0, ops, 64);
            int64_t st[KF_MAX_RANK];
            for (int i = 0; i < nops; i++)
                if (full_size_operand(&g, ops[i], &gr->shape, st)) sites |= KF_BT_CPU_PF_MAP;
        } else if (row_group_splits(&g, gi)) {   /* emit_row_group_split */
            sites |= KF_BT_CPU_PF_SPLIT;
        } else if (gn_carries(&g, gi)) {   /* the next group's reads */
            sites |= KF_BT_CPU_PF_GROUPS;
        } else if (bn_in_channel(&g, gr)) {   /* the next channel's */
            sites |= KF_BT_CPU_PF_CHANNELS;
        }
    }
    kf_bt_plan_free(&plan);
    return sites;
}

/* Does streamed row group gi normalise groups of at least KF_GN_SMALL_GROUP
 * channels one after another (GroupNorm's large-group loop) at stream 2?
 * Then each group's output loop also reads the thread's next group and
 * takes its sums of x - shift and (x - shift)^2 (kf_moments_block, the
 * shift kf_row_shift's): the passes that read a group for its mean and
 * then its variance with nothing else to do go, one pass a group is left
 * (the outputs', from L2), and the reads from memory run beside the
 * streamed stores (the variance's pass from L2 stayed until
 * epyc2-cpu-moments-2026-11-30: 35 in a harness, 3.56-3.60 -> 3.11-3.21
 * ms).  A knob value, not stream 1's loop, because it paid on one CPU and
 * not on the other before that: 35 at the cpu preset, kforge profile in
 * turns (bench/results/epyc2-cpu-passes-2026-11-30, xeon16-cpu-passes-
 * 2026-11-30): on the 2-core Zen 4 (reads alone about half a copy there)
 * 4.28 / 4.63 / 4.39 ms before, 3.52 / 4.02 / 3.45 after; on the 16-core
 * host (reads alone 71-90% of a copy) never faster at 2, 4, 8 or 16
 * threads, slower in every round at 8 and in one call's at 16, as the
 * same change was there before (62f2802, reverted in 86f11e1).  The
 * search offers it beside stream 1 and measures the two (cpu_space.c,
 * group_reads_overlap and overlaps_group_reads).  The threads take their
 * rows in order by hand (r0_ to r1_): a thread's last group reads no group
 * that another thread takes.  With the variance carried too, the 16-core
 * host timed stream 2 lower than before in 3 of 3 rounds and level with
 * stream 1 (bench/results/xeon16-cpu-moments-2026-11-30): still a knob. */
static int gn_carries(const gen_t *g, int gi)
{
    const kf_bt_group *gr = &g->pl->groups[gi];
    const kf_node *an = &g->p->nodes[gr->nodes[0]];
    if (g->pt->knob[KC_STREAM] != 2 || gr->kind != KF_BT_ROW || gr->fused_into >= 0 ||
        an->op != KF_OP_GROUP_NORM || !group_streams(g, gi))
        return 0;
    int64_t L = gr->row.row_len, gl = L / an->groups;
    return !(gl < KF_GN_SMALL_GROUP && L <= KF_ROW_BUF);
}

/* Does any group of the plan split its rows, hand out batch_norm's
 * channels by thread or carry GroupNorm's sums between the groups of a
 * thread's rows (then the kernel has OMP_IDS)? */
static int plan_splits(const gen_t *g)
{
    for (int gi = 0; gi < g->pl->n_groups; gi++)
        if (row_group_splits(g, gi) || bn_in_channel(g, &g->pl->groups[gi]) || bn_by_rows(g, &g->pl->groups[gi]) ||
            gn_carries(g, gi))
            return 1;
    return 0;
}

/* The OpenMP thread queries of emit_row_group_split, without OpenMP too. */
static const char OMP_IDS[] =
    "#ifdef _OPENMP\n"
    "#include <omp.h>\n"
    "#else\n"
    "#define omp_get_thread_num() 0\n"
    "#define omp_get_num_threads() 1\n"
    "#endif\n";

/* A sum, mean, max or min over the middle dim of x (outer O x len L x inner
 * I, I >= KF_MID_ROWS_MIN) read whole rows at a time: a block of up to
 * KF_MID_COLS inner positions (the whole row at 47's 2047) accumulates
 * rows in order, KF_MID_FLOAT_ROWS of them in a float buffer and then into
 * double (sum, mean), so each thread reads its rows front to back; where
 * the team outnumbers the blocks, each block's rows are cut into parts (at
 * least KF_MID_PART_ROWS rows each) whose results a second loop combines in
 * a fixed order.  Problem 47 at the cpu preset, old form (pieces of 1024
 * inner positions of every row, 8 KiB apart) against this one, medians in
 * turns: 3.8-4.4 against 2.7-3.2 ms on the 2-core Xeon, 0.70-1.20 against
 * 0.57-0.87 ms on the 16-core host (bench/results/xeon2-cpu-membound-
 * 2026-11-29, xeon16-cpu-membound-2026-11-29).  The float buffer takes
 * three rows a pass (one load and store of f for three of x): one row a
 * pass held 47 to 75% of a plain read on the 2-core Zen 4 (the rows of
 * 2047 floats are unaligned, f's loads and stores shared L1 with them);
 * `kforge profile` in turns there 2.54 / 2.83 / 2.56 ms against 2.11 /
 * 2.18 / 2.07 (bench/results/epyc2-cpu-passes-2026-11-30); on the 16-core
 * host, where one row a pass already read at the plain read's speed,
 * within noise (0.73 / 0.67 / 0.73 against 0.70 / 0.72 / 0.66 ms,
 * bench/results/xeon16-cpu-passes-2026-11-30).
 * Emits the group's function up to the combine loop's body, inside which
 * double r_ is the result of output (oi, i); the caller writes the tail
 * and closes the two loops, the part buffer (part_) and the function. */
/* The lines of emit_middle_rows_open's two loops that place block blk:
 * its outer index oi, first inner position i0 and width n (CB, less in the
 * row's last block). */
static void emit_middle_block(kf_sb *b, int64_t nch, int64_t CB, int64_t I)
{
    kf_sb_printf(b,
                 "        const int64_t oi = blk / %" PRId64 ", i0 = (blk %% %" PRId64 ") * %" PRId64 ";\n"
                 "        const int64_t n = i0 + %" PRId64 " < %" PRId64 " ? %" PRId64 " : %" PRId64 " - i0;\n",
                 nch, nch, CB, CB, I, CB, I);
}

static void emit_middle_rows_open(gen_t *g, const kf_node *an, int xv, int64_t O, int64_t L, int64_t I)
{
    kf_sb *b = &g->b;
    int mx = an->op == KF_OP_AMAX || an->op == KF_OP_AMIN;
    const char *cmp = an->op == KF_OP_AMIN ? "<" : ">";
    int64_t CB = I < KF_MID_COLS ? I : KF_MID_COLS, nch = (I + CB - 1) / CB;
    int64_t maxp = L / KF_MID_PART_ROWS > 1 ? L / KF_MID_PART_ROWS : 1;
    kf_sb_printf(b,
                 "    /* %s over a middle dim: outer %" PRId64 " x len %" PRId64 " x inner %" PRId64 ", whole rows in order:\n"
                 "       blocks of %" PRId64 " inner positions, each cut into P_ parts of its rows when the team\n"
                 "       outnumbers the %" PRId64 " blocks; the parts combined in order after */\n"
                 "    int64_t P_ = (nt + %" PRId64 " - 1) / %" PRId64 ";\n"
                 "    if (P_ > %" PRId64 ") P_ = %" PRId64 ";\n"
                 "    double *part_ = malloc((size_t)P_ * %" PRId64 " * sizeof(double));   /* [block][part][position] */\n"
                 "    if (!part_) return;\n"
                 "    #pragma omp parallel for num_threads(nt) schedule(static)\n"
                 "    for (int64_t w = 0; w < %" PRId64 " * P_; w++) {\n"
                 "        const int64_t blk = w / P_, p = w %% P_;\n",
                 kf_op_name(an->op), O, L, I, CB, O * nch, O * nch, O * nch, maxp, maxp, O * nch * CB, O * nch);
    emit_middle_block(b, nch, CB, I);
    kf_sb_printf(b,
                 "        const int64_t k0 = %" PRId64 " * p / P_, k1 = %" PRId64 " * (p + 1) / P_;\n"
                 "        const float *xo = V%d + oi * %" PRId64 " + i0;\n"
                 "        double *s = part_ + w * %" PRId64 ";\n"
                 "        float f[%" PRId64 "];\n",
                 L, L, xv, L * I, CB, CB);
    if (mx)
        kf_sb_printf(b,
                     "        for (int64_t i = 0; i < n; i++) f[i] = xo[k0 * %" PRId64 " + i];\n"
                     "        for (int64_t k = k0 + 1; k < k1; k++) {\n"
                     "            const float *xr = xo + k * %" PRId64 ";\n"
                     "            for (int64_t i = 0; i < n; i++) { float v = xr[i]; if (v %s f[i] || v != v) f[i] = v; }\n"
                     "        }\n"
                     "        for (int64_t i = 0; i < n; i++) s[i] = f[i];\n"
                     "    }\n",
                     I, I, cmp);
    else
        kf_sb_printf(b,
                     "        for (int64_t i = 0; i < n; i++) s[i] = 0.0;\n"
                     "        for (int64_t k = k0; k < k1; k += %d) {\n"
                     "            const int64_t kn = k1 - k < %d ? k1 - k : %d;\n"
                     "            const float *xr = xo + k * %" PRId64 ";\n"
                     "            #pragma omp simd\n"
                     "            for (int64_t i = 0; i < n; i++) f[i] = xr[i];\n"
                     "            int64_t j = 1;\n"
                     "            for (; j + 3 <= kn; j += 3) {   /* three rows a pass over f */\n"
                     "                const float *xq = xr + j * %" PRId64 ";\n"
                     "                #pragma omp simd\n"
                     "                for (int64_t i = 0; i < n; i++) f[i] += (xq[i] + xq[i + %" PRId64 "]) + xq[i + %" PRId64 "];\n"
                     "            }\n"
                     "            for (; j < kn; j++) {\n"
                     "                const float *xq = xr + j * %" PRId64 ";\n"
                     "                #pragma omp simd\n"
                     "                for (int64_t i = 0; i < n; i++) f[i] += xq[i];\n"
                     "            }\n"
                     "            #pragma omp simd\n"
                     "            for (int64_t i = 0; i < n; i++) s[i] += f[i];\n"
                     "        }\n"
                     "    }\n",
                     KF_MID_FLOAT_ROWS, KF_MID_FLOAT_ROWS, KF_MID_FLOAT_ROWS, I, I, I, 2 * I, I);
    kf_sb_printf(b,
                 "    #pragma omp parallel for num_threads(nt) schedule(static)\n"
                 "    for (int64_t blk = 0; blk < %" PRId64 "; blk++) {\n",
                 O * nch);
    emit_middle_block(b, nch, CB, I);
    kf_sb_printf(b,
                 "        for (int64_t i = i0; i < i0 + n; i++) {\n"
                 "            const double *sp = part_ + blk * P_ * %" PRId64 " + (i - i0);\n"
                 "            double r_ = sp[0];\n",
                 CB);
    if (mx)
        kf_sb_printf(b, "            for (int64_t p = 1; p < P_; p++) { double v = sp[p * %" PRId64 "]; if (v %s r_ || v != v) r_ = v; }\n",
                     CB, cmp);
    else
        kf_sb_printf(b, "            for (int64_t p = 1; p < P_; p++) r_ += sp[p * %" PRId64 "];\n", CB);
}

/* Norm rows split over the team (KF_SPLIT_ROWS): each thread takes a
 * slice of every row, its partial one-pass sums (of x - kf_row_shift(x),
 * double) go to a shared array, a barrier, then every thread combines them and writes its
 * slice's outputs, the slice still in its cache (a thread's part of a row
 * of 16 MiB is 1 MiB at 16 threads).  Rows are taken one at a time. */
static void emit_row_group_split(gen_t *g, int gi)
{
    const kf_bt_group *gr = &g->pl->groups[gi];
    const kf_node *an = &g->p->nodes[gr->nodes[0]];
    kf_sb *b = &g->b;
    int av = g->p->n_inputs + gr->nodes[0], rms = an->op == KF_OP_RMS_NORM;
    int64_t L = gr->row.row_len, R = gr->row.rows;
    char epsl[48], wexpr[96] = "", bexpr[96] = "";
    kf_bt_flit(an->eps, epsl);
    int wv = an->n_in > 1 && !an->in[1].is_scalar ? an->in[1].value : -1;
    int bv = an->n_in > 2 && !an->in[2].is_scalar ? an->in[2].value : -1;
    if (an->op != KF_OP_INSTANCE_NORM) {
        if (wv >= 0) snprintf(wexpr, sizeof wexpr, " * V%d[o]", wv);
        if (bv >= 0) snprintf(bexpr, sizeof bexpr, " + V%d[o]", bv);
    }
    begin_fn(g);
    g->stream = group_streams(g, gi);
    kf_sb_printf(b, "static void group%d(const kf_cpu_args *a, int nt)\n{\n", gi);
    declare_row_ptrs(g, gi);
    kf_sb_printf(b,
                 "    /* %s over %" PRId64 " rows of %" PRId64 " contiguous elements, each row split over the team%s */\n"
                 "    double *part_ = malloc((size_t)nt * (%" PRId64 " + 1) * 2 * sizeof(double));   /* [row][thread][s, q] */\n"
                 "    if (!part_) return;\n"
                 "    #pragma omp parallel num_threads(nt)\n"
                 "    {\n"
                 "    const int t_ = omp_get_thread_num(), T_ = omp_get_num_threads();\n"
                 "    const int64_t k0_ = %" PRId64 " * t_ / T_ / 16 * 16, k1_ = t_ == T_ - 1 ? %" PRId64 " : %" PRId64 " * (t_ + 1) / T_ / 16 * 16;\n",
                 kf_op_name(an->op), R, L, g->stream ? ", outputs stored through a buffer with streaming stores" : "", R, L, L, L);
    /* one pass: sums of x - kf_row_shift(x); the next row's, chunk by chunk, in the
       loop that writes this row's outputs (the first row's before it), so
       reads from memory and stores overlap (40 on the 2-core Zen 4 VM, in
       a harness: bench/results/epyc2-cpu-membound-2026-11-29) */
    char sh0[64];
    snprintf(sh0, sizeof sh0, rms ? "0.0f" : "kf_row_shift(V%d, %" PRId64 ")", an->in[0].value, L);
    char shr[64], shn[80];
    snprintf(shr, sizeof shr, "kf_row_shift(xr, %" PRId64 ")", L);
    snprintf(shn, sizeof shn, "xn_ ? kf_row_shift(xn_, %" PRId64 ") : 0.0f", L);
    kf_sb_printf(b,
                 "    {\n"
                 "        double s, q;\n"
                 "        kf_row_moments(V%d + k0_, k1_ - k0_, %s, &s, &q, NULL);\n"
                 "        part_[t_ * 2] = s;\n"
                 "        part_[t_ * 2 + 1] = q;\n"
                 "    }\n"
                 "    for (int64_t rr = 0; rr < %" PRId64 "; rr++) {\n"
                 "        const float *xr = V%d + rr * %" PRId64 ";\n"
                 "        const float *xn_ = rr + 1 < %" PRId64 " ? xr + %" PRId64 " : NULL;   /* the next row */\n"
                 "        const float sh = %s, shn_ = %s;   /* one pass: sums of x - shift */\n"
                 "        double s = 0.0, q = 0.0, sn_ = 0.0, qn_ = 0.0;\n"
                 "        #pragma omp barrier\n"
                 "        for (int i = 0; i < T_; i++) { s += part_[(rr * T_ + i) * 2]; q += part_[(rr * T_ + i) * 2 + 1]; }\n",
                 an->in[0].value, sh0, R, an->in[0].value, L, R, L, rms ? "0.0f" : shr, rms ? "0.0f" : shn);
    if (rms)
        kf_sb_printf(b, "        const float mean = 0.0f, rstd = (float)(1.0 / sqrt(q / %" PRId64 ".0 + %s));\n", L, epsl);
    else
        kf_sb_printf(b,
                     "        const double mu = sh + s / %" PRId64 ".0, var = (q - s * s / %" PRId64 ".0) / %" PRId64 ".0;\n"
                     "        const float mean = (float)mu, rstd = (float)(1.0 / sqrt((var > 0.0 ? var : 0.0) + %s));\n",
                     L, L, L, epsl);
    /* the row is larger than the caches (it is split over the team): read from memory again,
       the next page prefetched (40 at the cpu preset on the 2-core VM, with kf_row_moments's
       own prefetch: 7-22% less time, bench/results/xeon2-cpu-map-prefetch-2026-11-29) */
    static const char next_chunk[] =
        "if (xn_ && !((c0_ - k0_) %% %d)) {   /* the next row's chunk */\n"
        "    double bs_, bq_;\n"
        "    kf_row_moments(xn_ + c0_, k1_ - c0_ < %d ? k1_ - c0_ : %d, shn_, &bs_, &bq_, NULL);\n"
        "    sn_ += bs_;\n"
        "    qn_ += bq_;\n"
        "}\n";
    char pf[512];
    if (g->stream) {
        const char *fn = prefetch_fn(g, KF_BT_CPU_PF_SPLIT);
        int n = fn ? snprintf(pf, sizeof pf, "%s(xr + c0_);\n", fn) : 0;
        snprintf(pf + n, sizeof pf - (size_t)n, next_chunk, KF_SPLIT_CHUNK, KF_SPLIT_CHUNK, KF_SPLIT_CHUNK);
        open_out_loop(g, gi, "        ", "k0_", "k1_", pf);
    } else {   /* chunks of plain loops */
        snprintf(pf, sizeof pf, next_chunk, KF_SPLIT_CHUNK, KF_SPLIT_CHUNK, KF_SPLIT_CHUNK);
        kf_sb_printf(b, "        for (int64_t c0_ = k0_; c0_ < k1_; c0_ += %d) {\n", KF_SPLIT_CHUNK);
        append_indented(b, pf, "            ");
        kf_sb_printf(b, "            const int64_t c1_ = k1_ - c0_ < %d ? k1_ : c0_ + %d;\n", KF_SPLIT_CHUNK, KF_SPLIT_CHUNK);
        open_out_loop(g, gi, "            ", "c0_", "c1_", NULL);
    }
    const char *bi = g->stream ? "        " : "            ";   /* the output loop's indent */
    kf_sb_printf(b, "%s    const float t%d = (xr[o] - mean) * rstd%s%s;\n", bi, av, wexpr, bexpr);
    emit_row_tail(g, gi, bi);
    close_out_loop(g, gi, bi);
    if (!g->stream) kf_sb_puts(b, "        }\n");
    kf_sb_puts(b,
               "        part_[((rr + 1) * T_ + t_) * 2] = sn_;   /* past the last row: the array's spare slots */\n"
               "        part_[((rr + 1) * T_ + t_) * 2 + 1] = qn_;\n"
               "    }\n");
    if (g->stream) kf_sb_puts(b, "    kf_stream_fence();\n");
    kf_sb_puts(b, "    }\n    free(part_);\n}\n\n");
    g->stream = 0;
}

/* A standalone softmax whose rows fit the row buffer and whose outputs are
 * streamed, pipelined over each thread's rows (its contiguous share of
 * them, in order): row r's exps are computed block by block beside the
 * streamed stores of row r - 1's outputs, and row r + 1 is prefetched into
 * L2 meanwhile, so the reads from memory, the arithmetic and the stores
 * overlap as in a copy, where one row after another kept them in separate
 * phases; the thread's last row is stored after its loop.  Problem 23 at
 * the cpu preset (1024 x 16384) on the 2-core Zen 4 VM, 2 threads, in
 * turns: 4.29-4.57 -> 3.76-3.82 ms, 72-76% -> 83-87% of a streaming copy
 * over the same buffers (bench/results/epyc2-cpu-softmax-2026-11-29); the
 * 16-core Xeon host, 16 threads: 7-9% off the median in five rounds
 * (bench/results/xeon16-cpu-softmax-2026-11-29).  Online (Milakov and
 * Gimelshein's one-pass softmax, a block at a time): each block's max joins
 * the row's running max, the row's sum rescaled when it rises, the block's
 * exps relative to that max and its factor e^(mb - m) / sum applied at the
 * stores, so a row is read once where a max pass read it first (a tenth of
 * the kernel's time on the 16-core host: bench/results/xeon16-cpu-harness-share-2026-12-01,
 * d23_nomax; the online form: bench/results/xeon16-cpu-softmax-online-2026-12-01). */
static int softmax_pipelines(const gen_t *g, int gi)
{
    const kf_bt_group *gr = &g->pl->groups[gi];
    const kf_node *an = &g->p->nodes[gr->nodes[0]];
    return an->op == KF_OP_SOFTMAX && gr->row.out_len == gr->row.row_len && gr->row.row_len <= KF_ROW_BUF &&
           gr->row.rows >= 2 && group_streams(g, gi);
}

/* The streamed stores of softmax row rr's outputs (ex[o] times its block's
 * factor fb_, then the row's tail) at indent ind, with pf at each block's
 * start (or NULL) */
static void emit_softmax_stores(gen_t *g, int gi, const char *ind, const char *pf)
{
    char ol[32], in4[64];
    snprintf(ol, sizeof ol, "%" PRId64, g->pl->groups[gi].row.row_len);
    snprintf(in4, sizeof in4, "%s    ", ind);
    open_out_loop(g, gi, ind, "0", ol, pf);
    kf_sb_printf(&g->b, "%sconst float t%d = ex[o] * fb_[c0_ / %d];\n", in4, g->p->n_inputs + g->pl->groups[gi].nodes[0],
                 KF_BT_CPU_STREAM_BLOCK);
    emit_row_tail(g, gi, ind);
    close_out_loop(g, gi, ind);
}

static void emit_row_group_softmax(gen_t *g, int gi)
{
    const kf_bt_group *gr = &g->pl->groups[gi];
    const kf_node *an = &g->p->nodes[gr->nodes[0]];
    const int64_t R = gr->row.rows, L = gr->row.row_len;
    const int B = KF_BT_CPU_STREAM_BLOCK;
    const int64_t nb = (L + B - 1) / B, nbp = (nb + 15) / 16 * 16;   /* blocks, padded to whole vectors */
    kf_sb *b = &g->b;
    char pf[200];
    snprintf(pf, sizeof pf, "mbc_[c0_ / %d] = kf_row_exp_block_online(xc_ + c0_, &mc_, &sc_, exc_ + c0_, %" PRId64
                            " - c0_ < %d ? %" PRId64 " - c0_ : %d, nx_ ? nx_ + c0_ : NULL);\n", B, L, B, L, B);
    begin_fn(g);
    kf_sb_printf(b, "static void group%d(const kf_cpu_args *a, int nt)\n{\n", gi);
    declare_row_ptrs(g, gi);
    g->stream = 1;
    kf_sb_printf(b,
                    "    /* softmax over %" PRId64 " rows of %" PRId64 " contiguous elements, outputs stored through a\n"
                    "     * buffer with streaming stores, pipelined: each row's exps beside the last row's stores;\n"
                    "     * online: a row is read once, each block's exps relative to the row's running max */\n"
                    "    #pragma omp parallel num_threads(nt)\n"
                    "    {\n"
                    "    float exb_[2][%" PRId64 "] __attribute__((aligned(64)));   /* this row's exps and the last row's */\n"
                    "    float mbb_[2][%" PRId64 "] __attribute__((aligned(64)));   /* their blocks' maxes, padded with -inf */\n"
                    "    for (int j_ = 0; j_ < %" PRId64 "; j_++) mbb_[0][j_] = mbb_[1][j_] = -INFINITY;\n"
                    "    int64_t rp_ = -1;   /* the last row, stored in this row's loop (or after the thread's rows) */\n"
                    "    float invp_ = 0.0f, mp_ = 0.0f;   /* its 1 / sum and max */\n"
                    "    #pragma omp for schedule(static)\n"
                    "    for (int64_t rc_ = 0; rc_ < %" PRId64 "; rc_++) {\n"
                    "        const float *xc_ = V%d + rc_ * %" PRId64 ";\n"
                    "        const float *nx_ = rc_ + 1 < %" PRId64 " ? xc_ + %" PRId64 " : NULL;   /* prefetched into L2 */\n"
                    "        float *exc_ = exb_[rc_ & 1], *mbc_ = mbb_[rc_ & 1];\n"
                    "        float mc_ = -INFINITY;   /* the running max */\n"
                    "        double sc_ = 0.0;\n"
                    "        if (rp_ < 0) {   /* the thread's first row: nothing to store yet */\n"
                    "            for (int64_t c0_ = 0; c0_ < %" PRId64 "; c0_ += %d)\n"
                    "                %s"
                    "        } else {   /* row rr = rp_'s outputs */\n"
                    "            const int64_t rr = rp_;\n"
                    "            const float *ex = exb_[rp_ & 1];\n"
                    "            float fb_[%" PRId64 "] __attribute__((aligned(64)));   /* its blocks' factors */\n"
                    "            kf_row_block_factors(mbb_[rp_ & 1], mp_, invp_, fb_, %" PRId64 ");\n",
                    R, L, L, nbp, nbp, R, an->in[0].value, L, R, L, L, B, pf, nbp, nbp);
    emit_softmax_stores(g, gi, "            ", pf);
    kf_sb_printf(b,
                    "        }\n"
                    "        invp_ = (float)(1.0 / sc_);\n"
                    "        mp_ = mc_;\n"
                    "        rp_ = rc_;\n"
                    "    }\n"
                    "    if (rp_ >= 0) {   /* the thread's last row */\n"
                    "        const int64_t rr = rp_;\n"
                    "        const float *ex = exb_[rp_ & 1];\n"
                    "        float fb_[%" PRId64 "] __attribute__((aligned(64)));\n"
                    "        kf_row_block_factors(mbb_[rp_ & 1], mp_, invp_, fb_, %" PRId64 ");\n",
                    nbp, nbp);
    emit_softmax_stores(g, gi, "        ", NULL);
    kf_sb_puts(b, "    }\n");
    close_team(g);
    kf_sb_puts(b, "}\n\n");
    g->stream = 0;
}

static void emit_row_group(gen_t *g, int gi)
{
    if (row_group_splits(g, gi)) {
        emit_row_group_split(g, gi);
        return;
    }
    if (softmax_pipelines(g, gi)) {
        emit_row_group_softmax(g, gi);
        return;
    }
    const kf_bt_group *gr = &g->pl->groups[gi];
    const kf_node *an = &g->p->nodes[gr->nodes[0]];
    begin_fn(g);
    kf_sb_printf(&g->b, "static void group%d(const kf_cpu_args *a, int nt)\n{\n", gi);
    declare_row_ptrs(g, gi);
    g->stream = group_streams(g, gi);
    kf_sb_printf(&g->b, "    /* %s over %" PRId64 " rows of %" PRId64 " contiguous elements%s */\n", kf_op_name(an->op),
                 gr->row.rows, gr->row.row_len, g->stream ? ", outputs stored through a buffer with streaming stores" : "");
    g->gn_carry = gn_carries(g, gi);
    if (g->gn_carry)   /* each thread's rows in order, r0_ to r1_ */
        kf_sb_printf(&g->b,
                        "    #pragma omp parallel num_threads(nt)\n    {\n"
                        "    const int64_t r0_ = (int64_t)%" PRId64 " * omp_get_thread_num() / omp_get_num_threads();\n"
                        "    const int64_t r1_ = (int64_t)%" PRId64 " * (omp_get_thread_num() + 1) / omp_get_num_threads();\n"
                        "    double gns_[8] __attribute__((aligned(64))) = {0}, gnq_[8] __attribute__((aligned(64))) = {0};\n"
                        "    float gnh_ = 0.0f;   /* this thread's next group: its sums of x - gnh_ and (x - gnh_)^2 */\n"
                        "    for (int64_t rr = r0_; rr < r1_; rr++) {\n",
                        gr->row.rows, gr->row.rows);
    else {
        open_team(g);
        kf_sb_printf(&g->b, "    for (int64_t rr = 0; rr < %" PRId64 "; rr++) {\n", gr->row.rows);
    }
    kf_sb_printf(&g->b, "        const float *xr = V%d + rr * %" PRId64 ";\n", an->in[0].value, gr->row.row_len);
    char next[96];   /* the next row follows this one (the same thread's next, rr + 1) */
    snprintf(next, sizeof next, "rr + 1 < %" PRId64 " ? xr + %" PRId64 " : NULL", gr->row.rows, gr->row.row_len);
    g->row_next = next;
    emit_row_body(g, gi, "        ");
    g->row_next = NULL;
    kf_sb_puts(&g->b, "    }\n");
    close_team(g);
    kf_sb_puts(&g->b, "}\n\n");
    g->stream = 0;
    g->gn_carry = 0;
}

/* ------------------------------------------------------------------ */
/* GENERIC groups: reductions over an inner dim, batch_norm             */

static void emit_generic_group(gen_t *g, int gi)
{
    const kf_bt_group *gr = &g->pl->groups[gi];
    const kf_node *an = &g->p->nodes[gr->nodes[0]];
    int av = g->p->n_inputs + gr->nodes[0];
    int64_t O = gr->gen.outer, L = gr->gen.len, I = gr->gen.inner;
    kf_sb *b = &g->b;
    char epsl[48];
    kf_bt_flit(an->eps, epsl);
    begin_fn(g);
    kf_sb_printf(b, "static void group%d(const kf_cpu_args *a, int nt)\n{\n", gi);
    for (int i = 0; i < an->n_in; i++)
        if (!an->in[i].is_scalar) declare_ptr(g, an->in[i].value, 0);
    declare_group_ptrs(g, gi, 1);
    int xv = an->in[0].value;
    int ops[64];
    int nops = outside_operands(g, gi, 1, ops, 64);
    /* the tail is evaluated per output element at flat index e_ */
#define TAIL(indent, eexpr) do { \
        kf_sb_printf(b, "%sconst int64_t e_ = %s;\n", indent, eexpr); \
        for (int i_ = 0; i_ < nops; i_++) { \
            const kf_shape *us_ = &g->r->shapes[ops[i_]]; \
            int64_t st_[KF_MAX_RANK]; \
            kf_bt_bcast_strides(us_, &gr->shape, st_); \
            if (kf_shape_elems(us_) == 1) continue; \
            kf_sb_printf(b, "%sconst int64_t ro%d = 0", indent, ops[i_]); \
            int64_t in_ = 1; \
            for (int d_ = gr->shape.rank - 1; d_ >= 0; d_--) { \
                if (st_[d_]) kf_sb_printf(b, " + ((e_ / %" PRId64 ") %% %" PRId64 ") * %" PRId64, in_, gr->shape.d[d_], st_[d_]); \
                in_ *= gr->shape.d[d_]; \
            } \
            kf_sb_puts(b, ";\n"); \
        } \
        emit_chain(g, gi, 1, "0", "e_", indent, 1, NULL, NULL); \
    } while (0)

    if (an->op == KF_OP_BATCH_NORM) {
        int in_channel = 0;   /* the outputs written in the statistics' channel loop */
        int wv = an->n_in > 1 ? an->in[1].value : -1, bv = an->n_in > 2 ? an->in[2].value : -1;
        int mv = an->n_in > 3 ? an->in[3].value : -1, vv = an->n_in > 4 ? an->in[4].value : -1;
        char wexpr[48] = "", bexpr[48] = "";   /* weight and bias of channel c */
        if (wv >= 0) snprintf(wexpr, sizeof wexpr, " * V%d[c]", wv);
        if (bv >= 0) snprintf(bexpr, sizeof bexpr, " + V%d[c]", bv);
        /* x is (N, C[, L]) = outer x len x inner: channel c = len index */
        kf_sb_printf(b,
                        "    /* batch_norm (%s): per-channel statistics over N=%" PRId64 " x L=%" PRId64 ", channels C=%" PRId64 " */\n"
                        "    float *mean_c = malloc(%" PRId64 " * sizeof(float)), *rstd_c = malloc(%" PRId64 " * sizeof(float));\n"
                        "    if (!mean_c || !rstd_c) { free(mean_c); free(rstd_c); return; }\n",
                        an->training ? "training: batch statistics" : "evaluation: running statistics", O, I, L, L, L);
        if (an->training) {
            if (I == 1) {
                /* (N, C): each thread takes a block of rows and sums x - k and
                   (x - k)^2 in doubles for every channel, the rows read in
                   order (k: the channel's shift, the mean of its first rows,
                   as kf_row_shift takes a row's); the threads' sums are
                   joined, and each thread normalises its own rows, which on
                   a many-core host are still in its L2.  Before, the
                   statistics read x twice a block of 64 channels at a time
                   (a 256-byte piece of each row, rows a page or two apart),
                   then a third time for the outputs, an element at a time */
                const int64_t shift_rows = O < 16 ? O : 16;
                kf_sb_printf(b,
                                "    float *shift_ = malloc(%" PRId64 " * sizeof(float));\n"
                                "    double *sums_ = malloc((size_t)nt * %" PRId64 " * sizeof(double));   /* a thread's s, then q */\n"
                                "    if (!shift_ || !sums_) { free(mean_c); free(rstd_c); free(shift_); free(sums_); return; }\n"
                                "    #pragma omp parallel num_threads(nt)\n"
                                "    {\n"
                                "        const int64_t T_ = omp_get_num_threads(), t_ = omp_get_thread_num();\n"
                                "        const int64_t n0_ = %" PRId64 " * t_ / T_, n1_ = %" PRId64 " * (t_ + 1) / T_;   /* this thread's rows */\n"
                                "        double *restrict s_ = sums_ + t_ * %" PRId64 ", *restrict q_ = s_ + %" PRId64 ";\n"
                                "        #pragma omp for schedule(static)\n"
                                "        for (int64_t c = 0; c < %" PRId64 "; c++) {\n"
                                "            float k_ = 0.0f;\n"
                                "            for (int64_t n = 0; n < %" PRId64 "; n++) k_ += V%d[n * %" PRId64 " + c];\n"
                                "            shift_[c] = k_ / %" PRId64 ".0f;\n"
                                "        }\n"
                                "        memset(s_, 0, %" PRId64 " * sizeof(double));\n"
                                "        for (int64_t c0_ = 0; c0_ < %" PRId64 "; c0_ += %d) {   /* the sums of these channels in L1 */\n"
                                "            const int64_t c1_ = c0_ + %d < %" PRId64 " ? c0_ + %d : %" PRId64 ";\n"
                                "            int64_t n = n0_;\n"
                                "            for (; n + 4 <= n1_; n += 4) {   /* four rows a pass over the sums */\n"
                                "                const float *restrict x0 = V%d + n * %" PRId64 ", *restrict x1 = x0 + %" PRId64 ";\n"
                                "                const float *restrict x2 = x1 + %" PRId64 ", *restrict x3 = x2 + %" PRId64 ";\n"
                                "                #pragma omp simd\n"
                                "                for (int64_t c = c0_; c < c1_; c++) {\n"
                                "                    const double k = shift_[c], d0 = x0[c] - k, d1 = x1[c] - k, d2 = x2[c] - k, d3 = x3[c] - k;\n"
                                "                    s_[c] += (d0 + d1) + (d2 + d3);\n"
                                "                    q_[c] += (d0 * d0 + d1 * d1) + (d2 * d2 + d3 * d3);\n"
                                "                }\n"
                                "            }\n"
                                "            for (; n < n1_; n++) {\n"
                                "                const float *restrict xr = V%d + n * %" PRId64 ";\n"
                                "                #pragma omp simd\n"
                                "                for (int64_t c = c0_; c < c1_; c++) {\n"
                                "                    const double d = (double)xr[c] - (double)shift_[c];\n"
                                "                    s_[c] += d;\n"
                                "                    q_[c] += d * d;\n"
                                "                }\n"
                                "            }\n"
                                "        }\n"
                                "        #pragma omp barrier\n"
                                "        #pragma omp for schedule(static)\n"
                                "        for (int64_t c = 0; c < %" PRId64 "; c++) {\n"
                                "            double s = 0.0, q = 0.0;\n"
                                "            for (int64_t t = 0; t < T_; t++) {\n"
                                "                s += sums_[t * %" PRId64 " + c];\n"
                                "                q += sums_[t * %" PRId64 " + %" PRId64 " + c];\n"
                                "            }\n"
                                "            const double var = (q - s * s / %" PRId64 ".0) / %" PRId64 ".0;\n"
                                "            mean_c[c] = (float)((double)shift_[c] + s / %" PRId64 ".0);\n"
                                "            rstd_c[c] = (float)(1.0 / sqrt((var > 0.0 ? var : 0.0) + %s));\n"
                                "        }\n"
                                "        for (int64_t n = n0_; n < n1_; n++) {\n"
                                "            #pragma omp simd\n"
                                "            for (int64_t c = 0; c < %" PRId64 "; c++) {\n"
                                "                const float t%d = (V%d[n * %" PRId64 " + c] - mean_c[c]) * rstd_c[c]%s%s;\n",
                                L, 2 * L, O, O, 2 * L, L, L, shift_rows, xv, L, shift_rows, 2 * L, L, KF_BN_SUM_CHANNELS,
                                KF_BN_SUM_CHANNELS, L, KF_BN_SUM_CHANNELS, L, xv, L, L, L, L, xv, L, L, 2 * L, 2 * L, L, O,
                                O, O, epsl, L, av, xv, L, wexpr, bexpr);
                char e[64];
                snprintf(e, sizeof e, "n * %" PRId64 " + c", L);
                TAIL("                ", e);
                kf_sb_puts(b, "            }\n        }\n    }\n    free(shift_);\n    free(sums_);\n"
                              "    free(mean_c);\n    free(rstd_c);\n}\n\n");
                return;
            } else if (!bn_in_channel(g, gr)) {
                kf_sb_printf(b,
                                "    #pragma omp parallel for num_threads(nt) schedule(static)\n"
                                "    for (int64_t c = 0; c < %" PRId64 "; c++) {\n"
                                "        double s = 0.0, q = 0.0, sn, qn;   /* the mean, then sums of x - mean */\n"
                                "        for (int64_t n = 0; n < %" PRId64 "; n++) {\n"
                                "            kf_row_moments(V%d + (n * %" PRId64 " + c) * %" PRId64 ", %" PRId64 ", 0.0f, &sn, &qn, NULL);\n"
                                "            s += sn;\n"
                                "        }\n"
                                "        const double mu = s / %" PRId64 ".0;\n"
                                "        s = 0.0;\n"
                                "        for (int64_t n = 0; n < %" PRId64 "; n++) {\n"
                                "            kf_row_moments(V%d + (n * %" PRId64 " + c) * %" PRId64 ", %" PRId64 ", (float)mu, &sn, &qn, NULL);\n"
                                "            s += sn;\n"
                                "            q += qn;\n"
                                "        }\n"
                                "        const double var = (q - s * s / %" PRId64 ".0) / %" PRId64 ".0;\n"
                                "        mean_c[c] = (float)mu;\n"
                                "        rstd_c[c] = (float)(1.0 / sqrt((var > 0.0 ? var : 0.0) + %s));\n"
                                "    }\n",
                                L, O, xv, L, I, I, O * I, O, xv, L, I, I, O * I, O * I, epsl);
            } else {
                /* a channel that fits half an L2 (KF_ROW_ONE_PASS floats) is
                   normalised right after its statistics, while in cache (33
                   at the cpu preset: 1 MiB a channel; the separate pass
                   read all of x from memory again), its outputs streamed
                   where the search asks.  Each thread takes its channels in
                   turn and reads the next channel's rows in the loop that
                   writes this channel's outputs: reads from memory and
                   stores overlap instead of alternating (33 on the 2-core
                   Zen 4 VM, in a harness: 5.2 -> 4.0 ms, bench/results/
                   epyc2-cpu-membound-2026-11-29).  That loop takes each row's
                   sums of x - shift and (x - shift)^2 a block at a time
                   (kf_moments_block), joined by kf_chan_join: no second pass
                   over the row from cache, which left memory idle (and no
                   prefetch ahead, which cost more than it gave): 4.0-4.1 ->
                   3.3-3.4 ms in the same harness, at or under the 16-core
                   host's time there (bench/results/epyc2-cpu-moments-2026-11-30) */
                in_channel = 1;
                g->stream = group_streams(g, gi);
                kf_sb_printf(b,
                                "    #pragma omp parallel num_threads(nt)\n"
                                "    {\n"
                                "    const int64_t T_ = omp_get_num_threads(), t_ = omp_get_thread_num();\n"
                                "    const int64_t cb_ = %" PRId64 " * t_ / T_, ce_ = %" PRId64 " * (t_ + 1) / T_;   /* this thread's channels */\n"
                                "    double mu_ = 0.0, m2_ = 0.0;   /* the next channel's statistics, row by row */\n"
                                "    for (int64_t n = 0; cb_ < ce_ && n < %" PRId64 "; n++) {\n"
                                "        const float *xn_ = V%d + (n * %" PRId64 " + cb_) * %" PRId64 ";\n"
                                "        const float sh_ = kf_row_shift(xn_, %" PRId64 ");\n"
                                "        double as_[8] __attribute__((aligned(64))) = {0}, aq_[8] __attribute__((aligned(64))) = {0};\n"
                                "        kf_moments_blocks(xn_, %" PRId64 ", sh_, as_, aq_);   /* by the blocks of the loop below */\n"
                                "        kf_chan_join(kf_sum_lanes(as_), kf_sum_lanes(aq_), sh_, %" PRId64 ", n, &mu_, &m2_);\n"
                                "    }\n"
                                "    for (int64_t c = cb_; c < ce_; c++) {\n"
                                "        const double var_ = m2_ / %" PRId64 ".0;\n"
                                "        mean_c[c] = (float)mu_;\n"
                                "        rstd_c[c] = (float)(1.0 / sqrt((var_ > 0.0 ? var_ : 0.0) + %s));\n"
                                "        mu_ = 0.0;\n"
                                "        m2_ = 0.0;\n"
                                "        const int64_t cn_ = c + 1 < ce_ ? c + 1 : c;   /* the next channel (none: c again, unused) */\n",
                                L, L, O, xv, L, I, I, I, I, O * I, epsl);
            }
        } else {
            kf_sb_printf(b,
                            "    for (int64_t c = 0; c < %" PRId64 "; c++) {\n"
                            "        mean_c[c] = V%d[c];\n"
                            "        rstd_c[c] = 1.0f / sqrtf(V%d[c] + %s);\n"
                            "    }\n",
                            L, mv, vv, epsl);
        }
        char hi[32];
        snprintf(hi, sizeof hi, "%" PRId64, I);
        char next_block[384];   /* the next channel's row, a block of it (c0_ on) at a time */
        const char *fn = g->stream ? prefetch_fn(g, KF_BT_CPU_PF_CHANNELS) : NULL;   /* read ahead where it streams */
        int nb = fn ? snprintf(next_block, sizeof next_block, "if (cn_ != c) %s(xn_ + c0_);\n", fn) : 0;
        snprintf(next_block + nb, sizeof next_block - (size_t)nb,
                 "if (cn_ != c) kf_moments_block(xn_ + c0_, %s - c0_ < %d ? %s - c0_ : %d, sh_, as_, aq_);\n", hi,
                 KF_BT_CPU_STREAM_BLOCK, hi, KF_BT_CPU_STREAM_BLOCK);
        if (in_channel)   /* inside the channel loop, after its statistics */
            kf_sb_printf(b,
                            "        const float mean = mean_c[c], rstd = rstd_c[c];\n"
                            "        for (int64_t n = 0; n < %" PRId64 "; n++) {\n"
                            "            const float *xn_ = V%d + (n * %" PRId64 " + cn_) * %" PRId64 ";\n"
                            "            const float sh_ = kf_row_shift(xn_, %" PRId64 ");\n"
                            "            double as_[8] __attribute__((aligned(64))) = {0}, aq_[8] __attribute__((aligned(64))) = {0};   /* its sums */\n",
                            O, xv, L, I, I);
        else
            kf_sb_printf(b,
                            "    #pragma omp parallel for num_threads(nt) schedule(static)\n"
                            "    for (int64_t n = 0; n < %" PRId64 "; n++)\n"
                            "        for (int64_t c = 0; c < %" PRId64 "; c++) {\n"
                            "            const float mean = mean_c[c], rstd = rstd_c[c];\n",
                            O, L);
        if (g->stream)   /* in blocks, each streamed from the S buffers */
            open_stream_loop(g, gi, "            ", "l", "0", hi, in_channel ? next_block : NULL);
        else if (in_channel)   /* blocks too, the next channel's sums beside each */
            kf_sb_printf(b,
                            "            for (int64_t c0_ = 0; c0_ < %s; c0_ += %d) {\n"
                            "                %s"
                            "                const int64_t c1_ = %s - c0_ < %d ? %s : c0_ + %d;\n"
                            "                #pragma omp simd\n"
                            "                for (int64_t l = c0_; l < c1_; l++) {\n",
                            hi, KF_BT_CPU_STREAM_BLOCK, next_block, hi, KF_BT_CPU_STREAM_BLOCK, hi, KF_BT_CPU_STREAM_BLOCK);
        else
            kf_sb_printf(b, "            #pragma omp simd\n            for (int64_t l = 0; l < %s; l++) {\n", hi);
        kf_sb_printf(b, "                const float t%d = (V%d[(n * %" PRId64 " + c) * %" PRId64 " + l] - mean) * rstd%s%s;\n",
                     av, xv, L, I, wexpr, bexpr);
        char e[96];
        snprintf(e, sizeof e, "(n * %" PRId64 " + c) * %" PRId64 " + l", L, I);
        TAIL("                ", e);
        if (g->stream) {
            char off[96];
            snprintf(off, sizeof off, "(n * %" PRId64 " + c) * %" PRId64 " + c0_", L, I);
            close_stream_loop(g, gi, "            ", off);
        } else {
            kf_sb_puts(b, in_channel ? "                }\n            }\n" : "            }\n");
        }
        if (in_channel)
            kf_sb_printf(b,
                            "            if (cn_ != c) kf_chan_join(kf_sum_lanes(as_), kf_sum_lanes(aq_), sh_, %" PRId64 ", n, &mu_, &m2_);\n"
                            "        }\n"
                            "    }\n"
                            "%s"
                            "    }\n",
                            I, g->stream ? "    kf_stream_fence();\n" : "");
        else
            kf_sb_puts(b, "        }\n");
        g->stream = 0;
        kf_sb_puts(b, "    free(mean_c);\n    free(rstd_c);\n}\n\n");
        return;
    }

    /* sum / mean / max / min over a middle dim whose inner rows are at
       least KF_MID_ROWS_MIN floats: whole rows read in order */
    if ((an->op == KF_OP_SUM || an->op == KF_OP_MEAN || an->op == KF_OP_AMAX || an->op == KF_OP_AMIN) &&
        I >= KF_MID_ROWS_MIN) {
        emit_middle_rows_open(g, an, xv, O, L, I);
        char val[96];
        if (an->op == KF_OP_MEAN) snprintf(val, sizeof val, "(float)(r_ / %" PRId64 ".0)", L);
        else snprintf(val, sizeof val, "(float)r_");
        kf_sb_printf(b, "            const float t%d = %s;\n", av, val);
        char e[64];
        snprintf(e, sizeof e, "oi * %" PRId64 " + i", I);
        TAIL("            ", e);
        kf_sb_puts(b, "        }\n    }\n    free(part_);\n}\n\n");
        return;
    }

    /* the other reductions over dim of length L with I contiguous inner
       elements (softmax, log_softmax, logsumexp; sum, mean, max, min with
       I < KF_MID_ROWS_MIN): chunks of 1024 inner positions (a page of each
       of the L rows) accumulate together where that leaves 16 items or
       more, else of 256 (measured on 47's sum before it took whole rows:
       1 KiB pieces of rows 8 KiB apart read at 10-12 GB/s on the 2-core
       Xeon, 4 KiB pieces at 16-18) */
    int64_t CH = I < 256 ? I : O * ((I + 1023) / 1024) >= 16 ? (I < 1024 ? I : 1024) : 256;
    int64_t nch = (I + CH - 1) / CH;
    kf_sb_printf(b,
                    "    /* %s over a middle dim: outer %" PRId64 " x len %" PRId64 " x inner %" PRId64 " */\n"
                    "    #pragma omp parallel for num_threads(nt) schedule(static)\n"
                    "    for (int64_t w = 0; w < %" PRId64 "; w++) {\n"
                    "        const int64_t oi = w / %" PRId64 ", i0 = (w %% %" PRId64 ") * %" PRId64 ";\n"
                    "        const int64_t i1 = i0 + %" PRId64 " < %" PRId64 " ? i0 + %" PRId64 " : %" PRId64 ";\n"
                    "        const float *xo = V%d + oi * %" PRId64 ";\n"
                    "        double s[%" PRId64 "];\n"
                    "        float m[%" PRId64 "];\n",
                    kf_op_name(an->op), O, L, I, O * nch, nch, nch, CH, CH, I, CH, I, xv, L * I, CH, CH);
    int need_max = an->op == KF_OP_AMAX || an->op == KF_OP_AMIN || an->op == KF_OP_LOGSUMEXP ||
                   an->op == KF_OP_SOFTMAX || an->op == KF_OP_LOG_SOFTMAX;
    int need_sum = an->op == KF_OP_SUM || an->op == KF_OP_MEAN || an->op == KF_OP_LOGSUMEXP ||
                   an->op == KF_OP_SOFTMAX || an->op == KF_OP_LOG_SOFTMAX;
    if (need_max) {
        const char *cmp = an->op == KF_OP_AMIN ? "<" : ">";
        kf_sb_printf(b,
                        "        for (int64_t i = i0; i < i1; i++) m[i - i0] = xo[i];\n"
                        "        for (int64_t k = 1; k < %" PRId64 "; k++)\n"
                        "            for (int64_t i = i0; i < i1; i++) { float v = xo[k * %" PRId64 " + i]; if (v %s m[i - i0] || v != v) m[i - i0] = v; }\n",
                        L, I, cmp);
        if (an->op != KF_OP_AMAX && an->op != KF_OP_AMIN)
            kf_sb_puts(b, "        for (int64_t i = i0; i < i1; i++) if (isinf(m[i - i0])) m[i - i0] = 0.0f;\n");
    }
    char xk[64];   /* x at (oi, k, i) */
    snprintf(xk, sizeof xk, "xo[k * %" PRId64 " + i]", I);
    if (need_sum) {
        int ex = an->op != KF_OP_SUM && an->op != KF_OP_MEAN;
        char term[96];
        if (ex) snprintf(term, sizeof term, "kf_exp(%s - m[i - i0])", xk);
        else snprintf(term, sizeof term, "%s", xk);
        kf_sb_printf(b,
                        "        for (int64_t i = i0; i < i1; i++) s[i - i0] = 0.0;\n"
                        "        for (int64_t k = 0; k < %" PRId64 "; k++)\n"
                        "            for (int64_t i = i0; i < i1; i++) s[i - i0] += %s;\n",
                        L, term);
    }
    if (an->op == KF_OP_SOFTMAX || an->op == KF_OP_LOG_SOFTMAX) {
        char val[160];
        if (an->op == KF_OP_SOFTMAX) snprintf(val, sizeof val, "(float)(kf_exp(%s - m[i - i0]) / s[i - i0])", xk);
        else snprintf(val, sizeof val, "%s - m[i - i0] - (float)log(s[i - i0])", xk);
        kf_sb_printf(b,
                        "        for (int64_t k = 0; k < %" PRId64 "; k++)\n"
                        "            for (int64_t i = i0; i < i1; i++) {\n"
                        "                const float t%d = %s;\n",
                        L, av, val);
        char e[96];
        snprintf(e, sizeof e, "(oi * %" PRId64 " + k) * %" PRId64 " + i", L, I);
        TAIL("                ", e);
        kf_sb_puts(b, "            }\n    }\n}\n\n");
        return;
    }
    char val[96];
    switch (an->op) {
    case KF_OP_SUM: snprintf(val, sizeof val, "(float)s[i - i0]"); break;
    case KF_OP_MEAN: snprintf(val, sizeof val, "(float)(s[i - i0] / %" PRId64 ".0)", L); break;
    case KF_OP_LOGSUMEXP: snprintf(val, sizeof val, "(float)(log(s[i - i0]) + m[i - i0])"); break;
    default: snprintf(val, sizeof val, "m[i - i0]"); break;
    }
    kf_sb_printf(b, "        for (int64_t i = i0; i < i1; i++) {\n            const float t%d = %s;\n", av, val);
    char e[64];
    snprintf(e, sizeof e, "oi * %" PRId64 " + i", I);
    TAIL("            ", e);
    kf_sb_puts(b, "        }\n    }\n}\n\n");
#undef TAIL
}

/* ------------------------------------------------------------------ */
/* GEMM groups                                                         */

/* Emits the lines that add batch `bt`'s offsets into A and B to `aoff` and
 * `boff` (declared by the caller), one line per broadcast batch dim. */
static void emit_batch_offsets(kf_sb *b, const kf_bt_gemm *gm)
{
    int64_t inner = 1;
    for (int d = gm->n_batch_dims - 1; d >= 0; d--) {
        kf_sb_printf(b, "        { int64_t id = (bt / %" PRId64 ") %% %" PRId64 "; aoff += id * %" PRId64 "; boff += id * %" PRId64 "; }\n",
                        inner, gm->batch_dims[d], gm->a_bstride[d], gm->b_bstride[d]);
        inner *= gm->batch_dims[d];
    }
}

/* Opens the loop over the GEMM's batches: batch `bt`'s offsets into A and
 * B, its A and B (Ab, Bb) and first output row (rbase; `comment` names
 * it).  The caller closes the loop. */
static void emit_batch_open(kf_sb *b, const kf_bt_gemm *gm, int comment)
{
    kf_sb_printf(b, "    for (int64_t bt = 0; bt < %" PRId64 "; bt++) {\n", gm->batch);
    kf_sb_puts(b, "        int64_t aoff = 0, boff = 0;\n");
    emit_batch_offsets(b, gm);
    kf_sb_printf(b,
                    "        const float *restrict Ab = V%d + aoff;\n"
                    "        const float *restrict Bb = V%d + boff;\n"
                    "        const int64_t rbase = bt * %" PRId64 ";%s\n",
                    gm->a, gm->b, gm->M, comment ? "   /* first output row of this batch */" : "");
}

/* Emits the epilogue for the tile just computed into `tb` (leading dim
 * KF_NR): rows i0..i0+mr, columns j0..j0+nr of batch bt; `first` means the
 * destination holds no partial sum yet. dst/ldd = accumulation buffer. */
static void emit_epilogue_fn(gen_t *g, int gi, const char *dst_name)
{
    const kf_bt_group *gr = &g->pl->groups[gi];
    const kf_bt_gemm *gm = &gr->gemm;
    int av = g->p->n_inputs + gr->nodes[0];
    kf_sb *b = &g->b;
    begin_fn(g);
    kf_sb_printf(b,
                    "/* group %d epilogue: partial sum + bias, then the fused map ops, at the\n"
                    " * store of one C tile (rows r0.., columns j0.. of the %" PRId64 "-column output) */\n"
                    "static inline void group%d_store(const kf_cpu_args *a, const float *tb, float *restrict %s, int64_t %s_r0,\n"
                    "                                 int64_t r0, int64_t j0, int64_t mr, int64_t nr, int first)\n{\n",
                    gi, gm->N, gi, dst_name, dst_name);
    if (gm->bias >= 0) declare_ptr(g, gm->bias, 0);
    declare_group_ptrs(g, gi, 1);
    kf_sb_printf(b,
                    "    for (int64_t i = 0; i < mr; i++) {\n"
                    "        const int64_t r = r0 + i;\n"
                    "        float *restrict crow = %s + (r - %s_r0) * %" PRId64 ";\n",
                    dst_name, dst_name, gm->N);
    emit_rowoffs(g, gi, 1, "r", "        ");
    char bias[48] = "";
    if (gm->bias >= 0) snprintf(bias, sizeof bias, " + V%d[j]", gm->bias);
    kf_sb_printf(b,
                    "        #pragma omp simd\n"
                    "        for (int64_t jj = 0; jj < nr; jj++) {\n"
                    "            const int64_t j = j0 + jj;\n"
                    "            const float prev = crow[j];   /* loaded always (in bounds) so the loop vectorises */\n"
                    "            const float t%d = tb[i * KF_NR + jj] + (first ? 0.0f : prev)%s;   /* %s */\n",
                    av, bias, g->p->nodes[gr->nodes[0]].out);
    char e[64];
    snprintf(e, sizeof e, "r * %" PRId64 " + j", gm->N);
    /* the last value goes to crow[j] (the accumulation buffer); other
       materialised values to their own buffers */
    char accb[16];
    snprintf(accb, sizeof accb, "crow");
    emit_chain(g, gi, 1, "j", e, "            ", 1, accb, "j");
    kf_sb_puts(b, "        }\n    }\n}\n\n");
}

/* Emits group<gi>_tile(), the one place that computes a C tile over one
 * depth block and stores it (every loop order of emit_gemm_group calls
 * it): a full tile before the last depth block goes straight from the
 * accumulator registers into the destination (adding the partial sum);
 * an edge tile through the tile buffer tb; the last depth block through tb
 * (in L1) and the epilogue, group<gi>_store().  dst / dst_r0: the
 * destination (C, or a row panel whose first row is dst_r0), N columns. */
/* centre_kb > 0 (AMX groups, emit_gemm_group_amx): the tile function takes
 * vp, the products of A's centre with B's columns per depth block
 * (centre_kb blocks of centre_stride floats, kf_pack_b_c), and the last
 * depth block's tiles start from their sum (kf_ukernel_v) */
static void emit_tile_fn(gen_t *g, int gi, int64_t centre_kb, int64_t centre_stride)
{
    int64_t N = g->pl->groups[gi].gemm.N;
    kf_sb_printf(&g->b,
                    "/* group %d: the C tile at rows r0.., columns j0.. over one depth block */\n"
                    "static inline void group%d_tile(const kf_cpu_args *a, int64_t kc, const float *ap, const float *bp,\n"
                    "                                float *restrict dst, int64_t dst_r0, int64_t r0, int64_t j0, int64_t mr,\n"
                    "                                int64_t nr, int first, int lastk, float *tb%s)\n"
                    "{\n"
                    "    float *c = dst + (r0 - dst_r0) * %" PRId64 " + j0;\n"
                    "    if (!lastk && mr == KF_MR && nr == KF_NR) {   /* partial sum, straight from the registers */\n"
                    "        kf_ukernel(kc, ap, bp, c, %" PRId64 ", !first);\n"
                    "        return;\n"
                    "    }\n",
                    gi, gi, centre_kb > 0 ? ", const float *vp" : "", N, N);
    if (centre_kb > 0)
        kf_sb_printf(&g->b,
                        "    if (lastk && vp) {   /* the tiles start from the centre's products, summed over the depth blocks */\n"
                        "        float v0[KF_NR] __attribute__((aligned(64)));\n"
                        "        for (int64_t j = 0; j < KF_NR; j++) {\n"
                        "            float s = 0.0f;\n"
                        "            for (int64_t pb = 0; pb < %" PRId64 "; pb++) s += vp[pb * %" PRId64 " + j0 + j];\n"
                        "            v0[j] = s;\n"
                        "        }\n"
                        "        kf_ukernel_v(kc, ap, bp, tb, KF_NR, 0, v0);\n"
                        "    } else\n"
                        "        kf_ukernel(kc, ap, bp, tb, KF_NR, 0);\n",
                        centre_kb, centre_stride);
    else
        kf_sb_puts(&g->b, "    kf_ukernel(kc, ap, bp, tb, KF_NR, 0);\n");
    kf_sb_printf(&g->b,
                    "    if (lastk) {   /* last depth block: the epilogue at the store */\n"
                    "        group%d_store(a, tb, dst, dst_r0, r0, j0, mr, nr, first);\n"
                    "        return;\n"
                    "    }\n"
                    "    for (int64_t i = 0; i < mr; i++)   /* edge tile, partial sum */\n"
                    "        for (int64_t j = 0; j < nr; j++) c[i * %" PRId64 " + j] = tb[i * KF_NR + j] + (first ? 0.0f : c[i * %" PRId64 " + j]);\n"
                    "}\n\n",
                    gi, N, N);
}

/* The depth block of a GEMM of depth K for the point's kc (at most K).
 * i16 (cpu_gemm_i16.c) packs a block's scales in its panels' room, which a
 * block of depth 1 lacks: where K's last block would be 1 deep, the largest
 * smaller block whose last is not (kc 8 at K 57: 6); -1, with the generator
 * failed, where there is none: K = 1 (the search offers i16 only where every
 * GEMM is at least 2 deep, cpu_space.c), or K - 1 a multiple of every block
 * from 2 to kc. */
static int64_t depth_block(gen_t *g, int64_t K, int64_t knob)
{
    int64_t KC = knob < K ? knob : K;
    if (g->pt->precision != KF_BT_I16) return KC;
    while (KC > 2 && K % KC == 1) KC--;
    if (KC < 2 || K % KC == 1) {
        g->failed = 1;
        kf_fail(g->err, KF_E_BAD_INPUT, "builtin point: precision 10 (i16) needs depth blocks of at least 2; a GEMM "
                "of depth %" PRId64 " at kc %" PRId64 " has one of 1 (use precision 0)", K, knob);
        return -1;
    }
    return KC;
}

/* Emits the whole GEMM group (packing, blocking, OpenMP, epilogue, and the
 * fused row tail when the plan has one). */
static void emit_gemm_group(gen_t *g, int gi)
{
    const kf_bt_group *gr = &g->pl->groups[gi];
    const kf_bt_gemm *gm = &gr->gemm;
    const kf_bt_point *pt = g->pt;
    kf_sb *b = &g->b;
    int last = gr->last_value;
    int rows_fused = gr->row_tail >= 0;
    int64_t M = gm->M, N = gm->N, K = gm->K;
    int MR = pt->knob[KC_MR], NR = pt->knob[KC_NR];
    int64_t KC = depth_block(g, K, pt->knob[KC_KC]);
    if (KC < 0) return;
    int64_t MC = ((pt->knob[KC_MC] + MR - 1) / MR) * MR;
    int64_t mceil = ((M + MR - 1) / MR) * MR;
    if (MC > mceil) MC = mceil;
    int64_t NC = ((pt->knob[KC_NC] + NR - 1) / NR) * NR;
    int64_t nceil = ((N + NR - 1) / NR) * NR;
    if (NC > nceil) NC = nceil;
    int64_t NP = (N + NR - 1) / NR;           /* NR panels */
    int64_t KB = (K + KC - 1) / KC;           /* depth blocks */
    int64_t MB = (M + MC - 1) / MC, NB = (N + NC - 1) / NC;

    emit_epilogue_fn(g, gi, "dst");
    emit_tile_fn(g, gi, 0, 0);

    /* packed B: every depth block, NP panels of KC x NR each, packed up
       front (the column-block order packs its own per thread) */
    int64_t pb_elems = pt->knob[KC_LOOP_ORDER] == 1 && !rows_fused ? NR : NP * NR * K;
    char sname[32];
    snprintf(sname, sizeof sname, "kf_packed_b%d", gi);
    int sb = add_scratch(g, sname, pb_elems * 4);
    if (sb < 0) { g->failed = 1; return; }
    int sidx = sb;   /* index among all scratch buffers of the candidate */
    int sa = -1;
    if (!rows_fused && pt->knob[KC_LOOP_ORDER] == 1) {
        snprintf(sname, sizeof sname, "kf_packed_a%d", gi);
        sa = add_scratch(g, sname, ((M + MR - 1) / MR) * MR * K * 4);
        if (sa < 0) { g->failed = 1; return; }
    }

    begin_fn(g);
    kf_sb_printf(b, "static void group%d(const kf_cpu_args *a, int nt)\n{\n", gi);
    declare_ptr(g, gm->a, 0);
    declare_ptr(g, gm->b, 0);
    if (!rows_fused) declare_ptr(g, last, 1);
    kf_sb_printf(b,
                    "    /* C[%" PRId64 " x %" PRId64 "] = A[%" PRId64 " x %" PRId64 "] * %s, %" PRId64 " batch(es);\n"
                    "     * blocks MC=%" PRId64 " NC=%" PRId64 " KC=%" PRId64 ", micro-kernel %d x %d, %s */\n"
                    "    float *restrict bpk = a->scratch[%d];\n",
                    M, N, M, K, gm->trans_b ? "B^T (B is N x K, packed by rows)" : "B (K x N)", gm->batch, MC, NC, KC,
                    MR, NR, rows_fused ? "row panels with the row op fused" : "OpenMP over (MC x NC) blocks", sidx);
    emit_batch_open(b, gm, 1);
    int64_t ldb = gm->trans_b ? K : N;
    if (!rows_fused && pt->knob[KC_LOOP_ORDER] == 1) {
        /* column-block-major: A packed once (every depth block), each thread
           packs its own KC x NC block of B (read from memory exactly once)
           and runs every row over it; where the column blocks are fewer than
           two a thread, the rows are split too (at run time: nt is the
           caller's), each row group packing its own copy of the B block */
        int64_t MP = (M + MR - 1) / MR;
        /* the next row's A micro-panel comes from the packed A in L3 (all of
           A, every depth block): prefetched into L2 while this row's tiles
           run, a share of its lines before each tile (measured on the 2-core
           Xeon, 512 x 2048 -> 2048, one thread, median CPU time: 4% less).
           Not for AMX tiles (cpu_gemm_amx.c's loop is kept as it is) */
        char apf[768] = "";
        if (!kf_bt_precision_amx(pt->precision))
            snprintf(apf, sizeof apf,
                     "                            if (ir + KF_MR < i1) {   /* the next A micro-panel into L2, a share per tile */\n"
                     "                                const char *na = (const char *)(apk + p0 * %" PRId64 " + (ir + KF_MR) * kc);\n"
                     "                                const int64_t lines = (KF_MR * kc * (int64_t)sizeof(float) + 63) / 64, t_ = jr / KF_NR,\n"
                     "                                              np_ = (nc + KF_NR - 1) / KF_NR;\n"
                     "                                for (int64_t l = lines * t_ / np_; l < lines * (t_ + 1) / np_; l++)\n"
                     "                                    __builtin_prefetch(na + l * 64, 0, 2);\n"
                     "                            }\n",
                     MP * MR);
        kf_sb_printf(b,
                        "        float *restrict apk = a->scratch[%d];   /* A, all depth blocks, MR-row panels */\n"
                        "        #pragma omp parallel for collapse(2) num_threads(nt) schedule(static)\n"
                        "        for (int64_t pb = 0; pb < %" PRId64 "; pb++)\n"
                        "            for (int64_t ip = 0; ip < %" PRId64 "; ip++) {\n"
                        "                const int64_t p0 = pb * %" PRId64 ";\n"
                        "                const int64_t kc = %" PRId64 " - p0 < %" PRId64 " ? %" PRId64 " - p0 : %" PRId64 ";\n"
                        "                const int64_t i0 = ip * KF_MR, m = %" PRId64 " - i0 < KF_MR ? %" PRId64 " - i0 : KF_MR;\n"
                        "                kf_pack_a(Ab, %" PRId64 ", i0, m, p0, kc, apk + p0 * %" PRId64 " + i0 * kc);\n"
                        "            }\n"
                        "        /* work items: column blocks of up to %" PRId64 " columns x mg row groups; the\n"
                        "           blocks narrowed (by NR) until every thread has one, so that no B block is\n"
                        "           packed twice, then to the width (down to half) whose busiest thread has\n"
                        "           the fewest columns; more than one row group (each packs its own copy of\n"
                        "           the B block) only where the column blocks are still fewer than two a thread */\n"
                        "        int64_t nc_ = kf_column_width(%" PRId64 ", %" PRId64 ", KF_NR, nt, NULL);\n"
                        "        const int64_t nb_ = (%" PRId64 " + nc_ - 1) / nc_, mp_ = %" PRId64 ";\n"
                        "        int64_t mg = nb_ >= nt ? 1 : (2 * (int64_t)nt + nb_ - 1) / nb_;\n"
                        "        if (mg > mp_) mg = mp_;\n"
                        "        if (mg < 1) mg = 1;\n"
                        "        #pragma omp parallel num_threads(nt)\n"
                        "        {\n"
                        "            float *bp = kf_keep(KF_KEEP_PACK, %" PRId64 " * sizeof(float));\n"
                        "            float tb[KF_MR * KF_NR] __attribute__((aligned(64)));\n"
                        "            int fail = bp == NULL;\n"
                        "            #pragma omp for schedule(dynamic, 1)\n"
                        "            for (int64_t w = 0; w < nb_ * mg; w++) {\n"
                        "                if (fail) continue;\n"
                        "                const int64_t jb = w / mg, i0 = (mp_ * (w %% mg) / mg) * KF_MR, i1 = (mp_ * (w %% mg + 1) / mg) * KF_MR;\n"
                        "                const int64_t j0 = jb * nc_, nc = %" PRId64 " - j0 < nc_ ? %" PRId64 " - j0 : nc_;\n"
                        "                for (int64_t pb = 0; pb < %" PRId64 "; pb++) {\n"
                        "                    const int64_t p0 = pb * %" PRId64 ";\n"
                        "                    const int64_t kc = %" PRId64 " - p0 < %" PRId64 " ? %" PRId64 " - p0 : %" PRId64 ";\n"
                        "                    const int first = pb == 0, lastk = pb == %" PRId64 ";\n"
                        "                    for (int64_t jp = 0; jp * KF_NR < nc; jp++)\n"
                        "                        kf_pack_b(Bb, %" PRId64 ", %d, %" PRId64 ", j0 / KF_NR + jp, p0, kc, bp + jp * KF_NR * kc);\n"
                        "                    for (int64_t ir = i0; ir < i1; ir += KF_MR)\n"
                        "                        for (int64_t jr = 0; jr < nc; jr += KF_NR) {\n"
                        "                            const int64_t mr = %" PRId64 " - ir < KF_MR ? %" PRId64 " - ir : KF_MR;\n"
                        "                            const int64_t nr = nc - jr < KF_NR ? nc - jr : KF_NR;\n"
                        "%s"
                        "                            group%d_tile(a, kc, apk + p0 * %" PRId64 " + ir * kc, bp + jr * kc, V%d, 0, rbase + ir,\n"
                        "                                        j0 + jr, mr, nr, first, lastk, tb);\n"
                        "                        }\n"
                        "                }\n"
                        "            }\n"
                        "        }\n"
                        "    }\n}\n\n",
                        sa, KB, MP, KC, K, KC, K, KC, M, M, K, MP * MR, NC, N, NC, N, MP, (NC * KC + 15) / 16 * 16,
                        N, N, KB, KC, K, KC, K, KC, KB - 1, ldb, gm->trans_b, N,
                        M, M, apf, gi, MP * MR, last);
        return;
    }
    if (!rows_fused) {
        /* B packed once (every depth block, by all threads) and shared; then
           the (MC x NC) blocks of C, handed out one at a time, each running
           its whole depth while its C tile stays in cache: two barriers in
           all (a thread the OS stalls holds up no depth step) */
        kf_sb_printf(b,
                        "        #pragma omp parallel num_threads(nt)\n"
                        "        {\n"
                        "            float *ap = kf_keep(KF_KEEP_PACK, %" PRId64 " * sizeof(float));\n"
                        "            float tb[KF_MR * KF_NR] __attribute__((aligned(64)));\n"
                        "            int fail = ap == NULL;\n"
                        "            #pragma omp for collapse(2) schedule(static)\n"
                        "            for (int64_t pb = 0; pb < %" PRId64 "; pb++)\n"
                        "                for (int64_t jp = 0; jp < %" PRId64 "; jp++) {\n"
                        "                    const int64_t p0 = pb * %" PRId64 ";\n"
                        "                    const int64_t kc = %" PRId64 " - p0 < %" PRId64 " ? %" PRId64 " - p0 : %" PRId64 ";\n"
                        "                    kf_pack_b(Bb, %" PRId64 ", %d, %" PRId64 ", jp, p0, kc, bpk + p0 * %" PRId64 " + jp * %d * kc);\n"
                        "                }\n"
                        "            #pragma omp for collapse(2) schedule(dynamic, 1)\n"
                        "            for (int64_t ib = 0; ib < %" PRId64 "; ib++)\n"
                        "                for (int64_t jb = 0; jb < %" PRId64 "; jb++) {\n"
                        "                    if (fail) continue;\n"
                        "                    const int64_t i0 = ib * %" PRId64 ", mc = %" PRId64 " - i0 < %" PRId64 " ? %" PRId64 " - i0 : %" PRId64 ";\n"
                        "                    const int64_t j0 = jb * %" PRId64 ", nc = %" PRId64 " - j0 < %" PRId64 " ? %" PRId64 " - j0 : %" PRId64 ";\n"
                        "                    for (int64_t pb = 0; pb < %" PRId64 "; pb++) {\n"
                        "                        const int64_t p0 = pb * %" PRId64 ";\n"
                        "                        const int64_t kc = %" PRId64 " - p0 < %" PRId64 " ? %" PRId64 " - p0 : %" PRId64 ";\n"
                        "                        const int first = pb == 0, lastk = pb == %" PRId64 ";\n"
                        "                        kf_pack_a(Ab, %" PRId64 ", i0, mc, p0, kc, ap);\n"
                        "                        for (int64_t ir = 0; ir < mc; ir += KF_MR)\n"
                        "                            for (int64_t jr = 0; jr < nc; jr += KF_NR) {\n"
                        "                                const int64_t mr = mc - ir < KF_MR ? mc - ir : KF_MR;\n"
                        "                                const int64_t nr = nc - jr < KF_NR ? nc - jr : KF_NR;\n"
                        "                                const float *bp = bpk + p0 * %" PRId64 " + ((j0 + jr) / KF_NR) * KF_NR * kc;\n"
                        "                                group%d_tile(a, kc, ap + ir * kc, bp, V%d, 0, rbase + i0 + ir, j0 + jr, mr, nr,\n"
                        "                                            first, lastk, tb);\n"
                        "                            }\n"
                        "                    }\n"
                        "                }\n"
                        "        }\n"
                        "    }\n}\n\n",
                        (MC * KC + 15) / 16 * 16, KB, NP, KC, K, KC, K, KC, ldb, gm->trans_b, N, NP * NR, NR,
                        MB, NB, MC, M, MC, M, MC, NC, N, NC, N, NC, KB, KC, K, KC, K, KC, KB - 1, K, NP * NR,
                        gi, last);
        return;
    }

    /* rows fused: each thread computes full MC x N row panels into a local
       buffer, applies the row op + tail, writes outputs */
    int ti = gr->row_tail;
    const kf_bt_group *rg = &g->pl->groups[ti];
    const kf_node *ran = &g->p->nodes[rg->nodes[0]];
    for (int i = 1; i < ran->n_in; i++)
        if (!ran->in[i].is_scalar) declare_ptr(g, ran->in[i].value, 0);
    declare_group_ptrs(g, ti, 1);
    int store_last = g->pl->store[last].kind != KF_BT_ST_LOCAL;
    if (store_last) declare_ptr(g, last, 1);
    kf_sb_printf(b,
                    "        /* pack every depth block of B once */\n"
                    "        #pragma omp parallel for collapse(2) num_threads(nt) schedule(static)\n"
                    "        for (int64_t pb = 0; pb < %" PRId64 "; pb++)\n"
                    "            for (int64_t jp = 0; jp < %" PRId64 "; jp++) {\n"
                    "                const int64_t p0 = pb * %" PRId64 ";\n"
                    "                const int64_t kc = %" PRId64 " - p0 < %" PRId64 " ? %" PRId64 " - p0 : %" PRId64 ";\n"
                    "                kf_pack_b(Bb, %" PRId64 ", %d, %" PRId64 ", jp, p0, kc, bpk + p0 * %" PRId64 " + jp * %d * kc);\n"
                    "            }\n"
                    "        #pragma omp parallel num_threads(nt)\n"
                    "        {\n"
                    "            float *ap = kf_keep(KF_KEEP_PACK, %" PRId64 " * sizeof(float));\n"
                    "            float *panel = kf_keep(KF_KEEP_PANEL, %" PRId64 " * sizeof(float));   /* MC x N row panel */\n"
                    "            float tb[KF_MR * KF_NR] __attribute__((aligned(64)));\n"
                    "            int fail = ap == NULL || panel == NULL;\n"
                    "            #pragma omp for schedule(dynamic, 1)\n"
                    "            for (int64_t ib = 0; ib < %" PRId64 "; ib++) {\n"
                    "                if (fail) continue;\n"
                    "                const int64_t i0 = ib * %" PRId64 ", mc = %" PRId64 " - i0 < %" PRId64 " ? %" PRId64 " - i0 : %" PRId64 ";\n"
                    "                for (int64_t pb = 0; pb < %" PRId64 "; pb++) {\n"
                    "                    const int64_t p0 = pb * %" PRId64 ";\n"
                    "                    const int64_t kc = %" PRId64 " - p0 < %" PRId64 " ? %" PRId64 " - p0 : %" PRId64 ";\n"
                    "                    const int first = pb == 0, lastk = pb == %" PRId64 ";\n"
                    "                    kf_pack_a(Ab, %" PRId64 ", i0, mc, p0, kc, ap);\n"
                    "                    for (int64_t jr = 0; jr < %" PRId64 "; jr += KF_NR)\n"
                    "                        for (int64_t ir = 0; ir < mc; ir += KF_MR) {\n"
                    "                            const int64_t mr = mc - ir < KF_MR ? mc - ir : KF_MR;\n"
                    "                            const int64_t nr = %" PRId64 " - jr < KF_NR ? %" PRId64 " - jr : KF_NR;\n"
                    "                            const float *bp = bpk + p0 * %" PRId64 " + (jr / KF_NR) * KF_NR * kc;\n"
                    "                            /* into the panel (row index relative to the panel) */\n"
                    "                            group%d_tile(a, kc, ap + ir * kc, bp, panel, rbase + i0, rbase + i0 + ir, jr, mr, nr,\n"
                    "                                        first, lastk, tb);\n"
                    "                        }\n"
                    "                }\n",
                    KB, NP, KC, K, KC, K, KC, ldb, gm->trans_b, N, NP * NR, NR,
                    (MC * KC + 15) / 16 * 16, (MC * N + 15) / 16 * 16, MB, MC, M, MC, M, MC, KB, KC, K, KC, K, KC, KB - 1, K, N, N, N, NP * NR,
                    gi);
    if (store_last)
        kf_sb_printf(b,
                        "                /* %s is needed later: write the panel out */\n"
                        "                memcpy(V%d + (rbase + i0) * %" PRId64 ", panel, (size_t)(mc * %" PRId64 ") * sizeof(float));\n",
                        kf_problem_value_name(g->p, last), last, N, N);
    kf_sb_printf(b,
                    "                /* the row op (group %d: %s) while the panel is hot in cache */\n"
                    "                for (int64_t i = 0; i < mc; i++) {\n"
                    "                    const int64_t rr = rbase + i0 + i;\n"
                    "                    const float *xr = panel + i * %" PRId64 ";\n",
                    ti, kf_op_name(ran->op), N);
    emit_row_body(g, ti, "                    ");
    kf_sb_puts(b,
                  "                }\n"
                  "            }\n"
                  "        }\n"
                  "    }\n}\n\n");
}

/* Emits a GEMM group of the AMX precisions (5 to 8), or of bf16c on
 * vdpbf16ps (9: the same loops over the vdpbf16ps library), without row
 * panels, in any loop order: all of A and B converted to bf16 and packed once per
 * call, every depth block, by all threads, and shared; work items of gm x
 * gn tiles (MC / MR row panels by NC / NR column panels, halved at run
 * time, the larger side first, until every thread has four) each run their
 * whole depth, column panel outer (its KC x NR bf16 panel stays in L2 while
 * the item's row panels pass it).  No barrier between packing and tiles:
 * one queue (an atomic counter) hands out the A panels, then for each
 * column group its B panels followed by its work items; an item waits
 * (per-panel ready flags) only for the panels it reads, which entries
 * taken before it pack, so converting B overlaps the tiles of earlier
 * groups.  With KC >= K (the search's AMX point where both KC-deep
 * micro-panels fit in a quarter of L2) the C tiles stay in the tile
 * registers over all of K and leave once, through the tile buffer in L1,
 * with the epilogue. */
static void emit_gemm_group_amx(gen_t *g, int gi)
{
    const kf_bt_group *gr = &g->pl->groups[gi];
    const kf_bt_gemm *gm = &gr->gemm;
    const kf_bt_point *pt = g->pt;
    kf_sb *b = &g->b;
    int64_t M = gm->M, N = gm->N, K = gm->K;
    int MR = pt->knob[KC_MR], NR = pt->knob[KC_NR];
    /* blocks of even depth (2048 at KC 1344: two of 1024, not 1344 and 704) */
    int64_t KC = kf_bt_cpu_amx_depth(K, pt->knob[KC_KC]);
    int64_t MP = (M + MR - 1) / MR, NP = (N + NR - 1) / NR, KB = (K + KC - 1) / KC;
    int64_t GN = (pt->knob[KC_NC] + NR - 1) / NR;
    if (GN > NP) GN = NP;
    if (GN < 1) GN = 1;
    const int amx = kf_bt_precision_amx(pt->precision);

    emit_epilogue_fn(g, gi, "dst");
    emit_tile_fn(g, gi, KB, NP * NR);
    char sname[32];
    snprintf(sname, sizeof sname, "kf_packed_b%d", gi);
    int sb = add_scratch(g, sname, NP * NR * K * 4);
    snprintf(sname, sizeof sname, "kf_packed_a%d", gi);
    int sa = sb < 0 ? -1 : add_scratch(g, sname, MP * MR * K * 4);
    if (sa < 0) { g->failed = 1; return; }

    begin_fn(g);
    kf_sb_printf(b, "static void group%d(const kf_cpu_args *a, int nt)\n{\n", gi);
    declare_ptr(g, gm->a, 0);
    declare_ptr(g, gm->b, 0);
    declare_ptr(g, gr->last_value, 1);
    kf_sb_printf(b,
                    "    /* C[%" PRId64 " x %" PRId64 "] = A[%" PRId64 " x %" PRId64 "] * %s, %" PRId64 " batch(es);\n"
                    "     * %s %d x %d, depth blocks KC=%" PRId64 " (%s), A and B packed once to bf16.\n"
                    "     * The threads split the columns (a row split too where they outnumber\n"
                    "     * the column panels): each packs the B panels of its columns, %" PRId64 " at a time,\n"
                    "     * and runs every row panel of its rows against them while they are in its\n"
                    "     * L2; the A panels are shared, packed first, each by one thread */\n"
                    "    float *restrict bpk = a->scratch[%d], *restrict apk = a->scratch[%d];\n"
                    "    const int64_t mp_ = %" PRId64 ", np_ = %" PRId64 ", kb_ = %" PRId64 ", kc_ = %" PRId64 ", gn_ = %" PRId64 ";\n"
                    "    /* A's columns centred (KF_CENTRE_A): A - 1 cen goes to bf16, and the fp32\n"
                    "       products cen B (vp_, per depth block, while B is packed) start the tiles */\n"
                    "    const int centre_ = KF_CENTRE_A;\n"
                    "    int *st = kf_keep(KF_KEEP_STATE, (size_t)(kb_ * (mp_ + np_)) * sizeof *st);   /* per panel and depth block: kf_claim */\n"
                    "    float *vp_ = centre_ ? kf_keep(KF_KEEP_CENTRE_B, %" PRId64 " * sizeof(float)) : NULL;\n"
                    "    float *cens_ = centre_ ? kf_keep(KF_KEEP_CENTRES, (size_t)nt * %" PRId64 " * sizeof(float)) : NULL;   /* a centre a thread */\n"
                    "    if (!st || (centre_ && (!vp_ || !cens_)))   /* outputs left unwritten: the check fails */\n"
                    "        return;\n",
                    M, N, M, K, gm->trans_b ? "B^T (B is N x K, packed by rows)" : "B (K x N)", gm->batch,
                    amx ? "AMX tiles" : "vdpbf16ps micro-kernel", MR, NR, KC,
                    KB == 1 ? (amx ? "all of K: C stays in the tiles" : "all of K") : "C through memory between them", GN, sb, sa, MP,
                    NP, KB, KC, GN, (KB * NP * NR + 15) / 16 * 16, (K + 15) / 16 * 16);
    emit_batch_open(b, gm, 1);
    kf_sb_printf(b,
                    "        memset(st, 0, (size_t)(kb_ * (mp_ + np_)) * sizeof *st);\n"
                    "        #pragma omp parallel num_threads(nt)\n"
                    "        {\n"
                    "            float tb[KF_MR * KF_NR] __attribute__((aligned(64)));\n"
                    "            const int64_t T = omp_get_num_threads(), t = omp_get_thread_num();\n"
                    "            const int64_t tn_ = np_ < T ? np_ : T, tm_ = T / tn_ < mp_ ? T / tn_ : mp_;\n"
                    "            /* one row group (tm_ 1): no other thread reads this thread's B panels, so\n"
                    "               they go to a buffer of its own, reused for each group of gn_ (it stays\n"
                    "               in L2 and is never written back to memory, as the shared one is) */\n"
                    "            float *own = tm_ == 1 ? kf_keep(KF_KEEP_PACK, (size_t)(gn_ * KF_NR * kc_) * sizeof(float)) : NULL;\n"
                    "            /* the centre: each thread its own copy, for the panels it packs */\n"
                    "            float *cen_ = cens_ ? cens_ + t * %" PRId64 " : NULL;\n"
                    "            if (cen_) kf_centre_a(Ab, %" PRId64 ", %" PRId64 ", %" PRId64 ", cen_);\n"
                    "            for (int64_t w = t; w < kb_ * mp_; w += T) {   /* the A panels, shared */\n"
                    "                const int64_t pb = w / mp_, u = w %% mp_, p0 = pb * kc_;\n"
                    "                const int64_t kc = %" PRId64 " - p0 < kc_ ? %" PRId64 " - p0 : kc_;\n"
                    "                const int64_t i0 = u * KF_MR, m = %" PRId64 " - i0 < KF_MR ? %" PRId64 " - i0 : KF_MR;\n"
                    "                if (kf_claim(st, pb * (mp_ + np_) + u)) {\n"
                    "                    kf_pack_a_c(Ab, %" PRId64 ", i0, m, p0, kc, apk + p0 * %" PRId64 " + i0 * kc, cen_ ? cen_ + p0 : NULL);\n"
                    "                    __atomic_store_n(&st[pb * (mp_ + np_) + u], 2, __ATOMIC_RELEASE);\n"
                    "                }\n"
                    "            }\n"
                    "            if (t < tn_ * tm_) {   /* column group cg, row group rg */\n"
                    "                const int64_t cg = t %% tn_, rg = t / tn_;\n"
                    "                const int64_t c0 = np_ * cg / tn_, c1 = np_ * (cg + 1) / tn_, r0 = mp_ * rg / tm_, r1 = mp_ * (rg + 1) / tm_;\n"
                    "                for (int64_t jq = c0; jq < c1; jq += gn_) {\n"
                    "                    const int64_t jq1 = jq + gn_ < c1 ? jq + gn_ : c1;\n"
                    "                    for (int64_t pb = 0; pb < kb_; pb++) {\n"
                    "                        const int64_t p0 = pb * kc_;\n"
                    "                        const int64_t kc = %" PRId64 " - p0 < kc_ ? %" PRId64 " - p0 : kc_;\n"
                    "                        const int first = pb == 0, lastk = pb == kb_ - 1;\n"
                    "                        for (int64_t jp = jq; jp < jq1; jp++)   /* packed here (or by the row group beside) */\n"
                    "                            if (own)\n"
                    "                                kf_pack_b_c(Bb, %" PRId64 ", %d, %" PRId64 ", jp, p0, kc, own + (jp - jq) * KF_NR * kc,\n"
                    "                                            cen_ ? cen_ + p0 : NULL, cen_ ? vp_ + pb * %" PRId64 " + jp * KF_NR : NULL);\n"
                    "                            else if (kf_claim(st, pb * (mp_ + np_) + mp_ + jp)) {\n"
                    "                                kf_pack_b_c(Bb, %" PRId64 ", %d, %" PRId64 ", jp, p0, kc, bpk + p0 * %" PRId64 " + jp * KF_NR * kc,\n"
                    "                                            cen_ ? cen_ + p0 : NULL, cen_ ? vp_ + pb * %" PRId64 " + jp * KF_NR : NULL);\n"
                    "                                __atomic_store_n(&st[pb * (mp_ + np_) + mp_ + jp], 2, __ATOMIC_RELEASE);\n"
                    "                            }\n"
                    "                        for (int64_t ii = 0; ii < r1 - r0; ii++) {   /* starts staggered over the column groups */\n"
                    "                            const int64_t ip = r0 + (ii + cg * (r1 - r0) / tn_) %% (r1 - r0);\n"
                    "                            const int64_t ir = ip * KF_MR, mr = %" PRId64 " - ir < KF_MR ? %" PRId64 " - ir : KF_MR;\n"
                    "                            if (kf_claim(st, pb * (mp_ + np_) + ip)) {   /* no thread took it yet */\n"
                    "                                kf_pack_a_c(Ab, %" PRId64 ", ir, mr, p0, kc, apk + p0 * %" PRId64 " + ir * kc, cen_ ? cen_ + p0 : NULL);\n"
                    "                                __atomic_store_n(&st[pb * (mp_ + np_) + ip], 2, __ATOMIC_RELEASE);\n"
                    "                            }\n"
                    "                            for (int64_t jp = jq; jp < jq1; jp++) {\n"
                    "                                const int64_t jr = jp * KF_NR, nr = %" PRId64 " - jr < KF_NR ? %" PRId64 " - jr : KF_NR;\n"
                    "                                group%d_tile(a, kc, apk + p0 * %" PRId64 " + ir * kc,\n"
                    "                                            own ? own + (jp - jq) * KF_NR * kc : bpk + p0 * %" PRId64 " + jr * kc, V%d, 0,\n"
                    "                                            rbase + ir, jr, mr, nr, first, lastk, tb, vp_);\n"
                    "                            }\n"
                    "                        }\n"
                    "                    }\n"
                    "                }\n"
                    "            }\n"
                    "        }\n"
                    "    }\n}\n\n",
                    (K + 15) / 16 * 16, K, M, K, K, K, M, M, K, MP * MR, K, K, gm->trans_b ? K : N, gm->trans_b, N, NP * NR,
                    gm->trans_b ? K : N, gm->trans_b, N, NP * NR, NP * NR, M, M, K, MP * MR, N, N, gi, MP * MR, NP * NR,
                    gr->last_value);
}

/* The GEMM-sum rewrite (kf_bt_gemm_sum_match, builtin_rewrite.c; the
 * cuda-c emitter's cuda_gemm_sum.c applies the same): GEMM group gi's rows
 * are summed at once by ROW group ri, so
 *   sum_j (a*h[m][j] + c) = a * (x[m] . s + sum_j bias[j]) + N*c,
 *   s[k] = sum_j B(k, j)
 * B is read once (its column sums, in fp32, threads over k), then one dot
 * product per row of x (double accumulation) and the row group's tail:
 * 2*N*K + 2*M*K FLOPs instead of 2*M*N*K.  Exact in real arithmetic and
 * the better conditioned order (problem 14's rows cancel to ~1e-3 of their
 * terms).  Emits both groups as group<gi>; the caller skips ri. */
static void emit_gemm_sum(gen_t *g, int gi, int ri, double ca, double cc)
{
    const kf_bt_group *gr = &g->pl->groups[gi];
    const kf_bt_gemm *gm = &gr->gemm;
    const kf_bt_group *rg = &g->pl->groups[ri];
    kf_sb *b = &g->b;
    const int64_t M = gm->M, N = gm->N, K = gm->K;
    char sname[32];
    snprintf(sname, sizeof sname, "kf_colsum%d", gi);
    int ss = add_scratch(g, sname, (K + 16) * 4);
    if (ss < 0) { g->failed = 1; return; }
    char an[48], cn[48];
    kf_bt_flit(ca, an);
    kf_bt_flit((double)N * cc, cn);
    int sum_v = g->p->n_inputs + rg->nodes[0];
    begin_fn(g);
    kf_sb_printf(b, "static void group%d(const kf_cpu_args *a, int nt)\n{\n", gi);
    declare_ptr(g, gm->a, 0);
    declare_ptr(g, gm->b, 0);
    if (gm->bias >= 0) declare_ptr(g, gm->bias, 0);
    declare_group_ptrs(g, ri, 1);
    kf_sb_printf(b,
                    "    /* sum(%s(...)) over its last dim (group %d) is a GEMV with the column sums of %s:\n"
                    "     * y[m] = %s * (x[m] . s + sum(bias)) + %s, s[k] = sum_j B(k, j) (builtin_rewrite.c) */\n"
                    "    float *restrict s = a->scratch[%d];\n",
                    kf_op_name(g->p->nodes[gr->nodes[0]].op), ri, kf_problem_value_name(g->p, gm->b), an, cn, ss);
    if (gm->trans_b)   /* B is N x K: s is the sum of its N rows; threads over chunks of k */
        kf_sb_printf(b,
                        "    #pragma omp parallel for num_threads(nt) schedule(static)\n"
                        "    for (int64_t k0 = 0; k0 < %" PRId64 "; k0 += 512) {\n"
                        "        const int64_t kw = %" PRId64 " - k0 < 512 ? %" PRId64 " - k0 : 512;\n"
                        "        float acc[512] __attribute__((aligned(64)));\n"
                        "        for (int64_t k = 0; k < kw; k++) acc[k] = 0.0f;\n"
                        "        for (int64_t j = 0; j < %" PRId64 "; j++) {\n"
                        "            const float *restrict br = V%d + j * %" PRId64 " + k0;\n"
                        "            #pragma omp simd\n"
                        "            for (int64_t k = 0; k < kw; k++) acc[k] += br[k];\n"
                        "        }\n"
                        "        for (int64_t k = 0; k < kw; k++) s[k0 + k] = acc[k];\n"
                        "    }\n",
                        K, K, K, N, gm->b, K);
    else               /* B is K x N: s[k] is the sum of its row k */
        kf_sb_printf(b,
                        "    #pragma omp parallel for num_threads(nt) schedule(static)\n"
                        "    for (int64_t k = 0; k < %" PRId64 "; k++) {\n"
                        "        const float *restrict br = V%d + k * %" PRId64 ";\n"
                        "        float t = 0.0f;\n"
                        "        #pragma omp simd reduction(+:t)\n"
                        "        for (int64_t j = 0; j < %" PRId64 "; j++) t += br[j];\n"
                        "        s[k] = t;\n"
                        "    }\n",
                        K, gm->b, N, N);
    kf_sb_puts(b, "    double sb = 0.0;   /* the bias's sum */\n");
    if (gm->bias >= 0)
        kf_sb_printf(b, "    for (int64_t j = 0; j < %" PRId64 "; j++) sb += V%d[j];\n", N, gm->bias);
    kf_sb_printf(b,
                    "    #pragma omp parallel for num_threads(nt) schedule(static)\n"
                    "    for (int64_t rr = 0; rr < %" PRId64 "; rr++) {\n"
                    "        const float *restrict xr = V%d + rr * %" PRId64 ";\n"
                    "        double d = 0.0;\n"
                    "        #pragma omp simd reduction(+:d)\n"
                    "        for (int64_t k = 0; k < %" PRId64 "; k++) d += (double)xr[k] * s[k];\n"
                    "        const float t%d = (float)(%s * (d + sb) + %s);\n"
                    "        {\n"
                    "            const int64_t o = 0;\n",
                    M, gm->a, K, K, sum_v, an, cn);
    emit_row_tail(g, ri, "        ");
    kf_sb_puts(b, "        }\n    }\n}\n\n");
}

/* The skinny GEMM (loop_order 2): few rows of A (x) against a large B (the
 * weights), bound by reading B.  x is packed once (every depth block,
 * MR-row panels, shared: it stays in cache), B is streamed exactly once:
 * each thread takes runs of contiguous NR column panels (a contiguous slab
 * of W when B is W^T), and for each
 * depth block of a panel the thread packs the KC x NR micro-panel (it
 * stays in L1), runs every row tile of x over it, and meanwhile prefetches
 * the next block's lines of B into L2, one slice per row tile, so the
 * memory stream does not stop while the FMAs run.  The panels go out in
 * runs of contiguous ones, KF_BT_CPU_SKINNY_RUNS_PER_THREAD a thread,
 * dynamically: the VM this was written on is shared and a thread is
 * stalled now and then (problem 56, interleaved A/B rounds against the
 * column order: a static split 0.80-0.86x its time, median per round;
 * the dynamic runs 0.68-0.85x; noisy, see
 * bench/results/cpu-skinny-xeon2-2026-11-25).  The map tail is fused
 * at the store (group<gi>_store); a row op runs as its own pass over C. */
static void emit_gemm_skinny(gen_t *g, int gi)
{
    const kf_bt_group *gr = &g->pl->groups[gi];
    const kf_bt_gemm *gm = &gr->gemm;
    const kf_bt_point *pt = g->pt;
    kf_sb *b = &g->b;
    int last = gr->last_value;
    int64_t M = gm->M, N = gm->N, K = gm->K;
    int MR = pt->knob[KC_MR], NR = pt->knob[KC_NR];
    int64_t KC = depth_block(g, K, pt->knob[KC_KC]);
    if (KC < 0) return;
    int64_t NP = (N + NR - 1) / NR, KB = (K + KC - 1) / KC, MP = (M + MR - 1) / MR;
    int64_t ldb = gm->trans_b ? K : N;

    emit_epilogue_fn(g, gi, "dst");
    emit_tile_fn(g, gi, 0, 0);
    char sname[32];
    snprintf(sname, sizeof sname, "kf_packed_a%d", gi);
    int sa = add_scratch(g, sname, MP * MR * K * 4);
    if (sa < 0) { g->failed = 1; return; }

    begin_fn(g);
    kf_sb_printf(b, "static void group%d(const kf_cpu_args *a, int nt)\n{\n", gi);
    declare_ptr(g, gm->a, 0);
    declare_ptr(g, gm->b, 0);
    declare_ptr(g, last, 1);
    kf_sb_printf(b,
                    "    /* C[%" PRId64 " x %" PRId64 "] = A[%" PRId64 " x %" PRId64 "] * %s, %" PRId64 " batch(es);\n"
                    "     * skinny: A packed once and kept in cache, B streamed once (each thread a contiguous\n"
                    "     * range of %d-column panels), KC=%" PRId64 ", micro-kernel %d x %d */\n"
                    "    float *restrict apk = a->scratch[%d];\n",
                    M, N, M, K, gm->trans_b ? "B^T (B is N x K)" : "B (K x N)", gm->batch, NR, KC, MR, NR, sa);
    emit_batch_open(b, gm, 0);
    kf_sb_printf(b,
                    "        #pragma omp parallel for collapse(2) num_threads(nt) schedule(static)\n"
                    "        for (int64_t pb = 0; pb < %" PRId64 "; pb++)\n"
                    "            for (int64_t ip = 0; ip < %" PRId64 "; ip++) {\n"
                    "                const int64_t p0 = pb * %" PRId64 ", kc = %" PRId64 " - p0 < %" PRId64 " ? %" PRId64 " - p0 : %" PRId64 ";\n"
                    "                const int64_t i0 = ip * KF_MR, m = %" PRId64 " - i0 < KF_MR ? %" PRId64 " - i0 : KF_MR;\n"
                    "                kf_pack_a(Ab, %" PRId64 ", i0, m, p0, kc, apk + p0 * %" PRId64 " + i0 * kc);\n"
                    "            }\n",
                    KB, MP, KC, K, KC, K, KC, M, M, K, MP * MR);
    kf_sb_printf(b,
                    "        #pragma omp parallel num_threads(nt)\n"
                    "        {\n"
                    "            float *bp = kf_keep(KF_KEEP_PACK, %" PRId64 " * sizeof(float));\n"
                    "            float tb[KF_MR * KF_NR] __attribute__((aligned(64)));\n"
                    "            int fail = bp == NULL;\n"
                    "            /* runs of ch_ contiguous panels, %d a thread, handed out as threads finish (a\n"
                    "               thread the OS stalls holds up no fixed share) */\n"
                    "            const int64_t ch_ = %" PRId64 " / (%d * (int64_t)nt) > 0 ? %" PRId64 " / (%d * (int64_t)nt) : 1;\n"
                    "            #pragma omp for schedule(dynamic, ch_)\n"
                    "            for (int64_t jp = 0; jp < %" PRId64 "; jp++)\n"
                    "            for (int64_t pb = 0; pb < %" PRId64 "; pb++) {   /* its depth blocks, on the same thread */\n"
                    "                if (fail) continue;\n"
                    "                const int64_t j0 = jp * KF_NR;\n"
                    "                const int64_t p0 = pb * %" PRId64 ", kc = %" PRId64 " - p0 < %" PRId64 " ? %" PRId64 " - p0 : %" PRId64 ";\n"
                    "                const int64_t nr = %" PRId64 " - j0 < KF_NR ? %" PRId64 " - j0 : KF_NR;\n"
                    "                kf_pack_b(Bb, %" PRId64 ", %d, %" PRId64 ", jp, p0, kc, bp);\n"
                    "                /* the next block's lines of B (this panel's next depth block, else the\n"
                    "                   next panel's first), a slice per row tile */\n"
                    "                const int64_t wn = jp * %" PRId64 " + pb + 1 < %" PRId64 " ? jp * %" PRId64 " + pb + 1 : jp * %" PRId64 " + pb;\n"
                    "                const int64_t jn = (wn / %" PRId64 ") * KF_NR, pn = (wn %% %" PRId64 ") * %" PRId64 ";\n"
                    "                const int64_t kn = %" PRId64 " - pn < %" PRId64 " ? %" PRId64 " - pn : %" PRId64 ";\n",
                    KC * NR, KF_BT_CPU_SKINNY_RUNS_PER_THREAD, NP, KF_BT_CPU_SKINNY_RUNS_PER_THREAD, NP,
                    KF_BT_CPU_SKINNY_RUNS_PER_THREAD, NP, KB, KC, K, KC, K, KC, N, N, ldb, gm->trans_b, N, KB, NP * KB, KB,
                    KB, KB, KB, KC, K, KC, K, KC);
    if (gm->trans_b)   /* the next block: NR rows of B, kn floats each */
        kf_sb_printf(b,
                        "                const int64_t nl = %" PRId64 " - jn < KF_NR ? %" PRId64 " - jn : KF_NR;   /* rows */\n",
                        N, N);
    else               /* the next block: kn rows of B, NR floats each */
        kf_sb_puts(b, "                const int64_t nl = kn;   /* rows */\n");
    kf_sb_printf(b,
                    "                for (int64_t ir = 0, it = 0; ir < %" PRId64 "; ir += KF_MR, it++) {\n"
                    "                    for (int64_t q = nl * it / %" PRId64 "; q < nl * (it + 1) / %" PRId64 "; q++) {\n",
                    M, MP, MP);
    if (gm->trans_b)
        kf_sb_printf(b,
                        "                        const float *row = Bb + (jn + q) * %" PRId64 " + pn;\n"
                        "                        for (int64_t k = 0; k < kn; k += 16) __builtin_prefetch(row + k, 0, 2);\n",
                        ldb);
    else
        kf_sb_printf(b,
                        "                        const float *row = Bb + (pn + q) * %" PRId64 " + jn;\n"
                        "                        for (int64_t k = 0; k < KF_NR && jn + k < %" PRId64 "; k += 16) __builtin_prefetch(row + k, 0, 2);\n",
                        ldb, N);
    kf_sb_printf(b,
                    "                    }\n"
                    "                    const int64_t mr = %" PRId64 " - ir < KF_MR ? %" PRId64 " - ir : KF_MR;\n"
                    "                    group%d_tile(a, kc, apk + p0 * %" PRId64 " + ir * kc, bp, V%d, 0, rbase + ir, j0, mr, nr,\n"
                    "                                pb == 0, pb == %" PRId64 ", tb);\n"
                    "                }\n"
                    "            }\n"
                    "        }\n"
                    "    }\n}\n\n",
                    M, M, gi, MP * MR, last, KB - 1);
}

/* The start of a GEMM group that does not pack: its epilogue function, the
 * group function's head with its pointers, a comment saying `what` it
 * computes, and the batch loop opened with this batch's offsets in aoff and
 * boff.  The caller emits the body and closes both braces. */
static void emit_unpacked_gemm_head(gen_t *g, int gi, const char *what)
{
    const kf_bt_group *gr = &g->pl->groups[gi];
    const kf_bt_gemm *gm = &gr->gemm;
    kf_sb *b = &g->b;
    emit_epilogue_fn(g, gi, "dst");
    begin_fn(g);
    kf_sb_printf(b, "static void group%d(const kf_cpu_args *a, int nt)\n{\n", gi);
    declare_ptr(g, gm->a, 0);
    declare_ptr(g, gm->b, 0);
    declare_ptr(g, gr->last_value, 1);
    kf_sb_printf(b, "    /* %s, %" PRId64 " batch(es) */\n"
                    "    for (int64_t bt = 0; bt < %" PRId64 "; bt++) {\n        int64_t aoff = 0, boff = 0;\n",
                    what, gm->batch, gm->batch);
    emit_batch_offsets(b, gm);
}

/* The plain-loop GEMM (pack = 0, the conservative fallback). */
static void emit_gemm_plain(gen_t *g, int gi)
{
    const kf_bt_group *gr = &g->pl->groups[gi];
    const kf_bt_gemm *gm = &gr->gemm;
    kf_sb *b = &g->b;
    int last = gr->last_value;
    char what[160];
    snprintf(what, sizeof what, "plain loops: C[%" PRId64 " x %" PRId64 "] over K = %" PRId64, gm->M, gm->N, gm->K);
    emit_unpacked_gemm_head(g, gi, what);
    kf_sb_printf(b,
                    "        #pragma omp parallel for num_threads(nt) schedule(static)\n"
                    "        for (int64_t i = 0; i < %" PRId64 "; i++) {\n"
                    "            float tb[KF_NR];\n"
                    "            const float *ar = V%d + aoff + i * %" PRId64 ";\n"
                    "            for (int64_t j0 = 0; j0 < %" PRId64 "; j0 += KF_NR) {\n"
                    "                const int64_t nr = %" PRId64 " - j0 < KF_NR ? %" PRId64 " - j0 : KF_NR;\n"
                    "                for (int64_t jj = 0; jj < nr; jj++) {\n"
                    "                    float s = 0.0f;\n",
                    gm->M, gm->a, gm->K, gm->N, gm->N, gm->N);
    if (gm->trans_b)
        kf_sb_printf(b,
                        "                    const float *br = V%d + boff + (j0 + jj) * %" PRId64 ";\n"
                        "                    #pragma omp simd reduction(+:s)\n"
                        "                    for (int64_t k = 0; k < %" PRId64 "; k++) s += ar[k] * br[k];\n",
                        gm->b, gm->K, gm->K);
    else
        kf_sb_printf(b,
                        "                    for (int64_t k = 0; k < %" PRId64 "; k++) s += ar[k] * V%d[boff + k * %" PRId64 " + j0 + jj];\n",
                        gm->K, gm->b, gm->N);
    kf_sb_printf(b,
                    "                    tb[jj] = s;\n"
                    "                }\n"
                    "                group%d_store(a, tb, V%d, 0, bt * %" PRId64 " + i, j0, 1, nr, 1);\n"
                    "            }\n"
                    "        }\n"
                    "    }\n}\n\n",
                    gi, last, gm->M);
}

/* Matrix-vector product (N == 1): one dot product per row of A, rows shared
 * out by OpenMP, the k loop vectorised as a reduction.  Packing B and a
 * KF_NR-wide micro-kernel would waste all but one lane; this streams A once,
 * which is the whole cost (the problem is bound by reading A). */
static void emit_gemv(gen_t *g, int gi)
{
    const kf_bt_group *gr = &g->pl->groups[gi];
    const kf_bt_gemm *gm = &gr->gemm;
    kf_sb *b = &g->b;
    int last = gr->last_value;
    char what[160];
    snprintf(what, sizeof what, "matrix-vector: y[%" PRId64 "] = A[%" PRId64 " x %" PRId64 "] x", gm->M, gm->M, gm->K);
    emit_unpacked_gemm_head(g, gi, what);
    /* four rows at a time share each load of x and keep four sums in
       flight (04 at the cpu preset on the 16-core host: one row at a time
       read A at 81 GB/s from the L3 where PyTorch's sgemv read 160) */
    kf_sb_printf(b,
                    "        const float *restrict x = V%d + boff;   /* K contiguous floats in either layout */\n"
                    "        #pragma omp parallel for num_threads(nt) schedule(static)\n"
                    "        for (int64_t i4 = 0; i4 < %" PRId64 "; i4++) {\n"
                    "            float tb[KF_NR];\n"
                    "            if (i4 * 4 + 4 <= %" PRId64 ") {   /* four rows */\n"
                    "                const float *restrict a0 = V%d + aoff + i4 * 4 * %" PRId64 ";\n"
                    "                const float *restrict a1 = a0 + %" PRId64 ", *restrict a2 = a1 + %" PRId64 ", *restrict a3 = a2 + %" PRId64 ";\n"
                    "                float s0 = 0.0f, s1 = 0.0f, s2 = 0.0f, s3 = 0.0f;\n"
                    "                #pragma omp simd reduction(+:s0, s1, s2, s3)\n"
                    "                for (int64_t k = 0; k < %" PRId64 "; k++) {\n"
                    "                    const float xk = x[k];\n"
                    "                    s0 += a0[k] * xk;\n"
                    "                    s1 += a1[k] * xk;\n"
                    "                    s2 += a2[k] * xk;\n"
                    "                    s3 += a3[k] * xk;\n"
                    "                }\n"
                    "                const float s4[4] = {s0, s1, s2, s3};\n"
                    "                for (int r = 0; r < 4; r++) {\n"
                    "                    tb[0] = s4[r];\n"
                    "                    group%d_store(a, tb, V%d, 0, bt * %" PRId64 " + i4 * 4 + r, 0, 1, 1, 1);\n"
                    "                }\n"
                    "                continue;\n"
                    "            }\n"
                    "            for (int64_t i = i4 * 4; i < %" PRId64 "; i++) {   /* the last rows, one at a time */\n"
                    "                const float *restrict ar = V%d + aoff + i * %" PRId64 ";\n"
                    "                float s = 0.0f;\n"
                    "                #pragma omp simd reduction(+:s)\n"
                    "                for (int64_t k = 0; k < %" PRId64 "; k++) s += ar[k] * x[k];\n"
                    "                tb[0] = s;\n"
                    "                group%d_store(a, tb, V%d, 0, bt * %" PRId64 " + i, 0, 1, 1, 1);\n"
                    "            }\n"
                    "        }\n"
                    "    }\n}\n\n",
                    gm->b, (gm->M + 3) / 4, gm->M, gm->a, gm->K, gm->K, gm->K, gm->K, gm->K, gi, last, gm->M,
                    gm->M, gm->a, gm->K, gm->K, gi, last, gm->M);
}

/* The op-by-op baseline GEMM: the platform BLAS (what PyTorch eager
 * calls), bias pre-filled into C and beta = 1 as addmm does.  The BLAS must
 * share one thread pool with the baseline's OpenMP loops (a pthreads
 * OpenBLAS next to libgomp's spinning workers oversubscribes the cores):
 * with the OpenMP build of OpenBLAS (configure prefers it) the library
 * threads itself on that pool, as in PyTorch eager; with another build it
 * runs single-threaded on each OpenMP thread's block of C (a 2-D grid). */
static void emit_gemm_blas(gen_t *g, int gi)
{
    const kf_bt_group *gr = &g->pl->groups[gi];
    const kf_bt_gemm *gm = &gr->gemm;
    kf_sb *b = &g->b;
    int last = gr->last_value;
    begin_fn(g);
    kf_sb_printf(b, "static void group%d(const kf_cpu_args *a, int nt)\n{\n", gi);
    declare_ptr(g, gm->a, 0);
    declare_ptr(g, gm->b, 0);
    if (gm->bias >= 0) declare_ptr(g, gm->bias, 0);
    declare_ptr(g, last, 1);
    kf_sb_printf(b, "    openblas_set_num_threads(%s);\n"
                    "    for (int64_t bt = 0; bt < %" PRId64 "; bt++) {\n        int64_t aoff = 0, boff = 0;\n",
                    g->blas_split ? "1" : "nt", gm->batch);
    emit_batch_offsets(b, gm);
    kf_sb_printf(b, "        float *C = V%d + bt * %" PRId64 ";\n", last, gm->M * gm->N);
    if (g->blas_split) {
        /* a tm x tn grid of C blocks, one per thread, tm the divisor of the
           thread count that makes the blocks squarest (each block reads M/tm
           rows of A and N/tn columns of B: their sum is the least); splitting
           rows alone had every thread read all of B (on 16 threads, M = 512:
           2-6x the library's own threaded time) */
        char joff[32] = "";   /* B's offset of column j0: j0 * K when B is (N, K) */
        if (gm->trans_b) snprintf(joff, sizeof joff, " * %" PRId64, gm->K);
        kf_sb_printf(b,
                        "        /* one thread pool: each OpenMP thread runs the library single-threaded on its block of C */\n"
                        "        #pragma omp parallel num_threads(nt)\n"
                        "        {\n"
                        "            const int64_t nth = omp_get_num_threads(), th = omp_get_thread_num();\n"
                        "            int64_t tm = 1;\n"
                        "            double least = -1.0;\n"
                        "            for (int64_t d = 1; d <= nth && d <= %" PRId64 "; d++) {\n"
                        "                const double cost = (double)%" PRId64 " / d + (double)%" PRId64 " * d / nth;\n"
                        "                if (nth %% d == 0 && (least < 0.0 || cost < least)) { least = cost; tm = d; }\n"
                        "            }\n"
                        "            const int64_t tn = nth / tm, ti = th / tn, tj = th %% tn;\n"
                        "            const int64_t i0 = %" PRId64 " * ti / tm, i1 = %" PRId64 " * (ti + 1) / tm;\n"
                        "            const int64_t j0 = %" PRId64 " * tj / tn, j1 = %" PRId64 " * (tj + 1) / tn;\n",
                        gm->M, gm->M, gm->N, gm->M, gm->M, gm->N, gm->N);
        if (gm->bias >= 0)
            kf_sb_printf(b,
                            "            for (int64_t i = i0; i < i1 && j1 > j0; i++) memcpy(C + i * %" PRId64 " + j0, V%d + j0, (size_t)(j1 - j0) * sizeof(float));\n",
                            gm->N, gm->bias);
        kf_sb_printf(b,
                        "            if (i1 > i0 && j1 > j0)\n"
                        "                cblas_sgemm(CblasRowMajor, CblasNoTrans, %s, (int)(i1 - i0), (int)(j1 - j0), %" PRId64 ", 1.0f,\n"
                        "                            V%d + aoff + i0 * %" PRId64 ", %" PRId64 ", V%d + boff + j0%s, %" PRId64 ", %s, C + i0 * %" PRId64 " + j0, %" PRId64 ");\n"
                        "        }\n    }\n}\n\n",
                        gm->trans_b ? "CblasTrans" : "CblasNoTrans", gm->K, gm->a, gm->K, gm->K, gm->b,
                        joff, gm->trans_b ? gm->K : gm->N, gm->bias >= 0 ? "1.0f" : "0.0f",
                        gm->N, gm->N);
        return;
    }
    if (gm->bias >= 0)
        kf_sb_printf(b,
                        "        for (int64_t i = 0; i < %" PRId64 "; i++) memcpy(C + i * %" PRId64 ", V%d, %" PRId64 " * sizeof(float));\n",
                        gm->M, gm->N, gm->bias, gm->N);
    kf_sb_printf(b,
                    "        cblas_sgemm(CblasRowMajor, CblasNoTrans, %s, %" PRId64 ", %" PRId64 ", %" PRId64 ", 1.0f,\n"
                    "                    V%d + aoff, %" PRId64 ", V%d + boff, %" PRId64 ", %s, C, %" PRId64 ");\n"
                    "    }\n}\n\n",
                    gm->trans_b ? "CblasTrans" : "CblasNoTrans", gm->M, gm->N, gm->K, gm->a, gm->K, gm->b,
                    gm->trans_b ? gm->K : gm->N, gm->bias >= 0 ? "1.0f" : "0.0f", gm->N);
}

const char *kf_bt_blas_options(void)
{
#ifdef HAVE_OPENBLAS
    return KF_BASELINE_BLAS_LIBS;
#else
    return NULL;
#endif
}

const char *kf_bt_blas_name(void)
{
#ifdef HAVE_OPENBLAS
    return KF_BASELINE_BLAS_PARALLEL == 2 ? "OpenBLAS, OpenMP build"
         : KF_BASELINE_BLAS_PARALLEL == 1 ? "OpenBLAS, pthreads build"
                                          : "OpenBLAS, sequential build";
#else
    return NULL;
#endif
}

/* ------------------------------------------------------------------ */
/* the file                                                            */

static void emit_header(gen_t *g, const char *label)
{
    const kf_problem *p = g->p;
    kf_sb *b = &g->b;
    char *desc = kf_bt_plan_describe(g->pl);
    char *js = kf_bt_point_json(g->pt);
    kf_sb_printf(b, "/*\n * %s — generated by the kforge builtin agent (C + OpenMP).\n", p->name);
    kf_sb_printf(b, " * Candidate: %s\n * Search-space point: %s\n", label, js ? js : "?");
    kf_sb_printf(b, " * Sizes are baked in for preset \"%s\":", p->preset_names[g->r->preset]);
    for (int d = 0; d < p->n_dims; d++) kf_sb_printf(b, " %s=%" PRId64, p->dim_names[d], g->r->dims[d]);
    kf_sb_puts(b, "\n * (kf_kernel checks a->dims and writes NaN to every output if they differ).\n *\n"
                     " * Plan (one function per group, called in order by kf_kernel):\n");
    const char *s = desc ? desc : "";
    while (*s) {
        const char *nl = strchr(s, '\n');
        size_t n = nl ? (size_t)(nl - s) : strlen(s);
        kf_sb_printf(b, " *   %.*s\n", (int)n, s);
        s += n + (nl ? 1 : 0);
    }
    kf_sb_puts(b, " */\n#include <stdint.h>\n#include <stdlib.h>\n#include <string.h>\n#include <math.h>\n"
                     "#include \"kforge-cpu.h\"\n");
    if (g->uses_blas) kf_sb_puts(b, "#include <cblas.h>\n");
    if (g->blas_split) kf_sb_puts(b, "#include <omp.h>\n");
    free(desc);
    free(js);
}

/* Is group gi the row group a GEMM-sum rewrite emits (sum_row[g] = its
 * row group, -1 for none)? */
static int is_sum_row(const int *sum_row, int n, int gi)
{
    for (int k = 0; k < n; k++)
        if (sum_row[k] == gi) return 1;
    return 0;
}

int kf_bt_gen_cpu(const kf_bt_plan *plan, const kf_bt_point *pt, const char *backend, const kf_device_info *dev,
                  kf_candidate **out, char **label,
                  kf_error *err)
{
    (void)dev;
    *out = NULL;
    if (label) *label = NULL;
    gen_t g = {.pl = plan, .r = plan->r, .p = plan->r->problem, .pt = pt, .err = err, .block_v = -1};
    g.declared = calloc((size_t)plan->n_values + 1, 1);
    if (!g.declared) return kf_fail(err, KF_E_INTERNAL, "builtin cpu generator: out of memory");
    /* the GEMM-sum rewrite (not in the baseline, which runs op by op):
       sum_row[ri] = the row group a rewritten GEMM group emits too */
    int *sum_row = calloc((size_t)plan->n_groups + 1, sizeof *sum_row);
    double *sum_ac = calloc(2 * (size_t)plan->n_groups + 2, sizeof *sum_ac);
    if (!sum_row || !sum_ac) {
        free(sum_row);
        free(sum_ac);
        free(g.declared);
        return kf_fail(err, KF_E_INTERNAL, "builtin cpu generator: out of memory");
    }
    int has_gemm = 0, amx = kf_bt_precision_amx(pt->precision);
    for (int gi = 0; gi < plan->n_groups; gi++) {
        sum_row[gi] = -1;
        if (plan->groups[gi].kind != KF_BT_GEMM || plan->groups[gi].fused_into >= 0) continue;
        if (!pt->baseline && plan->groups[gi].row_tail < 0)
            sum_row[gi] = kf_bt_gemm_sum_match(plan, gi, &sum_ac[2 * gi], &sum_ac[2 * gi + 1]);
        if (sum_row[gi] < 0) has_gemm = 1;
    }
    if (kf_bt_precision_amx_split(pt->precision) && kf_bt_plan_odd_depth(plan)) {
        free(sum_row);
        free(sum_ac);
        free(g.declared);
        return kf_fail(err, KF_E_BAD_INPUT, "builtin point: precision %d (%s on AMX) needs an even K in every GEMM",
                       pt->precision, kf_bt_amx_split_name(pt->precision));
    }
    /* bf16c is bf16 plus the centre, which only the column-split GEMM
       (emit_gemm_group_amx) has: refused where a GEMM would run in row
       panels instead, rather than emitted as plain bf16 under its name */
    for (int gi = 0; kf_bt_precision_bf16c(pt->precision) && pt->knob[KC_PACK] && gi < plan->n_groups; gi++) {
        if (sum_row[gi] < 0 && kf_bt_gemm_in_row_panels(&plan->groups[gi])) {
            free(sum_row);
            free(sum_ac);
            free(g.declared);
            return kf_fail(err, KF_E_BAD_INPUT, "builtin point: precision %d (bf16c%s) centres A in the GEMM "
                           "without row panels; group %d runs in row panels with its row op (fusion 2): use fusion "
                           "0 or 1, or precision %d", pt->precision, pt->precision == KF_BT_BF16C ? "" : " on AMX", gi,
                           pt->precision == KF_BT_BF16C ? KF_BT_BF16 : KF_BT_AMX_BF16);
        }
    }

#ifdef HAVE_OPENBLAS
    g.uses_blas = pt->baseline && has_gemm;
    g.blas_split = g.uses_blas && KF_BASELINE_BLAS_PARALLEL == 1;
#endif
    char lab[256];
    kf_bt_point_label_for(pt, plan->r, lab, sizeof lab);
    for (int gi = 0; gi < plan->n_groups; gi++)
        if (sum_row[gi] >= 0) {
            size_t l = strlen(lab);
            snprintf(lab + l, sizeof lab - l, " (group %d: GEMM-sum rewrite, a GEMV over the column sums)", gi);
        }
    if (pt->baseline) {
        int n = plan->n_groups;
        if (!has_gemm)
            snprintf(lab, sizeof lab, "op-by-op baseline: %d kernel%s, no matmul", n, n == 1 ? "" : "s");
        else
            snprintf(lab, sizeof lab, "op-by-op baseline: %d kernel%s, matmul via %s", n, n == 1 ? "" : "s",
                     !g.uses_blas ? "the builtin tiled GEMM (OpenBLAS not found at configure time)"
                     : g.blas_split ? "OpenBLAS cblas_sgemm (pthreads build, single-threaded on each OpenMP "
                                      "thread's rows: one thread pool)"
                     : KF_BLAS_OPENMP ? "OpenBLAS cblas_sgemm (OpenMP build: one thread pool with the loops)"
                                      : "OpenBLAS cblas_sgemm (sequential build: one thread)");
    }
    for (int s = 0; s < plan->n_scratch; s++) {
        char nm[32];
        snprintf(nm, sizeof nm, "kf_scratch%d", s);
        if (add_scratch(&g, nm, plan->scratch_elems[s] * 4) < 0) goto oom;
    }
    emit_header(&g, lab);
    kf_sb_puts(&g.b, kf_bt_prelude(KF_BT_C));
    if (plan_streams(&g)) kf_sb_puts(&g.b, STREAM_LIB);
    if (plan_splits(&g)) kf_sb_puts(&g.b, OMP_IDS);
    if (has_gemm) {
        int mr = pt->knob[KC_MR], nr = pt->knob[KC_NR];
        kf_sb_printf(&g.b, "#define KF_MR %d\n#define KF_NR %d\n", mr, nr);
        /* the library's unroll pragma takes a literal */
        char unr[16];
        snprintf(unr, sizeof unr, "%d", pt->knob[KC_UNROLL] < 1 ? 1 : pt->knob[KC_UNROLL]);
        kf_sb_puts(&g.b, GEMM_LIB);
        const int bf16 = pt->precision == KF_BT_BF16 || pt->precision == KF_BT_BF16C;   /* vdpbf16ps */
        const int i16 = pt->precision == KF_BT_I16;   /* vpmaddwd */
        const char *lib = bf16 ? kf_bt_cpu_gemm_lib_bf16 : amx ? kf_bt_cpu_gemm_lib_amx : i16 ? kf_bt_cpu_gemm_lib_i16 : GEMM_LIB_FP32;
        if (pt->precision == KF_BT_AMX_BF16X3) kf_sb_puts(&g.b, "#define KF_AMX_X3 1   /* 3xbf16 */\n");
        if (pt->precision == KF_BT_AMX_BF16X2) kf_sb_puts(&g.b, "#define KF_AMX_X2 1   /* 2xbf16 */\n");
        if (kf_bt_precision_centred(pt->precision))
            kf_sb_puts(&g.b, "#define KF_CENTRE_A 1   /* A's columns centred (kf_centre_a) */\n");
        if (bf16 || amx) {   /* the library's head, then the packing both bf16 libraries share */
            kf_sb_puts(&g.b, bf16 ? kf_bt_cpu_gemm_lib_bf16_head : kf_bt_cpu_gemm_lib_amx_head);
            kf_sb_puts(&g.b, kf_bt_cpu_bf16_pack);
        }
        if (i16) kf_sb_puts(&g.b, kf_bt_cpu_gemm_lib_i16_head);
        const char *pos = strstr(lib, "KF_UNROLL_LIT");   /* none in the i16 library (its loop is assembly) */
        if (pos) kf_sb_printf(&g.b, "%.*s%s%s", (int)(pos - lib), lib, unr, pos + strlen("KF_UNROLL_LIT"));
        else kf_sb_puts(&g.b, lib);
        kf_sb_puts(&g.b, "\n");
    }
    for (int gi = 0; gi < plan->n_groups && !g.failed; gi++) {
        const kf_bt_group *gr = &plan->groups[gi];
        if (gr->fused_into >= 0 || is_sum_row(sum_row, plan->n_groups, gi)) continue;   /* emitted inside its GEMM */
        kf_sb_printf(&g.b, "/* ---- group %d: %s ---- */\n", gi, kf_bt_group_kind_name(gr->kind));
        switch (gr->kind) {
        case KF_BT_GEMM:
            if (sum_row[gi] >= 0) emit_gemm_sum(&g, gi, sum_row[gi], sum_ac[2 * gi], sum_ac[2 * gi + 1]);
            else if (pt->baseline && g.uses_blas) emit_gemm_blas(&g, gi);
            else if (gr->gemm.N == 1 && gr->row_tail < 0 && !pt->baseline) emit_gemv(&g, gi);
            else if (!pt->knob[KC_PACK]) emit_gemm_plain(&g, gi);
            else if ((amx || pt->precision == KF_BT_BF16C) && gr->row_tail < 0) emit_gemm_group_amx(&g, gi);
            else if (pt->knob[KC_LOOP_ORDER] == 2 && gr->row_tail < 0) emit_gemm_skinny(&g, gi);
            else emit_gemm_group(&g, gi);
            break;
        case KF_BT_ROW: emit_row_group(&g, gi); break;
        case KF_BT_MAP: emit_map_group(&g, gi); break;
        default: emit_generic_group(&g, gi); break;
        }
    }
    if (g.failed) {
        if (!err || !err->kind) kf_fail(err, KF_E_INTERNAL, "builtin cpu generator: could not emit %s", g.p->name);
        goto fail;
    }
    /* the entry */
    {
        kf_sb *b = &g.b;
        const kf_problem *p = g.p;
        kf_sb_printf(b, "void kf_kernel(const kf_cpu_args *a)\n{\n    static const int64_t want[%d] = {", p->n_dims);
        for (int d = 0; d < p->n_dims; d++) kf_sb_printf(b, "%s%" PRId64, d ? ", " : "", g.r->dims[d]);
        kf_sb_printf(b, "};\n    int ok = a->n_dims == %d && a->n_in == %d && a->n_out == %d && a->n_scratch >= %d;\n"
                        "    for (int d = 0; ok && d < %d; d++) ok = a->dims[d] == want[d];\n"
                        "    if (!ok) {   /* built for other sizes: fail loudly */\n",
                        p->n_dims, p->n_inputs, p->n_outputs, g.n_scratch, p->n_dims);
        for (int o = 0; o < p->n_outputs; o++)
            kf_sb_printf(b, "        if (a->n_out > %d) for (int64_t i = 0; i < %" PRId64 "; i++) a->out[%d][i] = NAN;\n",
                            o, elems(&g, p->outputs[o]), o);
        kf_sb_puts(b, "        return;\n    }\n");
        if (has_gemm && amx && pt->knob[KC_PACK] && !pt->baseline)
            kf_sb_puts(b, "    /* AMX tiles fault without the permission the plugin asks for: outputs left\n"
                          "       NaN then, so verification fails and the search goes back to fp32 */\n"
                          "    if (!(a->features & KF_CPU_FEAT_AMX_BF16)) return;\n"
                          "    kf_amx_epoch++;   /* each thread loads the tile configuration again */\n");
        kf_sb_printf(b, "    const int nt = %s;\n",
                        pt->knob[KC_THREADS] ? "" : "a->n_threads > 0 ? a->n_threads : 1");
        if (pt->knob[KC_THREADS]) {
            /* rewrite: min(threads, a->n_threads) */
            b->len -= strlen("    const int nt = ;\n");
            b->s[b->len] = 0;
            kf_sb_printf(b, "    const int nt = a->n_threads < %d ? (a->n_threads > 0 ? a->n_threads : 1) : %d;\n",
                            pt->knob[KC_THREADS], pt->knob[KC_THREADS]);
        }
        for (int gi = 0; gi < plan->n_groups; gi++)
            if (plan->groups[gi].fused_into < 0 && !is_sum_row(sum_row, plan->n_groups, gi))
                kf_sb_printf(b, "    group%d(a, nt);\n", gi);
        /* outputs that are inputs, or named twice */
        for (int o = 0; o < p->n_outputs; o++) {
            int v = p->outputs[o];
            const kf_bt_store *s = &plan->store[v];
            if (s->kind == KF_BT_ST_OUTPUT && s->index == o) continue;
            char bb[64];
            kf_sb_printf(b, "    memcpy(a->out[%d], %s, %" PRId64 " * sizeof(float));   /* %s */\n", o,
                            buf_of(&g, v, bb, sizeof bb), elems(&g, v), kf_problem_value_name(p, v));
        }
        kf_sb_puts(b, "}\n");
    }
    char *text = kf_sb_take(&g.b);
    if (!text) goto oom;
    kf_candidate *c = kf_candidate_new(backend);
    if (!c || kf_candidate_add_source(c, "kernel.c", text) != 0) {
        free(text);
        kf_candidate_free(c);
        goto oom;
    }
    free(text);
    free(c->entry);
    c->entry = strdup("kf_kernel");
    if (g.uses_blas) { free(c->build_options); c->build_options = strdup(kf_bt_blas_options()); }
    if (g.n_scratch) {
        c->scratch = calloc((size_t)g.n_scratch, sizeof *c->scratch);
        if (!c->scratch) { kf_candidate_free(c); goto oom; }
        for (int s = 0; s < g.n_scratch; s++) {
            c->scratch[s].name = g.scratch_names[s];
            g.scratch_names[s] = NULL;
            if (asprintf(&c->scratch[s].bytes_expr, "%" PRId64, g.scratch_bytes[s]) < 0) c->scratch[s].bytes_expr = NULL;
        }
        c->n_scratch = g.n_scratch;
    }
    for (int s = 0; s < g.n_scratch; s++) free(g.scratch_names[s]);
    free(g.scratch_names);
    free(g.scratch_bytes);
    free(g.declared);
    free(sum_row);
    free(sum_ac);
    *out = c;
    if (label) *label = strdup(lab);
    return 0;
oom:
    kf_fail(err, KF_E_INTERNAL, "builtin cpu generator: out of memory");
fail:
    kf_sb_free(&g.b);
    for (int s = 0; s < g.n_scratch; s++) free(g.scratch_names[s]);
    free(g.scratch_names);
    free(g.scratch_bytes);
    free(g.declared);
    free(sum_row);
    free(sum_ac);
    return -1;
}
