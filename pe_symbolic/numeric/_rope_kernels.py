"""RoPE kernels: apply per-block phasor tables to ``x`` in as few passes over memory as NumPy
allows (the public functions are in :mod:`pe_symbolic.numeric.rope`).

RoPE is one complex multiply per pair, so its floor is a copy of ``x``: read once, write
once. NumPy runs one loop per call, so the kernels are built from a few calls per *block*
of ``x``, and every call after the first reads data the first one has just brought into
the cache:

* **Interleaved** (pairs ``(2i, 2i+1)``): ``x`` viewed as complex, one complex multiply by
  the phasors ``exp(i m theta)`` -- a single pass. The phasor table of a whole sequence
  (4 MiB at most) is computed once and streamed along with ``x``.
* **Split** (pairs ``(i, i + r/2)``, HF ``rotate_half``): no complex view exists and NumPy
  has no fused multiply-add, so four calls per group of heads::

      out = x * [c, c]             # reads x from memory, writes out
      tmp = swap(x)                # a copy, halves exchanged ([x_b, x_a]); x from L2
      tmp *= [-s, s]
      out += tmp                   # out and tmp from L2

  which rounds exactly as the former ``x*[c, c] + swap(x*[s, -s])``: ``fl(fl(x_a c) -
  fl(x_b s))`` (the same two products; addition commutes). Only the copy reads ``x``
  through the view with exchanged halves, whose inner loops are ``r/2`` long: a copy
  loop pays that less than a multiply (measured: 0.27 against 0.46 ns an element on the
  Xeon, with whole rows at 0.14-0.23). When ``out`` is ``x`` (in place) the swapped copy
  is taken first, so ``x`` is read completely before it is overwritten.

A small ``x`` (``SMALL_BYTES``: a decode step) that makes one block and one group runs the
same calls on the same arrays without the loop's bookkeeping (scratch buffers, the
generator of blocks, the slicing of groups), ~15 us a call less. Below a few hundred KiB
a call's fixed costs (validation, planning, the phasors of the positions, the setup of the
kernel: ~110 us for one token of 32 heads on the EPYC VM) outweigh its arithmetic.

Blocks: the float tables ``[c, c]`` and ``[-s, s]`` of a block of positions (``ROWS_BYTES``
of ``x``'s dtype per leading index) are rounded once to ``x``'s precision and reused for
every leading index of ``x`` (heads, batch); ``x`` is cut into groups of leading indices of
about ``BLOCK_BYTES`` so that a group, its output and ``tmp`` stay in L2 between the calls.
No temporary is as large as ``x``: the only scratch is ``tmp`` (one group) and the tables,
and it comes from per-thread buffers kept between calls (:mod:`._scratch`): fresh memory
would fault on every page it touches, which cost more than filling the tables (one head of
4096 x 128 float64, fused route: a whole call 3.8 ms with fresh tables, 1.6 ms without).

What bounds the ratios (``python -m benchmarks.tune``; x of (4, 8, 4096, 128)): one NumPy
arithmetic pass writing ``out`` already costs 0.9-1.3x a copy (a copy is a ``memcpy``, a
ufunc loop is not), and the interleaved kernel runs at that pass's speed (1.0-1.3x a copy).
The split kernel's three calls after the first cost, per element in L2, about what the
copy costs from memory (Xeon: 0.27 + 0.23 + 0.14 ns against 0.54 ns; EPYC VM: 0.15 + 0.13
+ 0.08 against 0.40 ns), so it lands at 2-3x a copy in NumPy; reaching the copy needs one
fused loop (a compiled kernel), not more NumPy calls.

**Fused split route** (the optional ``fast`` extra, numba; :mod:`._rope_fused`): one
compiled loop reads each pair ``(x_a, x_b)`` once and writes ``out_a = x_a c + x_b (-s)``
and ``out_b = x_b c + x_a s``, the same two products and the same sum, each rounded once in
``x``'s dtype, as the four NumPy calls: results are bit for bit the NumPy kernel's (no
``fastmath``, so no fused multiply-add or reassociation; ``tests/test_rope_fast.py``
compares the bytes). It runs when numba imports and ``x`` has at least ``FUSED_MIN_BYTES``,
or ``FUSED_LOADED_MIN_BYTES`` once a call has imported the kernel (smaller calls, and
layouts it hands back -- a strided last axis, a negative stride -- take the NumPy kernel);
``FUSED`` forces either route. The table of a block of positions (``FUSED_TABLE_BYTES``),
rows of ``h`` cosines then ``h`` sines, is rounded once from the phasors; the loop goes
through ``x`` two leading indices (``FUSED_GROUP``) at a time, row by row, in memory
order, so that fresh output pages are touched in order and each table row is fetched once
per pair of heads. One thread, like NumPy's loops, so the ratios to a
copy compare like with like. The kernel is compiled on first use per dtype and cached on
disk (``cache=True``): ~0.2 s to import numba, then ~0.3-0.6 s to compile a dtype (~0.25 s
to load the first one from the cache in a later process, ~5 ms each further one).

Measured (``python -m benchmarks --only rope``, 2-CPU EPYC VM shared with other work, x of
(4, 8, 4096, 128), medians of 15 runs, NumPy 2.4 / 1.26): float32 0.99x / 1.03x a copy
with ``out=``, 1.10x / 1.11x allocating; float64 1.06x / 1.09x with ``out=``, 1.17-1.38x
allocating: a fresh output is zeroed by the OS on first touch, which costs a loop of
ordinary stores more than it costs ``memcpy`` (128 MiB of float64: ``x.copy()`` +5 ms over
a copy into a used array, ``x * 1.5`` +6.6 ms, a plain numba loop +8.5 ms, this kernel +10
ms). Non-temporal stores do not help on this VM: through LLVM's ``!nontemporal`` they were
not vectorised (1.6x a copy), and written as vector IR (``vmovntpd``, aligned, an
``sfence`` at the end) the same loop took 53-65 ms against 16-23 ms with ordinary stores.
In place 0.74-0.81x (in place uses ``split_rows_inplace``: x and out given as two arrays
on one buffer fail LLVM's runtime overlap check and the loop ran scalar, 1.2-1.35x); the
NumPy kernel 2.0-2.8x. The loop alone (precomputed tables, ``out=``) runs at 0.9x
(float32) and 1.05-1.13x (float64) a copy; the rest is per call, ~0.4-0.7 ms (it was ~1.4
ms before the coarse phasor rows were cached and the table was filled by a compiled loop):
the phasors (as for the interleaved layout), the planning, and the table. (Before the
tables came from scratch memory kept between calls, the first touch of their fresh pages
cost another ~2.5 ms a call: float64 was at 1.30-1.36x.) Above a plain ``x * 1.5`` loop
(0.85-0.9x) the loop pays for reading and writing each row at two places (its halves): a
numba loop of the same shape with constant ``c, s`` runs at 1.0x. Alternatives measured
and dropped: indexing the flat buffers with computed offsets (not vectorised, 2.5x),
reading ``c, s`` from the complex phasors (strided loads cost what the rounding copy
saves), groups of 4 heads or more (more streams than the prefetchers follow), numexpr
(strided halves go through its buffered iterator: 5.4-5.8x with one thread).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from ._compiled import OptionalKernel
from ._scratch import scratch

__all__ = ["half", "interleaved", "split", "split_route"]

#: Split layout: bytes of ``x`` (one leading index) whose positions share one block of the
#: float tables ``[c, c]`` and ``[-s, s]`` (256 rows of a 128-wide float32 head): the tables
#: of a block stay in L2 while every head reads them, and few blocks means few table
#: builds (~5 NumPy calls each).
ROWS_BYTES = 131072
#: Split layout: bytes of ``x`` per group of leading indices. The group, its output and
#: ``tmp`` (3x this) stay in a 2 MiB L2 between the four calls of a group; smaller groups
#: pay NumPy's per-call overhead (~1-3 us) more often.
BLOCK_BYTES = 524288
#: Interleaved layout: bytes of the complex phasor table of one block of positions. One
#: pass over x per block, so fewer, larger blocks win: the table is streamed with x rather
#: than kept in cache (measured on both machines: a whole-sequence table of 2-4 MiB was
#: 10-25% faster than 256 KiB ones).
INTERLEAVED_TABLE_BYTES = 4 * 1024 * 1024
#: Interleaved layout: bytes of ``x`` per call (only NumPy's per-call overhead matters).
INTERLEAVED_BLOCK_BYTES = 16 * 1024 * 1024
#: Either layout: the most bytes the tables of one block may take (positions varying along
#: leading axes multiply the table size).
MAX_TABLE_BYTES = 8 * 1024 * 1024

#: Split layout, fused route: bytes of the float table ``[c, s]`` of one block of
#: positions (all leading indices of the tables together). Within a block the kernel goes
#: through x in memory order, ``FUSED_GROUP`` leading indices at a time, so a block of x per
#: head near a 2 MiB huge page (2048 rows of a 128-wide float64 head, 4096 of float32) keeps
#: a fresh ``out``'s pages touched in order (measured, x of (4, 8, 4096, 128), with the
#: tables in scratch memory: 0.5, 1 and 2 MiB within 0.01x a copy of each other, 256 KiB
#: 0.01-0.04x slower; with fresh tables each call 2 MiB had beaten the others by 0.1-0.2x).
FUSED_TABLE_BYTES = 2 * 1024 * 1024
#: Either compiled route, ``FUSED is None``: once its kernel has been imported (by a call of
#: ``FUSED_MIN_BYTES`` or more), calls of at least this many bytes take it too (for 16-bit
#: ``x``: of its float32 copy). Measured (x of (1, 32, n, 128), medians of 101, EPYC VM):
#: float32 split 147 -> 129 us at 64 KiB, 199 -> 141 us at 256 KiB, 337 -> 186 us at 1 MiB;
#: float16 split 242 -> 133 us at 32 KiB of x. Below, the fixed costs of a call (~120 us)
#: dominate and the gain is small or none (float32 at 16 KiB: 120 us in NumPy, 125 compiled;
#: 16-bit at 8 KiB: -15% to +5%).
FUSED_LOADED_MIN_BYTES = 32768
#: Split layout: ``x`` of at most this many bytes that makes one block of positions and one
#: group skips the loop's bookkeeping, which costs more than the arithmetic at that size (a
#: decode step of 32 heads of 128 float32 channels is 16 KiB).
SMALL_BYTES = 65536
#: Split layout: ``None`` runs the fused kernel when the ``fast`` extra (numba) imports and
#: the NumPy kernel otherwise; ``False`` always the NumPy kernel; ``True`` always the fused
#: one (an ``ImportError`` without numba). For benchmarks and tests: results are the same.
#: The same for float16 / bfloat16 ``x`` in either layout (:func:`half`).
FUSED: bool | None = None
#: Split layout, fused route: leading indices (heads) rotated together, row by row, so that
#: each row of the tables is read from memory once per pair of heads rather than per head
#: (measured on x of (4, 8, 4096, 128): 2 was 0.03-0.15x a copy faster than 1, and 4 or more
#: slower again: more streams of x and out at once than the prefetchers follow).
FUSED_GROUP = 2
#: Split layout, ``FUSED is None``: the fused kernel runs for ``x`` of at least this many
#: bytes. Smaller calls stay in NumPy, so that a process that only ever rotates small arrays
#: (doctests, the audit) does not pay for importing numba and loading the kernel (~0.45 s
#: on the first call with numba's cache warm, ~1 s cold) to save microseconds.
FUSED_MIN_BYTES = 1 << 20

#: ``make_blocks(rows, cdt)``: a phasor-block source (``rope._PhasorBlocks``) for blocks of
#: ``rows`` positions in complex dtype ``cdt``: ``.rows``, ``.tl``, ``.starts()``,
#: ``.fill(s0) -> (s1, z)`` with ``z`` of shape ``tshape[:-1] + (s1 - s0, r/2)``.
MakeBlocks = Callable[[int, np.dtype], Any]


def _complex_of(dt: np.dtype) -> np.dtype:
    return np.dtype(np.complex64) if dt == np.float32 else np.dtype(np.complex128)


def _groups(shape: tuple[int, ...], item_bytes: int, target: int) -> list[tuple[slice, ...]]:
    """Slices over the leading axes ``shape`` that cut them into groups of about ``target``
    bytes (``item_bytes`` per leading index), in memory order; axes keep their length-1
    dims so that tables broadcast the same way."""
    if not shape:
        return [()]
    inner = math.prod(shape[1:]) * item_bytes
    if inner >= target:  # one index of the first axis at a time, the rest cut again
        rest = _groups(shape[1:], item_bytes, target)
        return [(slice(i, i + 1),) + r for i in range(shape[0]) for r in rest]
    step = max(1, target // max(inner, 1))
    full = (slice(None),) * (len(shape) - 1)
    starts = list(range(0, shape[0], step))
    if len(starts) > 1 and shape[0] - starts[-1] == 1:
        starts.pop()  # no trailing group of one index: merged into the one before
    ends = starts[1:] + [shape[0]]
    return [(slice(a, b),) + full for a, b in zip(starts, ends)]


def _table_index(group: tuple[slice, ...], tlead: tuple[int, ...]) -> tuple[slice, ...]:
    """The group's slices for a table whose leading axes ``tlead`` may be 1 (broadcast)."""
    return tuple(g if n != 1 else slice(None) for g, n in zip(group, tlead))


