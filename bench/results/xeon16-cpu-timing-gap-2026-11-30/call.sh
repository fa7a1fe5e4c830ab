#!/bin/bash
# device call (issue 15, 2026-11-30, seventh session), 16-core host: kforge profile against a plain
# harness over the same kernel text, to find where kforge's timing of memory-bound kernels and the
# harness's part (bound / unbound threads)
set -u
G=$PWD/.carry/gap
{ echo "== $(date +%T) start"; uptime; nproc
  gcc -std=gnu11 -O2 -march=native -fopenmp bench/cpu/stream_bw.c -o /tmp/stream_bw && /tmp/stream_bw 16 256 5 | tee $OUT/bw-before.txt
  cd $G && gcc -O2 h3.c -I . -ldl -lm -o h3 2>/dev/null
  for k in ref_nt k19_s1/kernel k40_cur/kernel k40_fwd/kernel k33_cur/kernel k35_cur/kernel k26_s1/kernel; do
    gcc -std=gnu11 -O3 -march=native -fopenmp -fPIC -shared -I . $k.c -o ${k%/kernel}.so -lm || echo FAIL $k; done
  cd - >/dev/null
  TARBALL=$PWD/.carry/kforge-new.tar.gz MODE=exec CMD='
    set -u; cd '"$PWD"'; G='"$G"'
    prof() { # problem dir env...
      local p=$1 d=$2; shift 2
      env "$@" KFORGE_THREADS=16 timeout 90 kforge profile --backend cpu-simd --problem problems/level1/$p.json --preset cpu --json $G/$d |
        python3 -c "import json,sys; d=json.load(sys.stdin); t=d.get(\"timing\") or {}; print(d[\"verdict\"], \"median %.3f min %.3f parent %.3f lead %.3f ms\" % (t.get(\"median_s\",0)*1e3, t.get(\"min_s\",0)*1e3, t.get(\"parent_median_s\",0)*1e3, t.get(\"lead_in_median_s\",0)*1e3))"
    }
    for r in 1 2 3; do
      echo "== round $r $(date +%T)"
      for pk in 19_ReLU:k19_s1 40_LayerNorm:k40_cur 40_LayerNorm:k40_fwd 33_BatchNorm:k33_cur 35_GroupNorm:k35_cur 26_GELU:k26_s1; do
        p=${pk%%:*}; k=${pk#*:}
        printf "%-14s %-8s bound  : " $p $k; prof $p $k
        printf "%-14s %-8s unbound: " $p $k; prof $p $k OMP_PROC_BIND=false
      done
      cd $G
      for b in unset close; do
        echo "-- harness, OMP_PROC_BIND=$b"
        E=""; [ $b = close ] && E="OMP_PROC_BIND=close"
        env $E ./h3 1024,16384 16 21 ./ref_nt.so ./k19_s1.so ./k26_s1.so
        env $E ./h3 4,64,256,256 16 21 ./ref_nt.so ./k40_cur.so ./k40_fwd.so
        env $E ./h3 16,64,16384 16 21 ./ref_nt.so ./k33_cur.so ./k35_cur.so
      done
      cd - >/dev/null
    done 2>&1 | tee $OUT/gap.txt
    echo "== $(date +%T) end"; uptime
  ' bash bench/gpu/run_gpu_suite.sh
  /tmp/stream_bw 16 256 5 | tee $OUT/bw-after.txt
} 2>&1 | tee $OUT/call.txt
rm -f $OUT/build.log $OUT/backends.txt $OUT/gpu.txt
ls -la $OUT
