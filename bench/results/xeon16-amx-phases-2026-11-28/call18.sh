#!/bin/bash
# device call: where the AMX bf16 GEMM's time goes (problem 9, the point the suite chose:
# mc 128 nc 128 kc 4096 32 x 32 amx-bf16), beside the fp32 column-order kernel, phases.py,
# at 16 and 8 threads; and the FMA / AMX peaks of 16 threads together (peak_concurrent.c)
set -u
{ REUSE=${REUSE:-} TARBALL=$PWD/.carry/kforge-new.tar.gz MODE=exec CMD='
    set -u; cd '"$PWD"'; P9=$(ls problems/level2/09_*.json); D=.carry/amx
    echo "== $(date +%T) start"; uptime; grep -m1 "model\s*:" /proc/cpuinfo
    cc -O2 -pthread bench/cpu/peak_concurrent.c -o /tmp/peak && /tmp/peak 16
    m() { th=$1; shift; a=""; for v in "$@"; do a="$a $v=@$D/$v.txt"; done
          echo "== $(date +%T) $th threads: $*"
          OPENBLAS_THREAD_TIMEOUT=4 OMP_WAIT_POLICY=passive KF_BUILDDIR=$KF_BUILD timeout 100 bash bench/cpu_gemm/micro.sh $P9 cpu $th 30 $a 2>&1 | grep -v "^ \|warning\|~~~\|In function\|^/tmp"; }
    m 16 amx ph-amx fp ph-fp
    m 16 amx ph-amx fp ph-fp
    m 16 amx ph-amx fp ph-fp
    m 8 amx ph-amx fp ph-fp
    echo "== $(date +%T) end"; uptime
  ' bash bench/gpu/run_gpu_suite.sh
} 2>&1 | grep -v "^cpu-simd\|^cuda\|^opencl\|^skipped\|^sandbox\|^search\|^  device\|^    " | tee $OUT/call18.txt
