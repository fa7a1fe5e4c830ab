/*
 * test_problem_errors.c — every malformed problem under tests/unit/malformed/
 * is rejected with "FILE: JSON.PATH: message"; each file asserts its own
 * path and message, and every fixture in the folder must be in the table.
 */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../kf_test.h"
#include "problem/problem.h"

static const struct { const char *file, *expect; } cases[] = {
    {"bad_json.json", "line 5: invalid JSON: object value separator ',' expected"},
    {"truncated.json", "line 6: invalid JSON: unexpected end of file"},
    {"trailing_text.json", "line 3: invalid JSON"},
    {"not_object.json", "top level: a problem must be a JSON object, got an array"},
    {"missing_name.json", "name: missing (this field is required)"},
    {"bad_level.json", "level: must be at most 2, got 3"},
    {"unknown_key.json", "ouputs: unknown key 'ouputs' in a problem (did you mean 'outputs'?)"},
    {"unknown_op.json", "graph[1].op: unknown op 'rleu' (did you mean 'relu'?)"},
    {"unknown_node_key.json", "graph[1].keep_dim: unknown key 'keep_dim' in op 'sum' (did you mean 'keepdim'?)"},
    {"unknown_value.json", "graph[1].in[0]: unknown value 'hx' (known: x, W, b, h)"},
    {"used_before_defined.json", "graph[0].in[0]: value 'y' is used before it is defined (graph[1] defines it"},
    {"duplicate_value.json", "graph[1].out: duplicate value name 'h' (already defined by graph[0])"},
    {"duplicate_input.json", "inputs[2].name: duplicate value name 'x' (already defined by inputs[0])"},
    {"linear_mismatch.json", "graph[0].in[1]: linear weight must be (N, K) with K = 5 (the last dim of x [4, 5]), got W [6, 4] (preset 'small')"},
    {"linear_arity.json", "graph[0].in: 'linear' takes x, W, [bias], got 1 operand"},
    {"matmul_inner.json", "graph[1].in[1]: matmul inner dims differ: a x [4, 5] has K = 5 (last dim) but b W [6, 5] has 6 (dim -2); b looks like (N, K): set \"transpose_b\": true"},
    {"broadcast_mismatch.json", "graph[1]: cannot broadcast h [4, 6] with c [5]: dim -1 is 6 vs 5 (preset 'small')"},
    {"unknown_dim.json", "inputs[0].shape[1]: unknown dim 'KK' (did you mean 'K'?)"},
    {"rank5_shape.json", "inputs[0].shape: rank 5 is not supported (at most 4 dims)"},
    {"negative_preset.json", "presets.small.B: must be a positive integer, got -3"},
    {"fractional_preset.json", "presets.small.K: must be a positive integer, got 12.5"},
    {"preset_missing_dim.json", "presets.big: missing dim 'N' (every preset must give every dim a size)"},
    {"preset_unknown_dim.json", "presets.small.M: unknown dim 'M' (dims: B, K, N)"},
    {"missing_outputs.json", "outputs: missing (this field is required"},
    {"empty_outputs.json", "outputs: must name at least one value"},
    {"unknown_output.json", "outputs[0]: unknown value 'z' (known: x, W, b, h, y)"},
    {"dtype_float64.json", "inputs[0].dtype: unsupported dtype 'float64' (only \"float32\" is supported)"},
    {"group_norm_groups.json", "graph[1].groups: group_norm channels C = 6 (dim 1 of h [4, 6]) are not divisible by groups = 4 (preset 'small')"},
    {"shape_error_second_preset.json", "graph[1].groups: group_norm channels C = 10 (dim 1 of h [4, 10]) are not divisible by groups = 4 (preset 'kernelbench')"},
    {"reduction_dim.json", "graph[1].dim: dim 2 is out of range for h [4, 6] of rank 2 (valid: -2..1) (preset 'small')"},
    {"reduction_no_dim.json", "graph[1].dim: missing ('mean' needs the dim to work over"},
    {"pool_kernel.json", "graph[1].kernel_size: kernel_size 9 is larger than the input length 6 (last dim of h [4, 6], padding 0) (preset 'small')"},
    {"pool_padding.json", "graph[1].padding: must be at most half of kernel_size (3), got 2"},
    {"binary_two_scalars.json", "graph[1].in: 'add' needs at least one tensor operand, got two numbers"},
    {"unary_scalar.json", "graph[1].in[0]: 'relu' needs a tensor here, got the number 2"},
    {"batch_norm_eval.json", "graph[1]: batch_norm in evaluation mode (\"training\": false) needs running_mean and running_var"},
    {"layer_norm_weight.json", "graph[1].in[1]: layer_norm weight must have shape [6] to match h [4, 6] (preset 'small')"},
    {"hardtanh_range.json", "graph[1].max_val: must be greater than min_val (2), got -2"},
    {"clamp_no_bounds.json", "graph[1]: clamp needs \"min\", \"max\" or both"},
    {"gelu_approximate.json", "graph[1].approximate: must be \"none\" (erf form) or \"tanh\", got 'erf'"},
    {"bad_attr_type.json", "graph[1].transpose_b: must be true or false, got a string"},
    {"unknown_init.json", "inputs[0].init.dist: unknown distribution 'unifrom' (did you mean 'uniform'?)"},
    {"init_unknown_key.json", "inputs[0].init.hi: unknown key 'hi' in a 'uniform' init (did you mean 'high'?)"},
    {"kaiming_fan_in.json", "inputs[1].init.fan_in: unknown dim 'KK' (did you mean 'K'?)"},
    {"empty_graph_no_outputs.json", "graph: is empty: give at least one node (or a c_reference)"},
    {"negative_tolerance.json", "tolerance.atol: must not be negative, got -1"},
    {"cref_undeclared_output.json", "outputs[0]: 'y' is not an input, and a problem given by a C reference alone has no graph to infer its shape from: declare it as {\"name\": \"y\", \"shape\": [dims...]}"},
    {"cref_output_no_shape.json", "outputs[0].shape: missing (a declared output needs its shape"},
    {"cref_output_duplicate.json", "outputs[0].name: duplicate value name 'x' (already defined by inputs[0])"},
    {"declared_output_with_graph.json", "outputs[0]: an output with a declared shape is only for a problem given by a C reference alone (no graph); name a value instead"},
    {"view_count.json", "graph[0].shape: cannot view x [4, 6] (24 elements) as [5,-1]: 24 is not a multiple of 5 (preset 'small')"},
};
#define N_CASES ((int)(sizeof cases / sizeof cases[0]))

