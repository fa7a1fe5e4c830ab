/*
 * test_cpu_simd.c — drives the cpu-simd plugin directly through its vtable
 * (dlopen of $KF_BUILDDIR/plugins/cpu-simd/.libs/kf-cpu-simd.so): probe,
 * compile diagnostics, missing entry, verify into guarded buffers, profile.
 */
#include "../kf_test.h"

#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "candidate/candidate.h"
#include "kforge-cpu.h"
#include "kforge-plugin.h"
#include "problem/problem.h"
#include "reference/reference.h"

static const kf_backend *load_plugin(void)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/plugins/cpu-simd/.libs/kf-cpu-simd.so", kf_test_builddir());
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    KF_CHECK_MSG(h != NULL, "dlopen %s: %s", path, dlerror());
    const kf_backend *be = dlsym(h, "kforge_backend_cpu_simd");
    KF_CHECK_MSG(be != NULL, "no kforge_backend_cpu_simd in %s", path);
    return be;
}

/* ---- a tiny problem: c = a + b over N floats, plus a 1-float output --- */
static const char *dim_names[] = {"N"};
static int64_t dim_values[] = {1000};
static const char *in_names[] = {"a", "b"};
static int64_t in_elems[] = {1000, 1000};
static const char *out_names[] = {"c", "t"};
static int64_t out_elems[] = {1000, 1};
static const kf_problem_view pview = {"vadd", 1, dim_names, dim_values, 2, in_names, in_elems,
                                      2, out_names, out_elems, 0, NULL};

static const char *vadd_src =
    "#include \"kforge-cpu.h\"\n"
    "void kf_kernel(const kf_cpu_args *a)\n"
    "{\n"
    "    const float *x = a->in[0], *y = a->in[1];\n"
    "    float *z = a->out[0];\n"
    "    long n = (long)a->dims[0];\n"
    "    #pragma omp parallel for num_threads(a->n_threads)\n"
    "    for (long i = 0; i < n; i++)\n"
    "        z[i] = x[i] + y[i];\n"
    "    a->out[1][0] = (float)(a->n_threads * 1000 + a->n_in * 100 + a->n_out * 10 + a->n_dims);\n"
    "}\n";

static kf_status compile1(const kf_backend *be, const char *name, const char *text,
                          const char *opts, const char *entry, kf_artifact **art, char **diag)
{
    kf_source src = {name, text};
    kf_candidate_view cv = {"cpu-simd", 1, &src, opts, entry, 0, NULL};
    kf_compile_request req = {&cv, &pview, 0, kf_test_tmpdir()};
    return be->compile(&req, art, diag);
}

#define GUARD 4096
#define CANARY 0xA5

static kf_buffer guarded(size_t floats)
{
    kf_buffer b;
    b.bytes = floats * sizeof(float);
    b.guard_bytes = GUARD;
    b.base = aligned_alloc(4096, (2 * GUARD + b.bytes + 4095) / 4096 * 4096);
    memset(b.base, CANARY, 2 * GUARD + b.bytes);
    b.data = (float *)(b.base + GUARD);
    for (size_t i = 0; i < floats; i++)
        b.data[i] = NAN;
    return b;
}

static int guards_intact(const kf_buffer *b)
{
    for (size_t i = 0; i < GUARD; i++)
        if (b->base[i] != CANARY || b->base[GUARD + b->bytes + i] != CANARY)
            return 0;
    return 1;
}

typedef struct vset {
    kf_buffer in[2], out[2];
    kf_buffer_set set;
} vset;

static void vset_init(vset *v, float seed)
{
    for (int i = 0; i < 2; i++)
        v->in[i] = guarded(1000);
    v->out[0] = guarded(1000);
    v->out[1] = guarded(1);
    for (int i = 0; i < 1000; i++) {
        v->in[0].data[i] = seed + (float)i;
        v->in[1].data[i] = 0.5f * (float)i;
    }
    v->set = (kf_buffer_set){v->in, v->out, NULL};
}

static void vset_free(vset *v)
{
    for (int i = 0; i < 2; i++) {
        free(v->in[i].base);
        free(v->out[i].base);
    }
}

