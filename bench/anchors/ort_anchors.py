#!/usr/bin/env python3
"""ONNX Runtime CPU anchors for KForge problems: builds each problem's
computation as an ONNX graph straight from its JSON op graph
(problems/FORMAT.md; no per-problem code), checks its outputs against a
float64 numpy evaluation of the same graph at the `small` preset, and times
it on the CPU with ONNX Runtime (fp32, intra_op_num_threads = N), writing the
anchors file that `kforge suite --anchors FILE` reads.

  ort_anchors.py OUT.json PROBLEM.json|DIR... [--preset cpu] [--threads N]
                 [--reps 20] [--warmup 5] [--check-preset small] [--no-check]
  ort_anchors.py - PROBLEM.json|DIR... --check-only [--preset small]

--check-only: no timing and no OUT.json; builds every problem at --preset
(default `small`), runs it once and compares with numpy; exit 0 when all of
them build, run and pass, 1 otherwise.
Needs onnx, onnxruntime and numpy (pip install onnxruntime onnx numpy)."""
import argparse
import json
import math
import os
import socket
import sys
import time

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from anchors_common import (SEED, Unsupported, compare, cpu_model, load, make_inputs_np, np_eval,  # noqa: E402
                            problem_files, summarize)

OPSET = 18
F32 = TensorProto.FLOAT


class Graph:
    """An ONNX graph under construction, with the shapes of its values."""

    def __init__(self):
        self.nodes, self.inits, self.shape, self.n = [], [], {}, 0

    def fresh(self, hint):
        self.n += 1
        return "%s__%d" % (hint, self.n)

    def const(self, value, shape=()):
        name = self.fresh("c")
        arr = np.full(shape, value, dtype=np.float32) if np.isscalar(value) else np.asarray(value, dtype=np.float32)
        self.inits.append(numpy_helper.from_array(arr, name))
        self.shape[name] = tuple(arr.shape)
        return name

    def ints(self, values):
        name = self.fresh("i")
        self.inits.append(numpy_helper.from_array(np.asarray(values, dtype=np.int64), name))
        return name

    def op(self, op_type, inputs, shape, out=None, **attrs):
        out = out or self.fresh(op_type.lower())
        self.nodes.append(helper.make_node(op_type, list(inputs), [out], **attrs))
        self.shape[out] = tuple(shape)
        return out


def bcast(*shapes):
    return tuple(np.broadcast_shapes(*shapes))


def reduce_axes(nd, rank):
    d = nd["dim"]
    return sorted(a % rank for a in (d if isinstance(d, list) else [d]))


def normalize(g, x, axes, eps):
    """(x - mean) / sqrt(var + eps) over AXES (biased variance), keeping dims."""
    s = g.shape[x]
    kept = tuple(1 if i in axes else d for i, d in enumerate(s))
    ax = g.ints(axes)
    m = g.op("ReduceMean", [x, ax], kept, keepdims=1)
    c = g.op("Sub", [x, m], s)
    v = g.op("ReduceMean", [g.op("Mul", [c, c], s), ax], kept, keepdims=1)
    return g.op("Div", [c, g.op("Sqrt", [g.op("Add", [v, g.const(eps)], kept)], kept)], s)


def affine(g, y, w, b, chan):
    """y * w + b, w and b per channel (dim 1 of y) when CHAN, else trailing."""
    s = g.shape[y]
    def shaped(v):
        if not chan or len(s) <= 2:
            return v
        return g.op("Reshape", [v, g.ints([-1] + [1] * (len(s) - 2))], (g.shape[v][0],) + (1,) * (len(s) - 2))
    if w is not None:
        y = g.op("Mul", [y, shaped(w)], s)
    if b is not None:
        y = g.op("Add", [y, shaped(b)], s)
    return y


def sigmoid_mul(g, x):
    s = g.shape[x]
    return g.op("Mul", [x, g.op("Sigmoid", [x], s)], s)


