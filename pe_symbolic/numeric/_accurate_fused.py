"""The accurate sin/cos of :mod:`pe_symbolic.numeric._accurate` as one compiled loop (the
optional ``fast`` extra: numba).

Imported only by :mod:`pe_symbolic.numeric._accurate`, which keeps its NumPy route when this
module cannot be imported. :func:`accurate_rows` computes, for the rows that route handles
itself (``|angle| < 2**24``), the same float64 operations in the same order as
:func:`pe_symbolic.numeric._accurate._fast` -- Dekker's two-product for the angle, the
Cody-Waite reduction, fdlibm's polynomials (the NumPy kernels' own code,
:func:`pe_symbolic.numeric._kernels.sincos_poly`, compiled in), the quadrant step -- so its results are bit for
bit that route's (and the reference route's): no ``fastmath`` (which would allow
reassociation and fused multiply-adds; the tests compare the bytes, and the generated code
is checked for ``vfmadd``), no ``parallel``. Three rewrites are exact:

* the quadrant ``k mod 4`` is ``m = k - 4 floor(k / 4)`` in float64 (exact for the integers
  ``|k| < 2**24`` of this path) and ``(cos, sin)(q pi/2)`` are chosen by comparisons rather
  than read from a table, so the loop has no gather and no float-to-int conversion and LLVM
  vectorises it; a NaN ``k`` takes quadrant 0, as the NumPy route's magic number does;
* the two-product terms of the position's low half (``tl``) are skipped per row rather than
  per block: they are exact zeros there, and adding a zero leaves ``e`` unchanged (``e`` is
  never ``-0`` at that step);
* each entry's ``(sin, cos)`` is computed into a float64 row buffer and then stored into the
  destinations (any strides, float32 or float64): one rounding to the destination's dtype,
  as NumPy's ``out=`` does.

The rare entries of the reference (``|r| < 2**-46 |angle|``, recomputed there at 40 digits)
are found in the same loop and their flat indices returned; the recomputation stays in
Python (mpmath). Compiled on first use for each pair of destination types and cached on disk
(``cache=True``).
"""

from __future__ import annotations

import hashlib

import numpy as np
from numba import njit
from numba.extending import overload

from . import _kernels as K

__all__ = ["CONSTANTS", "accurate_rows"]

# the constants of pe_symbolic.numeric._kernels (the NumPy route's own)
_SPLITTER = K._SPLITTER
#: The constants of the loop, in the order :func:`accurate_rows` reads them.
CONSTANTS = np.array([K._PIO2_1, -K._PIO2_2, K._PIO2_3, K._TWO_OVER_PI, K._RISK, *K.SINCOS_COEFFICIENTS])
CONSTANTS.flags.writeable = False


# The polynomials are the NumPy kernels' (pe_symbolic.numeric._kernels.sincos_poly), compiled
# for floats: its three array operations into a buffer become the plain operators (the buffers
# are ignored), and everything is inlined into the loop.
@overload(K._mul, inline="always")
def _mul(a, b, out):  # noqa: ANN001, ANN202 - numba's overload protocol
    return lambda a, b, out: a * b


@overload(K._sub, inline="always")
def _sub(a, b, out):  # noqa: ANN001, ANN202
    return lambda a, b, out: a - b


@overload(K._add, inline="always")
def _add(a, b, out):  # noqa: ANN001, ANN202
    return lambda a, b, out: a + b


_sincos_poly = njit(inline="always", error_model="numpy")(K.sincos_poly)


@njit(inline="always", error_model="numpy")
def _entry(tc, th, tl, use_tl, whi, wlo, wh, wl, cst):  # pragma: no cover (compiled)
    """``(sin, cos, rare)`` of ``tc * (whi + wlo)``: the lines of ``_accurate._fast`` (and of
    ``_kernels.sincos_poly``, compiled in) in their order, one entry at a time (``cst``: the
    constants, in the order of :data:`CONSTANTS`)."""
    (pio2_1, neg_pio2_2, pio2_3, two_over_pi, risk, s1, s2, s3, s4, s5, s6,
     c1, c2, c3, c4, c5, c6) = cst
    # angle p + e (Dekker)
    p = tc * whi
    e = th * wh
    e -= p
    e += th * wl
    if use_tl:
        e += tl * wh
        e += tl * wl
    e += tc * wlo
    # Cody-Waite
    k = np.rint(p * two_over_pi)
    r1 = k * pio2_1
    r1 = p - r1
    b = k * neg_pio2_2
    r2 = r1 + b  # two_sum(r1, b)
    bb = r2 - r1
    err = r2 - bb
    err = r1 - err
    err += b - bb
    err -= k * pio2_3
    err += e
    x = r2 + err  # two_sum(r2, err)
    bb = x - r2
    y = x - bb
    y = r2 - y
    y += err - bb
    # fdlibm kernels at x + y: the NumPy kernels' one copy of the polynomials, compiled in
    sr, cr = _sincos_poly(x, y, (x, x, x, x, x), (s1, s2, s3, s4, s5, s6, c1, c2, c3, c4, c5, c6))
    # quadrant m = k mod 4, (qa, qb) = (cos, sin)(m pi/2); NaN -> quadrant 0
    m = k - 4.0 * np.floor(k * 0.25)
    qa = -1.0 if m == 2.0 else (0.0 if (m == 1.0 or m == 3.0) else 1.0)
    qb = 1.0 if m == 1.0 else (-1.0 if m == 3.0 else 0.0)
    s = qa * sr + qb * cr
    c = qa * cr - qb * sr
    return s, c, abs(x) < abs(p) * risk


