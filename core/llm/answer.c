/* answer.c — fenced code blocks and tolerant JSON out of model answers (see answer.h). */
#include "util/strbuf.h"
#include "answer.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <json-c/json.h>

typedef struct block {
    char lang[32];        /* "" = untagged */
    kf_sb text;           /* the block's lines, each ending in '\n' */
    int complete;
} block;

typedef struct blocks {
    block *b;
    int n, cap;
} blocks;

static void blocks_free(blocks *bs)
{
    for (int i = 0; i < bs->n; i++) kf_sb_free(&bs->b[i].text);
    free(bs->b);
}

static int block_add(block *b, const char *s, size_t n)
{
    kf_sb_append(&b->text, s, n);
    kf_sb_append(&b->text, "\n", 1);
    return b->text.oom ? -1 : 0;
}

static size_t run_of(const char *s, size_t n, char c)
{
    size_t k = 0;
    while (k < n && s[k] == c) k++;
    return k;
}

/* Splits text into fenced blocks.  -1 on out of memory. */
static int scan(const char *text, blocks *bs)
{
    block *cur = NULL;
    char fch = 0;
    size_t fn = 0, findent = 0;
    const char *p = text;
    while (*p) {
        const char *eol = strchr(p, '\n');
        size_t len = eol ? (size_t)(eol - p) : strlen(p);
        const char *next = eol ? eol + 1 : p + len;
        size_t tl = len;                      /* without trailing whitespace / CR */
        while (tl && isspace((unsigned char)p[tl - 1])) tl--;
        size_t ind = 0;
        while (ind < tl && (p[ind] == ' ' || p[ind] == '\t')) ind++;
        const char *q = p + ind;
        size_t ql = tl - ind;
        if (!cur) {
            char c = ql ? q[0] : 0;
            size_t n = (c == '`' || c == '~') ? run_of(q, ql, c) : 0;
            if (n >= 3 && !(c == '`' && memchr(q + n, '`', ql - n))) {
                if (bs->n == bs->cap) {
                    int cap = bs->cap ? bs->cap * 2 : 8;
                    block *nb = realloc(bs->b, (size_t)cap * sizeof *nb);
                    if (!nb) return -1;
                    bs->b = nb;
                    bs->cap = cap;
                }
                cur = &bs->b[bs->n++];
                memset(cur, 0, sizeof *cur);
                const char *info = q + n, *ie = q + ql;
                while (info < ie && (isspace((unsigned char)*info) || *info == '{' || *info == '.')) info++;
                size_t k = 0;
                while (info + k < ie && !isspace((unsigned char)info[k]) && info[k] != '}' && info[k] != ',' &&
                       k + 1 < sizeof cur->lang) {
                    cur->lang[k] = (char)tolower((unsigned char)info[k]);
                    k++;
                }
                cur->lang[k] = '\0';
                fch = c;
                fn = n;
                findent = ind;
                memset(&cur->text, 0, sizeof cur->text);
                kf_sb_append(&cur->text, "", 0);
                if (cur->text.oom) return -1;
            }
        } else {
            size_t n = run_of(q, ql, fch);
            if (n >= fn && n == ql) {            /* a closing fence line */
                cur->complete = 1;
                cur = NULL;
            } else if (fch == '`' && ql > fn && run_of(p + tl - fn, fn, '`') == fn &&
                       p[tl - fn - 1] != '`') {   /* "}```": closing fence glued to code */
                size_t skip = ind < findent ? ind : findent;
                if (block_add(cur, p + skip, tl - fn - skip) < 0) return -1;
                cur->complete = 1;
                cur = NULL;
            } else {
                size_t cl = len;
                if (cl && p[cl - 1] == '\r') cl--;
                size_t skip = 0;
                while (skip < findent && skip < cl && (p[skip] == ' ' || p[skip] == '\t')) skip++;
                if (block_add(cur, p + skip, cl - skip) < 0) return -1;
            }
        }
        p = next;
    }
    return 0;
}

static int lang_wanted(const char *lang, const char *const *langs)
{
    if (!langs) return 1;
    for (int i = 0; langs[i]; i++)
        if (strcasecmp(lang, langs[i]) == 0) return 1;
    return 0;
}

static int blank(const char *s)
{
    while (*s && isspace((unsigned char)*s)) s++;
    return *s == '\0';
}

