/*
 * sha256.h — SHA-256 (FIPS 180-4), for cache keys that must not collide:
 * the reference cache (eval/ref_cache.h) trusts a file because of its key.
 */
#ifndef KF_SHA256_H
#define KF_SHA256_H
#include <stddef.h>
#include <stdint.h>

typedef struct kf_sha256 {
    uint32_t h[8];
    uint64_t len;             /* bytes hashed so far */
    unsigned char buf[64];
    size_t n;                 /* bytes in buf */
} kf_sha256;

void kf_sha256_init(kf_sha256 *s);
void kf_sha256_update(kf_sha256 *s, const void *data, size_t n);
void kf_sha256_final(kf_sha256 *s, unsigned char out[32]);
/* The digest of data as 64 lowercase hex digits + NUL. */
void kf_sha256_hex(const void *data, size_t n, char out[65]);
#endif
