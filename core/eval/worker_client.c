/* worker_client.c — starting the kforge-worker, talking to it under a
 * wall-clock limit, and killing it (eval_internal.h, worker_proto.h). */
#include "util/clock.h"
#include "eval_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <sched.h>

#include "sandbox/sandbox.h"

#ifndef KF_PKGLIBEXECDIR
#define KF_PKGLIBEXECDIR "/usr/local/libexec/kforge"
#endif

#if defined(__SANITIZE_ADDRESS__)
#define KF_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define KF_ASAN 1
#endif
#endif

/* Bytes the worker may write to any file (its compiled artifacts). */
#define KF_WORKER_FSIZE ((rlim_t)1 << 30)
/* Open files and processes (threads count as processes for RLIMIT_NPROC;
 * the kernel does not apply it to uid 0, for which the PID namespace and
 * the no-fork seccomp stage hold instead). */
#define KF_WORKER_NOFILE ((rlim_t)4096)
#define KF_WORKER_NPROC ((rlim_t)4096)

static const struct { int sig; const char *name, *cause; } signals[] = {
    {SIGSEGV, "SIGSEGV", "invalid memory access"},
    {SIGBUS, "SIGBUS", "bad memory access (misaligned or past the end of a mapping)"},
    {SIGFPE, "SIGFPE", "arithmetic exception (integer division by zero?)"},
    {SIGILL, "SIGILL", "illegal instruction (an instruction this CPU does not support?)"},
    {SIGABRT, "SIGABRT", "aborted (abort() or a failed assertion)"},
    {SIGKILL, "SIGKILL", "killed (out of memory?)"},
    {SIGXCPU, "SIGXCPU", "CPU time limit exceeded"},
    {SIGXFSZ, "SIGXFSZ", "file size limit exceeded"},
    {SIGTRAP, "SIGTRAP", "trap (__builtin_trap or a breakpoint)"},
    {SIGTERM, "SIGTERM", "terminated"},
    {SIGSYS, "SIGSYS", "bad system call"},
    {SIGPIPE, "SIGPIPE", "wrote to a closed pipe"},
};

const char *kf_signal_name(int sig)
{
    for (size_t i = 0; i < sizeof signals / sizeof signals[0]; i++)
        if (signals[i].sig == sig) return signals[i].name;
    return "signal";
}

const char *kf_signal_cause(int sig)
{
    for (size_t i = 0; i < sizeof signals / sizeof signals[0]; i++)
        if (signals[i].sig == sig) return signals[i].cause;
    return "killed by a signal";
}

char *kf_worker_path(void)
{
    const char *env = getenv("KFORGE_WORKER");
    if (env && *env) return strdup(env);
    char self[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n > 0) {
        self[n] = '\0';
        char *slash = strrchr(self, '/');
        if (slash) {
            *slash = '\0';
            char cand[PATH_MAX + 32];
            snprintf(cand, sizeof cand, "%s/kforge-worker", self);
            if (access(cand, X_OK) == 0) return strdup(cand);
        }
    }
    return strdup(KF_PKGLIBEXECDIR "/kforge-worker");
}

/* The environment as the process started, before any plugin ran.  Vendor
 * libraries rewrite the live one: ocl-icd tokenises OCL_ICD_FILENAMES in
 * place ("libpocl.so.2:libnvidia-opencl.so.1" becomes "libpocl.so.2") and
 * PoCL sets HWLOC_PLUGINS_PATH, so a worker started with the live
 * environment would not see the devices its parent listed.  Workers get
 * this snapshot instead. */
extern char **environ;
static char **start_env;

__attribute__((constructor)) static void snapshot_environment(void)
{
    size_t n = 0;
    while (environ && environ[n]) n++;
    char **copy = calloc(n + 1, sizeof *copy);
    if (!copy) return;
    for (size_t i = 0; i < n; i++)
        if (!(copy[i] = strdup(environ[i]))) {
            for (size_t k = 0; k < i; k++) free(copy[k]);
            free(copy);
            return;
        }
    start_env = copy;
}

__attribute__((destructor)) static void free_environment(void)
{
    if (!start_env) return;
    for (size_t i = 0; start_env[i]; i++) free(start_env[i]);
    free(start_env);
    start_env = NULL;
}

