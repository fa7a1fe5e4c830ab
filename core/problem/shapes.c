/*
 * shapes.c — resolving a problem for one preset: the concrete shape of
 * every value with PyTorch's rules (broadcasting, batched matmul, keepdim,
 * negative dims, norms, pooling windows), the nominal FLOP count and the
 * fewest bytes a kernel must move (problems/FORMAT.md, "FLOPs and bytes").
 *
 * FLOPs: matmul 2*batch*M*N*K; linear 2*M*N*K (+ M*N with a bias); every
 * other op max(elements it produces, elements of its largest tensor operand).
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kforge-plugin.h"
#include "problem_internal.h"

#define MAX_ELEMS ((int64_t)1 << 48)

int64_t kf_shape_elems(const kf_shape *s)
{
    int64_t n = 1;
    for (int i = 0; i < s->rank; i++) n *= s->d[i];
    return n;
}

/* Element count in double: never overflows, for range checks. */
static double elems_d(const kf_shape *s)
{
    double n = 1;
    for (int i = 0; i < s->rank; i++) n *= (double)s->d[i];
    return n;
}

typedef struct rctx {
    const kf_problem *p;
    int preset;
    kf_error *err;
    const kf_shape *vals;      /* shapes of the values defined so far */
    int node;
} rctx;

