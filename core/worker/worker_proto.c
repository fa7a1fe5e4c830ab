/* worker_proto.c — encoding and decoding of the worker protocol (see
 * worker_proto.h).  Decoding is defensive on both sides: the parent reads
 * replies from a process that runs untrusted code. */
#include "worker_proto.h"

#include "util/base64.h"

#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int kf_wp_layout_regions(const kf_wp_layout *l)
{
    return l->n_sets * (l->n_inputs + l->n_outputs + l->n_scratch);
}

int kf_wp_layout_check(const kf_wp_layout *l, kf_error *err)
{
    if (l->n_sets < 1 || l->n_inputs < 0 || l->n_outputs < 0 || l->n_scratch < 0)
        return kf_fail(err, KF_E_BAD_INPUT, "layout: bad counts");
    int n = kf_wp_layout_regions(l);
    for (int i = 0; i < n; i++) {
        const kf_wp_region *g = &l->regions[i];
        if (g->guard % 4096 || g->offset % 4096 || g->bytes > l->size || g->guard > l->size ||
            g->offset > l->size - g->bytes || 2 * g->guard > l->size - g->offset - g->bytes)
            return kf_fail(err, KF_E_BAD_INPUT, "layout: region %d does not fit the %llu-byte memfd",
                           i, (unsigned long long)l->size);
    }
    return 0;
}

