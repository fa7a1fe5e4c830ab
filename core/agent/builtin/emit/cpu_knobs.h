/* cpu_knobs.h — the knobs of the C + OpenMP emitter (cpu_space.c), as
 * indices into kf_bt_point.knob[]; shared by its search space and its
 * generator (builtin_cpu.c). */
#ifndef KF_BT_CPU_KNOBS_H
#define KF_BT_CPU_KNOBS_H

#include "agent/builtin/builtin.h"

enum {
    KC_MC,          /* cache blocking of the GEMM: rows */
    KC_NC,          /* ... columns */
    KC_KC,          /* ... depth */
    KC_MR,          /* micro-kernel tile rows */
    KC_NR,          /* micro-kernel tile columns (a multiple of the vector width) */
    KC_PACK,        /* 1: pack A and B panels; 0: plain loops */
    KC_THREADS,     /* 0 = a->n_threads, else min(threads, a->n_threads) */
    KC_LOOP_ORDER,  /* 0: row-block-major (A reuse), 1: column-block-major (B reuse),
                       2: skinny (A packed once, B streamed once in runs of
                       contiguous NR panels; builtin_cpu.c emit_gemm_skinny) */
    KC_UNROLL,      /* k-loop unroll of the micro-kernel: 1, 2, 4 */
    KC_STREAM,      /* 1: the outputs of map and row groups written with non-temporal
                       (streaming) stores, no write-allocate read of their lines;
                       2: also GroupNorm's next group read and summed beside them
                       (builtin_cpu.c, gn_carries) */
    KC_PREFETCH,    /* where a group streams (KC_STREAM), its inputs read ahead of each
                       block: 0 each loop's measured default (a map, and GroupNorm's next
                       group read beside the stores: the line 4 KiB ahead into L1 and the
                       block's lines 32 KiB ahead into L2; a norm's row split over the
                       team: the line only; BatchNorm's next channel read beside the
                       stores: nothing; kf_bt_cpu_pf_kind), 1 the line only everywhere,
                       2 the line and the block's lines everywhere (KF_BT_CPU_PREFETCH_*) */
    KC_N
};

/* Problems under both are tiny: the default point runs them on one thread
 * (an OpenMP team's wake-up costs more than the work). */
#define KF_BT_CPU_TINY_FLOPS 2e6
#define KF_BT_CPU_TINY_BYTES (256.0 * 1024)

/* Streaming stores (KC_STREAM): a group's outputs are written through an
 * L1 buffer of one block of this many floats (a loop of constant trip
 * count) and out with non-temporal stores right after it, so the lines are
 * not read before they are overwritten (memory traffic of a map from x to
 * y: 3 x |y| -> 2 x |y|), and the loads and the streamed stores stay
 * interleaved (a 2048-float buffer filled and then streamed alternated
 * them: 19's ReLU 11-14% slower on the 2-core VM,
 * bench/results/xeon2-cpu-stream-block-2026-11-29).  The
 * emitter streams only groups
 * that write at least KF_BT_CPU_STREAM_MIN_BYTES.  On by default in a
 * problem without a GEMM whose outputs exceed the L2 of all threads
 * (cpu_space.c, defaults), off elsewhere; the cost model (store_traffic)
 * counts the write-allocate read where the outputs exceed that L2, so the
 * analysis recommends the knob there and the measurement keeps it or not. */
#define KF_BT_CPU_STREAM_BLOCK 64
#define KF_BT_CPU_STREAM_MIN_BYTES (1 << 20)
/* GroupNorm rows whose groups have fewer elements than this (and that fit
 * the row buffer) are emitted with the statistics vectorised across the
 * groups; larger groups one after another (stream 2 overlaps their reads) */
#define KF_GN_SMALL_GROUP 16
/* A streamed map's full-size inputs are prefetched this many floats ahead
 * of each block (4 KiB: across the page boundary where the hardware's
 * streamer stops).  On the 2-core VM, 19's ReLU took 0.89-0.93x its time
 * at 2 threads with 1024 or 2048 (0.94-0.96x with 256), 26's GELU
 * 0.87-0.92x (bench/results/xeon2-cpu-map-prefetch-2026-11-29). */
