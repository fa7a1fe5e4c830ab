#!/bin/bash
# device call (issue 15, 2026-11-30, eighth session), 16-core host: kforge profile and a plain harness over
# the same kernel files: 19's copy, 23 softmax (old exp16 / new exp16 / new + next row's max in the exp loop),
# 47 middle sum (one row a pass / three rows a pass)
set -u
G=$PWD/.carry/rg
{ echo "== $(date +%T) start"; uptime; nproc; lscpu | grep -E 'Model name|^CPU\(s\)|L2|L3'
  gcc -std=gnu11 -O2 -march=native -fopenmp bench/cpu/stream_bw.c -o /tmp/stream_bw && /tmp/stream_bw 16 256 5 | tee $OUT/bw-before.txt
  cd $G && gcc -O2 h3.c -I $OLDPWD/plugins/cpu-simd -ldl -lm -o h3
  for k in ref_nt ref_rd k19 k23_old k23_new k23_nm k47_old k47_new; do
    gcc -std=gnu11 -O3 -march=native -fopenmp -fPIC -shared -I $OLDPWD/plugins/cpu-simd $k.c -o $k.so -lm || echo FAIL $k; done
  cd - >/dev/null
  TARBALL=$PWD/.carry/kforge-new.tar.gz MODE=exec CMD='
    set -u; cd '"$PWD"'; G='"$G"'
    prof() { # problem kernel
      KFORGE_THREADS=16 timeout 120 kforge profile --backend cpu-simd --problem problems/level1/$1.json --preset cpu --json $G/$2.c |
        python3 -c "import json,sys; d=json.load(sys.stdin); t=d.get(\"timing\") or {}; print(d[\"verdict\"], \"median %.3f min %.3f ms\" % (t.get(\"median_s\",0)*1e3, t.get(\"min_s\",0)*1e3))"
    }
    for r in 1 2 3; do
      echo "== round $r $(date +%T)"
      for pk in 19_ReLU:k19 23_Softmax:k23_old 23_Softmax:k23_new 23_Softmax:k23_nm 47_Sum_reduction_over_a_dimension:k47_old 47_Sum_reduction_over_a_dimension:k47_new; do
        printf "%-36s %-8s: " ${pk%%:*} ${pk#*:}; prof ${pk%%:*} ${pk#*:}
      done
      cd $G
      echo "-- harness, OMP_PROC_BIND=close"
      OMP_PROC_BIND=close ./h3 1024,16384 16 21 ./ref_nt.so ./k19.so ./k23_old.so ./k23_new.so ./k23_nm.so
      OMP_PROC_BIND=close ./h3 8,1024,2047 16 21 ./ref_rd.so ./k47_old.so ./k47_new.so
      cd - >/dev/null
    done 2>&1 | tee $OUT/rg.txt
    echo "== $(date +%T) end"; uptime
  ' bash bench/gpu/run_gpu_suite.sh
  /tmp/stream_bw 16 256 5 | tee $OUT/bw-after.txt
} 2>&1 | tee $OUT/call.txt
rm -f $OUT/build.log $OUT/backends.txt $OUT/gpu.txt
ls -la $OUT
