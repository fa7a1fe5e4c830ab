/* fake_libcuda.c — a stand-in for libcuda.so.1 with the driver API calls a
 * package of `kforge export --to torch` makes (its _cuda.py, the cuda
 * plugin's plugins/cuda/export/kf_torch_cuda.py),
 * for tests/torch/test_torch_import.sh on a machine without a GPU.  It runs
 * nothing on a device: cuModuleLoadData insists on an ELF image (NVRTC's
 * cubin), and cuLaunchKernel writes the launch to $FAKE_CUDA_LOG — grid,
 * block, dynamic shared bytes, stream, and the parameters of
 * tests/candidates/cuda/gemm_mul_leakyrelu's kernel (4 pointers, 3 ints, 2
 * floats), reading the first float behind each pointer (the "device"
 * pointers are host memory here) — then stores 42 in y[0]. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int CUresult;
static int depth;

static FILE *out(void)
{
    static FILE *f;
    const char *p = getenv("FAKE_CUDA_LOG");
    if (!f && p) f = fopen(p, "w");
    return f;
}

CUresult cuInit(unsigned flags) { (void)flags; return 0; }
CUresult cuDeviceGet(int *dev, int ordinal) { *dev = ordinal; return ordinal == 0 ? 0 : 101; }
CUresult cuDevicePrimaryCtxRetain(void **ctx, int dev) { (void)dev; *ctx = (void *)0x1000; return 0; }
CUresult cuCtxPushCurrent_v2(void *ctx) { depth++; return ctx == (void *)0x1000 ? 0 : 201; }
CUresult cuCtxPopCurrent_v2(void **ctx) { if (ctx) *ctx = (void *)0x1000; return depth-- > 0 ? 0 : 201; }
CUresult cuModuleLoadData(void **mod, const void *image)
{
    *mod = (void *)0x2000;
    return memcmp(image, "\177ELF", 4) == 0 ? 0 : 200;   /* CUDA_ERROR_INVALID_IMAGE */
}
CUresult cuModuleGetFunction(void **fn, void *mod, const char *name)
{
    *fn = (void *)0x3000;
    if (out()) fprintf(out(), "function %s\n", name);
    return mod == (void *)0x2000 && strcmp(name, "gemm_mul_lrelu") == 0 ? 0 : 500;
}
CUresult cuFuncGetAttribute(int *v, int attr, void *fn) { (void)fn; *v = attr == 0 ? 1024 : 0; return 0; }
CUresult cuFuncSetAttribute(void *fn, int attr, int v)
{
    (void)fn;
    if (out()) fprintf(out(), "attribute %d %d\n", attr, v);
    return 0;
}
CUresult cuLaunchKernel(void *fn, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                        unsigned shared, void *stream, void **params, void **extra)
{
    FILE *f = out();
    if (!f || fn != (void *)0x3000 || extra || depth != 1) return 1;
    fprintf(f, "grid %u %u %u block %u %u %u shared %u stream %#lx\n", gx, gy, gz, bx, by, bz, shared,
            (unsigned long)stream);
    for (int i = 0; i < 4; i++) {
        float *p = *(float **)params[i];
        if (i < 3) fprintf(f, "ptr %d first %.9g\n", i, p[0]);
    }
    fprintf(f, "ints %d %d %d floats %.9g %.9g\n", *(int *)params[4], *(int *)params[5], *(int *)params[6],
            *(float *)params[7], *(float *)params[8]);
    fflush(f);
    (*(float **)params[3])[0] = 42.0f;
    return 0;
}
CUresult cuGetErrorString(CUresult r, const char **s) { (void)r; *s = "fake driver error"; return 0; }
