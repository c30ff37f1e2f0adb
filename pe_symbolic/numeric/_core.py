"""Frequencies as double-doubles and the lowered element formulas shared by tables and RoPE."""

from __future__ import annotations

import functools
from collections.abc import Callable

import numpy as np

from . import _accurate
from . import _kernels as K
from ._checks import check_numeric_d
from .._validate import check_base, check_schedule

__all__ = ["frequencies"]


# ----------------------------------------------------------------------------------------
# frequencies


def _check_numeric_base(base: object) -> float:
    check_base(base)
    try:
        value = float(base)  # type: ignore[arg-type]
    except TypeError as exc:  # a SymPy symbol passes check_base but is not a number
        raise ValueError(f"base={base!r} must be a finite real number greater than 1") from exc
    return value


@functools.lru_cache(maxsize=128)
def _omega_dd(d: int, base: float, schedule: str) -> tuple[np.ndarray, np.ndarray]:
    """Frequencies of ``d`` as a double-double ``(hi, lo)``, read-only, cached (in memory, and
    on disk by :func:`~pe_symbolic.numeric.lower.frequency_dd`: a warm process does not
    import mpmath for them)."""
    from . import lower

    values = lower.frequency_dd(d, base, schedule)
    hi = np.array(values[0], dtype=np.float64)
    lo = np.array(values[1], dtype=np.float64)
    hi.flags.writeable = False
    lo.flags.writeable = False
    return hi, lo


def _omega_exact(d: int, base: float, schedule: str) -> tuple:
    """The frequencies at 40 digits (mpmath), lowered from the SymPy schedule (cached there)."""
    from . import lower

    return lower.frequency_constants(d, base, schedule)


def frequencies(d: int, *, base: float = 10000.0, schedule: str = "vaswani") -> np.ndarray:
    r"""The ``d/2`` angular frequencies :math:`\omega_i` as float64 (correctly rounded).

    Parameters
    ----------
    d : int
        Model dimension, a positive even integer.
    base : float, default 10000.0
        Must exceed 1.
    schedule : {"vaswani", "tensor2tensor"}
        :math:`b^{-2i/d}` or :math:`b^{-i/\max(d/2-1, 1)}`.

    Returns
    -------
    numpy.ndarray
        Shape ``(d/2,)``.

    Examples
    --------
    >>> frequencies(4, base=100.0)
    array([1. , 0.1])
    >>> frequencies(6, base=100.0, schedule="tensor2tensor")
    array([1.  , 0.1 , 0.01])
    """
    d = check_numeric_d(d)
    hi, _ = _omega_dd(d, _check_numeric_base(base), check_schedule(schedule))
    return hi.copy()


# ----------------------------------------------------------------------------------------
# the lowered element formulas


def _with_out(fn):
    """``fn(a, b, out=...)`` for a lowered function: its ufunc if it has one, else a copy.

    A call with a one-element output gets one-dimensional operands. NumPy's complex
    multiply has two inner loops that round differently on CPUs with FMA: the SIMD loop
    computes ``a*c - b*d`` as ``fma(a, c, -(b*d))``, the scalar loop rounds both products.
    A one-element call with a broadcast operand (shape ``(1,)`` against ``(1, 1)``) ran the
    scalar loop, every other call the SIMD loop, so at d = 2 the row of a one-token decode
    differed by an ulp from the same position in a prefill (CI found it at ``t = 2**45 - 1``
    in the tables, and it held for interleaved ``apply_rope`` too). Flat one-element
    operands run the SIMD loop like every other call.
    """
    if getattr(fn, "ufunc", None) is not None:
        f = fn.ufunc
    else:
        def f(a, b, out):
            out[...] = fn(a, b)
            return out

    def call(a, b, out):
        if out.size == 1:
            f(np.reshape(a, 1), np.reshape(b, 1), out=out.reshape(1))
            return out
        return f(a, b, out=out)

    return call


@functools.lru_cache(maxsize=None)
def _phasor_product():
    """``z0 * zj`` lowered from the proved translation claim (see :mod:`pe_symbolic.numeric.lower`)."""
    from . import lower

    return _with_out(lower.phasor_product())


@functools.lru_cache(maxsize=None)
def _rope_product():
    """``zx * w`` lowered from the proved RoPE claim (see :mod:`pe_symbolic.numeric.lower`)."""
    from . import lower

    return _with_out(lower.rope_product())


def _source(t: np.ndarray, w_hi: np.ndarray, w_lo: np.ndarray, accurate: bool, swap: bool,
            w_exact: tuple | Callable[[], tuple] | None = None):
    """The phasor source of positions ``t``; ``w_exact``: the 40-digit frequencies, or a
    function returning them, called only where they are needed (``accurate``, or angles past
    2**25 radians): the fast path of a warm process then imports no mpmath."""
    exact_of = w_exact if callable(w_exact) else (lambda: w_exact)
    # (the quadrant triple only matters past 2**25 radians: computed on first need, as
    # hashing the 40-digit frequencies for its cache cost ~0.1 ms a call)
    w_quad = None if w_exact is None else (lambda: K.quadrant_frequencies(tuple(exact_of())))
    return _accurate.PhasorSource(t.ravel(), w_hi, w_lo, accurate=bool(accurate), swap=swap,
                                  product=_phasor_product(), w_exact=exact_of() if accurate else None,
                                  w_quad=w_quad)
