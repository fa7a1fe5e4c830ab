#!/usr/bin/env python3
"""Writes the five variants kNN_vK.c of the suite m3's best kernels for 19, 26 and 88
(../xeon16-cpu-membound-2026-12-01b/call-m3/best-m3.tgz, at 18ebf6f) into the folder given:
kf_prefetch_ahead's body changed (ab.sh says what each is)."""
import os, sys, tarfile
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
best = tarfile.open(os.path.join(here, '..', 'xeon16-cpu-membound-2026-12-01b', 'call-m3', 'best-m3.tgz'))
for m in best.getmembers():
    p = m.name.split('/')
    if p[-1] != 'kernel.c' or p[1].split('_')[0] not in ('19', '26', '88'):
        continue
    s = best.extractfile(m).read().decode()
    assert s.count(orig) == 1, m.name
    for v, body in var.items():
        open(os.path.join(sys.argv[1], 'k%s_%s.c' % (p[1].split('_')[0], v)), 'w').write(s.replace(orig, body))
