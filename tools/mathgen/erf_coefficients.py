#!/usr/bin/env python3
"""Prints the coefficient tables of cvm_m_erff_inline (vm/mathlib.h).

Needs mpmath (Debian: python3-mpmath); nothing in the build runs this.

S: the odd Maclaurin series of erf, 2/sqrt(pi) (-1)^n / (n! (2n + 1)) for
n = 13 down to 0 (Horner order, in x^2).
T: for each quarter [c - 1/8, c + 1/8] of [1/2, 4], c = 5/8 + i/4, the
Taylor coefficients erf^(k)(c) / k! for k = 0..14, with
erf^(k)(x) = 2/sqrt(pi) (-1)^(k-1) H_(k-1)(x) e^(-x^2) (H: the physicists'
Hermite polynomials), and the largest truncation term relative to erf(c).
"""
import mpmath as mp

mp.mp.dps = 60
DEGREE = 14


def taylor_row(c):
    row = [mp.erf(c)]
    for k in range(1, DEGREE + 2):
        row.append(2 / mp.sqrt(mp.pi) * (-1) ** (k - 1) * mp.hermite(k - 1, c)
                   * mp.exp(-c * c) / mp.factorial(k))
    return row


def main():
    small = [2 / mp.sqrt(mp.pi) * (-1) ** n / (mp.factorial(n) * (2 * n + 1))
             for n in range(13, -1, -1)]
    print("S:", ", ".join(float(v).hex() for v in small))
    worst = mp.mpf(0)
    for i in range(14):
        c = mp.mpf(5) / 8 + mp.mpf(i) / 4
        row = taylor_row(c)
        worst = max(worst, abs(row[DEGREE + 1]) * mp.mpf(1) / 8 ** (DEGREE + 1) / row[0])
        print("T[%d]:" % i, ", ".join(float(v).hex() for v in row[:DEGREE + 1]))
    print("largest truncation term, relative: 2^%.1f" % float(mp.log(worst, 2)))


if __name__ == "__main__":
    main()
