#!/bin/bash
# kforge run with an LLM agent the way a real model server behaves (issue 13), against
# the loopback stub: prompts found without --prompts and checked before the baseline,
# --max-tokens / --temperature / the context length (flag, /v1/models, /props, a refusal),
# continuations that fit and keep the answer, replay of a recorded run in a new run,
# replay misses that say what differs, a dead server that stops the run resumably
# (exit 4), unusable answers fed back, --max-time during a request, retries printed,
# the prompts' text, cmd: seeds and token counts, setup failures exiting 2.
set -u
here="$KF_SRCDIR/tests/e2e/llm"
tmp=$(mktemp -d)
stub_fds=()
cleanup() { for fd in "${stub_fds[@]}"; do eval "exec $fd>&-" 2>/dev/null; done; rm -rf "$tmp"; }
trap cleanup EXIT
. "$KF_SRCDIR/tests/e2e/tap.sh"
echo "1..35"
P="$here/scale_relu.json"

# stub NAME SCRIPT.json: starts a stub; sets $port, its log is $tmp/NAME.req
stub() {
    local fd
    mkfifo "$tmp/$1.in"
    "$PYTHON3" "$KF_SRCDIR/tests/stub/llm_stub.py" "$2" "$tmp/$1.req" <"$tmp/$1.in" >"$tmp/$1.port" 2>"$tmp/$1.err" &
    exec {fd}>"$tmp/$1.in"
    stub_fds+=("$fd")
    for i in $(seq 100); do [ -s "$tmp/$1.port" ] && break; sleep 0.05; done
    port=$(head -n1 "$tmp/$1.port")
    export OPENAI_BASE_URL="http://127.0.0.1:$port/v1"
}
# case_stub NAME: the case's script (make_script.py case NAME); a second start of the same
# case gets a fresh log
case_stub() {
    rm -f "$tmp/$1.req" "$tmp/$1.in" "$tmp/$1.port"
    "$PYTHON3" "$here/make_script.py" case "$1" "$tmp/$1.json"; stub "$1" "$tmp/$1.json"; }
# posts LOG [N]: the POST bodies of a stub log (JSON lines), or the N-th one
posts() { "$PYTHON3" -c '
import json,sys
b=[r["body"] for r in map(json.loads, open(sys.argv[1])) if r["method"] == "POST"]
if len(sys.argv) > 2: print(json.dumps(b[int(sys.argv[2])]))
else: print(len(b))' "$@"; }
jget() { "$PYTHON3" -c 'import json,sys; o=json.loads(sys.argv[1]); exec("print(" + sys.argv[2] + ")")' "$1" "$2"; }
user_msg() { jget "$1" 'o["messages"][-1]["content"] if o["messages"][-1]["role"]=="user" else ""'; }
evs() { "$PYTHON3" -c '
import json,sys
print(" ".join(e.get(sys.argv[3], "?") if sys.argv[3] != "-" else e["ev"] for e in map(json.loads, open(sys.argv[1])) if sys.argv[2] in ("*", e["ev"])))' "$@"; }

export OPENAI_API_KEY=sk-test-e2e XDG_CONFIG_HOME="$tmp/config"
mkdir -p "$tmp/config/kforge"
printf '[http]\nmax_attempts = 2\nbackoff_base = 0.05\nbackoff_max = 0.1\n' >"$tmp/config/kforge/config"
run() { XDG_CACHE_HOME="$tmp/cache-$1" "$KFORGE" run "$P" --backend cpu-simd --agent openai:stub-model \
          --out "$tmp/$1" --target 0 "${@:2}" >"$tmp/$1.out" 2>&1; }

# ---- 1: the templates without --prompts, from the build tree ---------------------------
case_stub good
(unset KFORGE_PROMPTS; run good --no-baseline --max-iterations 1)
rc=$?
[ $rc -eq 0 ] && ok "without --prompts nor KFORGE_PROMPTS the build tree's templates are found" \
    || no "without --prompts the build tree's templates are found" "exit $rc" "$(tail -n 5 "$tmp/good.out")"

# a broken template: exit 2 before anything is measured (no run directory, no baseline)
mkdir -p "$tmp/badprompts/roles"
printf 'Write {{grpah}}\n' >"$tmp/badprompts/roles/fix-mismatch.md"
t0=$(date +%s)
run badtmpl --prompts "$tmp/badprompts" --max-iterations 1
rc=$?
[ $rc -eq 2 ] && ok "a broken template exits 2" || no "a broken template exits 2" "exit $rc" "$(tail -n 3 "$tmp/badtmpl.out")"
grep -q "roles/fix-mismatch.md: unknown variable {{grpah}}" "$tmp/badtmpl.out" && [ ! -e "$tmp/badtmpl/baseline" ] \
    && ok "it is said before the baseline is measured" || no "it is said before the baseline" "$(cat "$tmp/badtmpl.out")"

# --prompts is kept in run.json (a resume uses it)
mkdir -p "$tmp/myprompts/roles"
sed 's/Write a /Please write a /' "$KF_SRCDIR/prompts/roles/generate.md" >"$tmp/myprompts/roles/generate.md"
case_stub good
run myp --prompts "$tmp/myprompts" --no-baseline --max-iterations 1
pr=$(jget "$(cat "$tmp/myp/run.json")" 'o.get("prompts","")')
[ "$pr" = "$(cd "$tmp/myprompts" && pwd -P)" ] && ok "--prompts is recorded in run.json" || no "--prompts is recorded in run.json" "got '$pr'"
case "$(user_msg "$(posts "$tmp/good.req" 0)")" in "Please write a cpu-simd"*) ok "the --prompts template is used";;
    *) no "the --prompts template is used" "$(user_msg "$(posts "$tmp/good.req" 0)" | head -n 2)";; esac

