#!/bin/bash
# device call (issue 15, 2026-12-02 fourth session), 16-core host: (1) the streamed GELU maps'
# full blocks stored from the registers (kf_gelu_stream_block) against the block written back
# to its buffer and streamed from it (the emitter before), problems 26 and 88 at the cpu preset,
# kforge profile in turns, ROUNDS rounds (5); (2) problem 9's fp32 fused GEMM at 16 threads
# beside OpenBLAS sgemm and the FMA peak (bench/cpu_gemm/micro.sh), GROUNDS rounds (8) of
# GREPS reps (60), as ../xeon16-cpu-torch-2026-12-02's PART=g.  TARBALL: `make dist` of the
# commit under test (.carry/, git-excluded here).
set -u
D=bench/results/xeon16-cpu-gelu-stream-2026-12-02; K0=bench/results/epyc2-cpu-gelu16-2026-12-02/kernels
{ echo "== $(date +%T) start"; uptime; lscpu | grep -E 'Model name|^CPU\(s\)|Model:'
  TARBALL=$PWD/$TARBALL MODE=exec CMD='
    set -u; cd '"$PWD"'
    for v in 26_new 88_new; do mkdir -p /tmp/c/$v; cp '"$K0"'/$v.c /tmp/c/$v/kernel.c; done
    for v in 26_stream 88_stream; do mkdir -p /tmp/c/$v; cp '"$D"'/kernels/$v.c /tmp/c/$v/kernel.c; done
    for v in 26_new 26_stream 88_new 88_stream; do
      echo "{\"backend\":\"cpu-simd\",\"sources\":[\"kernel.c\"],\"entry\":\"kf_kernel\"}" > /tmp/c/$v/candidate.json; done
    echo "== $(date +%T) A/B"; uptime
    for r in $(seq '"${ROUNDS:-5}"'); do
      if [ $((r % 2)) = 1 ]; then order="26_new 26_stream 88_new 88_stream"; else order="26_stream 26_new 88_stream 88_new"; fi
      for v in $order; do
        case $v in 26*) p=problems/level1/26_GELU.json ;; *) p=problems/level1/88_MinGPTNewGelu.json ;; esac
        printf "round %d %s: " $r $v
        KFORGE_THREADS=16 timeout 60 kforge profile --backend cpu-simd --problem $p --preset cpu --reps 30 --json /tmp/c/$v |
          python3 -c "import json,sys; d=json.load(sys.stdin); t=d.get(\"timing\") or {}; print(d[\"verdict\"], \"median %.3f ms min %.3f ms\" % (t.get(\"median_s\",0)*1e3, t.get(\"min_s\",0)*1e3))"
      done; done | tee $OUT/ab.txt
    P9=$(ls problems/level2/09_*.json); make -C $KF_BUILD tests/golden/emit_golden > /dev/null 2>&1 || echo "emit_golden: build failed"
    for r in $(seq '"${GROUNDS:-8}"'); do
      echo "== $(date +%T) GEMM round $r"
      OPENBLAS_THREAD_TIMEOUT=4 OMP_WAIT_POLICY=passive KF_BUILDDIR=$KF_BUILD timeout 100 bash bench/cpu_gemm/micro.sh $P9 cpu 16 '"${GREPS:-60}"' \
        fp32="{\"precision\":0}" kc1024="{\"fusion\":2,\"precision\":0,\"mc\":516,\"nc\":128,\"kc\":1024,\"mr\":12,\"nr\":32,\"pack\":1,\"threads\":0,\"loop_order\":1}" 2>&1 | grep -v "^ \|warning\|~~~\|In function\|^/tmp"
    done | tee $OUT/gemm.txt
    echo "== $(date +%T) end"; uptime
  ' bash bench/gpu/run_gpu_suite.sh
} 2>&1 | grep -v "^cpu-simd\|^cuda\|^opencl\|^skipped\|^sandbox\|^search\|^  device\|^    \|^  plugin\|^  compile" | tee $OUT/call.txt
rm -f $OUT/build.log $OUT/backends.txt $OUT/gpu.txt
ls -la $OUT
