"""What every engine starts from: the rope dict of one layer type, numbers as exact SymPy values.

Every engine transcribed here receives the model's config after Hugging Face's config class
has read it (vLLM, SGLang, TensorRT-LLM and MLX-LM load ``config.json`` through
``transformers.AutoConfig`` or read the same keys; llama.cpp reads them in
``convert_hf_to_gguf.py``). So the *selection* of the rope dicts is shared, and it is the
model's RoPE program (:func:`pe_symbolic.numeric.read_program`): the text part of a composite,
``rope_parameters`` / ``rope_scaling``, a dict per layer type, Gemma 3's older fields,
DeepSeek-V4's ``main`` / ``compress``, Step3p7's per-layer lists, and which layers have no RoPE
at all (an engine card is made for the entries some layer rotates with). What each engine then
*reads from it* (which key, which default) is part of its recipe
(:mod:`pe_symbolic.engines.recipes`), because that is where engines differ.

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
    admitted : int or None
        The number of positions the model admits there (``None``: not said).
    admitted_why : str
        Where that number comes from.
    layers : tuple of int or None
        The layers that rotate with this entry (``None``: every layer, or not said).
    """

    layer_type: str | None
    config: Mapping[str, Any] = field(repr=False)
    rope: Mapping[str, Any]
    admitted: int | None = None
    admitted_why: str = ""
    layers: tuple[int, ...] | None = None
    head_dim: int | None = None

    @property
    def rope_type(self) -> str:
        return str(self.rope.get("rope_type", "default"))


def _standard(rope: Mapping[str, Any], cfg: Mapping[str, Any]) -> dict[str, Any]:
    out = dict(rope)
    kind = out.pop("type", None)
    out.setdefault("rope_type", kind if kind is not None else "default")
    out["rope_type"] = _OLD_TYPES.get(out["rope_type"], out["rope_type"])
    if "rope_theta" not in out:
        out["rope_theta"] = cfg.get("rope_theta", cfg.get("rotary_emb_base", 10000.0))
    return out


def layer_ropes(config: Mapping[str, Any]) -> list[LayerRope]:
    """One ``LayerRope`` per rope entry some layer of ``config`` rotates with (one for a model with one RoPE;
    none for a model HF does not rotate at all).

    >>> [(r.layer_type, r.rope_type) for r in layer_ropes({"rope_theta": 10000.0, "hidden_size": 64,
    ...                                                   "num_attention_heads": 4})]
    [(None, 'default')]
    >>> cfg = {"rope_theta": 1e6, "rope_local_base_freq": 1e4, "head_dim": 8,
    ...        "rope_scaling": {"rope_type": "linear", "factor": 8.0}}
    >>> [(r.layer_type, r.rope_type, r.rope["rope_theta"]) for r in layer_ropes(cfg)]
    [('full_attention', 'linear', 1000000.0), ('sliding_attention', 'default', 10000.0)]
    >>> layer_ropes({"model_type": "nemotron_h", "rope_theta": 10000.0})
    []
    """
    if not isinstance(config, Mapping):
        raise TypeError(f"config must be a mapping (a config.json as a dict); got {type(config).__name__}")
    import warnings

    from .._hfconfig import normalize
    from ..numeric import read_program
    from ..numeric._keys import _per_layer
    from ..numeric._parse import rope_entries
    from ..numeric.context import admitted_context

    cfg = normalize(config)
    with warnings.catch_warnings():  # the parser's warnings are said by describe / pe-audit, not here
        warnings.simplefilter("ignore")
        prog = read_program(cfg)
        _, params, _family = rope_entries(cfg, False)
    per_layer = _per_layer(params)
    out: list[LayerRope] = []
    seen: dict[Any, int] = {}
    for site in prog.attention():
        if site.spec is None:
            continue
        key = site.entry
        if key in seen:
            got = out[seen[key]]
            if got.layers is not None and site.layers is not None:
                out[seen[key]] = LayerRope(got.layer_type, got.config, got.rope, got.admitted, got.admitted_why,
                                           tuple(sorted(got.layers + site.layers)), got.head_dim)
            continue
        rope = params.get(key) if per_layer and key is not None else (params if not per_layer else None)
        if not isinstance(rope, Mapping):
            rope = {}
        n, why = admitted_context(site.spec)
        seen[key] = len(out)
        out.append(LayerRope(key, cfg, _standard(rope, cfg), n, why, site.layers, site.spec.head_dim))
    return out
