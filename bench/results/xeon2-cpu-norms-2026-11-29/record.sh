#!/bin/bash
# 2-core VM (issue 15, 2026-11-29, second session): the norms' kernels before / after 3c0fd1a in turns.
# old = the best kernels of ../xeon2-cpu-membound-2026-11-29b's suite (4d81c22), new = 3c0fd1a's emitter
# at the same search points (/tmp/abn2, copied in kernels/); stream_bw before and after.
set -u
B=/tmp/bld; SRC=/work/main; OUTD=/tmp/abn2/out; rm -rf $OUTD; mkdir -p $OUTD
export KFORGE=$B/core/kforge KFORGE_PLUGIN_PATH=$B/plugins/cpu-simd/.libs KFORGE_WORKER=$B/core/kforge-worker KFORGE_PROMPTS=$SRC/prompts
cd $SRC
/tmp/stream_bw 2 256 5 > $OUTD/bw-before.txt
for r in 1 2 3 4; do for p in 33_BatchNorm 35_GroupNorm 36_RMSNorm 40_LayerNorm; do for k in old new; do printf "%s %s round %d: " $p $k $r
  $KFORGE profile --backend cpu-simd --problem problems/level1/$p.json --preset cpu --json /tmp/abn2/${k}_$p.c |
    python3 -c "import json,sys; d=json.load(sys.stdin); t=d.get('timing') or {}; print(d['verdict'], 'median %.3f ms min %.3f ms' % (t.get('median_s',0)*1e3, t.get('min_s',0)*1e3))"
done; done; done > $OUTD/abn.txt 2>&1
/tmp/stream_bw 2 256 5 > $OUTD/bw-after.txt
echo done > $OUTD/DONE
