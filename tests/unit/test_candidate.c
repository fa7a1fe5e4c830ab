/*
 * test_candidate.c — integer expressions, candidate.json load/save, binding
 * a launch plan to a (hand-built) resolved problem, single .c file loading,
 * whether two candidate directories hold the same code.
 */
#include "../kf_test.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "candidate/candidate.h"

/* A resolved problem built by hand: dims B=127 K=250 N=333, inputs x(B,K),
 * W(N,K), b(N), one node y = linear(x, W, b), output y. */
static char *dim_names[] = {"B", "K", "N"};
static int64_t dim_vals[] = {127, 250, 333};
static kf_input inputs[] = {{.name = "x"}, {.name = "W"}, {.name = "b"}};
static kf_node nodes[] = {{.out = "y", .op = KF_OP_LINEAR}};
static int outputs[] = {3};
static kf_shape shapes[] = {{2, {127, 250}}, {2, {333, 250}}, {1, {333}}, {2, {127, 333}}};
static kf_problem prob = {
    .path = "p.json", .name = "lin", .n_dims = 3, .dim_names = dim_names,
    .n_inputs = 3, .inputs = inputs, .n_nodes = 1, .nodes = nodes,
    .n_outputs = 1, .outputs = outputs};
static kf_resolved res = {.problem = &prob, .dims = dim_vals, .shapes = shapes};

static int64_t ev(const char *e)
{
    int64_t v = -999999;
    kf_error err;
    kf_error_clear(&err);
    if (kf_eval_int_expr(e, &res, &v, &err) != 0)
        kf_test_fail(__FILE__, __LINE__, "'%s' failed: %s", e, err.msg);
    return v;
}

static const char *ev_err(const char *e)
{
    static kf_error err;
    int64_t v;
    kf_error_clear(&err);
    if (kf_eval_int_expr(e, &res, &v, &err) == 0)
        kf_test_fail(__FILE__, __LINE__, "'%s' should fail, gave %lld", e, (long long)v);
    return err.msg;
}

KF_TEST(expr_arithmetic_and_precedence)
{
    KF_CHECK_INT(ev("42"), 42);
    KF_CHECK_INT(ev("2+3*4"), 14);
    KF_CHECK_INT(ev("(2+3)*4"), 20);
    KF_CHECK_INT(ev("10-4-3"), 3);            /* left associative */
    KF_CHECK_INT(ev("100/10/5"), 2);
    KF_CHECK_INT(ev("2*3%4"), 2);             /* (2*3)%4 */
    KF_CHECK_INT(ev("-3*-2"), 6);
    KF_CHECK_INT(ev("-(B)"), -127);
    KF_CHECK_INT(ev(" B * N "), 127 * 333);
    KF_CHECK_INT(ev("4*B*N"), 4 * 127 * 333);
    KF_CHECK_INT(ev("+K"), 250);
}

KF_TEST(expr_floor_division_and_modulo)
{
    KF_CHECK_INT(ev("7/2"), 3);
    KF_CHECK_INT(ev("-7/2"), -4);
    KF_CHECK_INT(ev("7/-2"), -4);
    KF_CHECK_INT(ev("-7/-2"), 3);
    KF_CHECK_INT(ev("-7%2"), 1);
    KF_CHECK_INT(ev("7%-2"), -1);
    KF_CHECK_INT(ev("-8/2"), -4);
    KF_CHECK_INT(ev("N%16"), 333 % 16);
}

KF_TEST(expr_functions)
{
    KF_CHECK_INT(ev("ceil_div(N,16)"), 21);
    KF_CHECK_INT(ev("ceil_div(32,16)"), 2);
    KF_CHECK_INT(ev("ceil_div(-7,2)"), -3);
    KF_CHECK_INT(ev("round_up(N,16)"), 336);
    KF_CHECK_INT(ev("round_up(B, 64)"), 128);
    KF_CHECK_INT(ev("min(B,K)"), 127);
    KF_CHECK_INT(ev("max(B, K) + 1"), 251);
    KF_CHECK_INT(ev("min(ceil_div(N,4), max(2,3))*2"), 6);
}

KF_TEST(expr_errors_name_the_expression)
{
    const char *m = ev_err("K/0");
    KF_CHECK_CONTAINS(m, "'K/0'");
    KF_CHECK_CONTAINS(m, "division by zero");
    m = ev_err("N%(B-B)");
    KF_CHECK_CONTAINS(m, "division by zero");
    m = ev_err("ceil_div(N,0)");
    KF_CHECK_CONTAINS(m, "division by zero");
    m = ev_err("Q*2");
    KF_CHECK_CONTAINS(m, "expression 'Q*2'");
    KF_CHECK_CONTAINS(m, "unknown name 'Q'");
    KF_CHECK_CONTAINS(m, "dims: B, K, N");
    m = ev_err("2*(B");
    KF_CHECK_CONTAINS(m, "expected ')'");
    m = ev_err("B N");
    KF_CHECK_CONTAINS(m, "unexpected 'N'");
    m = ev_err("");
    KF_CHECK_CONTAINS(m, "operand is missing");
    m = ev_err("min(B)");
    KF_CHECK_CONTAINS(m, "expected ','");
    m = ev_err("99999999999*99999999999");
    KF_CHECK_CONTAINS(m, "overflow");
}

