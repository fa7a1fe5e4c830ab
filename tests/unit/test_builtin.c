/*
 * test_builtin.c — the built-in agent (core/agent/builtin/).
 *
 * The proof that the lowering is correct: for EVERY problem of
 * problems/level1 and problems/level2 at the small preset, the default
 * fused candidate and the op-by-op baseline candidate are generated for
 * cpu-simd and evaluated with kf_evaluate() (the real worker and the real
 * cpu-simd plugin from KFORGE_PLUGIN_PATH): every one must pass.  Then the
 * plan, the search points' JSON, the analyzer and the error paths.
 */
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>

#include "agent/agent.h"
#include "agent/builtin/builtin.h"
#include "agent/builtin/emit/cpu_knobs.h"
#include "agent/builtin/emit/ocl_knobs.h"
#include "eval/eval.h"
#include "kf_test.h"
#include "problem/precision.h"
#include "problem/problem.h"
#include "backend/registry.h"

typedef struct loaded {
    kf_problem *p;
    kf_resolved r;
} loaded;

static void load(loaded *l, const char *rel, const char *preset)
{
    char path[4096];
    kf_error err = {0};
    snprintf(path, sizeof path, "%s/%s", kf_test_srcdir(), rel);
    l->p = kf_problem_load(path, &err);
    KF_CHECK_MSG(l->p != NULL, "%s", err.msg);
    int pi = kf_problem_find_preset(l->p, preset);
    KF_CHECK_MSG(pi >= 0, "%s has no preset %s", rel, preset);
    KF_CHECK_MSG(kf_resolve(l->p, pi, &l->r, &err) == 0, "%s", err.msg);
}

static void unload(loaded *l)
{
    kf_resolved_free(&l->r);
    kf_problem_free(l->p);
}

/* The languages the real plugins declare; the agent finds its emitter by
 * the language, never by the backend's name. */
static kf_agent_ctx ctx_for(const kf_resolved *r, const char *backend)
{
    const char *lang = !strcmp(backend, "cpu-simd") ? "c" : !strcmp(backend, "opencl") ? "opencl-c"
                     : !strcmp(backend, "cuda") ? "cuda-c" : "glsl";
    kf_agent_ctx c = {.r = r, .backend = backend, .backend_language = lang, .target_fraction = 0.8};
    return c;
}

/* Generates the candidate of `kind` and returns it (label in *label). */
static kf_candidate *generate(kf_agent *a, const kf_resolved *r, kf_gen_kind kind, char **label)
{
    kf_agent_ctx ctx = ctx_for(r, "cpu-simd");
    kf_gen_request req = {.kind = kind};
    kf_gen_result g = {0};
    kf_error err = {0};
    int rc = a->ops->generate(a, &ctx, &req, &g, &err);
    KF_CHECK_MSG(rc == 0, "generate: %s", err.msg);
    KF_CHECK_MSG(g.cand != NULL, "%s: no candidate: %s", r->problem->name, g.error ? g.error : "?");
    kf_candidate *c = g.cand;
    g.cand = NULL;
    if (label) *label = g.label ? strdup(g.label) : NULL;
    kf_gen_result_free(&g);
    return c;
}

/* The builtin's candidate for search point `point` (JSON knobs) of r, asked
 * for as the analysis's one recommendation; g.cand NULL where the point has
 * none (g.error says why).  The caller frees g. */
static kf_gen_result generate_at(kf_agent *a, const kf_resolved *r, const char *point)
{
    kf_recommendation rec = {.what = "t", .why = "t", .expected_gain = 1.1, .params = (char *)point};
    kf_analysis an = {.n_recs = 1, .recs = &rec};
    kf_agent_ctx ctx = ctx_for(r, "cpu-simd");
    kf_gen_request req = {.kind = KF_GEN_OPTIMIZE, .analysis = &an, .rec_index = 0};
    kf_gen_result g = {0};
    kf_error err = {0};
    KF_CHECK_MSG(a->ops->generate(a, &ctx, &req, &g, &err) == 0, "generate: %s", err.msg);
    return g;
}

/* The registry (*reg), its cpu-simd plugin (*pl) and a builtin agent
 * (returned), for a test that generates and verifies; the caller closes the
 * agent and the registry. */
static kf_agent *open_cpu(kf_registry **reg, kf_plugin **pl)
{
    kf_error err = {0};
    *reg = kf_registry_open(1, &err);
    KF_CHECK_MSG(*reg != NULL, "registry: %s", err.msg);
    *pl = *reg ? kf_registry_find(*reg, "cpu-simd") : NULL;
    KF_CHECK_MSG(*pl != NULL, "the cpu-simd plugin is not on KFORGE_PLUGIN_PATH");
    return kf_builtin_agent_open(NULL, &err);
}

/* Generates `point` for problem r (file prob, for messages), checks that its
 * source holds `want` and that it verifies on pl. */
static void generated_passes(kf_agent *a, kf_plugin *pl, const kf_resolved *r, const char *prob, const char *point,
                             const char *want)
{
    kf_gen_result g = generate_at(a, r, point);
    KF_CHECK_MSG(g.cand != NULL, "%s %s: %s", prob, point, g.error ? g.error : "?");
    if (g.cand) {
        KF_CHECK_CONTAINS(g.cand->sources[0].text, want);
        kf_eval_opts o;
        kf_eval_opts_default(&o);
        kf_eval_result res = {0};
        kf_error err = {0};
        KF_CHECK_MSG(kf_evaluate(pl, r, g.cand, &o, 0, &res, &err) == 0, "%s", err.msg);
        KF_CHECK_MSG(res.verdict == KF_PASS, "%s [%s]: %s\n%.1500s", prob, g.label, res.summary ? res.summary : "",
                     res.diagnostics ? res.diagnostics : "");
        kf_eval_result_free(&res);
    }
    kf_gen_result_free(&g);
}

/* Every problem file of `dir`: fused default + baseline must pass. */
static void all_pass(const char *dir)
{
    kf_error err = {0};
    kf_registry *reg = kf_registry_open(1, &err);
    KF_CHECK_MSG(reg != NULL, "registry: %s", err.msg);
    kf_plugin *pl = kf_registry_find(reg, "cpu-simd");
    KF_CHECK_MSG(pl != NULL, "the cpu-simd plugin is not on KFORGE_PLUGIN_PATH");
    kf_agent *a = kf_builtin_agent_open(NULL, &err);
    KF_CHECK(a != NULL);

    char path[4096];
    snprintf(path, sizeof path, "%s/%s", kf_test_srcdir(), dir);
    struct dirent **ents = NULL;
    int n = scandir(path, &ents, NULL, alphasort);
    KF_CHECK_MSG(n > 0, "cannot list %s", path);
    int checked = 0, failed = 0;
    for (int i = 0; i < n; i++) {
        const char *nm = ents[i]->d_name;
        size_t len = strlen(nm);
        if (len < 6 || strcmp(nm + len - 5, ".json") != 0) continue;
        char rel[4200];
        snprintf(rel, sizeof rel, "%s/%s", dir, nm);
        loaded l;
        load(&l, rel, "small");
        for (int k = 0; k < 2; k++) {
            char *label = NULL;
            kf_candidate *c = generate(a, &l.r, k ? KF_GEN_BASELINE : KF_GEN_FIRST, &label);
            if (k) {   /* the baseline's label says how its matmul was made, or that it has none */
                int mm = 0;
                for (int j = 0; j < l.r.problem->n_nodes; j++)
                    mm |= kf_op_is_contraction(l.r.problem->nodes[j].op);
                KF_CHECK_MSG(label && strstr(label, mm ? ", matmul via " : ", no matmul"), "%s: baseline label '%s'",
                             nm, label ? label : "(none)");
            }
            kf_eval_opts o;
            kf_eval_opts_default(&o);
            o.trials = 5;
            o.reps = 20;
            o.seed = 7;
            kf_eval_result res = {0};
            int rc = kf_evaluate(pl, &l.r, c, &o, 0, &res, &err);
            KF_CHECK_MSG(rc == 0, "kf_evaluate %s: %s", nm, err.msg);
            checked++;
            if (res.verdict != KF_PASS) {
                failed++;
                fprintf(stderr, "# FAIL %s [%s]: %s: %s\n%.2000s\n", nm, label ? label : "?",
                        kf_verdict_name(res.verdict), res.summary ? res.summary : "",
                        res.diagnostics ? res.diagnostics : "");
            } else {
                fprintf(stderr, "# pass %s [%s]\n", nm, label ? label : "?");
            }
            kf_eval_result_free(&res);
            kf_candidate_free(c);
            free(label);
        }
        unload(&l);
    }
    for (int i = 0; i < n; i++) free(ents[i]);
    free(ents);
    kf_agent_close(a);
    kf_registry_close(reg);
    KF_CHECK_MSG(checked >= 2 * 10, "only %d candidates checked in %s", checked, dir);
    KF_CHECK_MSG(failed == 0, "%d of %d candidates failed in %s (see the log above)", failed, checked, dir);
}

/* 28 and 40 compile-verify cycles: under ASan on a 2-core machine busy with
 * other work the Level-2 case has taken more than 170 s */
KF_TEST_TIMEOUT(level1_fused_and_baseline_pass, 400.0) { all_pass("problems/level1"); }
KF_TEST_TIMEOUT(level2_fused_and_baseline_pass, 400.0) { all_pass("problems/level2"); }

/* Alternative points (row panels with the row op fused, epilogue-only
 * fusion in row-block order, plain loops, another tile, one thread) on
 * problems that exercise every group kind: they must pass too.  (At the
 * small preset the default is epilogue fusion in column-block order.) */
KF_TEST_TIMEOUT(other_points_pass, 120.0)
{
    static const char *const probs[] = {"problems/level2/45_Gemm_Sigmoid_LogSumExp.json",
                                        "problems/level2/88_Gemm_GroupNorm_Swish_Multiply_Swish.json",
                                        "problems/level2/33_Gemm_Scale_BatchNorm.json"};
    static const char *const pts[] = {
        "{\"fusion\":2,\"loop_order\":0}", "{\"fusion\":1,\"loop_order\":0,\"kc\":100}",
        "{\"fusion\":0,\"pack\":0}", "{\"mr\":6,\"nr\":16,\"mc\":48,\"nc\":128,\"kc\":128}",
        "{\"loop_order\":1,\"threads\":1,\"unroll\":2,\"kc\":100}",
        /* one column block (NC >= N): the column order splits the rows */
        "{\"fusion\":1,\"loop_order\":1,\"nc\":512,\"kc\":128}",
        /* A panels whose rows are not a multiple of 8 (the masked 8 x 8
           transposes of kf_pack_a: 14 = 8 + 6, 3 < 8) and B's edge panel
           (333 columns) through them too, k tails of 100 % 8 */
        "{\"fusion\":1,\"loop_order\":1,\"mr\":14,\"nr\":32,\"kc\":100}",
        "{\"fusion\":1,\"loop_order\":0,\"mr\":3,\"nr\":48,\"kc\":100}"};
    kf_error err = {0};
    kf_registry *reg;
    kf_plugin *pl;
    kf_agent *a = open_cpu(&reg, &pl);
    for (size_t i = 0; i < sizeof probs / sizeof probs[0]; i++) {
        loaded l;
        load(&l, probs[i], "small");
        for (size_t j = 0; j < sizeof pts / sizeof pts[0]; j++) {
            kf_gen_result g = generate_at(a, &l.r, pts[j]);
            KF_CHECK_MSG(g.cand != NULL, "%s %s: %s", probs[i], pts[j], g.error ? g.error : "?");
            kf_eval_opts o;
            kf_eval_opts_default(&o);
            kf_eval_result res = {0};
            KF_CHECK(kf_evaluate(pl, &l.r, g.cand, &o, 0, &res, &err) == 0);
            KF_CHECK_MSG(res.verdict == KF_PASS, "%s at %s [%s]: %s\n%.1500s", probs[i], pts[j], g.label,
                         res.summary ? res.summary : "", res.diagnostics ? res.diagnostics : "");
            kf_eval_result_free(&res);
            kf_gen_result_free(&g);
        }
        unload(&l);
    }
    kf_agent_close(a);
    kf_registry_close(reg);
}

/* The memory-bound row and map kernels at the cpu preset, where their
 * outputs (64 MiB) reach the streaming stores (KC_STREAM; the small preset
 * stays under KF_BT_CPU_STREAM_MIN_BYTES), BatchNorm's in-channel outputs
 * (1 MiB channels), LayerNorm's one-pass statistics over rows of 4M split
 * over the team, the next row's taken while this one is written (streamed
 * or not), and the
 * middle-dim sum in pages of its rows (1024 inner positions), softmax's
 * rows pipelined (a row's exps beside the last row's streamed stores):
 * generated as named and verified against the reference.  The fixtures
 * stream_odd_* stream rows of 1001 and 1073 elements: every row ends in a
 * partial block and most start off the 64-byte alignment that
 * kf_stream_block's vector stores need (its fallback). */
KF_TEST_TIMEOUT(memory_bound_variants_pass, 300.0)
{
    static const struct { const char *prob, *preset, *point, *want; } cases[] = {
        {"problems/level1/19_ReLU.json", "cpu", "{\"stream\":1}", "kf_stream_block(V1 + r * 16384 + c0_, S1);"},
        {"problems/level1/23_Softmax.json", "cpu", "{\"stream\":1}", "kf_stream_block(V1 + rr * 16384 + c0_, S1);"},
        /* pipelined: a row's exps beside the last row's streamed stores */
        {"problems/level1/23_Softmax.json", "cpu", "{\"stream\":1}", "mbc_[c0_ / 64] = kf_row_exp_block_online(xc_ + c0_, &mc_, &sc_,"},
        {"problems/level1/35_GroupNorm.json", "cpu", "{\"stream\":1}", "kf_stream_block(V1 + rr * 1048576 + c0_, S1);"},
        /* stream 2: the next group's sums in this group's output loop */
        {"problems/level1/35_GroupNorm.json", "cpu", "{\"stream\":2}", "if (gnn_) kf_moments_block(gnn_ + (c0_ - q0 * 131072),"},
        {"problems/level1/35_GroupNorm.json", "cpu", "{\"stream\":1}", "kf_row_moments(xg, 131072, 0.0f, &s, &q, NULL);"},
        {"problems/level1/36_RMSNorm.json", "cpu", "{\"stream\":1}", "kf_stream_fence();"},
        {"problems/level1/40_LayerNorm.json", "cpu", "{\"stream\":0}", "const float sh = kf_row_shift(xr, 4194304), shn_ = xn_ ? kf_row_shift(xn_, 4194304) : 0.0f;   /* one pass: sums of x - shift */"},
        {"problems/level1/40_LayerNorm.json", "cpu", "{\"stream\":1}", "part_[((rr + 1) * T_ + t_) * 2] = sn_;"},
        {"problems/level1/33_BatchNorm.json", "cpu", "{\"stream\":0}", "const float mean = mean_c[c], rstd = rstd_c[c];\n        for (int64_t n = 0;"},
        {"problems/level1/33_BatchNorm.json", "cpu", "{\"stream\":1}", "kf_stream_block(V1 + (n * 64 + c) * 16384 + c0_, S1);"},
        /* the next channel's sums beside this one's outputs, streamed or not */
        {"problems/level1/33_BatchNorm.json", "cpu", "{\"stream\":1}", "if (cn_ != c) kf_moments_block(xn_ + c0_, 16384 - c0_ < 64 ? 16384 - c0_ : 64, sh_, as_, aq_);"},
        {"problems/level1/33_BatchNorm.json", "cpu", "{\"stream\":0}", "if (cn_ != c) kf_moments_block(xn_ + c0_, 16384 - c0_ < 64 ? 16384 - c0_ : 64, sh_, as_, aq_);"},
        {"problems/level1/47_Sum_reduction_over_a_dimension.json", "cpu", "{}", "whole rows in order"},
        {"tests/golden/problems/stream_odd_map.json", "small", "{\"stream\":1}", "kf_stream_store(V1 + r * 1001 + c0_, S1, j1 - c0_);"},
        /* a GELU last: a full block's GELU stored from the registers (aligned rows; rows of 1001,
           most blocks unaligned), the partial last block's (41 = 16 + 16 + 9 masked) applied to
           its buffer in place */
        {"problems/level1/26_GELU.json", "cpu", "{\"stream\":1}", "kf_gelu_stream_block(V1 + r * 16384 + c0_, S1);\n"},
        {"problems/level1/88_MinGPTNewGelu.json", "cpu", "{\"stream\":1}", "kf_gelu_tanh_stream_block(V1 + r * 16384 + c0_, S1);\n"},
        {"tests/golden/problems/stream_odd_gelu.json", "small", "{\"stream\":1}", "kf_gelu_stream_block(V2 + r * 1001 + c0_, S2);\n"},
        {"tests/golden/problems/stream_odd_gelu.json", "small", "{\"stream\":1}", "kf_gelu_block(S2, j1 - c0_);\n"},
        {"tests/golden/problems/stream_odd_gelu_tanh.json", "small", "{\"stream\":1}", "kf_gelu_tanh_stream_block(V2 + r * 1001 + c0_, S2);\n"},
        {"tests/golden/problems/stream_odd_gelu_tanh.json", "small", "{\"stream\":1}", "kf_gelu_tanh_block(S2, j1 - c0_);\n"},
        {"tests/golden/problems/stream_odd_softmax.json", "small", "{\"stream\":1}", "kf_stream_store(V1 + rr * 1001 + c0_, S1, 1001 - c0_);"},
        {"tests/golden/problems/stream_odd_softmax.json", "small", "{\"stream\":1}", "1001 - c0_ < 64 ? 1001 - c0_ : 64, nx_ ? nx_ + c0_ : NULL);"},
        {"tests/golden/problems/stream_odd_batchnorm.json", "small", "{\"stream\":1}", "kf_stream_store(V1 + (n * 64 + c) * 1073 + c0_, S1, 1073 - c0_);"},
        {"tests/golden/problems/stream_odd_batchnorm.json", "small", "{\"stream\":0}", "if (cn_ != c) kf_moments_block(xn_ + c0_, 1073 - c0_ < 64 ? 1073 - c0_ : 64, sh_, as_, aq_);"},
        {"tests/golden/problems/stream_odd_groupnorm.json", "small", "{\"stream\":2}", "(q0 + 1) * 4803 - c0_ < 64 ? (q0 + 1) * 4803 - c0_ : 64, gnh_, gns_, gnq_);"},
    };
    kf_registry *reg;
    kf_plugin *pl;
    kf_agent *a = open_cpu(&reg, &pl);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        loaded l;
        load(&l, cases[i].prob, cases[i].preset);
        generated_passes(a, pl, &l.r, cases[i].prob, cases[i].point, cases[i].want);
        unload(&l);
    }
    kf_agent_close(a);
    kf_registry_close(reg);
}

KF_TEST(plan_groups)
{
    loaded l;
    load(&l, "problems/level2/09_Matmul_Subtract_Multiply_ReLU.json", "small");
    kf_bt_plan pl;
    kf_error err = {0};
    KF_CHECK(kf_bt_plan_build(&l.r, KF_BT_FUSE_ROWS, &pl, &err) == 0);
    KF_CHECK_INT(pl.n_groups, 1);
    KF_CHECK_INT(pl.groups[0].kind, KF_BT_GEMM);
    KF_CHECK_INT(pl.groups[0].n_nodes, 4);
    KF_CHECK_INT(pl.groups[0].gemm.M, 127);
    KF_CHECK_INT(pl.groups[0].gemm.N, 333);
    KF_CHECK_INT(pl.groups[0].gemm.K, 250);
    KF_CHECK_INT(pl.groups[0].gemm.trans_b, 1);
    KF_CHECK_INT(pl.n_scratch, 0);   /* h, h1, h2 live in registers */
    kf_bt_plan_free(&pl);
    KF_CHECK(kf_bt_plan_build(&l.r, KF_BT_FUSE_NONE, &pl, &err) == 0);
    KF_CHECK_INT(pl.n_groups, 4);
    KF_CHECK_INT(pl.n_scratch, 3);
    KF_CHECK_INT(pl.groups[1].kind, KF_BT_MAP);
    kf_bt_plan_free(&pl);
    unload(&l);

    load(&l, "problems/level2/45_Gemm_Sigmoid_LogSumExp.json", "small");
    KF_CHECK(kf_bt_plan_build(&l.r, KF_BT_FUSE_ROWS, &pl, &err) == 0);
    KF_CHECK_INT(pl.n_groups, 3);   /* gemm+sigmoid, gemm, logsumexp */
    KF_CHECK_INT(pl.groups[0].n_nodes, 2);
    KF_CHECK_INT(pl.groups[2].kind, KF_BT_ROW);
    KF_CHECK_INT(pl.groups[2].fused_into, 1);
    KF_CHECK_INT(pl.groups[1].row_tail, 2);
    KF_CHECK_INT(pl.n_scratch, 1);  /* sigmoid(h), read by the second GEMM */
    char *d = kf_bt_plan_describe(&pl);
    KF_CHECK_CONTAINS(d, "per row panel of g1");
    free(d);
    kf_bt_plan_free(&pl);
    unload(&l);

    load(&l, "problems/level1/47_Sum_reduction_over_a_dimension.json", "small");
    KF_CHECK(kf_bt_plan_build(&l.r, KF_BT_FUSE_ROWS, &pl, &err) == 0);
    KF_CHECK_INT(pl.groups[0].kind, KF_BT_GENERIC);
    KF_CHECK_INT(pl.groups[0].gen.outer, 7);
    KF_CHECK_INT(pl.groups[0].gen.len, 250);
    KF_CHECK_INT(pl.groups[0].gen.inner, 333);
    kf_bt_plan_free(&pl);
    unload(&l);
}

KF_TEST(prelude_and_expressions)
{
    kf_node nd = {.op = KF_OP_SUB, .n_in = 2};
    nd.in[1].is_scalar = 1;
    nd.in[1].scalar = 2.0;
    char *e = kf_bt_map_expr(&nd, "acc", NULL);
    KF_CHECK_STR(e, "kf_sub(acc, 2.0f)");
    free(e);
    kf_node lr = {.op = KF_OP_LEAKY_RELU, .n_in = 1, .alpha = 0.1};
    e = kf_bt_map_expr(&lr, "t3", NULL);
    KF_CHECK_STR(e, "kf_leaky_relu(t3, 0.1f)");
    free(e);
    kf_node ht = {.op = KF_OP_HARDTANH, .n_in = 1, .lo = -2, .hi = 2};
    e = kf_bt_map_expr(&ht, "x", NULL);
    KF_CHECK_STR(e, "kf_hardtanh(x, (-2.0f), 2.0f)");
    free(e);
    KF_CHECK(kf_bt_map_expr(&(kf_node){.op = KF_OP_SOFTMAX}, "x", NULL) == NULL);
    KF_CHECK_CONTAINS(kf_bt_prelude(KF_BT_C), "static inline");
    KF_CHECK_CONTAINS(kf_bt_prelude(KF_BT_C), "1.6732632423543772f");
    KF_CHECK_CONTAINS(kf_bt_prelude(KF_BT_OCL), "#define kf__erf erf\n");
    KF_CHECK(strstr(kf_bt_prelude(KF_BT_OCL), "erff") == NULL);
}

/* The C prelude's math (kf__exp .. kf_mish, the softmax row helpers)
 * against glibc's double math: tests/unit/prelude_math_check.c compiled
 * after the prelude text with the cpu-simd plugin's flags (GCC vectorises
 * the loops as in a kernel; on x86-64 this CPU's ISA, which takes the
 * AVX-512 row helpers where it has them, and AVX2, which takes their
 * portable loops; where the CPU has AVX-512, also AVX-512F without DQ, whose
 * kf__exp16 clamps and rounds instead of vreduceps), and once without
 * vectorisation. */
