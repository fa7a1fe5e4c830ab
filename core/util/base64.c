#include "base64.h"

#include <stdlib.h>
#include <string.h>

static const char ALPHABET[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

char *kf_base64_encode(const void *data, size_t n)
{
    const unsigned char *p = data;
    if (n > (((size_t)-1) / 4) * 3 - 3) return NULL;
    size_t len = (n + 2) / 3 * 4;
    char *s = malloc(len + 1), *o = s;
    if (!s) return NULL;
    size_t i = 0;
    for (; i + 3 <= n; i += 3) {
        unsigned v = (unsigned)p[i] << 16 | (unsigned)p[i + 1] << 8 | p[i + 2];
        *o++ = ALPHABET[v >> 18 & 63];
        *o++ = ALPHABET[v >> 12 & 63];
        *o++ = ALPHABET[v >> 6 & 63];
        *o++ = ALPHABET[v & 63];
    }
    if (i < n) {
        unsigned v = (unsigned)p[i] << 16 | (i + 1 < n ? (unsigned)p[i + 1] << 8 : 0u);
        *o++ = ALPHABET[v >> 18 & 63];
        *o++ = ALPHABET[v >> 12 & 63];
        *o++ = i + 1 < n ? ALPHABET[v >> 6 & 63] : '=';
        *o++ = '=';
    }
    *o = '\0';
    return s;
}

static int value(char c)
{
    const char *f = c ? strchr(ALPHABET, c) : NULL;
    return f ? (int)(f - ALPHABET) : -1;
}

int kf_base64_decode(const char *text, unsigned char **out, size_t *n)
{
    *out = NULL;
    *n = 0;
    size_t len = strlen(text);
    if (len % 4) return -1;
    unsigned char *b = malloc(len / 4 * 3 + 1);
    if (!b) return -1;
    size_t k = 0;
    for (size_t i = 0; i < len; i += 4) {
        int last = i + 4 == len;
        int pad = (text[i + 3] == '=') + (text[i + 2] == '=');
        if (pad && !last) goto bad;
        if (text[i + 2] == '=' && text[i + 3] != '=') goto bad;
        int v0 = value(text[i]), v1 = value(text[i + 1]);
        int v2 = pad >= 2 ? 0 : value(text[i + 2]), v3 = pad >= 1 ? 0 : value(text[i + 3]);
        if (v0 < 0 || v1 < 0 || v2 < 0 || v3 < 0) goto bad;
        unsigned v = (unsigned)v0 << 18 | (unsigned)v1 << 12 | (unsigned)v2 << 6 | (unsigned)v3;
        b[k++] = (unsigned char)(v >> 16);
        if (pad < 2) b[k++] = (unsigned char)(v >> 8 & 255);
        if (pad < 1) b[k++] = (unsigned char)(v & 255);
    }
    *out = b;
    *n = k;
    return 0;
bad:
    free(b);
    return -1;
}
