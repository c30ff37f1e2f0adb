"""What the torch and JAX backends share: the frequency plan, as plain Python values, and
the whole of ``apply_rope`` / ``rope_cos_sin`` but the few operations that differ.

:func:`table_plan` resolves the frequency keywords (``base``, ``config=``, ``inv_freq=``,
M-RoPE sections, attention factor) exactly as :func:`pe_symbolic.numeric.apply_rope` does
(through :func:`~pe_symbolic.numeric._rope_plan.frequency_plan`), and returns a
:class:`TablePlan` of Python floats and ints: hashable, so the backends can cache it, and a
constant to ``torch.compile`` and ``jax.jit`` (its values are baked into the graph).

:func:`apply_rope`, :func:`rope_cos_sin` and :func:`rotate` are the backends' public
functions of the same names, written once: argument checks (with the same messages in both
backends), positions, sequence length, plan, shapes, one set of tables per compute dtype,
and the lowered pair formula on the slots of ``x``. A backend (:class:`Backend`) supplies
only what is its own: what an array is, dtypes, positions on its device, the tables
(float64 formulas in the graph, a cache, or a host callback) and a few array operations.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._validate import check_layout

__all__ = ["Backend", "TablePlan", "apply_rope", "needs_length", "rope_cos_sin", "rotate", "round_once",
           "sinusoidal_slots", "table_plan", "table_plan_sinusoidal"]


@dataclass(frozen=True)
class TablePlan:
    """Frequencies (float64, each rounded once from its 40-digit value), rotary dim, M-RoPE
    pair axes (``None``: one position axis), attention factor (multiplies both tables)."""

    w: tuple[float, ...]
    rotary_dim: int
    axes: tuple[int, ...] | None
    attention: float
    #: Position axes the positions carry (their leading axis): 3 for M-RoPE, 2 for axial, else 1.
    n_axes: int = 1

    @property
    def h(self) -> int:
        """Pairs: ``rotary_dim // 2``."""
        return self.rotary_dim // 2


def _hashable(v: Any) -> Any:
    if isinstance(v, Mapping):
        return ("__map__", tuple(sorted((str(k), _hashable(x)) for k, x in v.items())))
    if isinstance(v, (list, tuple)):
        return ("__seq__", tuple(_hashable(x) for x in v))
    if isinstance(v, np.ndarray):
        return ("__arr__", v.dtype.str, v.shape, v.tobytes())
    return v


def needs_length(config: Any, inv_freq: Any, layer_type: str | None, seq_len: Any) -> bool:
    """Whether the plan needs the current length from the positions (``dynamic`` and
    ``longrope`` configs without ``seq_len=``)."""
    from .rope import _config_and_length

    if config is None or inv_freq is not None or seq_len is not None:
        return False
    spec, n = _config_and_length(config, inv_freq, layer_type, seq_len, lambda: np.zeros(1))
    return n is not None


def table_plan(*, d: int | None, base: Any = 10000.0, rotary_dim: int | None = None,
               config: Mapping[str, Any] | None = None, inv_freq: Any = None,
               layer_type: str | None = None, seq_len: int | None = None,
               mrope_section: Sequence[int] | None = None, mrope_interleaved: bool = False,
               attention_factor: float | None = None) -> TablePlan:
    """The :class:`TablePlan` of the RoPE keywords (as in :func:`pe_symbolic.numeric.apply_rope`).

    ``seq_len`` must be given for ``dynamic`` / ``longrope`` configs (the backends read it
    from the positions first, see :func:`needs_length`).

    >>> p = table_plan(d=4, base=100.0)
    >>> p.w, p.rotary_dim, p.axes, p.attention, p.n_axes
    ((1.0, 0.1), 4, None, 1.0, 1)
    """
    key = tuple(_hashable(v) for v in (d, base, rotary_dim, config, inv_freq, layer_type, seq_len,
                                       mrope_section, mrope_interleaved, attention_factor))
    try:
        hash(key)
    except TypeError:
        key = None
    if key is not None:
        return _cached_plan(key, lambda: _plan(d, base, rotary_dim, config, inv_freq, layer_type, seq_len,
                                               mrope_section, mrope_interleaved, attention_factor))
    return _plan(d, base, rotary_dim, config, inv_freq, layer_type, seq_len, mrope_section,
                 mrope_interleaved, attention_factor)


