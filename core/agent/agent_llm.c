/*
 * agent_llm.c — the generation and analysis agents backed by a language
 * model (core/llm/llm.h): prompts rendered from the templates (core/agent/prompt.h),
 * answers parsed with core/llm/answer.h into candidates and recommendations.
 */
#include <json-c/json.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent.h"
#include "problem/precision.h"
#include "llm/answer.h"
#include "llm/llm.h"
#include "util/clock.h"
#include "util/fileio.h"
#include "util/fmt.h"
#include "util/strbuf.h"
#include "prompt.h"


typedef struct llm_agent {
    kf_llm *llm;
    kf_agent_opts opts;
} llm_agent;

/* ------------------------------------------------------------------ */
/* text building                                                       */


static void shape_text(kf_sb *b, const kf_shape *s)
{
    kf_sb_printf(b, "(");
    for (int i = 0; i < s->rank; i++) kf_sb_printf(b, "%s%lld", i ? ", " : "", (long long)s->d[i]);
    kf_sb_printf(b, ")");
}

static char *dims_text(const kf_resolved *r)
{
    kf_sb b = {0};
    for (int i = 0; i < r->problem->n_dims; i++)
        kf_sb_printf(&b, "%s%s = %lld", i ? ", " : "", r->problem->dim_names[i], (long long)r->dims[i]);
    kf_sb_printf(&b, " (dims are passed in this order)");
    return kf_sb_take(&b);
}

static const char *dist_text(const kf_init *in, char *buf, size_t n)
{
    switch (in->dist) {
    case KF_DIST_UNIFORM: snprintf(buf, n, "uniform [%g, %g)", in->a, in->b); break;
    case KF_DIST_NORMAL: snprintf(buf, n, "normal(mean %g, std %g)", in->a, in->b); break;
    case KF_DIST_KAIMING_UNIFORM: snprintf(buf, n, "uniform +-1/sqrt(fan_in)"); break;
    case KF_DIST_CONSTANT: snprintf(buf, n, "constant %g", in->a); break;
    }
    return buf;
}

static char *inputs_text(const kf_resolved *r)
{
    kf_sb b = {0};
    for (int i = 0; i < r->problem->n_inputs; i++) {
        char d[128];
        kf_sb_printf(&b, "%d. %s float32 ", i, r->problem->inputs[i].name);
        shape_text(&b, &r->shapes[i]);
        kf_sb_printf(&b, ", row-major, drawn %s\n", dist_text(&r->problem->inputs[i].init, d, sizeof d));
    }
    return kf_sb_take(&b);
}

static char *outputs_text(const kf_resolved *r)
{
    kf_sb b = {0};
    for (int i = 0; i < r->problem->n_outputs; i++) {
        int v = r->problem->outputs[i];
        kf_sb_printf(&b, "%d. %s float32 ", i, kf_problem_value_name(r->problem, v));
        shape_text(&b, &r->shapes[v]);
        kf_sb_printf(&b, ", row-major\n");
    }
    return kf_sb_take(&b);
}

/* The text the cache and cassette keys see in place of a figure measured at
 * run time (kf_llm_message.key_content). */
#define MEASURED "(measured)"

static char *roofline_text(const kf_agent_ctx *ctx, int keyed)
{
    kf_sb b = {0};
    const kf_resolved *r = ctx->r;
    kf_sb_printf(&b, "%.4g FLOP, at least %.4g bytes moved (arithmetic intensity %.1f FLOP/byte)\n",
              r->flops, r->min_bytes, r->min_bytes > 0 ? r->flops / r->min_bytes : 0);
    if (ctx->device && keyed) {
        /* the peaks of some devices (a CPU's bandwidth) are measured at each start;
           the device's name is left out too, so a cassette replays on another
           machine of the backend (a CI runner) */
        kf_sb_printf(&b, "device: peaks " MEASURED "\n");
    } else if (ctx->device) {
        kf_roofline rl;
        kf_roofline_compute(r, ctx->device, &rl);
        char t[32];
        kf_sb_printf(&b, "device %s: peak %.4g GFLOP/s, %.4g GB/s; no correct kernel can run under %s\n",
                  ctx->device->name, ctx->device->peak_flops / 1e9, ctx->device->peak_bytes_per_s / 1e9,
                  kf_fmt_duration(rl.floor_s, t, sizeof t));
    }
    return kf_sb_take(&b);
}

