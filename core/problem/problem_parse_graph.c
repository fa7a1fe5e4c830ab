/*
 * problem_parse_graph.c — the `graph` array: nodes, their operands (value
 * names or, for binary ops, numbers) and their attributes with the defaults
 * of problems/FORMAT.md.  Shapes are checked later by kf_resolve().
 *
 * Operands are positional.  Optional tensors come last and in order:
 * linear x, W, [bias]; layer_norm / group_norm x, [weight], [bias];
 * rms_norm x, [weight]; batch_norm x, [weight], [bias], then both
 * running_mean and running_var (so 1, 2, 3 or 5 operands; evaluation mode
 * needs all 5 — pass constant-1/0 inputs for an absent weight or bias).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kforge-plugin.h"
#include "problem_internal.h"

#define ATTR_INT_RANGE 1000000

static void set_defaults(kf_node *nd)
{
    nd->transpose_b = 0;
    nd->gelu_tanh = 0;
    nd->alpha = 0.0;
    nd->beta = 0.0;
    nd->lo = -1.0;
    nd->hi = 1.0;
    nd->eps = 1e-5;
    nd->dim = 0;
    nd->keepdim = 0;
    nd->groups = 0;
    nd->normalized_dims = 1;
    nd->training = 1;
    nd->kernel_size = nd->stride = nd->padding = 0;
    switch (nd->op) {
    case KF_OP_LEAKY_RELU: nd->alpha = 0.01; break;
    case KF_OP_ELU: nd->alpha = 1.0; break;
    case KF_OP_SOFTPLUS: nd->alpha = 1.0; nd->beta = 20.0; break;
    case KF_OP_CLAMP: nd->lo = NAN; nd->hi = NAN; break;
    case KF_OP_RMS_NORM: nd->eps = 1.1920929e-07; break;
    default: break;
    }
}

static int get_int_attr(kf_pctx *c, const kf_jpath *jp, json_object *o, const char *key,
                        int required, int64_t lo, int *out)
{
    int64_t v;
    int rc = kf_get_int(c, jp, o, key, required, lo, ATTR_INT_RANGE, &v);
    if (rc == 1) *out = (int)v;
    return rc;
}

/* view/reshape "shape": dim names, positive sizes and at most one -1 (the
 * size inferred from the element count, as in PyTorch). */
static int parse_view_shape(kf_pctx *c, const kf_jpath *jp, json_object *o, const kf_problem *p,
                            kf_node *nd)
{
    kf_jpath sp = kf_jp_key(jp, "shape");
    json_object *a;
    const char *opn = kf_op_name(nd->op);
    if (!json_object_object_get_ex(o, "shape", &a))
        return kf_perr(c, &sp, "missing ('%s' needs the new shape, e.g. \"shape\": [\"B\", -1])", opn);
    if (!json_object_is_type(a, json_type_array))
        return kf_perr(c, &sp, "must be an array of dim names, sizes and at most one -1, got %s",
                       kf_json_type_word(a));
    int n = (int)json_object_array_length(a), inferred = -1;
    if (n > KF_MAX_RANK)
        return kf_perr(c, &sp, "rank %d is not supported (at most %d dims)", n, KF_MAX_RANK);
    nd->view.rank = n;
    for (int i = 0; i < n; i++) {
        kf_jpath ip = kf_jp_idx(&sp, i);
        json_object *v = json_object_array_get_idx(a, (size_t)i);
        nd->view.dim_index[i] = -1;
        nd->view.literal[i] = 0;
        if (json_object_is_type(v, json_type_string)) {
            const char *s = json_object_get_string(v);
            int di = kf_problem_dim_index(p, s);
            if (di < 0) return kf_perr(c, &ip, "unknown dim '%s' (use a name from \"dims\", a size or -1)", s);
            nd->view.dim_index[i] = di;
        } else if (json_object_is_type(v, json_type_int)) {
            int64_t x = json_object_get_int64(v);
            if (x == -1) {
                if (inferred >= 0)
                    return kf_perr(c, &ip, "only one size may be -1 (shape[%d] is -1 already)", inferred);
                inferred = i;
                nd->view.literal[i] = -1;
            } else if (kf_check_int(c, &ip, v, 1, (int64_t)1 << 40, &nd->view.literal[i]) < 0) {
                return -1;
            }
        } else {
            return kf_perr(c, &ip, "must be a dim name, a positive integer or -1, got %s",
                           kf_json_type_word(v));
        }
    }
    const char *txt = json_object_to_json_string_ext(a, JSON_C_TO_STRING_PLAIN);
    if (!(nd->view_text = strdup(txt ? txt : "[]")))
        return kf_fail(c->err, KF_E_INTERNAL, "%s: out of memory", c->label);
    return 0;
}

