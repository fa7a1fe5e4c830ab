#!/bin/bash
# device call (issue 15, 2026-12-02 third session), 16-core host at 122c279: the streamed GELU
# block in 16 instructions (vrangeps, a masked subtraction) against the old 18, problems 26 and
# 88 at the cpu preset, kforge profile in turns (the kernels of
# ../epyc2-cpu-gelu16-2026-12-02/kernels, compiled there), ROUNDS rounds (4); then the ten
# memory-bound Level-1 problems' suite at 122c279 (../xeon16-cpu-carry-prefetch-2026-12-02/
# call-suite.sh with this tarball: stream_bw before and after, bandwidth_share.py).
set -u
TB=$PWD/.carry/kforge-122c279.tar.gz
{ echo "== $(date +%T) start"; uptime; lscpu | grep -E 'Model name|^CPU\(s\)|Model:'
  TARBALL=$TB MODE=exec CMD='
    set -u; cd '"$PWD"'; K=bench/results/epyc2-cpu-gelu16-2026-12-02/kernels
    for v in 26_old 26_new 88_old 88_new; do mkdir -p /tmp/c/$v; cp $K/$v.c /tmp/c/$v/kernel.c
      echo "{\"backend\":\"cpu-simd\",\"sources\":[\"kernel.c\"],\"entry\":\"kf_kernel\"}" > /tmp/c/$v/candidate.json; done
    for r in $(seq '"${ROUNDS:-4}"'); do for v in 26_old 26_new 88_old 88_new; do
      case $v in 26*) p=problems/level1/26_GELU.json ;; *) p=problems/level1/88_MinGPTNewGelu.json ;; esac
      printf "round %d %s: " $r $v
      KFORGE_THREADS=16 timeout 60 kforge profile --backend cpu-simd --problem $p --preset cpu --reps 30 --json /tmp/c/$v |
        python3 -c "import json,sys; d=json.load(sys.stdin); t=d.get(\"timing\") or {}; print(d[\"verdict\"], \"median %.3f ms min %.3f ms\" % (t.get(\"median_s\",0)*1e3, t.get(\"min_s\",0)*1e3))"
    done; done | tee $OUT/ab.txt
  ' bash bench/gpu/run_gpu_suite.sh
} 2>&1 | grep -v "^cpu-simd\|^cuda\|^opencl\|^skipped\|^sandbox\|^search\|^  device\|^    \|^  plugin\|^  compile" | tee $OUT/call-ab.txt
rm -f $OUT/build.log $OUT/backends.txt $OUT/gpu.txt $OUT/commit.txt
if [ "${SUITE:-1}" = 1 ]; then
  TARBALL=$TB SUITE_TIME=${SUITE_TIME:-420} bash bench/results/xeon16-cpu-carry-prefetch-2026-12-02/call-suite.sh > /dev/null 2>&1
fi
ls -la $OUT
