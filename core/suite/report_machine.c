/* report_machine.c — the machine a suite ran on, and DIR/suite.json
 * (report.h). */
#include "report.h"

#include <errno.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "run/journal.h"

void kf_report_machine_free(kf_report_machine *m)
{
    if (!m) return;
    free(m->hostname);
    free(m->cpu_model);
    free(m->os);
    memset(m, 0, sizeof *m);
}

/* "model name : Intel(R) ..." from /proc/cpuinfo, or NULL. */
static char *cpu_model(void)
{
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f) return NULL;
    char line[1024];
    char *model = NULL;
    while (!model && fgets(line, sizeof line, f)) {
        if (strncmp(line, "model name", 10) && strncmp(line, "Model", 5)) continue;
        char *colon = strchr(line, ':');
        if (!colon) continue;
        char *v = colon + 1;
        while (*v == ' ' || *v == '\t') v++;
        size_t len = strcspn(v, "\n");
        model = strndup(v, len);
    }
    fclose(f);
    return model;
}

void kf_report_machine_probe(kf_report_machine *m)
{
    memset(m, 0, sizeof *m);
    char host[256] = "";
    if (gethostname(host, sizeof host - 1) == 0) m->hostname = strdup(host);
    m->cpu_model = cpu_model();
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    m->cpus = n > 0 ? (int)n : 0;
    struct utsname u;
    if (uname(&u) == 0) {
        char buf[600];
        snprintf(buf, sizeof buf, "%s %s %s", u.sysname, u.release, u.machine);
        m->os = strdup(buf);
    }
}

static json_object *machine_json(const kf_report_machine *m)
{
    json_object *o = json_object_new_object();
    json_object_object_add(o, "hostname", m->hostname ? json_object_new_string(m->hostname) : NULL);
    json_object_object_add(o, "cpu_model", m->cpu_model ? json_object_new_string(m->cpu_model) : NULL);
    json_object_object_add(o, "cpus", json_object_new_int(m->cpus));
    json_object_object_add(o, "os", m->os ? json_object_new_string(m->os) : NULL);
    return o;
}

int kf_report_save_suite(const char *dir, const char *settings_json, kf_error *err)
{
    json_object *o = json_object_new_object();
    json_object *settings = settings_json ? json_tokener_parse(settings_json) : NULL;
    if (settings_json && !settings) {
        json_object_put(o);
        return kf_fail(err, KF_E_BAD_INPUT, "suite settings are not valid JSON (internal error)");
    }
    json_object_object_add(o, "settings", settings ? settings : json_object_new_object());
    kf_report_machine m;
    kf_report_machine_probe(&m);
    json_object_object_add(o, "machine", machine_json(&m));
    kf_report_machine_free(&m);
    char path[4200];
    snprintf(path, sizeof path, "%s/suite.json", dir);
    int rc = kf_write_file_atomic(path, json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY), err);
    json_object_put(o);
    return rc;
}

static char *get_str(json_object *o, const char *key)
{
    json_object *v;
    if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_string)) return NULL;
    return strdup(json_object_get_string(v));
}

int kf_report_machine_load(kf_report *r, const char *dir, kf_error *err)
{
    kf_report_machine_free(&r->machine);
    free(r->settings_json);
    r->settings_json = NULL;
    char path[4200];
    snprintf(path, sizeof path, "%s/suite.json", dir);
    FILE *probe = fopen(path, "r");
    if (!probe) {
        kf_report_machine_probe(&r->machine);
        return 0;
    }
    fclose(probe);
    char *text = kf_read_file(path, err);
    if (!text) return -1;
    json_object *o = json_tokener_parse(text);
    free(text);
    if (!o || !json_object_is_type(o, json_type_object)) {
        json_object_put(o);
        return kf_fail(err, KF_E_BAD_INPUT, "%s: not valid JSON; delete it to describe this machine instead", path);
    }
    json_object *m, *s, *v;
    if (json_object_object_get_ex(o, "machine", &m) && json_object_is_type(m, json_type_object)) {
        r->machine.hostname = get_str(m, "hostname");
        r->machine.cpu_model = get_str(m, "cpu_model");
        r->machine.os = get_str(m, "os");
        if (json_object_object_get_ex(m, "cpus", &v)) r->machine.cpus = json_object_get_int(v);
    } else {
        kf_report_machine_probe(&r->machine);
    }
    if (json_object_object_get_ex(o, "settings", &s))
        r->settings_json = strdup(json_object_to_json_string_ext(s, JSON_C_TO_STRING_PLAIN));
    json_object_put(o);
    return 0;
}
