/* cu_run.c — device copies of the core's guarded buffers, launching a
 * plan, and the verify hook.  Each kf_buffer becomes one allocation of its
 * WHOLE guarded region (guards and poisoned data uploaded as they are);
 * kernels get a pointer to its data part, so an out-of-bounds write lands
 * in the guard on the device and comes back to the host with the rest. */
#include "kfcu.h"

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

/* The artifact's tensor maps over set s's device buffers, checked again
 * against the buffers' real sizes (cu_tmap.h) and encoded once, here, so
 * that the timed runs only pass them. */
static kf_status encode_tmaps(kf_artifact *a, kfcu_set *s, char **error)
{
    if (a->n_tmaps <= 0) return KF_OK;
    s->tmaps = aligned_alloc(64, (size_t)a->n_tmaps * sizeof *s->tmaps);
    if (!s->tmaps) {
        kfcu_set_free(s);
        return kf_hook_fail(error, KF_ERR_NOMEM, "out of memory");
    }
#if KFCU_HAVE_TMAP
    _Static_assert(sizeof(kfcu_tmap_blob) == sizeof(CUtensorMap), "a blob holds one CUtensorMap");
    for (int i = 0; i < a->n_tmaps; i++) {
        const kf_tensor_map *t = &a->tmaps[i];
        const int base = t->buffer_kind == KF_ARG_INPUT ? t->buffer_index
                         : t->buffer_kind == KF_ARG_OUTPUT ? a->n_inputs + t->buffer_index
                                                           : a->n_inputs + a->n_outputs + t->buffer_index;
        kf_status st = KF_OK;
        if (base < 0 || base >= s->n || t->buffer_index < 0)
            st = kf_hook_fail(error, KF_ERR_INVALID, "tensor_maps[%d]: names buffer %d of %d", i, base, s->n);
        else
            st = kfcu_tmap_check(t, i, (int64_t)s->host[base]->bytes, error);
        if (st != KF_OK) {
            kfcu_set_free(s);
            return st;
        }
        kfcu_tmap_args x;
        kfcu_tmap_encode_args(t, &x);
        CUresult r = kfcu_tensor_map_encode((CUtensorMap *)(void *)&s->tmaps[i], (CUtensorMapDataType)x.dtype, x.rank,
                                            (void *)(uintptr_t)(s->base[base] + s->host[base]->guard_bytes), x.dims,
                                            x.strides, x.box, x.elem_strides, CU_TENSOR_MAP_INTERLEAVE_NONE,
                                            (CUtensorMapSwizzle)x.swizzle, CU_TENSOR_MAP_L2_PROMOTION_L2_128B,
                                            CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
        if (r != CUDA_SUCCESS) {
            char e[200];
            kfcu_err(r, e, sizeof e);
            kfcu_set_free(s);
            return kf_hook_fail(error, KF_ERR_INVALID, "tensor_maps[%d]: cuTensorMapEncodeTiled refused it: %s", i, e);
        }
    }
#else
    kfcu_set_free(s);
    return kf_hook_fail(error, KF_ERR_INVALID, "tensor maps: this cuda plugin was built against CUDA 11 headers, "
                     "which lack cuTensorMapEncodeTiled; rebuild it with CUDA 12 or later");
#endif
    return KF_OK;
}

void kfcu_set_free(kfcu_set *s)
{
    if (!s) return;
    for (int i = 0; i < s->n && s->base; i++)
        if (s->base[i] && !kfcu_poisoned) kfcu.MemFree(s->base[i]);
    free(s->base);
    free(s->host);
    free(s->tmaps);
    memset(s, 0, sizeof *s);
}

kf_status kfcu_set_create(kf_artifact *a, kf_buffer_set *set, kfcu_set *out, char **error)
{
    memset(out, 0, sizeof *out);
    if (!set || (a->n_inputs && !set->inputs) || (a->n_outputs && !set->outputs) || (a->n_scratch && !set->scratch))
        return kf_hook_fail(error, KF_ERR_INVALID, "buffer set lacks inputs, outputs or scratch buffers the problem declares");
    out->n = a->n_inputs + a->n_outputs + a->n_scratch;
    out->base = calloc((size_t)out->n + 1, sizeof *out->base);
    out->host = calloc((size_t)out->n + 1, sizeof *out->host);
    if (!out->base || !out->host) {
        kfcu_set_free(out);
        return kf_hook_fail(error, KF_ERR_NOMEM, "out of memory");
    }
    for (int i = 0; i < out->n; i++) {
        int idx;
        const char *role = role_name(a, i, &idx);
        kf_buffer *b = role[0] == 'i' ? &set->inputs[idx] : role[0] == 'o' ? &set->outputs[idx] : &set->scratch[idx];
        out->host[i] = b;
        size_t total = b->bytes + 2 * b->guard_bytes;
        char what[96];
        CUresult r;
        if (!b->base || !b->bytes) {
            kfcu_set_free(out);
            return kf_hook_fail(error, KF_ERR_INVALID, "%s buffer %d is empty (no data bytes)", role, idx);
        }
        if ((r = kfcu.MemAlloc(&out->base[i], total)) != CUDA_SUCCESS) {
            snprintf(what, sizeof what, "cuMemAlloc(%zu bytes) for %s buffer %d", total, role, idx);
            kfcu_set_free(out);
            return kfcu_fault(r, error, r == CUDA_ERROR_OUT_OF_MEMORY ? KF_ERR_NOMEM : KF_ERR_RUNTIME, what);
        }
        if ((r = kfcu.MemcpyHtoD(out->base[i], b->base, total)) != CUDA_SUCCESS) {
            snprintf(what, sizeof what, "uploading %s buffer %d (%zu bytes)", role, idx, total);
            kfcu_set_free(out);
            return kfcu_fault(r, error, KF_ERR_RUNTIME, what);
        }
    }
    return encode_tmaps(a, out, error);
}

/* One device-to-host copy of bytes [off, off + n) of buffer i's region. */
static kf_status read_part(kf_artifact *a, kfcu_set *s, int i, size_t off, size_t n, char **error)
{
    if (!n) return KF_OK;
    CUresult r = kfcu.MemcpyDtoH(s->host[i]->base + off, s->base[i] + off, n);
    if (r == CUDA_SUCCESS) return KF_OK;
    int idx = 0;
    char what[128];
    snprintf(what, sizeof what, "reading %s buffer %d back (a kernel of the plan probably faulted)",
             role_name(a, i, &idx), idx);
    return kfcu_fault(r, error, KF_ERR_RUNTIME, what);
}

kf_status kfcu_set_read_back(kf_artifact *a, kfcu_set *s, int whole, char **error)
{
    kf_status st = KF_OK;
    for (int i = 0; i < s->n && st == KF_OK; i++) {
        kf_buffer *b = s->host[i];
        int idx;
        if (whole || role_name(a, i, &idx)[0] == 'o') {
            st = read_part(a, s, i, 0, b->bytes + 2 * b->guard_bytes, error);
            continue;
        }
        /* inputs and scratch: their guard bands only (the data part keeps
           what the core wrote, so an input changed on the device is found
           by the verify hook's whole read-back, not here) */
        st = read_part(a, s, i, 0, b->guard_bytes, error);
        if (st == KF_OK) st = read_part(a, s, i, b->guard_bytes + b->bytes, b->guard_bytes, error);
    }
    return st;
}

kf_status kfcu_launch_plan(kf_artifact *a, kfcu_set *s, char **error)
{
    for (int li = 0; li < a->n_launches; li++) {
        kfcu_launch *l = &a->launches[li];
        if (l->library) {
            kf_status st = kfcu_blas_run(a, s, li, error);
            if (st != KF_OK) return st;
            continue;
        }
        void **params = calloc((size_t)l->n_params + 1, sizeof *params);
        union { CUdeviceptr p; int i; long long l; float f; } *vals = calloc((size_t)l->n_params + 1, sizeof *vals);
        if (!params || !vals) {
            free(params);
            free(vals);
            return kf_hook_fail(error, KF_ERR_NOMEM, "out of memory");
        }
        int k = 0;
        kf_status st = KF_OK;
        for (int i = 0; i < l->n_args && st == KF_OK; i++) {
            const kf_arg *g = &l->args[i];
            int base = -1;
            switch (g->kind) {
            case KF_ARG_INPUT: base = g->index; break;
            case KF_ARG_OUTPUT: base = a->n_inputs + g->index; break;
            case KF_ARG_SCRATCH: base = a->n_inputs + a->n_outputs + g->index; break;
            case KF_ARG_INT: vals[k].i = (int)g->ival; break;
            case KF_ARG_LONG: vals[k].l = (long long)g->ival; break;
            case KF_ARG_FLOAT: vals[k].f = (float)g->fval; break;
            case KF_ARG_LOCAL: continue;   /* dynamic shared memory, no parameter */
            case KF_ARG_TENSOR_MAP:   /* 128 bytes by value, from the set (encoded with its buffers) */
                if (!s->tmaps || g->index < 0 || g->index >= a->n_tmaps) {
                    st = kf_hook_fail(error, KF_ERR_INVALID, "launch[%d] (%s): arg %d names tensor map %d of %d", li,
                                   l->kernel, i, g->index, a->n_tmaps);
                    continue;
                }
                params[k++] = &s->tmaps[g->index];
                continue;
            default:
                st = kf_hook_fail(error, KF_ERR_INVALID, "launch[%d] (%s): arg %d has kind %d", li, l->kernel, i,
                               (int)g->kind);
                continue;
            }
            if (base >= 0) {
                if (base >= s->n) {
                    st = kf_hook_fail(error, KF_ERR_INVALID, "launch[%d] (%s): arg %d names buffer %d of %d", li,
                                   l->kernel, i, base, s->n);
                    continue;
                }
                vals[k].p = s->base[base] + s->host[base]->guard_bytes;
            }
            params[k] = &vals[k];
            k++;
        }
        CUresult r = CUDA_SUCCESS;
        if (st == KF_OK)
            r = kfcu.LaunchKernel(l->fn, l->grid[0], l->grid[1], l->grid[2], l->block[0], l->block[1], l->block[2],
                                  l->dyn_shared, NULL, params, NULL);
        free(params);
        free(vals);
        if (st != KF_OK) return st;
        if (r != CUDA_SUCCESS) {
            char what[256];
            snprintf(what, sizeof what, "launch[%d] (kernel %s, grid %ux%ux%u, block %ux%ux%u, %u B dynamic shared)",
                     li, l->kernel, l->grid[0], l->grid[1], l->grid[2], l->block[0], l->block[1], l->block[2],
                     l->dyn_shared);
            return kfcu_fault(r, error, KF_ERR_LAUNCH, what);
        }
    }
    return KF_OK;
}

kf_status kfcu_verify(kf_artifact *a, kf_buffer_set *set, char **error)
{
    if (!a) return kf_hook_fail(error, KF_ERR_INVALID, "verify: no artifact");
    kf_status st = kfcu_check_poison(error);
    if (st == KF_OK) st = kfcu_device_open(a->dev, error);
    if (st != KF_OK) return st;
    kfcu_set s;
    if ((st = kfcu_set_create(a, set, &s, error)) != KF_OK) return st;
    st = kfcu_launch_plan(a, &s, error);
    CUresult r = kfcu.CtxSynchronize();
    if (st == KF_OK && r != CUDA_SUCCESS) st = kfcu_fault(r, error, KF_ERR_RUNTIME, "running the plan");
    if (st == KF_OK) st = kfcu_set_read_back(a, &s, 1, error);
    kfcu_set_free(&s);
    return st;
}