#define KF_BT_CPU_PREFETCH_AHEAD 1024
/* ... and each 64-float block's four lines this many floats (32 KiB) ahead into L2
 * (kf_prefetch_block_ahead): the hardware's prefetchers alone left a GELU's
 * arithmetic waiting on memory.  kforge profile in turns, 3 rounds, against the one
 * line alone (the median round's ratio): 16-core host at 16 threads 26's GELU 0.76x,
 * 88's tanh GELU 0.91x, 19's ReLU 0.99x; 2-core Zen 3 VM at 2 threads 0.92x, 0.89x,
 * 0.87x (bench/results/cpu-map-prefetch-l2-2026-12-01; 16 KiB ahead: 0.84x, 0.87x,
 * 0.95x there, 0.97x, 0.84x, 0.97x here).  The split LayerNorm's normalize loop keeps
 * the one line: with these four it took 0.89x on the Zen 3 VM but 1.04x on the 16-core
 * host, every round the same sign (bench/results/cpu-layernorm-prefetch-l2-2026-12-01) */
#define KF_BT_CPU_PREFETCH_L2_AHEAD 8192
/* Which loops the prefetch knob (KC_PREFETCH) changes, for a plan's point:
 * kf_bt_cpu_prefetch_sites' bits.  Its values differ in code only where the
 * plan has such a loop (the search offers them there and nowhere else); the
 * cost model rates them alike, so the analyzer offers each just above even
 * and the measurement decides (which is faster is the machine's: the split
 * LayerNorm above). */
enum { KF_BT_CPU_PF_MAP = 1, KF_BT_CPU_PF_SPLIT = 2, KF_BT_CPU_PF_GROUPS = 4, KF_BT_CPU_PF_CHANNELS = 8 };
/* KF_BT_CPU_PF_GROUPS, _CHANNELS: the loops that read the thread's next
 * GroupNorm group (stream 2, builtin_cpu.c gn_carries) or next BatchNorm
 * channel (bn_in_channel) from memory beside this one's streamed stores.
 * kforge profile in turns, 5 rounds, against no prefetch there (before
 * 8eb246d; bench/results/xeon16-cpu-carry-prefetch-2026-12-02): GroupNorm
 * (35 at the cpu preset) with the block's L2 lines 0.89-1.02x its time on
 * the 16-core host (rounds 2-5, faster in 3; in round 1 the unprefetched
 * kernel, the call's first run, took 3.3 ms; the line alone 0.94-1.11x), and
 * 0.795 -> 0.833 of a copy's rate on the 2-core Zen 4 VM (share_harness, 6
 * rounds; the line alone 0.66); BatchNorm (33: 64 KiB rows, the lines past a
 * row's end another channel's) 1.01-1.39x its time on the 16-core host,
 * slower in every round, 0.79 -> 0.83 of a copy on the Zen 4 VM (its
 * figures: bench/results/epyc2-cpu-membound-2026-12-02b/carry-prefetch).  So
 * GroupNorm's default takes the L2 lines and BatchNorm's none; the other
 * values are the search's to measure. */
/* What a loop of kind `site` (KF_BT_CPU_PF_*) reads ahead at knob value v:
 * 1 the line (kf_prefetch_ahead), 2 the line and the block's L2 lines
 * (kf_prefetch_block_ahead), 0 the site's measured default. */
enum { KF_BT_CPU_PF_NONE, KF_BT_CPU_PF_LINE, KF_BT_CPU_PF_BLOCK };
static inline int kf_bt_cpu_pf_kind(unsigned site, int v)
{
    if (v == 1) return KF_BT_CPU_PF_LINE;
    if (v == 2) return KF_BT_CPU_PF_BLOCK;
    return site == KF_BT_CPU_PF_SPLIT ? KF_BT_CPU_PF_LINE : site == KF_BT_CPU_PF_CHANNELS ? KF_BT_CPU_PF_NONE : KF_BT_CPU_PF_BLOCK;
}
/* The KF_BT_CPU_PF_* bits of the loops point pt's plan of r streams
 * (builtin_cpu.c, from the generator's own tests); 0 where the plan cannot
 * be built. */
