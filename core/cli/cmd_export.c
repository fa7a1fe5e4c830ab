/*
 * cmd_export.c — `kforge export RUN_DIR --to torch|c [--out DIR] [--model M.py]`:
 * the run's best verified kernel for use outside kforge.
 *
 * What is written depends on what the candidate is, from the language and
 * capabilities the run's backend plugin declared (result.json's
 * backend_language and backend_caps), never on the backend's name:
 * host-entry C, or a kernel plan.  The code that calls it (a kernel plan's
 * host code: what builds and launches the plan) is the plugin's
 * (export_plugin.c, the plugin's export_files, asked of the run's backend's
 * plugin, else of another declaring the language): the cpu-simd plugin's for
 * host-entry C, the opencl plugin's over libOpenCL, the cuda plugin's over
 * NVRTC and the CUDA driver API; a third-party plugin its own.  This file
 * reads the run, writes the candidate's sources, spec.json and the torch
 * package's runtime, and the files the plugin returns.
 *
 *   --to torch  DIR/PKG/: the kernel's sources, spec.json (the problem's
 *               sizes, for kernel plans the launch plan resolved at the
 *               preset, and what the plugin adds), __init__.py
 *               (python/kforge_torch_runtime.py: checks shapes, dtypes,
 *               devices and contiguity, imports spec.json's "caller"),
 *               _loadlib.py (python/kforge_torch_loadlib.py) and the
 *               plugin's caller (_host_c.py and kforge-cpu.h from the
 *               cpu-simd plugin, _opencl.py, _cuda.py); DIR/test_PKG.py compares
 *               it with the original module (--model, copied to
 *               DIR/PKG/model.py) on fresh inputs.
 *   --to c      the kernel's sources and what the plugin writes (cpu-simd:
 *               kforge-cpu.h, NAME.h, NAME.c (a function taking the
 *               problem's tensors), example.c, Makefile; opencl: NAME.h,
 *               NAME.c over libOpenCL, example.c, Makefile; the cuda plugin
 *               refuses, saying to use --to torch).
 *
 * The kernel was verified at the run's preset, and the exported code accepts
 * exactly those sizes.
 * Exit 0 ok, 2 bad input (no run, no verified kernel, a kind of kernel that
 * cannot be exported, the run's backend has no plugin here), 3 internal or
 * I/O error.
 */
#include <ctype.h>
#include <getopt.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "commands.h"
#include "common.h"
#include "export.h"
#include "pyhelper.h"
#include "candidate/candidate.h"
#include "problem/problem.h"
#include "util/error.h"
#include "util/fileio.h"

static void usage(FILE *f)
{
    fprintf(f,
        "usage: kforge export RUN_DIR --to torch|c [--out DIR] [--model MODEL.py] [--force]\n"
        "\n"
        "Writes the run's best verified kernel for use outside kforge (host-entry C, or a\n"
        "kernel plan), with the code that calls it from the plugin of the run's backend:\n"
        "  --to torch   a Python package DIR/PKG whose forward() takes and returns torch\n"
        "               tensors (shapes, dtypes, device and contiguity checked), through\n"
        "               its plugin's caller (cpu-simd: host-entry C compiled with its flags\n"
        "               on first use and called through ctypes; opencl: the host's\n"
        "               libOpenCL, CPU or CUDA tensors copied, device $KFORGE_OPENCL_DEVICE;\n"
        "               cuda: NVRTC and the CUDA driver API on torch's current stream, CUDA\n"
        "               tensors); and DIR/test_PKG.py comparing it with MODEL.py's Model\n"
        "  --to c       host-entry C: DIR/NAME.h and NAME.c (one function over the problem's\n"
        "               tensors), the kernel's sources, example.c and a Makefile; a plan:\n"
        "               its sources and what its plugin writes (opencl: the same set, building\n"
        "               the embedded program on the chosen device; cuda: none, use --to torch)\n"
        "\n"
        "  -o, --out DIR       output directory (default: export-PROBLEM-TO)\n"
        "  -m, --model M.py    the PyTorch file the problem was imported from (for the test)\n"
        "      --force         write into an existing directory\n"
        "  -h, --help          this help\n"
        "\n"
        "The kernel was verified at the run's preset; the exported code accepts those sizes only.\n"
        "Exit status: 0 written, 2 bad input, 3 internal or I/O error.\n");
}

