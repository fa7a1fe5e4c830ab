/*
 * candidate.c — the candidate model: construction, candidate.json parsing
 * (json-c), loading a directory or a single .c file, saving, freeing.
 * The on-disk format is described in candidate.h.
 */
#include "candidate.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <json-c/json.h>

#include "util/fileio.h"

#define MAX_SOURCE_BYTES (16u << 20)

static char *xstrdup(const char *s)
{
    return s ? strdup(s) : NULL;
}

/* A source name must be a plain file name: it is written into directories. */
static int safe_file_name(const char *n)
{
    if (!n || !*n || n[0] == '.' || strlen(n) > 200)
        return 0;
    for (const char *p = n; *p; p++)
        if (!(isalnum((unsigned char)*p) || *p == '_' || *p == '-' || *p == '.'))
            return 0;
    return 1;
}

static int is_ident(const char *s)
{
    if (!s || !(isalpha((unsigned char)*s) || *s == '_'))
        return 0;
    for (; *s; s++)
        if (!(isalnum((unsigned char)*s) || *s == '_'))
            return 0;
    return 1;
}

/* A launch's kernel: an identifier, or a library call "LIB:NAME" (two
 * identifiers; e.g. "cublas:sgemm", run by the plugin, never a kernel). */
static int is_kernel_name(const char *s)
{
    const char *colon = s ? strchr(s, ':') : NULL;
    if (!colon)
        return is_ident(s);
    char lib[64];
    size_t n = (size_t)(colon - s);
    if (n == 0 || n >= sizeof lib)
        return 0;
    memcpy(lib, s, n);
    lib[n] = '\0';
    return is_ident(lib) && is_ident(colon + 1);
}

kf_candidate *kf_candidate_new(const char *backend)
{
    kf_candidate *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->backend = xstrdup(backend ? backend : "");
    c->build_options = strdup("");
    if (!c->backend || !c->build_options) {
        kf_candidate_free(c);
        return NULL;
    }
    return c;
}

void kf_cand_tmap_free(kf_cand_tmap *t)
{
    if (!t)
        return;
    for (int d = 0; d < KF_TMAP_MAX_RANK; d++) {
        free(t->dims[d]);
        free(t->strides[d]);
        free(t->box[d]);
    }
    free(t);
}

static void free_launch(kf_cand_launch *l)
{
    free(l->kernel);
    for (int d = 0; d < 3; d++) {
        free(l->global[d]);
        free(l->local[d]);
    }
    for (int a = 0; a < l->n_args; a++) {
        free(l->args[a].text);
        kf_cand_tmap_free(l->args[a].tmap);
    }
    free(l->args);
}

void kf_candidate_free(kf_candidate *c)
{
    if (!c)
        return;
    free(c->backend);
    for (int i = 0; i < c->n_sources; i++) {
        free(c->sources[i].name);
        free(c->sources[i].text);
    }
    free(c->sources);
    free(c->build_options);
    free(c->entry);
    for (int i = 0; i < c->n_scratch; i++) {
        free(c->scratch[i].name);
        free(c->scratch[i].bytes_expr);
    }
    free(c->scratch);
    for (int i = 0; i < c->n_launches; i++)
        free_launch(&c->launches[i]);
    free(c->launches);
    free(c->notes);
    free(c->origin);
    free(c);
}

uint32_t kf_source_format_of(const char *name)
{
    size_t n = name ? strlen(name) : 0;
    if (n > 4 && !strcmp(name + n - 4, ".spv")) return KF_SRC_SPIRV;
    if (n > 6 && !strcmp(name + n - 6, ".cubin")) return KF_SRC_CUBIN;
    if (n > 4 && !strcmp(name + n - 4, ".ptx")) return KF_SRC_PTX;
    return KF_SRC_TEXT;
}

int kf_source_format_binary(uint32_t format)
{
    return format == KF_SRC_SPIRV || format == KF_SRC_CUBIN;
}

int kf_candidate_add_source_bytes(kf_candidate *c, const char *name, const void *data, size_t size)
{
    char *t;
    if (!c || !safe_file_name(name) || !data)
        return -1;
    if (!(t = malloc(size + 1)))
        return -1;
    memcpy(t, data, size);
    t[size] = '\0';
    for (int i = 0; i < c->n_sources; i++) {
        if (!strcmp(c->sources[i].name, name)) {   /* replace */
            free(c->sources[i].text);
            c->sources[i].text = t;
            c->sources[i].size = size;
            return 0;
        }
    }
    kf_cand_source *s = realloc(c->sources, (size_t)(c->n_sources + 1) * sizeof *s);
    if (!s) {
        free(t);
        return -1;
    }
    c->sources = s;
    s[c->n_sources].name = strdup(name);
    s[c->n_sources].text = t;
    s[c->n_sources].size = size;
    s[c->n_sources].format = kf_source_format_of(name);
    if (!s[c->n_sources].name) {
        free(t);
        return -1;
    }
    c->n_sources++;
    return 0;
}

