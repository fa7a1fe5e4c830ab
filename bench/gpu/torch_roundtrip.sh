#!/bin/bash
# bench/gpu/torch_roundtrip.sh — issue 12's GPU round trip, on the lent GPU
# machine (device tool), from the repository root:
#
#   MODEL=tests/torch/kernelbench/12_Gemm_Multiply_LeakyReLU.py bench/gpu/torch_roundtrip.sh
#
# For one KernelBench-style file (MODEL) and each of BACKENDS (cuda opencl):
#   1 kforge import MODEL --preset small=$SMALL      (once; PyTorch's trace)
#   2 kforge run --backend B --preset small           (built-in agent, $ITER=2 steps)
#   3 kforge export --to torch --model MODEL
#   4 the generated test_PKG.py --device cuda        (the exported function
#     against the module on fresh CUDA inputs, 3 trials; OpenCL copies the
#     CUDA tensors through the host)
# and prints PASS or FAIL for each step; logs under $OUT/roundtrip/.  Exit 0
# when every step passed.  DEVICE=cpu makes the test use CPU tensors (a dry
# run of this script off the GPU machine, e.g. BACKENDS="opencl cpu-simd").  SMALL is the small preset's sizes (the default is
# 12_Gemm_Multiply_LeakyReLU's dims; give SMALL= for another MODEL, or
# SMALL=none to run at the file's own sizes).
# kforge is built by bench/gpu/run_gpu_suite.sh (from .carry/kforge-0.1.0.tar.gz,
# MODE=roundtrip), which sets PATH, the plugin path and NVIDIA's OpenCL ICD and
# calls back here with KFORGE_READY=1; run this script directly and it does that.
set -u
top=$PWD
if [ -z "${KFORGE_READY:-}" ]; then
    MODE=roundtrip exec bash "$top/bench/gpu/run_gpu_suite.sh"
fi
OUT=${OUT:-/tmp/out}
R=$OUT/roundtrip; mkdir -p "$R"
MODEL=${MODEL:-tests/torch/kernelbench/12_Gemm_Multiply_LeakyReLU.py}
SMALL=${SMALL:-batch_size=64,in_features=96,out_features=80}
BACKENDS=${BACKENDS:-cuda opencl}
ITER=${ITER:-2}
DEVICE=${DEVICE:-cuda}   # where the test puts the module and inputs (cpu: a dry run off the GPU machine)
export KFORGE_PYTHON=${KFORGE_PYTHON:-python3}
fails=0
step() {   # step NAME LOG COMMAND...: runs it, PASS/FAIL with the log's tail
    local name=$1 logf=$2 rc; shift 2
    "$@" >"$logf" 2>&1; rc=$?
    if [ $rc -eq 0 ]; then echo "PASS $name"; return 0; fi
    echo "FAIL $name (exit $rc; $logf):"; tail -n 15 "$logf" | sed 's/^/    /'
    fails=$((fails + 1)); return 1
}
echo "== torch round trip: $MODEL on $BACKENDS ($(date -u +%FT%TZ))"
"$KFORGE_PYTHON" -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda,
      torch.cuda.get_device_name(0) if torch.cuda.is_available() else "NO CUDA DEVICE")' 2>&1 | tee "$R/torch.txt"
if [ "$SMALL" = none ]; then preset=file; popt=""; else preset=small; popt="--preset small=$SMALL"; fi
step "import $(basename "$MODEL") ($preset)" "$R/import.log" \
    kforge import "$MODEL" $popt --out "$R/problem.json" || { echo "round trip: 0 of $BACKENDS reached"; exit 1; }
for B in $BACKENDS; do
    D=$R/$B; rm -rf "$D"; mkdir -p "$D"
    step "$B: kforge run ($preset, $ITER steps)" "$D/run.log" \
        bash -c 'timeout ${RUN_TIME:-400} kforge run "$1" --backend "$2" --preset "$3" --max-iterations "$4" \
                 --no-baseline --out "$5/run" && grep -q "\"verified\":true" "$5/run/result.json"' \
        _ "$R/problem.json" "$B" "$preset" "$ITER" "$D" || continue
    grep -E '"backend_language"|"median_s"' "$D/run/result.json" | head -n 3 | sed 's/^/    /'
    step "$B: kforge export --to torch" "$D/export.log" \
        kforge export "$D/run" --to torch --out "$D/export" --model "$MODEL" || continue
    "$KFORGE_PYTHON" -c 'import json, sys
s = json.load(open(sys.argv[1]))
print("    kind %s (%s);" % (s["kind"], s["language"]), "; ".join("%s global %s local %s dyn %s B" % (
    l["kernel"], l["global"], l["local"], l["dyn_shared_bytes"]) for l in s.get("launches", [])))' "$D/export/"*/spec.json
    step "$B: exported kernel vs the module on fresh $DEVICE inputs" "$D/test.log" \
        bash -c 'cd "$1" && "$KFORGE_PYTHON" test_*.py --device "$2" --trials 3' _ "$D/export" "$DEVICE"
    sed 's/^/    /' "$D/test.log" | tail -n 5
    if [ "$B" = cuda ]; then
        (cd "$D/export" && "$KFORGE_PYTHON" -c 'import importlib, os
pkg = [d for d in os.listdir(".") if os.path.isfile(os.path.join(d, "spec.json"))][0]
k = importlib.import_module(pkg)
print("    NVRTC:", k.nvrtc_path())' 2>&1 | tail -n 2)
    fi
done
echo "== round trip: $fails failed step(s); logs in $R"
[ $fails -eq 0 ]
