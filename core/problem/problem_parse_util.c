/*
 * problem_parse_util.c — JSON paths, "FILE: PATH: message" errors, typed
 * getters with range checks, unknown-key detection and "did you mean"
 * suggestions for the problem parser.
 */
#include <ctype.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "kforge-plugin.h"
#include "problem_internal.h"

/* Appends src to dst (capacity cap), truncating. */
static void jp_append(char *dst, size_t cap, const char *src)
{
    size_t len = strlen(dst);
    size_t n = strlen(src);
    if (len + n >= cap) n = cap - len - 1;
    memcpy(dst + len, src, n);
    dst[len + n] = '\0';
}

kf_jpath kf_jp_key(const kf_jpath *parent, const char *key)
{
    kf_jpath p;
    p.s[0] = '\0';
    if (parent && parent->s[0]) {
        jp_append(p.s, sizeof p.s, parent->s);
        jp_append(p.s, sizeof p.s, ".");
    }
    jp_append(p.s, sizeof p.s, key);
    return p;
}

kf_jpath kf_jp_idx(const kf_jpath *parent, int i)
{
    kf_jpath p;
    char idx[16];
    p.s[0] = '\0';
    if (parent) jp_append(p.s, sizeof p.s, parent->s);
    snprintf(idx, sizeof idx, "[%d]", i);
    jp_append(p.s, sizeof p.s, idx);
    return p;
}

int kf_perr(kf_pctx *c, const kf_jpath *p, const char *fmt, ...)
{
    char msg[KF_ERROR_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return kf_fail(c->err, KF_E_BAD_INPUT, "%s: %s: %s", c->label,
                   p && p->s[0] ? p->s : "top level", msg);
}

const char *kf_json_type_word(json_object *o)
{
    switch (json_object_get_type(o)) {
    case json_type_null: return "null";
    case json_type_boolean: return "a boolean";
    case json_type_double: return "a number";
    case json_type_int: return "an integer";
    case json_type_object: return "an object";
    case json_type_array: return "an array";
    case json_type_string: return "a string";
    }
    return "a value";
}

/* Optimal string alignment distance, case-insensitive. */
int kf_edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 64 || lb > 64) return 1000;
    int d[65][65];
    for (size_t i = 0; i <= la; i++) d[i][0] = (int)i;
    for (size_t j = 0; j <= lb; j++) d[0][j] = (int)j;
    for (size_t i = 1; i <= la; i++) {
        for (size_t j = 1; j <= lb; j++) {
            int cost = tolower((unsigned char)a[i - 1]) != tolower((unsigned char)b[j - 1]);
            int v = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < v) v = d[i][j - 1] + 1;
            if (d[i - 1][j - 1] + cost < v) v = d[i - 1][j - 1] + cost;
            if (i > 1 && j > 1 && tolower((unsigned char)a[i - 1]) == tolower((unsigned char)b[j - 2])
                && tolower((unsigned char)a[i - 2]) == tolower((unsigned char)b[j - 1])
                && d[i - 2][j - 2] + 1 < v)
                v = d[i - 2][j - 2] + 1;
            d[i][j] = v;
        }
    }
    return d[la][lb];
}

const char *kf_suggest(const char *word, const char *const *cands, int n)
{
    const char *best = NULL;
    int best_d = 1000;
    size_t lw = strlen(word);
    for (int i = 0; n < 0 ? cands[i] != NULL : i < n; i++) {
        int dd = kf_edit_distance(word, cands[i]);
        /* an abbreviation ("hi" for "high") counts as one edit */
        size_t lc = strlen(cands[i]);
        if (lw >= 2 && lw < lc && !strncasecmp(word, cands[i], lw) && dd > 1) dd = 1;
        if (dd < best_d) { best_d = dd; best = cands[i]; }
    }
    if (!best) return NULL;
    /* a plausible typo: about one edit per three characters, at least one,
     * and never a complete rewrite of a short name ('z' is not 'x') */
    size_t lb = strlen(best);
    size_t len = lw > lb ? lw : lb;
    int limit = (int)(len / 3);
    if (limit < 1) limit = 1;
    if (limit > 3) limit = 3;
    if (best_d > 0 && (size_t)best_d >= len) return NULL;
    return best_d <= limit ? best : NULL;
}

const char *kf_join_names(const char *const *names, int n, int max, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < n && i < max; i++) {
        int w = snprintf(buf + used, len - used, "%s%s", i ? ", " : "", names[i]);
        if (w < 0 || (size_t)w >= len - used) { buf[len - 1] = '\0'; return buf; }
        used += (size_t)w;
    }
    if (n > max) snprintf(buf + used, len - used, ", ... (%d more)", n - max);
    return buf;
}

