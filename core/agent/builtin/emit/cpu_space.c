/* cpu_space.c — the search space of the C + OpenMP emitter (language "c",
 * host entry kf_kernel; plugins/cpu-simd): its knobs, defaults,
 * neighbours, labels and the cost model's GEMM efficiency (emit.h).  The
 * generator is builtin_cpu.c. */
#include "agent/builtin/builtin.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#if defined(__x86_64__) && defined(__linux__)
#include <cpuid.h>
#include <sys/syscall.h>
#endif

#include "cpu_knobs.h"

#define NELEM(a) ((int)(sizeof(a) / sizeof((a)[0])))

static int host_has_avx512(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f");
#else
    return 0;
#endif
}

/* vdpbf16ps usable: AVX512_BF16, and AVX512BW for the packing's 16-bit
 * permutes (cpu_gemm_bf16.c) */
static int host_has_bf16(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bf16") && __builtin_cpu_supports("avx512bw");
#else
    return 0;
#endif
}

/* int16 pairs on vpmaddwd (precision i16, cpu_gemm_i16.c): AVX2 and FMA
 * without AVX-512, where vpmaddwd's 16 multiply-adds an instruction double
 * the 8-float FMA's; with AVX-512 the fp32 kernel is as wide */
static int host_has_i16(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && !__builtin_cpu_supports("avx512f");
#else
    return 0;
#endif
}

/* AMX bf16 tiles usable by this process: the CPU reports amx_tile,
 * amx_bf16 (and AVX512_BF16, AVX512BW for the packing and the k tail) and
 * the permission for the tile state is held (the cpu-simd plugin's listing
 * asks for it, in the parent as in the worker; ARCH_GET_XCOMP_PERM only
 * reads it). */
static int host_has_amx(void)
{
#if defined(__x86_64__) && defined(__linux__)
    /* CPUID.(7,0):EDX bit 24 AMX-TILE, bit 22 AMX-BF16 (read directly:
       clang 14's __builtin_cpu_supports knows no AMX names) */
    unsigned ea, eb, ec, ed;
    if (!__get_cpuid_count(7, 0, &ea, &eb, &ec, &ed) || !(ed & (1u << 24)) || !(ed & (1u << 22))) return 0;
    __builtin_cpu_init();
    if (!host_has_bf16()) return 0;
    unsigned long mask = 0;
    return syscall(SYS_arch_prctl, 0x1022 /* ARCH_GET_XCOMP_PERM */, &mask) == 0 && (mask & (1ul << 18 /* XTILEDATA */));
#else
    return 0;
#endif
}

/* The AMX micro-kernel: 2 x 2 C tiles of 16 x 16 (cpu_gemm_amx.c); the
 * generator packs all of A and B once and keeps the C tiles in the tile
 * registers over a whole depth block (kf_bt_cpu_amx_kc, cpu_knobs.h). */
static int64_t clamp64(int64_t v, int64_t lo, int64_t hi) { return v < lo ? lo : v > hi ? hi : v; }
/* the bytes a unit of depth of a thread's AMX panels takes in L2: its
 * B micro-panels (nr columns) and two A micro-panels (mr rows), each part
 * in bf16 */
static int64_t amx_depth_bytes(int precision, int mr, int nr)
{
    int pa = kf_bt_precision_amx_split(precision) ? 2 : 1, pb = precision == KF_BT_AMX_BF16X3 ? 2 : 1;
    return (int64_t)(KF_BT_CPU_BLOCKS_PER_THREAD * nr * pb + 2 * mr * pa) * 2;
}
int kf_bt_cpu_amx_kc(int precision, int64_t l2)
{
    return (int)clamp64(l2 / 2 / amx_depth_bytes(precision, 32, 32) / 32 * 32, 64, 8192);
}
int64_t kf_bt_cpu_even_depth(int64_t k, int64_t kc, int64_t step)
{
    if (kc < 1) kc = 1;
    if (step < 1) step = 1;
    const int64_t blocks = (k + kc - 1) / kc;
    return blocks < 1 ? kc : ((k + blocks - 1) / blocks + step - 1) / step * step;
}
int64_t kf_bt_cpu_amx_depth(int64_t k, int64_t kc)
{
    if (kc >= k) return k;
    return kf_bt_cpu_even_depth(k, kc, kc % 32 == 0 ? 32 : kc % 2 == 0 ? 2 : 1);
}
static double host_cache(int name, double dflt);
static int amx_kc(int precision)
{
    return kf_bt_cpu_amx_kc(precision, (int64_t)host_cache(_SC_LEVEL2_CACHE_SIZE, 1 << 20));
}
/* the precisions on the tiles, in the order the neighbours offer them */
static const int amx_prec[4] = {KF_BT_AMX_BF16, KF_BT_AMX_BF16C, KF_BT_AMX_BF16X2, KF_BT_AMX_BF16X3};
/* q on the tiles at precision prec (an AMX one): 32 x 32, packed, amx_kc */
static void to_amx(kf_bt_point *q, int prec)
{
    double l2 = host_cache(_SC_LEVEL2_CACHE_SIZE, 1 << 20);
    q->precision = prec;
    q->knob[KC_MR] = 32;
    q->knob[KC_NR] = 32;
    q->knob[KC_PACK] = 1;
    q->knob[KC_KC] = amx_kc(prec);
    /* MC: the rows of A one work item keeps in L2 while its column
       panels pass (half of L2 at KC deep; the generator halves the items
       further for the threads); NC: any multiple of 32 */
    long mc = (long)(l2 / 2 / (q->knob[KC_KC] * 2.0)) / 32 * 32;
    q->knob[KC_MC] = mc < 32 ? 32 : mc > 4096 ? 4096 : (int)mc;
    q->knob[KC_NC] = (q->knob[KC_NC] + 31) / 32 * 32;
}

/* Micro-kernel tiles offered on this host: MR x NR with MR*NR/VL
 * accumulators, VL = 16 (AVX-512) or 8 (AVX2). */
typedef struct { int mr, nr; } tile_t;
static const tile_t TILES512[] = {{12, 32}, {8, 32}, {14, 32}, {6, 32}, {6, 64}, {24, 16}};
static const tile_t TILESAMX[] = {{32, 32}, {16, 32}, {32, 16}};
static const tile_t TILES256[] = {{6, 16}, {4, 16}, {4, 24}, {8, 8}, {3, 32}, {12, 8}};
static const int MCS[] = {48, 72, 96, 144, 192, 288};
static const int NCS[] = {128, 256, 512, 1024, 2048};
static const int KCS[] = {128, 192, 256, 384, 512};

static const kf_bt_knob KNOBS[KC_N] = {
    [KC_MC] = {"mc", 1, 4096, MCS, NELEM(MCS), "MC"},
    [KC_NC] = {"nc", 8, 65536, NCS, NELEM(NCS), "NC"},
    [KC_KC] = {"kc", 8, 8192, KCS, NELEM(KCS), "KC"},
    [KC_MR] = {"mr", 1, 32, NULL, 0, "MR"},
    [KC_NR] = {"nr", 8, 128, NULL, 0, "NR"},
    [KC_PACK] = {"pack", 0, 1, NULL, 0, "pack"},
    [KC_THREADS] = {"threads", 0, 4096, NULL, 0, "threads"},
    [KC_LOOP_ORDER] = {"loop_order", 0, 2, NULL, 0, "loop_order"},
    [KC_UNROLL] = {"unroll", 1, 8, NULL, 0, "the k-loop unroll"},
    [KC_STREAM] = {"stream", 0, 2, NULL, 0, "streaming stores"},
    [KC_PREFETCH] = {"prefetch", 0, 2, NULL, 0, "the streamed loops' prefetch"},
};

