#!/bin/bash
# device call (issue 15, 2026-11-29, fifth session): the GELUs' best kernels of
# ../xeon16-cpu-membound-2026-11-29f s2 (.carry/abg/<n>_old.c) against the same points emitted
# with e85dd56's prelude (kf__exp_1l: <n>_new.c; the group code is the same), `kforge profile` in
# turns, 16 threads, 5 rounds; the harness of ../epyc2-cpu-membound-2026-11-29 on the same kernels.
set -u
{ echo "== $(date +%T) start"; uptime; grep -m1 'model\s*:' /proc/cpuinfo; nproc
  gcc -std=gnu11 -O2 -march=native -fopenmp bench/cpu/stream_bw.c -o /tmp/stream_bw && /tmp/stream_bw 16 256 5
  CF="-std=gnu11 -O3 -march=native -fopenmp -fPIC -shared -Iplugins/cpu-simd"
  H=bench/results/epyc2-cpu-membound-2026-11-29/harness
  gcc -O2 $H/h2.c -Iplugins/cpu-simd -ldl -o /tmp/h2 2>/dev/null; gcc $CF $H/ref_nt.c -o /tmp/ref_nt.so
  for f in .carry/abg/*.c; do b=$(basename $f .c); gcc $CF $f -o /tmp/$b.so -lm; done
  for r in 1 2 3; do echo "== harness round $r"; (cd /tmp && ./h2 1024,16384 16 21 ./ref_nt.so ./26_old.so ./26_new.so ./88_old.so ./88_new.so); done
  TARBALL=$PWD/.carry/kforge-new.tar.gz MODE=exec CMD='
    set -u; cd '"$PWD"'
    for r in 1 2 3 4 5; do for n in 26 88; do for k in old new; do
      case $n in 26) p=problems/level1/26_GELU.json;; 88) p=problems/level1/88_MinGPTNewGelu.json;; esac
      printf "%s %s round %d: " $n $k $r
      KFORGE_THREADS=16 kforge profile --backend cpu-simd --problem $p --preset cpu --json .carry/abg/${n}_$k.c |
        python3 -c "import json,sys; d=json.load(sys.stdin); t=d.get(\"timing\") or {}; print(d[\"verdict\"], \"median %.3f ms min %.3f ms\" % (t.get(\"median_s\",0)*1e3, t.get(\"min_s\",0)*1e3))"
    done; done; done
    echo "== $(date +%T) end"; uptime
  ' bash bench/gpu/run_gpu_suite.sh
  /tmp/stream_bw 16 256 5
} 2>&1 | tee $OUT/call-ab.txt
rm -f $OUT/build.log $OUT/backends.txt $OUT/commit.txt $OUT/gpu.txt