KF_TEST(vtable_identity)
{
    const kf_backend *be = load_plugin();
    KF_CHECK_INT(be->abi_major, KF_PLUGIN_ABI_MAJOR);
    KF_CHECK_INT(be->struct_size, sizeof(kf_backend));
    KF_CHECK_STR(be->name, "cpu-simd");
    KF_CHECK_STR(be->language, "c");
    KF_CHECK_INT(be->caps, KF_CAP_HOST_ENTRY | KF_CAP_HOST_MEMORY);
    KF_CHECK(be->probe && be->compile && be->verify && be->profile && be->release);
    for (size_t i = 0; i < sizeof be->reserved / sizeof be->reserved[0]; i++)
        KF_CHECK(be->reserved[i] == NULL);
}

KF_TEST(probe_reports_the_cpu)
{
    const kf_backend *be = load_plugin();
    kf_device_info devs[4];
    char why[256] = "";
    int n = -1;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    KF_CHECK_INT(be->probe(devs, 4, &n, why, sizeof why), KF_OK);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    KF_CHECK_INT(n, 1);
    KF_CHECK_STR(devs[0].kind, "cpu");
    KF_CHECK(devs[0].name[0] != '\0');
    /* this machine (and every CI runner we use) has AVX2 + FMA */
    __builtin_cpu_init();
    KF_CHECK(__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"));
    KF_CHECK_CONTAINS(devs[0].detail, "avx2");
    KF_CHECK_CONTAINS(devs[0].detail, "fma");
    KF_CHECK_CONTAINS(devs[0].detail, __builtin_cpu_supports("avx512f") ? "vector width: 16"
                                                                        : "vector width: 8");
    KF_CHECK_CONTAINS(devs[0].detail, "cores: ");
    KF_CHECK_CONTAINS(devs[0].detail, "compiler: ");
    KF_CHECK(devs[0].peak_flops > 1e9);
    /* the peak is the larger of the clock estimate and the measured FMA
     * rate; the flag says which one won */
    KF_CHECK(devs[0].peak_flops_measured == 0 || devs[0].peak_flops_measured == 1);
    KF_CHECK_CONTAINS(devs[0].detail, "measured: the FMA throughput of one thread");
    KF_CHECK_MSG(devs[0].peak_bytes_per_s > 5e8 && devs[0].peak_bytes_per_s < 1e13,
                 "bandwidth %g B/s", devs[0].peak_bytes_per_s);
    KF_CHECK_INT(devs[0].peak_bw_measured, 1);
    KF_CHECK(devs[0].cache_bytes_per_s > devs[0].peak_bytes_per_s);
    double dt = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    KF_CHECK_MSG(dt < 2.0, "probe took %.3f s", dt);
    /* cached: a second probe gives the same numbers */
    kf_device_info again;
    KF_CHECK_INT(be->probe(&again, 1, &n, why, sizeof why), KF_OK);
    KF_CHECK_NEAR(again.peak_bytes_per_s, devs[0].peak_bytes_per_s, 0);
}

/* Writes a fake sysfs cache entry dir/indexI with its four files. */
static void fake_cache(const char *dir, int i, const char *level, const char *type, const char *size,
                       const char *shared)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/index%d", dir, i);
    KF_CHECK(mkdir(path, 0700) == 0);
    const char *names[] = {"level", "type", "size", "shared_cpu_list"};
    const char *vals[] = {level, type, size, shared};
    for (int k = 0; k < 4; k++) {
        snprintf(path, sizeof path, "%s/index%d/%s", dir, i, names[k]);
        FILE *f = fopen(path, "w");
        KF_CHECK(f != NULL);
        fprintf(f, "%s\n", vals[k]);
        fclose(f);
    }
}

/* The cache sizes come from sysfs (here a fake one), one CPU's share of
 * each data level; the instruction cache is not a data level. */
