/*
 * export_ocl_c.c — `kforge export --to c` for an OpenCL C kernel plan:
 * DIR/NAME.h, DIR/NAME.c (the program text embedded; NAME_open builds it
 * on a device of the host's OpenCL and binds every argument of the plan,
 * NAME_run copies the inputs in, runs the launches in order and copies the
 * outputs back), the kernel's sources for reference, DIR/example.c and
 * DIR/Makefile (links -lOpenCL).  The plan is the one verified at the run's
 * preset: every size and argument resolved (kf_bound).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export.h"
#include "util/error.h"
#include "util/fileio.h"
#include "util/strbuf.h"

void kf_exp_c_string(kf_sb *b, const char *text)
{
    kf_sb_puts(b, "    \"");
    for (const unsigned char *p = (const unsigned char *)text; *p; p++) {
        if (*p == '\n') kf_sb_puts(b, p[1] ? "\\n\"\n    \"" : "\\n");
        else if (*p == '\\' || *p == '"') kf_sb_printf(b, "\\%c", *p);
        else if (*p == '?') kf_sb_puts(b, "\\?");                /* no trigraphs */
        else if (*p < 0x20 || *p >= 0x7f) kf_sb_printf(b, "\\%03o", *p);
        else kf_sb_append(b, (const char *)p, 1);
    }
    kf_sb_puts(b, "\"");
}

static const char *out_name(const kf_exp_ctx *x, int i)
{
    return kf_problem_value_name(x->p, x->p->outputs[i]);
}

/* "const float *x, const float *W, float *y" */
static void params(const kf_exp_ctx *x, kf_sb *b)
{
    for (int i = 0; i < x->p->n_inputs; i++) kf_sb_printf(b, "%sconst float *%s", i ? ", " : "", x->p->inputs[i].name);
    for (int i = 0; i < x->p->n_outputs; i++)
        kf_sb_printf(b, "%sfloat *%s", i || x->p->n_inputs ? ", " : "", out_name(x, i));
}

static void header(const kf_exp_ctx *x, kf_sb *b)
{
    const char *id = x->ident;
    kf_sb_printf(b, "/* %s.h — kforge export of problem '%s' (OpenCL C kernel plan, backend %s, preset '%s').\n",
                 id, x->p->name, x->backend ? x->backend : "?", x->preset);
    kf_sb_printf(b, " * The kernel was verified at these sizes only:");
    for (int d = 0; d < x->p->n_dims; d++) kf_sb_printf(b, " %s=%lld", x->p->dim_names[d], (long long)x->r.dims[d]);
    kf_sb_printf(b, ".\n"
        " * Tensors are row-major float32 host arrays; they are copied to the device\n"
        " * and the outputs back.  `device` numbers the OpenCL devices of all\n"
        " * platforms in order (as kforge's opencl backend and `clinfo -l` do); < 0:\n"
        " * $KFORGE_OPENCL_DEVICE, else 0.  Link with -lOpenCL. */\n");
    kf_sb_printf(b, "#ifndef %s_H\n#define %s_H\n\n#include <stddef.h>\n\n", id, id);
    for (int d = 0; d < x->p->n_dims; d++)
        kf_sb_printf(b, "#define %s_%s %lld\n", id, x->p->dim_names[d], (long long)x->r.dims[d]);
    kf_sb_printf(b, "\n");
    for (int i = 0; i < x->p->n_inputs; i++)
        kf_sb_printf(b, "#define %s_%s_ELEMS %lld\n", id, x->p->inputs[i].name, (long long)kf_shape_elems(&x->r.shapes[i]));
    for (int i = 0; i < x->p->n_outputs; i++)
        kf_sb_printf(b, "#define %s_%s_ELEMS %lld\n", id, out_name(x, i),
                     (long long)kf_shape_elems(&x->r.shapes[x->p->outputs[i]]));
    kf_sb_printf(b, "\ntypedef struct %s_ctx %s_ctx;\n\n", id, id);
    kf_sb_printf(b, "/* Builds the program on the device and binds the plan's arguments; NULL\n"
                    " * with a one-line message in err (err_len bytes) on failure. */\n"
                    "%s_ctx *%s_open(int device, char *err, size_t err_len);\n", id, id);
    kf_sb_printf(b, "/* Runs the plan once: 0, or -1 with a message in err. */\nint %s_run(%s_ctx *k, ", id, id);
    params(x, b);
    kf_sb_printf(b, ", char *err, size_t err_len);\nvoid %s_close(%s_ctx *k);\n", id, id);
    kf_sb_printf(b, "/* Open, run, close: 0, or -1 with the message on stderr. */\nint %s(", id);
    params(x, b);
    kf_sb_printf(b, ", int device);\n\n#endif\n");
}

