r"""
The translation matrix T(k), derived and proved
===============================================

Denk ("Linear Relationships in the Transformer's Positional Encoding"; seed 002) asks for a
matrix :math:`T(k)`, free of the position :math:`t`, that moves every encoding by :math:`k`
positions: :math:`T(k)\,PE(t) = PE(t+k)`. This script builds the objects of that derivation
with SymPy, prints each of them, then proves the theorems it establishes.

Run it yourself: ``python derivations/translation_matrix.py [--d N] [--plot]``. The exit
status is 0 when every claim is proved, 1 otherwise, 2 for a bad option or a missing
package.
"""

# %%
# The tutorial helpers come from the package (:mod:`pe_symbolic.tutorial`). From a checkout,
# ``derivations/_common.py`` first puts that checkout's package on the path (or says in one
# line what to install); a downloaded copy of this script uses the installed package.
try:
    import _common  # noqa: F401
except ModuleNotFoundError:
    pass
from pe_symbolic.tutorial import Report, figure, parse_args, show

import numpy as np
import sympy as sp

from pe_symbolic import numeric
from pe_symbolic.encodings import sinusoidal
from pe_symbolic.encodings.symbols import k, omega, t

d = parse_args(default_d=8).d
rep = Report()

# %%
# One pair of the encoding
# ------------------------
# The encoding is a stack of pairs :math:`p(t) = (\sin\omega t, \cos\omega t)`, one per
# frequency :math:`\omega`. We look for a :math:`2\times 2` matrix :math:`M`, free of
# :math:`t`, with :math:`M\,p(t) = p(t+k)` for every :math:`t`.
p = sinusoidal.pair(t, omega)
u = sp.Matrix(2, 2, sp.symbols("u1 u2 v1 v2", real=True))
show("p(t)", p.T)
show("the equation M p(t) = p(t + k)", sp.Eq(u * p, sinusoidal.pair(t + k, omega), evaluate=False))

# %%
# The addition theorems expand the right-hand side. Matching the coefficients of
# :math:`\sin\omega t` and :math:`\cos\omega t` (equivalently, evaluating at
# :math:`\omega t = 0` and :math:`\omega t = \pi/2`) gives four linear equations; their
# solution is unique, and it is a rotation block.
show("p(t + k), expanded", sp.expand(sinusoidal.pair(t + k, omega), trig=True).T)
show("the unique solution M", sinusoidal.translation_block(k, omega))

# %%
# T(k) stacks one block per pair
# ------------------------------
# For the whole encoding, :math:`T(k)` is block-diagonal with one such block per frequency
# :math:`\omega_i = b^{-2i/d}` (shown for :math:`d = 4`, symbolic base :math:`b`; the proofs
# below use the requested ``--d``).
show("T(k) for d = 4", sinusoidal.translation_matrix(k, 4))

# %%
# What the matrix does
# --------------------
# Each pair runs around the unit circle as :math:`t` grows, and :math:`T(k)` turns every
# point of it by the same angle :math:`\omega k`, wherever it is: the figure applies the
# numeric :math:`T(3)` to the slow pair of :math:`PE(t)`, :math:`d = 4`, base 100
# (:math:`\omega = 0.1`), at every eighth position.
fig = figure(figsize=(4.2, 4.2))
if fig is not None:
    ax = fig.subplots()
    table = numeric.sinusoidal_table(np.arange(0, 64, 8), 4, base=100.0)
    moved = table @ numeric.translation_matrix(3, 4, base=100.0).T
    circle = np.linspace(0, 2 * np.pi, 200)
    ax.plot(np.sin(circle), np.cos(circle), color="0.85", lw=1)
    ax.plot(table[:, 2], table[:, 3], "o", ms=5, label="PE(t), t = 0, 8, ..., 56")
    ax.plot(moved[:, 2], moved[:, 3], "o", ms=5, mfc="none", label="T(3) PE(t)")
    for (x0, y0), (x1, y1) in zip(table[:, 2:], moved[:, 2:]):
        ax.annotate("", (x1, y1), (x0, y0), arrowprops=dict(arrowstyle="->", color="0.3", lw=0.8))
    ax.set_aspect("equal")
    ax.set_xlabel(r"$\sin\omega t$")
    ax.set_ylabel(r"$\cos\omega t$")
    ax.set_title(r"$T(k)$ turns every point by $\omega k$")
    ax.legend(loc="center", fontsize=8)
    fig.tight_layout()

# %%
# The theorems
# ------------
# Each claim is proved in its generic form (one pair with a symbolic frequency, which covers
# every even :math:`d`) and instantiated for the requested :math:`d`. The same proofs,
# rendered as mathematics: :claim:`translation.derive`, :claim:`translation.identity`,
# :claim:`translation.independent`, :claim:`translation.group`.
for id_ in ("translation.derive", "translation.identity", "translation.independent", "translation.group"):
    rep.prove(id_)
    rep.prove(id_, d)

# %%
# Summary
# -------
rep.finish()
