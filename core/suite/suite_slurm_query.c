/* suite_slurm_query.c — Slurm's client commands (finding and running
 * sbatch, squeue, sacct) and REPORT/slurm/state.json (suite_slurm.h). */
#include "suite_slurm_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util/fileio.h"

int kf_slurm_find_tool(const char *name, char *buf, size_t n, kf_error *err)
{
    char var[64];
    snprintf(var, sizeof var, "KFORGE_%s", name);
    for (char *p = var; *p; p++)
        if (*p >= 'a' && *p <= 'z') *p = (char)(*p - 'a' + 'A');
    const char *over = getenv(var);
    if (over && *over) {
        if (access(over, X_OK) != 0)
            return kf_fail(err, KF_E_UNAVAILABLE, "%s=%s: not an executable file", var, over);
        snprintf(buf, n, "%s", over);
        return 0;
    }
    const char *path = getenv("PATH");
    if (!path || !*path) path = "/usr/local/bin:/usr/bin:/bin";
    while (*path) {
        size_t len = strcspn(path, ":");
        if (len > 0 && len < 3000) {
            snprintf(buf, n, "%.*s/%s", (int)len, path, name);
            struct stat sb;
            if (stat(buf, &sb) == 0 && S_ISREG(sb.st_mode) && access(buf, X_OK) == 0) return 0;
        }
        path += len;
        if (*path == ':') path++;
    }
    buf[0] = '\0';
    return kf_fail(err, KF_E_UNAVAILABLE,
                   "%s not found on PATH: --slurm needs Slurm's client commands on this machine "
                   "(a cluster's login node; Debian: apt-get install slurm-client), or %s=PATH", name, var);
}

