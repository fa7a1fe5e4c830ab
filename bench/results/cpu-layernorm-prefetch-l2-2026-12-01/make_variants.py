#!/usr/bin/env python3
"""Writes k40_v0.c and k40_v4.c into the folder given: the suite m4's best kernel for 40
(LayerNorm, rows of 16 MiB split over the team; ../xeon16-cpu-membound-2026-12-01c/call-m4/
best-m4.tgz, at 9ae546d) as emitted (v0: kf_prefetch_ahead, one line 4 KiB ahead into L1, in
the loop that normalizes the row) and with that call kf_prefetch_block_ahead (v4: also the
block's four lines 32 KiB ahead into L2, as 9ae546d's streamed maps do)."""
import os, sys, tarfile
here = os.path.dirname(os.path.abspath(__file__))
best = tarfile.open(os.path.join(here, '..', 'xeon16-cpu-membound-2026-12-01c', 'call-m4', 'best-m4.tgz'))
old = '            kf_prefetch_ahead(xr + c0_);\n'
for m in best.getmembers():
    p = m.name.split('/')
    if p[-1] == 'kernel.c' and p[1].startswith('40_'):
        s = best.extractfile(m).read().decode()
        assert s.count(old) == 1, m.name
        open(os.path.join(sys.argv[1], 'k40_v0.c'), 'w').write(s)
        open(os.path.join(sys.argv[1], 'k40_v4.c'), 'w').write(s.replace(old, old.replace('kf_prefetch_ahead', 'kf_prefetch_block_ahead')))