def accurate_rows(t: np.ndarray, w: np.ndarray, sin_t: np.ndarray, cos_t: np.ndarray,
                  rare: np.ndarray, constants: np.ndarray) -> int:  # pragma: no cover (compiled)
    """``sin_t[i, j], cos_t[i, j] = (sin, cos)(t[i] * (w_hi + w_lo)[j])`` for angles below
    ``2**24``, bitwise as :func:`pe_symbolic.numeric._accurate._fast` writes them.

    Parameters
    ----------
    t : numpy.ndarray
        Positions, 1-D float64 of length n.
    w : numpy.ndarray
        The frequencies, float64 of shape (4, h), C-contiguous: ``w_hi`` and ``w_lo`` (a
        double-double), then the Veltkamp split of ``w_hi`` (``_kernels.split``). One array
        rather than four, so that calls differ only in the destinations' types (one
        compilation each).
    sin_t, cos_t : numpy.ndarray
        Destinations of shape (n, h), float64 or float32, any strides.
    rare : numpy.ndarray of int64
        Receives the flat indices ``i * h + j`` of the entries with ``|r| < 2**-46 |p|`` (the
        reference's rare entries), as many as it holds, in order.
    constants : numpy.ndarray
        :data:`CONSTANTS`. An argument rather than globals: numba folds globals into
        immediates, which the vectorised loop re-materialised at every iteration (46 of its
        150 instructions per 4 entries, moves and broadcasts); read from an array they are
        loaded once (the loop 18% faster, same results).

    Returns
    -------
    int
        The number of rare entries (more than ``rare.size`` means some were not stored).
    """
    n = t.shape[0]
    h = w.shape[1]
    w_hi, w_lo, wh, wl = w[0], w[1], w[2], w[3]
    k = constants
    cst = (k[0], k[1], k[2], k[3], k[4], k[5], k[6], k[7], k[8], k[9], k[10], k[11], k[12],
           k[13], k[14], k[15], k[16])
    srow = np.empty(h)
    crow = np.empty(h)
    count = 0
    for i in range(n):
        tc = t[i]
        c0 = _SPLITTER * tc
        th = c0 - (c0 - tc)
        tl = tc - th
        nr = 0
        if tl != 0.0:
            for j in range(h):
                s, c, flag = _entry(tc, th, tl, True, w_hi[j], w_lo[j], wh[j], wl[j], cst)
                srow[j] = s
                crow[j] = c
                nr += flag
        else:
            for j in range(h):
                s, c, flag = _entry(tc, th, tl, False, w_hi[j], w_lo[j], wh[j], wl[j], cst)
                srow[j] = s
                crow[j] = c
                nr += flag
        for j in range(h):
            sin_t[i, j] = srow[j]
            cos_t[i, j] = crow[j]
        if nr:
            for j in range(h):
                s, c, flag = _entry(tc, th, tl, tl != 0.0, w_hi[j], w_lo[j], wh[j], wl[j], cst)
                if flag:
                    if count < rare.shape[0]:
                        rare[count] = i * h + j
                    count += 1
    return count


# numba's disk cache is keyed on this file (its time stamp and size), but the loop compiles in
# code and a constant of _kernels too (sincos_poly's bytecode, _SPLITTER; the other constants
# are an argument): they are part of the cached function's name, so that an edit of them
# compiles the loop anew instead of loading the old one.
_code = K.sincos_poly.__code__
_SOURCE_KEY = hashlib.sha256(_code.co_code + repr((_code.co_consts, _code.co_names, _SPLITTER)).encode()).hexdigest()[:12]
accurate_rows.__qualname__ = f"accurate_rows_{_SOURCE_KEY}"
accurate_rows = njit(cache=True, nogil=True, error_model="numpy")(accurate_rows)