KF_TEST(probe_reads_cache_sizes_from_sysfs)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/cache", kf_test_tmpdir());
    KF_CHECK(mkdir(dir, 0700) == 0);
    fake_cache(dir, 0, "1", "Data", "32K", "0-1");           /* SMT pair: 16 KiB each */
    fake_cache(dir, 1, "1", "Instruction", "64K", "0");
    fake_cache(dir, 2, "2", "Unified", "1024K", "0");
    fake_cache(dir, 3, "3", "Unified", "32M", "0-7,16-23");  /* 16 CPUs: 2 MiB each */
    setenv("KFORGE_CPU_CACHE_DIR", dir, 1);
    const kf_backend *be = load_plugin();
    kf_device_info d;
    memset(&d, 0, sizeof d);
    d.struct_size = sizeof d;
    char why[256] = "";
    int n = -1;
    KF_CHECK_INT(be->list_devices(&d, sizeof d, 1, &n, why, sizeof why), KF_OK);
    KF_CHECK_INT(d.cache_l1d_bytes, 16384);
    KF_CHECK_INT(d.cache_l2_bytes, 1 << 20);
    KF_CHECK_INT(d.cache_l3_bytes, 2 << 20);
    KF_CHECK_CONTAINS(d.detail, "caches per core: L1d 16 KiB, L2 1024 KiB, L3 2048 KiB (sysfs)");
}

/* Without sysfs entries the sizes come from cpuid (x86), still nonzero. */
KF_TEST(probe_falls_back_to_cpuid_for_cache_sizes)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/empty", kf_test_tmpdir());
    KF_CHECK(mkdir(dir, 0700) == 0);
    setenv("KFORGE_CPU_CACHE_DIR", dir, 1);
    const kf_backend *be = load_plugin();
    kf_device_info d;
    memset(&d, 0, sizeof d);
    d.struct_size = sizeof d;
    char why[256] = "";
    int n = -1;
    KF_CHECK_INT(be->list_devices(&d, sizeof d, 1, &n, why, sizeof why), KF_OK);
#if defined(__x86_64__)
    KF_CHECK_MSG(d.cache_l1d_bytes >= 8192 && d.cache_l2_bytes >= d.cache_l1d_bytes, "L1d %lld L2 %lld",
                 (long long)d.cache_l1d_bytes, (long long)d.cache_l2_bytes);
    KF_CHECK_CONTAINS(d.detail, "(cpuid leaf 0x");
#endif
}

KF_TEST(compile_error_returns_compiler_text)
{
    const kf_backend *be = load_plugin();
    kf_artifact *art = (kf_artifact *)1;
    char *diag = NULL;
    KF_CHECK_INT(compile1(be, "broken.c", "#include \"kforge-cpu.h\"\nvoid kf_kernel("
                          "const kf_cpu_args *a) { int x = ; }\n", "", NULL, &art, &diag),
                 KF_ERR_COMPILE);
    KF_CHECK(art == NULL);
    KF_CHECK_CONTAINS(diag, "broken.c:2:");
    KF_CHECK_CONTAINS(diag, "error:");
    free(diag);
}

KF_TEST(warnings_come_back_on_success)
{
    const kf_backend *be = load_plugin();
    kf_artifact *art = NULL;
    char *diag = NULL;
    KF_CHECK_INT(compile1(be, "warn.c", "#include \"kforge-cpu.h\"\nvoid kf_kernel("
                          "const kf_cpu_args *a) { int unused_var; }\n", "-Wall -Wextra", NULL,
                          &art, &diag),
                 KF_OK);
    KF_CHECK(art != NULL);
    KF_CHECK_CONTAINS(diag, "warn.c:2:");
    KF_CHECK_CONTAINS(diag, "unused_var");
    free(diag);
    be->release(art);
}

KF_TEST(missing_entry_is_a_compile_error)
{
    const kf_backend *be = load_plugin();
    kf_artifact *art = NULL;
    char *diag = NULL;
    KF_CHECK_INT(compile1(be, "noentry.c", "#include \"kforge-cpu.h\"\nvoid my_gemm("
                          "const kf_cpu_args *a) { (void)a; }\n", "", NULL, &art, &diag),
                 KF_ERR_COMPILE);
    KF_CHECK(art == NULL);
    KF_CHECK_CONTAINS(diag, "no function 'kf_kernel'");
    KF_CHECK_CONTAINS(diag, "my_gemm");
    free(diag);
    /* the same object with the entry named explicitly compiles */
    KF_CHECK_INT(compile1(be, "noentry.c", "#include \"kforge-cpu.h\"\nvoid my_gemm("
                          "const kf_cpu_args *a) { (void)a; }\n", "", "my_gemm", &art, &diag),
                 KF_OK);
    KF_CHECK(art != NULL);
    free(diag);
    be->release(art);
}

