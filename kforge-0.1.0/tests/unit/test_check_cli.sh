#!/bin/sh
# test_check_cli.sh — `kforge check` end to end (TAP): a good problem prints
# its FLOP count and exits 0; bad ones exit 2 with "FILE: PATH: message" on
# stderr; --json parses back; usage errors exit 2.
KFORGE=${KFORGE:-./core/kforge}
PYTHON3=${PYTHON3:-python3}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kfcheck.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
n=0
fails=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
notok() { n=$((n + 1)); echo "not ok $n - $1"; fails=$((fails + 1)); }
check() { if eval "$2"; then ok "$1"; else notok "$1"; sed 's/^/# /' "$tmp/out" "$tmp/err"; fi; }

echo "1..22"

cat > "$tmp/good.json" <<'JSON'
{
  "name": "linear_relu", "level": 2, "description": "x @ W^T + b, minus 2, ReLU",
  "dims": ["B", "K", "N"],
  "presets": {"small": {"B": 127, "K": 250, "N": 333}, "big": {"B": 1024, "K": 8192, "N": 8192}},
  "inputs": [
    {"name": "x", "shape": ["B", "K"]},
    {"name": "W", "shape": ["N", "K"], "init": {"dist": "kaiming_uniform", "fan_in": "K"}},
    {"name": "b", "shape": ["N"], "init": {"dist": "kaiming_uniform", "fan_in": "K"}}
  ],
  "graph": [
    {"out": "h", "op": "linear", "in": ["x", "W", "b"]},
    {"out": "h1", "op": "sub", "in": ["h", 2.0]},
    {"out": "y", "op": "relu", "in": ["h1"]}
  ],
  "outputs": ["y"]
}
JSON
# FLOPs small: 2*127*333*250 + 127*333 (bias) + 2*127*333 = 21272373
"$KFORGE" check "$tmp/good.json" > "$tmp/out" 2> "$tmp/err"; rc=$?
check "good problem exits 0" '[ $rc -eq 0 ]'
check "FLOP count printed" 'grep -q "^FLOPs .*(21272373)" "$tmp/out"'
check "min bytes printed" 'grep -q "^min bytes .*(630496)" "$tmp/out"'
check "graph line with shape" 'grep -q "h1 = sub(h, 2) .*-> \[127, 333\]" "$tmp/out"'
check "roofline section" 'grep -q "^roofline floor" "$tmp/out"'

"$KFORGE" check --preset big "$tmp/good.json" > "$tmp/out" 2> "$tmp/err"; rc=$?
check "--preset big dims" '[ $rc -eq 0 ] && grep -q "B=1024 K=8192 N=8192" "$tmp/out"'

