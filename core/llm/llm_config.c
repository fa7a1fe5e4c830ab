/* llm_config.c — the providers' config file (doc/config.md) and its built-in defaults. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util/fileio.h"
#include "llm_internal.h"

/* USD per million input / output tokens (list prices, 2025).  Users extend or override
 * them in [prices]. */
static const struct { const char *model; const char *price; } builtin_prices[] = {
    {"gpt-4o", "2.50 10.00"},          {"gpt-4o-mini", "0.15 0.60"},
    {"gpt-4.1", "2.00 8.00"},          {"gpt-4.1-mini", "0.40 1.60"},
    {"gpt-4.1-nano", "0.10 0.40"},     {"gpt-5", "1.25 10.00"},
    {"gpt-5-mini", "0.25 2.00"},       {"o3", "2.00 8.00"},
    {"o3-mini", "1.10 4.40"},          {"o4-mini", "1.10 4.40"},
    {"claude-opus-4", "15.00 75.00"},  {"claude-sonnet-4", "3.00 15.00"},
    {"claude-3-7-sonnet", "3.00 15.00"}, {"claude-3-5-sonnet", "3.00 15.00"},
    {"claude-3-5-haiku", "0.80 4.00"}, {"claude-haiku-4-5", "1.00 5.00"},
};

static const char *const known_keys[][8] = {
    {"openai", "base_url", "api_key_env", "max_tokens_field", NULL},
    {"anthropic", "base_url", "api_key_env", "version", NULL},
    {"cmd", "timeout", NULL},
    {"http", "connect_timeout", "timeout", "max_attempts", "backoff_base", "backoff_max",
     "max_total_wait", NULL},
    {"llm", "max_tokens", "temperature", "context_tokens", NULL},
};

char *kf_llm_strdup(const char *s)
{
    return s ? strdup(s) : NULL;
}

static int push(kf_llm_config *cfg, const char *section, const char *key, const char *value)
{
    if (cfg->n == cfg->cap) {
        int cap = cfg->cap ? cfg->cap * 2 : 32;
        kf_llm_kv *ni = realloc(cfg->items, (size_t)cap * sizeof *ni);
        if (!ni) return -1;
        cfg->items = ni;
        cfg->cap = cap;
    }
    kf_llm_kv *kv = &cfg->items[cfg->n];
    kv->section = strdup(section);
    kv->key = strdup(key);
    kv->value = strdup(value);
    if (!kv->section || !kv->key || !kv->value) {
        free(kv->section); free(kv->key); free(kv->value);
        return -1;
    }
    cfg->n++;
    return 0;
}

kf_llm_config *kf_llm_config_new(void)
{
    kf_llm_config *cfg = calloc(1, sizeof *cfg);
    if (!cfg) return NULL;
    for (size_t i = 0; i < sizeof builtin_prices / sizeof builtin_prices[0]; i++)
        if (push(cfg, "prices", builtin_prices[i].model, builtin_prices[i].price) < 0) {
            kf_llm_config_free(cfg);
            return NULL;
        }
    return cfg;
}

void kf_llm_config_free(kf_llm_config *cfg)
{
    if (!cfg) return;
    for (int i = 0; i < cfg->n; i++) {
        free(cfg->items[i].section);
        free(cfg->items[i].key);
        free(cfg->items[i].value);
    }
    free(cfg->items);
    free(cfg->path);
    free(cfg);
}

kf_llm_config *kf_llm_config_dup(const kf_llm_config *src)
{
    kf_llm_config *cfg = calloc(1, sizeof *cfg);
    if (!cfg) return NULL;
    for (int i = 0; src && i < src->n; i++)
        if (push(cfg, src->items[i].section, src->items[i].key, src->items[i].value) < 0) {
            kf_llm_config_free(cfg);
            return NULL;
        }
    if (src && src->path && !(cfg->path = strdup(src->path))) {
        kf_llm_config_free(cfg);
        return NULL;
    }
    return cfg;
}