static void set_limit(int res, rlim_t v)
{
    struct rlimit rl = {v, v};
    struct rlimit cur;
    if (getrlimit(res, &cur) == 0 && cur.rlim_max != RLIM_INFINITY && cur.rlim_max < v)
        rl.rlim_cur = rl.rlim_max = cur.rlim_max;
    setrlimit(res, &rl);
}

static void close_from(int lowfd)
{
#ifdef SYS_close_range
    if (syscall(SYS_close_range, (unsigned)lowfd, ~0u, 0) == 0) return;
#endif
    long max = sysconf(_SC_OPEN_MAX);
    if (max < 0 || max > 65536) max = 65536;
    for (int fd = lowfd; fd < max; fd++) close(fd);
}

static int high_dup(int fd)
{
    return fcntl(fd, F_DUPFD_CLOEXEC, 10);
}

/* The memory limit as the worker's tools see it: KFORGE_SANDBOX_MEM (the
 * cpu-simd plugin puts it on its compiler), and in an ASan build, where
 * RLIMIT_DATA cannot apply (ASan reserves terabytes of shadow), ASan's own
 * allocation and RSS limits. */
static int limit_env(char ***env, uint64_t mem)
{
    if (!mem) return 0;
    char v[160];
    snprintf(v, sizeof v, "%llu", (unsigned long long)mem);
    if (kf_sandbox_env_set(env, "KFORGE_SANDBOX_MEM", v, 0) != 0) return -1;
#ifdef KF_ASAN
    unsigned long long mb = (unsigned long long)(mem >> 20);
    snprintf(v, sizeof v, "hard_rss_limit_mb=%llu:max_allocation_size_mb=%llu:allocator_may_return_null=1", mb, mb);
    if (kf_sandbox_env_set(env, "ASAN_OPTIONS", v, 1) != 0) return -1;
#endif
    return 0;
}

/* fork(), or a clone into new PID, network, IPC and (where allowed) mount
 * namespaces; *ns says which happened, *mntns whether the mount namespace
 * is the worker's own (then it gets a /proc of its PID namespace). */
static pid_t spawn(int want_ns, unsigned *ns, int *mntns)
{
    *ns = 0;
    *mntns = 0;
    if (want_ns) {
        unsigned long f = CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWIPC | SIGCHLD;
        long pid = syscall(SYS_clone, f | CLONE_NEWNS, 0, 0, 0, 0);
        if (pid >= 0) *mntns = 1;
        else pid = syscall(SYS_clone, f, 0, 0, 0, 0);
        if (pid >= 0) {
            *ns = KF_SB_PIDNS | KF_SB_NETNS;
            return (pid_t)pid;
        }
    }
    return fork();
}

