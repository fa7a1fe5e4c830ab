/*
 * problem_internal.h — private helpers of the problem model (not installed,
 * not part of the public API): the op table, JSON-path error reporting for
 * the parser, "did you mean" suggestions, node attribute listing.
 */
#ifndef KF_PROBLEM_INTERNAL_H
#define KF_PROBLEM_INTERNAL_H

#include <stddef.h>
#include <json-c/json.h>

#include "problem.h"

/* ---------------------------------------------------------------- op table */

typedef enum kf_op_kind {
    KF_KIND_CONTRACTION, KF_KIND_BINARY, KF_KIND_UNARY, KF_KIND_REDUCTION,
    KF_KIND_SOFTMAX, KF_KIND_NORM, KF_KIND_POOL, KF_KIND_SHAPE
} kf_op_kind;

#define KF_OP_MAX_ATTRS 4

typedef struct kf_op_info {
    kf_op op;
    const char *name;
    kf_op_kind kind;
    int min_in, max_in;                      /* tensor operands in `in` */
    const char *inputs_doc;                  /* "x, W, [bias]" for messages */
    const char *attrs[KF_OP_MAX_ATTRS + 1];  /* JSON attribute keys, NULL-terminated */
} kf_op_info;

/* Table entry of a valid op, NULL otherwise. */
const kf_op_info *kf_op_info_get(kf_op op);
/* All op names (canonical, then aliases) into out[0..max), NULL-terminated;
 * returns the count.  For suggestions. */
int kf_op_all_names(const char **out, int max);

/* One attribute of a node as it applies to the node's op (for describe and
 * `kforge check --json`).  Absent optional attributes are not listed.  STR
 * points into static storage or into the node (view/reshape "shape"). */
typedef enum { KF_ATTR_BOOL, KF_ATTR_INT, KF_ATTR_NUM, KF_ATTR_STR, KF_ATTR_JSON } kf_attr_type;
typedef struct kf_attr {
    const char *key;
    kf_attr_type type;
    double num;               /* BOOL / INT / NUM */
    const char *str;          /* STR (static storage); JSON: JSON text (the view shape
                                 array, owned by the node) */
} kf_attr;
/* Fills out[0..KF_OP_MAX_ATTRS) with the effective attributes; returns count. */
int kf_node_attrs(const kf_node *n, kf_attr *out);

/* ------------------------------------------------------------- suggestions */

/* The candidate closest to `word` by optimal-string-alignment distance
 * (case-insensitive), if it is close enough to be a plausible typo; else
 * NULL.  `cands` is NULL-terminated, or pass n >= 0 to bound it. */
const char *kf_suggest(const char *word, const char *const *cands, int n);
int kf_edit_distance(const char *a, const char *b);

/* -------------------------------------------------------- parse context */

typedef struct kf_jpath { char s[256]; } kf_jpath;

kf_jpath kf_jp_key(const kf_jpath *parent, const char *key);  /* parent.key */
kf_jpath kf_jp_idx(const kf_jpath *parent, int i);             /* parent[i]  */

typedef struct kf_pctx {
    const char *label;        /* file name used in messages */
    kf_error *err;
    json_object *graph;       /* the graph array while it is parsed, else NULL */
} kf_pctx;

/* Writes "LABEL: PATH: message" into the context's error; returns -1. */
int kf_perr(kf_pctx *c, const kf_jpath *p, const char *fmt, ...) KF_PRINTF(3, 4);

/* "object", "array", "string", "integer", "number", "boolean", "null". */
const char *kf_json_type_word(json_object *o);

/* Rejects keys of `obj` not in `allowed` (NULL-terminated), suggesting the
 * closest allowed key.  `what` names the object kind in the message. */
int kf_check_keys(kf_pctx *c, const kf_jpath *p, json_object *obj,
                  const char *const *allowed, const char *what);

/* Typed getters.  `required` = a missing key is an error.  On success they
 * return 1 if the key was present, 0 if absent (value untouched); -1 on a
 * type or range error (message written). */
int kf_get_string(kf_pctx *c, const kf_jpath *p, json_object *obj, const char *key,
                  int required, const char **out);
int kf_get_number(kf_pctx *c, const kf_jpath *p, json_object *obj, const char *key,
                  int required, double *out);
int kf_get_bool(kf_pctx *c, const kf_jpath *p, json_object *obj, const char *key,
                int required, int *out);
/* An integer within [lo, hi]; "must be a positive integer" when lo == 1. */
int kf_get_int(kf_pctx *c, const kf_jpath *p, json_object *obj, const char *key,
               int required, int64_t lo, int64_t hi, int64_t *out);
int kf_check_int(kf_pctx *c, const kf_jpath *p, json_object *v, int64_t lo, int64_t hi,
                 int64_t *out);

/* "a, b, c" of up to `max` names (then ", ... (N more)") into buf. */
const char *kf_join_names(const char *const *names, int n, int max, char *buf, size_t len);

/* Identifier checks used by the parser. */
int kf_is_ident(const char *s);          /* [A-Za-z_][A-Za-z0-9_]* */
int kf_is_problem_name(const char *s);   /* [A-Za-z0-9_.-]+ */

/* Index of a dim by name, -1 if none. */
int kf_problem_dim_index(const kf_problem *p, const char *name);
/* Checks that `s` is a valid, not yet used value name (message at jp). */
int kf_problem_check_new_value(kf_pctx *c, const kf_jpath *jp, const kf_problem *p, const char *s);

/* Graph parsing (problem_parse_graph.c): fills p->nodes; inputs are parsed. */
int kf_parse_graph(kf_pctx *c, json_object *root, kf_problem *p);

/* Shape formatting "[127, 333]" ("[]" for a scalar tensor). */
const char *kf_shape_fmt(const kf_shape *s, char *buf, size_t n);

#endif
