#!/bin/bash
# kforge killed in the middle of a step, then --resume.  The cmd agent answers
# from a scripted sequence and counts its calls.
#  1. killed after the candidate was generated, before its evaluation started
#     (the test hook KFORGE_TEST_DIE_AFTER=gen): the resumed run evaluates it
#     from its saved copy; nothing lost, no step paid for twice;
#  2. kill -9 while the candidate is being evaluated: the resumed run records
#     it as a crash and never runs it again (kforge may have died of it), and
#     the loop goes on with its repair.
set -u
here="$KF_SRCDIR/tests/e2e/llm"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
. "$KF_SRCDIR/tests/e2e/tap.sh"
echo "1..14"
export XDG_CACHE_HOME="$tmp/cache"

# agent.sh SEQ: answers from make_script.py's sequence SEQ, counting calls in $tmp/calls.SEQ
cat >"$tmp/agent.sh" <<AG
#!/bin/sh
cat >/dev/null
c=\$(cat "$tmp/calls.\$1" 2>/dev/null || echo 0)
echo \$((c + 1)) >"$tmp/calls.\$1"
exec "$PYTHON3" "$here/make_script.py" answer \$c \$1
AG
chmod +x "$tmp/agent.sh"

# events RUN: the journal as "ev[:verdict]" words
events() {
    "$PYTHON3" -c '
import json,sys
print(" ".join(e["ev"] + (":" + e["verdict"] if "verdict" in e else "") for e in map(json.loads, open(sys.argv[1]))))' "$1/journal.jsonl"
}
# best_dir RUN: result.json's best directory when verified
best_dir() {
    "$PYTHON3" -c '
import json,sys
b = json.load(open(sys.argv[1]))["best"]
print(b["dir"] if b and b["verified"] is True else "none")' "$1/result.json" 2>&1
}

# --- 1. killed between generation and evaluation ---------------------------
KFORGE_TEST_DIE_AFTER=gen "$KFORGE" run "$here/scale_relu.json" --backend cpu-simd --agent "cmd:$tmp/agent.sh resume" \
    --out "$tmp/run" --no-baseline --target 0 --max-iterations 2 >"$tmp/out1" 2>&1
rc=$?
ev=$(events "$tmp/run")
[ $rc -eq 137 ] && [ "$ev" = "start gen" ] && ok "the test hook kills kforge right after the gen event" \
    || no "the test hook kills kforge right after the gen event" "exit $rc" "journal: $ev"
[ "$(cat "$tmp/calls.resume")" = 1 ] && ok "one agent call before the kill" || no "one agent call before the kill" "calls=$(cat "$tmp/calls.resume")"

"$KFORGE" run --resume "$tmp/run" >"$tmp/out2" 2>&1
rc=$?
[ $rc -eq 0 ] && ok "resume finishes with a correct kernel" || no "resume finishes with a correct kernel" "exit $rc" "$(tail -n 20 "$tmp/out2")"
[ "$(cat "$tmp/calls.resume")" = 3 ] && ok "the generated candidate is not asked for again (3 calls in all)" \
    || no "no step paid for twice" "calls=$(cat "$tmp/calls.resume")" "$(cat "$tmp/run/journal.jsonl")"
ev=$(events "$tmp/run")
case "$ev" in "start gen resume eval-start eval:pass best analysis gen eval-start eval:pass"*"done") ok "journal: the pending step is evaluated on resume";;
  *) no "journal: the pending step is evaluated on resume" "$ev";; esac
case "$(best_dir "$tmp/run")" in steps/000[12]-0/candidate) ok "result.json names a verified best";; *) false;; esac \
    || no "result.json names a verified best" "$(cat "$tmp/run/result.json" 2>&1)"

# --- 2. killed while the candidate runs ---------------------------------------
# The first candidate sleeps 4 s in its first call: kill -9 kforge once its
# evaluation has started.
"$KFORGE" run "$here/scale_relu.json" --backend cpu-simd --agent "cmd:$tmp/agent.sh crash" \
    --out "$tmp/crash" --no-baseline --target 0 --max-iterations 2 >"$tmp/out3" 2>&1 &
pid=$!
for i in $(seq 200); do grep -q '"ev":"eval-start"' "$tmp/crash/journal.jsonl" 2>/dev/null && break; sleep 0.05; done
sleep 1
kill -9 $pid; wait $pid 2>/dev/null
ev=$(events "$tmp/crash")
[ "$ev" = "start gen eval-start" ] && ok "killed during the first evaluation" || no "killed during the first evaluation" "journal: $ev"

"$KFORGE" run --resume "$tmp/crash" >"$tmp/out4" 2>&1
rc=$?
[ $rc -eq 0 ] && ok "resume finishes with a correct kernel" || no "resume finishes with a correct kernel" "exit $rc" "$(tail -n 20 "$tmp/out4")"
ev=$(events "$tmp/crash")
[ "$ev" = "start gen eval-start resume eval:crash gen eval-start eval:pass best elapsed done" ] \
    && ok "journal: the candidate kforge died with is a crash, then repaired" \
    || no "journal: the candidate kforge died with is a crash, then repaired" "$ev"
starts=$(grep -c '"ev":"eval-start".*"dir":"steps/0001-0"' "$tmp/crash/journal.jsonl")
[ "$starts" = 1 ] && ok "it is never evaluated again" || no "it is never evaluated again" "eval-start events for steps/0001-0: $starts"
grep -q "kforge died while evaluating steps/0001-0: recorded as a crash, not evaluated again" "$tmp/out4" \
    && ok "the resumed run says so" || no "the resumed run says so" "$(cat "$tmp/out4")"
"$PYTHON3" -c '
import json,sys
e = json.load(open(sys.argv[1]))
sys.exit(0 if e["verdict"] == "crash" and "kforge itself" in e["diagnostics"] and "not evaluated again" in e["diagnostics"] else 1)' \
    "$tmp/crash/steps/0001-0/eval.json" && ok "its eval.json: verdict crash, diagnosis says kforge itself died" \
    || no "its eval.json: verdict crash, diagnosis says kforge itself died" "$(cat "$tmp/crash/steps/0001-0/eval.json")"
grep -q "kforge itself" "$tmp/crash/steps/0002-0/prompt.md" && ok "the repair prompt carries the diagnosis" \
    || no "the repair prompt carries the diagnosis" "$(head -c 2000 "$tmp/crash/steps/0002-0/prompt.md")"
[ "$(cat "$tmp/calls.crash")" = 2 ] && [ "$(best_dir "$tmp/crash")" = steps/0002-0/candidate ] \
    && ok "the repair is the verified best (2 agent calls in all)" \
    || no "the repair is the verified best (2 agent calls in all)" "calls=$(cat "$tmp/calls.crash")" "$(cat "$tmp/crash/result.json")"
tap_exit
