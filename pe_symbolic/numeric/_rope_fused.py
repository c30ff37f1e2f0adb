"""The split-layout RoPE kernel as one compiled loop (the optional ``fast`` extra: numba).

Imported only by :mod:`pe_symbolic.numeric._rope_kernels`, which falls back to its NumPy
kernel when this module cannot be imported (numba absent, or too old or too new for the
installed NumPy). The kernel reads each pair ``(x_a, x_b)`` once and writes its two outputs
once, with the same two products and the same sum per output as the NumPy kernel::

    out_a = fl(fl(x_a * c) + fl(x_b * (-s)))      # = fl(fl(x_a c) - fl(x_b s))
    out_b = fl(fl(x_b * c) + fl(x_a * s))

in ``x``'s dtype (float32 or float64), so its results are bit for bit the NumPy kernel's:
no ``fastmath`` (which would allow reassociation and fused multiply-adds) and no
``parallel`` (one thread, like NumPy's ufunc loops). Compiled on first use for each dtype
(and for a read-only ``x``) and cached on disk (``cache=True``), so a later process loads it.
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["split_rows", "split_rows_inplace", "table_rows"]


@njit(cache=True, nogil=True, error_model="numpy")
def table_rows(z: np.ndarray, cs: np.ndarray, h: int, w: int) -> None:  # pragma: no cover
    """The kernels' float table from the phasors: row ``r`` of ``cs`` (``w * h`` values) gets
    the real parts of ``z[r]`` (``h`` complex), then the imaginary parts, then (``w = 3``, the
    16-bit interleaved kernel) their negations. Exact copies and negations, so the table
    NumPy's ``copyto`` and ``negative`` make; those copy a strided plane at a time (3.6x
    slower: 0.36 ms against 0.10 ms for 4096 rows of 64 pairs, ``w = 3``)."""
    for r in range(z.shape[0]):
        zr = z[r]
        cr = cs[r]
        for j in range(h):
            v = zr[j]
            cr[j] = v.real
            cr[h + j] = v.imag
        if w == 3:
            for j in range(h):
                cr[2 * h + j] = -zr[j].imag


@njit(cache=True, nogil=True, error_model="numpy")
def split_rows(xf: np.ndarray, xoff: np.ndarray, xrow: int, of: np.ndarray, ooff: np.ndarray,
               orow: int, cs: np.ndarray, tidx: np.ndarray, trows: int, tstep: int, s0: int,
               m: int, h: int, g: int) -> None:  # pragma: no cover (compiled)
    """Split-layout RoPE of rows ``s0 .. s0 + m`` of every leading index of ``x``.

    Parameters
    ----------
    xf, of : numpy.ndarray
        1-D views of the memory of ``x`` and ``out`` (element ``k`` of a row at ``k``, unit
        stride); ``of`` may be ``xf``'s memory (in place: a pair is read before it is
        written, and no other pair reads it).
    xoff, ooff : numpy.ndarray of int64
        Offset (in elements) of row 0 of each leading index of ``x`` / ``out``.
    xrow, orow : int
        Stride (in elements) between consecutive rows (positions) of ``x`` / ``out``.
    cs : numpy.ndarray
        The flat table, ``x``'s dtype, of shape ``(P, trows, 2h)``: each row the ``h``
        cosines, then the ``h`` sines (one stream to read rather than two: 0.03-0.07x a
        copy faster in float64).
    tidx : numpy.ndarray of int64
        The table index ``p`` of each leading index of ``x``.
    trows : int
        Rows of the tables.
    tstep : int
        1 when row ``s0 + i`` takes table row ``i``; 0 when every row takes row 0.
    s0, m : int
        First row and number of rows.
    h : int
        Half the rotary dimension.
    g : int
        Leading indices processed together, row by row (each table row is then read from L1
        ``g`` times; ``g`` streams of ``x`` and of ``out`` at once).
    """
    _rows(xf, xoff, xrow, of, ooff, orow, cs, tidx, trows, tstep, s0, m, h, g, None)


@njit(cache=True, nogil=True, error_model="numpy")
def split_rows_inplace(of: np.ndarray, ooff: np.ndarray, orow: int, cs: np.ndarray,
                       tidx: np.ndarray, trows: int, tstep: int, s0: int, m: int, h: int,
                       g: int) -> None:  # pragma: no cover (compiled)
    """:func:`split_rows` with ``x`` the array ``out`` itself. Given as two arrays on one
    buffer, ``x`` and ``out`` fail LLVM's runtime overlap check and every row runs the scalar
    loop (float32 in place: 1.35x a copy against 1.11x out of place); here each row of ``x``
    is copied into a row buffer (2h values, in L1) before it is rotated into ``out``, and the
    loop vectorises. The same arithmetic in the same order: the same bits."""
    row = np.empty(2 * h, of.dtype)
    _rows(of, ooff, orow, of, ooff, orow, cs, tidx, trows, tstep, s0, m, h, g, row)


@njit(inline="always", error_model="numpy")
def _rows(xf, xoff, xrow, of, ooff, orow, cs, tidx, trows, tstep, s0, m, h, g,
          row):  # pragma: no cover (compiled)
    """The loops of :func:`split_rows`; ``row`` a buffer to copy each row of ``x`` into
    first (in place), or ``None``."""
    n = xoff.shape[0]
    for l0 in range(0, n, g):
        for i in range(m):
            for li in range(l0, min(n, l0 + g)):
                xr, orr, tr = row_views(xf, xoff, xrow, of, ooff, orow, cs, tidx, trows, tstep,
                                        s0 + i, i, li, h, 2 * h, row)
                for j in range(h):
                    a = xr[j]
                    b = xr[h + j]
                    cc = tr[j]
                    ss = tr[h + j]
                    orr[j] = a * cc + b * -ss
                    orr[h + j] = b * cc + a * ss


@njit(inline="always", error_model="numpy")
def row_views(xf, xoff, xrow, of, ooff, orow, cs, tidx, trows, tstep, r, i, li, h, w,
              row):  # pragma: no cover (compiled)
    """``(x row, out row, table row)`` of row ``r`` (table row ``i``) of leading index ``li``:
    contiguous slices, over which LLVM vectorises the loop (indexing the flat buffers with
    computed offsets kept it scalar, at 2.5x a copy); table rows of ``w`` values. With a
    ``row`` buffer (in place) x's row is copied into it first and that copy is returned."""
    xa = xoff[li] + r * xrow
    oa = ooff[li] + r * orow
    tb = (tidx[li] * trows + i * tstep) * w
    xr = xf[xa : xa + 2 * h]
    if row is not None:  # in place: x's row copied before out's is written
        for k in range(2 * h):
            row[k] = xr[k]
        xr = row
    return xr, of[oa : oa + 2 * h], cs[tb : tb + w]
