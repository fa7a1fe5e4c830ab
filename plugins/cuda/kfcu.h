/*
 * kfcu.h — internals of the CUDA backend plugin (kf-cuda.so).
 *
 * Links no CUDA library: the driver (libcuda.so.1) and NVRTC are loaded
 * with dlopen at run time (cu_api.c), so one package works on machines with
 * and without NVIDIA software, and `kforge backends` says which is missing.
 * Uses nothing from libkforge: its whole interface is
 * plugin-sdk/kforge-plugin.h.
 *
 *   cu_api.c      dlopen/dlsym of the driver API and NVRTC, error names
 *   cu_devices.c  device list, primary contexts, the probe (peaks: FP32
 *                 estimated from SMs x clock, bandwidth measured)
 *   cu_compile.c  NVRTC -> cubin for the device's sm_XY, module, functions
 *   cu_run.c      guarded device buffers, launching a plan, verify
 *   cu_profile.c  CUDA events around each full run of the plan
 *   cu_blas_plan.c  library launches ("cublas:sgemm"): checks and the
 *                 row-major -> column-major mapping (pure, cu_blas_plan.h)
 *   cu_blas.c     cuBLAS through dlopen, one handle per device, the calls
 *   cu_tmap.c     tensor-map arguments: checks against the buffers (pure,
 *                 cu_tmap.h); cu_run.c encodes them per buffer set
 *
 * Launch plans (kf_launch): global[] counts threads and must be a multiple
 * of local[] (the block), so grid = global / local; local[0] == 0 picks a
 * block of 256 threads along dim 0.  A KF_ARG_LOCAL argument takes no
 * parameter slot: its bytes add to the launch's dynamic shared memory
 * (`extern __shared__` in the kernel).  A KF_ARG_TENSOR_MAP argument is a
 * 128-byte CUtensorMap passed by value (`const __grid_constant__
 * CUtensorMap` in the kernel), encoded when the buffers are allocated, so
 * nothing of it runs between the timed launches.  Kernels are found by name, so they
 * must be declared `extern "C" __global__`.  A launch whose kernel name
 * has a ':' is a library launch (cu_blas_plan.h): cuBLAS is called on the
 * same default stream, so it is timed like a kernel.
 *
 * A kernel fault leaves a CUDA context unusable; the plugin then refuses
 * every further call with the fault's message (the core starts a fresh
 * worker for the next candidate).  Threading: one thread at a time.
 */
#ifndef KF_CU_H
#define KF_CU_H

#include <cuda.h>
#include <nvrtc.h>
#include <stddef.h>
#include <stdint.h>

#include "kforge-plugin.h"
#include "cu_blas_plan.h"
#include "cu_tmap.h"
#include "kforge-plugin.h"


/* ------------------------------------------------------------------ api */

/* The driver functions used, by their exported (versioned) names. */
#define KFCU_DRIVER_FUNCS(X) \
    X(Init, cuInit) X(DriverGetVersion, cuDriverGetVersion) X(DeviceGetCount, cuDeviceGetCount) \
    X(DeviceGet, cuDeviceGet) X(DeviceGetName, cuDeviceGetName) X(DeviceGetAttribute, cuDeviceGetAttribute) \
    X(DeviceTotalMem, cuDeviceTotalMem_v2) X(PrimaryCtxRetain, cuDevicePrimaryCtxRetain) \
    X(CtxSetCurrent, cuCtxSetCurrent) X(CtxSynchronize, cuCtxSynchronize) \
    X(ModuleLoadDataEx, cuModuleLoadDataEx) X(ModuleUnload, cuModuleUnload) \
    X(ModuleGetFunction, cuModuleGetFunction) X(FuncGetAttribute, cuFuncGetAttribute) \
    X(FuncSetAttribute, cuFuncSetAttribute) X(MemAlloc, cuMemAlloc_v2) X(MemFree, cuMemFree_v2) \
    X(MemcpyHtoD, cuMemcpyHtoD_v2) X(MemcpyDtoH, cuMemcpyDtoH_v2) X(MemcpyDtoD, cuMemcpyDtoD_v2) \
    X(LaunchKernel, cuLaunchKernel) X(EventCreate, cuEventCreate) X(EventRecord, cuEventRecord) \
    X(EventSynchronize, cuEventSynchronize) X(EventElapsedTime, cuEventElapsedTime_v2) \
    X(EventDestroy, cuEventDestroy_v2) X(GetErrorName, cuGetErrorName) X(GetErrorString, cuGetErrorString)

