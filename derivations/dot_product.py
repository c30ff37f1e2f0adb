"""The dot product of two encodings depends only on their offset, and every PE(t) has norm sqrt(d/2).

Run ``python derivations/dot_product.py [--d N]``. Exit status 1 if a claim is not proved.
"""

from __future__ import annotations

import argparse
import sys

import sympy as sp

from pe_symbolic import sinusoidal, theorems
from pe_symbolic.symbols import k, omega, t


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--d", type=int, default=8, help="instantiate for this even d (default 8)")
    d = ap.parse_args(argv).d
    if d < 2 or d % 2:
        ap.error(f"--d={d} must be a positive even integer")

    print("1. For one pair, the dot product of the encodings at t and t + k:")
    p, q = sinusoidal.pair(t, omega), sinusoidal.pair(t + k, omega)
    f = (p.T * q)[0]
    sp.pprint(f, wrap_line=False)
    print("   The addition theorem for cos(a - b) collapses it to cos(omega k): no t is left,")
    print("   and cos is even, so the similarity of two positions depends on |k| only.")
    print(f"\n2. Summing over the d/2 pairs (d = {d}, base b): PE(t).PE(t+k) = sum_i cos(omega_i k)")
    sp.pprint(sp.Add(*[sp.cos(w * k) for w in sinusoidal.frequencies(d)]), wrap_line=False)
    print("   and at k = 0 every pair contributes sin^2 + cos^2 = 1: |PE(t)|^2 = d/2.\n")

    ok = True
    for dim in (None, d):
        proof = theorems.get("sinusoidal.dot").prove(dim)
        print(f"== sinusoidal.dot -- {'generic pair (every even d)' if dim is None else f'd = {dim}'} ==")
        print(proof.to_text(max_chars=160))
        print()
        ok &= proof.verdict == "proved"
    print("all proved" if ok else "NOT ALL PROVED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
