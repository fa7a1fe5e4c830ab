/*
 * ocl_cache.c — building programs, with a cache in memory (per process) and
 * on disk (program binaries under $XDG_CACHE_HOME/kforge/opencl, else
 * ~/.cache/kforge/opencl), keyed by a 128-bit hash of the sources, the
 * build options and the device's name, platform and driver versions.
 * Workers are fresh processes, so the disk cache is what saves rebuilds
 * across evaluations.  KFORGE_OPENCL_CACHE=0 turns the disk cache off.
 *
 * Disk format: "KFCLBIN1\n", u64 log length, log, u64 binary length, binary;
 * written to a temporary file and renamed into place.
 */
#include "ocl.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define KFCL_MEMCACHE 32
#define KFCL_MAGIC "KFCLBIN1\n"

typedef struct memcache_entry {
    char key[33];
    cl_device_id dev;
    cl_program prog;
    char *log;
} memcache_entry;

static memcache_entry g_mem[KFCL_MEMCACHE];
static int g_mem_next;

/* ----------------------------------------------------------------- hash */

typedef struct hash128 { uint64_t a, b; } hash128;

static void hash_bytes(hash128 *h, const void *p, size_t n)
{
    const unsigned char *s = p;
    for (size_t i = 0; i < n; i++) {
        h->a = (h->a ^ s[i]) * 0x100000001b3ULL;
        h->b = (h->b ^ s[i]) * 0x100000001b3ULL;
        h->b ^= h->b >> 29;
    }
}

/* Hashes a string with its length so that field boundaries count. */
static void hash_str(hash128 *h, const char *s)
{
    uint64_t n = s ? strlen(s) : 0;
    hash_bytes(h, &n, sizeof n);
    if (n) hash_bytes(h, s, n);
}

static void cache_key(const kfcl_device *d, const kf_candidate_view *c, char out[33])
{
    hash128 h = {0xcbf29ce484222325ULL, 0x84222325cbf29ce4ULL};
    hash_str(&h, "kforge-opencl-cache-v2");
    hash_str(&h, d->name);
    hash_str(&h, d->platform_name);
    hash_str(&h, d->platform_version);
    hash_str(&h, d->driver_version);
    hash_str(&h, c->build_options ? c->build_options : "");
    for (int i = 0; i < c->n_sources; i++) {
        hash_str(&h, c->sources[i].name);
        /* text: its characters (a caller may leave size 0); binary: size bytes */
        uint64_t fmt = c->sources[i].format;
        uint64_t n = fmt == KF_SRC_SPIRV || fmt == KF_SRC_CUBIN ? c->sources[i].size
                   : c->sources[i].text ? strlen(c->sources[i].text) : 0;
        hash_bytes(&h, &fmt, sizeof fmt);
        hash_bytes(&h, &n, sizeof n);
        if (n) hash_bytes(&h, c->sources[i].text, (size_t)n);
    }
    snprintf(out, 33, "%016llx%016llx", (unsigned long long)h.a, (unsigned long long)h.b);
}

/* ----------------------------------------------------------- disk cache */

static int mkdir_p(char *path)
{
    for (char *p = path + 1; *p; p++) {
        if (*p != '/') continue;
        *p = 0;
        int r = mkdir(path, 0755);
        *p = '/';
        if (r != 0 && errno != EEXIST) return -1;
    }
    return (mkdir(path, 0755) == 0 || errno == EEXIST) ? 0 : -1;
}

/* malloc'ed cache directory (created), or NULL when disabled/unusable. */
static char *cache_dir(void)
{
    const char *off = getenv("KFORGE_OPENCL_CACHE");
    if (off && strcmp(off, "0") == 0) return NULL;
    const char *xdg = getenv("XDG_CACHE_HOME");
    const char *home = getenv("HOME");
    char *dir;
    if (xdg && *xdg) dir = kf_strf("%s/kforge/opencl", xdg);
    else if (home && *home) dir = kf_strf("%s/.cache/kforge/opencl", home);
    else return NULL;
    if (dir && mkdir_p(dir) != 0) { free(dir); return NULL; }
    return dir;
}

static int read_u64(FILE *f, uint64_t *v) { return fread(v, sizeof *v, 1, f) == 1 ? 0 : -1; }

