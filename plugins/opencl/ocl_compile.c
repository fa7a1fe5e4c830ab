/* ocl_compile.c — the compile hook: candidate -> program + kernels. */
#include "ocl.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

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

/* Checks one launch of the plan against the problem view. */
static kf_status check_launch(const kf_launch *l, int li, const kf_problem_view *pv, char **error)
{
    if (!l->kernel || !*l->kernel)
        return kf_hook_fail(error, KF_ERR_INVALID, "launch[%d]: no kernel name", li);
    if (l->work_dim < 1 || l->work_dim > 3)
        return kf_hook_fail(error, KF_ERR_INVALID,
                            "launch[%d] (kernel %s): work_dim %d, must be 1..3 (global and local "
                            "take 1 to 3 entries)", li, l->kernel, l->work_dim);
    for (int d = 0; d < l->work_dim; d++) {
        if (l->global[d] < 1)
            return kf_hook_fail(error, KF_ERR_INVALID,
                                "launch[%d] (kernel %s): global[%d] = %lld, must be >= 1",
                                li, l->kernel, d, (long long)l->global[d]);
        if (l->local[0] != 0 && l->local[d] < 1)
            return kf_hook_fail(error, KF_ERR_INVALID,
                                "launch[%d] (kernel %s): local[%d] = %lld, must be >= 1 (or leave "
                                "local out to let the runtime choose)",
                                li, l->kernel, d, (long long)l->local[d]);
    }
    for (int i = 0; i < l->n_args; i++) {
        const kf_arg *a = &l->args[i];
        int limit = a->kind == KF_ARG_INPUT ? pv->n_inputs
                  : a->kind == KF_ARG_OUTPUT ? pv->n_outputs
                  : a->kind == KF_ARG_SCRATCH ? pv->n_scratch : -1;
        if (limit >= 0 && (a->index < 0 || a->index >= limit))
            return kf_hook_fail(error, KF_ERR_INVALID,
                                "launch[%d] (kernel %s): arg %d is %s #%d but the problem has %d",
                                li, l->kernel, i, arg_kind_name(a->kind), a->index, limit);
        if (a->kind == KF_ARG_INT && (a->ival < INT_MIN || a->ival > INT_MAX))
            return kf_hook_fail(error, KF_ERR_INVALID,
                                "launch[%d] (kernel %s): arg %d = %lld does not fit a 32-bit int; "
                                "bind it as {\"long\": ...}", li, l->kernel, i, (long long)a->ival);
        if (a->kind == KF_ARG_LOCAL && a->bytes < 1)
            return kf_hook_fail(error, KF_ERR_INVALID,
                                "launch[%d] (kernel %s): arg %d asks for %lld bytes of __local memory",
                                li, l->kernel, i, (long long)a->bytes);
        if (a->kind == KF_ARG_TENSOR_MAP)
            return kf_hook_fail(error, KF_ERR_INVALID, "launch[%d] (kernel %s): arg %d is a tensor map, which "
                                "only the cuda plugin takes (TMA); pass the buffer itself", li, l->kernel, i);
        if ((int)a->kind < KF_ARG_INPUT || a->kind > KF_ARG_LOCAL)
            return kf_hook_fail(error, KF_ERR_INVALID, "launch[%d] (kernel %s): arg %d has kind %d",
                                li, l->kernel, i, (int)a->kind);
    }
    return KF_OK;
}

/* Copies the plan into the artifact and creates one cl_kernel per launch. */
static kf_status make_launches(kf_artifact *a, const kf_candidate_view *c, char **error)
{
    a->launches = calloc((size_t)c->n_launches, sizeof *a->launches);
    if (!a->launches) return kf_hook_fail(error, KF_ERR_NOMEM, "out of memory");
    a->n_launches = c->n_launches;
    for (int i = 0; i < c->n_launches; i++) {
        const kf_launch *src = &c->launches[i];
        kfcl_launch *l = &a->launches[i];
        l->kernel = strdup(src->kernel);
        l->work_dim = src->work_dim;
        l->has_local = src->local[0] != 0;
        for (int d = 0; d < 3; d++) {
            l->global[d] = d < src->work_dim ? (size_t)src->global[d] : 1;
            l->local[d] = d < src->work_dim && l->has_local ? (size_t)src->local[d] : 1;
        }
        l->n_args = src->n_args;
        l->args = src->n_args ? malloc((size_t)src->n_args * sizeof *l->args) : NULL;
        if (!l->kernel || (src->n_args && !l->args))
            return kf_hook_fail(error, KF_ERR_NOMEM, "out of memory");
        if (src->n_args) memcpy(l->args, src->args, (size_t)src->n_args * sizeof *l->args);

        cl_int e = CL_SUCCESS;
        l->k = clCreateKernel(a->program, l->kernel, &e);
        if (!l->k) {
            char names[1024] = "";
            clGetProgramInfo(a->program, CL_PROGRAM_KERNEL_NAMES, sizeof names, names, NULL);
            names[sizeof names - 1] = 0;
            for (char *p = names; *p; p++) if (*p == ';') *p = ',';
            if (e == CL_INVALID_KERNEL_NAME)
                return kf_hook_fail(error, KF_ERR_INVALID,
                                    "launch[%d]: the program defines no __kernel named '%s' "
                                    "(kernels it defines: %s); fix the plan's \"kernel\" or the source",
                                    i, l->kernel, *names ? names : "none");
            return kf_hook_fail(error, KF_ERR_COMPILE, "launch[%d]: clCreateKernel('%s') failed: %s",
                                i, l->kernel, kfcl_err_name(e));
        }
        cl_uint nargs = 0;
        if (clGetKernelInfo(l->k, CL_KERNEL_NUM_ARGS, sizeof nargs, &nargs, NULL) == CL_SUCCESS &&
            (int)nargs != l->n_args)
            return kf_hook_fail(error, KF_ERR_INVALID,
                                "launch[%d]: kernel '%s' takes %u arguments but the plan binds %d; "
                                "the plan's \"args\" must list every kernel parameter in order",
                                i, l->kernel, nargs, l->n_args);
    }
    return KF_OK;
}

