/*
 * test_cuda_nvrtc.c — every built-in cuda-c candidate compiles, on any
 * machine with NVRTC and no GPU: for each problem of problems/level1 and
 * problems/level2 (small preset), the cuda-c emitter's default point for an
 * sm_90 GPU (BF16 tensor cores through wgmma where it applies), the same in
 * TF32 and in fp32, its first neighbours (the GEMM's other tiles and stages,
 * the mma.sync twin) and the op-by-op baseline, and at the kernelbench
 * preset the BF16 and TF32 points on wgmma and on mma.sync (the cp.async
 * path of the TF32 GEMM) are compiled by NVRTC for sm_80 and sm_90 with the
 * options the cuda plugin uses (plugins/cuda/cu_compile.c); a candidate
 * with a wgmma GEMM for sm_90a only, and its guard must stop it for sm_90.
 * Problem 9's wgmma candidates must call the wgmma wrapper of their tile;
 * its TMA points (tc_wgmma 2, as every wgmma point's neighbour is) must load
 * by TMA and their tensor maps pass the plugin's checks (cu_tmap.c) on the
 * bound plan; those of the GEMM + GroupNorm/BatchNorm problems (30, 33, 41, 62, 88)
 * must fuse the norm into the GEMM's epilogue (cuda_gemm_norm.c), and not
 * at fusion EPILOGUE.  The library launches ("cublas:sgemm") of
 * the baseline and of the GEMM anchor's candidate are checked by the
 * plugin's own validator (plugins/cuda/cu_blas_plan.c) against the bound
 * problem, as `kforge verify --compile-only --arch sm_90` does; a problem
 * with a GEMM must get at least one in its baseline and its anchor.  A plan
 * of library launches only (a Level-1 GEMM's baseline, an anchor) is run
 * on the CPU through the plugin's column-major mapping with cuBLAS's
 * semantics and compared with the reference.  TAP,
 * one case per problem; without NVRTC the whole test is skipped and says
 * why.
 */
#include <dirent.h>
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/builtin/builtin.h"
#include "candidate/candidate.h"
#include "cu_blas_plan.h"
#include "cu_tmap.h"
#include "problem/problem.h"
#include "reference/reference.h"
#include "run/anchor.h"

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

/* cuBLAS's sgemm semantics, column-major, in double: C = alpha op(X) op(Y)
 * + beta C with X(i,j) at x[i + j*ldx]. */
static void colmajor_sgemm(const kfcu_blas_call *c, const float *x, const float *y, float *out)
{
    for (int j = 0; j < c->n; j++)
        for (int i = 0; i < c->m; i++) {
            double s = 0;
            for (int p = 0; p < c->k; p++)
                s += (double)(c->transa ? x[p + (size_t)i * c->lda] : x[i + (size_t)p * c->lda]) *
                     (c->transb ? y[j + (size_t)p * c->ldb] : y[p + (size_t)j * c->ldb]);
            float *o = &out[i + (size_t)j * c->ldc];
            *o = (float)(c->alpha * s + (c->beta != 0 ? c->beta * *o : 0));
        }
}

/* For a plan of library launches only (a Level-1 GEMM's baseline, a GEMM
 * anchor): runs it on the CPU as cuBLAS would (the plugin's column-major
 * mapping, cu_blas_plan.c) on random inputs and compares every output with
 * the double reference.  0 (also when the plan has a kernel or is too big
 * to run naively), or -1 with msg set. */
