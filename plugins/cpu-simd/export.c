/*
 * export.c — the cpu-simd plugin's export_files (kforge-plugin.h, ABI 1.4):
 * what `kforge export` writes for a host-entry C candidate (an entry
 * `void ENTRY(const kf_cpu_args *)`, no launch plan).
 *
 *   --to c      kforge-cpu.h, NAME.h (the verified sizes as macros, one
 *               function over the problem's tensors), NAME.c (fills a
 *               kf_cpu_args, allocates the scratch buffers, asks for the AMX
 *               tile state as run.c's listing does, calls the entry),
 *               example.c and a Makefile with the compile line's flags;
 *   --to torch  kforge-cpu.h and _host_c.py, the package's caller
 *               (export/kf_torch_host_c.py, embedded at build time as
 *               cpu-export-torch.c: compiles the sources with the same flags
 *               on first use, ctypes), and spec.json's "entry" and "cflags".
 *
 * The core writes the candidate's sources and what this returns; nothing
 * here touches a file or runs anything.
 */
#include "cpu_simd.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern const char kf_cpu_torch_caller_text[];   /* cpu-export-torch.c */

/* What the writers read: the request's views. */
typedef struct xp {
    const char *ident, *preset, *backend, *entry;
    const kf_problem_view *pv;
    const kf_candidate_view *cv;
} xp;

static const kf_source *source_at(const xp *x, int i)
{
    return KF_AT(kf_source, x->cv->sources, x->cv->source_size, i);
}

static void header(const xp *x, FILE *b)
{
    const char *id = x->ident;
    const kf_problem_view *p = x->pv;
    fprintf(b, "/* %s.h — kforge export of problem '%s' (host-entry C, backend %s, preset '%s').\n", id,
            p->name, x->backend, x->preset);
    fprintf(b, " * The kernel was verified at these sizes only:");
    for (int d = 0; d < p->n_dims; d++) fprintf(b, " %s=%lld", p->dim_names[d], (long long)p->dim_values[d]);
    fprintf(b, ".\n * Tensors are row-major float32.  Pass 4096-byte aligned buffers (aligned_alloc):\n"
               " * the kernel was verified with such buffers.  n_threads <= 0 means all cores. */\n");
    fprintf(b, "#ifndef %s_H\n#define %s_H\n\n#include <stdint.h>\n\n", id, id);
    for (int d = 0; d < p->n_dims; d++)
        fprintf(b, "#define %s_%s %lld\n", id, p->dim_names[d], (long long)p->dim_values[d]);
    fprintf(b, "\n");
    for (int i = 0; i < p->n_inputs; i++)
        fprintf(b, "#define %s_%s_ELEMS %lld\n", id, p->input_names[i], (long long)p->input_elems[i]);
    for (int i = 0; i < p->n_outputs; i++)
        fprintf(b, "#define %s_%s_ELEMS %lld\n", id, p->output_names[i], (long long)p->output_elems[i]);
    fprintf(b, "\n/* Returns 0, or -1 when scratch memory cannot be allocated. */\nint %s(", id);
    for (int i = 0; i < p->n_inputs; i++) fprintf(b, "const float *%s, ", p->input_names[i]);
    for (int i = 0; i < p->n_outputs; i++) fprintf(b, "float *%s, ", p->output_names[i]);
    fprintf(b, "int n_threads);\n\n#endif\n");
}

