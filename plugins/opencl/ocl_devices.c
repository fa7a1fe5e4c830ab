/* ocl_devices.c — the flattened OpenCL device list and the probe hook. */
#include "ocl.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define KFCL_MAX_PLATFORMS 16
#define KFCL_MAX_DEVICES 64

static kfcl_device g_devs[KFCL_MAX_DEVICES];
static int g_n_devs = -1;            /* -1: not enumerated yet */
static kf_status g_enum_status;
static char g_enum_why[512];

static const char NO_PLATFORM[] =
    "no OpenCL platform found (the ICD loader found no vendor: set OCL_ICD_VENDORS "
    "to a directory of .icd files or install one in /etc/OpenCL/vendors, e.g. "
    "Debian's pocl-opencl-icd)";

static void dev_str(cl_device_id d, cl_device_info what, char *dst, size_t len)
{
    dst[0] = 0;
    if (clGetDeviceInfo(d, what, len, dst, NULL) != CL_SUCCESS) dst[0] = 0;
    dst[len - 1] = 0;
}

static void plat_str(cl_platform_id p, cl_platform_info what, char *dst, size_t len)
{
    dst[0] = 0;
    if (clGetPlatformInfo(p, what, len, dst, NULL) != CL_SUCCESS) dst[0] = 0;
    dst[len - 1] = 0;
}

/* The order of the flattened list: GPUs, then accelerators and others,
 * then CPUs. */
static int type_rank(cl_device_type t)
{
    if (t & CL_DEVICE_TYPE_GPU) return 0;
    if (t & CL_DEVICE_TYPE_CPU) return 2;
    return 1;
}

/* Stable: devices of one rank keep the platforms' order.  Device 0, the
 * default of `kforge run|suite --device`, is then the GPU where a machine
 * has one, also where PoCL's CPU device is installed beside it (the GPU
 * machine: `--backend cuda,opencl` with one --device puts both on the
 * GPU). */
static void order_devices(void)
{
    for (int i = 1; i < g_n_devs; i++)
        for (int k = i; k > 0 && type_rank(g_devs[k].type) < type_rank(g_devs[k - 1].type); k--) {
            kfcl_device t = g_devs[k];
            g_devs[k] = g_devs[k - 1];
            g_devs[k - 1] = t;
        }
}

