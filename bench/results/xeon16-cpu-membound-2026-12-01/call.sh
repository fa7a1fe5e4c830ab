#!/bin/bash
# device call (issue 15, 2026-12-01), 16-core host: the ten memory-bound problems at d5b1ac6 (PHASE=suite; MAXT: --max-time a problem, default 30).
# TARBALL: the `make dist` tarball to build (default .carry/kforge-new.tar.gz).
# PHASE=ab: kforge profile in turns over kernel files (.carry/mm = kernels/ here): 19's copy, 33 BatchNorm and
#   35 GroupNorm (stream 2) before / after the one-pass carried moments (f407dbe), 35 at stream 1, 40 LayerNorm
#   before / after (only its shift changed), 3 rounds, stream_bw before and after
# PHASE=paired (BEST=TAG, ROUNDS, PAIRED_TIME, INPUTS=same/fresh/both): a suite's best kernels and PyTorch eager in turns (paired_anchors.py)
# PHASE=suite: the ten memory-bound Level-1 problems beside PyTorch eager (16 threads), the shares
#   (bench/cpu/bandwidth_share.py), the best kernels kept
set -u
TAG=${TAG:-p1}; R=/tmp/rec-$TAG; S=/tmp/suite-$TAG; G=$PWD/.carry/mm
export KFORGE_PYTHON=python3
PROBS="problems/level1/04_Matrix_vector_multiplication.json problems/level1/19_ReLU.json problems/level1/23_Softmax.json problems/level1/26_GELU.json problems/level1/33_BatchNorm.json problems/level1/35_GroupNorm.json problems/level1/36_RMSNorm.json problems/level1/40_LayerNorm.json problems/level1/47_Sum_reduction_over_a_dimension.json problems/level1/88_MinGPTNewGelu.json"
{ echo "== $(date +%T) start $PHASE"; uptime; grep -m1 'model\s*:' /proc/cpuinfo; nproc
  gcc -std=gnu11 -O2 -march=native -fopenmp bench/cpu/stream_bw.c -o /tmp/stream_bw && /tmp/stream_bw 16 256 5 | tee $OUT/bw-before-$TAG.txt
  TARBALL=${TARBALL:-$PWD/.carry/kforge-new.tar.gz} MODE=exec CMD='
    set -u; cd '"$PWD"'; G='"$G"'
    if [ "$PHASE" = paired ]; then   # BEST=TAG: the suite TAG'"'"'s best kernels (.carry/mm/best-TAG.tgz) beside PyTorch, in turns
    mkdir -p '"$S"' && tar xzf $G/best-${BEST:-s1}.tgz -C '"$S"'
    echo "== $(date +%T) paired"; uptime
    KFORGE=$(command -v kforge) timeout ${PAIRED_TIME:-400} python3 bench/cpu/paired_anchors.py $OUT/paired-'"$TAG"'.json '"$S"' \
        '"$PROBS"' --threads 16 --rounds ${ROUNDS:-2} --reps 30 --inputs ${INPUTS:-same}
    elif [ "$PHASE" = suite ]; then
    echo "== $(date +%T) suite"
    timeout ${SUITE_TIME:-480} bash bench/cpu/run_cpu_anchors.sh --tool torch --threads 16 --no-compile --out '"$R"' \
        --suite-dir '"$S"' '"$PROBS"' -- --max-iterations 4 --max-time ${MAXT:-30} > /tmp/suite.log 2>&1
    tail -3 /tmp/suite.log; cat '"$R"'/record.md 2>/dev/null | tail -8
    (cd '"$S"' && for r in runs/*/; do b=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))[\"best\"][\"dir\"])" $r/result.json 2>/dev/null) || continue
        echo $r/result.json; echo $r/$b; done | tar czf $OUT/best-'"$TAG"'.tgz -T -)
    /tmp/stream_bw 16 256 5 | tee $OUT/bw-after-'"$TAG"'.txt
    KFORGE=$(command -v kforge) python3 bench/cpu/bandwidth_share.py '"$R"'/report.json $OUT/bw-before-'"$TAG"'.txt $OUT/bw-after-'"$TAG"'.txt > $OUT/share-'"$TAG"'.md 2>&1; cat $OUT/share-'"$TAG"'.md
    else
    prof() { # problem kernel
      KFORGE_THREADS=16 timeout 120 kforge profile --backend cpu-simd --problem problems/level1/$1.json --preset cpu --json $G/$2.c |
        python3 -c "import json,sys; d=json.load(sys.stdin); t=d.get(\"timing\") or {}; print(d[\"verdict\"], \"median %.3f min %.3f ms\" % (t.get(\"median_s\",0)*1e3, t.get(\"min_s\",0)*1e3))"
    }
    for r in 1 2 3; do
      echo "== round $r $(date +%T)"
      for pk in 19_ReLU:k19 33_BatchNorm:k33_old 33_BatchNorm:k33_new 35_GroupNorm:k35s2_old 35_GroupNorm:k35s2_new 35_GroupNorm:k35s1 40_LayerNorm:k40_old 40_LayerNorm:k40_new; do
        printf "%-14s %-8s: " ${pk%%:*} ${pk#*:}; prof ${pk%%:*} ${pk#*:}
      done
    done 2>&1 | tee $OUT/ab-'"$TAG"'.txt
    /tmp/stream_bw 16 256 5 | tee $OUT/bw-after-'"$TAG"'.txt
    fi
    echo "== $(date +%T) end"; uptime
  ' bash bench/gpu/run_gpu_suite.sh
} 2>&1 | tee $OUT/call-$TAG.txt
[ "$PHASE" = suite ] && cp /tmp/suite.log $OUT/suite-$TAG.log 2>/dev/null
[ "$PHASE" = suite ] && tar czf $OUT/rec-$TAG.tgz -C /tmp rec-$TAG suite-$TAG/report.json 2>/dev/null
rm -f $OUT/build.log $OUT/backends.txt $OUT/gpu.txt
ls -la $OUT