static void source(const xp *x, FILE *b)
{
    const char *id = x->ident;
    const kf_problem_view *p = x->pv;
    int ni = p->n_inputs, no = p->n_outputs, ns = p->n_scratch, nd = p->n_dims;
    fprintf(b, "/* %s.c — calls the exported kernel through kforge-cpu.h's convention. */\n", id);
    fprintf(b, "#include <stdlib.h>\n#include <unistd.h>\n#if defined(__x86_64__) && defined(__linux__)\n"
               "#include <sys/syscall.h>\n#endif\n#include \"kforge-cpu.h\"\n#include \"%s.h\"\n\n", id);
    /* a kernel on AMX tiles (the built-in agent's precision 5) runs only
       where the tile state is granted, as this plugin's listing asks */
    fprintf(b, "/* kf_cpu_args.features: the AMX tile state, asked for as kforge's cpu-simd plugin\n"
               " * does (an AMX kernel writes nothing without it). */\n"
               "static uint32_t %s_features(void)\n{\n"
               "#if defined(__x86_64__) && defined(__linux__)\n"
               "    unsigned long m = 0;\n"
               "    if (syscall(SYS_arch_prctl, 0x1023 /* ARCH_REQ_XCOMP_PERM */, 18) == 0 &&\n"
               "        syscall(SYS_arch_prctl, 0x1022 /* ARCH_GET_XCOMP_PERM */, &m) == 0 && (m & (1ul << 18)))\n"
               "        return KF_CPU_FEAT_AMX_BF16;\n"
               "#endif\n"
               "    return 0;\n}\n\n", id);
    fprintf(b, "void %s(const kf_cpu_args *a);\n\nint %s(", x->entry, id);
    for (int i = 0; i < ni; i++) fprintf(b, "const float *%s, ", p->input_names[i]);
    for (int i = 0; i < no; i++) fprintf(b, "float *%s, ", p->output_names[i]);
    fprintf(b, "int n_threads)\n{\n");
    fprintf(b, "    const float *in[%d] = {", ni ? ni : 1);
    for (int i = 0; i < ni; i++) fprintf(b, "%s%s", i ? ", " : "", p->input_names[i]);
    fprintf(b, "%s};\n    float *out[%d] = {", ni ? "" : "0", no);
    for (int i = 0; i < no; i++) fprintf(b, "%s%s", i ? ", " : "", p->output_names[i]);
    fprintf(b, "};\n    const int64_t dims[%d] = {", nd ? nd : 1);
    for (int d = 0; d < nd; d++) fprintf(b, "%s%lldLL", d ? ", " : "", (long long)p->dim_values[d]);
    fprintf(b, "%s};\n    float *scratch[%d] = {0};\n    int rc = 0;\n", nd ? "" : "0", ns ? ns : 1);
    for (int s = 0; s < ns; s++)
        fprintf(b, "    if (!(scratch[%d] = aligned_alloc(4096, (%lldULL + 4095) / 4096 * 4096))) rc = -1;\n", s,
                (long long)(p->scratch_bytes[s] > 0 ? p->scratch_bytes[s] : 1));
    fprintf(b, "    if (rc == 0) {\n"
               "        if (n_threads <= 0) n_threads = (int)sysconf(_SC_NPROCESSORS_ONLN);\n"
               "        kf_cpu_args a = {in, out, scratch, dims, %d, %d, %d, %d, n_threads > 0 ? n_threads : 1,\n"
               "                         %s_features()};\n"
               "        %s(&a);\n    }\n", ni, no, ns, nd, id, x->entry);
    fprintf(b, "    for (int s = 0; s < %d; s++) free(scratch[s]);\n    return rc;\n}\n", ns);
}

static void example(const xp *x, FILE *b)
{
    const char *id = x->ident;
    const kf_problem_view *p = x->pv;
    int ni = p->n_inputs, no = p->n_outputs;
    fprintf(b, "/* example.c — calls %s() on uniform [0,1) inputs and prints each output's sum. */\n", id);
    fprintf(b, "#include <stdio.h>\n#include <stdlib.h>\n#include \"%s.h\"\n\n", id);
    fprintf(b, "static float *buffer(long long n)\n{\n"
               "    return aligned_alloc(4096, ((size_t)n * sizeof(float) + 4095) / 4096 * 4096);\n}\n\n");
    fprintf(b, "int main(void)\n{\n    unsigned s = 1;\n");
    for (int i = 0; i < ni; i++) {
        const char *n = p->input_names[i];
        fprintf(b, "    float *%s = buffer(%s_%s_ELEMS);\n    if (!%s) return 1;\n"
                   "    for (long long i = 0; i < %s_%s_ELEMS; i++) { s = s * 1103515245u + 12345u; %s[i] = (float)(s >> 8) / 16777216.0f; }\n",
                n, id, n, n, id, n, n);
    }
    for (int i = 0; i < no; i++) {
        const char *n = p->output_names[i];
        fprintf(b, "    float *%s = buffer(%s_%s_ELEMS);\n    if (!%s) return 1;\n", n, id, n, n);
    }
    fprintf(b, "    if (%s(", id);
    for (int i = 0; i < ni; i++) fprintf(b, "%s, ", p->input_names[i]);
    for (int i = 0; i < no; i++) fprintf(b, "%s, ", p->output_names[i]);
    fprintf(b, "0) != 0) return 1;\n");
    for (int i = 0; i < no; i++) {
        const char *n = p->output_names[i];
        fprintf(b, "    double sum_%d = 0;\n    for (long long i = 0; i < %s_%s_ELEMS; i++) sum_%d += %s[i];\n"
                   "    printf(\"%s: %%lld elements, sum %%.6g\\n\", (long long)%s_%s_ELEMS, sum_%d);\n",
                i, id, n, i, n, n, id, n, i);
    }
    for (int i = 0; i < ni; i++) fprintf(b, "    free(%s);\n", p->input_names[i]);
    for (int i = 0; i < no; i++) fprintf(b, "    free(%s);\n", p->output_names[i]);
    fprintf(b, "    return 0;\n}\n");
}

static int ends_in_c(const char *n)
{
    size_t l = strlen(n);
    return l > 2 && !strcmp(n + l - 2, ".c");
}

