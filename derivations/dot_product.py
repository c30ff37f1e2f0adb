r"""
The dot product of two encodings depends only on their offset
=============================================================

How similar are the encodings of two positions? For the sinusoidal encoding the dot
product :math:`PE(t)\cdot PE(t+k)` has no :math:`t` in it: it is
:math:`\sum_i \cos(\omega_i k)`, a function of the offset :math:`k` alone, even in
:math:`k`, and at :math:`k = 0` every encoding has squared norm :math:`d/2`.

Run it yourself: ``python derivations/dot_product.py [--d N] [--plot]``. The exit status is
0 when every claim is proved, 1 otherwise, 2 for a bad option or a missing package.
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
# One pair
# --------
# For one pair, the dot product of the encodings at :math:`t` and :math:`t + k` is
# :math:`\sin\omega t\,\sin\omega(t+k) + \cos\omega t\,\cos\omega(t+k)`. The addition
# theorem for :math:`\cos(a - b)` collapses it to :math:`\cos\omega k`: no :math:`t` is left,
# and :math:`\cos` is even, so the similarity of two positions depends on :math:`|k|` only.
p, q = sinusoidal.pair(t, omega), sinusoidal.pair(t + k, omega)
show("p(t) . p(t + k)", (p.T * q)[0])

# %%
# All pairs
# ---------
# Summing over the :math:`d/2` pairs (base :math:`b` symbolic) gives
# :math:`PE(t)\cdot PE(t+k) = \sum_i \cos(\omega_i k)`; at :math:`k = 0` every pair contributes
# :math:`\sin^2 + \cos^2 = 1`, so :math:`|PE(t)|^2 = d/2`.
show(f"PE(t) . PE(t + k) for d = {d}", sp.Add(*[sp.cos(w * k) for w in sinusoidal.frequencies(d)]))

# %%
# The same curve from every position
# ----------------------------------
# The figure computes the dot product numerically from two different reference positions,
# :math:`t = 0` and :math:`t = 1000` (:math:`d = 64`): the two curves lie on top of each other
# and on the closed form.
fig = figure(figsize=(6.4, 3.2))
if fig is not None:
    ax = fig.subplots()
    offsets = np.arange(-100, 101)
    for t0, style in ((0, "-"), (1000, "--")):
        table = numeric.sinusoidal_table(t0 + offsets, 64)
        ax.plot(offsets, table @ numeric.sinusoidal_table([t0], 64)[0], style, lw=1.4,
                label=f"PE({t0}) . PE({t0} + k)")
    closed = np.cos(np.outer(offsets, numeric.frequencies(64))).sum(axis=1)
    ax.plot(offsets, closed, ":", color="k", lw=1, label=r"$\sum_i \cos(\omega_i k)$")
    ax.set_xlabel("offset k")
    ax.set_ylabel("dot product")
    ax.legend(fontsize=8)
    fig.tight_layout()

# %%
# The theorem
# -----------
# Proved for one pair with a symbolic frequency (every even :math:`d`) and instantiated for
# the requested :math:`d`; rendered as mathematics: :claim:`sinusoidal.dot`.
rep.prove("sinusoidal.dot")
rep.prove("sinusoidal.dot", d)

# %%
# Summary
# -------
rep.finish()
