/*
 * problem_describe.c — a human description of a resolved graph, one node per
 * line: "  h2 = mul(h1, 1.5)  -> [127, 333]", attributes after the operands.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "problem_internal.h"
#include "util/strbuf.h"


char *kf_problem_describe(const kf_resolved *r)
{
    const kf_problem *p = r->problem;
    kf_sb b = {0};
    int width = 1;
    for (int i = 0; i < p->n_nodes; i++) {
        int w = (int)strlen(p->nodes[i].out);
        if (w > width) width = w;
    }
    for (int i = 0; i < p->n_nodes; i++) {
        const kf_node *nd = &p->nodes[i];
        char call[512];
        size_t used = (size_t)snprintf(call, sizeof call, "%s(", kf_op_name(nd->op));
        for (int k = 0; k < nd->n_in && used < sizeof call; k++) {
            if (nd->in[k].is_scalar)
                used += (size_t)snprintf(call + used, sizeof call - used, "%s%g", k ? ", " : "",
                                         nd->in[k].scalar);
            else
                used += (size_t)snprintf(call + used, sizeof call - used, "%s%s", k ? ", " : "",
                                         kf_problem_value_name(p, nd->in[k].value));
        }
        kf_attr at[KF_OP_MAX_ATTRS];
        int na = kf_node_attrs(nd, at);
        for (int k = 0; k < na && used < sizeof call; k++) {
            const char *sep = ", ";
            switch (at[k].type) {
            case KF_ATTR_BOOL:
                used += (size_t)snprintf(call + used, sizeof call - used, "%s%s=%s", sep, at[k].key,
                                         at[k].num != 0 ? "true" : "false");
                break;
            case KF_ATTR_INT:
                used += (size_t)snprintf(call + used, sizeof call - used, "%s%s=%d", sep, at[k].key,
                                         (int)at[k].num);
                break;
            case KF_ATTR_NUM:
                used += (size_t)snprintf(call + used, sizeof call - used, "%s%s=%g", sep, at[k].key,
                                         at[k].num);
                break;
            case KF_ATTR_STR: case KF_ATTR_JSON:
                used += (size_t)snprintf(call + used, sizeof call - used, "%s%s=%s", sep, at[k].key,
                                         at[k].str);
                break;
            }
        }
        if (used < sizeof call) snprintf(call + used, sizeof call - used, ")");
        char sh[96];
        kf_sb_printf(&b, "  %-*s = %-40s -> %s\n", width, nd->out, call,
                  kf_shape_fmt(&r->shapes[p->n_inputs + i], sh, sizeof sh));
    }
    return kf_sb_take(&b);
}
