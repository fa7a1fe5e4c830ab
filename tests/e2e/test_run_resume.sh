#!/bin/bash
# kill -9 in the middle of a step, then --resume: nothing lost, no step paid twice.
# The cmd agent answers from a scripted sequence and counts its calls.
set -u
here="$KF_SRCDIR/tests/e2e/llm"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
. "$KF_SRCDIR/tests/e2e/tap.sh"
echo "1..6"

cat >"$tmp/agent.sh" <<AG
#!/bin/sh
cat >/dev/null
c=\$(cat "$tmp/calls" 2>/dev/null || echo 0)
echo \$((c + 1)) >"$tmp/calls"
exec "$PYTHON3" "$here/make_script.py" answer \$c
AG
chmod +x "$tmp/agent.sh"
export XDG_CACHE_HOME="$tmp/cache"

"$KFORGE" run "$here/scale_relu.json" --backend cpu-simd --agent "cmd:$tmp/agent.sh" \
    --out "$tmp/run" --no-baseline --target 0 --max-iterations 2 >"$tmp/out1" 2>&1 &
pid=$!
# wait until the first candidate was generated and its evaluation started
for i in $(seq 200); do grep -q '"ev":"gen"' "$tmp/run/journal.jsonl" 2>/dev/null && break; sleep 0.05; done
sleep 1
kill -9 $pid; wait $pid 2>/dev/null
grep -q '"ev":"eval"' "$tmp/run/journal.jsonl" && no "killed during the first evaluation" "$(cat "$tmp/run/journal.jsonl")" \
    || ok "killed during the first evaluation"
[ "$(cat "$tmp/calls")" = 1 ] && ok "one agent call before the kill" || no "one agent call before the kill" "calls=$(cat "$tmp/calls")"

"$KFORGE" run --resume "$tmp/run" >"$tmp/out2" 2>&1
rc=$?
[ $rc -eq 0 ] && ok "resume finishes with a correct kernel" || no "resume finishes with a correct kernel" "exit $rc" "$(tail -n 20 "$tmp/out2")"
[ "$(cat "$tmp/calls")" = 3 ] && ok "the generated candidate is not asked for again (3 calls in all)" \
    || no "no step paid for twice" "calls=$(cat "$tmp/calls")" "$(cat "$tmp/run/journal.jsonl")"
ev=$("$PYTHON3" -c '
import json,sys
print(" ".join(e["ev"] + (":" + e["verdict"] if "verdict" in e else "") for e in map(json.loads, open(sys.argv[1]))))' "$tmp/run/journal.jsonl")
case "$ev" in "start gen resume eval:pass best analysis gen eval:pass"*"done") ok "journal: the pending step is evaluated on resume";;
  *) no "journal: the pending step is evaluated on resume" "$ev";; esac
[ -f "$tmp/run/result.json" ] && "$PYTHON3" -c 'import json,sys; sys.exit(0 if json.load(open(sys.argv[1]))["best"]["verified"] is True else 1)' "$tmp/run/result.json" && ok "result.json names a verified best" \
    || no "result.json names a verified best" "$(cat "$tmp/run/result.json" 2>&1)"
tap_exit
