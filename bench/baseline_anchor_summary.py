#!/usr/bin/env python3
"""Summary of a bench/baseline_anchor.sh table (baseline_anchor.txt).

    python3 bench/baseline_anchor_summary.py DIR/baseline_anchor.txt

Per condition and build: the baseline / GEMM-anchor ratios over all runs,
and over the runs whose machine was otherwise idle in the second before
them (busy at most 15% of all CPUs in "quiet"; at most 15% plus the busy
process's share in "busy1"), since other users of a shared machine can load
it while the script waits.  The criteria this was written for: quiet
<= 1.15x, busy1 <= 1.5x.  Prints; never fails on timings.
"""
import re
import statistics
import sys

LINE = re.compile(r"^(\w+)\s+(\d+)\s+(\S+)\s+(\S+)\s+([\d.]+) ms\s+([\d.]+) ms\s+[\d.]+x\s+busy (\d+)%")


def main(path, ncpu=None):
    text = open(path).read()
    if ncpu is None:
        m = re.search(r"^CPU\(s\): (\d+)", text, re.M)
        ncpu = int(m.group(1)) if m else 2
    runs = []
    for line in text.splitlines():
        m = LINE.match(line)
        if m:
            cond, rnd, build, prob, bl, an, busy = m.groups()
            runs.append((cond, build, prob, float(bl), float(an), int(busy)))
    if not runs:
        print("no runs in %s" % path)
        return
    conds = list(dict.fromkeys(r[0] for r in runs))
    builds = list(dict.fromkeys(r[1] for r in runs))
    print("summary: baseline / GEMM anchor per condition and build (criteria: quiet <= 1.15x, busy1 <= 1.5x)")
    print("  'idle' = runs whose machine was otherwise idle in the second before them (other users' load "
          "<= 15%% of the %d CPUs)" % ncpu)
    for c in conds:
        lim = 1.15 if c == "quiet" else 1.5
        extra = 0 if c == "quiet" else 100 // ncpu
        for b in builds:
            sel = [r for r in runs if r[0] == c and r[1] == b]
            if not sel:
                continue
            for name, sub in (("all", sel), ("idle", [r for r in sel if r[5] <= 15 + extra])):
                ratios = [r[3] / r[4] for r in sub]
                if not ratios:
                    print("  %-6s %-9s %-4s  no runs" % (c, b, name))
                    continue
                ok = sum(1 for x in ratios if x <= lim)
                print("  %-6s %-9s %-4s %2d runs: median %.2fx, min %.2fx, max %.2fx; %d/%d within %.2fx"
                      % (c, b, name, len(ratios), statistics.median(ratios), min(ratios), max(ratios), ok,
                         len(ratios), lim))


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
