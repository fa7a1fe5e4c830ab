/*
 * problem_parse.c — JSON text -> kf_problem: the top-level fields, dims,
 * presets, inputs and their init, outputs and tolerance (problems/FORMAT.md).
 * The graph is parsed in problem_parse_graph.c; shapes are checked for every
 * preset by kf_resolve() before the problem is handed out.
 *
 * Choices beyond FORMAT.md (documented here, enforced consistently):
 *  - unknown keys anywhere are errors, with a "did you mean" suggestion;
 *  - an input without `init` is drawn uniform in [0, 1) (torch.rand);
 *  - value names are identifiers [A-Za-z_][A-Za-z0-9_]*, unique over inputs
 *    and nodes; an output may be listed only once;
 *  - the graph may be empty only when a `c_reference` is given;
 *  - dim sizes are at most 2^40 and every value at most 2^48 elements.
 */
#include "util/sha256.h"
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kforge-plugin.h"
#include "problem_internal.h"

#define MAX_DIM_SIZE ((int64_t)1 << 40)

static const char *const top_keys[] = {
    "name", "level", "description", "dims", "presets", "inputs", "graph", "outputs",
    "tolerance", "c_reference", NULL
};

static char *xstrdup(kf_pctx *c, const char *s)
{
    char *d = strdup(s ? s : "");
    if (!d) kf_fail(c->err, KF_E_INTERNAL, "%s: out of memory", c->label);
    return d;
}

/* ------------------------------------------------------------ JSON text */

static int line_of(const char *text, size_t off)
{
    int line = 1;
    for (size_t i = 0; i < off && text[i]; i++)
        if (text[i] == '\n') line++;
    return line;
}

static json_object *parse_json(kf_pctx *c, const char *text)
{
    size_t len = strlen(text);
    json_tokener *tok = json_tokener_new();
    if (!tok) {
        kf_fail(c->err, KF_E_INTERNAL, "%s: out of memory", c->label);
        return NULL;
    }
    json_tokener_set_flags(tok, JSON_TOKENER_STRICT);
    json_object *root = json_tokener_parse_ex(tok, text, (int)len);
    enum json_tokener_error jerr = json_tokener_get_error(tok);
    size_t end = json_tokener_get_parse_end(tok);
    if (!root) {
        if (jerr == json_tokener_continue) {
            /* the text ended inside a value; feed the terminator to finish
             * a bare top-level number, else report the truncation */
            root = json_tokener_parse_ex(tok, "", 1);
            if (!root) {
                kf_fail(c->err, KF_E_BAD_INPUT,
                        "%s: line %d: invalid JSON: unexpected end of file "
                        "(an unclosed '{', '[' or string?)", c->label, line_of(text, len));
                json_tokener_free(tok);
                return NULL;
            }
            end = len;
        } else {
            kf_fail(c->err, KF_E_BAD_INPUT, "%s: line %d: invalid JSON: %s", c->label,
                    line_of(text, end), json_tokener_error_desc(jerr));
            json_tokener_free(tok);
            return NULL;
        }
    }
    json_tokener_free(tok);
    for (size_t i = end; i < len; i++) {
        if (!strchr(" \t\r\n", text[i])) {
            kf_fail(c->err, KF_E_BAD_INPUT,
                    "%s: line %d: invalid JSON: unexpected text after the top-level value",
                    c->label, line_of(text, i));
            json_object_put(root);
            return NULL;
        }
    }
    return root;
}

/* ------------------------------------------------------------ dims/presets */

static int parse_dims(kf_pctx *c, json_object *root, kf_problem *p)
{
    kf_jpath jp = kf_jp_key(NULL, "dims");
    json_object *a;
    if (!json_object_object_get_ex(root, "dims", &a))
        return kf_perr(c, &jp, "missing (this field is required: an array of dim names, e.g. [\"B\", \"K\", \"N\"])");
    if (!json_object_is_type(a, json_type_array))
        return kf_perr(c, &jp, "must be an array of dim names, got %s", kf_json_type_word(a));
    int n = (int)json_object_array_length(a);
    p->dim_names = calloc((size_t)n + 1, sizeof *p->dim_names);
    if (!p->dim_names) return kf_fail(c->err, KF_E_INTERNAL, "%s: out of memory", c->label);
    for (int i = 0; i < n; i++) {
        kf_jpath ip = kf_jp_idx(&jp, i);
        json_object *v = json_object_array_get_idx(a, (size_t)i);
        if (!json_object_is_type(v, json_type_string))
            return kf_perr(c, &ip, "must be a dim name (a string), got %s", kf_json_type_word(v));
        const char *s = json_object_get_string(v);
        if (!kf_is_ident(s))
            return kf_perr(c, &ip, "'%s' is not a valid dim name (use [A-Za-z_][A-Za-z0-9_]*)", s);
        for (int j = 0; j < i; j++)
            if (!strcmp(p->dim_names[j], s))
                return kf_perr(c, &ip, "dim '%s' is listed twice (also dims[%d])", s, j);
        if (!(p->dim_names[i] = xstrdup(c, s))) return -1;
        p->n_dims = i + 1;
    }
    return 0;
}

