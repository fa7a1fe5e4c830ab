/*
 * precision.h — the arithmetic a run allows its candidates (--precision).
 *
 * "any" (the default): any precision whose results pass the problem's own
 * tolerance; the built-in agent tries bf16, TF32, fp16 storage and AMX
 * tiles where the device has them, and keeps them only when they pass.
 * "fp32": the results must be as accurate as fp32 arithmetic gives.  The
 * contract is the accuracy, enforced on every candidate whoever wrote it:
 * the problem's relative-L2 bound is lowered to KF_FP32_REL_L2
 * (kf_problem_require_fp32), which fp32 kernels pass with room and GEMMs
 * on bf16, fp16 or TF32 inputs fail wherever the rounding of their inputs
 * shows in the output.  The built-in agent then offers fp32 points only,
 * and the LLM agents are told (prompts' {{tolerance}}).
 */
#ifndef KF_PRECISION_H
#define KF_PRECISION_H

#include "problem/problem.h"

typedef enum kf_precision_policy {
    KF_PRECISION_ANY = 0,
    KF_PRECISION_FP32 = 1
} kf_precision_policy;

/* The relative-L2 bound of --precision fp32.  Measured (2-core Xeon VM,
 * the 20 problems of problems/level2 at the cpu preset, 2026-11-28): the
 * built-in agent's fp32 kernels 0 to 1.4e-6; its AMX bf16 kernels 3.5e-4 to
 * 2.4e-3 where the GEMM's rounding reaches the output (below 1.2e-5 where a
 * reduction or a clamp hides it); 3xbf16 2.8e-6 to 3.2e-6.  TF32 and fp16
 * (10-bit mantissas) round inputs 8 times finer than bf16 (not measured
 * here: about an eighth of bf16's error, so above the bound where bf16's is
 * above 1e-4). */
#define KF_FP32_REL_L2 1e-5

/* "any" or "fp32" -> *out; 0, or -1 for another name. */
int kf_precision_policy_parse(const char *name, int *out);
/* "any", "fp32" */
const char *kf_precision_policy_name(int policy);
/* Lowers p's relative-L2 bound to KF_FP32_REL_L2 (never raises it). */
void kf_problem_require_fp32(kf_problem *p);

#endif
