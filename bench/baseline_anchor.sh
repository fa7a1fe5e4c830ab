#!/bin/bash
# bench/baseline_anchor.sh — the op-by-op baseline against its GEMM anchor
# (core/run/anchor.h) on cpu-simd, on a quiet machine and with one busy process.
#
#   bench/baseline_anchor.sh [options] [PROBLEMS...]
#
#   --preset P        problem preset (default: cpu)
#   --rounds N        runs of every problem per condition (default: 2)
#   --conditions "C"  any of: quiet busy1 (default: "quiet busy1"); busy1 runs
#                     `yes > /dev/null` (one process spinning, unpinned) for
#                     the whole condition
#   --build LABEL=ENV measure the kforge that the shell file ENV sets up
#                     (it exports KFORGE, and LD_LIBRARY_PATH, KFORGE_PLUGIN_PATH,
#                     KFORGE_WORKER as needed, and BENCH_COMMIT: the commit it
#                     was built from); repeatable: the builds then run back to
#                     back for every problem, so they see the same machine.
#                     Default: one build, "tree", the kforge of this tree
#   --out DIR         result directory (default: bench/results/baseline-anchor-<host>-<date>)
#   --keep            keep the run directories (default: only their result.json)
#   --wait-quiet S    before each problem (its builds then run back to back),
#                     wait up to S seconds (default 300) until the other
#                     processes leave the CPUs idle (busy under 15% of all CPUs
#                     over one second, plus the busy process's share in busy1);
#                     the busy fraction in the second before each run is in its line
#   PROBLEMS          problem files (default: six GEMM-dominated Level-2 problems:
#                     9, 12, 40, 63, 76, 99)
#
# Every run is `kforge run P --backend cpu-simd --preset P --max-iterations 1`:
# it measures the baseline, then the anchor right after it (the problem's main
# GEMM alone as one cblas_sgemm call, same M, N, K and threads, verified and
# timed through the same worker), then one candidate.  Results:
#   DIR/machine.txt   lscpu summary, kernel, OpenBLAS builds installed, date, commit
#   DIR/lscpu.txt     full lscpu
#   DIR/baseline_anchor.txt   one line per run: condition, round, build,
#                     problem, baseline, anchor, baseline/anchor, how busy the
#                     CPUs were just before, load average; then the summary of
#                     bench/baseline_anchor_summary.py (ratios per condition and
#                     build, over all runs and over the runs on an idle machine)
#   DIR/records/COND-ROUND-PROBLEM.json   each run's result.json
# The criteria of the issue this was written for: quiet, baseline within 15%
# of the anchor (ratio <= 1.15) for GEMM-dominated problems; busy1, within
# 1.5x.  The script prints them; it never fails on timings.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
preset=cpu
rounds=2
conditions="quiet busy1"
out=
keep=0
wait_quiet=300
builds=()
problems=()
while [ $# -gt 0 ]; do
    case "$1" in
    --preset) preset=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --conditions) conditions=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --keep) keep=1; shift ;;
    --wait-quiet) wait_quiet=$2; shift 2 ;;
    --build) builds+=("$2"); shift 2 ;;
    -h|--help) sed -n '2,30p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "baseline_anchor.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
    *) problems+=("$1"); shift ;;
    esac
