#!/bin/bash
# device call: fp32 blocking points of problem 9's GEMM at 16 threads (micro.sh, 4 a line)
set -u
export KFORGE_PYTHON=python3
pt() { echo "{\"fusion\":2,\"precision\":0,\"mc\":$1,\"nc\":$2,\"kc\":$3,\"mr\":$4,\"nr\":$5,\"pack\":1,\"threads\":0,\"loop_order\":1,\"unroll\":1}"; }
export -f pt
{ REUSE=1 TARBALL=$PWD/.carry/kforge-new.tar.gz MODE=exec CMD='
    set -u; cd '"$PWD"'; P9=$(ls problems/level2/09_*.json)
    m() { OPENBLAS_THREAD_TIMEOUT=4 OMP_WAIT_POLICY=passive KF_BUILDDIR=$KF_BUILD timeout 60 bash bench/cpu_gemm/micro.sh $P9 cpu ${TH:-16} 30 "$@"; }
    for th in 16; do TH=$th
    echo "== $(date +%T) A $th"; m base=$(pt 516 512 512 12 32) m128=$(pt 128 512 512 12 32) m256n256=$(pt 256 256 512 12 32) n256=$(pt 516 256 512 12 32)
    echo "== $(date +%T) B $th"; m base=$(pt 516 512 512 12 32) k1024=$(pt 516 512 1024 12 32) k256=$(pt 516 512 256 12 32) m96=$(pt 96 512 512 12 32)
    echo "== $(date +%T) C $th"; m base=$(pt 516 512 512 12 32) mr14=$(pt 516 512 512 14 32) r6x64=$(pt 516 512 512 6 64) r8x48=$(pt 516 512 512 8 48)
    echo "== $(date +%T) D $th"; m base=$(pt 516 512 512 12 32) m128n128k2048=$(pt 128 128 2048 12 32) m64n512k1024=$(pt 64 512 1024 12 32) m132n1024k256=$(pt 132 1024 256 12 32)
    done; echo "== $(date +%T) end"
  ' bash bench/gpu/run_gpu_suite.sh
} 2>&1 | grep -v "^ \|^cpu-simd\|^cuda\|^opencl\|^skipped\|^sandbox\|^search" | tee $OUT/call13.txt
