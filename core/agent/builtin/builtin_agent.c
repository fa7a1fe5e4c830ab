/* builtin_agent.c — the built-in agent: kf_builtin_agent_open() and its
 * kf_agent_ops (core/agent/agent.h).  Deterministic: the same problem, backend
 * and request give the same candidate; no network, no key.
 *
 * generate(): FIRST -> the default point, or the start point of
 * `--agent builtin:POINT` laid over it; OPTIMIZE -> the point of the
 * chosen recommendation; FIX_* after a failed optimization variant -> the
 * next untried recommendation (or the best point again); other FIX_* -> a
 * more conservative point than the failed one (the builtin candidates are
 * correct by construction, so a failure means a generator bug or a device
 * limit); BASELINE -> op-by-op.
 * analyze(): kf_bt_analyze() over the history kept in the agent.
 * save_state()/load_state(): that history as JSON, for --resume.
 * The point a candidate came from travels in its notes ("builtin point:
 * {json}") so the analyzer and the fixer can read it back. */
#include "builtin.h"

#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/agent.h"
#include "problem/precision.h"

#define POINT_TAG "builtin point: "

typedef struct bt_impl {
    kf_bt_history hist;
    char *start;      /* JSON of the start point's fields, or NULL */
} bt_impl;

/* The emitter of the run's backend, from the language its plugin
 * declares; NULL when the built-in agent has none for it. */
static const kf_bt_emitter *emitter(const kf_agent_ctx *ctx)
{
    return kf_bt_emitter_for(ctx->backend_language);
}

static int no_emitter(const kf_agent_ctx *ctx, kf_error *err)
{
    char langs[256] = "";
    for (int i = 0; kf_bt_emitters[i]; i++) {
        size_t l = strlen(langs);
        snprintf(langs + l, sizeof langs - l, "%s%s", i ? ", " : "", kf_bt_emitters[i]->language);
    }
    return kf_fail(err, KF_E_BAD_INPUT, "the builtin agent has no code emitter for backend %s (language \"%s\"; it emits %s); "
                   "use an LLM agent for it", ctx->backend ? ctx->backend : "?",
                   ctx->backend_language ? ctx->backend_language : "unknown", langs);
}

/* Reads the point back from a candidate's notes; 0 when found. */
static int point_of(const kf_candidate *c, const kf_agent_ctx *ctx, kf_bt_point *pt)
{
    if (!c || !c->notes) return -1;
    const char *s = strstr(c->notes, POINT_TAG);
    if (!s) return -1;
    s += strlen(POINT_TAG);
    const char *e = strchr(s, '}');
    if (!e) return -1;
    char *js = strndup(s, (size_t)(e - s + 1));
    if (!js) return -1;
    int rc = kf_bt_point_from_json(js, emitter(ctx), ctx->backend, ctx->r, ctx->device, pt, NULL);
    free(js);
    return rc;
}

/* Plans and generates the candidate of point pt. */
static int build(const kf_agent_ctx *ctx, const kf_bt_point *pt, kf_gen_result *res, const char *why)
{
    kf_bt_plan plan;
    kf_error e = {0};
    if (kf_bt_plan_point(ctx->r, pt, &plan, &e) != 0) {
        res->error = strdup(e.msg);
        return 0;
    }
    kf_candidate *c = NULL;
    char *label = NULL;
    int rc = pt->em->generate(&plan, pt, ctx->backend, ctx->device, &c, &label, &e);
    kf_bt_plan_free(&plan);
    if (rc != 0 || !c) {
        free(label);
        kf_candidate_free(c);
        res->error = strdup(e.msg[0] ? e.msg : "the builtin generator produced no candidate");
        return 0;
    }
    char *js = kf_bt_point_json(pt);
    char *notes = NULL;
    if (asprintf(&notes, "%s%s%s%s", why ? why : "", why ? "\n" : "", POINT_TAG, js ? js : "{}") < 0)
        notes = NULL;
    free(js);
    free(c->notes);
    c->notes = notes;
    res->cand = c;
    if (why && label) {
        char *l2 = NULL;
        if (asprintf(&l2, "%s (%s)", label, why) >= 0) { free(label); label = l2; }
    }
    res->label = label;
    return 0;
}

