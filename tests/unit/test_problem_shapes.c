/*
 * test_problem_shapes.c — shape inference of every op kind with PyTorch's
 * rules (broadcasting, batched matmul, transpose_b, 1-D matmul operands,
 * keepdim, negative dims, norms, pooling windows) and the FLOPs per op.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../kf_test.h"
#include "problem/problem.h"

/* Builds {"dims": ["B"], "presets": {"p": {"B": 5}}, inputs, one node "y"},
 * loads it and returns y's shape as "[..]" (malloc'ed), or NULL with the
 * error in err.  *flops gets the node's FLOPs (total minus nothing else). */
static char *shape_of(const char *inputs, const char *node, double *flops, kf_error *err)
{
    char text[4096];
    snprintf(text, sizeof text,
             "{\"name\": \"s\", \"dims\": [\"B\"], \"presets\": {\"p\": {\"B\": 5}},"
             " \"inputs\": %s, \"graph\": [%s], \"outputs\": [\"y\"]}", inputs, node);
    kf_problem *p = kf_problem_parse(text, "s.json", err);
    if (!p) return NULL;
    kf_resolved r;
    if (kf_resolve(p, 0, &r, err) != 0) {
        kf_problem_free(p);
        return NULL;
    }
    const kf_shape *s = &r.shapes[kf_problem_find_value(p, "y")];
    char *buf = malloc(128);
    size_t n = (size_t)snprintf(buf, 128, "[");
    for (int i = 0; i < s->rank; i++)
        n += (size_t)snprintf(buf + n, 128 - n, "%s%" PRId64, i ? ", " : "", s->d[i]);
    snprintf(buf + n, 128 - n, "]");
    if (flops) *flops = r.flops;
    kf_resolved_free(&r);
    kf_problem_free(p);
    return buf;
}

#define IN1(sh) "[{\"name\": \"a\", \"shape\": " sh "}]"
#define IN2(sa, sb) "[{\"name\": \"a\", \"shape\": " sa "}, {\"name\": \"b\", \"shape\": " sb "}]"
#define IN3(sa, sb, sc) "[{\"name\": \"a\", \"shape\": " sa "}, {\"name\": \"b\", \"shape\": " sb "}, {\"name\": \"c\", \"shape\": " sc "}]"

static void expect_shape(const char *inputs, const char *node, const char *want, double want_flops)
{
    kf_error err = {0};
    double f = -1;
    char *got = shape_of(inputs, node, &f, &err);
    KF_CHECK_MSG(got != NULL, "%s: %s", node, err.msg);
    KF_CHECK_MSG(!strcmp(got, want), "%s: shape %s, expected %s", node, got, want);
    if (want_flops >= 0) KF_CHECK_MSG(f == want_flops, "%s: flops %.17g, expected %.17g", node, f, want_flops);
    free(got);
}

static void expect_error(const char *inputs, const char *node, const char *want)
{
    kf_error err = {0};
    char *got = shape_of(inputs, node, NULL, &err);
    KF_CHECK_MSG(got == NULL, "%s: accepted with shape %s", node, got ? got : "");
    KF_CHECK_CONTAINS(err.msg, want);
}

