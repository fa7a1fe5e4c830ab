/* ref_cache.c — reference outputs on disk (ref_cache.h). */
#include "ref_cache.h"

#include "util/fileio.h"
#include "util/sha256.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define MAGIC "KFREF001"

int kf_refcache_enabled(const kf_resolved *r)
{
    const char *env = getenv("KFORGE_REF_CACHE");
    if (env && !strcmp(env, "0")) return 0;
    if (env && !strcmp(env, "1")) return 1;
    return r && r->flops >= KF_REF_CACHE_MIN_FLOP;
}

static void key_of(const kf_resolved *r, uint64_t seed, char hex[65])
{
    kf_sha256 h;
    unsigned char d[32];
    kf_sha256_init(&h);
    kf_sha256_update(&h, "kforge-reference", 16);
    uint32_t ver = KF_REFERENCE_VERSION;
    kf_sha256_update(&h, &ver, sizeof ver);
    kf_sha256_update(&h, r->problem->digest, sizeof r->problem->digest);
    kf_sha256_update(&h, r->dims, (size_t)r->problem->n_dims * sizeof *r->dims);
    kf_sha256_update(&h, &seed, sizeof seed);
    kf_sha256_final(&h, d);
    for (int i = 0; i < 32; i++) snprintf(hex + 2 * i, 3, "%02x", d[i]);
}

static char *entry_path(const kf_resolved *r, uint64_t seed)
{
    char *dir = kf_cache_dir("ref"), *path = NULL, key[65];
    if (!dir) return NULL;
    key_of(r, seed, key);
    if (asprintf(&path, "%s/%s", dir, key) < 0) path = NULL;
    free(dir);
    return path;
}

static int64_t out_elems(const kf_resolved *r, int o)
{
    return kf_shape_elems(&r->shapes[r->problem->outputs[o]]);
}

static int read_all(int fd, void *buf, size_t n)
{
    char *p = buf;
    while (n) {
        ssize_t k = read(fd, p, n);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) return -1;
        p += k;
        n -= (size_t)k;
    }
    return 0;
}

int kf_refcache_load(const kf_resolved *r, uint64_t seed, double **ref)
{
    char *path = entry_path(r, seed);
    if (!path) return -1;
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    free(path);
    if (fd < 0) return -1;
    int n = r->problem->n_outputs, rc = -1;
    struct stat sb;
    size_t want = 8 + sizeof(uint32_t);
    for (int o = 0; o < n; o++) want += (size_t)out_elems(r, o) * sizeof(float);
    char magic[8];
    uint32_t no = 0;
    double **tmp = calloc((size_t)n + 1, sizeof *tmp);
    float *buf = NULL;
    if (!tmp || fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode) || (size_t)sb.st_size != want ||
        read_all(fd, magic, 8) != 0 || memcmp(magic, MAGIC, 8) || read_all(fd, &no, sizeof no) != 0 ||
        no != (uint32_t)n)
        goto out;
    for (int o = 0; o < n; o++) {
        size_t m = (size_t)out_elems(r, o);
        float *nb = realloc(buf, (m ? m : 1) * sizeof *buf);
        if (!nb || !(tmp[o] = malloc((m ? m : 1) * sizeof **tmp))) {
            if (nb) buf = nb;
            goto out;
        }
        buf = nb;
        if (read_all(fd, buf, m * sizeof *buf) != 0) goto out;
        for (size_t i = 0; i < m; i++) tmp[o][i] = buf[i];
    }
    for (int o = 0; o < n; o++) {
        ref[o] = tmp[o];
        tmp[o] = NULL;
    }
    rc = 0;
    futimens(fd, NULL);     /* recently used: evicted last */
out:
    close(fd);
    for (int o = 0; tmp && o < n; o++) free(tmp[o]);
    free(tmp);
    free(buf);
    return rc;
}

typedef struct ent { char *path; time_t t; off_t size; } ent;

static int by_time(const void *a, const void *b)
{
    const ent *x = a, *y = b;
    return (x->t > y->t) - (x->t < y->t);
}

/* Removes the least recently used entries until the directory holds at
 * most the cap. */
