"""The dot product of two encodings depends only on their offset, and every PE(t) has norm sqrt(d/2).

Run ``python derivations/dot_product.py [--d N]``. Exit status 1 if a claim is not proved.
"""

from __future__ import annotations

import sys

import sympy as sp

from _common import Report, even_d
from pe_symbolic.encodings import sinusoidal
from pe_symbolic.encodings.symbols import k, omega, t


def main(argv: list[str] | None = None) -> int:
    d = even_d(argv, __doc__.splitlines()[0], default=8)

    print("1. For one pair, the dot product of the encodings at t and t + k:")
    p, q = sinusoidal.pair(t, omega), sinusoidal.pair(t + k, omega)
    f = (p.T * q)[0]
    sp.pprint(f, wrap_line=False)
    print("   The addition theorem for cos(a - b) collapses it to cos(omega k): no t is left,")
    print("   and cos is even, so the similarity of two positions depends on |k| only.")
    print(f"\n2. Summing over the d/2 pairs (d = {d}, base b): PE(t).PE(t+k) = sum_i cos(omega_i k)")
    sp.pprint(sp.Add(*[sp.cos(w * k) for w in sinusoidal.frequencies(d)]), wrap_line=False)
    print("   and at k = 0 every pair contributes sin^2 + cos^2 = 1: |PE(t)|^2 = d/2.\n")

    rep = Report()
    for id_ in ("sinusoidal.dot",):
        rep.prove(id_)
        rep.prove(id_, d)
    return rep.exit_code()


if __name__ == "__main__":
    sys.exit(main())
