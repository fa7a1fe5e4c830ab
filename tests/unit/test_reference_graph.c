/*
 * test_reference_graph.c — kf_reference_eval / kf_reference_outputs on
 * problems built from JSON (kf_problem_parse + kf_resolve): hand-checked
 * graphs, keepdim shapes, scalars and broadcasting, liveness freeing and
 * in-place reuse (outputs equal eval's values bitwise), every suite
 * problem at its small preset, and the time at a cpu preset.
 */
#include <config.h>

#include <dirent.h>
#include <math.h>
#include <stdlib.h>
#include <time.h>

#include "../kf_test.h"
#include "problem/problem.h"
#include "reference/ref_internal.h"
#include "reference/reference.h"

#define TOL 1e-13

typedef struct loaded {
    kf_problem *p;
    kf_resolved r;
    float **in;
} loaded;

/* Parses json, resolves `preset` and draws every input with `seed`. */
static int load(loaded *L, const char *json, const char *preset, uint64_t seed)
{
    kf_error err = {0};
    memset(L, 0, sizeof *L);
    L->p = kf_problem_parse(json, "test.json", &err);
    KF_CHECK_MSG(L->p != NULL, "parse: %s", err.msg);
    if (!L->p)
        return -1;
    int pi = kf_problem_find_preset(L->p, preset);
    KF_CHECK_MSG(pi >= 0, "no preset %s", preset);
    if (pi < 0 || kf_resolve(L->p, pi, &L->r, &err) < 0) {
        KF_CHECK_MSG(0, "resolve: %s", err.msg);
        return -1;
    }
    L->in = calloc((size_t)L->p->n_inputs, sizeof *L->in);
    for (int i = 0; i < L->p->n_inputs; i++) {
        L->in[i] = malloc(sizeof(float) * (size_t)kf_ref_elems(&L->r.shapes[i]));
        kf_draw_input(&L->r, i, seed, L->in[i]);
    }
    return 0;
}

static void unload(loaded *L)
{
    if (L->in)
        for (int i = 0; i < L->p->n_inputs; i++)
            free(L->in[i]);
    free(L->in);
    if (L->p) {
        kf_resolved_free(&L->r);
        kf_problem_free(L->p);
    }
}

static int value_of(const loaded *L, const char *name)
{
    int v = kf_problem_find_value(L->p, name);
    KF_CHECK_MSG(v >= 0, "no value %s", name);
    return v;
}

static void free_all(double **v, int n)
{
    for (int i = 0; i < n; i++)
        free(v[i]);
    free(v);
}

/* ------------------------------------------------------------------ */

static const char *FORMAT_EXAMPLE =
    "{\"name\": \"ex\", \"dims\": [\"B\", \"K\", \"N\"],"
    " \"presets\": {\"tiny\": {\"B\": 3, \"K\": 4, \"N\": 5}},"
    " \"inputs\": ["
    "  {\"name\": \"x\", \"shape\": [\"B\", \"K\"], \"init\": {\"dist\": \"uniform\", \"low\": 0, \"high\": 1}},"
    "  {\"name\": \"W\", \"shape\": [\"N\", \"K\"], \"init\": {\"dist\": \"kaiming_uniform\", \"fan_in\": \"K\"}},"
    "  {\"name\": \"b\", \"shape\": [\"N\"], \"init\": {\"dist\": \"kaiming_uniform\", \"fan_in\": \"K\"}}],"
    " \"graph\": ["
    "  {\"out\": \"h\", \"op\": \"linear\", \"in\": [\"x\", \"W\", \"b\"]},"
    "  {\"out\": \"h1\", \"op\": \"sub\", \"in\": [\"h\", 2.0]},"
    "  {\"out\": \"h2\", \"op\": \"mul\", \"in\": [\"h1\", 1.5]},"
    "  {\"out\": \"y\", \"op\": \"relu\", \"in\": [\"h2\"]}],"
    " \"outputs\": [\"y\"]}";

