#!/bin/bash
# The records of a run: owner-only files, and what --resume does not take on
# trust.  A run with the cmd agent keeps a slow correct kernel (step 1), then
# a fast one (step 2, the best); copies of it are then tampered with:
#  a. a forged "best" event naming step 1: not what decides the best;
#  b. step 1's kernel replaced by a wrong one and its recorded time made the
#     fastest: re-verification fails, it is dropped, step 2 is the best again;
#  c. step 2's recorded time below what the device can do: it stays the best
#     with the time measured again;
#  d. step 1's recorded time made just faster than step 2's (a step timed in
#     a fast stretch): re-verification keeps it (correct, a possible time);
#     the final re-timing (--confirm-rounds, loop_confirm.c) times both
#     again back to back and puts step 2 back; with --confirm-rounds 0 the
#     forged record wins;
#  e. as d, with step 2's kernel then replaced by a wrong one: the final
#     re-timing's verification fails it, it is out, and step 1 stays the best.
set -u
here="$KF_SRCDIR/tests/e2e/llm"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
. "$KF_SRCDIR/tests/e2e/tap.sh"
. "$KF_SRCDIR/tests/e2e/llm/scripted_agent.sh"
echo "1..18"
export XDG_CACHE_HOME="$tmp/cache"

scripted_agent "$tmp/agent.sh" "$tmp/calls" records
best_dir() {
    "$PYTHON3" -c '
import json,sys
b = json.load(open(sys.argv[1]))["best"]
print(b["dir"] if b and b["verified"] is True else "none")' "$1/result.json" 2>&1
}
# set_median RUN STEP SECONDS: forges steps/STEP-0/eval.json's median
set_median() {
    "$PYTHON3" -c '
import json,sys
p = sys.argv[1] + "/steps/" + sys.argv[2] + "-0/eval.json"
e = json.load(open(p)); e["timing"]["median_s"] = float(sys.argv[3]); json.dump(e, open(p, "w"))' "$1" "$2" "$3"
}
median_of() {
    "$PYTHON3" -c 'import json,sys; print(json.load(open(sys.argv[1] + "/steps/" + sys.argv[2] + "-0/eval.json"))["timing"]["median_s"])' "$1" "$2"
}

"$KFORGE" run "$here/scale_relu.json" --backend cpu-simd --agent "cmd:$tmp/agent.sh" \
    --out "$tmp/run" --no-baseline --target 0 --max-iterations 4 >"$tmp/out" 2>&1
rc=$?
[ $rc -eq 0 ] && [ "$(best_dir "$tmp/run")" = steps/0002-0/candidate ] && ok "the run keeps step 2 as its best" \
    || no "the run keeps step 2 as its best" "exit $rc" "$(tail -n 20 "$tmp/out")"

# --- owner-only records ---------------------------------------------------------
modes=$(cd "$tmp/run" && stat -c '%a %n' . steps steps/0002-0 steps/0002-0/candidate journal.jsonl result.json \
    run.json problem.json steps/0002-0/eval.json steps/0002-0/verdict.json steps/0002-0/prompt.md \
    steps/0002-0/candidate/candidate.json steps/0002-0/candidate/candidate.c steps/0001-analysis/analysis.json)
bad=$(echo "$modes" | grep -v -e '^700 ' -e '^600 ')
dirs_ok=$(echo "$modes" | grep -c -e '^700 \.$' -e '^700 steps' )
[ -z "$bad" ] && [ "$dirs_ok" = 4 ] && ok "directories 0700, files 0600" || no "directories 0700, files 0600" "$modes"

# --- a. a forged "best" event ------------------------------------------------------
cp -a "$tmp/run" "$tmp/a"
echo '{"ev":"best","t":0,"step":1,"sample":0,"dir":"steps/0001-0","median_s":1e-09}' >>"$tmp/a/journal.jsonl"
"$KFORGE" run --resume "$tmp/a" >"$tmp/a.out" 2>&1
rc=$?
grep -q 'the journal'"'"'s last "best" event names steps/0001-0, but the evaluations recorded make steps/0002-0 the best; the event is not trusted' "$tmp/a.out" \
    && ok "a forged best event: the resume says it is not trusted" || no "a forged best event: the resume says it is not trusted" "$(cat "$tmp/a.out")"
[ $rc -eq 0 ] && [ "$(best_dir "$tmp/a")" = steps/0002-0/candidate ] && ok "a forged best event: the best stays step 2" \
    || no "a forged best event: the best stays step 2" "exit $rc" "$(cat "$tmp/a/result.json")"
