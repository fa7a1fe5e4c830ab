/* fuzz_ncu_csv.c — libFuzzer target: the parser of `ncu --csv` output
 * (core/eval/counters.c), which reads a file written while candidate
 * kernels ran, and the text made from what it kept. */
#include <stdint.h>
#include <stdlib.h>

#include "eval/counters.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    kf_counters c = {0};
    kf_ncu_csv_parse((const char *)data, size, &c);
    char *t = kf_counters_text(&c);
    free(t);
    for (int i = 0; i < c.n_kernels; i++) (void)kf_counters_get(&c.k[i], "gpu__time_duration.sum");
    kf_counters_free(&c);
    return 0;
}