int kf_worker_start(kf_worker *w, const char *exe, int memfd, const kf_worker_limits *lim, kf_error *err)
{
    memset(w, 0, sizeof *w);
    w->pid = -1;
    w->ctl = w->err_fd = -1;
    w->exit_status = -1;
    int sv[2] = {-1, -1}, ep[2] = {-1, -1}, xp[2] = {-1, -1};
    int c_sock = -1, c_err = -1, c_mem = -1;
    int sandboxed = lim->sandbox != KF_SANDBOX_OFF;
    char **env = NULL;
    w->errtail = malloc(KF_WORKER_STDERR_MAX);
    if (!w->errtail) return kf_fail(err, KF_E_INTERNAL, "out of memory starting the worker");
    if (sandboxed && (!(env = kf_sandbox_env(start_env ? start_env : environ, lim->work_dir)) ||
                      limit_env(&env, lim->mem_bytes) != 0)) {
        kf_fail(err, KF_E_INTERNAL, "out of memory starting the worker");
        goto fail;
    }
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0 || pipe2(ep, O_CLOEXEC) != 0 ||
        pipe2(xp, O_CLOEXEC) != 0) {
        kf_fail(err, KF_E_INTERNAL, "cannot create the worker's channels: %s", strerror(errno));
        goto fail;
    }
    c_sock = high_dup(sv[1]);
    c_err = high_dup(ep[1]);
    c_mem = high_dup(memfd);
    if (c_sock < 0 || c_err < 0 || c_mem < 0) {
        kf_fail(err, KF_E_INTERNAL, "cannot set up the worker's descriptors: %s", strerror(errno));
        goto fail;
    }
    char fdarg[16];
    snprintf(fdarg, sizeof fdarg, "%d", KF_WORKER_MEMFD);
    char *wargv[] = {(char *)exe, (char *)"--memfd", fdarg, NULL};
    /* with a wrapper (a profiler): its argv, then the worker's */
    char *argv_buf[48];
    char **argv = wargv;
    const char *prog = exe;
    if (lim->wrap && lim->wrap[0]) {
        int n = 0;
        while (lim->wrap[n] && n < 40) argv_buf[n] = (char *)lim->wrap[n], n++;
        for (int i = 0; wargv[i]; i++) argv_buf[n++] = wargv[i];
        argv_buf[n] = NULL;
        argv = argv_buf;
        prog = lim->wrap[0];
    }
    rlim_t cpu = lim->cpu_s > 0 ? (rlim_t)lim->cpu_s + 1 : RLIM_INFINITY;
    pid_t parent = getpid();
    if (sandboxed) kf_sandbox_protect_parent();

    unsigned ns = 0;
    int mntns = 0;
    pid_t pid = spawn(sandboxed, &ns, &mntns);
    if (pid < 0) {
        kf_fail(err, KF_E_INTERNAL, "cannot fork the worker: %s", strerror(errno));
        goto fail;
    }
    if (pid == 0) {
        /* child: async-signal-safe calls only */
        setpgid(0, 0);
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (!ns && getppid() != parent) _exit(127);
        if (mntns) {
            /* a /proc that shows the worker's PID namespace, not the host's:
               the worker sees only its own processes, and drivers that
               match getpid() against /proc/self (CUDA's cuInit fails with
               CUDA_ERROR_OPERATING_SYSTEM otherwise) work.  Mounts stay
               private to the worker. */
            if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) == 0)
                mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL);
        }
        set_limit(RLIMIT_CORE, 0);
        if (cpu != RLIM_INFINITY) set_limit(RLIMIT_CPU, cpu);
        set_limit(RLIMIT_FSIZE, KF_WORKER_FSIZE);
        set_limit(RLIMIT_NOFILE, KF_WORKER_NOFILE);
        if (sandboxed) set_limit(RLIMIT_NPROC, KF_WORKER_NPROC);
#ifndef KF_ASAN
        if (lim->mem_bytes) set_limit(RLIMIT_DATA, (rlim_t)lim->mem_bytes);