static void makefile(const xp *x, FILE *b)
{
    fprintf(b, "# Builds the exported kernel with the cpu-simd backend's flags (host-entry C).\nCC ?= cc\nCFLAGS =");
    for (int i = 0; i < KF_CPU_N_CFLAGS; i++)
        if (strcmp(kf_cpu_cflags[i], "-shared") != 0 && strcmp(kf_cpu_cflags[i], "-fPIC") != 0)
            fprintf(b, " %s", kf_cpu_cflags[i]);
    fprintf(b, " %s\nSRCS = %s.c", x->cv->build_options ? x->cv->build_options : "", x->ident);
    for (int i = 0; i < x->cv->n_sources; i++)
        if (ends_in_c(source_at(x, i)->name)) fprintf(b, " %s", source_at(x, i)->name);
    fprintf(b, "\n\nexample: example.c $(SRCS)\n\t$(CC) $(CFLAGS) -o $@ example.c $(SRCS) -lm\n\n"
               "lib%s.so: $(SRCS)\n\t$(CC) $(CFLAGS) -fPIC -shared -o $@ $(SRCS) -lm\n\n"
               "clean:\n\trm -f example lib%s.so\n", x->ident, x->ident);
}

/* spec.json's members for the caller: the entry and the compile flags. */
static void spec_extra(const xp *x, FILE *b)
{
    fputs("{\"entry\": \"", b);
    for (const unsigned char *c = (const unsigned char *)x->entry; *c; c++) {
        if (*c == '"' || *c == '\\') fprintf(b, "\\%c", *c);
        else if (*c < 0x20) fprintf(b, "\\u%04x", *c);
        else fputc(*c, b);
    }
    fputs("\", \"cflags\": [", b);
    for (int i = 0; i < KF_CPU_N_CFLAGS; i++) fprintf(b, "%s\"%s\"", i ? ", " : "", kf_cpu_cflags[i]);
    fputs("]}", b);
}

typedef void (*writer)(const xp *x, FILE *b);

/* The writer's text, malloc'ed; NULL when out of memory. */
static char *text_of(writer w, const xp *x)
{
    char *text = NULL;
    size_t n = 0;
    FILE *b = open_memstream(&text, &n);
    if (!b) return NULL;
    w(x, b);
    if (fclose(b) != 0) {
        free(text);
        return NULL;
    }
    return text;
}

kf_status kf_cpu_export(const kf_export_request *req, kf_export_result *res, char **error)
{
    if (!req || !req->target || !req->ident || !req->preset || !req->problem || !req->candidate)
        return kf_hook_fail(error, KF_ERR_INVALID, "cpu-simd: export request without target, ident, preset, "
                            "problem or candidate");
    int torch = !strcmp(req->target, "torch");
    if (!torch && strcmp(req->target, "c") != 0)
        return kf_hook_fail(error, KF_ERR_INVALID, "cpu-simd exports --to c and --to torch, not '%s'", req->target);
    const kf_candidate_view *cv = req->candidate;
    if (cv->n_launches > 0)
        return kf_hook_fail(error, KF_ERR_INVALID, "cpu-simd exports host-entry C (an entry function, no launch "
                            "plan); this candidate has a launch plan of %d launch(es)", cv->n_launches);
    /* run_backend came after the other members: read it only when the core passed it */
    int has_backend = req->struct_size >= offsetof(kf_export_request, run_backend) + sizeof req->run_backend;
    xp x = {req->ident, req->preset, has_backend && req->run_backend ? req->run_backend : "?",
            cv->entry && *cv->entry ? cv->entry : "kf_kernel", req->problem, cv};
    for (int i = 0; i < cv->n_sources; i++)
        if (source_at(&x, i)->format != KF_SRC_TEXT)
            return kf_hook_fail(error, KF_ERR_INVALID, "cpu-simd: source '%s' is not C program text",
                                source_at(&x, i)->name);
    if (kf_export_add(res, "kforge-cpu.h", kf_strf("%s", kf_cpu_header_text)) != 0)
        return kf_hook_fail(error, KF_ERR_NOMEM, "out of memory");
    if (torch) {
        if (kf_export_add(res, "_host_c.py", kf_strf("%s", kf_cpu_torch_caller_text)) != 0 ||
            !(res->caller = kf_strf("_host_c")) || !(res->spec_extra = text_of(spec_extra, &x)))
            return kf_hook_fail(error, KF_ERR_NOMEM, "out of memory");
        return KF_OK;
    }
    char *hn = kf_strf("%s.h", x.ident), *cn = kf_strf("%s.c", x.ident);
    kf_status st = KF_ERR_NOMEM;
    if (hn && cn && kf_export_add(res, hn, text_of(header, &x)) == 0 && kf_export_add(res, cn, text_of(source, &x)) == 0 &&
        kf_export_add(res, "example.c", text_of(example, &x)) == 0 &&
        kf_export_add(res, "Makefile", text_of(makefile, &x)) == 0)
        st = KF_OK;
    free(hn);
    free(cn);
    return st == KF_OK ? KF_OK : kf_hook_fail(error, st, "out of memory");
}
