#!/bin/bash
# Zen 4 2-core VM record (issue 15, 2026-11-30, eighth session): the kernels before and after this
# session's emitter changes (kernels/: 23 Softmax's kf__exp16, 35 GroupNorm's carried sums, 47's three
# rows a pass) by `kforge profile` in turns beside 19's copy, 3 rounds, and the same files in the plain
# harness (kernels/h3.c); then the ten memory-bound problems beside PyTorch eager (2 threads), paired on
# same and fresh inputs, and the shares (bench/cpu/bandwidth_share.py).  Build: /tmp/bld at the commit
# in rec/git.txt.  Old kernels: 23 and 47 as emitted at bb6d323, 35 at 780096f (the same GroupNorm
# loops as bb6d323; the prelude then differed in kf__exp16 only, which 35 does not call).
set -u
B=/tmp/bld; SRC=/work/main; HERE=$SRC/bench/results/epyc2-cpu-passes-2026-11-30; OUTD=/tmp/recz5
rm -rf $OUTD /tmp/suite-recz5; mkdir -p $OUTD/so
export KFORGE=$B/core/kforge KFORGE_PLUGIN_PATH=$B/plugins/cpu-simd/.libs KFORGE_WORKER=$B/core/kforge-worker KFORGE_PROMPTS=$SRC/prompts
export KFORGE_PYTHON=/root/.cache/kforge/test-deps/torch-venv/bin/python
cd $SRC
/tmp/stream_bw 2 256 5 > $OUTD/bw-before.txt
prof() {   # problem kernel
    $KFORGE profile --backend cpu-simd --problem problems/level1/$1.json --preset cpu --json $HERE/kernels/$2.c |
        python3 -c "import json,sys; d=json.load(sys.stdin); t=d.get('timing') or {}; print(d['verdict'], 'median %.3f min %.3f ms' % (t.get('median_s',0)*1e3, t.get('min_s',0)*1e3))"
}
for r in 1 2 3; do
    echo "== round $r $(date +%T)"
    for pk in 19_ReLU:k19 23_Softmax:k23_old 23_Softmax:k23_new 35_GroupNorm:k35_old 35_GroupNorm:k35_new \
              47_Sum_reduction_over_a_dimension:k47_old 47_Sum_reduction_over_a_dimension:k47_new; do
        printf "%-36s %-8s: " ${pk%%:*} ${pk#*:}; prof ${pk%%:*} ${pk#*:}
    done
done > $OUTD/ab.txt 2>&1
gcc -O2 $HERE/kernels/h3.c -I plugins/cpu-simd -ldl -lm -o $OUTD/h3
for k in ref_nt ref_rd k19 k23_old k23_new k35_old k35_new k47_old k47_new; do
    gcc -std=gnu11 -O3 -march=native -fopenmp -fPIC -shared -I plugins/cpu-simd $HERE/kernels/$k.c -o $OUTD/so/$k.so -lm
done
for r in 1 2 3; do
    echo "== round $r"
    OMP_PROC_BIND=true $OUTD/h3 1024,16384 2 15 $OUTD/so/ref_nt.so $OUTD/so/k19.so $OUTD/so/k23_old.so $OUTD/so/k23_new.so | grep med
    OMP_PROC_BIND=true $OUTD/h3 16,64,16384 2 15 $OUTD/so/ref_nt.so $OUTD/so/k35_old.so $OUTD/so/k35_new.so | grep med
    OMP_PROC_BIND=true $OUTD/h3 8,1024,2047 2 15 $OUTD/so/ref_rd.so $OUTD/so/k47_old.so $OUTD/so/k47_new.so | grep med
done > $OUTD/harness.txt 2>&1
P=""; for p in 04 19 23 26 33 35 36 40 47 88; do P="$P $(ls problems/level1/${p}_*.json)"; done
bash bench/cpu/run_cpu_anchors.sh --tool torch --threads 2 --no-compile --out $OUTD/rec --suite-dir /tmp/suite-recz5 $P \
    --paired 2 --paired-inputs both -- --max-iterations 4 --max-time 40 > $OUTD/suite.log 2>&1
/tmp/stream_bw 2 256 5 > $OUTD/bw-after.txt
python3 bench/cpu/bandwidth_share.py $OUTD/rec/report.json $OUTD/bw-before.txt $OUTD/bw-after.txt > $OUTD/share.md 2>&1
echo done > $OUTD/DONE
