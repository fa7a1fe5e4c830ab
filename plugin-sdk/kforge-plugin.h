/*
 * kforge-plugin.h — the KForge backend plugin ABI.
 *
 * A backend is a shared object that exports ONE data symbol,
 *
 *     const kf_backend kforge_backend_<name>;
 *
 * where <name> is the plugin's file name without the "kf-" prefix and the
 * extension, with '-' mapped to '_' (file "kf-cpu-simd.so" -> symbol
 * "kforge_backend_cpu_simd", backend name "cpu-simd").  Use
 * KF_BACKEND_EXPORT(cpu_simd) to get the visibility right.
 *
 * The struct starts with {abi_major, abi_minor, struct_size, name, version,
 * caps} and then holds the hooks.  A NULL hook means "unsupported".  The core
 * refuses a plugin whose abi_major differs from KF_PLUGIN_ABI_MAJOR, whose
 * struct_size is smaller than the hooks the core needs, whose reserved slots
 * are not NULL, or whose name does not match its file name.
 *
 * ABI 1.6 (this header), 1.5, 1.4, 1.3, 1.2, 1.1 and 1.0 plugins all load.  1.6
 * appends the int16-pair peak to kf_device_info (an older plugin leaves it 0:
 * the core then bounds that unit instead of measuring it).  1.5 adds
 * tensor-map arguments (KF_ARG_TENSOR_MAP, kf_tensor_map): kf_candidate_view
 * appends the plan's tensor maps; the core refuses a plan that has one for a
 * plugin built for 1.0-1.4, which would not know the kind.  1.4 takes
 * one more reserved slot (export_files: `kforge export` asks the plugin of
 * the run's backend to write the exported kernel's host code) and appends
 * the AMX bf16 peak to kf_device_info (an older plugin leaves it 0).  1.3 appends
 * the data cache sizes and the bf16 peak to kf_device_info (an older
 * plugin leaves them 0: unknown).  1.2 takes one more reserved slot
 * (compile_offline) and appends offline_targets to kf_backend_info.  1.1 appends fields to
 * kf_device_info, kf_source, kf_launch, kf_buffer and kf_candidate_view and
 * takes three reserved slots of kf_backend (info, list_devices,
 * measure_peaks).  The core hands a plugin the struct layouts of the minor
 * version it was built for (abi_minor), converting for 1.0 plugins, so a
 * plugin never sees fields it does not know.  Structs that may grow again
 * carry their size (struct_size), and arrays the plugin reads come with
 * their element size in kf_candidate_view.
 *
 * This header is self-contained (C99, no dependency on json-c or any other
 * library) so that third parties can build against it with only
 *     pkg-config --cflags kforge-plugin
 *
 * Threading: the core calls a plugin from one thread at a time.  All hooks
 * that run candidate code are called inside a KForge worker process, never in
 * the process that holds a run's state; a hook may therefore crash or hang
 * without losing the run (the core kills the worker after its timeout).
 *
 * Memory: strings a hook returns through `char **` are malloc'ed by the
 * plugin and freed by the core with free().  Buffers passed in are owned by
 * the core.
 */
#ifndef KFORGE_PLUGIN_H
#define KFORGE_PLUGIN_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

#define KF_PLUGIN_ABI_MAJOR 1
#define KF_PLUGIN_ABI_MINOR 6

#if defined(__GNUC__)
#define KF_PLUGIN_VISIBLE __attribute__((visibility("default")))
#else
#define KF_PLUGIN_VISIBLE
#endif

/* Declares the one exported symbol of a plugin. */
#define KF_BACKEND_EXPORT(ident) \
    KF_PLUGIN_VISIBLE extern const kf_backend kforge_backend_##ident; \
    KF_PLUGIN_VISIBLE const kf_backend kforge_backend_##ident

/* Status codes returned by every hook.  0 is success. */
typedef enum kf_status {
    KF_OK = 0,
    KF_ERR_UNAVAILABLE = 1,  /* the backend cannot run here (no driver, no device) */
    KF_ERR_COMPILE = 2,      /* the candidate did not compile; diagnostics say why */
    KF_ERR_LAUNCH = 3,       /* the runtime refused a launch (bad sizes, bad args) */
    KF_ERR_RUNTIME = 4,      /* the candidate faulted or the device reported an error */
    KF_ERR_INVALID = 5,      /* the request itself is malformed (plan names a missing kernel...) */
    KF_ERR_NOMEM = 6,
    KF_ERR_INTERNAL = 7
} kf_status;

