#include "prompt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/fileio.h"
#include "util/strbuf.h"

char *kf_prompt_load(const char *override_dir, const char *rel, kf_error *err)
{
    /* the source tree's prompts/ last: a kforge run from its build tree
       (never installed) finds its templates without --prompts */
    const char *dirs[4] = {override_dir, getenv("KFORGE_PROMPTS"), KF_PKGDATADIR "/prompts",
                           KF_SRCDIR_PROMPTS};
    char tried[2048] = "";
    for (int i = 0; i < 4; i++) {
        if (!dirs[i] || !*dirs[i]) continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dirs[i], rel);
        char *text = kf_read_file(path, NULL);
        if (text) return text;
        if (tried[0]) strncat(tried, ", ", sizeof tried - strlen(tried) - 1);
        strncat(tried, path, sizeof tried - strlen(tried) - 1);
    }
    kf_fail(err, KF_E_BAD_INPUT, "prompt template %s not found (looked in: %s); install kforge, or give --prompts DIR (a directory laid out like prompts/ of the source tree)", rel, tried);
    return NULL;
}


char *kf_prompt_render(const char *tmpl, const char *label, const kf_prompt_var *vars, int n_vars,
                       kf_error *err)
{
    kf_sb b = {0};
    const char *p = tmpl;
    kf_sb_append(&b, "", 0);
    while (*p) {
        const char *open = strstr(p, "{{");
        if (!open) { kf_sb_append(&b, p, strlen(p)); break; }
        kf_sb_append(&b, p, (size_t)(open - p));
        const char *close = strstr(open + 2, "}}");
        if (!close) {
            kf_sb_free(&b);
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
            kf_sb_free(&b);
            kf_fail(err, KF_E_BAD_INPUT, "%s: unknown variable {{%.*s}}", label, (int)n, open + 2);
            return NULL;
        }
        kf_sb_append(&b, val, strlen(val));
        p = close + 2;
    }
    return kf_sb_take(&b);
}
