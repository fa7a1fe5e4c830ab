/* test_eval_mem.c — guarded shared buffers (core/eval/eval_mem.c), the worker
 * protocol encoding (core/worker/worker_proto.c) and the worker client's handling
 * of replies, hangs, crashes and garbage (core/eval/worker_client.c), with tiny
 * shell scripts standing in for the worker. */
#include <json-c/json.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "eval/eval_internal.h"
#include "sandbox/sandbox.h"
#include "sandbox/sandbox.h"
#include "kf_test.h"

static const char *in_names[] = {"x", "b"};
static const char *out_names[] = {"y"};
static int64_t in_elems[] = {1000, 10};
static int64_t out_elems[] = {1000};
static int64_t scratch_bytes[] = {6};

static kf_problem_view view(void)
{
    kf_problem_view pv;
    memset(&pv, 0, sizeof pv);
    pv.name = "t";
    pv.n_inputs = 2;
    pv.input_names = in_names;
    pv.input_elems = in_elems;
    pv.n_outputs = 1;
    pv.output_names = out_names;
    pv.output_elems = out_elems;
    pv.n_scratch = 1;
    pv.scratch_bytes = scratch_bytes;
    return pv;
}

KF_TEST(layout_is_aligned_guarded_and_sealed)
{
    kf_problem_view pv = view();
    kf_eval_mem m;
    kf_error err = {0};
    KF_CHECK_INT(kf_eval_mem_create(&m, 3, &pv, &err), 0);
    KF_CHECK_INT(m.layout.n_sets, 3);
    KF_CHECK_INT(kf_wp_layout_regions(&m.layout), 12);
    KF_CHECK_INT(kf_wp_layout_check(&m.layout, &err), 0);
    for (int i = 0; i < 12; i++) {
        const kf_buffer *b = &m.sets.bufs[i];
        KF_CHECK_INT((uintptr_t)b->data % 4096, 0);
        KF_CHECK_INT(b->guard_bytes, KF_GUARD_BYTES);
        kf_guard_fault f;
        KF_CHECK_INT(kf_guard_check(b, &f), 0);
    }
    KF_CHECK_INT(m.sets.sets[2].outputs[0].bytes, 4000);
    KF_CHECK_INT(m.sets.sets[1].scratch[0].bytes, 6);
    /* the worker must not be able to shrink the file under the parent */
    KF_CHECK(ftruncate(m.fd, 0) != 0);
    kf_eval_mem_free(&m);
}

KF_TEST(guard_check_finds_side_and_offset)
{
    kf_problem_view pv = view();
    kf_eval_mem m;
    kf_error err = {0};
    KF_CHECK_INT(kf_eval_mem_create(&m, 1, &pv, &err), 0);
    kf_buffer *y = &m.sets.sets[0].outputs[0];
    kf_guard_fault f;
    y->data[1000 + 2] = 1.0f;   /* three elements past the end */
    KF_CHECK_INT(kf_guard_check(y, &f), 1);
    KF_CHECK_INT(f.after, 1);
    KF_CHECK_INT(f.offset, 8);
    KF_CHECK(f.n_changed >= 1 && f.n_changed <= 4);
    kf_guard_fill(y);
    KF_CHECK_INT(kf_guard_check(y, &f), 0);
    y->data[-1] = 0.0f;         /* one element before the start */
    KF_CHECK_INT(kf_guard_check(y, &f), 1);
    KF_CHECK_INT(f.after, 0);
    KF_CHECK(f.offset >= 1 && f.offset <= 4);
    /* writing the canary's own value back does not count; any other does */
    kf_guard_fill(y);
    unsigned char *after = (unsigned char *)y->data + y->bytes;
    after[100] = kf_guard_byte(100 + 7);
    KF_CHECK_INT(kf_guard_check(y, &f), 0);
    after[4095] ^= 1;
    KF_CHECK_INT(kf_guard_check(y, &f), 1);
    KF_CHECK_INT(f.offset, 4095);
    kf_eval_mem_free(&m);
}

