"""Rotary embeddings: cos/sin tables and ``apply_rope`` (see :mod:`pe_symbolic.numeric`)."""

from __future__ import annotations

import functools
import math

import numpy as np

from . import _kernels as K
from ._checks import as_positions, check_float_dtype, check_out, check_x
from .._validate import check_base, check_d, check_layout, check_order, check_schedule
from ._core import _check_numeric_base, _omega_dd, _omega_exact, _rope_product, _source
from .tables import _slot_views

__all__ = ["apply_rope", "rope_cos_sin"]


# ----------------------------------------------------------------------------------------
# RoPE


def rope_cos_sin(
    positions,
    d: int,
    *,
    base: float = 10000.0,
    layout: str = "split",
    dtype=np.float64,
    accurate: bool = False,
) -> tuple[np.ndarray, np.ndarray]:
    r"""``(cos, sin)`` tables such that ``x*cos + rotate(x)*sin`` applies RoPE.

    Parameters
    ----------
    positions : array_like of real
        Token positions ``m``.
    d : int
        Rotary dimension (positive, even).
    base : float, default 10000.0
        :math:`\theta_i = b^{-2i/d}`.
    layout : {"split", "interleaved"}
        ``"split"`` (GPT-NeoX / HF Llama ``rotate_half``): ``cos = concat(cos mθ, cos mθ)``;
        ``"interleaved"`` (RoFormer / Meta / GPT-J): each entry repeated twice.
    dtype : {numpy.float64, numpy.float32}
    accurate : bool
        As in :func:`sinusoidal_table`.

    Returns
    -------
    cos, sin : numpy.ndarray
        Each of shape ``positions.shape + (d,)``.

    Examples
    --------
    >>> c, s = rope_cos_sin([0, 1], 4, base=100.0)
    >>> c.round(4)
    array([[1.    , 1.    , 1.    , 1.    ],
           [0.5403, 0.995 , 0.5403, 0.995 ]])
    >>> rope_cos_sin([1], 4, base=100.0, layout="interleaved")[1].round(4)
    array([[0.8415, 0.8415, 0.0998, 0.0998]])
    """
    d = check_d(d)
    b = _check_numeric_base(base)
    layout = check_layout(layout)
    dt = check_float_dtype(dtype)
    t = as_positions(positions)
    w_hi, w_lo = _omega_dd(d, b, "vaswani")
    src = _source(t, w_hi, w_lo, accurate, swap=False, w_exact=_omega_exact(d, b, "vaswani"))
    n, h = t.size, d // 2
    cos = np.empty((n, d), dt)
    sin = np.empty((n, d), dt)
    c1, c2 = _slot_views(cos, layout)
    s1, s2 = _slot_views(sin, layout)
    rows = src.block_rows()
    buf = np.empty((min(rows, max(n, 1)), h), np.complex128)
    for s in range(0, n, rows):
        e = min(n, s + rows)
        z = buf[: e - s]
        src.fill(s, e, z)
        c1[s:e] = z.real
        c2[s:e] = z.real
        s1[s:e] = z.imag
        s2[s:e] = z.imag
    return cos.reshape(t.shape + (d,)), sin.reshape(t.shape + (d,))


def apply_rope(
    x,
    positions,
    *,
    base: float = 10000.0,
    layout: str = "split",
    rotary_dim: int | None = None,
    accurate: bool = False,
    out: np.ndarray | None = None,
) -> np.ndarray:
    r"""Rotate each pair of ``x[..., :rotary_dim]`` by the angle ``m * theta_i``.

    Parameters
    ----------
    x : numpy.ndarray, float32 or float64
        Shape ``(..., seq, d)`` (any leading axes).
    positions : array_like of real
        Broadcasts against ``x.shape[:-1]`` (typically shape ``(seq,)``).
    base : float, default 10000.0
    layout : {"split", "interleaved"}
        Pair slots ``(i, i + r/2)`` (GPT-NeoX / HF Llama) or ``(2i, 2i+1)`` (RoFormer / GPT-J).
    rotary_dim : int, optional
        Even, ``<= d``; only the first ``rotary_dim`` channels rotate (partial rotary), the
        rest pass through. Default: ``d``. Frequencies use ``rotary_dim``:
        :math:`\theta_i = b^{-2i/r}`.
    accurate : bool
        Use the accurate cos/sin tables (the rotation itself is then rounded once more).
    out : numpy.ndarray, optional
        Same shape and dtype as ``x``; may be ``x`` itself (in place).

    Returns
    -------
    numpy.ndarray
        Same shape and dtype as ``x``.

    Notes
    -----
    .. math:: (x_a, x_b) \mapsto (x_a\cos m\theta_i - x_b\sin m\theta_i,\;
              x_a\sin m\theta_i + x_b\cos m\theta_i)

    so :math:`\langle R(m)q, R(n)k\rangle` depends on ``n - m`` only. At ``m = 0`` it is the
    identity.

    Examples
    --------
    >>> x = np.array([[1.0, 0.0, 1.0, 0.0]])
    >>> apply_rope(x, [1], base=100.0, layout="interleaved").round(4)
    array([[0.5403, 0.8415, 0.995 , 0.0998]])
    >>> apply_rope(np.ones((2, 4), np.float32), [0, 0]).dtype
    dtype('float32')
    """
    x = check_x(x)
    layout = check_layout(layout)
    b = _check_numeric_base(base)
    d = x.shape[-1]
    if rotary_dim is None:
        rd = d
    else:
        rd = check_d(rotary_dim, name="rotary_dim")
        if rd > d:
            raise ValueError(
                f"rotary_dim={rotary_dim!r} must be a positive even integer <= d={d} "
                "(the last axis of x)"
            )
    if d % 2 and rotary_dim is None:
        raise ValueError(
            f"the last axis of x has odd length d={d}; RoPE needs pairs (pass an even rotary_dim)"
        )
    t = as_positions(positions)
    lead = x.shape[:-1]
    try:
        bshape = np.broadcast_shapes(t.shape, lead)
    except ValueError:
        raise ValueError(
            f"positions of shape {t.shape} do not broadcast against x.shape[:-1] = {lead}"
        ) from None
    if bshape != lead:
        raise ValueError(
            f"positions of shape {t.shape} broadcast against x.shape[:-1] = {lead} to {bshape}; "
            "positions must not enlarge x"
        )
    out = check_out(out, x.shape, x.dtype)
    w_hi, w_lo = _omega_dd(rd, b, "vaswani")
    src = _source(t, w_hi, w_lo, accurate, swap=False, w_exact=_omega_exact(rd, b, "vaswani"))
    if rd < d and out is not x:
        out[..., rd:] = x[..., rd:]
    xv, ov = (x[None], out[None]) if x.ndim == 1 else (x, out)  # 1-D: scalar positions
    tshape = t.shape or (1,)
    if layout == "interleaved":
        _rope_interleaved(xv, src, tshape, ov, rd)
    else:
        _rope_split(xv, src, tshape, ov, rd)
    return out


