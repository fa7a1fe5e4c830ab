#!/bin/bash
# Numeric options are parsed strictly by every command: the whole string, in
# range, no overflow; a bad value exits 2 naming the option and its range
# (run accepted `--max-iterations 1abc` and `--trials -7`).
set -u
. "$KF_SRCDIR/tests/e2e/tap.sh"
P="$KF_SRCDIR/problems/level2/12_Gemm_Multiply_LeakyReLU.json"
C="$KF_SRCDIR/tests/adversarial/cpu-simd/correct.c"
bad() {   # NAME EXPECTED-TEXT COMMAND...
    local name=$1 want=$2; shift 2
    out=$("$@" 2>&1 </dev/null); rc=$?
    if [ $rc -eq 2 ] && echo "$out" | grep -qF -- "$want"; then ok "$name"
    else no "$name" "exit $rc" "$(echo "$out" | head -3)"; fi
}
bad "run --max-iterations 1abc" "--max-iterations: expected a whole number from 1 to 1000000, got '1abc'" \
    "$KFORGE" run "$P" --backend cpu-simd --max-iterations 1abc
bad "run --trials -7" "--trials: expected a whole number from 1 to 1000000, got '-7'" \
    "$KFORGE" run "$P" --backend cpu-simd --trials -7
bad "run --reps overflow" "--reps: expected a whole number" "$KFORGE" run "$P" --backend cpu-simd --reps 99999999999999999999
bad "run --samples 0" "--samples: expected a whole number from 1 to 64, got '0'" "$KFORGE" run "$P" --backend cpu-simd --samples 0
bad "run --max-time 0" "--max-time: expected a number > 0" "$KFORGE" run "$P" --backend cpu-simd --max-time 0
bad "run --max-time 5s" "--max-time: expected a number > 0" "$KFORGE" run "$P" --backend cpu-simd --max-time 5s
bad "run --target 1.5" "--target: expected a number >= 0 and at most 1, got '1.5'" "$KFORGE" run "$P" --backend cpu-simd --target 1.5
bad "run --seed x" "--seed: expected a whole number" "$KFORGE" run "$P" --backend cpu-simd --seed x
bad "run --device -1" "--device: expected a whole number from 0" "$KFORGE" run "$P" --backend cpu-simd --device -1
bad "run --sandbox maybe" "--sandbox: expected auto, strict or off, got 'maybe'" "$KFORGE" run "$P" --backend cpu-simd --sandbox maybe
bad "run --mem-limit 3" "--mem-limit: expected a size of at least 64M" "$KFORGE" run "$P" --backend cpu-simd --mem-limit 3
bad "suite --jobs 0" "--jobs: expected a whole number from 1 to 256, got '0'" "$KFORGE" suite "$P" --backend cpu-simd --report /tmp/x --jobs 0
bad "suite --max-iterations 2x" "--max-iterations: expected a whole number" "$KFORGE" suite "$P" --backend cpu-simd --report /tmp/x --max-iterations 2x
bad "verify --trials 5.5" "--trials: expected a whole number" "$KFORGE" verify --backend cpu-simd --problem "$P" --trials 5.5 "$C"
bad "verify --timeout -1" "--timeout: expected a number > 0" "$KFORGE" verify --backend cpu-simd --problem "$P" --timeout -1 "$C"
bad "profile --reps ''" "--reps: expected a whole number" "$KFORGE" profile --backend cpu-simd --problem "$P" --reps "" "$C"
echo "1..$n"
tap_exit