/* ------------------------------------------------------------------ */
/* error messages                                                      */

/*
 * The one way a plugin hands an error to the core.  Hooks that fail return
 * a kf_status and put one line of text in the caller's `char **` (error,
 * diagnostics): malloc'ed by the plugin, freed by the core with free().
 * The line names the object and says what is wrong and, when it can, what
 * to do ("opencl: kernel 'gemm' not found in the program; the plan names
 * the kernels the source defines").  A fixed `char *why, size_t why_len`
 * (probe, list_devices, measure_peaks) is filled with snprintf instead.
 *
 *     if (!art) return kf_hook_fail(error, KF_ERR_INVALID, "mine: no artifact");
 *
 * These helpers are header-only (static inline): they change no ABI, and a
 * plugin built with them loads in any kforge that takes its abi_minor.
 */
#if defined(__GNUC__)
#define KF_PLUGIN_PRINTF(fmt, first) __attribute__((format(printf, fmt, first)))
#else
#define KF_PLUGIN_PRINTF(fmt, first)
#endif

/* The formatted text, malloc'ed (the caller or the core frees it); NULL
 * when out of memory or when fmt cannot be formatted. */
static inline char *kf_vstrf(const char *fmt, va_list ap) KF_PLUGIN_PRINTF(1, 0);
static inline char *kf_vstrf(const char *fmt, va_list ap)
{
    va_list cp;
    va_copy(cp, ap);
    int n = vsnprintf(NULL, 0, fmt, cp);
    va_end(cp);
    char *s = n < 0 ? NULL : (char *)malloc((size_t)n + 1);
    if (s) vsnprintf(s, (size_t)n + 1, fmt, ap);
    return s;
}

static inline char *kf_strf(const char *fmt, ...) KF_PLUGIN_PRINTF(1, 2);
static inline char *kf_strf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *s = kf_vstrf(fmt, ap);
    va_end(ap);
    return s;
}

/* Puts the formatted message in *out (out may be NULL: nothing is
 * written), freeing the text *out held, and returns st, so a hook fails in
 * one statement.  Out of memory leaves *out NULL; st is returned all the
 * same. */
static inline kf_status kf_hook_fail(char **out, kf_status st, const char *fmt, ...) KF_PLUGIN_PRINTF(3, 4);
static inline kf_status kf_hook_fail(char **out, kf_status st, const char *fmt, ...)
{
    if (!out) return st;
    va_list ap;
    va_start(ap, fmt);
    char *s = kf_vstrf(fmt, ap);
    va_end(ap);
    free(*out);
    *out = s;
    return st;
}

/* Capability bits (kf_backend.caps). */
#define KF_CAP_KERNEL_PLAN  (1u << 0) /* consumes a launch plan (OpenCL, CUDA, L0)   */
#define KF_CAP_HOST_ENTRY   (1u << 1) /* consumes a host entry function (CPU SIMD C) */
#define KF_CAP_DEVICE_TIMER (1u << 2) /* profile samples come from a device clock    */
#define KF_CAP_HOST_MEMORY  (1u << 3) /* kernels read/write host memory directly      */
#define KF_CAP_CUDA_DRIVER  (1u << 4) /* kernels run through the CUDA driver: Nsight
                                         Compute can replay them (--counters auto) */

/* ------------------------------------------------------------------ */
/* probe                                                               */

#define KF_NAME_MAX 128
#define KF_DETAIL_MAX 1024