/* The largest fraction of an output's elements that ev got wrong (its
 * stats: the trials'); 0 without stats. */
static double miss_fraction(const kf_eval_result *ev)
{
    double frac = 0;
    for (int o = 0; ev->stats && o < ev->n_outputs; o++)
        if (ev->stats[o].n_elems > 0 && (double)ev->stats[o].n_bad / (double)ev->stats[o].n_elems > frac)
            frac = (double)ev->stats[o].n_bad / (double)ev->stats[o].n_elems;
    return frac;
}

/* 1 when the last candidate failed verification in at most 1 element in
 * 100000 (KF_BT_MISS_SLIGHT): a bf16 miss that bf16c (half its error) may
 * mend */
static int slight_bf16_miss(const kf_gen_request *req)
{
    return req->last_eval && req->last_eval->verdict == KF_FAIL_MISMATCH && req->last_eval->stats &&
           miss_fraction(req->last_eval) <= KF_BT_MISS_SLIGHT;
}

/* The C emitter's first step towards accuracy after a bf16 (vdpbf16ps)
 * point missed in few elements: the same point with A's columns centred
 * (precision 9), out of row panels (epilogue fusion) where it was in them;
 * 1 when *pt was changed.  Other misses, and other emitters' bf16 (tensor
 * cores: their own ladder), take kf_bt_point_conservative. */
static int bf16c_instead(bt_impl *im, const kf_agent_ctx *ctx, const kf_gen_request *req, kf_bt_point *pt)
{
    if (pt->precision != KF_BT_BF16 || !slight_bf16_miss(req) ||
        kf_bt_precision_ruled_out(&im->hist, KF_BT_BF16C))
        return 0;
    kf_bt_point q = *pt;
    q.precision = KF_BT_BF16C;
    if (q.fusion == KF_BT_FUSE_ROWS && kf_bt_has_row_panels(ctx->r)) {
        q.fusion = KF_BT_FUSE_EPILOGUE;
        if (q.em->refit_fusion) q.em->refit_fusion(&q, ctx->r);
    }
    /* the C emitter's precision 9 (the others' bf16 is on tensor cores) */
    if (!q.em->language || strcmp(q.em->language, "c") != 0 || (q.em->offerable && !q.em->offerable(&q)) ||
        (q.em->check && q.em->check(&q, NULL) != 0) ||
        kf_bt_history_has(&im->hist, &q))
        return 0;
    *pt = q;
    return 1;
}

/* An optimization variant failed while a correct best exists.  The builtin
 * candidates are correct by construction, so the cause is a reduced
 * precision that missed the tolerance, or a limit of the device (a kernel's
 * work-group or local-memory limit, a compiler's register budget):
 * stepping the failed point towards "conservative" would throw the good
 * tiling away.  The failed point stays in the history as
 * failed (time 0, never recommended again); the next step takes the first
 * recommendation of the last analysis not tried yet, else the best point
 * again.  Returns 1 with *pt and *why set, 0 when this does not apply. */
