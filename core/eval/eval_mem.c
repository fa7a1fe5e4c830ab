/* eval_mem.c — the memfd that holds every guarded buffer of every buffer set,
 * shared between kf_evaluate() and the worker (eval_internal.h). */
#include "eval_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#ifndef MFD_ALLOW_SEALING
#define MFD_ALLOW_SEALING 0x0002U
#endif
#ifndef MFD_CLOEXEC
#define MFD_CLOEXEC 0x0001U
#endif

#define PAGE 4096u

static uint64_t round_page(uint64_t x)
{
    return (x + PAGE - 1) / PAGE * PAGE;
}

unsigned char kf_guard_byte(size_t i)
{
    /* never 0x00 or 0xff; differs from its neighbours */
    unsigned v = (unsigned)(i * 0x9du + (i >> 8) * 0x3bu + 0x5au);
    unsigned char b = (unsigned char)v;
    return (b == 0x00 || b == 0xff) ? 0xa5 : b;
}

void kf_guard_fill(const kf_buffer *b)
{
    unsigned char *after = (unsigned char *)b->data + b->bytes;
    for (size_t i = 0; i < b->guard_bytes; i++) {
        b->base[i] = kf_guard_byte(i);
        after[i] = kf_guard_byte(i + 7);
    }
}

int kf_guard_check(const kf_buffer *b, kf_guard_fault *f)
{
    memset(f, 0, sizeof *f);
    const unsigned char *after = (const unsigned char *)b->data + b->bytes;
    size_t n_after = 0, first_after = 0;
    for (size_t i = 0; i < b->guard_bytes; i++)
        if (after[i] != kf_guard_byte(i + 7)) {
            if (!n_after) first_after = i;
            n_after++;
        }
    if (n_after) {
        f->after = 1;
        f->offset = first_after;
        f->n_changed = n_after;
        return 1;
    }
    size_t n_before = 0, closest = 0;
    for (size_t i = 0; i < b->guard_bytes; i++)
        if (b->base[i] != kf_guard_byte(i)) {
            n_before++;
            closest = b->guard_bytes - i;   /* last one found is the closest */
        }
    if (n_before) {
        f->after = 0;
        f->offset = closest;
        f->n_changed = n_before;
        return 1;
    }
    return 0;
}

void kf_poison_fill(const kf_buffer *b)
{
    uint32_t *p = (uint32_t *)(void *)b->data;
    size_t n = b->bytes / 4;
    for (size_t i = 0; i < n; i++) p[i] = KF_POISON_BITS;
    /* a tail that is not a whole float still gets a pattern */
    memset((unsigned char *)b->data + n * 4, 0xa5, b->bytes - n * 4);
}

/* ---- the parent's writes of a set, over threads ---- */

#define KF_WRITE_CHUNK ((size_t)1 << 20)   /* bytes a job */
#define KF_WRITE_MIN_CHUNKS 8               /* per thread at least: smaller sets stay serial */
#define KF_WRITE_MAX_THREADS 16
#define KF_WRITE_MIN_CPUS 4                 /* fewer online CPUs: one thread */

typedef struct write_job {
    float *dst;
    const float *src;   /* NULL: poison */
    size_t bytes;
} write_job;

typedef struct write_team {
    const write_job *jobs;
    size_t begin, end;
} write_team;

static void write_range(const write_job *jobs, size_t begin, size_t end)
{
    for (size_t i = begin; i < end; i++) {
        if (jobs[i].src) {
            memcpy(jobs[i].dst, jobs[i].src, jobs[i].bytes);
        } else {
            kf_buffer part;
            memset(&part, 0, sizeof part);
            part.data = jobs[i].dst;
            part.bytes = jobs[i].bytes;
            kf_poison_fill(&part);
        }
    }
}

static void *write_main(void *arg)
{
    write_team *t = arg;
    write_range(t->jobs, t->begin, t->end);
    return NULL;
}

int kf_buffers_write(const kf_write *w, int n, int max_threads)
{
    size_t n_jobs = 0;
    for (int k = 0; k < n; k++) n_jobs += (w[k].bytes + KF_WRITE_CHUNK - 1) / KF_WRITE_CHUNK;
    write_job *jobs = malloc((n_jobs ? n_jobs : 1) * sizeof *jobs);
    if (!jobs) {   /* serial, in place */
        for (int k = 0; k < n; k++) {
            write_job one = {w[k].dst, w[k].src, w[k].bytes};
            write_range(&one, 0, 1);
        }
        return 1;
    }
    size_t j = 0;
    for (int k = 0; k < n; k++)   /* chunks of whole floats; a buffer's odd tail stays in its last */
        for (size_t off = 0; off < w[k].bytes; off += KF_WRITE_CHUNK) {
            size_t b = w[k].bytes - off < KF_WRITE_CHUNK ? w[k].bytes - off : KF_WRITE_CHUNK;
            jobs[j].dst = (float *)(void *)((unsigned char *)w[k].dst + off);
            jobs[j].src = w[k].src ? (const float *)(const void *)((const unsigned char *)w[k].src + off) : NULL;
            jobs[j].bytes = b;
            j++;
        }
    size_t nt = n_jobs / KF_WRITE_MIN_CHUNKS;
    if (max_threads > 0) {
        if (nt > (size_t)max_threads) nt = (size_t)max_threads;
    } else {
        long cpus = sysconf(_SC_NPROCESSORS_ONLN);
        if (cpus < KF_WRITE_MIN_CPUS) nt = 1;
        else if (nt > (size_t)cpus) nt = (size_t)cpus;
    }
    if (nt > KF_WRITE_MAX_THREADS) nt = KF_WRITE_MAX_THREADS;
    if (nt < 1) nt = 1;
    write_team team[KF_WRITE_MAX_THREADS];
    pthread_t tid[KF_WRITE_MAX_THREADS];
    int started[KF_WRITE_MAX_THREADS] = {0};
    for (size_t t = 0; t < nt; t++) {
        team[t].jobs = jobs;
        team[t].begin = n_jobs * t / nt;
        team[t].end = n_jobs * (t + 1) / nt;
    }
    for (size_t t = 1; t < nt; t++) started[t] = pthread_create(&tid[t], NULL, write_main, &team[t]) == 0;
    write_range(jobs, team[0].begin, team[0].end);
    for (size_t t = 1; t < nt; t++) {
        if (started[t]) pthread_join(tid[t], NULL);
        else write_range(jobs, team[t].begin, team[t].end);
    }
    free(jobs);
    return (int)nt;
}