# ---- 2: --max-tokens, --temperature, the context length --------------------------------
case_stub good
run flags --no-baseline --max-iterations 1 --max-tokens 1234 --temperature 0.25
b=$(posts "$tmp/good.req" 0)
[ "$(jget "$b" 'o["max_tokens"], o["temperature"]')" = "1234 0.25" ] && ok "--max-tokens and --temperature reach the request" \
    || no "--max-tokens and --temperature reach the request" "$b"
mt=$(jget "$(cat "$tmp/flags/run.json")" 'o.get("max_tokens"), o.get("temperature")')
[ "$mt" = "1234 0.25" ] && ok "and are kept in run.json" || no "and are kept in run.json" "got $mt"

printf '[http]\nmax_attempts = 2\nbackoff_base = 0.05\n[llm]\nmax_tokens = 777\ntemperature = 0.5\n' >"$tmp/config/kforge/config"
case_stub good
run cfg --no-baseline --max-iterations 1
b=$(posts "$tmp/good.req" 0)
[ "$(jget "$b" 'o["max_tokens"], o["temperature"]')" = "777 0.5" ] && ok "[llm] max_tokens and temperature in the config" \
    || no "[llm] max_tokens and temperature in the config" "$b"
printf '[http]\nmax_attempts = 2\nbackoff_base = 0.05\nbackoff_max = 0.1\n' >"$tmp/config/kforge/config"

case_stub probe
run probe --no-baseline --max-iterations 1 --max-tokens 100000
b=$(posts "$tmp/probe.req" 0)
m=$(jget "$b" 'o["max_tokens"]')
[ "$m" -gt 1000 ] && [ "$m" -lt 8000 ] && ok "the context the server's /v1/models says bounds max_tokens ($m)" \
    || no "the context of /v1/models bounds max_tokens" "max_tokens $m"
case_stub props
run props --no-baseline --max-iterations 1 --record "$tmp/props.cassette"
m=$(jget "$(posts "$tmp/props.req" 0)" 'o["max_tokens"]')
[ "$m" -gt 1000 ] && [ "$m" -lt 4096 ] && ok "llama.cpp's /props n_ctx bounds max_tokens ($m)" \
    || no "llama.cpp's /props n_ctx bounds max_tokens" "max_tokens $m"
# the replay cuts the limit to the context the recording knew: the same keys
XDG_CACHE_HOME="$tmp/cache-pr" "$KFORGE" run "$P" --backend cpu-simd --agent "replay:$tmp/props.cassette" \
    --out "$tmp/props-replay" --target 0 --no-baseline --max-iterations 1 >"$tmp/props-replay.out" 2>&1
rc=$?
[ $rc -eq 0 ] && ok "a replay cuts max_tokens to the context recorded with the cassette" \
    || no "a replay cuts max_tokens to the recorded context" "exit $rc" "$(tail -n 3 "$tmp/props-replay.out")"

