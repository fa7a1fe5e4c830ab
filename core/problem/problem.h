/*
 * problem.h — the problem model: dims, presets, inputs, op graph, outputs,
 * tolerance (see problems/FORMAT.md), loaded from JSON with json-c.
 *
 * Ownership: kf_problem_load() returns a problem the caller frees with
 * kf_problem_free().  Everything reachable from it is owned by it.
 * Errors: load/resolve return NULL / -1 and write "FILE: json.path: what"
 * into the caller's kf_error.
 */
#ifndef KF_PROBLEM_H
#define KF_PROBLEM_H

#include <stddef.h>
#include <stdint.h>
#include "util/error.h"

#define KF_MAX_RANK 4

typedef enum kf_op {
    KF_OP_INVALID = 0,
    /* contractions */
    KF_OP_MATMUL, KF_OP_LINEAR,
    /* binary, broadcasting, tensor or scalar operands */
    KF_OP_ADD, KF_OP_SUB, KF_OP_MUL, KF_OP_DIV, KF_OP_MAXIMUM, KF_OP_MINIMUM, KF_OP_POW,
    /* unary elementwise */
    KF_OP_RELU, KF_OP_SIGMOID, KF_OP_TANH, KF_OP_EXP, KF_OP_LOG, KF_OP_ABS, KF_OP_NEG,
    KF_OP_SQRT, KF_OP_RSQRT, KF_OP_SQUARE, KF_OP_SELU, KF_OP_MISH, KF_OP_HARDSWISH,
    KF_OP_IDENTITY, KF_OP_SILU, KF_OP_GELU, KF_OP_LEAKY_RELU, KF_OP_HARDTANH,
    KF_OP_CLAMP, KF_OP_SOFTPLUS, KF_OP_ELU, KF_OP_DROPOUT,
    /* reductions over one dim */
    KF_OP_SUM, KF_OP_MEAN, KF_OP_AMAX, KF_OP_AMIN, KF_OP_LOGSUMEXP,
    KF_OP_SOFTMAX, KF_OP_LOG_SOFTMAX,
    /* norms */
    KF_OP_LAYER_NORM, KF_OP_RMS_NORM, KF_OP_GROUP_NORM, KF_OP_INSTANCE_NORM,
    KF_OP_BATCH_NORM,
    /* pooling over the last dim */
    KF_OP_MAX_POOL1D, KF_OP_AVG_POOL1D,
    /* shape ops: a new shape for the same contiguous row-major data (no
     * arithmetic; problems/FORMAT.md "Shape ops") */
    KF_OP_VIEW, KF_OP_RESHAPE, KF_OP_FLATTEN, KF_OP_SQUEEZE, KF_OP_UNSQUEEZE,
    KF_OP__COUNT
} kf_op;

/* Op name as written in JSON ("leaky_relu"); "swish" parses as KF_OP_SILU. */
const char *kf_op_name(kf_op op);
kf_op kf_op_from_name(const char *name);   /* KF_OP_INVALID if unknown */
int kf_op_is_contraction(kf_op op);        /* matmul, linear: a GEMM      */
int kf_op_is_unary(kf_op op);              /* elementwise, one tensor in  */
int kf_op_is_binary(kf_op op);             /* add..pow                    */
int kf_op_is_reduction(kf_op op);          /* sum..logsumexp              */
int kf_op_is_shape(kf_op op);              /* view..unsqueeze: data unchanged */

typedef enum kf_dist {
    KF_DIST_UNIFORM, KF_DIST_NORMAL, KF_DIST_KAIMING_UNIFORM, KF_DIST_CONSTANT
} kf_dist;

typedef struct kf_init {
    kf_dist dist;
    double a, b;           /* uniform: low, high; normal: mean, std; constant: value, - */
    char *fan_in_dim;      /* kaiming_uniform: dim name, or NULL when fan_in_value set */
    int64_t fan_in_value;
} kf_init;

/* A symbolic shape: each entry is a dim index (>= 0) or a literal size. */
typedef struct kf_shape_expr {
    int rank;
    int dim_index[KF_MAX_RANK];   /* -1 when literal */
    int64_t literal[KF_MAX_RANK];
} kf_shape_expr;

typedef struct kf_input {
    char *name;
    kf_shape_expr shape;
    kf_init init;
} kf_input;

/* An operand of a node: a value (input or earlier node) or a scalar. */
typedef struct kf_operand {
    int is_scalar;
    double scalar;
    int value;          /* value id, see kf_problem.values */
} kf_operand;

