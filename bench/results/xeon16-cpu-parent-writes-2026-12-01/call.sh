#!/bin/bash
# device call (issue 15, 2026-12-01), 16-core host: the parent's writes of a timed run's fresh inputs
# and poison, plain (memcpy, a store loop) against streamed (kf_buf_write), in a plain harness (h5.c:
# each kernel's timed call after a lead-in and the rewrite, the two ways in turns) and under `kforge profile`
# (KF_EXP_PLAIN=1: the working tree's experiment switch back to plain writes), beside stream_bw.
# Kernels (.carry/gap2 = kernels/ here): the built-in agent's text at the cpu preset, {"fusion":2,"stream":1};
# k40rev: 40 with each row's slice normalised backwards after its statistics (no pipelining).
set -u
G=$PWD/.carry/gap2; ROUNDS=${ROUNDS:-2}
{ echo "== $(date +%T) start"; uptime; grep -m1 'model\s*:' /proc/cpuinfo; nproc
  gcc -std=gnu11 -O2 -march=native -fopenmp bench/cpu/stream_bw.c -o /tmp/stream_bw && /tmp/stream_bw 16 256 5 | tee $OUT/bw-before.txt
  (cd $G && gcc -O2 h5.c -I . -ldl -lm -o /tmp/h5 &&
   for k in ref_nt k19 k26 k88 k23 k40 k40rev; do
     gcc -std=gnu11 -O3 -march=native -fopenmp -fPIC -shared -I . $k.c -o /tmp/$k.so -lm || echo FAIL $k; done)
  TARBALL=$PWD/.carry/kforge-new.tar.gz MODE=exec CMD='
    set -u; cd '"$PWD"'; G='"$G"'
    export OMP_PROC_BIND=close OMP_PLACES=cores
    echo "== $(date +%T) harness"
    for r in 1 2; do
      /tmp/h5 1024,16384 16 31 0 /tmp/ref_nt.so /tmp/k19.so /tmp/k26.so /tmp/k88.so /tmp/k23.so
      /tmp/h5 4,64,256,256 16 31 0 /tmp/ref_nt.so /tmp/k40.so /tmp/k40rev.so
    done 2>&1 | tee $OUT/harness.txt
    unset OMP_PROC_BIND OMP_PLACES
    prof() { # problem kernel env...
      local p=$1 k=$2; shift 2
      env "$@" KFORGE_THREADS=16 timeout 90 kforge profile --backend cpu-simd --problem problems/level1/$p.json --preset cpu --json $G/$k.c |
        python3 -c "import json,sys; d=json.load(sys.stdin); t=d.get(\"timing\") or {}; print(d[\"verdict\"], \"median %.3f min %.3f lead %.3f ms\" % (t.get(\"median_s\",0)*1e3, t.get(\"min_s\",0)*1e3, t.get(\"lead_in_median_s\",0)*1e3))"
    }
    for r in $(seq '"$ROUNDS"'); do
      echo "== round $r $(date +%T)"
      for pk in 19_ReLU:k19 26_GELU:k26 40_LayerNorm:k40 40_LayerNorm:k40rev 23_Softmax:k23; do
        p=${pk%%:*}; k=${pk#*:}
        printf "%-14s %-7s plain : " $p $k; prof $p $k KF_EXP_PLAIN=1
        printf "%-14s %-7s stream: " $p $k; prof $p $k
      done
    done 2>&1 | tee $OUT/ab.txt
    /tmp/stream_bw 16 256 5 | tee $OUT/bw-after.txt
    echo "== $(date +%T) end"; uptime
  ' bash bench/gpu/run_gpu_suite.sh
} 2>&1 | tee $OUT/call.txt
rm -f $OUT/build.log $OUT/backends.txt $OUT/gpu.txt
ls -la $OUT