static void enumerate(void)
{
    cl_platform_id plats[KFCL_MAX_PLATFORMS];
    cl_uint np = 0;
    g_n_devs = 0;
    cl_int e = clGetPlatformIDs(KFCL_MAX_PLATFORMS, plats, &np);
    if (e == -1001 || (e == CL_SUCCESS && np == 0)) {
        g_enum_status = KF_ERR_UNAVAILABLE;
        snprintf(g_enum_why, sizeof g_enum_why, "%s", NO_PLATFORM);
        return;
    }
    if (e != CL_SUCCESS) {
        g_enum_status = KF_ERR_UNAVAILABLE;
        snprintf(g_enum_why, sizeof g_enum_why,
                 "clGetPlatformIDs failed: %s (is the ICD loader ocl-icd installed and an "
                 "ICD in /etc/OpenCL/vendors or OCL_ICD_VENDORS usable?)", kfcl_err_name(e));
        return;
    }
    if (np > KFCL_MAX_PLATFORMS) np = KFCL_MAX_PLATFORMS;
    char plat_names[512] = "";
    for (cl_uint p = 0; p < np; p++) {
        cl_device_id ids[KFCL_MAX_DEVICES];
        cl_uint nd = 0;
        char pname[KF_NAME_MAX];
        plat_str(plats[p], CL_PLATFORM_NAME, pname, sizeof pname);
        size_t used = strlen(plat_names);
        snprintf(plat_names + used, sizeof plat_names - used, "%s'%s'", used ? ", " : "", pname);
        cl_int de = clGetDeviceIDs(plats[p], CL_DEVICE_TYPE_ALL, KFCL_MAX_DEVICES, ids, &nd);
        if (de != CL_SUCCESS) {
            if (getenv("KFORGE_OPENCL_DEBUG"))
                fprintf(stderr, "kforge opencl: platform '%s': clGetDeviceIDs: %s\n", pname, kfcl_err_name(de));
            continue;
        }
        for (cl_uint i = 0; i < nd && i < KFCL_MAX_DEVICES && g_n_devs < KFCL_MAX_DEVICES; i++) {
            kfcl_device *d = &g_devs[g_n_devs++];
            memset(d, 0, sizeof *d);
            d->platform = plats[p];
            d->id = ids[i];
            snprintf(d->platform_name, sizeof d->platform_name, "%s", pname);
            plat_str(plats[p], CL_PLATFORM_VERSION, d->platform_version, sizeof d->platform_version);
            dev_str(ids[i], CL_DEVICE_NAME, d->name, sizeof d->name);
            dev_str(ids[i], CL_DRIVER_VERSION, d->driver_version, sizeof d->driver_version);
            dev_str(ids[i], CL_DEVICE_VENDOR, d->vendor, sizeof d->vendor);
            clGetDeviceInfo(ids[i], CL_DEVICE_TYPE, sizeof d->type, &d->type, NULL);
            cl_uint bits = 0;
            clGetDeviceInfo(ids[i], CL_DEVICE_MEM_BASE_ADDR_ALIGN, sizeof bits, &bits, NULL);
            d->align_bytes = bits / 8 ? bits / 8 : 1;
            clGetDeviceInfo(ids[i], CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof d->max_work_group,
                            &d->max_work_group, NULL);
            clGetDeviceInfo(ids[i], CL_DEVICE_LOCAL_MEM_SIZE, sizeof d->local_mem, &d->local_mem, NULL);
        }
    }
    order_devices();
    if (g_n_devs == 0) {
        g_enum_status = KF_ERR_UNAVAILABLE;
        snprintf(g_enum_why, sizeof g_enum_why,
                 "OpenCL platform(s) %s found but they expose no device (check the "
                 "vendor driver is installed and the device is visible to this user)", plat_names);
        return;
    }
    g_enum_status = KF_OK;
}

kf_status kfcl_devices(kfcl_device **devs, int *n, char *why, size_t why_len)
{
    if (g_n_devs < 0) enumerate();
    *devs = g_devs;
    *n = g_n_devs;
    if (g_enum_status != KF_OK && why && why_len) snprintf(why, why_len, "%s", g_enum_why);
    return g_enum_status;
}

kf_status kfcl_device_open(kfcl_device *d, char **error)
{
    cl_int e;
    if (!d->ctx) {
        cl_context_properties props[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)d->platform, 0};
        d->ctx = clCreateContext(props, 1, &d->id, NULL, NULL, &e);
        if (!d->ctx)
            return kf_hook_fail(error, KF_ERR_UNAVAILABLE, "clCreateContext failed on '%s': %s",
                                d->name, kfcl_err_name(e));
    }
    if (!d->queue) {
        d->queue = clCreateCommandQueue(d->ctx, d->id, CL_QUEUE_PROFILING_ENABLE, &e);
        if (!d->queue)
            return kf_hook_fail(error, KF_ERR_UNAVAILABLE,
                                "clCreateCommandQueue(CL_QUEUE_PROFILING_ENABLE) failed on '%s': %s",
                                d->name, kfcl_err_name(e));
    }
    return KF_OK;
}

/* ------------------------------------------------------------------ probe */

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Seconds of one timed command (profiling events), 0 on failure.  Releases ev. */
static double event_seconds(cl_event ev)
{
    cl_ulong s = 0, en = 0;
    int ok = clWaitForEvents(1, &ev) == CL_SUCCESS &&
             clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START, sizeof s, &s, NULL) == CL_SUCCESS &&
             clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, sizeof en, &en, NULL) == CL_SUCCESS;
    clReleaseEvent(ev);
    return ok && en > s ? (double)(en - s) * 1e-9 : 0;
}

