#!/bin/bash
# bench/run_suite.sh — the benchmark of issue 5: `kforge suite` over the
# Level-2 problems on each backend, with the machine and the commit recorded
# next to the reports.
#
#   bench/run_suite.sh [options] [PROBLEMS...] [-- extra 'kforge suite' options]
#
#   --backends "B1 B2"  backends to run (default: "cpu-simd opencl")
#   --preset P          problem preset (default: cpu)
#   --jobs N            problems at once (default: 1: timings are not disturbed)
#   --out DIR           result directory (default: bench/results/<machine>-<date>)
#   PROBLEMS            problem directories or files (default: problems/level2)
#
# The kforge binary is $KFORGE, else the one on PATH.  Results:
#   DIR/uname.txt DIR/lscpu.txt DIR/version.txt DIR/git.txt DIR/backends.txt
#   DIR/<backend>/report.{json,md,html} and its runs, DIR/<backend>.out (the suite's output)
#   DIR/summary.md: one line per backend (exit status, wall time, correct, geomean, fast_p)
# Running it again with the same --out continues: finished problems are kept.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
backends="cpu-simd opencl"
preset=cpu
jobs=1
out=
problems=()
extra=()
while [ $# -gt 0 ]; do
    case "$1" in
    --backends) backends=$2; shift 2 ;;
    --preset) preset=$2; shift 2 ;;
    --jobs) jobs=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --) shift; extra=("$@"); break ;;
    -h|--help) sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "run_suite.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
    *) problems+=("$1"); shift ;;
    esac
done
[ ${#problems[@]} -eq 0 ] && problems=("$top/problems/level2")
kforge=${KFORGE:-$(command -v kforge || true)}
if [ -z "$kforge" ] || [ ! -x "$kforge" ]; then
    echo "run_suite.sh: no kforge binary: build it, then set KFORGE=/path/to/kforge or put it on PATH" >&2
    exit 2
fi
machine=$(hostname -s 2>/dev/null || hostname)
[ -n "$out" ] || out="$top/bench/results/$machine-$(date +%Y%m%d)"
mkdir -p "$out" || exit 2

uname -a >"$out/uname.txt"
if command -v lscpu >/dev/null; then lscpu >"$out/lscpu.txt"; else cat /proc/cpuinfo >"$out/lscpu.txt"; fi
"$kforge" version >"$out/version.txt" 2>&1
{
    echo "commit: $(git -C "$top" rev-parse HEAD 2>/dev/null || echo unknown)"
    dirty=$(git -C "$top" status --porcelain --untracked-files=no 2>/dev/null | wc -l)
    echo "modified tracked files: $dirty"
    echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "command: kforge suite ${problems[*]} --preset $preset --jobs $jobs ${extra[*]:-}"
} >"$out/git.txt"
"$kforge" backends >"$out/backends.txt" 2>&1

summary="$out/summary.md"
{
    echo "# kforge suite benchmark: $machine"
    echo
    echo "- $(cat "$out/version.txt"), $(head -n1 "$out/git.txt")"
    echo "- $(grep -m1 'Model name' "$out/lscpu.txt" | sed 's/  */ /g')"
    echo "- problems: ${problems[*]}, preset $preset, jobs $jobs"
    echo
    echo "| backend | exit | wall | correct | geomean speedup | fast_0 | fast_1 | fast_2 |"
    echo "| --- | --- | --- | --- | --- | --- | --- | --- |"
} >"$summary"

worst=0
for b in $backends; do
    echo "== $b" >&2
    t0=$(date +%s)
    "$kforge" suite "${problems[@]}" --backend "$b" --preset "$preset" --jobs "$jobs" --report "$out/$b" \
        ${extra[@]+"${extra[@]}"} 2>&1 | tee "$out/$b.out"
    rc=${PIPESTATUS[0]}
    t1=$(date +%s)
    [ $rc -gt $worst ] && worst=$rc
    line=$(python3 - "$out/$b/report.json" 2>/dev/null <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))["summary"]
g = s["geomean_speedup_correct"]
print("%d/%d | %s | %.2f | %.2f | %.2f" % (s["correct"], s["problems"], "%.3gx" % g if g > 0 else "-",
      s["fast_p"]["0"], s["fast_p"]["1"], s["fast_p"]["2"]))
PY
    ) || line="- | - | - | - | -"
    echo "| $b | $rc | $((t1 - t0)) s | $line |" >>"$summary"
done
echo >&2
cat "$summary" >&2
echo "results: $out" >&2
exit $worst
