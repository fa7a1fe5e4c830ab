/* builtin_ir.c — lowering a resolved problem into fusion groups (the plan
 * every built-in generator works from; see builtin.h and the design notes
 * in core/agent/builtin/builtin.h's header comment). */
#include "builtin.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

const char *kf_bt_group_kind_name(kf_bt_group_kind k)
{
    switch (k) {
    case KF_BT_GEMM: return "gemm";
    case KF_BT_ROW: return "row";
    case KF_BT_MAP: return "map";
    default: return "generic";
    }
}

int kf_bt_bcast_strides(const kf_shape *vs, const kf_shape *target, int64_t stride[KF_MAX_RANK])
{
    if (vs->rank > target->rank) return -1;
    int off = target->rank - vs->rank;
    int64_t st = 1;
    for (int d = KF_MAX_RANK - 1; d >= 0; d--) stride[d] = 0;
    for (int d = target->rank - 1; d >= 0; d--) {
        if (d < off) { stride[d] = 0; continue; }
        int64_t n = vs->d[d - off];
        if (n == target->d[d]) stride[d] = n == 1 ? 0 : st;
        else if (n == 1) stride[d] = 0;
        else return -1;
        st *= n;
    }
    return 0;
}

int kf_bt_gemm_rows_contiguous(const kf_bt_group *g)
{
    return g->kind == KF_BT_GEMM;
}

static int same_shape(const kf_shape *a, const kf_shape *b)
{
    if (a->rank != b->rank) return 0;
    for (int i = 0; i < a->rank; i++)
        if (a->d[i] != b->d[i]) return 0;
    return 1;
}

static int64_t prod(const int64_t *d, int from, int to)
{
    int64_t n = 1;
    for (int i = from; i < to; i++) n *= d[i];
    return n;
}

/* GEMM geometry of a matmul/linear node (shapes already checked by the
 * problem model). */
static void gemm_geometry(const kf_resolved *r, const kf_node *nd, kf_bt_gemm *g)
{
    memset(g, 0, sizeof *g);
    g->a = nd->in[0].value;
    g->b = nd->in[1].value;
    g->bias = -1;
    const kf_shape *a = &r->shapes[g->a], *b = &r->shapes[g->b];
    if (nd->op == KF_OP_LINEAR) {
        g->trans_b = 1;
        g->K = a->d[a->rank - 1];
        g->M = prod(a->d, 0, a->rank - 1);
        g->N = b->d[0];
        if (nd->n_in > 2 && !nd->in[2].is_scalar) g->bias = nd->in[2].value;
        g->batch = 1;
        return;
    }
    g->trans_b = nd->transpose_b;
    g->K = a->d[a->rank - 1];
    if (b->rank == 1) g->N = 1;
    else g->N = nd->transpose_b ? b->d[b->rank - 2] : b->d[b->rank - 1];
    if (b->rank <= 2) {
        /* a's leading dims are contiguous rows: fold them into M */
        g->M = a->rank >= 2 ? prod(a->d, 0, a->rank - 1) : 1;
        g->batch = 1;
        return;
    }
    g->M = a->rank >= 2 ? a->d[a->rank - 2] : 1;
    int rba = a->rank >= 2 ? a->rank - 2 : 0, rbb = b->rank - 2;
    int rb = rba > rbb ? rba : rbb;
    g->n_batch_dims = rb;
    g->batch = 1;
    int64_t sa = g->M * g->K, sb = g->K * g->N;
    for (int d = rb - 1; d >= 0; d--) {
        int da = d - (rb - rba), db = d - (rb - rbb);
        int64_t na = da >= 0 ? a->d[da] : 1, nb = db >= 0 ? b->d[db] : 1;
        int64_t n = na > nb ? na : nb;
        g->batch_dims[d] = n;
        g->batch *= n;
        g->a_bstride[d] = na == 1 ? 0 : sa;
        g->b_bstride[d] = nb == 1 ? 0 : sb;
        sa *= na;
        sb *= nb;
    }
}

