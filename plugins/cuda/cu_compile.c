/* cu_compile.c — the compile hook: NVRTC turns the candidate's sources
 * (the first is the translation unit, the others are headers it may
 * include by name) into a cubin for the device's sm_XY (sm_90a on compute
 * capability 9.0, for wgmma), the driver loads
 * it, and every launch of the plan gets its function, grid and block. */
#include "kfcu.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const kfcu_nvrtc_options[] = {"--std=c++17", "-default-device", NULL};

static void launch_free(kfcu_launch *l)
{
    free(l->kernel);
    free(l->args);
}

void kfcu_release(kf_artifact *a)
{
    if (!a) return;
    for (int i = 0; i < a->n_launches; i++) launch_free(&a->launches[i]);
    free(a->launches);
    free(a->tmaps);
    if (a->module && !kfcu_poisoned) kfcu.ModuleUnload(a->module);
    free(a);
}

/* Splits build options on blanks into argv-style strings appended to opts. */
static int split_options(const char *s, char **buf, const char **opts, int n, int max)
{
    *buf = strdup(s ? s : "");
    if (!*buf) return -1;
    for (char *p = *buf; *p && n < max;) {
        while (isspace((unsigned char)*p)) *p++ = '\0';
        if (!*p) break;
        opts[n++] = p;
        while (*p && !isspace((unsigned char)*p)) p++;
    }
    return n;
}

/* NVRTC: the candidate's sources -> a cubin for `sm` ("sm_90"), *image
 * malloc'ed (*image_n bytes). */
static kf_status nvrtc_compile(const kf_compile_request *req, const char *sm, char **image, size_t *image_n,
                               char **diagnostics)
{
    const kf_candidate_view *c = req->candidate;
    if (c->n_sources < 1) return kf_hook_fail(diagnostics, KF_ERR_INVALID, "the candidate has no source");
    nvrtcProgram prog;
    int nh = c->n_sources - 1;
    const char **hsrc = calloc((size_t)nh + 1, sizeof *hsrc), **hname = calloc((size_t)nh + 1, sizeof *hname);
    if (!hsrc || !hname) { free(hsrc); free(hname); return KF_ERR_NOMEM; }
    for (int i = 0; i < nh; i++) { hsrc[i] = c->sources[i + 1].text; hname[i] = c->sources[i + 1].name; }
    nvrtcResult nr = kfnv.CreateProgram(&prog, c->sources[0].text, c->sources[0].name, nh, hsrc, hname);
    free(hsrc);
    free(hname);
    if (nr != NVRTC_SUCCESS)
        return kf_hook_fail(diagnostics, KF_ERR_INTERNAL, "nvrtcCreateProgram: %s", kfnv.GetErrorString(nr));
    char arch[48];
    snprintf(arch, sizeof arch, "--gpu-architecture=%s", sm);
    const char *opts[64] = {arch};
    int nfix = 1;
    for (const char *const *o = kfcu_nvrtc_options; *o; o++) opts[nfix++] = *o;
    char *obuf = NULL;
    int no = split_options(c->build_options, &obuf, opts, nfix, 64);
    if (no < 0) { kfnv.DestroyProgram(&prog); return KF_ERR_NOMEM; }
    nr = kfnv.CompileProgram(prog, no, opts);
    free(obuf);
    size_t log_n = 0;
    char *log = NULL;
    if (kfnv.GetProgramLogSize(prog, &log_n) == NVRTC_SUCCESS && log_n > 1 && (log = malloc(log_n)))
        kfnv.GetProgramLog(prog, log);
    if (nr != NVRTC_SUCCESS) {
        free(*diagnostics);
        *diagnostics = log ? log : kf_strf("NVRTC: %s (no log)", kfnv.GetErrorString(nr));
        kfnv.DestroyProgram(&prog);
        return KF_ERR_COMPILE;
    }
    free(log);
    size_t n = 0;
    if (kfnv.GetCUBINSize(prog, &n) != NVRTC_SUCCESS || n == 0 || !(*image = malloc(n)) ||
        kfnv.GetCUBIN(prog, *image) != NVRTC_SUCCESS) {
        free(*image);
        *image = NULL;
        kfnv.DestroyProgram(&prog);
        return kf_hook_fail(diagnostics, KF_ERR_INTERNAL, "NVRTC produced no cubin for %s", arch + 20);
    }
    kfnv.DestroyProgram(&prog);
    *image_n = n;
    return KF_OK;
}

