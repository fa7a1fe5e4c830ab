#!/bin/bash
# counters experiment 3: ncu's front end under the worker's Landlock rules (kforge-worker
# --landlock-exec), problem 9's best kernel, --sandbox strict and auto, then off for reference.
set -u
E=/tmp/e3; mkdir -p $E
P=problems/level2/09_Matmul_Subtract_Multiply_ReLU.json
B=$PWD/.carry-counters/best9
uname -r >$E/summary.txt
for sb in strict auto off; do
  s=$(date +%s.%N)
  timeout 45 kforge profile --backend cuda --problem $P --preset kernelbench --sandbox=$sb --counters ncu --keep-work /tmp/kw3-$sb --json $B >$E/prof-$sb.json 2>$E/prof-$sb.err; rc=$?
  echo "== sandbox $sb: rc $rc, wall $(python3 -c "import time;print(round(time.time()-$s,1))") s" >>$E/summary.txt
  python3 - $E/prof-$sb.json <<'PY' >>$E/summary.txt 2>&1
import json,sys
d=json.load(open(sys.argv[1]))
print("verdict", d["verdict"], "median_us", round(d["timing"]["median_s"]*1e6,1), "sandbox", d["sandbox"]["layers"], "| missing:", d["sandbox"]["missing"])
h=d.get("hw_counters") or {}
print("hw", h.get("status"), h.get("why"), "replay sandbox:", h.get("sandbox"))
for k in h.get("kernels", []):
    m=k["metrics"]; print(" ", k["kernel"], "dur_ns", m.get("gpu__time_duration.sum"), "occ", m.get("sm__warps_active.avg.pct_of_peak_sustained_active"), "tensor", m.get("sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active"))
PY
  head -c 1500 $E/prof-$sb.err >>$E/summary.txt
  f=$(find /tmp/kw3-$sb -name ncu.csv | head -n1); [ -n "$f" ] && head -n 3 "$f" >>$E/summary.txt
done
tar czf $OUT/e3.tgz -C /tmp e3; cp $E/summary.txt $OUT/