KF_TEST_TIMEOUT(c_prelude_math_against_libm, 180.0)
{
    char *dir = kf_test_tmpdir();
    char path[512], *out = NULL, cmd[2048];
    snprintf(path, sizeof path, "%s/kf_prelude.h", dir);
    KF_CHECK(kf_test_write_file(path, kf_bt_prelude(KF_BT_C)) == 0);
    const char *cc = getenv("KFORGE_CC") && *getenv("KFORGE_CC") ? getenv("KFORGE_CC") : "cc";
    const char *modes[] = {"-O3 -march=native -fopenmp", "-O3 -march=x86-64-v3 -fopenmp", "-O1",
                           "-O3 -march=x86-64-v3 -mavx512f -mno-avx512dq -fopenmp"};
    for (int m = 0; m < 4; m++) {
#if !defined(__x86_64__)
        if (m == 1 || m == 3) continue;
#else
        if (m == 3 && !__builtin_cpu_supports("avx512f")) continue;   /* kf__exp16 without vreduceps */
#endif
        snprintf(cmd, sizeof cmd, "%s -std=gnu11 %s -I%s -o %s/check %s/tests/unit/prelude_math_check.c -lm && %s/check",
                 cc, modes[m], dir, dir, kf_test_srcdir(), dir);
        int rc = kf_test_run(cmd, &out);
        if (rc != 0 || !strstr(out, "\nok\n")) kf_test_fail(__FILE__, __LINE__, "%s: rc %d\n%s", modes[m], rc, out);
        free(out);
    }
}

/* The elementwise math is inlined into the kernels' loops, never called once a
 * float: every Level-1 and Level-2 problem's candidate at the cpu preset (fp32,
 * fp32 streamed, and amx-bf16 compiled for sapphirerapids where the compiler
 * knows it), compiled with the plugin's flags, has no call to a map op, a math
 * helper (kf__*) or a GCC vector-ABI clone (_ZGV*).  853f142 made the GELUs such
 * calls; GCC before 14 then left every GEMM epilogue with a clamp or a ReLU beside
 * a GELU unvectorised, calling the scalar form once a float (53 on the 16-core
 * host 3.23 ms against 1.14, bench/results/xeon16-cpu-l2-2026-11-30).  x86-64
 * with GCC and objdump only; elsewhere the case is skipped, saying why. */
static int map_call(const char *name)
{
    static const char *const fns[] = {"gelu", "gelu_tanh", "mish", "silu", "sigmoid", "tanh", "exp", "log",
                                      "softplus", "selu", "elu", "hardswish", "relu", "leaky_relu", "hardtanh",
                                      "add", "sub", "mul", "div", "max", "min", "pow", "abs", "neg", "sqrt",
                                      "rsqrt", "square", "identity"};
    if (!strncmp(name, "_ZGV", 4) || (!strncmp(name, "kf__", 4) && strncmp(name, "kf__q_block", 11))) return 1;
    if (strncmp(name, "kf_", 3)) return 0;
    size_t n = strcspn(name + 3, ".");   /* kf_gelu.constprop.0: kf_gelu */
    for (size_t i = 0; i < sizeof fns / sizeof fns[0]; i++)
        if (strlen(fns[i]) == n && !strncmp(name + 3, fns[i], n)) return 1;
    return 0;
}

KF_TEST_TIMEOUT(c_kernels_call_no_map_op, 300.0)
{
#if !defined(__x86_64__)
    kf_test_skip("not x86-64");
#else
    const char *cc = getenv("KFORGE_CC") && *getenv("KFORGE_CC") ? getenv("KFORGE_CC") : "cc";
    char *dir = kf_test_tmpdir(), cmd[4096], *out = NULL;
    snprintf(cmd, sizeof cmd, "echo | %s -dM -E - | grep -q __GNUC__ && ! echo | %s -dM -E - | grep -q __clang__ "
             "&& objdump --version >/dev/null", cc, cc);
    int have = kf_test_run(cmd, &out) == 0;
    free(out);
    out = NULL;
    snprintf(cmd, sizeof cmd, "echo 'int f(void);' > %s/t.c && %s -march=sapphirerapids -c -o %s/t.o %s/t.c", dir, cc,
             dir, dir);
    int spr = have && kf_test_run(cmd, &out) == 0;   /* the AMX kernels' target */
    free(out);
    out = NULL;
    if (!have) kf_test_skip("the compiler is not GCC, or objdump is missing");
    kf_error err = {0};
    kf_agent *a = kf_builtin_agent_open(NULL, &err);
    KF_CHECK(a != NULL);
    static const char *const dirs[] = {"problems/level1", "problems/level2"};
    static const struct { const char *point, *march; int amx; } pts[] = {
        {"{\"fusion\":2,\"precision\":0}", "native", 0},
        {"{\"fusion\":2,\"precision\":0,\"stream\":1}", "native", 0},
        {"{\"fusion\":2,\"precision\":5}", "sapphirerapids", 1},
    };
    int compiled = 0, bad = 0;
    for (int d = 0; d < 2; d++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", kf_test_srcdir(), dirs[d]);
        struct dirent **ents = NULL;
        int n = scandir(path, &ents, NULL, alphasort);
        KF_CHECK_MSG(n > 0, "cannot list %s", path);
        for (int i = 0; i < n; i++) {
            const char *nm = ents[i]->d_name;
            size_t len = strlen(nm);
            if (len < 6 || strcmp(nm + len - 5, ".json") != 0) continue;
            char rel[4200];
            snprintf(rel, sizeof rel, "%s/%s", dirs[d], nm);
            loaded l;
            load(&l, rel, "cpu");
            for (size_t k = 0; k < sizeof pts / sizeof pts[0]; k++) {
                if (pts[k].amx && !spr) continue;
                kf_gen_result g = generate_at(a, &l.r, pts[k].point);
                if (!g.cand) {   /* a point the problem has no candidate for (amx without a GEMM) */
                    kf_gen_result_free(&g);
                    continue;
                }
                char src[4200];
                snprintf(src, sizeof src, "%s/k.c", dir);
                KF_CHECK(kf_test_write_file(src, g.cand->sources[0].text) == 0);
                snprintf(cmd, sizeof cmd, "%s -std=gnu11 -O3 -march=%s -fopenmp -fPIC -I%s/plugins/cpu-simd -c -o %s/k.o %s "
                         "&& objdump -dr %s/k.o | sed -n 's/.*call.*<\\([^>+]*\\)>.*/\\1/p; s/.*R_X86_64_PLT32[ \\t]*\\([^-+ ]*\\).*/\\1/p'",
                         cc, pts[k].march, kf_test_srcdir(), dir, src, dir);
                int rc = kf_test_run(cmd, &out);
                KF_CHECK_MSG(rc == 0, "%s %s: compile or objdump failed:\n%.2000s", nm, pts[k].point, out ? out : "");
                compiled++;
                for (char *t = out, *e; t && *t; t = e + (*e != 0)) {
                    e = t + strcspn(t, "\n");
                    char name[256];
                    snprintf(name, sizeof name, "%.*s", (int)(e - t < 255 ? e - t : 255), t);
                    if (map_call(name) && bad++ < 10)
                        fprintf(stderr, "# %s %s [%s]: calls %s\n", nm, pts[k].point, g.label ? g.label : "?", name);
                }
                free(out);
                out = NULL;
                kf_gen_result_free(&g);
            }
            unload(&l);
        }
        for (int i = 0; i < n; i++) free(ents[i]);
        free(ents);
    }
    kf_agent_close(a);
    KF_CHECK_MSG(compiled >= 2 * 30, "only %d kernels compiled", compiled);
    KF_CHECK_MSG(bad == 0, "%d calls to map ops or math helpers (see the log above)", bad);
#endif
}

/* The GEMM blocking comes from the probed cache sizes: KC so that the
 * micro-panel kept in L1 fills half of it, the L2 block half of L2, the
 * other the L3 share; then split until every thread has
 * KF_BT_CPU_BLOCKS_PER_THREAD blocks. */
KF_TEST(cpu_blocking_from_cache_sizes)
{
    kf_bt_cpu_blocking b;
    /* unknown caches: the former constants */
    kf_bt_cpu_derive_blocking(0, 0, 0, 12, 32, 512, 2048, 0, 4, 2, 0, &b);
    KF_CHECK(b.mc == 96 && b.nc == 256 && b.kc == 384);
    kf_bt_cpu_derive_blocking(0, 0, 0, 6, 16, 512, 2048, 0, 4, 2, 0, &b);
    KF_CHECK(b.mc == 72 && b.nc == 256 && b.kc == 384);
    /* this 2-core VM: L1d 48 KiB, L2 2 MiB, L3 share 240 MiB; 512 x 2048:
       KC = 24 KiB / (12 x 4 B), NC = 1 MiB / (KC x 4 B), MC = M (516)
       halved once for 8 blocks */
    kf_bt_cpu_derive_blocking(48 << 10, 2 << 20, 240 << 20, 12, 32, 512, 2048, 0, 4, 2, 0, &b);
    KF_CHECK_MSG(b.kc == 512 && b.nc == 512 && b.mc == 264, "mc %d nc %d kc %d", b.mc, b.nc, b.kc);
    /* rows fused: B's micro-panel in L1 (KC = 24 KiB / (32 x 4 B)), the
       MC x N panel within L2, 8 panels */
    kf_bt_cpu_derive_blocking(48 << 10, 2 << 20, 240 << 20, 12, 32, 512, 2048, 0, 4, 2, 1, &b);
    KF_CHECK_MSG(b.kc == 192 && b.mc == 72 && (int64_t)b.mc * 2048 * 4 <= 2 << 20, "mc %d nc %d kc %d", b.mc, b.nc,
                 b.kc);
    /* a smaller L1d gives a smaller KC, a smaller L2 a narrower NC */
    kf_bt_cpu_blocking s;
    kf_bt_cpu_derive_blocking(48 << 10, 2 << 20, 240 << 20, 12, 32, 512, 2048, 0, 4, 2, 0, &b);
    kf_bt_cpu_derive_blocking(32 << 10, 512 << 10, 240 << 20, 12, 32, 512, 2048, 0, 4, 2, 0, &s);
    KF_CHECK_MSG(s.kc < b.kc && s.nc < b.nc, "kc %d vs %d, nc %d vs %d", s.kc, b.kc, s.nc, b.nc);
    /* a 16-core server share (L1d 48 KiB, L2 2 MiB, L3 1.875 MiB): the
       blocks fit their caches and cover 16 threads */
    int64_t l1 = 48 << 10, l2 = 2 << 20, l3 = 1966080;
    kf_bt_cpu_derive_blocking(l1, l2, l3, 12, 32, 512, 2048, 0, 4, 16, 0, &b);
    KF_CHECK(b.mc % 12 == 0 && b.nc % 32 == 0 && b.kc % 8 == 0);
    KF_CHECK_MSG((int64_t)12 * b.kc * 4 <= l1 / 2, "kc %d", b.kc);
    KF_CHECK_MSG((int64_t)b.kc * b.nc * 4 <= l2 / 2, "kc %d nc %d", b.kc, b.nc);
    KF_CHECK_MSG((int64_t)b.mc * b.kc * 4 <= l3 / 2, "mc %d kc %d", b.mc, b.kc);
    KF_CHECK_MSG(((512 + b.mc - 1) / b.mc) * ((2048 + b.nc - 1) / b.nc) >= 16 * KF_BT_CPU_BLOCKS_PER_THREAD,
                 "mc %d nc %d", b.mc, b.nc);
    /* rows fused: only the row panels spread over the threads, and the A
       block (MC x KC) is the one kept in L2 */
    kf_bt_cpu_derive_blocking(l1, l2, l3, 12, 32, 512, 2048, 0, 4, 16, 1, &b);
    KF_CHECK_MSG((512 + b.mc - 1) / b.mc >= 16 && (int64_t)b.mc * b.kc * 4 <= l2 / 2 && (int64_t)32 * b.kc * 4 <= l1 / 2,
                 "mc %d kc %d", b.mc, b.kc);
    /* one thread, a tiny GEMM: blocks no larger than the matrix */
    kf_bt_cpu_derive_blocking(l1, l2, l3, 12, 32, 1, 10, 0, 4, 1, 0, &b);
    KF_CHECK_MSG(b.mc == 12 && b.nc == 32, "mc %d nc %d", b.mc, b.nc);
    /* the default point takes the device's caches and threads */
    loaded l;
    load(&l, "problems/level2/12_Gemm_Multiply_LeakyReLU.json", "cpu");
    kf_device_info dev;
    memset(&dev, 0, sizeof dev);
    dev.struct_size = sizeof dev;
    dev.cache_l1d_bytes = 48 << 10;
    dev.cache_l2_bytes = 2 << 20;
    dev.cache_l3_bytes = 240 << 20;
    dev.max_work_group = 2;
    kf_bt_point p;
    kf_bt_point_default(&kf_bt_emit_c, "cpu-simd", &l.r, &dev, &p);
    /* no row op after the GEMM: the column-block order and its blocking */
    KF_CHECK_INT(p.knob[KC_LOOP_ORDER], 1);
    kf_bt_cpu_derive_blocking(dev.cache_l1d_bytes, dev.cache_l2_bytes, dev.cache_l3_bytes, p.knob[KC_MR],
                              p.knob[KC_NR], 512, 2048, 2048, p.precision == KF_BT_I16 ? 2 : 4, 2,
                              KF_BT_CPU_ORDER_COLUMNS, &b);   /* i16 (AVX2 only): two bytes an element */
    KF_CHECK_MSG(p.knob[KC_MC] == b.mc && p.knob[KC_NC] == b.nc && p.knob[KC_KC] == b.kc,
                 "point %d/%d/%d, derived %d/%d/%d", p.knob[KC_MC], p.knob[KC_NC], p.knob[KC_KC], b.mc, b.nc, b.kc);
    KF_CHECK(p.knob[KC_KC] != 384);   /* not the constant */
    unload(&l);
    /* a row op after a GEMM whose B (16 MiB) is larger than L2 (99 at the
       cpu preset: softmax): the column order, the map ops fused at the
       store, the row op its own pass */
    load(&l, "problems/level2/99_Matmul_GELU_Softmax.json", "cpu");
    kf_bt_point_default(&kf_bt_emit_c, "cpu-simd", &l.r, &dev, &p);
    KF_CHECK_INT(p.knob[KC_LOOP_ORDER], 1);
    KF_CHECK_INT(p.fusion, KF_BT_FUSE_EPILOGUE);
    kf_bt_cpu_derive_blocking(dev.cache_l1d_bytes, dev.cache_l2_bytes, dev.cache_l3_bytes, p.knob[KC_MR],
                              p.knob[KC_NR], 512, 2048, 2048, p.precision == KF_BT_I16 ? 2 : 4, 2,
                              KF_BT_CPU_ORDER_COLUMNS, &b);
    KF_CHECK_MSG(p.knob[KC_NC] == b.nc && p.knob[KC_KC] == b.kc, "point %d/%d, derived %d/%d", p.knob[KC_NC],
                 p.knob[KC_KC], b.nc, b.kc);
    /* ... and where B fits in L2 (a 32 MiB L2): row panels, as before */
    dev.cache_l2_bytes = 32 << 20;
    kf_bt_point_default(&kf_bt_emit_c, "cpu-simd", &l.r, &dev, &p);
    KF_CHECK_INT(p.knob[KC_LOOP_ORDER], 0);
    KF_CHECK(p.fusion != KF_BT_FUSE_EPILOGUE);
    unload(&l);
}

/* The column-block order (each thread packs its own KC x NC block of B)
 * splits N only: A's micro-panel fills L1 in the packed element's bytes
 * (KC; half of L1 for tiles whose B rows are under 32 floats, AVX2's), the
 * depth cut into even blocks, the B block in half of L2, then NC
 * halved until every thread has KF_BT_CPU_COLUMN_BLOCKS_PER_THREAD blocks,
 * never below KF_BT_CPU_MIN_COLUMN_PANELS NR panels; MC and the M partition
 * play no part. */
KF_TEST(cpu_column_order_blocking)
{
    kf_bt_cpu_blocking b, r;
    /* 48 KiB L1, 2 MiB L2, 512 x 2048 -> 2048 on 2 threads: KC 1024 (12 x 1024 floats
       in L1), NC 256 = 8 blocks for 2 x 2 */
    kf_bt_cpu_derive_blocking(48 << 10, 2 << 20, 240 << 20, 12, 32, 512, 2048, 0, 4, 2, KF_BT_CPU_ORDER_COLUMNS, &b);
    KF_CHECK_MSG(b.kc == 1024 && b.nc == 256, "nc %d kc %d", b.nc, b.kc);
    /* the block order halves for 8 blocks over M and N; the column order does not touch MC */
    kf_bt_cpu_derive_blocking(48 << 10, 2 << 20, 240 << 20, 12, 32, 512, 2048, 0, 4, 2, KF_BT_CPU_ORDER_BLOCKS, &r);
    KF_CHECK_MSG(r.mc == 264 && b.mc == 516, "block order mc %d, column order mc %d", r.mc, b.mc);
    KF_CHECK_MSG(r.kc == 512, "block order kc %d: A's panel in half of L1", r.kc);
    /* 16 threads: NC halved to 2048 / 32 blocks would be one panel: stops at 4 panels */
    kf_bt_cpu_derive_blocking(48 << 10, 2 << 20, 1966080, 12, 32, 512, 2048, 0, 4, 16, KF_BT_CPU_ORDER_COLUMNS, &b);
    KF_CHECK_MSG(b.nc == 4 * 32 && b.nc % 32 == 0, "nc %d", b.nc);
    /* 4 threads: 8 blocks of 256 */
    kf_bt_cpu_derive_blocking(48 << 10, 2 << 20, 240 << 20, 12, 32, 512, 2048, 0, 4, 4, KF_BT_CPU_ORDER_COLUMNS, &b);
    KF_CHECK_MSG(b.nc == 256, "nc %d", b.nc);
    /* one thread: the L2 block, unsplit */
    kf_bt_cpu_derive_blocking(48 << 10, 2 << 20, 240 << 20, 12, 32, 512, 2048, 0, 4, 1, KF_BT_CPU_ORDER_COLUMNS, &b);
    KF_CHECK_MSG(b.nc == 256, "nc %d", b.nc);
    /* the Zen 4 VM (32 KiB L1, 1 MiB L2), K = 2048: fp32 680 -> four blocks of 512;
       bf16 pairs (2 bytes) 1360 -> two of 1024, its B block 1024 x 256 in half of L2 */
    kf_bt_cpu_derive_blocking(32 << 10, 1 << 20, 32 << 20, 12, 32, 512, 2048, 2048, 4, 2, KF_BT_CPU_ORDER_COLUMNS, &b);
    KF_CHECK_MSG(b.kc == 512 && b.nc == 256, "fp32: nc %d kc %d", b.nc, b.kc);
    kf_bt_cpu_derive_blocking(32 << 10, 1 << 20, 32 << 20, 12, 32, 512, 2048, 2048, 2, 2, KF_BT_CPU_ORDER_COLUMNS, &b);
    KF_CHECK_MSG(b.kc == 1024 && b.nc == 256, "bf16: nc %d kc %d", b.nc, b.kc);
    /* even blocks, a multiple of 8: K = 1000 at 680 -> two of 504 (not 680 and 320) */
    kf_bt_cpu_derive_blocking(32 << 10, 1 << 20, 32 << 20, 12, 32, 512, 2048, 1000, 4, 2, KF_BT_CPU_ORDER_COLUMNS, &b);
    KF_CHECK_MSG(b.kc == 504, "kc %d", b.kc);
    /* AVX2's 6 x 16 tile (rows of B's micro-panel under 32 floats): A's panel in half of L1,
       the 2-core Zen 3 (32 KiB L1, 512 KiB L2), 2048 x 1024 -> 1024: 1365 would be all of K,
       682 -> two blocks of 512 */
    kf_bt_cpu_derive_blocking(32 << 10, 512 << 10, 32 << 20, 6, 16, 2048, 1024, 1024, 4, 2, KF_BT_CPU_ORDER_COLUMNS, &b);
    KF_CHECK_MSG(b.kc == 512, "kc %d", b.kc);
    /* K under the L1 depth: one block */
    kf_bt_cpu_derive_blocking(32 << 10, 1 << 20, 32 << 20, 12, 32, 512, 2048, 300, 4, 2, KF_BT_CPU_ORDER_COLUMNS, &b);
    KF_CHECK_MSG(b.kc == 304, "kc %d", b.kc);
}

/* The AMX group's depth block: a thread's four B micro-panels and two of
 * A, with their low parts, in half of L2 (cpu_knobs.h) */
KF_TEST(cpu_amx_kc_counts_the_low_parts)
{
    const int64_t l2 = 2 << 20;   /* the 16-core host's */
    KF_CHECK_INT(kf_bt_cpu_amx_kc(KF_BT_AMX_BF16, l2), 2720);     /* (4 x 32 + 2 x 32) x 2 bytes a unit of depth */
    KF_CHECK_INT(kf_bt_cpu_amx_kc(KF_BT_AMX_BF16C, l2), 2720);
    KF_CHECK_INT(kf_bt_cpu_amx_kc(KF_BT_AMX_BF16X2, l2), 2048);   /* A's low part: (4 x 32 + 2 x 64) x 2 */
    KF_CHECK_INT(kf_bt_cpu_amx_kc(KF_BT_AMX_BF16X3, l2), 1344);   /* both: (4 x 64 + 2 x 64) x 2 */
    for (int64_t c = 256 << 10; c <= (8 << 20); c *= 2) {
        int kc = kf_bt_cpu_amx_kc(KF_BT_AMX_BF16X3, c);
        KF_CHECK_INT(kc % 32, 0);
        KF_CHECK_MSG(768L * kc <= c / 2 && (kc == 8192 || 768L * (kc + 32) > c / 2), "L2 %lld: kc %d", (long long)c, kc);
    }
    KF_CHECK_INT(kf_bt_cpu_amx_kc(KF_BT_AMX_BF16, 16 << 10), 64);   /* the floor */
    KF_CHECK_INT(kf_bt_cpu_amx_kc(KF_BT_AMX_BF16, 64 << 20), 8192); /* the knob's top */
    /* the blocks the generator and the cost model take: even, as many, never deeper than KC */
    KF_CHECK_INT(kf_bt_cpu_amx_depth(2048, 1344), 1024);
    KF_CHECK_INT(kf_bt_cpu_amx_depth(2048, 4096), 2048);   /* all of K: C stays in the tiles */
    KF_CHECK_INT(kf_bt_cpu_amx_depth(250, 160), 128);      /* whole tiles: 128 + 122 */
    KF_CHECK_INT(kf_bt_cpu_amx_depth(250, 40), 36);        /* pairs: six of 36, one of 34 */
    KF_CHECK_INT(kf_bt_cpu_amx_depth(250, 24), 24);
    KF_CHECK_INT(kf_bt_cpu_even_depth(2048, 680, 8), 512); /* the column order's */
}

/* The column order's block width at run time (kf_column_width in the
 * kernel, kf_bt_cpu_column_width for the cost model): the width, down to
 * half of the narrowed one, whose busiest thread has the fewest columns. */
