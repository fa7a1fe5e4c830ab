#!/bin/sh
# test_verify_cli.sh — `kforge verify` / `kforge profile` with the real
# cpu-simd plugin and worker: exit 0 pass, 1 candidate failed, 2 bad input,
# and the lines a user reads.  Needs $KFORGE, $KF_SRCDIR, $KFORGE_PLUGIN_PATH
# and $KFORGE_WORKER (set by `make check`).

KFORGE=${KFORGE:-./core/kforge}
SRC=${KF_SRCDIR:-.}
PY=${PYTHON3:-python3}
ADV="$SRC/tests/adversarial"
PROB="$ADV/problems/scale_bias.json"

n=0
failed=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() { n=$((n + 1)); failed=1; echo "not ok $n - $1"; shift; for l in "$@"; do printf "# %s\n" "$l"; done; }
# expect NAME WANT_RC GOT_RC TEXT NEEDLE...: exit status and fixed substrings
expect() {
    name=$1; want=$2; got=$3; text=$4; shift 4
    if [ "$got" != "$want" ]; then
        not_ok "$name" "exit $got, expected $want" "$(printf '%s\n' "$text" | sed 's/^/  /')"
        return
    fi
    for needle in "$@"; do
        case $text in
        *"$needle"*) ;;
        *) not_ok "$name" "missing: $needle" "in:" "$(printf '%s\n' "$text" | sed 's/^/  /')"; return ;;
        esac
    done
    ok "$name"
}

echo "1..18"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/kf-verify.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

out=$("$KFORGE" verify --backend cpu-simd --problem "$PROB" "$ADV/cpu-simd/correct.c" 2>&1); rc=$?
expect "verify a correct candidate: exit 0" 0 $rc "$out" \
    "verdict: pass" "trials: 5 run (seed 1..5)" "output y: max abs err" "on cpu-simd, device 0"

out=$("$KFORGE" profile -b cpu-simd -p "$PROB" --reps 21 "$ADV/cpu-simd/correct.c" 2>&1); rc=$?
expect "profile a correct candidate: times and roofline" 0 $rc "$out" \
    "verdict: pass" "time: median" "(21 runs, 4 input sets, host clock)" "achieved:" "roofline: floor" \
    "report:"

out=$("$KFORGE" verify -b cpu-simd -p "$PROB" "$ADV/cpu-simd/wrong_values.c" 2>&1); rc=$?
expect "wrong values: exit 1 with the first mismatches" 1 $rc "$out" \
    "verdict: mismatch" "first mismatches:" "y[0," "expected" "got"

out=$("$KFORGE" verify -b cpu-simd -p "$PROB" --timeout 1 "$ADV/cpu-simd/hang.c" 2>&1); rc=$?
expect "endless loop: exit 1, timeout after --timeout" 1 $rc "$out" \
    "verdict: timeout" "exceeded its 1 s wall-clock limit"

out=$("$KFORGE" verify -b cpu-simd -p "$PROB" "$ADV/cpu-simd/segfault.c" 2>&1); rc=$?
expect "segfault: exit 1, crash with the signal and stderr" 1 $rc "$out" \
    "verdict: crash" "SIGSEGV" "segfault candidate: writing to NULL"

out=$("$KFORGE" verify -b cpu-simd -p "$PROB" "$ADV/cpu-simd/compile_error.c" 2>&1); rc=$?
expect "compile error: exit 1 with the compiler log" 1 $rc "$out" \
    "verdict: compile-error" "undeclared_thing"

out=$("$KFORGE" verify -b cpu-simd -p "$PROB" --json --seed 7 --trials 6 "$ADV/cpu-simd/no_write.c" 2>/dev/null); rc=$?
if [ $rc -eq 1 ] && printf '%s' "$out" | "$PY" -c '
import json, sys
r = json.load(sys.stdin)
assert r["verdict"] == "not-written", r["verdict"]
assert r["pass"] is False and r["failed_trial"] == 0 and r["trials_run"] == 1
assert "seed 7" in r["summary"] and "of 6" in r["summary"], r["summary"]
assert r["stats"][0]["n_elems"] == 256 * 4096
'; then ok "--json prints one parseable result"; else not_ok "--json prints one parseable result" "exit $rc" "$out"; fi

out=$("$KFORGE" verify -b no-such-backend -p "$PROB" "$ADV/cpu-simd/correct.c" 2>&1); rc=$?
expect "unknown backend: exit 2, lists the available ones" 2 $rc "$out" \
    "no backend 'no-such-backend'" "available:" "cpu-simd"

