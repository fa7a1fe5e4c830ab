/*
 * cpu_simd.h — internals of the cpu-simd backend plugin (kf-cpu-simd.so).
 * The plugin depends only on kforge-plugin.h, libc, libdl and pthreads.
 */
#ifndef KF_CPU_SIMD_H
#define KF_CPU_SIMD_H

#include <stddef.h>
#include <stdint.h>

#include "kforge-plugin.h"
#include "kforge-cpu.h"

/* The text of kforge-cpu.h, generated from it at build time
 * (kforge-cpu-h.c); written into every compile work_dir. */
extern const char kf_cpu_header_text[];

/* A compiled candidate: the dlopen'ed object, its entry and the problem
 * facts a run needs (copied: the compile request does not outlive it). */
struct kf_artifact {
    void *handle;
    kf_cpu_entry entry;       /* NULL until kf_cpu_load */
    char *entry_name;
    char *so_path;
    int n_in, n_out, n_scratch, n_dims;
    int64_t *dims;
    int n_threads;
    int unit;                 /* KF_CPU_UNIT_* the candidate names (KF_CPU_USES), 0 if none */
};

/* probe.c */
kf_status kf_cpu_probe(kf_device_info *devs, int max, int *n, char *why, size_t why_len);
/* ABI 1.1: the probe's cheap listing and its measured half. */
kf_status kf_cpu_list(kf_device_info *devs, size_t dev_size, int max, int *n, char *why, size_t why_len);
kf_status kf_cpu_measure(int device, kf_device_info *dev, char *why, size_t why_len);
/* KF_CPU_FEAT_* this process holds: AMX_BF16 when the CPU has AMX and
 * the listing obtained the permission for its tile state (the listing runs
 * in the worker before the sandbox; the seccomp filter never needs to allow
 * the request for candidates).  why (may be NULL) says why not. */
uint32_t kf_cpu_features(const char **why);
/* Vector width in floats of the best ISA here, and its name ("avx512f"...). */
int kf_cpu_vector_floats(const char **isa);
/* Online CPUs this process may run on (sysconf, narrowed by affinity). */
int kf_cpu_cores(void);
/* Threads a run uses: $KFORGE_THREADS if set and positive, else
 * kf_cpu_cores(). */
int kf_cpu_threads(void);
/* The compiler command: $KFORGE_CC if set and non-empty, else "cc". */
const char *kf_cpu_compiler(void);

/* cache.c: one CPU's share of each data cache level, in bytes (0: none
 * found), and where the sizes came from ("sysfs", "cpuid leaf 0x4"...). */
typedef struct kf_cpu_caches {
    int64_t l1d, l2, l3;
    char source[32];
} kf_cpu_caches;
/* Reads sysfs_dir/indexN (NULL: /sys/devices/system/cpu/cpu0/cache), else
 * cpuid; a size is divided by the CPUs its shared_cpu_list names. */
void kf_cpu_read_caches(const char *sysfs_dir, kf_cpu_caches *c);

/* compile.c */
/* The compiler's flags before the sources (then -o FILE, the .c sources, the
 * candidate's build_options, -lm); export.c hands them out too. */
#define KF_CPU_N_CFLAGS 6
extern const char *const kf_cpu_cflags[KF_CPU_N_CFLAGS];
kf_status kf_cpu_compile(const kf_compile_request *req, kf_artifact **out, char **diagnostics);
/* Runs argv (no shell) in directory cwd (NULL: the current one), captures
 * stdout+stderr into *output (malloc'ed, may be NULL when empty); returns
 * the exit status, 128+signal, KF_CPU_NOEXEC when argv[0] could not be
 * executed (then *output says why), or -1 when no process could be made. */
#define KF_CPU_NOEXEC 127
int kf_cpu_run_capture(char *const argv[], const char *cwd, char **output);

/* Loads the object and looks up the entry, once; KF_OK or an error text. */
kf_status kf_cpu_load(kf_artifact *art, char **error);

/* export.c: export_files (kforge-plugin.h, ABI 1.4) for host-entry C. */
kf_status kf_cpu_export(const kf_export_request *req, kf_export_result *res, char **error);

/* run.c */
kf_status kf_cpu_verify(kf_artifact *art, kf_buffer_set *set, char **error);
kf_status kf_cpu_profile(kf_artifact *art, const kf_profile_request *req,
                         kf_profile_result *res, char **error);
void kf_cpu_release(kf_artifact *art);

#endif
