#!/bin/sh
# The AVX2 elementwise record (issue 15): old (92c75e0) and new (1b17f00) kernels the built-in
# agent emits at the cpu preset for 23 Softmax, 26 GELU and 88 tanh GELU ({"fusion":2,"stream":1}),
# timed side by side on this 2-core VM.  Usage: sh run.sh BUILD_DIR (a configured, built tree of
# the new commit: kforge, the worker, the cpu-simd plugin) > out/run.txt.  Writes scratch to /tmp/zr.
set -e
B=${1:?usage: run.sh BUILD_DIR}
H=$(cd "$(dirname "$0")" && pwd)
W=/tmp/zr; rm -rf $W; mkdir -p $W; cd $W
CF="-std=gnu11 -O3 -march=native -fopenmp -fPIC -shared -I$H/src"
echo "== machine"; date -u; grep -m1 "model name" /proc/cpuinfo; grep -m1 "cpu family" /proc/cpuinfo; grep -m1 "^model\s" /proc/cpuinfo; nproc; uptime
echo "== git"; git -C "$H" log --oneline -1
for v in old new; do for p in 23 26 88; do gcc $CF -o ${v}_$p.so $H/kernels/${v}_$p.c; done; done
for p in 26 88; do   # the old kernels with the new prelude's pragma alone (no loop turned into memcpy)
  sed 's/#pragma GCC optimize ("no-trapping-math")/#pragma GCC optimize ("no-trapping-math")\n#pragma GCC optimize ("no-tree-loop-distribute-patterns")/' $H/kernels/old_$p.c > ndo_$p.c
  gcc $CF -o ndo_$p.so ndo_$p.c; done
gcc $CF -o ref_nt.so $H/src/ref_nt.c
gcc -O2 -march=native -I$H/src $H/src/h5.c -o h5 -ldl -lm
gcc -O2 -I$H/src $H/src/drv.c -o drv -ldl
gcc -O2 -mavx2 -mfma $H/src/tp.c -o tp
gcc -std=gnu11 -O3 -march=native -fopenmp -I$H/src $H/src/mbg3.c -o mbg3 -lm
for d in 5 6; do gcc -std=gnu11 -O3 -march=native -fopenmp -DDEG=$d -I$H/src $H/src/mb23b.c -o mb23b$d -lm; done
gcc -O2 -march=native "$H/../../../bench/cpu/stream_bw.c" -fopenmp -o stream_bw
echo "== instruction throughput, 12 independent chains, one core (this VM's state)"; taskset -c 1 ./tp
echo "== stream_bw before"; ./stream_bw 2 256 5 | tail -4
echo "== one kernel call at 1 thread: instructions (callgrind, kf_kernel)"
for s in old_23 new_23 old_26 ndo_26 new_26 old_88 ndo_88 new_88 ref_nt; do
  printf '%-8s ' $s; valgrind --tool=callgrind --callgrind-out-file=/dev/null --collect-atstart=no --toggle-collect=kf_kernel ./drv ./$s.so 2>&1 | sed -n 's/.*Collected : //p'; done
echo "== in cache, one core: GELU block forms (mbg3: old = 8 degree-6 vpermps; b4_j4, v_j1/2/4 = 4 degree-7 vpermilps, J vectors side by side)"
taskset -c 1 ./mbg3
echo "== in cache, one core: softmax's exp pass (mb23b: expsum-old = 92c75e0's kf__exp8, expsum-new = degree 5 / 6)"
for d in 5 6; do echo "degree $d"; taskset -c 1 ./mb23b$d; done
echo "== full preset 1024x16384, 2 threads, h5 (21 runs each, in turns; plain = inputs rewritten with memcpy)"
for r in 1 2 3; do OMP_PROC_BIND=close ./h5 1024,16384 2 21 0 ./ref_nt.so ./old_26.so ./ndo_26.so ./new_26.so ./old_88.so ./ndo_88.so ./new_88.so ./old_23.so ./new_23.so | grep plain; done
echo "== kforge profile (verification and kforge's own timing), 2 threads"
for s in new_26:26_GELU old_26:26_GELU new_88:88_MinGPTNewGelu old_88:88_MinGPTNewGelu new_23:23_Softmax old_23:23_Softmax; do
  k=${s%%:*}; p=${s#*:}
  KFORGE_PLUGIN_PATH=$B/plugins/cpu-simd/.libs KFORGE_WORKER=$B/core/kforge-worker KFORGE_PROMPTS=$H/../../../prompts KFORGE_THREADS=2 \
    $B/core/kforge profile -b cpu-simd -p $H/../../../problems/level1/$p.json --preset cpu --json $H/kernels/$k.c > prof_$k.json 2>/dev/null || true
  printf '%-7s ' $k; python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['summary'])" prof_$k.json
done
echo "== stream_bw after"; ./stream_bw 2 256 5 | tail -4
echo "== instruction throughput after"; taskset -c 1 ./tp | head -2
