/*
 * cu_fail.h — the cuda plugin's former names of the plugin SDK's error
 * helpers (kforge-plugin.h: kf_strf, kf_hook_fail), which every plugin
 * uses.  Only cu_run.c and cu_blas_plan.c still say kfcu_strf/kfcu_fail
 * (they were being edited elsewhere when the helpers moved into the SDK);
 * write kf_strf/kf_hook_fail in new code, and drop these two names once
 * those files say them too.
 */
#ifndef KF_CU_FAIL_H
#define KF_CU_FAIL_H

#include "kforge-plugin.h"

#define kfcu_strf kf_strf
#define kfcu_fail kf_hook_fail

#endif
