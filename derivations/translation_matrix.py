"""The translation matrix T(k), derived as Denk does and then proved.

Run ``python derivations/translation_matrix.py [--d N]``. The script walks through the
derivation (Denk, "Linear Relationships in the Transformer's Positional Encoding"; seed 002),
printing each object SymPy builds, then the proofs of the theorems it establishes. It exits
with status 1 if any of them is not proved.
"""

from __future__ import annotations

import sys

import sympy as sp

from _common import Report, even_d
from pe_symbolic.encodings import sinusoidal
from pe_symbolic.encodings.symbols import k, omega, t

IDS = ("translation.derive", "translation.identity", "translation.independent", "translation.group")


def main(argv: list[str] | None = None) -> int:
    d = even_d(argv, __doc__.splitlines()[0], default=8)

    print("1. One pair of the encoding at position t, with frequency omega:")
    p = sinusoidal.pair(t, omega)
    sp.pprint(p.T, wrap_line=False)
    print("\n2. We look for a 2x2 matrix M, free of t, with M p(t) = p(t + k) for every t.")
    u = sp.Matrix(2, 2, sp.symbols("u1 u2 v1 v2", real=True))
    sp.pprint(sp.Eq(u * p, sinusoidal.pair(t + k, omega), evaluate=False), wrap_line=False)
    print("\n3. The addition theorems expand the right-hand side:")
    sp.pprint(sp.expand(sinusoidal.pair(t + k, omega), trig=True).T, wrap_line=False)
    print("   Matching the coefficients of sin(omega t) and cos(omega t) (equivalently,")
    print("   evaluating at omega t = 0 and omega t = pi/2) gives four linear equations;")
    print("   their solution is unique, and it is a rotation block:")
    sp.pprint(sinusoidal.translation_block(k, omega), wrap_line=False)
    print(f"\n4. T(k) stacks one such block per pair; for d = {d} (base b symbolic):")
    sp.pprint(sinusoidal.translation_matrix(k, 4) if d > 4 else sinusoidal.translation_matrix(k, d), wrap_line=False)
    print("   (shown for d = 4; the proofs below use the requested d)\n")

    rep = Report()
    for id_ in IDS:
        rep.prove(id_)
        rep.prove(id_, d)
    return rep.exit_code()


if __name__ == "__main__":
    sys.exit(main())
