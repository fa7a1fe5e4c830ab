/*
 * ocl_export.c — the opencl plugin's export_files (kforge-plugin.h, ABI
 * 1.4): what `kforge export` writes for an OpenCL C kernel plan.
 *
 *   --to c      NAME.h, NAME.c (the program text embedded; NAME_open builds
 *               it on a device of the host's OpenCL and binds every argument
 *               of the plan, NAME_run copies the inputs in, runs the
 *               launches in order and copies the outputs back), example.c
 *               and a Makefile (links -lOpenCL);
 *   --to torch  _opencl.py, the package's caller (export/kf_torch_opencl.py,
 *               embedded at build time as ocl-export-torch.c): the host's
 *               libOpenCL through ctypes.
 *
 * The plan is the one verified at the run's preset: every size and argument
 * resolved.  Nothing here touches a device or a file: the core writes what
 * this returns.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ocl.h"

extern const char kfcl_torch_caller_text[];   /* ocl-export-torch.c */

/* What the writers read: the request's views. */
typedef struct xp {
    const char *ident, *preset;
    const kf_problem_view *pv;
    const kf_candidate_view *cv;
    const char *const *const *arg_exprs;
} xp;

static const kf_launch *launch_at(const xp *x, int li)
{
    return KF_AT(kf_launch, x->cv->launches, x->cv->launch_size, li);
}

static const kf_source *source_at(const xp *x, int i)
{
    return KF_AT(kf_source, x->cv->sources, x->cv->source_size, i);
}

/* The plan's expression of an argument ("K"), for messages; "" when none
 * or when it could not sit in a C string as is. */
static const char *arg_expr(const xp *x, int li, int a)
{
    const char *e = x->arg_exprs && x->arg_exprs[li] ? x->arg_exprs[li][a] : NULL;
    return e && !strpbrk(e, "\"\\") ? e : "";
}

static void c_string(FILE *b, const char *text)
{
    fputs("    \"", b);
    for (const unsigned char *p = (const unsigned char *)text; *p; p++) {
        if (*p == '\n') fputs(p[1] ? "\\n\"\n    \"" : "\\n", b);
        else if (*p == '\\' || *p == '"') fprintf(b, "\\%c", *p);
        else if (*p == '?') fputs("\\?", b);                /* no trigraphs */
        else if (*p < 0x20 || *p >= 0x7f) fprintf(b, "\\%03o", *p);
        else fputc(*p, b);
    }
    fputs("\"", b);
}

static const char *out_name(const xp *x, int i)
{
    return x->pv->output_names[i];
}

/* "const float *x, const float *W, float *y" */
static void params(const xp *x, FILE *b)
{
    for (int i = 0; i < x->pv->n_inputs; i++) fprintf(b, "%sconst float *%s", i ? ", " : "", x->pv->input_names[i]);
    for (int i = 0; i < x->pv->n_outputs; i++)
        fprintf(b, "%sfloat *%s", i || x->pv->n_inputs ? ", " : "", out_name(x, i));
}

