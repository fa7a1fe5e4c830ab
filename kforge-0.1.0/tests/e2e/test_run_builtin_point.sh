#!/bin/bash
# kforge run --agent builtin:POINT: the first candidate comes from the given
# point (the rest of it from the device's default), the run finishes, a
# resumed run keeps the agent; a bad point is refused before anything runs.
set -u
here="$KF_SRCDIR/tests/e2e/llm"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
. "$KF_SRCDIR/tests/e2e/tap.sh"
echo "1..5"
export XDG_CACHE_HOME="$tmp/cache"

"$KFORGE" run "$here/scale_relu.json" --backend cpu-simd --agent 'builtin:{"mr":4,"nr":24,"unroll":2}' \
    --out "$tmp/run" --no-baseline --max-iterations 1 >"$tmp/out1" 2>&1
rc=$?
[ $rc -eq 0 ] && ok "run with a start point exits 0" || no "run with a start point exits 0" "exit $rc" "$(tail -n 20 "$tmp/out1")"
notes=$("$PYTHON3" -c '
import json, sys
print(json.load(open(sys.argv[1]))["notes"])' "$tmp/run/steps/0001-0/candidate/candidate.json" 2>&1)
case "$notes" in
*'start point of --agent builtin:POINT'*'"mr":4,"nr":24'*'"unroll":2'*) ok "step 1's candidate is the start point" ;;
*) no "step 1's candidate is the start point" "notes: $notes" ;;
esac
"$KFORGE" run --resume "$tmp/run" --max-iterations 2 >"$tmp/out2" 2>&1
rc=$?
grep -q '"agent":"builtin:{' "$tmp/run/journal.jsonl" && [ $rc -eq 0 ] \
    && ok "the journal keeps the agent spec and the run resumes" \
    || no "the journal keeps the agent spec and the run resumes" "exit $rc" "$(head -n 2 "$tmp/run/journal.jsonl")" "$(tail -n 5 "$tmp/out2")"

"$KFORGE" run "$here/scale_relu.json" --backend cpu-simd --agent 'builtin:{"tile":64}' --out "$tmp/bad" >"$tmp/out3" 2>&1
rc=$?
[ $rc -eq 2 ] && ok "an unknown field exits 2" || no "an unknown field exits 2" "exit $rc" "$(cat "$tmp/out3")"
grep -q 'unknown field "tile"' "$tmp/out3" && grep -q "builtin:POINT" "$tmp/out3" && [ ! -e "$tmp/bad/journal.jsonl" ] \
    && ok "the message names the field and nothing ran" || no "the message names the field and nothing ran" "$(cat "$tmp/out3")"
tap_exit
