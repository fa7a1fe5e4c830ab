/*
 * rng.h — counter-based random numbers for drawing problem inputs.
 *
 * A stream is keyed by (seed, stream index); draw number `counter` of a
 * stream is a pure function of (key, counter) — a keyed splitmix64-style
 * hash — so any element can be recomputed alone, chunks can be drawn in
 * parallel, and the same (seed, stream, counter) gives the same bits on
 * every machine.  Not for cryptography.
 */
#ifndef KF_RNG_H
#define KF_RNG_H

#include <stdint.h>

typedef struct kf_rng_key {
    uint64_t k0, k1;
} kf_rng_key;

/* The key of stream `stream` under `seed`; distinct streams and seeds give
 * unrelated sequences. */
kf_rng_key kf_rng_stream(uint64_t seed, uint64_t stream);

/* 64 random bits: draw `counter` of the stream. */
uint64_t kf_rng_bits(kf_rng_key key, uint64_t counter);

/* Uniform in [0, 1) with 24 random bits (exact in float, like torch.rand). */
float kf_rng_uniform24(kf_rng_key key, uint64_t counter);

/* Uniform in [0, 1) with 53 random bits. */
double kf_rng_uniform53(kf_rng_key key, uint64_t counter);

/* Standard normal number i of the stream: Box-Muller (in float precision)
 * on the uniforms of counters 2*(i/2) and 2*(i/2)+1, cosine branch for
 * even i, sine for odd. */
double kf_rng_normal(kf_rng_key key, uint64_t i);

#endif
