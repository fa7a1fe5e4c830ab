#!/usr/bin/env python3
"""bench/anchors/faster_anchors.py OUT.json A.json B.json

Two measurements of the same anchors (bench/anchors/torch_anchors.py or
ort_anchors.py, e.g. before and after a suite on a machine whose speed
drifts) merged into one: for each problem the entry of the faster
measurement (smaller best_ms), so a speedup over OUT is over the anchor's
better showing.  Each entry says where it came from ("measured": "A" or
"B", with both times: "best_ms_a", "best_ms_b"); the top level is A's with
"merged_from" naming both files.  A problem in only one file is kept from
it.  Exit 0; 2 on unreadable input or files of different tools or presets.
"""
import json
import sys


def main(argv):
    if len(argv) != 4:
        sys.stderr.write(__doc__)
        return 2
    out, fa, fb = argv[1:]
    try:
        a, b = (json.load(open(f)) for f in (fa, fb))
        pa, pb = a["problems"], b["problems"]
    except (OSError, ValueError, KeyError, TypeError) as e:
        sys.stderr.write("faster_anchors.py: %s\n" % e)
        return 2
    for key in ("tool", "preset", "device"):
        if a.get(key) != b.get(key):
            sys.stderr.write("faster_anchors.py: %s differs: %r in %s, %r in %s\n" % (key, a.get(key), fa, b.get(key), fb))
            return 2
    merged = dict(a)
    merged["merged_from"] = {"A": fa, "B": fb, "rule": "per problem the entry with the smaller best_ms"}
    probs = {}
    for name in list(pa) + [n for n in pb if n not in pa]:
        ea, eb = pa.get(name), pb.get(name)
        ta = ea.get("best_ms") if isinstance(ea, dict) else None
        tb = eb.get("best_ms") if isinstance(eb, dict) else None
        if ta is None and tb is None:
            probs[name] = ea if ea is not None else eb
            continue
        pick_b = ta is None or (tb is not None and tb < ta)
        e = dict(eb if pick_b else ea)
        e["measured"] = "B" if pick_b else "A"
        e["best_ms_a"], e["best_ms_b"] = ta, tb
        probs[name] = e
    merged["problems"] = probs
    with open(out, "w") as f:
        json.dump(merged, f, indent=1)
        f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
