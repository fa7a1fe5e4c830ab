/* cu_backend.c — the exported backend table of kf-cuda.so. */
#include "kfcu.h"

static const kf_backend_info cu_info = {
    .struct_size = sizeof(kf_backend_info),
    .source_ext = ".cu",
    .fence_tag = "cuda",
    .guide = "kf-cuda.md",
    .source_formats = 1u << KF_SRC_TEXT,
    .offline_targets = "sm_90 sm_90a sm_80 sm_86 sm_89 sm_100 sm_120",
};

KF_BACKEND_EXPORT(cuda) = {
    .abi_major = KF_PLUGIN_ABI_MAJOR,
    .abi_minor = KF_PLUGIN_ABI_MINOR,
    .struct_size = sizeof(kf_backend),
    .name = "cuda",
    .version = "0.3.0",
    .caps = KF_CAP_KERNEL_PLAN | KF_CAP_DEVICE_TIMER | KF_CAP_CUDA_DRIVER,
    .language = "cuda-c",
    .probe = kfcu_probe,
    .compile = kfcu_compile,
    .verify = kfcu_verify,
    .profile = kfcu_profile,
    .release = kfcu_release,
    .info = &cu_info,
    .list_devices = kfcu_list,
    .measure_peaks = kfcu_measure,
    .compile_offline = kfcu_compile_offline,
    .export_files = kfcu_export,
};