static int libs_compute_right(const kf_candidate *c, const kf_resolved *r, char *msg, size_t n)
{
    for (int i = 0; i < c->n_launches; i++)
        if (!kfcu_blas_is_library(c->launches[i].kernel)) return 0;
    kf_bound b;
    kf_error err = {0};
    if (kf_candidate_bind(c, r, &b, &err) != 0) { snprintf(msg, n, "bind: %.900s", err.msg); return -1; }
    const kf_problem_view *pv = &b.pview;
    int nb = pv->n_inputs + pv->n_outputs + pv->n_scratch, rc = 0;
    float **buf = calloc((size_t)nb + 1, sizeof *buf);
    double **ref = calloc((size_t)pv->n_outputs + 1, sizeof *ref);
    double work = 0;
    for (int i = 0; i < b.view.n_launches && rc == 0; i++) {
        kfcu_blas_call call;
        char *e = NULL;
        if (kfcu_blas_plan(&b.view.launches[i], i, pv, &call, &e) != KF_OK) {
            snprintf(msg, n, "library launch: %.900s", e ? e : "?");
            rc = -1;
        }
        free(e);
        if (rc == 0) work += (double)call.m * call.n * call.k * (call.batched ? call.batch : 1);
    }
    if (rc != 0 || work > 5e7 || !buf || !ref) goto done;   /* too big for a naive run: the sizes were checked */
    unsigned seed = 12345;
    for (int i = 0; i < nb; i++) {
        int64_t elems = i < pv->n_inputs ? pv->input_elems[i] : i < pv->n_inputs + pv->n_outputs
                        ? pv->output_elems[i - pv->n_inputs] : pv->scratch_bytes[i - pv->n_inputs - pv->n_outputs] / 4;
        if (!(buf[i] = malloc((size_t)elems * sizeof **buf + 1))) { rc = -1; snprintf(msg, n, "out of memory"); goto done; }
        for (int64_t k = 0; k < elems; k++) {
            seed = seed * 1103515245u + 12345u;
            buf[i][k] = i < pv->n_inputs ? (float)((seed >> 9) % 2001) / 1000.0f - 1.0f : NAN;
        }
    }
    for (int i = 0; i < b.view.n_launches; i++) {
        kfcu_blas_call call;
        kfcu_blas_plan(&b.view.launches[i], i, pv, &call, NULL);
        const kf_arg *g[3] = {&call.a, &call.b, &call.c};
        float *p[3];
        for (int k = 0; k < 3; k++)
            p[k] = buf[g[k]->kind == KF_ARG_INPUT ? g[k]->index : g[k]->kind == KF_ARG_OUTPUT
                       ? pv->n_inputs + g[k]->index : pv->n_inputs + pv->n_outputs + g[k]->index];
        for (int t = 0; t < (call.batched ? call.batch : 1); t++)   /* first = the plan's B, second its A */
            colmajor_sgemm(&call, p[1] + t * call.stride_first, p[0] + t * call.stride_second, p[2] + t * call.stride_c);
    }
    if (kf_reference_outputs(r, (const float *const *)buf, ref, 1, &err) != 0) {
        snprintf(msg, n, "reference: %.900s", err.msg);
        rc = -1;
        goto done;
    }
    for (int o = 0; o < pv->n_outputs && rc == 0; o++)
        for (int64_t k = 0; k < pv->output_elems[o]; k++) {
            double got = buf[pv->n_inputs + o][k], want = ref[o][k];
            if (!(fabs(got - want) <= 1e-3 * (1 + fabs(want)))) {
                snprintf(msg, n, "the cuBLAS plan run on the CPU: output %d element %lld = %g, the reference %g", o,
                         (long long)k, got, want);
                rc = -1;
                break;
            }
        }
done:
    for (int i = 0; buf && i < nb; i++) free(buf[i]);
    for (int o = 0; ref && o < pv->n_outputs; o++) free(ref[o]);
    free(buf);
    free(ref);
    kf_bound_free(&b);
    return rc;
}

/* Binds c to r and checks its library launches with the plugin's
 * validator; the count of them in *n_lib.  0, or -1 with msg set. */
static int libs_ok(const kf_candidate *c, const kf_resolved *r, int *n_lib, char *msg, size_t n)
{
    kf_bound b;
    kf_error err = {0};
    *n_lib = 0;
    if (kf_candidate_bind(c, r, &b, &err) != 0) { snprintf(msg, n, "bind: %.900s", err.msg); return -1; }
    int rc = 0;
    for (int i = 0; i < b.view.n_launches && rc == 0; i++) {
        const kf_launch *l = &b.view.launches[i];
        if (!kfcu_blas_is_library(l->kernel)) continue;
        kfcu_blas_call call;
        char *e = NULL;
        if (kfcu_blas_plan(l, i, &b.pview, &call, &e) != KF_OK) {
            snprintf(msg, n, "library launch: %.900s", e ? e : "?");
            rc = -1;
        } else if (call.tf32) {
            snprintf(msg, n, "launch[%d] %s: the baseline and the anchor must be true FP32", i, l->kernel);
            rc = -1;
        }
        free(e);
        (*n_lib)++;
    }
    /* tensor maps (tc_wgmma 2): the plugin's own checks (plugins/cuda/cu_tmap.c) pass on the
       bound plan, as kforge verify --compile-only runs them */
    char *te = NULL;
    if (rc == 0 && b.view.n_tensor_maps > 0 && kfcu_tmap_plan(&b.view, &b.pview, &te) != KF_OK) {
        snprintf(msg, n, "tensor maps: %.900s", te ? te : "?");
        rc = -1;
    }
    free(te);
    kf_bound_free(&b);
    return rc;
}

