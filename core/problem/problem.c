/*
 * problem.c — loading a problem file, freeing it, looking up values and
 * presets by name.  Parsing lives in problem_parse*.c, shapes in shapes.c.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/fileio.h"
#include "kforge-plugin.h"
#include "problem_internal.h"

#define MAX_PROBLEM_BYTES (16u << 20)

static char *read_text(const char *path, kf_error *err)
{
    int fd = kf_open_regular(path, NULL, err);
    FILE *f = fd >= 0 ? fdopen(fd, "rb") : NULL;
    if (!f) {
        if (fd >= 0) {
            kf_fail(err, KF_E_BAD_INPUT, "%s: cannot open: %s", path, strerror(errno));
            close(fd);
        } else if (err) {
            err->kind = KF_E_BAD_INPUT;
        }
        return NULL;
    }
    size_t cap = 8192, len = 0;
    char *buf = malloc(cap);
    while (buf) {
        size_t got = fread(buf + len, 1, cap - len - 1, f);
        len += got;
        if (got == 0) break;
        if (len > MAX_PROBLEM_BYTES) {
            kf_fail(err, KF_E_BAD_INPUT, "%s: larger than %u MiB; is this a problem file?", path,
                    MAX_PROBLEM_BYTES >> 20);
            free(buf);
            fclose(f);
            return NULL;
        }
        if (cap - len < 2) {
            char *nb = realloc(buf, cap * 2);
            if (!nb) { free(buf); buf = NULL; break; }
            buf = nb;
            cap *= 2;
        }
    }
    if (!buf) {
        kf_fail(err, KF_E_INTERNAL, "%s: out of memory", path);
        fclose(f);
        return NULL;
    }
    if (ferror(f)) {
        kf_fail(err, KF_E_BAD_INPUT, "%s: read error: %s", path, strerror(errno));
        free(buf);
        fclose(f);
        return NULL;
    }
    fclose(f);
    buf[len] = '\0';
    if (strlen(buf) != len) {
        kf_fail(err, KF_E_BAD_INPUT, "%s: contains a NUL byte; a problem is a JSON text file", path);
        free(buf);
        return NULL;
    }
    return buf;
}

kf_problem *kf_problem_load(const char *path, kf_error *err)
{
    if (!path) {
        kf_fail(err, KF_E_BAD_INPUT, "no problem file given");
        return NULL;
    }
    char *text = read_text(path, err);
    if (!text) return NULL;
    kf_problem *p = kf_problem_parse(text, path, err);
    free(text);
    return p;
}

/* Name -> value id, open addressing.  Values are only ever appended
 * (inputs, then nodes, while parsing), so the index catches up with the
 * values added since the last lookup; it starts over if the inputs changed
 * under it.  A 350k-node graph took ~25 minutes to parse with the linear
 * search this replaces. */
struct kf_value_index {
    int n_inputs;             /* p->n_inputs when built */
    int n_indexed;            /* values 0 .. n_indexed-1 are in */
    size_t cap;               /* power of two */
    int *slot;                /* value id + 1, 0 = empty */
};

void kf_problem_free(kf_problem *p)
{
    if (!p) return;
    if (p->value_index) free(p->value_index->slot);
    free(p->value_index);
    free(p->path);
    free(p->name);
    free(p->description);
    free(p->c_reference);
    if (p->dim_names)
        for (int i = 0; i < p->n_dims; i++) free(p->dim_names[i]);
    free(p->dim_names);
    if (p->preset_names)
        for (int i = 0; i < p->n_presets; i++) free(p->preset_names[i]);
    free(p->preset_names);
    free(p->preset_values);
    if (p->inputs) {
        for (int i = 0; i < p->n_inputs; i++) {
            free(p->inputs[i].name);
            free(p->inputs[i].init.fan_in_dim);
        }
    }
    free(p->inputs);
    if (p->nodes)
        for (int i = 0; i < p->n_nodes; i++) {
            free(p->nodes[i].out);
            free(p->nodes[i].view_text);
        }
    free(p->nodes);
    free(p->outputs);
    for (int i = 0; p->declared && i < p->n_declared; i++) free(p->declared[i].name);
    free(p->declared);
    free(p);
}

int kf_problem_n_values(const kf_problem *p)
{
    return p->n_inputs + p->n_nodes + p->n_declared;
}

const char *kf_problem_value_name(const kf_problem *p, int value)
{
    if (value < 0) return NULL;
    if (value < p->n_inputs) return p->inputs[value].name;
    if (value < p->n_inputs + p->n_nodes) return p->nodes[value - p->n_inputs].out;
    if (value < kf_problem_n_values(p)) return p->declared[value - p->n_inputs - p->n_nodes].name;
    return NULL;
}

static uint64_t name_hash(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

static int index_insert(struct kf_value_index *ix, const kf_problem *p, int v)
{
    if ((size_t)(ix->n_indexed + 1) * 2 > ix->cap) {
        size_t cap = ix->cap ? ix->cap * 2 : 64;
        int *slot = calloc(cap, sizeof *slot);
        if (!slot) return -1;
        for (size_t i = 0; i < ix->cap; i++) {
            if (!ix->slot[i]) continue;
            size_t h = (size_t)name_hash(kf_problem_value_name(p, ix->slot[i] - 1)) & (cap - 1);
            while (slot[h]) h = (h + 1) & (cap - 1);
            slot[h] = ix->slot[i];
        }
        free(ix->slot);
        ix->slot = slot;
        ix->cap = cap;
    }
    const char *name = kf_problem_value_name(p, v);
    if (name) {
        size_t h = (size_t)name_hash(name) & (ix->cap - 1);
        while (ix->slot[h]) {
            if (!strcmp(kf_problem_value_name(p, ix->slot[h] - 1), name)) break;   /* first definition wins */
            h = (h + 1) & (ix->cap - 1);
        }
        if (!ix->slot[h]) ix->slot[h] = v + 1;
    }
    ix->n_indexed = v + 1;
    return 0;
}

static int find_linear(const kf_problem *p, const char *name)
{
    int n = kf_problem_n_values(p);
    for (int v = 0; v < n; v++) {
        const char *s = kf_problem_value_name(p, v);
        if (s && !strcmp(s, name)) return v;
    }
    return -1;
}

int kf_problem_find_value(const kf_problem *p, const char *name)
{
    if (!name) return -1;
    kf_problem *mp = (kf_problem *)p;   /* the index is a cache, not state */
    struct kf_value_index *ix = mp->value_index;
    int n = kf_problem_n_values(p);
    if (ix && (ix->n_inputs != p->n_inputs || ix->n_indexed > n)) {
        free(ix->slot);
        memset(ix, 0, sizeof *ix);
    }
    if (!ix && !(ix = mp->value_index = calloc(1, sizeof *ix))) return find_linear(p, name);
    ix->n_inputs = p->n_inputs;
    while (ix->n_indexed < n)
        if (index_insert(ix, p, ix->n_indexed) != 0) return find_linear(p, name);
    if (!ix->cap) return -1;
    for (size_t h = (size_t)name_hash(name) & (ix->cap - 1); ix->slot[h]; h = (h + 1) & (ix->cap - 1))
        if (!strcmp(kf_problem_value_name(p, ix->slot[h] - 1), name)) return ix->slot[h] - 1;
    return -1;
}

int kf_problem_find_preset(const kf_problem *p, const char *preset)
{
    if (!preset) return -1;
    for (int i = 0; i < p->n_presets; i++)
        if (!strcmp(p->preset_names[i], preset)) return i;
    return -1;
}