static kf_bt_group_kind anchor_kind(const kf_resolved *r, const kf_node *nd)
{
    if (kf_op_is_contraction(nd->op)) return KF_BT_GEMM;
    if (kf_bt_is_map_op(nd->op) || kf_op_is_shape(nd->op)) return KF_BT_MAP;   /* shape op: a copy */
    const kf_shape *x = &r->shapes[nd->in[0].value];
    switch (nd->op) {
    case KF_OP_SUM: case KF_OP_MEAN: case KF_OP_AMAX: case KF_OP_AMIN: case KF_OP_LOGSUMEXP:
    case KF_OP_SOFTMAX: case KF_OP_LOG_SOFTMAX:
        return nd->dim == x->rank - 1 ? KF_BT_ROW : KF_BT_GENERIC;
    case KF_OP_LAYER_NORM: case KF_OP_RMS_NORM: case KF_OP_GROUP_NORM: case KF_OP_INSTANCE_NORM:
    case KF_OP_MAX_POOL1D: case KF_OP_AVG_POOL1D:
        return KF_BT_ROW;
    default:
        return KF_BT_GENERIC;   /* batch_norm */
    }
}

static void anchor_geometry(const kf_resolved *r, const kf_node *nd, kf_bt_group *g)
{
    const kf_shape *x = &r->shapes[nd->in[0].value];
    const kf_shape *y = &g->shape;
    if (g->kind == KF_BT_GEMM) {
        gemm_geometry(r, nd, &g->gemm);
    } else if (g->kind == KF_BT_ROW) {
        int tail = 1;
        if (nd->op == KF_OP_LAYER_NORM || nd->op == KF_OP_RMS_NORM) tail = nd->normalized_dims;
        if (nd->op == KF_OP_GROUP_NORM) tail = x->rank - 1;
        if (nd->op == KF_OP_INSTANCE_NORM && x->rank == 4) tail = 2;   /* (N, C, H, W): rows of H x W */
        g->row.row_len = prod(x->d, x->rank - tail, x->rank);
        g->row.rows = prod(x->d, 0, x->rank - tail);
        g->row.inner = nd->op == KF_OP_GROUP_NORM ? prod(x->d, 2, x->rank) : 1;
        int64_t ye = kf_shape_elems(y);
        g->row.out_len = g->row.rows ? ye / g->row.rows : 0;
    } else if (g->kind == KF_BT_GENERIC) {
        if (nd->op == KF_OP_BATCH_NORM) {
            g->gen.outer = x->d[0];
            g->gen.len = x->rank >= 2 ? x->d[1] : 1;
            g->gen.inner = prod(x->d, 2, x->rank);
        } else {
            g->gen.outer = prod(x->d, 0, nd->dim);
            g->gen.len = x->d[nd->dim];
            g->gen.inner = prod(x->d, nd->dim + 1, x->rank);
        }
    }
}

/* Can map node nd (defining value v) join group g? */
static int can_join(const kf_resolved *r, const kf_bt_group *g, const int *group_of,
                    const int *alias_of, int gi, const kf_node *nd, int v)
{
    if (!kf_bt_is_map_op(nd->op)) return 0;
    if (!same_shape(&r->shapes[v], &g->shape)) return 0;
    if (g->n_nodes >= KF_BT_MAX_GROUP_NODES) return 0;
    int inside = 0;
    for (int i = 0; i < nd->n_in; i++) {
        if (nd->in[i].is_scalar) continue;
        int u = nd->in[i].value;
        if (alias_of[u] >= 0 && group_of[alias_of[u]] == gi)
            return 0;   /* a view of a value this group is still writing */
        if (group_of[u] == gi) { inside = 1; continue; }
        int64_t st[KF_MAX_RANK];
        if (kf_bt_bcast_strides(&r->shapes[u], &g->shape, st) != 0) return 0;
    }
    return inside;
}

void kf_bt_plan_free(kf_bt_plan *p)
{
    if (!p) return;
    free(p->groups);
    free(p->group_of);
    free(p->alias_of);
    free(p->store);
    free(p->scratch_value);
    free(p->scratch_elems);
    memset(p, 0, sizeof *p);
}

