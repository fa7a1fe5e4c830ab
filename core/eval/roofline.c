/* roofline.c — the fastest time any correct kernel could reach on a device
 * (doc/design.md, "The problem and the roofline"): FLOPs at peak compute, fewest bytes at peak
 * bandwidth.  Unknown peaks count as infinitely fast (they bound nothing). */
#include "eval_internal.h"

#include <string.h>
#include <unistd.h>

static double ratio(double work, double rate)
{
    return (rate > 0 && work > 0) ? work / rate : 0.0;
}

static double dmax(double a, double b)
{
    return a > b ? a : b;
}

/* The bound the int16-pair rate stays under on a CPU whose vectors are 8
 * floats: twice the FMA peak (16 multiply-adds an instruction against
 * FMA's 8, at most FMA's issue rate: on Zen 3 1.7 times in
 * bench/results/zen3-gemm-i16-2026-11-30's loops, 2.0 by the probe's);
 * 0 elsewhere. */
static double i16_bound(const kf_device_info *dev)
{
    return dev->warp_size == 8 ? 2 * dev->peak_flops : 0;
}

/* The peak of compute unit `unit` (kf_roofline.unit_peak_flops' numbers):
 * 0 for an unknown unit, or a unit the device does not report.  5, int16
 * pairs on AVX2's vpmaddwd (the C emitter's precision i16, offered on CPUs
 * whose vectors are 8 floats: AVX2 without AVX-512), is the probe's rate of
 * the products alone (kf_device_info.peak_flops_i16, ABI 1.6), or its
 * bound where the plugin does not report it (an older minor). */
static double unit_peak(const kf_device_info *dev, int unit)
{
    if (!dev) return 0;
    if (unit == 0) return dev->peak_flops;
    if (strcmp(dev->kind, "cpu") != 0 || dev->struct_size < sizeof *dev) return 0;
    if (unit == 5) return !i16_bound(dev) ? 0 : dev->peak_flops_i16 > 0 ? dev->peak_flops_i16 : i16_bound(dev);
    return unit == 1 ? dev->peak_flops_bf16 : unit == 2 ? dev->peak_flops_amx_bf16
         : unit == 3 ? dev->peak_flops_amx_bf16 / 3 : unit == 4 ? dev->peak_flops_amx_bf16 / 2 : 0;
}

/* The device's fastest compute rate: its peak, and on a CPU its bf16 units
 * (AVX512_BF16 vdpbf16ps, AMX tiles) or AVX2's int16 pairs where it has
 * them; 0 without a device.  bound: for the enforced floor, which must
 * never be under an honest kernel, the int16 pairs at the larger of their
 * measured rate and their bound (a rate measured on a busy machine is low;
 * the fp32 peak has its estimate under it, kf_device_info.peak_flops). */
static double fastest_flops(const kf_device_info *dev, int bound)
{
    double peak = 0;
    for (int u = 0; u < KF_ROOFLINE_UNITS; u++) peak = dmax(peak, unit_peak(dev, u));   /* 3 and 4 are shares of 2 */
    if (bound && dev && !strcmp(dev->kind, "cpu") && dev->struct_size >= sizeof *dev) peak = dmax(peak, i16_bound(dev));
    return peak;
}

void kf_roofline_compute(const kf_resolved *r, const kf_device_info *dev, kf_roofline *out)
{
    memset(out, 0, sizeof *out);
    out->flops = r ? r->flops : 0;
    out->min_bytes = r ? r->min_bytes : 0;
    if (dev) {
        out->peak_flops = dev->peak_flops;
        out->peak_bytes_per_s = dev->peak_bytes_per_s;
        out->cache_bytes_per_s = dev->cache_bytes_per_s;
        for (int u = 0; u < KF_ROOFLINE_UNITS; u++) out->unit_peak_flops[u] = unit_peak(dev, u);
    }
    double compute_s = ratio(out->flops, out->peak_flops);
    out->floor_s = dmax(compute_s, ratio(out->min_bytes, out->peak_bytes_per_s));
    /* the target's floor: the device's fastest unit, whatever unit ran */
    out->device_floor_s = dmax(ratio(out->flops, fastest_flops(dev, 0)), ratio(out->min_bytes, out->peak_bytes_per_s));
    /* The hard floor is what no correct kernel can beat: every input byte
     * read and every output byte written, from on-chip memory at that.  The
     * FLOP term is left out on purpose: the graph's nominal FLOPs are not a
     * lower bound when algebra shrinks the work (sum_n (x W^T)[b,n] is
     * x . (sum_n W[n,:]), N times fewer FLOPs), and a cache-resident problem
     * may beat floor_s.  A time under this is a measurement error or an
     * exploit. */
    out->hard_floor_s = ratio(out->min_bytes, out->cache_bytes_per_s);
}

