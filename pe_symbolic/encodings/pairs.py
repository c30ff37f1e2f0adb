r"""The encodings for *every* even ``d``: pair-indexed, with a symbolic number of pairs.

A ``d``-vector of sin/cos pairs, with ``d = 2h`` for a symbolic positive integer ``h``, is
written pair by pair: pair ``j`` of ``PE(t)`` is :math:`p_j(t) = (\sin\omega_j t, \cos\omega_j t)`
with :math:`\omega_j = b^{-2j/d}`, and pair ``j`` of a vector ``q`` is
:math:`q_j = (q_{2j}, q_{2j+1})` (interleaved) or :math:`(q_j, q_{j+h})` (split), with ``q``
an :class:`~sympy.tensor.indexed.IndexedBase` of real entries.

A block-diagonal matrix ``M = diag(B_0, ..., B_{h-1})`` is its blocks
:math:`M_{jl} = \delta_{jl} B_j`; so pair ``i`` of ``M v`` is
:math:`\sum_{j<h} \delta_{ij} B_j v_j` (:func:`apply_blocks`) and block ``(i, l)`` of ``M N`` is
:math:`\sum_{j<h} \delta_{ij}\delta_{jl} B_j N_j` (:func:`multiply_blocks`). These sums with a
Kronecker delta are how the proofs lift a statement about one 2x2 block to every ``d``: the
engine evaluates them (``doit``) to the single surviving term, and rewrites that term by the
pair lemma — nothing is left to prose.

>>> from pe_symbolic.encodings.symbols import t
>>> pe_pair(i, t).T
Matrix([[sin(t/b**(i/h)), cos(t/b**(i/h))]])
>>> vector_pair("q", i, "split").T
Matrix([[q[i], q[h + i]]])
"""

from __future__ import annotations

from collections.abc import Callable

import sympy as sp

from .._validate import check_layout, check_order, check_schedule
from . import symbols as S
from .rot2 import rot2

__all__ = [
    "apply_blocks",
    "block",
    "efficient_slot",
    "frequency_slot",
    "h",
    "i",
    "j",
    "l",
    "multiply_blocks",
    "notation",
    "omega",
    "pair_sum",
    "pe_pair",
    "permuted_slot",
    "rotate_slot",
    "vector_pair",
]

h = sp.Symbol("h", integer=True, positive=True)
"""The number of pairs: ``d = 2h``."""
i = sp.Symbol("i", integer=True, nonnegative=True)
"""A pair index, ``0 <= i < h`` (the claims that use it assume ``i <= h - 1``)."""
l = sp.Symbol("l", integer=True, nonnegative=True)  # noqa: E741 - the index name of the papers
"""A second pair index (block ``(i, l)`` of a matrix)."""
j = sp.Symbol("j", integer=True, nonnegative=True)
"""The summation index over pairs, ``0 <= j <= h - 1``."""


def omega(idx: sp.Expr, *, base: sp.Expr = S.b, schedule: str = "vaswani") -> sp.Expr:
    r"""The frequency of pair ``idx`` in ``d = 2h`` dimensions: :math:`b^{-2\,idx/d}`
    (Vaswani) or :math:`b^{-idx/(h-1)}` (tensor2tensor)."""
    schedule = check_schedule(schedule)
    if schedule == "vaswani":
        return base ** (-2 * idx / (2 * h))
    return base ** (-idx / (h - 1))


def pe_pair(idx: sp.Expr, t: sp.Expr, order: str = "sin_cos", **kw: object) -> sp.ImmutableMatrix:
    """Pair ``idx`` of PE(t): ``(sin w t, cos w t)`` (``order="cos_sin"`` swaps them)."""
    order = check_order(order)
    w = omega(idx, **kw)  # type: ignore[arg-type]
    s, c = sp.sin(w * t), sp.cos(w * t)
    return sp.ImmutableMatrix([s, c] if order == "sin_cos" else [c, s])


def vector_pair(name: str, idx: sp.Expr, layout: str = "interleaved") -> sp.ImmutableMatrix:
    """Pair ``idx`` of a real ``d``-vector ``name``: slots ``(2 idx, 2 idx + 1)`` or ``(idx, idx + h)``."""
    layout = check_layout(layout)
    v = sp.IndexedBase(name, real=True)
    return sp.ImmutableMatrix([v[2 * idx], v[2 * idx + 1]] if layout == "interleaved" else [v[idx], v[idx + h]])


def block(blocks: Callable[[sp.Expr], sp.MatrixBase], row: sp.Expr, col: sp.Expr) -> sp.ImmutableMatrix:
    r"""Block ``(row, col)`` of ``diag(B_0, ..., B_{h-1})``: :math:`\delta_{row,col} B_{row}`."""
    return sp.ImmutableMatrix(sp.KroneckerDelta(row, col) * blocks(row))


def apply_blocks(
    blocks: Callable[[sp.Expr], sp.MatrixBase], vec: Callable[[sp.Expr], sp.MatrixBase], idx: sp.Expr
) -> sp.ImmutableMatrix:
    r"""Pair ``idx`` of ``diag(B_j) v``: the column :math:`\sum_{j<h}\delta_{idx,j}\,B_j v_j`."""
    prod = [sp.KroneckerDelta(idx, j) * e for e in blocks(j) * vec(j)]
    return sp.ImmutableMatrix([sp.Sum(e, (j, 0, h - 1)) for e in prod])


