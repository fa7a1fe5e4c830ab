#!/bin/bash
# bench/cpu/run_cpu_anchors.sh — CPU anchors and the cpu-simd suite beside
# them, on this machine, in one record (issue 15):
#   1. anchors of PROBLEMS at PRESET with N threads: ONNX Runtime CPU
#      (bench/anchors/ort_anchors.py, the default) or PyTorch CPU eager and
#      torch.compile (bench/anchors/torch_anchors.py --device cpu);
#   2. KFORGE_THREADS=N kforge suite PROBLEMS --backend cpu-simd --preset PRESET
#      --anchors anchors.json (KForge's kernels use the same N threads);
#   3. the anchors again (anchors-after.json), and the reports against them
#      and against the faster of the two per problem (anchors-faster.json,
#      bench/anchors/faster_anchors.py): a host whose speed drifts during the
#      suite shows as a gap between the three "against" lines of record.md;
#   4. with --paired R: the suite's best kernels and the anchor timed side
#      by side, problem by problem, R rounds
#      (bench/cpu/paired_anchors.py -> paired.json, its summary in record.md):
#      each pair seconds apart, where steps 1-3 set a kernel timed once in the
#      search against PyTorch timed minutes before or after.
#
#   bench/cpu/run_cpu_anchors.sh [options] [PROBLEMS...] [-- extra 'kforge suite' options]
#
#   --tool ort|torch    which anchors (default: ort)
#   --python PY         the Python that has the tool (default: $KFORGE_ORT_PYTHON for
#                       ort, $KFORGE_PYTHON for torch, else python3)
#   --threads N         threads of the anchors and of kforge (default: the CPUs this
#                       process may run on)
#   --preset P          problem preset (default: cpu)
#   --reps R --warmup W anchors' timed and warm-up runs (default: 20, 5)
#   --no-compile        torch: eager only
#   --name NAME         the record: bench/results/NAME (default: <host>-cpu-<tool>-<date>)
#   --out DIR           the record's directory instead of bench/results/NAME
#   --suite-dir DIR     the suite's report directory, with its runs (default:
#                       ${TMPDIR:-/tmp}/kforge-suite-NAME; its reports are copied to the record)
#   --anchors-only      measure the anchors, run no suite
#   --no-anchors-after  skip step 3
#   --paired R          step 4 with R rounds (the reps are --reps, at least 20)
#   --paired-inputs M   step 4's anchor inputs: same (default), fresh or both
#                       (torch only: paired_anchors.py --inputs)
#   PROBLEMS            problem files or directories (default: problems/level2)
#
# The kforge binary is $KFORGE, else the one on PATH.  The record: machine.txt
# (uname, lscpu, CPUs, load before and after), git.txt (commit, modified files,
# date, commands), anchors.json and anchors.out, suite.out, report.{md,json,html}
# (against anchors.json), anchors-after.{json,out}, anchors-faster.json,
# report-anchors-{after,faster}.{md,json}, paired.{json,out} and record.md (the summary lines).  Exit: the suite's status (0 all correct,
# 1 some not), 2 bad arguments or a missing tool, 3 the anchors failed entirely.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
tool=ort py= threads= preset=cpu reps=20 warmup=5 name= out= suite_dir= anchors_only=0 no_compile=0 after=1 paired=0 paired_inputs=same
problems=() extra=()
die() { echo "run_cpu_anchors.sh: $*" >&2; exit 2; }
while [ $# -gt 0 ]; do
    case "$1" in
    --tool) tool=${2-}; shift 2 || die "--tool needs a value" ;;
    --python) py=${2-}; shift 2 || die "--python needs a value" ;;
    --threads) threads=${2-}; shift 2 || die "--threads needs a value" ;;
    --preset) preset=${2-}; shift 2 || die "--preset needs a value" ;;
    --reps) reps=${2-}; shift 2 || die "--reps needs a value" ;;
    --warmup) warmup=${2-}; shift 2 || die "--warmup needs a value" ;;
    --name) name=${2-}; shift 2 || die "--name needs a value" ;;
    --out) out=${2-}; shift 2 || die "--out needs a value" ;;
    --suite-dir) suite_dir=${2-}; shift 2 || die "--suite-dir needs a value" ;;
    --anchors-only) anchors_only=1; shift ;;
    --no-anchors-after) after=0; shift ;;
    --paired) paired=${2-}; shift 2 || die "--paired needs a value" ;;
    --paired-inputs) paired_inputs=${2-}; shift 2 || die "--paired-inputs needs a value" ;;
    --no-compile) no_compile=1; shift ;;
    --) shift; extra=("$@"); break ;;
    -h|--help) sed -n '2,45p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) die "unknown option '$1' (see --help)" ;;
    *) problems+=("$1"); shift ;;
    esac