#endif
        sigset_t all;
        sigemptyset(&all);
        sigprocmask(SIG_SETMASK, &all, NULL);
        signal(SIGPIPE, SIG_DFL);
        if (dup2(c_sock, 0) < 0 || dup2(c_sock, 1) < 0 || dup2(c_err, 2) < 0 ||
            dup2(c_mem, KF_WORKER_MEMFD) < 0)
            _exit(127);
        int xfd = xp[1];
        int keep = fcntl(xfd, F_DUPFD_CLOEXEC, KF_WORKER_MEMFD + 1);
        close_from(keep < 0 ? KF_WORKER_MEMFD + 1 : keep + 1);
        for (int fd = KF_WORKER_MEMFD + 1; fd < keep; fd++) close(fd);
        int caps_errno = 0;
        if (sandboxed && lim->work_dir && chdir(lim->work_dir) != 0) {
            int e = errno;
            caps_errno = -1;   /* "not started": then the reason */
            if (keep >= 0) {
                ssize_t wr = write(keep, &caps_errno, sizeof caps_errno);
                wr = write(keep, &e, sizeof e);
                (void)wr;
            }
            _exit(127);
        }
        if (sandboxed && kf_sandbox_drop_caps() != 0) caps_errno = errno ? errno : EPERM;
        if (keep >= 0) {
            ssize_t wr = write(keep, &caps_errno, sizeof caps_errno);
            (void)wr;
        }
        if (caps_errno && lim->sandbox == KF_SANDBOX_STRICT) _exit(127);
        execve(prog, argv, sandboxed ? env : start_env ? start_env : environ);
        int e = errno;
        if (keep >= 0) {
            ssize_t wr = write(keep, &e, sizeof e);
            (void)wr;
        }
        _exit(127);
    }
    setpgid(pid, pid);
    w->pid = pid;
    w->pidns = (ns & KF_SB_PIDNS) != 0;
    close(xp[1]);
    xp[1] = -1;
    int caps_errno = -1, exec_errno = 0;
    ssize_t r0, r;
    do r0 = read(xp[0], &caps_errno, sizeof caps_errno);
    while (r0 < 0 && errno == EINTR);
    do r = read(xp[0], &exec_errno, sizeof exec_errno);
    while (r < 0 && errno == EINTR);
    close(xp[0]);
    xp[0] = -1;
    close(sv[1]);
    close(ep[1]);
    close(c_sock);
    close(c_err);
    close(c_mem);
    kf_sandbox_env_free(env);
    env = NULL;
    w->ctl = sv[0];
    w->err_fd = ep[0];
    fcntl(w->ctl, F_SETFL, O_NONBLOCK);
    fcntl(w->err_fd, F_SETFL, O_NONBLOCK);
    if (caps_errno == -1) {
        kf_worker_kill(w);
        kf_fail(err, KF_E_INTERNAL, "cannot start the worker: cannot enter its work directory %s: %s",
                lim->work_dir ? lim->work_dir : "?", r == (ssize_t)sizeof exec_errno ? strerror(exec_errno) : "?");
        kf_worker_stop(w);
        return -1;
    }
    w->layers = KF_SB_RLIMITS | ns;
    if (sandboxed) w->layers |= KF_SB_ENV;
    if (sandboxed && r0 == (ssize_t)sizeof caps_errno && caps_errno == 0) w->layers |= KF_SB_CAPS;
    else if (sandboxed)
        snprintf(w->layers_why, sizeof w->layers_why, "caps: cannot drop capabilities: %s",
                 r0 == (ssize_t)sizeof caps_errno ? strerror(caps_errno) : "the worker did not start");
    if (sandboxed && !ns) {
        size_t used = strlen(w->layers_why);
        snprintf(w->layers_why + used, sizeof w->layers_why - used,
                 "%spidns, netns: the kernel refused new namespaces (needs root or user namespaces)",
                 used ? "; " : "");
    }
    if (r == (ssize_t)sizeof exec_errno) {
        kf_worker_kill(w);
        if (prog != exe)
            kf_fail(err, KF_E_INTERNAL, "cannot start '%s' in front of the worker: %s", prog, strerror(exec_errno));
        else
            kf_fail(err, KF_E_INTERNAL,
                    "cannot start the worker '%s': %s (set KFORGE_WORKER to the kforge-worker executable)",
                    exe, strerror(exec_errno));
        kf_worker_stop(w);
        return -1;
    }
    if (r0 != (ssize_t)sizeof caps_errno || (caps_errno && lim->sandbox == KF_SANDBOX_STRICT)) {
        kf_worker_kill(w);
        kf_fail(err, KF_E_UNAVAILABLE, "cannot start the worker '%s' %s: %s", exe,
                lim->sandbox == KF_SANDBOX_STRICT ? "under --sandbox=strict" : "", w->layers_why);
        kf_worker_stop(w);
        return -1;
    }
    return 0;
fail:
    kf_sandbox_env_free(env);
    for (int i = 0; i < 2; i++) {
        if (sv[i] >= 0) close(sv[i]);
        if (ep[i] >= 0) close(ep[i]);
        if (xp[i] >= 0) close(xp[i]);
    }
    if (c_sock >= 0) close(c_sock);
    if (c_err >= 0) close(c_err);
    if (c_mem >= 0) close(c_mem);
    free(w->errtail);
    w->errtail = NULL;
    return -1;
}

