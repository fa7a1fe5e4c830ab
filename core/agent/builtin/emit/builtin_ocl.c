/*
 * builtin_ocl.c — the built-in agent's OpenCL C generator: kf_bt_gen_ocl()
 * (builtin.h) and the helpers every OpenCL emitter shares (kernel
 * signatures, buffers, broadcasting operands, epilogue chains, the launch
 * plan).  The per-kind kernels live in builtin_ocl_gemm.c (tiled GEMM with a
 * fused epilogue), builtin_ocl_reduce.c (row/column reductions, softmax,
 * norms, batch norm) and builtin_ocl_map.c (elementwise and pooling).
 *
 * Every kernel bakes the resolved sizes in as constants and receives the
 * problem's dims as int arguments: when they differ from the baked ones the
 * kernel returns at once (or, when it uses barriers, runs its loops zero
 * times: PoCL mishandles an early return before a barrier), so a run at
 * another preset leaves its outputs unwritten (NaN) and fails loudly
 * instead of reading out of bounds.
 */
#include <config.h>

#include "builtin_ocl_internal.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ */
/* small helpers                                                       */

void ocl_failf(ocl_gen *g, const char *fmt, ...)
{
    if (g->failed) return;
    g->failed = 1;
    va_list ap;
    va_start(ap, fmt);
    kf_vfail(g->err, KF_E_INTERNAL, fmt, ap);
    va_end(ap);
}

int64_t ocl_round_up(int64_t a, int64_t b)
{
    return b > 0 ? (a + b - 1) / b * b : a;
}

int ocl_row_local(int64_t len)
{
    int l = 16;
    while (l < 256 && l < len) l *= 2;
    return l;
}

static char *xstrdup(ocl_gen *g, const char *s)
{
    char *d = strdup(s ? s : "");
    if (!d) ocl_failf(g, "out of memory while generating OpenCL code");
    return d;
}

static char *xasprintf(ocl_gen *g, const char *fmt, ...) KF_PRINTF(2, 3);
static char *xasprintf(ocl_gen *g, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *s = NULL;
    if (vasprintf(&s, fmt, ap) < 0) s = NULL;
    va_end(ap);
    if (!s) ocl_failf(g, "out of memory while generating OpenCL code");
    return s;
}

/* A C identifier for value v: its name when that is one, else the name
 * with odd characters replaced and the value id appended. */
static char *make_ident(const char *name, int v)
{
    size_t n = strlen(name);
    char *s = malloc(n + 16);
    if (!s) return NULL;
    int changed = n == 0 || isdigit((unsigned char)name[0]);
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)name[i];
        s[i] = (isalnum(c) || c == '_') ? (char)c : '_';
        if (s[i] != name[i]) changed = 1;
    }
    s[n] = 0;
    if (changed) snprintf(s + n, 16, "_v%d", v);
    return s;
}

/* Is `name` free for a new buffer of the launch plan? (inputs, outputs,
 * dims and scratch buffers share one namespace) */
static int name_taken(const ocl_gen *g, const char *name)
{
    const kf_problem *p = g->p;
    for (int i = 0; i < p->n_inputs; i++)
        if (!strcmp(p->inputs[i].name, name)) return 1;
    for (int o = 0; o < p->n_outputs; o++)
        if (!strcmp(kf_problem_value_name(p, p->outputs[o]), name)) return 1;
    for (int d = 0; d < p->n_dims; d++)
        if (!strcmp(p->dim_names[d], name)) return 1;
    for (int s = 0; s < g->cand->n_scratch; s++)
        if (!strcmp(g->cand->scratch[s].name, name)) return 1;
    return 0;
}

static const char *add_scratch(ocl_gen *g, const char *stem, int64_t bytes)
{
    char name[160];
    snprintf(name, sizeof name, "%s", stem);
    for (int i = 2; name_taken(g, name); i++) snprintf(name, sizeof name, "%s_%d", stem, i);
    kf_candidate *c = g->cand;
    kf_cand_scratch *s = realloc(c->scratch, (size_t)(c->n_scratch + 1) * sizeof *s);
    if (!s) { ocl_failf(g, "out of memory while generating OpenCL code"); return NULL; }
    c->scratch = s;
    s[c->n_scratch].name = xstrdup(g, name);
    s[c->n_scratch].bytes_expr = xasprintf(g, "%" PRId64, bytes > 0 ? bytes : 4);
    if (!s[c->n_scratch].name || !s[c->n_scratch].bytes_expr) {
        free(s[c->n_scratch].name);
        free(s[c->n_scratch].bytes_expr);
        return NULL;
    }
    return s[c->n_scratch++].name;
}

const char *ocl_private_scratch(ocl_gen *g, const char *stem, int64_t bytes)
{
    return add_scratch(g, stem, bytes);
}

/* ------------------------------------------------------------------ */
/* kernels                                                             */