KF_TEST(bad_requests_and_missing_compiler)
{
    const kf_backend *be = load_plugin();
    kf_artifact *art = NULL;
    char *diag = NULL;
    kf_source src = {"k.cl", "kernel void k() {}"};
    kf_candidate_view cv = {"opencl", 1, &src, "", NULL, 0, NULL};
    kf_compile_request req = {&cv, &pview, 0, kf_test_tmpdir()};
    KF_CHECK_INT(be->compile(&req, &art, &diag), KF_ERR_INVALID);
    KF_CHECK_CONTAINS(diag, "backend 'opencl'");
    free(diag);
    cv.backend = "cpu-simd";
    KF_CHECK_INT(be->compile(&req, &art, &diag), KF_ERR_INVALID);
    KF_CHECK_CONTAINS(diag, "no .c source");
    free(diag);
    src.name = "../x.c";
    KF_CHECK_INT(be->compile(&req, &art, &diag), KF_ERR_INVALID);
    KF_CHECK_CONTAINS(diag, "not allowed");
    free(diag);
    setenv("KFORGE_CC", "/nonexistent/kf-cc", 1);
    KF_CHECK_INT(compile1(be, "v.c", vadd_src, "", NULL, &art, &diag), KF_ERR_UNAVAILABLE);
    KF_CHECK_CONTAINS(diag, "cannot run '/nonexistent/kf-cc'");
    KF_CHECK_CONTAINS(diag, "KFORGE_CC");
    free(diag);
}

KF_TEST(verify_writes_outputs_in_guarded_buffers)
{
    const kf_backend *be = load_plugin();
    kf_artifact *art = NULL;
    char *diag = NULL, *err = NULL, path[4200];
    vset v;
    setenv("KFORGE_THREADS", "3", 1);
    KF_CHECK_INT(compile1(be, "vadd.c", vadd_src, "", NULL, &art, &diag), KF_OK);
    KF_CHECK_MSG(diag == NULL, "unexpected diagnostics: %s", diag);
    /* kforge-cpu.h was written next to the source, identical to the installed one */
    snprintf(path, sizeof path, "%s/kforge-cpu.h", kf_test_tmpdir());
    char *written = kf_test_read_file(path);
    snprintf(path, sizeof path, "%s/plugins/cpu-simd/kforge-cpu.h", kf_test_srcdir());
    char *orig = kf_test_read_file(path);
    KF_CHECK(orig != NULL);
    KF_CHECK_STR(written, orig);
    free(written);
    free(orig);

    vset_init(&v, 1.0f);
    KF_CHECK_INT(be->verify(art, &v.set, &err), KF_OK);
    for (int i = 0; i < 1000; i++)
        KF_CHECK_NEAR(v.out[0].data[i], 1.0 + i + 0.5 * i, 0);
    KF_CHECK_NEAR(v.out[1].data[0], 3 * 1000 + 2 * 100 + 2 * 10 + 1, 0);
    for (int i = 0; i < 2; i++) {
        KF_CHECK(guards_intact(&v.in[i]));
        KF_CHECK(guards_intact(&v.out[i]));
    }
    KF_CHECK_NEAR(v.in[0].data[999], 1000.0, 0);   /* inputs untouched */
    vset_free(&v);
    be->release(art);
}

/* AMX: the listing asks for the tile state where the CPU has AMX, says so
 * in the detail, sets KF_MU_AMX and measures the tdpbf16ps peak; a
 * candidate sees KF_CPU_FEAT_AMX_BF16 in a->features exactly then, may run
 * tiles (here one tdpbf16ps: 32 products of 1.0 x 1.0 per element), and
 * the unit it names with KF_CPU_USES comes back as the counter
 * "compute_unit" (0 when it names none). */
