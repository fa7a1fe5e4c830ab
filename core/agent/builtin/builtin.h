/*
 * builtin.h — internal API of the built-in agent (core/agent/builtin/).
 *
 * The built-in agent lowers a resolved problem (core/problem/problem.h) into a PLAN of
 * fusion GROUPS (builtin_ir.c), chooses a POINT of the search space
 * (builtin_search.c), and hands both to a per-backend code generator:
 * kf_bt_gen_cpu() (builtin_cpu.c, C + OpenMP for cpu-simd) or kf_bt_gen_ocl()
 * (builtin_ocl.c, OpenCL C + launch plan).  Both generators emit op bodies
 * through the dialect-neutral prelude (builtin_prelude.c): every op is a
 * small function with the same name in C and OpenCL C (kf_relu(x),
 * kf_gelu(x), kf_add(a,b) ...), so an expression such as
 *     kf_relu(kf_mul(kf_sub(acc, 2.0f), 1.5f))
 * is valid in both languages once the prelude text is emitted first.
 *
 * Values are numbered as in problem.h: inputs 0..n_inputs-1, then node k
 * defines value n_inputs + k.
 *
 * Ownership: a kf_bt_plan owns its arrays (kf_bt_plan_free); strings returned
 * as `char *` are malloc'ed and freed by the caller.  Errors: functions that
 * can fail return -1 and write one line into the kf_error.
 */
#ifndef KF_BUILTIN_H
#define KF_BUILTIN_H

#include <stddef.h>
#include <stdint.h>
#include "agent/agent.h"
#include "candidate/candidate.h"
#include "util/error.h"
#include "util/strbuf.h"
#include "eval/eval.h"
#include "problem/problem.h"
#include "emit/emit.h"

/* ------------------------------------------------------------------ */
/* Text building (builtin_prelude.c)                                   */


/* A float literal valid in C and OpenCL C: "1.5f", "2.0f", "-1e-05f",
 * "INFINITY", "(-INFINITY)", "NAN".  Returns buf. */
char *kf_bt_flit(double v, char buf[48]);

/* ------------------------------------------------------------------ */
/* The prelude (builtin_prelude.c)                                     */

typedef enum kf_bt_dialect { KF_BT_C = 0, KF_BT_OCL = 1 } kf_bt_dialect;

/* The op functions as source text for one dialect (static storage).  C:
 * `static inline float kf_relu(float x)` ... with expf/erff/tanhf/log1pf;
 * OpenCL C: `inline float kf_relu(float x)` ... with exp/erf/tanh/log1p.
 * Emit it once near the top of every generated source. */
const char *kf_bt_prelude(kf_bt_dialect d);

/* Is `op` a map op (elementwise unary or binary, incl. dropout/identity)? */
int kf_bt_is_map_op(kf_op op);

/* The dialect-neutral expression of map node `nd` applied to operand
 * expressions: x = expression of nd->in[0], y = of nd->in[1] (binary ops
 * only).  Scalar operands (nd->in[i].is_scalar) are formatted from the node
 * itself and the matching x/y argument is ignored (may be NULL).  Attributes
 * (slopes, bounds, GELU form, softplus beta/threshold ...) are baked in as
 * literals.  Example: sub(h, 2.0) with x = "acc" -> "kf_sub(acc, 2.0f)".
 * Returns a malloc'ed string, or NULL if nd is not a map op / out of memory. */
char *kf_bt_map_expr(const kf_node *nd, const char *x, const char *y);

/* The C prelude's in-place block form of map node nd's op, or NULL if it has
 * none: `void f(float *y, int64_t n)` applies the op to y[0..n) with the same
 * bits as the element form (kf_gelu_block for the GELU). */
const char *kf_bt_block_fn(const kf_node *nd);
/* The same op's form for a streamed map's full block (builtin_cpu.c's
 * STREAM_LIB): `void f(float *dst, float *src)` stores the op of the
 * KF_STREAM_BLOCK floats of the aligned block buffer src to dst with
 * streaming stores (src may be overwritten); NULL where kf_bt_block_fn is. */
const char *kf_bt_block_stream_fn(const kf_node *nd);

/* ------------------------------------------------------------------ */
/* The IR: graph -> fusion groups (builtin_ir.c)                       */

