#!/bin/bash
# test_counters.sh — hardware counters (--counters, doc/sandbox.md "Hardware
# counters") end to end with the real worker and sandbox, the cpu-simd
# plugin, and fake ncu scripts on PATH (tests/e2e/fake-ncu: it runs the worker
# after its options, then writes the log ncu 2025.3.1 wrote on an H100 for
# problem 9's best kernel; fake-ncu-broken writes only an ncu error).
# `--counters ncu` profiles any backend (auto: cuda only, where no test here
# can run it), so the whole path — ncu in front of the sandboxed worker, its
# log parsed, eval.json, the profile output, the analysis prompt — runs in CI.
set -u
SRC=${KF_SRCDIR:-.}
. "$SRC/tests/e2e/tap.sh"
ADV="$SRC/tests/adversarial"
P="$ADV/problems/scale_bias.json"
C="$ADV/cpu-simd/correct.c"
FAKE="$SRC/tests/e2e/fake-ncu"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kf-counters.XXXXXX") || exit 1
trap 'exec 4>&- 2>/dev/null; rm -rf "$tmp"' EXIT
unset KFORGE_NCU
echo "1..19"

# prof OUT [ENV=V...] -- ARGS...: kforge profile ARGS into OUT (stdout and
# stderr).  A round of timed runs that a loaded machine made fail the
# host-clock check is measured again by kforge itself (eval_profile.c).
prof() {
    local o=$1; shift
    local env=()
    while [ "$1" != -- ]; do env+=("$1"); shift; done; shift
    env "${env[@]}" "$KFORGE" profile "$@" >"$o" 2>&1; rc=$?
    return $rc
}

# expect NAME WANT_RC GOT_RC TEXT NEEDLE...
expect() {
    local name=$1 want=$2 got=$3 text=$4; shift 4
    if [ "$got" != "$want" ]; then no "$name" "exit $got, expected $want" "$(printf '%s\n' "$text" | tail -n 15)"; return; fi
    for needle in "$@"; do
        case $text in *"$needle"*) ;; *) no "$name" "missing: $needle" "$(printf '%s\n' "$text" | tail -n 15)"; return ;; esac
    done
    ok "$name"
}

prof "$tmp/o" PATH="$FAKE:$PATH" -- -b cpu-simd -p "$P" --counters ncu "$C"; out=$(cat "$tmp/o")
expect "profile --counters ncu: the recorded kernels' counters after the timing" 0 $rc "$out" \
    "verdict: pass" "time: median" \
    "hardware counters (Nsight Compute, one replay after timing; advisory):" \
    "kernel g0_gemm_bf16_epilogue: duration 455.6 us, occupancy 12.4%, dram 12.8%, l2 61.9%, sm 47.5%, tensor (mma.sync) 49.9%, registers/thread 215; top stalls (warps per issue): wait 2.66, long_scoreboard 1.46, math_pipe_throttle 0.95" \
    "kernel g0_a_to_bf16: duration 15.36 us"