static void header(const xp *x, FILE *b)
{
    const char *id = x->ident;
    fprintf(b, "/* %s.h — kforge export of problem '%s' (OpenCL C kernel plan, backend %s, preset '%s').\n",
            id, x->pv->name, x->cv->backend ? x->cv->backend : "?", x->preset);
    fprintf(b, " * The kernel was verified at these sizes only:");
    for (int d = 0; d < x->pv->n_dims; d++) fprintf(b, " %s=%lld", x->pv->dim_names[d], (long long)x->pv->dim_values[d]);
    fprintf(b, ".\n"
        " * Tensors are row-major float32 host arrays; they are copied to the device\n"
        " * and the outputs back.  `device` numbers the OpenCL devices of all\n"
        " * platforms in order (as kforge's opencl backend and `clinfo -l` do); < 0:\n"
        " * $KFORGE_OPENCL_DEVICE, else 0.  Link with -lOpenCL. */\n");
    fprintf(b, "#ifndef %s_H\n#define %s_H\n\n#include <stddef.h>\n\n", id, id);
    for (int d = 0; d < x->pv->n_dims; d++)
        fprintf(b, "#define %s_%s %lld\n", id, x->pv->dim_names[d], (long long)x->pv->dim_values[d]);
    fprintf(b, "\n");
    for (int i = 0; i < x->pv->n_inputs; i++)
        fprintf(b, "#define %s_%s_ELEMS %lld\n", id, x->pv->input_names[i], (long long)x->pv->input_elems[i]);
    for (int i = 0; i < x->pv->n_outputs; i++)
        fprintf(b, "#define %s_%s_ELEMS %lld\n", id, out_name(x, i),
                (long long)x->pv->output_elems[i]);
    fprintf(b, "\ntypedef struct %s_ctx %s_ctx;\n\n", id, id);
    fprintf(b, "/* Builds the program on the device and binds the plan's arguments; NULL\n"
               " * with a one-line message in err (err_len bytes) on failure. */\n"
               "%s_ctx *%s_open(int device, char *err, size_t err_len);\n", id, id);
    fprintf(b, "/* Runs the plan once: 0, or -1 with a message in err. */\nint %s_run(%s_ctx *k, ", id, id);
    params(x, b);
    fprintf(b, ", char *err, size_t err_len);\nvoid %s_close(%s_ctx *k);\n", id, id);
    fprintf(b, "/* Open, run, close: 0, or -1 with the message on stderr. */\nint %s(", id);
    params(x, b);
    fprintf(b, ", int device);\n\n#endif\n");
}

static void set_args(const xp *x, FILE *b)
{
    for (int li = 0; li < x->cv->n_launches; li++) {
        const kf_launch *l = launch_at(x, li);
        for (int a = 0; a < l->n_args; a++) {
            const kf_arg *g = &l->args[a];
            const char *what = arg_expr(x, li, a);
            fprintf(b, "    if (e == CL_SUCCESS) { ");
            switch (g->kind) {
            case KF_ARG_INPUT: case KF_ARG_OUTPUT: case KF_ARG_SCRATCH:
                fprintf(b, "e = clSetKernelArg(k->k[%d], %d, sizeof(cl_mem), &k->%s[%d]);", li, a,
                        g->kind == KF_ARG_INPUT ? "in" : g->kind == KF_ARG_OUTPUT ? "out" : "scratch", g->index);
                break;
            case KF_ARG_INT:
                fprintf(b, "cl_int v = %lld; e = clSetKernelArg(k->k[%d], %d, sizeof v, &v);", (long long)g->ival, li, a);
                break;
            case KF_ARG_LONG:
                fprintf(b, "cl_long v = %lldLL; e = clSetKernelArg(k->k[%d], %d, sizeof v, &v);", (long long)g->ival, li, a);
                break;
            case KF_ARG_FLOAT:   /* a double literal (2.0 prints "2"), or the macro of an infinity/NaN */
                if (isfinite(g->fval)) fprintf(b, "cl_float v = (cl_float)%.17g;", g->fval);
                else fprintf(b, "cl_float v = %s;", isnan(g->fval) ? "NAN" : g->fval > 0 ? "INFINITY" : "-INFINITY");
                fprintf(b, " e = clSetKernelArg(k->k[%d], %d, sizeof v, &v);", li, a);
                break;
            case KF_ARG_LOCAL:
                fprintf(b, "e = clSetKernelArg(k->k[%d], %d, %lld, NULL);", li, a, (long long)g->bytes);
                break;
            case KF_ARG_TENSOR_MAP:   /* core refuses to export a plan with tensor maps (cuda only) */
                fprintf(b, "e = CL_INVALID_ARG_VALUE;");
                break;
            }
            fprintf(b, " where = \"launch %d (%s) arg %d %s\"; }\n", li, l->kernel, a, what);
        }
    }
}

