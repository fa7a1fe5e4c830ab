#!/usr/bin/env python3
"""The parent's round-trip check on honest candidates: for every passing,
profiled eval.json given (host clock), the smallest gap (round trip less the
worker's sample) among the faster half of the samples, against the check's
allowance (4 channel round trips + 300 us + 10% of the median round trip,
core/eval/eval_profile.c kf_timing_check).  Usage: timing_gaps.py EVAL.json..."""
import json, statistics, sys

rows = []
for f in sys.argv[1:]:
    try:
        d = json.load(open(f))
    except (OSError, ValueError):
        continue
    t = d.get("timing") or {}
    s, w, ch = t.get("samples_s"), t.get("round_trips_s"), t.get("channel_s")
    if d.get("verdict") != "pass" or not s or not w or len(s) != len(w) or t.get("clock_is_device"):
        continue
    idx = sorted(range(len(s)), key=lambda i: s[i])[:max(1, len(s) // 2)]
    g = min(w[i] - s[i] for i in idx)
    m = statistics.median(w)
    rows.append((g / (4 * ch + 300e-6 + 0.1 * m), g, statistics.median(w) - ch - statistics.median(s), f))
rows.sort()
print("%d passing host-clock profiles" % len(rows))
for q in (0.5, 0.9, 0.99, 1.0):
    r = rows[min(len(rows) - 1, int(q * len(rows)))]
    print("quantile %.2f: smallest faster-half gap %.0f us = %.3f of the allowance" % (q, r[1] * 1e6, r[0]))
print("largest share: %.0f us = %.3f of the allowance (%s)" % (rows[-1][1] * 1e6, rows[-1][0], rows[-1][3]))
print("largest smallest-gap: %.0f us" % (max(r[1] for r in rows) * 1e6))
med = sorted(r[2] for r in rows)
print("median round trip less channel less median sample: median %.0f us, largest %.0f us" %
      (med[len(med) // 2] * 1e6, med[-1] * 1e6))
