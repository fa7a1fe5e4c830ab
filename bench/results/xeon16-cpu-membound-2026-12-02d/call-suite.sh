#!/bin/bash
# device call 1 (issue 15, 2026-12-02 fourth session), 16-core host: the ten memory-bound Level-1 problems
# at 86b886a (the streamed GELU blocks stored from the registers, ../xeon16-cpu-gelu-stream-2026-12-02) beside PyTorch eager at 16 threads: run_cpu_anchors.sh --tool
# torch --no-compile, --max-iterations 4 --max-time 30, SUITE_TIME (480 s) in all; stream_bw
# before and after, bandwidth_share.py over the report; the best kernels kept (best.tgz) for
# call-paired.sh.
set -u
R=/tmp/rec; S=/tmp/suite
export KFORGE_PYTHON=python3
PROBS="problems/level1/04_Matrix_vector_multiplication.json problems/level1/19_ReLU.json problems/level1/23_Softmax.json problems/level1/26_GELU.json problems/level1/33_BatchNorm.json problems/level1/35_GroupNorm.json problems/level1/36_RMSNorm.json problems/level1/40_LayerNorm.json problems/level1/47_Sum_reduction_over_a_dimension.json problems/level1/88_MinGPTNewGelu.json"
{ echo "== $(date +%T) start"; uptime; lscpu | grep -E 'Model name|^CPU\(s\)|Model:'
  gcc -std=gnu11 -O2 -march=native -fopenmp bench/cpu/stream_bw.c -o /tmp/stream_bw && /tmp/stream_bw 16 256 5 | tee $OUT/bw-before.txt
  TARBALL=${TARBALL:-$PWD/.carry/kforge-86b886a.tar.gz} MODE=exec CMD='
    set -u; cd '"$PWD"'
    echo "== $(date +%T) suite"
    timeout ${SUITE_TIME:-480} bash bench/cpu/run_cpu_anchors.sh --tool torch --threads 16 --no-compile --out '"$R"' \
        --suite-dir '"$S"' '"$PROBS"' -- --max-iterations 4 --max-time 30 > /tmp/suite.log 2>&1
    tail -3 /tmp/suite.log; cat '"$R"'/record.md 2>/dev/null | tail -8
    (cd '"$S"' && for r in runs/*/; do b=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))[\"best\"][\"dir\"])" $r/result.json 2>/dev/null) || continue
        echo $r/result.json; echo $r/$b; done | tar czf $OUT/best.tgz -T -)
    /tmp/stream_bw 16 256 5 | tee $OUT/bw-after.txt
    KFORGE=$(command -v kforge) python3 bench/cpu/bandwidth_share.py '"$R"'/report.json $OUT/bw-before.txt $OUT/bw-after.txt > $OUT/share.md 2>&1; cat $OUT/share.md
    echo "== $(date +%T) end"; uptime
  ' bash bench/gpu/run_gpu_suite.sh
} 2>&1 | tee $OUT/call-suite.txt
cp /tmp/suite.log $OUT/suite.log 2>/dev/null
tar czf $OUT/rec.tgz -C /tmp rec suite/report.json 2>/dev/null
rm -f $OUT/build.log $OUT/backends.txt $OUT/gpu.txt $OUT/commit.txt
