/* precision.c — the --precision policies (precision.h). */
#include "problem/precision.h"

#include <string.h>

int kf_precision_policy_parse(const char *name, int *out)
{
    if (!name) return -1;
    if (!strcmp(name, "any")) { *out = KF_PRECISION_ANY; return 0; }
    if (!strcmp(name, "fp32")) { *out = KF_PRECISION_FP32; return 0; }
    return -1;
}

const char *kf_precision_policy_name(int policy)
{
    return policy == KF_PRECISION_FP32 ? "fp32" : "any";
}

void kf_problem_require_fp32(kf_problem *p)
{
    if (p && !(p->rel_l2 <= KF_FP32_REL_L2)) p->rel_l2 = KF_FP32_REL_L2;
}
