"""The torch backend of the shared front end (:mod:`pe_symbolic.numeric._frontend`): the tables
(float64 cosines and sines of the lowered formula, rounded once; under ``torch.compile`` one
opaque operation), their cache, and ``_Torch``, what the front end needs from torch.

The rotations it routes to are :mod:`~pe_symbolic.torch._rotate`'s; what it is measured
against is in :mod:`pe_symbolic.torch`'s notes (Performance, the table cache).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Mapping
from typing import Any

from ..numeric import _frontend as F
from ._rotate import _rotate_all, _rotate_blocks, _rotate_whole, _signs
from ._runtime import (_MODULE, _check_dtype, _compiling, _float64, _formula, _intercepted, _plan_values,
                       _sinusoidal_plan, _static, _tensor_type, _torch)


# ----------------------------------------------------------------------------------------
# the tables: float64 cosines and sines, rounded once; under torch.compile one opaque operation


def _register_table_op() -> bool:
    """Register ``torch.ops.pe_symbolic.rope_tables`` (once): the tables as one opaque
    operation under ``torch.compile``, so that a compiled ``apply_rope`` looks them up in
    the table cache instead of recomputing ``positions x d/2`` float64 cosines and sines."""
    torch = _torch()
    with _CACHE_LOCK:
        if _TABLE_OP:
            return True
        try:  # registered already (by an earlier import of this module, e.g. a reload)
            _TABLE_OP.append(torch.ops.pe_symbolic.rope_tables)
            return True
        except (AttributeError, RuntimeError):
            pass
        _TABLE_OP.append(_make_table_op(torch))
    return True


def _make_table_op(torch):
    """Define ``pe_symbolic::rope_tables`` and its shape function (for tracing)."""

    def rope_tables(positions, w, axes, attention, dtype):
        plan = F.TablePlan(tuple(w), 2 * len(w), None if axes is None else tuple(axes), attention)
        if positions.device.type != "cpu":  # computed now: new tensors, the graph's own
            c, s = _compute_tables(positions, plan, dtype)
            return c.contiguous(), s.contiguous()  # (M-RoPE's are strided views; the fake says contiguous)
        c, s = _cached_tables(positions, plan, dtype)
        return _fresh(c), _fresh(s)  # the graph owns its outputs (it may reuse their memory)

    def fake(positions, w, axes, attention, dtype):
        shape = tuple(positions.shape[1:] if axes is not None else positions.shape) + (len(w),)
        out = positions.new_empty(shape, dtype=dtype)
        return out, torch.empty_like(out)

    op = torch.library.custom_op("pe_symbolic::rope_tables", rope_tables, mutates_args=(), schema=(
        "(Tensor positions, float[] w, int[]? axes, float attention, ScalarType dtype) -> (Tensor, Tensor)"))
    op.register_fake(fake)
    return op


_TABLE_OP: list[Any] = []


# What torch.compiler.assume_constant_result(fn) does (it sets this flag and returns fn),
# without importing torch here: dynamo calls these at trace time instead of tracing them.
_register_table_op._dynamo_marked_constant = True  # type: ignore[attr-defined]


def _round_once(v, dtype):
    """float64 ``v`` rounded once to ``dtype`` (:func:`pe_symbolic.numeric._frontend.round_once`;
    converting float64 -> float16 in torch rounds twice)."""
    return v.float() if dtype == _MODULE[0].float32 else F.round_once(_B, v, dtype)


#: Frequency vectors (and M-RoPE axis indices) as tensors: (values, device, dtype, inference
#: mode) -> tensor, read only. Made once per device: ``torch.tensor(list, device=...)`` is a
#: copy from host memory each time (which a CUDA graph cannot capture; on the CPU, a few
#: microseconds of a decoding step).
_FREQS: OrderedDict[Any, Any] = OrderedDict()


def _frequencies(w: tuple[Any, ...], device, dtype=None, key: Any = None):
    """``w`` as a tensor (default float64) on ``device`` (under ``torch.compile``: a constant
    of the graph; in eager mode: from a small cache, read only; ``key``: what stands for ``w``
    there, e.g. its plan, whose hash is kept)."""
    torch = _torch()
    dtype = torch.float64 if dtype is None else dtype
    if _compiling() or _intercepted():
        return torch.tensor(w, dtype=dtype, device=device)
    key = (w if key is None else key, device, dtype, torch.is_inference_mode_enabled())
    with _CACHE_LOCK:
        v = _FREQS.get(key)
        if v is not None:
            _FREQS.move_to_end(key)
            return v
    v = torch.tensor(w, dtype=dtype, device=device)
    with _CACHE_LOCK:
        _FREQS[key] = v
        while len(_FREQS) > 4 * _CACHE_SIZE:
            _FREQS.popitem(last=False)
    return v


def _float_positions(t, name: str):
    """Float32, float16 or bfloat16 positions held to where their type holds every integer
    (``pe_symbolic.numeric._checks.as_positions`` on the host: a ``ValueError`` naming
    the first position the type cannot hold); 16-bit ones returned as float32 (exact)."""
    torch = _torch()
    low = t.dtype != torch.float32
    held = str(t.dtype).removeprefix("torch.")
    if _compiling():  # the values cannot be read here (a sync, a graph break)
        if low:
            bound = 2048 if t.dtype == torch.float16 else 256
            raise TypeError(f"{name} of dtype {held} are refused under torch.compile: {held} holds every integer "
                            f"only up to {bound} ({bound + 1} is the first position it cannot hold), and the values "
                            "cannot be checked while compiling; hold positions as integers (torch.long)")
        return t
    if low or (t.numel() and float(t.abs().amax()) >= 2.0**24):
        from ..numeric._checks import as_positions

        as_positions(t.to("cpu", torch.float32).numpy(), name=name, held_as=held)  # raises, or warns (16-bit)
    return t.to(torch.float32) if low else t


def _compute_tables(t, plan: F.TablePlan, dtype):
    """Half tables ``P + (h,)`` of positions ``t`` (any real dtype; ``(3,) + P`` for M-RoPE):
    the lowered ``(cos(m*theta), sin(m*theta))`` of float64 positions and frequencies, times
    the attention factor, rounded once to ``dtype``; on ``t``'s device (MPS, which has no
    float64: formed on the CPU)."""
    torch = _torch()
    dev = t.device
    # (CPU positions of any real dtype multiply float64 frequencies in float64: converted
    # exactly inside the product, the bits of converting them first, one operation less)
    t64 = t if t.is_cpu and plan.axes is None else _float64(t)
    w = _frequencies(plan.w, t64.device, key=plan)
    if plan.axes is None:
        m = t64.unsqueeze(-1)
    else:
        idx = _frequencies(plan.axes, t64.device, torch.int64)
        m = t64.index_select(0, idx).movedim(0, -1)  # P + (h,): pair j's position axis
    c, s = _formula("cos_sin")(m, w)
    if plan.attention != 1.0:
        c, s = c * plan.attention, s * plan.attention
    c, s = _round_once(c, dtype), _round_once(s, dtype)
    return (c, s) if t64.device == dev else (c.to(dev), s.to(dev))


# ----------------------------------------------------------------------------------------
# the table cache: a model applies RoPE with the same position_ids in every layer

#: Most recently used tables: key -> [positions, cos, sin, {layout: full-width tables}]. At
#: most eight entries and :data:`_CACHE_BYTES` bytes of tables (the least recently used go
#: first; tables larger than a sixth of that are not kept).
_CACHE: OrderedDict[Any, list[Any]] = OrderedDict()
_CACHE_SIZE = 8
_CACHE_BYTES = 2**28
_CACHE_LOCK = threading.Lock()
#: The bytes the entries of :data:`_CACHE` count.
_SIZE = [0]


def _bits(t):
    """``t`` as integers of its width (floats compared bit for bit: -0.0 is not 0.0, a NaN
    equals itself), for the cache's comparison of positions."""
    torch = _torch()
    if t.dtype.is_floating_point:
        return t.view({8: torch.int64, 4: torch.int32, 2: torch.int16}[t.element_size()])
    return t


