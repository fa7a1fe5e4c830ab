#!/usr/bin/env python3
"""summarize.py results.tsv — per problem: median over rounds of the before,
after and PyTorch eager times, and the medians of the per-round ratios
(eager / before, eager / after, before / after: > 1 = faster than the other)."""
import statistics as st
import sys

rows = {}
for line in open(sys.argv[1]):
    if line.startswith("round"):
        continue
    r, p, w, t = line.split()
    rows.setdefault(p, {}).setdefault(w, {})[int(r)] = float(t)
print("| problem | before (ms) | after (ms) | PyTorch eager (ms) | eager / before | eager / after | before / after |")
print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
g_b, g_a = [], []
for p in sorted(rows):
    d = rows[p]
    rounds = sorted(set(d.get("before", {})) & set(d.get("after", {})) & set(d.get("torch-eager", {})))
    rounds = [r for r in rounds if d["before"][r] > 0 and d["after"][r] > 0]
    if not rounds:
        print("| %s | - | - | - | - | - | - |" % p)
        continue
    med = lambda w: st.median(d[w][r] for r in rounds) * 1e3
    eb = st.median(d["torch-eager"][r] / d["before"][r] for r in rounds)
    ea = st.median(d["torch-eager"][r] / d["after"][r] for r in rounds)
    ba = st.median(d["before"][r] / d["after"][r] for r in rounds)
    g_b.append(eb)
    g_a.append(ea)
    print("| %s | %.1f | %.1f | %.1f | %.2fx | %.2fx | %.2fx |" % (p, med("before"), med("after"), med("torch-eager"), eb, ea, ba))
if g_b:
    gm = lambda v: st.geometric_mean(v)
    print("\nGeometric mean over these problems, vs PyTorch eager: before %.2fx, after %.2fx (%d rounds)" %
          (gm(g_b), gm(g_a), len(rounds)))
