"""The translation matrix T(k), derived as Denk does and then proved.

Run ``python derivations/translation_matrix.py [--d N]``. The script walks through the
derivation (Denk, "Linear Relationships in the Transformer's Positional Encoding"; seed 002),
printing each object SymPy builds, then the proofs of the theorems it establishes. It exits
with status 1 if any of them is not proved.
"""

from __future__ import annotations

import argparse
import sys

import sympy as sp

from pe_symbolic import sinusoidal, theorems
from pe_symbolic.symbols import k, omega, t

IDS = ("translation.derive", "translation.identity", "translation.independent", "translation.group")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--d", type=int, default=8, help="instantiate the theorems for this even d (default 8)")
    d = ap.parse_args(argv).d
    if d < 2 or d % 2:
        ap.error(f"--d={d} must be a positive even integer")

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

    ok = True
    for id_ in IDS:
        for dim in (None, d):
            proof = theorems.get(id_).prove(dim)
            where = "generic pair (every even d)" if dim is None else f"d = {dim}"
            print(f"== {id_} -- {where} ==")
            print(proof.to_text(max_chars=160))
            print()
            ok &= proof.verdict == "proved"
    print("all proved" if ok else "NOT ALL PROVED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
