#!/bin/bash
# kforge suite on two tiny problems with the built-in agent (two at once):
# the three reports and their content, a second invocation that runs nothing
# again, the resume of a run whose result was lost, --report-only, and bad
# input (exit 2).
set -u
here="$KF_SRCDIR/tests/e2e/suite"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
. "$KF_SRCDIR/tests/e2e/tap.sh"
echo "1..35"
export XDG_CACHE_HOME="$tmp/cache"
rep="$tmp/report"

"$KFORGE" suite "$here" --backend cpu-simd --preset small --max-iterations 2 --jobs 2 \
    --report "$rep" >"$tmp/out1" 2>&1
rc=$?
[ $rc -eq 0 ] && ok "suite exits 0: both problems have a correct kernel" \
    || no "suite exits 0: both problems have a correct kernel" "exit $rc" "$(tail -n 20 "$tmp/out1")" \
          "$(tail -n 5 "$rep"/logs/*.log 2>/dev/null)"
for f in report.json report.md report.html suite.json; do
    check "$f written" test -s "$rep/$f"
done

summary=$("$PYTHON3" -c '
import json, sys
r = json.load(open(sys.argv[1]))
p = r["problems"]
print(len(p), " ".join(x["name"] for x in p), " ".join(x["status"] for x in p),
      r["summary"]["fast_p"]["0"], r["summary"]["correct"],
      all(x["best_s"] > 0 and x["steps"] >= 1 for x in p),
      all(x["baseline_how"] for x in p), r["machine"]["cpus"] > 0)
' "$rep/report.json" 2>&1)
[ "$summary" = "2 a_scale_relu b_add_sigmoid correct correct 1.0 2 True True True" ] \
    && ok "report.json parses: the two problems, correct, fast_0 = 1" \
    || no "report.json parses: the two problems, correct, fast_0 = 1" "got: $summary"

grep -q '^| a_scale_relu | correct' "$rep/report.md" && grep -q '^| b_add_sigmoid | correct' "$rep/report.md" \
    && ok "report.md has a table row per problem" || no "report.md has a table row per problem" "$(cat "$rep/report.md")"
# the precision column: these element-wise kernels name the fp32 FMA unit
# (compute_unit 0 in their eval.json; their built-in points say fp32 too)
prec=$("$PYTHON3" -c '
import json, sys
rows = [[c.strip() for c in l.strip().strip("|").split("|")] for l in open(sys.argv[1]) if l.startswith("| ")]
head = next((r for r in rows if r[0] == "problem" and "precision" in r), [])
col = head.index("precision") if head else -1
print(col >= 0 and " ".join(r[0] + "=" + r[col] for r in rows
                             if r[0].strip() in ("a_scale_relu", "b_add_sigmoid")))
' "$rep/report.md" 2>&1)
[ "$prec" = "a_scale_relu=fp32 b_add_sigmoid=fp32" ] && ok "report.md: a precision column, fp32 for both" \
    || no "report.md: a precision column, fp32 for both" "got: $prec" "$(grep -A4 '^## Problems' "$rep/report.md")"
prec=$("$PYTHON3" -c '
import json, sys
r = json.load(open(sys.argv[1]))
out = []
for x in r["problems"]:
    unit = json.load(open(x["run_dir"] + "/" + json.load(open(x["run_dir"] + "/result.json"))["best"]["dir"]
                          + "/../eval.json"))["timing"]["counters"].get("compute_unit")
    out.append("%s %s %s" % (x["precision"], x["precision_from"], unit if unit is None else int(unit)))
print("; ".join(out))
' "$rep/report.json" 2>&1)
[ "$prec" = "fp32 compute_unit counter 0; fp32 compute_unit counter 0" ] \
    && ok "report.json: precision fp32 from the eval's compute_unit 0" \
    || no "report.json: precision fp32 from the eval's compute_unit 0" "got: $prec"
nsvg=$(grep -o '<svg' "$rep/report.html" | wc -l)
[ "$nsvg" -eq 4 ] && ok "report.html has the speedup, roofline and two trace plots" \
    || no "report.html has 4 plots" "got $nsvg"
if grep -q -e 'http' -e '<script' "$rep/report.html"; then no "report.html is self-contained" "$(grep -n -e http -e '<script' "$rep/report.html" | head -3)"
else ok "report.html is self-contained"; fi
grep -q '^\[1/2\] ' "$tmp/out1" && grep -q '^\[2/2\] ' "$tmp/out1" \
    && ok "one progress line per problem" || no "one progress line per problem" "$(cat "$tmp/out1")"
check "each run directory has its result" test -s "$rep/runs/a_scale_relu/result.json" -a -s "$rep/runs/b_add_sigmoid/result.json"

# under --enable-sanitizers each run process checks itself at exit: its log must be clean
if grep -l -e 'Sanitizer' -e 'runtime error' "$rep"/logs/*.log >/dev/null 2>&1; then
    no "the run logs hold no sanitizer report" "$(grep -h -A8 -e Sanitizer -e 'runtime error' "$rep"/logs/*.log | head -40)"
else ok "the run logs hold no sanitizer report"; fi

# again: finished problems are not run again
lines=$(cat "$rep"/runs/*/journal.jsonl | wc -l)
"$KFORGE" suite "$here" --backend cpu-simd --preset small --max-iterations 2 --report "$rep" >"$tmp/out2" 2>&1
rc=$?
lines2=$(cat "$rep"/runs/*/journal.jsonl | wc -l)
[ $rc -eq 0 ] && [ "$(grep -c 'already done: correct' "$tmp/out2")" -eq 2 ] && [ "$lines" -eq "$lines2" ] \
    && ok "a second invocation runs nothing again" || no "a second invocation runs nothing again" "exit $rc, journal $lines -> $lines2" "$(cat "$tmp/out2")"

# a run that lost its result (killed at the end) is resumed, not restarted
rm "$rep/runs/b_add_sigmoid/result.json"
"$KFORGE" suite "$here" --backend cpu-simd --preset small --max-iterations 2 --report "$rep" >"$tmp/out3" 2>&1
rc=$?
starts=$(grep -c '"ev":"start"' "$rep/runs/b_add_sigmoid/journal.jsonl")
[ $rc -eq 0 ] && grep -q 'b_add_sigmoid .*resuming' "$tmp/out3" && [ "$starts" -eq 1 ] \
    && grep -q '"ev":"resume"' "$rep/runs/b_add_sigmoid/journal.jsonl" && test -s "$rep/runs/b_add_sigmoid/result.json" \
    && ok "a killed run is resumed" || no "a killed run is resumed" "exit $rc, starts $starts" "$(cat "$tmp/out3")"

# --report-only rewrites the reports from the runs
rm "$rep/report.json" "$rep/report.md" "$rep/report.html"
"$KFORGE" suite --report-only "$rep" >"$tmp/out4" 2>&1
rc=$?
[ $rc -eq 0 ] && [ -s "$rep/report.json" ] && [ -s "$rep/report.md" ] && [ -s "$rep/report.html" ] \
    && ok "--report-only rewrites the three reports" || no "--report-only rewrites the three reports" "exit $rc" "$(cat "$tmp/out4")"

# a run process that dies (the agent kills it) loses that problem only
cat >"$tmp/killer.sh" <<'AG'
#!/bin/sh
cat >/dev/null
p=$PPID
while [ "$p" -gt 1 ] && [ "$(cat /proc/$p/comm)" != kforge ]; do p=$(cut -d' ' -f4 /proc/$p/stat); done
kill -9 "$p"
AG
chmod +x "$tmp/killer.sh"
"$KFORGE" suite "$here" --backend cpu-simd --preset small --max-iterations 2 --agent "cmd:$tmp/killer.sh" \
    --report "$tmp/crash" >"$tmp/out5" 2>&1
rc=$?
[ $rc -eq 1 ] && [ "$(grep -c 'crashed    (signal 9)' "$tmp/out5")" -eq 2 ] \
    && ok "a crashed run is reported and the suite goes on (exit 1)" \
    || no "a crashed run is reported and the suite goes on (exit 1)" "exit $rc" "$(cat "$tmp/out5")"
[ "$(grep -c '| \*\*no result\*\* (no result.json: the run was killed' "$tmp/crash/report.md")" -eq 2 ] \
    && ok "the report lists the crashed runs as 'no result'" \
    || no "the report lists the crashed runs as 'no result'" "$(cat "$tmp/crash/report.md" 2>&1)"

# bad input: exit 2 with a message that says what is wrong
bad() {
    local name=$1 want=$2; shift 2
    "$KFORGE" suite "$@" >"$tmp/bad.out" 2>&1
    local rc=$?
    if [ $rc -eq 2 ] && grep -q -- "$want" "$tmp/bad.out"; then ok "$name"
    else no "$name" "exit $rc (want 2), output:" "$(cat "$tmp/bad.out")"; fi
}
bad "a missing directory exits 2" "No such file" "$tmp/nope" --backend cpu-simd --report "$tmp/r2"
bad "no --backend exits 2" "needs" "$here" --report "$tmp/r2"
bad "an unknown backend exits 2" "no backend 'nope'" "$here" --backend nope --report "$tmp/r2"
bad "a preset a problem lacks exits 2" "no preset 'huge'" "$here" --backend cpu-simd --preset huge --report "$tmp/r2"
printf '{"name": "broken", "dims": ["N"]}' >"$tmp/broken.json"
bad "a malformed problem exits 2" "broken.json" "$tmp/broken.json" --backend cpu-simd --report "$tmp/r2"
bad "a report directory of another agent exits 2" "holds a run with backend cpu-simd, preset small, agent cmd:" \
    "$here" --backend cpu-simd --preset small --report "$tmp/crash"
bad "--report-only of a directory without runs exits 2" "runs" --report-only "$tmp/r2"
bad "one unknown backend of a list exits 2 before anything runs" "no backend 'nope'" "$here" --backend cpu-simd,nope \
    --report "$tmp/r3"
[ ! -d "$tmp/r3/cpu-simd/runs" ] && ok "... and ran nothing" || no "... and ran nothing" "$(ls -R "$tmp/r3" | head)"

# --anchors: PyTorch's times beside every result
names=$("$PYTHON3" -c 'import json,sys; print(" ".join(p["name"] for p in json.load(open(sys.argv[1]))["problems"]))' "$rep/report.json")
set -- $names
printf '{"machine": {"gpu": "fake"}, "problems": {"%s": {"eager_ms": 1000, "compile_ms": 500}, "%s": {"error": "unsupported op"}}}' \
    "$1" "$2" >"$tmp/anchors.json"
"$KFORGE" suite --report-only "$rep" --anchors "$tmp/anchors.json" >"$tmp/anch.out" 2>&1; rc=$?
res=$("$PYTHON3" -c '
import json, sys
r = json.load(open(sys.argv[1]))
v = r["summary"]["vs_pytorch"]
p = [x.get("pytorch") for x in r["problems"]]
t = p[0]
print(v["correct_with_anchor"], p[1] is None, abs(t["speedup_vs_faster"] * r["problems"][0]["best_s"] - 0.5) < 1e-9,
      abs(v["geomean_speedup_vs_faster"] - t["speedup_vs_faster"]) < 1e-9)
' "$rep/report.json" 2>&1)
if [ $rc -eq 0 ] && [ "$res" = "1 True True True" ] && grep -q "## Against PyTorch" "$rep/report.md" &&
   grep -q "over the faster of eager and torch.compile" "$tmp/anch.out"
then ok "--anchors puts eager/compile beside each problem, speedup over the faster, and its geomean"
else no "--anchors" "exit $rc: $res" "$(cat "$tmp/anch.out")"; fi
# CPU anchors (ONNX Runtime, a hand-written file): tool, version and threads stated in
# report.md, report.json and the summary line; one time per problem; matched by name
printf '{"tool": "onnxruntime", "version": "1.20.1", "device": "cpu", "threads": 2, "preset": "small", "machine": {"cpu": "x"}, "problems": {"%s": {"eager_ms": 1000}, "zz_not_in_suite": {"eager_ms": 1}}}' \
    "$1" >"$tmp/ort.json"
"$KFORGE" suite --report-only "$rep" --anchors "$tmp/ort.json" >"$tmp/ort.out" 2>&1; rc=$?
res=$("$PYTHON3" -c '
import json, sys
r = json.load(open(sys.argv[1]))
v = r["summary"]["vs_pytorch"]
t = r["problems"][0]["pytorch"]
print(v["tool"], v["version"], v["device"], v["threads"], v["preset"], v["problems_with_anchor"], v["correct_with_anchor"],
      r["problems"][1].get("pytorch") is None, abs(t["speedup_vs_faster"] * r["problems"][0]["best_s"] - 1.0) < 1e-9)
' "$rep/report.json" 2>&1)
if [ $rc -eq 0 ] && [ "$res" = "onnxruntime 1.20.1 cpu 2 small 1 1 True True" ] &&
   grep -q "^## Against ONNX Runtime" "$rep/report.md" && grep -q "^- Threads: the anchors used 2; " "$rep/report.md" &&
   grep -q "^- Anchors for 1 of the 2 problems; none for: $2\$" "$rep/report.md" &&
   grep -q "^| problem | best | ONNX Runtime | speedup |" "$rep/report.md" &&
   grep -q "^against ONNX Runtime ($tmp/ort.json: onnxruntime 1.20.1 on cpu, 2 threads, preset small): .* over ONNX Runtime (geomean over 1)" "$tmp/ort.out"
then ok "--anchors with CPU anchors of ONNX Runtime: tool, threads and matching stated, one column"
else no "--anchors with CPU anchors of ONNX Runtime" "exit $rc: $res" "$(cat "$tmp/ort.out")" "$(grep -A8 '^## Against' "$rep/report.md")"; fi
# PyTorch on the CPU: eager and compile, threads stated
printf '{"tool": "pytorch", "version": "2.15.0", "device": "cpu", "threads": 4, "preset": "small", "problems": {"%s": {"eager_ms": 1000, "compile_ms": 800}, "%s": {"eager_ms": 2}}}' \
    "$1" "$2" >"$tmp/ptcpu.json"
"$KFORGE" suite --report-only "$rep" --anchors "$tmp/ptcpu.json" >"$tmp/ptcpu.out" 2>&1; rc=$?
if [ $rc -eq 0 ] && grep -q "^## Against PyTorch" "$rep/report.md" && grep -q "^- Threads: the anchors used 4; " "$rep/report.md" &&
   grep -q "^- Anchors for 2 of the 2 problems$" "$rep/report.md" &&
   grep -q "pytorch 2.15.0 on cpu, 4 threads, preset small): .* over the faster of eager and torch.compile (geomean over 2)" "$tmp/ptcpu.out"
then ok "--anchors with PyTorch CPU anchors: eager and compile, threads stated"
else no "--anchors with PyTorch CPU anchors" "exit $rc" "$(cat "$tmp/ptcpu.out")" "$(grep -A8 '^## Against' "$rep/report.md")"; fi
sed 's/"preset": "small"/"preset": "cpu"/' "$tmp/ort.json" >"$tmp/ort-cpu.json"
bad "--anchors measured at another preset than the runs' exits 2" "measured at preset 'cpu' but .* ran at 'small'" \
    --report-only "$rep" --anchors "$tmp/ort-cpu.json"
echo '{"not": "anchors"}' >"$tmp/bad-anchors.json"
bad "--anchors with a file that is not an anchors file exits 2" "not an anchors file" --report-only "$rep" \
    --anchors "$tmp/bad-anchors.json"

# --backend a,b: the same suite on each, side by side (cpu-simd twice under two
# names is not possible, so cpu-simd and opencl, PoCL here)
if "$KFORGE" backends 2>/dev/null | grep -q '^opencl '; then
    "$KFORGE" suite "$here" --backend cpu-simd,opencl --preset small --max-iterations 1 --report "$tmp/two" \
        >"$tmp/two.out" 2>&1
    rc=$?
    res=$("$PYTHON3" -c '
import json, sys
c = json.load(open(sys.argv[1] + "/compare.json"))
rows = c["problems"]
print(c["backends"], len(rows), all(r["cpu-simd"]["status"] == "correct" and r["opencl"]["status"] == "correct" for r in rows))
' "$tmp/two" 2>&1)
    if [ $rc -eq 0 ] && [ "$res" = "['cpu-simd', 'opencl'] 2 True" ] && [ -s "$tmp/two/cpu-simd/report.md" ] &&
       [ -s "$tmp/two/opencl/report.md" ] && grep -q "| problem | cpu-simd best | cpu-simd speedup | opencl best" "$tmp/two/compare.md"
    then ok "--backend cpu-simd,opencl runs both into DIR/B and writes compare.md/json side by side"
    else no "--backend cpu-simd,opencl side by side" "exit $rc: $res" "$(tail -n 8 "$tmp/two.out")"; fi
else
    ok "--backend a,b side by side # SKIP no opencl backend here"
fi
# --no-baseline: the runs measure no op-by-op baseline, the settings say so
"$KFORGE" suite "$here/a_scale_relu.json" --backend cpu-simd --preset small --max-iterations 1 --no-baseline \
    --report "$tmp/nobase" >"$tmp/nobase.out" 2>&1
rc=$?
res=$("$PYTHON3" -c '
import json, sys
r = json.load(open(sys.argv[1] + "/report.json"))
p = r["problems"][0]
print(p["status"], p["baseline_s"], p["speedup"], r["settings"].get("baseline"))
' "$tmp/nobase" 2>&1)
if [ $rc -eq 0 ] && [ "$res" = "correct None None False" ] && [ ! -e "$tmp/nobase/runs/a_scale_relu/baseline" ]
then ok "--no-baseline: a correct kernel, no baseline measured, settings baseline=false"
else no "--no-baseline" "exit $rc: $res" "$(tail -n 8 "$tmp/nobase.out")"; fi
tap_exit
