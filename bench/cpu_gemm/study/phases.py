#!/usr/bin/env python3
"""bench/cpu_gemm/study/phases.py — where the time of an fp32 column-order
GEMM kernel goes, a study tool (not product code).

    phases.py GOLDEN OUT_GOLDEN phases [LABEL]
    phases.py GOLDEN OUT_GOLDEN rowgroups G

GOLDEN is tests/golden/emit_golden's output for a loop_order 1 (column
order, no row panels) fp32 point; OUT_GOLDEN the same with its kernel.c
changed, for bench/cpu_gemm/micro.sh's NAME=@FILE:

phases     every A packing call, every B block's packing and every tile
           call timed with rdtsc (about 50 cycles a tile of ~6000); at exit
           the kernel prints, per call and per thread (mean, max), the ms
           of: pack A, pack B, the first tile of each micro-row (its A
           micro-panel comes from L3, prefetched during the row before),
           the other tiles, and from the team's fork to the thread's first
           line, and (AMX kernels) in panel claims, waiting for a panel another
           thread packs included; then the call's wall ms.  TSC ticks are
           converted with a 50 ms calibration against CLOCK_MONOTONIC.  AMX
           kernels without row panels: every call site of the packing is
           timed, and "first tiles" are the first column panel of a group
           against each row panel.
aprefetch D L  the next A micro-panel prefetch D micro-rows ahead (0: none;
           the generator's is 1) with locality L (__builtin_prefetch's 0-3;
           the generator's 2, into L2), still a share per tile of the row.
rowgroups  G row groups a column block (each packs its own copy of its B
           block): the column blocks narrowed until nt / G of them, so each
           thread runs M / G rows over N * G / nt columns (the generator
           takes G = 1 where the blocks reach one a thread).

Fails loudly where the kernel text does not have the lines it edits."""
import re
import sys

HEAD = r'''
/* ---- phases.py instrumentation ---- */
#include <x86intrin.h>
#include <stdio.h>
#include <time.h>
#define KF_PH_N 6
static uint64_t kf_ph[256][8] __attribute__((aligned(64)));   /* [thread][phase], a line a thread */
static uint64_t kf_ph_wall, kf_ph_calls, kf_ph_fork;
static inline void kf_ph_add(int k, uint64_t t0) { kf_ph[omp_get_thread_num() & 255][k] += __rdtsc() - t0; }
static double kf_ph_now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + 1e-9 * t.tv_nsec; }
__attribute__((destructor)) static void kf_ph_print(void)
{
    if (!kf_ph_calls) return;
    double w0 = kf_ph_now(); uint64_t c0 = __rdtsc();
    while (kf_ph_now() - w0 < 0.05) {}
    double hz = (double)(__rdtsc() - c0) / (kf_ph_now() - w0), ms = 1e3 / hz / (double)kf_ph_calls;
    static const char *name[KF_PH_N] = {"pack A", "pack B", "first tiles", "other tiles", "fork to start", "claim/wait"};
    int nt = 0;
    for (int t = 0; t < 256; t++) if (kf_ph[t][4] || kf_ph[t][3]) nt = t + 1;
    fprintf(stderr, "phases %s: %llu calls, %d threads, TSC %.3f GHz; ms a call per thread (mean, max)\n",
            KF_PH_LABEL, (unsigned long long)kf_ph_calls, nt, hz / 1e9);
    for (int k = 0; k < KF_PH_N; k++) {
        double s = 0, mx = 0;
        for (int t = 0; t < nt; t++) { double v = kf_ph[t][k] * ms; s += v; if (v > mx) mx = v; }
        fprintf(stderr, "phases %s:   %-14s %8.4f mean %8.4f max\n", KF_PH_LABEL, name[k], nt ? s / nt : 0, mx);
    }
    fprintf(stderr, "phases %s:   %-14s %8.4f\n", KF_PH_LABEL, "call (wall)", kf_ph_wall * ms);
}
/* a panel claim of the AMX kernels (kf_claim: 1 to pack it, else 0 once another thread has) */
#define KF_CLAIM_T(st_, u_) ({ uint64_t tc_ = __rdtsc(); int rc_ = kf_claim(st_, u_); kf_ph_add(5, tc_); rc_; })
/* ---- end of the instrumentation ---- */
'''


def sub1(pat, repl, s, what, count=1):
    s2, n = re.subn(pat, repl, s, flags=re.M)
    if n != count:
        sys.exit("phases.py: %s: %d matches, wanted %d" % (what, n, count))
    return s2