/* Do streaming stores pay for `bytes` stored by the maps and row ops on
 * `threads` threads (<= 0: this host's): more than the L2 of all of them,
 * so the lines leave the cache before anything reads them again and the
 * write-allocate read of each is wasted; below that the outputs stay in
 * cache for the next reader and streaming would push them to memory. */
static int stream_pays(double bytes, int threads)
{
    if (threads <= 0) threads = kf_bt_host_threads();
    return bytes >= KF_BT_CPU_STREAM_MIN_BYTES && bytes > host_cache(_SC_LEVEL2_CACHE_SIZE, 1 << 20) * threads;
}

/* Rows of the GEMM with the fewest rows (M of C = x W^T), 0 if none. */
static int64_t min_gemm_rows(const kf_resolved *r)
{
    const kf_problem *pr = r->problem;
    int64_t m = 0;
    for (int k = 0; k < pr->n_nodes; k++) {
        if (!kf_op_is_contraction(pr->nodes[k].op)) continue;
        const kf_shape *y = &r->shapes[pr->n_inputs + k];
        int64_t n = y->rank ? y->d[y->rank - 1] : 1;
        int64_t rows = n ? kf_shape_elems(y) / n : 0;
        if (m == 0 || rows < m) m = rows;
    }
    return m;
}

/* Columns of the widest GEMM (N of C), 0 if none. */
static int64_t max_gemm_cols(const kf_resolved *r)
{
    const kf_problem *pr = r->problem;
    int64_t n = 0;
    for (int k = 0; k < pr->n_nodes; k++) {
        if (!kf_op_is_contraction(pr->nodes[k].op)) continue;
        const kf_shape *y = &r->shapes[pr->n_inputs + k];
        int64_t c = y->rank ? y->d[y->rank - 1] : 1;
        if (c > n) n = c;
    }
    return n;
}

/* Depth (K) of the GEMM with the deepest reduction (shallowest where
 * shallowest is set), 0 if none. */
static int64_t gemm_depth(const kf_resolved *r, int shallowest)
{
    const kf_problem *pr = r->problem;
    int64_t k = 0;
    for (int i = 0; i < pr->n_nodes; i++) {
        if (!kf_op_is_contraction(pr->nodes[i].op)) continue;
        const kf_shape *a = &r->shapes[pr->nodes[i].in[0].value];
        int64_t d = a->rank ? a->d[a->rank - 1] : 1;
        if (k == 0 || (shallowest ? d < k : d > k)) k = d;
    }
    return k;
}

/* Can precision i16 run r's GEMMs: none is 1 deep (a depth block of 1 has
 * no room for its scales, builtin_cpu.c's depth_block); 1 without r. */
static int i16_depths(const kf_resolved *r)
{
    return !r || gemm_depth(r, 1) != 1;
}

/* Elements of the B operand (the weights) of the largest GEMM, 0 if none. */
static int64_t max_gemm_b_elems(const kf_resolved *r)
{
    const kf_problem *pr = r->problem;
    int64_t e = 0;
    for (int k = 0; k < pr->n_nodes; k++) {
        const kf_node *nd = &pr->nodes[k];
        if (!kf_op_is_contraction(nd->op) || nd->n_in < 2 || nd->in[1].is_scalar) continue;
        int64_t b = kf_shape_elems(&r->shapes[nd->in[1].value]);
        if (b > e) e = b;
    }
    return e;
}

/* Is every GEMM of r skinny: few rows of A (at most KF_BT_CPU_SKINNY_ROWS)
 * that fit in this core's L2 (l2 bytes) against a B of at least 4 x L2, so
 * that reading B is the cost (loop_order 2)?  0 when r has no GEMM. */
static int skinny_gemms(const kf_resolved *r, int64_t l2)
{
    const kf_problem *pr = r->problem;
    int any = 0;
    for (int k = 0; k < pr->n_nodes; k++) {
        const kf_node *nd = &pr->nodes[k];
        if (!kf_op_is_contraction(nd->op)) continue;
        if (nd->n_in < 2 || nd->in[0].is_scalar || nd->in[1].is_scalar) return 0;
        const kf_shape *y = &r->shapes[pr->n_inputs + k], *x = &r->shapes[nd->in[0].value];
        int64_t n = y->rank ? y->d[y->rank - 1] : 1, kk = x->rank ? x->d[x->rank - 1] : 1;
        int64_t m = n ? kf_shape_elems(y) / n : 0;
        int64_t bbytes = kf_shape_elems(&r->shapes[nd->in[1].value]) * 4;
        if (m < 1 || m > KF_BT_CPU_SKINNY_ROWS || m * kk * 4 > l2 || bbytes < 4 * l2) return 0;
        any = 1;
    }
    return any;
}

/* Does a row op (softmax, a norm, a reduction...) follow a GEMM, possibly
 * after map ops?  Then the rows-fused plan computes MC x N row panels. */
static int has_row_tail(const kf_resolved *r)
{
    const kf_problem *pr = r->problem;
    int after_gemm = 0;
    for (int k = 0; k < pr->n_nodes; k++) {
        kf_op op = pr->nodes[k].op;
        if (kf_op_is_contraction(op)) after_gemm = 1;
        else if (after_gemm && !kf_bt_is_map_op(op)) return 1;
    }
    return 0;
}

/* A cache size of this host from sysconf, or dflt where it does not say. */
static double host_cache(int name, double dflt)
{
    long v = sysconf(name);
    return v > 0 ? (double)v : dflt;
}

