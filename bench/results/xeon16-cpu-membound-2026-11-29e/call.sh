#!/bin/bash
# device call (issue 15, 2026-11-29, session 3): the ten memory-bound Level-1 problems on the 16-core host.
# PHASE=suite: stream_bw before/after, the suite beside PyTorch eager (16 threads), best kernels saved
# PHASE=paired BEST=TAG: stream_bw, paired rounds with PyTorch on the same and on fresh inputs,
#   problem 23's kernels before / after 4d81c22 (.carry/ab23: streamed and plain) profiled in turns, stream_bw
set -u
TAG=${TAG:-w1}; R=/tmp/rec-$TAG; S=/tmp/suite-$TAG
export KFORGE_PYTHON=python3
PROBS="problems/level1/04_Matrix_vector_multiplication.json problems/level1/19_ReLU.json problems/level1/23_Softmax.json problems/level1/26_GELU.json problems/level1/33_BatchNorm.json problems/level1/35_GroupNorm.json problems/level1/36_RMSNorm.json problems/level1/40_LayerNorm.json problems/level1/47_Sum_reduction_over_a_dimension.json problems/level1/88_MinGPTNewGelu.json"
{ echo "== $(date +%T) start $PHASE"; uptime; grep -m1 'model\s*:' /proc/cpuinfo; nproc
  gcc -std=gnu11 -O2 -march=native -fopenmp bench/cpu/stream_bw.c -o /tmp/stream_bw && /tmp/stream_bw 16 256 5 | tee $OUT/bw-before-$TAG.txt
  TARBALL=$PWD/.carry/kforge-new.tar.gz MODE=exec CMD='
    set -u; cd '"$PWD"'
    if [ "$PHASE" = suite ]; then
    echo "== $(date +%T) suite"
    timeout ${SUITE_TIME:-480} bash bench/cpu/run_cpu_anchors.sh --tool torch --threads 16 --no-compile --out '"$R"' \
        --suite-dir '"$S"' '"$PROBS"' -- --max-iterations ${MAXIT:-3} --max-time ${MAXT:-25} > /tmp/suite.log 2>&1
    tail -3 /tmp/suite.log; cat '"$R"'/record.md 2>/dev/null | tail -8
    (cd '"$S"' && for r in runs/*/; do b=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))[\"best\"][\"dir\"])" $r/result.json 2>/dev/null) || continue
        echo $r/result.json; echo $r/$b; done | tar czf $OUT/best-'"$TAG"'.tgz -T -)
    /tmp/stream_bw 16 256 5 | tee $OUT/bw-after-'"$TAG"'.txt
    KFORGE=$(command -v kforge) python3 bench/cpu/bandwidth_share.py '"$R"'/report.json $OUT/bw-before-'"$TAG"'.txt $OUT/bw-after-'"$TAG"'.txt > $OUT/share-'"$TAG"'.md 2>&1; cat $OUT/share-'"$TAG"'.md
    else
    mkdir -p '"$S"' && tar xzf .carry/best-${BEST}.tgz -C '"$S"'
    echo "== $(date +%T) 23 old/new"
    for r in 1 2 3 4; do for k in old_s new_s old_p new_p; do printf "23 %s round %d: " $k $r
      KFORGE_THREADS=16 kforge profile --backend cpu-simd --problem problems/level1/23_Softmax.json --preset cpu --json .carry/ab23/$k.c |
        python3 -c "import json,sys; d=json.load(sys.stdin); t=d.get(\"timing\") or {}; print(d[\"verdict\"], \"median %.3f ms min %.3f ms\" % (t.get(\"median_s\",0)*1e3, t.get(\"min_s\",0)*1e3))"
    done; done | tee $OUT/ab23-'"$TAG"'.txt
    echo "== $(date +%T) paired"; uptime
    KFORGE=$(command -v kforge) timeout ${PAIRED_TIME:-420} python3 bench/cpu/paired_anchors.py $OUT/paired-'"$TAG"'.json '"$S"' \
        '"$PROBS"' --threads 16 --rounds ${ROUNDS:-3} --reps 30 --inputs both 2>&1 | tee $OUT/paired-'"$TAG"'.out
    /tmp/stream_bw 16 256 5 | tee $OUT/bw-after-'"$TAG"'.txt
    fi
    echo "== $(date +%T) end"; uptime
  ' bash bench/gpu/run_gpu_suite.sh
} 2>&1 | tee $OUT/call-$TAG.txt
[ "$PHASE" = suite ] && cp /tmp/suite.log $OUT/suite-$TAG.log 2>/dev/null
[ "$PHASE" = suite ] && tar czf $OUT/rec-$TAG.tgz -C /tmp rec-$TAG suite-$TAG/report.json 2>/dev/null
rm -f $OUT/build.log $OUT/backends.txt $OUT/commit.txt $OUT/gpu.txt
ls -la $OUT
