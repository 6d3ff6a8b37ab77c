#!/usr/bin/env python3
"""Prints the coefficients of cvm_m_expf_eval (vm/mathlib.h: cvm_m_expf_q).

Needs mpmath (Debian: python3-mpmath); nothing in the build runs this.

e^r = 1 + r + r^2 q(r) for |r| <= ln2/2 (a hair wider, for the rounding of
the reduction); q, of degree 8, interpolates (e^r - 1 - r) / r^2 at the
Chebyshev nodes of that interval (mpmath's chebyfit). Prints q's
coefficients, highest degree first, as C hex floats, and the largest
relative error of 1 + r + r^2 q(r), with q's coefficients rounded to f64,
against e^r on a fine grid (2^-49.6 when written).
"""
import mpmath as mp

mp.mp.dps = 50
DEGREE = 8


def q_exact(r):
    if abs(r) < mp.mpf(10) ** -12:
        return mp.mpf(1) / 2 + r / 6 + r * r / 24
    return (mp.exp(r) - 1 - r) / (r * r)


def main():
    a = mp.log(2) / 2 * (1 + mp.mpf(2) ** -20)
    poly = mp.chebyfit(q_exact, [-a, a], DEGREE + 1)
    coefs = [float(c) for c in poly]
    worst = mp.mpf(0)
    steps = 4000
    for i in range(steps + 1):
        r = -a + 2 * a * i / steps
        q = mp.mpf(0)
        for c in coefs:
            q = q * r + mp.mpf(c)
        worst = max(worst, abs((1 + r + r * r * q) / mp.exp(r) - 1))
    print("q:", ", ".join(c.hex() for c in coefs))
    print("largest relative error: 2^%.1f" % float(mp.log(worst, 2)))


if __name__ == "__main__":
    main()
