"""The NumPy core as a backend of the shared front end (:mod:`pe_symbolic.numeric._frontend`):
its arrays and dtypes, its frequency plan (double-double frequencies), its tables (angle
addition in blocks) and its rotation kernels (:mod:`pe_symbolic.numeric._rope_kernels`).

The public functions (:func:`pe_symbolic.numeric.apply_rope`, :func:`~pe_symbolic.numeric.rope_cos_sin`,
:func:`~pe_symbolic.numeric.sinusoidal_table`) are the front end's, bound to :data:`NUMPY`; every
argument check and message is there. What is here is the NumPy core's own: ``accurate=``,
``out=`` and ``check_finite=``, and the arithmetic.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from . import _frontend as F
from . import _kernels as K
from . import _rope_kernels
from ._checks import as_dtype, as_positions, check_finite_x, check_float_dtype, check_out, check_x, round_to
from ._core import _omega_dd, _omega_exact, _rope_product, _source
from ._rope_plan import FrequencyPlan, config_and_length, frequency_plan, phasor_source, positions_error
from ._scratch import scratch

__all__ = ["NUMPY"]


# ----------------------------------------------------------------------------------------
# plans and positions


def _plan_positions(t: np.ndarray, plan: FrequencyPlan) -> np.ndarray:
    """Positions as the kernels need them: for M-RoPE ``(3,) + P`` (axial: ``(2,) + P``)
    with every axis of shape P."""
    if plan.n_axes == 1:
        return t
    why = positions_error(plan.n_axes, t.shape)
    if why:
        raise ValueError(why)
    return np.ascontiguousarray(t)


# ----------------------------------------------------------------------------------------
# tables


def _slot_views(arr2d: np.ndarray, layout: str) -> tuple[np.ndarray, np.ndarray]:
    """Views (first slots, second slots) of an (n, d) array for ``layout``."""
    h = arr2d.shape[-1] // 2
    if layout == "interleaved":
        return arr2d[:, 0::2], arr2d[:, 1::2]
    return arr2d[:, :h], arr2d[:, h:]


def _write_pairs(src: K.PhasorSource, out2d: np.ndarray, layout: str) -> None:
    """Fill ``out2d`` (n, d): real part of each phasor in the first slot, imaginary in the second."""
    n = out2d.shape[0]
    if n == 0:
        return
    if src.mode == "accurate":
        first, second = _slot_views(out2d, layout)
        src.fill_pairs(0, n, first, second)
        return
    if layout == "interleaved" and out2d.flags.c_contiguous:
        cdt = np.complex64 if out2d.dtype == np.float32 else np.complex128
        dest = out2d.view(cdt)
        if src.mode == "run":
            # one broadcast multiply straight into the output (float32: the ufunc casts
            # its complex128 result in small internal buffers)
            src.fill(0, n, dest)
            return
        rows = src.block_rows()
        buf = None if cdt is np.complex128 else np.empty((min(rows, n), src.h), np.complex128)
        for s in range(0, n, rows):
            e = min(n, s + rows)
            if buf is None:
                src.fill(s, e, dest[s:e])
            else:
                src.fill(s, e, buf[: e - s])
                dest[s:e] = buf[: e - s]
        return
    first, second = _slot_views(out2d, layout)
    for s, e, z in _phasor_rows(src, n):
        first[s:e] = z.real
        second[s:e] = z.imag


def _phasor_rows(src: Any, n: int):
    """The phasors of rows ``0 .. n`` of ``src`` in blocks ``(start, stop, complex128 block)``
    (one buffer of the source's block size, filled in turn)."""
    rows = src.block_rows()
    buf = np.empty((min(rows, max(n, 1)), src.h), np.complex128)
    for s in range(0, n, rows):
        e = min(n, s + rows)
        z = buf[: e - s]
        src.fill(s, e, z)
        yield s, e, z


def _sinusoidal_into(t: np.ndarray, d: int, b: float, layout: str, order: str, schedule: str, dt: np.dtype,
                     accurate: bool, out: np.ndarray) -> np.ndarray:
    """The sinusoidal table of checked arguments, written into ``out``."""
    if dt.itemsize < 4:  # float16 / bfloat16: the float64 table, rounded once
        full = np.empty(out.shape, np.float64)
        out[...] = round_to(_sinusoidal_into(t, d, b, layout, order, schedule, np.dtype(np.float64), accurate,
                                             full), dt)
        return out
    w_hi, w_lo = _omega_dd(d, b, schedule)
    src = _source(t, w_hi, w_lo, accurate, swap=order == "sin_cos",
                  w_exact=functools.partial(_omega_exact, d, b, schedule))
    if out.flags.c_contiguous:
        _write_pairs(src, out.reshape(-1, d), layout)
    else:
        tmp = np.empty(out.shape, dt)
        _write_pairs(src, tmp.reshape(-1, d), layout)
        out[...] = tmp
    return out


def _cos_sin_tables(t: np.ndarray, plan: FrequencyPlan, dt: np.dtype, layout: str,
                    accurate: bool) -> tuple[np.ndarray, np.ndarray]:
    """Full-width ``(cos, sin)`` of checked positions ``t`` (M-RoPE: the leading axis first)."""
    t = _plan_positions(t, plan)
    pshape = t.shape[1:] if plan.n_axes > 1 else t.shape
    src = phasor_source(plan, t, accurate)
    rd = plan.rotary_dim
    n = math.prod(pshape)
    low = dt.itemsize < 4  # float16 / bfloat16: the float64 tables, rounded once
    cos = np.empty((n, rd), np.float64 if low else dt)
    sin = np.empty((n, rd), np.float64 if low else dt)
    c1, c2 = _slot_views(cos, layout)
    s1, s2 = _slot_views(sin, layout)
    for s, e, z in _phasor_rows(src, n):
        c1[s:e] = z.real
        c2[s:e] = z.real
        s1[s:e] = z.imag
        s2[s:e] = z.imag
    if low:
        cos, sin = round_to(cos, dt), round_to(sin, dt)
    return cos.reshape(pshape + (rd,)), sin.reshape(pshape + (rd,))


def _rope_cos_sin(positions: Any, *, layout: str, dtype: Any, accurate: bool, **kw: Any) -> tuple[np.ndarray, np.ndarray]:
    """:func:`pe_symbolic.numeric.rope_cos_sin` without the layout warning and the fast path
    (the JAX backend's host tables, always split)."""
    dt = check_float_dtype(dtype)
    t = as_positions(positions)
    plan = NUMPY.plan(**{**kw, "seq_len": F._length_of(NUMPY, kw.get("config"), kw.get("inv_freq"),
                                                       kw.get("layer_type"), kw.get("seq_len"), t, "positions")},
                      rotary_dim=None)
    return _cos_sin_tables(t, plan, dt, F.slot_order(layout), accurate)


# ----------------------------------------------------------------------------------------
# the rotation: blocked along the sequence axis; the phasors of one block of positions (a
# small table, reused by every leading index of x) are computed in complex128, rounded once
# to x's precision, and applied while they sit in cache; the kernels themselves (one complex
# multiply per block for the interleaved layout, three calls per cache-sized group for the
# split layout) are in _rope_kernels, with the measurements behind their block sizes.
# Temporaries are table- and group-sized, never x-sized.


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
        self.z = scratch("phasors", (self.P, self.rows, src.h), cdt)
        self.direct = cdt == np.complex128 or src.mode == "run"
        if not self.direct:  # complex128 scratch of one source block, then rounded
            self.z128 = scratch("phasors128", (max(1, min(src.block_rows(), self.P * self.rows)),
                                               src.h), np.complex128)

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


def _blocks_of(src: K.PhasorSource, tshape: tuple[int, ...]):
    """The kernels' phasor-block factory: ``(rows, complex dtype) -> _PhasorBlocks``."""
    return lambda rows, cdt: _PhasorBlocks(src, tshape, rows, cdt)


def _rope_interleaved(x: np.ndarray, src: K.PhasorSource, tshape: tuple[int, ...],
                      out: np.ndarray, rd: int) -> None:
    """Interleaved layout: one complex multiply per block on complex views of x and out."""
    _rope_kernels.interleaved(x, out, rd, tshape, _blocks_of(src, tshape), _rope_product())


def _rope_split(x: np.ndarray, src: K.PhasorSource, tshape: tuple[int, ...],
                out: np.ndarray, rd: int) -> None:
    """Split layout: ``out = x*[c, c] + swap_halves(x)*[-s, s]`` in cache-sized groups."""
    _rope_kernels.split(x, out, rd, tshape, _blocks_of(src, tshape))


def _rotate_into(x: np.ndarray, out: np.ndarray, src: Any, tshape: tuple[int, ...], layout: str, rd: int) -> None:
    """``x`` rotated by the phasors of ``src`` into ``out`` (may be ``x``)."""
    low = x.dtype.itemsize < 4
    if low and _rope_kernels.half(*((x[None], out[None]) if x.ndim == 1 else (x, out)),
                                  rd, tshape, _blocks_of(src, tshape), layout, _rope_product()):
        return  # the compiled 16-bit kernels: bit for bit the route below, in one pass
    final = out
    if low:  # float16 / bfloat16: exactly to float32, rotate there, round once back
        x = x.astype(np.float32)
        out = np.empty_like(x)
    if rd < x.shape[-1] and out is not x:
        out[..., rd:] = x[..., rd:]
    xv, ov = (x[None], out[None]) if x.ndim == 1 else (x, out)  # 1-D: scalar positions
    (_rope_interleaved if layout == "interleaved" else _rope_split)(xv, src, tshape, ov, rd)
    if low:
        final[...] = out.astype(final.dtype)  # float32 -> float16/bfloat16: one rounding


@dataclass(frozen=True)
class _Options:
    """The NumPy core's own keywords of one call, checked."""

    accurate: bool = False
    outs: list[np.ndarray] | None = None
    out: Any = None


def _outs(out: Any, xs: list[np.ndarray], many: bool) -> list[np.ndarray]:
    if many:
        if not isinstance(out, (tuple, list)) or len(out) != len(xs):
            raise ValueError(f"out must be a tuple of {len(xs)} arrays (one per array of x) or None")
        return [check_out(o, v.shape, v.dtype, name=f"out[{q}]") for q, (o, v) in enumerate(zip(out, xs))]
    return [check_out(out, xs[0].shape, xs[0].dtype)]


class _Numpy(F.Backend):
    second = "positions"
    options: Mapping[str, tuple[str, ...]] = {"apply_rope": ("accurate", "out", "check_finite"),
                                              "rope_cos_sin": ("accurate",),
                                              "sinusoidal_table": ("accurate", "out")}

    def check_x(self, v: Any, name: str) -> Any:
        return check_x(v, name=name)

    def is_array(self, v: Any) -> bool:
        return isinstance(v, np.ndarray)

    def meta(self, v: Any) -> Any:
        return (v.shape, v.dtype) if type(v) is np.ndarray else None

    def check_dtype(self, dtype: Any, name: str = "dtype") -> Any:
        return check_float_dtype(np.float64 if dtype is None else dtype, name=name)

    def take_options(self, fn: str, given: Mapping[str, Any], xs: list[Any] | None = None,
                     many: bool = False) -> Any:
        super().take_options(fn, given)
        accurate = given.get("accurate", False)
        if "check_finite" in given:
            cf = given["check_finite"]
            if not isinstance(cf, bool):
                raise TypeError(f"check_finite={cf!r} must be True or False")
            for q, v in enumerate(xs or ()):
                check_finite_x(v, name=f"x[{q}]" if many else "x")
        outs = _outs(given["out"], xs, many) if "out" in given and xs is not None else None
        return _Options(bool(accurate), outs, given.get("out"))

    def is_low(self, dtype: Any) -> bool:
        return as_dtype(dtype).itemsize < 4

    def compute_dtype(self, dtype: Any) -> Any:
        return np.dtype(np.float64) if dtype == np.float64 else np.dtype(np.float32)

    def dtype_name(self, dtype: Any) -> str:
        return np.dtype(dtype).name

    def positions(self, positions: Any, name: str, device: Any = None) -> Any:
        return as_positions(positions, name=name)

    def plan(self, *, config: Any, inv_freq: Any, layer_type: Any, seq_len: Any, **kw: Any) -> FrequencyPlan:
        config, seq_len = config_and_length(config, inv_freq, layer_type, seq_len, lambda: None)
        return frequency_plan(config=config, inv_freq=inv_freq, layer_type=layer_type, seq_len=seq_len, **kw)

    def full_tables(self, t: Any, plan: Any, dtype: Any, layout: str, kw: dict[str, Any], device: Any,
                    opts: Any) -> tuple[Any, Any]:
        return _cos_sin_tables(t, plan, dtype, layout, bool(opts and opts.accurate))

    def rotate_positions(self, xs: list[Any], t: Any, r: F.Resolved, opts: Any) -> list[Any]:
        plan = r.plan
        if r.ids:
            t = self.insert_heads(t)
        outs = opts.outs if opts is not None and opts.outs is not None else [np.empty(v.shape, v.dtype) for v in xs]
        # leading singleton axes broadcast anyway: dropped (the kernels read tshape[:-1] as the
        # axes along which positions vary besides the sequence)
        core = list(r.core)
        while len(core) > 1 and core[0] == 1:
            core.pop(0)
        t = _plan_positions(t, plan).reshape(((plan.n_axes,) if plan.n_axes > 1 else ()) + tuple(core))
        src = phasor_source(plan, t, bool(opts and opts.accurate))
        tshape = (t.shape[1:] if plan.n_axes > 1 else t.shape) or (1,)
        for v, o in zip(xs, outs):
            _rotate_into(v, o, src, tshape, r.layout, plan.rotary_dim)
        return outs

    def rotate_tables(self, xs: list[Any], cos: Any, sin: Any, r: F.Resolved, opts: Any) -> list[Any]:
        got = super().rotate_tables(xs, cos, sin, r, opts)
        if opts is None or opts.outs is None:
            return got
        for o, g in zip(opts.outs, got):
            o[...] = g
        return opts.outs

    def sinusoidal(self, t: Any, d: int, base: float, layout: str, order: str, schedule: str, dtype: Any,
                   device: Any, opts: Any) -> Any:
        out = check_out(opts.out if opts is not None else None, t.shape + (d,), dtype)
        return _sinusoidal_into(t, d, base, layout, order, schedule, dtype, bool(opts and opts.accurate), out)

    # array operations of the shared rotation (apply_rope with cos_sin=)
    def dtype(self, name: str) -> Any:
        return as_dtype(name)

    def cast(self, v: Any, dtype: Any) -> Any:
        return v.astype(dtype)

    def concat(self, parts: list[Any]) -> Any:
        return np.concatenate(parts, axis=-1)

    def interleave(self, a: Any, b: Any) -> Any:
        return np.stack((a, b), axis=-1).reshape(a.shape[:-1] + (2 * a.shape[-1],))

    def pair_slots(self, x: Any, rd: int) -> tuple[Any, Any]:
        return x[..., 0:rd:2], x[..., 1:rd:2]

    def formula(self, name: str) -> Any:
        from . import lower

        return lower.rope_pair("numpy")


#: The NumPy core's backend (the public functions of :mod:`pe_symbolic.numeric` are bound to it).
NUMPY = _Numpy("pe_symbolic.numeric", "numpy.ndarray")
