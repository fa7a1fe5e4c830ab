#!/bin/bash
# kforge suite --slurm on a real one-node Slurm cluster started by the test
# (tests/deps/slurm_start.sh: munged, slurmctld and slurmd under a temp dir):
#  1. without Slurm's commands: exit 2 and what to install;
#  2. --slurm-dry-run writes the scripts and prints the two sbatch lines;
#  3. three level-1 problems (small preset, built-in agent, 2 iterations) as
#     a job array of three tasks, two at once: one task is killed mid-run
#     and cancelled with scancel (below), re-running the command while it
#     still runs submits nothing, --slurm-retries 0 gives it up, and the
#     plain re-run resubmits that one task alone, which resumes its run;
#  4. the merged report equals what `kforge suite` without Slurm writes for
#     the same settings (problems in order, correct flags, a step at least);
#  5. --status: each task's Slurm state and run record;
#  6. a running task requeued by Slurm (preemption) resumes by itself.
# The killed task: on its first attempt the task's kforge (a wrapper named by
# KFORGE_SLURM_KFORGE) runs with KFORGE_TEST_DIE_AFTER=gen, so the run dies
# right after its first generation is on disk (journal, no result.json), and
# the task then stays running until the test scancels it.  Without the Slurm
# packages, or where slurmd cannot start: skipped, failed under KF_TEST_STRICT=1.
set -u
tmp=$(mktemp -d /tmp/kf-slurm.XXXXXX)
cleanup() { "$KF_SRCDIR/tests/deps/slurm_start.sh" --stop "$tmp/slurm" >/dev/null 2>&1; rm -rf "$tmp"; }
trap cleanup EXIT
. "$KF_SRCDIR/tests/e2e/tap.sh"
echo "1..30"
export XDG_CACHE_HOME="$tmp/cache"
probs="$KF_SRCDIR/problems/level1"
set -- "$probs/19_ReLU.json" "$probs/23_Softmax.json" "$probs/26_GELU.json"
common=(--backend cpu-simd --preset small --max-iterations 2)

# --- 1. no Slurm here --------------------------------------------------------------
out=$(env PATH=/nonexistent KFORGE_SBATCH= "$KFORGE" suite "$@" "${common[@]}" --report "$tmp/none" --slurm 2>&1)
rc=$?
[ $rc -eq 2 ] && [[ "$out" == *"sbatch not found on PATH"*"slurm-client"* ]] && [ ! -e "$tmp/none/slurm/state.json" ] \
    && ok "without sbatch: exit 2, what to install, nothing recorded" \
    || no "without sbatch: exit 2, what to install, nothing recorded" "exit $rc" "$out"

# --- 2. dry run (needs no cluster) ----------------------------------------------------
out=$("$KFORGE" suite "$@" "${common[@]}" --report "$tmp/dry" --slurm-dry-run --max-parallel 2 --partition debug \
      --time 30:00 --gres gpu:1 2>&1)
rc=$?
arr=$(grep '^sbatch ' <<<"$out" | head -n 1)
merge=$(grep '^sbatch ' <<<"$out" | sed -n 2p)
[ $rc -eq 0 ] && [[ "$arr" == *"--array=0-2%2"*"--partition=debug"*"--time=30:00 --gres=gpu:1 $tmp/dry/slurm/array.sh" ]] \
    && [[ "$merge" == *"--dependency=afterany:ARRAY_JOB_ID"*"$tmp/dry/slurm/merge.sh" ]] && [[ "$merge" != *gres* ]] \
    && ok "dry run prints the array and merge sbatch lines" || no "dry run prints the array and merge sbatch lines" "exit $rc" "$out"