int kf_candidate_add_source(kf_candidate *c, const char *name, const char *text)
{
    return text ? kf_candidate_add_source_bytes(c, name, text, strlen(text)) : -1;
}

/* Reads a whole file (malloc'ed, NUL-terminated), or NULL with err set.
 * binary = 0: a text file (NUL bytes refused); 1: any bytes, *size set. */
static char *read_file_as(const char *path, const char *what, int binary, size_t *size, kf_error *err)
{
    int fd = kf_open_regular(path, what, err);
    FILE *f = fd >= 0 ? fdopen(fd, "rb") : NULL;
    char *buf = NULL;
    size_t len = 0, cap = 0, n;
    if (!f) {
        if (fd >= 0) {
            kf_fail_errno(err, errno, "%s: cannot open %s: %s", path, what, strerror(errno));
            close(fd);
        }
        return NULL;
    }
    do {
        if (cap - len < 65536) {
            cap = cap ? cap * 2 : 65536;
            char *nb = cap > MAX_SOURCE_BYTES + 65536 ? NULL : realloc(buf, cap + 1);
            if (!nb) {
                free(buf);
                fclose(f);
                kf_fail(err, KF_E_INTERNAL, "%s: %s is larger than %u MiB or memory ran out", path, what,
                        MAX_SOURCE_BYTES >> 20);
                return NULL;
            }
            buf = nb;
        }
        n = fread(buf + len, 1, cap - len, f);
        len += n;
    } while (n > 0);
    if (ferror(f)) {
        kf_fail_errno(err, errno ? errno : EIO, "%s: read error on %s", path, what);
        free(buf);
        fclose(f);
        return NULL;
    }
    fclose(f);
    buf[len] = '\0';
    if (size) *size = len;
    if (!binary && strlen(buf) != len) {
        kf_fail(err, KF_E_BAD_INPUT, "%s: %s contains NUL bytes; sources must be text", path, what);
        free(buf);
        return NULL;
    }
    return buf;
}

static char *read_text(const char *path, const char *what, kf_error *err)
{
    return read_file_as(path, what, 0, NULL, err);
}

/* ------------------------------------------------------------------ */
/* manifest parsing                                                    */

typedef struct pctx {
    const char *label;
    kf_error *err;
} pctx;

#define PFAIL(pc, ...) do { char _m[KF_ERROR_MAX / 2]; snprintf(_m, sizeof _m, __VA_ARGS__); \
    kf_fail((pc)->err, KF_E_BAD_INPUT, "%s: %s", (pc)->label, _m); goto fail; } while (0)

/* An integer expression field: JSON integer or non-empty string. */
static char *expr_text(json_object *v)
{
    char buf[32];
    if (json_object_is_type(v, json_type_int)) {
        snprintf(buf, sizeof buf, "%lld", (long long)json_object_get_int64(v));
        return strdup(buf);
    }
    if (json_object_is_type(v, json_type_string) && json_object_get_string_len(v) > 0)
        return strdup(json_object_get_string(v));
    return NULL;
}

static int check_keys(pctx *pc, json_object *o, const char *path, const char *const *known)
{
    json_object_object_foreach(o, key, val) {
        (void)val;
        int ok = 0;
        for (int i = 0; known[i]; i++)
            ok |= !strcmp(known[i], key);
        if (!ok) {
            char list[256] = "";
            size_t used = 0;
            for (int i = 0; known[i] && used < sizeof list; i++)
                used += (size_t)snprintf(list + used, sizeof list - used, "%s%s",
                                         i ? ", " : "", known[i]);
            kf_fail(pc->err, KF_E_BAD_INPUT, "%s: %s%sunknown field '%s' (known: %s)", pc->label, path,
                    *path ? ": " : "", key, list);
            return -1;
        }
    }
    return 0;
}

