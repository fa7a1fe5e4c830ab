#!/bin/bash
# bench/gpu/run_gpu_suite.sh — the lent GPU machine (device tool): builds
# kforge from .carry/kforge-0.1.0.tar.gz (json-c, libseccomp from
# .carry/root where the machine lacks them), then, by MODE:
#   anchors  bench/anchors/torch_anchors.py over PROBLEMS (PyTorch eager and
#            torch.compile, CUDA events, TF32 off) -> $OUT/anchors.json
#   suite    kforge suite PROBLEMS --backend $BACKENDS --preset $PRESET
#            (kernelbench) --max-iterations $ITER --jobs $JOBS (1)
#            [--anchors $ANCHORS] $SUITE_OPTS (e.g. --no-baseline)
#            -> $OUT/suite$TAG/... (each backend's
#            report, compare.md, the reference cache's effect)
#   cublas   the Level-1 GEMMs against cuBLAS: bench/gpu/cublas_anchors.py
#            times cublas:sgemm (FP32) and cublas:gemm_tf32 through kforge
#            profile on each single-matmul problem of PROBLEMS (default
#            problems/level1) -> $OUT/cublas_anchors.json, then kforge suite
#            on those problems --backend cuda (or $BACKENDS) --anchors that
#            file -> $OUT/suite-cublas$TAG.tgz, compare.md and report.md in
#            the log ("eager" = cuBLAS FP32, "compile" = cuBLAS TF32 there);
#            ANCHOR_TIME (200 s) and SUITE_TIME (240 s here) fit one call
#   runs     kforge run --no-baseline [--agent $AGENT] for each of PROBLEMS
#            on $BACKENDS at $PRESET, $ITER steps: every step's label, time
#            and verdict
#            -> $OUT/runs$TAG/...
#   exec     bash -c "$CMD" in that environment (KF_BUILD: the build tree)
#   roundtrip  bench/gpu/torch_roundtrip.sh (import -> run -> export --to
#            torch -> the exported test on CUDA tensors, on cuda and opencl)
#            -> $OUT/roundtrip/...
# REUSE=1 keeps an install from an earlier invocation in the same call.
# TARBALL=PATH builds another `make dist` tarball (default
# .carry/kforge-0.1.0.tar.gz; its top folder must be kforge-0.1.0).
# Results under $OUT; copy them into bench/results/ with the machine.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
top=$PWD; C=$top/.carry/root
log() { echo "== $(date +%T) $*"; }
mkdir -p /tmp/kl
for lib in json-c ltdl curl OpenCL seccomp; do
    sys=$(ldconfig -p | awk -v n="lib$lib.so." 'index($1, n) == 1 {print $NF; exit}')
    if [ -n "$sys" ]; then ln -sf "$sys" /tmp/kl/lib$lib.so; else cp -a "$C"/usr/lib/x86_64-linux-gnu/lib$lib.so* /tmp/kl/; fi
done
export LIBRARY_PATH=/tmp/kl LD_LIBRARY_PATH=/tmp/kl${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export CPATH=$C/usr/include:$C/usr/include/x86_64-linux-gnu
export JSONC_CFLAGS="-I$C/usr/include/json-c" JSONC_LIBS="-ljson-c" CURL_CFLAGS=" " CURL_LIBS="-lcurl"
export SECCOMP_CFLAGS="-I$C/usr/include" SECCOMP_LIBS="-lseccomp"
cuda=$(dirname "$(dirname "$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)")")
export LD_LIBRARY_PATH=$LD_LIBRARY_PATH:$cuda/lib64
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee "$OUT/gpu.txt"
lscpu | grep -E 'Model name|^CPU\(s\)' | tee "$OUT/cpu.txt"
git -C "$top" log -1 --format='%H %s' 2>/dev/null | cut -c1-120 | tee "$OUT/commit.txt"
if [ "${MODE:-suite}" = cublas ]; then
    PROBLEMS=$(python3 "$top/bench/gpu/cublas_anchors.py" - ${PROBLEMS:-problems/level1} --list --preset "${PRESET:-kernelbench}")
