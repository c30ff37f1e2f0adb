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
  rotation itself stays in the graph. Each traced call keeps the tables of the last
  positions it saw (compared by value on the host), so a model that passes the same ids to
  every layer computes them once; on a GPU the round trip still costs milliseconds (2.0 ms
  measured on an H100 for 4 x 4096 positions): pass ``cos_sin=`` from
  :func:`rope_cos_sin`, computed once per forward, or enable x64.

A float64 result asked for without x64 (``dtype=jnp.float64``) is refused with a
:class:`TypeError` that says how to enable it.

JAX is optional: ``pip install 'pe_symbolic[jax]'``.
"""

from __future__ import annotations

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
    without x64 would round fractional or large positions. A float JAX array is held to
    where its type holds every integer (``pe_symbolic.numeric._checks.as_positions``):
    float32 below 2**24, float16 and bfloat16 below 2048 and 256 (converted to float32,
    exactly, with a warning; refused under a tracer, where their values cannot be read)."""
    jax, jnp = _jax()
    from .numeric._checks import as_positions

    if isinstance(positions, jax.Array):
        if not (jnp.issubdtype(positions.dtype, jnp.integer) or jnp.issubdtype(positions.dtype, jnp.floating)):
            raise TypeError(f"{name} must hold integers or real numbers; got dtype {positions.dtype}")
        held = jnp.dtype(positions.dtype).name
        if held not in ("float32", "float16", "bfloat16"):
            return positions
        low = held != "float32"
        if _is_traced(positions):  # the values cannot be read under jit
            if low:
                bound = 2048 if held == "float16" else 256
                raise TypeError(f"{name} of dtype {held} are refused under a JAX transformation: {held} holds "
                                f"every integer only up to {bound} ({bound + 1} is the first position it cannot "
                                "hold), and the values cannot be checked under a tracer; hold positions as integers")
            return positions
        if low or (positions.size and float(jnp.max(jnp.abs(positions))) >= 2.0**24):
            as_positions(np.asarray(positions), name=name)  # raises, or warns (16-bit)
        return positions.astype(jnp.float32) if low else positions

    return as_positions(positions, name=name)


def _round_once(v, dtype):
    """float64 ``v`` rounded once to ``dtype`` (:func:`pe_symbolic.numeric._frontend.round_once`)."""
    return F.round_once(_B, v, dtype)


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
    from .numeric._numpy_backend import _rope_cos_sin

    npdt = np.dtype(jnp.dtype(dtype))
    h = plan.h
    # this trace's last (positions, cos, sin), one tuple (read and replaced whole): a jitted
    # model passes the same ids to every layer, and the same ids give the same bits
    last: list[tuple[Any, Any, Any]] = []

    def host(pos):
        pos = np.asarray(pos)
        hit = last[0] if last else None
        if hit is not None and hit[0].dtype == pos.dtype and hit[0].shape == pos.shape \
                and hit[0].tobytes() == pos.tobytes():
            c, s = hit[1], hit[2]
        else:
            # the split half tables, whatever the call's layout (no layout warning here: the caller warned)
            c, s = _rope_cos_sin(pos, layout="split", dtype=npdt, accurate=False, **kw)
            c, s = np.ascontiguousarray(c[..., :h]), np.ascontiguousarray(s[..., :h])
            last[:] = [(pos.copy(), c, s)]
        return c.copy(), s.copy()  # (JAX may keep a returned host array as the result's buffer)

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


