#!/usr/bin/env python3
"""cuBLAS anchors of the GEMM problems, timed by kforge itself.

For every problem whose graph is one 2-D matmul (problems/level1: 01, 02, 04,
08, 17), writes two candidates whose launch plan is a single library launch
of the cuda plugin (plugins/cuda/kf-cuda.md):

    fp32   cublas:sgemm       true FP32 (no TF32): what PyTorch eager runs
    tf32   cublas:gemm_tf32   TF32 tensor cores

and times each with `kforge profile --backend cuda` (verified against the
problem's reference first, then CUDA events around the call, median of
--reps runs): the same path and clock as KForge's own kernels.  Writes an
anchors file that `kforge suite --anchors FILE` reads, with

    eager_ms   = cuBLAS FP32     compile_ms = cuBLAS TF32

(the report's "eager" and "compile" columns are these two here; the file's
"machine" says so and the report prints it), plus cublas_fp32_ms,
cublas_tf32_ms and each verdict.  A TF32 result outside the problem's
tolerance keeps its time but says so (tf32_verdict).

    python3 bench/gpu/cublas_anchors.py OUT.json problems/level1 [--preset kernelbench] [--reps 20]
    python3 bench/gpu/cublas_anchors.py - problems/level1 --compile-only   # no GPU: sm_90 cubins, plans checked
    python3 bench/gpu/cublas_anchors.py - problems/level1 --list           # the problems it covers

Exit 0, 1 when a candidate failed (its entry says why), 2 when no problem is
a single matmul.
"""
import argparse
import json
import os
import socket
import subprocess
import sys
import tempfile

MODES = (("fp32", "cublas:sgemm"), ("tf32", "cublas:gemm_tf32"))


def problem_files(args):
    out = []
    for a in args:
        if os.path.isdir(a):
            for root, _, files in os.walk(a):
                out += [os.path.join(root, f) for f in files if f.endswith(".json")]
        else:
            out.append(a)
    return sorted(out)


def dim(v, dims):
    return v if isinstance(v, int) else int(dims[v])


def gemm_of(prob, preset):
    """(M, N, K, trans_b, a, b, c) of a problem that is one 2-D matmul, or a
    reason string when it is not one."""
    graph = prob.get("graph") or []
    if len(graph) != 1 or graph[0].get("op") not in ("matmul", "linear"):
        return "not a single matmul"
    node = graph[0]
    if node.get("op") == "linear" or node.get("transpose_a"):
        return "a linear or transposed A: not covered here"
    presets = prob.get("presets") or {}
    if preset not in presets:
        return "no preset %s" % preset
    dims = presets[preset]
    shapes = {i["name"]: [dim(s, dims) for s in i["shape"]] for i in prob.get("inputs", [])}
    a, b = node["in"][0], node["in"][1]
    if a not in shapes or b not in shapes or len(shapes[a]) != 2 or len(shapes[b]) != 2:
        return "operands are not 2-D inputs"
    M, K = shapes[a]
    tb = bool(node.get("transpose_b"))
    N = shapes[b][0] if tb else shapes[b][1]
    if (shapes[b][1] if tb else shapes[b][0]) != K:
        return "inner dimensions differ"
    return M, N, K, tb, a, b, node["out"]


def write_candidate(d, kernel, g, prob):
    M, N, K, tb, a, b, c = g
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "anchor.cu"), "w") as f:
        f.write("/* cuBLAS anchor of %s: the plan's only launch is %s (no kernel). */\n" % (prob["name"], kernel))
    plan = {"backend": "cuda", "sources": ["anchor.cu"],
            "notes": "cuBLAS anchor: %s of the problem's GEMM" % kernel,
            "launches": [{"kernel": kernel, "global": [1],
                          "args": [a, b, c, {"int": M}, {"int": N}, {"int": K}, 0, 1 if tb else 0,
                                   {"int": K}, {"int": K if tb else N}, {"int": N},
                                   {"float": 1.0}, {"float": 0.0}]}]}
    with open(os.path.join(d, "candidate.json"), "w") as f:
        json.dump(plan, f, indent=1)


