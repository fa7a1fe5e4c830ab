#!/usr/bin/env python3
"""A suite's best CPU kernels and an anchor timed side by side, problem by
problem, rounds interleaved: the kernel through `kforge profile` (the suite's
own measurement), the anchor in this process, one right after the other:
PyTorch eager (--tool torch, the default: torch_anchors.py's graph and
timing), ONNX Runtime CPU (--tool ort: ort_anchors.py's model, session and
timing), or the machine's streaming bandwidth (--tool stream: see below).

  paired_anchors.py OUT.json SUITE_DIR PROBLEM.json|DIR... [--tool torch|ort|stream]
                    [--threads N] [--rounds 3] [--reps 30] [--preset cpu] [--kforge PATH]
                    [--inputs same|fresh|both] [--stream-bw PATH] [--stream-mib 256]

SUITE_DIR is a `kforge suite` report directory (runs/<problem name>/ with
result.json); each problem's best kernel is profiled as it is.  The suite's
own ratio sets a kernel timed once in the search against the anchor timed
before and after the whole suite: on a shared host whose speed moves for
minutes at a time (bench/results/xeon16-cpu-torch-2026-11-28, runs h5 and
h6 of -28b) the two sides then saw different machines.  Here each round's
pair is seconds apart (the side that goes first alternates by round), and
the ratio per problem is the median of the rounds' ratios (the anchor's
median time over the kernel's).  Prints one line per problem and round and
a summary (geomean of the per-problem median ratios, the problems under 1x,
those whose kernel failed a round's profile: left out of the geomean, never
silently); OUT.json keeps every round's times.

--inputs (PyTorch only): how the anchor's inputs stand between its timed calls.
`same` (the default; KernelBench's convention) calls it back to back on the same
inputs, which stay in the last-level cache when they fit (the 16-core host's L3
is 300 MiB: problem 47's 64 MiB input is read from it); `fresh` prepares each
timed call as kforge prepares its own timed runs: new inputs drawn into memory
of their own, an untimed call on the previous ones, the new ones copied in
(torch_anchors.bench); `both` times the anchor
both ways in each round and reports a ratio for each (anchor_ms and
anchor_fresh_ms; the summary's second line is against the fresh timing).

--tool stream (issue 15: the memory-bound problems at >= 80% of measured
bandwidth): the anchor is bench/cpu/stream_bw.c (--stream-bw: its binary) at
--threads over --stream-mib MiB, best of 3, run beside each kernel's profile;
its anchor_ms is the time that stream would take to move the problem's
min_bytes (`kforge check`: every input read and every output written once),
so the ratio is the kernel's rate over the stream's: its share of the
bandwidth measured in the same minute.  The stream is copy-nt, or the read
stream for a problem that only reads (bandwidth_share.py's reads_only);
each round's rates are kept (stream_gbs, stream)."""
import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import time

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "anchors"))
from anchors_common import cpu_model, load, problem_files  # noqa: E402


class TorchAnchor:
    """PyTorch eager, fp32, in this process (torch_anchors.py)."""
    name = "PyTorch eager"

    def __init__(self, args):
        import torch
        import torch_anchors
        self.t, self.args = torch_anchors, args
        torch.set_num_threads(args.threads)
        self.version = "pytorch " + torch.__version__

    def prepare(self, prob, dims, path):
        return self.t.build(prob, "cpu"), self.t.make_inputs(prob, dims, "cpu"), prob, dims

    def time(self, prep, fresh=False):
        draw = None
        if fresh:
            draw = lambda: self.t.make_inputs(prep[2], prep[3], "cpu",  # noqa: E731
                                              seed=int.from_bytes(os.urandom(8), "little") >> 1)
        return self.t.bench(prep[0], prep[1], self.args.reps, self.args.warmup, "cpu", draw)["ms"]


