#!/usr/bin/env python3
"""kforge_import.py — the helper behind `kforge import MODEL.py`.

Loads a KernelBench-style file (class `Model(nn.Module)`, `get_inputs()`,
`get_init_inputs()`, module-level size constants such as `batch_size`),
traces `Model` with torch.fx, maps every node to KForge's op vocabulary
(problems/FORMAT.md) and prints the problem as JSON on stdout.  `kforge
import` re-parses that JSON with the real problem parser before writing it.

    kforge_import.py MODEL.py [--name N] [--preset NAME=DIM=V,DIM=V]... [--eval]

Dims are the file's module-level int constants that size a tensor (found by
changing each constant in turn and seeing which input and parameter dims
follow it); the file's own values are the preset "file".  Inputs are
get_inputs()'s tensors (named after forward's parameters) and then the
module's parameters and buffers in order of first use, each with the
distribution its own initialisation drew it from.  Nothing is approximated:
a node, an input or an initialisation it cannot express exactly is an error
naming it and its source line.

Exit status: 0 ok, 2 the file cannot be expressed (or PyTorch is missing),
3 internal error.  Messages go to stderr, one line, "kforge import: ...".
"""
import argparse
import ast
import json
import math
import operator
import os
import re
import sys
import traceback
import types

TOOL = "kforge import"


class ImportFail(Exception):
    """A user-facing refusal: exit 2 with this one line."""


def fail(msg):
    raise ImportFail(msg)


try:
    import torch
    import torch.fx
    import torch.nn as nn
    import torch.nn.functional as F
except ImportError as ex:   # the only place torch's absence is reported
    sys.stderr.write("%s: needs PyTorch, which %s cannot import (%s); install it with "
                     "'pip install torch' (a CPU-only build is enough), or point KFORGE_PYTHON "
                     "at a Python that has it\n" % (TOOL, sys.executable, ex))
    sys.exit(2)


# --------------------------------------------------------------- loading

def load_file(path, overrides=None, need=("Model", "get_inputs", "get_init_inputs")):
    """Executes the model file as a fresh module.  `overrides` gives some
    module-level constants other values: their top-level assignments are
    rewritten before the file runs, so that sizes computed from them at
    module level (scale_shape = (out_features,)) follow too.  `need`: the
    names the file must define (a Source with --class/--inputs/--init-args
    checks its own)."""
    try:
        with open(path) as f:
            src = f.read()
        tree = ast.parse(src, filename=path)
    except (OSError, SyntaxError, ValueError) as ex:
        fail("%s: cannot read it as Python: %s" % (path, ex))
    for st in tree.body:
        if (overrides and isinstance(st, ast.Assign) and len(st.targets) == 1
                and isinstance(st.targets[0], ast.Name) and st.targets[0].id in overrides):
            st.value = ast.copy_location(ast.Constant(overrides[st.targets[0].id]), st.value)
    mod = types.ModuleType("kforge_model")
    mod.__file__ = path
    sys.modules["kforge_model"] = mod
    try:
        exec(compile(tree, path, "exec"), mod.__dict__)
    except ImportFail:
        raise
    except Exception as ex:
        fail("%s: running the file failed: %s: %s" % (path, type(ex).__name__, ex))
    for what in need:
        if not hasattr(mod, what):
            fail("%s: no '%s' (a KernelBench-style file defines class Model(nn.Module), "
                 "get_inputs() and get_init_inputs())" % (path, what))
    if "Model" in need and not (isinstance(mod.Model, type) and issubclass(mod.Model, nn.Module)):
        fail("%s: Model is not an nn.Module subclass" % path)
    return mod


def int_constants(mod):
    """Module-level plain ints (not bools), in definition order."""
    out = {}
    for k, v in vars(mod).items():
        if not k.startswith("_") and type(v) is int and v > 0:
            out[k] = v
    return out


# ------------------------------------------------- the model's source
#
# `kforge import FILE.py` reads a KernelBench-style file.  With --class,
# --inputs or --init-args (or a pkg.module:NAME target) the model is a class
# of a file or of an importable module, its example inputs are drawn from
# --inputs and its constructor arguments are --init-args; a Source makes the
# same kind of module the rest of this file reads (Model, get_inputs,
# get_init_inputs, int constants), once per set of sizes.

MODULE_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*:[A-Za-z_][A-Za-z0-9_]*$")
SPEC_ITEM_RE = re.compile(r"^(?:(rand|randn):)?([1-9][0-9]*(?:x[1-9][0-9]*)*)$")


def parse_spec(spec):
    """--inputs 'randn:128x256,rand:256' -> [("randn", [128, 256]), ("rand", [256])]."""
    out = []
    for item in spec.split(","):
        m = SPEC_ITEM_RE.match(item)
        if not m:
            fail("--inputs %s: '%s' is not [rand:|randn:]SIZExSIZE... with positive integer sizes "
                 "(e.g. --inputs 128x256,256)" % (spec, item))
        out.append((m.group(1) or "randn", [int(v) for v in m.group(2).split("x")]))
    if any(len(sh) > 4 for _, sh in out):
        fail("--inputs %s: a tensor of rank over 4; KForge tensors have rank 0 to 4" % spec)
    return out


def replace_ints(v, sub):
    """`v` (a JSON value) with every int (not bool) found in `sub` replaced."""
    if type(v) is int:
        return sub.get(v, v)
    if isinstance(v, list):
        return [replace_ints(e, sub) for e in v]
    if isinstance(v, dict):
        return {k: replace_ints(e, sub) for k, e in v.items()}
    return v