static void source(const xp *x, FILE *b)
{
    const char *id = x->ident;
    int ni = x->pv->n_inputs, no = x->pv->n_outputs, ns = x->pv->n_scratch, nl = x->cv->n_launches;
    fprintf(b, "/* %s.c — builds and runs the exported OpenCL C kernel plan (kforge export). */\n"
               "#define CL_TARGET_OPENCL_VERSION 120\n#define CL_USE_DEPRECATED_OPENCL_1_2_APIS\n"
               "#include <CL/cl.h>\n#include <math.h>\n#include <stdarg.h>\n#include <stdio.h>\n#include <stdlib.h>\n"
               "#include <string.h>\n#include \"%s.h\"\n\n", id, id);
    for (int i = 0; i < x->cv->n_sources; i++) {
        fprintf(b, "/* %s */\nstatic const char src_%d[] =\n", source_at(x, i)->name, i);
        c_string(b, source_at(x, i)->text);
        fprintf(b, ";\n");
    }
    fprintf(b, "static const char *const sources[] = {");
    for (int i = 0; i < x->cv->n_sources; i++) fprintf(b, "%ssrc_%d", i ? ", " : "", i);
    fprintf(b, "};\nstatic const char build_options[] =\n");
    c_string(b, x->cv->build_options);
    fprintf(b, ";\nstatic const char *const kernel_names[%d] = {", nl);
    for (int li = 0; li < nl; li++) fprintf(b, "%s\"%s\"", li ? ", " : "", launch_at(x, li)->kernel);
    fprintf(b, "};\nstatic const cl_uint work_dim[%d] = {", nl);
    for (int li = 0; li < nl; li++) fprintf(b, "%s%d", li ? ", " : "", launch_at(x, li)->work_dim);
    fprintf(b, "};\nstatic const size_t global_size[%d][3] = {", nl);
    for (int li = 0; li < nl; li++) {
        const kf_launch *l = launch_at(x, li);
        fprintf(b, "%s{%lld, %lld, %lld}", li ? ", " : "", (long long)l->global[0], (long long)l->global[1],
                (long long)l->global[2]);
    }
    fprintf(b, "};\n/* {0, 0, 0}: the runtime chooses */\nstatic const size_t local_size[%d][3] = {", nl);
    for (int li = 0; li < nl; li++) {
        const kf_launch *l = launch_at(x, li);
        int64_t lc[3];
        for (int d = 0; d < 3; d++) lc[d] = !l->local[0] ? 0 : d < l->work_dim ? l->local[d] : 1;
        fprintf(b, "%s{%lld, %lld, %lld}", li ? ", " : "", (long long)lc[0], (long long)lc[1], (long long)lc[2]);
    }
    fprintf(b, "};\nstatic const size_t in_bytes[%d] = {", ni ? ni : 1);
    for (int i = 0; i < ni; i++) fprintf(b, "%s%lldu * 4", i ? ", " : "", (long long)x->pv->input_elems[i]);
    fprintf(b, "%s};\nstatic const size_t out_bytes[%d] = {", ni ? "" : "0", no);
    for (int i = 0; i < no; i++)
        fprintf(b, "%s%lldu * 4", i ? ", " : "", (long long)x->pv->output_elems[i]);
    fprintf(b, "};\nstatic const size_t scratch_bytes[%d] = {", ns ? ns : 1);
    for (int i = 0; i < ns; i++) fprintf(b, "%s%lld", i ? ", " : "", (long long)(x->pv->scratch_bytes[i] > 0 ? x->pv->scratch_bytes[i] : 4));
    fprintf(b, "%s};\n\n", ns ? "" : "0");
    fprintf(b,
        "struct %s_ctx {\n    cl_context ctx;\n    cl_command_queue q;\n    cl_program prog;\n"
        "    cl_kernel k[%d];\n    cl_mem in[%d], out[%d], scratch[%d];\n};\n\n", id, nl, ni ? ni : 1, no, ns ? ns : 1);
    fprintf(b,
        "static int fail(char *err, size_t n, const char *fmt, ...)\n{\n    va_list ap;\n    va_start(ap, fmt);\n"
        "    if (err && n) vsnprintf(err, n, fmt, ap);\n    va_end(ap);\n    return -1;\n}\n\n");
    fprintf(b,
        "static cl_device_id pick(int device, char *err, size_t n)\n{\n"
        "    const char *env = getenv(\"KFORGE_OPENCL_DEVICE\");\n"
        "    if (device < 0) device = env && *env ? atoi(env) : 0;\n"
        "    cl_platform_id plats[16];\n    cl_uint np = 0;\n    int seen = 0;\n"
        "    if (clGetPlatformIDs(16, plats, &np) != CL_SUCCESS) np = 0;\n"
        "    for (cl_uint p = 0; p < np && p < 16; p++) {\n"
        "        cl_device_id ids[64];\n        cl_uint nd = 0;\n"
        "        if (clGetDeviceIDs(plats[p], CL_DEVICE_TYPE_ALL, 64, ids, &nd) != CL_SUCCESS) continue;\n"
        "        for (cl_uint i = 0; i < nd && i < 64; i++)\n            if (seen++ == device) return ids[i];\n    }\n"
        "    fail(err, n, \"OpenCL device %%d: this host has %%d OpenCL device(s) (is an ICD installed in /etc/OpenCL/vendors?)\", device, seen);\n"
        "    return NULL;\n}\n\n");
    fprintf(b, "void %s_close(%s_ctx *k)\n{\n    if (!k) return;\n", id, id);
    fprintf(b, "    for (int i = 0; i < %d; i++) if (k->in[i]) clReleaseMemObject(k->in[i]);\n", ni);
    fprintf(b, "    for (int i = 0; i < %d; i++) if (k->out[i]) clReleaseMemObject(k->out[i]);\n", no);
    fprintf(b, "    for (int i = 0; i < %d; i++) if (k->scratch[i]) clReleaseMemObject(k->scratch[i]);\n", ns);
    fprintf(b, "    for (int i = 0; i < %d; i++) if (k->k[i]) clReleaseKernel(k->k[i]);\n"
               "    if (k->prog) clReleaseProgram(k->prog);\n    if (k->q) clReleaseCommandQueue(k->q);\n"
               "    if (k->ctx) clReleaseContext(k->ctx);\n    free(k);\n}\n\n", nl);
    fprintf(b,
        "%s_ctx *%s_open(int device, char *err, size_t err_len)\n{\n"
        "    cl_device_id dev = pick(device, err, err_len);\n    if (!dev) return NULL;\n"
        "    %s_ctx *k = calloc(1, sizeof *k);\n"
        "    if (!k) { fail(err, err_len, \"out of memory\"); return NULL; }\n"
        "    cl_int e = CL_SUCCESS;\n    const char *where = \"clCreateContext\";\n"
        "    k->ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &e);\n"
        "    if (e == CL_SUCCESS) { where = \"clCreateCommandQueue\"; k->q = clCreateCommandQueue(k->ctx, dev, 0, &e); }\n"
        "    if (e == CL_SUCCESS) {\n        where = \"clCreateProgramWithSource\";\n"
        "        k->prog = clCreateProgramWithSource(k->ctx, %d, (const char **)sources, NULL, &e);\n    }\n"
        "    if (e == CL_SUCCESS && (e = clBuildProgram(k->prog, 1, &dev, build_options, NULL, NULL)) != CL_SUCCESS) {\n"
        "        char log[2048] = \"\";\n"
        "        clGetProgramBuildInfo(k->prog, dev, CL_PROGRAM_BUILD_LOG, sizeof log - 1, log, NULL);\n"
        "        fail(err, err_len, \"clBuildProgram failed (%%d): %%s\", (int)e, log);\n"
        "        %s_close(k);\n        return NULL;\n    }\n"
        "    for (int i = 0; i < %d && e == CL_SUCCESS; i++) { where = kernel_names[i]; k->k[i] = clCreateKernel(k->prog, kernel_names[i], &e); }\n"
        "    for (int i = 0; i < %d && e == CL_SUCCESS; i++) { where = \"clCreateBuffer (input)\"; k->in[i] = clCreateBuffer(k->ctx, CL_MEM_READ_WRITE, in_bytes[i], NULL, &e); }\n"
        "    for (int i = 0; i < %d && e == CL_SUCCESS; i++) { where = \"clCreateBuffer (output)\"; k->out[i] = clCreateBuffer(k->ctx, CL_MEM_READ_WRITE, out_bytes[i], NULL, &e); }\n"
        "    for (int i = 0; i < %d && e == CL_SUCCESS; i++) { where = \"clCreateBuffer (scratch)\"; k->scratch[i] = clCreateBuffer(k->ctx, CL_MEM_READ_WRITE, scratch_bytes[i], NULL, &e); }\n",
        id, id, id, x->cv->n_sources, id, nl, ni, no, ns);
    set_args(x, b);
    fprintf(b,
        "    if (e != CL_SUCCESS) {\n        fail(err, err_len, \"%%s failed: OpenCL error %%d\", where, (int)e);\n"
        "        %s_close(k);\n        return NULL;\n    }\n    return k;\n}\n\n", id);
    fprintf(b, "int %s_run(%s_ctx *k, ", id, id);
    params(x, b);
    fprintf(b, ", char *err, size_t err_len)\n{\n    cl_int e = CL_SUCCESS;\n");
    for (int i = 0; i < ni; i++)
        fprintf(b, "    if (e == CL_SUCCESS) e = clEnqueueWriteBuffer(k->q, k->in[%d], CL_TRUE, 0, in_bytes[%d], %s, 0, NULL, NULL);\n",
                i, i, x->pv->input_names[i]);
    fprintf(b, "    if (e != CL_SUCCESS) return fail(err, err_len, \"clEnqueueWriteBuffer failed: OpenCL error %%d\", (int)e);\n"
               "    for (int i = 0; i < %d; i++) {\n"
               "        e = clEnqueueNDRangeKernel(k->q, k->k[i], work_dim[i], NULL, global_size[i],\n"
               "                                   local_size[i][0] ? local_size[i] : NULL, 0, NULL, NULL);\n"
               "        if (e != CL_SUCCESS) return fail(err, err_len, \"launch %%d (%%s): clEnqueueNDRangeKernel failed: OpenCL error %%d\", i, kernel_names[i], (int)e);\n"
               "    }\n", nl);
    for (int i = 0; i < no; i++)
        fprintf(b, "    if (e == CL_SUCCESS) e = clEnqueueReadBuffer(k->q, k->out[%d], CL_TRUE, 0, out_bytes[%d], %s, 0, NULL, NULL);\n",
                i, i, out_name(x, i));
    fprintf(b, "    if (e != CL_SUCCESS) return fail(err, err_len, \"reading the outputs back failed: OpenCL error %%d\", (int)e);\n"
               "    return 0;\n}\n\nint %s(", id);
    params(x, b);
    fprintf(b, ", int device)\n{\n    char err[2300] = \"\";\n    %s_ctx *k = %s_open(device, err, sizeof err);\n"
               "    int rc = k ? %s_run(k, ", id, id, id);
    for (int i = 0; i < ni; i++) fprintf(b, "%s, ", x->pv->input_names[i]);
    for (int i = 0; i < no; i++) fprintf(b, "%s, ", out_name(x, i));
    fprintf(b, "err, sizeof err) : -1;\n    if (rc != 0) fprintf(stderr, \"%s: %%s\\n\", err);\n"
               "    %s_close(k);\n    return rc;\n}\n", id, id);
}