/* "sm_90", "sm_80", "sm_100a" ...: sm_ and 2-3 digits, an optional 'a' or 'f'. */
static int valid_sm(const char *t)
{
    if (strncmp(t, "sm_", 3) != 0) return 0;
    const char *p = t + 3;
    int digits = 0;
    while (isdigit((unsigned char)*p)) { p++; digits++; }
    if (*p == 'a' || *p == 'f') p++;
    return digits >= 2 && digits <= 3 && !*p;
}

/* Whether the cubin's string table names `kernel` (extern "C" names are
 * stored as they are). */
static int cubin_defines(const char *image, size_t n, const char *kernel)
{
    size_t k = strlen(kernel);
    for (const char *p = image; k && (size_t)(p - image) + k + 2 <= n; p++) {
        p = memchr(p, '\0', n - (size_t)(p - image) - k - 1);
        if (!p) return 0;
        if (memcmp(p + 1, kernel, k) == 0 && p[k + 1] == '\0') return 1;
    }
    return 0;
}

kf_status kfcu_compile_offline(const kf_compile_request *req, const char *target, void **binary,
                               size_t *binary_size, char **report, char **diagnostics)
{
    *binary = NULL;
    *binary_size = 0;
    if (!target) target = "sm_90";
    if (!valid_sm(target))
        return kf_hook_fail(diagnostics, KF_ERR_INVALID, "target '%s' is not a CUDA architecture: give sm_XY "
                            "(sm_80 A100, sm_86/sm_89 RTX 30/40, sm_90 H100/H200, sm_100 B200 ...)", target);
    if (!req || !req->candidate)
        return kf_hook_fail(diagnostics, KF_ERR_INVALID, "compile_offline: no candidate");
    char why[512] = "";
    kf_status st = kfcu_load_nvrtc(why, sizeof why);
    if (st != KF_OK) return kf_hook_fail(diagnostics, st, "%s", why);
    char *image = NULL;
    size_t n = 0;
    st = nvrtc_compile(req, target, &image, &n, diagnostics);
    if (st != KF_OK) return st;
    const kf_candidate_view *c = req->candidate;
    if (req->problem && (st = kfcu_tmap_plan(c, req->problem, diagnostics)) != KF_OK) {   /* as on a device */
        free(image);
        return st;
    }
    int n_lib = 0;
    for (int i = 0; i < c->n_launches; i++) {
        const kf_launch *l = KF_AT(kf_launch, c->launches, c->launch_size, i);
        if (l->kernel && kfcu_blas_is_library(l->kernel)) {
            /* checked as on a device; cuBLAS itself is loaded at run time */
            kfcu_blas_call call;
            if ((st = kfcu_blas_plan(l, i, req->problem, &call, diagnostics)) != KF_OK) {
                free(image);
                return KF_ERR_COMPILE;
            }
            n_lib++;
            continue;
        }
        if (!l->kernel || !cubin_defines(image, n, l->kernel)) {
            free(image);
            return kf_hook_fail(diagnostics, KF_ERR_COMPILE, "launch[%d]: kernel '%s' is not defined in the cubin "
                                "for %s; declare it extern \"C\" __global__ so its name is not mangled", i,
                                l->kernel ? l->kernel : "", target);
        }
    }
    int major = 0, minor = 0;
    kfnv.Version(&major, &minor);
    *report = n_lib ? kf_strf("cubin for %s by NVRTC %d.%d; the %d kernel(s) of the launch plan are defined in "
                              "it; its %d cuBLAS launch(es) are valid for the problem's buffers (cuBLAS is "
                              "loaded when they run)", target, major, minor, c->n_launches - n_lib, n_lib)
                    : kf_strf("cubin for %s by NVRTC %d.%d; the %d kernel(s) of the launch plan are defined in it",
                              target, major, minor, c->n_launches);
    *binary = image;
    *binary_size = n;
    return KF_OK;
}

