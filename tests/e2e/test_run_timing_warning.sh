#!/bin/bash
# A best timed in a slow stretch is flagged by `kforge run` itself
# (core/run/timing_warning.h): the only candidate is 1 ms a call but slept
# 20 ms on about three calls of four in its step (make_script.py's
# "stretched" kernel), and with no other finalist and no baseline nothing
# re-times it, so the run reports its step's median (about 20 ms), over 2x
# its fastest timed run (about 1 ms).  The summary says WARNING, result.json
# carries best.timing_warning, --json the same text.
# (test_run_confirm_stretch.sh: the same kernel re-timed at 1 ms is not flagged.)
set -u
here="$KF_SRCDIR/tests/e2e/llm"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
. "$KF_SRCDIR/tests/e2e/tap.sh"
. "$KF_SRCDIR/tests/e2e/llm/scripted_agent.sh"
echo "1..3"
export XDG_CACHE_HOME="$tmp/cache"

mkdir "$tmp/state" "$tmp/state2"
scripted_agent "$tmp/agent.sh" "$tmp/state/calls" slowstep "$tmp/state"
"$KFORGE" run "$here/scale_relu.json" --backend cpu-simd --agent "cmd:$tmp/agent.sh" --sandbox off \
    --out "$tmp/run" --no-baseline --target 0 --max-iterations 3 >"$tmp/out" 2>&1
rc=$?
[ $rc -eq 0 ] && grep -q "^  WARNING: timed at .* (a median), [0-9.]*x its fastest timed run," "$tmp/out" \
    && ok "the summary warns of a best whose median is over twice its fastest run" \
    || no "the summary warns of a best whose median is over twice its fastest run" "exit $rc" "$(tail -n 30 "$tmp/out")"

"$PYTHON3" - "$tmp/run" <<'PY' 2>"$tmp/result.err"
import json, sys
b = json.load(open(sys.argv[1] + "/result.json"))["best"]
assert b["median_s"] >= 2.0 * b["min_s"], b     # the scenario as meant
assert "confirmed" not in b, b                  # nothing re-timed it
w = b["timing_warning"]
assert "x its fastest timed run" in w and "the machine was slower" in w, w
PY
[ $? -eq 0 ] && ok "result.json: best.timing_warning beside a median over twice the fastest run" \
    || no "result.json: best.timing_warning beside a median over twice the fastest run" "$(cat "$tmp/result.err")" \
        "$(cat "$tmp/run/result.json")"

scripted_agent "$tmp/agent2.sh" "$tmp/state2/calls" slowstep "$tmp/state2"
"$KFORGE" run "$here/scale_relu.json" --backend cpu-simd --agent "cmd:$tmp/agent2.sh" --sandbox off \
    --out "$tmp/run2" --no-baseline --target 0 --max-iterations 3 --json >"$tmp/out2" 2>"$tmp/err2"
rc=$?
tail -n 1 "$tmp/out2" | "$PYTHON3" -c '
import json, sys
s = json.loads(sys.stdin.read())
assert s["have_best"] and "x its fastest timed run" in s["timing_warning"], s
' 2>"$tmp/json.err"
[ $? -eq 0 ] && [ $rc -eq 0 ] && ok "--json: the summary's timing_warning" \
    || no "--json: the summary's timing_warning" "exit $rc" "$(cat "$tmp/json.err")" "$(tail -n 5 "$tmp/out2")"