/* Reads what is left of two pipes into two buffers. */
static void drain(int fd_out, int fd_err, kf_sb *out, kf_sb *errb)
{
    struct pollfd p[2] = {{fd_out, POLLIN, 0}, {fd_err, POLLIN, 0}};
    kf_sb *dst[2] = {out, errb};
    int open_n = 2;
    char buf[4096];
    while (open_n > 0) {
        if (poll(p, 2, -1) < 0) {
            if (errno == EINTR) continue;
            break;
        }
        for (int i = 0; i < 2; i++) {
            if (p[i].fd < 0 || !(p[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
            ssize_t r = read(p[i].fd, buf, sizeof buf);
            if (r < 0 && errno == EINTR) continue;
            if (r <= 0) {
                close(p[i].fd);
                p[i].fd = -1;
                open_n--;
                continue;
            }
            if (dst[i]->len < (1u << 24)) kf_sb_append(dst[i], buf, (size_t)r);
        }
    }
}

int kf_slurm_exec(const char *const *argv, char **out, char **errtext, int *status, kf_error *err)
{
    *out = *errtext = NULL;
    int po[2], pe[2];
    if (pipe(po) != 0) return kf_fail_errno(err, errno, "cannot create a pipe: %s", strerror(errno));
    if (pipe(pe) != 0) {
        close(po[0]);
        close(po[1]);
        return kf_fail_errno(err, errno, "cannot create a pipe: %s", strerror(errno));
    }
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        int e = errno;
        close(po[0]); close(po[1]); close(pe[0]); close(pe[1]);
        return kf_fail_errno(err, e, "cannot start %s: %s", argv[0], strerror(e));
    }
    if (pid == 0) {
        int null = open("/dev/null", O_RDONLY);
        if (null >= 0) dup2(null, STDIN_FILENO);
        dup2(po[1], STDOUT_FILENO);
        dup2(pe[1], STDERR_FILENO);
        close(po[0]); close(po[1]); close(pe[0]); close(pe[1]);
        execv(argv[0], (char *const *)argv);
        dprintf(STDERR_FILENO, "cannot run %s: %s", argv[0], strerror(errno));
        _exit(127);
    }
    close(po[1]);
    close(pe[1]);
    kf_sb o = {0}, e = {0};
    drain(po[0], pe[0], &o, &e);
    int st = 0;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {}
    *status = st;
    *out = kf_sb_take(&o);
    *errtext = kf_sb_take(&e);
    if (!*out || !*errtext) {
        free(*out);
        free(*errtext);
        *out = *errtext = NULL;
        return kf_fail(err, KF_E_INTERNAL, "out of memory");
    }
    return 0;
}

void kf_slurm_sh_word(kf_sb *b, const char *s)
{
    int safe = *s != '\0';
    for (const char *p = s; *p && safe; p++)
        safe = strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./:=,%@+", *p) != NULL;
    if (safe) {
        kf_sb_puts(b, s);
        return;
    }
    kf_sb_puts(b, "'");
    for (const char *p = s; *p; p++) {
        if (*p == '\'') kf_sb_puts(b, "'\\''");
        else kf_sb_append(b, p, 1);
    }
    kf_sb_puts(b, "'");
}

json_object *kf_slurm_state_load(const char *report_dir, int *missing, kf_error *err)
{
    char p[4200];
    snprintf(p, sizeof p, "%s/slurm/state.json", report_dir);
    *missing = 0;
    struct stat sb;
    if (stat(p, &sb) != 0 && errno == ENOENT) {
        *missing = 1;
        return NULL;
    }
    char *text = kf_read_file(p, err);
    if (!text) return NULL;
    json_object *o = json_tokener_parse(text);
    free(text);
    json_object *tasks;
    if (!o || !json_object_object_get_ex(o, "tasks", &tasks) || !json_object_is_type(tasks, json_type_array)) {
        json_object_put(o);
        kf_fail(err, KF_E_BAD_INPUT, "%s: not a kforge Slurm state (no \"tasks\"); delete it to submit every task again", p);
        return NULL;
    }
    return o;
}

int kf_slurm_state_save(const char *report_dir, json_object *state, kf_error *err)
{
    char p[4200];
    snprintf(p, sizeof p, "%s/slurm/state.json", report_dir);
    const char *text = json_object_to_json_string_ext(state, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE);
    return kf_write_file_atomic(p, text, err);
}

static char *dup_str(json_object *o, const char *key)
{
    json_object *v;
    if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_string)) return NULL;
    return strdup(json_object_get_string(v));
}

static int get_int(json_object *o, const char *key)
{
    json_object *v;
    return json_object_object_get_ex(o, key, &v) ? json_object_get_int(v) : 0;
}

int kf_slurm_task_from_json(json_object *o, kf_slurm_task *t)
{
    memset(t, 0, sizeof *t);
    t->name = dup_str(o, "name");
    t->problem = dup_str(o, "problem");
    t->backend = dup_str(o, "backend");
    t->run_dir = dup_str(o, "run_dir");
    t->log = dup_str(o, "log");
    t->script = dup_str(o, "script");
    t->job = dup_str(o, "job");
    t->seed = get_int(o, "seed");
    t->index = get_int(o, "index");
    t->submits = get_int(o, "submits");
    return t->name && t->backend && t->run_dir ? 0 : -1;
}

void kf_slurm_task_free(kf_slurm_task *t)
{
    if (!t) return;
    free(t->name);
    free(t->problem);
    free(t->backend);
    free(t->run_dir);
    free(t->log);
    free(t->script);
    free(t->job);
    memset(t, 0, sizeof *t);
}

int kf_slurm_state_active(const char *s)
{
    static const char *const active[] = {"PENDING", "RUNNING", "CONFIGURING", "COMPLETING", "SUSPENDED",
                                         "REQUEUED", "REQUEUE_FED", "REQUEUE_HOLD", "RESIZING", "SIGNALING",
                                         "STAGE_OUT", "STOPPED", "RESV_DEL_HOLD", NULL};
    for (int i = 0; active[i]; i++)
        if (!strncmp(s, active[i], strlen(active[i])) && (s[strlen(active[i])] == '\0' || s[strlen(active[i])] == ' '))
            return 1;
    return 0;
}

