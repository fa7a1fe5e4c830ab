/*
 * reference.c — evaluates a resolved problem's op graph in double
 * precision by dispatching each node to the kernels of ref_*.c.
 *
 * kf_reference_eval keeps every value.  kf_reference_outputs evaluates
 * only the nodes the outputs depend on, converts inputs to double when
 * first read, frees each intermediate after its last reader (value
 * liveness) and lets elementwise ops overwrite a dying operand in place,
 * so that peak memory stays near the few largest live values.
 */
#include <config.h>

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reference.h"
#include "ref_internal.h"

typedef struct ev {
    const kf_resolved *r;
    const kf_problem *p;
    const float *const *inputs;
    double **vals;
    int n_threads;
    int liveness;        /* outputs mode: free dead values, reuse buffers */
    int *last_use;       /* per value: last node reading it; INT_MAX if an output */
    kf_error *err;
} ev;

static const char *label(const kf_problem *p)
{
    return p->path ? p->path : (p->name ? p->name : "problem");
}

static const char *value_name(const kf_problem *p, int v)
{
    const char *n = kf_problem_value_name(p, v);
    return n ? n : "?";
}

static double *alloc_value(ev *e, int v)
{
    int64_t n = kf_ref_elems(&e->r->shapes[v]);
    double *d = malloc(sizeof(double) * (size_t)(n > 0 ? n : 1));
    if (!d) {
        char s[96];
        kf_fail(e->err, KF_E_INTERNAL, "%s: out of memory for value '%s' %s (%.0f MiB of doubles); "
                "use a smaller preset", label(e->p), value_name(e->p, v),
                kf_ref_shape_str(&e->r->shapes[v], s, sizeof s),
                (double)n * 8.0 / 1048576.0);
    }
    return d;
}

typedef struct cvt_job {
    const float *src;
    double *dst;
} cvt_job;

static void cvt_range(void *ctx, long begin, long end)
{
    const cvt_job *c = ctx;
    for (long i = begin; i < end; i++)
        c->dst[i] = (double)c->src[i];
}

/* The double array of value v, converting an input on first use. */
static double *get_value(ev *e, int v)
{
    if (e->vals[v] || v >= e->p->n_inputs)
        return e->vals[v];
    double *d = alloc_value(e, v);
    if (!d)
        return NULL;
    cvt_job c = {e->inputs[v], d};
    kf_parallel((long)kf_ref_elems(&e->r->shapes[v]), 1L << 16, e->n_threads, cvt_range, &c);
    e->vals[v] = d;
    return d;
}

/* An operand's data and shape; scalars point at the node's literal. */
typedef struct opnd {
    const double *d;
    kf_shape s;
    int value;           /* -1 for a scalar */
} opnd;

static int fetch(ev *e, int j, const kf_node *nd, int i, opnd *o)
{
    const kf_operand *in = &nd->in[i];
    if (in->is_scalar) {
        o->d = &in->scalar;
        o->s.rank = 0;
        o->value = -1;
        return 0;
    }
    int v = in->value;
    if (v < 0 || v >= e->p->n_inputs + j)
        return kf_fail(e->err, KF_E_BAD_INPUT, "%s: graph[%d].in[%d]: value %d is not defined before this node",
                       label(e->p), j, i, v);
    o->value = v;
    o->s = e->r->shapes[v];
    o->d = get_value(e, v);
    return o->d ? 0 : -1;
}

/* Whether node j may write its result over operand o (dies here, not an
 * output, same shape as the result). */
static int can_reuse(const ev *e, int j, const opnd *o, const kf_shape *sy)
{
    if (!e->liveness || o->value < 0 || e->last_use[o->value] != j)
        return 0;
    if (o->s.rank != sy->rank)
        return 0;
    for (int k = 0; k < sy->rank; k++)
        if (o->s.d[k] != sy->d[k])
            return 0;
    return 1;
}

