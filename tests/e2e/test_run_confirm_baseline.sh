#!/bin/bash
# The op-by-op baseline in the final re-timing: a run with its baseline
# keeps a slow kernel (step 1, sleeps 3 ms a call) and a fast one (step 2),
# with --confirm-rounds 0 (nothing re-timed); step 1's recorded time is then
# made just faster than step 2's so that both are finalists, the baseline's
# kernel is replaced by a correct one that sleeps 3 ms a call (so that step 2
# is faster than it whatever the machine's load), and the run is resumed
# with 3 rounds.  The baseline is evaluated in each of the three rounds
# beside them (not a finalist), its median over the rounds becomes the time
# the speedups use, and its time from the run's start is kept: the
# journal's confirm event holds its rounds, result.json's baseline the
# re-timed median, the start's time and the round count, and the best's
# speedup is the re-timed baseline over the best's re-timed median.  A copy
# whose baseline kernel is then replaced by a wrong one: the baseline fails
# its re-evaluation, the run says its first time stands, and result.json
# keeps that time (no start_median_s) while the finalists are still chosen.
# The same run resumed with 3 rounds (its baseline made slow the same way): step 2
# is the only finalist, and it is still timed again beside the baseline (one
# finalist in the journal's confirm event, the baseline's re-timed median in
# result.json).  Last, a run whose two kernels sleep 3 and 2 ms a call (both
# finalists) beside the real baseline of a few microseconds: the baseline's
# kernel, faster in every round, becomes the run's best (result.json's best is
# baseline/candidate, the baseline's own code at speedup 1, the step it
# replaced named), and it exports like any best; the same run with one
# round (--confirm-rounds 1, fewer than KF_CONFIRM_BASELINE_ROUNDS) keeps
# step 2 and says that one round does not replace it.
set -u
here="$KF_SRCDIR/tests/e2e/llm"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
. "$KF_SRCDIR/tests/e2e/tap.sh"
echo "1..9"
export XDG_CACHE_HOME="$tmp/cache"

# a cmd agent FILE answering make_script.py's sequence SEQ, its calls counted in FILE.calls
agent() {
    cat >"$1" <<AG
#!/bin/sh
cat >/dev/null
c=\$(cat "$1.calls" 2>/dev/null || echo 0)
echo \$((c + 1)) >"$1.calls"
exec "$PYTHON3" "$here/make_script.py" answer \$c $2
AG
    chmod +x "$1"
}
agent "$tmp/agent.sh" records

"$KFORGE" run "$here/scale_relu.json" --backend cpu-simd --agent "cmd:$tmp/agent.sh" \
    --out "$tmp/run" --target 0 --max-iterations 4 --confirm-rounds 0 >"$tmp/out" 2>&1
rc=$?
"$PYTHON3" - "$tmp/run" <<'PY' 2>"$tmp/forge.err"
import json, sys
run = sys.argv[1]
b = json.load(open(run + "/result.json"))
assert b["best"]["dir"] == "steps/0002-0/candidate" and b["baseline"]["median_s"] > 0, b
assert "start_median_s" not in b["baseline"], b["baseline"]   # --confirm-rounds 0: no re-timing
m2 = json.load(open(run + "/steps/0002-0/eval.json"))["timing"]["median_s"]
p = run + "/steps/0001-0/eval.json"
e = json.load(open(p)); e["timing"]["median_s"] = 0.9 * m2; json.dump(e, open(p, "w"))
PY
[ $rc -eq 0 ] && [ ! -s "$tmp/forge.err" ] && ok "a run with its baseline keeps step 2 (--confirm-rounds 0: no re-timing)" \
    || no "a run with its baseline keeps step 2 (--confirm-rounds 0: no re-timing)" "exit $rc" "$(cat "$tmp/forge.err")" \
        "$(tail -n 20 "$tmp/out")"

cp -a "$tmp/run" "$tmp/f"
"$PYTHON3" "$here/make_script.py" wrong >"$tmp/f/baseline/candidate/kernel.c"
"$PYTHON3" "$here/make_script.py" slow >"$tmp/run/baseline/candidate/kernel.c"

"$KFORGE" run --resume "$tmp/run" --confirm-rounds 3 >"$tmp/r.out" 2>&1
rc=$?
[ $rc -eq 0 ] && grep -q 'confirm: round 1  baseline ' "$tmp/r.out" \
    && grep -q 'confirm: baseline .* (median of 3 rounds; .* at the run.s start): the speedups use this time' "$tmp/r.out" \
    && ok "the baseline is timed in each round and says which time the speedups use" \
    || no "the baseline is timed in each round and says which time the speedups use" "exit $rc" "$(cat "$tmp/r.out")"