prof "$tmp/p.json" PATH="$FAKE:$PATH" -- -b cpu-simd -p "$P" --counters ncu --json "$C"; cp "$tmp/p.json" "$tmp/p.err"
got=$("$PYTHON3" -c '
import json,sys
d=json.load(open(sys.argv[1])); h=d["hw_counters"]; k=h["kernels"]
print(d["verdict"], d["timing"]["n"] >= 20, h["status"], h["tool"].endswith("fake-ncu/ncu"), len(k), k[2]["kernel"],
      k[2]["metrics"]["sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active"],
      k[0]["metrics"]["gpu__time_duration.sum"], k[0]["units"]["gpu__time_duration.sum"],
      "sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active" in k[2]["metrics"])' "$tmp/p.json" 2>&1)
[ $rc -eq 0 ] && [ "$got" = "pass True collected True 3 g0_gemm_bf16_epilogue 49.87 15360.0 ns False" ] \
    && ok "eval.json: hw_counters per kernel, values and units as ncu wrote them, n/a left out" \
    || no "eval.json: hw_counters per kernel" "exit $rc" "got: $got" "$(head -c 400 "$tmp/p.err")"

# the replay's worker is confined like the evaluation's: same layers
got=$("$PYTHON3" -c '
import json,sys
d=json.load(open(sys.argv[1])); print(d["hw_counters"]["sandbox"] == d["sandbox"]["layers"], "seccomp" in d["hw_counters"]["sandbox"] or d["sandbox"]["missing"] != "")' "$tmp/p.json" 2>&1)
[ "$got" = "True True" ] && ok "the replay's worker holds the evaluation's sandbox layers" \
    || no "the replay's worker holds the evaluation's sandbox layers" "got: $got" "$(grep -A3 '"sandbox"' "$tmp/p.json" | head -n 12)"

prof "$tmp/o" PATH="$SRC/tests/e2e/fake-ncu-broken:$PATH" -- -b cpu-simd -p "$P" --counters ncu "$C"; out=$(cat "$tmp/o")
expect "an ncu that cannot profile: the verdict stands, the reason is printed" 0 $rc "$out" \
    "verdict: pass" "time: median" "counters: unavailable (" "ERR_NVGPUCTRPERM"

prof "$tmp/off.json" PATH="$FAKE:$PATH" -- -b cpu-simd -p "$P" --counters off --json "$C"
got=$("$PYTHON3" -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["verdict"], "hw_counters" in d)' "$tmp/off.json" 2>&1)
[ $rc -eq 0 ] && [ "$got" = "pass False" ] && ok "--counters off: no replay, no hw_counters" || no "--counters off" "exit $rc" "got: $got"

prof "$tmp/auto.json" PATH="$FAKE:$PATH" -- -b cpu-simd -p "$P" --json "$C"
got=$("$PYTHON3" -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["verdict"], "hw_counters" in d)' "$tmp/auto.json" 2>&1)
[ $rc -eq 0 ] && [ "$got" = "pass False" ] && ok "--counters auto (default) leaves non-cuda backends alone" || no "auto on cpu-simd" "exit $rc" "got: $got"

PATH="$FAKE:$PATH" "$KFORGE" profile -b cpu-simd -p "$P" --counters ncu --json "$ADV/cpu-simd/wrong_values.c" >"$tmp/bad.json" 2>&1; rc=$?
got=$("$PYTHON3" -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["verdict"], "hw_counters" in d)' "$tmp/bad.json" 2>&1)
[ $rc -eq 1 ] && [ "$got" = "mismatch False" ] && ok "a failed candidate is never replayed" || no "a failed candidate is never replayed" "exit $rc" "got: $got"

out=$("$KFORGE" profile -b cpu-simd -p "$P" --counters always "$C" 2>&1); rc=$?
expect "--counters with a bad value: exit 2" 2 $rc "$out" "--counters: expected auto, off or ncu, got 'always'"

out=$(KFORGE_NCU= "$KFORGE" profile -b cpu-simd -p "$P" --counters ncu "$C" 2>&1); rc=$?
expect "--counters ncu without ncu: exit 2 saying what to do" 2 $rc "$out" \
    "--counters ncu: ncu (Nsight Compute) not found" "KFORGE_NCU=/path/to/ncu"

out=$(KFORGE_NCU="$FAKE/ncu" PATH=/usr/bin:/bin "$KFORGE" verify -b cpu-simd -p "$P" --counters ncu --json "$C" 2>&1); rc=$?
case $out in *hw_counters*) no "verify never replays (nothing is timed)" "$(echo "$out" | grep -n hw_counters)" ;;
*) [ $rc -eq 0 ] && ok "verify never replays (nothing is timed)" || no "verify never replays" "exit $rc" ;; esac

out=$("$KFORGE" run "$P" --backend cpu-simd --counters sometimes 2>&1); rc=$?
expect "run --counters with a bad value: exit 2" 2 $rc "$out" "--counters: expected auto, off or ncu, got 'sometimes'"
out=$(KFORGE_NCU= "$KFORGE" suite "$P" --backend cpu-simd --counters ncu 2>&1); rc=$?
expect "suite --counters ncu without ncu: exit 2" 2 $rc "$out" "--counters ncu: ncu (Nsight Compute) not found"