unsigned kf_bt_cpu_prefetch_sites(const kf_resolved *r, const kf_bt_point *pt);

/* The GEMM's cache blocking from the cache sizes the cpu-simd probe reads
 * (kf_device_info.cache_*_bytes, one core's share; 0 = unknown), for one
 * of the generated loop orders:
 *   KF_BT_CPU_ORDER_BLOCKS  (MC x NC) blocks of C over the threads, B packed
 *                           once up front and shared (loop_order 0);
 *   KF_BT_CPU_ORDER_ROWS    MC x N row panels with the row op fused;
 *   KF_BT_CPU_ORDER_COLUMNS NC-column blocks over the threads, each thread
 *                           packing its own KC x NC block of B into its
 *                           cache and running every row over it, A packed
 *                           once and shared (loop_order 1).
 * KC: the micro-panel the inner loop keeps in L1 fills half of it (A's
 * MR x KC, or with rows fused B's KC x NR); in the column order A's
 * micro-panel fills all of L1, counted in the packed element's bytes (elem:
 * 2 for bf16 pairs, else 4), and the depth k (0: unknown) is cut into
 * blocks of even depth (2048 at a KC of 680: four of 512, not three of 680
 * and one of 8).  Fewer, deeper blocks load and store each C tile fewer
 * times (problem 9 at the cpu preset, 2-core Zen 4 VM, bf16: KC 336, 688,
 * 1024 took 11.47, 11.31, 11.00 ms; the 16-core host's fp32 kernel ran the
 * same at 512 and 1024 (within 2%) and 5-7% slower at 2048: A's panel past its L1,
 * bench/results/xeon16-gemm-kc-2026-11-29).  The block re-read from L2
 * (B's KC x NC, or with rows fused A's MC x KC, and then the MC x N row
 * panel within L2) fills half of L2; the other block half of the L3 share.
 * Then the blocks are split (halving the larger, in MR / NR steps) until
 * the partition gives each thread KF_BT_CPU_BLOCKS_PER_THREAD blocks; the
 * column order splits only N, to KF_BT_CPU_COLUMN_BLOCKS_PER_THREAD blocks
 * a thread and no narrower than KF_BT_CPU_MIN_COLUMN_PANELS NR panels (each
 * block re-reads all of packed A: narrower blocks cost more than the
 * balance they buy).  m, n: the GEMM's rows and columns (0: unknown);
 * threads <= 0: unknown (no split).  Unknown L1d: the former constants
 * (MC 96 with NR >= 32, else 72; NC 256; KC 384).  MC is a multiple of MR,
 * NC of NR, KC of 8, all within the knobs' ranges. */
#define KF_BT_CPU_BLOCKS_PER_THREAD 4
#define KF_BT_CPU_COLUMN_BLOCKS_PER_THREAD 2
#define KF_BT_CPU_MIN_COLUMN_PANELS 4
enum { KF_BT_CPU_ORDER_BLOCKS = 0, KF_BT_CPU_ORDER_ROWS = 1, KF_BT_CPU_ORDER_COLUMNS = 2, KF_BT_CPU_ORDER_SKINNY = 3 };
/* The AMX group's depth block (cpu_gemm_amx.c, emit_gemm_group_amx) for
 * an AMX precision and an L2 of l2 bytes: KC deep, a thread's
 * KF_BT_CPU_BLOCKS_PER_THREAD B micro-panels (32 columns each) and two A
 * micro-panels (32 rows: the one the tiles read and the next), each with
 * its parts in bf16 (3xbf16: a high and a low of both; 2xbf16: of A), fill
 * half of l2; a multiple of 32 (whole tiles), 64 to 8192.  The generator
 * evens the blocks (K = 2048 at KC 1344: two of 1024).  A 2 MiB L2: bf16
 * and bf16c 2720 (K = 2048 in one block: C leaves the tiles once),
 * 2xbf16 2048, 3xbf16 1344.  Measured on the 16-core host, problem 9, 16
 * threads (bench/results/xeon16-amx-kc-2026-11-29): bf16 at KC 1024 from
 * 6% faster to 3% slower than all of K, 256 23-27% slower; 3xbf16 at 1024
 * and 512 13-26% faster than all of K (minimum times), where its panels
 * with their low parts crowd L2. */