typedef kf_exp_ctx exp_ctx;

static void ctx_free(exp_ctx *x)
{
    if (x->have_b) kf_bound_free(&x->b);
    if (x->have_r) kf_resolved_free(&x->r);
    kf_problem_free(x->p);
    kf_candidate_free(x->c);
    free(x->preset);
    free(x->backend);
    free(x->language);
    free(x->kind_name);
    free(x->ident);
    free(x->scratch);
}

static char *path_join(const char *a, const char *b)
{
    char *s = NULL;
    if (asprintf(&s, "%s/%s", a, b) < 0) return NULL;
    return s;
}

int kf_exp_write_in(const char *dir, const char *name, const char *text, kf_error *err)
{
    char *p = path_join(dir, name);
    if (!p) return kf_fail(err, KF_E_INTERNAL, "out of memory");
    int rc = kf_write_file_atomic(p, text, err);
    free(p);
    return rc;
}

static int copy_in(const char *from, const char *dir, const char *name, kf_error *err)
{
    char *text = kf_read_file(from, err);
    if (!text) return -1;
    int rc = kf_exp_write_in(dir, name, text, err);
    free(text);
    return rc;
}

/* "9_Matmul_Sub" -> "kf_9_matmul_sub": a C and Python identifier. */
static char *ident_of(const char *name)
{
    size_t n = strlen(name);
    char *s = malloc(n + 4);
    if (!s) return NULL;
    memcpy(s, "kf_", 3);
    for (size_t i = 0; i < n; i++)
        s[3 + i] = isalnum((unsigned char)name[i]) ? (char)tolower((unsigned char)name[i]) : '_';
    s[3 + n] = '\0';
    return s;
}

/* The language of a candidate from its first source's name, for runs
 * recorded before result.json named their backend's language (a0c15cb,
 * 2026-11-24).  Such runs exist for every suffix here: kforge on main wrote
 * cpu-simd and opencl runs without it from the start and cuda runs from the
 * cuda plugin's first commit (1ab86ea, 2026-11-23) on; bench/results keeps
 * some (h100-cuda-2026-11-23/result-cuda-09.json, a kernel.cu best).  No
 * release was tagged before a0c15cb, but those runs were made and published,
 * so the mapping stays (tests/e2e/test_import_export_cli.sh 33-34). */
static const char *language_of_source(const kf_candidate *c)
{
    const char *n = c->n_sources > 0 ? c->sources[0].name : "";
    const char *dot = strrchr(n, '.');
    if (!dot) return NULL;
    if (!strcmp(dot, ".c")) return "c";
    if (!strcmp(dot, ".cl")) return "opencl-c";
    if (!strcmp(dot, ".cu")) return "cuda-c";
    return NULL;
}

static const char *format_name(uint32_t f)
{
    return f == KF_SRC_PTX ? "PTX" : f == KF_SRC_CUBIN ? "a cubin" : f == KF_SRC_SPIRV ? "SPIR-V" : "text";
}

/* What the best candidate is: from the capabilities and language the run
 * recorded for its backend (result.json: backend_caps, backend_language),
 * or, in a run recorded before those, from the candidate itself (a launch
 * plan or a host entry; the language from the first source's suffix). */