def _fresh(t):
    """A copy of ``t``. On the CPU a NumPy copy, one thread: a table is small against ``x``,
    and torch's copy would be a parallel region of every thread (measured on a loaded
    2-core machine: 0.2 ms when both threads run, 37 ms median while one waits for a core)."""
    torch = _torch()
    if t.device.type != "cpu" or not t.is_contiguous():
        return t.clone(memory_format=torch.contiguous_format)  # (M-RoPE's tables are strided)
    return torch.from_numpy(_bits(t).numpy().copy()).view(t.dtype)


def _table_entry(t, plan: F.TablePlan, dtype) -> list[Any]:
    """:func:`_compute_tables` as an entry ``[positions, cos, sin, {}]`` of a small cache keyed
    by the plan, dtype, device, inference mode and the positions' dtype and shape, and checked
    against the positions' values (a hit is bit for bit what a recomputation gives). The
    tables are shared with the cache: callers read them, never write them. CPU positions
    only: on an accelerator the comparison would make the host wait for the device every
    call, so the tables are computed there (asynchronously) instead, every call."""
    torch = _torch()
    if not t.is_cpu:
        return [t, *_compute_tables(t, plan, dtype), {}, 0]
    key = (plan, dtype, t.dtype, t.shape, torch.is_inference_mode_enabled())
    with _CACHE_LOCK:
        hit = _CACHE.get(key)
        if hit is not None:
            _CACHE.move_to_end(key)
    if hit is not None and torch.equal(_bits(hit[0]), _bits(t)):
        return hit
    c, s = _compute_tables(t, plan, dtype)
    size = 6 * c.numel() * c.element_size()  # (with one set of full-width tables)
    entry = [(t.detach() if t.requires_grad else t).clone(), c, s, {}, size]
    if size <= _CACHE_BYTES:
        with _CACHE_LOCK:
            old = _CACHE.pop(key, None)
            _CACHE[key] = entry
            _SIZE[0] += size - (old[4] if old is not None else 0)
            while len(_CACHE) > _CACHE_SIZE or _SIZE[0] > _CACHE_BYTES:
                _SIZE[0] -= _CACHE.popitem(last=False)[1][4]
    return entry