static char *candidate_text(const kf_candidate *c)
{
    if (!c) return strdup("(none)");
    kf_sb b = {0};
    char *m = kf_candidate_manifest_json(c);
    if (c->n_launches > 0 || c->n_scratch > 0) kf_sb_printf(&b, "```json\n%s\n```\n", m ? m : "{}");
    free(m);
    for (int i = 0; i < c->n_sources; i++)
        if (kf_source_format_binary(c->sources[i].format))
            kf_sb_printf(&b, "%s: (a binary module of %zu bytes, not shown)\n", c->sources[i].name, c->sources[i].size);
        else
            kf_sb_printf(&b, "%s:\n```\n%s\n```\n", c->sources[i].name, c->sources[i].text);
    return kf_sb_take(&b);
}

static char *eval_text(const kf_eval_result *e)
{
    if (!e) return strdup("(none)");
    kf_sb b = {0};
    kf_sb_printf(&b, "verdict: %s\n", kf_verdict_name(e->verdict));
    /* the diagnostics start with the summary when the evaluation wrote them */
    size_t sl = e->summary ? strlen(e->summary) : 0;
    if (sl && !(e->diagnostics && !strncmp(e->diagnostics, e->summary, sl)))
        kf_sb_printf(&b, "%s\n", e->summary);
    if (e->diagnostics) kf_sb_printf(&b, "%s\n", e->diagnostics);
    for (int i = 0; i < e->n_mismatches; i++)
        kf_sb_printf(&b, "output %d index %lld: expected %.9g got %.9g\n", e->mismatches[i].output,
                  (long long)e->mismatches[i].index, e->mismatches[i].expected, e->mismatches[i].got);
    return kf_sb_take(&b);
}

static char *profile_text(const kf_eval_result *e)
{
    if (!e || !e->profiled) return strdup("(not profiled)");
    kf_sb b = {0};
    char t1[32], t2[32];
    kf_sb_printf(&b, "median %s, min %s over %d runs; roofline fraction %.1f%%; %.4g GFLOP/s, %.4g GB/s\n",
              kf_fmt_duration(e->timing.median_s, t1, sizeof t1), kf_fmt_duration(e->timing.min_s, t2, sizeof t2),
              e->timing.n, e->roofline.fraction * 100, e->roofline.achieved_flops / 1e9,
              e->roofline.achieved_bytes_per_s / 1e9);
    for (int i = 0; i < e->timing.n_counters; i++)
        kf_sb_printf(&b, "%s = %g\n", e->timing.counters[i].name, e->timing.counters[i].value);
    if (e->timing.report) kf_sb_printf(&b, "%s\n", e->timing.report);
    char *hw = kf_counters_text(&e->hw);
    if (hw && *hw) kf_sb_printf(&b, "%s", hw);
    free(hw);
    return kf_sb_take(&b);
}

static char *analysis_text(const kf_analysis *a, int focus)
{
    if (!a) return strdup("(none)");
    kf_sb b = {0};
    kf_sb_printf(&b, "bottleneck: %s\n%s\n", a->bottleneck ? a->bottleneck : "?", a->text ? a->text : "");
    for (int i = 0; i < a->n_recs; i++)
        kf_sb_printf(&b, "%s%d. %s — %s (expected %.2fx)\n", i == focus ? "* " : "  ", i + 1,
                  a->recs[i].what ? a->recs[i].what : "", a->recs[i].why ? a->recs[i].why : "",
                  a->recs[i].expected_gain);
    if (focus >= 0 && focus < a->n_recs) kf_sb_printf(&b, "Apply recommendation %d (marked *) first.\n", focus + 1);
    return kf_sb_take(&b);
}

/* ------------------------------------------------------------------ */
/* prompts                                                             */

enum { V_NAME, V_DESC, V_GRAPH, V_INPUTS, V_OUTPUTS, V_DIMS, V_TOL, V_ROOF, V_BACKEND, V_GUIDE,
       V_LAST, V_DIAG, V_PROFILE, V_ANALYSIS, V_BEST, V_BASE, V_DEVKIND, V_CHECKED, V_COUNT };

static const char *var_names[V_COUNT] = {
    "problem_name", "problem_description", "graph", "inputs", "outputs", "dims", "tolerance",
    "roofline", "backend", "backend_guide", "last_candidate", "diagnostics", "profile",
    "analysis", "best_time", "baseline_time", "device_kind", "checked_parts"};