int kf_problem_dim_index(const kf_problem *p, const char *name)
{
    for (int i = 0; i < p->n_dims; i++)
        if (!strcmp(p->dim_names[i], name)) return i;
    return -1;
}

static int unknown_dim(kf_pctx *c, const kf_jpath *jp, const kf_problem *p, const char *name)
{
    const char *s = kf_suggest(name, (const char *const *)p->dim_names, p->n_dims);
    char known[512];
    kf_join_names((const char *const *)p->dim_names, p->n_dims, 24, known, sizeof known);
    if (s) return kf_perr(c, jp, "unknown dim '%s' (did you mean '%s'?)", name, s);
    return kf_perr(c, jp, "unknown dim '%s' (dims: %s)", name, p->n_dims ? known : "none declared");
}

static int parse_presets(kf_pctx *c, json_object *root, kf_problem *p)
{
    kf_jpath jp = kf_jp_key(NULL, "presets");
    json_object *o;
    if (!json_object_object_get_ex(root, "presets", &o))
        return kf_perr(c, &jp, "missing (this field is required: an object such as {\"small\": {\"B\": 127}})");
    if (!json_object_is_type(o, json_type_object))
        return kf_perr(c, &jp, "must be an object mapping preset names to dim sizes, got %s",
                       kf_json_type_word(o));
    int n = json_object_object_length(o);
    if (n == 0) return kf_perr(c, &jp, "must define at least one preset (e.g. \"small\")");
    p->preset_names = calloc((size_t)n, sizeof *p->preset_names);
    p->preset_values = calloc((size_t)n * (size_t)(p->n_dims ? p->n_dims : 1), sizeof *p->preset_values);
    if (!p->preset_names || !p->preset_values)
        return kf_fail(c->err, KF_E_INTERNAL, "%s: out of memory", c->label);
    int k = 0;
    json_object_object_foreach(o, name, val) {
        kf_jpath pp = kf_jp_key(&jp, name);
        if (!kf_is_problem_name(name))
            return kf_perr(c, &pp, "'%s' is not a valid preset name (use [A-Za-z0-9_.-]+)", name);
        if (!json_object_is_type(val, json_type_object))
            return kf_perr(c, &pp, "must be an object giving every dim a size, got %s",
                           kf_json_type_word(val));
        if (!(p->preset_names[k] = xstrdup(c, name))) return -1;
        p->n_presets = k + 1;
        int64_t *row = p->preset_values + (size_t)k * (size_t)p->n_dims;
        json_object_object_foreach(val, dname, dval) {
            kf_jpath dp = kf_jp_key(&pp, dname);
            int di = kf_problem_dim_index(p, dname);
            if (di < 0) return unknown_dim(c, &dp, p, dname);
            if (kf_check_int(c, &dp, dval, 1, MAX_DIM_SIZE, &row[di]) < 0) return -1;
        }
        for (int d = 0; d < p->n_dims; d++)
            if (row[d] == 0)
                return kf_perr(c, &pp, "missing dim '%s' (every preset must give every dim a size)",
                               p->dim_names[d]);
        k++;
    }
    return 0;
}

/* ------------------------------------------------------------ inputs */

