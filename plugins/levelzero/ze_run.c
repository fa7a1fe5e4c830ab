/*
 * ze_run.c — device copies of the core's guarded buffers, launching a plan
 * through a command list, and the verify hook.
 *
 * Each kf_buffer becomes one device allocation holding the WHOLE guarded
 * region (guards, canaries and poisoned data uploaded as they are); kernels
 * get a pointer to its data part.  An out-of-bounds write lands in the
 * guard on the device and comes back to the host with the rest of the
 * region, where the core sees it.
 */
#include "kfze.h"

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

void kfze_set_free(kf_artifact *a, kfze_set *s)
{
    if (!s) return;
    for (int i = 0; i < s->n && s->mem; i++)
        if (s->mem[i]) zeMemFree(a->dev->ctx, s->mem[i]);
    free(s->mem);
    free(s->host);
    memset(s, 0, sizeof *s);
}

kf_status kfze_set_create(kf_artifact *a, kf_buffer_set *set, kfze_set *out, char **error)
{
    memset(out, 0, sizeof *out);
    if (!set || (a->n_inputs && !set->inputs) || (a->n_outputs && !set->outputs) || (a->n_scratch && !set->scratch))
        return kf_hook_fail(error, KF_ERR_INVALID, "buffer set lacks inputs, outputs or scratch buffers the problem declares");
    out->n = a->n_inputs + a->n_outputs + a->n_scratch;
    out->mem = calloc((size_t)out->n + 1, sizeof *out->mem);
    out->host = calloc((size_t)out->n + 1, sizeof *out->host);
    if (!out->mem || !out->host) {
        kfze_set_free(a, out);
        return kf_hook_fail(error, KF_ERR_NOMEM, "out of memory");
    }
    ze_device_mem_alloc_desc_t dd = {ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC, NULL, 0, 0};
    for (int i = 0; i < out->n; i++) {
        int idx;
        const char *role = role_name(a, i, &idx);
        kf_buffer *b = role[0] == 'i' ? &set->inputs[idx] : role[0] == 'o' ? &set->outputs[idx] : &set->scratch[idx];
        out->host[i] = b;
        if (!b->base || b->bytes == 0) {
            kfze_set_free(a, out);
            return kf_hook_fail(error, KF_ERR_INVALID, "%s buffer %d is empty (no data bytes)", role, idx);
        }
        size_t total = b->bytes + 2 * b->guard_bytes;
        ze_result_t r = zeMemAllocDevice(a->dev->ctx, &dd, total, 4096, a->dev->id, &out->mem[i]);
        if (r != ZE_RESULT_SUCCESS || !out->mem[i]) {
            out->mem[i] = NULL;
            kfze_set_free(a, out);
            return kf_hook_fail(error, r == ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY ? KF_ERR_NOMEM : KF_ERR_RUNTIME,
                                "zeMemAllocDevice(%zu bytes) for %s buffer %d failed: %s", total, role, idx,
                                kfze_err_name(r));
        }
    }
    return KF_OK;
}

kf_status kfze_append_copies(kf_artifact *a, kfze_set *s, ze_command_list_handle_t list, int up, char **error)
{
    for (int i = 0; i < s->n; i++) {
        kf_buffer *b = s->host[i];
        size_t total = b->bytes + 2 * b->guard_bytes;
        ze_result_t r = up ? zeCommandListAppendMemoryCopy(list, s->mem[i], b->base, total, NULL, 0, NULL)
                           : zeCommandListAppendMemoryCopy(list, b->base, s->mem[i], total, NULL, 0, NULL);
        if (r != ZE_RESULT_SUCCESS) {
            int idx;
            const char *role = role_name(a, i, &idx);
            return kf_hook_fail(error, KF_ERR_RUNTIME, "%s %s buffer %d (%zu bytes) failed: %s",
                                up ? "uploading" : "reading back", role, idx, total, kfze_err_name(r));
        }
    }
    return zeCommandListAppendBarrier(list, NULL, 0, NULL) == ZE_RESULT_SUCCESS
               ? KF_OK : kf_hook_fail(error, KF_ERR_RUNTIME, "zeCommandListAppendBarrier failed");
}