class Source:
    def __init__(self, target, cls=None, spec=None, init_args=None):
        self.cli = cls is not None or spec is not None or init_args is not None or \
            (MODULE_RE.match(target) is not None and not os.path.exists(target))
        self.modname = None
        if MODULE_RE.match(target) and not os.path.exists(target):
            self.modname, cls = target.split(":")
            if spec is None:
                fail("%s: a module's class needs --inputs (its example inputs' shapes, e.g. 128x256)" % target)
        self.cls = cls or "Model"
        self.spec = parse_spec(spec) if spec is not None else None
        self.init_args = None
        if init_args is not None:
            try:
                self.init_args = json.loads(init_args)
            except ValueError as ex:
                fail("--init-args %s: not JSON (%s)" % (init_args, ex))
            if not isinstance(self.init_args, list):
                fail("--init-args %s: not a JSON list of the constructor's arguments (e.g. [256, 512])" % init_args)
        if self.modname:
            try:
                self.module = __import__("importlib").import_module(self.modname)
            except Exception as ex:
                fail("%s: module '%s' is not importable: %s: %s (is it on PYTHONPATH?)"
                     % (target, self.modname, type(ex).__name__, str(ex).splitlines()[0] if str(ex) else ""))
            try:
                self.path = __import__("inspect").getsourcefile(self.class_of(self.module))
            except TypeError:
                self.path = None
            self.path = self.path or self.modname
            self.name, self.label = self.cls, target
        else:
            if not os.path.isfile(target):
                fail("%s: no such file" % target)
            self.path = target
            self.name = os.path.splitext(os.path.basename(target))[0]
            self.label = os.path.basename(target) + (":" + cls if cls else "")
        # the sizes of --inputs: each distinct size is one dim, named after the
        # one module-level int constant of the file with that value (if exactly
        # one), else d0, d1... in order of first appearance
        self.dim_of = {}
        if self.spec is not None:
            consts = int_constants(self.load_raw(None)) if not self.modname else {}
            n = 0
            for _, sh in self.spec:
                for v in sh:
                    if v in self.dim_of:
                        continue
                    same = [c for c, cv in consts.items() if cv == v]
                    if len(same) == 1:
                        self.dim_of[v] = same[0]
                        continue
                    while "d%d" % n in consts:
                        n += 1
                    self.dim_of[v] = "d%d" % n
                    n += 1

    def class_of(self, where):
        what = "module '%s'" % self.modname if self.modname else self.path
        c = getattr(where, self.cls, None)
        if c is None:
            have = sorted(k for k, v in vars(where).items()
                          if isinstance(v, type) and issubclass(v, nn.Module) and not k.startswith("_"))
            fail("%s: no class '%s'%s" % (what, self.cls, " (its nn.Module classes: %s%s)" % (", ".join(have[:12]), ", ..." if len(have) > 12 else "")
                                          if have else " (it defines no nn.Module class)"))
        if not (isinstance(c, type) and issubclass(c, nn.Module)):
            fail("%s: '%s' is not an nn.Module subclass (it is %s)" % (what, self.cls, type(c).__name__))
        return c

    def load_raw(self, overrides):
        return load_file(self.path, overrides, ["get_inputs"] if self.spec is None else [])

    def load(self, overrides=None):
        """A module with Model, get_inputs, get_init_inputs and the int
        constants that may size a tensor, at the file's sizes changed by
        `overrides` (constant name -> value)."""
        if not self.cli:
            return load_file(self.path, overrides)
        ov = overrides or {}
        base = self.module if self.modname else self.load_raw(ov)
        mod = types.ModuleType("kforge_model_cli")
        if not self.modname:
            for k, v in int_constants(base).items():
                setattr(mod, k, v)
        mod.Model = self.class_of(base)
        mod._kf_from = (self.cls, "--init-args" if self.init_args is not None else
                        "get_init_inputs()" if hasattr(base, "get_init_inputs") else None,
                        "--inputs" if self.spec is not None else "get_inputs()")
        size = {v: ov.get(d, v) for v, d in self.dim_of.items()}
        for v, d in self.dim_of.items():
            setattr(mod, d, size[v])
        if self.spec is not None:
            spec = [(dist, [size[v] for v in sh]) for dist, sh in self.spec]

            def get_inputs():
                return [getattr(torch, dist)(*sh) for dist, sh in spec]
            mod.get_inputs = get_inputs
        else:
            mod.get_inputs = base.get_inputs
        if self.init_args is not None:
            init = replace_ints(self.init_args, size)
            mod.get_init_inputs = lambda: __import__("copy").deepcopy(init)
        else:
            mod.get_init_inputs = getattr(base, "get_init_inputs", list)
        return mod


# ------------------------------------------------------ recording inits
#
# While the file builds its inputs and its Model, factories and in-place
# initialisers are watched: every tensor storage gets the distribution that
# last wrote it.  Keyed by storage, so nn.Parameter(t) and t.data share it.

FACTORIES = {"rand", "randn", "ones", "zeros", "full", "empty", "tensor", "rand_like",
             "randn_like", "ones_like", "zeros_like", "full_like", "empty_like",
             "as_tensor", "from_numpy", "randint", "arange", "linspace", "eye"}
INPLACE_INIT = {"uniform_", "normal_", "fill_", "zero_"}
INPLACE_OTHER = {"add_", "sub_", "mul_", "div_", "copy_", "clamp_", "clamp_min_", "clamp_max_",
                 "exponential_", "bernoulli_", "random_", "cauchy_", "log_normal_",
                 "geometric_", "masked_fill_", "index_fill_", "scatter_", "set_", "pow_",
                 "abs_", "neg_", "exp_", "sqrt_", "t_", "transpose_", "resize_",
                 "squeeze_", "unsqueeze_", "normal", "uniform"}


# torch.device(...) as a context redirects the factories of this list, made
# once on first use: make it now, with PyTorch's own functions, before any
# are wrapped by the Recorder.
try:
    import torch.utils._device
    torch.utils._device._device_constructors()
except (ImportError, AttributeError):
    pass


def skey(t):
    return t.untyped_storage()._cdata


class Recorder:
    def __init__(self):
        self.dist = {}
        self.keep = []      # keeps recorded tensors alive: no storage address is reused
        self.saved = []

    def put(self, t, d):
        if isinstance(t, torch.Tensor):
            self.keep.append(t)
            self.dist[skey(t)] = d

    def get(self, t):
        return self.dist.get(skey(t))

    def factory(self, name, orig):
        rec = self

        def f(*a, **k):
            t = orig(*a, **k)
            if not isinstance(t, torch.Tensor):
                return t
            if name in ("rand", "rand_like"):
                rec.put(t, ("uniform", 0.0, 1.0))
            elif name in ("randn", "randn_like"):
                rec.put(t, ("normal", 0.0, 1.0))
            elif name in ("ones", "ones_like"):
                rec.put(t, ("constant", 1.0))
            elif name in ("zeros", "zeros_like"):
                rec.put(t, ("constant", 0.0))
            elif name in ("full", "full_like"):
                v = a[1] if len(a) > 1 else k.get("fill_value")
                rec.put(t, ("constant", float(v)) if isinstance(v, (int, float)) else
                        ("unknown", "torch.%s with a non-number fill value" % name))
            elif name in ("tensor", "as_tensor") and t.dim() == 0 and a and isinstance(a[0], (int, float)):
                rec.put(t, ("constant", float(a[0])))
            else:
                rec.put(t, ("unknown", "made by torch.%s" % name))
            return t
        return f

    def method(self, name, orig):
        rec = self

        def m(self_t, *a, **k):
            r = orig(self_t, *a, **k)
            if name == "uniform_":
                lo = a[0] if len(a) > 0 else k.get("a", k.get("from", 0.0))
                hi = a[1] if len(a) > 1 else k.get("b", k.get("to", 1.0))
                rec.put(self_t, ("uniform", float(lo), float(hi)))
            elif name == "normal_":
                mean = a[0] if len(a) > 0 else k.get("mean", 0.0)
                std = a[1] if len(a) > 1 else k.get("std", 1.0)
                rec.put(self_t, ("normal", float(mean), float(std)))
            elif name == "fill_":
                v = a[0] if a else k.get("value")
                rec.put(self_t, ("constant", float(v)) if isinstance(v, (int, float)) else
                        ("unknown", "filled with a tensor"))
            elif name == "zero_":
                rec.put(self_t, ("constant", 0.0))
            else:
                rec.put(self_t, ("unknown", "changed in place by Tensor.%s after it was drawn" % name))
            return r
        return m

    def affine(self, name, orig):
        """x * a, a * x, x / a, x + b, b + x, x - b, b - x for a drawn x and a
        number: the same family, moved and scaled (torch.rand(n) * 2 - 1 is
        uniform [-1, 1))."""
        rec = self

        def f(self_t, other):
            r = orig(self_t, other)
            d = rec.get(self_t) if isinstance(self_t, torch.Tensor) else None
            if (d is None or d[0] not in ("uniform", "normal", "constant") or not isinstance(r, torch.Tensor)
                    or not isinstance(other, (int, float)) or isinstance(other, bool)):
                return r
            o = float(other)
            if name in ("__mul__", "__rmul__"):
                a, b = o, 0.0
            elif name == "__truediv__":
                if o == 0:
                    return r
                a, b = 1.0 / o, 0.0
            elif name in ("__add__", "__radd__"):
                a, b = 1.0, o
            elif name == "__sub__":
                a, b = 1.0, -o
            else:   # __rsub__: other - x
                a, b = -1.0, o
            if d[0] == "uniform":
                lo, hi = sorted((d[1] * a + b, d[2] * a + b))
                rec.put(r, ("uniform", lo, hi))
            elif d[0] == "normal":
                rec.put(r, ("normal", d[1] * a + b, d[2] * abs(a)))
            else:
                rec.put(r, ("constant", d[1] * a + b))
            return r
        return f

    def __enter__(self):
        for n in ("__mul__", "__rmul__", "__truediv__", "__add__", "__radd__", "__sub__", "__rsub__"):
            o = getattr(torch.Tensor, n)
            self.saved.append((torch.Tensor, n, o))
            setattr(torch.Tensor, n, self.affine(n, o))
        for n in FACTORIES:
            if hasattr(torch, n):
                o = getattr(torch, n)
                self.saved.append((torch, n, o))
                setattr(torch, n, self.factory(n, o))
        for n in INPLACE_INIT | INPLACE_OTHER:
            if hasattr(torch.Tensor, n) and n.endswith("_"):
                o = getattr(torch.Tensor, n)
                self.saved.append((torch.Tensor, n, o))
                setattr(torch.Tensor, n, self.method(n, o))
        return self

    def __exit__(self, *exc):
        for obj, n, o in reversed(self.saved):
            setattr(obj, n, o)
        self.saved = []
        return False


