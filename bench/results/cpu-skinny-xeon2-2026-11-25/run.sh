#!/bin/bash
# run.sh BEFORE_KFORGE AFTER_KFORGE OUT [ROUNDS] — the record of this directory:
# for each problem, the built-in agent's first (default) candidate at the cpu
# preset as the BEFORE and the AFTER build write it (kforge run
# --max-iterations 1 --no-baseline), then ROUNDS rounds, each: PyTorch CPU
# eager at 2 threads (bench/anchors/torch_anchors.py, one call for all the
# problems), then per problem `kforge profile` of the before and the after
# candidate, interleaved (the after first in even rounds).  KFORGE_THREADS=2.  Writes OUT/results.tsv
# (round, problem, what, median_s) and OUT/gen-*.log.  The Python with torch:
# $KFORGE_PYTHON.
set -u
before=$1 after=$2 out=$3 rounds=${4:-3}
top=$(cd "$(dirname "$0")/../../.." && pwd)
py=${KFORGE_PYTHON:-python3}
probs="14_Gemm_Divide_Sum_Scaling 29_Matmul_Mish_Mish 56_Matmul_Sigmoid_Sum 59_Matmul_Swish_Scaling 63_Gemm_ReLU_Divide 68_Matmul_Min_Subtract"
export KFORGE_THREADS=2
mkdir -p "$out"
for p in $probs; do
    for w in before after; do
        k=$before; [ $w = after ] && k=$after
        rm -rf "$out/run-$w-$p"
        "$k" run "$top/problems/level2/$p.json" --backend cpu-simd --preset cpu --max-iterations 1 --no-baseline \
            --out "$out/run-$w-$p" > "$out/gen-$w-$p.log" 2>&1
    done
done
printf 'round\tproblem\twhat\tmedian_s\n' > "$out/results.tsv"
files=""; for p in $probs; do files="$files $top/problems/level2/$p.json"; done
for r in $(seq 1 "$rounds"); do
    "$py" "$top/bench/anchors/torch_anchors.py" "$out/torch-$r.json" $files --device cpu --threads 2 --no-compile \
        --reps 10 --warmup 3 > "$out/torch-$r.out" 2>&1
    "$py" -c '
import json, sys
d = json.load(open(sys.argv[1]))
for name, v in d["problems"].items():
    if v.get("eager_ms"): print("%s\t%s\ttorch-eager\t%.6g" % (sys.argv[2], name, v["eager_ms"] * 1e-3))
' "$out/torch-$r.json" "$r" >> "$out/results.tsv" 2>>"$out/torch-$r.out"
    order="before after"; [ $((r % 2)) -eq 0 ] && order="after before"   # alternate who goes first
    for p in $probs; do
        for w in $order; do
            c="$out/run-$w-$p/steps/0001-0/candidate"
            "$after" profile --backend cpu-simd --problem "$top/problems/level2/$p.json" --preset cpu --json "$c" \
                > "$out/prof.json" 2>/dev/null
            "$py" -c '
import json, sys
d = json.load(open(sys.argv[1]))
t = d.get("timing", {}).get("median_s", 0) if d.get("verdict") == "pass" else 0
print("%s\t%s\t%s\t%.6g" % (sys.argv[2], sys.argv[3], sys.argv[4], t))
' "$out/prof.json" "$r" "$p" "$w" >> "$out/results.tsv" 2>/dev/null || printf '%s\t%s\t%s\t0\n' "$r" "$p" "$w" >> "$out/results.tsv"
        done
    done
done
rm -f "$out/prof.json"