KF_TEST(format_example_against_plain_loops)
{
    loaded L;
    if (load(&L, FORMAT_EXAMPLE, "tiny", 1234) < 0)
        return;
    const float *x = L.in[0], *W = L.in[1], *b = L.in[2];
    double *out[1];
    kf_error err = {0};
    KF_CHECK_MSG(kf_reference_outputs(&L.r, (const float *const *)L.in, out, 2, &err) == 0,
                 "%s", err.msg);
    int nv = kf_problem_n_values(L.p);
    double **vals = calloc((size_t)nv, sizeof *vals);
    KF_CHECK_INT(kf_reference_eval(&L.r, (const float *const *)L.in, vals, 1, &err), 0);
    for (int i = 0; i < 3; i++)
        for (int n = 0; n < 5; n++) {
            double h = b[n];
            for (int k = 0; k < 4; k++)
                h += (double)x[i * 4 + k] * W[n * 4 + k];
            double y = (h - 2.0) * 1.5;
            y = y > 0 ? y : 0;
            KF_CHECK_NEAR(out[0][i * 5 + n], y, TOL);
            KF_CHECK_NEAR(vals[value_of(&L, "h")][i * 5 + n], h, TOL);
            KF_CHECK(vals[value_of(&L, "y")][i * 5 + n] == out[0][i * 5 + n]);
        }
    for (int i = 0; i < 12; i++)
        KF_CHECK(vals[0][i] == (double)x[i]);              /* inputs converted too */
    free(out[0]);
    free_all(vals, nv);
    unload(&L);
}

KF_TEST(keepdim_shapes_and_stable_logsumexp)
{
    static const char *J =
        "{\"name\": \"kd\", \"dims\": [\"B\", \"N\"], \"presets\": {\"p\": {\"B\": 2, \"N\": 3}},"
        " \"inputs\": [{\"name\": \"x\", \"shape\": [\"B\", \"N\"], \"init\": {\"dist\": \"normal\"}}],"
        " \"graph\": ["
        "  {\"out\": \"s\", \"op\": \"sum\", \"in\": [\"x\"], \"dim\": 1, \"keepdim\": true},"
        "  {\"out\": \"m\", \"op\": \"amax\", \"in\": [\"x\"], \"dim\": -1},"
        "  {\"out\": \"l\", \"op\": \"logsumexp\", \"in\": [\"x\"], \"dim\": 1, \"keepdim\": true},"
        "  {\"out\": \"c\", \"op\": \"mean\", \"in\": [\"x\"], \"dim\": 0},"
        "  {\"out\": \"sm\", \"op\": \"softmax\", \"in\": [\"x\"], \"dim\": -1}],"
        " \"outputs\": [\"s\", \"m\", \"l\", \"c\", \"sm\"]}";
    loaded L;
    if (load(&L, J, "p", 1) < 0)
        return;
    float x[] = {1000, 1001, 1000, 1, 2, 3};
    const float *in[] = {x};
    KF_CHECK_INT(L.r.shapes[value_of(&L, "s")].rank, 2);
    KF_CHECK_INT(L.r.shapes[value_of(&L, "s")].d[1], 1);
    KF_CHECK_INT(L.r.shapes[value_of(&L, "m")].rank, 1);
    KF_CHECK_INT(L.r.shapes[value_of(&L, "m")].d[0], 2);
    KF_CHECK_INT(L.r.shapes[value_of(&L, "c")].d[0], 3);
    double *o[5];
    kf_error err = {0};
    KF_CHECK_MSG(kf_reference_outputs(&L.r, in, o, 0, &err) == 0, "%s", err.msg);
    KF_CHECK_NEAR(o[0][0], 3001, 0);
    KF_CHECK_NEAR(o[0][1], 6, 0);
    KF_CHECK_NEAR(o[1][0], 1001, 0);
    KF_CHECK_NEAR(o[1][1], 3, 0);
    /* 1001 + log(1 + 2 e^-1) and 3 + log(1 + e^-1 + e^-2) */
    KF_CHECK_NEAR(o[2][0], 1001.5514447139320, 1e-11);
    KF_CHECK_NEAR(o[2][1], 3.4076059644443806, 1e-12);
    KF_CHECK_NEAR(o[3][0], 500.5, 0);
    KF_CHECK_NEAR(o[4][3] + o[4][4] + o[4][5], 1.0, 1e-15);
    KF_CHECK_NEAR(o[4][5], 0.6652409557748218, TOL);
    KF_CHECK_NEAR(o[4][0] + o[4][1] + o[4][2], 1.0, 1e-15);
    for (int i = 0; i < 5; i++)
        free(o[i]);
    unload(&L);
}

