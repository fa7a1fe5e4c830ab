/*
 * candidate.h — what agents emit and backends consume (doc/design.md, "Data flow").
 *
 * On disk a candidate is a directory holding `candidate.json` and its source
 * files, or (CPU SIMD only) a single `.c` file whose entry is `kf_kernel`.
 *
 * candidate.json:
 *   {
 *     "backend": "opencl",
 *     "sources": ["kernel.cl"],             // files beside candidate.json
 *     "build_options": "-cl-mad-enable",     // optional
 *     "entry": "kf_kernel",                  // host-entry backends (cpu-simd)
 *     "scratch": [{"name": "t", "bytes": "4*B*N"}],
 *     "launches": [
 *       {"kernel": "gemm",
 *        "global": ["round_up(N,16)", "round_up(B,16)"], "local": [16, 16],
 *        "args": ["x", "W", "b", "t", "B", "K", "N",
 *                 {"float": 2.0}, {"int": "K/4"}, {"long": "B*N"},
 *                 {"local": "4*16*17"},
 *                 {"tensor_map": {"buffer": "x", "dims": ["K", "B"],
 *                                 "strides": ["4*K"], "box": [32, 64],
 *                                 "swizzle": 128}}]}
 *     ]
 *   }
 *
 * A string argument names an input, an output, a scratch buffer or a dim
 * (int, 32-bit); those names must not collide.  Integer expressions are
 * JSON integers or strings over dims with + - * / % (integer, floor),
 * parentheses and the functions ceil_div(a,b), round_up(a,b), min(a,b),
 * max(a,b).
 *
 * Ownership: everything returned is owned by the kf_candidate and freed by
 * kf_candidate_free().
 */
#ifndef KF_CANDIDATE_H
#define KF_CANDIDATE_H

#include <stdint.h>
#include "util/error.h"
#include "problem/problem.h"
#include "kforge-plugin.h"

typedef struct kf_cand_source {
    char *name;
    char *text;       /* NUL-terminated; for a binary format the bytes (+ a NUL) */
    size_t size;      /* bytes, without the NUL */
    uint32_t format;  /* KF_SRC_*, from the file name (kf_source_format_of) */
} kf_cand_source;

/* The format of a source by its file name: "*.spv" SPIR-V and "*.cubin"
 * CUBIN (binary, read as bytes), "*.ptx" PTX, anything else program text. */
uint32_t kf_source_format_of(const char *name);
/* Whether a format is binary (may hold NUL bytes; never inline in JSON). */
int kf_source_format_binary(uint32_t format);

typedef struct kf_cand_scratch {
    char *name;
    char *bytes_expr;
} kf_cand_scratch;

typedef enum kf_cand_arg_kind {
    KF_CARG_NAME,    /* input, output, scratch or dim, resolved at bind time */
    KF_CARG_INT,     /* expr */
    KF_CARG_LONG,    /* expr */
    KF_CARG_FLOAT,   /* fval */
    KF_CARG_LOCAL,   /* expr = bytes */
    KF_CARG_TENSOR_MAP  /* tmap (text = the buffer's name) */
} kf_cand_arg_kind;

/* {"tensor_map": {"buffer": NAME, "dtype": "bf16", "dims": [e, ...],
 *  "strides": [e, ...], "box": [e, ...], "swizzle": 128}}: a TMA descriptor
 * over buffer NAME (an input, output or scratch buffer), rank = the number
 * of dims (1..5, innermost first), strides = rank - 1 byte strides of
 * dims 1.., box = rank tile sizes, swizzle 0 (default), 32, 64 or 128;
 * dtype "f32" (default), "bf16" or "f16".  Checked against the buffer by
 * the plugin (kforge-plugin.h, kf_tensor_map). */
typedef struct kf_cand_tmap {
    uint32_t dtype;          /* KF_DT_* */
    int rank;
    char *dims[KF_TMAP_MAX_RANK];
    char *strides[KF_TMAP_MAX_RANK];   /* [1..rank): [0] unused (NULL) */
    char *box[KF_TMAP_MAX_RANK];
    int swizzle;
} kf_cand_tmap;

