#!/bin/bash
# device call (issue 15, 2026-11-30, ninth session), 16-core host.
# AB=1: the GELU maps of 26 and 88 before (old), with the table GELU called through its simd
#   variant (call) and applied to the block buffer (block), beside 19's copy: plain harness (h3) and
#   `kforge profile` in turns, 3 rounds each, 16 threads (kernels: ../epyc2-cpu-gelu-table-2026-11-30/kernels)
# PROBS set: those problems' suite (SUITE_ARGS: its budget, default 4 steps / 40 s a problem) beside PyTorch eager (16 threads, run_cpu_anchors.sh), the shares
#   (bench/cpu/bandwidth_share.py against 19's copy in the same suite and stream_bw), best kernels kept
set -u
TAG=${TAG:-g1}; R=/tmp/rec-$TAG; S=/tmp/suite-$TAG; G=$PWD/bench/results/epyc2-cpu-gelu-table-2026-11-30/kernels
export KFORGE_PYTHON=python3
{ echo "== $(date +%T) start $TAG"; uptime; nproc; lscpu | grep -E 'Model name|^CPU\(s\)|L2|L3'
  gcc -std=gnu11 -O2 -march=native -fopenmp bench/cpu/stream_bw.c -o /tmp/stream_bw && /tmp/stream_bw 16 256 5 | tee $OUT/bw-before-$TAG.txt
  if [ "${AB:-0}" = 1 ]; then
    mkdir -p /tmp/k && gcc -O2 $G/h3.c -I plugins/cpu-simd -ldl -lm -o /tmp/k/h3
    for k in ref_nt k19 k26_old k26_call k26_block k88_old k88_call k88_block; do
      gcc -std=gnu11 -O3 -march=native -fopenmp -fPIC -shared -I plugins/cpu-simd $G/$k.c -o /tmp/k/$k.so -lm || echo FAIL $k; done
  fi
  TARBALL=$PWD/.carry/kforge-new.tar.gz MODE=exec CMD='
    set -u; cd '"$PWD"'; G='"$G"'
    if [ "${AB:-0}" = 1 ]; then
    prof() { # problem kernel
      KFORGE_THREADS=16 timeout 120 kforge profile --backend cpu-simd --problem problems/level1/$1.json --preset cpu --json $G/$2.c |
        python3 -c "import json,sys; d=json.load(sys.stdin); t=d.get(\"timing\") or {}; print(d[\"verdict\"], \"median %.3f min %.3f ms\" % (t.get(\"median_s\",0)*1e3, t.get(\"min_s\",0)*1e3))"
    }
    for r in 1 2 3; do
      echo "== round $r $(date +%T)"
      (cd /tmp/k && OMP_PROC_BIND=close ./h3 1024,16384 16 21 ./ref_nt.so ./k26_old.so ./k26_call.so ./k26_block.so ./k88_old.so ./k88_call.so ./k88_block.so 2>&1 | grep med)
      for pk in 19_ReLU:k19 26_GELU:k26_old 26_GELU:k26_call 26_GELU:k26_block 88_MinGPTNewGelu:k88_old 88_MinGPTNewGelu:k88_call 88_MinGPTNewGelu:k88_block; do
        printf "%-18s %-10s: " ${pk%%:*} ${pk#*:}; prof ${pk%%:*} ${pk#*:}
      done
    done 2>&1 | tee $OUT/ab-'"$TAG"'.txt
    fi
    if [ -n "${PROBS:-}" ]; then
    P=; for p in $PROBS; do P="$P $(ls problems/level1/${p}_*.json)"; done
    echo "== $(date +%T) suite $P"
    timeout ${SUITE_TIME:-400} bash bench/cpu/run_cpu_anchors.sh --tool torch --threads 16 --no-compile --out '"$R"' \
        --suite-dir '"$S"' $P -- ${SUITE_ARGS:---max-iterations 4 --max-time 40} > /tmp/suite.log 2>&1
    tail -3 /tmp/suite.log; cat '"$R"'/record.md 2>/dev/null | tail -10
    (cd '"$S"' && for r in runs/*/; do b=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))[\"best\"][\"dir\"])" $r/result.json 2>/dev/null) || continue
        echo $r/result.json; echo $r/$b; done | tar czf $OUT/best-'"$TAG"'.tgz -T -)
    /tmp/stream_bw 16 256 5 | tee $OUT/bw-after-'"$TAG"'.txt
    KFORGE=$(command -v kforge) python3 bench/cpu/bandwidth_share.py '"$R"'/report.json $OUT/bw-before-'"$TAG"'.txt $OUT/bw-after-'"$TAG"'.txt > $OUT/share-'"$TAG"'.md 2>&1; cat $OUT/share-'"$TAG"'.md
    fi
    echo "== $(date +%T) end"; uptime
  ' bash bench/gpu/run_gpu_suite.sh
} 2>&1 | tee $OUT/call-$TAG.txt
[ -n "${PROBS:-}" ] && cp /tmp/suite.log $OUT/suite-$TAG.log 2>/dev/null
[ -n "${PROBS:-}" ] && tar czf $OUT/rec-$TAG.tgz -C /tmp rec-$TAG suite-$TAG/report.json 2>/dev/null
rm -f $OUT/build.log $OUT/backends.txt $OUT/gpu.txt
ls -la $OUT
