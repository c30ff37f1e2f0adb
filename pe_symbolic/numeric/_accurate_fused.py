"""The accurate sin/cos of :mod:`pe_symbolic.numeric._accurate` as one compiled loop (the
optional ``fast`` extra: numba).

Imported only by :mod:`pe_symbolic.numeric._accurate`, which keeps its NumPy route when this
module cannot be imported. :func:`accurate_rows` computes, for the rows that route handles
itself (``|angle| < 2**24``), the same float64 operations in the same order as
:func:`pe_symbolic.numeric._accurate._fast` -- Dekker's two-product for the angle, the
Cody-Waite reduction, fdlibm's polynomials, the quadrant step -- so its results are bit for
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

import numpy as np
from numba import njit

__all__ = ["CONSTANTS", "accurate_rows"]

# the constants of pe_symbolic.numeric._kernels, repeated here (checked equal by the tests:
# tests/test_accurate_fast.py)
_SPLITTER = 134217729.0
_PIO2_1 = float.fromhex("0x1.921fb54000000p+0")
_NEG_PIO2_2 = -float.fromhex("0x1.10b4610000000p-30")
_PIO2_3 = float.fromhex("0x1.a62633145c06ep-58")
_TWO_OVER_PI = 0.6366197723675814
_RISK = 2.0**-46
_S1 = -1.66666666666666324348e-01
_S2 = 8.33333333332248946124e-03
_S3 = -1.98412698298579493134e-04
_S4 = 2.75573137070700676789e-06
_S5 = -2.50507602534068634195e-08
_S6 = 1.58969099521155010221e-10
_C1 = 4.16666666666666019037e-02
_C2 = -1.38888888888741095749e-03
_C3 = 2.48015872894767294178e-05
_C4 = -2.75573143513906633035e-07
_C5 = 2.08757232129817482790e-09
_C6 = -1.13596475577881948265e-11
#: The constants of the loop, in the order :func:`accurate_rows` reads them.
CONSTANTS = np.array([_PIO2_1, _NEG_PIO2_2, _PIO2_3, _TWO_OVER_PI, _RISK, _S1, _S2, _S3, _S4,
                      _S5, _S6, _C1, _C2, _C3, _C4, _C5, _C6])
CONSTANTS.flags.writeable = False


@njit(inline="always", error_model="numpy")
def _entry(tc, th, tl, use_tl, whi, wlo, wh, wl, cst):  # pragma: no cover (compiled)
    """``(sin, cos, rare)`` of ``tc * (whi + wlo)``: the lines of ``_accurate._fast`` and
    ``_accurate._kernel_sincos`` in their order, one entry at a time (``cst``: the
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
    # fdlibm kernels at x + y
    z = x * x
    v = z * x
    r = z * s6
    r += s5
    r *= z
    r += s4
    r *= z
    r += s3
    r *= z
    r += s2
    r *= v
    u = 0.5 * y
    u -= r
    u *= z
    u -= y
    v *= s1
    u -= v
    sr = x - u
    w4 = z * z
    w4 *= w4
    a = z * c3
    a += c2
    a *= z
    a += c1
    a *= z
    b2 = z * c6
    b2 += c5
    b2 *= z
    b2 += c4
    b2 *= w4
    a += b2
    a *= z
    a -= x * y
    hz = z * 0.5
    w = 1.0 - hz
    q = 1.0 - w
    q -= hz
    q += a
    cr = w + q
    # quadrant m = k mod 4, (qa, qb) = (cos, sin)(m pi/2); NaN -> quadrant 0
    m = k - 4.0 * np.floor(k * 0.25)
    qa = -1.0 if m == 2.0 else (0.0 if (m == 1.0 or m == 3.0) else 1.0)
    qb = 1.0 if m == 1.0 else (-1.0 if m == 3.0 else 0.0)
    s = qa * sr + qb * cr
    c = qa * cr - qb * sr
    return s, c, abs(x) < abs(p) * risk


@njit(cache=True, nogil=True, error_model="numpy")
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
