/*
 * test_cuda_nvrtc.c — every built-in cuda-c candidate compiles, on any
 * machine with NVRTC and no GPU: for each problem of problems/level1 and
 * problems/level2 (small preset), the cuda-c emitter's default point for an
 * sm_90 GPU (BF16 tensor cores), the same in TF32 and in fp32, its first
 * neighbours (the BF16 GEMM's other tiles and stages) and the op-by-op
 * baseline, and the BF16 and TF32 points at the kernelbench preset (the
 * cp.async path of the TF32 GEMM) are compiled by NVRTC
 * for sm_80 and sm_90 with the options the cuda plugin uses
 * (plugins/cuda/cu_compile.c).  TAP, one case per problem; without NVRTC
 * the whole test is skipped and says why.
 */
#include <dirent.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/builtin/builtin.h"
#include "problem/problem.h"

typedef int (*create_fn)(void **, const char *, const char *, int, const char *const *, const char *const *);
typedef int (*compile_fn)(void *, int, const char *const *);
typedef int (*logsize_fn)(void *, size_t *);
typedef int (*log_fn)(void *, char *);
typedef int (*destroy_fn)(void **);
static create_fn create;
static compile_fn compile;
static logsize_fn logsize;
static log_fn getlog;
static destroy_fn destroy;

static int load_nvrtc(char *why, size_t n)
{
    static const char *const libs[] = {"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so",
                                       "/usr/local/cuda/lib64/libnvrtc.so", NULL};
    void *h = NULL;
    for (int i = 0; libs[i] && !h; i++) h = dlopen(libs[i], RTLD_NOW);
    if (!h) { snprintf(why, n, "NVRTC not found (libnvrtc.so.13/.12, /usr/local/cuda/lib64)"); return -1; }
    create = (create_fn)dlsym(h, "nvrtcCreateProgram");
    compile = (compile_fn)dlsym(h, "nvrtcCompileProgram");
    logsize = (logsize_fn)dlsym(h, "nvrtcGetProgramLogSize");
    getlog = (log_fn)dlsym(h, "nvrtcGetProgramLog");
    destroy = (destroy_fn)dlsym(h, "nvrtcDestroyProgram");
    if (!create || !compile || !logsize || !getlog || !destroy) { snprintf(why, n, "NVRTC lacks a symbol"); return -1; }
    return 0;
}

/* 0, or -1 with the first lines of NVRTC's log in msg. */
static int nvrtc_ok(const kf_candidate *c, const char *arch, char *msg, size_t n)
{
    void *prog = NULL;
    if (create(&prog, c->sources[0].text, c->sources[0].name, 0, NULL, NULL) != 0) {
        snprintf(msg, n, "nvrtcCreateProgram failed");
        return -1;
    }
    const char *opts[] = {arch, "--std=c++17", "-default-device"};
    int rc = compile(prog, 3, opts);
    if (rc != 0) {
        size_t ln = 0;
        logsize(prog, &ln);
        char *log = calloc(ln + 1, 1);
        if (log) getlog(prog, log);
        snprintf(msg, n, "%.40s: %.600s", arch, log ? log : "(no log)");
        free(log);
    }
    destroy(&prog);
    return rc == 0 ? 0 : -1;
}

static int check_point(const kf_resolved *r, const kf_bt_point *pt, char *msg, size_t n)
{
    kf_bt_fusion fusion = pt->baseline ? KF_BT_FUSE_NONE : (kf_bt_fusion)pt->fusion;
    kf_bt_plan plan;
    kf_error err = {0};
    if (kf_bt_plan_build(r, fusion, &plan, &err) != 0) { snprintf(msg, n, "plan: %.900s", err.msg); return -1; }
    kf_candidate *c = NULL;
    char *label = NULL;
    int rc = kf_bt_gen_cuda(&plan, pt, "cuda", NULL, &c, &label, &err);
    kf_bt_plan_free(&plan);
    if (rc != 0) { snprintf(msg, n, "generate: %.900s", err.msg); free(label); return -1; }
    rc = nvrtc_ok(c, "--gpu-architecture=sm_90", msg, n);
    if (rc == 0) rc = nvrtc_ok(c, "--gpu-architecture=sm_80", msg, n);
    if (rc != 0) {
        size_t l = strlen(msg);
        snprintf(msg + l, n - l, " [point %s]", label ? label : "?");
    }
    kf_candidate_free(c);
    free(label);
    return rc;
}