KF_TEST(scalar_first_sub_and_broadcast_add)
{
    static const char *J =
        "{\"name\": \"bc\", \"dims\": [\"B\", \"N\"], \"presets\": {\"p\": {\"B\": 2, \"N\": 3}},"
        " \"inputs\": [{\"name\": \"x\", \"shape\": [\"B\", \"N\"], \"init\": {\"dist\": \"normal\"}},"
        "  {\"name\": \"v\", \"shape\": [\"N\"], \"init\": {\"dist\": \"normal\"}}],"
        " \"graph\": ["
        "  {\"out\": \"a\", \"op\": \"sub\", \"in\": [2.0, \"x\"]},"
        "  {\"out\": \"c\", \"op\": \"add\", \"in\": [\"v\", \"a\"]},"
        "  {\"out\": \"d\", \"op\": \"div\", \"in\": [\"c\", \"v\"]}],"
        " \"outputs\": [\"c\", \"d\"]}";
    loaded L;
    if (load(&L, J, "p", 1) < 0)
        return;
    float x[] = {1, 2, 3, 4, 5, 6}, v[] = {10, 20, 40};
    const float *in[] = {x, v};
    double *o[2];
    KF_CHECK_INT(kf_reference_outputs(&L.r, in, o, 1, NULL), 0);
    double want[] = {11, 20, 39, 8, 17, 36};
    for (int i = 0; i < 6; i++) {
        KF_CHECK_NEAR(o[0][i], want[i], 0);
        KF_CHECK_NEAR(o[1][i], want[i] / v[i % 3], TOL);
    }
    free(o[0]);
    free(o[1]);
    unload(&L);
}

KF_TEST(norms_through_the_graph)
{
    static const char *J =
        "{\"name\": \"nm\", \"dims\": [\"N\", \"C\"], \"presets\": {\"p\": {\"N\": 4, \"C\": 2}},"
        " \"inputs\": [{\"name\": \"x\", \"shape\": [\"N\", \"C\"], \"init\": {\"dist\": \"normal\"}},"
        "  {\"name\": \"w\", \"shape\": [\"C\"], \"init\": {\"dist\": \"constant\", \"value\": 1}},"
        "  {\"name\": \"g\", \"shape\": [1, 4, 2], \"init\": {\"dist\": \"normal\"}}],"
        " \"graph\": ["
        "  {\"out\": \"bn\", \"op\": \"batch_norm\", \"in\": [\"x\", \"w\"]},"
        "  {\"out\": \"gn\", \"op\": \"group_norm\", \"in\": [\"g\"], \"groups\": 2},"
        "  {\"out\": \"mp\", \"op\": \"max_pool1d\", \"in\": [\"x\"], \"kernel_size\": 2, \"stride\": 1, \"padding\": 1}],"
        " \"outputs\": [\"bn\", \"gn\", \"mp\"]}";
    loaded L;
    if (load(&L, J, "p", 1) < 0)
        return;
    float x[] = {1, 10, 2, 20, 3, 30, 4, 40}, w[] = {1, 1};
    float g[] = {1, 2, 3, 4, 10, 20, 30, 40};
    const float *in[] = {x, w, g};
    static const double LN4[] = {-1.3416354199689269, -0.447211806656309, 0.447211806656309,
                                 1.3416354199689269};
    static const double LN40[] = {-1.3416407328342457, -0.4472135776114152,
                                  0.4472135776114152, 1.3416407328342457};
    double *o[3];
    kf_error err = {0};
    KF_CHECK_MSG(kf_reference_outputs(&L.r, in, o, 2, &err) == 0, "%s", err.msg);
    for (int n = 0; n < 4; n++) {
        KF_CHECK_NEAR(o[0][2 * n], LN4[n], TOL);
        KF_CHECK_NEAR(o[0][2 * n + 1], LN40[n], TOL);
        KF_CHECK_NEAR(o[1][n], LN4[n], TOL);
        KF_CHECK_NEAR(o[1][4 + n], LN40[n], TOL);
    }
    /* rows (1, 10): padded windows [-inf,1] [1,10] [10,-inf] */
    int mp = value_of(&L, "mp");
    KF_CHECK_INT(L.r.shapes[mp].d[1], 3);
    KF_CHECK_NEAR(o[2][0], 1, 0);
    KF_CHECK_NEAR(o[2][1], 10, 0);
    KF_CHECK_NEAR(o[2][2], 10, 0);
    for (int i = 0; i < 3; i++)
        free(o[i]);
    unload(&L);
}