static int classify(exp_ctx *x, const char *lang, json_object *caps, kf_error *err)
{
    int host = 0, plan = 0;
    if (caps && json_object_is_type(caps, json_type_array)) {
        for (size_t i = 0; i < json_object_array_length(caps); i++) {
            const char *cap = json_object_get_string(json_object_array_get_idx(caps, i));
            if (cap && !strcmp(cap, "host-entry")) host = 1;
            if (cap && !strcmp(cap, "kernel-plan")) plan = 1;
        }
    } else {
        plan = x->c->n_launches > 0;
        host = !plan;
        x->inferred = 1;
    }
    if (!lang || !*lang) {
        lang = language_of_source(x->c);
        x->inferred = 1;
    }
    if (!lang)
        return kf_fail(err, KF_E_BAD_INPUT, "%s: the run records no backend language and its candidate's first "
                       "source '%s' does not tell it (.c, .cl or .cu); re-run it with this kforge", x->run_dir,
                       x->c->n_sources > 0 ? x->c->sources[0].name : "");
    if (!(x->language = strdup(lang))) return kf_fail(err, KF_E_INTERNAL, "out of memory");
    if (host && !strcmp(lang, "c") && x->c->n_launches == 0) x->kind = KF_EXP_HOST_C;
    else if (plan) x->kind = KF_EXP_PLAN;
    else
        return kf_fail(err, KF_E_BAD_INPUT, "%s: a %s kernel in language '%s' (backend '%s'); kforge export writes "
                       "host-entry C and kernel plans only", x->run_dir,
                       host ? "host-entry" : "(no kernel-plan or host-entry)", lang, x->backend ? x->backend : "?");
    /* "host-c"; a plan: its language without a "-c" ("opencl-c" -> "opencl") */
    size_t ln = strlen(lang);
    if (x->kind == KF_EXP_HOST_C) x->kind_name = strdup("host-c");
    else x->kind_name = strndup(lang, ln > 2 && !strcmp(lang + ln - 2, "-c") ? ln - 2 : ln);
    if (!x->kind_name) return kf_fail(err, KF_E_INTERNAL, "out of memory");
    if (x->kind == KF_EXP_PLAN && x->c->n_launches < 1)
        return kf_fail(err, KF_E_BAD_INPUT, "%s: the %s candidate has no launch plan", x->run_dir, lang);
    for (int i = 0; i < x->c->n_sources; i++)
        if (x->c->sources[i].format != KF_SRC_TEXT)
            return kf_fail(err, KF_E_BAD_INPUT, "%s: source '%s' is %s; export takes %s program text only",
                           x->run_dir, x->c->sources[i].name, format_name(x->c->sources[i].format), lang);
    if (kf_candidate_bind(x->c, &x->r, &x->b, err) != 0) return -1;
    x->have_b = 1;
    if (x->b.view.n_tensor_maps > 0)
        return kf_fail(err, KF_E_BAD_INPUT, "%s: the candidate's plan passes tensor maps (TMA), which export does "
                       "not write host code for yet; export a run whose best candidate passes buffers only",
                       x->run_dir);
    return 0;
}

