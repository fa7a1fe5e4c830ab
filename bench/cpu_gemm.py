#!/usr/bin/env python3
"""bench/cpu_gemm.py — the built-in agent's fused CPU GEMM against standalone
OpenBLAS sgemm of the same shape, measured in the same `kforge run`.

    bench/cpu_gemm.py [--preset cpu] [--rounds 2] [--out DIR] [PROBLEMS...]

For every problem (default: Level-2 09, 12, 99) and every variant point, one
`kforge run P --backend cpu-simd --preset P --max-iterations 1 --agent
builtin[:POINT]`: the run times the op-by-op baseline, its GEMM anchor (the
problem's main GEMM alone as one cblas_sgemm through the OpenBLAS the baseline
links, same M, N, K and threads) and the variant's candidate, each the median
of the profile protocol's timed runs.  Variants:
  derived   the default point: MC/NC/KC derived from the probed cache sizes
  const     the same point with the former constant blocking (96/256/384)
  bf16      the default point with precision 3 (bf16 inputs, vdpbf16ps),
            only where the CPU has AVX512_BF16
The variants of a problem run back to back, rounds interleaved, so they see
the same machine; the load average before each run is recorded.  Results:
  DIR/machine.txt  lscpu summary, kforge backends (peaks, caches), commit,
                   threads
  DIR/runs/        each run's directory (prune to result.json for a record)
  DIR/runs.txt     one line per run
  DIR/summary.md   per problem and variant: median over rounds of the
                   candidate, the anchor in the same runs, candidate/anchor,
                   GFLOP/s of the GEMM (2*M*N*K) and its fraction of the
                   probed fp32 FMA peak (and of the bf16 peak for bf16)
Environment: KFORGE (default core/kforge of this tree), KFORGE_PLUGIN_PATH,
KFORGE_WORKER, KFORGE_THREADS as for kforge.  Never fails on timings.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def sh(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--preset", default="cpu")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--out")
    ap.add_argument("problems", nargs="*")
    a = ap.parse_args()
    kforge = os.environ.get("KFORGE", os.path.join(TOP, "core", "kforge"))
    env = dict(os.environ)
    env.setdefault("KFORGE_PLUGIN_PATH", os.path.join(TOP, "plugins", "cpu-simd", ".libs"))
    env.setdefault("KFORGE_WORKER", os.path.join(TOP, "core", "kforge-worker"))
    env.setdefault("KFORGE_PROMPTS", os.path.join(TOP, "prompts"))
    probs = a.problems or [os.path.join(TOP, "problems", "level2", f) for f in (
        "09_Matmul_Subtract_Multiply_ReLU.json", "12_Gemm_Multiply_LeakyReLU.json", "99_Matmul_GELU_Softmax.json")]
    host = os.uname().nodename.split(".")[0]
    out = a.out or os.path.join(TOP, "bench", "results", "cpu-gemm-%s-%s" % (host, time.strftime("%Y-%m-%d")))
    os.makedirs(os.path.join(out, "runs"), exist_ok=True)

    be = json.loads(sh([kforge, "backends", "--json"], env=env).stdout)
    dev = [p for p in be["plugins"] if p["name"] == "cpu-simd"][0]["devices"][0]
    peak, peak_bf16 = dev["peak_gflops"] * 1e9, dev.get("peak_gflops_bf16", 0) * 1e9
    commit = sh(["git", "-C", TOP, "rev-parse", "--short", "HEAD"]).stdout.strip()
    dirty = sh(["git", "-C", TOP, "status", "--porcelain", "--untracked-files=no"]).stdout.strip()
    lscpu = sh(["lscpu"]).stdout
    with open(os.path.join(out, "machine.txt"), "w") as f:
        f.write("date: %s\ncommit: %s%s\nthreads: %s\n" % (time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), commit,
                " (with uncommitted changes)" if dirty else "", env.get("KFORGE_THREADS", "all cores (%d)" % os.cpu_count())))
        f.write("device: %s\npeak fp32 %.0f GFLOP/s, bf16 %.0f GFLOP/s, caches L1d %d L2 %d L3 share %d bytes\n" % (
            dev["name"], peak / 1e9, peak_bf16 / 1e9, dev.get("cache_l1d_bytes", 0), dev.get("cache_l2_bytes", 0),
            dev.get("cache_l3_bytes", 0)))
        f.write("detail: %s\n\n" % dev["detail"])
        f.write("\n".join(l for l in lscpu.splitlines() if l.split(":")[0].strip() in (
            "Model name", "CPU(s)", "Thread(s) per core", "Flags", "L1d cache", "L2 cache", "L3 cache")) + "\n")

    runs = open(os.path.join(out, "runs.txt"), "w")
    res = {}   # (problem, variant) -> list of (cand, anchor)
    for p in probs:
        pj = json.load(open(p))
        d = pj["presets"][a.preset]
        flops = 2.0 * d["B"] * d["N"] * d["K"]
        name = pj["name"]
        variants = [("derived", None)]
        point = None
        for r in range(a.rounds):
            k = 0
            while k < len(variants):   # the first run (derived) adds the others
                vname, vpoint = variants[k]
                k += 1
                rd = os.path.join(out, "runs", "%s-%s-r%d" % (name.split("_")[0], vname, r))
                sh(["rm", "-rf", rd])
                cmd = [kforge, "run", p, "--backend", "cpu-simd", "--preset", a.preset, "--max-iterations", "1",
                       "--quiet", "--out", rd, "--agent", "builtin" if vpoint is None else "builtin:" + vpoint]
                load = os.getloadavg()[0]
                pr = sh(cmd, env=env)
                try:
                    rj = json.load(open(os.path.join(rd, "result.json")))
                except (OSError, ValueError):
                    runs.write("%s %s r%d: no result (rc %d) %s\n" % (name, vname, r, pr.returncode, pr.stderr[-300:]))
                    continue
                best = rj.get("best") or {}
                cand = best.get("median_s") or 0
                anchor = ((rj.get("baseline") or {}).get("gemm_anchor") or {}).get("median_s") or 0
                base = (rj.get("baseline") or {}).get("median_s") or 0
                if point is None and vpoint is None:
                    cj = json.load(open(os.path.join(rd, best["dir"], "candidate.json")))
                    point = cj["notes"].split("builtin point: ", 1)[1]
                    pt = json.loads(point)
                    pt.pop("backend", None)
                    c = dict(pt, mc=96, nc=256, kc=384)
                    variants.append(("const", json.dumps(c, separators=(",", ":"))))
                    if peak_bf16 > 0 and pt["nr"] % 16 == 0:
                        variants.append(("bf16", json.dumps(dict(pt, precision=3), separators=(",", ":"))))
                runs.write("%s %s r%d: load %.2f candidate %.3f ms anchor %.3f ms baseline %.3f ms verified %s point %s\n" % (
                    name, vname, r, load, cand * 1e3, anchor * 1e3, base * 1e3, best.get("verified"),
                    vpoint or point))
                runs.flush()
                if cand > 0 and anchor > 0:
                    res.setdefault((name, vname), []).append((cand, anchor))
    runs.close()

    with open(os.path.join(out, "summary.md"), "w") as f:
        f.write("| problem | variant | candidate ms | OpenBLAS sgemm ms (same runs) | candidate / sgemm | "
                "GEMM GFLOP/s | fraction of fp32 FMA peak | runs |\n|---|---|---|---|---|---|---|---|\n")
        for (name, vname), v in res.items():
            pj = [json.load(open(p)) for p in probs if json.load(open(p))["name"] == name][0]
            d = pj["presets"][a.preset]
            flops = 2.0 * d["B"] * d["N"] * d["K"]
            c = statistics.median(x[0] for x in v)
            an = statistics.median(x[1] for x in v)
            frac = "%.0f%%" % (100 * flops / c / peak)
            if vname == "bf16" and peak_bf16 > 0:
                frac += " (%.0f%% of bf16 peak)" % (100 * flops / c / peak_bf16)
            f.write("| %s | %s | %.2f | %.2f | %.2f | %.0f | %s | %d |\n" % (
                name, vname, c * 1e3, an * 1e3, c / an, flops / c / 1e9, frac, len(v)))
    sys.stdout.write(open(os.path.join(out, "summary.md")).read())


if __name__ == "__main__":
    main()
