/*
 * ze_backend.c — the exported table of the Level Zero backend
 * (kf-levelzero.so).
 *
 * Candidates are OpenCL C 1.2 (language "opencl-c": the built-in agent's
 * OpenCL emitter and the OpenCL guide serve it) or one SPIR-V module; the
 * plugin compiles OpenCL C to validated SPIR-V, creates the module with
 * ZE_MODULE_FORMAT_IL_SPIRV on the device the core names, runs the plan
 * through command lists on device copies of the guarded buffers, and times
 * it with kernel timestamps.  compile_offline makes the validated SPIR-V
 * with no driver at all (kforge verify --compile-only).
 */
#include "kfze.h"

static const kf_backend_info ze_info = {
    .struct_size = sizeof(kf_backend_info),
    .source_ext = ".cl",
    .fence_tag = "opencl",
    .guide = "kf-levelzero.md",
    .source_formats = 1u << KF_SRC_TEXT | 1u << KF_SRC_SPIRV,
    .offline_targets = "spirv64",
};

KF_BACKEND_EXPORT(levelzero) = {
    .abi_major = KF_PLUGIN_ABI_MAJOR,
    .abi_minor = KF_PLUGIN_ABI_MINOR,
    .struct_size = sizeof(kf_backend),
    .name = "levelzero",
    .version = "0.1.0",
    .caps = KF_CAP_KERNEL_PLAN | KF_CAP_DEVICE_TIMER,
    .language = "opencl-c",
    .probe = kfze_probe,
    .compile = kfze_compile,
    .verify = kfze_verify,
    .profile = kfze_profile,
    .release = kfze_release,
    .info = &ze_info,
    .list_devices = kfze_list,
    .compile_offline = kfze_compile_offline,
};
