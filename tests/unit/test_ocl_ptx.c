/*
 * test_ocl_ptx.c — the OpenCL C emitter's tensor-core point (TF32 mma.sync
 * through inline PTX, core/agent/builtin/emit/ocl_gemm_ptx.c): offered only
 * to an NVIDIA OpenCL device with TF32 matrix units (what plugins/opencl
 * reports from compute capability 8.0 on), never to PoCL or another
 * vendor; the kernel it writes; its place in the search (one step back to
 * fp32, never offered from fp32).  The kernels need NVIDIA's compiler, so
 * here the text and the launch plan are checked; the GPU machine runs them
 * (bench/results/h100-opencl-ptx-2026-11-25).
 */
#include "../kf_test.h"
#include "agent/builtin/builtin.h"
#include "agent/builtin/emit/ocl_knobs.h"
#include "backend/registry.h"
#include "candidate/candidate.h"
#include "problem/problem.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static kf_problem *prob;
static kf_resolved res;

static void open_problem(const char *rel, const char *preset)
{
    char path[4096];
    kf_error err = {0};
    snprintf(path, sizeof path, "%s/problems/%s", kf_test_srcdir(), rel);
    prob = kf_problem_load(path, &err);
    KF_CHECK_MSG(prob != NULL, "%s", err.msg);
    int pi = kf_problem_find_preset(prob, preset);
    KF_CHECK_MSG(pi >= 0, "%s has no preset %s", rel, preset);
    KF_CHECK_MSG(kf_resolve(prob, pi, &res, &err) == 0, "%s", err.msg);
}

static void close_problem(void)
{
    kf_resolved_free(&res);
    kf_problem_free(prob);
}

/* What plugins/opencl reports for an H100 under NVIDIA's OpenCL driver. */
static void nvidia_device(kf_device_info *d, uint32_t mu)
{
    memset(d, 0, sizeof *d);
    d->struct_size = sizeof *d;
    snprintf(d->name, sizeof d->name, "NVIDIA H100 80GB HBM3");
    snprintf(d->kind, sizeof d->kind, "gpu");
    snprintf(d->detail, sizeof d->detail,
             "opencl device 0: platform 'NVIDIA CUDA' (OpenCL 3.0 CUDA 13.0.88), vendor 'NVIDIA Corporation', "
             "driver 580.159.04; type gpu, 132 compute units; NVIDIA compute capability 9.0, warp 32");
    snprintf(d->arch, sizeof d->arch, "sm_90");
    d->warp_size = 32;
    d->max_work_group = 1024;
    d->matrix_units = mu;
}

static kf_candidate *gen(const kf_bt_point *pt, const kf_device_info *dev, char **label, kf_error *err)
{
    kf_bt_plan plan;
    KF_CHECK_MSG(kf_bt_plan_build(&res, (kf_bt_fusion)pt->fusion, &plan, err) == 0, "plan: %s", err->msg);
    kf_candidate *c = NULL;
    int rc = kf_bt_gen_ocl(&plan, pt, "opencl", dev, &c, label, err);
    kf_bt_plan_free(&plan);
    return rc == 0 ? c : NULL;
}

KF_TEST(nvidia_default_is_tf32_mma_through_inline_ptx)
{
    open_problem("level2/09_Matmul_Subtract_Multiply_ReLU.json", "kernelbench");
    kf_device_info dev;
    nvidia_device(&dev, KF_MU_TF32 | KF_MU_BF16);
    KF_CHECK_INT(kf_bt_ocl_ptx_mma(&dev), 1);
    kf_bt_point pt;
    kf_bt_point_default(&kf_bt_emit_opencl_c, "opencl", &res, &dev, &pt);
    KF_CHECK_INT(pt.precision, KF_BT_TF32);
    char *label = NULL;
    kf_error err = {0};
    kf_candidate *c = gen(&pt, &dev, &label, &err);
    KF_CHECK_MSG(c != NULL, "%s", err.msg);
    KF_CHECK_CONTAINS(label, "tf32-tc");
    KF_CHECK_INT(c->n_sources, 1);
    const char *s = c->sources[0].text;
    KF_CHECK_CONTAINS(s, "asm volatile(\"mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 \"");
    KF_CHECK_CONTAINS(s, "asm(\"cvt.rna.tf32.f32 %0, %1;\" : \"=r\"(t) : \"f\"(x));");
    /* K = 8192 is a multiple of 4: both operands (W is (N, K)) stream in
       with cp.async, two stages, rounded to TF32 as fragments are read */
    KF_CHECK_CONTAINS(s, "__local float As[2][128][20] __attribute__((aligned(16)));");
    KF_CHECK_CONTAINS(s, "kf_cp16(&As[st][r][kq], gr < M && gk < K ? A + (size_t)gr * K + gk : A, gr < M && gk < K);");
    KF_CHECK_CONTAINS(s, "kf_cp16(&Bs[st][r][kq], gn < N && gk < K ? Bm + (size_t)gn * K + gk : Bm, gn < N && gk < K);");
    KF_CHECK_CONTAINS(s, "asm volatile(\"cp.async.wait_group 1;\");");
    KF_CHECK_CONTAINS(s, "a[i][0] = kf_tf32u(As[st][r][kk + tig]);");
    KF_CHECK_CONTAINS(s, "const int M = 1024, N = 8192, K = 8192;");
    KF_CHECK(strstr(s, "__syncthreads") == NULL && strstr(s, "threadIdx") == NULL);   /* OpenCL C, not CUDA */
    /* the whole problem (GEMM, subtract, multiply, ReLU) is one kernel */
    KF_CHECK_INT(c->n_launches, 1);
    const kf_cand_launch *l = &c->launches[0];
    KF_CHECK_STR(l->kernel, "g0_gemm_ptx_epilogue");
    KF_CHECK_INT(l->work_dim, 2);
    KF_CHECK_STR(l->global[0], "16384");   /* 8192 / 128 tiles x 256 work-items */
    KF_CHECK_STR(l->global[1], "8");       /* 1024 / 128 */
    KF_CHECK_STR(l->local[0], "256");
    KF_CHECK_CONTAINS(s, "reqd_work_group_size(256, 1, 1)");
    free(label);
    kf_candidate_free(c);
    close_problem();
}

