/*
 * builtin_ocl_map.c — OpenCL kernels with one work-item per output element:
 * MAP groups (an elementwise op and the ops fused after it, operands
 * broadcast through baked strides) and 1-D pooling over the last dim
 * (max: implicit -inf padding; avg: count_include_pad, PyTorch defaults),
 * each followed by the group's elementwise tail.
 */
#include <config.h>

#include "builtin_ocl_internal.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#define MAP_LOCAL 256

void ocl_gen_map(ocl_gen *g, int gi)
{
    const kf_problem *p = g->p;
    const kf_bt_group *grp = &g->plan->groups[gi];
    const kf_node *an = &p->nodes[grp->nodes[0]];
    int av = p->n_inputs + grp->nodes[0];
    const kf_shape *ys = &g->r->shapes[av];
    int64_t E = kf_shape_elems(ys);
    int pool = an->op == KF_OP_MAX_POOL1D || an->op == KF_OP_AVG_POOL1D;
    if (!pool && !kf_bt_is_map_op(an->op) && !kf_op_is_shape(an->op)) {   /* shape op: a copy */
        ocl_failf(g, "group g%d: no OpenCL kernel for a %s anchor (generator limit)", gi, kf_op_name(an->op));
        return;
    }
    ocl_kernel kk;
    ocl_kernel *k = &kk;
    ocl_kernel_begin(k, g, gi, kf_op_name(an->op));
    OCL_P(k, "    /* %" PRId64 " output elements, one per work-item */\n", E);
    OCL_P(k, "    const size_t idx = get_global_id(0);\n    if (idx >= %" PRId64 ") return;\n", E);
    if (pool) {
        int xv = an->in[0].value;
        const kf_shape *xs = &g->r->shapes[xv];
        int64_t L = xs->d[xs->rank - 1], Lout = ys->d[ys->rank - 1];
        int mx = an->op == KF_OP_MAX_POOL1D;
        const char *xb = ocl_buf_value(k, xv, 0);
        OCL_P(k, "    /* %s: window %d, stride %d, padding %d over the last dim (%" PRId64 " -> %" PRId64 ") */\n",
              kf_op_name(an->op), an->kernel_size, an->stride, an->padding, L, Lout);
        OCL_P(k, "    const size_t row = idx / %" PRId64 ";\n"
                 "    const int start = (int)(idx %% %" PRId64 ") * %d - %d;\n"
                 "    __global const %s *src = %s + row * %" PRId64 ";\n"
                 "    float a = %s;\n"
                 "    for (int t = 0; t < %d; t++) {\n"
                 "        const int x = start + t;\n"
                 "        if (x >= 0 && x < %" PRId64 ") a = %s;\n"
                 "    }\n", Lout, Lout, an->stride, an->padding, g->half[xv] ? "half" : "float", xb, L,
              mx ? "-INFINITY" : "0.0f", an->kernel_size, L,
              mx ? (g->half[xv] ? "fmax(a, vload_half(x, src))" : "fmax(a, src[x])")
                 : (g->half[xv] ? "a + vload_half(x, src)" : "a + src[x]"));
        if (mx) OCL_P(k, "    const float t_%s = a;\n", g->ident[av]);
        else OCL_P(k, "    const float t_%s = a / %d.0f;\n", g->ident[av], an->kernel_size);
        ocl_emit_tail(k, gi, 1, "idx", NULL, "    ");
    } else {
        ocl_emit_tail(k, gi, 0, "idx", NULL, "    ");
    }
    int64_t gl[3] = {ocl_round_up(E > 0 ? E : 1, MAP_LOCAL), 1, 1}, lo[3] = {MAP_LOCAL, 1, 1};
    ocl_kernel_finish(k, 1, gl, lo);
}
