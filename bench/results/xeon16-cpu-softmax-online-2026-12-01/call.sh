#!/bin/bash
# device call (issue 15, 2026-12-01, fifth session), 16-core host: problem 23 (softmax, cpu preset)
# at the 16-core suite's point (stream 1, prefetch 0): old/ (its best kernel in
# ../xeon16-cpu-membound-2026-12-01e: each row's max pass, then its exps beside the last row's
# stores) against new/ (the online form this commit emits at the same point: one pass, each block's
# exps relative to the running max, per-block factors at the stores).  ROUNDS rounds (3) in turns:
# `kforge profile --reps 21` of each, then share_harness (16 threads, 21 calls a side, each against
# the streaming reference); new2/: new with the rising max found by a lane compare (the
# block's max reduced only then).  kforge built from TARBALL (default .carry/kforge-ff75cff.tar.gz: the
# evaluator; the kernels are the files here).
set -u
R=$PWD/bench/results/xeon16-cpu-softmax-online-2026-12-01; B=/tmp/hb5; mkdir -p $B
{ echo "== $(date +%T) start"; uptime
  gcc -std=gnu11 -O2 -march=native -fopenmp bench/cpu/stream_bw.c -o $B/stream_bw && $B/stream_bw 16 256 5
  gcc -O2 -march=native -fopenmp -I plugins/cpu-simd bench/cpu/share_harness.c -o $B/share_harness -ldl -lpthread || exit 1
  for k in old new new2; do gcc -std=gnu11 -O3 -march=native -fopenmp -fPIC -shared -I plugins/cpu-simd $R/$k/kernel.c -o $B/$k.so -lm; done
  TARBALL=${TARBALL:-$PWD/.carry/kforge-ff75cff.tar.gz} MODE=exec CMD='
    set -u; cd '"$PWD"'
    for r in $(seq 1 '"${ROUNDS:-3}"'); do for k in old new new2; do
      printf "round %s %s kforge " $r $k
      KFORGE_THREADS=16 kforge profile --backend cpu-simd --problem problems/level1/23_Softmax.json --preset cpu --reps 21 --json '"$R"'/$k \
        | python3 -c "import json,sys; d=json.load(sys.stdin); print(d[\"verdict\"], round(d[\"timing\"][\"median_s\"] * 1e3, 4))"
      echo "round $r $k harness $(OMP_PROC_BIND=close '"$B"'/share_harness --dims 1024,16384 --in 16777216 --out 16777216 --threads 16 --reps 21 '"$B"'/$k.so)"
    done; done
  ' bash bench/gpu/run_gpu_suite.sh
  $B/stream_bw 16 256 5
  echo "== $(date +%T) end"; uptime
} 2>&1 | tee $OUT/call.txt
rm -f $OUT/build.log $OUT/backends.txt $OUT/gpu.txt
