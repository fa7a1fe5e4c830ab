#!/bin/bash
# device call: a 30 s warm-up of the host (16 threads of PyTorch matmul), then
# the suite beside PyTorch with the final re-timing (confirm, 3 rounds, the
# default of 10e3a84), its best kernels saved, the confirm events summarised;
# SKIP_SUITE=1 BEST=TAG: only pair BEST's kernels with PyTorch (paired_anchors.py)
set -u
TAG=${TAG:-h13}; R=/tmp/rec-$TAG; S=/tmp/suite-$TAG
export KFORGE_PYTHON=python3
{ echo "== $(date +%T) start"; uptime; grep -m1 'model\s*:' /proc/cpuinfo; grep -E '^cpu ' /proc/stat | head -1
  TARBALL=$PWD/.carry/kforge-new.tar.gz MODE=exec CMD='
    set -u; cd '"$PWD"'
    echo "== $(date +%T) warm-up"
    timeout 40 python3 -c "
import time, torch
torch.set_num_threads(16); a = torch.randn(2048, 2048); t = time.time(); n = 0
while time.time() - t < ${WARM:-30}: a @ a; n += 1
print(\"warm-up: %d matmuls of 2048^3 in %.0f s, %.0f GFLOP/s\" % (n, time.time() - t, n * 2 * 2048**3 / (time.time() - t) / 1e9))"
    if [ -z "${SKIP_SUITE:-}" ]; then
    echo "== $(date +%T) suite"
    timeout ${SUITE_TIME:-480} bash bench/cpu/run_cpu_anchors.sh --tool torch --threads 16 --no-compile --out '"$R"' \
        --suite-dir '"$S"' problems/level2/*.json -- --max-iterations 4 --max-time 40 > /tmp/suite.log 2>&1
    tail -3 /tmp/suite.log; cat '"$R"'/record.md 2>/dev/null | tail -8
    python3 - '"$S"' > $OUT/confirm-'"$TAG"'.txt <<PY
import json, sys, glob, os
for j in sorted(glob.glob(sys.argv[1] + "/runs/*/journal.jsonl")):
    run = os.path.basename(os.path.dirname(j))
    for e in map(json.loads, open(j)):
        if e.get("ev") == "confirm":
            print(run, json.dumps({k: e.get(k) for k in ("rounds", "wanted", "stopped", "chosen", "finalists")}))
PY
    echo "confirm events: $(wc -l < $OUT/confirm-'"$TAG"'.txt)"
    (cd '"$S"' && for r in runs/*/; do b=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))[\"best\"][\"dir\"])" $r/result.json 2>/dev/null) || continue
        echo $r/result.json; echo $r/$b; done | tar czf $OUT/best-'"$TAG"'.tgz -T -)
    else S='"$S"'; mkdir -p $S && tar xzf .carry/best-${BEST:-h13}.tgz -C $S
    echo "== $(date +%T) paired"; uptime
    KFORGE=$(command -v kforge) timeout ${PAIRED_TIME:-300} python3 bench/cpu/paired_anchors.py $OUT/paired-'"$TAG"'.json '"$S"' \
        problems/level2/*.json --threads 16 --rounds ${ROUNDS:-3} --reps 30
    fi
    echo "== $(date +%T) end"; uptime
  ' bash bench/gpu/run_gpu_suite.sh
} 2>&1 | tee $OUT/call-$TAG.txt
[ -z "${SKIP_SUITE:-}" ] && cp /tmp/suite.log $OUT/suite-$TAG.log 2>/dev/null
[ -z "${SKIP_SUITE:-}" ] && tar czf $OUT/rec-$TAG.tgz -C /tmp rec-$TAG suite-$TAG/report.json 2>/dev/null
rm -f $OUT/build.log $OUT/backends.txt $OUT/commit.txt $OUT/gpu.txt
ls -la $OUT