class _Jax(F.Backend):
    """What :mod:`pe_symbolic.numeric._frontend` needs from JAX."""

    def is_array(self, v: Any) -> bool:
        jax, _ = _jax()
        return isinstance(v, jax.Array)

    def meta(self, v: Any) -> Any:
        jax, _ = _jax()
        # (a tracer is a jax.Array of another type: its own key)
        return (type(v), v.shape, v.dtype) if isinstance(v, jax.Array) else None

    def check_dtype(self, dtype: Any, name: str = "dtype") -> Any:
        return _check_dtype(dtype, name)

    def is_low(self, dtype: Any) -> bool:
        _, jnp = _jax()
        return dtype in (jnp.float16, jnp.bfloat16)

    def compute_dtype(self, dtype: Any) -> Any:
        _, jnp = _jax()
        return jnp.dtype(jnp.float64) if dtype == jnp.float64 else jnp.dtype(jnp.float32)

    def dtype_name(self, dtype: Any) -> str:
        _, jnp = _jax()
        return jnp.dtype(dtype).name

    def positions(self, positions: Any, name: str, device: Any = None) -> Any:
        return _positions(positions, name)

    def traced(self, t: Any) -> bool:
        return _is_traced(t)

    def host_max(self, t: Any) -> float:
        return float(np.asarray(t).max())

    def host_inv_freq(self, inv_freq: Any) -> Any:
        if inv_freq is None:
            return None
        if _is_traced(inv_freq):
            raise TypeError("inv_freq must be concrete (not traced by jax.jit): pass it as a static "
                            "value or close over it")
        jax, _ = _jax()
        return np.asarray(inv_freq, dtype=np.float64) if isinstance(inv_freq, jax.Array) else inv_freq

    def tables(self, t: Any, plan: F.TablePlan, dtype: Any, kw: dict[str, Any], device: Any,
               keep: bool = True) -> tuple[Any, Any]:
        return _tables(t, plan, dtype, kw)

    def full_tables(self, t: Any, plan: Any, dtype: Any, layout: str, kw: dict[str, Any], device: Any,
                    opts: Any) -> tuple[Any, Any]:
        c, s = super().full_tables(t, plan, dtype, layout, kw, device, opts)
        if device is None:
            return c, s
        jax, _ = _jax()
        return jax.device_put(c, device), jax.device_put(s, device)

    def sinusoidal(self, t: Any, d: int, base: float, layout: str, order: str, schedule: str, dtype: Any,
                   device: Any, opts: Any) -> Any:
        jax, jnp = _jax()
        plan = F.table_plan_sinusoidal(d, base, schedule)
        if x64_enabled():
            w = jnp.asarray(np.asarray(plan.w, dtype=np.float64))
            s, c = _formula("sinusoidal")(t.astype(jnp.float64)[..., None], w)
            out = F.sinusoidal_slots(self, s, c, layout, order, lambda v: _round_once(v, dtype))
        else:
            from .numeric import sinusoidal_table as np_table

            npdt = np.dtype(dtype)

            def host(pos):
                return np.ascontiguousarray(np_table(np.asarray(pos), d, base=base, layout=layout, order=order,
                                                     schedule=schedule, dtype=npdt))

            if not _is_traced(t):
                out = jnp.asarray(host(np.asarray(t)))
            else:
                shape = jax.ShapeDtypeStruct(tuple(t.shape) + (d,), npdt)
                out = jax.pure_callback(host, shape, t, vmap_method="sequential")
        return out if device is None else jax.device_put(out, device)

    def widen(self, half: Any, layout: str) -> Any:
        _, jnp = _jax()
        if layout == "split":
            return jnp.concatenate((half, half), axis=-1)
        return jnp.repeat(half, 2, axis=-1)

    def dtype(self, name: str) -> Any:
        _, jnp = _jax()
        return jnp.dtype(name)

    def bitcast(self, v: Any, dtype: Any) -> Any:
        jax, _ = _jax()
        return jax.lax.bitcast_convert_type(v, dtype)

    def cast(self, v: Any, dtype: Any) -> Any:
        return v.astype(dtype)

    def concat(self, parts: list[Any]) -> Any:
        _, jnp = _jax()
        return jnp.concatenate(parts, axis=-1)

    def interleave(self, a: Any, b: Any) -> Any:
        _, jnp = _jax()
        return jnp.stack((a, b), axis=-1).reshape(a.shape[:-1] + (2 * a.shape[-1],))

    def pair_slots(self, x: Any, rd: int) -> tuple[Any, Any]:
        xr = x[..., :rd].reshape(x.shape[:-1] + (rd // 2, 2))
        return xr[..., 0], xr[..., 1]

    def formula(self, name: str) -> Any:
        return _formula(name)


_B = _Jax("pe_symbolic.jax", "jax.Array", "array", "jax.jit")


# ----------------------------------------------------------------------------------------
# public functions: the shared front end's, bound to this backend


rope_cos_sin = F.public(_B, F.rope_cos_sin, r"""``(cos, sin)`` tables, as :func:`pe_symbolic.torch.rope_cos_sin`, as JAX arrays.

    Parameters
    ----------
    positions : jax.Array or array_like
        Token positions (integer or float dtype), e.g. ``position_ids`` of shape
        ``(batch, seq)``; M-RoPE: a leading axis of 3; an axial config: of 2 (row, col).
    d, base, layout, config, inv_freq, layer_type, seq_len, mrope_section, mrope_interleaved, attention_factor
        As in :func:`pe_symbolic.numeric.rope_cos_sin`. Under ``jax.jit``, ``dynamic`` /
        ``longrope`` configs need ``seq_len``.
    dtype : dtype, optional
        float32 (default), float16, bfloat16; float64 with x64 enabled.
    device : jax.Device or jax.sharding.Sharding, optional
        Where to put the tables (``jax.device_put``); default: JAX's default placement.

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
    """)

apply_rope = F.public(_B, F.apply_rope, r"""Rotate each pair of ``x[..., :rotary_dim]`` by ``m * theta_i``: RoPE on JAX arrays.

    Parameters
    ----------
    x : jax.Array or tuple of jax.Array
        float32, float16, bfloat16 (float64 with x64), shape ``(..., seq, d)``; with
        ``position_ids`` Hugging Face's ``(batch, heads, seq, d)``. A tuple ``(q, k)`` is
        rotated with one set of tables and returned as a tuple.
    position_ids : jax.Array, optional
        ``(batch, seq)`` (M-RoPE: ``(3, batch, seq)``; an axial config: ``(2, batch, seq)``, row
        and column); the heads axis is inserted. ``(seq,)`` (M-RoPE: ``(3, seq)``) is positions of
        that shape, as everywhere.
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
    """)

sinusoidal_table = F.public(_B, F.sinusoidal_table, r"""The sinusoidal encoding PE(t), as :func:`pe_symbolic.numeric.sinusoidal_table`, as a JAX array.

    Parameters
    ----------
    positions : jax.Array or array_like
        Any shape, integer or float dtype.
    d, base, layout, order, schedule
        As in :func:`pe_symbolic.numeric.sinusoidal_table`.
    dtype : dtype, optional
        float32 (default), float16, bfloat16; float64 with x64 enabled.
    device : jax.Device or jax.sharding.Sharding, optional
        Where to put the table (``jax.device_put``).

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
    """)

