/*
 * journal.h — the run journal: JSON lines appended and flushed (fsync) per
 * step, so that `kforge run --resume DIR` continues after a crash or a
 * kill -9 with nothing lost and no step paid for twice.
 *
 * Every line is one JSON object with at least {"ev": NAME, "t": unix time}.
 * A torn last line (the process died mid-write) is ignored on read.
 */
#ifndef KF_JOURNAL_H
#define KF_JOURNAL_H

#include <json-c/json.h>
#include "error.h"
#include "fileio.h"

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
