/* plugin_meta.c — what the agents need to know of a plugin besides its
 * hooks: language, source file extension, answer fence tag, LLM guide
 * (registry.h).  ABI 1.0 plugins declare only a language; the rest is
 * derived from it. */
#include <config.h>
#include "registry.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct { const char *language, *ext, *fence; } lang_meta;
static const lang_meta LANGS[] = {
    {"c", ".c", "c"},
    {"opencl-c", ".cl", "opencl"},
    {"cuda-c", ".cu", "cuda"},
    {"cuda", ".cu", "cuda"},
};

static const lang_meta *meta_of(const kf_plugin *p)
{
    const char *l = kf_plugin_language(p);
    for (size_t i = 0; i < sizeof LANGS / sizeof LANGS[0]; i++)
        if (!strcmp(LANGS[i].language, l)) return &LANGS[i];
    return NULL;
}

const char *kf_plugin_language(const kf_plugin *p)
{
    return p && p->be && p->be->language ? p->be->language : "";
}

const char *kf_plugin_source_ext(const kf_plugin *p)
{
    const lang_meta *m = meta_of(p);
    return m ? m->ext : ".txt";
}

const char *kf_plugin_fence_tag(const kf_plugin *p)
{
    const lang_meta *m = meta_of(p);
    return m ? m->fence : kf_plugin_language(p);
}

static char *readable(const char *dir, const char *name)
{
    char *path = NULL;
    if (asprintf(&path, "%s/%s", dir, name) < 0) return NULL;
    if (access(path, R_OK) == 0) return path;
    free(path);
    return NULL;
}

char *kf_plugin_guide_path(const kf_plugin *p, const char *prompts_dir)
{
    if (!p || !p->name) return NULL;
    char rel[256];
    snprintf(rel, sizeof rel, "backends/%s.md", p->name);
    char *path = NULL;
    if (prompts_dir && *prompts_dir && (path = readable(prompts_dir, rel))) return path;
    const char *env = getenv("KFORGE_PROMPTS");
    if (env && *env && (path = readable(env, rel))) return path;
    return readable(KF_PKGDATADIR "/prompts", rel);
}
