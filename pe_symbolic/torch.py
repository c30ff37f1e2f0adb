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

**Performance.** :func:`apply_rope` computes its tables from ``position_ids`` each call
(float64 cosines and sines of ``positions x d/2`` entries); a model that applies RoPE in
every layer computes them once with :func:`rope_cos_sin` and passes ``cos_sin=`` (Hugging
Face's ``rotary_emb`` / ``apply_rotary_pos_emb`` split). Under ``torch.compile`` the
rotation fuses into one pass over ``x``.

torch is optional: ``pip install 'pe_symbolic[torch]'``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from .numeric import _frontend as F
from .numeric import lower as _lower

if TYPE_CHECKING:  # pragma: no cover
    import torch

__all__ = ["apply_rope", "rope_cos_sin", "sinusoidal_table"]

_FLOATS = ("float64", "float32", "float16", "bfloat16")


def _torch():
    try:
        import torch
    except ImportError:
        raise ImportError("pe_symbolic.torch needs torch, which is not installed: "
                          "pip install 'pe_symbolic[torch]' (or pip install torch)") from None
    return torch


def _compiling() -> bool:
    torch = _torch()
    return bool(torch.compiler.is_compiling())


# ----------------------------------------------------------------------------------------
# host-side planning: plain Python values, a constant to torch.compile


def _plan_values(**kw: Any) -> tuple:
    """The frequency plan's values (a tuple of Python numbers): host work (config parsing,
    40-digit frequencies), run once at trace time under ``torch.compile`` and baked into
    the graph as a constant."""
    p = F.table_plan(**kw)
    return (p.w, p.rotary_dim, p.axes, p.attention)


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


def _plan(**kw: Any) -> F.TablePlan:
    return F.TablePlan(*_plan_values(**kw))


def _sinusoidal_plan(d: int, base: Any, schedule: str) -> F.TablePlan:
    return F.TablePlan(*_sinusoidal_values(d, base, schedule))


# What torch.compiler.assume_constant_result(fn) does (it sets this flag and returns fn),
# without importing torch here: dynamo calls these at trace time instead of tracing them.
_plan_values._dynamo_marked_constant = True  # type: ignore[attr-defined]
_load_formula._dynamo_marked_constant = True  # type: ignore[attr-defined]
_sinusoidal_values._dynamo_marked_constant = True  # type: ignore[attr-defined]


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


def _as_positions(positions: Any, device: Any, name: str):
    """Positions as a float64 tensor (integers exact below 2**53), on ``device``."""
    torch = _torch()
    if isinstance(positions, torch.Tensor):
        if positions.dtype == torch.bool or positions.is_complex():
            raise TypeError(f"{name} must hold integers or real numbers; got dtype {positions.dtype}")
        if positions.requires_grad:
            positions = positions.detach()
        # float64 on devices that have it (MPS has none: there the angles are formed on the CPU)
        dev = positions.device if device is None else torch.device(device)
        if dev.type == "mps":
            return positions.to(device="cpu", dtype=torch.float64), dev
        return positions.to(device=dev, dtype=torch.float64), dev
    import numpy as np

    from .numeric._checks import as_positions

    arr = as_positions(positions, name=name)  # checks: finite, real, |t| < 2**53
    dev = torch.device("cpu") if device is None else torch.device(device)
    t = torch.from_numpy(np.ascontiguousarray(arr, dtype=np.float64))
    return (t if dev.type == "mps" else t.to(dev)), dev


def _round_once(v, dtype):
    """float64 ``v`` rounded once to ``dtype``: float32 directly (round to nearest even);
    float16 / bfloat16 through float32 rounded to odd, which makes the second rounding the
    correctly rounded one (converting float64 -> float16 in torch rounds twice)."""
    torch = _torch()
    if dtype == torch.float64:
        return v
    r = v.to(torch.float32)
    if dtype == torch.float32:
        return r
    back = r.to(torch.float64)
    inexact = back != v
    bits = r.view(torch.int32)
    bits = bits - (inexact & (back.abs() > v.abs())).to(torch.int32)  # toward zero: truncated
    bits = bits | inexact.to(torch.int32)  # sticky last bit: rounded to odd
    return bits.view(torch.float32).to(dtype)


def _frequencies(plan: F.TablePlan, device):
    torch = _torch()
    return torch.tensor(plan.w, dtype=torch.float64, device=device)


def _half_tables(t64, plan: F.TablePlan, device):
    """float64 ``(c, s)`` of shape ``P + (h,)`` for float64 positions ``t64`` (``(3,) + P``
    for M-RoPE): the lowered ``(cos(m*theta), sin(m*theta))``, times the attention factor."""
    w = _frequencies(plan, t64.device)
    if plan.axes is None:
        m = t64[..., None]
    else:
        idx = _torch().tensor(plan.axes, device=t64.device)
        m = t64.index_select(0, idx).movedim(0, -1)  # P + (h,): pair j's position axis
    c, s = _formula("cos_sin")(m, w)
    if plan.attention != 1.0:
        c, s = c * plan.attention, s * plan.attention
    return c, s


def _widen(half, layout: str):
    """Full-width table from a half-width one: ``[c, c]`` (split) or each entry twice."""
    torch = _torch()
    if layout == "split":
        return torch.cat((half, half), dim=-1)
    return half.repeat_interleave(2, dim=-1)


def _length_of(config, inv_freq, layer_type, seq_len, t64, name: str):
    """``seq_len`` for dynamic / longrope configs: ``max(positions) + 1`` (HF's
    ``dynamic_rope_update``), read from the tensor (a host sync; not under compile)."""
    if not F.needs_length(config, inv_freq, layer_type, seq_len):
        return seq_len
    if _compiling():
        raise ValueError(f"this config's rope type depends on the sequence length, which {name} only "
                         "says at run time; under torch.compile pass seq_len= (e.g. max(position_ids) + 1)")
    import math

    return max(1, math.floor(float(t64.max())) + 1) if t64.numel() else None


# ----------------------------------------------------------------------------------------
# public functions


def rope_cos_sin(
    positions: Any,
    d: int | None = None,
    *,
    base: float = 10000.0,
    layout: str = "split",
    dtype: Any = None,
    device: Any = None,
    config: Mapping[str, Any] | None = None,
    inv_freq: Any = None,
    layer_type: str | None = None,
    seq_len: int | None = None,
    mrope_section: Sequence[int] | None = None,
    mrope_interleaved: bool = False,
    attention_factor: float | None = None,
) -> tuple[torch.Tensor, torch.Tensor]:
    r"""``(cos, sin)`` tables, as :func:`pe_symbolic.numeric.rope_cos_sin`, as tensors.

    Parameters
    ----------
    positions : torch.Tensor or array_like
        Token positions (any integer or float dtype; formed in float64; a tensor's values are
        used as they are, exact below 2**53; array_like positions are checked like the
        NumPy API's: finite, ``|t| < 2**53``). Hugging Face
        ``position_ids`` of shape ``(batch, seq)`` give tables of shape
        ``(batch, seq, d)``, which :func:`apply_rope` takes as ``cos_sin=``. M-RoPE: a
        leading axis of 3.
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
        Shape ``positions.shape + (d,)`` (M-RoPE: ``positions.shape[1:] + (d,)``).

    Examples
    --------
    >>> import torch
    >>> c, s = rope_cos_sin(torch.arange(2), 4, base=100.0, dtype=torch.float64)
    >>> c
    tensor([[1.0000, 1.0000, 1.0000, 1.0000],
            [0.5403, 0.9950, 0.5403, 0.9950]], dtype=torch.float64)
    >>> rope_cos_sin(torch.tensor([1]), 4, base=100.0, layout="interleaved")[1]
    tensor([[0.8415, 0.8415, 0.0998, 0.0998]])
    """
    layout = F.slot_order(layout)
    dt = _check_dtype(dtype)
    t64, dev = _as_positions(positions, device, "positions")
    seq_len = _length_of(config, inv_freq, layer_type, seq_len, t64, "positions")
    plan = _plan(d=d, base=base, rotary_dim=None, config=config, inv_freq=_host(inv_freq),
                            layer_type=layer_type, seq_len=seq_len, mrope_section=mrope_section,
                            mrope_interleaved=mrope_interleaved, attention_factor=attention_factor)
    if plan.n_axes == 3 and (t64.ndim == 0 or t64.shape[0] != 3):
        raise ValueError(f"M-RoPE positions need a leading axis of 3 (t, h, w); got shape {tuple(t64.shape)}")
    c, s = _half_tables(t64, plan, dev)
    c, s = _round_once(c, dt), _round_once(s, dt)
    return _widen(c, layout).to(dev), _widen(s, layout).to(dev)


def _host(inv_freq: Any) -> Any:
    """``inv_freq`` as host data for the plan (a tensor: its float64 values)."""
    torch = _torch()
    if isinstance(inv_freq, torch.Tensor):
        return inv_freq.detach().to("cpu", torch.float64).numpy()
    return inv_freq


def apply_rope(
    x: Any,
    position_ids: Any = None,
    *,
    positions: Any = None,
    cos_sin: tuple[torch.Tensor, torch.Tensor] | None = None,
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
) -> Any:
    r"""Rotate each pair of ``x[..., :rotary_dim]`` by ``m * theta_i``: RoPE on tensors.

    Parameters
    ----------
    x : torch.Tensor or tuple of torch.Tensor
        float64, float32, float16 or bfloat16, shape ``(..., seq, d)``; Hugging Face's
        ``(batch, heads, seq, d)`` with ``position_ids``. A tuple ``(q, k)`` is rotated with
        one set of tables and returned as a tuple.
    position_ids : torch.Tensor, optional
        Hugging Face's ``(batch, seq)`` (M-RoPE: ``(3, batch, seq)``); the heads axis is
        inserted. Any integer or float dtype.
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
    """
    torch = _torch()
    many = isinstance(x, (tuple, list))
    xs = list(x) if many else [x]
    if not xs:
        raise ValueError("x is an empty tuple; pass one or more tensors")
    for q, v in enumerate(xs):
        name = f"x[{q}]" if many else "x"
        if not isinstance(v, torch.Tensor):
            raise TypeError(f"{name} must be a torch.Tensor (for NumPy arrays use "
                            f"pe_symbolic.numeric.apply_rope); got {type(v).__name__}")
        _check_dtype(v.dtype, name=f"{name}.dtype")
        if v.ndim < 1:
            raise ValueError(f"{name} must have at least one axis (the head dim); got a 0-d tensor")
    layout = F.slot_order(layout)
    d = xs[0].shape[-1]
    for q, v in enumerate(xs[1:], start=1):
        if v.shape[-1] != d:
            raise ValueError(f"x[{q}] has last axis {v.shape[-1]}; x[0] has {d}: every tensor needs the same head dim")
    if cos_sin is not None:
        return _apply_tables(xs, cos_sin, layout, rotary_dim, many, positions, position_ids, config,
                             inv_freq, seq_len, mrope_section, attention_factor, base)
    given = config is not None or inv_freq is not None
    if not given and rotary_dim is None and d % 2:
        raise ValueError(f"the last axis of x has odd length d={d}; RoPE needs pairs (pass an even rotary_dim)")
    t64, dev = _resolve_positions(positions, position_ids, xs, many)
    seq_len = _length_of(config, inv_freq, layer_type, seq_len, t64,
                         "position_ids" if position_ids is not None else "positions")
    plan = _plan(d=None if given else d, base=base, rotary_dim=rotary_dim, config=config,
                            inv_freq=_host(inv_freq), layer_type=layer_type, seq_len=seq_len,
                            mrope_section=mrope_section, mrope_interleaved=mrope_interleaved,
                            attention_factor=attention_factor)
    if plan.rotary_dim > d:
        raise ValueError(f"the frequencies rotate {plan.rotary_dim} channels, which must be <= d={d} (the last axis of x)")
    if plan.n_axes == 3:
        if t64.ndim == 0 or t64.shape[0] != 3:
            raise ValueError(f"M-RoPE positions need a leading axis of 3 (t, h, w); got shape {tuple(t64.shape)}")
        core = tuple(t64.shape[1:])
    else:
        core = tuple(t64.shape)
    if position_ids is not None:  # (batch, seq) -> (batch, 1, seq): the heads axis
        if len(core) != 2:
            raise ValueError(f"position_ids must have shape (batch, seq) (M-RoPE: (3, batch, seq)); "
                             f"got shape {tuple(t64.shape)}")
        t64 = t64.unsqueeze(-2)
        core = core[:1] + (1,) + core[1:]
    for q, v in enumerate(xs):
        if position_ids is not None and v.ndim != 4:
            raise ValueError(f"position_ids need x of shape (batch, heads, seq, d); "
                             f"x{f'[{q}]' if many else ''} has shape {tuple(v.shape)}")
        why = F.rope_shape_error(core, tuple(v.shape[:-1]), f"x[{q}].shape[:-1]" if many else "x.shape[:-1]")
        if why:
            raise ValueError(why)
    c64, s64 = _half_tables(t64, plan, dev)
    tables = {}
    outs = []
    for v in xs:
        cdt = torch.float64 if v.dtype == torch.float64 else torch.float32
        if cdt not in tables:
            tables[cdt] = (_round_once(c64, cdt).to(v.device), _round_once(s64, cdt).to(v.device))
        outs.append(_rotate(v, *tables[cdt], layout, plan.rotary_dim))
    return tuple(outs) if many else outs[0]


def _resolve_positions(positions, position_ids, xs, many):
    if (positions is None) == (position_ids is None):
        raise ValueError("pass exactly one of position_ids (Hugging Face's (batch, seq)), positions "
                         "(broadcast against x.shape[:-1]) and cos_sin (tables from rope_cos_sin)")
    dev = xs[0].device
    if position_ids is not None:
        return _as_positions(position_ids, dev, "position_ids")
    return _as_positions(positions, dev, "positions")


def _apply_tables(xs, cos_sin, layout, rotary_dim, many, positions, position_ids, config, inv_freq,
                  seq_len, mrope_section, attention_factor, base):
    torch = _torch()
    if positions is not None or position_ids is not None:
        raise ValueError("cos_sin= already holds the tables: pass no positions or position_ids with it")
    if (config is not None or inv_freq is not None or seq_len is not None or mrope_section is not None
            or attention_factor is not None or base != 10000.0):
        raise ValueError("cos_sin= already holds the tables: the frequency keywords (base, config, inv_freq, "
                         "seq_len, mrope_section, attention_factor) belong to rope_cos_sin")
    if not (isinstance(cos_sin, (tuple, list)) and len(cos_sin) == 2
            and all(isinstance(v, torch.Tensor) for v in cos_sin)):
        raise TypeError("cos_sin must be a pair of tensors (cos, sin), as rope_cos_sin returns")
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
        cv, sv = (c.unsqueeze(-3), s.unsqueeze(-3)) if c.ndim == 3 and v.ndim == 4 else (c, s)
        why = F.rope_shape_error(tuple(cv.shape[:-1]), tuple(v.shape[:-1]), f"{name}.shape[:-1]")
        if why:
            raise ValueError(why.replace("positions", "tables (without their last axis)"))
        cdt = torch.float64 if v.dtype == torch.float64 else torch.float32
        if v.dtype != c.dtype and not (v.dtype in (torch.float16, torch.bfloat16) and c.dtype == torch.float32):
            raise TypeError(f"the tables are {c.dtype} and {name} is {v.dtype}: make them with "
                            f"rope_cos_sin(..., dtype={cdt}) (16-bit x rotates with float32 tables)")
        outs.append(_rotate(v, cv, sv, layout, rd))
    return tuple(outs) if many else outs[0]


def _rotate(x, c, s, layout: str, rd: int):
    """The lowered pair formula on the slots of ``x[..., :rd]``; tables ``(..., rd/2)`` in
    the compute dtype (float32 for 16-bit ``x``, rounded once back)."""
    torch = _torch()
    pair = _formula("pair")
    low = x.dtype in (torch.float16, torch.bfloat16)
    h = rd // 2

    def back(v):  # 16-bit x: each rotated half rounded once back to x's dtype (before the
        return v.to(x.dtype) if low else v  # concatenation: compiled, one fused pass, measured)

    if layout == "split":
        x1, x2 = x[..., :h], x[..., h:rd]
        if low:
            x1, x2 = x1.to(torch.float32), x2.to(torch.float32)
        a, b = pair(x1, x2, c, s)
        parts = [back(a), back(b)]
    else:
        xr = x[..., :rd].unflatten(-1, (h, 2))
        x1, x2 = xr[..., 0], xr[..., 1]
        if low:
            x1, x2 = x1.to(torch.float32), x2.to(torch.float32)
        a, b = pair(x1, x2, c, s)
        parts = [torch.stack((back(a), back(b)), dim=-1).flatten(-2)]
    if rd < x.shape[-1]:
        parts.append(x[..., rd:])
    return parts[0] if len(parts) == 1 else torch.cat(parts, dim=-1)


def sinusoidal_table(
    positions: Any,
    d: int,
    *,
    base: float = 10000.0,
    layout: str = "interleaved",
    order: str = "sin_cos",
    schedule: str = "vaswani",
    dtype: Any = None,
    device: Any = None,
) -> torch.Tensor:
    r"""The sinusoidal encoding PE(t), as :func:`pe_symbolic.numeric.sinusoidal_table`, as a tensor.

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
    """
    from ._validate import check_order, check_schedule

    torch = _torch()
    layout = F.slot_order(layout)
    order = check_order(order)
    schedule = check_schedule(schedule)
    dt = _check_dtype(dtype)
    t64, dev = _as_positions(positions, device, "positions")
    plan = _sinusoidal_plan(d, base, schedule)
    w = _frequencies(plan, t64.device)
    s, c = _formula("sinusoidal")(t64[..., None], w)
    first, second = (s, c) if order == "sin_cos" else (c, s)
    first, second = _round_once(first, dt), _round_once(second, dt)
    if layout == "interleaved":
        out = torch.stack((first, second), dim=-1).flatten(-2)
    else:
        out = torch.cat((first, second), dim=-1)
    return out.to(dev)
