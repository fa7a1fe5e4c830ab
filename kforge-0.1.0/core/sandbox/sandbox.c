/* sandbox.c — sandbox modes and layer names, the parent's own protection,
 * dropping capabilities before exec, and the probe behind `kforge
 * backends` (sandbox.h). */
#include "sandbox.h"

#include <errno.h>
#include <linux/capability.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef SECBIT_NOROOT
#define SECBIT_NOROOT (1 << 0)
#define SECBIT_NOROOT_LOCKED (1 << 1)
#define SECBIT_NO_SETUID_FIXUP (1 << 2)
#define SECBIT_NO_SETUID_FIXUP_LOCKED (1 << 3)
#define SECBIT_KEEP_CAPS_LOCKED (1 << 5)
#define SECBIT_NO_CAP_AMBIENT_RAISE (1 << 6)
#define SECBIT_NO_CAP_AMBIENT_RAISE_LOCKED (1 << 7)
#endif

static const char *const layer_names[] = {"rlimits", "env", "caps", "pidns", "netns", "landlock",
                                          "seccomp", "noexec"};

int kf_sandbox_mode_parse(const char *s)
{
    if (!s) return -1;
    if (!strcmp(s, "auto") || !strcmp(s, "on")) return KF_SANDBOX_AUTO;
    if (!strcmp(s, "strict")) return KF_SANDBOX_STRICT;
    if (!strcmp(s, "off")) return KF_SANDBOX_OFF;
    return -1;
}

const char *kf_sandbox_mode_name(kf_sandbox_mode m)
{
    return m == KF_SANDBOX_STRICT ? "strict" : m == KF_SANDBOX_OFF ? "off" : "auto";
}

static void layers_text(unsigned bits, char *buf, size_t n, const char *none)
{
    size_t used = 0;
    if (n) buf[0] = '\0';
    for (unsigned i = 0; i < sizeof layer_names / sizeof layer_names[0]; i++) {
        if (!(bits & (1u << i)) || used >= n) continue;
        int k = snprintf(buf + used, n - used, "%s%s", used ? " " : "", layer_names[i]);
        if (k > 0) used += (size_t)k;
    }
    if (!used && n) snprintf(buf, n, "%s", none);
}

void kf_sandbox_layers_text(unsigned layers, char *buf, size_t n)
{
    layers_text(layers, buf, n, "none");
}

void kf_sandbox_missing_text(unsigned layers, char *buf, size_t n)
{
    layers_text(~layers & KF_SB_ALL, buf, n, "");
}

uint64_t kf_sandbox_default_mem(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), psz = sysconf(_SC_PAGESIZE);
    uint64_t half = (pages > 0 && psz > 0) ? (uint64_t)pages * (uint64_t)psz / 2 : 0;
    const uint64_t lo = 2ull << 30, hi = 32ull << 30;
    return half < lo ? lo : half > hi ? hi : half;
}

void kf_sandbox_protect_parent(void)
{
    static int done;
    if (done) return;
    done = 1;
    /* Not under a debugger's eye: /proc/<pid>/mem, environ, fd and ptrace
     * then need CAP_SYS_PTRACE, which workers do not have. */
    prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
}

int kf_sandbox_drop_caps(void)
{
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return -1;
    /* uid 0 must not regain capabilities at exec: lock securebits first
     * (needs CAP_SETPCAP, which an unprivileged user lacks and does not
     * need: it has no capabilities to regain). */
    int bits = SECBIT_NOROOT | SECBIT_NOROOT_LOCKED | SECBIT_NO_SETUID_FIXUP | SECBIT_NO_SETUID_FIXUP_LOCKED |
               SECBIT_KEEP_CAPS_LOCKED | SECBIT_NO_CAP_AMBIENT_RAISE | SECBIT_NO_CAP_AMBIENT_RAISE_LOCKED;
    int root = geteuid() == 0 || getuid() == 0;
    if (prctl(PR_SET_SECUREBITS, bits, 0, 0, 0) != 0 && root) return -1;
    for (int c = 0; c <= 63; c++)
        if (prctl(PR_CAPBSET_DROP, c, 0, 0, 0) != 0 && errno != EINVAL && root) return -1;
    prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
    struct __user_cap_header_struct h = {_LINUX_CAPABILITY_VERSION_3, 0};
    struct __user_cap_data_struct d[2];
    memset(d, 0, sizeof d);
    if (syscall(SYS_capset, &h, d) != 0) return -1;
    return 0;
}

/* ------------------------------------------------------------------ */
/* probe                                                               */

static void add_why(char *why, size_t n, const char *text, int err)
{
    size_t used = strlen(why);
    if (used + 2 >= n) return;
    snprintf(why + used, n - used, "%s%s%s", used ? "; " : "", text, err ? strerror(err) : "");
}

/* Runs the worker-side layers in a throw-away child: its exit code's bits
 * say which ones the kernel granted. */
static unsigned probe_child(char *why, size_t n)
{
    int pfd[2];
    if (pipe(pfd) != 0) return 0;
    pid_t pid = (pid_t)syscall(SYS_clone, (unsigned long)(CLONE_NEWPID | CLONE_NEWNET | SIGCHLD), 0, 0, 0, 0);
    unsigned ns = KF_SB_PIDNS | KF_SB_NETNS;
    int clone_err = errno;
    if (pid < 0) {
        ns = 0;
        pid = fork();
    }
    if (pid < 0) {
        close(pfd[0]);
        close(pfd[1]);
        return 0;
    }
    if (pid == 0) {
        close(pfd[0]);
        unsigned got = KF_SB_RLIMITS | KF_SB_ENV;
        char msg[512] = "";
        if (kf_sandbox_drop_caps() == 0) got |= KF_SB_CAPS;
        else snprintf(msg, sizeof msg, "caps: %s", strerror(errno));
        char w[256] = "";
        if (kf_sandbox_landlock("/nonexistent-kforge-probe", NULL, w, sizeof w) == 0) got |= KF_SB_LANDLOCK;
        else snprintf(msg + strlen(msg), sizeof msg - strlen(msg), "%s%s", *msg ? "; " : "", w);
        if (kf_sandbox_seccomp_base(w, sizeof w) == 0) got |= KF_SB_SECCOMP;
        else snprintf(msg + strlen(msg), sizeof msg - strlen(msg), "%s%s", *msg ? "; " : "", w);
        if (kf_sandbox_seccomp_noexec(w, sizeof w) == 0) got |= KF_SB_NOEXEC;
        ssize_t k = write(pfd[1], &got, sizeof got);
        k = write(pfd[1], msg, strlen(msg));
        (void)k;
        _exit(0);
    }
    close(pfd[1]);
    unsigned got = 0;
    char msg[512] = "";
    ssize_t r = read(pfd[0], &got, sizeof got);
    if (r != (ssize_t)sizeof got) got = 0;
    r = read(pfd[0], msg, sizeof msg - 1);
    if (r > 0) msg[r] = '\0';
    close(pfd[0]);
    int st;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {}
    if (!ns) add_why(why, n, "pidns, netns: the kernel refused new namespaces: ", clone_err);
    if (*msg) add_why(why, n, msg, 0);
    return got | ns;
}

unsigned kf_sandbox_probe(char *why, size_t why_len)
{
    if (why_len) why[0] = '\0';
    return probe_child(why, why_len);
}