def build(mod, device):
    """One construction of the file's inputs and model, recorded.
    Returns (inputs, model, recorder)."""
    rec = Recorder()
    cls, init_from, inputs_from = getattr(mod, "_kf_from", ("Model", "get_init_inputs()", "get_inputs()"))
    # the device first: torch.device() lists the factory functions it
    # redirects when entered, and must see PyTorch's own, not our wrappers
    with torch.device(device), rec:
        try:
            init = list(mod.get_init_inputs())
        except Exception as ex:
            fail("%s failed: %s: %s" % (init_from, type(ex).__name__, ex))
        try:
            model = mod.Model(*init)
        except Exception as ex:
            if init_from is None:
                fail("%s() failed: %s: %s (give its arguments with --init-args)" % (cls, type(ex).__name__, ex))
            fail("%s(*%s) failed: %s: %s" % (cls, init_from, type(ex).__name__, ex))
        try:
            xs = mod.get_inputs()
        except Exception as ex:
            fail("%s failed: %s: %s" % (inputs_from, type(ex).__name__, ex))
    if not isinstance(xs, (list, tuple)):
        fail("get_inputs() must return a list of tensors, got %s" % type(xs).__name__)
    return list(xs), model, rec


def tensors_of(xs, model):
    """(kind, name, tensor) for every forward input and every parameter/buffer."""
    out = []
    for i, x in enumerate(xs):
        out.append(("input", i, x))
    for n, p in model.named_parameters():
        out.append(("param", n, p))
    for n, b in model.named_buffers():
        out.append(("param", n, b))
    return out


# ------------------------------------------------------------- dims

def find_dims(src, base_mod):
    """Which int constants size a tensor: each constant is doubled in turn (on
    the meta device, no memory) and every input or parameter dim that follows
    it is that constant.  Returns (dim_names, runs) where runs[name] is the
    list of the tensors' shapes with that constant doubled."""
    consts = int_constants(base_mod)
    xs, model, _ = build(base_mod, "meta")
    base = [tuple(t.shape) for _, _, t in tensors_of(xs, model)]
    runs, dists = {}, {}
    for name, v in consts.items():
        try:
            m2 = src.load({name: 2 * v})
            xs2, model2, rec2 = build(m2, "meta")
            ts = tensors_of(xs2, model2)
            shapes = [tuple(t.shape) for _, _, t in ts]
        except ImportFail:
            continue            # not a size: some check of the model refused it
        if len(shapes) != len(base) or any(len(a) != len(b) for a, b in zip(shapes, base)):
            continue
        if shapes != base:
            runs[name] = shapes
            dists[name] = [rec2.get(t) for _, _, t in ts]
    return consts, base, runs, dists


def symbolize_shapes(entries, consts, base, runs):
    """Each tensor's shape as dim names or integers.  A size that follows a
    constant must equal it (no expressions: 2*K is refused)."""
    shapes = []
    used = []
    for ti, (kind, name, t) in enumerate(entries):
        sh = []
        for di, size in enumerate(base[ti]):
            follows = [c for c, s in runs.items() if s[ti][di] != size]
            if not follows:
                sh.append(int(size))
                continue
            exact = [c for c in follows if consts[c] == size and runs[c][ti][di] == 2 * size]
            if len(follows) != 1 or len(exact) != 1:
                fail("%s: dim %d (size %d) follows the constant(s) %s but is not one of them; "
                     "a size must be a module-level constant itself, not an expression of them"
                     % (label(kind, name), di, size, ", ".join(follows)))
            sh.append(exact[0])
            if exact[0] not in used:
                used.append(exact[0])
        shapes.append(sh)
    return shapes, used


def label(kind, name):
    return "get_inputs()[%d]" % name if kind == "input" else "parameter '%s'" % name


# ------------------------------------------------------- distributions

def close(a, b):
    return abs(a - b) <= 1e-9 * max(1.0, abs(a), abs(b))


def symbolize_init(kind, name, d, dims, consts, ti=None, dists=None):
    """Distribution record -> FORMAT.md `init`.  uniform(-b, b) with
    b = 1/sqrt(n) for a dim n becomes kaiming_uniform with that dim as
    fan_in (what nn.Linear draws), so other presets keep the rule."""
    if d is None:
        fail("%s: cannot tell how it is drawn (make it with torch.rand, torch.randn, torch.ones, "
             "torch.zeros or torch.full, or initialise it with nn.init.uniform_/normal_/"
             "constant_/kaiming_uniform_)" % label(kind, name))
    if d[0] == "unknown":
        fail("%s: %s; KForge draws inputs from uniform, normal, kaiming_uniform or constant "
             "distributions only" % (label(kind, name), d[1]))
    if d[0] == "uniform":
        lo, hi = d[1], d[2]
        if hi > 0 and close(lo, -hi):
            def fan_of(rec):
                return 1.0 / (rec[2] * rec[2]) if rec and rec[0] == "uniform" and rec[2] > 0 else -1.0
            for dim in dims:    # the dim 1/b^2 equals in the file and in every doubled run
                if not abs(fan_of(d) - consts[dim]) < 1e-3 * consts[dim]:
                    continue
                if all(abs(fan_of(dists[c][ti]) - consts[dim] * (2 if c == dim else 1))
                       < 1e-3 * consts[dim] for c in dists):
                    return {"dist": "kaiming_uniform", "fan_in": dim}
        return {"dist": "uniform", "low": lo, "high": hi}
    if d[0] == "normal":
        return {"dist": "normal", "mean": d[1], "std": d[2]}
    return {"dist": "constant", "value": d[1]}


# ------------------------------------------------------------- tracing

class Tracer(torch.fx.Tracer):
    def __init__(self):
        super().__init__()
        self.record_stack_traces = True


def source_line(node, path):
    st = node.meta.get("stack_trace") or ""
    real = os.path.realpath(path)
    line = None
    for m in re.finditer(r'File "([^"]+)", line (\d+)', st):
        if os.path.realpath(m.group(1)) == real:
            line = int(m.group(2))
    return line