void kf_bt_cpu_derive_blocking(int64_t l1d, int64_t l2, int64_t l3, int mr, int nr, int64_t m, int64_t n,
                               int64_t k, int elem, int threads, int order, kf_bt_cpu_blocking *out)
{
    int rows_fused = order == KF_BT_CPU_ORDER_ROWS, columns = order == KF_BT_CPU_ORDER_COLUMNS;
    if (mr < 1) mr = 1;
    if (nr < 8) nr = 8;
    if (order == KF_BT_CPU_ORDER_SKINNY) {
        /* B's KC x NR micro-panel in half of L1 (every row tile runs over
           it); all rows at once; NC one panel */
        int64_t kc = l1d > 0 ? clamp64((l1d / 2) / ((int64_t)nr * 4) / 8 * 8, 64, 1024) : 256;
        out->mc = (int)(m > 0 ? clamp64((m + mr - 1) / mr * mr, mr, 4096 / mr * mr) : mr);
        out->nc = nr;
        out->kc = (int)kc;
        return;
    }
    if (l1d <= 0) {
        out->mc = nr >= 32 ? 96 : 72;
        out->nc = 256;
        out->kc = 384;
        return;
    }
    if (l2 <= 0) l2 = 8 * l1d;
    if (l3 <= 0) l3 = l2;
    /* the micro-panel that stays in L1 across the inner loop: A's (MR x KC)
       in the block and column orders (jr inside ir), B's (KC x NR) with rows
       fused (ir inside jr); half of L1, the rest for the streamed panel and C.
       The column order: A's micro-panel, in the packed element's bytes (eb),
       fills L1 where a row of B's micro-panel is at least 32 floats (the
       AVX-512 tiles, measured on the Zen 4 VM and the 16-core Xeon), half of
       it for narrower ones (AVX2's 6 x 16: on the 2-core Zen 3, problem 40's
       GEMM, 2048 x 1024 -> 1024, took 7% less time at KC 512 than at all of
       K, 1024, and 9's the same at 344-1024; bench/results/zen3-gemm-kc-
       2026-11-30), and the depth blocks are even */
    const int64_t eb = columns && elem == 2 ? 2 : 4;
    const int64_t l1_a = nr >= 32 ? l1d : l1d / 2;
    int64_t kc = columns ? clamp64(l1_a / ((int64_t)mr * eb) / 8 * 8, 64, 4096)
                         : clamp64((l1d / 2) / ((int64_t)(rows_fused ? nr : mr) * 4) / 8 * 8, 64, 1024);
    if (columns && k > 0) kc = clamp64(kf_bt_cpu_even_depth(k, kc, 8), 8, 4096);
    int64_t in_l2 = (l2 / 2) / (kc * eb), in_l3 = (l3 / 2) / (kc * eb);
    int64_t mc = rows_fused ? in_l2 : in_l3, nc = rows_fused ? in_l3 : in_l2;
    /* with rows fused the MC x N row panel is what the row op re-reads */
    if (rows_fused && n > 0 && mc > l2 / (n * 4)) mc = l2 / (n * 4);
    mc = clamp64(mc / mr * mr, mr, 4096 / mr * mr);
    nc = clamp64(nc / nr * nr, nr, 65536 / nr * nr);
    /* no block larger than the matrix (rounded up to the tile) */
    if (m > 0 && mc > (m + mr - 1) / mr * mr) mc = (m + mr - 1) / mr * mr;
    if (n > 0 && nc > (n + nr - 1) / nr * nr) nc = (n + nr - 1) / nr * nr;
    if (columns) {
        /* the column order hands out NC-column blocks only: halve NC until
           every thread has its blocks, down to a few NR panels */
        int64_t want = (int64_t)threads * KF_BT_CPU_COLUMN_BLOCKS_PER_THREAD;
        while (threads > 1 && n > 0 && (n + nc - 1) / nc < want && nc / nr >= 2 * KF_BT_CPU_MIN_COLUMN_PANELS)
            nc = ((nc / nr + 1) / 2) * nr;
        out->mc = (int)mc;
        out->nc = (int)nc;
        out->kc = (int)kc;
        return;
    }
    /* KF_BT_CPU_BLOCKS_PER_THREAD blocks a thread (a machine shared with
       other work stalls a thread now and then; more blocks than threads let
       the others take up its share): halve the larger (in tiles) while it
       helps */
    int64_t want = (int64_t)threads * KF_BT_CPU_BLOCKS_PER_THREAD;
    while (threads > 1 && m > 0 && n > 0) {
        int64_t mb = (m + mc - 1) / mc, nb = rows_fused ? 1 : (n + nc - 1) / nc;
        if (mb * nb >= want) break;
        int can_m = mc > mr, can_n = !rows_fused && nc > nr;
        if (!can_m && !can_n) break;
        if (can_m && (!can_n || mc / mr >= nc / nr)) mc = ((mc / mr + 1) / 2) * mr;
        else nc = ((nc / nr + 1) / 2) * nr;
    }
    out->mc = (int)mc;
    out->nc = (int)nc;
    out->kc = (int)kc;
}

/* Bytes a problem without a GEMM stores into its outputs (float32), 0 for
 * a problem with one (its outputs are a GEMM's epilogue's). */
static double gemmless_out_bytes(const kf_resolved *r)
{
    if (kf_bt_has_gemm_op(r)) return 0.0;
    const kf_problem *pr = r->problem;
    double b = 0.0;
    for (int i = 0; i < pr->n_outputs; i++) b += (double)kf_shape_elems(&r->shapes[pr->outputs[i]]) * 4.0;
    return b;
}

static int group_reads_overlap(const kf_resolved *r);