KF_TEST(odd_k_loads_scalars_and_edges_are_guarded)
{
    open_problem("level2/09_Matmul_Subtract_Multiply_ReLU.json", "small");
    kf_device_info dev;
    nvidia_device(&dev, KF_MU_TF32 | KF_MU_BF16);
    kf_bt_point pt;
    kf_bt_point_default(&kf_bt_emit_opencl_c, "opencl", &res, &dev, &pt);
    kf_error err = {0};
    kf_candidate *c = gen(&pt, &dev, NULL, &err);
    KF_CHECK_MSG(c != NULL, "%s", err.msg);
    const char *s = c->sources[0].text;
    KF_CHECK_CONTAINS(s, "mma.sync.aligned.m16n8k8");
    int64_t K = -1;
    for (int d = 0; d < prob->n_dims; d++)
        if (!strcmp(prob->dim_names[d], "K")) K = res.dims[d];
    KF_CHECK(K > 0);
    if (K % 4)   /* no cp.async: rows need not be 16-byte aligned */
        KF_CHECK(strstr(s, "kf_cp16(&") == NULL && strstr(s, "kf_tf32((gr < M && gk < K) ? A[") != NULL &&
                 strstr(s, "__local float As[128][36];") != NULL);
    else
        KF_CHECK_CONTAINS(s, "kf_cp16(&As[st]");
    KF_CHECK_CONTAINS(s, "if (m >= M || n >= N) continue;");
    kf_candidate_free(c);
    close_problem();
}

KF_TEST(tf32_steps_back_to_fp32_and_fp32_never_offers_it)
{
    open_problem("level2/09_Matmul_Subtract_Multiply_ReLU.json", "small");
    kf_device_info dev;
    nvidia_device(&dev, KF_MU_TF32 | KF_MU_BF16);
    kf_bt_point pt, nb[32];
    kf_bt_point_default(&kf_bt_emit_opencl_c, "opencl", &res, &dev, &pt);
    KF_CHECK_INT(pt.precision, KF_BT_TF32);
    int n = kf_bt_neighbours(&pt, &res, nb, 32);
    int fp32 = 0;
    for (int i = 0; i < n; i++) {
        KF_CHECK(nb[i].precision != KF_BT_TF32 || nb[i].fusion != pt.fusion);
        fp32 += nb[i].precision == KF_BT_FP32;
    }
    KF_CHECK(fp32 >= 1);
    kf_bt_point q = pt;
    KF_CHECK_INT(kf_bt_point_conservative(&q), 1);
    KF_CHECK_INT(q.precision, KF_BT_FP32);
    n = kf_bt_neighbours(&q, &res, nb, 32);
    KF_CHECK(n > 0);
    for (int i = 0; i < n; i++) KF_CHECK(nb[i].precision != KF_BT_TF32);
    close_problem();
}

