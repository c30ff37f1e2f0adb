"""Argument checks for the numeric layer (NumPy arrays in, clear errors out).

The symbolic-layer checks live in :mod:`pe_symbolic._validate` (which imports no NumPy);
these are the array-valued ones shared by :mod:`pe_symbolic.numeric` and
:mod:`pe_symbolic.reference`. Every error names the parameter, the offending value and what
is allowed; nothing is silently turned into NaN.
"""

from __future__ import annotations

import numpy as np

__all__ = ["MAX_POSITION", "as_positions", "check_float_dtype", "check_out", "check_x"]

#: Positions must satisfy ``abs(position) < MAX_POSITION``: beyond 2**53 float64 cannot
#: even represent consecutive integers, so a position there means nothing.
MAX_POSITION = 2.0**53


def as_positions(positions: object, *, name: str = "positions") -> np.ndarray:
    """Return ``positions`` as a float64 array after checking every entry.

    Allowed: real numbers (bool, integer or floating NumPy kinds) that are finite and
    smaller than ``2**53`` in absolute value. The shape is kept.

    >>> as_positions([0, 1, 2.5])
    array([0. , 1. , 2.5])
    >>> as_positions([0.0, float("nan")])
    Traceback (most recent call last):
    ValueError: positions must be finite real numbers with |position| < 2**53; got nan at index (1,)
    >>> as_positions(1j)
    Traceback (most recent call last):
    TypeError: positions must be real numbers (integer or floating dtype); got dtype complex128
    """
    try:
        arr = np.asarray(positions)
    except Exception as exc:  # ragged lists etc.
        raise TypeError(f"{name} must be an array of real numbers; got {positions!r}") from exc
    if arr.dtype.kind not in "iuf":
        raise TypeError(
            f"{name} must be real numbers (integer or floating dtype); got dtype {arr.dtype}"
        )
    # Integers below 2**53 convert exactly and rounding is monotone, so checking the
    # converted values is exact for every integer dtype.
    out = arr.astype(np.float64)
    ok = np.isfinite(out) & (np.abs(out) < MAX_POSITION)
    if not ok.all():
        idx = tuple(int(v) for v in np.argwhere(~ok)[0])
        raise ValueError(
            f"{name} must be finite real numbers with |position| < 2**53; "
            f"got {float(out[idx])!r} at index {idx}"
        )
    return out


def check_float_dtype(dtype: object, *, name: str = "dtype") -> np.dtype:
    """Return ``np.dtype(dtype)`` if it is float32 or float64, else raise ``TypeError``.

    >>> check_float_dtype("float32")
    dtype('float32')
    >>> check_float_dtype(np.int32)
    Traceback (most recent call last):
    TypeError: dtype=<class 'numpy.int32'> is not supported; use numpy.float32 or numpy.float64
    """
    try:
        dt = np.dtype(dtype)
    except TypeError:
        dt = None
    if dt is None or dt not in (np.dtype(np.float32), np.dtype(np.float64)):
        raise TypeError(f"{name}={dtype!r} is not supported; use numpy.float32 or numpy.float64")
    return dt


def check_x(x: object, *, name: str = "x") -> np.ndarray:
    """Return ``x`` as a float32/float64 array of at least one dimension, else ``TypeError``.

    >>> check_x(np.zeros(4, np.int64))
    Traceback (most recent call last):
    TypeError: x must have dtype float32 or float64; got int64 (convert it with x.astype(np.float32) or x.astype(np.float64))
    """
    arr = np.asarray(x)
    if arr.dtype not in (np.dtype(np.float32), np.dtype(np.float64)):
        raise TypeError(
            f"{name} must have dtype float32 or float64; got {arr.dtype} "
            "(convert it with x.astype(np.float32) or x.astype(np.float64))"
        )
    if arr.ndim == 0:
        raise ValueError(f"{name} must have at least one dimension (the feature axis); got a scalar")
    return arr


def check_out(out: object, shape: tuple[int, ...], dtype: np.dtype, *, name: str = "out") -> np.ndarray:
    """Return ``out`` (or a new array if ``None``) after checking its shape, dtype and flags.

    >>> check_out(np.zeros((2, 3)), (2, 4), np.dtype(np.float64))
    Traceback (most recent call last):
    ValueError: out has shape (2, 3); expected (2, 4)
    """
    if out is None:
        return np.empty(shape, dtype=dtype)
    if not isinstance(out, np.ndarray):
        raise TypeError(f"{name} must be a numpy.ndarray or None; got {type(out).__name__}")
    if out.shape != tuple(shape):
        raise ValueError(f"{name} has shape {out.shape}; expected {tuple(shape)}")
    if out.dtype != dtype:
        raise TypeError(f"{name} has dtype {out.dtype}; expected {dtype}")
    if not out.flags.writeable:
        raise ValueError(f"{name} is read-only; pass a writeable array")
    return out
