#!/bin/bash
# tests/e2e/test_vocab_cli.sh — the vocabulary gaps of issue 12 through the
# CLI: a problem with shape ops and one with (N, C, H, W) norms reach a
# verified kernel with `kforge run --backend cpu-simd` (built-in agent);
# an output that views an input (a copy kernel) too; a bad view and a
# C-reference problem whose output shape is not declared are refused with
# exit 2 and a message naming the node or output; the built-in agent's
# refusal of a problem with only a C reference ends the run without a
# kernel (exit 1) and says why.
set -u
V="$KF_SRCDIR/tests/vocab"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
. "$KF_SRCDIR/tests/e2e/tap.sh"
echo "1..8"

for p in shape_ops norms_4d; do
    "$KFORGE" run "$V/$p.json" --backend cpu-simd --preset small --max-iterations 2 --no-baseline \
        --out "$tmp/run_$p" --quiet >"$tmp/log" 2>&1
    rc=$?
    if [ $rc -eq 0 ] && grep -q '"verified":true' "$tmp/run_$p/result.json"; then
        ok "$p: kforge run --backend cpu-simd reaches a verified kernel"
    else no "$p: kforge run reaches a verified kernel" "exit $rc" "$(tail -n 5 "$tmp/log")"; fi
done

"$KFORGE" check "$V/shape_ops.json" --no-trivial >"$tmp/out" 2>&1
"$KFORGE" check "$V/shape_ops.json" --no-trivial --json >"$tmp/json" 2>&1
grep -q 'm2 = unsqueeze(m, dim=-1) *-> \[33, 1\]' "$tmp/out" && grep -q 't3 = view(t, shape=\["B",2,-1\]) *-> \[33, 2, 24\]' "$tmp/out" &&
"$PYTHON3" -c '
import json, sys
g = {n["out"]: n for n in json.load(open(sys.argv[1]))["graph"]}
assert g["t3"]["attrs"] == {"shape": ["B", 2, -1]} and g["t3"]["shape"] == [33, 2, 24], g["t3"]
assert g["y"]["attrs"] == {"start_dim": 0, "end_dim": -1} and g["y"]["shape"] == [792], g["y"]' "$tmp/json" \
    && ok "kforge check (text and --json) describes the shape ops" || no "kforge check describes the shape ops" "$(cat "$tmp/out" "$tmp/json")"

sed 's/"shape": \["B", 2, -1\]/"shape": ["B", 5, -1]/' "$V/shape_ops.json" >"$tmp/bad_view.json"
"$KFORGE" check "$tmp/bad_view.json" >"$tmp/out" 2>&1
rc=$?
[ $rc -eq 2 ] && grep -q 'graph\[7\].shape: cannot view t \[33, 48\] (1584 elements) as \["B",5,-1\]: 1584 is not a multiple of 165' "$tmp/out" \
    && ok "a view whose sizes do not divide: exit 2 naming the node" || no "bad view refused" "exit $rc" "$(cat "$tmp/out")"

cat >"$tmp/view_input.json" <<'J'
{"name": "view_input", "dims": ["N"], "presets": {"small": {"N": 6}},
 "inputs": [{"name": "x", "shape": ["N"]}],
 "graph": [{"out": "e", "op": "exp", "in": ["x"]}, {"out": "y", "op": "view", "in": ["x"], "shape": [2, -1]}],
 "outputs": ["e", "y"]}
J
"$KFORGE" run "$tmp/view_input.json" --backend cpu-simd --preset small --max-iterations 1 --no-baseline --out "$tmp/run_vi" >"$tmp/out" 2>&1
rc=$?
[ $rc -eq 0 ] && grep -q '"verified":true' "$tmp/run_vi/result.json" \
    && ok "an output viewing an input (a copy): verified kernel" || no "output viewing an input" "exit $rc" "$(tail -n 5 "$tmp/out")"

"$KFORGE" check "$V/cref_rowsum.json" --no-trivial >"$tmp/out" 2>&1
rc=$?
[ $rc -eq 0 ] && grep -q '^  y  *\[4\]' "$tmp/out" \
    && ok "a C-reference problem declares its output's shape" || no "declared output shape" "exit $rc" "$(cat "$tmp/out")"

sed 's/{"name": "y", "shape": \["B"\]}/"y"/' "$V/cref_rowsum.json" >"$tmp/cref_bad.json"
"$KFORGE" check "$tmp/cref_bad.json" >"$tmp/out" 2>&1
rc=$?
[ $rc -eq 2 ] && grep -q "outputs\[0\]: 'y' is not an input, and a problem given by a C reference alone has no graph to infer its shape from: declare it as" "$tmp/out" \
    && ok "an undeclared output of a C-reference problem: exit 2 naming it" || no "undeclared C-reference output refused" "exit $rc" "$(cat "$tmp/out")"

"$KFORGE" run "$V/cref_rowsum.json" --backend cpu-simd --preset small --max-iterations 1 --out "$tmp/run_cr" >"$tmp/out" 2>&1
rc=$?
[ $rc -eq 1 ] && grep -q "the builtin agent needs an op graph" "$tmp/out" \
    && ok "a C-reference problem: the built-in agent refuses, no kernel (exit 1)" || no "C-reference problem with the built-in agent" "exit $rc" "$(tail -n 5 "$tmp/out")"
tap_exit