KF_TEST(matmul_2d_batched_transposed_and_vectors)
{
    expect_shape(IN2("[\"B\", 3]", "[3, 7]"), "{\"out\": \"y\", \"op\": \"matmul\", \"in\": [\"a\", \"b\"]}",
                 "[5, 7]", 2.0 * 5 * 7 * 3);
    expect_shape(IN2("[\"B\", 3]", "[7, 3]"),
                 "{\"out\": \"y\", \"op\": \"matmul\", \"in\": [\"a\", \"b\"], \"transpose_b\": true}", "[5, 7]", 210);
    expect_shape(IN2("[2, 1, \"B\", 3]", "[4, 3, 7]"), "{\"out\": \"y\", \"op\": \"matmul\", \"in\": [\"a\", \"b\"]}",
                 "[2, 4, 5, 7]", 2.0 * 8 * 5 * 7 * 3);
    expect_shape(IN2("[2, \"B\", 3]", "[3, 7]"), "{\"out\": \"y\", \"op\": \"matmul\", \"in\": [\"a\", \"b\"]}",
                 "[2, 5, 7]", 2.0 * 2 * 5 * 7 * 3);
    expect_shape(IN2("[\"B\", 3]", "[2, 7, 3]"),
                 "{\"out\": \"y\", \"op\": \"matmul\", \"in\": [\"a\", \"b\"], \"transpose_b\": true}", "[2, 5, 7]", -1);
    expect_shape(IN2("[3]", "[3, 7]"), "{\"out\": \"y\", \"op\": \"matmul\", \"in\": [\"a\", \"b\"]}", "[7]", 42);
    expect_shape(IN2("[\"B\", 3]", "[3]"), "{\"out\": \"y\", \"op\": \"matmul\", \"in\": [\"a\", \"b\"]}", "[5]", 30);
    expect_error(IN2("[\"B\", 3]", "[4, 7]"), "{\"out\": \"y\", \"op\": \"matmul\", \"in\": [\"a\", \"b\"]}",
                 "s.json: graph[0].in[1]: matmul inner dims differ: a a [5, 3] has K = 3 (last dim) but b b [4, 7] has 4 (dim -2) (preset 'p')");
    expect_error(IN2("[2, \"B\", 3]", "[4, 3, 7]"), "{\"out\": \"y\", \"op\": \"matmul\", \"in\": [\"a\", \"b\"]}",
                 "graph[0]: matmul batch dims do not broadcast");
    expect_error(IN2("[]", "[3, 7]"), "{\"out\": \"y\", \"op\": \"matmul\", \"in\": [\"a\", \"b\"]}",
                 "graph[0].in[0]: matmul needs a of rank 1..4, got a []");
}

KF_TEST(linear_with_and_without_bias)
{
    expect_shape(IN3("[\"B\", 4]", "[6, 4]", "[6]"), "{\"out\": \"y\", \"op\": \"linear\", \"in\": [\"a\", \"b\", \"c\"]}",
                 "[5, 6]", 2.0 * 5 * 6 * 4 + 5 * 6);
    expect_shape(IN2("[\"B\", 4]", "[6, 4]"), "{\"out\": \"y\", \"op\": \"linear\", \"in\": [\"a\", \"b\"]}",
                 "[5, 6]", 2.0 * 5 * 6 * 4);
    expect_shape(IN2("[2, \"B\", 4]", "[6, 4]"), "{\"out\": \"y\", \"op\": \"linear\", \"in\": [\"a\", \"b\"]}",
                 "[2, 5, 6]", 2.0 * 10 * 6 * 4);
    expect_error(IN3("[\"B\", 4]", "[6, 4]", "[5]"), "{\"out\": \"y\", \"op\": \"linear\", \"in\": [\"a\", \"b\", \"c\"]}",
                 "graph[0].in[2]: linear bias must be (N) with N = 6 (dim 0 of b [6, 4]), got c [5]");
    expect_error(IN2("[\"B\", 4]", "[6, 4, 1]"), "{\"out\": \"y\", \"op\": \"linear\", \"in\": [\"a\", \"b\"]}",
                 "graph[0].in[1]: linear needs W of rank 2, got b [6, 4, 1]");
}

