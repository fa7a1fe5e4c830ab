#!/bin/bash
# device: the 16-core suite (c16.sh TAG), then the tm.sh micro study
OUT=${OUT:-/tmp/out}; TAG=$1
bash .carry/c16.sh "$TAG" problems/level2/*.json
REUSE=1 MODE=exec CMD='cd '"$PWD"' && bash .carry/tm.sh' bash bench/gpu/run_gpu_suite.sh 2>&1 | tail -40
