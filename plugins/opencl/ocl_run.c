/*
 * ocl_run.c — device copies of the core's guarded buffers, running a launch
 * plan on them, and the verify hook.
 *
 * Each kf_buffer becomes one device buffer holding the WHOLE guarded region
 * (guards, canaries and poisoned data uploaded as they are) and a sub-buffer
 * over its data part, which is what kernels get.  An out-of-bounds write
 * therefore lands in the guard on the device and comes back to the host
 * with the rest of the region, where the core sees it.
 */
#include "ocl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *role_name(const kf_artifact *a, int i, int *idx)
{
    if (i < a->n_inputs) { *idx = i; return "input"; }
    i -= a->n_inputs;
    if (i < a->n_outputs) { *idx = i; return "output"; }
    *idx = i - a->n_outputs;
    return "scratch";
}

void kfcl_set_free(kfcl_set *s)
{
    if (!s) return;
    for (int i = 0; i < s->n && s->mem; i++) {
        if (s->mem[i].sub) clReleaseMemObject(s->mem[i].sub);
        if (s->mem[i].base) clReleaseMemObject(s->mem[i].base);
    }
    free(s->mem);
    free(s->host);
    memset(s, 0, sizeof *s);
}

static kf_status make_mem(kf_artifact *a, kf_buffer *b, int i, kfcl_mem *m, char **error)
{
    kfcl_device *d = a->dev;
    int idx;
    const char *role = role_name(a, i, &idx);
    if (!b->base || b->bytes == 0)
        return kf_hook_fail(error, KF_ERR_INVALID, "%s buffer %d is empty (no data bytes)", role, idx);
    if (b->guard_bytes % d->align_bytes != 0)
        return kf_hook_fail(error, KF_ERR_INTERNAL,
                            "%s buffer %d: guard of %zu bytes is not a multiple of the device's "
                            "base address alignment (%u bytes, CL_DEVICE_MEM_BASE_ADDR_ALIGN), so its "
                            "data part cannot be a sub-buffer; raise the core's guard size",
                            role, idx, b->guard_bytes, d->align_bytes);
    size_t total = b->bytes + 2 * b->guard_bytes;
    cl_int e = CL_SUCCESS;
    m->base = clCreateBuffer(d->ctx, CL_MEM_READ_WRITE, total, NULL, &e);
    if (!m->base)
        return kf_hook_fail(error, e == CL_INVALID_BUFFER_SIZE || e == CL_MEM_OBJECT_ALLOCATION_FAILURE
                                    ? KF_ERR_NOMEM : KF_ERR_RUNTIME,
                            "clCreateBuffer(%zu bytes) for %s buffer %d failed: %s", total, role, idx,
                            kfcl_err_name(e));
    cl_buffer_region r = {b->guard_bytes, b->bytes};
    m->sub = clCreateSubBuffer(m->base, CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &r, &e);
    if (!m->sub)
        return kf_hook_fail(error, e == CL_MISALIGNED_SUB_BUFFER_OFFSET ? KF_ERR_INTERNAL : KF_ERR_RUNTIME,
                            "clCreateSubBuffer(origin %zu, %zu bytes) for %s buffer %d failed: %s",
                            b->guard_bytes, b->bytes, role, idx, kfcl_err_name(e));
    e = clEnqueueWriteBuffer(d->queue, m->base, CL_FALSE, 0, total, b->base, 0, NULL, NULL);
    if (e != CL_SUCCESS)
        return kf_hook_fail(error, KF_ERR_RUNTIME, "uploading %s buffer %d (%zu bytes) failed: %s",
                            role, idx, total, kfcl_err_name(e));
    return KF_OK;
}

