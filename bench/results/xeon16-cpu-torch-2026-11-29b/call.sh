#!/bin/bash
# device call (issue 15, 2026-11-29, sixth session), 16-core host at fef8a22 (the AMX depth
# block from the parts in L2): PART=ab1 first times 62's and 88's 3xbf16 kernels at KC 4096
# (all of K, the suite's pick before) and 1344 (evened to two blocks of 1024) with
# `kforge profile` in turns (.carry/ab3, written here by make-ab.sh), then runs the suite over
# the problems named in PROBS against PyTorch eager (16 threads, no baselines: the 600 s a call
# allows); PART=b2 runs the rest, then all twenty paired (2 rounds) over both parts' best
# kernels (.carry/best-b1.tgz from the first call).
set -u
PART=${PART:-ab1}; R=/tmp/rec-$PART; S=/tmp/suite-$PART
export KFORGE_PYTHON=python3
{ echo "== $(date +%T) start"; uptime; grep -m1 'model\s*:' /proc/cpuinfo; nproc
  TARBALL=$PWD/.carry/kforge-new.tar.gz MODE=exec CMD='
    set -u; cd '"$PWD"'
    if [ '"$PART"' = ab1 ]; then
      for r in 1 2 3; do for n in 62 88; do for kc in 4096 1344; do
        p=$(ls problems/level2/${n}_*.json)
        printf "%s kc %s round %d: " $n $kc $r
        KFORGE_THREADS=16 timeout 60 kforge profile --backend cpu-simd --problem $p --preset cpu --json .carry/ab3/p$n-kc$kc |
          python3 -c "import json,sys; d=json.load(sys.stdin); t=d.get(\"timing\") or {}; print(d[\"verdict\"], \"median %.3f ms min %.3f ms\" % (t.get(\"median_s\",0)*1e3, t.get(\"min_s\",0)*1e3))"
      done; done; done | tee $OUT/ab3.txt
    fi
    P=$(for n in '"${PROBS:-9 12 14 29 30 33 40 41 45 53 62}"'; do ls problems/level2/${n}_*.json; done)
    echo "== $(date +%T) suite"; uptime
    timeout '"${SUITE_TIME:-330}"' bash bench/cpu/run_cpu_anchors.sh --tool torch --threads 16 --no-compile --no-anchors-after --out '"$R"' \
        --suite-dir '"$S"' $P -- --max-iterations 4 --max-time 40 --no-baseline > /tmp/suite.log 2>&1
    tail -4 /tmp/suite.log
    (cd '"$S"' && for r in runs/*/; do b=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))[\"best\"][\"dir\"])" $r/result.json 2>/dev/null) || continue
        echo $r/result.json; echo $r/$b; done | tar czf $OUT/best-'"$PART"'.tgz -T -)
    if [ '"$PART"' = b2 ]; then
      tar xzf .carry/best-b1.tgz -C '"$S"'
      echo "== $(date +%T) paired"; uptime; ps -eo pid,pcpu,args --sort=-pcpu | head -4
      KFORGE=$(command -v kforge) timeout '"${PAIRED_TIME:-200}"' python3 bench/cpu/paired_anchors.py $OUT/paired-'"$PART"'.json '"$S"' \
          problems/level2/*.json --threads 16 --rounds 2 --reps 30 | tail -3
    fi
    echo "== $(date +%T) end"; uptime
  ' bash bench/gpu/run_gpu_suite.sh
} 2>&1 | tee $OUT/call-$PART.txt
cp /tmp/suite.log $OUT/suite-$PART.log 2>/dev/null
tar czf $OUT/rec-$PART.tgz -C /tmp rec-$PART suite-$PART/report.json 2>/dev/null
rm -f $OUT/build.log $OUT/backends.txt $OUT/gpu.txt
ls -la $OUT
