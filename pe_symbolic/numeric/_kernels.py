"""Private NumPy kernels of :mod:`pe_symbolic.numeric`.

Error analysis (u = 2**-53, the float64 unit roundoff)
------------------------------------------------------
*Angles.* A frequency is held as a double-double ``w_hi + w_lo`` (relative error
<= 2**-106, from a 40-digit constant). For a position ``t`` (a float64) the angle
``t*w`` is formed as ``p + e`` with ``p = fl(t*w_hi)`` and ``e`` the exact rounding error of
that product (Dekker's two-product, Veltkamp splitting; NumPy has no fma) plus
``fl(t*w_lo)``. So ``|p + e - t*w| <= |t*w| * 2**-104``: at ``|t*w| < 2**25`` that is below
``2**-79``.

*Reduction* (:func:`sincos_dd`). With ``k = rint(p * 2/pi)`` and pi/2 split Cody-Waite style into
``P1 + P2 + P3`` (28 + 28 + 53 bits), ``p - k*P1`` is exact (``k < 2**25`` so ``k*P1`` is exact,
and Sterbenz), ``k*P2`` is exact, and the remaining terms are carried as a double-double
``r_hi + r_lo`` with ``|r_lo| <= ulp(r_hi)/2`` and ``|r_hi + r_lo - (theta - k*pi/2)| <= 2**-78``.

*Evaluation.* ``sin`` and ``cos`` of ``r_hi + r_lo`` by fdlibm's kernel polynomials
(:func:`kernel_sincos`; approximation error < 2**-58 relative, the tail entering to first
order), then the quadrant by exact multiplications with 0 and +-1: measured <= 0.77 ulp.
The angle itself carries at most ``2**-104 |angle|``, which moves a value near zero
(``|sin r| >= 0.9 |r|``, ulp >= 2**-53 of the value) by at most
``2**-51 |angle| / (0.9 |r|)`` ulp: below 0.035 ulp unless ``|r| < 2**-46 |angle|`` --
those rare entries (about 3 in 10**7 near 2**24) are recomputed at 40 digits and rounded
once. Total: kernel (measured 0.77, tested <= 1.0) + 0.035 ulp <= 1.05 ulp, the target,
values near zero included. This is the ``accurate=True`` route. float32 output
from it: one more rounding of a value within ~0.8 ulp64 of the truth, i.e. correctly
rounded except when the truth is within 2**-28 ulp32 of a float32 midpoint.

*Angle addition* (default mode). ``exp(i*w*(t0 + j)) = exp(i*w*t0) * exp(i*w*j)`` with both
factors from the accurate route (each component within ~1 ulp <= 2**-53 absolute of the truth,
modulus 1): one complex multiply adds at most ``2u`` per product plus ``u`` for the sum, so the
absolute error of every entry is below ``2*(2u) + 3u = 7u ~ 7.8e-16`` (typically ~2e-16).
This is the translation identity T(j)·PE(t0) = PE(t0 + j) used as an algorithm.

*Reproducible rows.* The default mode always splits a position as ``t = c + j`` with
``c = FINE * floor(t / FINE)`` (``FINE = 256``; ``trunc`` for non-integers; exact), and forms the
entry as ``phasor(c) * phasor(j)``, both factors from the accurate route: an entry depends
on its position (and frequency) only, never on the other positions of the call, so the row
of position ``m`` is bitwise the same in a prefill of ``0..m`` and in a one-token decode.

*Large angles* (:func:`sincos_large`, ``|t*w| >= 2**25``, i.e. positions beyond 2**25).
Cody-Waite is no longer exact there, and the double-double angle ``p + e`` itself carries
up to ``2**-104 |t*w|``, which is ``2**-51`` at ``2**53``. So the angle is not formed at all:
with the frequency in *quadrants*, ``f = w * 2/pi`` held as a triple ``f1 + f2 + f3`` (from
the 40-digit constant; relative error < 2**-150), ``t*f1 = a1 + b1`` and ``t*f2 = a2 + b2``
exactly (Dekker), ``t*f3`` rounded (< 2**-100 quadrants); the integer parts of ``a1`` and
``a2`` (exactly removed: ``a - rint(a)`` is exact) only choose the quadrant, and the
fraction ``r = (a1 - k1) + b1 + (a2 - k2) + b2 + t*f3`` (``|r| <= 1/2`` after one more
``rint``) is summed error-free into a double-double (error < 2**-104), multiplied by pi/2
as a double-double (error < 2**-104 radians) and fed to the same kernel polynomials. The
reduced argument is therefore within ~2**-103 *absolute* of the truth for every
``|t| < 2**53``: entries within 1.05 ulp relative unless ``|r| < 2**-44`` (those are
recomputed at 40 digits in the accurate route), and within ``u`` absolute always.
Before this path existed, ``sin(p) + cos(p)*e`` dropped the second-order term and lost
digits with the angle: 1e-14 at 2**30, 5e-9 at 2**40, 0.1 near 2**53.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

_SPLITTER = 134217729.0  # 2**27 + 1, Veltkamp
_PIO2_1 = float.fromhex("0x1.921fb54000000p+0")  # 28 bits
_PIO2_2 = float.fromhex("0x1.10b4610000000p-30")  # next 28 bits
_PIO2_3 = float.fromhex("0x1.a62633145c06ep-58")  # next 53 bits (residual ~4e-35)
_TWO_OVER_PI = 0.6366197723675814
#: Below this angle, use the scaled route (Dekker's error term would underflow).
_TINY = 2.0**-900
_TINY_EXP = 600
_TINY_SCALE = 2.0**_TINY_EXP
#: Cody-Waite reduction is exact (k*P1, k*P2 representable) while |angle| < this.
_CW_LIMIT = 2.0**25
# fdlibm k_sin.c / k_cos.c coefficients
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
#: A reduced angle |r| below RISK * |angle| may carry > 0.035 ulp from the 2**-104 relative
#: error of the double-double angle: such (rare) entries are recomputed at 40 digits.
_RISK = 2.0**-46
#: Large-angle path: reduced angles below this (relative to 1) are recomputed at 40 digits
#: in the accurate route (their absolute error ~2**-103 is no longer << 1 ulp).
_RISK_LARGE = 2.0**-44
_QUAD_COS = np.array([1.0, 0.0, -1.0, 0.0])
_QUAD_SIN = np.array([0.0, 1.0, 0.0, -1.0])

#: Target number of complex128 entries in a working block (64 KiB: fits L2, and stays
#: below glibc's mmap threshold so temporaries are recycled without page faults).
BLOCK_ENTRIES = 4096
#: Entries per chunk of the accurate route (float64 temporaries of 64 KiB).
CHUNK = 8192


def split(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Veltkamp split ``a = hi + lo`` with 26-bit halves (exact)."""
    c = _SPLITTER * a
    hi = c - (c - a)
    return hi, a - hi


