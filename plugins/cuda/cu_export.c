/*
 * cu_export.c — the cuda plugin's export_files (kforge-plugin.h, ABI 1.4):
 * what `kforge export` writes for a CUDA C kernel plan.
 *
 *   --to torch  _cuda.py, the package's caller (export/kf_torch_cuda.py,
 *               embedded at build time as cu-export-torch.c: NVRTC and the
 *               CUDA driver API through ctypes, on torch's current stream),
 *               and spec.json's "nvrtc_options", the options cu_compile.c
 *               gives NVRTC for every candidate;
 *   --to c      not written (refused with what to use instead).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kfcu.h"

extern const char kfcu_torch_caller_text[];   /* cu-export-torch.c */

/* {"nvrtc_options": [...]} (the options are plain words: no escaping). */
static char *spec_extra(void)
{
    size_t n = 0;
    char *s = NULL;
    FILE *f = open_memstream(&s, &n);
    if (!f) return NULL;
    fputs("{\"nvrtc_options\": [", f);
    for (int i = 0; kfcu_nvrtc_options[i]; i++) fprintf(f, "%s\"%s\"", i ? ", " : "", kfcu_nvrtc_options[i]);
    fputs("]}", f);
    if (fclose(f) != 0) {
        free(s);
        return NULL;
    }
    return s;
}

kf_status kfcu_export(const kf_export_request *req, kf_export_result *res, char **error)
{
    if (!strcmp(req->target, "c"))
        return kf_hook_fail(error, KF_ERR_INVALID, "--to c is not written for CUDA C kernel plans; use --to torch "
                            "(NVRTC and the CUDA driver API from Python)");
    if (strcmp(req->target, "torch") != 0)
        return kf_hook_fail(error, KF_ERR_INVALID, "the cuda plugin exports --to torch only, not '%s'", req->target);
    if (kf_export_add(res, "_cuda.py", kf_strf("%s", kfcu_torch_caller_text)) != 0 ||
        !(res->caller = kf_strf("_cuda")) || !(res->spec_extra = spec_extra()))
        return kf_hook_fail(error, KF_ERR_NOMEM, "out of memory");
    return KF_OK;
}