/* Measured values (timings, bandwidths): the key rendering (keyed = 1) puts
 * MEASURED in their place. */
static const int measured_vars[] = {V_ROOF, V_PROFILE, V_BEST, V_BASE};

static char *render(const kf_agent_ctx *ctx, const char *rel, char **values, kf_error *err);

/* The diagnostics as the keys see them: without the lines that describe this
 * machine rather than the candidate (the sandbox's layers, a kept work
 * directory), so that a cassette replays elsewhere. */
static char *key_diagnostics(const char *d)
{
    kf_sb b = {0};
    kf_sb_append(&b, "", 0);
    for (const char *p = d ? d : ""; *p;) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p + 1) : strlen(p);
        if (strncmp(p, "sandbox (", 9) != 0 && strncmp(p, "(work directory kept:", 21) != 0) kf_sb_append(&b, p, n);
        p += n;
    }
    return kf_sb_take(&b);
}

static void key_values(const kf_agent_ctx *ctx, char **v, char **k);

/* The prompt and its key form (measured figures left out). */
static int render2(const kf_agent_ctx *ctx, const char *rel, char **values, char **text, char **key,
                   kf_error *err)
{
    char *kv[V_COUNT];
    key_values(ctx, values, kv);
    char *rk = roofline_text(ctx, 1);
    kv[V_ROOF] = rk;
    char *dk = key_diagnostics(values[V_DIAG]);
    kv[V_DIAG] = dk;
    *text = render(ctx, rel, values, err);
    *key = *text ? render(ctx, rel, kv, err) : NULL;
    free(rk);
    free(dk);
    if (*text && *key) return 0;
    free(*text);
    free(*key);
    *text = *key = NULL;
    return -1;
}

static char *render(const kf_agent_ctx *ctx, const char *rel, char **values, kf_error *err)
{
    char *tmpl = kf_prompt_load(ctx->prompts_dir, rel, err);
    if (!tmpl) return NULL;
    kf_prompt_var vars[V_COUNT];
    for (int i = 0; i < V_COUNT; i++) {
        vars[i].name = var_names[i];
        vars[i].value = values[i];
    }
    char *out = kf_prompt_render(tmpl, rel, vars, V_COUNT, err);
    free(tmpl);
    return out;
}

/* The backend's LLM guide: the user's --prompts override, else the guide
 * installed with the plugin (kf_plugin_guide_path); "" with err set when
 * there is none. */
static char *guide_text(const kf_agent_ctx *ctx, kf_error *err)
{
    char rel[256];
    snprintf(rel, sizeof rel, "backends/%s.md", ctx->backend);
    char *path = ctx->plugin ? kf_plugin_guide_path(ctx->plugin, ctx->prompts_dir) : NULL;
    char *text = path ? kf_read_file(path, NULL) : NULL;
    free(path);
    if (text) return text;
    kf_error e2 = {0};
    text = kf_prompt_load(ctx->prompts_dir, rel, &e2);
    if (text) return text;
    if (err) *err = e2;
    return strdup("");
}

/* A backend whose plugin consumes a host entry function (a CPU C backend)
 * rather than kernels and a launch plan. */
static int host_entry_backend(const kf_agent_ctx *ctx)
{
    return ctx->plugin ? (ctx->plugin->be->caps & KF_CAP_HOST_ENTRY) != 0
                       : ctx->backend_language && !strcmp(ctx->backend_language, "c");
}

