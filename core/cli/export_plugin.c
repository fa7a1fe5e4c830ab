/*
 * export_plugin.c — the code that calls an exported kernel is the plugin's
 * (export_files, plugin ABI 1.4): a kernel plan's host code (what builds and
 * launches the plan), host-entry C's wrapper (the cpu-simd plugin's).  It is
 * asked of the plugin of the run's backend, or, when that one has no
 * export_files or is not here, of another plugin declaring the kernel's
 * language and taking its kind of candidate (KF_CAP_KERNEL_PLAN or
 * KF_CAP_HOST_ENTRY); the core decided from the run's recorded language and
 * capabilities what the kernel is, and writes the files the plugin returns
 * (export.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export.h"
#include "backend/registry.h"
#include "util/error.h"

/* [launch][arg]: the expression each argument was bound from, or NULL. */
static const char ***arg_exprs_of(const kf_exp_ctx *x)
{
    int nl = x->b.view.n_launches;
    const char ***e = calloc((size_t)nl + 1, sizeof *e);
    for (int li = 0; e && li < nl; li++) {
        const kf_cand_launch *cl = &x->c->launches[li];
        if (!(e[li] = calloc((size_t)cl->n_args + 1, sizeof *e[li]))) {
            for (int k = 0; k < li; k++) free(e[k]);
            free(e);
            return NULL;
        }
        for (int a = 0; a < cl->n_args; a++) e[li][a] = cl->args[a].text;
    }
    return e;
}

static void result_free(kf_export_result *r)
{
    for (int i = 0; i < r->n_files; i++) {
        free(r->files[i].name);
        free(r->files[i].text);
    }
    free(r->files);
    free(r->caller);
    free(r->spec_extra);
    memset(r, 0, sizeof *r);
}

/* A name the plugin may write: one plain file name. */
static int plain_name(const char *n)
{
    return n && *n && !strchr(n, '/') && strcmp(n, ".") != 0 && strcmp(n, "..") != 0;
}

/* --to torch: the caller is "_NAME" and "_NAME.py" is one of the files. */
static int caller_written(const kf_export_result *r)
{
    if (!r->caller || r->caller[0] != '_' || !plain_name(r->caller)) return 0;
    size_t n = strlen(r->caller);
    for (int i = 0; i < r->n_files; i++) {
        const char *f = r->files[i].name;
        if (f && !strncmp(f, r->caller, n) && !strcmp(f + n, ".py")) return 1;
    }
    return 0;
}

/* Another plugin may export the run's kernel: it declares the language, takes
 * the kind of candidate and has export_files. */
static int can_stand_in(const kf_plugin *p, const kf_exp_ctx *x)
{
    uint32_t cap = x->kind == KF_EXP_HOST_C ? KF_CAP_HOST_ENTRY : KF_CAP_KERNEL_PLAN;
    return !strcmp(kf_plugin_language(p), x->language) && (p->be->caps & cap) && kf_plugin_can_export(p);
}

