/*
 * base64.h — RFC 4648 base64 (standard alphabet, '=' padding), for binary
 * data in JSON text (the worker's compile-only reply carries the binary).
 */
#ifndef KF_BASE64_H
#define KF_BASE64_H
#include <stddef.h>
/* The encoding of data[0..n), NUL-terminated, malloc'ed; NULL when out of
 * memory. */
char *kf_base64_encode(const void *data, size_t n);
/* Decodes text (no whitespace; padding required when the length is not a
 * multiple of 4 is an error).  *out malloc'ed (at least 1 byte, so never
 * NULL on success), *n its length.  0, or -1 on bad input or no memory. */
int kf_base64_decode(const char *text, unsigned char **out, size_t *n);
#endif
