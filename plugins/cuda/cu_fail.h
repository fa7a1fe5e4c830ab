/*
 * cu_fail.h — the cuda plugin's one error helper: a hook's message goes
 * into the caller's `char **` (malloc'ed, the core frees it) and its
 * status is returned.  Pure (no CUDA header), so the plugin's pure parts
 * (cu_blas_plan.c) and their tests use it too.
 */
#ifndef KF_CU_FAIL_H
#define KF_CU_FAIL_H

#include "kforge-plugin.h"

#if defined(__GNUC__)
#define KFCU_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define KFCU_PRINTF(a, b)
#endif

/* The formatted text, malloc'ed; NULL when out of memory. */
char *kfcu_strf(const char *fmt, ...) KFCU_PRINTF(1, 2);
/* Replaces *out (when out is not NULL; the old text is freed) with the
 * formatted message and returns st. */
kf_status kfcu_fail(char **out, kf_status st, const char *fmt, ...) KFCU_PRINTF(3, 4);

#endif
