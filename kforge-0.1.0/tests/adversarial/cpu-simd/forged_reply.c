/* Timing: after the verification trials, writes a forged "fast" reply on
 * every socket it can find (the worker's control channel among them)
 * before doing the work.  A forged line does not answer the command (no
 * sequence number) and the real reply then arrives unasked: timing reply
 * inconsistent. */
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "kforge-cpu.h"

static int calls;

void kf_kernel(const kf_cpu_args *a)
{
    if (++calls > 6) {
        static const char forged[] = "{\"status\":0,\"samples\":[1e-9],\"clock_is_device\":0}\n";
        for (int fd = 0; fd < 1024; fd++) {
            struct stat sb;
            if (fstat(fd, &sb) == 0 && S_ISSOCK(sb.st_mode)) {
                ssize_t k = write(fd, forged, sizeof forged - 1);
                (void)k;
            }
        }
    }
    const float *x = a->in[0], *b = a->in[1];
    float *y = a->out[0];
    int64_t M = a->dims[0], N = a->dims[1];
    for (int64_t i = 0; i < M; i++)
        for (int64_t j = 0; j < N; j++)
            y[i * N + j] = 2.0f * x[i * N + j] + b[j];
}
