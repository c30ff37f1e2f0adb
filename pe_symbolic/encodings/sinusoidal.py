r"""The sinusoidal encoding PE(t), its frequency schedules and the translation matrix T(k).

Vaswani et al. (2017), section 3.5:

.. math:: PE_{(t, 2i)} = \sin(t\,\omega_i), \quad PE_{(t, 2i+1)} = \cos(t\,\omega_i),
          \qquad \omega_i = b^{-2i/d}.

Every layout that real code uses is one choice of *where pair i lives* (``layout``) and
*which of sin/cos comes first* (``order``):

================================  ===============  ===========
code                              layout           order
================================  ===============  ===========
Vaswani et al.; HF DistilBERT     ``interleaved``  ``sin_cos``
Kernes (seed 000)                 ``interleaved``  ``cos_sin``
tensor2tensor; fairseq            ``split``        ``sin_cos``
================================  ===============  ===========

All builders return immutable SymPy matrices; nothing here evaluates numerically.
"""

from __future__ import annotations

import sympy as sp

from . import symbols as S
from .._validate import check_base, check_d, check_layout, check_order, check_schedule
from .rot2 import block_diagonal, pair_slots, rot2
from .symbols import as_expr

__all__ = [
    "encoding",
    "frequencies",
    "frequency",
    "layout_permutation",
    "pair",
    "translation_block",
    "translation_matrix",
]


def frequency(
    i: int | sp.Expr,
    d: int | sp.Expr,
    *,
    base: float | sp.Expr = S.b,
    schedule: str = "vaswani",
) -> sp.Expr:
    r"""Angular frequency :math:`\omega_i` of pair ``i`` for dimension ``d``.

    Parameters
    ----------
    i, d : int or sympy.Expr
        Pair index and model dimension; symbolic values give the general formula.
    base : float or sympy.Expr, default ``b``
        The base (10000 in the papers); must exceed 1.
    schedule : {"vaswani", "tensor2tensor"}
        ``"vaswani"``: :math:`\omega_i = b^{-2i/d}`. ``"tensor2tensor"``: geometric
        timescales from 1 to ``base`` (``get_timing_signal_1d`` with ``min_timescale=1``,
        ``max_timescale=base``): :math:`\omega_i = b^{-i/(d/2-1)}`, and for ``d = 2``
        the exponent's denominator is clamped to 1 as tensor2tensor does.

    Notes
    -----
    The two schedules agree at ``i = 0`` (frequency 1) and differ elsewhere: the last pair
    of Vaswani's has wavelength :math:`2\pi b^{(d-2)/d} < 2\pi b`, tensor2tensor's reaches
    exactly :math:`2\pi b`.

    Examples
    --------
    >>> from pe_symbolic.encodings.symbols import i, d, b
    >>> frequency(i, d)
    b**(-2*i/d)
    >>> frequency(1, 8, base=10000)
    1/10
    >>> frequency(1, 8, base=10000, schedule="tensor2tensor")
    10**(2/3)/100
    """
    schedule = check_schedule(schedule)
    base = check_base(base) if not isinstance(base, sp.Basic) else base
    base = as_expr(base, "base")
    if isinstance(d, int):
        check_d(d)
    i, d = as_expr(i, "i"), as_expr(d, "d")
    if schedule == "vaswani":
        return base ** (-2 * i / d)
    half = d / 2
    denom = sp.Max(half - 1, 1) if half.is_number else half - 1
    return base ** (-i / denom)