def _cached_tables(t, plan: F.TablePlan, dtype):
    """The half tables ``(cos, sin)`` of positions ``t`` (:func:`_table_entry`)."""
    entry = _table_entry(t, plan, dtype)
    return entry[1], entry[2]


def _cached_full_tables(t, plan: F.TablePlan, dtype, layout: str, heads: bool):
    """The full-width tables ``(cos, signed sine)`` of :func:`_rotate_full` for positions ``t``
    (with the heads axis inserted, ``heads``: Hugging Face's ``position_ids``), kept with their
    half tables (:func:`_table_entry`): a model that rotates with the same ``position_ids`` in
    every layer makes them once."""
    torch = _torch()
    entry = _table_entry(t, plan, dtype)
    full = entry[3].get((layout, heads))
    if full is None:
        c, s = entry[1], entry[2]
        if layout == "split":
            full = torch.cat((c, c), dim=-1), torch.cat((-s, s), dim=-1)
        else:
            full = c.repeat_interleave(2, dim=-1), torch.stack((-s, s), dim=-1).flatten(-2)
        if heads:
            full = full[0].unsqueeze(-3), full[1].unsqueeze(-3)
        entry[3][(layout, heads)] = full
    return full


def clear_cache() -> None:
    """Empty the table cache of :func:`apply_rope` (it holds the tables of the last eight
    positions / frequencies / dtypes seen, at most 256 MiB; under ``torch.compile``,
    :func:`rope_cos_sin`'s too) and what the fast path kept of earlier calls.

    >>> clear_cache()
    """
    with _CACHE_LOCK:
        _CACHE.clear()
        _SIZE[0] = 0
        _FREQS.clear()
    _B.fast.clear()


# ----------------------------------------------------------------------------------------
# the backend: what pe_symbolic.numeric._frontend needs from torch