static int parse_sources(pctx *pc, kf_candidate *c, json_object *arr, const char *dir)
{
    char path[4096];
    int n = (int)json_object_array_length(arr);
    if (n == 0)
        PFAIL(pc, "sources: empty; list at least one source file");
    for (int i = 0; i < n; i++) {
        json_object *s = json_object_array_get_idx(arr, (size_t)i), *jn, *jt;
        const char *name;
        char *text;
        if (json_object_is_type(s, json_type_string)) {
            name = json_object_get_string(s);
            if (!safe_file_name(name))
                PFAIL(pc, "sources[%d]: '%s' is not a plain file name ([A-Za-z0-9_.-], not "
                      "starting with '.')", i, name);
            if (!dir)
                PFAIL(pc, "sources[%d]: '%s' is given by name but there is no directory to "
                      "read it from; give it inline as {\"name\": ..., \"text\": ...}", i, name);
            snprintf(path, sizeof path, "%s/%s", dir, name);
            if (kf_source_format_binary(kf_source_format_of(name))) {
                size_t size = 0;
                if (!(text = read_file_as(path, "source file", 1, &size, pc->err)))
                    return -1;
                int rc = kf_candidate_add_source_bytes(c, name, text, size);
                free(text);
                if (rc)
                    PFAIL(pc, "sources[%d]: out of memory", i);
                continue;
            }
            if (!(text = read_text(path, "source file", pc->err)))
                return -1;
        } else if (json_object_is_type(s, json_type_object) &&
                   json_object_object_get_ex(s, "name", &jn) &&
                   json_object_object_get_ex(s, "text", &jt) &&
                   json_object_is_type(jn, json_type_string) &&
                   json_object_is_type(jt, json_type_string)) {
            name = json_object_get_string(jn);
            if (!safe_file_name(name))
                PFAIL(pc, "sources[%d].name: '%s' is not a plain file name", i, name);
            if (kf_source_format_binary(kf_source_format_of(name)))
                PFAIL(pc, "sources[%d]: '%s' is a binary module (by its name); give it as a file beside "
                      "candidate.json, not inline text", i, name);
            if (!(text = strdup(json_object_get_string(jt))))
                PFAIL(pc, "out of memory");
        } else {
            PFAIL(pc, "sources[%d]: expected a file name or {\"name\": ..., \"text\": ...}", i);
        }
        int rc = kf_candidate_add_source(c, name, text);
        free(text);
        if (rc)
            PFAIL(pc, "sources[%d]: out of memory", i);
    }
    return 0;
fail:
    return -1;
}

static int parse_scratch(pctx *pc, kf_candidate *c, json_object *arr)
{
    static const char *const keys[] = {"name", "bytes", NULL};
    int n = (int)json_object_array_length(arr);
    if (!(c->scratch = calloc((size_t)n + 1, sizeof *c->scratch)))
        PFAIL(pc, "out of memory");
    for (int i = 0; i < n; i++) {
        json_object *s = json_object_array_get_idx(arr, (size_t)i), *jn, *jb;
        char path[64];
        snprintf(path, sizeof path, "scratch[%d]", i);
        if (!json_object_is_type(s, json_type_object))
            PFAIL(pc, "%s: expected {\"name\": ..., \"bytes\": ...}", path);
        if (check_keys(pc, s, path, keys))
            return -1;
        if (!json_object_object_get_ex(s, "name", &jn) || !is_ident(json_object_get_string(jn)))
            PFAIL(pc, "%s.name: missing or not an identifier", path);
        if (!json_object_object_get_ex(s, "bytes", &jb))
            PFAIL(pc, "%s.bytes: missing (an integer or an expression over the dims)", path);
        c->scratch[i].name = strdup(json_object_get_string(jn));
        c->scratch[i].bytes_expr = expr_text(jb);
        c->n_scratch = i + 1;
        if (!c->scratch[i].bytes_expr)
            PFAIL(pc, "%s.bytes: expected an integer or an expression string", path);
        for (int j = 0; j < i; j++)
            if (!strcmp(c->scratch[j].name, c->scratch[i].name))
                PFAIL(pc, "%s.name: '%s' is declared twice", path, c->scratch[i].name);
    }
    return 0;
fail:
    return -1;
}

/* One expression list of a tensor map: n entries into dst[off..off+n). */
static int parse_tmap_exprs(pctx *pc, json_object *arr, char **dst, int off, int n, const char *path,
                            const char *what)
{
    if (!json_object_is_type(arr, json_type_array) || (int)json_object_array_length(arr) != n)
        PFAIL(pc, "%s: expected an array of %d %s", path, n, what);
    for (int d = 0; d < n; d++)
        if (!(dst[off + d] = expr_text(json_object_array_get_idx(arr, (size_t)d))))
            PFAIL(pc, "%s[%d]: expected an integer or an expression string", path, d);
    return 0;
fail:
    return -1;
}