static int variant_failed(bt_impl *im, const kf_agent_ctx *ctx, const kf_gen_request *req, kf_bt_point *pt,
                          const char **why)
{
    kf_bt_point best, failed;
    if (!req->best || point_of(req->best, ctx, &best) != 0 || point_of(req->last, ctx, &failed) != 0 ||
        kf_bt_point_equal(&best, &failed) || best.baseline)
        return 0;
    /* a GEMM on fewer mantissa bits than fp32 (fp16 storage, TF32, bf16) may
       miss a tolerance by a few elements, correct by construction or not */
    int lossy = kf_bt_precision_lossy(failed.precision);
    /* bf16 on the tiles wrong in more than 1 element in 1000: 2xbf16, which
       keeps B's rounding (0.4-0.7 of bf16's error), missed too where this was
       measured (problem 62: 9634 of 1048576 wrong with bf16, 4459 with 2xbf16;
       the misses it rescued were 3 to 261), so it is passed over for 3xbf16.
       bf16c (A's columns centred, about half bf16's error on inputs >= 0) is
       tried only after a miss in at most 1 element in 100000: it passed
       where bf16 missed by 1 to 5 elements (30, 41 at the cpu preset) and
       missed where bf16 missed by 24 to 280 (33, 88); wider misses, and
       misses of bf16c itself, go on to the split precisions.  A bf16 miss
       whose worst element used over KF_BT_MISS_WIDE of its allowance passes
       over 2xbf16 too, however few elements it got wrong (88: 30 wrong, the
       worst at 2.06; 2xbf16 then sat at the tolerance's edge) */
    int broad = 0;
    if ((failed.precision == KF_BT_AMX_BF16 || failed.precision == KF_BT_AMX_BF16C) && req->last_eval &&
        req->last_eval->verdict == KF_FAIL_MISMATCH && req->last_eval->stats)
        broad = miss_fraction(req->last_eval) > KF_BT_MISS_BROAD ||
                kf_eval_worst_tol_frac(req->last_eval) > KF_BT_MISS_WIDE;
    /* the one bf16c that may follow: the failed bf16's own (on the tiles, or
       on vdpbf16ps, which has no split precisions), after a slight miss */
    const int next_c = !slight_bf16_miss(req) ? -1
                       : failed.precision == KF_BT_AMX_BF16 ? KF_BT_AMX_BF16C
                       : failed.precision == KF_BT_BF16 ? KF_BT_BF16C : -1;
    const kf_analysis *an = req->analysis;
    for (int i = 0; an && i < an->n_recs; i++) {
        kf_bt_point q;
        if (!an->recs[i].params ||
            kf_bt_point_from_json(an->recs[i].params, emitter(ctx), ctx->backend, ctx->r, ctx->device, &q, NULL) != 0)
            continue;
        if (kf_bt_history_has(&im->hist, &q)) continue;
        if (broad && q.precision == KF_BT_AMX_BF16X2) continue;
        if (kf_bt_precision_bf16c(q.precision) && q.precision != next_c) continue;
        *pt = q;
        *why = broad ? "the last variant failed: bf16 on the tiles missed the tolerance in more than 1 element in "
                       "1000, or its worst element used over 1.6 times its allowance, too many for 2xbf16; next untried "
                       "recommendation"
             : lossy ? "the last variant failed: its reduced precision missed the tolerance (or a device limit); "
                       "next untried recommendation"
                     : "the last variant failed on this device (a device limit: builtin candidates are correct by "
                       "construction); next untried recommendation";
        return 1;
    }
    *pt = best;
    *why = lossy ? "the last variant failed: its reduced precision missed the tolerance (or a device limit); back to "
                   "the best point"
                 : "the last variant failed on this device (a device limit: builtin candidates are correct by "
                   "construction); back to the best point";
    return 1;
}