void kf_roofline_use_unit(kf_roofline *rf, const kf_device_info *dev, int unit)
{
    /* 3: AMX with 3xbf16, three tile products per product of the problem;
       4: AMX with 2xbf16, two; 0 (fp32) keeps the device's peak */
    double peak = unit > 0 ? unit_peak(dev, unit) : 0;
    if (!(peak > 0)) return;
    rf->peak_flops = peak;
    rf->floor_s = dmax(ratio(rf->flops, peak), ratio(rf->min_bytes, rf->peak_bytes_per_s));
}

void kf_roofline_apply(kf_roofline *rf, double median_s)
{
    if (median_s > 0) {
        rf->achieved_flops = rf->flops / median_s;
        rf->achieved_bytes_per_s = rf->min_bytes / median_s;
        rf->fraction = rf->floor_s > 0 ? rf->floor_s / median_s : 0.0;
        rf->device_fraction = rf->device_floor_s > 0 ? rf->device_floor_s / median_s : 0.0;
    } else {
        rf->achieved_flops = rf->achieved_bytes_per_s = rf->fraction = rf->device_fraction = 0.0;
    }
}

double kf_roofline_target_fraction(const kf_roofline *rf)
{
    return rf->device_floor_s > 0 ? rf->device_fraction : rf->fraction;
}

int kf_roofline_too_fast(const kf_roofline *rf, double median_s)
{
    return rf->hard_floor_s > 0 && median_s < rf->hard_floor_s;
}

/* The enforced floor (doc/sandbox.md, "The enforced floor").  Allowances,
 * each for a reason a correct kernel can beat the printed floor:
 *  - bytes: the peak bandwidth is a measured copy or a datasheet figure,
 *    which good kernels beat by up to ~30% (read-mostly traffic): the bytes
 *    count at 1.5x it.  When all the sets the timed runs rotate through
 *    fit in the last-level cache (cache_capacity) they may stay there, and
 *    the bytes count at the on-chip bandwidth instead.
 *  - FLOPs: at KF_FLOP_SLACK_CPU x the measured FMA peak on a CPU (clock
 *    headroom), at KF_FLOP_SLACK_ACCEL x the fp32 peak elsewhere (tensor
 *    cores run bf16 at up to ~15x the fp32 SIMT rate on Hopper).  Left out
 *    when the graph has a linear reduction (sum, mean, average pooling):
 *    algebra can shrink the work there (sum_n (x W^T)[b,n] = x . sum_n W). */
#define KF_CACHE_RESIDENT (64.0 * 1024 * 1024)
#define KF_BW_SLACK 1.5
#define KF_FLOP_SLACK_CPU 1.25
#define KF_FLOP_SLACK_ACCEL 16.0

static int has_linear_reduction(const kf_problem *p)
{
    for (int i = 0; p && i < p->n_nodes; i++)
        if (p->nodes[i].op == KF_OP_SUM || p->nodes[i].op == KF_OP_MEAN || p->nodes[i].op == KF_OP_AVG_POOL1D)
            return 1;
    return 0;
}

/* Bytes that may stay in the device's cache between runs: the host's
 * last-level cache for a CPU device, at most KF_CACHE_RESIDENT, which is
 * also the figure elsewhere (H100: 50 MB of L2). */
static double cache_capacity(const kf_device_info *dev)
{
    if (dev && !strcmp(dev->kind, "cpu")) {
        /* a VM reports the whole host's L3 (384 MB here for 2 cores) */
        long l3 = sysconf(_SC_LEVEL3_CACHE_SIZE), l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
        double c = l3 > 0 ? (double)l3 : l2 > 0 ? (double)l2 : KF_CACHE_RESIDENT;
        return c < KF_CACHE_RESIDENT ? c : KF_CACHE_RESIDENT;
    }
    return KF_CACHE_RESIDENT;
}

void kf_roofline_enforce(kf_roofline *rf, const kf_resolved *r, const kf_device_info *dev, double timed_bytes)
{
    rf->cache_resident = timed_bytes <= cache_capacity(dev);
    double bw = rf->cache_resident ? rf->cache_bytes_per_s : rf->peak_bytes_per_s * KF_BW_SLACK;
    double bytes_s = ratio(rf->min_bytes, bw);
    rf->flop_term = !has_linear_reduction(r ? r->problem : NULL) && rf->peak_flops > 0;
    double slack = (dev && !strcmp(dev->kind, "cpu")) ? KF_FLOP_SLACK_CPU : KF_FLOP_SLACK_ACCEL;
    /* a CPU with bf16 units (AVX512_BF16 vdpbf16ps, AMX tiles) or AVX2's
       int16 pairs may run a candidate above its fp32 peak: the floor takes
       the fastest unit, whatever unit the candidate names
       (kf_roofline_use_unit) */
    double peak = dmax(rf->peak_flops, fastest_flops(dev, 1));
    double flops_s = rf->flop_term ? ratio(rf->flops, peak * slack) : 0.0;
    rf->hard_floor_s = dmax(bytes_s, flops_s);
}