void ocl_kernel_begin(ocl_kernel *k, ocl_gen *g, int group, const char *what)
{
    memset(k, 0, sizeof *k);
    k->g = g;
    snprintf(k->name, sizeof k->name, "g%d_%s", group, what);
}

static void kernel_free(ocl_kernel *k)
{
    kf_sb_free(&k->body);
    for (int i = 0; i < k->n_bufs; i++) {
        free(k->bufs[i].plan_name);
        free(k->bufs[i].param);
    }
    k->n_bufs = 0;
    for (int i = 0; i < k->n_tmaps; i++) {
        free(k->tmaps[i].param);
        free(k->tmaps[i].buffer);
        kf_cand_tmap_free(k->tmaps[i].t);
    }
    k->n_tmaps = 0;
}

void ocl_kernel_drop(ocl_kernel *k)
{
    kernel_free(k);
}

static const char *add_buf(ocl_kernel *k, const char *plan_name, const char *param, int write, int half)
{
    for (int i = 0; i < k->n_bufs; i++)
        if (!strcmp(k->bufs[i].plan_name, plan_name)) {
            k->bufs[i].written |= write;
            return k->bufs[i].param;
        }
    if (k->n_bufs >= OCL_MAX_BUFS) {
        ocl_failf(k->g, "kernel %s would take more than %d buffers (generator limit)", k->name, OCL_MAX_BUFS);
        return "kf_none";
    }
    ocl_buf *b = &k->bufs[k->n_bufs];
    b->plan_name = xstrdup(k->g, plan_name);
    b->param = xstrdup(k->g, param);
    b->written = write;
    b->half = half;
    if (!b->plan_name || !b->param) {
        free(b->plan_name);
        free(b->param);
        return "kf_none";
    }
    k->n_bufs++;
    return b->param;
}

const char *ocl_buf_value(ocl_kernel *k, int v, int write)
{
    ocl_gen *g = k->g;
    if (!g->store_name[v]) {
        ocl_failf(g, "value '%s' has no buffer (plan/generator mismatch)", kf_problem_value_name(g->p, v));
        return "kf_none";
    }
    char param[200];
    snprintf(param, sizeof param, "g_%s", g->ident[v]);
    return add_buf(k, g->store_name[v], param, write, g->half[v]);
}

const char *ocl_buf_named(ocl_kernel *k, const char *plan_name, int write)
{
    char param[200];
    snprintf(param, sizeof param, "p_%s", plan_name);
    return add_buf(k, plan_name, param, write, 0);
}

const char *ocl_tmap_2d(ocl_kernel *k, const char *plan_name, uint32_t dtype, int64_t rows, int64_t cols,
                        int64_t pitch, int64_t box_rows, int64_t box_cols, int swizzle)
{
    ocl_gen *g = k->g;
    if (k->n_tmaps >= OCL_MAX_TMAPS) {
        ocl_failf(g, "kernel %s would take more than %d tensor maps (generator limit)", k->name, OCL_MAX_TMAPS);
        return "kf_none";
    }
    ocl_tmap *m = &k->tmaps[k->n_tmaps];
    kf_cand_tmap *t = calloc(1, sizeof *t);
    m->param = xasprintf(g, "tm_%d", k->n_tmaps);
    m->buffer = xstrdup(g, plan_name);
    m->t = t;
    k->n_tmaps++;
    if (!t || !m->param || !m->buffer) {
        ocl_failf(g, "out of memory while generating CUDA code");
        return "kf_none";
    }
    t->dtype = dtype;
    t->rank = 2;
    t->swizzle = swizzle;
    t->dims[0] = xasprintf(g, "%" PRId64, cols);
    t->dims[1] = xasprintf(g, "%" PRId64, rows);
    t->strides[1] = xasprintf(g, "%" PRId64, pitch);
    t->box[0] = xasprintf(g, "%" PRId64, box_cols);
    t->box[1] = xasprintf(g, "%" PRId64, box_rows);
    return m->param;
}

