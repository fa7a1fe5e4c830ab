/* cu_tmap.c — checks of the plan's tensor maps (cu_tmap.h); pure C. */
#include "cu_tmap.h"
#include "kforge-plugin.h"

#include <stddef.h>
#include <stdio.h>

int kfcu_tmap_elem_bytes(uint32_t dt)
{
    return dt == KF_DT_F32 ? 4 : dt == KF_DT_BF16 || dt == KF_DT_F16 ? 2 : 0;
}

int64_t kfcu_tmap_extent(const kf_tensor_map *t)
{
    const int e = kfcu_tmap_elem_bytes(t->dtype);
    if (!e || t->rank < 1 || t->rank > KF_TMAP_MAX_RANK) return -1;
    int64_t reach = e, part;
    for (int d = 0; d < t->rank; d++) {
        const int64_t step = d ? t->strides[d] : e;
        if (t->dims[d] < 1 || step < 1) return -1;
        if (__builtin_mul_overflow(t->dims[d] - 1, step, &part) || __builtin_add_overflow(reach, part, &reach))
            return -1;
    }
    return reach;
}

static const char *kind_name(kf_arg_kind k)
{
    return k == KF_ARG_INPUT ? "input" : k == KF_ARG_OUTPUT ? "output" : k == KF_ARG_SCRATCH ? "scratch" : "?";
}


kf_status kfcu_tmap_check(const kf_tensor_map *t, int i, int64_t buffer_bytes, char **error)
{
    char what[48];
    snprintf(what, sizeof what, "tensor_maps[%d] (%s buffer %d)", i, kind_name(t->buffer_kind), t->buffer_index);
    const int e = kfcu_tmap_elem_bytes(t->dtype);
    if (!e)
        return kf_hook_fail(error, KF_ERR_COMPILE, "%s: element type %u; a tensor map reads f32, bf16 or f16", what,
                         (unsigned)t->dtype);
    if (t->rank < 1 || t->rank > KF_TMAP_MAX_RANK)
        return kf_hook_fail(error, KF_ERR_COMPILE, "%s: rank %d; a tensor map has 1 to %d dimensions", what, t->rank,
                         KF_TMAP_MAX_RANK);
    if (t->swizzle != 0 && t->swizzle != 32 && t->swizzle != 64 && t->swizzle != 128)
        return kf_hook_fail(error, KF_ERR_COMPILE, "%s: swizzle %d; use 0, 32, 64 or 128 (bytes)", what, t->swizzle);
    for (int d = 0; d < t->rank; d++) {
        if (t->dims[d] < 1 || t->dims[d] > ((int64_t)1 << 32))
            return kf_hook_fail(error, KF_ERR_COMPILE, "%s: dims[%d] = %lld; each must be 1 to 2^32", what, d,
                             (long long)t->dims[d]);
        if (t->box[d] < 1 || t->box[d] > 256)
            return kf_hook_fail(error, KF_ERR_COMPILE, "%s: box[%d] = %lld; each must be 1 to 256 elements", what, d,
                             (long long)t->box[d]);
        if (d == 0) continue;
        const int64_t s = t->strides[d], prev = d == 1 ? e : t->strides[d - 1];
        if (s < 16 || s % 16 != 0 || s >= ((int64_t)1 << 40))
            return kf_hook_fail(error, KF_ERR_COMPILE, "%s: strides[%d] = %lld bytes; a stride must be a multiple "
                             "of 16 below 2^40 (pad the rows)", what, d - 1, (long long)s);
        if (s / prev < t->dims[d - 1])
            return kf_hook_fail(error, KF_ERR_COMPILE, "%s: strides[%d] = %lld bytes is less than dims[%d] x %lld "
                             "bytes; rows of a tensor map may not overlap", what, d - 1, (long long)s, d - 1,
                             (long long)prev);
    }
    if ((t->box[0] * e) % 16 != 0)
        return kf_hook_fail(error, KF_ERR_COMPILE, "%s: box[0] = %lld elements is %lld bytes; the inner box must be "
                         "a multiple of 16 bytes", what, (long long)t->box[0], (long long)(t->box[0] * e));
    if (t->swizzle && t->box[0] * e > t->swizzle)
        return kf_hook_fail(error, KF_ERR_COMPILE, "%s: box[0] = %lld elements is %lld bytes, more than the %d-byte "
                         "swizzle span; make the inner box at most %d elements", what, (long long)t->box[0],
                         (long long)(t->box[0] * e), t->swizzle, t->swizzle / e);
    const int64_t ext = kfcu_tmap_extent(t);
    if (ext < 0 || ext > buffer_bytes)
        return kf_hook_fail(error, KF_ERR_COMPILE, "%s: reaches %lld bytes but the buffer has %lld; a tensor map may "
                         "cover its own buffer only (check dims and strides)", what, (long long)ext,
                         (long long)buffer_bytes);
    return KF_OK;
}