static void errtail_add(kf_worker *w, const char *buf, size_t n)
{
    if (n > KF_WORKER_STDERR_MAX) {
        buf += n - KF_WORKER_STDERR_MAX;
        n = KF_WORKER_STDERR_MAX;
    }
    if (w->errlen + n > KF_WORKER_STDERR_MAX) {
        size_t drop = w->errlen + n - KF_WORKER_STDERR_MAX;
        memmove(w->errtail, w->errtail + drop, w->errlen - drop);
        w->errlen -= drop;
    }
    memcpy(w->errtail + w->errlen, buf, n);
    w->errlen += n;
}

/* Reads what stderr has now; returns 0 at EOF, 1 otherwise. */
static int drain_stderr(kf_worker *w)
{
    char buf[8192];
    for (;;) {
        ssize_t n = read(w->err_fd, buf, sizeof buf);
        if (n > 0) {
            errtail_add(w, buf, (size_t)n);
            continue;
        }
        if (n == 0) return 0;
        if (errno == EINTR) continue;
        return 1;
    }
}

static void record_status(kf_worker *w, int st)
{
    if (WIFSIGNALED(st)) w->term_signal = WTERMSIG(st);
    else if (WIFEXITED(st) && w->pidns && WEXITSTATUS(st) > KF_WORKER_SIGEXIT)
        w->term_signal = WEXITSTATUS(st) - KF_WORKER_SIGEXIT;
    else if (WIFEXITED(st)) w->exit_status = WEXITSTATUS(st);
}

static void reap(kf_worker *w, int kill_first)
{
    if (w->pid <= 0) return;
    if (kill_first) kill(-w->pid, SIGKILL);
    int st = 0;
    pid_t r;
    do r = waitpid(w->pid, &st, 0);
    while (r < 0 && errno == EINTR);
    /* whatever it left behind in its group (a compiler, forked children) */
    kill(-w->pid, SIGKILL);
    if (r == w->pid) record_status(w, st);
    w->pid = -1;
    if (w->err_fd >= 0) drain_stderr(w);
}

