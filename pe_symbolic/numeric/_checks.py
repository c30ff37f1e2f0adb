"""Argument checks for the numeric layer (NumPy arrays in, clear errors out).

The symbolic-layer checks live in :mod:`pe_symbolic._validate` (which imports no NumPy);
these are the array-valued ones shared by :mod:`pe_symbolic.numeric` and
:mod:`pe_symbolic.reference`. Every error names the parameter, the offending value and what
is allowed; nothing is silently turned into NaN.
"""

from __future__ import annotations

import sys

import numpy as np

from .._validate import check_d

__all__ = [
    "FLOAT_DTYPES",
    "MAX_D",
    "MAX_POSITION",
    "as_dtype",
    "as_positions",
    "bfloat16",
    "check_finite_x",
    "check_float_dtype",
    "check_numeric_d",
    "check_out",
    "check_x",
    "round_to",
]

#: The dtypes NumPy has natively. ``ml_dtypes`` (bfloat16) is imported only where a bfloat16
#: is asked for: its 0.7 release takes about a second to import (it registers casts for a
#: dozen types), which the float64/float32 paths must not pay. An array or dtype object of
#: bfloat16 can exist only once ``ml_dtypes`` is imported, so testing ``sys.modules`` first
#: never misses one.
_NATIVE: tuple[np.dtype, ...] = (np.dtype(np.float64), np.dtype(np.float32), np.dtype(np.float16))


def bfloat16() -> np.dtype:
    """``ml_dtypes.bfloat16`` as a NumPy dtype, importing ``ml_dtypes`` on first use.

    >>> bfloat16()
    dtype(bfloat16)
    """
    import ml_dtypes

    return np.dtype(ml_dtypes.bfloat16)


def is_bfloat16(dtype: object) -> bool:
    """Whether ``dtype`` is ``ml_dtypes.bfloat16``, without importing ``ml_dtypes``.

    >>> is_bfloat16(np.float32), is_bfloat16(bfloat16())
    (False, True)
    """
    return "ml_dtypes" in sys.modules and dtype == bfloat16()


def as_dtype(dtype: object) -> np.dtype:
    """``np.dtype(dtype)``, where the name ``"bfloat16"`` imports ``ml_dtypes`` first (NumPy
    knows that name only once ``ml_dtypes`` registered it).

    >>> as_dtype("float32"), as_dtype("bfloat16")
    (dtype('float32'), dtype(bfloat16))
    """
    try:
        return np.dtype(dtype)  # type: ignore[call-overload]
    except TypeError:
        if isinstance(dtype, str) and dtype == "bfloat16":
            return bfloat16()
        raise


def __getattr__(name: str) -> object:
    # FLOAT_DTYPES names bfloat16, so it is built (and ml_dtypes imported) when first read
    if name == "FLOAT_DTYPES":
        return (*_NATIVE, bfloat16())
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


#: The dtypes the numeric core computes for (read lazily, see ``__getattr__``): float64 and
#: float32 natively; float16 and bfloat16 (``ml_dtypes``) by rounding once from float64
#: (tables) or float32 (rotation).
FLOAT_DTYPES: tuple[np.dtype, ...]
_NAMES = "numpy.float64, numpy.float32, numpy.float16 or ml_dtypes.bfloat16"
#: Largest dimension ``d`` (or rotary dimension) the numeric core accepts: twice the widest
#: published transformer (PaLM's d_model = 18432 < 2**15). Its frequency constants are
#: 40-digit numbers, about 15 us a pair, and the fine table of the default mode is
#: ``256 x d/2`` complex numbers (64 MiB at this limit); without a limit
#: ``sinusoidal_table([0], 10**9)`` ran for minutes and grew past 13 GB.
MAX_D = 2**15

#: Positions must satisfy ``abs(position) < MAX_POSITION``: beyond 2**53 float64 cannot
#: even represent consecutive integers, so a position there means nothing.
MAX_POSITION = 2.0**53


def check_not_framework(value: object, name: str) -> None:
    """Refuse a torch tensor or a JAX array with a :class:`TypeError` naming the backend
    module that takes it (``pe_symbolic.torch`` / ``pe_symbolic.jax``): the NumPy core
    never converts one silently (that would return NumPy arrays, move data off the device
    and drop gradients). Neither framework is imported to check.

    >>> class Tensor:  # stands for torch.Tensor
    ...     pass
    >>> Tensor.__module__ = "torch"
    >>> check_not_framework(Tensor(), "x")
    Traceback (most recent call last):
    TypeError: x is a torch.Tensor; the NumPy core takes NumPy arrays only: use pe_symbolic.torch (same keywords: apply_rope(x, position_ids, config=...)), or pass x.numpy() yourself
    """
    mod = type(value).__module__.split(".")[0]
    if mod == "torch":
        raise TypeError(f"{name} is a torch.Tensor; the NumPy core takes NumPy arrays only: use "
                        "pe_symbolic.torch (same keywords: apply_rope(x, position_ids, config=...)), "
                        f"or pass {name}.numpy() yourself")
    if mod in ("jax", "jaxlib"):
        raise TypeError(f"{name} is a JAX array; the NumPy core takes NumPy arrays only: use "
                        "pe_symbolic.jax (same keywords: apply_rope(x, position_ids, config=...)), "
                        f"or pass numpy.asarray({name}) yourself")


