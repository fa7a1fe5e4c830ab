#include "journal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

struct kf_journal {
    int fd;
    char *path;
};

int kf_mkdir_p(const char *path, kf_error *err)
{
    char buf[4096];
    if (strlen(path) >= sizeof buf)
        return kf_fail(err, ENAMETOOLONG, "%s: path too long", path);
    strcpy(buf, path);
    for (char *p = buf + 1; *p; p++) {
        if (*p != '/') continue;
        *p = '\0';
        if (mkdir(buf, 0777) != 0 && errno != EEXIST)
            return kf_fail(err, errno, "cannot create directory %s: %s", buf, strerror(errno));
        *p = '/';
    }
    if (mkdir(buf, 0777) != 0 && errno != EEXIST)
        return kf_fail(err, errno, "cannot create directory %s: %s", buf, strerror(errno));
    return 0;
}

int kf_write_file_atomic(const char *path, const char *text, kf_error *err)
{
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (fd < 0)
        return kf_fail(err, errno, "cannot write %s: %s", path, strerror(errno));
    size_t len = strlen(text), off = 0;
    while (off < len) {
        ssize_t w = write(fd, text + off, len - off);
        if (w < 0) {
            if (errno == EINTR) continue;
            int e = errno;
            close(fd);
            unlink(tmp);
            return kf_fail(err, e, "cannot write %s: %s", path, strerror(e));
        }
        off += (size_t)w;
    }
    if (fsync(fd) != 0 || close(fd) != 0) {
        unlink(tmp);
        return kf_fail(err, errno, "cannot write %s: %s", path, strerror(errno));
    }
    if (rename(tmp, path) != 0) {
        int e = errno;
        unlink(tmp);
        return kf_fail(err, e, "cannot rename %s to %s: %s", tmp, path, strerror(e));
    }
    return 0;
}

char *kf_read_file(const char *path, kf_error *err)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        kf_fail(err, errno, "cannot read %s: %s", path, strerror(errno));
        return NULL;
    }
    size_t cap = 8192, len = 0, n;
    char *buf = malloc(cap);
    while (buf && (n = fread(buf + len, 1, cap - len - 1, f)) > 0) {
        len += n;
        if (cap - len < 2) {
            char *nb = realloc(buf, cap * 2);
            if (!nb) { free(buf); buf = NULL; break; }
            buf = nb;
            cap *= 2;
        }
    }
    int bad = ferror(f);
    fclose(f);
    if (!buf || bad) {
        free(buf);
        kf_fail(err, EIO, "cannot read %s", path);
        return NULL;
    }
    buf[len] = '\0';
    return buf;
}

kf_journal *kf_journal_open(const char *dir, kf_error *err)
{
    kf_journal *j = calloc(1, sizeof *j);
    if (!j || asprintf(&j->path, "%s/journal.jsonl", dir) < 0) {
        free(j);
        kf_fail(err, ENOMEM, "out of memory");
        return NULL;
    }
    j->fd = open(j->path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0666);
    if (j->fd < 0) {
        kf_fail(err, errno, "cannot open journal %s: %s", j->path, strerror(errno));
        free(j->path);
        free(j);
        return NULL;
    }
    return j;
}

int kf_journal_append(kf_journal *j, const char *ev_name, json_object *ev, kf_error *err)
{
    json_object *line = json_object_new_object();
    json_object_object_add(line, "ev", json_object_new_string(ev_name));
    json_object_object_add(line, "t", json_object_new_int64((int64_t)time(NULL)));
    if (ev) {
        json_object_object_foreach(ev, k, v)
            json_object_object_add(line, k, json_object_get(v));
    }
    const char *s = json_object_to_json_string_ext(line, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
    size_t len = strlen(s);
    char *buf = malloc(len + 2);
    if (!buf) {
        json_object_put(line);
        return kf_fail(err, ENOMEM, "out of memory");
    }
    memcpy(buf, s, len);
    buf[len] = '\n';
    json_object_put(line);
    size_t off = 0;
    while (off < len + 1) {
        ssize_t w = write(j->fd, buf + off, len + 1 - off);
        if (w < 0) {
            if (errno == EINTR) continue;
            free(buf);
            return kf_fail(err, errno, "cannot append to %s: %s", j->path, strerror(errno));
        }
        off += (size_t)w;
    }
    free(buf);
    if (fsync(j->fd) != 0)
        return kf_fail(err, errno, "cannot sync %s: %s", j->path, strerror(errno));
    return 0;
}

void kf_journal_close(kf_journal *j)
{
    if (!j) return;
    close(j->fd);
    free(j->path);
    free(j);
}

json_object *kf_journal_read(const char *dir, kf_error *err)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/journal.jsonl", dir);
    char *text = kf_read_file(path, err);
    if (!text) {
        if (err) {
            char why[KF_ERROR_MAX];
            snprintf(why, sizeof why, "%.1000s: no journal to resume from (%.1000s)", dir, err->msg);
            kf_fail(err, ENOENT, "%s", why);
        }
        return NULL;
    }
    json_object *arr = json_object_new_array();
    char *save = NULL;
    for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        json_object *o = json_tokener_parse(line);
        if (o && json_object_is_type(o, json_type_object))
            json_object_array_add(arr, o);
        else if (o)
            json_object_put(o);
        /* an unparsable line can only be the torn last write: ignore it */
    }
    free(text);
    return arr;
}
