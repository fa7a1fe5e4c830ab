#!/bin/bash
cd /work/main
export PATH=/tmp/bld/core:$PATH KFORGE_PLUGIN_PATH=/tmp/bld/plugins/cpu-simd/.libs KFORGE_WORKER=/tmp/bld/core/kforge-worker KFORGE_PROMPTS=/work/main/prompts
export KFORGE_PYTHON=$HOME/.cache/kforge/test-deps/torch-venv/bin/python
bench/cpu/run_cpu_anchors.sh --tool torch --no-compile --threads 2 --paired 2 --name epyc2-cpu-torch-fp32-2026-11-29b problems/level2 -- --precision fp32 --max-iterations 4 --max-time 40 --no-baseline