# auto (the default) where ncu is found on PATH / not found at all, with the
# test hook that makes auto treat cpu-simd as it treats cuda
prof "$tmp/auto-found.json" KFORGE_TEST_COUNTERS_BACKEND=cpu-simd PATH="$FAKE:$PATH" -- -b cpu-simd -p "$P" --json "$C"
got=$("$PYTHON3" -c 'import json,sys; d=json.load(open(sys.argv[1])); h=d["hw_counters"]; print(d["verdict"], h["status"], len(h["kernels"]))' "$tmp/auto-found.json" 2>&1)
[ "$got" = "pass collected 3" ] && ok "auto: ncu found on PATH, counters collected" || no "auto: ncu found on PATH" "got: $got"
if [ -x /usr/local/cuda/bin/ncu ] || ls /opt/nvidia/nsight-compute/*/ncu >/dev/null 2>&1; then
    ok "auto without ncu # SKIP this machine has ncu in /usr/local/cuda/bin or /opt/nvidia/nsight-compute"
    ok "auto without ncu: silent # SKIP the same"
else
    nopath=$(printf '%s' "$PATH" | tr ':' '\n' | while read -r d; do [ -x "$d/ncu" ] || printf '%s:' "$d"; done)
    prof "$tmp/auto-absent.json" KFORGE_TEST_COUNTERS_BACKEND=cpu-simd PATH="${nopath%:}" -- -b cpu-simd -p "$P" --json "$C"
    got=$("$PYTHON3" -c 'import json,sys; d=json.load(open(sys.argv[1])); h=d["hw_counters"]; print(d["verdict"], d["timing"]["n"] >= 20, h["status"], h["why"])' "$tmp/auto-absent.json" 2>&1)
    case $got in "pass True unavailable ncu not found ("*) ok "auto without ncu: eval.json records 'unavailable (ncu not found)', the evaluation stands" ;;
    *) no "auto without ncu records unavailable" "got: $got" ;; esac
    prof "$tmp/o" KFORGE_TEST_COUNTERS_BACKEND=cpu-simd PATH="${nopath%:}" -- -b cpu-simd -p "$P" "$C"
    if grep -q "verdict: pass" "$tmp/o" && ! grep -q "counters" "$tmp/o"; then ok "auto without ncu: the profile output stays silent about it"
    else no "auto without ncu: the profile output stays silent about it" "$(tail -n 4 "$tmp/o")"; fi
fi

# an ncu the CLI finds (executable) that cannot be exec'ed: the evaluation
# stands, the replay says why
mkdir -p "$tmp/bad" && printf 'not a program\n' >"$tmp/bad/ncu" && chmod +x "$tmp/bad/ncu"
prof "$tmp/badncu.json" KFORGE_NCU="$tmp/bad/ncu" -- -b cpu-simd -p "$P" --counters ncu --json "$C"
got=$("$PYTHON3" -c 'import json,sys; d=json.load(open(sys.argv[1])); h=d["hw_counters"]; print(d["verdict"], h["status"], h["why"])' "$tmp/badncu.json" 2>&1)
case $got in "pass unavailable "*"cannot start '$tmp/bad/ncu' in front of the worker: Exec format error")
    ok "an ncu that cannot be started: verdict kept, the reason recorded" ;;
*) no "an ncu that cannot be started: verdict kept, the reason recorded" "got: $got" ;; esac

# kforge run: the analysis agent's prompt carries the counters
here="$SRC/tests/e2e/llm"
"$PYTHON3" "$here/make_script.py" walk "$tmp/script.json"
mkfifo "$tmp/stdin"
"$PYTHON3" "$SRC/tests/stub/llm_stub.py" "$tmp/script.json" "$tmp/requests.jsonl" <"$tmp/stdin" >"$tmp/port" 2>"$tmp/stub.err" &
exec 4>"$tmp/stdin"
for i in $(seq 100); do [ -s "$tmp/port" ] && break; sleep 0.05; done
port=$(head -n1 "$tmp/port")
OPENAI_BASE_URL="http://127.0.0.1:$port/v1" OPENAI_API_KEY=sk-test XDG_CACHE_HOME="$tmp/cache" PATH="$FAKE:$PATH" \
    "$KFORGE" run "$here/scale_relu.json" --backend cpu-simd --agent openai:stub-model --counters ncu \
    --out "$tmp/run" --no-baseline --target 0 --max-iterations 8 >"$tmp/run.out" 2>&1; rc=$?
analysis=$("$PYTHON3" -c '
import json,sys
for r in map(json.loads, open(sys.argv[1])):
    if r["method"] != "POST": continue
    t = "\n".join(m["content"] for m in r["body"]["messages"])
    if "performance-analysis agent" in t: print(t); break' "$tmp/requests.jsonl" 2>&1)
case "$analysis" in *"hardware counters (Nsight Compute"*"kernel g0_gemm_bf16_epilogue: duration 455.6 us"*"top stalls"*)
    ok "kforge run --counters ncu: the analysis prompt carries the counters" ;;
*) no "kforge run --counters ncu: the analysis prompt carries the counters" "run exit $rc" "$(echo "$analysis" | head -c 800)" "$(tail -n 5 "$tmp/run.out")" ;; esac
nhw=$(grep -l '"hw_counters"' "$tmp"/run/steps/*/eval.json 2>/dev/null | wc -l)
[ "$nhw" -ge 1 ] && ok "kforge run: the passed steps' eval.json hold hw_counters ($nhw)" || no "kforge run: eval.json hold hw_counters" "$(ls "$tmp"/run/steps/*/ 2>&1 | head)"

# the built-in agent's analysis reports them beside its cost model's reading
PATH="$FAKE:$PATH" XDG_CACHE_HOME="$tmp/cache" "$KFORGE" run "$here/scale_relu.json" --backend cpu-simd --agent builtin \
    --counters ncu --no-baseline --target 0 --max-iterations 2 --out "$tmp/run-bt" >"$tmp/run-bt.out" 2>&1; rc=$?
got=$("$PYTHON3" -c '
import json,sys
for d in map(json.loads, open(sys.argv[1])):
    if d["ev"] == "analysis": print(d["text"]); break' "$tmp/run-bt/journal.jsonl" 2>&1)
case "$got" in *"-bound: median"*"hardware counters (Nsight Compute"*"kernel g0_gemm_bf16_epilogue"*)
    ok "the built-in agent's analysis carries the counters" ;;
*) no "the built-in agent's analysis carries the counters" "run exit $rc" "$(echo "$got" | head -c 600)" ;; esac
tap_exit