"$KFORGE" check "$tmp/good.json" --json > "$tmp/out" 2> "$tmp/err"; rc=$?
check "--json exits 0" '[ $rc -eq 0 ]'
check "--json parses" '"$PYTHON3" -c "import json,sys; json.load(sys.stdin)" < "$tmp/out"'
check "--json facts" '"$PYTHON3" -c "
import json,sys
d = json.load(sys.stdin)
assert d[\"flops\"] == 21272373, d[\"flops\"]
assert d[\"min_bytes\"] == 630496
assert d[\"dims\"] == {\"B\": 127, \"K\": 250, \"N\": 333}
assert d[\"graph\"][1][\"in\"] == [\"h\", 2.0]
assert d[\"outputs\"] == [{\"name\": \"y\", \"shape\": [127, 333]}]
assert isinstance(d[\"devices\"], list)
" < "$tmp/out"'

sed 's/"relu"/"rleu"/' "$tmp/good.json" > "$tmp/bad_op.json"
"$KFORGE" check "$tmp/bad_op.json" > "$tmp/out" 2> "$tmp/err"; rc=$?
check "unknown op exits 2" '[ $rc -eq 2 ]'
check "unknown op message on stderr" 'grep -q "bad_op.json: graph\[2\].op: unknown op .rleu. (did you mean .relu.?)" "$tmp/err"'

sed 's/"N": 333/"N": -3/' "$tmp/good.json" > "$tmp/bad_preset.json"
"$KFORGE" check "$tmp/bad_preset.json" > "$tmp/out" 2> "$tmp/err"; rc=$?
check "bad preset exits 2 with path" '[ $rc -eq 2 ] && grep -q "bad_preset.json: presets.small.N: must be a positive integer, got -3" "$tmp/err"'

"$KFORGE" check --preset nope "$tmp/good.json" > "$tmp/out" 2> "$tmp/err"; rc=$?
check "unknown preset exits 2" '[ $rc -eq 2 ] && grep -q "no preset .nope. (this problem has: small, big)" "$tmp/err"'

# a FIFO with no writer: refused at once (the old fopen blocked forever)
mkfifo "$tmp/fifo.json"
timeout 10 "$KFORGE" check "$tmp/fifo.json" > "$tmp/out" 2> "$tmp/err"; rc=$?
check "FIFO returns promptly" '[ $rc -ne 124 ]'
check "FIFO exits 2 naming the file" '[ $rc -eq 2 ] && grep -q "fifo.json: not a regular file (a FIFO)" "$tmp/err"'
"$KFORGE" check "$tmp" > "$tmp/out" 2> "$tmp/err"; rc=$?
check "directory exits 2: not a regular file" '[ $rc -eq 2 ] && grep -q "not a regular file (a directory)" "$tmp/err"'

# a 350k-node graph: value lookups were linear while parsing (quadratic in
# all: 10 s at 50k nodes, ~25 min at 350k); now hashed, ~1.4 s at 350k here
python3 - "$tmp/chain.json" <<'PY'
import json, sys
n = 350000
g = [{"out": "v%x" % i, "op": "relu", "in": ["v%x" % (i - 1) if i else "x"]} for i in range(n)]
json.dump({"name": "chain", "level": 1, "dims": ["N"], "presets": {"small": {"N": 4}},
           "inputs": [{"name": "x", "shape": ["N"], "dtype": "float32",
                       "init": {"dist": "uniform", "low": -1.0, "high": 1.0}}],
           "graph": g, "outputs": ["v%x" % (n - 1)], "tolerance": {"atol": 1e-4, "rtol": 1e-4, "rel_l2": 1e-4}},
          open(sys.argv[1], "w"), separators=(",", ":"))
PY
timeout 120 "$KFORGE" check "$tmp/chain.json" > "$tmp/out" 2> "$tmp/err"; rc=$?
check "a 350k-node graph is checked in under 2 minutes (also under ASan)" '[ $rc -eq 0 ]'

# trivial predictors: problem 9's output is all zeros at its presets (x in
# [0,1), kaiming weights: x W^T + b - 2 < 0 always), so every trivial
# predictor passes; problem 12's does not let any pass
"$KFORGE" check "$KF_SRCDIR/problems/level2/09_Matmul_Subtract_Multiply_ReLU.json" > "$tmp/out" 2> "$tmp/err"; rc=$?
check "check warns which trivial predictor passes" '[ $rc -eq 0 ] && grep -q "output y: the trivial predictor .zero. passes" "$tmp/err" && grep -q "predictor .mean. passes" "$tmp/err"'
"$KFORGE" check "$KF_SRCDIR/problems/level2/12_Gemm_Multiply_LeakyReLU.json" > "$tmp/out" 2> "$tmp/err"; rc=$?
check "no warning where none passes" '[ $rc -eq 0 ] && ! grep -q "trivial predictor" "$tmp/err" && grep -q "trivial predictors  none passes" "$tmp/out"'
"$KFORGE" check --json "$KF_SRCDIR/problems/level2/09_Matmul_Subtract_Multiply_ReLU.json" > "$tmp/out" 2> "$tmp/err"; rc=$?
check "--json lists them" '[ $rc -eq 0 ] && python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert {t[\"predictor\"] for t in d[\"trivial_predictors\"]} >= {\"zero\", \"mean\"}" "$tmp/out"'

timeout 60 "$KFORGE" check --preset kernelbench "$KF_SRCDIR/problems/level2/12_Gemm_Multiply_LeakyReLU.json" > "$tmp/out" 2> "$tmp/err"; rc=$?
check "kernelbench sizes skip the predictors unless --trivial" '[ $rc -eq 0 ] && grep -q "trivial predictors  not tested at this size" "$tmp/out"'

"$KFORGE" check > "$tmp/out" 2> "$tmp/err"; rc=$?
check "no file exits 2 with usage" '[ $rc -eq 2 ] && grep -q "usage: kforge check" "$tmp/err"'

[ $fails -eq 0 ]