KF_TEST(duplicate_outputs_input_outputs_and_dead_nodes)
{
    static const char *J =
        "{\"name\": \"dup\", \"dims\": [\"N\"], \"presets\": {\"p\": {\"N\": 3}},"
        " \"inputs\": [{\"name\": \"x\", \"shape\": [\"N\"], \"init\": {\"dist\": \"normal\"}}],"
        " \"graph\": ["
        "  {\"out\": \"dead\", \"op\": \"exp\", \"in\": [\"x\"]},"
        "  {\"out\": \"a\", \"op\": \"square\", \"in\": [\"x\"]},"
        "  {\"out\": \"y\", \"op\": \"add\", \"in\": [\"a\", \"a\"]}],"
        " \"outputs\": [\"y\", \"x\"]}";
    loaded L;
    if (load(&L, J, "p", 1) < 0)
        return;
    /* the parser refuses a value listed twice; the reference still copes
     * (hand-built problems): outputs become y, y, x */
    int *outs = realloc(L.p->outputs, sizeof(int) * 3);
    KF_CHECK(outs != NULL);
    if (!outs)
        return;
    outs[2] = outs[1];
    outs[1] = outs[0];
    L.p->outputs = outs;
    L.p->n_outputs = 3;
    float x[] = {1, -2, 3};
    const float *in[] = {x};
    double *o[3];
    KF_CHECK_INT(kf_reference_outputs(&L.r, in, o, 1, NULL), 0);
    KF_CHECK(o[0] != o[1]);
    for (int i = 0; i < 3; i++) {
        KF_CHECK_NEAR(o[0][i], 2.0 * x[i] * x[i], 0);
        KF_CHECK_NEAR(o[1][i], 2.0 * x[i] * x[i], 0);
        KF_CHECK_NEAR(o[2][i], x[i], 0);
    }
    for (int i = 0; i < 3; i++)
        free(o[i]);
    unload(&L);
}

/* The same computation written with shape ops (unsqueeze, squeeze, view
 * with -1, reshape with dim names, flatten) and without them (keepdim):
 * the outputs hold the same elements in the same order, bit for bit. */
#define SHAPE_HEAD(NAME)                                                                        \
    "{\"name\": \"" NAME "\", \"dims\": [\"B\", \"C\", \"L\"],"                                  \
    " \"presets\": {\"p\": {\"B\": 3, \"C\": 4, \"L\": 5}},"                                    \
    " \"inputs\": [{\"name\": \"x\", \"shape\": [\"B\", \"C\", \"L\"], \"init\": {\"dist\": \"normal\"}},"  \
    "  {\"name\": \"w\", \"shape\": [\"C\"], \"init\": {\"dist\": \"uniform\"}}],"