static void fill_values(const kf_agent_ctx *ctx, const kf_candidate *last, const kf_eval_result *last_eval,
                        const kf_eval_result *best_eval, const kf_analysis *an, int focus,
                        char **v, kf_error *err)
{
    const kf_resolved *r = ctx->r;
    int host = host_entry_backend(ctx);
    char t[32];
    v[V_NAME] = strdup(r->problem->name);
    v[V_DESC] = strdup(r->problem->description ? r->problem->description : "");
    v[V_GRAPH] = kf_problem_describe(r);
    v[V_INPUTS] = inputs_text(r);
    v[V_OUTPUTS] = outputs_text(r);
    v[V_DIMS] = dims_text(r);
    if (asprintf(&v[V_TOL], "atol %g, rtol %g, relative L2 error per output <= %g%s", r->problem->atol,
                 r->problem->rtol, r->problem->rel_l2,
                 ctx->precision == KF_PRECISION_FP32
                     ? " (this run asks for fp32 accuracy: compute in fp32 with fp32 accumulation; GEMMs on "
                       "bf16, fp16 or TF32 inputs, AMX or tensor-core shortcuts that round the inputs, fail "
                       "this bound)"
                     : "") < 0) v[V_TOL] = NULL;
    v[V_ROOF] = roofline_text(ctx, 0);
    v[V_BACKEND] = strdup(ctx->backend);
    v[V_GUIDE] = guide_text(ctx, err);
    v[V_LAST] = candidate_text(last);
    v[V_DIAG] = eval_text(last_eval);
    v[V_PROFILE] = profile_text(last_eval);
    v[V_ANALYSIS] = analysis_text(an, focus);
    v[V_BEST] = strdup(best_eval && best_eval->profiled ? kf_fmt_duration(best_eval->timing.median_s, t, sizeof t) : "-");
    v[V_BASE] = strdup(ctx->baseline_s > 0 ? kf_fmt_duration(ctx->baseline_s, t, sizeof t) : "not measured");
    v[V_DEVKIND] = strdup(host ? "CPU" : "GPU and accelerator");
    v[V_CHECKED] = strdup(host ? "the answer format and the calling convention of the entry function"
                               : "the answer format, the calling convention and the launch plan");
}

/* values with every measured figure replaced by MEASURED, for the keys */
static void key_values(const kf_agent_ctx *ctx, char **v, char **k)
{
    for (int i = 0; i < V_COUNT; i++) k[i] = v[i];
    for (size_t i = 0; i < sizeof measured_vars / sizeof measured_vars[0]; i++) k[measured_vars[i]] = (char *)MEASURED;
    (void)ctx;
}

static void free_values(char **v)
{
    for (int i = 0; i < V_COUNT; i++) free(v[i]);
}

/* ------------------------------------------------------------------ */
/* asking                                                              */

/* A rough count of the tokens of a text: models average 3.5 to 4 bytes a
 * token on English and code; 3 errs on the side of a shorter answer. */
static long est_tokens(const char *s)
{
    return (long)(strlen(s) / 3) + 8;
}

#define KF_LLM_DEFAULT_MAX_TOKENS 4096
#define MIN_ANSWER_TOKENS 64

static const char CONTINUE_MSG[] = "Your answer was cut off by the length limit. Continue exactly "
                                   "where it stopped, without repeating anything.";

/* The length limit of one request: what the user asked for, cut to what the
 * model's context leaves after used tokens; 0 when nothing worth asking fits. */
static int answer_budget(llm_agent *la, long used)
{
    int want = la->opts.max_tokens > 0 ? la->opts.max_tokens : kf_llm_default_max_tokens(la->llm);
    if (want <= 0) want = KF_LLM_DEFAULT_MAX_TOKENS;
    int n_ctx = kf_llm_context_tokens(la->llm);
    if (n_ctx <= 0) return want;
    long room = n_ctx - used - 16;
    if (room < MIN_ANSWER_TOKENS) return 0;
    return room < want ? (int)room : want;
}

/* Sends system+user (key_system/key_user: their key forms), continuing up to
 * twice when the answer is cut by the length limit, as long as the context
 * has room for it; the answer received so far is kept whatever a
 * continuation does.  Accumulates usage into io. */
