/* eval_counters.c — the counters replay (counters.h, doc/sandbox.md
 * "Hardware counters").
 *
 * After a candidate passed verification and timing, and its worker is gone,
 * a second worker compiles it again in its own build directory and runs it
 * once on fresh inputs, started through `ncu` (Nsight Compute) so that ncu
 * reads the hardware counters of every kernel that run launches.  ncu is a
 * trusted NVIDIA program: it runs where the worker would (its namespaces,
 * limits, allow-listed environment, no capabilities) and launches the
 * worker, which confines itself exactly as in an evaluation (Landlock,
 * seccomp, no exec).  Nothing here touches the verdict or the timing: a
 * replay that fails records why in res->hw and the evaluation stands. */
#include "eval_internal.h"
#include "counters.h"
#include "sandbox/sandbox.h"
#include "util/fileio.h"
#include "util/strbuf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void unavailable(kf_counters *hw, const char *why)
{
    free(hw->why);
    hw->why = strdup(why);
    hw->state = KF_COUNTERS_UNAVAILABLE;
}

/* The first line of ncu's log that says what went wrong ("==ERROR== ..."),
 * into buf; buf unchanged when there is none. */
static void ncu_error(const char *log, char *buf, size_t n)
{
    const char *p = log ? strstr(log, "==ERROR==") : NULL;
    if (p) snprintf(buf, n, "%.*s", (int)strcspn(p, "\n"), p);
}

/* The last line of the worker's (and ncu's) stderr into buf, "" if none. */
static void stderr_tail(const kf_worker *w, char *buf, size_t n)
{
    buf[0] = '\0';
    if (w->errtail && w->errlen) {
        size_t end = w->errlen;
        while (end && (w->errtail[end - 1] == '\n' || w->errtail[end - 1] == '\r')) end--;
        size_t start = end;
        while (start && w->errtail[start - 1] != '\n') start--;
        snprintf(buf, n, "%.*s", (int)(end - start), w->errtail + start);
    }
}

