"""Host-entry C for an exported kforge kernel (KIND "host-c"; imported by
the package's __init__).  The kernel's C sources beside it are compiled on
first use with the cpu-simd backend's flags ($KFORGE_CC, default cc;
-march=native, so on the machine that runs it) into build/ in the package,
or into $XDG_CACHE_HOME/kforge/export when that is not writable, and called
through ctypes with kforge-cpu.h's kf_cpu_args.  Buffers that are not
4096-byte aligned (what kforge verified the kernel with) are copied into
aligned ones.  Threads: $KFORGE_THREADS, else torch.get_num_threads()."""
import ctypes
import hashlib
import os
import subprocess

import torch

ALIGN = 4096
EXPORTS = ("aligned_empty", "ALIGN")
_spec = None
_here = None
_fn = None
_lib = None


class _Args(ctypes.Structure):   # kforge-cpu.h: kf_cpu_args
    _fields_ = [("in_", ctypes.POINTER(ctypes.c_void_p)), ("out", ctypes.POINTER(ctypes.c_void_p)),
                ("scratch", ctypes.POINTER(ctypes.c_void_p)), ("dims", ctypes.POINTER(ctypes.c_int64)),
                ("n_in", ctypes.c_int), ("n_out", ctypes.c_int), ("n_scratch", ctypes.c_int),
                ("n_dims", ctypes.c_int), ("n_threads", ctypes.c_int), ("features", ctypes.c_uint32)]


_features = None


def _amx_features():
    """KF_CPU_FEAT_AMX_BF16 where the kernel grants this process the AMX tile
    state (asked once, as kforge's cpu-simd plugin does): a kernel on AMX
    tiles (the built-in agent's precision 5) writes nothing without it."""
    global _features
    if _features is None:
        _features = 0
        if os.uname().machine == "x86_64" and os.uname().sysname == "Linux":
            try:
                libc = ctypes.CDLL(None, use_errno=True)
                m = ctypes.c_ulong(0)
                if (libc.syscall(158, 0x1023, 18) == 0 and libc.syscall(158, 0x1022, ctypes.byref(m)) == 0
                        and m.value & (1 << 18)):   # SYS_arch_prctl, ARCH_REQ/GET_XCOMP_PERM, XTILEDATA
                    _features = 1                    # KF_CPU_FEAT_AMX_BF16
            except (OSError, AttributeError):
                pass
    return _features


def setup(spec, here):
    global _spec, _here
    _spec, _here = spec, here


def device_problem(t):
    if t.device.type != "cpu":
        return "on %s, this host-entry C kernel takes CPU tensors" % t.device
    return None


def _build_dir():
    d = os.path.join(_here, "build")
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
    srcs = [s for s in _spec["sources"] if s.endswith(".c")]
    h = hashlib.sha256()
    for s in srcs + ["kforge-cpu.h"]:
        with open(os.path.join(_here, s), "rb") as f:
            h.update(s.encode() + b"\0" + f.read())
    h.update(" ".join(cc + _spec["cflags"] + [_spec["build_options"]]).encode())
    so = os.path.join(_build_dir(), "%s-%s.so" % (_spec["package"], h.hexdigest()[:16]))
    if not os.path.exists(so):
        tmp = "%s.%d.tmp" % (so, os.getpid())
        cmd = cc + _spec["cflags"] + ["-o", tmp] + [os.path.join(_here, s) for s in srcs] + \
            _spec["build_options"].split() + ["-lm"]
        r = subprocess.run(cmd, cwd=_here, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if r.returncode != 0:
            raise RuntimeError("compiling the exported kernel failed (%s):\n%s" % (" ".join(cmd), r.stdout))
        os.replace(tmp, so)
    lib = ctypes.CDLL(so)
    fn = getattr(lib, _spec["entry"])
    fn.argtypes = [ctypes.POINTER(_Args)]
    fn.restype = None
    return lib, fn


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


def run(tensors):
    ins = []
    for t in tensors:
        if t.data_ptr() % ALIGN:
            a = aligned_empty(tuple(t.shape))
            a.copy_(t)
            t = a
        ins.append(t)
    outs = [aligned_empty(tuple(o["shape"])) for o in _spec["outputs"]]
    scratch = [aligned_empty(((b + 3) // 4,)) for b in _spec["scratch_bytes"]]
    dims = [d["value"] for d in _spec["dims"]]
    threads = int(os.environ.get("KFORGE_THREADS", "0") or 0) or torch.get_num_threads()
    P = ctypes.c_void_p
    a = _Args((P * max(1, len(ins)))(*[t.data_ptr() for t in ins]),
              (P * len(outs))(*[t.data_ptr() for t in outs]),
              (P * max(1, len(scratch)))(*[t.data_ptr() for t in scratch]),
              (ctypes.c_int64 * max(1, len(dims)))(*dims),
              len(ins), len(outs), len(scratch), len(dims), threads, _amx_features())
    _entry()(ctypes.byref(a))
    return outs