#define KF_BT_MAX_GROUP_NODES 64

typedef enum kf_bt_fusion {
    KF_BT_FUSE_NONE = 0,     /* one group per node (op-by-op) */
    KF_BT_FUSE_EPILOGUE = 1, /* map ops fused into their anchor's group */
    KF_BT_FUSE_ROWS = 2      /* + a ROW group right after a GEMM group is
                                computed per GEMM row panel (fused_into) */
} kf_bt_fusion;

typedef enum kf_bt_group_kind {
    KF_BT_GEMM = 0,   /* matmul/linear anchor; map ops = epilogue per element */
    KF_BT_ROW,        /* reduction/softmax/norm/pool over the contiguous tail of
                         its input: rows x row_len, rows independent */
    KF_BT_MAP,        /* a map op starts the group; elementwise over its shape */
    KF_BT_GENERIC     /* everything else: reduction over an inner dim
                         (outer x len x inner), batch_norm (column stats) */
} kf_bt_group_kind;

const char *kf_bt_group_kind_name(kf_bt_group_kind k);   /* "gemm", "row", ... */

/* GEMM geometry of a GEMM group: for each batch index t (0..batch-1),
 *   C_t[M,N] = A_t[M,K] * (trans_b ? B_t[N,K]^T : B_t[K,N])  (+ bias[N])
 * all row-major and contiguous.  A leading batch of a 2-D weight (linear,
 * or matmul with a 2-D b) is folded into M, so batch > 1 only when b is
 * batched.  a_bstride/b_bstride[d] are element strides of A/B per output
 * batch dim d (0 where that operand broadcasts). */
typedef struct kf_bt_gemm {
    int a, b, bias;           /* value ids; bias = -1 when absent */
    int trans_b;              /* linear, or matmul transpose_b: B is (N,K) */
    int64_t M, N, K;
    int64_t batch;            /* product of batch_dims */
    int n_batch_dims;
    int64_t batch_dims[KF_MAX_RANK];
    int64_t a_bstride[KF_MAX_RANK], b_bstride[KF_MAX_RANK];
} kf_bt_gemm;

/* ROW geometry: the anchor's input is `rows` contiguous rows of `row_len`
 * elements; the anchor's output has `out_len` elements per row (1 for a
 * reduction, row_len for softmax/norms, the pooled length for pools). */
typedef struct kf_bt_row {
    int64_t rows, row_len, out_len;
    int64_t inner;            /* group_norm: elements per channel (prod of dims
                                 after C), 1 for 2-D; channels = row_len/inner */
} kf_bt_row;

/* GENERIC geometry of a reduction-like anchor over dim `dim` of its input:
 * outer x len x inner (inner contiguous).  batch_norm: channel dim 1,
 * outer = N, len = C, inner = L (1 for 2-D). */
typedef struct kf_bt_generic {
    int64_t outer, len, inner;
} kf_bt_generic;

typedef struct kf_bt_group {
    kf_bt_group_kind kind;
    int n_nodes;
    int nodes[KF_BT_MAX_GROUP_NODES]; /* node indices in graph order; nodes[0] = anchor */
    kf_shape shape;           /* shape of the group's running value: the
                                 anchor's output (every map op keeps it) */
    int last_value;           /* value id of the group's last node */
    int fused_into;           /* ROW group under KF_BT_FUSE_ROWS: index of the
                                 GEMM group whose row panels compute it, else -1 */
    int row_tail;             /* GEMM group: index of the ROW group fused into
                                 it, else -1 */
    kf_bt_gemm gemm;          /* kind == KF_BT_GEMM */
    kf_bt_row row;            /* kind == KF_BT_ROW */
    kf_bt_generic gen;        /* kind == KF_BT_GENERIC */
} kf_bt_group;

/* Where a value lives at run time. */
typedef enum kf_bt_store_kind {
    KF_BT_ST_LOCAL = 0,       /* only inside its group (a local variable) */
    KF_BT_ST_INPUT,           /* problem input `index` */
    KF_BT_ST_OUTPUT,          /* problem output `index` (first one naming it) */
    KF_BT_ST_SCRATCH          /* scratch buffer `index` of the candidate */
} kf_bt_store_kind;

