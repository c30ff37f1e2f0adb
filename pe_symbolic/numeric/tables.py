"""Sinusoidal tables and translation matrices (see :mod:`pe_symbolic.numeric`)."""

from __future__ import annotations

import functools

import numpy as np

from . import _kernels as K
from ._checks import as_positions, check_float_dtype, check_numeric_d, check_out, round_to
from .._validate import check_layout, check_order, check_schedule
from ._core import _check_numeric_base, _omega_dd, _omega_exact, _source

__all__ = ["sinusoidal_table", "translation_matrix"]


# ----------------------------------------------------------------------------------------
# tables


def _slot_views(arr2d: np.ndarray, layout: str) -> tuple[np.ndarray, np.ndarray]:
    """Views (first slots, second slots) of an (n, d) array for ``layout``."""
    h = arr2d.shape[-1] // 2
    if layout == "interleaved":
        return arr2d[:, 0::2], arr2d[:, 1::2]
    return arr2d[:, :h], arr2d[:, h:]


def _write_pairs(src: K.PhasorSource, out2d: np.ndarray, layout: str) -> None:
    """Fill ``out2d`` (n, d): real part of each phasor in the first slot, imaginary in the second."""
    n = out2d.shape[0]
    if n == 0:
        return
    if src.mode == "accurate":
        first, second = _slot_views(out2d, layout)
        src.fill_pairs(0, n, first, second)
        return
    if layout == "interleaved" and out2d.flags.c_contiguous:
        cdt = np.complex64 if out2d.dtype == np.float32 else np.complex128
        dest = out2d.view(cdt)
        if src.mode == "run":
            # one broadcast multiply straight into the output (float32: the ufunc casts
            # its complex128 result in small internal buffers)
            src.fill(0, n, dest)
            return
        rows = src.block_rows()
        buf = None if cdt is np.complex128 else np.empty((min(rows, n), src.h), np.complex128)
        for s in range(0, n, rows):
            e = min(n, s + rows)
            if buf is None:
                src.fill(s, e, dest[s:e])
            else:
                src.fill(s, e, buf[: e - s])
                dest[s:e] = buf[: e - s]
        return
    first, second = _slot_views(out2d, layout)
    rows = src.block_rows()
    buf = np.empty((min(rows, n), src.h), np.complex128)
    for s in range(0, n, rows):
        e = min(n, s + rows)
        b = buf[: e - s]
        src.fill(s, e, b)
        first[s:e] = b.real
        second[s:e] = b.imag


def sinusoidal_table(
    positions,
    d: int,
    *,
    base: float = 10000.0,
    layout: str = "interleaved",
    order: str = "sin_cos",
    schedule: str = "vaswani",
    dtype=np.float64,
    accurate: bool = False,
    out: np.ndarray | None = None,
) -> np.ndarray:
    r"""The sinusoidal encoding PE(t) for every position: shape ``positions.shape + (d,)``.

    Parameters
    ----------
    positions : array_like of real
        Any shape; integer or fractional, finite, ``|t| < 2**53``.
    d : int
        Encoding dimension, a positive even integer.
    base : float, default 10000.0
        Frequency base, > 1.
    layout : {"interleaved", "split"}
        Pair ``i`` in slots ``(2i, 2i+1)`` or ``(i, i + d/2)``.
    order : {"sin_cos", "cos_sin"}
        Which function fills the first slot of a pair.
    schedule : {"vaswani", "tensor2tensor"}
        Frequency schedule, see :func:`frequencies`.
    dtype : {numpy.float64, numpy.float32, numpy.float16, ml_dtypes.bfloat16}
        Output dtype; angles are formed in float64 (and better) either way. float16 and
        bfloat16 are the float64 table rounded once (correctly: not through float32, see
        ``pe_symbolic.numeric._checks.round_to``): within half an ulp of the dtype
        plus 7u.
    accurate : bool, default False
        ``False``: angle addition, absolute error <= 7 u ~ 8e-16 (float64; measured 2.2e-16).
        ``True``: every entry within 1.05 ulp relative (float64; measured 0.75) or correctly
        rounded (float32); about the cost of the naive float64 recipe.
    out : numpy.ndarray, optional
        Destination of the right shape and dtype.

    Returns
    -------
    numpy.ndarray

    Notes
    -----
    .. math:: PE_{t,\,a_i} = \sin(\omega_i t), \quad PE_{t,\,b_i} = \cos(\omega_i t)

    for ``order="sin_cos"``, where :math:`(a_i, b_i)` are pair ``i``'s slots. At ``t = 0``
    every sine is 0 and every cosine 1, exactly.

    Examples
    --------
    >>> sinusoidal_table([0, 1], 4, base=100.0).round(6)
    array([[0.      , 1.      , 0.      , 1.      ],
           [0.841471, 0.540302, 0.099833, 0.995004]])
    >>> sinusoidal_table([1], 4, base=100.0, layout="split", order="cos_sin").round(6)
    array([[0.540302, 0.995004, 0.841471, 0.099833]])
    """
    d = check_numeric_d(d)
    b = _check_numeric_base(base)
    layout = check_layout(layout)
    order = check_order(order)
    schedule = check_schedule(schedule)
    dt = check_float_dtype(dtype)
    t = as_positions(positions)
    shape = t.shape + (d,)
    out = check_out(out, shape, dt)
    if dt.itemsize < 4:  # float16 / bfloat16: the float64 table, rounded once
        out[...] = round_to(sinusoidal_table(t, d, base=b, layout=layout, order=order,
                                             schedule=schedule, accurate=accurate), dt)
        return out
    w_hi, w_lo = _omega_dd(d, b, schedule)
    src = _source(t, w_hi, w_lo, accurate, swap=order == "sin_cos",
                  w_exact=functools.partial(_omega_exact, d, b, schedule))
    if out.flags.c_contiguous:
        _write_pairs(src, out.reshape(-1, d), layout)
    else:
        tmp = np.empty(shape, dt)
        _write_pairs(src, tmp.reshape(-1, d), layout)
        out[...] = tmp
    return out