int kf_bt_plan_build(const kf_resolved *r, kf_bt_fusion fusion, kf_bt_plan *out, kf_error *err)
{
    const kf_problem *p = r->problem;
    memset(out, 0, sizeof *out);
    if (p->n_nodes == 0)
        return kf_fail(err, KF_E_BAD_INPUT, "%s: the builtin agent needs an op graph; use an LLM agent for "
                       "c_reference problems", p->path ? p->path : p->name);
    int nv = kf_problem_n_values(p);
    out->r = r;
    out->fusion = fusion;
    out->n_values = nv;
    out->groups = calloc((size_t)p->n_nodes, sizeof *out->groups);
    out->group_of = malloc((size_t)nv * sizeof *out->group_of);
    out->alias_of = malloc((size_t)nv * sizeof *out->alias_of);
    out->store = calloc((size_t)nv, sizeof *out->store);
    out->scratch_value = malloc((size_t)nv * sizeof(int));
    out->scratch_elems = malloc((size_t)nv * sizeof(int64_t));
    if (!out->groups || !out->group_of || !out->alias_of || !out->store || !out->scratch_value || !out->scratch_elems) {
        kf_bt_plan_free(out);
        return kf_fail(err, KF_E_INTERNAL, "out of memory while planning %s", p->name);
    }
    for (int v = 0; v < nv; v++) out->group_of[v] = out->alias_of[v] = -1;
    /* out_root[r]: the output written straight from value r's group (r is
     * viewed by that output); out_of[v]: the output index naming v, or -1 */
    int *out_root = malloc((size_t)nv * sizeof *out_root), *out_of = malloc((size_t)nv * sizeof *out_of);
    if (!out_root || !out_of) {
        free(out_root);
        free(out_of);
        kf_bt_plan_free(out);
        return kf_fail(err, KF_E_INTERNAL, "out of memory while planning %s", p->name);
    }
    for (int v = 0; v < nv; v++) out_root[v] = out_of[v] = -1;
    for (int o = p->n_outputs - 1; o >= 0; o--) out_of[p->outputs[o]] = o;

    /* 1. groups.  A shape op computes nothing: its value aliases its root's
     * buffer, and an output that views a value has that value written into
     * the output.  Only when the root already has a buffer of its own (an
     * input, an output, or a value another output views) does the view of an
     * output become a copy: a map group with the shape op as its anchor. */
    for (int k = 0; k < p->n_nodes; k++) {
        const kf_node *nd = &p->nodes[k];
        int v = p->n_inputs + k;
        if (kf_op_is_shape(nd->op)) {
            int u = nd->in[0].value, root = out->alias_of[u] >= 0 ? out->alias_of[u] : u;
            if (out_of[v] < 0 || (root >= p->n_inputs && out_of[root] < 0 && out_root[root] < 0)) {
                out->alias_of[v] = root;
                if (out_of[v] >= 0) out_root[root] = out_of[v];
                continue;
            }
        }
        int gi = out->n_groups - 1;
        if (fusion != KF_BT_FUSE_NONE && gi >= 0 &&
            can_join(r, &out->groups[gi], out->group_of, out->alias_of, gi, nd, v)) {
            kf_bt_group *g = &out->groups[gi];
            g->nodes[g->n_nodes++] = k;
            g->last_value = v;
            out->group_of[v] = gi;
            continue;
        }
        kf_bt_group *g = &out->groups[out->n_groups];
        g->kind = anchor_kind(r, nd);
        g->n_nodes = 1;
        g->nodes[0] = k;
        g->shape = r->shapes[v];
        g->last_value = v;
        g->fused_into = -1;
        g->row_tail = -1;
        anchor_geometry(r, nd, g);
        out->group_of[v] = out->n_groups++;
    }

    /* 2. row tails fused into the GEMM before them */
    if (fusion == KF_BT_FUSE_ROWS) {
        for (int gi = 1; gi < out->n_groups; gi++) {
            kf_bt_group *g = &out->groups[gi], *pg = &out->groups[gi - 1];
            if (g->kind != KF_BT_ROW || pg->kind != KF_BT_GEMM || pg->row_tail >= 0) continue;
            const kf_node *an = &p->nodes[g->nodes[0]];
            if (an->in[0].value != pg->last_value) continue;
            if (g->row.row_len != pg->gemm.N || g->row.rows != pg->gemm.M * pg->gemm.batch) continue;
            int views_panel = 0;   /* a view of the GEMM's output is read whole, after it */
            for (int n = 0; n < g->n_nodes; n++)
                for (int i = 0; i < p->nodes[g->nodes[n]].n_in; i++) {
                    const kf_operand *o = &p->nodes[g->nodes[n]].in[i];
                    if (!o->is_scalar && out->alias_of[o->value] >= 0 &&
                        out->group_of[out->alias_of[o->value]] == gi - 1)
                        views_panel = 1;
                }
            if (views_panel) continue;
            g->fused_into = gi - 1;
            pg->row_tail = gi;
        }
    }

    /* 3. what is materialised, and where */
    char *need = calloc((size_t)nv, 1);
    if (!need) {
        free(out_root);
        free(out_of);
        kf_bt_plan_free(out);
        return kf_fail(err, KF_E_INTERNAL, "out of memory while planning %s", p->name);
    }
    for (int o = 0; o < p->n_outputs; o++) {
        int v = p->outputs[o];
        need[v] = 1;
        if (out->alias_of[v] >= 0) need[out->alias_of[v]] = 1;   /* written as that output */
    }
    for (int gi = 0; gi < out->n_groups; gi++) {
        const kf_bt_group *g = &out->groups[gi];
        int last_needed_only_by_tail = g->row_tail >= 0;
        if (!last_needed_only_by_tail) need[g->last_value] = 1;
        for (int n = 0; n < g->n_nodes; n++) {
            const kf_node *nd = &p->nodes[g->nodes[n]];
            for (int i = 0; i < nd->n_in; i++) {
                if (nd->in[i].is_scalar) continue;
                int u = nd->in[i].value;
                int gu = out->group_of[u];
                if (gu == gi) continue;
                if (gu >= 0 && g->fused_into == gu && u == out->groups[gu].last_value && n == 0 && i == 0)
                    continue;   /* read from the row panel, not from memory */
                need[u] = 1;
                if (out->alias_of[u] >= 0) need[out->alias_of[u]] = 1;
            }
        }
    }
    for (int v = 0; v < nv; v++) {
        out->store[v].kind = KF_BT_ST_LOCAL;
        if (!need[v] || out->alias_of[v] >= 0) continue;
        if (v < p->n_inputs) { out->store[v].kind = KF_BT_ST_INPUT; out->store[v].index = v; continue; }
        int oi = out_root[v];
        for (int o = 0; o < p->n_outputs && oi < 0; o++)
            if (p->outputs[o] == v) oi = o;
        if (oi >= 0) { out->store[v].kind = KF_BT_ST_OUTPUT; out->store[v].index = oi; continue; }
        out->store[v].kind = KF_BT_ST_SCRATCH;
        out->store[v].index = out->n_scratch;
        out->scratch_value[out->n_scratch] = v;
        out->scratch_elems[out->n_scratch] = kf_shape_elems(&r->shapes[v]);
        out->n_scratch++;
    }
    for (int v = 0; v < p->n_inputs; v++) {   /* inputs are always readable */
        out->store[v].kind = KF_BT_ST_INPUT;
        out->store[v].index = v;
    }
    for (int v = 0; v < nv; v++)               /* roots come first: stores are final */
        if (out->alias_of[v] >= 0 && need[v]) out->store[v] = out->store[out->alias_of[v]];
    free(need);
    free(out_root);
    free(out_of);
    return 0;
}

