/*
 * run_record.h — files of a run directory: evaluation results, prompts and
 * answers.  Each writer is atomic (write to a temp file, fsync, rename) and
 * creates its file owner-only (0600).
 */
#ifndef KF_RUN_RECORD_H
#define KF_RUN_RECORD_H

#include <stddef.h>
#include "agent/agent.h"
#include "util/error.h"
#include "eval/eval.h"

/* DIR/eval.json (the full result) and DIR/verdict.json (a short summary). */
int kf_run_save_eval(const char *dir, const kf_eval_result *res, kf_error *err);
/* Reads the result back from DIR/eval.json: everything kf_run_save_eval
 * wrote, timing samples, counters and every roofline figure included
 * (non-finite numbers come back as NaN).  Records without eval.json fall
 * back to DIR/verdict.json (verdict, texts, median/min, floor, fraction). */
int kf_run_load_eval(const char *dir, kf_eval_result *res, kf_error *err);
/* DIR/prompt.md and DIR/answer.md when present. */
int kf_run_save_io(const char *dir, const kf_agent_io *io, kf_error *err);
int kf_run_save_text(const char *dir, const char *name, const char *text, kf_error *err);
/* Parses a verdict name back ("mismatch" -> KF_FAIL_MISMATCH); -1 if unknown. */
int kf_verdict_from_name(const char *name);

#endif