class OrtAnchor:
    """ONNX Runtime CPU, fp32, in this process (ort_anchors.py: a session of
    --threads intra-op threads, IOBinding)."""
    name = "ONNX Runtime"

    def __init__(self, args):
        import onnxruntime
        import ort_anchors
        self.o, self.args = ort_anchors, args
        self.version = "onnxruntime " + onnxruntime.__version__

    def prepare(self, prob, dims, path):
        return prob, dims

    def time(self, prep, fresh=False):
        return self.o.bench(prep[0], prep[1], self.args)["ms"]


class StreamAnchor:
    """bench/cpu/stream_bw.c's streams (the same threads), as the time to move the
    problem's min_bytes at the stream's rate."""
    name = "the streaming bandwidth"

    def __init__(self, args):
        import bandwidth_share
        self.bs, self.args = bandwidth_share, args
        if not args.stream_bw or not os.access(args.stream_bw, os.X_OK):
            sys.exit("paired_anchors.py: --tool stream needs --stream-bw, the stream_bw binary "
                     "(gcc -O2 -march=native -fopenmp bench/cpu/stream_bw.c)")
        self.version = "stream_bw %d threads %d MiB" % (args.threads, args.stream_mib)
        self.last = {}

    def prepare(self, prob, dims, path):
        chk = self.bs.min_bytes_check(self.args.kforge, path, self.args.preset)
        return chk["min_bytes"], ("read" if self.bs.reads_only(chk) else "copy_nt")

    def time(self, prep, fresh=False):
        p = subprocess.run([self.args.stream_bw, str(self.args.threads), str(self.args.stream_mib), "3"],
                           capture_output=True, text=True, check=True)
        bw = json.loads([l for l in p.stdout.splitlines() if l.startswith("{")][-1])
        gbs = bw[prep[1] + "_gbs"]
        self.last = {"stream": prep[1], "stream_gbs": gbs}
        return prep[0] / (gbs * 1e9) * 1e3


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
    ap.add_argument("--tool", choices=("torch", "ort", "stream"), default="torch")
    ap.add_argument("--stream-bw", help="--tool stream: the stream_bw binary")
    ap.add_argument("--stream-mib", type=int, default=256, help="--tool stream: MiB a stream array")
    ap.add_argument("--inputs", choices=("same", "fresh", "both"), default="same",
                    help="the anchor's inputs between timed calls (PyTorch only; see above)")
    args = ap.parse_args(argv)
    if args.rounds < 1 or args.reps < 20:
        ap.error("--rounds >= 1 and --reps >= 20")
    if args.inputs != "same" and args.tool != "torch":
        ap.error("--inputs fresh|both: PyTorch only (--tool torch)")
    same = args.inputs in ("same", "both")
    fresh = args.inputs in ("fresh", "both")
    args.threads = args.threads or len(os.sched_getaffinity(0))
    anchor = {"torch": TorchAnchor, "ort": OrtAnchor, "stream": StreamAnchor}[args.tool](args)
    env = dict(os.environ, KFORGE_THREADS=str(args.threads))
    probs = []
    for path in problem_files(args.problems):
        prob, dims = load(path, args.preset)
        try:
            cand = best_candidate(args.suite, prob["name"])
        except (OSError, RuntimeError, ValueError) as ex:
            print("%-40s skipped: %s" % (prob["name"], ex), flush=True)
            continue
        probs.append({"name": prob["name"], "path": path, "cand": cand, "prep": anchor.prepare(prob, dims, path),
                      "rounds": []})
    res = {"tool": args.tool, "version": anchor.version, "threads": args.threads, "preset": args.preset,
           "machine": {"cpu": cpu_model(), "cpus": os.cpu_count()}, "suite": os.path.abspath(args.suite),
           "reps": args.reps, "rounds": args.rounds, "inputs": args.inputs,
           "timing": "per round: the anchor's median of --reps wall-clock calls (after --warmup) and kforge "
                     "profile's median of the best kernel, one right after the other; ratio = anchor / kernel; "
                     "anchor_ms: back-to-back calls on the same inputs; anchor_fresh_ms: before each timed call, "
                     "new inputs drawn, an untimed call on the old ones, the new ones copied in (as kforge "
                     "prepares its timed runs)",
           "problems": {}}
    # (key of the anchor's time in a round, suffix of the ratio fields, words in the summary line)
    sides = ([("anchor_ms", "", "same inputs")] if same else []) + \
        ([("anchor_fresh_ms", "_fresh", "fresh inputs")] if fresh else [])
    if args.tool == "stream":
        sides = [("anchor_ms", "", "copy-nt (read for read-only problems) timed beside each kernel")]

    def summarize_rounds(final):
        """every problem's rounds so far -> res; the summary printed at the end"""
        done = []
        failed = [p["name"] for p in probs if any(not r["kforge_ms"] for r in p["rounds"])]
        for key, sfx, words in sides:
            ratios = []
            for p in probs:
                rs = [r[key] / r["kforge_ms"] for r in p["rounds"] if r["kforge_ms"]]
                e = res["problems"].setdefault(p["name"], {})
                e.update({"candidate": p["cand"], "rounds": p["rounds"]})
                if rs:
                    e.update({"ratio_median" + sfx: statistics.median(rs), "ratio_min" + sfx: min(rs),
                              "ratio_max" + sfx: max(rs),
                              key + "_median": statistics.median(r[key] for r in p["rounds"]),
                              "kforge_ms_median": statistics.median(r["kforge_ms"] for r in p["rounds"]
                                                                    if r["kforge_ms"])})
                    ratios.append((p["name"], e["ratio_median" + sfx]))
            if ratios:
                g = math.exp(sum(math.log(r) for _, r in ratios) / len(ratios))
                under = [n for n, r in ratios if r < 1]
                res["summary" + sfx] = {"geomean_ratio": g, "problems": len(ratios), "under_1x": under,
                                        "rounds_done": min(len(p["rounds"]) for p in probs),
                                        "profile_failed": failed, "anchor_inputs": words}
                if final:
                    print("paired: %.2fx over %s, %s (geomean of %d per-problem medians of %d rounds); "
                          "under 1x: %s%s" % (g, anchor.name, words, len(ratios), args.rounds,
                                              ", ".join(under) or "none",
                                              "; a profile failed: " + ", ".join(failed) if failed else ""),
                          flush=True)
            done.append(ratios)
        with open(args.out, "w") as f:   # rewritten after every pair: a timeout keeps what was done
            json.dump(res, f, indent=1)
        return all(done)

    def time_anchor(p):
        t = {key: anchor.time(p["prep"], fresh=bool(sfx)) for key, sfx, _ in sides}
        t.update(getattr(anchor, "last", {}))   # the stream's kind and rate
        return t

    for rnd in range(args.rounds):
        # each round starts at another problem, so no problem always follows the same one
        order = probs[rnd % len(probs):] + probs[:rnd % len(probs)] if probs else []
        for p in order:
            if rnd % 2 == 0:   # the side that goes first alternates by round
                t = time_anchor(p)
                time.sleep(args.pause)
                k, verdict = profile(args, p["path"], p["cand"], env)
            else:
                k, verdict = profile(args, p["path"], p["cand"], env)
                time.sleep(args.pause)
                t = time_anchor(p)
            time.sleep(args.pause)
            p["rounds"].append(dict(t, kforge_ms=k, verdict=verdict))
            print("round %d %-40s %s  kforge %s  %s" % (
                rnd + 1, p["name"][:40],
                "  ".join("%s%s %8.3f ms" % (args.tool, sfx, t[key]) for key, sfx, _ in sides),
                "%8.3f ms" % k if k else "   -    ",
                "  ".join("%.2fx" % (t[key] / k) for key, _, _ in sides) if k else verdict), flush=True)
            if rnd + 1 < args.rounds or p is not order[-1]:
                summarize_rounds(False)   # a round cut short by a timeout keeps its pairs
    return 0 if summarize_rounds(True) else 1


if __name__ == "__main__":
    sys.exit(main())
