"""What torch_anchors.py and ort_anchors.py share: loading problem files,
the timing statistics, the inputs drawn per `init` with numpy, and a float64
numpy evaluation of a problem's op graph (problems/FORMAT.md) used to check
the anchors' outputs.  Needs numpy only (no torch, no onnxruntime)."""
import glob
import json
import math
import os
import platform
import statistics

import numpy as np

SEED = 1234


class Unsupported(Exception):
    pass


def resolve(d, dims):
    return d if isinstance(d, int) else dims[d]


def load(path, preset):
    with open(path) as f:
        prob = json.load(f)
    if preset not in prob["presets"]:
        raise Unsupported("no preset '%s' (has %s)" % (preset, ", ".join(prob["presets"])))
    return prob, prob["presets"][preset]


def problem_files(paths):
    out = []
    for p in paths:
        out += sorted(glob.glob(os.path.join(p, "**", "*.json"), recursive=True)) if os.path.isdir(p) else [p]
    return out


def cpu_model():
    """The CPU's model name from /proc/cpuinfo, else what platform says, else "?"."""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "?"


def quantile(ts, q):
    return ts[min(len(ts) - 1, max(0, round(q * (len(ts) - 1))))]


def summarize(ts):
    """Median, min, p10 and p90 of per-run times in ms."""
    ts = sorted(ts)
    return {"ms": statistics.median(ts), "min_ms": ts[0], "p10_ms": quantile(ts, 0.1), "p90_ms": quantile(ts, 0.9)}


def make_inputs_np(prob, dims, seed=SEED):
    """Problem inputs drawn per their `init` as float32 numpy arrays, from one
    seeded numpy generator, in file order."""
    g = np.random.default_rng(seed)
    out = []
    for inp in prob["inputs"]:
        shape = [resolve(d, dims) for d in inp["shape"]]
        if inp.get("dtype", "float32") != "float32":
            raise Unsupported("input %s: dtype %s" % (inp["name"], inp["dtype"]))
        init = inp.get("init", {"dist": "uniform"})
        dist = init["dist"]
        if dist == "uniform":
            t = g.uniform(init.get("low", 0.0), init.get("high", 1.0), size=shape)
        elif dist == "normal":
            t = g.normal(init.get("mean", 0.0), init.get("std", 1.0), size=shape)
        elif dist == "kaiming_uniform":
            bound = 1.0 / math.sqrt(resolve(init["fan_in"], dims))
            t = g.uniform(-bound, bound, size=shape)
        elif dist == "constant":
            t = np.full(shape, float(init["value"]))
        else:
            raise Unsupported("input %s: init dist '%s'" % (inp["name"], dist))
        out.append(np.ascontiguousarray(t, dtype=np.float32))
    return out


# ---- the float64 numpy evaluation (the check) ----

_erf = np.vectorize(math.erf, otypes=[np.float64])


def _softplus(x):
    return np.logaddexp(0.0, x)


def _reduce_axes(nd, rank):
    d = nd["dim"]
    return tuple(sorted(a % rank for a in (d if isinstance(d, list) else [d])))


def _norm(x, axes, eps):
    m = x.mean(axis=axes, keepdims=True)
    v = ((x - m) ** 2).mean(axis=axes, keepdims=True)
    return (x - m) / np.sqrt(v + eps)


def _chan(v, rank):   # a per-channel vector (C) against x (N, C, ...)
    return v.reshape((-1,) + (1,) * (rank - 2))


