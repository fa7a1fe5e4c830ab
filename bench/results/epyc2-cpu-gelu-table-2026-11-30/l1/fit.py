# piecewise polynomial tables for q(a) = Phi(-a) (erf GELU) and sigma(-2u(a)) (tanh GELU)
import math, numpy as np, sys
NI = int(sys.argv[1]) if len(sys.argv) > 1 else 32
DEG = int(sys.argv[2]) if len(sys.argv) > 2 else 4
H = float(sys.argv[3]) if len(sys.argv) > 3 else 0.1875
inv_h = np.float32(1.0 / H); h_eff = 1.0 / float(inv_h)
def q_erf(a): return 0.5 * math.erfc(a / math.sqrt(2.0))
def q_tanh(a):
    v = 2 * 0.79788456080286536 * (a + 0.044715 * a**3)
    return 1.0 / (1.0 + math.exp(v)) if v < 700 else 0.0
def fit(f, zero_from):
    C = np.zeros((NI, DEG + 1))
    for n in range(NI):
        if n >= zero_from: continue
        # Chebyshev nodes on r in [-0.5, 0.5] (r in [0, 0.5] for n == 0 is enough but fit the whole)
        m = 4 * (DEG + 1) + 1
        r = 0.5 * np.cos(np.pi * (np.arange(m) + 0.5) / m)
        y = np.array([f((n + ri) * h_eff) for ri in r])
        V = np.vander(r, DEG + 1, increasing=True)
        C[n] = np.linalg.lstsq(V, y, rcond=None)[0]
    return C.astype(np.float32)
def ev(C, a):
    a = np.float32(a)
    t = np.float32(a * inv_h)
    n = int(np.rint(t))
    r = np.float32(t - np.float32(n))
    p = C[n, DEG]
    for k in range(DEG - 1, -1, -1): p = np.float32(p * r + C[n, k])
    return p
def name(tag, C):
    out = []
    for k in range(DEG + 1):
        out.append('static const float kf__%s_c%d[%d] = {%s};' % (tag, k, NI, ', '.join('%.9ef' % v for v in C[:, k])))
    return '\n'.join(out)
if __name__ == '__main__':
    amax = (NI - 1 + 0.49) * h_eff
    print('/* NI %d DEG %d h %.6f inv_h %.9ef amax %.6f */' % (NI, DEG, h_eff, inv_h, amax))
    for tag, f, bound in (('gelu', q_erf, (3e-7, 5e-7)), ('gelu_tanh', q_tanh, (1e-7, 1e-6))):
        # zero from the first interval whose start already has a*q < 1e-8
        zf = NI - 1
        C = fit(f, zf)
        print(name(tag, C))
        # worst error of y = x*q (x<0) and x*(1-q) (x>0) against the bound, over [-12, 12]
        xs = np.linspace(-12, 12, 400001)
        worst = 0
        for x in xs:
            a = min(abs(x), amax)
            q = ev(C, a)
            y = np.float32(x) * (q if x < 0 else np.float32(1 - q))
            if x >= 0: yt = x * (1 - f(abs(x)))
            else: yt = x * f(abs(x))
            e = abs(float(y) - yt) / (bound[0] + bound[1] * abs(yt))
            worst = max(worst, e)
        print('/* %s worst error / bound %.3f */' % (tag, worst))