def where(node, path):
    ln = source_line(node, path)
    return "%s:%s" % (path, ln) if ln else path


def target_name(node, model):
    t = node.target
    if node.op == "call_module":
        return "%s (%s)" % (t, type(model.get_submodule(t)).__name__)
    if node.op == "call_method":
        return "Tensor.%s" % t
    if callable(t):
        m = getattr(t, "__module__", None) or ""
        n = getattr(t, "__name__", None) or repr(t)
        if m in ("_operator", "operator"):
            return "operator.%s" % n
        if m.startswith("torch"):
            m = "torch.nn.functional" if m == "torch.nn.functional" else "torch"
        return "%s.%s" % (m, n) if m else n
    return str(t)


UNARY_FN = {"relu": "relu", "sigmoid": "sigmoid", "tanh": "tanh", "exp": "exp", "log": "log",
            "abs": "abs", "neg": "neg", "negative": "neg", "sqrt": "sqrt", "rsqrt": "rsqrt",
            "square": "square", "selu": "selu", "mish": "mish", "hardswish": "hardswish",
            "silu": "silu"}
BINARY_FN = {"add": "add", "sub": "sub", "subtract": "sub", "mul": "mul", "multiply": "mul",
             "div": "div", "divide": "div", "true_divide": "div", "truediv": "div",
             "maximum": "maximum", "minimum": "minimum", "pow": "pow"}
REDUCE_FN = {"sum": "sum", "mean": "mean", "amax": "amax", "amin": "amin",
             "logsumexp": "logsumexp"}
IDENTITY_METHODS = {"clone", "detach", "contiguous"}
SHAPE_OPS = {"view", "reshape", "_unsafe_view", "_reshape_alias", "flatten", "squeeze", "unsqueeze"}
MODULE_UNARY = {nn.ReLU: "relu", nn.Sigmoid: "sigmoid", nn.Tanh: "tanh", nn.SELU: "selu",
                nn.Mish: "mish", nn.Hardswish: "hardswish", nn.SiLU: "silu",
                nn.Identity: "identity"}