_PLANS: dict[Any, TablePlan] = {}


def _cached_plan(key: Any, make: Callable[[], TablePlan]) -> TablePlan:
    plan = _PLANS.get(key)
    if plan is None:
        plan = make()
        if len(_PLANS) > 256:
            _PLANS.clear()
        _PLANS[key] = plan
    return plan


def _plan(d, base, rotary_dim, config, inv_freq, layer_type, seq_len, mrope_section,
          mrope_interleaved, attention_factor) -> TablePlan:
    from ._rope_plan import frequency_plan
    from .rope import _config_and_length

    config, seq_len = _config_and_length(config, inv_freq, layer_type, seq_len, lambda: None)
    fp = frequency_plan(d=d, base=base, rotary_dim=rotary_dim, config=config, inv_freq=inv_freq,
                        layer_type=layer_type, seq_len=seq_len, mrope_section=mrope_section,
                        mrope_interleaved=mrope_interleaved, attention_factor=attention_factor)
    return TablePlan(tuple(float(v) for v in fp.w_hi), int(fp.rotary_dim),
                     None if fp.axes is None else tuple(int(a) for a in fp.axes), float(fp.attention),
                     int(fp.n_axes))


@functools.lru_cache(maxsize=128)
def table_plan_sinusoidal(d: int, base: float, schedule: str) -> TablePlan:
    """The plan of a sinusoidal table (:func:`pe_symbolic.numeric.sinusoidal_table`'s keywords).

    >>> table_plan_sinusoidal(6, 100.0, "tensor2tensor").w
    (1.0, 0.1, 0.01)
    """
    from ._checks import check_numeric_d
    from ._core import _check_numeric_base, _omega_dd

    d = check_numeric_d(d)
    hi, _ = _omega_dd(d, _check_numeric_base(base), schedule)
    return TablePlan(tuple(float(v) for v in hi), d, None, 1.0)


def _warn_layout(B: Backend, config: Any, layout: str) -> None:
    """:func:`pe_symbolic.numeric.describe.warn_config_layout` (imported on first use), the
    warning pointed at the caller of the backend's public function; not while
    ``torch.compile`` traces the call (Dynamo cannot trace ``warnings.warn``: the eager call
    warns)."""
    if config is not None and B.can_warn():
        from .describe import warn_config_layout

        warn_config_layout(config, layout, stacklevel=5)


def slot_order(layout: str) -> str:
    """``layout`` checked (``"split"`` or ``"interleaved"``)."""
    return check_layout(layout)


def rope_shape_error(pos_shape: tuple[int, ...], lead: tuple[int, ...], name: str) -> str | None:
    """Why positions of shape ``pos_shape`` cannot rotate ``x`` with ``x.shape[:-1] == lead``, or ``None``."""
    if len(pos_shape) <= len(lead) and all(p == 1 or p == q for p, q in zip(pos_shape[::-1], lead[::-1])):
        return None  # (each axis 1 or x's own: broadcasts to lead; the common case, without NumPy's call)
    try:
        b = np.broadcast_shapes(pos_shape, lead)
    except ValueError:
        return f"positions of shape {pos_shape} do not broadcast against {name} = {lead}"
    if b != lead:
        return (f"positions of shape {pos_shape} broadcast against {name} = {lead} to {b}; "
                "positions must not enlarge x")
    return None


# ----------------------------------------------------------------------------------------
# the backends' public functions, written once


