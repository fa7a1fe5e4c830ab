/* suite.c — running the problems of a suite, one forked child each
 * (suite.h).  The library never exits the caller's process: a child ends
 * with _exit() (its exit code is the problem's outcome, kf_exit_code()),
 * and writes its run's progress into the problem's log, not to the
 * caller's terminal. */
#include "util/fmt.h"
#include "util/clock.h"
#include "suite.h"

#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif
#include <time.h>
#include <unistd.h>

#include "problem/precision.h"
#include "run/journal.h"
#include "backend/registry.h"
#include "report.h"
#include "report_internal.h"

void kf_suite_outcome_free(kf_suite_outcome *out)
{
    if (!out) return;
    kf_report_free_list(out->run_dirs, out->n);
    memset(out, 0, sizeof *out);
}

static int exists(const char *dir, const char *name)
{
    char p[4800];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    struct stat sb;
    return stat(p, &sb) == 0;
}

int kf_suite_backend_dir(const char *top, const char *backend, int n_backends, char *buf, size_t n)
{
    if (n_backends > 1) return snprintf(buf, n, "%s/%s", top, backend);
    return snprintf(buf, n, "%s", top);
}

int kf_suite_run_dir(const char *report_dir, const char *name, int seed, int n_seeds, char *buf, size_t n)
{
    if (n_seeds > 1) return snprintf(buf, n, "%s/runs/%s~s%d", report_dir, name, seed);
    return snprintf(buf, n, "%s/runs/%s", report_dir, name);
}

int kf_suite_log_path(const char *report_dir, const char *name, int seed, int n_seeds, char *buf, size_t n)
{
    if (n_seeds > 1) return snprintf(buf, n, "%s/logs/%s~s%d.log", report_dir, name, seed);
    return snprintf(buf, n, "%s/logs/%s.log", report_dir, name);
}

kf_suite_run_state kf_suite_run_state_of(const char *run_dir)
{
    if (exists(run_dir, "result.json")) return KF_SUITE_RUN_DONE;
    if (exists(run_dir, "journal.jsonl")) return KF_SUITE_RUN_STARTED;
    return KF_SUITE_RUN_NEW;
}

int kf_suite_prepare(const char *report_dir, const char *settings_json, kf_error *err)
{
    char runs[4200], logs[4200];
    snprintf(runs, sizeof runs, "%s/runs", report_dir);
    snprintf(logs, sizeof logs, "%s/logs", report_dir);
    if (kf_mkdir_p(runs, err) != 0 || kf_mkdir_p(logs, err) != 0) return -1;
    return kf_report_save_suite(report_dir, settings_json, err);
}

/* An existing run directory must belong to this suite's backend, agent and
 * precision (and preset, when one is asked for): a resumed run keeps its
 * settings. */
int kf_suite_check_run_dir(const kf_run_opts *run, const char *run_dir, uint64_t want_seed, kf_error *err)
{
    char p[8600];
    snprintf(p, sizeof p, "%s/run.json", run_dir);
    struct stat sb;
    if (stat(p, &sb) != 0) return 0;
    kf_error e = {0};
    char *text = kf_read_file(p, &e);
    json_object *j = text ? json_tokener_parse(text) : NULL;
    free(text);
    if (!j) return kf_fail(err, KF_E_BAD_INPUT, "%s: unreadable; delete %s to run this problem again", p, run_dir);
    json_object *v;
    const char *backend = json_object_object_get_ex(j, "backend", &v) ? json_object_get_string(v) : "";
    const char *preset = json_object_object_get_ex(j, "preset", &v) ? json_object_get_string(v) : "";
    const char *agent = json_object_object_get_ex(j, "agent", &v) ? json_object_get_string(v) : "builtin";
    const char *want_agent = run->agent ? run->agent : "builtin";
    long long seed = json_object_object_get_ex(j, "agent_seed", &v) ? (long long)json_object_get_int64(v) : 0;
    const char *precision = json_object_object_get_ex(j, "precision", &v) ? json_object_get_string(v) : "any";
    int rc = 0;
    if (strcmp(backend, run->backend) || (run->preset && strcmp(preset, run->preset)) ||
        strcmp(agent, want_agent))
        rc = kf_fail(err, KF_E_BAD_INPUT, "%s holds a run with backend %s, preset %s, agent %s: use another --report directory",
                     run_dir, backend, preset, agent);
    else if (seed != (long long)want_seed)
        rc = kf_fail(err, KF_E_BAD_INPUT, "%s holds a run with agent seed %lld, not %llu: use another --report directory "
                     "(or the same --seeds as before)", run_dir, seed, (unsigned long long)want_seed);
    else if (strcmp(precision, kf_precision_policy_name(run->precision)))
        rc = kf_fail(err, KF_E_BAD_INPUT, "%s holds a run with --precision %s, not %s: use another --report directory",
                     run_dir, precision, kf_precision_policy_name(run->precision));
    json_object_put(j);
    return rc;
}

