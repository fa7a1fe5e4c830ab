# Writes wgmma_ops.h: wgmma m64nNk16 bf16 / m64nNk8 tf32 wrappers (N 128, 256)
out = []
for ty, k, ab in (("bf16", 16, "bf16.bf16"), ("tf32", 8, "tf32.tf32")):
    for n in (128, 256):
        r = n // 2
        regs = ",".join("%%%d" % i for i in range(r))
        tail = ", p, 1, 1, 0, 0;" if ty == "bf16" else ", p, 1, 1;"
        out.append("static __device__ __forceinline__ void wgmma_%s_n%d(float *d, unsigned long long da, unsigned long long db) {" % (ty, n))
        out.append('    asm volatile("{ .reg .pred p; setp.ne.b32 p, %%%d, 0;\\n"' % (r + 2))
        out.append('        "wgmma.mma_async.sync.aligned.m64n%dk%d.f32.%s {%s}, %%%d, %%%d%s }\\n"' % (n, k, ab, regs, r, r + 1, tail))
        out.append("        : " + ", ".join('"+f"(d[%d])' % i for i in range(r)))
        out.append('        : "l"(da), "l"(db), "r"(1));')
        out.append("}")
open("wgmma_ops.h", "w").write("\n".join(out) + "\n")
