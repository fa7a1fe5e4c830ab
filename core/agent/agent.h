/*
 * agent.h — the two agents of the refinement loop, behind one interface.
 *
 * A generation agent turns a request (problem, backend, what happened last)
 * into a candidate; an analysis agent turns a profiled candidate into
 * structured recommendations.  Two implementations exist:
 *   - "builtin": the deterministic template-and-search synthesizer with a
 *     roofline-driven analyzer (core/agent/builtin/); no network, no key;
 *   - LLM agents ("openai:MODEL", "anthropic:MODEL", "cmd:COMMAND",
 *     "replay:FILE"): prompts rendered from prompts/ templates, answers
 *     parsed by core/llm/answer.c (core/agent/agent_llm.c).
 * Both produce the same kf_candidate and are driven by the same loop
 * (core/run/loop.c).
 *
 * Ownership: results are owned by the caller and released with the
 * matching *_free function.  Errors: a generation that yields no usable
 * candidate is NOT an error of the call: it returns 0 with res->cand NULL
 * and res->error set (one failed step, fed back to the agent).  -1 is
 * reserved for unusable requests (no such backend for the builtin agent,
 * provider down after all retries ...).
 */
#ifndef KF_AGENT_H
#define KF_AGENT_H

#include <stdint.h>
#include "backend/registry.h"
#include "candidate/candidate.h"
#include "util/error.h"
#include "util/progress.h"
#include "eval/eval.h"
#include "problem/problem.h"

typedef enum kf_gen_kind {
    KF_GEN_FIRST = 0,        /* no history: write a correct candidate */
    KF_GEN_FIX_COMPILE,      /* last candidate did not compile */
    KF_GEN_FIX_MISMATCH,     /* last candidate compiled but failed verification */
    KF_GEN_OPTIMIZE,         /* last candidate is correct: apply recommendations */
    KF_GEN_BASELINE          /* op-by-op eager baseline (builtin only) */
} kf_gen_kind;

const char *kf_gen_kind_name(kf_gen_kind k);   /* "generate", "fix-compile", ... */
int kf_gen_kind_from_name(const char *name);   /* back; -1 if unknown */

/* One recommendation of the analysis agent. */
typedef struct kf_recommendation {
    char *what;              /* "raise the GEMM tile to 64x64" */
    char *why;               /* "compute bound at 31% of peak; tile loads dominate" */
    double expected_gain;    /* expected speedup factor of the next candidate, >= 1 */
    char *params;            /* builtin: JSON object of search-space settings, else NULL */
} kf_recommendation;

typedef struct kf_analysis {
    char *bottleneck;        /* "compute", "memory", "launch", "tail", "unknown" */
    char *text;              /* free text for the record and the next prompt */
    int n_recs;
    kf_recommendation *recs;
    int stop;                /* 1: within the target fraction of the floor, or the
                                search space is exhausted: nothing left to try */
    char *missed;            /* why the last recommendation missed, or NULL */
} kf_analysis;

void kf_analysis_free(kf_analysis *a);
char *kf_analysis_json(const kf_analysis *a);   /* malloc'ed */
/* Reads kf_analysis_json()'s text back into *out (other keys are ignored),
 * e.g. from the journal of a resumed run.  Returns 0, or -1 with err set. */
int kf_analysis_parse(const char *json, kf_analysis *out, kf_error *err);

typedef struct kf_agent_ctx {
    const kf_resolved *r;            /* problem at the run's preset */
    const char *backend;             /* "cpu-simd", "opencl", ... */
    const char *backend_language;    /* plugin's language string */
    const kf_plugin *plugin;         /* the run's plugin: capabilities, source
                                        extension, fence tag, LLM guide; may be
                                        NULL (then: language "c" = host entry) */
    const kf_device_info *device;    /* may be NULL */
    const char *prompts_dir;         /* templates (LLM agents) */
    const char *run_dir;             /* where prompts and answers are written */
    double target_fraction;          /* stop when roofline fraction >= this */
    uint64_t agent_seed;             /* --agent-seed, 0 = none.  LLM agents: mixed into
                                        every request's sampling seed (the loop mixes it
                                        into kf_gen_request.seed; analyses here).  The
                                        builtin agent: its analyzer orders the untried
                                        neighbours by the modelled gain times a factor in
                                        [0.95, 1.05) drawn from (seed, neighbour), so
                                        neighbours within ~10% of each other (exact ties
                                        included) come in a seed-dependent order; the
                                        first candidate and the baseline do not change */
    const struct kf_agent_reference *reference;   /* --from: another run's verified
                                        best kernel, or NULL */
    double deadline;                 /* kf_now_s() when the run's time budget ends; 0 none:
                                        no request of an LLM agent outlives it */
    double baseline_s;               /* the op-by-op baseline's median time, 0 unknown */
    int precision;                   /* kf_precision_policy (problem/precision.h): FP32 keeps
                                        the builtin agent's points to fp32 and tells the LLM
                                        agents (the problem's bound is lowered already) */
} kf_agent_ctx;

/* --from RUN_DIR: the verified best kernel of another run (usually another
 * backend), given to the generation agent as a reference when it writes
 * its first candidate.  LLM agents: a section of the first generate prompt
 * (prompts/roles/reference.md); the builtin agent: the source's search
 * point (knobs) as its start point where this backend's emitter accepts
 * it. */