grep -q 'the recorded best steps/0002-0 passed re-verification' "$tmp/a.out" \
    && grep -q 'analysis (recorded before the resume)' "$tmp/a.out" && [ "$(cat "$tmp/calls")" = 4 ] \
    && ok "the best is re-verified; the recorded analysis is reused, not asked for again" \
    || no "the best is re-verified; the recorded analysis is reused, not asked for again" "calls=$(cat "$tmp/calls")" "$(cat "$tmp/a.out")"

# --- b. a wrong kernel recorded as the fastest -------------------------------------
cp -a "$tmp/run" "$tmp/b"
"$PYTHON3" "$here/make_script.py" wrong >"$tmp/b/steps/0001-0/candidate/candidate.c"
set_median "$tmp/b" 0001 "$("$PYTHON3" -c "print($(median_of "$tmp/b" 0002) / 10)")"
"$KFORGE" run --resume "$tmp/b" >"$tmp/b.out" 2>&1
rc=$?
grep -q 'the recorded best steps/0001-0 failed re-verification (mismatch' "$tmp/b.out" \
    && grep -q 'the best is now steps/0002-0' "$tmp/b.out" \
    && ok "a forged record: the wrong kernel fails re-verification and is dropped" \
    || no "a forged record: the wrong kernel fails re-verification and is dropped" "$(cat "$tmp/b.out")"
[ $rc -eq 0 ] && [ "$(best_dir "$tmp/b")" = steps/0002-0/candidate ] && ok "a forged record: the best is step 2 again" \
    || no "a forged record: the best is step 2 again" "exit $rc" "$(cat "$tmp/b/result.json")"
grep -q '"ev":"verify-best","[^}]*"dir":"steps/0001-0","outcome":"dropped","verdict":"mismatch"' "$tmp/b/journal.jsonl" \
    && grep -q '"ev":"verify-best","[^}]*"dir":"steps/0002-0","outcome":"kept"' "$tmp/b/journal.jsonl" \
    && ok "journal: step 1 dropped, step 2 kept" || no "journal: step 1 dropped, step 2 kept" "$(grep verify "$tmp/b/journal.jsonl")"
"$KFORGE" run --resume "$tmp/b" >"$tmp/b2.out" 2>&1
rc=$?
n1=$(grep -c '"ev":"verify-best-start","[^}]*"dir":"steps/0001-0"' "$tmp/b/journal.jsonl")
n2=$(grep -c '"ev":"verify-best-start","[^}]*"dir":"steps/0002-0"' "$tmp/b/journal.jsonl")
[ $rc -eq 0 ] && [ "$n1" = 1 ] && [ "$n2" = 2 ] && [ "$(best_dir "$tmp/b")" = steps/0002-0/candidate ] \
    && ok "a second resume remembers the drop: only step 2 is re-verified" \
    || no "a second resume remembers the drop: only step 2 is re-verified" "exit $rc; starts: $n1 $n2" "$(cat "$tmp/b2.out")"

# --- c. a recorded time below the roofline's hard floor ---------------------------
cp -a "$tmp/run" "$tmp/c"
set_median "$tmp/c" 0002 1e-12
"$KFORGE" run --resume "$tmp/c" >"$tmp/c.out" 2>&1
rc=$?
grep -q 'the recorded best steps/0002-0 is correct, but its recorded time .* is below what this device can do' "$tmp/c.out" \
    && ok "an impossible recorded time is said" || no "an impossible recorded time is said" "$(cat "$tmp/c.out")"
"$PYTHON3" -c '
import json,sys
b = json.load(open(sys.argv[1]))["best"]
sys.exit(0 if b["dir"] == "steps/0002-0/candidate" and b["median_s"] > 1e-9 else 1)' "$tmp/c/result.json" && [ $rc -eq 0 ] \
    && ok "result.json reports the time measured again" || no "result.json reports the time measured again" "exit $rc" "$(cat "$tmp/c/result.json")"
grep -q '"ev":"verify-best","[^}]*"dir":"steps/0002-0","outcome":"remeasured"' "$tmp/c/journal.jsonl" \
    && ok "journal: verify-best remeasured" || no "journal: verify-best remeasured" "$(grep verify "$tmp/c/journal.jsonl")"

# --- d. a slower kernel recorded just faster than the best ---------------------------
cp -a "$tmp/run" "$tmp/d"
set_median "$tmp/d" 0001 "$("$PYTHON3" -c "print($(median_of "$tmp/d" 0002) * 0.9)")"
cp -a "$tmp/d" "$tmp/d0"
cp -a "$tmp/d" "$tmp/e"
"$KFORGE" run --resume "$tmp/d0" --confirm-rounds 0 >"$tmp/d0.out" 2>&1
rc=$?
[ $rc -eq 0 ] && [ "$(best_dir "$tmp/d0")" = steps/0001-0/candidate ] && ! grep -q '"ev":"confirm"' "$tmp/d0/journal.jsonl" \
    && ok "--confirm-rounds 0: the record timed fastest in its step stays the best" \
    || no "--confirm-rounds 0: the record timed fastest in its step stays the best" "exit $rc" "$(cat "$tmp/d0.out")"
