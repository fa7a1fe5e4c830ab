#!/bin/bash
# device: the harness's copy timings under kforge-like conditions (a pause before the timed call; the inputs written by another thread on the last CPU)
cd "$(dirname "$0")"; O=${OUT:-/tmp/out}; mkdir -p $O
gcc -O2 h4.c -I . -ldl -lm -lpthread -o h4 2>/dev/null || exit 1
for k in ref_nt k19_s1; do gcc -std=gnu11 -O3 -march=native -fopenmp -fPIC -shared -I . $k.c -o $k.so -lm || echo FAIL $k; done
export OMP_PROC_BIND=close
for r in 1 2 3; do
  echo "== round $r $(date +%T)"
  for cfg in "GAP_US=0 WRITER=self" "GAP_US=2000 WRITER=self" "GAP_US=20000 WRITER=self" "GAP_US=0 WRITER=other" "GAP_US=20000 WRITER=other"; do
    echo "-- $cfg"; env $cfg ./h4 1024,16384 16 21 ./ref_nt.so ./k19_s1.so | grep med
  done
done 2>&1 | tee $O/h4.txt
