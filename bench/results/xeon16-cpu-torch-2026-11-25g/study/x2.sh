#!/bin/bash
# device: bf16c / centred 2xbf16 cost at 16 threads (micro.sh on pre-emitted kernels: emit_golden output for 30 and 41 at the cpu preset, precision 5, 7, 8 and 7 from the generator before bf16c, kept in .carry/exp2), and which part costs
OUT=${OUT:-/tmp/out}
mkdir -p /tmp/fb && : > /tmp/fb/config.h
export KF_BUILDDIR=/tmp/fb KF_HARNESS_FLAGS=-DKF_NO_BLAS OMP_PROC_BIND=close
E=.carry/exp2
{
lscpu | grep -E "Model name|^CPU\(s\)"
for p in 41 30; do f=$(ls problems/level2/${p}_*.json)
  for r in 1 2; do
    echo "== $p round $r: bf16, bf16c, 2xbf16 centred, 2xbf16 (old generator)"
    sh bench/cpu_gemm/micro.sh $f cpu 16 31 bf16=@$E/$p-p5.txt bf16c=@$E/$p-p8.txt x2c=@$E/$p-p7.txt x2old=@$E/$p-p7old.txt 2>&1 | tail -5 | head -4
    echo "== $p round $r: bf16c without: the centre pass, the tile start, the products in pack_b"
    sh bench/cpu_gemm/micro.sh $f cpu 16 31 bf16c=@$E/$p-p8.txt nocp=@$E/$p-p8-nocp.txt novp=@$E/$p-p8-novp.txt nov=@$E/$p-p8-nov.txt 2>&1 | tail -5 | head -4
  done
done
} 2>&1 | tee $OUT/x2.txt