static int parse_tmap(pctx *pc, kf_cand_arg *a, json_object *o, const char *path)
{
    static const char *const keys[] = {"buffer", "dtype", "dims", "strides", "box", "swizzle", NULL};
    json_object *v;
    char sub[256];
    if (!json_object_is_type(o, json_type_object))
        PFAIL(pc, "%s: expected an object with buffer, dtype, dims, strides, box, swizzle", path);
    if (check_keys(pc, o, path, keys))
        return -1;
    a->kind = KF_CARG_TENSOR_MAP;
    if (!(a->tmap = calloc(1, sizeof *a->tmap)))
        PFAIL(pc, "out of memory");
    kf_cand_tmap *t = a->tmap;
    if (!json_object_object_get_ex(o, "buffer", &v) || !json_object_is_type(v, json_type_string) ||
        !is_ident(json_object_get_string(v)))
        PFAIL(pc, "%s.buffer: missing or not a name (an input, output or scratch buffer)", path);
    if (!(a->text = strdup(json_object_get_string(v))))
        PFAIL(pc, "out of memory");
    t->dtype = KF_DT_F32;
    if (json_object_object_get_ex(o, "dtype", &v)) {
        const char *dt = json_object_is_type(v, json_type_string) ? json_object_get_string(v) : "";
        if (!strcmp(dt, "f32")) t->dtype = KF_DT_F32;
        else if (!strcmp(dt, "bf16")) t->dtype = KF_DT_BF16;
        else if (!strcmp(dt, "f16")) t->dtype = KF_DT_F16;
        else PFAIL(pc, "%s.dtype: expected \"f32\", \"bf16\" or \"f16\"", path);
    }
    if (!json_object_object_get_ex(o, "dims", &v) || !json_object_is_type(v, json_type_array))
        PFAIL(pc, "%s.dims: missing (1 to %d sizes, innermost first)", path, KF_TMAP_MAX_RANK);
    t->rank = (int)json_object_array_length(v);
    if (t->rank < 1 || t->rank > KF_TMAP_MAX_RANK)
        PFAIL(pc, "%s.dims: has %d entries; a tensor map has rank 1 to %d", path, t->rank, KF_TMAP_MAX_RANK);
    snprintf(sub, sizeof sub, "%s.dims", path);
    if (parse_tmap_exprs(pc, v, t->dims, 0, t->rank, sub, "sizes"))
        return -1;
    if (json_object_object_get_ex(o, "strides", &v)) {
        snprintf(sub, sizeof sub, "%s.strides", path);
        if (parse_tmap_exprs(pc, v, t->strides, 1, t->rank - 1, sub, "byte strides (one per dim after the first)"))
            return -1;
    } else if (t->rank > 1)
        PFAIL(pc, "%s.strides: missing (%d byte strides, one per dim after the first)", path, t->rank - 1);
    if (!json_object_object_get_ex(o, "box", &v))
        PFAIL(pc, "%s.box: missing (%d tile sizes, one per dim)", path, t->rank);
    snprintf(sub, sizeof sub, "%s.box", path);
    if (parse_tmap_exprs(pc, v, t->box, 0, t->rank, sub, "tile sizes (one per dim)"))
        return -1;
    if (json_object_object_get_ex(o, "swizzle", &v)) {
        int sw = json_object_is_type(v, json_type_int) ? json_object_get_int(v) : -1;
        if (sw != 0 && sw != 32 && sw != 64 && sw != 128)
            PFAIL(pc, "%s.swizzle: expected 0, 32, 64 or 128 (bytes)", path);
        t->swizzle = sw;
    }
    return 0;
fail:
    return -1;
}