class Mapper:
    """Walks the fx graph and writes FORMAT.md nodes."""

    def __init__(self, gm, model, path, arg_names, exported=None, shape_of=None):
        self.gm, self.model, self.path = gm, model, path
        # shape_of(node) -> the node's output shape as FORMAT.md entries (dim
        # names, sizes, at most one -1), or None with the reason in a string
        self.shape_of = shape_of
        self.exported = exported    # a torch.export program: aten ops, parameters as placeholders
        self.env = {}           # fx node -> ("value", name) | ("transposed", name) | ("max", ...)
        self.nodes = []
        self.used_params = []   # qualified names, in order of first use
        self.names = set(arg_names)
        # parameters and buffers keep their own names: no node takes one
        self.names.update(param_name(n) for n, _ in list(model.named_parameters()) + list(model.named_buffers()))
        self.arg_names = arg_names

    # ---- helpers
    def refuse(self, node, why):
        fail("%s: cannot map node '%s' (%s %s): %s" % (where(node, self.path), node.name, node.op,
                                                       target_name(node, self.model), why))

    def fresh(self, base):
        base = re.sub(r"[^A-Za-z0-9_]", "_", base)
        if not re.match(r"[A-Za-z_]", base):
            base = "v_" + base
        n, i = base, 1
        while n in self.names:
            n = "%s_%d" % (base, i)
            i += 1
        self.names.add(n)
        return n

    def param(self, qual):
        if qual not in self.used_params:
            self.used_params.append(qual)
        return param_name(qual)

    def norm_inputs(self, node, a):
        """A norm's input, then its optional weight and bias (a bias alone is refused)."""
        ins = [self.val(node, a["input"])]
        w, b = a.get("weight"), a.get("bias")
        if w is None and b is not None:
            self.refuse(node, "a bias without a weight")
        if w is not None:
            ins.append(self.val(node, w))
        if b is not None:
            ins.append(self.val(node, b))
        return ins

    def val(self, node, a, allow_number=False):
        """An operand: a value name, or a number where allowed."""
        if isinstance(a, torch.fx.Node):
            e = self.env.get(a)
            if e is None:
                self.refuse(node, "its operand '%s' has no value" % a.name)
            if e[0] != "value":
                self.refuse(node, "its operand '%s' is %s, usable only as %s" % (a.name, e[2], e[3]))
            return e[1]
        if allow_number and isinstance(a, (int, float)) and not isinstance(a, bool):
            if not math.isfinite(a):
                self.refuse(node, "a non-finite constant")
            return float(a)
        self.refuse(node, "operand %r is not a tensor%s" % (a, " or a number" if allow_number else ""))

    def emit(self, node, op, ins, **attrs):
        out = self.fresh(node.name)
        nd = {"out": out, "op": op, "in": ins}
        nd.update(attrs)
        self.nodes.append(nd)
        self.env[node] = ("value", out)

    def args(self, node, names, defaults):
        """Positional + keyword arguments by name; unknown keywords refused."""
        a = dict(defaults)
        if len(node.args) > len(names):
            self.refuse(node, "too many arguments")
        for n, v in zip(names, node.args):
            a[n] = v
        for k, v in node.kwargs.items():
            if k not in names:
                self.refuse(node, "argument '%s' is not supported" % k)
            a[k] = v
        return a

    def dim_arg(self, node, d):
        if isinstance(d, (list, tuple)):
            if len(d) != 1:
                self.refuse(node, "a reduction over several dims (KForge reduces one dim)")
            d = d[0]
        if not isinstance(d, int) or isinstance(d, bool):
            self.refuse(node, "'dim' must be an integer (a reduction over all dims has no op)")
        return d

    def require_none(self, node, a, *keys):
        for k in keys:
            if a.get(k) is not None:
                self.refuse(node, "argument '%s' is not supported" % k)

    # ---- the graph
    def run(self):
        outputs = None
        ai = 0
        specs = {}
        if self.exported is not None:
            for sp in self.exported.graph_signature.input_specs:
                specs[sp.arg.name] = sp
        for node in self.gm.graph.nodes:
            if self.exported is not None and node.op == "call_function" and not node.users:
                continue    # dead values torch.export keeps (the indices of max(dim))
            if node.op == "placeholder":
                sp = specs.get(node.name)
                kind = sp.kind.name if sp is not None else "USER_INPUT"
                if kind in ("PARAMETER", "BUFFER"):
                    self.env[node] = ("value", self.param(sp.target))
                elif kind == "USER_INPUT":
                    self.env[node] = ("value", self.arg_names[ai])
                    ai += 1
                else:
                    self.refuse(node, "a %s input of the exported program" % kind.lower())
            elif node.op == "get_attr":
                obj = fetch_attr(self.model, node.target)
                if not isinstance(obj, torch.Tensor):
                    self.refuse(node, "attribute is not a tensor")
                self.env[node] = ("value", self.param(node.target))
            elif node.op == "call_module":
                self.module(node, self.model.get_submodule(node.target))
            elif node.op == "call_function":
                self.function(node, node.target)
            elif node.op == "call_method":
                self.method(node)
            elif node.op == "output":
                o = node.args[0]
                o = list(o) if isinstance(o, (tuple, list)) else [o]
                outputs = [self.val(node, x) for x in o]
        return outputs

    def module(self, node, m):
        q = node.target
        if len(node.args) != 1 or node.kwargs:
            self.refuse(node, "a module called with more than one tensor")
        x = node.args[0]
        for cls, op in MODULE_UNARY.items():
            if type(m) is cls:
                return self.emit(node, op, [self.val(node, x)])
        if type(m) is nn.Linear:
            ins = [self.val(node, x), self.param(q + ".weight")]
            if m.bias is not None:
                ins.append(self.param(q + ".bias"))
            return self.emit(node, "linear", ins)
        if type(m) is nn.GELU:
            return self.emit(node, "gelu", [self.val(node, x)], approximate=m.approximate)
        if type(m) is nn.LeakyReLU:
            return self.emit(node, "leaky_relu", [self.val(node, x)], negative_slope=float(m.negative_slope))
        if type(m) in (nn.Hardtanh, nn.ReLU6):
            return self.emit(node, "hardtanh", [self.val(node, x)], min_val=float(m.min_val),
                             max_val=float(m.max_val))
        if type(m) is nn.ELU:
            return self.emit(node, "elu", [self.val(node, x)], alpha=float(m.alpha))
        if type(m) is nn.Softplus:
            return self.emit(node, "softplus", [self.val(node, x)], beta=float(m.beta),
                             threshold=float(m.threshold))
        if type(m) in (nn.Softmax, nn.LogSoftmax):
            if m.dim is None:
                self.refuse(node, "softmax without a dim (PyTorch's implicit dim is deprecated)")
            return self.emit(node, "softmax" if type(m) is nn.Softmax else "log_softmax",
                             [self.val(node, x)], dim=int(m.dim))
        if type(m) is nn.GroupNorm:
            ins = [self.val(node, x)]
            if m.affine:
                ins += [self.param(q + ".weight"), self.param(q + ".bias")]
            return self.emit(node, "group_norm", ins, groups=int(m.num_groups), eps=float(m.eps))
        if type(m) is nn.LayerNorm:
            ins = [self.val(node, x)]
            if m.elementwise_affine:
                ins.append(self.param(q + ".weight"))
                if m.bias is not None:
                    ins.append(self.param(q + ".bias"))
            return self.emit(node, "layer_norm", ins, normalized_dims=len(m.normalized_shape),
                             eps=float(m.eps))
        if hasattr(nn, "RMSNorm") and type(m) is nn.RMSNorm:
            ins = [self.val(node, x)]
            if m.elementwise_affine:
                ins.append(self.param(q + ".weight"))
            attrs = {"normalized_dims": len(m.normalized_shape)}
            if m.eps is not None:
                attrs["eps"] = float(m.eps)
            return self.emit(node, "rms_norm", ins, **attrs)
        if type(m) in (nn.Flatten, nn.Unflatten):
            if type(m) is nn.Flatten:
                return self.emit(node, "flatten", [self.val(node, x)], start_dim=int(m.start_dim),
                                 end_dim=int(m.end_dim))
            return self.emit(node, "view", [self.val(node, x)], shape=self.view_shape(node))
        if type(m) in (nn.BatchNorm1d, nn.BatchNorm2d):
            ins = [self.val(node, x)]
            use_batch = m.training or not m.track_running_stats
            if not use_batch and (m.running_mean is None or m.running_var is None):
                self.refuse(node, "evaluation mode without running statistics")
            if m.affine:
                ins += [self.param(q + ".weight"), self.param(q + ".bias")]
            elif not use_batch:
                self.refuse(node, "%s(affine=False) in evaluation mode (the running statistics "
                            "follow weight and bias in KForge's batch_norm)" % type(m).__name__)
            if not use_batch:
                ins += [self.param(q + ".running_mean"), self.param(q + ".running_var")]
            return self.emit(node, "batch_norm", ins, training=bool(use_batch), eps=float(m.eps))
        if type(m) in (nn.InstanceNorm1d, nn.InstanceNorm2d):
            cls = type(m).__name__
            if m.affine:
                self.refuse(node, "%s(affine=True): KForge's instance_norm has no weight or bias" % cls)
            if m.track_running_stats and not m.training:
                self.refuse(node, "%s with running statistics in evaluation mode" % cls)
            return self.emit(node, "instance_norm", [self.val(node, x)], eps=float(m.eps))
        if type(m) in (nn.Dropout, nn.AlphaDropout):
            return self.dropout(node, x, m.p, m.training)
        if type(m) in (nn.MaxPool1d, nn.AvgPool1d):
            return self.pool(node, x, "max_pool1d" if type(m) is nn.MaxPool1d else "avg_pool1d", m)
        self.refuse(node, "module %s has no op in KForge's vocabulary (problems/FORMAT.md)" % type(m).__name__)

    def dropout(self, node, x, p, training):
        if training and p > 0:
            self.refuse(node, "dropout in training mode is random (p=%g) and no problem input carries its "
                        "mask; call model.eval() in the file, or import with --eval: in evaluation mode "
                        "dropout is the identity" % p)
        return self.emit(node, "dropout", [self.val(node, x)], p=float(p))

    def pool(self, node, x, op, m):
        k = m.kernel_size if not isinstance(m.kernel_size, tuple) else m.kernel_size[0]
        s = m.stride if not isinstance(m.stride, tuple) else m.stride[0]
        p = m.padding if not isinstance(m.padding, tuple) else m.padding[0]
        if op == "max_pool1d" and (m.dilation != 1 or m.return_indices or m.ceil_mode):
            self.refuse(node, "dilation, return_indices or ceil_mode")
        if op == "avg_pool1d" and (m.ceil_mode or not m.count_include_pad):
            self.refuse(node, "ceil_mode or count_include_pad=False")
        self.emit(node, op, [self.val(node, x)], kernel_size=int(k), stride=int(s), padding=int(p))

    def is_size(self, a):
        return isinstance(a, torch.fx.Node) and self.env.get(a, ("",))[0] == "size"

    def size_value(self, node):
        """x.size(), x.shape, x.size(i), and arithmetic on them: usable only
        as a view/reshape shape (whose sizes come from the traced shapes)."""
        self.env[node] = ("size", None, "a size", "a view/reshape shape argument")

    def function(self, node, t):
        if isinstance(t, torch._ops.OpOverload):   # torch.export: aten.NAME.overload
            return self.aten(node, t._overloadpacket.__name__)
        name = getattr(t, "__name__", "")
        mod = getattr(t, "__module__", "") or ""
        is_torch = mod.startswith("torch") or any(v is t for v in vars(torch).values())
        if t is getattr:
            return self.getattr_(node)
        if t is operator.getitem:
            return self.getitem(node)
        if t in (operator.add, operator.sub, operator.mul, operator.floordiv, operator.truediv) and \
                any(self.is_size(a) for a in node.args):
            return self.size_value(node)
        if t in (operator.add, operator.sub, operator.mul, operator.truediv, operator.pow):
            a, b = node.args
            return self.emit(node, BINARY_FN[name], [self.val(node, a, True), self.val(node, b, True)])
        if t is operator.neg:
            return self.emit(node, "neg", [self.val(node, node.args[0])])
        if not is_torch:
            self.refuse(node, "not a PyTorch function")
        return self.torch_op(node, name, list(node.args), dict(node.kwargs), functional=(mod == "torch.nn.functional"))

    def aten(self, node, name):
        args = list(node.args)
        if name in IDENTITY_METHODS or name == "alias":
            if set(node.kwargs) - {"memory_format"}:
                self.refuse(node, "arguments are not supported")
            self.env[node] = self.env[args[0]]
            return
        if name == "t" or (name == "transpose" and args[1:] in ([0, 1], [1, 0], [-1, -2], [-2, -1])):
            return self.transpose(node, args[0])
        if name == "dropout":
            a = self.args(node, ["input", "p", "train"], {})
            return self.dropout(node, a["input"], a["p"], a["train"])
        if name in ("group_norm", "layer_norm") and len(args) == 6:
            args = args[:5]     # cudnn_enabled: no meaning here
        node_args, node.args = node.args, tuple(args)
        try:
            return self.torch_op(node, name, args, dict(node.kwargs), functional=False)
        finally:
            node.args = node_args

    def method(self, node):
        name = node.target
        args = list(node.args)
        if name == "size" or name == "dim":
            return self.size_value(node)
        if name in IDENTITY_METHODS:
            if len(args) != 1 or node.kwargs and set(node.kwargs) - {"memory_format"}:
                self.refuse(node, "arguments are not supported")
            self.env[node] = self.env[args[0]]
            return
        if name in ("t",) or (name == "transpose" and args[1:] in ([0, 1], [1, 0], [-1, -2], [-2, -1])):
            return self.transpose(node, args[0])
        return self.torch_op(node, name, args, dict(node.kwargs), functional=False)

    def transpose(self, node, x):
        e = self.env.get(x)
        if e is None or e[0] != "value":
            self.refuse(node, "transpose of a non-tensor")
        self.env[node] = ("transposed", e[1], "a transposed matrix", "the second operand of matmul")

    def getattr_(self, node):
        x, attr = node.args
        if attr in ("T", "mT"):
            return self.transpose(node, x)
        if attr == "shape":
            return self.size_value(node)
        e = self.env.get(x)
        if e is not None and e[0] == "max" and attr == "values":
            return self.emit(node, e[4], [e[1]], dim=e[5], keepdim=e[6])
        self.refuse(node, "attribute '%s' has no op" % attr)

    def getitem(self, node):
        x, i = node.args
        if self.is_size(x):
            return self.size_value(node)
        e = self.env.get(x)
        if e is not None and e[0] == "max" and i == 0:
            return self.emit(node, e[4], [e[1]], dim=e[5], keepdim=e[6])
        self.refuse(node, "indexing and slicing have no op")

    def view_shape(self, node):
        """The node's output shape for a view/reshape, from the traced shapes
        at the file's sizes and with each size constant doubled."""
        sh = self.shape_of(node) if self.shape_of else "no traced shapes"
        if isinstance(sh, str):
            self.refuse(node, "cannot state its shape in the problem's dims: %s" % sh)
        return sh

    def shape_op(self, node, name, args, kw):
        """view/reshape/flatten/squeeze/unsqueeze (problems/FORMAT.md "Shape ops")."""
        x = args[0] if args else kw.get("input", kw.get("self"))
        rest = list(args[1:])
        xv = self.val(node, x)
        if name in ("view", "reshape", "_unsafe_view", "_reshape_alias"):
            if any(isinstance(a, torch.dtype) for a in rest + list(kw.values())):
                self.refuse(node, "a view as another dtype")
            return self.emit(node, "reshape" if name == "reshape" else "view", [xv],
                             shape=self.view_shape(node))
        if name == "flatten":
            a = dict(zip(["start_dim", "end_dim"], rest))
            a.update({k: v for k, v in kw.items() if k in ("start_dim", "end_dim")})
            if set(kw) - {"start_dim", "end_dim", "input"} or len(rest) > 2:
                self.refuse(node, "arguments are not supported")
            return self.emit(node, "flatten", [xv], start_dim=int(a.get("start_dim", 0)),
                             end_dim=int(a.get("end_dim", -1)))
        d = rest[0] if rest else kw.get("dim")
        if set(kw) - {"dim", "input"} or len(rest) > 1:
            self.refuse(node, "arguments are not supported")
        if isinstance(d, (list, tuple)):
            if len(d) != 1:
                self.refuse(node, "%s over several dims (KForge's takes one; write one %s per dim)" % (name, name))
            d = d[0]
        if name == "unsqueeze":
            if not isinstance(d, int) or isinstance(d, bool):
                self.refuse(node, "unsqueeze needs an integer dim")
            return self.emit(node, "unsqueeze", [xv], dim=d)
        if d is None:
            return self.emit(node, "squeeze", [xv])
        if not isinstance(d, int) or isinstance(d, bool):
            self.refuse(node, "squeeze needs an integer dim")
        return self.emit(node, "squeeze", [xv], dim=d)

    def torch_op(self, node, name, args, kw, functional):
        A = self.args
        if name in SHAPE_OPS:
            return self.shape_op(node, name, args, kw)
        if name in BINARY_FN and not functional:
            a = A(node, ["input", "other", "alpha", "rounding_mode", "out"], {})
            if name in ("add", "sub", "subtract") and a.get("alpha", 1) != 1:
                self.refuse(node, "alpha != 1")
            self.require_none(node, a, "rounding_mode", "out")
            return self.emit(node, BINARY_FN[name], [self.val(node, a["input"], True),
                                                     self.val(node, a["other"], True)])
        if name in ("min", "max") and not functional:
            pos = list(node.args)
            kw = dict(node.kwargs)
            if set(kw) - {"dim", "keepdim", "other"} or len(pos) > 3:
                self.refuse(node, "arguments are not supported")
            x = pos[0] if pos else kw.get("input")
            second = pos[1] if len(pos) > 1 else kw.get("other", kw.get("dim"))
            keep = pos[2] if len(pos) > 2 else kw.get("keepdim", False)
            if isinstance(second, torch.fx.Node):
                return self.emit(node, "minimum" if name == "min" else "maximum",
                                 [self.val(node, x), self.val(node, second)])
            if isinstance(second, int) and not isinstance(second, bool):
                self.env[node] = ("max", self.val(node, x), "a (values, indices) pair",
                                  "torch.%s(...).values" % name, "amin" if name == "min" else "amax",
                                  second, bool(keep))
                return
            self.refuse(node, "torch.%s over all elements has no op" % name)
        if name in UNARY_FN:
            if name == "silu" or name == "mish" or name == "hardswish" or name == "selu" or name == "relu":
                a = A(node, ["input", "inplace"], {})
            else:
                a = A(node, ["input", "out"], {})
                self.require_none(node, a, "out")
            return self.emit(node, UNARY_FN[name], [self.val(node, a["input"])])
        if name == "gelu":
            a = A(node, ["input", "approximate"], {"approximate": "none"})
            return self.emit(node, "gelu", [self.val(node, a["input"])], approximate=a["approximate"])
        if name == "leaky_relu":
            a = A(node, ["input", "negative_slope", "inplace"], {"negative_slope": 0.01})
            return self.emit(node, "leaky_relu", [self.val(node, a["input"])],
                             negative_slope=float(a["negative_slope"]))
        if name == "hardtanh":
            a = A(node, ["input", "min_val", "max_val", "inplace"], {"min_val": -1.0, "max_val": 1.0})
            return self.emit(node, "hardtanh", [self.val(node, a["input"])], min_val=float(a["min_val"]),
                             max_val=float(a["max_val"]))
        if name in ("clamp", "clip", "clamp_min", "clamp_max"):
            if name == "clamp_min":
                a = A(node, ["input", "min"], {})
            elif name == "clamp_max":
                a = A(node, ["input", "max"], {})
            else:
                a = A(node, ["input", "min", "max", "out"], {})
                self.require_none(node, a, "out")
            attrs = {}
            for k in ("min", "max"):
                v = a.get(k)
                if v is None:
                    continue
                if not isinstance(v, (int, float)) or isinstance(v, bool):
                    self.refuse(node, "clamp bounds must be numbers")
                attrs[k] = float(v)
            if not attrs:
                self.refuse(node, "clamp without bounds")
            return self.emit(node, "clamp", [self.val(node, a["input"])], **attrs)
        if name == "softplus":
            a = A(node, ["input", "beta", "threshold"], {"beta": 1.0, "threshold": 20.0})
            return self.emit(node, "softplus", [self.val(node, a["input"])], beta=float(a["beta"]),
                             threshold=float(a["threshold"]))
        if name == "elu":
            a = A(node, ["input", "alpha", "inplace"], {"alpha": 1.0})
            return self.emit(node, "elu", [self.val(node, a["input"])], alpha=float(a["alpha"]))
        if name in REDUCE_FN:
            a = A(node, ["input", "dim", "keepdim", "dtype", "out"], {"keepdim": False})
            self.require_none(node, a, "dtype", "out")
            if a.get("dim") is None:
                self.refuse(node, "a reduction over all elements has no op (give 'dim')")
            return self.emit(node, REDUCE_FN[name], [self.val(node, a["input"])],
                             dim=self.dim_arg(node, a["dim"]), keepdim=bool(a["keepdim"]))
        if name in ("softmax", "log_softmax"):
            a = A(node, ["input", "dim", "_stacklevel", "dtype"], {})
            self.require_none(node, a, "dtype")
            if a.get("dim") is None:
                self.refuse(node, "softmax without a dim")
            return self.emit(node, name, [self.val(node, a["input"])], dim=self.dim_arg(node, a["dim"]))
        if name in ("matmul", "mm"):
            a = A(node, ["input", "other", "out"], {})
            self.require_none(node, a, "out")
            x = self.val(node, a["input"])
            e = self.env.get(a["other"]) if isinstance(a["other"], torch.fx.Node) else None
            if e is not None and e[0] == "transposed":
                return self.emit(node, "matmul", [x, e[1]], transpose_b=True)
            return self.emit(node, "matmul", [x, self.val(node, a["other"])])
        if name == "linear":
            a = A(node, ["input", "weight", "bias"], {})
            ins = [self.val(node, a["input"]), self.val(node, a["weight"])]
            if a.get("bias") is not None:
                ins.append(self.val(node, a["bias"]))
            return self.emit(node, "linear", ins)
        if name == "group_norm":
            a = A(node, ["input", "num_groups", "weight", "bias", "eps"], {"eps": 1e-5})
            ins = self.norm_inputs(node, a)
            return self.emit(node, "group_norm", ins, groups=int(a["num_groups"]), eps=float(a["eps"]))
        if name == "layer_norm":
            a = A(node, ["input", "normalized_shape", "weight", "bias", "eps"], {"eps": 1e-5})
            ins = self.norm_inputs(node, a)
            ns = a["normalized_shape"]
            n = len(ns) if isinstance(ns, (list, tuple)) else 1
            return self.emit(node, "layer_norm", ins, normalized_dims=n, eps=float(a["eps"]))
        if name == "dropout":
            a = A(node, ["input", "p", "training", "inplace"], {"p": 0.5, "training": True})
            return self.dropout(node, a["input"], a["p"], a["training"] if functional else self.model.training)
        self.refuse(node, "no op in KForge's vocabulary (problems/FORMAT.md)")