KF_TEST(shape_ops_give_the_outputs_of_the_plain_graph)
{
    static const char *WITH =
        SHAPE_HEAD("with")
        " \"graph\": ["
        "  {\"out\": \"m\", \"op\": \"mean\", \"in\": [\"x\"], \"dim\": -1},"
        "  {\"out\": \"m3\", \"op\": \"unsqueeze\", \"in\": [\"m\"], \"dim\": -1},"
        "  {\"out\": \"c\", \"op\": \"sub\", \"in\": [\"x\", \"m3\"]},"
        "  {\"out\": \"w2\", \"op\": \"view\", \"in\": [\"w\"], \"shape\": [-1, 1]},"
        "  {\"out\": \"s\", \"op\": \"mul\", \"in\": [\"c\", \"w2\"]},"
        "  {\"out\": \"f\", \"op\": \"flatten\", \"in\": [\"s\"], \"start_dim\": 1},"
        "  {\"out\": \"r\", \"op\": \"reshape\", \"in\": [\"f\"], \"shape\": [\"B\", 1, \"C\", \"L\"]},"
        "  {\"out\": \"q\", \"op\": \"squeeze\", \"in\": [\"r\"], \"dim\": 1},"
        "  {\"out\": \"y\", \"op\": \"relu\", \"in\": [\"q\"]},"
        "  {\"out\": \"k\", \"op\": \"amax\", \"in\": [\"x\"], \"dim\": 2, \"keepdim\": true},"
        "  {\"out\": \"z\", \"op\": \"squeeze\", \"in\": [\"k\"]}],"
        " \"outputs\": [\"y\", \"z\", \"f\"]}";
    /* without shape ops, w is declared as the (C, 1) column it is viewed as */
    static const char *PLAIN =
        "{\"name\": \"plain\", \"dims\": [\"B\", \"C\", \"L\"],"
        " \"presets\": {\"p\": {\"B\": 3, \"C\": 4, \"L\": 5}},"
        " \"inputs\": [{\"name\": \"x\", \"shape\": [\"B\", \"C\", \"L\"], \"init\": {\"dist\": \"normal\"}},"
        "  {\"name\": \"w\", \"shape\": [\"C\", 1], \"init\": {\"dist\": \"uniform\"}}],"
        " \"graph\": ["
        "  {\"out\": \"m\", \"op\": \"mean\", \"in\": [\"x\"], \"dim\": -1, \"keepdim\": true},"
        "  {\"out\": \"c\", \"op\": \"sub\", \"in\": [\"x\", \"m\"]},"
        "  {\"out\": \"s\", \"op\": \"mul\", \"in\": [\"c\", \"w\"]},"
        "  {\"out\": \"y\", \"op\": \"relu\", \"in\": [\"s\"]},"
        "  {\"out\": \"z\", \"op\": \"amax\", \"in\": [\"x\"], \"dim\": 2}],"
        " \"outputs\": [\"y\", \"z\", \"s\"]}";
    loaded A, B;
    if (load(&A, WITH, "p", 77) < 0)
        return;
    if (load(&B, PLAIN, "p", 77) < 0) {
        unload(&A);
        return;
    }
    /* shapes: y (B, C, L), z (B, C), f (B, C*L) */
    const kf_shape *sy = &A.r.shapes[value_of(&A, "y")], *sz = &A.r.shapes[value_of(&A, "z")];
    const kf_shape *sf = &A.r.shapes[value_of(&A, "f")], *sw = &A.r.shapes[value_of(&A, "w2")];
    KF_CHECK_INT(sy->rank, 3);
    KF_CHECK_INT(sz->rank, 2);
    KF_CHECK(sz->d[0] == 3 && sz->d[1] == 4);
    KF_CHECK(sf->rank == 2 && sf->d[0] == 3 && sf->d[1] == 20);
    KF_CHECK(sw->rank == 2 && sw->d[0] == 4 && sw->d[1] == 1);
    /* the same draws: w (C) and w (C, 1) have the same elements */
    for (int i = 0; i < 4; i++)
        KF_CHECK(A.in[1][i] == B.in[1][i]);
    double *oa[3] = {NULL}, *ob[3] = {NULL};
    kf_error err = {0};
    KF_CHECK_MSG(kf_reference_outputs(&A.r, (const float *const *)A.in, oa, 2, &err) == 0, "%s", err.msg);
    KF_CHECK_MSG(kf_reference_outputs(&B.r, (const float *const *)B.in, ob, 2, &err) == 0, "%s", err.msg);
    static const int n[3] = {60, 12, 60};
    int nonzero = 0;
    for (int o = 0; o < 3 && oa[o] && ob[o]; o++)
        for (int i = 0; i < n[o]; i++) {
            KF_CHECK_NEAR(oa[o][i], ob[o][i], 0);
            nonzero += oa[o][i] != 0;
        }
    KF_CHECK(nonzero > 60);
    for (int o = 0; o < 3; o++) {
        free(oa[o]);
        free(ob[o]);
    }
    unload(&A);
    unload(&B);
}

/* 4-D (N, C, H, W) norms: instance_norm and batch_norm (training and
 * evaluation) over H x W equal the 3-D ops on the (N, C, H*W) view, and
 * instance_norm matches plain loops. */