typedef struct kf_bt_store {
    kf_bt_store_kind kind;
    int index;
} kf_bt_store;

typedef struct kf_bt_plan {
    const kf_resolved *r;     /* not owned; must outlive the plan */
    kf_bt_fusion fusion;
    int n_groups;
    kf_bt_group *groups;
    int n_values;
    int *group_of;            /* per value: defining group, -1 for inputs and
                                 for the outputs of shape ops */
    int *alias_of;            /* per value: for the output of a shape op (view,
                                 reshape, flatten, squeeze, unsqueeze) the value
                                 whose buffer it reinterprets (never itself an
                                 alias), else -1.  No group computes an alias:
                                 it shares its root's store, read with its own
                                 shape (r->shapes[v]); a shape op that must
                                 copy (see kf_bt_plan_build) is no alias */
    kf_bt_store *store;       /* per value (an alias: its root's store) */
    int n_scratch;            /* scratch buffers: one per materialised value
                                 that is not a problem output */
    int *scratch_value;       /* value id of scratch buffer s */
    int64_t *scratch_elems;   /* floats in scratch buffer s */
} kf_bt_plan;

/* Lowers r into groups under `fusion`.  Every problem in the vocabulary
 * lowers (a problem with only a C reference is refused: "the builtin agent
 * needs an op graph; use an LLM agent for c_reference problems").  A shape
 * op is an alias (alias_of) except for an output viewing an input, another
 * output or a value another output views: that one is a copy, a MAP group
 * whose anchor is the shape op (kf_bt_map_expr gives kf_identity(x); its
 * operand has another shape with the same elements, read at the flat index).  A value
 * is materialised (store != LOCAL) when it is the last value of its group,
 * a problem output, or read by a later group. */
int kf_bt_plan_build(const kf_resolved *r, kf_bt_fusion fusion, kf_bt_plan *out, kf_error *err);
/* 1 when GEMM group g runs in row panels with its row op (C emitter:
 * emit_gemm_group, never the column-split AMX GEMM; a GEMV excepted) */
static inline int kf_bt_gemm_in_row_panels(const kf_bt_group *g)
{
    return g->kind == KF_BT_GEMM && g->fused_into < 0 && g->row_tail >= 0 && g->gemm.N != 1;
}
/* 1 when a GEMM group of the plan has an odd depth K: 2xbf16 and 3xbf16 on
 * AMX keep both bf16 parts of a panel in its fp32 room, so the C emitter
 * refuses them then and the search does not offer them */
int kf_bt_plan_odd_depth(const kf_bt_plan *plan);
void kf_bt_plan_free(kf_bt_plan *p);

/* The GEMM-sum rewrite (builtin_rewrite.c), shared by the emitters that
 * apply it (cuda_gemm_sum.c, builtin_cpu.c): a GEMM whose rows are summed
 * right away is a matrix-vector product,
 *   sum_j f(x[m] . B[:, j] + bias[j])  with f(h) = a*h + c
 *   = a * (x[m] . s + sum_j bias[j]) + N*c,   s[k] = sum_j B[k][j].
 * Applies when GEMM group gi is not batched, every value of the group but
 * the last lives only in registers (store LOCAL), the last is no output
 * and is read only by a sum over its last dimension that anchors the next
 * ROW group, and the group's other ops are scalar affine maps (scalar
 * multiplies, divisions by a scalar, additions, subtractions, negation).
 * Returns that ROW group's index with *a and *c set, else -1. */
int kf_bt_gemm_sum_match(const kf_bt_plan *pl, int gi, double *a, double *c);

/* A readable summary, one group per line ("g0 gemm  linear(x,W,b) -> sub
 * -> mul -> relu  [y: output 0]"), for comments in generated code. */
char *kf_bt_plan_describe(const kf_bt_plan *p);

/* Element strides of value `v` (shape vs) broadcast against `target`
 * (rank rt, right-aligned, PyTorch rules): stride[d] = 0 where v
 * broadcasts along target dim d.  Returns 0, or -1 if v does not
 * broadcast to target. */
int kf_bt_bcast_strides(const kf_shape *vs, const kf_shape *target, int64_t stride[KF_MAX_RANK]);

/* Does the GEMM of group g have a row-major contiguous output, so that
 * "rows of the group's shape" = rows of C?  (always true today; kept for
 * generators that want to assert it) */