def emit(g, nd, ins, out):
    """Appends the ONNX nodes of one problem node; its result is named OUT."""
    op, a = nd["op"], nd
    binary = {"add": "Add", "sub": "Sub", "mul": "Mul", "div": "Div", "pow": "Pow", "maximum": "Max",
              "minimum": "Min"}
    if op in binary:
        ins = [v if isinstance(v, str) else g.const(float(v)) for v in ins]
        return g.op(binary[op], ins, bcast(g.shape[ins[0]], g.shape[ins[1]]), out)
    x = ins[0]
    s = g.shape[x]
    simple = {"relu": "Relu", "sigmoid": "Sigmoid", "tanh": "Tanh", "exp": "Exp", "log": "Log", "abs": "Abs",
              "neg": "Neg", "sqrt": "Sqrt", "mish": "Mish", "hardswish": "HardSwish", "identity": "Identity",
              "dropout": "Identity"}
    if op in simple:
        return g.op(simple[op], [x], s, out)
    if op == "rsqrt":
        return g.op("Reciprocal", [g.op("Sqrt", [x], s)], s, out)
    if op == "square":
        return g.op("Mul", [x, x], s, out)
    if op == "selu":
        return g.op("Selu", [x], s, out, alpha=1.6732632423543772, gamma=1.0507009873554805)
    if op in ("silu", "swish"):
        return g.op("Mul", [x, g.op("Sigmoid", [x], s)], s, out)
    if op == "gelu":
        if a.get("approximate", "none") == "tanh":   # 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
            x3 = g.op("Mul", [g.op("Mul", [x, x], s), x], s)
            inner = g.op("Mul", [g.op("Add", [x, g.op("Mul", [x3, g.const(0.044715)], s)], s),
                                 g.const(math.sqrt(2 / math.pi))], s)
            t = g.op("Add", [g.op("Tanh", [inner], s), g.const(1.0)], s)
        else:                                         # 0.5 x (1 + erf(x / sqrt 2)); ORT fuses it into Gelu
            t = g.op("Add", [g.op("Erf", [g.op("Div", [x, g.const(math.sqrt(2))], s)], s), g.const(1.0)], s)
        return g.op("Mul", [g.op("Mul", [x, g.const(0.5)], s), t], s, out)
    if op == "leaky_relu":
        return g.op("LeakyRelu", [x], s, out, alpha=float(a.get("negative_slope", 0.01)))
    if op in ("hardtanh", "clamp"):
        lo = a.get("min_val", -1.0) if op == "hardtanh" else a.get("min")
        hi = a.get("max_val", 1.0) if op == "hardtanh" else a.get("max")
        return g.op("Clip", [x, g.const(lo) if lo is not None else "", g.const(hi) if hi is not None else ""],
                    s, out)
    if op == "softplus":
        beta, thr = float(a.get("beta", 1.0)), float(a.get("threshold", 20.0))
        bx = g.op("Mul", [x, g.const(beta)], s)
        sp = g.op("Div", [g.op("Softplus", [bx], s), g.const(beta)], s)
        return g.op("Where", [g.op("Greater", [bx, g.const(thr)], s), x, sp], s, out)
    if op == "elu":
        return g.op("Elu", [x], s, out, alpha=float(a.get("alpha", 1.0)))
    if op in ("sum", "mean", "amax", "amin", "logsumexp"):
        if "dim" not in a:
            raise Unsupported("op '%s' (node %s) needs 'dim'" % (op, a["out"]))
        axes, keep = reduce_axes(a, len(s)), int(bool(a.get("keepdim", False)))
        r = tuple((1 if i in axes else d) for i, d in enumerate(s) if keep or i not in axes)
        kind = {"sum": "ReduceSum", "mean": "ReduceMean", "amax": "ReduceMax", "amin": "ReduceMin",
                "logsumexp": "ReduceLogSumExp"}[op]
        return g.op(kind, [x, g.ints(axes)], r, out, keepdims=keep)
    if op in ("softmax", "log_softmax"):
        return g.op("Softmax" if op == "softmax" else "LogSoftmax", [x], s, out, axis=int(a["dim"]))
    if op == "matmul":
        w = ins[1]
        ws = g.shape[w]
        if a.get("transpose_b", False):
            perm = list(range(len(ws) - 2)) + [len(ws) - 1, len(ws) - 2]
            ws = tuple(ws[p] for p in perm)
            w = g.op("Transpose", [w], ws, perm=perm)
        return g.op("MatMul", [x, w], bcast(s[:-2], ws[:-2]) + (s[-2], ws[-1]), out)
    if op == "linear":
        w, n = ins[1], g.shape[ins[1]][0]
        if len(s) == 2:   # one Gemm: x W^T + b
            return g.op("Gemm", [x, w] + ins[2:3], (s[0], n), out, transB=1)
        y = g.op("MatMul", [x, g.op("Transpose", [w], (g.shape[w][1], n), perm=[1, 0])], s[:-1] + (n,))
        return g.op("Add", [y, ins[2]], s[:-1] + (n,), out) if len(ins) > 2 else g.op("Identity", [y], g.shape[y], out)
    w = ins[1] if len(ins) > 1 else None
    b = ins[2] if len(ins) > 2 else None
    if op == "layer_norm":
        k = a.get("normalized_dims", 1)
        scale = w if w is not None else g.const(1.0, s[-k:])
        return g.op("LayerNormalization", [x, scale] + ([b] if b is not None else []), s, out,
                    axis=-k, epsilon=float(a.get("eps", 1e-5)))
    if op == "rms_norm":
        k = a.get("normalized_dims", 1)
        axes = list(range(len(s) - k, len(s)))
        kept = tuple(1 if i in axes else d for i, d in enumerate(s))
        ms = g.op("ReduceMean", [g.op("Mul", [x, x], s), g.ints(axes)], kept, keepdims=1)
        y = g.op("Div", [x, g.op("Sqrt", [g.op("Add", [ms, g.const(a.get("eps", 1.1920929e-07))], kept)], kept)], s)
        return g.op("Identity", [affine(g, y, w, None, False)], s, out)
    if op == "group_norm":
        groups = a["groups"]
        r = g.op("Reshape", [x, g.ints([s[0], groups, -1])], (s[0], groups, int(np.prod(s[1:])) // groups))
        y = g.op("Reshape", [normalize(g, r, [2], float(a.get("eps", 1e-5))), g.ints(list(s))], s)
        return g.op("Identity", [affine(g, y, w, b, True)], s, out)
    if op == "instance_norm":
        return g.op("Identity", [normalize(g, x, [len(s) - 1], float(a.get("eps", 1e-5)))], s, out)
    if op == "batch_norm":
        eps = float(a.get("eps", 1e-5))
        if a.get("training", True):   # batch statistics, running statistics neither used nor updated
            y = normalize(g, x, [i for i in range(len(s)) if i != 1], eps)
            return g.op("Identity", [affine(g, y, w, b, True)], s, out)
        if len(ins) < 5:
            raise Unsupported("batch_norm (node %s) in evaluation mode needs running_mean, running_var" % a["out"])
        c = s[1]
        scale = w if w is not None else g.const(1.0, (c,))
        bias = b if b is not None else g.const(0.0, (c,))
        return g.op("BatchNormalization", [x, scale, bias, ins[3], ins[4]], s, out, epsilon=eps)
    raise Unsupported("op '%s' (node %s) is not supported by ort_anchors.py" % (op, a.get("out", "?")))


def build(prob, dims):
    """The problem's ONNX model (float32 inputs and outputs named as in the problem)."""
    g = Graph()
    inputs = []
    for inp in prob["inputs"]:
        shape = [d if isinstance(d, int) else dims[d] for d in inp["shape"]]
        g.shape[inp["name"]] = tuple(shape)
        inputs.append(helper.make_tensor_value_info(inp["name"], F32, shape))
    for nd in prob["graph"]:
        emit(g, nd, list(nd["in"]), nd["out"])
    names = {i["name"] for i in prob["inputs"]}
    outs, extra = [], []
    for o in prob["outputs"]:
        name = o
        if o in names:   # an input that is also an output: ONNX needs a node in between
            name = g.op("Identity", [o], g.shape[o], o + "__out")
        outs.append(helper.make_tensor_value_info(name, F32, list(g.shape[name])))
    model = helper.make_model(helper.make_graph(g.nodes, prob["name"], inputs, outs, g.inits),
                              opset_imports=[helper.make_opsetid("", OPSET)], producer_name="kforge-ort-anchors")
    model.ir_version = min(model.ir_version, 9)
    onnx.checker.check_model(model)
    return model, [o.name for o in outs]


def session(model, threads):
    so = ort.SessionOptions()
    so.intra_op_num_threads = threads
    so.inter_op_num_threads = 1
    so.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    so.log_severity_level = 3
    return ort.InferenceSession(model.SerializeToString(), so, providers=["CPUExecutionProvider"])


def run_once(prob, dims, threads):
    model, outs = build(prob, dims)
    xs = make_inputs_np(prob, dims)
    sess = session(model, threads)
    ys = sess.run(outs, {i["name"]: x for i, x in zip(prob["inputs"], xs)})
    return xs, ys


def check(prob, dims, threads):
    """ORT's outputs against numpy's float64 at DIMS: a dict for the anchors file."""
    xs, ys = run_once(prob, dims, threads)
    ok, max_abs, l2, msg = compare(prob, ys, np_eval(prob, xs))
    r = {"dims": dims, "ok": ok, "max_abs_err": max_abs, "rel_l2": l2}
    if not ok:
        r["error"] = msg
    return r


def bench(prob, dims, args):
    """Per-run wall-clock times (ms, perf_counter_ns) of one session run with
    inputs and outputs bound to preallocated numpy arrays (IOBinding: no copy
    and no allocation of outputs in the timed region)."""
    model, outs = build(prob, dims)
    xs = make_inputs_np(prob, dims)
    sess = session(model, args.threads)
    io = sess.io_binding()
    for i, x in zip(prob["inputs"], xs):
        io.bind_cpu_input(i["name"], x)
    shapes = {o.name: [d.dim_value for d in o.type.tensor_type.shape.dim] for o in model.graph.output}
    ys = [np.empty(shapes[o], dtype=np.float32) for o in outs]
    for o, y in zip(outs, ys):
        io.bind_output(o, "cpu", 0, np.float32, list(y.shape), y.ctypes.data)
    for _ in range(args.warmup):
        sess.run_with_iobinding(io)
    ts = []
    for _ in range(args.reps):
        t0 = time.perf_counter_ns()
        sess.run_with_iobinding(io)
        ts.append((time.perf_counter_ns() - t0) * 1e-6)
    return summarize(ts)


def time_problem(prob, dims, args, check_dims):
    r = {}
    if check_dims is not None:
        c = check(prob, check_dims, args.threads)
        c["preset"] = args.check_preset
        r["check"] = c
        if not c["ok"]:
            raise Unsupported("ONNX Runtime's outputs differ from numpy's at preset %s: %s" % (args.check_preset,
                                                                                             c["error"]))
    e = bench(prob, dims, args)
    r.update({"eager_ms": e["ms"], "best_ms": e["ms"], "reps": args.reps, "warmup": args.warmup, "dims": dims})
    r.update({"eager_" + k: v for k, v in e.items() if k != "ms"})
    return r


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out")
    ap.add_argument("problems", nargs="+")
    ap.add_argument("--preset")
    ap.add_argument("--threads", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--check-preset", default="small")
    ap.add_argument("--no-check", action="store_true")
    ap.add_argument("--check-only", action="store_true")
    args = ap.parse_args(argv)
    args.preset = args.preset or ("small" if args.check_only else "cpu")
    if args.threads < 1 or args.reps < 1 or args.warmup < 0:
        ap.error("--threads and --reps must be positive, --warmup not negative")
    files = problem_files(args.problems)
    if args.check_only:
        bad = 0
        for path in files:
            name = os.path.basename(path)
            try:
                prob, dims = load(path, args.preset)
                name = prob["name"]
                c = check(prob, dims, args.threads)
                print("%-45s %s max_abs_err %.3g rel_l2 %.3g%s" % (name, "ok  " if c["ok"] else "FAIL",
                      c["max_abs_err"], c["rel_l2"], "" if c["ok"] else "  " + c["error"]), flush=True)
                bad += not c["ok"]
            except Exception as ex:
                bad += 1
                print("%-45s ERROR %s: %s" % (name, type(ex).__name__, ex), flush=True)
        print("%d of %d problems built, ran and matched numpy" % (len(files) - bad, len(files)))
        return 1 if bad else 0
    res = {"tool": "onnxruntime", "version": ort.__version__, "device": "cpu", "threads": args.threads,
           "machine": {"cpu": cpu_model(), "cpus": os.cpu_count(), "hostname": socket.gethostname(),
                       "onnx": onnx.__version__, "numpy": np.__version__, "opset": OPSET},
           "preset": args.preset, "precision": "fp32", "seed": SEED,
           "timing": "wall clock (time.perf_counter_ns) of one InferenceSession.run_with_iobinding, median of --reps "
                     "after --warmup", "problems": {}}
    for path in files:
        name = os.path.basename(path)
        try:
            prob, dims = load(path, args.preset)
            name = prob["name"]
            check_dims = None
            if not args.no_check:
                check_dims = load(path, args.check_preset)[1]
            r = time_problem(prob, dims, args, check_dims)
            print("%-45s onnxruntime %9.3f ms  (p10 %.3f, p90 %.3f)%s" % (
                name, r["eager_ms"], r["eager_p10_ms"], r["eager_p90_ms"],
                "  check ok" if "check" in r else ""), flush=True)
        except Exception as ex:   # unsupported op, wrong output, ...: record and go on
            r = {"error": "%s: %s" % (type(ex).__name__, str(ex).splitlines()[0][:300] if str(ex) else "")}
            print("%-45s ERROR %s" % (name, r["error"]), flush=True)
        res["problems"][name] = r
        with open(args.out, "w") as f:   # rewritten after every problem: a crash keeps what was done
            json.dump(res, f, indent=1)
    return 1 if any("error" in r for r in res["problems"].values()) else 0


if __name__ == "__main__":
    sys.exit(main())
