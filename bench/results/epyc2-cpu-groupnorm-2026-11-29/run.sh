#!/bin/bash
# Problem 35's streamed GroupNorm kernel (cpu preset, 16 x 64 x 16384, the point {"fusion":2,"stream":1})
# before and after the next group's L2 prefetch (k35_before.c: the emitter at c9c31eb; k35_after.c: with
# the prefetch in its output loop), beside the streaming copy ref_nt over the same buffers, in the harness
# of ../epyc2-cpu-membound-2026-11-29/harness (h2.c: kforge's buffer conditions, medians of 21
# calls, the kernels in turns), 2 threads, 3 rounds; then 1 thread.
set -u
H=$(cd "$(dirname "$0")" && pwd); M=$H/../epyc2-cpu-membound-2026-11-29/harness; T=/tmp/gn35; mkdir -p $T
CF="-std=gnu11 -O3 -march=native -fopenmp -fPIC -shared -I$H/../../../plugins/cpu-simd"
gcc -O2 $M/h2.c -I$H/../../../plugins/cpu-simd -ldl -o $T/h2
gcc $CF $M/ref_nt.c -o $T/ref_nt.so
gcc $CF $H/k35_before.c -o $T/before.so -lm
gcc $CF $H/k35_after.c -o $T/after.so -lm
cd $T; date -u +%T; uptime
for r in 1 2 3; do echo "== round $r, 2 threads"; ./h2 16,64,16384 2 21 ./ref_nt.so ./before.so ./after.so; done
echo "== 1 thread"; ./h2 16,64,16384 1 11 ./ref_nt.so ./before.so ./after.so
date -u +%T; uptime