static const char *amx_src =
    "#include <string.h>\n"
    "#include <immintrin.h>\n"
    "#include \"kforge-cpu.h\"\n"
    "KF_CPU_USES(KF_CPU_UNIT_AMX_BF16);\n"
    "void kf_kernel(const kf_cpu_args *a)\n"
    "{\n"
    "    a->out[1][0] = (float)a->features;\n"
    "    for (long i = 0; i < 1000; i++) a->out[0][i] = -1.0f;\n"
    "#if defined(__AMX_TILE__) && defined(__AMX_BF16__)\n"
    "    if (!(a->features & KF_CPU_FEAT_AMX_BF16)) return;\n"
    "    struct { unsigned char p, s, r[14]; unsigned short colsb[16]; unsigned char rows[16]; } cfg;\n"
    "    static unsigned short one[16 * 32];\n"
    "    static float c[256];\n"
    "    memset(&cfg, 0, sizeof cfg);\n"
    "    cfg.p = 1;\n"
    "    for (int t = 0; t < 3; t++) { cfg.colsb[t] = 64; cfg.rows[t] = 16; }\n"
    "    for (int i = 0; i < 16 * 32; i++) one[i] = 0x3f80;   /* bf16 1.0 */\n"
    "    _tile_loadconfig(&cfg);\n"
    "    _tile_zero(0);\n"
    "    _tile_loadd(1, one, 64);\n"
    "    _tile_loadd(2, one, 64);\n"
    "    _tile_dpbf16ps(0, 1, 2);\n"
    "    _tile_stored(0, c, 64);\n"
    "    _tile_release();\n"
    "    for (long i = 0; i < 1000; i++) a->out[0][i] = c[i % 256];\n"
    "#endif\n"
    "}\n";

/* The plugin's one device as the core lists it (struct_size of this ABI) */
static void list_device(const kf_backend *be, kf_device_info *dev)
{
    char why[256] = "";
    int n = 0;
    memset(dev, 0, sizeof *dev);
    dev->struct_size = sizeof *dev;
    KF_CHECK_INT(be->list_devices(dev, sizeof *dev, 1, &n, why, sizeof why), KF_OK);
    KF_CHECK_INT(n, 1);
}

/* The int16-pair peak (ABI 1.6): measured where the CPU has AVX2, between
 * half and three times the fp32 peak (vpmaddwd does 16 multiply-adds to
 * FMA's 8 at up to FMA's issue rate: a miscounted factor or a loop the
 * compiler slowed shows), 0 without AVX2; and never written into a struct
 * sized for 1.5. */
KF_TEST(i16_peak_measured_and_abi_guarded)
{
    const kf_backend *be = load_plugin();
    kf_device_info dev;
    char why[256] = "";
    list_device(be, &dev);
    KF_CHECK_INT(be->measure_peaks(0, &dev, why, sizeof why), KF_OK);
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx2"))
        KF_CHECK_MSG(dev.peak_flops_i16 > 0.5 * dev.peak_flops && dev.peak_flops_i16 < 3 * dev.peak_flops,
                     "int16 pairs %g, fp32 %g FLOP/s", dev.peak_flops_i16, dev.peak_flops);
    else
        KF_CHECK_NEAR(dev.peak_flops_i16, 0, 0);
    dev.struct_size = (uint32_t)offsetof(kf_device_info, peak_flops_i16);   /* a 1.5 core's struct */
    dev.peak_flops_i16 = -1;
    KF_CHECK_INT(be->measure_peaks(0, &dev, why, sizeof why), KF_OK);
    KF_CHECK_NEAR(dev.peak_flops_i16, -1, 0);
}