const char *kf_llm_config_get(const kf_llm_config *cfg, const char *section, const char *key)
{
    for (int i = cfg ? cfg->n - 1 : -1; i >= 0; i--)
        if (strcmp(cfg->items[i].section, section) == 0 && strcmp(cfg->items[i].key, key) == 0)
            return cfg->items[i].value;
    return NULL;
}

double kf_llm_config_num(const kf_llm_config *cfg, const char *section, const char *key, double dflt)
{
    const char *v = kf_llm_config_get(cfg, section, key);
    return v ? strtod(v, NULL) : dflt;
}

static int parse_price(const char *v, double *in, double *out)
{
    char *end;
    errno = 0;
    *in = strtod(v, &end);
    if (end == v || errno) return -1;
    const char *p = end;
    *out = strtod(p, &end);
    if (end == p || errno || *in < 0 || *out < 0) return -1;
    while (isspace((unsigned char)*end)) end++;
    return *end ? -1 : 0;
}

static int parse_nonneg(const char *v, double *out)
{
    char *end;
    errno = 0;
    *out = strtod(v, &end);
    while (isspace((unsigned char)*end)) end++;
    return (end == v || *end || errno || !(*out >= 0)) ? -1 : 0;
}

int kf_llm_config_set(kf_llm_config *cfg, const char *section, const char *key,
                      const char *value, kf_error *err)
{
    const char *where = cfg->path ? cfg->path : "config";
    if (!*key) return kf_failc(err, KF_E_BAD_INPUT, KF_LLM_E_CONFIG, "%s: [%s]: empty key", where, section);
    if (strcmp(section, "alias") == 0) {
        if (strchr(key, ':'))
            return kf_failc(err, KF_E_BAD_INPUT, KF_LLM_E_CONFIG, "%s: [alias] %s: an alias name may not contain ':'",
                           where, key);
        if (!strchr(value, ':'))
            return kf_failc(err, KF_E_BAD_INPUT, KF_LLM_E_CONFIG,
                           "%s: [alias] %s = %s: the target must be PROVIDER:MODEL (e.g. openai:gpt-4o)",
                           where, key, value);
    } else if (strcmp(section, "prices") == 0) {
        double a, b;
        if (parse_price(value, &a, &b) < 0)
            return kf_failc(err, KF_E_BAD_INPUT, KF_LLM_E_CONFIG,
                           "%s: [prices] %s = %s: write two numbers, USD per million input and output tokens (e.g. 2.50 10.00)",
                           where, key, value);
    } else {
        int si = -1, known = 0;
        for (size_t i = 0; i < sizeof known_keys / sizeof known_keys[0]; i++)
            if (strcmp(known_keys[i][0], section) == 0) si = (int)i;
        if (si < 0)
            return kf_failc(err, KF_E_BAD_INPUT, KF_LLM_E_CONFIG,
                           "%s: unknown section [%s] (known: alias, openai, anthropic, cmd, http, llm, prices)",
                           where, section);
        char list[256] = "";
        for (int k = 1; known_keys[si][k]; k++) {
            if (strcmp(known_keys[si][k], key) == 0) known = 1;
            snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", k > 1 ? ", " : "",
                     known_keys[si][k]);
        }
        if (!known)
            return kf_failc(err, KF_E_BAD_INPUT, KF_LLM_E_CONFIG, "%s: unknown key '%s' in [%s] (known: %s)", where,
                           key, section, list);
        double d;
        if (strcmp(section, "llm") == 0) {
            int whole = strcmp(key, "temperature") != 0;
            if (parse_nonneg(value, &d) < 0 || (whole && (d < 1 || d != (double)(long)d || d > 1e8)) ||
                (!whole && d > 2))
                return kf_failc(err, KF_E_BAD_INPUT, KF_LLM_E_CONFIG, "%s: [llm] %s = %s: expected %s",
                               where, key, value, whole ? "a whole number >= 1" : "a number from 0 to 2");
        }
        if (strcmp(section, "http") == 0 || strcmp(section, "cmd") == 0) {
            if (parse_nonneg(value, &d) < 0)
                return kf_failc(err, KF_E_BAD_INPUT, KF_LLM_E_CONFIG, "%s: [%s] %s = %s: expected a number >= 0",
                               where, section, key, value);
            if (strcmp(key, "max_attempts") == 0 && (d < 1 || d != (double)(int)d))
                return kf_failc(err, KF_E_BAD_INPUT, KF_LLM_E_CONFIG,
                               "%s: [http] max_attempts = %s: expected a whole number >= 1", where, value);
            if ((strcmp(key, "timeout") == 0 || strcmp(key, "connect_timeout") == 0) && d <= 0)
                return kf_failc(err, KF_E_BAD_INPUT, KF_LLM_E_CONFIG, "%s: [%s] %s must be > 0", where, section, key);
        }
        if (strcmp(key, "max_tokens_field") == 0 && strcmp(value, "max_tokens") != 0 &&
            strcmp(value, "max_completion_tokens") != 0)
            return kf_failc(err, KF_E_BAD_INPUT, KF_LLM_E_CONFIG,
                           "%s: [openai] max_tokens_field = %s: use max_tokens or max_completion_tokens",
                           where, value);
    }
    if (push(cfg, section, key, value) < 0)
        return kf_failc(err, KF_E_BAD_INPUT, KF_LLM_E_CONFIG, "%s: out of memory", where);
    return 0;
}

