/* fuzz_worker_proto.c — libFuzzer target: both directions of the worker
 * protocol: a reply line as the parent parses it (it comes from the
 * untrusted worker), and a "load" command as the worker decodes it. */
#include <json-c/json.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "worker/worker_proto.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 1);
    if (!s) return 0;
    memcpy(s, data, size);
    s[size] = '\0';
    kf_wp_reply r;
    char why[256];
    memset(&r, 0, sizeof r);
    if (kf_wp_reply_parse(s, &r, why, sizeof why) == 0) {
        char *back = kf_wp_reply_json(&r);
        free(back);
    }
    kf_wp_reply_free(&r);
    json_object *cmd = json_tokener_parse(s);
    if (cmd) {
        kf_wp_views v;
        kf_wp_layout l;
        kf_error err = {0};
        memset(&v, 0, sizeof v);
        memset(&l, 0, sizeof l);
        if (kf_wp_decode_load(cmd, &v, &l, &err) == 0) {
            kf_wp_layout_check(&l, &err);
            kf_wp_views_free(&v);
            kf_wp_layout_free(&l);
        }
        json_object_put(cmd);
    }
    free(s);
    return 0;
}
