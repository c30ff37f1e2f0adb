"""The one front end of the array functions: ``apply_rope``, ``rope_cos_sin`` and
``sinusoidal_table`` for NumPy (:mod:`pe_symbolic.numeric`), torch (:mod:`pe_symbolic.torch`)
and JAX (:mod:`pe_symbolic.jax`), written once.

Every signature, argument check, shape rule and message of the three functions is in this
module (its functions ``apply_rope``, ``rope_cos_sin`` and ``sinusoidal_table``, whose first
argument is the backend); ``public`` makes a backend's public function of each (its name,
module, docstring and signature). A backend (a ``Backend``) supplies only what is its own:
what an array and its dtypes are, positions in its form, the frequency plan, the tables and
the rotation (and a few array operations for the shared pair formula, ``rotate``). The NumPy
core's backend is in ``pe_symbolic.numeric._numpy_backend``.

**One set of rules.** ``x`` is an array or a tuple of them with one head dim. Positions come
as exactly one of ``position_ids`` (Hugging Face's ``(batch, seq)``, the heads axis inserted;
``(seq,)`` is positions of shape ``(seq,)``; M-RoPE / axial: a leading axis of 3 / 2),
``positions`` (broadcasting against ``x.shape[:-1]`` without enlarging it) or ``cos_sin``
(tables from ``rope_cos_sin``). The second positional argument of ``apply_rope`` is NumPy's
``positions`` and the frameworks' ``position_ids``; the keyword of the other is there too. A
keyword of another backend (NumPy's ``accurate``, ``out``, ``check_finite``; the frameworks'
``device``) is refused by name.

**The fast path** (eager calls: a decoding step runs ``apply_rope`` once per layer and token).
The checks are functions of the arguments' types, shapes, dtypes and devices, the keywords and
the config. A call whose key (the arguments given: arrays by that metadata, a config by
identity, anything else by value) is the key of an earlier call that passed every check
reuses that call's outcome (layout, plan, where the heads axis goes, the route of the
rotation) instead of checking again; a config is also compared by value with a copy taken
then, so a config changed in place is planned again. Any other call -- a changed shape,
dtype, device, keyword or config -- misses and gets every check, with its message (only
successes are kept). Values are not part of it: positions are read on every call (NumPy's
checked: finite, ``|t| < 2**53``), the tables follow the positions' values, and plans that
depend on the length (``dynamic``, ``longrope``) are planned every call; ``inv_freq=``,
``out=`` and ``check_finite=`` always take the full path. Under ``torch.compile`` and
``jax.jit`` tracing there is no fast path (the trace runs once).
"""

from __future__ import annotations

import copy
import functools
import inspect
import math
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._validate import check_layout, check_order, check_schedule

__all__ = ["Backend", "Resolved", "TablePlan", "apply_rope", "needs_length", "public", "rope_cos_sin",
           "rope_shape_error", "rotate", "round_once", "sinusoidal_slots", "sinusoidal_table", "table_plan",
           "table_plan_sinusoidal"]


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

    def __hash__(self) -> int:
        # computed once (a key of the table caches, looked up on every call)
        h = self.__dict__.get("_hash")
        if h is None:
            h = hash((self.w, self.rotary_dim, self.axes, self.attention, self.n_axes))
            object.__setattr__(self, "_hash", h)
        return h

    @property
    def h(self) -> int:
        """Pairs: ``rotary_dim // 2``."""
        return self.rotary_dim // 2


def _hashable(v: Any) -> Any:
    """``v`` as a key of :data:`_PLANS`: by value, with the type of every value (``8`` and
    ``8.0`` are equal keys to a dict, but not to the checks, which refuse ``rotary_dim=8.0``)."""
    if isinstance(v, Mapping):
        return ("__map__", tuple(sorted((str(k), _hashable(x)) for k, x in v.items())))
    if isinstance(v, (list, tuple)):
        return ("__seq__", type(v), tuple(_hashable(x) for x in v))
    if isinstance(v, np.ndarray):
        return ("__arr__", v.dtype.str, v.shape, v.tobytes())
    return (type(v), v)


def needs_length(config: Any, inv_freq: Any, layer_type: str | None, seq_len: Any) -> bool:
    """Whether the plan needs the current length from the positions (``dynamic`` and
    ``longrope`` configs without ``seq_len=``)."""
    from ._rope_plan import config_and_length

    if config is None or inv_freq is not None or seq_len is not None:
        return False
    spec, n = config_and_length(config, inv_freq, layer_type, seq_len, lambda: np.zeros(1))
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
    kw = dict(d=d, base=base, rotary_dim=rotary_dim, config=config, inv_freq=inv_freq, layer_type=layer_type,
              seq_len=seq_len, mrope_section=mrope_section, mrope_interleaved=mrope_interleaved,
              attention_factor=attention_factor)
    key = tuple(_hashable(v) for v in kw.values())
    try:
        hash(key)
    except TypeError:
        return _plan(**kw)
    plan = _PLANS.get(key)
    if plan is None:
        plan = _plan(**kw)
        if len(_PLANS) > 256:
            _PLANS.clear()
        _PLANS[key] = plan
    return plan