static int parse_shape(kf_pctx *c, const kf_jpath *jp, json_object *a, const kf_problem *p,
                       kf_shape_expr *out)
{
    if (!json_object_is_type(a, json_type_array))
        return kf_perr(c, jp, "must be an array of dim names or sizes (e.g. [\"B\", \"K\"]; [] for a scalar), got %s",
                       kf_json_type_word(a));
    int n = (int)json_object_array_length(a);
    if (n > KF_MAX_RANK)
        return kf_perr(c, jp, "rank %d is not supported (at most %d dims)", n, KF_MAX_RANK);
    out->rank = n;
    for (int i = 0; i < n; i++) {
        kf_jpath ip = kf_jp_idx(jp, i);
        json_object *v = json_object_array_get_idx(a, (size_t)i);
        out->dim_index[i] = -1;
        out->literal[i] = 0;
        if (json_object_is_type(v, json_type_string)) {
            const char *s = json_object_get_string(v);
            int di = kf_problem_dim_index(p, s);
            if (di < 0) return unknown_dim(c, &ip, p, s);
            out->dim_index[i] = di;
        } else if (json_object_is_type(v, json_type_int) || json_object_is_type(v, json_type_double)) {
            if (kf_check_int(c, &ip, v, 1, MAX_DIM_SIZE, &out->literal[i]) < 0) return -1;
        } else {
            return kf_perr(c, &ip, "must be a dim name or a positive integer, got %s",
                           kf_json_type_word(v));
        }
    }
    return 0;
}

static const char *const dist_names[] = {"uniform", "normal", "kaiming_uniform", "constant", NULL};

static int parse_init(kf_pctx *c, const kf_jpath *jp, json_object *o, const kf_problem *p,
                      kf_init *init)
{
    static const char *const keys_u[] = {"dist", "low", "high", NULL};
    static const char *const keys_n[] = {"dist", "mean", "std", NULL};
    static const char *const keys_k[] = {"dist", "fan_in", NULL};
    static const char *const keys_c[] = {"dist", "value", NULL};
    static const char *const *const keys[] = {keys_u, keys_n, keys_k, keys_c};

    if (!json_object_is_type(o, json_type_object))
        return kf_perr(c, jp, "must be an object such as {\"dist\": \"uniform\"}, got %s",
                       kf_json_type_word(o));
    const char *dist = NULL;
    if (kf_get_string(c, jp, o, "dist", 1, &dist) < 0) return -1;
    int d = -1;
    for (int i = 0; dist_names[i]; i++)
        if (!strcmp(dist_names[i], dist)) d = i;
    if (d < 0) {
        kf_jpath dp = kf_jp_key(jp, "dist");
        const char *s = kf_suggest(dist, dist_names, -1);
        if (s) return kf_perr(c, &dp, "unknown distribution '%s' (did you mean '%s'?)", dist, s);
        return kf_perr(c, &dp, "unknown distribution '%s' (known: uniform, normal, kaiming_uniform, constant)", dist);
    }
    init->dist = (kf_dist)d;
    char what[64];
    snprintf(what, sizeof what, "a '%s' init", dist);
    if (kf_check_keys(c, jp, o, keys[d], what) < 0) return -1;
    switch (init->dist) {
    case KF_DIST_UNIFORM:
        init->a = 0.0; init->b = 1.0;
        if (kf_get_number(c, jp, o, "low", 0, &init->a) < 0) return -1;
        if (kf_get_number(c, jp, o, "high", 0, &init->b) < 0) return -1;
        if (!(init->a < init->b)) {
            kf_jpath hp = kf_jp_key(jp, "high");
            return kf_perr(c, &hp, "must be greater than low (%g), got %g", init->a, init->b);
        }
        break;
    case KF_DIST_NORMAL:
        init->a = 0.0; init->b = 1.0;
        if (kf_get_number(c, jp, o, "mean", 0, &init->a) < 0) return -1;
        if (kf_get_number(c, jp, o, "std", 0, &init->b) < 0) return -1;
        if (!(init->b > 0)) {
            kf_jpath sp = kf_jp_key(jp, "std");
            return kf_perr(c, &sp, "must be positive, got %g (use \"constant\" for a fixed value)", init->b);
        }
        break;
    case KF_DIST_CONSTANT:
        if (kf_get_number(c, jp, o, "value", 1, &init->a) < 0) return -1;
        break;
    case KF_DIST_KAIMING_UNIFORM: {
        kf_jpath fp = kf_jp_key(jp, "fan_in");
        json_object *f;
        if (!json_object_object_get_ex(o, "fan_in", &f))
            return kf_perr(c, &fp, "missing (kaiming_uniform needs fan_in: a dim name or a positive integer)");
        if (json_object_is_type(f, json_type_string)) {
            const char *s = json_object_get_string(f);
            if (kf_problem_dim_index(p, s) < 0) return unknown_dim(c, &fp, p, s);
            if (!(init->fan_in_dim = xstrdup(c, s))) return -1;
        } else if (json_object_is_type(f, json_type_int) || json_object_is_type(f, json_type_double)) {
            if (kf_check_int(c, &fp, f, 1, MAX_DIM_SIZE, &init->fan_in_value) < 0) return -1;
        } else {
            return kf_perr(c, &fp, "must be a dim name or a positive integer, got %s",
                           kf_json_type_word(f));
        }
        break;
    }
    }
    return 0;
}