/* 1 when job (an id without array suffix) is in the comma-separated list. */
static int in_list(const char *list, const char *job, size_t len)
{
    for (const char *p = list; *p;) {
        size_t n = strcspn(p, ",");
        if (n == len && !strncmp(p, job, len)) return 1;
        p += n;
        if (*p == ',') p++;
    }
    return 0;
}

/* Splits text into lines of '|'-separated fields (at most 8). */
static int fields(char *line, char **f, int max)
{
    int n = 0;
    f[n++] = line;
    for (char *p = line; *p && n < max; p++)
        if (*p == '|') {
            *p = '\0';
            f[n++] = p + 1;
        }
    return n;
}

static int run_tool(const char *tool, const char *const *args, char **out, kf_error *err)
{
    char path[4096];
    if (kf_slurm_find_tool(tool, path, sizeof path, err) != 0) return -1;
    const char *argv[16];
    int n = 0;
    argv[n++] = path;
    for (int i = 0; args[i] && n < 15; i++) argv[n++] = args[i];
    argv[n] = NULL;
    char *errtext = NULL;
    int status = 0;
    if (kf_slurm_exec(argv, out, &errtext, &status, err) != 0) return -1;
    int rc = 0;
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        size_t len = strlen(errtext);
        while (len && (errtext[len - 1] == '\n' || errtext[len - 1] == ' ')) errtext[--len] = '\0';
        rc = kf_fail(err, KF_E_UNAVAILABLE, "%s failed: %s", tool, errtext[0] ? errtext : "no message");
        free(*out);
        *out = NULL;
    }
    free(errtext);
    return rc;
}

int kf_slurm_squeue(const char *jobs, kf_slurm_job_fn fn, void *ud, kf_error *err)
{
    /* the user's jobs, finished ones too while Slurm holds them (MinJobAge),
       filtered here: squeue -j fails on a job it no longer knows */
    static const char *const args[] = {"--noheader", "--array", "--states=all", "--me",
                                       "--format=%F|%K|%T|%N", NULL};
    char *out = NULL;
    if (run_tool("squeue", args, &out, err) != 0) return -1;
    for (char *save = NULL, *line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        char *f[8];
        if (fields(line, f, 8) < 4) continue;
        if (!in_list(jobs, f[0], strlen(f[0]))) continue;
        char *end;
        long idx = strtol(f[1], &end, 10);
        if (end == f[1] || *end) idx = -1;
        fn(ud, f[0], (int)idx, f[2], "", f[3]);
    }
    free(out);
    return 0;
}

int kf_slurm_sacct(const char *jobs, kf_slurm_job_fn fn, void *ud, kf_error *err)
{
    char jarg[4200];
    snprintf(jarg, sizeof jarg, "--jobs=%s", jobs);
    const char *const args[] = {"--noheader", "--parsable2", "--allocations", jarg,
                                "--format=JobID,State,ExitCode,NodeList", NULL};
    char *out = NULL;
    if (run_tool("sacct", args, &out, err) != 0) return -1;
    for (char *save = NULL, *line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        char *f[8];
        if (fields(line, f, 8) < 4) continue;
        /* JobID: 12_3 (an array task), 12_[4-9%2] (tasks not started yet), or 13 */
        size_t jl = strcspn(f[0], "_");
        if (!in_list(jobs, f[0], jl)) continue;
        int idx = -1;
        if (f[0][jl] == '_') {
            char *end;
            long v = strtol(f[0] + jl + 1, &end, 10);
            if (end == f[0] + jl + 1 || *end) continue;    /* a pending range: squeue has those */
            idx = (int)v;
        }
        f[0][jl] = '\0';
        fn(ud, f[0], idx, f[1], f[2], f[3]);
    }
    free(out);
    return 0;
}
