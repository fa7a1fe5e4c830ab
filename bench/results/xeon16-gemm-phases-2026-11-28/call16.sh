#!/bin/bash
# device call: the next A micro-panel's prefetch (distance, locality, none) at 16 and 1 threads, beside the base point (bench/cpu_gemm/study/phases.py aprefetch)
set -u
{ REUSE=${REUSE:-} TARBALL=$PWD/.carry/kforge-new.tar.gz MODE=exec CMD='
    set -u; cd '"$PWD"'; P9=$(ls problems/level2/09_*.json); D=.carry/ph
    echo "== $(date +%T) start"; uptime; grep -m1 "model\s*:" /proc/cpuinfo
    m() { th=$1; shift; a=""; for v in "$@"; do a="$a $v=@$D/$v.txt"; done
          echo "== $(date +%T) $th threads: $*"
          OPENBLAS_THREAD_TIMEOUT=4 OMP_WAIT_POLICY=passive KF_BUILDDIR=$KF_BUILD timeout 100 bash bench/cpu_gemm/micro.sh $P9 cpu $th 30 $a 2>&1 | grep -v "^ \|warning\|~~~\|In function\|^/tmp"; }
    for r in 1 2 3; do
    m 16 base apf0 apf2 apf1l3
    m 16 base ph-apf0 ph-apf2 apf1l1
    done
    m 1 base apf0 apf2 ph-base
    m 8 base apf0 apf2 apf1l3
    echo "== $(date +%T) end"; uptime
  ' bash bench/gpu/run_gpu_suite.sh
} 2>&1 | grep -v "^cpu-simd\|^cuda\|^opencl\|^skipped\|^sandbox\|^search\|^  device\|^    " | tee $OUT/call16.txt
