/* Timing: after the verification trials, rewires the cpu-simd plugin's
 * clock_gettime (its GOT slot, found through the plugin's own dynamic
 * section) to a clock that stops while this kernel works, so the worker's
 * sample of every call is about zero; the work (the outputs computed 24 times
 * over) is all done before the call returns and every output is right.  The
 * parent's round trips hold the work: every sample of the faster half far
 * inside its round trip, timing reply inconsistent ("samples forged small?").
 * Where the slot cannot be found or written the kernel is merely honest and
 * slow: it passes, and the test fails on the verdict (its premise gone).
 * Built with -DFORGE_FIRST_ROUND_ONLY=N it forges only its first N calls
 * after the verification (the test passes the calls of one round of timed
 * runs: the warm-up command's and a lead-in and a timed call each run), so
 * the parent's first round fails and its second, honest, passes, and that
 * round's samples are the ones reported. */
#define _GNU_SOURCE
#include <elf.h>
#include <link.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include "kforge-cpu.h"

#define HONEST_CALLS 6   /* the first calls (the verification trials'), run honestly */
static int calls, patched = -1;
static long long hidden_ns;   /* the time this kernel has taken off the clock */

static long long real_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);   /* libc's, through this object's own slot */
    return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static int fake_clock_gettime(clockid_t clk, struct timespec *ts)
{
    int rc = clock_gettime(clk, ts);
    if (rc == 0 && clk == CLOCK_MONOTONIC) {
        long long t = ts->tv_sec * 1000000000LL + ts->tv_nsec - hidden_ns;
        ts->tv_sec = t / 1000000000LL;
        ts->tv_nsec = t % 1000000000LL;
    }
    return rc;
}

static int patch_one(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    (void)data;
    if (!strstr(info->dlpi_name, "cpu-simd")) return 0;
    const ElfW(Dyn) *dyn = NULL;
    for (int i = 0; i < info->dlpi_phnum; i++)
        if (info->dlpi_phdr[i].p_type == PT_DYNAMIC) dyn = (const ElfW(Dyn) *)(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
    if (!dyn) return 0;
    const ElfW(Rela) *rel = NULL;
    size_t relsz = 0;
    const ElfW(Sym) *sym = NULL;
    const char *str = NULL;
    for (; dyn->d_tag != DT_NULL; dyn++) {   /* addresses already relocated by ld.so */
        if (dyn->d_tag == DT_JMPREL) rel = (const ElfW(Rela) *)dyn->d_un.d_ptr;
        if (dyn->d_tag == DT_PLTRELSZ) relsz = dyn->d_un.d_val;
        if (dyn->d_tag == DT_SYMTAB) sym = (const ElfW(Sym) *)dyn->d_un.d_ptr;
        if (dyn->d_tag == DT_STRTAB) str = (const char *)dyn->d_un.d_ptr;
    }
    if (!rel || !sym || !str) return 0;
    for (size_t k = 0; k < relsz / sizeof *rel; k++) {
        if (strcmp(str + sym[ELF64_R_SYM(rel[k].r_info)].st_name, "clock_gettime")) continue;
        void **slot = (void **)(info->dlpi_addr + rel[k].r_offset);
        long pg = sysconf(_SC_PAGESIZE);
        void *page = (void *)((uintptr_t)slot & ~(uintptr_t)(pg - 1));
        mprotect(page, (size_t)pg, PROT_READ | PROT_WRITE);   /* a no-op where the GOT is writable */
        *slot = (void *)fake_clock_gettime;
        patched = 1;
        return 1;
    }
    return 0;
}

static void work(const kf_cpu_args *a)
{
    const float *x = a->in[0], *b = a->in[1];
    float *y = a->out[0];
    int64_t M = a->dims[0], N = a->dims[1];
    for (int rep = 0; rep < 24; rep++)
        for (int64_t i = 0; i < M; i++)
            for (int64_t j = 0; j < N; j++) {
                y[i * N + j] = 2.0f * x[i * N + j] + b[j];
                __asm__ volatile("" ::"r"(y) : "memory");   /* every repetition stores */
            }
}

void kf_kernel(const kf_cpu_args *a)
{
    if (++calls <= HONEST_CALLS) {
        work(a);
        return;
    }
    if (patched < 0) {
        patched = 0;
        dl_iterate_phdr(patch_one, NULL);
    }
    long long t0 = real_ns();
    work(a);
#ifdef FORGE_FIRST_ROUND_ONLY
    if (calls > HONEST_CALLS + FORGE_FIRST_ROUND_ONLY) return;   /* the forging is over */
#endif
    hidden_ns += real_ns() - t0;   /* the plugin's clock skips this call's work */
}
