/*
 * cu_tmap.h — tensor-map arguments of the CUDA plugin (KF_ARG_TENSOR_MAP,
 * plugin ABI 1.5).  This part is pure (no CUDA header, no device): it
 * checks each of the plan's tensor maps against the hardware's rules for
 * cuTensorMapEncodeTiled and against its buffer, so that a map reaches
 * only that buffer's own data bytes (a hostile candidate cannot read or
 * write other memory through the TMA unit), and maps it onto the encode
 * call's arguments.  Tested without a GPU (tests/unit/test_cuda_tmap.c);
 * cu_run.c encodes the maps once the buffers have device addresses.
 *
 * Rules (every failure is a compile error whose one line names the map,
 * the field and what to do): rank 1..5; dims 1..2^32; strides[d] (d >= 1)
 * a multiple of 16 bytes, below 2^40 and at least dims[d-1] x strides[d-1]
 * (no overlap, so the extent below is exact); box 1..256 per dimension with
 * box[0] x element bytes a multiple of 16; with a swizzle, box[0] x element
 * bytes at most the swizzle's span; the extent (dims[0] - 1) x element +
 * sum over d >= 1 of (dims[d] - 1) x strides[d] + element bytes at most the
 * buffer's bytes.
 */
#ifndef KF_CU_TMAP_H
#define KF_CU_TMAP_H

#include <stdint.h>

#include "kforge-plugin.h"

/* The bytes of element type dt (KF_DT_*), 0 for one a map cannot have. */
int kfcu_tmap_elem_bytes(uint32_t dt);

/* Bytes of the map's reach from its buffer's start (the extent above);
 * -1 when it does not fit 63 bits. */
int64_t kfcu_tmap_extent(const kf_tensor_map *t);

/* Checks map i against the rules and a buffer of buffer_bytes;
 * KF_ERR_COMPILE with *error set ("tensor_maps[i] (scratch buffer 1): ...")
 * when it breaks one. */
kf_status kfcu_tmap_check(const kf_tensor_map *t, int i, int64_t buffer_bytes, char **error);

/* Every tensor map of the candidate against the problem's buffers (inputs
 * and outputs as float32 elements, scratch in bytes), and every
 * KF_ARG_TENSOR_MAP argument's index; KF_ERR_COMPILE with *error set. */
kf_status kfcu_tmap_plan(const kf_candidate_view *c, const kf_problem_view *p, char **error);

/* The encode call's arguments for a checked map: the data type
 * (CUtensorMapDataType), global dims, the rank - 1 strides of dims 1..,
 * box, element strides (all 1) and the swizzle (CUtensorMapSwizzle). */
typedef struct kfcu_tmap_args {
    uint32_t dtype, rank, swizzle;
    uint64_t dims[KF_TMAP_MAX_RANK], strides[KF_TMAP_MAX_RANK];
    uint32_t box[KF_TMAP_MAX_RANK], elem_strides[KF_TMAP_MAX_RANK];
} kfcu_tmap_args;
void kfcu_tmap_encode_args(const kf_tensor_map *t, kfcu_tmap_args *out);

#endif
