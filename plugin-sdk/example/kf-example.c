/*
 * kf-example.c — a complete, small KForge backend built out of tree.
 *
 * Copy this file to start your own backend.  It needs nothing but the SDK
 * header (`pkg-config --cflags kforge-plugin`), libc and libdl.
 *
 * What it does: candidates are plain C with the cpu-simd calling convention
 *
 *     #include "kforge-cpu.h"
 *     void kf_kernel(const kf_cpu_args *a);   // or the name in "entry"
 *
 * compiled by the system C compiler ($KFORGE_CC, default "cc") with -O2 and
 * no SIMD flags into a shared object that this plugin dlopens.  The kernel
 * runs in the core's host memory (KF_CAP_HOST_MEMORY), single-threaded.
 *
 * The rules every backend follows (kforge-plugin.h):
 *  - the file is kf-<name>.so and exports ONE symbol, kforge_backend_<name>,
 *    declared with KF_BACKEND_EXPORT; .name must equal <name>;
 *  - hooks return a kf_status; text handed back through `char **` is
 *    malloc'ed here and freed by the core;
 *  - compile/verify/profile run inside a KForge worker process, so a
 *    candidate that crashes or hangs only costs that worker;
 *  - verify never judges correctness: it runs the candidate once and leaves
 *    the outputs in the core's buffers; the core compares.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE                      /* vasprintf */
#endif
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kforge-plugin.h"

extern char **environ;

/* ------------------------------------------------------------------ */
/* The candidate calling convention (same layout as kforge-cpu.h).      */

typedef struct kf_cpu_args {
    const float *const *in;    /* problem inputs, problem order, read-only */
    float *const *out;         /* problem outputs, pre-filled with NaN     */
    float *const *scratch;     /* scratch buffers of candidate.json        */
    const int64_t *dims;       /* dim values, problem order                */
    int n_in, n_out, n_scratch, n_dims;
    int n_threads;             /* always 1 here                            */
} kf_cpu_args;

typedef void (*kf_cpu_entry)(const kf_cpu_args *a);

/* Written next to the candidate's sources so `#include "kforge-cpu.h"`
 * works; must describe exactly the struct above. */
static const char cpu_header[] =
    "#ifndef KFORGE_CPU_H\n"
    "#define KFORGE_CPU_H\n"
    "#include <stdint.h>\n"
    "typedef struct kf_cpu_args {\n"
    "    const float *const *in;\n"
    "    float *const *out;\n"
    "    float *const *scratch;\n"
    "    const int64_t *dims;\n"
    "    int n_in, n_out, n_scratch, n_dims;\n"
    "    int n_threads;\n"
    "} kf_cpu_args;\n"
    "typedef void (*kf_cpu_entry)(const kf_cpu_args *a);\n"
    "#endif\n";

/* The artifact: opaque to the core, ours to define. */
struct kf_artifact {
    void *handle;              /* dlopen handle of the compiled candidate */
    kf_cpu_entry entry;
    int n_in, n_out, n_scratch, n_dims;
    int64_t *dims;
};

/* malloc'ed formatted text (NULL when out of memory). */
static char *textf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *textf(const char *fmt, ...)
{
    va_list ap;
    char *s = NULL;
    va_start(ap, fmt);
    if (vasprintf(&s, fmt, ap) < 0) s = NULL;
    va_end(ap);
    return s;
}

/* ------------------------------------------------------------------ */
/* probe                                                               */

/* Highest clock of cpu0 in GHz: cpufreq's maximum, else /proc/cpuinfo. */
static double cpu_ghz(void)
{
    double ghz = 0;
    FILE *f = fopen("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq", "r");
    long khz;
    if (f) {
        if (fscanf(f, "%ld", &khz) == 1) ghz = khz / 1e6;
        fclose(f);
    }
    if (ghz > 0) return ghz;
    char line[256];
    double mhz;
    f = fopen("/proc/cpuinfo", "r");
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "cpu MHz : %lf", &mhz) == 1 && mhz / 1e3 > ghz) ghz = mhz / 1e3;
    if (f) fclose(f);
    return ghz > 0 ? ghz : 3.0;          /* no clock to be found: a typical one */
}