/* Loads log and binary from path; 0 on success. */
static int disk_load(const char *path, char **log, unsigned char **bin, size_t *bin_len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return -1;
    char magic[sizeof KFCL_MAGIC - 1];
    uint64_t nlog = 0, nbin = 0;
    *log = NULL;
    *bin = NULL;
    int ok = fread(magic, 1, sizeof magic, f) == sizeof magic &&
             memcmp(magic, KFCL_MAGIC, sizeof magic) == 0 &&
             read_u64(f, &nlog) == 0 && nlog < ((uint64_t)1 << 26) &&
             (*log = malloc((size_t)nlog + 1)) != NULL &&
             fread(*log, 1, (size_t)nlog, f) == nlog &&
             read_u64(f, &nbin) == 0 && nbin > 0 && nbin < ((uint64_t)1 << 31) &&
             (*bin = malloc((size_t)nbin)) != NULL &&
             fread(*bin, 1, (size_t)nbin, f) == nbin;
    fclose(f);
    if (!ok) {
        free(*log);
        free(*bin);
        *log = NULL;
        *bin = NULL;
        return -1;
    }
    (*log)[nlog] = 0;
    *bin_len = (size_t)nbin;
    return 0;
}

static int disk_store(const char *path, const char *log, cl_program prog)
{
    size_t nbin = 0;
    if (clGetProgramInfo(prog, CL_PROGRAM_BINARY_SIZES, sizeof nbin, &nbin, NULL) != CL_SUCCESS ||
        nbin == 0)
        return -1;
    unsigned char *bin = malloc(nbin);
    if (!bin) return -1;
    unsigned char *bins[1] = {bin};
    int rc = -1;
    if (clGetProgramInfo(prog, CL_PROGRAM_BINARIES, sizeof bins, bins, NULL) == CL_SUCCESS) {
        char *tmp = kf_strf("%s.%ld.tmp", path, (long)getpid());
        FILE *f = tmp ? fopen(tmp, "wb") : NULL;
        if (f) {
            uint64_t nlog = strlen(log), nb = nbin;
            int ok = fwrite(KFCL_MAGIC, 1, sizeof KFCL_MAGIC - 1, f) == sizeof KFCL_MAGIC - 1 &&
                     fwrite(&nlog, sizeof nlog, 1, f) == 1 &&
                     fwrite(log, 1, (size_t)nlog, f) == nlog &&
                     fwrite(&nb, sizeof nb, 1, f) == 1 &&
                     fwrite(bin, 1, nbin, f) == nbin;
            if (fclose(f) != 0) ok = 0;
            if (ok && rename(tmp, path) == 0) rc = 0;
            else unlink(tmp);
        }
        free(tmp);
    }
    free(bin);
    return rc;
}

/* ---------------------------------------------------------------- build */

static char *build_log(cl_program prog, cl_device_id dev)
{
    size_t n = 0;
    if (clGetProgramBuildInfo(prog, dev, CL_PROGRAM_BUILD_LOG, 0, NULL, &n) != CL_SUCCESS)
        return kf_strf("%s", "");
    char *log = malloc(n + 1);
    if (!log) return NULL;
    if (clGetProgramBuildInfo(prog, dev, CL_PROGRAM_BUILD_LOG, n, log, NULL) != CL_SUCCESS) n = 0;
    log[n] = 0;
    /* trim trailing whitespace and NULs */
    size_t len = strlen(log);
    while (len && (log[len - 1] == '\n' || log[len - 1] == ' ' || log[len - 1] == '\r'))
        log[--len] = 0;
    return log;
}

static void memcache_put(const char *key, cl_device_id dev, cl_program prog, const char *log)
{
    memcache_entry *e = &g_mem[g_mem_next];
    g_mem_next = (g_mem_next + 1) % KFCL_MEMCACHE;
    if (e->prog) clReleaseProgram(e->prog);
    free(e->log);
    snprintf(e->key, sizeof e->key, "%s", key);
    e->dev = dev;
    e->prog = prog;
    clRetainProgram(prog);
    e->log = strdup(log ? log : "");
}

static memcache_entry *memcache_get(const char *key, cl_device_id dev)
{
    for (int i = 0; i < KFCL_MEMCACHE; i++)
        if (g_mem[i].prog && g_mem[i].dev == dev && strcmp(g_mem[i].key, key) == 0)
            return &g_mem[i];
    return NULL;
}

