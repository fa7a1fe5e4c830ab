/*
 * test_problem.c — loading a well-formed problem: fields, init, tolerance,
 * attribute defaults, the op table (with the swish alias), look-ups, FLOPs
 * and bytes of a linear + epilogue problem, and the graph description.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../kf_test.h"
#include "problem/problem.h"

/* The example of problems/FORMAT.md. */
static const char *example =
    "{\n"
    "  \"name\": \"9_Matmul_Subtract_Multiply_ReLU\",\n"
    "  \"level\": 2,\n"
    "  \"description\": \"nn.Linear(K, N), then x - 2.0, x * 1.5, ReLU\",\n"
    "  \"dims\": [\"B\", \"K\", \"N\"],\n"
    "  \"presets\": {\n"
    "    \"small\":       {\"B\": 127,  \"K\": 250,  \"N\": 333},\n"
    "    \"cpu\":         {\"B\": 512,  \"K\": 2048, \"N\": 2048},\n"
    "    \"kernelbench\": {\"B\": 1024, \"K\": 8192, \"N\": 8192}\n"
    "  },\n"
    "  \"inputs\": [\n"
    "    {\"name\": \"x\", \"shape\": [\"B\", \"K\"], \"dtype\": \"float32\", \"init\": {\"dist\": \"uniform\", \"low\": 0.0, \"high\": 1.0}},\n"
    "    {\"name\": \"W\", \"shape\": [\"N\", \"K\"], \"init\": {\"dist\": \"kaiming_uniform\", \"fan_in\": \"K\"}},\n"
    "    {\"name\": \"b\", \"shape\": [\"N\"],      \"init\": {\"dist\": \"kaiming_uniform\", \"fan_in\": \"K\"}}\n"
    "  ],\n"
    "  \"graph\": [\n"
    "    {\"out\": \"h\",  \"op\": \"linear\", \"in\": [\"x\", \"W\", \"b\"]},\n"
    "    {\"out\": \"h1\", \"op\": \"sub\",    \"in\": [\"h\", 2.0]},\n"
    "    {\"out\": \"h2\", \"op\": \"mul\",    \"in\": [\"h1\", 1.5]},\n"
    "    {\"out\": \"y\",  \"op\": \"relu\",   \"in\": [\"h2\"]}\n"
    "  ],\n"
    "  \"outputs\": [\"y\"],\n"
    "  \"tolerance\": {\"atol\": 1e-2, \"rtol\": 1e-2, \"rel_l2\": 1e-2}\n"
    "}\n";

static kf_problem *parse_ok(const char *text)
{
    kf_error err = {0};
    kf_problem *p = kf_problem_parse(text, "t.json", &err);
    KF_CHECK_MSG(p != NULL, "parse failed: %s", err.msg);
    return p;
}

KF_TEST(loads_the_format_example)
{
    kf_problem *p = parse_ok(example);
    KF_CHECK_STR(p->name, "9_Matmul_Subtract_Multiply_ReLU");
    KF_CHECK_STR(p->path, "t.json");
    KF_CHECK_INT(p->level, 2);
    KF_CHECK_STR(p->description, "nn.Linear(K, N), then x - 2.0, x * 1.5, ReLU");
    KF_CHECK_INT(p->n_dims, 3);
    KF_CHECK_STR(p->dim_names[2], "N");
    KF_CHECK_INT(p->n_presets, 3);
    KF_CHECK_STR(p->preset_names[0], "small");
    KF_CHECK_STR(p->preset_names[2], "kernelbench");
    KF_CHECK_INT(p->preset_values[0 * 3 + 2], 333);
    KF_CHECK_INT(p->preset_values[2 * 3 + 1], 8192);
    KF_CHECK_INT(p->n_inputs, 3);
    KF_CHECK_INT(p->inputs[1].shape.rank, 2);
    KF_CHECK_INT(p->inputs[1].shape.dim_index[0], 2);
    KF_CHECK_INT(p->inputs[1].shape.dim_index[1], 1);
    KF_CHECK_INT(p->inputs[0].init.dist, KF_DIST_UNIFORM);
    KF_CHECK_NEAR(p->inputs[0].init.b, 1.0, 0);
    KF_CHECK_INT(p->inputs[2].init.dist, KF_DIST_KAIMING_UNIFORM);
    KF_CHECK_STR(p->inputs[2].init.fan_in_dim, "K");
    KF_CHECK_INT(p->n_nodes, 4);
    KF_CHECK_INT(p->nodes[0].op, KF_OP_LINEAR);
    KF_CHECK_INT(p->nodes[0].n_in, 3);
    KF_CHECK_INT(p->nodes[0].in[2].value, 2);
    KF_CHECK_INT(p->nodes[1].in[1].is_scalar, 1);
    KF_CHECK_NEAR(p->nodes[1].in[1].scalar, 2.0, 0);
    KF_CHECK_INT(p->nodes[1].in[0].value, 3);
    KF_CHECK_INT(p->n_outputs, 1);
    KF_CHECK_INT(p->outputs[0], 6);
    KF_CHECK_NEAR(p->rel_l2, 1e-2, 0);
    KF_CHECK(p->c_reference == NULL);
    kf_problem_free(p);
}

