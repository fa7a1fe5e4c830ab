/* test_cuda_tmap.c — the CUDA plugin's tensor-map arguments (plan ABI 1.5)
 * without a GPU (plugins/cuda/cu_tmap.c): a well-formed map over a buffer
 * passes; each rule of cuTensorMapEncodeTiled and the buffer-extent rule
 * (a map may reach only its own buffer's bytes) refuses with a one-line
 * compile error naming the field; the plan check finds a missing buffer
 * and a tensor-map argument naming no map; the encode arguments. */
#include "kf_test.h"

#include <stdlib.h>
#include <string.h>

#include "cu_tmap.h"

/* the emitter's BF16 A map of problem 9: 1024 rows x 8192 bf16, 128B swizzle */
static kf_tensor_map good(void)
{
    kf_tensor_map t;
    memset(&t, 0, sizeof t);
    t.struct_size = sizeof t;
    t.buffer_kind = KF_ARG_SCRATCH;
    t.buffer_index = 0;
    t.dtype = KF_DT_BF16;
    t.rank = 2;
    t.dims[0] = 8192;
    t.dims[1] = 1024;
    t.strides[0] = 2;
    t.strides[1] = 8192 * 2;
    t.box[0] = 64;
    t.box[1] = 128;
    t.swizzle = 128;
    return t;
}

static const int64_t BYTES = 8192LL * 1024 * 2;

/* refused with a compile error whose message holds `want` */
static void refused(const kf_tensor_map *t, int64_t bytes, const char *want)
{
    char *msg = NULL;
    kf_status st = kfcu_tmap_check(t, 3, bytes, &msg);
    KF_CHECK_MSG(st == KF_ERR_COMPILE, "status %d for '%s'", (int)st, want);
    KF_CHECK_MSG(msg && strstr(msg, want), "message '%s' lacks '%s'", msg ? msg : "(none)", want);
    KF_CHECK_MSG(msg && strstr(msg, "tensor_maps[3] (scratch buffer 0)") && !strchr(msg, '\n'), "%s", msg ? msg : "");
    free(msg);
}

KF_TEST(accepts_the_emitters_maps)
{
    kf_tensor_map t = good();
    char *msg = NULL;
    KF_CHECK_MSG(kfcu_tmap_check(&t, 0, BYTES, &msg) == KF_OK, "%s", msg ? msg : "");
    KF_CHECK(kfcu_tmap_extent(&t) == BYTES);
    /* TF32 from an FP32 input: K 8180 (ragged), 1000 rows, box 32 x 128 */
    t.dtype = KF_DT_F32;
    t.dims[0] = 8180;
    t.dims[1] = 1000;
    t.strides[1] = 8180 * 4;
    t.box[0] = 32;
    KF_CHECK_MSG(kfcu_tmap_check(&t, 0, 8180LL * 1000 * 4, &msg) == KF_OK, "%s", msg ? msg : "");
    /* rank 1, no swizzle; rank 5 */
    kf_tensor_map r1 = good();
    r1.rank = 1;
    r1.swizzle = 0;
    r1.box[0] = 256;
    KF_CHECK(kfcu_tmap_check(&r1, 0, 8192 * 2, &msg) == KF_OK);
    kf_tensor_map r5 = good();
    r5.rank = 5;
    r5.dims[0] = 64; r5.dims[1] = 2; r5.dims[2] = 3; r5.dims[3] = 4; r5.dims[4] = 5;
    r5.strides[1] = 128; r5.strides[2] = 256; r5.strides[3] = 768; r5.strides[4] = 3072;
    r5.box[2] = r5.box[3] = r5.box[4] = 1;
    KF_CHECK(kfcu_tmap_extent(&r5) == 3072 * 5);
    KF_CHECK_MSG(kfcu_tmap_check(&r5, 0, 3072 * 5, &msg) == KF_OK, "%s", msg ? msg : "");
    free(msg);
}

KF_TEST(refuses_each_broken_rule)
{
    kf_tensor_map t;
    t = good(); t.rank = 0; refused(&t, BYTES, "rank 0");
    t = good(); t.rank = 6; refused(&t, BYTES, "rank 6");
    t = good(); t.dtype = KF_DT_I32; refused(&t, BYTES, "element type 3");
    t = good(); t.swizzle = 16; refused(&t, BYTES, "swizzle 16");
    t = good(); t.dims[1] = 0; refused(&t, BYTES, "dims[1] = 0");
    t = good(); t.dims[0] = ((int64_t)1 << 32) + 1; refused(&t, BYTES, "dims[0] = 4294967297");
    t = good(); t.box[1] = 257; refused(&t, BYTES, "box[1] = 257");
    t = good(); t.box[0] = 0; refused(&t, BYTES, "box[0] = 0");
    t = good(); t.strides[1] = 8192 * 2 + 8; refused(&t, BYTES, "multiple of 16");
    t = good(); t.strides[1] = (int64_t)1 << 40; refused(&t, BYTES, "below 2^40");
    t = good(); t.strides[1] = 8192; refused(&t, BYTES, "may not overlap");   /* rows alias */
    t = good(); t.swizzle = 0; t.box[0] = 4; refused(&t, BYTES, "multiple of 16 bytes");
    t = good(); t.swizzle = 64; refused(&t, BYTES, "more than the 64-byte swizzle span");
    /* the buffer's extent: one row too many, one byte short, and a reach that overflows */
    t = good(); t.dims[1] = 1025; refused(&t, BYTES, "reaches 16793600 bytes but the buffer has 16777216");
    t = good(); refused(&t, BYTES - 1, "a tensor map may cover its own buffer only");
    t = good(); t.rank = 3; t.dims[2] = (int64_t)1 << 32; t.strides[2] = ((int64_t)1 << 40) - 16; t.box[2] = 1;
    refused(&t, BYTES, "cover its own buffer only");
}

