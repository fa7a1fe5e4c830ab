/*
 * worker_main.c — kforge-worker: the process in which candidate code runs.
 *
 * Started by kf_evaluate() (never by hand): fds 0/1 are the command socket,
 * fd 2 the captured stderr, fd KF_WORKER_MEMFD the shared buffers (see
 * worker_proto.h).  It opens the plugin, compiles the candidate and runs it
 * on command, replying one JSON line per command.  It judges nothing: the
 * parent reads the buffers and decides.  Dying is allowed; the parent
 * turns a crash or a hang into a verdict.
 */
#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "backend/registry.h"
#include "sandbox/sandbox.h"
#include "util/blas_env.h"
#include "worker_proto.h"

typedef struct worker {
    int ctl;
    int memfd;
    kf_plugin plugin;
    int plugin_open;
    kf_artifact *art;
    kf_wp_views views;
    kf_wp_layout layout;
    unsigned char *map;
    kf_wp_sets sets;
    kf_sandbox_mode sandbox;
    int noexec_done;          /* seccomp's second stage is on */
} worker;

static void reply_init(kf_wp_reply *r)
{
    memset(r, 0, sizeof *r);
    r->sandbox = -1;
}

static int send_reply(worker *w, const kf_wp_reply *r)
{
    char *txt = kf_wp_reply_json(r);
    if (!txt) return -1;
    size_t len = strlen(txt);
    char *line = realloc(txt, len + 2);
    if (!line) {
        free(txt);
        return -1;
    }
    line[len++] = '\n';
    size_t off = 0;
    while (off < len) {
        ssize_t k = write(w->ctl, line + off, len - off);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) break;
        off += (size_t)k;
    }
    free(line);
    return off == len ? 0 : -1;
}

static int reply_status(worker *w, int status, const char *error)
{
    kf_wp_reply r;
    reply_init(&r);
    r.status = status;
    r.error = (char *)error;
    return send_reply(w, &r);
}

/* Landlock and the first seccomp stage.  Fills r->sandbox and
 * r->sandbox_why; in strict mode a missing layer fails the load. */
static int confine(worker *w, const char *work_dir, kf_wp_reply *r)
{
    r->sandbox = 0;
    if (w->sandbox == KF_SANDBOX_OFF) return 0;
    char why[512] = "", one[256];
    if (kf_sandbox_landlock(work_dir, getenv("KFORGE_SANDBOX_READ"), one, sizeof one) == 0)
        r->sandbox |= KF_SB_LANDLOCK;
    else
        snprintf(why, sizeof why, "%s", one);
    /* the second stage goes on before the first run (close_exec); it is the
     * same mechanism, and in strict mode the worker refuses to run without it */
    if (kf_sandbox_seccomp_base(one, sizeof one) == 0)
        r->sandbox |= KF_SB_SECCOMP | KF_SB_NOEXEC;
    else
        snprintf(why + strlen(why), sizeof why - strlen(why), "%s%s", *why ? "; " : "", one);
    if (*why) r->sandbox_why = strdup(why);
    if (w->sandbox == KF_SANDBOX_STRICT && (r->sandbox & (KF_SB_LANDLOCK | KF_SB_SECCOMP)) != (KF_SB_LANDLOCK | KF_SB_SECCOMP)) {
        r->status = KF_ERR_UNAVAILABLE;
        char msg[700];
        snprintf(msg, sizeof msg, "--sandbox=strict: a sandbox layer is not available here: %s", why);
        r->error = strdup(msg);
        return -1;
    }
    return 0;
}

/* Before the first call into the candidate's code: no exec, no fork. */
static int close_exec(worker *w)
{
    if (w->sandbox == KF_SANDBOX_OFF || w->noexec_done) return 0;
    char why[256];
    if (kf_sandbox_seccomp_noexec(why, sizeof why) == 0) {
        w->noexec_done = 1;
        return 0;
    }
    if (w->sandbox == KF_SANDBOX_STRICT) return reply_status(w, KF_ERR_UNAVAILABLE, why) == 0 ? 1 : -1;
    w->noexec_done = -1;
    return 0;
}

/* load with "compile_only": no device is listed or needed; the plugin's
 * compile_offline runs confined like compile, and the reply carries the
 * binary.  target NULL: the plugin's default. */
