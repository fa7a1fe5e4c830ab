/*
 * test_opencl.c — drives the OpenCL plugin's vtable directly (dlopen of
 * $KF_BUILDDIR/plugins/opencl/.libs/kf-opencl.so) with guarded buffers
 * allocated here, so it does not depend on the evaluation engine.
 * Runs on whatever OpenCL device 0 is (PoCL's CPU device in CI).
 */
#include "../kf_test.h"
#include "kforge-plugin.h"

#include <dlfcn.h>
#include <glob.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define GUARD 4096
#define CANARY 0xA5

/* ----------------------------------------------------------- helpers */

static const kf_backend *load_plugin(void)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/plugins/opencl/.libs/kf-opencl.so", kf_test_builddir());
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    KF_CHECK_MSG(h != NULL, "dlopen %s: %s", path, dlerror());
    const kf_backend *be = dlsym(h, "kforge_backend_opencl");
    KF_CHECK_MSG(be != NULL, "no kforge_backend_opencl in %s", path);
    return be;
}

/* A guarded buffer of n floats: canary guards, data filled with `fill`. */
static kf_buffer gbuf(size_t n, float fill)
{
    kf_buffer b;
    b.bytes = n * sizeof(float);
    b.guard_bytes = GUARD;
    b.base = aligned_alloc(4096, (b.bytes + 2 * GUARD + 4095) / 4096 * 4096);  /* C11: size multiple of alignment */
    KF_CHECK(b.base != NULL);
    memset(b.base, CANARY, GUARD);
    memset(b.base + GUARD + b.bytes, CANARY, GUARD);
    b.data = (float *)(void *)(b.base + GUARD);
    for (size_t i = 0; i < n; i++) b.data[i] = fill;
    return b;
}

static int guards_intact(const kf_buffer *b)
{
    for (size_t i = 0; i < GUARD; i++)
        if (b->base[i] != CANARY || b->base[GUARD + b->bytes + i] != CANARY) return 0;
    return 1;
}

/* A one-source candidate and a problem view of n_in inputs, n_out outputs
 * and n_scratch scratch buffers, all of `elems` floats. */
typedef struct tcase {
    kf_source src;
    kf_candidate_view cv;
    kf_problem_view pv;
    kf_compile_request req;
    int64_t elems[8];
    int64_t scratch_bytes[4];
} tcase;

static void tcase_init(tcase *t, const char *text, const kf_launch *launches, int n_launches,
                       int n_in, int n_out, int n_scratch, int64_t elems)
{
    memset(t, 0, sizeof *t);
    t->src.name = "kernel.cl";
    t->src.text = text;
    t->cv.backend = "opencl";
    t->cv.n_sources = 1;
    t->cv.sources = &t->src;
    t->cv.build_options = "";
    t->cv.n_launches = n_launches;
    t->cv.launches = launches;
    for (int i = 0; i < 8; i++) t->elems[i] = elems;
    for (int i = 0; i < 4; i++) t->scratch_bytes[i] = elems * 4;
    t->pv.name = "test";
    t->pv.n_inputs = n_in;
    t->pv.input_elems = t->elems;
    t->pv.n_outputs = n_out;
    t->pv.output_elems = t->elems;
    t->pv.n_scratch = n_scratch;
    t->pv.scratch_bytes = t->scratch_bytes;
    t->req.candidate = &t->cv;
    t->req.problem = &t->pv;
    t->req.device = 0;
    t->req.work_dir = kf_test_tmpdir();
}

#define N 1000   /* not a multiple of the work-group size */

static const char VADD[] =
    "__kernel void vadd(__global const float *a, __global const float *b,\n"
    "                   __global float *c, int n)\n"
    "{\n"
    "    int i = get_global_id(0);\n"
    "    if (i < n) c[i] = a[i] + b[i];\n"
    "}\n";

static const kf_arg VADD_ARGS[] = {
    {.kind = KF_ARG_INPUT, .index = 0}, {.kind = KF_ARG_INPUT, .index = 1},
    {.kind = KF_ARG_OUTPUT, .index = 0}, {.kind = KF_ARG_INT, .ival = N}};