KF_TEST(lookups)
{
    kf_problem *p = parse_ok(example);
    KF_CHECK_INT(kf_problem_n_values(p), 7);
    KF_CHECK_INT(kf_problem_find_value(p, "W"), 1);
    KF_CHECK_INT(kf_problem_find_value(p, "h2"), 5);
    KF_CHECK_INT(kf_problem_find_value(p, "nope"), -1);
    KF_CHECK_STR(kf_problem_value_name(p, 6), "y");
    KF_CHECK(kf_problem_value_name(p, 7) == NULL);
    KF_CHECK_INT(kf_problem_find_preset(p, "cpu"), 1);
    KF_CHECK_INT(kf_problem_find_preset(p, "gpu"), -1);
    kf_problem_free(p);
}

/* FORMAT.md: linear 2*M*N*K + M*N, every other op one FLOP per element;
 * bytes = 4 * (inputs + outputs). */
KF_TEST(flops_and_bytes_of_linear_with_epilogue)
{
    kf_problem *p = parse_ok(example);
    kf_resolved r;
    kf_error err = {0};
    KF_CHECK_MSG(kf_resolve(p, 0, &r, &err) == 0, "%s", err.msg);
    double B = 127, K = 250, N = 333;
    KF_CHECK_NEAR(r.flops, 2 * B * N * K + B * N + 3 * B * N, 0);
    KF_CHECK_NEAR(r.flops, 21314664.0, 0);
    KF_CHECK_NEAR(r.min_bytes, 4 * (B * K + N * K + N + B * N), 0);
    KF_CHECK_NEAR(r.min_bytes, 630496.0, 0);
    KF_CHECK(r.problem == p);
    KF_CHECK_INT(r.dims[0], 127);
    KF_CHECK_INT(r.shapes[6].rank, 2);
    KF_CHECK_INT(r.shapes[6].d[1], 333);
    KF_CHECK_INT(kf_shape_elems(&r.shapes[6]), 127 * 333);
    kf_resolved_free(&r);
    KF_CHECK_MSG(kf_resolve(p, 2, &r, &err) == 0, "%s", err.msg);
    KF_CHECK_NEAR(r.flops, 2.0 * 1024 * 8192 * 8192 + 4.0 * 1024 * 8192, 0);
    KF_CHECK_NEAR(r.min_bytes, 4.0 * (1024.0 * 8192 + 8192.0 * 8192 + 8192 + 1024.0 * 8192), 0);
    kf_resolved_free(&r);
    KF_CHECK(kf_resolve(p, 3, &r, &err) != 0);
    KF_CHECK_CONTAINS(err.msg, "t.json: no preset #3");
    kf_problem_free(p);
}

KF_TEST(scalar_shape_elems)
{
    kf_shape s = {0, {0}};
    KF_CHECK_INT(kf_shape_elems(&s), 1);
    kf_shape t = {3, {2, 3, 4}};
    KF_CHECK_INT(kf_shape_elems(&t), 24);
}