static void defaults(kf_bt_point *p, const kf_resolved *r, const kf_device_info *dev)
{
    int a512 = host_has_avx512();
    p->knob[KC_MR] = a512 ? 12 : 6;
    p->knob[KC_NR] = a512 ? 32 : 16;
    p->knob[KC_PACK] = 1;
    p->knob[KC_THREADS] = 0;
    p->knob[KC_LOOP_ORDER] = 0;
    p->knob[KC_UNROLL] = 1;
    /* streaming stores: the default only where a problem without a GEMM
       stores more than the L2 of all threads (below, stream_pays);
       elsewhere the analysis recommends them where the outputs leave the
       cache (store_traffic) and the measurement decides */
    p->knob[KC_STREAM] = 0;
    p->knob[KC_PREFETCH] = 0;   /* each loop's measured default (cpu_knobs.h) */
    int known = dev && dev->struct_size >= sizeof *dev;   /* the ABI 1.3 fields */
    /* bf16 inputs (vdpbf16ps) only where the probe measured them faster
       than fp32 FMAs (the development VM's Xeon measured half the fp32
       rate) and the problem's tolerance leaves room for bf16's rounding
       (KF_BT_CPU_BF16_MIN_TOL); a failed verification falls back to bf16c
       or fp32 (builtin_agent.c, kf_bt_point_conservative) */
    const kf_problem *pr = r ? r->problem : NULL;
    int roomy = pr && pr->rel_l2 >= KF_BT_CPU_BF16_MIN_TOL && (pr->atol >= KF_BT_CPU_BF16_MIN_TOL || pr->rtol >= KF_BT_CPU_BF16_MIN_TOL);
    if (known && roomy && dev->peak_flops_bf16 > dev->peak_flops && host_has_bf16()) p->precision = KF_BT_BF16;
    /* int16 pairs where AVX2 is the widest unit (Zen 3: problems 9's and
       40's GEMMs at 1.36-1.68x the fp32 kernel's,
       bench/results/zen3-gemm-i16-2026-11-30), under the same rule: the
       probe's int16-pair peak well above its fp32 peak where it measured
       one (KF_BT_CPU_I16_MIN_GAIN), a failed verification falls back to fp32 */
    else if (known && roomy && host_has_i16() && i16_depths(r) &&   /* the 6 x 16 tile above (no AVX-512) */
             (dev->peak_flops_i16 <= 0.0 || dev->peak_flops_i16 >= KF_BT_CPU_I16_MIN_GAIN * dev->peak_flops))
        p->precision = KF_BT_I16;
    /* AMX tiles are never the default (a point naming precision 0 or 3
       keeps the vector tiles then); the search reaches them as a neighbour
       of every packed point where this process holds the tile permission
       (neighbours, offerable) */
    if (r) {
        /* tiny problems (a one-row GEMM, a GEMV, a few thousand elements):
           one thread, no team to wake; the search tries all threads next */
        if (r->flops < KF_BT_CPU_TINY_FLOPS && r->min_bytes < KF_BT_CPU_TINY_BYTES) p->knob[KC_THREADS] = 1;
        /* a memory-bound problem whose outputs leave the cache: streaming
           stores from the first step (the unstreamed code is the op-by-op
           baseline's, timed anyway), GroupNorm's groups read beside them
           where that changes its code.  The maps at the cpu preset on the
           16-core host, unstreamed / streamed in 5 rounds in turns: 19
           1.44-1.85x, 26 1.44-1.95x, 88 1.23-1.62x (a suite that started
           unstreamed kept 88 so, its streamed step timed in a slow stretch);
           35 GroupNorm on the 2-core Zen 4 VM: stream 2 3.4-3.9 ms against
           stream 1's 5.0-6.2, on the 16-core host alike
           (bench/results/xeon16-cpu-stream-ab-2026-12-01).  The model
           rates no unstreamed neighbour faster, so where streaming costs
           it is the op-by-op baseline (unstreamed, timed beside the
           finalists: loop_confirm.c) that is kept; under --no-baseline
           no unstreamed code is timed */
        if (stream_pays(gemmless_out_bytes(r), p->knob[KC_THREADS]))
            p->knob[KC_STREAM] = group_reads_overlap(r) ? 2 : 1;
        /* few rows (a wide, short GEMM): B is the big operand, so read it
           once (column-block order) and keep the row op as its own pass:
           row panels would leave threads idle */
        int64_t m = min_gemm_rows(r);
        if (m > 0 && m <= 4 * (int64_t)(a512 ? 96 : 72)) {
            p->knob[KC_LOOP_ORDER] = 1;
            p->fusion = KF_BT_FUSE_EPILOGUE;
        }
        /* no row op after the GEMM: the column-block order too, whatever M.
           Each thread packs its own KC x NC block of B into its cache from
           the weights, read once; the block order writes all of packed B
           out to memory and reads it back (3 passes over B instead of 1:
           measured on the 2-core Xeon at 512 x 2048 -> 2048, one thread,
           CPU time, the block order ran at 0.76-0.85x OpenBLAS sgemm in the
           same process, the column order at 0.97-1.02x) */
        if (!has_row_tail(r)) p->knob[KC_LOOP_ORDER] = 1;
        /* a row op after a GEMM whose packed B does not fit in L2: row
           panels re-read all of packed B from memory for every MC rows (99
           at the cpu preset, 512 x 2048 -> 2048 with softmax: 0.42x the
           op-by-op baseline on the 2-core Xeon); the column order with the
           map ops fused at the store, then the row op as its own pass over
           C (in L3), as the baseline does.  The search still tries rows. */
        int64_t l2 = known && dev->cache_l2_bytes > 0 ? dev->cache_l2_bytes
                                                      : (int64_t)host_cache(_SC_LEVEL2_CACHE_SIZE, 1 << 20);
        if (has_row_tail(r) && max_gemm_b_elems(r) * 4 > l2) {
            p->knob[KC_LOOP_ORDER] = 1;
            p->fusion = KF_BT_FUSE_EPILOGUE;
        }
        /* skinny GEMMs (56, 59 at the cpu preset: 64 x 4096 against W of
           8192 x 4096, 128 MiB): reading W is the cost, so stream it once,
           in runs of contiguous panels, with x packed once and kept in
           cache (loop_order 2); the map tail at the store, a row op as its
           own pass over C (small: M rows) */
        if (skinny_gemms(r, l2)) {
            p->knob[KC_LOOP_ORDER] = 2;
            p->fusion = KF_BT_FUSE_EPILOGUE;
            /* every row tile is a full pass over B's micro-panel: no padded
               rows where 8 divides M and 12 does not (64, 128) */
            if (a512 && m % p->knob[KC_MR] != 0 && m % 8 == 0) p->knob[KC_MR] = 8;
        }
    }
    /* blocking from the probed caches, for the loop order the plan takes */
    int threads = dev && dev->max_work_group > 0 ? dev->max_work_group : 0;
    kf_bt_cpu_blocking bk;
    kf_bt_cpu_derive_blocking(known ? dev->cache_l1d_bytes : 0, known ? dev->cache_l2_bytes : 0,
                              known ? dev->cache_l3_bytes : 0, p->knob[KC_MR], p->knob[KC_NR],
                              r ? min_gemm_rows(r) : 0, r ? max_gemm_cols(r) : 0, r ? gemm_depth(r, 0) : 0,
                              p->precision == KF_BT_BF16 || p->precision == KF_BT_BF16C || p->precision == KF_BT_I16 ? 2 : 4,
                              threads,
                              p->fusion == KF_BT_FUSE_ROWS && r && has_row_tail(r) ? KF_BT_CPU_ORDER_ROWS
                              : p->knob[KC_LOOP_ORDER] == 2 ? KF_BT_CPU_ORDER_SKINNY
                              : p->knob[KC_LOOP_ORDER] == 1 ? KF_BT_CPU_ORDER_COLUMNS
                                                            : KF_BT_CPU_ORDER_BLOCKS,
                              &bk);
    p->knob[KC_MC] = bk.mc;
    p->knob[KC_NC] = bk.nc;
    p->knob[KC_KC] = bk.kc;
}

