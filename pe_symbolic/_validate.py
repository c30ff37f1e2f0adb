"""Argument checks shared by every layer.

Every public function validates its arguments here, before any SymPy or NumPy work, so
that bad input fails early with one :class:`ValueError` (or :class:`TypeError`) that names
the parameter, the value given and what is allowed. This module imports neither SymPy nor
NumPy.
"""

from __future__ import annotations

import difflib
import numbers
from collections.abc import Iterable

__all__ = [
    "LAYOUTS",
    "ORDERS",
    "SCHEDULES",
    "check_base",
    "check_choice",
    "check_d",
    "check_layout",
    "check_order",
    "check_schedule",
]

#: Where pair ``i`` of a ``d``-vector lives: ``"interleaved"`` -> slots ``(2i, 2i+1)``;
#: ``"split"`` -> slots ``(i, i + d/2)``.
LAYOUTS: tuple[str, ...] = ("interleaved", "split")
#: Which function fills the first slot of a sinusoidal pair.
ORDERS: tuple[str, ...] = ("sin_cos", "cos_sin")
#: Frequency schedules: Vaswani et al. ``base**(-2i/d)``; tensor2tensor's geometric
#: timescales (exponent ``i/(d/2 - 1)``).
SCHEDULES: tuple[str, ...] = ("vaswani", "tensor2tensor")


def check_choice(name: str, value: object, allowed: Iterable[str]) -> str:
    """Return ``value`` if it is one of ``allowed``, else raise a helpful ``ValueError``.

    >>> check_choice("layout", "split", LAYOUTS)
    'split'
    >>> check_choice("layout", "splt", LAYOUTS)
    Traceback (most recent call last):
    ValueError: layout='splt' is not allowed; use one of 'interleaved', 'split' (did you mean 'split'?)
    """
    allowed = tuple(allowed)
    if isinstance(value, str) and value in allowed:
        return value
    options = ", ".join(repr(a) for a in allowed)
    hint = ""
    if isinstance(value, str):
        close = difflib.get_close_matches(value, allowed, n=1)
        if close:
            hint = f" (did you mean {close[0]!r}?)"
    raise ValueError(f"{name}={value!r} is not allowed; use one of {options}{hint}")


def check_layout(layout: object) -> str:
    """Validate a layout name (see :data:`LAYOUTS`)."""
    return check_choice("layout", layout, LAYOUTS)


def check_order(order: object) -> str:
    """Validate a sin/cos order name (see :data:`ORDERS`)."""
    return check_choice("order", order, ORDERS)


def check_schedule(schedule: object) -> str:
    """Validate a frequency schedule name (see :data:`SCHEDULES`)."""
    return check_choice("schedule", schedule, SCHEDULES)


def check_d(d: object, *, name: str = "d", even: bool = True) -> int:
    """Return ``d`` as an ``int`` if it is a positive (even) integer, else raise ``ValueError``.

    Booleans are rejected; integral floats such as ``8.0`` are not (a dimension is a count).

    >>> check_d(8)
    8
    >>> check_d(7)
    Traceback (most recent call last):
    ValueError: d=7 must be a positive even integer (sin/cos pairs need an even dimension)
    >>> check_d(0, even=False)
    Traceback (most recent call last):
    ValueError: d=0 must be a positive integer
    """
    what = "a positive even integer" if even else "a positive integer"
    why = " (sin/cos pairs need an even dimension)" if even else ""
    if isinstance(d, bool) or not isinstance(d, numbers.Integral):
        # SymPy Integers are numbers.Integral; NumPy integers are too.
        raise ValueError(f"{name}={d!r} must be {what}{why}")
    value = int(d)
    if value <= 0 or (even and value % 2):
        raise ValueError(f"{name}={d!r} must be {what}{why}")
    return value


def check_base(base: object, *, name: str = "base") -> object:
    """Return ``base`` if it is a real number greater than 1 (or a SymPy symbol), else raise.

    Symbolic bases are passed through: their assumptions are the caller's business.

    >>> check_base(10000.0)
    10000.0
    >>> check_base(1)
    Traceback (most recent call last):
    ValueError: base=1 must be a finite real number greater than 1
    """
    if _is_symbolic(base):
        return base
    if isinstance(base, bool) or not isinstance(base, numbers.Real):
        raise ValueError(f"{name}={base!r} must be a finite real number greater than 1")
    value = float(base)
    if not (value > 1.0) or value == float("inf"):
        raise ValueError(f"{name}={base!r} must be a finite real number greater than 1")
    return base


def _is_symbolic(value: object) -> bool:
    """True for a SymPy expression that is not a plain number (without importing SymPy)."""
    mod = type(value).__module__ or ""
    if not mod.startswith("sympy"):
        return False
    return not getattr(value, "is_Number", False)
