/*
 * cache.c — the data cache sizes of the CPU the plugin runs on, one core's
 * share of each level: sysfs (/sys/devices/system/cpu/cpu0/cache/indexN:
 * level, type, size, shared_cpu_list), else cpuid's deterministic cache
 * parameters (leaf 4 on Intel, 0x8000001D on AMD).  The built-in agent
 * derives its GEMM blocking (MC, KC, NC) from them.
 */
#include "cpu_simd.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

/* First line of dir/name into buf; 0 when it cannot be read. */
static int read_line(const char *dir, const char *name, char *buf, size_t n)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    int ok = fgets(buf, (int)n, f) != NULL;
    fclose(f);
    if (ok) buf[strcspn(buf, "\n")] = '\0';
    return ok;
}

/* "48K", "2048K", "1M", "32768" -> bytes; 0 when it is none of these. */
static int64_t parse_size(const char *s)
{
    char *end;
    long long v = strtoll(s, &end, 10);
    if (end == s || v <= 0) return 0;
    switch (*end) {
    case 'K': case 'k': return (int64_t)v << 10;
    case 'M': case 'm': return (int64_t)v << 20;
    case 'G': case 'g': return (int64_t)v << 30;
    case '\0': return (int64_t)v;
    default: return 0;
    }
}

/* CPUs named by a list such as "0-3,8,10-11"; at least 1. */
static int count_cpus(const char *s)
{
    int n = 0;
    while (*s) {
        char *end;
        long a = strtol(s, &end, 10), b = a;
        if (end == s) break;
        s = end;
        if (*s == '-') {
            b = strtol(s + 1, &end, 10);
            if (end == s + 1) break;
            s = end;
        }
        if (b >= a) n += (int)(b - a + 1);
        if (*s == ',') s++;
    }
    return n > 0 ? n : 1;
}

/* From dir/indexN: the share of one CPU of each data level. */
static int from_sysfs(const char *dir, kf_cpu_caches *c)
{
    int found = 0;
    for (int i = 0; i < 16; i++) {
        char idx[600], level[16], type[32], size[32], shared[256];
        snprintf(idx, sizeof idx, "%s/index%d", dir, i);
        if (!read_line(idx, "level", level, sizeof level) || !read_line(idx, "type", type, sizeof type) ||
            !read_line(idx, "size", size, sizeof size))
            continue;
        if (strcmp(type, "Data") && strcmp(type, "Unified")) continue;   /* instruction caches */
        int64_t bytes = parse_size(size);
        if (bytes <= 0) continue;
        if (read_line(idx, "shared_cpu_list", shared, sizeof shared)) bytes /= count_cpus(shared);
        switch (atoi(level)) {
        case 1: c->l1d = bytes; break;
        case 2: c->l2 = bytes; break;
        case 3: c->l3 = bytes; break;
        default: continue;
        }
        found = 1;
    }
    if (found) snprintf(c->source, sizeof c->source, "sysfs");
    return found;
}

#if defined(__x86_64__) || defined(__i386__)
/* cpuid's deterministic cache parameters: leaf 4 (Intel) or 0x8000001D
 * (AMD, with TOPOEXT); the sharing count is of logical CPUs. */
static int from_cpuid(kf_cpu_caches *c)
{
    unsigned a, b, cx, d, leaf = 4;
    char vendor[13] = "";
    if (!__get_cpuid(0, &a, &b, &cx, &d)) return 0;
    memcpy(vendor, &b, 4);
    memcpy(vendor + 4, &d, 4);
    memcpy(vendor + 8, &cx, 4);
    if (!strcmp(vendor, "AuthenticAMD") || !strcmp(vendor, "HygonGenuine")) {
        leaf = 0x8000001Du;
        if (__get_cpuid_max(0x80000000u, NULL) < leaf) return 0;
    } else if (a < 4) {
        return 0;
    }
    int found = 0;
    for (unsigned sub = 0; sub < 16; sub++) {
        __cpuid_count(leaf, sub, a, b, cx, d);
        unsigned type = a & 0x1f, level = (a >> 5) & 7, sharing = ((a >> 14) & 0xfff) + 1;
        if (type == 0) break;            /* no more caches */
        if (type == 2) continue;         /* instruction */
        int64_t bytes = (int64_t)(((b >> 22) & 0x3ff) + 1) * (((b >> 12) & 0x3ff) + 1) * ((b & 0xfff) + 1) *
                        ((int64_t)cx + 1);
        bytes /= sharing;
        if (level == 1) c->l1d = bytes;
        else if (level == 2) c->l2 = bytes;
        else if (level == 3) c->l3 = bytes;
        else continue;
        found = 1;
    }
    if (found) snprintf(c->source, sizeof c->source, "cpuid leaf %#x", leaf);
    return found;
}
#else
static int from_cpuid(kf_cpu_caches *c) { (void)c; return 0; }
#endif

void kf_cpu_read_caches(const char *sysfs_dir, kf_cpu_caches *c)
{
    memset(c, 0, sizeof *c);
    if (!sysfs_dir) sysfs_dir = "/sys/devices/system/cpu/cpu0/cache";
    if (from_sysfs(sysfs_dir, c)) return;
    memset(c, 0, sizeof *c);
    if (from_cpuid(c)) return;
    memset(c, 0, sizeof *c);
    snprintf(c->source, sizeof c->source, "unknown");
}
