#!/bin/bash
# device call (issue 15, 2026-11-30, ninth session), 16-core host: the suites' best kernels (calls g1 and
# g2: best*.c) and the other stream value of 35 and 40 (k35_s1, k40_s1), `kforge profile` in turns, 3
# rounds, 16 threads, beside 19's copy; stream_bw before and after; 47 and 04 in the plain harness beside
# a plain read of the same input (ref_rd)
set -u
G=$PWD/bench/results/xeon16-cpu-gelu-table-2026-11-30/kernels
{ echo "== $(date +%T) start"; uptime; nproc
  gcc -std=gnu11 -O2 -march=native -fopenmp bench/cpu/stream_bw.c -o /tmp/stream_bw && /tmp/stream_bw 16 256 5 | tee $OUT/bw-before-t.txt
  mkdir -p /tmp/k && gcc -O2 $G/h3.c -I plugins/cpu-simd -ldl -lm -o /tmp/k/h3
  for k in ref_rd best47; do gcc -std=gnu11 -O3 -march=native -fopenmp -fPIC -shared -I plugins/cpu-simd $G/$k.c -o /tmp/k/$k.so -lm || echo FAIL $k; done
  TARBALL=$PWD/.carry/kforge-new.tar.gz MODE=exec CMD='
    set -u; cd '"$PWD"'; G='"$G"'
    prof() { # problem kernel
      KFORGE_THREADS=16 timeout 120 kforge profile --backend cpu-simd --problem problems/level1/$1.json --preset cpu --json $G/$2.c |
        python3 -c "import json,sys; d=json.load(sys.stdin); t=d.get(\"timing\") or {}; print(d[\"verdict\"], \"median %.3f min %.3f ms\" % (t.get(\"median_s\",0)*1e3, t.get(\"min_s\",0)*1e3))"
    }
    for r in 1 2 3; do
      echo "== round $r $(date +%T)"
      for pk in 19_ReLU:best19 23_Softmax:best23 35_GroupNorm:best35 35_GroupNorm:k35_s1 40_LayerNorm:best40 40_LayerNorm:k40_s1 47_Sum_reduction_over_a_dimension:best47 04_Matrix_vector_multiplication:best04; do
        printf "%-34s %-7s: " ${pk%%:*} ${pk#*:}; prof ${pk%%:*} ${pk#*:}
      done
      (cd /tmp/k && OMP_PROC_BIND=close ./h3 8,1024,2047 16 21 ./ref_rd.so ./best47.so 2>&1 | grep med)
    done 2>&1 | tee $OUT/turns.txt
    echo "== $(date +%T) end"; uptime
  ' bash bench/gpu/run_gpu_suite.sh
  /tmp/stream_bw 16 256 5 | tee $OUT/bw-after-t.txt
} 2>&1 | tee $OUT/call-t.txt
rm -f $OUT/build.log $OUT/backends.txt $OUT/gpu.txt
ls -la $OUT