int kf_bt_gemm_rows_contiguous(const kf_bt_group *g);

/* ------------------------------------------------------------------ */
/* The search space (builtin_search.c; the knobs are the emitter's)    */

typedef enum kf_bt_precision {
    KF_BT_FP32 = 0,           /* everything in float32 */
    KF_BT_FP16_STORAGE = 1,   /* half scratch storage where the emitter offers
                                 it (OpenCL with cl_khr_fp16); kept only if
                                 it passes the tolerance */
    KF_BT_TF32 = 2,           /* GEMMs on tensor cores with TF32 inputs and
                                 FP32 accumulation (cuda-c); kept only if it
                                 passes the tolerance */
    KF_BT_BF16 = 3,           /* GEMMs on tensor cores with BF16 inputs
                                 (converted first) and FP32 accumulation
                                 (cuda-c); kept only if it passes */
    KF_BT_BF16X3 = 4,         /* 3xBF16: inputs split into BF16 high and
                                 low parts, three MMAs per tile (cuda-c);
                                 near-FP32 accuracy on tensor cores */
    KF_BT_AMX_BF16 = 5,       /* GEMMs on Intel AMX tiles with BF16 inputs
                                 (converted while packing) and FP32
                                 accumulation (C for cpu-simd); offered only
                                 where the CPU has AMX and the permission
                                 was granted, kept only if it passes */
    KF_BT_AMX_BF16X3 = 6,     /* the same with 3xBF16 (high and low parts,
                                 three tile products: near-FP32 accuracy at
                                 a third of the tiles' rate), where BF16
                                 fails the tolerance (norms) */
    KF_BT_AMX_BF16X2 = 7,     /* AMX with the row operand (A) split into
                                 high and low BF16 parts and B rounded once:
                                 two tile products, only B's rounding left
                                 (about 1/sqrt(2) of BF16's error), half
                                 the tiles' rate; kept only if it passes */
    KF_BT_AMX_BF16C = 8,      /* AMX BF16 with A's columns centred first
                                 (their mean over sampled rows taken off,
                                 its products with B added back in fp32):
                                 one tile product, about half BF16's error
                                 where A's columns have a mean (x >= 0),
                                 7-14% slower; for GEMMs without row
                                 panels; 6 and 7 centre too there (not
                                 in row panels) */
    KF_BT_BF16C = 9,          /* bf16 on vdpbf16ps (as 3) with A's columns
                                 centred as 8 does, in the same
                                 column-split GEMM (cpu_gemm_bf16.c): for
                                 CPUs with AVX512_BF16 and no AMX, where
                                 bf16 misses a tolerance by a few
                                 elements (norms); not in row panels */
    KF_BT_I16 = 10            /* int16 on AVX2 (vpmaddwd, int32 sums a depth
                                 block): each block's rows of A and columns
                                 of B scaled while packing to integers of
                                 at most floor(sqrt((2^31 - 1) / kc)) (2047
                                 at kc 512; cpu_gemm_i16.c), fp32 across
                                 blocks and in the epilogue; for CPUs with
                                 AVX2 and no AVX-512, where vpmaddwd does
                                 twice FMA's multiply-adds */
} kf_bt_precision;

/* 1 for the precisions that run on Intel AMX tiles (5, 6, 7, 8) */
static inline int kf_bt_precision_amx(int precision)
{
    return precision == KF_BT_AMX_BF16 || precision == KF_BT_AMX_BF16X2 || precision == KF_BT_AMX_BF16X3 ||
           precision == KF_BT_AMX_BF16C;
}
/* 1 for a precision with fewer mantissa bits than fp32 in its products
 * (fp16 storage, TF32, bf16, AMX bf16, bf16c, 2xbf16): one that may miss a
 * tolerance by a few elements, correct by construction or not; fp32 and
 * the 3x splits are near fp32 */
static inline int kf_bt_precision_lossy(int precision)
{
    return precision != KF_BT_FP32 && precision != KF_BT_BF16X3 && precision != KF_BT_AMX_BF16X3;
}
/* The fractions of an output's elements wrong that decide the AMX ladder
 * (builtin_agent.c, kf_bt_precision_ruled_out): after a bf16 miss above
 * BROAD, 2xbf16 is passed over for 3xbf16; bf16c is tried only after a
 * miss at most SLIGHT */
