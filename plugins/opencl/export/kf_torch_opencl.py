"""OpenCL C kernel plan of an exported kforge kernel (the opencl plugin's
caller, _opencl.py, imported by the package's __init__), run through the host's OpenCL
(libOpenCL.so.1, or $KFORGE_OPENCL_LIB, through ctypes).

The program (the sources beside this file, with the run's build options) is
built on first use for the chosen device: use_device(sel), else
$KFORGE_OPENCL_DEVICE, else device 0; sel is an index into the devices of
all platforms in order (as kforge's opencl backend numbers them) or a
case-insensitive part of a device's name.  Each call copies the inputs (CPU
or CUDA tensors; a CUDA tensor goes through host memory) into device
buffers, runs the plan's launches in order with the sizes and arguments
verified at the run's preset, and copies the outputs back into tensors on
the inputs' device."""
import ctypes
import os

import torch

from ._loadlib import load_first

EXPORTS = ("use_device", "device_name")
_spec = None
_here = None
_st = None          # the built state: lib, device, context, queue, program, kernels
_sel = None

CL_SUCCESS = 0
CL_DEVICE_TYPE_ALL = 0xFFFFFFFF
CL_DEVICE_NAME = 0x102B
CL_PROGRAM_BUILD_LOG = 0x1183
CL_MEM_READ_WRITE = 1
_P = ctypes.c_void_p


def setup(spec, here):
    global _spec, _here
    _spec, _here = spec, here


def device_problem(t):
    if t.device.type not in ("cpu", "cuda"):
        return "on %s; the OpenCL caller copies CPU or CUDA tensors" % t.device
    return None


def use_device(sel):
    """Chooses the OpenCL device (index or part of its name) for the next builds."""
    global _sel, _st
    if _st is not None:
        _release(_st)
    _sel, _st = sel, None


class OpenCLError(RuntimeError):
    pass


def _load():
    names = [os.environ["KFORGE_OPENCL_LIB"]] if os.environ.get("KFORGE_OPENCL_LIB") else \
        ["libOpenCL.so.1", "libOpenCL.so"]
    lib, _, errs = load_first(names)
    if lib is None:
        raise OpenCLError("cannot load the OpenCL ICD loader (%s): install ocl-icd-libopencl1 and a driver, "
                          "or set KFORGE_OPENCL_LIB" % "; ".join(errs))
    sig = {
        "clGetPlatformIDs": (ctypes.c_int, [ctypes.c_uint, _P, ctypes.POINTER(ctypes.c_uint)]),
        "clGetDeviceIDs": (ctypes.c_int, [_P, ctypes.c_uint64, ctypes.c_uint, _P, ctypes.POINTER(ctypes.c_uint)]),
        "clGetDeviceInfo": (ctypes.c_int, [_P, ctypes.c_uint, ctypes.c_size_t, _P, ctypes.POINTER(ctypes.c_size_t)]),
        "clCreateContext": (_P, [_P, ctypes.c_uint, _P, _P, _P, ctypes.POINTER(ctypes.c_int)]),
        "clCreateCommandQueue": (_P, [_P, _P, ctypes.c_uint64, ctypes.POINTER(ctypes.c_int)]),
        "clCreateProgramWithSource": (_P, [_P, ctypes.c_uint, ctypes.POINTER(ctypes.c_char_p), _P,
                                           ctypes.POINTER(ctypes.c_int)]),
        "clBuildProgram": (ctypes.c_int, [_P, ctypes.c_uint, _P, ctypes.c_char_p, _P, _P]),
        "clGetProgramBuildInfo": (ctypes.c_int, [_P, _P, ctypes.c_uint, ctypes.c_size_t, _P,
                                                 ctypes.POINTER(ctypes.c_size_t)]),
        "clCreateKernel": (_P, [_P, ctypes.c_char_p, ctypes.POINTER(ctypes.c_int)]),
        "clCreateBuffer": (_P, [_P, ctypes.c_uint64, ctypes.c_size_t, _P, ctypes.POINTER(ctypes.c_int)]),
        "clSetKernelArg": (ctypes.c_int, [_P, ctypes.c_uint, ctypes.c_size_t, _P]),
        "clEnqueueWriteBuffer": (ctypes.c_int, [_P, _P, ctypes.c_uint, ctypes.c_size_t, ctypes.c_size_t, _P,
                                                ctypes.c_uint, _P, _P]),
        "clEnqueueReadBuffer": (ctypes.c_int, [_P, _P, ctypes.c_uint, ctypes.c_size_t, ctypes.c_size_t, _P,
                                               ctypes.c_uint, _P, _P]),
        "clEnqueueNDRangeKernel": (ctypes.c_int, [_P, _P, ctypes.c_uint, _P, _P, _P, ctypes.c_uint, _P, _P]),
        "clFinish": (ctypes.c_int, [_P]),
        "clReleaseMemObject": (ctypes.c_int, [_P]),
        "clReleaseKernel": (ctypes.c_int, [_P]),
        "clReleaseProgram": (ctypes.c_int, [_P]),
        "clReleaseCommandQueue": (ctypes.c_int, [_P]),
        "clReleaseContext": (ctypes.c_int, [_P]),
    }
    for name, (res, args) in sig.items():
        f = getattr(lib, name)
        f.restype, f.argtypes = res, args
    return lib


