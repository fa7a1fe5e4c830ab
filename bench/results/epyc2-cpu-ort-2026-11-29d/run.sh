#!/bin/bash
cd /work/main
export PATH=/tmp/bld/core:$PATH KFORGE_PLUGIN_PATH=/tmp/bld/plugins/cpu-simd/.libs KFORGE_WORKER=/tmp/bld/core/kforge-worker KFORGE_PROMPTS=/work/main/prompts
export KFORGE_ORT_PYTHON=$HOME/.cache/kforge/test-deps/torch-venv/bin/python
git log -1 --format='%H %s' | cut -c1-100
bench/cpu/run_cpu_anchors.sh --tool ort --threads 2 --paired 3 --name epyc2-cpu-ort-2026-11-29d problems/level2 -- --max-iterations 3 --max-time 40 --no-baseline
