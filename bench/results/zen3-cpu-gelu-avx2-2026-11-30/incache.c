/* One thread, in cache: FN (kf_gelu_block or kf_gelu_tanh_block) over 256 blocks of 64
 * floats (64 KiB) from the prelude PRELUDE (the text a kernel starts with, up to its row
 * helpers), best of 200 passes; ns a float. */
#include <stdio.h>
#include <string.h>
#include <time.h>
#include PRELUDE
#define STR_(x) #x
#define STR(x) STR_(x)
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec * 1e-9; }
int main(void)
{
    static float buf[64 * 256] __attribute__((aligned(64))), src[64 * 256];
    for (int i = 0; i < 64 * 256; i++) src[i] = (float)((i * 7919) % 2003) / 97.0f - 10.0f;
    double best = 1e9;
    for (int r = 0; r < 200; r++) {
        memcpy(buf, src, sizeof buf);
        double t0 = now();
        for (int b = 0; b < 256; b++) FN(buf + 64 * b, 64);
        double t = now() - t0;
        if (t < best) best = t;
    }
    printf("%-40s %-20s %.3f ns a float\n", PRELUDE, STR(FN), best / (64 * 256) * 1e9);
    return 0;
}
