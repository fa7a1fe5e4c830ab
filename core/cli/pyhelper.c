#include "pyhelper.h"
#include "util/fileio.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common.h"

const char *kf_py_interpreter(void)
{
    const char *p = getenv("KFORGE_PYTHON");
    return p && *p ? p : "python3";
}

char *kf_py_dir(void)
{
    const char *env = getenv("KFORGE_PYTHON_DIR");
    if (env && *env) return strdup(env);
    char build[PATH_MAX];
    if (kf_build_tree(build, sizeof build) == 0) return strdup(KF_ABS_TOP_SRCDIR "/python");
    return strdup(KF_PKGDATADIR "/python");
}

int kf_py_run(const char *script, const char *const *args, char **out)
{
    char *dir = kf_py_dir();
    if (!dir) {
        kf_cli_error("out of memory");
        return -1;
    }
    char *path = NULL;
    if (asprintf(&path, "%s/%s", dir, script) < 0) path = NULL;
    free(dir);
    if (!path) {
        kf_cli_error("out of memory");
        return -1;
    }
    if (access(path, R_OK) != 0) {
        kf_cli_error("cannot read the helper %s: %s (set KFORGE_PYTHON_DIR to the directory "
                     "holding kforge's Python helpers)", path, strerror(errno));
        free(path);
        return 127;
    }
    size_t na = 0;
    while (args && args[na]) na++;
    const char **argv = calloc(na + 3, sizeof *argv);
    if (!argv) {
        free(path);
        kf_cli_error("out of memory");
        return -1;
    }
    const char *py = kf_py_interpreter();
    argv[0] = py;
    argv[1] = path;
    for (size_t i = 0; i < na; i++) argv[2 + i] = args[i];

    int fds[2] = {-1, -1}, errp[2] = {-1, -1};
    if ((out && pipe2(fds, O_CLOEXEC) != 0) || pipe2(errp, O_CLOEXEC) != 0) {
        kf_cli_error("cannot create a pipe: %s", strerror(errno));
        free(argv);
        free(path);
        return -1;
    }
    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0) {
        kf_cli_error("cannot fork: %s", strerror(errno));
        free(argv);
        free(path);
        return -1;
    }
    if (pid == 0) {
        if (out) dup2(fds[1], STDOUT_FILENO);
        execvp(py, (char *const *)argv);
        int e = errno;
        if (write(errp[1], &e, sizeof e) < 0) _exit(127);
        _exit(127);
    }
    free(argv);
    close(errp[1]);
    if (out) close(fds[1]);
    int rc = 0;
    if (out) {
        size_t len = 0, cap = 8192;
        char *buf = malloc(cap);
        for (;;) {
            if (!buf) break;
            if (cap - len < 4096) {
                char *nb = realloc(buf, cap *= 2);
                if (!nb) {
                    free(buf);
                    buf = NULL;
                    break;
                }
                buf = nb;
            }
            ssize_t r = read(fds[0], buf + len, cap - len - 1);
            if (r < 0 && errno == EINTR) continue;
            if (r <= 0) break;
            len += (size_t)r;
        }
        close(fds[0]);
        if (buf) buf[len] = '\0';
        *out = buf;
        if (!buf) rc = -1;
    }
    int exec_errno = 0;
    ssize_t got = read(errp[0], &exec_errno, sizeof exec_errno);
    close(errp[0]);
    int st;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {}
    if (got == (ssize_t)sizeof exec_errno) {
        kf_cli_error("cannot run the Python interpreter '%s': %s (install python3 with PyTorch, or "
                     "set KFORGE_PYTHON to one)", py, strerror(exec_errno));
        free(path);
        if (out) {
            free(*out);
            *out = NULL;
        }
        return 127;
    }
    free(path);
    if (rc < 0) {
        kf_cli_error("out of memory reading the helper's output");
        return -1;
    }
    if (WIFEXITED(st)) return WEXITSTATUS(st);
    kf_cli_error("the Python helper was killed by signal %d", WIFSIGNALED(st) ? WTERMSIG(st) : 0);
    return -1;
}