_PLANS: dict[Any, TablePlan] = {}


def _plan(*, config: Any, inv_freq: Any, layer_type: Any, seq_len: Any, **kw: Any) -> TablePlan:
    from ._rope_plan import config_and_length, frequency_plan

    config, seq_len = config_and_length(config, inv_freq, layer_type, seq_len, lambda: None)
    fp = frequency_plan(config=config, inv_freq=inv_freq, layer_type=layer_type, seq_len=seq_len, **kw)
    return TablePlan(tuple(float(v) for v in fp.w_hi), int(fp.rotary_dim),
                     None if fp.axes is None else tuple(int(a) for a in fp.axes), float(fp.attention),
                     int(fp.n_axes))


@functools.lru_cache(maxsize=128)
def table_plan_sinusoidal(d: int, base: float, schedule: str) -> TablePlan:
    """The plan of a sinusoidal table (:func:`pe_symbolic.numeric.sinusoidal_table`'s keywords,
    checked).

    >>> table_plan_sinusoidal(6, 100.0, "tensor2tensor").w
    (1.0, 0.1, 0.01)
    """
    from ._core import _omega_dd

    d, base = _sinusoidal_numbers(d, base)
    hi, _ = _omega_dd(d, base, schedule)
    return TablePlan(tuple(float(v) for v in hi), d, None, 1.0)


def _sinusoidal_numbers(d: Any, base: Any) -> tuple[int, float]:
    """``d`` and ``base`` checked (host work: a constant to ``torch.compile``, below)."""
    from ._checks import check_numeric_d
    from ._core import _check_numeric_base

    return check_numeric_d(d), _check_numeric_base(base)


# What torch.compiler.assume_constant_result(fn) does (it sets this flag and returns fn),
# without importing torch: dynamo calls it at trace time instead of tracing it.
_sinusoidal_numbers._dynamo_marked_constant = True  # type: ignore[attr-defined]


def _warn_layout(B: Backend, config: Any, layout: str, stacklevel: int = 5) -> None:
    """:func:`pe_symbolic.numeric._pairing.warn_config_layout` (imported on first use), the
    warning pointed at the caller of the public function (called from the shared function
    itself: the same depth on every path); not while ``torch.compile`` traces the call
    (Dynamo cannot trace ``warnings.warn``: the eager call warns)."""
    if config is not None and B.can_warn():
        from ._pairing import warn_config_layout

        warn_config_layout(config, layout, stacklevel=stacklevel)


def _config_warns(config: Any, layout: str) -> bool:
    """Whether :func:`_warn_layout` warns for ``config`` and ``layout`` (asked once, when a
    call's outcome is kept for the fast path, which then warns on every call as before)."""
    if layout != "split" or not isinstance(config, Mapping):
        return False
    from ._pairing import warn_config_layout

    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        warn_config_layout(config, layout)
    return bool(seen)


def slot_order(layout: str) -> str:
    """``layout`` checked (``"split"`` or ``"interleaved"``)."""
    return check_layout(layout)


def rope_shape_error(pos_shape: tuple[int, ...], lead: tuple[int, ...], name: str,
                     what: str = "positions") -> str | None:
    """Why ``what`` of shape ``pos_shape`` cannot rotate ``x`` with ``x.shape[:-1] == lead``, or ``None``."""
    if len(pos_shape) <= len(lead) and all(p == 1 or p == q for p, q in zip(pos_shape[::-1], lead[::-1])):
        return None  # (each axis 1 or x's own: broadcasts to lead; the common case, without NumPy's call)
    try:
        b = np.broadcast_shapes(pos_shape, lead)
    except ValueError:
        return f"{what} of shape {pos_shape} do not broadcast against {name} = {lead}"
    if b != lead:
        return (f"{what} of shape {pos_shape} broadcast against {name} = {lead} to {b}; "
                f"{what} must not enlarge x")
    return None


# ----------------------------------------------------------------------------------------
# the backends


