/*
 * registry.c — finding, loading and checking backend plugins (registry.h).
 *
 * Discovery scans explicit directories only: every non-empty entry of
 * $KFORGE_PLUGIN_PATH, then KF_PLUGINDIR.  libltdl never searches on its own
 * here: every lt_dlopen gets a path with a '/', and lt_dlforeachfile is not
 * used.  A file that looks like a plugin (`*.so`, or `kf-*` other than
 * libtool's companion files) and cannot be used is recorded in `skipped`
 * with a reason; unrelated files are ignored.
 */
#include "registry.h"
#include "util/fileio.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <ltdl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef KF_PLUGINDIR
#define KF_PLUGINDIR "/usr/local/lib/kforge/plugins"
#endif

#define SYMBOL_PREFIX "kforge_backend_"
#define MAX_DEVICES 64
#define REASON_MAX 1024

/* ------------------------------------------------------------------ */
/* small helpers                                                       */

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

static int starts_with(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

static int is_name_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '-' || c == '_';
}

static char *join_path(const char *dir, const char *file)
{
    size_t n = strlen(dir) + strlen(file) + 2;
    char *p = malloc(n);
    if (p) snprintf(p, n, "%s%s%s", dir, ends_with(dir, "/") ? "" : "/", file);
    return p;
}

static const char *status_name(kf_status s)
{
    switch (s) {
    case KF_OK: return "ok";
    case KF_ERR_UNAVAILABLE: return "unavailable";
    case KF_ERR_COMPILE: return "compile error";
    case KF_ERR_LAUNCH: return "launch error";
    case KF_ERR_RUNTIME: return "runtime error";
    case KF_ERR_INVALID: return "invalid request";
    case KF_ERR_NOMEM: return "out of memory";
    case KF_ERR_INTERNAL: return "internal error";
    }
    return "unknown status";
}

/* ------------------------------------------------------------------ */
/* libltdl                                                             */

static pthread_once_t ltdl_once = PTHREAD_ONCE_INIT;
static int ltdl_status;
static char ltdl_init_error[256];

static void ltdl_init(void)
{
    ltdl_status = lt_dlinit();
    if (ltdl_status != 0) {
        const char *e = lt_dlerror();
        snprintf(ltdl_init_error, sizeof ltdl_init_error, "%s", e ? e : "unknown error");
    }
}

/* lt_dlinit exactly once per process; the loader stays up until exit. */
static int ltdl_ready(kf_error *err)
{
    pthread_once(&ltdl_once, ltdl_init);
    if (ltdl_status != 0)
        return kf_fail(err, KF_E_INTERNAL, "libltdl failed to initialise (%s): plugins cannot be loaded",
                       ltdl_init_error);
    return 0;
}

/*
 * Why `path` did not load.  lt_dlopen reports every failed open of a file
 * that is not a .la as "file not found" (libltdl's try_dlopen overwrites the
 * system loader's message), which would send a user looking for a file that
 * is right there.  So ask libltdl's dlopen loader directly: its failure
 * message is the system's (dlerror: "invalid ELF header", "undefined
 * symbol: ...").
 */
static void why_not_loadable(const char *path, char *why, size_t n)
{
    const char *e = lt_dlerror();
    char generic[256];
    snprintf(generic, sizeof generic, "%s", e ? e : "unknown libltdl error");
    if (access(path, R_OK) != 0) {
        snprintf(why, n, "not loadable: %s", strerror(errno));
        return;
    }
    const lt_dlvtable *vt = lt_dlloader_find("lt_dlopen");
    if (vt && vt->module_open) {
        lt_module m = vt->module_open(vt->dlloader_data, path, NULL);
        if (m) {
            if (vt->module_close) vt->module_close(vt->dlloader_data, m);
        } else if ((e = lt_dlerror()) && e[0]) {
            snprintf(why, n, "not loadable: %s", e);
            return;
        }
    }
    snprintf(why, n, "not loadable: %s", generic);
}

/* Opens exactly `path`, never a library found on a search path.  On failure
 * writes the reason into why. */
