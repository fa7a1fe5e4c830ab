/*
 * test_loop.c — the refinement loop's state machine (core/run/loop_decide.c)
 * across every verdict and phase, the judgement of a recorded best on
 * resume, and the journal the loop replays (append, read back, torn last
 * line, missing journal, owner-only mode).
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kf_test.h"
#include "run/journal.h"
#include "run/loop_decide.h"

/* FUNCTIONAL phase: first, then the repair that fits the last verdict. */
KF_TEST(functional_phase_repairs_by_verdict)
{
    kf_loop_state s = {PHASE_FUNCTIONAL, 0};
    KF_CHECK_INT(kf_loop_next_kind(&s, 0, KF_PASS), KF_GEN_FIRST);
    KF_CHECK_INT(kf_loop_next_kind(&s, 1, KF_FAIL_COMPILE), KF_GEN_FIX_COMPILE);
    KF_CHECK_INT(kf_loop_next_kind(&s, 1, KF_FAIL_BIND), KF_GEN_FIX_COMPILE);
    /* every other failure is a wrong or unsafe program: fix-mismatch */
    for (int v = KF_FAIL_MISMATCH; v <= KF_FAIL_TIMING; v++)
        KF_CHECK_MSG(kf_loop_next_kind(&s, 1, (kf_verdict)v) == KF_GEN_FIX_MISMATCH, "verdict %s",
                     kf_verdict_name((kf_verdict)v));
    KF_CHECK_INT(kf_loop_next_kind(&s, 1, KF_PASS), KF_GEN_OPTIMIZE);
}

/* A functional step that leaves a correct best switches to OPTIMIZE; one
 * that does not stays FUNCTIONAL. */
KF_TEST(first_correct_candidate_switches_to_optimize)
{
    kf_loop_state s = {PHASE_FUNCTIONAL, 0};
    kf_loop_after_step(&s, KF_GEN_FIRST, 0, 0, 0, 2);
    KF_CHECK_INT(s.phase, PHASE_FUNCTIONAL);
    kf_loop_after_step(&s, KF_GEN_FIX_MISMATCH, 1, 1, 1, 2);
    KF_CHECK_INT(s.phase, PHASE_OPTIMIZE);
    KF_CHECK_INT(s.fixes, 0);
    KF_CHECK_INT(kf_loop_next_kind(&s, 1, KF_PASS), KF_GEN_OPTIMIZE);
    /* in OPTIMIZE with no repair pending, even a failed last candidate
       means: optimize from the best */
    KF_CHECK_INT(kf_loop_next_kind(&s, 1, KF_FAIL_MISMATCH), KF_GEN_OPTIMIZE);
}

/* A failed optimization variant gets max_fix repairs, then the loop goes
 * back to optimizing from the best. */
KF_TEST(failed_variant_gets_max_fix_repairs)
{
    kf_loop_state s = {PHASE_OPTIMIZE, 0};
    kf_loop_after_step(&s, KF_GEN_OPTIMIZE, 0, 1, 0, 2);
    KF_CHECK_INT(s.fixes, 1);
    KF_CHECK_INT(kf_loop_next_kind(&s, 1, KF_FAIL_COMPILE), KF_GEN_FIX_COMPILE);
    kf_loop_after_step(&s, KF_GEN_FIX_COMPILE, 0, 1, 0, 2);
    KF_CHECK_INT(s.fixes, 2);
    KF_CHECK_INT(kf_loop_next_kind(&s, 1, KF_FAIL_MISMATCH), KF_GEN_FIX_MISMATCH);
    kf_loop_after_step(&s, KF_GEN_FIX_MISMATCH, 0, 1, 0, 2);   /* third failure: give up on it */
    KF_CHECK_INT(s.fixes, 0);
    KF_CHECK_INT(s.phase, PHASE_OPTIMIZE);
    KF_CHECK_INT(kf_loop_next_kind(&s, 1, KF_FAIL_MISMATCH), KF_GEN_OPTIMIZE);
}

/* A repair that passes ends the repairs; with max_fix 0 a failed variant
 * is never repaired; a passing variant needs none. */