static int parse_arg(pctx *pc, kf_cand_arg *a, json_object *v, const char *path)
{
    static const char *const kinds[] = {"float", "int", "long", "local", "tensor_map", NULL};
    if (json_object_is_type(v, json_type_string)) {
        if (!is_ident(json_object_get_string(v)))
            PFAIL(pc, "%s: '%s' is not a name (use {\"int\": \"expr\"} for expressions)", path,
                  json_object_get_string(v));
        a->kind = KF_CARG_NAME;
        a->text = strdup(json_object_get_string(v));
        return a->text ? 0 : -1;
    }
    if (json_object_is_type(v, json_type_int)) {
        a->kind = KF_CARG_INT;
        a->text = expr_text(v);
        return a->text ? 0 : -1;
    }
    if (json_object_is_type(v, json_type_double)) {
        a->kind = KF_CARG_FLOAT;
        a->fval = json_object_get_double(v);
        return 0;
    }
    if (json_object_is_type(v, json_type_object) && json_object_object_length(v) == 1) {
        if (check_keys(pc, v, path, kinds))
            return -1;
        json_object_object_foreach(v, key, val) {
            if (!strcmp(key, "float")) {
                if (!json_object_is_type(val, json_type_double) &&
                    !json_object_is_type(val, json_type_int))
                    PFAIL(pc, "%s.float: expected a number", path);
                a->kind = KF_CARG_FLOAT;
                a->fval = json_object_get_double(val);
                return 0;
            }
            if (!strcmp(key, "tensor_map")) {
                char sub[160];
                snprintf(sub, sizeof sub, "%s.tensor_map", path);
                return parse_tmap(pc, a, val, sub);
            }
            a->kind = !strcmp(key, "int") ? KF_CARG_INT
                    : !strcmp(key, "long") ? KF_CARG_LONG : KF_CARG_LOCAL;
            if (!(a->text = expr_text(val)))
                PFAIL(pc, "%s.%s: expected an integer or an expression string", path, key);
            return 0;
        }
    }
    PFAIL(pc, "%s: expected a name, a number, or one of {\"float\": x}, {\"int\": e}, "
          "{\"long\": e}, {\"local\": bytes}, {\"tensor_map\": {...}}", path);
fail:
    return -1;
}

static int parse_sizes(pctx *pc, char **dst, json_object *arr, const char *path, int want)
{
    int n;
    if (!json_object_is_type(arr, json_type_array))
        PFAIL(pc, "%s: expected an array of 1 to 3 sizes", path);
    n = (int)json_object_array_length(arr);
    if (n < 1 || n > 3)
        PFAIL(pc, "%s: has %d entries; work_dim must be 1, 2 or 3", path, n);
    if (want && n != want)
        PFAIL(pc, "%s: has %d entries but global has %d", path, n, want);
    for (int d = 0; d < n; d++)
        if (!(dst[d] = expr_text(json_object_array_get_idx(arr, (size_t)d))))
            PFAIL(pc, "%s[%d]: expected an integer or an expression string", path, d);
    return n;
fail:
    return -1;
}

static int parse_launch(pctx *pc, kf_cand_launch *l, json_object *o, int idx)
{
    static const char *const keys[] = {"kernel", "global", "local", "args", NULL};
    json_object *v;
    char path[64], sub[96];
    snprintf(path, sizeof path, "launches[%d]", idx);
    if (!json_object_is_type(o, json_type_object))
        PFAIL(pc, "%s: expected an object with kernel, global, local, args", path);
    if (check_keys(pc, o, path, keys))
        return -1;
    if (!json_object_object_get_ex(o, "kernel", &v) || !is_kernel_name(json_object_get_string(v)))
        PFAIL(pc, "%s.kernel: missing, or neither an identifier nor a library call such as \"cublas:sgemm\"", path);
    l->kernel = strdup(json_object_get_string(v));
    if (!json_object_object_get_ex(o, "global", &v))
        PFAIL(pc, "%s.global: missing (1 to 3 sizes)", path);
    snprintf(sub, sizeof sub, "%s.global", path);
    if ((l->work_dim = parse_sizes(pc, l->global, v, sub, 0)) < 0)
        return -1;
    if (json_object_object_get_ex(o, "local", &v) && !json_object_is_type(v, json_type_null)) {
        snprintf(sub, sizeof sub, "%s.local", path);
        if (parse_sizes(pc, l->local, v, sub, l->work_dim) < 0)
            return -1;
    }
    if (json_object_object_get_ex(o, "args", &v)) {
        if (!json_object_is_type(v, json_type_array))
            PFAIL(pc, "%s.args: expected an array", path);
        int n = (int)json_object_array_length(v);
        if (!(l->args = calloc((size_t)n + 1, sizeof *l->args)))
            PFAIL(pc, "out of memory");
        for (int a = 0; a < n; a++) {
            snprintf(sub, sizeof sub, "%s.args[%d]", path, a);
            l->n_args = a + 1;
            if (parse_arg(pc, &l->args[a], json_object_array_get_idx(v, (size_t)a), sub))
                return -1;
        }
    }
    return 0;
fail:
    return -1;
}

