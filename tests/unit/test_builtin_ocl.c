/*
 * test_builtin_ocl.c — the built-in agent's OpenCL generator
 * (core/agent/builtin/emit/builtin_ocl*.c) end to end: for every problem under
 * problems/level1 and problems/level2 at the `small` preset, the default
 * fused candidate and the op-by-op baseline are generated and evaluated by
 * the real worker on the OpenCL plugin (PoCL here), and must pass.  Plus
 * the shape of the plans (launch counts, kernel names, uniform work-groups),
 * other points of the search space, fp16 scratch storage, a run at another
 * preset failing loudly, and refused points.
 */
#include "../kf_test.h"
#include "agent/builtin/builtin.h"
#include "agent/builtin/emit/ocl_knobs.h"
#include "candidate/candidate.h"
#include "eval/eval.h"
#include "problem/problem.h"
#include "backend/registry.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ */
/* fixtures                                                            */

typedef struct fx {
    kf_problem *prob;
    kf_resolved r;
    kf_registry *reg;
    kf_plugin *ocl;
} fx;

static void fx_open(fx *f, const char *rel, const char *preset)
{
    char path[4096];
    kf_error err = {0};
    memset(f, 0, sizeof *f);
    snprintf(path, sizeof path, "%s/problems/%s", kf_test_srcdir(), rel);
    f->prob = kf_problem_load(path, &err);
    KF_CHECK_MSG(f->prob != NULL, "%s", err.msg);
    int pi = kf_problem_find_preset(f->prob, preset);
    KF_CHECK_MSG(pi >= 0, "%s has no preset %s", rel, preset);
    KF_CHECK_MSG(kf_resolve(f->prob, pi, &f->r, &err) == 0, "%s", err.msg);
    f->reg = kf_registry_open(1, &err);
    KF_CHECK_MSG(f->reg != NULL, "registry: %s", err.msg);
    f->ocl = kf_registry_find(f->reg, "opencl");
    KF_CHECK_MSG(f->ocl != NULL, "no opencl plugin on KFORGE_PLUGIN_PATH");
    KF_CHECK_MSG(f->ocl->probe_status == KF_OK && f->ocl->n_devices > 0, "opencl: %s",
                 f->ocl->probe_why ? f->ocl->probe_why : "no device");
}

static void fx_close(fx *f)
{
    kf_registry_close(f->reg);
    kf_resolved_free(&f->r);
    kf_problem_free(f->prob);
}

/* Generates the candidate of point pt (plan fusion from the point). */
static kf_candidate *gen(fx *f, const kf_bt_point *pt, char **label)
{
    kf_bt_plan plan;
    kf_error err = {0};
    kf_bt_fusion fu = pt->baseline ? KF_BT_FUSE_NONE : (kf_bt_fusion)pt->fusion;
    KF_CHECK_MSG(kf_bt_plan_build(&f->r, fu, &plan, &err) == 0, "plan: %s", err.msg);
    kf_candidate *c = NULL;
    int rc = kf_bt_gen_ocl(&plan, pt, "opencl", &f->ocl->devices[0], &c, label, &err);
    kf_bt_plan_free(&plan);
    KF_CHECK_MSG(rc == 0 && c != NULL, "kf_bt_gen_ocl: %s", err.msg);
    KF_CHECK(label == NULL || *label != NULL);
    return c;
}

/* Evaluates c on the resolved problem; returns the verdict, fills *median_s
 * when profiling. */
static kf_verdict eval(fx *f, const kf_candidate *c, int profile, double *median_s, const char *what)
{
    kf_eval_opts o;
    kf_eval_result res;
    kf_error err = {0};
    kf_eval_opts_default(&o);
    o.threads = 2;
    o.run_timeout_s = 60;
    KF_CHECK_MSG(kf_evaluate(f->ocl, &f->r, c, &o, profile, &res, &err) == 0, "kf_evaluate: %s", err.msg);
    kf_verdict v = res.verdict;
    if (v != KF_PASS)
        fprintf(stderr, "# %s %s: %s: %s\n%s\n", f->prob->name, what, kf_verdict_name(v),
                res.summary ? res.summary : "", res.diagnostics ? res.diagnostics : "");
    if (median_s) *median_s = res.profiled ? res.timing.median_s : 0;
    kf_eval_result_free(&res);
    return v;
}

