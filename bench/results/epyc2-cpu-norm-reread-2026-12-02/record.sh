#!/bin/bash
# 2-core Zen 4 VM (issue 15, 2026-12-02 fifth session): where the norms' time goes beyond a copy's.
# The suite's best kernels for 33 BatchNorm, 35 GroupNorm and 40 LayerNorm at the cpu preset
# (../epyc2-cpu-membound-2026-12-02d/best.tgz, generated at 2654adc) and hand-edited variants of them
# (kernels/*.diff), timed in turns by abn.c with a streaming copy of the same buffers, 2 threads.
set -eu
D=$(cd "$(dirname "$0")" && pwd); top=$(cd "$D/../../.." && pwd); W=${W:-/tmp/norm-reread}; rm -rf $W; mkdir -p $W
tar xzf $D/../epyc2-cpu-membound-2026-12-02d/best.tgz -C $W
cp $W/runs/33_BatchNorm/steps/0003-0/candidate/kernel.c $W/k33.c
cp $W/runs/35_GroupNorm/steps/0001-0/candidate/kernel.c $W/k35.c
cp $W/runs/40_LayerNorm/steps/0002-0/candidate/kernel.c $W/k40.c
for d in $D/kernels/*.diff; do v=$(basename $d .diff); base=$W/k${v:1:2}.c; cp $base $W/$v.c; patch -s $W/$v.c < $d; done
for k in $W/k*.c; do gcc -std=gnu11 -O3 -march=native -fopenmp -fPIC -shared -I $top/plugins/cpu-simd $k -o ${k%.c}.so -lm; done
gcc -O2 -march=native -fopenmp -I $top/plugins/cpu-simd $D/abn.c -o $W/abn -ldl
{ echo "== $(date +%T) $(lscpu | grep 'Model name' | tr -s ' ')"; uptime
  echo "== 33 BatchNorm: v0 k33 (the suite's), v1 k33s (each channel's rows split over the team), v2 k33x (outputs from the next channel's data: no second read; wrong outputs)"
  OMP_PROC_BIND=close $W/abn 16,64,16384 2 ${ROUNDS:-10} $W/k33.so $W/k33s.so $W/k33x.so
  echo "== 35 GroupNorm: v0 k35 (the suite's), v1 k35s (each group split over the team), v2 k35y (the second read from a 16 KiB window: in L1; wrong outputs), v3 k35x (outputs from the next group's data; wrong outputs), v4 k35t (two passes a group: statistics, then outputs)"
  OMP_PROC_BIND=close $W/abn 16,64,16384 2 ${ROUNDS:-10} $W/k35.so $W/k35s.so $W/k35y.so $W/k35x.so $W/k35t.so
  echo "== 40 LayerNorm: v0 k40 (the suite's: the next row's statistics beside this row's stores), v1 k40f (statistics, barrier, outputs: not pipelined), v2 k40b (the same, outputs backwards: the most recently read first)"
  OMP_PROC_BIND=close $W/abn 4,64,256,256 2 ${ROUNDS:-10} $W/k40.so $W/k40f.so $W/k40b.so
  echo "== $(date +%T) end"; uptime; } 2>&1 | tee $D/run.txt
