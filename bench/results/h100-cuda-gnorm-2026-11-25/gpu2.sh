# s23-gnorm GPU call 2 (inside bench/gpu/run_gpu_suite.sh MODE=exec)
T0=$(date +%s); el() { echo "== $(( $(date +%s) - T0 ))s $*"; }
L=problems/level2; A=bench/results/h100-anchors-2026-11-24/anchors.json
run1() {  # name problem preset point seconds
    el "run $1"
    timeout $5 kforge run $L/$2.json --backend cuda --preset $3 --no-baseline --agent "builtin:$4" \
        --max-iterations 1 --max-time 60 --target 0 --out $OUT/r/$1 2>&1 | grep -E '^\[|rror' | head -n 8
}
el "suite"
timeout ${SUITE_TIME:-140} kforge suite $L/41_Gemm_BatchNorm_GELU_ReLU.json --backend cuda --preset kernelbench \
    --max-iterations 2 --max-time 60 --report $OUT/suite --anchors $A --no-baseline 2>&1 | tail -n 8
cat $OUT/suite/report.md 2>/dev/null | grep -E '^\|' | head -n 8
for r in $OUT/suite/runs/*/steps/*/eval.json; do [ -f "$r" ] && python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(sys.argv[1].split("/runs/")[1], (d.get("summary") or "")[:200])' "$r"; done 2>&1 | head -n 6
left=$(( ${BUDGET:-150} - ($(date +%s) - T0) )); el "left $left s"
[ $left -gt 25 ] && run1 62kb-tf32-bn256 62_Matmul_GroupNorm_LeakyReLU_Sum kernelbench '{"precision":2,"tc_bn":256}' $((left - 3))
left=$(( ${BUDGET:-150} - ($(date +%s) - T0) )); el "left $left s"
[ $left -gt 25 ] && run1 12kb-tf32 12_Gemm_Multiply_LeakyReLU kernelbench '{"precision":2}' $((left - 3))
cd $OUT && tar czf runs2.tgz r suite 2>/dev/null; rm -rf $OUT/r $OUT/suite; el done
