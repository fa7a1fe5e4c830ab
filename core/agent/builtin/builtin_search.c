/* builtin_search.c — the built-in agent's search space (points, their JSON
 * and labels, neighbours) and its roofline-driven analyzer (builtin.h). */
#include "builtin.h"

#include <json-c/json.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent/agent.h"

/* ------------------------------------------------------------------ */
/* points                                                              */

#define NELEM(a) ((int)(sizeof(a) / sizeof((a)[0])))

static void base_point(const kf_bt_emitter *em, const char *backend, kf_bt_point *p)
{
    memset(p, 0, sizeof *p);
    p->em = em;
    snprintf(p->backend, sizeof p->backend, "%s", backend ? backend : "");
    p->fusion = KF_BT_FUSE_ROWS;
    p->precision = KF_BT_FP32;
}

void kf_bt_point_default(const kf_bt_emitter *em, const char *backend, const kf_resolved *r,
                         const kf_device_info *dev, kf_bt_point *p)
{
    base_point(em, backend, p);
    em->defaults(p, r, dev);
}

void kf_bt_point_baseline(const kf_bt_emitter *em, const char *backend, kf_bt_point *p)
{
    kf_bt_point_default(em, backend, NULL, NULL, p);
    p->baseline = 1;
    p->fusion = KF_BT_FUSE_NONE;
}

int kf_bt_point_conservative(kf_bt_point *p)
{
    if (p->baseline) return 0;
    if (p->precision != KF_BT_FP32 && p->em->more_accurate && p->em->more_accurate(p)) return 1;
    if (p->precision == KF_BT_BF16) {   /* 3xBF16 where the emitter offers it, else fp32 */
        p->precision = KF_BT_BF16X3;
        if ((p->em->check && p->em->check(p, NULL) != 0) || (p->em->offerable && !p->em->offerable(p)))
            p->precision = KF_BT_FP32;
        return 1;
    }
    if (p->precision != KF_BT_FP32) { p->precision = KF_BT_FP32; return 1; }
    if (p->fusion == KF_BT_FUSE_ROWS) { p->fusion = KF_BT_FUSE_EPILOGUE; return 1; }
    if (p->fusion == KF_BT_FUSE_EPILOGUE) { p->fusion = KF_BT_FUSE_NONE; return 1; }
    return p->em->conservative ? p->em->conservative(p) : 0;
}

int kf_bt_point_equal(const kf_bt_point *a, const kf_bt_point *b)
{
    if (a->em != b->em || strcmp(a->backend, b->backend) || a->baseline != b->baseline ||
        a->fusion != b->fusion || a->precision != b->precision)
        return 0;
    for (int i = 0; i < a->em->n_knobs; i++)
        if (a->knob[i] != b->knob[i]) return 0;
    return 1;
}

int kf_bt_knob_index(const kf_bt_emitter *em, const char *name)
{
    for (int i = 0; em && i < em->n_knobs; i++)
        if (!strcmp(em->knobs[i].name, name)) return i;
    return -1;
}

int kf_bt_point_knob(const kf_bt_point *p, const char *name, int dflt)
{
    int i = kf_bt_knob_index(p->em, name);
    return i < 0 ? dflt : p->knob[i];
}

/* the common fields */
typedef struct { const char *name; size_t off; int lo, hi; } field_t;
#define F(n, lo, hi) {#n, offsetof(kf_bt_point, n), lo, hi}
static const field_t FIELDS[] = {F(baseline, 0, 1), F(fusion, 0, 2), F(precision, 0, KF_BT_N_PRECISIONS - 1)};
#undef F

