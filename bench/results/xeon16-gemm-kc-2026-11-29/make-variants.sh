#!/bin/sh
# The kernels call.sh times (.carry/kc/*.txt on the device's copy of the
# tree): emit_golden's problem-9 kernel at the cpu preset, column order,
# MC 516, for KC 512 (the 16-core host's default: A's 12 x KC micro-panel in
# half of its 48 KiB L1), 1024 and 2048 (B's KC x 128 block in half of its
# 2 MiB L2, fp32 and bf16), NC 128, fp32 (f*) and bf16 on vdpbf16ps (b*).
# Run from the source tree with a configured build in $KF_BUILDDIR
# (default /tmp/bld).
set -eu
B=${KF_BUILDDIR:-/tmp/bld}; P9=$(ls problems/level2/09_*.json); D=${1:-.carry/kc}
mkdir -p "$D"
pt() { echo "{\"fusion\":2,\"precision\":$1,\"mc\":516,\"nc\":128,\"kc\":$2,\"mr\":12,\"nr\":32,\"pack\":1,\"threads\":0,\"loop_order\":1}"; }
for kc in 512 1024 2048; do
    "$B/tests/golden/emit_golden" c cpu-simd "$P9" cpu "$(pt 0 $kc)" > "$D/f$kc.txt"
    "$B/tests/golden/emit_golden" c cpu-simd "$P9" cpu "$(pt 3 $kc)" > "$D/b$kc.txt"
done