fi
PROBLEMS=${PROBLEMS:-$(ls problems/level2/*.json)}
case ${MODE:-suite} in
anchors)
    log "PyTorch anchors: $(echo $PROBLEMS | wc -w) problems"
    timeout ${ANCHOR_TIME:-540} python3 "$top/bench/anchors/torch_anchors.py" "$OUT/anchors.json" $PROBLEMS \
        --preset kernelbench --reps 20 --warmup 5 2>&1 | tail -n 40
    exit 0;;
esac
if [ -z "${REUSE:-}" ] || [ ! -x /tmp/inst/bin/kforge ]; then
    cd /tmp && rm -rf kforge-0.1.0 && tar xzf "${TARBALL:-$top/.carry/kforge-0.1.0.tar.gz}" && cd kforge-0.1.0 || exit 1
    log "build"
    (./configure -q --with-cuda="$cuda" --disable-levelzero --prefix=/tmp/inst && make -j16 && make install) \
        >"$OUT/build.log" 2>&1 || { tail -n 40 "$OUT/build.log"; exit 1; }
fi
cd "$top"
export PATH=/tmp/inst/bin:$PATH KFORGE_PLUGIN_PATH=/tmp/inst/lib/kforge/plugins XDG_CACHE_HOME=/tmp/cache
nv=$(ldconfig -p | awk '$1 == "libnvidia-opencl.so.1" {print $NF; exit}')
[ -n "$nv" ] || nv=$(ls /usr/local/nvidia/lib64/libnvidia-opencl.so.1 /usr/lib/x86_64-linux-gnu/libnvidia-opencl.so.1 2>/dev/null | head -n1)
mkdir -p /tmp/icd && echo "$nv" >/tmp/icd/nvidia.icd && export OCL_ICD_VENDORS=/tmp/icd
kforge backends >"$OUT/backends.txt" 2>&1; grep -E '^[a-z]|device' "$OUT/backends.txt"
if [ "${MODE:-suite}" = exec ]; then
    # any command with kforge installed and the environment above, e.g.
    # MODE=exec CMD='kforge run ...' (KF_BUILD: the configured build tree)
    KF_BUILD=/tmp/kforge-0.1.0 exec bash -c "$CMD"
fi
if [ "${MODE:-suite}" = roundtrip ]; then
    KFORGE_READY=1 exec bash "$top/bench/gpu/torch_roundtrip.sh"
fi
PRESET=${PRESET:-kernelbench}; TAG=${TAG:-}
if [ "${MODE:-suite}" = runs ]; then
    for pf in $PROBLEMS; do
        n=$(basename "$pf" .json)
        log "run $n on ${BACKENDS:-cuda} at $PRESET, ${ITER:-3} steps"
        timeout ${RUN_TIME:-300} kforge run "$pf" --backend ${BACKENDS:-cuda} --preset "$PRESET" --no-baseline \
            ${AGENT:+--agent "$AGENT"} \
            --max-iterations ${ITER:-3} --max-time ${MAX_TIME:-120} --target 0 --out "$OUT/runs$TAG/$n" 2>&1 |
            grep -E '^\[|analysis|best|stopped|rror' | tail -n 24
        python3 -c 'import json,sys
for l in open(sys.argv[1]):
    d = json.loads(l)
    if d.get("ev") == "eval": print("   eval", d.get("step"), d.get("summary", "")[:300])
    if d.get("ev") == "gen": print("   gen", d.get("step"), json.dumps((d.get("agent_state") or {}).get("tried", [{}])[-1].get("point")))' \
            "$OUT/runs$TAG/$n/journal.jsonl" 2>/dev/null | tail -n 24
    done
    exit 0
fi
if [ "${MODE:-suite}" = cublas ]; then
    log "cuBLAS FP32 and TF32 on $(echo $PROBLEMS | wc -w) GEMM problems at $PRESET"
    # the build, the anchors and the suite in one device call (10 min)
    SUITE_TIME=${SUITE_TIME:-240}
    timeout ${ANCHOR_TIME:-200} python3 "$top/bench/gpu/cublas_anchors.py" "$OUT/cublas_anchors.json" $PROBLEMS \
        --preset "$PRESET" --reps ${REPS:-20} --work /tmp/cublas-cands --kforge kforge 2>&1 | tail -n 20
    [ -f "$OUT/cublas_anchors.json" ] || { echo "no cuBLAS anchors written"; exit 1; }
    ANCHORS_ABS=$OUT/cublas_anchors.json; TAG=-cublas$TAG; BACKENDS=${BACKENDS:-cuda}
fi
an=""; [ -n "${ANCHORS:-}" ] && [ -f "$top/$ANCHORS" ] && an="--anchors $top/$ANCHORS"
[ -n "${ANCHORS_ABS:-}" ] && an="--anchors $ANCHORS_ABS"
log "suite ${BACKENDS:-cuda,opencl}, $PRESET, ${ITER:-3} steps, jobs ${JOBS:-1} $an"
timeout ${SUITE_TIME:-420} kforge suite $PROBLEMS --backend ${BACKENDS:-cuda,opencl} --preset "$PRESET" \
    --max-iterations ${ITER:-3} --max-time ${MAX_TIME:-60} --jobs ${JOBS:-1} --report "$OUT/suite$TAG" $an \
    ${SUITE_OPTS:-} 2>&1 | tail -n 30
cat "$OUT/suite$TAG/compare.md" "$OUT"/suite$TAG/*/report.md 2>/dev/null | grep -E '^\|' | head -n 60
log "the reference cache: entries $(ls /tmp/cache/kforge/ref 2>/dev/null | wc -l), $(du -sh /tmp/cache/kforge/ref 2>/dev/null | cut -f1)"
for r in "$OUT"/suite$TAG/runs/*/baseline/eval.json "$OUT"/suite$TAG/runs/*/steps/*/eval.json \
         "$OUT"/suite$TAG/*/runs/*/baseline/eval.json "$OUT"/suite$TAG/*/runs/*/steps/*/eval.json; do
    [ -f "$r" ] && python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); r=d.get("reference_sets",{}); print(sys.argv[1].split("/suite")[1], r.get("cached"), r.get("computed"), d.get("verify_s"), d.get("profile_s"), d.get("profile_breakdown"))' "$r"
done > "$OUT/refcache$TAG.txt" 2>/dev/null; head -n 20 "$OUT/refcache$TAG.txt"
# the whole suite directory as one file (the device tool returns few files)
tar czf "$OUT/suite$TAG.tgz" -C "$OUT" "suite$TAG" && rm -rf "$OUT/suite$TAG"
