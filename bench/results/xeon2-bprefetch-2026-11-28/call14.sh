#!/bin/bash
# device call: the fp32 GEMM of problem 9 with and without the next-B-block prefetch
# (bench/results/xeon2-bprefetch-2026-11-28's two kernels) at 16 and 8 threads, 3 runs each
set -u
export KFORGE_PYTHON=python3
{ TARBALL=$PWD/.carry/kforge-new.tar.gz MODE=exec CMD='
    set -u; cd '"$PWD"'; P9=$(ls problems/level2/09_*.json); D=bench/results/xeon2-bprefetch-2026-11-28
    echo "== $(date +%T) warm-up"
    timeout 40 python3 -c "
import time, torch
torch.set_num_threads(16); a = torch.randn(2048, 2048); t = time.time()
while time.time() - t < 20: a @ a"
    for th in 16 8 16 8 16 8; do
      echo "== $(date +%T) $th threads"
      OPENBLAS_THREAD_TIMEOUT=4 OMP_WAIT_POLICY=passive KF_BUILDDIR=$KF_BUILD timeout 60 bash bench/cpu_gemm/micro.sh $P9 cpu $th 30 base=@$D/g9-base.txt pf=@$D/g9-prefetch.txt
    done; echo "== $(date +%T) end"
  ' bash bench/gpu/run_gpu_suite.sh
} 2>&1 | grep -v "^ \|^cpu-simd\|^cuda\|^opencl\|^skipped\|^sandbox\|^search" | tee $OUT/call14.txt
rm -f $OUT/build.log $OUT/backends.txt $OUT/commit.txt $OUT/gpu.txt