KF_TEST(poison_is_counted_and_told_from_computed_nan)
{
    kf_problem_view pv = view();
    kf_eval_mem m;
    kf_error err = {0};
    KF_CHECK_INT(kf_eval_mem_create(&m, 1, &pv, &err), 0);
    kf_buffer *y = &m.sets.sets[0].outputs[0];
    kf_poison_fill(y);
    int64_t first;
    KF_CHECK_INT(kf_poison_count(y->data, 1000, &first), 1000);
    KF_CHECK_INT(first, 0);
    KF_CHECK(isnan(y->data[5]));
    for (int i = 0; i < 500; i++) y->data[i] = (float)i;
    volatile float zero = 0.0f;
    y->data[600] = zero / zero;  /* a NaN the kernel computed */
    KF_CHECK_INT(kf_poison_count(y->data, 1000, &first), 499);
    KF_CHECK_INT(first, 500);
    kf_guard_fault f;
    KF_CHECK_INT(kf_guard_check(y, &f), 0);
    kf_eval_mem_free(&m);
}

/* The parent's writes of a set over threads (kf_buffers_write): every
 * byte copied, a buffer's tail of 2 bytes past its last float too, no
 * guard touched, the same on one thread and on four; and the automatic
 * count: one thread for a small set, and for any on a machine of under 4
 * CPUs. */
KF_TEST(set_writes_over_threads)
{
    static int64_t big_in[] = {(int64_t)3 << 20, 5}, big_out[] = {((int64_t)5 << 20) + 3};
    static int64_t big_scratch[] = {((int64_t)9 << 20) + 6};
    kf_problem_view pv = view();
    pv.input_elems = big_in;
    pv.output_elems = big_out;
    pv.scratch_bytes = big_scratch;
    size_t src_bytes = (size_t)big_out[0] * sizeof(float);   /* the largest of the four (20 MiB) */
    unsigned char *src = malloc(src_bytes);
    KF_CHECK(src != NULL);
    if (!src) return;
    for (size_t i = 0; i < src_bytes; i++) src[i] = (unsigned char)(i * 131 % 251);
    float five[5] = {1, 2, 3, 4, 5};
    for (int mt = 1; mt <= 4; mt += 3) {
        kf_eval_mem m;
        kf_error err = {0};
        KF_CHECK_INT(kf_eval_mem_create(&m, 1, &pv, &err), 0);
        kf_buffer_set *bs = &m.sets.sets[0];
        const float *fsrc = (const float *)(const void *)src;
        kf_write w[4] = {{bs->inputs[0].data, fsrc, bs->inputs[0].bytes},
                         {bs->inputs[1].data, five, bs->inputs[1].bytes},
                         {bs->outputs[0].data, fsrc, bs->outputs[0].bytes},
                         {bs->scratch[0].data, fsrc, bs->scratch[0].bytes}};
        KF_CHECK_INT(kf_buffers_write(w, 4, mt), mt);   /* 44 chunks: room for 5 threads */
        KF_CHECK(memcmp(bs->inputs[0].data, src, bs->inputs[0].bytes) == 0);
        KF_CHECK(memcmp(bs->inputs[1].data, five, sizeof five) == 0);
        KF_CHECK(memcmp(bs->outputs[0].data, src, bs->outputs[0].bytes) == 0);
        KF_CHECK(memcmp(bs->scratch[0].data, src, bs->scratch[0].bytes) == 0);   /* its 2-byte tail too */
        kf_guard_fault f;
        for (int k = 0; k < 2; k++) KF_CHECK_INT(kf_guard_check(&bs->inputs[k], &f), 0);
        KF_CHECK_INT(kf_guard_check(&bs->outputs[0], &f), 0);
        KF_CHECK_INT(kf_guard_check(&bs->scratch[0], &f), 0);
        kf_eval_mem_free(&m);
    }
    free(src);
    float a[4] = {0}, b[4] = {1, 2, 3, 4};
    kf_write small = {a, b, sizeof a};
    KF_CHECK_INT(kf_buffers_write(&small, 1, 0), 1);
    KF_CHECK(memcmp(a, b, sizeof a) == 0);
    static float big[(size_t)16 << 20], big_src[(size_t)16 << 20];   /* 64 MiB, 64 chunks: 8 threads where the CPUs allow */
    kf_write all = {big, big_src, sizeof big};
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    int want = cpus < 4 ? 1 : cpus < 8 ? (int)cpus : 8;
    KF_CHECK_INT(kf_buffers_write(&all, 1, 0), want);
}