KF_TEST(op_table_and_alias)
{
    KF_CHECK_INT(kf_op_from_name("swish"), KF_OP_SILU);
    KF_CHECK_INT(kf_op_from_name("silu"), KF_OP_SILU);
    KF_CHECK_STR(kf_op_name(KF_OP_SILU), "silu");
    KF_CHECK_INT(kf_op_from_name("relu6"), KF_OP_INVALID);
    KF_CHECK_INT(kf_op_from_name(NULL), KF_OP_INVALID);
    /* every op round-trips through its name */
    for (int op = 1; op < KF_OP__COUNT; op++) {
        const char *n = kf_op_name((kf_op)op);
        KF_CHECK_MSG(strcmp(n, "invalid") != 0, "op %d has no name", op);
        KF_CHECK_INT(kf_op_from_name(n), op);
    }
    KF_CHECK(kf_op_is_binary(KF_OP_ADD) && kf_op_is_binary(KF_OP_POW));
    KF_CHECK(!kf_op_is_binary(KF_OP_RELU) && !kf_op_is_binary(KF_OP_LINEAR));
    KF_CHECK(kf_op_is_unary(KF_OP_RELU) && kf_op_is_unary(KF_OP_DROPOUT) && kf_op_is_unary(KF_OP_GELU));
    KF_CHECK(!kf_op_is_unary(KF_OP_SOFTMAX) && !kf_op_is_unary(KF_OP_SUM));
    KF_CHECK(kf_op_is_reduction(KF_OP_SUM) && kf_op_is_reduction(KF_OP_LOGSUMEXP));
    KF_CHECK(!kf_op_is_reduction(KF_OP_SOFTMAX) && !kf_op_is_reduction(KF_OP_LAYER_NORM));
    KF_CHECK_STR(kf_op_name(KF_OP_INVALID), "invalid");
}

#define DEF_HEAD "{\"name\": \"d\", \"dims\": [\"B\", \"N\"], \"presets\": {\"s\": {\"B\": 4, \"N\": 8}}," \
    "\"inputs\": [{\"name\": \"x\", \"shape\": [\"B\", \"N\"]}, {\"name\": \"rm\", \"shape\": [\"N\"]}]," \
    "\"graph\": ["

KF_TEST(attribute_defaults)
{
    kf_problem *p = parse_ok(DEF_HEAD
        "{\"out\": \"a\", \"op\": \"leaky_relu\", \"in\": [\"x\"]},"
        "{\"out\": \"b\", \"op\": \"elu\", \"in\": [\"a\"]},"
        "{\"out\": \"c\", \"op\": \"softplus\", \"in\": [\"b\"]},"
        "{\"out\": \"d\", \"op\": \"hardtanh\", \"in\": [\"c\"]},"
        "{\"out\": \"e\", \"op\": \"clamp\", \"in\": [\"d\"], \"min\": 0},"
        "{\"out\": \"f\", \"op\": \"gelu\", \"in\": [\"e\"]},"
        "{\"out\": \"g\", \"op\": \"gelu\", \"in\": [\"f\"], \"approximate\": \"tanh\"},"
        "{\"out\": \"h\", \"op\": \"layer_norm\", \"in\": [\"g\"]},"
        "{\"out\": \"i\", \"op\": \"rms_norm\", \"in\": [\"h\"]},"
        "{\"out\": \"j\", \"op\": \"batch_norm\", \"in\": [\"i\"]},"
        "{\"out\": \"k\", \"op\": \"max_pool1d\", \"in\": [\"j\"], \"kernel_size\": 2},"
        "{\"out\": \"l\", \"op\": \"matmul\", \"in\": [\"k\", \"x\"]},"
        "{\"out\": \"m\", \"op\": \"sum\", \"in\": [\"l\"], \"dim\": -1},"
        "{\"out\": \"n\", \"op\": \"group_norm\", \"in\": [\"x\"], \"groups\": 2},"
        "{\"out\": \"o\", \"op\": \"clamp\", \"in\": [\"x\"], \"max\": 3.5},"
        "{\"out\": \"q\", \"op\": \"dropout\", \"in\": [\"x\"], \"p\": 0.5},"
        "{\"out\": \"r\", \"op\": \"swish\", \"in\": [\"q\"]}"
        "], \"outputs\": [\"m\", \"n\", \"o\", \"r\"]}");
    kf_node *n = p->nodes;
    KF_CHECK_NEAR(n[0].alpha, 0.01, 0);
    KF_CHECK_NEAR(n[1].alpha, 1.0, 0);
    KF_CHECK_NEAR(n[2].alpha, 1.0, 0);
    KF_CHECK_NEAR(n[2].beta, 20.0, 0);
    KF_CHECK_NEAR(n[3].lo, -1.0, 0);
    KF_CHECK_NEAR(n[3].hi, 1.0, 0);
    KF_CHECK_NEAR(n[4].lo, 0.0, 0);
    KF_CHECK(isnan(n[4].hi));
    KF_CHECK_INT(n[5].gelu_tanh, 0);
    KF_CHECK_INT(n[6].gelu_tanh, 1);
    KF_CHECK_NEAR(n[7].eps, 1e-5, 0);
    KF_CHECK_INT(n[7].normalized_dims, 1);
    KF_CHECK_NEAR(n[8].eps, 1.1920929e-07, 0);
    KF_CHECK_INT(n[8].normalized_dims, 1);
    KF_CHECK_INT(n[9].training, 1);
    KF_CHECK_NEAR(n[9].eps, 1e-5, 0);
    KF_CHECK_INT(n[10].kernel_size, 2);
    KF_CHECK_INT(n[10].stride, 2);
    KF_CHECK_INT(n[10].padding, 0);
    KF_CHECK_INT(n[11].transpose_b, 0);
    KF_CHECK_INT(n[12].keepdim, 0);
    KF_CHECK_INT(n[12].dim, 1);          /* -1 stored normalised for rank 2 */
    KF_CHECK_INT(n[13].groups, 2);
    KF_CHECK_NEAR(n[13].eps, 1e-5, 0);
    KF_CHECK(isnan(n[14].lo));
    KF_CHECK_NEAR(n[14].hi, 3.5, 0);
    KF_CHECK_INT(n[16].op, KF_OP_SILU);
    kf_problem_free(p);
}

