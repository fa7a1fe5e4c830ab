/*
 * test_levelzero_host.c — the levelzero plugin's hooks called directly,
 * in-process, against the Level Zero loader's null driver (run by
 * test_levelzero_host.sh with ZE_ENABLE_NULL_DRIVER=1 and the driver on
 * LD_LIBRARY_PATH).  The null driver accepts every call and does nothing,
 * so this proves the host path (listing, context, queue, module, kernels,
 * group sizes, arguments, command lists, copies, events, timestamps,
 * release) runs without an error status and without a leak or a bad access
 * under ASan, and that the plugin turns what the null driver leaves (no
 * timer resolution, no timestamps) into clear errors.  It cannot prove
 * that anything computes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/builtin/builtin.h"
#include "agent/builtin/emit/emit.h"
#include "backend/registry.h"
#include "candidate/candidate.h"
#include "kf_test.h"
#include "problem/problem.h"

#define GUARD 4096

typedef struct fixture {
    kf_plugin ze;
    kf_problem *p;
    kf_resolved r;
    kf_candidate *c;
    kf_bound b;
    kf_buffer *bufs;
    kf_buffer_set set;
    char *work;
} fixture;

static void make_buffer(kf_buffer *b, size_t bytes)
{
    b->bytes = bytes;
    b->guard_bytes = GUARD;
    b->base = aligned_alloc(GUARD, (bytes + 2 * GUARD + GUARD - 1) / GUARD * GUARD);
    memset(b->base, 0x5a, bytes + 2 * GUARD);
    b->data = (float *)(void *)(b->base + GUARD);
    b->dtype = KF_DT_F32;
}

static int setup(fixture *f, const char *problem, int baseline)
{
    memset(f, 0, sizeof *f);
    char path[4096];
    snprintf(path, sizeof path, "%s/plugins/levelzero/.libs/kf-levelzero.so", kf_test_builddir());
    kf_error err = {0};
    if (kf_plugin_open(path, &f->ze, &err) != 0) { kf_test_fail(__FILE__, __LINE__, "%s", err.msg); return -1; }
    snprintf(path, sizeof path, "%s/problems/%s", kf_test_srcdir(), problem);
    f->p = kf_problem_load(path, &err);
    KF_CHECK_MSG(f->p != NULL, "%s", err.msg);
    if (!f->p || kf_resolve(f->p, kf_problem_find_preset(f->p, "small"), &f->r, &err) != 0) return -1;
    kf_bt_point pt;
    if (baseline) kf_bt_point_baseline(&kf_bt_emit_opencl_c, "levelzero", &pt);
    else kf_bt_point_default(&kf_bt_emit_opencl_c, "levelzero", &f->r, NULL, &pt);
    kf_bt_plan plan;
    KF_CHECK(kf_bt_plan_build(&f->r, pt.baseline ? KF_BT_FUSE_NONE : (kf_bt_fusion)pt.fusion, &plan, &err) == 0);
    char *label = NULL;
    KF_CHECK(kf_bt_gen_ocl(&plan, &pt, "levelzero", NULL, &f->c, &label, &err) == 0);
    kf_bt_plan_free(&plan);
    free(label);
    if (!f->c || kf_candidate_bind(f->c, &f->r, &f->b, &err) != 0) return -1;
    const kf_problem_view *pv = &f->b.pview;
    int n = pv->n_inputs + pv->n_outputs + pv->n_scratch;
    f->bufs = calloc((size_t)n + 1, sizeof *f->bufs);
    for (int i = 0; i < pv->n_inputs; i++) make_buffer(&f->bufs[i], (size_t)pv->input_elems[i] * 4);
    for (int i = 0; i < pv->n_outputs; i++) make_buffer(&f->bufs[pv->n_inputs + i], (size_t)pv->output_elems[i] * 4);
    for (int i = 0; i < pv->n_scratch; i++)
        make_buffer(&f->bufs[pv->n_inputs + pv->n_outputs + i], (size_t)pv->scratch_bytes[i]);
    f->set = (kf_buffer_set){f->bufs, f->bufs + pv->n_inputs, f->bufs + pv->n_inputs + pv->n_outputs};
    f->work = kf_test_tmpdir();
    return 0;
}

static void teardown(fixture *f)
{
    int n = f->b.pview.n_inputs + f->b.pview.n_outputs + f->b.pview.n_scratch;
    for (int i = 0; f->bufs && i < n; i++) free(f->bufs[i].base);
    free(f->bufs);
    kf_bound_free(&f->b);
    kf_candidate_free(f->c);
    kf_resolved_free(&f->r);
    kf_problem_free(f->p);
    kf_plugin_close(&f->ze);
    free(f->work);
}

static void host_path(const char *problem, int baseline)
{
    fixture f;
    if (setup(&f, problem, baseline) != 0) return;
    KF_CHECK_INT(kf_plugin_list(&f.ze), 1);
    KF_CHECK_STR(f.ze.devices[0].name, "Null Device");
    kf_compile_request req = {&f.b.view, &f.b.pview, 0, f.work};
    kf_artifact *art = NULL;
    char *diag = NULL, *error = NULL;
    kf_status st = kf_plugin_compile(&f.ze, &req, &art, &diag);
    KF_CHECK_MSG(st == KF_OK && art, "compile: %d %s", (int)st, diag ? diag : "");
    KF_CHECK_CONTAINS(diag, "SPIR-V module of");
    free(diag);
    if (art) {
        st = kf_plugin_verify(&f.ze, &f.b.pview, art, &f.set, &error);
        KF_CHECK_MSG(st == KF_OK, "verify: %d %s", (int)st, error ? error : "");
        free(error);
        error = NULL;
        double samples[20];
        kf_profile_request pr = {1, 20, 1, &f.set};
        kf_profile_result res;
        memset(&res, 0, sizeof res);
        res.samples_s = samples;
        st = kf_plugin_profile(&f.ze, &f.b.pview, art, &pr, &res, &error);
        /* the null driver reports timerResolution 0: no time can be made */
        KF_CHECK_INT(st, KF_ERR_UNAVAILABLE);
        KF_CHECK_CONTAINS(error, "reports no timer resolution");
        free(error);
        free(res.report);
        f.ze.be->release(art);
    }
    /* a device that does not exist */
    kf_compile_request bad = {&f.b.view, &f.b.pview, 3, f.work};
    art = NULL;
    diag = NULL;
    KF_CHECK_INT(kf_plugin_compile(&f.ze, &bad, &art, &diag), KF_ERR_INVALID);
    KF_CHECK_CONTAINS(diag, "device 3 does not exist");
    free(diag);
    teardown(&f);
}

KF_TEST_TIMEOUT(fused_gemm_host_path, 120) { host_path("level2/09_Matmul_Subtract_Multiply_ReLU.json", 0); }
KF_TEST_TIMEOUT(baseline_three_launches_and_scratch, 120) { host_path("level2/12_Gemm_Multiply_LeakyReLU.json", 1); }
KF_TEST_TIMEOUT(two_gemm_problem, 120) { host_path("level2/45_Gemm_Sigmoid_LogSumExp.json", 0); }

int main(void) { return kf_test_main(); }
