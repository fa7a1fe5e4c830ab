/*
 * plugin.c — the exported vtable of the cpu-simd backend: candidates are C
 * with an entry `void kf_kernel(const kf_cpu_args *)` (kforge-cpu.h),
 * compiled with the system C compiler and run in host memory.
 */
#include "cpu_simd.h"

static const kf_backend_info cpu_info = {
    .struct_size = sizeof(kf_backend_info),
    .source_ext = ".c",
    .fence_tag = "c",
    .guide = "kf-cpu-simd.md",
    .source_formats = 1u << KF_SRC_TEXT,
};

KF_BACKEND_EXPORT(cpu_simd) = {
    .abi_major = KF_PLUGIN_ABI_MAJOR,
    .abi_minor = KF_PLUGIN_ABI_MINOR,
    .struct_size = sizeof(kf_backend),
    .name = "cpu-simd",
    .version = "0.2.0",   /* 0.2.0: the bandwidth probe times a copy with streaming stores (a new peak cache key) */
    .caps = KF_CAP_HOST_ENTRY | KF_CAP_HOST_MEMORY,
    .language = "c",
    .probe = kf_cpu_probe,
    .compile = kf_cpu_compile,
    .verify = kf_cpu_verify,
    .profile = kf_cpu_profile,
    .release = kf_cpu_release,
    .info = &cpu_info,
    .list_devices = kf_cpu_list,
    .measure_peaks = kf_cpu_measure,
    .export_files = kf_cpu_export,
};
