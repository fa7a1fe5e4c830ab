#!/usr/bin/env python3
"""bench/cpu/harness_share.py — a suite's memory-bound kernels against a
streaming reference timed the same way, in the same minute (issue 15: "the
single-op and memory-bound problems at >= 80% of measured bandwidth").

    harness_share.py OUT.json SUITE_DIR PROBLEM.json|DIR... [--threads N] [--rounds 3]
                     [--reps 21] [--preset cpu] [--profile] [--harness PATH] [--packed]
                     [--gap-us U]

For each problem, its best kernel in SUITE_DIR (a `kforge suite` directory) is
built as the cpu-simd plugin builds a candidate ($CC -std=gnu11 -O3 -march=native
-fopenmp -fPIC -shared) and timed by bench/cpu/share_harness.c (--harness: its
binary; built here from the source beside this script otherwise) in turns with
the harness's own reference, which moves the problem's min_bytes (every input
read, every output written once with streaming stores: a copy where the first
input and output are the same size, reads where the outputs are small).  Both
are timed as kforge profile times a run on a host clock (a lead-in call, fresh
inputs written by other threads, the timed call); share = the reference's median
/ the kernel's median, the kernel's min-bytes rate as a fraction of what a
streaming kernel moved over the same buffers.  Beside stream_bw (paired_anchors.py
--tool stream), whose best of back-to-back passes is the machine's ceiling,
this is the like-for-like figure: the same buffers, the same sequence, the same
statistic on both sides.
--profile: each round also runs `kforge profile` of the same kernel (--reps),
so the record shows the evaluator's median beside the harness's.  --packed and
--gap-us go to share_harness (its buffers back to back instead of placed as
kforge's sets are; a pause before each timed call).
Threads are bound (OMP_PROC_BIND=close) where they cover every CPU, as the
plugin binds a candidate's.  A problem whose kernel needs scratch buffers is
skipped, saying so.  OUT.json is rewritten after every round.  Needs a Python
with numpy (bench/anchors/anchors_common.py, as paired_anchors.py).
Not sandboxed: each kernel is compiled here and run inside share_harness's own
process with your rights (only --profile's kforge profile goes through the
worker's sandbox); use it on suites whose kernels you would run yourself."""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "anchors"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from anchors_common import Unsupported, cpu_model, load, problem_files  # noqa: E402
from bandwidth_share import min_bytes_check, prod  # noqa: E402
from paired_anchors import best_candidate, profile  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
CFLAGS = ["-std=gnu11", "-O3", "-march=native", "-fopenmp", "-fPIC", "-shared"]   # plugins/cpu-simd/compile.c