KF_TEST(norms_4d_equal_the_3d_view)
{
    static const char *J =
        "{\"name\": \"n4\", \"dims\": [\"N\", \"C\", \"H\", \"W\"],"
        " \"presets\": {\"p\": {\"N\": 2, \"C\": 3, \"H\": 4, \"W\": 5}},"
        " \"inputs\": [{\"name\": \"x\", \"shape\": [\"N\", \"C\", \"H\", \"W\"], \"init\": {\"dist\": \"normal\", \"mean\": 1, \"std\": 3}},"
        "  {\"name\": \"g\", \"shape\": [\"C\"], \"init\": {\"dist\": \"uniform\", \"low\": 0.5, \"high\": 1.5}},"
        "  {\"name\": \"b\", \"shape\": [\"C\"], \"init\": {\"dist\": \"uniform\"}},"
        "  {\"name\": \"rv\", \"shape\": [\"C\"], \"init\": {\"dist\": \"uniform\", \"low\": 0.5, \"high\": 2}}],"
        " \"graph\": ["
        "  {\"out\": \"i4\", \"op\": \"instance_norm\", \"in\": [\"x\"]},"
        "  {\"out\": \"bt4\", \"op\": \"batch_norm\", \"in\": [\"x\", \"g\", \"b\"]},"
        "  {\"out\": \"be4\", \"op\": \"batch_norm\", \"in\": [\"x\", \"g\", \"b\", \"b\", \"rv\"], \"training\": false},"
        "  {\"out\": \"x3\", \"op\": \"view\", \"in\": [\"x\"], \"shape\": [\"N\", \"C\", -1]},"
        "  {\"out\": \"i3\", \"op\": \"instance_norm\", \"in\": [\"x3\"]},"
        "  {\"out\": \"bt3\", \"op\": \"batch_norm\", \"in\": [\"x3\", \"g\", \"b\"]},"
        "  {\"out\": \"be3\", \"op\": \"batch_norm\", \"in\": [\"x3\", \"g\", \"b\", \"b\", \"rv\"], \"training\": false}],"
        " \"outputs\": [\"i4\", \"bt4\", \"be4\", \"i3\", \"bt3\", \"be3\"]}";
    loaded L;
    if (load(&L, J, "p", 5) < 0)
        return;
    double *o[6] = {NULL};
    kf_error err = {0};
    KF_CHECK_MSG(kf_reference_outputs(&L.r, (const float *const *)L.in, o, 2, &err) == 0, "%s", err.msg);
    if (!o[0])
        return;
    for (int k = 0; k < 3; k++)
        for (int i = 0; i < 120; i++)
            KF_CHECK_NEAR(o[k][i], o[k + 3][i], 0);
    const float *x = L.in[0];
    for (int nc = 0; nc < 6; nc++) {       /* instance_norm by hand over the 20 elements of (n, c) */
        double m = 0, v = 0;
        for (int j = 0; j < 20; j++) m += x[nc * 20 + j];
        m /= 20;
        for (int j = 0; j < 20; j++) v += (x[nc * 20 + j] - m) * (x[nc * 20 + j] - m);
        v /= 20;
        for (int j = 0; j < 20; j++)
            KF_CHECK_NEAR(o[0][nc * 20 + j], (x[nc * 20 + j] - m) / sqrt(v + 1e-5), 1e-12);
    }
    for (int c = 0; c < 3; c++) {          /* batch_norm training by hand for channel c */
        double m = 0, v = 0;
        for (int n = 0; n < 2; n++)
            for (int j = 0; j < 20; j++) m += x[(n * 3 + c) * 20 + j];
        m /= 40;
        for (int n = 0; n < 2; n++)
            for (int j = 0; j < 20; j++) v += (x[(n * 3 + c) * 20 + j] - m) * (x[(n * 3 + c) * 20 + j] - m);
        v /= 40;
        for (int n = 0; n < 2; n++)
            for (int j = 0; j < 20; j++) {
                int e = (n * 3 + c) * 20 + j;
                KF_CHECK_NEAR(o[1][e], (x[e] - m) / sqrt(v + 1e-5) * L.in[1][c] + L.in[2][c], 1e-12);
            }
    }
    for (int k = 0; k < 6; k++)
        free(o[k]);
    unload(&L);
}

KF_TEST(c_reference_only_is_refused)
{
    static const char *J =
        "{\"name\": \"cref\", \"dims\": [\"N\"], \"presets\": {\"p\": {\"N\": 3}},"
        " \"inputs\": [{\"name\": \"x\", \"shape\": [\"N\"], \"init\": {\"dist\": \"normal\"}}],"
        " \"graph\": [], \"outputs\": [\"x\"],"
        " \"c_reference\": \"void ref(const float *x, float *y, long n) {}\"}";
    loaded L;
    if (load(&L, J, "p", 1) < 0)
        return;
    double *o[1] = {NULL};
    kf_error err = {0};
    KF_CHECK_INT(kf_reference_outputs(&L.r, (const float *const *)L.in, o, 1, &err), -1);
    KF_CHECK_CONTAINS(err.msg, "only a C reference");
    KF_CHECK(o[0] == NULL);
    unload(&L);
}