#define KF_BT_MISS_BROAD 1e-3
#define KF_BT_MISS_SLIGHT 1e-5
/* A bf16 miss whose worst element used more than this share of its
 * allowance passes over 2xbf16 too: 2xbf16's worst element was 0.47-0.59 of
 * bf16's where measured (cpu preset, 2-core VM: 33 1.44 -> 0.85, passing 20
 * trials; 88 2.06 -> 0.96, failing on some draws), so past 1.6 it would sit
 * at the tolerance's edge (core/eval/eval.h, KF_EDGE_TOL_FRAC) */
#define KF_BT_MISS_WIDE 1.6
/* 1 for the precisions whose column-split GEMM centres A's columns
 * (kf_centre_a, cpu_gemm_bf16.c): bf16c on AMX or vdpbf16ps, 2xbf16 and
 * 3xbf16 */
static inline int kf_bt_precision_centred(int precision)
{
    return precision == KF_BT_AMX_BF16C || precision == KF_BT_AMX_BF16X2 || precision == KF_BT_AMX_BF16X3 ||
           precision == KF_BT_BF16C;
}
/* 1 for bf16c, on AMX tiles (8) or vdpbf16ps (9): bf16 plus the centre,
 * tried where bf16 missed in few elements */
static inline int kf_bt_precision_bf16c(int precision)
{
    return precision == KF_BT_AMX_BF16C || precision == KF_BT_BF16C;
}
/* 1 for the AMX precisions that pack a low part (2xbf16, 3xbf16): they need
 * an even depth in every GEMM and an even kc (both parts in a panel's room) */
static inline int kf_bt_precision_amx_split(int precision)
{
    return precision == KF_BT_AMX_BF16X2 || precision == KF_BT_AMX_BF16X3;
}
/* the split's name for messages: "3xbf16" (6) or "2xbf16" (7) */
static inline const char *kf_bt_amx_split_name(int precision)
{
    return precision == KF_BT_AMX_BF16X3 ? "3xbf16" : "2xbf16";
}

/* One point of the search space: the common fields, and the values of the
 * emitter's knobs (em->knobs[i] -> knob[i]; emit/emit.h).  Points compare
 * and round-trip through JSON as {"backend": B, "baseline": 0, "fusion":
 * 2, "precision": 0, <knob>: <value>...}. */
typedef struct kf_bt_point {
    const kf_bt_emitter *em;  /* whose knobs knob[] holds; never NULL */
    char backend[32];         /* the run's backend ("cpu-simd", "opencl") */
    int baseline;             /* 1: op-by-op eager baseline (fusion NONE, library GEMM) */
    int fusion;               /* kf_bt_fusion */
    int precision;            /* kf_bt_precision */
    int knob[KF_BT_MAX_KNOBS];
} kf_bt_point;

/* The default point for a backend of the emitter's language at the
 * resolved sizes (fused, a sensible tiling).  r and dev may be NULL.
 * Deterministic. */
void kf_bt_point_default(const kf_bt_emitter *em, const char *backend, const kf_resolved *r,
                         const kf_device_info *dev, kf_bt_point *p);
/* The op-by-op eager baseline point. */
void kf_bt_point_baseline(const kf_bt_emitter *em, const char *backend, kf_bt_point *p);
/* A more conservative point after a failure: more precision first (BF16 ->
 * 3xBF16 -> fp32, TF32 -> fp32),
 * then fusion off, then the emitter's own steps (smaller tiles, plain
 * loops).  Returns 1 if it
 * changed p, 0 if p is already the most conservative. */
int kf_bt_point_conservative(kf_bt_point *p);

/* JSON object text of a point (malloc'ed).  Parsing starts from
 * kf_bt_point_default(em, backend, r, dev) (r and dev may be NULL), takes
 * any subset of the common fields and em's knobs, ignores the knobs of the
 * other emitters (records written before a point carried only its own
 * language's knobs hold every knob), and refuses unknown fields, a
 * "backend" other than the run's, and out-of-range values with a one-line
 * error. */
