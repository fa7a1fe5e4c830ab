#!/bin/bash
# Zen 4 2-core VM, the ten at this session's code (issue 15, 2026-11-30, ninth session), the commit in
# rec/git.txt: the table GELU (853f142) and the finalists by their fastest run (2901e5c); as
# ../epyc2-cpu-passes-2026-11-30/record3.sh: stream_bw, the ten
# memory-bound problems beside PyTorch eager (2 threads), 6 steps and 70 s a problem (a third step fits),
# paired on same and fresh inputs, stream_bw, the shares.
set -u
B=/tmp/bld; SRC=/work/main; OUTD=/tmp/recz8
rm -rf $OUTD /tmp/suite-recz8; mkdir -p $OUTD
export KFORGE=$B/core/kforge KFORGE_PLUGIN_PATH=$B/plugins/cpu-simd/.libs KFORGE_WORKER=$B/core/kforge-worker KFORGE_PROMPTS=$SRC/prompts
export KFORGE_PYTHON=/root/.cache/kforge/test-deps/torch-venv/bin/python
cd $SRC
/tmp/stream_bw 2 256 5 > $OUTD/bw-before.txt 
P=""; for p in 04 19 23 26 33 35 36 40 47 88; do P="$P $(ls problems/level1/${p}_*.json)"; done
bash bench/cpu/run_cpu_anchors.sh --tool torch --threads 2 --no-compile --out $OUTD/rec --suite-dir /tmp/suite-recz8 $P \
    --paired 2 --paired-inputs both -- --max-iterations 6 --max-time 70 > $OUTD/suite.log 2>&1
/tmp/stream_bw 2 256 5 > $OUTD/bw-after.txt 
python3 bench/cpu/bandwidth_share.py $OUTD/rec/report.json $OUTD/bw-before.txt $OUTD/bw-after.txt > $OUTD/share.md 2>&1
echo done > $OUTD/DONE