/* After EOF on the channel: give the worker a moment to finish dying. */
static void reap_after_eof(kf_worker *w)
{
    double t0 = kf_now_s();
    double wait = w->exit_wait_s > 0 ? w->exit_wait_s : 2.0;
    while (w->pid > 0 && kf_now_s() - t0 < wait) {
        int st = 0;
        pid_t r = waitpid(w->pid, &st, WNOHANG);
        if (r == w->pid) {
            record_status(w, st);
            kill(-w->pid, SIGKILL);
            w->pid = -1;
            drain_stderr(w);
            return;
        }
        if (r < 0 && errno != EINTR) break;
        struct timespec ts = {0, 5 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    reap(w, 1);
}

void kf_worker_kill(kf_worker *w)
{
    reap(w, 1);
}

kf_wcall kf_worker_call(kf_worker *w, const char *cmd_json, double timeout_s,
                        kf_wp_reply *reply, char *why, size_t why_len)
{
    memset(reply, 0, sizeof *reply);
    if (why_len) why[0] = '\0';
    if (w->pid <= 0) {
        snprintf(why, why_len, "the worker is not running");
        return KF_WCALL_DIED;
    }
    size_t len = strlen(cmd_json);
    char *out = malloc(len + 2);
    if (!out) {
        snprintf(why, why_len, "out of memory");
        kf_worker_kill(w);
        return KF_WCALL_PROTOCOL;
    }
    memcpy(out, cmd_json, len);
    out[len++] = '\n';
    size_t sent = 0;
    double deadline = kf_now_s() + timeout_s;
    kf_wcall result = KF_WCALL_PROTOCOL;
    for (;;) {
        char *nl = w->inlen ? memchr(w->inbuf, '\n', w->inlen) : NULL;
        if (nl && sent == len) {
            *nl = '\0';
            size_t used = (size_t)(nl - w->inbuf) + 1;
            int ok = kf_wp_reply_parse(w->inbuf, reply, why, why_len) == 0;
            memmove(w->inbuf, w->inbuf + used, w->inlen - used);
            w->inlen -= used;
            if (ok) {
                drain_stderr(w);
                free(out);
                return KF_WCALL_OK;
            }
            kf_worker_kill(w);
            free(out);
            return KF_WCALL_PROTOCOL;
        }
        double left = deadline - kf_now_s();
        if (left <= 0) {
            kf_worker_kill(w);
            result = KF_WCALL_TIMEOUT;
            break;
        }
        struct pollfd pf[2] = {{w->ctl, (short)(POLLIN | (sent < len ? POLLOUT : 0)), 0},
                               {w->err_fd, POLLIN, 0}};
        int nfds = w->err_fd >= 0 ? 2 : 1;
        int ms = left > 1e6 ? 1000000000 : (int)(left * 1000.0) + 1;
        int pr = poll(pf, (nfds_t)nfds, ms);
        if (pr < 0) {
            if (errno == EINTR) continue;
            snprintf(why, why_len, "poll: %s", strerror(errno));
            kf_worker_kill(w);
            break;
        }
        if (nfds == 2 && (pf[1].revents & (POLLIN | POLLHUP)) && drain_stderr(w) == 0) {
            close(w->err_fd);
            w->err_fd = -1;
        }
        if (sent < len && (pf[0].revents & POLLOUT)) {
            ssize_t n = send(w->ctl, out + sent, len - sent, MSG_NOSIGNAL);
            if (n > 0) sent += (size_t)n;
            else if (n < 0 && errno != EAGAIN && errno != EINTR) {
                reap_after_eof(w);
                result = KF_WCALL_DIED;
                break;
            }
        }
        if (pf[0].revents & (POLLIN | POLLHUP | POLLERR)) {
            if (w->incap - w->inlen < 65536) {
                size_t cap = w->incap ? w->incap * 2 : 131072;
                if (cap > KF_WP_MAX_LINE + 65536u) {
                    snprintf(why, why_len, "the worker's reply exceeds %u bytes", KF_WP_MAX_LINE);
                    kf_worker_kill(w);
                    break;
                }
                char *nb = realloc(w->inbuf, cap);
                if (!nb) {
                    snprintf(why, why_len, "out of memory");
                    kf_worker_kill(w);
                    break;
                }
                w->inbuf = nb;
                w->incap = cap;
            }
            ssize_t n = read(w->ctl, w->inbuf + w->inlen, w->incap - w->inlen);
            if (n > 0) w->inlen += (size_t)n;
            else if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
                reap_after_eof(w);
                result = KF_WCALL_DIED;
                break;
            }
        }
    }
    free(out);
    return result;
}

void kf_worker_stop(kf_worker *w)
{
    if (w->pid > 0) {
        kf_wp_reply r;
        char why[128];
        if (kf_worker_call(w, "{\"cmd\":\"quit\"}", 5.0, &r, why, sizeof why) == KF_WCALL_OK) {
            kf_wp_reply_free(&r);
            reap_after_eof(w);
        }
        kf_worker_kill(w);
    }
    if (w->ctl >= 0) close(w->ctl);
    if (w->err_fd >= 0) close(w->err_fd);
    w->ctl = w->err_fd = -1;
    free(w->inbuf);
    w->inbuf = NULL;
    w->inlen = w->incap = 0;
    if (!w->keep_errtail) {
        free(w->errtail);
        w->errtail = NULL;
        w->errlen = 0;
    }
}

int kf_worker_freeze(kf_worker *w)
{
    if (w->pid <= 0) return -1;
    kill(-w->pid, SIGSTOP);
    for (;;) {
        int st = 0;
        pid_t r = waitpid(w->pid, &st, WUNTRACED);
        if (r < 0 && errno == EINTR) continue;
        if (r == w->pid && WIFSTOPPED(st)) return 0;
        if (r == w->pid) {
            record_status(w, st);
            kill(-w->pid, SIGKILL);
            w->pid = -1;
            if (w->err_fd >= 0) drain_stderr(w);
        }
        return -1;
    }
}

void kf_worker_resume(kf_worker *w)
{
    if (w->pid > 0) kill(-w->pid, SIGCONT);
}

size_t kf_worker_unsolicited(kf_worker *w)
{
    size_t n = w->inlen;
    char buf[256];
    ssize_t k = recv(w->ctl, buf, sizeof buf, MSG_PEEK | MSG_DONTWAIT);
    if (k > 0) n += (size_t)k;
    return n;
}
