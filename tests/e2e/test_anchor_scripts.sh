#!/bin/bash
# The anchor scripts of bench/anchors with the Python that has their
# dependencies: ort_anchors.py (ONNX Runtime, CPU) through
# test_ort_anchors.py with $KFORGE_ORT_PYTHON (else $PYTHON3) where it imports
# onnxruntime, onnx and numpy; torch_anchors.py (its CPU mode, and the numpy
# check of ort_anchors.py against it) through test_torch_anchors.py with
# $KFORGE_PYTHON (else $PYTHON3) where it imports torch and numpy.  A case
# whose Python lacks them is skipped, saying so (failed under KF_TEST_STRICT=1,
# as in CI, where .ci/install-deps makes the test venv $KF_TEST_DEPS/torch-venv
# with all four, used when the variables are unset).  bench/cpu/run_cpu_anchors.sh's
# bad arguments need neither.
set -u
. "$KF_SRCDIR/tests/e2e/tap.sh"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
echo "1..4"
skip() { n=$((n+1)); if [ "${KF_TEST_STRICT:-0}" = 1 ]; then echo "not ok $n - $1 # missing: $2"; fails=$((fails+1));
         else echo "ok $n - $1 # SKIP $2"; fi; }
venv_py=${KF_TEST_DEPS:-$HOME/.cache/kforge/test-deps}/torch-venv/bin/python
[ -x "$venv_py" ] || venv_py=${PYTHON3:-python3}
py_case() {   # NAME PYTHON MODULES SCRIPT
    local name=$1 py=$2 mods=$3 script=$4
    if ! "$py" -c "import $mods" >/dev/null 2>&1; then
        skip "$name" "$py cannot import $mods (pip install them, or set the variable to a Python that has them)"
        return
    fi
    if "$py" "$KF_SRCDIR/bench/anchors/$script" >"$tmp/out" 2>&1 && grep -q '^OK' "$tmp/out"; then ok "$name"
    else no "$name" "$(tail -n 30 "$tmp/out")"; fi
}
py_case "ort_anchors.py: every problem matches numpy, ops, errors, the anchors file" \
    "${KFORGE_ORT_PYTHON:-$venv_py}" "onnxruntime, onnx, numpy" test_ort_anchors.py
py_case "torch_anchors.py: op semantics, --device cpu --threads, numpy check == torch" \
    "${KFORGE_PYTHON:-$venv_py}" "torch, numpy" test_torch_anchors.py

script="$KF_SRCDIR/bench/cpu/run_cpu_anchors.sh"
KFORGE="$KFORGE" "$script" --nope >"$tmp/o1" 2>&1; rc=$?
[ $rc -eq 2 ] && grep -q "unknown option '--nope'" "$tmp/o1" && ok "run_cpu_anchors.sh: an unknown option exits 2" \
    || no "run_cpu_anchors.sh: an unknown option exits 2" "exit $rc" "$(cat "$tmp/o1")"
KFORGE="$KFORGE" "$script" --tool torch --python "$tmp/no-python" --out "$tmp/r" >"$tmp/o2" 2>&1; rc=$?
[ $rc -eq 2 ] && grep -q "cannot import torch" "$tmp/o2" && [ ! -e "$tmp/r/anchors.json" ] \
    && ok "run_cpu_anchors.sh: a Python without the tool exits 2 before measuring anything" \
    || no "run_cpu_anchors.sh: a Python without the tool exits 2" "exit $rc" "$(cat "$tmp/o2")"
tap_exit
