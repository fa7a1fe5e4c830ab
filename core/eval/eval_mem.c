/* eval_mem.c — the memfd that holds every guarded buffer of every buffer set,
 * shared between kf_evaluate() and the worker (eval_internal.h). */
#include "util/parallel.h"
#include "eval_internal.h"

#include <errno.h>
#include <fcntl.h>
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

/* writes [begin, end) of the kf_write array ctx */
static void write_range(void *ctx, long begin, long end)
{
    const kf_write *jobs = ctx;
    for (long i = begin; i < end; i++) memcpy(jobs[i].dst, jobs[i].src, jobs[i].bytes);
}

int kf_buffers_write(const kf_write *w, int n, int max_threads)
{
    size_t n_jobs = 0;
    for (int k = 0; k < n; k++) n_jobs += (w[k].bytes + KF_WRITE_CHUNK - 1) / KF_WRITE_CHUNK;
    kf_write *jobs = malloc((n_jobs ? n_jobs : 1) * sizeof *jobs);
    if (!jobs) {   /* serial, whole buffers */
        write_range((void *)(uintptr_t)w, 0, n);
        return 1;
    }
    size_t j = 0;
    for (int k = 0; k < n; k++)   /* chunks of whole floats; a buffer's odd tail stays in its last */
        for (size_t off = 0; off < w[k].bytes; off += KF_WRITE_CHUNK) {
            size_t b = w[k].bytes - off < KF_WRITE_CHUNK ? w[k].bytes - off : KF_WRITE_CHUNK;
            jobs[j].dst = (float *)(void *)((unsigned char *)w[k].dst + off);
            jobs[j].src = (const float *)(const void *)((const unsigned char *)w[k].src + off);
            jobs[j].bytes = b;
            j++;
        }
    int nt = max_threads, cpus = kf_parallel_threads(0);
    if (nt <= 0) nt = cpus < KF_WRITE_MIN_CPUS ? 1 : cpus;
    if (nt > KF_WRITE_MAX_THREADS) nt = KF_WRITE_MAX_THREADS;
    int used = kf_parallel((long)n_jobs, KF_WRITE_MIN_CHUNKS, nt, write_range, jobs);
    free(jobs);
    return used > 0 ? used : 1;
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
