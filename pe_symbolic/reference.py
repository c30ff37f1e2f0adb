r"""The mpmath oracle: the papers' formulas evaluated at ``dps`` significant digits.

Written directly from the papers, sharing no code with the symbolic layer (an oracle that
shares code with what it checks checks nothing): it imports neither SymPy nor
:mod:`pe_symbolic`'s symbolic modules.

* Vaswani et al. (2017), section 3.5: :math:`PE_{(t,2i)} = \sin(t / b^{2i/d})`,
  :math:`PE_{(t,2i+1)} = \cos(t / b^{2i/d})`.
* tensor2tensor ``get_timing_signal_1d`` (min_timescale 1, max_timescale ``b``):
  timescale :math:`b^{i/\max(d/2-1,\,1)}`, signal ``concat(sin, cos)``.
* Su et al. (2021), RoFormer eq. (34): pair ``i`` of ``x`` rotated by :math:`m\theta_i`,
  :math:`\theta_i = b^{-2i/d}`.

Positions, ``x`` and ``base`` are taken as the exact binary numbers they are (a float64
``0.1`` is ``0.1000000000000000055...``); every evaluation runs in a local
``mpmath.workdps(dps)`` context and the global mpmath precision is left alone.

Results are NumPy object arrays of :class:`mpmath.mpf` with the same shapes as
:mod:`pe_symbolic.numeric` returns, so ``numeric - reference`` works after
``.astype(float)``-free comparisons (see :func:`to_float`).
"""

from __future__ import annotations

import math
import numbers

import mpmath
import numpy as np

__all__ = ["apply_rope", "frequency", "sinusoidal_table", "to_float"]


# ----------------------------------------------------------------------------------------
# Argument checks. Written here again on purpose: the oracle imports nothing of the package
# (an import-linter contract keeps it so), not even its argument checks.

_LAYOUTS = ("interleaved", "split")
_ORDERS = ("sin_cos", "cos_sin")
_SCHEDULES = ("vaswani", "tensor2tensor")


def _choice(name: str, value: object, allowed: tuple[str, ...]) -> str:
    if isinstance(value, str) and value in allowed:
        return value
    raise ValueError(f"{name}={value!r} is not allowed; use one of {', '.join(map(repr, allowed))}")


def check_layout(layout: object) -> str:
    return _choice("layout", layout, _LAYOUTS)


def check_order(order: object) -> str:
    return _choice("order", order, _ORDERS)


def check_schedule(schedule: object) -> str:
    return _choice("schedule", schedule, _SCHEDULES)


def check_d(d: object, *, name: str = "d") -> int:
    if isinstance(d, bool) or not isinstance(d, numbers.Integral) or int(d) <= 0 or int(d) % 2:
        raise ValueError(f"{name}={d!r} must be a positive even integer")
    return int(d)


def check_base(base: object) -> object:
    if isinstance(base, bool) or not isinstance(base, numbers.Real) or not 1 < float(base) < math.inf:
        raise ValueError(f"base={base!r} must be a finite real number greater than 1")
    return base


def as_positions(positions: object, *, name: str = "positions") -> np.ndarray:
    arr = np.asarray(positions)
    if arr.dtype.kind not in "iuf":
        raise TypeError(f"{name} must be real numbers (integer or floating dtype); got dtype {arr.dtype}")
    out = arr.astype(np.float64)
    if not (np.isfinite(out) & (np.abs(out) < 2.0**53)).all():
        raise ValueError(f"{name} must be finite real numbers with |position| < 2**53")
    return out


def _mpf_base(base: object) -> mpmath.mpf:
    check_base(base)
    try:
        return mpmath.mpf(float(base)) if not isinstance(base, int) else mpmath.mpf(base)
    except TypeError as exc:
        raise ValueError(f"base={base!r} must be a finite real number greater than 1") from exc