static int ask(llm_agent *la, const kf_agent_ctx *ctx, const char *system, const char *user,
               const char *key_system, const char *key_user, uint64_t seed, kf_agent_io *io,
               char **answer, kf_error *err)
{
    kf_llm_message msgs[6];
    int n = 0;
    msgs[n++] = (kf_llm_message){KF_LLM_SYSTEM, system, key_system};
    msgs[n++] = (kf_llm_message){KF_LLM_USER, user, key_user};
    long used = est_tokens(system) + est_tokens(user);
    kf_sb acc = {0};
    char *prev = NULL;
    for (int round = 0; round < 3; round++) {
        kf_llm_request req = KF_LLM_REQUEST_INIT;
        req.messages = msgs;
        req.n_messages = n;
        req.max_tokens = answer_budget(la, used);
        if (req.max_tokens == 0) {
            if (round > 0) break;       /* no room to continue: keep what came */
            free(acc.s);
            return kf_failc(err, KF_E_UNAVAILABLE, KF_LLM_E_REQUEST,
                            "%s: the prompt (about %ld tokens) leaves no room for an answer in the model's context of %d tokens; use a model with a longer context (or raise the server's context length and --context-tokens)",
                            kf_llm_name(la->llm), used, kf_llm_context_tokens(la->llm));
        }
        req.temperature = la->opts.has_temperature ? la->opts.temperature : kf_llm_default_temperature(la->llm);
        req.has_seed = 1;
        req.seed = (long long)seed;
        if (ctx && ctx->deadline > 0) {
            double left = ctx->deadline - kf_now_s();
            if (left <= 0.05) {
                if (round > 0) break;
                free(acc.s);
                return kf_failc(err, KF_E_UNAVAILABLE, KF_LLM_E_TIMEOUT, "%s: the run's time budget (--max-time) is spent",
                                kf_llm_name(la->llm));
            }
            req.timeout_s = left;
        }
        kf_llm_response resp;
        memset(&resp, 0, sizeof resp);
        if (kf_llm_complete(la->llm, &req, &resp, err) != 0) {
            kf_llm_response_free(&resp);
            if (round > 0) {            /* the answer so far is kept: the loop judges it */
                kf_error_clear(err);
                break;
            }
            free(acc.s);
            return -1;
        }
        io->tokens_in += resp.prompt_tokens;
        io->tokens_out += resp.completion_tokens;
        io->cost_usd += resp.cost_usd;
        io->from_cache = resp.from_cache;
        kf_sb_printf(&acc, "%s", resp.content);
        int truncated = !strcmp(resp.finish_reason, "length");
        /* what the context holds now: exact when the server counted */
        if (resp.prompt_tokens > 0) used = resp.prompt_tokens + resp.completion_tokens;
        else used += est_tokens(resp.content);
        kf_llm_response_free(&resp);
        if (!truncated || n + 2 > 6) break;
        /* ask to continue exactly where it stopped */
        free(prev);
        prev = strdup(acc.s);
        if (!prev) break;
        if (n == 4) {
            msgs[2].content = msgs[2].key_content = prev;   /* one assistant turn, the whole answer */
        } else {
            msgs[n++] = (kf_llm_message){KF_LLM_ASSISTANT, prev, prev};
            msgs[n++] = (kf_llm_message){KF_LLM_USER, CONTINUE_MSG, CONTINUE_MSG};
        }
        used += est_tokens(CONTINUE_MSG);
    }
    free(prev);
    *answer = kf_sb_take(&acc);
    if (!*answer) *answer = strdup("");
    return 0;
}

/* Answer -> candidate for the backend; NULL with *why on a bad answer. */
static kf_candidate *parse_candidate(const kf_agent_ctx *ctx, const char *answer, char **why)
{
    kf_error e = {0};
    /* what the plugin consumes: a host entry function, or kernels and a
       launch plan; the fence tags an answer may use for the code: the
       plugin's tag, its file extension ("opencl", "cl"), and "c" (every
       language served today is a C dialect) */
    int host_entry = host_entry_backend(ctx);
    const char *ext = ctx->plugin ? kf_plugin_source_ext(ctx->plugin) : ".c";
    const char *langs[6] = {ctx->plugin ? kf_plugin_fence_tag(ctx->plugin) : "c", NULL, NULL, NULL, NULL, NULL};
    int nl = 1;
    if (ext[0] == '.' && strcmp(ext + 1, langs[0])) langs[nl++] = ext + 1;
    if (strcmp(langs[0], "c") && (nl < 2 || strcmp(langs[1], "c"))) langs[nl++] = "c";
    /* models tag C as C++ often enough (and the code is C either way) */
    langs[nl++] = "cpp";
    langs[nl++] = "c++";
    char *code = NULL;
    char src_name[64];
    snprintf(src_name, sizeof src_name, "%s%s", host_entry ? "candidate" : "kernel", ext);
    if (host_entry) {
        if (kf_answer_extract(answer, langs, &code, &e) != 0) {
            *why = strdup(e.msg);
            return NULL;
        }
        kf_candidate *c = kf_candidate_new(ctx->backend);
        kf_candidate_add_source(c, src_name, code);
        free(c->entry);
        c->entry = strdup("kf_kernel");
        free(code);
        return c;
    }
    const char *const *klangs = langs;
    static const char *const jlangs[] = {"json", NULL};
    if (kf_answer_extract(answer, klangs, &code, &e) != 0) {
        *why = strdup(e.msg);
        return NULL;
    }
    char *plan = NULL;
    if (kf_answer_extract(answer, jlangs, &plan, &e) != 0) {
        free(code);
        if (asprintf(why, "no launch plan: %s (answer with a ```json block holding the plan)", e.msg) < 0)
            *why = NULL;
        return NULL;
    }
    char *clean = kf_answer_clean_json(plan, &e);
    free(plan);
    if (!clean) {
        free(code);
        *why = strdup(e.msg);
        return NULL;
    }
    json_object *m = json_tokener_parse(clean);
    free(clean);
    if (!m || !json_object_is_type(m, json_type_object)) {
        json_object_put(m);
        free(code);
        *why = strdup("the launch plan is not a JSON object");
        return NULL;
    }
    json_object_object_add(m, "backend", json_object_new_string(ctx->backend));
    json_object *srcs = json_object_new_array();
    json_object *s0 = json_object_new_object();
    json_object_object_add(s0, "name", json_object_new_string(src_name));
    json_object_object_add(s0, "text", json_object_new_string(code));
    json_object_array_add(srcs, s0);
    json_object_object_add(m, "sources", srcs);
    free(code);
    kf_candidate *c = kf_candidate_parse_manifest(json_object_to_json_string(m), NULL, "launch plan", &e);
    json_object_put(m);
    if (!c) *why = strdup(e.msg);
    return c;
}

