#!/bin/bash
# device call (issue 15, 2026-11-29, sixth session), 16-core host: the AMX depth-block rule's
# edges (make-ab-c.sh's kernels in .carry/abc), `kforge profile` in turns, 16 threads, 3 rounds;
# then all twenty of the two suites' best kernels (.carry/best-b1.tgz, best-b2.tgz from call.sh)
# paired with PyTorch eager again, 3 rounds
set -u
export KFORGE_PYTHON=python3
{ echo "== $(date +%T) start"; uptime; grep -m1 'model\s*:' /proc/cpuinfo; nproc
  TARBALL=$PWD/.carry/kforge-new.tar.gz MODE=exec CMD='
    set -u; cd '"$PWD"'
    for r in 1 2 3; do for k in p33-kc2048 p33-kc1024 p62-kc1344 p62-kc672 p88-kc1344 p88-kc672; do
      n=${k#p}; n=${n%%-*}; p=$(ls problems/level2/${n}_*.json)
      printf "%s round %d: " $k $r
      KFORGE_THREADS=16 timeout 60 kforge profile --backend cpu-simd --problem $p --preset cpu --json .carry/abc/$k |
        python3 -c "import json,sys; d=json.load(sys.stdin); t=d.get(\"timing\") or {}; print(d[\"verdict\"], \"median %.3f ms min %.3f ms\" % (t.get(\"median_s\",0)*1e3, t.get(\"min_s\",0)*1e3))"
    done; done | tee $OUT/abc.txt
    S=/tmp/suite-c; mkdir -p $S; tar xzf .carry/best-b1.tgz -C $S; tar xzf .carry/best-b2.tgz -C $S
    echo "== $(date +%T) paired"; uptime; ps -eo pid,pcpu,args --sort=-pcpu | head -4
    KFORGE=$(command -v kforge) timeout '"${PAIRED_TIME:-330}"' python3 bench/cpu/paired_anchors.py $OUT/paired-c.json $S \
        problems/level2/*.json --threads 16 --rounds 3 --reps 30 | tail -3
    echo "== $(date +%T) end"; uptime
  ' bash bench/gpu/run_gpu_suite.sh
} 2>&1 | tee $OUT/call-c.txt
rm -f $OUT/build.log $OUT/backends.txt $OUT/gpu.txt
ls -la $OUT