static void example(const xp *x, FILE *b)
{
    const char *id = x->ident;
    int ni = x->pv->n_inputs, no = x->pv->n_outputs;
    fprintf(b, "/* example.c — calls %s() on uniform [0,1) inputs (device: argv[1], else\n"
               " * $KFORGE_OPENCL_DEVICE, else 0) and prints each output's sum. */\n", id);
    fprintf(b, "#include <stdio.h>\n#include <stdlib.h>\n#include \"%s.h\"\n\n", id);
    fprintf(b, "int main(int argc, char **argv)\n{\n    unsigned s = 1;\n    int device = argc > 1 ? atoi(argv[1]) : -1;\n");
    for (int i = 0; i < ni; i++) {
        const char *n = x->pv->input_names[i];
        fprintf(b, "    float *%s = malloc(%s_%s_ELEMS * sizeof(float));\n    if (!%s) return 1;\n"
                   "    for (long long i = 0; i < %s_%s_ELEMS; i++) { s = s * 1103515245u + 12345u; %s[i] = (float)(s >> 8) / 16777216.0f; }\n",
                n, id, n, n, id, n, n);
    }
    for (int i = 0; i < no; i++) {
        const char *n = out_name(x, i);
        fprintf(b, "    float *%s = malloc(%s_%s_ELEMS * sizeof(float));\n    if (!%s) return 1;\n", n, id, n, n);
    }
    fprintf(b, "    if (%s(", id);
    for (int i = 0; i < ni; i++) fprintf(b, "%s, ", x->pv->input_names[i]);
    for (int i = 0; i < no; i++) fprintf(b, "%s, ", out_name(x, i));
    fprintf(b, "device) != 0) return 1;\n");
    for (int i = 0; i < no; i++) {
        const char *n = out_name(x, i);
        fprintf(b, "    double sum_%d = 0;\n    for (long long i = 0; i < %s_%s_ELEMS; i++) sum_%d += %s[i];\n"
                   "    printf(\"%s: %%lld elements, sum %%.6g\\n\", (long long)%s_%s_ELEMS, sum_%d);\n",
                i, id, n, i, n, n, id, n, i);
    }
    for (int i = 0; i < ni; i++) fprintf(b, "    free(%s);\n", x->pv->input_names[i]);
    for (int i = 0; i < no; i++) fprintf(b, "    free(%s);\n", out_name(x, i));
    fprintf(b, "    return 0;\n}\n");
}