def run(cmd, timeout):
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=timeout)
        return p.returncode, p.stdout
    except subprocess.TimeoutExpired:
        return 124, "timed out after %d s" % timeout


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("out", help="anchors file to write ('-': stdout)")
    ap.add_argument("problems", nargs="+", help="problem files or directories")
    ap.add_argument("--preset", default="kernelbench")
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("--kforge", default=os.environ.get("KFORGE", "kforge"))
    ap.add_argument("--work", help="directory for the candidates (default: a temporary one)")
    ap.add_argument("--timeout", type=int, default=300, help="seconds per kforge call")
    ap.add_argument("--compile-only", action="store_true",
                    help="no GPU: compile every candidate for --arch (NVRTC) and check its plan; nothing timed")
    ap.add_argument("--arch", default="sm_90")
    ap.add_argument("--list", action="store_true", help="only print the problem files that are one 2-D matmul")
    o = ap.parse_args()
    if o.list:
        for pf in problem_files(o.problems):
            with open(pf) as f:
                if not isinstance(gemm_of(json.load(f), o.preset), str):
                    print(pf)
        return 0
    work = o.work or tempfile.mkdtemp(prefix="kf-cublas-")
    res = {"tool": "cublas", "device": "cuda", "machine": {"what": "cuBLAS anchors timed by kforge profile --backend cuda: eager_ms = cublas:sgemm "
                               "(FP32, no TF32), compile_ms = cublas:gemm_tf32 (TF32 tensor cores)",
                       "hostname": socket.gethostname()},
           "preset": o.preset, "tf32": "compile_ms only", "problems": {}}
    try:
        gpu = subprocess.run(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"], stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL, text=True, timeout=30).stdout.strip()
        res["machine"]["gpu"] = gpu.splitlines()[0] if gpu else None
    except (OSError, subprocess.SubprocessError):
        res["machine"]["gpu"] = None
    failed = 0
    for pf in problem_files(o.problems):
        with open(pf) as f:
            prob = json.load(f)
        g = gemm_of(prob, o.preset)
        if isinstance(g, str):
            continue
        name = prob["name"]
        e = {"M": g[0], "N": g[1], "K": g[2], "trans_b": g[3], "reps": o.reps}
        for mode, kernel in MODES:
            d = os.path.join(work, name, mode)
            write_candidate(d, kernel, g, prob)
            if o.compile_only:
                rc, text = run([o.kforge, "verify", "--compile-only", "--arch", o.arch, "--backend", "cuda",
                                "--problem", pf, "--preset", o.preset, d], o.timeout)
                e[mode + "_verdict"] = "compiled" if rc == 0 else "error"
                if rc != 0:
                    e[mode + "_error"] = text.strip()[-600:]
                    failed += 1
                continue
            rc, text = run([o.kforge, "profile", "--backend", "cuda", "--problem", pf, "--preset", o.preset,
                            "--reps", str(o.reps), "--json", d], o.timeout)
            try:
                j = json.loads(text[text.index("{"):])
            except ValueError:
                j = {}
            e[mode + "_verdict"] = j.get("verdict", "error")
            t = (j.get("timing") or {}).get("median_s")
            if t:
                e["cublas_%s_ms" % mode] = t * 1e3
            elif rc != 0 or not t:
                e[mode + "_error"] = (j.get("summary") or text.strip())[-600:]
                failed += 1
        if "cublas_fp32_ms" in e:
            e["eager_ms"] = e["cublas_fp32_ms"]
        if "cublas_tf32_ms" in e:
            e["compile_ms"] = e["cublas_tf32_ms"]
        ts = [e[k] for k in ("cublas_fp32_ms", "cublas_tf32_ms") if k in e]
        if ts:
            e["best_ms"] = min(ts)
        res["problems"][name] = e
        print("%-40s M=%d N=%d K=%d%s  %s" % (name, g[0], g[1], g[2], " B^T" if g[3] else "",
              "  ".join("%s %s%s" % (m, e.get(m + "_verdict"), " %.3f ms" % e["cublas_%s_ms" % m]
                                     if "cublas_%s_ms" % m in e else "") for m, _ in MODES)), file=sys.stderr)
        text = json.dumps(res, indent=1)
        if o.out != "-":
            with open(o.out, "w") as f:
                f.write(text + "\n")
    if o.out == "-":
        print(json.dumps(res, indent=1))
    if not res["problems"]:
        print("cublas_anchors.py: no problem is a single 2-D matmul", file=sys.stderr)
        return 2
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
