#!/bin/bash
# device call (issue 15, 2026-12-01, fourth session), 16-core host: does the parent's poisoning
# of a set's outputs (plain stores from its writer threads, just before the timed run) slow the
# memory-bound kernels' timed runs?  pz.c: a streaming copy after each way of writing the set;
# then `kforge profile` of the 16-core suite's best kernels (../xeon16-cpu-membound-2026-12-01d)
# by three builds in turns: A = c912f93 (the evaluator of 5b71563: plain poison, memcpy of the
# inputs), B = the outputs poisoned with non-temporal stores, C = B and the inputs published
# with non-temporal stores too (KF_PUBLISH_INPUTS_STREAMED=1).
set -u
P=$PWD/.carry/pz
{ echo "== $(date +%T) start"; uptime; nproc; cat /sys/kernel/mm/transparent_hugepage/shmem_enabled
  lscpu | grep -E 'Model name|L2|L3'
  gcc -std=gnu11 -O2 -march=native -fopenmp bench/cpu/stream_bw.c -o /tmp/stream_bw && /tmp/stream_bw 16 256 5 | tee $OUT/bw-before.txt
  gcc -O2 -mavx2 -fopenmp $P/pz.c -o /tmp/pz && OMP_PROC_BIND=close OMP_NUM_THREADS=16 /tmp/pz 16 21 | tee $OUT/pz.txt
  TARBALL=$PWD/.carry/kforge-new.tar.gz MODE=exec CMD='
    set -u; cd '"$PWD"'; P='"$P"'
    for v in B C; do
      ( mkdir -p /tmp/src$v && cd /tmp/src$v && tar xzf '"$PWD"'/.carry/kforge-nt.tar.gz && cd kforge-0.1.0 &&
        extra=; [ $v = C ] && extra=-DKF_PUBLISH_INPUTS_STREAMED=1
        ./configure -q --disable-levelzero --disable-opencl --prefix=/tmp/inst$v CPPFLAGS="$extra" && make -j16 && make install ) \
        > $OUT/build$v.log 2>&1 || { echo "build $v failed"; tail -n 30 $OUT/build$v.log; }
    done
    echo "== $(date +%T) built"
    prof() { # build problem
      local b=$1 p=$2 pre=/tmp/inst; [ $b != A ] && pre=/tmp/inst$b
      PATH=$pre/bin:$PATH KFORGE_PLUGIN_PATH=$pre/lib/kforge/plugins KFORGE_THREADS=16 timeout 120 \
        kforge profile --backend cpu-simd --problem problems/level1/$p.json --preset cpu --reps 21 --json $P/runs/$p/steps/*/candidate |
        python3 -c "import json,sys; d=json.load(sys.stdin); t=d.get(\"timing\") or {}; print(d[\"verdict\"], \"median %.3f min %.3f lead %.3f ms\" % (t.get(\"median_s\",0)*1e3, t.get(\"min_s\",0)*1e3, t.get(\"lead_in_median_s\",0)*1e3))"
    }
    for r in 1 2 3; do
      echo "== round $r $(date +%T)"
      for p in 19_ReLU 26_GELU 33_BatchNorm 40_LayerNorm 88_MinGPTNewGelu 23_Softmax; do
        for b in A B C; do printf "%-16s %s: " $p $b; prof $b $p; done
      done
    done 2>&1 | tee $OUT/profile.txt
    echo "== $(date +%T) end"; uptime
  ' bash bench/gpu/run_gpu_suite.sh
  /tmp/stream_bw 16 256 5 | tee $OUT/bw-after.txt
  OMP_PROC_BIND=close OMP_NUM_THREADS=16 /tmp/pz 16 21 | tee $OUT/pz-after.txt
} 2>&1 | tee $OUT/call.txt
rm -f $OUT/build.log $OUT/backends.txt $OUT/gpu.txt
ls -la $OUT
