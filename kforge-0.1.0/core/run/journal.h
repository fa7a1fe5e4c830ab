/*
 * journal.h — the run journal: JSON lines appended and flushed (fsync) per
 * step, so that `kforge run --resume DIR` continues after a crash or a
 * kill -9 with nothing lost and no step paid for twice.
 *
 * Every line is one JSON object with at least {"ev": NAME, "t": unix time}.
 * A torn last line (the process died mid-write) is ignored on read.
 *
 * The journal is created owner-only (0600).  Who may write it: only kforge.
 * Generated code never runs in kforge's process; the worker that runs it
 * works in its own temporary directory, and the worker sandbox
 * (core/worker/, core/eval/, core/sandbox/) keeps the run directory out of its reach.
 * File modes alone do not stop a process of the same user: the sandbox
 * does.  The journal carries no per-line MAC: a key held only in kforge's
 * memory dies with the process, so the `--resume` that reads the journal
 * (a new process) could not check it; a key kept on disk for resume would
 * need the same protection from the worker as the journal itself.  What
 * resume must not take on trust it checks instead: the recorded best
 * candidate is evaluated again before it is adopted (core/run/loop_resume.c).
 */
#ifndef KF_JOURNAL_H
#define KF_JOURNAL_H

#include <json-c/json.h>
#include "util/error.h"
#include "util/fileio.h"

typedef struct kf_journal kf_journal;

/* Opens DIR/journal.jsonl for appending (created if absent). */
kf_journal *kf_journal_open(const char *dir, kf_error *err);
/* Appends `ev` (takes a reference to nothing: the caller still owns ev),
 * adding "ev" and "t"; flushes and fsyncs.  Returns 0 or -1. */
int kf_journal_append(kf_journal *j, const char *ev_name, json_object *ev, kf_error *err);
void kf_journal_close(kf_journal *j);

/* Reads every complete line of DIR/journal.jsonl into a JSON array
 * (caller puts it).  A missing journal is an error that says so. */
json_object *kf_journal_read(const char *dir, kf_error *err);


#endif