static int64_t num(const char *s)
{
    char *end;
    long long v = strtoll(s, &end, 10);
    KF_CHECK_MSG(s[0] && !*end, "size '%s' is not a literal integer", s);
    return v;
}

/* Every launch: 1-3 dims, each global a positive multiple of its local. */
static void check_uniform(const kf_candidate *c)
{
    KF_CHECK(c->n_launches >= 1);
    for (int i = 0; i < c->n_launches; i++) {
        const kf_cand_launch *l = &c->launches[i];
        KF_CHECK(l->work_dim >= 1 && l->work_dim <= 3);
        for (int d = 0; d < l->work_dim; d++) {
            KF_CHECK_MSG(l->local[d] != NULL, "launch %d (%s) leaves local[%d] to the runtime", i, l->kernel, d);
            int64_t g = num(l->global[d]), lo = num(l->local[d]);
            KF_CHECK_MSG(lo > 0 && g > 0 && g % lo == 0, "launch %d (%s): global %lld, local %lld", i,
                         l->kernel, (long long)g, (long long)lo);
        }
    }
}

/* Kernels the op-by-op plan needs: one per node, two for batch_norm in
 * training mode (statistics + normalise). */
static int baseline_kernels(const kf_problem *p)
{
    int n = 0;
    for (int k = 0; k < p->n_nodes; k++)
        n += (p->nodes[k].op == KF_OP_BATCH_NORM && p->nodes[k].training) ? 2 : 1;
    return n;
}

static const char *source(const kf_candidate *c)
{
    KF_CHECK_INT(c->n_sources, 1);
    KF_CHECK_STR(c->sources[0].name, "kernel.cl");
    return c->sources[0].text;
}

/* ------------------------------------------------------------------ */
/* every suite problem, fused and baseline (cases registered in main)  */

#define MAX_PROBLEMS 64
static char *problem_rel[MAX_PROBLEMS];
static char *problem_case[MAX_PROBLEMS];
static int n_problems;

static void run_problem(int i)
{
    fx f;
    fx_open(&f, problem_rel[i], "small");
    kf_bt_point pt;
    char *label = NULL;

    kf_bt_point_default(&kf_bt_emit_opencl_c, "opencl", &f.r, &f.ocl->devices[0], &pt);
    kf_candidate *fused = gen(&f, &pt, &label);
    check_uniform(fused);
    KF_CHECK_STR(fused->backend, "opencl");
    KF_CHECK_CONTAINS(source(fused), "kf_relu(float x)");      /* the prelude */
    KF_CHECK_CONTAINS(source(fused), "KF_CHECK_DIMS");
    KF_CHECK_MSG(fused->n_launches <= baseline_kernels(f.prob), "%d fused launches > %d op-by-op",
                 fused->n_launches, baseline_kernels(f.prob));
    KF_CHECK_MSG(eval(&f, fused, 0, NULL, label) == KF_PASS, "%s: fused candidate (%s) failed",
                 f.prob->name, label);
    free(label);
    kf_candidate_free(fused);

    kf_bt_point_baseline(&kf_bt_emit_opencl_c, "opencl", &pt);
    kf_candidate *base = gen(&f, &pt, &label);
    check_uniform(base);
    KF_CHECK_CONTAINS(label, "op-by-op, own tiled GEMM");
    KF_CHECK_CONTAINS(label, "(CLBlast not callable from a launch plan)");
    KF_CHECK_INT(base->n_launches, baseline_kernels(f.prob));
    KF_CHECK_MSG(eval(&f, base, 0, NULL, label) == KF_PASS, "%s: baseline failed", f.prob->name);
    free(label);
    kf_candidate_free(base);
    fx_close(&f);
}

#define TRAMP(a, b) static void tramp_##a##_##b(void) { run_problem(a * 8 + b); }
#define TRAMP8(a) TRAMP(a, 0) TRAMP(a, 1) TRAMP(a, 2) TRAMP(a, 3) TRAMP(a, 4) TRAMP(a, 5) TRAMP(a, 6) TRAMP(a, 7)
TRAMP8(0) TRAMP8(1) TRAMP8(2) TRAMP8(3) TRAMP8(4) TRAMP8(5) TRAMP8(6) TRAMP8(7)
#define T8(a) tramp_##a##_0, tramp_##a##_1, tramp_##a##_2, tramp_##a##_3, tramp_##a##_4, tramp_##a##_5, \
              tramp_##a##_6, tramp_##a##_7
