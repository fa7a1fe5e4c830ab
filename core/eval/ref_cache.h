/*
 * ref_cache.h — reference outputs kept on disk for problems whose
 * double-precision reference is costly (the kernelbench presets take
 * seconds per input set), so that a search's many evaluations compute each
 * reference once.
 *
 * An entry holds the outputs of one input set, as float32 (the reference
 * rounded once: 2^-24 relative, far under any tolerance), under
 *     $XDG_CACHE_HOME/kforge/ref/KEY      (owner-only)
 * where KEY is the SHA-256 of the problem's JSON text, the preset's dims,
 * the input seed and KF_REFERENCE_VERSION: any change to the problem, the
 * sizes, the inputs or the reference code is a different key.  The file is
 * trusted because of its key and its place (the worker cannot read or
 * write the cache; Landlock confines it to its work directory); a file of
 * the wrong size or header is ignored and recomputed.
 *
 * The pool: the timed runs' outputs are checked on inputs the candidate
 * cannot predict (eval_profile.c).  With the cache on, a checked run's
 * inputs come from a pool of KF_REF_POOL seeds derived from a secret only
 * this user's kforge reads ($XDG_CACHE_HOME/kforge/ref/secret, 0600), drawn
 * without replacement within an evaluation (no input set repeats, so a
 * memo in the candidate misses as before), while unchecked runs keep fresh
 * random seeds.  Across evaluations each pool reference is computed once.
 *
 * On when the problem's nominal work is at least KF_REF_CACHE_MIN_FLOP
 * (KFORGE_REF_CACHE=0 turns it off, =1 forces it on for any size); the
 * directory is kept under KFORGE_REF_CACHE_MAX bytes (default 16 GiB) by
 * removing the least recently used entries.
 */
#ifndef KF_REF_CACHE_H
#define KF_REF_CACHE_H

#include <stdint.h>
#include "problem/problem.h"

#define KF_REFERENCE_VERSION 1
#define KF_REF_POOL 16
#define KF_REF_CACHE_MIN_FLOP 1e9

/* Whether references of this resolved problem are cached. */
int kf_refcache_enabled(const kf_resolved *r);
/* Fills ref[o] (malloc'ed, kf_shape_elems doubles per output) from the
 * cache.  0 on a hit, -1 on a miss (ref untouched). */
int kf_refcache_load(const kf_resolved *r, uint64_t seed, double **ref);
/* Stores the outputs of seed's inputs (best effort: errors are ignored,
 * the next evaluation computes them again). */
void kf_refcache_store(const kf_resolved *r, uint64_t seed, double *const *ref);
/* The k-th pool seed of this problem and preset (0 <= k < KF_REF_POOL);
 * 0 when the secret cannot be read or made (then no pool is used). */
uint64_t kf_refcache_pool_seed(const kf_resolved *r, int k);

#endif