KF_TEST(explicit_attributes)
{
    kf_problem *p = parse_ok(DEF_HEAD
        "{\"out\": \"a\", \"op\": \"leaky_relu\", \"in\": [\"x\"], \"negative_slope\": 0.1},"
        "{\"out\": \"b\", \"op\": \"softplus\", \"in\": [\"a\"], \"beta\": 2, \"threshold\": 10},"
        "{\"out\": \"c\", \"op\": \"hardtanh\", \"in\": [\"b\"], \"min_val\": -2, \"max_val\": 2},"
        "{\"out\": \"d\", \"op\": \"batch_norm\", \"in\": [\"c\", \"rm\", \"rm\", \"rm\", \"rm\"], \"training\": false, \"eps\": 0.001},"
        "{\"out\": \"e\", \"op\": \"avg_pool1d\", \"in\": [\"d\"], \"kernel_size\": 3, \"stride\": 1, \"padding\": 1},"
        "{\"out\": \"f\", \"op\": \"logsumexp\", \"in\": [\"e\"], \"dim\": 0, \"keepdim\": true}"
        "], \"outputs\": [\"f\"], \"tolerance\": {\"atol\": 1e-4}}");
    kf_node *n = p->nodes;
    KF_CHECK_NEAR(n[0].alpha, 0.1, 0);
    KF_CHECK_NEAR(n[1].alpha, 2, 0);
    KF_CHECK_NEAR(n[1].beta, 10, 0);
    KF_CHECK_NEAR(n[2].lo, -2, 0);
    KF_CHECK_NEAR(n[2].hi, 2, 0);
    KF_CHECK_INT(n[3].training, 0);
    KF_CHECK_INT(n[3].n_in, 5);
    KF_CHECK_NEAR(n[3].eps, 0.001, 0);
    KF_CHECK_INT(n[4].stride, 1);
    KF_CHECK_INT(n[4].padding, 1);
    KF_CHECK_INT(n[5].keepdim, 1);
    KF_CHECK_NEAR(p->atol, 1e-4, 0);
    KF_CHECK_NEAR(p->rtol, 1e-2, 0);   /* default */
    kf_problem_free(p);
}

KF_TEST(init_forms)
{
    kf_problem *p = parse_ok("{\"name\": \"i\", \"dims\": [\"K\"], \"presets\": {\"s\": {\"K\": 3}},"
        "\"inputs\": [{\"name\": \"a\", \"shape\": [\"K\"]},"
        " {\"name\": \"b\", \"shape\": [2, \"K\"], \"init\": {\"dist\": \"normal\", \"mean\": 1, \"std\": 2}},"
        " {\"name\": \"c\", \"shape\": [], \"init\": {\"dist\": \"constant\", \"value\": 1}},"
        " {\"name\": \"d\", \"shape\": [\"K\"], \"init\": {\"dist\": \"kaiming_uniform\", \"fan_in\": 64}}],"
        "\"graph\": [{\"out\": \"y\", \"op\": \"add\", \"in\": [\"a\", \"c\"]}], \"outputs\": [\"y\"],"
        "\"c_reference\": \"void f(void) {}\"}");
    KF_CHECK_INT(p->inputs[0].init.dist, KF_DIST_UNIFORM);   /* absent: torch.rand */
    KF_CHECK_NEAR(p->inputs[0].init.a, 0, 0);
    KF_CHECK_NEAR(p->inputs[0].init.b, 1, 0);
    KF_CHECK_INT(p->inputs[1].init.dist, KF_DIST_NORMAL);
    KF_CHECK_NEAR(p->inputs[1].init.a, 1, 0);
    KF_CHECK_NEAR(p->inputs[1].init.b, 2, 0);
    KF_CHECK_INT(p->inputs[1].shape.dim_index[0], -1);
    KF_CHECK_INT(p->inputs[1].shape.literal[0], 2);
    KF_CHECK_INT(p->inputs[2].init.dist, KF_DIST_CONSTANT);
    KF_CHECK_INT(p->inputs[2].shape.rank, 0);
    KF_CHECK(p->inputs[3].init.fan_in_dim == NULL);
    KF_CHECK_INT(p->inputs[3].init.fan_in_value, 64);
    KF_CHECK_STR(p->c_reference, "void f(void) {}");
    KF_CHECK_INT(p->level, 0);
    KF_CHECK(p->description == NULL);
    kf_problem_free(p);
}