int kf_answer_extract(const char *text, const char *const *langs, char **code, kf_error *err)
{
    *code = NULL;
    const char *want = langs && langs[0] ? langs[0] : "";
    const char *what = "code";
    if (!text || blank(text))
        return kf_failc(err, KF_E_CANDIDATE, KF_ANSWER_E_EMPTY,
                       "the answer is empty; reply with the complete %s in one ```%s block", what, want);
    blocks bs = {0};
    if (scan(text, &bs) < 0) {
        blocks_free(&bs);
        return kf_failc(err, KF_E_CANDIDATE, KF_ANSWER_E_EMPTY, "out of memory while reading the answer");
    }
    int rc = -1;
    if (bs.n == 0) {
        kf_failc(err, KF_E_CANDIDATE, KF_ANSWER_E_NO_CODE,
                "the answer has no fenced code block; reply with the complete %s in one ```%s block (prose outside it is fine)",
                what, want);
        goto out;
    }
    block *last = &bs.b[bs.n - 1];
    if (!last->complete && (!last->lang[0] || lang_wanted(last->lang, langs))) {
        kf_failc(err, KF_E_CANDIDATE, KF_ANSWER_E_TRUNCATED,
                "the answer was cut off inside its last ```%s block (no closing fence), most likely at the length limit; reply with the complete %s again, more compactly",
                last->lang[0] ? last->lang : want, what);
        goto out;
    }
    block *pick = NULL;
    for (int i = bs.n - 1; i >= 0 && !pick; i--)
        if (bs.b[i].complete && bs.b[i].lang[0] && lang_wanted(bs.b[i].lang, langs)) pick = &bs.b[i];
    for (int i = bs.n - 1; i >= 0 && !pick; i--)
        if (bs.b[i].complete && !bs.b[i].lang[0]) pick = &bs.b[i];
    if (!pick) {
        char seen[200] = "";
        for (int i = 0; i < bs.n; i++) {
            if (strstr(seen, bs.b[i].lang)) continue;
            size_t l = strlen(seen);
            snprintf(seen + l, sizeof seen - l, "%s%s", l ? ", " : "", bs.b[i].lang);
        }
        kf_failc(err, KF_E_CANDIDATE, KF_ANSWER_E_WRONG_LANG,
                "the answer's code blocks are tagged %s, none is ```%s; reply with the %s in a ```%s block",
                seen, want, what, want);
        goto out;
    }
    if (blank(pick->text.s)) {
        kf_failc(err, KF_E_CANDIDATE, KF_ANSWER_E_EMPTY_BLOCK,
                "the answer's last ```%s block is empty; reply with the complete %s inside it",
                pick->lang[0] ? pick->lang : want, what);
        goto out;
    }
    *code = kf_sb_take(&pick->text);
    if (!*code) {
        kf_fail(err, KF_E_INTERNAL, "out of memory");
        goto out;
    }
    rc = 0;
out:
    blocks_free(&bs);
    return rc;
}

/* ---- tolerant JSON ------------------------------------------------------ */

typedef struct jout {
    char *s;
    size_t *map;          /* output offset -> input offset, for error positions */
    size_t len, cap;
} jout;

static int jput(jout *o, const char *s, size_t n, size_t src)
{
    if (o->len + n + 1 > o->cap) {
        size_t cap = o->cap ? o->cap : 1024;
        while (cap < o->len + n + 1) cap *= 2;
        char *ns = realloc(o->s, cap);
        if (!ns) return -1;
        o->s = ns;
        size_t *nm = realloc(o->map, cap * sizeof *nm);
        if (!nm) return -1;
        o->map = nm;
        o->cap = cap;
    }
    for (size_t i = 0; i < n; i++) {
        o->s[o->len] = s[i];
        o->map[o->len++] = src;
    }
    o->s[o->len] = '\0';
    o->map[o->len] = src;
    return 0;
}

/* Skips whitespace and comments from i; returns the index of the next significant char. */
static size_t skip_ws(const char *t, size_t n, size_t i)
{
    for (;;) {
        while (i < n && isspace((unsigned char)t[i])) i++;
        if (i + 1 < n && t[i] == '/' && t[i + 1] == '/') {
            while (i < n && t[i] != '\n') i++;
        } else if (i + 1 < n && t[i] == '/' && t[i + 1] == '*') {
            const char *e = strstr(t + i + 2, "*/");
            if (!e) return n;
            i = (size_t)(e - t) + 2;
        } else {
            return i;
        }
    }
}

static void position(const char *t, size_t off, int *line, int *col)
{
    *line = 1;
    *col = 1;
    for (size_t i = 0; i < off && t[i]; i++) {
        if (t[i] == '\n') { (*line)++; *col = 1; }
        else (*col)++;
    }
}

#define JSON_WHAT_TO_DO "reply with one ```json block holding a single JSON object"

