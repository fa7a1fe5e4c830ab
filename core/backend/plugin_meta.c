/* plugin_meta.c — what the agents need to know of a plugin besides its
 * hooks: language, source file extension, answer fence tag, LLM guide
 * (registry.h).  ABI 1.1 plugins say it in their kf_backend_info; for 1.0
 * plugins, which declare only a language, the rest is derived from it. */
#include <config.h>
#include "registry.h"

#include <stddef.h>
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

/* The plugin's own kf_backend_info (ABI 1.1), or NULL. */
static const kf_backend_info *info_of(const kf_plugin *p)
{
    if (!p || !p->be || p->be->abi_minor < 1 || !p->be->info) return NULL;
    const kf_backend_info *i = p->be->info;
    return i->struct_size >= offsetof(kf_backend_info, source_formats) + sizeof i->source_formats ? i : NULL;
}

uint32_t kf_plugin_source_formats(const kf_plugin *p)
{
    const kf_backend_info *i = info_of(p);
    return i && i->source_formats ? i->source_formats : 1u << KF_SRC_TEXT;
}

const char *kf_plugin_offline_targets(const kf_plugin *p)
{
    const kf_backend_info *i = info_of(p);
    if (!i || p->be->abi_minor < 2 || !p->be->compile_offline) return NULL;
    if (i->struct_size < offsetof(kf_backend_info, offline_targets) + sizeof i->offline_targets) return "";
    return i->offline_targets ? i->offline_targets : "";
}

const char *kf_plugin_source_ext(const kf_plugin *p)
{
    const kf_backend_info *i = info_of(p);
    if (i && i->source_ext && i->source_ext[0] == '.') return i->source_ext;
    const lang_meta *m = meta_of(p);
    return m ? m->ext : ".txt";
}

const char *kf_plugin_fence_tag(const kf_plugin *p)
{
    const kf_backend_info *i = info_of(p);
    if (i && i->fence_tag && i->fence_tag[0]) return i->fence_tag;
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
    /* the guide installed with the plugin: next to its .so, or, in a build
       tree where libtool puts the .so in plugins/NAME/.libs, one level up */
    const kf_backend_info *i = info_of(p);
    if (i && i->guide && i->guide[0] && !strchr(i->guide, '/') && p->path) {
        char dir[4096];
        snprintf(dir, sizeof dir, "%s", p->path);
        char *slash = strrchr(dir, '/');
        if (slash) {
            *slash = '\0';
            if ((path = readable(dir, i->guide))) return path;
            size_t n = strlen(dir);
            if (n >= 6 && !strcmp(dir + n - 6, "/.libs")) {
                dir[n - 6] = '\0';
                if ((path = readable(dir, i->guide))) return path;
            }
        }
    }
    const char *env = getenv("KFORGE_PROMPTS");
    if (env && *env && (path = readable(env, rel))) return path;
    return readable(KF_PKGDATADIR "/prompts", rel);
}
