/*
 * emit.h — the built-in agent's emitters: one per target LANGUAGE.
 *
 * This folder is the only place in core/ that knows how to write code for a
 * backend.  An emitter is found by the language a plugin declares
 * (kf_backend.language: "c", "opencl-c", ...), never by the plugin's name,
 * so any plugin that declares a language with an emitter gets the built-in
 * agent: a third-party OpenCL-C plugin, the Level Zero plugin.
 *
 * Each emitter owns its search-space descriptor: the knobs a point of that
 * language carries (name, accepted range, the values the neighbour search
 * steps through), its defaults, the neighbours it offers, the labels and the
 * cost model's GEMM efficiency.  A point (builtin.h) holds the common
 * fields (baseline, fusion, precision) and the values of its emitter's
 * knobs in knob[], in the order of em->knobs.
 *
 * Adding a language: write emit/LANG_space.c (the descriptor) and the
 * generator, add the emitter to the table in emit/emitters.c, and golden
 * outputs under tests/golden/ (tests/golden/regen.sh).
 *
 * Ownership: emitters are static and live for the program; strings they
 * return as char * are malloc'ed for the caller.
 */
#ifndef KF_BT_EMIT_H
#define KF_BT_EMIT_H

#include <stddef.h>

#include "backend/registry.h"
#include "candidate/candidate.h"
#include "eval/eval.h"
#include "problem/problem.h"
#include "util/error.h"

struct kf_bt_plan;
struct kf_bt_point;
struct kf_bt_gemm;

#define KF_BT_MAX_KNOBS 16

/* One knob of an emitter's search space. */
typedef struct kf_bt_knob {
    const char *name;      /* the point's JSON field: "mc", "ts" ... */
    int lo, hi;            /* accepted range (JSON values outside are refused) */
    const int *steps;      /* ascending values the neighbour search steps
                              through (previous and next of the nearest);
                              NULL: a toggle 0/1 or stepped by the emitter */
    int n_steps;
    const char *noun;      /* the analyzer's name for it: "set <noun> to 8
                              (was 4)" ("MC", "the vector width") */
} kf_bt_knob;

/* What the cost model knows of a problem's GEMMs (builtin_search.c). */
typedef struct kf_bt_gemm_work {
    double max_m, max_n;   /* the largest GEMM's rows and columns */
    int host_threads;      /* online CPUs of this host */
    int row_tail;          /* a row op follows a GEMM (rows fusion makes row panels) */
    double max_k;          /* the deepest GEMM's K (0: unknown) */
} kf_bt_gemm_work;

/* Called by an emitter's neighbours() for each candidate neighbour; skips
 * invalid points, duplicates and the origin.  Returns 1 when added. */
typedef struct kf_bt_nbr_sink kf_bt_nbr_sink;
int kf_bt_nbr_push(kf_bt_nbr_sink *s, const struct kf_bt_point *q);
/* The problem whose neighbours s collects (NULL when none was given). */
const kf_resolved *kf_bt_nbr_problem(const kf_bt_nbr_sink *s);

