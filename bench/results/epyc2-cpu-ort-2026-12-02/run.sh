#!/bin/bash
# the 2-core Zen 4 VM's two Level-2 lines in one sitting: ONNX Runtime (every precision),
# then the fp32 path alone against PyTorch eager (../epyc2-cpu-torch-fp32-2026-12-02)
cd /work/main
export PATH=/tmp/bld/core:$PATH KFORGE_PLUGIN_PATH=/tmp/bld/plugins/cpu-simd/.libs KFORGE_WORKER=/tmp/bld/core/kforge-worker KFORGE_PROMPTS=/work/main/prompts
export KFORGE_ORT_PYTHON=$HOME/.cache/kforge/test-deps/torch-venv/bin/python KFORGE_PYTHON=$HOME/.cache/kforge/test-deps/torch-venv/bin/python
git log -1 --format='%H %s' | cut -c1-100
date -u +%T
bench/cpu/run_cpu_anchors.sh --tool ort --threads 2 --paired 3 --name epyc2-cpu-ort-2026-12-02 problems/level2 -- --max-iterations 3 --max-time 40 --no-baseline
date -u +%T
bench/cpu/run_cpu_anchors.sh --tool torch --no-compile --threads 2 --paired 2 --name epyc2-cpu-torch-fp32-2026-12-02 problems/level2 -- --precision fp32 --max-iterations 4 --max-time 40 --no-baseline
date -u +%T