class Backend:
    """What a backend (NumPy, torch, JAX) supplies to the shared front end.

    Subclasses set the names used in messages and implement the methods; every check, shape
    rule and message of :func:`apply_rope`, :func:`rope_cos_sin` and :func:`sinusoidal_table`
    lives in this module.
    """

    #: What ``apply_rope``'s second positional argument is (the NumPy core's: ``positions``).
    second: str = "position_ids"
    #: The backend's immutable values a fast-path key may hold as they are (its dtypes, devices).
    values: tuple[type, ...] = ()
    #: The keywords of this backend only, per function (others' are refused by name): the
    #: frameworks place tables (``device=``); the NumPy core has its own.
    options: Mapping[str, tuple[str, ...]] = {"rope_cos_sin": ("device",), "sinusoidal_table": ("device",)}

    def __init__(self, module: str, array_name: str, noun: str = "array", tracer: str = "") -> None:
        #: The public module (``"pe_symbolic.torch"``), the array type as a user writes it
        #: (``"torch.Tensor"``), what to call one, and the tracer whose run-time values are
        #: unknown at trace time (``"torch.compile"``): for messages.
        self.module, self.array_name, self.noun, self.tracer = module, array_name, noun, tracer
        #: The fast path's kept outcomes: key -> :class:`Resolved` (see the module docstring).
        self.fast: dict[Any, Resolved] = {}

    # --- arguments
    def check_x(self, v: Any, name: str) -> Any:
        """``v`` as an array of an allowed float dtype (with at least one axis), or the error."""
        if not self.is_array(v):
            raise TypeError(f"{name} must be a {self.array_name} (for NumPy arrays use "
                            f"pe_symbolic.numeric.apply_rope); got {type(v).__name__}")
        self.check_dtype(v.dtype, name=f"{name}.dtype")
        if v.ndim < 1:
            raise ValueError(f"{name} must have at least one axis (the head dim); got a 0-d {self.noun}")
        return v

    def is_array(self, v: Any) -> bool:
        """Whether ``v`` is an array of this backend."""
        raise NotImplementedError

    def meta(self, v: Any) -> Any:
        """What the checks read of array ``v`` (type, shape, dtype, device), hashable; ``None``
        where the fast path does not apply to it (it then gets every check)."""
        return None

    def fast_ok(self) -> bool:
        """Whether the fast path may run here (not while a tracer traces the call)."""
        return True

    def key_part(self, v: Any) -> Any:
        """``v`` as part of a fast-path key (:func:`key_part`)."""
        return key_part(self, v)

    def route(self, xs: list[Any], rd: int) -> Any:
        """What the rotation of ``xs[..., :rd]`` may decide once from their types, shapes,
        dtypes and devices (kept with a call's outcome: :attr:`Resolved.route`)."""
        return None

    def check_dtype(self, dtype: Any, name: str = "dtype") -> Any:
        """``dtype`` as the backend's float dtype (``None``: the default), or a ``TypeError``."""
        raise NotImplementedError

    def static(self, v: Any) -> Any:
        """``v`` (a tuple of keyword values) as the host may plan with them (torch: symbolic
        numbers of a dynamic-shape trace made plain)."""
        return v

    def take_options(self, fn: str, given: Mapping[str, Any], xs: list[Any] | None = None,
                     many: bool = False) -> Any:
        """The backend-only keywords ``given`` (not at their defaults) of ``fn``, checked; a
        backend without them refuses each by name, as Python refuses an unknown keyword."""
        for k in given:
            if k not in self.options.get(fn, ()):
                whose = "the frameworks' (pe_symbolic.torch, pe_symbolic.jax)" if k == "device" else \
                    "the NumPy core's (pe_symbolic.numeric)"
                raise TypeError(f"{fn}() got an unexpected keyword argument {k!r}: {self.module}.{fn} takes no "
                                f"{k}=, which is {whose}")
        return None

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
        return False

    def can_warn(self) -> bool:
        """Whether ``warnings.warn`` may run here (not inside a graph compiler that cannot trace it)."""
        return True

    def host_max(self, t: Any) -> float:
        """The largest position, read on the host (a sync; never under a tracer)."""
        return float(np.max(t))

    def host_inv_freq(self, inv_freq: Any) -> Any:
        """``inv_freq`` as host data for :func:`table_plan`."""
        return inv_freq

    def plan(self, **kw: Any) -> Any:
        """The frequency plan of the keywords (:func:`table_plan`; NumPy: its own, with the
        double-double frequencies); it has ``rotary_dim`` and ``n_axes``."""
        return table_plan(**kw)

    def insert_heads(self, t: Any) -> Any:
        """Positions ``(..., batch, seq)`` -> ``(..., batch, 1, seq)``."""
        return t[..., None, :]

    def tables(self, t: Any, plan: Any, dtype: Any, kw: dict[str, Any], device: Any,
               keep: bool = True) -> tuple[Any, Any]:
        """Half tables ``P + (h,)`` of positions ``t`` (``(3,) + P`` for M-RoPE), the float64
        values rounded once to ``dtype``, on ``device``; ``kw``: the frequency keywords;
        ``keep``: worth keeping in a cache for the next call (``apply_rope``'s layers; not
        ``rope_cos_sin``'s, whose caller keeps them)."""
        raise NotImplementedError

    def full_tables(self, t: Any, plan: Any, dtype: Any, layout: str, kw: dict[str, Any], device: Any,
                    opts: Any) -> tuple[Any, Any]:
        """``rope_cos_sin``'s full-width tables of positions ``t`` (M-RoPE's leading axis
        checked); by default :meth:`tables` widened, one row's when every row is the same."""
        axis = 0 if plan.n_axes == 1 else 1  # the batch: after M-RoPE's / axial RoPE's axes
        n = self.repeated_rows(t, axis)
        if n:  # every row the same positions (training, a batch without padding): one row's tables
            t = t[(slice(None),) * axis + (slice(0, 1),)]
        c, s = self.tables(t, plan, dtype, kw, device, keep=False)
        c, s = self.widen(c, layout), self.widen(s, layout)
        return (self.expand_rows(c, n), self.expand_rows(s, n)) if n else (c, s)

    def rotate_positions(self, xs: list[Any], t: Any, r: Resolved, opts: Any) -> list[Any]:
        """Each of ``xs`` rotated by positions ``t`` (the heads axis goes in where ``r.ids``
        says) with the plan of ``r``: one set of tables per compute dtype, then :meth:`rotate`."""
        if r.ids:
            t = self.insert_heads(t)
        tables: dict[Any, Any] = {}
        outs = []
        for v in xs:
            cdt = self.compute_dtype(v.dtype)
            if cdt not in tables:
                tables[cdt] = self.tables(t, r.plan, cdt, r.kw, self.device_of(v))
            outs.append(self.rotate(v, *tables[cdt], r.layout, r.plan.rotary_dim))
        return outs

    def rotate_tables(self, xs: list[Any], cos: Any, sin: Any, r: Resolved, opts: Any) -> list[Any]:
        """Each of ``xs`` rotated with full-width tables ``cos``, ``sin`` (checked against it):
        their halves, with the heads axis inserted where ``r.heads`` says, then :meth:`rotate`."""
        h = r.rd // 2
        c, s = (cos[..., :h], sin[..., :h]) if r.layout == "split" else (cos[..., 0::2], sin[..., 0::2])
        return [self.rotate(v, *((c[..., None, :, :], s[..., None, :, :]) if heads else (c, s)), r.layout, r.rd)
                for v, heads in zip(xs, r.heads)]

    def sinusoidal(self, t: Any, d: int, base: float, layout: str, order: str, schedule: str, dtype: Any,
                   device: Any, opts: Any) -> Any:
        """The sinusoidal table of checked arguments (positions ``t`` in the backend's form)."""
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

    # array operations for :func:`rotate`, :func:`round_once` and :func:`sinusoidal_slots`
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