static int load_offline(worker *w, const char *work_dir, const char *target)
{
    kf_wp_reply r;
    reply_init(&r);
    if (confine(w, work_dir, &r) != 0) {
        int rc = send_reply(w, &r);
        kf_wp_reply_free(&r);
        return rc;
    }
    kf_compile_request req = {&w->views.candidate, &w->views.problem, -1, work_dir};
    void *bin = NULL;
    size_t size = 0;
    r.status = kf_plugin_compile_offline(&w->plugin, &req, target, &bin, &size, &r.report, &r.diagnostics);
    if (r.status == KF_OK && !bin) {
        r.status = KF_ERR_INTERNAL;
        r.error = strdup("compile_offline reported success but returned no binary");
    } else if (r.status == KF_OK && size > KF_WP_MAX_BINARY) {
        r.status = KF_ERR_INVALID;
        if (asprintf(&r.error, "the compiled binary has %zu bytes, over the %u MiB a compile-only run returns",
                     size, (unsigned)(KF_WP_MAX_BINARY >> 20)) < 0)
            r.error = NULL;
    } else if (r.status == KF_OK) {
        r.binary = bin;
        r.binary_size = size;
        bin = NULL;
    }
    free(bin);
    int rc = send_reply(w, &r);
    kf_wp_reply_free(&r);
    return rc;
}

static int do_load(worker *w, json_object *cmd)
{
    if (w->plugin_open) return reply_status(w, KF_ERR_INVALID, "load sent twice");
    kf_error err = {0};
    json_object *v;
    const char *plugin = json_object_object_get_ex(cmd, "plugin", &v) ? json_object_get_string(v) : NULL;
    const char *backend = json_object_object_get_ex(cmd, "backend", &v) ? json_object_get_string(v) : NULL;
    const char *work_dir = json_object_object_get_ex(cmd, "work_dir", &v) ? json_object_get_string(v) : NULL;
    int device = json_object_object_get_ex(cmd, "device", &v) ? json_object_get_int(v) : 0;
    const char *mode = json_object_object_get_ex(cmd, "sandbox", &v) ? json_object_get_string(v) : "auto";
    int m = kf_sandbox_mode_parse(mode);
    if (m < 0) return reply_status(w, KF_ERR_INVALID, "load: bad sandbox mode");
    w->sandbox = (kf_sandbox_mode)m;
    if (!plugin || !backend || !work_dir) return reply_status(w, KF_ERR_INVALID, "load: missing plugin, backend or work_dir");
    if (kf_wp_decode_load(cmd, &w->views, &w->layout, &err) != 0) return reply_status(w, KF_ERR_INVALID, err.msg);

    struct stat sb;
    if (fstat(w->memfd, &sb) != 0 || (uint64_t)sb.st_size < w->layout.size)
        return reply_status(w, KF_ERR_INTERNAL, "the shared buffer memfd is missing or too small");
    void *map = mmap(NULL, (size_t)w->layout.size, PROT_READ | PROT_WRITE, MAP_SHARED, w->memfd, 0);
    if (map == MAP_FAILED) return reply_status(w, KF_ERR_NOMEM, "cannot map the shared buffers");
    w->map = map;
    if (kf_wp_sets_build(&w->layout, w->map, &w->sets) != 0) return reply_status(w, KF_ERR_NOMEM, "out of memory");

    if (kf_plugin_open(plugin, &w->plugin, &err) != 0) return reply_status(w, KF_ERR_UNAVAILABLE, err.msg);
    w->plugin_open = 1;
    if (strcmp(w->plugin.be->name, backend) != 0) {
        char msg[512];
        snprintf(msg, sizeof msg, "plugin %s is backend '%s', not '%s'", plugin, w->plugin.be->name, backend);
        return reply_status(w, KF_ERR_INVALID, msg);
    }
    const char *target = json_object_object_get_ex(cmd, "compile_only", &v) ? json_object_get_string(v) : NULL;
    if (target) return load_offline(w, work_dir, *target ? target : NULL);
    kf_plugin_list(&w->plugin);   /* the cheap listing: peaks are the parent's (cached) */
    if (w->plugin.probe_status != KF_OK)
        return reply_status(w, KF_ERR_UNAVAILABLE, w->plugin.probe_why ? w->plugin.probe_why : "backend not available here");
    if (device < 0 || device >= w->plugin.n_devices) {
        char msg[1024], names[768] = "";
        for (int i = 0; i < w->plugin.n_devices; i++) {
            size_t used = strlen(names);
            snprintf(names + used, sizeof names - used, "%s%d: %s", i ? "; " : "", i, w->plugin.devices[i].name);
        }
        snprintf(msg, sizeof msg, "device %d does not exist (the backend sees %d in the worker: %s)", device,
                 w->plugin.n_devices, names);
        return reply_status(w, KF_ERR_UNAVAILABLE, msg);
    }
    if (!w->plugin.be->compile) return reply_status(w, KF_ERR_INVALID, "the backend has no compile hook");

    /* From here on the file system and the system calls are confined; the
     * plugin and its driver are loaded and probed already. */
    kf_wp_reply r;
    reply_init(&r);
    if (confine(w, work_dir, &r) != 0) {
        int rc = send_reply(w, &r);
        kf_wp_reply_free(&r);
        return rc;
    }
    kf_compile_request req = {&w->views.candidate, &w->views.problem, device, work_dir};
    r.status = kf_plugin_compile(&w->plugin, &req, &w->art, &r.diagnostics);
    if (r.status == KF_OK && !w->art) {
        r.status = KF_ERR_INTERNAL;
        r.error = strdup("compile reported success but returned no artifact");
    }
    int rc = send_reply(w, &r);
    kf_wp_reply_free(&r);
    return rc;
}