def build(cc, args, what):
    p = subprocess.run([cc] + args, capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError("%s did not build: %s" % (what, (p.stderr or p.stdout).strip()[-400:]))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out")
    ap.add_argument("suite")
    ap.add_argument("problems", nargs="+")
    ap.add_argument("--threads", type=int, help="the kernels' threads (default: all CPUs of this process)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--reps", type=int, default=21, help="timed calls of each side a round")
    ap.add_argument("--preset", default="cpu")
    ap.add_argument("--profile", action="store_true", help="also kforge profile each kernel every round")
    ap.add_argument("--harness", help="the share_harness binary (default: built from share_harness.c)")
    ap.add_argument("--packed", action="store_true", help="share_harness --packed: buffers back to back")
    ap.add_argument("--gap-us", type=int, default=0, help="share_harness --gap-us: a pause before each timed call")
    ap.add_argument("--include", default=os.path.join(HERE, "..", "..", "plugins", "cpu-simd"),
                    help="the directory of kforge-cpu.h")
    ap.add_argument("--kforge", default=os.environ.get("KFORGE", "kforge"))
    args = ap.parse_args(argv)
    if args.rounds < 1 or args.reps < 3 or (args.profile and args.reps < 20):
        ap.error("--rounds >= 1, --reps >= 3 (>= 20 with --profile)")
    args.threads = args.threads or len(os.sched_getaffinity(0))
    cc = os.environ.get("CC", "cc")
    tmp = tempfile.mkdtemp(prefix="harness_share.")
    harness = args.harness
    if not harness:
        harness = os.path.join(tmp, "share_harness")
        build(cc, ["-O2", "-march=native", "-fopenmp", "-I", args.include, os.path.join(HERE, "share_harness.c"),
                   "-o", harness, "-ldl", "-lpthread"], "share_harness.c")
    env = dict(os.environ, KFORGE_THREADS=str(args.threads))
    if args.threads >= 2 and args.threads >= (os.cpu_count() or 1) and not any(
            k in os.environ for k in ("OMP_PROC_BIND", "OMP_PLACES", "GOMP_CPU_AFFINITY")):
        env["OMP_PROC_BIND"] = "close"

    probs = []
    for path in problem_files(args.problems):
        try:
            prob, dims = load(path, args.preset)
            cand = best_candidate(args.suite, prob["name"])
            with open(os.path.join(cand, "candidate.json")) as f:
                cj = json.load(f)
            if cj.get("scratch"):
                raise RuntimeError("its kernel needs scratch buffers, which the harness does not give")
            chk = min_bytes_check(args.kforge, path, args.preset)
            so = os.path.join(tmp, "k%d.so" % len(probs))
            build(cc, CFLAGS + ["-I", args.include] + [os.path.join(cand, s) for s in cj.get("sources", ["kernel.c"])]
                  + ["-o", so, "-lm"], prob["name"])
        except (OSError, RuntimeError, ValueError, KeyError, Unsupported, subprocess.CalledProcessError) as ex:
            print("%-40s skipped: %s" % (os.path.basename(path), ex), flush=True)
            continue
        cmd = [harness, "--dims", ",".join(str(dims[d]) for d in prob["dims"]),
               "--in", ",".join(str(prod(i["shape"])) for i in chk["inputs"]),
               "--out", ",".join(str(prod(o["shape"])) for o in chk["outputs"]),
               "--threads", str(args.threads), "--reps", str(args.reps), "--gap-us", str(args.gap_us)] + \
            (["--packed"] if args.packed else []) + [so]
        probs.append({"name": prob["name"], "path": path, "cand": cand, "cmd": cmd, "rounds": []})

    res = {"tool": "share_harness", "threads": args.threads, "preset": args.preset, "reps": args.reps,
           "layout": "packed" if args.packed else "kforge", "gap_us": args.gap_us,
           "rounds": args.rounds, "machine": {"cpu": cpu_model(), "cpus": os.cpu_count()},
           "suite": os.path.abspath(args.suite), "omp_proc_bind": env.get("OMP_PROC_BIND"),
           "timing": "per round: share_harness's medians of --reps calls of the kernel and of its streaming "
                     "reference in turns (each after a lead-in call and fresh inputs written by other threads); "
                     "share = reference median / kernel median; kforge_ms: kforge profile's median (--profile)",
           "problems": {}}
    failed = []
    for rnd in range(args.rounds):
        order = probs[rnd % len(probs):] + probs[:rnd % len(probs)] if probs else []
        for p in order:
            r = {}
            h = subprocess.run(p["cmd"], capture_output=True, text=True, env=env)
            try:
                j = json.loads(h.stdout.strip().splitlines()[-1])
                r.update(kernel_ms=j["kernel_ms"]["median"], ref_ms=j["ref_ms"]["median"], share=j["share"],
                         ref=j["ref"], min_bytes=j["min_bytes"], layout=j.get("layout", "packed"))
            except (ValueError, IndexError, KeyError):
                r["error"] = "share_harness exit %d: %s" % (h.returncode, (h.stderr or h.stdout).strip()[-300:])
                failed.append(p["name"])
            if args.profile:
                pr = argparse.Namespace(kforge=args.kforge, preset=args.preset, reps=args.reps)
                k, verdict = profile(pr, p["path"], p["cand"], env)
                r.update(kforge_ms=k, verdict=verdict)
            p["rounds"].append(r)
            print("round %d %-36s %s%s" % (
                rnd + 1, p["name"][:36],
                "kernel %8.3f ms  ref %8.3f ms  share %.2f" % (r["kernel_ms"], r["ref_ms"], r["share"])
                if "share" in r else r["error"],
                "  kforge %8.3f ms" % r["kforge_ms"] if r.get("kforge_ms") else ""), flush=True)
        for p in probs:
            e = {"candidate": p["cand"], "rounds": p["rounds"]}
            sh = [r["share"] for r in p["rounds"] if "share" in r]
            if sh:
                e.update(share_median=statistics.median(sh), share_min=min(sh), share_max=max(sh),
                         kernel_ms_median=statistics.median(r["kernel_ms"] for r in p["rounds"] if "share" in r))
            ks = [r["kforge_ms"] for r in p["rounds"] if r.get("kforge_ms")]
            if ks and sh:
                e["kforge_over_harness"] = statistics.median(ks) / e["kernel_ms_median"]
            res["problems"][p["name"]] = e
        with open(args.out, "w") as f:
            json.dump(res, f, indent=1)
    under = [n for n, e in res["problems"].items() if e.get("share_median", 1) < 0.8]
    print("harness share: %d problems, medians of %d rounds; under 80%%: %s%s" % (
        len(probs), args.rounds, ", ".join(under) or "none",
        "; failed: " + ", ".join(sorted(set(failed))) if failed else ""), flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