done
if [ ${#problems[@]} -eq 0 ]; then
    for p in 09_Matmul_Subtract_Multiply_ReLU 12_Gemm_Multiply_LeakyReLU 40_Matmul_Scaling_ResidualAdd \
             63_Gemm_ReLU_Divide 76_Gemm_Add_ReLU 99_Matmul_GELU_Softmax; do
        problems+=("$top/problems/level2/$p.json")
    done
fi
if [ ${#builds[@]} -eq 0 ]; then
    kforge=${KFORGE:-}
    [ -z "$kforge" ] && [ -x "$top/core/kforge" ] && kforge=$top/core/kforge
    [ -z "$kforge" ] && kforge=$(command -v kforge || true)
    if [ -z "$kforge" ] || [ ! -x "$kforge" ]; then
        echo "baseline_anchor.sh: no kforge binary: build it, or set KFORGE=/path/to/kforge" >&2
        exit 2
    fi
    envf=$(mktemp); trap 'rm -f "$envf"' EXIT
    echo "export KFORGE='$kforge' BENCH_COMMIT='$(git -C "$top" rev-parse HEAD 2>/dev/null || echo unknown)'" >"$envf"
    builds=("tree=$envf")
fi
for b in "${builds[@]}"; do
    f=${b#*=}
    [ -r "$f" ] || { echo "baseline_anchor.sh: --build $b: no file $f" >&2; exit 2; }
    k=$( . "$f"; echo "${KFORGE:-}")
    [ -x "$k" ] || { echo "baseline_anchor.sh: --build $b: KFORGE='$k' is not executable" >&2; exit 2; }
done
command -v python3 >/dev/null || { echo "baseline_anchor.sh: needs python3" >&2; exit 2; }
machine=$(hostname -s 2>/dev/null || hostname)
[ -n "$out" ] || out="$top/bench/results/baseline-anchor-$machine-$(date +%Y-%m-%d)"
mkdir -p "$out/records" || exit 2
work=$(mktemp -d)
busy_pid=
cleanup() {
    [ -n "$busy_pid" ] && kill "$busy_pid" 2>/dev/null
    [ -n "${envf:-}" ] && rm -f "$envf"
    [ $keep -eq 1 ] || rm -rf "$work"
}
trap cleanup EXIT

if command -v lscpu >/dev/null; then lscpu >"$out/lscpu.txt"; else cat /proc/cpuinfo >"$out/lscpu.txt"; fi
{
    echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "script at commit: $(git -C "$top" rev-parse HEAD 2>/dev/null || echo unknown)"
    for b in "${builds[@]}"; do
        ( . "${b#*=}"
          echo "build ${b%%=*}: commit ${BENCH_COMMIT:-unknown}, $KFORGE ($("$KFORGE" version 2>&1 | head -n 1))"
          [ -n "${BENCH_NOTE:-}" ] && echo "  $BENCH_NOTE"
          [ -n "${KFORGE_PLUGIN_PATH:-}" ] && echo "  KFORGE_PLUGIN_PATH=$KFORGE_PLUGIN_PATH KFORGE_WORKER=${KFORGE_WORKER:-}" )
    done
    echo "kernel: $(uname -srm)"
    grep -E '^(Model name|CPU\(s\)|Thread\(s\) per core|Core\(s\) per socket|L1d cache|L2 cache|L3 cache|Hypervisor vendor|Flags)' \
        "$out/lscpu.txt" | sed -e 's/  */ /g' -e 's/^\(Flags: \).*/\1'"$(grep -o -w -E 'avx512f|avx2|fma' "$out/lscpu.txt" | sort -u | tr '\n' ' ')"'(of interest)/'
    echo "OpenBLAS builds installed: $(ls -d /usr/lib/*/openblas-* /usr/lib64/libopenblas*.so* 2>/dev/null | tr '\n' ' ')"
    echo "KFORGE_THREADS: ${KFORGE_THREADS:-unset (all cores)}  OMP_WAIT_POLICY: ${OMP_WAIT_POLICY:-unset}"
    echo "preset: $preset  rounds: $rounds  conditions: $conditions"
} >"$out/machine.txt"

# busy percentage of all CPUs over one second (from /proc/stat)
busy_pct() {
    python3 - <<'PY'
import time
def snap():
    v = [int(x) for x in open("/proc/stat").readline().split()[1:]]
    return sum(v), v[3] + v[4]
t0, i0 = snap(); time.sleep(1); t1, i1 = snap()
print(round(100.0 * (1 - (i1 - i0) / max(1, t1 - t0))))
PY
}
ncpu=$(nproc)
# waits until the CPUs are quiet enough (see --wait-quiet); prints the busy %
wait_for_quiet() {
    local extra=$1 limit b waited=0
    limit=$((15 + extra))
    b=$(busy_pct)
    while [ "$b" -gt "$limit" ] && [ "$waited" -lt "$wait_quiet" ]; do
        sleep 4; waited=$((waited + 5)); b=$(busy_pct)
    done
    echo "$b"
}

table="$out/baseline_anchor.txt"
{
    cat "$out/machine.txt"
    echo
    printf '%-6s %-5s %-9s %-36s %12s %12s %9s  %s\n' condition round build problem baseline gemm_anchor bl/anchor \
        "CPU busy % in the second before the run; loadavg (1 min) before -> after"
} >"$table"
cat "$table"

for cond in $conditions; do
    case "$cond" in
    quiet) extra=0 ;;
    busy1) yes >/dev/null & busy_pid=$!; sleep 1; extra=$((100 / ncpu)) ;;
    *) echo "baseline_anchor.sh: unknown condition '$cond' (quiet, busy1)" >&2; exit 2 ;;
    esac
    for r in $(seq 1 "$rounds"); do
        for p in "${problems[@]}"; do
          name=$(basename "$p" .json)
          wait_for_quiet "$extra" >/dev/null
          for b in "${builds[@]}"; do
            label=${b%%=*}
            dir="$work/$cond-$r-$label-$name"
            busy=$(busy_pct)
            la0=$(cut -d' ' -f1 /proc/loadavg)
            ( . "${b#*=}"
              "$KFORGE" run "$p" --backend cpu-simd --preset "$preset" --max-iterations 1 --out "$dir" --quiet ) \
                >"$work/$cond-$r-$label-$name.log" 2>&1
            la1=$(cut -d' ' -f1 /proc/loadavg)
            cp "$dir/result.json" "$out/records/$cond-$r-$label-$name.json" 2>/dev/null
            python3 - "$dir/result.json" "$cond" "$r" "$name" "$la0" "$la1" "$busy" "$label" <<'PY' | tee -a "$table"
import json, sys
path, cond, rnd, name, la0, la1, busy, label = sys.argv[1:]
def ms(x): return "%9.3f ms" % (x * 1e3) if x else "%12s" % "-"
try:
    b = json.load(open(path))["baseline"]
    a = b.get("gemm_anchor", {})
    bl, an = b.get("median_s", 0), a.get("median_s", 0)
    ratio = "%8.2fx" % (bl / an) if bl and an else "%9s" % "-"
    warn = "  WARNING" if a.get("warning") else ""
    print("%-6s %-5s %-9s %-36s %12s %12s %9s  busy %s%%; %s -> %s%s" % (cond, rnd, label, name, ms(bl), ms(an), ratio, busy, la0, la1, warn))
except Exception as e:
    print("%-6s %-5s %-9s %-36s  no result (%s)" % (cond, rnd, label, name, e))
PY
          done
        done
    done
    if [ -n "$busy_pid" ]; then kill "$busy_pid"; wait "$busy_pid" 2>/dev/null; busy_pid=; fi
done

echo | tee -a "$table"
python3 "$here/baseline_anchor_summary.py" "$table" | tee -a "$table.summary"
cat "$table.summary" >>"$table" && rm -f "$table.summary"
echo "results: $out"
