r"""The proved formulas lowered to PyTorch: RoPE and sinusoidal tables on tensors.

Tensors in, tensors out, on the input's device and in its dtype (float64, float32,
float16, bfloat16); differentiable in ``x``; usable under ``torch.compile(fullgraph=True)``
(no graph break in :func:`apply_rope`, :func:`rope_cos_sin` or :func:`sinusoidal_table`).

**Where the formulas come from.** The same proved claims as the NumPy core, through the
same door (:mod:`pe_symbolic.numeric.lower`, ``modules="torch"``): the rotation of a pair
``(x_a c - x_b s, x_a s + x_b c)`` (:func:`~pe_symbolic.numeric.lower.rope_pair`, claim
``rope.efficient_form``), the table entries ``(cos(m*theta), sin(m*theta))``
(:func:`~pe_symbolic.numeric.lower.rope_angle_cos_sin`) and ``(sin(omega*t),
cos(omega*t))`` (:func:`~pe_symbolic.numeric.lower.sinusoidal_pair`, claim
``translation.identity``). The frequencies are the NumPy core's: 40-digit values of the
proved schedule (or of a model config's rope type, :func:`pe_symbolic.numeric.rope_frequencies`),
rounded once to float64.

**Precision.** Angles are never formed in float32: positions (any integer or float dtype)
and frequencies are float64, the angle ``m * theta`` is one float64 product, its cosine and
sine are float64, and the table is rounded once to its dtype (float16 / bfloat16 correctly,
by rounding to odd in float32 first, not twice). The angle's error is at most
``2**-52 * |m * theta|`` (the product and the frequency each rounded once): 2.3e-10 rad at
``m * theta = 1e6``, far inside the ``1e-7`` rad of the precision audit. ``x`` in float16 /
bfloat16 is rotated in float32 and rounded once back, as the NumPy core does. (The NumPy
core's default tables are more accurate still in float64, within 7 ulp absolute at any
position; in float32 and below the two agree to the last bit almost everywhere and within
one ulp always.)

**Performance.** In eager mode on the CPU, :func:`apply_rope` rotates an ``x`` of more than
2**22 elements in blocks of 2**16 elements shared among ``torch.get_num_threads()`` worker
threads: the same operations on the same values as the whole-tensor formula (the same
bits), with cache-sized float32 temporaries instead of x-sized ones (fresh pages from the
kernel at that size). A smaller ``x`` is rotated by whole-tensor operations, whose
temporaries the heap usually reuses: up to 2**18 elements (a decoding step, a short prompt)
at full width, ``x * [c, c] + roll(x) * [-s, s]`` (the two products of each slot and their
sum: the bits of the lowered pair formula, in four operations instead of seven), above that
by the lowered pair formula on the halves. With ``requires_grad``, under ``torch.compile``
and on other devices it is one graph of whole-tensor operations (which ``torch.compile``
fuses into one pass over ``x``).

A call that repeats an earlier call's shapes, dtypes, devices, keywords and config -- every
layer of a decoding step -- skips the argument checks that call passed (the fast path of the
shared front end, :mod:`pe_symbolic.numeric._frontend`); anything changed is checked in full,
with the same messages. :class:`RotaryEmbedding` is Hugging Face's ``rotary_emb`` /
``apply_rotary_pos_emb`` pair as one object built from a config.

The tables :func:`apply_rope` computes from CPU ``position_ids`` (float64 cosines and sines
of ``positions x d/2`` entries, and their full-width forms) are kept in a small cache (the
last eight, at most 256 MiB: positions, frequencies, dtype, device, inference mode), compared
against the positions' *values* on every call (a bitwise comparison of the small positions
tensor), so a model that applies RoPE with the same ``position_ids`` in every layer computes
them once, and a hit gives the bits a recomputation gives; :func:`clear_cache` frees it.
(:func:`rope_cos_sin`'s tables, which its caller keeps, are computed every call.) Under ``torch.compile`` the tables of
CPU positions are one opaque operation (``torch.ops.pe_symbolic.rope_tables``) that looks
them up in the same cache and returns a copy the graph owns. On an accelerator the tables
are computed every call, as a cache check there would make the host wait for the device;
under ``torch.compile`` by the same operation, once per call (traced, inductor fused their
float64 cosines and sines into the rotation and recomputed them for every head). Passing
``cos_sin=`` from :func:`rope_cos_sin` (Hugging Face's ``rotary_emb`` /
``apply_rotary_pos_emb`` split) skips the lookup.

torch is optional: ``pip install 'pe_symbolic[torch]'``.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from .numeric import _frontend as F
from .numeric import lower as _lower

if TYPE_CHECKING:  # pragma: no cover
    import torch

__all__ = ["RotaryEmbedding", "apply_rope", "clear_cache", "rope_cos_sin", "sinusoidal_table"]

_FLOATS = ("float64", "float32", "float16", "bfloat16")


#: ``[torch, torch.Tensor, torch.compiler.is_compiling]`` (looked up on every call), or
#: empty where torch is not installed. Filled here, at import, never later: a first call
#: inside ``torch.compile`` must not change module state (Dynamo replays what it traced).
_MODULE: list[Any] = []
try:
    import torch as _torch_module
except ImportError:  # (the functions say so when called)
    pass
else:
    _MODULE[:] = [_torch_module, _torch_module.Tensor, _torch_module.compiler.is_compiling]


def _torch():
    if not _MODULE:
        raise ImportError("pe_symbolic.torch needs torch, which is not installed: "
                          "pip install 'pe_symbolic[torch]' (or pip install torch)")
    return _MODULE[0]


def _compiling() -> bool:
    return bool(_torch() and _MODULE[2]())


def _intercepted() -> bool:
    """Whether a torch dispatch mode is active (``make_fx``'s proxy and fake-tensor modes,
    FunctionalTensorMode): the tensors made now are the tracer's (a FakeTensor has no data),
    so no cache is read or written (a cached FakeTensor met a real input in the next eager
    call: ``verify_rope`` traces ``apply_rope`` with ``make_fx`` before it tests it)."""
    return _torch()._C._len_torch_dispatch_stack() > 0


# ----------------------------------------------------------------------------------------
# host-side planning: plain Python values, a constant to torch.compile


def _plan_values(**kw: Any) -> tuple:
    """The frequency plan's values (a tuple of Python numbers): host work (config parsing,
    40-digit frequencies), run once at trace time under ``torch.compile`` and baked into
    the graph as a constant."""
    p = F.table_plan(**kw)
    return (p.w, p.rotary_dim, p.axes, p.attention, p.n_axes)


def _sinusoidal_values(d: int, base: Any, schedule: str) -> tuple:
    """As :func:`_plan_values`, for :func:`sinusoidal_table`."""
    p = F.table_plan_sinusoidal(d, base, schedule)
    return (p.w, p.rotary_dim, p.axes, p.attention)


#: The lowered formulas, fetched through numeric.lower on first use (outside any trace).
_FORMULAS: dict[str, Any] = {}
_GETTERS = {"pair": "rope_pair", "cos_sin": "rope_angle_cos_sin", "sinusoidal": "sinusoidal_pair"}


def _load_formula(name: str) -> bool:
    """Fetch ``numeric.lower``'s formulas (modules="torch") into :data:`_FORMULAS`, all at
    once: under ``torch.compile`` this runs at trace time (a constant), and dynamo reads
    the dict once per trace, so it must hold every formula by then."""
    if name not in _FORMULAS:
        for key, getter in _GETTERS.items():
            _FORMULAS[key] = getattr(_lower, getter)("torch")
    return True


def _formula(name: str) -> Any:
    _load_formula(name)
    return _FORMULAS[name]


def _sinusoidal_plan(d: int, base: Any, schedule: str) -> F.TablePlan:
    return F.TablePlan(*_sinusoidal_values(d, base, schedule))


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
_plan_values._dynamo_marked_constant = True  # type: ignore[attr-defined]
_load_formula._dynamo_marked_constant = True  # type: ignore[attr-defined]
_sinusoidal_values._dynamo_marked_constant = True  # type: ignore[attr-defined]
_register_table_op._dynamo_marked_constant = True  # type: ignore[attr-defined]


def _static(v: Any) -> Any:
    """``v`` with every symbolic number made a plain one. Under dynamic shapes (``dynamic=True``,
    or the automatic dynamic shapes of a recompilation) the head dim and the numbers of a
    config can be symbolic; the frequencies depend on them, so they are fixed (specialized,
    with a guard) before the host plans the frequencies. Mappings, lists and tuples are
    rebuilt; anything else is returned as it is."""
    import operator

    if isinstance(v, int) and not isinstance(v, bool):
        # (under dynamo a symbolic int passes for an int; index() specializes it, int() would not)
        return operator.index(v)
    if isinstance(v, float):
        return float.fromhex(v.hex())  # (exact; specializes a symbolic float, float() would not)
    if isinstance(v, Mapping):
        return {k: _static(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return type(v)(_static(x) for x in v)
    return v


def _check_dtype(dtype: Any, name: str = "dtype"):
    torch = _torch()
    if dtype is None:
        return torch.get_default_dtype()
    if isinstance(dtype, str):
        dtype = getattr(torch, dtype, dtype)
    if not isinstance(dtype, torch.dtype) or str(dtype).removeprefix("torch.") not in _FLOATS:
        raise TypeError(f"{name}={dtype!r} is not allowed; use one of torch.float64, torch.float32, "
                        "torch.float16, torch.bfloat16")
    return dtype


def _round_once(v, dtype):
    """float64 ``v`` rounded once to ``dtype`` (:func:`pe_symbolic.numeric._frontend.round_once`;
    converting float64 -> float16 in torch rounds twice)."""
    return v.float() if dtype == _MODULE[0].float32 else F.round_once(_B, v, dtype)


def _float64(t):
    """Positions as float64 (on the CPU for an MPS tensor: MPS has no float64)."""
    torch = _torch()
    return (t.to("cpu") if t.device.type == "mps" else t).to(torch.float64)


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
        from .numeric._checks import as_positions

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


def _tensor_type():
    """``torch.Tensor``."""
    return _torch().Tensor


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
    ``route``: :meth:`_Torch.route` of them."""
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

        from .numeric._checks import as_positions

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


