/*
 * candidate_bind.c — binds a candidate to a resolved problem: resolves every
 * argument name (input, output, scratch buffer or dim), evaluates every
 * integer expression (sizes, scratch bytes, int/long/local args, tensor
 * maps' dims, strides and boxes), checks the
 * launch geometry (work_dim 1..3, global >= 1, local divides global as
 * OpenCL 1.2 requires) and lays the result out as the plugin ABI's
 * kf_candidate_view + kf_problem_view.
 */
#include "candidate.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct bctx {
    const kf_candidate *c;
    const kf_resolved *r;
    kf_bound *b;
    kf_error *err;
    const char *origin;
    int n_tmaps;         /* tensor maps bound so far (into b->tensor_maps) */
} bctx;

static int bfail(bctx *bc, const char *path, const char *msg)
{
    return kf_fail(bc->err, KF_E_BAD_INPUT, "%s: %s: %s", bc->origin, path, msg);
}

static const char *value_name(const kf_problem *p, int v)
{
    const char *n = kf_problem_value_name(p, v);   /* an input, a node or a declared output */
    return n ? n : "?";
}

static int64_t shape_elems(const kf_shape *s)
{
    int64_t n = 1;
    for (int i = 0; i < s->rank; i++)
        n *= s->d[i];
    return n;
}

/* Evaluates `expr` at `path`; the message names the path and the expression. */
static int eval_at(bctx *bc, const char *path, const char *expr, int64_t *out)
{
    kf_error e;
    kf_error_clear(&e);
    if (kf_eval_int_expr(expr, bc->r, out, &e) == 0)
        return 0;
    return bfail(bc, path, e.msg);
}

static void list_names(char *buf, size_t len, size_t *used, const char *title,
                       const char *const *names, int n, int last)
{
    *used += (size_t)snprintf(buf + *used, *used < len ? len - *used : 0, "%s: ", title);
    if (n == 0)
        *used += (size_t)snprintf(buf + *used, *used < len ? len - *used : 0, "-");
    for (int i = 0; i < n; i++)
        *used += (size_t)snprintf(buf + *used, *used < len ? len - *used : 0, "%s%s",
                                  i ? ", " : "", names[i]);
    if (!last)
        *used += (size_t)snprintf(buf + *used, *used < len ? len - *used : 0, "; ");
}

static void known_names(bctx *bc, char *buf, size_t len)
{
    const kf_bound *b = bc->b;
    const char **scratch = calloc((size_t)bc->c->n_scratch + 1, sizeof *scratch);
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; scratch && i < bc->c->n_scratch; i++)
        scratch[i] = bc->c->scratch[i].name;
    list_names(buf, len, &used, "inputs", b->input_names, b->pview.n_inputs, 0);
    list_names(buf, len, &used, "outputs", b->output_names, b->pview.n_outputs, 0);
    list_names(buf, len, &used, "scratch", scratch, scratch ? bc->c->n_scratch : 0, 0);
    list_names(buf, len, &used, "dims", b->dim_names, b->pview.n_dims, 1);
    free(scratch);
}

/* Resolves a name argument into `a`. */
static int bind_name(bctx *bc, const char *path, const char *name, kf_arg *a)
{
    const kf_bound *b = bc->b;
    char msg[1536], known[1024];
    int hits = 0;
    char kinds[128] = "";
    size_t kl = 0;

#define HIT(K, what, i) do { hits++; a->kind = (K); a->index = (i); \
        kl += (size_t)snprintf(kinds + kl, kl < sizeof kinds ? sizeof kinds - kl : 0, \
                               "%s%s", kl ? " and " : "", what); } while (0)
    for (int i = 0; i < b->pview.n_inputs; i++)
        if (!strcmp(b->input_names[i], name))
            HIT(KF_ARG_INPUT, "an input", i);
    for (int i = 0; i < b->pview.n_outputs; i++)
        if (!strcmp(b->output_names[i], name))
            HIT(KF_ARG_OUTPUT, "an output", i);
    for (int i = 0; i < bc->c->n_scratch; i++)
        if (!strcmp(bc->c->scratch[i].name, name))
            HIT(KF_ARG_SCRATCH, "a scratch buffer", i);
    for (int i = 0; i < b->pview.n_dims; i++) {
        if (!strcmp(b->dim_names[i], name)) {
            HIT(KF_ARG_INT, "a dim", i);
            a->index = 0;
            a->ival = b->dim_values[i];
        }
    }
