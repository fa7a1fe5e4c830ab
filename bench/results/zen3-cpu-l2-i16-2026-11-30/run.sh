#!/bin/bash
# The 2-core Zen 3 VM (AVX2 + FMA only: no AVX-512, no bf16 units) against ONNX Runtime CPU with
# precision i16 in the search (int16 pairs on vpmaddwd, the default point here), the command of
# ../zen3-cpu-l2-2026-11-30/run.sh's first half, from a build of a clean clone ($SRC, $BLD) so
# that nothing rebuilt during the run changes the binaries.  Nothing else ran on the VM meanwhile.
SRC=${SRC:-/tmp/rsrc} BLD=${BLD:-/tmp/rbld}
cd "$SRC"
export PATH=$BLD/core:$PATH KFORGE_PLUGIN_PATH=$BLD/plugins/cpu-simd/.libs KFORGE_WORKER=$BLD/core/kforge-worker KFORGE_PROMPTS=$SRC/prompts
export KFORGE_ORT_PYTHON=$HOME/.cache/kforge/test-deps/torch-venv/bin/python KFORGE_PYTHON=$HOME/.cache/kforge/test-deps/torch-venv/bin/python
git log -1 --format='%H %s' | cut -c1-100
date -u +%T
rm -rf /tmp/kforge-suite-zen3-i16-ort
bench/cpu/run_cpu_anchors.sh --tool ort --threads 2 --paired 3 --out /work/main/bench/results/zen3-cpu-l2-i16-2026-11-30/ort \
    --suite-dir /tmp/kforge-suite-zen3-i16-ort problems/level2 -- --max-iterations 3 --max-time 40 --no-baseline
date -u +%T
