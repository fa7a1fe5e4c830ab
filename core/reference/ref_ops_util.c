/*
 * ref_ops_util.c — thread fan-out and shape helpers shared by the
 * reference kernels and the input generator.
 */
#include <config.h>

#include <stdio.h>

#include "ref_internal.h"

int64_t kf_ref_elems(const kf_shape *s)
{
    int64_t n = 1;
    for (int i = 0; i < s->rank; i++)
        n *= s->d[i];
    return n;
}

int kf_ref_norm_dim(int dim, int rank)
{
    if (dim < 0)
        dim += rank;
    return dim >= 0 && dim < rank ? dim : -1;
}

const char *kf_ref_shape_str(const kf_shape *s, char *buf, size_t len)
{
    size_t at = 0;
    at += (size_t)snprintf(buf, len, "(");
    for (int i = 0; i < s->rank && at < len; i++)
        at += (size_t)snprintf(buf + at, len - at, "%s%lld", i ? ", " : "", (long long)s->d[i]);
    if (at < len)
        snprintf(buf + at, len - at, ")");
    return buf;
}