static lt_dlhandle open_explicit(const char *path, char *why, size_t n)
{
    char *owned = NULL;
    if (!strchr(path, '/')) {           /* "kf-x.so" alone would be searched for */
        owned = join_path(".", path);
        if (!owned) {
            snprintf(why, n, "out of memory");
            return NULL;
        }
        path = owned;
    }
    lt_dlhandle h;
    if (ends_with(path, ".so") || ends_with(path, ".la"))
        h = lt_dlopen(path);
    else
        h = lt_dlopenext(path);         /* "dir/kf-x": tries dir/kf-x.la, dir/kf-x.so */
    if (!h) why_not_loadable(path, why, n);
    free(owned);
    return h;
}

/* ------------------------------------------------------------------ */
/* names                                                               */

char *kf_plugin_name_from_path(const char *path)
{
    if (!path) return NULL;
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    size_t len = strlen(base);
    if (starts_with(base, "kf-")) {
        base += 3;
        len -= 3;
    }
    if (len >= 3 && (strcmp(base + len - 3, ".so") == 0 || strcmp(base + len - 3, ".la") == 0))
        len -= 3;
    if (len == 0 || base[0] == '-' || base[0] == '_') return NULL;
    for (size_t i = 0; i < len; i++)
        if (!is_name_char(base[i])) return NULL;
    char *name = malloc(len + 1);
    if (!name) return NULL;
    memcpy(name, base, len);
    name[len] = '\0';
    return name;
}

/* "cpu-simd" -> "cpu_simd" (the argument of KF_BACKEND_EXPORT). */
static char *ident_for_name(const char *name)
{
    char *id = strdup(name);
    if (!id) return NULL;
    for (char *c = id; *c; c++)
        if (*c == '-') *c = '_';
    return id;
}

/* ------------------------------------------------------------------ */
/* one plugin                                                          */

/* Checks the exported struct against the rules of kforge-plugin.h.
 * Returns 0 or writes the reason (without the file name) into why. */
static int check_backend(const kf_backend *be, const char *name, char *why, size_t n)
{
    if (be->abi_major != KF_PLUGIN_ABI_MAJOR) {
        snprintf(why, n, "built for plugin ABI %u, this kforge speaks ABI %d: rebuild it against "
                 "kforge-plugin.h %d.x", (unsigned)be->abi_major, KF_PLUGIN_ABI_MAJOR, KF_PLUGIN_ABI_MAJOR);
        return -1;
    }
    if (be->struct_size < KF_BACKEND_MIN_SIZE) {
        snprintf(why, n, "struct_size is %u bytes, smaller than the %u bytes of an ABI %d kf_backend: "
                 "set .struct_size = sizeof(kf_backend) and rebuild against kforge-plugin.h %d.x",
                 (unsigned)be->struct_size, (unsigned)KF_BACKEND_MIN_SIZE, KF_PLUGIN_ABI_MAJOR,
                 KF_PLUGIN_ABI_MAJOR);
        return -1;
    }
    /* the pointer slots after release: a 1.0 plugin has 8 reserved ones, a
       1.1 plugin uses 3 (info, list_devices, measure_peaks) and reserves 5,
       a 1.2 or 1.3 plugin uses 4 (+ compile_offline) and reserves 4, a 1.4
       plugin uses 5 (+ export_files) and reserves 3;
       every reserved slot its struct covers must be NULL: one set by a
       plugin built for a newer ABI minor means something this kforge
       cannot honour */
    const void *const *slots = (const void *const *)(const void *)((const char *)be + offsetof(kf_backend, info));
    int used = be->abi_minor >= 4 ? 5 : be->abi_minor >= 2 ? 4 : be->abi_minor >= 1 ? 3 : 0;
    for (int k = used; k < 8; k++) {
        if (be->struct_size < offsetof(kf_backend, info) + (size_t)(k + 1) * sizeof(void *)) break;
        if (slots[k]) {
            snprintf(why, n, "reserved[%d] is not NULL (plugin ABI %u.%u, this kforge speaks %d.%d): rebuild it "
                     "against this kforge-plugin.h, or update kforge", k - used, (unsigned)be->abi_major,
                     (unsigned)be->abi_minor, KF_PLUGIN_ABI_MAJOR, KF_PLUGIN_ABI_MINOR);
            return -1;
        }
    }
    if (!be->name || !be->name[0]) {
        snprintf(why, n, "declares no name: set .name = \"%s\"", name);
        return -1;
    }
    if (strcmp(be->name, name) != 0) {
        snprintf(why, n, "declares name '%.*s' but its file name says '%s': rename the file kf-%.*s.so "
                 "or set .name = \"%s\"", KF_NAME_MAX, be->name, name, KF_NAME_MAX, be->name, name);
        return -1;
    }
    return 0;
}