int kf_exp_plugin(const kf_exp_ctx *x, const char *target, const char *dir, kf_exp_from_plugin *out,
                  kf_error *err)
{
    memset(out, 0, sizeof *out);
    const char *what = x->kind == KF_EXP_HOST_C ? "host-entry kernel" : "kernel plan";
    if (x->kind == KF_EXP_PLAN && (!x->backend || !*x->backend))
        return kf_fail(err, KF_E_BAD_INPUT, "%s: the run records no backend, whose plugin writes the host code of "
                       "its %s kernel plan; re-run it with this kforge", x->run_dir, x->language);
    kf_registry *reg = kf_registry_open(0, err);
    if (!reg) return -1;
    /* the run's own plugin, else another that declares the same language
       and takes the same kind of candidate (a levelzero run's OpenCL C plan
       is exported by the opencl plugin, a third party's host-entry C by
       cpu-simd) */
    kf_plugin *own = x->backend ? kf_registry_find(reg, x->backend) : NULL, *p = NULL;
    int own_lang = own && !strcmp(kf_plugin_language(own), x->language);
    if (own_lang && kf_plugin_can_export(own)) p = own;
    for (int i = 0; !p && i < reg->n_plugins; i++)
        if (can_stand_in(&reg->plugins[i], x)) p = &reg->plugins[i];
    const char ***exprs = NULL;
    kf_export_result res = {0};
    char *why = NULL;
    int rc = -1;
    if (!p) {
        char whose[600];
        if (!own) snprintf(whose, sizeof whose, "backend '%s' has no plugin here", x->backend ? x->backend : "?");
        else if (!own_lang)
            snprintf(whose, sizeof whose, "backend '%s''s plugin %s declares '%s'", x->backend, own->path,
                     kf_plugin_language(own));
        else
            snprintf(whose, sizeof whose, "backend '%s''s plugin %s has no export_files%s", x->backend, own->path,
                     kf_plugin_abi_minor(own) < 4 ? " (built for plugin ABI 1.0-1.3; 1.4 added it)" : "");
        kf_fail(err, KF_E_UNAVAILABLE, "%s: no plugin here writes the host code of this %s %s: %s, and no "
                "other plugin declaring '%s' exports (looked in %s); install one, or add its directory to "
                "KFORGE_PLUGIN_PATH", x->run_dir, x->language, what, whose, x->language,
                reg->search_path ? reg->search_path : "?");
        goto out;
    }
    if (!(exprs = arg_exprs_of(x))) {
        kf_fail(err, KF_E_INTERNAL, "out of memory");
        goto out;
    }
    kf_export_request req = {
        .struct_size = sizeof req, .target = target, .ident = x->ident, .preset = x->preset,
        .problem = &x->b.pview, .candidate = &x->b.view, .arg_exprs = (const char *const *const *)exprs,
        .run_backend = x->backend,
    };
    kf_status st = kf_plugin_export(p, &req, &res, &why);
    if (st != KF_OK) {
        kf_fail(err, st == KF_ERR_INVALID ? KF_E_BAD_INPUT : st == KF_ERR_UNAVAILABLE ? KF_E_UNAVAILABLE : KF_E_INTERNAL,
                "%s: backend '%s' (%s): %s", x->run_dir, x->backend ? x->backend : "?", p->path, why ? why : "export_files failed");
        goto out;
    }
    if (!strcmp(target, "torch") && !caller_written(&res)) {
        kf_fail(err, KF_E_INTERNAL, "%s: the plugin %s named no caller module '_NAME' among the files it gave for "
                "--to torch (caller '%s')", x->run_dir, p->path, res.caller ? res.caller : "(none)");
        goto out;
    }
    for (int i = 0; i < res.n_files; i++)
        if (!plain_name(res.files[i].name) || !res.files[i].text) {
            kf_fail(err, KF_E_INTERNAL, "%s: the plugin %s returned a file named '%s'; a plain file name is needed",
                    x->run_dir, p->path, res.files[i].name ? res.files[i].name : "(null)");
            goto out;
        }
    kf_sb names = {0};
    for (int i = 0; i < res.n_files; i++) {
        if (kf_exp_write_in(dir, res.files[i].name, res.files[i].text, err) != 0) {
            kf_sb_free(&names);
            goto out;
        }
        kf_sb_printf(&names, "%s%s", i ? ", " : "", res.files[i].name);
    }
    if (names.oom || !(out->files = names.s ? names.s : strdup("(no files)"))) {
        kf_sb_free(&names);
        kf_fail(err, KF_E_INTERNAL, "out of memory");
        goto out;
    }
    if (!(out->plugin = strdup(p->name))) {
        kf_fail(err, KF_E_INTERNAL, "out of memory");
        goto out;
    }
    out->caller = res.caller;
    out->spec_extra = res.spec_extra;
    res.caller = res.spec_extra = NULL;
    rc = 0;
out:
    if (exprs)
        for (int li = 0; li < x->b.view.n_launches; li++) free(exprs[li]);
    free(exprs);
    free(why);
    result_free(&res);
    kf_registry_close(reg);
    return rc;
}

void kf_exp_from_plugin_free(kf_exp_from_plugin *f)
{
    free(f->files);
    free(f->plugin);
    free(f->caller);
    free(f->spec_extra);
    memset(f, 0, sizeof *f);
}