char *kf_bt_point_json(const kf_bt_point *p);
int kf_bt_point_from_json(const char *json, const kf_bt_emitter *em, const char *backend, const kf_resolved *r,
                          const kf_device_info *dev, kf_bt_point *out, kf_error *err);
/* Checks a point's JSON (an object, fields known to some emitter, ranges)
 * without a backend or problem, e.g. for `--agent builtin:POINT` at
 * start-up.  Returns 0, or -1 with a one-line error (code 2). */
int kf_bt_point_check_json(const char *json, kf_error *err);
int kf_bt_point_equal(const kf_bt_point *a, const kf_bt_point *b);
/* Short label: "gemm 96x256x384 mr12nr32 rows-fused omp" (C),
 * "gemm ts16 wpt4 v4 local fused" (OpenCL C). buf returned. */
char *kf_bt_point_label(const kf_bt_point *p, char *buf, size_t n);
/* The plan point p is generated from (kf_bt_plan_build): the baseline op by
 * op, else p's fusion as its emitter's plan_fusion takes it.  Same contract
 * as kf_bt_plan_build. */
int kf_bt_plan_point(const kf_resolved *r, const kf_bt_point *p, kf_bt_plan *out, kf_error *err);
/* The same for a point of problem r (may be NULL: as above): without a
 * matmul or linear in r, the emitter's loops_label where it has one. */
char *kf_bt_point_label_for(const kf_bt_point *p, const kf_resolved *r, char *buf, size_t n);
/* The value of knob `name` of p, or `dflt` when p's emitter has none. */
int kf_bt_point_knob(const kf_bt_point *p, const char *name, int dflt);

/* 1 when a GEMM of the problem runs in row panels with its row op where
 * the rows are fused (builtin_cpu.c refuses bf16c there) */
int kf_bt_has_row_panels(const kf_resolved *r);
/* Up to `max` neighbouring points of p (one knob changed), in a fixed
 * order, valid for the backend and sizes.  Returns how many. */
int kf_bt_neighbours(const kf_bt_point *p, const kf_resolved *r, kf_bt_point *out, int max);
/* Online CPUs of this host (at least 1): the threads a point with no
 * thread knob runs on, for the cost model and the emitters' blocking. */
int kf_bt_host_threads(void);
/* Does r have a matmul or linear (the ops the plans make GEMM groups of)? */
int kf_bt_has_gemm_op(const kf_resolved *r);

/* The analyzer's memory: every point tried and its median time. */
typedef struct kf_bt_tried {
    kf_bt_point pt;
    double time_s;            /* median, 0 if it failed */
} kf_bt_tried;

#define KF_BT_N_PRECISIONS 11   /* kf_bt_precision 0 .. 10 */

typedef struct kf_bt_history {
    int n, cap;
    kf_bt_tried *v;
    double missed[KF_BT_N_PRECISIONS];   /* per precision, the largest fraction of an
                                            output's elements its candidates got wrong
                                            on this problem (0: none missed) */
    double missed_worst[KF_BT_N_PRECISIONS];   /* and the largest share of its
                                            allowance a worst element used in those
                                            misses (kf_output_stats.max_tol_frac; 0:
                                            unknown) */
    kf_bt_point last_rec;     /* the point the last analysis put first */
    double last_rec_gain;     /* its expected gain, 0 if none */
    int have_last_rec;
    uint64_t seed;            /* the agent seed (--agent-seed; 0: none), set by the
                                 agent before every analysis; not saved (run.json
                                 keeps it): see kf_bt_analyze */
    int fp32_only;            /* --precision fp32 (problem/precision.h): every precision
                                 but fp32 ruled out; set like seed, not saved */
} kf_bt_history;

void kf_bt_history_free(kf_bt_history *h);
/* Records (or updates) a tried point. */
int kf_bt_history_add(kf_bt_history *h, const kf_bt_point *pt, double time_s);
int kf_bt_history_has(const kf_bt_history *h, const kf_bt_point *pt);
/* A candidate of `precision` got `frac` of an output's elements wrong
 * (mismatch or stale), its worst element at `worst` of its allowance (0:
 * unknown): each kept as the largest seen. */
