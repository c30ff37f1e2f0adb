r"""
Kernes, "Master Positional Encoding: Part I": five guesses, each claim checked
==============================================================================

Kernes (seed 000) reaches the sinusoidal encoding in five guesses, each fixing the defect
of the one before. This script follows the article guess by guess and checks each of its
claims: by a proof where the claim is an identity, by a numeric certificate where it is
about a range of numbers -- and one of the article's claims ("the dot product steadily
decreases") the numbers refute, as the certificate at the end shows.

Run it yourself: ``python derivations/kernes.py [--d N] [--plot]``. The exit status is 0
when every result is the expected one (claims proved; the refuted article claim refuted), 1
otherwise, 2 for a bad option or a missing package.
"""

# %%
# The tutorial helpers come from the package (:mod:`pe_symbolic.tutorial`). From a checkout,
# ``derivations/_common.py`` first puts that checkout's package on the path (or says in one
# line what to install); a downloaded copy of this script uses the installed package.
try:
    import _common  # noqa: F401
except ModuleNotFoundError:
    pass
from pe_symbolic.tutorial import Report, figure, heading, parse_args, say, show

import numpy as np
import sympy as sp

from pe_symbolic import numeric
from pe_symbolic.encodings import sinusoidal
from pe_symbolic.encodings.symbols import k, t
from pe_symbolic.theorems.chapters import certificates, kernes

d = parse_args(default_d=8).d
rep = Report()

# %%
# Guess 1: just count
# -------------------
# Kernes starts from :math:`PE(n) = n`. Its defect is scale: the values grow with the
# sequence, and no bound holds for all lengths. As a checked claim: the values rise by 1 a
# step, the largest value of a length-:math:`L` sequence is :math:`L - 1`, and
# :math:`1/PE(L)` tends to 0 (:claim:`kernes.counting_unbounded`).
heading("Guess 1: just count")
show("PE for length 8", sp.Matrix([list(range(8))]))
rep.prove("kernes.counting_unbounded")

# %%
# Guess 2: normalise the count
# ----------------------------
# Dividing by the length, :math:`PE(n; L) = n/L`, keeps the values in :math:`[0, 1]` but gives
# one value different meanings: 0.8 is position 4 of a length-5 sequence and position 16 of a
# length-20 one. A fixed position's value changes with :math:`L`
# (:claim:`kernes.normalized_ambiguous`).
heading("Guess 2: normalise the count")
show("PE for length 8", sp.Matrix([[sp.Rational(q, 8) for q in range(8)]]))
rep.prove("kernes.normalized_ambiguous")

# %%
# Guess 3: binary vectors
# -----------------------
# Each position becomes its vector of bits, most significant first: 35 is
# ``[0, 0, 1, 0, 0, 0, 1, 1]`` in 8 bits. ``dim`` bits represent :math:`2^\text{dim}`
# positions; position :math:`2^\text{dim}` wraps back to the bits of 0. The map
# :math:`2x - 1` rescales :math:`\{0, 1\}` to :math:`\{-1, 1\}` (:claim:`kernes.binary`).
heading("Guess 3: binary vectors")
show("bit vectors of positions 0..7 (3 bits), rows are positions",
     sp.Matrix([list(kernes.binary_vector(q, 3)) for q in range(8)]))
show("rescaled by 2x - 1", sp.Matrix([[2 * x - 1 for x in kernes.binary_vector(q, 3)] for q in range(8)]))
rep.prove("kernes.binary")

# %%
# Guess 4: sine dials
# -------------------
# The dials :math:`M_{ij} = \sin(2\pi i / 2^j)` interpolate the bits smoothly, but they are
# periodic: with dials :math:`j = 1..J` every position :math:`i + 2^J` repeats position
# :math:`i`, so the curve closes and distinct positions collide
# (:claim:`kernes.dials_collide`). The printed formula's first dial is :math:`\sin(\pi i) = 0`
# at every integer; the figure uses the frequencies :math:`\pi/2, \pi/4, \pi/8`, with period 16.
heading("Guess 4: sine dials")
figure_dials = [sp.pi / 2, sp.pi / 4, sp.pi / 8]
show("the figure's dials at positions 0, 1, 15, 16 (rows)",
     sp.Matrix([[sp.N(sp.sin(w * x), 4) for w in figure_dials] for x in (0, 1, 15, 16)]))
rep.prove("kernes.dials_collide")

