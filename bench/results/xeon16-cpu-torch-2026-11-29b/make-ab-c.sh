#!/bin/sh
# The kernels call-c.sh times (.carry/abc): the rule's edges after fef8a22: 33's 2xbf16 point
# (as the first call's suite chose it: mc 256, nc 128, column order, epilogue fused) at kc
# 2048 (the rule: all of K) and 1024; 62's and 88's 3xbf16 point (make-ab.sh's) at 1344 (the
# rule: two blocks of 1024) and 672 (three of 704).  From this tree's emitter; run from the
# source tree with a configured build in $KF_BUILDDIR (default /tmp/bld).
set -eu
B=${KF_BUILDDIR:-/tmp/bld}; D=${1:-.carry/abc}
pt() { echo "{\"backend\":\"cpu-simd\",\"baseline\":0,\"fusion\":1,\"precision\":$1,\"mc\":$2,\"nc\":$3,\"kc\":$4,\"mr\":32,\"nr\":32,\"pack\":1,\"threads\":0,\"loop_order\":1,\"unroll\":1,\"stream\":0}"; }
mk() {   # NAME PROBLEM POINT
    o=$D/$1; mkdir -p "$o"
    "$B/tests/golden/emit_golden" c cpu-simd "$2" cpu "$3" > "$o/g.txt"
    awk '/^=== candidate.json$/ {on=1; next} /^=== / {on=0} on' "$o/g.txt" > "$o/candidate.json"
    awk '/^=== kernel.c$/ {on=1; next} /^=== / {on=0} on' "$o/g.txt" > "$o/kernel.c"
    rm "$o/g.txt"
}
P33=$(ls problems/level2/33_*.json)
for kc in 2048 1024; do mk p33-kc$kc "$P33" "$(pt 7 256 128 $kc)"; done
for n in 62 88; do P=$(ls problems/level2/${n}_*.json); for kc in 1344 672; do mk p$n-kc$kc "$P" "$(pt 6 128 256 $kc)"; done; done