KF_TEST(reply_round_trip)
{
    kf_wp_reply r;
    memset(&r, 0, sizeof r);
    double samples[3] = {1e-6, 2e-6, 3e-6};
    r.status = KF_ERR_COMPILE;
    r.diagnostics = (char *)"k.c:1: error: \"oops\"\n\tline2";
    r.samples = samples;
    r.n_samples = 3;
    r.clock_is_device = 1;
    r.n_counters = 1;
    snprintf(r.counters[0].name, sizeof r.counters[0].name, "launch[0].ms");
    r.counters[0].value = 0.25;
    char *line = kf_wp_reply_json(&r);
    KF_CHECK(line && !strchr(line, '\n'));
    kf_wp_reply p;
    char why[128];
    KF_CHECK_INT(kf_wp_reply_parse(line, &p, why, sizeof why), 0);
    KF_CHECK_INT(p.status, KF_ERR_COMPILE);
    KF_CHECK_STR(p.diagnostics, "k.c:1: error: \"oops\"\n\tline2");
    KF_CHECK(p.error == NULL);
    KF_CHECK_INT(p.n_samples, 3);
    KF_CHECK_NEAR(p.samples[2], 3e-6, 1e-18);
    KF_CHECK_INT(p.clock_is_device, 1);
    KF_CHECK_INT(p.n_counters, 1);
    KF_CHECK_STR(p.counters[0].name, "launch[0].ms");
    kf_wp_reply_free(&p);
    free(line);
    KF_CHECK_INT(kf_wp_reply_parse("{\"nope\":1}", &p, why, sizeof why), -1);
    KF_CHECK_INT(kf_wp_reply_parse("garbage", &p, why, sizeof why), -1);
}

KF_TEST(load_command_round_trip)
{
    kf_problem_view pv = view();
    const char *dn[] = {"N"};
    int64_t dv[] = {1000};
    pv.n_dims = 1;
    pv.dim_names = dn;
    pv.dim_values = dv;
    kf_source src = {"k.cl", "__kernel void k(){}"};
    kf_arg args[2] = {{KF_ARG_OUTPUT, 0, 0, 0, 0}, {KF_ARG_FLOAT, 0, 0, 2.5, 0}};
    kf_launch L = {"k", 1, {1024, 1, 1}, {64, 1, 1}, 2, args};
    kf_candidate_view cv = {"opencl", 1, &src, "-cl-fast-relaxed-math", NULL, 1, &L};
    kf_eval_mem m;
    kf_error err = {0};
    KF_CHECK_INT(kf_eval_mem_create(&m, 2, &pv, &err), 0);
    char *pj = kf_wp_problem_json(&pv), *cj = kf_wp_candidate_json(&cv), *lj = kf_wp_layout_json(&m.layout);
    size_t n = strlen(pj) + strlen(cj) + strlen(lj) + 64;
    char *cmd = malloc(n);
    snprintf(cmd, n, "{\"cmd\":\"load\",\"problem\":%s,\"candidate\":%s,\"layout\":%s}", pj, cj, lj);
    json_object *o = json_tokener_parse(cmd);
    kf_wp_views v;
    kf_wp_layout l;
    KF_CHECK_INT(kf_wp_decode_load(o, &v, &l, &err), 0);
    KF_CHECK_INT(v.problem.n_inputs, 2);
    KF_CHECK_STR(v.problem.input_names[1], "b");
    KF_CHECK_INT(v.problem.input_elems[1], 10);
    KF_CHECK_STR(v.problem.dim_names[0], "N");
    KF_CHECK_INT(v.problem.scratch_bytes[0], 6);
    KF_CHECK_STR(v.candidate.sources[0].text, "__kernel void k(){}");
    KF_CHECK_STR(v.candidate.build_options, "-cl-fast-relaxed-math");
    KF_CHECK(v.candidate.entry == NULL);
    KF_CHECK_INT(v.candidate.launches[0].global[0], 1024);
    KF_CHECK_INT(v.candidate.launches[0].args[1].kind, KF_ARG_FLOAT);
    KF_CHECK_NEAR(v.candidate.launches[0].args[1].fval, 2.5, 0);
    KF_CHECK_INT(l.size, m.layout.size);
    KF_CHECK_INT(l.regions[5].offset, m.layout.regions[5].offset);
    kf_wp_views_free(&v);
    kf_wp_layout_free(&l);
    /* a region that points outside the memfd is refused */
    json_object *lo, *regs;
    json_object_object_get_ex(o, "layout", &lo);
    json_object_object_get_ex(lo, "regions", &regs);
    json_object_array_put_idx(json_object_array_get_idx(regs, 0), 0, json_object_new_int64((int64_t)m.layout.size));
    KF_CHECK_INT(kf_wp_decode_load(o, &v, &l, &err), -1);
    json_object_put(o);
    free(pj);
    free(cj);
    free(lj);
    free(cmd);
    kf_eval_mem_free(&m);
}

