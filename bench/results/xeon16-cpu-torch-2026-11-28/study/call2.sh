#!/bin/bash
# device call: two suites beside PyTorch on one machine: the worker's default (libgomp's wait policy), then OMP_WAIT_POLICY=passive (the old default)
set -u
export KFORGE_PYTHON=python3
{ echo "== $(date +%T) start"; uptime
  REUSE=1 TARBALL=$PWD/.carry/kforge-new.tar.gz MODE=exec CMD='
    set -u; cd '"$PWD"'
    for v in h3: h4:OMP_WAIT_POLICY=passive; do tag=${v%%:*}; pol=${v#*:}
      echo "== $(date +%T) suite $tag ${pol:-default}"
      cat .carry/kf-$tag
      KFORGE=$PWD/.carry/kf-$tag timeout 285 bash bench/cpu/run_cpu_anchors.sh --tool torch --threads 16 --no-compile --out /tmp/rec-$tag \
          --suite-dir /tmp/suite-$tag problems/level2/*.json -- --max-iterations 4 --max-time 40 > /tmp/suite-$tag.log 2>&1
      tail -3 /tmp/rec-$tag/record.md
      tar czf $OUT/rec-$tag.tgz -C /tmp rec-$tag suite-$tag.log
    done; uptime
  ' bash bench/gpu/run_gpu_suite.sh
} 2>&1 | grep -v "^ \|^cpu-simd\|^cuda\|^opencl\|^skipped\|^sandbox\|^search" | tee $OUT/call2.txt