static int parse_attrs(kf_pctx *c, const kf_jpath *jp, json_object *o, const kf_problem *p,
                       kf_node *nd)
{
    const char *opn = kf_op_name(nd->op);
    set_defaults(nd);
    switch (nd->op) {
    case KF_OP_MATMUL:
        return kf_get_bool(c, jp, o, "transpose_b", 0, &nd->transpose_b) < 0 ? -1 : 0;
    case KF_OP_GELU: {
        const char *a = NULL;
        if (kf_get_string(c, jp, o, "approximate", 0, &a) < 0) return -1;
        if (!a || !strcmp(a, "none")) return 0;
        if (!strcmp(a, "tanh")) { nd->gelu_tanh = 1; return 0; }
        kf_jpath ap = kf_jp_key(jp, "approximate");
        return kf_perr(c, &ap, "must be \"none\" (erf form) or \"tanh\", got '%s'", a);
    }
    case KF_OP_LEAKY_RELU:
        return kf_get_number(c, jp, o, "negative_slope", 0, &nd->alpha) < 0 ? -1 : 0;
    case KF_OP_ELU:
        return kf_get_number(c, jp, o, "alpha", 0, &nd->alpha) < 0 ? -1 : 0;
    case KF_OP_HARDTANH: {
        if (kf_get_number(c, jp, o, "min_val", 0, &nd->lo) < 0) return -1;
        if (kf_get_number(c, jp, o, "max_val", 0, &nd->hi) < 0) return -1;
        if (!(nd->hi > nd->lo)) {
            kf_jpath mp = kf_jp_key(jp, "max_val");
            return kf_perr(c, &mp, "must be greater than min_val (%g), got %g", nd->lo, nd->hi);
        }
        return 0;
    }
    case KF_OP_CLAMP: {
        int a = kf_get_number(c, jp, o, "min", 0, &nd->lo);
        if (a < 0) return -1;
        int b = kf_get_number(c, jp, o, "max", 0, &nd->hi);
        if (b < 0) return -1;
        if (!a && !b) return kf_perr(c, jp, "clamp needs \"min\", \"max\" or both");
        return 0;
    }
    case KF_OP_SOFTPLUS:
        if (kf_get_number(c, jp, o, "beta", 0, &nd->alpha) < 0) return -1;
        if (nd->alpha <= 0) {
            kf_jpath bp = kf_jp_key(jp, "beta");
            return kf_perr(c, &bp, "must be positive, got %g", nd->alpha);
        }
        return kf_get_number(c, jp, o, "threshold", 0, &nd->beta) < 0 ? -1 : 0;
    case KF_OP_DROPOUT: {
        double pr = 0.0;
        if (kf_get_number(c, jp, o, "p", 0, &pr) < 0) return -1;
        if (pr < 0 || pr >= 1) {
            kf_jpath pp = kf_jp_key(jp, "p");
            return kf_perr(c, &pp, "must be in [0, 1), got %g", pr);
        }
        return 0;
    }
    case KF_OP_SUM: case KF_OP_MEAN: case KF_OP_AMAX: case KF_OP_AMIN: case KF_OP_LOGSUMEXP:
        if (kf_get_bool(c, jp, o, "keepdim", 0, &nd->keepdim) < 0) return -1;
        /* fall through */
    case KF_OP_SOFTMAX: case KF_OP_LOG_SOFTMAX:
        if (!json_object_object_get_ex(o, "dim", NULL)) {
            kf_jpath dp = kf_jp_key(jp, "dim");
            return kf_perr(c, &dp, "missing ('%s' needs the dim to work over, e.g. \"dim\": 1 or -1)", opn);
        }
        return get_int_attr(c, jp, o, "dim", 1, -ATTR_INT_RANGE, &nd->dim) < 0 ? -1 : 0;
    case KF_OP_LAYER_NORM: case KF_OP_RMS_NORM:
        if (get_int_attr(c, jp, o, "normalized_dims", 0, 1, &nd->normalized_dims) < 0) return -1;
        break;
    case KF_OP_GROUP_NORM:
        if (!json_object_object_get_ex(o, "groups", NULL)) {
            kf_jpath gp = kf_jp_key(jp, "groups");
            return kf_perr(c, &gp, "missing (group_norm needs the number of groups, e.g. \"groups\": 16)");
        }
        if (get_int_attr(c, jp, o, "groups", 1, 1, &nd->groups) < 0) return -1;
        break;
    case KF_OP_BATCH_NORM:
        if (kf_get_bool(c, jp, o, "training", 0, &nd->training) < 0) return -1;
        break;
    case KF_OP_VIEW: case KF_OP_RESHAPE:
        return parse_view_shape(c, jp, o, p, nd);
    case KF_OP_UNSQUEEZE:
        if (!json_object_object_get_ex(o, "dim", NULL)) {
            kf_jpath dp = kf_jp_key(jp, "dim");
            return kf_perr(c, &dp, "missing (unsqueeze needs the position of the new size-1 dim, e.g. \"dim\": 1)");
        }
        nd->has_sdim = 1;
        return get_int_attr(c, jp, o, "dim", 1, -ATTR_INT_RANGE, &nd->sdim) < 0 ? -1 : 0;
    case KF_OP_SQUEEZE: {
        int rc = get_int_attr(c, jp, o, "dim", 0, -ATTR_INT_RANGE, &nd->sdim);
        if (rc < 0) return -1;
        nd->has_sdim = rc == 1;
        return 0;
    }
    case KF_OP_FLATTEN:
        nd->sdim = 0;
        nd->sdim2 = -1;
        if (get_int_attr(c, jp, o, "start_dim", 0, -ATTR_INT_RANGE, &nd->sdim) < 0) return -1;
        return get_int_attr(c, jp, o, "end_dim", 0, -ATTR_INT_RANGE, &nd->sdim2) < 0 ? -1 : 0;
    case KF_OP_MAX_POOL1D: case KF_OP_AVG_POOL1D:
        if (!json_object_object_get_ex(o, "kernel_size", NULL)) {
            kf_jpath kp = kf_jp_key(jp, "kernel_size");
            return kf_perr(c, &kp, "missing ('%s' needs a window size, e.g. \"kernel_size\": 2)", opn);
        }
        if (get_int_attr(c, jp, o, "kernel_size", 1, 1, &nd->kernel_size) < 0) return -1;
        nd->stride = nd->kernel_size;
        if (get_int_attr(c, jp, o, "stride", 0, 1, &nd->stride) < 0) return -1;
        if (get_int_attr(c, jp, o, "padding", 0, 0, &nd->padding) < 0) return -1;
        if (nd->padding * 2 > nd->kernel_size) {
            kf_jpath pp = kf_jp_key(jp, "padding");
            return kf_perr(c, &pp, "must be at most half of kernel_size (%d), got %d (as in PyTorch)",
                           nd->kernel_size, nd->padding);
        }
        return 0;
    default:
        return 0;
    }
    /* norms: eps */
    if (kf_get_number(c, jp, o, "eps", 0, &nd->eps) < 0) return -1;
    if (nd->eps < 0) {
        kf_jpath ep = kf_jp_key(jp, "eps");
        return kf_perr(c, &ep, "must not be negative, got %g", nd->eps);
    }
    return 0;
}