/* Joins the cache note and the build log (warnings) into diagnostics. */
static char *join_diag(const char *note, const char *log)
{
    if (log && *log)
        return kf_strf("%s\nbuild log:\n%s\n", note ? note : "", log);
    return kf_strf("%s\n", note ? note : "");
}

kf_status kfcl_compile(const kf_compile_request *req, kf_artifact **out, char **diagnostics)
{
    *out = NULL;
    if (!req || !req->candidate || !req->problem)
        return kf_hook_fail(diagnostics, KF_ERR_INVALID, "compile: missing candidate or problem");
    const kf_candidate_view *c = req->candidate;
    const kf_problem_view *pv = req->problem;
    if (c->backend && strcmp(c->backend, "opencl") != 0)
        return kf_hook_fail(diagnostics, KF_ERR_INVALID,
                            "candidate is for backend '%s', not 'opencl'", c->backend);
    if (c->n_sources < 1)
        return kf_hook_fail(diagnostics, KF_ERR_INVALID, "candidate has no OpenCL C source");
    for (int i = 0; i < c->n_sources; i++)
        if (!c->sources[i].text)
            return kf_hook_fail(diagnostics, KF_ERR_INVALID, "source %d has no text", i);
    if (c->n_launches < 1 || !c->launches)
        return kf_hook_fail(diagnostics, KF_ERR_INVALID,
                            "candidate has no launch plan: list at least one launch in \"launches\"");
    for (int i = 0; i < c->n_launches; i++) {
        kf_status st = check_launch(&c->launches[i], i, pv, diagnostics);
        if (st != KF_OK) return st;
    }

    kfcl_device *devs;
    int n;
    char why[512] = "";
    kf_status st = kfcl_devices(&devs, &n, why, sizeof why);
    if (st != KF_OK) return kf_hook_fail(diagnostics, st, "%s", why);
    if (req->device < 0 || req->device >= n)
        return kf_hook_fail(diagnostics, KF_ERR_INVALID,
                            "device %d does not exist: this machine has %d OpenCL device(s) "
                            "(0..%d, see `kforge backends`)", req->device, n, n - 1);
    kfcl_device *d = &devs[req->device];
    st = kfcl_device_open(d, diagnostics);
    if (st != KF_OK) return st;

    kf_artifact *a = calloc(1, sizeof *a);
    if (!a) return kf_hook_fail(diagnostics, KF_ERR_NOMEM, "out of memory");
    a->dev = d;
    a->device_index = req->device;
    a->n_inputs = pv->n_inputs;
    a->n_outputs = pv->n_outputs;
    a->n_scratch = pv->n_scratch;

    char *log = NULL, *note = NULL, *err = NULL;
    st = kfcl_program_get(d, c, &a->program, &log, &a->cache_src, &note, &err);
    if (st == KF_ERR_COMPILE) {
        free(*diagnostics);
        *diagnostics = kf_strf("%s\n%s\n", err ? err : "build failed",
                               log && *log ? log : "(the compiler left no build log)");
    } else if (st != KF_OK) {
        free(*diagnostics);
        *diagnostics = err;
        err = NULL;
    } else {
        st = make_launches(a, c, &err);
        free(*diagnostics);
        if (st == KF_OK) {
            *diagnostics = join_diag(note, log);
        } else {
            *diagnostics = err;
            err = NULL;
        }
    }
    free(err);
    free(log);
    free(note);
    if (st != KF_OK) {
        kfcl_release(a);
        return st;
    }
    *out = a;
    return KF_OK;
}

void kfcl_release(kf_artifact *a)
{
    if (!a) return;
    for (int i = 0; i < a->n_launches; i++) {
        if (a->launches[i].k) clReleaseKernel(a->launches[i].k);
        free(a->launches[i].kernel);
        free(a->launches[i].args);
    }
    free(a->launches);
    if (a->program) clReleaseProgram(a->program);
    free(a);
}
