#!/bin/bash
# device call (issue 15, 2026-12-01), 16-core host: the parent's writes of a timed run's fresh inputs and
# poison on one thread (KF_EXP_SERIAL=1, the working tree's experiment switch) against spread over up to 16
# threads (kf_buffers_write), under `kforge profile`, in turns, beside stream_bw before and after.
# Kernels (.carry/gap2 = kernels/ of ../xeon16-cpu-parent-writes-2026-12-01, plus k33): the built-in agent's
# text at the cpu preset, {"fusion":2,"stream":1}.
set -u
G=$PWD/.carry/gap2; ROUNDS=${ROUNDS:-3}
{ echo "== $(date +%T) start"; uptime; grep -m1 'model\s*:' /proc/cpuinfo; nproc
  gcc -std=gnu11 -O2 -march=native -fopenmp bench/cpu/stream_bw.c -o /tmp/stream_bw && /tmp/stream_bw 16 256 5 | tee $OUT/bw-before.txt
  TARBALL=$PWD/.carry/kforge-new.tar.gz MODE=exec CMD='
    set -u; cd '"$PWD"'; G='"$G"'
    prof() { # problem kernel env...
      local p=$1 k=$2; shift 2
      env "$@" KFORGE_THREADS=16 timeout 90 kforge profile --backend cpu-simd --problem problems/level1/$p.json --preset cpu --json $G/$k.c |
        python3 -c "import json,sys; d=json.load(sys.stdin); t=d.get(\"timing\") or {}; r=d.get(\"roofline\") or {}; print(d[\"verdict\"], \"median %.3f min %.3f lead %.3f ms, roofline %.3f of %.1f GB/s\" % (t.get(\"median_s\",0)*1e3, t.get(\"min_s\",0)*1e3, t.get(\"lead_in_median_s\",0)*1e3, r.get(\"fraction\",0), r.get(\"peak_bytes_per_s\",0)/1e9))"
    }
    for r in $(seq '"$ROUNDS"'); do
      echo "== round $r $(date +%T)"
      for pk in 19_ReLU:k19 26_GELU:k26 88_MinGPTNewGelu:k88 23_Softmax:k23 33_BatchNorm:k33 40_LayerNorm:k40; do
        p=${pk%%:*}; k=${pk#*:}
        printf "%-16s %-4s serial  : " $p $k; prof $p $k KF_EXP_SERIAL=1
        printf "%-16s %-4s threads : " $p $k; prof $p $k
      done
    done 2>&1 | tee $OUT/ab.txt
    /tmp/stream_bw 16 256 5 | tee $OUT/bw-after.txt
    echo "== $(date +%T) end"; uptime
  ' bash bench/gpu/run_gpu_suite.sh
} 2>&1 | tee $OUT/call.txt
rm -f $OUT/build.log $OUT/backends.txt $OUT/gpu.txt
ls -la $OUT