/* ------------------------------------------------------ the suite */

static int suite_files(char ***out)
{
    static const char *dirs[] = {"problems/level1", "problems/level2"};
    int n = 0;
    char **list = NULL;
    for (int d = 0; d < 2; d++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", kf_test_srcdir(), dirs[d]);
        DIR *dir = opendir(path);
        if (!dir)
            continue;
        struct dirent *e;
        while ((e = readdir(dir))) {
            size_t len = strlen(e->d_name);
            if (len < 6 || strcmp(e->d_name + len - 5, ".json") != 0)
                continue;
            list = realloc(list, sizeof *list * (size_t)(n + 1));
            if (asprintf(&list[n], "%s/%s", path, e->d_name) < 0)
                continue;
            n++;
        }
        closedir(dir);
    }
    *out = list;
    return n;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* For every suite problem at `small`: outputs (liveness, in-place reuse,
 * 2 threads) equal eval's values (keep-all, 1 thread) bitwise, and every
 * output is finite. */
KF_TEST_TIMEOUT(suite_small_outputs_equal_eval, 300)
{
    char **files;
    int n = suite_files(&files);
    KF_CHECK_MSG(n >= 20, "found only %d suite problems under %s/problems", n, kf_test_srcdir());
    for (int f = 0; f < n; f++) {
        char *json = kf_test_read_file(files[f]);
        loaded L;
        if (!json || load(&L, json, "small", 77) < 0) {
            KF_CHECK_MSG(0, "cannot load %s", files[f]);
            free(json);
            continue;
        }
        int nv = kf_problem_n_values(L.p), no = L.p->n_outputs;
        double **vals = calloc((size_t)nv, sizeof *vals), **outs = calloc((size_t)no, sizeof *outs);
        kf_error err = {0};
        double t0 = now();
        int rc1 = kf_reference_eval(&L.r, (const float *const *)L.in, vals, 1, &err);
        double t1 = now();
        KF_CHECK_MSG(rc1 == 0, "%s: eval: %s", files[f], err.msg);
        int rc2 = kf_reference_outputs(&L.r, (const float *const *)L.in, outs, 2, &err);
        double t2 = now();
        KF_CHECK_MSG(rc2 == 0, "%s: outputs: %s", files[f], err.msg);
        for (int o = 0; rc1 == 0 && rc2 == 0 && o < no; o++) {
            int v = L.p->outputs[o];
            int64_t ne = kf_ref_elems(&L.r.shapes[v]);
            KF_CHECK_MSG(memcmp(vals[v], outs[o], sizeof(double) * (size_t)ne) == 0,
                         "%s: output %d differs between eval and outputs", files[f], o);
            int64_t bad = 0;
            for (int64_t i = 0; i < ne; i++)
                bad += !isfinite(outs[o][i]);
            KF_CHECK_MSG(bad == 0, "%s: %lld non-finite output values", files[f], (long long)bad);
        }
        fprintf(stderr, "# %-45s small: eval %.3f s, outputs %.3f s\n", L.p->name, t1 - t0, t2 - t1);
        free_all(vals, nv);
        free_all(outs, no);
        unload(&L);
        free(json);
    }
    for (int f = 0; f < n; f++)
        free(files[f]);
    free(files);
}

/* The cpu preset of the headline problem: verification must take seconds. */
KF_TEST_TIMEOUT(cpu_preset_takes_seconds, 300)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/problems/level2/09_Matmul_Subtract_Multiply_ReLU.json",
             kf_test_srcdir());
    char *json = kf_test_read_file(path);
    KF_CHECK_MSG(json != NULL, "cannot read %s", path);
    loaded L;
    if (!json || load(&L, json, "cpu", 5) < 0) {
        free(json);
        return;
    }
    double *out[1];
    kf_error err = {0};
    double t0 = now();
    KF_CHECK_MSG(kf_reference_outputs(&L.r, (const float *const *)L.in, out, 0, &err) == 0,
                 "%s", err.msg);
    double dt = now() - t0;
    fprintf(stderr, "# %s cpu preset: %.2f s (%.1f GFLOP/s nominal)\n", L.p->name, dt,
            L.r.flops / dt * 1e-9);
    KF_CHECK_MSG(dt < 60.0, "reference took %.1f s", dt);
    free(out[0]);
    unload(&L);
    free(json);
}

int main(void)
{
    return kf_test_main();
}