/* Reads RUN_DIR/result.json and problem.json, loads and binds the best. */
static int load_run(exp_ctx *x, kf_error *err)
{
    char *rp = path_join(x->run_dir, "result.json");
    if (!rp) return kf_fail(err, KF_E_INTERNAL, "out of memory");
    char *text = kf_read_file(rp, err);
    if (!text) {
        char why[KF_ERROR_MAX];
        snprintf(why, sizeof why, "%s", err ? err->msg : "");
        free(rp);
        return kf_fail(err, KF_E_BAD_INPUT, "%s: not a finished run directory (%s)", x->run_dir, why);
    }
    json_object *o = json_tokener_parse(text);
    free(text);
    json_object *best = NULL, *v = NULL;
    int rc = -1;
    const char *backend = NULL, *bdir = NULL, *lang = NULL;
    json_object *caps = NULL;
    if (!o || !json_object_is_type(o, json_type_object)) {
        kf_fail(err, KF_E_BAD_INPUT, "%s: not a JSON object", rp);
        goto out;
    }
    if (json_object_object_get_ex(o, "backend", &v)) backend = json_object_get_string(v);
    if (json_object_object_get_ex(o, "backend_language", &v) && v) lang = json_object_get_string(v);
    json_object_object_get_ex(o, "backend_caps", &caps);
    if (backend && !(x->backend = strdup(backend))) {
        kf_fail(err, KF_E_INTERNAL, "out of memory");
        goto out;
    }
    if (json_object_object_get_ex(o, "preset", &v)) x->preset = strdup(json_object_get_string(v));
    if (!json_object_object_get_ex(o, "best", &best) || !best ||
        !json_object_object_get_ex(best, "dir", &v) || !(bdir = json_object_get_string(v))) {
        kf_fail(err, KF_E_BAD_INPUT, "%s: the run has no verified kernel to export", x->run_dir);
        goto out;
    }
    if (!x->preset) {
        kf_fail(err, KF_E_BAD_INPUT, "%s: no preset", rp);
        goto out;
    }
    char *pp = path_join(x->run_dir, "problem.json");
    char *cp = path_join(x->run_dir, bdir);
    if (!pp || !cp) {
        free(pp);
        free(cp);
        kf_fail(err, KF_E_INTERNAL, "out of memory");
        goto out;
    }
    x->p = kf_problem_load(pp, err);
    free(pp);
    if (!x->p) {
        free(cp);
        goto out;
    }
    int pi = kf_problem_find_preset(x->p, x->preset);
    if (pi < 0) {
        free(cp);
        kf_fail(err, KF_E_BAD_INPUT, "%s: the problem has no preset '%s'", x->run_dir, x->preset);
        goto out;
    }
    if (kf_resolve(x->p, pi, &x->r, err) != 0) {
        free(cp);
        goto out;
    }
    x->have_r = 1;
    x->c = kf_candidate_load(cp, err);
    free(cp);
    if (!x->c || classify(x, lang, caps, err) != 0) goto out;
    x->scratch = calloc((size_t)x->c->n_scratch + 1, sizeof *x->scratch);
    if (!x->scratch) {
        kf_fail(err, KF_E_INTERNAL, "out of memory");
        goto out;
    }
    for (int i = 0; i < x->c->n_scratch; i++)
        if (kf_eval_int_expr(x->c->scratch[i].bytes_expr, &x->r, &x->scratch[i], err) != 0) goto out;
    if (!(x->ident = ident_of(x->p->name))) {
        kf_fail(err, KF_E_INTERNAL, "out of memory");
        goto out;
    }
    rc = 0;
out:
    json_object_put(o);
    free(rp);
    return rc;
}

static json_object *shape_json(const kf_shape *s)
{
    json_object *a = json_object_new_array();
    for (int d = 0; d < s->rank; d++) json_object_array_add(a, json_object_new_int64(s->d[d]));
    return a;
}

static json_object *sizes_json(const int64_t *v, int n)
{
    json_object *a = json_object_new_array();
    for (int d = 0; d < n; d++) json_object_array_add(a, json_object_new_int64(v[d]));
    return a;
}

static json_object *exprs_json(char *const *e, int n)
{
    json_object *a = json_object_new_array();
    for (int d = 0; d < n; d++) json_object_array_add(a, json_object_new_string(e[d] ? e[d] : ""));
    return a;
}

/* The launch plan bound at the preset: every size and argument resolved
 * ("global"/"local" in work-items as the plan gives them, local null when
 * the runtime chooses; the plan's expressions beside them), the dynamic
 * shared / __local bytes of a launch summed from its "local" arguments. */
