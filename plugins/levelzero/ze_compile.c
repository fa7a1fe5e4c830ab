/*
 * ze_compile.c — the compile hooks.  compile: candidate -> validated SPIR-V
 * -> zeModuleCreate -> one ze_kernel_handle_t per launch of the plan, with
 * its group size (the plan's, or the driver's suggestion when the plan
 * leaves it open).  compile_offline: the same SPIR-V with no device, its
 * kernels checked against the plan.
 */
#include "kfze.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_ENTRIES 64

static const char *arg_kind_name(kf_arg_kind k)
{
    switch (k) {
    case KF_ARG_INPUT: return "input";
    case KF_ARG_OUTPUT: return "output";
    case KF_ARG_SCRATCH: return "scratch";
    case KF_ARG_INT: return "int";
    case KF_ARG_LONG: return "long";
    case KF_ARG_FLOAT: return "float";
    case KF_ARG_LOCAL: return "local";
    case KF_ARG_TENSOR_MAP: return "tensor map";
    }
    return "?";
}

/* The plan against the problem: names, sizes and argument bindings. */
static kf_status check_plan(const kf_candidate_view *c, const kf_problem_view *pv, char **error)
{
    if (c->n_launches < 1 || !c->launches)
        return kf_hook_fail(error, KF_ERR_INVALID,
                            "candidate has no launch plan: list at least one launch in \"launches\"");
    for (int li = 0; li < c->n_launches; li++) {
        const kf_launch *l = KF_AT(kf_launch, c->launches, c->launch_size, li);
        if (!l->kernel || !*l->kernel) return kf_hook_fail(error, KF_ERR_INVALID, "launch[%d]: no kernel name", li);
        if (l->work_dim < 1 || l->work_dim > 3)
            return kf_hook_fail(error, KF_ERR_INVALID, "launch[%d] (kernel %s): work_dim %d, must be 1..3", li,
                                l->kernel, l->work_dim);
        for (int d = 0; d < l->work_dim; d++) {
            if (l->global[d] < 1 || l->global[d] > UINT32_MAX)
                return kf_hook_fail(error, KF_ERR_INVALID, "launch[%d] (kernel %s): global[%d] = %lld, must be "
                                    "1..%u", li, l->kernel, d, (long long)l->global[d], UINT32_MAX);
            if (l->local[0] != 0 && (l->local[d] < 1 || l->local[d] > UINT32_MAX))
                return kf_hook_fail(error, KF_ERR_INVALID, "launch[%d] (kernel %s): local[%d] = %lld, must be >= 1 "
                                    "(or leave local out to let the driver choose)", li, l->kernel, d,
                                    (long long)l->local[d]);
        }
        for (int i = 0; i < l->n_args; i++) {
            const kf_arg *a = &l->args[i];
            int limit = a->kind == KF_ARG_INPUT ? pv->n_inputs : a->kind == KF_ARG_OUTPUT ? pv->n_outputs
                      : a->kind == KF_ARG_SCRATCH ? pv->n_scratch : -1;
            if (a->kind == KF_ARG_TENSOR_MAP)
                return kf_hook_fail(error, KF_ERR_INVALID, "launch[%d] (kernel %s): arg %d is a tensor map, which "
                                    "only the cuda plugin takes (TMA); pass the buffer itself", li, l->kernel, i);
            if ((int)a->kind < KF_ARG_INPUT || a->kind > KF_ARG_LOCAL)
                return kf_hook_fail(error, KF_ERR_INVALID, "launch[%d] (kernel %s): arg %d has kind %d", li,
                                    l->kernel, i, (int)a->kind);
            if (limit >= 0 && (a->index < 0 || a->index >= limit))
                return kf_hook_fail(error, KF_ERR_INVALID, "launch[%d] (kernel %s): arg %d is %s #%d but the "
                                    "problem has %d", li, l->kernel, i, arg_kind_name(a->kind), a->index, limit);
            if (a->kind == KF_ARG_INT && (a->ival < INT_MIN || a->ival > INT_MAX))
                return kf_hook_fail(error, KF_ERR_INVALID, "launch[%d] (kernel %s): arg %d = %lld does not fit a "
                                    "32-bit int; bind it as {\"long\": ...}", li, l->kernel, i, (long long)a->ival);
            if (a->kind == KF_ARG_LOCAL && (a->bytes < 1 || a->bytes > UINT32_MAX))
                return kf_hook_fail(error, KF_ERR_INVALID, "launch[%d] (kernel %s): arg %d asks for %lld bytes of "
                                    "__local memory", li, l->kernel, i, (long long)a->bytes);
        }
    }
    return KF_OK;
}

