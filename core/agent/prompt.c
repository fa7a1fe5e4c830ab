#include "prompt.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/fileio.h"

char *kf_prompt_load(const char *override_dir, const char *rel, kf_error *err)
{
    const char *dirs[3] = {override_dir, getenv("KFORGE_PROMPTS"), KF_PKGDATADIR "/prompts"};
    char tried[2048] = "";
    for (int i = 0; i < 3; i++) {
        if (!dirs[i] || !*dirs[i]) continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dirs[i], rel);
        char *text = kf_read_file(path, NULL);
        if (text) return text;
        if (tried[0]) strncat(tried, ", ", sizeof tried - strlen(tried) - 1);
        strncat(tried, path, sizeof tried - strlen(tried) - 1);
    }
    kf_fail_errno(err, ENOENT, "prompt template %s not found (looked in: %s); use --prompts DIR", rel, tried);
    return NULL;
}

typedef struct sbuf { char *s; size_t len, cap; } sbuf;

static int sb_add(sbuf *b, const char *s, size_t n)
{
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 1024;
        while (b->len + n + 1 > cap) cap *= 2;
        char *ns = realloc(b->s, cap);
        if (!ns) return -1;
        b->s = ns;
        b->cap = cap;
    }
    memcpy(b->s + b->len, s, n);
    b->len += n;
    b->s[b->len] = '\0';
    return 0;
}

char *kf_prompt_render(const char *tmpl, const char *label, const kf_prompt_var *vars, int n_vars,
                       kf_error *err)
{
    sbuf b = {0};
    const char *p = tmpl;
    sb_add(&b, "", 0);
    while (*p) {
        const char *open = strstr(p, "{{");
        if (!open) { sb_add(&b, p, strlen(p)); break; }
        sb_add(&b, p, (size_t)(open - p));
        const char *close = strstr(open + 2, "}}");
        if (!close) {
            free(b.s);
            kf_fail(err, KF_E_BAD_INPUT, "%s: '{{' without a closing '}}'", label);
            return NULL;
        }
        size_t n = (size_t)(close - open - 2);
        const char *val = NULL;
        for (int i = 0; i < n_vars; i++)
            if (strlen(vars[i].name) == n && !strncmp(vars[i].name, open + 2, n)) {
                val = vars[i].value ? vars[i].value : "";
                break;
            }
        if (!val) {
            free(b.s);
            kf_fail(err, KF_E_BAD_INPUT, "%s: unknown variable {{%.*s}}", label, (int)n, open + 2);
            return NULL;
        }
        sb_add(&b, val, strlen(val));
        p = close + 2;
    }
    return b.s;
}
