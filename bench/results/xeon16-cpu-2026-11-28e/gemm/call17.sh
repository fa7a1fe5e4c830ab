#!/bin/bash
# device call: problem 9's fp32 kernel before / after the 16 x 16 packing (bench/results/xeon2-pack-2026-11-28's
# kernel-before/after.golden) at 16 and 1 threads, micro.sh, 30 rounds a line
set -u
{ REUSE=1 TARBALL=$PWD/.carry/kforge-new.tar.gz MODE=exec CMD='
    set -u; cd '"$PWD"'; P9=$(ls problems/level2/09_*.json); D=.carry/pk
    m() { th=$1; echo "== $(date +%T) $th threads"
          OPENBLAS_THREAD_TIMEOUT=4 OMP_WAIT_POLICY=passive KF_BUILDDIR=$KF_BUILD timeout 100 bash bench/cpu_gemm/micro.sh $P9 cpu $th 30 \
              before=@$D/before.txt after=@$D/after.txt before2=@$D/before.txt after2=@$D/after.txt 2>&1 | grep -v "^ \|warning\|~~~\|In function\|^/tmp"; }
    for r in 1 2 3 4; do m 16; done; m 1; m 1
    echo "== $(date +%T) end"; uptime
  ' bash bench/gpu/run_gpu_suite.sh
} 2>&1 | grep -v "^cpu-simd\|^cuda\|^opencl\|^skipped\|^sandbox\|^search\|^  device\|^    " | tee $OUT/call17.txt