def _rotate_blocks(B: _Torch, x, c, s, layout: str, rd: int):
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


def _rotate_whole(B: _Torch, x, c, s, layout: str, rd: int):
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


# ----------------------------------------------------------------------------------------
# public functions: the shared front end's, bound to this backend


rope_cos_sin = F.public(_B, F.rope_cos_sin, r"""``(cos, sin)`` tables, as :func:`pe_symbolic.numeric.rope_cos_sin`, as tensors.

    Parameters
    ----------
    positions : torch.Tensor or array_like
        Token positions (any integer or float dtype; formed in float64; a tensor's values are
        used as they are, exact below 2**53; array_like positions are checked like the
        NumPy API's: finite, ``|t| < 2**53``). Hugging Face
        ``position_ids`` of shape ``(batch, seq)`` give tables of shape
        ``(batch, seq, d)``, which :func:`apply_rope` takes as ``cos_sin=``. M-RoPE: a
        leading axis of 3; an axial config: of 2 (row, col).
    d : int, optional
        Rotary dimension (even); not needed with ``config`` or ``inv_freq``.
    base, layout, config, inv_freq, layer_type, seq_len, mrope_section, mrope_interleaved, attention_factor
        As in :func:`pe_symbolic.numeric.rope_cos_sin`. ``seq_len`` (``dynamic`` /
        ``longrope`` configs) defaults to ``max(positions) + 1``; under ``torch.compile``
        pass it.
    dtype : torch.dtype, optional
        float64, float32, float16 or bfloat16 (default: ``torch.get_default_dtype()``):
        the float64 tables rounded once.
    device : torch.device or str, optional
        Default: the positions' device (CPU for array_like positions).

    Returns
    -------
    cos, sin : torch.Tensor
        Shape ``positions.shape + (d,)`` (M-RoPE: ``positions.shape[1:] + (d,)``). When
        every row of eager CPU positions is the same (the batch axis: the first, after
        M-RoPE's), as in training or a batch without padding, the tables are one row's,
        expanded over the batch: a read-only view (writing into it raises; ``.contiguous()``
        copies), ``batch`` times less memory, and less for a compiled :func:`apply_rope` to
        read.

    Examples
    --------
    >>> import torch
    >>> c, s = rope_cos_sin(torch.arange(2), 4, base=100.0, dtype=torch.float64)
    >>> c
    tensor([[1.0000, 1.0000, 1.0000, 1.0000],
            [0.5403, 0.9950, 0.5403, 0.9950]], dtype=torch.float64)
    >>> rope_cos_sin(torch.tensor([1]), 4, base=100.0, layout="interleaved")[1]
    tensor([[0.8415, 0.8415, 0.0998, 0.0998]])
    >>> c, s = rope_cos_sin(torch.arange(6).expand(3, 6), 8)  # three equal rows
    >>> c.shape, c.stride()
    (torch.Size([3, 6, 8]), (0, 8, 1))
    """)

