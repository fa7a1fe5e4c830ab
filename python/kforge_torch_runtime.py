"""A kernel exported by `kforge export RUN --to torch`.

    import PKG
    y = PKG.forward(x, W, b)          # the problem's inputs, in its order
    m = PKG.Module(model)             # forward(*model's forward args), parameters from `model`

KIND (spec.json's "kind", from the language and capabilities the run's
backend declared) says what the kernel is, and spec.json's "caller" names
the module beside this file that runs it:
  host-c   the host-entry C sources beside this file, compiled on first use
           with the cpu-simd flags and called through ctypes (the cpu-simd
           plugin's _host_c.py); CPU tensors
  a plan   the caller the plugin of the run's backend wrote: the opencl
           plugin's _opencl.py (the host's libOpenCL.so.1 through ctypes; CPU
           or CUDA tensors, copied to and from device buffers; device
           $KFORGE_OPENCL_DEVICE or use_device()), the cuda plugin's _cuda.py
           (NVRTC and the CUDA driver API through ctypes on torch's current
           stream; CUDA tensors)

forward() checks every tensor (torch.Tensor, float32, on a device the kernel
takes, all on one device, contiguous, the exact shape the kernel was verified
at: see INPUTS and DIMS) and raises ValueError naming the tensor otherwise.
"""
import importlib
import json
import os

import torch

_HERE = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(_HERE, "spec.json")) as _f:
    SPEC = json.load(_f)

KIND = SPEC.get("kind", "host-c")
DIMS = {d["name"]: d["value"] for d in SPEC["dims"]}
INPUTS = [(i["name"], tuple(i["shape"])) for i in SPEC["inputs"]]
OUTPUTS = [(o["name"], tuple(o["shape"])) for o in SPEC["outputs"]]
_CALLER = SPEC.get("caller", "")
if not _CALLER.startswith("_") or not _CALLER[1:].replace("_", "a").isalnum():
    raise ImportError("spec.json: caller '%s' is not a module of this package (kind %s)" % (_CALLER, KIND))
_impl = importlib.import_module("." + _CALLER, __name__)
_impl.setup(SPEC, _HERE)
# the caller's extras: aligned_empty (host-c), use_device / device_name (opencl), nvrtc_path (cuda)
for _n in getattr(_impl, "EXPORTS", ()):
    globals()[_n] = getattr(_impl, _n)


def _check(name, t, shape):
    if not isinstance(t, torch.Tensor):
        raise ValueError("%s: expected a torch.Tensor, got %s" % (name, type(t).__name__))
    if t.dtype != torch.float32:
        raise ValueError("%s: dtype %s, the kernel takes float32" % (name, t.dtype))
    why = _impl.device_problem(t)
    if why:
        raise ValueError("%s: %s" % (name, why))
    if tuple(t.shape) != shape:
        raise ValueError("%s: shape %s, the kernel was verified for %s only (%s)"
                         % (name, tuple(t.shape), shape, ", ".join("%s=%d" % kv for kv in DIMS.items())))
    if not t.is_contiguous():
        raise ValueError("%s: not contiguous (call .contiguous() first)" % name)
    if t.requires_grad and torch.is_grad_enabled():
        raise ValueError("%s: requires grad; the exported kernel has no backward (use torch.no_grad())" % name)


def forward(*tensors):
    """The problem's outputs for its inputs (one tensor, or a tuple), on the
    inputs' device."""
    if len(tensors) != len(INPUTS):
        raise ValueError("expected %d tensors (%s), got %d" % (len(INPUTS), ", ".join(n for n, _ in INPUTS),
                                                              len(tensors)))
    for (name, shape), t in zip(INPUTS, tensors):
        _check(name, t, shape)
    devs = sorted({str(t.device) for t in tensors})
    if len(devs) > 1:
        raise ValueError("the inputs are on %s; put them all on one device" % " and ".join(devs))
    outs = _impl.run(list(tensors))
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
