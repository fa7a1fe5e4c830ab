#!/bin/bash
# device call 3: 88 and 99 (call.sh's and call2.sh's time ran out before them),
# without baselines, the suite's processes ended before anything else runs
# (in call.sh and call2.sh `timeout` ended the script, not the suite under it,
# which went on beside their paired rounds); then all twenty paired with
# PyTorch, 2 rounds: the best kernels of call.sh (15), call2.sh (3) and these 2.
set -u
TAG=${TAG:-t3}; R=/tmp/rec-$TAG; S=/tmp/suite-$TAG
export KFORGE_PYTHON=python3
{ echo "== $(date +%T) start"; uptime; grep -m1 'model\s*:' /proc/cpuinfo
  TARBALL=$PWD/.carry/kforge-new.tar.gz MODE=exec CMD='
    set -u; cd '"$PWD"'
    P2=$(for n in 88 99; do ls problems/level2/${n}_*.json; done)
    echo "== $(date +%T) suite"
    timeout 150 bash bench/cpu/run_cpu_anchors.sh --tool torch --threads 16 --no-compile --no-anchors-after --out '"$R"' \
        --suite-dir '"$S"' $P2 -- --max-iterations 4 --max-time 40 --no-baseline > /tmp/suite.log 2>&1
    pkill -f "kforge suite"; pkill -f kforge-worker; pkill -f torch_anchors; sleep 1
    tail -4 /tmp/suite.log
    (cd '"$S"' && for r in runs/*/; do b=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))[\"best\"][\"dir\"])" $r/result.json 2>/dev/null) || continue
        echo $r/result.json; echo $r/$b; done | tar czf $OUT/best-'"$TAG"'.tgz -T -)
    tar xzf .carry/best-t1.tgz -C '"$S"'; tar xzf .carry/best-t2.tgz -C '"$S"'
    echo "== $(date +%T) paired"; uptime; ps -eo pid,pcpu,args --sort=-pcpu | head -4
    KFORGE=$(command -v kforge) timeout 260 python3 bench/cpu/paired_anchors.py $OUT/paired-'"$TAG"'.json '"$S"' \
        problems/level2/*.json --threads 16 --rounds 2 --reps 30 | tail -3
    echo "== $(date +%T) end"; uptime
  ' bash bench/gpu/run_gpu_suite.sh
} 2>&1 | tee $OUT/call-$TAG.txt
cp /tmp/suite.log $OUT/suite-$TAG.log 2>/dev/null
tar czf $OUT/rec-$TAG.tgz -C /tmp rec-$TAG suite-$TAG/report.json 2>/dev/null
rm -f $OUT/build.log $OUT/backends.txt $OUT/commit.txt $OUT/gpu.txt
ls -la $OUT
