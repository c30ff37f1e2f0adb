r"""The proved formulas lowered to JAX: RoPE and sinusoidal tables on JAX arrays.

Arrays in, arrays out, in the input's dtype (float32, float16, bfloat16; float64 with
x64 enabled); differentiable in ``x`` (``jax.grad``, ``jax.vjp``); usable under
``jax.jit`` and ``jax.vmap``. The same signatures as :mod:`pe_symbolic.torch`.

**Where the formulas come from.** As in :mod:`pe_symbolic.torch`: the pair rotation and
the table entries lowered through :mod:`pe_symbolic.numeric.lower` with ``modules="jax"``
from the proved claims ``rope.efficient_form`` and ``translation.identity``; frequencies
from 40-digit values rounded once to float64.

**float64 and x64.** JAX without ``jax_enable_x64`` silently computes float64 requests
in float32, which would form the angles in float32 (off by ~0.03 rad at position 1M).
So the tables are made one of two ways, never in float32:

* x64 enabled (``jax.config.update("jax_enable_x64", True)``): in the graph, as
  :mod:`pe_symbolic.torch` does: float64 positions and frequencies, the lowered
  ``(cos(m*theta), sin(m*theta))`` in float64, rounded once to the table's dtype (float16 /
  bfloat16 correctly, through float32 rounded to odd). Angle error
  ``<= 2**-52 * |m * theta|``.
* x64 disabled (JAX's default): the NumPy core's tables (angle addition in float64 and
  better, within 7 ulp of float64, rounded once to float32), through
  ``jax.pure_callback`` -- a host round trip for the positions and the tables (small
  against ``x``: ``positions x d/2`` entries), bit for bit the NumPy core's tables. The
  rotation itself stays in the graph.

A float64 result asked for without x64 (``dtype=jnp.float64``) is refused with a
:class:`TypeError` that says how to enable it.

JAX is optional: ``pip install 'pe_symbolic[jax]'``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from .numeric import _frontend as F
from .numeric import lower as _lower

__all__ = ["apply_rope", "rope_cos_sin", "sinusoidal_table", "x64_enabled"]

_FLOATS = ("float64", "float32", "float16", "bfloat16")


def _jax():
    try:
        import jax
        import jax.numpy as jnp
    except ImportError:
        raise ImportError("pe_symbolic.jax needs JAX, which is not installed: "
                          "pip install 'pe_symbolic[jax]' (or pip install jax)") from None
    return jax, jnp


def x64_enabled() -> bool:
    """Whether JAX computes float64 (``jax_enable_x64``); without it the tables come from
    the NumPy core through ``jax.pure_callback`` (see the module docstring).

    >>> isinstance(x64_enabled(), bool)
    True
    """
    jax, _ = _jax()
    return bool(jax.config.jax_enable_x64)


def _check_dtype(dtype: Any, name: str = "dtype"):
    _, jnp = _jax()
    if dtype is None:
        return jnp.dtype(jnp.float32)
    try:
        dt = jnp.dtype(dtype)
    except TypeError:
        dt = None
    if dt is None or dt.name not in _FLOATS:
        raise TypeError(f"{name}={dtype!r} is not allowed; use one of float64 (with x64), float32, "
                        "float16, bfloat16")
    if dt.name == "float64" and not x64_enabled():
        raise TypeError(f"{name}=float64 needs JAX's x64 mode, which is off (JAX would silently compute "
                        "float32): jax.config.update('jax_enable_x64', True), or ask for float32")
    return dt


def _is_traced(v: Any) -> bool:
    jax, _ = _jax()
    return isinstance(v, jax.core.Tracer)


#: The lowered formulas, fetched through numeric.lower on first use.
_FORMULAS: dict[str, Any] = {}
_GETTERS = {"pair": "rope_pair", "cos_sin": "rope_angle_cos_sin", "sinusoidal": "sinusoidal_pair"}


def _formula(name: str) -> Any:
    if name not in _FORMULAS:
        _FORMULAS[name] = getattr(_lower, _GETTERS[name])("jax")
    return _FORMULAS[name]


def _positions(positions: Any, name: str):
    """Positions as given when a JAX array (traced or not), else a checked float64 NumPy
    array (finite, real, ``|t| < 2**53``): never through a JAX float32 array, which
    without x64 would round fractional or large positions."""
    jax, jnp = _jax()
    if isinstance(positions, jax.Array):
        if not (jnp.issubdtype(positions.dtype, jnp.integer) or jnp.issubdtype(positions.dtype, jnp.floating)):
            raise TypeError(f"{name} must hold integers or real numbers; got dtype {positions.dtype}")
        return positions
    from .numeric._checks import as_positions

    return as_positions(positions, name=name)


def _round_once(v, dtype):
    """float64 ``v`` rounded once to ``dtype`` (float16 / bfloat16 through float32 rounded to odd)."""
    jax, jnp = _jax()
    lax = jax.lax
    if dtype == jnp.float64:
        return v
    r = v.astype(jnp.float32)
    if dtype == jnp.float32:
        return r
    back = r.astype(jnp.float64)
    inexact = back != v
    bits = lax.bitcast_convert_type(r, jnp.int32)
    bits = bits - (inexact & (jnp.abs(back) > jnp.abs(v))).astype(jnp.int32)
    bits = bits | inexact.astype(jnp.int32)
    return lax.bitcast_convert_type(bits, jnp.float32).astype(dtype)


def _half_tables_x64(t, plan: F.TablePlan):
    _, jnp = _jax()
    t64 = t.astype(jnp.float64)
    w = jnp.asarray(np.asarray(plan.w, dtype=np.float64))
    if plan.axes is None:
        m = t64[..., None]
    else:
        m = jnp.moveaxis(t64[np.asarray(plan.axes)], 0, -1)
    c, s = _formula("cos_sin")(m, w)
    if plan.attention != 1.0:
        c, s = c * plan.attention, s * plan.attention
    return c, s


def _half_tables_host(t, plan: F.TablePlan, dtype, kw: dict[str, Any]):
    """The NumPy core's half tables (split slots) for the frequency keywords ``kw``, rounded
    once to ``dtype`` (float32 or a 16-bit type), through ``jax.pure_callback`` when
    ``t`` is traced."""
    jax, jnp = _jax()
    from .numeric import rope_cos_sin as np_cos_sin

    npdt = np.dtype(jnp.dtype(dtype))
    h = plan.h

    def host(pos):
        c, s = np_cos_sin(np.asarray(pos), layout="split", dtype=npdt, **kw)
        return np.ascontiguousarray(c[..., :h]), np.ascontiguousarray(s[..., :h])

    if not _is_traced(t):
        c, s = host(np.asarray(t))
        return jnp.asarray(c), jnp.asarray(s)
    pshape = tuple(t.shape[1:]) if plan.axes is not None else tuple(t.shape)
    out = jax.ShapeDtypeStruct(pshape + (h,), npdt)
    return jax.pure_callback(host, (out, out), t, vmap_method="sequential")


def _tables(t, plan: F.TablePlan, dtype, kw: dict[str, Any]):
    """Half tables ``P + (h,)`` in ``dtype`` (the float64 values rounded once)."""
    _, jnp = _jax()
    if x64_enabled():
        c, s = _half_tables_x64(t, plan)
        return _round_once(c, dtype), _round_once(s, dtype)
    if jnp.dtype(dtype) == jnp.float64:  # (refused by _check_dtype before)
        raise TypeError("float64 tables need JAX's x64 mode")
    return _half_tables_host(t, plan, dtype, kw)


def _widen(half, layout: str):
    _, jnp = _jax()
    if layout == "split":
        return jnp.concatenate((half, half), axis=-1)
    return jnp.repeat(half, 2, axis=-1)


def _length_of(config, inv_freq, layer_type, seq_len, t, name: str):
    if not F.needs_length(config, inv_freq, layer_type, seq_len):
        return seq_len
    if _is_traced(t):
        raise ValueError(f"this config's rope type depends on the sequence length, which {name} only says "
                         "at run time; under jax.jit pass seq_len= (a static int, e.g. max(position_ids) + 1)")
    import math

    arr = np.asarray(t)
    return max(1, math.floor(float(arr.max())) + 1) if arr.size else None


def _host(inv_freq: Any) -> Any:
    if inv_freq is None:
        return None
    if _is_traced(inv_freq):
        raise TypeError("inv_freq must be concrete (not traced by jax.jit): pass it as a static "
                        "value or close over it")
    jax, _ = _jax()
    return np.asarray(inv_freq, dtype=np.float64) if isinstance(inv_freq, jax.Array) else inv_freq


# ----------------------------------------------------------------------------------------
# public functions


def rope_cos_sin(
    positions: Any,
    d: int | None = None,
    *,
    base: float = 10000.0,
    layout: str = "split",
    dtype: Any = None,
    config: Mapping[str, Any] | None = None,
    inv_freq: Any = None,
    layer_type: str | None = None,
    seq_len: int | None = None,
    mrope_section: Sequence[int] | None = None,
    mrope_interleaved: bool = False,
    attention_factor: float | None = None,
):
    r"""``(cos, sin)`` tables, as :func:`pe_symbolic.torch.rope_cos_sin`, as JAX arrays.

    Parameters
    ----------
    positions : jax.Array or array_like
        Token positions (integer or float dtype), e.g. ``position_ids`` of shape
        ``(batch, seq)``; M-RoPE: a leading axis of 3.
    d, base, layout, config, inv_freq, layer_type, seq_len, mrope_section, mrope_interleaved, attention_factor
        As in :func:`pe_symbolic.numeric.rope_cos_sin`. Under ``jax.jit``, ``dynamic`` /
        ``longrope`` configs need ``seq_len``.
    dtype : dtype, optional
        float32 (default), float16, bfloat16; float64 with x64 enabled.

    Returns
    -------
    cos, sin : jax.Array
        Shape ``positions.shape + (d,)`` (M-RoPE: ``positions.shape[1:] + (d,)``).

    Examples
    --------
    >>> import jax.numpy as jnp
    >>> c, s = rope_cos_sin(jnp.arange(2), 4, base=100.0)
    >>> c.dtype, c.shape
    (dtype('float32'), (2, 4))
    >>> np.asarray(c).round(4)
    array([[1.    , 1.    , 1.    , 1.    ],
           [0.5403, 0.995 , 0.5403, 0.995 ]], dtype=float32)
    """
    layout = F.slot_order(layout)
    dt = _check_dtype(dtype)
    t = _positions(positions, "positions")
    seq_len = _length_of(config, inv_freq, layer_type, seq_len, t, "positions")
    kw = dict(d=d, base=base, config=config, inv_freq=_host(inv_freq), layer_type=layer_type,
              seq_len=seq_len, mrope_section=mrope_section, mrope_interleaved=mrope_interleaved,
              attention_factor=attention_factor)
    plan = F.table_plan(rotary_dim=None, **kw)
    if plan.n_axes == 3 and (t.ndim == 0 or t.shape[0] != 3):
        raise ValueError(f"M-RoPE positions need a leading axis of 3 (t, h, w); got shape {tuple(t.shape)}")
    c, s = _tables(t, plan, dt, kw)
    return _widen(c, layout), _widen(s, layout)


def apply_rope(
    x: Any,
    position_ids: Any = None,
    *,
    positions: Any = None,
    cos_sin: Any = None,
    base: float = 10000.0,
    layout: str = "split",
    rotary_dim: int | None = None,
    config: Mapping[str, Any] | None = None,
    inv_freq: Any = None,
    layer_type: str | None = None,
    seq_len: int | None = None,
    mrope_section: Sequence[int] | None = None,
    mrope_interleaved: bool = False,
    attention_factor: float | None = None,
):
    r"""Rotate each pair of ``x[..., :rotary_dim]`` by ``m * theta_i``: RoPE on JAX arrays.

    Parameters
    ----------
    x : jax.Array or tuple of jax.Array
        float32, float16, bfloat16 (float64 with x64), shape ``(..., seq, d)``; with
        ``position_ids`` Hugging Face's ``(batch, heads, seq, d)``. A tuple ``(q, k)`` is
        rotated with one set of tables and returned as a tuple.
    position_ids : jax.Array, optional
        ``(batch, seq)`` (M-RoPE: ``(3, batch, seq)``); the heads axis is inserted.
    positions : jax.Array or array_like, optional
        Instead: positions broadcasting against ``x.shape[:-1]``.
    cos_sin : (jax.Array, jax.Array), optional
        Tables from :func:`rope_cos_sin` (same ``layout``; float32 for 16-bit ``x``),
        broadcasting against ``x.shape[:-1] + (rotary_dim,)``; 3-D tables ``(batch, seq,
        rotary_dim)`` with 4-D ``x`` get the heads axis inserted (as Hugging Face's
        ``apply_rotary_pos_emb``).
    base, layout, rotary_dim, config, inv_freq, layer_type, seq_len, mrope_section, mrope_interleaved, attention_factor
        As in :func:`pe_symbolic.numeric.apply_rope`.

    Returns
    -------
    jax.Array or tuple
        Same shape and dtype as ``x``. 16-bit ``x`` is rotated in float32 and rounded once.

    Examples
    --------
    >>> import jax.numpy as jnp
    >>> x = jnp.array([[1.0, 0.0, 1.0, 0.0]])
    >>> np.asarray(apply_rope(x, positions=[1], base=100.0, layout="interleaved")).round(4)
    array([[0.5403, 0.8415, 0.995 , 0.0998]], dtype=float32)
    """
    jax, jnp = _jax()
    many = isinstance(x, (tuple, list))
    xs = list(x) if many else [x]
    if not xs:
        raise ValueError("x is an empty tuple; pass one or more arrays")
    for q, v in enumerate(xs):
        name = f"x[{q}]" if many else "x"
        if not isinstance(v, jax.Array):
            raise TypeError(f"{name} must be a jax.Array (for NumPy arrays use "
                            f"pe_symbolic.numeric.apply_rope); got {type(v).__name__}")
        _check_dtype(v.dtype, name=f"{name}.dtype")
        if v.ndim < 1:
            raise ValueError(f"{name} must have at least one axis (the head dim); got a 0-d array")
    layout = F.slot_order(layout)
    d = xs[0].shape[-1]
    for q, v in enumerate(xs[1:], start=1):
        if v.shape[-1] != d:
            raise ValueError(f"x[{q}] has last axis {v.shape[-1]}; x[0] has {d}: every array needs the same head dim")
    if cos_sin is not None:
        return _apply_tables(xs, cos_sin, layout, rotary_dim, many, positions, position_ids, config,
                             inv_freq, seq_len, mrope_section, attention_factor, base)
    given = config is not None or inv_freq is not None
    if not given and rotary_dim is None and d % 2:
        raise ValueError(f"the last axis of x has odd length d={d}; RoPE needs pairs (pass an even rotary_dim)")
    if (positions is None) == (position_ids is None):
        raise ValueError("pass exactly one of position_ids (Hugging Face's (batch, seq)), positions "
                         "(broadcast against x.shape[:-1]) and cos_sin (tables from rope_cos_sin)")
    pname = "position_ids" if position_ids is not None else "positions"
    t = _positions(position_ids if position_ids is not None else positions, pname)
    seq_len = _length_of(config, inv_freq, layer_type, seq_len, t, pname)
    kw = dict(base=base, config=config, inv_freq=_host(inv_freq), layer_type=layer_type, seq_len=seq_len,
              mrope_section=mrope_section, mrope_interleaved=mrope_interleaved,
              attention_factor=attention_factor)
    plan = F.table_plan(d=None if given else d, rotary_dim=rotary_dim, **kw)
    kw["d"] = None if given else plan.rotary_dim
    if plan.rotary_dim > d:
        raise ValueError(f"the frequencies rotate {plan.rotary_dim} channels, which must be <= d={d} (the last axis of x)")
    if plan.n_axes == 3:
        if t.ndim == 0 or t.shape[0] != 3:
            raise ValueError(f"M-RoPE positions need a leading axis of 3 (t, h, w); got shape {tuple(t.shape)}")
        core = tuple(t.shape[1:])
    else:
        core = tuple(t.shape)
    if position_ids is not None:
        if len(core) != 2:
            raise ValueError(f"position_ids must have shape (batch, seq) (M-RoPE: (3, batch, seq)); "
                             f"got shape {tuple(t.shape)}")
        t = t[..., None, :]
        core = core[:1] + (1,) + core[1:]
    for q, v in enumerate(xs):
        if position_ids is not None and v.ndim != 4:
            raise ValueError(f"position_ids need x of shape (batch, heads, seq, d); "
                             f"x{f'[{q}]' if many else ''} has shape {tuple(v.shape)}")
        why = F.rope_shape_error(core, tuple(v.shape[:-1]), f"x[{q}].shape[:-1]" if many else "x.shape[:-1]")
        if why:
            raise ValueError(why)
    tables: dict[Any, Any] = {}
    outs = []
    for v in xs:
        cdt = jnp.dtype(jnp.float64) if v.dtype == jnp.float64 else jnp.dtype(jnp.float32)
        if cdt not in tables:
            tables[cdt] = _tables(t, plan, cdt, kw)
        outs.append(_rotate(v, *tables[cdt], layout, plan.rotary_dim))
    return tuple(outs) if many else outs[0]


def _apply_tables(xs, cos_sin, layout, rotary_dim, many, positions, position_ids, config, inv_freq,
                  seq_len, mrope_section, attention_factor, base):
    jax, jnp = _jax()
    if positions is not None or position_ids is not None:
        raise ValueError("cos_sin= already holds the tables: pass no positions or position_ids with it")
    if (config is not None or inv_freq is not None or seq_len is not None or mrope_section is not None
            or attention_factor is not None or base != 10000.0):
        raise ValueError("cos_sin= already holds the tables: the frequency keywords (base, config, inv_freq, "
                         "seq_len, mrope_section, attention_factor) belong to rope_cos_sin")
    if not (isinstance(cos_sin, (tuple, list)) and len(cos_sin) == 2
            and all(isinstance(v, jax.Array) for v in cos_sin)):
        raise TypeError("cos_sin must be a pair of arrays (cos, sin), as rope_cos_sin returns")
    cos, sin = cos_sin
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
        why = F.rope_shape_error(tuple(cv.shape[:-1]), tuple(v.shape[:-1]), f"{name}.shape[:-1]")
        if why:
            raise ValueError(why.replace("positions", "tables (without their last axis)"))
        low = v.dtype in (jnp.float16, jnp.bfloat16)
        if v.dtype != c.dtype and not (low and c.dtype == jnp.float32):
            raise TypeError(f"the tables are {c.dtype} and {name} is {v.dtype}: make them with "
                            f"rope_cos_sin(..., dtype={'float32' if low else v.dtype}) (16-bit x rotates "
                            "with float32 tables)")
        outs.append(_rotate(v, cv, sv, layout, rd))
    return tuple(outs) if many else outs[0]


def _rotate(x, c, s, layout: str, rd: int):
    _, jnp = _jax()
    pair = _formula("pair")
    low = x.dtype in (jnp.float16, jnp.bfloat16)
    h = rd // 2

    def back(v):  # 16-bit x: each rotated half rounded once back to x's dtype
        return v.astype(x.dtype) if low else v

    if layout == "split":
        x1, x2 = x[..., :h], x[..., h:rd]
    else:
        xr = x[..., :rd].reshape(x.shape[:-1] + (h, 2))
        x1, x2 = xr[..., 0], xr[..., 1]
    if low:
        x1, x2 = x1.astype(jnp.float32), x2.astype(jnp.float32)
    a, b = pair(x1, x2, c, s)
    if layout == "split":
        parts = [back(a), back(b)]
    else:
        parts = [jnp.stack((back(a), back(b)), axis=-1).reshape(x.shape[:-1] + (rd,))]
    if rd < x.shape[-1]:
        parts.append(x[..., rd:])
    return parts[0] if len(parts) == 1 else jnp.concatenate(parts, axis=-1)


def sinusoidal_table(
    positions: Any,
    d: int,
    *,
    base: float = 10000.0,
    layout: str = "interleaved",
    order: str = "sin_cos",
    schedule: str = "vaswani",
    dtype: Any = None,
):
    r"""The sinusoidal encoding PE(t), as :func:`pe_symbolic.numeric.sinusoidal_table`, as a JAX array.

    Parameters
    ----------
    positions : jax.Array or array_like
        Any shape, integer or float dtype.
    d, base, layout, order, schedule
        As in :func:`pe_symbolic.numeric.sinusoidal_table`.
    dtype : dtype, optional
        float32 (default), float16, bfloat16; float64 with x64 enabled.

    Returns
    -------
    jax.Array
        Shape ``positions.shape + (d,)``. With x64: the lowered ``(sin(omega*t),
        cos(omega*t))`` in float64, rounded once; without: the NumPy core's table through
        ``jax.pure_callback``.

    Examples
    --------
    >>> import jax.numpy as jnp
    >>> np.asarray(sinusoidal_table(jnp.arange(2), 4, base=100.0)).round(4)
    array([[0.    , 1.    , 0.    , 1.    ],
           [0.8415, 0.5403, 0.0998, 0.995 ]], dtype=float32)
    """
    from ._validate import check_order, check_schedule

    jax, jnp = _jax()
    layout = F.slot_order(layout)
    order = check_order(order)
    schedule = check_schedule(schedule)
    dt = _check_dtype(dtype)
    t = _positions(positions, "positions")
    plan = F.table_plan_sinusoidal(d, base, schedule)
    if x64_enabled():
        w = jnp.asarray(np.asarray(plan.w, dtype=np.float64))
        s, c = _formula("sinusoidal")(t.astype(jnp.float64)[..., None], w)
        first, second = (s, c) if order == "sin_cos" else (c, s)
        first, second = _round_once(first, dt), _round_once(second, dt)
        if layout == "interleaved":
            return jnp.stack((first, second), axis=-1).reshape(t.shape + (2 * len(plan.w),))
        return jnp.concatenate((first, second), axis=-1)
    from .numeric import sinusoidal_table as np_table

    npdt = np.dtype(dt)

    def host(pos):
        return np.ascontiguousarray(np_table(np.asarray(pos), plan.rotary_dim, base=base, layout=layout,
                                             order=order, schedule=schedule, dtype=npdt))

    if not _is_traced(t):
        return jnp.asarray(host(np.asarray(t)))
    out = jax.ShapeDtypeStruct(tuple(t.shape) + (plan.rotary_dim,), npdt)
    return jax.pure_callback(host, out, t, vmap_method="sequential")
