#!/bin/bash
# The cuda plugin and the cuda-c emitter on the lent GPU: build from
# .carry/kforge-cuda.tar.gz, kforge backends, then kforge run (built-in
# agent) on cuda and opencl side by side, and PyTorch eager/compile.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
top=$PWD; C=$top/.carry/root
log() { echo "== $*"; }
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
log "CUDA toolkit: $cuda"; ls "$cuda"/lib64/libnvrtc.so* 2>/dev/null | head -3
export LD_LIBRARY_PATH=$LD_LIBRARY_PATH:$cuda/lib64
cd /tmp && rm -rf kforge-0.1.0 && tar xzf "$top"/.carry/kforge-cuda.tar.gz && cd kforge-0.1.0 || exit 1
log "build"
(./configure -q --with-cuda="$cuda" --prefix=/tmp/inst && make -j16 && make install) >"$OUT/build.log" 2>&1 \
    || { tail -n 40 "$OUT/build.log"; exit 1; }
grep -A8 'backends:' "$OUT/build.log" | head -8
export PATH=/tmp/inst/bin:$PATH KFORGE_PLUGIN_PATH=/tmp/inst/lib/kforge/plugins XDG_CACHE_HOME=/tmp/cache
nv=$(ldconfig -p | awk '$1 == "libnvidia-opencl.so.1" {print $NF; exit}')
[ -n "$nv" ] || nv=$(ls /usr/local/nvidia/lib64/libnvidia-opencl.so.1 /usr/lib/x86_64-linux-gnu/libnvidia-opencl.so.1 2>/dev/null | head -n1)
mkdir -p /tmp/icd && echo "$nv" >/tmp/icd/nvidia.icd && export OCL_ICD_VENDORS=/tmp/icd
nvidia-smi -L
kforge backends | tee "$OUT/backends.txt"
dev=$(kforge backends --json | python3 -c '
import json,sys
for p in json.load(sys.stdin)["plugins"]:
    if p["name"] == "opencl":
        for i, d in enumerate(p.get("devices", [])):
            if "NVIDIA" in d["name"]: print(i); sys.exit(0)
sys.exit(1)')
log "NVIDIA is opencl device $dev"
log "every built-in cuda candidate of levels 1 and 2 (small preset): verify, fused and baseline"
for p in ${SMALL:-problems/level1/*.json problems/level2/*.json}; do
    b=$(basename $p .json)
    timeout 120 kforge run "$p" --backend cuda --preset small --max-iterations 1 --out /tmp/small-$b >/tmp/small-$b.log 2>&1
    echo "$b exit $? $(grep -m1 -E 'best|verdict' /tmp/small-$b.log | head -c 150)"
done | tee "$OUT/small.txt"
for n in ${PROBLEMS:-09 12 99}; do
    p=$(ls problems/level2/${n}_*.json)
    for be in ${BACKENDS:-cuda opencl}; do
        d=0; [ $be = opencl ] && d=$dev
        log "kforge run $p --backend $be (kernelbench, ${ITER:-3} steps)"
        timeout ${RUN_TIME:-150} kforge run "$p" --backend $be --device $d --preset kernelbench --max-iterations ${ITER:-3} \
            --out /tmp/run-$be-$n >"$OUT/run-$be-$n.log" 2>&1
        echo "exit $?"; tail -n 6 "$OUT/run-$be-$n.log"
        cp /tmp/run-$be-$n/result.json "$OUT/result-$be-$n.json" 2>/dev/null
    done
done
log "PyTorch"
timeout 200 python3 "$top/bench/gpu/torch_baseline.py" "$OUT/torch.json" 9 12 99 2>&1 | tail -8
