"""Llama 4-style query scales: positions scale the queries, outside RoPE's tables.

``llama4_query_scale`` (``llama_4_scaling_beta`` in a rope dict: Ministral 3, Mistral 4)
and ``llama4_nope_query_scale`` (Llama 4's NoPE layers, ``attn_temperature_tuning``).
Neither is part of :func:`~pe_symbolic.numeric.rope_frequencies`'s attention factor, which
multiplies cos and sin (queries *and* keys); :func:`~pe_symbolic.numeric.describe` names both.
"""

from __future__ import annotations

import numbers
from collections.abc import Mapping
from typing import Any

import numpy as np

from ._config_base import _int, _real
from ._spec import RopeSpec
from .config import parse_rope_config

__all__ = ["llama4_nope_query_scale", "llama4_query_scale"]


def llama4_query_scale(config: Mapping[str, Any] | RopeSpec, positions: Any, *,
                       layer_type: str | None = None) -> np.ndarray:
    r"""The per-position query scale of ``llama_4_scaling_beta`` (Ministral 3, Mistral 4).

    HF's ``get_llama_4_attn_scale`` multiplies the rotated queries by
    :math:`1 + \beta \ln(1 + \lfloor m / L \rfloor)`, with :math:`\beta` =
    ``llama_4_scaling_beta`` and :math:`L` = the rope dict's
    ``original_max_position_embeddings``. It is not part of :func:`rope_frequencies`'s
    attention factor (which multiplies cos and sin, hence queries *and* keys).

    Parameters
    ----------
    config : Mapping or RopeSpec
        A config with ``llama_4_scaling_beta`` in its rope dict.
    positions : array_like of int
        Non-negative positions :math:`m`.
    layer_type : str, optional
        As in :func:`rope_frequencies`.

    Returns
    -------
    numpy.ndarray
        float64 scales, the shape of ``positions``.

    Raises
    ------
    ValueError
        The config has no ``llama_4_scaling_beta``, or a position is negative.

    Examples
    --------
    >>> cfg = {"head_dim": 128, "max_position_embeddings": 262144, "rope_parameters": {
    ...     "rope_type": "yarn", "rope_theta": 1e6, "factor": 16.0, "original_max_position_embeddings": 16384,
    ...     "llama_4_scaling_beta": 0.1}}
    >>> llama4_query_scale(cfg, [0, 16383, 16384, 32768]).round(6).tolist()
    [1.0, 1.0, 1.069315, 1.109861]
    """
    spec = config if isinstance(config, RopeSpec) else parse_rope_config(config, layer_type=layer_type)
    if spec.llama_4_scaling_beta is None:
        raise ValueError("the config has no 'llama_4_scaling_beta' in its rope dict: there is no query scale")
    pos = np.asarray(positions)
    if pos.dtype.kind not in "iu" or (pos.size and pos.min() < 0):
        raise ValueError(f"positions must be non-negative integers; got dtype {pos.dtype}")
    assert spec.original_max_position_embeddings is not None
    return 1.0 + spec.llama_4_scaling_beta * np.log1p(pos // spec.original_max_position_embeddings).astype(np.float64)


def llama4_nope_query_scale(config: Mapping[str, Any], positions: Any) -> np.ndarray:
    r"""The per-position query scale of Llama 4's NoPE layers (``attn_temperature_tuning``).

    HF's ``Llama4TextAttention`` multiplies the queries of its NoPE layers (no RoPE) by
    :math:`1 + a \ln(1 + \lfloor (m + 1) / F \rfloor)`, :math:`a` = ``attn_scale``,
    :math:`F` = ``floor_scale``, when ``attn_temperature_tuning`` is true. Not part of RoPE:
    :func:`describe` names the NoPE layers it applies to.

    Parameters
    ----------
    config : Mapping
        A Llama 4 config (its ``text_config`` is used when the top level has no
        ``attn_temperature_tuning``). Without the keys, HF's ``Llama4TextConfig`` defaults
        apply to ``model_type`` ``llama4`` / ``llama4_text`` (true, 8192, 0.1).
    positions : array_like of int
        Non-negative positions :math:`m`.

    Returns
    -------
    numpy.ndarray
        float64 scales, the shape of ``positions``.

    Raises
    ------
    ValueError
        ``attn_temperature_tuning`` is false (HF tests its truthiness: Llama-4-Scout's
        config says 4), or the config is not Llama 4's, a bad
        ``floor_scale`` / ``attn_scale``, or a negative position.

    Examples
    --------
    >>> cfg = {"model_type": "llama4_text", "attn_temperature_tuning": True, "floor_scale": 8192,
    ...        "attn_scale": 0.1}
    >>> llama4_nope_query_scale(cfg, [0, 8190, 8191, 3 * 8192]).round(6).tolist()
    [1.0, 1.0, 1.069315, 1.138629]
    """
    if not isinstance(config, Mapping):
        raise TypeError(f"config must be a mapping (a model's config.json as a dict); got {type(config).__name__}")
    cfg: Mapping[str, Any] = config
    tc = cfg.get("text_config")
    if "attn_temperature_tuning" not in cfg and isinstance(tc, Mapping):
        cfg = tc
    llama4 = str(cfg.get("model_type", "")).startswith("llama4")
    on = cfg.get("attn_temperature_tuning", True if llama4 else None)
    if on is None or not llama4:
        raise ValueError(f"config['attn_temperature_tuning']={on!r}: the NoPE layers' queries are not scaled "
                         "(the key is read for Llama 4 configs only)")
    if not isinstance(on, (bool, numbers.Real)) or not on:
        # HF tests its truthiness (Llama-4-Scout's published config says 4)
        raise ValueError(f"config['attn_temperature_tuning']={on!r}: the NoPE layers' queries are not scaled")
    floor = _int("config", "floor_scale", cfg.get("floor_scale", 8192), minimum=1)
    scale = _real("config", "attn_scale", cfg.get("attn_scale", 0.1))
    pos = np.asarray(positions)
    if pos.dtype.kind not in "iu" or (pos.size and pos.min() < 0):
        raise ValueError(f"positions must be non-negative integers; got dtype {pos.dtype}")
    return 1.0 + scale * np.log1p((pos + 1) // floor).astype(np.float64)
