/* emitters.c — the table of the built-in agent's emitters, by language
 * (emit.h).  The one place that lists them. */
#include "emit.h"

#include <string.h>

const kf_bt_emitter *const kf_bt_emitters[] = {&kf_bt_emit_c, &kf_bt_emit_opencl_c, NULL};

const kf_bt_emitter *kf_bt_emitter_for(const char *language)
{
    for (int i = 0; language && kf_bt_emitters[i]; i++)
        if (!strcmp(kf_bt_emitters[i]->language, language)) return kf_bt_emitters[i];
    return NULL;
}

const kf_bt_emitter *kf_bt_emitter_of_plugin(const kf_plugin *p)
{
    return p && p->be ? kf_bt_emitter_for(p->be->language) : NULL;
}
