r"""
What the literature claims, checked
===================================

Papers on RoPE make claims a symbolic engine can settle: a lower bound on the base (Men et
al. 2024), a critical dimension (Liu et al. 2023), the near-NoPE behaviour of the lowest
frequencies (Barbero et al. 2024), and the relative property of learned generators
(ComRoPE vs LieRE). Each is a registered claim, proved, or refuted with the point where it
fails.

Run it yourself: ``python derivations/literature.py [--plot]``. The exit status is 0 when every claim
gets its expected verdict, 1 otherwise, 2 for a bad option or a missing package.
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

from pe_symbolic.encodings import family
from pe_symbolic.theorems.chapters import literature as lit

parse_args(default_d=8)
rep = Report()

# %%
# Men et al. (2024): the base of RoPE bounds context length
# ---------------------------------------------------------
# "We derive that the base of RoPE bounds context length: there is an absolute lower bound
# for the base value to obtain certain context length capability" (abstract). The bound comes
# from the index :math:`B_b(m) = \sum_i \cos(m\,b^{-2i/d})`, which must stay non-negative for
# every distance :math:`m \le L`. A *lower* bound presumes that every base above an admissible
# one is admissible too. At :math:`d = 128`, :math:`L = 32768` it is not: the base
# :math:`967375` is admissible (numeric certificate over every integer :math:`m`), the larger
# :math:`10^6` is not, with :math:`B(28259) = -0.775` (:claim:`literature.men_upward_closed`,
# refuted by the engine, as registered).
heading("Men et al. (2024): the base of RoPE bounds context length")
d, length, big, m = lit.MEN_POINT
ok, at, low = lit.men_admissible(d, length, lit.MEN_ADMISSIBLE_BASE)
say(f"""d = {d}, L = {length}: base {lit.MEN_ADMISSIBLE_BASE} gives min B(m) over 0..{length} = {low:.4f}
    at m = {at} (float64 certificate, error below 1e-9): admissible = {ok}.""")
rep.check("men: base 967375 admissible on 0..32768 (numeric certificate)", ok)
ok_big, at_big, low_big = lit.men_admissible(d, length, big)
say(f"base {big}: min B(m) = {low_big:.4f} at m = {at_big}: admissible = {ok_big}.")
rep.check("men: base 1e6 not admissible on 0..32768 (numeric certificate)", not ok_big)
show(f"B at b = {big}, m = {m}", sp.Float(lit.men_index(m, d, big).evalf(20), 6))
rep.prove("literature.men_upward_closed")

# %%
# The figure draws the lower envelope of :math:`B_b(m)` (its minimum over each run of 32
# distances) near the end of the range for both bases: the larger base dips below zero, the
# smaller one does not.
fig = figure(figsize=(6.4, 3.2))
if fig is not None:
    ax = fig.subplots()
    ms = np.arange(length + 1 - 32 * 300, length + 1)
    for base in (lit.MEN_ADMISSIBLE_BASE, big):
        index = np.zeros(ms.size)
        for pair in range(d // 2):  # B_b(m) = sum_i cos(m b^(-2i/d)), pair by pair (float64)
            index += np.cos(ms * float(base) ** (-2.0 * pair / d))
        lows = index.reshape(-1, 32).min(axis=1)
        ax.plot(ms.reshape(-1, 32)[:, 0], lows, lw=1.2, label=f"b = {base}: min {index.min():.3f}")
    ax.axhline(0.0, color="k", lw=0.8)
    ax.set_ylim(-1.5, 10)
    ax.set_xlabel("distance m")
    ax.set_ylabel(f"lowest B_b(m), d = {d}")
    ax.set_title("a larger base is not always admissible")
    ax.legend(fontsize=8)
    fig.tight_layout()

# %%
# Liu et al. (2023): the critical dimension is YaRN's ``high``
# ------------------------------------------------------------
# Liu et al. call :math:`d_{extra} = 2\lceil \tfrac d2 \log_b \tfrac{T}{2\pi}\rceil` the
# critical dimension: the channels whose period fits in the training length :math:`T`. The
# inner quantity is YaRN's correction dimension at one rotation, :math:`j(1)`, the pair its
# ``high`` bound (``beta_slow = 1``) is computed from (:claim:`literature.liu_critical_dim`).
heading("Liu et al. (2023): the critical dimension is YaRN's high bound")
show("YaRN's j(1)", family.yarn_correction_dim(sp.Integer(1)))
j1 = family.yarn_correction_dim(sp.Integer(1), 128, 500000, 8192)
say(f"""Llama 3 (d = 128, b = 500000, T = 8192): j(1) = {float(j1):.4f}, so d_extra =
    2 ceil(j(1)) = {2 * int(sp.ceiling(j1))} of 128 dims.""")
rep.prove("literature.liu_critical_dim")

# %%
# Barbero et al. (2024): the lowest frequencies are almost NoPE
# -------------------------------------------------------------
# A pair turned by :math:`\phi = r\theta_i` changes the score by
# :math:`q^{\mathsf T}(R(\phi) - I)k`, and :math:`R(\phi) - I` scales every vector by
# :math:`2|\sin(\phi/2)|` (:claim:`literature.barbero_low_frequency`): the change is at most
# :math:`|q||k|\,|r|\,\theta_i`, tiny for the lowest :math:`\theta_i`.
heading("Barbero et al. (2024): the lowest frequencies are almost NoPE")
rep.prove("literature.barbero_low_frequency")

# %%
# ComRoPE vs LieRE: commuting generators
# --------------------------------------
# With commuting skew generators the rotation stays relative
# (:claim:`literature.comrope_commuting`); with the generators of rotations about two axes
# of :math:`\mathbb R^3` it does not (:claim:`literature.liere_noncommuting`, refuted).
heading("ComRoPE vs LieRE: commuting generators")
rep.prove("literature.comrope_commuting")
rep.prove("literature.liere_noncommuting")

# %%
# Summary
# -------
rep.finish()
