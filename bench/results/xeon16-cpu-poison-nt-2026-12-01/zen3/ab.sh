#!/bin/bash
# local A/B on the Zen 3 VM: old evaluator (5b71563 tree at 240c2ca: poison after the lead-in) vs new (no re-poison)
R=/tmp/suite-zrec4/runs
gcc -std=gnu11 -O2 -march=native -fopenmp /work/main/bench/cpu/stream_bw.c -o /tmp/abz/stream_bw
/tmp/abz/stream_bw 2 256 5 | head -3
prof() { # build kernel-dir problem
  if [ $1 = old ]; then K=/tmp/oinst/bin/kforge; env -u KFORGE_PLUGIN_PATH -u KFORGE_WORKER KFORGE_THREADS=2 timeout 300 $K profile --backend cpu-simd --problem /work/main/problems/level1/$3.json --preset cpu --reps 21 --json $2
  else ( . /tmp/tenv.sh; KFORGE_THREADS=2 timeout 300 $KFORGE profile --backend cpu-simd --problem /work/main/problems/level1/$3.json --preset cpu --reps 21 --json $2 ); fi |
  python3 -c "import json,sys; d=json.load(sys.stdin); t=d.get('timing') or {}; print(d['verdict'], 'median %.3f min %.3f lead %.3f ms' % (t.get('median_s',0)*1e3, t.get('min_s',0)*1e3, t.get('lead_in_median_s',0)*1e3))"
}
for r in 1 2 3; do
  echo "== round $r $(date +%T)"
  for pk in 19_ReLU:0002-0 26_GELU:0002-0 33_BatchNorm:0002-0 40_LayerNorm:0003-0; do
    p=${pk%%:*}; s=${pk#*:}
    for b in old new; do [ $r = 2 ] && b=$([ $b = old ] && echo new || echo old); printf "%-14s %s: " $p $b; prof $b $R/$p/steps/$s/candidate $p; done
  done
done
/tmp/abz/stream_bw 2 256 5 | head -3