int kf_check_keys(kf_pctx *c, const kf_jpath *p, json_object *obj,
                  const char *const *allowed, const char *what)
{
    json_object_object_foreach(obj, key, val) {
        (void)val;
        int ok = 0;
        int n = 0;
        for (; allowed[n]; n++)
            if (!strcmp(allowed[n], key)) ok = 1;
        if (ok) continue;
        kf_jpath kp = kf_jp_key(p, key);
        const char *s = kf_suggest(key, allowed, n);
        char known[512];
        kf_join_names(allowed, n, 24, known, sizeof known);
        if (s)
            return kf_perr(c, &kp, "unknown key '%s' in %s (did you mean '%s'?)", key, what, s);
        if (n == 0)
            return kf_perr(c, &kp, "unknown key '%s': %s takes no attributes", key, what);
        return kf_perr(c, &kp, "unknown key '%s' in %s (known: %s)", key, what, known);
    }
    return 0;
}

static json_object *lookup(kf_pctx *c, const kf_jpath *p, json_object *obj, const char *key,
                           int required, int *rc)
{
    json_object *v = NULL;
    *rc = 0;
    if (!json_object_object_get_ex(obj, key, &v)) {
        if (required) {
            kf_jpath kp = kf_jp_key(p, key);
            *rc = kf_perr(c, &kp, "missing (this field is required)");
        }
        return NULL;
    }
    return v;
}

int kf_get_string(kf_pctx *c, const kf_jpath *p, json_object *obj, const char *key,
                  int required, const char **out)
{
    int rc;
    json_object *v = lookup(c, p, obj, key, required, &rc);
    if (!v) return rc;
    kf_jpath kp = kf_jp_key(p, key);
    if (!json_object_is_type(v, json_type_string))
        return kf_perr(c, &kp, "must be a string, got %s", kf_json_type_word(v));
    *out = json_object_get_string(v);
    return 1;
}

int kf_get_number(kf_pctx *c, const kf_jpath *p, json_object *obj, const char *key,
                  int required, double *out)
{
    int rc;
    json_object *v = lookup(c, p, obj, key, required, &rc);
    if (!v) return rc;
    kf_jpath kp = kf_jp_key(p, key);
    if (!json_object_is_type(v, json_type_int) && !json_object_is_type(v, json_type_double))
        return kf_perr(c, &kp, "must be a number, got %s", kf_json_type_word(v));
    double d = json_object_get_double(v);
    if (!isfinite(d)) return kf_perr(c, &kp, "must be a finite number");
    *out = d;
    return 1;
}

int kf_get_bool(kf_pctx *c, const kf_jpath *p, json_object *obj, const char *key,
                int required, int *out)
{
    int rc;
    json_object *v = lookup(c, p, obj, key, required, &rc);
    if (!v) return rc;
    kf_jpath kp = kf_jp_key(p, key);
    if (!json_object_is_type(v, json_type_boolean))
        return kf_perr(c, &kp, "must be true or false, got %s", kf_json_type_word(v));
    *out = json_object_get_boolean(v) ? 1 : 0;
    return 1;
}

int kf_check_int(kf_pctx *c, const kf_jpath *p, json_object *v, int64_t lo, int64_t hi,
                 int64_t *out)
{
    const char *want = lo == 1 ? "a positive integer" : lo == 0 ? "a non-negative integer"
                                                                : "an integer";
    if (!json_object_is_type(v, json_type_int)) {
        if (json_object_is_type(v, json_type_double))
            return kf_perr(c, p, "must be %s, got %s", want, json_object_to_json_string(v));
        return kf_perr(c, p, "must be %s, got %s", want, kf_json_type_word(v));
    }
    int64_t x = json_object_get_int64(v);
    if (x < lo) return kf_perr(c, p, "must be %s, got %" PRId64, want, x);
    if (x > hi) return kf_perr(c, p, "must be at most %" PRId64 ", got %" PRId64, hi, x);
    *out = x;
    return 1;
}

int kf_get_int(kf_pctx *c, const kf_jpath *p, json_object *obj, const char *key,
               int required, int64_t lo, int64_t hi, int64_t *out)
{
    int rc;
    json_object *v = lookup(c, p, obj, key, required, &rc);
    if (!v) return rc;
    kf_jpath kp = kf_jp_key(p, key);
    return kf_check_int(c, &kp, v, lo, hi, out);
}

int kf_is_ident(const char *s)
{
    if (!s || !(isalpha((unsigned char)*s) || *s == '_')) return 0;
    for (s++; *s; s++)
        if (!(isalnum((unsigned char)*s) || *s == '_')) return 0;
    return 1;
}

int kf_is_problem_name(const char *s)
{
    if (!s || !*s) return 0;
    for (; *s; s++)
        if (!(isalnum((unsigned char)*s) || *s == '_' || *s == '.' || *s == '-')) return 0;
    return 1;
}

const char *kf_shape_fmt(const kf_shape *s, char *buf, size_t n)
{
    size_t used = 0;
    used += (size_t)snprintf(buf, n, "[");
    for (int i = 0; i < s->rank && used < n; i++)
        used += (size_t)snprintf(buf + used, n - used, "%s%" PRId64, i ? ", " : "", s->d[i]);
    if (used < n) snprintf(buf + used, n - used, "]");
    return buf;
}
