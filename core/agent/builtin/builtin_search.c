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

static int host_has_avx512(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f");
#else
    return 0;
#endif
}

static int is_cpu(const char *backend) { return backend && !strcmp(backend, "cpu-simd"); }

/* Micro-kernel tiles offered on this host: MR x NR with MR*NR/VL
 * accumulators, VL = 16 (AVX-512) or 8 (AVX2). */
typedef struct { int mr, nr; } tile_t;
static const tile_t TILES512[] = {{12, 32}, {8, 32}, {14, 32}, {6, 32}, {6, 64}, {24, 16}};
static const tile_t TILES256[] = {{6, 16}, {4, 16}, {4, 24}, {8, 8}, {3, 32}, {12, 8}};
static const int MCS[] = {48, 72, 96, 144, 192, 288};
static const int NCS[] = {128, 256, 512, 1024, 2048};
static const int KCS[] = {128, 192, 256, 384, 512};
static const int TSS[] = {8, 16, 32, 64, 128};
static const int WPTS[] = {1, 2, 4, 8};
static const int VECS[] = {1, 2, 4, 8};
#define NELEM(a) ((int)(sizeof(a) / sizeof((a)[0])))

static void base_point(const char *backend, kf_bt_point *p)
{
    memset(p, 0, sizeof *p);
    snprintf(p->backend, sizeof p->backend, "%s", backend ? backend : "");
    p->fusion = KF_BT_FUSE_ROWS;
    p->precision = KF_BT_FP32;
    int a512 = host_has_avx512();
    p->mr = a512 ? 12 : 6;
    p->nr = a512 ? 32 : 16;
    p->mc = a512 ? 96 : 72;
    p->nc = 256;
    p->kc = 384;
    p->pack = 1;
    p->threads = 0;
    p->loop_order = 0;
    p->unroll = 1;
    p->ts = 16;
    p->wpt = 4;
    p->vec = 4;
    p->local_mem = 1;
}

/* Rows of the GEMM with the fewest rows (M of C = x W^T), 0 if none. */
static int64_t min_gemm_rows(const kf_resolved *r)
{
    const kf_problem *pr = r->problem;
    int64_t m = 0;
    for (int k = 0; k < pr->n_nodes; k++) {
        if (pr->nodes[k].op != KF_OP_MATMUL && pr->nodes[k].op != KF_OP_LINEAR) continue;
        const kf_shape *y = &r->shapes[pr->n_inputs + k];
        int64_t n = y->rank ? y->d[y->rank - 1] : 1;
        int64_t rows = n ? kf_shape_elems(y) / n : 0;
        if (m == 0 || rows < m) m = rows;
    }
    return m;
}

void kf_bt_point_default(const char *backend, const kf_resolved *r, const kf_device_info *dev,
                         kf_bt_point *p)
{
    base_point(backend, p);
    if (!is_cpu(backend) && dev) {
        /* OpenCL starting points that measured best on each kind of device
         * (bench/results/): on an H100 at the kernelbench preset, ts64 wpt8
         * v4 ran problem 9 in 7.42 ms and problem 68 in 4.02 ms, where ts32
         * wpt8 v4 took 7.64 and 4.91 ms and ts16 wpt4 v4 21.7 ms on 9; on
         * PoCL's CPU device ts8 wpt8 v8 ran the cpu preset 2.4x faster. */
        if (!strcmp(dev->kind, "gpu")) { p->ts = 64; p->wpt = 8; p->vec = 4; }
        else if (!strcmp(dev->kind, "cpu")) { p->ts = 8; p->wpt = 8; p->vec = 8; }
    }
    if (!is_cpu(backend) || !r) return;
    /* few rows (a wide, short GEMM): B is the big operand, so read it once
       (column-block order) and keep the row op as its own pass: row
       panels would leave threads idle */
    int64_t m = min_gemm_rows(r);
    if (m > 0 && m <= 4 * (int64_t)p->mc) {
        p->loop_order = 1;
        p->fusion = KF_BT_FUSE_EPILOGUE;
    }
}

void kf_bt_point_baseline(const char *backend, kf_bt_point *p)
{
    base_point(backend, p);
    p->baseline = 1;
    p->fusion = KF_BT_FUSE_NONE;
}