static json_object *plan_json(const exp_ctx *x)
{
    static const char *const arg_kinds[] = {"input", "output", "scratch", "int", "long", "float", "local", "tensor_map"};
    json_object *ls = json_object_new_array();
    for (int li = 0; li < x->b.view.n_launches; li++) {
        const kf_launch *l = &x->b.launches[li];
        const kf_cand_launch *cl = &x->c->launches[li];
        json_object *e = json_object_new_object();
        json_object_object_add(e, "kernel", json_object_new_string(l->kernel));
        json_object_object_add(e, "work_dim", json_object_new_int(l->work_dim));
        json_object_object_add(e, "global", sizes_json(l->global, l->work_dim));
        json_object_object_add(e, "local", l->local[0] ? sizes_json(l->local, l->work_dim) : NULL);
        json_object_object_add(e, "global_expr", exprs_json(cl->global, cl->work_dim));
        if (cl->local[0]) json_object_object_add(e, "local_expr", exprs_json(cl->local, cl->work_dim));
        json_object *args = json_object_new_array();
        int64_t dyn = 0;
        for (int a = 0; a < l->n_args; a++) {
            const kf_arg *g = &l->args[a];
            json_object *ao = json_object_new_object();
            json_object_object_add(ao, "kind", json_object_new_string(arg_kinds[g->kind]));
            switch (g->kind) {
            case KF_ARG_INPUT: case KF_ARG_OUTPUT: case KF_ARG_SCRATCH:
                json_object_object_add(ao, "index", json_object_new_int(g->index));
                break;
            case KF_ARG_INT: case KF_ARG_LONG:
                json_object_object_add(ao, "value", json_object_new_int64(g->ival));
                break;
            case KF_ARG_FLOAT:
                json_object_object_add(ao, "value", json_object_new_double(g->fval));
                break;
            case KF_ARG_LOCAL:
                json_object_object_add(ao, "bytes", json_object_new_int64(g->bytes));
                dyn += g->bytes;
                break;
            case KF_ARG_TENSOR_MAP:   /* refused when the candidate is bound */
                break;
            }
            if (cl->args[a].text) json_object_object_add(ao, "from", json_object_new_string(cl->args[a].text));
            json_object_array_add(args, ao);
        }
        json_object_object_add(e, "args", args);
        json_object_object_add(e, "dyn_shared_bytes", json_object_new_int64(dyn));
        json_object_array_add(ls, e);
    }
    return ls;
}

/* spec.json: everything the runtime needs, no Python in it. */
static char *spec_json(const exp_ctx *x, int with_model, const char *caller, const char *extra, kf_error *err)
{
    json_object *more = NULL;
    if (extra && !(more = json_tokener_parse(extra))) {
        kf_fail(err, KF_E_INTERNAL, "%s: the plugin of backend '%s' gave spec.json members that are not JSON: %.80s",
                x->run_dir, x->backend ? x->backend : "?", extra);
        return NULL;
    }
    if (more && !json_object_is_type(more, json_type_object)) {
        json_object_put(more);
        kf_fail(err, KF_E_INTERNAL, "%s: the plugin of backend '%s' gave spec.json members that are not a JSON "
                "object: %.80s", x->run_dir, x->backend ? x->backend : "?", extra);
        return NULL;
    }
    json_object *o = json_object_new_object();
    json_object_object_add(o, "problem", json_object_new_string(x->p->name));
    json_object_object_add(o, "package", json_object_new_string(x->ident));
    json_object_object_add(o, "kind", json_object_new_string(x->kind_name));
    json_object_object_add(o, "language", json_object_new_string(x->language));
    if (x->inferred) json_object_object_add(o, "language_inferred_from_candidate", json_object_new_boolean(1));
    json_object_object_add(o, "backend", json_object_new_string(x->backend ? x->backend : ""));
    json_object_object_add(o, "caller", json_object_new_string(caller));
    json_object_object_add(o, "preset", json_object_new_string(x->preset));
    json_object *src = json_object_new_array();
    for (int i = 0; i < x->c->n_sources; i++)
        json_object_array_add(src, json_object_new_string(x->c->sources[i].name));
    json_object_object_add(o, "sources", src);
    json_object_object_add(o, "build_options", json_object_new_string(x->c->build_options));
    if (x->kind == KF_EXP_PLAN) json_object_object_add(o, "launches", plan_json(x));
    /* what the plugin adds (the cpu-simd plugin: the entry and its compile
       flags; the cuda plugin: its NVRTC options); the core's own members win */
    if (more) {
        json_object_object_foreach(more, k, v) {
            if (!json_object_object_get_ex(o, k, NULL)) json_object_object_add(o, k, json_object_get(v));
        }
        json_object_put(more);
    }
    json_object *dims = json_object_new_array();
    for (int d = 0; d < x->p->n_dims; d++) {
        json_object *e = json_object_new_object();
        json_object_object_add(e, "name", json_object_new_string(x->p->dim_names[d]));
        json_object_object_add(e, "value", json_object_new_int64(x->r.dims[d]));
        json_object_array_add(dims, e);
    }
    json_object_object_add(o, "dims", dims);
    json_object *ins = json_object_new_array();
    for (int i = 0; i < x->p->n_inputs; i++) {
        json_object *e = json_object_new_object();
        json_object_object_add(e, "name", json_object_new_string(x->p->inputs[i].name));
        json_object_object_add(e, "shape", shape_json(&x->r.shapes[i]));
        json_object_array_add(ins, e);
    }
    json_object_object_add(o, "inputs", ins);
    json_object *outs = json_object_new_array();
    for (int i = 0; i < x->p->n_outputs; i++) {
        int v = x->p->outputs[i];
        json_object *e = json_object_new_object();
        json_object_object_add(e, "name", json_object_new_string(kf_problem_value_name(x->p, v)));
        json_object_object_add(e, "shape", shape_json(&x->r.shapes[v]));
        json_object_array_add(outs, e);
    }
    json_object_object_add(o, "outputs", outs);
    json_object *sc = json_object_new_array();
    for (int i = 0; i < x->c->n_scratch; i++) json_object_array_add(sc, json_object_new_int64(x->scratch[i]));
    json_object_object_add(o, "scratch_bytes", sc);
    json_object *tol = json_object_new_object();
    json_object_object_add(tol, "atol", json_object_new_double(x->p->atol));
    json_object_object_add(tol, "rtol", json_object_new_double(x->p->rtol));
    json_object_object_add(tol, "rel_l2", json_object_new_double(x->p->rel_l2));
    json_object_object_add(o, "tolerance", tol);
    if (with_model) json_object_object_add(o, "model", json_object_new_string("model.py"));
    char *s = strdup(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE));
    json_object_put(o);
    if (!s) kf_fail(err, KF_E_INTERNAL, "out of memory");
    return s;
}

