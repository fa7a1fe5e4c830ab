#!/bin/sh
# On the GPU machine's 16-core Xeon host: the kernels and harnesses of
# ../zen3-cpu-avx2-elementwise-2026-12-01 (old = 92c75e0, new = 1b17f00), compiled two ways:
# -march=x86-64-v3 -mtune=native (their AVX2 forms, as a CPU without AVX-512 runs them) and
# -march=native (the AVX-512 forms kforge runs here; old and new differ there only by the
# no-tree-loop-distribute-patterns pragma).  Run from the repository root; writes $OUT/xeon.txt.
set -e
H=$(pwd)/bench/results/zen3-cpu-avx2-elementwise-2026-12-01
W=/tmp/xr; rm -rf $W; mkdir -p $W; cd $W
exec > "${OUT:-.}/xeon.txt" 2>&1
echo "== machine"; date -u; lscpu | sed -n '1,20p'; grep -o -w 'avx512f\|avx2\|amx_tile' /proc/cpuinfo | sort | uniq -c
for isa in v3 native; do
  if [ $isa = v3 ]; then M="-march=x86-64-v3 -mtune=native"; else M="-march=native"; fi
  CF="-std=gnu11 -O3 $M -fopenmp -fPIC -shared -I$H/src"
  for v in old new; do for p in 23 26 88; do gcc $CF -o ${isa}_${v}_$p.so $H/kernels/${v}_$p.c; done; done
  for p in 26 88; do
    sed 's/#pragma GCC optimize ("no-trapping-math")/#pragma GCC optimize ("no-trapping-math")\n#pragma GCC optimize ("no-tree-loop-distribute-patterns")/' $H/kernels/old_$p.c > ndo_$p.c
    gcc $CF -o ${isa}_ndo_$p.so ndo_$p.c; done
done
M="-march=x86-64-v3 -mtune=native"   # the in-cache harnesses are AVX2 code
gcc -std=gnu11 -O3 $M -fopenmp -I$H/src $H/src/mbg3.c -o v3_mbg3 -lm
for d in 5 6; do gcc -std=gnu11 -O3 $M -fopenmp -DDEG=$d -I$H/src $H/src/mb23b.c -o v3_mb23b$d -lm; done
gcc -std=gnu11 -O3 -march=x86-64-v3 -fopenmp -fPIC -shared -I$H/src -o ref_nt.so $H/src/ref_nt.c
gcc -O2 -march=native -I$H/src $H/src/h5.c -o h5 -ldl -lm
gcc -O2 -mavx2 -mfma $H/src/tp.c -o tp
gcc -O2 -march=native -fopenmp $H/../../cpu/stream_bw.c -o stream_bw
echo "== instruction throughput, 12 chains, one core"; taskset -c 2 ./tp
echo "== stream_bw 16 and 2 threads, before"; ./stream_bw 16 1024 5 | tail -1; ./stream_bw 2 256 5 | tail -1
echo "== in cache, one core, AVX2 forms (x86-64-v3): GELU blocks (old = vpermps 8 x degree 6; v_j4 ~ new)"; taskset -c 2 ./v3_mbg3
echo "== in cache, one core, AVX2 forms: softmax exp pass"; for d in 5 6; do echo "degree $d"; taskset -c 2 ./v3_mb23b$d; done
for nt in 2 16; do
  for isa in v3 native; do
    echo "== full preset 1024x16384, $nt threads, $isa (h5, 21 runs each, plain inputs)"
    for r in 1 2; do
      OMP_PROC_BIND=close OMP_PLACES=cores ./h5 1024,16384 $nt 21 0 ./ref_nt.so ./${isa}_old_26.so ./${isa}_ndo_26.so ./${isa}_new_26.so \
        ./${isa}_old_88.so ./${isa}_ndo_88.so ./${isa}_new_88.so ./${isa}_old_23.so ./${isa}_new_23.so | grep plain
    done
  done
done
echo "== stream_bw after"; ./stream_bw 16 1024 5 | tail -1; ./stream_bw 2 256 5 | tail -1
