#!/bin/bash
# The C emitter's AVX2 GEMM (the cpu-simd fallback where AVX-512 is
# missing) on a host that has AVX-512: KFORGE_CC is a wrapper that compiles
# every candidate with -march=x86-64-v3 (AVX2 + FMA, no AVX-512) instead of
# -march=native and counts the zmm and ymm FMAs of the object it wrote.
# Candidates from AVX2 tiles verify at the `small` preset (127 x 250 -> 333:
# rows past the last MR panel, columns past the last NR panel, k tails of
# the 8 x 8 packing transposes), in both GEMM loop orders and with row
# panels, and the code that ran has ymm FMAs and no zmm register.
# Skipped where the CPU has no AVX2 and FMA.  The runs are unsandboxed
# (--sandbox off): the sandbox's Landlock layer runs compilers only from
# the system's folders and lets nothing write outside the work directory,
# and the wrapper lives in this test's folder and writes its log there.
set -u
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
. "$KF_SRCDIR/tests/e2e/tap.sh"
export XDG_CACHE_HOME="$tmp/cache"
p12="$KF_SRCDIR/problems/level2/12_Gemm_Multiply_LeakyReLU.json"
p99="$KF_SRCDIR/problems/level2/99_Matmul_GELU_Softmax.json"
# name problem point (precision 0 named: where the host's probe makes bf16 the
# default, as on Zen 4, its vdpbf16ps kernel has no AVX2 form)
cases=(
    "column-block order, 6x16, kc 96|$p12|{\"fusion\":1,\"precision\":0,\"mr\":6,\"nr\":16,\"kc\":96,\"nc\":128,\"loop_order\":1}"
    "block order, 4x24, kc 100|$p12|{\"fusion\":1,\"precision\":0,\"mr\":4,\"nr\":24,\"kc\":100,\"mc\":48,\"nc\":96,\"loop_order\":0}"
    "row panels with softmax, 12x8, kc 250|$p99|{\"fusion\":2,\"precision\":0,\"mr\":12,\"nr\":8,\"kc\":384,\"mc\":72,\"nc\":256,\"loop_order\":0}"
)
echo "1..$((2 * ${#cases[@]}))"
if ! grep -qw avx2 /proc/cpuinfo || ! grep -qw fma /proc/cpuinfo; then
    for c in "${cases[@]}"; do
        ok "${c%%|*}: verifies # SKIP this CPU has no AVX2 and FMA"
        ok "${c%%|*}: ymm FMAs, no zmm # SKIP this CPU has no AVX2 and FMA"
    done
    tap_exit
fi
cat > "$tmp/cc-avx2" <<EOF
#!/bin/sh
# cc with -march=native replaced by -march=x86-64-v3; logs the FMAs of its output
out=""; prev=""
for a in "\$@"; do
    shift
    case \$a in -march=native) a=-march=x86-64-v3 ;; esac
    [ "\$prev" = "-o" ] && out=\$a
    prev=\$a
    set -- "\$@" "\$a"
done
${KFORGE_CC:-cc} "\$@" || exit \$?
case \$out in
*.so) echo "zmm \$(objdump -d "\$out" | grep -c '%zmm') ymmfma \$(objdump -d "\$out" | grep -c 'vfmadd[0-9]*ps.*%ymm')" >> "$tmp/fma.log" ;;
esac
EOF
chmod +x "$tmp/cc-avx2"
i=0
for c in "${cases[@]}"; do
    name=${c%%|*} rest=${c#*|}
    prob=${rest%%|*} point=${rest#*|}
    i=$((i + 1))
    : > "$tmp/fma.log"
    KFORGE_CC="$tmp/cc-avx2" "$KFORGE" run "$prob" --backend cpu-simd --agent "builtin:$point" --out "$tmp/run$i" \
        --no-baseline --max-iterations 1 --sandbox off > "$tmp/out$i" 2>&1
    rc=$?
    if [ $rc -eq 0 ] && grep -q 'best kernel:' "$tmp/out$i"; then ok "$name: verifies"
    else no "$name: verifies" "exit $rc" "$(tail -n 15 "$tmp/out$i")"; fi
    if [ -s "$tmp/fma.log" ] && ! grep -qv '^zmm 0 ymmfma [1-9]' "$tmp/fma.log"; then ok "$name: ymm FMAs, no zmm"
    else no "$name: ymm FMAs, no zmm" "$(cat "$tmp/fma.log")"; fi
done
tap_exit