static const char *opt_string(pctx *pc, json_object *root, const char *key, int *bad)
{
    json_object *v;
    if (!json_object_object_get_ex(root, key, &v) || json_object_is_type(v, json_type_null))
        return NULL;
    if (!json_object_is_type(v, json_type_string)) {
        kf_fail(pc->err, KF_E_BAD_INPUT, "%s: %s: expected a string", pc->label, key);
        *bad = 1;
        return NULL;
    }
    return json_object_get_string(v);
}

kf_candidate *kf_candidate_parse_manifest(const char *json_text, const char *dir,
                                          const char *label, kf_error *err)
{
    static const char *const keys[] = {"backend", "sources", "build_options", "entry",
                                       "scratch", "launches", "notes", NULL};
    pctx pc = {label ? label : "candidate.json", err};
    enum json_tokener_error jerr = json_tokener_success;
    json_object *root = NULL, *v;
    kf_candidate *c = NULL;
    const char *s;
    int bad = 0;

    root = json_tokener_parse_verbose(json_text ? json_text : "", &jerr);
    if (!root)
        PFAIL(&pc, "not valid JSON: %s", json_tokener_error_desc(jerr));
    if (!json_object_is_type(root, json_type_object))
        PFAIL(&pc, "expected a JSON object at the top level");
    if (check_keys(&pc, root, "", keys))
        goto fail;
    if (!(s = opt_string(&pc, root, "backend", &bad)) || !*s) {
        if (!bad)
            PFAIL(&pc, "backend: missing (e.g. \"cpu-simd\", \"opencl\")");
        goto fail;
    }
    if (!(c = kf_candidate_new(s)) || !(c->origin = strdup(pc.label)))
        PFAIL(&pc, "out of memory");
    if ((s = opt_string(&pc, root, "build_options", &bad))) {
        free(c->build_options);
        c->build_options = strdup(s);
    }
    if ((s = opt_string(&pc, root, "entry", &bad))) {
        if (!is_ident(s))
            PFAIL(&pc, "entry: '%s' is not a C identifier", s);
        c->entry = strdup(s);
    }
    if ((s = opt_string(&pc, root, "notes", &bad)))
        c->notes = strdup(s);
    if (bad)
        goto fail;
    if (!json_object_object_get_ex(root, "sources", &v) ||
        !json_object_is_type(v, json_type_array))
        PFAIL(&pc, "sources: missing; list the source files (e.g. [\"kernel.cl\"])");
    if (parse_sources(&pc, c, v, dir))
        goto fail;
    if (json_object_object_get_ex(root, "scratch", &v) && !json_object_is_type(v, json_type_null)) {
        if (!json_object_is_type(v, json_type_array))
            PFAIL(&pc, "scratch: expected an array of {\"name\": ..., \"bytes\": ...}");
        if (parse_scratch(&pc, c, v))
            goto fail;
    }
    if (json_object_object_get_ex(root, "launches", &v) && !json_object_is_type(v, json_type_null)) {
        if (!json_object_is_type(v, json_type_array))
            PFAIL(&pc, "launches: expected an array of launches");
        int n = (int)json_object_array_length(v);
        if (!(c->launches = calloc((size_t)n + 1, sizeof *c->launches)))
            PFAIL(&pc, "out of memory");
        for (int i = 0; i < n; i++) {
            c->n_launches = i + 1;
            if (parse_launch(&pc, &c->launches[i], json_object_array_get_idx(v, (size_t)i), i))
                goto fail;
        }
    }
    json_object_put(root);
    return c;
fail:
    json_object_put(root);
    kf_candidate_free(c);
    return NULL;
}

/* ------------------------------------------------------------------ */
/* load                                                                */

static kf_candidate *load_c_file(const char *path, kf_error *err)
{
    const char *base = strrchr(path, '/');
    char *text;
    kf_candidate *c;
    base = base ? base + 1 : path;
    if (!safe_file_name(base)) {
        kf_fail(err, KF_E_BAD_INPUT, "%s: '%s' is not a usable source file name ([A-Za-z0-9_.-])", path, base);
        return NULL;
    }
    if (!(text = read_text(path, "candidate source", err)))
        return NULL;
    c = kf_candidate_new("");   /* the caller's host-entry backend (candidate.h) */
    if (!c || !(c->entry = strdup("kf_kernel")) || !(c->origin = strdup(path)) ||
        kf_candidate_add_source(c, base, text)) {
        kf_candidate_free(c);
        free(text);
        kf_fail(err, KF_E_INTERNAL, "%s: out of memory", path);
        return NULL;
    }
    free(text);
    return c;
}