ts="$tmp/dry/slurm/tasks/cpu-simd.23_Softmax.sh"
[ -x "$ts" ] && [ -x "$tmp/dry/slurm/array.sh" ] && [ -x "$tmp/dry/slurm/merge.sh" ] \
    && grep -q -- "run $probs/23_Softmax.json --backend cpu-simd --device \"\$device\" --preset small --agent builtin --max-iterations 2 .* --out \"\$run\"" "$ts" \
    && grep -q -- "run --resume \"\$run\" --max-iterations 2" "$ts" && grep -q "^run=$tmp/dry/runs/23_Softmax\$" "$ts" \
    && grep -q "^1) exec /bin/sh $ts ;;" "$tmp/dry/slurm/array.sh" \
    && grep -q -- "suite --report-only $tmp/dry\$" "$tmp/dry/slurm/merge.sh" && [ -s "$tmp/dry/suite.json" ] \
    && [ ! -e "$tmp/dry/slurm/state.json" ] \
    && ok "dry run writes the task, array and merge scripts and submits nothing" \
    || no "dry run writes the task, array and merge scripts and submits nothing" "$(ls -R "$tmp/dry")" "$(cat "$ts")"
# the device a task picks: Slurm's GPU binding, else SLURM_LOCALID (the script runs no kforge here: a fake one)
dev=$(sed -e "s#^exec .*kforge run --resume.*#exit 0#" -e 's#^exec .*kforge run .*#echo "device=$device"; exit 0#' "$ts" >"$tmp/ts.sh"
      mkdir -p "$tmp/dry/logs"
      for env in "CUDA_VISIBLE_DEVICES=3" "SLURM_LOCALID=1" "SLURM_LOCALID=1 CUDA_VISIBLE_DEVICES=2,3"; do
          env -u CUDA_VISIBLE_DEVICES -u SLURM_LOCALID $env sh "$tmp/ts.sh"; tail -n 1 "$tmp/dry/logs/23_Softmax.log"
      done | tr '\n' ' ')
[ "$dev" = "device=0 device=1 device=0 " ] && ok "a task runs on device 0 under GPU binding, else on SLURM_LOCALID" \
    || no "a task runs on device 0 under GPU binding, else on SLURM_LOCALID" "got: $dev"

# two backends: a task per problem x backend, run directories under DIR/B, the compare in the merge
out=$("$KFORGE" suite "$probs/19_ReLU.json" "$probs/26_GELU.json" --backend cpu-simd,opencl --report "$tmp/dry2" \
      --slurm-dry-run 2>&1)
rc=$?
[ $rc -eq 0 ] && grep -q -- "--array=0-3 " <<<"$out" && grep -q "^3) exec /bin/sh $tmp/dry2/slurm/tasks/opencl.26_GELU.sh ;;" "$tmp/dry2/slurm/array.sh" \
    && grep -q "^run=$tmp/dry2/opencl/runs/26_GELU\$" "$tmp/dry2/slurm/tasks/opencl.26_GELU.sh" \
    && grep -q "^log=$tmp/dry2/opencl/logs/26_GELU.log\$" "$tmp/dry2/slurm/tasks/opencl.26_GELU.sh" \
    && grep -q -- "suite --report-only $tmp/dry2 --backend cpu-simd,opencl\$" "$tmp/dry2/slurm/merge.sh" \
    && [ -s "$tmp/dry2/cpu-simd/suite.json" ] && [ -s "$tmp/dry2/opencl/suite.json" ] \
    && ok "two backends: 4 tasks, each backend's run directories, the merge writes the compare" \
    || no "two backends: 4 tasks, each backend's run directories, the merge writes the compare" "exit $rc" "$out" \
          "$(cat "$tmp/dry2/slurm/array.sh")"

# runs with a result are left out: --array lists the others by their index
mkdir -p "$tmp/dry2/cpu-simd/runs/26_GELU" "$tmp/dry2/opencl/runs/19_ReLU"
touch "$tmp/dry2/cpu-simd/runs/26_GELU/result.json" "$tmp/dry2/opencl/runs/19_ReLU/result.json"
out=$("$KFORGE" suite "$probs/19_ReLU.json" "$probs/26_GELU.json" --backend cpu-simd,opencl --report "$tmp/dry2" \
      --slurm-dry-run --max-parallel 3 2>&1)
grep -q "4 tasks .*: 2 done, 0 queued or running, 2 to submit" <<<"$out" && grep -q -- "--array=0,3%3 " <<<"$out" \
    && ok "tasks with a result are not submitted: --array=0,3" || no "tasks with a result are not submitted: --array=0,3" "$out"

