/* fuzz_answer.c — libFuzzer target: the LLM answer parser (fenced blocks
 * with and without language tags, the tolerant JSON cleaner). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "llm/answer.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 1);
    if (!s) return 0;
    memcpy(s, data, size);
    s[size] = '\0';
    static const char *const c[] = {"c", NULL};
    static const char *const k[] = {"opencl", "cl", "cuda", "c", NULL};
    kf_error err = {0};
    char *code = NULL;
    if (kf_answer_extract(s, c, &code, &err) == 0) free(code);
    code = NULL;
    if (kf_answer_extract(s, k, &code, &err) == 0) free(code);
    code = NULL;
    if (kf_answer_extract(s, NULL, &code, &err) == 0) free(code);
    free(kf_answer_clean_json(s, &err));
    free(kf_answer_extract_json(s, &err));
    free(s);
    return 0;
}
