#!/bin/sh
# prof.sh PROBLEM FILE... : median/min/roofline per file
p=$1; shift
for f in "$@"; do printf '%s: ' "$f"; /tmp/bld/core/kforge profile --backend cpu-simd --problem "$p" --preset cpu --json "$f" 2>&1 | python3 -c "
import json,sys; d=json.load(sys.stdin)
t=d.get('timing'); r=d.get('roofline',{})
print(d['verdict'], 'med %.3f ms min %.3f ms roof %.2f GB/s %.1f' % (t['median_s']*1e3, t['min_s']*1e3, r.get('fraction',0), r.get('achieved_bytes_per_s',0)/1e9) if t else d['summary'][:300])"; done