static void evict(const char *dir)
{
    const char *env = getenv("KFORGE_REF_CACHE_MAX");
    double cap = env && *env ? strtod(env, NULL) : 16.0 * (1 << 30);
    DIR *d = opendir(dir);
    if (!d) return;
    ent *v = NULL;
    int n = 0, cap_n = 0;
    double total = 0;
    struct dirent *de;
    while ((de = readdir(d))) {
        if (strlen(de->d_name) != 64) continue;        /* entries only, not the secret */
        char *p = NULL;
        struct stat sb;
        if (asprintf(&p, "%s/%s", dir, de->d_name) < 0) break;
        if (stat(p, &sb) != 0 || !S_ISREG(sb.st_mode)) { free(p); continue; }
        if (n == cap_n) {
            ent *nv = realloc(v, (size_t)(cap_n = cap_n ? 2 * cap_n : 64) * sizeof *v);
            if (!nv) { free(p); break; }
            v = nv;
        }
        v[n++] = (ent){p, sb.st_mtime, sb.st_size};
        total += (double)sb.st_size;
    }
    closedir(d);
    qsort(v, (size_t)n, sizeof *v, by_time);
    for (int i = 0; i < n && total > cap; i++)
        if (unlink(v[i].path) == 0) total -= (double)v[i].size;
    for (int i = 0; i < n; i++) free(v[i].path);
    free(v);
}

void kf_refcache_store(const kf_resolved *r, uint64_t seed, double *const *ref)
{
    char *dir = kf_cache_dir("ref"), *path = entry_path(r, seed), *tmp = NULL;
    if (!dir || !path || kf_mkdir_p_mode(dir, 0700, NULL) != 0 ||
        asprintf(&tmp, "%s.%ld.tmp", path, (long)getpid()) < 0) {
        free(dir);
        free(path);
        return;
    }
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
    FILE *f = fd >= 0 ? fdopen(fd, "wb") : NULL;
    int bad = !f;
    uint32_t n = (uint32_t)r->problem->n_outputs;
    if (f) {
        bad |= fwrite(MAGIC, 1, 8, f) != 8 || fwrite(&n, sizeof n, 1, f) != 1;
        for (uint32_t o = 0; !bad && o < n; o++) {
            int64_t m = out_elems(r, (int)o);
            for (int64_t i = 0; !bad && i < m; i++) {
                float v = (float)ref[o][i];
                bad |= fwrite(&v, sizeof v, 1, f) != 1;
            }
        }
        bad |= fclose(f) != 0;
    } else if (fd >= 0) {
        close(fd);
    }
    if (bad || rename(tmp, path) != 0) unlink(tmp);
    else evict(dir);
    free(tmp);
    free(path);
    free(dir);
}

/* The 32-byte secret the pool seeds derive from, made once (0600). */
static int secret(unsigned char out[32])
{
    char *dir = kf_cache_dir("ref"), *path = NULL;
    if (!dir || kf_mkdir_p_mode(dir, 0700, NULL) != 0 || asprintf(&path, "%s/secret", dir) < 0) {
        free(dir);
        return -1;
    }
    free(dir);
    int rc = -1;
    for (int attempt = 0; attempt < 2 && rc != 0; attempt++) {
        int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
        if (fd >= 0) {
            struct stat sb;
            if (fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode) && sb.st_uid == getuid() && !(sb.st_mode & 077) &&
                read_all(fd, out, 32) == 0)
                rc = 0;
            close(fd);
            if (rc != 0) break;         /* there but unusable: no pool */
            continue;
        }
        unsigned char s[32];
        if (getrandom(s, sizeof s, 0) != (ssize_t)sizeof s) break;
        fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
        if (fd >= 0) {
            ssize_t w = write(fd, s, sizeof s);
            close(fd);
            if (w != (ssize_t)sizeof s) { unlink(path); break; }
        }
        /* created, or another kforge won the race: read what is there */
    }
    free(path);
    return rc;
}

uint64_t kf_refcache_pool_seed(const kf_resolved *r, int k)
{
    static unsigned char s[32];
    static int have = 0;
    if (!have) have = secret(s) == 0 ? 1 : -1;
    if (have < 0) return 0;
    kf_sha256 h;
    unsigned char d[32];
    kf_sha256_init(&h);
    kf_sha256_update(&h, s, sizeof s);
    kf_sha256_update(&h, r->problem->digest, sizeof r->problem->digest);
    kf_sha256_update(&h, r->dims, (size_t)r->problem->n_dims * sizeof *r->dims);
    kf_sha256_update(&h, &k, sizeof k);
    kf_sha256_final(&h, d);
    uint64_t v;
    memcpy(&v, d, sizeof v);
    return v ? v : 1;
}
