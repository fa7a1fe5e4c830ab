#!/bin/bash
# device call: micro.sh at 16 and 8 threads, OpenBLAS's spinning threads put
# to sleep (the fix) and as before; then problems 99 and 12 run 4 steps
set -u
export KFORGE_PYTHON=python3
{ echo "== $(date +%T) start"; uptime; grep -m1 'model\s*:' /proc/cpuinfo
  TARBALL=$PWD/.carry/kforge-new.tar.gz MODE=exec CMD='
    set -u; cd '"$PWD"'
    P9=$(ls problems/level2/09_*.json)
    (cd $KF_BUILD && make tests/golden/emit_golden >/dev/null 2>&1) || echo "emit_golden build failed"
    FP32={\"fusion\":2,\"precision\":0,\"mc\":516,\"nc\":512,\"kc\":512,\"mr\":12,\"nr\":32,\"pack\":1,\"threads\":0,\"loop_order\":1,\"unroll\":1}
    for th in 16 8; do for to in 4; do
      echo "== $(date +%T) micro 09 cpu $th passive OPENBLAS_THREAD_TIMEOUT=$to"; uptime
      OPENBLAS_THREAD_TIMEOUT=$to OMP_WAIT_POLICY=passive KF_BUILDDIR=$KF_BUILD timeout 60 bash bench/cpu_gemm/micro.sh $P9 cpu $th 30 fp32=$FP32
    done; done
    for p in; do
      echo "== $(date +%T) run $p"
      timeout 60 kforge run problems/level2/${p}_*.json --backend cpu-simd --preset cpu --max-iterations 4 --max-time 50 --no-baseline --out /tmp/r$p 2>&1 | grep -E "^\[|time"
    done
    echo "== $(date +%T) end"; uptime
  ' bash bench/gpu/run_gpu_suite.sh
} 2>&1 | tee $OUT/call12.txt
rm -f $OUT/build.log $OUT/backends.txt $OUT/commit.txt $OUT/gpu.txt
