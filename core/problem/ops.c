/*
 * ops.c — the op vocabulary: names (with the alias swish -> silu), kinds,
 * operand counts, the attribute keys each op accepts, and the effective
 * attributes of a node for display.
 */
#include <math.h>
#include <string.h>

#include "problem_internal.h"

#define A(...) { __VA_ARGS__, NULL }
#define NOATTR { NULL }

static const kf_op_info ops[] = {
    {KF_OP_MATMUL, "matmul", KF_KIND_CONTRACTION, 2, 2, "a, b", A("transpose_b")},
    {KF_OP_LINEAR, "linear", KF_KIND_CONTRACTION, 2, 3, "x, W, [bias]", NOATTR},
    {KF_OP_ADD, "add", KF_KIND_BINARY, 2, 2, "a, b", NOATTR},
    {KF_OP_SUB, "sub", KF_KIND_BINARY, 2, 2, "a, b", NOATTR},
    {KF_OP_MUL, "mul", KF_KIND_BINARY, 2, 2, "a, b", NOATTR},
    {KF_OP_DIV, "div", KF_KIND_BINARY, 2, 2, "a, b", NOATTR},
    {KF_OP_MAXIMUM, "maximum", KF_KIND_BINARY, 2, 2, "a, b", NOATTR},
    {KF_OP_MINIMUM, "minimum", KF_KIND_BINARY, 2, 2, "a, b", NOATTR},
    {KF_OP_POW, "pow", KF_KIND_BINARY, 2, 2, "a, b", NOATTR},
    {KF_OP_RELU, "relu", KF_KIND_UNARY, 1, 1, "x", NOATTR},
    {KF_OP_SIGMOID, "sigmoid", KF_KIND_UNARY, 1, 1, "x", NOATTR},
    {KF_OP_TANH, "tanh", KF_KIND_UNARY, 1, 1, "x", NOATTR},
    {KF_OP_EXP, "exp", KF_KIND_UNARY, 1, 1, "x", NOATTR},
    {KF_OP_LOG, "log", KF_KIND_UNARY, 1, 1, "x", NOATTR},
    {KF_OP_ABS, "abs", KF_KIND_UNARY, 1, 1, "x", NOATTR},
    {KF_OP_NEG, "neg", KF_KIND_UNARY, 1, 1, "x", NOATTR},
    {KF_OP_SQRT, "sqrt", KF_KIND_UNARY, 1, 1, "x", NOATTR},
    {KF_OP_RSQRT, "rsqrt", KF_KIND_UNARY, 1, 1, "x", NOATTR},
    {KF_OP_SQUARE, "square", KF_KIND_UNARY, 1, 1, "x", NOATTR},
    {KF_OP_SELU, "selu", KF_KIND_UNARY, 1, 1, "x", NOATTR},
    {KF_OP_MISH, "mish", KF_KIND_UNARY, 1, 1, "x", NOATTR},
    {KF_OP_HARDSWISH, "hardswish", KF_KIND_UNARY, 1, 1, "x", NOATTR},
    {KF_OP_IDENTITY, "identity", KF_KIND_UNARY, 1, 1, "x", NOATTR},
    {KF_OP_SILU, "silu", KF_KIND_UNARY, 1, 1, "x", NOATTR},
    {KF_OP_GELU, "gelu", KF_KIND_UNARY, 1, 1, "x", A("approximate")},
    {KF_OP_LEAKY_RELU, "leaky_relu", KF_KIND_UNARY, 1, 1, "x", A("negative_slope")},
    {KF_OP_HARDTANH, "hardtanh", KF_KIND_UNARY, 1, 1, "x", A("min_val", "max_val")},
    {KF_OP_CLAMP, "clamp", KF_KIND_UNARY, 1, 1, "x", A("min", "max")},
    {KF_OP_SOFTPLUS, "softplus", KF_KIND_UNARY, 1, 1, "x", A("beta", "threshold")},
    {KF_OP_ELU, "elu", KF_KIND_UNARY, 1, 1, "x", A("alpha")},
    {KF_OP_DROPOUT, "dropout", KF_KIND_UNARY, 1, 1, "x", A("p")},
    {KF_OP_SUM, "sum", KF_KIND_REDUCTION, 1, 1, "x", A("dim", "keepdim")},
    {KF_OP_MEAN, "mean", KF_KIND_REDUCTION, 1, 1, "x", A("dim", "keepdim")},
    {KF_OP_AMAX, "amax", KF_KIND_REDUCTION, 1, 1, "x", A("dim", "keepdim")},
    {KF_OP_AMIN, "amin", KF_KIND_REDUCTION, 1, 1, "x", A("dim", "keepdim")},
    {KF_OP_LOGSUMEXP, "logsumexp", KF_KIND_REDUCTION, 1, 1, "x", A("dim", "keepdim")},
    {KF_OP_SOFTMAX, "softmax", KF_KIND_SOFTMAX, 1, 1, "x", A("dim")},
    {KF_OP_LOG_SOFTMAX, "log_softmax", KF_KIND_SOFTMAX, 1, 1, "x", A("dim")},
    {KF_OP_LAYER_NORM, "layer_norm", KF_KIND_NORM, 1, 3, "x, [weight], [bias]",
     A("normalized_dims", "eps")},
    {KF_OP_RMS_NORM, "rms_norm", KF_KIND_NORM, 1, 2, "x, [weight]", A("normalized_dims", "eps")},
    {KF_OP_GROUP_NORM, "group_norm", KF_KIND_NORM, 1, 3, "x, [weight], [bias]", A("groups", "eps")},
    {KF_OP_INSTANCE_NORM, "instance_norm", KF_KIND_NORM, 1, 1, "x", A("eps")},
    {KF_OP_BATCH_NORM, "batch_norm", KF_KIND_NORM, 1, 5,
     "x, [weight, [bias, [running_mean, running_var]]]", A("training", "eps")},
    {KF_OP_MAX_POOL1D, "max_pool1d", KF_KIND_POOL, 1, 1, "x", A("kernel_size", "stride", "padding")},
    {KF_OP_AVG_POOL1D, "avg_pool1d", KF_KIND_POOL, 1, 1, "x", A("kernel_size", "stride", "padding")},
    {KF_OP_VIEW, "view", KF_KIND_SHAPE, 1, 1, "x", A("shape")},
    {KF_OP_RESHAPE, "reshape", KF_KIND_SHAPE, 1, 1, "x", A("shape")},
    {KF_OP_FLATTEN, "flatten", KF_KIND_SHAPE, 1, 1, "x", A("start_dim", "end_dim")},
    {KF_OP_SQUEEZE, "squeeze", KF_KIND_SHAPE, 1, 1, "x", A("dim")},
    {KF_OP_UNSQUEEZE, "unsqueeze", KF_KIND_SHAPE, 1, 1, "x", A("dim")},
};