KF_TEST(binary_broadcasting_and_scalars)
{
    expect_shape(IN2("[\"B\", 1, 3]", "[4, 1]"), "{\"out\": \"y\", \"op\": \"add\", \"in\": [\"a\", \"b\"]}",
                 "[5, 4, 3]", 60);
    expect_shape(IN1("[\"B\", 3]"), "{\"out\": \"y\", \"op\": \"mul\", \"in\": [\"a\", 2]}", "[5, 3]", 15);
    expect_shape(IN1("[\"B\", 3]"), "{\"out\": \"y\", \"op\": \"pow\", \"in\": [2.5, \"a\"]}", "[5, 3]", 15);
    expect_shape(IN2("[]", "[3]"), "{\"out\": \"y\", \"op\": \"maximum\", \"in\": [\"a\", \"b\"]}", "[3]", 3);
    expect_shape(IN2("[\"B\", 3]", "[3]"), "{\"out\": \"y\", \"op\": \"div\", \"in\": [\"a\", \"b\"]}", "[5, 3]", 15);
    expect_shape(IN2("[1]", "[\"B\", 1]"), "{\"out\": \"y\", \"op\": \"minimum\", \"in\": [\"a\", \"b\"]}", "[5, 1]", 5);
    expect_error(IN2("[\"B\", 3]", "[4]"), "{\"out\": \"y\", \"op\": \"sub\", \"in\": [\"a\", \"b\"]}",
                 "graph[0]: cannot broadcast a [5, 3] with b [4]: dim -1 is 3 vs 4 (preset 'p')");
    expect_shape(IN2("[2, 3]", "[\"B\", 2, 3]"), "{\"out\": \"y\", \"op\": \"sub\", \"in\": [\"b\", \"a\"]}", "[5, 2, 3]", 30);
}

KF_TEST(unary_ops_keep_the_shape)
{
    static const char *ops[] = {"relu", "sigmoid", "tanh", "exp", "log", "abs", "neg", "sqrt", "rsqrt",
                                "square", "selu", "mish", "hardswish", "identity", "silu", "swish",
                                "gelu", "leaky_relu", "hardtanh", "softplus", "elu", "dropout"};
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) {
        char node[256];
        snprintf(node, sizeof node, "{\"out\": \"y\", \"op\": \"%s\", \"in\": [\"a\"]}", ops[i]);
        expect_shape(IN1("[2, \"B\", 3]"), node, "[2, 5, 3]", 30);
    }
    expect_shape(IN1("[]"), "{\"out\": \"y\", \"op\": \"clamp\", \"in\": [\"a\"], \"min\": 0}", "[]", 1);
}

KF_TEST(reductions_keepdim_and_negative_dims)
{
    expect_shape(IN1("[\"B\", 3, 4]"), "{\"out\": \"y\", \"op\": \"sum\", \"in\": [\"a\"], \"dim\": 1}", "[5, 4]", 60);
    expect_shape(IN1("[\"B\", 3, 4]"), "{\"out\": \"y\", \"op\": \"mean\", \"in\": [\"a\"], \"dim\": 1, \"keepdim\": true}",
                 "[5, 1, 4]", 60);
    expect_shape(IN1("[\"B\", 3, 4]"), "{\"out\": \"y\", \"op\": \"amax\", \"in\": [\"a\"], \"dim\": -1}", "[5, 3]", 60);
    expect_shape(IN1("[\"B\", 3, 4]"), "{\"out\": \"y\", \"op\": \"amin\", \"in\": [\"a\"], \"dim\": -3}", "[3, 4]", 60);
    expect_shape(IN1("[\"B\", 3]"), "{\"out\": \"y\", \"op\": \"logsumexp\", \"in\": [\"a\"], \"dim\": -1, \"keepdim\": true}",
                 "[5, 1]", 15);
    expect_shape(IN1("[\"B\"]"), "{\"out\": \"y\", \"op\": \"sum\", \"in\": [\"a\"], \"dim\": 0}", "[]", 5);
    expect_shape(IN1("[\"B\", 3]"), "{\"out\": \"y\", \"op\": \"softmax\", \"in\": [\"a\"], \"dim\": -1}", "[5, 3]", 15);
    expect_shape(IN1("[\"B\", 3]"), "{\"out\": \"y\", \"op\": \"log_softmax\", \"in\": [\"a\"], \"dim\": 0}", "[5, 3]", 15);
    expect_error(IN1("[\"B\", 3]"), "{\"out\": \"y\", \"op\": \"sum\", \"in\": [\"a\"], \"dim\": -3}",
                 "graph[0].dim: dim -3 is out of range for a [5, 3] of rank 2 (valid: -2..1)");
    expect_error(IN1("[\"B\", 3]"), "{\"out\": \"y\", \"op\": \"softmax\", \"in\": [\"a\"], \"dim\": 2}",
                 "graph[0].dim: dim 2 is out of range");
    expect_error(IN1("[]"), "{\"out\": \"y\", \"op\": \"sum\", \"in\": [\"a\"], \"dim\": 0}",
                 "graph[0].in[0]: sum needs a tensor of rank >= 1, got a []");
}