static int bt_generate(kf_agent *a, const kf_agent_ctx *ctx, const kf_gen_request *req,
                       kf_gen_result *res, kf_error *err)
{
    bt_impl *im = a->impl;
    memset(res, 0, sizeof *res);
    if (!emitter(ctx)) {
        kf_error e = {0};
        no_emitter(ctx, &e);
        if (!(res->error = strdup(e.msg))) return kf_fail(err, KF_E_INTERNAL, "out of memory");
        return 0;
    }
    kf_bt_point pt;
    const char *why = NULL;
    /* a builtin candidate that got elements wrong (in the trials, or in
       timed runs on fresh inputs: stale, whose stats are the trials', so
       the miss is recorded as the smallest): its precision is remembered
       for this problem (kf_bt_precision_ruled_out) */
    if (req->last && req->last_eval &&
        (req->last_eval->verdict == KF_FAIL_MISMATCH || req->last_eval->verdict == KF_FAIL_STALE) &&
        point_of(req->last, ctx, &pt) == 0) {
        double frac = miss_fraction(req->last_eval);
        kf_bt_history_missed(&im->hist, pt.precision, req->last_eval->verdict == KF_FAIL_STALE && frac < 1e-9 ? 1e-9 : frac,
                             kf_eval_worst_tol_frac(req->last_eval));
    }
    switch (req->kind) {
    case KF_GEN_BASELINE:
        kf_bt_point_baseline(emitter(ctx), ctx->backend, &pt);
        break;
    case KF_GEN_OPTIMIZE: {
        const kf_analysis *an = req->analysis;
        if (!an || req->rec_index < 0 || req->rec_index >= an->n_recs || !an->recs[req->rec_index].params) {
            /* nothing to apply: regenerate from the best point */
            if (point_of(req->best, ctx, &pt) != 0) kf_bt_point_default(emitter(ctx), ctx->backend, ctx->r, ctx->device, &pt);
            why = "no recommendation to apply";
            break;
        }
        kf_error e = {0};
        if (kf_bt_point_from_json(an->recs[req->rec_index].params, emitter(ctx), ctx->backend, ctx->r, ctx->device, &pt, &e) != 0) {
            res->error = strdup(e.msg);
            return 0;
        }
        break;
    }
    case KF_GEN_FIX_COMPILE:
    case KF_GEN_FIX_MISMATCH:
        if (variant_failed(im, ctx, req, &pt, &why)) break;
        if (point_of(req->last, ctx, &pt) != 0) kf_bt_point_default(emitter(ctx), ctx->backend, ctx->r, ctx->device, &pt);
        if (req->kind == KF_GEN_FIX_MISMATCH && bf16c_instead(im, ctx, req, &pt)) {
            why = "fallback after a failure: bf16 missed the tolerance in at most 1 element in 100000; bf16 with "
                  "A's columns centred (about half its error)";
        } else if (kf_bt_point_conservative(&pt)) {
            why = "fallback after a failure: more conservative point";
        } else {
            res->error = strdup("the most conservative builtin candidate failed too: this is a builtin "
                                "generator bug or a device limit; please report it with the run directory");
            return 0;
        }
        break;
    default:
        if (im->start) {
            kf_error e = {0};
            if (kf_bt_point_from_json(im->start, emitter(ctx), ctx->backend, ctx->r, ctx->device, &pt, &e) != 0) {
                if (asprintf(&res->error, "--agent builtin:POINT: %s", e.msg) < 0) res->error = NULL;
                return res->error ? 0 : kf_fail(err, KF_E_INTERNAL, "out of memory");
            }
            why = "start point of --agent builtin:POINT";
            break;
        }
        kf_bt_point_default(emitter(ctx), ctx->backend, ctx->r, ctx->device, &pt);
        if (ctx->reference && ctx->reference->point) {
            /* --from: the source's point, where this emitter accepts it (the
               knobs of another language's emitter are ignored) */
            kf_bt_point q;
            kf_error e = {0};
            if (kf_bt_point_from_json(ctx->reference->point, emitter(ctx), ctx->backend, ctx->r, ctx->device, &q, &e) == 0) {
                pt = q;
                why = "start point of the --from kernel";
            } else {
                why = "the --from kernel's point does not fit this backend: default point";
            }
        }
        break;
    }
    /* --precision fp32: every point generated is fp32.  The analyses offer no
       other (kf_bt_history.fp32_only) and bt_check refused a start point naming
       one, so this sets the first point's precision: the default's (CUDA on
       Hopper: BF16), the --from kernel's or a start point's tiling, in fp32 */
    if (!pt.baseline && ctx->precision == KF_PRECISION_FP32) pt.precision = KF_BT_FP32;
    if (!pt.baseline && kf_bt_history_add(&im->hist, &pt, 0) != 0) return kf_fail(err, KF_E_INTERNAL, "out of memory");
    return build(ctx, &pt, res, why);
}

