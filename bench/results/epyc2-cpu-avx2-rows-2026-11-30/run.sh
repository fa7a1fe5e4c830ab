#!/bin/bash
# 2-core Zen 4 VM (issue 15, 2026-11-30, eleventh session): the softmax exp variants, the row
# helpers compiled for AVX2 (x86-64-v3) against AVX-512 (native), the norms and GELUs likewise.
# h3: memfd input, the input rewritten before each timed call, kernels in turns; medians.
set -u
cd "$(dirname "$0")"; O=${OUT:-out}; B=$(mktemp -d); mkdir -p $O
{ date -u +%FT%TZ; lscpu | grep -E 'Model name|^CPU\(s\)|Flags' | cut -c1-200; uptime; } > $O/machine.txt
gcc -O2 h3.c -I . -ldl -lm -o $B/h3 || exit 1
gcc -std=gnu11 -O3 -march=native -fopenmp -fPIC -shared ref_nt.c -o $B/ref_nt.so || exit 1
build() { # kernel.c out.so march [sed]
  if [ -n "${4:-}" ]; then sed "$4" kernels/$1 > $B/src_$2.c; else cp kernels/$1 $B/src_$2.c; fi
  gcc -std=gnu11 -O3 -march=$3 -fopenmp -fPIC -shared -I . $B/src_$2.c -o $B/$2.so -lm || echo "FAIL $2"; }
IC='s/1024/32/g; s/16777216/524288/'   # 23 cut to 32 rows: its rows in cache
for k in e_cur e_e6r e_e5r e_cw; do build $k.c ic_$k native "$IC"; done
for k in k23_9a65b39 k23_7041490; do build $k.c $k native; build $k.c ${k}_v3 x86-64-v3; build $k.c ic_$k native "$IC"; build $k.c ic_${k}_v3 x86-64-v3 "$IC"; done
for k in k33 k35 k40 k26 k88; do build $k.c $k native; build $k.c ${k}_v3 x86-64-v3; done
build k26_q8.c k26_q8_v3 x86-64-v3
cd $B
{
echo "== exp variants, 23 with its rows in cache (32 x 16384), 1 thread"
./h3 32,16384 1 201 ./ic_e_cur.so ./ic_e_e6r.so ./ic_e_e5r.so ./ic_e_cw.so
echo "== 23 in cache, 1 thread: 9a65b39 / 7041490, native / x86-64-v3"
./h3 32,16384 1 201 ./ic_k23_9a65b39.so ./ic_k23_7041490.so ./ic_k23_9a65b39_v3.so ./ic_k23_7041490_v3.so
for t in 2 1; do echo "== 23 at the cpu preset, $t threads"
./h3 1024,16384 $t 15 ./k23_9a65b39.so ./k23_7041490.so ./k23_9a65b39_v3.so ./k23_7041490_v3.so ./ref_nt.so; done
echo "== norms, 2 threads, native / x86-64-v3"
./h3 16,64,16384 2 21 ./k33.so ./k33_v3.so ./k35.so ./k35_v3.so ./ref_nt.so
./h3 4,64,256,256 2 21 ./k40.so ./k40_v3.so ./ref_nt.so
echo "== GELUs, 2 threads: native / x86-64-v3 / the table lookup ported to AVX2 (k26_q8)"
./h3 1024,16384 2 15 ./k26.so ./k26_v3.so ./k26_q8_v3.so ./k88.so ./k88_v3.so ./ref_nt.so
} 2>&1 | tee $OLDPWD/$O/h3.txt
uptime >> $OLDPWD/$O/machine.txt