static kf_test_fn const tramps[MAX_PROBLEMS] = {T8(0), T8(1), T8(2), T8(3), T8(4), T8(5), T8(6), T8(7)};

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Lists the .json files of problems/<level>, sorted, into problem_rel. */
static int scan_level(const char *level)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/problems/%s", kf_test_srcdir(), level);
    DIR *d = opendir(dir);
    if (!d) return -1;
    int first = n_problems;
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t n = strlen(e->d_name);
        if (n < 6 || strcmp(e->d_name + n - 5, ".json") != 0) continue;
        if (n_problems >= MAX_PROBLEMS) { closedir(d); return -2; }
        if (asprintf(&problem_rel[n_problems], "%s/%s", level, e->d_name) < 0) { closedir(d); return -1; }
        n_problems++;
    }
    closedir(d);
    qsort(problem_rel + first, (size_t)(n_problems - first), sizeof *problem_rel, cmp_str);
    return n_problems - first;
}

static int scanned_l1, scanned_l2;

KF_TEST(suite_problems_are_found)
{
    KF_CHECK_MSG(scanned_l1 >= 14, "problems/level1: %d problems found (-2: more than %d in all)", scanned_l1,
                 MAX_PROBLEMS);
    KF_CHECK_MSG(scanned_l2 >= 20, "problems/level2: %d problems found (-2: more than %d in all)", scanned_l2,
                 MAX_PROBLEMS);
}

/* ------------------------------------------------------------------ */
/* the shape of the generated code                                     */

KF_TEST_TIMEOUT(baseline_is_one_kernel_per_op_fused_is_one, 120)
{
    fx f;
    fx_open(&f, "level2/09_Matmul_Subtract_Multiply_ReLU.json", "small");
    kf_bt_point pt;
    char *label = NULL;
    kf_bt_point_baseline(&kf_bt_emit_opencl_c, "opencl", &pt);
    kf_candidate *b = gen(&f, &pt, &label);
    KF_CHECK_INT(b->n_launches, 4);
    KF_CHECK_STR(b->launches[0].kernel, "g0_gemm");
    KF_CHECK_STR(b->launches[1].kernel, "g1_sub");
    KF_CHECK_STR(b->launches[2].kernel, "g2_mul");
    KF_CHECK_STR(b->launches[3].kernel, "g3_relu");
    KF_CHECK_INT(b->n_scratch, 3);                 /* h, h1, h2 between the launches */
    /* GEMM 127x250 -> 333, ts 16, wpt 4, vec 4: 16x16 tiles per work-group of
     * 4x4 work-items (4 rows x a float4 of columns each), 21 x 8 work-groups */
    KF_CHECK_STR(b->launches[0].global[0], "84");
    KF_CHECK_STR(b->launches[0].global[1], "32");
    KF_CHECK_STR(b->launches[0].local[0], "4");
    KF_CHECK_STR(b->launches[0].local[1], "4");
    KF_CHECK_STR(label, "op-by-op, own tiled GEMM ts16 wpt4 v4 (CLBlast not callable from a launch plan), 4 kernels");
    free(label);

    kf_bt_point_default(&kf_bt_emit_opencl_c, "opencl", &f.r, NULL, &pt);
    kf_bt_point e = pt;
    e.fusion = KF_BT_FUSE_EPILOGUE;
    kf_candidate *c = gen(&f, &e, &label);
    KF_CHECK_INT(c->n_launches, 1);
    KF_CHECK_STR(c->launches[0].kernel, "g0_gemm_epilogue");
    KF_CHECK_INT(c->n_scratch, 0);
    const char *s = source(c);
    KF_CHECK_CONTAINS(s, "const float t_h = av[e] + g_b[n];");
    KF_CHECK_CONTAINS(s, "acc[w] = mad((float4)(As[k][ly + RTS * w]), bv, acc[w]);");
    KF_CHECK_CONTAINS(s, "const float4 v = vload4(0, A + (size_t)gr * K + gk);");
    KF_CHECK_CONTAINS(s, "const float t_h1 = kf_sub(t_h, 2.0f);");
    KF_CHECK_CONTAINS(s, "const float t_h2 = kf_mul(t_h1, 1.5f);");
    KF_CHECK_CONTAINS(s, "const float t_y = kf_relu(t_h2);");
    KF_CHECK_CONTAINS(s, "g_y[idx] = t_y;");
    KF_CHECK_CONTAINS(s, "#define KF_DIMS_OK (dim_B == 127 && dim_K == 250 && dim_N == 333)");
    KF_CHECK_CONTAINS(s, "const int kf_ok = KF_DIMS_OK;");   /* no early return before a barrier */
    KF_CHECK(strstr(s, "g_h[") == NULL);           /* h never leaves the registers */
    /* the launch binds the buffers by name, then every dim */
    const kf_cand_launch *l = &c->launches[0];
    KF_CHECK_INT(l->n_args, 7);
    const char *want[] = {"x", "W", "b", "y", "B", "K", "N"};
    for (int i = 0; i < 7; i++) {
        KF_CHECK_INT(l->args[i].kind, KF_CARG_NAME);
        KF_CHECK_STR(l->args[i].text, want[i]);
    }
    free(label);
    kf_candidate_free(b);
    kf_candidate_free(c);
    fx_close(&f);
}