def as_positions(positions: object, *, name: str = "positions", held_as: str | None = None) -> np.ndarray:
    """Return ``positions`` as a float64 array after checking every entry.

    Allowed: real numbers (bool, integer or floating NumPy kinds, and bfloat16) that are
    finite and smaller than ``2**53`` in absolute value. The shape is kept. A float type
    holds every integer only up to ``2**p`` (``p`` the bits of its significand): past it an
    integer position has already been rounded where it was made (float16 holds 2048 for
    2049, and inf from 65520 on; bfloat16 holds 256 for 257), so positions held in float32,
    float16 or bfloat16 must be below ``2**24``, 2048 or 256 in absolute value, else a
    ``ValueError`` names the first position the type cannot hold. 16-bit positions below
    that bound are exact, and are converted with a warning (a longer sequence in the same
    type would be refused). ``held_as``: the dtype the values were held in, where a caller
    widened them first (a framework's 16-bit tensor, read on the host as float32).

    >>> as_positions([0, 1, 2.5])
    array([0. , 1. , 2.5])
    >>> as_positions([0.0, float("nan")])
    Traceback (most recent call last):
    ValueError: positions must be finite real numbers with |position| < 2**53; got nan at index (1,)
    >>> as_positions(1j)
    Traceback (most recent call last):
    TypeError: positions must be real numbers (integer or floating dtype); got dtype complex128
    >>> as_positions(np.arange(3000, dtype=np.float16), name="position_ids")
    Traceback (most recent call last):
    ValueError: position_ids of dtype float16 must be below 2,048 in absolute value: float16 holds every integer only up to 2,048 (2,049 is the first position it cannot hold: it rounds to 2,048); got 2048.0 at index (2048,); hold positions as integers (or float64)
    """
    check_not_framework(positions, name)
    try:
        arr = np.asarray(positions)
    except Exception as exc:  # ragged lists etc.
        raise TypeError(f"{name} must be an array of real numbers; got {positions!r}") from exc
    dtype = held_as or arr.dtype.name
    if arr.dtype.kind not in "iuf" and arr.dtype.name != "bfloat16":
        raise TypeError(
            f"{name} must be real numbers (integer or floating dtype); got dtype {arr.dtype}"
        )
    # Integers below 2**53 convert exactly and rounding is monotone, so checking the
    # converted values is exact for every integer dtype.
    out = arr.astype(np.float64)
    ok = np.isfinite(out) & (np.abs(out) < MAX_POSITION)
    bits = {"float32": 24, "float16": 11, "bfloat16": 8}.get(dtype)
    if bits is not None and not np.isnan(out).any():  # where the type stops holding every integer
        limit = 2 ** bits
        exact = ok & (np.abs(out) < limit)
        if not exact.all():
            idx = tuple(int(v) for v in np.argwhere(~exact)[0])
            raise ValueError(
                f"{name} of dtype {dtype} must be below {limit:,} in absolute value: {dtype} holds every "
                f"integer only up to {limit:,} ({limit + 1:,} is the first position it cannot hold: it "
                f"rounds to {limit:,}); got {float(out[idx])!r} at index {idx}; hold positions as integers "
                "(or float64)"
            )
        if bits < 24:
            import sys
            import warnings

            frame, level = sys._getframe(1), 2  # the first frame outside the package
            while frame is not None and frame.f_globals.get("__name__", "").startswith("pe_symbolic"):
                frame, level = frame.f_back, level + 1
            warnings.warn(
                f"{name} of dtype {dtype}: converted (exact here, every entry below {limit:,}), but {dtype} "
                f"holds every integer only up to {limit:,} ({limit + 1:,} rounds to {limit:,}): a longer "
                "sequence would be refused; hold positions as integers", UserWarning, stacklevel=level)
    if not ok.all():
        idx = tuple(int(v) for v in np.argwhere(~ok)[0])
        raise ValueError(
            f"{name} must be finite real numbers with |position| < 2**53; "
            f"got {float(out[idx])!r} at index {idx}"
        )
    return out


