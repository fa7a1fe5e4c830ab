#!/bin/bash
# 2-core VM record (a Zen 4) (issue 15, 2026-12-02 fourth session, at 06720b2: the GELU blocks stored from the registers): stream_bw, the ten memory-bound
# problems beside PyTorch eager (2 threads), paired on same and fresh inputs, then the suite's best
# kernels each beside stream_bw in the same minute (paired_anchors.py --tool stream, 3 rounds) and against
# share_harness's streaming copy in turns (harness_share.py, 3 rounds), stream_bw.
# Build: /tmp/bld, the development build tree of /work/main at the commit named in out/git.txt (clean tree), without sanitizers.
set -u
B=/tmp/bld; SRC=/work/main; OUTD=${OUTD:-/tmp/zrec10/out}; S=/tmp/suite-zrec10; rm -rf $OUTD $S; mkdir -p $OUTD
export KFORGE=$B/core/kforge KFORGE_PLUGIN_PATH=$B/plugins/cpu-simd/.libs KFORGE_WORKER=$B/core/kforge-worker KFORGE_PROMPTS=$SRC/prompts
export KFORGE_PYTHON=/root/.cache/kforge/test-deps/torch-venv/bin/python
cd $SRC
(cd $SRC && git log --oneline -1) > $OUTD/git.txt; lscpu > $OUTD/machine.txt
gcc -std=gnu11 -O2 -march=native -fopenmp bench/cpu/stream_bw.c -o /tmp/stream_bw && /tmp/stream_bw 2 256 5 > $OUTD/bw-before.txt
P=""; for p in 04 19 23 26 33 35 36 40 47 88; do P="$P $(ls problems/level1/${p}_*.json)"; done
bash bench/cpu/run_cpu_anchors.sh --tool torch --threads 2 --no-compile --out $OUTD/rec --suite-dir $S $P \
    --paired 2 --paired-inputs both -- --max-iterations 4 --max-time 40 > $OUTD/suite.log 2>&1
$KFORGE_PYTHON bench/cpu/paired_anchors.py $OUTD/paired-stream.json $S $P --tool stream --stream-bw /tmp/stream_bw \
    --threads 2 --rounds 3 --reps 21 > $OUTD/paired-stream.out 2>&1
$KFORGE_PYTHON bench/cpu/harness_share.py $OUTD/harness-share.json $S $P --threads 2 --rounds 3 --reps 21 \
    > $OUTD/harness-share.out 2>&1
/tmp/stream_bw 2 256 5 > $OUTD/bw-after.txt
python3 bench/cpu/bandwidth_share.py $OUTD/rec/report.json $OUTD/bw-before.txt $OUTD/bw-after.txt > $OUTD/share.md 2>&1
(cd $S && for r in runs/*/; do b=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['best']['dir'])" $r/result.json 2>/dev/null) || continue
    echo $r/result.json; echo $r/$b; done | tar czf $OUTD/best.tgz -T -)
echo done > $OUTD/DONE