"$PYTHON3" - "$tmp/run" <<'PY' 2>"$tmp/j.err"
import json, sys
run = sys.argv[1]
ev = [json.loads(l) for l in open(run + "/journal.jsonl") if l.strip()]
start = [e for e in ev if e["ev"] == "baseline"][0]["median_s"]
c = [e for e in ev if e["ev"] == "confirm"]
assert len(c) == 1 and c[0]["rounds"] == 3 and c[0]["chosen"] == "steps/0002-0", c
bl = c[0]["baseline"]
assert len(bl["times_s"]) == 3 and min(bl["times_s"]) > 0 and bl["step_s"] == start, bl
assert sorted(bl["times_s"])[1] == bl["median_s"], bl
assert all(x["dir"] != "baseline" for x in c[0]["finalists"]), c   # never a finalist
r = json.load(open(run + "/result.json"))
b = r["baseline"]
assert b["median_s"] == bl["median_s"] and b["start_median_s"] == start and b["confirm_rounds"] == 3, b
best = r["best"]
assert abs(best["speedup_vs_baseline"] - b["median_s"] / best["median_s"]) < 1e-12 * best["speedup_vs_baseline"], best
for rr in (1, 2, 3):
    json.load(open("%s/confirm/%d-2/eval.json" % (run, rr)))   # the baseline's evaluations, after the 2 finalists
PY
[ $? -eq 0 ] && ok "journal, result.json and confirm/ hold the baseline's rounds; the speedup uses them" \
    || no "journal, result.json and confirm/ hold the baseline's rounds; the speedup uses them" "$(cat "$tmp/j.err")" \
        "$(grep -e confirm -e '"baseline"' "$tmp/run/journal.jsonl")" "$(cat "$tmp/run/result.json")"
"$KFORGE" run --resume "$tmp/f" --confirm-rounds 3 >"$tmp/f.out" 2>&1
rc=$?
[ $rc -eq 0 ] && grep -q 'confirm: round 1  baseline .*out: mismatch' "$tmp/f.out" \
    && grep -q 'confirm: the baseline failed its re-evaluation; its first time stands' "$tmp/f.out" \
    && ok "a baseline failing its re-evaluation: the run says its first time stands" \
    || no "a baseline failing its re-evaluation: the run says its first time stands" "exit $rc" "$(cat "$tmp/f.out")"
"$PYTHON3" - "$tmp/f" <<'PY' 2>"$tmp/f.err"
import json, sys
run = sys.argv[1]
ev = [json.loads(l) for l in open(run + "/journal.jsonl") if l.strip()]
start = [e for e in ev if e["ev"] == "baseline"][0]["median_s"]
c = [e for e in ev if e["ev"] == "confirm"]
assert len(c) == 1 and c[0]["chosen"] == "steps/0002-0", c
assert c[0]["baseline"]["median_s"] == 0 and c[0]["baseline"]["times_s"][0] == 0, c[0]["baseline"]
r = json.load(open(run + "/result.json"))
assert r["baseline"]["median_s"] == start and "start_median_s" not in r["baseline"], r["baseline"]
assert abs(r["best"]["speedup_vs_baseline"] - start / r["best"]["median_s"]) < 1e-12 * r["best"]["speedup_vs_baseline"], r["best"]
PY
[ $? -eq 0 ] && ok "result.json keeps the baseline's first time; the best is still chosen" \
    || no "result.json keeps the baseline's first time; the best is still chosen" "$(cat "$tmp/f.err")" \
        "$(grep -e confirm "$tmp/f/journal.jsonl")" "$(cat "$tmp/f/result.json")"

rm -f "$tmp/agent.sh.calls"
"$KFORGE" run "$here/scale_relu.json" --backend cpu-simd --agent "cmd:$tmp/agent.sh" \
    --out "$tmp/lone" --target 0 --max-iterations 4 --confirm-rounds 0 >"$tmp/lone.out" 2>&1 &&
    "$PYTHON3" "$here/make_script.py" slow >"$tmp/lone/baseline/candidate/kernel.c" &&
    "$KFORGE" run --resume "$tmp/lone" --confirm-rounds 3 >>"$tmp/lone.out" 2>&1
rc=$?
"$PYTHON3" - "$tmp/lone" <<'PY' 2>"$tmp/lone.err"
import json, sys
run = sys.argv[1]
ev = [json.loads(l) for l in open(run + "/journal.jsonl") if l.strip()]
start = [e for e in ev if e["ev"] == "baseline"][0]["median_s"]
c = [e for e in ev if e["ev"] == "confirm"]
assert len(c) == 1 and c[0]["rounds"] == 3 and c[0]["chosen"] == "steps/0002-0", c
assert [x["dir"] for x in c[0]["finalists"]] == ["steps/0002-0"], c   # step 1 (3 ms) is not within 2x
assert len(c[0]["baseline"]["times_s"]) == 3 and min(c[0]["baseline"]["times_s"]) > 0, c
r = json.load(open(run + "/result.json"))
assert r["baseline"]["start_median_s"] == start and r["baseline"]["median_s"] == c[0]["baseline"]["median_s"], r["baseline"]
assert r["best"]["dir"] == "steps/0002-0/candidate" and r["best"]["confirmed"]["finalists"] == 1, r["best"]
PY
[ $rc -eq 0 ] && [ ! -s "$tmp/lone.err" ] && grep -q "confirm: the best (no other correct candidate within 2x of it) timed again beside the baseline" "$tmp/lone.out" \
    && ok "the best alone is timed again beside the baseline" \
    || no "the best alone is timed again beside the baseline" "exit $rc" "$(cat "$tmp/lone.err")" "$(tail -n 20 "$tmp/lone.out")"

