#!/bin/bash
# device call: the suite beside PyTorch (record), its best kernels saved, then
# PyTorch and those kernels paired problem by problem (bench/cpu/paired_anchors.py)
set -u
TAG=${TAG:-t1}; R=/tmp/rec-$TAG; S=/tmp/suite-$TAG
export KFORGE_PYTHON=python3
{ echo "== $(date +%T) start"; uptime; grep -m1 'model\s*:' /proc/cpuinfo; grep -E '^cpu ' /proc/stat | head -1
  TARBALL=$PWD/.carry/kforge-new.tar.gz MODE=exec CMD='
    set -u; cd '"$PWD"'
    if [ -z "${SKIP_SUITE:-}" ]; then
    echo "== $(date +%T) suite"
    timeout ${SUITE_TIME:-360} bash bench/cpu/run_cpu_anchors.sh --tool torch --threads 16 --no-compile --out '"$R"' \
        --suite-dir '"$S"' problems/level2/*.json -- --max-iterations 4 --max-time 40 > /tmp/suite.log 2>&1
    tail -3 /tmp/suite.log; cat '"$R"'/record.md 2>/dev/null | tail -8
    # the best kernels (result.json and the best candidate of each run)
    (cd '"$S"' && for r in runs/*/; do b=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))[\"best\"][\"dir\"])" $r/result.json 2>/dev/null) || continue
        echo $r/result.json; echo $r/$b; done | tar czf $OUT/best-'"$TAG"'.tgz -T -)
    else S='"$S"'; mkdir -p $S && tar xzf .carry/best-${BEST:-t1}.tgz -C $S; fi
    echo "== $(date +%T) paired"; uptime
    KFORGE=$(command -v kforge) timeout ${PAIRED_TIME:-170} python3 bench/cpu/paired_anchors.py $OUT/paired-'"$TAG"'.json '"$S"' \
        problems/level2/*.json --threads 16 --rounds ${ROUNDS:-3} --reps 30
    echo "== $(date +%T) end"; uptime
  ' bash bench/gpu/run_gpu_suite.sh
} 2>&1 | tee $OUT/call-$TAG.txt
[ -z "${SKIP_SUITE:-}" ] && cp /tmp/suite.log $OUT/suite-$TAG.log 2>/dev/null
[ -z "${SKIP_SUITE:-}" ] && tar czf $OUT/rec-$TAG.tgz -C /tmp rec-$TAG suite-$TAG/report.json 2>/dev/null
rm -f $OUT/build.log $OUT/backends.txt $OUT/commit.txt $OUT/gpu.txt   # eight files come back: the record first
ls -la $OUT
