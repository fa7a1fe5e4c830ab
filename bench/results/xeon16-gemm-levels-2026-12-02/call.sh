#!/bin/bash
# device call (issue 15, 2026-12-02 fifth session), 16-core host: where the fp32 GEMM's share goes.
# (1) bench/cpu_gemm/study/ukernel_levels.c: the emitted micro-kernel alone with its data in L1,
#     streaming from L2 in the GEMM's order, with C at the problem's 8 KiB row stride, beside the
#     FMA peak in the same rounds, at 16, 8 and 1 threads, for 12 x 32 (the default), 14 x 32 and 6 x 64;
# (2) problem 9 at the cpu preset through bench/cpu_gemm/micro.sh at 16 threads, GROUNDS rounds:
#     the host's default fp32 point, the same with each tile's C prefetched into L2 before its
#     depth block (cpf), 14 x 32 and 6 x 64 at the same blocking, OpenBLAS beside them.
# TARBALL: `make dist` of a commit whose C GEMM emitter is this tree's (.carry/, git-excluded).
set -u
D=bench/results/xeon16-gemm-levels-2026-12-02
{ echo "== $(date +%T) start"; uptime; lscpu | grep -E 'Model name|^CPU\(s\)|Model:|L2|L3'
  TARBALL=$PWD/$TARBALL MODE=exec CMD='
    set -u; cd '"$PWD"'
    P9=$(ls problems/level2/09_*.json); make -C $KF_BUILD tests/golden/emit_golden > /dev/null 2>&1 || echo "emit_golden: build failed"
    E=$KF_BUILD/tests/golden/emit_golden; W=/tmp/gl; mkdir -p $W
    $E c cpu-simd $P9 cpu "{\"precision\":0}" > $W/base.txt
    head -3 $W/base.txt
    blk=$(sed -n "2s/.*\"mc\":\([0-9]*\),\"nc\":\([0-9]*\),\"kc\":\([0-9]*\).*/\2 \3/p" $W/base.txt); set -- $blk; NC=$1 KC=$2
    echo "host default: NC $NC KC $KC"
    python3 - $W/base.txt $W/cpf.txt <<PY
import sys
s = open(sys.argv[1]).read()
old = "    float *c = dst + (r0 - dst_r0) * 2048 + j0;\n"
new = old + "    if (!first)\n        for (int64_t i = 0; i < mr; i++)\n            for (int64_t l = 0; l < nr; l += 16) __builtin_prefetch((const void *)(c + i * 2048 + l), 0, 2);\n"
assert s.count(old) == 1, "group0_tile not found"
open(sys.argv[2], "w").write(s.replace(old, new))
PY
    pt() { echo "{\"fusion\":2,\"precision\":0,\"mc\":$1,\"nc\":$NC,\"kc\":$KC,\"mr\":$2,\"nr\":$3,\"pack\":1,\"threads\":0,\"loop_order\":1,\"unroll\":1}"; }
    $E c cpu-simd $P9 cpu "$(pt 518 14 32)" > $W/m14.txt; $E c cpu-simd $P9 cpu "$(pt 516 6 64)" > $W/m6n64.txt
    for v in base m14 m6n64; do
      awk "/^=== kernel.c\$/ {on = 1; next} /^=== / {on = 0} on" $W/$v.txt > $W/$v.c
      gcc -O3 -march=native -fopenmp -I plugins/cpu-simd -DKERNEL="\"$W/$v.c\"" bench/cpu_gemm/study/ukernel_levels.c -o $W/ul_$v 2> $W/ul_$v.err || { echo "ul_$v: build failed"; tail -5 $W/ul_$v.err; }
    done
    cp $W/*.txt $OUT/ 2>/dev/null
    echo "== $(date +%T) ukernel levels"
    for nt in 16 8 1; do for v in base m14 m6n64; do
      nb=$((128 / $(sed -n "s/^#define KF_NR \([0-9]*\)/\1/p" $W/$v.c | head -1))); [ $nb -lt 1 ] && nb=1
      OMP_PROC_BIND=close OMP_WAIT_POLICY=passive timeout 120 $W/ul_$v $nt ${UROUNDS:-7} $KC $nb
    done; done 2>&1 | tee $OUT/levels.txt
    for r in $(seq '"${GROUNDS:-6}"'); do
      echo "== $(date +%T) GEMM round $r"
      OPENBLAS_THREAD_TIMEOUT=4 OMP_WAIT_POLICY=passive KF_BUILDDIR=$KF_BUILD timeout 100 bash bench/cpu_gemm/micro.sh $P9 cpu 16 '"${GREPS:-60}"' \
        base=@$W/base.txt cpf=@$W/cpf.txt m14=@$W/m14.txt m6n64=@$W/m6n64.txt 2>&1 | grep -v "^ \|warning\|~~~\|In function\|^/tmp"
    done | tee $OUT/gemm.txt
    echo "== $(date +%T) end"; uptime
  ' bash bench/gpu/run_gpu_suite.sh
} 2>&1 | grep -v "^cpu-simd\|^cuda\|^opencl\|^skipped\|^sandbox\|^search\|^  device\|^    \|^  plugin\|^  compile" | tee $OUT/call.txt
rm -f $OUT/build.log $OUT/backends.txt $OUT/gpu.txt
ls -la $OUT