KF_TEST(amx_permission_features_and_unit)
{
    const kf_backend *be = load_plugin();
    kf_device_info dev;
    char why[256] = "";
    list_device(be, &dev);
    __builtin_cpu_init();
    int amx = __builtin_cpu_supports("amx-tile") && __builtin_cpu_supports("amx-bf16") &&
              __builtin_cpu_supports("avx512bf16") && __builtin_cpu_supports("avx512bw");
    KF_CHECK_CONTAINS(dev.detail, "AMX bf16 tiles: ");
    int granted = strstr(dev.detail, "AMX bf16 tiles: yes, permission granted") != NULL;
    if (!amx) KF_CHECK(!granted);
    if (!amx) KF_CHECK_CONTAINS(dev.detail, "AMX bf16 tiles: no: the CPU");
    if (amx && !granted) printf("# the CPU has AMX but the tile state was refused: %s\n", dev.detail);
    if (amx && getenv("KF_TEST_STRICT") && !strcmp(getenv("KF_TEST_STRICT"), "1"))
        KF_CHECK_MSG(granted, "KF_TEST_STRICT: AMX CPU without the tile permission: %s", dev.detail);
    KF_CHECK_INT((dev.matrix_units & KF_MU_AMX) != 0, granted);
    KF_CHECK_INT(be->measure_peaks(0, &dev, why, sizeof why), KF_OK);
    if (granted) KF_CHECK_MSG(dev.peak_flops_amx_bf16 > dev.peak_flops, "AMX %g, FMA %g FLOP/s",
                              dev.peak_flops_amx_bf16, dev.peak_flops);
    else KF_CHECK_NEAR(dev.peak_flops_amx_bf16, 0, 0);

    kf_artifact *art = NULL;
    char *diag = NULL, *err = NULL;
    vset v;
    KF_CHECK_INT(compile1(be, "amx.c", amx_src, "", NULL, &art, &diag), KF_OK);
    vset_init(&v, 1.0f);
    KF_CHECK_INT(be->verify(art, &v.set, &err), KF_OK);
    KF_CHECK_NEAR(v.out[1].data[0], granted ? KF_CPU_FEAT_AMX_BF16 : 0, 0);
    if (granted)
        for (int i = 0; i < 1000; i += 97) KF_CHECK_NEAR(v.out[0].data[i], 32.0, 0);
    double samples[3];
    kf_profile_result res;
    memset(&res, 0, sizeof res);
    res.samples_s = samples;
    kf_profile_request req = {1, 3, 1, &v.set};
    KF_CHECK_INT(be->profile(art, &req, &res, &err), KF_OK);
    KF_CHECK(res.n_counters >= 3);
    KF_CHECK_STR(res.counters[2].name, "compute_unit");
    KF_CHECK_NEAR(res.counters[2].value, KF_CPU_UNIT_AMX_BF16, 0);
    free(res.report);
    vset_free(&v);
    be->release(art);
    /* a candidate that names no unit: 0 (fp32 FMA) */
    KF_CHECK_INT(compile1(be, "vadd.c", vadd_src, "", NULL, &art, &diag), KF_OK);
    vset_init(&v, 1.0f);
    memset(&res, 0, sizeof res);
    res.samples_s = samples;
    kf_profile_request req2 = {1, 3, 1, &v.set};
    KF_CHECK_INT(be->profile(art, &req2, &res, &err), KF_OK);
    KF_CHECK_STR(res.counters[2].name, "compute_unit");
    KF_CHECK_NEAR(res.counters[2].value, KF_CPU_UNIT_FMA_FP32, 0);
    free(res.report);
    vset_free(&v);
    be->release(art);
}

KF_TEST(profile_returns_samples_and_report)
{
    const kf_backend *be = load_plugin();
    kf_artifact *art = NULL;
    char *diag = NULL, *err = NULL;
    vset v[2];
    kf_buffer_set sets[2];
    double samples[7];
    kf_profile_result res;
    memset(&res, 0, sizeof res);
    res.samples_s = samples;
    KF_CHECK_INT(compile1(be, "vadd.c", vadd_src, "", NULL, &art, &diag), KF_OK);
    for (int i = 0; i < 2; i++) {
        vset_init(&v[i], 10.0f * (float)i);
        sets[i] = v[i].set;
    }
    kf_profile_request req = {2, 7, 2, sets};
    KF_CHECK_INT(be->profile(art, &req, &res, &err), KF_OK);
    KF_CHECK_INT(res.n_samples, 7);
    for (int i = 0; i < 7; i++)
        KF_CHECK_MSG(samples[i] > 0 && samples[i] < 1.0, "sample %d = %g", i, samples[i]);
    KF_CHECK_INT(res.clock_is_device, 0);
    KF_CHECK(res.n_counters >= 2);
    KF_CHECK_STR(res.counters[0].name, "threads");
    KF_CHECK(res.counters[0].value >= 1);
    KF_CHECK_STR(res.counters[1].name, "vector_width_floats");
    KF_CHECK(res.counters[1].value >= 8);
    KF_CHECK_CONTAINS(res.report, "median");
    KF_CHECK_CONTAINS(res.report, "runs: 7 timed after 2 warm-up, rotating 2 input sets");
    /* both sets were used */
    KF_CHECK_NEAR(v[1].out[0].data[5], 10.0 + 5 + 2.5, 0);
    KF_CHECK_NEAR(v[0].out[0].data[5], 5 + 2.5, 0);
    free(res.report);
    for (int i = 0; i < 2; i++)
        vset_free(&v[i]);
    /* a malformed request is refused */
    kf_profile_request bad = {0, 0, 1, sets};
    KF_CHECK_INT(be->profile(art, &bad, &res, &err), KF_ERR_INVALID);
    KF_CHECK_CONTAINS(err, "reps >= 1");
    free(err);
    be->release(art);
}

