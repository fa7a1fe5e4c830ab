/* Isolation: tries TCP to 127.0.0.1 and a UDP socket; reports and aborts. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include "kforge-cpu.h"

void kf_kernel(const kf_cpu_args *a)
{
    (void)a;
    int s = socket(AF_INET, SOCK_STREAM, 0);
    if (s < 0) {
        fprintf(stderr, "adversary tcp-socket: blocked (%s)\n", strerror(errno));
    } else {
        struct sockaddr_in sa;
        memset(&sa, 0, sizeof sa);
        sa.sin_family = AF_INET;
        sa.sin_port = htons(KF_ADV_PORT);
        sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        if (connect(s, (struct sockaddr *)&sa, sizeof sa) == 0)
            fprintf(stderr, "adversary ESCAPED tcp-connect: connected to 127.0.0.1\n");
        else
            fprintf(stderr, "adversary tcp-connect: blocked (%s)\n", strerror(errno));
        close(s);
    }
    int u = socket(AF_INET6, SOCK_DGRAM, 0);
    fprintf(stderr, "adversary udp6-socket: %s\n", u < 0 ? strerror(errno) : "ESCAPED: created");
    abort();
}
