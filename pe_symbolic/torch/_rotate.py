"""The eager rotations of :mod:`pe_symbolic.torch` beside the whole-tensor formula: the full-width
one of a small CPU ``x`` (a decoding step), blocks shared among worker threads for a large CPU
``x``, and fewer kernels on an accelerator -- each the bits of the lowered pair formula
(``pe_symbolic.numeric._frontend.rotate``), as the tests check.

Which one runs is decided by the backend (``_Torch.rotate`` in :mod:`pe_symbolic.torch._backend`).
"""

from __future__ import annotations

import threading
from typing import Any

from ..numeric import _frontend as F
from ._runtime import _MODULE, _formula, _torch


#: Elements of ``x`` per block of the larger eager CPU rotation; the blocks are shared among
#: ``torch.get_num_threads()`` workers, and a block's float32 temporaries stay in L2. (Measured
#: on a 2-core EPYC, x (4, 8, 4096, 128), medians of calls in a row: 2**16 took 36.8-38.5 ms
#: against 50.7-52.1 ms for 2**15 and 44.9-52.4 ms for 2**17, and with another process busy
#: beside it 51.2-54.8 ms against 70.0-72.3 ms and 70.2-70.6 ms.)
_BLOCK = 2**16

#: The workers of the eager CPU rotation: (process id, count, executor), made on first use
#: (and again in a forked child, whose copy of the threads is gone).
_POOL: list[Any] = []
_POOL_LOCK = threading.Lock()


def _pool(n: int):
    import os

    with _POOL_LOCK:
        if _POOL and _POOL[0][:2] == (os.getpid(), n):
            return _POOL[0][2]
        from concurrent.futures import ThreadPoolExecutor

        if _POOL and _POOL[0][0] == os.getpid():
            _POOL[0][2].shutdown(wait=False)
        ex = ThreadPoolExecutor(n, thread_name_prefix="pe_symbolic-rope")
        _POOL[:] = [(os.getpid(), n, ex)]
        return ex


# ----------------------------------------------------------------------------------------
# the full-width rotation of a small eager CPU x (a decoding step, a prompt)


#: (rotary dim, layout, dtype) -> the signs [-1, 1] of the rotated sines (CPU tensors, read only).
_SIGNS: dict[Any, Any] = {}