static void describe_shape(kf_sb *b, const kf_shape *s)
{
    kf_sb_puts(b, "(");
    for (int i = 0; i < s->rank; i++) kf_sb_printf(b, "%s%" PRId64, i ? "," : "", s->d[i]);
    kf_sb_puts(b, ")");
}

char *kf_bt_plan_describe(const kf_bt_plan *pl)
{
    const kf_problem *p = pl->r->problem;
    kf_sb b = {0};
    for (int gi = 0; gi < pl->n_groups; gi++) {
        const kf_bt_group *g = &pl->groups[gi];
        kf_sb_printf(&b, "g%d %-7s ", gi, kf_bt_group_kind_name(g->kind));
        for (int n = 0; n < g->n_nodes; n++) {
            const kf_node *nd = &p->nodes[g->nodes[n]];
            kf_sb_printf(&b, "%s%s=%s(", n ? " -> " : "", nd->out, kf_op_name(nd->op));
            for (int i = 0; i < nd->n_in; i++) {
                if (nd->in[i].is_scalar) kf_sb_printf(&b, "%s%g", i ? "," : "", nd->in[i].scalar);
                else kf_sb_printf(&b, "%s%s", i ? "," : "", kf_problem_value_name(p, nd->in[i].value));
            }
            kf_sb_puts(&b, ")");
        }
        kf_sb_puts(&b, " ");
        describe_shape(&b, &g->shape);
        if (g->fused_into >= 0) kf_sb_printf(&b, " [per row panel of g%d]", g->fused_into);
        kf_sb_puts(&b, "  stores:");
        int any = 0;
        for (int n = 0; n < g->n_nodes; n++) {
            int v = p->n_inputs + g->nodes[n];
            const kf_bt_store *s = &pl->store[v];
            if (s->kind == KF_BT_ST_OUTPUT) kf_sb_printf(&b, " %s->out[%d]", kf_problem_value_name(p, v), s->index);
            else if (s->kind == KF_BT_ST_SCRATCH) kf_sb_printf(&b, " %s->scratch[%d]", kf_problem_value_name(p, v), s->index);
            else continue;
            any = 1;
        }
        if (!any) kf_sb_puts(&b, " none (consumed in registers)");
        kf_sb_puts(&b, "\n");
    }
    return kf_sb_take(&b);
}