def multiply_blocks(
    a: Callable[[sp.Expr], sp.MatrixBase], b: Callable[[sp.Expr], sp.MatrixBase], row: sp.Expr, col: sp.Expr
) -> sp.ImmutableMatrix:
    r"""Block ``(row, col)`` of ``diag(A_j) diag(B_j)``: :math:`\sum_{j<h}\delta_{row,j}\delta_{j,col} A_j B_j`."""
    prod = (a(j) * b(j)).applyfunc(lambda e: sp.KroneckerDelta(row, j) * sp.KroneckerDelta(j, col) * e)
    return sp.ImmutableMatrix(prod.applyfunc(lambda e: sp.Sum(e, (j, 0, h - 1))))


def pair_sum(term: Callable[[sp.Expr], sp.Expr]) -> sp.Expr:
    r""":math:`\sum_{j<h} term(j)`: a dot product or a norm, pair by pair."""
    return sp.Sum(term(j), (j, 0, h - 1))


def notation(*indices: sp.Symbol, name: str = "omega") -> tuple[tuple[sp.Expr, str], ...]:
    """Display names for the frequencies of pairs ``indices``: ``(omega(i), "omega_i")``, ...
    (renderings print ``omega_i`` and say ``where omega_i = b**(-i/h)``)."""
    return tuple((omega(idx), f"{name}_{idx}") for idx in indices)


def rotate_slot(name: str, slot: sp.Expr, layout: str = "split") -> sp.Expr:
    r"""Entry ``slot`` of ``rotate(x)`` over the whole ``d``-vector ``x = name``.

    ``"split"`` is HF's ``rotate_half``, ``cat(-x[h:], x[:h])``: :math:`-x_{s+h}` for
    :math:`s \le h - 1`, else :math:`x_{s-h}`. ``"interleaved"`` is GPT-J's
    ``rotate_every_two``: :math:`-x_{s+1}` for even :math:`s`, else :math:`x_{s-1}`. Pair
    ``i`` of ``rotate(x)`` is what the conditions select at its two slots; a slot whose
    condition SymPy cannot decide (``i <= h - 1`` for a symbolic ``i``) stays a ``Piecewise``
    until an assumption settles it.

    >>> rotate_slot("x", i + h)
    x[i]
    >>> rotate_slot("x", 2 * i + 1, "interleaved"), rotate_slot("x", 2 * i, "interleaved")
    (x[2*i], -x[2*i + 1])
    """
    layout = check_layout(layout)
    v = sp.IndexedBase(name, real=True)
    if layout == "split":
        return sp.Piecewise((-v[slot + h], sp.Le(slot, h - 1)), (v[slot - h], True))
    return sp.Piecewise((-v[slot + 1], sp.Eq(sp.Mod(slot, 2), 0)), (v[slot - 1], True))


def frequency_slot(slot: sp.Expr, layout: str = "split") -> sp.Expr:
    r"""The frequency that the ``cos``/``sin`` tables hold at entry ``slot``.

    ``"split"``: HF's ``emb = cat(freqs, freqs)``, :math:`\theta_s` for :math:`s \le h-1`
    and :math:`\theta_{s-h}` after; ``"interleaved"``: ``repeat_interleave(freqs, 2)``,
    :math:`\theta_{\lfloor s/2 \rfloor}`.

    >>> frequency_slot(i + h)
    b**(-i/h)
    >>> frequency_slot(2 * i + 1, "interleaved")
    b**(-i/h)
    """
    layout = check_layout(layout)
    if layout == "split":
        return sp.Piecewise((omega(slot), sp.Le(slot, h - 1)), (omega(slot - h), True))
    return omega(sp.floor(slot / 2))


def efficient_slot(name: str, slot: sp.Expr, m: sp.Expr, layout: str = "split") -> sp.Expr:
    r"""Entry ``slot`` of the elementwise RoPE ``x * cos + rotate(x) * sin`` over the whole
    vector ``x = name``, as the frameworks compute it (:func:`rotate_slot`,
    :func:`frequency_slot`).

    >>> efficient_slot("x", i + h, S.m)
    sin(m/b**(i/h))*x[i] + cos(m/b**(i/h))*x[h + i]
    """
    layout = check_layout(layout)
    v = sp.IndexedBase(name, real=True)
    angle = m * frequency_slot(slot, layout)
    return v[slot] * sp.cos(angle) + rotate_slot(name, slot, layout) * sp.sin(angle)


def permuted_slot(entry: Callable[[sp.Expr], sp.Expr], slot: sp.Expr) -> sp.Expr:
    r"""Entry ``slot`` of ``P w``, the interleaved-to-split permutation applied to the vector
    whose entry ``r`` is ``entry(r)``: slot ``s`` of the split vector takes interleaved slot
    :math:`2s` for :math:`s \le h - 1` and :math:`2(s - h) + 1` after (pair ``i`` moves from
    slots ``(2i, 2i+1)`` to ``(i, i + h)``).

    >>> w = sp.IndexedBase("w")
    >>> permuted_slot(lambda r: w[r], i + h)
    w[2*i + 1]
    """
    return sp.Piecewise((entry(2 * slot), sp.Le(slot, h - 1)), (entry(2 * (slot - h) + 1), True))


def rotation(angle_of: Callable[[sp.Expr], sp.Expr]) -> Callable[[sp.Expr], sp.ImmutableMatrix]:
    """``j -> rot2(angle_of(j))``: the blocks of a block-diagonal rotation."""
    return lambda idx: rot2(angle_of(idx))