static kf_launch vadd_launch(const char *name)
{
    kf_launch l = {.kernel = name, .work_dim = 1, .global = {1024, 1, 1}, .local = {64, 1, 1},
                   .n_args = 4, .args = VADD_ARGS};
    return l;
}

/* Compiles `text` with one vadd-shaped launch of kernel `kname`. */
static kf_status compile_vadd(const kf_backend *be, const char *text, const char *kname,
                              kf_artifact **art, char **diag)
{
    static kf_launch l;
    static tcase t;
    l = vadd_launch(kname);
    tcase_init(&t, text, &l, 1, 2, 1, 0, N);
    *art = NULL;
    *diag = NULL;
    return be->compile(&t.req, art, diag);
}

/* Runs a vadd-shaped artifact once on fresh buffers: a = i, b = 2i, c NaN. */
typedef struct vbufs { kf_buffer in[2], out[1]; kf_buffer_set set; } vbufs;

static void vbufs_init(vbufs *v)
{
    v->in[0] = gbuf(N, 0);
    v->in[1] = gbuf(N, 0);
    v->out[0] = gbuf(N, NAN);
    for (int i = 0; i < N; i++) { v->in[0].data[i] = (float)i; v->in[1].data[i] = 2.0f * (float)i; }
    v->set.inputs = v->in;
    v->set.outputs = v->out;
    v->set.scratch = NULL;
}

static void vbufs_free(vbufs *v)
{
    free(v->in[0].base);
    free(v->in[1].base);
    free(v->out[0].base);
}

/* ------------------------------------------------------------- probe */

KF_TEST(exports_the_vtable)
{
    const kf_backend *be = load_plugin();
    KF_CHECK_STR(be->name, "opencl");
    KF_CHECK_STR(be->language, "opencl-c");
    KF_CHECK_INT(be->abi_major, KF_PLUGIN_ABI_MAJOR);
    KF_CHECK_INT(be->struct_size, sizeof(kf_backend));
    KF_CHECK_INT(be->caps, KF_CAP_KERNEL_PLAN | KF_CAP_DEVICE_TIMER);
    KF_CHECK(be->probe && be->compile && be->verify && be->profile && be->release);
    for (size_t i = 0; i < sizeof be->reserved / sizeof be->reserved[0]; i++) KF_CHECK(be->reserved[i] == NULL);
}

KF_TEST(probe_finds_a_device)
{
    const kf_backend *be = load_plugin();
    kf_device_info devs[8];
    int n = -1;
    char why[512] = "";
    kf_status st = be->probe(devs, 8, &n, why, sizeof why);
    KF_CHECK_MSG(st == KF_OK, "probe: %d %s", st, why);
    KF_CHECK(n >= 1);
    KF_CHECK(devs[0].name[0] != 0);
    KF_CHECK(strcmp(devs[0].kind, "cpu") == 0 || strcmp(devs[0].kind, "gpu") == 0 ||
             strcmp(devs[0].kind, "accelerator") == 0);
    KF_CHECK(devs[0].peak_flops > 1e9);
    KF_CHECK_INT(devs[0].peak_flops_measured, 0);
    KF_CHECK_CONTAINS(devs[0].detail, "estimated");
    KF_CHECK_CONTAINS(devs[0].detail, "compute units");
    KF_CHECK_CONTAINS(devs[0].detail, "OpenCL C");
    KF_CHECK_CONTAINS(devs[0].detail, "local memory");
    KF_CHECK_CONTAINS(devs[0].detail, "max work-group");
    /* bandwidth measured with a 64 MiB copy */
    KF_CHECK_INT(devs[0].peak_bw_measured, 1);
    KF_CHECK(devs[0].peak_bytes_per_s > 1e8);
    KF_CHECK_CONTAINS(devs[0].detail, "measured");
    KF_CHECK(devs[0].cache_bytes_per_s >= devs[0].peak_bytes_per_s);
}

KF_TEST(probe_estimates_only_when_measuring_is_off)
{
    setenv("KFORGE_OPENCL_MEASURE_BW", "0", 1);
    const kf_backend *be = load_plugin();
    kf_device_info devs[8];
    int n = 0;
    char why[512] = "";
    KF_CHECK_INT(be->probe(devs, 8, &n, why, sizeof why), KF_OK);
    KF_CHECK_INT(devs[0].peak_bw_measured, 0);
    KF_CHECK(devs[0].peak_bytes_per_s == 0);
    KF_CHECK_CONTAINS(devs[0].detail, "not measured");
}

