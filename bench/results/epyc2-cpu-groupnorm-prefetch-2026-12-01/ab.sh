#!/bin/bash
# 35 GroupNorm at the cpu preset on this machine: the emitter's kernel at prefetch 0 (the
# default) and at prefetch 2 (the next group's block into L2 beside each block's stores),
# emitted by tests/golden/emit_golden at the point of the 16-core suite's best
# (../xeon16-cpu-membound-2026-12-01e), `kforge profile --reps 21` at 2 threads in turns,
# 4 rounds, the order swapped in rounds 2 and 4.  BLD: a configured build tree of e3783c6 (the
# commit that made the loop a prefetch site, reverted after this record: at other commits
# prefetch 2 emits the same GroupNorm loop as 0).
set -eu
BLD=${BLD:-/tmp/bld}; SRC=$(cd "$(dirname "$0")/../../.." && pwd); D=$(cd "$(dirname "$0")" && pwd)
P='{"backend":"cpu-simd","baseline":0,"fusion":2,"precision":0,"mc":2400,"nc":256,"kc":1024,"mr":12,"nr":32,"pack":1,"threads":0,"loop_order":1,"unroll":1,"stream":1,"prefetch":0}'
for v in 0 2; do
    (cd "$SRC" && "$BLD/tests/golden/emit_golden" c cpu-simd problems/level1/35_GroupNorm.json cpu "${P/\"prefetch\":0/\"prefetch\":$v}") |
        sed -n '/^=== kernel.c$/,$p' | tail -n +2 > "$D/g35p$v.c"
done
export KFORGE_PLUGIN_PATH=$BLD/plugins/cpu-simd/.libs KFORGE_WORKER=$BLD/core/kforge-worker
prof() { KFORGE_THREADS=2 timeout 120 "$BLD/core/kforge" profile --backend cpu-simd --problem "$SRC/problems/level1/$1.json" \
    --preset cpu --reps 21 --json "$2" | python3 -c "import json,sys; d=json.load(sys.stdin); t=d.get('timing') or {}; print(d['verdict'], 'median %.3f min %.3f ms' % (t.get('median_s',0)*1e3, t.get('min_s',0)*1e3))"; }
for r in 1 2 3 4; do for k in g35p0 g35p2; do [ $r = 2 -o $r = 4 ] && k=$([ $k = g35p0 ] && echo g35p2 || echo g35p0)
    printf "35 %-6s " $k; prof 35_GroupNorm "$D/$k.c"; done; done 2>&1 | tee "$D/out/ab.txt"
