"""Kernes, "Master Positional Encoding: Part I" (seed 000): the five guesses, each claim checked.

Run ``python derivations/kernes.py [--d N]``. Exit status 1 if a claim is not proved.
"""

from __future__ import annotations

import sys

import sympy as sp

from _common import Report, even_d, heading, say, show
from pe_symbolic.encodings import sinusoidal
from pe_symbolic.theorems.chapters import certificates, kernes
from pe_symbolic.encodings.symbols import k, t


def main(argv: list[str] | None = None) -> int:
    d = even_d(argv, __doc__.splitlines()[0])
    rep = Report()

    heading("Guess 1: just count")
    say("""Kernes starts from PE(n) = n. For a sequence of length 8 the encoding is the vector
        below. Its defect is scale: the values grow with the sequence, and no bound holds for all
        lengths. As a checked claim: the values rise by 1 a step, the largest value of a length-L
        sequence is L - 1, and 1/PE(L) tends to 0.""")
    show("PE for length 8", sp.Matrix([list(range(8))]))
    rep.prove("kernes.counting_unbounded")

    heading("Guess 2: normalise the count")
    say("""Dividing by the length, PE(n; L) = n/L, keeps the values in [0, 1] but gives one value
        different meanings: 0.8 is position 4 of a length-5 sequence and position 16 of a
        length-20 one. A fixed position's value changes with L.""")
    show("PE for length 8", sp.Matrix([[sp.Rational(q, 8) for q in range(8)]]))
    rep.prove("kernes.normalized_ambiguous")

    heading("Guess 3: binary vectors")
    say("""Each position becomes its vector of bits, most significant first: 35 is
        [0, 0, 1, 0, 0, 0, 1, 1] in 8 bits. dim bits represent 2^dim positions (0 .. 2^dim - 1);
        position 2^dim wraps back to the bits of 0. The map 2x - 1 rescales {0, 1} to {-1, 1}.""")
    show("bit vectors of positions 0..7 (3 bits), rows are positions",
         sp.Matrix([list(kernes.binary_vector(q, 3)) for q in range(8)]))
    show("rescaled by 2x - 1", sp.Matrix([[2 * x - 1 for x in kernes.binary_vector(q, 3)] for q in range(8)]))
    rep.prove("kernes.binary")

    heading("Guess 4: sine dials")
    say("""The dials M_ij = sin(2 pi i / 2^j) interpolate the bits smoothly, but they are periodic:
        with dials j = 1..J every position i + 2^J repeats position i, so the curve closes and
        distinct positions collide. (The printed formula's first dial is sin(pi i) = 0 at every
        integer; the figure uses the frequencies pi/2, pi/4, pi/8, with period 16.)""")
    figure = [sp.pi / 2, sp.pi / 4, sp.pi / 8]
    show("figure's dials at positions 0, 1, 15, 16 (rows)",
         sp.Matrix([[sp.N(sp.sin(w * x), 4) for w in figure] for x in (0, 1, 15, 16)]))
    rep.prove("kernes.dials_collide")
    say(f"""Kernes' fix slows the dials down: frequencies omega_min^(j/d) with omega_min = 1/10000,
        which fall strictly with j from 1 to 1/10000 (the article calls them 'monotonically
        increasing'; what increases is the period). The slowest dial, j = d - 1, then rises
        strictly over a quarter period, so positions 0 <= x <= pi/(2 omega) never collide: for
        d = {d} that is up to x = {float(sp.pi / (2 * kernes.slowed_frequency(d - 1, d, 10000))):.6g}.""")
    rep.prove("kernes.slowed_dials")
    rep.prove("kernes.slowed_dials", d)
    rep.prove("video.monotone_range")

    heading("Final guess: sin/cos pairs and the translation T(dx)")
    say("""Replacing every sine by a (cos, sin) pair makes translation linear: Kernes' row vector is
        the package's encoding with order 'cos_sin', and T(dx) is block-diagonal with the rotation
        by omega_i dx in each block. Kernes writes PE(x + dx) = PE(x) T(dx) for row vectors; that is
        the transpose of T(dx) PE(x) = PE(x + dx) for columns. The foundation theorems cover
        both orders and both layouts.""")
    show("Kernes' PE(t) for d = 4 (b = 10000), as a row",
         sinusoidal.encoding(t, 4, base=10000, order="cos_sin").T)
    show("T(k) for d = 4", sinusoidal.translation_matrix(k, 4, base=10000, order="cos_sin"))
    rep.prove("translation.identity")
    rep.prove("translation.identity", min(d, 8))
    rep.prove("translation.independent")

    heading("Bonus: the dot product with a fixed position")
    say("""The similarity f(k) = PE(t).PE(t+k) = sum_i cos(omega_i k) depends on the offset only and
        is even (sinusoidal.dot). It is largest at k = 0: f(0) - f(k) = 2 sum_i sin^2(omega_i k/2)
        is a sum of squares, and for integer k != 0 the first pair (omega = 1) alone makes it
        positive. Checked in the figure's setting, d = 128, too.""")
    rep.prove("sinusoidal.dot")
    rep.prove("kernes.bonus_dot")
    rep.prove("kernes.bonus_dot", d)
    rep.prove("kernes.bonus_dot", 128)
    say("""Kernes also says the dot product 'steadily decreases as we get further away'. That is
        not exactly true, and no symbolic claim is made: the certificate below measures, over the
        figure's range, where the decrease stops being strict. It is expected to fail the strict
        reading.""")
    rep.certificate(certificates.dot_decay(128, 256, 128), expect_holds=False)
    return rep.exit_code()


if __name__ == "__main__":
    sys.exit(main())