KF_TEST(other_devices_never_get_the_point)
{
    open_problem("level2/09_Matmul_Subtract_Multiply_ReLU.json", "small");
    kf_device_info dev;
    kf_bt_point pt;
    /* NVIDIA before compute capability 8.0: no TF32 reported */
    nvidia_device(&dev, 0);
    KF_CHECK_INT(kf_bt_ocl_ptx_mma(&dev), 0);
    kf_bt_point_default(&kf_bt_emit_opencl_c, "opencl", &res, &dev, &pt);
    KF_CHECK_INT(pt.precision, KF_BT_FP32);
    /* another vendor claiming TF32 units: inline PTX is NVIDIA's */
    nvidia_device(&dev, KF_MU_TF32);
    snprintf(dev.detail, sizeof dev.detail, "opencl device 0: platform 'Other', vendor 'Advanced Micro Devices, Inc.'");
    KF_CHECK_INT(kf_bt_ocl_ptx_mma(&dev), 0);
    /* a core-side struct too small to hold matrix_units */
    nvidia_device(&dev, KF_MU_TF32);
    dev.struct_size = 64;
    KF_CHECK_INT(kf_bt_ocl_ptx_mma(&dev), 0);
    KF_CHECK_INT(kf_bt_ocl_ptx_mma(NULL), 0);
    /* the cuda-c emitter shares the OpenCL defaults but keeps its own precision choice */
    nvidia_device(&dev, KF_MU_TF32 | KF_MU_BF16);
    kf_bt_point_default(&kf_bt_emit_cuda_c, "cuda", &res, &dev, &pt);
    KF_CHECK(pt.precision != KF_BT_TF32);

    /* the real OpenCL device here (PoCL): no matrix units, fp32 default,
       and a TF32 point given by hand is refused with the reason */
    kf_error err = {0};
    kf_registry *reg = kf_registry_open(1, &err);
    KF_CHECK_MSG(reg != NULL, "registry: %s", err.msg);
    kf_plugin *ocl = kf_registry_find(reg, "opencl");
    KF_CHECK_MSG(ocl != NULL && ocl->probe_status == KF_OK && ocl->n_devices > 0, "no usable opencl plugin");
    const kf_device_info *pocl = &ocl->devices[0];
    KF_CHECK_INT((int)pocl->matrix_units, 0);
    KF_CHECK_INT(kf_bt_ocl_ptx_mma(pocl), 0);
    KF_CHECK(strstr(pocl->detail, "compute capability") == NULL);
    kf_bt_point_default(&kf_bt_emit_opencl_c, "opencl", &res, pocl, &pt);
    KF_CHECK_INT(pt.precision, KF_BT_FP32);
    pt.precision = KF_BT_TF32;
    char *label = NULL;
    kf_candidate *c = gen(&pt, pocl, &label, &err);
    KF_CHECK(c == NULL && label == NULL);
    KF_CHECK_CONTAINS(err.msg, "OpenCL point: precision 2 (TF32 tensor cores through inline PTX) needs an NVIDIA "
                               "OpenCL device of compute capability 8.0 or later, not ");
    c = gen(&pt, NULL, NULL, &err);
    KF_CHECK(c == NULL);
    KF_CHECK_CONTAINS(err.msg, "or later, not none (no device given); use 0 (fp32) or 1 (fp16 storage)");
    kf_registry_close(reg);
    close_problem();
}

/* A batched GEMM (tests/golden/problems/bmm_broadcast.json: y2 = C @ B with
 * C (S, T, M, K) and B (T, K, N) broadcast over S) through inline PTX: the
 * third grid dimension is the batch, split into its dims innermost first,
 * each adding its own strides of A and B (B's is 0 over S), C dense. */
KF_TEST(batched_gemm_offsets_per_batch_dim)
{
    char path[4096];
    kf_error err = {0};
    snprintf(path, sizeof path, "%s/tests/golden/problems/bmm_broadcast.json", kf_test_srcdir());
    prob = kf_problem_load(path, &err);
    KF_CHECK_MSG(prob != NULL, "%s", err.msg);
    KF_CHECK_MSG(kf_resolve(prob, kf_problem_find_preset(prob, "small"), &res, &err) == 0, "%s", err.msg);
    kf_device_info dev;
    nvidia_device(&dev, KF_MU_TF32 | KF_MU_BF16);
    kf_bt_point pt;
    kf_bt_point_default(&kf_bt_emit_opencl_c, "opencl", &res, &dev, &pt);
    pt.precision = KF_BT_TF32;
    char *label = NULL;
    kf_candidate *c = gen(&pt, &dev, &label, &err);
    KF_CHECK_MSG(c != NULL, "%s", err.msg);
    const char *s = c->sources[0].text;
    KF_CHECK_CONTAINS(s, "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32");
    /* y1 = A @ B: batch T = 3, A's stride M*K = 35, B's K*N = 28 */
    KF_CHECK_CONTAINS(s, "    const int bt = get_group_id(2);\n"
                         "    size_t a_off = 0, b_off = 0;\n"
                         "    int rem = bt, bc;\n"
                         "    bc = rem % 3; rem /= 3; a_off += (size_t)bc * 35; b_off += (size_t)bc * 28;\n"
                         "    const size_t c_off = (size_t)bt * M * N;\n"
                         "    __global const float *A = g_A + a_off;\n");
    /* y2 = C @ B: T innermost, then S (C's stride T*M*K = 105, B's 0) */
    KF_CHECK_CONTAINS(s, "    bc = rem % 3; rem /= 3; a_off += (size_t)bc * 35; b_off += (size_t)bc * 28;\n"
                         "    bc = rem % 2; rem /= 2; a_off += (size_t)bc * 105; b_off += (size_t)bc * 0;\n"
                         "    const size_t c_off = (size_t)bt * M * N;\n"
                         "    __global const float *A = g_C + a_off;\n");
    KF_CHECK_INT(c->n_launches, 2);
    KF_CHECK_STR(c->launches[1].global[2], "6");   /* S * T batches of y2 */
    free(label);
    kf_candidate_free(c);
    close_problem();
}

int main(void)
{
    return kf_test_main();
}
