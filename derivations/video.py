"""The video explainer "Positional embeddings in transformers EXPLAINED" (seed 001), checked.

Run ``python derivations/video.py [--d N]``. Exit status 1 if a claim is not proved.
"""

from __future__ import annotations

import sys

import sympy as sp

from _common import Report, even_d, heading, say, show
from pe_symbolic.encodings import sinusoidal
from pe_symbolic.theorems.chapters import video
from pe_symbolic.encodings.symbols import omega, t


def main(argv: list[str] | None = None) -> int:
    d = even_d(argv, __doc__.splitlines()[0])
    rep = Report()

    heading("Requirement 1: the same identifier whatever the length or the content")
    say("""The video asks that every position get the same identifier, whatever the sequence's
        length and whatever its tokens are. For the sinusoidal encoding this is visible in the
        formula: PE(t) is built from t, d and the base only. As a checked claim: its derivatives
        with respect to a length symbol L and a content symbol a are zero.""")
    show(f"PE(t) for d = {min(d, 6)}", sinusoidal.encoding(t, min(d, 6)).T)
    rep.prove("video.length_free")
    rep.prove("video.length_free", d)

    heading("Requirement 2: small values, however long the sequence")
    say("""Counting 1, 2, 3, ... violates it; sines and cosines are bounded by 1 at every position,
        however large: each entry's square is one minus its partner's square.""")
    rep.prove("kazemnejad.bounded")
    rep.prove("kazemnejad.bounded", d)

    heading("Resolution: fast pairs separate neighbours, slow pairs say roughly where")
    say("""Between neighbouring positions the pair of frequency omega moves by the chord
        |p(t+1) - p(t)| = 2|sin(omega/2)|, the same at every t. For 0 < omega < pi this grows with
        omega: the derivative of 4 sin^2(omega/2) is 2 sin(omega) > 0 there (and every frequency
        b^(-2i/d) is at most 1). So high-frequency pairs tell neighbours apart, and the
        low-frequency pairs barely move between them.""")
    ws = sinusoidal.frequencies(d, base=10000)
    show(f"step distances 2|sin(omega_i/2)| for d = {d}, b = 10000",
         sp.Matrix([[sp.N(2 * sp.Abs(sp.sin(w / 2)), 6) for w in ws]]))
    rep.prove("video.resolution")
    rep.prove("video.resolution", d)
    say(f"""What a slow pair gives instead is a coarse, monotone position: sin(omega t) rises and
        cos(omega t) falls strictly over a quarter period, 0 <= t <= pi/(2 omega), and two positions
        less than a period apart always get different pairs. For the slowest pair of d = {d}
        (b = 10000) the monotone range is 0 <= t <= {float(video.monotone_range_length(d)):.6g};
        for d = 512 it is 0 <= t <= {float(video.monotone_range_length(512)):.6g}.""")
    show("derivative of the slow pair's sine", sp.diff(sp.sin(omega * t), t))
    rep.prove("video.monotone_range")
    rep.prove("video.monotone_range", d)
    return rep.exit_code()


if __name__ == "__main__":
    sys.exit(main())