KF_TEST(probe_without_platform_is_unavailable)
{
    char *empty = kf_test_tmpdir();
    setenv("OCL_ICD_VENDORS", empty, 1);
    unsetenv("OCL_ICD_FILENAMES");   /* set on some images (the NVIDIA machine's) */
    const kf_backend *be = load_plugin();
    kf_device_info devs[4];
    int n = 7;
    char why[512] = "";
    KF_CHECK_INT(be->probe(devs, 4, &n, why, sizeof why), KF_ERR_UNAVAILABLE);
    KF_CHECK_INT(n, 0);
    KF_CHECK_CONTAINS(why, "no OpenCL platform found");
    KF_CHECK_CONTAINS(why, "OCL_ICD_VENDORS");
    KF_CHECK_CONTAINS(why, "/etc/OpenCL/vendors");
    /* compile says the same instead of crashing */
    kf_artifact *art;
    char *diag;
    KF_CHECK_INT(compile_vadd(be, VADD, "vadd", &art, &diag), KF_ERR_UNAVAILABLE);
    KF_CHECK_CONTAINS(diag, "no OpenCL platform found");
    free(diag);
}

/* ----------------------------------------------------------- compile */

KF_TEST_TIMEOUT(build_error_returns_the_log, 120)
{
    const kf_backend *be = load_plugin();
    kf_artifact *art;
    char *diag;
    const char *bad = "__kernel void vadd(__global float *a) { a[0] = undeclared_thing + 1.0f; }\n";
    KF_CHECK_INT(compile_vadd(be, bad, "vadd", &art, &diag), KF_ERR_COMPILE);
    KF_CHECK(art == NULL);
    KF_CHECK_CONTAINS(diag, "error");
    KF_CHECK_CONTAINS(diag, "undeclared_thing");
    KF_CHECK_CONTAINS(diag, "CL_BUILD_PROGRAM_FAILURE");
    free(diag);
}

KF_TEST_TIMEOUT(missing_kernel_lists_the_defined_ones, 120)
{
    const kf_backend *be = load_plugin();
    kf_artifact *art;
    char *diag;
    KF_CHECK_INT(compile_vadd(be, VADD, "vaddd", &art, &diag), KF_ERR_INVALID);
    KF_CHECK(art == NULL);
    KF_CHECK_CONTAINS(diag, "no __kernel named 'vaddd'");
    KF_CHECK_CONTAINS(diag, "kernels it defines: vadd");
    free(diag);
}

KF_TEST_TIMEOUT(argument_count_mismatch_is_reported, 120)
{
    const kf_backend *be = load_plugin();
    kf_launch l = vadd_launch("vadd");
    l.n_args = 3;
    tcase t;
    tcase_init(&t, VADD, &l, 1, 2, 1, 0, N);
    kf_artifact *art = NULL;
    char *diag = NULL;
    KF_CHECK_INT(be->compile(&t.req, &art, &diag), KF_ERR_INVALID);
    KF_CHECK_CONTAINS(diag, "takes 4 arguments but the plan binds 3");
    free(diag);
}

KF_TEST(bad_requests_are_refused_before_building)
{
    const kf_backend *be = load_plugin();
    kf_launch l = vadd_launch("vadd");
    tcase t;
    kf_artifact *art = NULL;
    char *diag = NULL;
    tcase_init(&t, VADD, &l, 1, 2, 1, 0, N);
    t.req.device = 99;
    KF_CHECK_INT(be->compile(&t.req, &art, &diag), KF_ERR_INVALID);
    KF_CHECK_CONTAINS(diag, "device 99 does not exist");
    free(diag);
    diag = NULL;
    kf_arg args[4];
    memcpy(args, VADD_ARGS, sizeof args);
    args[1].index = 5;
    l.args = args;
    tcase_init(&t, VADD, &l, 1, 2, 1, 0, N);
    KF_CHECK_INT(be->compile(&t.req, &art, &diag), KF_ERR_INVALID);
    KF_CHECK_CONTAINS(diag, "arg 1 is input #5 but the problem has 2");
    free(diag);
}

