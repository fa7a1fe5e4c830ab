"""Does initialising OpenCL in a process change what its children see?"""
import ctypes, os
libc = ctypes.CDLL(None)
libc.system(b"env | sort > /tmp/env_before")
cl = ctypes.CDLL("libOpenCL.so.1")
n = ctypes.c_uint(0)
plats = (ctypes.c_void_p * 8)()
print("clGetPlatformIDs", cl.clGetPlatformIDs(8, plats, ctypes.byref(n)), n.value, flush=True)
for i in range(n.value):
    nd = ctypes.c_uint(0)
    print(" platform", i, "devices rc", cl.clGetDeviceIDs(ctypes.c_void_p(plats[i]), ctypes.c_ulonglong(0xFFFFFFFF), 0, None, ctypes.byref(nd)), nd.value, flush=True)
libc.system(b"env | sort > /tmp/env_after; diff /tmp/env_before /tmp/env_after; echo child-backends: $(kforge backends 2>&1 | grep -c 'device [0-9]')")