/* "LABEL: graph[i]SUB: message (preset 'P')" */
static int serr(rctx *c, const char *sub, const char *fmt, ...) KF_PRINTF(3, 4);
static int serr(rctx *c, const char *sub, const char *fmt, ...)
{
    char msg[KF_ERROR_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return kf_fail(c->err, KF_E_BAD_INPUT, "%s: graph[%d]%s: %s (preset '%s')",
                   c->p->path ? c->p->path : "<problem>", c->node, sub ? sub : "", msg,
                   c->p->preset_names[c->preset]);
}

/* "x [127, 250]" for operand k of the current node (static buffer per slot). */
static const char *desc(rctx *c, int k)
{
    static _Thread_local char buf[6][160];
    const kf_operand *o = &c->p->nodes[c->node].in[k];
    char sh[96];
    if (o->is_scalar) snprintf(buf[k], sizeof buf[k], "%g", o->scalar);
    else snprintf(buf[k], sizeof buf[k], "%s %s", kf_problem_value_name(c->p, o->value),
                  kf_shape_fmt(&c->vals[o->value], sh, sizeof sh));
    return buf[k];
}

static kf_shape operand_shape(rctx *c, int k)
{
    const kf_operand *o = &c->p->nodes[c->node].in[k];
    kf_shape s = {0, {0}};
    if (!o->is_scalar) s = c->vals[o->value];
    return s;
}

/* Broadcasts a and b (right-aligned) into out; on mismatch returns the
 * failing dim counted from the end (-1, -2, ...), else 0. */
static int broadcast(const int64_t *a, int ra, const int64_t *b, int rb, int64_t *out, int *rout)
{
    int r = ra > rb ? ra : rb;
    for (int i = 1; i <= r; i++) {
        int64_t x = i <= ra ? a[ra - i] : 1, y = i <= rb ? b[rb - i] : 1;
        if (x != y && x != 1 && y != 1) return -i;
        out[r - i] = x == 1 ? y : x;
    }
    *rout = r;
    return 0;
}

static int need_rank(rctx *c, int k, int lo, int hi, const char *what)
{
    kf_shape s = operand_shape(c, k);
    if (s.rank >= lo && s.rank <= hi) return 0;
    char sub[16];
    snprintf(sub, sizeof sub, ".in[%d]", k);
    if (lo == hi)
        return serr(c, sub, "%s needs %s of rank %d, got %s", kf_op_name(c->p->nodes[c->node].op),
                    what, lo, desc(c, k));
    return serr(c, sub, "%s needs %s of rank %d..%d, got %s", kf_op_name(c->p->nodes[c->node].op),
                what, lo, hi, desc(c, k));
}

static int infer_matmul(rctx *c, const kf_node *nd, kf_shape *out, double *flops)
{
    if (need_rank(c, 0, 1, 4, "a") || need_rank(c, 1, 1, 4, "b")) return -1;
    kf_shape a = operand_shape(c, 0), b = operand_shape(c, 1);
    if (nd->transpose_b && b.rank < 2)
        return serr(c, ".in[1]", "transpose_b needs b of rank >= 2, got %s", desc(c, 1));
    int64_t ka = a.d[a.rank - 1], m = a.rank >= 2 ? a.d[a.rank - 2] : 1;
    int64_t kb, n;
    if (b.rank == 1) { kb = b.d[0]; n = 1; }
    else if (nd->transpose_b) { n = b.d[b.rank - 2]; kb = b.d[b.rank - 1]; }
    else { kb = b.d[b.rank - 2]; n = b.d[b.rank - 1]; }
    if (ka != kb)
        return serr(c, ".in[1]", "matmul inner dims differ: a %s has K = %" PRId64 " (last dim) but b %s has %" PRId64 " (dim %d)%s",
                    desc(c, 0), ka, desc(c, 1), kb,
                    b.rank == 1 ? 0 : (nd->transpose_b ? -1 : -2),
                    nd->transpose_b ? "" : b.rank >= 2 && b.d[b.rank - 1] == ka ? "; b looks like (N, K): set \"transpose_b\": true" : "");
    int rba = a.rank >= 2 ? a.rank - 2 : 0, rbb = b.rank >= 2 ? b.rank - 2 : 0, rb = 0;
    int64_t batch[KF_MAX_RANK];
    int bad = broadcast(a.d, rba, b.d, rbb, batch, &rb);
    if (bad)
        return serr(c, "", "matmul batch dims do not broadcast: a %s, b %s (batch dim %d)",
                    desc(c, 0), desc(c, 1), bad);
    out->rank = 0;
    for (int i = 0; i < rb; i++) out->d[out->rank++] = batch[i];
    if (a.rank >= 2) out->d[out->rank++] = m;
    if (b.rank >= 2) out->d[out->rank++] = n;
    double nb = 1;
    for (int i = 0; i < rb; i++) nb *= (double)batch[i];
    *flops = 2.0 * nb * (double)m * (double)n * (double)ka;
    return 0;
}

static int infer_linear(rctx *c, const kf_node *nd, kf_shape *out, double *flops)
{
    if (need_rank(c, 0, 1, 4, "x") || need_rank(c, 1, 2, 2, "W")) return -1;
    kf_shape x = operand_shape(c, 0), w = operand_shape(c, 1);
    int64_t k = x.d[x.rank - 1], n = w.d[0];
    if (w.d[1] != k)
        return serr(c, ".in[1]", "linear weight must be (N, K) with K = %" PRId64 " (the last dim of %s), got %s",
                    k, desc(c, 0), desc(c, 1));
    if (nd->n_in == 3) {
        kf_shape b = operand_shape(c, 2);
        if (b.rank != 1 || b.d[0] != n)
            return serr(c, ".in[2]", "linear bias must be (N) with N = %" PRId64 " (dim 0 of %s), got %s",
                        n, desc(c, 1), desc(c, 2));
    }
    *out = x;
    out->d[x.rank - 1] = n;
    double m = (double)kf_shape_elems(&x) / (double)k;
    *flops = 2.0 * m * (double)n * (double)k + (nd->n_in == 3 ? m * (double)n : 0.0);
    return 0;
}

static int infer_binary(rctx *c, kf_shape *out)
{
    kf_shape a = operand_shape(c, 0), b = operand_shape(c, 1);
    int bad = broadcast(a.d, a.rank, b.d, b.rank, out->d, &out->rank);
    if (bad)
        return serr(c, "", "cannot broadcast %s with %s: dim %d is %" PRId64 " vs %" PRId64,
                    desc(c, 0), desc(c, 1), bad, a.d[a.rank + bad], b.d[b.rank + bad]);
    return 0;
}

static int norm_dim(rctx *c, int dim, int rank, int *outd)
{
    if (rank == 0)
        return serr(c, ".in[0]", "%s needs a tensor of rank >= 1, got %s",
                    kf_op_name(c->p->nodes[c->node].op), desc(c, 0));
    if (dim < -rank || dim >= rank)
        return serr(c, ".dim", "dim %d is out of range for %s of rank %d (valid: %d..%d)",
                    dim, desc(c, 0), rank, -rank, rank - 1);
    *outd = dim < 0 ? dim + rank : dim;
    return 0;
}

/* weight/bias/running stats operand k must have exactly `want` shape */
static int need_shape(rctx *c, int k, const int64_t *want, int rank, const char *role)
{
    kf_shape s = operand_shape(c, k);
    int ok = s.rank == rank;
    for (int i = 0; ok && i < rank; i++) ok = s.d[i] == want[i];
    if (ok) return 0;
    kf_shape w = {rank, {0}};
    memcpy(w.d, want, sizeof(int64_t) * (size_t)rank);
    char sub[16], ws[96];
    snprintf(sub, sizeof sub, ".in[%d]", k);
    return serr(c, sub, "%s %s must have shape %s to match %s", kf_op_name(c->p->nodes[c->node].op),
                role, kf_shape_fmt(&w, ws, sizeof ws), desc(c, 0));
}

static int infer_norm(rctx *c, const kf_node *nd, kf_shape *out)
{
    kf_shape x = operand_shape(c, 0);
    static const char *const roles[] = {"x", "weight", "bias", "running_mean", "running_var"};
    *out = x;
    switch (nd->op) {
    case KF_OP_LAYER_NORM: case KF_OP_RMS_NORM: {
        if (need_rank(c, 0, 1, 4, "x")) return -1;
        if (nd->normalized_dims > x.rank)
            return serr(c, ".normalized_dims", "normalized_dims %d exceeds the rank of %s",
                        nd->normalized_dims, desc(c, 0));
        const int64_t *tail = x.d + x.rank - nd->normalized_dims;
        for (int k = 1; k < nd->n_in; k++)
            if (need_shape(c, k, tail, nd->normalized_dims, roles[k])) return -1;
        return 0;
    }
    case KF_OP_GROUP_NORM:
        if (need_rank(c, 0, 2, 4, "x (N, C, ...)")) return -1;
        if (x.d[1] % nd->groups)
            return serr(c, ".groups", "group_norm channels C = %" PRId64 " (dim 1 of %s) are not divisible by groups = %d",
                        x.d[1], desc(c, 0), nd->groups);
        for (int k = 1; k < nd->n_in; k++)
            if (need_shape(c, k, &x.d[1], 1, roles[k])) return -1;
        return 0;
    case KF_OP_INSTANCE_NORM:
        return need_rank(c, 0, 2, 4, "x (C, L), (N, C, L) or (N, C, H, W)");
    case KF_OP_BATCH_NORM:
        if (need_rank(c, 0, 2, 4, "x (N, C), (N, C, L) or (N, C, H, W)")) return -1;
        for (int k = 1; k < nd->n_in; k++)
            if (need_shape(c, k, &x.d[1], 1, roles[k])) return -1;
        return 0;
    default:
        return serr(c, "", "internal error: not a norm");
    }
}

static int infer_pool(rctx *c, const kf_node *nd, kf_shape *out)
{
    if (need_rank(c, 0, 1, 4, "x")) return -1;
    kf_shape x = operand_shape(c, 0);
    int64_t len = x.d[x.rank - 1] + 2 * (int64_t)nd->padding;
    if (len < nd->kernel_size)
        return serr(c, ".kernel_size", "kernel_size %d is larger than the input length %" PRId64 " (last dim of %s, padding %d)",
                    nd->kernel_size, x.d[x.rank - 1], desc(c, 0), nd->padding);
    *out = x;
    out->d[x.rank - 1] = (len - nd->kernel_size) / nd->stride + 1;
    return 0;
}

/* A dim of x (rank `rank`) given as written, possibly negative; `extra` = 1
 * where one past the end is valid (unsqueeze). */
static int shape_dim(rctx *c, const char *key, int dim, int rank, int extra, int *outd)
{
    int n = rank + extra;
    if (n == 0) n = 1;                 /* a 0-d tensor takes dim 0 / -1, as in PyTorch */
    if (dim < -n || dim >= n)
        return serr(c, key, "%s %d is out of range for %s (valid: %d..%d)",
                    key + 1, dim, desc(c, 0), -n, n - 1);
    *outd = dim < 0 ? dim + n : dim;
    return 0;
}

/* view/reshape/flatten/squeeze/unsqueeze: the same elements in row-major
 * order under a new shape. */
static int infer_shape_op(rctx *c, const kf_node *nd, kf_shape *out)
{
    kf_shape x = operand_shape(c, 0);
    int64_t n = kf_shape_elems(&x);
    int d = 0;
    char ws[96];
    switch (nd->op) {
    case KF_OP_VIEW: case KF_OP_RESHAPE: {
        const kf_shape_expr *e = &nd->view;
        int inferred = -1;
        int64_t known = 1;
        out->rank = e->rank;
        for (int i = 0; i < e->rank; i++) {
            out->d[i] = e->dim_index[i] >= 0 ? c->p->preset_values[(size_t)c->preset * (size_t)c->p->n_dims + (size_t)e->dim_index[i]]
                                             : e->literal[i];
            if (out->d[i] == -1) inferred = i;
            else if (__builtin_mul_overflow(known, out->d[i], &known) || known > MAX_ELEMS)
                return serr(c, ".shape", "%s %s has more than 2^48 elements; use smaller sizes",
                            kf_op_name(nd->op), nd->view_text);
        }
        if (inferred >= 0) {
            if (known == 0 || n % known)
                return serr(c, ".shape", "cannot %s %s (%" PRId64 " elements) as %s: %" PRId64 " is not a multiple of %" PRId64,
                            kf_op_name(nd->op), desc(c, 0), n, nd->view_text, n, known);
            out->d[inferred] = n / known;
        } else if (known != n) {
            return serr(c, ".shape", "cannot %s %s (%" PRId64 " elements) as %s = %s (%" PRId64 " elements): the element counts must match",
                        kf_op_name(nd->op), desc(c, 0), n, nd->view_text, kf_shape_fmt(out, ws, sizeof ws), known);
        }
        return 0;
    }
    case KF_OP_FLATTEN: {
        int s0 = 0, s1 = 0;
        if (shape_dim(c, ".start_dim", nd->sdim, x.rank, 0, &s0) || shape_dim(c, ".end_dim", nd->sdim2, x.rank, 0, &s1))
            return -1;
        if (x.rank == 0) { out->rank = 1; out->d[0] = 1; return 0; }
        if (s0 > s1)
            return serr(c, ".start_dim", "flatten start_dim %d comes after end_dim %d for %s",
                        nd->sdim, nd->sdim2, desc(c, 0));
        out->rank = 0;
        for (int i = 0; i < s0; i++) out->d[out->rank++] = x.d[i];
        int64_t m = 1;
        for (int i = s0; i <= s1; i++) m *= x.d[i];
        out->d[out->rank++] = m;
        for (int i = s1 + 1; i < x.rank; i++) out->d[out->rank++] = x.d[i];
        return 0;
    }
    case KF_OP_SQUEEZE:
        out->rank = 0;
        if (nd->has_sdim) {
            if (shape_dim(c, ".dim", nd->sdim, x.rank, 0, &d)) return -1;
            for (int i = 0; i < x.rank; i++)       /* a dim of size != 1 stays, as in PyTorch */
                if (i != d || x.d[i] != 1) out->d[out->rank++] = x.d[i];
        } else {
            for (int i = 0; i < x.rank; i++)
                if (x.d[i] != 1) out->d[out->rank++] = x.d[i];
        }
        return 0;
    case KF_OP_UNSQUEEZE:
        if (shape_dim(c, ".dim", nd->sdim, x.rank, 1, &d)) return -1;
        if (x.rank + 1 > KF_MAX_RANK)
            return serr(c, "", "unsqueeze of %s would have rank %d (at most %d dims)", desc(c, 0),
                        x.rank + 1, KF_MAX_RANK);
        out->rank = 0;
        for (int i = 0; i <= x.rank; i++) {
            if (i == d) out->d[out->rank++] = 1;
            if (i < x.rank) out->d[out->rank++] = x.d[i];
        }
        return 0;
    default:
        return serr(c, "", "internal error: not a shape op");
    }
}

static int infer_node(rctx *c, const kf_node *nd, kf_shape *out, double *flops)
{
    const kf_op_info *oi = kf_op_info_get(nd->op);
    if (!oi) return serr(c, ".op", "invalid op");
    *flops = -1;
    int rc = 0;
    switch (oi->kind) {
    case KF_KIND_CONTRACTION:
        rc = nd->op == KF_OP_MATMUL ? infer_matmul(c, nd, out, flops) : infer_linear(c, nd, out, flops);
        break;
    case KF_KIND_BINARY:
        rc = infer_binary(c, out);
        break;
    case KF_KIND_UNARY:
        *out = operand_shape(c, 0);
        break;
    case KF_KIND_REDUCTION: case KF_KIND_SOFTMAX: {
        kf_shape x = operand_shape(c, 0);
        int d = 0;
        if (norm_dim(c, nd->dim, x.rank, &d)) return -1;
        *out = x;
        if (oi->kind == KF_KIND_REDUCTION) {
            if (nd->keepdim) out->d[d] = 1;
            else {
                for (int i = d; i + 1 < x.rank; i++) out->d[i] = x.d[i + 1];
                out->rank--;
            }
        }
        break;
    }
    case KF_KIND_NORM:
        rc = infer_norm(c, nd, out);
        break;
    case KF_KIND_POOL:
        rc = infer_pool(c, nd, out);
        break;
    case KF_KIND_SHAPE:
        rc = infer_shape_op(c, nd, out);
        *flops = 0;              /* no arithmetic, and no data moved when fused away */
        break;
    }
    if (rc) return rc;
    if (elems_d(out) > (double)MAX_ELEMS)
        return serr(c, "", "the result has more than 2^48 elements; use smaller sizes");
    if (*flops < 0) {
        double m = (double)kf_shape_elems(out);
        for (int k = 0; k < nd->n_in; k++) {
            kf_shape s = operand_shape(c, k);
            if ((double)kf_shape_elems(&s) > m) m = (double)kf_shape_elems(&s);
        }
        *flops = m;
    }
    return 0;
}

int kf_resolve(const kf_problem *p, int preset, kf_resolved *out, kf_error *err)
{
    memset(out, 0, sizeof *out);
    if (preset < 0 || preset >= p->n_presets)
        return kf_fail(err, KF_E_BAD_INPUT, "%s: no preset #%d (the problem has %d)",
                       p->path ? p->path : "<problem>", preset, p->n_presets);
    int nv = kf_problem_n_values(p);
    kf_shape *sh = calloc((size_t)nv + 1, sizeof *sh);
    if (!sh) return kf_fail(err, KF_E_INTERNAL, "out of memory");
    const int64_t *dims = p->preset_values + (size_t)preset * (size_t)p->n_dims;
    double bytes = 0;
    for (int i = 0; i < p->n_inputs; i++) {
        const kf_shape_expr *e = &p->inputs[i].shape;
        sh[i].rank = e->rank;
        double elems = 1;
        for (int d = 0; d < e->rank; d++) {
            sh[i].d[d] = e->dim_index[d] >= 0 ? dims[e->dim_index[d]] : e->literal[d];
            elems *= (double)sh[i].d[d];
        }
        if (elems > (double)MAX_ELEMS) {
            free(sh);
            return kf_fail(err, KF_E_BAD_INPUT, "%s: inputs[%d].shape: more than 2^48 elements (preset '%s'); use smaller sizes",
                           p->path ? p->path : "<problem>", i, p->preset_names[preset]);
        }
        bytes += 4.0 * elems;
    }
    for (int k = 0; k < p->n_declared; k++) {      /* outputs a C reference computes */
        const kf_shape_expr *e = &p->declared[k].shape;
        kf_shape *s = &sh[p->n_inputs + p->n_nodes + k];
        s->rank = e->rank;
        for (int d = 0; d < e->rank; d++)
            s->d[d] = e->dim_index[d] >= 0 ? dims[e->dim_index[d]] : e->literal[d];
        if (elems_d(s) > (double)MAX_ELEMS) {
            free(sh);
            return kf_fail(err, KF_E_BAD_INPUT, "%s: outputs: '%s' has more than 2^48 elements (preset '%s'); use smaller sizes",
                           p->path ? p->path : "<problem>", p->declared[k].name, p->preset_names[preset]);
        }
    }
    rctx c = {p, preset, err, sh, 0};
    double flops = 0;
    for (int i = 0; i < p->n_nodes; i++) {
        c.node = i;
        double f = 0;
        if (infer_node(&c, &p->nodes[i], &sh[p->n_inputs + i], &f) != 0) {
            free(sh);
            return -1;
        }
        flops += f;
    }
    for (int o = 0; o < p->n_outputs; o++)
        bytes += 4.0 * (double)kf_shape_elems(&sh[p->outputs[o]]);
    out->problem = p;
    out->preset = preset;
    out->dims = dims;
    out->shapes = sh;
    out->flops = flops;
    out->min_bytes = bytes;
    return 0;
}

void kf_resolved_free(kf_resolved *r)
{
    if (!r) return;
    free(r->shapes);
    r->shapes = NULL;
}
