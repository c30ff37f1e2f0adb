"""The accurate sin/cos route of :mod:`pe_symbolic.numeric._kernels`, blocked for speed.

What this module computes is what :func:`pe_symbolic.numeric._kernels._sincos_block` (the
reference route) computes for each row: the same double-double angles, the same Cody-Waite
reduction, the same fdlibm polynomials and the same quadrant step, operation for operation,
so every result is bitwise the reference's (the tests check this, row by row) and the error
analysis at the top of :mod:`~pe_symbolic.numeric._kernels` applies unchanged. What differs
is the memory pattern and a few exact rewrites:

* every intermediate lives in a preallocated workspace and every NumPy call writes into it
  with ``out=``: the reference allocates about 40 arrays a block, and a fresh allocation
  above glibc's mmap threshold costs page faults;
* blocks are larger (:data:`CHUNK` entries rather than 8192): about 80 NumPy calls a block,
  so the fixed cost of a call (0.3-1 us) is paid over more entries;
* ``k mod 4`` (the quadrant) is read from the low bits of ``k + 1.5 * 2**52`` instead of a
  float-to-int conversion, and the quadrant's two table lookups use ``np.take(...,
  mode="clip")`` (the default mode buffers its output); ``-(k * P2)`` is ``k * (-P2)``;
* the quadrant's products go to contiguous buffers and each output is written once (its
  view may be strided, e.g. the interleaved slots of a table);
* the rare-entry test (``|r| < 2**-46 |angle|``, entries recomputed at 40 digits) first looks
  at ``min |r|``: with ``|angle| < 2**24`` on this path no entry can be rare unless some
  ``|r| < 2**-22``, so the full test runs only then, with the same outcome.

Measured with ``python -m benchmarks`` (tables, against naive float64 in the same run):
(2048, 512) 1.58x -> 1.04x, (8192, 1024) 1.26x -> 0.80x on a 2-core AMD EPYC VM (NumPy 2.4);
1.74x -> 1.56x and 1.38x -> 1.14x on a 16-core Xeon (NumPy 2.5). About 80 float64 NumPy
operations per entry remain (~0.2 ns each in L2 on the EPYC, 0.35-0.75 on the Xeon), against
two scalar libm calls (7-12 ns each) for naive float64: where NumPy's per-call cost is high,
as on that Xeon, no NumPy formulation of this arithmetic reaches naive (a route through
``np.sin``/``np.cos`` of the reduced angle was measured too: 1.5x there, slower still).

**Compiled route** (the optional ``fast`` extra, numba; :mod:`._accurate_fused`). The same
arithmetic as :func:`_fast` (and the rare-entry test) as one loop over the entries, without
``fastmath`` (no fused multiply-add, no reassociation: the tests compare the bytes against
this route and the reference, and check the generated code for ``vfmadd``) and in one
thread. LLVM vectorises it (4 float64 lanes with AVX2): every operation is done once per
entry in registers instead of once per NumPy pass through memory. The rows it does not cover
are handled as here: the reference for rows that may reach 2**24 and for tiny rows (over the
whole call rather than per block: rows are independent), and the rare entries it flags are
recomputed at 40 digits by :func:`~pe_symbolic.numeric._kernels._recompute`. It runs when
numba imports and the call has at least :data:`FUSED_MIN_ENTRIES` entries; :data:`FUSED`
forces either route, :func:`accurate_route` says which one runs. Measured (``python -m
benchmarks --only tables``, 2-core EPYC VM, NumPy 2.4, medians of 3 runs): 0.16-0.22x naive
float64 ((2048, 512) 0.20-0.22x, (8192, 1024) 0.18-0.20x, (65536, 128) 0.16-0.17x), against
0.80-1.15x for the NumPy route in the same runs: 4.5-5.3x faster than the NumPy route: ~4.5
ns an entry in the loop (about 34 instructions an entry: ~90 vector operations per 4
entries, plus reloads of what does not fit in 16 registers), against ~10 ns for one scalar
libm ``sin``. On small tables it was never slower either (4 to 65536 entries in a warm
process: 0.22-0.48x the NumPy route's time), so no per-machine measurement is needed to
choose it: it is the faster correct path wherever numba imports, and the NumPy route the one
where it does not. (Not measured on the 16-core Xeon, where the NumPy route is 1.14-1.56x
naive float64 because of NumPy's per-call cost, which the compiled loop does not pay.) First
use: ~0.2 s to import numba, then ~1.3-1.6 s to compile a destination type (float64 or
float32, strided) the first time on a machine, ~0.25 s to load the first from numba's
on-disk cache in a later process and ~5 ms each further one.

Rows the fast path does not cover are handed to the reference route itself, which stays
the one place that handles them: rows whose angles may reach ``2**24`` (where the
reference's large-angle path starts) go there instead, and rows whose angles may be below
``2**-900`` (the reference's scaled route for tiny angles; in practice ``t = 0``) are
recomputed there after the fast pass -- as runs of consecutive rows of one kind, so a row's
results do not depend on which other rows share its block. (The reference, called on a
block that holds both, overwrites the large-angle rows' sines with their angles: a block
with ``t = 0`` and ``t = 2**30`` gives ``sin = 1.07e9``; this route does not.) A fix to
those paths in ``_kernels`` reaches this route too.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from . import _kernels as K
from ._compiled import OptionalKernel
from ._scratch import scratch

__all__ = ["CHUNK", "FUSED", "FUSED_MIN_ENTRIES", "accurate_route", "sincos_into"]

#: Entries (rows x frequencies) per block. 32768 float64 entries are 256 KiB an array; the
#: workspace holds 10 of them (2.5 MiB, kept per thread between calls), of which 3-6 are in
#: use at any step, so a step's operands mostly come from a 1-2 MiB L2. Measured with
#: ``python -m benchmarks.tune --only accurate`` on both machines of the benchmarks:
#: 32k-64k was fastest, 8k (the reference's block) 10-20% slower, mostly per-call overhead
#: (~80 NumPy calls a block).
CHUNK = 32768

#: With |angle| < 2**24 (the fast path), an entry is "rare" (|r| < 2**-46 |angle|) only if
#: |r| < 2**-22.
_RARE_R = 2.0**-22
_NEG_PIO2_2 = -K._PIO2_2
#: 1.5 * 2**52: for an integer |k| < 2**51, ``k + _MAGIC`` is exact and holds k mod 2**52
#: (two's complement) in the low bits of its significand.
_MAGIC = 6755399441055744.0
_N_BUF = 10
#: float32 outputs: rows with an angle below this (far below any sensible position) go to
#: the reference route, whose float32 sines may underflow to a zero of another sign.
_F32_TINY = 2.0**-120

#: ``None`` runs the compiled loop of the ``fast`` extra (numba, :mod:`._accurate_fused`) for
#: calls of at least :data:`FUSED_MIN_ENTRIES` entries when it imports, and the NumPy route
#: otherwise; ``False`` always the NumPy route; ``True`` always the compiled loop (an
#: ``ImportError`` without numba). For benchmarks and tests: the results are the same.
FUSED: bool | None = None
#: ``FUSED is None``: the compiled loop runs for calls of at least this many entries (rows x
#: frequencies). Smaller calls stay in NumPy, so that a process that only ever makes small
#: accurate tables (doctests, the audit) does not import numba and load the loop (~0.35 s
#: with numba's cache warm, ~1.5 s a destination type cold) to save a millisecond.
FUSED_MIN_ENTRIES = 1 << 16
#: Rare entries whose indices the compiled loop stores per call (more: it runs again).
_RARE_CAP = 256


def _load_loop() -> Callable[..., int]:
    from ._accurate_fused import accurate_rows

    return accurate_rows


#: The compiled loop of the ``fast`` extra (:mod:`._accurate_fused`), imported on first use;
#: ``LOOP.unavailable`` says why it cannot be, if it cannot.
LOOP = OptionalKernel("the compiled accurate loop", _load_loop)


def _workspace(size: int) -> np.ndarray:
    return scratch("accurate", (_N_BUF, size), np.float64)


def sincos_into(t: np.ndarray, w_hi: np.ndarray, w_lo: np.ndarray, sin_t: np.ndarray,
                cos_t: np.ndarray, w_exact=None, chunk: int | None = None, w_quad=None) -> None:
    """``sin_t[r, c], cos_t[r, c] = (sin, cos)(t[r] * (w_hi + w_lo)[c])``, bitwise as the
    reference route :func:`~pe_symbolic.numeric._kernels._sincos_block` writes them.

    Parameters
    ----------
    t : numpy.ndarray
        Positions, 1-D float64 of length n.
    w_hi, w_lo : numpy.ndarray
        Frequencies as a double-double, 1-D float64 of length h.
    sin_t, cos_t : numpy.ndarray
        Destinations of shape (n, h), float64 or float32, any strides (e.g. the imaginary and
        real parts of a complex array).
    w_exact : sequence of mpmath.mpf, optional
        The frequencies at 40 digits: enables the reference's recomputation of rare entries.
    chunk : int, optional
        Entries per block of the NumPy route (default :data:`CHUNK`); the results do not
        depend on it (nor on the route: :data:`FUSED`, :func:`accurate_route`).
    w_quad : tuple of numpy.ndarray, optional
        The frequencies in quadrants, for rows handed to the reference's large-angle path
        (:func:`~pe_symbolic.numeric._kernels.quadrant_frequencies`; computed there if not given).
    """
    n, h = sin_t.shape
    if n == 0 or h == 0:
        return
    if LOOP.wanted(FUSED, n * h >= FUSED_MIN_ENTRIES):
        _sincos_fused(t, w_hi, w_lo, sin_t, cos_t, w_exact, w_quad)
        return
    rows = max(1, (CHUNK if chunk is None else chunk) // h)
    w = _Frequencies(w_hi, w_lo)
    ws = _workspace(min(n, rows) * h)
    for s in range(0, n, rows):
        e = min(n, s + rows)
        _block(t[s:e], w, sin_t[s:e], cos_t[s:e], w_exact, ws, w_quad)


def accurate_route() -> str:
    """The route of the rows :func:`sincos_into` computes itself: ``"numba"`` (the compiled
    loop of the ``fast`` extra) or ``"numpy"``.

    Returns
    -------
    str
        ``"numba"`` when :data:`FUSED` allows it and numba imports, else ``"numpy"``. (With
        ``FUSED is None``, calls below :data:`FUSED_MIN_ENTRIES` entries take NumPy anyway.)

    Raises
    ------
    ImportError
        When :data:`FUSED` is ``True`` and the compiled loop cannot be imported.
    """
    return LOOP.route(FUSED)


class _Frequencies:
    """Per-call constants of the frequencies: their Veltkamp split and extrema."""

    def __init__(self, w_hi: np.ndarray, w_lo: np.ndarray) -> None:
        self.hi, self.lo = w_hi, w_lo
        self.split = K.split(w_hi)
        self.max = float(w_hi.max())
        self.min = float(w_hi.min())


def _runs(mask: np.ndarray) -> list[tuple[int, int, bool]]:
    """``(start, stop, value)`` of the maximal runs of equal values of a 1-D boolean mask."""
    edges = np.flatnonzero(mask[1:] != mask[:-1]) + 1
    bounds = [0, *edges.tolist(), mask.size]
    return [(a, b, bool(mask[a])) for a, b in zip(bounds[:-1], bounds[1:])]


def _block(t: np.ndarray, w: _Frequencies, sin_t: np.ndarray, cos_t: np.ndarray, w_exact,
           ws: np.ndarray, w_quad=None) -> None:
    at = np.abs(t)
    # rows whose angles may reach the reference's large-angle path (|angle| >= 2**24 is where
    # it starts looking): those rows go to the reference, run by run, the others here
    big = at * w.max >= K._CW_LIMIT / 2
    if big.any():
        for a, b, is_big in _runs(big):
            if is_big:
                K._sincos_block(t[a:b], w.hi, w.lo, sin_t[a:b], cos_t[a:b], w_exact, w_quad)
            else:
                _common(t[a:b], at[a:b], w, sin_t[a:b], cos_t[a:b], w_exact, ws)
        return
    _common(t, at, w, sin_t, cos_t, w_exact, ws)


def _sincos_fused(t, w_hi, w_lo, sin_t, cos_t, w_exact, w_quad) -> None:
    """:func:`sincos_into` by the compiled loop: the same partition of the rows as the NumPy
    route (rows that may reach 2**24 to the reference, tiny rows recomputed there; rows are
    independent, so over the whole call rather than per block), the rest in one call."""
    from ._accurate_fused import CONSTANTS  # (imported by LOOP already)

    kernel = LOOP.get()
    n, h = sin_t.shape
    w = _Frequencies(w_hi, w_lo)
    t = np.ascontiguousarray(t, dtype=np.float64)
    if not t.flags.writeable:  # (one compilation for every call: writable C arrays)
        t = t.copy()
    at = np.abs(t)
    rows = max(1, CHUNK // h)  # rows per block of the reference route
    big = at * w.max >= K._CW_LIMIT / 2
    w_pack = np.empty((4, h))
    w_pack[0], w_pack[1], w_pack[2], w_pack[3] = w.hi, w.lo, *w.split
    tiny_at = K._TINY if sin_t.dtype == np.float64 else _F32_TINY
    for a, b, is_big in _runs(big) if big.any() else [(0, n, False)]:
        if is_big:
            _by_reference(t, a, b, rows, w, sin_t, cos_t, w_exact, w_quad)
            continue
        ta, sa, ca = t[a:b], sin_t[a:b], cos_t[a:b]
        rare = np.empty(_RARE_CAP, np.int64)
        count = kernel(ta, w_pack, sa, ca, rare, CONSTANTS)
        if count and w_exact is not None:
            if count > rare.size:  # (the same values again, every index stored this time)
                rare = np.empty(count, np.int64)
                kernel(ta, w_pack, sa, ca, rare, CONSTANTS)
            # the reference's recomputation at 40 digits, row by row (as _rare does)
            r_idx, c_idx = np.divmod(rare[:count], h)
            for r in np.unique(r_idx).tolist():
                mask = np.zeros((1, h), dtype=bool)
                mask[0, c_idx[r_idx == r]] = True
                K._recompute(ta[r : r + 1], w_exact, mask, sa[r : r + 1], ca[r : r + 1])
        tiny = at[a:b] * w.min < tiny_at
        if tiny.any():
            for c, d, is_tiny in _runs(tiny):
                if is_tiny:
                    _by_reference(t, a + c, a + d, rows, w, sin_t, cos_t, w_exact, None)


def _by_reference(t, a, b, rows, w, sin_t, cos_t, w_exact, w_quad) -> None:
    """Rows ``a:b`` by the reference route, in blocks of ``rows`` rows."""
    for s in range(a, b, rows):
        e = min(b, s + rows)
        K._sincos_block(t[s:e], w.hi, w.lo, sin_t[s:e], cos_t[s:e], w_exact, w_quad)


def _common(t, at, w, sin_t, cos_t, w_exact, ws) -> None:
    """Rows whose angles are below 2**24: the reference arithmetic, blocked."""
    n, h = sin_t.shape
    buf = [ws[i, : n * h].reshape(n, h) for i in range(_N_BUF)]
    p, rh = _fast(t[:, None], w, sin_t, cos_t, buf)
    if w_exact is not None:
        _rare(t, p, rh, buf, sin_t, cos_t, w_exact)
    tiny = at * w.min < (K._TINY if sin_t.dtype == np.float64 else _F32_TINY)
    if tiny.any():
        # rows whose angles may be tiny (t = 0 among them): recomputed in place by the
        # reference route, run by run
        for a, b, is_tiny in _runs(tiny):
            if is_tiny:
                K._sincos_block(t[a:b], w.hi, w.lo, sin_t[a:b], cos_t[a:b], w_exact)


def _fast(tc, w, sin_t, cos_t, buf):
    """The reference arithmetic into ``buf``; returns the angle's head ``p`` and the reduced
    angle's head ``rh`` (kept for the rare-entry test). Buffer use is noted per line."""
    b0, b1, b2, b3, b4, b5, b6, b7, b8, b9 = buf
    wh, wl = w.split
    # angles t * (w_hi + w_lo) as p + e: Dekker's two-product (K._angles)
    p = np.multiply(tc, w.hi, out=b0)  # p: b0, kept to the end
    th, tl = K.split(tc)  # columns (n, 1): cheap
    e = np.multiply(th, wh, out=b1)  # e: b1
    e -= p
    e += np.multiply(th, wl, out=b2)  # b2: scratch throughout
    if tl.any():  # (integers below 2**26 have tl == 0)
        e += np.multiply(tl, wh, out=b2)
        e += np.multiply(tl, wl, out=b2)
    e += np.multiply(tc, w.lo, out=b2)
    # Cody-Waite reduction (K._sincos_block)
    k = np.multiply(p, K._TWO_OVER_PI, out=b3)  # k: b3
    np.rint(k, out=k)
    r1 = np.multiply(k, K._PIO2_1, out=b4)
    np.subtract(p, r1, out=r1)  # exact
    b = np.multiply(k, _NEG_PIO2_2, out=b5)  # -(k * P2), exactly
    r2, err = _two_sum(r1, b, b6, b7, b2)  # r2: b6, err: b7; b4, b5 free
    err -= np.multiply(k, K._PIO2_3, out=b2)
    err += e  # b1 free
    rh, rl = _two_sum(r2, err, b8, b9, b2)  # rh: b8, rl: b9; b6, b7 free
    sin_r, c = K.sincos_poly(rh, rl, (b1, b4, b5, b6, b7))  # sin_r: b1, c: b5
    # quadrant q = k mod 4: (sin, cos)(theta) = (a S + b C, a C - b S) with
    # (a, b) = (cos, sin)(q pi/2) in {0, +-1}: exact products, one rounding into the output
    q = np.add(k, _MAGIC, out=b7).view(np.int64)  # k mod 2**52 in the low bits: no convert
    q &= 3
    # (mode="clip": q is in range anyway, and take's default mode buffers its output)
    a = np.take(K._QUAD_COS, q, out=b3, mode="clip")
    bq = np.take(K._QUAD_SIN, q, out=b4, mode="clip")
    # a*S + b*C with the products in contiguous buffers and one (strided) write per output:
    # one of the two products is an exact zero, so the sum is the other product, rounded once
    # into the output's dtype. (The reference rounds a*S to the output's dtype before adding
    # b*C: the same value, and for float32 the same zero signs unless a*S underflows there --
    # the rows where that can happen go to the reference, see _F32_TINY.)
    np.add(np.multiply(a, sin_r, out=b6), np.multiply(bq, c, out=b2), out=sin_t)
    np.subtract(np.multiply(a, c, out=b6), np.multiply(bq, sin_r, out=b2), out=cos_t)
    return p, rh


