#!/bin/bash
# device call for the next session (issue 15), 16-core host: the committed design (no poison
# after the lead-in) against the old evaluator, `kforge profile` of the 16-core suite's best
# kernels in turns, 3 rounds.  Needs in .carry/: kforge-new.tar.gz (`make dist` of c912f93:
# the old evaluator), kforge-head.tar.gz (`make dist` of the commit to measure), pz/runs (the
# best kernels: tar xzf ../xeon16-cpu-membound-2026-12-01d/m5/best-m5.tgz -C .carry/pz).
set -u
P=$PWD/.carry/pz
{ echo "== $(date +%T) start"; uptime; nproc
  gcc -std=gnu11 -O2 -march=native -fopenmp bench/cpu/stream_bw.c -o /tmp/stream_bw && /tmp/stream_bw 16 256 5 | tee $OUT/bw-before.txt
  TARBALL=$PWD/.carry/kforge-new.tar.gz MODE=exec CMD='
    set -u; cd '"$PWD"'; P='"$P"'
    ( mkdir -p /tmp/srcN && cd /tmp/srcN && tar xzf '"$PWD"'/.carry/kforge-head.tar.gz && cd kforge-0.1.0 &&
      ./configure -q --disable-levelzero --disable-opencl --prefix=/tmp/instN && make -j16 && make install ) \
      > $OUT/buildN.log 2>&1 || { echo "build N failed"; tail -n 30 $OUT/buildN.log; exit 1; }
    echo "== $(date +%T) built"
    prof() { # build problem
      local pre=/tmp/inst; [ $1 = N ] && pre=/tmp/instN
      PATH=$pre/bin:$PATH KFORGE_PLUGIN_PATH=$pre/lib/kforge/plugins KFORGE_THREADS=16 timeout 120 \
        kforge profile --backend cpu-simd --problem problems/level1/$2.json --preset cpu --reps 21 --json $P/runs/$2/steps/*/candidate |
        python3 -c "import json,sys; d=json.load(sys.stdin); t=d.get(\"timing\") or {}; print(d[\"verdict\"], \"median %.3f min %.3f lead %.3f ms\" % (t.get(\"median_s\",0)*1e3, t.get(\"min_s\",0)*1e3, t.get(\"lead_in_median_s\",0)*1e3))"
    }
    for r in 1 2 3; do
      echo "== round $r $(date +%T)"
      for p in 19_ReLU 26_GELU 33_BatchNorm 40_LayerNorm 88_MinGPTNewGelu 35_GroupNorm; do
        for b in A N; do [ $r = 2 ] && b=$([ $b = A ] && echo N || echo A); printf "%-16s %s: " $p $b; prof $b $p; done
      done
    done 2>&1 | tee $OUT/profile.txt
    echo "== $(date +%T) end"; uptime
  ' bash bench/gpu/run_gpu_suite.sh
  /tmp/stream_bw 16 256 5 | tee $OUT/bw-after.txt
} 2>&1 | tee $OUT/call.txt
rm -f $OUT/build.log $OUT/backends.txt $OUT/gpu.txt
