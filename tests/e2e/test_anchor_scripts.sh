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
# bad arguments need neither; bench/anchors/faster_anchors.py needs only
# Python; a whole small record of run_cpu_anchors.sh (ORT anchors before and
# after a one-problem suite, the reports against both and the faster) needs
# the ORT Python; its --paired step (bench/cpu/paired_anchors.py: the suite's
# best kernels and PyTorch eager timed side by side) the torch one, and
# paired_anchors.py killed mid-round must leave the pairs it finished;
# its --tool stream (stream_bw beside each kernel) gives the stream's kind and
# rate per round and refuses to start without the stream_bw binary.
# bench/cpu/peak_concurrent.c (the FMA and AMX rates of
# threads running at once) builds and gives one thread a positive rate of
# each unit the CPU reports (AMX with zero and with random tiles).
set -u
. "$KF_SRCDIR/tests/e2e/tap.sh"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
echo "1..14"
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

# faster_anchors.py: per problem the faster of two measurements, saying which
fa="$KF_SRCDIR/bench/anchors/faster_anchors.py"
cat > "$tmp/a.json" <<'J'
{"tool": "onnxruntime", "preset": "cpu", "device": "cpu", "problems": {"p1": {"eager_ms": 2.0, "best_ms": 2.0},
 "p2": {"eager_ms": 5.0, "best_ms": 5.0}, "p3": {"error": "not supported"}}}
J
cat > "$tmp/b.json" <<'J'
{"tool": "onnxruntime", "preset": "cpu", "device": "cpu", "problems": {"p1": {"eager_ms": 3.0, "best_ms": 3.0},
 "p2": {"eager_ms": 4.0, "best_ms": 4.0}, "p4": {"eager_ms": 1.0, "best_ms": 1.0}}}