static int do_run(worker *w, json_object *cmd)
{
    if (!w->art) return reply_status(w, KF_ERR_INVALID, "run before a successful load");
    if (!w->plugin.be->verify) return reply_status(w, KF_ERR_INVALID, "the backend has no verify hook");
    json_object *v;
    int set = json_object_object_get_ex(cmd, "set", &v) ? json_object_get_int(v) : 0;
    if (set < 0 || set >= w->sets.n_sets) return reply_status(w, KF_ERR_INVALID, "run: no such buffer set");
    int ce = close_exec(w);
    if (ce) return ce > 0 ? 0 : -1;
    kf_wp_reply r;
    reply_init(&r);
    if (w->noexec_done == 1) r.sandbox = KF_SB_NOEXEC;
    r.status = kf_plugin_verify(&w->plugin, &w->views.problem, w->art, &w->sets.sets[set], &r.error);
    int rc = send_reply(w, &r);
    kf_wp_reply_free(&r);
    return rc;
}

static int do_profile(worker *w, json_object *cmd)
{
    if (!w->art) return reply_status(w, KF_ERR_INVALID, "profile before a successful load");
    if (!w->plugin.be->profile) return reply_status(w, KF_ERR_INVALID, "the backend has no profile hook");
    json_object *v;
    int warmup = json_object_object_get_ex(cmd, "warmup", &v) ? json_object_get_int(v) : 1;
    int reps = json_object_object_get_ex(cmd, "reps", &v) ? json_object_get_int(v) : 0;
    int n_sets = json_object_object_get_ex(cmd, "n_sets", &v) ? json_object_get_int(v) : 1;
    int first = json_object_object_get_ex(cmd, "set", &v) ? json_object_get_int(v) : 0;
    if (reps < 1 || reps > 1000000 || warmup < 0 || n_sets < 1 || first < 0 || first >= w->sets.n_sets ||
        n_sets > w->sets.n_sets - first)
        return reply_status(w, KF_ERR_INVALID, "profile: bad warmup, reps, set or n_sets");
    int ce = close_exec(w);
    if (ce) return ce > 0 ? 0 : -1;
    kf_profile_request req = {warmup, reps, n_sets, w->sets.sets + first};
    kf_profile_result res;
    memset(&res, 0, sizeof res);
    res.samples_s = calloc((size_t)reps, sizeof *res.samples_s);
    if (!res.samples_s) return reply_status(w, KF_ERR_NOMEM, "out of memory");
    kf_wp_reply r;
    reply_init(&r);
    if (w->noexec_done == 1) r.sandbox = KF_SB_NOEXEC;
    r.seq = json_object_object_get_ex(cmd, "seq", &v) ? json_object_get_int64(v) : 0;
    r.status = kf_plugin_profile(&w->plugin, &w->views.problem, w->art, &req, &res, &r.error);
    int n = res.n_samples < 0 ? 0 : res.n_samples > reps ? reps : res.n_samples;
    r.samples = res.samples_s;
    r.n_samples = n;
    r.clock_is_device = res.clock_is_device;
    r.n_counters = res.n_counters < 0 ? 0 : res.n_counters > KF_MAX_COUNTERS ? KF_MAX_COUNTERS : res.n_counters;
    memcpy(r.counters, res.counters, sizeof r.counters);
    for (int i = 0; i < KF_MAX_COUNTERS; i++) r.counters[i].name[sizeof r.counters[i].name - 1] = '\0';
    r.report = res.report;
    int rc = send_reply(w, &r);
    kf_wp_reply_free(&r);
    return rc;
}