/* kf_plugin_open without the file name in the reason (the registry keeps
 * the path beside it).  Returns 0, or -1 with *code and why set. */
static int open_plugin(const char *path, kf_plugin *out, int *code, char *why, size_t n)
{
    memset(out, 0, sizeof *out);
    char *name = kf_plugin_name_from_path(path);
    if (!name) {
        *code = KF_ERR_INVALID;
        snprintf(why, n, "file name does not give a backend name: plugins are named kf-<name>.so, "
                 "<name> made of letters, digits, '-' and '_'");
        return -1;
    }
    lt_dlhandle h = open_explicit(path, why, n);
    if (!h) {
        *code = KF_ERR_UNAVAILABLE;
        free(name);
        return -1;
    }
    char *ident = ident_for_name(name);
    size_t symlen = strlen(SYMBOL_PREFIX) + (ident ? strlen(ident) : 0) + 1;
    char *sym = ident ? malloc(symlen) : NULL;
    if (!sym) {
        *code = KF_ERR_NOMEM;
        snprintf(why, n, "out of memory");
        goto fail;
    }
    snprintf(sym, symlen, SYMBOL_PREFIX "%s", ident);
    const kf_backend *be = lt_dlsym(h, sym);
    if (!be) {
        *code = KF_ERR_INVALID;
        snprintf(why, n, "missing symbol '%s': a plugin exports its backend with "
                 "KF_BACKEND_EXPORT(%s) = {...} from kforge-plugin.h", sym, ident);
        goto fail;
    }
    if (check_backend(be, name, why, n) != 0) {
        *code = KF_ERR_INVALID;
        goto fail;
    }
    out->path = strdup(path);
    if (!out->path) {
        *code = KF_ERR_NOMEM;
        snprintf(why, n, "out of memory");
        goto fail;
    }
    out->name = name;
    out->be = be;
    out->handle = h;
    free(ident);
    free(sym);
    return 0;
fail:
    lt_dlclose(h);
    free(name);
    free(ident);
    free(sym);
    return -1;
}

int kf_plugin_open(const char *path, kf_plugin *out, kf_error *err)
{
    memset(out, 0, sizeof *out);
    if (!path || !path[0]) return kf_fail(err, KF_E_BAD_INPUT, "no plugin file given");
    if (ltdl_ready(err) != 0) return -1;
    char why[REASON_MAX];
    int code = 0;
    if (open_plugin(path, out, &code, why, sizeof why) != 0)
        return kf_fail(err, code == ENOMEM ? KF_E_INTERNAL : KF_E_BAD_INPUT, "%s: %s", path, why);
    return 0;
}

/* ------------------------------------------------------------------ */
/* the peak cache: $XDG_CACHE_HOME/kforge/peaks/PLUGIN-VERSION-DEVICE   */

static int cache_path(const kf_plugin *p, const kf_device_info *d, char *buf, size_t n)
{
    char *base = kf_cache_dir("peaks");
    if (!base) return -1;
    char key[3 * KF_NAME_MAX];
    snprintf(key, sizeof key, "%s-%s-%s", p->name, p->be->version ? p->be->version : "0", d->name);
    for (char *c = key; *c; c++)
        if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') || *c == '.' ||
              *c == '-'))
            *c = '_';
    int too_long = (size_t)snprintf(buf, n, "%s/%s", base, key) >= n;
    free(base);
    return too_long ? -1 : 0;
}

