/* fileio.c — small file helpers shared by the parts of libkforge. */
#include "fileio.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int kf_mkdir_p(const char *path, kf_error *err) { return kf_mkdir_p_mode(path, 0777, err); }

int kf_mkdir_p_mode(const char *path, int mode, kf_error *err)
{
    char buf[4096];
    if (strlen(path) >= sizeof buf)
        return kf_fail_errno(err, ENAMETOOLONG, "%s: path too long", path);
    strcpy(buf, path);
    for (char *p = buf + 1; *p; p++) {
        if (*p != '/') continue;
        *p = '\0';
        if (mkdir(buf, (mode_t)mode) != 0 && errno != EEXIST)
            return kf_fail_errno(err, errno, "cannot create directory %s: %s", buf, strerror(errno));
        *p = '/';
    }
    if (mkdir(buf, (mode_t)mode) != 0 && errno != EEXIST)
        return kf_fail_errno(err, errno, "cannot create directory %s: %s", buf, strerror(errno));
    return 0;
}

int kf_write_file_atomic(const char *path, const char *text, kf_error *err)
{
    return kf_write_file_atomic_mode(path, text, 0666, err);
}

int kf_write_file_atomic_mode(const char *path, const char *text, int mode, kf_error *err)
{
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, (mode_t)mode);
    if (fd < 0)
        return kf_fail_errno(err, errno, "cannot write %s: %s", path, strerror(errno));
    size_t len = strlen(text), off = 0;
    while (off < len) {
        ssize_t w = write(fd, text + off, len - off);
        if (w < 0) {
            if (errno == EINTR) continue;
            int e = errno;
            close(fd);
            unlink(tmp);
            return kf_fail_errno(err, e, "cannot write %s: %s", path, strerror(e));
        }
        off += (size_t)w;
    }
    if (fsync(fd) != 0 || close(fd) != 0) {
        unlink(tmp);
        return kf_fail_errno(err, errno, "cannot write %s: %s", path, strerror(errno));
    }
    if (rename(tmp, path) != 0) {
        int e = errno;
        unlink(tmp);
        return kf_fail_errno(err, e, "cannot rename %s to %s: %s", tmp, path, strerror(e));
    }
    return 0;
}

static const char *file_kind(mode_t m)
{
    if (S_ISDIR(m)) return "a directory";
    if (S_ISFIFO(m)) return "a FIFO";
    if (S_ISSOCK(m)) return "a socket";
    if (S_ISCHR(m)) return "a character device";
    if (S_ISBLK(m)) return "a block device";
    return "not a plain file";
}

/* The descriptor, or -1 with errno set (open failed) or with *kind set to
 * what the file is (not a regular file; errno is then EINVAL). */
static int open_regular(const char *path, const char **kind)
{
    *kind = NULL;
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) return -1;
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int e = errno;
        close(fd);
        errno = e;
        return -1;
    }
    if (!S_ISREG(st.st_mode)) {
        *kind = file_kind(st.st_mode);
        close(fd);
        errno = EINVAL;
        return -1;
    }
    int fl = fcntl(fd, F_GETFL);
    if (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) != 0) {
        int e = errno;
        close(fd);
        errno = e;
        return -1;
    }
    return fd;
}

int kf_open_regular(const char *path, const char *what, kf_error *err)
{
    const char *kind;
    int fd = open_regular(path, &kind);
    if (fd >= 0) return fd;
    int e = errno;
    if (kind)
        return kf_fail(err, KF_E_BAD_INPUT, "%s: %s%snot a regular file (%s)", path, what ? what : "",
                       what ? " is " : "", kind);
    return kf_fail_errno(err, e, "%s: cannot open%s%s: %s", path, what ? " " : "", what ? what : "", strerror(e));
}

char *kf_read_file(const char *path, kf_error *err)
{
    const char *kind;
    int fd = open_regular(path, &kind);
    FILE *f = fd >= 0 ? fdopen(fd, "rb") : NULL;
    if (!f) {
        int e = errno;
        if (fd >= 0) close(fd);
        if (kind) kf_fail(err, KF_E_BAD_INPUT, "cannot read %s: not a regular file (%s)", path, kind);
        else kf_fail_errno(err, e, "cannot read %s: %s", path, strerror(e));
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
        kf_fail_errno(err, EIO, "cannot read %s", path);
        return NULL;
    }
    buf[len] = '\0';
    return buf;
}

char *kf_cache_dir(const char *sub)
{
    const char *x = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    char *path = NULL;
    int n = x && *x ? asprintf(&path, "%s/kforge/%s", x, sub)
          : home && *home ? asprintf(&path, "%s/.cache/kforge/%s", home, sub) : -1;
    return n < 0 ? NULL : path;
}

int kf_build_tree(char *buf, size_t n)
{
    if (n < 2) return -1;
    ssize_t len = readlink("/proc/self/exe", buf, n - 1);
    if (len <= 0 || (size_t)len >= n - 1) return -1;
    buf[len] = '\0';
    char *slash = strrchr(buf, '/');
    if (!slash) return -1;
    *slash = '\0';                                 /* BUILD/core */
    size_t l = strlen(buf);
    if (l < 5 || strcmp(buf + l - 5, "/core") != 0) return -1;
    buf[l - 5] = '\0';                             /* BUILD */
    size_t bl = strlen(buf);
    char *probe = malloc(bl + sizeof "/config.status");
    if (!probe) return -1;
    memcpy(probe, buf, bl);
    memcpy(probe + bl, "/config.status", sizeof "/config.status");
    int rc = access(probe, F_OK) == 0 ? 0 : -1;
    free(probe);
    return rc;
}