char *kf_bt_point_json(const kf_bt_point *p)
{
    json_object *o = json_object_new_object();
    json_object_object_add(o, "backend", json_object_new_string(p->backend));
    for (int i = 0; i < NELEM(FIELDS); i++)
        json_object_object_add(o, FIELDS[i].name,
                               json_object_new_int(*(const int *)((const char *)p + FIELDS[i].off)));
    for (int i = 0; i < p->em->n_knobs; i++)
        json_object_object_add(o, p->em->knobs[i].name, json_object_new_int(p->knob[i]));
    char *s = strdup(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
    json_object_put(o);
    return s;
}

/* Is `name` a knob of some emitter?  Sets *lo, *hi of the first found. */
static int any_knob(const char *name, int *lo, int *hi)
{
    for (int e = 0; kf_bt_emitters[e]; e++) {
        int i = kf_bt_knob_index(kf_bt_emitters[e], name);
        if (i >= 0) { *lo = kf_bt_emitters[e]->knobs[i].lo; *hi = kf_bt_emitters[e]->knobs[i].hi; return 1; }
    }
    return 0;
}

static void known_fields(char *buf, size_t n)
{
    snprintf(buf, n, "backend, baseline, fusion, precision");
    for (int e = 0; kf_bt_emitters[e]; e++) {
        const kf_bt_emitter *em = kf_bt_emitters[e];
        size_t l = strlen(buf);
        snprintf(buf + l, n - l, "; %s:", em->language);
        for (int i = 0; i < em->n_knobs; i++) {
            l = strlen(buf);
            snprintf(buf + l, n - l, "%s %s", i ? "," : "", em->knobs[i].name);
        }
    }
}

/* Applies the fields of JSON object o to p.  backend: the run's backend,
 * which a "backend" field must match; NULL accepts any.  p->em NULL: only
 * checks (any emitter's knob is accepted). */
static int apply_fields(json_object *o, const char *backend, kf_bt_point *p, kf_error *err)
{
    json_object_object_foreach(o, key, val) {
        if (!strcmp(key, "backend")) {
            const char *b = json_object_get_string(val);
            if (backend && (!b || strcmp(b, backend)))
                return kf_fail(err, KF_E_BAD_INPUT, "builtin point: backend \"%s\" does not match the run's backend \"%s\"",
                               b ? b : "", backend);
            continue;
        }
        int *slot = NULL, lo = 0, hi = 0, i;
        for (i = 0; i < NELEM(FIELDS); i++)
            if (!strcmp(FIELDS[i].name, key)) break;
        if (i < NELEM(FIELDS)) {
            slot = (int *)((char *)p + FIELDS[i].off);
            lo = FIELDS[i].lo;
            hi = FIELDS[i].hi;
        } else if (p->em && (i = kf_bt_knob_index(p->em, key)) >= 0) {
            slot = &p->knob[i];
            lo = p->em->knobs[i].lo;
            hi = p->em->knobs[i].hi;
        } else if (!any_knob(key, &lo, &hi)) {
            char known[512];
            known_fields(known, sizeof known);
            return kf_fail(err, KF_E_BAD_INPUT, "builtin point: unknown field \"%s\" (known: %s)", key, known);
        }
        if (!json_object_is_type(val, json_type_int))
            return kf_fail(err, KF_E_BAD_INPUT, "builtin point: \"%s\" must be an integer", key);
        int64_t v = json_object_get_int64(val);
        if (v < lo || v > hi)
            return kf_fail(err, KF_E_BAD_INPUT, "builtin point: \"%s\" = %lld is out of range %d..%d", key, (long long)v, lo, hi);
        if (slot) *slot = (int)v;   /* another language's knob: checked, ignored */
    }
    return 0;
}

static json_object *parse_object(const char *json, kf_error *err)
{
    json_object *o = json ? json_tokener_parse(json) : NULL;
    if (!o || !json_object_is_type(o, json_type_object)) {
        if (o) json_object_put(o);
        kf_fail(err, KF_E_BAD_INPUT, "builtin point: not a JSON object: %.80s", json ? json : "(null)");
        return NULL;
    }
    return o;
}

int kf_bt_point_from_json(const char *json, const kf_bt_emitter *em, const char *backend, const kf_resolved *r,
                          const kf_device_info *dev, kf_bt_point *out, kf_error *err)
{
    kf_bt_point p;
    kf_bt_point_default(em, backend, r, dev, &p);
    json_object *o = parse_object(json, err);
    if (!o) return -1;
    int rc = apply_fields(o, backend, &p, err);
    /* the precision is the device's default unless the point names one */
    const int fixed = json_object_object_get_ex(o, "precision", NULL) || p.precision == KF_BT_FP32;
    json_object_put(o);
    if (rc != 0) return -1;
    if (em->check && em->check(&p, fixed ? err : NULL) != 0) {
        /* a point that names no precision is not refused for the default's
           sake: where its knobs cannot hold it (the C emitter's bf16 needs nr
           a multiple of 16), it takes fp32 */
        if (fixed) return -1;
        p.precision = KF_BT_FP32;
        if (em->check(&p, err) != 0) return -1;
    }
    *out = p;
    return 0;
}

int kf_bt_point_check_json(const char *json, kf_error *err)
{
    kf_bt_point p;
    memset(&p, 0, sizeof p);
    json_object *o = parse_object(json, err);
    if (!o) return -1;
    int rc = apply_fields(o, NULL, &p, err);
    json_object_put(o);
    return rc;
}

static const char *fusion_name(int f)
{
    return f == KF_BT_FUSE_ROWS ? "rows-fused" : f == KF_BT_FUSE_EPILOGUE ? "epilogue-fused" : "unfused";
}

int kf_bt_plan_point(const kf_resolved *r, const kf_bt_point *p, kf_bt_plan *out, kf_error *err)
{
    int fusion = p->baseline ? KF_BT_FUSE_NONE : p->fusion;
    if (p->em->plan_fusion) fusion = p->em->plan_fusion(p, fusion);
    return kf_bt_plan_build(r, (kf_bt_fusion)fusion, out, err);
}

char *kf_bt_point_label(const kf_bt_point *p, char *buf, size_t n)
{
    return kf_bt_point_label_for(p, NULL, buf, n);
}

int kf_bt_has_gemm_op(const kf_resolved *r)
{
    for (int k = 0; k < r->problem->n_nodes; k++)
        if (kf_op_is_contraction(r->problem->nodes[k].op)) return 1;
    return 0;
}

char *kf_bt_point_label_for(const kf_bt_point *p, const kf_resolved *r, char *buf, size_t n)
{
    if (p->baseline) snprintf(buf, n, "op-by-op baseline");
    else if (r && r->problem && p->em->loops_label && !kf_bt_has_gemm_op(r)) p->em->loops_label(p, fusion_name(p->fusion), buf, n);
    else p->em->label(p, fusion_name(p->fusion), buf, n);
    return buf;
}

struct kf_bt_nbr_sink {
    const kf_bt_point *from;
    kf_bt_point *out;
    int k, max;
    const kf_resolved *r;
};

const kf_resolved *kf_bt_nbr_problem(const kf_bt_nbr_sink *s) { return s->r; }

int kf_bt_nbr_push(kf_bt_nbr_sink *s, const kf_bt_point *q)
{
    if (s->k >= s->max || kf_bt_point_equal(q, s->from)) return 0;
    if (q->em->check && q->em->check(q, NULL) != 0) return 0;
    if (q->em->offerable && !q->em->offerable(q)) return 0;
    for (int i = 0; i < s->k; i++)
        if (kf_bt_point_equal(&s->out[i], q)) return 0;
    s->out[s->k++] = *q;
    return 1;
}

/* index of v in a table, or of the nearest entry */
static int nearest(const int *t, int n, int v)
{
    int best = 0;
    for (int i = 1; i < n; i++)
        if (abs(t[i] - v) < abs(t[best] - v)) best = i;
    return best;
}

void kf_bt_step_knob(const kf_bt_point *p, int k, kf_bt_nbr_sink *s)
{
    const kf_bt_knob *kn = &p->em->knobs[k];
    if (!kn->steps || kn->n_steps < 1) return;
    int i = nearest(kn->steps, kn->n_steps, p->knob[k]);
    for (int d = -1; d <= 1; d += 2) {
        int j = i + d;
        if (j < 0 || j >= kn->n_steps) continue;
        kf_bt_point q = *p;
        q.knob[k] = kn->steps[j];
        kf_bt_nbr_push(s, &q);
    }
}

int kf_bt_plan_odd_depth(const kf_bt_plan *plan)
{
    for (int gi = 0; gi < plan->n_groups; gi++)
        if (plan->groups[gi].kind == KF_BT_GEMM && plan->groups[gi].fused_into < 0 && (plan->groups[gi].gemm.K & 1))
            return 1;
    return 0;
}

/* 1 when a GEMM of the problem has an odd depth K (kf_bt_plan_odd_depth) */
static int has_odd_depth(const kf_resolved *r)
{
    kf_bt_plan plan;
    if (!r || kf_bt_plan_build(r, KF_BT_FUSE_NONE, &plan, NULL) != 0) return 0;
    int odd = kf_bt_plan_odd_depth(&plan);
    kf_bt_plan_free(&plan);
    return odd;
}

int kf_bt_has_row_panels(const kf_resolved *r)
{
    kf_bt_plan plan;
    if (!r || kf_bt_plan_build(r, KF_BT_FUSE_ROWS, &plan, NULL) != 0) return 0;
    int rows = 0;
    for (int gi = 0; gi < plan.n_groups; gi++) rows |= kf_bt_gemm_in_row_panels(&plan.groups[gi]);
    kf_bt_plan_free(&plan);
    return rows;
}

int kf_bt_neighbours(const kf_bt_point *p, const kf_resolved *r, kf_bt_point *out, int max)
{
    kf_bt_nbr_sink s = {p, out, 0, max, r};
    if (p->baseline) return 0;
    for (int f = KF_BT_FUSE_NONE; f <= KF_BT_FUSE_ROWS; f++) {
        kf_bt_point q = *p;
        q.fusion = f;
        if (f != p->fusion && p->em->refit_fusion) p->em->refit_fusion(&q, r);
        kf_bt_nbr_push(&s, &q);
    }
    p->em->neighbours(p, &s);
    int k = 0, odd = -1, rows = -1;   /* no step spent on a point its generator would refuse */
    for (int i = 0; i < s.k; i++) {
        if (kf_bt_precision_amx_split(out[i].precision) && (odd < 0 ? (odd = has_odd_depth(r)) : odd)) continue;
        int f = out[i].em->plan_fusion ? out[i].em->plan_fusion(&out[i], out[i].fusion) : out[i].fusion;
        if (kf_bt_precision_bf16c(out[i].precision) && f == KF_BT_FUSE_ROWS && (rows < 0 ? (rows = kf_bt_has_row_panels(r)) : rows))
            continue;
        out[k++] = out[i];
    }
    return k;
}

/* ------------------------------------------------------------------ */
/* history                                                             */

void kf_bt_history_free(kf_bt_history *h)
{
    free(h->v);
    memset(h, 0, sizeof *h);
}

static kf_bt_tried *find_tried(const kf_bt_history *h, const kf_bt_point *pt)
{
    for (int i = 0; i < h->n; i++)
        if (kf_bt_point_equal(&h->v[i].pt, pt)) return &h->v[i];
    return NULL;
}

int kf_bt_history_has(const kf_bt_history *h, const kf_bt_point *pt) { return find_tried(h, pt) != NULL; }

void kf_bt_history_missed(kf_bt_history *h, int precision, double frac, double worst)
{
    if (precision < 0 || precision >= KF_BT_N_PRECISIONS) return;
    if (frac > h->missed[precision]) h->missed[precision] = frac;
    if (worst > h->missed_worst[precision]) h->missed_worst[precision] = worst;
}

int kf_bt_precision_ruled_out(const kf_bt_history *h, int precision)
{
    if (precision < 0 || precision >= KF_BT_N_PRECISIONS) return 0;
    if (h->fp32_only && precision != KF_BT_FP32) return 1;
    if (kf_bt_precision_lossy(precision) && h->missed[precision] > 0) return 1;
    if (precision == KF_BT_AMX_BF16C && h->missed[KF_BT_AMX_BF16] > KF_BT_MISS_SLIGHT) return 1;
    if (precision == KF_BT_BF16C && h->missed[KF_BT_BF16] > KF_BT_MISS_SLIGHT) return 1;
    if (precision == KF_BT_AMX_BF16X2 &&
        (h->missed[KF_BT_AMX_BF16] > KF_BT_MISS_BROAD || h->missed_worst[KF_BT_AMX_BF16] > KF_BT_MISS_WIDE))
        return 1;
    return 0;
}

int kf_bt_history_add(kf_bt_history *h, const kf_bt_point *pt, double time_s)
{
    kf_bt_tried *t = find_tried(h, pt);
    if (t) {
        if (time_s > 0) t->time_s = time_s;
        return 0;
    }
    if (h->n == h->cap) {
        int cap = h->cap ? h->cap * 2 : 16;
        kf_bt_tried *v = realloc(h->v, (size_t)cap * sizeof *v);
        if (!v) return -1;
        h->v = v;
        h->cap = cap;
    }
    h->v[h->n].pt = *pt;
    h->v[h->n].time_s = time_s;
    h->n++;
    return 0;
}

static json_object *point_obj(const kf_bt_point *p)
{
    char *js = kf_bt_point_json(p);
    json_object *o = js ? json_tokener_parse(js) : NULL;
    free(js);
    return o;
}

char *kf_bt_history_json(const kf_bt_history *h)
{
    json_object *o = json_object_new_object(), *tried = json_object_new_array();
    for (int i = 0; i < h->n; i++) {
        json_object *t = json_object_new_object();
        json_object_object_add(t, "point", point_obj(&h->v[i].pt));
        json_object_object_add(t, "time_s", json_object_new_double(h->v[i].time_s));
        json_object_array_add(tried, t);
    }
    json_object_object_add(o, "tried", tried);
    json_object_object_add(o, "last_rec", h->have_last_rec ? point_obj(&h->last_rec) : NULL);
    json_object_object_add(o, "last_rec_gain", json_object_new_double(h->last_rec_gain));
    json_object *missed = json_object_new_array();
    for (int p = 0; p < KF_BT_N_PRECISIONS; p++) json_object_array_add(missed, json_object_new_double(h->missed[p]));
    json_object_object_add(o, "missed", missed);
    json_object *worst = json_object_new_array();
    for (int p = 0; p < KF_BT_N_PRECISIONS; p++) json_object_array_add(worst, json_object_new_double(h->missed_worst[p]));
    json_object_object_add(o, "missed_worst", worst);
    char *s = strdup(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
    json_object_put(o);
    return s;
}

static int point_of_obj(json_object *o, const kf_bt_emitter *em, const char *backend, const kf_resolved *r,
                        const kf_device_info *dev, kf_bt_point *pt, kf_error *err)
{
    if (!o || !json_object_is_type(o, json_type_object))
        return kf_fail(err, KF_E_BAD_INPUT, "builtin history: a point is not a JSON object");
    return kf_bt_point_from_json(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN), em, backend, r,
                                 dev, pt, err);
}

static int history_fill(json_object *o, const kf_bt_emitter *em, const char *backend, const kf_resolved *r, const kf_device_info *dev,
                        kf_bt_history *h, kf_error *err)
{
    json_object *tried, *v;
    if (!json_object_object_get_ex(o, "tried", &tried) || !json_object_is_type(tried, json_type_array))
        return kf_fail(err, KF_E_BAD_INPUT, "builtin history: no \"tried\" array");
    for (size_t i = 0; i < json_object_array_length(tried); i++) {
        json_object *t = json_object_array_get_idx(tried, i), *p = NULL, *ts = NULL;
        kf_bt_point pt;
        if (!json_object_object_get_ex(t, "point", &p) || point_of_obj(p, em, backend, r, dev, &pt, err) != 0)
            return kf_fail(err, KF_E_BAD_INPUT, "builtin history: tried[%zu]: %s", i, err && err->msg[0] ? err->msg : "no point");
        json_object_object_get_ex(t, "time_s", &ts);
        if (kf_bt_history_add(h, &pt, ts ? json_object_get_double(ts) : 0) != 0)
            return kf_fail(err, KF_E_INTERNAL, "builtin history: out of memory");
    }
    if (json_object_object_get_ex(o, "last_rec", &v) && v) {
        if (point_of_obj(v, em, backend, r, dev, &h->last_rec, err) != 0) return -1;
        h->have_last_rec = 1;
        if (json_object_object_get_ex(o, "last_rec_gain", &v) && v) h->last_rec_gain = json_object_get_double(v);
    }
    json_object *w = NULL;   /* older files: neither, or no missed_worst */
    if (!json_object_object_get_ex(o, "missed_worst", &w) || !w || !json_object_is_type(w, json_type_array)) w = NULL;
    if (json_object_object_get_ex(o, "missed", &v) && v && json_object_is_type(v, json_type_array))
        for (size_t p = 0; p < json_object_array_length(v) && p < KF_BT_N_PRECISIONS; p++)
            kf_bt_history_missed(h, (int)p, json_object_get_double(json_object_array_get_idx(v, p)),
                                 w && p < json_object_array_length(w) ? json_object_get_double(json_object_array_get_idx(w, p)) : 0);
    return 0;
}

int kf_bt_history_from_json(const char *json, const kf_bt_emitter *em, const char *backend,
                            const kf_resolved *r, const kf_device_info *dev, kf_bt_history *out, kf_error *err)
{
    memset(out, 0, sizeof *out);
    json_object *o = json ? json_tokener_parse(json) : NULL;
    if (!o || !json_object_is_type(o, json_type_object)) {
        json_object_put(o);
        return kf_fail(err, KF_E_BAD_INPUT, "builtin history: not a JSON object");
    }
    int rc = history_fill(o, em, backend, r, dev, out, err);
    json_object_put(o);
    if (rc != 0) kf_bt_history_free(out);
    return rc;
}

/* ------------------------------------------------------------------ */
/* the cost model                                                      */

typedef struct work {
    double gemm_flops;       /* 2*M*N*K summed over GEMMs */
    double gemm_mn;          /* output elements of the GEMMs */
    double max_m, max_n;     /* largest GEMM, for blocking effects */
    double max_k;            /* deepest GEMM */
    double tail_elems;       /* elements produced by non-GEMM ops */
    double row_tail_elems;   /* elements of row groups that ROWS fusion keeps in cache */
    double epi_elems;        /* map-op elements that epilogue fusion saves a pass for */
    double tail_ns;          /* modelled single-thread time of the non-GEMM math, ns */
    double out_bytes;        /* bytes the maps and row ops (not a GEMM's epilogue) store into the outputs */
    int regions;             /* ops: at most one parallel region each */
    int row_tail;            /* a row op follows a GEMM, after map ops or not */
} work_t;

/* The fork and join of an OpenMP team, per parallel region, seconds: a few
 * microseconds on an idle machine, milliseconds on a loaded one (issue 15
 * measured 1.6 us to 16 ms for a one-row loop).  Charged to multi-threaded
 * points of emitters with a thread knob, so that tiny problems (one row, a
 * GEMV) are modelled faster on one thread and the search tries it. */
#define KF_BT_FORK_S 20e-6

/* Modelled cost of one element of an op on one thread, ns: the prelude's
 * vectorised exp/log/tanh/erf cost a polynomial each; plain arithmetic is
 * a fraction of a cycle per element. */
static double op_ns(kf_op op)
{
    switch (op) {
    case KF_OP_SIGMOID: case KF_OP_TANH: case KF_OP_EXP: case KF_OP_LOG: case KF_OP_SELU:
    case KF_OP_MISH: case KF_OP_SILU: case KF_OP_GELU: case KF_OP_SOFTPLUS: case KF_OP_ELU:
    case KF_OP_POW: case KF_OP_SOFTMAX: case KF_OP_LOG_SOFTMAX: case KF_OP_LOGSUMEXP:
        return 0.8;
    case KF_OP_LAYER_NORM: case KF_OP_RMS_NORM: case KF_OP_GROUP_NORM: case KF_OP_INSTANCE_NORM:
    case KF_OP_BATCH_NORM:
        return 0.5;
    default:
        return 0.1;
    }
}

static void measure_work(const kf_resolved *r, work_t *w)
{
    const kf_problem *p = r->problem;
    memset(w, 0, sizeof *w);
    int prev_gemm = -1, after_gemm = 0;
    for (int k = 0; k < p->n_nodes; k++) {
        if (kf_op_is_contraction(p->nodes[k].op)) after_gemm = 1;
        else if (!kf_bt_is_map_op(p->nodes[k].op)) {
            w->row_tail |= after_gemm;
            after_gemm = 0;
        }
        const kf_node *nd = &p->nodes[k];
        int v = p->n_inputs + k;
        if (kf_op_is_shape(nd->op)) continue;   /* no work: an alias of its input */
        double e = (double)kf_shape_elems(&r->shapes[v]);
        /* outputs of maps and row ops, not of a GEMM's epilogue (a map
           after a GEMM: stored from the C tile, never streamed) */
        for (int o = 0; o < p->n_outputs; o++)
            if (p->outputs[o] == v && !kf_op_is_contraction(nd->op) &&
                !(after_gemm && kf_bt_is_map_op(nd->op)))
                w->out_bytes += e * 4.0;
        w->regions++;
        if (kf_op_is_contraction(nd->op)) {
            const kf_shape *a = &r->shapes[nd->in[0].value];
            double K = (double)a->d[a->rank - 1];
            double n = r->shapes[v].rank ? (double)r->shapes[v].d[r->shapes[v].rank - 1] : 1;
            w->gemm_flops += 2.0 * e * K;
            w->gemm_mn += e;
            if (e / n > w->max_m) w->max_m = e / n;
            if (n > w->max_n) w->max_n = n;
            if (K > w->max_k) w->max_k = K;
            prev_gemm = v;
            continue;
        }
        w->tail_elems += e;
        w->tail_ns += e * op_ns(nd->op);
        if (kf_bt_is_map_op(nd->op)) w->epi_elems += e;
        else if (prev_gemm >= 0 && nd->in[0].value == prev_gemm) w->row_tail_elems += e;
        prev_gemm = -1;
    }
}

int kf_bt_host_threads(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}

/* Modelled time of the whole candidate at point p; the GEMM's efficiency
 * is the emitter's (a constant 0.5 when it has no model). */
static double model_time(const kf_bt_point *p, const work_t *w, const kf_roofline *rf)
{
    int threads = p->em->threads ? p->em->threads(p) : 0;
    if (threads <= 0) threads = kf_bt_host_threads();
    double peak = rf->peak_flops > 0 ? rf->peak_flops : 1e11;
    /* each point at the peak of the unit it would run on: a precision
       change is rated at the new unit's peak, not the current one's */
    int unit = p->em->unit ? p->em->unit(p) : -1;
    if (unit >= 0 && unit < KF_ROOFLINE_UNITS && rf->unit_peak_flops[unit] > 0) peak = rf->unit_peak_flops[unit];
    double bw = rf->peak_bytes_per_s > 0 ? rf->peak_bytes_per_s : 1e10;
    double per_thread = peak / kf_bt_host_threads();
    kf_bt_gemm_work gw = {w->max_m, w->max_n, kf_bt_host_threads(), w->row_tail, w->max_k};
    double eff = p->em->gemm_eff ? p->em->gemm_eff(p, &gw, threads) : 0.5;
    double t = w->gemm_flops / (per_thread * threads * eff);
    /* every unfused tail pass reads and writes its tensor */
    double passes = w->tail_elems;
    if (p->fusion >= KF_BT_FUSE_EPILOGUE) passes -= w->epi_elems;
    if (p->fusion >= KF_BT_FUSE_ROWS) passes -= w->row_tail_elems * 0.7;
    t += passes * 8.0 / bw;
    /* write-allocate reads of the outputs, where the emitter says so */
    if (p->em->store_traffic) t += w->out_bytes * (p->em->store_traffic(p, w->out_bytes) - 1.0) / bw;
    /* tail math */
    t += w->tail_ns * 1e-9 / threads;
    /* team fork/join (fusion merges regions: counted per op, an upper bound) */
    if (p->em->threads && threads > 1) t += KF_BT_FORK_S * w->regions;
    return t;
}

/* ------------------------------------------------------------------ */
/* the analyzer                                                        */

typedef struct scored {
    kf_bt_point pt;
    double gain;              /* modelled */
    double rank;              /* what orders them: gain, times seed_factor() with a seed */
    int compute_knob;
} scored_t;

static int cmp_scored(const void *a, const void *b)
{
    const scored_t *x = a, *y = b;
    if (x->rank != y->rank) return x->rank > y->rank ? -1 : 1;
    return 0;   /* qsort is not stable: ties keep neighbour order below */
}

/* A factor in [0.95, 1.05) from the agent seed and the point (its JSON
 * text, FNV-1a, then a splitmix64 finalizer): the same seed orders the
 * same neighbours the same way on every run and on resume. */
static double seed_factor(uint64_t seed, const kf_bt_point *p)
{
    char *js = kf_bt_point_json(p);
    uint64_t x = 0xcbf29ce484222325ull ^ (seed * 0x9E3779B97F4A7C15ull);
    for (const char *c = js ? js : ""; *c; c++) x = (x ^ (unsigned char)*c) * 0x100000001b3ull;
    free(js);
    x ^= x >> 30; x *= 0xBF58476D1CE4E5B9ull;
    x ^= x >> 27; x *= 0x94D049BB133111EBull;
    x ^= x >> 31;
    return 0.95 + 0.1 * ((double)(x >> 11) / 9007199254740992.0);
}

static char *dupf(const char *fmt, ...) KF_PRINTF(1, 2);
static char *dupf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *s = NULL;
    if (vasprintf(&s, fmt, ap) < 0) s = NULL;
    va_end(ap);
    return s;
}