static void set_args(const kf_exp_ctx *x, kf_sb *b)
{
    for (int li = 0; li < x->b.view.n_launches; li++) {
        const kf_launch *l = &x->b.launches[li];
        for (int a = 0; a < l->n_args; a++) {
            const kf_arg *g = &l->args[a];
            const char *what = x->c->launches[li].args[a].text ? x->c->launches[li].args[a].text : "";
            if (strpbrk(what, "\"\\")) what = "";
            kf_sb_printf(b, "    if (e == CL_SUCCESS) { ");
            switch (g->kind) {
            case KF_ARG_INPUT: case KF_ARG_OUTPUT: case KF_ARG_SCRATCH:
                kf_sb_printf(b, "e = clSetKernelArg(k->k[%d], %d, sizeof(cl_mem), &k->%s[%d]);", li, a,
                             g->kind == KF_ARG_INPUT ? "in" : g->kind == KF_ARG_OUTPUT ? "out" : "scratch", g->index);
                break;
            case KF_ARG_INT:
                kf_sb_printf(b, "cl_int v = %lld; e = clSetKernelArg(k->k[%d], %d, sizeof v, &v);", (long long)g->ival, li, a);
                break;
            case KF_ARG_LONG:
                kf_sb_printf(b, "cl_long v = %lldLL; e = clSetKernelArg(k->k[%d], %d, sizeof v, &v);", (long long)g->ival, li, a);
                break;
            case KF_ARG_FLOAT:   /* a double literal (2.0 prints "2"), or the macro of an infinity/NaN */
                if (isfinite(g->fval)) kf_sb_printf(b, "cl_float v = (cl_float)%.17g;", g->fval);
                else kf_sb_printf(b, "cl_float v = %s;", isnan(g->fval) ? "NAN" : g->fval > 0 ? "INFINITY" : "-INFINITY");
                kf_sb_printf(b, " e = clSetKernelArg(k->k[%d], %d, sizeof v, &v);", li, a);
                break;
            case KF_ARG_LOCAL:
                kf_sb_printf(b, "e = clSetKernelArg(k->k[%d], %d, %lld, NULL);", li, a, (long long)g->bytes);
                break;
            }
            kf_sb_printf(b, " where = \"launch %d (%s) arg %d %s\"; }\n", li, l->kernel, a, what);
        }
    }
}