class Backend:
    """What :mod:`pe_symbolic.torch` and :mod:`pe_symbolic.jax` supply to the shared front end.

    Subclasses set the names used in messages and implement the methods; every check, shape
    rule and message of :func:`apply_rope` and :func:`rope_cos_sin` lives in this module.
    """

    #: The array type as a user writes it (``"torch.Tensor"``), and what to call one.
    array_name: str = ""
    noun: str = "array"
    #: The tracer whose run-time values are unknown at trace time (``"torch.compile"``).
    tracer: str = ""

    def is_array(self, v: Any) -> bool:
        """Whether ``v`` is an array of this backend."""
        raise NotImplementedError

    def check_dtype(self, dtype: Any, name: str = "dtype") -> Any:
        """``dtype`` as the backend's float dtype (``None``: the default), or a ``TypeError``."""
        raise NotImplementedError

    def is_low(self, dtype: Any) -> bool:
        """float16 / bfloat16: rotated in float32, rounded once back."""
        raise NotImplementedError

    def compute_dtype(self, dtype: Any) -> Any:
        """The dtype of the tables and the rotation for ``x`` of ``dtype``: float64 for float64,
        else float32."""
        raise NotImplementedError

    def dtype_name(self, dtype: Any) -> str:
        """``dtype`` as a user passes it (in messages)."""
        return str(dtype)

    def device_of(self, x: Any) -> Any:
        """Where ``x`` lives (``None``: the backend does not place arrays)."""
        return None

    def positions(self, positions: Any, name: str, device: Any = None) -> Any:
        """Positions in the backend's form (checked where they are host data)."""
        raise NotImplementedError

    def traced(self, t: Any) -> bool:
        """Whether the positions' values are unknown here (under a tracer)."""
        raise NotImplementedError

    def can_warn(self) -> bool:
        """Whether ``warnings.warn`` may run here (not inside a graph compiler that cannot trace it)."""
        return True

    def host_max(self, t: Any) -> float:
        """The largest position, read on the host (a sync; never under a tracer)."""
        raise NotImplementedError

    def host_inv_freq(self, inv_freq: Any) -> Any:
        """``inv_freq`` as host data for :func:`table_plan`."""
        return inv_freq

    def plan(self, **kw: Any) -> TablePlan:
        """:func:`table_plan` (a backend may make it a constant of its tracer)."""
        return table_plan(**kw)

    def insert_heads(self, t: Any) -> Any:
        """Positions ``(..., batch, seq)`` -> ``(..., batch, 1, seq)``."""
        return t[..., None, :]

    def tables(self, t: Any, plan: TablePlan, dtype: Any, kw: dict[str, Any], device: Any) -> tuple[Any, Any]:
        """Half tables ``P + (h,)`` of positions ``t`` (``(3,) + P`` for M-RoPE), the float64
        values rounded once to ``dtype``, on ``device``; ``kw``: the frequency keywords."""
        raise NotImplementedError

    def widen(self, half: Any, layout: str) -> Any:
        """Full-width table from a half-width one: ``[c, c]`` (split) or each entry twice."""
        raise NotImplementedError

    def repeated_rows(self, t: Any, axis: int) -> int:
        """``t.shape[axis]`` when every slice of ``t`` along ``axis`` holds the same positions
        (read here; a backend that cannot or need not look says 0), else 0."""
        return 0

    def expand_rows(self, v: Any, n: int) -> Any:
        """``v`` of leading axis 1 as ``n`` rows, without copying (a view)."""
        raise NotImplementedError

    def rotate(self, x: Any, c: Any, s: Any, layout: str, rd: int) -> Any:
        """``x`` rotated with half tables ``c``, ``s`` (default: :func:`rotate`)."""
        return rotate(self, x, c, s, layout, rd)

    # array operations for :func:`rotate` and :func:`round_once`
    def dtype(self, name: str) -> Any:
        """The backend's dtype called ``name`` (``"float64"``, ``"float32"``, ``"int32"``)."""
        raise NotImplementedError

    def bitcast(self, v: Any, dtype: Any) -> Any:
        """``v``'s bits read as ``dtype`` (of the same width)."""
        raise NotImplementedError

    def cast(self, v: Any, dtype: Any) -> Any:
        raise NotImplementedError

    def concat(self, parts: list[Any]) -> Any:
        raise NotImplementedError

    def interleave(self, a: Any, b: Any) -> Any:
        """``(..., h)``, ``(..., h)`` -> ``(..., 2h)`` with ``a`` in the even slots."""
        raise NotImplementedError

    def pair_slots(self, x: Any, rd: int) -> tuple[Any, Any]:
        """The interleaved slots ``x[..., 0:rd:2]``, ``x[..., 1:rd:2]``."""
        raise NotImplementedError

    def formula(self, name: str) -> Any:
        """The lowered formula ``name`` (``"pair"``, ``"cos_sin"``, ``"sinusoidal"``)."""
        raise NotImplementedError