/* Tensor maps (plan ABI 1.5) travel to the worker with the candidate;
 * a malformed one (wrong length, bad kind, rank or dtype) is refused. */
KF_TEST(load_command_tensor_maps)
{
    kf_problem_view pv = view();
    kf_source src = {"k.cu", "", 0, 0};
    kf_arg args[2] = {{KF_ARG_OUTPUT, 0, 0, 0, 0}, {KF_ARG_TENSOR_MAP, 0, 0, 0, 0}};
    kf_launch L = {"k", 1, {256, 1, 1}, {256, 1, 1}, 2, args, 0};
    kf_tensor_map t = {sizeof(kf_tensor_map), KF_ARG_SCRATCH, 0, KF_DT_BF16, 2,
                       {8, 3, 0, 0, 0}, {2, 16, 0, 0, 0}, {8, 2, 0, 0, 0}, 0};
    kf_candidate_view cv = {"cuda", 1, &src, "", NULL, 1, &L, sizeof(kf_candidate_view), sizeof(kf_source),
                            sizeof(kf_launch), 1, &t, sizeof(kf_tensor_map)};
    kf_eval_mem m;
    kf_error err = {0};
    KF_CHECK_INT(kf_eval_mem_create(&m, 1, &pv, &err), 0);
    char *pj = kf_wp_problem_json(&pv), *cj = kf_wp_candidate_json(&cv), *lj = kf_wp_layout_json(&m.layout);
    size_t n = strlen(pj) + strlen(cj) + strlen(lj) + 64;
    char *cmd = malloc(n);
    snprintf(cmd, n, "{\"cmd\":\"load\",\"problem\":%s,\"candidate\":%s,\"layout\":%s}", pj, cj, lj);
    json_object *o = json_tokener_parse(cmd);
    kf_wp_views v;
    kf_wp_layout l;
    KF_CHECK_INT(kf_wp_decode_load(o, &v, &l, &err), 0);
    KF_CHECK_INT(v.candidate.n_tensor_maps, 1);
    KF_CHECK_INT(v.candidate.tensor_map_size, (int)sizeof(kf_tensor_map));
    const kf_tensor_map *d = v.candidate.tensor_maps;
    KF_CHECK_INT(d->buffer_kind, KF_ARG_SCRATCH);
    KF_CHECK_INT(d->dtype, KF_DT_BF16);
    KF_CHECK_INT(d->rank, 2);
    KF_CHECK_INT(d->dims[1], 3);
    KF_CHECK_INT(d->strides[1], 16);
    KF_CHECK_INT(d->box[0], 8);
    KF_CHECK_INT(v.candidate.launches[0].args[1].kind, KF_ARG_TENSOR_MAP);
    kf_wp_views_free(&v);
    kf_wp_layout_free(&l);
    json_object *c, *tms;
    json_object_object_get_ex(o, "candidate", &c);
    json_object_object_get_ex(c, "tensor_maps", &tms);
    json_object *t0 = json_object_array_get_idx(tms, 0);
    const struct { int idx; int64_t v; } bad[] = {{0, KF_ARG_INT}, {3, 0}, {3, 6}, {2, 7}, {1, -1}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        json_object *keep = json_object_get(json_object_array_get_idx(t0, (size_t)bad[i].idx));
        json_object_array_put_idx(t0, (size_t)bad[i].idx, json_object_new_int64(bad[i].v));
        KF_CHECK_MSG(kf_wp_decode_load(o, &v, &l, &err) == -1, "bad field %d = %lld accepted", bad[i].idx,
                     (long long)bad[i].v);
        json_object_array_put_idx(t0, (size_t)bad[i].idx, keep);
    }
    KF_CHECK_INT(kf_wp_decode_load(o, &v, &l, &err), 0);   /* restored */
    kf_wp_views_free(&v);
    kf_wp_layout_free(&l);
    json_object_array_del_idx(t0, 19, 1);   /* 19 numbers instead of 20 */
    KF_CHECK_INT(kf_wp_decode_load(o, &v, &l, &err), -1);
    json_object_put(o);
    free(pj);
    free(cj);
    free(lj);
    free(cmd);
    kf_eval_mem_free(&m);
}

