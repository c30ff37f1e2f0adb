"""The RoPE config parser's checks and messages (shared by :mod:`~pe_symbolic.numeric.config` and its
per-type readers, :mod:`~pe_symbolic.numeric._rope_readers`)."""

from __future__ import annotations

import math
import numbers
import sys
import warnings
from collections.abc import Sequence

__all__ = ["UnknownConfigKeyError", "UnknownConfigKeyWarning"]


class UnknownConfigKeyWarning(UserWarning):
    """A config key the parser does not understand (and so does not use), named with its rope type.

    Raised as :class:`UnknownConfigKeyError` instead under ``strict=True``.
    """


class UnknownConfigKeyError(ValueError):
    """A config key the parser does not understand, under ``strict=True``."""


# public under pe_symbolic.numeric.config (where they have always been documented)
UnknownConfigKeyWarning.__module__ = UnknownConfigKeyError.__module__ = "pe_symbolic.numeric.config"


def _unknown(message: str, strict: bool) -> None:
    if strict:
        raise UnknownConfigKeyError(message)
    warnings.warn(message, UnknownConfigKeyWarning, stacklevel=_user_stacklevel())



def _is_number(v: object) -> bool:
    return isinstance(v, numbers.Real) and not isinstance(v, bool)


def _real(where: str, key: str, value: object, *, minimum: float | None = None,
          strict: bool = False, what: str = "", index: int | None = None) -> float:
    """``value`` as a finite float, else a TypeError/ValueError naming ``where[key]``."""
    name = f"{where}[{key!r}]" if where else key
    if index is not None:
        name += f"[{index}]"
    if not _is_number(value):
        raise TypeError(f"{name}={value!r} must be a real number{what}")
    try:
        v = float(value)  # type: ignore[arg-type]
    except OverflowError:  # an integer beyond float64's range
        v = math.inf
    if not math.isfinite(v):
        raise ValueError(f"{name}={value!r} must be finite{what}")
    if minimum is not None and (v <= minimum if strict else v < minimum):
        rel = ">" if strict else ">="
        raise ValueError(f"{name}={value!r} is not allowed: it must be {rel} {minimum:g}{what}")
    return v


def _int(where: str, key: str, value: object, *, minimum: int = 1, index: int | None = None) -> int:
    """``value`` as an int ``>= minimum`` (a float must be integral), else a TypeError or,
    for an out-of-range or non-finite number, a ValueError naming ``where[key]``."""
    name = f"{where}[{key!r}]" if where else key
    if index is not None:
        name += f"[{index}]"
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        if not _is_number(value):
            raise TypeError(f"{name}={value!r} must be an integer >= {minimum}")
        if not math.isfinite(float(value)):  # type: ignore[arg-type]
            raise ValueError(f"{name}={value!r} must be a finite integer >= {minimum}")
        if float(value) != int(value):  # type: ignore[arg-type]
            raise TypeError(f"{name}={value!r} must be an integer >= {minimum}")
        value = int(value)  # type: ignore[arg-type]
    if int(value) < minimum:
        raise ValueError(f"{name}={value!r} must be an integer >= {minimum}")
    return int(value)


def _factor_list(where: str, key: str, value: object, pairs: int, rope_type: str) -> tuple[float, ...]:
    name = f"{where}[{key!r}]"
    if isinstance(value, (str, bytes)) or not isinstance(value, Sequence):
        raise TypeError(f"{name} must be a list of {pairs} positive numbers (rope_type {rope_type!r}); got {value!r}")
    if len(value) != pairs:
        raise ValueError(
            f"{name} has {len(value)} entries; rope_type {rope_type!r} needs one per rotated pair, "
            f"rotary_dim/2 = {pairs}"
        )
    out = []
    for q, v in enumerate(value):
        out.append(_real(where, key, v, minimum=0.0, strict=True, what=" (a positive factor)", index=q))
    return tuple(out)


def _user_stacklevel() -> int:
    """The stack level of the first frame outside pe_symbolic.numeric (for warnings)."""
    frame, level = sys._getframe(1), 1
    while frame is not None and frame.f_globals.get("__name__", "").startswith("pe_symbolic.numeric"):
        frame, level = frame.f_back, level + 1
    return level