typedef struct kf_device_info {
    char name[KF_NAME_MAX];     /* "pthread-skylake-avx512", "NVIDIA H100 80GB HBM3" */
    char kind[32];              /* "cpu", "gpu", "accelerator" */
    double peak_flops;          /* fp32 FLOP/s, 0 if unknown */
    double peak_bytes_per_s;    /* device memory bandwidth, 0 if unknown */
    int peak_flops_measured;    /* 1 measured here, 0 estimated from specs */
    int peak_bw_measured;       /* 1 measured here, 0 estimated from specs */
    double cache_bytes_per_s;   /* upper bound on on-chip bandwidth, 0 if unknown;
                                   used so that cache-resident problems are not
                                   mistaken for exploits */
    char detail[KF_DETAIL_MAX]; /* free text: ISA, compute units, versions ... */
    /* ---- ABI 1.1: structured fields (0 / "" when unknown) ---- */
    uint32_t struct_size;       /* set by the core: bytes of this struct it allocated */
    char arch[32];              /* "sm_90", "gfx90a", "skylake-avx512" */
    int compute_units;          /* SMs, CUs, EUs, cores */
    int warp_size;              /* warp / wavefront / subgroup / SIMD lanes */
    int max_work_group;         /* work-items (threads) per group at most */
    int64_t local_mem_per_group;       /* shared / local memory a group gets by default, bytes */
    int64_t local_mem_per_group_optin; /* ... and at most when it asks for more */
    uint32_t matrix_units;      /* KF_MU_* bits */
    /* ---- ABI 1.3: 0 when unknown.  A plugin built for an earlier minor
       leaves them 0 (the core zeroes the array and passes its element
       size); a plugin writes them only when struct_size covers them. ---- */
    int64_t cache_l1d_bytes;    /* level-1 data cache of one core */
    int64_t cache_l2_bytes;     /* level-2 cache, one core's share */
    int64_t cache_l3_bytes;     /* last-level cache, one core's share (the
                                   size over the CPUs that share it) */
    double peak_flops_bf16;     /* FLOP/s with bf16 inputs and fp32 accumulation
                                   (e.g. AVX512_BF16 vdpbf16ps), 0 if none */
    /* ---- ABI 1.4: 0 when unknown (same rule as 1.3) ---- */
    double peak_flops_amx_bf16; /* FLOP/s of a matrix unit with bf16 inputs and
                                   fp32 accumulation used by tiles (Intel AMX
                                   tdpbf16ps), 0 if none or not permitted */
    /* ---- ABI 1.6: 0 when unknown (same rule as 1.3) ---- */
    double peak_flops_i16;      /* FLOP/s (2 a multiply-add) of int16 pair
                                   products into int32 lanes (AVX2 vpmaddwd),
                                   the products alone, 0 if none */
} kf_device_info;

/* Matrix units a device has (kf_device_info.matrix_units). */
#define KF_MU_TF32 (1u << 0)      /* TF32 x TF32 -> FP32 (tensor cores, sm_80+) */
#define KF_MU_BF16 (1u << 1)
#define KF_MU_FP16 (1u << 2)
#define KF_MU_INT8 (1u << 3)
#define KF_MU_AMX  (1u << 4)      /* Intel AMX tiles */

/* ------------------------------------------------------------------ */
/* candidates                                                          */

/* Formats of a source (kf_source.format, ABI 1.1). */
#define KF_SRC_TEXT  0u   /* program text in the plugin's language */
#define KF_SRC_PTX   1u   /* NVIDIA PTX (text) */
#define KF_SRC_CUBIN 2u   /* NVIDIA cubin (binary) */
#define KF_SRC_SPIRV 3u   /* SPIR-V module (binary) */

typedef struct kf_source {
    const char *name;  /* file name, e.g. "kernel.cl", "candidate.c" */
    const char *text;  /* NUL-terminated for text formats; the bytes otherwise */
    /* ---- ABI 1.1 ---- */
    size_t size;       /* bytes of text (without the NUL for text formats) */
    uint32_t format;   /* KF_SRC_* */
} kf_source;

/* What a kernel argument is bound to. */
typedef enum kf_arg_kind {
    KF_ARG_INPUT = 0,   /* index into the problem's inputs  -> buffer      */
    KF_ARG_OUTPUT = 1,  /* index into the problem's outputs -> buffer      */
    KF_ARG_SCRATCH = 2, /* index into the plan's scratch buffers -> buffer */
    KF_ARG_INT = 3,     /* a 32-bit signed integer value (dims, resolved)  */
    KF_ARG_LONG = 4,    /* a 64-bit signed integer value                   */
    KF_ARG_FLOAT = 5,   /* a 32-bit float value                            */
    KF_ARG_LOCAL = 6,   /* __local / dynamic shared memory of `bytes`      */
    /* ---- ABI 1.5 ---- */
    KF_ARG_TENSOR_MAP = 7 /* index into kf_candidate_view.tensor_maps: a TMA
                             descriptor over one of the plan's buffers (CUDA:
                             a `const __grid_constant__ CUtensorMap` parameter) */
} kf_arg_kind;

