#!/bin/bash
# bf16 inputs on vdpbf16ps in the cpu-simd backend (precision 3 of the C
# emitter): candidates from bf16 points verify at the `small` preset, whose
# sizes (127 x 250 -> 333; problem 08: 127 x 93 @ 93 x 171) leave edges in
# every direction: rows past the last MR-row panel, columns past the last
# NR-column panel, depth blocks whose pair count is no multiple of 16 (the
# vector packers' masked tails) and odd depth blocks (a pair whose high half
# is zero), the three loop orders, the three fusions, and B both as nn.Linear
# weights (N x K: packed through the 16 x 16 transpose) and as K x N (two k
# rows interleaved).  Each run's eval.json must say compute_unit 1 (vdpbf16ps)
# and take the bf16 peak for its roofline.
#
# Where the CPU lacks AVX512_BF16 (or AVX512BW) every case is skipped, saying
# so, and fails under KF_TEST_STRICT=1.
set -u
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
. "$KF_SRCDIR/tests/e2e/tap.sh"
export XDG_CACHE_HOME="$tmp/cache"
p12="$KF_SRCDIR/problems/level2/12_Gemm_Multiply_LeakyReLU.json"
p99="$KF_SRCDIR/problems/level2/99_Matmul_GELU_Softmax.json"
p09="$KF_SRCDIR/problems/level2/09_Matmul_Subtract_Multiply_ReLU.json"
p08="$KF_SRCDIR/problems/level1/08_Matmul_with_irregular_shapes.json"
# name problem point
cases=(
    "rows fused, 12x32, kc 384 (K=250: 125 pairs, 7 blocks of 16 + 13)|$p12|{\"fusion\":2,\"precision\":3,\"mr\":12,\"nr\":32,\"kc\":384,\"mc\":96,\"nc\":256,\"loop_order\":0}"
    "epilogue fused, column-block order, 8x16, kc 97 (odd depth blocks)|$p99|{\"fusion\":1,\"precision\":3,\"mr\":8,\"nr\":16,\"kc\":97,\"mc\":64,\"nc\":128,\"loop_order\":1}"
    "unfused, 12x32, kc 40 (the last block 10 deep)|$p09|{\"fusion\":0,\"precision\":3,\"mr\":12,\"nr\":32,\"kc\":40,\"mc\":64,\"nc\":64,\"loop_order\":0}"
    "B as K x N (matmul 127x93 @ 93x171), 4x48, kc 33|$p08|{\"fusion\":2,\"precision\":3,\"mr\":4,\"nr\":48,\"kc\":33,\"mc\":64,\"nc\":96,\"loop_order\":0}"
    "B as K x N, 6x64, kc 384 (all of K=93 in one block: 47 pairs, the last half zero)|$p08|{\"fusion\":2,\"precision\":3,\"mr\":6,\"nr\":64,\"kc\":384,\"mc\":96,\"nc\":256,\"loop_order\":1}"
    "epilogue fused, skinny order (NR panels in runs), 12x32, kc 96|$p12|{\"fusion\":1,\"precision\":3,\"mr\":12,\"nr\":32,\"kc\":96,\"mc\":64,\"nc\":128,\"loop_order\":2}"
)
echo "1..$((2 * ${#cases[@]}))"

if ! grep -qw avx512_bf16 /proc/cpuinfo || ! grep -qw avx512bw /proc/cpuinfo; then
    why="this CPU does not report avx512_bf16 and avx512bw"
    for c in "${cases[@]}"; do
        for t in "verifies" "vdpbf16ps unit and bf16 peak in eval.json"; do
            n=$((n + 1))
            if [ "${KF_TEST_STRICT:-0}" = 1 ]; then echo "not ok $n - ${c%%|*}: $t # missing: $why"; fails=$((fails + 1))
            else echo "ok $n - ${c%%|*}: $t # SKIP $why"; fi
        done
    done
    tap_exit
fi

# the bf16 peak the listing shows (the cached one): a run measures the peaks
# again and keeps the larger, so its roofline is the cache's right after it
cached_bf16_peak() {
    "$KFORGE" backends --json 2>/dev/null | "$PYTHON3" -c '
import json, sys
for b in json.load(sys.stdin)["plugins"]:
    if b.get("name") == "cpu-simd": print(b["devices"][0].get("peak_gflops_bf16", 0) * 1e9)'
}

i=0
for c in "${cases[@]}"; do
    i=$((i + 1))
    IFS='|' read -r name prob point <<< "$c"
    out="$tmp/run$i"
    "$KFORGE" run "$prob" --backend cpu-simd --preset small --agent "builtin:$point" --out "$out" --no-baseline \
        --max-iterations 1 > "$tmp/log$i" 2>&1
    rc=$?
    if [ $rc -eq 0 ] && grep -q ' bf16' "$tmp/log$i" && grep -q 'functional   pass' "$tmp/log$i"; then
        ok "$name: verifies"
    else
        no "$name: verifies" "exit $rc" "$(tail -n 12 "$tmp/log$i")" "$(head -c 1500 "$out"/steps/0001-0/eval.json 2>/dev/null)"
    fi
    res=$("$PYTHON3" -c '
import json, sys
e = json.load(open(sys.argv[1]))
unit = e["timing"]["counters"].get("compute_unit")
peak = e["roofline"]["peak_flops"]
want = float(sys.argv[2])
print("ok" if unit == 1 and want > 0 and abs(peak - want) <= 1e-6 * want
      else "unit %s, roofline peak %s, bf16 peak %s" % (unit, peak, want))
' "$out/steps/0001-0/eval.json" "$(cached_bf16_peak)" 2>&1)
    [ "$res" = ok ] && ok "$name: vdpbf16ps unit and bf16 peak in eval.json" || no "$name: vdpbf16ps unit and bf16 peak in eval.json" "$res"
done
tap_exit
