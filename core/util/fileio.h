/*
 * fileio.h — whole-file reads, atomic writes and mkdir -p, for every part of
 * libkforge.  Errors go into kf_error as "cannot read PATH: reason".
 */
#ifndef KF_FILEIO_H
#define KF_FILEIO_H

#include "error.h"

/* Opens path read-only if it is a regular file.  A FIFO, socket, device or
 * directory is refused without blocking on the open (a FIFO with no writer
 * would block it forever): the open is non-blocking, then fstat decides.
 * Returns a blocking, close-on-exec descriptor, or -1 with err set to
 * "PATH: cannot open: REASON" (code errno) or "PATH: not a regular file (a
 * FIFO)" (code EINVAL); with `what` ("candidate source"), "PATH: cannot open
 * WHAT: REASON" or "PATH: WHAT is not a regular file (a FIFO)". */
int kf_open_regular(const char *path, const char *what, kf_error *err);

/* The whole file, NUL-terminated, malloc'ed; NULL with err set on failure.
 * Only regular files are read ("cannot read PATH: not a regular file (a
 * FIFO)").  (A file may itself contain NUL bytes: callers that need text
 * check.) */
char *kf_read_file(const char *path, kf_error *err);
/* Writes text to path through a temp file, fsync and rename. */
int kf_write_file_atomic(const char *path, const char *text, kf_error *err);
/* The same, the file created with `mode` (& umask), e.g. 0600 for records
 * only their owner may read or change. */
int kf_write_file_atomic_mode(const char *path, const char *text, int mode, kf_error *err);
/* kforge's cache directory for `sub` ("peaks", "llm", "ref"):
 * $XDG_CACHE_HOME/kforge/SUB, else $HOME/.cache/kforge/SUB, as a malloc'ed
 * path (not created); NULL when neither variable is set (or no memory). */
char *kf_cache_dir(const char *sub);
/* Creates path and its parents (mode 0777 & umask). */
int kf_mkdir_p(const char *path, kf_error *err);
/* The same, the directories it creates made with `mode` (& umask), e.g. 0700. */
int kf_mkdir_p_mode(const char *path, int mode, kf_error *err);

/* The build tree this program runs from: BUILD, written into buf, when the
 * executable is BUILD/core/PROGRAM beside BUILD/config.status (a build not
 * installed yet); 0, else -1 (installed, or buf too small). */
int kf_build_tree(char *buf, size_t n);

#endif
