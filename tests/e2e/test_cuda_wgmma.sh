#!/bin/bash
# tests/e2e/test_cuda_wgmma.sh — the cuda-c emitter's Hopper wgmma GEMM
# (core/agent/builtin/emit/cuda_gemm_wgmma.c) compiled offline through the
# CLI, with no GPU: the candidate of tests/golden/cuda-c/09_wgmma_bf16.golden
# (problem 9 at the kernelbench preset, BF16 wgmma 128x256) and of
# 09_wgmma_tf32_128.golden (TF32 wgmma 128x128)
#  1-2   each compiles with kforge verify --compile-only --arch sm_90a
#  3     for plain sm_90 the candidate's guard stops NVRTC with a message
#        that names sm_90a (a compile error, exit 1)
#  4     kforge backends lists sm_90a among the cuda plugin's offline targets
#  5-6   09_wgmma_tma_bf16 / 09_wgmma_tma_tf32 (tc_wgmma 2: tiles loaded by TMA
#        through tensor maps, plan ABI 1.5) compile for sm_90a and pass their
#        tensor maps' checks
#  7     the BF16 TMA candidate with its A map one row taller than its scratch
#        buffer is refused at compile (exit 1) with the plugin's one line
#  8     ... and with an inner box wider than the 128-byte swizzle
# Skipped (and says why) where the cuda plugin is not built or NVRTC is missing.
set -u
. "$KF_SRCDIR/tests/e2e/tap.sh"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
P="$KF_SRCDIR/problems/level2/09_Matmul_Subtract_Multiply_ReLU.json"
echo "1..8"
skipall() { for i in $(seq 1 8); do n=$((n+1)); echo "ok $n - wgmma case $i # SKIP $1"; done; tap_exit; }
"$KFORGE" backends >"$tmp/backends" 2>&1
grep -q '^cuda ' "$tmp/backends" || skipall "the cuda plugin is not built here"
# unpack GOLDEN DIR: the golden file's candidate.json and kernel.cu
unpack() {
    mkdir -p "$2"
    awk -v d="$2" '/^=== / {f = d "/" $2; next} f {print > f}' "$1"
}
cv() { "$KFORGE" verify --compile-only --arch "$1" --backend cuda --problem "$P" --preset kernelbench "$2" >"$tmp/o" 2>&1; }
unpack "$KF_SRCDIR/tests/golden/cuda-c/09_wgmma_bf16.golden" "$tmp/bf16"
unpack "$KF_SRCDIR/tests/golden/cuda-c/09_wgmma_tf32_128.golden" "$tmp/tf32"
cv sm_90a "$tmp/bf16"; rc=$?
if [ $rc -ne 0 ] && grep -q "libnvrtc.* not found" "$tmp/o"; then skipall "NVRTC is missing here"; fi
[ $rc -eq 0 ] && grep -q "kf_wgmma_bf16_n256(d" "$tmp/bf16/kernel.cu" \
    && ok "the BF16 wgmma candidate compiles for sm_90a" || no "the BF16 wgmma candidate compiles for sm_90a" "rc=$rc" "$(head -c 2000 "$tmp/o")"
cv sm_90a "$tmp/tf32"; rc=$?
[ $rc -eq 0 ] && grep -q "kf_wgmma_tf32_n128(d" "$tmp/tf32/kernel.cu" \
    && ok "the TF32 wgmma candidate compiles for sm_90a" || no "the TF32 wgmma candidate compiles for sm_90a" "rc=$rc" "$(head -c 2000 "$tmp/o")"
cv sm_90 "$tmp/bf16"; rc=$?
[ $rc -eq 1 ] && grep -q "compile-error" "$tmp/o" && grep -q "compile it for sm_90a" "$tmp/o" \
    && ok "for sm_90 the guard stops it and names sm_90a" || no "for sm_90 the guard stops it" "rc=$rc" "$(head -c 2000 "$tmp/o")"
grep -A8 '^cuda ' "$tmp/backends" | grep -q "compile only.* sm_90a " \
    && ok "kforge backends lists sm_90a" || no "kforge backends lists sm_90a" "$(grep -A8 '^cuda ' "$tmp/backends")"
unpack "$KF_SRCDIR/tests/golden/cuda-c/09_wgmma_tma_bf16.golden" "$tmp/tma_bf16"
unpack "$KF_SRCDIR/tests/golden/cuda-c/09_wgmma_tma_tf32.golden" "$tmp/tma_tf32"
for v in bf16 tf32; do
    cv sm_90a "$tmp/tma_$v"; rc=$?
    [ $rc -eq 0 ] && grep -q "kf_tma_2d(sa, &tm_0" "$tmp/tma_$v/kernel.cu" && grep -q '"tensor_map"' "$tmp/tma_$v/candidate.json" \
        && ok "the $v TMA wgmma candidate compiles for sm_90a" || no "the $v TMA wgmma candidate compiles for sm_90a" "rc=$rc" "$(head -c 2000 "$tmp/o")"
done
# the A map of the BF16 candidate covers a_bf16 (1024 x 8192 bf16); one row more reaches past it
# tamper DIR FIELD I V: the BF16 TMA candidate with field[I] of its A map (over a_bf16) set to V
tamper() {
    ${PYTHON3:-python3} - "$tmp/tma_bf16/candidate.json" "$1/candidate.json" "$2" "$3" "$4" <<'PY'
import json, os, shutil, sys
src, dst, field, i, v = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
os.makedirs(os.path.dirname(dst), exist_ok=True)
shutil.copy(os.path.join(os.path.dirname(src), "kernel.cu"), os.path.dirname(dst))
c = json.load(open(src))
for l in c["launches"]:
    for a in l["args"]:
        if isinstance(a, dict) and "tensor_map" in a and a["tensor_map"]["buffer"] == "a_bf16":
            a["tensor_map"][field][i] = v
json.dump(c, open(dst, "w"))
PY
}
tamper "$tmp/tall" dims 1 1025
cv sm_90a "$tmp/tall"; rc=$?
[ $rc -eq 1 ] && grep -q "tensor_maps\[0\] (scratch buffer 0): reaches 16793600 bytes but the buffer has 16777216; a tensor map may cover its own buffer only" "$tmp/o" \
    && ok "a map past its buffer is refused at compile" || no "a map past its buffer is refused at compile" "rc=$rc" "$(head -c 2000 "$tmp/o")"
tamper "$tmp/wide" box 0 128
cv sm_90a "$tmp/wide"; rc=$?
[ $rc -eq 1 ] && grep -q "box\[0\] = 128 elements is 256 bytes, more than the 128-byte swizzle span" "$tmp/o" \
    && ok "an inner box wider than the swizzle is refused at compile" || no "an inner box wider than the swizzle is refused" "rc=$rc" "$(head -c 2000 "$tmp/o")"
tap_exit