static kf_status example_probe(kf_device_info *devs, int max, int *n, char *why, size_t why_len)
{
    *n = 0;
    if (max < 1) return KF_OK;
    kf_device_info *d = &devs[0];
    memset(d, 0, sizeof *d);
    double ghz = cpu_ghz();
    snprintf(d->name, sizeof d->name, "host-cpu-scalar");
    snprintf(d->kind, sizeof d->kind, "cpu");
    /* An upper bound, not a measurement: one core running -O2 code (at
     * most 128-bit vectors, two arithmetic ports: 16 FLOP per cycle).  The
     * core treats a time under the roofline floor as an exploit, so a
     * backend must never UNDER-estimate its peak. */
    d->peak_flops = ghz * 1e9 * 16;
    d->peak_flops_measured = 0;
    d->peak_bytes_per_s = 0;             /* unknown: no bandwidth claim */
    d->peak_bw_measured = 0;
    snprintf(d->detail, sizeof d->detail,
             "1 thread, %.2f GHz, candidates built with %s -O2 (no SIMD flags); "
             "peak = 16 FLOP/cycle upper bound", ghz, getenv("KFORGE_CC") ? getenv("KFORGE_CC") : "cc");
    (void)why;
    (void)why_len;
    *n = 1;
    return KF_OK;
}

/* ------------------------------------------------------------------ */
/* compile                                                             */

static int write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (!f) return -1;
    size_t len = strlen(text);
    int bad = fwrite(text, 1, len, f) != len;
    bad |= fclose(f) != 0;
    return bad ? -1 : 0;
}

static char *read_file(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f) return NULL;
    char *buf = NULL;
    size_t len = 0, cap = 0, got;
    do {
        if (cap - len < 4096) {
            char *nb = realloc(buf, cap = cap ? 2 * cap : 8192);
            if (!nb) break;
            buf = nb;
        }
        got = fread(buf + len, 1, cap - len - 1, f);
        len += got;
    } while (got > 0);
    fclose(f);
    if (buf) buf[len] = '\0';
    return buf;
}

/* Runs argv (no shell) with stdout+stderr into log_path; exit status, or
 * -1 when it could not be started (errno set). */
static int run_logged(char *const argv[], const char *log_path)
{
    posix_spawn_file_actions_t fa;
    pid_t pid;
    int status;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, log_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_adddup2(&fa, STDOUT_FILENO, STDERR_FILENO);
    int rc = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    if (rc != 0) {
        errno = rc;
        return -1;
    }
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR) return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static int plain_file_name(const char *name)
{
    return name && name[0] && name[0] != '.' && !strchr(name, '/');
}

#define MAX_ARGS 128

