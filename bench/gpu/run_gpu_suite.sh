#!/bin/bash
# bench/gpu/run_gpu_suite.sh — the lent GPU machine (device tool): builds
# kforge from .carry/kforge-0.1.0.tar.gz (json-c, libseccomp from
# .carry/root where the machine lacks them), then, by MODE:
#   anchors  bench/anchors/torch_anchors.py over PROBLEMS (PyTorch eager and
#            torch.compile, CUDA events, TF32 off) -> $OUT/anchors.json
#   suite    kforge suite PROBLEMS --backend $BACKENDS --preset kernelbench
#            --max-iterations $ITER [--anchors $ANCHORS] -> $OUT/suite/...
#            (each backend's report, compare.md, the reference cache's effect)
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
PROBLEMS=${PROBLEMS:-$(ls problems/level2/*.json)}
case ${MODE:-suite} in
anchors)
    log "PyTorch anchors: $(echo $PROBLEMS | wc -w) problems"
    timeout ${ANCHOR_TIME:-540} python3 "$top/bench/anchors/torch_anchors.py" "$OUT/anchors.json" $PROBLEMS \
        --preset kernelbench --reps 20 --warmup 5 2>&1 | tail -n 40
    exit 0;;
esac
cd /tmp && rm -rf kforge-0.1.0 && tar xzf "$top"/.carry/kforge-0.1.0.tar.gz && cd kforge-0.1.0 || exit 1
log "build"
(./configure -q --with-cuda="$cuda" --disable-levelzero --prefix=/tmp/inst && make -j16 && make install) \
    >"$OUT/build.log" 2>&1 || { tail -n 40 "$OUT/build.log"; exit 1; }
export PATH=/tmp/inst/bin:$PATH KFORGE_PLUGIN_PATH=/tmp/inst/lib/kforge/plugins XDG_CACHE_HOME=/tmp/cache
nv=$(ldconfig -p | awk '$1 == "libnvidia-opencl.so.1" {print $NF; exit}')
[ -n "$nv" ] || nv=$(ls /usr/local/nvidia/lib64/libnvidia-opencl.so.1 /usr/lib/x86_64-linux-gnu/libnvidia-opencl.so.1 2>/dev/null | head -n1)
mkdir -p /tmp/icd && echo "$nv" >/tmp/icd/nvidia.icd && export OCL_ICD_VENDORS=/tmp/icd
kforge backends >"$OUT/backends.txt" 2>&1; grep -E '^[a-z]|device' "$OUT/backends.txt"
an=""; [ -n "${ANCHORS:-}" ] && [ -f "$top/$ANCHORS" ] && an="--anchors $top/$ANCHORS"
log "suite ${BACKENDS:-cuda,opencl}, kernelbench, ${ITER:-3} steps, $an"
timeout ${SUITE_TIME:-420} kforge suite $PROBLEMS --backend ${BACKENDS:-cuda,opencl} --preset kernelbench \
    --max-iterations ${ITER:-3} --max-time ${MAX_TIME:-60} --report "$OUT/suite" $an 2>&1 | tail -n 30
cat "$OUT/suite/compare.md" 2>/dev/null | tail -n 30
log "the reference cache: entries $(ls /tmp/cache/kforge/ref 2>/dev/null | wc -l), $(du -sh /tmp/cache/kforge/ref 2>/dev/null | cut -f1)"
for r in "$OUT"/suite/*/runs/*/baseline/eval.json "$OUT"/suite/*/runs/*/steps/*/eval.json; do
    [ -f "$r" ] && python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); r=d.get("reference_sets",{}); print(sys.argv[1].split("/suite/")[1], r.get("cached"), r.get("computed"), d.get("verify_s"), d.get("profile_s"))' "$r"
done > "$OUT/refcache.txt" 2>/dev/null; head -n 20 "$OUT/refcache.txt"