# ---- 3: a continuation fits the context; its failure keeps the answer ------------------
case_stub length
run length --no-baseline --max-iterations 1 --context-tokens 6000 --max-tokens 100000
m0=$(jget "$(posts "$tmp/length.req" 0)" 'o["max_tokens"]')
m1=$(jget "$(posts "$tmp/length.req" 1)" 'o["max_tokens"], len(o["messages"]), o["messages"][2]["role"]')
set -- $m1
# the first: 6000 less the prompt's estimate; the continuation: less what the server
# counted (1000 prompt + 50 answer tokens) and the request to continue
[ "$m0" -lt 5000 ] && [ "$1" -le $((6000 - 1050)) ] && [ "$1" -gt 4800 ] && [ "$2" = 4 ] && [ "$3" = assistant ] \
    && ok "the continuation asks for what the context has left ($m0, then $1)" \
    || no "the continuation fits the context" "first $m0, then $m1"
grep -q "Here it is:" "$tmp/length/steps/0001-0/answer.md" 2>/dev/null \
    && ok "a failed continuation keeps the answer received (answer.md)" || no "a failed continuation keeps the answer" "$(ls "$tmp/length/steps/0001-0" 2>&1)"
grep -q "cut off\|no closing fence\|unterminated\|truncated" "$tmp/length/steps/0001-0/error.txt" 2>/dev/null \
    && ok "and the cut answer is judged (no closing fence)" || no "the cut answer is judged" "$(cat "$tmp/length/steps/0001-0/error.txt" 2>&1)"

# ---- 4: record, then replay in a new run; a miss says what differs ---------------------
"$PYTHON3" "$here/make_script.py" walk "$tmp/walk.json"
stub walk "$tmp/walk.json"
run rec --no-baseline --max-iterations 8 --record "$tmp/walk.cassette"
rc1=$?
XDG_CACHE_HOME="$tmp/cache-replay" "$KFORGE" run "$P" --backend cpu-simd --agent "replay:$tmp/walk.cassette" \
    --out "$tmp/replay" --target 0 --no-baseline --max-iterations 8 >"$tmp/replay.out" 2>&1
rc2=$?
v1=$(evs "$tmp/rec/journal.jsonl" eval verdict); v2=$(evs "$tmp/replay/journal.jsonl" eval verdict)
[ $rc1 -eq 0 ] && [ $rc2 -eq 0 ] && [ "$v1" = "$v2" ] && [ "$v1" = "compile-error mismatch pass pass" ] \
    && ok "a recorded run replays in a new run (measured figures are out of the keys)" \
    || no "a recorded run replays in a new run" "exit $rc1/$rc2: '$v1' vs '$v2'" "$(tail -n 3 "$tmp/replay.out")"
b0=$(posts "$tmp/walk.req" 0)
sys=$(jget "$b0" 'o["messages"][0]["content"]')
case "$sys" in *"expert CPU kernel engineer"*) case "$sys" in *"launch plan"*|*GPU*) no "the system prompt fits a CPU C backend" "$sys";;
    *) ok "the system prompt fits a CPU C backend";; esac;; *) no "the system prompt fits a CPU C backend" "$sys";; esac
u0=$(user_msg "$b0")
case "$u0" in *Roofline*|*GB/s*) no "the first prompt carries no performance section" "$u0";; *) ok "the first prompt carries no performance section";; esac
u2=$(user_msg "$(posts "$tmp/walk.req" 2)")
s1=$(printf '%s\n' "$u2" | grep -m1 -A1 "^verdict:" | tail -n1)
[ "$(printf '%s\n' "$u2" | grep -cxF -- "$s1")" -eq 1 ] && ok "the mismatch report gives its summary once" \
    || no "the mismatch report gives its summary once" "$(printf '%s\n' "$u2" | sed -n '/Verification report/,/problem, again/p')"
u4=$(user_msg "$(posts "$tmp/walk.req" 4)")
case "$u4" in *"see the run record"*) no "the optimize prompt says the baseline itself" "$u4";;
    *"op-by-op baseline: not measured"*) ok "the optimize prompt says the baseline itself";; *) no "the optimize prompt says the baseline" "$u4";; esac
