/* cu_blas.c — library launches run through cuBLAS (cu_blas_plan.h):
 * libcublas.so.13 (then .12) loaded with dlopen at run time like the
 * driver and NVRTC, one handle per device on the primary context, calls
 * on the default stream the plugin's kernels and CUDA events use, so a
 * library launch is timed exactly as a kernel is. */
#include "kfcu.h"

#include <cublas_v2.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KFCU_BLAS_FUNCS(X) \
    X(Create, cublasCreate_v2) X(Destroy, cublasDestroy_v2) X(SetStream, cublasSetStream_v2) \
    X(SetMathMode, cublasSetMathMode) X(GetVersion, cublasGetVersion_v2) X(Sgemm, cublasSgemm_v2) \
    X(SgemmStridedBatched, cublasSgemmStridedBatched) X(GetStatusString, cublasGetStatusString)

#define KFCU_FIELD(name, sym) __typeof__(&sym) name;
typedef struct kfcu_blas_api { KFCU_BLAS_FUNCS(KFCU_FIELD) } kfcu_blas_api;
#undef KFCU_FIELD

static kfcu_blas_api kfbl;
static char blas_lib[64];

kf_status kfcu_blas_load_from(const char *const *libs, char *why, size_t why_len)
{
    char errs[400] = "";
    void *h = NULL;
    int i = 0;
    for (; libs[i] && !h; i++) {
        h = dlopen(libs[i], RTLD_NOW | RTLD_LOCAL);
        const char *e = h ? NULL : dlerror();
        if (!h && !errs[0]) snprintf(errs, sizeof errs, "%s", e ? e : libs[i]);
    }
    if (!h) {
        snprintf(why, why_len, "%s not found (%s); library launches (cublas:*) need the CUDA toolkit's cuBLAS: "
                 "install it (libcublas.so.13 or .12) or put its directory on LD_LIBRARY_PATH (outside /usr and /opt also "
                 "on KFORGE_SANDBOX_READ, which the worker's sandbox may read)",
                 libs[0] ? libs[0] : "libcublas", errs);
        return KF_ERR_UNAVAILABLE;
    }
    const char *lib = libs[i - 1];
    kfcu_blas_api t;
#define KFCU_SYM(name, sym) \
    if (!(*(void **)&t.name = dlsym(h, #sym))) { \
        snprintf(why, why_len, "%s lacks %s (too old a cuBLAS?)", lib, #sym); dlclose(h); return KF_ERR_UNAVAILABLE; }
    KFCU_BLAS_FUNCS(KFCU_SYM)
#undef KFCU_SYM
    kfbl = t;
    snprintf(blas_lib, sizeof blas_lib, "%s", lib);
    return KF_OK;
}

kf_status kfcu_load_blas(char *why, size_t why_len)
{
    static int state = 0;        /* 0 not tried, 1 ok, -1 failed */
    static char saved[512];
    if (state) {
        if (state < 0) snprintf(why, why_len, "%s", saved);
        return state > 0 ? KF_OK : KF_ERR_UNAVAILABLE;
    }
    static const char *const libs[] = {"libcublas.so.13", "libcublas.so.12", NULL};
    kf_status st = kfcu_blas_load_from(libs, saved, sizeof saved);
    state = st == KF_OK ? 1 : -1;
    if (st != KF_OK) snprintf(why, why_len, "%s", saved);
    return st;
}

const char *kfcu_blas_lib(void)
{
    return blas_lib[0] ? blas_lib : NULL;
}

static const char *status_str(cublasStatus_t s)
{
    const char *m = kfbl.GetStatusString ? kfbl.GetStatusString(s) : NULL;
    return m ? m : "unknown cuBLAS status";
}

kf_status kfcu_blas_open(kfcu_device *d, char **error)
{
    if (d->blas) return KF_OK;
    char why[512] = "";
    if (kfcu_load_blas(why, sizeof why) != KF_OK) return kf_hook_fail(error, KF_ERR_COMPILE, "%s", why);
    /* the caller made d's primary context current (kfcu_compile): cuBLAS uses it */
    cublasHandle_t h = NULL;
    cublasStatus_t s = kfbl.Create(&h);
    if (s != CUBLAS_STATUS_SUCCESS)
        return kf_hook_fail(error, KF_ERR_COMPILE, "cublasCreate on %s failed: %s (%s)", d->name, status_str(s), blas_lib);
    if ((s = kfbl.SetStream(h, NULL)) != CUBLAS_STATUS_SUCCESS) {
        kfbl.Destroy(h);
        return kf_hook_fail(error, KF_ERR_COMPILE, "cublasSetStream(default stream) failed: %s", status_str(s));
    }
    int v = 0;
    kfbl.GetVersion(h, &v);
    d->blas = h;
    d->blas_version = v;
    return KF_OK;
}

/* The device pointer of a plan buffer argument, or 0 with *error set. */
static CUdeviceptr buffer_ptr(const kf_artifact *a, const kfcu_set *s, const kf_arg *g, const char *what,
                              int li, const char *kernel, char **error)
{
    int base = g->kind == KF_ARG_INPUT ? g->index
             : g->kind == KF_ARG_OUTPUT ? a->n_inputs + g->index
             : a->n_inputs + a->n_outputs + g->index;
    if (base < 0 || base >= s->n) {
        kf_hook_fail(error, KF_ERR_INVALID, "launch[%d] (%s): %s names buffer %d of %d", li, kernel, what, base, s->n);
        return 0;
    }
    if (s->host[base]->dtype != KF_DT_F32) {
        kf_hook_fail(error, KF_ERR_INVALID, "launch[%d] (%s): %s is not a float32 buffer (dtype %u); cuBLAS sgemm "
                     "takes float32", li, kernel, what, (unsigned)s->host[base]->dtype);
        return 0;
    }
    return s->base[base] + s->host[base]->guard_bytes;
}

kf_status kfcu_blas_run(kf_artifact *a, kfcu_set *s, int li, char **error)
{
    const kfcu_launch *l = &a->launches[li];
    const kfcu_blas_call *c = &l->blas;
    cublasHandle_t h = a->dev->blas;
    if (!h) return kf_hook_fail(error, KF_ERR_INTERNAL, "launch[%d] (%s): no cuBLAS handle", li, l->kernel);
    CUdeviceptr A = buffer_ptr(a, s, &c->a, "A", li, l->kernel, error);
    CUdeviceptr B = A ? buffer_ptr(a, s, &c->b, "B", li, l->kernel, error) : 0;
    CUdeviceptr C = B ? buffer_ptr(a, s, &c->c, "C", li, l->kernel, error) : 0;
    if (!C) return KF_ERR_INVALID;
    cublasStatus_t st = kfbl.SetMathMode(h, c->tf32 ? CUBLAS_TF32_TENSOR_OP_MATH : CUBLAS_DEFAULT_MATH);
    /* column-major: first operand = the plan's B, second = its A */
    const float *first = (const float *)(uintptr_t)B, *second = (const float *)(uintptr_t)A;
    float *cp = (float *)(uintptr_t)C;
    cublasOperation_t ta = c->transa ? CUBLAS_OP_T : CUBLAS_OP_N, tb = c->transb ? CUBLAS_OP_T : CUBLAS_OP_N;
    if (st == CUBLAS_STATUS_SUCCESS && !c->batched)
        st = kfbl.Sgemm(h, ta, tb, c->m, c->n, c->k, &c->alpha, first, c->lda, second, c->ldb, &c->beta, cp, c->ldc);
    else if (st == CUBLAS_STATUS_SUCCESS)
        st = kfbl.SgemmStridedBatched(h, ta, tb, c->m, c->n, c->k, &c->alpha, first, c->lda, c->stride_first, second,
                                      c->ldb, c->stride_second, &c->beta, cp, c->ldc, c->stride_c, c->batch);
    if (st != CUBLAS_STATUS_SUCCESS)
        return kf_hook_fail(error, st == CUBLAS_STATUS_EXECUTION_FAILED ? KF_ERR_RUNTIME : KF_ERR_LAUNCH,
                            "launch[%d] (%s, column-major m=%d n=%d k=%d%s): cuBLAS: %s", li, l->kernel, c->m, c->n, c->k,
                            c->batched ? " batched" : "", status_str(st));
    return KF_OK;
}