KF_TEST_TIMEOUT(row_tail_after_gemm_reads_own_scratch, 120)
{
    /* Under FUSE_ROWS the plan keeps the GEMM output in registers for the
     * CPU's row panels; the OpenCL generator gives it a scratch buffer and
     * runs softmax as a second kernel. */
    fx f;
    fx_open(&f, "level2/99_Matmul_GELU_Softmax.json", "small");
    kf_bt_point pt;
    kf_bt_point_default(&kf_bt_emit_opencl_c, "opencl", &f.r, NULL, &pt);
    pt.fusion = KF_BT_FUSE_ROWS;
    kf_candidate *c = gen(&f, &pt, NULL);
    KF_CHECK_INT(c->n_launches, 2);
    KF_CHECK_STR(c->launches[0].kernel, "g0_gemm_epilogue");
    KF_CHECK_STR(c->launches[1].kernel, "g1_softmax");
    KF_CHECK_INT(c->n_scratch, 1);
    KF_CHECK_STR(c->scratch[0].name, "t_h1");
    KF_CHECK_STR(c->scratch[0].bytes_expr, "169164");   /* 4 * 127 * 333 */
    /* one 256-wide work-group per row */
    KF_CHECK_STR(c->launches[1].global[0], "32512");
    KF_CHECK_STR(c->launches[1].local[0], "256");
    KF_CHECK_CONTAINS(source(c), "kf_wg_max(m, part)");
    KF_CHECK(eval(&f, c, 0, NULL, "rows") == KF_PASS);
    kf_candidate_free(c);
    fx_close(&f);
}

/* ------------------------------------------------------------------ */
/* other points of the search space                                    */

/* Knobs applied on top of the default point. */
typedef struct knobs { int ts, wpt, vec, local_mem, fusion, precision; } knobs;

static void check_points(const char *rel, const knobs *kn, int n)
{
    fx f;
    fx_open(&f, rel, "small");
    for (int i = 0; i < n; i++) {
        kf_bt_point pt;
        kf_bt_point_default(&kf_bt_emit_opencl_c, "opencl", &f.r, &f.ocl->devices[0], &pt);
        pt.knob[KO_TS] = kn[i].ts;
        pt.knob[KO_WPT] = kn[i].wpt;
        pt.knob[KO_VEC] = kn[i].vec;
        pt.knob[KO_LOCAL_MEM] = kn[i].local_mem;
        pt.fusion = kn[i].fusion;
        pt.precision = kn[i].precision;
        char *label = NULL;
        kf_candidate *c = gen(&f, &pt, &label);
        check_uniform(c);
        KF_CHECK_MSG(eval(&f, c, 0, NULL, label) == KF_PASS, "%s: point %d (%s) failed", rel, i, label);
        free(label);
        kf_candidate_free(c);
    }
    fx_close(&f);
}

KF_TEST_TIMEOUT(gemm_tilings_pass_with_b_kn, 240)
{
    static const knobs k[] = {
        {8, 1, 1, 0, KF_BT_FUSE_EPILOGUE, KF_BT_FP32}, {32, 8, 8, 1, KF_BT_FUSE_EPILOGUE, KF_BT_FP32},
        {16, 2, 2, 1, KF_BT_FUSE_NONE, KF_BT_FP32}, {8, 8, 4, 1, KF_BT_FUSE_ROWS, KF_BT_FP32},
        /* tiles above 32 stage k in slices of 16 */
        {64, 8, 4, 1, KF_BT_FUSE_EPILOGUE, KF_BT_FP32}, {128, 8, 8, 1, KF_BT_FUSE_EPILOGUE, KF_BT_FP32},
    };
    check_points("level1/02_Standard_matrix_multiplication.json", k, 6);
}