typedef struct kf_arg {
    kf_arg_kind kind;
    int index;          /* INPUT / OUTPUT / SCRATCH */
    int64_t ival;       /* INT / LONG */
    double fval;        /* FLOAT */
    int64_t bytes;      /* LOCAL */
} kf_arg;

/* One launch of a kernel, all sizes already evaluated by the core. */
typedef struct kf_launch {
    const char *kernel;  /* kernel (function) name */
    int work_dim;        /* 1..3 */
    int64_t global[3];   /* total work-items (OpenCL) or grid*block (CUDA) */
    int64_t local[3];    /* 0 in local[0] = let the runtime choose */
    int n_args;
    const kf_arg *args;
    /* ---- ABI 1.1 ---- */
    int64_t dyn_shared_bytes;  /* dynamic shared / local memory of the launch (CUDA's
                                  third launch parameter); 0: none */
} kf_launch;

/* A tensor map (ABI 1.5): a tiled view of one buffer for the hardware's
 * tensor copies (CUDA's TMA, cuTensorMapEncodeTiled), as the plan asked for
 * it, every expression evaluated.  Dimension 0 is the innermost (contiguous)
 * one.  The plugin checks it against the buffer: the map may reach only that
 * buffer's own data bytes, (dims[0] - 1) * element bytes + sum over d >= 1
 * of (dims[d] - 1) * strides[d] + element bytes <= the buffer's bytes. */
#define KF_TMAP_MAX_RANK 5
typedef struct kf_tensor_map {
    uint32_t struct_size;          /* sizeof(kf_tensor_map) as the core built it */
    kf_arg_kind buffer_kind;       /* KF_ARG_INPUT, KF_ARG_OUTPUT or KF_ARG_SCRATCH */
    int buffer_index;              /* index among that kind's buffers */
    uint32_t dtype;                /* KF_DT_* of the elements the map reads */
    int rank;                      /* 1..KF_TMAP_MAX_RANK */
    int64_t dims[KF_TMAP_MAX_RANK];    /* elements per dimension, innermost first */
    int64_t strides[KF_TMAP_MAX_RANK]; /* bytes between consecutive indices of dimension d;
                                          strides[0] is the element size */
    int64_t box[KF_TMAP_MAX_RANK];     /* the tile one copy moves, elements per dimension */
    int swizzle;                   /* shared-memory swizzle in bytes: 0, 32, 64 or 128 */
} kf_tensor_map;

typedef struct kf_candidate_view {
    const char *backend;        /* must equal the plugin's name */
    int n_sources;
    const kf_source *sources;
    const char *build_options;  /* extra compiler options, may be "" */
    const char *entry;          /* host entry function (KF_CAP_HOST_ENTRY) */
    int n_launches;             /* launch plan (KF_CAP_KERNEL_PLAN) */
    const kf_launch *launches;
    /* ---- ABI 1.1 ---- */
    uint32_t struct_size;       /* sizeof(kf_candidate_view) as the core built it */
    uint32_t source_size;       /* element size of sources[] */
    uint32_t launch_size;       /* element size of launches[] */
    /* ---- ABI 1.5 ---- */
    int n_tensor_maps;          /* the plan's tensor maps, named by KF_ARG_TENSOR_MAP args */
    const kf_tensor_map *tensor_maps;
    uint32_t tensor_map_size;   /* element size of tensor_maps[] */
} kf_candidate_view;

/* Element i of an array whose element size came with it (a newer core's
 * arrays may have larger elements than this header knows). */
#define KF_AT(type, array, elem_size, i) \
    ((const type *)((const char *)(array) + (size_t)(i) * (size_t)(elem_size)))