int kf_suite_check_backend(const char *backend, int device, kf_error *err)
{
    int fds[2];
    if (pipe(fds) != 0) return kf_fail_errno(err, errno, "cannot create a pipe: %s", strerror(errno));
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        close(fds[0]);
        close(fds[1]);
        return kf_fail_errno(err, errno, "cannot start a process: %s", strerror(errno));
    }
    if (pid == 0) {
        close(fds[0]);
        kf_error e = {0};
        kf_registry *reg = kf_registry_open(1, &e);
        kf_plugin *pl = reg ? kf_registry_find(reg, backend) : NULL;
        if (!reg) {
            /* e holds the reason */
        } else if (!pl) {
            char known[1024] = "";
            for (int i = 0; i < reg->n_plugins; i++) {
                if (i) strncat(known, ", ", sizeof known - strlen(known) - 1);
                strncat(known, reg->plugins[i].name, sizeof known - strlen(known) - 1);
            }
            kf_fail(&e, KF_E_BAD_INPUT, "no backend '%s' (found: %s; see 'kforge backends')", backend, known[0] ? known : "none");
        } else {
            if (!pl->probed) kf_plugin_probe(pl);
            if (pl->probe_status != KF_OK)
                kf_fail(&e, KF_E_BAD_INPUT, "backend '%s' is not available here: %s", backend,
                        pl->probe_why ? pl->probe_why : "probe failed");
            else if (device < 0 || device >= pl->n_devices)
                kf_fail(&e, KF_E_BAD_INPUT, "backend '%s' has no device %d (it has %d)", backend, device, pl->n_devices);
        }
        kf_registry_close(reg);
        size_t len = strlen(e.msg);
        ssize_t w = len ? write(fds[1], e.msg, len) : 0;
        (void)w;
        close(fds[1]);
        _exit(e.kind ? kf_exit_code(e.kind) : 0);
    }
    close(fds[1]);
    char msg[KF_ERROR_MAX] = "";
    size_t len = 0;
    ssize_t r;
    while (len + 1 < sizeof msg && (r = read(fds[0], msg + len, sizeof msg - 1 - len)) != 0) {
        if (r < 0) { if (errno == EINTR) continue; break; }
        len += (size_t)r;
    }
    msg[len] = '\0';
    close(fds[0]);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return 0;
    if (WIFEXITED(status)) return kf_fail(err, KF_E_BAD_INPUT, "%s", msg[0] ? msg : "the backend check failed");
    return kf_fail(err, KF_E_INTERNAL, "loading the backend plugins crashed (signal %d); see 'kforge backends'",
                   WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

/* A child's progress receiver: the text goes to fd 1, the problem's log. */
static void to_log(void *ud, const char *text)
{
    (void)ud;
    size_t n = strlen(text), off = 0;
    while (off < n) {
        ssize_t w = write(STDOUT_FILENO, text + off, n - off);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) break;
        off += (size_t)w;
    }
}

/* The child: one problem through kf_run, output into its log. */
static _Noreturn void child(const kf_suite_opts *o, const kf_suite_problem *p, const char *run_dir, const char *log,
                            uint64_t agent_seed, pid_t parent)
{
#ifdef __linux__
    /* a killed suite takes its runs with it (they resume on the next
       invocation) instead of leaving orphans that race the next one */
    prctl(PR_SET_PDEATHSIG, SIGKILL);
#endif
    if (getppid() != parent) _exit(KF_EXIT_INTERNAL);
    int fd = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0666);
    if (fd >= 0) {
        /* what the run and the plugins it loads write goes to the log */
        dup2(fd, STDOUT_FILENO);
        dup2(fd, STDERR_FILENO);
        close(fd);
    }
    kf_run_opts ro = o->run;
    ro.problem_path = p->path;
    ro.out_dir = NULL;
    ro.resume_dir = NULL;
    if (kf_suite_run_state_of(run_dir) == KF_SUITE_RUN_STARTED) ro.resume_dir = run_dir;
    else ro.out_dir = run_dir;
    ro.agent_seed = agent_seed;
    ro.progress = (kf_progress){to_log, NULL, 0};
    ro.json_progress = 0;
    kf_run_summary s = {0};
    kf_error e = {0};
    int rc = kf_run(&ro, &s, &e);
    if (rc != 0) {
        to_log(NULL, "kforge: ");
        to_log(NULL, e.msg);
        to_log(NULL, "\n");
    }
    /* an error of the run's own (setup, I/O, a crash of kforge) is
       reported as internal: the suite counts it as crashed */
    int code = rc != 0 ? KF_EXIT_INTERNAL : (s.have_best ? KF_EXIT_OK : KF_EXIT_CANDIDATE_FAILED);
    kf_run_summary_free(&s);
    _exit(code);
}