# a report directory with a space and a quote in its name: the scripts quote it
odd="$tmp/it's a dir"
"$KFORGE" suite "$probs/19_ReLU.json" "${common[@]}" --report "$odd" --slurm-dry-run --device 1 --sandbox off \
    --mem-limit 2G >"$tmp/odd.out" 2>&1
rc=$?
ts="$odd/slurm/tasks/cpu-simd.19_ReLU.sh"
got=$(sh -c "$(grep '^run=' "$ts"); echo \"\$run\"" 2>&1)
[ $rc -eq 0 ] && sh -n "$ts" && sh -n "$odd/slurm/array.sh" && sh -n "$odd/slurm/merge.sh" && [ "$got" = "$odd/runs/19_ReLU" ] \
    && grep -q "^0) exec /bin/sh '$tmp/it'\\\\''s a dir/slurm/tasks/cpu-simd.19_ReLU.sh' ;;" "$odd/slurm/array.sh" \
    && grep -q "^device=1 " "$ts" && grep -q -- "--sandbox off --mem-limit 2G --out \"\$run\"\$" "$ts" \
    && grep -q -- "--resume \"\$run\" .*--sandbox off --mem-limit 2G\$" "$ts" \
    && ok "odd characters in paths are quoted; --device, --sandbox, --mem-limit reach the tasks" \
    || no "odd characters in paths are quoted; --device, --sandbox, --mem-limit reach the tasks" "exit $rc" "$(cat "$ts")" \
       "run: $got" "$(cat "$odd/slurm/array.sh")"

# --- the cluster ------------------------------------------------------------------------
skip_all() {
    local why=$1
    while [ $n -lt 30 ]; do
        if [ "${KF_TEST_STRICT:-0}" = 1 ]; then no "Slurm cluster" "$why"; else n=$((n+1)); echo "ok $n # SKIP $why"; fi
    done
    tap_exit
}
command -v slurmctld >/dev/null 2>&1 || PATH=$PATH:/usr/sbin:/sbin
for p in slurmctld slurmd munged sbatch squeue scancel; do
    command -v $p >/dev/null 2>&1 || skip_all "$p not installed (Debian: slurmctld slurmd slurm-client munge; .ci/install-deps)"
done
start=$("$KF_SRCDIR/tests/deps/slurm_start.sh" "$tmp/slurm" 2>&1) || skip_all "the test cluster did not start: $(tr '\n' ' ' <<<"$start")"
export SLURM_CONF="$tmp/slurm/slurm.conf"
t0=$(date +%s)

# wait_jobs SECONDS: until none of our jobs is queued or running
wait_jobs() {
    local i=0
    while [ $i -lt $(($1 * 5)) ]; do
        [ -z "$(squeue -h --me -t PENDING,RUNNING,CONFIGURING,COMPLETING 2>/dev/null)" ] && return 0
        sleep 0.2; i=$((i+1))
    done
    return 1
}
# fields REPORT: the deterministic fields of report.json, one problem a line
# (not the steps: a run stops early when its kernel comes within the target
# fraction of the roofline floor, which depends on the timing of the moment;
# a CI run under load had 19_ReLU take 2 steps in one suite and 1 in the other)
fields() {
    "$PYTHON3" -c '
import json, sys
r = json.load(open(sys.argv[1]))
for p in r["problems"]:
    print(p["name"], p["status"], p["steps"] >= 1, p["backend"], p["preset"], p["agent"])
print("correct", r["summary"]["correct"], "of", len(r["problems"]))' "$1" 2>&1
}

# sbatch refuses the job: its message, exit 2, nothing recorded as submitted
out=$("$KFORGE" suite "$@" "${common[@]}" --report "$tmp/badpart" --slurm --partition nope 2>&1)
rc=$?
[ $rc -eq 2 ] && [[ "$out" == *"sbatch refused the job: sbatch: error:"*"invalid partition"* ]] \
    && [ ! -e "$tmp/badpart/slurm/state.json" ] && [ -z "$(squeue -h --me 2>&1)" ] \
    && ok "sbatch refusing the job: its message, exit 2, nothing queued" \
    || no "sbatch refusing the job: its message, exit 2, nothing queued" "exit $rc" "$out"