static void makefile(const xp *x, FILE *b)
{
    fprintf(b, "# Builds the exported OpenCL kernel plan's host code (the device compiles the\n"
               "# embedded OpenCL C when %s_open runs).\nCC ?= cc\nCFLAGS ?= -O2\nLDLIBS = -lOpenCL\n\n"
               "example: example.c %s.c %s.h\n\t$(CC) $(CFLAGS) -o $@ example.c %s.c $(LDLIBS)\n\n"
               "lib%s.so: %s.c %s.h\n\t$(CC) $(CFLAGS) -fPIC -shared -o $@ %s.c $(LDLIBS)\n\n"
               "clean:\n\trm -f example lib%s.so\n",
            x->ident, x->ident, x->ident, x->ident, x->ident, x->ident, x->ident, x->ident, x->ident);
}

typedef void (*writer)(const xp *x, FILE *b);

/* One file of the set: the writer's text into res.  0 or -1 (memory). */
static int add(kf_export_result *res, const char *name, writer w, const xp *x)
{
    char *text = NULL;
    size_t n = 0;
    FILE *b = open_memstream(&text, &n);
    if (!b) return -1;
    w(x, b);
    if (fclose(b) != 0) {
        free(text);
        return -1;
    }
    return kf_export_add(res, name, text);
}