int kf_bt_cpu_amx_kc(int precision, int64_t l2);
/* Depth k cut into blocks of at most kc (kc >= 1): the depth of blocks of
 * even depth, ceil(k / blocks) rounded up to a multiple of step, blocks =
 * ceil(k / kc) (so never deeper than kc where kc is a multiple of step, and
 * as many blocks): 2048 at kc 1344, step 32: 1024.  The column order's KC
 * (kf_bt_cpu_derive_blocking, step 8) and, through kf_bt_cpu_amx_depth, the
 * AMX group's. */
int64_t kf_bt_cpu_even_depth(int64_t k, int64_t kc, int64_t step);
/* The AMX group's depth block for depth k at the KC knob kc: all of k where
 * kc >= k, else kf_bt_cpu_even_depth in the knob's steps (32, whole tiles,
 * where kc is a multiple of it, else 2, pairs, where it is even, else 1).
 * emit_gemm_group_amx's blocks, and the cost model's. */
int64_t kf_bt_cpu_amx_depth(int64_t k, int64_t kc);
/* KF_BT_CPU_ORDER_SKINNY (loop_order 2): KC puts B's KC x NR micro-panel
 * in half of L1 (every row tile runs over it), MC = m rounded up to MR,
 * NC = NR.  The default takes it where every GEMM has at most
 * KF_BT_CPU_SKINNY_ROWS rows whose A fits in L2 and a B of at least 4 x L2. */
#define KF_BT_CPU_SKINNY_ROWS 256
/* The smallest relative-L2 bound, and atol or rtol, at which bf16 is the C
 * emitter's default precision (where the probe measured it faster): bf16
 * GEMMs measured relative L2 errors of 3.5e-4 to 2.4e-3 on the Level-2
 * problems (core/problem/precision.h) and max abs errors of 0.012-0.02
 * where a norm follows (30 and 41 on a 2-core Zen 4 VM,
 * bench/results/epyc2-cpu-bf16c-2026-11-29); a bound
 * under this makes bf16 a wasted first step (a 1e-3 tolerance: every
 * element's error over it). */
#define KF_BT_CPU_BF16_MIN_TOL 5e-3
/* int16 pairs (precision i16) are the C emitter's default only where the
 * probe's int16-pair peak (ABI 1.6, products alone) is at least this many
 * times its fp32 FMA peak: the i16 GEMM also widens, pairs and converts its
 * operands, and ran at 1.36-1.68x the fp32 kernel where the peaks' ratio was
 * 2.0-2.3 (2-core Zen 3, bench/results/zen3-gemm-i16-2026-11-30,
 * zen3-i16-peak-2026-12-01); a CPU whose vpmaddwd issues no faster than its
 * FMAs (ratio 1) gains nothing from the narrower operands.  Where the plugin
 * reports no int16 peak (0) the CPU's features decide, as before ABI 1.6. */
#define KF_BT_CPU_I16_MIN_GAIN 1.5
/* The skinny order hands out its NR panels in runs of contiguous ones,
 * this many runs a thread (dynamic: a stalled thread holds up no share). */