/* ---- the hand-written candidates of tests/candidates/cpu-simd ---------- */

/* Compiles and verifies one hand-written candidate on a suite problem's
 * preset against the core's double-precision reference: allclose with the
 * problem's atol/rtol and the relative-L2 bound, guards and inputs intact. */
static void check_candidate(const char *cand, const char *problem, const char *preset)
{
    const kf_backend *be = load_plugin();
    kf_error err;
    char path[4200];
    if (getenv("KF_CAND_PRESET"))   /* e.g. "cpu" for a larger manual check */
        preset = getenv("KF_CAND_PRESET");
    kf_error_clear(&err);
    snprintf(path, sizeof path, "%s/problems/level2/%s", kf_test_srcdir(), problem);
    kf_problem *p = kf_problem_load(path, &err);
    KF_CHECK_MSG(p != NULL, "%s", err.msg);
    kf_resolved r;
    KF_CHECK_MSG(kf_resolve(p, kf_problem_find_preset(p, preset), &r, &err) == 0, "%s", err.msg);
    snprintf(path, sizeof path, "%s/tests/candidates/cpu-simd/%s", kf_test_srcdir(), cand);
    kf_candidate *c = kf_candidate_load(path, &err);
    KF_CHECK_MSG(c != NULL, "%s", err.msg);
    kf_bound b;
    KF_CHECK_MSG(kf_candidate_bind(c, &r, &b, &err) == 0, "%s", err.msg);

    int ni = b.pview.n_inputs, no = b.pview.n_outputs, ns = b.pview.n_scratch;
    kf_buffer *bufs = calloc((size_t)(ni + no + ns), sizeof *bufs);
    const float **in = calloc((size_t)ni, sizeof *in);
    double **ref = calloc((size_t)no, sizeof *ref);
    for (int i = 0; i < ni; i++) {
        bufs[i] = guarded((size_t)b.pview.input_elems[i]);
        kf_draw_input(&r, i, 1234, bufs[i].data);
        in[i] = bufs[i].data;
    }
    for (int o = 0; o < no; o++)
        bufs[ni + o] = guarded((size_t)b.pview.output_elems[o]);
    for (int s = 0; s < ns; s++)
        bufs[ni + no + s] = guarded((size_t)(b.pview.scratch_bytes[s] + 3) / 4);
    KF_CHECK_MSG(kf_reference_outputs(&r, in, ref, 0, &err) == 0, "%s", err.msg);

    kf_compile_request req = {&b.view, &b.pview, 0, kf_test_tmpdir()};
    kf_artifact *art = NULL;
    char *diag = NULL, *verr = NULL;
    KF_CHECK_MSG(be->compile(&req, &art, &diag) == KF_OK, "compile %s:\n%s", cand, diag);
    KF_CHECK_MSG(diag == NULL, "%s: compiler warnings:\n%s", cand, diag);
    kf_buffer_set set = {bufs, bufs + ni, bufs + ni + no};
    KF_CHECK_INT(be->verify(art, &set, &verr), KF_OK);

    for (int o = 0; o < no; o++) {
        const float *got = bufs[ni + o].data;
        double num = 0, den = 0;
        for (int64_t e = 0; e < b.pview.output_elems[o]; e++) {
            double x = ref[o][e], d = (double)got[e] - x;
            KF_CHECK_MSG(fabs(d) <= p->atol + p->rtol * fabs(x), "%s (%s): output %d[%lld] = %.9g, "
                         "expected %.9g", cand, preset, o, (long long)e, (double)got[e], x);
            num += d * d;
            den += x * x;
        }
        KF_CHECK_MSG(sqrt(num) <= p->rel_l2 * sqrt(den), "%s: rel L2 %g", cand,
                     sqrt(num / (den > 0 ? den : 1)));
        free(ref[o]);
    }
    for (int i = 0; i < ni + no + ns; i++)
        KF_CHECK_MSG(guards_intact(&bufs[i]), "%s: guard of buffer %d overwritten", cand, i);
    for (int i = 0; i < ni; i++) {
        float *fresh = malloc((size_t)b.pview.input_elems[i] * sizeof *fresh);
        kf_draw_input(&r, i, 1234, fresh);
        KF_CHECK_MSG(!memcmp(fresh, bufs[i].data, bufs[i].bytes), "%s: input %d modified", cand, i);
        free(fresh);
    }
    /* a short profile, reported as a TAP comment */
    double samples[3];
    kf_profile_result pr;
    memset(&pr, 0, sizeof pr);
    pr.samples_s = samples;
    kf_profile_request preq = {1, 3, 1, &set};
    KF_CHECK_INT(be->profile(art, &preq, &pr, &verr), KF_OK);
    double best = fmin(samples[0], fmin(samples[1], samples[2]));
    printf("# %s (%s): min of 3 runs %.3f ms, %.1f GFLOP/s\n", cand, preset, best * 1e3,
           r.flops / best * 1e-9);
    fflush(stdout);
    free(pr.report);
    be->release(art);
    for (int i = 0; i < ni + no + ns; i++)
        free(bufs[i].base);
    free(bufs);
    free(in);
    free(ref);
    kf_bound_free(&b);
    kf_candidate_free(c);
    kf_resolved_free(&r);
    kf_problem_free(p);
}