def _ok(e, what):
    if e != CL_SUCCESS:
        raise OpenCLError("%s failed: OpenCL error %d" % (what, e))


def _devices(lib):
    """Every device of every platform, in order: [(id, name)]."""
    n = ctypes.c_uint(0)
    e = lib.clGetPlatformIDs(0, None, ctypes.byref(n))
    if e == -1001 or n.value == 0:
        return []
    _ok(e, "clGetPlatformIDs")
    plats = (_P * n.value)()
    _ok(lib.clGetPlatformIDs(n.value, plats, None), "clGetPlatformIDs")
    out = []
    for p in plats:
        nd = ctypes.c_uint(0)
        if lib.clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 0, None, ctypes.byref(nd)) != CL_SUCCESS or nd.value == 0:
            continue
        ids = (_P * nd.value)()
        if lib.clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, nd.value, ids, None) != CL_SUCCESS:
            continue
        for d in ids:
            buf = ctypes.create_string_buffer(256)
            lib.clGetDeviceInfo(d, CL_DEVICE_NAME, 255, buf, None)
            out.append((d, buf.value.decode(errors="replace")))
    return out


def _pick(lib):
    sel = _sel if _sel is not None else os.environ.get("KFORGE_OPENCL_DEVICE", "0")
    devs = _devices(lib)
    if not devs:
        raise OpenCLError("no OpenCL device on this host (is an ICD installed in /etc/OpenCL/vendors, or "
                          "OCL_ICD_VENDORS set?)")
    listing = ", ".join("%d: %s" % (i, n) for i, (_, n) in enumerate(devs))
    s = str(sel).strip()
    if s.lstrip("-").isdigit():
        i = int(s)
        if not 0 <= i < len(devs):
            raise OpenCLError("OpenCL device %d: this host has %d (%s)" % (i, len(devs), listing))
        return devs[i]
    hits = [d for d in devs if s.lower() in d[1].lower()]
    if not hits:
        raise OpenCLError("no OpenCL device's name contains '%s' (%s)" % (s, listing))
    return hits[0]


def _release(st):
    lib = st["lib"]
    for k in st.get("kernels", []):
        lib.clReleaseKernel(k)
    if st.get("program"):
        lib.clReleaseProgram(st["program"])
    if st.get("queue"):
        lib.clReleaseCommandQueue(st["queue"])
    if st.get("context"):
        lib.clReleaseContext(st["context"])


def _build():
    lib = _load()
    dev, name = _pick(lib)
    st = {"lib": lib, "device": dev, "name": name}
    try:
        e = ctypes.c_int(0)
        devarr = (_P * 1)(dev)
        st["context"] = lib.clCreateContext(None, 1, devarr, None, None, ctypes.byref(e))
        _ok(e.value, "clCreateContext on '%s'" % name)
        st["queue"] = lib.clCreateCommandQueue(st["context"], dev, 0, ctypes.byref(e))
        _ok(e.value, "clCreateCommandQueue on '%s'" % name)
        texts = []
        for s in _spec["sources"]:
            with open(os.path.join(_here, s), "rb") as f:
                texts.append(f.read())
        arr = (ctypes.c_char_p * len(texts))(*texts)
        st["program"] = lib.clCreateProgramWithSource(st["context"], len(texts), arr, None, ctypes.byref(e))
        _ok(e.value, "clCreateProgramWithSource")
        opts = _spec.get("build_options", "").encode()
        be = lib.clBuildProgram(st["program"], 1, devarr, opts, None, None)
        if be != CL_SUCCESS:
            n = ctypes.c_size_t(0)
            lib.clGetProgramBuildInfo(st["program"], dev, CL_PROGRAM_BUILD_LOG, 0, None, ctypes.byref(n))
            log = ctypes.create_string_buffer(n.value + 1)
            lib.clGetProgramBuildInfo(st["program"], dev, CL_PROGRAM_BUILD_LOG, n.value, log, None)
            raise OpenCLError("building the exported program on '%s' failed (OpenCL error %d, options '%s'):\n%s"
                              % (name, be, opts.decode(), log.value.decode(errors="replace")))
        st["kernels"] = []
        for li, l in enumerate(_spec["launches"]):
            k = lib.clCreateKernel(st["program"], l["kernel"].encode(), ctypes.byref(e))
            _ok(e.value, "launch %d: clCreateKernel('%s')" % (li, l["kernel"]))
            st["kernels"].append(k)
    except Exception:
        _release(st)
        raise
    return st


