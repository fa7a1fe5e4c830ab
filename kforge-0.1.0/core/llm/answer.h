/*
 * answer.h — reading what a model answered: fenced code blocks and a JSON launch plan.
 *
 * Real answers put prose around code, give several blocks (drafts, then the final one),
 * use ``` or ```` fences (or ~~~), tag them c / opencl / cl / cuda / json (or not at all),
 * get cut off mid-block when they hit max_tokens, or come back empty.  These functions pick
 * what the caller wants or say, in one line fit to send back to the model, what was wrong.
 *
 * Fences follow CommonMark: a line holding >= 3 backticks (or tildes) opens a block, the
 * first word after them is its language (lowercased); the block ends at a line holding
 * only >= as many of the same character.  A block inside a longer fence (```` around ```)
 * is content.  A closing ``` glued to the last code line ("}```") also closes.
 *
 * err->code is one of KF_ANSWER_E_*; every function is pure (no I/O).
 */
#ifndef KF_ANSWER_H
#define KF_ANSWER_H

#include "util/error.h"

enum {
    KF_ANSWER_E_EMPTY = 120,     /* the answer is empty or only whitespace */
    KF_ANSWER_E_NO_CODE,         /* prose only, no fenced block */
    KF_ANSWER_E_TRUNCATED,       /* the last block of the wanted kind has no closing fence */
    KF_ANSWER_E_WRONG_LANG,      /* blocks, but none of the wanted languages (or untagged) */
    KF_ANSWER_E_EMPTY_BLOCK,     /* the chosen block holds only whitespace */
    KF_ANSWER_E_BAD_JSON         /* the plan is not JSON even after cleaning, or not an object */
};

/* Extracts the LAST COMPLETE fenced block whose language is one of langs (a NULL-terminated
 * list, compared case-insensitively; langs NULL = any language); when no tagged block
 * matches, the last complete untagged block.  If the answer ends inside an unterminated
 * block that is of a wanted language or untagged, that is a truncated answer
 * (KF_ANSWER_E_TRUNCATED) even when an earlier block is complete: the model was
 * still writing its final version.
 * On success *code is the block's text (malloc'ed, CRLF turned into LF, ending with '\n')
 * and 0 is returned; on failure -1 and a one-line diagnosis in err. */
int kf_answer_extract(const char *text, const char *const *langs, char **code, kf_error *err);

/* Cleans a JSON text the way models write it into strict JSON: strips a BOM, // and
 * block comments, trailing commas before } or ], and escapes raw newlines / tabs / control
 * characters inside strings (multi-line source pasted into "text").  The result must be a
 * single JSON object; it is returned re-serialized (pretty, malloc'ed) so that
 * kf_candidate_parse_manifest() reads it.  NULL and err (KF_ANSWER_E_BAD_JSON, with line
 * and column) otherwise. */
char *kf_answer_clean_json(const char *text, kf_error *err);

/* The launch plan of an answer: the last complete ```json (or jsonc / json5) block, else
 * the last untagged block, else the whole answer when it is a bare {...} object; then
 * kf_answer_clean_json.  Malloc'ed; NULL and err as above. */
char *kf_answer_extract_json(const char *text, kf_error *err);

#endif