#define N_OPS ((int)(sizeof ops / sizeof ops[0]))

static const struct { const char *alias; kf_op op; } aliases[] = {
    {"swish", KF_OP_SILU},
};

const kf_op_info *kf_op_info_get(kf_op op)
{
    for (int i = 0; i < N_OPS; i++)
        if (ops[i].op == op) return &ops[i];
    return NULL;
}

int kf_op_all_names(const char **out, int max)
{
    int n = 0;
    for (int i = 0; i < N_OPS && n < max - 1; i++) out[n++] = ops[i].name;
    for (size_t i = 0; i < sizeof aliases / sizeof aliases[0] && n < max - 1; i++)
        out[n++] = aliases[i].alias;
    out[n] = NULL;
    return n;
}

const char *kf_op_name(kf_op op)
{
    const kf_op_info *oi = kf_op_info_get(op);
    return oi ? oi->name : "invalid";
}

kf_op kf_op_from_name(const char *name)
{
    if (!name) return KF_OP_INVALID;
    for (int i = 0; i < N_OPS; i++)
        if (!strcmp(ops[i].name, name)) return ops[i].op;
    for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++)
        if (!strcmp(aliases[i].alias, name)) return aliases[i].op;
    return KF_OP_INVALID;
}

static int is_kind(kf_op op, kf_op_kind k)
{
    const kf_op_info *oi = kf_op_info_get(op);
    return oi && oi->kind == k;
}

int kf_op_is_contraction(kf_op op) { return is_kind(op, KF_KIND_CONTRACTION); }
int kf_op_is_unary(kf_op op) { return is_kind(op, KF_KIND_UNARY); }
int kf_op_is_binary(kf_op op) { return is_kind(op, KF_KIND_BINARY); }
int kf_op_is_reduction(kf_op op) { return is_kind(op, KF_KIND_REDUCTION); }
int kf_op_is_shape(kf_op op) { return is_kind(op, KF_KIND_SHAPE); }