void ocl_kernel_finish(ocl_kernel *k, int work_dim, const int64_t global[3], const int64_t local[3])
{
    ocl_gen *g = k->g;
    kf_sb *s = &g->src;
    if (g->failed) { kernel_free(k); return; }
    int64_t l[3] = {1, 1, 1};
    for (int d = 0; d < work_dim; d++) {
        l[d] = local[d];
        if (l[d] < 1 || global[d] % l[d] != 0) {
            ocl_failf(g, "kernel %s: global size %" PRId64 " is not a multiple of the local size %" PRId64
                      " (generator bug)", k->name, global[d], l[d]);
            kernel_free(k);
            return;
        }
    }
    kf_sb_printf(s, "__kernel __attribute__((reqd_work_group_size(%" PRId64 ", %" PRId64 ", %" PRId64 ")))\n"
                    "void %s(", l[0], l[1], l[2], k->name);
    int first = 1;
    for (int i = 0; i < k->n_bufs; i++) {
        const ocl_buf *b = &k->bufs[i];
        kf_sb_printf(s, "%s%s%s%s *%s%s", first ? "" : ",\n    ", "__global ",
                        b->written ? "" : "const ", b->half ? "half" : "float",
                        b->written ? "" : "restrict ", b->param);
        first = 0;
    }
    for (int i = 0; i < k->n_tmaps; i++) {
        kf_sb_printf(s, "%sconst __grid_constant__ kf_tmap_t %s", first ? "" : ",\n    ", k->tmaps[i].param);
        first = 0;
    }
    for (int d = 0; d < g->p->n_dims; d++) {
        kf_sb_printf(s, "%sint dim_%s", first ? "" : ", ", g->p->dim_names[d]);
        first = 0;
    }
    if (first) kf_sb_puts(s, "void");
    kf_sb_puts(s, k->barriers ? ")\n{\n    const int kf_ok = KF_DIMS_OK;\n" : ")\n{\n    KF_CHECK_DIMS;\n");
    if (k->body.s) kf_sb_puts(s, k->body.s);
    if (k->body.oom) ocl_failf(g, "out of memory while generating OpenCL code");
    kf_sb_puts(s, "}\n\n");

    /* the launch */
    kf_candidate *c = g->cand;
    kf_cand_launch *ls = realloc(c->launches, (size_t)(c->n_launches + 1) * sizeof *ls);
    if (!ls) { ocl_failf(g, "out of memory while generating OpenCL code"); kernel_free(k); return; }
    c->launches = ls;
    kf_cand_launch *L = &ls[c->n_launches];
    memset(L, 0, sizeof *L);
    c->n_launches++;
    L->kernel = xstrdup(g, k->name);
    L->work_dim = work_dim;
    for (int d = 0; d < work_dim; d++) {
        L->global[d] = xasprintf(g, "%" PRId64, global[d]);
        L->local[d] = xasprintf(g, "%" PRId64, l[d]);
    }
    L->args = calloc((size_t)(k->n_bufs + k->n_tmaps + g->p->n_dims + 2), sizeof *L->args);
    if (!L->args) { ocl_failf(g, "out of memory while generating OpenCL code"); kernel_free(k); return; }
    for (int i = 0; i < k->n_bufs; i++) {
        L->args[L->n_args].kind = KF_CARG_NAME;
        L->args[L->n_args++].text = xstrdup(g, k->bufs[i].plan_name);
    }
    for (int i = 0; i < k->n_tmaps; i++) {   /* the candidate owns them now */
        L->args[L->n_args].kind = KF_CARG_TENSOR_MAP;
        L->args[L->n_args].text = k->tmaps[i].buffer;
        L->args[L->n_args++].tmap = k->tmaps[i].t;
        k->tmaps[i].buffer = NULL;
        k->tmaps[i].t = NULL;
    }
    for (int d = 0; d < g->p->n_dims; d++) {
        L->args[L->n_args].kind = KF_CARG_NAME;
        L->args[L->n_args++].text = xstrdup(g, g->p->dim_names[d]);
    }
    if (k->dyn_shared > 0) {
        L->args[L->n_args].kind = KF_CARG_LOCAL;
        L->args[L->n_args++].text = xasprintf(g, "%" PRId64, k->dyn_shared);
    }
    g->n_kernels++;
    kernel_free(k);
}

/* ------------------------------------------------------------------ */
/* operands and epilogue chains                                        */

char *ocl_elem(ocl_kernel *k, int v, const char *idx)
{
    const char *buf = ocl_buf_value(k, v, 0);
    return k->g->half[v] ? xasprintf(k->g, "vload_half(%s, %s)", idx, buf)
                         : xasprintf(k->g, "%s[%s]", buf, idx);
}

