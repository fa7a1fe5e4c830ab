#!/bin/bash
# device call: the suite beside PyTorch (record), then old vs new generator paired
set -u
TAG=${TAG:-h1}; R=/tmp/rec-$TAG
export KFORGE_PYTHON=python3
{ echo "== $(date +%T) start"; uptime; grep -E 'steal|^cpu ' /proc/stat | head -1
  TARBALL=$PWD/.carry/kforge-new.tar.gz MODE=exec CMD='
    set -u; cd '"$PWD"'
    echo "== $(date +%T) suite"
    timeout 400 bash bench/cpu/run_cpu_anchors.sh --tool torch --threads 16 --no-compile --out '"$R"' \
        --suite-dir /tmp/suite-'"$TAG"' problems/level2/*.json -- --max-iterations 4 --max-time 40 > /tmp/suite.log 2>&1
    tail -5 /tmp/suite.log; cat '"$R"'/record.md 2>/dev/null | tail -8
    echo "== $(date +%T) paired"; uptime
    mkdir -p /tmp/paired && ln -sfn /tmp/inst /tmp/paired/new
    [ -n "${PAIRED:-}" ] && ROUNDS=${ROUNDS:-2} SUITE=/tmp/suite-'"$TAG"' OLD=.carry/kforge-old.tar.gz NEW=.carry/kforge-new.tar.gz \
        timeout ${PAIRED_TIME:-170} bash bench/cpu/paired_generators.sh $PAIRED
    echo "== $(date +%T) end"; uptime
  ' bash bench/gpu/run_gpu_suite.sh
} 2>&1 | tee $OUT/call-$TAG.txt
cp /tmp/suite.log $OUT/suite-$TAG.log 2>/dev/null
tar czf $OUT/rec-$TAG.tgz -C /tmp rec-$TAG suite-$TAG/report.json 2>/dev/null
ls -la $OUT
