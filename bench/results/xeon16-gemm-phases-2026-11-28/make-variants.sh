#!/bin/bash
# The kernels call15.sh and call16.sh ran (.carry/ph/*.txt on the device's
# copy of the tree): emit_golden's problem-9 kernel at the cpu preset for
# three points, edited by bench/cpu_gemm/study/phases.py.  Run from the
# source tree with a configured build in $KF_BUILDDIR (default /tmp/bld).
set -eu
B=${KF_BUILDDIR:-/tmp/bld}; S=bench/cpu_gemm/study; P9=$(ls problems/level2/09_*.json); D=${1:-.carry/ph}
mkdir -p "$D"
pt() { echo "{\"fusion\":2,\"precision\":0,\"mc\":$1,\"nc\":$2,\"kc\":$3,\"mr\":$4,\"nr\":$5,\"pack\":1,\"threads\":0,\"loop_order\":1,\"unroll\":${6:-1}}"; }
"$B/tests/golden/emit_golden" c cpu-simd "$P9" cpu "$(pt 516 512 512 12 32)" > "$D/base.txt"
"$B/tests/golden/emit_golden" c cpu-simd "$P9" cpu "$(pt 516 512 512 12 32 4)" > "$D/u4.txt"
"$B/tests/golden/emit_golden" c cpu-simd "$P9" cpu "$(pt 516 512 256 12 32)" > "$D/k256.txt"
for g in 2 4; do python3 $S/phases.py "$D/base.txt" "$D/rg$g.txt" rowgroups $g; done
python3 $S/phases.py "$D/base.txt" "$D/apf0.txt" aprefetch 0 2
python3 $S/phases.py "$D/base.txt" "$D/apf2.txt" aprefetch 2 2
python3 $S/phases.py "$D/base.txt" "$D/apf1l3.txt" aprefetch 1 3
python3 $S/phases.py "$D/base.txt" "$D/apf1l1.txt" aprefetch 1 1
for v in base u4 k256 rg2 rg4 apf0 apf2; do python3 $S/phases.py "$D/$v.txt" "$D/ph-$v.txt" phases $v; done
