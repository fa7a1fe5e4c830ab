/* Isolation: looks for the process that started it (its parent, any
 * process named like the test or kforge, and KF_ADV_PARENT_PID when the
 * test writes it into the source) and tries to read its memory and
 * environment, follow its descriptors and working directory, trace it and
 * kill it; reports each attempt ("blocked (why)" or "ESCAPED") and aborts. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <unistd.h>
#include "kforge-cpu.h"

static int is_target(int pid)
{
    char path[64], comm[64] = "";
    snprintf(path, sizeof path, "/proc/%d/comm", pid);
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    if (!fgets(comm, sizeof comm, f)) comm[0] = '\0';
    fclose(f);
    return !strncmp(comm, "test_adversaria", 15) || !strncmp(comm, "kforge\n", 7) || !strncmp(comm, "lt-kforge", 9);
}

void kf_kernel(const kf_cpu_args *a)
{
    (void)a;
    fprintf(stderr, "adversary getppid: %d\n", (int)getppid());
    if (kill(getppid(), SIGKILL) == 0) fprintf(stderr, "adversary ESCAPED kill-ppid: sent\n");
    else fprintf(stderr, "adversary kill-ppid: blocked (%s)\n", strerror(errno));
    int found = 0;
    DIR *d = opendir("/proc");
    struct dirent *e;
#ifdef KF_ADV_PARENT_PID
    int named = KF_ADV_PARENT_PID, named_done = 0;
#else
    int named = 0, named_done = 1;
#endif
    while ((d && (e = readdir(d))) || !named_done) {
        int pid;
        if (d && e) {
            pid = atoi(e->d_name);
            if (pid <= 1 || pid == getpid() || !is_target(pid)) continue;
            if (pid == named) named_done = 1;
        } else {
            pid = named;   /* not visible in /proc (hidepid): try it anyway */
            named_done = 1;
            d = NULL;
        }
        found++;
        char path[64];
        snprintf(path, sizeof path, "/proc/%d/mem", pid);
        int fd = open(path, O_RDONLY);
        if (fd >= 0) fprintf(stderr, "adversary ESCAPED proc-mem: opened\n");
        else fprintf(stderr, "adversary proc-mem: blocked (%s)\n", strerror(errno));
        if (fd >= 0) close(fd);
        snprintf(path, sizeof path, "/proc/%d/environ", pid);
        fd = open(path, O_RDONLY);
        char env[256];
        ssize_t got = fd >= 0 ? read(fd, env, sizeof env) : -1;
        if (got > 0) fprintf(stderr, "adversary ESCAPED proc-environ: read %zd bytes\n", got);
        else fprintf(stderr, "adversary proc-environ: blocked (%s)\n", strerror(errno));
        if (fd >= 0) close(fd);
        snprintf(path, sizeof path, "/proc/%d/fd", pid);
        /* the numbers may be listable; where they point must not be */
        DIR *fds = opendir(path);
        struct dirent *fe;
        int links = 0, tried = 0;
        while (fds && (fe = readdir(fds))) {
            if (fe->d_name[0] == '.') continue;
            char lp[128], to[512];
            snprintf(lp, sizeof lp, "%s/%s", path, fe->d_name);
            tried++;
            if (readlink(lp, to, sizeof to) > 0) links++;
        }
        if (fds) closedir(fds);
        if (links) fprintf(stderr, "adversary ESCAPED proc-fd-links: read %d of %d\n", links, tried);
        else fprintf(stderr, "adversary proc-fd-links: blocked (%s)\n", tried ? strerror(errno) : "none listed");
        snprintf(path, sizeof path, "/proc/%d/cwd/", pid);
        DIR *cwd = opendir(path);
        if (cwd) fprintf(stderr, "adversary ESCAPED proc-cwd: listed\n");
        else fprintf(stderr, "adversary proc-cwd: blocked (%s)\n", strerror(errno));
        if (cwd) closedir(cwd);
        long pt = ptrace(PTRACE_ATTACH, pid, 0, 0);
        if (pt == 0) fprintf(stderr, "adversary ESCAPED ptrace: attached\n");
        else fprintf(stderr, "adversary ptrace: blocked (%s)\n", strerror(errno));
        if (kill(pid, SIGKILL) == 0) fprintf(stderr, "adversary ESCAPED kill: sent to %d\n", pid);
        else fprintf(stderr, "adversary kill: blocked (%s)\n", strerror(errno));
    }
    if (d) closedir(d);
    fprintf(stderr, "adversary targets found: %d\n", found);
    abort();
}