static int check_len(ev *e, const opnd *o, int64_t want, const char *what)
{
    char s[96];
    if (o->value < 0 || kf_ref_elems(&o->s) != want)
        return kf_fail(e->err, KF_E_BAD_INPUT, "%s must be a tensor of %lld elements, got %s", what,
                       (long long)want, o->value < 0 ? "a scalar" : kf_ref_shape_str(&o->s, s, sizeof s));
    return 0;
}

#define OPT(i) (nd->n_in > (i) ? o[i].d : NULL)

/* Runs node j with operands o[] into y (preallocated or aliased). */
static int run_node(ev *e, const kf_node *nd, opnd *o, double *y, const kf_shape *sy)
{
    int nt = e->n_threads;
    kf_error *err = e->err;
    kf_op op = nd->op;
    for (int i = 0; i < nd->n_in; i++)
        if (o[i].value < 0 && (op < KF_OP_ADD || op > KF_OP_POW))
            return kf_fail(err, KF_E_BAD_INPUT, "operand %d is a number; only binary ops take numbers", i);
    switch (op) {
    case KF_OP_MATMUL:
        return kf_ref_matmul(o[0].d, &o[0].s, o[1].d, &o[1].s, nd->transpose_b, y, sy, nt, err);
    case KF_OP_LINEAR:
        return kf_ref_linear(o[0].d, &o[0].s, o[1].d, &o[1].s, OPT(2),
                             nd->n_in > 2 ? &o[2].s : NULL, y, sy, nt, err);
    case KF_OP_ADD: case KF_OP_SUB: case KF_OP_MUL: case KF_OP_DIV:
    case KF_OP_MAXIMUM: case KF_OP_MINIMUM: case KF_OP_POW:
        return kf_ref_binary(op, o[0].d, &o[0].s, o[1].d, &o[1].s, y, sy, nt, err);
    case KF_OP_SUM: case KF_OP_MEAN: case KF_OP_AMAX: case KF_OP_AMIN: case KF_OP_LOGSUMEXP:
        return kf_ref_reduce(op, o[0].d, &o[0].s, nd->dim, y, nt, err);
    case KF_OP_SOFTMAX: case KF_OP_LOG_SOFTMAX:
        return kf_ref_softmax(o[0].d, &o[0].s, nd->dim, op == KF_OP_LOG_SOFTMAX, y, nt, err);
    case KF_OP_LAYER_NORM: case KF_OP_RMS_NORM: {
        int rank = o[0].s.rank, nd_ = nd->normalized_dims;
        int64_t len = 1;
        for (int k = rank - nd_; k >= 0 && k < rank; k++)
            len *= o[0].s.d[k];
        for (int i = 1; i < nd->n_in && i < 3; i++)
            if (check_len(e, &o[i], len, i == 1 ? "weight" : "bias") < 0)
                return -1;
        return kf_ref_layer_norm(o[0].d, &o[0].s, nd_, OPT(1), OPT(2), nd->eps,
                                 op == KF_OP_RMS_NORM, y, nt, err);
    }
    case KF_OP_GROUP_NORM: case KF_OP_INSTANCE_NORM: case KF_OP_BATCH_NORM: {
        int rank = o[0].s.rank;
        int64_t C = op == KF_OP_INSTANCE_NORM && rank == 2 ? o[0].s.d[0]
                                                           : (rank >= 2 ? o[0].s.d[1] : 0);
        static const char *const what[] = {"x", "weight", "bias", "running_mean", "running_var"};
        for (int i = 1; i < nd->n_in && i < 5; i++)
            if (check_len(e, &o[i], C, what[i]) < 0)
                return -1;
        if (op == KF_OP_GROUP_NORM)
            return kf_ref_group_norm(o[0].d, &o[0].s, nd->groups, OPT(1), OPT(2), nd->eps, y,
                                     nt, err);
        if (op == KF_OP_INSTANCE_NORM)
            return kf_ref_instance_norm(o[0].d, &o[0].s, OPT(1), OPT(2), nd->eps, y, nt, err);
        return kf_ref_batch_norm(o[0].d, &o[0].s, OPT(1), OPT(2), OPT(3), OPT(4), nd->training,
                                 nd->eps, y, nt, err);
    }
    case KF_OP_VIEW: case KF_OP_RESHAPE: case KF_OP_FLATTEN: case KF_OP_SQUEEZE:
    case KF_OP_UNSQUEEZE:        /* same elements, same row-major order */
        if (kf_ref_elems(&o[0].s) != kf_ref_elems(sy))
            return kf_fail(err, KF_E_INTERNAL, "%s changes the element count", kf_op_name(op));
        memcpy(y, o[0].d, sizeof(double) * (size_t)kf_ref_elems(sy));
        return 0;
    case KF_OP_MAX_POOL1D: case KF_OP_AVG_POOL1D:
        return kf_ref_pool1d(op, o[0].d, &o[0].s, nd->kernel_size, nd->stride, nd->padding, y,
                             sy, nt, err);
    default:
        if (op >= KF_OP_RELU && op <= KF_OP_DROPOUT)
            return kf_ref_unary(op, nd, o[0].d, y, kf_ref_elems(sy), nt, err);
        return kf_fail(err, KF_E_BAD_INPUT, "op %d has no reference implementation", (int)op);
    }
}

