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

/* The OpenCL C search space, shared with the cuda-c emitter
 * (cuda_from_ocl.c), which writes the same kernels in CUDA C. */
extern const kf_bt_knob kf_bt_ocl_knobs[KO_N];
void kf_bt_ocl_defaults(kf_bt_point *p, const kf_resolved *r, const kf_device_info *dev);
int kf_bt_ocl_offerable(const kf_bt_point *p);
int kf_bt_ocl_conservative(kf_bt_point *p);
void kf_bt_ocl_neighbours(const kf_bt_point *p, kf_bt_nbr_sink *s);
char *kf_bt_ocl_label(const kf_bt_point *p, const char *fusion, char *buf, size_t n);
const char *kf_bt_ocl_describe_change(const kf_bt_point *a, const kf_bt_point *b, char *buf, size_t n);

#endif
