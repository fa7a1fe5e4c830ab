#!/usr/bin/env python3
"""Writes the C prelude's GELU tables (builtin_prelude.c, C_QTAB): q(a), the
share of |x| the GELU takes away, as 32 degree-4 polynomials over a = |x| in
[0, 5.90], one an interval of width 3/16 centred on n 3/16 (n = 0..31).

    erf GELU:  q(a) = Phi(-a) = erfc(a / sqrt 2) / 2
    tanh GELU: q(a) = 1 / (1 + e^(2u)), u = sqrt(2/pi) (a + 0.044715 a^3)

and GELU(x) = x q(|x|) for x < 0, x (1 - q(|x|)) otherwise.  Each interval's
polynomial in r = a 16/3 - n (r in [-1/2, 1/2]) is the least-squares fit at
41 Chebyshev points, in double, rounded to float; the last interval's is 0
(there |x| q < 1e-7 for both).  Prints the C string lines to paste and, on
stderr, each function's largest error over prelude_math_check's bound on a
float emulation (no FMA: the kernels' FMAs only round less).

Usage: python3 prelude_qtables.py   (needs numpy)
"""
import math
import sys

import numpy as np

NI, DEG = 32, 4
INV_H = np.float32(16.0 / 3.0)            # the kernels' multiplier, in float
H = 1.0 / float(INV_H)                    # the width that multiplier implies
A_MAX = np.float32((NI - 1 + 0.49) * H)   # |x| is clamped here: n <= 31


def q_erf(a):
    return 0.5 * math.erfc(a / math.sqrt(2.0))


def q_tanh(a):
    v = 2.0 * 0.79788456080286536 * (a + 0.044715 * a ** 3)
    return 1.0 / (1.0 + math.exp(v)) if v < 700.0 else 0.0


def fit(f):
    c = np.zeros((NI, DEG + 1))
    m = 8 * (DEG + 1) + 1
    r = 0.5 * np.cos(np.pi * (np.arange(m) + 0.5) / m)
    for n in range(NI - 1):               # f is smooth through a = 0: fit both sides
        y = np.array([f((n + ri) * H) for ri in r])
        c[n] = np.linalg.lstsq(np.vander(r, DEG + 1, increasing=True), y, rcond=None)[0]
    return c.astype(np.float32)


def q_float(c, a):
    a = min(np.float32(a), A_MAX)
    t = np.float32(a * INV_H)
    n = int(np.rint(t))
    r = np.float32(t - np.float32(n))
    p = c[n, DEG]
    for k in range(DEG - 1, -1, -1):
        p = np.float32(p * r + c[n, k])
    return p


def worst(c, f, atol, rtol):
    w = 0.0
    for x in np.linspace(-12.0, 12.0, 240001):
        x = float(np.float32(x))
        q = q_float(c, abs(x))
        got = np.float32(x) * (q if x < 0 else np.float32(1.0 - q))
        want = x * f(-x) if x < 0 else x * (1.0 - f(x))
        w = max(w, abs(float(got) - want) / (atol + rtol * abs(want)))
    return w


def main():
    print('    "#define KF__Q_INV_H %.9ef   /* 16/3: 1 / the intervals\' width */\\n"' % INV_H)
    print('    "#define KF__Q_A_MAX %.9ef   /* |x| clamped here: the last interval */\\n"' % A_MAX)
    for name, f, atol, rtol in (("gelu", q_erf, 3e-7, 5e-7), ("gelu_tanh", q_tanh, 1e-7, 1e-6)):
        c = fit(f)
        print('    "static const float kf__q_%s[%d][%d] __attribute__((aligned(64))) = {\\n"' % (name, DEG + 1, NI))
        for k in range(DEG + 1):
            vals = ['%.9e' % v for v in c[:, k]]
            for i in range(0, NI, 4):
                head = '    {' if i == 0 else '     '
                tail = '},' if i + 4 >= NI else ','
                print('    "%s%s%s\\n"' % (head, ', '.join(vals[i:i + 4]), tail))
        print('    "};\\n"')
        print('%s: largest error %.3f of the bound (atol %g, rtol %g)' % (name, worst(c, f, atol, rtol), atol, rtol),
              file=sys.stderr)


if __name__ == '__main__':
    main()