def frequencies(
    d: int, *, base: float | sp.Expr = S.b, schedule: str = "vaswani"
) -> tuple[sp.Expr, ...]:
    """The ``d/2`` frequencies of a concrete dimension ``d``.

    >>> frequencies(4, base=100)
    (1, 1/10)
    """
    d = check_d(d)
    return tuple(frequency(p, d, base=base, schedule=schedule) for p in range(d // 2))


def pair(t: sp.Expr, omega: sp.Expr, order: str = "sin_cos") -> sp.ImmutableMatrix:
    """One sin/cos pair at position ``t`` with frequency ``omega``, as a 2x1 column.

    >>> from pe_symbolic.encodings.symbols import t, omega
    >>> pair(t, omega).T
    Matrix([[sin(omega*t), cos(omega*t)]])
    >>> pair(t, omega, "cos_sin").T
    Matrix([[cos(omega*t), sin(omega*t)]])
    """
    order = check_order(order)
    s, c = sp.sin(omega * t), sp.cos(omega * t)
    return sp.ImmutableMatrix([s, c] if order == "sin_cos" else [c, s])


def encoding(
    t: sp.Expr,
    d: int,
    *,
    base: float | sp.Expr = S.b,
    layout: str = "interleaved",
    order: str = "sin_cos",
    schedule: str = "vaswani",
    omegas: tuple[sp.Expr, ...] | None = None,
) -> sp.ImmutableMatrix:
    r"""The ``d``-dimensional encoding PE(t) as a ``d x 1`` column.

    ``omegas`` overrides the schedule (e.g. independent symbols, for statements that hold
    for any frequencies).

    >>> from pe_symbolic.encodings.symbols import t
    >>> encoding(t, 4, base=100).T
    Matrix([[sin(t), cos(t), sin(t/10), cos(t/10)]])
    >>> encoding(t, 4, base=100, layout="split").T
    Matrix([[sin(t), sin(t/10), cos(t), cos(t/10)]])
    """
    d = check_d(d)
    layout = check_layout(layout)
    ws = _omegas(d, base, schedule, omegas)
    out = [sp.S.Zero] * d
    for p, w in enumerate(ws):
        a, c = pair_slots(p, d, layout)
        out[a], out[c] = pair(t, w, order)
    return sp.ImmutableMatrix(out)


def translation_block(k: sp.Expr, omega: sp.Expr, order: str = "sin_cos") -> sp.ImmutableMatrix:
    r"""The 2x2 block that moves one pair from ``t`` to ``t + k``.

    For ``order="sin_cos"`` this is :math:`\mathop{\mathrm{rot2}}(-\omega k)`
    (Denk's matrix :math:`\begin{psmallmatrix}\cos\omega k & \sin\omega k\\
    -\sin\omega k & \cos\omega k\end{psmallmatrix}`); for ``"cos_sin"`` it is
    :math:`\mathop{\mathrm{rot2}}(\omega k)`.

    >>> from pe_symbolic.encodings.symbols import k, omega
    >>> translation_block(k, omega)
    Matrix([
    [ cos(k*omega), sin(k*omega)],
    [-sin(k*omega), cos(k*omega)]])
    """
    order = check_order(order)
    angle = as_expr(omega, "omega") * as_expr(k, "k")
    return rot2(-angle if order == "sin_cos" else angle)


def translation_matrix(
    k: sp.Expr,
    d: int,
    *,
    base: float | sp.Expr = S.b,
    layout: str = "interleaved",
    order: str = "sin_cos",
    schedule: str = "vaswani",
    omegas: tuple[sp.Expr, ...] | None = None,
) -> sp.ImmutableMatrix:
    """T(k): the block-diagonal ``d x d`` matrix with ``T(k) PE(t) = PE(t + k)``.

    >>> from pe_symbolic.encodings.symbols import k
    >>> translation_matrix(k, 2)
    Matrix([
    [ cos(k), sin(k)],
    [-sin(k), cos(k)]])
    """
    d = check_d(d)
    ws = _omegas(d, base, schedule, omegas)
    return block_diagonal([translation_block(k, w, order) for w in ws], layout)


def layout_permutation(d: int) -> sp.ImmutableMatrix:
    """The permutation ``P`` with ``P @ v_interleaved = v_split`` for every ``d``-vector layout.

    Pair ``i`` moves from slots ``(2i, 2i+1)`` to ``(i, i + d/2)``. ``P.T`` goes back.

    >>> layout_permutation(4)
    Matrix([
    [1, 0, 0, 0],
    [0, 0, 1, 0],
    [0, 1, 0, 0],
    [0, 0, 0, 1]])
    """
    d = check_d(d)
    out = sp.zeros(d, d)
    for p in range(d // 2):
        src = pair_slots(p, d, "interleaved")
        dst = pair_slots(p, d, "split")
        for s, t_ in zip(src, dst):
            out[t_, s] = 1
    return sp.ImmutableMatrix(out)


def _omegas(d: int, base, schedule: str, omegas) -> tuple[sp.Expr, ...]:
    if omegas is None:
        return frequencies(d, base=base, schedule=schedule)
    if len(omegas) != d // 2:
        raise ValueError(f"omegas has {len(omegas)} entries; d={d} needs d/2 = {d // 2}")
    return tuple(as_expr(w, "omegas") for w in omegas)