/* The last non-empty line of a log, for the progress line of a failure. */
static void last_line(const char *log, char *buf, size_t n)
{
    buf[0] = '\0';
    kf_error e = {0};
    char *text = kf_read_file(log, &e);
    if (!text) return;
    size_t len = strlen(text);
    while (len && (text[len - 1] == '\n' || text[len - 1] == ' ')) len--;
    text[len] = '\0';
    char *start = strrchr(text, '\n');
    snprintf(buf, n, "%s", start ? start + 1 : text);
    free(text);
}

static void report_line(const kf_suite_opts *o, int idx, int n, const char *name,
                        const char *run_dir, const char *log, int status, double secs,
                        kf_suite_outcome *out)
{
    kf_report_entry e;
    kf_error err = {0};
    int loaded = kf_report_entry_load(run_dir, &e, &err) == 0;
    int correct = loaded && e.status == KF_REPORT_CORRECT;
    if (correct) out->n_correct++;
    int crashed = !WIFEXITED(status) || WEXITSTATUS(status) == KF_EXIT_INTERNAL;
    if (crashed) out->n_crashed++;
    const kf_progress *f = &o->progress;
    if (f->fn) {
        kf_progressf(f, "[%*d/%d] %-40s ", n >= 10 ? 2 : 1, idx + 1, n, name);
        char t1[32], t2[32];
        if (correct) {
            kf_progressf(f, "correct    best %s", kf_fmt_duration(e.best_s, t1, sizeof t1));
            if (e.timing_warning)
                kf_progressf(f, " (WARNING: %.1fx the fastest time seen for it; the machine was slower)",
                             e.timing_ratio);
            if (e.speedup > 0)
                kf_progressf(f, "  baseline %s  speedup %.2fx", kf_fmt_duration(e.baseline_s, t2, sizeof t2), e.speedup);
            if (e.anchor_s > 0) {
                char t3[32];
                kf_progressf(f, "  gemm anchor %s", kf_fmt_duration(e.anchor_s, t3, sizeof t3));
                if (e.anchor_warning) kf_progressf(f, " (WARNING: baseline %.2fx the anchor)", e.baseline_over_anchor);
            }
            kf_progressf(f, "  roofline %.0f%%  %d steps", e.fraction * 100, e.steps);
        } else if (WIFSIGNALED(status)) {
            kf_progressf(f, "crashed    (signal %d) log: %s", WTERMSIG(status), log);
        } else if (crashed) {
            char line[512];
            last_line(log, line, sizeof line);
            kf_progressf(f, "error      %s (log: %s)", line, log);
        } else {
            kf_progressf(f, "incorrect  (%s) log: %s", loaded && e.stop_reason ? e.stop_reason : "no result", log);
        }
        kf_progressf(f, "  %.1f s\n", secs);
    }
    if (loaded) kf_report_entry_free(&e);
}

typedef struct slot {
    pid_t pid;
    int idx;
    double t0;
} slot;

