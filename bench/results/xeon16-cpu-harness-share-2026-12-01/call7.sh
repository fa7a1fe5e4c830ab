#!/bin/bash
# device call 7 (issue 15, 2026-12-01, fifth session), 16-core host: why kforge profile times the
# streaming copy (19) at 1.3x the harness's time but the norms (33) at about the harness's.
# share_harness (16 threads, 21 calls a side) over 19's and 33's best kernels (m6) in six
# configurations of the OpenMP team's wait and a pause before the timed call:
#   spin     libgomp's default (spin, then sleep)       spin-gap  the same, 2 ms pause
#   sleep    GOMP_SPINCOUNT=0 (sleep at once)           sleep-gap the same, 2 ms pause
#   active   OMP_WAIT_POLICY=active (spin for ever)     active-gap the same, 2 ms pause
# and kforge profile (--reps 21) of each kernel; ROUNDS rounds (3).  kforge from TARBALL
# (default .carry/kforge-head.tar.gz).
set -u
B=/tmp/hb7; mkdir -p $B/s && tar xzf $PWD/bench/results/xeon16-cpu-membound-2026-12-01e/m6/best-m6.tgz -C $B/s
{ echo "== $(date +%T) start"; uptime
  gcc -O2 -march=native -fopenmp -I plugins/cpu-simd bench/cpu/share_harness.c -o $B/share_harness -ldl -lpthread || exit 1
  for n in 19 33; do d=$(ls -d $B/s/runs/${n}_*/steps/*/candidate)
    gcc -std=gnu11 -O3 -march=native -fopenmp -fPIC -shared -I plugins/cpu-simd $d/kernel.c -o $B/k$n.so -lm; done
  TARBALL=${TARBALL:-$PWD/.carry/kforge-head.tar.gz} MODE=exec CMD='
    set -u; cd '"$PWD"'; B='"$B"'
    for r in $(seq 1 '"${ROUNDS:-3}"'); do for n in 19 33; do
      d=$(ls -d $B/s/runs/${n}_*/steps/*/candidate); p=$(ls problems/level1/${n}_*.json)
      printf "round %s %s kforge " $r $n
      KFORGE_THREADS=16 kforge profile --backend cpu-simd --problem $p --preset cpu --reps 21 --json $d \
        | python3 -c "import json,sys; d=json.load(sys.stdin); print(d[\"verdict\"], round(d[\"timing\"][\"median_s\"] * 1e3, 4))"
      dims=1024,16384; [ $n = 33 ] && dims=16,64,16384
      for cfg in spin spin-gap sleep sleep-gap active active-gap; do
        gap=0; case $cfg in *-gap) gap=2000;; esac
        e="OMP_PROC_BIND=close"; case $cfg in sleep*) e="$e GOMP_SPINCOUNT=0";; active*) e="$e OMP_WAIT_POLICY=active";; esac
        echo "round $r $n $cfg $(env $e $B/share_harness --dims $dims --in 16777216 --out 16777216 --threads 16 --reps 21 --gap-us $gap $B/k$n.so)"
      done
    done; done
  ' bash bench/gpu/run_gpu_suite.sh
  echo "== $(date +%T) end"; uptime
} 2>&1 | tee $OUT/call7.txt
rm -f $OUT/build.log $OUT/backends.txt $OUT/gpu.txt $OUT/commit.txt