static int put(kf_attr *out, int n, const char *key, kf_attr_type t, double v)
{
    out[n].key = key;
    out[n].type = t;
    out[n].num = v;
    out[n].str = NULL;
    return n + 1;
}

int kf_node_attrs(const kf_node *nd, kf_attr *out)
{
    int n = 0;
    switch (nd->op) {
    case KF_OP_MATMUL:
        n = put(out, n, "transpose_b", KF_ATTR_BOOL, nd->transpose_b);
        break;
    case KF_OP_GELU:
        n = put(out, n, "approximate", KF_ATTR_STR, 0);
        out[0].str = nd->gelu_tanh ? "tanh" : "none";
        break;
    case KF_OP_LEAKY_RELU:
        n = put(out, n, "negative_slope", KF_ATTR_NUM, nd->alpha);
        break;
    case KF_OP_HARDTANH:
        n = put(out, n, "min_val", KF_ATTR_NUM, nd->lo);
        n = put(out, n, "max_val", KF_ATTR_NUM, nd->hi);
        break;
    case KF_OP_CLAMP:
        if (!isnan(nd->lo)) n = put(out, n, "min", KF_ATTR_NUM, nd->lo);
        if (!isnan(nd->hi)) n = put(out, n, "max", KF_ATTR_NUM, nd->hi);
        break;
    case KF_OP_SOFTPLUS:
        n = put(out, n, "beta", KF_ATTR_NUM, nd->alpha);
        n = put(out, n, "threshold", KF_ATTR_NUM, nd->beta);
        break;
    case KF_OP_ELU:
        n = put(out, n, "alpha", KF_ATTR_NUM, nd->alpha);
        break;
    case KF_OP_SUM: case KF_OP_MEAN: case KF_OP_AMAX: case KF_OP_AMIN: case KF_OP_LOGSUMEXP:
        n = put(out, n, "dim", KF_ATTR_INT, nd->dim);
        n = put(out, n, "keepdim", KF_ATTR_BOOL, nd->keepdim);
        break;
    case KF_OP_SOFTMAX: case KF_OP_LOG_SOFTMAX:
        n = put(out, n, "dim", KF_ATTR_INT, nd->dim);
        break;
    case KF_OP_LAYER_NORM: case KF_OP_RMS_NORM:
        n = put(out, n, "normalized_dims", KF_ATTR_INT, nd->normalized_dims);
        n = put(out, n, "eps", KF_ATTR_NUM, nd->eps);
        break;
    case KF_OP_GROUP_NORM:
        n = put(out, n, "groups", KF_ATTR_INT, nd->groups);
        n = put(out, n, "eps", KF_ATTR_NUM, nd->eps);
        break;
    case KF_OP_INSTANCE_NORM:
        n = put(out, n, "eps", KF_ATTR_NUM, nd->eps);
        break;
    case KF_OP_BATCH_NORM:
        n = put(out, n, "training", KF_ATTR_BOOL, nd->training);
        n = put(out, n, "eps", KF_ATTR_NUM, nd->eps);
        break;
    case KF_OP_MAX_POOL1D: case KF_OP_AVG_POOL1D:
        n = put(out, n, "kernel_size", KF_ATTR_INT, nd->kernel_size);
        n = put(out, n, "stride", KF_ATTR_INT, nd->stride);
        n = put(out, n, "padding", KF_ATTR_INT, nd->padding);
        break;
    case KF_OP_VIEW: case KF_OP_RESHAPE:
        n = put(out, n, "shape", KF_ATTR_JSON, 0);
        out[0].str = nd->view_text ? nd->view_text : "[]";
        break;
    case KF_OP_FLATTEN:
        n = put(out, n, "start_dim", KF_ATTR_INT, nd->sdim);
        n = put(out, n, "end_dim", KF_ATTR_INT, nd->sdim2);
        break;
    case KF_OP_SQUEEZE: case KF_OP_UNSQUEEZE:
        if (nd->has_sdim) n = put(out, n, "dim", KF_ATTR_INT, nd->sdim);
        break;
    default:
        break;
    }
    return n;
}