/* A problem given by a C reference alone declares its outputs' shapes:
 * they are values after the inputs, resolved per preset like inputs. */
KF_TEST(c_reference_declares_output_shapes)
{
    kf_problem *p = parse_ok("{\"name\": \"cr\", \"dims\": [\"B\", \"N\"],"
        " \"presets\": {\"s\": {\"B\": 3, \"N\": 5}, \"l\": {\"B\": 7, \"N\": 2}},"
        " \"inputs\": [{\"name\": \"x\", \"shape\": [\"B\", \"N\"]}], \"graph\": [],"
        " \"c_reference\": \"void ref(const float *x, float *y, float *s) {}\","
        " \"outputs\": [{\"name\": \"y\", \"shape\": [\"N\", \"B\"]}, \"x\", {\"name\": \"s\", \"shape\": [\"B\", 1]}]}");
    KF_CHECK_INT(p->n_declared, 2);
    KF_CHECK_INT(kf_problem_n_values(p), 3);
    KF_CHECK_INT(p->n_outputs, 3);
    KF_CHECK_INT(p->outputs[0], 1);
    KF_CHECK_INT(p->outputs[1], 0);
    KF_CHECK_INT(p->outputs[2], 2);
    KF_CHECK_STR(kf_problem_value_name(p, 2), "s");
    KF_CHECK_INT(kf_problem_find_value(p, "y"), 1);
    kf_resolved r;
    kf_error err = {0};
    KF_CHECK_MSG(kf_resolve(p, 1, &r, &err) == 0, "%s", err.msg);
    KF_CHECK(r.shapes[1].rank == 2 && r.shapes[1].d[0] == 2 && r.shapes[1].d[1] == 7);
    KF_CHECK(r.shapes[2].rank == 2 && r.shapes[2].d[0] == 7 && r.shapes[2].d[1] == 1);
    KF_CHECK_NEAR(r.min_bytes, 4.0 * (14 + 14 + 14 + 7), 0);   /* x read; y, x, s written */
    kf_resolved_free(&r);
    kf_problem_free(p);
}

KF_TEST(describe_lists_nodes_with_attributes_and_shapes)
{
    kf_problem *p = parse_ok(DEF_HEAD
        "{\"out\": \"a\", \"op\": \"sub\", \"in\": [\"x\", 2.5]},"
        "{\"out\": \"s\", \"op\": \"sum\", \"in\": [\"a\"], \"dim\": 1, \"keepdim\": true}"
        "], \"outputs\": [\"s\"]}");
    kf_resolved r;
    kf_error err = {0};
    KF_CHECK_MSG(kf_resolve(p, 0, &r, &err) == 0, "%s", err.msg);
    char *d = kf_problem_describe(&r);
    KF_CHECK(d != NULL);
    char *nl = strchr(d, '\n');
    KF_CHECK(nl != NULL && strchr(nl + 1, '\n') != NULL && *(strchr(nl + 1, '\n') + 1) == '\0');
    KF_CHECK_CONTAINS(d, "a = sub(x, 2.5)");
    KF_CHECK_CONTAINS(d, "-> [4, 8]\n");
    KF_CHECK_CONTAINS(d, "s = sum(a, dim=1, keepdim=true)");
    KF_CHECK_CONTAINS(d, "-> [4, 1]\n");
    free(d);
    kf_resolved_free(&r);
    kf_problem_free(p);
}

int main(void) { return kf_test_main(); }
