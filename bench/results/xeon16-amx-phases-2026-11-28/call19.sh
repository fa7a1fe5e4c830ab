#!/bin/bash
# device call: problem 9 AMX kernel before / after the kf_tr16x16 B packing (b468c57), phases.py, 16 and 1 threads
set -u
{ REUSE=${REUSE:-} TARBALL=$PWD/.carry/kforge-new.tar.gz MODE=exec CMD='
    set -u; cd '"$PWD"'; P9=$(ls problems/level2/09_*.json); D=.carry/amx2
    echo "== $(date +%T) start"; uptime; grep -m1 "model\s*:" /proc/cpuinfo

    m() { th=$1; shift; a=""; for v in "$@"; do a="$a $v=@$D/$v.txt"; done
          echo "== $(date +%T) $th threads: $*"
          OPENBLAS_THREAD_TIMEOUT=4 OMP_WAIT_POLICY=passive KF_BUILDDIR=$KF_BUILD timeout 100 bash bench/cpu_gemm/micro.sh $P9 cpu $th 30 $a 2>&1 | grep -v "^ \|warning\|~~~\|In function\|^/tmp"; }
    m 16 old new ph-old ph-new
    m 16 old new ph-old ph-new
    m 16 old new ph-old ph-new
    m 1 old new ph-old ph-new
    echo "== $(date +%T) end"; uptime
  ' bash bench/gpu/run_gpu_suite.sh
} 2>&1 | grep -v "^cpu-simd\|^cuda\|^opencl\|^skipped\|^sandbox\|^search\|^  device\|^    " | tee $OUT/call19.txt