/* a problem of inputs x (8 floats) and W (16), output y (4), scratch 64 bytes */
KF_TEST(plan_checks_buffers_and_arguments)
{
    const int64_t in_elems[2] = {8, 16}, out_elems[1] = {4}, scr[1] = {64};
    kf_problem_view pv;
    memset(&pv, 0, sizeof pv);
    pv.n_inputs = 2;
    pv.input_elems = in_elems;
    pv.n_outputs = 1;
    pv.output_elems = out_elems;
    pv.n_scratch = 1;
    pv.scratch_bytes = scr;
    kf_tensor_map m[2];
    memset(m, 0, sizeof m);
    for (int i = 0; i < 2; i++) {
        m[i].struct_size = sizeof m[i];
        m[i].dtype = KF_DT_F32;
        m[i].rank = 2;
        m[i].dims[0] = 4;
        m[i].strides[1] = 16;
        m[i].box[0] = 4;
        m[i].box[1] = 2;
    }
    m[0].buffer_kind = KF_ARG_INPUT;   /* W: 4 rows of 4 = 64 bytes */
    m[0].buffer_index = 1;
    m[0].dims[1] = 4;
    m[1].buffer_kind = KF_ARG_SCRATCH;
    m[1].buffer_index = 0;
    m[1].dims[1] = 4;
    kf_arg args[2] = {{KF_ARG_TENSOR_MAP, 0, 0, 0, 0}, {KF_ARG_TENSOR_MAP, 1, 0, 0, 0}};
    kf_launch l;
    memset(&l, 0, sizeof l);
    l.kernel = "k";
    l.work_dim = 1;
    l.n_args = 2;
    l.args = args;
    kf_candidate_view c;
    memset(&c, 0, sizeof c);
    c.n_launches = 1;
    c.launches = &l;
    c.struct_size = sizeof c;
    c.launch_size = sizeof l;
    c.n_tensor_maps = 2;
    c.tensor_maps = m;
    c.tensor_map_size = sizeof m[0];
    char *msg = NULL;
    KF_CHECK_MSG(kfcu_tmap_plan(&c, &pv, &msg) == KF_OK, "%s", msg ? msg : "");
    /* the same map over x (32 bytes) reaches past it */
    m[0].buffer_index = 0;
    KF_CHECK(kfcu_tmap_plan(&c, &pv, &msg) == KF_ERR_COMPILE && strstr(msg, "tensor_maps[0] (input buffer 0): reaches 64"));
    m[0].buffer_index = 1;
    /* a buffer that does not exist */
    m[1].buffer_index = 1;
    KF_CHECK(kfcu_tmap_plan(&c, &pv, &msg) == KF_ERR_COMPILE && strstr(msg, "scratch buffer 1 does not exist"));
    m[1].buffer_index = 0;
    m[1].buffer_kind = KF_ARG_INT;
    KF_CHECK(kfcu_tmap_plan(&c, &pv, &msg) == KF_ERR_COMPILE && strstr(msg, "does not exist"));
    m[1].buffer_kind = KF_ARG_SCRATCH;
    /* an argument naming a map the plan does not have */
    args[1].index = 2;
    KF_CHECK(kfcu_tmap_plan(&c, &pv, &msg) == KF_ERR_COMPILE && strstr(msg, "arg 1 names tensor map 2 of 2"));
    args[1].index = -1;
    KF_CHECK(kfcu_tmap_plan(&c, &pv, &msg) == KF_ERR_COMPILE);
    /* a view from a 1.4 core (smaller struct) has no maps: the arguments then name none */
    args[1].index = 1;
    c.struct_size = (uint32_t)offsetof(kf_candidate_view, n_tensor_maps);
    KF_CHECK(kfcu_tmap_plan(&c, &pv, &msg) == KF_ERR_COMPILE && strstr(msg, "names tensor map 0 of 0"));
    free(msg);
}

KF_TEST(encode_arguments)
{
    kf_tensor_map t = good();
    kfcu_tmap_args x;
    kfcu_tmap_encode_args(&t, &x);
    KF_CHECK(x.dtype == 9 && x.swizzle == 3 && x.rank == 2);   /* CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, SWIZZLE_128B */
    KF_CHECK(x.dims[0] == 8192 && x.dims[1] == 1024 && x.strides[0] == 16384);
    KF_CHECK(x.box[0] == 64 && x.box[1] == 128 && x.elem_strides[0] == 1 && x.elem_strides[1] == 1);
    t.dtype = KF_DT_F32;
    t.swizzle = 0;
    kfcu_tmap_encode_args(&t, &x);
    KF_CHECK(x.dtype == 7 && x.swizzle == 0);
    t.dtype = KF_DT_F16;
    t.swizzle = 32;
    kfcu_tmap_encode_args(&t, &x);
    KF_CHECK(x.dtype == 6 && x.swizzle == 1);
}

int main(void) { return kf_test_main(); }
