#!/bin/bash
# 2-core Zen 4 VM (issue 15, 2026-12-01, fifth session): bench/cpu/harness_share.py over the ten
# memory-bound problems' best kernels of ../epyc2-cpu-membound-2026-12-01 (best.tgz) with 23's
# replaced by the online softmax of 8fb8af8 at the same point (best-online23.tgz), 2 threads,
# 3 rounds of 21 calls a side, kforge profile beside (--profile); stream_bw before and after.
# KFORGE: a kforge of this tree (the evaluator); PY: a Python with numpy.
set -u
R=$(cd "$(dirname "$0")" && pwd); S=$(mktemp -d); tar xzf $R/best-online23.tgz -C $S
cd "$R/../../.."
{ lscpu; uptime; date -u +%FT%TZ; } > $R/machine.txt
gcc -std=gnu11 -O2 -march=native -fopenmp bench/cpu/stream_bw.c -o $S/stream_bw && $S/stream_bw 2 256 5 > $R/bw-before.txt
KFORGE=${KFORGE:-kforge} ${PY:-python3} bench/cpu/harness_share.py $R/harness-share.json $S problems/level1/{04,19,23,26,33,35,36,40,47,88}_*.json \
    --threads 2 --rounds 3 --reps 21 --profile > $R/run.txt 2>&1
$S/stream_bw 2 256 5 > $R/bw-after.txt
