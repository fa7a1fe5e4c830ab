#!/bin/bash
# device call: where the fp32 column-order GEMM's time goes (bench/cpu_gemm/study/phases.py)
# at 16, 8 and 1 threads, and two row-group splits and the unrolled k loop beside it
set -u
{ REUSE=${REUSE:-} TARBALL=$PWD/.carry/kforge-new.tar.gz MODE=exec CMD='
    set -u; cd '"$PWD"'; P9=$(ls problems/level2/09_*.json); D=.carry/ph
    echo "== $(date +%T) start"; uptime; grep -m1 "model\s*:" /proc/cpuinfo
    m() { th=$1; shift; a=""; for v in "$@"; do a="$a $v=@$D/$v.txt"; done
          echo "== $(date +%T) $th threads: $*"
          OPENBLAS_THREAD_TIMEOUT=4 OMP_WAIT_POLICY=passive KF_BUILDDIR=$KF_BUILD timeout 100 bash bench/cpu_gemm/micro.sh $P9 cpu $th 30 $a 2>&1 | grep -v "^ \|warning\|~~~\|In function\|^/tmp"; }
    m 16 base ph-base rg2 rg4
    m 16 base u4 ph-rg2 ph-u4
    m 8 base ph-base rg2 u4
    m 1 base ph-base u4 k256
    m 16 base ph-rg4 k256 ph-k256
    m 16 base ph-base rg2 rg4
    m 16 base u4 rg2 rg4
    echo "== $(date +%T) end"; uptime
  ' bash bench/gpu/run_gpu_suite.sh
} 2>&1 | grep -v "^cpu-simd\|^cuda\|^opencl\|^skipped\|^sandbox\|^search\|^  device\|^    " | tee $OUT/call15.txt
