#!/bin/bash
# device call (issue 15, 2026-11-29, sixth session), 16-core host at 59b4da4 (the pipelined softmax):
# the six memory-bound Level-1 problems under the 80% line in the last records (23 26 33 35 40 88),
# the suite beside PyTorch eager (16 threads) without op-by-op baselines (the device time left),
# between two stream_bw runs, then bandwidth_share.py
set -u
R=/tmp/rec-g; S=/tmp/suite-g
export KFORGE_PYTHON=python3
PROBS="problems/level1/23_Softmax.json problems/level1/26_GELU.json problems/level1/33_BatchNorm.json problems/level1/35_GroupNorm.json problems/level1/40_LayerNorm.json problems/level1/88_MinGPTNewGelu.json"
{ echo "== $(date +%T) start"; uptime; grep -m1 'model\s*:' /proc/cpuinfo; nproc
  gcc -std=gnu11 -O2 -march=native -fopenmp bench/cpu/stream_bw.c -o /tmp/stream_bw && /tmp/stream_bw 16 256 5 | tee $OUT/bw-before.txt
  TARBALL=$PWD/.carry/kforge-new.tar.gz MODE=exec CMD='
    set -u; cd '"$PWD"'
    echo "== $(date +%T) suite"
    timeout ${SUITE_TIME:-220} bash bench/cpu/run_cpu_anchors.sh --tool torch --threads 16 --no-compile --no-anchors-after --out '"$R"' \
        --suite-dir '"$S"' '"$PROBS"' -- --max-iterations 3 --max-time 25 --no-baseline > /tmp/suite.log 2>&1
    tail -3 /tmp/suite.log
    /tmp/stream_bw 16 256 5 | tee $OUT/bw-after.txt
    KFORGE=$(command -v kforge) python3 bench/cpu/bandwidth_share.py '"$R"'/report.json $OUT/bw-before.txt $OUT/bw-after.txt > $OUT/share.md 2>&1; cat $OUT/share.md
    echo "== $(date +%T) end"; uptime
  ' bash bench/gpu/run_gpu_suite.sh
} 2>&1 | tee $OUT/call.txt
cp /tmp/suite.log $OUT/suite.log 2>/dev/null
tar czf $OUT/rec.tgz -C /tmp rec-g suite-g/report.json 2>/dev/null
rm -f $OUT/build.log $OUT/backends.txt $OUT/gpu.txt
ls -la $OUT