typedef struct kf_cand_arg {
    kf_cand_arg_kind kind;
    char *text;      /* the name or the expression */
    double fval;
    kf_cand_tmap *tmap;   /* KF_CARG_TENSOR_MAP only */
} kf_cand_arg;

typedef struct kf_cand_launch {
    char *kernel;
    int work_dim;
    char *global[3];
    char *local[3];  /* NULL local[0] = runtime chooses */
    int n_args;
    kf_cand_arg *args;
} kf_cand_launch;

typedef struct kf_candidate {
    char *backend;
    int n_sources;
    kf_cand_source *sources;
    char *build_options;       /* never NULL ("" when absent) */
    char *entry;               /* NULL when absent */
    int n_scratch;
    kf_cand_scratch *scratch;
    int n_launches;
    kf_cand_launch *launches;
    char *notes;               /* free text from the agent, may be NULL */
    char *origin;              /* "DIR/candidate.json" or the .c file it was
                                  loaded from, prefixed to bind errors; may
                                  be NULL (then "candidate") */
} kf_candidate;

kf_candidate *kf_candidate_new(const char *backend);
void kf_cand_tmap_free(kf_cand_tmap *t);
/* Loads a directory (candidate.json) or a single .c file.  A .c file is a
 * host-entry candidate (entry kf_kernel) with backend "": the caller sets
 * the backend (kforge verify: the --backend plugin, if it runs a host entry). */
kf_candidate *kf_candidate_load(const char *path, kf_error *err);
/* Parses a candidate.json text; sources are looked up in `dir` unless
 * already present (sources given inline as {"name":..,"text":..}). */
kf_candidate *kf_candidate_parse_manifest(const char *json_text, const char *dir,
                                          const char *label, kf_error *err);
/* Writes dir/candidate.json and every source; creates dir. */
int kf_candidate_save(const kf_candidate *c, const char *dir, kf_error *err);
/* The same with owner-only modes (directories 0700, files 0600), for the
 * records of a run that no other user may read or change. */
int kf_candidate_save_private(const kf_candidate *c, const char *dir, kf_error *err);
int kf_candidate_add_source(kf_candidate *c, const char *name, const char *text);
/* The same for size bytes of any format (a binary module); the format
 * comes from the name. */
int kf_candidate_add_source_bytes(kf_candidate *c, const char *name, const void *data, size_t size);
void kf_candidate_free(kf_candidate *c);
/* JSON text of the manifest (sources by name); malloc'ed. */
char *kf_candidate_manifest_json(const kf_candidate *c);
/* 1 when candidate directories a and b hold the same code: equal manifests
 * (candidate.json as JSON values, "notes" and a lone source's name aside)
 * and text sources, in order and of one format each, with equal tokens and
 * lines once C-family comments are removed and blanks collapsed; 0
 * otherwise, and whenever a file cannot be read, a source is binary or
 * cannot be read safely (candidate_same.c). */
int kf_candidate_same_code(const char *dir_a, const char *dir_b);
/* The text it compares: src without comments, blanks collapsed, lines kept;
 * malloc'ed, NULL where src holds a raw string literal or memory runs out. */
char *kf_candidate_normalise_code(const char *src);

/* Evaluates an integer expression over the resolved problem's dims. */
int kf_eval_int_expr(const char *expr, const kf_resolved *r, int64_t *out, kf_error *err);

/* A candidate bound to a resolved problem: every expression evaluated, every
 * name resolved, laid out as the plugin ABI wants.  Owns its arrays; the
 * strings in the views point into `c` and `r`, which must outlive it. */
typedef struct kf_bound {
    kf_candidate_view view;
    kf_problem_view pview;
    /* storage behind the views */
    kf_source *sources;
    kf_launch *launches;
    kf_arg *args;
    kf_tensor_map *tensor_maps;
    const char **dim_names, **input_names, **output_names;
    int64_t *dim_values, *input_elems, *output_elems, *scratch_bytes;
} kf_bound;

int kf_candidate_bind(const kf_candidate *c, const kf_resolved *r, kf_bound *out, kf_error *err);
void kf_bound_free(kf_bound *b);

/* 0 when every word of `opts` is an allowed compiler option
 * (build_options.c); -1 with the first offending word in `why`. */
int kf_build_options_check(const char *opts, char *why, size_t why_len);

#endif
