/*
 * test_registry.c — plugin discovery against the fixture plugins of
 * tests/plugins/fixtures: good ones load, each bad one is skipped with its
 * own reason, and the search path rules hold.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../kf_test.h"
#include "backend/registry.h"

#ifndef KF_PLUGINDIR
#error "KF_PLUGINDIR must come from the build (AM_CPPFLAGS)"
#endif

static const char *const fixtures[] = {
    "kf-fixture-good.so", "kf-fixture-abi.so", "kf-fixture-name.so",
    "kf-fixture-nosym.so", "kf-fixture-small.so", "kf-fixture-unavail.so", "kf-fixture-reserved.so",
};

static void fixture_path(const char *file, char *out, size_t n)
{
    snprintf(out, n, "%s/tests/plugins/fixtures/.libs/%s", kf_test_builddir(), file);
    KF_CHECK_MSG(access(out, R_OK) == 0, "fixture %s missing (build check_LTLIBRARIES first): %s",
                 out, strerror(errno));
}

/* tmp/NAME with a symlink to every fixture, kf-garbage.so (not an ELF), a
 * README, a libtool .la companion and a kf-*.txt file.  Returns the dir. */
static char *make_plugin_dir(const char *name)
{
    static char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s/%s", kf_test_tmpdir(), name);
    KF_CHECK_MSG(mkdir(dir, 0755) == 0, "mkdir %s: %s", dir, strerror(errno));
    for (size_t i = 0; i < sizeof fixtures / sizeof fixtures[0]; i++) {
        char src[PATH_MAX], dst[PATH_MAX + 64];
        fixture_path(fixtures[i], src, sizeof src);
        snprintf(dst, sizeof dst, "%s/%s", dir, fixtures[i]);
        KF_CHECK_MSG(symlink(src, dst) == 0, "symlink %s: %s", dst, strerror(errno));
    }
    char p[PATH_MAX + 64];
    snprintf(p, sizeof p, "%s/kf-garbage.so", dir);
    KF_CHECK(kf_test_write_file(p, "this is a text file, not an ELF shared object: long enough (> 64 bytes)\n"
                                    "to be read as a header, which it is not.\n") == 0);
    snprintf(p, sizeof p, "%s/README", dir);
    KF_CHECK(kf_test_write_file(p, "plugins live here\n") == 0);
    snprintf(p, sizeof p, "%s/kf-fixture-good.la", dir);
    KF_CHECK(kf_test_write_file(p, "# libtool companion, must be ignored silently\n") == 0);
    snprintf(p, sizeof p, "%s/kf-notes.txt", dir);
    KF_CHECK(kf_test_write_file(p, "looks like ours, is not a shared object\n") == 0);
    return dir;
}

