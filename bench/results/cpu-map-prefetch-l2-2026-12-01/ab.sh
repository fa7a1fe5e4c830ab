#!/bin/bash
# device call (issue 15, 2026-12-01), 16-core host: a streamed map's prefetch, kforge profile in turns
# (16 threads, 3 rounds) over the suite m3's best kernels for 19 (ReLU), 26 (GELU) and 88 (tanh GELU)
# at 18ebf6f (../xeon16-cpu-membound-2026-12-01b) with kf_prefetch_ahead's body changed
# (.carry/pf: make_variants.py's output from kernels/ here):
#   v0 as emitted: one line 1024 floats (4 KiB) ahead of each 64-float block, into L1
#   v1 the block's four lines 4 KiB ahead into L1
#   v2 v0 and the block's four lines 16 KiB ahead into L2 (prefetcht1)
#   v3 v0 and one line 16 KiB ahead into L2
#   v4 v0 and the block's four lines 32 KiB ahead into L2
# stream_bw before and after.
set -u
G=$PWD/.carry/pf
{ echo "== $(date +%T) start"; uptime; grep -m1 'model\s*:' /proc/cpuinfo; nproc
  gcc -std=gnu11 -O2 -march=native -fopenmp bench/cpu/stream_bw.c -o /tmp/stream_bw && /tmp/stream_bw 16 256 5 | tee $OUT/bw-before.txt
  TARBALL=$PWD/.carry/kforge-new.tar.gz MODE=exec CMD='
    set -u; cd '"$PWD"'; G='"$G"'
    prof() { # problem kernel
      KFORGE_THREADS=16 timeout 120 kforge profile --backend cpu-simd --problem problems/level1/$1.json --preset cpu --json $G/$2.c |
        python3 -c "import json,sys; d=json.load(sys.stdin); t=d.get(\"timing\") or {}; print(d[\"verdict\"], \"median %.3f min %.3f ms\" % (t.get(\"median_s\",0)*1e3, t.get(\"min_s\",0)*1e3))"
    }
    for r in 1 2 3; do
      echo "== round $r $(date +%T)"
      for p in 19_ReLU:k19 26_GELU:k26 88_MinGPTNewGelu:k88; do for v in v0 v1 v2 v3 v4; do
        printf "%-18s %-8s: " ${p%%:*} ${p#*:}_$v; prof ${p%%:*} ${p#*:}_$v
      done; done
    done 2>&1 | tee $OUT/ab.txt
    /tmp/stream_bw 16 256 5 | tee $OUT/bw-after.txt
    echo "== $(date +%T) end"; uptime
  ' bash bench/gpu/run_gpu_suite.sh
} 2>&1 | tee $OUT/call.txt
rm -f $OUT/build.log $OUT/backends.txt $OUT/gpu.txt