/* The candidate's SPIR-V: its binary source (validated), or its OpenCL C
 * compiled and validated. */
static kf_status get_spirv(const kf_compile_request *req, unsigned char **spv, size_t *n, char **log)
{
    const kf_candidate_view *c = req->candidate;
    if (c->n_sources < 1) return kf_hook_fail(log, KF_ERR_INVALID, "candidate has no source");
    const kf_source *s0 = KF_AT(kf_source, c->sources, c->source_size, 0);
    if (s0->format == KF_SRC_SPIRV) {
        if (c->n_sources != 1)
            return kf_hook_fail(log, KF_ERR_INVALID, "a SPIR-V candidate is one module: %d sources given", c->n_sources);
        if (!s0->text || !s0->size) return kf_hook_fail(log, KF_ERR_INVALID, "the SPIR-V source is empty");
        kf_status st = kfze_spirv_validate((const unsigned char *)s0->text, s0->size, req->work_dir, log);
        if (st != KF_OK) return st;
        if (!(*spv = malloc(s0->size))) return KF_ERR_NOMEM;
        memcpy(*spv, s0->text, s0->size);
        *n = s0->size;
        return KF_OK;
    }
    for (int i = 0; i < c->n_sources; i++) {
        const kf_source *s = KF_AT(kf_source, c->sources, c->source_size, i);
        if (s->format != KF_SRC_TEXT || !s->text)
            return kf_hook_fail(log, KF_ERR_INVALID, "source %d (%s) is neither OpenCL C text nor the only source "
                                "(a SPIR-V module)", i, s->name ? s->name : "?");
    }
    return kfze_spirv_from_opencl(c, req->work_dir, spv, n, log);
}

/* Every launch's kernel is an entry point of the module and takes as many
 * parameters as the plan binds. */
static kf_status check_entries(const kf_candidate_view *c, const unsigned char *spv, size_t n, char **error)
{
    kfze_entry e[MAX_ENTRIES];
    int ne = kfze_spirv_entries(spv, n, e, MAX_ENTRIES);
    if (ne < 0) return kf_hook_fail(error, KF_ERR_COMPILE, "the SPIR-V module cannot be parsed for its entry points");
    for (int li = 0; li < c->n_launches; li++) {
        const kf_launch *l = KF_AT(kf_launch, c->launches, c->launch_size, li);
        int k = 0;
        while (k < ne && strcmp(e[k].name, l->kernel)) k++;
        if (k == ne) {
            char names[1024] = "";
            for (int j = 0; j < ne; j++) {
                size_t used = strlen(names);
                if (used + strlen(e[j].name) + 3 >= sizeof names) break;
                snprintf(names + used, sizeof names - used, "%s%.120s", j ? ", " : "", e[j].name);
            }
            return kf_hook_fail(error, KF_ERR_INVALID, "launch[%d]: the program defines no __kernel named '%s' "
                                "(kernels it defines: %s); fix the plan's \"kernel\" or the source", li, l->kernel,
                                ne ? names : "none");
        }
        if (e[k].n_params != l->n_args)
            return kf_hook_fail(error, KF_ERR_INVALID, "launch[%d]: kernel '%s' takes %d arguments but the plan "
                                "binds %d; the plan's \"args\" must list every kernel parameter in order", li,
                                l->kernel, e[k].n_params, l->n_args);
    }
    return KF_OK;
}

kf_status kfze_compile_offline(const kf_compile_request *req, const char *target, void **binary,
                               size_t *binary_size, char **report, char **diagnostics)
{
    *binary = NULL;
    *binary_size = 0;
    if (target && strcmp(target, "spirv64") != 0)
        return kf_hook_fail(diagnostics, KF_ERR_INVALID, "target '%s' is not one this backend compiles for: it "
                            "makes SPIR-V for the spir64 target (--target spirv64)", target);
    if (!req || !req->candidate || !req->problem)
        return kf_hook_fail(diagnostics, KF_ERR_INVALID, "compile_offline: missing candidate or problem");
    kf_status st = check_plan(req->candidate, req->problem, diagnostics);
    if (st != KF_OK) return st;
    unsigned char *spv = NULL;
    size_t n = 0;
    char *log = NULL;
    st = get_spirv(req, &spv, &n, &log);
    if (st != KF_OK) {
        free(*diagnostics);
        *diagnostics = log && *log ? log : kf_strf("the SPIR-V tools failed without a message");
        if (log && !*log) free(log);
        return st;
    }
    free(log);
    st = check_entries(req->candidate, spv, n, diagnostics);
    if (st != KF_OK) {
        free(spv);
        return st;
    }
    uint32_t ver = n >= 8 ? (uint32_t)spv[4] | (uint32_t)spv[5] << 8 | (uint32_t)spv[6] << 16 : 0;
    *report = kf_strf("SPIR-V %u.%u module for spir64, validated by spirv-val (--target-env opencl1.2); "
                      "the %d kernel(s) of the launch plan are entry points with the plan's argument "
                      "counts; tools: %s", ver >> 16 & 0xff, ver >> 8 & 0xff, req->candidate->n_launches,
                      kfze_tools_text());
    *binary = spv;
    *binary_size = n;
    return KF_OK;
}