def round_once(B: Backend, v: Any, dtype: Any) -> Any:
    """float64 ``v`` rounded once to ``dtype``: float32 directly (round to nearest even);
    float16 / bfloat16 through float32 rounded to odd, which makes the second rounding the
    correctly rounded one (a float64 -> 16-bit conversion through float32 rounds twice)."""
    f64, f32, i32 = B.dtype("float64"), B.dtype("float32"), B.dtype("int32")
    if dtype == f64:
        return v
    r = B.cast(v, f32)
    if dtype == f32:
        return r
    back = B.cast(r, f64)
    inexact = back != v
    bits = B.bitcast(r, i32)
    bits = bits - B.cast(inexact & (abs(back) > abs(v)), i32)  # toward zero: truncated
    bits = bits | B.cast(inexact, i32)  # sticky last bit: rounded to odd
    return B.cast(B.bitcast(bits, f32), dtype)


def sinusoidal_slots(B: Backend, s: Any, c: Any, layout: str, order: str, round_once: Callable[[Any], Any]) -> Any:
    """The sinusoidal table from its float64 halves ``sin(omega*t)``, ``cos(omega*t)``: each
    rounded once (``round_once``), placed by ``order`` and ``layout``."""
    first, second = (s, c) if order == "sin_cos" else (c, s)
    first, second = round_once(first), round_once(second)
    return B.interleave(first, second) if layout == "interleaved" else B.concat([first, second])


def rotate(B: Backend, x: Any, c: Any, s: Any, layout: str, rd: int) -> Any:
    """The lowered pair formula (claim ``rope.efficient_form``) on the slots of ``x[..., :rd]``;
    half tables ``c``, ``s`` in the compute dtype (float32 for 16-bit ``x``, whose rotated
    halves are rounded once back to its dtype)."""
    low = B.is_low(x.dtype)
    h = rd // 2
    x1, x2 = (x[..., :h], x[..., h:rd]) if layout == "split" else B.pair_slots(x, rd)
    if low:
        f32 = B.compute_dtype(x.dtype)
        x1, x2 = B.cast(x1, f32), B.cast(x2, f32)
    a, b = B.formula("pair")(x1, x2, c, s)
    if low:
        a, b = B.cast(a, x.dtype), B.cast(b, x.dtype)
    parts = [a, b] if layout == "split" else [B.interleave(a, b)]
    if rd < x.shape[-1]:
        parts.append(x[..., rd:])
    return parts[0] if len(parts) == 1 else B.concat(parts)


def _length_of(B: Backend, config: Any, inv_freq: Any, layer_type: str | None, seq_len: Any, t: Any,
               name: str) -> Any:
    """``seq_len`` for dynamic / longrope configs: ``max(positions) + 1`` (HF's
    ``dynamic_rope_update``), read on the host; under a tracer the caller must pass it."""
    if not needs_length(config, inv_freq, layer_type, seq_len):
        return seq_len
    if B.traced(t):
        raise ValueError(f"this config's rope type depends on the sequence length, which {name} only says "
                         f"at run time; under {B.tracer} pass seq_len= (a static int, e.g. max({name}) + 1)")
    import math

    return max(1, math.floor(B.host_max(t)) + 1) if math.prod(t.shape) else None


def _mrope_core(plan: TablePlan, t: Any) -> tuple[int, ...]:
    """The positions' shape without the leading axis of M-RoPE (3) or axial RoPE (2), checked."""
    if plan.n_axes > 1:
        from ._rope_plan import positions_error

        why = positions_error(plan.n_axes, tuple(t.shape))
        if why:
            raise ValueError(why)
        return tuple(t.shape[1:])
    return tuple(t.shape)