def fetch_attr(model, target):
    obj = model
    for part in target.split("."):
        obj = getattr(obj, part)
    return obj


def param_name(qual):
    return re.sub(r"[^A-Za-z0-9_]", "_", qual)


# ------------------------------------------------------------------ main

def parse_preset(s, dims):
    m = re.match(r"^([A-Za-z0-9_.-]+)=(.*)$", s)
    if not m:
        fail("--preset %s: expected NAME=DIM=VALUE,DIM=VALUE..." % s)
    name, body = m.group(1), m.group(2)
    vals = {}
    for item in body.split(","):
        kv = item.split("=")
        if len(kv) != 2 or not re.match(r"^[0-9]+$", kv[1]) or int(kv[1]) <= 0:
            fail("--preset %s: '%s' is not DIM=POSITIVE_INTEGER" % (s, item))
        if kv[0] not in dims:
            fail("--preset %s: '%s' is not a dim of this model (dims: %s)" % (s, kv[0], ", ".join(dims)))
        vals[kv[0]] = int(kv[1])
    missing = [d for d in dims if d not in vals]
    if missing:
        fail("--preset %s: gives no value for %s (dims: %s)" % (s, ", ".join(missing), ", ".join(dims)))
    return name, vals


def traced_shapes(src, overrides, eval_mode, exported):
    """{fx node name: output shape} of Model.forward on the meta device, with
    the file's constants changed by `overrides` (None: the file's sizes)."""
    m = src.load(overrides)
    xs, model, _ = build(m, "meta")
    if eval_mode:
        model.eval()
    if exported:
        ep = torch.export.export(model, tuple(xs))
        return {n.name: tuple(n.meta["val"].shape) for n in ep.graph_module.graph.nodes
                if isinstance(n.meta.get("val"), torch.Tensor)}
    gm = torch.fx.GraphModule(model, Tracer().trace(model))
    from torch.fx.passes.shape_prop import ShapeProp
    ShapeProp(gm).propagate(*xs)
    return {n.name: tuple(n.meta["tensor_meta"].shape) for n in gm.graph.nodes
            if hasattr(n.meta.get("tensor_meta"), "shape")}


