/*
 * builtin_ocl_internal.h — shared state of the OpenCL generator
 * (builtin_ocl*.c).  Not part of builtin.h: only the OpenCL files see it.
 *
 * One ocl_gen per call of kf_bt_gen_ocl(); one ocl_kernel per emitted
 * __kernel.  A kernel's body is written first; the buffers it touches are
 * recorded on the way (ocl_buf), then ocl_kernel_finish() writes the
 * signature and the body into the program text and appends the launch to
 * the candidate.  Errors: helpers record the first error in the ocl_gen
 * (ocl_failf) and the entry reports it; generation goes on harmlessly.
 */
#ifndef KF_BUILTIN_OCL_INTERNAL_H
#define KF_BUILTIN_OCL_INTERNAL_H

#include "agent/builtin/builtin.h"
#include "ocl_knobs.h"

#define OCL_MAX_BUFS 48

typedef struct ocl_gen {
    const kf_bt_plan *plan;
    const kf_resolved *r;
    const kf_problem *p;
    const kf_bt_point *pt;
    const kf_device_info *dev;
    kf_candidate *cand;
    kf_sb src;            /* kernel.cl */
    char **store_name;       /* per value: buffer name in the launch plan, NULL = register only */
    char **ident;            /* per value: a C identifier made from its name */
    unsigned char *half;     /* per value: stored as fp16 (vstore_half) */
    int n_kernels;
    int tc;                  /* GEMMs on tensor cores, for the cuda-c emitter
                                only (the text is CUDA C): 1 TF32 mma.sync,
                                2 BF16 mma.sync on operands converted first;
                                either through wgmma when the point's
                                tc_wgmma is 1, its tiles loaded by TMA when
                                it is 2 (cuda_gemm_wgmma.c) */
    int failed;
    int skip_group;          /* a group already emitted with an earlier one
                                (cuda_gemm_sum.c), else -1 */
    int n_gemv_sums;         /* GEMMs emitted as column sums + GEMV */
    int blas;                /* cuda-c baseline: GEMMs as cuBLAS launches
                                ("cublas:sgemm", cuda_cublas.c) */
    int n_library;           /* GEMMs emitted as library launches */
    int uses_seg;            /* kf_seg_* written (ocl_emit_seg_helpers) */
    const char *gn_part;     /* the norm partials' scratch of the GEMM being
                                emitted (cuda_gemm_norm.c), or NULL */
    int n_norm_fused;        /* norms fused into a GEMM's epilogue */
    int norm_modes;          /* bit OCL_NORM_* of each */
    kf_error *err;
} ocl_gen;

typedef struct ocl_buf {
    char *plan_name;         /* what the launch binds (input/output/scratch name) */
    char *param;             /* parameter name in the kernel */
    int written;
    int half;
} ocl_buf;

/* A tensor-map parameter (cuda-c only): `const __grid_constant__ kf_tmap_t
 * param`, bound to a {"tensor_map": ...} argument over plan buffer `buffer`. */
typedef struct ocl_tmap {
    char *param;
    char *buffer;
    kf_cand_tmap *t;
} ocl_tmap;
#define OCL_MAX_TMAPS 4

typedef struct ocl_kernel {
    ocl_gen *g;
    char name[80];
    kf_sb body;
    int barriers;            /* 1: the body uses barriers, so it must not return
                                early: it gets `kf_ok` (dims match) instead of
                                KF_CHECK_DIMS and honours it itself */
    int64_t dyn_shared;      /* cuda-c only: bytes of dynamic shared memory (the
                                kernel declares `extern __shared__`); a
                                KF_CARG_LOCAL argument with no parameter */
    int n_bufs;
    ocl_buf bufs[OCL_MAX_BUFS];
    int n_tmaps;             /* parameters after the buffers, before the dims */
    ocl_tmap tmaps[OCL_MAX_TMAPS];
} ocl_kernel;

/* Records the first error (one line) and marks the generation failed. */
void ocl_failf(ocl_gen *g, const char *fmt, ...) KF_PRINTF(2, 3);

/* Starts kernel "g<group>_<what>". */
void ocl_kernel_begin(ocl_kernel *k, ocl_gen *g, int group, const char *what);
/* Writes the kernel (attributes, signature with every recorded buffer then
 * the dims, the body) into g->src and appends its launch: global/local
 * sizes per dimension (work_dim 1..3; each global a multiple of its local).
 * Frees the kernel's storage. */
void ocl_kernel_finish(ocl_kernel *k, int work_dim, const int64_t global[3], const int64_t local[3]);
/* Abandons a kernel (after an error). */
void ocl_kernel_drop(ocl_kernel *k);
#define OCL_P(k, ...) kf_sb_printf(&(k)->body, __VA_ARGS__)