kf_status kfcl_set_create(kf_artifact *a, kf_buffer_set *set, kfcl_set *out, char **error)
{
    memset(out, 0, sizeof *out);
    if (!set || (a->n_inputs && !set->inputs) || (a->n_outputs && !set->outputs) ||
        (a->n_scratch && !set->scratch))
        return kf_hook_fail(error, KF_ERR_INVALID,
                            "buffer set lacks inputs, outputs or scratch buffers the problem declares");
    out->n = a->n_inputs + a->n_outputs + a->n_scratch;
    out->mem = calloc((size_t)out->n + 1, sizeof *out->mem);
    out->host = calloc((size_t)out->n + 1, sizeof *out->host);
    if (!out->mem || !out->host) {
        kfcl_set_free(out);
        return kf_hook_fail(error, KF_ERR_NOMEM, "out of memory");
    }
    for (int i = 0; i < out->n; i++) {
        int idx;
        const char *role = role_name(a, i, &idx);
        out->host[i] = role[0] == 'i' ? &set->inputs[idx]
                     : role[0] == 'o' ? &set->outputs[idx] : &set->scratch[idx];
        kf_status st = make_mem(a, out->host[i], i, &out->mem[i], error);
        if (st != KF_OK) {
            kfcl_set_free(out);
            return st;
        }
    }
    return KF_OK;
}

kf_status kfcl_set_read_back(kf_artifact *a, kfcl_set *s, char **error)
{
    for (int i = 0; i < s->n; i++) {
        kf_buffer *b = s->host[i];
        size_t total = b->bytes + 2 * b->guard_bytes;
        cl_int e = clEnqueueReadBuffer(a->dev->queue, s->mem[i].base, CL_TRUE, 0, total, b->base,
                                       0, NULL, NULL);
        if (e != CL_SUCCESS) {
            int idx;
            const char *role = role_name(a, i, &idx);
            return kf_hook_fail(error, KF_ERR_RUNTIME,
                                "reading %s buffer %d back failed: %s (a kernel of the plan probably "
                                "faulted: %s)", role, idx, kfcl_err_name(e), kfcl_err_hint(e));
        }
    }
    return KF_OK;
}

static kf_status set_args(kf_artifact *a, int li, kfcl_set *s, char **error)
{
    kfcl_launch *l = &a->launches[li];
    for (int i = 0; i < l->n_args; i++) {
        const kf_arg *arg = &l->args[i];
        cl_int e;
        cl_int iv;
        cl_long lv;
        cl_float fv;
        const char *what;
        switch (arg->kind) {
        case KF_ARG_INPUT:
            what = "input buffer";
            e = clSetKernelArg(l->k, (cl_uint)i, sizeof(cl_mem), &s->mem[arg->index].sub);
            break;
        case KF_ARG_OUTPUT:
            what = "output buffer";
            e = clSetKernelArg(l->k, (cl_uint)i, sizeof(cl_mem),
                               &s->mem[a->n_inputs + arg->index].sub);
            break;
        case KF_ARG_SCRATCH:
            what = "scratch buffer";
            e = clSetKernelArg(l->k, (cl_uint)i, sizeof(cl_mem),
                               &s->mem[a->n_inputs + a->n_outputs + arg->index].sub);
            break;
        case KF_ARG_INT:
            what = "int";
            iv = (cl_int)arg->ival;
            e = clSetKernelArg(l->k, (cl_uint)i, sizeof iv, &iv);
            break;
        case KF_ARG_LONG:
            what = "long";
            lv = (cl_long)arg->ival;
            e = clSetKernelArg(l->k, (cl_uint)i, sizeof lv, &lv);
            break;
        case KF_ARG_FLOAT:
            what = "float";
            fv = (cl_float)arg->fval;
            e = clSetKernelArg(l->k, (cl_uint)i, sizeof fv, &fv);
            break;
        case KF_ARG_LOCAL:
            what = "__local memory";
            e = clSetKernelArg(l->k, (cl_uint)i, (size_t)arg->bytes, NULL);
            break;
        default:
            return kf_hook_fail(error, KF_ERR_INVALID, "launch[%d] (kernel %s): arg %d has kind %d",
                                li, l->kernel, i, (int)arg->kind);
        }
        if (e != CL_SUCCESS)
            return kf_hook_fail(error, KF_ERR_LAUNCH,
                                "launch[%d] (kernel %s): clSetKernelArg(%d, %s) failed: %s; %s",
                                li, l->kernel, i, what, kfcl_err_name(e), kfcl_err_hint(e));
    }
    return KF_OK;
}

