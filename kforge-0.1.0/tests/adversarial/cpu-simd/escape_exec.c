/* Isolation: tries to run a shell, fork a child that outlives the worker
 * (setsid) and exec a program; reports and aborts. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "kforge-cpu.h"

void kf_kernel(const kf_cpu_args *a)
{
    (void)a;
    int rc = system("echo adversary ESCAPED shell: ran /bin/sh >&2");
    fprintf(stderr, "adversary system: status %d\n", rc);
    pid_t p = fork();
    if (p == 0) {
        setsid();
        sleep(30);
        _exit(0);
    }
    if (p > 0) fprintf(stderr, "adversary ESCAPED fork: child %d\n", (int)p);
    else fprintf(stderr, "adversary fork: blocked (%s)\n", strerror(errno));
    char *argv[] = {"/bin/true", NULL};
    execv("/bin/true", argv);
    fprintf(stderr, "adversary exec: blocked (%s)\n", strerror(errno));
    abort();
}