# RoPE is blocked along the sequence axis: the phasors of one block of positions (a small
# table, reused by every leading index of x) are computed in complex128, rounded once to x's
# precision (as before: the results are bitwise those of the unblocked code), and applied
# while they sit in cache. Temporaries are table- and block-sized, not x-sized (except the
# copy taken when x's last axis is strided in the interleaved layout). Fresh allocations
# matter here: on the 2-core VM a page fault costs microseconds, and the former full-size
# (seq, d) float tables of the split layout cost ~4 ms a call, mostly page faults.

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


class _PhasorBlocks:
    """Phasors ``exp(i m theta)`` of positions ``t[..., s0:s1]`` (``t`` of shape ``tshape``),
    block by block, as an array of shape ``tshape[:-1] + (s1 - s0, h)`` and dtype ``cdt``:
    computed in complex128 and rounded once (the "run" mode's product casts as it writes)."""

    def __init__(self, src: K.PhasorSource, tshape: tuple[int, ...], rows: int,
                 cdt: np.dtype) -> None:
        self.src, self.tshape = src, tshape
        self.tl = tshape[-1]
        self.P = math.prod(tshape[:-1])
        if self.tl <= rows:
            rows = self.tl  # one block
        elif src.mode == "run" and rows >= src.B:
            rows -= rows % src.B  # whole fine blocks: one broadcast multiply each
        self.rows = max(1, rows)
        self.z = np.empty((self.P, self.rows, src.h), cdt)
        self.direct = cdt == np.complex128 or src.mode == "run"
        if not self.direct:  # complex128 scratch of one source block, then rounded
            self.z128 = np.empty((max(1, min(src.block_rows(), self.P * self.rows)), src.h),
                                 np.complex128)

    def starts(self) -> range:
        return range(0, self.tl, self.rows)

    def _fill(self, start: int, stop: int, dest: np.ndarray) -> None:
        if self.direct:
            self.src.fill(start, stop, dest)
            return
        r = self.z128.shape[0]
        for u in range(start, stop, r):
            v = min(stop, u + r)
            tmp = self.z128[: v - u]
            self.src.fill(u, v, tmp)
            dest[u - start : v - start] = tmp

    def fill(self, s0: int) -> tuple[int, np.ndarray]:
        """Fill the block starting at ``s0``; return its end and its table."""
        s1 = min(self.tl, s0 + self.rows)
        n, tl, P, h = s1 - s0, self.tl, self.P, self.src.h
        z = self.z.reshape(-1)[: P * n * h].reshape(P, n, h)
        if n == tl:
            self._fill(0, P * tl, z.reshape(P * tl, h))
        else:
            for p in range(P):
                self._fill(p * tl + s0, p * tl + s1, z[p])
        return s1, z.reshape(self.tshape[:-1] + (n, h))


def _rows_per_block(P: int, width: int, target: int) -> int:
    return max(1, target // max(P * width, 1))


def _rope_interleaved(x: np.ndarray, src: K.PhasorSource, tshape: tuple[int, ...],
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


def _rope_split(x: np.ndarray, src: K.PhasorSource, tshape: tuple[int, ...],
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
            xm = x.reshape((other, seq, x.shape[-1]), copy=False)[..., :rd]
            om = out.reshape((other, seq, out.shape[-1]), copy=False)[..., :rd]
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