KF_TEST(negative_dim_is_stored_normalised)
{
    kf_error err = {0};
    kf_problem *p = kf_problem_parse(
        "{\"name\": \"n\", \"dims\": [\"B\"], \"presets\": {\"p\": {\"B\": 5}, \"q\": {\"B\": 9}},"
        " \"inputs\": [{\"name\": \"a\", \"shape\": [\"B\", 3, 4]}],"
        " \"graph\": [{\"out\": \"y\", \"op\": \"softmax\", \"in\": [\"a\"], \"dim\": -2},"
        "            {\"out\": \"z\", \"op\": \"sum\", \"in\": [\"y\"], \"dim\": -1}], \"outputs\": [\"z\"]}",
        "n.json", &err);
    KF_CHECK_MSG(p != NULL, "%s", err.msg);
    KF_CHECK_INT(p->nodes[0].dim, 1);
    KF_CHECK_INT(p->nodes[1].dim, 2);
    kf_resolved r;
    KF_CHECK(kf_resolve(p, 1, &r, &err) == 0);
    KF_CHECK_INT(r.shapes[2].rank, 2);
    KF_CHECK_INT(r.shapes[2].d[0], 9);
    KF_CHECK_INT(r.shapes[2].d[1], 3);
    kf_resolved_free(&r);
    kf_problem_free(p);
}

