"""ChatGLM-6B's 2-D RoPE (``position_encoding_2d``) around the NumPy front end's
:func:`~pe_symbolic.numeric.apply_rope` / :func:`~pe_symbolic.numeric.rope_cos_sin`.

Block ``k`` of each head (``spec.rotary_dim`` channels) turns by position axis ``k`` (token
position, block position), each block in split halves: THUDM ``chatglm-6b``
``modeling_chatglm.py`` (``SelfAttention``: ``RotaryEmbedding(hidden_size // (num_attention_heads
* 2), base=10000)``; ``q1, q2 = q.chunk(2)``, ``q1`` turned with ``position_ids``, ``q2`` with
``block_position_ids``, ``rotate_half`` in each). The front end asks :func:`intercept` first
for calls with ``config=``: one dictionary look-up for every other config.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from ._spec import RopeSpec
from .config import parse_rope_config

__all__ = ["intercept"]


def _blocks_spec(kwargs: Mapping[str, Any]) -> RopeSpec | None:
    config = kwargs["config"]
    if type(config) is dict:  # the common case first: one look-up
        if config.get("position_encoding_2d") is not True:
            return None
    elif isinstance(config, RopeSpec):
        if config.position_blocks == 1:
            return None
    elif not (isinstance(config, Mapping) and config.get("position_encoding_2d") is True):
        return None
    if kwargs.get("inv_freq") is not None:
        return None  # the front end refuses config= with inv_freq=
    spec = config if isinstance(config, RopeSpec) else parse_rope_config(config, layer_type=kwargs.get("layer_type"))
    return spec if spec.position_blocks != 1 else None


def _check(spec: RopeSpec, kwargs: Mapping[str, Any]) -> None:
    k = spec.position_blocks
    layout = kwargs.get("layout", "split")
    if layout != "split":
        raise ValueError(f"layout={layout!r}: ChatGLM-6B (position_encoding_2d) rotates each of its {k} blocks in "
                         "split halves (rotate_half); pass layout='split'")
    for name in ("mrope_section", "cos_sin", "d"):
        if kwargs.get(name) is not None:
            raise ValueError(f"{name}= conflicts with ChatGLM-6B's 2-D positions (config= gives {k} blocks of "
                             f"{spec.rotary_dim} channels, block k turned by position axis k)")
    rd = kwargs.get("rotary_dim")
    if rd is not None and rd != k * spec.rotary_dim:
        raise ValueError(f"rotary_dim={rd!r} conflicts with ChatGLM-6B's {k} blocks of {spec.rotary_dim} channels")


def _axes(t: Any, spec: RopeSpec, name: str) -> np.ndarray:
    k = spec.position_blocks
    arr = np.asarray(t)
    if name == "position_ids":
        # THUDM's layout: position_ids of shape (batch, 2, seq) = (position_ids, block_position_ids)
        if arr.ndim != 3 or arr.shape[1] != k:
            raise ValueError(f"ChatGLM-6B's position_ids need THUDM's shape (batch, {k}, seq) (token positions, block "
                             f"positions); got shape {tuple(arr.shape)}")
        return np.moveaxis(arr, 1, 0)
    if arr.ndim < 2 or arr.shape[0] != k:
        raise ValueError(f"ChatGLM-6B's positions need a leading axis of {k} (token position, block position) in "
                         f"front of the sequence axis, e.g. shape ({k}, seq) (THUDM's position_ids of shape (batch, "
                         f"{k}, seq) is positions.swapaxes(0, 1), or pass it as position_ids=); got shape "
                         f"{tuple(arr.shape)}")
    return arr


def _cos_sin_blocks(core: Callable[..., Any], spec: RopeSpec, args: tuple, kwargs: dict[str, Any]) -> Any:
    _check(spec, kwargs)
    if len(args) > 1:
        raise TypeError("rope_cos_sin() with ChatGLM-6B's config= takes positions only (d comes from the config)")
    positions = args[0] if args else kwargs.pop("positions", None)
    kwargs = {k: v for k, v in kwargs.items() if k not in ("positions", "config", "rotary_dim")}
    t = _axes(positions, spec, "positions")
    sub = dataclasses.replace(spec, position_blocks=1)
    parts = [core(t[b], config=sub, **kwargs) for b in range(spec.position_blocks)]
    return np.concatenate([c for c, _ in parts], axis=-1), np.concatenate([s for _, s in parts], axis=-1)


def _apply_blocks(core: Callable[..., Any], spec: RopeSpec, args: tuple, kwargs: dict[str, Any]) -> Any:
    _check(spec, kwargs)
    if len(args) > 2:
        raise TypeError(f"apply_rope() takes from 1 to 2 positional arguments but {len(args)} were given")
    x = args[0] if args else kwargs.pop("x")
    positions = args[1] if len(args) > 1 else kwargs.pop("positions", None)
    position_ids = kwargs.pop("position_ids", None)
    if (positions is None) == (position_ids is None):
        raise ValueError("pass exactly one of positions (leading axis 2: position, block position) and "
                         "position_ids (THUDM's layout (batch, 2, seq))")
    name = "positions" if positions is not None else "position_ids"
    t = _axes(positions if positions is not None else position_ids, spec, name)
    out = kwargs.pop("out", None)
    kwargs = {k: v for k, v in kwargs.items() if k not in ("config", "rotary_dim")}
    many = isinstance(x, (tuple, list))
    xs = list(x) if many else [x]
    k, rd = spec.position_blocks, spec.rotary_dim
    sub = dataclasses.replace(spec, position_blocks=1)
    results = []
    for q, xv in enumerate(xs):
        xv = np.asarray(xv)
        d = xv.shape[-1]
        if k * rd > d:
            raise ValueError(f"config= rotates {k} blocks of {rd} channels, which must be <= d={d} (the last axis "
                             "of x)")
        rotated = [core(np.ascontiguousarray(xv[..., b * rd:(b + 1) * rd]), config=sub, **{name: t[b]}, **kwargs)
                   for b in range(k)]
        ov = (out[q] if many else out) if out is not None else np.array(xv, copy=True)
        if ov is not xv and k * rd < d:
            ov[..., k * rd:] = xv[..., k * rd:]
        for b, r in enumerate(rotated):
            ov[..., b * rd:(b + 1) * rd] = r
        results.append(ov)
    return tuple(results) if many else results[0]


def intercept(name: str) -> Callable[[Callable[..., Any], tuple, dict], Any]:
    """The ``intercept=`` of :func:`pe_symbolic.numeric._frontend.public` for the NumPy core's
    ``name`` (``"apply_rope"`` or ``"rope_cos_sin"``): ChatGLM-6B's ``config=`` answered here
    (each block by the public function the front end passes back, with the block's
    :class:`RopeSpec`), every other call left to the front end (``NotImplemented``)."""
    blocks = _apply_blocks if name == "apply_rope" else _cos_sin_blocks

    def hook(public: Callable[..., Any], args: tuple, kwargs: dict[str, Any]) -> Any:
        spec = _blocks_spec(kwargs)
        if spec is None:
            return NotImplemented
        return blocks(public, spec, args, dict(kwargs))

    return hook
