/* roofline.c — the fastest time any correct kernel could reach on a device
 * (DESIGN.md "The problem"): FLOPs at peak compute, fewest bytes at peak
 * bandwidth.  Unknown peaks count as infinitely fast (they bound nothing). */
#include "eval_internal.h"

#include <string.h>

static double ratio(double work, double rate)
{
    return (rate > 0 && work > 0) ? work / rate : 0.0;
}

static double dmax(double a, double b)
{
    return a > b ? a : b;
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
    }
    double compute_s = ratio(out->flops, out->peak_flops);
    out->floor_s = dmax(compute_s, ratio(out->min_bytes, out->peak_bytes_per_s));
    /* The hard floor is what no correct kernel can beat: every input byte
     * read and every output byte written, from on-chip memory at that.  The
     * FLOP term is left out on purpose: the graph's nominal FLOPs are not a
     * lower bound when algebra shrinks the work (sum_n (x W^T)[b,n] is
     * x . (sum_n W[n,:]), N times fewer FLOPs), and a cache-resident problem
     * may beat floor_s.  A time under this is a measurement error or an
     * exploit. */
    out->hard_floor_s = ratio(out->min_bytes, out->cache_bytes_per_s);
}

void kf_roofline_apply(kf_roofline *rf, double median_s)
{
    if (median_s > 0) {
        rf->achieved_flops = rf->flops / median_s;
        rf->achieved_bytes_per_s = rf->min_bytes / median_s;
        rf->fraction = rf->floor_s > 0 ? rf->floor_s / median_s : 0.0;
    } else {
        rf->achieved_flops = rf->achieved_bytes_per_s = rf->fraction = 0.0;
    }
}

int kf_roofline_too_fast(const kf_roofline *rf, double median_s)
{
    return rf->hard_floor_s > 0 && median_s < rf->hard_floor_s;
}