typedef struct kf_bt_emitter {
    const char *language;  /* the plugin language it serves: "c", "opencl-c" */
    const char *what;      /* "C + OpenMP", "OpenCL C + launch plan" */
    int n_knobs;
    const kf_bt_knob *knobs;

    /* Sets the knobs of a new point (p's common fields are already set:
     * fusion ROWS, fp32) for the resolved sizes and device; r and dev may
     * be NULL.  May also change p->fusion.  Deterministic. */
    void (*defaults)(struct kf_bt_point *p, const kf_resolved *r, const kf_device_info *dev);
    /* 0 when p is a valid point of this language, else -1 with a one-line
     * error (a bound that the knob ranges alone do not express). */
    int (*check)(const struct kf_bt_point *p, kf_error *err);
    /* Optional: 0 when the neighbour search must not offer p (e.g. a
     * work-group above the device limit); a point given by hand is not
     * refused by it: the generator says what is wrong. */
    int (*offerable)(const struct kf_bt_point *p);
    /* Optional: after a failure of p (BF16, TF32 ...), the next more
     * accurate precision this language prefers, set in p; 1 if it changed
     * p, 0 to take the common order (BF16 -> 3xBF16 -> fp32).  The cuda-c
     * emitter on Hopper: BF16 -> TF32 (wgmma) -> 3xBF16. */
    int (*more_accurate)(struct kf_bt_point *p);
    /* One step towards a more conservative point once fusion is off:
     * 1 if it changed p, 0 if p is already the most conservative. */
    int (*conservative)(struct kf_bt_point *p);
    /* Pushes the neighbours of p along this language's knobs, in a fixed
     * order (fusion steps are common and pushed before). */
    void (*neighbours)(const struct kf_bt_point *p, kf_bt_nbr_sink *s);
    /* Short label of a non-baseline point ("gemm ts16 wpt4 v4 local
     * rows-fused"); fusion_name names the fusion.  Returns buf. */
    char *(*label)(const struct kf_bt_point *p, const char *fusion_name, char *buf, size_t n);
    /* Optional: the same for a problem without a matmul or linear, whose
     * GEMM knobs and precision change nothing in the code ("loops
     * rows-fused omp stream"); NULL: label. */
    char *(*loops_label)(const struct kf_bt_point *p, const char *fusion_name, char *buf, size_t n);
    /* Optional: the wording of a change that the per-knob formats cannot
     * say (e.g. two knobs that move together); NULL when not handled. */
    const char *(*describe_change)(const struct kf_bt_point *a, const struct kf_bt_point *b, char *buf,
                                   size_t n);
    /* Optional: threads the candidate uses, 0 for all (cost model). */
    int (*threads)(const struct kf_bt_point *p);
    /* Optional: the compute unit whose peak the GEMMs at p are modelled
     * at (kf_roofline.unit_peak_flops' numbers: 0 the device's fp32 peak,
     * 1 a CPU's vdpbf16ps); gemm_eff is relative to that peak.  NULL:
     * every point at the current candidate's unit's peak (rf->peak_flops). */
    int (*unit)(const struct kf_bt_point *p);
    /* Optional: relative efficiency (0..1] of the GEMM at p with `threads`
     * threads; NULL: a constant 0.5. */
    double (*gemm_eff)(const struct kf_bt_point *p, const kf_bt_gemm_work *w, int threads);
    /* Optional: bytes of memory traffic per byte that the maps and row ops
     * (not a GEMM's epilogue) store into the problem's outputs at p, `bytes`
     * of them in all (2:
     * each line read before it is overwritten; 1: streaming stores, or
     * outputs that stay in cache); NULL: 1. */
    double (*store_traffic)(const struct kf_bt_point *p, double bytes);
    /* Optional: p's choices that the cost model rates alike and the CPU
     * decides, as one value (equal values: the same choices), e.g. the C
     * emitter's GroupNorm reads beside the previous group's stores or in a
     * pass of their own, and its streamed loops' prefetch (neighbours()
     * offers each only where the problem's code changes with it).  A
     * neighbour that differs from the current point in this value and
     * nothing the model rates is offered just above even, after every
     * modelled gain, and the search measures it; NULL: none. */
    int (*unmodelled)(const struct kf_bt_point *p);
    /* Optional: the fusion the plan of a non-baseline point p is built
     * with, given the point's own (e.g. plain loops have no row panels). */
    int (*plan_fusion)(const struct kf_bt_point *p, int fusion);
    /* Optional: adjusts the knobs of q, a neighbour that differs from its
     * origin in fusion only, to the loops the new fusion brings (e.g. row
     * panels need MC below M for the threads to share them); r may be
     * NULL.  Only shrinks blocks; deterministic. */
    void (*refit_fusion)(struct kf_bt_point *q, const kf_resolved *r);
    /* The plan at point p as a candidate for the run's backend: *out a new
     * candidate, *label a malloc'ed short description; dev may be NULL.
     * Returns 0, or -1 with err set (a generator bug or limit). */
    int (*generate)(const struct kf_bt_plan *plan, const struct kf_bt_point *pt, const char *backend,
                    const kf_device_info *dev, kf_candidate **out, char **label, kf_error *err);
    /* Optional: the GEMM g of r alone through the language's vendor
     * library, as a candidate for `backend` with inputs a, b and output c:
     * the GEMM anchor (core/run/anchor.h).  *call gets a malloc'ed
     * description of the call ("cblas_sgemm alone (OpenBLAS, OpenMP build)").  Returns 0, or -1 with err
     * set when this build has no such library. */
    int (*library_gemm)(const kf_resolved *r, const struct kf_bt_gemm *g, const char *backend,
                        kf_candidate **out, char **call, kf_error *err);
} kf_bt_emitter;

/* The emitter of a language (NULL: none).  Languages are compared exactly. */
const kf_bt_emitter *kf_bt_emitter_for(const char *language);
/* The emitter for a loaded plugin, from its declared language. */
const kf_bt_emitter *kf_bt_emitter_of_plugin(const kf_plugin *p);
/* Every emitter, NULL-terminated (for `kforge backends` and the docs). */
extern const kf_bt_emitter *const kf_bt_emitters[];

/* Pushes the previous and next of knob k's steps (around the entry
 * nearest p's value) as neighbours of p. */
void kf_bt_step_knob(const struct kf_bt_point *p, int k, kf_bt_nbr_sink *s);

/* A knob's index in em->knobs, -1 if em has no such knob. */
int kf_bt_knob_index(const kf_bt_emitter *em, const char *name);

/* The emitters (emit/cpu_space.c, emit/ocl_space.c, emit/cuda_from_ocl.c). */
extern const kf_bt_emitter kf_bt_emit_c;
extern const kf_bt_emitter kf_bt_emit_opencl_c;
extern const kf_bt_emitter kf_bt_emit_cuda_c;

#endif
