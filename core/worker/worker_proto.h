/*
 * worker_proto.h — the protocol between kf_evaluate() (parent) and the
 * kforge-worker executable.  Internal; both sides link this code.
 *
 * Channel: the worker's fd 0 and fd 1 are the two ends of one AF_UNIX
 * stream socket (a socketpair, so the parent never gets SIGPIPE when a
 * worker dies: it sends with MSG_NOSIGNAL); its stderr is a pipe the
 * parent drains.  The worker moves the socket to a private fd and points
 * fd 1 at its stderr, so a candidate's printf cannot forge a reply.  The
 * shared buffers live in a memfd inherited as fd KF_WORKER_MEMFD.
 *
 * One JSON object per line each way; every command gets exactly one reply.
 *
 *   {"cmd":"load", "plugin":PATH, "backend":NAME, "device":N, "work_dir":DIR,
 *    "sandbox":"auto"|"strict"|"off",
 *    "problem":{...kf_problem_view...}, "candidate":{...kf_candidate_view...},
 *    "layout":{"size":BYTES, "n_sets":S, "n_inputs":I, "n_outputs":O,
 *              "n_scratch":K, "regions":[[offset,bytes,guard], ...]}}
 *        opens the plugin (kf_plugin_open), lists its devices (the cheap
 *        kf_plugin_list: no peak measurement), maps the memfd,
 *        confines itself (Landlock, seccomp: sandbox.h) and compiles; the
 *        reply says which layers hold ("sandbox", "sandbox_why").  The candidate arrives bound (every size evaluated by
 *        the parent), so the worker needs neither the problem file nor
 *        the expression evaluator.
 *        With "compile_only":TARGET (plugin ABI 1.2) it compiles for that
 *        target with compile_offline instead: no device is listed or
 *        needed, nothing of the candidate runs, and the reply carries
 *        "binary" (base64, at most KF_WP_MAX_BINARY bytes) and "report".
 *   {"cmd":"run", "set":S}                 one verify run on set S
 *   {"cmd":"profile", "warmup":W, "reps":R, "n_sets":S, "set":F, "seq":N}
 *        the backend's profile hook over sets F .. F+S-1; the parent sends
 *        one timed run per command (reps 1) and times the round trip
 *        itself.  Before the first run or profile the worker closes exec
 *        and fork behind it (the candidate's code may run from then on).
 *   {"cmd":"ping"}                         replies at once (the parent's
 *                                          measure of the channel's cost)
 *   {"cmd":"quit"}
 *
 * Reply: {"status":kf_status, "diagnostics":STR|null, "error":STR|null,
 *         "samples":[seconds...], "clock_is_device":0|1,
 *         "counters":[[NAME,VALUE]...], "report":STR|null,
 *         "sandbox":BITS, "sandbox_why":STR|null, "seq":N, "binary":B64}
 * A reply echoes the command's "seq" (a per-evaluation random number), so a
 * line the candidate forges on the channel does not pass for a reply.
 *
 * Regions are ordered set by set, and within a set inputs, outputs,
 * scratch.  The parent never trusts a reply's numbers for correctness: it
 * reads the buffers itself.
 */
#ifndef KF_WORKER_PROTO_H
#define KF_WORKER_PROTO_H

#include <stddef.h>
#include <stdint.h>

#include "util/error.h"
#include "kforge-plugin.h"

#define KF_WORKER_MEMFD 3
/* A worker that is the init of its PID namespace cannot die of a signal it
 * raises itself; it exits with KF_WORKER_SIGEXIT + signal instead. */
#define KF_WORKER_SIGEXIT 192
/* Longest line either side accepts (compiler logs, reports, sources). */
#define KF_WP_MAX_LINE (32u << 20)
/* Largest compile-only binary a reply may carry (base64 inside the line). */
#define KF_WP_MAX_BINARY (16u << 20)

typedef struct kf_wp_region {
    uint64_t offset, bytes, guard;
} kf_wp_region;

typedef struct kf_wp_layout {
    uint64_t size;            /* bytes of the memfd */
    int n_sets, n_inputs, n_outputs, n_scratch;
    kf_wp_region *regions;    /* n_sets * (n_inputs + n_outputs + n_scratch) */
} kf_wp_layout;

/* kf_buffer views of a layout over a mapping. */
typedef struct kf_wp_sets {
    int n_sets;
    kf_buffer_set *sets;
    kf_buffer *bufs;
} kf_wp_sets;

int kf_wp_layout_regions(const kf_wp_layout *l);
/* Checks that every region lies inside size and guards are 4096-multiples. */
int kf_wp_layout_check(const kf_wp_layout *l, kf_error *err);
char *kf_wp_layout_json(const kf_wp_layout *l);           /* malloc'ed object text */
void kf_wp_layout_free(kf_wp_layout *l);
/* Builds the views; 0 or -1 (out of memory). */
int kf_wp_sets_build(const kf_wp_layout *l, unsigned char *map, kf_wp_sets *out);
void kf_wp_sets_free(kf_wp_sets *s);

/* The bound problem and candidate, owned copies decoded from JSON. */
typedef struct kf_wp_views {
    kf_problem_view problem;
    kf_candidate_view candidate;
    void *storage;            /* everything the views point into */
} kf_wp_views;

/* JSON object texts of the views (malloc'ed). */
char *kf_wp_problem_json(const kf_problem_view *pv);
char *kf_wp_candidate_json(const kf_candidate_view *cv);

/* Decodes the "load" command: views and layout.  0 or -1 with err set. */
struct json_object;
int kf_wp_decode_load(struct json_object *cmd, kf_wp_views *v, kf_wp_layout *l, kf_error *err);
void kf_wp_views_free(kf_wp_views *v);

typedef struct kf_wp_reply {
    int status;               /* kf_status */
    char *diagnostics, *error, *report;
    int n_samples;
    double *samples;
    int clock_is_device;
    int n_counters;
    kf_counter counters[KF_MAX_COUNTERS];
    int64_t seq;              /* the command's "seq", echoed (0: none) */
    int sandbox;              /* load: the worker-side layers it put on itself
                                 (KF_SB_* bits); -1 when not reported */
    char *sandbox_why;        /* load: why a layer is missing, or NULL */
    unsigned char *binary;    /* load with compile_only: what compile_offline made */
    size_t binary_size;
} kf_wp_reply;

char *kf_wp_reply_json(const kf_wp_reply *r);             /* one line, malloc'ed */
int kf_wp_reply_parse(const char *line, kf_wp_reply *r, char *why, size_t why_len);
void kf_wp_reply_free(kf_wp_reply *r);

#endif
