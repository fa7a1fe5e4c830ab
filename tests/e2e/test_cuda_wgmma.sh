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
# Skipped (and says why) where the cuda plugin is not built or NVRTC is missing.
set -u
. "$KF_SRCDIR/tests/e2e/tap.sh"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
P="$KF_SRCDIR/problems/level2/09_Matmul_Subtract_Multiply_ReLU.json"
echo "1..4"
skipall() { for i in $(seq 1 4); do n=$((n+1)); echo "ok $n - wgmma case $i # SKIP $1"; done; tap_exit; }
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
tap_exit