J
sed 's/"preset": "cpu"/"preset": "small"/' "$tmp/b.json" > "$tmp/c.json"
"${PYTHON3:-python3}" "$fa" "$tmp/m.json" "$tmp/a.json" "$tmp/b.json" > "$tmp/o3" 2>&1; rc=$?
"${PYTHON3:-python3}" "$fa" "$tmp/m2.json" "$tmp/a.json" "$tmp/c.json" > "$tmp/o4" 2>&1; rc2=$?
res=$("${PYTHON3:-python3}" -c '
import json, sys
p = json.load(open(sys.argv[1]))["problems"]
ok = (p["p1"]["best_ms"] == 2.0 and p["p1"]["measured"] == "A" and p["p2"]["best_ms"] == 4.0 and
      p["p2"]["measured"] == "B" and p["p2"]["best_ms_a"] == 5.0 and p["p3"] == {"error": "not supported"} and
      p["p4"]["best_ms"] == 1.0)
print("ok" if ok else json.dumps(p))' "$tmp/m.json" 2>&1)
[ $rc -eq 0 ] && [ "$res" = ok ] && [ $rc2 -eq 2 ] && grep -q "preset differs" "$tmp/o4" && [ ! -e "$tmp/m2.json" ] \
    && ok "faster_anchors.py: the faster entry per problem, which one, and files of other presets refused" \
    || no "faster_anchors.py: the faster entry per problem, which one, and files of other presets refused" \
          "exit $rc/$rc2: $res" "$(cat "$tmp/o3" "$tmp/o4")"

# a whole small record: ORT anchors before and after a one-problem suite
ortpy=${KFORGE_ORT_PYTHON:-$venv_py}
name="run_cpu_anchors.sh: anchors after the suite, the reports against them and the faster per problem"
if ! "$ortpy" -c "import onnxruntime, onnx, numpy" >/dev/null 2>&1; then
    skip "$name" "$ortpy cannot import onnxruntime, onnx, numpy"
    skip "run_cpu_anchors.sh --no-anchors-after: the before-only record" "$ortpy cannot import onnxruntime, onnx, numpy"
    skip "run_cpu_anchors.sh stopped by TERM mid-suite: the suite's processes end with it" "$ortpy cannot import onnxruntime, onnx, numpy"
else
    p12="$KF_SRCDIR/problems/level2/12_Gemm_Multiply_LeakyReLU.json"
    KFORGE="$KFORGE" "$script" --tool ort --python "$ortpy" --threads 2 --preset small --reps 3 --warmup 1 \
        --out "$tmp/rec" --suite-dir "$tmp/suite" "$p12" -- --max-iterations 1 --no-baseline > "$tmp/o5" 2>&1; rc=$?
    lines=$(grep -c '^    against ' "$tmp/rec/record.md" 2>/dev/null)
    if [ $rc -eq 0 ] && [ "${lines:-0}" -ge 3 ] && [ -s "$tmp/rec/anchors-after.json" ] &&
       grep -q '"measured"' "$tmp/rec/anchors-faster.json" && grep -q 'after the suite' "$tmp/rec/record.md" &&
       [ -s "$tmp/rec/report-anchors-faster.md" ] && [ -s "$tmp/rec/report-anchors-after.json" ] &&
       grep -q "$tmp/rec/anchors.json" "$tmp/suite/report.json" && ! grep -q 'anchors-faster' "$tmp/suite/report.json"; then
        ok "$name"
    else
        no "$name" "exit $rc, $lines against-lines" "$(ls "$tmp/rec"; tail -n 8 "$tmp/rec/record.md" "$tmp"/rec/report-anchors-*.out 2>&1)"
    fi
    KFORGE="$KFORGE" "$script" --tool ort --python "$ortpy" --threads 2 --preset small --reps 3 --warmup 1 --no-anchors-after \
        --out "$tmp/rec2" --suite-dir "$tmp/suite2" "$p12" -- --max-iterations 1 --no-baseline > "$tmp/o6" 2>&1; rc=$?
    [ $rc -eq 0 ] && [ -s "$tmp/rec2/report.md" ] && [ ! -e "$tmp/rec2/anchors-after.json" ] \
        && ok "run_cpu_anchors.sh --no-anchors-after: the before-only record" \
        || no "run_cpu_anchors.sh --no-anchors-after: the before-only record" "exit $rc" "$(tail -n 8 "$tmp/o6")" \
              "$(tail -n 30 "$tmp"/suite2/logs/*.log "$tmp"/suite2/runs/*/steps/*/eval.json 2>&1)"
    # a TERM to the script (a `timeout` around it) while the suite runs: the
    # suite's processes (here a kforge whose suite leaves a child sleeping)
    # end with the script instead of running on beside what comes next
    name4="run_cpu_anchors.sh stopped by TERM mid-suite: the suite's processes end with it"
    printf '#!/bin/sh\ncase "$1" in\nsuite) sleep 300 & echo $! > "%s/suite-child"; wait ;;\n*) exec "%s" "$@" ;;\nesac\n' \
        "$tmp" "$KFORGE" > "$tmp/kf-hang" && chmod +x "$tmp/kf-hang"
    KFORGE="$tmp/kf-hang" "$script" --tool ort --python "$ortpy" --threads 2 --preset small --reps 3 --warmup 1 --no-anchors-after \
        --out "$tmp/rec4" --suite-dir "$tmp/suite4" "$p12" > "$tmp/o12" 2>&1 &
    spid=$!
    for _ in $(seq 600); do [ -s "$tmp/suite-child" ] && break; sleep 0.1; done
    kill -TERM "$spid"; wait "$spid"; rc=$?
    child=$(cat "$tmp/suite-child" 2>/dev/null)
    for _ in $(seq 20); do [ -n "$child" ] && kill -0 "$child" 2>/dev/null || break; sleep 0.1; done
    if [ -n "$child" ] && [ $rc -eq 143 ] && ! kill -0 "$child" 2>/dev/null; then ok "$name4"
    else
        no "$name4" "exit $rc, suite child ${child:-none} $(kill -0 "$child" 2>/dev/null && echo 'still running')" "$(tail -n 8 "$tmp/o12")"
        [ -n "$child" ] && kill "$child" 2>/dev/null
    fi
fi
KFORGE="$KFORGE" "$script" --tool ort --paired 2 --reps 5 --out "$tmp/r" >"$tmp/o8" 2>&1; rc=$?
[ $rc -eq 2 ] && grep -q "paired needs --reps of at least 20" "$tmp/o8" && [ ! -e "$tmp/r/anchors.json" ] \
    && ok "run_cpu_anchors.sh: --paired with fewer than 20 reps exits 2 before measuring anything" \
    || no "run_cpu_anchors.sh: --paired with fewer than 20 reps exits 2" "exit $rc" "$(cat "$tmp/o8")"
# a one-problem record with the paired step, then paired_anchors.py on a
# problem the suite did not run
torchpy=${KFORGE_PYTHON:-$venv_py}
name="run_cpu_anchors.sh --paired 2 --paired-inputs both: the suite's best kernel and PyTorch on the same and on fresh inputs in 2 rounds, in paired.json and record.md"
name2="paired_anchors.py --tool ort: ONNX Runtime beside the kernel; a problem without a run in the suite is skipped, saying so; --inputs fresh refused for ort"
if ! "$torchpy" -c "import torch, numpy" >/dev/null 2>&1; then
    skip "$name" "$torchpy cannot import torch, numpy"
    skip "$name2" "$torchpy cannot import torch, numpy"
    skip "paired_anchors.py killed mid-round: the pairs done so far are in OUT.json" "$torchpy cannot import torch, numpy"
    skip "paired_anchors.py --tool stream: stream_bw beside the kernel" "$torchpy cannot import torch, numpy"
elif ! "$ortpy" -c "import onnxruntime, onnx, numpy" >/dev/null 2>&1; then
    skip "$name" "run with the ORT cases below (one suite), and $ortpy cannot import onnxruntime, onnx, numpy"
    skip "$name2" "$ortpy cannot import onnxruntime, onnx, numpy"
    skip "paired_anchors.py killed mid-round: the pairs done so far are in OUT.json" "$ortpy cannot import onnxruntime, onnx, numpy"
    skip "paired_anchors.py --tool stream: stream_bw beside the kernel" "$ortpy cannot import onnxruntime, onnx, numpy"
else
    p12="$KF_SRCDIR/problems/level2/12_Gemm_Multiply_LeakyReLU.json"
    p14="$KF_SRCDIR/problems/level2/14_Gemm_Divide_Sum_Scaling.json"
    KFORGE="$KFORGE" "$script" --tool torch --python "$torchpy" --threads 2 --preset small --reps 20 --warmup 1 \
        --no-compile --no-anchors-after --paired 2 --paired-inputs both --out "$tmp/rec3" --suite-dir "$tmp/suite3" "$p12" \
        -- --max-iterations 1 --no-baseline > "$tmp/o9" 2>&1; rc=$?
    res=$("$torchpy" -c '
import json, sys
r = json.load(open(sys.argv[1]))
e = r["problems"]["12_Gemm_Multiply_LeakyReLU"]
ok = (len(e["rounds"]) == 2 and all(x["anchor_ms"] > 0 and x["anchor_fresh_ms"] > 0 and x["kforge_ms"] > 0
                                    for x in e["rounds"]) and
      e["ratio_min"] <= e["ratio_median"] <= e["ratio_max"] and r["summary"]["problems"] == 1 and
      e["ratio_min_fresh"] <= e["ratio_median_fresh"] <= e["ratio_max_fresh"] and
      r["summary_fresh"]["problems"] == 1 and r["summary_fresh"]["anchor_inputs"] == "fresh inputs" and
      r["summary"]["rounds_done"] == 2 and r["threads"] == 2 and r["tool"] == "torch" and r["inputs"] == "both")
print("ok" if ok else json.dumps(r)[:600])' "$tmp/rec3/paired.json" 2>&1)
    [ $rc -eq 0 ] && [ "$res" = ok ] && grep -q '^    paired: .*over PyTorch eager, same inputs' "$tmp/rec3/record.md" \
        && grep -q '^    paired: .*over PyTorch eager, fresh inputs' "$tmp/rec3/record.md" \
        && ok "$name" || no "$name" "exit $rc: $res" "$(tail -n 12 "$tmp/o9")"
    KFORGE="$KFORGE" "$ortpy" "$KF_SRCDIR/bench/cpu/paired_anchors.py" "$tmp/p2.json" "$tmp/suite3" "$p12" "$p14" \
        --tool ort --threads 2 --rounds 1 --reps 20 --preset small > "$tmp/o10" 2>&1; rc=$?
    KFORGE="$KFORGE" "$ortpy" "$KF_SRCDIR/bench/cpu/paired_anchors.py" "$tmp/p2f.json" "$tmp/suite3" "$p12" \
        --tool ort --inputs fresh > "$tmp/o10f" 2>&1; rcf=$?
    [ $rc -eq 0 ] && [ $rcf -eq 2 ] && grep -q 'PyTorch only' "$tmp/o10f" && [ ! -e "$tmp/p2f.json" ] &&
        grep -q '^14_Gemm_Divide_Sum_Scaling .*skipped: .*result.json' "$tmp/o10" &&
        grep -q '^paired: .*over ONNX Runtime' "$tmp/o10" &&
        "$ortpy" -c 'import json,sys; r=json.load(open(sys.argv[1])); p=r["problems"]; sys.exit(sorted(p) != ["12_Gemm_Multiply_LeakyReLU"] or r["tool"] != "ort" or not p["12_Gemm_Multiply_LeakyReLU"]["rounds"][0]["anchor_ms"] > 0)' "$tmp/p2.json" \
        && ok "$name2" || no "$name2" "exit $rc" "$(cat "$tmp/o10")"
    # a round cut short (the device's timeout): the pairs done are in the file.
    # A second problem under another name (12's run copied), and a kforge
    # that kills the script at its second profile, mid-round
    name3="paired_anchors.py killed mid-round: the pairs done so far are in OUT.json"
    "$ortpy" -c 'import json,sys; p=json.load(open(sys.argv[1])); p["name"]="12b_copy"; json.dump(p, open(sys.argv[2], "w"))' \
        "$p12" "$tmp/p12b.json" && cp -r "$tmp/suite3/runs/12_Gemm_Multiply_LeakyReLU" "$tmp/suite3/runs/12b_copy"
    printf '#!/bin/sh\nn=$(cat "%s/calls" 2>/dev/null || echo 0); echo $((n + 1)) > "%s/calls"\n[ $n -ge 1 ] && kill -TERM $PPID && exit 1\nexec "%s" "$@"\n' \
        "$tmp" "$tmp" "$KFORGE" > "$tmp/kf-kill" && chmod +x "$tmp/kf-kill"
    KFORGE="$tmp/kf-kill" "$ortpy" "$KF_SRCDIR/bench/cpu/paired_anchors.py" "$tmp/p3.json" "$tmp/suite3" "$p12" "$tmp/p12b.json" \
        --tool ort --threads 2 --rounds 1 --reps 20 --preset small > "$tmp/o11" 2>&1; rc=$?
    [ $rc -ne 0 ] && "$ortpy" -c 'import json,sys; p=json.load(open(sys.argv[1]))["problems"]; sys.exit(not (len(p["12_Gemm_Multiply_LeakyReLU"]["rounds"]) == 1 and p["12_Gemm_Multiply_LeakyReLU"]["ratio_median"] > 0 and p["12b_copy"]["rounds"] == []))' "$tmp/p3.json" \
        && ok "$name3" || no "$name3" "exit $rc" "$(cat "$tmp/o11"; cat "$tmp/p3.json" 2>&1 | head -c 600)"
    # --tool stream: the anchor is stream_bw's copy-nt (12 writes its output), its
    # time the problem's min_bytes at that rate; without --stream-bw it starts nothing
    name5="paired_anchors.py --tool stream: stream_bw's copy-nt beside the kernel, its kind and rate kept per round; refused without --stream-bw"
    if ${CC:-cc} -O2 -fopenmp "$KF_SRCDIR/bench/cpu/stream_bw.c" -o "$tmp/stream_bw" > "$tmp/o13" 2>&1; then
        KFORGE="$KFORGE" "$ortpy" "$KF_SRCDIR/bench/cpu/paired_anchors.py" "$tmp/p5.json" "$tmp/suite3" "$p12" \
            --tool stream --stream-bw "$tmp/stream_bw" --stream-mib 8 --threads 2 --rounds 1 --reps 20 --preset small \
            > "$tmp/o13" 2>&1; rc=$?
        KFORGE="$KFORGE" "$ortpy" "$KF_SRCDIR/bench/cpu/paired_anchors.py" "$tmp/p5n.json" "$tmp/suite3" "$p12" \
            --tool stream --preset small > "$tmp/o13n" 2>&1; rcn=$?
        [ $rc -eq 0 ] && [ $rcn -ne 0 ] && grep -q -- '--stream-bw' "$tmp/o13n" && [ ! -e "$tmp/p5n.json" ] &&
            grep -q '^paired: .*over the streaming bandwidth' "$tmp/o13" &&
            "$ortpy" -c '
import json, sys
r = json.load(open(sys.argv[1]))
e = r["problems"]["12_Gemm_Multiply_LeakyReLU"]
x = e["rounds"][0]
sys.exit(not (r["tool"] == "stream" and x["stream"] == "copy_nt" and x["stream_gbs"] > 0 and x["anchor_ms"] > 0
              and x["kforge_ms"] > 0 and abs(e["ratio_median"] - x["anchor_ms"] / x["kforge_ms"]) < 1e-9))' "$tmp/p5.json" \
            && ok "$name5" || no "$name5" "exit $rc / $rcn" "$(cat "$tmp/o13" "$tmp/o13n"; head -c 600 "$tmp/p5.json" 2>&1)"
    else
        no "$name5" "stream_bw.c did not build" "$(cat "$tmp/o13")"
    fi
fi
name="bench/cpu/peak_concurrent.c: builds, one thread's FMA (and AMX, zero and random tiles) rate"
if [ "$(uname -m)" != x86_64 ]; then
    echo "ok $((n += 1)) - $name # SKIP x86-64 only (AVX-512 and AMX intrinsics)"
elif ${CC:-cc} -O2 -pthread "$KF_SRCDIR/bench/cpu/peak_concurrent.c" -o "$tmp/peak" > "$tmp/o7" 2>&1 && "$tmp/peak" 1 >> "$tmp/o7" 2>&1; then
    # the row of one thread, parentheses dropped: T FMA FMA/T AMX0 AMX0/T AMXR AMXR/T
    row=$(awk '$1 == "1" { gsub(/[()]/, " "); $0 = $0; if (NF == 7) print }' "$tmp/o7")
    want_fma=$(grep -q 'AVX-512: yes' "$tmp/o7" && echo 1 || echo 0)
    want_amx=$(grep -q 'AMX: yes' "$tmp/o7" && echo 1 || echo 0)
    if [ -n "$row" ] && echo "$row" | awk -v f=$want_fma -v a=$want_amx '{exit !((f ? $2 > 0 : $2 == 0) && (a ? $4 > 0 && $6 > 0 : $4 == 0 && $6 == 0))}'; then
        ok "$name"
    else
        no "$name" "$(cat "$tmp/o7")"
    fi
else
    no "$name" "$(tail -n 12 "$tmp/o7")"
fi
tap_exit