# --- 3. the reference: the same suite without Slurm ------------------------------------
"$KFORGE" suite "$@" "${common[@]}" --report "$tmp/ref" >"$tmp/ref.out" 2>&1
rc=$?
[ $rc -le 1 ] && [ -s "$tmp/ref/report.json" ] && ok "kforge suite without Slurm (the reference)" \
    || no "kforge suite without Slurm (the reference)" "exit $rc" "$(tail -n 20 "$tmp/ref.out")"

# the wrapper the tasks run as kforge: the first attempt at 23_Softmax dies
# after its first generation, then the task waits for scancel
cat >"$tmp/kforge-task" <<EOF
#!/bin/sh
case " \$* " in
*"/23_Softmax.json "*)
    if [ ! -e "$tmp/killed" ]; then
        KFORGE_TEST_DIE_AFTER=gen "$KFORGE" "\$@"
        echo "test: kforge died (exit \$?), waiting for scancel"
        touch "$tmp/killed"
        exec sleep 600
    fi ;;
esac
exec "$KFORGE" "\$@"
EOF
chmod +x "$tmp/kforge-task"
export KFORGE_SLURM_KFORGE="$tmp/kforge-task"
rep="$tmp/rep"
slurm_suite() { "$KFORGE" suite "$@" "${common[@]}" --report "$rep" --slurm --max-parallel 2 "${extra[@]}"; }
extra=()
slurm_suite "$@" >"$tmp/s1" 2>&1
rc=$?
job=$(sed -n 's/^submitted job array \([0-9]*\) (3 tasks) and merge job \([0-9]*\):$/\1/p' "$tmp/s1")
[ $rc -eq 0 ] && [ -n "$job" ] && grep -q -- "--array=0-2%2 " "$tmp/s1" && grep -q -- "--dependency=afterany:$job " "$tmp/s1" \
    && ok "--slurm submits one array of 3 tasks and a merge job after it" \
    || no "--slurm submits one array of 3 tasks and a merge job after it" "exit $rc" "$(cat "$tmp/s1")"

# the task of 23_Softmax is killed mid-run: its run has a journal, no result
i=0; while [ ! -e "$tmp/killed" ] && [ $i -lt 600 ]; do sleep 0.2; i=$((i+1)); done
i=0; while { [ ! -e "$rep/runs/19_ReLU/result.json" ] || [ ! -e "$rep/runs/26_GELU/result.json" ]; } && [ $i -lt 600 ]; do
    sleep 0.2; i=$((i+1)); done
st=$(squeue -h --me -r -o '%i %T' 2>&1 | tr '\n' ' ')
[ -e "$tmp/killed" ] && [ -s "$rep/runs/23_Softmax/journal.jsonl" ] && [ ! -e "$rep/runs/23_Softmax/result.json" ] \
    && [[ "$st" == *"${job}_1 RUNNING"* ]] && [ -s "$rep/runs/19_ReLU/result.json" ] \
    && ok "the other tasks finish; task 1 runs with a journal and no result" \
    || no "the other tasks finish; task 1 runs with a journal and no result" "squeue: $st" "$(ls "$rep/runs/"*)" \
          "$(tail -n 5 "$rep"/logs/*.log)"

# running the command again while task 1 still runs submits nothing
slurm_suite "$@" >"$tmp/s2" 2>&1
rc=$?
[ $rc -eq 0 ] && grep -q "2 done, 1 queued or running, 0 to submit" "$tmp/s2" && grep -q "nothing to submit" "$tmp/s2" \
    && [ "$(grep -c '"array_job"' "$rep/slurm/state.json")" -eq 1 ] \
    && ok "again while task 1 runs: nothing submitted" || no "again while task 1 runs: nothing submitted" "exit $rc" "$(cat "$tmp/s2")"

