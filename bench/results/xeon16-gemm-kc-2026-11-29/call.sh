#!/bin/bash
# device call: the column order's depth block KC (512, 1024, 2048) on the
# 16-core host, fp32 and bf16, bench/cpu_gemm/micro.sh on problem 9 at 16,
# 8 and 1 threads (make-variants.sh writes the kernels)
set -u
{ REUSE=${REUSE:-} TARBALL=$PWD/.carry/kforge-new.tar.gz MODE=exec CMD='
    set -u; cd '"$PWD"'; P9=$(ls problems/level2/09_*.json); D=.carry/kc
    echo "== $(date +%T) start"; uptime; grep -m1 "model\s*:" /proc/cpuinfo
    m() { th=$1; shift; a=""; for v in "$@"; do a="$a $v=@$D/$v.txt"; done
          echo "== $(date +%T) $th threads: $*"
          OPENBLAS_THREAD_TIMEOUT=4 OMP_WAIT_POLICY=passive KF_BUILDDIR=$KF_BUILD timeout 100 bash bench/cpu_gemm/micro.sh $P9 cpu $th 30 $a 2>&1 | grep -v "^ \|warning\|~~~\|In function\|^/tmp"; }
    for r in 1 2 3; do
    m 16 f512 f1024 f2048 b512
    m 16 b512 b1024 b2048 f512
    done
    m 8 f512 f1024 f2048 b512
    m 8 b512 b1024 b2048 f512
    m 1 f512 f1024 f2048 b512
    m 1 b512 b1024 b2048 f512
    echo "== $(date +%T) end"; uptime
  ' bash bench/gpu/run_gpu_suite.sh
} 2>&1 | grep -v "^cpu-simd\|^cuda\|^opencl\|^skipped\|^sandbox\|^search\|^  device\|^    " | tee $OUT/call.txt