char *ocl_operand(ocl_kernel *k, int gi, int v, const kf_shape *target, const char *idx,
                  const char *col)
{
    ocl_gen *g = k->g;
    if (v >= g->p->n_inputs && g->plan->group_of[v] == gi)
        return xasprintf(g, "t_%s", g->ident[v]);
    const kf_shape *vs = &g->r->shapes[v];
    int64_t st[KF_MAX_RANK];
    if (kf_bt_bcast_strides(vs, target, st) != 0) {
        if (kf_shape_elems(vs) == kf_shape_elems(target))   /* the operand of a shape-op copy */
            return ocl_elem(k, v, idx);
        ocl_failf(g, "value '%s' does not broadcast to the shape of group g%d (plan/generator mismatch)",
                  kf_problem_value_name(g->p, v), gi);
        return NULL;
    }
    int64_t inner[KF_MAX_RANK];
    int contiguous = kf_shape_elems(vs) == kf_shape_elems(target);
    int64_t acc = 1;
    for (int d = target->rank - 1; d >= 0; d--) {
        inner[d] = acc;
        if (target->d[d] != 1 && st[d] != acc) contiguous = 0;
        acc *= target->d[d];
    }
    if (contiguous) return ocl_elem(k, v, idx);
    kf_sb e = {0};
    int terms = 0;
    for (int d = 0; d < target->rank; d++) {
        if (st[d] == 0 || target->d[d] == 1) continue;
        if (terms++) kf_sb_puts(&e, " + ");
        if (d == target->rank - 1 && col) {
            kf_sb_printf(&e, "(size_t)(%s)", col);
        } else {
            kf_sb_printf(&e, "(%s", idx);
            if (inner[d] != 1) kf_sb_printf(&e, " / %" PRId64, inner[d]);
            kf_sb_puts(&e, ")");
            if (d > 0) kf_sb_printf(&e, " %% %" PRId64, target->d[d]);
        }
        if (st[d] != 1) kf_sb_printf(&e, " * %" PRId64, st[d]);
    }
    if (!terms) kf_sb_puts(&e, "0");
    char *ix = kf_sb_take(&e);
    if (!ix) { ocl_failf(g, "out of memory while generating OpenCL code"); return NULL; }
    char *r = ocl_elem(k, v, ix);
    free(ix);
    return r;
}

static int same_shape(const kf_shape *a, const kf_shape *b)
{
    if (a->rank != b->rank) return 0;
    for (int i = 0; i < a->rank; i++)
        if (a->d[i] != b->d[i]) return 0;
    return 1;
}

void ocl_emit_tail(ocl_kernel *k, int gi, int from, const char *idx, const char *col, const char *ind)
{
    ocl_gen *g = k->g;
    const kf_problem *p = g->p;
    const kf_bt_group *grp = &g->plan->groups[gi];
    int anchor_v = p->n_inputs + grp->nodes[0];
    const kf_shape *target = &g->r->shapes[anchor_v];
    for (int n = from; n < grp->n_nodes && !g->failed; n++) {
        const kf_node *nd = &p->nodes[grp->nodes[n]];
        int v = p->n_inputs + grp->nodes[n];
        int copy = n == 0 && kf_op_is_shape(nd->op);   /* a shape op that must copy: the anchor */
        if ((!kf_bt_is_map_op(nd->op) && !copy) || !same_shape(&g->r->shapes[v], target)) {
            ocl_failf(g, "group g%d: node '%s' (%s) is not an elementwise op of the group's shape "
                      "(plan/generator mismatch)", gi, nd->out, kf_op_name(nd->op));
            return;
        }
        char *x = NULL, *y = NULL;
        if (nd->n_in > 0 && !nd->in[0].is_scalar)
            x = ocl_operand(k, gi, nd->in[0].value, target, idx, col);
        if (nd->n_in > 1 && !nd->in[1].is_scalar)
            y = ocl_operand(k, gi, nd->in[1].value, target, idx, col);
        char *e = g->failed ? NULL : kf_bt_map_expr(nd, x, y);
        if (!e && !g->failed)
            ocl_failf(g, "group g%d: no OpenCL expression for '%s' (%s)", gi, nd->out, kf_op_name(nd->op));
        if (e) OCL_P(k, "%sconst float t_%s = %s;   /* %s */\n", ind, g->ident[v], e, kf_op_name(nd->op));
        free(x);
        free(y);
        free(e);
    }
    for (int n = 0; n < grp->n_nodes; n++) {
        int v = p->n_inputs + grp->nodes[n];
        if (!g->store_name[v]) continue;
        const char *buf = ocl_buf_value(k, v, 1);
        if (g->half[v]) OCL_P(k, "%svstore_half(t_%s, %s, %s);\n", ind, g->ident[v], idx, buf);
        else OCL_P(k, "%s%s[%s] = t_%s;\n", ind, buf, idx, g->ident[v]);
    }
}

/* ------------------------------------------------------------------ */
/* the entry                                                           */

/* Buffers: the plan's stores, plus our own scratch for a value the plan
 * keeps in registers (a GEMM whose row tail is fused into it on the CPU)
 * but that another kernel of ours reads. */