done
case "$tool" in
ort) script=$top/bench/anchors/ort_anchors.py; mods="onnxruntime, onnx, numpy"; py=${py:-${KFORGE_ORT_PYTHON:-python3}} ;;
torch) script=$top/bench/anchors/torch_anchors.py; mods="torch, numpy"; py=${py:-${KFORGE_PYTHON:-python3}} ;;
*) die "--tool must be ort or torch, not '$tool'" ;;
esac
[[ "$paired" =~ ^[0-9]+$ ]] || die "--paired must be a number of rounds, not '$paired'"
[ "$paired" -eq 0 ] || [ "$reps" -ge 20 ] || die "--paired needs --reps of at least 20 (kforge profile's minimum)"
[ -n "$threads" ] || threads=$(nproc)
[[ "$threads" =~ ^[1-9][0-9]*$ ]] || die "--threads must be a positive integer, not '$threads'"
"$py" -c "import $mods" >/dev/null 2>&1 ||
    die "$py cannot import $mods: install them (ort: python3 -m venv /tmp/venv-ort && /tmp/venv-ort/bin/pip install onnxruntime onnx numpy) or pass --python"
kforge=${KFORGE:-$(command -v kforge || true)}
if [ $anchors_only -eq 0 ] && { [ -z "$kforge" ] || [ ! -x "$kforge" ]; }; then
    die "no kforge binary: build it, then set KFORGE=/path/to/kforge or put it on PATH"
