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

#include "registry.h"
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
} worker;

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
    kf_wp_reply r = {0};
    r.status = status;
    r.error = (char *)error;
    return send_reply(w, &r);
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
    kf_plugin_probe(&w->plugin);
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

    kf_compile_request req = {&w->views.candidate, &w->views.problem, device, work_dir};
    kf_wp_reply r = {0};
    r.status = w->plugin.be->compile(&req, &w->art, &r.diagnostics);
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
    kf_wp_reply r = {0};
    r.status = w->plugin.be->verify(w->art, &w->sets.sets[set], &r.error);
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
    if (reps < 1 || reps > 1000000 || warmup < 0 || n_sets < 1 || n_sets > w->sets.n_sets)
        return reply_status(w, KF_ERR_INVALID, "profile: bad warmup, reps or n_sets");
    kf_profile_request req = {warmup, reps, n_sets, w->sets.sets};
    kf_profile_result res;
    memset(&res, 0, sizeof res);
    res.samples_s = calloc((size_t)reps, sizeof *res.samples_s);
    if (!res.samples_s) return reply_status(w, KF_ERR_NOMEM, "out of memory");
    kf_wp_reply r = {0};
    r.status = w->plugin.be->profile(w->art, &req, &res, &r.error);
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

    /* Keep the channel private; candidate output goes to stderr. */
    w.ctl = fcntl(0, F_DUPFD_CLOEXEC, 10);
    int devnull = open("/dev/null", O_RDONLY);
    if (w.ctl < 0 || devnull < 0 || dup2(devnull, 0) < 0 || dup2(2, 1) < 0) {
        fprintf(stderr, "kforge-worker: cannot set up its descriptors: %s\n", strerror(errno));
        return 2;
    }
    close(devnull);
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
    return rc ? 1 : 0;
}