apply_rope = F.public(_B, F.apply_rope, r"""Rotate each pair of ``x[..., :rotary_dim]`` by ``m * theta_i``: RoPE on tensors.

    Parameters
    ----------
    x : torch.Tensor or tuple of torch.Tensor
        float64, float32, float16 or bfloat16, shape ``(..., seq, d)``; Hugging Face's
        ``(batch, heads, seq, d)`` with ``position_ids``. A tuple ``(q, k)`` is rotated with
        one set of tables and returned as a tuple.
    position_ids : torch.Tensor, optional
        Hugging Face's ``(batch, seq)`` (M-RoPE: ``(3, batch, seq)``; an axial config:
        ``(2, batch, seq)``, row and column); the heads axis is inserted. ``(seq,)`` (M-RoPE:
        ``(3, seq)``) is positions of that shape. Any integer or float dtype. The same rules
        as :func:`pe_symbolic.numeric.apply_rope` and :func:`pe_symbolic.jax.apply_rope`.
    positions : torch.Tensor or array_like, optional
        Instead of ``position_ids``: positions broadcasting against ``x.shape[:-1]``.
    cos_sin : (torch.Tensor, torch.Tensor), optional
        Tables from :func:`rope_cos_sin` (same ``layout``), broadcasting against
        ``x.shape[:-1] + (rotary_dim,)``; 3-D tables ``(batch, seq, rotary_dim)`` (from
        ``position_ids``) with 4-D ``x`` get the heads axis inserted, as Hugging Face's
        ``apply_rotary_pos_emb`` does. Computed once per forward, used by every layer.
        Then no positions and no frequency keywords.
    base, layout, rotary_dim, config, inv_freq, layer_type, seq_len, mrope_section, mrope_interleaved, attention_factor
        As in :func:`pe_symbolic.numeric.apply_rope`. Under ``torch.compile`` these are
        constants of the graph (a config dict is guarded on); pass ``inv_freq`` as a list or
        NumPy array there (a tensor is read on the host), and ``seq_len`` for ``dynamic`` /
        ``longrope`` configs.

    Returns
    -------
    torch.Tensor or tuple
        Same shape, dtype and device as ``x``; differentiable in ``x``.

    Raises
    ------
    TypeError
        ``x`` not a tensor or not float64/float32/float16/bfloat16; ``cos_sin`` tables of
        another dtype.
    ValueError
        Positions that do not broadcast against ``x``, an odd head dim, both or neither of
        ``positions`` / ``position_ids`` / ``cos_sin``, and the checks of the NumPy API.

    Notes
    -----
    Calls that repeat an earlier call's shapes, dtypes, devices, keywords and config (every
    layer of a decoding step) skip the argument checks that call passed (the fast path of
    :mod:`pe_symbolic.numeric._frontend`); anything new is checked in full.

    float32 / float64 ``x``: tables in that dtype, the lowered pair formula in that dtype.
    float16 / bfloat16 ``x``: converted exactly to float32, rotated with float32 tables,
    rounded once back (as :func:`pe_symbolic.numeric.apply_rope`; HF rotates in the 16-bit
    dtype with 16-bit tables, several ulp off).

    Examples
    --------
    >>> import torch
    >>> x = torch.tensor([[1.0, 0.0, 1.0, 0.0]], dtype=torch.float64)
    >>> apply_rope(x, positions=[1], base=100.0, layout="interleaved")
    tensor([[0.5403, 0.8415, 0.9950, 0.0998]], dtype=torch.float64)
    >>> q, k = torch.ones(2, 32, 5, 128), torch.ones(2, 8, 5, 128)
    >>> ids = torch.arange(5)[None].expand(2, 5)
    >>> from pe_symbolic.numeric import model_config
    >>> qr, kr = apply_rope((q, k), ids, config=model_config("llama-3.1-8b"))
    >>> qr.shape, kr.shape, qr.dtype
    (torch.Size([2, 32, 5, 128]), torch.Size([2, 8, 5, 128]), torch.float32)
    """)

