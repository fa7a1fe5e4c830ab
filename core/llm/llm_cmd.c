/* llm_cmd.c — the command provider: /bin/sh -c COMMAND, the prompt on stdin, the answer on
 * stdout, killed with its whole process group after [cmd] timeout seconds. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "util/strbuf.h"
#include "util/clock.h"
#include "llm_internal.h"

#define CMD_MAX_OUTPUT (64u << 20)
#define CMD_STDERR_TAIL 400

static int buf_add(kf_sb *b, const char *s, size_t n)
{
    kf_sb_append(b, s, n);
    return b->oom ? -1 : 0;
}

/* "=== system ===\n...\n\n=== user ===\n...\n" */
static char *render(const kf_llm_request *req)
{
    kf_sb b = {0};
    for (int i = 0; i < req->n_messages; i++) {
        char head[64];
        int n = snprintf(head, sizeof head, "%s=== %s ===\n", i ? "\n" : "", kf_llm_role_name(req->messages[i].role));
        const char *c = req->messages[i].content;
        size_t cl = strlen(c);
        if (buf_add(&b, head, (size_t)n) < 0 || buf_add(&b, c, cl) < 0 ||
            ((cl == 0 || c[cl - 1] != '\n') && buf_add(&b, "\n", 1) < 0)) {
            kf_sb_free(&b);
            return NULL;
        }
    }
    return kf_sb_take(&b);
}

/* The last CMD_STDERR_TAIL bytes of stderr on one line. */
static void stderr_tail(const kf_sb *e, char *out, size_t n)
{
    const char *s = e->s ? e->s : "";
    size_t len = e->len;
    while (len && (s[len - 1] == '\n' || s[len - 1] == ' ')) len--;
    size_t start = len > CMD_STDERR_TAIL ? len - CMD_STDERR_TAIL : 0;
    snprintf(out, n, "%s%.*s", start ? "..." : "", (int)(len - start), s + start);
    for (char *p = out; *p; p++)
        if (*p == '\n' || *p == '\r' || *p == '\t') *p = ' ';
    if (!out[0]) snprintf(out, n, "(no stderr output)");
}

/* Token counts the command reports on stderr, the last line of the form
 * "kforge-usage: prompt_tokens=N completion_tokens=M" (either part may be missing). */
static void take_usage(const kf_sb *e, kf_llm_response *resp)
{
    const char *mark = "kforge-usage:", *p = e->s, *last = NULL;
    while (p && (p = strstr(p, mark))) {
        if (p == e->s || p[-1] == '\n') last = p;
        p += strlen(mark);
    }
    if (!last) return;
    const char *end = strchr(last, '\n');
    size_t n = end ? (size_t)(end - last) : strlen(last);
    char line[256];
    snprintf(line, sizeof line, "%.*s", (int)(n < sizeof line ? n : sizeof line - 1), last);
    const char *v;
    if ((v = strstr(line, "prompt_tokens="))) resp->prompt_tokens = strtol(v + 14, NULL, 10);
    if ((v = strstr(line, "completion_tokens="))) resp->completion_tokens = strtol(v + 18, NULL, 10);
}

