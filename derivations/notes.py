r"""
Positional-embedding notes: Shaw's relative positions, RoPE, learned embeddings
===============================================================================

A set of study notes (seed 003) covers three more ways to tell a model where tokens are:
Shaw et al.'s clipped relative positions, rotary embeddings (in two and in :math:`d`
dimensions, with their efficient elementwise form), and learned tables. This script checks
what each of them claims, and shows what cannot be claimed about a learned table.

Run it yourself: ``python derivations/notes.py [--d N] [--plot]``. The exit status is 0 when every
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
from pe_symbolic.tutorial import Report, figure, heading, parse_args, show

import sympy as sp

from pe_symbolic.encodings.symbols import m
from pe_symbolic.theorems.chapters import notes

d = parse_args(default_d=8).d
rep = Report()

# %%
# Shaw et al.: relative positions with clipping
# ---------------------------------------------
# Relation-aware attention adds an embedding :math:`a_{ij} = w_{\mathrm{clip}(j-i, -K, K)}` to
# the key (and the value) of position :math:`j` as seen from position :math:`i`. It depends
# on :math:`i` and :math:`j` only through the clipped offset, so shifting both positions
# changes nothing and the same :math:`2K + 1` embeddings serve every sequence length
# (:claim:`shaw.clipped_shift_invariant`).
heading("Shaw et al.: relative positions with clipping")
show("clip(j - i, -3, 3) for i, j = 0..7 (rows i)", sp.Matrix(8, 8, lambda i, j: notes.clip(j - i, 3)))
rep.prove("shaw.clipped_shift_invariant")

# %%
# The figure shows which of the :math:`2K + 1 = 7` embeddings each query-key pair of a
# 16-token sequence uses: constant along every diagonal (a shift changes nothing), clipped
# beyond distance 3.
fig = figure(figsize=(4.2, 3.6))
if fig is not None:
    ax = fig.subplots()
    offsets = [[int(notes.clip(j - i, 3)) for j in range(16)] for i in range(16)]
    image = ax.imshow(offsets, cmap="RdBu", vmin=-3, vmax=3)
    fig.colorbar(image, ax=ax, label="clip(j - i, -3, 3)")
    ax.set_xlabel("key position j")
    ax.set_ylabel("query position i")
    fig.tight_layout()

# %%
# RoPE: the 2-D example
# ---------------------
# The notes' example rotates the projected 2-D vector by :math:`m\theta`:
# :math:`f(x_m, m) = R(m\theta) W x_m`. The score of a query at :math:`m` and a key at
# :math:`n` then equals :math:`(W_q x_m)^T R((n - m)\theta) (W_k x_n)`: only :math:`n - m` is
# left. The rotation is multiplication by :math:`e^{\mathrm{i} m\theta}` in complex form
# (:claim:`rope.two_d_example`).
heading("RoPE: the 2-D example")
rep.prove("rope.two_d_example")

# %%
# RoPE in d dimensions and its efficient form
# -------------------------------------------
# The general :math:`R^d_{\Theta,m}` puts :math:`2\times 2` rotations by :math:`m\theta_i` on
# slots :math:`(2i-1, 2i)`, with :math:`\theta_i = 10000^{-2(i-1)/d}` for
# :math:`i = 1..d/2` (1-based). That is the package's interleaved ``rope_matrix`` with its
# 0-based thetas (:claim:`rope.theta_set`), and the notes' elementwise form
# :math:`x \cos + (-x_2, x_1, -x_4, x_3, \dots) \sin` equals :math:`R x`. The foundation
# theorems then give the relative property and the efficient form in both layouts
# (:claim:`rope.relative`, :claim:`rope.efficient_form`).
heading("RoPE in d dimensions and its efficient form")
show("R^4_{Theta,m} (the notes' pattern)", notes.notes_rope_matrix(m, 4))
rep.prove("rope.theta_set")
rep.prove("rope.theta_set", d)
rep.prove("rope.relative")
rep.prove("rope.relative", min(d, 4))
rep.prove("rope.efficient_form", d)

# %%
# Learned positional embeddings
# -----------------------------
# A learned table is a parameter matrix of shape :math:`(L, d)`: that much can be checked, and
# that it has no row for positions :math:`\ge L`. Nothing about its values can be proved: they
# are what training made them. What can be shown is that no translation property holds in
# general: here is a :math:`4\times 2` table for which no matrix :math:`T` maps each row to the
# next (:claim:`learned.no_translation`).
heading("Learned positional embeddings")
show("the table E (rows are positions)", notes.LEARNED_TABLE)
show("T E_t for the T fitted to the first two steps", sp.Matrix([[0, 1], [1, 1]]) * notes.LEARNED_TABLE.T)
rep.prove("learned.no_translation")

# %%
# Summary
# -------
rep.finish()