int64_t kf_poison_count(const float *data, int64_t n, int64_t *first)
{
    const uint32_t *p = (const uint32_t *)(const void *)data;
    int64_t c = 0;
    *first = -1;
    for (int64_t i = 0; i < n; i++)
        if (p[i] == KF_POISON_BITS) {
            if (!c) *first = i;
            c++;
        }
    return c;
}

static int layout_compute(kf_wp_layout *l, int n_sets, const kf_problem_view *pv, kf_error *err)
{
    l->n_sets = n_sets;
    l->n_inputs = pv->n_inputs;
    l->n_outputs = pv->n_outputs;
    l->n_scratch = pv->n_scratch;
    int per = pv->n_inputs + pv->n_outputs + pv->n_scratch;
    l->regions = calloc((size_t)(n_sets * per) + 1, sizeof *l->regions);
    if (!l->regions) return kf_fail(err, KF_E_INTERNAL, "out of memory laying out the buffers");
    uint64_t off = 0;
    for (int s = 0; s < n_sets; s++)
        for (int k = 0; k < per; k++) {
            int64_t bytes;
            if (k < pv->n_inputs)
                bytes = 4 * pv->input_elems[k];
            else if (k < pv->n_inputs + pv->n_outputs)
                bytes = 4 * pv->output_elems[k - pv->n_inputs];
            else
                bytes = pv->scratch_bytes[k - pv->n_inputs - pv->n_outputs];
            if (bytes < 0 || bytes > ((int64_t)1 << 46))
                return kf_fail(err, KF_E_BAD_INPUT, "buffer %d has an unusable size (%lld bytes)", k,
                               (long long)bytes);
            kf_wp_region *g = &l->regions[s * per + k];
            g->offset = off;
            g->bytes = (uint64_t)bytes;
            g->guard = KF_GUARD_BYTES;
            off = round_page(off + 2 * KF_GUARD_BYTES + (uint64_t)bytes);
        }
    l->size = off ? off : PAGE;
    return 0;
}

int kf_eval_mem_create(kf_eval_mem *m, int n_sets, const kf_problem_view *pv, kf_error *err)
{
    memset(m, 0, sizeof *m);
    m->fd = -1;
    if (layout_compute(&m->layout, n_sets, pv, err) != 0) goto fail;
    m->fd = (int)memfd_create("kforge-buffers", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    if (m->fd < 0) {
        kf_fail(err, KF_E_INTERNAL, "memfd_create: %s", strerror(errno));
        goto fail;
    }
    if (ftruncate(m->fd, (off_t)m->layout.size) != 0) {
        kf_fail(err, KF_E_INTERNAL, "cannot size the %llu-byte buffer memfd: %s",
                (unsigned long long)m->layout.size, strerror(errno));
        goto fail;
    }
    /* The worker runs untrusted code: it must not be able to shrink the file
     * under our mapping (that would SIGBUS the parent). */
    if (fcntl(m->fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) != 0) {
        kf_fail(err, KF_E_INTERNAL, "cannot seal the buffer memfd: %s", strerror(errno));
        goto fail;
    }
    void *map = mmap(NULL, (size_t)m->layout.size, PROT_READ | PROT_WRITE, MAP_SHARED, m->fd, 0);
    if (map == MAP_FAILED) {
        kf_fail(err, KF_E_INTERNAL, "cannot map the %llu-byte buffer memfd: %s",
                (unsigned long long)m->layout.size, strerror(errno));
        goto fail;
    }
    m->map = map;
    if (kf_wp_sets_build(&m->layout, m->map, &m->sets) != 0) {
        kf_fail(err, KF_E_INTERNAL, "out of memory");
        goto fail;
    }
    int per = m->layout.n_inputs + m->layout.n_outputs + m->layout.n_scratch;
    for (int i = 0; i < n_sets * per; i++) kf_guard_fill(&m->sets.bufs[i]);
    return 0;
fail:
    kf_eval_mem_free(m);
    return -1;
}

void kf_eval_mem_free(kf_eval_mem *m)
{
    kf_wp_sets_free(&m->sets);
    if (m->map) munmap(m->map, (size_t)m->layout.size);
    if (m->fd >= 0) close(m->fd);
    kf_wp_layout_free(&m->layout);
    memset(m, 0, sizeof *m);
    m->fd = -1;
}
