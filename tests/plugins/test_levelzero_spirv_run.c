/*
 * test_levelzero_spirv_run.c — the SPIR-V the levelzero plugin hands to a
 * driver computes the right thing.  No Intel GPU is reachable, so for each
 * problem of problems/level1 and problems/level2 (small preset) the
 * opencl-c emitter's default candidate is compiled by the levelzero
 * plugin's compile_offline (clang -> llvm-spirv -> spirv-val), and that
 * module, as a kernel.spv candidate, is evaluated by the opencl backend on
 * an OpenCL runtime that loads SPIR-V (clCreateProgramWithIL): Intel's
 * OpenCL CPU runtime from PyPI (intel-opencl-rt), which
 * test_levelzero_spirv_run.sh points OCL_ICD_VENDORS at.  Every evaluation
 * is KForge's full one (sandboxed worker, 5 trials on fresh inputs, guard
 * bands, the reference comparison), and must pass.  TAP, one case per
 * problem.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent/builtin/builtin.h"
#include "agent/builtin/emit/emit.h"
#include "backend/registry.h"
#include "candidate/candidate.h"
#include "eval/eval.h"
#include "problem/problem.h"

static kf_plugin ze;
static char work[] = "/tmp/kf-ze-run-XXXXXX";

/* The problem's default opencl-c candidate as a SPIR-V candidate for the
 * opencl backend; NULL with msg set. */
static kf_candidate *spirv_candidate(const kf_resolved *r, char *msg, size_t n)
{
    kf_bt_point pt;
    kf_bt_point_default(&kf_bt_emit_opencl_c, "levelzero", r, NULL, &pt);
    kf_bt_plan plan;
    kf_error err = {0};
    if (kf_bt_plan_build(r, (kf_bt_fusion)pt.fusion, &plan, &err) != 0) {
        snprintf(msg, n, "plan: %.900s", err.msg);
        return NULL;
    }
    kf_candidate *c = NULL;
    char *label = NULL;
    int rc = kf_bt_gen_ocl(&plan, &pt, "levelzero", NULL, &c, &label, &err);
    kf_bt_plan_free(&plan);
    free(label);
    if (rc != 0) {
        snprintf(msg, n, "generate: %.900s", err.msg);
        return NULL;
    }
    kf_bound b;
    if (kf_candidate_bind(c, r, &b, &err) != 0) {
        snprintf(msg, n, "bind: %.900s", err.msg);
        kf_candidate_free(c);
        return NULL;
    }
    kf_compile_request req = {&b.view, &b.pview, -1, work};
    void *bin = NULL;
    size_t size = 0;
    char *report = NULL, *diag = NULL;
    kf_status st = kf_plugin_compile_offline(&ze, &req, NULL, &bin, &size, &report, &diag);
    kf_bound_free(&b);
    if (st != KF_OK) {
        snprintf(msg, n, "compile_offline: %.900s", diag ? diag : "?");
        free(diag);
        free(report);
        kf_candidate_free(c);
        return NULL;
    }
    free(diag);
    free(report);
    for (int i = 0; i < c->n_sources; i++) {
        free(c->sources[i].name);
        free(c->sources[i].text);
    }
    c->n_sources = 0;
    free(c->backend);
    c->backend = strdup("opencl");
    rc = kf_candidate_add_source_bytes(c, "kernel.spv", bin, size);
    free(bin);
    if (rc != 0 || !c->backend) {
        snprintf(msg, n, "out of memory");
        kf_candidate_free(c);
        return NULL;
    }
    return c;
}

static int cmp(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

int main(void)
{
    const char *src = getenv("KF_SRCDIR"), *build = getenv("KF_BUILDDIR");
    char path[4096];
    snprintf(path, sizeof path, "%s/plugins/levelzero/.libs/kf-levelzero.so", build ? build : ".");
    kf_error err = {0};
    if (kf_plugin_open(path, &ze, &err) != 0) {
        printf("1..0 # SKIP the levelzero plugin is not built (%s)\n", err.msg);
        return 0;
    }
    kf_registry *reg = kf_registry_open(1, &err);
    kf_plugin *ocl = reg ? kf_registry_find(reg, "opencl") : NULL;
    int dev = -1;
    for (int i = 0; ocl && i < ocl->n_devices; i++)
        if (strstr(ocl->devices[i].detail, "Intel(R) OpenCL") || strstr(ocl->devices[i].detail, "Intel")) dev = i;
    if (!ocl || dev < 0) {
        printf("1..1\nnot ok 1 - no Intel OpenCL device (set OCL_ICD_VENDORS to intel-opencl-rt's icd directory)\n");
        return 1;
    }
    if (!mkdtemp(work)) { printf("Bail out! mkdtemp failed\n"); return 1; }
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
    printf("1..%d\n# device %d of opencl: %s (%s)\n", nf, dev, ocl->devices[dev].name, ocl->devices[dev].detail);
    int fails = 0;
    for (int i = 0; i < nf; i++) {
        const char *base = strrchr(files[i], '/') + 1;
        kf_problem *p = kf_problem_load(files[i], &err);
        kf_resolved r;
        int idx = p ? kf_problem_find_preset(p, "small") : -1;
        char msg[1200] = "";
        int ok = p && idx >= 0 && kf_resolve(p, idx, &r, &err) == 0;
        if (!ok) snprintf(msg, sizeof msg, "load: %.900s", err.msg);
        if (ok) {
            kf_candidate *c = spirv_candidate(&r, msg, sizeof msg);
            ok = c != NULL;
            if (ok) {
                kf_eval_opts o;
                kf_eval_opts_default(&o);
                o.device = dev;
                kf_eval_result res;
                ok = kf_evaluate(ocl, &r, c, &o, 0, &res, &err) == 0;
                if (!ok) snprintf(msg, sizeof msg, "evaluate: %.900s", err.msg);
                else {
                    ok = res.verdict == KF_PASS;
                    snprintf(msg, sizeof msg, "%.1100s", res.summary ? res.summary : "?");
                    kf_eval_result_free(&res);
                }
                kf_candidate_free(c);
            }
            kf_resolved_free(&r);
        }
        kf_problem_free(p);
        if (ok) printf("ok %d - %s: its SPIR-V passes on Intel OpenCL: %s\n", i + 1, base, msg);
        else {
            fails++;
            printf("not ok %d - %s: its SPIR-V passes on Intel OpenCL\n# %s\n", i + 1, base, msg);
        }
        fflush(stdout);
        free(files[i]);
    }
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", work);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", work);
    kf_registry_close(reg);
    kf_plugin_close(&ze);
    return fails ? 1 : 0;
}
