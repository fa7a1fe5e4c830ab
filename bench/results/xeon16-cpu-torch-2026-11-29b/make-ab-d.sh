#!/bin/sh
# The kernels call-d.sh times (.carry/abd): the skinny order on AMX (56 and 68 as the second
# call's suite chose them: bf16 tiles, loop_order 2, mc 192, nc 32, epilogue fused) at kc 2720
# (fef8a22's rule, which the skinny order takes too: K = 4096 in blocks of 2720 and 1376),
# 4096 (all of K: what the AMX neighbour took before fef8a22) and 2048 (two even blocks).
# From this tree's emitter; run from the source tree with a configured build in $KF_BUILDDIR
# (default /tmp/bld).
set -eu
B=${KF_BUILDDIR:-/tmp/bld}; D=${1:-.carry/abd}
for n in 56 68; do P=$(ls problems/level2/${n}_*.json); for kc in 2720 4096 2048; do
    o=$D/p$n-kc$kc; mkdir -p "$o"
    "$B/tests/golden/emit_golden" c cpu-simd "$P" cpu "{\"backend\":\"cpu-simd\",\"baseline\":0,\"fusion\":1,\"precision\":5,\"mc\":192,\"nc\":32,\"kc\":$kc,\"mr\":32,\"nr\":32,\"pack\":1,\"threads\":0,\"loop_order\":2,\"unroll\":1,\"stream\":0}" > "$o/g.txt"
    awk '/^=== candidate.json$/ {on=1; next} /^=== / {on=0} on' "$o/g.txt" > "$o/candidate.json"
    awk '/^=== kernel.c$/ {on=1; next} /^=== / {on=0} on' "$o/g.txt" > "$o/kernel.c"
    rm "$o/g.txt"
done; done