KF_TEST(norms)
{
    expect_shape(IN3("[\"B\", 3, 4]", "[3, 4]", "[3, 4]"),
                 "{\"out\": \"y\", \"op\": \"layer_norm\", \"in\": [\"a\", \"b\", \"c\"], \"normalized_dims\": 2}",
                 "[5, 3, 4]", 60);
    expect_shape(IN2("[\"B\", 4]", "[4]"), "{\"out\": \"y\", \"op\": \"rms_norm\", \"in\": [\"a\", \"b\"]}", "[5, 4]", 20);
    expect_error(IN2("[\"B\", 3, 4]", "[4]"),
                 "{\"out\": \"y\", \"op\": \"layer_norm\", \"in\": [\"a\", \"b\"], \"normalized_dims\": 2}",
                 "graph[0].in[1]: layer_norm weight must have shape [3, 4] to match a [5, 3, 4]");
    expect_error(IN1("[\"B\", 4]"), "{\"out\": \"y\", \"op\": \"rms_norm\", \"in\": [\"a\"], \"normalized_dims\": 3}",
                 "graph[0].normalized_dims: normalized_dims 3 exceeds the rank of a [5, 4]");
    expect_shape(IN3("[\"B\", 6, 2]", "[6]", "[6]"),
                 "{\"out\": \"y\", \"op\": \"group_norm\", \"in\": [\"a\", \"b\", \"c\"], \"groups\": 3}", "[5, 6, 2]", 60);
    expect_error(IN1("[\"B\", 6]"), "{\"out\": \"y\", \"op\": \"group_norm\", \"in\": [\"a\"], \"groups\": 4}",
                 "graph[0].groups: group_norm channels C = 6 (dim 1 of a [5, 6]) are not divisible by groups = 4");
    expect_error(IN2("[\"B\", 6]", "[5]"), "{\"out\": \"y\", \"op\": \"group_norm\", \"in\": [\"a\", \"b\"], \"groups\": 2}",
                 "graph[0].in[1]: group_norm weight must have shape [6]");
    expect_error(IN1("[6]"), "{\"out\": \"y\", \"op\": \"group_norm\", \"in\": [\"a\"], \"groups\": 2}",
                 "graph[0].in[0]: group_norm needs x (N, C, ...) of rank 2..4, got a [6]");
    expect_shape(IN1("[\"B\", 3, 4]"), "{\"out\": \"y\", \"op\": \"instance_norm\", \"in\": [\"a\"]}", "[5, 3, 4]", 60);
    expect_shape(IN1("[3, \"B\"]"), "{\"out\": \"y\", \"op\": \"instance_norm\", \"in\": [\"a\"]}", "[3, 5]", 15);
    expect_shape(IN1("[2, \"B\", 3, 4]"), "{\"out\": \"y\", \"op\": \"instance_norm\", \"in\": [\"a\"]}",
                 "[2, 5, 3, 4]", 120);
    expect_error(IN1("[\"B\"]"), "{\"out\": \"y\", \"op\": \"instance_norm\", \"in\": [\"a\"]}",
                 "graph[0].in[0]: instance_norm needs x (C, L), (N, C, L) or (N, C, H, W) of rank 2..4, got a [5]");
    expect_shape(IN2("[\"B\", 3, 4, 2]", "[3]"),
                 "{\"out\": \"y\", \"op\": \"batch_norm\", \"in\": [\"a\", \"b\", \"b\"]}", "[5, 3, 4, 2]", 120);
    expect_error(IN2("[\"B\", 3, 4, 2]", "[4]"),
                 "{\"out\": \"y\", \"op\": \"batch_norm\", \"in\": [\"a\", \"b\"]}",
                 "graph[0].in[1]: batch_norm weight must have shape [3] to match a [5, 3, 4, 2]");
    expect_shape(IN3("[\"B\", 6, 2, 3]", "[6]", "[6]"),
                 "{\"out\": \"y\", \"op\": \"group_norm\", \"in\": [\"a\", \"b\", \"c\"], \"groups\": 2}", "[5, 6, 2, 3]", 180);
    expect_shape(IN2("[\"B\", 3]", "[3]"), "{\"out\": \"y\", \"op\": \"batch_norm\", \"in\": [\"a\", \"b\", \"b\"]}", "[5, 3]", 15);
    expect_shape(IN2("[\"B\", 3, 4]", "[3]"),
                 "{\"out\": \"y\", \"op\": \"batch_norm\", \"in\": [\"a\", \"b\", \"b\", \"b\", \"b\"], \"training\": false}",
                 "[5, 3, 4]", 60);
    expect_error(IN2("[\"B\", 3]", "[\"B\"]"),
                 "{\"out\": \"y\", \"op\": \"batch_norm\", \"in\": [\"a\", \"b\"]}",
                 "graph[0].in[1]: batch_norm weight must have shape [3] to match a [5, 3]");
    expect_error(IN2("[\"B\", 3]", "[3]"),
                 "{\"out\": \"y\", \"op\": \"batch_norm\", \"in\": [\"a\", \"b\", \"b\", \"b\"]}",
                 "graph[0].in: 'batch_norm' takes x, [weight, [bias, [running_mean, running_var]]] (1, 2, 3 or 5 operands), got 4 operands");
}