/* The problem as a plugin sees it: names and element counts only. */
typedef struct kf_problem_view {
    const char *name;
    int n_dims;
    const char *const *dim_names;
    const int64_t *dim_values;
    int n_inputs;
    const char *const *input_names;
    const int64_t *input_elems;    /* float32 elements */
    int n_outputs;
    const char *const *output_names;
    const int64_t *output_elems;
    int n_scratch;                  /* scratch buffers requested by the plan */
    const int64_t *scratch_bytes;
} kf_problem_view;

typedef struct kf_compile_request {
    const kf_candidate_view *candidate;
    const kf_problem_view *problem;
    int device;                 /* index into the probe's list; -1 in compile_offline */
    const char *work_dir;       /* a private directory the plugin may write to */
} kf_compile_request;

/* Opaque compiled artifact, owned by the plugin until release(). */
typedef struct kf_artifact kf_artifact;

/* ------------------------------------------------------------------ */
/* buffers: the core's guarded host memory                             */

/*
 * Every buffer the core hands over is laid out as
 *
 *     base: [ guard_bytes canary | bytes of data | guard_bytes canary ]
 *
 * `data == base + guard_bytes`.  guard_bytes is a multiple of 4096, so data
 * is 4096-byte aligned.  A backend whose kernels run in host memory passes
 * `data` to the candidate.  A device backend must place the WHOLE guarded
 * region on the device (so that an out-of-bounds write lands in the guard),
 * give the kernel a pointer to the data part, and after a verify run copy
 * the WHOLE guarded region of every buffer (inputs and scratch too) back to
 * `base`: the core checks guards, outputs and input integrity itself.
 * After profile runs it may copy back only the outputs' regions and the
 * guard bands of inputs and scratch (their data parts then keep what the
 * core wrote): at large presets the inputs are gigabytes, and the core
 * judges input integrity on the verify runs.
 */
/* Element types of a buffer (kf_buffer.dtype, ABI 1.1). */
#define KF_DT_F32  0u
#define KF_DT_F16  1u
#define KF_DT_BF16 2u
#define KF_DT_I32  3u

typedef struct kf_buffer {
    unsigned char *base;
    float *data;          /* the data part (cast for other dtypes) */
    size_t bytes;         /* data bytes (not counting guards) */
    size_t guard_bytes;   /* on each side */
    /* ---- ABI 1.1 ---- */
    uint32_t dtype;       /* KF_DT_*; a plugin refuses (KF_ERR_INVALID) a type it cannot run */
} kf_buffer;

/* One complete set of buffers for one evaluation of the candidate. */
typedef struct kf_buffer_set {
    kf_buffer *inputs;    /* problem->n_inputs  */
    kf_buffer *outputs;   /* problem->n_outputs */
    kf_buffer *scratch;   /* problem->n_scratch */
} kf_buffer_set;

/* ------------------------------------------------------------------ */
/* profile                                                             */

#define KF_MAX_COUNTERS 32

typedef struct kf_counter {
    char name[64];   /* "launch[0].gemm.ms", "local_mem_bytes", ... */
    double value;
} kf_counter;

typedef struct kf_profile_request {
    int warmup;               /* runs to discard before timing */
    int reps;                 /* timed runs (>= 1) */
    int n_sets;               /* buffer sets to rotate through, >= 1 */
    kf_buffer_set *sets;      /* sets[i] used by run i % n_sets */
} kf_profile_request;

typedef struct kf_profile_result {
    double *samples_s;        /* caller-allocated, reps entries: seconds per
                                 full run of the candidate (all launches) */
    int n_samples;            /* filled by the plugin (<= reps) */
    int clock_is_device;      /* 1: device events, 0: host monotonic clock */
    kf_counter counters[KF_MAX_COUNTERS];
    int n_counters;
    char *report;             /* malloc'ed text for the analysis agent, or NULL */
} kf_profile_result;

/* ------------------------------------------------------------------ */
/* export (ABI 1.4)                                                    */

/* What `kforge export RUN --to TARGET` hands the plugin of the run's
 * backend: the run's best verified candidate (a kernel plan bound at the
 * run's preset, every size and argument resolved; a host entry with no
 * launches), and the problem at that preset.  The exported code accepts
 * exactly those sizes. */