static int check(const kf_bt_point *p, kf_error *err)
{
    if (p->precision != KF_BT_FP32 && p->precision != KF_BT_BF16 && p->precision != KF_BT_BF16C &&
        p->precision != KF_BT_I16 && !kf_bt_precision_amx(p->precision))
        return kf_fail(err, KF_E_BAD_INPUT, "builtin point: precision %d; the C emitter writes fp32 (0) or bf16 "
                       "inputs with fp32 accumulation (3: vdpbf16ps, 5: AMX tiles, 6: 3xbf16 on AMX tiles, "
                       "7: 2xbf16 on AMX tiles, 8: bf16 on AMX tiles with A's columns centred, 9: vdpbf16ps with "
                       "A's columns centred) or int16 with int32 sums a depth block (10: AVX2 vpmaddwd)",
                       p->precision);
    if (p->precision == KF_BT_I16 && (!p->knob[KC_PACK] || p->knob[KC_MR] != 6 || p->knob[KC_NR] != 16 ||
                                      p->knob[KC_KC] < 2 || p->knob[KC_KC] > KF_BT_I16_MAX_KC))
        return kf_fail(err, KF_E_BAD_INPUT, "builtin point: precision 10 (i16) needs pack = 1, the 6 x 16 AVX2 "
                       "micro-kernel and kc in [2, %d] (its packing buffers are on the stack); got pack = %d, "
                       "mr = %d, nr = %d, kc = %d", KF_BT_I16_MAX_KC, p->knob[KC_PACK], p->knob[KC_MR],
                       p->knob[KC_NR], p->knob[KC_KC]);
    if (kf_bt_precision_amx(p->precision) &&
        (!p->knob[KC_PACK] || (p->knob[KC_MR] != 16 && p->knob[KC_MR] != 32) ||
         (p->knob[KC_NR] != 16 && p->knob[KC_NR] != 32)))
        return kf_fail(err, KF_E_BAD_INPUT, "builtin point: precision %d (AMX) needs pack = 1 and mr, nr of 16 or "
                       "32 (whole 16 x 16 C tiles); got pack = %d, mr = %d, nr = %d", p->precision, p->knob[KC_PACK],
                       p->knob[KC_MR], p->knob[KC_NR]);
    if (kf_bt_precision_amx_split(p->precision) && (p->knob[KC_KC] & 1))   /* both parts in a panel's fp32 room */
        return kf_fail(err, KF_E_BAD_INPUT, "builtin point: precision %d (%s on AMX) needs an even kc; got %d",
                       p->precision, kf_bt_amx_split_name(p->precision), p->knob[KC_KC]);
    if ((p->precision == KF_BT_BF16 || p->precision == KF_BT_BF16C) && (!p->knob[KC_PACK] || p->knob[KC_NR] % 16 != 0))
        return kf_fail(err, KF_E_BAD_INPUT, "builtin point: precision %d (%s) needs pack = 1 and nr a multiple of 16 "
                       "(the AVX-512 width); got pack = %d, nr = %d", p->precision,
                       p->precision == KF_BT_BF16 ? "bf16" : "bf16c", p->knob[KC_PACK], p->knob[KC_NR]);
    if (p->knob[KC_NR] % 8 != 0)
        return kf_fail(err, KF_E_BAD_INPUT, "builtin point: nr = %d must be a multiple of 8 (the AVX2 vector width)",
                       p->knob[KC_NR]);
    return 0;
}

static int conservative(kf_bt_point *p)
{
    if (p->knob[KC_PACK]) { p->knob[KC_PACK] = 0; return 1; }
    return 0;
}

/* bf16 only on a CPU with AVX512_BF16 (the candidate would not compile
 * elsewhere); AMX only where this process holds the tile permission; i16
 * only with AVX2 and without AVX-512. */
static int offerable(const kf_bt_point *p)
{
    return p->precision == KF_BT_FP32 || ((p->precision == KF_BT_BF16 || p->precision == KF_BT_BF16C) && host_has_bf16()) ||
           (kf_bt_precision_amx(p->precision) && host_has_amx()) || (p->precision == KF_BT_I16 && host_has_i16());
}

/* Does stream 2 change r's code: a GroupNorm in groups of at least
 * KF_GN_SMALL_GROUP elements that is not a GEMM's row tail (has_row_tail's
 * walk: a GEMM, then map ops, then the row op), so its own row group, and
 * whose output streams (KF_BT_CPU_STREAM_MIN_BYTES)?  builtin_cpu.c,
 * gn_carries, decides on the plan; this is the same from the graph. */
static int group_reads_overlap(const kf_resolved *r)
{
    const kf_problem *pr = r ? r->problem : NULL;
    int after_gemm = 0;
    for (int k = 0; pr && k < pr->n_nodes; k++) {
        const kf_node *nd = &pr->nodes[k];
        if (kf_op_is_contraction(nd->op)) {
            after_gemm = 1;
            continue;
        }
        if (kf_bt_is_map_op(nd->op)) continue;
        const kf_shape *sh = &r->shapes[pr->n_inputs + k];
        double elems = (double)kf_shape_elems(sh);
        if (nd->op == KF_OP_GROUP_NORM && nd->groups > 0 && !after_gemm && sh->rank > 1 &&
            elems / (double)sh->d[0] / nd->groups >= KF_GN_SMALL_GROUP && elems * 4.0 >= KF_BT_CPU_STREAM_MIN_BYTES)
            return 1;
        after_gemm = 0;
    }
    return 0;
}

/* The code of prefetch value v where the plan has the loops `sites`
 * (KF_BT_CPU_PF_*): two bits a site, its kf_bt_cpu_pf_kind. */
static unsigned prefetch_code(unsigned sites, int v)
{
    unsigned code = 0;
    for (unsigned site = KF_BT_CPU_PF_MAP, i = 0; site <= KF_BT_CPU_PF_CHANNELS; site <<= 1, i++)
        if (sites & site) code |= (unsigned)kf_bt_cpu_pf_kind(site, v) << (2 * i);
    return code;
}