static kf_status example_compile(const kf_compile_request *req, kf_artifact **out, char **diagnostics)
{
    const kf_candidate_view *c = req->candidate;
    const kf_problem_view *p = req->problem;
    static int serial;                    /* fresh .so name per compile: dlopen caches by name */
    char *argv[MAX_ARGS], *owned[MAX_ARGS], *opts = NULL;
    int argc = 0, n_owned = 0;
    kf_status st = KF_ERR_INTERNAL;
    *out = NULL;
    *diagnostics = NULL;

    if (!req->work_dir || c->n_sources < 1) {
        *diagnostics = textf("example: a compile needs a work directory and at least one source");
        return KF_ERR_INVALID;
    }
    /* the header, then every source, into the work directory */
    char *path = textf("%s/kforge-cpu.h", req->work_dir);
    if (!path || write_file(path, cpu_header) != 0) {
        *diagnostics = textf("example: cannot write %s: %s", path ? path : "kforge-cpu.h", strerror(errno));
        free(path);
        return KF_ERR_INTERNAL;
    }
    free(path);

    const char *cc = getenv("KFORGE_CC") && getenv("KFORGE_CC")[0] ? getenv("KFORGE_CC") : "cc";
    char *so = textf("%s/example-%d-%d.so", req->work_dir, (int)getpid(), ++serial);
    char *log = textf("%s/example-compile.log", req->work_dir);
    char *inc = textf("-I%s", req->work_dir);
    if (!so || !log || !inc) goto nomem;
    argv[argc++] = (char *)cc;
    argv[argc++] = "-std=gnu11";
    argv[argc++] = "-O2";
    argv[argc++] = "-fPIC";
    argv[argc++] = "-shared";
    argv[argc++] = inc;
    argv[argc++] = "-o";
    argv[argc++] = so;
    for (int i = 0; i < c->n_sources; i++) {
        const kf_source *s = &c->sources[i];
        if (!plain_file_name(s->name)) {
            *diagnostics = textf("example: source name '%s' must be a plain file name", s->name ? s->name : "");
            st = KF_ERR_INVALID;
            goto done;
        }
        char *src = textf("%s/%s", req->work_dir, s->name);
        if (!src) goto nomem;
        owned[n_owned++] = src;
        if (write_file(src, s->text ? s->text : "") != 0) {
            *diagnostics = textf("example: cannot write %s: %s", src, strerror(errno));
            goto done;
        }
        size_t len = strlen(s->name);
        if (len > 2 && strcmp(s->name + len - 2, ".c") == 0 && argc < MAX_ARGS - 40) argv[argc++] = src;
    }
    /* extra options, split on blanks */
    opts = strdup(c->build_options ? c->build_options : "");
    if (!opts) goto nomem;
    char *save = NULL;
    for (char *t = strtok_r(opts, " \t\n", &save); t && argc < MAX_ARGS - 1; t = strtok_r(NULL, " \t\n", &save))
        argv[argc++] = t;
    argv[argc] = NULL;

    int rc = run_logged(argv, log);
    char *text = read_file(log);
    if (rc < 0) {
        *diagnostics = textf("example: cannot run the C compiler '%s': %s (set KFORGE_CC)", cc, strerror(errno));
        free(text);
        st = KF_ERR_COMPILE;
        goto done;
    }
    if (rc != 0) {                        /* the compiler's own words go back to the agent */
        if (!text || !text[0]) {
            free(text);
            text = textf("example: %s exited with status %d and printed nothing", cc, rc);
        }
        *diagnostics = text;
        st = KF_ERR_COMPILE;
        goto done;
    }
    if (text && text[0]) *diagnostics = text;    /* warnings, fit for an agent */
    else free(text);

    /* load it and find the entry */
    kf_artifact *art = calloc(1, sizeof *art);
    if (!art) goto nomem;
    art->handle = dlopen(so, RTLD_NOW | RTLD_LOCAL);
    const char *entry = c->entry && c->entry[0] ? c->entry : "kf_kernel";
    if (art->handle) *(void **)&art->entry = dlsym(art->handle, entry);
    if (!art->handle || !art->entry) {
        char *why = art->handle
            ? textf("example: the candidate defines no function '%s': define "
                    "`void %s(const kf_cpu_args *a)` (not static)", entry, entry)
            : textf("example: the compiled candidate does not load: %s", dlerror());
        free(*diagnostics);
        *diagnostics = why;
        if (art->handle) dlclose(art->handle);
        free(art);
        st = KF_ERR_COMPILE;
        goto done;
    }
    art->n_in = p->n_inputs;
    art->n_out = p->n_outputs;
    art->n_scratch = p->n_scratch;
    art->n_dims = p->n_dims;
    art->dims = calloc((size_t)p->n_dims + 1, sizeof *art->dims);
    if (!art->dims) {
        dlclose(art->handle);
        free(art);
        goto nomem;
    }
    memcpy(art->dims, p->dim_values, (size_t)p->n_dims * sizeof *art->dims);
    *out = art;
    st = KF_OK;
    goto done;
nomem:
    st = KF_ERR_NOMEM;
done:
    for (int i = 0; i < n_owned; i++) free(owned[i]);
    free(opts);
    free(so);
    free(log);
    free(inc);
    return st;
}

/* ------------------------------------------------------------------ */
/* verify, profile, release                                            */

/* Calls the candidate once on one buffer set. */
static kf_status call_once(kf_artifact *art, const kf_buffer_set *set)
{
    const float **in = calloc((size_t)art->n_in + 1, sizeof *in);
    float **outs = calloc((size_t)art->n_out + 1, sizeof *outs);
    float **scratch = calloc((size_t)art->n_scratch + 1, sizeof *scratch);
    kf_status st = KF_ERR_NOMEM;
    if (in && outs && scratch) {
        for (int i = 0; i < art->n_in; i++) in[i] = set->inputs[i].data;
        for (int i = 0; i < art->n_out; i++) outs[i] = set->outputs[i].data;
        for (int i = 0; i < art->n_scratch; i++) scratch[i] = set->scratch[i].data;
        kf_cpu_args a = {in, outs, scratch, art->dims, art->n_in, art->n_out, art->n_scratch,
                         art->n_dims, 1};
        art->entry(&a);
        st = KF_OK;
    }
    free(in);
    free(outs);
    free(scratch);
    return st;
}

