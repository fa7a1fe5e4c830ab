#!/bin/bash
# --precision fp32 (core/problem/precision.h): the accuracy contract holds
# for every candidate, whoever wrote it.  A kernel that rounds its input to
# bf16 before computing (an LLM's shortcut) passes the problem's own
# tolerance and fails --precision fp32's relative-L2 bound, with the limit
# in its diagnostics, in a run and in `kforge verify`; an fp32 kernel
# passes both.  The prompt tells the
# model; run.json and result.json record the policy (result.json the bound);
# --resume keeps it and refuses it given again; the built-in agent runs fp32
# points only and refuses a start point that names another precision; a
# suite does not mix policies in one report directory, and its Slurm tasks
# pass the policy to their fresh runs.
set -u
here="$KF_SRCDIR/tests/e2e/llm"
prob="$here/scale_relu.json"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
. "$KF_SRCDIR/tests/e2e/tap.sh"
echo "1..12"
export XDG_CACHE_HOME="$tmp/cache"

cat >"$tmp/bf16.c" <<'C'
#include "kforge-cpu.h"
#include <stdint.h>
#include <string.h>
/* x rounded to bf16 (nearest even), as a float */
static float bf16(float v)
{
    uint32_t u;
    memcpy(&u, &v, 4);
    u = (u + 0x7fffu + ((u >> 16) & 1u)) & 0xffff0000u;
    memcpy(&v, &u, 4);
    return v;
}
void kf_kernel(const kf_cpu_args *a)
{
    const float *x = a->in[0];
    float *y = a->out[0];
    long n = (long)(a->dims[0] * a->dims[1]);
    for (long i = 0; i < n; i++) {
        float h = 2.0f * bf16(x[i]);
        y[i] = h > 0.0f ? h : 0.0f;
    }
}
C
sed -e 's/2.0f \* bf16(x\[i\])/2.0f * x[i]/' "$tmp/bf16.c" >"$tmp/fp32.c"
# a cmd agent that keeps its prompts (prompt-NAME.md) and answers with KERNEL.c
agent() {   # agent NAME KERNEL: writes $tmp/agent-NAME.sh
    cat >"$tmp/agent-$1.sh" <<SH
#!/bin/sh
cat >>"$tmp/prompt-$1.md"
printf 'Here it is.\n\n\140\140\140c\n'
cat "$tmp/$2.c"
printf '\140\140\140\n'
SH
    chmod +x "$tmp/agent-$1.sh"
}
run() {   # run NAME KERNEL [options...]
    local name=$1 k=$2; shift 2
    agent "$name" "$k"
    "$KFORGE" run "$prob" --backend cpu-simd --agent "cmd:$tmp/agent-$name.sh" --out "$tmp/$name" --no-baseline \
        --target 0 --max-iterations 1 --confirm-rounds 0 "$@" >"$tmp/$name.out" 2>&1
}
verdict() { "$PYTHON3" -c 'import json,sys; print(json.load(open(sys.argv[1]))["verdict"])' "$1/steps/0001-0/verdict.json" 2>/dev/null; }

run any-bf16 bf16; rc=$?
[ $rc -eq 0 ] && [ "$(verdict "$tmp/any-bf16")" = pass ] \
    && ok "the bf16-rounding kernel passes the problem's own tolerance (--precision any, the default)" \
    || no "the bf16-rounding kernel passes the problem's own tolerance (--precision any, the default)" "exit $rc" "$(tail -n 15 "$tmp/any-bf16.out")"

run fp32-bf16 bf16 --precision fp32; rc=$?
[ $rc -eq 1 ] && [ "$(verdict "$tmp/fp32-bf16")" = mismatch ] && grep -q "(limit 1e-05)" "$tmp/fp32-bf16/steps/0001-0/eval.json" \
    && ok "--precision fp32: the same kernel fails as a mismatch, the relative-L2 limit 1e-05 in its diagnostics" \
    || no "--precision fp32: the same kernel fails as a mismatch, the relative-L2 limit 1e-05 in its diagnostics" "exit $rc" \
          "$(tail -n 15 "$tmp/fp32-bf16.out")"

