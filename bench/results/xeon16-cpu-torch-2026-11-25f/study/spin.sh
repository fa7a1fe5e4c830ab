#!/bin/bash
# device: the 16-core suite again (c16.sh TAG), then kforge profile with the references computed (fresh cache) with and without OpenBLAS's spin-wait in the parent
OUT=${OUT:-/tmp/out}; TAG=$1
bash .carry/c16.sh "$TAG" problems/level2/*.json
REUSE=1 MODE=exec CMD='cd '"$PWD"'
prof() { c=$1; p=$2; shift 2; rm -rf /tmp/xc; env XDG_CACHE_HOME=/tmp/xc "$@" timeout 200 kforge profile --backend cpu-simd --problem $p --preset cpu --reps 40 --json .carry/cand/$c 2>/dev/null | python3 -c "
import json,sys; d=json.load(sys.stdin); t=d[\"timing\"]; print(\"%-7s %-28s med %.3f min %.3f p90 %.3f lead %.3f ms refs %s\"%(sys.argv[1], sys.argv[2], t[\"median_s\"]*1e3, t[\"min_s\"]*1e3, t[\"p90_s\"]*1e3, t.get(\"lead_in_median_s\",0)*1e3, d.get(\"reference_sets\")))" $c "${*:-default(timeout 4)}"; }
for r in 1 2; do for c in 09:09 30old:30 29new:29; do n=${c%%:*}; p=$(ls problems/level2/${c#*:}_*.json); prof $n $p; prof $n $p OPENBLAS_THREAD_TIMEOUT=28; done; done 2>&1 | tee $OUT/spin.txt' bash bench/gpu/run_gpu_suite.sh 2>&1 | tail -20