static int known_section(const char *s)
{
    if (strcmp(s, "alias") == 0 || strcmp(s, "prices") == 0) return 1;
    for (size_t i = 0; i < sizeof known_keys / sizeof known_keys[0]; i++)
        if (strcmp(known_keys[i][0], s) == 0) return 1;
    return 0;
}

static char *trim(char *s)
{
    while (isspace((unsigned char)*s)) s++;
    char *e = s + strlen(s);
    while (e > s && isspace((unsigned char)e[-1])) *--e = '\0';
    return s;
}

int kf_llm_config_parse(kf_llm_config *cfg, const char *text, const char *label, kf_error *err)
{
    char *copy = strdup(text);
    if (!copy) return kf_failc(err, KF_E_BAD_INPUT, KF_LLM_E_CONFIG, "%s: out of memory", label);
    char section[64] = "";
    int line = 0, rc = 0;
    char *save = NULL;
    for (char *p = copy; p; p = save) {
        char *nl = strchr(p, '\n');
        save = nl ? nl + 1 : NULL;
        if (nl) *nl = '\0';
        line++;
        char *s = trim(p);
        if (!*s || *s == '#' || *s == ';') continue;
        if (*s == '[') {
            char *e = strchr(s, ']');
            if (!e || e[1] || e - s - 1 <= 0 || (size_t)(e - s - 1) >= sizeof section) {
                rc = kf_failc(err, KF_E_BAD_INPUT, KF_LLM_E_CONFIG, "%s:%d: malformed section header '%s' (write [name])",
                             label, line, s);
                break;
            }
            *e = '\0';
            snprintf(section, sizeof section, "%s", trim(s + 1));
            if (!known_section(section)) {
                rc = kf_failc(err, KF_E_BAD_INPUT, KF_LLM_E_CONFIG,
                             "%s:%d: unknown section [%s] (known: alias, openai, anthropic, cmd, http, llm, prices)",
                             label, line, section);
                break;
            }
            continue;
        }
        char *eq = strchr(s, '=');
        if (!eq) {
            rc = kf_failc(err, KF_E_BAD_INPUT, KF_LLM_E_CONFIG, "%s:%d: expected 'key = value', got '%s'", label, line, s);
            break;
        }
        if (!*section) {
            rc = kf_failc(err, KF_E_BAD_INPUT, KF_LLM_E_CONFIG, "%s:%d: '%s' is outside any [section]", label, line, s);
            break;
        }
        *eq = '\0';
        /* an inline comment starts at whitespace followed by '#' */
        for (char *h = eq + 1; *h; h++)
            if ((*h == ' ' || *h == '\t') && h[1] == '#') { *h = '\0'; break; }
        char *key = trim(s), *val = trim(eq + 1);
        size_t vl = strlen(val);
        if (vl >= 2 && ((val[0] == '"' && val[vl - 1] == '"') || (val[0] == '\'' && val[vl - 1] == '\''))) {
            val[vl - 1] = '\0';
            val++;
        }
        kf_error e2 = {0};
        if (kf_llm_config_set(cfg, section, key, val, &e2) < 0) {
            /* re-label with the line number */
            const char *msg = e2.msg;
            const char *colon = strstr(msg, ": ");
            rc = kf_failc(err, KF_E_BAD_INPUT, KF_LLM_E_CONFIG, "%s:%d: %s", label, line, colon ? colon + 2 : msg);
            break;
        }
    }
    free(copy);
    return rc;
}