int kf_suite_run(const kf_suite_opts *o, const kf_suite_problem *probs, int n,
                 kf_suite_outcome *out, kf_error *err)
{
    memset(out, 0, sizeof *out);
    if (!o->report_dir || !o->run.backend) return kf_fail(err, KF_E_BAD_INPUT, "a suite needs a report directory and a backend");
    int jobs = o->jobs < 1 ? 1 : o->jobs;
    if (kf_suite_prepare(o->report_dir, o->settings_json, err) != 0) return -1;

    /* run j: problem j / S under agent seed j % S + 1 (none without --seeds) */
    int S = o->seeds > 1 ? o->seeds : 1, nprob = n;
    n = nprob * S;
    out->run_dirs = calloc(n > 0 ? (size_t)n : 1, sizeof *out->run_dirs);
    char **names = calloc(n > 0 ? (size_t)n : 1, sizeof *names);
    if (!out->run_dirs || !names) { free(names); return kf_fail(err, KF_E_INTERNAL, "out of memory"); }
    out->n = n;
    for (int i = 0; i < n; i++) {
        char d[4600];
        kf_suite_run_dir(o->report_dir, probs[i / S].name, i % S + 1, o->seeds, d, sizeof d);
        if (!(out->run_dirs[i] = strdup(d))) {
            kf_report_free_list(names, n);
            return kf_fail(err, KF_E_INTERNAL, "out of memory");
        }
        char nm[4200];
        kf_suite_run_name(probs[i / S].name, o->seeds, i % S + 1, nm, sizeof nm);
        if (!(names[i] = strdup(nm))) {
            kf_report_free_list(names, n);
            return kf_fail(err, KF_E_INTERNAL, "out of memory");
        }
        if (kf_suite_check_run_dir(&o->run, d, o->seeds > 0 ? (uint64_t)(i % S + 1) : 0, err) != 0) {
            kf_report_free_list(names, n);
            return -1;
        }
    }

    slot *running = calloc((size_t)jobs, sizeof *running);
    if (!running) { kf_report_free_list(names, n); return kf_fail(err, KF_E_INTERNAL, "out of memory"); }
    int next = 0, active = 0, rc = 0;
    while (next < n || active > 0) {
        /* start children while there is room */
        while (rc == 0 && next < n && active < jobs) {
            int i = next++;
            const char *rd = out->run_dirs[i];
            kf_suite_run_state rs = kf_suite_run_state_of(rd);
            if (rs == KF_SUITE_RUN_DONE) {
                out->n_skipped++;
                kf_report_entry e;
                kf_error ignore = {0};
                if (kf_report_entry_load(rd, &e, &ignore) == 0) {
                    if (e.status == KF_REPORT_CORRECT) out->n_correct++;
                    if (o->progress.fn)
                        kf_progressf(&o->progress, "[%*d/%d] %-40s already done: %s (delete %s to run it again)\n",
                                n >= 10 ? 2 : 1, i + 1, n, names[i], kf_report_status_name(e.status), rd);
                    kf_report_entry_free(&e);
                }
                continue;
            }
            char log[4600];
            kf_suite_log_path(o->report_dir, probs[i / S].name, i % S + 1, o->seeds, log, sizeof log);
            if (kf_mkdir_p(rd, err) != 0) { rc = -1; break; }
            if (o->progress.fn && rs == KF_SUITE_RUN_STARTED)
                kf_progressf(&o->progress, "[%*d/%d] %-40s resuming the run killed before\n", n >= 10 ? 2 : 1, i + 1,
                        n, names[i]);
            fflush(NULL);
            pid_t self = getpid();
            pid_t pid = fork();
            if (pid < 0) {
                rc = kf_fail_errno(err, errno, "cannot start a process for %s: %s", names[i], strerror(errno));
                break;
            }
            if (pid == 0) {
                free(running);            /* the child owns nothing of the scheduler */
                uint64_t seed = o->seeds > 0 ? (uint64_t)(i % S + 1) : 0;
                const kf_suite_problem *pr = &probs[i / S];
                kf_report_free_list(names, n);
                child(o, pr, rd, log, seed, self);
            }
            for (int s = 0; s < jobs; s++) {
                if (running[s].pid) continue;
                running[s] = (slot){.pid = pid, .idx = i, .t0 = kf_now_s()};
                break;
            }
            active++;
        }
        if (active == 0) break;
        /* reap whichever of our children ended (only ours: never waitpid(-1)) */
        int reaped = 0;
        for (int s = 0; s < jobs; s++) {
            if (!running[s].pid) continue;
            int status = 0;
            pid_t w = waitpid(running[s].pid, &status, active == 1 ? 0 : WNOHANG);
            if (w == 0) continue;
            if (w < 0 && errno == EINTR) continue;
            if (w < 0) status = SIGKILL;   /* lost (ECHILD): a wait status "killed by SIGKILL" */
            int i = running[s].idx;
            char log[4600];
            kf_suite_log_path(o->report_dir, probs[i / S].name, i % S + 1, o->seeds, log, sizeof log);
            report_line(o, i, n, names[i], out->run_dirs[i], log, status,
                        kf_now_s() - running[s].t0, out);
            running[s].pid = 0;
            active--;
            reaped = 1;
        }
        if (!reaped && active > 0) {
            struct timespec ts = {0, 50 * 1000 * 1000};
            nanosleep(&ts, NULL);
        }
        if (rc != 0 && active == 0) break;
    }
    free(running);
    kf_report_free_list(names, n);
    return rc;
}

void kf_suite_run_name(const char *name, int seeds, int k, char *buf, size_t n)
{
    if (seeds > 1) snprintf(buf, n, "%s~s%d", name, k);
    else snprintf(buf, n, "%s", name);
}
