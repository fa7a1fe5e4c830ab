#!/bin/bash
# device: the suite's best kernels (warm machine, /tmp/suite-$TAG) under kforge profile with wait policies, interleaved
set -u
TAG=${TAG:-h1}
REUSE=1 TARBALL=$PWD/.carry/kforge-new.tar.gz MODE=exec CMD='
cd /tmp/suite-'"$TAG"'/runs || exit 1
end=$((SECONDS + ${BUDGET:-520}))
prof() { d=$1; shift; c=$d/$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))[\"best\"][\"dir\"])" $d/result.json)
  p=$d/problem.json
  env "$@" timeout 60 kforge profile --backend cpu-simd --problem $p --preset cpu --reps 30 --json $c 2>/dev/null | python3 -c "
import json,sys
try:
  t=json.load(sys.stdin)[\"timing\"]; print(\"%-40s %-24s med %.3f min %.3f p90 %.3f lead %.3f ms\"%(sys.argv[1], sys.argv[2], t[\"median_s\"]*1e3, t[\"min_s\"]*1e3, t[\"p90_s\"]*1e3, t.get(\"lead_in_median_s\",0)*1e3))
except Exception as e: print(sys.argv[1], sys.argv[2], \"failed\")" $d "${*:-passive}"; }
for r in 1 2; do for d in ${PROBS:-*}; do [ $SECONDS -lt $end ] || break 2
  prof $d; prof $d OMP_WAIT_POLICY=active; prof $d GOMP_SPINCOUNT=300000; prof $d GOMP_SPINCOUNT=30000
done; done; uptime
' bash bench/gpu/run_gpu_suite.sh 2>&1 | grep -v "^ \|^cpu-simd\|^cuda\|^opencl\|^skipped\|^sandbox\|^search" | tee $OUT/pol-$TAG.txt