KF_TEST(pooling_windows)
{
    expect_shape(IN1("[\"B\", 10]"), "{\"out\": \"y\", \"op\": \"max_pool1d\", \"in\": [\"a\"], \"kernel_size\": 3}",
                 "[5, 3]", 50);
    expect_shape(IN1("[\"B\", 10]"),
                 "{\"out\": \"y\", \"op\": \"avg_pool1d\", \"in\": [\"a\"], \"kernel_size\": 3, \"stride\": 2, \"padding\": 1}",
                 "[5, 5]", 50);
    expect_shape(IN1("[2, 3, 10]"), "{\"out\": \"y\", \"op\": \"max_pool1d\", \"in\": [\"a\"], \"kernel_size\": 10}",
                 "[2, 3, 1]", 60);
    expect_shape(IN1("[\"B\"]"), "{\"out\": \"y\", \"op\": \"avg_pool1d\", \"in\": [\"a\"], \"kernel_size\": 2, \"stride\": 1}",
                 "[4]", 5);
    expect_error(IN1("[\"B\", 10]"), "{\"out\": \"y\", \"op\": \"max_pool1d\", \"in\": [\"a\"], \"kernel_size\": 11}",
                 "graph[0].kernel_size: kernel_size 11 is larger than the input length 10");
    expect_error(IN1("[\"B\", 10]"), "{\"out\": \"y\", \"op\": \"max_pool1d\", \"in\": [\"a\"]}",
                 "graph[0].kernel_size: missing");
    expect_error(IN1("[\"B\", 10]"), "{\"out\": \"y\", \"op\": \"max_pool1d\", \"in\": [\"a\"], \"kernel_size\": 2, \"stride\": 0}",
                 "graph[0].stride: must be a positive integer, got 0");
}

#define SHAPE_NODE(op, attrs) "{\"out\": \"y\", \"op\": \"" op "\", \"in\": [\"a\"]" attrs "}"

KF_TEST(shape_ops_reinterpret_without_flops)
{
    expect_shape(IN1("[\"B\", 3, 4]"), SHAPE_NODE("view", ", \"shape\": [\"B\", -1]"), "[5, 12]", 0);
    expect_shape(IN1("[\"B\", 3, 4]"), SHAPE_NODE("reshape", ", \"shape\": [-1]"), "[60]", 0);
    expect_shape(IN1("[\"B\", 12]"), SHAPE_NODE("view", ", \"shape\": [\"B\", 3, 2, 2]"), "[5, 3, 2, 2]", 0);
    expect_shape(IN1("[\"B\", 3, 4]"), SHAPE_NODE("flatten", ""), "[60]", 0);
    expect_shape(IN1("[2, \"B\", 3, 4]"), SHAPE_NODE("flatten", ", \"start_dim\": 1"), "[2, 60]", 0);
    expect_shape(IN1("[2, \"B\", 3, 4]"), SHAPE_NODE("flatten", ", \"start_dim\": 1, \"end_dim\": -2"), "[2, 15, 4]", 0);
    expect_shape(IN1("[\"B\", 3]"), SHAPE_NODE("unsqueeze", ", \"dim\": 1"), "[5, 1, 3]", 0);
    expect_shape(IN1("[\"B\", 3]"), SHAPE_NODE("unsqueeze", ", \"dim\": -1"), "[5, 3, 1]", 0);
    expect_shape(IN1("[\"B\", 3]"), SHAPE_NODE("unsqueeze", ", \"dim\": 0"), "[1, 5, 3]", 0);
    expect_shape(IN1("[1, \"B\", 1, 3]"), SHAPE_NODE("squeeze", ""), "[5, 3]", 0);
    expect_shape(IN1("[1, \"B\", 1, 3]"), SHAPE_NODE("squeeze", ", \"dim\": -2"), "[1, 5, 3]", 0);
    expect_shape(IN1("[1, \"B\", 1, 3]"), SHAPE_NODE("squeeze", ", \"dim\": 1"), "[1, 5, 1, 3]", 0);  /* size 5: kept */
    expect_error(IN1("[\"B\", 3]"), SHAPE_NODE("view", ", \"shape\": [4, 4]"),
                 "graph[0].shape: cannot view a [5, 3] (15 elements) as [4,4] = [4, 4] (16 elements): the element counts must match");
    expect_error(IN1("[\"B\", 3]"), SHAPE_NODE("reshape", ", \"shape\": [4, -1]"),
                 "graph[0].shape: cannot reshape a [5, 3] (15 elements) as [4,-1]: 15 is not a multiple of 4");
    expect_error(IN1("[\"B\", 3]"), SHAPE_NODE("view", ", \"shape\": [-1, -1]"),
                 "graph[0].shape[1]: only one size may be -1");
    expect_error(IN1("[\"B\", 3]"), SHAPE_NODE("view", ", \"shape\": [\"Q\", 3]"),
                 "graph[0].shape[0]: unknown dim 'Q'");
    expect_error(IN1("[\"B\", 3]"), SHAPE_NODE("view", ", \"shape\": [0, 3]"),
                 "graph[0].shape[0]: must be a positive integer, got 0");
    expect_error(IN1("[\"B\", 3]"), SHAPE_NODE("view", ""), "graph[0].shape: missing");
    expect_error(IN1("[\"B\", 3]"), SHAPE_NODE("view", ", \"shape\": [1099511627776, 1099511627776, -1]"),
                 "graph[0].shape: view [1099511627776,1099511627776,-1] has more than 2^48 elements");
    expect_error(IN1("[\"B\", 3]"), SHAPE_NODE("view", ", \"shape\": [1, 1, 1, 5, 3]"),
                 "graph[0].shape: rank 5 is not supported");
    expect_error(IN1("[\"B\", 3]"), SHAPE_NODE("unsqueeze", ", \"dim\": 3"),
                 "graph[0].dim: dim 3 is out of range for a [5, 3] (valid: -3..2)");
    expect_error(IN1("[\"B\", 3]"), SHAPE_NODE("unsqueeze", ""), "graph[0].dim: missing");
    expect_error(IN1("[2, \"B\", 3, 4]"), SHAPE_NODE("unsqueeze", ", \"dim\": 0"),
                 "graph[0]: unsqueeze of a [2, 5, 3, 4] would have rank 5 (at most 4 dims)");
    expect_error(IN1("[\"B\", 3]"), SHAPE_NODE("squeeze", ", \"dim\": -3"),
                 "graph[0].dim: dim -3 is out of range for a [5, 3] (valid: -2..1)");
    expect_error(IN1("[\"B\", 3, 4]"), SHAPE_NODE("flatten", ", \"start_dim\": 2, \"end_dim\": 1"),
                 "graph[0].start_dim: flatten start_dim 2 comes after end_dim 1 for a [5, 3, 4]");
    expect_error(IN1("[\"B\", 3, 4]"), SHAPE_NODE("flatten", ", \"end_dim\": 3"),
                 "graph[0].end_dim: end_dim 3 is out of range for a [5, 3, 4] (valid: -3..2)");
}