static kf_status example_verify(kf_artifact *art, kf_buffer_set *set, char **error)
{
    if (!art || !set) {
        *error = textf("example: verify needs an artifact and a buffer set");
        return KF_ERR_INVALID;
    }
    return call_once(art, set);          /* the core checks the outputs */
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static kf_status example_profile(kf_artifact *art, const kf_profile_request *req,
                                 kf_profile_result *res, char **error)
{
    if (!art || !req || !res || !res->samples_s || req->reps < 1 || req->n_sets < 1 || !req->sets) {
        *error = textf("example: profile needs an artifact, reps >= 1, n_sets >= 1 and a samples array");
        return KF_ERR_INVALID;
    }
    kf_status st = KF_OK;
    for (int i = 0; st == KF_OK && i < req->warmup; i++) st = call_once(art, &req->sets[i % req->n_sets]);
    double min = 0, max = 0;
    for (int i = 0; st == KF_OK && i < req->reps; i++) {
        double t0 = now_s();
        st = call_once(art, &req->sets[i % req->n_sets]);   /* rotate inputs: no warm-cache flattery */
        double t = now_s() - t0;
        res->samples_s[i] = t;
        if (i == 0 || t < min) min = t;
        if (i == 0 || t > max) max = t;
    }
    if (st != KF_OK) {
        *error = textf("example: out of memory while timing");
        return st;
    }
    res->n_samples = req->reps;
    res->clock_is_device = 0;            /* CLOCK_MONOTONIC around each call */
    res->n_counters = 1;
    snprintf(res->counters[0].name, sizeof res->counters[0].name, "threads");
    res->counters[0].value = 1;
    res->report = textf("example: %d runs after %d warm-up, rotating %d input sets, timed with "
                        "CLOCK_MONOTONIC around the entry call (includes argument setup)\n"
                        "fastest %.3g us, slowest %.3g us; single thread, built -O2 without SIMD flags\n",
                        req->reps, req->warmup, req->n_sets, min * 1e6, max * 1e6);
    return KF_OK;
}

static void example_release(kf_artifact *art)
{
    if (!art) return;
    if (art->handle) dlclose(art->handle);
    free(art->dims);
    free(art);
}

/* ------------------------------------------------------------------ */
/* the one exported symbol                                             */

#if KF_PLUGIN_ABI_MINOR >= 1
/* ABI 1.1: the probe in two halves (the core calls list_devices in every
 * worker and measure_peaks once, caching its result), and what the agents
 * need to know.  Built against a 1.0 header, the example is a 1.0 plugin
 * with probe alone, and kforge loads it just the same. */
static kf_status example_list(kf_device_info *devs, size_t dev_size, int max, int *n, char *why, size_t why_len)
{
    (void)dev_size;   /* one device: element 0 needs no stride */
    kf_status st = example_probe(devs, max, n, why, why_len);
    if (st == KF_OK && *n > 0) {
        devs[0].struct_size = (uint32_t)sizeof devs[0];
        snprintf(devs[0].arch, sizeof devs[0].arch, "generic");
        devs[0].compute_units = 1;
        devs[0].warp_size = 1;
        devs[0].max_work_group = 1;
    }
    return st;
}

static kf_status example_peaks(int device, kf_device_info *dev, char *why, size_t why_len)
{
    if (device != 0) {
        snprintf(why, why_len, "no device %d", device);
        return KF_ERR_INVALID;
    }
    dev->peak_flops = cpu_ghz() * 1e9 * 16;   /* an upper bound, as in probe */
    dev->peak_flops_measured = 0;
    return KF_OK;
}

static const kf_backend_info example_info = {
    .struct_size = sizeof(kf_backend_info),
    .source_ext = ".c",
    .fence_tag = "c",
    .guide = NULL,                     /* no LLM guide of its own */
    .source_formats = 1u << KF_SRC_TEXT,
};
#endif

KF_BACKEND_EXPORT(example) = {
    .abi_major = KF_PLUGIN_ABI_MAJOR,
    .abi_minor = KF_PLUGIN_ABI_MINOR,
    .struct_size = sizeof(kf_backend),
    .name = "example",
    .version = "1.0.0",
    .caps = KF_CAP_HOST_ENTRY | KF_CAP_HOST_MEMORY,
    .language = "c",
    .probe = example_probe,
    .compile = example_compile,
    .verify = example_verify,
    .profile = example_profile,
    .release = example_release,
#if KF_PLUGIN_ABI_MINOR >= 1
    .info = &example_info,
    .list_devices = example_list,
    .measure_peaks = example_peaks,
#endif
};
