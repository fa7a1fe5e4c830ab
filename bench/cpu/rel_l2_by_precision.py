#!/usr/bin/env python3
"""The relative-L2 error of every passed step of a cpu-simd suite, by the
built-in point's precision: the evidence for --precision fp32's bound
(core/problem/precision.h, KF_FP32_REL_L2).

    rel_l2_by_precision.py SUITE_DIR...

SUITE_DIR: a `kforge suite --report` directory (its runs/PROBLEM/steps/*).
Prints one line per passed step (problem, step, precision, the largest
rel_l2 over its outputs), then per precision the range.  Steps without a
built-in point (an LLM's) are listed as precision '?'.
"""
import glob
import json
import os
import re
import sys

NAMES = {0: "fp32", 1: "fp16-storage", 2: "tf32", 3: "bf16", 4: "3xbf16", 5: "amx-bf16", 6: "amx-3xbf16",
         7: "amx-2xbf16", 8: "amx-bf16c", 9: "bf16c-avx512"}


def main(dirs):
    by = {}
    for d in dirs:
        for ev in sorted(glob.glob(os.path.join(d, "runs", "*", "steps", "*", "eval.json"))):
            try:
                j = json.load(open(ev))
            except (OSError, ValueError):
                continue
            if not j.get("pass") or not j.get("stats"):
                continue
            step = os.path.dirname(ev)
            prob = os.path.basename(os.path.dirname(os.path.dirname(step)))
            prec = "?"
            try:
                notes = json.load(open(os.path.join(step, "candidate", "candidate.json"))).get("notes", "")
                m = re.search(r'builtin point: \{[^}]*"precision":(\d+)', notes)
                if m:
                    prec = NAMES.get(int(m.group(1)), m.group(1))
            except (OSError, ValueError):
                pass
            rl = max(s.get("rel_l2", 0.0) for s in j["stats"])
            print("%-42s %-8s %-12s rel_l2 %.3g" % (prob, os.path.basename(step), prec, rl))
            by.setdefault(prec, []).append((rl, prob))
    print()
    for prec, v in sorted(by.items()):
        v.sort()
        print("%-12s %3d steps  rel_l2 %.3g (%s) .. %.3g (%s)" % (prec, len(v), v[0][0], v[0][1][:2], v[-1][0],
                                                                 v[-1][1][:2]))


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])