/* A problem with a matmul or linear: its GEMM anchor on cuda-c is one
 * cublas:sgemm launch, valid for the anchor's own problem. */
static int anchor_ok(const kf_resolved *r, char *msg, size_t n)
{
    kf_gemm_anchor a;
    char why[512] = "";
    kf_error err = {0};
    int rc = kf_gemm_anchor_make(r, &kf_bt_emit_cuda_c, "cuda", &a, why, sizeof why, &err);
    if (rc == 1 && strstr(why, "no matmul or linear")) return 0;
    if (rc != 0) { snprintf(msg, n, "anchor: %.400s%.400s", why, err.msg); return -1; }
    kf_problem *ap = kf_problem_parse(a.problem_json, "anchor", &err);
    kf_resolved ar;
    int ok = ap && kf_resolve(ap, 0, &ar, &err) == 0;
    if (!ok) snprintf(msg, n, "anchor problem: %.900s", err.msg);
    int n_lib = 0;
    if (ok) {
        ok = libs_ok(a.cand, &ar, &n_lib, msg, n) == 0;
        if (ok && (n_lib != 1 || a.cand->n_launches != 1)) {
            snprintf(msg, n, "the anchor has %d launches, %d of them cuBLAS; want one cublas:sgemm", a.cand->n_launches,
                     n_lib);
            ok = 0;
        }
        if (ok) ok = nvrtc_ok(a.cand, "--gpu-architecture=sm_90", msg, n) == 0;
        if (ok) ok = libs_compute_right(a.cand, &ar, msg, n) == 0;
        kf_resolved_free(&ar);
    }
    kf_problem_free(ap);
    kf_gemm_anchor_free(&a);
    return ok ? 0 : -1;
}

static int kn_wgmma, kn_bn;   /* the cuda-c knobs tc_wgmma and tc_bn */

/* wants: text the candidate's source must contain (a wgmma wrapper), or NULL. */
static int check_point(const kf_resolved *r, const kf_bt_point *pt, const char *wants, char *msg, size_t n)
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
    if (c->n_sources > 0 && strstr(c->sources[0].text, "wgmma.mma_async")) {
        /* a wgmma GEMM: sm_90a only, and its guard stops any other target */
        rc = nvrtc_ok(c, "--gpu-architecture=sm_90a", msg, n);
        if (rc == 0 && nvrtc_ok(c, "--gpu-architecture=sm_90", msg, n) == 0) {
            snprintf(msg, n, "a wgmma candidate compiled for sm_90 (its #error guard did not stop it)");
            rc = -1;
        } else if (rc == 0 && !strstr(msg, "compile it for sm_90a")) {
            snprintf(msg + strlen(msg) / 2, n - strlen(msg) / 2, " <- not the guard's message");
            rc = -1;
        } else if (rc == 0) {
            msg[0] = '\0';
        }
        if (rc == 0 && pt->knob[kn_wgmma] < 1) {
            snprintf(msg, n, "a point with tc_wgmma 0 emitted wgmma");
            rc = -1;
        }
        /* tc_wgmma 2 loads the wgmma GEMM's tiles by TMA, 1 by cp.async;
           a GEMM whose norm fuses into its epilogue takes the cp.async
           kernel at either (only it fuses the norm, cuda_gemm_wgmma.c) */
        const char *t = c->sources[0].text;
        const int tma = strstr(t, "cp.async.bulk.tensor") != NULL;
        const int norm_fused = strstr(t, "gemm_wgmma_bf16_norm_stats") || strstr(t, "gemm_wgmma_tf32_norm_stats") ||
                               strstr(t, "gemm_wgmma_bf16_group_norm") || strstr(t, "gemm_wgmma_tf32_group_norm");
        if (rc == 0 && tma != (pt->knob[kn_wgmma] == 2 && !norm_fused)) {
            snprintf(msg, n, "a point with tc_wgmma %d %s TMA copies", pt->knob[kn_wgmma], tma ? "emitted" : "lacks");
            rc = -1;
        }
    } else {
        rc = nvrtc_ok(c, "--gpu-architecture=sm_90", msg, n);
        if (rc == 0) rc = nvrtc_ok(c, "--gpu-architecture=sm_80", msg, n);
    }
    if (rc == 0 && wants && !strstr(c->sources[0].text, wants)) {
        snprintf(msg, n, "the candidate does not call %s", wants);
        rc = -1;
    }
    int n_lib = 0, gemms = 0;
    if (rc == 0) rc = libs_ok(c, r, &n_lib, msg, n);
    for (int i = 0; i < r->problem->n_nodes; i++)
        gemms += kf_op_is_contraction(r->problem->nodes[i].op);
    if (rc == 0 && pt->baseline && gemms && !n_lib) {
        snprintf(msg, n, "the baseline of a problem with %d GEMM(s) calls no cuBLAS", gemms);
        rc = -1;
    }
    if (rc == 0 && n_lib) rc = libs_compute_right(c, r, msg, n);
    if (rc == 0 && !pt->baseline && n_lib) {
        snprintf(msg, n, "a search point calls cuBLAS (only the baseline does)");
        rc = -1;
    }
    if (rc != 0) {
        size_t l = strlen(msg);
        snprintf(msg + l, n - l, " [point %s]", label ? label : "?");
    }
    kf_candidate_free(c);
    free(label);
    return rc;
}

