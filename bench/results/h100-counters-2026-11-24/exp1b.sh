#!/bin/bash
set -u
export PATH=$PATH:/usr/local/cuda/bin
E=/tmp/e1
snap() { cp $E/summary.txt $OUT/; tar czf $OUT/e1.tgz -C /tmp e1; }
NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -n1)
MOK=$(grep '^ok ' $E/summary.txt | cut -d' ' -f2 | paste -sd,)
P=problems/level2/09_Matmul_Subtract_Multiply_ReLU.json
echo "== run p9" >>$E/summary.txt
timeout 55 kforge run $P --backend cuda --preset kernelbench --no-baseline --max-iterations 2 --max-time 45 --target 0 --out /tmp/r9 >$E/run9.txt 2>&1; echo "rc $?" >>$E/summary.txt
B=/tmp/r9/$(python3 -c 'import json;print(json.load(open("/tmp/r9/result.json"))["best"]["dir"])')
echo "best $B" >>$E/summary.txt; cp -r $B $E/best9; snap
for sb in auto off; do
 echo "== kforge profile --counters ncu, sandbox $sb" >>$E/summary.txt
 timeout 40 kforge profile --backend cuda --problem $P --preset kernelbench --sandbox=$sb --counters ncu --keep-work /tmp/kw-$sb $B >$E/kprof-$sb.txt 2>&1; echo "rc $?" >>$E/summary.txt
 tail -n 12 $E/kprof-$sb.txt >>$E/summary.txt; cp $(find /tmp/kw-$sb -name ncu.csv | head -n1) $E/ncu-$sb.csv 2>/dev/null; snap
 grep -q "^kernel " $E/kprof-$sb.txt && break
done
snap
