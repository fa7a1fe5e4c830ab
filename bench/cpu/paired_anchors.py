#!/usr/bin/env python3
"""A suite's best CPU kernels and PyTorch eager timed side by side, problem by
problem, rounds interleaved: the kernel through `kforge profile` (the suite's
own measurement), PyTorch in this process (torch_anchors.py's graph and
timing), one right after the other.

  paired_anchors.py OUT.json SUITE_DIR PROBLEM.json|DIR... [--threads N]
                    [--rounds 3] [--reps 30] [--preset cpu] [--kforge PATH]

SUITE_DIR is a `kforge suite` report directory (runs/<problem name>/ with
result.json); each problem's best kernel is profiled as it is.  The suite's
own ratio sets a kernel timed once in the search against PyTorch timed
before and after the whole suite: on a shared host whose speed moves for
minutes at a time (bench/results/xeon16-cpu-torch-2026-11-28, runs h5 and
h6) the two sides then saw different machines.  Here each round's pair is
seconds apart (the side that goes first alternates by round), and the
ratio per problem is the median of the rounds' ratios (PyTorch's median
time over the kernel's).  Prints one line per
problem and round and a summary (geomean of the per-problem median ratios,
the problems under 1x); OUT.json keeps every round's times."""
import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import time

import torch

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "anchors"))
from anchors_common import cpu_model, load, problem_files  # noqa: E402
from torch_anchors import bench, build, make_inputs  # noqa: E402


def best_candidate(suite, name):
    run = os.path.join(suite, "runs", name)
    with open(os.path.join(run, "result.json")) as f:
        best = json.load(f).get("best") or {}
    if not best.get("dir"):
        raise RuntimeError("no best kernel in " + run)
    return os.path.join(run, best["dir"])


def profile(args, path, cand, env):
    """The kernel's median over --reps timed runs (ms), from `kforge profile --json`."""
    p = subprocess.run([args.kforge, "profile", "--backend", "cpu-simd", "--problem", path, "--preset",
                        args.preset, "--reps", str(args.reps), "--json", cand],
                       capture_output=True, text=True, env=env)
    try:
        r = json.loads(p.stdout)
        if r.get("pass") and r.get("timing"):
            return r["timing"]["median_s"] * 1e3, r.get("verdict")
        return None, r.get("verdict") or "failed"
    except ValueError:
        return None, "kforge profile exit %d: %s" % (p.returncode, (p.stderr or p.stdout).strip()[-200:])


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out")
    ap.add_argument("suite")
    ap.add_argument("problems", nargs="+")
    ap.add_argument("--threads", type=int, help="threads of both sides (default: all CPUs of this process)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--reps", type=int, default=30, help="timed runs a side a round (kforge profile: at least 20)")
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--preset", default="cpu")
    ap.add_argument("--pause", type=float, default=0.3, help="seconds between the two sides (idle threads sleep)")
    ap.add_argument("--kforge", default=os.environ.get("KFORGE", "kforge"))
    args = ap.parse_args(argv)
    if args.rounds < 1 or args.reps < 20:
        ap.error("--rounds >= 1 and --reps >= 20")
    args.threads = args.threads or len(os.sched_getaffinity(0))
    torch.set_num_threads(args.threads)
    env = dict(os.environ, KFORGE_THREADS=str(args.threads))
    probs = []
    for path in problem_files(args.problems):
        prob, dims = load(path, args.preset)
        try:
            cand = best_candidate(args.suite, prob["name"])
        except (OSError, RuntimeError, ValueError) as ex:
            print("%-40s skipped: %s" % (prob["name"], ex), flush=True)
            continue
        probs.append({"name": prob["name"], "path": path, "cand": cand,
                      "fn": build(prob, "cpu"), "xs": make_inputs(prob, dims, "cpu"), "rounds": []})
    res = {"tool": "pytorch", "version": torch.__version__, "threads": args.threads, "preset": args.preset,
           "machine": {"cpu": cpu_model(), "cpus": os.cpu_count()}, "suite": os.path.abspath(args.suite),
           "reps": args.reps, "rounds": args.rounds,
           "timing": "per round: PyTorch eager's median of --reps wall-clock calls (after --warmup), then "
                     "kforge profile's median of the best kernel; ratio = PyTorch / kernel",
           "problems": {}}
    def summarize_rounds(final):
        """every problem's rounds so far -> res; the summary printed at the end"""
        ratios = []
        for p in probs:
            rs = [r["torch_ms"] / r["kforge_ms"] for r in p["rounds"] if r["kforge_ms"]]
            e = {"candidate": p["cand"], "rounds": p["rounds"]}
            if rs:
                e.update({"ratio_median": statistics.median(rs), "ratio_min": min(rs), "ratio_max": max(rs),
                          "torch_ms_median": statistics.median(r["torch_ms"] for r in p["rounds"]),
                          "kforge_ms_median": statistics.median(r["kforge_ms"] for r in p["rounds"]
                                                                if r["kforge_ms"])})
                ratios.append((p["name"], e["ratio_median"]))
            res["problems"][p["name"]] = e
        if ratios:
            g = math.exp(sum(math.log(r) for _, r in ratios) / len(ratios))
            under = [n for n, r in ratios if r < 1]
            res["summary"] = {"geomean_ratio": g, "problems": len(ratios), "under_1x": under,
                              "rounds_done": min(len(p["rounds"]) for p in probs)}
            if final:
                print("paired: %.2fx over PyTorch eager (geomean of %d per-problem medians of %d rounds); "
                      "under 1x: %s" % (g, len(ratios), args.rounds, ", ".join(under) or "none"), flush=True)
        with open(args.out, "w") as f:   # rewritten after every round: a timeout keeps what was done
            json.dump(res, f, indent=1)
        return ratios

    for rnd in range(args.rounds):
        # each round starts at another problem, so no problem always follows the same one
        order = probs[rnd % len(probs):] + probs[:rnd % len(probs)] if probs else []
        for p in order:
            if rnd % 2 == 0:   # the side that goes first alternates by round
                t = bench(p["fn"], p["xs"], args.reps, args.warmup, "cpu")["ms"]
                time.sleep(args.pause)
                k, verdict = profile(args, p["path"], p["cand"], env)
            else:
                k, verdict = profile(args, p["path"], p["cand"], env)
                time.sleep(args.pause)
                t = bench(p["fn"], p["xs"], args.reps, args.warmup, "cpu")["ms"]
            time.sleep(args.pause)
            p["rounds"].append({"torch_ms": t, "kforge_ms": k, "verdict": verdict})
            print("round %d %-40s torch %8.3f ms  kforge %s  %s" % (
                rnd + 1, p["name"][:40], t, "%8.3f ms" % k if k else "   -    ",
                "%.2fx" % (t / k) if k else verdict), flush=True)
        if rnd + 1 < args.rounds:
            summarize_rounds(False)
    return 0 if summarize_rounds(True) else 1


if __name__ == "__main__":
    sys.exit(main())