static int cmp(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* The GEMM + norm problems at the kernelbench preset: the kernel that a
 * wgmma point at fusion ROWS must emit for its norm (cuda_gemm_norm.c), in
 * TF32 ("tf32") or BF16; NULL for other problems. */
static const char *norm_kernel(const char *base, int tf32, char *buf, size_t n)
{
    const char *what = !strncmp(base, "30_Gemm_", 8) || !strncmp(base, "33_Gemm_", 8) || !strncmp(base, "41_Gemm_", 8)
                           ? "norm_stats"
                       : !strncmp(base, "62_Matmul_", 10) || !strncmp(base, "88_Gemm_", 8) ? "group_norm"
                                                                                            : NULL;
    if (!what) return NULL;
    snprintf(buf, n, "g0_gemm_wgmma_%s_%s(", tf32 ? "tf32" : "bf16", what);
    return buf;
}

/* The same point at fusion EPILOGUE keeps the norm's own kernels: 0 when
 * its candidate has no fused norm kernel, else -1 with msg. */
static int unfused_ok(const kf_resolved *r, const kf_bt_point *pt, char *msg, size_t n)
{
    kf_bt_point q = *pt;
    q.fusion = KF_BT_FUSE_EPILOGUE;
    kf_bt_plan plan;
    kf_error err = {0};
    if (kf_bt_plan_build(r, KF_BT_FUSE_EPILOGUE, &plan, &err) != 0) { snprintf(msg, n, "plan: %.900s", err.msg); return -1; }
    kf_candidate *c = NULL;
    int rc = kf_bt_gen_cuda(&plan, &q, "cuda", NULL, &c, NULL, &err);
    kf_bt_plan_free(&plan);
    if (rc != 0) { snprintf(msg, n, "generate: %.900s", err.msg); return -1; }
    const char *t = c->sources[0].text;
    if (strstr(t, "wgmma_tf32_norm_stats(") || strstr(t, "wgmma_bf16_norm_stats(") || strstr(t, "wgmma_tf32_group_norm(") ||
        strstr(t, "wgmma_bf16_group_norm(")) {
        snprintf(msg, n, "a point at fusion EPILOGUE fused its norm into the GEMM");
        rc = -1;
    }
    kf_candidate_free(c);
    return rc;
}

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
    kn_wgmma = kf_bt_knob_index(&kf_bt_emit_cuda_c, "tc_wgmma");
    kn_bn = kf_bt_knob_index(&kf_bt_emit_cuda_c, "tc_bn");
    if (kn_wgmma < 0 || kn_bn < 0) { printf("1..1\nnot ok 1 - the cuda-c emitter has knobs tc_wgmma and tc_bn\n"); return 1; }
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
            for (int k = 0; k < np && ok; k++) ok = check_point(&r, &pts[k], NULL, msg, sizeof msg) == 0;
            if (ok) ok = anchor_ok(&r, msg, sizeof msg) == 0;
            kf_resolved_free(&r);
            /* the large preset too: its K is a multiple of 4, the cp.async
               path of the tensor-core GEMM */
            int big = kf_problem_find_preset(p, "kernelbench");
            if (ok && big >= 0 && kf_resolve(p, big, &r, &err) == 0) {
                kf_bt_point tc;
                kf_bt_point_default(&kf_bt_emit_cuda_c, "cuda", &r, &gpu, &tc);
                /* problem 9 (x 1024 x 8192, W 8192 x 8192): the sm_90 default
                   and its TF32 twin are wgmma GEMMs (128 x 128 tiles), and
                   at 128 x 256; then BF16 and TF32 on mma.sync */
                const int p9 = !strncmp(base, "09_", 3);
                char nk[80];
                if (tc.knob[kn_wgmma] != 1) { snprintf(msg, sizeof msg, "the default on sm_90 is not wgmma"); ok = 0; }
                /* a GroupNorm/BatchNorm after the GEMM: in its epilogue
                   (30, 33, 41: two-pass split; 62, 88: in the tile) */
                const char *want = p9 ? "kf_wgmma_bf16_n128(d" : norm_kernel(base, 0, nk, sizeof nk);
                if (ok) ok = check_point(&r, &tc, want, msg, sizeof msg) == 0;
                tc.precision = KF_BT_TF32;
                want = p9 ? "kf_wgmma_tf32_n128(d" : norm_kernel(base, 1, nk, sizeof nk);
                if (ok) ok = check_point(&r, &tc, want, msg, sizeof msg) == 0;
                if (ok && norm_kernel(base, 1, nk, sizeof nk)) ok = unfused_ok(&r, &tc, msg, sizeof msg) == 0;
                /* and at 128 x 256, the tile of the TF32 point after a failed BF16 one */
                kf_bt_point wide = tc;
                wide.knob[kn_bn] = 256;
                if (ok && norm_kernel(base, 1, nk, sizeof nk))
                    ok = check_point(&r, &wide, norm_kernel(base, 1, nk, sizeof nk), msg, sizeof msg) == 0;
                tc.knob[kn_bn] = 256;   /* m64n256 (problem 9 only: NVRTC is slow on them) */
                if (ok && p9) ok = check_point(&r, &tc, "kf_wgmma_tf32_n256(d", msg, sizeof msg) == 0;
                tc.precision = KF_BT_BF16;
                if (ok && p9) ok = check_point(&r, &tc, "kf_wgmma_bf16_n256(d", msg, sizeof msg) == 0;
                /* the same tiles loaded by TMA (tc_wgmma 2), BF16 at 128 x 256 and TF32 at 128 x 128 */
                tc.knob[kn_wgmma] = 2;
                if (ok && p9) ok = check_point(&r, &tc, "kf_tma_2d(sa + 16384u, &tm_1", msg, sizeof msg) == 0;
                tc.knob[kn_bn] = 128;
                tc.precision = KF_BT_TF32;
                if (ok && p9) ok = check_point(&r, &tc, "kf_wgmma_tf32_n128(d", msg, sizeof msg) == 0;
                tc.precision = KF_BT_BF16;
                /* the mma.sync kernels on the same device */
                tc.knob[kn_bn] = 128;
                tc.knob[kn_wgmma] = 0;
                if (ok) ok = check_point(&r, &tc, NULL, msg, sizeof msg) == 0;
                tc.precision = KF_BT_TF32;
                if (ok) ok = check_point(&r, &tc, NULL, msg, sizeof msg) == 0;
                /* the baseline at the size the H100 runs: cuBLAS's int
                   limits and the buffers hold there too */
                kf_bt_point_baseline(&kf_bt_emit_cuda_c, "cuda", &tc);
                if (ok) ok = check_point(&r, &tc, NULL, msg, sizeof msg) == 0;
                if (ok) ok = anchor_ok(&r, msg, sizeof msg) == 0;
                kf_resolved_free(&r);
            }
        }
        kf_problem_free(p);
        if (ok) printf("ok %d - %s: every cuda-c candidate tried compiles for sm_90 and sm_80, its cuBLAS launches "
                       "are valid\n", i + 1, base);
        else {
            fails++;
            printf("not ok %d - %s: every cuda-c candidate tried compiles for sm_90 and sm_80\n# %s\n", i + 1, base, msg);
        }
        free(files[i]);
    }
    return fails ? 1 : 0;
}
