"""The canonical symbols, with their assumptions, in one place.

Names follow the papers: ``t`` is a position (Vaswani's *pos*), ``k`` an offset, ``m`` and
``n`` RoPE positions, ``i`` a pair index, ``d`` the model dimension, ``b`` the base
(10000 in the papers) and ``omega`` a single pair's angular frequency.

Positions and offsets are *real*: fractional positions are used by position interpolation,
and every identity proved here holds for real arguments. The base is declared positive;
``b > 1`` cannot be stated as a SymPy assumption and is recorded in each claim's assumptions
as the relation :data:`BASE_GT_1` instead.

>>> from pe_symbolic.encodings.symbols import t, d, omega
>>> t.is_real, d.is_even, omega.is_positive
(True, True, True)
"""

from __future__ import annotations

import sympy as sp

__all__ = [
    "BASE_GT_1",
    "b",
    "d",
    "i",
    "j",
    "k",
    "m",
    "n",
    "omega",
    "t",
    "t0",
    "theta",
    "vector",
]

t = sp.Symbol("t", real=True)
"""Position (Vaswani's *pos*); real so that fractional positions are covered."""
t0 = sp.Symbol("t_0", real=True)
"""A reference position (the coarse grid of the angle-addition algorithm)."""
k = sp.Symbol("k", real=True)
"""Offset between two positions."""
m = sp.Symbol("m", real=True)
"""RoPE position of the query."""
n = sp.Symbol("n", real=True)
"""RoPE position of the key."""
j = sp.Symbol("j", integer=True)
"""An integer (multiples of pi)."""
i = sp.Symbol("i", integer=True, nonnegative=True)
"""Pair index, ``0 <= i < d/2``."""
d = sp.Symbol("d", integer=True, positive=True, even=True)
"""Model dimension (even: the encoding is made of sin/cos pairs)."""
b = sp.Symbol("b", positive=True)
"""Base of the frequency schedule (10000 in Vaswani et al.); ``b > 1``."""
omega = sp.Symbol("omega", positive=True)
"""Angular frequency of one generic pair."""
theta = sp.Symbol("theta", real=True)
"""A rotation angle."""

BASE_GT_1 = sp.Gt(b, 1)
"""The assumption ``b > 1`` (not expressible as a symbol assumption)."""


def vector(name: str, size: int) -> sp.ImmutableMatrix:
    """A column of ``size`` real symbols ``name_0 ... name_{size-1}``.

    >>> vector("q", 2)
    Matrix([
    [q_0],
    [q_1]])
    """
    return sp.ImmutableMatrix(sp.symbols(f"{name}_0:{size}", real=True))
