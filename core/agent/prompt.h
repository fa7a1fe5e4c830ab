/*
 * prompt.h — prompt templates: finding them and filling their {{variables}}.
 *
 * Templates live in a directory laid out like prompts/ (roles/NAME.md,
 * backends/BACKEND.md).  Lookup order for each file: the run's --prompts
 * directory, $KFORGE_PROMPTS, the installed $(pkgdatadir)/prompts, then the
 * prompts/ of the source tree kforge was built from (KF_SRCDIR_PROMPTS), so a
 * build that was never installed needs no --prompts.
 */
#ifndef KF_PROMPT_H
#define KF_PROMPT_H

#include "util/error.h"

typedef struct kf_prompt_var {
    const char *name;
    const char *value;
} kf_prompt_var;

/* Reads REL (e.g. "roles/generate.md") from the first directory that has it;
 * malloc'ed text or NULL with err (KF_E_BAD_INPUT: the setup's) naming every
 * place looked at. */
char *kf_prompt_load(const char *override_dir, const char *rel, kf_error *err);

/* Replaces every {{name}} in tmpl by its value.  An unknown name is an error
 * ("roles/generate.md: unknown variable {{grpah}}"); malloc'ed result. */
char *kf_prompt_render(const char *tmpl, const char *label, const kf_prompt_var *vars, int n_vars,
                       kf_error *err);

#endif
