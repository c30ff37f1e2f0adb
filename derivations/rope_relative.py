"""RoPE: attention scores depend on positions only through their difference.

Run ``python derivations/rope_relative.py [--d N]``. Exit status 1 if a claim is not proved.
"""

from __future__ import annotations

import sys

import sympy as sp

from _common import Report, even_d
from pe_symbolic.encodings import rope, sinusoidal
from pe_symbolic.encodings.symbols import m, n, theta, vector

IDS = ("rope.relative", "rope.efficient_form", "layout.permutation")


def main(argv: list[str] | None = None) -> int:
    d = even_d(argv, __doc__.splitlines()[0], default=4)

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

    rep = Report()
    for id_ in IDS:
        rep.prove(id_)
        rep.prove(id_, d)
    return rep.exit_code()


if __name__ == "__main__":
    sys.exit(main())