# %%
# Kernes' fix slows the dials down: frequencies :math:`\omega_\min^{j/d}` with
# :math:`\omega_\min = 1/10000`, which fall strictly with :math:`j` from 1 to 1/10000 (the
# article calls them "monotonically increasing"; what increases is the period). The slowest
# dial, :math:`j = d - 1`, then rises strictly over a quarter period, so positions
# :math:`0 \le x \le \pi/(2\omega)` never collide (:claim:`kernes.slowed_dials`,
# :claim:`video.monotone_range`).
slowest = kernes.slowed_frequency(d - 1, d, 10000)
say(f"For d = {d} the slowest dial rises strictly up to x = {float(sp.pi / (2 * slowest)):.6g}.")
rep.prove("kernes.slowed_dials")
rep.prove("kernes.slowed_dials", d)
rep.prove("video.monotone_range")

# %%
# Final guess: sin/cos pairs and the translation T(dx)
# ----------------------------------------------------
# Replacing every sine by a :math:`(\cos, \sin)` pair makes translation linear: Kernes' row
# vector is the package's encoding with ``order="cos_sin"``, and :math:`T(\Delta x)` is
# block-diagonal with the rotation by :math:`\omega_i \Delta x` in each block. Kernes writes
# :math:`PE(x + \Delta x) = PE(x)\,T(\Delta x)` for row vectors; that is the transpose of
# :math:`T(k)\,PE(t) = PE(t+k)` for columns. The foundation theorems cover both orders and
# both layouts (:claim:`translation.identity`, :claim:`translation.independent`).
heading("Final guess: sin/cos pairs and the translation T(dx)")
show("Kernes' PE(t) for d = 4 (b = 10000), as a row", sinusoidal.encoding(t, 4, base=10000, order="cos_sin").T)
show("T(k) for d = 4", sinusoidal.translation_matrix(k, 4, base=10000, order="cos_sin"))
rep.prove("translation.identity")
rep.prove("translation.identity", min(d, 8))
rep.prove("translation.independent")

# %%
# Bonus: the dot product with a fixed position
# --------------------------------------------
# The similarity :math:`f(k) = PE(t)\cdot PE(t+k) = \sum_i \cos(\omega_i k)` depends on the
# offset only and is even (:claim:`sinusoidal.dot`). It is largest at :math:`k = 0`:
# :math:`f(0) - f(k) = 2 \sum_i \sin^2(\omega_i k/2)` is a sum of squares, and for integer
# :math:`k \ne 0` the first pair (:math:`\omega = 1`) alone makes it positive
# (:claim:`kernes.bonus_dot`). Checked in the figure's setting, :math:`d = 128`, too.
heading("Bonus: the dot product with a fixed position")
rep.prove("sinusoidal.dot")
rep.prove("kernes.bonus_dot")
rep.prove("kernes.bonus_dot", d)
rep.prove("kernes.bonus_dot", 128)

# %%
# "Steadily decreases": refuted by the numbers
# --------------------------------------------
# Kernes also says the dot product "steadily decreases as we get further away". That is not
# exactly true, and no symbolic claim is made: the certificate below measures, over the
# figure's range (:math:`d = 128`, offsets :math:`-128..127` around position 128), where the
# decrease stops being strict. It is *expected* to fail the strict reading -- that failure is
# the finding, and the summary counts it as an article claim refuted, as expected.
heading('"Steadily decreases": refuted by the numbers')
rep.certificate(certificates.dot_decay(128, 256, 128), expect_holds=False)

# %%
# The figure zooms into the first offsets: :math:`f(k)` falls until :math:`k = 11`, then
# rises at :math:`k = 12`.
fig = figure(figsize=(6.4, 3.2))
if fig is not None:
    ax = fig.subplots()
    offsets = np.arange(0, 41)
    f = numeric.sinusoidal_table(128 + offsets, 128) @ numeric.sinusoidal_table([128], 128)[0]
    ax.plot(offsets, f, "o-", ms=3, lw=1)
    rise = int(np.flatnonzero(np.diff(f) > 0)[0])
    ax.plot(offsets[rise:rise + 2], f[rise:rise + 2], "o-", color="C3", lw=2,
            label=f"first rise: f({rise}) < f({rise + 1})")
    ax.set_xlabel("offset k")
    ax.set_ylabel("f(k) = PE(128) . PE(128 + k)")
    ax.set_title("d = 128: not steadily decreasing")
    ax.legend(fontsize=8)
    fig.tight_layout()

# %%
# Summary
# -------
rep.finish()