static int cmd_complete(kf_llm *llm, const kf_llm_request *req, const char *model,
                        kf_llm_response *resp, kf_error *err)
{
    (void)model;
    const char *cmd = llm->arg;
    char *prompt = render(req);
    if (!prompt) return kf_failc(err, KF_E_UNAVAILABLE, KF_LLM_E_CMD, "cmd: out of memory");
    int in[2] = {-1, -1}, out[2] = {-1, -1}, er[2] = {-1, -1};
    kf_sb o = {0}, e = {0};
    int rc = -1;
    if (pipe2(in, O_CLOEXEC) < 0 || pipe2(out, O_CLOEXEC) < 0 || pipe2(er, O_CLOEXEC) < 0) {
        kf_failc(err, KF_E_UNAVAILABLE, KF_LLM_E_CMD, "cmd: cannot create pipes: %s", strerror(errno));
        goto close_fds;
    }
    pid_t pid = fork();
    if (pid < 0) {
        kf_failc(err, KF_E_UNAVAILABLE, KF_LLM_E_CMD, "cmd: cannot fork: %s", strerror(errno));
        goto close_fds;
    }
    if (pid == 0) {
        /* what the command may pass on to its model: K samples differ in the seed */
        char v[64];
        if (req->has_seed) { snprintf(v, sizeof v, "%lld", req->seed); setenv("KFORGE_LLM_SEED", v, 1); }
        else unsetenv("KFORGE_LLM_SEED");
        if (req->max_tokens > 0) { snprintf(v, sizeof v, "%d", req->max_tokens); setenv("KFORGE_LLM_MAX_TOKENS", v, 1); }
        else unsetenv("KFORGE_LLM_MAX_TOKENS");
        if (req->temperature >= 0) { snprintf(v, sizeof v, "%g", req->temperature); setenv("KFORGE_LLM_TEMPERATURE", v, 1); }
        else unsetenv("KFORGE_LLM_TEMPERATURE");
        setpgid(0, 0);
        dup2(in[0], 0);
        dup2(out[1], 1);
        dup2(er[1], 2);
        signal(SIGPIPE, SIG_DFL);
        execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
        _exit(127);
    }
    setpgid(pid, pid);   /* both sides, so the group exists before any kill */
    close(in[0]); in[0] = -1;
    close(out[1]); out[1] = -1;
    close(er[1]); er[1] = -1;
    fcntl(in[1], F_SETFL, O_NONBLOCK);

    /* a command that stops reading early must not kill us with SIGPIPE */
    sigset_t pipe_set, old_set;
    sigemptyset(&pipe_set);
    sigaddset(&pipe_set, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe_set, &old_set);

    size_t plen = strlen(prompt), sent = 0;
    double tmo = llm->cmd_timeout_s;
    int budget_cut = req->timeout_s > 0 && req->timeout_s < tmo;
    if (budget_cut) tmo = req->timeout_s;
    double deadline = kf_now_s() + tmo;
    int timed_out = 0, too_big = 0;
    if (plen == 0) { close(in[1]); in[1] = -1; }
    while (out[0] >= 0 || er[0] >= 0) {
        struct pollfd pf[3];
        int np = 0, iin = -1, iout = -1, ierr = -1;
        if (in[1] >= 0) { iin = np; pf[np++] = (struct pollfd){in[1], POLLOUT, 0}; }
        if (out[0] >= 0) { iout = np; pf[np++] = (struct pollfd){out[0], POLLIN, 0}; }
        if (er[0] >= 0) { ierr = np; pf[np++] = (struct pollfd){er[0], POLLIN, 0}; }
        double left = deadline - kf_now_s();
        if (left <= 0) { timed_out = 1; break; }
        int pr = poll(pf, (nfds_t)np, (int)(left * 1000) + 1);
        if (pr < 0 && errno != EINTR) break;
        if (pr <= 0) continue;
        if (iin >= 0 && pf[iin].revents) {
            ssize_t w = write(in[1], prompt + sent, plen - sent);
            if (w > 0) sent += (size_t)w;
            if ((w < 0 && errno != EAGAIN && errno != EINTR) || sent == plen) {
                close(in[1]);
                in[1] = -1;
            }
        }
        int *fds[2] = {&out[0], &er[0]};
        int idx[2] = {iout, ierr};
        kf_sb *bufs[2] = {&o, &e};
        for (int k = 0; k < 2; k++) {
            if (idx[k] < 0 || !pf[idx[k]].revents) continue;
            char chunk[65536];
            ssize_t r = read(*fds[k], chunk, sizeof chunk);
            if (r > 0) {
                if (bufs[k]->len + (size_t)r > CMD_MAX_OUTPUT || buf_add(bufs[k], chunk, (size_t)r) < 0) {
                    too_big = 1;
                    break;
                }
            } else if (r == 0 || (errno != EAGAIN && errno != EINTR)) {
                close(*fds[k]);
                *fds[k] = -1;
            }
        }
        if (too_big) break;
    }
    /* drop a SIGPIPE that our writes may have raised, then restore the mask */
    struct timespec zero = {0, 0};
    while (sigtimedwait(&pipe_set, NULL, &zero) > 0) {}
    pthread_sigmask(SIG_SETMASK, &old_set, NULL);

    int status = 0;
    if (timed_out || too_big) {
        kill(-pid, SIGKILL);
        kill(pid, SIGKILL);
        waitpid(pid, &status, 0);
    } else {
        /* outputs closed: the shell is exiting; give it until the deadline */
        pid_t w;
        while ((w = waitpid(pid, &status, WNOHANG)) == 0 && kf_now_s() < deadline) {
            struct timespec ts = {0, 5000000};
            nanosleep(&ts, NULL);
        }
        if (w == 0) {
            timed_out = 1;
            kill(-pid, SIGKILL);
            waitpid(pid, &status, 0);
        } else {
            kill(-pid, SIGKILL);   /* stragglers left in its group */
        }
    }
    char tail[CMD_STDERR_TAIL + 64];
    stderr_tail(&e, tail, sizeof tail);
    if (timed_out) {
        kf_failc(err, KF_E_UNAVAILABLE, budget_cut ? KF_LLM_E_TIMEOUT : KF_LLM_E_CMD,
                "cmd: '%.200s' gave no complete answer within %.3g s and was killed — %s", cmd, tmo,
                budget_cut ? "the run's time budget (--max-time) ran out"
                           : "raise --request-timeout ([cmd] timeout in the config) or check the command");
    } else if (too_big) {
        kf_failc(err, KF_E_UNAVAILABLE, KF_LLM_E_CMD, "cmd: '%.200s' wrote more than %u MiB and was killed", cmd, CMD_MAX_OUTPUT >> 20);
    } else if (WIFSIGNALED(status)) {
        kf_failc(err, KF_E_UNAVAILABLE, KF_LLM_E_CMD, "cmd: '%.200s' was killed by signal %d: %s", cmd, WTERMSIG(status), tail);
    } else if (WEXITSTATUS(status) != 0) {
        kf_failc(err, KF_E_UNAVAILABLE, KF_LLM_E_CMD, "cmd: '%.200s' exited with status %d%s: %s", cmd, WEXITSTATUS(status),
                WEXITSTATUS(status) == 127 ? " (command not found?)" : "", tail);
    } else {
        resp->content = kf_sb_take(&o);
        if (!resp->content) {
            kf_failc(err, KF_E_UNAVAILABLE, KF_LLM_E_CMD, "cmd: out of memory");
        } else {
            snprintf(resp->finish_reason, sizeof resp->finish_reason, "stop");
            snprintf(resp->model, sizeof resp->model, "%s", cmd);
            take_usage(&e, resp);
            rc = 0;
        }
    }
close_fds:
    for (int i = 0; i < 2; i++) {
        if (in[i] >= 0) close(in[i]);
        if (out[i] >= 0) close(out[i]);
        if (er[i] >= 0) close(er[i]);
    }
    kf_sb_free(&o);
    kf_sb_free(&e);
    free(prompt);
    return rc;
}

const kf_llm_provider kf_llm_provider_cmd = {
    .name = "cmd",
    .cacheable = 1,
    .complete = cmd_complete,
};