# ----------------------------------------------------------------------------------------
# a checked call, kept for the fast path


@dataclass(frozen=True)
class Resolved:
    """What the checks of one ``apply_rope`` / ``rope_cos_sin`` call found, reused by the next
    call of the same key (the module docstring)."""

    layout: str
    many: bool = False
    #: ``apply_rope`` with ``cos_sin=``: the tables' channels, and per array of ``x`` whether
    #: 3-D tables get the heads axis.
    rd: int = 0
    heads: tuple[bool, ...] = ()
    #: with positions: the plan, its keywords (for the backends' host tables), the name the
    #: positions came by, whether the heads axis goes into them, and their shape against x
    #: (without M-RoPE's leading axis, with the heads axis).
    plan: Any = None
    kw: Any = None
    pname: str = ""
    ids: bool = False
    core: tuple[int, ...] = ()
    #: ``rope_cos_sin``: the tables' dtype and device.
    dtype: Any = None
    device: Any = None
    #: the backend's own keywords (:meth:`Backend.take_options`; never a call's output buffer).
    opts: Any = None
    #: what the backend decided from the arrays' metadata (:meth:`Backend.route`).
    route: Any = None
    #: the config it was planned with, a copy to compare on a hit, and whether it warns.
    config: Any = None
    config_copy: Any = None
    warns: bool = False

    def same_config(self, config: Any) -> bool:
        """Whether ``config`` is the config of this call, unchanged (by value)."""
        if config is not self.config:
            return False
        try:
            return bool(config == self.config_copy)
        except Exception:  # noqa: BLE001 - a config that cannot compare: checked every call
            return False


def _keep(B: Backend, key: Any, r: Resolved) -> None:
    """Keep ``r`` for the fast path (a successful call's outcome) under ``key``."""
    if key is None:
        return
    if r.config is not None:
        try:
            r = Resolved(**{**r.__dict__, "config_copy": copy.deepcopy(r.config),
                            "warns": _config_warns(r.config, r.layout)})
        except Exception:  # noqa: BLE001 - a config that cannot be copied: checked every call
            return
    if len(B.fast) >= 256:
        B.fast.clear()
    B.fast[key] = r


