/* test_llm_stub.c — see test_llm_stub.h. */
#include "test_llm_stub.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "../kf_test.h"

void kf_stub_clean_env(void)
{
    static const char *const vars[] = {"http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY",
                                       "all_proxy", "ALL_PROXY", "OPENAI_API_KEY", "OPENAI_BASE_URL",
                                       "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", NULL};
    for (int i = 0; vars[i]; i++) unsetenv(vars[i]);
    setenv("NO_PROXY", "127.0.0.1,localhost", 1);
}

void kf_stub_start(kf_stub *s, const char *script_json)
{
    const char *py = getenv("PYTHON3");
    if (!py || !*py) py = "python3";
    if (strcmp(py, "no") == 0) kf_test_skip("python3 was not found at configure time");
    memset(s, 0, sizeof *s);
    char dir[3000], script[4200], stub[4200];
    /* a directory of its own: the log holds the Authorization header by design */
    snprintf(dir, sizeof dir, "%s/stub", kf_test_tmpdir());
    mkdir(dir, 0755);
    snprintf(script, sizeof script, "%s/script.json", dir);
    snprintf(s->log, sizeof s->log, "%s/requests.jsonl", dir);
    snprintf(stub, sizeof stub, "%s/tests/stub/llm_stub.py", kf_test_srcdir());
    if (kf_test_write_file(script, script_json) != 0) kf_test_fail(__FILE__, __LINE__, "cannot write %s", script);
    int in[2], out[2];
    if (pipe(in) < 0 || pipe(out) < 0) kf_test_fail(__FILE__, __LINE__, "pipe: %s", strerror(errno));
    pid_t pid = fork();
    if (pid == 0) {
        dup2(in[0], 0);
        dup2(out[1], 1);
        close(in[0]); close(in[1]); close(out[0]); close(out[1]);
        execlp(py, py, stub, script, s->log, (char *)NULL);
        _exit(127);
    }
    close(in[0]);
    close(out[1]);
    s->pid = pid;
    s->stdin_fd = in[1];
    char line[64] = "";
    size_t n = 0;
    struct pollfd pf = {out[0], POLLIN, 0};
    while (n < sizeof line - 1 && !strchr(line, '\n') && poll(&pf, 1, 10000) > 0) {
        ssize_t r = read(out[0], line + n, sizeof line - 1 - n);
        if (r <= 0) break;
        n += (size_t)r;
        line[n] = '\0';
    }
    close(out[0]);
    s->port = atoi(line);
    if (s->port <= 0) kf_test_fail(__FILE__, __LINE__, "the stub did not print its port (got '%s')", line);
    snprintf(s->base, sizeof s->base, "http://127.0.0.1:%d", s->port);
}

json_object *kf_stub_requests(const kf_stub *s)
{
    json_object *arr = json_object_new_array();
    char *text = kf_test_read_file(s->log);
    if (!text) return arr;
    char *save = NULL;
    for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        json_object *o = json_tokener_parse(line);
        if (!o) kf_test_fail(__FILE__, __LINE__, "bad stub log line: %s", line);
        json_object_array_add(arr, o);
    }
    free(text);
    return arr;
}

int kf_stub_count(const kf_stub *s)
{
    json_object *a = kf_stub_requests(s);
    int n = (int)json_object_array_length(a);
    json_object_put(a);
    return n;
}

void kf_stub_stop(kf_stub *s)
{
    if (s->stdin_fd > 0) close(s->stdin_fd);
    if (s->pid > 0) {
        kill(s->pid, SIGTERM);
        waitpid(s->pid, NULL, 0);
    }
    s->pid = 0;
    s->stdin_fd = -1;
}

int kf_stub_dead_port(void)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {0};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof a) < 0 ||
        getsockname(fd, (struct sockaddr *)&a, &len) < 0)
        kf_test_fail(__FILE__, __LINE__, "socket: %s", strerror(errno));
    close(fd);
    return ntohs(a.sin_port);
}
