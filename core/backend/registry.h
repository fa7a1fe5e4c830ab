/*
 * registry.h — finding, loading and checking backend plugins with libltdl.
 *
 * Search order (doc/design.md, "Plugins"): every directory of
 * KFORGE_PLUGIN_PATH (colon list, empty entries ignored); only when that
 * variable is unset and kforge runs from a build tree, the tree's
 * plugins/NAME/.libs; then the installed $(pkglibdir)/plugins, replaced by
 * $KFORGE_PLUGIN_SYSTEM_PATH when set (empty: no system directory).
 * Explicit directories only, never the dynamic loader's path.  Candidate
 * files are regular files named `kf-<name>.so` or any other `*.so`; the
 * first plugin of a given name wins, later ones are skipped with a reason.
 * A file that fails to load or is refused is recorded in `skipped` with the
 * reason; the rest go on.
 */
#ifndef KF_REGISTRY_H
#define KF_REGISTRY_H

#include "util/error.h"
#include "kforge-plugin.h"

typedef struct kf_plugin {
    char *name;               /* "cpu-simd" */
    char *path;               /* file it came from */
    const kf_backend *be;
    void *handle;             /* lt_dlhandle */
    int probed;
    kf_status probe_status;   /* KF_OK or KF_ERR_UNAVAILABLE ... */
    char *probe_why;          /* reason when unavailable, else NULL */
    int n_devices;
    kf_device_info *devices;
    int peaks_from_cache;     /* devices whose measured peaks came from the cache */
    int peaks_remeasured;     /* kf_plugin_remeasure_peaks ran (once a process) */
    int peaks_raised;         /* devices whose peaks it raised */
} kf_plugin;

typedef struct kf_skipped {
    char *path;
    char *reason;
} kf_skipped;

typedef struct kf_registry {
    int n_plugins;
    kf_plugin *plugins;
    int n_skipped;
    kf_skipped *skipped;
    char *search_path;        /* the directories scanned, colon-separated */
} kf_registry;

/* Scans the search path.  probe != 0: list each plugin's devices and
 * measure (or read cached) peaks, as `kforge backends` shows them;
 * 0: load and check only. */
kf_registry *kf_registry_open(int probe, kf_error *err);
void kf_registry_close(kf_registry *reg);
kf_plugin *kf_registry_find(kf_registry *reg, const char *name);

/* Loads and checks one file (ABI major, struct size, name vs file name).
 * Returns 0, or -1 with the refusal reason in err. */
int kf_plugin_open(const char *path, kf_plugin *out, kf_error *err);
/* Devices and their peaks (ABI 1.1: the listing, then measure_peaks once
 * per device and plugin version, cached under $XDG_CACHE_HOME/kforge/peaks;
 * 1.0: the probe hook).  Returns the device count or -1 (probe_why). */
int kf_plugin_probe(kf_plugin *p);
/* Measures a probed plugin's peaks again (ABI 1.1 measure_peaks), once a
 * process, and keeps the larger of the known and the new value of each,
 * in p->devices and in the cache: peaks are upper bounds, and a machine
 * that was busy when they were first measured gave low ones, which would
 * otherwise stay the roofline (and the enforced floor) for good.  What
 * times kernels calls it (run, suite, profile; `kforge backends --measure`);
 * listings read the cache.  Returns the devices raised, or -1 when the
 * plugin has no measured half or was not probed. */
int kf_plugin_remeasure_peaks(kf_plugin *p);
/* The devices without their peaks where the plugin can tell them apart
 * (ABI 1.1 list_devices; a 1.0 plugin probes in full): what a worker
 * needs before compile. */
int kf_plugin_list(kf_plugin *p);
void kf_plugin_close(kf_plugin *p);

/* The backend name implied by a file name: "…/kf-cpu-simd.so" -> "cpu-simd";
 * malloc'ed, NULL if the name has no usable stem. */
char *kf_plugin_name_from_path(const char *path);

/* What the agents need to know of a plugin besides its hooks.  The
 * language the plugin declares ("c", "opencl-c", "cuda-c"; "" if none);
 * the extension of its source files (".c", ".cl", ".cu"); the tag of the
 * fenced block an LLM answers with ("c", "opencl", "cuda"); static strings. */
const char *kf_plugin_language(const kf_plugin *p);
const char *kf_plugin_source_ext(const kf_plugin *p);
const char *kf_plugin_fence_tag(const kf_plugin *p);
/* The plugin's LLM guide (malloc'ed path), or NULL when none is found:
 * prompts_dir/backends/NAME.md when prompts_dir (the user's --prompts) has
 * it, then the guide installed with the plugin, then the shared prompts. */
char *kf_plugin_guide_path(const kf_plugin *p, const char *prompts_dir);

/* The plugin's hooks called in the layouts of the ABI minor it was built
 * for (abi.c): 1.1 plugins get the core's structs, 1.0 plugins copies in
 * the 1.0 layouts over the same memory.  pv: the problem (buffer counts).
 * Same contracts as the hooks in kforge-plugin.h. */
int kf_plugin_abi_minor(const kf_plugin *p);
kf_status kf_plugin_compile(const kf_plugin *p, const kf_compile_request *req, kf_artifact **out,
                            char **diagnostics);
kf_status kf_plugin_verify(const kf_plugin *p, const kf_problem_view *pv, kf_artifact *art, kf_buffer_set *set,
                           char **error);
kf_status kf_plugin_profile(const kf_plugin *p, const kf_problem_view *pv, kf_artifact *art,
                            const kf_profile_request *req, kf_profile_result *res, char **error);
/* The KF_SRC_* formats compile accepts, as bits (1u << KF_SRC_x); program
 * text only for plugins that do not say. */
uint32_t kf_plugin_source_formats(const kf_plugin *p);
/* ABI 1.2: the targets compile_offline takes (space-separated, default
 * first; static), or NULL when the plugin has no compile_offline. */
const char *kf_plugin_offline_targets(const kf_plugin *p);
/* compile_offline (kforge-plugin.h); KF_ERR_INVALID with a message when the
 * plugin has none (built for ABI < 1.2 or not offered). */
kf_status kf_plugin_compile_offline(const kf_plugin *p, const kf_compile_request *req, const char *target,
                                    void **binary, size_t *binary_size, char **report, char **diagnostics);
/* ABI 1.4: whether the plugin has export_files, and the call
 * (kforge-plugin.h; `kforge export`).  kf_plugin_export zeroes *res, and
 * says why in *error (KF_ERR_INVALID) when the plugin has no export_files. */
int kf_plugin_can_export(const kf_plugin *p);
kf_status kf_plugin_export(const kf_plugin *p, const kf_export_request *req, kf_export_result *res, char **error);
/* The full probe hook (devices and peaks), into a 1.1 array of max. */
kf_status kf_plugin_call_probe(const kf_plugin *p, kf_device_info *devs, int max, int *n, char *why,
                               size_t why_len);

/* Default search path string (malloc'ed). */
char *kf_plugin_search_path(void);

#endif