def _state():
    global _st
    if _st is None:
        _st = _build()
    return _st


def device_name():
    """The name of the OpenCL device the kernel runs on (builds it)."""
    return _state()["name"]


def run(tensors):
    st = _state()
    lib, q = st["lib"], st["queue"]
    dev = tensors[0].device if tensors else torch.device("cpu")
    host_in = [t.detach().to("cpu").contiguous() for t in tensors]
    outs = [torch.empty(tuple(o["shape"]), dtype=torch.float32) for o in _spec["outputs"]]
    mems = []
    e = ctypes.c_int(0)

    def buffer(nbytes, what):
        m = lib.clCreateBuffer(st["context"], CL_MEM_READ_WRITE, max(4, nbytes), None, ctypes.byref(e))
        _ok(e.value, "clCreateBuffer (%s, %d bytes)" % (what, nbytes))
        mems.append(m)
        return m

    try:
        bin_ = [buffer(t.numel() * 4, "input %s" % i["name"]) for t, i in zip(host_in, _spec["inputs"])]
        bout = [buffer(t.numel() * 4, "output %s" % o["name"]) for t, o in zip(outs, _spec["outputs"])]
        bscr = [buffer(b, "scratch %d" % i) for i, b in enumerate(_spec["scratch_bytes"])]
        for m, t, i in zip(bin_, host_in, _spec["inputs"]):
            _ok(lib.clEnqueueWriteBuffer(q, m, 1, 0, t.numel() * 4, t.data_ptr(), 0, None, None),
                "copying input %s to the device" % i["name"])
        for li, (l, k) in enumerate(zip(_spec["launches"], st["kernels"])):
            for ai, a in enumerate(l["args"]):
                kind = a["kind"]
                if kind in ("input", "output", "scratch"):
                    m = {"input": bin_, "output": bout, "scratch": bscr}[kind][a["index"]]
                    v = _P(m)
                    r = lib.clSetKernelArg(k, ai, ctypes.sizeof(v), ctypes.byref(v))
                elif kind == "local":
                    r = lib.clSetKernelArg(k, ai, a["bytes"], None)
                else:
                    v = {"int": ctypes.c_int32, "long": ctypes.c_int64, "float": ctypes.c_float}[kind](a["value"])
                    r = lib.clSetKernelArg(k, ai, ctypes.sizeof(v), ctypes.byref(v))
                _ok(r, "launch %d (%s): clSetKernelArg(%d, %s %s)" % (li, l["kernel"], ai, kind, a.get("from", "")))
            wd = l["work_dim"]
            g = (ctypes.c_size_t * 3)(*(l["global"] + [1] * (3 - wd)))
            loc = (ctypes.c_size_t * 3)(*(l["local"] + [1] * (3 - wd))) if l.get("local") else None
            _ok(lib.clEnqueueNDRangeKernel(q, k, wd, None, g, loc, 0, None, None),
                "launch %d (%s, global %s, local %s): clEnqueueNDRangeKernel" % (li, l["kernel"], l["global"],
                                                                                l.get("local")))
        for m, t, o in zip(bout, outs, _spec["outputs"]):
            _ok(lib.clEnqueueReadBuffer(q, m, 1, 0, t.numel() * 4, t.data_ptr(), 0, None, None),
                "reading output %s back (a launch probably failed)" % o["name"])
    finally:
        lib.clFinish(q)
        for m in mems:
            lib.clReleaseMemObject(m)
    return [t.to(dev) for t in outs] if dev.type != "cpu" else outs
