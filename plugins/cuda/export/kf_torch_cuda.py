"""CUDA C kernel plan of an exported kforge kernel (the cuda plugin's caller,
_cuda.py, imported by the package's __init__), without nvcc: NVRTC compiles
the sources beside this file (the first is the translation unit, the others
headers it may include by name; spec.json's nvrtc_options, the cuda
plugin's own, plus the run's build options) to a cubin for the tensors'
GPU (sm_XY from torch.cuda.get_device_capability), and the CUDA driver API
(libcuda.so.1) loads it into the device's primary context (the one torch
uses) and launches the plan on torch's current stream, through ctypes.  Outputs and scratch buffers are allocated with torch.

libnvrtc is looked for in: $KFORGE_NVRTC (a file), the nvidia/* wheels next
to torch (nvidia/cuda_nvrtc/lib, nvidia/cu13/lib, ...), torch/lib,
$CUDA_HOME/lib64 and /usr/local/cuda*/lib64, then the loader's path; the
error lists every place it looked."""
import ctypes
import glob
import os
import sys

import torch

from ._loadlib import load_first

EXPORTS = ("nvrtc_path",)
_spec = None
_here = None
_nvrtc = None
_nvrtc_file = None
_cuda = None
_mods = {}          # device index -> (module, [functions], [(grid, block, dyn)])
_P = ctypes.c_void_p
CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 0
CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8
SHARED_DEFAULT = 48 * 1024


class CudaError(RuntimeError):
    pass


def setup(spec, here):
    global _spec, _here
    _spec, _here = spec, here


def device_problem(t):
    if t.device.type != "cuda":
        return "on %s, this CUDA kernel takes CUDA tensors (.cuda())" % t.device
    return None


def _nvrtc_candidates():
    """(places looked in, files found) for libnvrtc, best first."""
    places, found = [], []
    env = os.environ.get("KFORGE_NVRTC")
    if env:
        places.append("$KFORGE_NVRTC=" + env)
        if os.path.isfile(env):
            found.append(env)
    roots = []
    tdir = os.path.dirname(os.path.abspath(torch.__file__))
    for p in sys.path + [os.path.dirname(tdir)]:
        if p and os.path.isdir(os.path.join(p, "nvidia")) and p not in roots:
            roots.append(p)
    for r in roots:
        pat = os.path.join(r, "nvidia", "*", "lib", "libnvrtc.so*")
        places.append(pat)
        found += sorted(glob.glob(pat), reverse=True)
    pat = os.path.join(tdir, "lib", "libnvrtc*.so*")
    places.append(pat)
    found += sorted(glob.glob(pat), reverse=True)
    homes = [os.environ[v] for v in ("CUDA_HOME", "CUDA_PATH") if os.environ.get(v)]
    homes += sorted(glob.glob("/usr/local/cuda*"), reverse=True)
    for h in homes:
        pat = os.path.join(h, "lib64", "libnvrtc.so*")
        places.append(pat)
        found += sorted(glob.glob(pat), reverse=True)
    # libnvrtc-builtins is a helper NVRTC loads itself, not NVRTC
    found = [f for f in found if "builtins" not in os.path.basename(f)]
    places.append("the dynamic loader's path (libnvrtc.so)")
    return places, found + ["libnvrtc.so"]


def _load_nvrtc():
    global _nvrtc, _nvrtc_file
    if _nvrtc is not None:
        return _nvrtc
    places, found = _nvrtc_candidates()
    lib, name, errs = load_first(found)
    if lib is None:
        raise CudaError("NVRTC (libnvrtc) not found; looked in %s (%s). Install torch's CUDA wheel (it brings "
                        "nvidia-cuda-nvrtc) or the CUDA toolkit, or set KFORGE_NVRTC to the library"
                        % ("; ".join(places), "; ".join(errs) or "nothing there"))
    P, I = _P, ctypes.c_int
    sig = {
        "nvrtcVersion": [ctypes.POINTER(I), ctypes.POINTER(I)],
        "nvrtcCreateProgram": [ctypes.POINTER(P), ctypes.c_char_p, ctypes.c_char_p, I,
                               ctypes.POINTER(ctypes.c_char_p), ctypes.POINTER(ctypes.c_char_p)],
        "nvrtcCompileProgram": [P, I, ctypes.POINTER(ctypes.c_char_p)],
        "nvrtcGetProgramLogSize": [P, ctypes.POINTER(ctypes.c_size_t)],
        "nvrtcGetProgramLog": [P, ctypes.c_char_p],
        "nvrtcGetCUBINSize": [P, ctypes.POINTER(ctypes.c_size_t)],
        "nvrtcGetCUBIN": [P, ctypes.c_char_p],
        "nvrtcDestroyProgram": [ctypes.POINTER(P)],
    }
    for name, args in sig.items():
        f = getattr(lib, name)
        f.restype, f.argtypes = I, args
    lib.nvrtcGetErrorString.restype, lib.nvrtcGetErrorString.argtypes = ctypes.c_char_p, [I]
    _nvrtc, _nvrtc_file = lib, name
    return lib