static char *default_path(void)
{
    const char *xdg = getenv("XDG_CONFIG_HOME");
    const char *home = getenv("HOME");
    char buf[4096];
    if (xdg && *xdg) snprintf(buf, sizeof buf, "%s/kforge/config", xdg);
    else if (home && *home) snprintf(buf, sizeof buf, "%s/.config/kforge/config", home);
    else return NULL;
    return strdup(buf);
}

kf_llm_config *kf_llm_config_load(const char *path, kf_error *err)
{
    kf_llm_config *cfg = kf_llm_config_new();
    if (!cfg) { kf_failc(err, KF_E_BAD_INPUT, KF_LLM_E_CONFIG, "out of memory"); return NULL; }
    char *p = path ? strdup(path) : default_path();
    if (!p) return cfg;
    char *text = kf_read_file(p, NULL);
    if (!text) {
        if (!path && errno == ENOENT) { free(p); return cfg; }
        kf_failc(err, KF_E_BAD_INPUT, KF_LLM_E_CONFIG, "%s: cannot read the config file: %s", p, strerror(errno));
        free(p);
        kf_llm_config_free(cfg);
        return NULL;
    }
    cfg->path = p;
    int rc = kf_llm_config_parse(cfg, text, p, err);
    free(text);
    if (rc < 0) { kf_llm_config_free(cfg); return NULL; }
    return cfg;
}

static int prefix_match(const char *model, const char *k)
{
    size_t n = strlen(k);
    return strncmp(model, k, n) == 0 && (model[n] == '-' || model[n] == '@' || model[n] == ':');
}

int kf_llm_config_price(const kf_llm_config *cfg, const char *model, double *in_per_m,
                        double *out_per_m)
{
    *in_per_m = *out_per_m = 0;
    if (!cfg || !model) return 0;
    for (int pass = 0; pass < 2; pass++) {
        const char *m = model;
        if (pass == 1) {               /* "openai/gpt-4o" (routers) -> "gpt-4o" */
            const char *slash = strrchr(model, '/');
            if (!slash) break;
            m = slash + 1;
        }
        const char *exact = kf_llm_config_get(cfg, "prices", m);
        const char *best = exact;
        size_t best_len = 0;
        for (int i = cfg->n - 1; !exact && i >= 0; i--) {
            const kf_llm_kv *kv = &cfg->items[i];
            if (strcmp(kv->section, "prices") == 0 && strlen(kv->key) > best_len &&
                prefix_match(m, kv->key)) {
                best = kv->value;
                best_len = strlen(kv->key);
            }
        }
        if (best) return parse_price(best, in_per_m, out_per_m) == 0;
    }
    return 0;
}