kf_candidate *kf_candidate_load(const char *path, kf_error *err)
{
    struct stat st;
    char dir[4096], label[4200];
    size_t len;
    char *text;
    kf_candidate *c;

    if (!path || stat(path, &st) != 0) {
        kf_fail_errno(err, errno ? errno : EIO, "%s: cannot open candidate: %s", path ? path : "(null)",
                strerror(errno ? errno : ENOENT));
        return NULL;
    }
    len = strlen(path);
    if (S_ISDIR(st.st_mode)) {
        snprintf(dir, sizeof dir, "%s", path);
        while (len > 1 && dir[len - 1] == '/')
            dir[--len] = '\0';
    } else if (len >= 14 && !strcmp(path + len - 14, "candidate.json") &&
               (len == 14 || path[len - 15] == '/')) {
        snprintf(dir, sizeof dir, "%.*s", (int)(len > 14 ? len - 15 : 1),
                 len > 14 ? path : ".");
    } else if (len >= 2 && !strcmp(path + len - 2, ".c")) {
        return load_c_file(path, err);
    } else {
        kf_fail(err, KF_E_BAD_INPUT, "%s: not a candidate: give a directory holding candidate.json, a "
                "candidate.json file, or a single .c file (for a host-entry backend)", path);
        return NULL;
    }
    snprintf(label, sizeof label, "%s/candidate.json", dir);
    if (!(text = read_text(label, "candidate manifest", err)))
        return NULL;
    c = kf_candidate_parse_manifest(text, dir, label, err);
    free(text);
    return c;
}

/* ------------------------------------------------------------------ */
/* save                                                                */

/* A JSON integer when the expression is a plain literal, else a string. */
static json_object *expr_json(const char *e)
{
    const char *p = e;
    char *end;
    if (*p == '-')
        p++;
    if (*p && strspn(p, "0123456789") == strlen(p) && strlen(p) < 19)
        return json_object_new_int64(strtoll(e, &end, 10));
    return json_object_new_string(e);
}

static json_object *exprs_array(char *const *e, int from, int n)
{
    json_object *arr = json_object_new_array();
    for (int d = from; d < from + n; d++)
        json_object_array_add(arr, expr_json(e[d] ? e[d] : "0"));
    return arr;
}

static json_object *tmap_json(const kf_cand_arg *a)
{
    static const char *const dt[] = {"f32", "f16", "bf16"};
    const kf_cand_tmap *t = a->tmap;
    json_object *m = json_object_new_object(), *o = json_object_new_object();
    json_object_object_add(m, "buffer", json_object_new_string(a->text));
    json_object_object_add(m, "dtype", json_object_new_string(t->dtype <= KF_DT_BF16 ? dt[t->dtype] : "f32"));
    json_object_object_add(m, "dims", exprs_array(t->dims, 0, t->rank));
    if (t->rank > 1)
        json_object_object_add(m, "strides", exprs_array(t->strides, 1, t->rank - 1));
    json_object_object_add(m, "box", exprs_array(t->box, 0, t->rank));
    json_object_object_add(m, "swizzle", json_object_new_int(t->swizzle));
    json_object_object_add(o, "tensor_map", m);
    return o;
}

static json_object *arg_json(const kf_cand_arg *a)
{
    json_object *o;
    switch (a->kind) {
    case KF_CARG_TENSOR_MAP:
        return tmap_json(a);
    case KF_CARG_NAME:
        return json_object_new_string(a->text);
    case KF_CARG_FLOAT:
        o = json_object_new_object();
        json_object_object_add(o, "float", json_object_new_double(a->fval));
        return o;
    default:
        o = json_object_new_object();
        json_object_object_add(o, a->kind == KF_CARG_INT ? "int"
                               : a->kind == KF_CARG_LONG ? "long" : "local",
                               expr_json(a->text));
        return o;
    }
}