int kf_bt_point_conservative(kf_bt_point *p)
{
    if (p->baseline) return 0;
    if (p->fusion == KF_BT_FUSE_ROWS) { p->fusion = KF_BT_FUSE_EPILOGUE; return 1; }
    if (p->fusion == KF_BT_FUSE_EPILOGUE) { p->fusion = KF_BT_FUSE_NONE; return 1; }
    if (is_cpu(p->backend)) {
        if (p->pack) { p->pack = 0; return 1; }
        return 0;
    }
    if (p->local_mem || p->ts > 8 || p->wpt > 1 || p->vec > 1) {
        p->local_mem = 0; p->ts = 8; p->wpt = 1; p->vec = 1;
        return 1;
    }
    return 0;
}

int kf_bt_point_equal(const kf_bt_point *a, const kf_bt_point *b)
{
    return !strcmp(a->backend, b->backend) && a->baseline == b->baseline && a->fusion == b->fusion &&
           a->precision == b->precision && a->mc == b->mc && a->nc == b->nc && a->kc == b->kc &&
           a->mr == b->mr && a->nr == b->nr && a->pack == b->pack && a->threads == b->threads &&
           a->loop_order == b->loop_order && a->unroll == b->unroll && a->ts == b->ts &&
           a->wpt == b->wpt && a->vec == b->vec && a->local_mem == b->local_mem;
}

typedef struct { const char *name; size_t off; int lo, hi; } field_t;
#define F(n, lo, hi) {#n, offsetof(kf_bt_point, n), lo, hi}
static const field_t FIELDS[] = {
    F(baseline, 0, 1), F(fusion, 0, 2), F(precision, 0, 1),
    F(mc, 1, 4096), F(nc, 8, 65536), F(kc, 8, 8192), F(mr, 1, 32), F(nr, 8, 128),
    F(pack, 0, 1), F(threads, 0, 4096), F(loop_order, 0, 1), F(unroll, 1, 8),
    F(ts, 1, 128), F(wpt, 1, 16), F(vec, 1, 16), F(local_mem, 0, 1),
};
#undef F