scancel "${job}_1"
wait_jobs 60
st=$(squeue -h --me -r -t all -o '%i %T' 2>&1 | tr '\n' ' ')
[[ "$st" == *"${job}_1 CANCELLED"* ]] && [[ "$st" == *"${job}_0 COMPLETED"* ]] && [ ! -e "$rep/runs/23_Softmax/result.json" ] \
    && ok "scancel: task 1 CANCELLED, its run without a result" || no "scancel: task 1 CANCELLED, its run without a result" "squeue: $st"
# the merge job ran after the array, with one problem unfinished
grep -q "2/3 problems correct\|problems correct" "$rep"/slurm/out/merge-*.out 2>/dev/null && [ -s "$rep/report.json" ] \
    && ok "the merge job wrote the report after the array" || no "the merge job wrote the report after the array" \
       "$(cat "$rep"/slurm/out/merge-*.out 2>&1 | tail -n 20)"

out=$("$KFORGE" suite --status "$rep" 2>&1)
rc=$?
[ $rc -eq 0 ] && grep -q "^1 .*23_Softmax .*CANCELLED .*1/3 .*started, [0-9]* steps, no result yet  \[job ${job}_1\]" <<<"$out" \
    && grep -q "^0 .*19_ReLU .*COMPLETED .*1/3 .*\(correct\|incorrect\), [0-9]* steps" <<<"$out" \
    && grep -q "2 of 3 tasks have their result .* 0 queued or running, 1 to submit again" <<<"$out" \
    && ok "--status: task 1 CANCELLED with its unfinished run, the others done" \
    || no "--status: task 1 CANCELLED with its unfinished run, the others done" "exit $rc" "$out"

# --slurm-retries 0: a task submitted once is not submitted again
extra=(--slurm-retries 0)
slurm_suite "$@" >"$tmp/s3" 2>&1
rc=$?
[ $rc -eq 1 ] && grep -q "task 1  23_Softmax .*given up: submitted 1 times" "$tmp/s3" \
    && [ "$(grep -c '"array_job"' "$rep/slurm/state.json")" -eq 1 ] \
    && ok "--slurm-retries 0: the killed task is given up, exit 1" || no "--slurm-retries 0: the killed task is given up, exit 1" "exit $rc" "$(cat "$tmp/s3")"

# the same command again: task 1 alone is resubmitted and resumes
extra=()
slurm_suite "$@" >"$tmp/s4" 2>&1
rc=$?
job2=$(sed -n 's/^submitted job array \([0-9]*\) (1 tasks) and merge job \([0-9]*\):$/\1/p' "$tmp/s4")
[ $rc -eq 0 ] && [ -n "$job2" ] && grep -q -- "--array=1%2 " "$tmp/s4" && grep -q "task 1  23_Softmax .*submit (submission 2 of 3)" "$tmp/s4" \
    && ok "again: only the killed task is resubmitted" || no "again: only the killed task is resubmitted" "exit $rc" "$(cat "$tmp/s4")"
wait_jobs 180 && ok "the resubmitted task and the merge finish" || no "the resubmitted task and the merge finish" "$(squeue --me)"
grep -q "slurm: resuming the run in $rep/runs/23_Softmax" "$rep/logs/23_Softmax.log" && grep -q '"resume"\|resum' "$rep/runs/23_Softmax/journal.jsonl" \
    && [ -s "$rep/runs/23_Softmax/result.json" ] \
    && ok "task 1 resumed its run from the journal" || no "task 1 resumed its run from the journal" "$(tail -n 20 "$rep/logs/23_Softmax.log")"