static int cache_load(const kf_plugin *p, kf_device_info *d)
{
    char path[4600];
    if (cache_path(p, d, path, sizeof path) != 0) return -1;
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    double fl = 0, bw = 0, cb = 0, bf = 0, am = 0, i16 = 0;
    int fm = 0, bm = 0;
    /* a file without the bf16, the AMX or the int16 line (written before
       they existed) is stale: the peaks are measured again */
    int ok = fscanf(f, "peak_flops %lf\npeak_bytes_per_s %lf\npeak_flops_measured %d\npeak_bw_measured %d\n"
                       "cache_bytes_per_s %lf\npeak_flops_bf16 %lf\npeak_flops_amx_bf16 %lf\npeak_flops_i16 %lf\n",
                    &fl, &bw, &fm, &bm, &cb, &bf, &am, &i16) == 8;
    fclose(f);
    if (!ok || !(fl >= 0) || !(bw >= 0) || !(cb >= 0) || !(bf >= 0) || !(am >= 0) || !(i16 >= 0)) return -1;
    d->peak_flops_bf16 = bf;
    d->peak_flops_amx_bf16 = am;
    d->peak_flops_i16 = i16;
    d->peak_flops = fl;
    d->peak_bytes_per_s = bw;
    d->peak_flops_measured = fm != 0;
    d->peak_bw_measured = bm != 0;
    d->cache_bytes_per_s = cb;
    return 0;
}

static void cache_store(const kf_plugin *p, const kf_device_info *d)
{
    char path[4600], tmp[4700];
    if (cache_path(p, d, path, sizeof path) != 0) return;
    char dir[4600];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (!slash) return;
    *slash = '\0';
    if (kf_mkdir_p_mode(dir, 0700, NULL) != 0) return;
    snprintf(tmp, sizeof tmp, "%s.%ld.tmp", path, (long)getpid());
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!f) {
        if (fd >= 0) close(fd);
        return;
    }
    fprintf(f, "peak_flops %.17g\npeak_bytes_per_s %.17g\npeak_flops_measured %d\npeak_bw_measured %d\n"
               "cache_bytes_per_s %.17g\npeak_flops_bf16 %.17g\npeak_flops_amx_bf16 %.17g\npeak_flops_i16 %.17g\n",
            d->peak_flops, d->peak_bytes_per_s, d->peak_flops_measured, d->peak_bw_measured, d->cache_bytes_per_s,
            d->peak_flops_bf16, d->peak_flops_amx_bf16, d->peak_flops_i16);
    if (fclose(f) == 0) rename(tmp, path);
    else unlink(tmp);
}

/* ------------------------------------------------------------------ */
/* probing                                                             */

/* peaks = 0: the cheap listing (ABI 1.1 plugins: list_devices; 1.0: the
 * whole probe, which is all they have). */