static const char *knob_change(const kf_bt_point *a, const kf_bt_point *b, char *buf, size_t n)
{
    const kf_bt_emitter *em = a->em;
    if (a->fusion != b->fusion) { snprintf(buf, n, "switch to %s", fusion_name(b->fusion)); return buf; }
    if (em->describe_change && em->describe_change(a, b, buf, n)) return buf;
    for (int i = 0; i < em->n_knobs; i++)
        if (a->knob[i] != b->knob[i]) {
            snprintf(buf, n, "set %s to %d (was %d)", em->knobs[i].noun, b->knob[i], a->knob[i]);
            return buf;
        }
    if (a->precision != b->precision)
        snprintf(buf, n, "use %s", b->precision == KF_BT_AMX_BF16 ? "bf16 inputs on AMX tiles (fp32 accumulation)"
                                   : b->precision == KF_BT_AMX_BF16X3 ? "3xbf16 on AMX tiles (split high/low parts)"
                                   : b->precision == KF_BT_AMX_BF16X2 ? "2xbf16 on AMX tiles (A split high/low, B rounded)"
                                   : b->precision == KF_BT_AMX_BF16C ? "bf16 on AMX tiles with A's columns centred"
                                   : b->precision == KF_BT_BF16C ? "bf16 (vdpbf16ps) with A's columns centred"
                                   : b->precision == KF_BT_I16 ? "int16 inputs on AVX2 (vpmaddwd, int32 sums a depth block)"
                                   : b->precision == KF_BT_BF16X3 ? "3xBF16 tensor cores (split high/low parts)"
                                   : b->precision == KF_BT_BF16 ? "BF16 tensor cores" : b->precision == KF_BT_TF32 ? "TF32 tensor cores"
                                   : b->precision ? "fp16 storage" : "fp32");
    else snprintf(buf, n, "retry");
    return buf;
}