out=$("$KFORGE" verify -b cpu-simd -p "$tmp/missing.json" "$ADV/cpu-simd/correct.c" 2>&1); rc=$?
expect "missing problem: exit 2" 2 $rc "$out" "missing.json"

out=$("$KFORGE" verify -b cpu-simd -p "$PROB" "$tmp/nope.c" 2>&1); rc=$?
expect "missing candidate: exit 2" 2 $rc "$out" "nope.c"

# FIFOs with no writer, as the problem, the .c candidate and a candidate
# directory's manifest: each refused at once with exit 2 (they used to hang)
mkfifo "$tmp/fifo.json" "$tmp/fifo.c" && mkdir "$tmp/fcand" && mkfifo "$tmp/fcand/candidate.json"
out=$(timeout 10 "$KFORGE" verify -b cpu-simd -p "$tmp/fifo.json" "$ADV/cpu-simd/correct.c" 2>&1); rc=$?
expect "FIFO problem: exit 2 at once" 2 $rc "$out" "fifo.json: not a regular file (a FIFO)"
out=$(timeout 10 "$KFORGE" verify -b cpu-simd -p "$PROB" "$tmp/fifo.c" 2>&1); rc=$?
expect "FIFO candidate source: exit 2 at once" 2 $rc "$out" \
    "fifo.c: candidate source is not a regular file (a FIFO)"
out=$(timeout 10 "$KFORGE" verify -b cpu-simd -p "$PROB" "$tmp/fcand" 2>&1); rc=$?
expect "FIFO candidate manifest: exit 2 at once" 2 $rc "$out" \
    "fcand/candidate.json: candidate manifest is not a regular file (a FIFO)"

out=$("$KFORGE" verify -b cpu-simd -p "$PROB" --preset huge "$ADV/cpu-simd/correct.c" 2>&1); rc=$?
expect "unknown preset: exit 2 naming the known ones" 2 $rc "$out" "no preset 'huge'" "small"

out=$("$KFORGE" verify -b cpu-simd "$ADV/cpu-simd/correct.c" 2>&1); rc=$?
expect "missing --problem: exit 2" 2 $rc "$out" "needs --backend, --problem and one CANDIDATE"

out=$("$KFORGE" profile --help 2>&1); rc=$?
expect "--help: exit 0 with the options" 0 $rc "$out" "usage: kforge profile" "--reps N" "--keep-work DIR" \
    "Exit status: 0 pass, 1 the candidate failed, 2 bad input."

out=$("$KFORGE" verify -b cpu-simd -p "$PROB" --keep-work "$tmp/work" "$ADV/cpu-simd/correct.c" 2>&1); rc=$?
if [ $rc -eq 0 ] && [ -f "$tmp/work/candidate/candidate.json" ] && [ -f "$tmp/work/candidate/correct.c" ] &&
   [ -d "$tmp/work/build" ]; then
    ok "--keep-work keeps the candidate and build files"
else
    not_ok "--keep-work keeps the candidate and build files" "exit $rc" "$(ls -R "$tmp/work" 2>&1)" "$out"
fi

# a degenerate check is said so: problem 9's reference is all zeros at small, so a
# kernel that writes zeros passes, with a warning on stderr and the JSON flag
out=$("$KFORGE" verify --backend cpu-simd --problem "$SRC/problems/level2/09_Matmul_Subtract_Multiply_ReLU.json" \
      "$ADV/cpu-simd/zeros_for_problem9.c" 2>&1); rc=$?
js=$("$KFORGE" verify --backend cpu-simd --problem "$SRC/problems/level2/09_Matmul_Subtract_Multiply_ReLU.json" \
      --json "$ADV/cpu-simd/zeros_for_problem9.c" 2>/dev/null |
     "$PY" -c 'import json,sys; d=json.load(sys.stdin); print([s["reference_constant"] for s in d["stats"]], "warning: output y" in d["diagnostics"])' 2>&1)
js2=$("$KFORGE" verify --backend cpu-simd --problem "$PROB" --json "$ADV/cpu-simd/correct.c" 2>/dev/null |
     "$PY" -c 'import json,sys; d=json.load(sys.stdin); print([s["reference_constant"] for s in d["stats"]])' 2>&1)
if [ "$js" = "[True] True" ] && [ "$js2" = "[False]" ]; then
    expect "a constant reference: pass, with the warning and reference_constant (not on a varying one)" 0 $rc "$out" \
        "verdict: pass" "warning: output y: in every trial the reference had one value"
else
    not_ok "a constant reference is flagged" "json: $js (want [True] True); varying: $js2 (want [False])"
fi

exit $failed
