#!/bin/bash
# bench/sandbox/overhead.sh — what the sandbox costs per evaluation.
#
# For each problem: the built-in agent's first cpu-simd candidate at the
# `cpu` preset, then `kforge profile` of it alternately with --sandbox=off
# and --sandbox=auto, ROUNDS times each (interleaved, so drift hits both).
# Prints the median wall time of a whole evaluation (start the worker,
# compile, 5 verification trials, warm-up, 20 timed runs with the parent's
# checks) per mode and the overhead of the sandbox in percent, plus the
# kernel medians (the sandbox must not change what is measured).
#
# usage: bench/sandbox/overhead.sh [BUILD_DIR] [OUT_DIR]
#   ROUNDS=5 PROBLEMS="12 9 ..." PRESET=cpu BACKEND=cpu-simd
set -eu
build=${1:-.}
out=${2:-bench/results/sandbox-overhead-$(date +%Y-%m-%d)}
rounds=${ROUNDS:-5}
preset=${PRESET:-cpu}
backend=${BACKEND:-cpu-simd}
problems=${PROBLEMS:-"12_Gemm_Multiply_LeakyReLU 09_Matmul_Subtract_Multiply_ReLU 56_Matmul_Sigmoid_Sum 45_Gemm_Sigmoid_LogSumExp"}
kforge="$build/core/kforge"
src=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

{
  echo "# sandbox overhead per evaluation ($backend, preset $preset, $rounds rounds per mode)"
  echo "date: $(date -u +%FT%TZ)  commit: $(git -C "$src" rev-parse --short HEAD 2>/dev/null || echo '?')"
  echo "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores, $(free -g | awk '/Mem:/{print $2}') GiB, kernel $(uname -r)"
  "$kforge" backends | grep -A1 '^sandbox' || true
  echo
  printf '%-36s %12s %12s %9s %14s %14s\n' problem "off (s)" "auto (s)" overhead "kernel off" "kernel auto"
} | tee "$out/summary.txt"

for p in $problems; do
  pj="$src/problems/level2/$p.json"
  "$kforge" run "$pj" --backend "$backend" --preset "$preset" --max-iterations 1 --no-baseline \
      --out "$tmp/$p" --quiet >/dev/null 2>&1 || { echo "$p: no candidate"; continue; }
  cand=$(ls -d "$tmp/$p"/steps/*/candidate | head -1)
  for r in $(seq "$rounds"); do
    for mode in off auto; do
      t0=$(date +%s.%N)
      "$kforge" profile --sandbox "$mode" --backend "$backend" --problem "$pj" --preset "$preset" --json "$cand" \
          > "$tmp/$p.$mode.$r.json" 2>/dev/null || true
      t1=$(date +%s.%N)
      python3 -c "import sys; print(sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[5]) - float(sys.argv[4]))" "$p" "$mode" "$r" "$t0" "$t1" >> "$out/raw.txt"
      cp "$tmp/$p.$mode.$r.json" "$out/$p.$mode.$r.json"
    done
  done
  python3 - "$out" "$p" "$rounds" <<'PY' | tee -a "$out/summary.txt"
import json, statistics, sys
out, p, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3])
wall = {"off": [], "auto": []}
kern = {"off": [], "auto": []}
for line in open(f"{out}/raw.txt"):
    q, mode, r, s = line.split()
    if q == p: wall[mode].append(float(s))
for mode in kern:
    for r in range(1, rounds + 1):
        try:
            d = json.load(open(f"{out}/{p}.{mode}.{r}.json"))
            if d.get("timing"): kern[mode].append(d["timing"]["median_s"])
        except Exception:
            pass
w_off, w_auto = statistics.median(wall["off"]), statistics.median(wall["auto"])
k = lambda m: f"{statistics.median(kern[m]) * 1e3:.3f} ms" if kern[m] else "-"
print(f"{p:<36} {w_off:12.3f} {w_auto:12.3f} {100 * (w_auto / w_off - 1):8.1f}% {k('off'):>14} {k('auto'):>14}")
PY
done
echo "raw wall times: $out/raw.txt; every evaluation's JSON beside it" | tee -a "$out/summary.txt"