#: The eager CPU rotation of an ``x`` of at most this many elements is the whole-tensor
#: operations of :func:`F.rotate`: their temporaries (at most 8 MiB here) usually come back
#: from the heap (glibc may hand them to the kernel between calls: the frameworks how-to),
#: and a few operations cost less than the blocks' Python. (Measured on a 2-core EPYC,
#: calls in a row, against blocks: (1, 32, 1, 128) 16 us against 39 us, (1, 32, 16, 128)
#: 0.1 ms against 0.3 ms, (1, 32, 512, 128) float32 1.5 ms against 3.2 ms; at 2**23 elements
#: the split layout within 20% either way (interleaved bfloat16: the whole-tensor operations
#: 1.9x faster), and at 2**24 blocks 1.1-2.7x faster: there every temporary is fresh pages
#: from the kernel.)
_WHOLE = 2**22

#: The eager CPU rotation of an ``x`` of at most this many elements is the full-width one
#: (:func:`_rotate_full`: four operations, against the seven of :func:`F.rotate`), which pays
#: where a call's operations cost more than its bytes. (Measured on the loaded 2-core EPYC,
#: one thread, CPU time of the thread, medians, full-width against half-width: 0.69-0.82x up
#: to (8, 32, 4, 128) and (1, 32, 16, 128), 0.81-0.92x at 2**17 and 2**18 elements, 1.32x
#: float32 and 0.97x bfloat16 at 2**19, 1.32x and 1.67x at 2**22: there its full-width float32
#: temporaries and the roll's copy are the cost.)
_FULL = 2**18


