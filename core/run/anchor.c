/* anchor.c — the GEMM anchor of a problem (anchor.h): the main GEMM found
 * through the built-in agent's op-by-op plan, written out as a problem of
 * its own, and its library call as a candidate from the emitter of the
 * backend's language (emit.h, library_gemm). */
#include <config.h>
#include "anchor.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/builtin/builtin.h"

void kf_gemm_anchor_free(kf_gemm_anchor *a)
{
    if (!a) return;
    free(a->problem_json);
    kf_candidate_free(a->cand);
    free(a->how);
    memset(a, 0, sizeof *a);
}

char *kf_anchor_warning(double baseline_s, double anchor_s)
{
    if (!(baseline_s > 0) || !(anchor_s > 0)) return NULL;
    double ratio = baseline_s / anchor_s;
    if (ratio <= KF_ANCHOR_WARN_RATIO) return NULL;
    char *w = NULL;
    if (asprintf(&w,
                 "the op-by-op baseline takes %.2fx its standalone GEMM anchor (over %.1fx): either its tail "
                 "ops really cost that much, or the baseline was slowed (machine load, threading) and speedups "
                 "over it are inflated",
                 ratio, KF_ANCHOR_WARN_RATIO) < 0)
        w = NULL;
    return w;
}

static void why_set(char *why, size_t n, const char *fmt, ...) KF_PRINTF(3, 4);
static void why_set(char *why, size_t n, const char *fmt, ...)
{
    if (!why || !n) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, n, fmt, ap);
    va_end(ap);
}

static char *problem_json(const kf_resolved *r, const kf_bt_gemm *g)
{
    const kf_problem *p = r->problem;
    int batched = g->batch > 1;
    char *s = NULL;
    char presets[256];
    if (batched)
        snprintf(presets, sizeof presets, "{\"T\": %" PRId64 ", \"M\": %" PRId64 ", \"N\": %" PRId64 ", \"K\": %" PRId64 "}",
                 g->batch, g->M, g->N, g->K);
    else
        snprintf(presets, sizeof presets, "{\"M\": %" PRId64 ", \"N\": %" PRId64 ", \"K\": %" PRId64 "}", g->M, g->N,
                 g->K);
    const char *t = batched ? "\"T\", " : "";
    if (asprintf(&s,
                 "{\n"
                 "  \"name\": \"gemm_anchor\",\n"
                 "  \"description\": \"the main GEMM of %s (preset %s) alone: a standalone library timing next to "
                 "the op-by-op baseline, not the problem\",\n"
                 "  \"dims\": [%s\"M\", \"N\", \"K\"],\n"
                 "  \"presets\": {\"anchor\": %s},\n"
                 "  \"inputs\": [\n"
                 "    {\"name\": \"a\", \"shape\": [%s\"M\", \"K\"], \"init\": {\"dist\": \"uniform\", \"low\": 0.0, \"high\": 1.0}},\n"
                 "    {\"name\": \"b\", \"shape\": [%s%s], \"init\": {\"dist\": \"kaiming_uniform\", \"fan_in\": \"K\"}}\n"
                 "  ],\n"
                 "  \"graph\": [{\"out\": \"c\", \"op\": \"matmul\", \"in\": [\"a\", \"b\"], \"transpose_b\": %s}],\n"
                 "  \"outputs\": [\"c\"],\n"
                 "  \"tolerance\": {\"atol\": %.17g, \"rtol\": %.17g, \"rel_l2\": %.17g}\n"
                 "}\n",
                 p->name, p->preset_names[r->preset], t, presets, t, t, g->trans_b ? "\"N\", \"K\"" : "\"K\", \"N\"",
                 g->trans_b ? "true" : "false", p->atol, p->rtol, p->rel_l2) < 0)
        return NULL;
    return s;
}

int kf_gemm_anchor_make(const kf_resolved *r, const kf_bt_emitter *em, const char *backend, kf_gemm_anchor *out,
                        char *why, size_t why_len, kf_error *err)
{
    memset(out, 0, sizeof *out);
    if (!em || !em->library_gemm) {
        why_set(why, why_len, "the GEMM anchor needs a vendor library GEMM for the backend's language (%s); "
                "the built-in agent has none for it", em ? em->language : "no emitter");
        return 1;
    }
    kf_bt_plan plan;
    kf_error e = {0};
    if (kf_bt_plan_build(r, KF_BT_FUSE_NONE, &plan, &e) != 0) {
        why_set(why, why_len, "the problem could not be planned: %s", e.msg);
        return 1;
    }
    int best = -1;
    double best_flops = 0;
    for (int gi = 0; gi < plan.n_groups; gi++) {
        const kf_bt_group *gr = &plan.groups[gi];
        if (gr->kind != KF_BT_GEMM) continue;
        double f = 2.0 * (double)gr->gemm.batch * (double)gr->gemm.M * (double)gr->gemm.N * (double)gr->gemm.K;
        if (best < 0 || f > best_flops) {
            best = gi;
            best_flops = f;
        }
    }
    if (best < 0) {
        kf_bt_plan_free(&plan);
        why_set(why, why_len, "the problem has no matmul or linear");
        return 1;
    }
    kf_bt_gemm g = plan.groups[best].gemm;
    kf_bt_plan_free(&plan);
    out->M = g.M;
    out->N = g.N;
    out->K = g.K;
    out->batch = g.batch;
    out->trans_b = g.trans_b;
    out->flops = best_flops;
    char *call = NULL;
    if (em->library_gemm(r, &g, backend, &out->cand, &call, &e) != 0) {
        why_set(why, why_len, "%s", e.msg);
        return 1;
    }
    out->problem_json = problem_json(r, &g);
    char bt[48] = "";
    if (g.batch > 1) snprintf(bt, sizeof bt, "batch %" PRId64 " x ", g.batch);
    if (asprintf(&out->how, "%s, %sM=%" PRId64 " N=%" PRId64 " K=%" PRId64 "%s", call ? call : "library GEMM",
                 bt, g.M, g.N, g.K, g.trans_b ? ", B transposed" : "") < 0)
        out->how = NULL;
    free(call);
    if (!out->problem_json || !out->cand || !out->how) {
        kf_gemm_anchor_free(out);
        return kf_fail(err, KF_E_INTERNAL, "out of memory");
    }
    return 0;
}