char *kf_bt_point_json(const kf_bt_point *p)
{
    json_object *o = json_object_new_object();
    json_object_object_add(o, "backend", json_object_new_string(p->backend));
    for (int i = 0; i < NELEM(FIELDS); i++)
        json_object_object_add(o, FIELDS[i].name,
                               json_object_new_int(*(const int *)((const char *)p + FIELDS[i].off)));
    char *s = strdup(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
    json_object_put(o);
    return s;
}

/* Applies the fields of JSON object o to p.  backend: the run's backend,
 * which a "backend" field must match; NULL accepts any. */
static int apply_fields(json_object *o, const char *backend, kf_bt_point *p, kf_error *err)
{
    json_object_object_foreach(o, key, val) {
        if (!strcmp(key, "backend")) {
            const char *b = json_object_get_string(val);
            if (backend && (!b || strcmp(b, backend)))
                return kf_fail(err, 2, "builtin point: backend \"%s\" does not match the run's backend \"%s\"",
                               b ? b : "", backend);
            continue;
        }
        int i;
        for (i = 0; i < NELEM(FIELDS); i++)
            if (!strcmp(FIELDS[i].name, key)) break;
        if (i == NELEM(FIELDS))
            return kf_fail(err, 2, "builtin point: unknown field \"%s\" (known: fusion, mc, nc, kc, mr, nr, "
                           "pack, threads, loop_order, unroll, ts, wpt, vec, local_mem, precision, baseline)", key);
        if (!json_object_is_type(val, json_type_int))
            return kf_fail(err, 2, "builtin point: \"%s\" must be an integer", key);
        int64_t v = json_object_get_int64(val);
        if (v < FIELDS[i].lo || v > FIELDS[i].hi)
            return kf_fail(err, 2, "builtin point: \"%s\" = %lld is out of range %d..%d", key, (long long)v,
                           FIELDS[i].lo, FIELDS[i].hi);
        *(int *)((char *)p + FIELDS[i].off) = (int)v;
    }
    return 0;
}

static json_object *parse_object(const char *json, kf_error *err)
{
    json_object *o = json ? json_tokener_parse(json) : NULL;
    if (!o || !json_object_is_type(o, json_type_object)) {
        if (o) json_object_put(o);
        kf_fail(err, 2, "builtin point: not a JSON object: %.80s", json ? json : "(null)");
        return NULL;
    }
    return o;
}

int kf_bt_point_from_json(const char *json, const char *backend, const kf_resolved *r,
                          const kf_device_info *dev, kf_bt_point *out, kf_error *err)
{
    kf_bt_point p;
    kf_bt_point_default(backend, r, dev, &p);
    json_object *o = parse_object(json, err);
    if (!o) return -1;
    int rc = apply_fields(o, backend, &p, err);
    json_object_put(o);
    if (rc != 0) return -1;
    if (is_cpu(backend) && p.nr % 8 != 0)
        return kf_fail(err, 2, "builtin point: nr = %d must be a multiple of 8 (the AVX2 vector width)", p.nr);
    *out = p;
    return 0;
}

int kf_bt_point_check_json(const char *json, kf_error *err)
{
    kf_bt_point p;
    base_point("", &p);
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

char *kf_bt_point_label(const kf_bt_point *p, char *buf, size_t n)
{
    if (p->baseline) {
        snprintf(buf, n, "op-by-op baseline");
    } else if (is_cpu(p->backend)) {
        char thr[24] = "omp";
        if (p->threads) snprintf(thr, sizeof thr, "omp%d", p->threads);
        if (p->pack)
            snprintf(buf, n, "gemm %dx%dx%d mr%dnr%d%s%s %s %s", p->mc, p->nc, p->kc, p->mr, p->nr,
                     p->unroll > 1 ? " u" : "", p->unroll > 1 ? (p->unroll == 2 ? "2" : "4") : "",
                     fusion_name(p->fusion), thr);
        else
            snprintf(buf, n, "gemm plain loops %s %s", fusion_name(p->fusion), thr);
        if (p->loop_order) strncat(buf, " colmajor", n - strlen(buf) - 1);
    } else {
        snprintf(buf, n, "gemm ts%d wpt%d v%d%s %s%s", p->ts, p->wpt, p->vec, p->local_mem ? " local" : "",
                 fusion_name(p->fusion), p->precision ? " fp16" : "");
    }
    return buf;
}

/* index of v in a sorted table, or of the nearest entry */
static int nearest(const int *t, int n, int v)
{
    int best = 0;
    for (int i = 1; i < n; i++)
        if (abs(t[i] - v) < abs(t[best] - v)) best = i;
    return best;
}

int kf_bt_ocl_work_group(const kf_bt_point *p)
{
    if (p->ts <= 0 || p->wpt <= 0 || p->vec <= 0) return 0;
    return (p->ts / p->vec) * (p->ts / p->wpt);
}

static int push(kf_bt_point *out, int *k, int max, const kf_bt_point *p, const kf_bt_point *from)
{
    if (*k >= max || kf_bt_point_equal(p, from)) return 0;
    if (!is_cpu(p->backend) && (p->wpt > p->ts || p->vec > p->ts || kf_bt_ocl_work_group(p) > KF_BT_OCL_MAX_WG))
        return 0;
    for (int i = 0; i < *k; i++)
        if (kf_bt_point_equal(&out[i], p)) return 0;
    out[(*k)++] = *p;
    return 1;
}

/* neighbours along one table-valued knob: the previous and next entries */
#define STEP_KNOB(field, table) do { \
        int i_ = nearest(table, NELEM(table), p->field); \
        for (int d_ = -1; d_ <= 1; d_ += 2) { \
            int j_ = i_ + d_; \
            if (j_ < 0 || j_ >= NELEM(table)) continue; \
            q = *p; q.field = table[j_]; push(out, &k, max, &q, p); \
        } \
    } while (0)

int kf_bt_neighbours(const kf_bt_point *p, const kf_resolved *r, kf_bt_point *out, int max)
{
    (void)r;
    int k = 0;
    kf_bt_point q;
    if (p->baseline) return 0;
    for (int f = KF_BT_FUSE_NONE; f <= KF_BT_FUSE_ROWS; f++) {
        q = *p; q.fusion = f; push(out, &k, max, &q, p);
    }
    if (is_cpu(p->backend)) {
        if (!p->pack) { q = *p; q.pack = 1; push(out, &k, max, &q, p); return k; }
        int a512 = host_has_avx512();
        const tile_t *tl = a512 ? TILES512 : TILES256;
        int nt = a512 ? NELEM(TILES512) : NELEM(TILES256);
        for (int i = 0; i < nt; i++) {
            q = *p; q.mr = tl[i].mr; q.nr = tl[i].nr; push(out, &k, max, &q, p);
        }
        STEP_KNOB(mc, MCS);
        STEP_KNOB(nc, NCS);
        STEP_KNOB(kc, KCS);
        q = *p; q.unroll = p->unroll == 1 ? 2 : (p->unroll == 2 ? 4 : 1); push(out, &k, max, &q, p);
        q = *p; q.loop_order = !p->loop_order; push(out, &k, max, &q, p);
        q = *p; q.threads = p->threads ? 0 : 1; push(out, &k, max, &q, p);
    } else {
        STEP_KNOB(ts, TSS);
        STEP_KNOB(wpt, WPTS);
        STEP_KNOB(vec, VECS);
        q = *p; q.local_mem = !p->local_mem; push(out, &k, max, &q, p);
        q = *p; q.precision = p->precision ? KF_BT_FP32 : KF_BT_FP16_STORAGE; push(out, &k, max, &q, p);
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
    char *s = strdup(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
    json_object_put(o);
    return s;
}

static int point_of_obj(json_object *o, const char *backend, const kf_resolved *r, const kf_device_info *dev,
                        kf_bt_point *pt, kf_error *err)
{
    if (!o || !json_object_is_type(o, json_type_object))
        return kf_fail(err, 2, "builtin history: a point is not a JSON object");
    return kf_bt_point_from_json(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN), backend, r, dev,
                                 pt, err);
}

static int history_fill(json_object *o, const char *backend, const kf_resolved *r, const kf_device_info *dev,
                        kf_bt_history *h, kf_error *err)
{
    json_object *tried, *v;
    if (!json_object_object_get_ex(o, "tried", &tried) || !json_object_is_type(tried, json_type_array))
        return kf_fail(err, 2, "builtin history: no \"tried\" array");
    for (size_t i = 0; i < json_object_array_length(tried); i++) {
        json_object *t = json_object_array_get_idx(tried, i), *p = NULL, *ts = NULL;
        kf_bt_point pt;
        if (!json_object_object_get_ex(t, "point", &p) || point_of_obj(p, backend, r, dev, &pt, err) != 0)
            return kf_fail(err, 2, "builtin history: tried[%zu]: %s", i, err && err->msg[0] ? err->msg : "no point");
        json_object_object_get_ex(t, "time_s", &ts);
        if (kf_bt_history_add(h, &pt, ts ? json_object_get_double(ts) : 0) != 0)
            return kf_fail(err, 6, "builtin history: out of memory");
    }
    if (json_object_object_get_ex(o, "last_rec", &v) && v) {
        if (point_of_obj(v, backend, r, dev, &h->last_rec, err) != 0) return -1;
        h->have_last_rec = 1;
        if (json_object_object_get_ex(o, "last_rec_gain", &v) && v) h->last_rec_gain = json_object_get_double(v);
    }
    return 0;
}

int kf_bt_history_from_json(const char *json, const char *backend, const kf_resolved *r,
                            const kf_device_info *dev, kf_bt_history *out, kf_error *err)
{
    memset(out, 0, sizeof *out);
    json_object *o = json ? json_tokener_parse(json) : NULL;
    if (!o || !json_object_is_type(o, json_type_object)) {
        json_object_put(o);
        return kf_fail(err, 2, "builtin history: not a JSON object");
    }
    int rc = history_fill(o, backend, r, dev, out, err);
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
    double tail_elems;       /* elements produced by non-GEMM ops */
    double row_tail_elems;   /* elements of row groups that ROWS fusion keeps in cache */
    double epi_elems;        /* map-op elements that epilogue fusion saves a pass for */
    double tail_ns;          /* modelled single-thread time of the non-GEMM math, ns */
} work_t;

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
    int prev_gemm = -1;
    for (int k = 0; k < p->n_nodes; k++) {
        const kf_node *nd = &p->nodes[k];
        int v = p->n_inputs + k;
        double e = (double)kf_shape_elems(&r->shapes[v]);
        if (nd->op == KF_OP_MATMUL || nd->op == KF_OP_LINEAR) {
            const kf_shape *a = &r->shapes[nd->in[0].value];
            double K = (double)a->d[a->rank - 1];
            double n = r->shapes[v].rank ? (double)r->shapes[v].d[r->shapes[v].rank - 1] : 1;
            w->gemm_flops += 2.0 * e * K;
            w->gemm_mn += e;
            if (e / n > w->max_m) w->max_m = e / n;
            if (n > w->max_n) w->max_n = n;
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

/* Relative efficiency (0..1] of the GEMM at point p: register blocking,
 * cache fit of the blocks, load balance over threads. */
static double gemm_eff(const kf_bt_point *p, const work_t *w, int threads)
{
    if (!p->pack) return 0.15;
    int vl = host_has_avx512() ? 16 : 8;
    int nv = p->nr / vl;
    if (nv < 1) nv = 1;
    int acc = p->mr * nv;
    double e = 1.0;
    if (acc + nv + 1 > 32 || (vl == 8 && acc + nv + 1 > 16)) e *= 0.55;       /* spills */
    else e *= (double)acc / (acc + 0.5 * nv + 1.5);                             /* load/FMA ratio */
    double l1 = (double)p->mr * p->kc * 4 + (double)p->nr * p->kc * 4 / 4;
    if (l1 > 32768) e *= 0.9;
    double l2 = (double)p->kc * p->nc * 4 + (double)p->mc * p->kc * 4;
    if (l2 > 1024.0 * 1024) e *= 0.85;
    if (p->kc < 256) e *= 0.93;
    /* balance: (MC x NC) blocks over threads */
    double bm = ceil(w->max_m / p->mc), bn = ceil(w->max_n / p->nc);
    double blocks = bm * bn;
    if (blocks < 1) blocks = 1;
    double waves = ceil(blocks / threads);
    e *= blocks / (waves * threads);
    /* padding waste of edge tiles */
    if (w->max_m > 0 && w->max_n > 0) {
        double um = ceil(w->max_m / p->mr) * p->mr, un = ceil(w->max_n / p->nr) * p->nr;
        e *= (w->max_m * w->max_n) / (um * un);
    }
    return e;
}

static int host_threads(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}

/* Modelled time of the whole candidate at point p. */
static double model_time(const kf_bt_point *p, const work_t *w, const kf_roofline *rf)
{
    int threads = p->threads ? p->threads : host_threads();
    double peak = rf->peak_flops > 0 ? rf->peak_flops : 1e11;
    double bw = rf->peak_bytes_per_s > 0 ? rf->peak_bytes_per_s : 1e10;
    double per_thread = peak / host_threads();
    double t = w->gemm_flops / (per_thread * threads * gemm_eff(p, w, threads));
    /* every unfused tail pass reads and writes its tensor */
    double passes = w->tail_elems;
    if (p->fusion >= KF_BT_FUSE_EPILOGUE) passes -= w->epi_elems;
    if (p->fusion >= KF_BT_FUSE_ROWS) passes -= w->row_tail_elems * 0.7;
    t += passes * 8.0 / bw;
    /* tail math */
    t += w->tail_ns * 1e-9 / threads;
    return t;
}

/* ------------------------------------------------------------------ */
/* the analyzer                                                        */

typedef struct scored {
    kf_bt_point pt;
    double gain;
    int compute_knob;
} scored_t;

static int cmp_scored(const void *a, const void *b)
{
    const scored_t *x = a, *y = b;
    if (x->gain != y->gain) return x->gain > y->gain ? -1 : 1;
    return 0;   /* qsort is not stable: ties keep neighbour order below */
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
    if (a->fusion != b->fusion) snprintf(buf, n, "switch to %s", fusion_name(b->fusion));
    else if (a->mr != b->mr || a->nr != b->nr) snprintf(buf, n, "use a %dx%d micro-kernel (was %dx%d)", b->mr, b->nr, a->mr, a->nr);
    else if (a->mc != b->mc) snprintf(buf, n, "set MC to %d (was %d)", b->mc, a->mc);
    else if (a->nc != b->nc) snprintf(buf, n, "set NC to %d (was %d)", b->nc, a->nc);
    else if (a->kc != b->kc) snprintf(buf, n, "set KC to %d (was %d)", b->kc, a->kc);
    else if (a->unroll != b->unroll) snprintf(buf, n, "unroll the k loop by %d", b->unroll);
    else if (a->loop_order != b->loop_order) snprintf(buf, n, "order blocks %s", b->loop_order ? "column-major" : "row-major");
    else if (a->threads != b->threads) snprintf(buf, n, "use %s threads", b->threads ? "1" : "all");
    else if (a->pack != b->pack) snprintf(buf, n, "%s packing", b->pack ? "enable" : "disable");
    else if (a->ts != b->ts) snprintf(buf, n, "set the work-group tile to %d (was %d)", b->ts, a->ts);
    else if (a->wpt != b->wpt) snprintf(buf, n, "set work per item to %d (was %d)", b->wpt, a->wpt);
    else if (a->vec != b->vec) snprintf(buf, n, "set the vector width to %d (was %d)", b->vec, a->vec);
    else if (a->local_mem != b->local_mem) snprintf(buf, n, "%s local-memory tiling", b->local_mem ? "enable" : "disable");
    else if (a->precision != b->precision) snprintf(buf, n, "use %s", b->precision ? "fp16 storage" : "fp32");
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
        return kf_fail(err, 2, "builtin analyzer: the candidate has no timing; profile it first");
    if (kf_bt_history_add(h, cur, t) != 0) return kf_fail(err, 6, "builtin analyzer: out of memory");
    const kf_roofline *rf = &eval->roofline;
    work_t w;
    measure_work(r, &w);

    /* bottleneck */
    double tc = rf->peak_flops > 0 ? rf->flops / rf->peak_flops : 0;
    double tm = rf->peak_bytes_per_s > 0 ? rf->min_bytes / rf->peak_bytes_per_s : 0;
    double frac = rf->fraction;
    double tail_t = w.tail_ns * 1e-9 / host_threads();
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

    /* did the last recommendation miss? */
    if (h->have_last_rec && previous_time_s > 0 && h->last_rec_gain > 1) {
        double got = previous_time_s / t;
        double want = h->last_rec_gain;
        if (got < 1 + (want - 1) / 2) {
            char lb[128];
            kf_bt_point_label(&h->last_rec, lb, sizeof lb);
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
        if (kf_bt_history_has(h, &nb[i])) continue;
        double g = tcur / model_time(&nb[i], &w, rf);
        int ck = nb[i].fusion == cur->fusion;
        /* compute-bound and below the target: assume a quarter (in log
           space) of the unexplained gap is recoverable by one tiling step */
        if (ck && !strcmp(bn, "compute") && frac < target_fraction && gap > 1 && g > 0.97)
            g *= pow(gap, 0.25) * (g >= 1 ? 1 : 0.98);
        sc[m].pt = nb[i];
        sc[m].gain = g;
        sc[m].compute_knob = ck;
        m++;
    }
    /* stable order: by gain, ties by neighbour order (already in order) */
    for (int i = 1; i < m; i++)
        for (int j = i; j > 0 && cmp_scored(&sc[j - 1], &sc[j]) > 0; j--) {
            scored_t tmp = sc[j]; sc[j] = sc[j - 1]; sc[j - 1] = tmp;
        }

    out->recs = calloc(4, sizeof *out->recs);
    if (!out->recs) return kf_fail(err, 6, "builtin analyzer: out of memory");
    for (int i = 0; i < m && out->n_recs < 4; i++) {
        if (sc[i].gain <= 1.0) break;
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
    out->stop = frac >= target_fraction || out->n_recs == 0;
    if (out->n_recs > 0) {
        h->last_rec = sc[0].pt;
        h->last_rec_gain = sc[0].gain;
        h->have_last_rec = 1;
    } else {
        h->have_last_rec = 0;
    }
    return 0;
}