KF_TEST_TIMEOUT(gemm_tilings_pass_with_b_nk_and_epilogue, 240)
{
    static const knobs k[] = {
        {8, 1, 1, 0, KF_BT_FUSE_EPILOGUE, KF_BT_FP32}, {32, 8, 8, 1, KF_BT_FUSE_EPILOGUE, KF_BT_FP32},
        {32, 1, 4, 0, KF_BT_FUSE_ROWS, KF_BT_FP32}, {8, 4, 8, 1, KF_BT_FUSE_ROWS, KF_BT_FP32},
        {64, 4, 8, 1, KF_BT_FUSE_EPILOGUE, KF_BT_FP32}, {128, 8, 4, 1, KF_BT_FUSE_ROWS, KF_BT_FP32},
    };
    check_points("level2/12_Gemm_Multiply_LeakyReLU.json", k, 6);
}

/* Shape ops (unsqueeze, view, flatten) alias their root's buffer: op by op,
 * with epilogues and with row panels, in fp32 and with fp16 scratch. */
KF_TEST_TIMEOUT(shape_ops_pass, 240)
{
    static const knobs k[] = {
        {16, 2, 2, 1, KF_BT_FUSE_NONE, KF_BT_FP32}, {8, 4, 4, 1, KF_BT_FUSE_EPILOGUE, KF_BT_FP32},
        {8, 8, 4, 1, KF_BT_FUSE_ROWS, KF_BT_FP32}, {16, 2, 2, 1, KF_BT_FUSE_NONE, KF_BT_FP16_STORAGE},
    };
    check_points("../tests/vocab/shape_ops.json", k, 4);
    check_points("../tests/vocab/shape_copies.json", k, 3);   /* outputs that copy (fp32: its tolerance is 1e-4) */
}

/* (N, C, H, W) instance_norm, batch_norm (training and evaluation) and
 * group_norm: op by op and fused, fp32 and fp16 scratch. */
KF_TEST_TIMEOUT(norms_4d_pass, 240)
{
    static const knobs k[] = {
        {16, 2, 2, 1, KF_BT_FUSE_NONE, KF_BT_FP32}, {8, 4, 4, 1, KF_BT_FUSE_EPILOGUE, KF_BT_FP32},
        {8, 4, 4, 1, KF_BT_FUSE_EPILOGUE, KF_BT_FP16_STORAGE},
    };
    check_points("../tests/vocab/norms_4d.json", k, 3);
}

KF_TEST_TIMEOUT(fp16_scratch_storage_passes, 240)
{
    /* two GEMMs: the second reads its A operand from fp16 scratch through
     * vload_half4; logsumexp reads fp16 rows */
    fx f;
    fx_open(&f, "level2/45_Gemm_Sigmoid_LogSumExp.json", "small");
    kf_bt_point pt;
    kf_bt_point_default(&kf_bt_emit_opencl_c, "opencl", &f.r, NULL, &pt);
    pt.precision = KF_BT_FP16_STORAGE;
    char *label = NULL;
    kf_candidate *c = gen(&f, &pt, &label);
    const char *s = source(c);
    KF_CHECK_CONTAINS(s, "vstore_half(");
    KF_CHECK_CONTAINS(s, "vload_half4(0, A + ");
    KF_CHECK_CONTAINS(s, "__global const half *restrict g_h1");
    KF_CHECK_INT(c->n_scratch, 2);
    KF_CHECK_STR(c->scratch[0].bytes_expr, "84582");    /* 2 * 127 * 333 */
    KF_CHECK_CONTAINS(label, "fp16");
    KF_CHECK(eval(&f, c, 0, NULL, label) == KF_PASS);
    free(label);
    kf_candidate_free(c);
    fx_close(&f);
}

KF_TEST_TIMEOUT(norms_pass_with_fp16_scratch, 240)
{
    static const knobs k[] = {{16, 4, 4, 1, KF_BT_FUSE_NONE, KF_BT_FP16_STORAGE}};
    check_points("level2/41_Gemm_BatchNorm_GELU_ReLU.json", k, 1);
    check_points("level2/30_Gemm_GroupNorm_Hardtanh.json", k, 1);
}

/* ------------------------------------------------------------------ */
/* failures                                                            */