def two_sum(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Knuth's error-free sum: ``s + e == a + b`` exactly."""
    s = a + b
    bb = s - a
    e = (a - (s - bb)) + (b - bb)
    return s, e


def angles_dd(t: np.ndarray, w_hi: np.ndarray, w_lo: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Angles ``t[:, None] * (w_hi + w_lo)[None, :]`` as a double-double ``(p, e)``.

    ``t`` is 1-D (n,), frequencies 1-D (h,); results are (n, h).
    """
    return _angles(t[:, None], w_hi, w_lo)


def _angles(t: np.ndarray, w_hi: np.ndarray, w_lo: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Elementwise (broadcasting) double-double product ``t * (w_hi + w_lo)``."""
    p = t * w_hi
    th, tl = split(t)
    wh, wl = split(w_hi)
    e = th * wh
    e -= p
    e += th * wl
    if t.ndim < 2 or tl.any():  # (integers below 2**26 have tl == 0: skip two products)
        e += tl * wh
        e += tl * wl
    e += t * w_lo
    return p, e


def sincos_dd(
    t: np.ndarray, w_hi: np.ndarray, w_lo: np.ndarray, w_exact=None, w_quad=None
) -> tuple[np.ndarray, np.ndarray]:
    """``sin`` and ``cos`` of ``t * w`` (double-double ``w``) to ~1 ulp relative, shape (n, h).

    See the module docstring for the error analysis. Angles of magnitude >= 2**25 (only for
    positions beyond 2**25) go through :func:`sincos_large` with ``w_quad``, the
    frequencies in quadrants as a triple (:func:`quadrant_frequencies`) or a function
    returning it, called on first need (computed from ``w_exact``, else from
    ``w_hi + w_lo``, when not given). Works in chunks of <= ``CHUNK``
    entries so that the ~30 temporaries stay small (heap, no page faults) and in cache.
    """
    n, h = t.size, w_hi.size
    sin_t = np.empty((n, h))
    cos_t = np.empty((n, h))
    rows = max(1, CHUNK // max(h, 1))
    for s in range(0, n, rows):
        e = min(n, s + rows)
        _sincos_block(t[s:e], w_hi, w_lo, sin_t[s:e], cos_t[s:e], w_exact, w_quad)
    return sin_t, cos_t


#: fdlibm's coefficients in the order :func:`sincos_poly` takes them (``S1 .. S6``, ``C1 .. C6``).
SINCOS_COEFFICIENTS = (_S1, _S2, _S3, _S4, _S5, _S6, _C1, _C2, _C3, _C4, _C5, _C6)


def kernel_sincos(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``sin(x + y)``, ``cos(x + y)`` for ``|x| <= ~pi/4``, ``|y| <= ulp(x)/2`` (fdlibm kernels).

    The polynomials of fdlibm's ``__kernel_sin`` / ``__kernel_cos`` (Sun Microsystems,
    1993; FreeBSD msun ``k_sin.c``, ``k_cos.c``): approximation errors below 2**-58 relative
    on [-pi/4, pi/4]; the tail ``y`` enters to first order. Evaluated with NumPy passes
    in place (:func:`sincos_poly`, into five new arrays): ~2.5x faster than ``np.sin`` +
    ``np.cos`` (scalar libm calls) on 8k-entry blocks, and measured within 0.69 (sin) / 0.77
    (cos) ulp on 30k random double-double arguments, against 0.77 / 0.98 for the library
    functions plus a first-order correction.

    >>> s, c = kernel_sincos(np.array([0.5]), np.array([0.0]))
    >>> bool(s[0] == np.sin(0.5)), bool(abs(c[0] - np.cos(0.5)) <= 2**-53)
    (True, True)
    """
    return sincos_poly(x, y, tuple(np.empty_like(x) for _ in range(5)))


def _mul(a: Any, b: Any, out: Any) -> Any:
    """``a * b`` into the array ``out`` (no new array); compiled for floats as ``a * b``
    (``pe_symbolic.numeric._accurate_fused``)."""
    return np.multiply(a, b, out=out)


def _sub(a: Any, b: Any, out: Any) -> Any:
    """``a - b`` into the array ``out``; compiled for floats as ``a - b``."""
    return np.subtract(a, b, out=out)


def _add(a: Any, b: Any, out: Any) -> Any:
    """``a + b`` into the array ``out``; compiled for floats as ``a + b``."""
    return np.add(a, b, out=out)


def sincos_poly(x: Any, y: Any, out: tuple[Any, ...],
                coefficients: tuple[float, ...] = SINCOS_COEFFICIENTS) -> tuple[Any, Any]:
    """fdlibm's polynomials (:func:`kernel_sincos`) at ``x + y``, into the five buffers ``out``
    (shape of ``x``; may be reused between calls, never ``x`` or ``y``): returns
    ``(sin, cos)`` as ``(out[0], out[2])``, and allocates nothing.

    The one copy of these polynomials. :func:`kernel_sincos` gives it new buffers, the
    accurate route (``pe_symbolic.numeric._accurate``) its workspace, and the compiled loop
    of the ``fast`` extra (``pe_symbolic.numeric._accurate_fused``) compiles it for floats
    (``_mul``, ``_sub``, ``_add`` as the plain operators, ``out`` ignored, ``coefficients`` an
    argument there: numba would fold globals into immediates that its vectorised loop
    re-materialises). Every route performs the same float64 operations in the same order,
    hence the same bits.

    >>> x, y = np.array([0.5, -0.25]), np.array([1e-17, 0.0])
    >>> out = tuple(np.empty(2) for _ in range(5))
    >>> s, c = sincos_poly(x, y, out)
    >>> s is out[0] and c is out[2], np.array_equal(s, kernel_sincos(x, y)[0])
    (True, True)
    """
    s1, s2, s3, s4, s5, s6, c1, c2, c3, c4, c5, c6 = coefficients
    o_sin, t1, t2, t3, t4 = out
    z = _mul(x, x, t1)
    v = _mul(z, x, t2)
    # sin(x+y) = x - ((z*(y/2 - v*r) - y) - v*S1),  r = S2 + z*(S3 + z*(S4 + z*(S5 + z*S6)))
    r = _mul(z, s6, t3)
    r += s5
    r *= z
    r += s4
    r *= z
    r += s3
    r *= z
    r += s2
    r *= v
    u = _mul(0.5, y, t4)
    u -= r
    u *= z
    u -= y
    v *= s1
    u -= v
    s = _sub(x, u, o_sin)
    # cos(x+y) = w + (((1 - w) - z/2) + (z*r - x*y)),  w = 1 - z/2,
    # r = z*(C1 + z*(C2 + z*C3)) + z**4*(C4 + z*(C5 + z*C6))
    w4 = _mul(z, z, t2)
    w4 *= w4
    a = _mul(z, c3, t3)
    a += c2
    a *= z
    a += c1
    a *= z
    b = _mul(z, c6, t4)
    b += c5
    b *= z
    b += c4
    b *= w4
    a += b
    a *= z
    b = _mul(x, y, b)
    a -= b
    hz = _mul(z, 0.5, z)
    w = _sub(1.0, hz, t4)
    q = _sub(1.0, w, t2)
    q -= hz
    q += a
    c = _add(w, q, q)
    return s, c


def _sincos_block(t, w_hi, w_lo, sin_t, cos_t, w_exact=None, w_quad=None) -> None:
    p, e = angles_dd(t, w_hi, w_lo)
    at = np.abs(t)
    big = None
    if at.size and at.max() * w_hi.max() >= _CW_LIMIT / 2:
        big = np.abs(p) >= _CW_LIMIT
        if big.any():
            p = np.where(big, 0.0, p)
            e = np.where(big, 0.0, e)
        else:
            big = None
    k = np.rint(p * _TWO_OVER_PI)
    r1 = k * _PIO2_1
    np.subtract(p, r1, out=r1)  # exact
    r2, err = two_sum(r1, -(k * _PIO2_2))
    err -= k * _PIO2_3
    err += e
    rh, rl = two_sum(r2, err)
    sin_r, c = kernel_sincos(rh, rl)
    # quadrant q = k mod 4: (sin, cos)(theta) = (a S + b C, a C - b S) with
    # (a, b) = (cos, sin)(q pi/2) in {0, +-1}: exact products, one rounding into the output
    q = k.astype(np.int64)
    q &= 3
    a = _QUAD_COS.take(q)
    b = _QUAD_SIN.take(q)
    np.multiply(a, sin_r, out=sin_t)
    sin_t += b * c
    np.multiply(a, c, out=cos_t)
    cos_t -= b * sin_r
    if big is not None:
        rows, cols = np.nonzero(big)
        if w_quad is None:
            w_quad = quadrant_frequencies(w_exact if w_exact is not None else (w_hi, w_lo))
        elif callable(w_quad):  # computed on first need
            w_quad = w_quad()
        f1, f2, f3 = w_quad
        sb, cb, rb = sincos_large(t[rows], f1[cols], f2[cols], f3[cols])
        sin_t[rows, cols] = sb
        cos_t[rows, cols] = cb
        if w_exact is not None:
            risky_big = np.abs(rb) < _RISK_LARGE
            if risky_big.any():
                mask = np.zeros(big.shape, dtype=bool)
                mask[rows[risky_big], cols[risky_big]] = True
                _recompute(t, w_exact, mask, sin_t, cos_t)
    if at.size and at.min() * w_hi.min() < _TINY:
        tiny = np.abs(p) < _TINY
        if big is not None:
            tiny &= ~big  # (p was zeroed there)
        if tiny.any():
            # Dekker's error term underflows near the subnormals: there sin(x) = x to far
            # below an ulp, so form x in a scaled range and scale back (one more rounding,
            # exact unless the result is subnormal).
            ts = np.broadcast_to(t[:, None] * _TINY_SCALE, p.shape)[tiny]
            ws = np.broadcast_to(w_hi, p.shape)[tiny]
            wl = np.broadcast_to(w_lo, p.shape)[tiny]
            ps, es = _angles(ts, ws, wl)
            sin_t[tiny] = np.ldexp(ps + es, -_TINY_EXP)
    if w_exact is not None:
        risky = np.abs(p)
        risky *= _RISK
        risky = np.abs(rh) < risky
        if risky.any():
            _recompute(t, w_exact, risky, sin_t, cos_t)


def _recompute(t, w_exact, mask, sin_t, cos_t) -> None:
    """Entries whose reduced angle is tiny relative to the angle: 40 digits, rounded once."""
    import mpmath

    with mpmath.workdps(40):
        for r, c in zip(*np.nonzero(mask)):
            theta = mpmath.mpf(float(t[r])) * w_exact[c]
            sin_t[r, c] = float(mpmath.sin(theta))
            cos_t[r, c] = float(mpmath.cos(theta))


def two_prod(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Dekker's error-free product: ``p + e == a * b`` exactly (no overflow, no underflow)."""
    p = a * b
    ah, al = split(a)
    bh, bl = split(b)
    e = ah * bh - p
    e += ah * bl
    e += al * bh
    e += al * bl
    return p, e


_PIO2_HI = float.fromhex("0x1.921fb54442d18p+0")
_PIO2_LO = float.fromhex("0x1.1a62633145c07p-54")


def quadrant_frequencies(w: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The frequencies in quadrants, ``w * 2/pi``, as a float64 triple ``f1 + f2 + f3``.

    ``w`` is a sequence of mpmath numbers (the 40-digit constants) or a double-double
    ``(w_hi, w_lo)`` (taken as the exact sum). Computed at 60 digits; the triple is within
    2**-150 relative of ``w * 2/pi`` (less the error of ``w`` itself). Cached.
    """
    if isinstance(w, tuple) and len(w) == 2 and isinstance(w[0], np.ndarray):
        key: tuple = ("dd", w[0].tobytes(), w[1].tobytes())
    else:
        key = ("exact", tuple(w))  # mpmath numbers hash by their exact binary value
    return _quadrant_cached(key)


@functools.lru_cache(maxsize=64)
def _quadrant_cached(key: tuple) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    import mpmath

    with mpmath.workdps(60):
        if key[0] == "dd":
            hi, lo = np.frombuffer(key[1]), np.frombuffer(key[2])
            values = [mpmath.mpf(float(a)) + mpmath.mpf(float(b)) for a, b in zip(hi, lo)]
        else:
            values = [+mpmath.mpf(v) for v in key[1]]
        scale = 2 / mpmath.pi
        parts: list[list[float]] = [[], [], []]
        for v in values:
            rest = v * scale
            for q in range(3):
                x = float(rest)
                parts[q].append(x)
                rest -= x
    out = tuple(np.array(q, dtype=np.float64) for q in parts)
    for a in out:
        a.flags.writeable = False
    return out  # type: ignore[return-value]


def sincos_large(t: np.ndarray, f1: np.ndarray, f2: np.ndarray, f3: np.ndarray
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``sin`` and ``cos`` of ``t * w`` for any ``|t| < 2**53``, from ``w`` in quadrants.

    Elementwise (``t`` and the three parts broadcast). Returns ``(sin, cos, r)`` with ``r``
    the reduced angle in radians (``|r| <= pi/4``), which the accurate route uses to find
    the rare entries to recompute. See the module docstring ("Large angles") for the error
    analysis: the reduced angle is within ~2**-103 of the truth, absolutely.
    """
    a1, b1 = two_prod(t, f1)
    a2, b2 = two_prod(t, f2)
    k1 = np.rint(a1)
    k2 = np.rint(a2)
    x1 = a1 - k1  # exact: |x1| <= 1/2 and a multiple of ulp(a1)
    x2 = a2 - k2  # exact, likewise
    s, c = two_sum(x1, b1)  # |x1|, |b1| <= 1/2
    s, c2 = two_sum(s, x2)
    c += c2
    c += b2
    c += t * f3
    k3 = np.rint(s)
    s -= k3  # exact: |s| <= 3/2 + tiny
    s, c = two_sum(s, c)
    # quadrant count mod 4 (k1 < 2**52.4 is an exact integer in float64; fmod is exact)
    q = (np.fmod(k1, 4.0) + np.fmod(k2, 4.0) + k3).astype(np.int64) & 3
    # radians: (s + c) * (pi/2 as hi + lo), a double-double product
    rh, rl = two_prod(s, np.full_like(s, _PIO2_HI))
    rl += s * _PIO2_LO + c * _PIO2_HI
    rh, rl = two_sum(rh, rl)
    sin_r, cos_r = kernel_sincos(rh, rl)
    a = _QUAD_COS.take(q)
    b = _QUAD_SIN.take(q)
    sin_t = a * sin_r + b * cos_r
    cos_t = a * cos_r - b * sin_r
    return sin_t, cos_t, rh


def phasors_accurate(t: np.ndarray, w_hi: np.ndarray, w_lo: np.ndarray, swap: bool,
                     w_quad=None) -> np.ndarray:
    """Complex (n, h) array ``cos + i sin`` (``sin + i cos`` if ``swap``), accurate route."""
    s, c = sincos_dd(t, w_hi, w_lo, w_quad=w_quad)
    z = np.empty(s.shape, dtype=np.complex128)
    if swap:
        z.real, z.imag = s, c
    else:
        z.real, z.imag = c, s
    return z


def _phasor_table(t, w_hi, w_lo, swap: bool, coarse: bool, w_quad=None) -> np.ndarray:
    z = phasors_accurate(t, w_hi, w_lo, swap=False, w_quad=w_quad)
    if swap:
        # sin + i cos = i * conj(C * F) = (i * conj(C)) * conj(F)
        z = np.conj(z)
        if coarse:
            z *= 1j
    return z


#: The fine block of the default mode: ``t = c + j`` with ``c = FINE * floor(t / FINE)``.
#: Fixed (not chosen per call), so that an entry depends on its position only.
FINE = 256


def coarse_part(t: np.ndarray) -> np.ndarray:
    """``c`` of the split ``t = c + j`` of the default mode (a function of ``t`` alone).

    Integers: ``c = FINE * floor(t / FINE)``, so ``j`` is an integer in ``[0, FINE)``
    (the cached fine table). Other positions: ``c = FINE * trunc(t / FINE)``, so
    ``|j| < FINE``; ``t - c`` is exact either way (``c`` and ``t`` have the same sign and
    ``|c| <= |t| < |c| + FINE``, Sterbenz), where ``floor`` would round ``t - c`` for a tiny
    negative ``t`` (``-1e-38 + 256``).
    """
    q = t / FINE  # exact (FINE is a power of 2; no underflow at the positions allowed)
    return np.where(t == np.floor(t), np.floor(q), np.trunc(q)) * FINE


@functools.lru_cache(maxsize=8)
def _fine_table(w_hi: bytes, w_lo: bytes, B: int, swap: bool) -> np.ndarray:
    """``exp(i w j)`` for ``j < B`` (read-only, cached per frequencies, ``B`` and ``swap``)."""
    hi, lo = np.frombuffer(w_hi), np.frombuffer(w_lo)
    z = _phasor_table(np.arange(B, dtype=np.float64), hi, lo, swap, coarse=False)
    z.flags.writeable = False
    return z


#: Most entries (positions x frequencies) of a coarse table kept by :func:`_coarse_table`
#: (512 KiB of complex128: the coarse rows of 128k positions at d = 128).
COARSE_CACHE_ENTRIES = 32768


@functools.lru_cache(maxsize=16)
def _coarse_table(w_hi: bytes, w_lo: bytes, c: bytes, swap: bool) -> np.ndarray:
    """The coarse table of the positions ``c`` (read-only, cached per frequencies, positions
    and ``swap``). Only for angles below ``_CW_LIMIT / 2``, where the table depends on these
    alone (the quadrant triple of the frequencies, and with it their 40-digit values, is
    read only past that): a decode step's coarse row changes once every ``FINE`` tokens and
    every layer of a model rotates at the same positions, and each table costs ~60 NumPy
    calls (~90 us for one row of 64 frequencies)."""
    hi, lo = np.frombuffer(w_hi), np.frombuffer(w_lo)
    z = _phasor_table(np.frombuffer(c), hi, lo, swap, coarse=True)
    z.flags.writeable = False
    return z


@dataclass
class PhasorSource:
    """Phasors ``exp(i * w * t)`` for a flat array of positions, filled block by block.

    Modes: ``"accurate"`` (every entry from :func:`sincos_dd`); otherwise every position is
    split as ``t = c + j`` by :func:`coarse_part` (``c = FINE * floor(t / FINE)`` for
    integers, so ``0 <= j < FINE``; both exact),
    and its phasor is ``C(c) * F(j)``, two accurate phasors and one complex multiply
    (the translation identity), whatever the other positions: ``"run"`` (consecutive
    integers: the coarse rows are consecutive too, one broadcast multiply per block of
    ``FINE``, no gathers) or ``"gather"`` (any positions: the coarse and fine tables of
    the distinct parts, gathered per block). The fine table of integer ``j < FINE`` is a
    cached constant of the frequencies. With ``swap`` the phasors are ``sin + i cos``
    (``i * conj``), so the real part always fills the first slot of a pair.
    """

    t: np.ndarray
    w_hi: np.ndarray
    w_lo: np.ndarray
    accurate: bool
    swap: bool
    #: ``product(a, b, out=...)``: the complex multiply, lowered from the translation claim
    #: (:func:`pe_symbolic.numeric.lower.phasor_product`) by :mod:`pe_symbolic.numeric`.
    product: Callable[..., Any] = np.multiply
    #: The frequencies at 40 digits (mpmath), for the rare recomputed entries of the
    #: accurate route; ``None`` skips that check (absolute accuracy only).
    w_exact: Any = None
    #: The frequencies in quadrants (:func:`quadrant_frequencies`) for angles >= 2**25, or
    #: a function returning them (called when first needed); computed from ``w_hi + w_lo``
    #: when needed and not given.
    w_quad: Any = None

    def __post_init__(self) -> None:
        t = self.t
        n = t.size
        h = self.w_hi.size
        self.h = h
        self.mode = "accurate"
        self.B = 1
        if self.accurate or n == 0:
            return
        B = self.B = FINE
        t0 = t[0]
        if (
            t0 == math.floor(t0)
            and abs(t0) + n < 2.0**53
            and np.array_equal(t, t0 + np.arange(n, dtype=np.float64))
        ):
            c0 = math.floor(t0 / B) * B
            self.offset = int(t0 - c0)
            na = -(-(self.offset + n) // B)
            self.mode = "run"
            self.C = self._table(c0 + B * np.arange(na, dtype=np.float64), coarse=True)
            self.F = _fine_table(self.w_hi.tobytes(), self.w_lo.tobytes(), B, self.swap)
            return
        coarse = coarse_part(t)
        fine = t - coarse  # exact (see coarse_part)
        cu, ci = np.unique(coarse, return_inverse=True)
        self.mode = "gather"
        self.C = self._table(cu, coarse=True)
        if np.all((fine == np.floor(fine)) & (fine >= 0)):
            self.F = _fine_table(self.w_hi.tobytes(), self.w_lo.tobytes(), B, self.swap)
            fi = fine.astype(np.intp)
        else:
            fu, fi = np.unique(fine, return_inverse=True)
            self.F = self._table(fu, coarse=False)
        self.ci = ci.ravel()
        self.fi = fi.ravel()

    def _table(self, t: np.ndarray, *, coarse: bool) -> np.ndarray:
        if (coarse and 0 < t.size * self.h <= COARSE_CACHE_ENTRIES
                and float(np.abs(t).max()) * float(self.w_hi.max()) < _CW_LIMIT / 2):
            # (the same test as _sincos_block's for its large-angle path, which is not taken)
            return _coarse_table(self.w_hi.tobytes(), self.w_lo.tobytes(),
                                 np.ascontiguousarray(t, np.float64).tobytes(), self.swap)
        return _phasor_table(t, self.w_hi, self.w_lo, self.swap, coarse, self.w_quad)

    def block_rows(self) -> int:
        """Rows per working block (~BLOCK_ENTRIES complex entries; ``fill`` takes any range)."""
        return max(1, BLOCK_ENTRIES // max(self.h, 1))

    def fill_pairs(self, start: int, stop: int, first: np.ndarray, second: np.ndarray) -> None:
        """Accurate route straight into real destinations (any strides/dtype), no temporaries
        beyond a chunk: ``first`` gets the real part of the phasor, ``second`` the imaginary."""
        rows = max(1, CHUNK // max(self.h, 1))
        for s in range(start, stop, rows):
            e = min(stop, s + rows)
            a, b = first[s - start : e - start], second[s - start : e - start]
            sin_t, cos_t = (a, b) if self.swap else (b, a)
            _sincos_block(self.t[s:e], self.w_hi, self.w_lo, sin_t, cos_t, self.w_exact, self.w_quad)

    def fill(self, start: int, stop: int, dest: np.ndarray) -> None:
        """Write phasors of positions ``t[start:stop]`` into complex ``dest`` (stop-start, h)."""
        if stop <= start:
            return
        if self.mode == "accurate":
            self.fill_pairs(start, stop, dest.real, dest.imag)
        elif self.mode == "gather":
            self.product(self.C[self.ci[start:stop]], self.F[self.fi[start:stop]], out=dest)
        else:
            B, o = self.B, self.offset
            C, F = self.C, self.F
            row = start
            # leading partial block: positions t0 + row .. up to the next multiple of B
            a, j = divmod(row + o, B)
            if j:
                end = min(stop, row + B - j)
                self.product(C[a], F[j : j + end - row], out=dest[: end - row])
                row = end
            # whole blocks (row + o is now a multiple of B)
            a0 = (row + o) // B
            nb = (stop - row) // B
            if nb:
                full = nb * B
                view = _as_view(dest[row - start : row - start + full], (nb, B, self.h))
                self.product(C[a0 : a0 + nb, None, :], F[None, :, :], out=view)
                row += full
            if row < stop:
                a = (row + o) // B
                self.product(C[a], F[: stop - row], out=dest[row - start :])


def _as_view(a: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """``a`` reshaped to ``shape`` as a view, for writing through it; an error if NumPy would
    have to copy (what ``reshape(..., copy=False)`` does on NumPy >= 2.1; this package
    supports NumPy 1.26 too). A reshape returns a view or a fresh copy, which never overlaps
    ``a``."""
    v = a.reshape(shape)
    if v.size and not np.may_share_memory(v, a):
        raise ValueError(f"cannot write through a reshape of an array of shape {a.shape} and strides "
                         f"{a.strides} to {shape} without a copy")
    return v