/* ------------------------------------------------------------ verify */

KF_TEST_TIMEOUT(vector_add_verifies, 120)
{
    const kf_backend *be = load_plugin();
    kf_artifact *art;
    char *diag;
    kf_status st = compile_vadd(be, VADD, "vadd", &art, &diag);
    KF_CHECK_MSG(st == KF_OK, "compile: %s", diag);
    free(diag);
    vbufs v;
    vbufs_init(&v);
    char *err = NULL;
    st = be->verify(art, &v.set, &err);
    KF_CHECK_MSG(st == KF_OK, "verify: %s", err);
    for (int i = 0; i < N; i++) KF_CHECK_NEAR(v.out[0].data[i], 3.0 * i, 0);
    KF_CHECK(guards_intact(&v.out[0]) && guards_intact(&v.in[0]) && guards_intact(&v.in[1]));
    KF_CHECK_INT(v.in[0].data[7], 7);
    be->release(art);
    vbufs_free(&v);
}

KF_TEST_TIMEOUT(non_uniform_work_groups_fail_with_advice, 120)
{
    const kf_backend *be = load_plugin();
    kf_launch l = vadd_launch("vadd");
    l.global[0] = N;
    tcase t;
    tcase_init(&t, VADD, &l, 1, 2, 1, 0, N);
    kf_artifact *art = NULL;
    char *diag = NULL;
    KF_CHECK_INT(be->compile(&t.req, &art, &diag), KF_OK);
    free(diag);
    vbufs v;
    vbufs_init(&v);
    char *err = NULL;
    KF_CHECK_INT(be->verify(art, &v.set, &err), KF_ERR_LAUNCH);
    KF_CHECK_CONTAINS(err, "launch[0] (kernel vadd)");
    KF_CHECK_CONTAINS(err, "not a multiple of local[0] = 64");
    KF_CHECK_CONTAINS(err, "round_up");
    free(err);
    be->release(art);
    vbufs_free(&v);
}

KF_TEST_TIMEOUT(guard_overwrite_comes_back_to_the_host, 120)
{
    const kf_backend *be = load_plugin();
    const char *oob =
        "__kernel void vadd(__global const float *a, __global const float *b,\n"
        "                   __global float *c, int n)\n"
        "{\n"
        "    int i = get_global_id(0);\n"
        "    if (i < n) c[i] = a[i] + b[i];\n"
        "    if (i == 0) { c[n] = 42.0f; c[n + 3] = 43.0f; }\n"
        "}\n";
    kf_artifact *art;
    char *diag;
    KF_CHECK_INT(compile_vadd(be, oob, "vadd", &art, &diag), KF_OK);
    free(diag);
    vbufs v;
    vbufs_init(&v);
    char *err = NULL;
    KF_CHECK_INT(be->verify(art, &v.set, &err), KF_OK);
    KF_CHECK(!guards_intact(&v.out[0]));
    KF_CHECK_NEAR(v.out[0].data[N], 42.0, 0);
    KF_CHECK_NEAR(v.out[0].data[N + 3], 43.0, 0);
    KF_CHECK_INT(v.out[0].base[GUARD + v.out[0].bytes + 4], CANARY);  /* c[n+1] untouched */
    KF_CHECK(guards_intact(&v.in[0]));
    be->release(art);
    vbufs_free(&v);
}

KF_TEST_TIMEOUT(input_mutation_comes_back_to_the_host, 120)
{
    const kf_backend *be = load_plugin();
    const char *mut =
        "__kernel void vadd(__global float *a, __global const float *b,\n"
        "                   __global float *c, int n)\n"
        "{\n"
        "    int i = get_global_id(0);\n"
        "    if (i < n) { c[i] = a[i] + b[i]; a[i] = -1.0f; }\n"
        "}\n";
    kf_artifact *art;
    char *diag;
    KF_CHECK_INT(compile_vadd(be, mut, "vadd", &art, &diag), KF_OK);
    free(diag);
    vbufs v;
    vbufs_init(&v);
    char *err = NULL;
    KF_CHECK_INT(be->verify(art, &v.set, &err), KF_OK);
    KF_CHECK_NEAR(v.in[0].data[0], -1.0, 0);
    KF_CHECK_NEAR(v.in[0].data[N - 1], -1.0, 0);
    KF_CHECK_NEAR(v.in[1].data[5], 10.0, 0);
    KF_CHECK_NEAR(v.out[0].data[5], 15.0, 0);
    be->release(art);
    vbufs_free(&v);
}