#define KFCU_NVRTC_FUNCS(X) \
    X(Version, nvrtcVersion) X(CreateProgram, nvrtcCreateProgram) X(CompileProgram, nvrtcCompileProgram) \
    X(GetProgramLogSize, nvrtcGetProgramLogSize) X(GetProgramLog, nvrtcGetProgramLog) \
    X(GetCUBINSize, nvrtcGetCUBINSize) X(GetCUBIN, nvrtcGetCUBIN) X(GetPTXSize, nvrtcGetPTXSize) \
    X(GetPTX, nvrtcGetPTX) X(DestroyProgram, nvrtcDestroyProgram) X(GetErrorString, nvrtcGetErrorString)

#define KFCU_FIELD(name, sym) __typeof__(&sym) name;
typedef struct kfcu_driver { KFCU_DRIVER_FUNCS(KFCU_FIELD) } kfcu_driver;
typedef struct kfcu_nvrtc { KFCU_NVRTC_FUNCS(KFCU_FIELD) } kfcu_nvrtc;
#undef KFCU_FIELD

extern kfcu_driver kfcu;     /* valid after kfcu_load_driver() == KF_OK */
/* cuTensorMapEncodeTiled (driver 12.0 and later), NULL where the driver
 * lacks it (or the plugin was built against CUDA 11 headers, which do not
 * declare it): then a plan with tensor maps fails to compile, saying so. */
#if CUDA_VERSION >= 12000
#define KFCU_HAVE_TMAP 1
extern __typeof__(&cuTensorMapEncodeTiled) kfcu_tensor_map_encode;
#else
#define KFCU_HAVE_TMAP 0
extern void *kfcu_tensor_map_encode;
#endif
/* One encoded tensor map: CUtensorMap's 128 bytes, 64-byte aligned. */
typedef struct kfcu_tmap_blob {
    _Alignas(64) unsigned char bytes[128];
} kfcu_tmap_blob;
extern kfcu_nvrtc kfnv;      /* valid after kfcu_load_nvrtc() == KF_OK */

/* Loads libcuda.so.1 and calls cuInit once; KF_ERR_UNAVAILABLE with a
 * reason ("libcuda.so.1 not found: ...") otherwise. */
kf_status kfcu_load_driver(char *why, size_t why_len);
/* Loads NVRTC (libnvrtc.so.13, .12, .so); KF_ERR_UNAVAILABLE with a reason. */
kf_status kfcu_load_nvrtc(char *why, size_t why_len);

/* "CUDA_ERROR_ILLEGAL_ADDRESS: an illegal memory access was encountered" */
const char *kfcu_err(CUresult r, char *buf, size_t n);

/* Set by the first fault (a sticky context error); NULL while healthy. */
extern char *kfcu_poisoned;
/* KF_OK, or KF_ERR_RUNTIME with the earlier fault's message. */
kf_status kfcu_check_poison(char **error);
/* Records r as the fault that poisons the context, if it is a sticky
 * error; returns st with *error set. */
kf_status kfcu_fault(CUresult r, char **error, kf_status st, const char *what);

/* -------------------------------------------------------------- devices */

typedef struct kfcu_device {
    CUdevice dev;
    CUcontext ctx;            /* the primary context, retained on first use */
    char name[KF_NAME_MAX];
    int cc_major, cc_minor;
    int sms, clock_khz, mem_clock_khz, bus_bits, l2_bytes;
    int max_threads_block, shared_block, shared_optin, warp;
    size_t total_mem;
    void *blas;               /* cublasHandle_t, made on the first library launch */
    int blas_version;
} kfcu_device;