def np_node(nd, ins):
    op, a = nd["op"], nd
    x = ins[0] if ins else None
    binary = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.divide, "pow": np.power,
              "maximum": np.maximum, "minimum": np.minimum}
    if op in binary:
        return binary[op](ins[0], ins[1])
    unary = {"relu": lambda x: np.maximum(x, 0), "sigmoid": lambda x: 1 / (1 + np.exp(-x)), "tanh": np.tanh,
             "exp": np.exp, "log": np.log, "abs": np.abs, "neg": np.negative, "sqrt": np.sqrt,
             "rsqrt": lambda x: 1 / np.sqrt(x), "square": np.square,
             "selu": lambda x: 1.0507009873554805 * np.where(x > 0, x, 1.6732632423543772 * np.expm1(x)),
             "mish": lambda x: x * np.tanh(_softplus(x)),
             "hardswish": lambda x: x * np.clip(x + 3, 0, 6) / 6, "identity": lambda x: x, "dropout": lambda x: x,
             "silu": lambda x: x / (1 + np.exp(-x)), "swish": lambda x: x / (1 + np.exp(-x))}
    if op in unary:
        return unary[op](x)
    if op == "gelu":
        if a.get("approximate", "none") == "tanh":
            return 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3)))
        return 0.5 * x * (1 + _erf(x / math.sqrt(2)))
    if op == "leaky_relu":
        return np.where(x > 0, x, x * a.get("negative_slope", 0.01))
    if op == "hardtanh":
        return np.clip(x, a.get("min_val", -1.0), a.get("max_val", 1.0))
    if op == "clamp":
        return np.clip(x, a.get("min"), a.get("max"))
    if op == "softplus":
        b, t = a.get("beta", 1.0), a.get("threshold", 20.0)
        return np.where(b * x > t, x, _softplus(b * x) / b)
    if op == "elu":
        return np.where(x > 0, x, a.get("alpha", 1.0) * np.expm1(x))
    if op in ("sum", "mean", "amax", "amin", "logsumexp"):
        axes, keep = _reduce_axes(a, x.ndim), bool(a.get("keepdim", False))
        if op == "logsumexp":
            m = x.max(axis=axes, keepdims=True)
            r = np.log(np.exp(x - m).sum(axis=axes, keepdims=True)) + m
            return r if keep else r.squeeze(axis=axes)
        f = {"sum": np.sum, "mean": np.mean, "amax": np.max, "amin": np.min}[op]
        return f(x, axis=axes, keepdims=keep)
    if op in ("softmax", "log_softmax"):
        d = a["dim"]
        z = x - x.max(axis=d, keepdims=True)
        lse = np.log(np.exp(z).sum(axis=d, keepdims=True))
        return np.exp(z - lse) if op == "softmax" else z - lse
    if op == "matmul":
        w = ins[1]
        return np.matmul(x, np.swapaxes(w, -1, -2) if a.get("transpose_b", False) else w)
    if op == "linear":
        y = np.matmul(x, ins[1].T)
        return y + ins[2] if len(ins) > 2 else y
    w = ins[1] if len(ins) > 1 else None
    b = ins[2] if len(ins) > 2 else None
    if op == "layer_norm":
        k = a.get("normalized_dims", 1)
        y = _norm(x, tuple(range(x.ndim - k, x.ndim)), a.get("eps", 1e-5))
        return (y if w is None else y * w) + (0 if b is None else b)
    if op == "rms_norm":
        k = a.get("normalized_dims", 1)
        ms = (x ** 2).mean(axis=tuple(range(x.ndim - k, x.ndim)), keepdims=True)
        y = x / np.sqrt(ms + a.get("eps", 1.1920929e-07))
        return y if w is None else y * w
    if op == "group_norm":
        n, c, g = x.shape[0], x.shape[1], a["groups"]
        y = _norm(x.reshape(n, g, -1), (2,), a.get("eps", 1e-5)).reshape(x.shape)
        return (y if w is None else y * _chan(w, x.ndim)) + (0 if b is None else _chan(b, x.ndim))
    if op == "instance_norm":
        return _norm(x, (x.ndim - 1,), a.get("eps", 1e-5))
    if op == "batch_norm":
        eps = a.get("eps", 1e-5)
        if a.get("training", True):
            y = _norm(x, tuple(i for i in range(x.ndim) if i != 1), eps)
        else:
            if len(ins) < 5:
                raise Unsupported("batch_norm (node %s) in evaluation mode needs running_mean, running_var" % a["out"])
            y = (x - _chan(ins[3], x.ndim)) / np.sqrt(_chan(ins[4], x.ndim) + eps)
        return (y if w is None else y * _chan(w, x.ndim)) + (0 if b is None else _chan(b, x.ndim))
    raise Unsupported("op '%s' (node %s) has no numpy check in anchors_common.py" % (op, a.get("out", "?")))


def np_eval(prob, xs):
    """The problem's outputs in float64, computed with numpy from inputs XS."""
    env = {i["name"]: x.astype(np.float64) for i, x in zip(prob["inputs"], xs)}
    for nd in prob["graph"]:
        env[nd["out"]] = np.asarray(np_node(nd, [env[v] if isinstance(v, str) else float(v) for v in nd["in"]]))
    return [env[o] for o in prob["outputs"]]


def compare(prob, ys, refs):
    """Checks outputs YS against the float64 references REFS with the problem's
    tolerance (elementwise |y - ref| <= atol + rtol |ref|, and the relative L2
    error <= rel_l2): (ok, max_abs_err, worst rel_l2, message)."""
    tol = prob.get("tolerance", {})
    atol, rtol, rl2 = tol.get("atol", 1e-2), tol.get("rtol", 1e-2), tol.get("rel_l2", 1e-2)
    ok, max_abs, worst_l2, msg = True, 0.0, 0.0, ""
    for name, y, r in zip(prob["outputs"], ys, refs):
        y = np.asarray(y, dtype=np.float64)
        if y.shape != r.shape:
            return False, float("inf"), float("inf"), "output %s: shape %s, expected %s" % (name, y.shape, r.shape)
        err = np.abs(y - r)
        bad = int(np.count_nonzero(~(err <= atol + rtol * np.abs(r))))
        l2 = float(np.linalg.norm(y - r) / max(np.linalg.norm(r), 1e-30))
        max_abs, worst_l2 = max(max_abs, float(err.max()) if err.size else 0.0), max(worst_l2, l2)
        if bad or l2 > rl2:
            ok = False
            msg = "output %s: %d elements outside atol %g + rtol %g, rel_l2 %.3g (bound %g)" % (
                name, bad, atol, rtol, l2, rl2)
    return ok, max_abs, worst_l2, msg