KF_TEST(cpu_column_width_balances_threads)
{
    int64_t most = 0;
    /* the Zen 4 VM's default NC 384 for 2048 columns on 2 threads: 5 blocks of
       384 and one of 128 give 1152 and 896 columns; 256 gives 1024 each */
    KF_CHECK_INT(kf_bt_cpu_column_width(2048, 384, 32, 2, &most), 256);
    KF_CHECK_INT(most, 1024);
    /* one thread: the width as given */
    KF_CHECK_INT(kf_bt_cpu_column_width(2048, 384, 32, 1, &most), 384);
    KF_CHECK_INT(most, 2048);
    /* 16 threads, 128 columns a block: already one block each */
    KF_CHECK_INT(kf_bt_cpu_column_width(2048, 128, 32, 16, &most), 128);
    KF_CHECK_INT(most, 128);
    /* fewer blocks than threads: narrowed by NR first (2048 / 512 < 8) */
    KF_CHECK_INT(kf_bt_cpu_column_width(2048, 512, 32, 8, &most), 256);
    KF_CHECK_INT(most, 256);
    /* odd sizes against a simulation of the hand-out (each block in order to
       the thread with the fewest columns so far): the chosen width's busiest
       thread is the simulated one, and no width in its range does better */
    static const int64_t cases[][4] = {{1000, 256, 16, 3}, {2048, 384, 32, 2}, {4096, 512, 32, 3}, {777, 96, 8, 5}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        const int64_t n = cases[c][0], nr = cases[c][2];
        const int nt = (int)cases[c][3];
        int64_t top = cases[c][1];
        while ((n + top - 1) / top < nt && top > nr) top -= nr;
        int64_t w = kf_bt_cpu_column_width(n, cases[c][1], nr, nt, &most), sim_w = -1;
        for (int64_t x = top; x >= nr && 2 * x >= top; x -= nr) {
            int64_t load[8] = {0}, busiest = 0;
            for (int64_t j0 = 0; j0 < n; j0 += x) {
                int t = 0;
                for (int u = 1; u < nt; u++) if (load[u] < load[t]) t = u;
                load[t] += n - j0 < x ? n - j0 : x;
            }
            for (int u = 0; u < nt; u++) if (load[u] > busiest) busiest = load[u];
            if (x == w) sim_w = busiest;
            KF_CHECK_MSG(most <= busiest, "n %lld: width %lld (busiest %lld) beaten by %lld (%lld)", (long long)n,
                         (long long)w, (long long)most, (long long)x, (long long)busiest);
        }
        KF_CHECK_MSG(sim_w == most, "n %lld width %lld: busiest %lld, simulated %lld", (long long)n, (long long)w,
                     (long long)most, (long long)sim_w);
    }
    /* the cost model takes the width the kernel takes: 16 threads over 384-column
       blocks of 2048 columns run 16 blocks of 128, as efficient as a 128 point
       (it read 6 blocks for 16 threads: 0.375 of it) */
    kf_bt_point a, b;
    kf_bt_point_default(&kf_bt_emit_c, "cpu-simd", NULL, NULL, &a);
    a.fusion = KF_BT_FUSE_EPILOGUE;
    a.knob[KC_PACK] = 1, a.knob[KC_LOOP_ORDER] = 1, a.knob[KC_KC] = 128, a.knob[KC_MC] = 516;
    b = a;
    a.knob[KC_NC] = 384, b.knob[KC_NC] = 128;
    const kf_bt_gemm_work gw = {512, 2048, 16, 0};
    double ea = kf_bt_emit_c.gemm_eff(&a, &gw, 16), eb = kf_bt_emit_c.gemm_eff(&b, &gw, 16);
    KF_CHECK_MSG(eb > 0 && fabs(ea / eb - 1) < 1e-9, "nc 384: %g, nc 128: %g", ea, eb);
}

static void points_pass_at(const char *rel, const char *const *pts, int n, int defaults, const char *want);

/* 1 where the C emitter offers precision i16: AVX2 and FMA, no AVX-512 */
static int host_i16(void)
{
#if defined(__x86_64__)
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && !__builtin_cpu_supports("avx512f");
#else
    return 0;
#endif
}

/* bf16 on CPU: packing converts to bf16 pairs, the micro-kernel is
 * vdpbf16ps with fp32 accumulation; a bf16 candidate that fails (does not
 * compile, or misses the tolerance) falls back to fp32, never to 3xBF16,
 * which the C emitter does not write. */
KF_TEST(cpu_bf16_precision_and_fallback)
{
    loaded l;
    load(&l, "problems/level2/12_Gemm_Multiply_LeakyReLU.json", "small");
    kf_error err = {0};
    const char *js = "{\"fusion\":2,\"precision\":3,\"mc\":96,\"nc\":256,\"kc\":384,\"mr\":12,\"nr\":32,"
                     "\"pack\":1,\"threads\":0,\"loop_order\":0,\"unroll\":1}";
    kf_bt_point p, q;
    KF_CHECK_MSG(kf_bt_point_from_json(js, &kf_bt_emit_c, "cpu-simd", &l.r, NULL, &p, &err) == 0, "%s", err.msg);
    KF_CHECK_INT(p.precision, KF_BT_BF16);
    char lb[160];
    KF_CHECK_CONTAINS(kf_bt_point_label(&p, lb, sizeof lb), " bf16");
    /* the emitter refuses precisions it does not write, and bf16 without packing */
    KF_CHECK(kf_bt_point_from_json("{\"precision\":4}", &kf_bt_emit_c, "cpu-simd", &l.r, NULL, &q, &err) != 0);
    KF_CHECK_CONTAINS(err.msg, "the C emitter writes fp32 (0) or bf16");
    KF_CHECK(kf_bt_point_from_json("{\"precision\":3,\"pack\":0}", &kf_bt_emit_c, "cpu-simd", &l.r, NULL, &q, &err) != 0);
    KF_CHECK_CONTAINS(err.msg, "needs pack = 1");
    /* the source: bf16 packing and vdpbf16ps, and a compile error where the
       CPU has no AVX512_BF16 (then the fallback below) */
    kf_bt_plan plan;
    KF_CHECK_MSG(kf_bt_plan_build(&l.r, KF_BT_FUSE_ROWS, &plan, &err) == 0, "%s", err.msg);
    kf_candidate *c = NULL;
    char *label = NULL;
    KF_CHECK_MSG(kf_bt_gen_cpu(&plan, &p, "cpu-simd", NULL, &c, &label, &err) == 0, "%s", err.msg);
    KF_CHECK_CONTAINS(c->sources[0].text, "_mm512_dpbf16_ps(acc[i][v], a, b[v])");
    KF_CHECK_CONTAINS(c->sources[0].text, "_mm512_cvtne2ps_pbh(kf_part(hi, part), kf_part(lo, part))");   /* the shared packing */
    KF_CHECK_CONTAINS(c->sources[0].text, "_mm512_mask_storeu_epi32(dst + (q0 + q) * KF_MR + i16, keep, r[q])");   /* A's [kq][MR] panels */
    KF_CHECK_CONTAINS(c->sources[0].text, "#error \"precision bf16 needs AVX512_BF16");
    KF_CHECK(strstr(c->sources[0].text, "kf_vfma(a, b[v], acc[i][v])") == NULL);   /* not the fp32 kernel */
    kf_candidate_free(c);
    free(label);
    p.precision = KF_BT_FP32;
    KF_CHECK_MSG(kf_bt_gen_cpu(&plan, &p, "cpu-simd", NULL, &c, &label, &err) == 0, "%s", err.msg);
    KF_CHECK(strstr(c->sources[0].text, "dpbf16") == NULL);
    kf_candidate_free(c);
    free(label);
    kf_bt_plan_free(&plan);
    /* the fallback after a failure: bf16 -> fp32, the rest of the point kept */
    p.precision = KF_BT_BF16;
    q = p;
    KF_CHECK_INT(kf_bt_point_conservative(&q), 1);
    KF_CHECK_INT(q.precision, KF_BT_FP32);
    KF_CHECK_INT(q.fusion, p.fusion);
    KF_CHECK_INT(q.knob[KC_MC], p.knob[KC_MC]);
    /* through the agent: a failed bf16 candidate -> an fp32 one */
    kf_agent *a = kf_builtin_agent_open(js, &err);
    KF_CHECK_MSG(a != NULL, "%s", err.msg);
    kf_candidate *c1 = generate(a, &l.r, KF_GEN_FIRST, &label);
    KF_CHECK_CONTAINS(label, "bf16");
    free(label);
    kf_agent_ctx cc = ctx_for(&l.r, "cpu-simd");
    kf_gen_request fix = {.kind = KF_GEN_FIX_MISMATCH, .last = c1};
    kf_gen_result g = {0};
    KF_CHECK(a->ops->generate(a, &cc, &fix, &g, &err) == 0);
    KF_CHECK(g.cand != NULL);
    KF_CHECK_CONTAINS(g.label, "more conservative");
    KF_CHECK(strstr(g.label, "bf16") == NULL);
    KF_CHECK_CONTAINS(g.cand->notes, "\"precision\":0");
    KF_CHECK(strstr(g.cand->sources[0].text, "dpbf16") == NULL);
    kf_gen_result_free(&g);
    kf_candidate_free(c1);
    kf_agent_close(a);
    /* the default point: bf16 only where the probe measured it faster */
    kf_device_info dev;
    memset(&dev, 0, sizeof dev);
    dev.struct_size = sizeof dev;
    dev.peak_flops = 4.9e11;
    dev.peak_flops_bf16 = 2.5e11;   /* this Xeon: vdpbf16ps at half the FMA rate */
    kf_bt_point_default(&kf_bt_emit_c, "cpu-simd", &l.r, &dev, &q);
    KF_CHECK_INT(q.precision, host_i16() ? KF_BT_I16 : KF_BT_FP32);   /* AVX2 only: int16 pairs */
    dev.peak_flops_bf16 = 9.8e11;   /* a CPU where bf16 dot products are faster */
    kf_bt_point_default(&kf_bt_emit_c, "cpu-simd", &l.r, &dev, &q);
    __builtin_cpu_init();
    KF_CHECK_INT(q.precision, __builtin_cpu_supports("avx512bf16") ? KF_BT_BF16 : host_i16() ? KF_BT_I16 : KF_BT_FP32);
    unload(&l);
}

/* Precision 10 (i16, cpu_gemm_i16.c): its point rules and source, the
 * depth block kept off 1 (and the point refused, and never offered, where
 * a GEMM is 1 deep), and, where the CPU offers it, verified GEMMs with B as
 * W^T and K x N, depth blocks that do not divide K (odd ones too), the
 * three loop orders, row panels and one thread; a failure steps to fp32. */
KF_TEST_TIMEOUT(cpu_i16_precision, 200.0)
{
    kf_error err = {0};
    kf_bt_point p, q;
    loaded l;
    load(&l, "problems/level2/45_Gemm_Sigmoid_LogSumExp.json", "small");   /* K 250, then H 333 */
    KF_CHECK_MSG(kf_bt_point_from_json("{\"fusion\":2,\"precision\":10,\"mr\":6,\"nr\":16,\"kc\":83}", &kf_bt_emit_c,
                                       "cpu-simd", &l.r, NULL, &p, &err) == 0, "%s", err.msg);
    char lb[160];
    KF_CHECK_CONTAINS(kf_bt_point_label(&p, lb, sizeof lb), " i16");
    KF_CHECK(kf_bt_point_from_json("{\"precision\":10,\"mr\":12,\"nr\":32}", &kf_bt_emit_c, "cpu-simd", &l.r, NULL,
                                   &q, &err) != 0);
    KF_CHECK_CONTAINS(err.msg, "the 6 x 16 AVX2 micro-kernel");
    KF_CHECK(kf_bt_point_from_json("{\"precision\":10,\"mr\":6,\"nr\":16,\"kc\":8192}", &kf_bt_emit_c, "cpu-simd",
                                   &l.r, NULL, &q, &err) != 0);
    KF_CHECK_CONTAINS(err.msg, "kc in [2, 4096]");
    kf_bt_plan plan;
    KF_CHECK_MSG(kf_bt_plan_build(&l.r, KF_BT_FUSE_ROWS, &plan, &err) == 0, "%s", err.msg);
    kf_candidate *c = NULL;
    char *label = NULL;
    KF_CHECK_MSG(kf_bt_gen_cpu(&plan, &p, "cpu-simd", NULL, &c, &label, &err) == 0, "%s", err.msg);
    const char *src = c ? c->sources[0].text : "";
    KF_CHECK_CONTAINS(src, "vpmaddwd %%ymm12, %%ymm14, %%ymm15");
    KF_CHECK_CONTAINS(src, "#error \"precision i16 needs AVX2");
    KF_CHECK_CONTAINS(src, "KF_CPU_USES(KF_CPU_UNIT_I16)");
    KF_CHECK(strstr(src, "kf_vfma(a, b[v], acc[i][v])") == NULL);   /* not the fp32 kernel */
    /* 333 = 4 x 83 + 1: a last block of 1 has no room for its scales, so 82 */
    KF_CHECK_CONTAINS(src, "333 - p0 < 82 ? 333 - p0 : 82");
    KF_CHECK(strstr(src, "< 83 ?") == NULL);
    kf_candidate_free(c);
    free(label);
    kf_bt_plan_free(&plan);
    /* a failed i16 candidate steps to fp32, the rest of the point kept */
    q = p;
    KF_CHECK_INT(kf_bt_point_conservative(&q), 1);
    KF_CHECK_INT(q.precision, KF_BT_FP32);
    KF_CHECK_INT(q.knob[KC_KC], p.knob[KC_KC]);
    /* the default: i16 where the CPU offers it and the tolerance has room */
    kf_device_info dev;
    memset(&dev, 0, sizeof dev);
    dev.struct_size = sizeof dev;
    dev.peak_flops = 2e11;
    dev.warp_size = 8;
    kf_bt_point_default(&kf_bt_emit_c, "cpu-simd", &l.r, &dev, &q);
    KF_CHECK_INT(q.precision, host_i16() ? KF_BT_I16 : KF_BT_FP32);   /* no int16 peak measured: the features */
    /* with the probe's int16-pair peak (ABI 1.6): i16 only where it is well
       above the fp32 peak (a Zen 3's 2.1x), not where vpmaddwd issues no
       faster than the FMAs (1x) nor just under the margin */
    dev.peak_flops_i16 = 4.2e11;
    kf_bt_point_default(&kf_bt_emit_c, "cpu-simd", &l.r, &dev, &q);
    KF_CHECK_INT(q.precision, host_i16() ? KF_BT_I16 : KF_BT_FP32);
    dev.peak_flops_i16 = 2e11;
    kf_bt_point_default(&kf_bt_emit_c, "cpu-simd", &l.r, &dev, &q);
    KF_CHECK_INT(q.precision, KF_BT_FP32);
    dev.peak_flops_i16 = KF_BT_CPU_I16_MIN_GAIN * dev.peak_flops * 0.99;
    kf_bt_point_default(&kf_bt_emit_c, "cpu-simd", &l.r, &dev, &q);
    KF_CHECK_INT(q.precision, KF_BT_FP32);
    dev.peak_flops_i16 = KF_BT_CPU_I16_MIN_GAIN * dev.peak_flops;
    kf_bt_point_default(&kf_bt_emit_c, "cpu-simd", &l.r, &dev, &q);
    KF_CHECK_INT(q.precision, host_i16() ? KF_BT_I16 : KF_BT_FP32);
    unload(&l);
    /* K 57 at kc 8: 57 mod 8 and 57 mod 7 are 1, so blocks of 6 */
    load(&l, "tests/vocab/linear_short_depth.json", "small");
    KF_CHECK_MSG(kf_bt_point_from_json("{\"fusion\":1,\"precision\":10,\"mr\":6,\"nr\":16,\"kc\":8}", &kf_bt_emit_c,
                                       "cpu-simd", &l.r, NULL, &p, &err) == 0, "%s", err.msg);
    KF_CHECK_MSG(kf_bt_plan_build(&l.r, KF_BT_FUSE_EPILOGUE, &plan, &err) == 0, "%s", err.msg);
    KF_CHECK_MSG(kf_bt_gen_cpu(&plan, &p, "cpu-simd", NULL, &c, &label, &err) == 0, "%s", err.msg);
    KF_CHECK_CONTAINS(c ? c->sources[0].text : "", "57 - p0 < 6 ? 57 - p0 : 6");
    kf_candidate_free(c);
    free(label);
    kf_bt_plan_free(&plan);
    unload(&l);
    /* K 1: no block of 2 exists; the generator refuses i16 saying so, the
       default point is not i16 and no neighbour offers it */
    load(&l, "tests/vocab/linear_short_depth.json", "depth1");
    KF_CHECK_MSG(kf_bt_plan_build(&l.r, KF_BT_FUSE_EPILOGUE, &plan, &err) == 0, "%s", err.msg);
    c = NULL;
    label = NULL;
    KF_CHECK(kf_bt_gen_cpu(&plan, &p, "cpu-simd", NULL, &c, &label, &err) != 0);
    KF_CHECK(c == NULL);
    KF_CHECK_CONTAINS(err.msg, "precision 10 (i16) needs depth blocks of at least 2; a GEMM of depth 1");
    kf_candidate_free(c);
    free(label);
    kf_bt_plan_free(&plan);
    kf_bt_point_default(&kf_bt_emit_c, "cpu-simd", &l.r, &dev, &q);
    KF_CHECK_INT(q.precision, KF_BT_FP32);
    kf_bt_point nb[64];
    int n = kf_bt_neighbours(&q, &l.r, nb, 64);
    KF_CHECK(n > 0);
    for (int i = 0; i < n; i++) KF_CHECK_MSG(nb[i].precision != KF_BT_I16, "neighbour %d offers i16 at depth 1", i);
    unload(&l);
    if (!host_i16()) {
        kf_test_skip("no AVX2 without AVX-512 here: precision i16 is not offered, its kernels not run");
        return;
    }
    static const char *const pts[] = {
        "{\"fusion\":2,\"precision\":10,\"kc\":83}", "{\"fusion\":1,\"precision\":10,\"loop_order\":1,\"kc\":31}",
        "{\"fusion\":2,\"precision\":10,\"loop_order\":2,\"kc\":64,\"threads\":1}",
        "{\"fusion\":0,\"precision\":10,\"loop_order\":0,\"kc\":100,\"mc\":30,\"threads\":3}"};
    points_pass_at("problems/level2/45_Gemm_Sigmoid_LogSumExp.json", pts, 4, 0, "vpmaddwd");
    points_pass_at("problems/level1/02_Standard_matrix_multiplication.json", pts, 4, 0, "vpmaddwd");   /* B is K x N */
    points_pass_at("problems/level2/12_Gemm_Multiply_LeakyReLU.json", pts, 4, 0, "vpmaddwd");
    static const char *const short_pts[] = {"{\"fusion\":1,\"precision\":10,\"kc\":8}"};
    points_pass_at("tests/vocab/linear_short_depth.json", short_pts, 1, 0, "57 - p0 < 6 ? 57 - p0 : 6");
}

/* The cuda-c emitter on a compute capability 9.0 device: its default is a
 * BF16 wgmma GEMM (128 x 128, 6 stages); a failure steps BF16 -> TF32 (still
 * wgmma) -> 3xBF16 -> fp32; the neighbours offer the mma.sync twin, and a
 * mma.sync point (sm_80) never offers wgmma. */
KF_TEST(cuda_wgmma_default_and_fallback)
{
    loaded l;
    load(&l, "problems/level2/09_Matmul_Subtract_Multiply_ReLU.json", "kernelbench");
    kf_device_info h100, a100;
    memset(&h100, 0, sizeof h100);
    memset(&a100, 0, sizeof a100);
    snprintf(h100.kind, sizeof h100.kind, "gpu");
    snprintf(a100.kind, sizeof a100.kind, "gpu");
    snprintf(h100.detail, sizeof h100.detail, "compute capability 9.0 (sm_90), 132 SMs");
    snprintf(a100.detail, sizeof a100.detail, "compute capability 8.0 (sm_80), 108 SMs");
    kf_bt_point p, q, a;
    kf_bt_point_default(&kf_bt_emit_cuda_c, "cuda", &l.r, &h100, &p);
    KF_CHECK_INT(p.precision, KF_BT_BF16);
    KF_CHECK_INT(p.knob[KU_TC_WGMMA], 1);
    KF_CHECK_INT(p.knob[KU_TC_BN], 128);
    q = p;
    KF_CHECK_INT(kf_bt_point_conservative(&q), 1);
    KF_CHECK_INT(q.precision, KF_BT_TF32);
    KF_CHECK_INT(q.knob[KU_TC_WGMMA], 1);
    KF_CHECK_INT(q.knob[KU_TC_BN], 256);   /* TF32 on the wider tile */
    KF_CHECK_INT(kf_bt_point_conservative(&q), 1);
    KF_CHECK_INT(q.precision, KF_BT_BF16X3);
    KF_CHECK_INT(q.knob[KU_TC_BN], 128);
    KF_CHECK_INT(kf_bt_point_conservative(&q), 1);
    KF_CHECK_INT(q.precision, KF_BT_FP32);
    kf_bt_point_default(&kf_bt_emit_cuda_c, "cuda", &l.r, &a100, &a);
    KF_CHECK_INT(a.precision, KF_BT_BF16);
    KF_CHECK_INT(a.knob[KU_TC_WGMMA], 0);
    q = a;
    KF_CHECK_INT(kf_bt_point_conservative(&q), 1);
    KF_CHECK_INT(q.precision, KF_BT_BF16X3);
    kf_bt_point nb[16];
    int n = kf_bt_neighbours(&p, &l.r, nb, 16), twin = 0, tf32 = 0;
    for (int i = 0; i < n; i++) {
        twin += nb[i].knob[KU_TC_WGMMA] == 0 && nb[i].precision == KF_BT_BF16;
        tf32 += nb[i].knob[KU_TC_WGMMA] == 1 && nb[i].precision == KF_BT_TF32;
    }
    KF_CHECK_INT(twin, 1);
    KF_CHECK_INT(tf32, 1);
    n = kf_bt_neighbours(&a, &l.r, nb, 16);
    for (int i = 0; i < n; i++) KF_CHECK_INT(nb[i].knob[KU_TC_WGMMA], 0);
    /* the text: the wgmma wrappers, the sm_90a guard, the label */
    kf_bt_plan plan;
    kf_error err = {0};
    KF_CHECK_MSG(kf_bt_plan_build(&l.r, (kf_bt_fusion)p.fusion, &plan, &err) == 0, "%s", err.msg);
    kf_candidate *c = NULL;
    char *label = NULL;
    KF_CHECK_MSG(kf_bt_gen_cuda(&plan, &p, "cuda", &h100, &c, &label, &err) == 0, "%s", err.msg);
    KF_CHECK_CONTAINS(c->sources[0].text, "kf_wgmma_bf16_n128(d, da + 2 * s, db + 2 * s)");
    KF_CHECK_CONTAINS(c->sources[0].text, "#if defined(__CUDA_ARCH__) && !defined(__CUDA_ARCH_FEAT_SM90_ALL)");
    KF_CHECK_CONTAINS(label, "BF16 wgmma 128x128 6-stage");
    kf_candidate_free(c);
    free(label);
    c = NULL;
    label = NULL;
    KF_CHECK_MSG(kf_bt_gen_cuda(&plan, &a, "cuda", &a100, &c, &label, &err) == 0, "%s", err.msg);
    KF_CHECK(strstr(c->sources[0].text, "wgmma") == NULL);
    kf_candidate_free(c);
    free(label);
    kf_bt_plan_free(&plan);
}

/* tc_wgmma 2 (wgmma with TMA loads): never a default, a neighbour of every
 * wgmma point (and back), its failure keeps TMA (BF16 -> TF32); generated
 * only where the device detail says the plugin encodes tensor maps (no
 * detail: compile-only), with two tensor-map arguments over the BF16
 * scratch (or, TF32, the FP32 inputs) that cover their buffers exactly. */
