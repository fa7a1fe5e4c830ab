#!/bin/bash
# kforge run --agent-seed K: recorded in run.json, result.json and the
# journal's start event, kept by --resume (which refuses a new one), bad
# values refused; an LLM agent's request seed moves with it (loopback stub).
set -u
here="$KF_SRCDIR/tests/e2e/llm"
tmp=$(mktemp -d); trap 'exec 4>&- 2>/dev/null; rm -rf "$tmp"' EXIT
. "$KF_SRCDIR/tests/e2e/tap.sh"
echo "1..8"
export XDG_CACHE_HOME="$tmp/cache"
py() { "$PYTHON3" -c "$@"; }

"$KFORGE" run "$here/scale_relu.json" --backend cpu-simd --agent-seed 7 --out "$tmp/run" --no-baseline \
    --max-iterations 1 >"$tmp/out1" 2>&1
rc=$?
got=$(py '
import json, sys
d = sys.argv[1]
run = json.load(open(d + "/run.json")); res = json.load(open(d + "/result.json"))
start = [json.loads(l) for l in open(d + "/journal.jsonl") if "\"start\"" in l][0]
print(run["agent_seed"], res["agent_seed"], start["agent_seed"], run["seed"])' "$tmp/run" 2>&1)
[ $rc -eq 0 ] && [ "$got" = "7 7 7 20261122" ] && ok "run.json, result.json and the start event record agent seed 7 (input seed unchanged)" \
    || no "agent seed 7 recorded" "exit $rc, got: $got" "$(tail -n 5 "$tmp/out1")"

# killed right after its first generation, resumed: the seed is kept
KFORGE_TEST_DIE_AFTER=gen "$KFORGE" run "$here/scale_relu.json" --backend cpu-simd --agent-seed 9 \
    --out "$tmp/killed" --no-baseline --max-iterations 2 >"$tmp/out2" 2>&1
"$KFORGE" run --resume "$tmp/killed" >"$tmp/out3" 2>&1
rc=$?
got=$(py 'import json,sys; print(json.load(open(sys.argv[1] + "/result.json"))["agent_seed"], json.load(open(sys.argv[1] + "/run.json"))["agent_seed"])' "$tmp/killed" 2>&1)
[ $rc -eq 0 ] && [ "$got" = "9 9" ] && ok "a resumed run keeps agent seed 9" \
    || no "a resumed run keeps agent seed 9" "exit $rc, got: $got" "$(tail -n 5 "$tmp/out3")"

"$KFORGE" run --resume "$tmp/killed" --agent-seed 3 >"$tmp/out4" 2>&1
rc=$?
[ $rc -eq 2 ] && grep -q "keeps the run's --agent-seed" "$tmp/out4" && ok "--resume with a new --agent-seed exits 2" \
    || no "--resume with a new --agent-seed exits 2" "exit $rc" "$(cat "$tmp/out4")"
"$KFORGE" run "$here/scale_relu.json" --backend cpu-simd --agent-seed -1 --out "$tmp/bad" >"$tmp/out5" 2>&1
rc=$?
[ $rc -eq 2 ] && [ ! -e "$tmp/bad" ] && ok "a negative --agent-seed exits 2 before anything runs" \
    || no "a negative --agent-seed exits 2" "exit $rc" "$(cat "$tmp/out5")"

# an LLM agent: the request's seed differs with --agent-seed, and is the old one without
"$PYTHON3" - "$tmp/script.json" <<'PYEOF'
import json, sys
sys.path.insert(0, __import__("os").environ["KF_SRCDIR"] + "/tests/e2e/llm")
import make_script as m
item = {"content": m.fenced(m.FAST), "usage": [10, 5]}
json.dump({"openai": [item, item, item]}, open(sys.argv[1], "w"))
PYEOF
mkfifo "$tmp/stdin"
"$PYTHON3" "$KF_SRCDIR/tests/stub/llm_stub.py" "$tmp/script.json" "$tmp/requests.jsonl" <"$tmp/stdin" >"$tmp/port" 2>"$tmp/stub.err" &
exec 4>"$tmp/stdin"
for i in $(seq 100); do [ -s "$tmp/port" ] && break; sleep 0.05; done
port=$(head -n1 "$tmp/port")
export OPENAI_BASE_URL="http://127.0.0.1:$port/v1" OPENAI_API_KEY=sk-test
for s in 0 1 2; do
    "$KFORGE" run "$here/scale_relu.json" --backend cpu-simd --agent openai:stub-model --agent-seed $s \
        --out "$tmp/llm$s" --no-baseline --target 0 --max-iterations 1 >"$tmp/llm$s.out" 2>&1 \
        || no "LLM run with agent seed $s" "$(tail -n 5 "$tmp/llm$s.out")"
done
seeds=$(py '
import json, sys
print(" ".join(str(r["body"].get("seed")) for r in map(json.loads, open(sys.argv[1])) if r.get("body")))' "$tmp/requests.jsonl" 2>&1)
set -- $seeds
[ $# -eq 3 ] && [ "$1" != "$2" ] && [ "$2" != "$3" ] && [ "$1" != "$3" ] && [ "$1" != None ] \
    && ok "the three requests carry three different seeds ($seeds)" || no "three different request seeds" "got: $seeds"
# seed 0 (none) is kforge's seed of step 1 without an agent seed, as before this option
want=$(py 'print((20261122 ^ 0x9E3779B97F4A7C15 ^ 0xBF58476D1CE4E5B9) & (2**64-1))')
want=$(py "x=$want; x ^= x >> 31; print(x & 0x7fffffffffff)")
[ "${1:-}" = "$want" ] && ok "without --agent-seed the request seed is unchanged ($want)" \
    || no "without --agent-seed the request seed is unchanged" "got ${1:-none}, want $want"
got=$(py 'import json,sys; print(json.load(open(sys.argv[1] + "/run.json"))["agent_seed"])' "$tmp/llm2" 2>&1)
[ "$got" = "2" ] && ok "the LLM run records agent seed 2" || no "the LLM run records agent seed 2" "got: $got"
if grep -q "Sanitizer\|runtime error" "$tmp"/*.out "$tmp"/llm*.out 2>/dev/null; then no "no sanitizer report" "$(grep -h -A5 Sanitizer "$tmp"/*.out | head -20)"
else ok "no sanitizer report"; fi
tap_exit