void kf_bt_history_missed(kf_bt_history *h, int precision, double frac, double worst);
/* 1 when the analysis should not offer `precision` on this problem again:
 * any but fp32 under h->fp32_only; a reduced precision that missed the tolerance (at any knobs: the
 * rounding, not the tiling, decides), bf16c after bf16 missed in more
 * than 1 element in 100000, 2xbf16 after bf16 missed in more than 1 in
 * 1000 or with its worst element over KF_BT_MISS_WIDE of its allowance (the
 * agent's ladder, builtin_agent.c) */
int kf_bt_precision_ruled_out(const kf_bt_history *h, int precision);
/* The history as JSON text (malloc'ed): {"tried": [{"point": {...},
 * "time_s": T}, ...], "last_rec": {...} or null, "last_rec_gain": G,
 * "missed": [f0, .. f8], "missed_worst": [w0, .. w8]}; and
 * back, each point read as kf_bt_point_from_json() reads it (the run's
 * emitter, backend, r, dev).  On success *out replaces nothing: the caller frees the
 * old history first.  Returns 0, or -1 with a one-line error. */
char *kf_bt_history_json(const kf_bt_history *h);
int kf_bt_history_from_json(const char *json, const kf_bt_emitter *em, const char *backend,
                            const kf_resolved *r, const kf_device_info *dev, kf_bt_history *out, kf_error *err);

/* The analyzer: reads the evaluation of the candidate generated from `cur`,
 * names the bottleneck, and fills `out` with up to 4 untried neighbours
 * ordered by expected gain (params = point JSON).  previous_time_s > 0 and
 * h->have_last_rec let it judge whether the last recommendation missed.
 * stop = 1 when eval's roofline fraction >= target_fraction or no untried
 * neighbour remains.  With h->seed != 0 the neighbours are ordered by their
 * modelled gain times a factor in [0.95, 1.05) drawn from (seed, the
 * neighbour's point), so that near-ties (within ~10%) and exact ties come
 * in a seed-dependent order; the gains reported stay the modelled ones and
 * only neighbours with a modelled gain > 1 are recommended, as without a
 * seed. */
int kf_bt_analyze(kf_bt_history *h, const kf_resolved *r, const kf_bt_point *cur,
                  const kf_eval_result *eval, double previous_time_s, double target_fraction,
                  kf_analysis *out, kf_error *err);

/* ------------------------------------------------------------------ */
/* The generators, one per language (emit/; the emitter table is        */
/* emit/emit.h)                                                        */

/* C + OpenMP (emit/builtin_cpu.c), for plugins of language "c" (host entry
 * kf_kernel).  On success returns 0 with *out a new candidate for `backend`
 * (one source "kernel.c", entry "kf_kernel", scratch from the plan,
 * build_options linking the BLAS when the point's baseline uses it) and
 * *label a malloc'ed short description.  Returns -1 with err set when the
 * plan cannot be generated (a generator bug or limit); the agent turns
 * that into res->error. */
int kf_bt_gen_cpu(const kf_bt_plan *plan, const kf_bt_point *pt, const char *backend,
                  const kf_device_info *dev, kf_candidate **out, char **label, kf_error *err);

/* The BLAS the C op-by-op baseline (and its GEMM anchor, core/run/anchor.h)
 * links: the candidate's build_options, and a short name for labels
 * ("OpenBLAS").  NULL when kforge was configured without OpenBLAS (the
 * baseline then uses the builtin tiled GEMM). */
const char *kf_bt_blas_options(void);
const char *kf_bt_blas_name(void);

/* OpenCL C + launch plan (emit/builtin_ocl.c), for plugins of language
 * "opencl-c", same contract: the candidate has its kernels, launches and
 * scratch; dev (may be NULL) tells the device limits (e.g. cl_khr_fp16 in
 * detail). */
int kf_bt_gen_ocl(const kf_bt_plan *plan, const kf_bt_point *pt, const char *backend,
                  const kf_device_info *dev, kf_candidate **out, char **label, kf_error *err);

/* CUDA C + launch plan (emit/cuda_from_ocl.c), for plugins of language
 * "cuda-c": the OpenCL C generator's kernels translated to CUDA C, fp32;
 * same contract. */
int kf_bt_gen_cuda(const kf_bt_plan *plan, const kf_bt_point *pt, const char *backend,
                   const kf_device_info *dev, kf_candidate **out, char **label, kf_error *err);

#endif
