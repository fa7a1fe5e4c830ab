#!/bin/sh
# The kernels call.sh times (.carry/amxkc/*.txt on the device's copy of the
# tree): emit_golden's problem-9 kernel at the cpu preset, AMX group (column
# order, MC 128, 32 x 32 tiles), bf16 (a*) at KC 4096 (all of K: C stays in
# the tiles, the search's starting point), 1024, 512, 256 (C through memory
# between depth blocks) and NC 64 / 256 at KC 4096; 3xbf16 (x*) at KC 4096,
# 1024, 512.  Run from the source tree with a configured build in
# $KF_BUILDDIR (default /tmp/bld).
set -eu
B=${KF_BUILDDIR:-/tmp/bld}; P9=$(ls problems/level2/09_*.json); D=${1:-.carry/amxkc}
mkdir -p "$D"
pt() { echo "{\"fusion\":2,\"precision\":$1,\"mc\":128,\"nc\":$3,\"kc\":$2,\"mr\":32,\"nr\":32,\"pack\":1,\"threads\":0,\"loop_order\":1}"; }
for kc in 4096 1024 512 256; do "$B/tests/golden/emit_golden" c cpu-simd "$P9" cpu "$(pt 5 $kc 128)" > "$D/a$kc.txt"; done
for kc in 4096 1024 512; do "$B/tests/golden/emit_golden" c cpu-simd "$P9" cpu "$(pt 6 $kc 128)" > "$D/x$kc.txt"; done
"$B/tests/golden/emit_golden" c cpu-simd "$P9" cpu "$(pt 5 4096 64)" > "$D/a4096n64.txt"
"$B/tests/golden/emit_golden" c cpu-simd "$P9" cpu "$(pt 5 4096 256)" > "$D/a4096n256.txt"