void kfze_release(kf_artifact *a)
{
    if (!a) return;
    for (int i = 0; i < a->n_launches; i++) {
        if (a->launches[i].k) zeKernelDestroy(a->launches[i].k);
        free(a->launches[i].kernel);
        free(a->launches[i].args);
    }
    free(a->launches);
    if (a->module) zeModuleDestroy(a->module);
    free(a);
}

static kf_status make_launch(kf_artifact *a, int li, const kf_launch *src, char **error)
{
    kfze_launch *l = &a->launches[li];
    const ze_device_compute_properties_t *cp = &a->dev->compute;
    if (!(l->kernel = strdup(src->kernel))) return KF_ERR_NOMEM;
    l->work_dim = src->work_dim;
    l->n_args = src->n_args;
    if (src->n_args && !(l->args = malloc((size_t)src->n_args * sizeof *l->args))) return KF_ERR_NOMEM;
    if (src->n_args) memcpy(l->args, src->args, (size_t)src->n_args * sizeof *l->args);
    ze_kernel_desc_t kd = {ZE_STRUCTURE_TYPE_KERNEL_DESC, NULL, 0, l->kernel};
    ze_result_t r = zeKernelCreate(a->module, &kd, &l->k);
    if (r != ZE_RESULT_SUCCESS)
        return kf_hook_fail(error, r == ZE_RESULT_ERROR_INVALID_KERNEL_NAME ? KF_ERR_INVALID : KF_ERR_COMPILE,
                            "launch[%d]: zeKernelCreate('%s') failed: %s", li, l->kernel, kfze_err_name(r));
    for (int d = 0; d < 3; d++) {
        l->global[d] = d < src->work_dim ? (uint32_t)src->global[d] : 1;
        l->group[d] = d < src->work_dim && src->local[0] ? (uint32_t)src->local[d] : 1;
    }
    if (!src->local[0]) {
        uint32_t x = 0, y = 0, z = 0;
        r = zeKernelSuggestGroupSize(l->k, l->global[0], l->global[1], l->global[2], &x, &y, &z);
        if (r != ZE_RESULT_SUCCESS)
            return kf_hook_fail(error, KF_ERR_LAUNCH, "launch[%d] (kernel %s): zeKernelSuggestGroupSize failed: %s; "
                                "give \"local\" in the plan", li, l->kernel, kfze_err_name(r));
        /* a driver that suggests nothing (0) gets groups of one item */
        l->group[0] = x ? x : 1;
        l->group[1] = y ? y : 1;
        l->group[2] = z ? z : 1;
        l->group_suggested = 1;
    }
    uint64_t wg = 1;
    for (int d = 0; d < 3; d++) {
        wg *= l->group[d];
        if (l->global[d] % l->group[d] != 0)
            return kf_hook_fail(error, KF_ERR_LAUNCH, "launch[%d] (kernel %s): global[%d] = %u is not a multiple of "
                                "the group size %u%s; OpenCL 1.2 needs uniform work-groups: use round_up(n, %u) in "
                                "the plan and guard the kernel with if (i < n)", li, l->kernel, d, l->global[d],
                                l->group[d], l->group_suggested ? " the driver suggested" : "", l->group[d]);
    }
    if (cp->maxTotalGroupSize && wg > cp->maxTotalGroupSize)
        return kf_hook_fail(error, KF_ERR_LAUNCH, "launch[%d] (kernel %s): a group of %llu work-items exceeds the "
                            "device's maximum of %u (maxTotalGroupSize of '%s'); use a smaller local size", li,
                            l->kernel, (unsigned long long)wg, cp->maxTotalGroupSize, a->dev->name);
    r = zeKernelSetGroupSize(l->k, l->group[0], l->group[1], l->group[2]);
    if (r != ZE_RESULT_SUCCESS)
        return kf_hook_fail(error, KF_ERR_LAUNCH, "launch[%d] (kernel %s): zeKernelSetGroupSize(%u, %u, %u) failed: "
                            "%s", li, l->kernel, l->group[0], l->group[1], l->group[2], kfze_err_name(r));
    return KF_OK;
}