def rope_cos_sin(B: Backend, positions: Any, d: int | None, *, base: Any, layout: str, dtype: Any,
                 device: Any, config: Any, inv_freq: Any, layer_type: str | None, seq_len: int | None,
                 mrope_section: Sequence[int] | None, mrope_interleaved: bool,
                 attention_factor: float | None) -> tuple[Any, Any]:
    """The backends' ``rope_cos_sin``: full-width ``(cos, sin)`` tables in ``dtype``."""
    layout = slot_order(layout)
    _warn_layout(B, config, layout)
    dt = B.check_dtype(dtype)
    t = B.positions(positions, "positions", device)
    seq_len = _length_of(B, config, inv_freq, layer_type, seq_len, t, "positions")
    kw = dict(d=d, base=base, config=config, inv_freq=B.host_inv_freq(inv_freq), layer_type=layer_type,
              seq_len=seq_len, mrope_section=mrope_section, mrope_interleaved=mrope_interleaved,
              attention_factor=attention_factor)
    plan = B.plan(rotary_dim=None, **kw)
    _mrope_core(plan, t)
    axis = 0 if plan.n_axes == 1 else 1  # the batch: after M-RoPE's / axial RoPE's axes
    n = B.repeated_rows(t, axis)
    if n:  # every row the same positions (training, a batch without padding): one row's tables
        t = t[(slice(None),) * axis + (slice(0, 1),)]
    c, s = B.tables(t, plan, dt, kw, device)
    c, s = B.widen(c, layout), B.widen(s, layout)
    return (B.expand_rows(c, n), B.expand_rows(s, n)) if n else (c, s)


def _check_xs(B: Backend, x: Any) -> tuple[list[Any], bool]:
    many = isinstance(x, (tuple, list))
    xs = list(x) if many else [x]
    if not xs:
        raise ValueError(f"x is an empty tuple; pass one or more {B.noun}s")
    for q, v in enumerate(xs):
        name = f"x[{q}]" if many else "x"
        if not B.is_array(v):
            raise TypeError(f"{name} must be a {B.array_name} (for NumPy arrays use "
                            f"pe_symbolic.numeric.apply_rope); got {type(v).__name__}")
        B.check_dtype(v.dtype, name=f"{name}.dtype")
        if v.ndim < 1:
            raise ValueError(f"{name} must have at least one axis (the head dim); got a 0-d {B.noun}")
    d = xs[0].shape[-1]
    for q, v in enumerate(xs[1:], start=1):
        if v.shape[-1] != d:
            raise ValueError(f"x[{q}] has last axis {v.shape[-1]}; x[0] has {d}: every {B.noun} needs the same "
                             "head dim")
    return xs, many


def apply_rope(B: Backend, x: Any, position_ids: Any, *, positions: Any, cos_sin: Any, base: Any,
               layout: str, rotary_dim: int | None, config: Any, inv_freq: Any, layer_type: str | None,
               seq_len: int | None, mrope_section: Sequence[int] | None, mrope_interleaved: bool,
               attention_factor: float | None) -> Any:
    """The backends' ``apply_rope`` (see :func:`pe_symbolic.torch.apply_rope`)."""
    xs, many = _check_xs(B, x)
    layout = slot_order(layout)
    d = xs[0].shape[-1]
    if cos_sin is not None:
        return _apply_tables(B, xs, cos_sin, layout, rotary_dim, many, positions, position_ids, config,
                             inv_freq, seq_len, mrope_section, attention_factor, base)
    _warn_layout(B, config, layout)
    given = config is not None or inv_freq is not None
    if not given and rotary_dim is None and d % 2:
        raise ValueError(f"the last axis of x has odd length d={d}; RoPE needs pairs (pass an even rotary_dim)")
    if (positions is None) == (position_ids is None):
        raise ValueError("pass exactly one of position_ids (Hugging Face's (batch, seq)), positions "
                         "(broadcast against x.shape[:-1]) and cos_sin (tables from rope_cos_sin)")
    pname = "position_ids" if position_ids is not None else "positions"
    device = B.device_of(xs[0])
    t = B.positions(position_ids if position_ids is not None else positions, pname, device)
    seq_len = _length_of(B, config, inv_freq, layer_type, seq_len, t, pname)
    kw = dict(base=base, config=config, inv_freq=B.host_inv_freq(inv_freq), layer_type=layer_type,
              seq_len=seq_len, mrope_section=mrope_section, mrope_interleaved=mrope_interleaved,
              attention_factor=attention_factor)
    plan = B.plan(d=None if given else d, rotary_dim=rotary_dim, **kw)
    kw["d"] = None if given else plan.rotary_dim
    if plan.rotary_dim > d:
        raise ValueError(f"the frequencies rotate {plan.rotary_dim} channels, which must be <= d={d} (the last axis of x)")
    core = _mrope_core(plan, t)
    if position_ids is not None:  # (batch, seq) -> (batch, 1, seq): the heads axis
        if len(core) != 2:
            raise ValueError(f"position_ids must have shape (batch, seq) (M-RoPE: (3, batch, seq)); "
                             f"got shape {tuple(t.shape)}")
        t = B.insert_heads(t)
        core = core[:1] + (1,) + core[1:]
    for q, v in enumerate(xs):
        if position_ids is not None and v.ndim != 4:
            raise ValueError(f"position_ids need x of shape (batch, heads, seq, d); "
                             f"x{f'[{q}]' if many else ''} has shape {tuple(v.shape)}")
        why = rope_shape_error(core, tuple(v.shape[:-1]), f"x[{q}].shape[:-1]" if many else "x.shape[:-1]")
        if why:
            raise ValueError(why)
    tables: dict[Any, Any] = {}
    outs = []
    for v in xs:
        cdt = B.compute_dtype(v.dtype)
        if cdt not in tables:
            tables[cdt] = B.tables(t, plan, cdt, kw, B.device_of(v))
        outs.append(B.rotate(v, *tables[cdt], layout, plan.rotary_dim))
    return tuple(outs) if many else outs[0]


