#!/bin/bash
# counters experiment 2 (branch s22-counters at its tarball): problem 9's best kernel from
# experiment 1 (.carry-counters/best9) profiled with --counters auto/off, sandbox strict: the
# replay's sandbox layers, its cost, eval.json; then kforge run (default auto) for the journal.
set -u
E=/tmp/e2; mkdir -p $E
snap() { tar czf $OUT/e2.tgz -C /tmp e2; }
P=problems/level2/09_Matmul_Subtract_Multiply_ReLU.json
B=$PWD/.carry-counters/best9
for c in off auto; do
  s=$(date +%s.%N)
  timeout 50 kforge profile --backend cuda --problem $P --preset kernelbench --sandbox=strict --counters $c --json $B >$E/prof-$c.json 2>$E/prof-$c.err; rc=$?
  echo "== counters $c: rc $rc, wall $(python3 -c "import time;print(round(time.time()-$s,1))") s" | tee -a $E/summary.txt
  python3 - $E/prof-$c.json <<'PY' | tee -a $E/summary.txt
import json,sys
d=json.load(open(sys.argv[1]))
print("verdict", d["verdict"], "median_us", round(d["timing"]["median_s"]*1e6,1), "profile_s", round(d["profile_s"],2), "sandbox", d["sandbox"]["mode"], d["sandbox"]["layers"])
h=d.get("hw_counters")
if h:
    print("hw", h["status"], h.get("why"), "tool", h["tool"], "replay sandbox:", h.get("sandbox"))
    for k in h["kernels"]:
        m=k["metrics"]; print(" ", k["kernel"], {n.split(".")[0]: v for n, v in m.items() if "stalled" not in n})
PY
  snap
done
timeout 50 kforge profile --backend cuda --problem $P --preset kernelbench --counters auto $B >$E/prof-text.txt 2>&1; tail -n 5 $E/prof-text.txt >>$E/summary.txt
s=$(date +%s.%N)
timeout 70 kforge run $P --backend cuda --preset kernelbench --no-baseline --max-iterations 2 --max-time 60 --target 0 --out /tmp/r9b >$E/run.txt 2>&1
echo "== run rc $? wall $(python3 -c "import time;print(round(time.time()-$s,1))") s" >>$E/summary.txt
python3 - <<'PY' >>$E/summary.txt 2>&1
import json
for l in open("/tmp/r9b/journal.jsonl"):
    d=json.loads(l)
    if d["ev"] == "analysis": print("analysis:", d["text"][:1500])
PY
grep -l hw_counters /tmp/r9b/steps/*/eval.json >>$E/summary.txt 2>&1
for f in /tmp/r9b/steps/*/eval.json; do cp $f $E/eval-$(basename $(dirname $f)).json; done; cp /tmp/r9b/journal.jsonl $E/
snap; cp $E/summary.txt $OUT/
