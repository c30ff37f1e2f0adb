r"""
The video "Positional embeddings in transformers EXPLAINED", checked
====================================================================

The video explainer (seed 001) states what a positional encoding must do -- the same
identifier for a position whatever the sequence, small values however long the sequence --
and how the sinusoidal encoding resolves the tension between telling neighbours apart and
saying roughly where a token is. Each statement is checked here.

Run it yourself: ``python derivations/video.py [--d N] [--plot]``. The exit status is 0 when every
claim is proved, 1 otherwise, 2 for a bad option or a missing package.
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
from pe_symbolic.encodings.symbols import omega, t
from pe_symbolic.theorems.chapters import video

d = parse_args(default_d=8).d
rep = Report()

# %%
# Requirement 1: the same identifier whatever the length or the content
# ---------------------------------------------------------------------
# The video asks that every position get the same identifier, whatever the sequence's length
# and whatever its tokens are. For the sinusoidal encoding this is visible in the formula:
# :math:`PE(t)` is built from :math:`t`, :math:`d` and the base only. As a checked claim: its
# derivatives with respect to a length symbol :math:`L` and a content symbol :math:`a` are
# zero (:claim:`video.length_free`).
heading("Requirement 1: the same identifier whatever the length or the content")
show(f"PE(t) for d = {min(d, 6)}", sinusoidal.encoding(t, min(d, 6)).T)
rep.prove("video.length_free")
rep.prove("video.length_free", d)

# %%
# Requirement 2: small values, however long the sequence
# ------------------------------------------------------
# Counting 1, 2, 3, ... violates it; sines and cosines are bounded by 1 at every position,
# however large: each entry's square is one minus its partner's square
# (:claim:`kazemnejad.bounded`).
heading("Requirement 2: small values, however long the sequence")
rep.prove("kazemnejad.bounded")
rep.prove("kazemnejad.bounded", d)

# %%
# Resolution: fast pairs separate neighbours, slow pairs say roughly where
# ------------------------------------------------------------------------
# Between neighbouring positions the pair of frequency :math:`\omega` moves by the chord
# :math:`|p(t+1) - p(t)| = 2|\sin(\omega/2)|`, the same at every :math:`t`. For
# :math:`0 < \omega < \pi` this grows with :math:`\omega`: the derivative of
# :math:`4\sin^2(\omega/2)` is :math:`2\sin\omega > 0` there (and every frequency
# :math:`b^{-2i/d}` is at most 1). So high-frequency pairs tell neighbours apart, and the
# low-frequency pairs barely move between them (:claim:`video.resolution`).
heading("Resolution: fast pairs separate neighbours, slow pairs say roughly where")
ws = sinusoidal.frequencies(d, base=10000)
show(f"step distances 2|sin(omega_i/2)| for d = {d}, b = 10000",
     sp.Matrix([[sp.N(2 * sp.Abs(sp.sin(w / 2)), 6) for w in ws]]))
rep.prove("video.resolution")
rep.prove("video.resolution", d)

# %%
# What a slow pair gives instead is a coarse, monotone position: :math:`\sin\omega t` rises
# and :math:`\cos\omega t` falls strictly over a quarter period,
# :math:`0 \le t \le \pi/(2\omega)`, and two positions less than a period apart always get
# different pairs (:claim:`video.monotone_range`).
say(f"""For the slowest pair of d = {d} (b = 10000) the monotone range is
    0 <= t <= {float(video.monotone_range_length(d)):.6g}; for d = 512 it is
    0 <= t <= {float(video.monotone_range_length(512)):.6g}.""")
show("derivative of the slow pair's sine", sp.diff(sp.sin(omega * t), t))
rep.prove("video.monotone_range")
rep.prove("video.monotone_range", d)

# %%
# The figure draws :math:`\sin\omega_i t` of three pairs of :math:`d = 16`: the fastest one
# separates neighbours but repeats every :math:`2\pi` positions, the slowest one rises
# monotonically over the first :math:`\pi/(2\omega) \approx 157` positions.
fig = figure(figsize=(6.4, 3.2))
if fig is not None:
    ax = fig.subplots()
    positions = np.arange(0, 201)
    table = numeric.sinusoidal_table(positions, 16)  # interleaved: sin of pair i in column 2i
    for pair, lw in ((0, 0.7), (2, 1.2), (4, 2.0)):
        ax.plot(positions, table[:, 2 * pair], lw=lw, label=f"pair {pair}: ω = {numeric.frequencies(16)[pair]:g}")
    ax.set_xlabel("position t")
    ax.set_ylabel("sin(ω t)")
    ax.legend(fontsize=8, loc="lower left")
    fig.tight_layout()

# %%
# Summary
# -------
rep.finish()