"$KFORGE" run --resume "$tmp/d" >"$tmp/d.out" 2>&1
rc=$?
[ $rc -eq 0 ] && [ "$(best_dir "$tmp/d")" = steps/0002-0/candidate ] \
    && grep -q 'confirm: steps/0002-0 .* (median of 3 rounds; .* in its step): the run.s best is now this one' "$tmp/d.out" \
    && ok "the final re-timing puts the faster kernel back, and says so" \
    || no "the final re-timing puts the faster kernel back, and says so" "exit $rc" "$(cat "$tmp/d.out")"
"$PYTHON3" -c '
import json,sys
run = sys.argv[1]
ev = [json.loads(l) for l in open(run + "/journal.jsonl") if l.strip()]
c = [e for e in ev if e["ev"] == "confirm"]
assert len(c) == 1 and c[0]["rounds"] == 3 and c[0]["chosen"] == "steps/0002-0", c
f = {x["dir"]: x for x in c[0]["finalists"]}
assert set(f) == {"steps/0001-0", "steps/0002-0"}, f
assert all(len(x["times_s"]) == 3 and min(x["times_s"]) > 0 for x in f.values()), f
# the slow kernel sleeps 3 ms a call: every round says so
assert min(f["steps/0001-0"]["times_s"]) > 2e-3 > max(f["steps/0002-0"]["times_s"]), f
b = json.load(open(run + "/result.json"))["best"]
assert b["median_s"] == f["steps/0002-0"]["median_s"] and b["confirmed"]["rounds"] == 3 \
    and b["confirmed"]["finalists"] == 2 and b["confirmed"]["replaced"] == "steps/0001-0/candidate", b
for r in (1, 2, 3):
    for i in (0, 1):
        json.load(open("%s/confirm/%d-%d/eval.json" % (run, r, i)))
' "$tmp/d" 2>"$tmp/d.err" && ok "journal, result.json and confirm/ hold the rounds and the choice" \
    || no "journal, result.json and confirm/ hold the rounds and the choice" "$(cat "$tmp/d.err")"
"$KFORGE" run --resume "$tmp/d" --max-time 0.001 >"$tmp/d2.out" 2>&1
rc=$?
[ $rc -eq 0 ] && grep -q "confirm: no round within the time budget; the search's best stands" "$tmp/d2.out" \
    && [ "$(best_dir "$tmp/d")" = steps/0001-0/candidate ] \
    && ok "past the time budget no round starts: the best by the step records stands" \
    || no "past the time budget no round starts: the best by the step records stands" "exit $rc" "$(cat "$tmp/d2.out")"

# --- e. a finalist that fails its re-evaluation --------------------------------------
"$PYTHON3" "$here/make_script.py" wrong >"$tmp/e/steps/0002-0/candidate/candidate.c"
"$KFORGE" run --resume "$tmp/e" >"$tmp/e.out" 2>&1
rc=$?
[ $rc -eq 0 ] && [ "$(best_dir "$tmp/e")" = steps/0001-0/candidate ] \
    && grep -q 'confirm: round 1  steps/0002-0 .*out: mismatch' "$tmp/e.out" \
    && grep -q "confirm: steps/0001-0 .* (median of 3 rounds; .* in its step): the search's best stands" "$tmp/e.out" \
    && ok "a finalist failing its re-evaluation is out, and says why" \
    || no "a finalist failing its re-evaluation is out, and says why" "exit $rc" "$(cat "$tmp/e.out")"
"$PYTHON3" -c '
import json,sys
run = sys.argv[1]
c = [json.loads(l) for l in open(run + "/journal.jsonl") if l.strip() and json.loads(l)["ev"] == "confirm"]
assert len(c) == 1 and c[0]["rounds"] == 3 and c[0]["chosen"] == "steps/0001-0", c
f = {x["dir"]: x for x in c[0]["finalists"]}
assert f["steps/0002-0"]["times_s"] == [0, 0, 0] and f["steps/0002-0"]["median_s"] == 0, f
assert min(f["steps/0001-0"]["times_s"]) > 0, f
assert "replaced" not in json.load(open(run + "/result.json"))["best"]["confirmed"]
v = json.load(open(run + "/confirm/1-1/eval.json"))
assert v["verdict"] != "pass", v["verdict"]
' "$tmp/e" 2>"$tmp/e.err" && ok "journal: the failed finalist has no time; its evaluation is kept in confirm/" \
    || no "journal: the failed finalist has no time; its evaluation is kept in confirm/" "$(cat "$tmp/e.err")"
tap_exit
