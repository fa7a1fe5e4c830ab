#!/bin/bash
# Zen 4 VM (2 threads): the GELU maps of 26 and 88 as before (old), with the table GELU called through
# its simd variant (call), and applied to the block buffer (block), beside 19's copy; plain harness
# (h3, 15 reps a kernel, 3 rounds) then `kforge profile` in turns (3 rounds).  Run from the repo root
# with the build in $B (default /tmp/bld).
set -u
B=${B:-/tmp/bld}; K=bench/results/epyc2-cpu-gelu-table-2026-11-30/kernels; T=$(mktemp -d)
gcc -O2 $K/h3.c -I plugins/cpu-simd -ldl -lm -o $T/h3
for k in ref_nt k19 k26_old k26_call k26_block k88_old k88_call k88_block; do
  gcc -std=gnu11 -O3 -march=native -fopenmp -fPIC -shared -I plugins/cpu-simd $K/$k.c -o $T/$k.so -lm; done
lscpu | grep -E 'Model name|^CPU\(s\)'; date -u +%FT%TZ; git log --oneline -1 | cut -c1-60
for r in 1 2 3; do
  echo "== harness round $r"
  (cd $T && OMP_PROC_BIND=true ./h3 1024,16384 2 15 ./ref_nt.so ./k26_old.so ./k26_call.so ./k26_block.so ./k88_old.so ./k88_call.so ./k88_block.so 2>&1 | grep med)
done
prof() { PATH=$B/core:$PATH KFORGE_PLUGIN_PATH=$B/plugins/cpu-simd/.libs KFORGE_WORKER=$B/core/kforge-worker \
  $B/core/kforge profile --backend cpu-simd --problem problems/level1/$1.json --preset cpu --json $K/$2.c |
  python3 -c "import json,sys; d=json.load(sys.stdin); t=d.get('timing') or {}; print(d['verdict'], 'median %.3f min %.3f ms' % (t.get('median_s',0)*1e3, t.get('min_s',0)*1e3))"; }
for r in 1 2 3; do
  echo "== kforge profile round $r"
  for pk in 19_ReLU:k19 26_GELU:k26_old 26_GELU:k26_call 26_GELU:k26_block 88_MinGPTNewGelu:k88_old 88_MinGPTNewGelu:k88_call 88_MinGPTNewGelu:k88_block; do
    printf "%-18s %-10s: " ${pk%%:*} ${pk#*:}; prof ${pk%%:*} ${pk#*:}; done
done
rm -rf $T