/* zeModuleCreate from the SPIR-V; on a build failure *log gets the
 * driver's build log verbatim. */
static kf_status create_module(kf_artifact *a, const unsigned char *spv, size_t n, char **log)
{
    ze_module_desc_t md = {ZE_STRUCTURE_TYPE_MODULE_DESC, NULL, ZE_MODULE_FORMAT_IL_SPIRV, n, spv, "", NULL};
    ze_module_build_log_handle_t blog = NULL;
    ze_result_t r = zeModuleCreate(a->dev->ctx, a->dev->id, &md, &a->module, &blog);
    char *text = NULL;
    size_t len = 0;
    if (blog && zeModuleBuildLogGetString(blog, &len, NULL) == ZE_RESULT_SUCCESS && len > 1 &&
        (text = calloc(1, len + 1)))
        zeModuleBuildLogGetString(blog, &len, text);
    if (blog) zeModuleBuildLogDestroy(blog);
    if (r != ZE_RESULT_SUCCESS) {
        a->module = NULL;
        free(*log);
        *log = kf_strf("zeModuleCreate(SPIR-V, %zu bytes) on '%s' failed: %s\n%s", n, a->dev->name,
                       kfze_err_name(r), text && *text ? text : "(the driver left no build log)");
        free(text);
        return r == ZE_RESULT_ERROR_MODULE_BUILD_FAILURE || r == ZE_RESULT_ERROR_INVALID_NATIVE_BINARY
                   ? KF_ERR_COMPILE : KF_ERR_RUNTIME;
    }
    if (text && *text) {
        char *m = kf_strf("%s%sbuild log:\n%s\n", *log ? *log : "", *log && **log ? "\n" : "", text);
        if (m) { free(*log); *log = m; }
    }
    free(text);
    return KF_OK;
}

kf_status kfze_compile(const kf_compile_request *req, kf_artifact **out, char **diagnostics)
{
    *out = NULL;
    if (!req || !req->candidate || !req->problem)
        return kf_hook_fail(diagnostics, KF_ERR_INVALID, "compile: missing candidate or problem");
    const kf_candidate_view *c = req->candidate;
    if (c->backend && *c->backend && strcmp(c->backend, "levelzero") != 0)
        return kf_hook_fail(diagnostics, KF_ERR_INVALID, "candidate is for backend '%s', not 'levelzero'", c->backend);
    kf_status st = check_plan(c, req->problem, diagnostics);
    if (st != KF_OK) return st;
    kfze_device *devs;
    int nd;
    char why[512] = "";
    if ((st = kfze_devices(&devs, &nd, why, sizeof why)) != KF_OK) return kf_hook_fail(diagnostics, st, "%s", why);
    if (req->device < 0 || req->device >= nd)
        return kf_hook_fail(diagnostics, KF_ERR_INVALID, "device %d does not exist: this machine has %d Level Zero "
                            "device(s) (see `kforge backends`)", req->device, nd);
    kfze_device *d = &devs[req->device];
    if ((st = kfze_device_open(d, diagnostics)) != KF_OK) return st;

    unsigned char *spv = NULL;
    size_t n = 0;
    char *log = NULL;
    st = get_spirv(req, &spv, &n, &log);
    if (st == KF_OK) st = check_entries(c, spv, n, &log);
    kf_artifact *a = NULL;
    if (st == KF_OK && !(a = calloc(1, sizeof *a))) st = KF_ERR_NOMEM;
    if (st == KF_OK) {
        a->dev = d;
        a->device_index = req->device;
        a->spirv_bytes = n;
        a->n_inputs = req->problem->n_inputs;
        a->n_outputs = req->problem->n_outputs;
        a->n_scratch = req->problem->n_scratch;
        st = create_module(a, spv, n, &log);
    }
    free(spv);
    if (st == KF_OK && !(a->launches = calloc((size_t)c->n_launches, sizeof *a->launches))) st = KF_ERR_NOMEM;
    if (st == KF_OK) a->n_launches = c->n_launches;
    for (int i = 0; st == KF_OK && i < c->n_launches; i++)
        st = make_launch(a, i, KF_AT(kf_launch, c->launches, c->launch_size, i), &log);
    free(*diagnostics);
    *diagnostics = st == KF_OK ? kf_strf("SPIR-V module of %zu bytes (%s)\n%s", n, kfze_tools_text(),
                                         log ? log : "")
                               : (log && *log ? log : kf_strf("compile failed (%d) without a message", (int)st));
    if (st == KF_OK || (log && !*log)) free(log);
    if (st != KF_OK) {
        kfze_release(a);
        return st;
    }
    *out = a;
    return KF_OK;
}