def _two_sum(a, b, s_out, e_out, tmp):
    """Knuth's two-sum (K.two_sum) into ``s_out`` and ``e_out``; overwrites ``tmp``."""
    s = np.add(a, b, out=s_out)
    bb = np.subtract(s, a, out=tmp)
    # e = (a - (s - bb)) + (b - bb)
    e = np.subtract(s, bb, out=e_out)
    np.subtract(a, e, out=e)
    e += np.subtract(b, bb, out=tmp)
    return s, e


def _rare(t, p, rh, buf, sin_t, cos_t, w_exact) -> None:
    """The reference's test for entries whose reduced angle is tiny relative to the angle
    (recomputed at 40 digits there), run in full only when some ``|r| < 2**-22``."""
    ar = np.abs(rh, out=buf[9])
    if float(ar.min()) >= _RARE_R:
        return
    risky = np.abs(p, out=buf[2])
    risky *= K._RISK
    mask = ar < risky
    if mask.any():
        K._recompute(t, w_exact, mask, sin_t, cos_t)


class PhasorSource(K.PhasorSource):
    """:class:`~pe_symbolic.numeric._kernels.PhasorSource` whose accurate route runs
    :func:`sincos_into` (the same phasors, bit for bit, in larger blocks without temporaries).
    """

    def fill_pairs(self, start: int, stop: int, first: np.ndarray, second: np.ndarray) -> None:
        """As the base class: the real parts of the phasors of ``t[start:stop]`` into
        ``first``, the imaginary parts into ``second`` (any strides and float dtype)."""
        a, b = first[: stop - start], second[: stop - start]
        sin_t, cos_t = (a, b) if self.swap else (b, a)
        sincos_into(self.t[start:stop], self.w_hi, self.w_lo, sin_t, cos_t, self.w_exact, w_quad=self.w_quad)
