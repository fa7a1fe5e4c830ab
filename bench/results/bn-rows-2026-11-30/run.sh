#!/bin/bash
# 33 and 41's training BatchNorm over (N, C) before (kernels/k33o.c, k41d.c: emitted at 37f587b)
# and after 428c5f0 (k33n.c, k41n.c): the BatchNorm group alone (the GEMM's call cut out by sed,
# its output buffer zeros) and the whole fp32 kernels (the default point, 6 x 16 tiles), in turns,
# medians (hg.c: inputs written once, 4 scratch buffers of 64 MiB).
#   run.sh OUT_DIR "THREADS..."
set -u
cd "$(dirname "$0")"; O=${1:-out}; T=${2:-"16 8"}; B=$(mktemp -d); mkdir -p $O
{ date -u +%FT%TZ; lscpu | grep -E 'Model name|^CPU\(s\)|L2|L3'; uptime; } > $O/machine.txt
gcc -O2 hg.c -I. -ldl -lm -o $B/hg || exit 1
for k in k41d k41n k33o k33n; do
    cp kernels/$k.c $B/$k.c
    sed 's/^    group0(a, nt);$/    \/\/ group0 skipped/' kernels/$k.c > $B/${k}_bn.c
done
for k in k41d k41n k33o k33n k41d_bn k41n_bn k33o_bn k33n_bn; do
    gcc -w -std=gnu11 -O3 -march=native -fopenmp -fPIC -shared -I. $B/$k.c -o $B/$k.so -lm &
done; wait
{
for t in $T; do
echo "== $t threads: the BatchNorm group alone, 41 before / after, 33 before / after"
$B/hg 2048,1024,1024 $t 41 2097152,1048576,1024 2097152 $B/k41d_bn.so $B/k41n_bn.so
$B/hg 512,2048,2048 $t 41 1048576,4194304,2048,2048 1048576 $B/k33o_bn.so $B/k33n_bn.so
echo "== $t threads: the whole fp32 kernels"
$B/hg 2048,1024,1024 $t 21 2097152,1048576,1024 2097152 $B/k41d.so $B/k41n.so
$B/hg 512,2048,2048 $t 21 1048576,4194304,2048,2048 1048576 $B/k33o.so $B/k33n.so
done
} 2>&1 | sed "s|$B/||" | tee $O/hg.txt
uptime >> $O/machine.txt
