#!/usr/bin/env python3
"""PyTorch anchors for KForge problems: builds each problem's computation in
PyTorch straight from its JSON op graph (problems/FORMAT.md) and times eager
and torch.compile (default mode), fp32: on CUDA with CUDA events and TF32
off, on the CPU (--device cpu) by wall clock with torch.set_num_threads(N).

  torch_anchors.py OUT.json PROBLEM.json|DIR... [--preset kernelbench] [--reps 20]
                   [--warmup 5] [--device cuda] [--no-compile] [--check-only]
  torch_anchors.py OUT.json PROBLEM.json|DIR... --device cpu [--threads N] [--preset cpu]

--device cpu: --threads N (default: all cores) is torch.set_num_threads(N);
the default preset is then `cpu`.

--check-only: no timing and no OUT.json; runs every problem once (default: on
the CPU at the `small` preset) and prints its output shapes and checksums;
exit 0 when all of them build and run, 1 otherwise."""
import argparse
import json
import math
import os
import socket
import sys
import time

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from anchors_common import SEED, Unsupported, cpu_model, load, problem_files, resolve, summarize  # noqa: E402,F401

BINARY = {"add": lambda a, b: a + b, "sub": lambda a, b: a - b, "mul": lambda a, b: a * b,
          "div": lambda a, b: a / b, "pow": lambda a, b: torch.pow(a, b),
          "maximum": torch.maximum, "minimum": torch.minimum}
UNARY = {"relu": torch.relu, "sigmoid": torch.sigmoid, "tanh": torch.tanh, "exp": torch.exp,
         "log": torch.log, "abs": torch.abs, "neg": torch.neg, "sqrt": torch.sqrt,
         "rsqrt": torch.rsqrt, "square": torch.square, "selu": F.selu, "mish": F.mish,
         "hardswish": F.hardswish, "identity": lambda x: x, "dropout": lambda x: x,
         "silu": F.silu, "swish": F.silu}
REDUCE = {"sum": torch.sum, "mean": torch.mean, "amax": torch.amax, "amin": torch.amin,
          "logsumexp": torch.logsumexp}


def make_inputs(prob, dims, device, seed=SEED):
    """Problem inputs drawn per their `init`, from one seeded generator, in file order."""
    g = torch.Generator(device=device).manual_seed(seed)
    out = []
    for inp in prob["inputs"]:
        shape = [resolve(d, dims) for d in inp["shape"]]
        if inp.get("dtype", "float32") != "float32":
            raise Unsupported("input %s: dtype %s" % (inp["name"], inp["dtype"]))
        init = inp.get("init", {"dist": "uniform"})
        dist, kw = init["dist"], dict(device=device, dtype=torch.float32)
        if dist == "uniform":
            lo, hi = init.get("low", 0.0), init.get("high", 1.0)
            t = torch.rand(shape, generator=g, **kw) * (hi - lo) + lo
        elif dist == "normal":
            t = torch.randn(shape, generator=g, **kw) * init.get("std", 1.0) + init.get("mean", 0.0)
        elif dist == "kaiming_uniform":
            bound = 1.0 / math.sqrt(resolve(init["fan_in"], dims))
            t = torch.rand(shape, generator=g, **kw) * (2 * bound) - bound
        elif dist == "constant":
            t = torch.full(shape, float(init["value"]), **kw)
        else:
            raise Unsupported("input %s: init dist '%s'" % (inp["name"], dist))
        out.append(t)
    return out


def pool1d(x, nd, fn, **extra):
    k = nd["kernel_size"]
    s, p = nd.get("stride", k), nd.get("padding", 0)
    lead = x.shape[:-1]
    y = fn(x.reshape(-1, 1, x.shape[-1]), k, s, p, **extra)
    return y.reshape(*lead, y.shape[-1])