def frequency(i: int, d: int, *, base=10000, schedule: str = "vaswani", dps: int = 50) -> mpmath.mpf:
    r"""Angular frequency of pair ``i``: :math:`b^{-2i/d}` or :math:`b^{-i/\max(d/2-1,1)}`.

    >>> mpmath.nstr(frequency(1, 4, base=100), 40)
    '0.1'
    >>> float(frequency(2, 6, base=100, schedule="tensor2tensor"))
    0.01
    """
    d = check_d(d)
    schedule = check_schedule(schedule)
    with mpmath.workdps(dps + 10):
        b = _mpf_base(base)
        if schedule == "vaswani":
            w = mpmath.power(b, -mpmath.mpf(2 * i) / d)
        else:
            w = mpmath.power(b, -mpmath.mpf(i) / max(d // 2 - 1, 1))
    with mpmath.workdps(dps):
        return +w


def _slots(i: int, d: int, layout: str) -> tuple[int, int]:
    return (2 * i, 2 * i + 1) if layout == "interleaved" else (i, i + d // 2)


def sinusoidal_table(
    positions,
    d: int,
    *,
    base=10000,
    layout: str = "interleaved",
    order: str = "sin_cos",
    schedule: str = "vaswani",
    dps: int = 50,
) -> np.ndarray:
    r"""The sinusoidal table at ``dps`` digits: object array of ``mpf``, ``positions.shape + (d,)``.

    Parameters
    ----------
    positions : array_like of real
        Finite, ``|t| < 2**53``; each float64 value is taken exactly.
    d : int
        Positive even dimension.
    base : int or float, default 10000
        Taken exactly (an int stays an int).
    layout, order, schedule : str
        As in :func:`pe_symbolic.numeric.sinusoidal_table`.
    dps : int, default 50
        Significant digits of the result (evaluated with 10 guard digits).

    Returns
    -------
    numpy.ndarray of mpmath.mpf

    Notes
    -----
    Entry ``(t, a_i)`` is :math:`\sin(t\,b^{-2i/d})` (``sin_cos``, Vaswani schedule), computed
    as written; no angle addition, no argument reduction of our own.

    Examples
    --------
    >>> tab = sinusoidal_table([1], 2)
    >>> tab.shape, mpmath.nstr(tab[0, 0], 40)
    ((1, 2), '0.8414709848078965066525023216302989996226')
    """
    d = check_d(d)
    layout = check_layout(layout)
    order = check_order(order)
    schedule = check_schedule(schedule)
    t = as_positions(positions)
    out = np.empty(t.shape + (d,), dtype=object)
    flat = out.reshape(-1, d)
    with mpmath.workdps(dps + 10):
        ws = [frequency(i, d, base=base, schedule=schedule, dps=dps + 10) for i in range(d // 2)]
        for row, tv in enumerate(t.ravel()):
            tm = mpmath.mpf(float(tv))
            for i, w in enumerate(ws):
                s, c = mpmath.sin(tm * w), mpmath.cos(tm * w)
                a, b2 = _slots(i, d, layout)
                first, second = (s, c) if order == "sin_cos" else (c, s)
                flat[row, a] = first
                flat[row, b2] = second
    with mpmath.workdps(dps):
        for idx in range(flat.size):
            flat.flat[idx] = +flat.flat[idx]
    return out


def apply_rope(
    x,
    positions,
    *,
    base=10000,
    layout: str = "split",
    rotary_dim: int | None = None,
    dps: int = 50,
) -> np.ndarray:
    r"""RoPE at ``dps`` digits: object array of ``mpf`` with ``x``'s shape.

    Parameters
    ----------
    x : array_like of real
        Shape ``(..., seq, d)``; values taken exactly.
    positions : array_like of real
        Broadcast against ``x.shape[:-1]``.
    base : int or float, default 10000
    layout : {"split", "interleaved"}
    rotary_dim : int, optional
        Even, ``<= d`` (default ``d``).
    dps : int, default 50

    Returns
    -------
    numpy.ndarray of mpmath.mpf

    Notes
    -----
    Pair ``i`` (slots ``(i, i + r/2)`` for ``"split"``, ``(2i, 2i+1)`` for ``"interleaved"``,
    ``r = rotary_dim``) is rotated by :math:`m\theta_i`,
    :math:`\theta_i = b^{-2i/r}` (RoFormer eq. 34); channels from ``r`` on pass through.

    Examples
    --------
    >>> y = apply_rope(np.array([1.0, 0.0]), 1)
    >>> [float(v) for v in y]
    [0.5403023058681398, 0.8414709848078965]
    """
    xa = np.asarray(x)
    if xa.dtype.kind not in "iuf" or xa.ndim == 0:
        raise TypeError(f"x must be a real array with at least one dimension; got dtype {xa.dtype}")
    layout = check_layout(layout)
    d = xa.shape[-1]
    r = d if rotary_dim is None else check_d(rotary_dim, name="rotary_dim")
    if r > d or r % 2:
        raise ValueError(f"rotary_dim={rotary_dim!r} must be a positive even integer <= d={d}")
    tp = as_positions(positions)
    try:
        t = np.broadcast_to(tp, xa.shape[:-1])
    except ValueError:
        raise ValueError(
            f"positions of shape {tp.shape} do not broadcast against x.shape[:-1] = "
            f"{xa.shape[:-1]}"
        ) from None
    out = np.empty(xa.shape, dtype=object)
    xf = xa.reshape(-1, d)
    tf = t.reshape(-1)
    of = out.reshape(-1, d)
    with mpmath.workdps(dps + 10):
        thetas = [frequency(i, r, base=base, dps=dps + 10) for i in range(r // 2)]
        for row in range(xf.shape[0]):
            m = mpmath.mpf(float(tf[row]))
            for j in range(r, d):
                of[row, j] = mpmath.mpf(float(xf[row, j]))
            for i, th in enumerate(thetas):
                a, b2 = _slots(i, r, layout)
                xa_, xb_ = mpmath.mpf(float(xf[row, a])), mpmath.mpf(float(xf[row, b2]))
                c, s = mpmath.cos(m * th), mpmath.sin(m * th)
                of[row, a] = xa_ * c - xb_ * s
                of[row, b2] = xa_ * s + xb_ * c
    with mpmath.workdps(dps):
        for idx in range(of.size):
            of.flat[idx] = +of.flat[idx]
    return out


def to_float(arr: np.ndarray) -> np.ndarray:
    """Round an object array of ``mpf`` to float64 (nearest).

    >>> to_float(sinusoidal_table([0], 2))
    array([[0., 1.]])
    """
    return np.vectorize(float, otypes=[np.float64])(arr)