static int unknown_value(kf_pctx *c, const kf_jpath *jp, const kf_problem *p, const char *s)
{
    /* defined later in the graph? */
    int ng = c->graph ? (int)json_object_array_length(c->graph) : 0;
    for (int k = p->n_nodes; k < ng; k++) {
        json_object *nd = json_object_array_get_idx(c->graph, (size_t)k), *out;
        if (json_object_is_type(nd, json_type_object) && json_object_object_get_ex(nd, "out", &out)
            && json_object_is_type(out, json_type_string) && !strcmp(json_object_get_string(out), s))
            return kf_perr(c, jp, "value '%s' is used before it is defined (graph[%d] defines it; nodes run in order)",
                           s, k);
    }
    int nv = kf_problem_n_values(p);
    const char **names = malloc(sizeof *names * (size_t)(nv + 1));
    if (!names) return kf_fail(c->err, KF_E_INTERNAL, "%s: out of memory", c->label);
    for (int k = 0; k < nv; k++) names[k] = kf_problem_value_name(p, k);
    char known[512];
    kf_join_names(names, nv, 24, known, sizeof known);
    free(names);
    return kf_perr(c, jp, "unknown value '%s' (known: %s)", s, nv ? known : "none");
}

static int parse_operands(kf_pctx *c, const kf_jpath *jp, json_object *o, kf_problem *p,
                          kf_node *nd, const kf_op_info *oi)
{
    kf_jpath ip = kf_jp_key(jp, "in");
    json_object *a;
    if (!json_object_object_get_ex(o, "in", &a))
        return kf_perr(c, &ip, "missing ('%s' takes: %s)", oi->name, oi->inputs_doc);
    if (!json_object_is_type(a, json_type_array))
        return kf_perr(c, &ip, "must be an array of value names, got %s", kf_json_type_word(a));
    int n = (int)json_object_array_length(a);
    if (n < oi->min_in || n > oi->max_in || (nd->op == KF_OP_BATCH_NORM && n == 4)) {
        if (oi->min_in == oi->max_in)
            return kf_perr(c, &ip, "'%s' takes %d operand%s (%s), got %d", oi->name, oi->min_in,
                           oi->min_in == 1 ? "" : "s", oi->inputs_doc, n);
        return kf_perr(c, &ip, "'%s' takes %s%s, got %d operand%s", oi->name, oi->inputs_doc,
                       nd->op == KF_OP_BATCH_NORM ? " (1, 2, 3 or 5 operands)" : "", n,
                       n == 1 ? "" : "s");
    }
    nd->n_in = n;
    int n_scalars = 0;
    /* the node itself is not yet visible: find_value only sees earlier values */
    for (int k = 0; k < n; k++) {
        kf_jpath kp = kf_jp_idx(&ip, k);
        json_object *v = json_object_array_get_idx(a, (size_t)k);
        kf_operand *op = &nd->in[k];
        if (json_object_is_type(v, json_type_string)) {
            const char *s = json_object_get_string(v);
            int id = kf_problem_find_value(p, s);
            if (id < 0) return unknown_value(c, &kp, p, s);
            op->value = id;
        } else if (json_object_is_type(v, json_type_int) || json_object_is_type(v, json_type_double)) {
            if (oi->kind != KF_KIND_BINARY)
                return kf_perr(c, &kp, "'%s' needs a tensor here, got the number %s (numbers are allowed only as operands of add, sub, mul, div, maximum, minimum, pow)",
                               oi->name, json_object_to_json_string(v));
            op->is_scalar = 1;
            op->value = -1;
            op->scalar = json_object_get_double(v);
            if (!isfinite(op->scalar)) return kf_perr(c, &kp, "must be a finite number");
            n_scalars++;
        } else {
            return kf_perr(c, &kp, "must be a value name%s, got %s",
                           oi->kind == KF_KIND_BINARY ? " or a number" : "", kf_json_type_word(v));
        }
    }
    if (oi->kind == KF_KIND_BINARY && n_scalars == n)
        return kf_perr(c, &ip, "'%s' needs at least one tensor operand, got two numbers (fold the constant by hand)",
                       oi->name);
    return 0;
}