static void neighbours(const kf_bt_point *p, kf_bt_nbr_sink *s)
{
    kf_bt_point q;
    if (!p->knob[KC_PACK]) { q = *p; q.knob[KC_PACK] = 1; kf_bt_nbr_push(s, &q); return; }
    int a512 = host_has_avx512();
    if (kf_bt_precision_amx(p->precision)) {
        /* the other tile precisions, then off the tiles: the vector micro-kernels' default tile */
        for (int i = 0; i < 4; i++)   /* each at its own KC (amx_kc: the low parts take L2) */
            if (amx_prec[i] != p->precision) { q = *p; q.precision = amx_prec[i]; q.knob[KC_KC] = amx_kc(amx_prec[i]); kf_bt_nbr_push(s, &q); }
        for (int pr = 0; pr < 2; pr++) {
            q = *p;
            q.precision = pr ? KF_BT_BF16 : KF_BT_FP32;
            q.knob[KC_MR] = a512 ? 12 : 6;
            q.knob[KC_NR] = a512 ? 32 : 16;
            kf_bt_nbr_push(s, &q);
        }
    } else {
        q = *p; q.precision = p->precision == KF_BT_BF16 ? KF_BT_FP32 : KF_BT_BF16; kf_bt_nbr_push(s, &q);
        /* vdpbf16ps with A centred where bf16 misses by a few elements (the
           agent passes it over otherwise: kf_bt_precision_ruled_out) */
        if (p->precision != KF_BT_BF16C) { q = *p; q.precision = KF_BT_BF16C; kf_bt_nbr_push(s, &q); }
        /* int16 pairs on AVX2 from the fp32 point (its 6 x 16 tile, kc
           within the library's bound), fp32 from the i16 one */
        q = *p;
        q.precision = p->precision == KF_BT_I16 ? KF_BT_FP32 : KF_BT_I16;
        if (q.precision == KF_BT_I16) {
            q.knob[KC_MR] = 6;
            q.knob[KC_NR] = 16;
            if (q.knob[KC_KC] > KF_BT_I16_MAX_KC) q.knob[KC_KC] = KF_BT_I16_MAX_KC;
        }
        if (q.precision != KF_BT_I16 || i16_depths(kf_bt_nbr_problem(s))) kf_bt_nbr_push(s, &q);
        if (host_has_amx()) {   /* bf16 on the tiles, and bf16c, 2xbf16, 3xbf16 where bf16 misses the tolerance */
            for (int i = 0; i < 4; i++) { q = *p; to_amx(&q, amx_prec[i]); kf_bt_nbr_push(s, &q); }
        }
    }
    int amx = kf_bt_precision_amx(p->precision);
    const tile_t *tl = amx ? TILESAMX : a512 ? TILES512 : TILES256;
    int nt = amx ? NELEM(TILESAMX) : a512 ? NELEM(TILES512) : NELEM(TILES256);
    for (int i = 0; i < nt; i++) {
        q = *p; q.knob[KC_MR] = tl[i].mr; q.knob[KC_NR] = tl[i].nr; kf_bt_nbr_push(s, &q);
    }
    /* the column order without row panels packs all of A at once: MC
       changes nothing there */
    if (p->knob[KC_LOOP_ORDER] == 0 || p->fusion == KF_BT_FUSE_ROWS) kf_bt_step_knob(p, KC_MC, s);
    /* the skinny order runs one NR panel at a time: NC changes nothing */
    if (p->knob[KC_LOOP_ORDER] != 2) kf_bt_step_knob(p, KC_NC, s);
    kf_bt_step_knob(p, KC_KC, s);
    int u = p->knob[KC_UNROLL];
    q = *p; q.knob[KC_UNROLL] = u == 1 ? 2 : (u == 2 ? 4 : 1); kf_bt_nbr_push(s, &q);
    /* the other two loop orders */
    for (int o = 1; o <= 2; o++) { q = *p; q.knob[KC_LOOP_ORDER] = (p->knob[KC_LOOP_ORDER] + o) % 3; kf_bt_nbr_push(s, &q); }
    q = *p; q.knob[KC_THREADS] = p->knob[KC_THREADS] ? 0 : 1; kf_bt_nbr_push(s, &q);
    /* streaming off takes the prefetch knob back to its default: without
       streaming it changes nothing, and a point that differs only there
       would be the same code under another name */
    q = *p; q.knob[KC_STREAM] = !p->knob[KC_STREAM]; if (!q.knob[KC_STREAM]) q.knob[KC_PREFETCH] = 0; kf_bt_nbr_push(s, &q);
    /* streaming stores with GroupNorm's reads beside them (2) from 0 and
       1 where the problem's code changes with it, and 1 from 2 */
    if (p->knob[KC_STREAM] == 2 || group_reads_overlap(kf_bt_nbr_problem(s))) {
        q = *p; q.knob[KC_STREAM] = p->knob[KC_STREAM] == 2 ? 1 : 2; kf_bt_nbr_push(s, &q);
    }
    /* the other prefetch values, each where it changes the code (a loop
       of the point's plan that streams and prefetches differently) and
       once for each code (with maps alone 0 and 2 are the same) */
    if (p->knob[KC_STREAM]) {
        unsigned sites = kf_bt_cpu_prefetch_sites(kf_bt_nbr_problem(s), p), seen[3];
        int n_seen = 0;
        seen[n_seen++] = prefetch_code(sites, p->knob[KC_PREFETCH]);
        for (int v = 0; v <= 2; v++) {
            unsigned code = prefetch_code(sites, v);
            int dup = 0;
            for (int i = 0; i < n_seen; i++) dup |= seen[i] == code;
            if (dup) continue;
            seen[n_seen++] = code;
            q = *p; q.knob[KC_PREFETCH] = v; kf_bt_nbr_push(s, &q);
        }
    }
}

/* The knobs of the map and row loops, appended to a label */
static void loops_knobs(const int *k, char *buf, size_t n)
{
    if (k[KC_STREAM]) strncat(buf, k[KC_STREAM] == 2 ? " stream overlap" : " stream", n - strlen(buf) - 1);
    if (k[KC_PREFETCH]) strncat(buf, k[KC_PREFETCH] == 2 ? " prefetch-l2" : " prefetch-l1", n - strlen(buf) - 1);
}

/* A problem without a GEMM: the fusion, the threads and the loops' knobs */
static char *loops_label(const kf_bt_point *p, const char *fusion, char *buf, size_t n)
{
    snprintf(buf, n, "loops %s omp", fusion);
    if (p->knob[KC_THREADS]) snprintf(buf + strlen(buf), n - strlen(buf), "%d", p->knob[KC_THREADS]);
    loops_knobs(p->knob, buf, n);
    return buf;
}

static char *label(const kf_bt_point *p, const char *fusion, char *buf, size_t n)
{
    char thr[24] = "omp";
    const int *k = p->knob;
    if (k[KC_THREADS]) snprintf(thr, sizeof thr, "omp%d", k[KC_THREADS]);
    if (k[KC_PACK])
        snprintf(buf, n, "gemm %dx%dx%d mr%dnr%d%s%s %s %s", k[KC_MC], k[KC_NC], k[KC_KC], k[KC_MR], k[KC_NR],
                 k[KC_UNROLL] > 1 ? " u" : "", k[KC_UNROLL] > 1 ? (k[KC_UNROLL] == 2 ? "2" : "4") : "", fusion, thr);
    else
        snprintf(buf, n, "gemm plain loops %s %s", fusion, thr);
    if (k[KC_LOOP_ORDER] == 1) strncat(buf, " colmajor", n - strlen(buf) - 1);
    if (k[KC_LOOP_ORDER] == 2) strncat(buf, " skinny", n - strlen(buf) - 1);
    loops_knobs(k, buf, n);
    if (p->precision == KF_BT_BF16) strncat(buf, " bf16", n - strlen(buf) - 1);
    if (p->precision == KF_BT_AMX_BF16) strncat(buf, " amx-bf16", n - strlen(buf) - 1);
    if (p->precision == KF_BT_AMX_BF16X3) strncat(buf, " amx-3xbf16", n - strlen(buf) - 1);
    if (p->precision == KF_BT_AMX_BF16X2) strncat(buf, " amx-2xbf16", n - strlen(buf) - 1);
    if (p->precision == KF_BT_AMX_BF16C) strncat(buf, " amx-bf16c", n - strlen(buf) - 1);
    if (p->precision == KF_BT_BF16C) strncat(buf, " bf16c", n - strlen(buf) - 1);
    if (p->precision == KF_BT_I16) strncat(buf, " i16", n - strlen(buf) - 1);
    return buf;
}