#undef HIT
    if (hits == 1) {
        if (a->kind == KF_ARG_INT && (a->ival > INT32_MAX || a->ival < INT32_MIN)) {
            snprintf(msg, sizeof msg, "dim '%s' = %lld does not fit a 32-bit int; pass "
                     "{\"long\": \"%s\"}", name, (long long)a->ival, name);
            return bfail(bc, path, msg);
        }
        return 0;
    }
    known_names(bc, known, sizeof known);
    if (hits == 0)
        snprintf(msg, sizeof msg, "unknown name '%s' (%s)", name, known);
    else
        snprintf(msg, sizeof msg, "ambiguous name '%s': it is %s (%s); rename the scratch "
                 "buffer or pass dims as {\"int\": \"expr\"}", name, kinds, known);
    return bfail(bc, path, msg);
}

/* A tensor map: its buffer by name (an input, output or scratch buffer),
 * every expression evaluated and >= 1; the hardware's limits and the
 * buffer's extent are the plugin's to check (it knows them). */
static int bind_tmap(bctx *bc, const char *path, const kf_cand_arg *ca, kf_arg *a)
{
    static const int64_t esize[] = {4, 2, 2};
    const kf_cand_tmap *ct = ca->tmap;
    kf_tensor_map *t = &bc->b->tensor_maps[bc->n_tmaps];
    char sub[160], msg[256];
    kf_arg buf;
    memset(t, 0, sizeof *t);
    snprintf(sub, sizeof sub, "%s.tensor_map.buffer", path);
    if (bind_name(bc, sub, ca->text, &buf))
        return -1;
    if (buf.kind != KF_ARG_INPUT && buf.kind != KF_ARG_OUTPUT && buf.kind != KF_ARG_SCRATCH) {
        snprintf(msg, sizeof msg, "'%s' is a dim; a tensor map covers an input, output or scratch buffer", ca->text);
        return bfail(bc, sub, msg);
    }
    if (ct->rank < 1 || ct->rank > KF_TMAP_MAX_RANK || ct->dtype > KF_DT_BF16)
        return bfail(bc, path, "malformed tensor map (rank or dtype)");
    t->struct_size = (uint32_t)sizeof *t;
    t->buffer_kind = buf.kind;
    t->buffer_index = buf.index;
    t->dtype = ct->dtype;
    t->rank = ct->rank;
    t->swizzle = ct->swizzle;
    t->strides[0] = esize[ct->dtype];
    for (int d = 0; d < ct->rank; d++) {
        static const char *const what[3] = {"dims", "strides", "box"};
        char *const *src[3] = {ct->dims, ct->strides, ct->box};
        int64_t *dst[3] = {t->dims, t->strides, t->box};
        for (int w = 0; w < 3; w++) {
            if (w == 1 && d == 0)
                continue;
            snprintf(sub, sizeof sub, "%s.tensor_map.%s[%d]", path, what[w], w == 1 ? d - 1 : d);
            if (!src[w][d])
                return bfail(bc, sub, "missing");
            if (eval_at(bc, sub, src[w][d], &dst[w][d]))
                return -1;
            if (dst[w][d] < 1) {
                snprintf(msg, sizeof msg, "'%s' = %lld; it must be >= 1", src[w][d], (long long)dst[w][d]);
                return bfail(bc, sub, msg);
            }
        }
    }
    a->kind = KF_ARG_TENSOR_MAP;
    a->index = bc->n_tmaps++;
    return 0;
}

static int bind_arg(bctx *bc, const char *path, const kf_cand_arg *ca, kf_arg *a)
{
    char msg[256];
    int64_t v;
    memset(a, 0, sizeof *a);
    switch (ca->kind) {
    case KF_CARG_NAME:
        return bind_name(bc, path, ca->text, a);
    case KF_CARG_FLOAT:
        a->kind = KF_ARG_FLOAT;
        a->fval = ca->fval;
        return 0;
    case KF_CARG_INT:
    case KF_CARG_LONG:
        if (eval_at(bc, path, ca->text, &v))
            return -1;
        if (ca->kind == KF_CARG_INT && (v > INT32_MAX || v < INT32_MIN)) {
            snprintf(msg, sizeof msg, "'%s' = %lld does not fit a 32-bit int; use "
                     "{\"long\": ...}", ca->text, (long long)v);
            return bfail(bc, path, msg);
        }
        a->kind = ca->kind == KF_CARG_INT ? KF_ARG_INT : KF_ARG_LONG;
        a->ival = v;
        return 0;
    case KF_CARG_LOCAL:
        if (eval_at(bc, path, ca->text, &v))
            return -1;
        if (v < 1) {
            snprintf(msg, sizeof msg, "local memory '%s' = %lld bytes; it must be >= 1",
                     ca->text, (long long)v);
            return bfail(bc, path, msg);
        }
        a->kind = KF_ARG_LOCAL;
        a->bytes = v;
        return 0;
    case KF_CARG_TENSOR_MAP:
        return bind_tmap(bc, path, ca, a);
    }
    return bfail(bc, path, "unknown argument kind");
}