/* The kernel parameter of value v's buffer (registered on first use). */
const char *ocl_buf_value(ocl_kernel *k, int v, int write);
/* A buffer that is not a value (generator-private scratch), by plan name. */
const char *ocl_buf_named(ocl_kernel *k, const char *plan_name, int write);
/* A 2-D tensor map parameter over plan buffer `plan_name` (cuda-c only):
 * rows x cols elements of `dtype` (KF_DT_*), rows `pitch` bytes apart,
 * boxes of box_rows x box_cols, `swizzle` bytes; returns the parameter's
 * name. */
const char *ocl_tmap_2d(ocl_kernel *k, const char *plan_name, uint32_t dtype, int64_t rows, int64_t cols,
                        int64_t pitch, int64_t box_rows, int64_t box_cols, int swizzle);
/* Adds a private scratch buffer of `bytes` to the candidate; returns its
 * plan name (owned by the candidate). */
const char *ocl_private_scratch(ocl_gen *g, const char *stem, int64_t bytes);

/* Expression reading element `idx` (a size_t expression) of value v's
 * buffer, fp16-aware.  malloc'ed. */
char *ocl_elem(ocl_kernel *k, int v, const char *idx);
/* Expression of value v at element `idx` of a tensor of shape `target`
 * that v broadcasts to (PyTorch rules); v's own register when v is computed
 * in group `gi`.  `col`, when not NULL, is an expression of the last-dim
 * coordinate that the caller already has.  malloc'ed. */
char *ocl_operand(ocl_kernel *k, int gi, int v, const kf_shape *target, const char *idx,
                  const char *col);
/* Emits `const float t_<v> = ...;` for the map nodes g->nodes[from..] of
 * group gi, then stores every value of the group that has a buffer at
 * element idx.  The anchor's register t_<anchor> must already be defined
 * when from > 0.  `ind` is the indentation. */
void ocl_emit_tail(ocl_kernel *k, int gi, int from, const char *idx, const char *col,
                   const char *ind);

/* Per-kind emitters (builtin_ocl_gemm.c, builtin_ocl_reduce.c,
 * builtin_ocl_map.c).  Each emits the kernels of group gi. */
void ocl_gen_gemm(ocl_gen *g, int gi);
/* The element offsets of one batch of a (batched) GEMM: `const size_t a_off,
 * b_off, c_off` into A, B and C, from the batch index `batch_id`
 * ("get_group_id(2)", CUDA's "blockIdx.z") split over the batch dims
 * innermost first, each with its own strides of A and B; all 0 without a
 * batch (builtin_ocl_gemm.c). */
void ocl_emit_batch_offsets(ocl_kernel *k, const kf_bt_gemm *gm, const char *batch_id);
/* The GEMM of group gi on tensor cores (cuda_gemm_tc.c; CUDA C inline PTX,
 * only when g->tc): TF32, or BF16 (cuda_gemm_bf16.c) when g->tc == 2 and
 * the GEMM is not batched. */
void ocl_gen_gemm_tc(ocl_gen *g, int gi);
void ocl_gen_gemm_bf16(ocl_gen *g, int gi);
/* The GEMM of group gi on NVIDIA tensor cores from OpenCL C, TF32 through
 * inline PTX (ocl_gemm_ptx.c; the opencl-c emitter at precision TF32, only
 * where kf_bt_ocl_ptx_mma(dev)). */
void ocl_gen_gemm_ptx(ocl_gen *g, int gi);
/* The TF32 mma.sync steps over a shared tile of `depth` (As/Bs`stage`),
 * operands through `cvt`, registers of type `u32` (cuda_gemm_tc.c). */
void ocl_emit_tf32_mma_steps(ocl_kernel *k, int depth, const char *stage, const char *cvt, const char *u32);
/* The TF32 GEMM's two-stage cp.async main loop, barriers spelled `sync`
 * (cuda_gemm_tc.c; the CUDA and the OpenCL inline-PTX kernels share it). */
void ocl_emit_tf32_cp_async_loop(ocl_kernel *k, const kf_bt_gemm *gm, const char *sync, const char *cvt,
                                 const char *u32);
/* Writes the segment reductions kf_seg_sum/max/min (several short segments
 * per work-group) into the source once, before the kernel that uses them. */
void ocl_emit_seg_helpers(ocl_gen *g);
/* A kernel writing value v (rows x K, or K x rows when trans) as BF16 into
 * scratch dst laid [rp][kp], zero-padded; with dst_lo, the low parts too
 * (cuda_gemm_bf16.c). */
void ocl_gen_bf16_convert(ocl_gen *g, int gi, int v, int64_t rows, int64_t K, int trans, int64_t rp, int64_t kp,
                          const char *dst, const char *dst_lo, const char *what);
