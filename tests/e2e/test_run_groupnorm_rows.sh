#!/bin/bash
# GroupNorm rows with small groups (core/agent/builtin/emit/builtin_cpu.c,
# KF_GN_SMALL_GROUP): 88 (5 channels a group at the small preset) and 62 (3),
# in GEMM row panels (fusion 2) and as a pass of their own (fusion 1), through
# `kforge run --agent builtin:POINT` on cpu-simd: the statistics vectorised
# across the groups are emitted, the tail's operand is read off the row
# index o, and the kernel passes verification against the reference.
set -u
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
. "$KF_SRCDIR/tests/e2e/tap.sh"
echo "1..4"
export XDG_CACHE_HOME="$tmp/cache"
for prob in 88_Gemm_GroupNorm_Swish_Multiply_Swish 62_Matmul_GroupNorm_LeakyReLU_Sum; do
    for fusion in 2 1; do
        name="$prob, fusion $fusion: small groups vectorised across the groups, verified"
        out="$tmp/$prob-$fusion"
        "$KFORGE" run "$KF_SRCDIR/problems/level2/$prob.json" --backend cpu-simd --preset small --no-baseline \
            --max-iterations 1 --agent "builtin:{\"fusion\":$fusion,\"precision\":0}" --out "$out" >"$out.log" 2>&1
        rc=$?
        k="$out/steps/0001-0/candidate/kernel.c"
        verdict=$("$PYTHON3" -c 'import json,sys; print(json.load(open(sys.argv[1]))["verdict"])' "$out/steps/0001-0/verdict.json" 2>&1)
        # 88's tail multiplies by w (one value per channel): indexed by o, no division of the flat index
        tail_ok=1
        [ "$prob" = 88_Gemm_GroupNorm_Swish_Multiply_Swish ] && ! grep -q 'const int64_t ro3 = 0 + (o / 1) \* 1;' "$k" && tail_ok=0
        if [ $rc -eq 0 ] && [ "$verdict" = pass ] && grep -q 'across the groups' "$k" && [ $tail_ok -eq 1 ]; then ok "$name"
        else no "$name" "exit $rc, verdict $verdict, tail indexed by o: $tail_ok" "$(tail -n 8 "$out.log")"; fi
    done
done
tap_exit