static int bind_launch(bctx *bc, int li, kf_launch *l, kf_arg *args)
{
    const kf_cand_launch *cl = &bc->c->launches[li];
    char path[96], msg[512];

    l->kernel = cl->kernel;
    l->work_dim = cl->work_dim;
    l->dyn_shared_bytes = 0;
    if (cl->work_dim < 1 || cl->work_dim > 3) {
        snprintf(path, sizeof path, "launches[%d]", li);
        snprintf(msg, sizeof msg, "work_dim is %d; it must be 1, 2 or 3 (global has 1 to 3 "
                 "sizes)", cl->work_dim);
        return bfail(bc, path, msg);
    }
    for (int d = 0; d < 3; d++) {
        l->global[d] = 1;
        l->local[d] = 0;
    }
    for (int d = 0; d < cl->work_dim; d++) {
        snprintf(path, sizeof path, "launches[%d].global[%d]", li, d);
        if (!cl->global[d])
            return bfail(bc, path, "missing");
        if (eval_at(bc, path, cl->global[d], &l->global[d]))
            return -1;
        if (l->global[d] < 1) {
            snprintf(msg, sizeof msg, "'%s' = %lld; a global size must be >= 1",
                     cl->global[d], (long long)l->global[d]);
            return bfail(bc, path, msg);
        }
    }
    if (cl->local[0]) {
        for (int d = 0; d < cl->work_dim; d++) {
            snprintf(path, sizeof path, "launches[%d].local[%d]", li, d);
            if (!cl->local[d])
                return bfail(bc, path, "missing (give local sizes for every dimension or none)");
            if (eval_at(bc, path, cl->local[d], &l->local[d]))
                return -1;
            if (l->local[d] < 1) {
                snprintf(msg, sizeof msg, "'%s' = %lld; a local size must be >= 1",
                         cl->local[d], (long long)l->local[d]);
                return bfail(bc, path, msg);
            }
            if (l->global[d] % l->local[d] != 0) {
                snprintf(msg, sizeof msg, "local size %lld does not divide global size %lld "
                         "('%s'); OpenCL 1.2 requires it: round the global size up, e.g. "
                         "round_up(%s,%lld), and guard the tail in the kernel",
                         (long long)l->local[d], (long long)l->global[d], cl->global[d],
                         cl->global[d], (long long)l->local[d]);
                return bfail(bc, path, msg);
            }
        }
    }
    l->n_args = cl->n_args;
    l->args = args;
    for (int a = 0; a < cl->n_args; a++) {
        snprintf(path, sizeof path, "launches[%d].args[%d]", li, a);
        if (bind_arg(bc, path, &cl->args[a], &args[a]))
            return -1;
    }
    return 0;
}

/* Fills the problem view (names, dims, element counts). */
static int bind_problem(bctx *bc)
{
    const kf_problem *p = bc->r->problem;
    kf_bound *b = bc->b;
    int ns = bc->c->n_scratch;

    b->dim_names = calloc((size_t)p->n_dims + 1, sizeof *b->dim_names);
    b->dim_values = calloc((size_t)p->n_dims + 1, sizeof *b->dim_values);
    b->input_names = calloc((size_t)p->n_inputs + 1, sizeof *b->input_names);
    b->input_elems = calloc((size_t)p->n_inputs + 1, sizeof *b->input_elems);
    b->output_names = calloc((size_t)p->n_outputs + 1, sizeof *b->output_names);
    b->output_elems = calloc((size_t)p->n_outputs + 1, sizeof *b->output_elems);
    b->scratch_bytes = calloc((size_t)ns + 1, sizeof *b->scratch_bytes);
    if (!b->dim_names || !b->dim_values || !b->input_names || !b->input_elems ||
        !b->output_names || !b->output_elems || !b->scratch_bytes)
        return kf_fail(bc->err, KF_E_INTERNAL, "%s: out of memory binding the candidate", bc->origin);
    for (int i = 0; i < p->n_dims; i++) {
        b->dim_names[i] = p->dim_names[i];
        b->dim_values[i] = bc->r->dims[i];
    }
    for (int i = 0; i < p->n_inputs; i++) {
        b->input_names[i] = p->inputs[i].name;
        b->input_elems[i] = shape_elems(&bc->r->shapes[i]);
    }
    for (int o = 0; o < p->n_outputs; o++) {
        b->output_names[o] = value_name(p, p->outputs[o]);
        b->output_elems[o] = shape_elems(&bc->r->shapes[p->outputs[o]]);
    }
    b->pview = (kf_problem_view){
        .name = p->name, .n_dims = p->n_dims, .dim_names = b->dim_names,
        .dim_values = b->dim_values, .n_inputs = p->n_inputs, .input_names = b->input_names,
        .input_elems = b->input_elems, .n_outputs = p->n_outputs,
        .output_names = b->output_names, .output_elems = b->output_elems,
        .n_scratch = ns, .scratch_bytes = b->scratch_bytes};
    for (int s = 0; s < ns; s++) {
        char path[64], msg[256];
        snprintf(path, sizeof path, "scratch[%d].bytes", s);
        if (eval_at(bc, path, bc->c->scratch[s].bytes_expr, &b->scratch_bytes[s]))
            return -1;
        for (int k = 0; k < p->n_inputs + p->n_outputs + p->n_dims; k++) {
            const char *other = k < p->n_inputs ? b->input_names[k]
                              : k < p->n_inputs + p->n_outputs
                                    ? b->output_names[k - p->n_inputs]
                                    : b->dim_names[k - p->n_inputs - p->n_outputs];
            if (!strcmp(other, bc->c->scratch[s].name)) {
                snprintf(path, sizeof path, "scratch[%d].name", s);
                snprintf(msg, sizeof msg, "'%s' collides with a problem %s of that name; "
                         "choose another name", other,
                         k < p->n_inputs ? "input" : k < p->n_inputs + p->n_outputs
                                                         ? "output" : "dim");
                return bfail(bc, path, msg);
            }
        }
        if (b->scratch_bytes[s] < 0) {
            snprintf(msg, sizeof msg, "'%s' = %lld bytes; it must be >= 0",
                     bc->c->scratch[s].bytes_expr, (long long)b->scratch_bytes[s]);
            return bfail(bc, path, msg);
        }
    }
    return 0;
}