static void sizes_text(const kfcl_launch *l, char *dst, size_t len)
{
    if (l->work_dim == 1)
        snprintf(dst, len, "global %zu, local %zu", l->global[0], l->local[0]);
    else if (l->work_dim == 2)
        snprintf(dst, len, "global %zux%zu, local %zux%zu", l->global[0], l->global[1],
                 l->local[0], l->local[1]);
    else
        snprintf(dst, len, "global %zux%zux%zu, local %zux%zux%zu", l->global[0], l->global[1],
                 l->global[2], l->local[0], l->local[1], l->local[2]);
    if (!l->has_local) {
        char *p = strstr(dst, ", local");
        if (p) snprintf(p, len - (size_t)(p - dst), ", local chosen by the runtime");
    }
}

/* The OpenCL 1.2 uniform work-group rule, checked the same on every
 * device (OpenCL 2+ drivers would otherwise accept what 1.2 ones refuse). */
static kf_status check_uniform(const kf_artifact *a, int li, char **error)
{
    const kfcl_launch *l = &a->launches[li];
    if (!l->has_local) return KF_OK;
    size_t wg = 1;
    for (int d = 0; d < l->work_dim; d++) {
        wg *= l->local[d];
        if (l->global[d] % l->local[d] != 0)
            return kf_hook_fail(error, KF_ERR_LAUNCH,
                                "launch[%d] (kernel %s): global[%d] = %zu is not a multiple of "
                                "local[%d] = %zu; OpenCL 1.2 needs uniform work-groups: use "
                                "round_up(n, %zu) in the plan and guard the kernel with if (i < n)",
                                li, l->kernel, d, l->global[d], d, l->local[d], l->local[d]);
    }
    size_t kmax = 0;
    clGetKernelWorkGroupInfo(l->k, a->dev->id, CL_KERNEL_WORK_GROUP_SIZE, sizeof kmax, &kmax, NULL);
    if (kmax && wg > kmax)
        return kf_hook_fail(error, KF_ERR_LAUNCH,
                            "launch[%d] (kernel %s): work-group of %zu work-items exceeds this "
                            "kernel's limit of %zu on '%s' (CL_KERNEL_WORK_GROUP_SIZE); use a "
                            "smaller local size", li, l->kernel, wg, kmax, a->dev->name);
    return KF_OK;
}

kf_status kfcl_enqueue_plan(kf_artifact *a, kfcl_set *s, cl_event *events, char **error)
{
    for (int li = 0; li < a->n_launches; li++) {
        kfcl_launch *l = &a->launches[li];
        kf_status st = check_uniform(a, li, error);
        if (st == KF_OK) st = set_args(a, li, s, error);
        if (st != KF_OK) return st;
        cl_int e = clEnqueueNDRangeKernel(a->dev->queue, l->k, (cl_uint)l->work_dim, NULL,
                                          l->global, l->has_local ? l->local : NULL, 0, NULL,
                                          events ? &events[li] : NULL);
        if (e != CL_SUCCESS) {
            char sz[160];
            sizes_text(l, sz, sizeof sz);
            return kf_hook_fail(error, KF_ERR_LAUNCH,
                                "launch[%d] (kernel %s, %s): clEnqueueNDRangeKernel failed: %s%s%s",
                                li, l->kernel, sz, kfcl_err_name(e), *kfcl_err_hint(e) ? "; " : "",
                                kfcl_err_hint(e));
        }
    }
    return KF_OK;
}

kf_status kfcl_verify(kf_artifact *a, kf_buffer_set *set, char **error)
{
    if (!a) return kf_hook_fail(error, KF_ERR_INVALID, "verify: no artifact");
    kfcl_set s;
    kf_status st = kfcl_set_create(a, set, &s, error);
    if (st != KF_OK) return st;
    st = kfcl_enqueue_plan(a, &s, NULL, error);
    cl_int e = clFinish(a->dev->queue);
    if (st == KF_OK && e != CL_SUCCESS)
        st = kf_hook_fail(error, KF_ERR_RUNTIME,
                          "clFinish after the plan's %d launch(es) failed: %s; %s", a->n_launches,
                          kfcl_err_name(e), kfcl_err_hint(e));
    if (st == KF_OK) st = kfcl_set_read_back(a, &s, error);
    kfcl_set_free(&s);
    return st;
}