s=$("$PYTHON3" -c '
import json, sys
s = json.load(open(sys.argv[1]))
print(" ".join("%s:%d:%s" % (t["name"], t["submits"], t["job"]) for t in s["tasks"]), len(s["submissions"]))' "$rep/slurm/state.json" 2>&1)
[ "$s" = "19_ReLU:1:$job 23_Softmax:2:$job2 26_GELU:1:$job 2" ] && ok "state.json: submissions per task and the two arrays" \
    || no "state.json: submissions per task and the two arrays" "got: $s"

# --- 4. the merged report equals the one without Slurm ----------------------------------
a=$(fields "$tmp/ref/report.json"); b=$(fields "$rep/report.json")
[ -n "$a" ] && [ "$a" = "$b" ] && [ "$(wc -l <<<"$b")" -eq 4 ] \
    && ok "the merged report equals the reference: problems in order, verdicts, steps taken" \
    || no "the merged report equals the reference: problems in order, verdicts, steps taken" "without Slurm:" "$a" "with Slurm:" "$b"
for f in report.md report.html suite.json; do check "$f written" test -s "$rep/$f"; done

# --- 5. --status after the end ----------------------------------------------------------
out=$("$KFORGE" suite --status "$rep" 2>&1)
[ "$(grep -c ' COMPLETED ' <<<"$out")" -eq 3 ] && grep -q "3 of 3 tasks have their result" <<<"$out" \
    && grep -q "^1 .*23_Softmax .*2/3 .*\[job ${job2}_1\]" <<<"$out" \
    && ok "--status: every task COMPLETED with its record" || no "--status: every task COMPLETED with its record" "$out"
if grep -l -e 'Sanitizer' -e 'runtime error' "$rep"/logs/*.log "$rep"/slurm/out/* >/dev/null 2>&1; then
    no "the task logs hold no sanitizer report" "$(grep -h -A8 -e Sanitizer -e 'runtime error' "$rep"/logs/*.log "$rep"/slurm/out/* | head -40)"
else ok "the task logs hold no sanitizer report"; fi
# preemption: Slurm requeues a running task (--requeue); it starts again and
# resumes its run, and the merge job waits for it: no kforge command needed
cat >"$tmp/kforge-task2" <<EOF
#!/bin/sh
case " \$* " in
*"/19_ReLU.json "*)
    if [ ! -e "$tmp/requeued" ]; then
        KFORGE_TEST_DIE_AFTER=gen "$KFORGE" "\$@"
        touch "$tmp/requeued"
        exec sleep 600
    fi ;;
esac
exec "$KFORGE" "\$@"
EOF
chmod +x "$tmp/kforge-task2"
KFORGE_SLURM_KFORGE="$tmp/kforge-task2" "$KFORGE" suite "$probs/19_ReLU.json" "${common[@]}" --report "$tmp/rq" --slurm \
    >"$tmp/rq.out" 2>&1
jq=$(sed -n 's/^submitted job array \([0-9]*\) (1 tasks).*/\1/p' "$tmp/rq.out")
t_rq=$(date +%s); while [ ! -e "$tmp/requeued" ] && [ $(($(date +%s) - t_rq)) -lt 180 ]; do sleep 0.2; done
echo "$(date +%T) requeue $([ -e "$tmp/requeued" ] && echo after || echo "WITHOUT the task's mark, after") $(($(date +%s) - t_rq)) s" >"$tmp/rq.scontrol"
scontrol requeue "${jq}_0" >>"$tmp/rq.scontrol" 2>&1
# a requeued job is PENDING+COMPLETING until its processes are gone, then
# PENDING with a BeginTime delay (Slurm: now + the credential lifetime):
# release it whenever it is pending, until it has run again.  Each state
# seen is logged with its time (under CI's load the task once never
# restarted; a single squeue filter for PENDING missed the job)
job_state() { scontrol -o show job "${jq}_0" 2>&1 | tr ' ' '\n' | sed -n "s/^$1=//p" | head -n 1; }
last=; t_rq=$(date +%s)
while [ $(($(date +%s) - t_rq)) -lt 240 ]; do
    st=$(job_state JobState); rs=$(job_state Restarts)
    [ "$st $rs" != "$last" ] && { echo "$(date +%T) state $st restarts $rs" >>"$tmp/rq.scontrol"; last="$st $rs"; }
    case "$st" in
    PENDING) scontrol update JobId="${jq}_0" StartTime=now >>"$tmp/rq.scontrol" 2>&1 ;;
    RUNNING|COMPLETED|FAILED|CANCELLED|TIMEOUT|"") [ "${rs:-0}" -ge 1 ] && break ;;
    esac
    sleep 0.5