static const kf_skipped *find_skipped(const kf_registry *reg, const char *dir, const char *file)
{
    char path[PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    for (int i = 0; i < reg->n_skipped; i++)
        if (strcmp(reg->skipped[i].path, path) == 0) return &reg->skipped[i];
    return NULL;
}

static kf_registry *open_with_path(const char *path, int probe)
{
    KF_CHECK(setenv("KFORGE_PLUGIN_PATH", path, 1) == 0);
    kf_error err = {0};
    kf_registry *reg = kf_registry_open(probe, &err);
    KF_CHECK_MSG(reg != NULL, "kf_registry_open: %s", err.msg);
    return reg;
}

static void check_skipped(const kf_registry *reg, const char *dir, const char *file, const char *reason)
{
    const kf_skipped *s = find_skipped(reg, dir, file);
    KF_CHECK_MSG(s != NULL, "%s/%s is not in skipped", dir, file);
    KF_CHECK_CONTAINS(s->reason, reason);
}

KF_TEST(good_plugin_loads_and_probes_on_demand)
{
    char *dir = make_plugin_dir("p");
    kf_registry *reg = open_with_path(dir, 0);
    kf_plugin *p = kf_registry_find(reg, "fixture-good");
    KF_CHECK_MSG(p != NULL, "fixture-good was not loaded (%d plugins, %d skipped)", reg->n_plugins,
                 reg->n_skipped);
    KF_CHECK_STR(p->name, "fixture-good");
    KF_CHECK_STR(p->be->version, "1.2.3");
    KF_CHECK_INT(p->be->caps, KF_CAP_HOST_ENTRY);
    char want[PATH_MAX + 64];
    snprintf(want, sizeof want, "%s/kf-fixture-good.so", dir);
    KF_CHECK_STR(p->path, want);
    KF_CHECK_INT(p->probed, 0);                  /* probe only when asked */
    KF_CHECK_INT(kf_plugin_probe(p), 1);
    KF_CHECK_INT(p->probed, 1);
    KF_CHECK_INT(p->probe_status, KF_OK);
    KF_CHECK(p->probe_why == NULL);
    KF_CHECK_INT(p->n_devices, 1);
    KF_CHECK_STR(p->devices[0].name, "fixture-device");
    KF_CHECK_STR(p->devices[0].kind, "cpu");
    KF_CHECK_NEAR(p->devices[0].peak_flops, 12.5e9, 1.0);
    KF_CHECK_NEAR(p->devices[0].peak_bytes_per_s, 3.25e9, 1.0);
    KF_CHECK_INT(p->devices[0].peak_flops_measured, 1);
    const kf_device_info *first = p->devices;
    KF_CHECK_INT(kf_plugin_probe(p), 1);         /* cached: same array */
    KF_CHECK(p->devices == first);
    KF_CHECK(kf_registry_find(reg, "no-such-backend") == NULL);
    KF_CHECK(kf_registry_find(NULL, "fixture-good") == NULL);
    kf_registry_close(reg);

    reg = open_with_path(dir, 1);                /* probe at open */
    p = kf_registry_find(reg, "fixture-good");
    KF_CHECK(p != NULL);
    KF_CHECK_INT(p->probed, 1);
    KF_CHECK_INT(p->n_devices, 1);
    kf_registry_close(reg);
}

KF_TEST(bad_plugins_are_skipped_with_their_reason)
{
    char *dir = make_plugin_dir("p");
    kf_registry *reg = open_with_path(dir, 1);
    check_skipped(reg, dir, "kf-fixture-abi.so",
                  "built for plugin ABI 2, this kforge speaks ABI 1: rebuild it against kforge-plugin.h 1.x");
    check_skipped(reg, dir, "kf-fixture-name.so", "declares name 'foo' but its file name says 'fixture-name'");
    check_skipped(reg, dir, "kf-fixture-nosym.so", "missing symbol 'kforge_backend_fixture_nosym'");
    check_skipped(reg, dir, "kf-fixture-nosym.so", "KF_BACKEND_EXPORT(fixture_nosym)");
    check_skipped(reg, dir, "kf-fixture-small.so", "struct_size is");
    check_skipped(reg, dir, "kf-fixture-reserved.so", "reserved[2] is not NULL");
    check_skipped(reg, dir, "kf-garbage.so", "not loadable: ");
    check_skipped(reg, dir, "kf-notes.txt", "not a plugin file name");
    KF_CHECK(find_skipped(reg, dir, "README") == NULL);
    KF_CHECK(find_skipped(reg, dir, "kf-fixture-good.la") == NULL);
    KF_CHECK(find_skipped(reg, dir, "kf-fixture-good.so") == NULL);
    /* the refused ones are not plugins; the good one still is */
    KF_CHECK(kf_registry_find(reg, "fixture-abi") == NULL);
    KF_CHECK(kf_registry_find(reg, "fixture-name") == NULL);
    KF_CHECK(kf_registry_find(reg, "foo") == NULL);
    KF_CHECK(kf_registry_find(reg, "fixture-nosym") == NULL);
    KF_CHECK(kf_registry_find(reg, "fixture-small") == NULL);
    KF_CHECK(kf_registry_find(reg, "fixture-reserved") == NULL);
    KF_CHECK(kf_registry_find(reg, "garbage") == NULL);
    KF_CHECK(kf_registry_find(reg, "fixture-good") != NULL);
    int in_dir = 0;
    for (int i = 0; i < reg->n_plugins; i++)
        if (strncmp(reg->plugins[i].path, dir, strlen(dir)) == 0) in_dir++;
    KF_CHECK_INT(in_dir, 2);                     /* fixture-good and fixture-unavail */
    kf_registry_close(reg);
}

KF_TEST(unavailable_backend_loads_and_says_why)
{
    char *dir = make_plugin_dir("p");
    kf_registry *reg = open_with_path(dir, 1);
    kf_plugin *p = kf_registry_find(reg, "fixture-unavail");
    KF_CHECK_MSG(p != NULL, "a plugin that cannot run here must still be listed");
    KF_CHECK_INT(p->probed, 1);
    KF_CHECK_INT(p->probe_status, KF_ERR_UNAVAILABLE);
    KF_CHECK_STR(p->probe_why, "no fixture driver on this machine; install libfixture");
    KF_CHECK_INT(p->n_devices, 0);
    KF_CHECK_INT(kf_plugin_probe(p), -1);
    kf_registry_close(reg);
}

KF_TEST(garbage_reason_is_the_loader_error)
{
    char *dir = make_plugin_dir("p");
    kf_registry *reg = open_with_path(dir, 0);
    const kf_skipped *s = find_skipped(reg, dir, "kf-garbage.so");
    KF_CHECK(s != NULL);
    /* the system loader's own words, not libltdl's blanket "file not found"
     * for a file that is right there */
    KF_CHECK_CONTAINS(s->reason, "not loadable: ");
    KF_CHECK_CONTAINS(s->reason, "invalid ELF header");
    KF_CHECK_MSG(!strstr(s->reason, "file not found"), "misleading reason: %s", s->reason);
    kf_registry_close(reg);
}

KF_TEST(missing_and_empty_path_entries_are_not_fatal)
{
    char *dir = make_plugin_dir("p");
    char path[PATH_MAX * 2];
    snprintf(path, sizeof path, "/nonexistent/kforge-plugins::%s:", dir);
    kf_registry *reg = open_with_path(path, 0);
    KF_CHECK(kf_registry_find(reg, "fixture-good") != NULL);
    int noted = 0;
    for (int i = 0; i < reg->n_skipped; i++)
        if (strcmp(reg->skipped[i].path, "/nonexistent/kforge-plugins") == 0) {
            KF_CHECK_CONTAINS(reg->skipped[i].reason, "no such directory");
            noted = 1;
        }
    KF_CHECK_MSG(noted, "the missing directory is not noted");
    char want[PATH_MAX * 3];
    snprintf(want, sizeof want, "/nonexistent/kforge-plugins:%s:%s", dir, KF_PLUGINDIR);
    KF_CHECK_STR(reg->search_path, want);
    kf_registry_close(reg);
}

KF_TEST(later_duplicate_is_shadowed)
{
    char *a = strdup(make_plugin_dir("a"));
    char b[PATH_MAX];
    snprintf(b, sizeof b, "%s/b", kf_test_tmpdir());
    KF_CHECK(mkdir(b, 0755) == 0);
    char src[PATH_MAX], cmd[3 * PATH_MAX];
    fixture_path("kf-fixture-good.so", src, sizeof src);
    snprintf(cmd, sizeof cmd, "cp '%s' '%s/kf-fixture-good.so'", src, b);
    char *out = NULL;
    KF_CHECK_INT(kf_test_run(cmd, &out), 0);
    free(out);
    char path[3 * PATH_MAX];
    snprintf(path, sizeof path, "%s:%s", a, b);
    kf_registry *reg = open_with_path(path, 0);
    kf_plugin *p = kf_registry_find(reg, "fixture-good");
    KF_CHECK(p != NULL);
    char first[PATH_MAX + 64];
    snprintf(first, sizeof first, "%s/kf-fixture-good.so", a);
    KF_CHECK_STR(p->path, first);
    const kf_skipped *s = find_skipped(reg, b, "kf-fixture-good.so");
    KF_CHECK_MSG(s != NULL, "the later copy is not in skipped");
    char want[PATH_MAX + 80];
    snprintf(want, sizeof want, "shadowed by %s", first);
    KF_CHECK_CONTAINS(s->reason, want);
    kf_registry_close(reg);

    /* the same directory twice (two spellings) is scanned once: nothing shadows itself */
    snprintf(path, sizeof path, "%s:%s/.", a, a);
    reg = open_with_path(path, 0);
    KF_CHECK(kf_registry_find(reg, "fixture-good") != NULL);
    for (int i = 0; i < reg->n_skipped; i++)
        KF_CHECK_MSG(!strstr(reg->skipped[i].reason, "shadowed"), "%s: %s", reg->skipped[i].path,
                     reg->skipped[i].reason);
    kf_registry_close(reg);
    free(a);
}

KF_TEST(plugin_open_works_alone)
{
    char path[PATH_MAX];
    fixture_path("kf-fixture-good.so", path, sizeof path);
    kf_plugin p;
    kf_error err = {0};
    KF_CHECK_MSG(kf_plugin_open(path, &p, &err) == 0, "%s", err.msg);
    KF_CHECK_STR(p.name, "fixture-good");
    KF_CHECK_STR(p.path, path);
    KF_CHECK_INT(kf_plugin_probe(&p), 1);
    kf_plugin_close(&p);
    KF_CHECK(p.name == NULL && p.handle == NULL);
    kf_plugin_close(&p);                         /* twice is harmless */

    /* libtool's other spellings of the same module: the .la, and no extension */
    char alt[PATH_MAX + 16];
    snprintf(alt, sizeof alt, "%s/tests/plugins/fixtures/kf-fixture-good.la", kf_test_builddir());
    KF_CHECK_MSG(kf_plugin_open(alt, &p, &err) == 0, "%s", err.msg);
    KF_CHECK_STR(p.name, "fixture-good");
    kf_plugin_close(&p);
    snprintf(alt, sizeof alt, "%s/tests/plugins/fixtures/.libs/kf-fixture-good", kf_test_builddir());
    KF_CHECK_MSG(kf_plugin_open(alt, &p, &err) == 0, "%s", err.msg);
    KF_CHECK_STR(p.name, "fixture-good");
    kf_plugin_close(&p);

    fixture_path("kf-fixture-abi.so", path, sizeof path);
    KF_CHECK_INT(kf_plugin_open(path, &p, &err), -1);
    KF_CHECK_CONTAINS(err.msg, path);
    KF_CHECK_CONTAINS(err.msg, "built for plugin ABI 2");
    KF_CHECK(p.name == NULL && p.handle == NULL);

    KF_CHECK_INT(kf_plugin_open("/nonexistent/kf-nothing.so", &p, &err), -1);
    KF_CHECK_CONTAINS(err.msg, "/nonexistent/kf-nothing.so: not loadable: No such file or directory");
    KF_CHECK_INT(kf_plugin_open("", &p, &err), -1);
    KF_CHECK_INT(kf_plugin_open("/x/kf-.so", &p, &err), -1);
    KF_CHECK_CONTAINS(err.msg, "does not give a backend name");
}

/* probe bookkeeping without a shared object: a hand-made vtable */
static int unavailable_calls;
static kf_status probe_unavailable(kf_device_info *d, int max, int *n, char *why, size_t len)
{
    (void)d;
    (void)max;
    unavailable_calls++;
    *n = 0;
    snprintf(why, len, "no fixture driver here; install one");
    return KF_ERR_UNAVAILABLE;
}
static kf_status probe_silent_zero(kf_device_info *d, int max, int *n, char *why, size_t len)
{
    (void)d;
    (void)max;
    (void)why;
    (void)len;
    *n = 0;
    return KF_OK;
}

KF_TEST(probe_failures_are_cached_with_reason)
{
    kf_backend be = {.abi_major = 1, .struct_size = sizeof be, .name = "hand", .probe = probe_unavailable};
    kf_plugin p = {.name = strdup("hand"), .be = &be};
    KF_CHECK_INT(kf_plugin_probe(&p), -1);
    KF_CHECK_INT(p.probe_status, KF_ERR_UNAVAILABLE);
    KF_CHECK_STR(p.probe_why, "no fixture driver here; install one");
    KF_CHECK_INT(kf_plugin_probe(&p), -1);
    KF_CHECK_INT(unavailable_calls, 1);
    kf_plugin_close(&p);

    be.probe = probe_silent_zero;
    p = (kf_plugin){.name = strdup("hand"), .be = &be};
    KF_CHECK_INT(kf_plugin_probe(&p), -1);
    KF_CHECK_CONTAINS(p.probe_why, "no device");
    kf_plugin_close(&p);

    be.probe = NULL;
    p = (kf_plugin){.name = strdup("hand"), .be = &be};
    KF_CHECK_INT(kf_plugin_probe(&p), -1);
    KF_CHECK_CONTAINS(p.probe_why, "no probe hook");
    kf_plugin_close(&p);
}

KF_TEST(name_from_path)
{
    static const struct { const char *path, *name; } cases[] = {
        {"/usr/lib/kforge/plugins/kf-cpu-simd.so", "cpu-simd"},
        {"kf-opencl.so", "opencl"},
        {"/x/levelzero.so", "levelzero"},
        {"/x.so/kf-y.so", "y"},
        {"kf-level_zero.la", "level_zero"},
        {"/p/kf-cuda", "cuda"},
        {"kf-kf-x.so", "kf-x"},
        {"kf-.so", NULL},
        {".so", NULL},
        {"/x/kf-a.b.so", NULL},
        {"/x/kf-a b.so", NULL},
        {"/x/kf--lead.so", NULL},
        {"/x/", NULL},
        {"", NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *got = kf_plugin_name_from_path(cases[i].path);
        if (cases[i].name)
            KF_CHECK_MSG(got && strcmp(got, cases[i].name) == 0, "%s -> %s, expected %s", cases[i].path,
                         got ? got : "NULL", cases[i].name);
        else
            KF_CHECK_MSG(got == NULL, "%s -> %s, expected NULL", cases[i].path, got);
        free(got);
    }
    KF_CHECK(kf_plugin_name_from_path(NULL) == NULL);
}

KF_TEST(search_path_string)
{
    KF_CHECK(setenv("KFORGE_PLUGIN_PATH", "/a::/b:/a:", 1) == 0);
    char *s = kf_plugin_search_path();
    KF_CHECK_STR(s, "/a:/b:" KF_PLUGINDIR);
    free(s);
    KF_CHECK(unsetenv("KFORGE_PLUGIN_PATH") == 0);
    s = kf_plugin_search_path();
    KF_CHECK_STR(s, KF_PLUGINDIR);
    free(s);
}

/* A plan with tensor maps (ABI 1.5) never reaches a plugin built for
 * 1.0-1.4, which would not know the argument kind: kf_plugin_compile and
 * kf_plugin_compile_offline refuse it with the reason; a 1.5 plugin gets it. */
static int compiled;
static kf_status fake_compile(const kf_compile_request *req, kf_artifact **out, char **diag)
{
    (void)req; (void)diag;
    *out = NULL;
    compiled++;
    return KF_OK;
}
static kf_status fake_offline(const kf_compile_request *req, const char *target, void **bin, size_t *n,
                              char **report, char **diag)
{
    (void)req; (void)target; (void)report; (void)diag;
    *bin = NULL;
    *n = 0;
    compiled++;
    return KF_OK;
}

KF_TEST(tensor_maps_need_abi_1_5)
{
    kf_backend be;
    memset(&be, 0, sizeof be);
    be.abi_major = 1;
    be.struct_size = sizeof be;
    be.name = "fake";
    be.compile = fake_compile;
    be.compile_offline = fake_offline;
    kf_plugin pl;
    memset(&pl, 0, sizeof pl);
    pl.name = "fake";
    pl.be = &be;
    kf_tensor_map t;
    memset(&t, 0, sizeof t);
    kf_candidate_view cv;
    memset(&cv, 0, sizeof cv);
    cv.struct_size = sizeof cv;
    cv.n_tensor_maps = 1;
    cv.tensor_maps = &t;
    cv.tensor_map_size = sizeof t;
    kf_compile_request req = {&cv, NULL, 0, "/tmp"};
    kf_artifact *art = NULL;
    char *diag = NULL;
    void *bin = NULL;
    size_t n = 0;
    for (int minor = 1; minor <= 4; minor++) {
        be.abi_minor = (uint32_t)minor;
        compiled = 0;
        KF_CHECK_INT(kf_plugin_compile(&pl, &req, &art, &diag), KF_ERR_INVALID);
        KF_CHECK_CONTAINS(diag, "passes tensor maps, which this backend's plugin (built for ABI 1.0-1.4) does not take");
        if (minor >= 2) KF_CHECK_INT(kf_plugin_compile_offline(&pl, &req, "x", &bin, &n, NULL, &diag), KF_ERR_INVALID);
        KF_CHECK_INT(compiled, 0);
    }
    be.abi_minor = 5;
    compiled = 0;
    KF_CHECK_INT(kf_plugin_compile(&pl, &req, &art, &diag), KF_OK);
    KF_CHECK_INT(kf_plugin_compile_offline(&pl, &req, "x", &bin, &n, NULL, &diag), KF_OK);
    KF_CHECK_INT(compiled, 2);
    /* without maps an older plugin compiles as before */
    be.abi_minor = 4;
    cv.n_tensor_maps = 0;
    KF_CHECK_INT(kf_plugin_compile(&pl, &req, &art, &diag), KF_OK);
    KF_CHECK_INT(compiled, 3);
    free(diag);
}

int main(void)
{
    return kf_test_main();
}