static int bt_analyze(kf_agent *a, const kf_agent_ctx *ctx, const kf_analyze_request *req,
                      kf_analysis *out, kf_agent_io *io, kf_error *err)
{
    bt_impl *im = a->impl;
    memset(io, 0, sizeof *io);
    if (!emitter(ctx)) return no_emitter(ctx, err);
    kf_bt_point pt;
    if (point_of(req->cand, ctx, &pt) != 0) {
        /* a candidate from elsewhere (an LLM, a file): analyse it as if it
           were the default point so the recommendations stay in our space */
        kf_bt_point_default(emitter(ctx), ctx->backend, ctx->r, ctx->device, &pt);
    }
    im->hist.seed = ctx->agent_seed;
    im->hist.fp32_only = ctx->precision == KF_PRECISION_FP32;
    return kf_bt_analyze(&im->hist, ctx->r, &pt, req->eval, req->previous_time_s, ctx->target_fraction,
                         out, err);
}

static char *bt_save_state(kf_agent *a)
{
    bt_impl *im = a->impl;
    return kf_bt_history_json(&im->hist);
}

/* The history of an interrupted run, so the resumed one neither retries
 * the points it tried nor forgets what its last recommendation expected. */
static int bt_load_state(kf_agent *a, const kf_agent_ctx *ctx, const char *state, kf_error *err)
{
    bt_impl *im = a->impl;
    kf_bt_history h;
    if (kf_bt_history_from_json(state, emitter(ctx), ctx->backend, ctx->r, ctx->device, &h, err) != 0) return -1;
    kf_bt_history_free(&im->hist);
    im->hist = h;
    return 0;
}

static void bt_close(kf_agent *a)
{
    if (!a) return;
    bt_impl *im = a->impl;
    if (im) {
        kf_bt_history_free(&im->hist);
        free(im->start);
    }
    free(im);
    free(a->spec);
    free(a);
}

/* --precision fp32 with `--agent builtin:POINT` naming another precision:
 * refused before anything is measured (a point that names none is laid
 * over the default and run in fp32). */
static int bt_check(kf_agent *a, const kf_agent_ctx *ctx, kf_error *err)
{
    bt_impl *im = a->impl;
    if (ctx->precision != KF_PRECISION_FP32 || !im->start) return 0;
    json_object *o = json_tokener_parse(im->start), *v;
    int prec = o && json_object_object_get_ex(o, "precision", &v) ? json_object_get_int(v) : KF_BT_FP32;
    json_object_put(o);
    if (prec != KF_BT_FP32)
        return kf_fail(err, KF_E_BAD_INPUT, "--agent builtin:POINT names precision %d, and the run asks for "
                       "--precision fp32: drop the point's \"precision\" (or give 0), or run with --precision any", prec);
    return 0;
}

static const kf_agent_ops BT_OPS = {
    .kind = "builtin",
    .generate = bt_generate,
    .analyze = bt_analyze,
    .close = bt_close,
    .save_state = bt_save_state,
    .load_state = bt_load_state,
    .check = bt_check,
};

kf_agent *kf_builtin_agent_open(const char *start, kf_error *err)
{
    kf_error e = {0};
    if (start && kf_bt_point_check_json(start, &e) != 0) {
        kf_fail(err, KF_E_BAD_INPUT, "--agent builtin:POINT: %s; POINT is a JSON object of search-space fields, e.g. "
                "'builtin:{\"ts\":64,\"wpt\":8,\"vec\":4}'", e.msg);
        return NULL;
    }
    kf_agent *a = calloc(1, sizeof *a);
    bt_impl *im = calloc(1, sizeof *im);
    char *spec = NULL;
    if (start) {
        if (asprintf(&spec, "builtin:%s", start) < 0) spec = NULL;
        if (im) im->start = strdup(start);
    } else {
        spec = strdup("builtin");
    }
    if (!a || !im || !spec || (start && !im->start)) {
        if (im) free(im->start);
        free(a); free(im); free(spec);
        kf_fail(err, KF_E_INTERNAL, "out of memory opening the builtin agent");
        return NULL;
    }
    a->ops = &BT_OPS;
    a->spec = spec;
    a->impl = im;
    return a;
}