static const char *manifest =
    "{\"backend\": \"opencl\", \"sources\": [{\"name\": \"k.cl\", \"text\": \"kernel void g(){}\"}],\n"
    " \"build_options\": \"-cl-mad-enable\",\n"
    " \"scratch\": [{\"name\": \"t\", \"bytes\": \"4*B*N\"}],\n"
    " \"launches\": [{\"kernel\": \"g\", \"global\": [\"round_up(N,16)\", \"round_up(B,16)\"],\n"
    "   \"local\": [16, 16],\n"
    "   \"args\": [\"x\", \"W\", \"b\", \"y\", \"t\", \"B\", \"K\", \"N\", {\"float\": 2.5},\n"
    "            {\"int\": \"K/4\"}, {\"long\": \"B*N\"}, {\"local\": \"4*16*17\"}, 7]}],\n"
    " \"notes\": \"tiled\"}";

static kf_candidate *parse_ok(const char *text)
{
    kf_error err;
    kf_error_clear(&err);
    kf_candidate *c = kf_candidate_parse_manifest(text, NULL, "m/candidate.json", &err);
    if (!c)
        kf_test_fail(__FILE__, __LINE__, "parse failed: %s", err.msg);
    return c;
}

static void check_manifest_fields(const kf_candidate *c)
{
    KF_CHECK_STR(c->backend, "opencl");
    KF_CHECK_INT(c->n_sources, 1);
    KF_CHECK_STR(c->sources[0].name, "k.cl");
    KF_CHECK_STR(c->sources[0].text, "kernel void g(){}");
    KF_CHECK_STR(c->build_options, "-cl-mad-enable");
    KF_CHECK(c->entry == NULL);
    KF_CHECK_INT(c->n_scratch, 1);
    KF_CHECK_STR(c->scratch[0].name, "t");
    KF_CHECK_STR(c->scratch[0].bytes_expr, "4*B*N");
    KF_CHECK_INT(c->n_launches, 1);
    const kf_cand_launch *l = &c->launches[0];
    KF_CHECK_STR(l->kernel, "g");
    KF_CHECK_INT(l->work_dim, 2);
    KF_CHECK_STR(l->global[0], "round_up(N,16)");
    KF_CHECK_STR(l->local[1], "16");
    KF_CHECK_INT(l->n_args, 13);
    KF_CHECK_INT(l->args[0].kind, KF_CARG_NAME);
    KF_CHECK_STR(l->args[4].text, "t");
    KF_CHECK_INT(l->args[8].kind, KF_CARG_FLOAT);
    KF_CHECK_NEAR(l->args[8].fval, 2.5, 0);
    KF_CHECK_INT(l->args[9].kind, KF_CARG_INT);
    KF_CHECK_STR(l->args[9].text, "K/4");
    KF_CHECK_INT(l->args[10].kind, KF_CARG_LONG);
    KF_CHECK_INT(l->args[11].kind, KF_CARG_LOCAL);
    KF_CHECK_INT(l->args[12].kind, KF_CARG_INT);
    KF_CHECK_STR(l->args[12].text, "7");
    KF_CHECK_STR(c->notes, "tiled");
}

KF_TEST(manifest_parse_save_load_round_trip)
{
    kf_error err;
    char dir[4200], path[4300];
    kf_candidate *c = parse_ok(manifest), *back;
    check_manifest_fields(c);
    snprintf(dir, sizeof dir, "%s/sub/cand", kf_test_tmpdir());
    kf_error_clear(&err);
    KF_CHECK_MSG(kf_candidate_save(c, dir, &err) == 0, "save: %s", err.msg);
    snprintf(path, sizeof path, "%s/k.cl", dir);
    char *src = kf_test_read_file(path);
    KF_CHECK_STR(src, "kernel void g(){}");
    free(src);
    back = kf_candidate_load(dir, &err);
    KF_CHECK_MSG(back != NULL, "load: %s", err.msg);
    check_manifest_fields(back);
    snprintf(path, sizeof path, "%s/candidate.json", dir);
    KF_CHECK_STR(back->origin, path);
    /* the manifest text is stable through a second round */
    char *j1 = kf_candidate_manifest_json(c), *j2 = kf_candidate_manifest_json(back);
    KF_CHECK_STR(j1, j2);
    KF_CHECK_CONTAINS(j1, "\"global\"");
    free(j1);
    free(j2);
    /* loading the candidate.json path itself works too */
    kf_candidate *again = kf_candidate_load(path, &err);
    KF_CHECK_MSG(again != NULL, "load json: %s", err.msg);
    KF_CHECK_INT(again->n_launches, 1);
    kf_candidate_free(again);
    kf_candidate_free(back);
    kf_candidate_free(c);
}

