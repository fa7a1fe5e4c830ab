/* cu_api.c — the CUDA driver API and NVRTC through dlopen (kfcu.h), and
 * error messages. */
#include "kfcu.h"

#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

kfcu_driver kfcu;
#if KFCU_HAVE_TMAP
__typeof__(&cuTensorMapEncodeTiled) kfcu_tensor_map_encode;
#else
void *kfcu_tensor_map_encode;
#endif
kfcu_nvrtc kfnv;
char *kfcu_poisoned;

static kf_status load(const char *const *libs, void **handle, const char *what, char *why, size_t why_len)
{
    char errs[512] = "";
    for (int i = 0; libs[i]; i++) {
        *handle = dlopen(libs[i], RTLD_NOW | RTLD_LOCAL);
        if (*handle) return KF_OK;
        const char *e = dlerror();
        if (!errs[0]) snprintf(errs, sizeof errs, "%s", e ? e : libs[i]);
    }
    snprintf(why, why_len, "%s not found (%s); install the NVIDIA driver%s", libs[0], errs,
             strcmp(what, "nvrtc") ? "" : " and the CUDA toolkit's NVRTC");
    return KF_ERR_UNAVAILABLE;
}

#define KFCU_SYM(name, sym) \
    if (!(*(void **)&tbl->name = dlsym(h, #sym))) { \
        snprintf(why, why_len, "%s lacks %s (too old a version?)", lib, #sym); return KF_ERR_UNAVAILABLE; }

static kf_status bind_driver(void *h, kfcu_driver *tbl, const char *lib, char *why, size_t why_len)
{
    KFCU_DRIVER_FUNCS(KFCU_SYM)
#if KFCU_HAVE_TMAP
    *(void **)&kfcu_tensor_map_encode = dlsym(h, "cuTensorMapEncodeTiled");   /* optional (12.0+) */
#endif
    return KF_OK;
}

static kf_status bind_nvrtc(void *h, kfcu_nvrtc *tbl, const char *lib, char *why, size_t why_len)
{
    KFCU_NVRTC_FUNCS(KFCU_SYM)
    return KF_OK;
}
#undef KFCU_SYM

kf_status kfcu_load_driver(char *why, size_t why_len)
{
    static int state = 0;        /* 0 not tried, 1 ok, -1 failed */
    static char saved[512];
    if (state) {
        if (state < 0) snprintf(why, why_len, "%s", saved);
        return state > 0 ? KF_OK : KF_ERR_UNAVAILABLE;
    }
    static const char *const libs[] = {"libcuda.so.1", "libcuda.so", NULL};
    void *h = NULL;
    kf_status st = load(libs, &h, "driver", saved, sizeof saved);
    if (st == KF_OK) st = bind_driver(h, &kfcu, "libcuda.so.1", saved, sizeof saved);
    if (st == KF_OK) {
        CUresult r = kfcu.Init(0);
        if (r != CUDA_SUCCESS) {
            char e[160];
            snprintf(saved, sizeof saved, "cuInit failed: %s (no usable NVIDIA GPU or driver here)",
                     kfcu_err(r, e, sizeof e));
            st = KF_ERR_UNAVAILABLE;
        }
    }
    state = st == KF_OK ? 1 : -1;
    if (st != KF_OK) snprintf(why, why_len, "%s", saved);
    return st;
}

kf_status kfcu_load_nvrtc(char *why, size_t why_len)
{
    static int state = 0;
    static char saved[512];
    if (state) {
        if (state < 0) snprintf(why, why_len, "%s", saved);
        return state > 0 ? KF_OK : KF_ERR_UNAVAILABLE;
    }
    static const char *const libs[] = {"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so", NULL};
    void *h = NULL;
    kf_status st = load(libs, &h, "nvrtc", saved, sizeof saved);
    if (st == KF_OK) st = bind_nvrtc(h, &kfnv, "libnvrtc", saved, sizeof saved);
    state = st == KF_OK ? 1 : -1;
    if (st != KF_OK) snprintf(why, why_len, "%s", saved);
    return st;
}

const char *kfcu_err(CUresult r, char *buf, size_t n)
{
    const char *name = NULL, *str = NULL;
    if (kfcu.GetErrorName) kfcu.GetErrorName(r, &name);
    if (kfcu.GetErrorString) kfcu.GetErrorString(r, &str);
    if (name && str) snprintf(buf, n, "%s: %s", name, str);
    else snprintf(buf, n, "CUDA error %d", (int)r);
    return buf;
}

kf_status kfcu_check_poison(char **error)
{
    if (!kfcu_poisoned) return KF_OK;
    return kf_hook_fail(error, KF_ERR_RUNTIME, "the CUDA context is unusable after an earlier fault (%s); a fresh "
                        "worker is needed", kfcu_poisoned);
}

kf_status kfcu_fault(CUresult r, char **error, kf_status st, const char *what)
{
    char e[200];
    kfcu_err(r, e, sizeof e);
    /* errors after which the context cannot be used again */
    if (r == CUDA_ERROR_ILLEGAL_ADDRESS || r == CUDA_ERROR_LAUNCH_FAILED || r == CUDA_ERROR_HARDWARE_STACK_ERROR ||
        r == CUDA_ERROR_ILLEGAL_INSTRUCTION || r == CUDA_ERROR_MISALIGNED_ADDRESS ||
        r == CUDA_ERROR_INVALID_ADDRESS_SPACE || r == CUDA_ERROR_INVALID_PC || r == CUDA_ERROR_ASSERT ||
        r == CUDA_ERROR_LAUNCH_TIMEOUT) {
        if (!kfcu_poisoned) kfcu_poisoned = kf_strf("%s: %s", what, e);
        st = KF_ERR_RUNTIME;
    }
    return kf_hook_fail(error, st, "%s failed: %s", what, e);
}
