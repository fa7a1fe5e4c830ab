#!/bin/bash
# kforge run --from RUN_DIR (migration): the builtin agent starts from the
# source run's point on the same backend and on another one (opencl, where
# this machine has it); run.json, result.json and the journal say which
# kernel seeded which; a resumed run keeps it; an LLM agent gets the kernel
# in its first prompt (loopback stub); bad sources exit 2.
set -u
here="$KF_SRCDIR/tests/e2e/llm"
tmp=$(mktemp -d); trap 'exec 4>&- 2>/dev/null; rm -rf "$tmp"' EXIT
. "$KF_SRCDIR/tests/e2e/tap.sh"
echo "1..9"
export XDG_CACHE_HOME="$tmp/cache"
py() { "$PYTHON3" -c "$@"; }

# the source: a cpu-simd run from a distinctive start point
"$KFORGE" run "$here/scale_relu.json" --backend cpu-simd --agent 'builtin:{"mr":4,"nr":24,"unroll":2}' \
    --out "$tmp/src" --no-baseline --max-iterations 1 >"$tmp/out0" 2>&1 \
    || no "the source run" "$(tail -n 5 "$tmp/out0")"
src=$(cd "$tmp/src" && pwd -P)

"$KFORGE" run "$here/scale_relu.json" --backend cpu-simd --from "$tmp/src" --out "$tmp/to" --no-baseline \
    --max-iterations 1 >"$tmp/out1" 2>&1
