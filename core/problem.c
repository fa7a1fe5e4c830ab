/*
 * problem.c — loading a problem file, freeing it, looking up values and
 * presets by name.  Parsing lives in problem_parse*.c, shapes in shapes.c.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fileio.h"
#include "kforge-plugin.h"
#include "problem_internal.h"

#define MAX_PROBLEM_BYTES (16u << 20)

static char *read_text(const char *path, kf_error *err)
{
    int fd = kf_open_regular(path, NULL, err);
    FILE *f = fd >= 0 ? fdopen(fd, "rb") : NULL;
    if (!f) {
        if (fd >= 0) {
            kf_fail(err, KF_ERR_INVALID, "%s: cannot open: %s", path, strerror(errno));
            close(fd);
        } else if (err) {
            err->code = KF_ERR_INVALID;
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
            kf_fail(err, KF_ERR_INVALID, "%s: larger than %u MiB; is this a problem file?", path,
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
        kf_fail(err, KF_ERR_NOMEM, "%s: out of memory", path);
        fclose(f);
        return NULL;
    }
    if (ferror(f)) {
        kf_fail(err, KF_ERR_INVALID, "%s: read error: %s", path, strerror(errno));
        free(buf);
        fclose(f);
        return NULL;
    }
    fclose(f);
    buf[len] = '\0';
    if (strlen(buf) != len) {
        kf_fail(err, KF_ERR_INVALID, "%s: contains a NUL byte; a problem is a JSON text file", path);
        free(buf);
        return NULL;
    }
    return buf;
}

kf_problem *kf_problem_load(const char *path, kf_error *err)
{
    if (!path) {
        kf_fail(err, KF_ERR_INVALID, "no problem file given");
        return NULL;
    }
    char *text = read_text(path, err);
    if (!text) return NULL;
    kf_problem *p = kf_problem_parse(text, path, err);
    free(text);
    return p;
}

void kf_problem_free(kf_problem *p)
{
    if (!p) return;
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
        for (int i = 0; i < p->n_nodes; i++) free(p->nodes[i].out);
    free(p->nodes);
    free(p->outputs);
    free(p);
}

int kf_problem_n_values(const kf_problem *p)
{
    return p->n_inputs + p->n_nodes;
}

const char *kf_problem_value_name(const kf_problem *p, int value)
{
    if (value < 0) return NULL;
    if (value < p->n_inputs) return p->inputs[value].name;
    if (value < p->n_inputs + p->n_nodes) return p->nodes[value - p->n_inputs].out;
    return NULL;
}

int kf_problem_find_value(const kf_problem *p, const char *name)
{
    if (!name) return -1;
    int n = kf_problem_n_values(p);
    for (int v = 0; v < n; v++) {
        const char *s = kf_problem_value_name(p, v);
        if (s && !strcmp(s, name)) return v;
    }
    return -1;
}

int kf_problem_find_preset(const kf_problem *p, const char *preset)
{
    if (!preset) return -1;
    for (int i = 0; i < p->n_presets; i++)
        if (!strcmp(p->preset_names[i], preset)) return i;
    return -1;
}
