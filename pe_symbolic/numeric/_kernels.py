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
    t: np.ndarray, w_hi: np.ndarray, w_lo: np.ndarray, w_exact=None
) -> tuple[np.ndarray, np.ndarray]:
    """``sin`` and ``cos`` of ``t * w`` (double-double ``w``) to ~1 ulp relative, shape (n, h).

    See the module docstring for the error analysis. Angles of magnitude >= 2**25 (only for
    positions beyond 2**25) use ``sin(p) + cos(p)*e``: absolutely accurate (~1e-16), but
    without the relative guarantee near zeros. Works in chunks of <= ``CHUNK`` entries so
    that the ~30 temporaries stay small (heap, no page faults) and in cache.
    """
    n, h = t.size, w_hi.size
    sin_t = np.empty((n, h))
    cos_t = np.empty((n, h))
    rows = max(1, CHUNK // max(h, 1))
    for s in range(0, n, rows):
        e = min(n, s + rows)
        _sincos_block(t[s:e], w_hi, w_lo, sin_t[s:e], cos_t[s:e], w_exact)
    return sin_t, cos_t


def kernel_sincos(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``sin(x + y)``, ``cos(x + y)`` for ``|x| <= ~pi/4``, ``|y| <= ulp(x)/2`` (fdlibm kernels).

    The polynomials of fdlibm's ``__kernel_sin`` / ``__kernel_cos`` (Sun Microsystems,
    1993; FreeBSD msun ``k_sin.c``, ``k_cos.c``): approximation errors below 2**-58 relative
    on [-pi/4, pi/4]; the tail ``y`` enters to first order. Evaluated with NumPy passes
    in place: ~2.5x faster than ``np.sin`` + ``np.cos`` (scalar libm calls) on 8k-entry
    blocks, and measured within 0.69 (sin) / 0.77 (cos) ulp on 30k random double-double
    arguments, against 0.77 / 0.98 for the library functions plus a first-order correction.
    """
    z = x * x
    v = z * x
    # sin(x+y) = x - ((z*(y/2 - v*r) - y) - v*S1),  r = S2 + z*(S3 + z*(S4 + z*(S5 + z*S6)))
    r = z * _S6
    r += _S5
    r *= z
    r += _S4
    r *= z
    r += _S3
    r *= z
    r += _S2
    r *= v
    u = 0.5 * y
    u -= r
    u *= z
    u -= y
    v *= _S1
    u -= v
    s = x - u
    # cos(x+y) = w + (((1 - w) - z/2) + (z*r - x*y)),  w = 1 - z/2,
    # r = z*(C1 + z*(C2 + z*C3)) + z**4*(C4 + z*(C5 + z*C6))
    w4 = z * z
    w4 *= w4
    a = z * _C3
    a += _C2
    a *= z
    a += _C1
    a *= z
    b = z * _C6
    b += _C5
    b *= z
    b += _C4
    b *= w4
    a += b
    a *= z
    np.multiply(x, y, out=b)
    a -= b
    hz = np.multiply(z, 0.5, out=z)
    w = np.subtract(1.0, hz, out=v)
    q = np.subtract(1.0, w, out=u)
    q -= hz
    q += a
    c = np.add(w, q, out=q)
    return s, c


def _sincos_block(t, w_hi, w_lo, sin_t, cos_t, w_exact=None) -> None:
    p, e = angles_dd(t, w_hi, w_lo)
    at = np.abs(t)
    big = None
    if at.size and at.max() * w_hi.max() >= _CW_LIMIT / 2:
        big = np.abs(p) >= _CW_LIMIT
        if big.any():
            p_big, e_big = p[big], e[big]
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
        sb, cb = np.sin(p_big), np.cos(p_big)
        sin_t[big] = sb + cb * e_big
        cos_t[big] = cb - sb * e_big
    if at.size and at.min() * w_hi.min() < _TINY:
        tiny = np.abs(p) < _TINY
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


def phasors_accurate(t: np.ndarray, w_hi: np.ndarray, w_lo: np.ndarray, swap: bool) -> np.ndarray:
    """Complex (n, h) array ``cos + i sin`` (``sin + i cos`` if ``swap``), accurate route."""
    s, c = sincos_dd(t, w_hi, w_lo)
    z = np.empty(s.shape, dtype=np.complex128)
    if swap:
        z.real, z.imag = s, c
    else:
        z.real, z.imag = c, s
    return z


def _phasor_table(t, w_hi, w_lo, swap: bool, coarse: bool) -> np.ndarray:
    z = phasors_accurate(t, w_hi, w_lo, swap=False)
    if swap:
        # sin + i cos = i * conj(C * F) = (i * conj(C)) * conj(F)
        z = np.conj(z)
        if coarse:
            z *= 1j
    return z


#: Largest fine block of the "run" mode (2**8: a cached table of 256 x d/2 phasors).
_RUN_MAX_LOG2_B = 8


@functools.lru_cache(maxsize=8)
def _fine_table(w_hi: bytes, w_lo: bytes, B: int, swap: bool) -> np.ndarray:
    """``exp(i w j)`` for ``j < B`` (read-only, cached per frequencies, ``B`` and ``swap``)."""
    hi, lo = np.frombuffer(w_hi), np.frombuffer(w_lo)
    z = _phasor_table(np.arange(B, dtype=np.float64), hi, lo, swap, coarse=False)
    z.flags.writeable = False
    return z


@dataclass
class PhasorSource:
    """Phasors ``exp(i * w * t)`` for a flat array of positions, filled block by block.

    Modes: ``"accurate"`` (every entry from :func:`sincos_dd`); ``"run"`` (positions are
    consecutive integers ``t0, t0+1, ...``: coarse table at ``t0 + a*B`` times fine table at
    ``j < B``, one broadcast multiply, no gathers); ``"gather"`` (few distinct coarse parts
    ``B*floor(t/B)`` and fine parts ``t - coarse``: two small tables, gathered per block).
    With ``swap`` the phasors are ``sin + i cos`` (``i * conj``), so the real part always
    fills the first slot of a pair.
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

    def __post_init__(self) -> None:
        t = self.t
        n = t.size
        h = self.w_hi.size
        self.h = h
        self.mode = "accurate"
        self.B = 1
        if self.accurate or n < 64:
            return
        t0 = t[0]
        if (
            t0 == math.floor(t0)
            and abs(t0) + n < 2.0**53
            and np.array_equal(t, t0 + np.arange(n, dtype=np.float64))
        ):
            # The fine table exp(i w j), j < B, is a constant of the frequencies (cached,
            # like them), so the coarse grid can be sparse: n/B accurate rows per call.
            B = 1 << max(3, min(_RUN_MAX_LOG2_B, round(math.log2(n) / 2) + 2))
            self.B = B
            na = -(-n // B)
            self.mode = "run"
            self.C = self._table(t0 + B * np.arange(na, dtype=np.float64), coarse=True)
            self.F = _fine_table(self.w_hi.tobytes(), self.w_lo.tobytes(), B, self.swap)
            return
        B = 1 << max(3, min(10, round(math.log2(n) / 2)))
        self.B = B
        coarse = np.floor(t / B) * B
        fine = t - coarse  # exact
        cu, ci = np.unique(coarse, return_inverse=True)
        fu, fi = np.unique(fine, return_inverse=True)
        if (cu.size + fu.size) * 4 > n:
            return  # tables would not pay: accurate route per entry
        self.mode = "gather"
        self.C = self._table(cu, coarse=True)
        self.F = self._table(fu, coarse=False)
        self.ci = ci.ravel()
        self.fi = fi.ravel()

    def _table(self, t: np.ndarray, *, coarse: bool) -> np.ndarray:
        return _phasor_table(t, self.w_hi, self.w_lo, self.swap, coarse)

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
            _sincos_block(self.t[s:e], self.w_hi, self.w_lo, sin_t, cos_t, self.w_exact)

    def fill(self, start: int, stop: int, dest: np.ndarray) -> None:
        """Write phasors of positions ``t[start:stop]`` into complex ``dest`` (stop-start, h)."""
        if stop <= start:
            return
        if self.mode == "accurate":
            self.fill_pairs(start, stop, dest.real, dest.imag)
        elif self.mode == "gather":
            self.product(self.C[self.ci[start:stop]], self.F[self.fi[start:stop]], out=dest)
        else:
            B = self.B
            C, F = self.C, self.F
            row = start
            # leading partial block
            a, j = divmod(row, B)
            if j:
                end = min(stop, (a + 1) * B)
                self.product(C[a], F[j : j + end - row], out=dest[: end - row])
                row = end
            a0 = row // B
            a1 = stop // B
            if a1 > a0:
                full = (a1 - a0) * B
                view = dest[row - start : row - start + full].reshape(a1 - a0, B, self.h, copy=False)
                self.product(C[a0:a1, None, :], F[None, :, :], out=view)
                row += full
            if row < stop:
                a = row // B
                self.product(C[a], F[: stop - row], out=dest[row - start :])