static int parse_node(kf_pctx *c, const kf_jpath *jp, json_object *o, kf_problem *p, kf_node *nd)
{
    if (!json_object_is_type(o, json_type_object))
        return kf_perr(c, jp, "must be a node object {\"out\": ..., \"op\": ..., \"in\": [...]}, got %s",
                       kf_json_type_word(o));
    const char *opname = NULL, *out = NULL;
    if (kf_get_string(c, jp, o, "op", 1, &opname) < 0) return -1;
    nd->op = kf_op_from_name(opname);
    if (nd->op == KF_OP_INVALID) {
        kf_jpath opp = kf_jp_key(jp, "op");
        const char *names[KF_OP__COUNT + 8];
        int nn = kf_op_all_names(names, KF_OP__COUNT + 8);
        const char *s = kf_suggest(opname, names, nn);
        if (s) return kf_perr(c, &opp, "unknown op '%s' (did you mean '%s'?)", opname, s);
        char known[1024];
        kf_join_names(names, nn, 64, known, sizeof known);
        return kf_perr(c, &opp, "unknown op '%s' (known: %s)", opname, known);
    }
    const kf_op_info *oi = kf_op_info_get(nd->op);
    const char *allowed[3 + KF_OP_MAX_ATTRS + 1] = {"out", "op", "in"};
    int na = 3;
    for (int k = 0; oi->attrs[k]; k++) allowed[na++] = oi->attrs[k];
    allowed[na] = NULL;
    char what[64];
    snprintf(what, sizeof what, "op '%s'", oi->name);
    if (kf_check_keys(c, jp, o, allowed, what) < 0) return -1;

    if (kf_get_string(c, jp, o, "out", 1, &out) < 0) return -1;
    kf_jpath outp = kf_jp_key(jp, "out");
    if (kf_problem_check_new_value(c, &outp, p, out) < 0) return -1;
    if (parse_operands(c, jp, o, p, nd, oi) < 0) return -1;
    if (parse_attrs(c, jp, o, p, nd) < 0) return -1;
    if (nd->op == KF_OP_BATCH_NORM && !nd->training && nd->n_in < 5)
        return kf_perr(c, jp, "batch_norm in evaluation mode (\"training\": false) needs running_mean and running_var: in = [x, weight, bias, running_mean, running_var]");
    if (!(nd->out = strdup(out)))
        return kf_fail(c->err, KF_E_INTERNAL, "%s: out of memory", c->label);
    return 0;
}