static int check_new_value_name(kf_pctx *c, const kf_jpath *jp, const kf_problem *p, const char *s);

static int parse_inputs(kf_pctx *c, json_object *root, kf_problem *p)
{
    static const char *const in_keys[] = {"name", "shape", "dtype", "init", NULL};
    kf_jpath jp = kf_jp_key(NULL, "inputs");
    json_object *a;
    if (!json_object_object_get_ex(root, "inputs", &a))
        return kf_perr(c, &jp, "missing (this field is required: an array of input tensors)");
    if (!json_object_is_type(a, json_type_array))
        return kf_perr(c, &jp, "must be an array of input tensors, got %s", kf_json_type_word(a));
    int n = (int)json_object_array_length(a);
    p->inputs = calloc((size_t)n + 1, sizeof *p->inputs);
    if (!p->inputs) return kf_fail(c->err, KF_E_INTERNAL, "%s: out of memory", c->label);
    for (int i = 0; i < n; i++) {
        kf_jpath ip = kf_jp_idx(&jp, i);
        json_object *o = json_object_array_get_idx(a, (size_t)i);
        if (!json_object_is_type(o, json_type_object))
            return kf_perr(c, &ip, "must be an object with name, shape and init, got %s",
                           kf_json_type_word(o));
        if (kf_check_keys(c, &ip, o, in_keys, "an input") < 0) return -1;
        kf_input *in = &p->inputs[i];
        const char *name = NULL, *dtype = "float32";
        if (kf_get_string(c, &ip, o, "name", 1, &name) < 0) return -1;
        kf_jpath np = kf_jp_key(&ip, "name");
        if (check_new_value_name(c, &np, p, name) < 0) return -1;
        if (!(in->name = xstrdup(c, name))) return -1;
        p->n_inputs = i + 1;
        json_object *shape;
        kf_jpath sp = kf_jp_key(&ip, "shape");
        if (!json_object_object_get_ex(o, "shape", &shape))
            return kf_perr(c, &sp, "missing (this field is required: e.g. [\"B\", \"K\"], [] for a scalar)");
        if (parse_shape(c, &sp, shape, p, &in->shape) < 0) return -1;
        if (kf_get_string(c, &ip, o, "dtype", 0, &dtype) < 0) return -1;
        if (strcmp(dtype, "float32") != 0) {
            kf_jpath dp = kf_jp_key(&ip, "dtype");
            return kf_perr(c, &dp, "unsupported dtype '%s' (only \"float32\" is supported)", dtype);
        }
        in->init.dist = KF_DIST_UNIFORM;
        in->init.a = 0.0;
        in->init.b = 1.0;
        json_object *init;
        if (json_object_object_get_ex(o, "init", &init)) {
            kf_jpath inp = kf_jp_key(&ip, "init");
            if (parse_init(c, &inp, init, p, &in->init) < 0) return -1;
        }
    }
    return 0;
}

/* Shared with the graph parser through kf_problem_find_value. */
static int check_new_value_name(kf_pctx *c, const kf_jpath *jp, const kf_problem *p, const char *s)
{
    if (!kf_is_ident(s))
        return kf_perr(c, jp, "'%s' is not a valid value name (use [A-Za-z_][A-Za-z0-9_]*)", s);
    int v = kf_problem_find_value(p, s);
    if (v >= 0) {
        if (v < p->n_inputs)
            return kf_perr(c, jp, "duplicate value name '%s' (already defined by inputs[%d]); every input and node output needs its own name", s, v);
        return kf_perr(c, jp, "duplicate value name '%s' (already defined by graph[%d]); every input and node output needs its own name", s, v - p->n_inputs);
    }
    return 0;
}

int kf_problem_check_new_value(kf_pctx *c, const kf_jpath *jp, const kf_problem *p, const char *s)
{
    return check_new_value_name(c, jp, p, s);
}

/* ------------------------------------------------------------ outputs, tolerance */

/* {"name": "y", "shape": [...]}: an output of a problem given by a C
 * reference alone (no graph to infer its shape from).  Returns its value id. */
