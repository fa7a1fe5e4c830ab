#!/bin/bash
# the 2-core Zen 3 VM's (AVX2 + FMA only: no AVX-512, no bf16 units) two Level-2 lines in one
# sitting, as ../epyc2-cpu-ort-2026-11-30/run.sh on the Zen 4: ONNX Runtime (every precision
# the search may pick: fp32 only here), then the fp32 path alone against PyTorch eager
# (its first run was stopped and not kept: README.md)
cd /work/main
export PATH=/tmp/bld/core:$PATH KFORGE_PLUGIN_PATH=/tmp/bld/plugins/cpu-simd/.libs KFORGE_WORKER=/tmp/bld/core/kforge-worker KFORGE_PROMPTS=/work/main/prompts
export KFORGE_ORT_PYTHON=$HOME/.cache/kforge/test-deps/torch-venv/bin/python KFORGE_PYTHON=$HOME/.cache/kforge/test-deps/torch-venv/bin/python
git log -1 --format='%H %s' | cut -c1-100
date -u +%T
bench/cpu/run_cpu_anchors.sh --tool ort --threads 2 --paired 3 --name zen3-cpu-ort-2026-11-30 problems/level2 -- --max-iterations 3 --max-time 40 --no-baseline
date -u +%T
bench/cpu/run_cpu_anchors.sh --tool torch --no-compile --threads 2 --paired 2 --name zen3-cpu-torch-fp32-2026-11-30 problems/level2 -- --precision fp32 --max-iterations 4 --max-time 40 --no-baseline
date -u +%T