KF_TEST(manifest_errors)
{
    kf_error err;
    struct { const char *json, *want; } cases[] = {
        {"{", "not valid JSON"},
        {"{\"sources\": [\"a.c\"]}", "backend: missing"},
        {"{\"backend\": \"cpu-simd\"}", "sources: missing"},
        {"{\"backend\": \"cpu-simd\", \"sources\": []}", "sources: empty"},
        {"{\"backend\": \"cpu-simd\", \"sources\": [\"../x.c\"]}", "not a plain file name"},
        {"{\"backend\": \"cpu-simd\", \"sources\": [\"a.c\"]}", "no directory"},
        {"{\"backend\": \"x\", \"lanches\": []}", "unknown field 'lanches'"},
        {"{\"backend\": \"x\", \"sources\": [{\"name\": \"a\", \"text\": \"\"}], "
         "\"launches\": [{\"kernel\": \"k\", \"global\": [1,2,3,4]}]}",
         "launches[0].global: has 4 entries; work_dim must be 1, 2 or 3"},
        {"{\"backend\": \"x\", \"sources\": [{\"name\": \"a\", \"text\": \"\"}], "
         "\"launches\": [{\"kernel\": \"k\", \"global\": [1,2], \"local\": [1]}]}",
         "launches[0].local: has 1 entries but global has 2"},
        {"{\"backend\": \"x\", \"sources\": [{\"name\": \"a\", \"text\": \"\"}], "
         "\"launches\": [{\"kernel\": \"k\", \"global\": [1], \"args\": [[1]]}]}",
         "launches[0].args[0]: expected a name"},
        {"{\"backend\": \"x\", \"sources\": [{\"name\": \"a\", \"text\": \"\"}], "
         "\"launches\": [{\"kernel\": \"cublas:\", \"global\": [1]}]}",
         "launches[0].kernel: missing, or neither an identifier nor a library call"},
        {"{\"backend\": \"x\", \"sources\": [{\"name\": \"a\", \"text\": \"\"}], "
         "\"launches\": [{\"kernel\": \"a:b:c\", \"global\": [1]}]}", "launches[0].kernel"},
        {"{\"backend\": \"x\", \"sources\": [{\"name\": \"a\", \"text\": \"\"}], "
         "\"launches\": [{\"kernel\": \":sgemm\", \"global\": [1]}]}", "launches[0].kernel"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        kf_error_clear(&err);
        kf_candidate *c = kf_candidate_parse_manifest(cases[i].json, NULL, "d/candidate.json", &err);
        KF_CHECK_MSG(c == NULL, "case %zu parsed", i);
        KF_CHECK_CONTAINS(err.msg, "d/candidate.json: ");
        KF_CHECK_CONTAINS(err.msg, cases[i].want);
    }
}

/* A library launch ("cublas:sgemm", run by the cuda plugin) is a valid
 * kernel name and survives a save and load. */
KF_TEST(manifest_library_launch)
{
    kf_error err = {0};
    kf_candidate *c = kf_candidate_parse_manifest(
        "{\"backend\": \"cuda\", \"sources\": [{\"name\": \"a.cu\", \"text\": \"\"}], "
        "\"launches\": [{\"kernel\": \"cublas:sgemm\", \"global\": [1], \"args\": [\"A\", \"B\", \"C\", "
        "{\"int\": \"M\"}, 8, 8, 0, 0, 8, 8, 8, {\"float\": 1}, {\"float\": 0}]}]}", NULL, "d/candidate.json", &err);
    KF_CHECK_MSG(c != NULL, "%s", err.msg);
    if (!c) return;
    KF_CHECK_INT(c->n_launches, 1);
    KF_CHECK_STR(c->launches[0].kernel, "cublas:sgemm");
    KF_CHECK_INT(c->launches[0].n_args, 13);
    kf_candidate_free(c);
}

KF_TEST(load_single_c_file)
{
    kf_error err;
    char path[4200];
    snprintf(path, sizeof path, "%s/add.c", kf_test_tmpdir());
    KF_CHECK(kf_test_write_file(path, "void kf_kernel(void *a) { (void)a; }\n") == 0);
    kf_candidate *c = kf_candidate_load(path, &err);
    KF_CHECK_MSG(c != NULL, "load: %s", err.msg);
    KF_CHECK_STR(c->backend, "");   /* the evaluating plugin's, if it runs a host entry */
    KF_CHECK_STR(c->entry, "kf_kernel");
    KF_CHECK_INT(c->n_sources, 1);
    KF_CHECK_STR(c->sources[0].name, "add.c");
    KF_CHECK_CONTAINS(c->sources[0].text, "kf_kernel");
    KF_CHECK_INT(c->n_launches, 0);
    kf_candidate_free(c);

    snprintf(path, sizeof path, "%s/missing.c", kf_test_tmpdir());
    KF_CHECK(kf_candidate_load(path, &err) == NULL);
    KF_CHECK_CONTAINS(err.msg, "missing.c");
    KF_CHECK_CONTAINS(err.msg, "No such file");
}

KF_TEST(bind_resolves_names_and_sizes)
{
    kf_error err;
    kf_bound b;
    kf_candidate *c = parse_ok(manifest);
    kf_error_clear(&err);
    KF_CHECK_MSG(kf_candidate_bind(c, &res, &b, &err) == 0, "bind: %s", err.msg);
    KF_CHECK_STR(b.view.backend, "opencl");
    KF_CHECK_INT(b.view.n_sources, 1);
    KF_CHECK_STR(b.view.sources[0].name, "k.cl");
    KF_CHECK_INT(b.pview.n_inputs, 3);
    KF_CHECK_INT(b.pview.input_elems[1], 333 * 250);
    KF_CHECK_STR(b.pview.output_names[0], "y");
    KF_CHECK_INT(b.pview.output_elems[0], 127 * 333);
    KF_CHECK_INT(b.pview.n_scratch, 1);
    KF_CHECK_INT(b.pview.scratch_bytes[0], 4 * 127 * 333);
    KF_CHECK_INT(b.pview.dim_values[2], 333);
    const kf_launch *l = &b.view.launches[0];
    KF_CHECK_INT(l->global[0], 336);
    KF_CHECK_INT(l->global[1], 128);
    KF_CHECK_INT(l->global[2], 1);
    KF_CHECK_INT(l->local[0], 16);
    KF_CHECK_INT(l->args[1].kind, KF_ARG_INPUT);
    KF_CHECK_INT(l->args[1].index, 1);
    KF_CHECK_INT(l->args[3].kind, KF_ARG_OUTPUT);
    KF_CHECK_INT(l->args[3].index, 0);
    KF_CHECK_INT(l->args[4].kind, KF_ARG_SCRATCH);
    KF_CHECK_INT(l->args[7].kind, KF_ARG_INT);
    KF_CHECK_INT(l->args[7].ival, 333);
    KF_CHECK_NEAR(l->args[8].fval, 2.5, 0);
    KF_CHECK_INT(l->args[9].ival, 62);
    KF_CHECK_INT(l->args[10].kind, KF_ARG_LONG);
    KF_CHECK_INT(l->args[10].ival, 127 * 333);
    KF_CHECK_INT(l->args[11].kind, KF_ARG_LOCAL);
    KF_CHECK_INT(l->args[11].bytes, 4 * 16 * 17);
    KF_CHECK_INT(l->args[12].ival, 7);
    kf_bound_free(&b);
    kf_candidate_free(c);
}

/* Parses `json`, binds it, and returns the bind error message. */
static char *bind_error(const char *json)
{
    static kf_error err;
    kf_bound b;
    kf_candidate *c = parse_ok(json);
    kf_error_clear(&err);
    int rc = kf_candidate_bind(c, &res, &b, &err);
    kf_candidate_free(c);
    KF_CHECK_MSG(rc == -1, "bind of %s succeeded", json);
    return err.msg;
}

#define PLAN(global, local, args, scratch) \
    "{\"backend\": \"opencl\", \"sources\": [{\"name\": \"k.cl\", \"text\": \"\"}], " \
    "\"scratch\": [" scratch "], \"launches\": [{\"kernel\": \"g\", \"global\": " global \
    ", \"local\": " local ", \"args\": " args "}]}"

KF_TEST(bind_errors)
{
    char *m = bind_error(PLAN("[\"N\"]", "null", "[\"x\", \"W\", \"b\", \"Wt\"]", ""));
    KF_CHECK_STR(m, "m/candidate.json: launches[0].args[3]: unknown name 'Wt' (inputs: x, W, "
                    "b; outputs: y; scratch: -; dims: B, K, N)");

    m = bind_error(PLAN("[\"N\"]", "null", "[\"x\", \"y\"]", "{\"name\": \"y\", \"bytes\": 4}"));
    KF_CHECK_CONTAINS(m, "scratch[0].name: 'y' collides with a problem output");

    m = bind_error(PLAN("[\"N\", \"B\"]", "[16, 16]", "[]", ""));
    KF_CHECK_CONTAINS(m, "launches[0].local[0]: local size 16 does not divide global size 333");
    KF_CHECK_CONTAINS(m, "round_up(N,16)");

    m = bind_error(PLAN("[\"N-N\"]", "null", "[]", ""));
    KF_CHECK_CONTAINS(m, "launches[0].global[0]: 'N-N' = 0; a global size must be >= 1");

    m = bind_error(PLAN("[\"N/(B-B)\"]", "null", "[]", ""));
    KF_CHECK_CONTAINS(m, "launches[0].global[0]: expression 'N/(B-B)': division by zero");

    m = bind_error(PLAN("[\"N\"]", "null", "[{\"int\": \"Z\"}]", ""));
    KF_CHECK_CONTAINS(m, "launches[0].args[0]: expression 'Z': unknown name 'Z'");

    m = bind_error(PLAN("[1]", "null", "[{\"int\": \"B*K*N*N\"}]", ""));
    KF_CHECK_CONTAINS(m, "does not fit a 32-bit int");

    m = bind_error(PLAN("[1]", "null", "[]", "{\"name\": \"t\", \"bytes\": \"-B\"}"));
    KF_CHECK_CONTAINS(m, "scratch[0].bytes: '-B' = -127 bytes");
}

KF_TEST(bind_ambiguous_name_and_bad_work_dim)
{
    kf_error err;
    kf_bound b;
    /* a problem whose output is also an input: the name is ambiguous */
    int outs[] = {0};
    kf_problem p2 = prob;
    p2.outputs = outs;
    kf_resolved r2 = res;
    r2.problem = &p2;
    kf_candidate *c = parse_ok(PLAN("[\"N\"]", "null", "[\"x\"]", ""));
    kf_error_clear(&err);
    KF_CHECK(kf_candidate_bind(c, &r2, &b, &err) == -1);
    KF_CHECK_CONTAINS(err.msg, "launches[0].args[0]: ambiguous name 'x': it is an input and an "
                               "output");
    KF_CHECK_CONTAINS(err.msg, "outputs: x");

    /* work_dim is checked at bind time for candidates built in code */
    c->launches[0].work_dim = 4;
    kf_error_clear(&err);
    KF_CHECK(kf_candidate_bind(c, &res, &b, &err) == -1);
    KF_CHECK_CONTAINS(err.msg, "launches[0]: work_dim is 4; it must be 1, 2 or 3");
    c->launches[0].work_dim = 0;
    KF_CHECK(kf_candidate_bind(c, &res, &b, &err) == -1);
    KF_CHECK_CONTAINS(err.msg, "work_dim is 0");
    kf_candidate_free(c);
}

KF_TEST(candidate_built_in_code)
{
    kf_error err;
    kf_bound b;
    kf_candidate *c = kf_candidate_new("cpu-simd");
    KF_CHECK(c != NULL);
    KF_CHECK_STR(c->build_options, "");
    KF_CHECK(kf_candidate_add_source(c, "k.c", "int a;") == 0);
    KF_CHECK(kf_candidate_add_source(c, "k.c", "int b;") == 0);   /* replaces */
    KF_CHECK(kf_candidate_add_source(c, "../evil.c", "x") == -1);
    KF_CHECK_INT(c->n_sources, 1);
    KF_CHECK_STR(c->sources[0].text, "int b;");
    kf_error_clear(&err);
    KF_CHECK_MSG(kf_candidate_bind(c, &res, &b, &err) == 0, "bind: %s", err.msg);
    KF_CHECK_INT(b.view.n_launches, 0);
    KF_CHECK_STR(b.view.build_options, "");
    KF_CHECK_INT(b.pview.n_dims, 3);
    kf_bound_free(&b);
    char *j = kf_candidate_manifest_json(c);
    KF_CHECK_CONTAINS(j, "\"backend\": \"cpu-simd\"");
    KF_CHECK(strstr(j, "launches") == NULL);
    free(j);
    kf_candidate_free(c);
}

/* Tensor maps (plan ABI 1.5): parsed, saved and parsed again, bound with
 * every expression evaluated; each malformed one refused with the path of
 * the field; the buffer must be an input, output or scratch buffer. */
#define TMAP_PLAN(m) \
    "{\"backend\": \"cuda\", \"sources\": [{\"name\": \"k.cu\", \"text\": \"\"}],\n" \
    " \"scratch\": [{\"name\": \"t\", \"bytes\": \"2*B*K\"}],\n" \
    " \"launches\": [{\"kernel\": \"g\", \"global\": [256], \"local\": [256],\n" \
    "   \"args\": [\"y\", {\"tensor_map\": " m "}, \"B\"]}]}"

KF_TEST(manifest_tensor_map)
{
    kf_error err;
    kf_bound b;
    kf_candidate *c = parse_ok(TMAP_PLAN("{\"buffer\": \"t\", \"dtype\": \"bf16\", \"dims\": [\"K\", \"B\"], "
                                         "\"strides\": [\"2*K\"], \"box\": [64, \"min(B,128)\"], \"swizzle\": 128}"));
    if (!c) return;
    const kf_cand_arg *a = &c->launches[0].args[1];
    KF_CHECK_INT(a->kind, KF_CARG_TENSOR_MAP);
    KF_CHECK_STR(a->text, "t");
    KF_CHECK_INT(a->tmap->rank, 2);
    KF_CHECK_INT(a->tmap->dtype, KF_DT_BF16);
    KF_CHECK_INT(a->tmap->swizzle, 128);
    KF_CHECK_STR(a->tmap->strides[1], "2*K");
    KF_CHECK_STR(a->tmap->box[1], "min(B,128)");
    /* saved and parsed again: the same map */
    char dir[4200];
    snprintf(dir, sizeof dir, "%s/tmap", kf_test_tmpdir());
    kf_error_clear(&err);
    KF_CHECK_MSG(kf_candidate_save(c, dir, &err) == 0, "save: %s", err.msg);
    kf_candidate *c2 = kf_candidate_load(dir, &err);
    KF_CHECK_MSG(c2 != NULL, "load: %s", err.msg);
    if (c2) {
        const kf_cand_arg *a2 = &c2->launches[0].args[1];
        KF_CHECK_INT(a2->kind, KF_CARG_TENSOR_MAP);
        KF_CHECK_STR(a2->text, "t");
        KF_CHECK_STR(a2->tmap->dims[0], "K");
        KF_CHECK_INT(a2->tmap->dtype, KF_DT_BF16);
        KF_CHECK_INT(a2->tmap->swizzle, 128);
        kf_candidate_free(c2);
    }
    kf_error_clear(&err);
    KF_CHECK_MSG(kf_candidate_bind(c, &res, &b, &err) == 0, "bind: %s", err.msg);
    KF_CHECK_INT(b.view.n_tensor_maps, 1);
    KF_CHECK_INT(b.view.tensor_map_size, (int)sizeof(kf_tensor_map));
    const kf_launch *l = &b.view.launches[0];
    KF_CHECK_INT(l->args[1].kind, KF_ARG_TENSOR_MAP);
    KF_CHECK_INT(l->args[1].index, 0);
    KF_CHECK_INT(l->args[2].kind, KF_ARG_INT);   /* the args after it keep their places */
    const kf_tensor_map *t = &b.view.tensor_maps[0];
    KF_CHECK_INT(t->buffer_kind, KF_ARG_SCRATCH);
    KF_CHECK_INT(t->buffer_index, 0);
    KF_CHECK_INT(t->rank, 2);
    KF_CHECK_INT(t->dims[0], 250);
    KF_CHECK_INT(t->dims[1], 127);
    KF_CHECK_INT(t->strides[0], 2);
    KF_CHECK_INT(t->strides[1], 500);
    KF_CHECK_INT(t->box[0], 64);
    KF_CHECK_INT(t->box[1], 127);
    kf_bound_free(&b);
    kf_candidate_free(c);
    /* defaults: f32, no swizzle; rank 1 needs no strides; an input buffer */
    c = parse_ok(TMAP_PLAN("{\"buffer\": \"W\", \"dims\": [\"N*K\"], \"box\": [32]}"));
    if (!c) return;
    kf_error_clear(&err);
    KF_CHECK_MSG(kf_candidate_bind(c, &res, &b, &err) == 0, "bind: %s", err.msg);
    KF_CHECK_INT(b.view.tensor_maps[0].buffer_kind, KF_ARG_INPUT);
    KF_CHECK_INT(b.view.tensor_maps[0].buffer_index, 1);
    KF_CHECK_INT(b.view.tensor_maps[0].dtype, KF_DT_F32);
    KF_CHECK_INT(b.view.tensor_maps[0].strides[0], 4);
    KF_CHECK_INT(b.view.tensor_maps[0].dims[0], 333 * 250);
    KF_CHECK_INT(b.view.tensor_maps[0].swizzle, 0);
    kf_bound_free(&b);
    kf_candidate_free(c);
}

KF_TEST(manifest_tensor_map_refused)
{
    kf_error err;
    struct { const char *json, *want; } cases[] = {
        {TMAP_PLAN("[1]"), "launches[0].args[1].tensor_map: expected an object"},
        {TMAP_PLAN("{\"buffer\": \"t\", \"dims\": [], \"box\": []}"),
         "launches[0].args[1].tensor_map.dims: has 0 entries; a tensor map has rank 1 to 5"},
        {TMAP_PLAN("{\"buffer\": \"t\", \"dims\": [1,1,1,1,1,1], \"strides\": [16,16,16,16,16], \"box\": [1,1,1,1,1,1]}"),
         "tensor_map.dims: has 6 entries"},
        {TMAP_PLAN("{\"buffer\": \"t\", \"dims\": [\"K\", \"B\"], \"box\": [64, 128]}"),
         "tensor_map.strides: missing (1 byte strides"},
        {TMAP_PLAN("{\"buffer\": \"t\", \"dims\": [\"K\", \"B\"], \"strides\": [16, 16], \"box\": [64, 128]}"),
         "tensor_map.strides: expected an array of 1 byte strides"},
        {TMAP_PLAN("{\"buffer\": \"t\", \"dims\": [\"K\", \"B\"], \"strides\": [16], \"box\": [64]}"),
         "tensor_map.box: expected an array of 2 tile sizes"},
        {TMAP_PLAN("{\"buffer\": \"t\", \"dims\": [\"K\"], \"box\": [64], \"swizzle\": 16}"),
         "tensor_map.swizzle: expected 0, 32, 64 or 128"},
        {TMAP_PLAN("{\"buffer\": \"t\", \"dtype\": \"f64\", \"dims\": [\"K\"], \"box\": [64]}"),
         "tensor_map.dtype: expected \"f32\", \"bf16\" or \"f16\""},
        {TMAP_PLAN("{\"buffer\": \"t\", \"dims\": [\"K\"], \"box\": [64], \"interleave\": 1}"),
         "unknown field 'interleave'"},
        {TMAP_PLAN("{\"dims\": [\"K\"], \"box\": [64]}"), "tensor_map.buffer: missing or not a name"},
        {TMAP_PLAN("{\"buffer\": \"t\", \"dims\": [[1]], \"box\": [64]}"),
         "tensor_map.dims[0]: expected an integer or an expression string"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        kf_error_clear(&err);
        kf_candidate *c = kf_candidate_parse_manifest(cases[i].json, NULL, "d/candidate.json", &err);
        KF_CHECK_MSG(c == NULL, "case %zu parsed", i);
        kf_candidate_free(c);
        KF_CHECK_CONTAINS(err.msg, cases[i].want);
    }
    /* bind: the buffer is a dim, or unknown; an expression below 1 */
    struct { const char *json, *want; } bcases[] = {
        {TMAP_PLAN("{\"buffer\": \"K\", \"dims\": [\"K\"], \"box\": [64]}"),
         "launches[0].args[1].tensor_map.buffer: 'K' is a dim; a tensor map covers an input, output or scratch buffer"},
        {TMAP_PLAN("{\"buffer\": \"zz\", \"dims\": [\"K\"], \"box\": [64]}"), "unknown name 'zz'"},
        {TMAP_PLAN("{\"buffer\": \"t\", \"dims\": [\"K\", \"B\"], \"strides\": [\"K-250\"], \"box\": [64, 1]}"),
         "launches[0].args[1].tensor_map.strides[0]: 'K-250' = 0; it must be >= 1"},
        {TMAP_PLAN("{\"buffer\": \"t\", \"dims\": [\"K\"], \"box\": [\"N/0\"]}"), "tensor_map.box[0]"},
    };
    for (size_t i = 0; i < sizeof bcases / sizeof bcases[0]; i++) {
        kf_candidate *c = parse_ok(bcases[i].json);
        if (!c) continue;
        kf_bound b;
        kf_error_clear(&err);
        KF_CHECK_MSG(kf_candidate_bind(c, &res, &b, &err) == -1, "bind case %zu passed", i);
        KF_CHECK_CONTAINS(err.msg, bcases[i].want);
        kf_candidate_free(c);
    }
}

int main(void)
{
    return kf_test_main();
}

/* kf_candidate_same_code: one directory per variant of a kernel; each compared
 * with the first ("a"). */
static void same_dir(const char *root, const char *name, const char *man, const char *src)
{
    char p[4200];
    snprintf(p, sizeof p, "%s/%s", root, name);
    KF_CHECK(mkdir(p, 0700) == 0);
    snprintf(p, sizeof p, "%s/%s/candidate.json", root, name);
    KF_CHECK(kf_test_write_file(p, man) == 0);
    if (src) {
        snprintf(p, sizeof p, "%s/%s/kernel.c", root, name);
        KF_CHECK(kf_test_write_file(p, src) == 0);
    }
}

static int same_as_a(const char *root, const char *name)
{
    char a[4200], b[4200];
    snprintf(a, sizeof a, "%s/a", root);
    snprintf(b, sizeof b, "%s/%s", root, name);
    return kf_candidate_same_code(a, b);
}

KF_TEST(same_code_ignores_comments_only)
{
    const char *root = kf_test_tmpdir();
    const char *m = "{\"backend\": \"cpu-simd\", \"sources\": [\"kernel.c\"], \"entry\": \"kf_kernel\"}";
    const char *code = "/* point A */\nconst char *s = \"/* kept */ // kept\";\nchar q = '\"'; // note\n"
                       "int f(int x) { return x /* one */ * 2; }\n";
    same_dir(root, "a", m, code);
    /* other comments, the same code (the manifest's keys in another order, other notes) */
    same_dir(root, "b", "{\"entry\": \"kf_kernel\", \"sources\": [\"kernel.c\"], \"backend\": \"cpu-simd\", "
             "\"notes\": \"builtin point: another\"}",
             "/* point B, longer */\nconst char *s = \"/* kept */ // kept\";\nchar q = '\"'; // other note\n"
             "int f(int x) { return x /* two */ * 2; }\n");
    KF_CHECK(same_as_a(root, "b") == 1);
    KF_CHECK(same_as_a(root, "a") == 1);
    /* code inside a string literal that looks like a comment is code */
    same_dir(root, "c", m, "/* point A */\nconst char *s = \"/* kep! */ // kept\";\nchar q = '\"'; // note\n"
             "int f(int x) { return x /* one */ * 2; }\n");
    KF_CHECK(same_as_a(root, "c") == 0);
    /* one operator differs */
    same_dir(root, "d", m, "/* point A */\nconst char *s = \"/* kept */ // kept\";\nchar q = '\"'; // note\n"
             "int f(int x) { return x /* one */ + 2; }\n");
    KF_CHECK(same_as_a(root, "d") == 0);
    /* the manifest differs (a build option) */
    same_dir(root, "e", "{\"backend\": \"cpu-simd\", \"sources\": [\"kernel.c\"], \"entry\": \"kf_kernel\", "
             "\"build_options\": \"-DX\"}", code);
    KF_CHECK(same_as_a(root, "e") == 0);
    /* a lone source under another name (a model's answer is candidate.c): the same */
    same_dir(root, "g", "{\"backend\": \"cpu-simd\", \"sources\": [\"candidate.c\"], \"entry\": \"kf_kernel\"}",
             NULL);
    char p[4200];
    snprintf(p, sizeof p, "%s/g/candidate.c", root);
    KF_CHECK(kf_test_write_file(p, code) == 0);
    KF_CHECK(same_as_a(root, "g") == 1);
    /* two sources: their names count (one may include the other) */
    const char *m2 = "{\"backend\": \"opencl\", \"sources\": [\"a.cl\", \"b.cl\"]}";
    const char *m2x = "{\"backend\": \"opencl\", \"sources\": [\"a.cl\", \"c.cl\"]}";
    same_dir(root, "t1", m2, NULL);
    same_dir(root, "t2", m2, NULL);
    same_dir(root, "t3", m2x, NULL);
    const char *files[][2] = {{"t1/a.cl", "k"}, {"t1/b.cl", "h"}, {"t2/a.cl", "/* x */k"}, {"t2/b.cl", "h"},
                              {"t3/a.cl", "k"}, {"t3/c.cl", "h"}};
    for (int i = 0; i < 6; i++) {
        snprintf(p, sizeof p, "%s/%s", root, files[i][0]);
        KF_CHECK(kf_test_write_file(p, files[i][1]) == 0);
    }
    char t1[4200], t2[4200], t3[4200];
    snprintf(t1, sizeof t1, "%s/t1", root);
    snprintf(t2, sizeof t2, "%s/t2", root);
    snprintf(t3, sizeof t3, "%s/t3", root);
    KF_CHECK(kf_candidate_same_code(t1, t2) == 1);
    KF_CHECK(kf_candidate_same_code(t1, t3) == 0);
    /* blanks and comments between tokens are one space; tokens joined, or a line
       joined to a preprocessor directive, are other code */
    static const struct { const char *x, *y; int same; } pairs[] = {
        {"int a = b  +\tc;\n", "  int a = b + c; // sum\n\n", 1},
        {"a/**/b\n", "a b\n", 1},
        {"ab\n", "a b\n", 0},
        {"#define X 1\nint y;\n", "#define X 1 int y;\n", 0},
        {"#define X 1 /* one\n   more */ int y;\n", "#define X 1 int y;\n", 1},
        {"s = \"a  b\";\n", "s = \"a b\";\n", 0},
        {"c = '\\'';\n", "c = '\\''; /* quote */\n", 1},
    };
    for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
        char dx[64], dy[64];
        snprintf(dx, sizeof dx, "px%zu", i);
        snprintf(dy, sizeof dy, "py%zu", i);
        same_dir(root, dx, m, pairs[i].x);
        same_dir(root, dy, m, pairs[i].y);
        char ax[4200], ay[4200];
        snprintf(ax, sizeof ax, "%s/%s", root, dx);
        snprintf(ay, sizeof ay, "%s/%s", root, dy);
        KF_CHECK_MSG(kf_candidate_same_code(ax, ay) == pairs[i].same, "pair %zu: '%s' and '%s'", i, pairs[i].x,
                     pairs[i].y);
    }
    /* a source missing, a manifest missing */
    same_dir(root, "f", m, NULL);
    KF_CHECK(same_as_a(root, "f") == 0);
    KF_CHECK(same_as_a(root, "nonexistent") == 0);
    /* a raw string literal: not stripped, so different even where only comments differ */
    same_dir(root, "r1", m, "/* one */ auto s = R\"(x)\";\n");
    same_dir(root, "r2", m, "/* two */ auto s = R\"(x)\";\n");
    char r1[4200], r2[4200];
    snprintf(r1, sizeof r1, "%s/r1", root);
    snprintf(r2, sizeof r2, "%s/r2", root);
    KF_CHECK(kf_candidate_same_code(r1, r2) == 0);
    /* a binary source is never called the same */
    const char *mb = "{\"backend\": \"levelzero\", \"sources\": [\"k.spv\"]}";
    same_dir(root, "s1", mb, NULL);
    same_dir(root, "s2", mb, NULL);
    snprintf(p, sizeof p, "%s/s1/k.spv", root);
    KF_CHECK(kf_test_write_file(p, "same") == 0);
    snprintf(p, sizeof p, "%s/s2/k.spv", root);
    KF_CHECK(kf_test_write_file(p, "same") == 0);
    snprintf(r1, sizeof r1, "%s/s1", root);
    snprintf(r2, sizeof r2, "%s/s2", root);
    KF_CHECK(kf_candidate_same_code(r1, r2) == 0);
}
