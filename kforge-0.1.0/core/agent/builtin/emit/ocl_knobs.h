/* ocl_knobs.h — the knobs of the OpenCL C emitter (ocl_space.c), as indices
 * into kf_bt_point.knob[]; shared by its search space and its generator
 * (builtin_ocl*.c). */
#ifndef KF_BT_OCL_KNOBS_H
#define KF_BT_OCL_KNOBS_H

#include "agent/builtin/builtin.h"

enum {
    KO_TS,          /* work-group tile TS x TS: 8, 16, 32, 64, 128 (k-depth of
                       the __local tiles: TS up to 32, then 16) */
    KO_WPT,         /* work per item along one axis: 1, 2, 4, 8 */
    KO_VEC,         /* vector width of loads: 1, 2, 4, 8 */
    KO_LOCAL_MEM,   /* 1: tile A/B through __local memory */
    KO_N
};

/* Work-items per work-group of a point's GEMM: (ts/vec) x (ts/wpt).  Points
 * above KF_BT_OCL_MAX_WG are refused (NVIDIA's limit; PoCL allows 4096). */
#define KF_BT_OCL_MAX_WG 1024
int kf_bt_ocl_work_group(const kf_bt_point *p);

#endif