static int parse_declared_output(kf_pctx *c, const kf_jpath *ip, json_object *o, kf_problem *p,
                                 int cref_only)
{
    static const char *const keys[] = {"name", "shape", NULL};
    if (!cref_only)
        return kf_perr(c, ip, "an output with a declared shape is only for a problem given by a C reference "
                       "alone (no graph); name a value instead, e.g. \"y\"");
    if (kf_check_keys(c, ip, o, keys, "a declared output") < 0) return -1;
    const char *name = NULL;
    if (kf_get_string(c, ip, o, "name", 1, &name) < 0) return -1;
    kf_jpath np = kf_jp_key(ip, "name");
    if (check_new_value_name(c, &np, p, name) < 0) return -1;
    json_object *shape;
    kf_jpath sp = kf_jp_key(ip, "shape");
    if (!json_object_object_get_ex(o, "shape", &shape))
        return kf_perr(c, &sp, "missing (a declared output needs its shape, e.g. [\"B\", \"N\"])");
    kf_input *d = &p->declared[p->n_declared];
    if (parse_shape(c, &sp, shape, p, &d->shape) < 0) return -1;
    if (!(d->name = xstrdup(c, name))) return -1;
    return p->n_inputs + p->n_nodes + p->n_declared++;
}

static int parse_outputs(kf_pctx *c, json_object *root, kf_problem *p)
{
    kf_jpath jp = kf_jp_key(NULL, "outputs");
    json_object *a;
    if (!json_object_object_get_ex(root, "outputs", &a))
        return kf_perr(c, &jp, "missing (this field is required: an array of value names, e.g. [\"y\"])");
    if (!json_object_is_type(a, json_type_array))
        return kf_perr(c, &jp, "must be an array of value names, got %s", kf_json_type_word(a));
    int n = (int)json_object_array_length(a);
    if (n == 0) return kf_perr(c, &jp, "must name at least one value (e.g. [\"y\"])");
    p->outputs = calloc((size_t)n, sizeof *p->outputs);
    p->declared = calloc((size_t)n, sizeof *p->declared);
    if (!p->outputs || !p->declared) return kf_fail(c->err, KF_E_INTERNAL, "%s: out of memory", c->label);
    int cref_only = p->c_reference && p->n_nodes == 0;
    for (int i = 0; i < n; i++) {
        kf_jpath ip = kf_jp_idx(&jp, i);
        json_object *v = json_object_array_get_idx(a, (size_t)i);
        if (json_object_is_type(v, json_type_object)) {
            int id = parse_declared_output(c, &ip, v, p, cref_only);
            if (id < 0) return -1;
            p->outputs[i] = id;
            p->n_outputs = i + 1;
            continue;
        }
        if (!json_object_is_type(v, json_type_string))
            return kf_perr(c, &ip, "must be a value name (a string)%s, got %s",
                           cref_only ? " or {\"name\": ..., \"shape\": [...]}" : "", kf_json_type_word(v));
        const char *s = json_object_get_string(v);
        int id = kf_problem_find_value(p, s);
        if (id < 0 && cref_only)
            return kf_perr(c, &ip, "'%s' is not an input, and a problem given by a C reference alone has no graph "
                           "to infer its shape from: declare it as {\"name\": \"%s\", \"shape\": [dims...]}", s, s);
        if (id < 0) {
            int nv = kf_problem_n_values(p);
            const char **names = malloc(sizeof *names * (size_t)(nv + 1));
            if (!names) return kf_fail(c->err, KF_E_INTERNAL, "%s: out of memory", c->label);
            for (int k = 0; k < nv; k++) names[k] = kf_problem_value_name(p, k);
            const char *sug = kf_suggest(s, names, nv);
            char known[512];
            kf_join_names(names, nv, 24, known, sizeof known);
            int rc = sug ? kf_perr(c, &ip, "unknown value '%s' (did you mean '%s'?)", s, sug)
                         : kf_perr(c, &ip, "unknown value '%s' (known: %s)", s, known);
            free(names);
            return rc;
        }
        for (int k = 0; k < i; k++)
            if (p->outputs[k] == id)
                return kf_perr(c, &ip, "'%s' is listed twice (also outputs[%d])", s, k);
        p->outputs[i] = id;
        p->n_outputs = i + 1;
    }
    return 0;
}