int kf_bt_analyze(kf_bt_history *h, const kf_resolved *r, const kf_bt_point *cur,
                  const kf_eval_result *eval, double previous_time_s, double target_fraction,
                  kf_analysis *out, kf_error *err)
{
    memset(out, 0, sizeof *out);
    double t = eval && eval->profiled ? eval->timing.median_s : 0;
    if (t <= 0)
        return kf_fail(err, KF_E_BAD_INPUT, "builtin analyzer: the candidate has no timing; profile it first");
    if (kf_bt_history_add(h, cur, t) != 0) return kf_fail(err, KF_E_INTERNAL, "builtin analyzer: out of memory");
    const kf_roofline *rf = &eval->roofline;
    work_t w;
    measure_work(r, &w);

    /* bottleneck */
    double tc = rf->peak_flops > 0 ? rf->flops / rf->peak_flops : 0;
    double tm = rf->peak_bytes_per_s > 0 ? rf->min_bytes / rf->peak_bytes_per_s : 0;
    double frac = rf->fraction;
    /* target 0 (--target 0): no roofline target; only the budgets and
       running out of recommendations stop the run */
    const double target = target_fraction > 0 ? target_fraction : INFINITY;
    double tail_t = w.tail_ns * 1e-9 / kf_bt_host_threads();
    const char *bn;
    if (t < 100e-6 && frac < 0.1) bn = "launch";
    else if (tail_t > 0.3 * t) bn = "tail";
    else if (tc >= tm) bn = "compute";
    else bn = "memory";
    out->bottleneck = strdup(bn);
    out->text = dupf("%s-bound: median %.4g ms, roofline floor %.4g ms (fraction %.2f, target %.2f); "
                     "achieved %.1f GFLOP/s of %.1f peak, %.1f GB/s of %.1f; compute floor %.4g ms, "
                     "memory floor %.4g ms, modelled tail-op time %.4g ms",
                     bn, t * 1e3, rf->floor_s * 1e3, frac, target_fraction, rf->achieved_flops * 1e-9,
                     rf->peak_flops * 1e-9, rf->achieved_bytes_per_s * 1e-9, rf->peak_bytes_per_s * 1e-9,
                     tc * 1e3, tm * 1e3, tail_t * 1e3);
    /* the hardware counters of the counters replay, where there are some:
       reported beside the model's reading (the recommendations below come
       from the cost model only) */
    if (out->text && eval->hw.state != KF_COUNTERS_NONE) {
        char *hw = kf_counters_text(&eval->hw);
        char *both = hw && *hw ? dupf("%s\n%s", out->text, hw) : NULL;
        if (both) {
            size_t l = strlen(both);
            if (l && both[l - 1] == '\n') both[l - 1] = '\0';
            free(out->text);
            out->text = both;
        }
        free(hw);
    }

    /* did the last recommendation miss? */
    if (h->have_last_rec && previous_time_s > 0 && h->last_rec_gain > 1) {
        double got = previous_time_s / t;
        double want = h->last_rec_gain;
        if (got < 1 + (want - 1) / 2) {
            char lb[128];
            kf_bt_point_label_for(&h->last_rec, r, lb, sizeof lb);
            const kf_bt_tried *tr = find_tried(h, &h->last_rec);
            const char *why;
            if (tr && tr->time_s > 0 && tr->time_s > previous_time_s)
                why = "it ran slower: the model overrates its cache fit or register blocking on this device";
            else if (tr && tr->time_s <= 0)
                why = "it did not beat the best candidate (the loop keeps only the best time), so the model "
                      "overrates this knob on this device; its neighbours are tried next";
            else
                why = "the change did not reach the part of the time that dominates (the model's "
                      "share for it is too high)";
            out->missed = dupf("expected %.2fx from \"%s\", got %.2fx: %s", want, lb, got, why);
        }
    }

    /* neighbours, scored */
    kf_bt_point nb[64];
    int n = kf_bt_neighbours(cur, r, nb, 64);
    scored_t sc[64];
    int m = 0;
    double tcur = model_time(cur, &w, rf);
    double gap = tcur > 0 ? t / tcur : 1;   /* measured / modelled */
    for (int i = 0; i < n; i++) {
        if (kf_bt_history_has(h, &nb[i]) || kf_bt_precision_ruled_out(h, nb[i].precision)) continue;
        double g = tcur / model_time(&nb[i], &w, rf);
        /* choices the model rates alike and the CPU decides (emit.h,
           unmodelled: GroupNorm's reads beside the stores or on their own,
           reads alone at half a copy on the Zen 4 VM and nearly all of it
           on the 16-core host; the split LayerNorm's L2 prefetch, faster on
           the Zen 3 VM and slower on the 16-core host): offered just above
           even, after every modelled gain, and measured */
        if (g == 1.0 && cur->em->unmodelled && cur->em->unmodelled(cur) != nb[i].em->unmodelled(&nb[i]))
            g = 1.0 + 1e-3;
        int ck = nb[i].fusion == cur->fusion;
        /* compute-bound and below the target: assume a quarter (in log
           space) of the unexplained gap is recoverable by one tiling step */
        if (ck && !strcmp(bn, "compute") && frac < target && gap > 1 && g > 0.97)
            g *= pow(gap, 0.25) * (g >= 1 ? 1 : 0.98);
        sc[m].pt = nb[i];
        sc[m].gain = g;
        sc[m].compute_knob = ck;
        m++;
    }
    /* with an agent seed, the order is by gain times a seeded factor */
    for (int i = 0; i < m; i++) sc[i].rank = sc[i].gain * (h->seed ? seed_factor(h->seed, &sc[i].pt) : 1.0);
    /* stable order: by rank, ties by neighbour order (already in order) */
    for (int i = 1; i < m; i++)
        for (int j = i; j > 0 && cmp_scored(&sc[j - 1], &sc[j]) > 0; j--) {
            scored_t tmp = sc[j]; sc[j] = sc[j - 1]; sc[j - 1] = tmp;
        }

    out->recs = calloc(4, sizeof *out->recs);
    if (!out->recs) return kf_fail(err, KF_E_INTERNAL, "builtin analyzer: out of memory");
    int first = -1;
    for (int i = 0; i < m && out->n_recs < 4; i++) {
        if (sc[i].gain <= 1.0) continue;
        if (first < 0) first = i;
        kf_recommendation *rc = &out->recs[out->n_recs++];
        char what[160];
        rc->what = strdup(knob_change(cur, &sc[i].pt, what, sizeof what));
        rc->why = dupf("%s-bound at %.0f%% of the roofline floor; the cost model gives %.4g ms -> %.4g ms "
                       "for this change%s (measured/modelled = %.2f)",
                       bn, frac * 100, tcur * 1e3, model_time(&sc[i].pt, &w, rf) * 1e3,
                       sc[i].compute_knob && !strcmp(bn, "compute") ? ", plus a share of the unexplained gap" : "",
                       gap);
        rc->expected_gain = sc[i].gain;
        rc->params = kf_bt_point_json(&sc[i].pt);
    }
    /* the target is of the device's fastest unit's floor: an fp32 kernel
       at 81% of the FMA peak stopped problem 76's search on the 2-core VM
       before its AMX step (14.8 ms, where the tiles run 9's GEMM in 4.4) */
    out->stop = kf_roofline_target_fraction(rf) >= target || out->n_recs == 0;
    if (out->n_recs > 0) {
        h->last_rec = sc[first].pt;
        h->last_rec_gain = sc[first].gain;
        h->have_last_rec = 1;
    } else {
        h->have_last_rec = 0;
    }
    return 0;
}
