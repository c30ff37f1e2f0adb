"""Rotary embeddings: cos/sin tables and ``apply_rope`` (see :mod:`pe_symbolic.numeric`)."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from . import _kernels as K
from . import _rope_kernels
from ._checks import as_positions, check_finite_x, check_float_dtype, check_out, check_x, round_to
from .._validate import check_layout
from ._core import _rope_product
from ._scratch import scratch
from ._rope_plan import FrequencyPlan, frequency_plan, phasor_source, positions_error
from .config import RopeSpec, model_config, parse_rope_config  # noqa: F401  (model_config: doctests)
from .describe import warn_config_layout
from .tables import _slot_views

__all__ = ["apply_rope", "rope_cos_sin"]


# ----------------------------------------------------------------------------------------
# RoPE


def rope_cos_sin(
    positions,
    d: int | None = None,
    *,
    base: float = 10000.0,
    layout: str = "split",
    dtype=np.float64,
    accurate: bool = False,
    config: Mapping[str, Any] | None = None,
    inv_freq: Any = None,
    layer_type: str | None = None,
    seq_len: int | None = None,
    mrope_section: Sequence[int] | None = None,
    mrope_interleaved: bool = False,
    attention_factor: float | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    r"""``(cos, sin)`` tables such that ``x*cos + rotate(x)*sin`` applies RoPE.

    Parameters
    ----------
    positions : array_like of real
        Token positions ``m``. For M-RoPE (a config with ``mrope_section``, or
        ``mrope_section=``): a leading axis of 3 (t, h, w), e.g. shape ``(3, seq)`` or
        ``(3, batch, seq)``; for an axial (2-D) config (Pixtral), of 2 (row, col).
    d : int, optional
        Rotary dimension (positive, even). Not needed with ``config`` or ``inv_freq``.
    base : float, default 10000.0
        :math:`\theta_i = b^{-2i/d}` (without ``config`` / ``inv_freq``).
    layout : {"split", "interleaved"}
        ``"split"`` (GPT-NeoX / HF Llama ``rotate_half``): ``cos = concat(cos mθ, cos mθ)``;
        ``"interleaved"`` (RoFormer / Meta / GPT-J): each entry repeated twice.
        With ``config`` of a model type whose HF attention rotates interleaved pairs
        (:func:`describe` names it: GPT-J, Cohere, GLM, DeepSeek-V3, ...), ``"split"``
        warns (:class:`ConfigLayoutWarning`): pass ``"interleaved"`` for HF's result.
    dtype : {numpy.float64, numpy.float32, numpy.float16, ml_dtypes.bfloat16}
        float16 / bfloat16: the float64 tables rounded once (correctly, not through
        float32), as in :func:`sinusoidal_table`.
    accurate : bool
        As in :func:`sinusoidal_table`.
    config : Mapping, optional
        A model config: frequencies, rotary dim, attention factor and M-RoPE sections as
        :func:`rope_frequencies` reads them (angles from the 40-digit frequencies).
    inv_freq : array_like or RopeFrequencies, optional
        The frequencies themselves (taken as exact float64 values); a
        :class:`RopeFrequencies` also brings its attention factor.
    layer_type : str, optional
        Passed to :func:`rope_frequencies` with ``config``.
    seq_len : int, optional
        The current sequence length, for the config types that depend on it (``dynamic``,
        ``longrope``; see :func:`rope_frequencies`). Default: the largest position plus one
        (real positions: rounded down first; at least 1), the length HF's
        ``dynamic_rope_update`` uses (``torch.max(position_ids) + 1``: the maximum over every
        entry, the batch and, for M-RoPE ids of shape ``(3, ...)``, all three t/h/w axes).
        Pass it to override (e.g. to reproduce HF's ``dynamic`` state, which keeps the base
        of the longest length seen since the length last fell below
        ``max_position_embeddings``).
    mrope_section : three ints, optional
        M-RoPE pairs per axis (t, h, w), summing to ``d/2``; read from the config if it has
        one.
    mrope_interleaved : bool, default False
        Qwen3-VL's interleaved axis assignment instead of Qwen2-VL's contiguous sections.
    attention_factor : float, optional
        Multiplies both tables (HF's ``attention_scaling``). Default: the config's (or the
        :class:`RopeFrequencies`'), else 1.

    Returns
    -------
    cos, sin : numpy.ndarray
        Each of shape ``positions.shape + (d,)`` (for M-RoPE ``positions.shape[1:] + (d,)``).

    Examples
    --------
    >>> c, s = rope_cos_sin([0, 1], 4, base=100.0)
    >>> c.round(4)
    array([[1.    , 1.    , 1.    , 1.    ],
           [0.5403, 0.995 , 0.5403, 0.995 ]])
    >>> rope_cos_sin([1], 4, base=100.0, layout="interleaved")[1].round(4)
    array([[0.8415, 0.8415, 0.0998, 0.0998]])
    >>> c, s = rope_cos_sin([[0, 1], [0, 5], [0, 7]], config=model_config("qwen2-vl-7b"))
    >>> c.shape
    (2, 128)
    """
    warn_config_layout(config, check_layout(layout))
    blocks = _blocks_spec(config, inv_freq, layer_type)
    if blocks is not None:
        # ChatGLM-6B: block k of the head turned by position axis k, split halves in each block
        t = _block_positions(as_positions(positions), blocks, layout, mrope_section, d)
        sub = dataclasses.replace(blocks, position_blocks=1)
        parts = [_rope_cos_sin(t[k], None, base=base, layout=layout, dtype=dtype, accurate=accurate, config=sub,
                               inv_freq=None, layer_type=None, seq_len=seq_len, mrope_section=None,
                               mrope_interleaved=False, attention_factor=attention_factor)
                 for k in range(blocks.position_blocks)]
        return np.concatenate([c for c, _ in parts], axis=-1), np.concatenate([s for _, s in parts], axis=-1)
    return _rope_cos_sin(positions, d, base=base, layout=layout, dtype=dtype, accurate=accurate, config=config,
                         inv_freq=inv_freq, layer_type=layer_type, seq_len=seq_len, mrope_section=mrope_section,
                         mrope_interleaved=mrope_interleaved, attention_factor=attention_factor)


def _rope_cos_sin(positions, d, *, base, layout, dtype, accurate, config, inv_freq, layer_type, seq_len,
                  mrope_section, mrope_interleaved, attention_factor) -> tuple[np.ndarray, np.ndarray]:
    """:func:`rope_cos_sin` without the layout warning (the backends' host tables, always split)."""
    layout = check_layout(layout)
    dt = check_float_dtype(dtype)
    t = as_positions(positions)
    config, seq_len = _config_and_length(config, inv_freq, layer_type, seq_len, lambda: t)
    plan = frequency_plan(d=d, base=base, rotary_dim=None, config=config, inv_freq=inv_freq,
                          layer_type=layer_type, seq_len=seq_len, mrope_section=mrope_section,
                          mrope_interleaved=mrope_interleaved, attention_factor=attention_factor)
    t = _plan_positions(t, plan)
    pshape = t.shape[1:] if plan.n_axes > 1 else t.shape
    src = phasor_source(plan, t, accurate)
    rd = plan.rotary_dim
    n, h = math.prod(pshape), rd // 2
    low = dt.itemsize < 4  # float16 / bfloat16: the float64 tables, rounded once
    cos = np.empty((n, rd), np.float64 if low else dt)
    sin = np.empty((n, rd), np.float64 if low else dt)
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
    if low:
        cos, sin = round_to(cos, dt), round_to(sin, dt)
    return cos.reshape(pshape + (rd,)), sin.reshape(pshape + (rd,))


#: The config types whose frequencies depend on the current length.
_LENGTH_TYPES = ("dynamic", "longrope")


def _config_and_length(config: Any, inv_freq: Any, layer_type: str | None, seq_len: Any,
                       positions_of: Callable[[], np.ndarray | None]) -> tuple[Any, Any]:
    """``(config, seq_len)`` for :func:`frequency_plan`: a config parsed once (a
    :class:`RopeSpec`), and for ``dynamic`` / ``longrope`` without ``seq_len`` the length HF's
    ``dynamic_rope_update`` uses, ``max(positions) + 1`` over every entry, real positions
    rounded down first, at least 1. ``positions_of()`` gives the positions as
    :func:`as_positions` returns them (called only for those types), or ``None`` when the
    caller reports a problem with them later."""
    if config is None or inv_freq is not None or seq_len is not None:
        return config, seq_len
    spec = config if isinstance(config, RopeSpec) else parse_rope_config(config, layer_type=layer_type)
    if spec.rope_type not in _LENGTH_TYPES:
        return spec, None
    t = positions_of()
    if t is None or t.size == 0:
        return spec, None
    return spec, max(1, math.floor(float(t.max())) + 1)


def _blocks_spec(config: Any, inv_freq: Any, layer_type: str | None) -> RopeSpec | None:
    """The config's :class:`RopeSpec` when it turns blocks of the head by separate position
    axes (ChatGLM-6B's ``position_encoding_2d``), else ``None``."""
    if config is None or inv_freq is not None:
        return None
    if isinstance(config, RopeSpec):
        spec = config
    elif isinstance(config, Mapping) and config.get("position_encoding_2d") is True:
        spec = parse_rope_config(config, layer_type=layer_type)
    else:
        return None
    return spec if spec.position_blocks != 1 else None


def _block_positions(t: np.ndarray, spec: RopeSpec, layout: str, mrope_section: Any, d: int | None,
                     name: str = "positions") -> np.ndarray:
    """ChatGLM-6B's positions: a leading axis of ``spec.position_blocks`` (token position,
    block position), checked, with the keywords that cannot apply refused."""
    k = spec.position_blocks
    if layout != "split":
        raise ValueError(f"layout={layout!r}: ChatGLM-6B (position_encoding_2d) rotates each of its {k} blocks in "
                         "split halves (rotate_half); pass layout='split'")
    if mrope_section is not None:
        raise ValueError("mrope_section= conflicts with ChatGLM-6B's 2-D positions (block k of the head turns by "
                         "position axis k)")
    if d is not None and d != k * spec.rotary_dim:
        raise ValueError(f"d={d!r} conflicts with ChatGLM-6B's {k} blocks of {spec.rotary_dim} channels")
    if name == "position_ids":
        # THUDM's layout: position_ids of shape (batch, 2, seq) = (position_ids, block_position_ids)
        if t.ndim != 3 or t.shape[1] != k:
            raise ValueError(f"ChatGLM-6B's position_ids need THUDM's shape (batch, {k}, seq) (token positions, block "
                             f"positions); got shape {tuple(t.shape)}")
        return np.moveaxis(t, 1, 0)
    if t.ndim < 2 or t.shape[0] != k:
        raise ValueError(f"ChatGLM-6B's positions need a leading axis of {k} (token position, block position) in "
                         f"front of the sequence axis, e.g. shape ({k}, seq) (THUDM's position_ids of shape (batch, "
                         f"{k}, seq) is positions.swapaxes(0, 1), or pass it as position_ids=); got shape "
                         f"{tuple(t.shape)}")
    return t


def _plan_positions(t: np.ndarray, plan: FrequencyPlan) -> np.ndarray:
    """Positions as the kernels need them: for M-RoPE ``(3,) + P`` (axial: ``(2,) + P``)
    with every axis of shape P."""
    if plan.n_axes == 1:
        return t
    why = positions_error(plan.n_axes, t.shape)
    if why:
        raise ValueError(why)
    return np.ascontiguousarray(t)


def apply_rope(
    x,
    positions=None,
    *,
    base: float = 10000.0,
    layout: str = "split",
    rotary_dim: int | None = None,
    accurate: bool = False,
    out=None,
    config: Mapping[str, Any] | None = None,
    inv_freq: Any = None,
    layer_type: str | None = None,
    seq_len: int | None = None,
    mrope_section: Sequence[int] | None = None,
    mrope_interleaved: bool = False,
    attention_factor: float | None = None,
    position_ids=None,
    check_finite: bool = False,
):
    r"""Rotate each pair of ``x[..., :rotary_dim]`` by the angle ``m * theta_i``.

    Parameters
    ----------
    x : numpy.ndarray (float64, float32, float16 or bfloat16), or a tuple of them
        Shape ``(..., seq, d)`` (any leading axes). A tuple ``(q, k)`` (or any number of
        arrays) is rotated with one frequency plan and one phasor source (positions
        checked and the coarse and fine phasor tables computed once; each array then
        multiplies out the phasors of its own blocks) and returned as a tuple.
    positions : array_like of real
        Broadcasts against ``x.shape[:-1]`` (typically shape ``(seq,)``). For M-RoPE, a
        leading axis of 3 (t, h, w) in front of that shape; for an axial (2-D) config
        (Pixtral's vision tower), a leading axis of 2 (row, col): the first half of the
        pairs turns by the row, the second by the column, as HF's
        ``PixtralVisionRotaryEmbedding``.
    base : float, default 10000.0
    layout : {"split", "interleaved"}
        Pair slots ``(i, i + r/2)`` (GPT-NeoX / HF Llama) or ``(2i, 2i+1)`` (RoFormer / GPT-J).
        ``"split"`` with ``config`` of a model type HF rotates in interleaved pairs warns, as
        in :func:`rope_cos_sin`.
    rotary_dim : int, optional
        Even, ``<= d``; only the first ``rotary_dim`` channels rotate (partial rotary), the
        rest pass through. Default: ``d`` (or what ``config`` / ``inv_freq`` say).
        Frequencies use ``rotary_dim``: :math:`\theta_i = b^{-2i/r}`.
    accurate : bool
        Use the accurate cos/sin tables (the rotation itself is then rounded once more).
    out : numpy.ndarray or tuple of them, optional
        Same shape and dtype as ``x``; may be ``x`` itself (in place).
    config, inv_freq, layer_type, seq_len, mrope_section, mrope_interleaved, attention_factor
        As in :func:`rope_cos_sin`: the frequencies of a model config (and its attention
        factor, which multiplies the rotated channels as HF's cos/sin scaling does), or a
        frequency vector; M-RoPE sections. ``seq_len`` defaults, for ``dynamic`` and
        ``longrope`` configs, to the largest entry of ``positions`` (or ``position_ids``) plus
        one, as HF's ``dynamic_rope_update`` takes ``max(position_ids) + 1`` (over the batch
        and, for M-RoPE, all three axes); pass it to override.
    position_ids : array_like of int or real, optional
        Hugging Face's layout instead of ``positions``: shape ``(batch, seq)`` for ``x`` of
        shape ``(batch, heads, seq, d)`` (M-RoPE: ``(3, batch, seq)``); the heads axis is
        inserted for you.
    check_finite : bool, default False
        Raise a ``ValueError`` naming the first NaN or infinite entry of ``x``. By default
        non-finite entries propagate as IEEE arithmetic has them (as every framework's
        RoPE does, and at no cost): a NaN or inf reaches both outputs of its pair, only
        those (an inf may turn into NaN where it meets a zero sine, e.g. at position 0).

    Returns
    -------
    numpy.ndarray or tuple
        Same shape and dtype as ``x`` (a tuple for a tuple).

    Warns
    -----
    ConfigLayoutWarning
        ``layout="split"`` (the default) with ``config`` (a mapping) of a model type whose HF
        attention rotates interleaved pairs (``describe(config).layout`` says "interleaved"):
        the message names the model type, HF's function and ``layout="interleaved"``. A
        :class:`RopeSpec` carries no model type and does not warn.

    Notes
    -----
    .. math:: (x_a, x_b) \mapsto (x_a\cos m\theta_i - x_b\sin m\theta_i,\;
              x_a\sin m\theta_i + x_b\cos m\theta_i)

    so :math:`\langle R(m)q, R(n)k\rangle` depends on ``n - m`` only. At ``m = 0`` it is the
    identity.

    Precision: float64 ``x``: cos/sin within 7u (u = 2**-53) and the rotation rounded once
    more. float32 ``x``: the float64 tables rounded once to float32, the rotation in float32
    (a few ulp32 of the pair's norm). float16 / bfloat16 ``x``: converted exactly to float32,
    rotated as float32, then rounded once to the input dtype: within half an ulp of that
    dtype plus the float32 error (about 2**-22 of the pair's norm), i.e. at most one ulp
    (bfloat16: 2**-8 relative) away from the correctly rounded rotation, where the naive
    recipe (tables cast to bfloat16, products and sum each rounded to bfloat16) is off by
    several.

    Examples
    --------
    >>> x = np.array([[1.0, 0.0, 1.0, 0.0]])
    >>> apply_rope(x, [1], base=100.0, layout="interleaved").round(4)
    array([[0.5403, 0.8415, 0.995 , 0.0998]])
    >>> apply_rope(np.ones((2, 4), np.float32), [0, 0]).dtype
    dtype('float32')
    >>> apply_rope(np.ones((1, 4), "bfloat16"), [1], base=100.0)
    array([[-0.300781, 0.894531, 1.38281, 1.09375]], dtype=bfloat16)
    >>> q, k = np.ones((2, 32, 5, 128)), np.ones((2, 8, 5, 128))
    >>> ids = np.arange(5)[None].repeat(2, axis=0)  # HF position_ids, (batch, seq)
    >>> qr, kr = apply_rope((q, k), position_ids=ids, config=model_config("llama-3.1-8b"))
    >>> qr.shape, kr.shape
    ((2, 32, 5, 128), (2, 8, 5, 128))
    """
    many = isinstance(x, (tuple, list))
    xs = [check_x(v, name=f"x[{q}]" if many else "x") for q, v in enumerate(x if many else (x,))]
    if not xs:
        raise ValueError("x is an empty tuple; pass one or more arrays")
    outs = _outs(out, xs, many)
    if not isinstance(check_finite, bool):
        raise TypeError(f"check_finite={check_finite!r} must be True or False")
    if check_finite:
        for q, v in enumerate(xs):
            check_finite_x(v, name=f"x[{q}]" if many else "x")
    layout = check_layout(layout)
    warn_config_layout(config, layout)
    d = xs[0].shape[-1]
    for q, v in enumerate(xs[1:], start=1):
        if v.shape[-1] != d:
            raise ValueError(f"x[{q}] has last axis {v.shape[-1]}; x[0] has {d}: every array needs the same head dim")
    given = config is not None or inv_freq is not None
    if not given and rotary_dim is None and d % 2:
        raise ValueError(
            f"the last axis of x has odd length d={d}; RoPE needs pairs (pass an even rotary_dim)"
        )
    blocks = _blocks_spec(config, inv_freq, layer_type)
    if blocks is not None:
        return _apply_blocks(xs, outs, many, blocks, positions, position_ids, layout=layout, rotary_dim=rotary_dim,
                             accurate=accurate, mrope_section=mrope_section, attention_factor=attention_factor,
                             seq_len=seq_len)
    config, seq_len = _config_and_length(config, inv_freq, layer_type, seq_len,
                                         lambda: _length_positions(positions, position_ids))
    plan = frequency_plan(d=None if given else d, base=base, rotary_dim=rotary_dim, config=config,
                          inv_freq=inv_freq, layer_type=layer_type, seq_len=seq_len,
                          mrope_section=mrope_section, mrope_interleaved=mrope_interleaved,
                          attention_factor=attention_factor)
    rd = plan.rotary_dim
    if rd > d:
        what = (f"rotary_dim={rd!r} must be a positive even integer" if not given else
                f"{'config' if config is not None else 'inv_freq'}= rotates {rd} channels, which must be")
        raise ValueError(f"{what} <= d={d} (the last axis of x)")
    t = _resolve_positions(positions, position_ids, xs, plan)
    src = phasor_source(plan, t, accurate)
    tshape = (t.shape[1:] if plan.n_axes > 1 else t.shape) or (1,)
    for xv0, ov0 in zip(xs, outs):
        low = xv0.dtype.itemsize < 4
        if low and _rope_kernels.half(*((xv0[None], ov0[None]) if xv0.ndim == 1 else (xv0, ov0)),
                                      rd, tshape, _blocks_of(src, tshape), layout, _rope_product()):
            continue  # the compiled 16-bit kernels: bit for bit the route below, in one pass
        if low:  # float16 / bfloat16: exactly to float32, rotate there, round once back
            final = ov0
            xv0 = xv0.astype(np.float32)
            ov0 = np.empty_like(xv0)
        if rd < d and ov0 is not xv0:
            ov0[..., rd:] = xv0[..., rd:]
        xv, ov = (xv0[None], ov0[None]) if xv0.ndim == 1 else (xv0, ov0)  # 1-D: scalar positions
        if layout == "interleaved":
            _rope_interleaved(xv, src, tshape, ov, rd)
        else:
            _rope_split(xv, src, tshape, ov, rd)
        if low:
            final[...] = ov0.astype(final.dtype)  # float32 -> float16/bfloat16: one rounding
    return tuple(outs) if many else outs[0]


def _apply_blocks(xs: list[np.ndarray], outs: list[np.ndarray], many: bool, spec: RopeSpec, positions: Any,
                  position_ids: Any, *, layout: str, rotary_dim: int | None, accurate: bool, mrope_section: Any,
                  attention_factor: float | None, seq_len: int | None) -> Any:
    """ChatGLM-6B (``position_encoding_2d``): block ``k`` of each head (``spec.rotary_dim``
    channels) rotated by position axis ``k`` in split halves, as THUDM's ``modeling_chatglm.py``
    turns ``q1`` with ``position_ids`` and ``q2`` with ``block_position_ids``."""
    k, rd = spec.position_blocks, spec.rotary_dim
    if (positions is None) == (position_ids is None):
        raise ValueError("pass exactly one of positions (leading axis 2: position, block position) and "
                         "position_ids (HF's layout, leading axis 2 in front of (batch, seq))")
    name = "positions" if positions is not None else "position_ids"
    t = _block_positions(as_positions(positions if positions is not None else position_ids, name=name), spec,
                         layout, mrope_section, None, name)
    if rotary_dim is not None and rotary_dim != k * rd:
        raise ValueError(f"rotary_dim={rotary_dim!r} conflicts with ChatGLM-6B's {k} blocks of {rd} channels")
    d = xs[0].shape[-1]
    if k * rd > d:
        raise ValueError(f"config= rotates {k} blocks of {rd} channels, which must be <= d={d} (the last axis of x)")
    sub = dataclasses.replace(spec, position_blocks=1)
    for xv, ov in zip(xs, outs):
        rotated = []
        for b in range(k):
            part = np.ascontiguousarray(xv[..., b * rd:(b + 1) * rd])
            kw: dict[str, Any] = {"positions": t[b]} if positions is not None else {"position_ids": t[b]}
            rotated.append(apply_rope(part, config=sub, accurate=accurate, attention_factor=attention_factor,
                                      seq_len=seq_len, **kw))
        if k * rd < d and ov is not xv:
            ov[..., k * rd:] = xv[..., k * rd:]
        for b, r in enumerate(rotated):
            ov[..., b * rd:(b + 1) * rd] = r
    return tuple(outs) if many else outs[0]


def _length_positions(positions, position_ids) -> np.ndarray | None:
    """The positions the default ``seq_len`` is read from; ``None`` when not exactly one of
    them is given, which :func:`_resolve_positions` reports."""
    if (positions is None) == (position_ids is None):
        return None
    if positions is not None:
        return as_positions(positions)
    return as_positions(position_ids, name="position_ids")


def _outs(out, xs: list[np.ndarray], many: bool) -> list[np.ndarray]:
    if out is None:
        return [check_out(None, v.shape, v.dtype) for v in xs]
    if many:
        if not isinstance(out, (tuple, list)) or len(out) != len(xs):
            raise ValueError(f"out must be a tuple of {len(xs)} arrays (one per array of x) or None")
        return [check_out(o, v.shape, v.dtype, name=f"out[{q}]") for q, (o, v) in enumerate(zip(out, xs))]
    return [check_out(out, xs[0].shape, xs[0].dtype)]


def _resolve_positions(positions, position_ids, xs: list[np.ndarray], plan: FrequencyPlan) -> np.ndarray:
    """Check the positions against every array of x; return them as the kernels need them."""
    if (positions is None) == (position_ids is None):
        raise ValueError("pass exactly one of positions (broadcast against x.shape[:-1]) and "
                         "position_ids (Hugging Face's (batch, seq) layout)")
    if positions is not None:
        t = _plan_positions(as_positions(positions), plan)
        axes_shape = t.shape[1:] if plan.n_axes > 1 else t.shape
    else:
        ids = _plan_positions(as_positions(position_ids, name="position_ids"), plan)
        core = ids.shape[1:] if plan.n_axes > 1 else ids.shape
        for q, v in enumerate(xs):
            if v.ndim != 4 or len(core) != 2 or np.broadcast_shapes(core, (v.shape[0], v.shape[2])) != (v.shape[0], v.shape[2]):
                raise ValueError(
                    f"position_ids of shape {ids.shape} need x of shape (batch, heads, seq, d) with "
                    f"position_ids.shape[-2:] broadcasting to (batch, seq); x{'' if len(xs) == 1 else f'[{q}]'} "
                    f"has shape {v.shape}"
                )
        t = ids[..., :, None, :]  # insert the heads axis
        axes_shape = t.shape[1:] if plan.n_axes > 1 else t.shape
    for q, v in enumerate(xs):
        lead = v.shape[:-1]
        name = "x.shape[:-1]" if len(xs) == 1 else f"x[{q}].shape[:-1]"
        try:
            bshape = np.broadcast_shapes(axes_shape, lead)
        except ValueError:
            hint = ("; for Hugging Face position_ids of shape (batch, seq) pass position_ids="
                    if positions is not None and len(axes_shape) == 2 and v.ndim == 4 else "")
            raise ValueError(
                f"positions of shape {axes_shape} do not broadcast against {name} = {lead}{hint}"
            ) from None
        if bshape != lead:
            raise ValueError(
                f"positions of shape {axes_shape} broadcast against {name} = {lead} to {bshape}; "
                "positions must not enlarge x"
            )
    # leading singleton axes broadcast anyway: drop them (the kernels read tshape[:-1] as
    # the axes along which positions vary besides the sequence)
    core = list(axes_shape)
    while len(core) > 1 and core[0] == 1:
        core.pop(0)
    return t.reshape(((plan.n_axes,) if plan.n_axes > 1 else ()) + tuple(core))


# RoPE is blocked along the sequence axis: the phasors of one block of positions (a small
# table, reused by every leading index of x) are computed in complex128, rounded once to x's
# precision, and applied while they sit in cache; the kernels themselves (one complex
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


def _rope_interleaved(x: np.ndarray, src: K.PhasorSource, tshape: tuple[int, ...],
                      out: np.ndarray, rd: int) -> None:
    """Interleaved layout: one complex multiply per block on complex views of x and out."""
    _rope_kernels.interleaved(x, out, rd, tshape, _blocks_of(src, tshape), _rope_product())


def _rope_split(x: np.ndarray, src: K.PhasorSource, tshape: tuple[int, ...],
                out: np.ndarray, rd: int) -> None:
    """Split layout: ``out = x*[c, c] + swap_halves(x)*[-s, s]`` in cache-sized groups."""
    _rope_kernels.split(x, out, rd, tshape, _blocks_of(src, tshape))


def _blocks_of(src: K.PhasorSource, tshape: tuple[int, ...]):
    """The kernels' phasor-block factory: ``(rows, complex dtype) -> _PhasorBlocks``."""
    return lambda rows, cdt: _PhasorBlocks(src, tshape, rows, cdt)
