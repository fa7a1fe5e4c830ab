/* candidate_same.c — whether two candidate directories hold the same code
 * (candidate.h, kf_candidate_same_code).
 *
 * The run reports a best whose code is its op-by-op baseline's at speedup 1
 * rather than at the ratio of two timings of one kernel, which is the
 * machine's spread (bench/results/xeon16-cpu-gelu-table-2026-11-30: 47's best
 * and baseline, the same loops, timed 0.663 and 0.600 ms).  "Same" is
 * strict: equal candidate.json manifests (as JSON values, but for "notes",
 * which says how the candidate was made, and the name of a lone source: the
 * builtin writes kernel.c, a model's answer candidate.c) and, source by
 * source, one format and equal tokens and lines once C-family comments are
 * removed and blanks collapsed (the emitters differ only in their header
 * comments).  Anything this cannot read, a binary source, or a source it
 * cannot read safely counts as different: the measured ratio then stands,
 * which is what every other kernel gets. */
#include "candidate.h"

#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "util/fileio.h"

/* kf_candidate_normalise_code: src as tokens and line breaks: comments out (a
 * block comment is a space, as in C; a // comment ends at the next newline
 * even after a backslash: a spliced line stays as code, so the scan may keep
 * too much, never drop code), each run of blanks one space and each run of
 * whitespace holding a newline one newline (the lines stay: a preprocessor
 * directive ends at its own), none at a line's ends.  String and character
 * literals are kept whole, escapes included.  NULL for a C++ raw string
 * literal R"..." (whose quotes this scan would misread). */
char *kf_candidate_normalise_code(const char *src)
{
    if (strstr(src, "R\"")) return NULL;
    size_t n = strlen(src), o = 0;
    char *out = malloc(n + 2);
    if (!out) return NULL;
    int ws = 0;   /* pending whitespace: 0 none, 1 blanks, 2 a newline among them */
    for (size_t i = 0; i < n;) {
        char c = src[i];
        if (c == '/' && i + 1 < n && src[i + 1] == '/') {
            while (i < n && src[i] != '\n') i++;
            continue;
        }
        if (c == '/' && i + 1 < n && src[i + 1] == '*') {
            const char *end = strstr(src + i + 2, "*/");
            i = end ? (size_t)(end - src) + 2 : n;
            if (!ws) ws = 1;
            continue;
        }
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') {
            if (c == '\n') ws = 2;
            else if (!ws) ws = 1;
            i++;
            continue;
        }
        if (ws && o > 0) out[o++] = ws == 2 ? '\n' : ' ';   /* none before the first token */
        ws = 0;
        if (c == '"' || c == '\'') {   /* a literal: to its closing quote, or the line's end */
            out[o++] = src[i++];
            while (i < n && src[i] != c && src[i] != '\n') {
                if (src[i] == '\\' && i + 1 < n) out[o++] = src[i++];
                out[o++] = src[i++];
            }
            if (i < n && src[i] == c) out[o++] = src[i++];
        } else {
            out[o++] = src[i++];
        }
    }
    out[o] = '\0';
    return out;
}

/* Are text source na of directory a and nb of b the same code? */
static int same_source(const char *a, const char *na, const char *b, const char *nb)
{
    char pa[4200], pb[4200];
    snprintf(pa, sizeof pa, "%s/%s", a, na);
    snprintf(pb, sizeof pb, "%s/%s", b, nb);
    kf_error e = {0};
    char *ta = kf_read_file(pa, &e), *tb = kf_read_file(pb, &e);
    int same = 0;
    if (ta && tb) {
        char *sa = kf_candidate_normalise_code(ta), *sb = kf_candidate_normalise_code(tb);
        same = sa && sb && !strcmp(sa, sb);
        free(sa);
        free(sb);
    }
    free(ta);
    free(tb);
    return same;
}

/* The manifest's "sources" (an array, taken out of m: the caller owns it), or NULL. */
static json_object *take_sources(json_object *m)
{
    json_object *s = NULL;
    if (!m || !json_object_is_type(m, json_type_object) || !json_object_object_get_ex(m, "sources", &s) ||
        !json_object_is_type(s, json_type_array))
        return NULL;
    json_object_get(s);
    json_object_object_del(m, "sources");
    return s;
}

int kf_candidate_same_code(const char *dir_a, const char *dir_b)
{
    char pa[4200], pb[4200];
    snprintf(pa, sizeof pa, "%s/candidate.json", dir_a);
    snprintf(pb, sizeof pb, "%s/candidate.json", dir_b);
    json_object *ma = json_object_from_file(pa), *mb = json_object_from_file(pb);
    json_object *sa = take_sources(ma), *sb = take_sources(mb);
    if (sa) json_object_object_del(ma, "notes");
    if (sb) json_object_object_del(mb, "notes");
    /* the rest of the manifests equal; the sources pairwise, in order, of one format each (a
       source's name matters only where another could include it: with more than one) */
    size_t n = sa && sb ? json_object_array_length(sa) : 0;
    int same = n > 0 && json_object_array_length(sb) == n && json_object_equal(ma, mb);
    for (size_t i = 0; same && i < n; i++) {
        const char *na = json_object_get_string(json_object_array_get_idx(sa, i));
        const char *nb = json_object_get_string(json_object_array_get_idx(sb, i));
        /* a binary (SPIR-V, CUBIN) may hold NUL bytes, which the text comparison would stop at */
        same = na && nb && !strstr(na, "..") && !strstr(nb, "..") && (n == 1 || !strcmp(na, nb)) &&
               kf_source_format_of(na) == kf_source_format_of(nb) && !kf_source_format_binary(kf_source_format_of(na)) &&
               same_source(dir_a, na, dir_b, nb);
    }
    json_object_put(sa);
    json_object_put(sb);
    json_object_put(ma);
    json_object_put(mb);
    return same;
}
