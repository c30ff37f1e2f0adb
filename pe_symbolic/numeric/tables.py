"""Sinusoidal tables and translation matrices (see :mod:`pe_symbolic.numeric`).

:func:`sinusoidal_table` is the shared front end's (:mod:`pe_symbolic.numeric._frontend`, the
same checks as :mod:`pe_symbolic.torch` and :mod:`pe_symbolic.jax`), bound to the NumPy core's
backend (:mod:`pe_symbolic.numeric._numpy_backend`).
"""

from __future__ import annotations

import numpy as np

from . import _frontend as F
from . import _kernels as K
from ._checks import as_positions, check_numeric_d
from .._validate import check_layout, check_order, check_schedule
from ._core import _check_numeric_base, _omega_dd, _omega_exact
from ._numpy_backend import NUMPY

__all__ = ["sinusoidal_table", "translation_matrix"]


# ----------------------------------------------------------------------------------------
# tables


sinusoidal_table = F.public(NUMPY, F.sinusoidal_table, module=__name__, doc=r"""The sinusoidal encoding PE(t) for every position: shape ``positions.shape + (d,)``.

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
    dtype : {numpy.float64, numpy.float32, numpy.float16, ml_dtypes.bfloat16}, optional
        Output dtype (default float64); angles are formed in float64 (and better) either way. float16 and
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
    """)


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