agent "$tmp/sleepers.sh" sleepers
"$KFORGE" run "$here/scale_relu.json" --backend cpu-simd --agent "cmd:$tmp/sleepers.sh" \
    --out "$tmp/bl" --target 0 --max-iterations 4 >"$tmp/bl.out" 2>&1
rc=$?
"$PYTHON3" - "$tmp/bl" <<'PY' 2>"$tmp/bl.err"
import json, sys
run = sys.argv[1]
ev = [json.loads(l) for l in open(run + "/journal.jsonl") if l.strip()]
c = [e for e in ev if e["ev"] == "confirm"]
assert len(c) == 1 and c[0]["rounds"] == 3 and c[0]["chosen"] == "baseline", c
assert sorted(x["dir"] for x in c[0]["finalists"]) == ["steps/0001-0", "steps/0002-0"], c
f = {x["dir"]: x for x in c[0]["finalists"]}
assert all(bt < ft for bt, ft in zip(c[0]["baseline"]["times_s"], f["steps/0002-0"]["times_s"])), c
r = json.load(open(run + "/result.json"))
b = r["best"]
assert b["dir"] == "baseline/candidate" and b["verified"] and b["same_code_as_baseline"], b
assert b["speedup_vs_baseline"] == 1 and b["median_s"] == r["baseline"]["median_s"] == c[0]["baseline"]["median_s"], (b, r["baseline"])
assert b["confirmed"]["replaced"] == "steps/0002-0/candidate" and b["confirmed"]["rounds"] == 3, b
assert b["confirmed"]["step_median_s"] == r["baseline"]["start_median_s"], (b, r["baseline"])
PY
[ $rc -eq 0 ] && [ ! -s "$tmp/bl.err" ] \
    && grep -q "confirm: the op-by-op baseline .* (median of 3 rounds) was faster than the search's fastest, steps/0002-0 (.*), in every round: the run's best is now the baseline's kernel" "$tmp/bl.out" \
    && grep -q "best kernel: $tmp/bl/baseline/candidate" "$tmp/bl.out" \
    && grep -q "speedup 1.00x (the baseline's own code" "$tmp/bl.out" \
    && ok "a baseline faster than every finalist in the rounds becomes the run's best" \
    || no "a baseline faster than every finalist in the rounds becomes the run's best" "exit $rc" "$(cat "$tmp/bl.err")" \
        "$(tail -n 20 "$tmp/bl.out")" "$(grep confirm "$tmp/bl/journal.jsonl")"

"$KFORGE" export "$tmp/bl" --to c --out "$tmp/blc" >"$tmp/blc.out" 2>&1
rc=$?
[ $rc -eq 0 ] && cmp -s "$tmp/blc/kernel.c" "$tmp/bl/baseline/candidate/kernel.c" \
    && ok "the baseline chosen as the best exports as host C" \
    || no "the baseline chosen as the best exports as host C" "exit $rc" "$(cat "$tmp/blc.out")" "$(ls -l "$tmp/blc" 2>&1)"
rm -f "$tmp/sleepers.sh.calls"
"$KFORGE" run "$here/scale_relu.json" --backend cpu-simd --agent "cmd:$tmp/sleepers.sh" \
    --out "$tmp/bl1" --target 0 --max-iterations 4 --confirm-rounds 1 >"$tmp/bl1.out" 2>&1
rc=$?
"$PYTHON3" - "$tmp/bl1" <<'PY' 2>"$tmp/bl1.err"
import json, sys
run = sys.argv[1]
ev = [json.loads(l) for l in open(run + "/journal.jsonl") if l.strip()]
c = [e for e in ev if e["ev"] == "confirm"]
assert len(c) == 1 and c[0]["rounds"] == 1 and c[0]["chosen"] == "steps/0002-0", c
f = {x["dir"]: x for x in c[0]["finalists"]}
assert c[0]["baseline"]["times_s"][0] < f["steps/0002-0"]["times_s"][0], c   # faster, in its one round
b = json.load(open(run + "/result.json"))["best"]
assert b["dir"] == "steps/0002-0/candidate" and not b.get("same_code_as_baseline"), b
PY
[ $rc -eq 0 ] && [ ! -s "$tmp/bl1.err" ] \
    && grep -q "confirm: the op-by-op baseline .* was faster than steps/0002-0 (.*) in the 1 round that ran; fewer than 2 rounds do not replace the search's kernel" "$tmp/bl1.out" \
    && grep -q "best kernel: $tmp/bl1/steps/0002-0/candidate" "$tmp/bl1.out" \
    && ok "a baseline faster in one round only does not replace the search's kernel" \
    || no "a baseline faster in one round only does not replace the search's kernel" "exit $rc" "$(cat "$tmp/bl1.err")" \
        "$(tail -n 20 "$tmp/bl1.out")" "$(grep confirm "$tmp/bl1/journal.jsonl")"
tap_exit