/* --from: the first generate prompt gets roles/reference.md, the other
 * run's verified best kernel, appended.  Takes user; NULL with err set. */
static char *with_reference(const kf_agent_ctx *ctx, char *user, kf_error *err)
{
    const kf_agent_reference *ref = ctx->reference;
    char step[32], t[32];
    snprintf(step, sizeof step, "%d", ref->best_step);
    char *kernel = candidate_text(ref->cand);
    const kf_prompt_var vars[] = {
        {"backend", ctx->backend}, {"reference_backend", ref->backend}, {"reference_run", ref->run_dir},
        {"reference_step", step}, {"reference_time", ref->best_s > 0 ? kf_fmt_duration(ref->best_s, t, sizeof t) : "-"},
        {"reference_kernel", kernel},
    };
    char *tmpl = kf_prompt_load(ctx->prompts_dir, "roles/reference.md", err);
    char *sec = tmpl ? kf_prompt_render(tmpl, "roles/reference.md", vars, (int)(sizeof vars / sizeof *vars), err) : NULL;
    free(tmpl);
    free(kernel);
    char *out = NULL;
    if (sec && asprintf(&out, "%s\n%s", user, sec) < 0) out = NULL;
    if (sec && !out) kf_fail(err, KF_E_INTERNAL, "out of memory");
    free(sec);
    free(user);
    return out;
}

/* What a failed request means for the run: -1 (the run stops, resumable)
 * when the setup is broken or the server is down, else 0 with *why set:
 * one failed step.  A request the time budget cut short is a failed step:
 * the loop stops on the budget next. */
static int request_failed(const kf_agent_ctx *ctx, kf_error *err, char **why)
{
    int budget = ctx->deadline > 0 && kf_now_s() >= ctx->deadline - 0.5 &&
                 (err->code == KF_LLM_E_TIMEOUT || err->code == KF_LLM_E_CMD);
    if (!budget && (kf_llm_error_is_fatal(err->code) || kf_llm_error_is_outage(err->code))) {
        if (!err->kind) err->kind = kf_llm_error_kind(err->code);
        return -1;
    }
    if (budget) {
        if (asprintf(why, "the run's time budget ran out during the request (%s)", err->msg) < 0) *why = NULL;
    } else {
        *why = strdup(err->msg);
    }
    kf_error_clear(err);
    return 0;
}

/* The template of a generation: an unusable last answer (no candidate, a
 * reason) gets its own, which says what was wrong with it. */
static const char *role_of(const kf_gen_request *req)
{
    if (req->kind == KF_GEN_FIX_COMPILE && !req->last && req->last_eval) return "roles/fix-answer.md";
    return req->kind == KF_GEN_FIX_COMPILE ? "roles/fix-compile.md"
         : req->kind == KF_GEN_FIX_MISMATCH ? "roles/fix-mismatch.md"
         : req->kind == KF_GEN_OPTIMIZE ? "roles/optimize.md" : "roles/generate.md";
}

