"""A kernel exported by `kforge export RUN --to torch` (cpu-simd backend).

    import PKG
    y = PKG.forward(x, W, b)          # the problem's inputs, in its order
    m = PKG.Module(model)             # forward(*model's forward args), parameters from `model`

forward() checks every tensor (torch.Tensor, float32, on the CPU, contiguous,
the exact shape the kernel was verified at: see INPUTS and DIMS) and raises
ValueError naming the tensor otherwise.  The kernel's C sources beside this
file are compiled on first use with the cpu-simd backend's flags
($KFORGE_CC, default cc; -march=native, so on the machine that runs it) into
build/ here, or into $XDG_CACHE_HOME/kforge/export when this directory is
not writable, and called through ctypes.  Buffers that are not 4096-byte
aligned (what kforge verified the kernel with) are copied into aligned ones.
Threads: $KFORGE_THREADS, else torch.get_num_threads().
"""
import ctypes
import hashlib
import json
import os
import subprocess

import torch

_HERE = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(_HERE, "spec.json")) as _f:
    SPEC = json.load(_f)

DIMS = {d["name"]: d["value"] for d in SPEC["dims"]}
INPUTS = [(i["name"], tuple(i["shape"])) for i in SPEC["inputs"]]
OUTPUTS = [(o["name"], tuple(o["shape"])) for o in SPEC["outputs"]]
ALIGN = 4096


class _Args(ctypes.Structure):   # kforge-cpu.h: kf_cpu_args
    _fields_ = [("in_", ctypes.POINTER(ctypes.c_void_p)), ("out", ctypes.POINTER(ctypes.c_void_p)),
                ("scratch", ctypes.POINTER(ctypes.c_void_p)), ("dims", ctypes.POINTER(ctypes.c_int64)),
                ("n_in", ctypes.c_int), ("n_out", ctypes.c_int), ("n_scratch", ctypes.c_int),
                ("n_dims", ctypes.c_int), ("n_threads", ctypes.c_int)]


def _build_dir():
    d = os.path.join(_HERE, "build")
    try:
        os.makedirs(d, exist_ok=True)
        if os.access(d, os.W_OK):
            return d
    except OSError:
        pass
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    d = os.path.join(base, "kforge", "export")
    os.makedirs(d, exist_ok=True)
    return d


def _compile():
    cc = (os.environ.get("KFORGE_CC") or "cc").split()
    srcs = [s for s in SPEC["sources"] if s.endswith(".c")]
    h = hashlib.sha256()
    for s in srcs + ["kforge-cpu.h"]:
        with open(os.path.join(_HERE, s), "rb") as f:
            h.update(s.encode() + b"\0" + f.read())
    h.update(" ".join(cc + SPEC["cflags"] + [SPEC["build_options"]]).encode())
    so = os.path.join(_build_dir(), "%s-%s.so" % (SPEC["package"], h.hexdigest()[:16]))
    if not os.path.exists(so):
        tmp = "%s.%d.tmp" % (so, os.getpid())
        cmd = cc + SPEC["cflags"] + ["-o", tmp] + [os.path.join(_HERE, s) for s in srcs] + \
            SPEC["build_options"].split() + ["-lm"]
        r = subprocess.run(cmd, cwd=_HERE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if r.returncode != 0:
            raise RuntimeError("compiling the exported kernel failed (%s):\n%s" % (" ".join(cmd), r.stdout))
        os.replace(tmp, so)
    lib = ctypes.CDLL(so)
    fn = getattr(lib, SPEC["entry"])
    fn.argtypes = [ctypes.POINTER(_Args)]
    fn.restype = None
    return lib, fn


_lib = None
_fn = None


def _entry():
    global _lib, _fn
    if _fn is None:
        _lib, _fn = _compile()
    return _fn


def aligned_empty(shape):
    """An uninitialised float32 CPU tensor whose data is 4096-byte aligned."""
    n = 1
    for s in shape:
        n *= s
    raw = torch.empty(n + ALIGN // 4, dtype=torch.float32)
    off = (-raw.data_ptr() % ALIGN) // 4
    return raw[off:off + n].view(shape)


def _check(name, t, shape):
    if not isinstance(t, torch.Tensor):
        raise ValueError("%s: expected a torch.Tensor, got %s" % (name, type(t).__name__))
    if t.dtype != torch.float32:
        raise ValueError("%s: dtype %s, the kernel takes float32" % (name, t.dtype))
    if t.device.type != "cpu":
        raise ValueError("%s: on %s, this cpu-simd kernel takes CPU tensors" % (name, t.device))
    if tuple(t.shape) != shape:
        raise ValueError("%s: shape %s, the kernel was verified for %s only (%s)"
                         % (name, tuple(t.shape), shape, ", ".join("%s=%d" % kv for kv in DIMS.items())))
    if not t.is_contiguous():
        raise ValueError("%s: not contiguous (call .contiguous() first)" % name)
    if t.requires_grad and torch.is_grad_enabled():
        raise ValueError("%s: requires grad; the exported kernel has no backward (use torch.no_grad())" % name)


def forward(*tensors):
    """The problem's outputs for its inputs (one tensor, or a tuple)."""
    if len(tensors) != len(INPUTS):
        raise ValueError("expected %d tensors (%s), got %d" % (len(INPUTS), ", ".join(n for n, _ in INPUTS),
                                                              len(tensors)))
    ins = []
    for (name, shape), t in zip(INPUTS, tensors):
        _check(name, t, shape)
        if t.data_ptr() % ALIGN:
            a = aligned_empty(shape)
            a.copy_(t)
            t = a
        ins.append(t)
    outs = [aligned_empty(shape) for _, shape in OUTPUTS]
    scratch = [aligned_empty(((b + 3) // 4,)) for b in SPEC["scratch_bytes"]]
    threads = int(os.environ.get("KFORGE_THREADS", "0") or 0) or torch.get_num_threads()
    P = ctypes.c_void_p
    a = _Args((P * max(1, len(ins)))(*[t.data_ptr() for t in ins]),
              (P * len(outs))(*[t.data_ptr() for t in outs]),
              (P * max(1, len(scratch)))(*[t.data_ptr() for t in scratch]),
              (ctypes.c_int64 * max(1, len(DIMS)))(*DIMS.values()),
              len(ins), len(outs), len(scratch), len(DIMS), threads)
    _entry()(ctypes.byref(a))
    return outs[0] if len(outs) == 1 else tuple(outs)


def _pname(qual):
    return "".join(c if c.isalnum() or c == "_" else "_" for c in qual)


class Module(torch.nn.Module):
    """Wraps `model` (the module the problem was imported from): calls take
    the model's forward arguments, and its parameters and buffers are passed
    by name (kforge import names them with '.' written as '_')."""

    def __init__(self, model):
        super().__init__()
        self.model = model
        named = {_pname(n): p for n, p in list(model.named_parameters()) + list(model.named_buffers())}
        self._names = [n for n, _ in INPUTS]
        self._params = {n: named[n] for n in self._names if n in named}
        self._n_args = len(self._names) - len(self._params)
        if self._names[self._n_args:] != list(self._params):
            raise ValueError("the model's parameters do not match the kernel's inputs %s" % self._names)

    def forward(self, *args):
        if len(args) != self._n_args:
            raise ValueError("expected %d argument(s) (%s)" % (self._n_args, ", ".join(self._names[:self._n_args])))
        with torch.no_grad():
            return forward(*args, *[p.detach() for p in self._params.values()])