static int probe_impl(kf_plugin *p, int peaks)
{
    if (!p || !p->be) return -1;
    if (p->probed) return p->probe_status == KF_OK ? p->n_devices : -1;
    p->probed = 1;
    int v11 = kf_plugin_abi_minor(p) >= 1;
    int split = v11 && p->be->list_devices;
    if (!p->be->probe && !split) {
        p->probe_status = KF_ERR_UNAVAILABLE;
        p->probe_why = strdup("the plugin has no probe hook, so it offers no device");
        return -1;
    }
    kf_device_info *devs = calloc(MAX_DEVICES, sizeof *devs);
    if (!devs) {
        p->probe_status = KF_ERR_NOMEM;
        p->probe_why = strdup("out of memory while probing");
        return -1;
    }
    for (int i = 0; i < MAX_DEVICES; i++) devs[i].struct_size = (uint32_t)sizeof *devs;
    char why[KF_DETAIL_MAX] = "";
    int n = 0;
    kf_status st = split ? p->be->list_devices(devs, sizeof *devs, MAX_DEVICES, &n, why, sizeof why)
                         : kf_plugin_call_probe(p, devs, MAX_DEVICES, &n, why, sizeof why);
    why[sizeof why - 1] = '\0';
    if (st == KF_OK && n <= 0) {
        st = KF_ERR_UNAVAILABLE;
        if (!why[0]) snprintf(why, sizeof why, "the probe found no device");
    }
    if (st != KF_OK) {
        if (!why[0]) snprintf(why, sizeof why, "the probe failed (%s) without saying why", status_name(st));
        p->probe_status = st;
        p->probe_why = strdup(why);
        free(devs);
        return -1;
    }
    if (n > MAX_DEVICES) n = MAX_DEVICES;
    for (int i = 0; i < n; i++) {  /* never trust a plugin's strings to be terminated */
        devs[i].name[sizeof devs[i].name - 1] = '\0';
        devs[i].kind[sizeof devs[i].kind - 1] = '\0';
        devs[i].detail[sizeof devs[i].detail - 1] = '\0';
        devs[i].arch[sizeof devs[i].arch - 1] = '\0';
        devs[i].struct_size = (uint32_t)sizeof devs[i];
    }
    /* the measured half, once per device and plugin version: cached */
    p->peaks_from_cache = 0;
    for (int i = 0; peaks && split && p->be->measure_peaks && i < n; i++) {
        if (cache_load(p, &devs[i]) == 0) {
            p->peaks_from_cache++;
            continue;
        }
        char w[KF_DETAIL_MAX] = "";
        if (p->be->measure_peaks(i, &devs[i], w, sizeof w) == KF_OK) cache_store(p, &devs[i]);
    }
    kf_device_info *shrunk = realloc(devs, (size_t)n * sizeof *devs);
    p->devices = shrunk ? shrunk : devs;
    p->n_devices = n;
    p->probe_status = KF_OK;
    return n;
}

int kf_plugin_probe(kf_plugin *p) { return probe_impl(p, 1); }

/* d's peaks raised to c's where those are larger (a flag follows its
 * value); 1 when any was raised. */
static int raise_peaks(kf_device_info *d, const kf_device_info *c)
{
    int raised = 0;
    if (c->peak_flops > d->peak_flops) {
        d->peak_flops = c->peak_flops;
        d->peak_flops_measured = c->peak_flops_measured;
        raised = 1;
    }
    if (c->peak_bytes_per_s > d->peak_bytes_per_s) {
        d->peak_bytes_per_s = c->peak_bytes_per_s;
        d->peak_bw_measured = c->peak_bw_measured;
        raised = 1;
    }
    if (c->cache_bytes_per_s > d->cache_bytes_per_s) d->cache_bytes_per_s = c->cache_bytes_per_s, raised = 1;
    if (c->peak_flops_bf16 > d->peak_flops_bf16) d->peak_flops_bf16 = c->peak_flops_bf16, raised = 1;
    if (c->peak_flops_amx_bf16 > d->peak_flops_amx_bf16) d->peak_flops_amx_bf16 = c->peak_flops_amx_bf16, raised = 1;
    if (c->peak_flops_i16 > d->peak_flops_i16) d->peak_flops_i16 = c->peak_flops_i16, raised = 1;
    return raised;
}

int kf_plugin_remeasure_peaks(kf_plugin *p)
{
    if (!p || !p->be || !p->probed || p->probe_status != KF_OK) return -1;
    if (kf_plugin_abi_minor(p) < 1 || !p->be->list_devices || !p->be->measure_peaks) return -1;
    if (p->peaks_remeasured) return p->peaks_raised;
    if (p->peaks_from_cache == 0) return 0;   /* every device measured by this process's probe already */
    p->peaks_remeasured = 1;
    for (int i = 0; i < p->n_devices; i++) {
        kf_device_info now = p->devices[i];
        char w[KF_DETAIL_MAX] = "";
        if (p->be->measure_peaks(i, &now, w, sizeof w) != KF_OK) continue;
        if (raise_peaks(&p->devices[i], &now)) {
            p->peaks_raised++;
            cache_store(p, &p->devices[i]);
        }
    }
    return p->peaks_raised;
}
int kf_plugin_list(kf_plugin *p) { return probe_impl(p, 0); }