char *kf_wp_layout_json(const kf_wp_layout *l)
{
    json_object *o = json_object_new_object();
    json_object_object_add(o, "size", json_object_new_int64((int64_t)l->size));
    json_object_object_add(o, "n_sets", json_object_new_int(l->n_sets));
    json_object_object_add(o, "n_inputs", json_object_new_int(l->n_inputs));
    json_object_object_add(o, "n_outputs", json_object_new_int(l->n_outputs));
    json_object_object_add(o, "n_scratch", json_object_new_int(l->n_scratch));
    json_object *a = json_object_new_array();
    for (int i = 0; i < kf_wp_layout_regions(l); i++) {
        json_object *r = json_object_new_array();
        json_object_array_add(r, json_object_new_int64((int64_t)l->regions[i].offset));
        json_object_array_add(r, json_object_new_int64((int64_t)l->regions[i].bytes));
        json_object_array_add(r, json_object_new_int64((int64_t)l->regions[i].guard));
        json_object_array_add(a, r);
    }
    json_object_object_add(o, "regions", a);
    char *s = strdup(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
    json_object_put(o);
    return s;
}

void kf_wp_layout_free(kf_wp_layout *l)
{
    free(l->regions);
    memset(l, 0, sizeof *l);
}

int kf_wp_sets_build(const kf_wp_layout *l, unsigned char *map, kf_wp_sets *out)
{
    memset(out, 0, sizeof *out);
    int per = l->n_inputs + l->n_outputs + l->n_scratch;
    out->sets = calloc((size_t)l->n_sets, sizeof *out->sets);
    out->bufs = calloc((size_t)(l->n_sets * per + 1), sizeof *out->bufs);
    if (!out->sets || !out->bufs) {
        kf_wp_sets_free(out);
        return -1;
    }
    out->n_sets = l->n_sets;
    for (int s = 0; s < l->n_sets; s++) {
        kf_buffer *b = out->bufs + (size_t)s * per;
        for (int k = 0; k < per; k++) {
            const kf_wp_region *g = &l->regions[s * per + k];
            b[k].base = map + g->offset;
            b[k].data = (float *)(void *)(map + g->offset + g->guard);
            b[k].bytes = (size_t)g->bytes;
            b[k].guard_bytes = (size_t)g->guard;
            b[k].dtype = KF_DT_F32;
        }
        out->sets[s].inputs = b;
        out->sets[s].outputs = b + l->n_inputs;
        out->sets[s].scratch = b + l->n_inputs + l->n_outputs;
    }
    return 0;
}

void kf_wp_sets_free(kf_wp_sets *s)
{
    free(s->sets);
    free(s->bufs);
    memset(s, 0, sizeof *s);
}

/* ------------------------------------------------------------------ */
/* views                                                               */

static json_object *str_or_null(const char *s)
{
    return s ? json_object_new_string(s) : NULL;
}

static json_object *named_array(int n, const char *const *names, const int64_t *vals,
                                const char *vkey)
{
    json_object *a = json_object_new_array();
    for (int i = 0; i < n; i++) {
        json_object *o = json_object_new_object();
        json_object_object_add(o, "name", json_object_new_string(names[i] ? names[i] : ""));
        json_object_object_add(o, vkey, json_object_new_int64(vals[i]));
        json_object_array_add(a, o);
    }
    return a;
}

char *kf_wp_problem_json(const kf_problem_view *pv)
{
    json_object *o = json_object_new_object();
    json_object_object_add(o, "name", json_object_new_string(pv->name ? pv->name : ""));
    json_object_object_add(o, "dims", named_array(pv->n_dims, pv->dim_names, pv->dim_values, "value"));
    json_object_object_add(o, "inputs", named_array(pv->n_inputs, pv->input_names, pv->input_elems, "elems"));
    json_object_object_add(o, "outputs", named_array(pv->n_outputs, pv->output_names, pv->output_elems, "elems"));
    json_object *sc = json_object_new_array();
    for (int i = 0; i < pv->n_scratch; i++)
        json_object_array_add(sc, json_object_new_int64(pv->scratch_bytes[i]));
    json_object_object_add(o, "scratch_bytes", sc);
    char *s = strdup(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
    json_object_put(o);
    return s;
}

char *kf_wp_candidate_json(const kf_candidate_view *cv)
{
    json_object *o = json_object_new_object();
    json_object_object_add(o, "backend", str_or_null(cv->backend));
    json_object *srcs = json_object_new_array();
    for (int i = 0; i < cv->n_sources; i++) {
        json_object *s = json_object_new_object();
        json_object_object_add(s, "name", json_object_new_string(cv->sources[i].name ? cv->sources[i].name : ""));
        uint32_t fmt = cv->sources[i].format;
        if (fmt == KF_SRC_SPIRV || fmt == KF_SRC_CUBIN) {
            /* binary modules travel as base64 ("data"), text as it is */
            char *b64 = kf_base64_encode(cv->sources[i].text ? cv->sources[i].text : "", cv->sources[i].size);
            if (!b64) {
                json_object_put(s);
                json_object_put(srcs);
                json_object_put(o);
                return NULL;
            }
            json_object_object_add(s, "data", json_object_new_string(b64));
            free(b64);
        } else {
            json_object_object_add(s, "text", json_object_new_string(cv->sources[i].text ? cv->sources[i].text : ""));
        }
        json_object_object_add(s, "format", json_object_new_int((int)fmt));
        json_object_array_add(srcs, s);
    }
    json_object_object_add(o, "sources", srcs);
    json_object_object_add(o, "build_options", json_object_new_string(cv->build_options ? cv->build_options : ""));
    json_object_object_add(o, "entry", str_or_null(cv->entry));
    json_object *ls = json_object_new_array();
    for (int i = 0; i < cv->n_launches; i++) {
        const kf_launch *L = &cv->launches[i];
        json_object *lo = json_object_new_object();
        json_object_object_add(lo, "kernel", json_object_new_string(L->kernel ? L->kernel : ""));
        json_object_object_add(lo, "work_dim", json_object_new_int(L->work_dim));
        json_object_object_add(lo, "dyn_shared_bytes", json_object_new_int64(L->dyn_shared_bytes));
        json_object *g = json_object_new_array(), *lc = json_object_new_array();
        for (int d = 0; d < 3; d++) {
            json_object_array_add(g, json_object_new_int64(L->global[d]));
            json_object_array_add(lc, json_object_new_int64(L->local[d]));
        }
        json_object_object_add(lo, "global", g);
        json_object_object_add(lo, "local", lc);
        json_object *args = json_object_new_array();
        for (int a = 0; a < L->n_args; a++) {
            const kf_arg *A = &L->args[a];
            json_object *ao = json_object_new_array();
            json_object_array_add(ao, json_object_new_int((int)A->kind));
            json_object_array_add(ao, json_object_new_int(A->index));
            json_object_array_add(ao, json_object_new_int64(A->ival));
            json_object_array_add(ao, json_object_new_double(isfinite(A->fval) ? A->fval : 0.0));
            json_object_array_add(ao, json_object_new_int64(A->bytes));
            json_object_array_add(args, ao);
        }
        json_object_object_add(lo, "args", args);
        json_object_array_add(ls, lo);
    }
    json_object_object_add(o, "launches", ls);
    if (cv->n_tensor_maps > 0) {
        /* each [buffer kind, index, dtype, rank, swizzle, dims[5], strides[5], box[5]] */
        json_object *tm = json_object_new_array();
        for (int i = 0; i < cv->n_tensor_maps; i++) {
            const kf_tensor_map *t = KF_AT(kf_tensor_map, cv->tensor_maps, cv->tensor_map_size, i);
            json_object *to = json_object_new_array();
            const int64_t head[5] = {(int64_t)t->buffer_kind, t->buffer_index, (int64_t)t->dtype, t->rank, t->swizzle};
            for (int k = 0; k < 5; k++) json_object_array_add(to, json_object_new_int64(head[k]));
            for (int k = 0; k < KF_TMAP_MAX_RANK; k++) json_object_array_add(to, json_object_new_int64(t->dims[k]));
            for (int k = 0; k < KF_TMAP_MAX_RANK; k++) json_object_array_add(to, json_object_new_int64(t->strides[k]));
            for (int k = 0; k < KF_TMAP_MAX_RANK; k++) json_object_array_add(to, json_object_new_int64(t->box[k]));
            json_object_array_add(tm, to);
        }
        json_object_object_add(o, "tensor_maps", tm);
    }
    char *s = strdup(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
    json_object_put(o);
    return s;
}

/* Decoded storage: the parsed command is kept alive (strings point into
 * it) together with the arrays built from it. */
typedef struct wp_store {
    json_object *root;
    const char **names;       /* dims, inputs, outputs */
    int64_t *vals;            /* dims, input elems, output elems, scratch */
    kf_source *sources;
    kf_launch *launches;
    kf_arg *args;
    kf_tensor_map *tmaps;
    unsigned char **blobs;    /* decoded binary sources */
    int n_blobs;
} wp_store;

static json_object *get(json_object *o, const char *key, json_type t)
{
    json_object *v = NULL;
    if (!o || !json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, t)) return NULL;
    return v;
}

static const char *get_str(json_object *o, const char *key)
{
    json_object *v = get(o, key, json_type_string);
    return v ? json_object_get_string(v) : NULL;
}

static int64_t arr_int(json_object *a, size_t i)
{
    return json_object_get_int64(json_object_array_get_idx(a, i));
}

/* Reads an array of {"name","<vkey>"} into names/vals. */
static int decode_named(json_object *a, const char *vkey, const char **names, int64_t *vals)
{
    size_t n = json_object_array_length(a);
    for (size_t i = 0; i < n; i++) {
        json_object *e = json_object_array_get_idx(a, i);
        json_object *v = get(e, vkey, json_type_int);
        names[i] = get_str(e, "name");
        if (!names[i] || !v) return -1;
        vals[i] = json_object_get_int64(v);
    }
    return 0;
}

static void views_storage_free(wp_store *st)
{
    if (!st) return;
    json_object_put(st->root);
    free(st->names);
    free(st->vals);
    free(st->sources);
    free(st->launches);
    free(st->args);
    free(st->tmaps);
    for (int i = 0; i < st->n_blobs; i++) free(st->blobs[i]);
    free(st->blobs);
    free(st);
}

int kf_wp_decode_load(json_object *cmd, kf_wp_views *v, kf_wp_layout *l, kf_error *err)
{
    memset(v, 0, sizeof *v);
    memset(l, 0, sizeof *l);
    json_object *p = get(cmd, "problem", json_type_object);
    json_object *c = get(cmd, "candidate", json_type_object);
    json_object *lo = get(cmd, "layout", json_type_object);
    json_object *dims = get(p, "dims", json_type_array), *ins = get(p, "inputs", json_type_array),
                *outs = get(p, "outputs", json_type_array), *scr = get(p, "scratch_bytes", json_type_array);
    json_object *srcs = get(c, "sources", json_type_array), *lch = get(c, "launches", json_type_array);
    json_object *regs = get(lo, "regions", json_type_array);
    if (!dims || !ins || !outs || !scr || !srcs || !lch || !regs)
        return kf_fail(err, KF_E_BAD_INPUT, "load: missing problem, candidate or layout fields");

    wp_store *st = calloc(1, sizeof *st);
    if (!st) return kf_fail(err, KF_E_INTERNAL, "load: out of memory");
    st->root = json_object_get(cmd);
    v->storage = st;
    int nd = (int)json_object_array_length(dims), ni = (int)json_object_array_length(ins),
        no = (int)json_object_array_length(outs), ns = (int)json_object_array_length(scr);
    int nsrc = (int)json_object_array_length(srcs), nl = (int)json_object_array_length(lch);
    size_t nargs = 0;
    for (int i = 0; i < nl; i++) {
        json_object *a = get(json_object_array_get_idx(lch, i), "args", json_type_array);
        if (!a) goto bad;
        nargs += json_object_array_length(a);
    }
    st->names = calloc((size_t)(nd + ni + no + 1), sizeof *st->names);
    st->vals = calloc((size_t)(nd + ni + no + ns + 1), sizeof *st->vals);
    st->sources = calloc((size_t)nsrc + 1, sizeof *st->sources);
    st->launches = calloc((size_t)nl + 1, sizeof *st->launches);
    st->args = calloc(nargs + 1, sizeof *st->args);
    if (!st->names || !st->vals || !st->sources || !st->launches || !st->args) {
        kf_wp_views_free(v);
        return kf_fail(err, KF_E_INTERNAL, "load: out of memory");
    }
    kf_problem_view *pv = &v->problem;
    pv->name = get_str(p, "name");
    pv->n_dims = nd;
    pv->dim_names = st->names;
    pv->dim_values = st->vals;
    pv->n_inputs = ni;
    pv->input_names = st->names + nd;
    pv->input_elems = st->vals + nd;
    pv->n_outputs = no;
    pv->output_names = st->names + nd + ni;
    pv->output_elems = st->vals + nd + ni;
    pv->n_scratch = ns;
    pv->scratch_bytes = st->vals + nd + ni + no;
    if (decode_named(dims, "value", st->names, st->vals) || decode_named(ins, "elems", st->names + nd, st->vals + nd) ||
        decode_named(outs, "elems", st->names + nd + ni, st->vals + nd + ni))
        goto bad;
    for (int i = 0; i < ns; i++) st->vals[nd + ni + no + i] = arr_int(scr, (size_t)i);

    kf_candidate_view *cv = &v->candidate;
    cv->backend = get_str(c, "backend");
    cv->build_options = get_str(c, "build_options");
    cv->entry = get_str(c, "entry");
    cv->n_sources = nsrc;
    cv->sources = st->sources;
    for (int i = 0; i < nsrc; i++) {
        json_object *s = json_object_array_get_idx(srcs, (size_t)i);
        st->sources[i].name = get_str(s, "name");
        json_object *fm = get(s, "format", json_type_int);
        st->sources[i].format = fm ? (uint32_t)json_object_get_int(fm) : KF_SRC_TEXT;
        if (st->sources[i].format > KF_SRC_SPIRV) goto bad;
        if (st->sources[i].format == KF_SRC_SPIRV || st->sources[i].format == KF_SRC_CUBIN) {
            const char *b64 = get_str(s, "data");
            unsigned char *bytes = NULL;
            size_t n = 0;
            if (!b64 || kf_base64_decode(b64, &bytes, &n) != 0) goto bad;
            unsigned char **keep = realloc(st->blobs, (size_t)(st->n_blobs + 1) * sizeof *keep);
            if (!keep) { free(bytes); goto bad; }
            st->blobs = keep;
            st->blobs[st->n_blobs++] = bytes;
            st->sources[i].text = (const char *)bytes;
            st->sources[i].size = n;
        } else {
            st->sources[i].text = get_str(s, "text");
            if (!st->sources[i].text) goto bad;
            st->sources[i].size = strlen(st->sources[i].text);
        }
        if (!st->sources[i].name) goto bad;
    }
    if (!cv->build_options) cv->build_options = "";
    cv->n_launches = nl;
    cv->launches = st->launches;
    cv->struct_size = (uint32_t)sizeof *cv;
    cv->source_size = (uint32_t)sizeof(kf_source);
    cv->launch_size = (uint32_t)sizeof(kf_launch);
    kf_arg *arg = st->args;
    for (int i = 0; i < nl; i++) {
        json_object *L = json_object_array_get_idx(lch, (size_t)i);
        json_object *g = get(L, "global", json_type_array), *lc = get(L, "local", json_type_array);
        json_object *a = get(L, "args", json_type_array);
        json_object *wd = get(L, "work_dim", json_type_int);
        kf_launch *ld = &st->launches[i];
        ld->kernel = get_str(L, "kernel");
        if (!ld->kernel || !g || !lc || !wd || json_object_array_length(g) != 3 ||
            json_object_array_length(lc) != 3)
            goto bad;
        ld->work_dim = json_object_get_int(wd);
        json_object *ds = get(L, "dyn_shared_bytes", json_type_int);
        ld->dyn_shared_bytes = ds ? json_object_get_int64(ds) : 0;
        if (ld->dyn_shared_bytes < 0) goto bad;
        for (int d = 0; d < 3; d++) {
            ld->global[d] = arr_int(g, (size_t)d);
            ld->local[d] = arr_int(lc, (size_t)d);
        }
        ld->n_args = (int)json_object_array_length(a);
        ld->args = arg;
        for (int k = 0; k < ld->n_args; k++, arg++) {
            json_object *ao = json_object_array_get_idx(a, (size_t)k);
            if (!json_object_is_type(ao, json_type_array) || json_object_array_length(ao) != 5) goto bad;
            arg->kind = (kf_arg_kind)arr_int(ao, 0);
            arg->index = (int)arr_int(ao, 1);
            arg->ival = arr_int(ao, 2);
            arg->fval = json_object_get_double(json_object_array_get_idx(ao, 3));
            arg->bytes = arr_int(ao, 4);
        }
    }
    json_object *tms = get(c, "tensor_maps", json_type_array);
    int ntm = tms ? (int)json_object_array_length(tms) : 0;
    if (ntm > 4096) goto bad;
    if (!(st->tmaps = calloc((size_t)ntm + 1, sizeof *st->tmaps))) goto bad;
    for (int i = 0; i < ntm; i++) {
        json_object *to = json_object_array_get_idx(tms, (size_t)i);
        kf_tensor_map *t = &st->tmaps[i];
        if (!json_object_is_type(to, json_type_array) || json_object_array_length(to) != 5 + 3 * KF_TMAP_MAX_RANK)
            goto bad;
        const int64_t kind = arr_int(to, 0), idx = arr_int(to, 1), dt = arr_int(to, 2), rank = arr_int(to, 3),
                      sw = arr_int(to, 4);
        if (kind < KF_ARG_INPUT || kind > KF_ARG_SCRATCH || idx < 0 || idx > INT32_MAX || dt < 0 || dt > KF_DT_BF16 ||
            rank < 1 || rank > KF_TMAP_MAX_RANK || sw < 0 || sw > 128)
            goto bad;
        t->struct_size = (uint32_t)sizeof *t;
        t->buffer_kind = (kf_arg_kind)kind;
        t->buffer_index = (int)idx;
        t->dtype = (uint32_t)dt;
        t->rank = (int)rank;
        t->swizzle = (int)sw;
        for (int k = 0; k < KF_TMAP_MAX_RANK; k++) {
            t->dims[k] = arr_int(to, (size_t)(5 + k));
            t->strides[k] = arr_int(to, (size_t)(5 + KF_TMAP_MAX_RANK + k));
            t->box[k] = arr_int(to, (size_t)(5 + 2 * KF_TMAP_MAX_RANK + k));
        }
    }
    cv->n_tensor_maps = ntm;
    cv->tensor_maps = st->tmaps;
    cv->tensor_map_size = (uint32_t)sizeof(kf_tensor_map);

    json_object *sz = get(lo, "size", json_type_int);
    json_object *cnt[4] = {get(lo, "n_sets", json_type_int), get(lo, "n_inputs", json_type_int),
                           get(lo, "n_outputs", json_type_int), get(lo, "n_scratch", json_type_int)};
    if (!sz || !cnt[0] || !cnt[1] || !cnt[2] || !cnt[3]) goto bad;
    l->size = (uint64_t)json_object_get_int64(sz);
    l->n_sets = json_object_get_int(cnt[0]);
    l->n_inputs = json_object_get_int(cnt[1]);
    l->n_outputs = json_object_get_int(cnt[2]);
    l->n_scratch = json_object_get_int(cnt[3]);
    if (l->n_sets < 1 || l->n_sets > 4096 || l->n_inputs != ni || l->n_outputs != no ||
        l->n_scratch != ns || (int)json_object_array_length(regs) != kf_wp_layout_regions(l))
        goto bad;
    l->regions = calloc((size_t)kf_wp_layout_regions(l) + 1, sizeof *l->regions);
    if (!l->regions) goto bad;
    for (int i = 0; i < kf_wp_layout_regions(l); i++) {
        json_object *r = json_object_array_get_idx(regs, (size_t)i);
        if (!json_object_is_type(r, json_type_array) || json_object_array_length(r) != 3) goto bad;
        l->regions[i].offset = (uint64_t)arr_int(r, 0);
        l->regions[i].bytes = (uint64_t)arr_int(r, 1);
        l->regions[i].guard = (uint64_t)arr_int(r, 2);
    }
    if (kf_wp_layout_check(l, err) != 0) {
        kf_wp_views_free(v);
        kf_wp_layout_free(l);
        return -1;
    }
    return 0;
bad:
    kf_wp_views_free(v);
    kf_wp_layout_free(l);
    return kf_fail(err, KF_E_BAD_INPUT, "load: malformed command");
}

void kf_wp_views_free(kf_wp_views *v)
{
    views_storage_free(v->storage);
    memset(v, 0, sizeof *v);
}

/* ------------------------------------------------------------------ */
/* replies                                                             */

char *kf_wp_reply_json(const kf_wp_reply *r)
{
    json_object *o = json_object_new_object();
    json_object_object_add(o, "status", json_object_new_int(r->status));
    json_object_object_add(o, "diagnostics", str_or_null(r->diagnostics));
    json_object_object_add(o, "error", str_or_null(r->error));
    json_object_object_add(o, "report", str_or_null(r->report));
    json_object *s = json_object_new_array();
    for (int i = 0; i < r->n_samples; i++)
        json_object_array_add(s, json_object_new_double(isfinite(r->samples[i]) ? r->samples[i] : -1.0));
    json_object_object_add(o, "samples", s);
    json_object_object_add(o, "clock_is_device", json_object_new_int(r->clock_is_device ? 1 : 0));
    json_object *c = json_object_new_array();
    for (int i = 0; i < r->n_counters && i < KF_MAX_COUNTERS; i++) {
        json_object *e = json_object_new_array();
        json_object_array_add(e, json_object_new_string(r->counters[i].name));
        json_object_array_add(e, json_object_new_double(isfinite(r->counters[i].value) ? r->counters[i].value : 0.0));
        json_object_array_add(c, e);
    }
    json_object_object_add(o, "counters", c);
    if (r->sandbox >= 0) json_object_object_add(o, "sandbox", json_object_new_int(r->sandbox));
    if (r->seq) json_object_object_add(o, "seq", json_object_new_int64(r->seq));
    json_object_object_add(o, "sandbox_why", str_or_null(r->sandbox_why));
    if (r->binary) {
        char *b64 = r->binary_size <= KF_WP_MAX_BINARY ? kf_base64_encode(r->binary, r->binary_size) : NULL;
        if (!b64) {
            json_object_put(o);
            return NULL;
        }
        json_object_object_add(o, "binary", json_object_new_string(b64));
        free(b64);
    }
    char *txt = strdup(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
    json_object_put(o);
    return txt;
}

static char *dup_opt(json_object *o, const char *key)
{
    const char *s = get_str(o, key);
    return s ? strdup(s) : NULL;
}

int kf_wp_reply_parse(const char *line, kf_wp_reply *r, char *why, size_t why_len)
{
    memset(r, 0, sizeof *r);
    json_object *o = json_tokener_parse(line);
    json_object *st = get(o, "status", json_type_int);
    if (!st) {
        snprintf(why, why_len, "the worker's reply is not a protocol message");
        json_object_put(o);
        return -1;
    }
    r->status = json_object_get_int(st);
    r->diagnostics = dup_opt(o, "diagnostics");
    r->error = dup_opt(o, "error");
    r->report = dup_opt(o, "report");
    r->sandbox_why = dup_opt(o, "sandbox_why");
    json_object *sb = get(o, "sandbox", json_type_int);
    r->sandbox = sb ? json_object_get_int(sb) : -1;
    json_object *sq = get(o, "seq", json_type_int);
    r->seq = sq ? json_object_get_int64(sq) : 0;
    json_object *cd = get(o, "clock_is_device", json_type_int);
    r->clock_is_device = cd ? json_object_get_int(cd) != 0 : 0;
    json_object *s = get(o, "samples", json_type_array);
    size_t n = s ? json_object_array_length(s) : 0;
    if (n > 0 && n < (1u << 24)) {
        r->samples = malloc(n * sizeof *r->samples);
        if (r->samples) {
            for (size_t i = 0; i < n; i++) {
                json_object *e = json_object_array_get_idx(s, i);
                r->samples[i] = (json_object_is_type(e, json_type_double) || json_object_is_type(e, json_type_int))
                                    ? json_object_get_double(e) : -1.0;
            }
            r->n_samples = (int)n;
        }
    }
    json_object *bin = get(o, "binary", json_type_string);
    if (bin && (json_object_get_string_len(bin) > (int)(KF_WP_MAX_BINARY / 3 * 4 + 4) ||
                kf_base64_decode(json_object_get_string(bin), &r->binary, &r->binary_size) != 0)) {
        snprintf(why, why_len, "the worker's reply carries a binary that is not base64 or is over %u MiB",
                 (unsigned)(KF_WP_MAX_BINARY >> 20));
        json_object_put(o);
        kf_wp_reply_free(r);
        return -1;
    }
    json_object *c = get(o, "counters", json_type_array);
    size_t nc = c ? json_object_array_length(c) : 0;
    for (size_t i = 0; i < nc && r->n_counters < KF_MAX_COUNTERS; i++) {
        json_object *e = json_object_array_get_idx(c, i);
        if (!json_object_is_type(e, json_type_array) || json_object_array_length(e) != 2) continue;
        json_object *name = json_object_array_get_idx(e, 0);
        if (!json_object_is_type(name, json_type_string)) continue;
        kf_counter *k = &r->counters[r->n_counters++];
        snprintf(k->name, sizeof k->name, "%s", json_object_get_string(name));
        k->value = json_object_get_double(json_object_array_get_idx(e, 1));
    }
    json_object_put(o);
    return 0;
}

void kf_wp_reply_free(kf_wp_reply *r)
{
    free(r->diagnostics);
    free(r->error);
    free(r->report);
    free(r->samples);
    free(r->sandbox_why);
    free(r->binary);
    memset(r, 0, sizeof *r);
}
