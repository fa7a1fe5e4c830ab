#!/bin/bash
# kforge run with a real LLM provider (openai wire format) against the loopback
# stub: scripted answers walk the loop through a compile error, a wrong answer,
# a correct but slow kernel and a faster one.
set -u
here="$KF_SRCDIR/tests/e2e/llm"
tmp=$(mktemp -d); trap 'exec 4>&- 2>/dev/null; rm -rf "$tmp"' EXIT
. "$KF_SRCDIR/tests/e2e/tap.sh"
echo "1..9"

"$PYTHON3" "$here/make_script.py" walk "$tmp/script.json"
mkfifo "$tmp/stdin"
"$PYTHON3" "$KF_SRCDIR/tests/stub/llm_stub.py" "$tmp/script.json" "$tmp/requests.jsonl" <"$tmp/stdin" >"$tmp/port" 2>"$tmp/stub.err" &
exec 4>"$tmp/stdin"
for i in $(seq 100); do [ -s "$tmp/port" ] && break; sleep 0.05; done
port=$(head -n1 "$tmp/port")

export OPENAI_BASE_URL="http://127.0.0.1:$port/v1" OPENAI_API_KEY=sk-test-SECRET-e2e
export XDG_CACHE_HOME="$tmp/cache"
"$KFORGE" run "$here/scale_relu.json" --backend cpu-simd --agent openai:stub-model \
    --out "$tmp/run" --no-baseline --target 0 --max-iterations 8 >"$tmp/out" 2>&1
rc=$?
[ $rc -eq 0 ] && ok "run exits 0 with a correct kernel" || no "run exits 0 with a correct kernel" "exit $rc" "$(tail -n 20 "$tmp/out")"

verdicts=$("$PYTHON3" -c '
import json,sys
print(" ".join(e["verdict"] for e in map(json.loads, open(sys.argv[1])) if e["ev"] == "eval"))' "$tmp/run/journal.jsonl" 2>&1)
[ "$verdicts" = "compile-error mismatch pass pass" ] && ok "steps: compile error, mismatch, slow pass, fast pass" \
    || no "steps: compile error, mismatch, slow pass, fast pass" "got: $verdicts"

best=$("$PYTHON3" -c 'import json,sys; r=json.load(open(sys.argv[1])); print(r["best"]["dir"])' "$tmp/run/result.json" 2>&1)
[ "$best" = "steps/0004-0/candidate" ] && ok "the faster kernel is kept as best" || no "the faster kernel is kept as best" "got: $best"

nreq=$(grep -c '"method": "POST"' "$tmp/requests.jsonl")
[ "$nreq" -eq 6 ] && ok "six requests: 4 generations + 2 analyses" || no "six requests" "got $nreq"

field() { "$PYTHON3" -c '
import json,sys
reqs=[r for r in map(json.loads, open(sys.argv[1])) if r["method"] == "POST"]
r=reqs[int(sys.argv[2])]
print(r["headers"].get("authorization",""), "|", r["path"], "|", r["body"]["model"], "|", "\n".join(m["content"] for m in r["body"]["messages"]))' "$tmp/requests.jsonl" "$1"; }
r1=$(field 1)
case "$r1" in *"Bearer sk-test-SECRET-e2e | /v1/chat/completions | stub-model"*"did not compile"*"error"*) ok "fix-compile prompt carries the compiler log";;
  *) no "fix-compile prompt carries the compiler log" "$(echo "$r1" | head -c 600)";; esac
r2=$(field 2)
case "$r2" in *"failed verification"*"mismatch"*) ok "fix-mismatch prompt carries the verification report";;
  *) no "fix-mismatch prompt carries the verification report" "$(echo "$r2" | head -c 600)";; esac
r4=$(field 4)
case "$r4" in *"remove the usleep"*"3 ms of idle time"*) ok "optimize prompt carries the analysis agent's recommendation";;
  *) no "optimize prompt carries the recommendation" "$(echo "$r4" | head -c 600)";; esac

tok=$("$PYTHON3" -c 'import json,sys; r=json.load(open(sys.argv[1])); print(r["tokens_in"], r["tokens_out"])' "$tmp/run/result.json")
[ "$tok" = "670 320" ] && ok "token use is accounted" || no "token use is accounted" "got $tok"

if grep -rq "sk-test-SECRET-e2e" "$tmp/run" "$tmp/cache" 2>/dev/null; then no "the API key is written nowhere" "$(grep -rl sk-test-SECRET-e2e "$tmp/run" "$tmp/cache")"
else ok "the API key is written nowhere"; fi
tap_exit