void kf_plugin_close(kf_plugin *p)
{
    if (!p) return;
    /* A plugin whose hooks ran may have started driver threads or loaded
     * vendor libraries (OpenCL ICDs, libcuda) that cannot be unloaded
     * safely; it stays resident until the process exits.  (This also lets
     * LeakSanitizer attribute process-lifetime driver allocations.) */
    if (p->handle && !p->probed) lt_dlclose((lt_dlhandle)p->handle);
    free(p->name);
    free(p->path);
    free(p->probe_why);
    free(p->devices);
    memset(p, 0, sizeof *p);
}

/* ------------------------------------------------------------------ */
/* the search path                                                     */

typedef struct dir_list {
    int n;
    char **dirs;
    int *from_env;   /* 1: came from KFORGE_PLUGIN_PATH */
} dir_list;

static void dir_list_free(dir_list *l)
{
    for (int i = 0; i < l->n; i++) free(l->dirs[i]);
    free(l->dirs);
    free(l->from_env);
    memset(l, 0, sizeof *l);
}

static int dir_list_add(dir_list *l, const char *dir, size_t len, int from_env)
{
    for (int i = 0; i < l->n; i++)
        if (strlen(l->dirs[i]) == len && strncmp(l->dirs[i], dir, len) == 0) return 0;
    char **d = realloc(l->dirs, (size_t)(l->n + 1) * sizeof *d);
    if (!d) return -1;
    l->dirs = d;
    int *f = realloc(l->from_env, (size_t)(l->n + 1) * sizeof *f);
    if (!f) return -1;
    l->from_env = f;
    char *copy = malloc(len + 1);
    if (!copy) return -1;
    memcpy(copy, dir, len);
    copy[len] = '\0';
    l->dirs[l->n] = copy;
    l->from_env[l->n] = from_env;
    l->n++;
    return 0;
}

/* Run from its build tree (BUILD/core/kforge next to BUILD/config.status)
 * with KFORGE_PLUGIN_PATH unset, kforge also scans the plugins built beside
 * it, BUILD/plugins/NAME/.libs, so that it works before `make install`.
 * Installed, or with KFORGE_PLUGIN_PATH set, it never does. */
static int add_build_tree_dirs(dir_list *l)
{
    char exe[4096];
    if (kf_build_tree(exe, sizeof exe) != 0) return 0;
    char probe[4200];
    /* every BUILD/plugins/NAME/.libs, in name order (no backend is named
       here: a plugin added to the tree is found the same way) */
    snprintf(probe, sizeof probe, "%s/plugins", exe);
    struct dirent **ents = NULL;
    int ne = scandir(probe, &ents, NULL, alphasort);
    int rc = 0;
    for (int i = 0; i < ne; i++) {
        if (ents[i]->d_name[0] != '.' && rc == 0) {
            char d[4600];
            snprintf(d, sizeof d, "%s/%s/.libs", probe, ents[i]->d_name);
            if (access(d, F_OK) == 0 && dir_list_add(l, d, strlen(d), 0) != 0) rc = -1;
        }
        free(ents[i]);
    }
    free(ents);
    return rc;
}

/* KFORGE_PLUGIN_PATH entries (empty ones ignored), the build tree's plugins
 * when run from one, then KF_PLUGINDIR. */
