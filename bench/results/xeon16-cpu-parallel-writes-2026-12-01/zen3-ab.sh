#!/bin/bash
# A/B: kforge profile of the memory-bound kernels with the parent's writes plain (KF_EXP_SERIAL) or streamed
B=/tmp/bld; SRC=/work/main
export KFORGE_PLUGIN_PATH=$B/plugins/cpu-simd/.libs KFORGE_WORKER=$B/core/kforge-worker KFORGE_PROMPTS=$SRC/prompts KFORGE_THREADS=2
ROUNDS=${ROUNDS:-3}; KS=${KS:-"19 26 40"}
/tmp/stream_bw 2 256 5 | tail -4
for r in $(seq $ROUNDS); do
  for k in $KS; do
    p=$(ls $SRC/problems/level1/${k}_*.json)
    for mode in serial threads; do
      if [ $mode = serial ]; then export KF_EXP_SERIAL=1; else unset KF_EXP_SERIAL; fi
      j=$($B/core/kforge profile -b cpu-simd -p $p --preset cpu --json /tmp/mb_$k.c 2>/dev/null)
      echo "$j" | python3 -c "import json,sys; d=json.load(sys.stdin); t=d.get('timing',d); print('round $r k$k $mode', 'median_ms %.3f'%(t['median_s']*1e3) if 'median_s' in t else list(d.keys()), 'min_ms %.3f'%(t.get('min_s',0)*1e3))"
    done
  done
done
/tmp/stream_bw 2 256 5 | tail -4