/* Two launches: scratch, __local memory, int/long/float arguments.
 * t = s * x (scale); out[g] = sum over work-group g of t (reduce). */
KF_TEST_TIMEOUT(scratch_local_and_scalar_args, 120)
{
    const kf_backend *be = load_plugin();
    const char *src =
        "__kernel void scale(__global const float *x, __global float *t, float s, long n)\n"
        "{ long i = get_global_id(0); if (i < n) t[i] = s * x[i]; }\n"
        "__kernel void reduce(__global const float *t, __global float *out, __local float *tmp,\n"
        "                     int n)\n"
        "{\n"
        "    int i = get_global_id(0), l = get_local_id(0), g = get_group_id(0);\n"
        "    tmp[l] = i < n ? t[i] : 0.0f;\n"
        "    barrier(CLK_LOCAL_MEM_FENCE);\n"
        "    for (int s = get_local_size(0) / 2; s > 0; s >>= 1) {\n"
        "        if (l < s) tmp[l] += tmp[l + s];\n"
        "        barrier(CLK_LOCAL_MEM_FENCE);\n"
        "    }\n"
        "    if (l == 0) out[g] = tmp[0];\n"
        "}\n";
    kf_arg a0[] = {{.kind = KF_ARG_INPUT, .index = 0}, {.kind = KF_ARG_SCRATCH, .index = 0},
                   {.kind = KF_ARG_FLOAT, .fval = 0.5}, {.kind = KF_ARG_LONG, .ival = N}};
    kf_arg a1[] = {{.kind = KF_ARG_SCRATCH, .index = 0}, {.kind = KF_ARG_OUTPUT, .index = 0},
                   {.kind = KF_ARG_LOCAL, .bytes = 128 * 4}, {.kind = KF_ARG_INT, .ival = N}};
    kf_launch l[2] = {
        {.kernel = "scale", .work_dim = 1, .global = {N}, .local = {0}, .n_args = 4, .args = a0},
        {.kernel = "reduce", .work_dim = 1, .global = {1024}, .local = {128}, .n_args = 4, .args = a1}};
    tcase t;
    tcase_init(&t, src, l, 2, 1, 1, 1, N);
    kf_artifact *art = NULL;
    char *diag = NULL;
    kf_status st = be->compile(&t.req, &art, &diag);
    KF_CHECK_MSG(st == KF_OK, "compile: %s", diag);
    free(diag);
    kf_buffer in = gbuf(N, 0), out = gbuf(8, NAN), scr = gbuf(N, NAN);
    for (int i = 0; i < N; i++) in.data[i] = (float)(i % 10);
    kf_buffer_set set = {&in, &out, &scr};
    char *err = NULL;
    st = be->verify(art, &set, &err);
    KF_CHECK_MSG(st == KF_OK, "verify: %s", err);
    for (int g = 0; g < 8; g++) {
        double want = 0;
        for (int i = g * 128; i < (g + 1) * 128 && i < N; i++) want += 0.5 * (i % 10);
        KF_CHECK_NEAR(out.data[g], want, 1e-3);
    }
    KF_CHECK_NEAR(scr.data[13], 1.5, 0);   /* scratch comes back too */
    KF_CHECK(guards_intact(&out) && guards_intact(&scr));
    be->release(art);
    free(in.base);
    free(out.base);
    free(scr.base);
}

/* ----------------------------------------------------------- profile */

