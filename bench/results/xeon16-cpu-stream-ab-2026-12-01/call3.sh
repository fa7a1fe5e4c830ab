#!/bin/bash
# device call 3 (issue 15, 2026-12-02 session), 16-core host: kforge suite at 895f437 (a problem
# without a GEMM whose outputs leave the cache starts streamed) over 88, 26 and 35 at the cpu
# preset, 16 threads, --max-iterations 3 --max-time 25 (no PyTorch anchors: the device time left
# allowed one short call); each run's steps (label, time) and kept kernel.  kforge from TARBALL.
set -u
S=/tmp/suite3
{ echo "== $(date +%T) start"; uptime; lscpu | grep -E 'Model name|^CPU\(s\)|Model:'
  gcc -std=gnu11 -O2 -march=native -fopenmp bench/cpu/stream_bw.c -o /tmp/stream_bw && /tmp/stream_bw 16 256 3 | grep copy-nt
  TARBALL=${TARBALL:-$PWD/.carry/kforge-895f437.tar.gz} MODE=exec CMD='
    set -u; cd '"$PWD"'
    echo "== $(date +%T) suite"
    KFORGE_THREADS=16 timeout ${SUITE_TIME:-150} kforge suite problems/level1/88_MinGPTNewGelu.json problems/level1/26_GELU.json \
        problems/level1/35_GroupNorm.json --backend cpu-simd --preset cpu --max-iterations 3 --max-time 25 --report '"$S"' 2>&1 | tail -8
    for r in '"$S"'/runs/*/; do echo "-- $r"
      python3 - $r <<"P"
import json, os, sys, glob
r = sys.argv[1]
for sd in sorted(glob.glob(os.path.join(r, "steps", "*"))):
    c = os.path.join(sd, "candidate", "candidate.json")
    note = json.load(open(c)).get("notes", "") if os.path.exists(c) else ""
    pt = note.split("builtin point: ")[-1] if "builtin point" in note else note
    e = os.path.join(sd, "eval.json")
    t = (json.load(open(e)).get("timing") or {}).get("median_s", 0) if os.path.exists(e) else 0
    print(os.path.basename(sd), pt[pt.find("\"stream\""):pt.find("\"stream\"") + 24], "%.3f ms" % (t * 1e3))
d = json.load(open(os.path.join(r, "result.json")))
b = d.get("best") or {}
print("best", b.get("dir"), "median_ms %.3f" % (b.get("median_s", 0) * 1e3), "confirmed", b.get("confirmed"), "baseline_ms %.3f" % ((d.get("baseline") or {}).get("median_s", 0) * 1e3))
P
    done
  ' bash bench/gpu/run_gpu_suite.sh
  /tmp/stream_bw 16 256 3 | grep copy-nt
  echo "== $(date +%T) end"; uptime
} 2>&1 | tee $OUT/call3.txt
tar czf $OUT/suite3.tgz -C /tmp suite3/report.json suite3/runs 2>/dev/null
rm -f $OUT/build.log $OUT/backends.txt $OUT/gpu.txt $OUT/commit.txt