KF_TEST_TIMEOUT(candidate_gemm_sub_mul_relu, 120)
{
    check_candidate("gemm_sub_mul_relu", "09_Matmul_Subtract_Multiply_ReLU.json", "small");
}

KF_TEST_TIMEOUT(candidate_gemm_sum_rows, 120)
{
    check_candidate("gemm_sum_rows", "14_Gemm_Divide_Sum_Scaling.json", "small");
}

KF_TEST_TIMEOUT(candidate_gemm_groupnorm_hardtanh, 120)
{
    check_candidate("gemm_groupnorm_hardtanh", "30_Gemm_GroupNorm_Hardtanh.json", "small");
}

KF_TEST_TIMEOUT(candidate_gemm_scale_batchnorm, 120)
{
    check_candidate("gemm_scale_batchnorm", "33_Gemm_Scale_BatchNorm.json", "small");
}

KF_TEST_TIMEOUT(candidate_two_gemm_sigmoid_lse, 120)
{
    check_candidate("two_gemm_sigmoid_lse", "45_Gemm_Sigmoid_LogSumExp.json", "small");
}

KF_TEST_TIMEOUT(candidate_gemm_gelu_softmax, 120)
{
    check_candidate("gemm_gelu_softmax", "99_Matmul_GELU_Softmax.json", "small");
}

/* The GEMM helper is copied into each candidate: the copies must agree. */
KF_TEST(candidate_gemm_copies_identical)
{
    static const char *const dirs[] = {"gemm_groupnorm_hardtanh", "gemm_scale_batchnorm",
                                       "two_gemm_sigmoid_lse", "gemm_gelu_softmax"};
    char path[4200];
    snprintf(path, sizeof path, "%s/tests/candidates/cpu-simd/gemm_sub_mul_relu/kf_gemm.h",
             kf_test_srcdir());
    char *ref = kf_test_read_file(path);
    KF_CHECK(ref != NULL);
    for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++) {
        snprintf(path, sizeof path, "%s/tests/candidates/cpu-simd/%s/kf_gemm.h",
                 kf_test_srcdir(), dirs[i]);
        char *copy = kf_test_read_file(path);
        KF_CHECK_MSG(copy && !strcmp(copy, ref), "%s differs from gemm_sub_mul_relu/kf_gemm.h",
                     path);
        free(copy);
    }
    free(ref);
}

int main(void)
{
    return kf_test_main();
}