static const char *describe_change(const kf_bt_point *pa, const kf_bt_point *pb, char *buf, size_t n)
{
    const int *a = pa->knob, *b = pb->knob;
    if (a[KC_MR] != b[KC_MR] || a[KC_NR] != b[KC_NR])
        snprintf(buf, n, "use a %dx%d micro-kernel (was %dx%d)", b[KC_MR], b[KC_NR], a[KC_MR], a[KC_NR]);
    else if (a[KC_MC] != b[KC_MC]) snprintf(buf, n, "set MC to %d (was %d)", b[KC_MC], a[KC_MC]);
    else if (a[KC_NC] != b[KC_NC]) snprintf(buf, n, "set NC to %d (was %d)", b[KC_NC], a[KC_NC]);
    else if (a[KC_KC] != b[KC_KC]) snprintf(buf, n, "set KC to %d (was %d)", b[KC_KC], a[KC_KC]);
    else if (a[KC_UNROLL] != b[KC_UNROLL]) snprintf(buf, n, "unroll the k loop by %d", b[KC_UNROLL]);
    else if (a[KC_LOOP_ORDER] != b[KC_LOOP_ORDER])
        snprintf(buf, n, "%s", b[KC_LOOP_ORDER] == 2 ? "stream B once in runs of contiguous panels (skinny order)"
                               : b[KC_LOOP_ORDER] ? "order blocks column-major" : "order blocks row-major");
    else if (a[KC_THREADS] != b[KC_THREADS]) snprintf(buf, n, "use %s threads", b[KC_THREADS] ? "1" : "all");
    else if (a[KC_STREAM] != b[KC_STREAM])
        snprintf(buf, n, "%s", b[KC_STREAM] == 2 ? "read GroupNorm's next group beside the streamed stores"
                               : a[KC_STREAM] == 2 && b[KC_STREAM] ? "read each GroupNorm group for its mean on its own"
                               : b[KC_STREAM] ? "write the outputs with streaming (non-temporal) stores"
                                              : "write the outputs through the cache");
    else if (a[KC_PREFETCH] != b[KC_PREFETCH])
        snprintf(buf, n, "%s", b[KC_PREFETCH] == 2 ? "prefetch each streamed block's lines 32 KiB ahead into L2 in every loop"
                               : b[KC_PREFETCH] == 1 ? "prefetch one line 4 KiB ahead only, into L1, in every loop"
                                                     : "prefetch as each loop does by default");
    else if (a[KC_PACK] != b[KC_PACK]) snprintf(buf, n, "%s packing", b[KC_PACK] ? "enable" : "disable");
    else if (pa->precision != pb->precision)
        snprintf(buf, n, "%s", pb->precision == KF_BT_BF16       ? "use bf16 inputs (vdpbf16ps, fp32 accumulation)"
                               : pb->precision == KF_BT_AMX_BF16 ? "use bf16 inputs on AMX tiles (tdpbf16ps, fp32 accumulation)"
                               : pb->precision == KF_BT_AMX_BF16X3 ? "use 3xbf16 on AMX tiles (high and low parts, near-fp32 accuracy)"
                               : pb->precision == KF_BT_AMX_BF16X2 ? "use 2xbf16 on AMX tiles (A in high and low parts, B rounded)"
                               : pb->precision == KF_BT_AMX_BF16C ? "use bf16 on AMX tiles with A's columns centred (about half bf16's error)"
                               : pb->precision == KF_BT_BF16C ? "use bf16 inputs (vdpbf16ps) with A's columns centred (about half bf16's error)"
                               : pb->precision == KF_BT_I16 ? "use int16 inputs (vpmaddwd, each depth block's rows and columns scaled to integers of at most sqrt((2^31 - 1) / kc))"
                                                                 : "use fp32");
    else return NULL;
    return buf;
}

/* Into row panels (fusion ROWS with a row op after the GEMM): the items
 * are MC x N panels, so an MC derived for the column or block order (all
 * of M in one block: 516 at 512 rows) would leave every thread but one
 * idle (99 at the cpu preset on 2 cores: 34-36 ms against 16).  MC takes
 * the rows order's derivation from this host's caches and threads where
 * that is smaller (the candidates run here, as gemm_eff assumes). */
static void refit_fusion(kf_bt_point *q, const kf_resolved *r)
{
    if (!r || !q->knob[KC_PACK] || q->fusion != KF_BT_FUSE_ROWS || !has_row_tail(r) || q->knob[KC_LOOP_ORDER] == 2)
        return;
    int threads = q->knob[KC_THREADS] ? q->knob[KC_THREADS] : kf_bt_host_threads();
    kf_bt_cpu_blocking bk;
    kf_bt_cpu_derive_blocking((int64_t)host_cache(_SC_LEVEL1_DCACHE_SIZE, 32768),
                              (int64_t)host_cache(_SC_LEVEL2_CACHE_SIZE, 1 << 20),
                              (int64_t)host_cache(_SC_LEVEL3_CACHE_SIZE, 8 << 20), q->knob[KC_MR], q->knob[KC_NR],
                              min_gemm_rows(r), max_gemm_cols(r), gemm_depth(r, 0), 4, threads, KF_BT_CPU_ORDER_ROWS, &bk);
    if (bk.mc < q->knob[KC_MC]) q->knob[KC_MC] = bk.mc;
}

static int plan_fusion(const kf_bt_point *p, int fusion)
{
    /* the plain-loop GEMM and the skinny order have no row panels */
    return (!p->knob[KC_PACK] || p->knob[KC_LOOP_ORDER] == 2) && fusion == KF_BT_FUSE_ROWS ? KF_BT_FUSE_EPILOGUE
                                                                                           : fusion;
}

static int threads(const kf_bt_point *p) { return p->knob[KC_THREADS]; }

/* The unit the cost model rates p's GEMMs at: vdpbf16ps's peak for bf16 and
 * bf16c (the probe measured it at twice the FMA peak on the Zen 4 VM and at
 * half on the 16-core Xeon host); the int16 pairs' (5, vpmaddwd) for i16;
 * fp32 FMAs' for the rest.  AMX points too:
 * their tiles are not the limit (packing to bf16 and moving C are), so
 * gemm_eff rates them as multiples of the best register-blocked kernel on
 * the FMAs (at the tiles' peak they would read 8-16x faster). */
static int unit(const kf_bt_point *p)
{
    return p->precision == KF_BT_BF16 || p->precision == KF_BT_BF16C ? 1 : p->precision == KF_BT_I16 ? 5 : 0;
}

/* the kernels' kf_column_width, compiled here for the cost model (cpu_knobs.h) */
KF_BT_CPU_COLUMN_WIDTH_FN(kf_bt_cpu_column_width)

/* The column order's balance: an even share of the n columns over the
 * busiest thread's, at the block width the kernel takes for the team
 * (kf_bt_cpu_column_width); 0 where the blocks are fewer than the threads
 * (the kernel splits the rows too) or n is unknown. */
static double column_balance(const int *p, double n, int threads)
{
    int64_t most = 0;
    if (!(n >= 1) || threads < 1) return 0;
    int64_t wd = kf_bt_cpu_column_width((int64_t)n, p[KC_NC], p[KC_NR], threads, &most);
    return ((int64_t)n + wd - 1) / wd >= threads && most > 0 ? n / threads / (double)most : 0;
}

/* Relative efficiency (0..1] of the GEMM at point p: register blocking,
 * cache fit of the blocks, load balance over threads. */