/* A chain: FLOPs add up node by node, bytes count inputs and outputs once. */
KF_TEST(flops_sum_over_the_chain_and_bytes_count_outputs)
{
    kf_error err = {0};
    kf_problem *p = kf_problem_parse(
        "{\"name\": \"c\", \"dims\": [\"B\", \"N\"], \"presets\": {\"p\": {\"B\": 4, \"N\": 8}},"
        " \"inputs\": [{\"name\": \"x\", \"shape\": [\"B\", \"N\"]}, {\"name\": \"w\", \"shape\": [\"N\"]}],"
        " \"graph\": [{\"out\": \"a\", \"op\": \"mul\", \"in\": [\"x\", \"w\"]},"
        "            {\"out\": \"s\", \"op\": \"logsumexp\", \"in\": [\"a\"], \"dim\": 1},"
        "            {\"out\": \"n\", \"op\": \"layer_norm\", \"in\": [\"a\", \"w\", \"w\"]}],"
        " \"outputs\": [\"s\", \"n\"]}", "c.json", &err);
    KF_CHECK_MSG(p != NULL, "%s", err.msg);
    kf_resolved r;
    KF_CHECK(kf_resolve(p, 0, &r, &err) == 0);
    KF_CHECK_NEAR(r.flops, 32 + 32 + 32, 0);
    KF_CHECK_NEAR(r.min_bytes, 4.0 * (32 + 8 + 4 + 32), 0);
    kf_resolved_free(&r);
    kf_problem_free(p);
}

int main(void) { return kf_test_main(); }
