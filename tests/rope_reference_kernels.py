"""The RoPE kernels as they were before issue 14 (blocked phasor tables; split layout as
``x*[c, c] + swap(x*[s, -s])``): the reference the new kernels of
:mod:`pe_symbolic.numeric._rope_kernels` must equal bit for bit.

Copied from ``pe_symbolic/numeric/rope.py`` at commit 242a59d (functions ``_rope_interleaved``,
``_rope_split``, ``_split_block`` and their constants), unchanged but for the names.
"""

from __future__ import annotations

import math

import numpy as np

from pe_symbolic.numeric._core import _rope_product
from pe_symbolic.numeric.rope import _PhasorBlocks

#: Complex entries of the per-block phasor table, split layout (256 KiB of complex128).
_ROPE_TABLE_ENTRIES = 16384
#: The same for the interleaved layout: one complex multiply streams x once per block, and
#: measured on 2 cores fewer, larger blocks win (2**18: one block for seq * d/2 <= 2**18).
_ROPE_INTERLEAVED_ENTRIES = 262144
#: Elements of x per split-layout kernel call (256 KiB of float32): x, its product with the
#: sines and the output block stay in L2 between the three passes.
_ROPE_SPLIT_BLOCK = 65536
#: Elements per kernel call when the leading axes of x do not merge (1 MiB of float32).
_ROPE_BLOCK = 262144


