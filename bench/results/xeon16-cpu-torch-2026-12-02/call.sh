#!/bin/bash
# device call (issue 15, 2026-12-02 third session), 16-core host at 89c2c17: the 20 Level-2
# problems against PyTorch eager at 16 threads, as ../xeon16-cpu-torch-2026-11-29b/call.sh
# (built-in agent, cpu preset, --max-iterations 4 --max-time 40 --no-baseline: the 600 s a
# call allows), re-measured after the Level-1 work since fef8a22 (streamed maps, prefetch
# sites, GELU tables).  PART=a runs the suite over the first ten; PART=b over the other ten,
# then all twenty best kernels paired with PyTorch (2 rounds; .carry/best-a.tgz from the
# first call).  PART=g times problem 9's fused GEMM at the default fp32 point and at the
# 2026-11-29 record's f1024 point (../xeon16-gemm-kc-2026-11-29) beside OpenBLAS sgemm and the
# FMA peak (bench/cpu_gemm/micro.sh), GROUNDS rounds (3) of GREPS reps (30).
set -u
PART=${PART:-a}; R=/tmp/rec-$PART; S=/tmp/suite-$PART
export KFORGE_PYTHON=python3
case $PART in
a) PROBS="9 12 14 29 30 33 40 41 45 53" ;;
*) PROBS="56 59 62 63 68 70 76 86 88 99" ;;
esac
{ echo "== $(date +%T) start"; uptime; lscpu | grep -E 'Model name|^CPU\(s\)|Model:'
  TARBALL=$PWD/.carry/kforge-89c2c17.tar.gz MODE=exec CMD='
    set -u; cd '"$PWD"'
    if [ '"$PART"' = g ]; then
      P9=$(ls problems/level2/09_*.json); make -C $KF_BUILD tests/golden/emit_golden > /dev/null 2>&1 || echo "emit_golden: build failed"
      for r in $(seq ${GROUNDS:-3}); do
        echo "== $(date +%T) round $r"
        OPENBLAS_THREAD_TIMEOUT=4 OMP_WAIT_POLICY=passive KF_BUILDDIR=$KF_BUILD timeout 150 bash bench/cpu_gemm/micro.sh $P9 cpu 16 ${GREPS:-30} \
          fp32="{\"precision\":0}" kc1024="{\"fusion\":2,\"precision\":0,\"mc\":516,\"nc\":128,\"kc\":1024,\"mr\":12,\"nr\":32,\"pack\":1,\"threads\":0,\"loop_order\":1}" 2>&1 | grep -v "^ \|warning\|~~~\|In function\|^/tmp"
      done
      echo "== $(date +%T) end"; uptime; exit 0
    fi
    P=$(for n in '"$PROBS"'; do ls problems/level2/$(printf %02d $n)_*.json; done)
    echo "== $(date +%T) suite"; uptime
    timeout '"${SUITE_TIME:-330}"' bash bench/cpu/run_cpu_anchors.sh --tool torch --threads 16 --no-compile --no-anchors-after --out '"$R"' \
        --suite-dir '"$S"' $P -- --max-iterations 4 --max-time 40 --no-baseline > /tmp/suite.log 2>&1
    tail -4 /tmp/suite.log; tail -25 '"$R"'/record.md 2>/dev/null
    (cd '"$S"' && for r in runs/*/; do b=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))[\"best\"][\"dir\"])" $r/result.json 2>/dev/null) || continue
        echo $r/result.json; echo $r/$b; done | tar czf $OUT/best-'"$PART"'.tgz -T -)
    if [ '"$PART"' = b ]; then
      tar xzf .carry/best-a.tgz -C '"$S"'
      echo "== $(date +%T) paired"; uptime; ps -eo pid,pcpu,args --sort=-pcpu | head -4
      KFORGE=$(command -v kforge) timeout '"${PAIRED_TIME:-200}"' python3 bench/cpu/paired_anchors.py $OUT/paired-b.json '"$S"' \
          problems/level2/*.json --threads 16 --rounds 2 --reps 30 | tail -3
    fi
    echo "== $(date +%T) end"; uptime
  ' bash bench/gpu/run_gpu_suite.sh
} 2>&1 | tee $OUT/call-$PART.txt
cp /tmp/suite.log $OUT/suite-$PART.log 2>/dev/null
tar czf $OUT/rec-$PART.tgz -C /tmp rec-$PART suite-$PART/report.json 2>/dev/null
rm -f $OUT/build.log $OUT/backends.txt $OUT/gpu.txt $OUT/commit.txt
ls -la $OUT