fi
[ ${#problems[@]} -eq 0 ] && problems=("$top/problems/level2")
host=$(hostname -s 2>/dev/null || hostname)
[ -n "$name" ] || name="$host-cpu-$tool-$(date -u +%Y-%m-%d)"
[ -n "$out" ] || out="$top/bench/results/$name"
[ -n "$suite_dir" ] || suite_dir="${TMPDIR:-/tmp}/kforge-suite-$name"
mkdir -p "$out" || die "cannot create $out"

load() { cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo "?"; }
{
    echo "host: $host"
    echo "uname: $(uname -srvmo)"
    echo "CPUs online: $(getconf _NPROCESSORS_ONLN), usable by this process: $(nproc), threads used: $threads"
    echo "load average (1, 5, 15 min) before: $(load)"
    if command -v lscpu >/dev/null; then lscpu; else grep -m1 'model name' /proc/cpuinfo; fi
} >"$out/machine.txt"
# the anchors' command but for its output file (anchors.json, anchors-after.json)
anchors_args=("${problems[@]}" --preset "$preset" --reps "$reps" --warmup "$warmup")
if [ "$tool" = torch ]; then
    anchors_args+=(--device cpu --threads "$threads")
    [ $no_compile -eq 1 ] && anchors_args+=(--no-compile)
else
    anchors_args+=(--threads "$threads")
fi
anchors_cmd=("$py" "$script" "$out/anchors.json" "${anchors_args[@]}")
suite_cmd=("$kforge" suite "${problems[@]}" --backend cpu-simd --preset "$preset" --report "$suite_dir"
           --anchors "$out/anchors.json" ${extra[@]+"${extra[@]}"})
{
    echo "commit: $(git -C "$top" rev-parse HEAD 2>/dev/null || echo unknown)"
    echo "modified tracked files: $(git -C "$top" status --porcelain --untracked-files=no 2>/dev/null | wc -l)"
    echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "kforge: $([ -n "$kforge" ] && "$kforge" version 2>&1 | head -n1)"
    echo "anchors: ${anchors_cmd[*]}"
    [ $anchors_only -eq 1 ] || echo "suite: KFORGE_THREADS=$threads ${suite_cmd[*]}"
} >"$out/git.txt"

# Each long step runs as a job in its own process group (set -m): a TERM, INT
# or HUP to this script (a `timeout` around it, ^C) ends the step's whole
# group, the suite's kforge and workers with it, instead of leaving them
# running beside whatever comes next (two 16-core records' paired rounds ran
# beside a suite that `timeout` had orphaned: xeon16-cpu-torch-2026-11-29).
set -m
job=
trap 'if [ -n "$job" ]; then kill -TERM -- -"$job" 2>/dev/null; fi; echo "run_cpu_anchors.sh: stopped by a signal" >&2; exit 143' TERM INT HUP
run_job() { "$@" & job=$!; wait "$job"; local rc=$?; job=; return $rc; }
anchors_step() { "${anchors_cmd[@]}" 2>&1 | tee "$out/anchors.out"; return "${PIPESTATUS[0]}"; }
suite_step() { KFORGE_THREADS=$threads "${suite_cmd[@]}" 2>&1 | tee "$out/suite.out"; return "${PIPESTATUS[0]}"; }

echo "== anchors ($tool, $threads threads, preset $preset)" >&2
run_job anchors_step
arc=$?
[ -s "$out/anchors.json" ] || { echo "run_cpu_anchors.sh: the anchors wrote nothing (exit $arc): see $out/anchors.out" >&2; exit 3; }
[ $arc -eq 0 ] || echo "run_cpu_anchors.sh: some anchors failed (exit $arc): their entries say why" >&2
rc=0
if [ $anchors_only -eq 0 ]; then
    echo "== kforge suite (cpu-simd, KFORGE_THREADS=$threads) -> $suite_dir" >&2
    run_job suite_step
    rc=$?
    for f in report.md report.json report.html suite.json; do
        [ -f "$suite_dir/$f" ] && cp "$suite_dir/$f" "$out/$f"
    done
    if [ $after -eq 1 ]; then
        echo "== anchors again, after the suite" >&2
        run_job "$py" "$script" "$out/anchors-after.json" "${anchors_args[@]}" > "$out/anchors-after.out" 2>&1 || echo "run_cpu_anchors.sh: the anchors after the suite failed in part: see $out/anchors-after.out" >&2
        if [ -s "$out/anchors-after.json" ] &&
           "$py" "$top/bench/anchors/faster_anchors.py" "$out/anchors-faster.json" "$out/anchors.json" "$out/anchors-after.json"; then
            for w in after faster; do   # the suite's reports against them, then back to anchors.json
                "$kforge" suite --report-only "$suite_dir" --anchors "$out/anchors-$w.json" > "$out/report-anchors-$w.out" 2>&1 &&
                    cp "$suite_dir/report.md" "$out/report-anchors-$w.md" && cp "$suite_dir/report.json" "$out/report-anchors-$w.json"
            done
            "$kforge" suite --report-only "$suite_dir" --anchors "$out/anchors.json" > /dev/null 2>&1
        fi
    fi
    if [ "$paired" -gt 0 ]; then
        echo "== paired: the suite's best kernels and the $tool anchors, $paired rounds" >&2
        paired_step() {
            KFORGE="$kforge" "$py" "$top/bench/cpu/paired_anchors.py" "$out/paired.json" "$suite_dir" "${problems[@]}" --tool "$tool" \
                --threads "$threads" --rounds "$paired" --reps "$reps" --warmup "$warmup" --preset "$preset" --inputs "$paired_inputs" 2>&1 |
                tee "$out/paired.out" >&2
            return "${PIPESTATUS[0]}"
        }
        run_job paired_step || echo "run_cpu_anchors.sh: the paired timing failed: see $out/paired.out" >&2
    fi
fi
echo "load average (1, 5, 15 min) after: $(load)" >>"$out/machine.txt"
{
    echo "# CPU anchors: $tool, $threads threads, preset $preset"
    echo
    echo "- $(head -n1 "$out/git.txt"), $(sed -n 3p "$out/git.txt")"
    echo "- $(sed -n 3p "$out/machine.txt")"
    echo "- $(grep -m1 -i 'model name' "$out/machine.txt" | sed 's/  */ /g')"
    echo "- $(grep 'load average' "$out/machine.txt" | tr '\n' ';' | sed 's/;$//; s/;/; /')"
    echo "- anchors exit $arc$([ $anchors_only -eq 1 ] || echo ", suite exit $rc")"
    [ $anchors_only -eq 1 ] || { echo; grep -E '^[0-9]+/[0-9]+ problems correct|^against ' "$out/suite.out" | sed 's/^/    /'; }
    for w in after faster; do
        [ -f "$out/report-anchors-$w.out" ] || continue
        echo; echo "- against the anchors measured $([ $w = after ] && echo "after the suite" || echo "before or after, the faster per problem"):"
        grep -E '^against ' "$out/report-anchors-$w.out" | sed 's/^/    /'
    done
    if [ -f "$out/paired.out" ]; then
        echo; echo "- the best kernels and the anchors timed side by side (paired.json):"
        grep -E '^paired: ' "$out/paired.out" | sed 's/^/    /'
    fi
} >"$out/record.md"
echo "record: $out" >&2
exit $rc
