#!/bin/bash
# device call (issue 15, 2026-11-29, sixth session), 16-core host: the skinny order on AMX at
# three depth blocks (make-ab-d.sh's kernels in .carry/abd), `kforge profile` in turns, 16
# threads, 3 rounds
set -u
{ echo "== $(date +%T) start"; uptime; grep -m1 'model\s*:' /proc/cpuinfo; nproc
  TARBALL=$PWD/.carry/kforge-new.tar.gz MODE=exec CMD='
    set -u; cd '"$PWD"'
    for r in 1 2 3; do for k in p56-kc2720 p56-kc4096 p56-kc2048 p68-kc2720 p68-kc4096 p68-kc2048; do
      n=${k#p}; n=${n%%-*}; p=$(ls problems/level2/${n}_*.json)
      printf "%s round %d: " $k $r
      KFORGE_THREADS=16 timeout 60 kforge profile --backend cpu-simd --problem $p --preset cpu --json .carry/abd/$k |
        python3 -c "import json,sys; d=json.load(sys.stdin); t=d.get(\"timing\") or {}; print(d[\"verdict\"], \"median %.3f ms min %.3f ms\" % (t.get(\"median_s\",0)*1e3, t.get(\"min_s\",0)*1e3))"
    done; done | tee $OUT/abd.txt
    echo "== $(date +%T) end"; uptime
  ' bash bench/gpu/run_gpu_suite.sh
} 2>&1 | tee $OUT/call-d.txt
rm -f $OUT/build.log $OUT/backends.txt $OUT/gpu.txt
ls -la $OUT
