"""What every engine starts from: the rope dict of one layer type, numbers as exact SymPy values.

Every engine transcribed here receives the model's config after Hugging Face's config class
has read it (vLLM, SGLang, TensorRT-LLM and MLX-LM load ``config.json`` through
``transformers.AutoConfig`` or read the same keys; llama.cpp reads them in
``convert_hf_to_gguf.py``). So the *selection* of the rope dict is shared: ``text_config``
of a multimodal config, ``rope_parameters`` (transformers 5) or ``rope_scaling`` (earlier),
``type`` as an old spelling of ``rope_type``, a dict per layer type (Gemma 3, Gemma 4), and
Gemma 3's ``rope_local_base_freq``. What each engine then *reads from it* (which key, which
default) is part of its recipe (:mod:`pe_symbolic.engines.recipes`), because that is where
engines differ.

Numbers are taken as the binary64 values they parse to: an ``int`` exactly, a ``float`` as
the exact binary fraction (``1.0800000429153442`` is ``4863859/4503599627370496 * 2**2``...),
so a comparison proves a statement about the very numbers in the file.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import sympy as sp

__all__ = ["LayerRope", "exact", "layer_ropes"]

_OLD_TYPES = {"su": "longrope", "mrope": "default"}


def exact(value: Any, *, name: str = "value") -> sp.Expr:
    """An ``int`` or ``float`` from a config as the exact SymPy number it is (bools refused).

    >>> exact(8.0), exact(0.5), exact(3)
    (8, 1/2, 3)
    >>> exact("8")
    Traceback (most recent call last):
    TypeError: value='8' must be a number (int or float); got str
    """
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"{name}={value!r} must be a number (int or float); got {type(value).__name__}")
    if isinstance(value, int):
        return sp.Integer(value)
    if value != value or value in (float("inf"), float("-inf")):
        raise ValueError(f"{name}={value!r} must be finite")
    return sp.Rational(value)


@dataclass(frozen=True)
class LayerRope:
    """The rope dict one layer type uses, with the top-level config it sits in.

    Attributes
    ----------
    layer_type : str or None
        ``None`` for a model with one RoPE.
    config : dict
        The (text) config the model's config class reads.
    rope : dict
        The layer type's rope dict (``rope_type`` spelled out, ``rope_theta`` present).
    """

    layer_type: str | None
    config: Mapping[str, Any] = field(repr=False)
    rope: Mapping[str, Any]

    @property
    def rope_type(self) -> str:
        return str(self.rope.get("rope_type", "default"))


def _text_config(config: Mapping[str, Any]) -> Mapping[str, Any]:
    if isinstance(config.get("text_config"), Mapping) and not any(
            k in config for k in ("rope_theta", "rope_parameters", "rope_scaling", "head_dim", "hidden_size")):
        return config["text_config"]
    return config


def _standard(rope: Mapping[str, Any], cfg: Mapping[str, Any]) -> dict[str, Any]:
    out = dict(rope)
    kind = out.pop("type", None)
    out.setdefault("rope_type", kind if kind is not None else "default")
    out["rope_type"] = _OLD_TYPES.get(out["rope_type"], out["rope_type"])
    if "rope_theta" not in out:
        out["rope_theta"] = cfg.get("rope_theta", cfg.get("rotary_emb_base", 10000.0))
    return out


def layer_ropes(config: Mapping[str, Any]) -> list[LayerRope]:
    """One ``LayerRope`` (its own per-layer record) per layer type of ``config`` (one entry for a model with one RoPE).

    >>> [(r.layer_type, r.rope_type) for r in layer_ropes({"rope_theta": 10000.0, "hidden_size": 64,
    ...                                                   "num_attention_heads": 4})]
    [(None, 'default')]
    >>> cfg = {"rope_theta": 1e6, "rope_local_base_freq": 1e4, "head_dim": 8,
    ...        "rope_scaling": {"rope_type": "linear", "factor": 8.0}}
    >>> [(r.layer_type, r.rope_type, r.rope["rope_theta"]) for r in layer_ropes(cfg)]
    [('full_attention', 'linear', 1000000.0), ('sliding_attention', 'default', 10000.0)]
    """
    if not isinstance(config, Mapping):
        raise TypeError(f"config must be a mapping (a config.json as a dict); got {type(config).__name__}")
    cfg = _text_config(config)
    rope = cfg.get("rope_parameters") or cfg.get("rope_scaling") or {}
    if not isinstance(rope, Mapping):
        raise TypeError(f"rope_parameters / rope_scaling must be a dict; got {type(rope).__name__}")
    per_layer = bool(rope) and all(isinstance(v, Mapping) or v is None for v in rope.values()) and any(
        isinstance(v, Mapping) for v in rope.values())
    if "rope_local_base_freq" in cfg and not per_layer:
        full = _standard(rope, cfg)
        local = {"rope_type": "default", "rope_theta": cfg["rope_local_base_freq"]}
        return [LayerRope("full_attention", cfg, full), LayerRope("sliding_attention", cfg, local)]
    if per_layer:
        return [LayerRope(str(k), cfg, _standard(v, cfg)) for k, v in rope.items() if isinstance(v, Mapping)]
    return [LayerRope(None, cfg, _standard(rope, cfg))]