typedef struct kf_agent_reference {
    const char *run_dir;             /* the source run directory */
    const char *backend;             /* its backend */
    const char *agent;               /* its agent spec */
    int best_step;                   /* the step that found its best */
    const char *best_dir;            /* its best candidate, relative to run_dir */
    double best_s;                   /* its median time, on its own device */
    const kf_candidate *cand;        /* the candidate itself */
    const char *point;               /* the builtin point it came from (JSON, without
                                        "backend"), or NULL */
} kf_agent_reference;

typedef struct kf_gen_request {
    kf_gen_kind kind;
    int step;                        /* loop step number, for records */
    int sample;                      /* 0..samples-1 within the step */
    uint64_t seed;
    const kf_candidate *last;        /* previous candidate or NULL */
    const kf_eval_result *last_eval; /* its evaluation or NULL */
    const kf_candidate *best;        /* best correct candidate so far or NULL */
    const kf_eval_result *best_eval;
    const kf_analysis *analysis;     /* recommendations to apply (OPTIMIZE) */
    int rec_index;                   /* which recommendation this sample applies */
} kf_gen_request;

typedef struct kf_agent_io {
    char *prompt;                    /* rendered prompt, or NULL (builtin) */
    char *answer;                    /* raw answer, or NULL */
    long tokens_in, tokens_out;
    double cost_usd;
    int from_cache;
} kf_agent_io;

typedef struct kf_gen_result {
    kf_candidate *cand;              /* NULL when the answer was unusable */
    char *error;                     /* why it was unusable, or NULL */
    char *label;                     /* short description: "gemm 64x64 v8 fused" */
    kf_agent_io io;
} kf_gen_result;

void kf_gen_result_free(kf_gen_result *g);

typedef struct kf_analyze_request {
    int step;
    const kf_candidate *cand;        /* the profiled candidate */
    const kf_eval_result *eval;      /* with timing and roofline */
    const kf_analysis *previous;     /* last analysis (to judge whether it missed) */
    double previous_time_s;          /* time before the last recommendation, 0 if none */
} kf_analyze_request;

typedef struct kf_agent kf_agent;

typedef struct kf_agent_ops {
    const char *kind;                /* "builtin", "llm" */
    int (*generate)(kf_agent *a, const kf_agent_ctx *ctx, const kf_gen_request *req,
                    kf_gen_result *res, kf_error *err);
    int (*analyze)(kf_agent *a, const kf_agent_ctx *ctx, const kf_analyze_request *req,
                   kf_analysis *out, kf_agent_io *io, kf_error *err);
    void (*close)(kf_agent *a);
    /* Optional: the agent's own memory (the built-in agent's search
     * history) as JSON text, malloc'ed, and back.  The loop journals it
     * after every generation and analysis and restores the last one on
     * --resume, so that a resumed run decides as the uninterrupted one
     * would.  NULL members: a stateless agent. */
    char *(*save_state)(kf_agent *a);
    int (*load_state)(kf_agent *a, const kf_agent_ctx *ctx, const char *state, kf_error *err);
    /* Optional: see kf_agent_check. */
    int (*check)(kf_agent *a, const kf_agent_ctx *ctx, kf_error *err);
} kf_agent_ops;

struct kf_agent {
    const kf_agent_ops *ops;
    char *spec;                      /* "builtin", "openai:gpt-4o" ... */
    void *impl;
};

/* Agent options from the CLI (record/replay, cache, config).  Zero fields
 * take the config's value ([llm], [http] in doc/config.md), else the
 * default. */
typedef struct kf_agent_opts {
    const char *record_path;         /* --record FILE, or NULL */
    const char *cache_dir;           /* response cache dir, or NULL */
    int max_tokens;                  /* --max-tokens: an answer's length; 0: [llm]
                                        max_tokens, else 4096; always cut to what the
                                        model's context leaves after the prompt */
    int has_temperature;             /* temperature is set (--temperature) */
    double temperature;
    int context_tokens;              /* --context-tokens: the model's context; 0: [llm]
                                        context_tokens, else what the server says */
    double request_timeout_s;        /* --request-timeout: one attempt; 0: [http] timeout */
    kf_progress progress;            /* retries and waits (fn NULL: quiet) */
} kf_agent_opts;

/* Checks, before anything is measured, that the agent can work: an LLM
 * agent's prompt templates are all found and render.  0, or -1 with err
 * (KF_E_BAD_INPUT, what to do).  The built-in agent always can. */
int kf_agent_check(kf_agent *a, const kf_agent_ctx *ctx, kf_error *err);

/* "builtin" (default when spec is NULL), "builtin:POINT", or an LLM
 * provider spec. */
kf_agent *kf_agent_open(const char *spec, const kf_agent_opts *opts, kf_error *err);
void kf_agent_close(kf_agent *a);

/* The builtin agent's constructor (core/agent/builtin/builtin_agent.c).  start: NULL, or
 * the JSON object of search-space fields its first candidate uses instead
 * of the default point ("--agent builtin:POINT"); checked here (unknown
 * field, out of range: NULL with code 2). */
kf_agent *kf_builtin_agent_open(const char *start, kf_error *err);
/* The LLM agent's constructor (core/agent/agent_llm.c). */
kf_agent *kf_llm_agent_open(const char *spec, const kf_agent_opts *opts, kf_error *err);

#endif
