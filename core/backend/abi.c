/* abi.c — calling a plugin's hooks in the layouts of the ABI minor it was
 * built for (registry.h: kf_plugin_compile and friends).  A 1.1 plugin gets
 * the core's structs as they are; a 1.0 plugin gets copies in the 1.0
 * layouts (abi_1_0.h), which point at the same memory, so what it writes
 * into buffers lands where the core looks. */
#include <config.h>
#include "registry.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "abi_1_0.h"

int kf_plugin_abi_minor(const kf_plugin *p)
{
    return p && p->be ? (int)p->be->abi_minor : 0;
}

static kf_status oom(char **msg)
{
    if (msg) {
        free(*msg);
        *msg = strdup("out of memory converting the call to the plugin's ABI 1.0 layout");
    }
    return KF_ERR_NOMEM;
}

/* A plan with tensor maps (ABI 1.5) for a plugin built for 1.0-1.4, which
 * would not know the argument kind: KF_ERR_INVALID with the reason. */
static kf_status tmaps_unsupported(const kf_plugin *p, const kf_compile_request *req, char **diagnostics)
{
    if (!req || !req->candidate || req->candidate->n_tensor_maps <= 0 || kf_plugin_abi_minor(p) >= 5) return KF_OK;
    if (diagnostics) {
        free(*diagnostics);
        *diagnostics = strdup("the plan passes tensor maps, which this backend's plugin (built for ABI 1.0-1.4) "
                              "does not take: rebuild it against kforge-plugin.h 1.5, or pass buffers instead");
    }
    return KF_ERR_INVALID;
}

kf_status kf_plugin_compile_offline(const kf_plugin *p, const kf_compile_request *req, const char *target,
                                    void **binary, size_t *binary_size, char **report, char **diagnostics)
{
    *binary = NULL;
    *binary_size = 0;
    kf_status tst = tmaps_unsupported(p, req, diagnostics);
    if (tst != KF_OK) return tst;
    if (!p || !p->be || p->be->abi_minor < 2 || !p->be->compile_offline) {
        if (diagnostics) {
            free(*diagnostics);
            *diagnostics = strdup(p && p->be && p->be->abi_minor < 2
                                      ? "this backend cannot compile without a device: it was built for plugin "
                                        "ABI 1.0/1.1, compile-only needs a 1.2 plugin with compile_offline"
                                      : "this backend cannot compile without a device (it offers no compile_offline)");
        }
        return KF_ERR_INVALID;
    }
    return p->be->compile_offline(req, target, binary, binary_size, report, diagnostics);
}

kf_status kf_plugin_compile(const kf_plugin *p, const kf_compile_request *req, kf_artifact **out,
                            char **diagnostics)
{
    kf_status tst = tmaps_unsupported(p, req, diagnostics);
    if (tst != KF_OK) return tst;
    if (kf_plugin_abi_minor(p) >= 1) return p->be->compile(req, out, diagnostics);
    const kf_candidate_view *cv = req->candidate;
    kf_source_1_0 *src = calloc((size_t)cv->n_sources + 1, sizeof *src);
    kf_launch_1_0 *lau = calloc((size_t)cv->n_launches + 1, sizeof *lau);
    if (!src || !lau) {
        free(src);
        free(lau);
        return oom(diagnostics);
    }
    for (int i = 0; i < cv->n_sources; i++) {
        if (cv->sources[i].format != KF_SRC_TEXT) {
            free(src);
            free(lau);
            if (diagnostics) {
                free(*diagnostics);
                *diagnostics = strdup("the plugin (ABI 1.0) takes program text only; this source is binary or PTX");
            }
            return KF_ERR_INVALID;
        }
        src[i] = (kf_source_1_0){cv->sources[i].name, cv->sources[i].text};
    }
    for (int i = 0; i < cv->n_launches; i++) {
        const kf_launch *l = &cv->launches[i];
        lau[i] = (kf_launch_1_0){l->kernel, l->work_dim, {l->global[0], l->global[1], l->global[2]},
                                 {l->local[0], l->local[1], l->local[2]}, l->n_args, l->args};
    }
    kf_candidate_view v = *cv;
    v.sources = (const kf_source *)(const void *)src;
    v.launches = (const kf_launch *)(const void *)lau;
    kf_compile_request r = *req;
    r.candidate = &v;
    kf_status st = p->be->compile(&r, out, diagnostics);
    free(src);
    free(lau);
    return st;
}