/* A float4 copy kernel over the buffers (NULL when it does not build). */
static cl_kernel copy_kernel(kfcl_device *d, cl_program *prog)
{
    static const char *src =
        "__kernel void kf_bw_copy(__global const float4 *a, __global float4 *b)\n"
        "{ size_t i = get_global_id(0); b[i] = a[i]; }\n";
    cl_int err;
    *prog = clCreateProgramWithSource(d->ctx, 1, &src, NULL, &err);
    if (!*prog) return NULL;
    if (clBuildProgram(*prog, 1, &d->id, "", NULL, NULL) != CL_SUCCESS) return NULL;
    return clCreateKernel(*prog, "kf_bw_copy", &err);
}

/* Device memory bandwidth (read + write bytes per second): the faster of a
 * 64 MiB clEnqueueCopyBuffer and a float4 copy kernel over the same
 * buffers, each timed with events, best of up to 4 runs within ~150 ms
 * (one run of each always happens).  Both, because either can understate
 * the device: on the 2-core EPYC VM PoCL's buffer copy measured 20-23 GB/s
 * where the copy kernel streamed 27-28 GB/s (memory-bound candidates then
 * showed roofline fractions over 1), while a GPU driver's copy path may be
 * the faster one.  *how says which one won.  Returns 0 when it cannot be
 * measured. */
static double measure_copy_bw(kfcl_device *d, cl_ulong global_mem, const char **how)
{
    *how = "";
    const char *off = getenv("KFORGE_OPENCL_MEASURE_BW");
    if (off && strcmp(off, "0") == 0) return 0;
    size_t bytes = (size_t)64 << 20;
    if (global_mem && (cl_ulong)bytes * 4 > global_mem) return 0;
    if (kfcl_device_open(d, NULL) != KF_OK) return 0;
    cl_int e1, e2;
    cl_mem a = clCreateBuffer(d->ctx, CL_MEM_READ_WRITE, bytes, NULL, &e1);
    cl_mem b = clCreateBuffer(d->ctx, CL_MEM_READ_WRITE, bytes, NULL, &e2);
    cl_program prog = NULL;
    cl_kernel k = NULL;
    double best = 0;
    if (a && b) {
        cl_uchar zero = 0;
        if (clEnqueueFillBuffer(d->queue, a, &zero, 1, 0, bytes, 0, NULL, NULL) == CL_SUCCESS &&
            clEnqueueFillBuffer(d->queue, b, &zero, 1, 0, bytes, 0, NULL, NULL) == CL_SUCCESS &&
            clFinish(d->queue) == CL_SUCCESS) {
            k = copy_kernel(d, &prog);
            if (k && (clSetKernelArg(k, 0, sizeof a, &a) != CL_SUCCESS ||
                      clSetKernelArg(k, 1, sizeof b, &b) != CL_SUCCESS)) {
                clReleaseKernel(k);
                k = NULL;
            }
            for (int way = 0; way < 2; way++) {
                if (way == 1 && !k) break;
                double t0 = now_s();   /* the budget starts after the fills and the build */
                for (int i = 0; i < 4 && (i == 0 || now_s() - t0 < 0.15); i++) {
                    cl_event ev = NULL;
                    size_t global = bytes / 16;
                    cl_int rc = way == 0 ? clEnqueueCopyBuffer(d->queue, a, b, 0, 0, bytes, 0, NULL, &ev)
                                         : clEnqueueNDRangeKernel(d->queue, k, 1, NULL, &global, NULL, 0, NULL, &ev);
                    if (rc != CL_SUCCESS) break;
                    double t = event_seconds(ev);
                    if (t <= 0) break;
                    double bw = 2.0 * (double)bytes / t;
                    if (bw > best) {
                        best = bw;
                        *how = way == 0 ? "clEnqueueCopyBuffer" : "a float4 copy kernel";
                    }
                }
            }
        }
    }
    if (k) clReleaseKernel(k);
    if (prog) clReleaseProgram(prog);
    if (a) clReleaseMemObject(a);
    if (b) clReleaseMemObject(b);
    return best;
}