char *kf_answer_clean_json(const char *text, kf_error *err)
{
    if (!text || blank(text)) {
        kf_failc(err, KF_E_CANDIDATE, KF_ANSWER_E_BAD_JSON, "the JSON plan is empty; " JSON_WHAT_TO_DO);
        return NULL;
    }
    size_t n = strlen(text), i = 0;
    if (n >= 3 && (unsigned char)text[0] == 0xEF && (unsigned char)text[1] == 0xBB && (unsigned char)text[2] == 0xBF)
        i = 3;
    jout o = {0};
    int in_str = 0, line, col, oom = 0;
    char *result = NULL;
    while (i < n && !oom) {
        char c = text[i];
        if (in_str) {
            char esc[8];
            if (c == '\\' && i + 1 < n) {
                oom = jput(&o, text + i, 2, i) < 0;
                i += 2;
                continue;
            }
            if (c == '"') in_str = 0;
            if ((unsigned char)c < 0x20) {
                if (c == '\n') strcpy(esc, "\\n");
                else if (c == '\r') strcpy(esc, "\\r");
                else if (c == '\t') strcpy(esc, "\\t");
                else snprintf(esc, sizeof esc, "\\u%04x", (unsigned)c);
                oom = jput(&o, esc, strlen(esc), i) < 0;
            } else {
                oom = jput(&o, &c, 1, i) < 0;
            }
            i++;
            continue;
        }
        if (c == '"') {
            in_str = 1;
        } else if (c == '/' && i + 1 < n && (text[i + 1] == '/' || text[i + 1] == '*')) {
            if (text[i + 1] == '*' && !strstr(text + i + 2, "*/")) {
                position(text, i, &line, &col);
                kf_failc(err, KF_E_CANDIDATE, KF_ANSWER_E_BAD_JSON,
                        "the JSON plan has an unterminated /* comment at line %d, column %d; " JSON_WHAT_TO_DO,
                        line, col);
                goto out;
            }
            size_t j = skip_ws(text, n, i);
            oom = jput(&o, " ", 1, i) < 0;
            i = j;
            continue;
        } else if (c == ',') {
            size_t j = skip_ws(text, n, i + 1);
            if (j < n && (text[j] == '}' || text[j] == ']')) {   /* trailing comma */
                i++;
                continue;
            }
        }
        oom = jput(&o, &c, 1, i) < 0;
        i++;
    }
    if (oom || !o.s) {
        kf_failc(err, KF_E_CANDIDATE, KF_ANSWER_E_BAD_JSON, oom ? "out of memory while reading the JSON plan"
                                               : "the JSON plan is empty; " JSON_WHAT_TO_DO);
        goto out;
    }
    json_tokener *tok = json_tokener_new();
    if (!tok) { kf_failc(err, KF_E_CANDIDATE, KF_ANSWER_E_BAD_JSON, "out of memory"); goto out; }
    json_object *obj = json_tokener_parse_ex(tok, o.s, (int)o.len);
    enum json_tokener_error je = json_tokener_get_error(tok);
    size_t end = (size_t)tok->char_offset;
    json_tokener_free(tok);
    if (!obj) {
        if (je == json_tokener_continue) {
            kf_failc(err, KF_E_CANDIDATE, KF_ANSWER_E_BAD_JSON,
                    "the JSON plan ends before its object is complete (cut off?); " JSON_WHAT_TO_DO);
        } else {
            position(text, o.map[end < o.len ? end : o.len], &line, &col);
            kf_failc(err, KF_E_CANDIDATE, KF_ANSWER_E_BAD_JSON, "the JSON plan is not valid JSON: %s at line %d, column %d; " JSON_WHAT_TO_DO,
                    json_tokener_error_desc(je), line, col);
        }
        goto out;
    }
    while (end < o.len && isspace((unsigned char)o.s[end])) end++;
    if (end < o.len) {
        position(text, o.map[end], &line, &col);
        kf_failc(err, KF_E_CANDIDATE, KF_ANSWER_E_BAD_JSON,
                "the JSON plan has extra text after its object at line %d, column %d; " JSON_WHAT_TO_DO, line, col);
    } else if (!json_object_is_type(obj, json_type_object)) {
        kf_failc(err, KF_E_CANDIDATE, KF_ANSWER_E_BAD_JSON, "the JSON plan is a JSON %s, not an object; " JSON_WHAT_TO_DO,
                json_type_to_name(json_object_get_type(obj)));
    } else {
        result = strdup(json_object_to_json_string_ext(obj, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED |
                                                                JSON_C_TO_STRING_NOSLASHESCAPE));
        if (!result) kf_failc(err, KF_E_CANDIDATE, KF_ANSWER_E_BAD_JSON, "out of memory");
    }
    json_object_put(obj);
out:
    free(o.s);
    free(o.map);
    return result;
}

char *kf_answer_extract_json(const char *text, kf_error *err)
{
    static const char *const json_langs[] = {"json", "jsonc", "json5", NULL};
    char *code = NULL;
    kf_error e = {0};
    if (kf_answer_extract(text, json_langs, &code, &e) < 0) {
        if (e.code == KF_ANSWER_E_NO_CODE) {
            const char *s = text;
            while (isspace((unsigned char)*s)) s++;
            if (*s == '{') return kf_answer_clean_json(s, err);
        }
        if (err) *err = e;
        return NULL;
    }
    char *clean = kf_answer_clean_json(code, err);
    free(code);
    return clean;
}