static void assign_storage(ocl_gen *g)
{
    const kf_bt_plan *pl = g->plan;
    const kf_problem *p = g->p;
    int nv = pl->n_values;
    for (int v = 0; v < nv && !g->failed; v++) {
        const char *name = kf_problem_value_name(p, v);
        if (!(g->ident[v] = make_ident(name ? name : "v", v))) ocl_failf(g, "out of memory");
    }
    char *need = calloc((size_t)nv + 1, 1);
    if (!need) { ocl_failf(g, "out of memory"); return; }
    for (int gi = 0; gi < pl->n_groups; gi++) {
        const kf_bt_group *grp = &pl->groups[gi];
        for (int n = 0; n < grp->n_nodes; n++) {
            const kf_node *nd = &p->nodes[grp->nodes[n]];
            for (int i = 0; i < nd->n_in; i++)
                if (!nd->in[i].is_scalar && pl->group_of[nd->in[i].value] != gi) need[nd->in[i].value] = 1;
        }
    }
    int half = g->pt->precision == KF_BT_FP16_STORAGE;
    for (int v = 0; v < nv && !g->failed; v++) {
        const kf_bt_store *st = &pl->store[v];
        if (pl->alias_of[v] >= 0) {   /* a shape op: its root's buffer (assigned already) */
            int root = pl->alias_of[v];
            if (g->store_name[root]) g->store_name[v] = xstrdup(g, g->store_name[root]);
            g->half[v] = g->half[root];
            continue;
        }
        switch (st->kind) {
        case KF_BT_ST_INPUT:
            g->store_name[v] = xstrdup(g, p->inputs[st->index].name);
            break;
        case KF_BT_ST_OUTPUT:
            g->store_name[v] = xstrdup(g, kf_problem_value_name(p, p->outputs[st->index]));
            break;
        case KF_BT_ST_SCRATCH:
        case KF_BT_ST_LOCAL: {
            if (st->kind == KF_BT_ST_LOCAL && !need[v]) break;
            if (st->kind == KF_BT_ST_LOCAL && ocl_norm_keeps_in_registers(g, v)) break;   /* cuda_gemm_norm.c */
            char stem[160];
            snprintf(stem, sizeof stem, "t_%s", g->ident[v]);
            int64_t elems = kf_shape_elems(&g->r->shapes[v]);
            const char *nm = add_scratch(g, stem, elems * (half ? 2 : 4));
            g->store_name[v] = nm ? xstrdup(g, nm) : NULL;
            g->half[v] = (unsigned char)half;
            break;
        }
        }
    }
    free(need);
}

/* kf_seg_sum/max/min, once per source, before the first kernel that
 * reduces several short segments per work-group (builtin_ocl_reduce.c). */
void ocl_emit_seg_helpers(ocl_gen *g)
{
    if (g->uses_seg) return;
    g->uses_seg = 1;
    static const char *const op[2][2] = {{"sum", "part[t] += part[t + w]"},
                                         {"max", "part[t] = fmax(part[t], part[t + w])"}};
    kf_sb_puts(&g->src, "\n/* Work-group reductions over segments of L work-items (a power of 2)\n"
                        " * sharing a work-group: each gets the combined value of its own segment. */\n");
    for (int i = 0; i < 2; i++)
        kf_sb_printf(&g->src,
                     "float kf_seg_%s(float v, __local float *part, int L)\n"
                     "{\n"
                     "    const int t = get_local_id(0), l = t & (L - 1);\n"
                     "    part[t] = v;\n"
                     "    barrier(CLK_LOCAL_MEM_FENCE);\n"
                     "    for (int w = L / 2; w > 0; w >>= 1) {\n"
                     "        if (l < w) %s;\n"
                     "        barrier(CLK_LOCAL_MEM_FENCE);\n"
                     "    }\n"
                     "    const float r = part[t - l];\n"
                     "    barrier(CLK_LOCAL_MEM_FENCE);\n"
                     "    return r;\n"
                     "}\n\n", op[i][0], op[i][1]);
    kf_sb_puts(&g->src, "float kf_seg_min(float v, __local float *part, int L)\n"
                        "{\n"
                        "    return -kf_seg_max(-v, part, L);\n"
                        "}\n\n");
}

