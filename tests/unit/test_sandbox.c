/* test_sandbox.c — the parts of the sandbox that are plain functions:
 * the environment allow-list, the build-option allow-list, layer names,
 * and the probe (which must find every layer on the machines CI uses). */
#include <stdlib.h>
#include <string.h>

#include "candidate/candidate.h"
#include "kf_test.h"
#include "sandbox/sandbox.h"

static int allowed(const char *name)
{
    return kf_sandbox_env_allowed(name, strlen(name));
}

KF_TEST(env_allow_list_passes_drivers_and_never_secrets)
{
    KF_CHECK(allowed("PATH"));
    KF_CHECK(allowed("OCL_ICD_VENDORS"));
    KF_CHECK(allowed("POCL_DEVICES"));
    KF_CHECK(allowed("CUDA_VISIBLE_DEVICES"));
    KF_CHECK(allowed("CUBLAS_WORKSPACE_CONFIG"));
    KF_CHECK(!allowed("CUBLAS_LOGDEST_DBG"));   /* cuBLAS's log file: not passed */
    KF_CHECK(allowed("LC_ALL"));
    KF_CHECK(allowed("KFORGE_CC"));
    KF_CHECK(!allowed("OPENAI_API_KEY"));
    KF_CHECK(!allowed("ANTHROPIC_API_KEY"));
    KF_CHECK(!allowed("GITHUB_TOKEN"));
    KF_CHECK(!allowed("AWS_SECRET_ACCESS_KEY"));
    KF_CHECK(!allowed("HOME"));          /* replaced by the work directory */
    KF_CHECK(!allowed("SSH_AUTH_SOCK"));
    KF_CHECK(!allowed("CUDA_AUTH_TOKEN"));   /* an allowed prefix does not excuse a secret */
    KF_CHECK(!allowed(""));
    setenv("KFORGE_SANDBOX_PASSENV", "MY_TOOL_DIR:OTHER", 1);
    KF_CHECK(allowed("MY_TOOL_DIR"));
    KF_CHECK(!allowed("MY_TOOL"));
    setenv("KFORGE_SANDBOX_PASSENV", "MY_API_KEY", 1);
    KF_CHECK(!allowed("MY_API_KEY"));    /* never, even when asked */
    unsetenv("KFORGE_SANDBOX_PASSENV");
}

KF_TEST(env_of_a_worker)
{
    char *start[] = {"PATH=/usr/bin", "OPENAI_API_KEY=sk-1", "HOME=/root", "TMPDIR=/tmp", "POCL_DEBUG=1", NULL};
    char **env = kf_sandbox_env(start, "/w/build");
    KF_CHECK(env != NULL);
    int path = 0, key = 0, home = 0, tmp = 0, pocl = 0;
    for (char **e = env; *e; e++) {
        path += !strcmp(*e, "PATH=/usr/bin");
        key += !strncmp(*e, "OPENAI", 6);
        home += !strcmp(*e, "HOME=/w/build");
        tmp += !strcmp(*e, "TMPDIR=/w/build");
        pocl += !strcmp(*e, "POCL_DEBUG=1");
    }
    KF_CHECK_INT(path, 1);
    KF_CHECK_INT(key, 0);
    KF_CHECK_INT(home, 1);
    KF_CHECK_INT(tmp, 1);
    KF_CHECK_INT(pocl, 1);
    KF_CHECK_INT(kf_sandbox_env_set(&env, "ASAN_OPTIONS", "a=1", 1), 0);
    KF_CHECK_INT(kf_sandbox_env_set(&env, "ASAN_OPTIONS", "b=2", 1), 0);
    int asan = 0;
    for (char **e = env; *e; e++) asan += !strcmp(*e, "ASAN_OPTIONS=a=1:b=2");
    KF_CHECK_INT(asan, 1);
    kf_sandbox_env_free(env);
}

KF_TEST(build_options_allow_list)
{
    char why[400];
    const char *good[] = {"", "-O2", "-Ofast -ffast-math -funroll-loops", "-march=native -mavx2",
                          "-DTS=64 -DWPT=8 -UNDEBUG", "-std=gnu17", "-cl-mad-enable -cl-fast-relaxed-math",
                          "-lopenblas", "-Wall -Wno-unused -w", "-fopenmp-simd",
                          "-L/usr/lib/x86_64-linux-gnu/openblas-openmp -Wl,-rpath,/usr/lib/x86_64-linux-gnu/openblas-openmp -lopenblas",
                          "-L/usr/lib/x86_64-linux-gnu/openblas-openmp -l:libopenblas.so.0"};
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++)
        KF_CHECK_MSG(kf_build_options_check(good[i], why, sizeof why) == 0, "'%s': %s", good[i], why);
    const char *bad[] = {"-wrapper /bin/sh", "@/etc/passwd", "-fplugin=x.so", "-B/tmp", "-Wl,-T,/etc/x",
                         "-Wa,-a=/tmp/x", "-Xlinker -T", "-include /etc/shadow", "-I/root", "-imacros /x",
                         "-specs=/x", "-o /tmp/x", "-MF/tmp/dep", "-DX=\"$(id)\"", "-fdump-tree-all",
                         "-fprofile-generate", "-save-temps", "/etc/passwd", "-Lrelative",
                         "-L/usr/../root", "-Wl,-rpath,/x,--script=/etc/passwd", "-Wl,-T,/x",
                         "-l:/etc/passwd", "-l:../x.so", "-l:", "-l:$(id)"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        KF_CHECK_MSG(kf_build_options_check(bad[i], why, sizeof why) == -1, "'%s' was allowed", bad[i]);
        KF_CHECK_CONTAINS(why, "is not allowed");
    }
}

KF_TEST(layer_names)
{
    char buf[128];
    kf_sandbox_layers_text(KF_SB_ALL, buf, sizeof buf);
    KF_CHECK_STR(buf, "rlimits env caps pidns netns landlock seccomp noexec");
    kf_sandbox_layers_text(0, buf, sizeof buf);
    KF_CHECK_STR(buf, "none");
    kf_sandbox_missing_text(KF_SB_ALL & ~(KF_SB_LANDLOCK | KF_SB_NETNS), buf, sizeof buf);
    KF_CHECK_STR(buf, "netns landlock");
    KF_CHECK_INT(kf_sandbox_mode_parse("strict"), KF_SANDBOX_STRICT);
    KF_CHECK_INT(kf_sandbox_mode_parse("off"), KF_SANDBOX_OFF);
    KF_CHECK_INT(kf_sandbox_mode_parse("auto"), KF_SANDBOX_AUTO);
    KF_CHECK_INT(kf_sandbox_mode_parse("yes"), -1);
    KF_CHECK(kf_sandbox_default_mem() >= (2ull << 30));
}

/* The CI machine (root on Debian 12, kernel with Landlock) grants every
 * layer; a machine that does not would say why here. */
KF_TEST(probe_finds_every_layer_here)
{
    char why[512];
    unsigned got = kf_sandbox_probe(why, sizeof why);
    KF_CHECK_MSG(got == KF_SB_ALL, "layers 0x%x: %s", got, why);
}

int main(void)
{
    return kf_test_main();
}