/* system and user prompts and their key forms; -1 with err (the setup's) */
static int prompts(const kf_agent_ctx *ctx, const char *role, char **v, char *p[4], kf_error *err)
{
    memset(p, 0, 4 * sizeof *p);
    if (render2(ctx, "roles/system.md", v, &p[0], &p[1], err) != 0) return -1;
    if (render2(ctx, role, v, &p[2], &p[3], err) != 0) {
        free(p[0]);
        free(p[1]);
        p[0] = p[1] = NULL;
        return -1;
    }
    return 0;
}

static void free4(char *p[4])
{
    for (int i = 0; i < 4; i++) free(p[i]);
}

static int llm_generate(kf_agent *a, const kf_agent_ctx *ctx, const kf_gen_request *req,
                        kf_gen_result *res, kf_error *err)
{
    llm_agent *la = a->impl;
    memset(res, 0, sizeof *res);
    if (req->kind == KF_GEN_BASELINE)
        return kf_fail(err, KF_E_BAD_INPUT, "the LLM agent does not write baselines (the builtin agent does)");
    const char *role = role_of(req);
    const kf_candidate *last = req->kind == KF_GEN_OPTIMIZE ? req->best : req->last;
    const kf_eval_result *last_eval = req->kind == KF_GEN_OPTIMIZE ? req->best_eval : req->last_eval;
    char *v[V_COUNT] = {0};
    kf_error e = {0};
    fill_values(ctx, last, last_eval, req->best_eval, req->analysis, req->rec_index, v, &e);
    char *p[4];
    int prc = prompts(ctx, role, v, p, err);
    free_values(v);
    if (prc != 0) return -1;
    if (req->kind == KF_GEN_FIRST && ctx->reference) {
        /* --from: the other run's kernel in the prompt and in its key */
        if (!(p[2] = with_reference(ctx, p[2], err)) || !(p[3] = with_reference(ctx, p[3], err))) {
            free4(p);
            return -1;
        }
    }
    char *answer = NULL;
    int rc = ask(la, ctx, p[0], p[2], p[1], p[3], req->seed, &res->io, &answer, err);
    if (asprintf(&res->io.prompt, "=== system ===\n%s\n=== user ===\n%s", p[0], p[2]) < 0)
        res->io.prompt = NULL;
    free4(p);
    if (rc != 0) return request_failed(ctx, err, &res->error);
    res->io.answer = answer;
    char *why = NULL;
    res->cand = parse_candidate(ctx, answer, &why);
    if (!res->cand) res->error = why ? why : strdup("the answer held no usable candidate");
    else free(why);
    if (asprintf(&res->label, "%s by %s", kf_gen_kind_name(req->kind), a->spec) < 0) res->label = NULL;
    return 0;
}

/* Every template the agent may use is found and renders (kf_agent_check). */
static int llm_check(kf_agent *a, const kf_agent_ctx *ctx, kf_error *err)
{
    (void)a;
    static const char *const roles[] = {"roles/system.md", "roles/generate.md", "roles/fix-compile.md",
                                        "roles/fix-answer.md", "roles/fix-mismatch.md", "roles/optimize.md",
                                        "roles/analyze.md", NULL};
    char *v[V_COUNT];
    for (int i = 0; i < V_COUNT; i++) v[i] = (char *)"";
    for (int i = 0; roles[i]; i++) {
        char *t = render(ctx, roles[i], v, err);
        if (!t) return -1;
        free(t);
    }
    return 0;
}

static char *jstr(json_object *o, const char *k)
{
    json_object *v;
    return json_object_object_get_ex(o, k, &v) && json_object_is_type(v, json_type_string)
               ? strdup(json_object_get_string(v)) : NULL;
}

