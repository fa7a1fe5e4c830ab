/* Standalone probe: does NVIDIA's OpenCL compiler accept inline-PTX mma.sync, and is it right? */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static cl_context ctx; static cl_command_queue q; static cl_device_id dev;
#define CK(x) do { cl_int e_ = (x); if (e_ != CL_SUCCESS) { printf("FAIL %s = %d at line %d\n", #x, e_, __LINE__); exit(1); } } while (0)

static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + 1e-9 * t.tv_nsec; }
static unsigned long long rs = 88172645463325252ull;
static float rnd(void) { rs ^= rs << 13; rs ^= rs >> 7; rs ^= rs << 17; return (float)((rs >> 11) * (1.0 / 9007199254740992.0)) * 2.0f - 1.0f; }

static int run(cl_program prog, const char *kname, int M, int N, int K, int tile_m, int tile_n, int local, double tol, int time_it)
{
    size_t sa = (size_t)M * K, sb = (size_t)N * K, sc = (size_t)M * N;
    float *A = malloc(sa * 4), *B = malloc(sb * 4), *C = malloc(sc * 4);
    for (size_t i = 0; i < sa; i++) A[i] = rnd();
    for (size_t i = 0; i < sb; i++) B[i] = rnd();
    for (size_t i = 0; i < sc; i++) C[i] = NAN;
    cl_int e;
    cl_mem dA = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sa * 4, A, &e); CK(e);
    cl_mem dB = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sb * 4, B, &e); CK(e);
    cl_mem dC = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sc * 4, C, &e); CK(e);
    cl_kernel k = clCreateKernel(prog, kname, &e); CK(e);
    CK(clSetKernelArg(k, 0, sizeof dA, &dA)); CK(clSetKernelArg(k, 1, sizeof dB, &dB)); CK(clSetKernelArg(k, 2, sizeof dC, &dC));
    CK(clSetKernelArg(k, 3, 4, &M)); CK(clSetKernelArg(k, 4, 4, &N)); CK(clSetKernelArg(k, 5, 4, &K));
    size_t gl[2] = {(size_t)((N + tile_n - 1) / tile_n) * local, (size_t)((M + tile_m - 1) / tile_m)};
    size_t lo[2] = {(size_t)local, 1};
    CK(clEnqueueNDRangeKernel(q, k, 2, NULL, gl, lo, 0, NULL, NULL));
    CK(clFinish(q));
    CK(clEnqueueReadBuffer(q, dC, CL_TRUE, 0, sc * 4, C, 0, NULL, NULL));
    /* check a sample of elements (all when small) against a double reference */
    double maxerr = 0, maxref = 0; size_t step = sc > 200000 ? sc / 200000 + 1 : 1, nan = 0;
    for (size_t idx = 0; idx < sc; idx += step) {
        size_t m = idx / N, n = idx % N; double r = 0;
        for (int kk = 0; kk < K; kk++) r += (double)A[m * K + kk] * B[n * K + kk];
        if (!isfinite(C[idx])) nan++;
        double d = fabs(C[idx] - r); if (d > maxerr || !isfinite(d)) maxerr = isfinite(d) ? d : INFINITY;
        if (fabs(r) > maxref) maxref = fabs(r);
    }
    double rel = maxerr / (maxref > 0 ? maxref : 1);
    printf("%s M=%d N=%d K=%d: max abs err %.3g, max |ref| %.3g, rel %.3g, non-finite %zu -> %s\n", kname, M, N, K,
           maxerr, maxref, rel, nan, rel < tol && nan == 0 ? "PASS" : "FAIL");
    int ok = rel < tol && nan == 0;
    if (time_it) {
        double ts[20];
        for (int w = 0; w < 3; w++) CK(clEnqueueNDRangeKernel(q, k, 2, NULL, gl, lo, 0, NULL, NULL));
        CK(clFinish(q));
        for (int r = 0; r < 20; r++) {
            double t0 = now();
            CK(clEnqueueNDRangeKernel(q, k, 2, NULL, gl, lo, 0, NULL, NULL)); CK(clFinish(q));
            ts[r] = now() - t0;
        }
        for (int i = 0; i < 20; i++) for (int j = i + 1; j < 20; j++) if (ts[j] < ts[i]) { double t = ts[i]; ts[i] = ts[j]; ts[j] = t; }
        double med = 0.5 * (ts[9] + ts[10]);
        printf("%s M=%d N=%d K=%d: median of 20 (host clock, launch+finish) %.3f ms, %.1f TFLOP/s\n", kname, M, N, K,
               med * 1e3, 2.0 * M * N * K / med / 1e12);
    }
    clReleaseKernel(k); clReleaseMemObject(dA); clReleaseMemObject(dB); clReleaseMemObject(dC);
    free(A); free(B); free(C);
    return ok;
}