typedef struct kf_export_request {
    uint32_t struct_size;       /* sizeof(kf_export_request) as the core built it */
    const char *target;         /* "c": host code a C program links; "torch": the
                                   caller module of a Python package (below) */
    const char *ident;          /* C and Python identifier of the export ("kf_12_gemm_...") */
    const char *preset;         /* the preset the kernel was verified at */
    const kf_problem_view *problem;      /* names, dims' values, element counts, scratch bytes */
    const kf_candidate_view *candidate;  /* sources (text), build options, the bound plan */
    const char *const *const *arg_exprs; /* [launch][arg]: the plan's expression an argument
                                            was bound from ("K", "16*K*4"), or NULL */
    /* ---- read only when struct_size covers it (an earlier 1.4 core does not
       pass it) ---- */
    const char *run_backend;    /* the backend that verified the kernel, as the run recorded
                                   it ("cpu-simd"; another plugin of the same language may be
                                   the one exporting), for the exported files' comments */
} kf_export_request;

/* One file of an export: a plain name (no '/'), its text. */
typedef struct kf_export_file {
    char *name;
    char *text;
} kf_export_file;

/* What the plugin gives back; everything malloc'ed by the plugin and freed
 * by the core with free() (kf_export_add allocates it that way).  The core
 * writes the files into the export's directory, beside the candidate's
 * sources (and, for "torch", spec.json, __init__.py and _loadlib.py). */
typedef struct kf_export_result {
    int n_files;
    kf_export_file *files;
    char *caller;      /* "torch": the module (a file's name without ".py") the package's
                          __init__ imports.  It defines setup(spec, here),
                          device_problem(tensor) -> None or why not, and
                          run(tensors) -> outputs, and may list more names to
                          re-export in EXPORTS; it may import the package's
                          _loadlib (load_first(names): the first library that loads,
                          and the errors of those that did not). */
    char *spec_extra;  /* "torch": a JSON object whose members the core adds to the
                          package's spec.json (e.g. the compiler's options), or NULL */
} kf_export_result;

/* Appends a file to res, taking `text` (malloc'ed; freed here on failure);
 * 0, or -1 when out of memory. */
static inline int kf_export_add(kf_export_result *res, const char *name, char *text)
{
    size_t n = 0;
    while (name[n]) n++;
    char *nm = (char *)malloc(n + 1);
    kf_export_file *f = (kf_export_file *)realloc(res->files, (size_t)(res->n_files + 1) * sizeof *f);
    if (f) res->files = f;
    if (!text || !nm || !f) {
        free(nm);
        free(text);
        return -1;
    }
    memcpy(nm, name, n + 1);
    res->files[res->n_files].name = nm;
    res->files[res->n_files].text = text;
    res->n_files++;
    return 0;
}

/* ------------------------------------------------------------------ */
/* the backend vtable                                                  */

/* What the agents need to know of a plugin besides its hooks (ABI 1.1):
 * static data, pointed to by kf_backend.info. */
typedef struct kf_backend_info {
    uint32_t struct_size;      /* sizeof(kf_backend_info) as the plugin was built */
    const char *source_ext;    /* ".c", ".cl", ".cu" */
    const char *fence_tag;     /* the tag of the fenced block an LLM answers with: "opencl" */
    const char *guide;         /* file name of the plugin's LLM guide, installed next to
                                  the .so (the core resolves it), or NULL */
    uint32_t source_formats;   /* bit (1u << KF_SRC_x) per format compile accepts */
    /* ---- ABI 1.2 (read when struct_size covers it) ---- */
    const char *offline_targets;  /* the targets compile_offline accepts, space-separated,
                                     the default first ("spirv64", "sm_90 sm_80 ..."); NULL:
                                     none.  A plugin may accept more than it lists. */
} kf_backend_info;