# a template changed since the recording: the miss names the message and the line
cp -r "$KF_SRCDIR/prompts" "$tmp/changed"; chmod -R u+w "$tmp/changed"
sed -i 's/^Answer with the candidate in the format the guide gives/Answer only with the candidate in the format the guide gives/' "$tmp/changed/roles/generate.md"
XDG_CACHE_HOME="$tmp/cache-replay" "$KFORGE" run "$P" --backend cpu-simd --agent "replay:$tmp/walk.cassette" \
    --out "$tmp/miss" --target 0 --no-baseline --max-iterations 8 --prompts "$tmp/changed" >"$tmp/miss.out" 2>&1
rc=$?
[ $rc -eq 2 ] && grep -q "message 2 (user), line [0-9]*: now 'Answer only with" "$tmp/miss.out" \
    && ok "a replay miss exits 2 and says which message and line differ" || no "a replay miss says what differs" "exit $rc" "$(tail -n 3 "$tmp/miss.out")"

# ---- 5: a dead server stops the run, resumable, exit 4 ---------------------------------
dead=$("$PYTHON3" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()')
OPENAI_BASE_URL="http://127.0.0.1:$dead/v1" run dead --no-baseline --max-iterations 5 --prompts "$tmp/myprompts"
rc=$?
[ $rc -eq 4 ] && ok "a dead server exits 4" || no "a dead server exits 4" "exit $rc" "$(tail -n 4 "$tmp/dead.out")"
grep -q "stopped: the model server is unavailable: .*cannot talk to http://127.0.0.1:$dead.*(resume with: kforge run --resume $tmp/dead --prompts $tmp/myprompts)" "$tmp/dead.out" \
    && ok "it says so and how to resume" || no "it says so and how to resume" "$(grep stopped "$tmp/dead.out")"
[ -z "$(evs "$tmp/dead/journal.jsonl" eval verdict)" ] && ok "no iteration is burnt as a bad answer" \
    || no "no iteration is burnt" "$(evs "$tmp/dead/journal.jsonl" '*' -)"
grep -q "retry 2 of 2" "$tmp/dead.out" && grep -q "cannot talk to" "$tmp/dead/steps/0001-0/error.txt" 2>/dev/null \
    && [ -s "$tmp/dead/steps/0001-0/prompt.md" ] \
    && ok "the retry is printed; the step keeps its prompt and the failure" || no "the retry is printed, the failure kept" "$(cat "$tmp/dead.out")" "$(ls "$tmp/dead/steps/0001-0" 2>&1)"
case_stub good
XDG_CACHE_HOME="$tmp/cache-dead" "$KFORGE" run --resume "$tmp/dead" --max-iterations 1 >"$tmp/resume.out" 2>&1
rc=$?
[ $rc -eq 0 ] && [ ! -e "$tmp/dead/steps/0001-0/error.txt" ] && case "$(user_msg "$(posts "$tmp/good.req" 0)")" in "Please write a"*) true;; *) false;; esac \
    && ok "the resumed run goes on, with the recorded --prompts" || no "the resumed run goes on with its --prompts" "exit $rc" "$(tail -n 3 "$tmp/resume.out")"

# ---- 6: an unusable answer is fed back; ```cpp is accepted ------------------------------
case_stub unusable
run unusable --no-baseline --max-iterations 2
rc=$?
u1=$(user_msg "$(posts "$tmp/unusable.req" 1)")
case "$u1" in *"held no usable cpu-simd candidate"*"no fenced"*) ok "the next prompt says why the answer was unusable";;
    *) no "the next prompt says why the answer was unusable" "$(echo "$u1" | head -n 4)";; esac
[ $rc -eq 0 ] && [ "$(evs "$tmp/unusable/journal.jsonl" eval verdict)" = "compile-error pass" ] \
    && ok "a \`\`\`cpp fence is accepted" || no "a cpp fence is accepted" "exit $rc" "$(evs "$tmp/unusable/journal.jsonl" eval verdict)"

# ---- 7: --max-time holds during a request ----------------------------------------------
case_stub stall
t0=$(date +%s.%N)
run stall --no-baseline --max-iterations 3 --max-time 3
t1=$(date +%s.%N)
dt=$("$PYTHON3" -c "print(round($t1 - $t0, 1))")
sr=$(jget "$(cat "$tmp/stall/result.json")" 'o["stop_reason"]' 2>&1)
"$PYTHON3" -c "import sys; sys.exit(0 if $dt < 12 else 1)" && [ "$sr" = "time budget spent" ] \
    && ok "a stalled request ends with the time budget (${dt} s, '$sr')" || no "--max-time holds during a request" "took $dt s, stop '$sr'"