static int llm_analyze(kf_agent *a, const kf_agent_ctx *ctx, const kf_analyze_request *req,
                       kf_analysis *out, kf_agent_io *io, kf_error *err)
{
    llm_agent *la = a->impl;
    memset(out, 0, sizeof *out);
    char *v[V_COUNT] = {0};
    kf_error e = {0};
    fill_values(ctx, req->cand, req->eval, req->eval, req->previous, -1, v, &e);
    char *p[4];
    int prc = prompts(ctx, "roles/analyze.md", v, p, err);
    free_values(v);
    if (prc != 0) return -1;
    char *answer = NULL;
    /* --agent-seed (0: none) moves the analysis seed too */
    int rc = ask(la, ctx, p[0], p[2], p[1], p[3], (uint64_t)req->step * 7919u ^ ctx->agent_seed * 0x9E3779B97F4A7C15ull >> 17,
                 io, &answer, err);
    if (asprintf(&io->prompt, "=== system ===\n%s\n=== user ===\n%s", p[0], p[2]) < 0) io->prompt = NULL;
    free4(p);
    if (rc != 0) {
        char *why = NULL;
        if (request_failed(ctx, err, &why) != 0) return -1;
        out->bottleneck = strdup("unknown");
        if (asprintf(&out->text, "the analysis could not be asked: %s", why ? why : "?") < 0) out->text = NULL;
        free(why);
        return 0;
    }
    io->answer = answer;
    static const char *const jl[] = {"json", NULL};
    char *js = NULL, *clean = NULL;
    json_object *o = NULL;
    if (kf_answer_extract(answer, jl, &js, &e) == 0 && (clean = kf_answer_clean_json(js, &e)))
        o = json_tokener_parse(clean);
    free(js);
    free(clean);
    if (!o || !json_object_is_type(o, json_type_object)) {
        json_object_put(o);
        /* unusable analysis: keep the text so the next prompt still carries it */
        out->bottleneck = strdup("unknown");
        out->text = strdup(answer);
        out->n_recs = 1;
        out->recs = calloc(1, sizeof *out->recs);
        out->recs[0].what = strdup("see the analysis text");
        out->recs[0].why = strdup(e.msg[0] ? e.msg : "the analysis answer held no JSON");
        out->recs[0].expected_gain = 1.0;
        return 0;
    }
    out->bottleneck = jstr(o, "bottleneck");
    out->text = jstr(o, "text");
    json_object *recs;
    if (json_object_object_get_ex(o, "recommendations", &recs) && json_object_is_type(recs, json_type_array)) {
        size_t n = json_object_array_length(recs);
        if (n > 16) n = 16;
        out->recs = calloc(n ? n : 1, sizeof *out->recs);
        for (size_t i = 0; i < n; i++) {
            json_object *r = json_object_array_get_idx(recs, i), *g;
            kf_recommendation *rec = &out->recs[out->n_recs];
            rec->what = jstr(r, "what");
            if (!rec->what) continue;
            rec->why = jstr(r, "why");
            rec->expected_gain = json_object_object_get_ex(r, "expected_gain", &g) ? json_object_get_double(g) : 1.0;
            out->n_recs++;
        }
    }
    json_object_put(o);
    return 0;
}

static void llm_close(kf_agent *a)
{
    llm_agent *la = a->impl;
    if (la) kf_llm_close(la->llm);
    free(la);
    free(a->spec);
    free(a);
}

static const kf_agent_ops llm_ops = {
    .kind = "llm", .generate = llm_generate, .analyze = llm_analyze, .close = llm_close,
    .check = llm_check,
};

kf_agent *kf_llm_agent_open(const char *spec, const kf_agent_opts *opts, kf_error *err)
{
    kf_llm_config *cfg = kf_llm_config_load(NULL, err);
    if (!cfg) return NULL;
    kf_llm *llm = kf_llm_open(spec, cfg, err);
    kf_llm_config_free(cfg);
    if (!llm) return NULL;
    if (opts && opts->record_path && kf_llm_set_record(llm, opts->record_path, err) != 0) {
        kf_llm_close(llm);
        return NULL;
    }
    char *cache = opts && opts->cache_dir ? strdup(opts->cache_dir) : kf_llm_default_cache_dir();
    if (cache && kf_llm_set_cache(llm, cache, err) != 0) {
        free(cache);
        kf_llm_close(llm);
        return NULL;
    }
    free(cache);
    if (opts && opts->context_tokens > 0) kf_llm_set_context_tokens(llm, opts->context_tokens);
    if (opts && opts->request_timeout_s > 0) kf_llm_set_timeout(llm, opts->request_timeout_s);
    if (opts) kf_llm_set_progress(llm, &opts->progress);
    kf_agent *a = calloc(1, sizeof *a);
    llm_agent *la = calloc(1, sizeof *la);
    la->llm = llm;
    if (opts) la->opts = *opts;
    a->ops = &llm_ops;
    a->spec = strdup(kf_llm_name(llm));
    a->impl = la;
    return a;
}
