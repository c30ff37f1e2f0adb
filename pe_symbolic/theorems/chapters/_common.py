"""Shared pieces of the chapters: sources, parametrisations of ranges, small helpers.

Sign claims are written as ``sign(expr) = 1`` (or ``-1``): SymPy's assumption system decides
the sign of the reduced expression, and a false variant is refuted numerically like any
other equation. Nonnegativity is written ``Abs(expr) = expr``. When ``expr`` is a numeric
constant (``sign(2*pi*10000 - lambda_3)``, a printed digit against ``sin(3/100)``), SymPy
decides its sign by ``evalf``, which raises its working precision until the sign is certain
(and leaves the sign unevaluated, so the claim undecided, when it cannot).

An open range of angles is covered by a parametrisation whose sign SymPy can decide:
``2*atan(u)`` with ``u > 0`` covers every angle in ``(0, pi)``, and ``2*atan(r/(1+r))``
with ``r > 0`` every angle in ``(0, pi/2)`` (atan is increasing, ``atan(0) = 0``,
``atan(1) = pi/4``, ``atan(oo) = pi/2``; ``r/(1+r)`` runs over ``(0, 1)``). The half-angle
(Weierstrass) forms ``sin(2 atan u) = 2u/(1+u^2)``, ``cos(2 atan u) = (1-u^2)/(1+u^2)``
then have signs SymPy can read off.

>>> import sympy as sp
>>> angle, r = quarter_angle()
>>> [sp.limit(angle, r, 0), sp.limit(angle, r, sp.oo)]
[0, pi/2]
"""

from __future__ import annotations

import sympy as sp

__all__ = ["dot", "half_angle", "quarter_angle", "r", "u"]

SRC_KERNES = "Kernes (2021), 'Master Positional Encoding: Part I' (seed 000)"
SRC_VIDEO = "'Positional embeddings in transformers EXPLAINED' (video transcript, seed 001)"
SRC_DENK = "Denk (2019), 'Linear Relationships in the Transformer's Positional Encoding' (seed 002)"
SRC_KAZEMNEJAD = "Kazemnejad (2019), 'Transformer Architecture: The Positional Encoding' (seed 002)"
SRC_T2T = "tensor2tensor common_attention.get_timing_signal_1d (seed 002)"
SRC_NOTES = "Positional embeddings notes (seed 003)"
SRC_SHAW = "Shaw, Uszkoreit, Vaswani (2018), relation-aware self-attention (seed 003)"
SRC_ROFORMER = "Su et al. (2021), RoFormer, section 3.2 (seed 003)"
SRC_SPHERE = "'Thinking out loud' positional-encoding post (seed 004)"
SRC_ALIBI = "Press, Smith, Lewis (2022), ALiBi, section 3 (mentioned in seed 004)"

r = sp.Symbol("r", positive=True)
"""Parameter of the quarter-period range ``(0, pi/2)``."""
u = sp.Symbol("u", positive=True)
"""Parameter of the half-period range ``(0, pi)``."""


def quarter_angle() -> tuple[sp.Expr, sp.Symbol]:
    """``(2*atan(r/(1+r)), r)``: every angle strictly between 0 and pi/2, once, as r > 0 runs."""
    return 2 * sp.atan(r / (1 + r)), r


def half_angle() -> tuple[sp.Expr, sp.Symbol]:
    """``(2*atan(u), u)``: every angle strictly between 0 and pi, once, as u > 0 runs."""
    return 2 * sp.atan(u), u


def dot(a: sp.MatrixBase, c: sp.MatrixBase) -> sp.Expr:
    """Dot product of two column vectors."""
    return (a.T * c)[0, 0]


def sgn(e: sp.Expr) -> sp.Expr:
    """``sign(e)`` left unevaluated when SymPy would decide it at once (the proof shows the step)."""
    return sp.sign(e, evaluate=False)
