#!/bin/bash
G=/work/main/.carry/pf40
export KFORGE_PLUGIN_PATH=/tmp/bld/plugins/cpu-simd/.libs KFORGE_WORKER=/tmp/bld/core/kforge-worker KFORGE_PROMPTS=/work/main/prompts KFORGE_THREADS=2
prof() {
  timeout 120 /tmp/bld/core/kforge profile --backend cpu-simd --problem /work/main/problems/level1/$1.json --preset cpu --json $G/$2.c |
    python3 -c "import json,sys; d=json.load(sys.stdin); t=d.get(\"timing\") or {}; print(d[\"verdict\"], \"median %.3f min %.3f ms\" % (t.get(\"median_s\",0)*1e3, t.get(\"min_s\",0)*1e3))"
}
for r in 1 2 3 4; do
  echo "== round $r $(date +%T)"
  for p in 40_LayerNorm:k40; do for v in v0 v4; do
    printf "%-18s %-8s: " ${p%%:*} ${p#*:}_$v; prof ${p%%:*} ${p#*:}_$v
  done; done
done
