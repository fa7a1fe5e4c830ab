#!/bin/sh
# tests/golden/test_golden.sh — each emitter's output for the cases in
# tests/golden/cases equals its checked-in golden file.  On a difference
# the diff's head is printed; if the change is intended, run
# tests/golden/regen.sh and commit the new files.
. "$KF_SRCDIR/tests/e2e/tap.sh"
prog=$KF_BUILDDIR/tests/golden/emit_golden
cases=$(grep -v '^#' "$KF_SRCDIR/tests/golden/cases" | grep -c .)
echo "1..$((cases + 4))"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
while read -r name lang backend problem preset point; do
    case $name in ''|'#'*) continue ;; esac
    out=$tmp/out
    if ! (cd "$KF_SRCDIR" && "$prog" "$lang" "$backend" "$problem" "$preset" "$point") > "$out" 2> "$tmp/err"; then
        no "$name: $lang emitter" "emit_golden failed: $(head -c 300 "$tmp/err")"
    elif ! diff -u "$KF_SRCDIR/tests/golden/$name.golden" "$out" > "$tmp/diff"; then
        no "$name: $lang emitter output equals tests/golden/$name.golden" "$(head -20 "$tmp/diff" | sed 's/^/  /')" \
           "intended? run tests/golden/regen.sh and commit"
    else
        ok "$name: $lang emitter output equals tests/golden/$name.golden"
    fi
done < "$KF_SRCDIR/tests/golden/cases"
# every emitter has golden cases
missing=""
for lang in $("$prog" --languages); do
    grep -v '^#' "$KF_SRCDIR/tests/golden/cases" | awk '{print $2}' | grep -qx "$lang" || missing="$missing $lang"
done
if [ -z "$missing" ]; then ok "every emitter has golden cases"; else no "every emitter has golden cases" "none for:$missing"; fi
# the C goldens build without a warning as the cpu-simd plugin builds them
# (its flags, the compiler's default warnings: what a compile log shows the
# agents and the user), every one for AVX-512 with bf16 and AMX
# (sapphirerapids), the fp32 ones for AVX2 (x86-64-v3) and baseline x86-64
# too, the i16 ones (AVX2's vpmaddwd) for AVX2; front end only
# (-fsyntax-only: the preprocessor's and the parser's warnings).  Skipped on a host whose compiler does not target x86-64.
cc_=${KFORGE_CC:-cc}   # the plugin's compiler (plugins/cpu-simd/compile.c)
if echo 'int x;' | $cc_ -march=sapphirerapids -fsyntax-only -x c - > /dev/null 2>&1; then
    bad=""
    for g in "$KF_SRCDIR"/tests/golden/c/*.golden; do
        awk '/^=== kernel.c$/ {on = 1; next} /^=== / {on = 0} on' "$g" > "$tmp/kernel.c"
        marches=sapphirerapids
        if grep -q '"precision":10' "$g"; then marches="$marches x86-64-v3"
        elif ! grep -q '"precision":[356789]' "$g"; then marches="$marches x86-64-v3 x86-64"; fi
        for m in $marches; do
            $cc_ -std=gnu11 -O3 -march=$m -fopenmp -fsyntax-only -I"$KF_SRCDIR/plugins/cpu-simd" "$tmp/kernel.c" \
                > "$tmp/cc.log" 2>&1
            [ -s "$tmp/cc.log" ] && bad="$bad $(basename "$g") ($m): $(head -c 300 "$tmp/cc.log")"
        done
    done
    if [ -z "$bad" ]; then ok "the C goldens compile for x86-64 (AVX-512, AVX2, SSE2) without a warning"
    else no "the C goldens compile for x86-64 (AVX-512, AVX2, SSE2) without a warning" "$bad"; fi
else
    ok "the C goldens compile for x86-64 (AVX-512, AVX2, SSE2) without a warning # SKIP $cc_ does not target x86-64"
fi
# the C emitter's NEON path: every fp32 C golden compiles for aarch64, its
# GEMM with fmla (not the portable vectors), and the bf16, AMX and i16 ones stop at their
# #error (no AVX512_BF16, AMX or AVX2 there: the search falls back to fp32).  Needs a cross
# compiler ($KF_AARCH64_CC, default aarch64-linux-gnu-gcc, Debian package
# gcc-aarch64-linux-gnu); skipped without one.
xcc=${KF_AARCH64_CC:-aarch64-linux-gnu-gcc}
if command -v "$xcc" > /dev/null 2>&1; then
    bad=""; bf16=""
    for g in "$KF_SRCDIR"/tests/golden/c/*.golden; do
        awk '/^=== kernel.c$/ {on = 1; next} /^=== / {on = 0} on' "$g" > "$tmp/kernel.c"
        if "$xcc" -std=gnu11 -O2 -march=armv8.2-a -fopenmp -S -I"$KF_SRCDIR/plugins/cpu-simd" -o "$tmp/k.s" \
               "$tmp/kernel.c" > "$tmp/cc.log" 2>&1; then
            grep -q '"precision":\([356789]\|10\)' "$g" && bf16="$bf16 $(basename "$g") compiled"
            # the GEMM's micro-kernel (a map or norm kernel need not fuse a multiply-add)
            ! grep -q '^#define KF_MR' "$tmp/kernel.c" || grep -q 'fmla' "$tmp/k.s" || bad="$bad $(basename "$g") (no fmla)"
        elif grep -q '"precision":[39]' "$g"; then
            grep -q 'precision bf16 needs AVX512_BF16' "$tmp/cc.log" || bf16="$bf16 $(basename "$g"): $(head -c 200 "$tmp/cc.log")"
        elif grep -q '"precision":[5678]' "$g"; then
            grep -q 'precision amx-bf16 needs AMX' "$tmp/cc.log" || bf16="$bf16 $(basename "$g"): $(head -c 200 "$tmp/cc.log")"
        elif grep -q '"precision":10' "$g"; then
            grep -q 'precision i16 needs AVX2' "$tmp/cc.log" || bf16="$bf16 $(basename "$g"): $(head -c 200 "$tmp/cc.log")"
        else
            bad="$bad $(basename "$g"): $(head -c 300 "$tmp/cc.log")"
        fi
    done
    if [ -z "$bad" ]; then ok "the fp32 C goldens compile for aarch64 with NEON fmla ($xcc)"
    else no "the fp32 C goldens compile for aarch64 with NEON fmla ($xcc)" "$bad"; fi
    if [ -z "$bf16" ]; then ok "the bf16, AMX and i16 C goldens stop at their #error on aarch64"
    else no "the bf16, AMX and i16 C goldens stop at their #error on aarch64" "$bf16"; fi
else
    ok "the fp32 C goldens compile for aarch64 with NEON fmla # SKIP no $xcc (apt-get install gcc-aarch64-linux-gnu)"
    ok "the bf16, AMX and i16 C goldens stop at their #error on aarch64 # SKIP no $xcc"
fi
tap_exit