KF_TEST(cuda_wgmma_tma_point)
{
    loaded l;
    load(&l, "problems/level2/09_Matmul_Subtract_Multiply_ReLU.json", "kernelbench");
    kf_device_info h100;
    memset(&h100, 0, sizeof h100);
    snprintf(h100.kind, sizeof h100.kind, "gpu");
    snprintf(h100.detail, sizeof h100.detail, "compute capability 9.0 (sm_90), 132 SMs");
    kf_bt_point p;
    kf_bt_point_default(&kf_bt_emit_cuda_c, "cuda", &l.r, &h100, &p);
    KF_CHECK_INT(p.knob[KU_TC_WGMMA], 1);   /* the default stays cp.async */
    kf_bt_point nb[16];
    int n = kf_bt_neighbours(&p, &l.r, nb, 16), tma = -1;
    for (int i = 0; i < n; i++)
        if (nb[i].knob[KU_TC_WGMMA] == 2) tma = i;
    KF_CHECK(tma >= 0);
    if (tma < 0) { unload(&l); return; }
    kf_bt_point t = nb[tma];
    KF_CHECK_INT(t.precision, KF_BT_BF16);
    KF_CHECK_INT(t.knob[KU_TC_BN], 128);
    n = kf_bt_neighbours(&t, &l.r, nb, 16);
    int back = 0;
    for (int i = 0; i < n; i++) back += nb[i].knob[KU_TC_WGMMA] == 1 && nb[i].precision == KF_BT_BF16;
    KF_CHECK_INT(back, 1);
    kf_bt_point q = t;
    KF_CHECK_INT(kf_bt_point_conservative(&q), 1);
    KF_CHECK_INT(q.precision, KF_BT_TF32);
    KF_CHECK_INT(q.knob[KU_TC_WGMMA], 2);
    kf_bt_plan plan;
    kf_error err = {0};
    KF_CHECK_MSG(kf_bt_plan_build(&l.r, (kf_bt_fusion)t.fusion, &plan, &err) == 0, "%s", err.msg);
    kf_candidate *c = NULL;
    char *label = NULL;
    /* the plugin did not say it encodes tensor maps: refused */
    KF_CHECK(kf_bt_gen_cuda(&plan, &t, "cuda", &h100, &c, &label, &err) != 0);
    KF_CHECK_CONTAINS(err.msg, "does not offer tensor maps");
    kf_candidate_free(c);
    free(label);
    c = NULL;
    label = NULL;
    snprintf(h100.detail, sizeof h100.detail, "compute capability 9.0 (sm_90), 132 SMs; tensor maps (TMA) supported");
    for (int prec = 0; prec < 2; prec++) {
        kf_bt_point r = t;
        r.precision = prec ? KF_BT_TF32 : KF_BT_BF16;
        kf_error_clear(&err);
        KF_CHECK_MSG(kf_bt_gen_cuda(&plan, &r, "cuda", &h100, &c, &label, &err) == 0, "%s", err.msg);
        if (!c) continue;
        KF_CHECK_CONTAINS(c->sources[0].text, "const __grid_constant__ kf_tmap_t tm_0");
        KF_CHECK_CONTAINS(c->sources[0].text, "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes");
        KF_CHECK_CONTAINS(label, prec ? "TF32 wgmma+TMA 128x128" : "BF16 wgmma+TMA 128x128 6-stage");
        const kf_cand_launch *g = &c->launches[c->n_launches - 1];
        KF_CHECK_CONTAINS(g->kernel, "gemm_wgmma_tma");
        KF_CHECK_STR(g->local[0], "288");
        int maps = 0;
        for (int a = 0; a < g->n_args; a++) {
            if (g->args[a].kind != KF_CARG_TENSOR_MAP) continue;
            const kf_cand_tmap *m = g->args[a].tmap;
            KF_CHECK_INT(m->rank, 2);
            KF_CHECK_INT(m->swizzle, 128);
            KF_CHECK_INT(m->dtype, prec ? KF_DT_F32 : KF_DT_BF16);
            KF_CHECK_STR(m->dims[0], "8192");
            KF_CHECK_STR(m->strides[1], prec ? "32768" : "16384");
            KF_CHECK_STR(m->box[0], prec ? "32" : "64");
            KF_CHECK_STR(g->args[a].text, maps ? (prec ? "W" : "b_bf16") : (prec ? "x" : "a_bf16"));
            maps++;
        }
        KF_CHECK_INT(maps, 2);
        /* bound at the preset, each map covers its buffer exactly */
        kf_bound b;
        kf_error_clear(&err);
        KF_CHECK_MSG(kf_candidate_bind(c, &l.r, &b, &err) == 0, "%s", err.msg);
        KF_CHECK_INT(b.view.n_tensor_maps, 2);
        for (int i = 0; i < b.view.n_tensor_maps; i++) {
            const kf_tensor_map *m = &b.view.tensor_maps[i];
            const int64_t bytes = m->buffer_kind == KF_ARG_SCRATCH ? b.pview.scratch_bytes[m->buffer_index]
                                                                   : 4 * b.pview.input_elems[m->buffer_index];
            KF_CHECK_INT(m->dims[1] * m->strides[1], bytes);
        }
        kf_bound_free(&b);
        kf_candidate_free(c);
        free(label);
        c = NULL;
        label = NULL;
    }
    kf_bt_plan_free(&plan);
    unload(&l);
}

/* Where the plugin says it encodes tensor maps, the Hopper default loads
 * by TMA at 128 x 256 (tc_wgmma 2); a GEMM whose GroupNorm fuses into its
 * epilogue (problem 30 at kernelbench, rows fused) keeps the cp.async
 * kernel with the norm in it, and one without a norm (9) gets TMA. */
KF_TEST(cuda_tma_default)
{
    kf_device_info h100;
    memset(&h100, 0, sizeof h100);
    snprintf(h100.kind, sizeof h100.kind, "gpu");
    snprintf(h100.detail, sizeof h100.detail, "compute capability 9.0 (sm_90), 132 SMs; tensor maps (TMA) supported");
    const char *probs[2] = {"problems/level2/09_Matmul_Subtract_Multiply_ReLU.json",
                            "problems/level2/30_Gemm_GroupNorm_Hardtanh.json"};
    for (int i = 0; i < 2; i++) {
        loaded l;
        load(&l, probs[i], "kernelbench");
        kf_bt_point p;
        kf_bt_point_default(&kf_bt_emit_cuda_c, "cuda", &l.r, &h100, &p);
        KF_CHECK_INT(p.knob[KU_TC_WGMMA], 2);
        KF_CHECK_INT(p.knob[KU_TC_BN], 256);
        kf_bt_point q = p;   /* the norm problems run TF32 after BF16 fails */
        if (i == 1) KF_CHECK_INT(kf_bt_point_conservative(&q), 1);
        kf_bt_plan plan;
        kf_error err = {0};
        KF_CHECK_MSG(kf_bt_plan_build(&l.r, (kf_bt_fusion)q.fusion, &plan, &err) == 0, "%s", err.msg);
        kf_candidate *c = NULL;
        char *label = NULL;
        KF_CHECK_MSG(kf_bt_gen_cuda(&plan, &q, "cuda", &h100, &c, &label, &err) == 0, "%s", err.msg);
        if (c && i == 0) {
            KF_CHECK_CONTAINS(c->sources[0].text, "cp.async.bulk.tensor.2d");
            KF_CHECK_CONTAINS(c->sources[0].text, "gemm_wgmma_tma_bf16_epilogue");
        } else if (c) {
            KF_CHECK(strstr(c->sources[0].text, "cp.async.bulk.tensor") == NULL);
            KF_CHECK(strstr(c->sources[0].text, "gemm_wgmma_tf32_norm_stats") != NULL ||
                     strstr(c->sources[0].text, "gemm_wgmma_tf32_group_norm") != NULL);
        }
        kf_candidate_free(c);
        free(label);
        kf_bt_plan_free(&plan);
        unload(&l);
    }
}

/* AMX bf16 tiles on CPU (precision 5): the point's rules, the library in
 * the source (tiles, the permission check, the unit for the roofline), the
 * fallback to fp32 after a failure, and the default point: AMX only where
 * the device says KF_MU_AMX with the fastest peak and this process holds
 * the tile permission (which the cpu-simd plugin's listing asks for; here
 * the test asks, as the plugin would). */
KF_TEST(cpu_amx_precision)
{
    loaded l;
    load(&l, "problems/level2/12_Gemm_Multiply_LeakyReLU.json", "small");
    kf_error err = {0};
    const char *js = "{\"fusion\":2,\"precision\":5,\"mc\":96,\"nc\":256,\"kc\":384,\"mr\":32,\"nr\":32,"
                     "\"pack\":1,\"threads\":0,\"loop_order\":0,\"unroll\":1}";
    kf_bt_point p, q;
    KF_CHECK_MSG(kf_bt_point_from_json(js, &kf_bt_emit_c, "cpu-simd", &l.r, NULL, &p, &err) == 0, "%s", err.msg);
    KF_CHECK_INT(p.precision, KF_BT_AMX_BF16);
    char lb[160];
    KF_CHECK_CONTAINS(kf_bt_point_label(&p, lb, sizeof lb), " amx-bf16");
    /* whole 16 x 16 C tiles and packing, or a one-line refusal */
    KF_CHECK(kf_bt_point_from_json("{\"precision\":5,\"mr\":12,\"nr\":32}", &kf_bt_emit_c, "cpu-simd", &l.r, NULL, &q,
                                   &err) != 0);
    KF_CHECK_CONTAINS(err.msg, "mr, nr of 16 or 32");
    KF_CHECK(kf_bt_point_from_json("{\"precision\":5,\"mr\":32,\"nr\":32,\"pack\":0}", &kf_bt_emit_c, "cpu-simd", &l.r,
                                   NULL, &q, &err) != 0);
    KF_CHECK_CONTAINS(err.msg, "needs pack = 1");
    KF_CHECK(kf_bt_point_from_json("{\"precision\":11}", &kf_bt_emit_c, "cpu-simd", &l.r, NULL, &q, &err) != 0);
    KF_CHECK_CONTAINS(err.msg, "out of range 0..10");
    /* bf16c on vdpbf16ps: nr a multiple of 16, packing */
    KF_CHECK(kf_bt_point_from_json("{\"precision\":9,\"mr\":6,\"nr\":24}", &kf_bt_emit_c, "cpu-simd", &l.r, NULL, &q,
                                   &err) != 0);
    KF_CHECK_CONTAINS(err.msg, "precision 9 (bf16c) needs pack = 1 and nr a multiple of 16");
    KF_CHECK(kf_bt_point_from_json("{\"precision\":8,\"mr\":12,\"nr\":32}", &kf_bt_emit_c, "cpu-simd", &l.r, NULL,
                                   &q, &err) != 0);
    KF_CHECK_CONTAINS(err.msg, "mr, nr of 16 or 32");
    KF_CHECK(kf_bt_point_from_json("{\"precision\":7,\"mr\":12,\"nr\":32}", &kf_bt_emit_c, "cpu-simd", &l.r, NULL,
                                   &q, &err) != 0);
    KF_CHECK_CONTAINS(err.msg, "mr, nr of 16 or 32");
    /* 3xbf16 and 2xbf16 on the tiles: the same tile rules, and an even kc */
    KF_CHECK(kf_bt_point_from_json("{\"precision\":6,\"mr\":32,\"nr\":32,\"kc\":97}", &kf_bt_emit_c, "cpu-simd", &l.r,
                                   NULL, &q, &err) != 0);
    KF_CHECK_CONTAINS(err.msg, "needs an even kc");
    KF_CHECK(kf_bt_point_from_json("{\"precision\":7,\"mr\":32,\"nr\":32,\"kc\":97}", &kf_bt_emit_c, "cpu-simd", &l.r,
                                   NULL, &q, &err) != 0);
    KF_CHECK_CONTAINS(err.msg, "precision 7 (2xbf16 on AMX) needs an even kc");
    kf_bt_plan plan;
    KF_CHECK_MSG(kf_bt_plan_build(&l.r, KF_BT_FUSE_ROWS, &plan, &err) == 0, "%s", err.msg);
    kf_candidate *c = NULL;
    char *label = NULL;
    KF_CHECK_MSG(kf_bt_gen_cpu(&plan, &p, "cpu-simd", NULL, &c, &label, &err) == 0, "%s", err.msg);
    const char *src = c->sources[0].text;
    KF_CHECK_CONTAINS(src, "_tile_dpbf16ps(3, 5, 7);");
    KF_CHECK_CONTAINS(src, "_tile_loadconfig(&cfg);");
    KF_CHECK_CONTAINS(src, "_mm512_cvtne2ps_pbh(kf_part(hi, part), kf_part(lo, part))");
    KF_CHECK(strstr(src, "#define KF_AMX_X3 1") == NULL);
    KF_CHECK_CONTAINS(src, "KF_CPU_USES(KF_CPU_UNIT_AMX_BF16);");
    KF_CHECK_CONTAINS(src, "if (!(a->features & KF_CPU_FEAT_AMX_BF16)) return;");
    KF_CHECK_CONTAINS(src, "#error \"precision amx-bf16 needs AMX");
    KF_CHECK(strstr(src, "kf_vfma(a, b[v], acc[i][v])") == NULL);   /* not the fp32 kernel */
    kf_candidate_free(c);
    free(label);
    /* precision 6: the same library with both bf16 parts, its own unit */
    kf_bt_point p3 = p;
    p3.precision = KF_BT_AMX_BF16X3;
    KF_CHECK_CONTAINS(kf_bt_point_label(&p3, lb, sizeof lb), " amx-3xbf16");
    KF_CHECK_MSG(kf_bt_gen_cpu(&plan, &p3, "cpu-simd", NULL, &c, &label, &err) == 0, "%s", err.msg);
    KF_CHECK_CONTAINS(c->sources[0].text, "#define KF_AMX_X3 1");
    KF_CHECK_CONTAINS(c->sources[0].text, "kf_amx_block_b(bb + KF_NR * kq);");
    KF_CHECK_CONTAINS(c->sources[0].text, "KF_CPU_USES(KF_CPU_UNIT_AMX_BF16X3);");
    KF_CHECK(strstr(c->sources[0].text, "#define KF_AMX_X2 1") == NULL);
    kf_candidate_free(c);
    free(label);
    /* precision 7: A's low part only (2xbf16), its own unit */
    kf_bt_point p2 = p;
    p2.precision = KF_BT_AMX_BF16X2;
    KF_CHECK_CONTAINS(kf_bt_point_label(&p2, lb, sizeof lb), " amx-2xbf16");
    KF_CHECK_MSG(kf_bt_gen_cpu(&plan, &p2, "cpu-simd", NULL, &c, &label, &err) == 0, "%s", err.msg);
    KF_CHECK_CONTAINS(c->sources[0].text, "#define KF_AMX_X2 1");
    KF_CHECK(strstr(c->sources[0].text, "#define KF_AMX_X3 1") == NULL);
    KF_CHECK_CONTAINS(c->sources[0].text, "kf_amx_block_a(ab + KF_MR * kq);");
    KF_CHECK_CONTAINS(c->sources[0].text, "KF_CPU_USES(KF_CPU_UNIT_AMX_BF16X2);");
    kf_candidate_free(c);
    free(label);
    /* precision 8 (bf16c): named and centred where the GEMM runs without
       row panels (12 has no row op), refused where it runs in them (99's
       softmax fused into row panels) */
    kf_bt_point pc = p;
    pc.precision = KF_BT_AMX_BF16C;
    KF_CHECK_CONTAINS(kf_bt_point_label(&pc, lb, sizeof lb), " amx-bf16c");
    {
        loaded l99;
        load(&l99, "problems/level2/99_Matmul_GELU_Softmax.json", "small");
        kf_bt_plan plan99;
        KF_CHECK_MSG(kf_bt_plan_build(&l99.r, KF_BT_FUSE_ROWS, &plan99, &err) == 0, "%s", err.msg);
        KF_CHECK(kf_bt_gen_cpu(&plan99, &pc, "cpu-simd", NULL, &c, &label, &err) != 0);
        KF_CHECK_CONTAINS(err.msg, "precision 8 (bf16c on AMX) centres A in the GEMM without row panels");
        if (c) kf_candidate_free(c);
        free(label);
        c = NULL;
        label = NULL;
        kf_bt_plan_free(&plan99);
        unload(&l99);
    }
    kf_bt_plan plan_e;
    KF_CHECK_MSG(kf_bt_plan_build(&l.r, KF_BT_FUSE_EPILOGUE, &plan_e, &err) == 0, "%s", err.msg);
    KF_CHECK_MSG(kf_bt_gen_cpu(&plan_e, &pc, "cpu-simd", NULL, &c, &label, &err) == 0, "%s", err.msg);
    KF_CHECK_CONTAINS(c->sources[0].text, "#define KF_CENTRE_A 1");
    KF_CHECK_CONTAINS(c->sources[0].text, "kf_centre_a(Ab, ");
    KF_CHECK_CONTAINS(c->sources[0].text, "KF_CPU_USES(KF_CPU_UNIT_AMX_BF16);");
    KF_CHECK(strstr(c->sources[0].text, "#define KF_AMX_X2 1") == NULL);
    kf_candidate_free(c);
    free(label);
    c = NULL;
    label = NULL;
    pc.precision = KF_BT_AMX_BF16;   /* bf16 itself stays uncentred */
    KF_CHECK_MSG(kf_bt_gen_cpu(&plan_e, &pc, "cpu-simd", NULL, &c, &label, &err) == 0, "%s", err.msg);
    KF_CHECK(strstr(c->sources[0].text, "#define KF_CENTRE_A 1") == NULL);
    kf_candidate_free(c);
    free(label);
    kf_bt_plan_free(&plan_e);
    kf_bt_plan_free(&plan);
    /* a failed AMX candidate: fp32, the blocking kept */
    q = p;
    KF_CHECK_INT(kf_bt_point_conservative(&q), 1);
    KF_CHECK_INT(q.precision, KF_BT_FP32);
    KF_CHECK_INT(q.knob[KC_KC], p.knob[KC_KC]);
    /* never the default point, even where the device says AMX with the
       fastest peak; a neighbour of packed points only where this process
       holds the tile permission */
    kf_device_info dev;
    memset(&dev, 0, sizeof dev);
    dev.struct_size = sizeof dev;
    dev.peak_flops = 4.5e11;
    dev.peak_flops_bf16 = 1.9e11;
    dev.peak_flops_amx_bf16 = 2.0e12;
    dev.matrix_units = KF_MU_AMX | KF_MU_BF16;
    kf_bt_point_default(&kf_bt_emit_c, "cpu-simd", &l.r, &dev, &q);
    KF_CHECK_INT(q.precision, host_i16() ? KF_BT_I16 : KF_BT_FP32);   /* AVX2 without AVX-512: int16 pairs */
#if defined(__x86_64__)
    __builtin_cpu_init();
    int amx_cpu = __builtin_cpu_supports("amx-tile") && __builtin_cpu_supports("amx-bf16") &&
                  __builtin_cpu_supports("avx512bf16") && __builtin_cpu_supports("avx512bw");
    unsigned long mask = 0;
    int held = syscall(SYS_arch_prctl, 0x1022, &mask) == 0 && (mask & (1ul << 18));
#else
    int amx_cpu = 0, held = 0;
    (void)amx_cpu;
#endif
    kf_bt_point nb[64];
    int n_amx = 0;
    if (!held) {   /* not asked for yet in this process: not offered */
        KF_CHECK(!kf_bt_emit_c.offerable(&p));
        int n = kf_bt_neighbours(&q, &l.r, nb, 64);
        for (int i = 0; i < n; i++) n_amx += nb[i].precision == KF_BT_AMX_BF16;
        KF_CHECK_INT(n_amx, 0);
    }
#if defined(__x86_64__)
    int granted = amx_cpu && syscall(SYS_arch_prctl, 0x1023, 18) == 0;
#else
    int granted = 0;
#endif
    KF_CHECK_INT(kf_bt_emit_c.offerable(&p), granted);
    int n = kf_bt_neighbours(&q, &l.r, nb, 64);
    n_amx = 0;
    for (int i = 0; i < n; i++) {
        if (nb[i].precision != KF_BT_AMX_BF16) continue;
        n_amx++;
        KF_CHECK_INT(nb[i].knob[KC_MR], 32);
        KF_CHECK_INT(nb[i].knob[KC_NR], 32);
        KF_CHECK_INT(nb[i].knob[KC_KC] % 32, 0);
        /* sized from L2 (kf_bt_cpu_amx_kc: a thread's B panels and two
           of A, KC deep, in half of it), an item's MC rows of A (a
           multiple of 32) in half of it */
        long l2 = sysconf(_SC_LEVEL2_CACHE_SIZE) > 0 ? sysconf(_SC_LEVEL2_CACHE_SIZE) : 1 << 20;
        KF_CHECK_INT(nb[i].knob[KC_KC], kf_bt_cpu_amx_kc(KF_BT_AMX_BF16, l2));
        if (l2 >= 64 * 1024)
            KF_CHECK_MSG(2L * nb[i].knob[KC_MC] * nb[i].knob[KC_KC] <= l2 / 2, "mc %d kc %d", nb[i].knob[KC_MC],
                         nb[i].knob[KC_KC]);
        KF_CHECK_INT(nb[i].knob[KC_MC] % 32, 0);
        KF_CHECK(nb[i].knob[KC_MC] >= 32);
        KF_CHECK(kf_bt_emit_c.check(&nb[i], &err) == 0);
        /* the cost model ranks it above the vector kernel it came from */
        kf_bt_gemm_work w = {127, 333, 2, 0};
        KF_CHECK(kf_bt_emit_c.gemm_eff(&nb[i], &w, 2) > kf_bt_emit_c.gemm_eff(&q, &w, 2));
    }
    KF_CHECK_INT(n_amx, granted ? 1 : 0);
    int n_x3 = 0, n_x2 = 0, n_c = 0;   /* and bf16c, 2xbf16, 3xbf16 beside it, for where bf16 misses the tolerance */
    double eff_amx[4] = {0, 0, 0, 0};
    for (int i = 0; i < n; i++) {
        if (nb[i].knob[KC_MR] != 32) continue;
        kf_bt_gemm_work w = {127, 333, 2, 0};
        n_x3 += nb[i].precision == KF_BT_AMX_BF16X3;
        n_x2 += nb[i].precision == KF_BT_AMX_BF16X2;
        if (kf_bt_precision_amx(nb[i].precision)) {   /* each at its own depth block: the low parts take L2 */
            long l2 = sysconf(_SC_LEVEL2_CACHE_SIZE) > 0 ? sysconf(_SC_LEVEL2_CACHE_SIZE) : 1 << 20;
            KF_CHECK_INT(nb[i].knob[KC_KC], kf_bt_cpu_amx_kc(nb[i].precision, l2));
        }
        n_c += nb[i].precision == KF_BT_AMX_BF16C;
        int k = nb[i].precision == KF_BT_AMX_BF16 ? 0 : nb[i].precision == KF_BT_AMX_BF16C ? 1
              : nb[i].precision == KF_BT_AMX_BF16X2 ? 2 : nb[i].precision == KF_BT_AMX_BF16X3 ? 3 : -1;
        if (k >= 0) eff_amx[k] = kf_bt_emit_c.gemm_eff(&nb[i], &w, 2);
    }
    KF_CHECK_INT(n_x3, granted ? 1 : 0);
    KF_CHECK_INT(n_x2, granted ? 1 : 0);
    KF_CHECK_INT(n_c, granted ? 1 : 0);
    if (granted)   /* ranked bf16, bf16c, 2xbf16, 3xbf16: a failed bf16 is followed by bf16c or 2xbf16 */
        KF_CHECK_MSG(eff_amx[0] > eff_amx[1] && eff_amx[1] > eff_amx[2] && eff_amx[2] > eff_amx[3], "%g %g %g %g",
                     eff_amx[0], eff_amx[1], eff_amx[2], eff_amx[3]);
    {   /* never where a GEMM has an odd K (the generator would refuse it) */
        loaded odd;
        load(&odd, "problems/level1/08_Matmul_with_irregular_shapes.json", "small");   /* K = 93 */
        kf_bt_point q8;
        kf_bt_point_default(&kf_bt_emit_c, "cpu-simd", &odd.r, NULL, &q8);
        int n8 = kf_bt_neighbours(&q8, &odd.r, nb, 64), x3_8 = 0, amx_8 = 0;
        for (int i = 0; i < n8; i++) {
            x3_8 += kf_bt_precision_amx_split(nb[i].precision);
            amx_8 += nb[i].precision == KF_BT_AMX_BF16;
        }
        KF_CHECK_INT(x3_8, 0);
        KF_CHECK_INT(amx_8, granted ? 1 : 0);
        /* asked for anyway, the generator refuses it in one line */
        kf_bt_point q8x = q8;
        q8x.precision = KF_BT_AMX_BF16X3;
        q8x.knob[KC_MR] = q8x.knob[KC_NR] = 32;
        kf_bt_plan plan8;
        KF_CHECK_MSG(kf_bt_plan_build(&odd.r, KF_BT_FUSE_ROWS, &plan8, &err) == 0, "%s", err.msg);
        kf_candidate *c8 = NULL;
        char *label8 = NULL;
        KF_CHECK(kf_bt_gen_cpu(&plan8, &q8x, "cpu-simd", NULL, &c8, &label8, &err) != 0);
        KF_CHECK_CONTAINS(err.msg, "precision 6 (3xbf16 on AMX) needs an even K in every GEMM");
        if (c8) kf_candidate_free(c8);
        free(label8);
        c8 = NULL;
        label8 = NULL;
        q8x.precision = KF_BT_AMX_BF16X2;
        KF_CHECK(kf_bt_gen_cpu(&plan8, &q8x, "cpu-simd", NULL, &c8, &label8, &err) != 0);
        KF_CHECK_CONTAINS(err.msg, "precision 7 (2xbf16 on AMX) needs an even K in every GEMM");
        if (c8) kf_candidate_free(c8);
        free(label8);
        kf_bt_plan_free(&plan8);
        unload(&odd);
    }
    if (granted) {   /* bf16c never offered where the GEMM would run in row panels (99's softmax fused) */
        loaded l99;
        load(&l99, "problems/level2/99_Matmul_GELU_Softmax.json", "small");
        kf_bt_point c1 = p;
        c1.precision = KF_BT_AMX_BF16C;
        c1.fusion = KF_BT_FUSE_EPILOGUE;
        for (int from = 0; from < 2; from++) {   /* from bf16c fused at the epilogue; from bf16 in row panels */
            kf_bt_point f = c1;
            if (from) { f.precision = KF_BT_AMX_BF16; f.fusion = KF_BT_FUSE_ROWS; }
            int n99 = kf_bt_neighbours(&f, &l99.r, nb, 64), c_rows = 0, c_epi = 0;
            for (int i = 0; i < n99; i++) {
                c_rows += nb[i].precision == KF_BT_AMX_BF16C && nb[i].fusion == KF_BT_FUSE_ROWS;
                c_epi += nb[i].precision == KF_BT_AMX_BF16C && nb[i].fusion != KF_BT_FUSE_ROWS;
            }
            KF_CHECK_INT(c_rows, 0);
            if (!from) KF_CHECK(c_epi > 0);   /* its own tile and block neighbours */
        }
        unload(&l99);
    }
    if (granted) {   /* and from an AMX point, back to the vector kernels (fp32, bf16) and to 2x, 3xbf16 */
        kf_bt_point a0 = p;
        n = kf_bt_neighbours(&a0, &l.r, nb, 64);
        int fp = 0, x3 = 0, x2 = 0;
        for (int i = 0; i < n; i++) {
            fp += nb[i].precision == KF_BT_FP32 && nb[i].knob[KC_MR] != 32;
            x3 += nb[i].precision == KF_BT_AMX_BF16X3 && nb[i].knob[KC_MR] == p.knob[KC_MR] &&
                  nb[i].knob[KC_KC] == p.knob[KC_KC] && nb[i].knob[KC_NC] == p.knob[KC_NC];
            x2 += nb[i].precision == KF_BT_AMX_BF16X2 && nb[i].knob[KC_MR] == p.knob[KC_MR] &&
                  nb[i].knob[KC_KC] == p.knob[KC_KC] && nb[i].knob[KC_NC] == p.knob[KC_NC];
        }
        KF_CHECK_INT(fp, 1);
        KF_CHECK_INT(x3, 1);
        KF_CHECK_INT(x2, 1);
    }
    unload(&l);
}