def translation_matrix(
    k,
    d: int,
    *,
    base: float = 10000.0,
    layout: str = "interleaved",
    order: str = "sin_cos",
    schedule: str = "vaswani",
) -> np.ndarray:
    r"""T(k): the ``d x d`` matrix with ``T(k) @ PE(t) == PE(t + k)`` (float64).

    Parameters
    ----------
    k : array_like of real
        Shift(s); the result has shape ``k.shape + (d, d)``.
    d, base, layout, order, schedule
        As in :func:`sinusoidal_table`.

    Notes
    -----
    Block-diagonal; pair ``i``'s block on its (first, second) slots is
    :math:`\begin{psmallmatrix}\cos\omega_i k & \sin\omega_i k\\ -\sin\omega_i k &
    \cos\omega_i k\end{psmallmatrix}` for ``"sin_cos"`` and its transpose for
    ``"cos_sin"``. ``T(0)`` is the identity; ``T(j) T(k) = T(j + k)``.

    Examples
    --------
    >>> translation_matrix(0, 4)
    array([[1., 0., 0., 0.],
           [0., 1., 0., 0.],
           [0., 0., 1., 0.],
           [0., 0., 0., 1.]])
    >>> T = translation_matrix(3, 8, layout="split")
    >>> pe = lambda t: sinusoidal_table(t, 8, layout="split")
    >>> bool(np.allclose(T @ pe(5), pe(8), atol=1e-15))
    True
    """
    d = check_numeric_d(d)
    b = _check_numeric_base(base)
    layout = check_layout(layout)
    order = check_order(order)
    schedule = check_schedule(schedule)
    kk = as_positions(k, name="k")
    if kk.size * d * d > 2**28:
        raise ValueError(
            f"translation_matrix of {kk.size} shift(s) at d={d} would hold {kk.size * d * d} "
            "float64 entries (> 2**28, 2 GiB); ask for fewer shifts or a smaller d"
        )
    w_hi, w_lo = _omega_dd(d, b, schedule)
    exact = _omega_exact(d, b, schedule)
    s, c = K.sincos_dd(kk.ravel(), w_hi, w_lo, exact, K.quadrant_frequencies(tuple(exact)))
    h = d // 2
    out = np.zeros((kk.size, d, d))
    idx = np.arange(h)
    a, bb = (2 * idx, 2 * idx + 1) if layout == "interleaved" else (idx, idx + h)
    sign = 1.0 if order == "sin_cos" else -1.0
    out[:, a, a] = c
    out[:, bb, bb] = c
    out[:, a, bb] = sign * s + 0.0  # + 0.0: no negative zeros at k = 0
    out[:, bb, a] = 0.0 - sign * s
    return out.reshape(kk.shape + (d, d))