static kf_status set_args(kf_artifact *a, int li, kfze_set *s, char **error)
{
    kfze_launch *l = &a->launches[li];
    for (int i = 0; i < l->n_args; i++) {
        const kf_arg *arg = &l->args[i];
        ze_result_t r;
        const char *what;
        void *ptr;
        int32_t iv;
        int64_t lv;
        float fv;
        int slot = -1;
        switch (arg->kind) {
        case KF_ARG_INPUT: what = "input buffer"; slot = arg->index; break;
        case KF_ARG_OUTPUT: what = "output buffer"; slot = a->n_inputs + arg->index; break;
        case KF_ARG_SCRATCH: what = "scratch buffer"; slot = a->n_inputs + a->n_outputs + arg->index; break;
        case KF_ARG_INT: what = "int"; break;
        case KF_ARG_LONG: what = "long"; break;
        case KF_ARG_FLOAT: what = "float"; break;
        case KF_ARG_LOCAL: what = "__local memory"; break;
        default:
            return kf_hook_fail(error, KF_ERR_INVALID, "launch[%d] (kernel %s): arg %d has kind %d", li, l->kernel, i,
                                (int)arg->kind);
        }
        if (slot >= 0) {
            ptr = (char *)s->mem[slot] + s->host[slot]->guard_bytes;
            r = zeKernelSetArgumentValue(l->k, (uint32_t)i, sizeof ptr, &ptr);
        } else if (arg->kind == KF_ARG_INT) {
            iv = (int32_t)arg->ival;
            r = zeKernelSetArgumentValue(l->k, (uint32_t)i, sizeof iv, &iv);
        } else if (arg->kind == KF_ARG_LONG) {
            lv = (int64_t)arg->ival;
            r = zeKernelSetArgumentValue(l->k, (uint32_t)i, sizeof lv, &lv);
        } else if (arg->kind == KF_ARG_FLOAT) {
            fv = (float)arg->fval;
            r = zeKernelSetArgumentValue(l->k, (uint32_t)i, sizeof fv, &fv);
        } else {
            r = zeKernelSetArgumentValue(l->k, (uint32_t)i, (size_t)arg->bytes, NULL);
        }
        if (r != ZE_RESULT_SUCCESS)
            return kf_hook_fail(error, KF_ERR_LAUNCH, "launch[%d] (kernel %s): zeKernelSetArgumentValue(%d, %s) "
                                "failed: %s", li, l->kernel, i, what, kfze_err_name(r));
    }
    return KF_OK;
}

kf_status kfze_append_plan(kf_artifact *a, kfze_set *s, ze_command_list_handle_t list, ze_event_handle_t *events,
                           char **error)
{
    for (int li = 0; li < a->n_launches; li++) {
        kfze_launch *l = &a->launches[li];
        kf_status st = set_args(a, li, s, error);
        if (st != KF_OK) return st;
        ze_group_count_t gc = {l->global[0] / l->group[0], l->global[1] / l->group[1], l->global[2] / l->group[2]};
        ze_result_t r = zeCommandListAppendLaunchKernel(list, l->k, &gc, events ? events[li] : NULL, 0, NULL);
        if (r != ZE_RESULT_SUCCESS)
            return kf_hook_fail(error, KF_ERR_LAUNCH, "launch[%d] (kernel %s, %u x %u x %u groups of %u x %u x %u): "
                                "zeCommandListAppendLaunchKernel failed: %s", li, l->kernel, gc.groupCountX,
                                gc.groupCountY, gc.groupCountZ, l->group[0], l->group[1], l->group[2],
                                kfze_err_name(r));
        /* launches see each other's writes, in plan order */
        if ((r = zeCommandListAppendBarrier(list, NULL, 0, NULL)) != ZE_RESULT_SUCCESS)
            return kf_hook_fail(error, KF_ERR_RUNTIME, "zeCommandListAppendBarrier failed: %s", kfze_err_name(r));
    }
    return KF_OK;
}

kf_status kfze_list_create(kf_artifact *a, ze_command_list_handle_t *list, char **error)
{
    ze_command_list_desc_t ld = {ZE_STRUCTURE_TYPE_COMMAND_LIST_DESC, NULL, a->dev->queue_ordinal, 0};
    ze_result_t r = zeCommandListCreate(a->dev->ctx, a->dev->id, &ld, list);
    return r == ZE_RESULT_SUCCESS ? KF_OK
                                  : kf_hook_fail(error, KF_ERR_RUNTIME, "zeCommandListCreate failed: %s", kfze_err_name(r));
}

kf_status kfze_list_run(kf_artifact *a, ze_command_list_handle_t list, const char *what, char **error)
{
    ze_result_t r = zeCommandListClose(list);
    if (r == ZE_RESULT_SUCCESS) r = zeCommandQueueExecuteCommandLists(a->dev->queue, 1, &list, NULL);
    if (r == ZE_RESULT_SUCCESS) r = zeCommandQueueSynchronize(a->dev->queue, UINT64_MAX);
    if (r != ZE_RESULT_SUCCESS)
        return kf_hook_fail(error, KF_ERR_RUNTIME,
                            "%s on '%s' failed: %s%s", what, a->dev->name, kfze_err_name(r),
                            r == ZE_RESULT_ERROR_DEVICE_LOST ? " (a kernel of the plan probably faulted)" : "");
    return KF_OK;
}

kf_status kfze_verify(kf_artifact *a, kf_buffer_set *set, char **error)
{
    if (!a) return kf_hook_fail(error, KF_ERR_INVALID, "verify: no artifact");
    kfze_set s;
    kf_status st = kfze_set_create(a, set, &s, error);
    if (st != KF_OK) return st;
    ze_command_list_handle_t list = NULL;
    st = kfze_list_create(a, &list, error);
    if (st == KF_OK) st = kfze_append_copies(a, &s, list, 1, error);
    if (st == KF_OK) st = kfze_append_plan(a, &s, list, NULL, error);
    if (st == KF_OK) st = kfze_append_copies(a, &s, list, 0, error);
    if (st == KF_OK) st = kfze_list_run(a, list, "running the plan", error);
    if (list) zeCommandListDestroy(list);
    kfze_set_free(a, &s);
    return st;
}