done
wait_jobs 120
r=$(fields "$tmp/rq/report.json" | head -n 1)
[ -n "$jq" ] && grep -q "restart 1" "$tmp/rq/logs/19_ReLU.log" && grep -q "slurm: resuming the run" "$tmp/rq/logs/19_ReLU.log" \
    && grep -q resume "$tmp/rq/runs/19_ReLU/journal.jsonl" && [ "$r" = "$(head -n 1 <<<"$a")" ] \
    && [ "$("$PYTHON3" -c 'import json,sys; print(json.load(open(sys.argv[1]))["tasks"][0]["submits"])' "$tmp/rq/slurm/state.json")" = 1 ] \
    && ok "a task requeued by Slurm resumes its run; the merge reports it as the plain suite does" \
    || no "a task requeued by Slurm resumes its run; the merge reports it as the plain suite does" "job $jq: $(cat "$tmp/rq.scontrol")" \
          "report: $r" "$(tail -n 15 "$tmp/rq/logs/19_ReLU.log")" \
          "slurmctld: $(grep -e "JobId=${jq}[ _]" -e "JobId=${jq}\$" -e "${jq}_0" "$tmp/slurm/slurmctld.log" | tail -n 30)" \
          "squeue: $(squeue -h -r -o '%i %T %r' 2>&1)" "slurm out: $(tail -n 20 "$tmp"/rq/slurm/out/* 2>&1)"
sed 's/^/# requeue: /' "$tmp/rq.scontrol"

# --status from sacct when squeue no longer holds the jobs (fakes of both; the
# states of a real cluster's accounting: a pending range is not a task)
printf '#!/bin/sh\nexit 0\n' >"$tmp/squeue"
cat >"$tmp/sacct" <<EOF
#!/bin/sh
printf '%s\n' "${job}_0|COMPLETED|0:0|n1" "${job}_1|CANCELLED by 0|0:9|n2" "${job}_2|COMPLETED|1:0|n1" \
    "${job2}_1|TIMEOUT|0:15|n3" "${job2}_[5-9]|PENDING|0:0|" "99_1|FAILED|2:0|n9"
EOF
chmod +x "$tmp/squeue" "$tmp/sacct"
out=$(KFORGE_SQUEUE="$tmp/squeue" KFORGE_SACCT="$tmp/sacct" "$KFORGE" suite --status "$rep" 2>&1)
grep -q "^0 .*19_ReLU .* COMPLETED  *0:0  *1/3 " <<<"$out" && grep -q "^1 .*23_Softmax .* TIMEOUT  *0:15  *2/3 " <<<"$out" \
    && grep -q "^2 .*26_GELU .* COMPLETED  *1:0  *1/3 " <<<"$out" && [ "$(grep -c FAILED <<<"$out")" -eq 0 ] \
    && ok "--status from sacct: each task's last job, its state and exit code" || no "--status from sacct" "$out"
out=$(KFORGE_SQUEUE="$tmp/squeue" KFORGE_SACCT=/nonexistent "$KFORGE" suite --status "$rep" 2>&1)
[ "$(grep -c ' unknown ' <<<"$out")" -eq 3 ] && grep -q "KFORGE_SACCT=/nonexistent: not an executable" <<<"$out" \
    && ok "--status without sacct: states unknown, and why" || no "--status without sacct: states unknown, and why" "$out"

# --report-only DIR --backend a,b: each backend's reports and the compare
mkdir -p "$tmp/multi/a" "$tmp/multi/b"
cp -r "$rep/runs" "$rep/suite.json" "$tmp/multi/a/" && cp -r "$rep/runs" "$rep/suite.json" "$tmp/multi/b/"
"$KFORGE" suite --report-only "$tmp/multi" --backend a,b >"$tmp/multi.out" 2>&1
rc=$?
[ $rc -le 1 ] && [ -s "$tmp/multi/a/report.json" ] && [ -s "$tmp/multi/b/report.json" ] && [ -s "$tmp/multi/compare.md" ] \
    && [ "$(fields "$tmp/multi/b/report.json")" = "$b" ] \
    && ok "--report-only --backend a,b writes both reports and the compare" \
    || no "--report-only --backend a,b writes both reports and the compare" "exit $rc" "$(cat "$tmp/multi.out")"
echo "# cluster part: $(( $(date +%s) - t0 )) s"
tap_exit
