/* ocl_space.c — the search space of the OpenCL C emitter (language
 * "opencl-c": kernels + launch plan; plugins/opencl and any other plugin
 * of that language): knobs, defaults, neighbours, labels (emit.h).  The
 * generator is builtin_ocl*.c.  It has no GEMM efficiency model of its
 * own: the analyzer ranks its tile knobs by the measured/modelled gap. */
#include "agent/builtin/builtin.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ocl_knobs.h"


const int kf_bt_ocl_ts_steps[5] = {8, 16, 32, 64, 128};
const int kf_bt_ocl_wpt_steps[4] = {1, 2, 4, 8};
const int kf_bt_ocl_vec_steps[4] = {1, 2, 4, 8};

const kf_bt_knob kf_bt_ocl_knobs[KO_N] = {KF_BT_OCL_KNOB_ENTRIES};

int kf_bt_ocl_work_group(const kf_bt_point *p)
{
    const int *k = p->knob;
    if (k[KO_TS] <= 0 || k[KO_WPT] <= 0 || k[KO_VEC] <= 0) return 0;
    return (k[KO_TS] / k[KO_VEC]) * (k[KO_TS] / k[KO_WPT]);
}

int kf_bt_ocl_ptx_mma(const kf_device_info *dev)
{
    if (!dev || dev->struct_size < offsetof(kf_device_info, matrix_units) + sizeof dev->matrix_units) return 0;
    return (dev->matrix_units & KF_MU_TF32) && strstr(dev->detail, "vendor 'NVIDIA") != NULL;
}

void kf_bt_ocl_defaults(kf_bt_point *p, const kf_resolved *r, const kf_device_info *dev)
{
    (void)r;
    p->knob[KO_TS] = 16;
    p->knob[KO_WPT] = 4;
    p->knob[KO_VEC] = 4;
    p->knob[KO_LOCAL_MEM] = 1;
    if (!dev) return;
    /* starting points that measured best on each kind of device
     * (bench/results/): on an H100 at the kernelbench preset, ts64 wpt8
     * v4 ran problem 9 in 7.42 ms and problem 68 in 4.02 ms, where ts32
     * wpt8 v4 took 7.64 and 4.91 ms and ts16 wpt4 v4 21.7 ms on 9; on
     * PoCL's CPU device ts8 wpt8 v8 ran the cpu preset 2.4x faster. */
    if (!strcmp(dev->kind, "gpu")) { p->knob[KO_TS] = 64; p->knob[KO_WPT] = 8; p->knob[KO_VEC] = 4; }
    else if (!strcmp(dev->kind, "cpu")) { p->knob[KO_TS] = 8; p->knob[KO_WPT] = 8; p->knob[KO_VEC] = 8; }
    /* NVIDIA with tensor cores: GEMMs on them through inline PTX (TF32,
     * ocl_gemm_ptx.c); a failed verification steps back to fp32 (the
     * conservative step), which never offers TF32 again */
    if (p->em == &kf_bt_emit_opencl_c && kf_bt_ocl_ptx_mma(dev)) p->precision = KF_BT_TF32;
}

/* What the neighbour search may offer.  A point given by hand is not
 * refused here: the generator checks the exact values (builtin_ocl.c)
 * with messages of its own. */
int kf_bt_ocl_offerable(const kf_bt_point *p)
{
    const int *k = p->knob;
    return k[KO_WPT] <= k[KO_TS] && k[KO_VEC] <= k[KO_TS] && kf_bt_ocl_work_group(p) <= KF_BT_OCL_MAX_WG;
}

int kf_bt_ocl_conservative(kf_bt_point *p)
{
    int *k = p->knob;
    if (k[KO_LOCAL_MEM] || k[KO_TS] > 8 || k[KO_WPT] > 1 || k[KO_VEC] > 1) {
        k[KO_LOCAL_MEM] = 0; k[KO_TS] = 8; k[KO_WPT] = 1; k[KO_VEC] = 1;
        return 1;
    }
    return 0;
}

void kf_bt_ocl_neighbours(const kf_bt_point *p, kf_bt_nbr_sink *s)
{
    kf_bt_point q;
    if (p->precision == KF_BT_TF32) {
        /* the tile knobs shape only the non-GEMM kernels here: the one
           step is back to fp32 (points hold no device, so TF32 is never
           offered from fp32: only the defaults give it, on NVIDIA) */
        q = *p; q.precision = KF_BT_FP32; kf_bt_nbr_push(s, &q);
        return;
    }
    kf_bt_step_knob(p, KO_TS, s);
    kf_bt_step_knob(p, KO_WPT, s);
    kf_bt_step_knob(p, KO_VEC, s);
    q = *p; q.knob[KO_LOCAL_MEM] = !p->knob[KO_LOCAL_MEM]; kf_bt_nbr_push(s, &q);
    q = *p; q.precision = p->precision ? KF_BT_FP32 : KF_BT_FP16_STORAGE; kf_bt_nbr_push(s, &q);
}

char *kf_bt_ocl_label(const kf_bt_point *p, const char *fusion, char *buf, size_t n)
{
    const int *k = p->knob;
    snprintf(buf, n, "gemm ts%d wpt%d v%d%s %s%s", k[KO_TS], k[KO_WPT], k[KO_VEC], k[KO_LOCAL_MEM] ? " local" : "",
             fusion, p->precision == KF_BT_BF16X3 ? " 3xbf16-tc" : p->precision == KF_BT_BF16 ? " bf16-tc" : p->precision == KF_BT_TF32 ? " tf32-tc" : p->precision ? " fp16" : "");
    return buf;
}

const char *kf_bt_ocl_describe_change(const kf_bt_point *a, const kf_bt_point *b, char *buf, size_t n)
{
    if (a->knob[KO_LOCAL_MEM] != b->knob[KO_LOCAL_MEM] && a->knob[KO_TS] == b->knob[KO_TS] &&
        a->knob[KO_WPT] == b->knob[KO_WPT] && a->knob[KO_VEC] == b->knob[KO_VEC]) {
        snprintf(buf, n, "%s local-memory tiling", b->knob[KO_LOCAL_MEM] ? "enable" : "disable");
        return buf;
    }
    return NULL;
}

const kf_bt_emitter kf_bt_emit_opencl_c = {
    .language = "opencl-c",
    .what = "OpenCL C kernels + launch plan",
    .n_knobs = KO_N,
    .knobs = kf_bt_ocl_knobs,
    .defaults = kf_bt_ocl_defaults,
    .offerable = kf_bt_ocl_offerable,
    .conservative = kf_bt_ocl_conservative,
    .neighbours = kf_bt_ocl_neighbours,
    .label = kf_bt_ocl_label,
    .describe_change = kf_bt_ocl_describe_change,
    .generate = kf_bt_gen_ocl,
};
