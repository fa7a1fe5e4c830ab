/* llm_store.c — request keys, the response cache and cassette files.
 *
 * Nothing written here ever contains an API key: the request JSON is built from the
 * kf_llm_request and the redacted base URL only, never from HTTP headers. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "http.h"
#include "util/fileio.h"
#include "util/sha256.h"
#include "llm_internal.h"

const char *kf_llm_role_name(kf_llm_role r)
{
    switch (r) {
    case KF_LLM_SYSTEM: return "system";
    case KF_LLM_ASSISTANT: return "assistant";
    default: return "user";
    }
}

const char *kf_llm_json_text(json_object *obj)
{
    return json_object_to_json_string_ext(obj, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
}

int kf_llm_request_masked(const kf_llm_request *req)
{
    for (int i = 0; i < req->n_messages; i++) {
        const kf_llm_message *m = &req->messages[i];
        if (m->key_content && (!m->content || strcmp(m->key_content, m->content) != 0)) return 1;
    }
    return 0;
}

int kf_llm_context_from_error(const char *msg)
{
    static const char *const marks[] = {"context window of ", "maximum context length is ",
                                        "context length of ", "n_ctx = ", "n_ctx: ", NULL};
    for (int i = 0; msg && marks[i]; i++) {
        const char *p = strstr(msg, marks[i]);
        if (!p) continue;
        long n = strtol(p + strlen(marks[i]), NULL, 10);
        if (n > 0 && n < 100000000) return (int)n;
    }
    return 0;
}

json_object *kf_llm_request_json(const kf_llm *llm, const kf_llm_request *req,
                                 const char *model, int full, int keyed)
{
    json_object *o = json_object_new_object();
    if (full) {
        char url[1024];
        json_object_object_add(o, "provider", json_object_new_string(llm->prov->name));
        if (llm->base_url) {
            kf_http_redact_url(llm->base_url, url, sizeof url);
            json_object_object_add(o, "base_url", json_object_new_string(url));
        }
        if (model) json_object_object_add(o, "model", json_object_new_string(model));
        else json_object_object_add(o, "agent", json_object_new_string(llm->name));
    }
    json_object *msgs = json_object_new_array();
    for (int i = 0; i < req->n_messages; i++) {
        json_object *m = json_object_new_object();
        json_object_object_add(m, "role", json_object_new_string(kf_llm_role_name(req->messages[i].role)));
        const char *c = keyed && req->messages[i].key_content ? req->messages[i].key_content
                                                              : req->messages[i].content;
        json_object_object_add(m, "content", json_object_new_string(c ? c : ""));
        json_object_array_add(msgs, m);
    }
    json_object_object_add(o, "messages", msgs);
    if (req->temperature >= 0)
        json_object_object_add(o, "temperature", json_object_new_double(req->temperature));
    if (req->max_tokens > 0)
        json_object_object_add(o, "max_tokens", json_object_new_int(req->max_tokens));
    if (req->has_seed)
        json_object_object_add(o, "seed", json_object_new_int64(req->seed));
    if (req->n_stop > 0) {
        json_object *st = json_object_new_array();
        for (int i = 0; i < req->n_stop; i++)
            json_object_array_add(st, json_object_new_string(req->stop[i] ? req->stop[i] : ""));
        json_object_object_add(o, "stop", st);
    }
    return o;
}

void kf_llm_json_key(json_object *obj, char key[65])
{
    const char *t = kf_llm_json_text(obj);
    kf_sha256_hex(t, strlen(t), key);
}

json_object *kf_llm_response_json(const kf_llm_response *r)
{
    json_object *o = json_object_new_object();
    json_object_object_add(o, "content", json_object_new_string(r->content ? r->content : ""));
    json_object_object_add(o, "finish_reason", json_object_new_string(r->finish_reason));
    json_object_object_add(o, "prompt_tokens", json_object_new_int64(r->prompt_tokens));
    json_object_object_add(o, "completion_tokens", json_object_new_int64(r->completion_tokens));
    json_object_object_add(o, "cost_usd", json_object_new_double(r->cost_usd));
    json_object_object_add(o, "provider", json_object_new_string(r->provider));
    json_object_object_add(o, "model", json_object_new_string(r->model));
    return o;
}

int kf_llm_response_from_json(json_object *o, kf_llm_response *r, const char *what, kf_error *err)
{
    json_object *v;
    if (!json_object_is_type(o, json_type_object) || !json_object_object_get_ex(o, "content", &v) ||
        !json_object_is_type(v, json_type_string))
        return kf_failc(err, KF_E_IO, KF_LLM_E_IO, "%s: the response has no \"content\" string", what);
    free(r->content);
    r->content = strdup(json_object_get_string(v));
    if (!r->content) return kf_failc(err, KF_E_IO, KF_LLM_E_IO, "%s: out of memory", what);
    if (json_object_object_get_ex(o, "finish_reason", &v))
        snprintf(r->finish_reason, sizeof r->finish_reason, "%s", json_object_get_string(v));
    if (json_object_object_get_ex(o, "prompt_tokens", &v)) r->prompt_tokens = (long)json_object_get_int64(v);
    if (json_object_object_get_ex(o, "completion_tokens", &v))
        r->completion_tokens = (long)json_object_get_int64(v);
    if (json_object_object_get_ex(o, "provider", &v))
        snprintf(r->provider, sizeof r->provider, "%s", json_object_get_string(v));
    if (json_object_object_get_ex(o, "model", &v))
        snprintf(r->model, sizeof r->model, "%s", json_object_get_string(v));
    return 0;
}

static json_object *entry_json(const char *key, json_object *request, json_object *keyed,
                               const kf_llm_response *resp, const kf_error *failure)
{
    json_object *e = json_object_new_object();
    json_object_object_add(e, "key", json_object_new_string(key));
    json_object_object_add(e, "request", json_object_get(request));
    if (keyed) json_object_object_add(e, "keyed", json_object_get(keyed));
    if (resp) {
        json_object_object_add(e, "response", kf_llm_response_json(resp));
    } else {
        json_object *f = json_object_new_object();
        json_object_object_add(f, "code", json_object_new_int(failure ? failure->code : 0));
        json_object_object_add(f, "message", json_object_new_string(failure ? failure->msg : ""));
        json_object_object_add(e, "error", f);
    }
    return e;
}

int kf_llm_cache_get(const char *dir, const char *key, kf_llm_response *resp, kf_error *err)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s.json", dir, key);
    char *text = kf_read_file(path, NULL);
    if (!text) return 0;
    json_object *e = json_tokener_parse(text);
    free(text);
    json_object *k, *r;
    int rc = -1;
    if (!e || !json_object_object_get_ex(e, "key", &k) || strcmp(json_object_get_string(k), key) != 0 ||
        !json_object_object_get_ex(e, "response", &r)) {
        kf_failc(err, KF_E_IO, KF_LLM_E_IO, "%s: not a kforge cache entry (delete it)", path);
    } else if (kf_llm_response_from_json(r, resp, path, err) == 0) {
        rc = 1;
    }
    json_object_put(e);
    return rc;
}

static int write_all(int fd, const char *s, size_t n)
{
    while (n) {
        ssize_t w = write(fd, s, n);
        if (w < 0) { if (errno == EINTR) continue; return -1; }
        s += w;
        n -= (size_t)w;
    }
    return 0;
}

int kf_llm_cache_put(const char *dir, const char *key, json_object *request,
                     const kf_llm_response *resp, kf_error *err)
{
    kf_error me = {0};
    if (kf_mkdir_p_mode(dir, 0755, &me) < 0)
        return kf_failc(err, KF_E_IO, KF_LLM_E_IO, "the LLM cache directory: %s", me.msg);
    char tmp[4096], path[4096];
    snprintf(path, sizeof path, "%s/%s.json", dir, key);
    snprintf(tmp, sizeof tmp, "%s/.%s.%ld.tmp", dir, key, (long)getpid());
    json_object *e = entry_json(key, request, NULL, resp, NULL);
    const char *t = kf_llm_json_text(e);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    int rc = 0;
    if (fd < 0 || write_all(fd, t, strlen(t)) < 0 || write_all(fd, "\n", 1) < 0 || fsync(fd) < 0) {
        rc = kf_failc(err, KF_E_IO, KF_LLM_E_IO, "%s: cannot write the cache entry: %s", tmp, strerror(errno));
        if (fd >= 0) { close(fd); unlink(tmp); }
    } else if (close(fd) < 0 || rename(tmp, path) < 0) {
        rc = kf_failc(err, KF_E_IO, KF_LLM_E_IO, "%s: cannot write the cache entry: %s", path, strerror(errno));
        unlink(tmp);
    }
    json_object_put(e);
    return rc;
}

int kf_llm_cassette_append(const char *path, const char *key, json_object *request,
                           json_object *keyed, const kf_llm_response *resp,
                           const kf_error *failure, kf_error *err)
{
    json_object *e = entry_json(key, request, keyed, resp, failure);
    const char *t = kf_llm_json_text(e);
    size_t n = strlen(t);
    char *line = malloc(n + 2);
    int rc = 0;
    if (!line) {
        rc = kf_failc(err, KF_E_IO, KF_LLM_E_IO, "%s: out of memory", path);
    } else {
        memcpy(line, t, n);
        line[n] = '\n';
        /* one write() on an O_APPEND file: concurrent recorders never interleave lines */
        int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
        if (fd < 0 || write_all(fd, line, n + 1) < 0) {
            rc = kf_failc(err, KF_E_IO, KF_LLM_E_IO, "%s: cannot append to the cassette: %s", path, strerror(errno));
        }
        if (fd >= 0 && close(fd) < 0 && rc == 0)
            rc = kf_failc(err, KF_E_IO, KF_LLM_E_IO, "%s: cannot append to the cassette: %s", path, strerror(errno));
    }
    free(line);
    json_object_put(e);
    return rc;
}
