#!/bin/bash
# The final re-timing when every finalist fails its re-evaluation: two
# kernels pass their steps, alike in speed (both finalists), and are wrong
# in every later evaluation (each load counts itself in a file: the run is
# --sandbox off so that they may write it, as a kernel that keeps state
# between evaluations would).  The run ends with no verified kernel: exit 1,
# result.json's best is null with the reason, the journal's confirm event
# has no chosen finalist and no time for either, and each failed round's
# evaluation is kept in confirm/.  Then a run of one such kernel with its
# baseline: the best alone is re-evaluated beside the baseline, fails, and
# the run ends the same way (its step's kernel and records kept).
set -u
here="$KF_SRCDIR/tests/e2e/llm"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
. "$KF_SRCDIR/tests/e2e/tap.sh"
. "$KF_SRCDIR/tests/e2e/llm/scripted_agent.sh"
echo "1..5"
export XDG_CACHE_HOME="$tmp/cache"
mkdir "$tmp/state"

scripted_agent "$tmp/agent.sh" "$tmp/calls" stale "$tmp/state"

"$KFORGE" run "$here/scale_relu.json" --backend cpu-simd --agent "cmd:$tmp/agent.sh" --sandbox off \
    --out "$tmp/run" --no-baseline --target 0 --max-iterations 4 >"$tmp/out" 2>&1
rc=$?
[ $rc -eq 1 ] && grep -q "confirm: every finalist failed its re-evaluation; the run has no verified kernel" "$tmp/out" \
    && [ "$(grep -c 'confirm: round 1  steps/000[12]-0 .*out: mismatch' "$tmp/out")" = 2 ] \
    && ok "every finalist fails: the run says it has no verified kernel and exits 1" \
    || no "every finalist fails: the run says it has no verified kernel and exits 1" "exit $rc" "$(tail -n 30 "$tmp/out")"

# both passed their steps (the counters: one evaluation each in its step, then the rounds)
"$PYTHON3" - "$tmp/run" <<'PY' 2>"$tmp/steps.err"
import json, sys
run = sys.argv[1]
for s in ("0001-0", "0002-0"):
    v = json.load(open("%s/steps/%s/verdict.json" % (run, s)))
    assert v["verdict"] == "pass", (s, v)
PY
[ $? -eq 0 ] && ok "both kernels passed their steps" || no "both kernels passed their steps" "$(cat "$tmp/steps.err")"

"$PYTHON3" - "$tmp/run" <<'PY' 2>"$tmp/result.err"
import json, sys
run = sys.argv[1]
r = json.load(open(run + "/result.json"))
assert r["best"] is None, r["best"]
assert r["stop_reason"] == "every finalist failed its re-evaluation", r
PY
[ $? -eq 0 ] && ok "result.json: no best, and the reason" || no "result.json: no best, and the reason" "$(cat "$tmp/result.err")" \
    "$(cat "$tmp/run/result.json")"

"$PYTHON3" - "$tmp/run" <<'PY' 2>"$tmp/journal.err"
import glob, json, sys
run = sys.argv[1]
c = [json.loads(l) for l in open(run + "/journal.jsonl") if l.strip() and json.loads(l)["ev"] == "confirm"]
assert len(c) == 1, c
c = c[0]
assert not c.get("chosen"), c
f = c["finalists"]
assert sorted(x["dir"] for x in f) == ["steps/0001-0", "steps/0002-0"], f
assert all(x["median_s"] == 0 and not any(x["times_s"]) for x in f), f   # no time for a failed finalist
evals = sorted(glob.glob(run + "/confirm/*/eval.json"))
assert len(evals) == 2 * c["rounds"], evals   # the rounds run: both evaluated in each
for p in evals:
    e = json.load(open(p))
    assert e["verdict"] == "mismatch" and e["pass"] is False, (p, e["verdict"])
PY
[ $? -eq 0 ] && ok "journal: a confirm event with no choice; the failed rounds kept in confirm/" \
    || no "journal: a confirm event with no choice; the failed rounds kept in confirm/" "$(cat "$tmp/journal.err")" \
        "$(grep confirm "$tmp/run/journal.jsonl")"

mkdir "$tmp/state1"
cat >"$tmp/agent1.sh" <<AG
#!/bin/sh
cat >/dev/null
c=\$(cat "$tmp/calls1" 2>/dev/null || echo 0)
echo \$((c + 1)) >"$tmp/calls1"
exec "$PYTHON3" "$here/make_script.py" answer \$c stale "$tmp/state1"
AG
chmod +x "$tmp/agent1.sh"
"$KFORGE" run "$here/scale_relu.json" --backend cpu-simd --agent "cmd:$tmp/agent1.sh" --sandbox off \
    --out "$tmp/lone" --target 0 --max-iterations 1 >"$tmp/lone.out" 2>&1
rc=$?
"$PYTHON3" - "$tmp/lone" <<'PY' 2>"$tmp/lone.err"
import json, os, sys
run = sys.argv[1]
r = json.load(open(run + "/result.json"))
assert r["best"] is None and r["stop_reason"] == "every finalist failed its re-evaluation", r
c = [json.loads(l) for l in open(run + "/journal.jsonl") if l.strip() and json.loads(l)["ev"] == "confirm"]
assert len(c) == 1 and [x["dir"] for x in c[0]["finalists"]] == ["steps/0001-0"] and "baseline" in c[0], c
assert os.path.isfile(run + "/steps/0001-0/candidate/candidate.c"), "the step's kernel is kept"
PY
[ $rc -eq 1 ] && [ ! -s "$tmp/lone.err" ] && grep -q "confirm: the best (no other correct candidate within 2x of it) timed again beside the baseline" "$tmp/lone.out" \
    && grep -q "confirm: every finalist failed its re-evaluation; the run has no verified kernel" "$tmp/lone.out" \
    && ok "the best alone, re-evaluated beside the baseline, fails: no verified kernel, exit 1, its records kept" \
    || no "the best alone, re-evaluated beside the baseline, fails: no verified kernel, exit 1, its records kept" \
        "exit $rc" "$(cat "$tmp/lone.err")" "$(tail -n 20 "$tmp/lone.out")"