run fp32-fp32 fp32 --precision fp32; rc=$?
[ $rc -eq 0 ] && [ "$(verdict "$tmp/fp32-fp32")" = pass ] \
    && ok "--precision fp32: the fp32 kernel passes" \
    || no "--precision fp32: the fp32 kernel passes" "exit $rc" "$(tail -n 15 "$tmp/fp32-fp32.out")"

grep -q "relative L2 error per output <= 1e-05 (this run asks for fp32 accuracy" "$tmp/prompt-fp32-fp32.md" \
    && grep -q "relative L2 error per output <= 0.01$" "$tmp/prompt-any-bf16.md" \
    && ok "the prompt's tolerance says the fp32 bound and why (and the problem's own without it)" \
    || no "the prompt's tolerance says the fp32 bound and why (and the problem's own without it)" \
          "$(grep "relative L2 error" "$tmp"/prompt-*.md)"

# kforge verify: the same contract for a kernel checked by hand
cand="$tmp/any-bf16/steps/0001-0/candidate"
"$KFORGE" verify --backend cpu-simd --problem "$prob" "$cand" >"$tmp/v-any.out" 2>&1; rc_any=$?
"$KFORGE" verify --backend cpu-simd --problem "$prob" --precision fp32 "$cand" >"$tmp/v-fp32.out" 2>&1; rc_fp32=$?
[ $rc_any -eq 0 ] && [ $rc_fp32 -eq 1 ] && grep -q "limit 1e-05" "$tmp/v-fp32.out" \
    && ok "kforge verify: the bf16-rounding kernel passes, and fails with --precision fp32" \
    || no "kforge verify: the bf16-rounding kernel passes, and fails with --precision fp32" "exit $rc_any / $rc_fp32" \
          "$(tail -n 5 "$tmp/v-fp32.out")"

"$PYTHON3" - "$tmp" <<'PY' 2>"$tmp/rec.err"
import json, sys
t = sys.argv[1]
assert json.load(open(t + "/fp32-fp32/run.json"))["precision"] == "fp32"
assert json.load(open(t + "/any-bf16/run.json"))["precision"] == "any"
r = json.load(open(t + "/fp32-fp32/result.json"))
assert r["precision"] == "fp32" and abs(r["rel_l2_bound"] - 1e-5) < 1e-12, r
r = json.load(open(t + "/any-bf16/result.json"))
assert r["precision"] == "any" and "rel_l2_bound" not in r, r
PY
[ $? -eq 0 ] && ok "run.json and result.json record the policy (result.json the bound)" \
    || no "run.json and result.json record the policy (result.json the bound)" "$(cat "$tmp/rec.err")"

"$KFORGE" run --resume "$tmp/fp32-fp32" --precision any >"$tmp/resume-arg.out" 2>&1; rc=$?
[ $rc -eq 2 ] && grep -q "keeps the run's --agent-seed, --from and --precision" "$tmp/resume-arg.out" \
    && ok "--resume refuses --precision (the run keeps its own)" \
    || no "--resume refuses --precision (the run keeps its own)" "exit $rc" "$(cat "$tmp/resume-arg.out")"

# resumed with one more step: the bf16 kernel fails there too (the policy came from run.json)
agent fp32-fp32 bf16
"$KFORGE" run --resume "$tmp/fp32-fp32" --max-iterations 2 >"$tmp/resume.out" 2>&1; rc=$?
[ "$(cat "$tmp/fp32-fp32/steps/0002-0/verdict.json" 2>/dev/null | "$PYTHON3" -c 'import json,sys; print(json.load(sys.stdin)["verdict"])')" = mismatch ] \
    && grep -q "(limit 1e-05)" "$tmp/fp32-fp32/steps/0002-0/eval.json" \
    && ok "a resumed run keeps --precision fp32 from run.json: its next bf16 step fails the bound" \
    || no "a resumed run keeps --precision fp32 from run.json: its next bf16 step fails the bound" "exit $rc" "$(tail -n 15 "$tmp/resume.out")"

# the built-in agent: fp32 points only, on a GEMM problem where AMX or bf16 would be offered;
# from a poor start point (4 x 16 tiles, kc 32: about a quarter of the roofline) so that its
# analyses have faster points to recommend (from the default one, a quick machine may leave
# nothing worth a step)
p12="$KF_SRCDIR/problems/level2/12_Gemm_Multiply_LeakyReLU.json"
"$KFORGE" run "$p12" --backend cpu-simd --agent 'builtin:{"mr":4,"nr":16,"kc":32}' --out "$tmp/bt" --no-baseline \
    --target 0 --max-iterations 3 --confirm-rounds 0 --precision fp32 >"$tmp/bt.out" 2>&1; rc=$?
