#!/usr/bin/env python3
"""PyTorch eager and torch.compile times of KernelBench Level-2 problems (fp32),
measured with CUDA events (median of N after warm-up), for comparison with
KForge's own baselines.  Usage: torch_baseline.py OUT.json [NUMBERS...]"""
import json
import sys
import time

import torch
import torch.nn.functional as F

torch.backends.cuda.matmul.allow_tf32 = False
torch.backends.cudnn.allow_tf32 = False


def lin(K, N):
    return torch.nn.Linear(K, N).cuda()


def build(n):
    """(module-like callable, inputs) for problem n at the kernelbench size."""
    if n == 9:
        B, K, N = 1024, 8192, 8192; l = lin(K, N)
        return (lambda x: torch.relu((l(x) - 2.0) * 1.5)), B, K
    if n == 12:
        B, K, N = 1024, 8192, 8192; l = lin(K, N)
        return (lambda x: F.leaky_relu(l(x) * 2.0, 0.1)), B, K
    if n == 30:
        B, K, N = 1024, 8192, 8192; l = lin(K, N); gn = torch.nn.GroupNorm(16, N).cuda()
        return (lambda x: F.hardtanh(gn(l(x)), -2.0, 2.0)), B, K
    if n == 33:
        B, K, N = 1024, 8192, 8192; l = lin(K, N); s = torch.randn(N, device="cuda")
        bn = torch.nn.BatchNorm1d(N).cuda().train()
        return (lambda x: bn(l(x) * s)), B, K
    if n == 45:
        B, K, H, O = 16384, 2048, 4096, 1024; l1 = lin(K, H); l2 = lin(H, O)
        return (lambda x: torch.logsumexp(l2(torch.sigmoid(l1(x))), dim=1)), B, K
    if n == 99:
        B, K, N = 1024, 8192, 8192; l = lin(K, N)
        return (lambda x: torch.softmax(F.gelu(l(x)), dim=1)), B, K
    raise SystemExit("unknown problem %d" % n)


def bench(fn, x, reps=20, warm=5):
    with torch.no_grad():
        for _ in range(warm):
            fn(x)
        torch.cuda.synchronize()
        times = []
        for _ in range(reps):
            a = torch.cuda.Event(enable_timing=True); b = torch.cuda.Event(enable_timing=True)
            a.record(); fn(x); b.record(); torch.cuda.synchronize()
            times.append(a.elapsed_time(b) / 1e3)
    times.sort()
    return times[len(times) // 2]


def main():
    out = sys.argv[1]
    nums = [int(a) for a in sys.argv[2:]] or [9, 12, 30, 33, 45, 99]
    res = {"device": torch.cuda.get_device_name(0), "torch": torch.__version__, "tf32": False, "problems": {}}
    for n in nums:
        fn, B, K = build(n)
        x = torch.rand(B, K, device="cuda")
        eager = bench(fn, x)
        t0 = time.time()
        try:
            comp = torch.compile(fn)
            compiled = bench(comp, x)
        except Exception as e:  # report, do not hide
            compiled = None
            print("problem %d: torch.compile failed: %s" % (n, e), file=sys.stderr)
        res["problems"][str(n)] = {"eager_s": eager, "compile_s": compiled, "compile_wall_s": time.time() - t0}
        print("problem %d: eager %.3f ms, compile %s" % (n, eager * 1e3, "%.3f ms" % (compiled * 1e3) if compiled else "-"),
              flush=True)
    with open(out, "w") as f:
        json.dump(res, f, indent=1)


if __name__ == "__main__":
    main()