static int eval_node(ev *e, int j)
{
    const kf_node *nd = &e->p->nodes[j];
    int vout = e->p->n_inputs + j;
    const kf_shape *sy = &e->r->shapes[vout];
    opnd o[6];
    int n_in = nd->n_in < 6 ? nd->n_in : 6;
    for (int i = 0; i < n_in; i++)
        if (fetch(e, j, nd, i, &o[i]) < 0)
            return -1;
    /* elementwise ops may overwrite an operand that dies here */
    double *y = NULL;
    int reused = -1;
    int elementwise = (nd->op >= KF_OP_ADD && nd->op <= KF_OP_DROPOUT);
    for (int i = 0; elementwise && i < n_in && reused < 0; i++)
        if (can_reuse(e, j, &o[i], sy))
            reused = i;
    if (reused >= 0) {
        y = e->vals[o[reused].value];
        e->vals[o[reused].value] = NULL;      /* ownership moves to vout */
    } else if (!(y = alloc_value(e, vout))) {
        return -1;
    }
    e->vals[vout] = y;
    if (run_node(e, nd, o, y, sy) < 0) {
        char msg[KF_ERROR_MAX];
        snprintf(msg, sizeof msg, "%s", e->err ? e->err->msg : "");
        return kf_fail(e->err, e->err && e->err->kind ? e->err->kind : KF_E_BAD_INPUT,
                       "%s: graph[%d] ('%s'): %s", label(e->p), j, nd->out ? nd->out : "?", msg);
    }
    if (e->liveness)
        for (int i = 0; i < n_in; i++) {
            int v = o[i].value;
            if (v >= 0 && e->last_use[v] == j && e->vals[v]) {
                free(e->vals[v]);
                e->vals[v] = NULL;
            }
        }
    return 0;
}

static int check_problem(const kf_resolved *r, kf_error *err)
{
    const kf_problem *p = r->problem;
    if (p->n_nodes == 0 && p->c_reference)
        return kf_fail(err, KF_E_BAD_INPUT, "%s: the problem carries only a C reference; the double "
                       "reference evaluates op graphs (add a \"graph\")", label(p));
    return 0;
}

static void free_values(double **vals, int nv)
{
    for (int v = 0; v < nv; v++) {
        free(vals[v]);
        vals[v] = NULL;
    }
}

int kf_reference_eval(const kf_resolved *r, const float *const *inputs,
                      double **values, int n_threads, kf_error *err)
{
    const kf_problem *p = r->problem;
    int nv = kf_problem_n_values(p);
    for (int v = 0; v < nv; v++)
        values[v] = NULL;
    if (check_problem(r, err) < 0)
        return -1;
    ev e = {r, p, inputs, values, n_threads, 0, NULL, err};
    for (int v = 0; v < p->n_inputs; v++)
        if (!get_value(&e, v))
            goto fail;
    for (int j = 0; j < p->n_nodes; j++)
        if (eval_node(&e, j) < 0)
            goto fail;
    return 0;
fail:
    free_values(values, nv);
    return -1;
}

