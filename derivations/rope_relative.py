r"""
RoPE: attention scores depend on positions only through their difference
========================================================================

Rotary embeddings (Su et al., RoFormer, 2021) rotate each pair of a query at position
:math:`m` by :math:`m\theta_i` and each pair of a key at position :math:`n` by
:math:`n\theta_i`. Their score then depends on :math:`n - m` only:
:math:`\langle R(m)q, R(n)k\rangle = \langle q, R(n-m)k\rangle`.

Run it yourself: ``python derivations/rope_relative.py [--d N] [--plot]``. The exit status
is 0 when every claim is proved, 1 otherwise, 2 for a bad option or a missing package.
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
from pe_symbolic.encodings import rope, sinusoidal
from pe_symbolic.encodings.symbols import m, n, theta, vector

d = parse_args(default_d=4).d
rep = Report()

# %%
# One pair
# --------
# RoPE rotates each pair of a query at position :math:`m` by :math:`m\theta_i` (RoFormer,
# eq. 13). For one pair, the score of the rotated query and key is the expression below;
# since :math:`\mathrm{rot}(a)^T \mathrm{rot}(b) = \mathrm{rot}(b - a)`, it equals
# :math:`\langle q, R(n-m)k\rangle`.
q, kv = vector("q", 2), vector("k", 2)
show("R(m) for one pair", rope.rope_block(m, theta))
show("<R(m) q, R(n) k>", ((rope.rope_block(m, theta) * q).T * (rope.rope_block(n, theta) * kv))[0])
show("<q, R(n - m) k>", sp.expand((q.T * rope.rope_block(n - m, theta) * kv)[0]))

# %%
# Two layouts
# -----------
# Real code applies :math:`R(m)` elementwise, :math:`x\cos + \mathrm{rotate}(x)\sin`, with the
# pairs either interleaved, slots :math:`(2i, 2i+1)` (RoFormer, GPT-J), or split, slots
# :math:`(i, i + d/2)` (GPT-NeoX, Hugging Face Llama). A permutation maps one to the other:
show("the permutation interleaved -> split for d = 4", sinusoidal.layout_permutation(4))

# %%
# The scores, computed
# --------------------
# The figure rotates one random query and one random key (:math:`d = 64`) with the numeric
# core at every position :math:`0 \le m, n < 64` and draws their scores: constant along every
# diagonal :math:`n - m = \text{const}`.
fig = figure(figsize=(4.4, 3.8))
if fig is not None:
    ax = fig.subplots()
    rng = np.random.default_rng(0)
    pos = np.arange(64)
    qs = numeric.apply_rope(np.broadcast_to(rng.standard_normal(64), (64, 64)).copy(), pos)
    ks = numeric.apply_rope(np.broadcast_to(rng.standard_normal(64), (64, 64)).copy(), pos)
    im = ax.imshow(qs @ ks.T, origin="lower", cmap="RdBu_r")
    ax.set_xlabel("key position n")
    ax.set_ylabel("query position m")
    ax.set_title(r"$\langle R(m)q, R(n)k\rangle$")
    fig.colorbar(im, ax=ax, shrink=0.85)
    fig.tight_layout()

# %%
# The theorems
# ------------
# Each claim in its generic form and instantiated for the requested :math:`d`; rendered as
# mathematics: :claim:`rope.relative`, :claim:`rope.efficient_form`,
# :claim:`layout.permutation`.
for id_ in ("rope.relative", "rope.efficient_form", "layout.permutation"):
    rep.prove(id_)
    rep.prove(id_, d)

# %%
# Summary
# -------
rep.finish()