rc=$?
notes=$(py 'import json,sys; print(json.load(open(sys.argv[1]))["notes"])' "$tmp/to/steps/0001-0/candidate/candidate.json" 2>&1)
case "$rc:$notes" in
0:*'start point of the --from kernel'*'"mr":4,"nr":24'*'"unroll":2'*) ok "the builtin agent starts from the source's point" ;;
*) no "the builtin agent starts from the source's point" "exit $rc" "notes: $notes" "$(tail -n 5 "$tmp/out1")" ;;
esac
got=$(py '
import json, sys
d = sys.argv[1]
run = json.load(open(d + "/run.json"))["from"]; res = json.load(open(d + "/result.json"))["from"]
ev = [json.loads(l) for l in open(d + "/journal.jsonl")]
start = [e for e in ev if e["ev"] == "start"][0]["from"]
gen = [e for e in ev if e["ev"] == "gen"][0]
print(run["run_dir"] == sys.argv[2], run["backend"], run["best_step"], run["best_dir"], run == res == start,
      gen["reference"] == sys.argv[2] + "/steps/0001-0/candidate", gen["reference_backend"])' "$tmp/to" "$src" 2>&1)
[ "$got" = "True cpu-simd 1 steps/0001-0/candidate True True cpu-simd" ] \
    && ok "run.json, result.json, the start and the first gen event name the seeding kernel" \
    || no "the record names the seeding kernel" "got: $got"
grep -q "reference (--from): $src/steps/0001-0/candidate" "$tmp/out1" && ok "the run says which kernel it starts from" \
    || no "the run says which kernel it starts from" "$(head -n 3 "$tmp/out1")"

# killed after its first generation and resumed: the record keeps the source
KFORGE_TEST_DIE_AFTER=gen "$KFORGE" run "$here/scale_relu.json" --backend cpu-simd --from "$tmp/src" \
    --out "$tmp/killed" --no-baseline --max-iterations 2 >"$tmp/out2" 2>&1
"$KFORGE" run --resume "$tmp/killed" >"$tmp/out3" 2>&1
rc=$?
got=$(py 'import json,sys; print(json.load(open(sys.argv[1] + "/result.json"))["from"]["run_dir"] == sys.argv[2])' "$tmp/killed" "$src" 2>&1)
[ $rc -eq 0 ] && [ "$got" = True ] && ok "a resumed run keeps --from" || no "a resumed run keeps --from" "exit $rc, got $got" "$(tail -n 5 "$tmp/out3")"

# another backend: the OpenCL emitter takes what it can of the C point
if "$KFORGE" backends 2>/dev/null | grep -q "^opencl "; then
    "$KFORGE" run "$here/scale_relu.json" --backend opencl --from "$tmp/src" --out "$tmp/ocl" --no-baseline \
        --max-iterations 1 >"$tmp/out4" 2>&1
    rc=$?
    got=$(py '
import json, sys
d = sys.argv[1]
print(json.load(open(d + "/result.json"))["backend"], json.load(open(d + "/run.json"))["from"]["backend"],
      "start point of the --from kernel" in json.load(open(d + "/steps/0001-0/candidate/candidate.json"))["notes"])' "$tmp/ocl" 2>&1)
    [ $rc -eq 0 ] && [ "$got" = "opencl cpu-simd True" ] && ok "a cpu-simd kernel seeds an opencl run" \
        || no "a cpu-simd kernel seeds an opencl run" "exit $rc, got: $got" "$(tail -n 5 "$tmp/out4")"
else
    ok "# SKIP no opencl device here"
fi

# bad sources
"$KFORGE" run "$here/scale_relu.json" --backend cpu-simd --from "$tmp/nowhere" --out "$tmp/bad1" >"$tmp/out5" 2>&1
rc=$?
[ $rc -eq 2 ] && [ ! -e "$tmp/bad1/journal.jsonl" ] && grep -q -- "--from $tmp/nowhere" "$tmp/out5" \
    && ok "a missing --from directory exits 2, nothing runs" || no "a missing --from directory exits 2" "exit $rc" "$(cat "$tmp/out5")"
mkdir -p "$tmp/failed"
echo '{"problem": "scale_relu", "backend": "cpu-simd", "best": null}' >"$tmp/failed/result.json"
"$KFORGE" run "$here/scale_relu.json" --backend cpu-simd --from "$tmp/failed" --out "$tmp/bad2" >"$tmp/out6" 2>&1
rc=$?
[ $rc -eq 2 ] && grep -q "has no verified kernel" "$tmp/out6" && ok "a source without a verified kernel exits 2" \
    || no "a source without a verified kernel exits 2" "exit $rc" "$(cat "$tmp/out6")"

# an LLM agent: the first prompt carries the reference section, later prompts do not
"$PYTHON3" - "$tmp/script.json" <<'PYEOF'
import json, os, sys
sys.path.insert(0, os.environ["KF_SRCDIR"] + "/tests/e2e/llm")
import make_script as m
json.dump({"openai": [{"content": m.fenced(m.WRONG), "usage": [10, 5]},
                      {"content": m.fenced(m.FAST), "usage": [10, 5]}]}, open(sys.argv[1], "w"))
PYEOF
mkfifo "$tmp/stdin"
"$PYTHON3" "$KF_SRCDIR/tests/stub/llm_stub.py" "$tmp/script.json" "$tmp/requests.jsonl" <"$tmp/stdin" >"$tmp/port" 2>"$tmp/stub.err" &
exec 4>"$tmp/stdin"
for i in $(seq 100); do [ -s "$tmp/port" ] && break; sleep 0.05; done
export OPENAI_BASE_URL="http://127.0.0.1:$(head -n1 "$tmp/port")/v1" OPENAI_API_KEY=sk-test
"$KFORGE" run "$here/scale_relu.json" --backend cpu-simd --agent openai:stub-model --from "$tmp/src" \
    --out "$tmp/llm" --no-baseline --target 0 --max-iterations 2 >"$tmp/out7" 2>&1
rc=$?
got=$(py '
import json, sys
reqs = [r for r in map(json.loads, open(sys.argv[1])) if r.get("body")]
user = lambda r: [m["content"] for m in r["body"]["messages"] if m["role"] == "user"][0]
u0, u1 = user(reqs[0]), user(reqs[1])
print(len(reqs), "# Reference: a verified kernel for cpu-simd" in u0, sys.argv[2] in u0,
      "builtin point:" not in u0 and "kf_kernel" in u0.split("# Reference")[1], "# Reference" in u1)' "$tmp/requests.jsonl" "$src" 2>&1)
[ $rc -eq 0 ] && [ "$got" = "2 True True True False" ] \
    && ok "the first LLM prompt has the reference kernel, the repair prompt does not" \
    || no "the first LLM prompt has the reference kernel" "exit $rc, got: $got" "$(tail -n 5 "$tmp/out7")"
grep -q "Reference: a verified kernel" "$tmp/llm/steps/0001-0/prompt.md" && ok "prompt.md of step 1 records it" \
    || no "prompt.md of step 1 records it" "$(head -c 300 "$tmp/llm/steps/0001-0/prompt.md")"
tap_exit