class ShapeOf:
    """A shape op's output shape in the problem's dims: each size is a dim
    name when it follows exactly that constant (doubling it doubles the size
    and no other constant moves it), a number when no constant moves it, and
    -1 (inferred from the element count) for the one size that is an
    expression of several, as in x.view(B, C * H * W).  Traces run on the
    meta device, once per constant, only when the graph has a shape op."""

    def __init__(self, src, consts, runs, dims, eval_mode, exported):
        self.args = (src, consts, runs, dims, eval_mode, exported)
        self.base = None

    def __call__(self, node):
        src, consts, runs, dims, eval_mode, exported = self.args
        if self.base is None:
            try:
                base = traced_shapes(src, None, eval_mode, exported)
                moved = {c: traced_shapes(src, {c: 2 * consts[c]}, eval_mode, exported) for c in runs}
            except ImportFail:
                raise
            except Exception as ex:
                return "tracing the shapes failed (%s: %s)" % (type(ex).__name__, str(ex).splitlines()[0] if str(ex) else "")
            self.base, self.moved = base, moved
        base = self.base.get(node.name)
        if base is None or any(node.name not in m or len(m[node.name]) != len(base) for m in self.moved.values()):
            return "its shape is not known at every size (the graph changes with the sizes)"
        out, expr = [], []
        for i, size in enumerate(base):
            follows = [c for c, m in self.moved.items() if m[node.name][i] != size]
            if not follows:
                out.append(int(size))
            elif len(follows) == 1 and follows[0] in dims and consts[follows[0]] == size \
                    and self.moved[follows[0]][node.name][i] == 2 * size:
                out.append(follows[0])
            else:
                expr.append("size %d (%d) follows %s" % (i, size, ", ".join(follows)))
                out.append(-1)
        if len(expr) > 1:
            return "two sizes are expressions of the dims (%s); at most one can be inferred (-1)" % "; ".join(expr)
        return out


