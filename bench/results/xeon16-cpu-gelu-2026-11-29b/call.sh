#!/bin/bash
# device call (issue 15, 2026-11-29, fifth session): where the 16-core host's GELU time goes.
# .carry/gelu16: the best streamed kernels of 19, 26 and 88 from ../xeon16-cpu-membound-2026-11-29f
# (s2), each with KF_PREFETCH_AHEAD 0 / 1024 (as emitted) / 2048 / 4096 floats; k26_s0.c: 26 with
# plain stores (emitted on the 2-core VM, generic C); c<n>.c: the same kernels at 16 rows (1 MiB
# in, 1 MiB out: in L2 on 16 threads, in L3 on one), the compute alone.  h2.c, ref_nt.c: the
# harness of ../epyc2-cpu-membound-2026-11-29 (memfd, input rewritten before each timed call,
# kernels in turns; ref_nt: a ReLU with streaming stores over the same buffers).
set -u
cd .carry/gelu16
{ echo "== $(date +%T) start"; uptime; grep -m1 'model\s*:' /proc/cpuinfo; nproc
  gcc -std=gnu11 -O2 -march=native -fopenmp ../../bench/cpu/stream_bw.c -o /tmp/stream_bw && /tmp/stream_bw 16 256 5
  CF="-std=gnu11 -O3 -march=native -fopenmp -fPIC -shared -I../../plugins/cpu-simd"
  for f in *.c; do [ $f = h2.c ] && continue; gcc $CF $f -o /tmp/${f%.c}.so -lm || echo "compile failed: $f"; done
  gcc -O2 h2.c -I../../plugins/cpu-simd -ldl -o /tmp/h2
  cd /tmp
  for r in 1 2 3; do echo "== round $r: 16 threads, 1024 x 16384"
    ./h2 1024,16384 16 21 ./ref_nt.so ./k19_pf1024.so ./k19_pf0.so ./k26_pf0.so ./k26_pf1024.so ./k26_pf2048.so ./k26_pf4096.so ./k26_s0.so ./k88_pf0.so ./k88_pf1024.so ./k88_pf2048.so ./k88_pf4096.so
  done
  echo "== in cache: 16 x 16384, 16 threads"; ./h2 16,16384 16 401 ./c19.so ./c26.so ./c88.so
  echo "== in cache: 16 x 16384, 1 thread"; ./h2 16,16384 1 201 ./c19.so ./c26.so ./c88.so
  /tmp/stream_bw 16 256 5
  echo "== $(date +%T) end"; uptime
} 2>&1 | tee $OUT/call-gelu.txt
