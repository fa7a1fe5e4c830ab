/*
 * ocl_backend.c — the exported vtable of the OpenCL backend (kf-opencl.so).
 *
 * Candidates are OpenCL C 1.2 sources plus a launch plan; the plugin builds
 * them with the ICD loader's platform/device the core names (the flattened
 * list over every platform, as `kforge backends` shows it), runs them on
 * device copies of the core's guarded buffers and times them with
 * profiling events.
 */
#include "ocl.h"

static const kf_backend_info ocl_info = {
    .struct_size = sizeof(kf_backend_info),
    .source_ext = ".cl",
    .fence_tag = "opencl",
    .guide = "kf-opencl.md",
    .source_formats = 1u << KF_SRC_TEXT | 1u << KF_SRC_SPIRV,
};

KF_BACKEND_EXPORT(opencl) = {
    .abi_major = KF_PLUGIN_ABI_MAJOR,
    .abi_minor = KF_PLUGIN_ABI_MINOR,
    .struct_size = sizeof(kf_backend),
    .name = "opencl",
    .version = "0.3.0",
    .caps = KF_CAP_KERNEL_PLAN | KF_CAP_DEVICE_TIMER,
    .language = "opencl-c",
    .probe = kfcl_probe,
    .compile = kfcl_compile,
    .verify = kfcl_verify,
    .profile = kfcl_profile,
    .release = kfcl_release,
    .info = &ocl_info,
    .list_devices = kfcl_list,
    .measure_peaks = kfcl_measure,
    .export_files = kfcl_export,
};
