#!/bin/bash
# device: thread binding in the worker (default now) against unbound, kforge profile on 4 AMX kernels; torch anchors bound/unbound
OUT=${OUT:-/tmp/out}
MODE=exec CMD='cd '"$PWD"'
prof() { c=$1; p=$2; shift 2; env "$@" timeout 120 kforge profile --backend cpu-simd --problem $p --preset cpu --reps 40 --json .carry/cand/$c 2>/dev/null | python3 -c "
import json,sys; d=json.load(sys.stdin); t=d[\"timing\"]; s=sorted(t[\"samples_s\"]); print(\"%-7s %-22s med %.3f min %.3f p90 %.3f lead %.3f ms\"%(sys.argv[1], sys.argv[2], t[\"median_s\"]*1e3, t[\"min_s\"]*1e3, t[\"p90_s\"]*1e3, t.get(\"lead_in_median_s\",0)*1e3))" $c "${*:-default(bound)}"; }
for r in 1 2 3; do for c in 09:09 30old:30 62old:62 29new:29; do n=${c%%:*}; p=$(ls problems/level2/${c#*:}_*.json); prof $n $p; prof $n $p OMP_PROC_BIND=false; done; done
P="problems/level2/09_*.json problems/level2/30_*.json problems/level2/62_*.json problems/level2/29_*.json"
for r in 1 2; do for b in unset close; do echo "== torch anchors OMP_PROC_BIND=$b round $r"; if [ $b = unset ]; then python3 bench/anchors/torch_anchors.py /tmp/a.json $P --preset cpu --device cpu --threads 16 --no-compile --reps 20 --warmup 5 2>&1 | tail -5; else OMP_PROC_BIND=close python3 bench/anchors/torch_anchors.py /tmp/a.json $P --preset cpu --device cpu --threads 16 --no-compile --reps 20 --warmup 5 2>&1 | tail -5; fi; done; done
' bash bench/gpu/run_gpu_suite.sh 2>&1 | tee $OUT/bind.txt | tail -60