def node_fn(nd, device, dimv=None):
    """A callable of the node's operands (tensors, or numbers for binary ops).
    dimv: {dim name: size} of the current call, for view/reshape shapes."""
    op, a = nd["op"], nd
    if op in BINARY:
        return BINARY[op]
    if op in UNARY:
        return UNARY[op]
    if op == "gelu":
        appr = a.get("approximate", "none")
        return lambda x: F.gelu(x, approximate=appr)
    if op == "leaky_relu":
        return lambda x: F.leaky_relu(x, a.get("negative_slope", 0.01))
    if op == "hardtanh":
        return lambda x: F.hardtanh(x, a.get("min_val", -1.0), a.get("max_val", 1.0))
    if op == "clamp":
        return lambda x: torch.clamp(x, a.get("min"), a.get("max"))
    if op == "softplus":
        return lambda x: F.softplus(x, a.get("beta", 1.0), a.get("threshold", 20.0))
    if op == "elu":
        return lambda x: F.elu(x, a.get("alpha", 1.0))
    if op in REDUCE:
        if "dim" not in a:
            raise Unsupported("op '%s' (node %s) needs 'dim'" % (op, a["out"]))
        f, dim, keep = REDUCE[op], a["dim"], bool(a.get("keepdim", False))
        return lambda x: f(x, dim=dim, keepdim=keep)
    if op in ("softmax", "log_softmax"):
        f, dim = getattr(torch, op), a["dim"]
        return lambda x: f(x, dim=dim)
    if op == "matmul":
        tb = bool(a.get("transpose_b", False))
        return lambda x, w: torch.matmul(x, w.mT if tb else w)
    if op == "linear":
        return lambda x, w, b=None: F.linear(x, w, b)
    eps = a.get("eps", 1.1920929e-07 if op == "rms_norm" else 1e-5)
    nd_ = a.get("normalized_dims", 1)
    if op == "layer_norm":
        return lambda x, w=None, b=None: F.layer_norm(x, x.shape[-nd_:], w, b, eps)
    if op == "rms_norm":
        return lambda x, w=None: F.rms_norm(x, x.shape[-nd_:], w, eps)
    if op == "group_norm":
        groups = a["groups"]
        return lambda x, w=None, b=None: F.group_norm(x, groups, w, b, eps)
    if op == "instance_norm":   # (N, C, L) and (N, C, H, W) as they are; (C, L) is one instance
        return lambda x: (F.instance_norm(x, eps=eps) if x.dim() >= 3
                          else F.instance_norm(x.unsqueeze(0), eps=eps).squeeze(0))
    if op == "batch_norm":
        training = bool(a.get("training", True))

        def bn(x, w=None, b=None, rm=None, rv=None):
            if training:   # batch statistics; running stats (if given) are not used nor updated
                return F.batch_norm(x, None, None, w, b, training=True, eps=eps)
            if rm is None or rv is None:
                raise Unsupported("batch_norm (node %s) in evaluation mode needs running_mean, running_var"
                                  % a["out"])
            return F.batch_norm(x, rm, rv, w, b, training=False, eps=eps)
        return bn
    if op in ("view", "reshape"):
        shape = a["shape"]
        return lambda x: x.reshape([d if isinstance(d, int) else dimv[d] for d in shape])
    if op == "flatten":
        return lambda x: torch.flatten(x, a.get("start_dim", 0), a.get("end_dim", -1))
    if op == "squeeze":
        return lambda x: x.squeeze(a["dim"]) if "dim" in a else x.squeeze()
    if op == "unsqueeze":
        return lambda x: x.unsqueeze(a["dim"])
    if op == "max_pool1d":
        return lambda x: pool1d(x, a, F.max_pool1d)
    if op == "avg_pool1d":
        return lambda x: pool1d(x, a, F.avg_pool1d, count_include_pad=True)
    raise Unsupported("op '%s' (node %s) is not supported by torch_anchors.py" % (op, a.get("out", "?")))


def build(prob, device):
    """fn(*inputs) -> tuple of outputs, computing the problem's graph in PyTorch."""
    names = [i["name"] for i in prob["inputs"]]
    def const(nd, v):   # torch.maximum/minimum take tensors only: numbers become 0-d tensors, made once
        if isinstance(v, str) or nd["op"] not in ("maximum", "minimum"):
            return v
        return torch.tensor(float(v), dtype=torch.float32, device=device)
    dimv = {}   # dim sizes of the current call, read off the inputs (view/reshape shapes)
    steps = [(nd["out"], node_fn(nd, device, dimv), [const(nd, v) for v in nd["in"]]) for nd in prob["graph"]]
    outs = list(prob["outputs"])

    def fn(*tensors):
        for inp, t in zip(prob["inputs"], tensors):
            for d, n in zip(inp["shape"], t.shape):
                if isinstance(d, str):
                    dimv[d] = n
        env = dict(zip(names, tensors))
        for out, f, ins in steps:
            env[out] = f(*[env[v] if isinstance(v, str) else v for v in ins])
        return tuple(env[o] for o in outs)
    return fn


def bench(fn, xs, reps, warmup, device, fresh=None):
    """Per-run times (ms): warm-up, then `reps` runs timed separately, with CUDA
    events on CUDA, by wall clock (time.perf_counter_ns) on the CPU.

    fresh (CPU only): None times back-to-back calls on the same inputs (KernelBench's
    convention: inputs that fit the last-level cache stay there between calls); else a
    function returning new input tensors (make_inputs with a new seed), and each timed run
    is prepared as kforge prepares its own (core/eval/eval_profile.c, doc/sandbox.md): new
    inputs drawn into memory of their own, an untimed call on the current inputs, then the
    new ones copied into the inputs, then the timed call."""
    cuda = device.startswith("cuda")
    if fresh and cuda:
        raise Unsupported("fresh inputs are a CPU timing mode")
    with torch.no_grad():
        for _ in range(warmup):
            fn(*xs)
        if cuda:
            torch.cuda.synchronize()
        ts = []
        for _ in range(reps):
            if cuda:
                a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                a.record()
                fn(*xs)
                b.record()
                torch.cuda.synchronize()
                ts.append(a.elapsed_time(b))
            else:
                if fresh:
                    new = fresh()
                    fn(*xs)
                    for x, n in zip(xs, new):
                        x.copy_(n)
                    del new
                t0 = time.perf_counter_ns()
                fn(*xs)
                ts.append((time.perf_counter_ns() - t0) * 1e-6)
    return summarize(ts)