char *kf_candidate_manifest_json(const kf_candidate *c)
{
    json_object *root = json_object_new_object(), *arr;
    char *out;
    json_object_object_add(root, "backend", json_object_new_string(c->backend));
    arr = json_object_new_array();
    for (int i = 0; i < c->n_sources; i++)
        json_object_array_add(arr, json_object_new_string(c->sources[i].name));
    json_object_object_add(root, "sources", arr);
    if (c->build_options && *c->build_options)
        json_object_object_add(root, "build_options", json_object_new_string(c->build_options));
    if (c->entry)
        json_object_object_add(root, "entry", json_object_new_string(c->entry));
    if (c->n_scratch) {
        arr = json_object_new_array();
        for (int i = 0; i < c->n_scratch; i++) {
            json_object *s = json_object_new_object();
            json_object_object_add(s, "name", json_object_new_string(c->scratch[i].name));
            json_object_object_add(s, "bytes", expr_json(c->scratch[i].bytes_expr));
            json_object_array_add(arr, s);
        }
        json_object_object_add(root, "scratch", arr);
    }
    if (c->n_launches) {
        arr = json_object_new_array();
        for (int i = 0; i < c->n_launches; i++) {
            const kf_cand_launch *l = &c->launches[i];
            json_object *o = json_object_new_object(), *g = json_object_new_array(), *args;
            json_object_object_add(o, "kernel", json_object_new_string(l->kernel));
            for (int d = 0; d < l->work_dim && d < 3; d++)
                json_object_array_add(g, expr_json(l->global[d] ? l->global[d] : "1"));
            json_object_object_add(o, "global", g);
            if (l->local[0]) {
                json_object *lo = json_object_new_array();
                for (int d = 0; d < l->work_dim && d < 3; d++)
                    json_object_array_add(lo, expr_json(l->local[d] ? l->local[d] : "1"));
                json_object_object_add(o, "local", lo);
            }
            args = json_object_new_array();
            for (int a = 0; a < l->n_args; a++)
                json_object_array_add(args, arg_json(&l->args[a]));
            json_object_object_add(o, "args", args);
            json_object_array_add(arr, o);
        }
        json_object_object_add(root, "launches", arr);
    }
    if (c->notes)
        json_object_object_add(root, "notes", json_object_new_string(c->notes));
    out = strdup(json_object_to_json_string_ext(root, JSON_C_TO_STRING_PRETTY |
                                                          JSON_C_TO_STRING_SPACED |
                                                          JSON_C_TO_STRING_NOSLASHESCAPE));
    json_object_put(root);
    return out;
}

static int write_bytes(const char *path, const char *text, size_t n, mode_t mode, kf_error *err)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
    /* a file written before keeps its mode through O_CREAT: set it */
    if (fd >= 0 && (mode & 0077) == 0 && fchmod(fd, mode) != 0) {
        close(fd);
        fd = -1;
    }
    FILE *f = fd >= 0 ? fdopen(fd, "wb") : NULL;
    if (!f) {
        int e = errno;
        if (fd >= 0) close(fd);
        return kf_fail_errno(err, e, "%s: cannot write: %s", path, strerror(e));
    }
    int bad = fwrite(text, 1, n, f) != n;
    bad |= fclose(f) != 0;
    if (bad)
        return kf_fail_errno(err, errno ? errno : EIO, "%s: write failed (disk full?)", path);
    return 0;
}

static int write_text(const char *path, const char *text, mode_t mode, kf_error *err)
{
    return write_bytes(path, text, strlen(text), mode, err);
}

static int save(const kf_candidate *c, const char *dir, mode_t dmode, mode_t fmode, kf_error *err)
{
    char path[4400];
    char *manifest;
    int rc;
    if (kf_mkdir_p_mode(dir, (int)dmode, err))
        return -1;
    for (int i = 0; i < c->n_sources; i++) {
        if (!safe_file_name(c->sources[i].name))
            return kf_fail(err, KF_E_BAD_INPUT, "%s: source '%s' is not a plain file name", dir,
                           c->sources[i].name);
        snprintf(path, sizeof path, "%s/%s", dir, c->sources[i].name);
        if (write_bytes(path, c->sources[i].text, c->sources[i].size, fmode, err))
            return -1;
    }
    if (!(manifest = kf_candidate_manifest_json(c)))
        return kf_fail(err, KF_E_INTERNAL, "%s: out of memory writing candidate.json", dir);
    snprintf(path, sizeof path, "%s/candidate.json", dir);
    rc = write_text(path, manifest, fmode, err);
    free(manifest);
    return rc;
}

int kf_candidate_save(const kf_candidate *c, const char *dir, kf_error *err)
{
    return save(c, dir, 0777, 0666, err);
}

int kf_candidate_save_private(const kf_candidate *c, const char *dir, kf_error *err)
{
    return save(c, dir, 0700, 0600, err);
}
