/*
 * ocl.h — internals of the OpenCL backend plugin (kf-opencl.so).
 *
 * The plugin speaks OpenCL 1.2 through the ICD loader only and uses nothing
 * from libkforge: its whole interface is plugin-sdk/kforge-plugin.h.
 *
 *   ocl_errors.c   CL error names, malloc'ed message formatting
 *   ocl_devices.c  flattened device list, per-device context/queue, probe
 *   ocl_cache.c    program cache: in memory and program binaries on disk
 *   ocl_il.c       programs from SPIR-V (clCreateProgramWithIL)
 *   ocl_compile.c  compile hook, artifact, release
 *   ocl_run.c      device copies of guarded buffers, running a plan, verify
 *   ocl_profile.c  profile hook: events, samples, counters, report
 *
 * Threading: the core calls the plugin from one thread at a time, so the
 * process-wide state (device list, contexts, program cache) is unlocked.
 */
#ifndef KF_OCL_H
#define KF_OCL_H

#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#include <CL/cl.h>

#include <stddef.h>
#include <stdint.h>
#include "kforge-plugin.h"

#if defined(__GNUC__)
#define KFCL_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define KFCL_PRINTF(a, b)
#endif

/* ---------------------------------------------------------------- errors */

/* "CL_INVALID_WORK_GROUP_SIZE" for -54; "CL error -9999" for unknown codes
 * (static buffer for unknown codes: single-threaded use only). */
const char *kfcl_err_name(cl_int err);
/* A short hint for an agent on what usually causes `err` in a launch, or "". */
const char *kfcl_err_hint(cl_int err);
/* Messages: kf_strf and kf_hook_fail of the plugin SDK (kforge-plugin.h). */
/* export_files (kforge-plugin.h, ABI 1.4; ocl_export.c). */
kf_status kfcl_export(const kf_export_request *req, kf_export_result *res, char **error);

/* --------------------------------------------------------------- devices */

typedef struct kfcl_device {
    cl_platform_id platform;
    cl_device_id id;
    char name[KF_NAME_MAX];
    char platform_name[KF_NAME_MAX];
    char platform_version[KF_NAME_MAX];
    char driver_version[KF_NAME_MAX];
    char vendor[KF_NAME_MAX];
    cl_device_type type;
    cl_uint align_bytes;        /* CL_DEVICE_MEM_BASE_ADDR_ALIGN / 8 */
    size_t max_work_group;
    cl_ulong local_mem;
    cl_context ctx;             /* created on first use, kept for the process */
    cl_command_queue queue;     /* in-order, CL_QUEUE_PROFILING_ENABLE */
} kfcl_device;

/* The flattened list of every device of every platform, enumerated once per
 * process.  Returns KF_OK, or KF_ERR_UNAVAILABLE with a reason in why. */
kf_status kfcl_devices(kfcl_device **devs, int *n, char *why, size_t why_len);
/* Creates the device's context and profiling queue if not yet done. */
kf_status kfcl_device_open(kfcl_device *d, char **error);
/* The probe hook. */
kf_status kfcl_probe(kf_device_info *devs, int max, int *n, char *why, size_t why_len);
/* ABI 1.1: the listing without measurements, and the measured bandwidth. */
kf_status kfcl_list(kf_device_info *devs, size_t dev_size, int max, int *n, char *why, size_t why_len);
kf_status kfcl_measure(int device, kf_device_info *dev, char *why, size_t why_len);

/* ----------------------------------------------------------------- cache */

typedef enum kfcl_cache_src {
    KFCL_BUILT = 0,      /* built from source now */
    KFCL_HIT_MEMORY = 1, /* same program already built in this process */
    KFCL_HIT_DISK = 2    /* program binary loaded from the disk cache */
} kfcl_cache_src;

/* Builds (or finds) the program for the candidate's sources and options on
 * `d`.  On success *prog holds a retained program, *log the build log
 * (malloc'ed, may be empty), *src where it came from, *note one line about
 * the cache (malloc'ed).  On KF_ERR_COMPILE *log holds the full build log. */
kf_status kfcl_program_get(kfcl_device *d, const kf_candidate_view *c, cl_program *prog,
                           char **log, kfcl_cache_src *src, char **note, char **error);

/* A program from the candidate's one SPIR-V source (clCreateProgramWithIL,
 * OpenCL 2.1, or clCreateProgramWithILKHR of cl_khr_il_program), not yet
 * built.  KF_ERR_UNAVAILABLE when the device takes no IL. */
kf_status kfcl_program_from_il(kfcl_device *d, const kf_candidate_view *c, cl_program *prog, char **error);

/* --------------------------------------------------------------- artifact */

typedef struct kfcl_launch {
    char *kernel;
    int work_dim;
    size_t global[3];
    size_t local[3];
    int has_local;
    int n_args;
    kf_arg *args;
    cl_kernel k;
} kfcl_launch;

struct kf_artifact {
    kfcl_device *dev;
    int device_index;
    cl_program program;
    kfcl_cache_src cache_src;
    int n_launches;
    kfcl_launch *launches;
    int n_inputs, n_outputs, n_scratch;
};

/* ------------------------------------------------------------ running */

/* Device copies of one kf_buffer_set: a base buffer per kf_buffer holding
 * the whole guarded region and a sub-buffer over its data part. */
typedef struct kfcl_mem {
    cl_mem base, sub;
} kfcl_mem;

typedef struct kfcl_set {
    int n;                      /* n_inputs + n_outputs + n_scratch */
    kfcl_mem *mem;              /* inputs, then outputs, then scratch */
    kf_buffer **host;           /* the matching host buffers */
} kfcl_set;

/* Creates and uploads (non-blocking) device copies of `set`. */
kf_status kfcl_set_create(kf_artifact *a, kf_buffer_set *set, kfcl_set *out, char **error);
/* Reads every guarded region back into its host base (blocking). */
kf_status kfcl_set_read_back(kf_artifact *a, kfcl_set *s, char **error);
void kfcl_set_free(kfcl_set *s);
/* Enqueues every launch of the plan on set `s`; events[i] (if events is
 * not NULL) receives launch i's event, which the caller releases. */
kf_status kfcl_enqueue_plan(kf_artifact *a, kfcl_set *s, cl_event *events, char **error);

kf_status kfcl_compile(const kf_compile_request *req, kf_artifact **out, char **diagnostics);
kf_status kfcl_verify(kf_artifact *art, kf_buffer_set *set, char **error);
kf_status kfcl_profile(kf_artifact *art, const kf_profile_request *req,
                       kf_profile_result *res, char **error);
void kfcl_release(kf_artifact *art);

#endif