/* The GEMM of group gi through Hopper wgmma (cuda_gemm_wgmma.c): whether
 * it applies (knob tc_wgmma, precision, layout), and the emitter. */
int ocl_gemm_wgmma_applies(const ocl_gen *g, int gi);
/* Its shared-memory stages for block tile N bn and knob tc_stages (2..4):
 * tc_stages + 1 at bn 256 (48 KiB each), + 3 at bn 128 (32 KiB), fewer
 * when the device's opt-in shared memory (227 KiB when unknown) is less. */
int ocl_wgmma_stages(int bn, int knob_stages, const kf_device_info *dev);
void ocl_gen_gemm_wgmma(ocl_gen *g, int gi);
/* The store of one mma accumulator element: bias, epilogue, write, and the
 * element loop's closing brace (cuda_gemm_tc.c). */
void ocl_emit_mma_store(ocl_gen *g, ocl_kernel *k, int gi, int anchor_v, int bias);
/* A GEMM group whose rows the next row group sums, as column sums and a
 * GEMV (cuda_gemm_sum.c): emits both groups and returns the row group's
 * index, or -1 (nothing emitted) when the rewrite does not apply. */
int ocl_gen_gemm_sum(ocl_gen *g, int gi);
/* kf_bt_gen_ocl with GEMMs on tensor cores when tc, or through cuBLAS
 * when blas (the cuda-c emitter). */
int kf_bt_gen_ocl_tc(const kf_bt_plan *plan, const kf_bt_point *pt, const char *backend, const kf_device_info *dev,
                     int tc, int blas, kf_candidate **out, char **label, kf_error *err);
/* The GEMM of group gi as a cuBLAS launch of the cuda plugin (a bias
 * first broadcast into C by a small kernel, then beta = 1): 0, or -1
 * (nothing emitted) when the group has an epilogue or a batch whose
 * strides do not collapse to one, so the caller emits its own kernel. */
int ocl_gen_gemm_cublas(ocl_gen *g, int gi);
/* The cuda-c emitter's library_gemm (emit.h): the GEMM anchor through
 * "cublas:sgemm". */
int kf_bt_cuda_library_gemm(const kf_resolved *r, const struct kf_bt_gemm *g, const char *backend,
                            kf_candidate **out, char **call, kf_error *err);
/* A GroupNorm or training-mode BatchNorm right after the wgmma GEMM of
 * group gi, fused into its epilogue at fusion ROWS (cuda_gemm_norm.c):
 * OCL_NORM_GN_PANEL (the tile of BN columns holds whole groups: finished in
 * the tile), OCL_NORM_GN_SPLIT (groups span tiles: per-tile partials, then
 * one combine-and-normalise kernel), OCL_NORM_BN_SPLIT (per-tile column
 * partials, a combine kernel, the normalise kernel), or OCL_NORM_NONE. */
enum { OCL_NORM_NONE = 0, OCL_NORM_GN_PANEL = 1, OCL_NORM_GN_SPLIT = 2, OCL_NORM_BN_SPLIT = 4 };
int ocl_gemm_norm_mode(const ocl_gen *g, int gi, int bn);
/* 1 when value v (a GEMM group's last value, which only the norm after it
 * reads) stays in registers because that norm is finished in the GEMM's
 * tiles: it needs no buffer. */
int ocl_norm_keeps_in_registers(const ocl_gen *g, int v);
/* The partials' scratch (NULL for the panel), before the GEMM kernel. */
const char *ocl_norm_scratch(ocl_gen *g, int gi, int mode, int bn);
/* The wgmma kernel's epilogue in place of ocl_emit_mma_store's loop (it
 * starts with `if (!kf_ok) return;`). */
void ocl_emit_wgmma_norm(ocl_gen *g, ocl_kernel *k, int gi, int mode, int bn, int bias);
/* The kernels after the GEMM kernel (none for the panel). */
void ocl_gen_norm_second(ocl_gen *g, int gi, int mode, int bn);
void ocl_gen_reduce(ocl_gen *g, int gi);
void ocl_gen_batch_norm(ocl_gen *g, int gi);
/* The normalise kernel of batch_norm group gi in training mode, reading
 * the scratch `stats` (mean[C] then 1/sqrt(var + eps)[C]). */
void ocl_gen_batch_norm_apply(ocl_gen *g, int gi, const char *stats);
void ocl_gen_map(ocl_gen *g, int gi);

int64_t ocl_round_up(int64_t a, int64_t b);
/* Work-group size for a reduction over `len` elements: a power of two in
 * [16, 256]. */
int ocl_row_local(int64_t len);

#endif
