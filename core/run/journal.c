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

/* Writes "\n" when the file does not end with one.  Returns 0 or -1. */
static int end_torn_line(int fd)
{
    struct stat sb;
    char c;
    if (fstat(fd, &sb) != 0) return -1;
    if (sb.st_size == 0) return 0;
    if (pread(fd, &c, 1, sb.st_size - 1) != 1) return -1;
    if (c == '\n') return 0;
    while (write(fd, "\n", 1) != 1)
        if (errno != EINTR) return -1;
    return 0;
}

kf_journal *kf_journal_open(const char *dir, kf_error *err)
{
    kf_journal *j = calloc(1, sizeof *j);
    if (!j || asprintf(&j->path, "%s/journal.jsonl", dir) < 0) {
        free(j);
        kf_fail(err, KF_E_INTERNAL, "out of memory");
        return NULL;
    }
    /* owner-only, also when an older kforge created it with a wider mode */
    j->fd = open(j->path, O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
    if (j->fd >= 0 && fchmod(j->fd, 0600) != 0) {
        int e = errno;
        close(j->fd);
        j->fd = -1;
        errno = e;
    }
    /* a torn last line (kforge died mid-write) is ended here, so that the
       first event appended now is a line of its own, not glued onto the
       fragment (kf_journal_read would drop both) */
    if (j->fd >= 0 && end_torn_line(j->fd) != 0) {
        int e = errno;
        close(j->fd);
        j->fd = -1;
        errno = e;
    }
    if (j->fd < 0) {
        kf_fail_errno(err, errno, "cannot open journal %s: %s", j->path, strerror(errno));
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
        return kf_fail(err, KF_E_INTERNAL, "out of memory");
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
            return kf_fail_errno(err, errno, "cannot append to %s: %s", j->path, strerror(errno));
        }
        off += (size_t)w;
    }
    free(buf);
    if (fsync(j->fd) != 0)
        return kf_fail_errno(err, errno, "cannot sync %s: %s", j->path, strerror(errno));
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
            kf_fail_errno(err, ENOENT, "%s", why);
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