/* --- worker client against scripted fake workers ------------------- */

static char *script(const char *body)
{
    static int n;
    char *path = malloc(4096);
    snprintf(path, 4096, "%s/fake%d.sh", kf_test_tmpdir(), n++);
    char text[4096];
    snprintf(text, sizeof text, "#!/bin/sh\n%s\n", body);
    KF_CHECK_INT(kf_test_write_file(path, text), 0);
    chmod(path, 0755);
    return path;
}

static void start(kf_worker *w, const char *body)
{
    char *exe = script(body);
    kf_problem_view pv = view();
    kf_eval_mem m;
    kf_error err = {0};
    KF_CHECK_INT(kf_eval_mem_create(&m, 1, &pv, &err), 0);
    kf_worker_limits lim = {100, 0, KF_SANDBOX_OFF, "/tmp", NULL};
    KF_CHECK_MSG(kf_worker_start(w, exe, m.fd, &lim, &err) == 0, "%s", err.msg);
    kf_eval_mem_free(&m);
    free(exe);
}

KF_TEST(client_gets_a_reply_and_the_memfd_is_inherited)
{
    kf_worker w;
    /* the fake answers with the size of fd 3 (the memfd) in "error" */
    start(&w, "read line; sz=$(stat -L -c %s /proc/self/fd/3); "
              "printf '{\"status\":0,\"error\":\"%s %s\"}\\n' \"$sz\" \"$1\"; echo to-stderr >&2; read line; "
              "printf '{\"status\":0}\\n'");
    kf_wp_reply r;
    char why[128];
    KF_CHECK_INT(kf_worker_call(&w, "{\"cmd\":\"run\"}", 10, &r, why, sizeof why), KF_WCALL_OK);
    KF_CHECK_INT(r.status, 0);
    KF_CHECK(r.error && atoll(r.error) > 0);
    KF_CHECK_CONTAINS(r.error, "--memfd");
    kf_wp_reply_free(&r);
    kf_worker_stop(&w);
    KF_CHECK_INT(w.pid, -1);
}

KF_TEST(client_times_out_and_kills_the_group)
{
    kf_worker w;
    start(&w, "sleep 100 & read line; sleep 100");
    kf_wp_reply r;
    char why[128];
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    KF_CHECK_INT(kf_worker_call(&w, "{\"cmd\":\"run\"}", 0.5, &r, why, sizeof why), KF_WCALL_TIMEOUT);
    clock_gettime(CLOCK_MONOTONIC, &b);
    double dt = (double)(b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) * 1e-9;
    KF_CHECK_MSG(dt >= 0.45 && dt < 5, "took %g s", dt);
    KF_CHECK_INT(w.pid, -1);
    kf_worker_stop(&w);
}

KF_TEST(client_reports_a_crash_with_its_signal_and_stderr)
{
    kf_worker w;
    start(&w, "read line; echo 'about to fault' >&2; kill -SEGV $$");
    kf_wp_reply r;
    char why[128];
    KF_CHECK_INT(kf_worker_call(&w, "{\"cmd\":\"run\"}", 10, &r, why, sizeof why), KF_WCALL_DIED);
    KF_CHECK_INT(w.term_signal, SIGSEGV);
    KF_CHECK_STR(kf_signal_name(w.term_signal), "SIGSEGV");
    KF_CHECK_STR(kf_signal_cause(SIGSEGV), "invalid memory access");
    KF_CHECK(w.errlen > 0);
    w.errtail[w.errlen - 1] = '\0';
    KF_CHECK_CONTAINS(w.errtail, "about to fault");
    kf_worker_stop(&w);
}