int kf_parse_graph(kf_pctx *c, json_object *root, kf_problem *p)
{
    kf_jpath jp = kf_jp_key(NULL, "graph");
    json_object *a;
    if (!json_object_object_get_ex(root, "graph", &a))
        return kf_perr(c, &jp, "missing (this field is required: an array of nodes)");
    if (!json_object_is_type(a, json_type_array))
        return kf_perr(c, &jp, "must be an array of nodes, got %s", kf_json_type_word(a));
    int n = (int)json_object_array_length(a);
    if (n == 0 && !p->c_reference)
        return kf_perr(c, &jp, "is empty: give at least one node (or a c_reference)");
    c->graph = a;
    p->nodes = calloc((size_t)n + 1, sizeof *p->nodes);
    if (!p->nodes) return kf_fail(c->err, KF_E_INTERNAL, "%s: out of memory", c->label);
    for (int i = 0; i < n; i++) {
        kf_jpath ip = kf_jp_idx(&jp, i);
        if (parse_node(c, &ip, json_object_array_get_idx(a, (size_t)i), p, &p->nodes[i]) < 0) {
            p->n_nodes = i + 1;   /* so that kf_problem_free frees what node i holds */
            return -1;
        }
        p->n_nodes = i + 1;
    }
    c->graph = NULL;
    return 0;
}