static int search_dirs(dir_list *l)
{
    memset(l, 0, sizeof *l);
    const char *env = getenv("KFORGE_PLUGIN_PATH");
    while (env && *env) {
        const char *colon = strchr(env, ':');
        size_t len = colon ? (size_t)(colon - env) : strlen(env);
        if (len > 0 && dir_list_add(l, env, len, 1) != 0) goto oom;
        env = colon ? colon + 1 : NULL;
    }
    if (!getenv("KFORGE_PLUGIN_PATH") && add_build_tree_dirs(l) != 0) goto oom;
    /* KFORGE_PLUGIN_SYSTEM_PATH replaces the installed plugin directory
       (empty: none), so a test or a packager sees only what it names */
    const char *sys = getenv("KFORGE_PLUGIN_SYSTEM_PATH");
    if (!sys) sys = KF_PLUGINDIR;
    if (*sys && dir_list_add(l, sys, strlen(sys), 0) != 0) goto oom;
    return 0;
oom:
    dir_list_free(l);
    return -1;
}

static char *dir_list_join(const dir_list *l)
{
    size_t n = 1;
    for (int i = 0; i < l->n; i++) n += strlen(l->dirs[i]) + 1;
    char *s = malloc(n);
    if (!s) return NULL;
    s[0] = '\0';
    for (int i = 0; i < l->n; i++) {
        if (i) strcat(s, ":");
        strcat(s, l->dirs[i]);
    }
    return s;
}

char *kf_plugin_search_path(void)
{
    dir_list l;
    if (search_dirs(&l) != 0) return NULL;
    char *s = dir_list_join(&l);
    dir_list_free(&l);
    return s;
}

/* ------------------------------------------------------------------ */
/* the registry                                                        */

kf_plugin *kf_registry_find(kf_registry *reg, const char *name)
{
    if (!reg || !name) return NULL;
    for (int i = 0; i < reg->n_plugins; i++)
        if (strcmp(reg->plugins[i].name, name) == 0) return &reg->plugins[i];
    return NULL;
}

static int add_skipped(kf_registry *reg, const char *path, const char *fmt, ...) KF_PRINTF(3, 4);