sinusoidal_table = F.public(_B, F.sinusoidal_table, r"""The sinusoidal encoding PE(t), as :func:`pe_symbolic.numeric.sinusoidal_table`, as a tensor.

    Parameters
    ----------
    positions : torch.Tensor or array_like
        Any shape, integer or float dtype (formed in float64).
    d, base, layout, order, schedule
        As in :func:`pe_symbolic.numeric.sinusoidal_table`.
    dtype : torch.dtype, optional
        float64, float32, float16 or bfloat16 (default ``torch.get_default_dtype()``):
        the float64 table rounded once.
    device : torch.device or str, optional
        Default: the positions' device (CPU for array_like positions).

    Returns
    -------
    torch.Tensor
        Shape ``positions.shape + (d,)``.

    Examples
    --------
    >>> import torch
    >>> sinusoidal_table(torch.arange(2), 4, base=100.0, dtype=torch.float64)
    tensor([[0.0000, 1.0000, 0.0000, 1.0000],
            [0.8415, 0.5403, 0.0998, 0.9950]], dtype=torch.float64)
    """)


class RotaryEmbedding:
    r"""RoPE for one model, planned once: ``(cos, sin)`` per forward, the rotation per layer.

    Hugging Face's ``rotary_emb`` and ``apply_rotary_pos_emb``, as an object built once
    from a config: calling it gives the tables of ``position_ids``
    (:func:`rope_cos_sin` with its keywords), :meth:`apply` rotates ``q`` and ``k`` with
    them (:func:`apply_rope` with ``cos_sin=``). Its calls take the fast path after the
    first (the checks of the first call are not repeated while shapes, dtypes, devices and
    the config stay the same); a changed one is checked in full.

    Parameters
    ----------
    config : Mapping, optional
        The model's config (``config.json`` as a dict). Every other keyword is one of
        :func:`rope_cos_sin`'s (``d``, ``base``, ``layout``, ``dtype``,
        ``device``, ``inv_freq``, ``layer_type``, ``mrope_section``, ...). ``dtype``:
        the tables' (default ``torch.get_default_dtype()``; float32 for 16-bit activations:
        they then rotate in float32, rounded once).

    Examples
    --------
    >>> import torch
    >>> from pe_symbolic.numeric import model_config
    >>> rope = RotaryEmbedding(model_config("llama-3.1-8b"), dtype=torch.float32)
    >>> ids = torch.tensor([[41]])                       # one decoding step, (batch, seq)
    >>> cos, sin = rope(ids)                             # once per step
    >>> q, k = torch.ones(1, 32, 1, 128), torch.ones(1, 8, 1, 128)
    >>> q_rot, k_rot = rope.apply((q, k), (cos, sin))    # in every layer
    >>> q_rot.shape, torch.equal(q_rot, apply_rope(q, ids, config=model_config("llama-3.1-8b")))
    (torch.Size([1, 32, 1, 128]), True)
    """

    def __init__(self, config: Mapping[str, Any] | None = None, **keywords: Any) -> None:
        import inspect

        inspect.signature(rope_cos_sin).bind(None, config=config, **keywords)  # an unknown keyword: now
        self.config = config
        self.keywords = keywords
        self.layout = keywords.get("layout", "split")

    def __call__(self, position_ids: Any) -> tuple[torch.Tensor, torch.Tensor]:
        """``(cos, sin)`` of ``position_ids`` (:func:`rope_cos_sin`)."""
        return rope_cos_sin(position_ids, config=self.config, **self.keywords)

    def apply(self, x: Any, cos_sin: tuple[torch.Tensor, torch.Tensor]) -> Any:
        """``x`` (a tensor, or a tuple ``(q, k)``) rotated with the tables of :meth:`__call__`."""
        return apply_rope(x, cos_sin=cos_sin, layout=self.layout)

    def __repr__(self) -> str:
        kw = "".join(f", {k}={v!r}" for k, v in self.keywords.items())
        cfg = self.config
        if isinstance(cfg, Mapping):  # (a config.json can hold a hundred keys: named, not printed)
            mt = cfg.get("model_type")
            what = f"config=<{len(cfg)} keys{f', model_type {mt!r}' if mt else ''}>"
        else:
            what = f"config={cfg!r}"
        return f"RotaryEmbedding({what}{kw})"