"$PYTHON3" - "$tmp/bt" <<'PY' 2>"$tmp/bt.err"
import glob, json, re, sys
run = sys.argv[1]
# every generated point, and every point an analysis recommended
steps = sorted(glob.glob(run + "/steps/*-0/candidate"))
assert len(steps) >= 2, steps
for s in steps:
    notes = json.load(open(s + "/candidate.json")).get("notes", "")
    m = re.search(r'"precision":(\d+)', notes)
    assert m and m.group(1) == "0", (s, notes[:300])
recs = [r for a in glob.glob(run + "/steps/*-analysis/analysis.json") for r in json.load(open(a))["recommendations"]]
assert recs, "no recommendation"
for r in recs:
    assert r["params"]["precision"] == 0, r
PY
[ $rc -eq 0 ] && [ ! -s "$tmp/bt.err" ] && ok "built-in agent, --precision fp32: every point generated or recommended is fp32" \
    || no "built-in agent, --precision fp32: every point generated or recommended is fp32" "exit $rc" "$(cat "$tmp/bt.err")" "$(tail -n 12 "$tmp/bt.out")"

"$KFORGE" run "$p12" --backend cpu-simd --agent 'builtin:{"precision":5,"mr":32,"nr":32}' --out "$tmp/bt5" \
    --precision fp32 >"$tmp/bt5.out" 2>&1; rc=$?
[ $rc -eq 2 ] && grep -q 'names precision 5, and the run asks for --precision fp32' "$tmp/bt5.out" \
    && ok "a builtin start point naming another precision is refused under --precision fp32" \
    || no "a builtin start point naming another precision is refused under --precision fp32" "exit $rc" "$(tail -n 5 "$tmp/bt5.out")"

# a suite's report directory holds one policy
agent suite fp32
"$KFORGE" suite "$prob" --backend cpu-simd --agent "cmd:$tmp/agent-suite.sh" --report "$tmp/suite" --no-baseline \
    --max-iterations 1 --confirm-rounds 0 --precision fp32 --quiet >"$tmp/suite1.out" 2>&1
"$KFORGE" suite "$prob" --backend cpu-simd --agent "cmd:$tmp/agent-suite.sh" --report "$tmp/suite" --no-baseline \
    --max-iterations 1 --confirm-rounds 0 --quiet >"$tmp/suite2.out" 2>&1; rc=$?
[ "$("$PYTHON3" -c 'import json,sys; print(json.load(open(sys.argv[1]))["precision"])' "$tmp/suite/runs/scale_relu/run.json" 2>/dev/null)" = fp32 ] \
    && [ $rc -ne 0 ] && grep -q "holds a run with --precision fp32, not any" "$tmp/suite2.out" \
    && ok "kforge suite --precision fp32 records it; the same report directory without it is refused" \
    || no "kforge suite --precision fp32 records it; the same report directory without it is refused" "exit $rc" \
          "$(tail -n 5 "$tmp/suite1.out")" "$(tail -n 5 "$tmp/suite2.out")"

"$KFORGE" suite "$prob" --backend cpu-simd --report "$tmp/slurm" --slurm-dry-run --precision fp32 >"$tmp/slurm.out" 2>&1; rc=$?
t=$(grep -rh -- "kforge run .*--out" "$tmp/slurm/slurm" 2>/dev/null | grep -v -- "--resume")
r=$(grep -rh -- "run --resume" "$tmp/slurm/slurm" 2>/dev/null)
[ $rc -eq 0 ] && echo "$t" | grep -q -- "--precision fp32" && [ -n "$r" ] && ! echo "$r" | grep -q -- "--precision" \
    && ok "kforge suite --slurm: a task's fresh run gets --precision fp32, its resume does not (run.json keeps it)" \
    || no "kforge suite --slurm: a task's fresh run gets --precision fp32, its resume does not (run.json keeps it)" "exit $rc" \
          "$t" "$r" "$(tail -n 3 "$tmp/slurm.out")"
tap_exit