#define KF_BT_CPU_SKINNY_RUNS_PER_THREAD 8
/* The column order's block width for n columns on nt threads: nc narrowed
 * by nr until every thread has a block, then the width down to half of that
 * (multiples of nr) whose busiest thread has the fewest columns, the blocks
 * handed out in order to the next free thread; *busiest (may be NULL) gets
 * those columns.  n = 2048, nc = 384, nr = 32, 2 threads: 256 (1024 columns
 * each; 384 gives one thread 1152 and the other 896).  One definition,
 * KF_BT_CPU_COLUMN_WIDTH_FN: compiled in cpu_space.c for the cost model
 * (kf_bt_cpu_column_width) and emitted as text into the GEMM library
 * (KF_BT_CPU_COLUMN_WIDTH_SRC, kf_column_width: the kernel's width at run
 * time), so the model and the kernel take the same width. */
#define KF_BT_CPU_COLUMN_WIDTH_FN(name)                                                               \
    int64_t name(int64_t n, int64_t nc, int64_t nr, int nt, int64_t *busiest)                          \
    {                                                                                                   \
        if (nr < 1) nr = 1;                                                                             \
        if (nc < nr) nc = nr;                                                                           \
        if (nt < 1) nt = 1;                                                                             \
        while ((n + nc - 1) / nc < nt && nc > nr) nc -= nr;                                             \
        int64_t best = nc, least = -1;                                                                  \
        for (int64_t w = nc; w >= nr && 2 * w >= nc; w -= nr) {                                         \
            const int64_t full = (n + w - 1) / w - 1, rest = n - full * w;                              \
            const int64_t most = (full + nt - 1) / nt * w, with_rest = full / nt * w + rest;           \
            const int64_t b = most > with_rest ? most : with_rest;                                      \
            if (least < 0 || b < least) least = b, best = w;                                            \
        }                                                                                               \
        if (busiest) *busiest = least;                                                                  \
        return best;                                                                                    \
    }
#define KF_BT_CPU_STR_(...) #__VA_ARGS__
#define KF_BT_CPU_STR(...) KF_BT_CPU_STR_(__VA_ARGS__)
#define KF_BT_CPU_COLUMN_WIDTH_SRC \
    KF_BT_CPU_STR(static __attribute__((unused)) KF_BT_CPU_COLUMN_WIDTH_FN(kf_column_width)) "\n"
int64_t kf_bt_cpu_column_width(int64_t n, int64_t nc, int64_t nr, int threads, int64_t *busiest);
typedef struct kf_bt_cpu_blocking {
    int mc, nc, kc;
} kf_bt_cpu_blocking;
void kf_bt_cpu_derive_blocking(int64_t l1d, int64_t l2, int64_t l3, int mr, int nr, int64_t m, int64_t n,
                               int64_t k, int elem, int threads, int order, kf_bt_cpu_blocking *out);

/* The GEMM libraries with bf16 inputs, each emitted as its head, then
 * kf_bt_cpu_bf16_pack (the packing both share, cpu_gemm_bf16.c), then the
 * library: precision KF_BT_BF16 (vdpbf16ps, cpu_gemm_bf16.c) and the AMX
 * precisions (cpu_gemm_amx.c: tiles, MR and NR 16 or 32). */
extern const char kf_bt_cpu_bf16_pack[];
extern const char kf_bt_cpu_gemm_lib_bf16_head[], kf_bt_cpu_gemm_lib_bf16[];
/* cpu_gemm_i16.c: the int16 library (precision KF_BT_I16), in place of the fp32 one; its depth
 * blocks are at most KF_BT_I16_MAX_KC (two int16 and one float buffer of kc on the stack) */
#define KF_BT_I16_MAX_KC 4096
extern const char kf_bt_cpu_gemm_lib_i16_head[], kf_bt_cpu_gemm_lib_i16[];
extern const char kf_bt_cpu_gemm_lib_amx_head[], kf_bt_cpu_gemm_lib_amx[];

/* The GEMM anchor's candidate: cblas_sgemm per batch (emit.h, library_gemm). */
int kf_bt_cpu_library_gemm(const kf_resolved *r, const struct kf_bt_gemm *g, const char *backend,
                           kf_candidate **out, char **call, kf_error *err);

#endif
