#!/usr/bin/env python3
"""bench/cpu/bandwidth_share.py — the memory-bound problems of a suite
against the memory bandwidth measured in the same run (issue 15: "the
single-op and memory-bound problems at >= 80% of measured bandwidth").

    bench/cpu/bandwidth_share.py REPORT.json BW.json [BW.json...] [--kforge K]

REPORT.json: a `kforge suite` report; BW.json: files whose last line is
bench/cpu/stream_bw.c's JSON (before and after the suite).  Each problem's
bytes are `kforge check --json`'s min_bytes at the report's preset (what
must cross memory: every input read and every output written once), so a
kernel's rate is min_bytes / its time.  Printed per problem: the time, that
rate, its share of the copy with non-temporal stores (the stream such a
kernel is: read x, write y) and of the best stream of the same run, taking
the lower of the before / after figures (the host's rate when it was
slowest: the share is then the kernel's best case; the higher figure is
printed too), and PyTorch's time and speedup where the report has them.
The next share is against the stream of the problem's own kind: a problem
whose outputs are under 5% of its bytes (a reduction, a matrix-vector
product) only reads, and a core's reads alone can run at half of what a
copy moves (the 2-core Zen 4 VM: read 31-37 GB/s, copy-nt 60-66), so it is
held to the read stream; the rest to copy-nt.
The last share is against the copy timed the way the kernels are: where the
report has 19_ReLU, its best kernel (max(x, 0) with streaming stores at the
cpu preset: a copy of the same 64 MiB in and out as the other memory-bound
problems) is timed by the same evaluator in the same suite (for each run
the worker stopped while its parent writes fresh inputs, then resumed; the
median), which stream_bw's best of five back-to-back passes is not: on the 16-core host
`kforge profile` timed that copy at 1.3x a plain harness's time
(bench/results/xeon16-cpu-timing-gap-2026-11-30).  "-" where the report
has no 19, and for the read-only problems.
A Markdown table on stdout."""
import json
import os
import subprocess
import sys


def prod(shape):
    n = 1
    for d in shape:
        n *= d
    return n


def reads_only(chk):
    """Is the problem of `kforge check --json` output chk held to the read stream (its float32
    outputs under 5% of its min_bytes: a reduction, a matrix-vector product)?  Else copy-nt."""
    return sum(4 * prod(o["shape"]) for o in chk["outputs"]) < 0.05 * chk["min_bytes"]


def min_bytes_check(kforge, path, preset):
    """`kforge check --json --no-trivial` of problem file `path` at `preset` (min_bytes, outputs)."""
    return json.loads(subprocess.run([kforge, "check", path, "--preset", preset, "--json", "--no-trivial"],
                                     capture_output=True, text=True, check=True).stdout)


def last_json(path):
    with open(path) as f:
        lines = [l for l in f.read().splitlines() if l.startswith("{")]
    if not lines:
        sys.exit("bandwidth_share.py: no JSON line in %s" % path)
    return json.loads(lines[-1])


def main(argv):
    kforge = os.environ.get("KFORGE", "kforge")
    args = []
    i = 0
    while i < len(argv):
        if argv[i] == "--kforge":
            kforge = argv[i + 1]
            i += 2
            continue
        args.append(argv[i])
        i += 1
    if len(args) < 2:
        sys.exit(__doc__)
    rep = json.load(open(args[0]))
    bws = [last_json(p) for p in args[1:]]
    nt_lo = min(b["copy_nt_gbs"] for b in bws)
    nt_hi = max(b["copy_nt_gbs"] for b in bws)
    best_lo = min(b["best_gbs"] for b in bws)
    rd_lo = min(b["read_gbs"] for b in bws)
    print("Same-run bandwidth (bench/cpu/stream_bw.c, %d threads): copy-nt %.1f-%.1f GB/s, read %.1f-%.1f GB/s, "
          "best stream %.1f-%.1f GB/s"
          % (bws[0]["threads"], nt_lo, nt_hi, rd_lo, max(b["read_gbs"] for b in bws), best_lo,
             max(b["best_gbs"] for b in bws)))
    print()
    print("| problem | precision | kforge ms | GB/s (min bytes) | % of copy-nt (low / high) | % of best stream (low) "
          "| its stream: % of it (low) | % of the suite's copy (19) | PyTorch ms | vs PyTorch |")
    print("| --- | --- | ---: | ---: | ---: | ---: | --- | ---: | ---: | ---: |")
    preset = rep.get("settings", {}).get("preset", "cpu")
    checks = {}

    def check(name):   # kforge check of the problem file: its name with the number zero-padded ("4_X" is 04_X.json)
        if name not in checks:
            num, _, rest = name.partition("_")
            want = "%s_%s.json" % (num.zfill(2), rest)
            path = next((os.path.join(d, want) for d in ("problems/level1", "problems/level2")
                         if os.path.isfile(os.path.join(d, want))), None)
            checks[name] = min_bytes_check(kforge, path, preset) if path else None
        return checks[name]

    copy = next((p for p in rep["problems"] if p["name"] == "19_ReLU" and p.get("best_s")), None)
    copy_chk = check(copy["name"]) if copy else None
    copy_gbs = copy_chk["min_bytes"] / copy["best_s"] / 1e9 if copy_chk else None
    for p in rep["problems"]:
        t = p.get("best_s")
        chk = check(p["name"]) if t else None
        if not chk:
            print("| %s | - | - | - | - | - | - | - | - | - |" % p["name"])
            continue
        gbs = chk["min_bytes"] / t / 1e9
        reads = reads_only(chk)
        own = ("read", rd_lo) if reads else ("copy-nt", nt_lo)
        pt = p.get("pytorch") or {}
        eager = pt.get("eager_s")
        print("| %s | %s | %.2f | %.1f | %.0f%% / %.0f%% | %.0f%% | %s: %.0f%% | %s | %s | %s |"
              % (p["name"], p.get("precision") or "-", t * 1e3, gbs, 100 * gbs / nt_lo, 100 * gbs / nt_hi,
                 100 * gbs / best_lo, own[0], 100 * gbs / own[1],
                 "%.0f%%" % (100 * gbs / copy_gbs) if copy_gbs and not reads else "-", "%.2f" % (eager * 1e3) if eager else "-",
                 "%.2fx" % pt["speedup_vs_eager"] if pt.get("speedup_vs_eager") else "-"))


if __name__ == "__main__":
    main(sys.argv[1:])
