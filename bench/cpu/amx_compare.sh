#!/bin/bash
# bench/cpu/amx_compare.sh — the C emitter's GEMM in its three precisions on
# the same problems, interleaved so they see the same machine:
#
#   fp32    the built-in agent's default point (AVX-512 FMA micro-kernel)
#   bf16    the default with precision 3 (vdpbf16ps, fp32 accumulation)
#   amx     precision 5 at the search's AMX point on a 2 MiB L2: MR = NR = 32
#           (2 x 2 AMX C tiles), KC 4096 (all of K in one depth block), MC 128
#   amx384  the same with KC 384 (C through memory between depth blocks)
#
#     bench/cpu/amx_compare.sh [ROUNDS] [OUT] [PROBLEM.json...]
#
# ROUNDS 0 writes OUT/summary.md again from OUT/runs.txt (no runs).
# One `kforge run --max-iterations 1 --no-baseline` per variant and round
# (the candidate's time is the median of the profile protocol's timed runs;
# default problems: Level-2 09, 12, 99; preset $PRESET, default cpu; threads:
# all cores unless KFORGE_THREADS says otherwise).  Writes OUT/machine.txt
# (kforge backends: the probed fp32, bf16 and AMX peaks), OUT/runs.txt (one
# line per run with the load average) and OUT/summary.md: per problem and
# variant the median over rounds, GFLOP/s of the GEMM (2 M N K) and its
# fraction of the probed peak of the unit the variant uses, and the ratio
# to fp32.  Needs a CPU with AMX and the tile permission for the amx rows
# (else they fail to verify and say so).  Never fails on timings.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
rounds=${1:-3}
out=${2:-$top/bench/results/cpu-amx-$(hostname -s)-$(date -u +%Y-%m-%d)}
shift $(( $# > 2 ? 2 : $# ))
probs=("$@")
[ ${#probs[@]} -gt 0 ] || probs=("$top/problems/level2/09_Matmul_Subtract_Multiply_ReLU.json"
                                 "$top/problems/level2/12_Gemm_Multiply_LeakyReLU.json"
                                 "$top/problems/level2/99_Matmul_GELU_Softmax.json")
KFORGE=${KFORGE:-$top/core/kforge}
preset=${PRESET:-cpu}
mkdir -p "$out/runs"
if [ "$rounds" -gt 0 ]; then   # ROUNDS 0: only the summary of OUT/runs.txt again
{
    echo "date: $(date -u '+%Y-%m-%d %H:%M UTC')"
    echo "commit: $(git -C "$top" rev-parse --short HEAD)$(git -C "$top" diff --quiet HEAD -- core plugins || echo ' (with uncommitted changes)')"
    echo "threads: ${KFORGE_THREADS:-all cores ($(nproc))}"
    "$KFORGE" backends | sed -n '/^cpu-simd/,/^$/p' | grep -E 'device|peak|ISA'
} > "$out/machine.txt"
: > "$out/runs.txt"
for r in $(seq 1 "$rounds"); do
    for p in "${probs[@]}"; do
        name=$(basename "$p" .json)
        for v in fp32 bf16 amx amx384; do
            case $v in
            fp32) agent=builtin ;;
            bf16) agent='builtin:{"precision":3}' ;;
            amx) agent='builtin:{"precision":5,"mr":32,"nr":32,"kc":4096,"mc":128}' ;;
            amx384) agent='builtin:{"precision":5,"mr":32,"nr":32,"kc":384,"mc":128}' ;;
            esac
            d="$out/runs/${name%%_*}-$v-r$r"
            rm -rf "$d"
            load=$(cut -d' ' -f1 /proc/loadavg)
            "$KFORGE" run "$p" --backend cpu-simd --preset "$preset" --agent "$agent" --max-iterations 1 \
                --no-baseline --quiet --out "$d" > "$d.log" 2>&1
            echo "$name $v r$r load $load $("${PYTHON3:-python3}" -c '
import json, sys
try:
    b = json.load(open(sys.argv[1])).get("best") or {}
    print("median_ms %.3f verified %s" % ((b.get("median_s") or 0) * 1e3, b.get("verified")))
except (OSError, ValueError):
    print("median_ms 0 verified none")' "$d/result.json")" >> "$out/runs.txt"
        done
    done
done
fi
"${PYTHON3:-python3}" - "$out" "$preset" "$KFORGE" "${probs[@]}" <<'EOF' > "$out/summary.md"
import json, statistics, subprocess, sys
out, preset, kforge, probs = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
be = json.loads(subprocess.run([kforge, "backends", "--json"], capture_output=True, text=True).stdout)
dev = [p for p in be["plugins"] if p["name"] == "cpu-simd"][0]["devices"][0]
peaks = {"fp32": dev["peak_gflops"], "bf16": dev.get("peak_gflops_bf16", 0),
         "amx": dev.get("peak_gflops_amx_bf16", 0), "amx384": dev.get("peak_gflops_amx_bf16", 0)}
unit = {"fp32": "FMA", "bf16": "vdpbf16ps", "amx": "AMX", "amx384": "AMX"}
runs = {}
for line in open(out + "/runs.txt"):
    w = line.split()
    if w[8] == "True" and float(w[6]) > 0:
        runs.setdefault((w[0], w[1]), []).append(float(w[6]))
print("| problem | variant | median ms | runs | GEMM GFLOP/s | of the %s peak | vs fp32 |" % "unit's")
print("|---|---|---|---|---|---|---|")
for p in probs:
    pj = json.load(open(p))
    pj["name"] = p.rsplit("/", 1)[-1][:-len(".json")]   # runs.txt names problems by file
    d = pj["presets"][preset]
    flops = 2.0 * d.get("B", d.get("M", 0)) * d["N"] * d["K"]
    base = statistics.median(runs[(pj["name"], "fp32")]) if (pj["name"], "fp32") in runs else 0
    for v in ("fp32", "bf16", "amx", "amx384"):
        t = runs.get((pj["name"], v))
        if not t:
            print("| %s | %s | no verified run | 0 | | | |" % (pj["name"], v))
            continue
        m = statistics.median(t)
        g = flops / m / 1e6
        frac = "%.1f%% (%s %.0f)" % (100 * g / peaks[v], unit[v], peaks[v]) if peaks[v] > 0 else "-"
        print("| %s | %s | %.1f | %d | %.0f | %s | %s |" % (pj["name"], v, m, len(t), g, frac,
                                                        "%.2fx" % (base / m) if base else "-"))
EOF
cat "$out/summary.md"
