#!/bin/bash
# kforge suite --seeds N: every problem N times with agent seeds 1..N into
# runs/NAME~sK, the reports' statistics over seeds, a second invocation
# that runs nothing again, a report directory of other seeds refused; and
# kforge report A B: two reports paired by problem, the Wilcoxon test,
# compare.{md,json}; bad input exits 2.
set -u
here="$KF_SRCDIR/tests/e2e/suite"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
. "$KF_SRCDIR/tests/e2e/tap.sh"
echo "1..12"
export XDG_CACHE_HOME="$tmp/cache"
py() { "$PYTHON3" -c "$@"; }
A="$tmp/seeds"

"$KFORGE" suite "$here" --backend cpu-simd --preset small --max-iterations 1 --seeds 2 --jobs 2 \
    --report "$A" >"$tmp/out1" 2>&1
rc=$?
[ $rc -eq 0 ] && ok "suite --seeds 2 exits 0" || no "suite --seeds 2 exits 0" "exit $rc" "$(tail -n 20 "$tmp/out1")"
dirs=$(cd "$A/runs" && echo *)
[ "$dirs" = "a_scale_relu~s1 a_scale_relu~s2 b_add_sigmoid~s1 b_add_sigmoid~s2" ] && ok "run directories NAME~s1 and NAME~s2" \
    || no "run directories NAME~sK" "got: $dirs"