KF_TEST(client_reports_an_exit_without_reply)
{
    kf_worker w;
    start(&w, "read line; exit 3");
    kf_wp_reply r;
    char why[128];
    KF_CHECK_INT(kf_worker_call(&w, "{\"cmd\":\"run\"}", 10, &r, why, sizeof why), KF_WCALL_DIED);
    KF_CHECK_INT(w.term_signal, 0);
    KF_CHECK_INT(w.exit_status, 3);
    kf_worker_stop(&w);
}

KF_TEST(client_refuses_garbage)
{
    kf_worker w;
    start(&w, "read line; echo 'hello, I am not JSON'; sleep 100");
    kf_wp_reply r;
    char why[128];
    KF_CHECK_INT(kf_worker_call(&w, "{\"cmd\":\"run\"}", 10, &r, why, sizeof why), KF_WCALL_PROTOCOL);
    KF_CHECK_CONTAINS(why, "not a protocol message");
    KF_CHECK_INT(w.pid, -1);
    kf_worker_stop(&w);
}

KF_TEST(client_keeps_only_the_stderr_tail)
{
    kf_worker w;
    /* ~200 KiB of stderr, then the marker, then a reply */
    start(&w, "read line; i=0; while [ $i -lt 3000 ]; do "
              "echo 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx' >&2; i=$((i+1)); done; "
              "echo END-MARKER >&2; printf '{\"status\":4,\"error\":\"boom\"}\\n'; sleep 100");
    kf_wp_reply r;
    char why[128];
    KF_CHECK_INT(kf_worker_call(&w, "{\"cmd\":\"run\"}", 20, &r, why, sizeof why), KF_WCALL_OK);
    KF_CHECK_INT(r.status, 4);
    KF_CHECK_STR(r.error, "boom");
    kf_wp_reply_free(&r);
    kf_worker_kill(&w);
    KF_CHECK_INT(w.errlen, KF_WORKER_STDERR_MAX);
    KF_CHECK(memcmp(w.errtail + w.errlen - 11, "END-MARKER\n", 11) == 0);
    kf_worker_stop(&w);
}

KF_TEST(client_start_fails_clearly_for_a_missing_executable)
{
    kf_problem_view pv = view();
    kf_eval_mem m;
    kf_error err = {0};
    KF_CHECK_INT(kf_eval_mem_create(&m, 1, &pv, &err), 0);
    kf_worker w;
    kf_worker_limits lim = {10, 0, KF_SANDBOX_AUTO, "/tmp", NULL};
    KF_CHECK_INT(kf_worker_start(&w, "/nonexistent/kforge-worker", m.fd, &lim, &err), -1);
    KF_CHECK_CONTAINS(err.msg, "/nonexistent/kforge-worker");
    KF_CHECK_CONTAINS(err.msg, "KFORGE_WORKER");
    kf_eval_mem_free(&m);
}

KF_TEST(worker_path_prefers_the_environment)
{
    setenv("KFORGE_WORKER", "/x/y/kforge-worker", 1);
    char *p = kf_worker_path();
    KF_CHECK_STR(p, "/x/y/kforge-worker");
    free(p);
    unsetenv("KFORGE_WORKER");
    p = kf_worker_path();
    KF_CHECK(p && strstr(p, "kforge-worker"));
    free(p);
}

KF_TEST(verdict_names_and_defaults)
{
    KF_CHECK_STR(kf_verdict_name(KF_PASS), "pass");
    KF_CHECK_STR(kf_verdict_name(KF_FAIL_OUT_OF_BOUNDS), "out-of-bounds");
    KF_CHECK_STR(kf_verdict_name(KF_FAIL_TOO_FAST), "too-fast");
    KF_CHECK_STR(kf_verdict_name(KF_FAIL_INTERNAL), "internal-error");
    KF_CHECK_STR(kf_verdict_name((kf_verdict)99), "unknown");
    kf_eval_opts o;
    kf_eval_opts_default(&o);
    KF_CHECK_INT(o.trials, 5);
    KF_CHECK_INT(o.warmup, 3);
    KF_CHECK_INT(o.reps, 20);
    KF_CHECK_NEAR(o.run_timeout_s, 10, 0);
    KF_CHECK_NEAR(o.compile_timeout_s, 120, 0);
    KF_CHECK_NEAR(o.profile_timeout_s, 120, 0);
    KF_CHECK_INT(o.max_sets, 4);
}

int main(void)
{
    return kf_test_main();
}