KF_TEST_TIMEOUT(another_preset_leaves_outputs_unwritten, 120)
{
    fx f;
    fx_open(&f, "level1/19_ReLU.json", "small");
    kf_bt_point pt;
    kf_bt_point_default(&kf_bt_emit_opencl_c, "opencl", &f.r, NULL, &pt);
    kf_candidate *c = gen(&f, &pt, NULL);
    fx g;
    fx_open(&g, "level1/19_ReLU.json", "cpu");
    KF_CHECK(g.r.dims[0] != f.r.dims[0] || g.r.dims[1] != f.r.dims[1]);
    KF_CHECK_INT(eval(&g, c, 0, NULL, "small candidate at preset cpu"), KF_FAIL_NOT_WRITTEN);
    kf_candidate_free(c);
    fx_close(&g);
    fx_close(&f);
}

KF_TEST(bad_points_are_refused)
{
    fx f;
    fx_open(&f, "level2/09_Matmul_Subtract_Multiply_ReLU.json", "small");
    kf_bt_plan plan;
    kf_error err = {0};
    KF_CHECK(kf_bt_plan_build(&f.r, KF_BT_FUSE_EPILOGUE, &plan, &err) == 0);
    kf_bt_point pt;
    kf_candidate *c = (kf_candidate *)&pt;
    char *label = (char *)&pt;

    kf_bt_point_default(&kf_bt_emit_opencl_c, "opencl", &f.r, NULL, &pt);
    pt.knob[KO_TS] = 12;
    KF_CHECK_INT(kf_bt_gen_ocl(&plan, &pt, "opencl", NULL, &c, &label, &err), -1);
    KF_CHECK(c == NULL && label == NULL);
    KF_CHECK_STR(err.msg, "OpenCL point: ts = 12; use 8, 16, 32, 64 or 128");

    kf_bt_point_default(&kf_bt_emit_opencl_c, "opencl", &f.r, NULL, &pt);
    pt.knob[KO_TS] = 128; pt.knob[KO_WPT] = 2; pt.knob[KO_VEC] = 4;
    KF_CHECK_INT(kf_bt_gen_ocl(&plan, &pt, "opencl", NULL, &c, NULL, &err), -1);
    KF_CHECK_STR(err.msg, "OpenCL point: ts 128, wpt 2, vec 4 makes work-groups of 2048 work-items (at most "
                 "1024); raise wpt or vec, or lower ts");

    kf_bt_point_default(&kf_bt_emit_opencl_c, "opencl", &f.r, NULL, &pt);
    pt.knob[KO_WPT] = 16;
    KF_CHECK_INT(kf_bt_gen_ocl(&plan, &pt, "opencl", NULL, &c, NULL, &err), -1);
    KF_CHECK_STR(err.msg, "OpenCL point: wpt = 16; use 1, 2, 4 or 8");

    kf_bt_point_default(&kf_bt_emit_c, "cpu-simd", &f.r, NULL, &pt);
    KF_CHECK_INT(kf_bt_gen_ocl(&plan, &pt, "opencl", NULL, &c, NULL, &err), -1);
    KF_CHECK_CONTAINS(err.msg, "got a point of language 'c'");

    kf_bt_point_baseline(&kf_bt_emit_opencl_c, "opencl", &pt);
    KF_CHECK_INT(kf_bt_gen_ocl(&plan, &pt, "opencl", NULL, &c, NULL, &err), -1);
    KF_CHECK_STR(err.msg, "the op-by-op baseline needs a plan built with KF_BT_FUSE_NONE");
    kf_bt_plan_free(&plan);
    fx_close(&f);
}

int main(void)
{
    static char name_buf[MAX_PROBLEMS][160];
    scanned_l1 = scan_level("level1");
    scanned_l2 = scan_level("level2");
    for (int i = 0; i < n_problems; i++) {
        const char *rel = problem_rel[i];
        snprintf(name_buf[i], sizeof name_buf[i], "small_fused_and_baseline_pass_%.*s", (int)(strlen(rel) - 5), rel);
        for (char *q = name_buf[i]; *q; q++)
            if (*q == '/') *q = '_';
        problem_case[i] = name_buf[i];
        kf_test_register(problem_case[i], tramps[i], 180.0);
    }
    int rc = kf_test_main();
    for (int i = 0; i < n_problems; i++) free(problem_rel[i]);
    return rc;
}