def _unalias(x: np.ndarray, out: np.ndarray) -> tuple[np.ndarray, bool]:
    """``(x, in_place)``: ``in_place`` when ``out`` is ``x`` element for element; ``x`` is
    copied first when the two overlap in any other way (a block would read what an earlier
    block wrote)."""
    if not np.may_share_memory(x, out):
        return x, False
    same = (x.__array_interface__["data"][0] == out.__array_interface__["data"][0]
            and x.strides == out.strides)
    return (x, True) if same else (x.copy(), False)


class _Layout:
    """Shapes shared by both kernels: ``x`` of shape ``lead + (seq, d)`` and the table
    blocks, whose leading axes ``tlead`` (padded to ``len(lead)``) are 1 or ``lead``'s."""

    def __init__(self, x: np.ndarray, rd: int, tshape: tuple[int, ...]) -> None:
        self.lead = x.shape[:-2]
        self.seq = x.shape[-2]
        self.rd, self.h = rd, rd // 2
        pad = len(self.lead) + 1 - len(tshape)
        self.pad = max(pad, 0)  # leading axes of x that the phasor blocks do not have
        tshape = (1,) * pad + tuple(tshape) if pad >= 0 else tuple(tshape)[-pad:]
        self.tlead = tshape[:-1]
        self.tl = tshape[-1]  # seq, or 1 (positions constant along the sequence)

    def position_rows(self, row_bytes: int, target: int) -> int:
        """Positions per table block: ``target`` bytes for one leading index of the table
        (``row_bytes`` a position), at most MAX_TABLE_BYTES for all of them."""
        per = max(1, math.prod(self.tlead)) * row_bytes
        return max(1, min(target // row_bytes, MAX_TABLE_BYTES // per))

    def table(self, z: np.ndarray) -> np.ndarray:
        """A phasor block ``tshape[:-1] + (n, h)`` with its leading axes padded."""
        return z.reshape(self.tlead + z.shape[-2:])


def _seq_blocks(lay: _Layout, blocks: Any, rows: int) -> Iterator[tuple[slice, np.ndarray]]:
    """``(sequence slice of x, phasor table)`` pairs: one per table block when positions vary
    along the sequence, else one table (computed once) for blocks of ``rows`` rows."""
    if lay.tl == lay.seq:
        for s0 in blocks.starts():
            s1, z = blocks.fill(s0)
            yield slice(s0, s1), lay.table(z)
        return
    _, z = blocks.fill(0)  # tl == 1 < seq: the same phasors for every row
    z = lay.table(z)
    for q0 in range(0, lay.seq, rows):
        yield slice(q0, min(lay.seq, q0 + rows)), z


def interleaved(x: np.ndarray, out: np.ndarray, rd: int, tshape: tuple[int, ...],
                make_blocks: MakeBlocks, product: Callable[..., Any]) -> None:
    """Interleaved RoPE of ``x[..., :rd]`` into ``out[..., :rd]``: ``out = x * z`` on complex
    views, ``product`` the lowered complex multiply (``product(a, b, out=...)``)."""
    if x.size == 0:
        return
    lay = _Layout(x, rd, tshape)
    dt = x.dtype
    cdt = _complex_of(dt)
    xs, os_ = x[..., :rd], out[..., :rd]
    views = xs.strides[-1] == dt.itemsize and os_.strides[-1] == dt.itemsize
    xs, _ = _unalias(xs, os_)
    rows = lay.position_rows(lay.h * cdt.itemsize, INTERLEAVED_TABLE_BYTES)
    if lay.h == 1:
        # one pair a row: a block of one row and one leading index would be a single complex
        # product, which NumPy computes in its scalar loop (not the fused vector loop of
        # every other call: a last-bit difference). One call for the whole of x.
        rows = lay.seq
    blocks = make_blocks(rows, cdt)
    if views:
        xc, oc = xs.view(cdt), os_.view(cdt)
    rows_of_x = blocks.rows if lay.tl == lay.seq else rows
    groups = _groups(lay.lead, rows_of_x * rd * dt.itemsize,
                     INTERLEAVED_BLOCK_BYTES if lay.h > 1 else 1 << 62)
    for sl, z in _seq_blocks(lay, blocks, rows):
        for g in groups:
            # (the block as the phasor source shaped it, without the padding axes: a call
            # of one element then runs the same NumPy loop as before, bit for bit)
            zg = z.reshape(z.shape[lay.pad:])[_table_index(g[lay.pad:], lay.tlead[lay.pad:])]
            if views:
                product(xc[g + (sl,)], zg, out=oc[g + (sl,)])
            else:  # a strided last axis: through a contiguous copy (x itself is only read)
                xb = np.ascontiguousarray(xs[g + (sl,)])
                tmp = scratch("swap", xb.shape, dt)
                product(xb.view(cdt), zg, out=tmp.view(cdt))
                os_[g + (sl,)] = tmp


def split(x: np.ndarray, out: np.ndarray, rd: int, tshape: tuple[int, ...],
          make_blocks: MakeBlocks) -> None:
    """Split-layout RoPE of ``x[..., :rd]`` into ``out[..., :rd]`` (see the module notes):
    the fused kernel when :func:`split_route` says so, else the NumPy one (bit for bit the
    same results)."""
    if x.size == 0:
        return
    sizes = (x.nbytes >= FUSED_MIN_BYTES, x.nbytes >= FUSED_LOADED_MIN_BYTES)
    if SPLIT_KERNEL.wanted(FUSED, *sizes) and _split_fused(x, out, rd, tshape, make_blocks):
        return
    _split_numpy(x, out, rd, tshape, make_blocks)


def split_route() -> str:
    """The route of the split layout: ``"numba"`` (the fused kernel of the ``fast`` extra)
    or ``"numpy"``.

    Returns
    -------
    str
        ``"numba"`` when :data:`FUSED` allows it and numba imports, else ``"numpy"``.

    Raises
    ------
    ImportError
        When :data:`FUSED` is ``True`` and the fused kernel cannot be imported.
    """
    return SPLIT_KERNEL.route(FUSED)


def _load_split() -> Any:
    from . import _rope_fused

    return _rope_fused


#: The fused split kernel of the ``fast`` extra (:mod:`._rope_fused`), imported on first use;
#: ``SPLIT_KERNEL.unavailable`` says why it cannot be, if it cannot.
SPLIT_KERNEL = OptionalKernel("the fused split kernel", _load_split)


def _flat(a: np.ndarray) -> tuple[np.ndarray, np.ndarray, int] | None:
    """``(buffer, offsets, row stride)`` of ``a`` of shape ``lead + (seq, r)``, in elements:
    a 1-D view of its memory from its first element, the offset of row 0 of each leading
    index (in memory order of ``lead``, flattened) and the stride between rows. ``None`` when
    the last axis is not of unit stride or a stride is negative (the NumPy kernel then runs)."""
    it = a.dtype.itemsize
    st = a.strides
    if a.flags.c_contiguous and a.ndim >= 2 and a.size:  # (common; no as_strided: ~10 us)
        rows = a.shape[-2] * a.shape[-1]
        return a.reshape(-1), np.arange(0, a.size, max(rows, 1), dtype=np.int64)[
            : math.prod(a.shape[:-2])], a.shape[-1]
    if st[-1] != it or any(v < 0 or v % it for v in st):
        return None
    el = [v // it for v in st]
    span = 1 + sum((n - 1) * v for n, v in zip(a.shape, el))
    buf = np.lib.stride_tricks.as_strided(a, (span,), (it,))
    off = np.zeros(a.shape[:-2], np.int64)
    for k, (n, v) in enumerate(zip(a.shape[:-2], el)):
        off += (np.arange(n, dtype=np.int64) * v).reshape((n,) + (1,) * (off.ndim - k - 1))
    return buf, off.reshape(-1), el[-2]


def _split_fused(x: np.ndarray, out: np.ndarray, rd: int, tshape: tuple[int, ...],
                 make_blocks: MakeBlocks) -> bool:
    """The split layout by the compiled kernel (:mod:`._rope_fused`): one pass over ``x``,
    leading index by leading index, each block of positions once. ``False`` (nothing done)
    when ``x`` or ``out`` has no unit-stride last axis, for the NumPy kernel to run."""
    mod = SPLIT_KERNEL.get()
    xs, os_ = x[..., :rd], out[..., :rd]
    fo = _flat(os_)
    if mod is None or fo is None or xs.strides[-1] != x.dtype.itemsize:
        return False
    xs, in_place = _unalias(xs, os_)
    fx = _flat(xs)
    if fx is None:  # a negative stride
        return False
    lay = _Layout(x, rd, tshape)
    dt, h = x.dtype, lay.h
    (xf, xoff, xrow), (of, ooff, orow) = fx, fo
    P = math.prod(lay.tlead)
    xf.flags.writeable = False  # one compiled variant a dtype, whether x is read-only or not
    tidx = np.empty(lay.lead, np.int64)
    tidx[...] = np.arange(P, dtype=np.int64).reshape(lay.tlead)
    tidx = tidx.reshape(-1)
    rows = lay.position_rows(2 * h * dt.itemsize, FUSED_TABLE_BYTES)
    blocks = make_blocks(rows, _complex_of(dt))
    n = blocks.rows if lay.tl == lay.seq else 1  # table rows per block
    buf = scratch("table", (P * n * 2 * h,), dt)  # rows of [cos..., sin...] of one block
    starts = blocks.starts() if lay.tl == lay.seq else range(1)
    for s0 in starts:
        s1, z = blocks.fill(s0)
        m = s1 - s0
        cs = buf[: P * m * 2 * h]
        mod.table_rows(z.reshape(P * m, h), cs.reshape(P * m, 2 * h), h, 2)
        # (one row of phasors for the whole sequence when positions do not vary along it)
        rest = ((cs, tidx, m, 1, s0, m) if lay.tl == lay.seq else (cs, tidx, 1, 0, 0, lay.seq))
        if in_place:  # x read through out itself: one array, so that the loop vectorises
            mod.split_rows_inplace(of, ooff, orow, *rest, h, FUSED_GROUP)
        else:
            mod.split_rows(xf, xoff, xrow, of, ooff, orow, *rest, h, FUSED_GROUP)
    return True


def _split_numpy(x: np.ndarray, out: np.ndarray, rd: int, tshape: tuple[int, ...],
                 make_blocks: MakeBlocks) -> None:
    """The split layout in NumPy calls (four per group of leading indices; module notes)."""
    lay = _Layout(x, rd, tshape)
    dt, h = x.dtype, lay.h
    xs, os_ = x[..., :rd], out[..., :rd]
    xs, in_place = _unalias(xs, os_)
    xsw = xs.reshape(xs.shape[:-1] + (2, h))[..., ::-1, :]  # a view, halves exchanged
    rows = lay.position_rows(rd * dt.itemsize, ROWS_BYTES)
    blocks = make_blocks(rows, _complex_of(dt))
    n = blocks.rows if lay.tl == lay.seq else 1  # table rows per block
    tl_shape = lay.tlead + (n, 2, h)  # the float tables [c, c] and [-s, s] of one block
    rows_of_x = blocks.rows if lay.tl == lay.seq else rows
    groups = _groups(lay.lead, rows_of_x * rd * dt.itemsize, BLOCK_BYTES)
    if x.nbytes <= SMALL_BYTES and len(groups) == 1 and rows_of_x >= lay.seq:
        # (a decode step: one block of positions, one group; the same calls on the same
        # arrays as the loop below makes, without its bookkeeping: ~15 us a call less)
        _, z = blocks.fill(0)
        cf, sf = _float_tables(lay.table(z), np.empty(tl_shape, dt), np.empty(tl_shape, dt))
        _rotate(xs, os_, xsw, np.empty(xs.shape, dt), cf, sf, in_place)
        return
    cbuf, sbuf = scratch("table", tl_shape, dt), scratch("table2", tl_shape, dt)
    tmp = scratch("swap", (max(math.prod(xs[g + (slice(0, rows_of_x),)].shape) for g in groups),), dt)
    for sl, z in _seq_blocks(lay, blocks, rows):
        m = z.shape[-2]
        cf, sf = _float_tables(z, cbuf[..., :m, :, :], sbuf[..., :m, :, :])
        for g in groups:
            ti = _table_index(g, lay.tlead)
            xb = xs[g + (sl,)]
            _rotate(xb, os_[g + (sl,)], xsw[g + (sl,)], tmp[: xb.size].reshape(xb.shape),
                    cf[ti], sf[ti], in_place)


def _float_tables(z: np.ndarray, c2: np.ndarray, s2: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The float tables ``[c, c]`` and ``[-s, s]`` of the phasors ``z`` (``(..., m, h)``), in
    ``c2`` and ``s2`` (``(..., m, 2, h)``, ``x``'s dtype); returned as ``(..., m, 2h)``."""
    np.copyto(c2[..., 0, :], z.real)
    np.copyto(c2[..., 1, :], c2[..., 0, :])
    np.negative(z.imag, out=s2[..., 0, :])
    np.copyto(s2[..., 1, :], z.imag)
    return c2.reshape(c2.shape[:-2] + (-1,)), s2.reshape(s2.shape[:-2] + (-1,))


def _rotate(xb: np.ndarray, ob: np.ndarray, xswb: np.ndarray, t: np.ndarray, cf: np.ndarray,
            sf: np.ndarray, in_place: bool) -> None:
    """The four calls on a group: ``ob = xb * cf + swap(xb) * sf``, ``t`` a buffer of
    ``xb``'s shape, ``xswb`` the view of ``xb`` with its halves exchanged."""
    t2 = t.reshape(t.shape[:-1] + (2, -1))
    if in_place:  # out is x: take the swapped copy before x is overwritten
        np.copyto(t2, xswb)
        np.multiply(xb, cf, out=ob)
    else:  # read x (from memory) and write out in the same pass
        np.multiply(xb, cf, out=ob)
        np.copyto(t2, xswb)
    np.multiply(t, sf, out=t)
    np.add(ob, t, out=ob)


# ----------------------------------------------------------------------------------------
# float16 / bfloat16 x, fused (the ``fast`` extra; :mod:`._rope_fused16`)
#
# The NumPy route converts x to float32 (a copy as large as x, twice its bytes), rotates that
# with the float32 kernels into another float32 array, and rounds the result back: ~8-30x a
# copy of x. The compiled kernels read the 16-bit bits, widen them exactly, compute in
# float32 what the float32 kernel computes (same table, products and sums; for the
# interleaved layout NumPy's complex multiply, fused or not as ``HALF_FMA`` says) and round
# once to x's dtype as ``astype`` does, in one pass: the bytes are the NumPy route's
# (``tests/test_rope_fast16.py``). ``FUSED`` and ``FUSED_MIN_BYTES`` (of the float32 copy)
# choose the route as for the split layout.

#: Whether NumPy's complex64 multiply (the interleaved float32 kernel) rounds
#: ``a*c - b*d`` once (FMA) or twice, found by a probe on first use; ``None`` when it matches
#: neither (the interleaved layout then stays in NumPy for 16-bit x).
HALF_FMA: bool | None = None
_HALF_FMA_PROBED = False


def _load_half() -> Any:
    """The compiled 16-bit kernels' module; not on NumPy < 2, where the NumPy route gives
    other NaN payloads and signs for pairs of non-finite values (measured with NumPy 1.26.4):
    the kernels are checked bit for bit against NumPy 2's only."""
    if int(np.__version__.split(".")[0]) < 2:
        raise ImportError(f"NumPy {np.__version__}: the 16-bit kernels follow NumPy 2's NaN bits")
    from . import _rope_fused16

    return _rope_fused16


#: The compiled 16-bit kernels (:mod:`._rope_fused16`), imported on first use;
#: ``HALF_KERNELS.unavailable`` says why they are not used, if they are not.
HALF_KERNELS = OptionalKernel("the fused 16-bit kernels", _load_half)


def _probe_fma(mod: Any, product: Callable[..., Any]) -> bool | None:
    """How NumPy's complex64 multiply rounds (``HALF_FMA``): the product of random pairs by
    ``product`` against the interleaved kernel with and without FMA, on bfloat16 inputs."""
    global HALF_FMA, _HALF_FMA_PROBED
    if _HALF_FMA_PROBED:
        return HALF_FMA
    rng = np.random.default_rng(12345)
    n = 515  # odd: the SIMD loop's tail too
    bits = (rng.integers(0x3C00, 0x4300, 2 * n) | (rng.integers(0, 2, 2 * n) << 15)).astype(np.uint16)
    x32 = (bits.astype(np.uint32) << 16).view(np.float32)
    ang = rng.uniform(-4, 4, n)
    z = (np.cos(ang) + 1j * np.sin(ang)).astype(np.complex64)
    want = np.empty(2 * n, np.float32)
    product(x32.view(np.complex64), z, out=want.view(np.complex64))
    cs = np.concatenate([z.real, z.imag, -z.imag]).astype(np.float32)
    HALF_FMA = None
    for fma in (True, False):
        got = np.empty(2 * n, np.uint16)
        mod.interleaved16(bits, np.zeros(1, np.int64), 0, got, np.zeros(1, np.int64), 0, cs,
                          np.zeros(1, np.int64), 1, 0, 0, 1, n, 1, False, fma)
        w = np.empty(2 * n, np.uint16)
        mod.narrow(want, w, False)
        if np.array_equal(got, w):
            HALF_FMA = fma
            break
    _HALF_FMA_PROBED = True
    return HALF_FMA


def half(x: np.ndarray, out: np.ndarray, rd: int, tshape: tuple[int, ...],
         make_blocks: MakeBlocks, layout: str, product: Callable[..., Any]) -> bool:
    """RoPE of float16 / bfloat16 ``x`` (``(..., seq, d)``) into ``out`` by the compiled
    kernels, channels ``rd:`` passed through as the NumPy route passes them (through float32);
    ``False`` (nothing written) when the NumPy route is to run: ``FUSED`` false, ``x`` small,
    numba absent, a layout the kernels hand back (strided last axis, negative strides), or an
    interleaved product that matches neither model."""
    if x.size == 0 or not HALF_KERNELS.wanted(FUSED, x.size * 4 >= FUSED_MIN_BYTES,
                                              x.size * 4 >= FUSED_LOADED_MIN_BYTES):
        return False
    mod = HALF_KERNELS.get()
    fma = False
    if layout == "interleaved":
        fma = _probe_fma(mod, product)
        if fma is None:
            return False
    it = x.dtype.itemsize
    if x.strides[-1] != it or out.strides[-1] != it:
        return False
    x, in_place = _unalias(x, out)
    xs, os_ = x[..., :rd], out[..., :rd]
    fx, fo = _flat(xs.view(np.uint16)), _flat(os_.view(np.uint16))
    if fx is None or fo is None:
        return False
    d = x.shape[-1]
    if rd < d:  # as the NumPy route: through float32 and back
        out[..., rd:] = x[..., rd:].astype(np.float32).astype(x.dtype)
    f16 = x.dtype == np.float16
    lay = _Layout(x, rd, tshape)
    h = lay.h
    (xf, xoff, xrow), (of, ooff, orow) = fx, fo
    P = math.prod(lay.tlead)
    xf.flags.writeable = False
    tidx = np.empty(lay.lead, np.int64)
    tidx[...] = np.arange(P, dtype=np.int64).reshape(lay.tlead)
    tidx = tidx.reshape(-1)
    w = 3 if layout == "interleaved" else 2  # table rows: cos, sin (and -sin, interleaved)
    rows = lay.position_rows(w * h * 4, FUSED_TABLE_BYTES)
    blocks = make_blocks(rows, np.dtype(np.complex64))
    n = blocks.rows if lay.tl == lay.seq else 1
    buf = scratch("table", (P * n * w * h,), np.float32)
    starts = blocks.starts() if lay.tl == lay.seq else range(1)
    for s0 in starts:
        s1, z = blocks.fill(s0)
        m = s1 - s0
        cs = buf[: P * m * w * h]
        mod.table_rows(z.reshape(P * m, h), cs.reshape(P * m, w * h), h, w)
        args = ((s0, m) if lay.tl == lay.seq else (0, lay.seq))
        trows, tstep = (m, 1) if lay.tl == lay.seq else (1, 0)
        rest = (cs, tidx, trows, tstep, *args, h, FUSED_GROUP, f16)
        if in_place:  # x read through out itself: one array, so that the loops vectorise
            if layout == "interleaved":
                mod.interleaved16_inplace(of, ooff, orow, *rest, fma)
            else:
                mod.split16_inplace(of, ooff, orow, *rest)
        elif layout == "interleaved":
            mod.interleaved16(xf, xoff, xrow, of, ooff, orow, *rest, fma)
        else:
            mod.split16(xf, xoff, xrow, of, ooff, orow, *rest)
    return True