def _signs(rd: int, layout: str, dtype) -> Any:
    """``[-1, ..., -1, 1, ..., 1]`` (split) or ``[-1, 1, -1, 1, ...]`` (interleaved) in ``dtype``,
    on the CPU: the sine table times it is the signed table of :func:`_rotate_full` (exactly)."""
    key = (rd, layout, dtype)
    v = _SIGNS.get(key)
    if v is None:
        torch = _torch()
        with torch.inference_mode(False):
            one = torch.ones(rd // 2, dtype=dtype)
            v = torch.cat((-one, one)) if layout == "split" else torch.stack((-one, one), -1).flatten()
        _SIGNS[key] = v
    return v


def _rotate_all(xs: list[Any], tables: list[Any], route: Any, layout: str, rd: int) -> list[Any]:
    """Each of ``xs`` rotated by :func:`_rotate_full` with its full-width tables ``(c, s)``;
    ``route``: ``_Torch.route`` of them."""
    if layout != "split" or not route[1]:
        return [_rotate_full(v, c, s, layout, rd) for v, (c, s) in zip(xs, tables)]
    roll, h = _MODULE[0].roll, rd // 2  # (the common case, inlined: the halves exchanged by a roll)
    outs = []
    for v, (c, s), (_, back) in zip(xs, tables, route[0]):
        if back is None:
            outs.append(v * c + roll(v, h, -1) * s)
        else:  # 16-bit x: products with the float32 tables promote it (exactly), rounded once back
            outs.append(back(v * c + roll(v, h, -1) * s))
    return outs


def _rotate_full(x, c, s, layout: str, rd: int):
    """``x`` rotated with full-width tables ``c = [cos, cos]`` and ``s = [-sin, sin]`` (split;
    interleaved: each entry twice, ``(-sin, sin)`` per pair), in the tables' dtype (float32
    for 16-bit ``x``, rounded once back)::

        out = x * c + swap(x) * s    # swap: each slot takes its pair partner's value

    Slot ``a`` of a pair gets ``x_a cos + x_b (-sin)`` and slot ``b`` gets ``x_b cos + x_a sin``:
    the two products of the lowered pair formula :func:`~pe_symbolic.numeric.lower.rope_pair`
    (``x_a c - x_b s``, ``x_a s + x_b c``; a product with a negated factor is the negated
    product, and addition commutes), so the same bits as :func:`F.rotate` (a test checks
    it), as the NumPy core's split kernel computes it; four operations instead of seven
    (slices, four half-width products, two sums and a concatenation), which is what a
    decoding step's small ``x`` pays for (measured in ``python -m benchmarks --only decode``)."""
    torch = _MODULE[0]
    d = x.shape[-1]
    xr = x if rd == d else x[..., :rd]
    if xr.dtype != c.dtype:  # 16-bit x: converted (exactly) first
        xr = xr.to(c.dtype)
    if layout == "split":  # the halves exchanged: torch.roll, one copy (an index_select was 3-6x slower)
        swapped = torch.roll(xr, rd // 2, -1)
    else:  # each pair's two slots exchanged
        lead = xr.shape[:-1]
        swapped = xr.reshape(lead + (rd // 2, 2)).flip(-1).reshape(lead + (rd,))
    y = xr * c + swapped * s
    if y.dtype != x.dtype:
        y = y.to(x.dtype)
    return y if rd == d else torch.cat((y, x[..., rd:]), dim=-1)


# ----------------------------------------------------------------------------------------
# the eager rotation of a large CPU x (blocks, shared among workers) and on an accelerator


def _blocks(lead: tuple[int, ...], rows: int):
    """Index tuples that cut an array of leading shape ``lead`` into blocks of about
    ``rows`` rows: every index of the outer axes, slices of the first axis whose inner
    axes hold at most ``rows`` rows."""
    import itertools
    import math

    k = 0
    while k < len(lead) - 1 and math.prod(lead[k + 1:]) > rows:
        k += 1
    step = max(1, rows // max(1, math.prod(lead[k + 1:])))
    for outer in itertools.product(*(range(n) for n in lead[:k])):
        for a in range(0, lead[k], step):
            yield outer + (slice(a, min(lead[k], a + step)),)


def _rotate_blocks(B: F.Backend, x, c, s, layout: str, rd: int):
    """Eager CPU rotation, block by block: the same operations as :func:`F.rotate` on the
    same values (so the same bits), each block's temporaries cache-sized, each result
    written once into the output (16-bit ``x``: rounded once, by the copy). In eager mode
    every operation is a pass over memory, and x-sized temporaries of a large ``x`` (fresh
    pages) cost more than the arithmetic: measured 1.1-2.7x faster than the whole-tensor
    operations at 2**24 elements (and slower below 2**22, see :data:`_WHOLE`)."""
    torch = _torch()
    out = torch.empty_like(x)
    d, h = x.shape[-1], rd // 2
    if rd < d:
        out[..., rd:] = x[..., rd:]
    lead = tuple(x.shape[:-1])
    c, s = c.expand(lead + (h,)), s.expand(lead + (h,))
    pair = _formula("pair")
    f32 = torch.float32 if B.is_low(x.dtype) else None
    inference = torch.is_inference_mode_enabled()

    def run(blocks) -> None:
        # the caller's inference mode (thread-local: a worker starts without it)
        with torch.inference_mode(inference), torch.no_grad():
            for idx in blocks:
                xb, ob = x[idx], out[idx]
                if layout == "split":
                    x1, x2, o1, o2 = xb[..., :h], xb[..., h:rd], ob[..., :h], ob[..., h:rd]
                else:
                    x1, x2, o1, o2 = xb[..., 0:rd:2], xb[..., 1:rd:2], ob[..., 0:rd:2], ob[..., 1:rd:2]
                if f32 is not None:
                    x1, x2 = x1.to(f32), x2.to(f32)
                a, b = pair(x1, x2, c[idx], s[idx])
                o1.copy_(a)
                o2.copy_(b)

    blocks = list(_blocks(lead, max(1, _BLOCK // d)))
    n = min(torch.get_num_threads(), len(blocks))
    if n <= 1:
        run(blocks)
    else:
        shared = iter(blocks)  # taken one at a time by whichever worker is free
        for f in [_pool(n).submit(run, shared) for _ in range(n)]:
            f.result()
    return out


def _rotate_whole(B: F.Backend, x, c, s, layout: str, rd: int):
    """Eager rotation on an accelerator (no autograd): the operations of :func:`F.rotate`
    on the same values (so the same bits), each result written once into the output
    (16-bit ``x``: rounded once, by the copy), with fewer kernels and passes: no cast kernel
    for a 16-bit ``x`` against float32 tables (a product of a 16-bit and a float32 tensor
    is computed in float32 from the exact conversion: the bits of converting first), and
    no concatenation."""
    torch = _torch()
    out = torch.empty_like(x)
    h = rd // 2
    if rd < x.shape[-1]:
        out[..., rd:] = x[..., rd:]
    if layout == "split":
        x1, x2, o1, o2 = x[..., :h], x[..., h:rd], out[..., :h], out[..., h:rd]
    else:
        x1, x2, o1, o2 = x[..., 0:rd:2], x[..., 1:rd:2], out[..., 0:rd:2], out[..., 1:rd:2]
    if B.is_low(x.dtype) and not (c.dtype == s.dtype == torch.float32):
        x1, x2 = x1.to(torch.float32), x2.to(torch.float32)  # 16-bit tables: convert x itself
    a, b = _formula("pair")(x1, x2, c, s)
    o1.copy_(a)
    o2.copy_(b)
    return out
