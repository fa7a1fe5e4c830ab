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

/* The cuda-c emitter's own knobs after the OpenCL ones (cuda_from_ocl.c):
 * the tensor-core GEMMs' block tile, pipeline depth, stage depth and
 * instruction (mma.sync or wgmma). */
enum {
    KU_TC_BN = KO_N,  /* block tile N of the BF16 GEMM: 128 or 256 (M is 128) */
    KU_TC_STAGES,     /* cp.async pipeline stages: 2, 3, 4 */
    KU_TC_BK,         /* k-depth of a stage: 32 or 64 */
    KU_TC_WGMMA,      /* 1: BF16 and TF32 GEMMs through Hopper wgmma
                         (cuda_gemm_wgmma.c, sm_90a); 2: the same with
                         its tiles loaded by TMA; 0: mma.sync */
    KU_N
};

extern const int kf_bt_ocl_ts_steps[5], kf_bt_ocl_wpt_steps[4], kf_bt_ocl_vec_steps[4];
/* The OpenCL knob table's entries, for tables that extend it. */
#define KF_BT_OCL_KNOB_ENTRIES                                                        \
    [KO_TS] = {"ts", 1, 128, kf_bt_ocl_ts_steps, 5, "the work-group tile"},          \
    [KO_WPT] = {"wpt", 1, 16, kf_bt_ocl_wpt_steps, 4, "work per item"},              \
    [KO_VEC] = {"vec", 1, 16, kf_bt_ocl_vec_steps, 4, "the vector width"},           \
    [KO_LOCAL_MEM] = {"local_mem", 0, 1, NULL, 0, "local_mem"}

/* Work-items per work-group of a point's GEMM: (ts/vec) x (ts/wpt).  Points
 * above KF_BT_OCL_MAX_WG are refused (NVIDIA's limit; PoCL allows 4096). */
#define KF_BT_OCL_MAX_WG 1024
int kf_bt_ocl_work_group(const kf_bt_point *p);

/* 1 when OpenCL C for dev may use NVIDIA's inline-PTX mma.sync (the TF32
 * point, ocl_gemm_ptx.c): the plugin reports TF32 matrix units (an NVIDIA
 * device of compute capability 8.0 or later; plugins/opencl) and the
 * vendor is NVIDIA.  0 for NULL, PoCL and every other vendor. */
int kf_bt_ocl_ptx_mma(const kf_device_info *dev);

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