void kf_ev_counters(kf_ev *e, kf_plugin *plugin, const char *work)
{
    kf_counters *hw = &e->res->hw;
    if (e->o.counters == KF_COUNTERS_OFF) return;
    /* auto: only plans whose kernels run through the CUDA driver (the
       plugin's KF_CAP_CUDA_DRIVER: ncu sees them, and the candidate is device
       code only); ncu: whatever the backend.  Test hook:
       KFORGE_TEST_COUNTERS_BACKEND names a backend auto treats as such
       (tests/e2e/test_counters.sh, where no GPU is) */
    const char *auto_backend = getenv("KFORGE_TEST_COUNTERS_BACKEND");
    const int ncu_sees = auto_backend && *auto_backend
                             ? strcmp(plugin->name, auto_backend) == 0
                             : (plugin->be->caps & (KF_CAP_CUDA_DRIVER | KF_CAP_KERNEL_PLAN)) ==
                                   (KF_CAP_CUDA_DRIVER | KF_CAP_KERNEL_PLAN);
    if (e->o.counters == KF_COUNTERS_AUTO && !ncu_sees) return;
    char *ncu = kf_ncu_find();
    if (!ncu) {
        unavailable(hw, "ncu not found (looked on PATH, in /usr/local/cuda/bin and /opt/nvidia/nsight-compute; set KFORGE_NCU)");
        hw->quiet = e->o.counters == KF_COUNTERS_AUTO;
        return;
    }
    hw->tool = ncu;
    char dir[4200], build_dir[4300], log_path[4300];
    if (strlen(work) > 4000) {
        unavailable(hw, "the work directory's path is too long for the counters replay");
        return;
    }
    snprintf(dir, sizeof dir, "%s/counters", work);
    snprintf(build_dir, sizeof build_dir, "%s/build", dir);
    snprintf(log_path, sizeof log_path, "%s/ncu.csv", dir);
    kf_error err = {0};
    if (kf_mkdir_p_mode(build_dir, 0700, &err) != 0) {
        unavailable(hw, err.msg);
        return;
    }
    unlink(log_path);
    char *exe = kf_worker_path();
    int have_exe = exe != NULL;
    const char *args[] = {ncu, "--csv", "--clock-control", "none", "--metrics", kf_ncu_metrics(),
                          "--target-processes", "application-only", "--log-file", log_path, NULL};
    const char *const *wrap = args;
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    double cpu_limit = (e->o.compile_timeout_s + e->o.profile_timeout_s) * (double)(ncpu > 0 ? ncpu : 1) + 60;
    kf_worker_limits lim = {cpu_limit, e->o.mem_limit_bytes, e->o.sandbox, build_dir, wrap};
    kf_worker w;
    kf_error werr = {0};
    int started = exe ? kf_worker_start(&w, exe, e->mem.fd, &lim, &werr) : -1;
    free(exe);
    if (started != 0) {
        char line[600];
        snprintf(line, sizeof line, "the counters replay could not start: %.500s", have_exe ? werr.msg : "out of memory");
        unavailable(hw, line);
        return;
    }
    w.exit_wait_s = 60;   /* ncu writes its report when the worker has quit */
    w.keep_errtail = 1;
    char why[256], what[700] = "";
    kf_wp_reply r;
    char *load = kf_ev_load_command(e, plugin, build_dir);
    kf_wcall wc = load ? kf_worker_call(&w, load, e->o.compile_timeout_s, &r, why, sizeof why) : KF_WCALL_PROTOCOL;
    free(load);
    if (wc != KF_WCALL_OK) {
        snprintf(what, sizeof what, "the replay's compilation under ncu failed (%s)",
                 wc == KF_WCALL_TIMEOUT ? "timed out" : wc == KF_WCALL_DIED ? "the worker died" : why);
    } else {
        hw->sandbox = w.layers | (r.sandbox > 0 ? (unsigned)r.sandbox : 0);
        if (r.status != KF_OK) snprintf(what, sizeof what, "the replay's compilation under ncu failed: %.300s",
                                        r.error ? r.error : "(no message)");
        kf_wp_reply_free(&r);
    }
    if (!what[0]) {
        /* fresh inputs, as for a verification trial; the outputs are not
           judged here (the evaluation already did) */
        kf_ev_draw_set(e, 0, e->o.seed + 7919);
        wc = kf_worker_call(&w, "{\"cmd\":\"run\",\"set\":0}", e->o.profile_timeout_s, &r, why, sizeof why);
        if (wc != KF_WCALL_OK)
            snprintf(what, sizeof what, "the replay's run under ncu failed (%s)",
                     wc == KF_WCALL_TIMEOUT ? "timed out" : wc == KF_WCALL_DIED ? "the worker died" : why);
        else {
            if (r.sandbox > 0) hw->sandbox |= (unsigned)r.sandbox & KF_SB_NOEXEC;
            if (r.status != KF_OK) snprintf(what, sizeof what, "the replay's run under ncu failed: %.300s",
                                            r.error ? r.error : "(no message)");
            kf_wp_reply_free(&r);
        }
    }
    char detail[300];
    kf_worker_stop(&w);   /* waits for ncu to write its log */
    stderr_tail(&w, detail, sizeof detail);
    free(w.errtail);
    char *log = access(log_path, F_OK) == 0 ? kf_read_file(log_path, &err) : NULL;
    if (!what[0] && log) kf_ncu_csv_parse(log, strlen(log), hw);
    if (hw->state != KF_COUNTERS_COLLECTED) {
        ncu_error(log, detail, sizeof detail);
        char line[1200];
        snprintf(line, sizeof line, "%s%s%s", what[0] ? what : log ? (hw->why ? hw->why : "ncu wrote nothing usable")
                                                                   : "ncu wrote no report",
                 detail[0] ? ": " : "", detail);
        unavailable(hw, line);
    }
    free(log);
}