static void source(const kf_exp_ctx *x, kf_sb *b)
{
    const char *id = x->ident;
    int ni = x->p->n_inputs, no = x->p->n_outputs, ns = x->c->n_scratch, nl = x->b.view.n_launches;
    kf_sb_printf(b, "/* %s.c — builds and runs the exported OpenCL C kernel plan (kforge export). */\n"
                    "#define CL_TARGET_OPENCL_VERSION 120\n#define CL_USE_DEPRECATED_OPENCL_1_2_APIS\n"
                    "#include <CL/cl.h>\n#include <math.h>\n#include <stdarg.h>\n#include <stdio.h>\n#include <stdlib.h>\n"
                    "#include <string.h>\n#include \"%s.h\"\n\n", id, id);
    for (int i = 0; i < x->c->n_sources; i++) {
        kf_sb_printf(b, "/* %s */\nstatic const char src_%d[] =\n", x->c->sources[i].name, i);
        kf_exp_c_string(b, x->c->sources[i].text);
        kf_sb_printf(b, ";\n");
    }
    kf_sb_printf(b, "static const char *const sources[] = {");
    for (int i = 0; i < x->c->n_sources; i++) kf_sb_printf(b, "%ssrc_%d", i ? ", " : "", i);
    kf_sb_printf(b, "};\nstatic const char build_options[] =\n");
    kf_exp_c_string(b, x->c->build_options);
    kf_sb_printf(b, ";\nstatic const char *const kernel_names[%d] = {", nl);
    for (int li = 0; li < nl; li++) kf_sb_printf(b, "%s\"%s\"", li ? ", " : "", x->b.launches[li].kernel);
    kf_sb_printf(b, "};\nstatic const cl_uint work_dim[%d] = {", nl);
    for (int li = 0; li < nl; li++) kf_sb_printf(b, "%s%d", li ? ", " : "", x->b.launches[li].work_dim);
    kf_sb_printf(b, "};\nstatic const size_t global_size[%d][3] = {", nl);
    for (int li = 0; li < nl; li++) {
        const kf_launch *l = &x->b.launches[li];
        kf_sb_printf(b, "%s{%lld, %lld, %lld}", li ? ", " : "", (long long)l->global[0], (long long)l->global[1],
                     (long long)l->global[2]);
    }
    kf_sb_printf(b, "};\n/* {0, 0, 0}: the runtime chooses */\nstatic const size_t local_size[%d][3] = {", nl);
    for (int li = 0; li < nl; li++) {
        const kf_launch *l = &x->b.launches[li];
        int64_t lc[3];
        for (int d = 0; d < 3; d++) lc[d] = !l->local[0] ? 0 : d < l->work_dim ? l->local[d] : 1;
        kf_sb_printf(b, "%s{%lld, %lld, %lld}", li ? ", " : "", (long long)lc[0], (long long)lc[1], (long long)lc[2]);
    }
    kf_sb_printf(b, "};\nstatic const size_t in_bytes[%d] = {", ni ? ni : 1);
    for (int i = 0; i < ni; i++) kf_sb_printf(b, "%s%lldu * 4", i ? ", " : "", (long long)kf_shape_elems(&x->r.shapes[i]));
    kf_sb_printf(b, "%s};\nstatic const size_t out_bytes[%d] = {", ni ? "" : "0", no);
    for (int i = 0; i < no; i++)
        kf_sb_printf(b, "%s%lldu * 4", i ? ", " : "", (long long)kf_shape_elems(&x->r.shapes[x->p->outputs[i]]));
    kf_sb_printf(b, "};\nstatic const size_t scratch_bytes[%d] = {", ns ? ns : 1);
    for (int i = 0; i < ns; i++) kf_sb_printf(b, "%s%lld", i ? ", " : "", (long long)(x->scratch[i] > 0 ? x->scratch[i] : 4));
    kf_sb_printf(b, "%s};\n\n", ns ? "" : "0");
    kf_sb_printf(b,
        "struct %s_ctx {\n    cl_context ctx;\n    cl_command_queue q;\n    cl_program prog;\n"
        "    cl_kernel k[%d];\n    cl_mem in[%d], out[%d], scratch[%d];\n};\n\n", id, nl, ni ? ni : 1, no, ns ? ns : 1);
    kf_sb_printf(b,
        "static int fail(char *err, size_t n, const char *fmt, ...)\n{\n    va_list ap;\n    va_start(ap, fmt);\n"
        "    if (err && n) vsnprintf(err, n, fmt, ap);\n    va_end(ap);\n    return -1;\n}\n\n");
    kf_sb_printf(b,
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
    kf_sb_printf(b, "void %s_close(%s_ctx *k)\n{\n    if (!k) return;\n", id, id);
    kf_sb_printf(b, "    for (int i = 0; i < %d; i++) if (k->in[i]) clReleaseMemObject(k->in[i]);\n", ni);
    kf_sb_printf(b, "    for (int i = 0; i < %d; i++) if (k->out[i]) clReleaseMemObject(k->out[i]);\n", no);
    kf_sb_printf(b, "    for (int i = 0; i < %d; i++) if (k->scratch[i]) clReleaseMemObject(k->scratch[i]);\n", ns);
    kf_sb_printf(b, "    for (int i = 0; i < %d; i++) if (k->k[i]) clReleaseKernel(k->k[i]);\n"
                    "    if (k->prog) clReleaseProgram(k->prog);\n    if (k->q) clReleaseCommandQueue(k->q);\n"
                    "    if (k->ctx) clReleaseContext(k->ctx);\n    free(k);\n}\n\n", nl);
    kf_sb_printf(b,
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
        id, id, id, x->c->n_sources, id, nl, ni, no, ns);
    set_args(x, b);
    kf_sb_printf(b,
        "    if (e != CL_SUCCESS) {\n        fail(err, err_len, \"%%s failed: OpenCL error %%d\", where, (int)e);\n"
        "        %s_close(k);\n        return NULL;\n    }\n    return k;\n}\n\n", id);
    kf_sb_printf(b, "int %s_run(%s_ctx *k, ", id, id);
    params(x, b);
    kf_sb_printf(b, ", char *err, size_t err_len)\n{\n    cl_int e = CL_SUCCESS;\n");
    for (int i = 0; i < ni; i++)
        kf_sb_printf(b, "    if (e == CL_SUCCESS) e = clEnqueueWriteBuffer(k->q, k->in[%d], CL_TRUE, 0, in_bytes[%d], %s, 0, NULL, NULL);\n",
                     i, i, x->p->inputs[i].name);
    kf_sb_printf(b, "    if (e != CL_SUCCESS) return fail(err, err_len, \"clEnqueueWriteBuffer failed: OpenCL error %%d\", (int)e);\n"
                    "    for (int i = 0; i < %d; i++) {\n"
                    "        e = clEnqueueNDRangeKernel(k->q, k->k[i], work_dim[i], NULL, global_size[i],\n"
                    "                                   local_size[i][0] ? local_size[i] : NULL, 0, NULL, NULL);\n"
                    "        if (e != CL_SUCCESS) return fail(err, err_len, \"launch %%d (%%s): clEnqueueNDRangeKernel failed: OpenCL error %%d\", i, kernel_names[i], (int)e);\n"
                    "    }\n", nl);
    for (int i = 0; i < no; i++)
        kf_sb_printf(b, "    if (e == CL_SUCCESS) e = clEnqueueReadBuffer(k->q, k->out[%d], CL_TRUE, 0, out_bytes[%d], %s, 0, NULL, NULL);\n",
                     i, i, out_name(x, i));
    kf_sb_printf(b, "    if (e != CL_SUCCESS) return fail(err, err_len, \"reading the outputs back failed: OpenCL error %%d\", (int)e);\n"
                    "    return 0;\n}\n\nint %s(", id);
    params(x, b);
    kf_sb_printf(b, ", int device)\n{\n    char err[2300] = \"\";\n    %s_ctx *k = %s_open(device, err, sizeof err);\n"
                    "    int rc = k ? %s_run(k, ", id, id, id);
    for (int i = 0; i < ni; i++) kf_sb_printf(b, "%s, ", x->p->inputs[i].name);
    for (int i = 0; i < no; i++) kf_sb_printf(b, "%s, ", out_name(x, i));
    kf_sb_printf(b, "err, sizeof err) : -1;\n    if (rc != 0) fprintf(stderr, \"%s: %%s\\n\", err);\n"
                    "    %s_close(k);\n    return rc;\n}\n", id, id);
}

static void example(const kf_exp_ctx *x, kf_sb *b)
{
    const char *id = x->ident;
    int ni = x->p->n_inputs, no = x->p->n_outputs;
    kf_sb_printf(b, "/* example.c — calls %s() on uniform [0,1) inputs (device: argv[1], else\n"
                    " * $KFORGE_OPENCL_DEVICE, else 0) and prints each output's sum. */\n", id);
    kf_sb_printf(b, "#include <stdio.h>\n#include <stdlib.h>\n#include \"%s.h\"\n\n", id);
    kf_sb_printf(b, "int main(int argc, char **argv)\n{\n    unsigned s = 1;\n    int device = argc > 1 ? atoi(argv[1]) : -1;\n");
    for (int i = 0; i < ni; i++) {
        const char *n = x->p->inputs[i].name;
        kf_sb_printf(b, "    float *%s = malloc(%s_%s_ELEMS * sizeof(float));\n    if (!%s) return 1;\n"
                        "    for (long long i = 0; i < %s_%s_ELEMS; i++) { s = s * 1103515245u + 12345u; %s[i] = (float)(s >> 8) / 16777216.0f; }\n",
                     n, id, n, n, id, n, n);
    }
    for (int i = 0; i < no; i++) {
        const char *n = out_name(x, i);
        kf_sb_printf(b, "    float *%s = malloc(%s_%s_ELEMS * sizeof(float));\n    if (!%s) return 1;\n", n, id, n, n);
    }
    kf_sb_printf(b, "    if (%s(", id);
    for (int i = 0; i < ni; i++) kf_sb_printf(b, "%s, ", x->p->inputs[i].name);
    for (int i = 0; i < no; i++) kf_sb_printf(b, "%s, ", out_name(x, i));
    kf_sb_printf(b, "device) != 0) return 1;\n");
    for (int i = 0; i < no; i++) {
        const char *n = out_name(x, i);
        kf_sb_printf(b, "    double sum_%d = 0;\n    for (long long i = 0; i < %s_%s_ELEMS; i++) sum_%d += %s[i];\n"
                        "    printf(\"%s: %%lld elements, sum %%.6g\\n\", (long long)%s_%s_ELEMS, sum_%d);\n",
                     i, id, n, i, n, n, id, n, i);
    }
    for (int i = 0; i < ni; i++) kf_sb_printf(b, "    free(%s);\n", x->p->inputs[i].name);
    for (int i = 0; i < no; i++) kf_sb_printf(b, "    free(%s);\n", out_name(x, i));
    kf_sb_printf(b, "    return 0;\n}\n");
}

static void makefile(const kf_exp_ctx *x, kf_sb *b)
{
    kf_sb_printf(b, "# Builds the exported OpenCL kernel plan's host code (the device compiles the\n"
                    "# embedded OpenCL C when %s_open runs).\nCC ?= cc\nCFLAGS ?= -O2\nLDLIBS = -lOpenCL\n\n"
                    "example: example.c %s.c %s.h\n\t$(CC) $(CFLAGS) -o $@ example.c %s.c $(LDLIBS)\n\n"
                    "lib%s.so: %s.c %s.h\n\t$(CC) $(CFLAGS) -fPIC -shared -o $@ %s.c $(LDLIBS)\n\n"
                    "clean:\n\trm -f example lib%s.so\n",
                 x->ident, x->ident, x->ident, x->ident, x->ident, x->ident, x->ident, x->ident, x->ident);
}

int kf_exp_opencl_c(const kf_exp_ctx *x, kf_error *err)
{
    kf_sb h = {0}, c = {0}, e = {0}, m = {0};
    header(x, &h);
    source(x, &c);
    example(x, &e);
    makefile(x, &m);
    return kf_exp_write_c_set(x, &h, &c, &e, &m, err);
}
