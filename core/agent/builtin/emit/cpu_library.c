/* cpu_library.c — the C emitter's vendor-library GEMM (emit.h,
 * library_gemm): cblas_sgemm per batch through the BLAS the op-by-op
 * baseline links, as the candidate of the GEMM anchor (core/run/anchor.h). */
#include <config.h>
#include "agent/builtin/builtin.h"
#include "cpu_knobs.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* cblas_sgemm per batch, with the thread count every candidate gets. */
static kf_candidate *cpu_candidate(const kf_resolved *r, const kf_bt_gemm *g, const char *lib, const char *backend)
{
    char *src = NULL;
    char loop[160] = "", ind[16] = "    ";
    const char *ta = "", *tb = "", *tc = "";
    if (g->batch > 1) {
        snprintf(loop, sizeof loop, "    for (int64_t t = 0; t < %" PRId64 "; t++)\n", g->batch);
        snprintf(ind, sizeof ind, "        ");
        ta = " + t * M_ * K_";
        tb = " + t * N_ * K_";
        tc = " + t * M_ * N_";
    }
    if (asprintf(&src,
                 "/*\n"
                 " * GEMM anchor of %s (preset %s): its main GEMM alone through %s,\n"
                 " * with the thread count every candidate gets.  A standalone library timing\n"
                 " * measured next to the op-by-op baseline; NOT a kernel for %s.\n"
                 " */\n"
                 "#include <stdint.h>\n"
                 "#include <cblas.h>\n"
                 "#include \"kforge-cpu.h\"\n\n"
                 "#define M_ ((int64_t)%" PRId64 ")\n#define N_ ((int64_t)%" PRId64 ")\n#define K_ ((int64_t)%" PRId64 ")\n\n"
                 "void kf_kernel(const kf_cpu_args *a)\n"
                 "{\n"
                 "    const int nt = a->n_threads > 0 ? a->n_threads : 1;\n"
                 "    openblas_set_num_threads(nt);\n"
                 "%s"
                 "%scblas_sgemm(CblasRowMajor, CblasNoTrans, %s, M_, N_, K_, 1.0f,\n"
                 "%s            a->in[0]%s, K_, a->in[1]%s, %s, 0.0f, a->out[0]%s, N_);\n"
                 "}\n",
                 r->problem->name, r->problem->preset_names[r->preset], lib, r->problem->name, g->M, g->N, g->K, loop,
                 ind, g->trans_b ? "CblasTrans" : "CblasNoTrans", ind, ta, tb, g->trans_b ? "K_" : "N_", tc) < 0)
        return NULL;
    kf_candidate *c = kf_candidate_new(backend);
    if (!c || kf_candidate_add_source(c, "anchor.c", src) != 0) {
        free(src);
        kf_candidate_free(c);
        return NULL;
    }
    free(src);
    free(c->entry);
    c->entry = strdup("kf_kernel");
    free(c->build_options);
    c->build_options = strdup(kf_bt_blas_options());
    free(c->notes);
    c->notes = strdup("GEMM anchor: a standalone library timing of the problem's main GEMM, not a kernel for it");
    if (!c->entry || !c->build_options || !c->notes) {
        kf_candidate_free(c);
        return NULL;
    }
    return c;
}

int kf_bt_cpu_library_gemm(const kf_resolved *r, const kf_bt_gemm *g, const char *backend,
                           kf_candidate **out, char **call, kf_error *err)
{
    *out = NULL;
    *call = NULL;
    const char *lib = kf_bt_blas_name();
    if (!lib || !kf_bt_blas_options())
        return kf_fail(err, KF_E_BAD_INPUT, "OpenBLAS was not found at configure time: no library GEMM to time");
    *out = cpu_candidate(r, g, lib, backend);
    if (!*out || asprintf(call, "cblas_sgemm alone (%s)", lib) < 0) {
        kf_candidate_free(*out);
        *out = NULL;
        *call = NULL;
        return kf_fail(err, KF_E_INTERNAL, "out of memory");
    }
    return 0;
}
