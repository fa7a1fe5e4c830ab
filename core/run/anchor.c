/* anchor.c — the GEMM anchor of a problem (anchor.h): the main GEMM found
 * through the built-in agent's op-by-op plan, written out as a problem of
 * its own, and its library call as a cpu-simd candidate. */
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

/* cblas_sgemm per batch, with the thread count every candidate gets. */
static kf_candidate *cpu_candidate(const kf_resolved *r, const kf_bt_gemm *g, const char *lib)
{
    char *src = NULL;
    char loop[160] = "", ind[16] = "    ";
    const char *ta = "", *tb = "", *tc = "";
    if (g->batch > 1) {
        snprintf(loop, sizeof loop, "    for (int64_t t = 0; t < %" PRId64 "; t++)\n", g->batch);
        snprintf(ind, sizeof ind, "        ");
        ta = " + t * M_ * K_";
        tb = " + t * N_ * K_";
        tc = " + t * M_ * N_";
    }
    if (asprintf(&src,
                 "/*\n"
                 " * GEMM anchor of %s (preset %s): its main GEMM alone through %s,\n"
                 " * with the thread count every candidate gets.  A standalone library timing\n"
                 " * measured next to the op-by-op baseline; NOT a kernel for %s.\n"
                 " */\n"
                 "#include <stdint.h>\n"
                 "#include <cblas.h>\n"
                 "#include \"kforge-cpu.h\"\n\n"
                 "#define M_ ((int64_t)%" PRId64 ")\n#define N_ ((int64_t)%" PRId64 ")\n#define K_ ((int64_t)%" PRId64 ")\n\n"
                 "void kf_kernel(const kf_cpu_args *a)\n"
                 "{\n"
                 "    const int nt = a->n_threads > 0 ? a->n_threads : 1;\n"
                 "    openblas_set_num_threads(nt);\n"
                 "%s"
                 "%scblas_sgemm(CblasRowMajor, CblasNoTrans, %s, M_, N_, K_, 1.0f,\n"
                 "%s            a->in[0]%s, K_, a->in[1]%s, %s, 0.0f, a->out[0]%s, N_);\n"
                 "}\n",
                 r->problem->name, r->problem->preset_names[r->preset], lib, r->problem->name, g->M, g->N, g->K, loop,
                 ind, g->trans_b ? "CblasTrans" : "CblasNoTrans", ind, ta, tb, g->trans_b ? "K_" : "N_", tc) < 0)
        return NULL;
    kf_candidate *c = kf_candidate_new("cpu-simd");
    if (!c || kf_candidate_add_source(c, "anchor.c", src) != 0) {
        free(src);
        kf_candidate_free(c);
        return NULL;
    }
    free(src);
    free(c->entry);
    c->entry = strdup("kf_kernel");
    free(c->build_options);
    c->build_options = strdup(kf_bt_blas_options());
    free(c->notes);
    c->notes = strdup("GEMM anchor: a standalone library timing of the problem's main GEMM, not a kernel for it");
    if (!c->entry || !c->build_options || !c->notes) {
        kf_candidate_free(c);
        return NULL;
    }
    return c;
}

int kf_gemm_anchor_make(const kf_resolved *r, const char *backend, kf_gemm_anchor *out, char *why,
                        size_t why_len, kf_error *err)
{
    memset(out, 0, sizeof *out);
    if (!backend || strcmp(backend, "cpu-simd") != 0) {
        why_set(why, why_len, "the GEMM anchor times a CPU library GEMM (cblas_sgemm): cpu-simd only");
        return 1;
    }
    const char *lib = kf_bt_blas_name();
    if (!lib || !kf_bt_blas_options()) {
        why_set(why, why_len, "OpenBLAS was not found at configure time: no library GEMM to time");
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
    out->problem_json = problem_json(r, &g);
    out->cand = cpu_candidate(r, &g, lib);
    char bt[48] = "";
    if (g.batch > 1) snprintf(bt, sizeof bt, "batch %" PRId64 " x ", g.batch);
    if (asprintf(&out->how, "cblas_sgemm alone (%s), %sM=%" PRId64 " N=%" PRId64 " K=%" PRId64 "%s", lib, bt, g.M, g.N,
                 g.K, g.trans_b ? ", B transposed" : "") < 0)
        out->how = NULL;
    if (!out->problem_json || !out->cand || !out->how) {
        kf_gemm_anchor_free(out);
        return kf_fail(err, 12, "out of memory");
    }
    return 0;
}
