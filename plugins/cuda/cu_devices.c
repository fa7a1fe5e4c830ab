/* cu_devices.c — the CUDA devices, their primary contexts, and the probe:
 * peak estimated as the larger of FP32 (SMs x clock x lanes x 2) and dense
 * BF16 tensor cores (SMs x clock x FLOP/clock/SM, twice the TF32 rate: the
 * fastest precision the built-in agent uses), bandwidth measured
 * with a device-to-device copy timed by events (a copy reads and writes
 * every byte), the on-chip bound measured the same way on a copy that fits
 * the L2. */
#include "kfcu.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static kfcu_device *g_devs;
static int g_n = -1;

static int attr(CUdevice d, CUdevice_attribute a)
{
    int v = 0;
    if (kfcu.DeviceGetAttribute(&v, a, d) != CUDA_SUCCESS) v = 0;
    return v;
}

kf_status kfcu_devices(kfcu_device **devs, int *n, char *why, size_t why_len)
{
    if (g_n >= 0) {
        *devs = g_devs;
        *n = g_n;
        return KF_OK;
    }
    kf_status st = kfcu_load_driver(why, why_len);
    if (st != KF_OK) return st;
    int count = 0;
    CUresult r = kfcu.DeviceGetCount(&count);
    char e[160];
    if (r != CUDA_SUCCESS || count <= 0) {
        snprintf(why, why_len, "no CUDA device found%s%s", r != CUDA_SUCCESS ? ": " : "",
                 r != CUDA_SUCCESS ? kfcu_err(r, e, sizeof e) : "");
        return KF_ERR_UNAVAILABLE;
    }
    g_devs = calloc((size_t)count, sizeof *g_devs);
    if (!g_devs) return KF_ERR_NOMEM;
    for (int i = 0; i < count; i++) {
        kfcu_device *d = &g_devs[i];
        kfcu.DeviceGet(&d->dev, i);
        kfcu.DeviceGetName(d->name, (int)sizeof d->name, d->dev);
        d->cc_major = attr(d->dev, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
        d->cc_minor = attr(d->dev, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
        d->sms = attr(d->dev, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
        d->clock_khz = attr(d->dev, CU_DEVICE_ATTRIBUTE_CLOCK_RATE);
        d->mem_clock_khz = attr(d->dev, CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE);
        d->bus_bits = attr(d->dev, CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH);
        d->l2_bytes = attr(d->dev, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE);
        d->max_threads_block = attr(d->dev, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
        d->shared_block = attr(d->dev, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK);
        d->shared_optin = attr(d->dev, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN);
        d->warp = attr(d->dev, CU_DEVICE_ATTRIBUTE_WARP_SIZE);
        kfcu.DeviceTotalMem(&d->total_mem, d->dev);
    }
    g_n = count;
    *devs = g_devs;
    *n = g_n;
    return KF_OK;
}

kf_status kfcu_device_open(kfcu_device *d, char **error)
{
    CUresult r;
    if (!d->ctx && (r = kfcu.PrimaryCtxRetain(&d->ctx, d->dev)) != CUDA_SUCCESS)
        return kfcu_fault(r, error, KF_ERR_UNAVAILABLE, "cuDevicePrimaryCtxRetain");
    if ((r = kfcu.CtxSetCurrent(d->ctx)) != CUDA_SUCCESS)
        return kfcu_fault(r, error, KF_ERR_RUNTIME, "cuCtxSetCurrent");
    return KF_OK;
}

/* Dense TF32 tensor-core FLOP per clock per SM (sm_90: 989 TFLOP/s with
 * sparsity on 132 SMs at 1.83 GHz, so 2048 dense; sm_80: 1024; sm_86/89:
 * 512), 0 without TF32 tensor cores. */
static int tf32_per_sm_clk(const kfcu_device *d)
{
    if (d->cc_major >= 9) return 2048;
    if (d->cc_major == 8) return d->cc_minor == 0 ? 1024 : 512;
    return 0;
}

/* FP32 lanes per SM by architecture. */
static int fp32_lanes(const kfcu_device *d)
{
    if (d->cc_major >= 9 || (d->cc_major == 8 && d->cc_minor >= 6)) return 128;
    return 64;
}

/* Bytes/s of a device-to-device copy of `bytes`, best of `reps`, 0 on failure. */
static double copy_rate(size_t bytes, int reps)
{
    CUdeviceptr a = 0, b = 0;
    CUevent e0 = NULL, e1 = NULL;
    double best = 0;
    if (kfcu.MemAlloc(&a, bytes) != CUDA_SUCCESS || kfcu.MemAlloc(&b, bytes) != CUDA_SUCCESS ||
        kfcu.EventCreate(&e0, CU_EVENT_DEFAULT) != CUDA_SUCCESS || kfcu.EventCreate(&e1, CU_EVENT_DEFAULT) != CUDA_SUCCESS)
        goto out;
    kfcu.MemcpyDtoD(b, a, bytes);   /* warm-up */
    for (int i = 0; i < reps; i++) {
        float ms = 0;
        if (kfcu.EventRecord(e0, NULL) != CUDA_SUCCESS || kfcu.MemcpyDtoD(b, a, bytes) != CUDA_SUCCESS ||
            kfcu.EventRecord(e1, NULL) != CUDA_SUCCESS || kfcu.EventSynchronize(e1) != CUDA_SUCCESS ||
            kfcu.EventElapsedTime(&ms, e0, e1) != CUDA_SUCCESS || ms <= 0)
            break;
        double rate = 2.0 * (double)bytes / (ms * 1e-3);
        if (rate > best) best = rate;
    }
out:
    if (e0) kfcu.EventDestroy(e0);
    if (e1) kfcu.EventDestroy(e1);
    if (a) kfcu.MemFree(a);
    if (b) kfcu.MemFree(b);
    return best;
}

static kf_status probe_impl(kf_device_info *out, size_t dev_size, int max, int *n, int measure, char *why,
                            size_t why_len)
{
    kfcu_device *devs;
    int nd;
    *n = 0;
    kf_status st = kfcu_devices(&devs, &nd, why, why_len);
    if (st != KF_OK) return st;
    char nvrtc_why[256] = "";
    int nv_major = 0, nv_minor = 0, drv = 0;
    if (kfcu_load_nvrtc(nvrtc_why, sizeof nvrtc_why) == KF_OK) kfnv.Version(&nv_major, &nv_minor);
    kfcu.DriverGetVersion(&drv);
    /* the listing (kforge backends, the run's device line) says whether the
       library launches can run; a worker's probe does not load cuBLAS */
    char blas[320] = "";
    if (!measure) {
        char bwhy[300] = "";
        if (kfcu_load_blas(bwhy, sizeof bwhy) == KF_OK)
            snprintf(blas, sizeof blas, "; cuBLAS %s for the library launches (cublas:sgemm ...)", kfcu_blas_lib());
        else
            snprintf(blas, sizeof blas, "; cuBLAS unavailable: %s", bwhy);
    }
    for (int i = 0; i < nd && *n < max; i++) {
        kfcu_device *d = &devs[i];
        kf_device_info *o = (kf_device_info *)(void *)((char *)out + (size_t)(*n)++ * dev_size);
        uint32_t size = o->struct_size;
        memset(o, 0, sizeof *o);
        o->struct_size = size;
        snprintf(o->arch, sizeof o->arch, "sm_%d%d", d->cc_major, d->cc_minor);
        o->compute_units = d->sms;
        o->warp_size = d->warp;
        o->max_work_group = d->max_threads_block;
        o->local_mem_per_group = d->shared_block;
        o->local_mem_per_group_optin = d->shared_optin;
        if (d->cc_major >= 8) o->matrix_units = KF_MU_TF32 | KF_MU_BF16 | KF_MU_FP16 | KF_MU_INT8;
        else if (d->cc_major >= 7) o->matrix_units = KF_MU_FP16;
        snprintf(o->name, sizeof o->name, "%s", d->name);
        snprintf(o->kind, sizeof o->kind, "gpu");
        /* the peak is an upper bound for every candidate, tensor-core ones
           included: the larger of the FP32 and the BF16 tensor rates (BF16
           dense is twice TF32 dense on sm_80, sm_86/89 and sm_90) */
        double fp32 = (double)d->sms * d->clock_khz * 1e3 * fp32_lanes(d) * 2.0;
        double tf32 = (double)d->sms * d->clock_khz * 1e3 * tf32_per_sm_clk(d);
        double bf16 = 2.0 * tf32;
        o->peak_flops = bf16 > fp32 ? bf16 : fp32;
        o->peak_flops_measured = 0;
        char *err = NULL;
        if (measure && kfcu_device_open(d, &err) == KF_OK) {
            o->peak_bytes_per_s = copy_rate((size_t)256 << 20, 5);
            o->peak_bw_measured = o->peak_bytes_per_s > 0;
            if (d->l2_bytes >= (8 << 20)) o->cache_bytes_per_s = copy_rate((size_t)d->l2_bytes / 4, 10);
        }
        free(err);
        if (!o->peak_bw_measured) o->peak_bytes_per_s = 2.0 * d->mem_clock_khz * 1e3 * (d->bus_bits / 8.0);
        snprintf(o->detail, sizeof o->detail,
                 "compute capability %d.%d (sm_%d%d), %d SMs at %.0f MHz, %.1f GiB, L2 %d MiB, warp %d, "
                 "max %d threads/block, shared memory %d KiB/block (opt-in %d KiB); peak estimated as the larger of "
                 "FP32 (SMs x clock x %d lanes x 2 = %.1f TFLOP/s) and dense BF16 tensor cores (SMs x clock x %d "
                 "= %.1f TFLOP/s; TF32 half that); bandwidth %s; driver CUDA %d.%d; NVRTC %s%d.%d%s%s%s",
                 d->cc_major, d->cc_minor, d->cc_major, d->cc_minor, d->sms, d->clock_khz / 1e3,
                 (double)d->total_mem / (1 << 30), d->l2_bytes >> 20, d->warp, d->max_threads_block,
                 d->shared_block >> 10, d->shared_optin >> 10, fp32_lanes(d), fp32 * 1e-12, 2 * tf32_per_sm_clk(d),
                 bf16 * 1e-12,
                 o->peak_bw_measured ? "measured (256 MiB device copy)"
                 : measure ? "estimated from memory clock x bus width" : "measured separately (kforge caches it)",
                 drv / 1000, (drv % 1000) / 10, nvrtc_why[0] ? "unavailable: " : "", nv_major, nv_minor,
                 nvrtc_why[0] ? nvrtc_why : "", blas,
                 /* plan ABI 1.5 tensor-map arguments (TMA): sm_90 and later, a driver with the encoder */
                 d->cc_major >= 9 && kfcu_tensor_map_encode ? "; tensor maps (TMA) supported" : "");
    }
    return KF_OK;
}

kf_status kfcu_probe(kf_device_info *out, int max, int *n, char *why, size_t why_len)
{
    return probe_impl(out, sizeof *out, max, n, 1, why, why_len);
}

kf_status kfcu_list(kf_device_info *out, size_t dev_size, int max, int *n, char *why, size_t why_len)
{
    return probe_impl(out, dev_size, max, n, 0, why, why_len);
}

kf_status kfcu_measure(int device, kf_device_info *dev, char *why, size_t why_len)
{
    kfcu_device *devs;
    int nd;
    kf_status st = kfcu_devices(&devs, &nd, why, why_len);
    if (st != KF_OK) return st;
    if (device < 0 || device >= nd) {
        snprintf(why, why_len, "no CUDA device %d", device);
        return KF_ERR_INVALID;
    }
    char *err = NULL;
    if (kfcu_device_open(&devs[device], &err) != KF_OK) {
        snprintf(why, why_len, "%s", err ? err : "cannot open the device");
        free(err);
        return KF_ERR_UNAVAILABLE;
    }
    double bw = copy_rate((size_t)256 << 20, 5);
    if (bw > 0) {
        dev->peak_bytes_per_s = bw;
        dev->peak_bw_measured = 1;
    }
    if (devs[device].l2_bytes >= (8 << 20)) dev->cache_bytes_per_s = copy_rate((size_t)devs[device].l2_bytes / 4, 10);
    return KF_OK;
}