def _rows_per_block(P: int, width: int, target: int) -> int:
    return max(1, target // max(P * width, 1))


def rope_interleaved(x: np.ndarray, src, tshape: tuple[int, ...],
                      out: np.ndarray, rd: int) -> None:
    """Interleaved layout: one complex multiply per block on complex views of x and out."""
    h = rd // 2
    cdt = np.dtype(np.complex64) if x.dtype == np.float32 else np.dtype(np.complex128)
    product = _rope_product()
    xs, os_ = x[..., :rd], out[..., :rd]
    views = xs.strides[-1] == x.itemsize and os_.strides[-1] == out.itemsize
    xc = xs.view(cdt) if views else xs
    oc = os_.view(cdt) if views else os_
    blocks = _PhasorBlocks(src, tshape, _rows_per_block(1, h, _ROPE_INTERLEAVED_ENTRIES), cdt)
    whole = blocks.tl == 1 < x.shape[-2]  # positions constant along the sequence axis
    for s0 in blocks.starts():
        s1, z = blocks.fill(s0)
        sl = slice(None) if whole else slice(s0, s1)
        if views:
            product(xc[..., sl, :], z, out=oc[..., sl, :])
        else:  # a strided last axis: through a contiguous copy (x itself is only read)
            xb = np.ascontiguousarray(xs[..., sl, :])
            tmp = np.empty(xb.shape, x.dtype)
            product(xb.view(cdt), z, out=tmp.view(cdt))
            os_[..., sl, :] = tmp


def rope_split(x: np.ndarray, src, tshape: tuple[int, ...],
                out: np.ndarray, rd: int) -> None:
    """Split layout, blocked: ``out = x*[c, c] + swap_halves(x*[s, -s])``.

    Per block of positions, the float tables ``[c, c]`` and ``[s, -s]`` (rounded once from
    the complex128 phasors) are built once and applied to every leading index of x. The
    two products run at full width (long inner loops); only the final add reads one operand
    with its halves swapped (a view, no copy). Where the leading axes of x merge into one
    (no copy) and the positions vary along the sequence axis only, the kernel runs on
    cache-sized groups of rows so that its three passes stay in L2.
    """
    h = rd // 2
    dt = x.dtype
    lead = x.shape[:-1]
    seq, tl = lead[-1], tshape[-1]
    P = math.prod(tshape[:-1])
    other = math.prod(lead[:-1])
    merged = False  # leading axes of x and out merged into one (views)
    xm, om, om4 = x, out, out
    if P == 1 and tl == seq > 0 and other > 1:
        try:
            xm = _as_view(x, (other, seq, x.shape[-1]))[..., :rd]
            om = _as_view(out, (other, seq, out.shape[-1]))[..., :rd]
            om4 = om.reshape(other, seq, 2, h)
            merged = True
        except ValueError:
            pass
    rows = _rows_per_block(P, h, _ROPE_TABLE_ENTRIES)
    # kernel blocks without merged axes: seq rows times every leading index of x
    step = max(1, min(seq, _ROPE_BLOCK // max(other * rd, 1)))
    if not merged and tl > 1:
        rows = min(rows, step)
    cdt = np.dtype(np.complex64) if dt == np.float32 else np.dtype(np.complex128)
    blocks = _PhasorBlocks(src, tshape, rows, cdt)
    shape = (P, blocks.rows, rd)
    cf, sf = np.empty(shape, dt), np.empty(shape, dt)
    if merged:
        g = min(other, max(1, _ROPE_SPLIT_BLOCK // (blocks.rows * rd)))
        buf = np.empty(g * blocks.rows * rd, dt)
    else:
        buf = np.empty(other * (blocks.rows if tl > 1 else step) * rd, dt)
    c_first = not np.may_share_memory(x, out)
    for s0 in blocks.starts():
        s1, z = blocks.fill(s0)
        n = z.shape[-2]
        c = cf.reshape(-1)[: P * n * rd].reshape(tshape[:-1] + (n, rd))
        s = sf.reshape(-1)[: P * n * rd].reshape(tshape[:-1] + (n, rd))
        np.copyto(c[..., :h], z.real)
        np.copyto(c[..., h:], c[..., :h])
        np.copyto(s[..., :h], z.imag)
        np.negative(s[..., :h], out=s[..., h:])
        if merged:
            bb = buf[: g * n * rd].reshape(g, n, rd)
            bbr = bb.reshape(g, n, 2, h)[..., ::-1, :]  # halves swapped (a view)
            for g0 in range(0, other, g):
                g1 = min(other, g0 + g)
                xb, ob, o4 = xm[g0:g1, s0:s1], om[g0:g1, s0:s1], om4[g0:g1, s0:s1]
                if g1 - g0 < g:
                    bb, bbr = bb[: g1 - g0], bbr[: g1 - g0]
                if c_first:
                    np.multiply(xb, c, out=ob)
                    np.multiply(xb, s, out=bb)
                else:
                    np.multiply(xb, s, out=bb)
                    np.multiply(xb, c, out=ob)
                np.add(o4, bbr, out=o4)
        elif tl > 1:
            _split_block(x[..., s0:s1, :rd], out[..., s0:s1, :rd], c, s, buf, h, c_first)
        else:  # positions constant along the sequence axis: one table, blocks of x
            for q0 in range(0, seq, step):
                sl = slice(q0, q0 + step)
                _split_block(x[..., sl, :rd], out[..., sl, :rd], c, s, buf, h, c_first)


def _split_block(xb: np.ndarray, ob: np.ndarray, c: np.ndarray, s: np.ndarray,
                 buf: np.ndarray, h: int, c_first: bool) -> None:
    bb = buf[: xb.size].reshape(xb.shape)
    if c_first:  # x and out do not overlap: read x and write out in the same pass
        np.multiply(xb, c, out=ob)  # [x1 c, x2 c]
        np.multiply(xb, s, out=bb)  # [x1 s, -x2 s]
    else:  # out may alias x: read x twice before writing out
        np.multiply(xb, s, out=bb)
        np.multiply(xb, c, out=ob)
    o4 = ob.reshape(ob.shape[:-1] + (2, h))
    np.add(o4, bb.reshape(bb.shape[:-1] + (2, h))[..., ::-1, :], out=o4)


def _as_view(a, shape):
    """``a.reshape(shape, copy=False)`` (NumPy >= 2.1), also on NumPy 1.26."""
    v = a.reshape(shape)
    if v.size and not np.may_share_memory(v, a):
        raise ValueError("reshape would copy")
    return v