static int parse_tolerance(kf_pctx *c, json_object *root, kf_problem *p)
{
    static const char *const keys[] = {"atol", "rtol", "rel_l2", "rel_spread", NULL};
    p->atol = p->rtol = p->rel_l2 = 1e-2;
    p->rel_spread = KF_DEFAULT_REL_SPREAD;
    json_object *o;
    if (!json_object_object_get_ex(root, "tolerance", &o)) return 0;
    kf_jpath jp = kf_jp_key(NULL, "tolerance");
    if (!json_object_is_type(o, json_type_object))
        return kf_perr(c, &jp, "must be an object such as {\"atol\": 1e-2, \"rtol\": 1e-2}, got %s",
                       kf_json_type_word(o));
    if (kf_check_keys(c, &jp, o, keys, "tolerance") < 0) return -1;
    double *dst[] = {&p->atol, &p->rtol, &p->rel_l2, &p->rel_spread};
    for (int i = 0; i < 4; i++) {
        if (kf_get_number(c, &jp, o, keys[i], 0, dst[i]) < 0) return -1;
        if (*dst[i] < 0) {
            kf_jpath kp = kf_jp_key(&jp, keys[i]);
            return kf_perr(c, &kp, "must not be negative, got %g", *dst[i]);
        }
    }
    return 0;
}

/* ------------------------------------------------------------ top level */

static int parse_root(kf_pctx *c, json_object *root, kf_problem *p)
{
    if (!json_object_is_type(root, json_type_object))
        return kf_perr(c, NULL, "a problem must be a JSON object, got %s", kf_json_type_word(root));
    if (kf_check_keys(c, NULL, root, top_keys, "a problem") < 0) return -1;

    const char *name = NULL, *desc = NULL, *cref = NULL;
    if (kf_get_string(c, NULL, root, "name", 1, &name) < 0) return -1;
    if (!kf_is_problem_name(name)) {
        kf_jpath np = kf_jp_key(NULL, "name");
        return kf_perr(c, &np, "'%s' is not a valid problem name (use [A-Za-z0-9_.-]+)", name);
    }
    if (!(p->name = xstrdup(c, name))) return -1;
    int64_t level = 0;
    if (kf_get_int(c, NULL, root, "level", 0, 1, 2, &level) < 0) return -1;
    p->level = (int)level;
    if (kf_get_string(c, NULL, root, "description", 0, &desc) < 0) return -1;
    if (desc && !(p->description = xstrdup(c, desc))) return -1;
    if (kf_get_string(c, NULL, root, "c_reference", 0, &cref) < 0) return -1;
    if (cref && !(p->c_reference = xstrdup(c, cref))) return -1;

    if (parse_dims(c, root, p) < 0) return -1;
    if (parse_presets(c, root, p) < 0) return -1;
    if (parse_inputs(c, root, p) < 0) return -1;
    if (kf_parse_graph(c, root, p) < 0) return -1;
    if (parse_outputs(c, root, p) < 0) return -1;
    return parse_tolerance(c, root, p);
}

/* Resolves every preset so that shape errors surface at load time, and
 * stores each node's dim normalised to >= 0 (ranks do not depend on the
 * preset, so one normalisation fits all). */
static int check_presets(kf_pctx *c, kf_problem *p)
{
    for (int s = 0; s < p->n_presets; s++) {
        kf_resolved r;
        if (kf_resolve(p, s, &r, c->err) != 0) return -1;
        if (s == 0) {
            for (int i = 0; i < p->n_nodes; i++) {
                kf_node *nd = &p->nodes[i];
                if (nd->dim < 0 && !nd->in[0].is_scalar)
                    nd->dim += r.shapes[nd->in[0].value].rank;
            }
        }
        kf_resolved_free(&r);
    }
    return 0;
}

kf_problem *kf_problem_parse(const char *json_text, const char *label, kf_error *err)
{
    kf_pctx c = {label ? label : "<problem>", err, NULL};
    if (!json_text) {
        kf_fail(err, KF_E_BAD_INPUT, "%s: no problem text", c.label);
        return NULL;
    }
    json_object *root = parse_json(&c, json_text);
    if (!root) return NULL;
    kf_problem *p = calloc(1, sizeof *p);
    if (!p || !(p->path = xstrdup(&c, c.label)) || parse_root(&c, root, p) < 0
        || check_presets(&c, p) < 0) {
        if (!p) kf_fail(err, KF_E_INTERNAL, "%s: out of memory", c.label);
        kf_problem_free(p);
        json_object_put(root);
        return NULL;
    }
    json_object_put(root);
    kf_sha256 h;
    kf_sha256_init(&h);
    kf_sha256_update(&h, json_text, strlen(json_text));
    kf_sha256_final(&h, p->digest);
    return p;
}
