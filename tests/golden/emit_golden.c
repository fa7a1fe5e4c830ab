/*
 * emit_golden.c — prints what the built-in agent's emitter of a language
 * writes for a problem at a point: the candidate's manifest (launches,
 * scratch, entry, build options) and every source.  The golden tests
 * (tests/golden/test_golden.sh) compare this text with the files under
 * tests/golden/LANGUAGE/; tests/golden/regen.sh rewrites them.
 *
 *   emit_golden LANGUAGE BACKEND PROBLEM.json PRESET POINT_JSON
 *   emit_golden --languages     (the languages with an emitter)
 *
 * POINT_JSON is a point of the language (every knob given, so the output
 * does not depend on the host), or "baseline".  No device is passed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/builtin/builtin.h"
#include "candidate/candidate.h"
#include "problem/problem.h"

int main(int argc, char **argv)
{
    if (argc == 2 && !strcmp(argv[1], "--languages")) {
        for (int i = 0; kf_bt_emitters[i]; i++) puts(kf_bt_emitters[i]->language);
        return 0;
    }
    if (argc != 6) {
        fprintf(stderr, "usage: %s LANGUAGE BACKEND PROBLEM.json PRESET POINT_JSON|baseline\n", argv[0]);
        return 2;
    }
    const kf_bt_emitter *em = kf_bt_emitter_for(argv[1]);
    if (!em) {
        fprintf(stderr, "no emitter for language %s\n", argv[1]);
        return 2;
    }
    kf_error err = {0};
    kf_problem *p = kf_problem_load(argv[3], &err);
    kf_resolved r;
    int idx = p ? kf_problem_find_preset(p, argv[4]) : -1;
    if (!p || idx < 0 || kf_resolve(p, idx, &r, &err) != 0) {
        fprintf(stderr, "%s: %s\n", argv[3], err.msg[0] ? err.msg : "no such preset");
        return 2;
    }
    kf_bt_point pt;
    if (!strcmp(argv[5], "baseline")) kf_bt_point_baseline(em, argv[2], &pt);
    else if (kf_bt_point_from_json(argv[5], em, argv[2], &r, NULL, &pt, &err) != 0) {
        fprintf(stderr, "point: %s\n", err.msg);
        kf_resolved_free(&r);
        kf_problem_free(p);
        return 2;
    }
    kf_bt_fusion fusion = pt.baseline ? KF_BT_FUSE_NONE : (kf_bt_fusion)pt.fusion;
    if (em->plan_fusion && !pt.baseline) fusion = (kf_bt_fusion)em->plan_fusion(&pt, fusion);
    kf_bt_plan plan;
    if (kf_bt_plan_build(&r, fusion, &plan, &err) != 0) {
        fprintf(stderr, "plan: %s\n", err.msg);
        kf_resolved_free(&r);
        kf_problem_free(p);
        return 1;
    }
    kf_candidate *c = NULL;
    char *label = NULL;
    if (em->generate(&plan, &pt, argv[2], NULL, &c, &label, &err) != 0 || !c) {
        fprintf(stderr, "generate: %s\n", err.msg);
        kf_candidate_free(c);
        free(label);
        kf_bt_plan_free(&plan);
        kf_resolved_free(&r);
        kf_problem_free(p);
        return 1;
    }
    char *js = kf_bt_point_json(&pt);
    char *man = kf_candidate_manifest_json(c);
    printf("# emitter %s, backend %s, %s preset %s\n# point %s\n# label %s\n=== candidate.json\n%s\n",
           em->language, argv[2], r.problem->name, argv[4], js, label ? label : "", man ? man : "");
    for (int i = 0; i < c->n_sources; i++)
        printf("=== %s\n%s%s", c->sources[i].name, c->sources[i].text,
               c->sources[i].text[0] && c->sources[i].text[strlen(c->sources[i].text) - 1] != '\n' ? "\n" : "");
    free(js);
    free(man);
    free(label);
    kf_candidate_free(c);
    kf_bt_plan_free(&plan);
    kf_resolved_free(&r);
    kf_problem_free(p);
    return 0;
}