def _apply_tables(B: Backend, xs: list[Any], cos_sin: Any, layout: str, rotary_dim: int | None, many: bool,
                  positions: Any, position_ids: Any, config: Any, inv_freq: Any, seq_len: Any,
                  mrope_section: Any, attention_factor: Any, base: Any) -> Any:
    if positions is not None or position_ids is not None:
        raise ValueError("cos_sin= already holds the tables: pass no positions or position_ids with it")
    if (config is not None or inv_freq is not None or seq_len is not None or mrope_section is not None
            or attention_factor is not None or base != 10000.0):
        raise ValueError("cos_sin= already holds the tables: the frequency keywords (base, config, inv_freq, "
                         "seq_len, mrope_section, attention_factor) belong to rope_cos_sin")
    if not (isinstance(cos_sin, (tuple, list)) and len(cos_sin) == 2 and all(B.is_array(v) for v in cos_sin)):
        raise TypeError(f"cos_sin must be a pair of {B.noun}s (cos, sin), as rope_cos_sin returns")
    cos, sin = cos_sin
    if B.device_of(cos) != B.device_of(sin):
        raise ValueError(f"cos is on {B.device_of(cos)} and sin on {B.device_of(sin)}; they must be on one device")
    if cos.shape != sin.shape:
        raise ValueError(f"cos has shape {tuple(cos.shape)} and sin {tuple(sin.shape)}; they must match")
    rd = cos.shape[-1]
    if rd % 2 or (rotary_dim is not None and rotary_dim != rd):
        raise ValueError(f"the tables have {rd} channels; they must be even"
                         + (f" and equal rotary_dim={rotary_dim}" if rotary_dim is not None else ""))
    h = rd // 2
    c, s = (cos[..., :h], sin[..., :h]) if layout == "split" else (cos[..., 0::2], sin[..., 0::2])
    outs = []
    for q, v in enumerate(xs):
        name = f"x[{q}]" if many else "x"
        if rd > v.shape[-1]:
            raise ValueError(f"the tables rotate {rd} channels, which must be <= d={v.shape[-1]} (the last axis of {name})")
        cv, sv = (c[..., None, :, :], s[..., None, :, :]) if c.ndim == 3 and v.ndim == 4 else (c, s)
        why = rope_shape_error(tuple(cv.shape[:-1]), tuple(v.shape[:-1]), f"{name}.shape[:-1]")
        if why:
            raise ValueError(why.replace("positions", "tables (without their last axis)"))
        dev = B.device_of(v)
        if dev is not None and B.device_of(cos) != dev:
            raise ValueError(f"the tables are on {B.device_of(cos)} and {name} on {dev}: make them there "
                             f"(rope_cos_sin(..., device={name}.device)) or move them (.to({name}.device))")
        cdt = B.compute_dtype(v.dtype)
        if c.dtype not in (v.dtype, cdt):
            raise TypeError(f"the tables are {B.dtype_name(c.dtype)} and {name} is {B.dtype_name(v.dtype)}: make them "
                            f"with rope_cos_sin(..., dtype={B.dtype_name(cdt)}) (16-bit x rotates with float32 tables)")
        outs.append(B.rotate(v, cv, sv, layout, rd))
    return tuple(outs) if many else outs[0]