def import_model(src, name=None, presets=(), eval_mode=False):
    path = src.path
    mod = src.load()
    consts, base, runs, dists = find_dims(src, mod)
    xs, model, rec = build(mod, "meta")
    if eval_mode:
        model.eval()
    entries = tensors_of(xs, model)
    for kind, nm, t in entries:
        if kind == "input" and not isinstance(t, torch.Tensor):
            fail("%s: not a tensor (%s); KForge problems take float32 tensors"
                 % (label(kind, nm), type(t).__name__))
    shapes, dims = symbolize_shapes(entries, consts, base, runs)

    sig = __import__("inspect").signature(model.forward)
    params = [p for p in sig.parameters.values()]
    if any(p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for p in params):
        fail("Model.forward takes *args or **kwargs; name its tensors")
    arg_names = [param_name(p.name) for p in params]
    if len(arg_names) != len(xs):
        fail("%s.forward takes %d argument(s) but %s %d" % (src.cls, len(arg_names), "--inputs gives" if src.spec is not None
                                                            else "get_inputs() returns", len(xs)))

    def first_line(ex):
        return "%s: %s" % (type(ex).__name__, str(ex).splitlines()[0] if str(ex) else "")
    try:
        graph = Tracer().trace(model)
        gm = torch.fx.GraphModule(model, graph)
        exported = None
    except ImportFail:
        raise
    except Exception as ex:
        # torch.fx cannot follow Python control flow on tensors or shapes;
        # torch.export (sizes fixed at the file's values, on the meta device)
        # can, and its aten graph is mapped with the same table
        fx_err = first_line(ex)
        try:
            exported = torch.export.export(model, tuple(xs))
        except Exception as ex2:
            fail("%s: neither torch.fx (%s) nor torch.export (%s) can trace Model.forward"
                 % (path, fx_err, first_line(ex2)))
        gm = exported.graph_module
    shape_of = ShapeOf(src, consts, runs, dims, eval_mode, exported is not None)
    mp = Mapper(gm, model, path, arg_names, exported, shape_of)
    outputs = mp.run()
    if not outputs:
        fail("Model.forward returns no tensor")

    index = {(k, n): i for i, (k, n, _) in enumerate(entries)}
    for kind, nm in [("input", i) for i in range(len(xs))] + [("param", q) for q in mp.used_params]:
        t = entries[index[(kind, nm)]][2] if (kind, nm) in index else None
        if t is None:
            continue
        if t.dtype != torch.float32:
            fail("%s: dtype %s; KForge problems are float32" % (label(kind, nm), str(t.dtype).replace("torch.", "")))
        if t.dim() > 4:
            fail("%s: rank %d; KForge tensors have rank 0 to 4" % (label(kind, nm), t.dim()))
    inputs = []
    for i, an in enumerate(arg_names):
        ti = index[("input", i)]
        inputs.append({"name": an, "shape": shapes[ti], "dtype": "float32",
                       "init": symbolize_init("input", i, rec.get(xs[i]), dims, consts, ti, dists)})
    for q in mp.used_params:
        if ("param", q) not in index:
            fail("parameter '%s' is used by forward but is not a parameter or buffer of Model" % q)
        ti = index[("param", q)]
        t = entries[ti][2]
        inputs.append({"name": param_name(q), "shape": shapes[ti], "dtype": "float32",
                       "init": symbolize_init("param", q, rec.get(t), dims, consts, ti, dists)})
    names = [i["name"] for i in inputs]
    if len(set(names)) != len(names):
        fail("two inputs share the name after '.' became '_': %s" % ", ".join(sorted(names)))
    pre = {"file": {d: consts[d] for d in dims}}
    for s in presets:
        pn, vals = parse_preset(s, dims)
        pre[pn] = vals
    if exported is not None:
        # torch.export fixed the sizes, and so any branch on them: the graph
        # must come out the same at every preset's sizes, else it is refused
        for pn, vals in pre.items():
            if pn == "file":
                continue
            m2 = src.load(vals)
            xs2, model2, _ = build(m2, "meta")
            if eval_mode:
                model2.eval()
            try:
                ep2 = torch.export.export(model2, tuple(xs2))
            except Exception as ex:
                fail("preset '%s': torch.export cannot trace Model.forward at its sizes: %s" % (pn, first_line(ex)))
            mp2 = Mapper(ep2.graph_module, model2, path, arg_names, ep2, shape_of)
            outs2 = mp2.run()
            if mp2.nodes != mp.nodes or outs2 != outputs:
                fail("the graph torch.export traces depends on the sizes (Python control flow on a shape): "
                     "preset '%s' gives another graph than the file's sizes; write the model without the branch"
                     % pn)
    if not dims:
        fail("no module-level int constant sizes a tensor; KForge problems need named dims "
             "(write e.g. batch_size = 128 at module level and use it in get_inputs)")
    pname = name or re.sub(r"[^A-Za-z0-9_.-]", "_", src.name)
    doc = (model.__doc__ or mod.Model.__doc__ or "").strip().split("\n")[0].strip()
    return {
        "name": pname,
        "description": ("imported from %s by kforge import%s" % (src.label,
                                                                 (": " + doc) if doc else "")),
        "dims": dims,
        "presets": pre,
        "inputs": inputs,
        "graph": mp.nodes,
        "outputs": outputs,
        "tolerance": {"atol": 1e-2, "rtol": 1e-2, "rel_l2": 1e-2},
    }


def main(argv=None):
    ap = argparse.ArgumentParser(prog="kforge_import.py", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("model")
    ap.add_argument("--name")
    ap.add_argument("--preset", action="append", default=[])
    ap.add_argument("--eval", action="store_true")
    ap.add_argument("--class", dest="cls")
    ap.add_argument("--inputs")
    ap.add_argument("--init-args")
    args = ap.parse_args(argv)
    try:
        with torch.no_grad():
            src = Source(args.model, args.cls, args.inputs, args.init_args)
            prob = import_model(src, args.name, args.preset, args.eval)
    except ImportFail as ex:
        sys.stderr.write("%s: %s\n" % (TOOL, ex))
        return 2
    except Exception as ex:   # a bug of ours: say so, with where
        tb = traceback.extract_tb(ex.__traceback__)[-1]
        sys.stderr.write("%s: internal error in kforge_import.py line %d: %s: %s\n"
                         % (TOOL, tb.lineno, type(ex).__name__, ex))
        return 3
    sys.stdout.write(dumps(prob))
    return 0


def dumps(prob):
    """The problem as FORMAT.md's examples write it: one input, node or
    preset per line."""
    def j(v):
        return json.dumps(v)
    lines = ["{"]
    keys = list(prob)
    for i, k in enumerate(keys):
        v = prob[k]
        end = "," if i + 1 < len(keys) else ""
        if k in ("inputs", "graph"):
            lines.append("  %s: [" % j(k))
            lines += ["    %s%s" % (j(e), "," if n + 1 < len(v) else "") for n, e in enumerate(v)]
            lines.append("  ]" + end)
        elif k == "presets":
            lines.append("  %s: {" % j(k))
            lines += ["    %s: %s%s" % (j(pn), j(pv), "," if n + 1 < len(v) else "")
                      for n, (pn, pv) in enumerate(v.items())]
            lines.append("  }" + end)
        else:
            lines.append("  %s: %s%s" % (j(k), j(v), end))
    lines.append("}")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.exit(main())