kf_status kfcu_devices(kfcu_device **devs, int *n, char *why, size_t why_len);
kf_status kfcu_device_open(kfcu_device *d, char **error);
kf_status kfcu_probe(kf_device_info *devs, int max, int *n, char *why, size_t why_len);
kf_status kfcu_list(kf_device_info *devs, size_t dev_size, int max, int *n, char *why, size_t why_len);
kf_status kfcu_measure(int device, kf_device_info *dev, char *why, size_t why_len);

/* ------------------------------------------------------------- artifact */

typedef struct kfcu_launch {
    char *kernel;
    CUfunction fn;
    unsigned grid[3], block[3];
    unsigned dyn_shared;       /* bytes, from KF_ARG_LOCAL arguments */
    int n_args;
    kf_arg *args;
    int n_params;              /* args minus the LOCAL ones */
    int library;               /* 1: a cuBLAS call (blas), no function */
    kfcu_blas_call blas;
} kfcu_launch;

struct kf_artifact {
    kfcu_device *dev;
    CUmodule module;
    int n_launches;
    kfcu_launch *launches;
    int n_inputs, n_outputs, n_scratch;
    int n_tmaps;               /* the plan's tensor maps (checked by cu_tmap.c) */
    kf_tensor_map *tmaps;
};

/* Device copies of one buffer set: one allocation per kf_buffer holding
 * its whole guarded region. */
typedef struct kfcu_set {
    int n;
    CUdeviceptr *base;
    kf_buffer **host;
    kfcu_tmap_blob *tmaps;     /* the artifact's tensor maps over these buffers, encoded */
} kfcu_set;

kf_status kfcu_set_create(kf_artifact *a, kf_buffer_set *set, kfcu_set *out, char **error);
/* Copies the set back into the core's buffers: every byte when `whole`,
 * else outputs whole and the guard bands of inputs and scratch. */
kf_status kfcu_set_read_back(kf_artifact *a, kfcu_set *s, int whole, char **error);
void kfcu_set_free(kfcu_set *s);
kf_status kfcu_launch_plan(kf_artifact *a, kfcu_set *s, char **error);

/* cuBLAS (cu_blas.c).  Loads the first of libs that opens and binds its
 * functions; KF_ERR_UNAVAILABLE with a reason naming the library. */
kf_status kfcu_blas_load_from(const char *const *libs, char *why, size_t why_len);
/* libcublas.so.13, then .12, once. */
kf_status kfcu_load_blas(char *why, size_t why_len);
/* The library loaded ("libcublas.so.13"), NULL before. */
const char *kfcu_blas_lib(void);
/* The device's cuBLAS handle (made once, on its primary context, which
 * must be current: kfcu_device_open);
 * KF_ERR_COMPILE with a message when cuBLAS is missing or fails. */
kf_status kfcu_blas_open(kfcu_device *d, char **error);
/* Runs library launch li of the plan on buffer set s (default stream). */
kf_status kfcu_blas_run(kf_artifact *a, kfcu_set *s, int li, char **error);

/* ABI 1.2: NVRTC to a cubin for target sm_XY without a device. */
/* NVRTC's options for every candidate, after --gpu-architecture and before
 * the candidate's build options; NULL-terminated (cu_compile.c; the
 * exported torch caller gets them through spec.json, cu_export.c). */
extern const char *const kfcu_nvrtc_options[];
/* export_files (kforge-plugin.h, ABI 1.4; cu_export.c). */
kf_status kfcu_export(const kf_export_request *req, kf_export_result *res, char **error);
kf_status kfcu_compile_offline(const kf_compile_request *req, const char *target, void **binary,
                               size_t *binary_size, char **report, char **diagnostics);
kf_status kfcu_compile(const kf_compile_request *req, kf_artifact **out, char **diagnostics);
kf_status kfcu_verify(kf_artifact *art, kf_buffer_set *set, char **error);
kf_status kfcu_profile(kf_artifact *art, const kf_profile_request *req, kf_profile_result *res,
                       char **error);
void kfcu_release(kf_artifact *art);

#endif
