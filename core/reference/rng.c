/*
 * rng.c — the counter-based generator (rng.h) and kf_draw_input
 * (problem.h): each input is its own stream keyed by (seed, input index),
 * drawn in parallel chunks.
 */
#include <config.h>

#include <math.h>
#include <string.h>

#include "problem/problem.h"
#include "ref_internal.h"
#include "rng.h"

#define GOLDEN 0x9E3779B97F4A7C15ULL
#define DRAW_MIN_PER_THREAD (1L << 16)

/* splitmix64's finaliser: a bijective 64-bit mix. */
static inline uint64_t mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

kf_rng_key kf_rng_stream(uint64_t seed, uint64_t stream)
{
    kf_rng_key k;
    uint64_t s = mix64(seed + GOLDEN);
    k.k0 = mix64(s ^ mix64(stream + 0x632BE59BD9B4E019ULL));
    k.k1 = mix64(k.k0 + 0xD1B54A32D192ED03ULL);
    return k;
}

uint64_t kf_rng_bits(kf_rng_key key, uint64_t counter)
{
    return mix64(mix64(counter * GOLDEN + key.k0) ^ key.k1);
}

float kf_rng_uniform24(kf_rng_key key, uint64_t counter)
{
    return (float)(kf_rng_bits(key, counter) >> 40) * 0x1p-24f;
}

double kf_rng_uniform53(kf_rng_key key, uint64_t counter)
{
    return (double)(kf_rng_bits(key, counter) >> 11) * 0x1p-53;
}

/* The two normals of pair q: z[0] (cos) and z[1] (sin).  Single
 * precision math: the results are stored as float, and logf/sincosf are
 * several times cheaper than their double forms. */
static inline void normal_pair(kf_rng_key key, uint64_t q, float z[2])
{
    float u1 = (float)((double)((kf_rng_bits(key, 2 * q) >> 11) + 1) * 0x1p-53);  /* (0, 1] */
    float u2 = (float)(kf_rng_bits(key, 2 * q + 1) >> 40) * 0x1p-24f;             /* [0, 1) */
    float rad = sqrtf(-2.0f * logf(u1));
    float s, c;
    sincosf(6.28318530717958647692f * u2, &s, &c);
    z[0] = rad * c;
    z[1] = rad * s;
}

double kf_rng_normal(kf_rng_key key, uint64_t i)
{
    float z[2];
    normal_pair(key, i >> 1, z);
    return z[i & 1];
}

typedef struct draw_job {
    kf_rng_key key;
    kf_dist dist;
    double a, b;       /* uniform: low, high (kaiming: -bound, bound); normal: mean, std */
    float *dst;
    float *copy;       /* also written when not NULL */
    kf_range_fn fn;
} draw_job;

static void draw_uniform(void *ctx, long begin, long end)
{
    const draw_job *j = ctx;
    double lo = j->a, w = j->b - j->a;
    float hi = (float)j->b;
    float below_hi = nextafterf(hi, -INFINITY);
    for (long i = begin; i < end; i++) {
        float f = (float)(lo + w * (double)kf_rng_uniform24(j->key, (uint64_t)i));
        j->dst[i] = f >= hi && w > 0 ? below_hi : f;    /* keep [low, high) after rounding */
    }
}

static void draw_normal(void *ctx, long begin, long end)
{
    const draw_job *j = ctx;
    float z[2];
    long i = begin;
    if (i < end && (i & 1)) {
        j->dst[i] = (float)(j->a + j->b * kf_rng_normal(j->key, (uint64_t)i));
        i++;
    }
    for (; i + 1 < end; i += 2) {
        normal_pair(j->key, (uint64_t)i >> 1, z);
        j->dst[i] = (float)(j->a + j->b * z[0]);
        j->dst[i + 1] = (float)(j->a + j->b * z[1]);
    }
    if (i < end)
        j->dst[i] = (float)(j->a + j->b * kf_rng_normal(j->key, (uint64_t)i));
}

static void draw_constant(void *ctx, long begin, long end)
{
    const draw_job *j = ctx;
    float v = (float)j->a;
    for (long i = begin; i < end; i++)
        j->dst[i] = v;
}

/* fan_in of a kaiming_uniform input: the named dim's value in the resolved
 * preset, else the literal; at least 1. */
static int64_t fan_in(const kf_resolved *r, const kf_init *init)
{
    int64_t f = init->fan_in_value;
    if (init->fan_in_dim)
        for (int d = 0; d < r->problem->n_dims; d++)
            if (strcmp(r->problem->dim_names[d], init->fan_in_dim) == 0)
                f = r->dims[d];
    return f >= 1 ? f : 1;
}

/* A range drawn, then copied while it is still in cache. */
static void draw_and_copy(void *ctx, long begin, long end)
{
    const draw_job *j = ctx;
    for (long b = begin; b < end; b += 4096) {
        long e = end - b < 4096 ? end : b + 4096;
        j->fn(ctx, b, e);
        memcpy(j->copy + b, j->dst + b, sizeof(float) * (size_t)(e - b));
    }
}

void kf_draw_input_copy(const kf_resolved *r, int i, uint64_t seed, float *dst, float *copy)
{
    const kf_init *init = &r->problem->inputs[i].init;
    long n = (long)kf_ref_elems(&r->shapes[i]);
    draw_job j = {kf_rng_stream(seed, (uint64_t)i), init->dist, init->a, init->b, dst, copy, draw_uniform};
    switch (init->dist) {
    case KF_DIST_UNIFORM:
        break;
    case KF_DIST_KAIMING_UNIFORM: {
        double bound = 1.0 / sqrt((double)fan_in(r, init));
        j.a = -bound;
        j.b = bound;
        break;
    }
    case KF_DIST_NORMAL:
        j.fn = draw_normal;
        break;
    case KF_DIST_CONSTANT:
        j.fn = draw_constant;
        break;
    }
    kf_parallel(n, DRAW_MIN_PER_THREAD, 0, copy ? draw_and_copy : j.fn, &j);
}

void kf_draw_input(const kf_resolved *r, int i, uint64_t seed, float *dst)
{
    kf_draw_input_copy(r, i, seed, dst, NULL);
}