class _Torch(F.Backend):
    """What :mod:`pe_symbolic.numeric._frontend` needs from torch."""

    def is_array(self, v: Any) -> bool:
        return isinstance(v, _torch().Tensor)

    def meta(self, v: Any) -> Any:
        # exact tensors only (a subclass -- DTensor, a tensor-like -- is checked every call)
        if type(v) is not _tensor_type():
            return None
        return (v.shape, v.dtype, True) if v.is_cpu else (v.shape, v.dtype, v.device)

    def key_part(self, v: Any) -> Any:
        # (meta inlined for tensors and tuples of them: this runs for every argument of every call)
        T = _tensor_type()
        t = type(v)
        if t is T:
            return (v.shape, v.dtype, True) if v.is_cpu else (v.shape, v.dtype, v.device)
        if t is tuple or t is list:
            return (t, *[((e.shape, e.dtype, True) if e.is_cpu else (e.shape, e.dtype, e.device))
                         if type(e) is T else self.key_part(e) for e in v])
        if t is dict:  # a config: by identity (compared by value on a hit)
            return (Mapping, id(v))
        if t is str or t is float or t is int or t is bool or v is None:
            return (t, v)
        return F.key_part(self, v)

    def route(self, xs: list[Any], rd: int) -> Any:
        # the full-width rotation (_rotate_full) of plain CPU tensors of at most _FULL elements:
        # per tensor, the dtype of the tables and of the result (None: the tables'), and whether
        # every channel rotates
        torch, T = _torch(), _tensor_type()
        limit = min(_FULL, _WHOLE)  # (above _WHOLE: blocks)
        if _compiling() or not all(type(v) is T and v.is_cpu and v.numel() <= limit for v in xs):
            return None
        back = {torch.float16: torch.Tensor.half, torch.bfloat16: torch.Tensor.bfloat16}  # (cheaper than .to(dtype))
        return (tuple((torch.float64 if v.dtype == torch.float64 else torch.float32, back.get(v.dtype)) for v in xs),
                all(v.shape[-1] == rd for v in xs))

    def insert_heads(self, t: Any) -> Any:
        return t.unsqueeze(-2)

    def fast_ok(self) -> bool:
        return not _compiling()

    def static(self, v: Any) -> Any:
        return _static(v) if _compiling() else v

    def check_dtype(self, dtype: Any, name: str = "dtype") -> Any:
        return _check_dtype(dtype, name)

    def is_low(self, dtype: Any) -> bool:
        torch = _torch()
        return dtype in (torch.float16, torch.bfloat16)

    def compute_dtype(self, dtype: Any) -> Any:
        torch = _torch()
        return torch.float64 if dtype == torch.float64 else torch.float32

    def device_of(self, x: Any) -> Any:
        return x.device

    def positions(self, positions: Any, name: str, device: Any = None) -> Any:
        """Positions as a tensor of their own dtype (tables are formed in float64 from them;
        integers are exact below 2**53) on ``device``; array_like positions are checked as
        the NumPy API checks them (finite, real, ``|t| < 2**53``). A float tensor is held to
        where its type holds every integer (``pe_symbolic.numeric._checks.as_positions``):
        float32 below 2**24, float16 and bfloat16 below 2048 and 256 (converted to float32,
        exactly, with a warning; refused under ``torch.compile``, where their values cannot
        be read)."""
        torch = _torch()
        if isinstance(positions, torch.Tensor):
            if positions.dtype == torch.bool or positions.is_complex():
                raise TypeError(f"{name} must hold integers or real numbers; got dtype {positions.dtype}")
            t = positions.detach() if positions.requires_grad else positions
            if t.dtype in (torch.float32, torch.float16, torch.bfloat16):
                t = _float_positions(t, name)
            if device is not None:
                dev = device if isinstance(device, torch.device) else torch.device(device)
                if not (t.is_cpu and dev.type == "cpu") and dev.type != "mps" and t.device != dev:
                    t = t.to(dev)  # (MPS: float64 on the CPU)
            return t
        import numpy as np

        from ..numeric._checks import as_positions

        arr = as_positions(positions, name=name)
        t = torch.from_numpy(np.ascontiguousarray(arr, dtype=np.float64))
        return t if device is None or torch.device(device).type == "mps" else t.to(device)

    def traced(self, t: Any) -> bool:
        return _compiling()

    def can_warn(self) -> bool:
        return not _compiling()  # Dynamo cannot trace warnings.warn (fullgraph would fail)

    def host_max(self, t: Any) -> float:
        return float(t.max())

    def plan(self, **kw: Any) -> F.TablePlan:
        return F.TablePlan(*_plan_values(**(_static(kw) if _compiling() else kw)))

    def host_inv_freq(self, inv_freq: Any) -> Any:
        torch = _torch()
        if isinstance(inv_freq, torch.Tensor):
            return inv_freq.detach().to("cpu", torch.float64).numpy()
        return inv_freq

    def tables(self, t: Any, plan: F.TablePlan, dtype: Any, kw: dict[str, Any], device: Any,
               keep: bool = True) -> tuple[Any, Any]:
        torch = _torch()
        if _compiling():
            # one opaque operation: on the CPU a lookup in the table cache; on an accelerator the
            # tables computed once per call (traced, inductor fused their float64 cos/sin into the
            # rotation and recomputed them for every head: 2.8x HF's compiled formula on an H100)
            _register_table_op()
            c, s = torch.ops.pe_symbolic.rope_tables(t, list(plan.w), None if plan.axes is None else list(plan.axes),
                                                      plan.attention, dtype)
        else:
            keep = keep and type(t) is torch.Tensor and not _intercepted()  # (a tracer's tensors: not kept)
            c, s = _cached_tables(t, plan, dtype) if keep else _compute_tables(t, plan, dtype)
        if device is not None and c.device != device:
            c, s = c.to(device), s.to(device)
        return c, s

    def widen(self, half: Any, layout: str) -> Any:
        torch = _torch()
        if layout == "split":
            return torch.cat((half, half), dim=-1)
        return half.repeat_interleave(2, dim=-1)

    def repeated_rows(self, t: Any, axis: int) -> int:
        # eager CPU positions only: under a tracer the values are unknown, and on an
        # accelerator the comparison would make the host wait for the device; not for one
        # position a row (a decoding step: the tables are as small as the view)
        torch = _torch()
        if (_compiling() or type(t) is not torch.Tensor or t.device.type != "cpu" or t.ndim < axis + 2
                or t.shape[axis] < 2 or t.shape[-1] < 2):
            return 0
        b = _bits(t)
        return t.shape[axis] if torch.equal(b, b.narrow(axis, 0, 1).expand_as(b)) else 0

    def expand_rows(self, v: Any, n: int) -> Any:
        return v.expand((n,) + tuple(v.shape[1:]))

    def rotate(self, x: Any, c: Any, s: Any, layout: str, rd: int) -> Any:
        torch = _torch()
        if (_compiling() or type(x) is not torch.Tensor or x.device.type != "cpu" or x.ndim < 2
                or (torch.is_grad_enabled() and (x.requires_grad or c.requires_grad or s.requires_grad))):
            # one graph: fused by torch.compile, recorded by autograd; subclasses (DTensor, ...) as they are
            return F.rotate(self, x, c, s, layout, rd)
        if x.device.type != "cpu":
            return _rotate_whole(self, x, c, s, layout, rd)
        if x.numel() <= _WHOLE:
            return F.rotate(self, x, c, s, layout, rd)
        return _rotate_blocks(self, x, c, s, layout, rd)

    def rotate_positions(self, xs: list[Any], t: Any, r: F.Resolved, opts: Any) -> list[Any]:
        torch = _MODULE[0]
        if not r.route or (torch.is_grad_enabled() and any(v.requires_grad for v in xs)):
            return super().rotate_positions(xs, t, r, opts)
        tables: dict[Any, Any] = {}
        for cdt, _ in r.route[0]:
            if cdt not in tables:
                tables[cdt] = _cached_full_tables(t, r.plan, cdt, r.layout, r.ids)
        return _rotate_all(xs, [tables[cdt] for cdt, _ in r.route[0]], r.route, r.layout, r.plan.rotary_dim)

    def rotate_tables(self, xs: list[Any], cos: Any, sin: Any, r: F.Resolved, opts: Any) -> list[Any]:
        torch = _MODULE[0]
        if not r.route or (torch.is_grad_enabled() and (cos.requires_grad or sin.requires_grad
                                                        or any(v.requires_grad for v in xs))):
            return super().rotate_tables(xs, cos, sin, r, opts)
        signed = sin * _signs(r.rd, r.layout, sin.dtype)  # [-s, s]: see _rotate_full
        if cos.dtype != torch.float64 and cos.dtype != torch.float32:  # 16-bit tables: products in float32
            cos, signed = cos.float(), signed.float()
        full = (cos, signed), (cos.unsqueeze(-3), signed.unsqueeze(-3)) if True in r.heads else None
        return _rotate_all(xs, [full[heads] for heads in r.heads], r.route, r.layout, r.rd)

    def sinusoidal(self, t: Any, d: int, base: float, layout: str, order: str, schedule: str, dtype: Any,
                   device: Any, opts: Any) -> Any:
        torch = _torch()
        dev = t.device if device is None else torch.device(device)
        t64 = _float64(t)
        w = torch.tensor(_sinusoidal_plan(d, base, schedule).w, dtype=torch.float64, device=t64.device)
        s, c = _formula("sinusoidal")(t64[..., None], w)
        return F.sinusoidal_slots(self, s, c, layout, order, lambda v: _round_once(v, dtype)).to(dev)

    def dtype(self, name: str) -> Any:
        return getattr(_torch(), name)

    def bitcast(self, v: Any, dtype: Any) -> Any:
        return v.view(dtype)

    def cast(self, v: Any, dtype: Any) -> Any:
        return v.to(dtype)

    def concat(self, parts: list[Any]) -> Any:
        return _torch().cat(parts, dim=-1)

    def interleave(self, a: Any, b: Any) -> Any:
        return _torch().stack((a, b), dim=-1).flatten(-2)

    def pair_slots(self, x: Any, rd: int) -> tuple[Any, Any]:
        xr = x[..., :rd].unflatten(-1, (rd // 2, 2))
        return xr[..., 0], xr[..., 1]

    def formula(self, name: str) -> Any:
        return _formula(name)


_B = _Torch("pe_symbolic.torch", "torch.Tensor", "tensor", "torch.compile")
if _MODULE:
    _B.values = (_MODULE[0].dtype, _MODULE[0].device)
