/* builtin_rewrite.c — algebraic rewrites of a plan that every emitter may
 * apply (builtin.h): where a GEMM's rows are summed right away, the sum is
 * a GEMV over the column sums of B. */
#include "builtin.h"

/* f(h) = *a * h + *c for the map nodes of GEMM group grp after the anchor;
 * 0 when one of them is not a scalar affine map of the running value. */
static int affine_chain(const kf_problem *p, const kf_bt_group *grp, double *a, double *c)
{
    *a = 1;
    *c = 0;
    int run = p->n_inputs + grp->nodes[0];
    for (int n = 1; n < grp->n_nodes; n++) {
        const kf_node *nd = &p->nodes[grp->nodes[n]];
        if (nd->op == KF_OP_NEG && nd->n_in == 1 && !nd->in[0].is_scalar && nd->in[0].value == run) {
            *a = -*a;
            *c = -*c;
        } else if ((nd->op == KF_OP_MUL || nd->op == KF_OP_DIV || nd->op == KF_OP_ADD || nd->op == KF_OP_SUB) &&
                   nd->n_in == 2) {
            int first = !nd->in[0].is_scalar && nd->in[0].value == run && nd->in[1].is_scalar;
            int second = !nd->in[1].is_scalar && nd->in[1].value == run && nd->in[0].is_scalar;
            if (!first && !second) return 0;
            double k = first ? nd->in[1].scalar : nd->in[0].scalar;
            switch (nd->op) {
            case KF_OP_MUL: *a *= k; *c *= k; break;
            case KF_OP_ADD: *c += k; break;
            case KF_OP_DIV:
                if (second || k == 0) return 0;   /* k / h is not affine */
                *a /= k; *c /= k;
                break;
            default:   /* SUB */
                if (first) *c -= k;
                else { *a = -*a; *c = k - *c; }
                break;
            }
        } else {
            return 0;
        }
        run = p->n_inputs + grp->nodes[n];
    }
    return 1;
}

int kf_bt_gemm_sum_match(const kf_bt_plan *pl, int gi, double *a, double *c)
{
    const kf_problem *p = pl->r->problem;
    const kf_bt_group *grp = &pl->groups[gi];
    if (grp->kind != KF_BT_GEMM || grp->gemm.batch != 1) return -1;
    int last = grp->last_value;
    /* every value of the group but the last lives in registers only */
    for (int n = 0; n < grp->n_nodes; n++) {
        int v = p->n_inputs + grp->nodes[n];
        if (v != last && pl->store[v].kind != KF_BT_ST_LOCAL) return -1;
    }
    if (pl->store[last].kind == KF_BT_ST_OUTPUT) return -1;
    int sum_node = -1;
    for (int k = 0; k < p->n_nodes; k++)
        for (int i = 0; i < p->nodes[k].n_in; i++)
            if (!p->nodes[k].in[i].is_scalar && p->nodes[k].in[i].value == last) {
                if (sum_node >= 0 && sum_node != k) return -1;
                sum_node = k;
            }
    if (sum_node < 0) return -1;
    const kf_node *sn = &p->nodes[sum_node];
    const kf_shape *hs = &pl->r->shapes[last];
    if (sn->op != KF_OP_SUM || sn->n_in != 1 || hs->rank != 2 || sn->dim != hs->rank - 1) return -1;
    int ri = pl->group_of[p->n_inputs + sum_node];
    if (ri < 0 || ri == gi || pl->groups[ri].kind != KF_BT_ROW || pl->groups[ri].nodes[0] != sum_node) return -1;
    if (!affine_chain(p, grp, a, c)) return -1;
    return ri;
}