int main(int argc, char **argv)
{
    const char *path = argc > 1 ? argv[1] : "tc.cl";
    FILE *f = fopen(path, "rb"); if (!f) { perror(path); return 1; }
    static char src[1 << 20]; size_t n = fread(src, 1, sizeof src - 1, f); src[n] = 0; fclose(f);
    cl_platform_id plats[8]; cl_uint np = 0; CK(clGetPlatformIDs(8, plats, &np));
    int found = 0;
    for (cl_uint p = 0; p < np && !found; p++) {
        cl_uint nd = 0;
        if (clGetDeviceIDs(plats[p], CL_DEVICE_TYPE_GPU, 1, &dev, &nd) == CL_SUCCESS && nd) found = 1;
    }
    if (!found) { printf("no OpenCL GPU\n"); return 1; }
    char s[256], v[256], dv[256], ver[256];
    clGetDeviceInfo(dev, CL_DEVICE_NAME, sizeof s, s, NULL); clGetDeviceInfo(dev, CL_DEVICE_VENDOR, sizeof v, v, NULL);
    clGetDeviceInfo(dev, CL_DRIVER_VERSION, sizeof dv, dv, NULL); clGetDeviceInfo(dev, CL_DEVICE_VERSION, sizeof ver, ver, NULL);
    printf("device: %s | vendor: %s | driver %s | %s\n", s, v, dv, ver);
    cl_int e;
    ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &e); CK(e);
    q = clCreateCommandQueue(ctx, dev, 0, &e); CK(e);
    const char *ss = src;
    cl_program prog = clCreateProgramWithSource(ctx, 1, &ss, NULL, &e); CK(e);
    const char *opts = argc > 2 ? argv[2] : "";
    e = clBuildProgram(prog, 1, &dev, opts, NULL, NULL);
    size_t ll = 0; clGetProgramBuildInfo(prog, dev, CL_PROGRAM_BUILD_LOG, 0, NULL, &ll);
    char *log = calloc(ll + 1, 1); clGetProgramBuildInfo(prog, dev, CL_PROGRAM_BUILD_LOG, ll, log, NULL);
    printf("clBuildProgram(%s) = %d; build log (%zu bytes):\n%s\n", opts, e, ll, log);
    if (e != CL_SUCCESS) return 2;
    size_t bs = 0; clGetProgramInfo(prog, CL_PROGRAM_BINARY_SIZES, sizeof bs, &bs, NULL);
    unsigned char *bin = malloc(bs + 1); unsigned char *bins[1] = {bin};
    clGetProgramInfo(prog, CL_PROGRAM_BINARIES, sizeof bins, bins, NULL); bin[bs] = 0;
    FILE *pf = fopen(argc > 3 ? argv[3] : "tc.ptx", "wb"); if (pf) { fwrite(bin, 1, bs, pf); fclose(pf); }
    for (char *l = strtok((char *)bin, "\n"); l; l = strtok(NULL, "\n"))
        if (!strncmp(l, ".version", 8) || !strncmp(l, ".target", 7)) printf("PTX: %s\n", l);
    int ok = 1;
    ok &= run(prog, "gemm_tf32", 512, 512, 512, 128, 128, 256, 2e-3, 0);
    ok &= run(prog, "gemm_tf32", 300, 200, 100, 128, 128, 256, 2e-3, 0);
    ok &= run(prog, "gemm_bf16_probe", 256, 256, 256, 16, 8, 32, 2e-2, 0);
    ok &= run(prog, "gemm_tf32", 1024, 8192, 8192, 128, 128, 256, 2e-3, 1);
    printf("overall: %s\n", ok ? "PASS" : "FAIL");
    return ok ? 0 : 3;
}