/* 1.0 copies of one set's buffers (n_in, n_out, n_scr counts). */
static int set_1_0(const kf_buffer_set *in, int n_in, int n_out, int n_scr, kf_buffer_set *out, kf_buffer_1_0 *b)
{
    const kf_buffer *src[3] = {in->inputs, in->outputs, in->scratch};
    int cnt[3] = {n_in, n_out, n_scr};
    kf_buffer_1_0 *dst[3] = {b, b + n_in, b + n_in + n_out};
    for (int g = 0; g < 3; g++)
        for (int i = 0; i < cnt[g]; i++) {
            if (src[g][i].dtype != KF_DT_F32) return -1;
            dst[g][i] = (kf_buffer_1_0){src[g][i].base, src[g][i].data, src[g][i].bytes, src[g][i].guard_bytes};
        }
    out->inputs = (kf_buffer *)(void *)dst[0];
    out->outputs = (kf_buffer *)(void *)dst[1];
    out->scratch = (kf_buffer *)(void *)dst[2];
    return 0;
}

kf_status kf_plugin_verify(const kf_plugin *p, const kf_problem_view *pv, kf_artifact *art, kf_buffer_set *set,
                           char **error)
{
    if (kf_plugin_abi_minor(p) >= 1) return p->be->verify(art, set, error);
    int n = pv->n_inputs + pv->n_outputs + pv->n_scratch;
    kf_buffer_1_0 *b = calloc((size_t)n + 1, sizeof *b);
    if (!b) return oom(error);
    kf_buffer_set s;
    if (set_1_0(set, pv->n_inputs, pv->n_outputs, pv->n_scratch, &s, b) != 0) {
        free(b);
        if (error) { free(*error); *error = strdup("the plugin (ABI 1.0) runs float32 buffers only"); }
        return KF_ERR_INVALID;
    }
    kf_status st = p->be->verify(art, &s, error);
    free(b);
    return st;
}

kf_status kf_plugin_profile(const kf_plugin *p, const kf_problem_view *pv, kf_artifact *art,
                            const kf_profile_request *req, kf_profile_result *res, char **error)
{
    if (kf_plugin_abi_minor(p) >= 1) return p->be->profile(art, req, res, error);
    int n = pv->n_inputs + pv->n_outputs + pv->n_scratch;
    kf_buffer_1_0 *b = calloc((size_t)n * (size_t)req->n_sets + 1, sizeof *b);
    kf_buffer_set *sets = calloc((size_t)req->n_sets + 1, sizeof *sets);
    if (!b || !sets) {
        free(b);
        free(sets);
        return oom(error);
    }
    for (int i = 0; i < req->n_sets; i++)
        if (set_1_0(&req->sets[i], pv->n_inputs, pv->n_outputs, pv->n_scratch, &sets[i], b + (size_t)i * n) != 0) {
            free(b);
            free(sets);
            if (error) { free(*error); *error = strdup("the plugin (ABI 1.0) runs float32 buffers only"); }
            return KF_ERR_INVALID;
        }
    kf_profile_request r = *req;
    r.sets = sets;
    kf_status st = p->be->profile(art, &r, res, error);
    free(b);
    free(sets);
    return st;
}

kf_status kf_plugin_call_probe(const kf_plugin *p, kf_device_info *devs, int max, int *n, char *why,
                               size_t why_len)
{
    memset(devs, 0, (size_t)max * sizeof *devs);
    kf_status st;
    if (kf_plugin_abi_minor(p) >= 1) {
        st = p->be->probe(devs, max, n, why, why_len);
    } else {
        kf_device_info_1_0 *d = calloc((size_t)max, sizeof *d);
        if (!d) return KF_ERR_NOMEM;
        st = p->be->probe((kf_device_info *)(void *)d, max, n, why, why_len);
        for (int i = 0; st == KF_OK && i < *n && i < max; i++) {
            kf_device_info *o = &devs[i];
            memcpy(o->name, d[i].name, sizeof o->name);
            memcpy(o->kind, d[i].kind, sizeof o->kind);
            o->peak_flops = d[i].peak_flops;
            o->peak_bytes_per_s = d[i].peak_bytes_per_s;
            o->peak_flops_measured = d[i].peak_flops_measured;
            o->peak_bw_measured = d[i].peak_bw_measured;
            o->cache_bytes_per_s = d[i].cache_bytes_per_s;
            memcpy(o->detail, d[i].detail, sizeof o->detail);
        }
        free(d);
    }
    for (int i = 0; i < max; i++) devs[i].struct_size = (uint32_t)sizeof *devs;
    return st;
}

int kf_plugin_can_export(const kf_plugin *p)
{
    return p && p->be && p->be->abi_minor >= 4 &&
           p->be->struct_size >= offsetof(kf_backend, export_files) + sizeof p->be->export_files &&
           p->be->export_files != NULL;
}

kf_status kf_plugin_export(const kf_plugin *p, const kf_export_request *req, kf_export_result *res, char **error)
{
    memset(res, 0, sizeof *res);
    if (!kf_plugin_can_export(p)) {
        if (error) {
            free(*error);
            *error = strdup(p && p->be && p->be->abi_minor < 4
                                ? "its plugin was built for plugin ABI 1.0-1.3; exporting needs a 1.4 plugin with "
                                  "export_files"
                                : "its plugin offers no export_files");
        }
        return KF_ERR_INVALID;
    }
    return p->be->export_files(req, res, error);
}
