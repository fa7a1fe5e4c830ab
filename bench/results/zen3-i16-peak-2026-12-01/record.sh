#!/bin/bash
# Zen 3 2-core VM (issue 15, 2026-12-01): the cpu-simd probe's peaks, measured afresh three times
# (a new peaks cache each time, so nothing is kept from an earlier run), with the int16-pair peak
# of ABI 1.6.  KF_BUILDDIR: a build of the commit named in out/git.txt.
set -u
B=${KF_BUILDDIR:-/tmp/bld}; OUTD=${OUTD:-$(dirname "$0")/out}; mkdir -p "$OUTD"
git -C "$(dirname "$0")" log -1 --format='%H %s' > "$OUTD/git.txt"
{ date -u; uptime; grep -m1 'model name' /proc/cpuinfo; nproc; } > "$OUTD/machine.txt"
for r in 1 2 3; do
  c=$(mktemp -d)
  XDG_CACHE_HOME=$c KFORGE_PLUGIN_PATH=$B/plugins/cpu-simd/.libs KFORGE_PLUGIN_SYSTEM_PATH= \
      "$B/core/kforge" backends --json > "$OUTD/backends-$r.json"
  python3 -c "import json,sys; d=json.load(open(sys.argv[1])); v=d['plugins'][0]['devices'][0]; print('run $r: fp32 %.1f GFLOP/s (%s), int16 pairs %.1f GFLOP/s, ratio %.2f, bandwidth %.1f GB/s' % (v['peak_gflops'], 'measured' if v['peak_gflops_measured'] else 'estimated', v['peak_gflops_i16'], v['peak_gflops_i16'] / v['peak_gflops'], v['peak_gbps']))" "$OUTD/backends-$r.json"
  rm -rf "$c"
done | tee "$OUTD/peaks.txt"
