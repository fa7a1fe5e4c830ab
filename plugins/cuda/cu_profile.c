/* cu_profile.c — the profile hook: warm-up runs, then each timed run of
 * the whole plan between two CUDA events on the default stream (device
 * clock), rotating buffer sets uploaded once; afterwards every set's
 * guarded regions are read back for the core's checks. */
#include "kfcu.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

kf_status kfcu_profile(kf_artifact *a, const kf_profile_request *req, kf_profile_result *res, char **error)
{
    if (!a || !req || req->reps < 1 || req->n_sets < 1 || !req->sets)
        return kf_hook_fail(error, KF_ERR_INVALID, "profile: bad request");
    kf_status st = kfcu_check_poison(error);
    if (st == KF_OK) st = kfcu_device_open(a->dev, error);
    if (st != KF_OK) return st;
    kfcu_set *sets = calloc((size_t)req->n_sets, sizeof *sets);
    CUevent e0 = NULL, e1 = NULL;
    if (!sets) return kf_hook_fail(error, KF_ERR_NOMEM, "out of memory");
    int made = 0;
    for (; made < req->n_sets && st == KF_OK; made++)
        if ((st = kfcu_set_create(a, &req->sets[made], &sets[made], error)) != KF_OK) break;
    CUresult r;
    if (st == KF_OK && ((r = kfcu.EventCreate(&e0, CU_EVENT_DEFAULT)) != CUDA_SUCCESS ||
                        (r = kfcu.EventCreate(&e1, CU_EVENT_DEFAULT)) != CUDA_SUCCESS))
        st = kfcu_fault(r, error, KF_ERR_RUNTIME, "cuEventCreate");
    for (int w = 0; st == KF_OK && w < req->warmup; w++) st = kfcu_launch_plan(a, &sets[w % req->n_sets], error);
    if (st == KF_OK && (r = kfcu.CtxSynchronize()) != CUDA_SUCCESS)
        st = kfcu_fault(r, error, KF_ERR_RUNTIME, "the warm-up runs");
    res->n_samples = 0;
    res->clock_is_device = 1;
    for (int i = 0; st == KF_OK && i < req->reps; i++) {
        float ms = 0;
        if ((r = kfcu.EventRecord(e0, NULL)) != CUDA_SUCCESS) { st = kfcu_fault(r, error, KF_ERR_RUNTIME, "cuEventRecord"); break; }
        if ((st = kfcu_launch_plan(a, &sets[i % req->n_sets], error)) != KF_OK) break;
        if ((r = kfcu.EventRecord(e1, NULL)) != CUDA_SUCCESS || (r = kfcu.EventSynchronize(e1)) != CUDA_SUCCESS) {
            st = kfcu_fault(r, error, KF_ERR_RUNTIME, "timed run");
            break;
        }
        if ((r = kfcu.EventElapsedTime(&ms, e0, e1)) != CUDA_SUCCESS) { st = kfcu_fault(r, error, KF_ERR_RUNTIME, "cuEventElapsedTime"); break; }
        res->samples_s[res->n_samples++] = ms * 1e-3;
    }
    /* every set's outputs and every guard band come back, so the core can
       check the outputs of the timed runs and find stray writes; the data
       of inputs and scratch stays on the device (at large presets reading
       gigabytes of unchanged inputs back after every timed run cost more
       than the runs: the verify hook reads everything) */
    for (int i = 0; st == KF_OK && i < made; i++) st = kfcu_set_read_back(a, &sets[i], 0, error);
    if (st == KF_OK) {
        res->n_counters = 0;
        for (int li = 0; li < a->n_launches && res->n_counters + 2 <= KF_MAX_COUNTERS; li++) {
            kf_counter *c = &res->counters[res->n_counters++];
            snprintf(c->name, sizeof c->name, "launch[%d].threads", li);
            const kfcu_launch *l = &a->launches[li];
            c->value = (double)l->grid[0] * l->grid[1] * l->grid[2] * l->block[0] * l->block[1] * l->block[2];
            c = &res->counters[res->n_counters++];
            snprintf(c->name, sizeof c->name, "launch[%d].dyn_shared_bytes", li);
            c->value = l->dyn_shared;
        }
        res->report = kf_strf("CUDA on %s (sm_%d%d): %d launch(es) per run, timed with events around the whole "
                              "plan on the default stream", a->dev->name, a->dev->cc_major, a->dev->cc_minor,
                              a->n_launches);
    }
    if (e0 && !kfcu_poisoned) kfcu.EventDestroy(e0);
    if (e1 && !kfcu_poisoned) kfcu.EventDestroy(e1);
    for (int i = 0; i < made; i++) kfcu_set_free(&sets[i]);
    free(sets);
    return st;
}