static int add_skipped(kf_registry *reg, const char *path, const char *fmt, ...)
{
    kf_skipped *s = realloc(reg->skipped, (size_t)(reg->n_skipped + 1) * sizeof *s);
    if (!s) return -1;
    reg->skipped = s;
    char reason[REASON_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(reason, sizeof reason, fmt, ap);
    va_end(ap);
    s[reg->n_skipped].path = strdup(path);
    s[reg->n_skipped].reason = strdup(reason);
    if (!s[reg->n_skipped].path || !s[reg->n_skipped].reason) {
        free(s[reg->n_skipped].path);
        free(s[reg->n_skipped].reason);
        return -1;
    }
    reg->n_skipped++;
    return 0;
}

/* libtool's companions of a module: never plugins, never worth a word. */
static int is_companion(const char *file)
{
    static const char *const ext[] = {".la", ".lai", ".a", ".lo", ".o", ".exp", ".ver", ".def", ".map"};
    for (size_t i = 0; i < sizeof ext / sizeof ext[0]; i++)
        if (ends_with(file, ext[i])) return 1;
    return 0;
}

/* Looks at one directory entry; returns -1 only when out of memory. */
static int consider_file(kf_registry *reg, const char *dir, const char *file, int probe)
{
    if (file[0] == '.') return 0;
    int is_so = ends_with(file, ".so");
    if (!is_so && !starts_with(file, "kf-")) return 0;
    if (!is_so && is_companion(file)) return 0;

    char *path = join_path(dir, file);
    if (!path) return -1;
    int rc = 0;
    struct stat st;
    if (stat(path, &st) != 0) {
        rc = add_skipped(reg, path, "cannot be read: %s", strerror(errno));
        goto out;
    }
    if (!S_ISREG(st.st_mode)) goto out;      /* directories and devices: not ours */
    if (!is_so) {
        rc = add_skipped(reg, path, "not a plugin file name: a plugin is a shared object named kf-<name>.so");
        goto out;
    }
    char *name = kf_plugin_name_from_path(path);
    if (!name) {
        rc = add_skipped(reg, path, "file name does not give a backend name: plugins are named "
                         "kf-<name>.so, <name> made of letters, digits, '-' and '_'");
        goto out;
    }
    kf_plugin *first = kf_registry_find(reg, name);
    if (first) {
        rc = add_skipped(reg, path, "backend '%s' is shadowed by %s, which comes earlier in the search path",
                         name, first->path);
        free(name);
        goto out;
    }
    free(name);

    kf_plugin p;
    char why[REASON_MAX];
    int code = 0;
    if (open_plugin(path, &p, &code, why, sizeof why) != 0) {
        rc = add_skipped(reg, path, "%s", why);
        goto out;
    }
    kf_plugin *grown = realloc(reg->plugins, (size_t)(reg->n_plugins + 1) * sizeof *grown);
    if (!grown) {
        kf_plugin_close(&p);
        rc = -1;
        goto out;
    }
    reg->plugins = grown;
    reg->plugins[reg->n_plugins++] = p;
    if (probe) kf_plugin_probe(&reg->plugins[reg->n_plugins - 1]);
out:
    free(path);
    return rc;
}

typedef struct seen_dir { dev_t dev; ino_t ino; } seen_dir;

/* Scans one directory in name order; -1 only when out of memory. */
static int scan_dir(kf_registry *reg, const char *dir, int from_env, int probe,
                    seen_dir *seen, int *n_seen)
{
    struct stat st;
    if (stat(dir, &st) != 0) {
        if (errno == ENOENT && !from_env) return 0;   /* not installed yet: normal in a build tree */
        if (errno == ENOENT)
            return add_skipped(reg, dir, "no such directory (listed in KFORGE_PLUGIN_PATH): "
                               "fix or remove that entry");
        return add_skipped(reg, dir, "cannot read this plugin directory: %s", strerror(errno));
    }
    if (!S_ISDIR(st.st_mode))
        return add_skipped(reg, dir, "not a directory: KFORGE_PLUGIN_PATH lists directories, not files");
    for (int i = 0; i < *n_seen; i++)
        if (seen[i].dev == st.st_dev && seen[i].ino == st.st_ino) return 0;   /* same dir, other spelling */
    seen[*n_seen].dev = st.st_dev;
    seen[*n_seen].ino = st.st_ino;
    (*n_seen)++;

    struct dirent **ents = NULL;
    int n = scandir(dir, &ents, NULL, alphasort);
    if (n < 0) return add_skipped(reg, dir, "cannot read this plugin directory: %s", strerror(errno));
    int rc = 0;
    for (int i = 0; i < n; i++) {
        if (rc == 0) rc = consider_file(reg, dir, ents[i]->d_name, probe);
        free(ents[i]);
    }
    free(ents);
    return rc;
}

kf_registry *kf_registry_open(int probe, kf_error *err)
{
    if (ltdl_ready(err) != 0) return NULL;
    kf_registry *reg = calloc(1, sizeof *reg);
    dir_list dirs;
    if (!reg || search_dirs(&dirs) != 0) {
        free(reg);
        kf_fail(err, KF_E_INTERNAL, "out of memory while listing the plugin search path");
        return NULL;
    }
    seen_dir *seen = calloc((size_t)dirs.n, sizeof *seen);
    int n_seen = 0;
    reg->search_path = dir_list_join(&dirs);
    int rc = (seen && reg->search_path) ? 0 : -1;
    for (int i = 0; rc == 0 && i < dirs.n; i++)
        rc = scan_dir(reg, dirs.dirs[i], dirs.from_env[i], probe, seen, &n_seen);
    free(seen);
    dir_list_free(&dirs);
    if (rc != 0) {
        kf_registry_close(reg);
        kf_fail(err, KF_E_INTERNAL, "out of memory while scanning for plugins");
        return NULL;
    }
    return reg;
}

void kf_registry_close(kf_registry *reg)
{
    if (!reg) return;
    for (int i = 0; i < reg->n_plugins; i++) kf_plugin_close(&reg->plugins[i]);
    free(reg->plugins);
    for (int i = 0; i < reg->n_skipped; i++) {
        free(reg->skipped[i].path);
        free(reg->skipped[i].reason);
    }
    free(reg->skipped);
    free(reg->search_path);
    free(reg);
}
