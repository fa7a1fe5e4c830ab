/* fuzz_problem.c — libFuzzer target: the problem parser (kf_problem_parse)
 * and, for what parses, resolving every preset and describing it. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "problem/problem.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 1);
    if (!s) return 0;
    memcpy(s, data, size);
    s[size] = '\0';
    kf_error err = {0};
    kf_problem *p = kf_problem_parse(s, "fuzz", &err);
    if (p) {
        for (int i = 0; i < p->n_presets && i < 4; i++) {
            kf_resolved r;
            if (kf_resolve(p, i, &r, &err) == 0) {
                char *d = kf_problem_describe(&r);
                free(d);
                kf_resolved_free(&r);
            }
        }
        kf_problem_free(p);
    }
    free(s);
    return 0;
}
