#!/usr/bin/env python3
"""bench/cpu/records_table.py — several records of bench/cpu/run_cpu_anchors.sh side by side.

    python3 bench/cpu/records_table.py RECORD_DIR...

Per problem and record: the anchor's time before / after the suite, KForge's best time and the
precision of its kernel; then per record KForge's geomean time, the anchors' geomeans (before,
after, the faster of the two per problem), the geomean speedup against the faster one and the
problems under 1x there.  Reads anchors.json, anchors-after.json and report.json of each record
(a record without anchors-after.json is compared with its anchors.json alone).
"""
import json
import math
import os
import sys


def geomean(values):
    return math.exp(sum(math.log(v) for v in values) / len(values))


def load(rec):
    before = json.load(open(os.path.join(rec, "anchors.json")))["problems"]
    after_path = os.path.join(rec, "anchors-after.json")
    after = json.load(open(after_path))["problems"] if os.path.exists(after_path) else before
    report = {p["name"]: p for p in json.load(open(os.path.join(rec, "report.json")))["problems"]}
    return before, after, report


def main(argv):
    if len(argv) < 2 or argv[1] in ("-h", "--help"):
        print(__doc__.strip())
        return 2 if len(argv) < 2 else 0
    recs = [r.rstrip("/") for r in argv[1:]]
    data = [load(r) for r in recs]
    names = [n for n in data[0][2] if all(n in d[2] and d[2][n].get("correct") for d in data)]
    print("| problem | " + " | ".join(os.path.basename(r) + ": torch before / after, best, precision" for r in recs) + " |")
    print("| --- |" + " --- |" * len(recs))
    for n in names:
        cells = []
        for before, after, report in data:
            cells.append("%.2f / %.2f, %.2f ms, %s" % (before[n]["eager_ms"], after[n]["eager_ms"],
                                                       report[n]["best_s"] * 1e3, report[n]["precision"]))
        print("| %s | %s |" % (n, " | ".join(cells)))
    print()
    for rec, (before, after, report) in zip(recs, data):
        best = geomean([report[n]["best_s"] * 1e3 for n in names])
        faster = {n: min(before[n]["eager_ms"], after[n]["eager_ms"]) for n in names}
        under = [n for n in names if faster[n] < report[n]["best_s"] * 1e3]
        print("%s: KForge geomean %.3f ms; torch before %.2f, after %.2f, faster %.2f ms; %.2fx against the faster; "
              "under 1x: %s" % (os.path.basename(rec), best, geomean([before[n]["eager_ms"] for n in names]),
                                geomean([after[n]["eager_ms"] for n in names]), geomean(list(faster.values())),
                                geomean(list(faster.values())) / best, ", ".join(under) or "none"))
    if len(names) < len(data[0][2]):
        print("(%d problems left out: not correct in every record)" % (len(data[0][2]) - len(names)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