static int write_sources(const exp_ctx *x, const char *dir, kf_error *err)
{
    for (int i = 0; i < x->c->n_sources; i++)
        if (kf_exp_write_in(dir, x->c->sources[i].name, x->c->sources[i].text, err) != 0) return -1;
    return 0;
}

/* --to torch: DIR/PKG with the sources, the plugin's files (its caller
 * among them), _loadlib.py the callers share, spec.json (naming the caller,
 * with what the plugin adds) and __init__.py; DIR/test_PKG.py with
 * --model. */
static int export_torch(const exp_ctx *x, kf_error *err)
{
    char *pkg = path_join(x->out, x->ident);
    char *pydir = kf_py_dir();
    char *rt = pydir ? path_join(pydir, "kforge_torch_runtime.py") : NULL;
    char *tt = pydir ? path_join(pydir, "kforge_torch_test.py") : NULL;
    char *ll = pydir ? path_join(pydir, "kforge_torch_loadlib.py") : NULL;
    char *spec = NULL, *test_name = NULL;
    kf_exp_from_plugin pf = {0};
    int rc = -1;
    if (!pkg || !rt || !tt || !ll || asprintf(&test_name, "test_%s.py", x->ident) < 0) {
        test_name = NULL;
        kf_fail(err, KF_E_INTERNAL, "out of memory");
        goto out;
    }
    if (kf_mkdir_p(pkg, err) != 0 || write_sources(x, pkg, err) != 0) goto out;
    if (kf_exp_plugin(x, "torch", pkg, &pf, err) != 0 ||
        !(spec = spec_json(x, x->model != NULL, pf.caller, pf.spec_extra, err)))
        goto out;
    if (kf_exp_write_in(pkg, "spec.json", spec, err) != 0 || copy_in(ll, pkg, "_loadlib.py", err) != 0 ||
        copy_in(rt, pkg, "__init__.py", err) != 0)
        goto out;
    if (x->model && copy_in(x->model, pkg, "model.py", err) != 0) goto out;
    if (x->model && copy_in(tt, x->out, test_name, err) != 0) goto out;
    rc = 0;
out:
    free(pkg);
    free(pydir);
    free(rt);
    free(tt);
    free(ll);
    free(spec);
    free(test_name);
    kf_exp_from_plugin_free(&pf);
    return rc;
}

/* ---------------------------------------------------------------- --to c */

/* --to c: the candidate's sources and what its plugin writes (*files:
 * which plugin and the files' names, for the summary). */
