/*
 * ocl_il.c — programs from SPIR-V: a candidate whose one source is a
 * SPIR-V module (kernel.spv, e.g. what the levelzero backend's
 * compile-only makes) is loaded with clCreateProgramWithIL on devices that
 * report an IL version (OpenCL 2.1+) or with clCreateProgramWithILKHR
 * (cl_khr_il_program).  The plugin is built against the 1.2 headers, so
 * both are looked up at run time.
 */
#include "ocl.h"

#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#define KFCL_DEVICE_IL_VERSION 0x105B   /* CL_DEVICE_IL_VERSION (2.1), = CL_DEVICE_IL_VERSION_KHR */

typedef cl_program (*create_il_fn)(cl_context, const void *, size_t, cl_int *);

kf_status kfcl_program_from_il(kfcl_device *d, const kf_candidate_view *c, cl_program *prog, char **error)
{
    *prog = NULL;
    if (c->n_sources != 1)
        return kf_hook_fail(error, KF_ERR_INVALID, "a SPIR-V candidate is one module: %d sources given", c->n_sources);
    char il[256] = "", ext[8192] = "";
    clGetDeviceInfo(d->id, KFCL_DEVICE_IL_VERSION, sizeof il, il, NULL);
    il[sizeof il - 1] = '\0';
    clGetDeviceInfo(d->id, CL_DEVICE_EXTENSIONS, sizeof ext, ext, NULL);
    ext[sizeof ext - 1] = '\0';
    int khr = strstr(ext, "cl_khr_il_program") != NULL;
    if (!il[0] && !khr)
        return kf_hook_fail(error, KF_ERR_UNAVAILABLE,
                            "'%s' (%s) does not take SPIR-V: it reports no IL version (CL_DEVICE_IL_VERSION) and "
                            "no cl_khr_il_program; give the OpenCL C source, or use a runtime that takes SPIR-V "
                            "(Intel's OpenCL runtime, PyPI intel-opencl-rt)", d->name, d->platform_name);
    if (!strstr(il, "SPIR-V"))
        return kf_hook_fail(error, KF_ERR_UNAVAILABLE, "'%s' takes IL '%s', not SPIR-V", d->name, il);
    create_il_fn fn = NULL;
    if (khr) fn = (create_il_fn)clGetExtensionFunctionAddressForPlatform(d->platform, "clCreateProgramWithILKHR");
    if (!fn) fn = (create_il_fn)dlsym(RTLD_DEFAULT, "clCreateProgramWithIL");
    if (!fn)
        return kf_hook_fail(error, KF_ERR_UNAVAILABLE, "the OpenCL loader here has no clCreateProgramWithIL (an ICD "
                            "loader for OpenCL 2.1 or newer is needed to load SPIR-V)");
    cl_int e = CL_SUCCESS;
    *prog = fn(d->ctx, c->sources[0].text, c->sources[0].size, &e);
    if (!*prog)
        return kf_hook_fail(error, e == CL_INVALID_VALUE ? KF_ERR_COMPILE : KF_ERR_INTERNAL,
                            "clCreateProgramWithIL(%zu bytes of SPIR-V) on '%s' failed: %s (SPIR-V versions it "
                            "takes: %s)", c->sources[0].size, d->name, kfcl_err_name(e), il);
    return KF_OK;
}