KF_TEST(repairs_end_on_pass_and_max_fix_zero_means_none)
{
    kf_loop_state s = {PHASE_OPTIMIZE, 0};
    kf_loop_after_step(&s, KF_GEN_OPTIMIZE, 0, 1, 0, 2);
    kf_loop_after_step(&s, KF_GEN_FIX_MISMATCH, 1, 1, 1, 2);
    KF_CHECK_INT(s.fixes, 0);
    kf_loop_after_step(&s, KF_GEN_OPTIMIZE, 0, 1, 0, 0);
    KF_CHECK_INT(s.fixes, 0);
    KF_CHECK_INT(kf_loop_next_kind(&s, 1, KF_FAIL_CRASH), KF_GEN_OPTIMIZE);
    kf_loop_after_step(&s, KF_GEN_OPTIMIZE, 1, 1, 1, 2);
    KF_CHECK_INT(s.fixes, 0);
}

/* Resume: a recorded best is kept only if it passes again and its recorded
 * time is possible on this device. */
KF_TEST(recorded_best_is_judged_on_resume)
{
    kf_eval_result rec, now;
    memset(&rec, 0, sizeof rec);
    memset(&now, 0, sizeof now);
    rec.profiled = 1;
    rec.timing.median_s = 2e-3;
    now.verdict = KF_PASS;
    now.profiled = 1;
    now.timing.median_s = 2.1e-3;
    now.roofline.hard_floor_s = 1e-3;
    KF_CHECK_STR(kf_loop_judge_best(&rec, &now), "kept");
    rec.timing.median_s = 0.5e-3;    /* below what the device can do */
    KF_CHECK_STR(kf_loop_judge_best(&rec, &now), "remeasured");
    rec.profiled = 0;
    KF_CHECK_STR(kf_loop_judge_best(&rec, &now), "remeasured");
    now.verdict = KF_FAIL_STALE;
    KF_CHECK_STR(kf_loop_judge_best(&rec, &now), "dropped");
    now.verdict = KF_PASS;
    now.profiled = 0;
    KF_CHECK_STR(kf_loop_judge_best(&rec, &now), "dropped");
}

/* The journal: every event carries "ev" and "t", reads back in order, is
 * owner-only, and a torn last line (a kill mid-write) is ignored. */
KF_TEST(journal_round_trip_and_torn_line)
{
    const char *dir = kf_test_tmpdir();
    kf_error err = {0};
    kf_journal *j = kf_journal_open(dir, &err);
    KF_CHECK_MSG(j != NULL, "open: %s", err.msg);
    for (int i = 0; i < 3; i++) {
        json_object *ev = json_object_new_object();
        json_object_object_add(ev, "step", json_object_new_int(i));
        KF_CHECK(kf_journal_append(j, i == 2 ? "eval-start" : "gen", ev, &err) == 0);
        json_object_put(ev);
    }
    kf_journal_close(j);
    char path[4200];
    snprintf(path, sizeof path, "%s/journal.jsonl", dir);
    struct stat st;
    KF_CHECK(stat(path, &st) == 0);
    KF_CHECK_INT(st.st_mode & 0777, 0600);
    /* a torn line at the end */
    int fd = open(path, O_WRONLY | O_APPEND);
    KF_CHECK(fd >= 0);
    const char torn[] = "{\"ev\":\"eval\",\"step\":2,\"verd";
    KF_CHECK(write(fd, torn, sizeof torn - 1) == (ssize_t)(sizeof torn - 1));
    close(fd);
    json_object *all = kf_journal_read(dir, &err);
    KF_CHECK_MSG(all != NULL, "read: %s", err.msg);
    KF_CHECK_INT((int)json_object_array_length(all), 3);
    for (int i = 0; i < 3; i++) {
        json_object *e = json_object_array_get_idx(all, (size_t)i), *v;
        KF_CHECK(json_object_object_get_ex(e, "ev", &v));
        KF_CHECK_STR(json_object_get_string(v), i == 2 ? "eval-start" : "gen");
        KF_CHECK(json_object_object_get_ex(e, "t", &v) && json_object_get_int64(v) > 1600000000);
        KF_CHECK(json_object_object_get_ex(e, "step", &v) && json_object_get_int(v) == i);
    }
    json_object_put(all);
}

KF_TEST(missing_journal_is_an_error_that_says_so)
{
    const char *dir = kf_test_tmpdir();
    kf_error err = {0};
    json_object *all = kf_journal_read(dir, &err);
    KF_CHECK(all == NULL);
    KF_CHECK(err.kind != KF_E_NONE);
    KF_CHECK_CONTAINS(err.msg, "journal.jsonl");
}

int main(void)
{
    return kf_test_main();
}