# --request-timeout bounds one attempt; a server that never answers is a dead one (exit 4)
case_stub stall
t0=$(date +%s.%N)
run rtmo --no-baseline --max-iterations 3 --request-timeout 1
rc=$?
dt=$("$PYTHON3" -c "print(round($(date +%s.%N) - $t0, 1))")
[ $rc -eq 4 ] && grep -q "no answer from .* within 1 s" "$tmp/rtmo.out" && "$PYTHON3" -c "import sys; sys.exit(0 if $dt < 15 else 1)" \
    && ok "--request-timeout 1: no answer within 1 s stops the run, exit 4 (${dt} s)" \
    || no "--request-timeout bounds a request" "exit $rc after $dt s" "$(tail -n 3 "$tmp/rtmo.out")"

# ---- 8: retries are printed ------------------------------------------------------------
case_stub retry
run retry --no-baseline --max-iterations 1
rc=$?
[ $rc -eq 0 ] && grep -q "503 Service Unavailable from openai: loading model; retry 2 of 2 in" "$tmp/retry.out" \
    && grep -q "^\[  1\] functional   asking openai:stub-model (sample 0) ...$" "$tmp/retry.out" \
    && ok "a request and its retry are announced" || no "a request and its retry are announced" "exit $rc" "$(cat "$tmp/retry.out")"

# ---- 9: setup failures exit 2 ----------------------------------------------------------
case_stub auth
run auth --no-baseline --max-iterations 3
rc=$?
[ $rc -eq 2 ] && grep -q "401 Unauthorized.*check OPENAI_API_KEY" "$tmp/auth.out" \
    && ok "a refused key exits 2 and says what to check" || no "a refused key exits 2" "exit $rc" "$(tail -n 3 "$tmp/auth.out")"
XDG_CACHE_HOME="$tmp/cache-x" "$KFORGE" run "$P" --backend cpu-simd --agent "replay:$tmp/nothing.jsonl" \
    --out "$tmp/nocas" --no-baseline >"$tmp/nocas.out" 2>&1
rc=$?
[ $rc -eq 2 ] && grep -q "cannot read the cassette" "$tmp/nocas.out" && ok "a missing cassette exits 2" || no "a missing cassette exits 2" "exit $rc" "$(cat "$tmp/nocas.out")"

# ---- 10: cmd: a seed per sample and token counts ---------------------------------------
cat >"$tmp/agent.sh" <<EOF
#!/bin/sh
cat >/dev/null
echo "\$KFORGE_LLM_SEED \$KFORGE_LLM_MAX_TOKENS" >>"$tmp/seeds"
echo "kforge-usage: prompt_tokens=7 completion_tokens=9" >&2
"$PYTHON3" "$here/make_script.py" answer 2 records
EOF
chmod +x "$tmp/agent.sh"
XDG_CACHE_HOME="$tmp/cache-cmd" "$KFORGE" run "$P" --backend cpu-simd --agent "cmd:$tmp/agent.sh" --out "$tmp/cmd" \
    --target 0 --no-baseline --max-iterations 1 --samples 2 --max-tokens 999 >"$tmp/cmd.out" 2>&1
rc=$?
seeds=$(cut -d' ' -f1 "$tmp/seeds" | sort -u | wc -l)
[ $rc -eq 0 ] && [ "$seeds" -eq 2 ] && [ "$(cut -d' ' -f2 "$tmp/seeds" | sort -u)" = 999 ] \
    && ok "cmd: each sample gets its own seed (and the answer length)" || no "cmd: each sample gets its own seed" "exit $rc" "$(cat "$tmp/seeds")"
tok=$(jget "$(cat "$tmp/cmd/result.json")" 'o["tokens_in"], o["tokens_out"]')
[ "$tok" = "14 18" ] && ok "cmd: the token counts the command reports are accounted" || no "cmd: token counts" "got $tok"

# ---- 11: the cassette records failed requests too --------------------------------------
case_stub retry
run recfail --no-baseline --max-iterations 1 --record "$tmp/fail.cassette"
case_stub auth
run recfail2 --no-baseline --max-iterations 1 --record "$tmp/fail.cassette"
grep -q '"error":{"code":[0-9]*,"message":"401 Unauthorized' "$tmp/fail.cassette" \
    && ok "a failed request is recorded in the cassette" || no "a failed request is recorded" "$(cut -c1-200 "$tmp/fail.cassette")"
tap_exit
