/*
 * ref_equiv A.json B.json PRESET PERM — do two problems compute the same
 * thing?  Draws A's inputs at PRESET (seed 1), gives B the same tensors
 * (PERM: for each input of B, the index of A's input it is, or -1 to draw
 * B's own, e.g. a constant), evaluates both double-precision references and
 * compares every output: max |a-b| <= 1e-9 * max(1, max|a|).  Prints one
 * line per output; exit 0 equal, 1 different, 2 bad input.
 * Used by tests/torch/test_torch_import.sh.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "problem/problem.h"
#include "reference/reference.h"

static int load(const char *path, const char *preset, kf_problem **p, kf_resolved *r)
{
    kf_error err = {0};
    if (!(*p = kf_problem_load(path, &err))) {
        fprintf(stderr, "ref_equiv: %s\n", err.msg);
        return -1;
    }
    int pi = kf_problem_find_preset(*p, preset);
    if (pi < 0 || kf_resolve(*p, pi, r, &err) != 0) {
        fprintf(stderr, "ref_equiv: %s: preset %s: %s\n", path, preset, pi < 0 ? "none" : err.msg);
        kf_problem_free(*p);
        return -1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc != 5) {
        fprintf(stderr, "usage: ref_equiv A.json B.json PRESET PERM\n");
        return 2;
    }
    kf_problem *pa, *pb;
    kf_resolved ra, rb;
    if (load(argv[1], argv[3], &pa, &ra) != 0) return 2;
    if (load(argv[2], argv[3], &pb, &rb) != 0) return 2;
    int rc = 0;
    float **ia = calloc((size_t)pa->n_inputs + 1, sizeof *ia), **ib = calloc((size_t)pb->n_inputs + 1, sizeof *ib);
    double **oa = calloc((size_t)pa->n_outputs + 1, sizeof *oa), **ob = calloc((size_t)pb->n_outputs + 1, sizeof *ob);
    for (int i = 0; i < pa->n_inputs; i++) {
        ia[i] = malloc((size_t)kf_shape_elems(&ra.shapes[i]) * sizeof(float) + 4);
        kf_draw_input(&ra, i, 1, ia[i]);
    }
    const char *s = argv[4];
    for (int i = 0; i < pb->n_inputs; i++) {
        char *end;
        long k = strtol(s, &end, 10);
        if (end == s || k < -1 || k >= pa->n_inputs) {
            fprintf(stderr, "ref_equiv: PERM: bad entry for input %d\n", i);
            rc = 2;
            goto out;
        }
        s = *end == ',' ? end + 1 : end;
        int64_t n = kf_shape_elems(&rb.shapes[i]);
        ib[i] = malloc((size_t)n * sizeof(float) + 4);
        if (k < 0) {
            kf_draw_input(&rb, i, 1, ib[i]);
        } else if (kf_shape_elems(&ra.shapes[k]) != n) {
            fprintf(stderr, "ref_equiv: input %d of B has %lld elements, input %ld of A %lld\n", i,
                    (long long)n, k, (long long)kf_shape_elems(&ra.shapes[k]));
            rc = 1;
            goto out;
        } else {
            memcpy(ib[i], ia[k], (size_t)n * sizeof(float));
        }
    }
    kf_error err = {0};
    if (kf_reference_outputs(&ra, (const float *const *)ia, oa, 0, &err) != 0 ||
        kf_reference_outputs(&rb, (const float *const *)ib, ob, 0, &err) != 0) {
        fprintf(stderr, "ref_equiv: reference: %s\n", err.msg);
        rc = 2;
        goto out;
    }
    if (pa->n_outputs != pb->n_outputs) {
        printf("outputs: %d vs %d\n", pa->n_outputs, pb->n_outputs);
        rc = 1;
        goto out;
    }
    for (int o = 0; o < pa->n_outputs; o++) {
        int64_t n = kf_shape_elems(&ra.shapes[pa->outputs[o]]);
        if (n != kf_shape_elems(&rb.shapes[pb->outputs[o]])) {
            printf("output %d: %lld vs %lld elements\n", o, (long long)n,
                   (long long)kf_shape_elems(&rb.shapes[pb->outputs[o]]));
            rc = 1;
            continue;
        }
        double worst = 0, big = 1;
        for (int64_t e = 0; e < n; e++) {
            double d = fabs(oa[o][e] - ob[o][e]);
            if (!(d <= worst)) worst = d;   /* NaN counts as worst */
            if (fabs(oa[o][e]) > big) big = fabs(oa[o][e]);
        }
        int same = worst <= 1e-9 * big;
        printf("output %d: %lld elements, max |a-b| %.3g (scale %.3g): %s\n", o, (long long)n, worst, big,
               same ? "same" : "DIFFERENT");
        if (!same) rc = 1;
    }
out:
    for (int i = 0; i < pa->n_inputs; i++) free(ia[i]);
    for (int i = 0; i < pb->n_inputs; i++) free(ib[i]);
    for (int o = 0; o < pa->n_outputs; o++) free(oa[o]);
    for (int o = 0; o < pb->n_outputs; o++) free(ob[o]);
    free(ia);
    free(ib);
    free(oa);
    free(ob);
    kf_resolved_free(&ra);
    kf_resolved_free(&rb);
    kf_problem_free(pa);
    kf_problem_free(pb);
    return rc;
}