KF_TEST_TIMEOUT(profile_returns_device_samples_and_a_report, 120)
{
    const kf_backend *be = load_plugin();
    kf_artifact *art;
    char *diag;
    KF_CHECK_INT(compile_vadd(be, VADD, "vadd", &art, &diag), KF_OK);
    free(diag);
    vbufs v[2];
    vbufs_init(&v[0]);
    vbufs_init(&v[1]);
    for (int i = 0; i < N; i++) v[1].in[0].data[i] = 1.0f;
    kf_buffer_set sets[2] = {v[0].set, v[1].set};
    double samples[7];
    kf_profile_request req = {.warmup = 2, .reps = 7, .n_sets = 2, .sets = sets};
    kf_profile_result res;
    memset(&res, 0, sizeof res);
    res.samples_s = samples;
    char *err = NULL;
    kf_status st = be->profile(art, &req, &res, &err);
    KF_CHECK_MSG(st == KF_OK, "profile: %s", err);
    KF_CHECK_INT(res.n_samples, 7);
    KF_CHECK_INT(res.clock_is_device, 1);
    for (int i = 0; i < 7; i++) KF_CHECK(samples[i] > 0 && samples[i] < 1.0);
    KF_CHECK_CONTAINS(res.report, "launch[0] vadd");
    KF_CHECK_CONTAINS(res.report, "max work-group");
    KF_CHECK_CONTAINS(res.report, "private memory");
    KF_CHECK_CONTAINS(res.report, "preferred work-group multiple");
    int found = 0;
    for (int i = 0; i < res.n_counters; i++)
        if (strcmp(res.counters[i].name, "launch[0].vadd.ms") == 0 && res.counters[i].value > 0)
            found = 1;
    KF_CHECK(found);
    /* both rotated sets ran and came back */
    KF_CHECK_NEAR(v[0].out[0].data[10], 30.0, 0);
    KF_CHECK_NEAR(v[1].out[0].data[10], 21.0, 0);
    free(res.report);
    be->release(art);
    vbufs_free(&v[0]);
    vbufs_free(&v[1]);
}

/* ------------------------------------------------------------- cache */

KF_TEST_TIMEOUT(program_cache_hits_in_memory_and_on_disk, 180)
{
    char *tmp = kf_test_tmpdir();
    setenv("XDG_CACHE_HOME", tmp, 1);
    const char *src = "/* cache test */\n";
    char *text = malloc(strlen(src) + sizeof VADD);
    strcpy(text, src);
    strcat(text, VADD);

    /* a fresh process builds from source and stores the binary */
    pid_t pid = fork();
    if (pid == 0) {
        const kf_backend *be = load_plugin();
        kf_artifact *art;
        char *diag;
        kf_status st = compile_vadd(be, text, "vadd", &art, &diag);
        int ok = st == KF_OK && strstr(diag, "built from source") && strstr(diag, "saved to");
        if (!ok) fprintf(stderr, "# child: %d %s\n", st, diag ? diag : "");
        _exit(ok ? 0 : 1);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    KF_CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);

    char pattern[4200];
    snprintf(pattern, sizeof pattern, "%s/kforge/opencl/*.bin", tmp);
    glob_t g;
    KF_CHECK_INT(glob(pattern, 0, NULL, &g), 0);
    KF_CHECK_INT(g.gl_pathc, 1);
    globfree(&g);

    /* this process finds it on disk, then in memory */
    const kf_backend *be = load_plugin();
    kf_artifact *art;
    char *diag;
    KF_CHECK_INT(compile_vadd(be, text, "vadd", &art, &diag), KF_OK);
    KF_CHECK_CONTAINS(diag, "cache hit (disk");
    free(diag);
    vbufs v;
    vbufs_init(&v);
    char *err = NULL;
    KF_CHECK_INT(be->verify(art, &v.set, &err), KF_OK);   /* the cached binary runs */
    KF_CHECK_NEAR(v.out[0].data[100], 300.0, 0);
    be->release(art);
    KF_CHECK_INT(compile_vadd(be, text, "vadd", &art, &diag), KF_OK);
    KF_CHECK_CONTAINS(diag, "cache hit (memory");
    free(diag);
    double s[1];
    kf_profile_request req = {.warmup = 0, .reps = 1, .n_sets = 1, .sets = &v.set};
    kf_profile_result res;
    memset(&res, 0, sizeof res);
    res.samples_s = s;
    KF_CHECK_INT(be->profile(art, &req, &res, &err), KF_OK);
    int hit = 0;
    for (int i = 0; i < res.n_counters; i++)
        if (strcmp(res.counters[i].name, "program_cache") == 0) hit = (int)res.counters[i].value;
    KF_CHECK_INT(hit, 1);
    free(res.report);
    be->release(art);
    vbufs_free(&v);
    free(text);
}

int main(void) { return kf_test_main(); }