int kf_reference_outputs(const kf_resolved *r, const float *const *inputs,
                         double **outputs, int n_threads, kf_error *err)
{
    const kf_problem *p = r->problem;
    int nv = kf_problem_n_values(p);
    for (int o = 0; o < p->n_outputs; o++)
        outputs[o] = NULL;
    if (check_problem(r, err) < 0)
        return -1;
    double **vals = calloc((size_t)nv + 1, sizeof *vals);
    int *last_use = malloc(sizeof(int) * ((size_t)nv + 1));
    char *needed = calloc((size_t)nv + 1, 1);
    if (!vals || !last_use || !needed) {
        free(vals);
        free(last_use);
        free(needed);
        return kf_fail(err, KF_E_INTERNAL, "%s: out of memory", label(p));
    }
    /* which values the outputs need, then each needed value's last reader */
    for (int o = 0; o < p->n_outputs; o++)
        if (p->outputs[o] >= 0 && p->outputs[o] < nv)
            needed[p->outputs[o]] = 1;
    for (int j = p->n_nodes - 1; j >= 0; j--)
        if (needed[p->n_inputs + j])
            for (int i = 0; i < p->nodes[j].n_in; i++)
                if (!p->nodes[j].in[i].is_scalar && p->nodes[j].in[i].value >= 0 &&
                    p->nodes[j].in[i].value < nv)
                    needed[p->nodes[j].in[i].value] = 1;
    for (int v = 0; v < nv; v++)
        last_use[v] = -1;
    for (int j = 0; j < p->n_nodes; j++)
        if (needed[p->n_inputs + j])
            for (int i = 0; i < p->nodes[j].n_in; i++)
                if (!p->nodes[j].in[i].is_scalar && p->nodes[j].in[i].value >= 0 &&
                    p->nodes[j].in[i].value < nv)
                    last_use[p->nodes[j].in[i].value] = j;
    for (int o = 0; o < p->n_outputs; o++)
        if (p->outputs[o] >= 0 && p->outputs[o] < nv)
            last_use[p->outputs[o]] = INT_MAX;
    ev e = {r, p, inputs, vals, n_threads, 1, last_use, err};
    int rc = 0;
    for (int j = 0; j < p->n_nodes && rc == 0; j++)
        if (needed[p->n_inputs + j])
            rc = eval_node(&e, j);
    for (int o = 0; o < p->n_outputs && rc == 0; o++) {
        int v = p->outputs[o];
        if (v < 0 || v >= nv) {
            rc = kf_fail(err, KF_E_BAD_INPUT, "%s: outputs[%d]: value %d does not exist", label(p), o, v);
            break;
        }
        if (!get_value(&e, v)) {
            rc = -1;
            break;
        }
        int later = 0;
        for (int o2 = o + 1; o2 < p->n_outputs; o2++)
            later |= p->outputs[o2] == v;
        if (!later) {                      /* last output naming v takes the buffer */
            outputs[o] = vals[v];
            vals[v] = NULL;
        } else {
            size_t bytes = sizeof(double) * (size_t)kf_ref_elems(&r->shapes[v]);
            outputs[o] = malloc(bytes ? bytes : 1);
            if (!outputs[o]) {
                rc = kf_fail(err, KF_E_INTERNAL, "%s: out of memory copying output '%s'", label(p),
                             value_name(p, v));
                break;
            }
            memcpy(outputs[o], vals[v], bytes);
        }
    }
    free_values(vals, nv);
    free(vals);
    free(last_use);
    free(needed);
    if (rc < 0)
        for (int o = 0; o < p->n_outputs; o++) {
            free(outputs[o]);
            outputs[o] = NULL;
        }
    return rc;
}
