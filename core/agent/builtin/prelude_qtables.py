#!/usr/bin/env python3
"""Writes the C prelude's GELU tables (builtin_prelude.c, C_TAIL): q(a), the
share of |x| the GELU takes away, as piecewise polynomials over a = |x|, one
an interval of width h, in two layouts:

    AVX-512: 32 intervals of width 3/16 centred on n h, over [0, 5.90],
             degree 4, the last interval's polynomial 0 (|x| is clamped
             into it); vpermt2ps looks up 32 entries;
    AVX2:     4 intervals of width 1.4, [n h, (n + 1) h), over [0, 5.6),
             degree 7, q = 0 from 5.6 on (a mask); vpermilps looks up 4
             entries, each row written twice (both 128-bit lanes);

each under the same names (KF__Q_INV_H, KF__Q_A_MAX, kf__q_gelu,
kf__q_gelu_tanh) in its own branch of the prelude.

    erf GELU:  q(a) = Phi(-a) = erfc(a / sqrt 2) / 2
    tanh GELU: q(a) = 1 / (1 + e^(2u)), u = sqrt(2/pi) (a + 0.044715 a^3)

and GELU(x) = x q(|x|) for x < 0, x (1 - q(|x|)) otherwise.  Each interval's
polynomial in r in [-1/2, 1/2] (a = (n + r) h centred, (n + 1/2 + r) h not)
is the least-squares fit at Chebyshev points, in double, rounded to float:
unweighted for AVX-512's tables, weighted by the inverse of
prelude_math_check's bound on x q at that a for AVX2's (fewer intervals: the
error is spent where the bound is loose).  Where q is 0 (AVX-512's last
interval, AVX2's a >= 5.6) |x| q < 1e-7 for both; x = -inf gives NaN as the
formulas do.  Prints the C string lines to paste and, on stderr, each table's
largest error over prelude_math_check's bound on a float emulation (no FMA:
the kernels' FMAs only round less).  The fits' terms that are zero by
symmetry (AVX-512's interval 0's even ones, about 1e-15) vary with numpy's
LAPACK; the AVX-512 tables in the prelude came from an earlier numpy.

Usage: python3 prelude_qtables.py   (needs numpy)
"""
import math
import sys

import numpy as np


class Layout:
    def __init__(self, isa, ni, deg, inv_h, note, names, centred, lanes):
        self.isa, self.ni, self.deg, self.note, self.names = isa, ni, deg, note, names
        self.centred, self.lanes = centred, lanes       # lanes: the row's copies (vpermilps: 2)
        self.inv_h = np.float32(inv_h)                  # the kernels' multiplier, in float
        self.h = 1.0 / float(self.inv_h)                # the width that multiplier implies
        if centred:   # |x| is clamped here: n <= ni - 1, the last interval's q is 0
            self.a_max = np.float32((ni - 1 + 0.49) * self.h)
        else:         # q is 0 from here on
            self.a_max = np.float32(ni * self.h)


LAYOUTS = (Layout("AVX-512", 32, 4, 16.0 / 3.0, "16/3", ("gelu", "gelu_tanh"), True, 1),
           Layout("AVX2", 4, 7, 4.0 / 5.6, "4/5.6", ("gelu", "gelu_tanh"), False, 2))


def q_erf(a):
    return 0.5 * math.erfc(a / math.sqrt(2.0))


def q_tanh(a):
    v = 2.0 * 0.79788456080286536 * (a + 0.044715 * a ** 3)
    return 1.0 / (1.0 + math.exp(v)) if v < 700.0 else 0.0


def fit(L, f, atol, rtol):
    c = np.zeros((L.ni, L.deg + 1))
    m = 8 * (L.deg + 1) + 1
    r = 0.5 * np.cos(np.pi * (np.arange(m) + 0.5) / m)
    v = np.vander(r, L.deg + 1, increasing=True)
    for n in range(L.ni - 1 if L.centred else L.ni):
        a = (n + r) * L.h if L.centred else (n + 0.5 + r) * L.h
        y = np.array([f(ai) for ai in a])   # f is smooth through a = 0 (f(-a) = 1 - f(a))
        w = np.ones(m)
        if not L.centred:   # the inverse of the bound on x q (x (1 - q) for x > 0)
            w = 1.0 / (atol / np.maximum(a, 0.3) + rtol * np.minimum(y, 1.0 - y))
        c[n] = np.linalg.lstsq(v * w[:, None], y * w, rcond=None)[0]
    return c.astype(np.float32)


def q_float(L, c, a):
    a = min(np.float32(a), L.a_max)
    if L.centred:
        t = np.float32(a * L.inv_h)
    else:
        if a >= L.a_max:
            return np.float32(0.0)
        t = np.float32(np.float32(a * L.inv_h) - np.float32(0.5))
    n = int(np.rint(t))
    r = np.float32(t - np.float32(n))
    p = c[n, L.deg]
    for k in range(L.deg - 1, -1, -1):
        p = np.float32(p * r + c[n, k])
    return p


def worst(L, c, f, atol, rtol):
    w = 0.0
    for x in np.linspace(-12.0, 12.0, 240001):
        x = float(np.float32(x))
        q = q_float(L, c, abs(x))
        got = np.float32(x) * (q if x < 0 else np.float32(1.0 - q))
        want = x * f(-x) if x < 0 else x * (1.0 - f(x))
        w = max(w, abs(float(got) - want) / (atol + rtol * abs(want)))
    return w


def main():
    for L in LAYOUTS:
        print('/* %s */' % L.isa)
        print('    "#define KF__Q_INV_H %.9ef   /* %s: 1 / the intervals\' width */\\n"' % (L.inv_h, L.note))
        print('    "#define KF__Q_A_MAX %.9ef   /* %s */\\n"'
              % (L.a_max, "|x| clamped here: the last interval" if L.centred else "q is 0 from here on"))
        print('    "#define KF__Q_NI %d   /* intervals */\\n"' % L.ni)
        print('    "#define KF__Q_DEG %d   /* the polynomials\' degree */\\n"' % L.deg)
        for name, f, atol, rtol in (("gelu", q_erf, 3e-7, 5e-7), ("gelu_tanh", q_tanh, 1e-7, 1e-6)):
            if name not in L.names:
                continue
            c = fit(L, f, atol, rtol)
            print('    "static const float kf__q_%s[%d][%d] __attribute__((aligned(%d))) = {\\n"'
                  % (name, L.deg + 1, L.ni * L.lanes, 4 * min(L.ni * L.lanes, 16)))
            for k in range(L.deg + 1):
                vals = ['%.9e' % v for v in c[:, k]] * L.lanes
                for i in range(0, len(vals), 4):
                    head = '    {' if i == 0 else '     '
                    tail = '},' if i + 4 >= len(vals) else ','
                    print('    "%s%s%s\\n"' % (head, ', '.join(vals[i:i + 4]), tail))
            print('    "};\\n"')
            print('%s %s: largest error %.3f of the bound (atol %g, rtol %g)'
                  % (L.isa, name, worst(L, c, f, atol, rtol), atol, rtol), file=sys.stderr)


if __name__ == '__main__':
    main()