def nvrtc_path():
    """The libnvrtc file the kernel is compiled with (loads it)."""
    _load_nvrtc()
    return _nvrtc_file


def _load_cuda():
    global _cuda
    if _cuda is not None:
        return _cuda
    lib, _, errs = load_first([os.environ.get("KFORGE_LIBCUDA") or "libcuda.so.1"])
    if lib is None:
        raise CudaError("cannot load the CUDA driver (%s): this needs an NVIDIA GPU with its driver "
                        "(or KFORGE_LIBCUDA naming libcuda)" % "; ".join(errs))
    P, I, U = _P, ctypes.c_int, ctypes.c_uint
    sig = {
        "cuInit": [U],
        "cuDeviceGet": [ctypes.POINTER(I), I],
        "cuDevicePrimaryCtxRetain": [ctypes.POINTER(P), I],
        "cuCtxPushCurrent_v2": [P],
        "cuCtxPopCurrent_v2": [ctypes.POINTER(P)],
        "cuModuleLoadData": [ctypes.POINTER(P), ctypes.c_char_p],
        "cuModuleGetFunction": [ctypes.POINTER(P), P, ctypes.c_char_p],
        "cuFuncGetAttribute": [ctypes.POINTER(I), I, P],
        "cuFuncSetAttribute": [P, I, I],
        "cuLaunchKernel": [P, U, U, U, U, U, U, U, P, ctypes.POINTER(P), ctypes.POINTER(P)],
        "cuGetErrorString": [I, ctypes.POINTER(ctypes.c_char_p)],
    }
    for name, args in sig.items():
        f = getattr(lib, name)
        f.restype, f.argtypes = I, args
    _cuda = lib
    return lib


def _cu(r, what):
    if r != 0:
        s = ctypes.c_char_p()
        _cuda.cuGetErrorString(r, ctypes.byref(s))
        raise CudaError("%s failed: CUDA error %d (%s)" % (what, r, (s.value or b"?").decode()))


def _compile(arch):
    """NVRTC: the sources -> a cubin for arch ("sm_90")."""
    nv = _load_nvrtc()
    texts = []
    for s in _spec["sources"]:
        with open(os.path.join(_here, s), "rb") as f:
            texts.append(f.read())
    names = [s.encode() for s in _spec["sources"]]
    nh = len(texts) - 1
    hsrc = (ctypes.c_char_p * max(1, nh))(*texts[1:])
    hname = (ctypes.c_char_p * max(1, nh))(*names[1:])
    prog = _P()
    r = nv.nvrtcCreateProgram(ctypes.byref(prog), texts[0], names[0], nh, hsrc if nh else None,
                              hname if nh else None)
    if r != 0:
        raise CudaError("nvrtcCreateProgram: %s" % nv.nvrtcGetErrorString(r).decode())
    try:
        opts = ["--gpu-architecture=" + arch] + _spec.get("nvrtc_options", []) + _spec.get("build_options", "").split()
        oarr = (ctypes.c_char_p * len(opts))(*[o.encode() for o in opts])
        r = nv.nvrtcCompileProgram(prog, len(opts), oarr)
        n = ctypes.c_size_t(0)
        nv.nvrtcGetProgramLogSize(prog, ctypes.byref(n))
        log = ctypes.create_string_buffer(n.value + 1)
        if n.value > 1:
            nv.nvrtcGetProgramLog(prog, log)
        if r != 0:
            major, minor = ctypes.c_int(0), ctypes.c_int(0)
            nv.nvrtcVersion(ctypes.byref(major), ctypes.byref(minor))
            raise CudaError("NVRTC %d.%d (%s) could not compile the kernel for %s (%s; options %s):\n%s"
                            % (major.value, minor.value, _nvrtc_file, arch, nv.nvrtcGetErrorString(r).decode(),
                               " ".join(opts), log.value.decode(errors="replace")))
        if nv.nvrtcGetCUBINSize(prog, ctypes.byref(n)) != 0 or n.value == 0:
            raise CudaError("NVRTC produced no cubin for %s" % arch)
        image = ctypes.create_string_buffer(n.value)
        nv.nvrtcGetCUBIN(prog, image)
        return image.raw
    finally:
        nv.nvrtcDestroyProgram(ctypes.byref(prog))