typedef struct kf_node {
    char *out;          /* name of the value it defines */
    kf_op op;
    int n_in;
    kf_operand in[6];
    /* attributes (only those meaningful for the op are read) */
    int transpose_b;
    int gelu_tanh;            /* approximate == "tanh" */
    double alpha;             /* negative_slope, elu alpha, softplus beta */
    double beta;              /* softplus threshold */
    double lo, hi;            /* hardtanh / clamp; NAN = absent (clamp) */
    double eps;
    int dim;                  /* reduction/softmax dim, normalised to >= 0 */
    int keepdim;
    int groups;               /* group_norm */
    int normalized_dims;      /* layer_norm / rms_norm */
    int training;             /* batch_norm */
    int kernel_size, stride, padding;  /* pooling */
    /* shape ops: unsqueeze/squeeze dim and flatten start_dim (sdim), flatten
     * end_dim (sdim2), both as written (may be negative); squeeze without a
     * dim has has_sdim = 0.  view/reshape: the target shape, literal -1 for
     * the one inferred entry; view_text is the "shape" array as written. */
    int sdim, sdim2, has_sdim;
    kf_shape_expr view;
    char *view_text;
} kf_node;

/* Values are numbered: inputs first (0..n_inputs-1), then node outputs
 * (n_inputs + node index), then declared outputs (n_inputs + n_nodes + k). */
/* Default bound of the scale-aware test (FORMAT.md "tolerance"). */
#define KF_DEFAULT_REL_SPREAD 0.1

typedef struct kf_problem {
    char *path;               /* file it was loaded from */
    char *name;
    char *description;
    int level;
    int n_dims;
    char **dim_names;
    int n_presets;
    char **preset_names;
    int64_t *preset_values;   /* n_presets x n_dims, row-major */
    int n_inputs;
    kf_input *inputs;
    int n_nodes;
    kf_node *nodes;
    int n_outputs;
    int *outputs;             /* value ids */
    int n_declared;           /* outputs of a problem given by a C reference
                                 alone, declared with their shapes ("outputs":
                                 [{"name": "y", "shape": [...]}]): values
                                 n_inputs + n_nodes + k; init unused */
    kf_input *declared;
    double atol, rtol, rel_l2;
    double rel_spread;        /* bound on ||out-ref|| / ||ref-mean(ref)|| (compare.c) */
    char *c_reference;        /* or NULL */
    unsigned char digest[32]; /* SHA-256 of the problem's JSON text: what the
                                 reference cache keys on (eval/ref_cache.h) */
    struct kf_value_index *value_index;   /* private to problem.c: name -> value id */
} kf_problem;

kf_problem *kf_problem_load(const char *path, kf_error *err);
kf_problem *kf_problem_parse(const char *json_text, const char *label, kf_error *err);
void kf_problem_free(kf_problem *p);

int kf_problem_n_values(const kf_problem *p);          /* n_inputs + n_nodes + n_declared */
const char *kf_problem_value_name(const kf_problem *p, int value);
int kf_problem_find_value(const kf_problem *p, const char *name); /* -1 if none */
int kf_problem_find_preset(const kf_problem *p, const char *preset); /* -1 if none */

/* ------------------------------------------------------------------ */
/* A problem resolved for one preset: concrete shapes of every value.  */

typedef struct kf_shape {
    int rank;
    int64_t d[KF_MAX_RANK];
} kf_shape;

int64_t kf_shape_elems(const kf_shape *s);

typedef struct kf_resolved {
    const kf_problem *problem;    /* not owned */
    int preset;                   /* index into problem->preset_names */
    const int64_t *dims;          /* problem->n_dims values, points into problem */
    kf_shape *shapes;             /* one per value (kf_problem_n_values) */
    double flops;                 /* nominal FLOP count, FORMAT.md */
    double min_bytes;             /* each input read once, each output written once */
} kf_resolved;

/* Resolves shapes for `preset`; on a shape error returns -1 with
 * "FILE: graph[i]: ..." in err. */
int kf_resolve(const kf_problem *p, int preset, kf_resolved *out, kf_error *err);
void kf_resolved_free(kf_resolved *r);

/* Draws input `i` of the resolved problem into dst (kf_shape_elems floats)
 * with a generator seeded by (seed, i): deterministic across processes. */
void kf_draw_input(const kf_resolved *r, int i, uint64_t seed, float *dst);
/* The same, also written to `copy` (n elements) in the same parallel pass
 * (the evaluation keeps a private copy of what it hands the worker). */
void kf_draw_input_copy(const kf_resolved *r, int i, uint64_t seed, float *dst, float *copy);

/* Human description of the graph, one node per line, with shapes. */
char *kf_problem_describe(const kf_resolved *r);   /* malloc'ed */

#endif