/* FP32 lanes per compute unit, by vendor; *why says what was assumed. */
static double lanes_per_cu(const kfcl_device *d, cl_uint vec_width, const char **why)
{
    cl_uint vendor_id = 0;
    clGetDeviceInfo(d->id, CL_DEVICE_VENDOR_ID, sizeof vendor_id, &vendor_id, NULL);
    if (d->type & CL_DEVICE_TYPE_CPU) {
        *why = "SIMD width x 2 FMA pipes per core";
        return (double)(vec_width ? vec_width : 4) * 2.0;
    }
    if (vendor_id == 0x10DE || strstr(d->vendor, "NVIDIA")) {
        *why = "128 FP32 lanes per SM (Ampere/Ada/Hopper)";
        return 128;
    }
    if (vendor_id == 0x1002 || strstr(d->vendor, "Advanced Micro") || strstr(d->vendor, "AMD")) {
        *why = "64 FP32 lanes per CU";
        return 64;
    }
    if (vendor_id == 0x8086 || strstr(d->vendor, "Intel")) {
        *why = "8 FP32 lanes per EU";
        return 8;
    }
    *why = "native float vector width per compute unit";
    return vec_width ? vec_width : 1;
}

/* cl_nv_device_attribute_query (cl_ext.h spells them where it is new enough) */
#ifndef CL_DEVICE_COMPUTE_CAPABILITY_MAJOR_NV
#define CL_DEVICE_COMPUTE_CAPABILITY_MAJOR_NV 0x4000
#define CL_DEVICE_COMPUTE_CAPABILITY_MINOR_NV 0x4001
#endif
#ifndef CL_DEVICE_WARP_SIZE_NV
#define CL_DEVICE_WARP_SIZE_NV 0x4003
#endif

/* An NVIDIA device's compute capability (major * 10 + minor) and warp
 * size, from the cl_nv_device_attribute_query extension; 0 for any other
 * device or when the driver does not answer. */
static int nv_compute_capability(const kfcl_device *d, int *warp)
{
    *warp = 0;
    cl_uint vendor_id = 0;
    clGetDeviceInfo(d->id, CL_DEVICE_VENDOR_ID, sizeof vendor_id, &vendor_id, NULL);
    if (!(d->type & CL_DEVICE_TYPE_GPU) || (vendor_id != 0x10DE && !strstr(d->vendor, "NVIDIA"))) return 0;
    char ext[8192];
    ext[0] = 0;
    if (clGetDeviceInfo(d->id, CL_DEVICE_EXTENSIONS, sizeof ext, ext, NULL) != CL_SUCCESS) ext[0] = 0;
    ext[sizeof ext - 1] = 0;
    if (!strstr(ext, "cl_nv_device_attribute_query")) return 0;
    cl_uint maj = 0, min = 0, w = 0;
    if (clGetDeviceInfo(d->id, CL_DEVICE_COMPUTE_CAPABILITY_MAJOR_NV, sizeof maj, &maj, NULL) != CL_SUCCESS ||
        clGetDeviceInfo(d->id, CL_DEVICE_COMPUTE_CAPABILITY_MINOR_NV, sizeof min, &min, NULL) != CL_SUCCESS)
        return 0;
    if (clGetDeviceInfo(d->id, CL_DEVICE_WARP_SIZE_NV, sizeof w, &w, NULL) == CL_SUCCESS) *warp = (int)w;
    return (int)(maj * 10 + min);
}

static const char *type_name(cl_device_type t)
{
    if (t & CL_DEVICE_TYPE_GPU) return "gpu";
    if (t & CL_DEVICE_TYPE_CPU) return "cpu";
    return "accelerator";
}