static cl_program try_disk(kfcl_device *d, const char *path, const char *options, char **log)
{
    unsigned char *bin = NULL;
    size_t n = 0;
    if (disk_load(path, log, &bin, &n) != 0) return NULL;
    cl_int st = CL_SUCCESS, e = CL_SUCCESS;
    const unsigned char *bins[1] = {bin};
    cl_program p = clCreateProgramWithBinary(d->ctx, 1, &d->id, &n, bins, &st, &e);
    free(bin);
    if (p && (e != CL_SUCCESS || st != CL_SUCCESS ||
              clBuildProgram(p, 1, &d->id, options, NULL, NULL) != CL_SUCCESS)) {
        clReleaseProgram(p);
        p = NULL;
    }
    if (!p) {
        free(*log);
        *log = NULL;
        unlink(path);   /* stale or foreign binary: rebuild and replace */
    }
    return p;
}

kf_status kfcl_program_get(kfcl_device *d, const kf_candidate_view *c, cl_program *prog,
                           char **log, kfcl_cache_src *src, char **note, char **error)
{
    const char *options = c->build_options ? c->build_options : "";
    char key[33];
    cache_key(d, c, key);
    *prog = NULL;
    *log = NULL;
    *note = NULL;

    memcache_entry *m = memcache_get(key, d->id);
    if (m) {
        clRetainProgram(m->prog);
        *prog = m->prog;
        *log = strdup(m->log);
        *src = KFCL_HIT_MEMORY;
        *note = kf_strf("opencl: program cache hit (memory, key %s)", key);
        return KF_OK;
    }

    char *dir = cache_dir();
    char *path = dir ? kf_strf("%s/%s.bin", dir, key) : NULL;
    free(dir);
    if (path) {
        cl_program p = try_disk(d, path, options, log);
        if (p) {
            memcache_put(key, d->id, p, *log);
            *prog = p;
            *src = KFCL_HIT_DISK;
            *note = kf_strf("opencl: program cache hit (disk, %s)", path);
            free(path);
            return KF_OK;
        }
    }

    cl_int e = CL_SUCCESS;
    cl_program p;
    if (c->n_sources >= 1 && c->sources[0].format == KF_SRC_SPIRV) {
        kf_status st = kfcl_program_from_il(d, c, &p, error);
        if (st != KF_OK) {
            free(path);
            return st;
        }
    } else {
        const char **texts = calloc((size_t)(c->n_sources > 0 ? c->n_sources : 1), sizeof *texts);
        if (!texts) { free(path); return kf_hook_fail(error, KF_ERR_NOMEM, "out of memory"); }
        for (int i = 0; i < c->n_sources; i++) texts[i] = c->sources[i].text;
        p = clCreateProgramWithSource(d->ctx, (cl_uint)c->n_sources, texts, NULL, &e);
        free(texts);
        if (!p) {
            free(path);
            return kf_hook_fail(error, KF_ERR_INTERNAL, "clCreateProgramWithSource failed: %s",
                                kfcl_err_name(e));
        }
    }
    e = clBuildProgram(p, 1, &d->id, options, NULL, NULL);
    *log = build_log(p, d->id);
    if (e != CL_SUCCESS) {
        clReleaseProgram(p);
        free(path);
        if (e == CL_BUILD_PROGRAM_FAILURE || e == CL_INVALID_BUILD_OPTIONS ||
            e == CL_COMPILE_PROGRAM_FAILURE) {
            kf_hook_fail(error, KF_ERR_COMPILE, "clBuildProgram failed: %s (options \"%s\")",
                         kfcl_err_name(e), options);
            return KF_ERR_COMPILE;
        }
        return kf_hook_fail(error, KF_ERR_INTERNAL, "clBuildProgram failed on '%s': %s",
                            d->name, kfcl_err_name(e));
    }
    memcache_put(key, d->id, p, *log);
    *prog = p;
    *src = KFCL_BUILT;
    if (path && disk_store(path, *log ? *log : "", p) == 0)
        *note = kf_strf("opencl: program built from source (cache miss; binary saved to %s)", path);
    else
        *note = kf_strf("opencl: program built from source (cache miss; disk cache %s)",
                        path ? "not writable" : "disabled");
    free(path);
    return KF_OK;
}
