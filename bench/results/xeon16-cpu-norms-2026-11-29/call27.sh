#!/bin/bash
# device call (issue 15, 2026-11-29, session 2): the norms' kernels before / after 3c0fd1a (.carry/abn:
# old = call x1's best kernels, new = 3c0fd1a's emitter at the same search points) profiled in turns
# at 16 threads, stream_bw before and after.
set -u
TAG=${TAG:-y1}
export KFORGE_PYTHON=python3
{ echo "== $(date +%T) start"; uptime; grep -m1 'model\s*:' /proc/cpuinfo; nproc
  gcc -std=gnu11 -O2 -march=native -fopenmp bench/cpu/stream_bw.c -o /tmp/stream_bw && /tmp/stream_bw 16 256 5 | tee $OUT/bw-before-$TAG.txt
  TARBALL=$PWD/.carry/kforge-new.tar.gz MODE=exec CMD='
    set -u; cd '"$PWD"'
    echo "== $(date +%T) norms old/new"
    for r in 1 2 3 4; do for p in 33_BatchNorm 35_GroupNorm 36_RMSNorm 40_LayerNorm; do for k in old new; do printf "%s %s round %d: " $p $k $r
      KFORGE_THREADS=16 kforge profile --backend cpu-simd --problem problems/level1/$p.json --preset cpu --json .carry/abn/${k}_$p.c |
        python3 -c "import json,sys; d=json.load(sys.stdin); t=d.get(\"timing\") or {}; print(d[\"verdict\"], \"median %.3f ms min %.3f ms\" % (t.get(\"median_s\",0)*1e3, t.get(\"min_s\",0)*1e3))"
    done; done; done | tee $OUT/abn-'"$TAG"'.txt
    /tmp/stream_bw 16 256 5 | tee $OUT/bw-after-'"$TAG"'.txt
    echo "== $(date +%T) end"; uptime
  ' bash bench/gpu/run_gpu_suite.sh
} 2>&1 | tee $OUT/call-$TAG.txt
rm -f $OUT/build.log $OUT/backends.txt $OUT/commit.txt $OUT/gpu.txt
ls -la $OUT