#: Values a fast-path key holds as they are (with their type: ``64`` and ``64.0`` differ to the
#: checks): immutable, compared by value.
_VALUES = (str, int, float, bool, type(None), type, np.dtype)


def key_part(B: Backend, v: Any) -> Any:
    """``v`` as part of a fast-path key: an array by its metadata (:meth:`Backend.meta`), a
    tuple or list by its items, a mapping (a config) by identity (compared by value on a
    hit), an immutable value (:data:`_VALUES`, the backend's :attr:`Backend.values`, a frozen
    ``RopeSpec``) with its type. Anything else -- an array of another type or a subclass, an
    object that could change between calls -- raises ``TypeError``: no fast path."""
    m = B.meta(v)
    if m is not None:
        return m
    t = type(v)
    if t is tuple or t is list:
        return (t, *[B.key_part(e) for e in v])
    if isinstance(v, Mapping):
        return (Mapping, id(v))
    if isinstance(v, _VALUES) or isinstance(v, B.values) or _is_spec(v):
        return (t, v)
    raise TypeError(f"no fast path for a {t.__name__}")


def _is_spec(v: Any) -> bool:
    from ._spec import RopeSpec

    return type(v) is RopeSpec


def _call_key(B: Backend, name: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """The fast path's key of a call: the function and every argument given (``None``: the
    call always takes the full path: ``inv_freq=``, ``out=``, ``check_finite=``, whose values
    matter beyond their metadata)."""
    part = B.key_part
    if not kwargs:
        return name, tuple(map(part, args))
    if "inv_freq" in kwargs or "out" in kwargs or "check_finite" in kwargs:
        return None
    return name, tuple(map(part, args)), tuple(kwargs), tuple(map(part, kwargs.values()))


# ----------------------------------------------------------------------------------------
# the public functions, written once


def public(B: Backend, fn: Callable[..., Any], doc: str, module: str | None = None,
           intercept: Callable[[Callable[..., Any], tuple, dict], Any] | None = None) -> Callable[..., Any]:
    """``fn`` (:func:`apply_rope`, :func:`rope_cos_sin` or :func:`sinusoidal_table`) as
    backend ``B``'s public function: ``B`` bound, ``fn``'s name, ``doc``, the module that
    defines it (default ``B.module``; its globals run the docstring's examples), and the
    signature ``B`` takes (``apply_rope``'s second positional argument is
    :attr:`Backend.second`; keywords of other backends left out, and refused by name).
    ``intercept(function, args, kwargs)``, asked first for calls with ``config=``, may answer a
    call itself (anything but ``NotImplemented``), calling back the public ``function`` it is
    given where it needs to (so it imports no module that defines one): ChatGLM-6B's 2-D
    blocks in the NumPy core (:mod:`pe_symbolic.numeric._blocks`), without a frame between
    the caller and ``fn`` (warnings point at the caller).

    >>> from pe_symbolic import numeric
    >>> import inspect
    >>> list(inspect.signature(numeric.apply_rope).parameters)[:4]
    ['x', 'positions', 'position_ids', 'cos_sin']
    """
    name = fn.__name__
    second = B.second if name == "apply_rope" else None
    sig = inspect.signature(fn)
    own = B.options.get(name, ())
    params = []
    for p in list(sig.parameters.values())[1:]:
        if (p.name in BACKEND_ONLY[name] and p.name not in own) or p.name == "_key":
            continue
        if p.name == second:
            continue
        params.append(p)
        if second and p.name == "x":
            params.append(inspect.Parameter(second, inspect.Parameter.POSITIONAL_OR_KEYWORD, default=None))

    fast = _FAST.get(name)

    def function(*args: Any, **kwargs: Any) -> Any:
        if intercept is not None and "config" in kwargs:
            done = intercept(function, args, kwargs)
            if done is not NotImplemented:
                return done
        key = None
        if fast is not None and B.fast_ok():
            try:
                key = _call_key(B, name, args, kwargs)
                r = B.fast.get(key) if key is not None else None
            except TypeError:  # an unhashable argument: every check
                key = r = None
            if r is not None and (r.config is None or r.same_config(kwargs.get("config"))):
                return fast(B, r, args, kwargs)
        if second is not None and len(args) > 1:  # this backend's positions or ids
            if len(args) > 2:
                raise TypeError(f"{name}() takes from 1 to 2 positional arguments but {len(args)} were given")
            if second in kwargs:
                raise TypeError(f"{name}() got multiple values for argument {second!r}")
            kwargs[second] = args[1]
            args = args[:1]
        return fn(B, *args, _key=key, **kwargs) if fast is not None else fn(B, *args, **kwargs)

    function.__name__ = function.__qualname__ = name
    function.__module__ = module or B.module
    function.__doc__ = doc
    function.__signature__ = sig.replace(parameters=params)  # type: ignore[attr-defined]
    return function


#: The keywords that are some backend's own, per function: the NumPy core's ``accurate=``
#: (the accurate tables), ``out=`` and ``check_finite=``; the frameworks' ``device=``.
BACKEND_ONLY: dict[str, tuple[str, ...]] = {"apply_rope": ("accurate", "out", "check_finite"),
                                            "rope_cos_sin": ("accurate", "device"),
                                            "sinusoidal_table": ("accurate", "out", "device")}


def _given(**options: Any) -> dict[str, Any]:
    """The backend-only keywords that are not at their defaults."""
    return {k: v for k, v in options.items() if v is not None and v is not False}


def _check_xs(B: Backend, x: Any) -> tuple[list[Any], bool]:
    many = isinstance(x, (tuple, list))
    if many and not x:
        raise ValueError(f"x is an empty tuple; pass one or more {B.noun}s")
    xs = [B.check_x(v, f"x[{q}]" if many else "x") for q, v in enumerate(x if many else (x,))]
    d = xs[0].shape[-1]
    for q, v in enumerate(xs[1:], start=1):
        if v.shape[-1] != d:
            raise ValueError(f"x[{q}] has last axis {v.shape[-1]}; x[0] has {d}: every {B.noun} needs the same "
                             "head dim")
    return xs, many


def _length_of(B: Backend, config: Any, inv_freq: Any, layer_type: str | None, seq_len: Any, t: Any,
               name: str) -> Any:
    """``seq_len`` for dynamic / longrope configs: ``max(positions) + 1`` (HF's
    ``dynamic_rope_update``), read on the host; under a tracer the caller must pass it."""
    if not needs_length(config, inv_freq, layer_type, seq_len):
        return seq_len
    if B.traced(t):
        raise ValueError(f"this config's rope type depends on the sequence length, which {name} only says "
                         f"at run time; under {B.tracer} pass seq_len= (a static int, e.g. max({name}) + 1)")
    return max(1, math.floor(B.host_max(t)) + 1) if math.prod(t.shape) else None


def _axes_core(plan: Any, shape: tuple[int, ...]) -> tuple[int, ...]:
    """The positions' shape without the leading axis of M-RoPE (3) or axial RoPE (2), checked."""
    if plan.n_axes > 1:
        from ._rope_plan import positions_error

        why = positions_error(plan.n_axes, shape)
        if why:
            raise ValueError(why)
        return shape[1:]
    return shape


def rope_cos_sin(B: Backend, positions: Any, d: int | None = None, *, base: float = 10000.0,
                 layout: str = "split", dtype: Any = None, device: Any = None, accurate: bool = False,
                 config: Mapping[str, Any] | None = None, inv_freq: Any = None, layer_type: str | None = None,
                 seq_len: int | None = None, mrope_section: Sequence[int] | None = None,
                 mrope_interleaved: bool = False, attention_factor: float | None = None, _key: Any = None
                 ) -> tuple[Any, Any]:
    """``rope_cos_sin`` of backend ``B``: full-width ``(cos, sin)`` tables (see :func:`public`;
    ``_key``: the call's fast-path key, under which its outcome is kept)."""
    opts = B.take_options("rope_cos_sin", _given(device=device, accurate=accurate)) \
        if device is not None or accurate else None
    layout = slot_order(layout)
    _warn_layout(B, config, layout)
    d, config, base, seq_len, mrope_section = B.static((d, config, base, seq_len, mrope_section))
    dt = B.check_dtype(dtype)
    t = B.positions(positions, "positions", device)
    seq_len, fixed = _length_of(B, config, inv_freq, layer_type, seq_len, t, "positions"), seq_len
    kw = dict(d=d, base=base, config=config, inv_freq=B.host_inv_freq(inv_freq), layer_type=layer_type,
              seq_len=seq_len, mrope_section=mrope_section, mrope_interleaved=mrope_interleaved,
              attention_factor=attention_factor)
    plan = B.plan(rotary_dim=None, **kw)
    _axes_core(plan, tuple(t.shape))
    out = B.full_tables(t, plan, dt, layout, kw, device, opts)
    if seq_len == fixed:  # (a plan that depends on the length: planned every call)
        _keep(B, _key, Resolved(layout, plan=plan, kw=kw, dtype=dt, device=device, opts=opts, config=config))
    return out


def _fast_rope_cos_sin(B: Backend, r: Resolved, args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[Any, Any]:
    """:func:`rope_cos_sin` of a call whose checks an earlier call of its key passed."""
    if r.warns:
        _warn_layout(B, r.config, r.layout)
    t = B.positions(args[0] if args else kwargs["positions"], "positions", r.device)
    return B.full_tables(t, r.plan, r.dtype, r.layout, r.kw, r.device, r.opts)


def apply_rope(B: Backend, x: Any, *, positions: Any = None, position_ids: Any = None, cos_sin: Any = None,
               base: float = 10000.0, layout: str = "split", rotary_dim: int | None = None, accurate: bool = False,
               out: Any = None, config: Mapping[str, Any] | None = None, inv_freq: Any = None,
               layer_type: str | None = None, seq_len: int | None = None,
               mrope_section: Sequence[int] | None = None, mrope_interleaved: bool = False,
               attention_factor: float | None = None, check_finite: bool = False, _key: Any = None) -> Any:
    """``apply_rope`` of backend ``B`` (see :func:`public` and :func:`pe_symbolic.torch.apply_rope`;
    ``_key``: the call's fast-path key, under which its outcome is kept)."""
    xs, many = _check_xs(B, x)
    opts = B.take_options("apply_rope", _given(accurate=accurate, out=out, check_finite=check_finite), xs, many) \
        if accurate or out is not None or check_finite is not False else None
    layout = slot_order(layout)
    d = xs[0].shape[-1]
    if cos_sin is not None:
        r = _check_tables(B, xs, cos_sin, layout, rotary_dim, many, positions, position_ids, config, inv_freq,
                          seq_len, mrope_section, attention_factor, base)
        r = Resolved(**{**r.__dict__, "opts": opts, "route": B.route(xs, r.rd)})
        outs = B.rotate_tables(xs, cos_sin[0], cos_sin[1], r, opts)
        _keep(B, _key, r)
        return tuple(outs) if many else outs[0]
    _warn_layout(B, config, layout)
    config, base, rotary_dim, seq_len, mrope_section = B.static((config, base, rotary_dim, seq_len, mrope_section))
    given = config is not None or inv_freq is not None
    if not given and rotary_dim is None and d % 2:
        raise ValueError(f"the last axis of x has odd length d={d}; RoPE needs pairs (pass an even rotary_dim)")
    if (positions is None) == (position_ids is None):
        raise ValueError("pass exactly one of positions (broadcast against x.shape[:-1]), position_ids (Hugging "
                         "Face's (batch, seq)) and cos_sin (tables from rope_cos_sin)")
    pname = "position_ids" if position_ids is not None else "positions"
    t = B.positions(position_ids if position_ids is not None else positions, pname, B.device_of(xs[0]))
    seq_len, fixed = _length_of(B, config, inv_freq, layer_type, seq_len, t, pname), seq_len
    kw = dict(base=base, config=config, inv_freq=B.host_inv_freq(inv_freq), layer_type=layer_type,
              seq_len=seq_len, mrope_section=mrope_section, mrope_interleaved=mrope_interleaved,
              attention_factor=attention_factor)
    plan = B.plan(d=None if given else d, rotary_dim=rotary_dim, **kw)
    kw["d"] = None if given else plan.rotary_dim
    rd = plan.rotary_dim
    if rd > d:
        what = (f"rotary_dim={rd!r} must be a positive even integer" if not given else
                f"{'config' if config is not None else 'inv_freq'}= rotates {rd} channels, which must be")
        raise ValueError(f"{what} <= d={d} (the last axis of x)")
    core = _axes_core(plan, tuple(t.shape))
    ids = position_ids is not None and len(core) != 1  # (seq,) ids are positions of shape (seq,)
    if ids:
        _check_ids(xs, many, core, tuple(t.shape))
        core = core[:1] + (1,) + core[1:]
    for q, v in enumerate(xs):
        name = f"x[{q}].shape[:-1]" if many else "x.shape[:-1]"
        why = rope_shape_error(core, tuple(v.shape[:-1]), name, pname)
        if why:
            hint = ("; for Hugging Face position_ids of shape (batch, seq) pass position_ids="
                    if position_ids is None and len(core) == 2 and v.ndim == 4 else "")
            raise ValueError(why + hint)
    r = Resolved(layout, many, plan=plan, kw=kw, pname=pname, ids=ids, core=core, opts=opts, config=config,
                 route=B.route(xs, rd))
    outs = B.rotate_positions(xs, t, r, opts)
    if seq_len == fixed:  # (a plan that depends on the length: planned every call)
        _keep(B, _key, r)
    return tuple(outs) if many else outs[0]


def _fast_apply_rope(B: Backend, r: Resolved, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """:func:`apply_rope` of a call whose checks an earlier call of its key passed."""
    if r.warns:
        _warn_layout(B, r.config, r.layout)
    x = args[0] if args else kwargs["x"]
    xs = list(x) if r.many else [x]
    if r.plan is None:
        cos, sin = kwargs["cos_sin"]
        outs = B.rotate_tables(xs, cos, sin, r, r.opts)
    else:
        t = B.positions(args[1] if len(args) > 1 else kwargs[r.pname], r.pname, B.device_of(xs[0]))
        outs = B.rotate_positions(xs, t, r, r.opts)
    return tuple(outs) if r.many else outs[0]


#: The functions with a fast path, and how it runs a call.
_FAST: dict[str, Callable[..., Any]] = {"apply_rope": _fast_apply_rope, "rope_cos_sin": _fast_rope_cos_sin}


def _check_ids(xs: list[Any], many: bool, core: tuple[int, ...], shape: tuple[int, ...]) -> None:
    """``position_ids`` (batch, seq) (``core``: without M-RoPE's axis) against every ``x``:
    4-D, its (batch, seq) what the ids broadcast to."""
    for q, v in enumerate(xs):
        if len(core) != 2 or v.ndim != 4 or rope_shape_error(core, (v.shape[0], v.shape[2]), "") is not None:
            raise ValueError(
                f"position_ids of shape {shape} need x of shape (batch, heads, seq, d) with "
                f"position_ids.shape[-2:] broadcasting to (batch, seq) (or position_ids of shape (seq,)); "
                f"x{f'[{q}]' if many else ''} has shape {tuple(v.shape)}")


def _check_tables(B: Backend, xs: list[Any], cos_sin: Any, layout: str, rotary_dim: int | None, many: bool,
                  positions: Any, position_ids: Any, config: Any, inv_freq: Any, seq_len: Any,
                  mrope_section: Any, attention_factor: Any, base: Any) -> Resolved:
    """``apply_rope(x, cos_sin=...)``'s checks; what they found."""
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
    if cos.shape != sin.shape or cos.dtype != sin.dtype:
        raise ValueError(f"cos has shape {tuple(cos.shape)} and dtype {B.dtype_name(cos.dtype)}, sin "
                         f"{tuple(sin.shape)} and {B.dtype_name(sin.dtype)}; they must match")
    rd = cos.shape[-1] if cos.ndim else 0
    if rd == 0 or rd % 2 or (rotary_dim is not None and rotary_dim != rd):
        raise ValueError(f"the tables have {rd} channels; they must be even"
                         + (f" and equal rotary_dim={rotary_dim}" if rotary_dim is not None else ""))
    heads = []
    for q, v in enumerate(xs):
        name = f"x[{q}]" if many else "x"
        if rd > v.shape[-1]:
            raise ValueError(f"the tables rotate {rd} channels, which must be <= d={v.shape[-1]} (the last axis of {name})")
        heads.append(cos.ndim == 3 and v.ndim == 4)
        lead = tuple(cos.shape[:-1])
        why = rope_shape_error(lead[:1] + (1,) + lead[1:] if heads[-1] else lead, tuple(v.shape[:-1]),
                               f"{name}.shape[:-1]", "tables (without their last axis)")
        if why:
            raise ValueError(why)
        dev = B.device_of(v)
        if dev is not None and B.device_of(cos) != dev:
            raise ValueError(f"the tables are on {B.device_of(cos)} and {name} on {dev}: make them there "
                             f"(rope_cos_sin(..., device={name}.device)) or move them (.to({name}.device))")
        cdt = B.compute_dtype(v.dtype)
        if cos.dtype not in (v.dtype, cdt):
            raise TypeError(f"the tables are {B.dtype_name(cos.dtype)} and {name} is {B.dtype_name(v.dtype)}: make "
                            f"them with rope_cos_sin(..., dtype={B.dtype_name(cdt)}) (16-bit x rotates with float32 "
                            "tables)")
    return Resolved(layout, many, rd=rd, heads=tuple(heads))


def sinusoidal_table(B: Backend, positions: Any, d: int, *, base: float = 10000.0, layout: str = "interleaved",
                     order: str = "sin_cos", schedule: str = "vaswani", dtype: Any = None, device: Any = None,
                     accurate: bool = False, out: Any = None) -> Any:
    """``sinusoidal_table`` of backend ``B`` (see :func:`public`)."""
    opts = B.take_options("sinusoidal_table", _given(device=device, accurate=accurate, out=out)) \
        if device is not None or accurate or out is not None else None
    d, base = B.static((d, base))
    d, base = _sinusoidal_numbers(d, base)
    layout = slot_order(layout)
    order = check_order(order)
    schedule = check_schedule(schedule)
    dt = B.check_dtype(dtype)
    t = B.positions(positions, "positions", device)
    return B.sinusoidal(t, d, base, layout, order, schedule, dt, device, opts)