static void human_bytes(cl_ulong b, char *dst, size_t len)
{
    if (b >= ((cl_ulong)1 << 30)) snprintf(dst, len, "%.1f GiB", (double)b / (1 << 30));
    else if (b >= ((cl_ulong)1 << 20)) snprintf(dst, len, "%.1f MiB", (double)b / (1 << 20));
    else snprintf(dst, len, "%.0f KiB", (double)b / 1024);
}

static void describe(kfcl_device *d, int index, kf_device_info *out, int measure)
{
    uint32_t size = out->struct_size;
    memset(out, 0, sizeof *out);
    out->struct_size = size;
    snprintf(out->name, sizeof out->name, "%s", d->name);
    snprintf(out->kind, sizeof out->kind, "%s", type_name(d->type));

    cl_uint cu = 0, mhz = 0, native = 0, pref = 0;
    cl_ulong gmem = 0;
    char cver[KF_NAME_MAX], gm[32], lm[32];
    clGetDeviceInfo(d->id, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof cu, &cu, NULL);
    clGetDeviceInfo(d->id, CL_DEVICE_MAX_CLOCK_FREQUENCY, sizeof mhz, &mhz, NULL);
    clGetDeviceInfo(d->id, CL_DEVICE_NATIVE_VECTOR_WIDTH_FLOAT, sizeof native, &native, NULL);
    clGetDeviceInfo(d->id, CL_DEVICE_PREFERRED_VECTOR_WIDTH_FLOAT, sizeof pref, &pref, NULL);
    clGetDeviceInfo(d->id, CL_DEVICE_GLOBAL_MEM_SIZE, sizeof gmem, &gmem, NULL);
    dev_str(d->id, CL_DEVICE_OPENCL_C_VERSION, cver, sizeof cver);
    human_bytes(gmem, gm, sizeof gm);
    human_bytes(d->local_mem, lm, sizeof lm);

    const char *lanes_why = "";
    double lanes = lanes_per_cu(d, native > pref ? native : pref, &lanes_why);
    double fp32_peak = (double)cu * (double)mhz * 1e6 * 2.0 * lanes;
    out->peak_flops = fp32_peak;
    out->peak_flops_measured = 0;

    out->compute_units = (int)cu;
    out->max_work_group = (int)d->max_work_group;
    out->local_mem_per_group = (int64_t)d->local_mem;
    out->local_mem_per_group_optin = (int64_t)d->local_mem;
    /* NVIDIA: the architecture; from compute capability 8.0 on, NVIDIA's
     * OpenCL compiler takes inline-PTX mma.sync, which reaches the tensor
     * cores (the built-in agent's TF32 point, ocl_gemm_ptx.c): reported as
     * TF32 and BF16 matrix units */
    int warp = 0, cc = nv_compute_capability(d, &warp);
    char nvtext[320] = "";
    if (cc > 0 && size >= offsetof(kf_device_info, matrix_units) + sizeof out->matrix_units) {
        snprintf(out->arch, sizeof out->arch, "sm_%d", cc);
        out->warp_size = warp;
        if (cc >= 80) out->matrix_units = KF_MU_TF32 | KF_MU_BF16;
        snprintf(nvtext, sizeof nvtext, "; NVIDIA compute capability %d.%d, warp %d%s", cc / 10, cc % 10, warp,
                 cc >= 80 ? ", tensor cores through inline-PTX mma.sync (TF32, BF16)" : "");
        /* the peak bounds every candidate, tensor-core ones included (a
           faster one is judged a measurement error): the dense BF16 rate,
           as the cuda plugin counts it (TF32 FLOP per clock per SM: 2048
           on sm_90, 1024 on sm_80, 512 on sm_86/89; BF16 twice that) */
        int tf32_clk = cc >= 90 ? 2048 : cc == 80 ? 1024 : cc >= 80 ? 512 : 0;
        double bf16 = 2.0 * (double)cu * (double)mhz * 1e6 * tf32_clk;
        if (bf16 > out->peak_flops) {
            out->peak_flops = bf16;
            size_t used = strlen(nvtext);
            snprintf(nvtext + used, sizeof nvtext - used, "; peak raised to dense BF16 tensor cores: %.1f TFLOP/s "
                     "(CU x MHz x %d; TF32 half that)", bf16 * 1e-12, 2 * tf32_clk);
        }
    }

    const char *bw_how = "";
    double bw = measure ? measure_copy_bw(d, gmem, &bw_how) : 0;
    out->peak_bytes_per_s = bw;
    out->peak_bw_measured = bw > 0;
    if (d->type & CL_DEVICE_TYPE_CPU)
        out->cache_bytes_per_s = (double)cu * (double)mhz * 1e6 * 128.0;
    else
        out->cache_bytes_per_s = 20.0 * bw;

    char bwtext[160];
    if (bw > 0)
        snprintf(bwtext, sizeof bwtext, "%.1f GB/s measured (64 MiB, read+write; the faster of "
                 "clEnqueueCopyBuffer and a copy kernel: %s)", bw * 1e-9, bw_how);
    else
        snprintf(bwtext, sizeof bwtext, measure ? "unknown (not measured)"
                                                : "measured separately (kforge caches it per device)");
    char big[4096];
    snprintf(big, sizeof big,
             "opencl device %d: platform '%s' (%s), vendor '%s', driver %s; type %s, "
             "%u compute units at %u MHz, %s; global memory %s, local memory %s, "
             "max work-group %zu, base address alignment %u bytes; "
             "FP32 peak %.1f GFLOP/s estimated (%u CU x %u MHz x 2 x %.0f lanes: %s); "
             "bandwidth %s%s",
             index, d->platform_name, d->platform_version, d->vendor, d->driver_version,
             out->kind, cu, mhz, cver, gm, lm, d->max_work_group, d->align_bytes,
             fp32_peak * 1e-9, cu, mhz, lanes, lanes_why, bwtext, nvtext);
    size_t len = strlen(big);   /* a truncated detail is still useful */
    if (len >= sizeof out->detail) len = sizeof out->detail - 1;
    memcpy(out->detail, big, len);
    out->detail[len] = 0;
}