got=$(py '
import json, sys, glob
print(" ".join(str(json.load(open(d + "/run.json"))["agent_seed"]) for d in sorted(glob.glob(sys.argv[1] + "/runs/*"))))' "$A" 2>&1)
[ "$got" = "1 2 1 2" ] && ok "each run has its agent seed in run.json" || no "each run has its agent seed" "got: $got"
grep -q '^\[4/4\] b_add_sigmoid~s2 ' "$tmp/out1" && ok "one progress line per run" || no "one progress line per run" "$(cat "$tmp/out1")"

got=$(py '
import json, sys
r = json.load(open(sys.argv[1]))
s = r["seeds"]
p = s["problems"]
print(s["seeds"], [x["name"] for x in p], [x["runs"] for x in p], [x["success_rate"] for x in p],
      all(x["speedup"]["n"] == sum(1 for e in r["problems"] if (e["name"] == x["name"] or e["name"].startswith(x["name"] + "~"))
                                   and (e.get("speedup") or 0) > 0) >= 1
          and x["speedup"]["min"] <= x["speedup"]["median"] <= x["speedup"]["max"] for x in p),
      [x["steps_to_first_correct"]["median"] for x in p], [x["steps_to_best"]["median"] for x in p],
      s["summary"]["success_rate_bootstrap"]["value"], s["summary"]["per_seed_success_rate"]["n"],
      s["summary"]["geomean_median_speedup_bootstrap"]["ci95_lo"] <= s["summary"]["geomean_median_speedup_bootstrap"]["value"] <= s["summary"]["geomean_median_speedup_bootstrap"]["ci95_hi"],
      sorted(e["agent_seed"] for e in r["problems"]))' "$A/report.json" 2>&1)
[ "$got" = "2 ['a_scale_relu', 'b_add_sigmoid'] [2, 2] [1.0, 1.0] True [1.0, 1.0] [1.0, 1.0] 1.0 2 True [1, 1, 2, 2]" ] \
    && ok "report.json: per problem over 2 seeds, summary with error bars" || no "report.json seeds section" "got: $got"
grep -q '^## Over agent seeds' "$A/report.md" && grep -q '^| a_scale_relu | 2/2 (1.00) | 1 \[1..1\] (1..1) | 1 \[1..1\] (1..1) | ' "$A/report.md" \
    && grep -q '^| b_add_sigmoid (seed 2) | correct' "$A/report.md" && grep -q 'Over agent seeds</h2>' "$A/report.html" \
    && ok "report.md and report.html have the seeds section and per-seed rows" \
    || no "report.md/html seeds section" "$(sed -n '/Over agent/,/^## Problems/p' "$A/report.md")"

"$KFORGE" suite "$here" --backend cpu-simd --preset small --max-iterations 1 --seeds 2 --report "$A" >"$tmp/out2" 2>&1
rc=$?
[ $rc -eq 0 ] && [ "$(grep -c 'already done: correct' "$tmp/out2")" -eq 4 ] && ok "a second invocation runs nothing again" \
    || no "a second invocation runs nothing again" "exit $rc" "$(cat "$tmp/out2")"

# (a run whose baseline could not be timed on a loaded machine has no speedup:
# the spread is over the runs that have one)
# B: one run per problem, no seeds: the plain report, unchanged
B="$tmp/plain"
"$KFORGE" suite "$here" --backend cpu-simd --preset small --max-iterations 1 --report "$B" >"$tmp/out3" 2>&1
got=$(py 'import json,sys; r=json.load(open(sys.argv[1])); print("seeds" in r, "agent_seed" in r["problems"][0])' "$B/report.json" 2>&1)
[ "$got" = "False False" ] && ! grep -q 'Over agent seeds' "$B/report.md" && [ -d "$B/runs/a_scale_relu" ] \
    && ok "without --seeds: runs/NAME and no seeds section" || no "without --seeds: unchanged report" "got: $got"
"$KFORGE" suite "$here" --backend cpu-simd --preset small --max-iterations 1 --seeds 1 --report "$B" >"$tmp/out4" 2>&1
rc=$?
[ $rc -eq 2 ] && grep -q "agent seed 0, not 1" "$tmp/out4" && ok "--seeds 1 on runs without an agent seed exits 2" \
    || no "--seeds 1 on runs without an agent seed exits 2" "exit $rc" "$(cat "$tmp/out4")"

"$KFORGE" report "$B" "$A" --out "$tmp/cmp" >"$tmp/out5" 2>&1
rc=$?
got=$(py '
import json, sys
c = json.load(open(sys.argv[1]))
w = c["summary"]["wilcoxon"]
print(c["measure"], [r["problem"] for r in c["problems"]], all(r["ratio"] > 0 for r in c["problems"]),
      [r["b"]["runs"] for r in c["problems"]], c["summary"]["paired"], w["n"], 0 < w["p"] <= 1)' "$tmp/cmp/compare.json" 2>&1)
[ $rc -eq 0 ] && [ "$got" = "time ['a_scale_relu', 'b_add_sigmoid'] True [2, 2] 2 2 True" ] && grep -q "Wilcoxon signed-rank" "$tmp/out5" \
    && grep -q '^| a_scale_relu | .* (1/1 correct) | .* (2/2 correct) | ' "$tmp/cmp/compare.md" \
    && ok "kforge report A B pairs the problems, ratios and the Wilcoxon test" \
    || no "kforge report A B" "exit $rc, got: $got" "$(cat "$tmp/out5")"
"$KFORGE" report "$B" >"$tmp/out6" 2>&1; r1=$?
"$KFORGE" report "$B" "$tmp/nowhere" --out "$tmp/cmp2" >"$tmp/out7" 2>&1; r2=$?
"$KFORGE" report "$B" "$A" --measure speed >"$tmp/out8" 2>&1; r3=$?
[ $r1 -eq 2 ] && [ $r2 -eq 2 ] && [ $r3 -eq 2 ] && [ ! -e "$tmp/cmp2" ] && ok "one report, a missing one or a bad --measure exits 2" \
    || no "bad input to kforge report exits 2" "exits $r1 $r2 $r3" "$(cat "$tmp/out7")"
if grep -l -e 'Sanitizer' -e 'runtime error' "$A"/logs/*.log "$tmp"/out* >/dev/null 2>&1; then
    no "no sanitizer report" "$(grep -h -A8 -e Sanitizer -e 'runtime error' "$A"/logs/*.log "$tmp"/out* | head -30)"
else ok "no sanitizer report"; fi
tap_exit