static kf_status setup_launch(kf_artifact *a, int li, const kf_launch *in, const kf_problem_view *problem,
                              char **error)
{
    kfcu_launch *l = &a->launches[li];
    if (!(l->kernel = strdup(in->kernel ? in->kernel : ""))) return KF_ERR_NOMEM;
    if (kfcu_blas_is_library(l->kernel)) {
        kf_status st = kfcu_blas_plan(in, li, problem, &l->blas, error);
        if (st == KF_OK) st = kfcu_blas_open(a->dev, error);
        l->library = st == KF_OK;
        return st == KF_OK ? KF_OK : KF_ERR_COMPILE;
    }
    CUresult r = kfcu.ModuleGetFunction(&l->fn, a->module, l->kernel);
    if (r != CUDA_SUCCESS)
        return kf_hook_fail(error, KF_ERR_INVALID, "launch[%d]: kernel '%s' not found in the module; declare it "
                            "extern \"C\" __global__ so its name is not mangled", li, l->kernel);
    if (in->work_dim < 1 || in->work_dim > 3)
        return kf_hook_fail(error, KF_ERR_INVALID, "launch[%d] (%s): work_dim %d (1..3)", li, l->kernel, in->work_dim);
    int maxt = 0;
    kfcu.FuncGetAttribute(&maxt, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, l->fn);
    for (int dd = 0; dd < 3; dd++) {
        int64_t g = dd < in->work_dim ? in->global[dd] : 1;
        int64_t b = dd < in->work_dim ? in->local[dd] : 1;
        if (in->local[0] == 0) b = dd == 0 ? (maxt > 0 && maxt < 256 ? maxt : 256) : 1;
        if (g < 1 || b < 1)
            return kf_hook_fail(error, KF_ERR_LAUNCH, "launch[%d] (%s): global[%d] = %lld, block %lld: sizes must be "
                                ">= 1", li, l->kernel, dd, (long long)g, (long long)b);
        if (in->local[0] != 0 && g % b != 0)
            return kf_hook_fail(error, KF_ERR_LAUNCH, "launch[%d] (%s): global[%d] = %lld threads is not a multiple "
                                "of the block's %lld: round it up in the plan and guard the kernel with if (i < n)",
                                li, l->kernel, dd, (long long)g, (long long)b);
        l->block[dd] = (unsigned)b;
        l->grid[dd] = (unsigned)((g + b - 1) / b);
    }
    long long threads = (long long)l->block[0] * l->block[1] * l->block[2];
    if (maxt > 0 && threads > maxt)
        return kf_hook_fail(error, KF_ERR_LAUNCH, "launch[%d] (%s): a block of %lld threads exceeds this kernel's "
                            "limit of %d on %s (registers or the device); use a smaller block", li, l->kernel, threads,
                            maxt, a->dev->name);
    l->n_args = in->n_args;
    l->args = calloc((size_t)in->n_args + 1, sizeof *l->args);
    if (!l->args) return KF_ERR_NOMEM;
    int64_t dyn = 0;
    for (int i = 0; i < in->n_args; i++) {
        l->args[i] = in->args[i];
        if (in->args[i].kind == KF_ARG_LOCAL) dyn += in->args[i].bytes;
        else l->n_params++;
    }
    if (dyn > a->dev->shared_optin)
        return kf_hook_fail(error, KF_ERR_LAUNCH, "launch[%d] (%s): %lld bytes of dynamic shared memory, above the "
                            "%d bytes a block may have on %s", li, l->kernel, (long long)dyn, a->dev->shared_optin,
                            a->dev->name);
    l->dyn_shared = (unsigned)dyn;
    if (dyn > a->dev->shared_block &&
        (r = kfcu.FuncSetAttribute(l->fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, (int)dyn)) != CUDA_SUCCESS)
        return kfcu_fault(r, error, KF_ERR_LAUNCH, "cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES)");
    return KF_OK;
}