kf_status kfcl_probe(kf_device_info *devs, int max, int *n, char *why, size_t why_len)
{
    kfcl_device *all;
    int count;
    *n = 0;
    kf_status st = kfcl_devices(&all, &count, why, why_len);
    if (st != KF_OK) return st;
    for (int i = 0; i < count && i < max; i++) describe(&all[i], i, &devs[i], 1);
    *n = count < max ? count : max;
    return KF_OK;
}

kf_status kfcl_list(kf_device_info *devs, size_t dev_size, int max, int *n, char *why, size_t why_len)
{
    kfcl_device *all;
    int count;
    *n = 0;
    kf_status st = kfcl_devices(&all, &count, why, why_len);
    if (st != KF_OK) return st;
    for (int i = 0; i < count && i < max; i++)
        describe(&all[i], i, (kf_device_info *)(void *)((char *)devs + (size_t)i * dev_size), 0);
    *n = count < max ? count : max;
    return KF_OK;
}

kf_status kfcl_measure(int device, kf_device_info *dev, char *why, size_t why_len)
{
    kfcl_device *all;
    int count;
    kf_status st = kfcl_devices(&all, &count, why, why_len);
    if (st != KF_OK) return st;
    if (device < 0 || device >= count) {
        snprintf(why, why_len, "no OpenCL device %d", device);
        return KF_ERR_INVALID;
    }
    kf_device_info m;
    m.struct_size = (uint32_t)sizeof m;
    describe(&all[device], device, &m, 1);
    dev->peak_flops = m.peak_flops;
    dev->peak_flops_measured = m.peak_flops_measured;
    dev->peak_bytes_per_s = m.peak_bytes_per_s;
    dev->peak_bw_measured = m.peak_bw_measured;
    dev->cache_bytes_per_s = m.cache_bytes_per_s;
    return KF_OK;
}