static double gemm_eff(const kf_bt_point *pt, const kf_bt_gemm_work *w, int threads)
{
    const int *p = pt->knob;
    /* every GEMM a matrix-vector product (N = 1, no row op fused): the
       generator writes the dot-product kernel whatever the tile and block
       knobs, streaming A once, so its time is the bandwidth's, not the
       threads': 1/threads makes flops / (threads x eff) the same on one
       thread as on all, so the team's fork/join makes the one-thread
       neighbour the model's gain and the tile knobs none (the search then
       measures one thread against all instead of trying identical code) */
    if (w->max_n == 1 && !w->row_tail) return 0.25 / (threads > 0 ? threads : 1);
    if (!p[KC_PACK]) return 0.15;
    /* AMX: the tiles are not the limit (packing to bf16 and moving C
       are); modelled as twice the best register-blocked kernel,
       then the same cache and balance factors */
    double e = 1.0;
    if (pt->precision == KF_BT_AMX_BF16) e = 2.0 * (p[KC_MR] == 32 && p[KC_NR] == 32 ? 1.0 : 0.8);
    /* 3xbf16: three tile products and two parts packed; measured (16-core
       host) at about half the bf16 kernel's rate, still above fp32 */
    if (pt->precision == KF_BT_AMX_BF16X3) e = 1.2 * (p[KC_MR] == 32 && p[KC_NR] == 32 ? 1.0 : 0.8);
    /* 2xbf16: two tile products, B packed once (2-core Xeon, micro.sh:
       between the two) */
    if (pt->precision == KF_BT_AMX_BF16X2) e = 1.5 * (p[KC_MR] == 32 && p[KC_NR] == 32 ? 1.0 : 0.8);
    /* bf16 with A's columns centred: the centre and its products with B
       while packing (2-core Xeon, micro.sh, problem 30: 7-14% slower,
       bench/results/xeon2-cpu-ort-2026-11-25d/study/bf16c-cost.txt) */
    if (pt->precision == KF_BT_AMX_BF16C) e = 1.8 * (p[KC_MR] == 32 && p[KC_NR] == 32 ? 1.0 : 0.8);
    /* the same on vdpbf16ps (rated at its own peak, unit()): bf16's rate
       less the centre's share */
    if (pt->precision == KF_BT_BF16C) e = 0.9;
    /* int16 on vpmaddwd, rated at the probe's vpmaddwd peak (unit 5,
       twice the FMA peak on Zen 3): its GEMMs ran at 1.36-1.68x the fp32
       kernel's (Zen 3, micro.sh), about 0.7 of it: the adds beside the
       multiplies and the quantization */
    if (pt->precision == KF_BT_I16) e = 0.7;
    int on_tiles = kf_bt_precision_amx(pt->precision);
    /* vector width and registers: AVX-512 16 floats x 32, AVX2 8 x 16,
       NEON (aarch64) 4 x 32 */
#if defined(__aarch64__)
    int vl = 4, regs = 32;
#else
    int vl = host_has_avx512() ? 16 : 8, regs = vl == 16 ? 32 : 16;
#endif
    int nv = p[KC_NR] / vl;
    if (nv < 1) nv = 1;
    int acc = p[KC_MR] * nv;
    if (on_tiles) {}                                                            /* tiles, not registers */
    else if (acc + nv + 1 > regs) e *= 0.55;                                    /* spills */
    else e *= (double)acc / (acc + 0.5 * nv + 1.5);                             /* load/FMA ratio */
    /* cache fit, with the rules of kf_bt_cpu_derive_blocking and this host's
       caches (the C candidates run here): the panel kept in L1 within half
       of it plus slack, the block re-read from L2 within 3/4 of L2 */
    int rows = pt->fusion == KF_BT_FUSE_ROWS && w->row_tail;
    double c1 = host_cache(_SC_LEVEL1_DCACHE_SIZE, 32768), c2 = host_cache(_SC_LEVEL2_CACHE_SIZE, 1 << 20);
    /* bytes a packed element: 2 for i16 (its pairs), as defaults() derives its blocking */
    const double eb = pt->precision == KF_BT_I16 ? 2 : 4;
    double l1 = (double)(rows ? p[KC_NR] : p[KC_MR]) * p[KC_KC] * eb;
    double l2 = rows ? (double)p[KC_MC] * p[KC_KC] * eb : (double)p[KC_KC] * p[KC_NC] * eb;
    int amx_items = on_tiles && !rows;
    if (amx_items) {
        /* AMX without row panels (kf_bt_cpu_amx_kc): a thread's B
           micro-panels and two of A, a depth block deep (the generator's
           even blocks) with their parts, within half of L2 */
        double kc = w->max_k > 0 ? (double)kf_bt_cpu_amx_depth((int64_t)w->max_k, p[KC_KC]) : p[KC_KC];
        l1 = 0;
        l2 = (double)amx_depth_bytes(pt->precision, p[KC_MR], p[KC_NR]) * kc * 1.5;   /* 1.5: half of L2 at the 3/4 line */
    }
    if (l1 > 0.75 * c1) e *= 0.9;
    if (l2 > 0.75 * c2) e *= 0.85;
    if (p[KC_KC] < 256) e *= 0.93;
    /* balance: (MC x NC) blocks over threads; the column order (rows not
       fused) hands out NC-column blocks only; row panels (rows fused) are
       MC x N each, the whole width an item, so MC alone sets their count
       (MC >= M is one item: the other threads idle) */
    int columns = p[KC_LOOP_ORDER] >= 1 && !rows;
    /* the skinny order: NR panels over the threads; B's micro-panel in L1 */
    double bm = columns ? 1 : ceil(w->max_m / p[KC_MC]),
           bn = rows ? 1 : ceil(w->max_n / (p[KC_LOOP_ORDER] == 2 ? p[KC_NR] : p[KC_NC]));
    double blocks = bm * bn;
    if (blocks < 1) blocks = 1;
    double waves = ceil(blocks / threads);
    double cb = columns && p[KC_LOOP_ORDER] == 1 && !amx_items ? column_balance(p, w->max_n, threads) : 0;
    if (cb > 0) e *= cb;
    else if (!amx_items) e *= blocks / (waves * threads);   /* AMX: items halved until every thread has four */
    /* padding waste of edge tiles */
    if (w->max_m > 0 && w->max_n > 0) {
        double um = ceil(w->max_m / p[KC_MR]) * p[KC_MR], un = ceil(w->max_n / p[KC_NR]) * p[KC_NR];
        e *= (w->max_m * w->max_n) / (um * un);
    }
    return e;
}

/* Memory traffic per byte the maps and row ops store into the outputs:
 * two (each line read before it is overwritten) where the outputs leave
 * the cache and the point does not stream them, else one. */
static double store_traffic(const kf_bt_point *p, double bytes)
{
    if (!stream_pays(bytes, p->knob[KC_THREADS])) return 1.0;
    return p->knob[KC_STREAM] && !p->baseline ? 1.0 : 2.0;
}

/* The choices the model rates alike (emit.h, unmodelled): GroupNorm's
 * next group read beside the streamed stores (stream 2, builtin_cpu.c
 * gn_carries), and the streamed loops' prefetch. */
static int unmodelled(const kf_bt_point *p)
{
    if (p->baseline) return 0;
    return (p->knob[KC_STREAM] == 2) | p->knob[KC_PREFETCH] << 1;
}

const kf_bt_emitter kf_bt_emit_c = {
    .language = "c",
    .what = "C + OpenMP, host entry kf_kernel",
    .n_knobs = KC_N,
    .knobs = KNOBS,
    .defaults = defaults,
    .check = check,
    .offerable = offerable,
    .conservative = conservative,
    .neighbours = neighbours,
    .label = label,
    .loops_label = loops_label,
    .describe_change = describe_change,
    .plan_fusion = plan_fusion,
    .refit_fusion = refit_fusion,
    .threads = threads,
    .unit = unit,
    .gemm_eff = gemm_eff,
    .store_traffic = store_traffic,
    .unmodelled = unmodelled,
    .generate = kf_bt_gen_cpu,
    .library_gemm = kf_bt_cpu_library_gemm,
};