int kf_candidate_bind(const kf_candidate *c, const kf_resolved *r, kf_bound *out, kf_error *err)
{
    bctx bc = {c, r, out, err, c && c->origin ? c->origin : "candidate", 0};
    int total_args = 0, total_tmaps = 0;

    memset(out, 0, sizeof *out);
    if (!c || !r || !r->problem)
        return kf_fail(err, KF_E_BAD_INPUT, "candidate bind: no candidate or no resolved problem");
    if (bind_problem(&bc))
        goto fail;
    char why[300];
    if (kf_build_options_check(c->build_options, why, sizeof why) != 0) {
        kf_fail(err, KF_E_BAD_INPUT, "%s: %s", bc.origin, why);
        goto fail;
    }

    out->sources = calloc((size_t)c->n_sources + 1, sizeof *out->sources);
    for (int i = 0; i < c->n_launches; i++) {
        total_args += c->launches[i].n_args;
        for (int a = 0; a < c->launches[i].n_args; a++)
            total_tmaps += c->launches[i].args[a].kind == KF_CARG_TENSOR_MAP;
    }
    out->launches = calloc((size_t)c->n_launches + 1, sizeof *out->launches);
    out->args = calloc((size_t)total_args + 1, sizeof *out->args);
    out->tensor_maps = calloc((size_t)total_tmaps + 1, sizeof *out->tensor_maps);
    if (!out->sources || !out->launches || !out->args || !out->tensor_maps) {
        kf_fail(err, KF_E_INTERNAL, "%s: out of memory binding the candidate", bc.origin);
        goto fail;
    }
    for (int i = 0; i < c->n_sources; i++)
        out->sources[i] = (kf_source){c->sources[i].name, c->sources[i].text, c->sources[i].size, c->sources[i].format};
    total_args = 0;
    for (int i = 0; i < c->n_launches; i++) {
        if (bind_launch(&bc, i, &out->launches[i], out->args + total_args))
            goto fail;
        total_args += c->launches[i].n_args;
    }
    out->view = (kf_candidate_view){
        .backend = c->backend, .n_sources = c->n_sources, .sources = out->sources,
        .build_options = c->build_options ? c->build_options : "", .entry = c->entry,
        .n_launches = c->n_launches, .launches = out->launches, .struct_size = (uint32_t)sizeof(kf_candidate_view),
        .source_size = (uint32_t)sizeof(kf_source), .launch_size = (uint32_t)sizeof(kf_launch),
        .n_tensor_maps = bc.n_tmaps, .tensor_maps = out->tensor_maps,
        .tensor_map_size = (uint32_t)sizeof(kf_tensor_map)};
    return 0;
fail:
    kf_bound_free(out);
    return -1;
}

void kf_bound_free(kf_bound *b)
{
    if (!b)
        return;
    free(b->sources);
    free(b->launches);
    free(b->args);
    free(b->tensor_maps);
    free(b->dim_names);
    free(b->input_names);
    free(b->output_names);
    free(b->dim_values);
    free(b->input_elems);
    free(b->output_elems);
    free(b->scratch_bytes);
    memset(b, 0, sizeof *b);
}
