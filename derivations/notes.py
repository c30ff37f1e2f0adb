"""Positional-embedding notes (seed 003): Shaw's relative positions, RoPE, learned embeddings.

Run ``python derivations/notes.py [--d N]``. Exit status 1 if a claim is not proved.
"""

from __future__ import annotations

import sys

import sympy as sp

from _common import Report, even_d, heading, say, show
from pe_symbolic.theorems.chapters import notes
from pe_symbolic.encodings.symbols import m


def main(argv: list[str] | None = None) -> int:
    d = even_d(argv, __doc__.splitlines()[0])
    rep = Report()

    heading("Shaw et al.: relative positions with clipping")
    say("""Relation-aware attention adds an embedding a_ij = w_clip(j-i, -K, K) to the key (and the
        value) of position j as seen from position i. It depends on i and j only through the
        clipped offset, so shifting both positions changes nothing and the same 2K + 1 embeddings
        serve every sequence length.""")
    show("clip(j - i, -3, 3) for i, j = 0..7 (rows i)",
         sp.Matrix(8, 8, lambda i, j: notes.clip(j - i, 3)))
    rep.prove("shaw.clipped_shift_invariant")

    heading("RoPE: the 2-D example")
    say("""The notes' example rotates the projected 2-D vector by m theta: f(x_m, m) = R(m theta) W x_m.
        The score of a query at m and a key at n then equals (W_q x_m)^T R((n - m) theta) (W_k x_n):
        only n - m is left. The rotation is multiplication by e^(i m theta) in complex form.""")
    rep.prove("rope.two_d_example")

    heading("RoPE in d dimensions and its efficient form")
    say("""The general R^d_{Theta,m} puts 2x2 rotations by m theta_i on slots (2i-1, 2i), with
        theta_i = 10000^(-2(i-1)/d) for i = 1..d/2 (1-based). That is the package's interleaved
        rope_matrix with its 0-based thetas, and the notes' elementwise form
        x * cos + (-x2, x1, -x4, x3, ...) * sin equals R x. The foundation theorems then give the
        relative property and the efficient form in both layouts.""")
    show("R^4_{Theta,m} (notes' pattern)", notes.notes_rope_matrix(m, 4))
    rep.prove("rope.theta_set")
    rep.prove("rope.theta_set", d)
    rep.prove("rope.relative")
    rep.prove("rope.relative", min(d, 4))
    rep.prove("rope.efficient_form", d)

    heading("Learned positional embeddings")
    say("""A learned table is a parameter matrix of shape (L, d): that much can be checked, and that
        it has no row for positions >= L. Nothing about its values can be proved: they are what
        training made them. What can be shown is that no translation property holds in general:
        here is a 4 x 2 table for which no matrix T maps each row to the next.""")
    show("the table E (rows are positions)", notes.LEARNED_TABLE)
    show("T E_t for the T fitted to the first two steps", sp.Matrix([[0, 1], [1, 1]]) * notes.LEARNED_TABLE.T)
    rep.prove("learned.no_translation")
    return rep.exit_code()


if __name__ == "__main__":
    sys.exit(main())