def _geometry(launch, fn, maxt):
    """grid, block and dynamic shared bytes as the cuda backend computes them
    (plugins/cuda/cu_compile.c): global sizes are threads; no local size ->
    a 1-D block of min(256, the kernel's limit)."""
    wd = launch["work_dim"]
    g = launch["global"] + [1] * (3 - wd)
    if launch.get("local"):
        b = launch["local"] + [1] * (3 - wd)
    else:
        b = [maxt if 0 < maxt < 256 else 256, 1, 1]
    grid = [(g[d] + b[d] - 1) // b[d] for d in range(3)]
    return grid, b


def _module(dev_index):
    """The loaded module and the plan's functions on a device (cached)."""
    if dev_index in _mods:
        return _mods[dev_index]
    cu = _load_cuda()
    _cu(cu.cuInit(0), "cuInit")
    major, minor = torch.cuda.get_device_capability(dev_index)
    # as the plugin compiles (cu_compile.c): sm_90a on a 9.0 device, whose
    # architecture-specific instructions (wgmma, setmaxnreg) kernels may use
    arch = "sm_%d%d%s" % (major, minor, "a" if (major, minor) == (9, 0) else "")
    image = _compile(arch)
    dev = ctypes.c_int(0)
    _cu(cu.cuDeviceGet(ctypes.byref(dev), dev_index), "cuDeviceGet(%d)" % dev_index)
    ctx = _P()
    _cu(cu.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), dev), "cuDevicePrimaryCtxRetain")
    _cu(cu.cuCtxPushCurrent_v2(ctx), "cuCtxPushCurrent")
    try:
        mod = _P()
        _cu(cu.cuModuleLoadData(ctypes.byref(mod), image), "cuModuleLoadData (cubin for %s)" % arch)
        plan = []
        for li, l in enumerate(_spec["launches"]):
            fn = _P()
            r = cu.cuModuleGetFunction(ctypes.byref(fn), mod, l["kernel"].encode())
            _cu(r, "launch %d: kernel '%s' not found in the module (declare it extern \"C\" __global__)"
                % (li, l["kernel"]))
            maxt = ctypes.c_int(0)
            cu.cuFuncGetAttribute(ctypes.byref(maxt), CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, fn)
            grid, block = _geometry(l, fn, maxt.value)
            threads = block[0] * block[1] * block[2]
            if maxt.value > 0 and threads > maxt.value:
                raise CudaError("launch %d (%s): a block of %d threads exceeds this kernel's limit of %d on %s"
                                % (li, l["kernel"], threads, maxt.value, torch.cuda.get_device_name(dev_index)))
            dyn = int(l.get("dyn_shared_bytes", 0))
            if dyn > SHARED_DEFAULT:
                _cu(cu.cuFuncSetAttribute(fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, dyn),
                    "launch %d (%s): cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES, %d)" % (li, l["kernel"], dyn))
            plan.append((fn, grid, block, dyn))
    finally:
        old = _P()
        cu.cuCtxPopCurrent_v2(ctypes.byref(old))
    _mods[dev_index] = (mod, plan, ctx)
    return _mods[dev_index]


def run(tensors):
    dev = tensors[0].device
    idx = dev.index if dev.index is not None else torch.cuda.current_device()
    mod, plan, ctx = _module(idx)
    outs = [torch.empty(tuple(o["shape"]), dtype=torch.float32, device=dev) for o in _spec["outputs"]]
    scratch = [torch.empty(max(4, b), dtype=torch.uint8, device=dev) for b in _spec["scratch_bytes"]]
    # kforge verified the plan on 256-byte aligned buffers (cuMemAlloc), and its
    # kernels may load float4s: a view at an odd offset is copied first
    ins = [t if t.data_ptr() % 256 == 0 else t.clone() for t in tensors]
    bufs = {"input": ins, "output": outs, "scratch": scratch}
    stream = torch.cuda.current_stream(dev).cuda_stream
    cu = _cuda
    _cu(cu.cuCtxPushCurrent_v2(ctx), "cuCtxPushCurrent")
    try:
        for li, (l, (fn, grid, block, dyn)) in enumerate(zip(_spec["launches"], plan)):
            vals = []
            for a in l["args"]:
                k = a["kind"]
                if k in bufs:
                    vals.append(ctypes.c_uint64(bufs[k][a["index"]].data_ptr()))
                elif k == "int":
                    vals.append(ctypes.c_int32(a["value"]))
                elif k == "long":
                    vals.append(ctypes.c_int64(a["value"]))
                elif k == "float":
                    vals.append(ctypes.c_float(a["value"]))
                elif k != "local":      # dynamic shared memory: no parameter
                    raise CudaError("launch %d (%s): argument kind '%s'" % (li, l["kernel"], k))
            params = (_P * max(1, len(vals)))(*[ctypes.cast(ctypes.pointer(v), _P) for v in vals])
            _cu(cu.cuLaunchKernel(fn, grid[0], grid[1], grid[2], block[0], block[1], block[2], dyn, _P(stream),
                                  params, None),
                "launch %d (kernel %s, grid %s, block %s, %d B dynamic shared)" % (li, l["kernel"], grid, block, dyn))
    finally:
        old = _P()
        cu.cuCtxPopCurrent_v2(ctypes.byref(old))
    return outs
