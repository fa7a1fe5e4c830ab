/* fuzz_spirv.c — libFuzzer target: the levelzero plugin's reader of SPIR-V
 * modules (kfze_spirv_entries: OpenEntryPoint names and each kernel's
 * OpFunctionParameter count), which reads candidate-supplied binaries
 * (kernel.spv) before any validator has seen them... and after: both ways
 * it must never read out of bounds.  The plugin's sources are compiled in
 * (the plugin is not a library of the core). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../plugins/levelzero/ze_errors.c"
#include "../../plugins/levelzero/ze_spirv.c"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* an exact-size copy, so that ASan sees any read past the end */
    unsigned char *m = malloc(size ? size : 1);
    if (!m) return 0;
    if (size) memcpy(m, data, size);
    kfze_entry e[8];
    int n = kfze_spirv_entries(m, size, e, 8);
    if (n > 8) abort();
    for (int i = 0; i < n; i++)
        if (strlen(e[i].name) >= sizeof e[i].name || e[i].n_params < 0) abort();
    free(m);
    return 0;
}