static int export_c(const exp_ctx *x, char **files, kf_error *err)
{
    kf_exp_from_plugin pf = {0};
    if (kf_mkdir_p(x->out, err) != 0 || write_sources(x, x->out, err) != 0 ||
        kf_exp_plugin(x, "c", x->out, &pf, err) != 0) {
        kf_exp_from_plugin_free(&pf);
        return -1;
    }
    int n = asprintf(files, "from the %s plugin: %s", pf.plugin, pf.files);
    kf_exp_from_plugin_free(&pf);
    if (n < 0) {
        *files = NULL;
        return kf_fail(err, KF_E_INTERNAL, "out of memory");
    }
    return 0;
}

int kf_cmd_export(int argc, char **argv)
{
    static const struct option opts[] = {
        {"to", required_argument, NULL, 't'},
        {"out", required_argument, NULL, 'o'},
        {"model", required_argument, NULL, 'm'},
        {"force", no_argument, NULL, 'f'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    exp_ctx x = {0};
    int force = 0, c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "t:o:m:h", opts, NULL)) != -1) {
        switch (c) {
        case 't': x.to = optarg; break;
        case 'o': x.out = optarg; break;
        case 'm': x.model = optarg; break;
        case 'f': force = 1; break;
        case 'h': usage(stdout); return KF_EXIT_OK;
        default:
            if (optopt == 't' || optopt == 'o' || optopt == 'm')
                kf_cli_error("export: option '%s' needs a value", argv[optind - 1]);
            else if (optopt) kf_cli_error("export: unknown option '-%c'", optopt);
            else kf_cli_error("export: unknown option '%s'", argv[optind - 1]);
            usage(stderr);
            return KF_EXIT_BAD_INPUT;
        }
    }
    if (argc - optind != 1) {
        kf_cli_error("export: %s", argc - optind == 0 ? "no run directory given" : "give exactly one run directory");
        usage(stderr);
        return KF_EXIT_BAD_INPUT;
    }
    if (!x.to || (strcmp(x.to, "torch") != 0 && strcmp(x.to, "c") != 0)) {
        if (x.to) kf_cli_error("export: --to %s: expected 'torch' or 'c'", x.to);
        else kf_cli_error("export: --to torch or --to c is required");
        return KF_EXIT_BAD_INPUT;
    }
    x.run_dir = argv[optind];
    kf_error err = {0};
    if (load_run(&x, &err) != 0) {
        kf_cli_error("export: %s", err.msg);
        ctx_free(&x);
        return kf_exit_code(err.kind);
    }
    char *def_out = NULL;
    if (!x.out) {
        if (asprintf(&def_out, "export-%s-%s", x.p->name, x.to) < 0) {
            kf_cli_error("out of memory");
            ctx_free(&x);
            return KF_EXIT_INTERNAL;
        }
        x.out = def_out;
    }
    struct stat sb;
    int rc = KF_EXIT_OK;
    char *files = NULL;
    if (!force && stat(x.out, &sb) == 0) {
        kf_cli_error("export: %s exists (give another --out, or --force to write into it)", x.out);
        rc = KF_EXIT_BAD_INPUT;
    } else if ((!strcmp(x.to, "torch") ? export_torch(&x, &err) : export_c(&x, &files, &err)) != 0) {
        kf_cli_error("export: %s", err.msg);
        rc = kf_exit_code(err.kind);
    } else if (!strcmp(x.to, "torch")) {
        printf("wrote %s/%s (%s kernel; import %s; %s.forward(", x.out, x.ident, x.kind_name, x.ident, x.ident);
        for (int i = 0; i < x.p->n_inputs; i++) printf("%s%s", i ? ", " : "", x.p->inputs[i].name);
        printf("))%s%s%s\n", x.model ? " and " : "", x.model ? x.out : "",
               x.model ? "/test_*.py (python3 it to compare with the module)" : "; give --model M.py for a test");
    } else {
        printf("wrote %s (%s kernel; %s)\n", x.out, x.kind_name, files);
    }
    free(files);
    free(def_out);
    ctx_free(&x);
    return rc;
}