/* The cost model's cache terms follow the blocking rules: the default
 * point derived from this host's caches pays no cache penalty, a KC that
 * overflows L1 does (here the model once recommended shrinking the derived
 * KC for an L1 it took to be 32 KiB). */
KF_TEST(cpu_model_agrees_with_derived_blocking)
{
    loaded l;
    load(&l, "problems/level2/12_Gemm_Multiply_LeakyReLU.json", "cpu");
    kf_device_info dev;
    memset(&dev, 0, sizeof dev);
    dev.struct_size = sizeof dev;
    long c1 = sysconf(_SC_LEVEL1_DCACHE_SIZE), c2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
    dev.cache_l1d_bytes = c1 > 0 ? c1 : 32768;
    dev.cache_l2_bytes = c2 > 0 ? c2 : 1 << 20;
    dev.cache_l3_bytes = 8 << 20;
    dev.max_work_group = 2;
    kf_bt_point p, q;
    kf_bt_point_default(&kf_bt_emit_c, "cpu-simd", &l.r, &dev, &p);
    kf_bt_gemm_work w = {512, 2048, 2, 0};
    double e0 = kf_bt_emit_c.gemm_eff(&p, &w, 2);
    q = p;
    q.knob[KC_KC] = 4 * p.knob[KC_KC];
    q.knob[KC_NC] = p.knob[KC_NC] / 4 / 32 * 32;   /* same L2 block, L1 overflows */
    double e1 = kf_bt_emit_c.gemm_eff(&q, &w, 2);
    KF_CHECK_MSG(e1 < e0, "kc %d: %g, kc %d: %g", p.knob[KC_KC], e0, q.knob[KC_KC], e1);
    q = p;
    q.knob[KC_KC] = p.knob[KC_KC] / 2;   /* fits, but no better modelled */
    KF_CHECK_MSG(kf_bt_emit_c.gemm_eff(&q, &w, 2) <= e0, "half KC modelled faster than the derived one");
    unload(&l);
}

/* Row panels (fusion ROWS) are MC x N items: a neighbour that switches a
 * column-order point (MC 516, all of M) to row panels takes the rows
 * order's MC, so that the threads share the panels, and the cost model
 * counts MC x N items there (it had counted MC x NC blocks, taking one
 * 516-row panel for four items).  99 at the cpu preset: 512 x 2048 ->
 * 2048, GELU, softmax over the rows. */
KF_TEST(cpu_row_panel_neighbour_splits_the_rows)
{
    loaded l;
    load(&l, "problems/level2/99_Matmul_GELU_Softmax.json", "cpu");
    kf_device_info dev;
    memset(&dev, 0, sizeof dev);
    dev.struct_size = sizeof dev;
    long c1 = sysconf(_SC_LEVEL1_DCACHE_SIZE), c2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
    dev.cache_l1d_bytes = c1 > 0 ? c1 : 32768;
    dev.cache_l2_bytes = c2 > 0 ? c2 : 1 << 20;
    dev.cache_l3_bytes = 8 << 20;
    dev.max_work_group = 2;
    kf_bt_point p, nb[64];
    kf_bt_point_default(&kf_bt_emit_c, "cpu-simd", &l.r, &dev, &p);
    KF_CHECK_MSG(p.fusion == KF_BT_FUSE_EPILOGUE && p.knob[KC_LOOP_ORDER] == 1 && p.knob[KC_MC] >= 512,
                 "default: fusion %d, order %d, mc %d", p.fusion, p.knob[KC_LOOP_ORDER], p.knob[KC_MC]);
    int n = kf_bt_neighbours(&p, &l.r, nb, 64), found = 0;
    long nproc = sysconf(_SC_NPROCESSORS_ONLN);
    int64_t want = nproc > 1 ? 2 : 1;   /* row panels for at least two threads where there are two */
    for (int i = 0; i < n; i++) {
        if (nb[i].fusion != KF_BT_FUSE_ROWS || nb[i].precision != p.precision) continue;
        found = 1;
        KF_CHECK_MSG((512 + nb[i].knob[KC_MC] - 1) / nb[i].knob[KC_MC] >= want, "rows neighbour keeps mc %d",
                     nb[i].knob[KC_MC]);
        KF_CHECK_INT(nb[i].knob[KC_KC], p.knob[KC_KC]);   /* MC only */
        kf_bt_gemm_work w = {512, 2048, 2, 1};
        kf_bt_point one = nb[i];
        one.knob[KC_MC] = 516;   /* one panel of all the rows */
        kf_bt_point two = nb[i];
        two.knob[KC_MC] = 264;   /* two panels */
        double e1 = kf_bt_emit_c.gemm_eff(&one, &w, 2), e2 = kf_bt_emit_c.gemm_eff(&two, &w, 2);
        KF_CHECK_MSG(e1 < 0.6 * e2, "one row panel on two threads modelled at %g, two panels at %g", e1, e2);
    }
    KF_CHECK_MSG(found, "no row-panel neighbour among %d", n);
    unload(&l);
}

/* Skinny GEMMs (56, 59, 68 at the cpu preset: 64 or 128 rows against 64-128
 * MiB of W) default to the skinny order (loop_order 2: x packed once, W
 * streamed once, a contiguous slab a thread) with the row op as its own
 * pass; 12 and 14 at the cpu preset (512 rows) and every small preset keep
 * the other orders.  KC puts the KC x NR micro-panel of W in half of L1. */
KF_TEST(cpu_skinny_gemms_default_to_the_skinny_order)
{
    kf_device_info dev;
    memset(&dev, 0, sizeof dev);
    dev.struct_size = sizeof dev;
    dev.cache_l1d_bytes = 48 << 10;
    dev.cache_l2_bytes = 2 << 20;
    dev.cache_l3_bytes = 240 << 20;
    dev.max_work_group = 2;
    static const char *const skinny[] = {"problems/level2/56_Matmul_Sigmoid_Sum.json",
                                         "problems/level2/59_Matmul_Swish_Scaling.json",
                                         "problems/level2/68_Matmul_Min_Subtract.json"};
    for (size_t i = 0; i < sizeof skinny / sizeof skinny[0]; i++) {
        loaded l;
        load(&l, skinny[i], "cpu");
        kf_bt_point p;
        kf_bt_point_default(&kf_bt_emit_c, "cpu-simd", &l.r, &dev, &p);
        KF_CHECK_MSG(p.knob[KC_LOOP_ORDER] == 2 && p.fusion == KF_BT_FUSE_EPILOGUE, "%s: loop_order %d fusion %d",
                     skinny[i], p.knob[KC_LOOP_ORDER], p.fusion);
        KF_CHECK_MSG(p.knob[KC_KC] == (24 << 10) / (p.knob[KC_NR] * 4) / 8 * 8, "%s: kc %d nr %d", skinny[i],
                     p.knob[KC_KC], p.knob[KC_NR]);
        KF_CHECK_MSG(64 % p.knob[KC_MR] == 0 || !__builtin_cpu_supports("avx512f"), "%s: mr %d pads 64 rows",
                     skinny[i], p.knob[KC_MR]);
        /* the other two orders are neighbours, and no NC neighbour (one panel at a time) */
        kf_bt_point nb[64];
        int n = kf_bt_neighbours(&p, &l.r, nb, 64), o0 = 0, o1 = 0, nc = 0;
        for (int k = 0; k < n; k++) {
            o0 |= nb[k].knob[KC_LOOP_ORDER] == 0;
            o1 |= nb[k].knob[KC_LOOP_ORDER] == 1;
            nc |= nb[k].knob[KC_NC] != p.knob[KC_NC];
        }
        KF_CHECK_MSG(o0 && o1 && !nc, "%s: neighbours: order 0 %d, order 1 %d, an NC step %d", skinny[i], o0, o1, nc);
        char lb[256];
        KF_CHECK_CONTAINS(kf_bt_point_label(&p, lb, sizeof lb), " skinny");
        unload(&l);
        load(&l, skinny[i], "small");
        kf_bt_point_default(&kf_bt_emit_c, "cpu-simd", &l.r, &dev, &p);
        KF_CHECK_MSG(p.knob[KC_LOOP_ORDER] != 2, "%s small: loop_order 2", skinny[i]);
        unload(&l);
    }
    static const char *const wide[] = {"problems/level2/12_Gemm_Multiply_LeakyReLU.json",
                                       "problems/level2/14_Gemm_Divide_Sum_Scaling.json"};
    for (size_t i = 0; i < sizeof wide / sizeof wide[0]; i++) {
        loaded l;
        load(&l, wide[i], "cpu");
        kf_bt_point p;
        kf_bt_point_default(&kf_bt_emit_c, "cpu-simd", &l.r, &dev, &p);
        KF_CHECK_MSG(p.knob[KC_LOOP_ORDER] != 2, "%s: loop_order 2 for 512 rows", wide[i]);
        unload(&l);
    }
    kf_bt_cpu_blocking b;
    kf_bt_cpu_derive_blocking(48 << 10, 2 << 20, 240 << 20, 8, 32, 64, 8192, 0, 4, 2, KF_BT_CPU_ORDER_SKINNY, &b);
    KF_CHECK_MSG(b.kc == 192 && b.mc == 64 && b.nc == 32, "mc %d nc %d kc %d", b.mc, b.nc, b.kc);
}

/* The skinny order verifies on shapes with edges (127 rows, 333 columns,
 * a KC that does not divide K, depth blocks a thread must keep together),
 * B as W^T (nn.Linear) and as K x N, a row op after it, one thread. */
KF_TEST_TIMEOUT(skinny_points_pass, 200.0)
{
    static const char *const probs[] = {"problems/level2/59_Matmul_Swish_Scaling.json",
                                        "problems/level2/45_Gemm_Sigmoid_LogSumExp.json",
                                        "problems/level1/02_Standard_matrix_multiplication.json",
                                        "problems/level1/08_Matmul_with_irregular_shapes.json"};
    static const char *const pts[] = {"{\"fusion\":1,\"loop_order\":2,\"mr\":8,\"nr\":32,\"kc\":64}",
                                      "{\"fusion\":2,\"loop_order\":2,\"mr\":12,\"nr\":16,\"kc\":100,\"threads\":1}"};
    kf_error err = {0};
    kf_registry *reg;
    kf_plugin *pl;
    kf_agent *a = open_cpu(&reg, &pl);
    for (size_t i = 0; i < sizeof probs / sizeof probs[0]; i++) {
        loaded l;
        load(&l, probs[i], "small");
        for (size_t j = 0; j < sizeof pts / sizeof pts[0]; j++) {
            kf_gen_result g = generate_at(a, &l.r, pts[j]);
            KF_CHECK_MSG(g.cand != NULL, "%s %s: %s", probs[i], pts[j], g.error ? g.error : "?");
            if (!g.cand) continue;
            KF_CHECK_CONTAINS(g.cand->sources[0].text, "skinny: A packed once and kept in cache, B streamed once");
            kf_eval_opts o;
            kf_eval_opts_default(&o);
            kf_eval_result res = {0};
            KF_CHECK(kf_evaluate(pl, &l.r, g.cand, &o, 0, &res, &err) == 0);
            KF_CHECK_MSG(res.verdict == KF_PASS, "%s at %s [%s]: %s\n%.1500s", probs[i], pts[j], g.label,
                         res.summary ? res.summary : "", res.diagnostics ? res.diagnostics : "");
            kf_eval_result_free(&res);
            kf_gen_result_free(&g);
        }
        unload(&l);
    }
    kf_agent_close(a);
    kf_registry_close(reg);
}

/* Problem 14 (sum of an affine map of a GEMM's rows): the C candidate is
 * the GEMV over W's column sums (no GEMM library, fp32 unit), the
 * baseline is not; 56 (a sigmoid before the sum) is not affine, 12 has no
 * sum.  (level2_fused_and_baseline_pass verifies 14's candidate.) */
KF_TEST(gemm_sum_rewrite_for_c)
{
    loaded l;
    load(&l, "problems/level2/14_Gemm_Divide_Sum_Scaling.json", "small");
    kf_error err = {0};
    kf_bt_plan plan;
    KF_CHECK(kf_bt_plan_build(&l.r, KF_BT_FUSE_EPILOGUE, &plan, &err) == 0);
    double ca = 0, cc = 1;
    int ri = kf_bt_gemm_sum_match(&plan, 0, &ca, &cc);
    KF_CHECK_MSG(ri > 0 && plan.groups[ri].kind == KF_BT_ROW, "row group %d", ri);
    KF_CHECK_NEAR(ca, 0.5, 0);   /* x / 2 */
    KF_CHECK_NEAR(cc, 0.0, 0);
    kf_bt_plan_free(&plan);
    kf_agent *a = kf_builtin_agent_open(NULL, &err);
    KF_CHECK(a != NULL);
    char *label = NULL;
    kf_candidate *c = generate(a, &l.r, KF_GEN_FIRST, &label);
    KF_CHECK_CONTAINS(c->sources[0].text, "is a GEMV with the column sums of W");
    KF_CHECK(strstr(c->sources[0].text, "GEMM library") == NULL);
    KF_CHECK(strstr(c->sources[0].text, "KF_CPU_USES") == NULL);
    KF_CHECK_CONTAINS(label, "GEMM-sum rewrite");
    kf_candidate_free(c);
    free(label);
    c = generate(a, &l.r, KF_GEN_BASELINE, NULL);
    KF_CHECK(strstr(c->sources[0].text, "column sums") == NULL);
    kf_candidate_free(c);
    kf_agent_close(a);
    unload(&l);
    static const char *const no[] = {"problems/level2/56_Matmul_Sigmoid_Sum.json",
                                     "problems/level2/12_Gemm_Multiply_LeakyReLU.json"};
    for (size_t i = 0; i < 2; i++) {
        load(&l, no[i], "small");
        KF_CHECK(kf_bt_plan_build(&l.r, KF_BT_FUSE_EPILOGUE, &plan, &err) == 0);
        for (int g = 0; g < plan.n_groups; g++)
            KF_CHECK_MSG(kf_bt_gemm_sum_match(&plan, g, &ca, &cc) < 0, "%s group %d matched", no[i], g);
        kf_bt_plan_free(&plan);
        unload(&l);
    }
}

/* Tiny problems start on one thread (a team's wake-up costs more than the
 * work); larger ones on all; both are neighbours of each other. */
KF_TEST(cpu_tiny_problems_default_to_one_thread)
{
    loaded l;
    load(&l, "problems/level1/23_Softmax.json", "small");
    kf_bt_point p;
    kf_bt_point_default(&kf_bt_emit_c, "cpu-simd", &l.r, NULL, &p);
    KF_CHECK_INT(p.knob[KC_THREADS], 0);   /* 338 KB: not tiny */
    double fl = l.r.flops, mb = l.r.min_bytes;
    l.r.flops = 4096;
    l.r.min_bytes = 64 * 1024;
    kf_bt_point_default(&kf_bt_emit_c, "cpu-simd", &l.r, NULL, &p);
    KF_CHECK_INT(p.knob[KC_THREADS], 1);
    kf_bt_point nb[64];
    int n = kf_bt_neighbours(&p, &l.r, nb, 64), all = 0;
    for (int i = 0; i < n; i++) all |= nb[i].knob[KC_THREADS] == 0;
    KF_CHECK_MSG(all, "no all-threads neighbour among %d", n);
    /* the column order with the epilogue fused (no row panels) has no MC
       neighbour: MC does not change its code; the block order has */
    p.knob[KC_LOOP_ORDER] = 1;
    p.fusion = KF_BT_FUSE_EPILOGUE;
    n = kf_bt_neighbours(&p, &l.r, nb, 64);
    int mc = 0;
    for (int i = 0; i < n; i++) mc |= nb[i].knob[KC_MC] != p.knob[KC_MC];
    KF_CHECK_MSG(!mc, "an MC neighbour of a column-order point");
    p.knob[KC_LOOP_ORDER] = 0;
    n = kf_bt_neighbours(&p, &l.r, nb, 64);
    for (int i = 0; i < n; i++) mc |= nb[i].knob[KC_MC] != p.knob[KC_MC];
    KF_CHECK_MSG(mc, "no MC neighbour of a block-order point");
    l.r.flops = fl;
    l.r.min_bytes = mb;
    unload(&l);
}

KF_TEST(point_json_roundtrip)
{
    loaded l;
    load(&l, "problems/level2/09_Matmul_Subtract_Multiply_ReLU.json", "small");
    kf_bt_point p, q;
    kf_bt_point_default(&kf_bt_emit_c, "cpu-simd", &l.r, NULL, &p);
    p.knob[KC_MC] = 144; p.knob[KC_KC] = 192; p.knob[KC_UNROLL] = 2; p.fusion = KF_BT_FUSE_EPILOGUE; p.knob[KC_LOOP_ORDER] = 1;
    char *js = kf_bt_point_json(&p);
    KF_CHECK_CONTAINS(js, "\"mc\":144");
    kf_error err = {0};
    KF_CHECK_MSG(kf_bt_point_from_json(js, &kf_bt_emit_c, "cpu-simd", &l.r, NULL, &q, &err) == 0, "%s", err.msg);
    KF_CHECK(kf_bt_point_equal(&p, &q));
    free(js);
    KF_CHECK(kf_bt_point_from_json("{\"mq\":3}", &kf_bt_emit_c, "cpu-simd", &l.r, NULL, &q, &err) != 0);
    KF_CHECK_CONTAINS(err.msg, "unknown field \"mq\"");
    KF_CHECK(kf_bt_point_from_json("{\"kc\":0}", &kf_bt_emit_c, "cpu-simd", &l.r, NULL, &q, &err) != 0);
    KF_CHECK_CONTAINS(err.msg, "\"kc\" = 0 is out of range");
    KF_CHECK(kf_bt_point_from_json("{\"backend\":\"opencl\"}", &kf_bt_emit_c, "cpu-simd", &l.r, NULL, &q, &err) != 0);
    char lb[128];
    kf_bt_point_default(&kf_bt_emit_c, "cpu-simd", &l.r, NULL, &p);   /* 127 rows: column-block order */
    kf_bt_point_label(&p, lb, sizeof lb);
    KF_CHECK_CONTAINS(lb, "epilogue-fused");
    KF_CHECK_CONTAINS(lb, "colmajor");
    unload(&l);
    load(&l, "problems/level2/99_Matmul_GELU_Softmax.json", "cpu");   /* 512 rows, but B of 16 MiB: no row panels */
    kf_bt_point_default(&kf_bt_emit_c, "cpu-simd", &l.r, NULL, &p);
    kf_bt_point_label(&p, lb, sizeof lb);
    KF_CHECK_CONTAINS(lb, "epilogue-fused");
    KF_CHECK_CONTAINS(lb, "colmajor");
    unload(&l);
}

/* A profile of a GEMM-heavy problem at a low roofline fraction. */
static void fake_eval(const kf_resolved *r, double t, double frac, kf_eval_result *e)
{
    memset(e, 0, sizeof *e);
    e->verdict = KF_PASS;
    e->profiled = 1;
    e->timing.median_s = t;
    e->roofline.flops = r->flops;
    e->roofline.min_bytes = r->min_bytes;
    e->roofline.peak_flops = 4e11;
    e->roofline.peak_bytes_per_s = 2e10;
    e->roofline.floor_s = r->flops / 4e11;
    e->roofline.fraction = frac;
    e->roofline.achieved_flops = r->flops / t;
}

/* The analysis of cur on a memory-bound problem measured at 40% of its
 * floor at fake_eval's 20 GB/s. */
static int analyze_bandwidth_bound(kf_bt_history *h, const kf_resolved *r, const kf_bt_point *cur, kf_analysis *an,
                                   kf_error *err)
{
    kf_eval_result e;
    fake_eval(r, r->min_bytes / 2e10 / 0.4, 0.4, &e);
    e.roofline.floor_s = r->min_bytes / 2e10;
    return kf_bt_analyze(h, r, cur, &e, 0, 0.8, an, err);
}

