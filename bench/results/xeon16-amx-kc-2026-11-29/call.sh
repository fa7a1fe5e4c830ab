#!/bin/bash
# device call: the AMX GEMM's depth block on the 16-core host (problem 9,
# bench/cpu_gemm/micro.sh, kernels from make-variants.sh), the tile-phase
# study bench/cpu_gemm/study/amx_tiles.c with a thread's real share (GN 4
# column panels, 16 row panels), and the concurrent peaks for reference
set -u
{ REUSE=${REUSE:-} TARBALL=$PWD/.carry/kforge-new.tar.gz MODE=exec CMD='
    set -u; cd '"$PWD"'; P9=$(ls problems/level2/09_*.json); D=.carry/amxkc
    echo "== $(date +%T) start"; uptime; grep -m1 "model\s*:" /proc/cpuinfo; lscpu | grep -E "^CPU\(s\)|Thread|Core|L1d|L2|L3"
    m() { th=$1; shift; a=""; for v in "$@"; do a="$a $v=@$D/$v.txt"; done
          echo "== $(date +%T) $th threads: $*"
          OPENBLAS_THREAD_TIMEOUT=4 OMP_WAIT_POLICY=passive KF_BUILDDIR=$KF_BUILD timeout 120 bash bench/cpu_gemm/micro.sh $P9 cpu $th 30 $a 2>&1 | grep -v "^ \|warning\|~~~\|In function\|^/tmp"; }
    for r in 1 2 3; do
    m 16 a4096 a1024 a512 a256
    m 16 x4096 x1024 x512 a4096
    m 16 a4096n64 a4096n256 a4096 a512
    done
    m 8 a4096 a1024 a512 a256
    m 1 a4096 a1024 a512 a256
    echo "== $(date +%T) amx_tiles"
    gcc -O2 -march=native -fopenmp bench/cpu_gemm/study/amx_tiles.c -o /tmp/amx_tiles
    for kcb in 4 8 16; do timeout 60 /tmp/amx_tiles 16 20 $kcb 4 16; done
    timeout 60 /tmp/amx_tiles 8 20 8 4 16
    timeout 60 /tmp/amx_tiles 1 20 8 4 16
    echo "== $(date +%T) peaks"
    cc -O2 -pthread bench/cpu/peak_concurrent.c -o /tmp/peakc && timeout 60 /tmp/peakc 16 8 1
    echo "== $(date +%T) end"; uptime
  ' bash bench/gpu/run_gpu_suite.sh
} 2>&1 | grep -v "^cpu-simd\|^cuda\|^opencl\|^skipped\|^sandbox\|^search\|^  device\|^    " | tee $OUT/call.txt
