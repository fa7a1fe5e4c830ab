#!/bin/bash
# Candidates that take kforge itself down cannot stop a run from finishing.
# The test hook KFORGE_TEST_DIE_AFTER=EV makes kforge SIGKILL itself right
# after the journal event EV is on disk, as a candidate doing
# kill(getppid(), SIGKILL) would:
#  1. every evaluation "kills" kforge: each --resume records the candidate
#     it died with as a crash (never run again) and goes on, so the run ends;
#  2. the recorded best "kills" kforge while a resume re-verifies it: the
#     next resume drops it without running it again.
set -u
here="$KF_SRCDIR/tests/e2e/llm"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
. "$KF_SRCDIR/tests/e2e/tap.sh"
echo "1..9"
export XDG_CACHE_HOME="$tmp/cache"

# count RUN PATTERN: journal lines matching PATTERN
count() { grep -c -- "$2" "$1/journal.jsonl"; }
best_dir() {
    "$PYTHON3" -c '
import json,sys
b = json.load(open(sys.argv[1]))["best"]
print(b["dir"] if b and b["verified"] is True else "none")' "$1/result.json" 2>&1
}

# --- 1. every evaluation kills kforge ------------------------------------------
export KFORGE_TEST_DIE_AFTER=eval-start
"$KFORGE" run "$here/scale_relu.json" --backend cpu-simd --out "$tmp/run" --no-baseline --max-iterations 3 \
    >"$tmp/out0" 2>&1
rcs="$?"
for i in 1 2 3 4 5; do
    [ -f "$tmp/run/result.json" ] && break
    "$KFORGE" run --resume "$tmp/run" >"$tmp/out$i" 2>&1
    rcs="$rcs $?"
done
[ "$rcs" = "137 137 137 1" ] && ok "three deaths, then the run ends (exit 1: no correct kernel)" \
    || no "three deaths, then the run ends (exit 1: no correct kernel)" "exit codes: $rcs" "$(tail -n 5 "$tmp/out$i")"
[ "$(count "$tmp/run" '"ev":"eval","[^}]*"verdict":"crash"')" = 3 ] && [ "$(count "$tmp/run" '"ev":"done"')" = 1 ] \
    && ok "each resume recorded one crash and the run is done" \
    || no "each resume recorded one crash and the run is done" "$(cat "$tmp/run/journal.jsonl")"
dup=$(grep '"ev":"eval-start"' "$tmp/run/journal.jsonl" | sed 's/.*"dir":"\([^"]*\)".*/\1/' | sort | uniq -d)
[ -z "$dup" ] && [ "$(count "$tmp/run" '"ev":"eval-start"')" = 3 ] && ok "no candidate was evaluated twice" \
    || no "no candidate was evaluated twice" "evaluated again: $dup"
grep -q '"kind":"fix-mismatch"' "$tmp/run/journal.jsonl" && ok "after a crash the agent is asked for a repair" \
    || no "after a crash the agent is asked for a repair" "$(grep '"ev":"gen"' "$tmp/run/journal.jsonl")"
unset KFORGE_TEST_DIE_AFTER
"$KFORGE" run --resume "$tmp/run" --max-iterations 5 >"$tmp/out9" 2>&1
rc=$?
[ $rc -eq 0 ] && [ "$(best_dir "$tmp/run")" != none ] && ok "a resume without the deaths finds a correct kernel" \
    || no "a resume without the deaths finds a correct kernel" "exit $rc" "$(tail -n 10 "$tmp/out9")"

# --- 2. the recorded best kills kforge while it is re-verified --------------------
"$KFORGE" run "$here/scale_relu.json" --backend cpu-simd --out "$tmp/v" --no-baseline --max-iterations 1 \
    >"$tmp/v0" 2>&1
first=$(best_dir "$tmp/v")
KFORGE_TEST_DIE_AFTER=verify-best-start "$KFORGE" run --resume "$tmp/v" --max-iterations 2 >"$tmp/v1" 2>&1
rc=$?
[ "$first" = steps/0001-0/candidate ] && [ $rc -eq 137 ] && ok "killed while re-verifying the recorded best" \
    || no "killed while re-verifying the recorded best" "best $first, exit $rc" "$(cat "$tmp/v1")"
"$KFORGE" run --resume "$tmp/v" --max-iterations 2 >"$tmp/v2" 2>&1
rc=$?
grep -q "kforge died re-verifying the recorded best steps/0001-0: dropped" "$tmp/v2" \
    && [ "$(count "$tmp/v" '"ev":"verify-best-start","[^}]*"dir":"steps/0001-0"')" = 1 ] \
    && ok "the next resume drops it without running it again" \
    || no "the next resume drops it without running it again" "$(cat "$tmp/v2")" "$(cat "$tmp/v/journal.jsonl")"
grep -q '"ev":"verify-best","[^}]*"dir":"steps/0001-0","outcome":"dropped","verdict":"crash"' "$tmp/v/journal.jsonl" \
    && ok "journal: verify-best dropped, verdict crash" || no "journal: verify-best dropped, verdict crash" "$(cat "$tmp/v/journal.jsonl")"
[ $rc -eq 0 ] && [ "$(best_dir "$tmp/v")" = steps/0002-0/candidate ] && ok "the run goes on to another correct kernel" \
    || no "the run goes on to another correct kernel" "exit $rc" "$(cat "$tmp/v/result.json")"
tap_exit