static void emit_header(ocl_gen *g, const char *label)
{
    const kf_problem *p = g->p;
    kf_sb *s = &g->src;
    char *pj = kf_bt_point_json(g->pt);
    char *desc = kf_bt_plan_describe(g->plan);
    kf_sb_printf(s, "/*\n * %s — generated by the kforge built-in agent (OpenCL C 1.2)\n", p->name);
    kf_sb_printf(s, " * %s\n * point: %s\n *\n * plan (one group per line):\n", label, pj ? pj : "?");
    for (const char *l = desc ? desc : ""; *l;) {
        const char *e = strchr(l, '\n');
        int n = e ? (int)(e - l) : (int)strlen(l);
        kf_sb_printf(s, " *   %.*s\n", n, l);
        l += n + (e ? 1 : 0);
    }
    kf_sb_printf(s, " *\n * Sizes are baked in as constants (preset \"%s\":",
                    p->preset_names[g->r->preset]);
    for (int d = 0; d < p->n_dims; d++)
        kf_sb_printf(s, " %s=%" PRId64, p->dim_names[d], g->r->dims[d]);
    kf_sb_puts(s, ").  Every kernel receives the dims and returns\n"
                  " * at once when they differ, leaving the outputs unwritten (NaN).\n");
    if (g->pt->precision == KF_BT_FP16_STORAGE)
        kf_sb_puts(s, " * Scratch buffers hold fp16 (vstore_half/vload_half); arithmetic is fp32.\n");
    if (g->pt->precision == KF_BT_TF32)
        kf_sb_puts(s, " * GEMMs run on tensor cores through inline PTX (TF32 inputs, FP32\n"
                      " * accumulation): NVIDIA's OpenCL compiler only.\n");
    kf_sb_puts(s, " */\n\n");
    free(pj);
    free(desc);
    kf_sb_puts(s, kf_bt_prelude(KF_BT_OCL));
    kf_sb_puts(s, "\n/* Kernels without barriers return at once on other sizes; kernels with\n"
                  " * barriers (PoCL mishandles an early return before one) run their loops\n"
                  " * zero times and store nothing when kf_ok is 0. */\n#define KF_DIMS_OK ");
    if (p->n_dims == 0) {
        kf_sb_puts(s, "1\n");
    } else {
        kf_sb_puts(s, "(");
        for (int d = 0; d < p->n_dims; d++)
            kf_sb_printf(s, "%sdim_%s == %" PRId64, d ? " && " : "", p->dim_names[d], g->r->dims[d]);
        kf_sb_puts(s, ")\n");
    }
    kf_sb_puts(s, "#define KF_CHECK_DIMS if (!KF_DIMS_OK) return\n");

    if (g->pt->precision == KF_BT_TF32)
        kf_sb_puts(s, "\n/* A float rounded to TF32 (10 mantissa bits), for mma.sync (ocl_gemm_ptx.c) */\n"
                      "float kf_tf32(float x)\n"
                      "{\n"
                      "    uint t;\n"
                      "    asm(\"cvt.rna.tf32.f32 %0, %1;\" : \"=r\"(t) : \"f\"(x));\n"
                      "    return as_float(t);\n"
                      "}\n"
                      "uint kf_tf32u(float x)\n"
                      "{\n"
                      "    uint t;\n"
                      "    asm(\"cvt.rna.tf32.f32 %0, %1;\" : \"=r\"(t) : \"f\"(x));\n"
                      "    return t;\n"
                      "}\n"
                      "/* 16 bytes global -> __local without registers (cp.async, sm_80 and later);\n"
                      " * zero-filled when !ok (src must still be a valid address).  A __local\n"
                      " * pointer's value is its offset in the shared window, as PTX wants it. */\n"
                      "void kf_cp16(__local float *dst, __global const float *src, int ok)\n"
                      "{\n"
                      "    asm volatile(\"cp.async.cg.shared.global [%0], [%1], 16, %2;\" :: \"r\"((uint)(size_t)dst), \"l\"(src),\n"
                      "                 \"r\"(ok ? 16 : 0));\n"
                      "}\n");
    kf_sb_puts(s,
        "\n/* Work-group reductions: every work-item passes its partial value and\n"
        " * gets the combined one; part holds get_local_size(0) floats (a power of 2). */\n"
        "float kf_wg_sum(float v, __local float *part)\n"
        "{\n"
        "    const int l = get_local_id(0);\n"
        "    part[l] = v;\n"
        "    barrier(CLK_LOCAL_MEM_FENCE);\n"
        "    for (int w = get_local_size(0) / 2; w > 0; w >>= 1) {\n"
        "        if (l < w) part[l] += part[l + w];\n"
        "        barrier(CLK_LOCAL_MEM_FENCE);\n"
        "    }\n"
        "    const float r = part[0];\n"
        "    barrier(CLK_LOCAL_MEM_FENCE);\n"
        "    return r;\n"
        "}\n\n"
        "float kf_wg_max(float v, __local float *part)\n"
        "{\n"
        "    const int l = get_local_id(0);\n"
        "    part[l] = v;\n"
        "    barrier(CLK_LOCAL_MEM_FENCE);\n"
        "    for (int w = get_local_size(0) / 2; w > 0; w >>= 1) {\n"
        "        if (l < w) part[l] = fmax(part[l], part[l + w]);\n"
        "        barrier(CLK_LOCAL_MEM_FENCE);\n"
        "    }\n"
        "    const float r = part[0];\n"
        "    barrier(CLK_LOCAL_MEM_FENCE);\n"
        "    return r;\n"
        "}\n\n"
        "float kf_wg_min(float v, __local float *part)\n"
        "{\n"
        "    return -kf_wg_max(-v, part);\n"
        "}\n\n");
}