kf_status kfcl_export(const kf_export_request *req, kf_export_result *res, char **error)
{
    xp x = {req->ident, req->preset, req->problem, req->candidate, req->arg_exprs};
    if (!strcmp(req->target, "torch")) {
        if (kf_export_add(res, "_opencl.py", kf_strf("%s", kfcl_torch_caller_text)) != 0 || !(res->caller = kf_strf("_opencl")))
            return kf_hook_fail(error, KF_ERR_NOMEM, "out of memory");
        return KF_OK;
    }
    if (strcmp(req->target, "c") != 0)
        return kf_hook_fail(error, KF_ERR_INVALID, "the opencl plugin exports --to c and --to torch, not '%s'", req->target);
    for (int i = 0; i < x.cv->n_sources; i++)
        if (source_at(&x, i)->format != KF_SRC_TEXT)
            return kf_hook_fail(error, KF_ERR_INVALID, "source '%s' is SPIR-V; --to c embeds OpenCL C program text only",
                                source_at(&x, i)->name);
    char *hn = NULL, *cn = NULL;
    kf_status st = KF_ERR_NOMEM;
    if (asprintf(&hn, "%s.h", x.ident) < 0) hn = NULL;
    if (asprintf(&cn, "%s.c", x.ident) < 0) cn = NULL;
    if (hn && cn && add(res, hn, header, &x) == 0 && add(res, cn, source, &x) == 0 &&
        add(res, "example.c", example, &x) == 0 && add(res, "Makefile", makefile, &x) == 0)
        st = KF_OK;
    free(hn);
    free(cn);
    return st == KF_OK ? KF_OK : kf_hook_fail(error, st, "out of memory");
}