static void worker_free(worker *w)
{
    if (w->art && w->plugin.be && w->plugin.be->release) w->plugin.be->release(w->art);
    w->art = NULL;
    if (w->plugin_open) kf_plugin_close(&w->plugin);
    w->plugin_open = 0;
    kf_wp_sets_free(&w->sets);
    if (w->map) munmap(w->map, (size_t)w->layout.size);
    w->map = NULL;
    kf_wp_layout_free(&w->layout);
    kf_wp_views_free(&w->views);
}

static void exit_as_signal(int sig)
{
    _exit(KF_WORKER_SIGEXIT + sig);
}

int main(int argc, char **argv)
{
    worker w;
    memset(&w, 0, sizeof w);
    w.memfd = KF_WORKER_MEMFD;
    for (int i = 1; i + 1 < argc; i++)
        if (!strcmp(argv[i], "--memfd")) w.memfd = atoi(argv[i + 1]);
    if (isatty(0)) {
        fprintf(stderr, "kforge-worker: internal program of kforge; it is started by 'kforge verify', not by hand\n");
        return 2;
    }
    /* Crashes must reach the parent as signals, not as a sanitizer's exit
     * code: restore the default actions a runtime may have installed. */
    int fatal[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTRAP};
    for (size_t i = 0; i < sizeof fatal / sizeof fatal[0]; i++) signal(fatal[i], SIG_DFL);
    /* As the init of its PID namespace the worker ignores the signals it
     * sends itself (abort's SIGABRT): turn those into the exit status the
     * parent reads as that signal (KF_WORKER_SIGEXIT). */
    if (getpid() == 1) {
        signal(SIGABRT, exit_as_signal);
        signal(SIGTERM, exit_as_signal);
    }

    /* Keep the channel private; candidate output goes to stderr. */
    w.ctl = fcntl(0, F_DUPFD_CLOEXEC, 10);
    int devnull = open("/dev/null", O_RDONLY);
    if (w.ctl < 0 || devnull < 0 || dup2(devnull, 0) < 0 || dup2(2, 1) < 0) {
        fprintf(stderr, "kforge-worker: cannot set up its descriptors: %s\n", strerror(errno));
        return 2;
    }
    close(devnull);
    /* OpenBLAS (the cpu-simd baseline links it) picks its kernels when a
     * candidate brings it in: the ones for this CPU's ISA unless the user
     * chose (util/blas_env.c: a model it does not know gets SSE3 kernels) */
    kf_openblas_env_default();
    FILE *in = fdopen(fcntl(w.ctl, F_DUPFD_CLOEXEC, 10), "r");
    if (!in) return 2;

    char *line = NULL;
    size_t cap = 0;
    int rc = 0;
    for (;;) {
        ssize_t n = getline(&line, &cap, in);
        if (n <= 0) break;   /* parent went away */
        json_object *cmd = json_tokener_parse(line);
        json_object *v;
        const char *name = json_object_object_get_ex(cmd, "cmd", &v) ? json_object_get_string(v) : "";
        int quit = 0;
        if (!strcmp(name, "load")) rc = do_load(&w, cmd);
        else if (!strcmp(name, "run")) rc = do_run(&w, cmd);
        else if (!strcmp(name, "profile")) rc = do_profile(&w, cmd);
        else if (!strcmp(name, "ping")) rc = reply_status(&w, KF_OK, NULL);
        else if (!strcmp(name, "quit")) {
            worker_free(&w);
            rc = reply_status(&w, KF_OK, NULL);
            quit = 1;
        } else
            rc = reply_status(&w, KF_ERR_INVALID, "unknown command");
        json_object_put(cmd);
        if (quit || rc != 0) break;
    }
    free(line);
    fclose(in);
    worker_free(&w);
    close(w.ctl);
    /* With exec and fork closed, a leak checker's tracer (a forked,
     * ptrace-ing process) cannot run: leave without the exit handlers. */
    if (w.noexec_done) _exit(rc ? 1 : 0);
    return rc ? 1 : 0;
}