KF_TEST(analyzer_names_compute_and_recommends)
{
    loaded l;
    load(&l, "problems/level2/09_Matmul_Subtract_Multiply_ReLU.json", "cpu");
    kf_bt_history h = {0};
    kf_bt_point cur;
    kf_bt_point_default(&kf_bt_emit_c, "cpu-simd", &l.r, NULL, &cur);
    kf_eval_result e;
    double floor_s = l.r.flops / 4e11;
    fake_eval(&l.r, floor_s / 0.3, 0.3, &e);
    kf_analysis an;
    kf_error err = {0};
    KF_CHECK_MSG(kf_bt_analyze(&h, &l.r, &cur, &e, 0, 0.8, &an, &err) == 0, "%s", err.msg);
    KF_CHECK_STR(an.bottleneck, "compute");
    KF_CHECK_MSG(an.n_recs >= 1 && an.n_recs <= 4, "n_recs = %d", an.n_recs);
    KF_CHECK_INT(an.stop, 0);
    KF_CHECK(an.missed == NULL);
    for (int i = 0; i < an.n_recs; i++) {
        KF_CHECK_MSG(an.recs[i].expected_gain > 1.0, "rec %d gain %g", i, an.recs[i].expected_gain);
        if (i) KF_CHECK(an.recs[i].expected_gain <= an.recs[i - 1].expected_gain);
        kf_bt_point q;
        KF_CHECK(kf_bt_point_from_json(an.recs[i].params, &kf_bt_emit_c, "cpu-simd", &l.r, NULL, &q, &err) == 0);
        KF_CHECK(!kf_bt_point_equal(&q, &cur));
        KF_CHECK(!kf_bt_history_has(&h, &q));
        KF_CHECK_CONTAINS(an.recs[i].why, "compute-bound at 30%");
    }
    /* the same inputs give the same analysis (determinism) */
    kf_bt_history h2 = {0};
    kf_analysis an2;
    KF_CHECK(kf_bt_analyze(&h2, &l.r, &cur, &e, 0, 0.8, &an2, &err) == 0);
    KF_CHECK_INT(an2.n_recs, an.n_recs);
    for (int i = 0; i < an.n_recs; i++) KF_CHECK_STR(an2.recs[i].params, an.recs[i].params);
    kf_analysis_free(&an2);
    kf_bt_history_free(&h2);

    /* the first recommendation is tried and brings nothing: missed */
    kf_bt_point tried;
    kf_bt_point_from_json(an.recs[0].params, &kf_bt_emit_c, "cpu-simd", &l.r, NULL, &tried, &err);
    kf_bt_history_add(&h, &tried, e.timing.median_s * 1.2);
    kf_analysis an3;
    KF_CHECK(kf_bt_analyze(&h, &l.r, &cur, &e, e.timing.median_s, 0.8, &an3, &err) == 0);
    KF_CHECK_MSG(an3.missed != NULL, "no missed note");
    KF_CHECK_CONTAINS(an3.missed, "got 1.00x");
    KF_CHECK_CONTAINS(an3.missed, "ran slower");
    for (int i = 0; i < an3.n_recs; i++) {
        kf_bt_point q;
        kf_bt_point_from_json(an3.recs[i].params, &kf_bt_emit_c, "cpu-simd", &l.r, NULL, &q, &err);
        KF_CHECK(!kf_bt_point_equal(&q, &tried));
    }
    kf_analysis_free(&an3);
    kf_analysis_free(&an);
    kf_bt_history_free(&h);
    unload(&l);
}

/* The cost model rates a precision change at the new unit's peak
 * (kf_roofline.unit_peak_flops, the C emitter's unit()): from an fp32
 * point of a GEMM-bound problem, bf16 on vdpbf16ps is the first
 * recommendation, near twice as fast, on a CPU whose probe measured it at
 * twice the FMA peak (the Zen 4 VM), and no recommendation at all where it
 * measured half (the 16-core Xeon host); before, every point was rated at
 * the current unit's peak, bf16 the same as fp32 on both. */
KF_TEST(analyzer_rates_precision_at_its_units_peak)
{
    loaded l;
    load(&l, "problems/level2/09_Matmul_Subtract_Multiply_ReLU.json", "cpu");
    kf_bt_point cur, bf;
    kf_bt_point_default(&kf_bt_emit_c, "cpu-simd", &l.r, NULL, &cur);
    KF_CHECK_INT(cur.precision, KF_BT_FP32);
    bf = cur;
    bf.precision = KF_BT_BF16;
    if (!kf_bt_emit_c.offerable(&bf)) {   /* no AVX512_BF16 here: the neighbour is never offered */
        printf("# skipped: this CPU has no AVX512_BF16\n");
        unload(&l);
        return;
    }
    for (int fast = 1; fast >= 0; fast--) {
        kf_bt_history h = {0};
        kf_eval_result e;
        fake_eval(&l.r, l.r.flops / 4e11 / 0.8, 0.8, &e);
        e.roofline.unit_peak_flops[0] = 4e11;
        e.roofline.unit_peak_flops[1] = fast ? 8e11 : 2e11;
        kf_analysis an;
        kf_error err = {0};
        KF_CHECK_MSG(kf_bt_analyze(&h, &l.r, &cur, &e, 0, 0.9, &an, &err) == 0, "%s", err.msg);
        int at = -1;
        for (int i = 0; i < an.n_recs; i++)
            if (strstr(an.recs[i].params, "\"precision\":3,")) at = i;
        if (fast) {
            KF_CHECK_MSG(at == 0, "bf16 is recommendation %d of %d", at, an.n_recs);
            KF_CHECK_MSG(at < 0 || (an.recs[at].expected_gain > 1.7 && an.recs[at].expected_gain < 2.1),
                         "bf16's expected gain %g", at < 0 ? 0 : an.recs[at].expected_gain);
            KF_CHECK_CONTAINS(at < 0 ? "" : an.recs[at].what, "bf16");
        } else {
            KF_CHECK_MSG(at < 0, "bf16 recommended (gain %g) at half the FMA peak", an.recs[at].expected_gain);
        }
        kf_analysis_free(&an);
        kf_bt_history_free(&h);
    }
    unload(&l);
}

/* A matrix-vector product (04 at the cpu preset: 1024 x 32768, bound by
 * reading A): the tile knobs do not change its kernel, so the analyzer
 * recommends no change of them; it recommends the one-thread variant, so
 * that one thread is measured against all. */
KF_TEST(cpu_gemv_search_measures_one_thread)
{
    loaded l;
    load(&l, "problems/level1/04_Matrix_vector_multiplication.json", "cpu");
    kf_bt_history h = {0};
    kf_bt_point cur;
    kf_bt_point_default(&kf_bt_emit_c, "cpu-simd", &l.r, NULL, &cur);
    KF_CHECK_INT(cur.knob[KC_THREADS], 0);   /* 128 MiB: not tiny */
    kf_analysis an;
    kf_error err = {0};
    KF_CHECK_MSG(analyze_bandwidth_bound(&h, &l.r, &cur, &an, &err) == 0, "%s", err.msg);
    KF_CHECK_MSG(an.n_recs >= 1, "no recommendation");
    int one = 0;
    for (int i = 0; i < an.n_recs; i++) {
        kf_bt_point q;
        KF_CHECK(kf_bt_point_from_json(an.recs[i].params, &kf_bt_emit_c, "cpu-simd", &l.r, NULL, &q, &err) == 0);
        one |= q.knob[KC_THREADS] == 1;
        KF_CHECK_MSG(q.knob[KC_MR] == cur.knob[KC_MR] && q.knob[KC_NR] == cur.knob[KC_NR] &&
                     q.knob[KC_MC] == cur.knob[KC_MC] && q.knob[KC_KC] == cur.knob[KC_KC],
                     "rec %d changes a tile knob: %s", i, an.recs[i].what);
    }
    KF_CHECK_MSG(one, "no one-thread recommendation among %d (first: %s)", an.n_recs, an.recs[0].what);
    kf_analysis_free(&an);
    kf_bt_history_free(&h);
    unload(&l);
}

/* Streaming stores (KC_STREAM) are the default point's where a problem
 * without a GEMM has outputs that leave the cache (19 ReLU at the cpu
 * preset: 64 MiB, more than the L2 of every thread of any machine we run
 * on), and from an unstreamed point there the analysis's first
 * recommendation; never at the small preset (0.2 MiB out) nor for a GEMM's
 * epilogue. */
KF_TEST(cpu_stream_recommended_where_outputs_leave_cache)
{
    for (int big = 0; big < 2; big++) {
        loaded l;
        load(&l, "problems/level1/19_ReLU.json", big ? "cpu" : "small");
        kf_bt_history h = {0};
        kf_bt_point cur;
        kf_bt_point_default(&kf_bt_emit_c, "cpu-simd", &l.r, NULL, &cur);
        KF_CHECK_INT(cur.knob[KC_STREAM], big);
        cur.knob[KC_STREAM] = 0;
        kf_analysis an;
        kf_error err = {0};
        KF_CHECK_MSG(analyze_bandwidth_bound(&h, &l.r, &cur, &an, &err) == 0, "%s", err.msg);
        int streams = 0, first = -1;
        for (int i = 0; i < an.n_recs; i++) {
            kf_bt_point q;
            KF_CHECK(kf_bt_point_from_json(an.recs[i].params, &kf_bt_emit_c, "cpu-simd", &l.r, NULL, &q, &err) == 0);
            if (q.knob[KC_STREAM] && first < 0) first = i;
            streams += q.knob[KC_STREAM];
        }
        if (big) {
            KF_CHECK_MSG(first == 0, "streaming stores are recommendation %d of %d (first: %s)", first, an.n_recs,
                         an.n_recs ? an.recs[0].what : "none");
            KF_CHECK_CONTAINS(an.recs[0].what, "streaming (non-temporal) stores");
        } else {
            KF_CHECK_INT(streams, 0);
        }
        kf_analysis_free(&an);
        kf_bt_history_free(&h);
        unload(&l);
    }
    /* a GEMM's epilogue stores from the C tile and never streams: 09 at the
       cpu preset (4 MiB out) on one thread (more than one L2 of the hosts
       we run on) gets no streaming recommendation */
    loaded l;
    load(&l, "problems/level2/09_Matmul_Subtract_Multiply_ReLU.json", "cpu");
    kf_bt_history h = {0};
    kf_bt_point cur;
    kf_bt_point_default(&kf_bt_emit_c, "cpu-simd", &l.r, NULL, &cur);
    KF_CHECK_INT(cur.knob[KC_STREAM], 0);
    cur.knob[KC_THREADS] = 1;
    kf_eval_result e;
    fake_eval(&l.r, l.r.flops / 1e11 / 0.3, 0.3, &e);
    kf_analysis an;
    kf_error err = {0};
    KF_CHECK_MSG(kf_bt_analyze(&h, &l.r, &cur, &e, 0, 0.8, &an, &err) == 0, "%s", err.msg);
    for (int i = 0; i < an.n_recs; i++) {
        kf_bt_point q;
        KF_CHECK(kf_bt_point_from_json(an.recs[i].params, &kf_bt_emit_c, "cpu-simd", &l.r, NULL, &q, &err) == 0);
        KF_CHECK_MSG(!q.knob[KC_STREAM], "09: recommendation %d streams: %s", i, an.recs[i].what);
    }
    kf_analysis_free(&an);
    kf_bt_history_free(&h);
    unload(&l);
}

/* Stream 2 (GroupNorm's next group read beside the streamed stores) is
 * the default point's on a problem with large GroupNorm groups (35 at the
 * cpu preset), recommended there from streams 0 and 1, and 1 from 2 (the
 * model rates them alike: the two are measured), never where its code
 * would be stream 1's: no GroupNorm (19, 33: stream 1 by default), or
 * outputs too small to stream (35 at the small preset, 0.4 MB: none). */
KF_TEST(cpu_stream_overlap_recommended_for_group_norm)
{
    static const struct { const char *prob, *preset; int want, def; } cases[] = {
        {"problems/level1/35_GroupNorm.json", "cpu", 1, 2},
        {"problems/level1/19_ReLU.json", "cpu", 0, 1},
        {"problems/level1/33_BatchNorm.json", "cpu", 0, 1},
        {"problems/level1/35_GroupNorm.json", "small", 0, 0},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        loaded l;
        load(&l, cases[c].prob, cases[c].preset);
        kf_bt_point def;
        kf_bt_point_default(&kf_bt_emit_c, "cpu-simd", &l.r, NULL, &def);
        KF_CHECK_MSG(def.knob[KC_STREAM] == cases[c].def, "%s (%s): default stream %d, want %d", cases[c].prob,
                     cases[c].preset, def.knob[KC_STREAM], cases[c].def);
        for (int from = 0; from <= 2; from++) {
            kf_bt_history h = {0};
            kf_bt_point cur;
            kf_bt_point_default(&kf_bt_emit_c, "cpu-simd", &l.r, NULL, &cur);
            cur.knob[KC_STREAM] = from;
            kf_analysis an;
            kf_error err = {0};
            KF_CHECK_MSG(analyze_bandwidth_bound(&h, &l.r, &cur, &an, &err) == 0, "%s", err.msg);
            const int to = from == 2 ? 1 : 2;
            int other = -1;
            for (int i = 0; i < an.n_recs; i++) {
                kf_bt_point q;
                KF_CHECK(kf_bt_point_from_json(an.recs[i].params, &kf_bt_emit_c, "cpu-simd", &l.r, NULL, &q, &err) == 0);
                if (q.knob[KC_STREAM] == to && other < 0) other = i;
            }
            if (cases[c].want)
                KF_CHECK_MSG(other >= 0 && strstr(an.recs[other].what, to == 2 ? "GroupNorm's next group"
                                                                                 : "its mean on its own"),
                             "%s: stream %d not recommended from %d (%d recs)", cases[c].prob, to, from, an.n_recs);
            else if (to == 2)
                KF_CHECK_MSG(other < 0, "%s (%s): stream 2 recommended from %d: %s", cases[c].prob, cases[c].preset, from,
                             an.recs[other].what);
            kf_analysis_free(&an);
            kf_bt_history_free(&h);
        }
        unload(&l);
    }
}

/* The streamed loops' prefetch (KC_PREFETCH): each other value is a
 * neighbour only where it changes the code (a streamed map or GroupNorm's
 * next group: 1 drops the L2 lines; a streamed split LayerNorm: 2 adds
 * them; BatchNorm's next channel, unprefetched at 0: 1 and 2), each code once,
 * never without streaming or where nothing streams (a
 * GEMM with its maps in the epilogue); the analyzer offers it just above
 * even (the model rates the values alike) and says what it changes; the
 * generated kernels verify. */
KF_TEST_TIMEOUT(cpu_prefetch_offered_where_it_changes_code, 120.0)
{
    static const struct { const char *prob, *preset; int stream, from, want[3]; const char *want_text; } cases[] = {
        {"problems/level1/40_LayerNorm.json", "cpu", 1, 0, {0, 0, 1}, "kf_prefetch_block_ahead(xr + c0_);"},
        {"problems/level1/40_LayerNorm.json", "cpu", 1, 2, {1, 0, 0}, "kf_prefetch_ahead(xr + c0_);"},   /* and stream 0 at 0 */
        {"problems/level1/26_GELU.json", "cpu", 1, 0, {0, 1, 0}, "kf_prefetch_ahead(V0 + ro0 + c0_);"},
        /* maps alone: 0 and 2 are the same code, offered once */
        {"problems/level1/26_GELU.json", "cpu", 1, 1, {1, 0, 0}, "kf_prefetch_block_ahead(V0 + ro0 + c0_);"},
        {"problems/level1/40_LayerNorm.json", "cpu", 0, 0, {0, 0, 0}, NULL},
        {"problems/level1/19_ReLU.json", "small", 1, 0, {0, 0, 0}, NULL},   /* 0.4 MB: nothing streams */
        {"problems/level1/35_GroupNorm.json", "cpu", 1, 0, {0, 0, 0}, NULL},   /* rows not split, no group carried */
        /* the next group's reads beside the stores (GroupNorm at stream 2): 0 and 2 take
           the L2 lines, 1 the line only; the next channel's (in-channel BatchNorm): 0 none */
        {"problems/level1/35_GroupNorm.json", "cpu", 2, 0, {0, 1, 0}, "if (gnn_) kf_prefetch_ahead(gnn_ + (c0_ - q0 * 131072));"},
        {"problems/level1/33_BatchNorm.json", "cpu", 1, 0, {0, 1, 1}, "if (cn_ != c) kf_prefetch_block_ahead(xn_ + c0_);"},
        {"problems/level2/09_Matmul_Subtract_Multiply_ReLU.json", "cpu", 1, 0, {0, 0, 0}, NULL},
    };
    kf_error err = {0};
    kf_registry *reg;
    kf_plugin *pl;
    kf_agent *a = open_cpu(&reg, &pl);
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        loaded l;
        load(&l, cases[c].prob, cases[c].preset);
        kf_bt_point cur, nb[64];
        kf_bt_point_default(&kf_bt_emit_c, "cpu-simd", &l.r, NULL, &cur);
        cur.precision = KF_BT_FP32;
        cur.knob[KC_STREAM] = cases[c].stream;
        cur.knob[KC_PREFETCH] = cases[c].from;
        int n = kf_bt_neighbours(&cur, &l.r, nb, 64), got[3] = {0, 0, 0};
        for (int i = 0; i < n; i++) {
            kf_bt_point q = nb[i];
            q.knob[KC_PREFETCH] = cur.knob[KC_PREFETCH];
            if (nb[i].knob[KC_PREFETCH] != cur.knob[KC_PREFETCH] && kf_bt_point_equal(&q, &cur)) got[nb[i].knob[KC_PREFETCH]]++;
        }
        for (int v = 0; v <= 2; v++)
            KF_CHECK_MSG(got[v] == cases[c].want[v], "%s (%s) stream %d prefetch %d: prefetch %d offered %d times, want %d",
                         cases[c].prob, cases[c].preset, cases[c].stream, cases[c].from, v, got[v], cases[c].want[v]);
        /* streaming off takes the knob back to 0 (it changes nothing there) */
        for (int i = 0; i < n; i++)
            if (cur.knob[KC_STREAM] && !nb[i].knob[KC_STREAM])
                KF_CHECK_MSG(nb[i].knob[KC_PREFETCH] == 0, "%s: stream 0 with prefetch %d", cases[c].prob, nb[i].knob[KC_PREFETCH]);
        if (cases[c].want_text) {
            /* the analyzer offers it, just above even, with what it changes */
            kf_bt_history h = {0};
            kf_analysis an;
            KF_CHECK_MSG(analyze_bandwidth_bound(&h, &l.r, &cur, &an, &err) == 0, "%s", err.msg);
            int found = -1;
            for (int i = 0; i < an.n_recs && found < 0; i++) {
                kf_bt_point q;
                KF_CHECK(kf_bt_point_from_json(an.recs[i].params, &kf_bt_emit_c, "cpu-simd", &l.r, NULL, &q, &err) == 0);
                if (q.knob[KC_PREFETCH] != cur.knob[KC_PREFETCH]) found = i;
            }
            KF_CHECK_MSG(found >= 0, "%s prefetch %d: no prefetch recommendation in %d", cases[c].prob, cases[c].from, an.n_recs);
            if (found >= 0) {
                KF_CHECK_MSG(fabs(an.recs[found].expected_gain - 1.001) < 1e-9, "%s: gain %g", cases[c].prob,
                             an.recs[found].expected_gain);
                KF_CHECK_CONTAINS(an.recs[found].what, "prefetch");
            }
            kf_analysis_free(&an);
            kf_bt_history_free(&h);
            /* the other value's kernel: as named, and verified */
            int to = cases[c].want[2] ? 2 : cases[c].want[1] ? 1 : 0;
            char pt[96];
            snprintf(pt, sizeof pt, "{\"stream\":%d,\"prefetch\":%d,\"precision\":0}", cases[c].stream, to);
            generated_passes(a, pl, &l.r, cases[c].prob, pt, cases[c].want_text);
        }
        unload(&l);
    }
    kf_agent_close(a);
    kf_registry_close(reg);
}

/* Labels: a problem without a matmul or linear is labelled by its loops'
 * knobs (the GEMM's blocking and precision change nothing in its code:
 * Zen 3's default precision i16 had LayerNorm labelled "gemm 3084x96x1360
 * mr6nr16 ... i16"); a problem with one keeps the GEMM label. */
KF_TEST(cpu_label_without_gemm_names_the_loops)
{
    static const struct { const char *prob, *point, *want; } cases[] = {
        {"problems/level1/40_LayerNorm.json", "{\"stream\":1,\"prefetch\":2,\"threads\":1,\"precision\":0}",
         "loops rows-fused omp1 stream prefetch-l2"},
        {"problems/level1/19_ReLU.json", "{\"fusion\":0,\"stream\":0}", "loops unfused omp"},
        {"problems/level2/09_Matmul_Subtract_Multiply_ReLU.json", "{\"stream\":1,\"precision\":0,\"mr\":6,\"nr\":16}", "gemm "},
    };
    kf_error err = {0};
    kf_agent *a = kf_builtin_agent_open(NULL, &err);
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        loaded l;
        load(&l, cases[c].prob, "cpu");
        kf_bt_point p;
        KF_CHECK_MSG(kf_bt_point_from_json(cases[c].point, &kf_bt_emit_c, "cpu-simd", &l.r, NULL, &p, &err) == 0, "%s", err.msg);
        char lb[256];
        KF_CHECK_MSG(!strncmp(kf_bt_point_label_for(&p, &l.r, lb, sizeof lb), cases[c].want, strlen(cases[c].want)),
                     "%s: label \"%s\", want \"%s...\"", cases[c].prob, lb, cases[c].want);
        if (cases[c].want[0] == 'l') {
            KF_CHECK_MSG(!strcmp(lb, cases[c].want), "%s: label \"%s\"", cases[c].prob, lb);
            kf_gen_result g = generate_at(a, &l.r, cases[c].point);   /* the generator's label too */
            KF_CHECK_MSG(g.cand && g.label && !strncmp(g.label, cases[c].want, strlen(cases[c].want)), "%s: %s",
                         cases[c].prob, g.label ? g.label : g.error ? g.error : "?");
            kf_gen_result_free(&g);
        }
        /* without the problem: the emitter's label, as before */
        KF_CHECK(!strncmp(kf_bt_point_label(&p, lb, sizeof lb), "gemm ", 5));
        unload(&l);
    }
    kf_agent_close(a);
}

/* --agent-seed: the same recommendations, in a seed-dependent order; one
 * seed always gives the same order; seed 0 is the unseeded order. */
KF_TEST(analyzer_agent_seed_orders_neighbours)
{
    loaded l;
    load(&l, "problems/level2/09_Matmul_Subtract_Multiply_ReLU.json", "cpu");
    kf_bt_point cur;
    kf_bt_point_default(&kf_bt_emit_c, "cpu-simd", &l.r, NULL, &cur);
    kf_eval_result e;
    fake_eval(&l.r, l.r.flops / 4e11 / 0.3, 0.3, &e);
    kf_error err = {0};
    char *first[9] = {0};
    char *unseeded = NULL;
    int distinct = 0;
    for (int k = 0; k <= 8; k++) {
        kf_bt_history h = {0};
        h.seed = (uint64_t)k;
        kf_analysis an;
        KF_CHECK_MSG(kf_bt_analyze(&h, &l.r, &cur, &e, 0, 0.8, &an, &err) == 0, "%s", err.msg);
        KF_CHECK(an.n_recs >= 2);
        for (int i = 0; i < an.n_recs; i++)
            KF_CHECK_MSG(an.recs[i].expected_gain > 1.0, "seed %d rec %d gain %g", k, i, an.recs[i].expected_gain);
        first[k] = an.n_recs ? strdup(an.recs[0].params) : strdup("");
        /* the analyzer's memory expects the first recommendation */
        char *lr = kf_bt_point_json(&h.last_rec);
        KF_CHECK_STR(lr, first[k]);
        free(lr);
        if (k == 0) unseeded = first[0];
        else {
            int seen = 0;
            for (int j = 1; j < k; j++) seen |= !strcmp(first[j], first[k]);
            if (!seen) distinct++;
        }
        /* the same seed again: the same order */
        kf_bt_history h2 = {0};
        h2.seed = (uint64_t)k;
        kf_analysis an2;
        KF_CHECK(kf_bt_analyze(&h2, &l.r, &cur, &e, 0, 0.8, &an2, &err) == 0);
        KF_CHECK_INT(an2.n_recs, an.n_recs);
        for (int i = 0; i < an.n_recs && i < an2.n_recs; i++) KF_CHECK_STR(an2.recs[i].params, an.recs[i].params);
        kf_analysis_free(&an2);
        kf_bt_history_free(&h2);
        kf_analysis_free(&an);
        kf_bt_history_free(&h);
    }
    /* seeds 1..8 do not all start from the same recommendation */
    KF_CHECK_MSG(distinct >= 2, "seeds 1..8 gave %d distinct first recommendations", distinct);
    /* seed 0 is the deterministic order of analyzer_names_compute_and_recommends */
    kf_bt_history h0 = {0};
    kf_analysis a0;
    KF_CHECK(kf_bt_analyze(&h0, &l.r, &cur, &e, 0, 0.8, &a0, &err) == 0);
    KF_CHECK_STR(a0.recs[0].params, unseeded);
    kf_analysis_free(&a0);
    kf_bt_history_free(&h0);
    for (int k = 0; k <= 8; k++) free(first[k]);
    unload(&l);
}

