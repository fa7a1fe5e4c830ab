/*
 * kfze.h — internals of the Level Zero backend plugin (kf-levelzero.so).
 *
 * Candidates are OpenCL C (the plugin's language is "opencl-c", so the
 * built-in agent's OpenCL emitter and the LLM's OpenCL guide serve it) or a
 * SPIR-V module given as a binary source.  OpenCL C becomes SPIR-V with
 * clang's spir64 target and llvm-spirv, is checked with spirv-val, and is
 * loaded with zeModuleCreate(ZE_MODULE_FORMAT_IL_SPIRV).  The plugin links
 * the Level Zero loader (libze_loader) and nothing of libkforge.
 *
 *   ze_errors.c   result names, malloc'ed message formatting
 *   ze_spirv.c    OpenCL C -> validated SPIR-V with external tools
 *   ze_devices.c  zeInit, drivers and devices, context and queue per device
 *   ze_compile.c  compile and compile_offline hooks, artifact, release
 *   ze_run.c      device copies of guarded buffers, launching a plan, verify
 *   ze_profile.c  profile hook: kernel timestamps of events
 *   ze_backend.c  the exported table
 *
 * Threading: the core calls a plugin from one thread at a time, so the
 * process-wide state (device list, contexts) is unlocked.
 */
#ifndef KF_ZE_H
#define KF_ZE_H

#include <level_zero/ze_api.h>
#include <stddef.h>
#include <stdint.h>

#include "kforge-plugin.h"

/* ---------------------------------------------------------------- errors */

/* "ZE_RESULT_ERROR_DEVICE_LOST" for its code; "ze_result_t 0x..." otherwise
 * (static buffer for unknown codes: single-threaded use only). */
const char *kfze_err_name(ze_result_t r);
/* Messages: kf_strf and kf_hook_fail of the plugin SDK (kforge-plugin.h). */

/* ----------------------------------------------------------------- SPIR-V */

/* Turns the candidate's OpenCL C sources (concatenated in order) into a
 * SPIR-V module validated by spirv-val, working in `work_dir`.  Build
 * options are checked against the OpenCL build options clang understands
 * (-D, -cl-*, -w, -Werror); others are refused.  *spv malloc'ed (*n bytes);
 * *log gets the tools' output (malloc'ed, may be empty).  KF_ERR_COMPILE
 * with the compiler's or validator's text in *log; KF_ERR_UNAVAILABLE when a
 * tool is missing (*log says which and how to get it). */
kf_status kfze_spirv_from_opencl(const kf_candidate_view *c, const char *work_dir, unsigned char **spv,
                                 size_t *n, char **log);
/* Validates a SPIR-V module given as a binary source with spirv-val. */
kf_status kfze_spirv_validate(const unsigned char *spv, size_t n, const char *work_dir, char **log);
/* The kernels a SPIR-V module defines (OpEntryPoint of the Kernel
 * execution model) and how many parameters each takes.  Returns how many
 * it found (at most max), or -1 when the module cannot be parsed. */
typedef struct kfze_entry {
    char name[128];
    int n_params;
} kfze_entry;
int kfze_spirv_entries(const unsigned char *spv, size_t n, kfze_entry *out, int max);
/* "clang-15 15.0.6, llvm-spirv-15, spirv-val (SPIRV-Tools v2023.1)": the
 * tools found, for reports (static). */
const char *kfze_tools_text(void);

/* --------------------------------------------------------------- devices */

typedef struct kfze_device {
    ze_driver_handle_t driver;
    ze_device_handle_t id;
    ze_device_properties_t props;
    ze_device_compute_properties_t compute;
    uint64_t mem_bytes;          /* sum of the device's memory properties */
    int driver_index;            /* which of the loader's drivers */
    uint32_t driver_version;     /* ze_driver_properties_t.driverVersion */
    char name[KF_NAME_MAX];
    ze_context_handle_t ctx;     /* created on first use, kept for the process */
    ze_command_queue_handle_t queue;
    uint32_t queue_ordinal;      /* a compute queue group */
} kfze_device;

/* The flattened list of every device of every driver, enumerated once per
 * process.  KF_OK, or KF_ERR_UNAVAILABLE with a reason in why. */
kf_status kfze_devices(kfze_device **devs, int *n, char *why, size_t why_len);
/* Context and command queue of the device, created if not yet done. */
kf_status kfze_device_open(kfze_device *d, char **error);
kf_status kfze_list(kf_device_info *devs, size_t dev_size, int max, int *n, char *why, size_t why_len);
kf_status kfze_probe(kf_device_info *devs, int max, int *n, char *why, size_t why_len);

/* --------------------------------------------------------------- artifact */

typedef struct kfze_launch {
    char *kernel;
    int work_dim;
    uint32_t global[3];
    uint32_t group[3];           /* from the plan, or suggested by the driver */
    int group_suggested;
    int n_args;
    kf_arg *args;
    ze_kernel_handle_t k;
} kfze_launch;

struct kf_artifact {
    kfze_device *dev;
    int device_index;
    ze_module_handle_t module;
    size_t spirv_bytes;
    int n_launches;
    kfze_launch *launches;
    int n_inputs, n_outputs, n_scratch;
};

/* ------------------------------------------------------------ running */

/* Device copies of one kf_buffer_set: one allocation per kf_buffer holding
 * the whole guarded region; kernels get base + guard_bytes. */
typedef struct kfze_set {
    int n;                       /* n_inputs + n_outputs + n_scratch */
    void **mem;                  /* device allocations */
    kf_buffer **host;
} kfze_set;

kf_status kfze_set_create(kf_artifact *a, kf_buffer_set *set, kfze_set *out, char **error);
void kfze_set_free(kf_artifact *a, kfze_set *s);
/* Appends to `list` the uploads (up = 1) or read-backs (up = 0) of every
 * guarded region of s. */
kf_status kfze_append_copies(kf_artifact *a, kfze_set *s, ze_command_list_handle_t list, int up, char **error);
/* Appends every launch of the plan on s to `list`, launch i signalling
 * events[i] when events is not NULL, with a barrier after each. */
kf_status kfze_append_plan(kf_artifact *a, kfze_set *s, ze_command_list_handle_t list,
                           ze_event_handle_t *events, char **error);
/* A fresh command list for the device's compute queue group. */
kf_status kfze_list_create(kf_artifact *a, ze_command_list_handle_t *list, char **error);
/* Closes `list`, runs it on the device's queue and waits. */
kf_status kfze_list_run(kf_artifact *a, ze_command_list_handle_t list, const char *what, char **error);

kf_status kfze_compile(const kf_compile_request *req, kf_artifact **out, char **diagnostics);
kf_status kfze_compile_offline(const kf_compile_request *req, const char *target, void **binary,
                               size_t *binary_size, char **report, char **diagnostics);
kf_status kfze_verify(kf_artifact *art, kf_buffer_set *set, char **error);
kf_status kfze_profile(kf_artifact *art, const kf_profile_request *req, kf_profile_result *res, char **error);
void kfze_release(kf_artifact *art);

#endif