def check_numeric_d(d: object, *, name: str = "d") -> int:
    """A positive even integer no larger than :data:`MAX_D`, else a ``ValueError``.

    >>> check_numeric_d(128)
    128
    >>> check_numeric_d(10**9)
    Traceback (most recent call last):
    ValueError: d=1000000000 is too large: the numeric core accepts d <= 32768 (MAX_D; twice the widest published model)...
    """
    value = check_d(d, name=name)
    if value > MAX_D:
        raise ValueError(
            f"{name}={d!r} is too large: the numeric core accepts {name} <= {MAX_D} (MAX_D; twice "
            "the widest published model), since every pair needs a 40-digit frequency constant "
            "and the default mode caches a 256 x d/2 phasor table"
        )
    return value


def check_float_dtype(dtype: object, *, name: str = "dtype") -> np.dtype:
    """Return ``np.dtype(dtype)`` if it is one of :data:`FLOAT_DTYPES`, else raise ``TypeError``.

    >>> check_float_dtype("float32")
    dtype('float32')
    >>> check_float_dtype("bfloat16")
    dtype(bfloat16)
    >>> check_float_dtype(np.int32)
    Traceback (most recent call last):
    TypeError: dtype=<class 'numpy.int32'> is not supported; use numpy.float64, numpy.float32, numpy.float16 or ml_dtypes.bfloat16
    """
    try:
        dt = np.dtype(dtype)  # type: ignore[call-overload]
    except TypeError:
        # "bfloat16" means something to NumPy only once ml_dtypes is imported
        dt = bfloat16() if isinstance(dtype, str) and dtype == "bfloat16" else None
    if dt is None or not (dt in _NATIVE or is_bfloat16(dt)):
        raise TypeError(f"{name}={dtype!r} is not supported; use {_NAMES}")
    return dt


def check_x(x: object, *, name: str = "x") -> np.ndarray:
    """Return ``x`` as an array of a supported float dtype and at least one dimension.

    >>> check_x(np.zeros(4, np.int64))
    Traceback (most recent call last):
    TypeError: x must have dtype float64, float32, float16 or bfloat16; got int64 (convert it with x.astype(np.float32) or x.astype(np.float64))
    """
    check_not_framework(x, name)
    arr = np.asarray(x)
    if not (arr.dtype in _NATIVE or is_bfloat16(arr.dtype)):
        raise TypeError(
            f"{name} must have dtype float64, float32, float16 or bfloat16; got {arr.dtype} "
            "(convert it with x.astype(np.float32) or x.astype(np.float64))"
        )
    if arr.ndim == 0:
        raise ValueError(f"{name} must have at least one dimension (the feature axis); got a scalar")
    return arr


def check_finite_x(x: np.ndarray, *, name: str = "x") -> None:
    """Raise ``ValueError`` naming the first NaN or infinite entry of ``x`` (if any).

    >>> check_finite_x(np.array([[0.0, 1.0], [np.nan, 2.0]]))
    Traceback (most recent call last):
    ValueError: x has a non-finite entry nan at index (1, 0) (check_finite=True); RoPE would carry it into both outputs of its pair
    """
    ok = np.isfinite(x)
    if not ok.all():
        idx = tuple(int(v) for v in np.argwhere(~ok)[0])
        raise ValueError(
            f"{name} has a non-finite entry {float(x[idx])!r} at index {idx} (check_finite=True); "
            "RoPE would carry it into both outputs of its pair"
        )


def round_to(a: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """Round float64 ``a`` once, to nearest even, to ``dtype`` (any of :data:`FLOAT_DTYPES`).

    NumPy's float64 -> float32 / float16 casts round once. ``ml_dtypes`` before 0.7 converts
    float64 to bfloat16 *through float32*, which rounds twice: ``1 + 2**-8 + 2**-30`` becomes
    ``1`` (a tie in float32, then to even) instead of ``1 + 2**-7``; 0.7 rounds once. So as
    not to depend on which is installed, the float32 step here rounds to *odd* (truncate,
    then set the last bit if anything was dropped), which makes the second rounding correct
    whatever the cast does (float32 has 16 more bits than bfloat16; Boldo & Melquiond,
    "Emulation of FMA and correctly rounded sums: proved algorithms using rounding to odd",
    2008).

    >>> x = np.array([1 + 2**-8 + 2**-30])
    >>> float(round_to(x, bfloat16())[0])  # the nearest bfloat16 (1 + 2**-7)
    1.0078125
    """
    dt = np.dtype(dtype)
    if dt in _NATIVE or not is_bfloat16(dt):
        return np.asarray(a, np.float64).astype(dt)
    a = np.asarray(a, np.float64)
    y = a.astype(np.float32)
    back = y.astype(np.float64)
    inexact = (back != a) & np.isfinite(a) & np.isfinite(back)
    if inexact.any():
        # truncate toward zero: step back one float32 where rounding went away from zero
        away = inexact & (np.abs(back) > np.abs(a))
        bits = y.view(np.uint32).copy()
        bits[away] -= 1  # |y| > 0 here, so this is the float32 next to y toward zero
        bits[inexact] |= 1  # round to odd
        y = bits.view(np.float32)
    return y.astype(dt)


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
