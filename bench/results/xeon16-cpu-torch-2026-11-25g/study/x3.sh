#!/bin/bash
# device: the suite's kernels (run g2 of xeon16-cpu-torch-2026-11-25g) under kforge profile, default and with OMP_WAIT_POLICY=active; micro.sh beside
OUT=${OUT:-/tmp/out}
MODE=exec CMD='cd '"$PWD"'
prof() { c=$1; p=$2; shift 2; env "$@" timeout 120 kforge profile --backend cpu-simd --problem $p --preset cpu --reps 40 --json .carry/cand/$c 2>/dev/null | python3 -c "
import json,sys; d=json.load(sys.stdin); t=d[\"timing\"]; print(\"%-9s %-24s med %.3f min %.3f p90 %.3f lead %.3f ms\"%(sys.argv[1], sys.argv[2], t[\"median_s\"]*1e3, t[\"min_s\"]*1e3, t[\"p90_s\"]*1e3, t.get(\"lead_in_median_s\",0)*1e3))" $c "${*:-default}"; }
for r in 1 2 3; do for c in g2-41c:41 g2-30c:30 g2-33x2c:33 g2-29:29 g2-09:09; do n=${c%%:*}; p=$(ls problems/level2/${c#*:}_*.json); prof $n $p; prof $n $p OMP_WAIT_POLICY=active; done; done
' bash bench/gpu/run_gpu_suite.sh 2>&1 | tee $OUT/x3.txt | tail -45
