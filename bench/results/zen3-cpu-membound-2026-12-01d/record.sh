#!/bin/bash
# Zen 3 2-core VM record (issue 15, 2026-12-01, fourth session, f2304bc: no poison after the lead-in): stream_bw, the ten
# memory-bound problems beside PyTorch eager (2 threads), paired on same and fresh inputs, stream_bw.
# Build: /tmp/rbld, a clean clone of the commit named in rec/git.txt built without sanitizers.
set -u
B=/tmp/rbld; SRC=/tmp/rsrc; OUTD=${OUTD:-/tmp/zrec5/out}; rm -rf $OUTD /tmp/suite-zrec5; mkdir -p $OUTD
export KFORGE=$B/core/kforge KFORGE_PLUGIN_PATH=$B/plugins/cpu-simd/.libs KFORGE_WORKER=$B/core/kforge-worker KFORGE_PROMPTS=$SRC/prompts
export KFORGE_PYTHON=/root/.cache/kforge/test-deps/torch-venv/bin/python
cd $SRC
(cd $SRC && git log --oneline -1) > $OUTD/git.txt; /tmp/stream_bw 2 256 5 > $OUTD/bw-before.txt
P=""; for p in 04 19 23 26 33 35 36 40 47 88; do P="$P $(ls problems/level1/${p}_*.json)"; done
bash bench/cpu/run_cpu_anchors.sh --tool torch --threads 2 --no-compile --out $OUTD/rec --suite-dir /tmp/suite-zrec5 $P \
    --paired 2 --paired-inputs both -- --max-iterations 4 --max-time 40 > $OUTD/suite.log 2>&1
/tmp/stream_bw 2 256 5 > $OUTD/bw-after.txt
python3 bench/cpu/bandwidth_share.py $OUTD/rec/report.json $OUTD/bw-before.txt $OUTD/bw-after.txt > $OUTD/share.md 2>&1
echo done > $OUTD/DONE
