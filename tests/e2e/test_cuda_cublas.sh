#!/bin/bash
# tests/e2e/test_cuda_cublas.sh — the cuda plugin's library launches
# ("cublas:sgemm", plugins/cuda/kf-cuda.md) from the CLI with no GPU: kforge
# verify --compile-only --arch sm_90 runs the plugin in its sandboxed worker,
# which checks every library launch against the problem's buffers.
#  1     a row-major GEMM with B transposed (problem 17) compiles and its
#        launch is reported valid
#  2-5   the refusals, each a compile error that says what is wrong: a leading
#        dimension below the stored row length, a buffer too small for M,
#        an unknown library name, a wrong argument count
#  6-7   bench/gpu/cublas_anchors.py: --list finds the Level-1 GEMMs (and no
#        other problem); --compile-only writes FP32 and TF32 candidates for
#        each that all compile, with B^T's leading dimension K
# Skipped (and says why) where the cuda plugin is not built or NVRTC is missing.
set -u
. "$KF_SRCDIR/tests/e2e/tap.sh"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
P="$KF_SRCDIR/problems/level1/17_Matmul_with_transposed_B.json"
echo "1..7"
skipall() { for i in $(seq 1 7); do n=$((n+1)); echo "ok $n - cublas case $i # SKIP $1"; done; tap_exit; }
"$KFORGE" backends 2>/dev/null | grep -q '^cuda ' || skipall "the cuda plugin is not built here"
has() { grep -q -- "$2" "$1"; }
# cand DIR KERNEL ARGS...: a candidate whose only launch is KERNEL with the JSON args
cand() {
    local d=$1 k=$2; shift 2
    mkdir -p "$d"; echo '/* library launch only */' >"$d/anchor.cu"
    local IFS=,
    printf '{"backend": "cuda", "sources": ["anchor.cu"], "launches": [{"kernel": "%s", "global": [1], "args": [%s]}]}\n' \
        "$k" "$*" >"$d/candidate.json"
}
cv() { "$KFORGE" verify --compile-only --arch sm_90 --backend cuda --problem "$P" --preset small "$1" >"$tmp/o" 2>&1; }
# problem 17 (small): A 127 x 250, B 333 x 250 (transposed), y 127 x 333
ok_args=('"A"' '"B"' '"y"' '{"int":"M"}' '{"int":"N"}' '{"int":"K"}' 0 1 '{"int":"K"}' '{"int":"K"}' '{"int":"N"}'
         '{"float":1.0}' '{"float":0.0}')
cand "$tmp/ok" cublas:sgemm "${ok_args[@]}"
cv "$tmp/ok"; rc=$?
if [ $rc -ne 0 ] && grep -q "libnvrtc.* not found" "$tmp/o"; then skipall "NVRTC is missing here"; fi
[ $rc -eq 0 ] && has "$tmp/o" "its 1 cuBLAS launch(es) are valid for the problem's buffers" \
    && ok "cublas:sgemm with B transposed compiles for sm_90, its launch checked" \
    || no "cublas:sgemm with B transposed compiles" "rc=$rc" "$(cat "$tmp/o")"
# refusal NAME DIR WANT: a compile error (exit 1) whose message contains WANT
refusal() {
    cv "$2"; local rc=$?
    [ $rc -eq 1 ] && has "$tmp/o" "compile-error" && has "$tmp/o" "$3" && ok "$1" || no "$1" "rc=$rc" "$(cat "$tmp/o")"
}
a=("${ok_args[@]}"); a[9]=249; cand "$tmp/ld" cublas:sgemm "${a[@]}"   # ldb < K: B^T's rows are K long
refusal "a leading dimension below the stored row length is refused" "$tmp/ld" \
    "ldb = 249; it must be at least the stored row length 250"
a=("${ok_args[@]}"); a[3]=128; cand "$tmp/big" cublas:sgemm "${a[@]}"
refusal "a buffer too small for M is refused" "$tmp/big" "A (input 'A') has 31750 elements but 128 x 250 with ld 250 needs 32000"
cand "$tmp/name" cublas:dgemm "${ok_args[@]}"
refusal "an unknown library name is refused" "$tmp/name" "'cublas:dgemm' is not a library this plugin calls"
cand "$tmp/count" cublas:sgemm_batched "${ok_args[@]}"
refusal "a wrong argument count is refused" "$tmp/count" "13 arguments; it takes 17"

PY=${PYTHON3:-python3}
"$PY" "$KF_SRCDIR/bench/gpu/cublas_anchors.py" - "$KF_SRCDIR/problems/level1" --list >"$tmp/list" 2>&1
got=$(sed 's|.*/||' "$tmp/list" | tr '\n' ' ')
[ "$got" = "01_Square_matrix_multiplication.json 02_Standard_matrix_multiplication.json 04_Matrix_vector_multiplication.json 08_Matmul_with_irregular_shapes.json 17_Matmul_with_transposed_B.json " ] \
    && ok "cublas_anchors.py --list finds the Level-1 GEMMs" || no "cublas_anchors.py --list" "got: $got"
"$PY" "$KF_SRCDIR/bench/gpu/cublas_anchors.py" "$tmp/anchors.json" "$KF_SRCDIR/problems/level1" --compile-only \
    --preset small --kforge "$KFORGE" --work "$tmp/w" >"$tmp/an" 2>&1; rc=$?
rj=$("$PY" -c 'import json,sys
d = json.load(open(sys.argv[1]))["problems"]; p = d["17_Matmul_with_transposed_B"]
c = json.load(open(sys.argv[2]))["launches"][0]
print(len(d), all(e["fp32_verdict"] == e["tf32_verdict"] == "compiled" for e in d.values()), p["trans_b"],
      c["kernel"], c["args"][7], c["args"][9])' "$tmp/anchors.json" "$tmp/w/17_Matmul_with_transposed_B/tf32/candidate.json" 2>&1)
[ $rc -eq 0 ] && [ "$rj" = "5 True True cublas:gemm_tf32 1 {'int': 250}" ] \
    && ok "cublas_anchors.py --compile-only: FP32 and TF32 candidates of the 5 GEMMs all compile" \
    || no "cublas_anchors.py --compile-only" "rc=$rc got: $rj" "$(tail -n 8 "$tmp/an")"
tap_exit
