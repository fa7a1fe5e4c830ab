#!/bin/sh
# The kernels call.sh's PART=ab1 times (.carry/ab3): 62's and 88's 3xbf16 point as the
# 16-core suites chose it (../xeon16-cpu-torch-2026-11-29, best-t1 / best-t4: mc 128, nc 256,
# kc 4096, 32 x 32, column order, epilogue fused) and the same at kc 1344 (the rule of
# fef8a22 on a 2 MiB L2), both from this tree's emitter.  Run from the source tree with a
# configured build in $KF_BUILDDIR (default /tmp/bld).
set -eu
B=${KF_BUILDDIR:-/tmp/bld}; D=${1:-.carry/ab3}
for n in 62 88; do P=$(ls problems/level2/${n}_*.json); for kc in 4096 1344; do
    o=$D/p$n-kc$kc; mkdir -p "$o"
    "$B/tests/golden/emit_golden" c cpu-simd "$P" cpu "{\"backend\":\"cpu-simd\",\"baseline\":0,\"fusion\":1,\"precision\":6,\"mc\":128,\"nc\":256,\"kc\":$kc,\"mr\":32,\"nr\":32,\"pack\":1,\"threads\":0,\"loop_order\":1,\"unroll\":1,\"stream\":0}" > "$o/g.txt"
    awk '/^=== candidate.json$/ {on=1; next} /^=== / {on=0} on' "$o/g.txt" > "$o/candidate.json"
    awk '/^=== kernel.c$/ {on=1; next} /^=== / {on=0} on' "$o/g.txt" > "$o/kernel.c"
    rm "$o/g.txt"
done; done