static void check_case(int i)
{
    char path[4096], want[1024];
    snprintf(path, sizeof path, "%s/tests/unit/malformed/%s", kf_test_srcdir(), cases[i].file);
    kf_error err = {0};
    kf_problem *p = kf_problem_load(path, &err);
    if (p) {
        kf_problem_free(p);
        kf_test_fail(__FILE__, __LINE__, "%s was accepted", cases[i].file);
    }
    KF_CHECK(err.kind != KF_E_NONE);
    KF_CHECK_MSG(strchr(err.msg, '\n') == NULL, "message has a newline: %s", err.msg);
    /* the message starts with the file name and carries "FILE: PATH: what" */
    KF_CHECK_MSG(strncmp(err.msg, path, strlen(path)) == 0, "message does not start with the file: %s", err.msg);
    snprintf(want, sizeof want, "%s: %s", cases[i].file, cases[i].expect);
    KF_CHECK_CONTAINS(err.msg, want);
}

KF_TEST(malformed_files_are_rejected_with_path_and_message)
{
    KF_CHECK_MSG(N_CASES >= 20, "only %d cases", N_CASES);
    for (int i = 0; i < N_CASES; i++) check_case(i);
}

/* Every fixture in the folder is covered by the table (and vice versa). */
KF_TEST(every_fixture_is_in_the_table)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/tests/unit/malformed", kf_test_srcdir());
    DIR *d = opendir(dir);
    KF_CHECK_MSG(d != NULL, "cannot open %s", dir);
    int seen = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        size_t n = strlen(e->d_name);
        if (n < 5 || strcmp(e->d_name + n - 5, ".json")) continue;
        int found = 0;
        for (int i = 0; i < N_CASES; i++)
            if (!strcmp(cases[i].file, e->d_name)) found = 1;
        KF_CHECK_MSG(found, "fixture %s has no expected message in the table", e->d_name);
        seen++;
    }
    closedir(d);
    KF_CHECK_INT(seen, N_CASES);
}

/* The same errors through kf_problem_parse with an inline text and label. */
KF_TEST(parse_inline_uses_label)
{
    kf_error err = {0};
    kf_problem *p = kf_problem_parse("{\"name\": \"t\",\n \"dims\": [\"B\"],\n \"presets\": {\"s\": {\"B\": 2}},\n"
                                     " \"inputs\": [{\"name\": \"x\", \"shape\": [\"B\"]}],\n"
                                     " \"graph\": [{\"out\": \"y\", \"op\": \"Relu\", \"in\": [\"x\"]}],\n"
                                     " \"outputs\": [\"y\"]}", "p.json", &err);
    KF_CHECK(p == NULL);
    KF_CHECK_STR(err.msg, "p.json: graph[0].op: unknown op 'Relu' (did you mean 'relu'?)");
    p = kf_problem_parse("{\"name\": 3}", "q.json", &err);
    KF_CHECK(p == NULL);
    KF_CHECK_STR(err.msg, "q.json: name: must be a string, got an integer");
    p = kf_problem_parse("", "e.json", &err);
    KF_CHECK(p == NULL);
    KF_CHECK_CONTAINS(err.msg, "e.json: line 1: invalid JSON");
    p = kf_problem_load("/nonexistent/x.json", &err);
    KF_CHECK(p == NULL);
    KF_CHECK_CONTAINS(err.msg, "/nonexistent/x.json: cannot open: No such file or directory");
}

/* A FIFO with no writer is refused at once, not opened and waited on; so
 * is a directory.  (Before the fix the case hit its 10 s timeout.) */
KF_TEST_TIMEOUT(load_refuses_non_regular_files, 10.0)
{
    char *dir = kf_test_tmpdir();
    char path[4096];
    snprintf(path, sizeof path, "%s/fifo.json", dir);
    KF_CHECK(mkfifo(path, 0600) == 0);
    kf_error err = {0};
    kf_problem *p = kf_problem_load(path, &err);
    KF_CHECK(p == NULL);
    KF_CHECK_CONTAINS(err.msg, "fifo.json: not a regular file (a FIFO)");
    p = kf_problem_load(dir, &err);
    KF_CHECK(p == NULL);
    KF_CHECK_CONTAINS(err.msg, ": not a regular file (a directory)");
}

int main(void) { return kf_test_main(); }
