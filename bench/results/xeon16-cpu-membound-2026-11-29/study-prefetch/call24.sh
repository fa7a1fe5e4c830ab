#!/bin/bash
# device call (issue 15, 2026-11-29): softmax (23) with the next row prefetched, the GEMV (04) with
# software prefetch 2 KiB ahead, against the w1 best kernels, profiled in turns, 16 threads
set -u
{ echo "== $(date +%T) start"; uptime; grep -m1 'model\s*:' /proc/cpuinfo; nproc
  gcc -std=gnu11 -O2 -march=native -fopenmp bench/cpu/stream_bw.c -o /tmp/stream_bw && /tmp/stream_bw 16 256 5
  TARBALL=$PWD/.carry/kforge-new.tar.gz MODE=exec CMD='
    set -u; cd '"$PWD"'
    prof() { KFORGE_THREADS=16 kforge profile --backend cpu-simd --problem $1 --preset cpu --json $2 |
        python3 -c "import json,sys; d=json.load(sys.stdin); t=d.get(\"timing\") or {}; print(d[\"verdict\"], \"median %.3f ms min %.3f ms\" % (t.get(\"median_s\",0)*1e3, t.get(\"min_s\",0)*1e3))"; }
    for r in 1 2 3 4; do
      for k in sm_base sm_pf sm_pf2; do printf "23 %-8s round %d: " $k $r; prof problems/level1/23_Softmax.json .carry/v16/$k.c; done
      for k in mv_base mv_pf; do printf "04 %-8s round %d: " $k $r; prof problems/level1/04_Matrix_vector_multiplication.json .carry/v16/$k.c; done
    done
    /tmp/stream_bw 16 256 5
    echo "== $(date +%T) end"; uptime
  ' bash bench/gpu/run_gpu_suite.sh
} 2>&1 | tee $OUT/call-v16.txt
rm -f $OUT/build.log $OUT/backends.txt $OUT/commit.txt $OUT/gpu.txt