kf_status kfcu_compile(const kf_compile_request *req, kf_artifact **out, char **diagnostics)
{
    *out = NULL;
    char why[512] = "";
    kf_status st = kfcu_check_poison(diagnostics);
    if (st != KF_OK) return st;
    kfcu_device *devs;
    int nd;
    if ((st = kfcu_devices(&devs, &nd, why, sizeof why)) != KF_OK ||
        (st = kfcu_load_nvrtc(why, sizeof why)) != KF_OK)
        return kf_hook_fail(diagnostics, st, "%s", why);
    if (req->device < 0 || req->device >= nd)
        return kf_hook_fail(diagnostics, KF_ERR_INVALID, "device %d: this machine has %d CUDA device(s)", req->device, nd);
    const kf_candidate_view *c = req->candidate;
    if (c->n_launches < 1)
        return kf_hook_fail(diagnostics, KF_ERR_INVALID, "the candidate has no launch plan (cuda runs kernels)");
    if ((st = kfcu_tmap_plan(c, req->problem, diagnostics)) != KF_OK) return st;
    const int n_tmaps = c->struct_size >= offsetof(kf_candidate_view, tensor_map_size) + sizeof c->tensor_map_size
                            ? c->n_tensor_maps : 0;
    if (n_tmaps > 0 && (!kfcu_tensor_map_encode || devs[req->device].cc_major < 9))
        return kf_hook_fail(diagnostics, KF_ERR_COMPILE, "the plan passes tensor maps, which need compute capability "
                         "9.0 or later and a driver with cuTensorMapEncodeTiled (CUDA 12.0+): %s",
                         !KFCU_HAVE_TMAP ? "this plugin was built against CUDA 11 headers"
                         : !kfcu_tensor_map_encode ? "this driver lacks it" : "this device is older");
    kfcu_device *d = &devs[req->device];
    if ((st = kfcu_device_open(d, diagnostics)) != KF_OK) return st;
    char *image = NULL, sm[32];
    size_t image_n = 0;
    /* sm_90a on a 9.0 device (H100, H200): its architecture-specific
       instructions (wgmma, setmaxnreg) are then available, and the cubin
       runs on that device as an sm_90 one would */
    snprintf(sm, sizeof sm, "sm_%d%d%s", d->cc_major, d->cc_minor, d->cc_major == 9 && d->cc_minor == 0 ? "a" : "");
    if ((st = nvrtc_compile(req, sm, &image, &image_n, diagnostics)) != KF_OK) return st;
    kf_artifact *a = calloc(1, sizeof *a);
    if (!a) { free(image); return KF_ERR_NOMEM; }
    a->dev = d;
    a->n_inputs = req->problem->n_inputs;
    a->n_outputs = req->problem->n_outputs;
    a->n_scratch = req->problem->n_scratch;
    if (n_tmaps > 0) {
        if (!(a->tmaps = calloc((size_t)n_tmaps, sizeof *a->tmaps))) { kfcu_release(a); return KF_ERR_NOMEM; }
        for (int i = 0; i < n_tmaps; i++) {
            const kf_tensor_map *t = KF_AT(kf_tensor_map, c->tensor_maps, c->tensor_map_size, i);
            memcpy(&a->tmaps[i], t, t->struct_size < sizeof *t ? t->struct_size : sizeof *t);
        }
        a->n_tmaps = n_tmaps;
    }
    char jit_log[8192] = "";
    CUjit_option jo[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void *jv[] = {jit_log, (void *)(uintptr_t)sizeof jit_log};
    /* a plan of library launches only has no kernel to load (its source
       still had to compile) */
    int kernels = 0;
    for (int i = 0; i < c->n_launches; i++)
        kernels += !kfcu_blas_is_library(KF_AT(kf_launch, c->launches, c->launch_size, i)->kernel);
    CUresult r = kernels ? kfcu.ModuleLoadDataEx(&a->module, image, 2, jo, jv) : CUDA_SUCCESS;
    free(image);
    if (r != CUDA_SUCCESS) {
        char e[200];
        kfcu_release(a);
        return kf_hook_fail(diagnostics, KF_ERR_COMPILE, "cuModuleLoadDataEx: %s%s%s", kfcu_err(r, e, sizeof e),
                            jit_log[0] ? "\n" : "", jit_log);
    }
    a->launches = calloc((size_t)c->n_launches, sizeof *a->launches);
    if (!a->launches) { kfcu_release(a); return KF_ERR_NOMEM; }
    a->n_launches = c->n_launches;
    for (int i = 0; i < c->n_launches; i++)
        if ((st = setup_launch(a, i, KF_AT(kf_launch, c->launches, c->launch_size, i), req->problem,
                               diagnostics)) != KF_OK) {
            kfcu_release(a);
            return st == KF_ERR_NOMEM ? kf_hook_fail(diagnostics, st, "out of memory") : st;
        }
    *out = a;
    return KF_OK;
}
