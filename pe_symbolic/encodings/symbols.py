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

import fractions
import numbers

import sympy as sp

__all__ = [
    "BASE_GT_1",
    "as_expr",
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


def as_expr(x: object, name: str = "value") -> sp.Basic:
    """``x`` as a SymPy object, without ever parsing text.

    SymPy objects pass through; Python and NumPy numbers and :class:`fractions.Fraction`
    become SymPy numbers (integers stay exact). Anything else, strings included, is a
    :class:`TypeError` naming the parameter.

    >>> as_expr(3), as_expr(0.5), as_expr(t)
    (3, 0.500000000000000, t)
    >>> as_expr("t", "position")
    Traceback (most recent call last):
    TypeError: position='t' must be a SymPy expression or a number (text is never parsed)
    """
    if isinstance(x, sp.Basic):
        return x
    if isinstance(x, bool):
        return sp.true if x else sp.false
    if isinstance(x, numbers.Integral):
        return sp.Integer(int(x))
    if isinstance(x, fractions.Fraction):
        return sp.Rational(x.numerator, x.denominator)
    if isinstance(x, numbers.Real):
        return sp.Float(float(x))
    if isinstance(x, numbers.Complex):
        return sp.Float(complex(x).real) + sp.I * sp.Float(complex(x).imag)
    raise TypeError(f"{name}={x!r} must be a SymPy expression or a number (text is never parsed)")