def time_problem(prob, dims, args):
    xs = make_inputs(prob, dims, args.device)
    fn = build(prob, args.device)
    e = bench(fn, xs, args.reps, args.warmup, args.device)
    r = {"eager_ms": e["ms"], "reps": args.reps, "warmup": args.warmup, "dims": dims}
    r.update({"eager_" + k: v for k, v in e.items() if k != "ms"})
    if not args.no_compile:
        torch._dynamo.reset()
        t0 = time.time()
        try:
            c = bench(torch.compile(fn), xs, args.reps, args.warmup, args.device)
            r["compile_ms"] = c["ms"]
            r.update({"compile_" + k: v for k, v in c.items() if k != "ms"})
        except Exception as ex:   # report, do not hide; eager still counts
            r["compile_error"] = "%s: %s" % (type(ex).__name__, str(ex).splitlines()[0][:300] if str(ex) else "")
        r["compile_wall_s"] = round(time.time() - t0, 2)
    r["best_ms"] = min(v for v in (r["eager_ms"], r.get("compile_ms")) if v is not None)
    return r


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out")
    ap.add_argument("problems", nargs="+")
    ap.add_argument("--preset")
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--device")
    ap.add_argument("--threads", type=int, help="CPU threads (torch.set_num_threads); default: all cores")
    ap.add_argument("--no-compile", action="store_true")
    ap.add_argument("--check-only", action="store_true")
    args = ap.parse_args(argv)
    args.device = args.device or ("cpu" if args.check_only else "cuda")
    cpu = args.device == "cpu"
    args.preset = args.preset or ("small" if args.check_only else "cpu" if cpu else "kernelbench")
    if args.threads is not None and (args.threads < 1 or not cpu):
        ap.error("--threads N needs --device cpu and N >= 1")
    if cpu:
        args.threads = args.threads or len(os.sched_getaffinity(0))
        torch.set_num_threads(args.threads)
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    files = problem_files(args.problems)
    if args.check_only:
        bad = 0
        for path in files:
            try:
                prob, dims = load(path, args.preset)
                with torch.no_grad():
                    ys = build(prob, args.device)(*make_inputs(prob, dims, args.device))
                print("%-45s %s" % (prob["name"], "  ".join("%s%s sum=%.6g abs=%.6g" % (
                    o, list(y.shape), y.double().sum().item(), y.double().abs().sum().item())
                    for o, y in zip(prob["outputs"], ys))), flush=True)
            except Exception as ex:
                bad += 1
                print("%-45s ERROR %s: %s" % (os.path.basename(path), type(ex).__name__, ex), flush=True)
        print("%d of %d problems built and ran" % (len(files) - bad, len(files)))
        return 1 if bad else 0
    if args.device.startswith("cuda") and not torch.cuda.is_available():
        sys.exit("torch_anchors.py: CUDA is not available (torch %s)" % torch.__version__)
    res = {"tool": "pytorch", "version": torch.__version__, "device": "cpu" if cpu else args.device,
           "machine": {"gpu": torch.cuda.get_device_name(0) if args.device.startswith("cuda") else args.device,
                       "torch": torch.__version__, "cuda": torch.version.cuda, "hostname": socket.gethostname()},
           "preset": args.preset, "precision": "fp32", "tf32": False, "seed": SEED, "problems": {}}
    if cpu:
        res["threads"] = torch.get_num_threads()
        res["machine"] = {"cpu": cpu_model(), "cpus": os.cpu_count(), "torch": torch.__version__,
                          "hostname": socket.gethostname()}
        res["timing"] = ("wall clock (time.perf_counter_ns) of one call under torch.no_grad(), median of --reps "
                         "after --warmup")
    for path in files:
        name = os.path.basename(path)
        try:
            prob, dims = load(path, args.preset)
            name = prob["name"]
            r = time_problem(prob, dims, args)
            print("%-45s eager %9.3f ms  compile %s" % (name, r["eager_ms"], "%9.3f ms" % r["compile_ms"]
                                                        if "compile_ms" in r else "-"), flush=True)
        except Exception as ex:   # unsupported op, OOM, ...: record and go on
            r = {"error": "%s: %s" % (type(ex).__name__, str(ex).splitlines()[0][:300] if str(ex) else "")}
            print("%-45s ERROR %s" % (name, r["error"]), flush=True)
        res["problems"][name] = r
        if args.device.startswith("cuda"):
            torch.cuda.empty_cache()
        with open(args.out, "w") as f:   # rewritten after every problem: a crash keeps what was done
            json.dump(res, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
