"""Which part of the worker's start-up hides the NVIDIA OpenCL device?"""
import os, socket, subprocess, resource, sys
cmd = ["kforge", "backends"]
def count(out): return out.count(b"device ")
def run(name, **kw):
    try:
        r = subprocess.run(cmd, capture_output=True, timeout=60, **kw)
        print(name, count(r.stdout + r.stderr), flush=True)
    except Exception as e:
        print(name, "error", e, flush=True)
run("plain")
run("setpgid", preexec_fn=lambda: os.setpgid(0, 0))
a, b = socket.socketpair()
r = subprocess.run(cmd, stdin=b, stdout=b, stderr=subprocess.PIPE, timeout=60); b.close()
a.settimeout(5); data = b""
try:
    while True:
        d = a.recv(65536)
        if not d: break
        data += d
except Exception: pass
print("socket-stdio", count(data), flush=True)
def lim():
    resource.setrlimit(resource.RLIMIT_CPU, (300, 300)); resource.setrlimit(resource.RLIMIT_FSIZE, (1 << 30, 1 << 30)); resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
run("rlimits", preexec_fn=lim)
fd = os.memfd_create("x"); os.ftruncate(fd, 1 << 28)
r = subprocess.run(["sh", "-c", "exec 3<&%d; exec kforge backends" % fd], capture_output=True, pass_fds=(fd,), timeout=60)
print("memfd-fd3", count(r.stdout), flush=True)
