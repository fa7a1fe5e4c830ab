/* sandbox_env.c — the environment a worker gets: an allow-list, never a
 * secret, HOME and TMPDIR pointing at its private work directory
 * (sandbox.h). */
#include "sandbox.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Exact names and prefixes (ending in '_' or '*') that pass. */
static const char *const allowed[] = {
    "PATH", "LANG", "LANGUAGE", "LC_*", "TZ", "TERM",
    /* compilers and threads of the in-tree backends */
    "KFORGE_CC", "KFORGE_SANDBOX_READ", "KFORGE_CLANG", "KFORGE_LLVM_SPIRV", "KFORGE_SPIRV_VAL", "KFORGE_THREADS", "KFORGE_OPENCL_*", "KFORGE_CUDA_*", "KFORGE_ZE_*", "OMP_*", "GOMP_*",
    "OPENBLAS_*", "MKL_NUM_THREADS",
    /* drivers */
    "OCL_ICD_*", "OPENCL_*", "POCL_*", "CUDA_*", "NVIDIA_*", "__GL_*", "ZE_*", "ZEL_*", "SYCL_*",
    "NEO_*", "IGC_*", "HWLOC_*", "LD_LIBRARY_PATH",
    /* cuBLAS (the cuda plugin's library launches): its workspace setting
       only (PyTorch's determinism knob); not its log variables, which name
       files to write */
    "CUBLAS_WORKSPACE_CONFIG",
    /* sanitizer runtimes of a sanitized build */
    "ASAN_OPTIONS", "UBSAN_OPTIONS", "LSAN_OPTIONS",
};

/* Substrings that mark a secret, whatever the allow-list says. */
static const char *const secret_marks[] = {"KEY", "TOKEN", "SECRET", "PASSW", "CREDENTIAL", "AUTH", "COOKIE",
                                           "SESSION"};

static int name_matches(const char *pat, const char *name, size_t len)
{
    size_t pl = strlen(pat);
    if (pat[pl - 1] == '*') return len >= pl - 1 && !strncmp(pat, name, pl - 1);
    return len == pl && !strncmp(pat, name, len);
}

static int looks_secret(const char *name, size_t len)
{
    char up[256];
    if (len >= sizeof up) return 1;
    for (size_t i = 0; i < len; i++) up[i] = (char)(name[i] >= 'a' && name[i] <= 'z' ? name[i] - 32 : name[i]);
    up[len] = '\0';
    for (size_t i = 0; i < sizeof secret_marks / sizeof secret_marks[0]; i++)
        if (strstr(up, secret_marks[i])) return 1;
    return 0;
}

static int in_passenv(const char *name, size_t len)
{
    const char *list = getenv("KFORGE_SANDBOX_PASSENV");
    while (list && *list) {
        size_t k = strcspn(list, ":");
        if (k == len && !strncmp(list, name, len)) return 1;
        list += k + (list[k] == ':');
    }
    return 0;
}

int kf_sandbox_env_allowed(const char *name, size_t len)
{
    if (!len || looks_secret(name, len)) return 0;
    if (in_passenv(name, len)) return 1;
    for (size_t i = 0; i < sizeof allowed / sizeof allowed[0]; i++)
        if (name_matches(allowed[i], name, len)) return 1;
    return 0;
}

static char *var(const char *name, const char *value)
{
    size_t n = strlen(name) + strlen(value) + 2;
    char *s = malloc(n);
    if (s) snprintf(s, n, "%s=%s", name, value);
    return s;
}

char **kf_sandbox_env(char *const *env, const char *work_dir)
{
    size_t n = 0;
    while (env && env[n]) n++;
    char **out = calloc(n + 8, sizeof *out);
    if (!out) return NULL;
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        const char *eq = strchr(env[i], '=');
        if (!eq || !kf_sandbox_env_allowed(env[i], (size_t)(eq - env[i]))) continue;
        if (!(out[k++] = strdup(env[i]))) goto oom;
    }
    char cache[4200];
    snprintf(cache, sizeof cache, "%s/.cache", work_dir);
    const char *set[][2] = {{"HOME", work_dir}, {"TMPDIR", work_dir}, {"XDG_CACHE_HOME", cache},
                            {"KFORGE_SANDBOXED", "1"}};
    for (size_t i = 0; i < sizeof set / sizeof set[0]; i++)
        if (!(out[k++] = var(set[i][0], set[i][1]))) goto oom;
    return out;
oom:
    kf_sandbox_env_free(out);
    return NULL;
}

int kf_sandbox_env_set(char ***env, const char *name, const char *value, int append)
{
    size_t n = 0, len = strlen(name);
    char **e = *env;
    while (e[n]) n++;
    for (size_t i = 0; i < n; i++)
        if (!strncmp(e[i], name, len) && e[i][len] == '=') {
            char *v;
            if (append && e[i][len + 1]) {
                size_t k = strlen(e[i]) + strlen(value) + 2;
                if (!(v = malloc(k))) return -1;
                snprintf(v, k, "%s:%s", e[i], value);
            } else if (!(v = var(name, value))) {
                return -1;
            }
            free(e[i]);
            e[i] = v;
            return 0;
        }
    char **grown = realloc(e, (n + 2) * sizeof *grown);
    if (!grown) return -1;
    *env = grown;
    if (!(grown[n] = var(name, value))) return -1;
    grown[n + 1] = NULL;
    return 0;
}

void kf_sandbox_env_free(char **env)
{
    if (!env) return;
    for (size_t i = 0; env[i]; i++) free(env[i]);
    free(env);
}