static int check_point(const kf_bt_point *pt, const kf_bt_plan *plan, const kf_device_info *dev, kf_error *err)
{
    if (pt->em != &kf_bt_emit_opencl_c)
        return kf_fail(err, KF_E_BAD_INPUT, "the OpenCL C generator got a point of language '%s'", pt->em ? pt->em->language : "?");
    if (pt->knob[KO_TS] != 8 && pt->knob[KO_TS] != 16 && pt->knob[KO_TS] != 32 && pt->knob[KO_TS] != 64 && pt->knob[KO_TS] != 128)
        return kf_fail(err, KF_E_BAD_INPUT, "OpenCL point: ts = %d; use 8, 16, 32, 64 or 128", pt->knob[KO_TS]);
    if (pt->knob[KO_WPT] != 1 && pt->knob[KO_WPT] != 2 && pt->knob[KO_WPT] != 4 && pt->knob[KO_WPT] != 8)
        return kf_fail(err, KF_E_BAD_INPUT, "OpenCL point: wpt = %d; use 1, 2, 4 or 8", pt->knob[KO_WPT]);
    if (pt->knob[KO_WPT] > pt->knob[KO_TS])
        return kf_fail(err, KF_E_BAD_INPUT, "OpenCL point: wpt = %d exceeds the tile ts = %d; lower wpt", pt->knob[KO_WPT], pt->knob[KO_TS]);
    if (pt->knob[KO_VEC] != 1 && pt->knob[KO_VEC] != 2 && pt->knob[KO_VEC] != 4 && pt->knob[KO_VEC] != 8)
        return kf_fail(err, KF_E_BAD_INPUT, "OpenCL point: vec = %d; use 1, 2, 4 or 8", pt->knob[KO_VEC]);
    if (pt->knob[KO_VEC] > pt->knob[KO_TS])
        return kf_fail(err, KF_E_BAD_INPUT, "OpenCL point: vec = %d exceeds the tile ts = %d; lower vec", pt->knob[KO_VEC], pt->knob[KO_TS]);
    if (kf_bt_ocl_work_group(pt) > KF_BT_OCL_MAX_WG)
        return kf_fail(err, KF_E_BAD_INPUT, "OpenCL point: ts %d, wpt %d, vec %d makes work-groups of %d work-items (at most %d); "
                       "raise wpt or vec, or lower ts", pt->knob[KO_TS], pt->knob[KO_WPT], pt->knob[KO_VEC], kf_bt_ocl_work_group(pt),
                       KF_BT_OCL_MAX_WG);
    if (pt->precision == KF_BT_TF32 && !kf_bt_ocl_ptx_mma(dev))
        return kf_fail(err, KF_E_BAD_INPUT, "OpenCL point: precision 2 (TF32 tensor cores through inline PTX) needs an "
                       "NVIDIA OpenCL device of compute capability 8.0 or later, not %s; use 0 (fp32) or 1 (fp16 "
                       "storage)", dev ? dev->name : "none (no device given)");
    if (pt->precision != KF_BT_FP32 && pt->precision != KF_BT_FP16_STORAGE && pt->precision != KF_BT_TF32)
        return kf_fail(err, KF_E_BAD_INPUT, "OpenCL point: precision %d is unknown; use 0 (fp32), 1 (fp16 storage) "
                       "or, on NVIDIA, 2 (TF32 tensor cores)", pt->precision);
    if (pt->baseline && plan->fusion != KF_BT_FUSE_NONE)
        return kf_fail(err, KF_E_BAD_INPUT, "the op-by-op baseline needs a plan built with KF_BT_FUSE_NONE");
    return 0;
}

static void gen_group(ocl_gen *g, int gi)
{
    const kf_bt_group *grp = &g->plan->groups[gi];
    const kf_node *an = &g->p->nodes[grp->nodes[0]];
    switch (an->op) {
    case KF_OP_MATMUL: case KF_OP_LINEAR:
        if (grp->kind != KF_BT_GEMM) {
            ocl_failf(g, "group g%d: a %s anchor outside a GEMM group (plan/generator mismatch)", gi,
                      kf_op_name(an->op));
            return;
        }
        if (g->blas && ocl_gen_gemm_cublas(g, gi) == 0) return;
        if ((g->skip_group = ocl_gen_gemm_sum(g, gi)) >= 0) return;
        if (g->tc) ocl_gen_gemm_tc(g, gi);
        else if (g->pt->precision == KF_BT_TF32) ocl_gen_gemm_ptx(g, gi);
        else ocl_gen_gemm(g, gi);
        return;
    case KF_OP_SUM: case KF_OP_MEAN: case KF_OP_AMAX: case KF_OP_AMIN: case KF_OP_LOGSUMEXP:
    case KF_OP_SOFTMAX: case KF_OP_LOG_SOFTMAX:
    case KF_OP_LAYER_NORM: case KF_OP_RMS_NORM: case KF_OP_GROUP_NORM: case KF_OP_INSTANCE_NORM:
        ocl_gen_reduce(g, gi);
        return;
    case KF_OP_BATCH_NORM:
        ocl_gen_batch_norm(g, gi);
        return;
    default:
        ocl_gen_map(g, gi);   /* map ops and pooling: one work-item per output element */
        return;
    }
}