typedef struct kf_backend {
    uint32_t abi_major;      /* KF_PLUGIN_ABI_MAJOR */
    uint32_t abi_minor;      /* KF_PLUGIN_ABI_MINOR */
    uint32_t struct_size;    /* sizeof(kf_backend) as the plugin was built */
    const char *name;        /* "cpu-simd", "opencl", ... */
    const char *version;     /* the plugin's own version string */
    uint32_t caps;           /* KF_CAP_* */
    const char *language;    /* "c", "opencl-c", "cuda", ... for prompts */

    /* Lists devices into devs[0..max), sets *n.  On KF_ERR_UNAVAILABLE
     * writes a human reason into why ("no OpenCL platform found; set
     * OCL_ICD_VENDORS or install an ICD in /etc/OpenCL/vendors").  Must be
     * cheap to call and must not run candidate code. */
    kf_status (*probe)(kf_device_info *devs, int max, int *n,
                       char *why, size_t why_len);

    /* Candidate -> artifact.  On KF_ERR_COMPILE sets *diagnostics to the
     * compiler's text verbatim (fit to feed back to an agent).  On any
     * status may set *diagnostics; the core frees it. */
    kf_status (*compile)(const kf_compile_request *req, kf_artifact **out,
                         char **diagnostics);

    /* Runs the artifact once on `set`.  Outputs and the whole guarded
     * regions end up back in host memory (see kf_buffer).  Never judges
     * correctness.  *error gets a message on failure. */
    kf_status (*verify)(kf_artifact *art, kf_buffer_set *set, char **error);

    /* Warm-up, then reps timed runs rotating sets; fills res. */
    kf_status (*profile)(kf_artifact *art, const kf_profile_request *req,
                         kf_profile_result *res, char **error);

    /* Frees an artifact.  NULL-safe. */
    void (*release)(kf_artifact *art);

    /* ---- ABI 1.1 (read only when abi_minor >= 1; NULL = not provided) ---- */
    const kf_backend_info *info;

    /* The cheap half of probe: lists devices into devs (dev_size bytes per
     * element, as the core allocated them: index with KF_AT) without
     * measuring anything; peaks may stay 0.  Called in every worker before
     * compile.  Same contract as probe otherwise. */
    kf_status (*list_devices)(kf_device_info *devs, size_t dev_size, int max, int *n,
                              char *why, size_t why_len);

    /* The measured half: fills dev's peak_* and cache_bytes_per_s for
     * device `device` of the listing (may take a second).  The core calls it
     * once per device and plugin version and caches the result under
     * $XDG_CACHE_HOME/kforge/peaks/; workers never call it. */
    kf_status (*measure_peaks)(int device, kf_device_info *dev, char *why, size_t why_len);

    /* ---- ABI 1.2 (read only when abi_minor >= 2; NULL = not provided) ---- */

    /* Compiles the candidate for `target` (NULL: the first of
     * info->offline_targets) without any device and without running
     * anything of it: `kforge verify --compile-only`, so candidates are
     * checked on machines without the hardware and in CI.  req->device is
     * -1.  On KF_OK: *binary (malloc'ed, *binary_size bytes; the core frees
     * it) is what the plugin would load (cubin, validated SPIR-V, ...) and
     * *report says what it is and what was checked ("validated SPIR-V 1.2,
     * 3 kernels"; malloc'ed).  On KF_ERR_COMPILE *diagnostics has the
     * compiler's or validator's text verbatim; KF_ERR_INVALID for a target
     * it does not know (say which it knows); KF_ERR_UNAVAILABLE when a tool
     * it needs is missing (say which and how to get it).  Called in a
     * worker; may run compilers as child processes. */
    kf_status (*compile_offline)(const kf_compile_request *req, const char *target,
                                 void **binary, size_t *binary_size, char **report,
                                 char **diagnostics);

    /* ---- ABI 1.4 (read only when abi_minor >= 4; NULL = not provided) ---- */

    /* The exported kernel's host code for req->target, as files in *res
     * (`kforge export`: the core decides from the run's recorded language
     * and capabilities what to export and asks the plugin of the run's
     * backend for the code that calls it).  KF_ERR_INVALID with *error for
     * a target or candidate it does not export (say what to use instead);
     * KF_ERR_NOMEM.  Called in the kforge process: it must not run
     * candidate code, touch files or need the hardware. */
    kf_status (*export_files)(const kf_export_request *req, kf_export_result *res, char **error);

    void *reserved[3];       /* must be NULL; room to grow within ABI 1 */
} kf_backend;

/* Smallest struct_size the core accepts for ABI 1: the 1.0 hooks. */
#define KF_BACKEND_MIN_SIZE ((uint32_t)offsetof(kf_backend, info))

#ifdef __cplusplus
}
#endif
#endif /* KFORGE_PLUGIN_H */