static int cmp(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

int main(void)
{
    const char *src = getenv("KF_SRCDIR");
    char why[256];
    if (load_nvrtc(why, sizeof why) != 0) {
        printf("1..0 # SKIP %s\n", why);
        return 0;
    }
    char *files[256];
    int nf = 0;
    const char *levels[] = {"level1", "level2"};
    for (int l = 0; l < 2; l++) {
        char dir[4096];
        snprintf(dir, sizeof dir, "%s/problems/%s", src ? src : ".", levels[l]);
        DIR *d = opendir(dir);
        struct dirent *e;
        while (d && (e = readdir(d)) && nf < 256)
            if (strstr(e->d_name, ".json") && asprintf(&files[nf], "%s/%s", dir, e->d_name) >= 0) nf++;
        if (d) closedir(d);
    }
    qsort(files, (size_t)nf, sizeof *files, cmp);
    printf("1..%d\n", nf);
    kf_device_info gpu;
    memset(&gpu, 0, sizeof gpu);
    snprintf(gpu.kind, sizeof gpu.kind, "gpu");
    snprintf(gpu.detail, sizeof gpu.detail, "compute capability 9.0 (sm_90)");
    int fails = 0;
    for (int i = 0; i < nf; i++) {
        const char *base = strrchr(files[i], '/') + 1;
        kf_error err = {0};
        kf_problem *p = kf_problem_load(files[i], &err);
        kf_resolved r;
        int idx = p ? kf_problem_find_preset(p, "small") : -1;
        char msg[1024] = "";
        int ok = p && idx >= 0 && kf_resolve(p, idx, &r, &err) == 0;
        if (!ok) snprintf(msg, sizeof msg, "load: %.900s", err.msg);
        if (ok) {
            kf_bt_point pts[1 + 2 + 1 + 8];
            int np = 0;
            kf_bt_point_default(&kf_bt_emit_cuda_c, "cuda", &r, &gpu, &pts[np++]);   /* BF16 on sm_90 */
            if (pts[0].precision != KF_BT_BF16) { snprintf(msg, sizeof msg, "the default on sm_90 is not BF16"); ok = 0; }
            pts[np] = pts[0];
            pts[np++].precision = KF_BT_TF32;
            pts[np] = pts[0];
            pts[np++].precision = KF_BT_FP32;
            kf_bt_point_baseline(&kf_bt_emit_cuda_c, "cuda", &pts[np++]);
            np += kf_bt_neighbours(&pts[0], &r, &pts[np], 8);
            for (int k = 0; k < np && ok; k++) ok = check_point(&r, &pts[k], msg, sizeof msg) == 0;
            kf_resolved_free(&r);
            /* the large preset too: its K is a multiple of 4, the cp.async
               path of the tensor-core GEMM */
            int big = kf_problem_find_preset(p, "kernelbench");
            if (ok && big >= 0 && kf_resolve(p, big, &r, &err) == 0) {
                kf_bt_point tc;
                kf_bt_point_default(&kf_bt_emit_cuda_c, "cuda", &r, &gpu, &tc);
                ok = check_point(&r, &tc, msg, sizeof msg) == 0;
                tc.precision = KF_BT_TF32;
                if (ok) ok = check_point(&r, &tc, msg, sizeof msg) == 0;
                kf_resolved_free(&r);
            }
        }
        kf_problem_free(p);
        if (ok) printf("ok %d - %s: every cuda-c candidate tried compiles for sm_90 and sm_80\n", i + 1, base);
        else {
            fails++;
            printf("not ok %d - %s: every cuda-c candidate tried compiles for sm_90 and sm_80\n# %s\n", i + 1, base, msg);
        }
        free(files[i]);
    }
    return fails ? 1 : 0;
}