kf_status kfcu_tmap_plan(const kf_candidate_view *c, const kf_problem_view *p, char **error)
{
    const int n = c->struct_size >= offsetof(kf_candidate_view, tensor_map_size) + sizeof c->tensor_map_size
                      ? c->n_tensor_maps : 0;
    for (int i = 0; i < n; i++) {
        const kf_tensor_map *t = KF_AT(kf_tensor_map, c->tensor_maps, c->tensor_map_size, i);
        int64_t bytes = -1;
        const int k = t->buffer_index;
        if (t->buffer_kind == KF_ARG_INPUT && k >= 0 && k < p->n_inputs) bytes = p->input_elems[k] * 4;
        else if (t->buffer_kind == KF_ARG_OUTPUT && k >= 0 && k < p->n_outputs) bytes = p->output_elems[k] * 4;
        else if (t->buffer_kind == KF_ARG_SCRATCH && k >= 0 && k < p->n_scratch) bytes = p->scratch_bytes[k];
        if (bytes < 0)
            return kf_hook_fail(error, KF_ERR_COMPILE, "tensor_maps[%d]: %s buffer %d does not exist", i,
                             kind_name(t->buffer_kind), k);
        kf_status st = kfcu_tmap_check(t, i, bytes, error);
        if (st != KF_OK) return st;
    }
    for (int li = 0; li < c->n_launches; li++) {
        const kf_launch *l = KF_AT(kf_launch, c->launches, c->launch_size, li);
        for (int a = 0; a < l->n_args; a++)
            if (l->args[a].kind == KF_ARG_TENSOR_MAP && (l->args[a].index < 0 || l->args[a].index >= n))
                return kf_hook_fail(error, KF_ERR_COMPILE, "launch[%d] (%s): arg %d names tensor map %d of %d", li,
                                 l->kernel ? l->kernel : "", a, l->args[a].index, n);
    }
    return KF_OK;
}

void kfcu_tmap_encode_args(const kf_tensor_map *t, kfcu_tmap_args *o)
{
    /* CUtensorMapDataType: FLOAT16 6, FLOAT32 7, BFLOAT16 9; CUtensorMapSwizzle:
       NONE 0, 32B 1, 64B 2, 128B 3 (cuda.h) */
    o->dtype = t->dtype == KF_DT_F32 ? 7u : t->dtype == KF_DT_F16 ? 6u : 9u;
    o->swizzle = t->swizzle == 32 ? 1u : t->swizzle == 64 ? 2u : t->swizzle == 128 ? 3u : 0u;
    o->rank = (uint32_t)t->rank;
    for (int d = 0; d < KF_TMAP_MAX_RANK; d++) {
        o->dims[d] = d < t->rank ? (uint64_t)t->dims[d] : 1;
        o->strides[d] = d + 1 < t->rank && d + 1 < KF_TMAP_MAX_RANK ? (uint64_t)t->strides[d + 1] : 0;
        o->box[d] = d < t->rank ? (uint32_t)t->box[d] : 1;
        o->elem_strides[d] = 1;
    }
}
