#!/usr/bin/env python3
"""Writes the five variants kNN_vK.c of each kernels/kNN.c (the suite m3's best kernels of
../xeon16-cpu-membound-2026-12-01b, at 18ebf6f) into the folder given: kf_prefetch_ahead's
body changed (ab.sh says what each is)."""
import glob, os, sys
orig = '    __builtin_prefetch((const void *)((uintptr_t)p + KF_PREFETCH_AHEAD * sizeof(float)), 0, 3);\n'
def pf(off, ln, hint):
    return '    __builtin_prefetch((const void *)((uintptr_t)p + %d * sizeof(float) + %d), 0, %d);\n' % (off, ln * 64, hint)
var = {
    'v0': orig,
    'v1': ''.join(pf(1024, l, 3) for l in range(4)),
    'v2': orig + ''.join(pf(4096, l, 2) for l in range(4)),
    'v3': orig + pf(4096, 0, 2),
    'v4': orig + ''.join(pf(8192, l, 2) for l in range(4)),
}
here = os.path.dirname(os.path.abspath(__file__))
for f in sorted(glob.glob(os.path.join(here, 'kernels', 'k*.c'))):
    s = open(f).read()
    assert s.count(orig) == 1, f
    for v, body in var.items():
        open(os.path.join(sys.argv[1], '%s_%s.c' % (os.path.basename(f)[:-2], v)), 'w').write(s.replace(orig, body))
