#!/bin/bash
# device call (issue 15, 2026-11-29): the Level-2 suite's best kernels of h16 (xeon16-cpu-2026-11-28e,
# .carry/best-h16.tgz) paired with PyTorch eager on the same and on fresh inputs, 16 threads
set -u
TAG=${TAG:-l1}; S=/tmp/suite-$TAG
export KFORGE_PYTHON=python3
{ echo "== $(date +%T) start"; uptime; grep -m1 'model\s*:' /proc/cpuinfo; nproc
  TARBALL=$PWD/.carry/kforge-new.tar.gz MODE=exec CMD='
    set -u; cd '"$PWD"'
    mkdir -p '"$S"' && tar xzf .carry/best-h16.tgz -C '"$S"'
    echo "== $(date +%T) paired"; uptime
    KFORGE=$(command -v kforge) timeout ${PAIRED_TIME:-360} python3 bench/cpu/paired_anchors.py $OUT/paired-'"$TAG"'.json '"$S"' \
        problems/level2/*.json --threads 16 --rounds ${ROUNDS:-2} --reps 30 --inputs both 2>&1 | tee $OUT/paired-'"$TAG"'.out
    echo "== $(date +%T) end"; uptime
  ' bash bench/gpu/run_gpu_suite.sh
} 2>&1 | tee $OUT/call-$TAG.txt
rm -f $OUT/build.log $OUT/backends.txt $OUT/commit.txt $OUT/gpu.txt
