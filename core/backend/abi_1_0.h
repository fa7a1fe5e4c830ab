/*
 * abi_1_0.h — the plugin ABI 1.0 layouts of the structs that ABI 1.1 grew,
 * private to the core: a plugin built against kforge-plugin.h 1.0 reads
 * arrays of these, so the core converts its 1.1 views before calling it
 * (abi.c).  Frozen: never edit.
 */
#ifndef KF_ABI_1_0_H
#define KF_ABI_1_0_H

#include "kforge-plugin.h"

typedef struct kf_device_info_1_0 {
    char name[KF_NAME_MAX];
    char kind[32];
    double peak_flops;
    double peak_bytes_per_s;
    int peak_flops_measured;
    int peak_bw_measured;
    double cache_bytes_per_s;
    char detail[KF_DETAIL_MAX];
} kf_device_info_1_0;

typedef struct kf_source_1_0 {
    const char *name;
    const char *text;
} kf_source_1_0;

typedef struct kf_launch_1_0 {
    const char *kernel;
    int work_dim;
    int64_t global[3];
    int64_t local[3];
    int n_args;
    const kf_arg *args;
} kf_launch_1_0;

typedef struct kf_buffer_1_0 {
    unsigned char *base;
    float *data;
    size_t bytes;
    size_t guard_bytes;
} kf_buffer_1_0;

#endif