KF_TEST(analyzer_stops_at_target)
{
    loaded l;
    load(&l, "problems/level2/09_Matmul_Subtract_Multiply_ReLU.json", "cpu");
    kf_bt_history h = {0};
    kf_bt_point cur;
    kf_bt_point_default(&kf_bt_emit_c, "cpu-simd", &l.r, NULL, &cur);
    kf_eval_result e;
    fake_eval(&l.r, l.r.flops / 4e11 / 0.85, 0.85, &e);
    kf_analysis an;
    kf_error err = {0};
    KF_CHECK(kf_bt_analyze(&h, &l.r, &cur, &e, 0, 0.8, &an, &err) == 0);
    KF_CHECK_INT(an.stop, 1);
    kf_analysis_free(&an);
    kf_bt_history_free(&h);
    unload(&l);
}

/* The baseline, the first candidate and other points of problem `rel` all
 * pass on cpu-simd. */
/* Generates problem rel (small preset) at each of pts[0..n) (after the
 * baseline and the first candidate where defaults is set), checks that
 * every source contains want (when not NULL) and that each verifies. */
static void points_pass_at(const char *rel, const char *const *pts, int n, int defaults, const char *want)
{
    kf_error err = {0};
    kf_registry *reg;
    kf_plugin *pl;
    kf_agent *a = open_cpu(&reg, &pl);
    loaded l;
    load(&l, rel, "small");
    for (int j = defaults ? -2 : 0; j < n; j++) {
        kf_recommendation rec = {.what = "t", .why = "t", .expected_gain = 1.1,
                                 .params = (char *)(j >= 0 ? pts[j] : "")};
        kf_analysis an = {.n_recs = 1, .recs = &rec};
        kf_agent_ctx ctx = ctx_for(&l.r, "cpu-simd");
        kf_gen_request req = {.kind = j == -2 ? KF_GEN_BASELINE : j == -1 ? KF_GEN_FIRST : KF_GEN_OPTIMIZE,
                              .analysis = j >= 0 ? &an : NULL, .rec_index = 0};
        kf_gen_result g = {0};
        KF_CHECK(a->ops->generate(a, &ctx, &req, &g, &err) == 0);
        KF_CHECK_MSG(g.cand != NULL, "%s point %d: %s", rel, j, g.error ? g.error : "?");
        if (g.cand) {
            if (want && j >= 0)
                KF_CHECK_MSG(g.cand->n_sources > 0 && g.cand->sources[0].text && strstr(g.cand->sources[0].text, want),
                             "%s at %s: the source has no \"%s\"", rel, pts[j], want);
            kf_eval_opts o;
            kf_eval_opts_default(&o);
            kf_eval_result res = {0};
            KF_CHECK(kf_evaluate(pl, &l.r, g.cand, &o, 0, &res, &err) == 0);
            KF_CHECK_MSG(res.verdict == KF_PASS, "%s point %d [%s]: %s\n%.1500s", rel, j, g.label,
                         res.summary ? res.summary : "", res.diagnostics ? res.diagnostics : "");
            kf_eval_result_free(&res);
        }
        kf_gen_result_free(&g);
    }
    unload(&l);
    kf_agent_close(a);
    kf_registry_close(reg);
}

static void points_pass(const char *rel)
{
    static const char *const pts[] = {
        "{\"fusion\":2,\"loop_order\":0}", "{\"fusion\":1,\"loop_order\":0,\"kc\":100}",
        "{\"fusion\":0,\"pack\":0}", "{\"loop_order\":1,\"threads\":1,\"unroll\":2,\"kc\":100}"};
    points_pass_at(rel, pts, (int)(sizeof pts / sizeof pts[0]), 1, NULL);
}

/* Shape ops (tests/vocab/shape_ops.json: unsqueeze of a row mean, a view
 * of a weight vector and of the GEMM's epilogue, flatten of the output). */
KF_TEST_TIMEOUT(shape_ops_pass_at_every_point, 200.0) { points_pass("tests/vocab/shape_ops.json"); }

/* (N, C, H, W) instance_norm, batch_norm (training and evaluation) and
 * group_norm (tests/vocab/norms_4d.json). */
KF_TEST_TIMEOUT(norms_4d_pass_at_every_point, 200.0) { points_pass("tests/vocab/norms_4d.json"); }

/* (N, C) training batch_norm (tests/vocab/batchnorm_2d.json): each thread's
 * rows summed about a shift per channel, joined, then normalised by the
 * same thread; channels at 300 +- 0.05 (a mean 6000 standard deviations
 * from the origin), 67 rows over 1, 2, 3 and 5 threads. */
KF_TEST_TIMEOUT(batchnorm_2d_pass_at_every_point, 200.0)
{
    static const char *const pts[] = {"{\"fusion\":2,\"threads\":2}", "{\"fusion\":1,\"threads\":3}",
                                      "{\"fusion\":0,\"pack\":0,\"threads\":5}", "{\"threads\":1}"};
    points_pass_at("tests/vocab/batchnorm_2d.json", pts, 4, 1, "s_[c] += d;");
}

/* Norms over few rows longer than KF_ROW_ONE_PASS (tests/vocab/norms_long_rows.json:
 * 3 rows of 300001, layer_norm with weight and bias, rms_norm with a fused
 * add): each row is split over the team and the next row's sums are taken
 * in chunks while this row is written; streamed and plain stores, 2 and 3
 * threads (slices whose lengths are not a multiple of the chunk). */
KF_TEST_TIMEOUT(norms_long_rows_split_pass, 200.0)
{
    static const char *const pts[] = {"{\"stream\":1,\"threads\":2}", "{\"stream\":0,\"threads\":2}",
                                      "{\"stream\":1,\"threads\":3}", "{\"stream\":0,\"threads\":3}"};
    points_pass_at("tests/vocab/norms_long_rows.json", pts, 4, 0, "the next row's chunk");
}

/* Shape ops that must copy (tests/vocab/shape_copies.json): outputs viewing
 * an input, an output, and a value another output views. */
KF_TEST_TIMEOUT(shape_copies_pass_at_every_point, 200.0) { points_pass("tests/vocab/shape_copies.json"); }

/* A shape op computes nothing: its value shares its root's buffer; an
 * output that views an input, another output or a value another output
 * views is a copy: a MAP group anchored on the shape op. */
KF_TEST(shape_ops_alias_their_root)
{
    loaded l;
    load(&l, "tests/vocab/shape_ops.json", "small");
    const kf_problem *p = l.p;
    int m = kf_problem_find_value(p, "m"), m2 = kf_problem_find_value(p, "m2");
    int s = kf_problem_find_value(p, "s"), s2 = kf_problem_find_value(p, "s2");
    int q = kf_problem_find_value(p, "q"), y = kf_problem_find_value(p, "y");
    int t = kf_problem_find_value(p, "t"), t3 = kf_problem_find_value(p, "t3");
    for (int f = KF_BT_FUSE_NONE; f <= KF_BT_FUSE_ROWS; f++) {
        kf_bt_plan pl;
        kf_error err = {0};
        KF_CHECK_MSG(kf_bt_plan_build(&l.r, (kf_bt_fusion)f, &pl, &err) == 0, "%s", err.msg);
        KF_CHECK_INT(pl.alias_of[m2], m);
        KF_CHECK_INT(pl.alias_of[s2], s);
        KF_CHECK_INT(pl.alias_of[t3], t);
        KF_CHECK_INT(pl.alias_of[y], q);
        KF_CHECK_INT(pl.alias_of[m], -1);
        KF_CHECK_INT(pl.group_of[y], -1);
        KF_CHECK_INT(pl.store[s2].kind, KF_BT_ST_INPUT);
        KF_CHECK_INT(pl.store[s2].index, 3);
        KF_CHECK_INT(pl.store[q].kind, KF_BT_ST_OUTPUT);   /* q is written straight into y */
        KF_CHECK_INT(pl.store[y].kind, KF_BT_ST_OUTPUT);
        KF_CHECK_INT(pl.store[m2].kind, pl.store[m].kind);
        KF_CHECK_INT(pl.store[m2].index, pl.store[m].index);
        KF_CHECK(pl.store[m].kind == KF_BT_ST_SCRATCH);
        KF_CHECK(pl.store[t].kind == KF_BT_ST_SCRATCH);
        kf_bt_plan_free(&pl);
    }
    unload(&l);

    load(&l, "tests/vocab/shape_copies.json", "small");
    p = l.p;
    int yx = kf_problem_find_value(p, "yx"), e = kf_problem_find_value(p, "e"), ye = kf_problem_find_value(p, "ye");
    t = kf_problem_find_value(p, "t");
    int f = kf_problem_find_value(p, "f"), g = kf_problem_find_value(p, "g"), gr = kf_problem_find_value(p, "gr");
    kf_bt_plan pl;
    kf_error err = {0};
    KF_CHECK_MSG(kf_bt_plan_build(&l.r, KF_BT_FUSE_EPILOGUE, &pl, &err) == 0, "%s", err.msg);
    /* yx views an input, ye an output, g a value f views already: copies */
    static const char *const copies[] = {"yx", "ye", "g"};
    for (int i = 0; i < 3; i++) {
        int v = kf_problem_find_value(p, copies[i]);
        KF_CHECK_MSG(pl.alias_of[v] == -1, "%s is an alias", copies[i]);
        int gi = pl.group_of[v];
        KF_CHECK_MSG(gi >= 0 && pl.groups[gi].kind == KF_BT_MAP && pl.groups[gi].nodes[0] == v - p->n_inputs,
                     "%s is not the anchor of a map group", copies[i]);
        KF_CHECK_INT(pl.store[v].kind, KF_BT_ST_OUTPUT);
    }
    KF_CHECK_INT(pl.store[yx].index, 0);
    KF_CHECK_INT(pl.store[e].index, 1);
    KF_CHECK_INT(pl.store[ye].index, 2);
    KF_CHECK_INT(pl.alias_of[f], t);                /* f is t's buffer: t is written as output 3 */
    KF_CHECK_INT(pl.store[t].kind, KF_BT_ST_OUTPUT);
    KF_CHECK_INT(pl.store[t].index, 3);
    KF_CHECK_INT(pl.store[g].index, 4);
    KF_CHECK_INT(pl.group_of[gr], pl.group_of[g]);  /* relu fused after the copy */
    kf_bt_plan_free(&pl);
    unload(&l);
}

KF_TEST(unsupported_backend_and_determinism)
{
    loaded l;
    load(&l, "problems/level2/99_Matmul_GELU_Softmax.json", "small");
    kf_error err = {0};
    kf_agent *a = kf_builtin_agent_open(NULL, &err);
    KF_CHECK(a != NULL);
    KF_CHECK_STR(a->ops->kind, "builtin");
    kf_agent_ctx ctx = ctx_for(&l.r, "vulkan");
    kf_gen_request req = {.kind = KF_GEN_FIRST};
    kf_gen_result g = {0};
    KF_CHECK_INT(a->ops->generate(a, &ctx, &req, &g, &err), 0);
    KF_CHECK(g.cand == NULL);
    KF_CHECK_STR(g.error, "the builtin agent has no code emitter for backend vulkan (language \"glsl\"; it emits "
                          "c, opencl-c, cuda-c); use an LLM agent for it");
    kf_gen_result_free(&g);
    /* a third-party plugin of a language with an emitter gets the agent:
       the candidate is for that plugin, in the emitter's language */
    kf_agent_ctx tp = {.r = &l.r, .backend = "acme-cl", .backend_language = "opencl-c", .target_fraction = 0.8};
    memset(&g, 0, sizeof g);
    KF_CHECK_INT(a->ops->generate(a, &tp, &req, &g, &err), 0);
    KF_CHECK_MSG(g.cand != NULL, "acme-cl: %s", g.error ? g.error : "no candidate");
    if (g.cand) {
        KF_CHECK_STR(g.cand->backend, "acme-cl");
        KF_CHECK_INT(g.cand->n_sources, 1);
        KF_CHECK(g.cand->n_launches > 0);
        KF_CHECK_CONTAINS(g.cand->notes, "\"backend\":\"acme-cl\"");
        KF_CHECK_CONTAINS(g.cand->notes, "\"ts\":");
        KF_CHECK(strstr(g.cand->notes, "\"mc\":") == NULL);   /* only its own language's knobs */
    }
    kf_gen_result_free(&g);

    kf_candidate *c1 = generate(a, &l.r, KF_GEN_FIRST, NULL);
    kf_candidate *c2 = generate(a, &l.r, KF_GEN_FIRST, NULL);
    KF_CHECK_STR(c1->sources[0].text, c2->sources[0].text);
    KF_CHECK_CONTAINS(c1->sources[0].text, "Search-space point:");
    KF_CHECK_CONTAINS(c1->sources[0].text, "a->dims");
    KF_CHECK_CONTAINS(c1->notes, "builtin point: {");

    /* a failed candidate -> a more conservative point, said in the label */
    kf_agent_ctx cc = ctx_for(&l.r, "cpu-simd");
    kf_gen_request fix = {.kind = KF_GEN_FIX_MISMATCH, .last = c1};
    KF_CHECK(a->ops->generate(a, &cc, &fix, &g, &err) == 0);
    KF_CHECK(g.cand != NULL);
    KF_CHECK_CONTAINS(g.label, "unfused");   /* the default was epilogue-fused */
    KF_CHECK_CONTAINS(g.label, "more conservative");
    kf_gen_result_free(&g);

    kf_candidate *b = generate(a, &l.r, KF_GEN_BASELINE, NULL);
#ifdef HAVE_OPENBLAS
    KF_CHECK_STR(b->build_options, KF_BASELINE_BLAS_LIBS);
    KF_CHECK_CONTAINS(b->sources[0].text, "cblas_sgemm");
    /* one thread pool with the loops: the OpenMP build threads itself,
       another build runs single-threaded inside the baseline's OpenMP region */
    KF_CHECK_CONTAINS(b->sources[0].text, KF_BASELINE_BLAS_PARALLEL == 1 ? "openblas_set_num_threads(1)"
                                                                        : "openblas_set_num_threads(nt)");
    if (KF_BASELINE_BLAS_PARALLEL == 1) KF_CHECK_CONTAINS(b->sources[0].text, "#pragma omp parallel num_threads(nt)");
#endif
    kf_candidate_free(b);
    kf_candidate_free(c1);
    kf_candidate_free(c2);
    kf_agent_close(a);
    unload(&l);
}

/* N == 1: one dot product per row instead of a packed GEMM whose
 * micro-kernel would use one lane in KF_NR (level1_fused_and_baseline_pass
 * checks its values). */
KF_TEST(matrix_vector_gets_the_dot_product_kernel)
{
    loaded l;
    load(&l, "problems/level1/04_Matrix_vector_multiplication.json", "small");
    kf_error err = {0};
    kf_agent *a = kf_builtin_agent_open(NULL, &err);
    KF_CHECK(a != NULL);
    kf_candidate *c = generate(a, &l.r, KF_GEN_FIRST, NULL);
    KF_CHECK_CONTAINS(c->sources[0].text, "/* matrix-vector: y[");
    KF_CHECK_CONTAINS(c->sources[0].text, "#pragma omp simd reduction(+:s)");
    kf_candidate *b = generate(a, &l.r, KF_GEN_BASELINE, NULL);
    KF_CHECK(strstr(b->sources[0].text, "/* matrix-vector: y[") == NULL);   /* the baseline is op-by-op BLAS */
    kf_candidate_free(b);
    kf_candidate_free(c);
    kf_agent_close(a);
    unload(&l);
}

/* OpenCL neighbours step the tile up to 128 and never offer a work-group
 * the generator refuses. */
KF_TEST(opencl_neighbours_stay_launchable)
{
    loaded l;
    load(&l, "problems/level2/09_Matmul_Subtract_Multiply_ReLU.json", "small");
    kf_bt_point p, nb[64];
    kf_bt_point_default(&kf_bt_emit_opencl_c, "opencl", &l.r, NULL, &p);
    p.knob[KO_TS] = 32; p.knob[KO_WPT] = 8; p.knob[KO_VEC] = 4;
    int n = kf_bt_neighbours(&p, &l.r, nb, 64), up = 0;
    for (int i = 0; i < n; i++) up |= nb[i].knob[KO_TS] == 64 && nb[i].knob[KO_WPT] == 8 && nb[i].knob[KO_VEC] == 4;
    KF_CHECK_MSG(up, "ts32 wpt8 v4 has no ts64 neighbour");
    int pts[][3] = {{128, 8, 8}, {128, 1, 1}, {64, 1, 2}, {8, 1, 1}, {32, 1, 1}};
    for (int j = 0; j < 5; j++) {
        p.knob[KO_TS] = pts[j][0]; p.knob[KO_WPT] = pts[j][1]; p.knob[KO_VEC] = pts[j][2];
        n = kf_bt_neighbours(&p, &l.r, nb, 64);
        if (kf_bt_ocl_work_group(&p) <= KF_BT_OCL_MAX_WG) KF_CHECK(n > 0);   /* else none may be valid */
        for (int i = 0; i < n; i++)
            KF_CHECK_MSG(kf_bt_ocl_work_group(&nb[i]) <= KF_BT_OCL_MAX_WG && nb[i].knob[KO_WPT] <= nb[i].knob[KO_TS] &&
                         nb[i].knob[KO_VEC] <= nb[i].knob[KO_TS], "ts%d wpt%d v%d: neighbour ts%d wpt%d v%d", p.knob[KO_TS], p.knob[KO_WPT], p.knob[KO_VEC],
                         nb[i].knob[KO_TS], nb[i].knob[KO_WPT], nb[i].knob[KO_VEC]);
    }
    unload(&l);
}

/* bf16 on the AMX tiles that missed the tolerance broadly (more than 1
 * element in 1000) goes on to 3xbf16, passing over bf16c and 2xbf16 (which
 * keeps B's rounding); a miss in at most 1 element in 100000 tries bf16c (A
 * centred) first, as the analysis ranked it; one in between, 2xbf16; a bf16c
 * that missed goes on to 2xbf16. */
KF_TEST(broad_amx_bf16_miss_skips_2xbf16)
{
    loaded l;
    load(&l, "problems/level2/09_Matmul_Subtract_Multiply_ReLU.json", "small");
    kf_agent_ctx ctx = ctx_for(&l.r, "cpu-simd");
    kf_bt_point p0, pa, pc, p2, p3;
    kf_bt_point_default(&kf_bt_emit_c, "cpu-simd", &l.r, NULL, &p0);
    pa = p0;
    pa.precision = KF_BT_AMX_BF16;
    pa.knob[KC_PACK] = 1; pa.knob[KC_MR] = 32; pa.knob[KC_NR] = 32; pa.knob[KC_KC] = 256;
    pa.fusion = KF_BT_FUSE_EPILOGUE;
    pc = pa; pc.precision = KF_BT_AMX_BF16C;
    p2 = pa; p2.precision = KF_BT_AMX_BF16X2;
    p3 = pa; p3.precision = KF_BT_AMX_BF16X3;
    kf_recommendation ra[1] = {{.params = kf_bt_point_json(&pa)}}, rc[1] = {{.params = kf_bt_point_json(&pc)}};
    kf_recommendation rs[3] = {{.params = kf_bt_point_json(&pc)}, {.params = kf_bt_point_json(&p2)},
                               {.params = kf_bt_point_json(&p3)}};
    kf_analysis ana = {.n_recs = 1, .recs = ra}, anc = {.n_recs = 1, .recs = rc}, ans = {.n_recs = 3, .recs = rs};
    /* problem 62's bf16 miss; 33's; 30's; 30's again, missed by bf16c; 88's:
       few elements wrong, but its worst element at 2.06 of its allowance
       (the cpu preset on the 2-core VM; worst[] as measured there) */
    const int64_t bad[5] = {9634, 261, 3, 3, 30};
    const double worst[5] = {41.6, 1.44, 1.2, 1.1, 2.06};
    const char *first[5] = {"\"precision\":5", "\"precision\":5", "\"precision\":5", "\"precision\":8",
                            "\"precision\":5"};
    const char *want[5] = {"\"precision\":6", "\"precision\":7", "\"precision\":8", "\"precision\":7",
                           "\"precision\":6"};
    for (int k = 0; k < 5; k++) {
        kf_error err = {0};
        kf_agent *a = kf_builtin_agent_open(NULL, &err);
        KF_CHECK(a != NULL);
        kf_candidate *best = generate(a, &l.r, KF_GEN_FIRST, NULL);
        kf_gen_request opt = {.kind = KF_GEN_OPTIMIZE, .last = best, .best = best, .analysis = k == 3 ? &anc : &ana,
                              .rec_index = 0};
        kf_gen_result g1 = {0}, g2 = {0};
        KF_CHECK(a->ops->generate(a, &ctx, &opt, &g1, &err) == 0 && g1.cand);
        KF_CHECK_CONTAINS(g1.cand->notes, first[k]);
        kf_output_stats st = {.n_bad = bad[k], .n_elems = 1048576, .max_tol_frac = worst[k]};
        kf_eval_result ev = {.verdict = KF_FAIL_MISMATCH, .n_outputs = 1, .stats = &st};
        kf_gen_request fix = {.kind = KF_GEN_FIX_MISMATCH, .last = g1.cand, .last_eval = &ev, .best = best,
                              .analysis = &ans};
        KF_CHECK(a->ops->generate(a, &ctx, &fix, &g2, &err) == 0 && g2.cand);
        KF_CHECK_MSG(g2.cand && strstr(g2.cand->notes, want[k]), "%lld wrong: %s", (long long)bad[k],
                     g2.cand ? g2.cand->notes : "no candidate");
        if (k == 0 || k == 4) KF_CHECK_CONTAINS(g2.label, "too many for 2xbf16");
        else KF_CHECK(strstr(g2.label, "too many for 2xbf16") == NULL);
        /* and the miss is remembered for the problem (the saved history has it) */
        char *state = a->ops->save_state(a);
        kf_bt_history h;
        KF_CHECK_MSG(state && kf_bt_history_from_json(state, &kf_bt_emit_c, "cpu-simd", &l.r, NULL, &h, &err) == 0,
                     "%s", err.msg);
        if (state && h.v) {
            int pr = k == 3 ? KF_BT_AMX_BF16C : KF_BT_AMX_BF16;
            KF_CHECK_NEAR(h.missed[pr], (double)bad[k] / 1048576, 1e-12);
            KF_CHECK_NEAR(h.missed_worst[pr], worst[k], 1e-12);
            KF_CHECK(kf_bt_precision_ruled_out(&h, pr));
            KF_CHECK_INT(kf_bt_precision_ruled_out(&h, KF_BT_AMX_BF16C), k != 2 || pr == KF_BT_AMX_BF16C);
            KF_CHECK_INT(kf_bt_precision_ruled_out(&h, KF_BT_AMX_BF16X2), k == 0 || k == 4);
            KF_CHECK(!kf_bt_precision_ruled_out(&h, KF_BT_AMX_BF16X3));
        }
        kf_bt_history_free(&h);
        free(state);
        kf_gen_result_free(&g1);
        kf_gen_result_free(&g2);
        kf_candidate_free(best);
        kf_agent_close(a);
    }
    free(ra[0].params);
    free(rc[0].params);
    for (int i = 0; i < 3; i++) free(rs[i].params);
    unload(&l);
}