int kf_bt_gen_ocl(const kf_bt_plan *plan, const kf_bt_point *pt, const char *backend, const kf_device_info *dev,
                  kf_candidate **out, char **label, kf_error *err)
{
    return kf_bt_gen_ocl_tc(plan, pt, backend, dev, 0, 0, out, label, err);
}

int kf_bt_gen_ocl_tc(const kf_bt_plan *plan, const kf_bt_point *pt, const char *backend, const kf_device_info *dev,
                     int tc, int blas, kf_candidate **out, char **label, kf_error *err)
{
    *out = NULL;
    if (label) *label = NULL;
    if (!plan || !plan->r || !pt) return kf_fail(err, KF_E_BAD_INPUT, "kf_bt_gen_ocl: no plan or point");
    if (check_point(pt, plan, dev, err) != 0) return -1;
    ocl_gen g;
    memset(&g, 0, sizeof g);
    g.plan = plan;
    g.r = plan->r;
    g.p = plan->r->problem;
    g.pt = pt;
    g.dev = dev;
    g.tc = tc;
    g.blas = blas;
    g.err = err;
    g.cand = kf_candidate_new(backend);
    int nv = plan->n_values;
    g.store_name = calloc((size_t)nv + 1, sizeof *g.store_name);
    g.ident = calloc((size_t)nv + 1, sizeof *g.ident);
    g.half = calloc((size_t)nv + 1, 1);
    if (!g.cand || !g.store_name || !g.ident || !g.half) ocl_failf(&g, "out of memory");

    char lab[256], pl[160];
    if (pt->baseline && blas)
        snprintf(lab, sizeof lab, "op-by-op, GEMMs by cuBLAS sgemm in FP32 (no TF32, as PyTorch eager)");
    else if (pt->baseline)
        snprintf(lab, sizeof lab, "op-by-op, own tiled GEMM ts%d wpt%d v%d (CLBlast not callable from a launch plan)",
                 pt->knob[KO_TS], pt->knob[KO_WPT], pt->knob[KO_VEC]);
    else
        snprintf(lab, sizeof lab, "%s", kf_bt_point_label(pt, pl, sizeof pl));

    if (!g.failed) assign_storage(&g);
    if (!g.failed) emit_header(&g, lab);
    g.skip_group = -1;
    for (int gi = 0; gi < plan->n_groups && !g.failed; gi++)
        if (gi != g.skip_group) gen_group(&g, gi);

    char *text = kf_sb_take(&g.src);
    if (!text && !g.failed) ocl_failf(&g, "out of memory while generating OpenCL code");
    if (!g.failed && kf_candidate_add_source(g.cand, "kernel.cl", text) != 0)
        ocl_failf(&g, "out of memory while generating OpenCL code");
    free(text);
    if (!g.failed) {
        free(g.cand->build_options);
        g.cand->build_options = xstrdup(&g, "-cl-mad-enable");
        char full[560];
        char lib[160] = "";
        int own = 0;   /* GEMM groups left to the own tiled kernel */
        for (int gi = 0; blas && gi < plan->n_groups; gi++) own += plan->groups[gi].kind == KF_BT_GEMM;
        own -= g.n_library;
        if (g.n_library)
            snprintf(lib, sizeof lib, " + %d cuBLAS call%s", g.n_library, g.n_library == 1 ? "" : "s");
        if (blas && own > 0)
            snprintf(lib + strlen(lib), sizeof lib - strlen(lib), ", %d GEMM%s with an epilogue or a batch "
                     "layout cuBLAS cannot take on the own tiled kernel", own, own == 1 ? "" : "s");
        snprintf(full, sizeof full, "%s, %d kernel%s%s%s%s%s%s", lab, g.n_kernels, g.n_kernels == 1 ? "" : "s", lib,
                 g.n_gemv_sums ? ", sum of a GEMM's rows as column sums + GEMV" : "",
                 g.norm_modes & OCL_NORM_GN_PANEL ? ", GroupNorm finished in the GEMM's tiles" : "",
                 g.norm_modes & OCL_NORM_GN_SPLIT ? ", GroupNorm statistics in the GEMM's epilogue (two-pass)" : "",
                 g.norm_modes & OCL_NORM_BN_SPLIT ? ", BatchNorm statistics in the GEMM's epilogue (two-pass)" : "");
        g.cand->notes = xstrdup(&g, full);
        if (label) *label = xstrdup(&g, full);
    }
    for (int v = 0; v < nv; v++) {
        if (g.store_name) free(g.store_name[v]);
        if (g.ident) free(g.ident[v]);
    }
    free(g.store_name);
    free(g.ident);
    free(g.half);
    if (g.failed) {
        kf_candidate_free(g.cand);
        if (label) { free(*label); *label = NULL; }
        return -1;
    }
    *out = g.cand;
    return 0;
}
