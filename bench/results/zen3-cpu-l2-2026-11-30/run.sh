#!/bin/bash
# The 2-core Zen 3 VM's (AVX2 + FMA only: no AVX-512, no bf16 units) two Level-2 lines in one
# sitting, as ../zen3-cpu-ort-2026-11-30/run.sh, from a build of a clean clone ($SRC, $BLD) so
# that nothing rebuilt during the run changes the binaries: ONNX Runtime (every precision the
# search may pick: fp32 only here), then the fp32 path alone against PyTorch eager.  Nothing else
# ran on the VM meanwhile.
SRC=${SRC:-/tmp/rsrc} BLD=${BLD:-/tmp/rbld}
cd "$SRC"
export PATH=$BLD/core:$PATH KFORGE_PLUGIN_PATH=$BLD/plugins/cpu-simd/.libs KFORGE_WORKER=$BLD/core/kforge-worker KFORGE_PROMPTS=$SRC/prompts
export KFORGE_ORT_PYTHON=$HOME/.cache/kforge/test-deps/torch-venv/bin/python KFORGE_PYTHON=$HOME/.cache/kforge/test-deps/torch-venv/bin/python
git log -1 --format='%H %s' | cut -c1-100
date -u +%T
bench/cpu/run_cpu_anchors.sh --tool ort --threads 2 --paired 3 --out /work/main/bench/results/zen3-cpu-l2-2026-11-30/ort \
    --suite-dir /tmp/kforge-suite-zen3-l2-ort problems/level2 -- --max-iterations 3 --max-time 40 --no-baseline
date -u +%T
bench/cpu/run_cpu_anchors.sh --tool torch --no-compile --threads 2 --paired 3 --out /work/main/bench/results/zen3-cpu-l2-2026-11-30/torch-fp32 \
    --suite-dir /tmp/kforge-suite-zen3-l2-torch problems/level2 -- --precision fp32 --max-iterations 4 --max-time 40 --no-baseline
date -u +%T