/* vdpbf16ps bf16 (precision 3) that missed in at most 1 element in 100000
 * steps to bf16c (precision 9, A centred), out of row panels where it was
 * in them, both as the first step's fallback and as the next
 * recommendation after a failed variant; a wider miss goes to fp32 (the C
 * emitter has no split precisions off AMX), and so does a bf16c miss. */
KF_TEST(bf16_slight_miss_tries_bf16c)
{
    loaded l;
    load(&l, "problems/level2/30_Gemm_GroupNorm_Hardtanh.json", "small");
    kf_agent_ctx ctx = ctx_for(&l.r, "cpu-simd");
    const char *start[3] = {
        "{\"fusion\":1,\"precision\":3,\"mr\":12,\"nr\":32,\"kc\":96,\"mc\":64,\"nc\":64,\"pack\":1,\"loop_order\":1}",
        "{\"fusion\":2,\"precision\":3,\"mr\":12,\"nr\":32,\"kc\":96,\"mc\":64,\"nc\":64,\"pack\":1,\"loop_order\":0}",
        "{\"fusion\":1,\"precision\":9,\"mr\":12,\"nr\":32,\"kc\":96,\"mc\":64,\"nc\":64,\"pack\":1,\"loop_order\":1}"};
    /* 3 of 1048576 wrong (30 at the cpu preset), 261 (33) */
    const int startk[4] = {0, 0, 1, 2};
    const int64_t bad[4] = {3, 261, 3, 3};
    /* bf16c is offered only where the CPU has AVX512_BF16 (and AVX512BW) */
    __builtin_cpu_init();
    const int hb = __builtin_cpu_supports("avx512bf16") && __builtin_cpu_supports("avx512bw");
    const char *c9 = hb ? "\"precision\":9" : "\"precision\":0";
    const char *want[4] = {c9, "\"precision\":0", c9, "\"precision\":0"};
    for (int k = 0; k < 4; k++) {
        kf_error err = {0};
        kf_agent *a = kf_builtin_agent_open(start[startk[k]], &err);
        KF_CHECK_MSG(a != NULL, "%s", err.msg);
        kf_candidate *c1 = generate(a, &l.r, KF_GEN_FIRST, NULL);
        kf_output_stats st = {.n_bad = bad[k], .n_elems = 1048576, .max_tol_frac = 1.2};
        kf_eval_result ev = {.verdict = KF_FAIL_MISMATCH, .n_outputs = 1, .stats = &st};
        kf_gen_request fix = {.kind = KF_GEN_FIX_MISMATCH, .last = c1, .last_eval = &ev};
        kf_gen_result g = {0};
        KF_CHECK(a->ops->generate(a, &ctx, &fix, &g, &err) == 0 && g.cand);
        KF_CHECK_MSG(g.cand && strstr(g.cand->notes, want[k]), "case %d: %s", k, g.cand ? g.cand->notes : "none");
        if (hb && (k == 0 || k == 2)) {
            KF_CHECK_CONTAINS(g.label, "centred");
            KF_CHECK_CONTAINS(g.label, " bf16c");
            KF_CHECK_CONTAINS(g.cand->sources[0].text, "#define KF_CENTRE_A 1");
            KF_CHECK_CONTAINS(g.cand->sources[0].text, "_mm512_dpbf16_ps");
            KF_CHECK(strstr(g.cand->sources[0].text, "_tile_dpbf16ps") == NULL);   /* not the AMX library */
            /* out of row panels (fusion 2 had put GroupNorm's GEMM in them) */
            KF_CHECK(strstr(g.cand->notes, "\"fusion\":2") == NULL);
        }
        kf_gen_result_free(&g);
        kf_candidate_free(c1);
        kf_agent_close(a);
    }
    /* after a failed variant (a best exists): the recommendation bf16c is
       taken after a slight bf16 miss and passed over after a wide one */
    kf_bt_point pb, pc;
    kf_error err = {0};
    KF_CHECK(kf_bt_point_from_json(start[0], &kf_bt_emit_c, "cpu-simd", &l.r, NULL, &pb, &err) == 0);
    pc = pb;
    pc.precision = KF_BT_BF16C;
    kf_recommendation rb[1] = {{.params = kf_bt_point_json(&pb)}}, rc[1] = {{.params = kf_bt_point_json(&pc)}};
    kf_analysis anb = {.n_recs = 1, .recs = rb}, anc = {.n_recs = 1, .recs = rc};
    for (int k = 0; k < 2; k++) {
        kf_agent *a = kf_builtin_agent_open(NULL, &err);
        kf_candidate *best = generate(a, &l.r, KF_GEN_FIRST, NULL);
        kf_gen_request opt = {.kind = KF_GEN_OPTIMIZE, .last = best, .best = best, .analysis = &anb, .rec_index = 0};
        kf_gen_result g1 = {0}, g2 = {0};
        KF_CHECK(a->ops->generate(a, &ctx, &opt, &g1, &err) == 0 && g1.cand);
        kf_output_stats st = {.n_bad = k ? 261 : 3, .n_elems = 1048576, .max_tol_frac = 1.2};
        kf_eval_result ev = {.verdict = KF_FAIL_MISMATCH, .n_outputs = 1, .stats = &st};
        kf_gen_request fix = {.kind = KF_GEN_FIX_MISMATCH, .last = g1.cand, .last_eval = &ev, .best = best, .analysis = &anc};
        KF_CHECK(a->ops->generate(a, &ctx, &fix, &g2, &err) == 0 && g2.cand);
        KF_CHECK_INT(g2.cand && strstr(g2.cand->notes, "\"precision\":9") != NULL, !k);
        kf_gen_result_free(&g1);
        kf_gen_result_free(&g2);
        kf_candidate_free(best);
        kf_agent_close(a);
    }
    free(rb[0].params);
    free(rc[0].params);
    kf_bt_history h;
    memset(&h, 0, sizeof h);
    kf_bt_history_missed(&h, KF_BT_BF16, 3e-6, 0);
    KF_CHECK(!kf_bt_precision_ruled_out(&h, KF_BT_BF16C));
    kf_bt_history_missed(&h, KF_BT_BF16, 2e-4, 0);
    KF_CHECK(kf_bt_precision_ruled_out(&h, KF_BT_BF16C));
    unload(&l);
}

/* A reduced precision that missed the tolerance on a problem is not
 * offered again at other knobs; fp32 and the 3x splits never are ruled
 * out; the analysis leaves them out of its recommendations. */
KF_TEST(precision_misses_are_remembered)
{
    kf_bt_history h;
    memset(&h, 0, sizeof h);
    kf_bt_history_missed(&h, KF_BT_AMX_BF16, 3e-6, 0);
    KF_CHECK(kf_bt_precision_ruled_out(&h, KF_BT_AMX_BF16));
    KF_CHECK(!kf_bt_precision_ruled_out(&h, KF_BT_AMX_BF16C));
    KF_CHECK(!kf_bt_precision_ruled_out(&h, KF_BT_AMX_BF16X2));
    kf_bt_history_missed(&h, KF_BT_AMX_BF16, 1e-6, 0);   /* the largest is kept */
    KF_CHECK_NEAR(h.missed[KF_BT_AMX_BF16], 3e-6, 1e-15);
    kf_bt_history_missed(&h, KF_BT_AMX_BF16, 2e-4, 0);
    KF_CHECK(kf_bt_precision_ruled_out(&h, KF_BT_AMX_BF16C));
    KF_CHECK(!kf_bt_precision_ruled_out(&h, KF_BT_AMX_BF16X2));
    kf_bt_history_missed(&h, KF_BT_AMX_BF16, 9e-3, 0);
    KF_CHECK(kf_bt_precision_ruled_out(&h, KF_BT_AMX_BF16X2));
    kf_bt_history_missed(&h, KF_BT_FP32, 0.5, 0);
    kf_bt_history_missed(&h, KF_BT_AMX_BF16X3, 0.5, 0);
    KF_CHECK(!kf_bt_precision_ruled_out(&h, KF_BT_FP32));
    KF_CHECK(!kf_bt_precision_ruled_out(&h, KF_BT_AMX_BF16X3));
    KF_CHECK(!kf_bt_precision_ruled_out(&h, 99));
    /* the analysis of an AMX point leaves the ruled-out precisions out */
    loaded l;
    load(&l, "problems/level2/30_Gemm_GroupNorm_Hardtanh.json", "small");
    kf_bt_point p;
    kf_bt_point_default(&kf_bt_emit_c, "cpu-simd", &l.r, NULL, &p);
    p.precision = KF_BT_AMX_BF16X2;
    p.fusion = KF_BT_FUSE_EPILOGUE;
    p.knob[KC_PACK] = 1; p.knob[KC_MR] = 32; p.knob[KC_NR] = 32; p.knob[KC_KC] = 256;
    kf_eval_result ev;
    fake_eval(&l.r, 1e-3, 0.05, &ev);
#if defined(__x86_64__)
    int granted = syscall(SYS_arch_prctl, 0x1023, 18) == 0 && kf_bt_emit_c.offerable(&p);
#else
    int granted = 0;
#endif
    for (int with = 0; with < 2; with++) {   /* without the misses (where AMX is offered: bf16 or bf16c among them), with */
        kf_bt_history h0;
        memset(&h0, 0, sizeof h0);
        kf_analysis an = {0};
        kf_error err = {0};
        KF_CHECK_MSG(kf_bt_analyze(with ? &h : &h0, &l.r, &p, &ev, 0, 0.9, &an, &err) == 0, "%s", err.msg);
        int cheaper = 0;
        for (int i = 0; i < an.n_recs; i++)
            cheaper += strstr(an.recs[i].params, "\"precision\":5,") || strstr(an.recs[i].params, "\"precision\":8,");
        if (with) KF_CHECK_INT(cheaper, 0);
        else if (granted) KF_CHECK_MSG(cheaper > 0, "no bf16 or bf16c among %d recommendations", an.n_recs);
        kf_analysis_free(&an);
        kf_bt_history_free(&h0);
    }
    kf_bt_history_free(&h);
    unload(&l);
}

/* --precision fp32 (problem/precision.h): the agent's first point is fp32
 * where its default would take tensor cores (CUDA on an H100: BF16 wgmma),
 * keeping the default's tiling; its analyses recommend fp32 points only
 * (and every other precision is ruled out); a start point that names another
 * precision is refused by the check, one that names none runs in fp32. */
KF_TEST(fp32_policy_keeps_every_point_fp32)
{
    KF_CHECK_INT(kf_precision_policy_parse("fp32", &(int){0}), 0);
    int pol = -1;
    KF_CHECK(kf_precision_policy_parse("any", &pol) == 0 && pol == KF_PRECISION_ANY);
    KF_CHECK(kf_precision_policy_parse("bf16", &pol) != 0 && kf_precision_policy_parse(NULL, &pol) != 0);
    KF_CHECK_STR(kf_precision_policy_name(KF_PRECISION_FP32), "fp32");

    loaded l;
    load(&l, "problems/level2/09_Matmul_Subtract_Multiply_ReLU.json", "kernelbench");
    KF_CHECK_NEAR(l.p->rel_l2, 1e-2, 1e-15);
    kf_problem_require_fp32(l.p);
    KF_CHECK_NEAR(l.p->rel_l2, KF_FP32_REL_L2, 1e-20);
    l.p->rel_l2 = 1e-7;   /* a tighter bound of the problem's own is kept */
    kf_problem_require_fp32(l.p);
    KF_CHECK_NEAR(l.p->rel_l2, 1e-7, 1e-20);
    kf_device_info h100;
    memset(&h100, 0, sizeof h100);
    snprintf(h100.kind, sizeof h100.kind, "gpu");
    snprintf(h100.detail, sizeof h100.detail, "compute capability 9.0 (sm_90), 132 SMs");
    kf_agent_ctx ctx = ctx_for(&l.r, "cuda");
    ctx.device = &h100;
    kf_bt_point dflt, pt;
    kf_bt_point_default(&kf_bt_emit_cuda_c, "cuda", &l.r, &h100, &dflt);
    KF_CHECK_INT(dflt.precision, KF_BT_BF16);   /* what "any" starts from */
    kf_error err = {0};
    for (int pass = 0; pass < 2; pass++) {
        ctx.precision = pass ? KF_PRECISION_FP32 : KF_PRECISION_ANY;
        kf_agent *a = kf_builtin_agent_open(NULL, &err);
        KF_CHECK(a != NULL);
        kf_gen_request req = {.kind = KF_GEN_FIRST};
        kf_gen_result g = {0};
        KF_CHECK_MSG(a->ops->generate(a, &ctx, &req, &g, &err) == 0 && g.cand, "%s", g.error ? g.error : err.msg);
        const char *pj = g.cand ? strstr(g.cand->notes, "builtin point: ") : NULL;
        char *js = pj && strchr(pj, '}') ? strndup(pj + 15, (size_t)(strchr(pj, '}') - pj - 14)) : NULL;
        KF_CHECK_MSG(js && kf_bt_point_from_json(js, &kf_bt_emit_cuda_c, "cuda", &l.r, &h100, &pt, &err) == 0,
                     "%s", err.msg);
        free(js);
        KF_CHECK_INT(pt.precision, pass ? KF_BT_FP32 : KF_BT_BF16);
        for (int k = 0; k < kf_bt_emit_cuda_c.n_knobs; k++) KF_CHECK_INT(pt.knob[k], dflt.knob[k]);
        kf_gen_result_free(&g);
        kf_agent_close(a);
    }
    unload(&l);

    /* the analyses: from the C emitter's fp32 point and from an AMX one */
    load(&l, "problems/level2/12_Gemm_Multiply_LeakyReLU.json", "small");
    kf_bt_point p;
    kf_bt_point_default(&kf_bt_emit_c, "cpu-simd", &l.r, NULL, &p);
    p.knob[KC_PACK] = 1; p.knob[KC_MR] = 32; p.knob[KC_NR] = 32;
    kf_eval_result ev;
    fake_eval(&l.r, 1e-3, 0.05, &ev);
    for (int from = 0; from < 2; from++) {
        p.precision = from ? KF_BT_AMX_BF16 : KF_BT_FP32;
        kf_bt_history h;
        memset(&h, 0, sizeof h);
        h.fp32_only = 1;
        kf_analysis an = {0};
        KF_CHECK_MSG(kf_bt_analyze(&h, &l.r, &p, &ev, 0, 0.99, &an, &err) == 0, "%s", err.msg);
        /* from fp32, faster fp32 points; from AMX (not a point this policy
           starts from) the fp32 ones are modelled slower: none, and no AMX */
        if (!from) KF_CHECK_MSG(an.n_recs > 0, "no recommendation: %s", an.text ? an.text : "");
        for (int i = 0; i < an.n_recs; i++)
            KF_CHECK_MSG(strstr(an.recs[i].params, "\"precision\":0,") != NULL, "%s", an.recs[i].params);
        for (int pr = 1; pr < KF_BT_N_PRECISIONS; pr++) KF_CHECK(kf_bt_precision_ruled_out(&h, pr));
        KF_CHECK(!kf_bt_precision_ruled_out(&h, KF_BT_FP32));
        kf_analysis_free(&an);
        kf_bt_history_free(&h);
    }
    /* start points */
    kf_agent_ctx cc = ctx_for(&l.r, "cpu-simd");
    cc.precision = KF_PRECISION_FP32;
    kf_agent *a = kf_builtin_agent_open("{\"precision\":5,\"mr\":32,\"nr\":32}", &err);
    KF_CHECK(a != NULL);
    KF_CHECK(kf_agent_check(a, &cc, &err) != 0);
    KF_CHECK_CONTAINS(err.msg, "--precision fp32");
    cc.precision = KF_PRECISION_ANY;
    KF_CHECK(kf_agent_check(a, &cc, &err) == 0);
    kf_agent_close(a);
    cc.precision = KF_PRECISION_FP32;
    a = kf_builtin_agent_open("{\"mr\":16}", &err);
    KF_CHECK(a != NULL && kf_agent_check(a, &cc, &err) == 0);
    kf_gen_request req = {.kind = KF_GEN_FIRST};
    kf_gen_result g = {0};
    KF_CHECK(a->ops->generate(a, &cc, &req, &g, &err) == 0 && g.cand);
    KF_CHECK(g.cand && strstr(g.cand->notes, "\"precision\":0,") && strstr(g.cand->notes, "\"mr\":16"));
    kf_gen_result_free(&g);
    kf_agent_close(a);
    unload(&l);
}

/* An optimization variant that fails (a device limit) is not "repaired" into
 * a more conservative copy of itself: the next step takes the next untried
 * recommendation, then the best point again. */
KF_TEST(failed_variant_moves_on_to_the_next_recommendation)
{
    loaded l;
    load(&l, "problems/level2/09_Matmul_Subtract_Multiply_ReLU.json", "small");
    kf_error err = {0};
    kf_agent *a = kf_builtin_agent_open(NULL, &err);
    KF_CHECK(a != NULL);
    kf_agent_ctx ctx = ctx_for(&l.r, "cpu-simd");
    kf_candidate *best = generate(a, &l.r, KF_GEN_FIRST, NULL);
    kf_bt_point p0, p1, p2;
    kf_bt_point_default(&kf_bt_emit_c, "cpu-simd", &l.r, NULL, &p0);
    p1 = p0; p1.knob[KC_UNROLL] = 2;
    p2 = p0; p2.knob[KC_UNROLL] = 4;
    kf_recommendation recs[2] = {{.params = kf_bt_point_json(&p1)}, {.params = kf_bt_point_json(&p2)}};
    kf_analysis an = {.n_recs = 2, .recs = recs};

    /* step 2: the analysis' first recommendation (p1) */
    kf_gen_request opt = {.kind = KF_GEN_OPTIMIZE, .last = best, .best = best, .analysis = &an, .rec_index = 0};
    kf_gen_result g1 = {0};
    KF_CHECK(a->ops->generate(a, &ctx, &opt, &g1, &err) == 0 && g1.cand);
    KF_CHECK_CONTAINS(g1.cand->notes, "\"unroll\":2");
    /* it failed: step 3 takes p2, not a conservative p1 */
    kf_gen_request fix = {.kind = KF_GEN_FIX_MISMATCH, .last = g1.cand, .best = best, .analysis = &an};
    kf_gen_result g2 = {0};
    KF_CHECK(a->ops->generate(a, &ctx, &fix, &g2, &err) == 0 && g2.cand);
    KF_CHECK_CONTAINS(g2.cand->notes, "\"unroll\":4");
    KF_CHECK_CONTAINS(g2.label, "next untried recommendation");
    KF_CHECK_CONTAINS(g2.label, "a device limit");   /* an fp32 variant: not its precision */
    KF_CHECK(strstr(g2.label, "conservative") == NULL);
    /* p2 failed too: nothing untried is left, so the best point again */
    fix.last = g2.cand;
    kf_gen_result g3 = {0};
    KF_CHECK(a->ops->generate(a, &ctx, &fix, &g3, &err) == 0 && g3.cand);
    KF_CHECK_CONTAINS(g3.label, "back to the best point");
    KF_CHECK_STR(g3.cand->sources[0].text, best->sources[0].text);

    /* a bf16 variant that fails is said to have missed the tolerance */
    kf_bt_point p3 = p0;
    p3.precision = KF_BT_BF16;
    p3.knob[KC_NR] = 32;
    kf_recommendation rb[1] = {{.params = kf_bt_point_json(&p3)}};
    kf_analysis anb = {.n_recs = 1, .recs = rb};
    kf_gen_request optb = {.kind = KF_GEN_OPTIMIZE, .last = best, .best = best, .analysis = &anb, .rec_index = 0};
    kf_gen_result gb = {0}, gb2 = {0};
    KF_CHECK(a->ops->generate(a, &ctx, &optb, &gb, &err) == 0 && gb.cand);
    KF_CHECK_CONTAINS(gb.cand->notes, "\"precision\":3");
    kf_gen_request fixb = {.kind = KF_GEN_FIX_MISMATCH, .last = gb.cand, .best = best, .analysis = &anb};
    KF_CHECK(a->ops->generate(a, &ctx, &fixb, &gb2, &err) == 0 && gb2.cand);
    KF_CHECK_CONTAINS(gb2.label, "reduced precision missed the tolerance");
    kf_gen_result_free(&gb);
    kf_gen_result_free(&gb2);
    free(rb[0].params);

    kf_gen_result_free(&g1);
    kf_gen_result_free(&g2);
    kf_gen_result_free(&g3);
    free(recs[0].params);
    free(recs[1].params);
    kf_candidate_free(best);
    kf_agent_close(a);
    unload(&l);
}

/* --agent builtin:POINT: the first candidate comes from the start point laid
 * over the default; a bad point is refused when the agent opens, with the
 * field named; the spec round-trips (a resumed run reopens the same agent). */
KF_TEST(start_point_sets_the_first_candidate)
{
    loaded l;
    load(&l, "problems/level2/09_Matmul_Subtract_Multiply_ReLU.json", "small");
    kf_error err = {0};
    KF_CHECK(kf_agent_open("builtin:{\"tss\":64}", NULL, &err) == NULL);
    KF_CHECK_INT(err.kind, KF_E_BAD_INPUT);
    KF_CHECK_CONTAINS(err.msg, "--agent builtin:POINT: builtin point: unknown field \"tss\"");
    KF_CHECK(kf_agent_open("builtin:{\"mr\":99}", NULL, &err) == NULL);
    KF_CHECK_CONTAINS(err.msg, "\"mr\" = 99 is out of range 1..32");
    KF_CHECK(kf_agent_open("builtin:ts=64", NULL, &err) == NULL);
    KF_CHECK_CONTAINS(err.msg, "not a JSON object: ts=64");

    kf_agent *a = kf_agent_open("builtin:{\"mr\":4,\"nr\":24,\"unroll\":2}", NULL, &err);
    KF_CHECK_MSG(a != NULL, "%s", err.msg);
    if (!a) { unload(&l); return; }
    KF_CHECK_STR(a->spec, "builtin:{\"mr\":4,\"nr\":24,\"unroll\":2}");
    char *label = NULL;
    kf_candidate *c = generate(a, &l.r, KF_GEN_FIRST, &label);
    KF_CHECK_CONTAINS(label, "mr4nr24 u2");
    KF_CHECK_CONTAINS(label, "start point of --agent builtin:POINT");
    KF_CHECK_CONTAINS(c->notes, "\"mr\":4,\"nr\":24");
    free(label);
    kf_candidate_free(c);
    /* the baseline is not affected by the start point */
    c = generate(a, &l.r, KF_GEN_BASELINE, &label);
    KF_CHECK_CONTAINS(label, "op-by-op");
    free(label);
    kf_candidate_free(c);
    kf_agent_close(a);

    /* a field the backend refuses (nr not a multiple of 8) fails the step, not the run */
    a = kf_agent_open("builtin:{\"nr\":12}", NULL, &err);
    KF_CHECK(a != NULL);
    kf_agent_ctx ctx = ctx_for(&l.r, "cpu-simd");
    kf_gen_request req = {.kind = KF_GEN_FIRST};
    kf_gen_result g = {0};
    KF_CHECK_INT(a->ops->generate(a, &ctx, &req, &g, &err), 0);
    KF_CHECK(g.cand == NULL);
    KF_CHECK_CONTAINS(g.error, "--agent builtin:POINT: builtin point: nr = 12 must be a multiple of 8");
    kf_gen_result_free(&g);
    kf_agent_close(a);
    unload(&l);
}

int main(void) { return kf_test_main(); }