def phases(k, label):
    # after the prelude's #include "kforge-cpu.h" (outside any #if)
    m = re.search(r'^#include "kforge-cpu\.h"\n', k, flags=re.M)
    if not m:
        sys.exit("phases.py: no #include \"kforge-cpu.h\"")
    cut = m.end()
    k = k[:cut] + '#include <omp.h>\n#define KF_PH_LABEL "%s"\n' % label + HEAD + k[cut:]
    if 'kf_pack_b_c(Bb' not in k:   # fp32 (and vdpbf16ps) column order
        k = sub1(r'^(\s*)(kf_pack_a\(Ab,.*\);)$', r'\1{ uint64_t t_ = __rdtsc(); \2 kf_ph_add(0, t_); }', k, "pack A")
        k = sub1(r'^(\s*)(for \(int64_t jp = 0; jp \* KF_NR < nc; jp\+\+\)\n\s*kf_pack_b\(.*\);)$',
                 r'\1{ uint64_t t_ = __rdtsc();\n\1\2\n\1kf_ph_add(1, t_); }', k, "pack B")
        k = sub1(r'^(\s*)(group\d+_tile\(a, kc, apk.*\n.*tb\);)$',
                 r'\1{ uint64_t t_ = __rdtsc();\n\1\2\n\1kf_ph_add(jr == 0 ? 2 : 3, t_); }', k, "tile")
    else:   # AMX tiles without row panels (emit_gemm_group_amx): every call site, and the panel claims
        k = sub1(r'^(\s*)(kf_pack_a_c\(Ab,.*\);)$', r'\1{ uint64_t t_ = __rdtsc(); \2 kf_ph_add(0, t_); }', k,
                 "pack A", count=2)
        k = sub1(r'^(\s*)(kf_pack_b_c\(Bb,.*\n.*\);)$', r'\1{ uint64_t t_ = __rdtsc(); \2 kf_ph_add(1, t_); }', k,
                 "pack B", count=2)
        k = sub1(r'^(\s*)(group\d+_tile\(a, kc, apk.*\n.*\n.*tb, vp_\);)$',
                 r'\1{ uint64_t t_ = __rdtsc();\n\1\2\n\1kf_ph_add(jp == jq ? 2 : 3, t_); }', k, "tile")
        k = sub1(r'kf_claim\(st, ', 'KF_CLAIM_T(st, ', k, "claims", count=3)
    # the fork of the work-item team, and each thread's first line in it
    k = sub1(r'^(\s*)(#pragma omp parallel num_threads\(nt\)\n\s*\{)$',
             r'\1kf_ph_fork = __rdtsc();\n\1\2\n\1    kf_ph_add(4, kf_ph_fork);', k, "team")
    k = sub1(r'^(\s*)(group0\(a, nt\);)$',
             r'\1{ uint64_t tk_ = __rdtsc(); \2 kf_ph_wall += __rdtsc() - tk_; kf_ph_calls++; }', k, "call")
    return k


def rowgroups(k, g):
    k = sub1(r'while \(\((\d+) \+ nc_ - 1\) / nc_ < nt && nc_ > KF_NR\)',
             r'while ((\1 + nc_ - 1) / nc_ < (nt + %d) / %d && nc_ > KF_NR)' % (g - 1, g), k, "narrowing")
    k = sub1(r'int64_t mg = nb_ >= nt \? 1 : .*;', 'int64_t mg = %d;' % g, k, "row groups")
    return k


def aprefetch(k, d, loc):
    if d == 0:
        return sub1(r'if \(ir \+ KF_MR < i1\) \{', 'if (0) {', k, "A prefetch")
    k = sub1(r'if \(ir \+ KF_MR < i1\) \{', 'if (ir + %d * KF_MR < i1) {' % d, k, "A prefetch")
    k = sub1(r'\(ir \+ KF_MR\) \* kc\);', '(ir + %d * KF_MR) * kc);' % d, k, "A prefetch distance")
    return sub1(r'__builtin_prefetch\(na \+ l \* 64, 0, 2\);', '__builtin_prefetch(na + l * 64, 0, %d);' % loc, k,
                "A prefetch locality")


def main():
    src, dst, mode = sys.argv[1], sys.argv[2], sys.argv[3]
    text = open(src).read()
    m = re.search(r'^=== kernel\.c\n(.*?)(?=^=== |\Z)', text, flags=re.M | re.S)
    if not m:
        sys.exit("phases.py: no kernel.c section in " + src)
    k = m.group(1)
    if mode == "phases":
        k = phases(k, sys.argv[4] if len(sys.argv) > 4 else dst)
    elif mode == "aprefetch":
        k = aprefetch(k, int(sys.argv[4]), int(sys.argv[5]))
    elif mode == "rowgroups":
        k = rowgroups(k, int(sys.argv[4]))
    else:
        sys.exit("phases.py: mode phases, aprefetch or rowgroups")
    open(dst, "w").write(text[:m.start(1)] + k + text[m.end(1):])


if __name__ == "__main__":
    main()
