"""RoPE: attention scores depend on positions only through their difference.

Run ``python derivations/rope_relative.py [--d N]``. Exit status 1 if a claim is not proved.
"""

from __future__ import annotations

import argparse
import sys

import sympy as sp

from pe_symbolic import rope, sinusoidal, theorems
from pe_symbolic.symbols import m, n, theta, vector

IDS = ("rope.relative", "rope.efficient_form", "layout.permutation")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--d", type=int, default=4, help="instantiate for this even d (default 4)")
    d = ap.parse_args(argv).d
    if d < 2 or d % 2:
        ap.error(f"--d={d} must be a positive even integer")

    print("1. RoPE rotates each pair of a query at position m by m*theta_i (RoFormer, eq. 13):")
    sp.pprint(rope.rope_block(m, theta), wrap_line=False)
    print("\n2. The score of a rotated query and key, for one pair:")
    q, kv = vector("q", 2), vector("k", 2)
    score = ((rope.rope_block(m, theta) * q).T * (rope.rope_block(n, theta) * kv))[0]
    sp.pprint(score, wrap_line=False)
    print("   Since rot2(a)^T rot2(b) = rot2(b - a), it equals <q, R(n - m) k>:")
    sp.pprint(sp.expand((q.T * rope.rope_block(n - m, theta) * kv)[0]), wrap_line=False)
    print("\n3. Real code applies R(m) elementwise, x*cos + rotate(x)*sin, in two layouts;")
    print("   the permutation between them (interleaved -> split) for d = 4 is")
    sp.pprint(sinusoidal.layout_permutation(4), wrap_line=False)
    print()

    ok = True
    for id_ in IDS:
        for dim in (None, d):
            proof = theorems.get(id_).prove(dim)
            print(f"== {id_} -- {'generic pair (every even d)' if dim is None else f'd = {dim}'} ==")
            print(proof.to_text(max_chars=160))
            print()
            ok &= proof.verdict == "proved"
    print("all proved" if ok else "NOT ALL PROVED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
