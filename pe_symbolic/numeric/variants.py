r"""Tables for the RoPE variants whose rotation :func:`~pe_symbolic.numeric.rope_cos_sin`
cannot build from a config alone (issue 34).

* :func:`indexer_layouts` -- the pairing a sparse-attention indexer's RoPE uses, per engine
  (DeepSeek-V3.2: split halves in HF and vLLM while the MLA attention is interleaved);
* :func:`fope_cos_sin` -- FoPE (Intern-S1-Pro in vLLM and SGLang): each channel's cos and sin
  are mixtures of the kept frequencies' cos and sin, with coefficients from the checkpoint,
  padded past them with a constant the engines disagree on (``sin_pad``).

The mpmath oracle :func:`pe_symbolic.reference.fope_cos_sin` is written again from the same
engine code; ``tests/test_variant_configs.py`` compares them.
"""

from __future__ import annotations

import numbers
from collections.abc import Mapping
from typing import Any

import numpy as np

from ._variant_readers import INDEXER_LAYOUT, INDEXER_OTHER
from ._spec import RopeSpec
from .config import parse_rope_config, rope_frequencies
from .rope import rope_cos_sin

__all__ = ["FOPE_SIN_PAD", "fope_cos_sin", "indexer_layouts"]

#: What each engine pads FoPE's sin table with past the kept frequencies (cos is padded
#: with 1 everywhere): SGLang ``python/sglang/srt/layers/rotary_embedding/rope_variant.py``
#: ``FourierRotaryEmbedding`` @ 0b1fd02d56f0 and vLLM
#: ``vllm/model_executor/layers/rotary_embedding/fope.py`` @ c215d1e62d73 pad it with **1**
#: (a padded pair is multiplied by ``[[1, -1], [1, 1]]``: its score doubled, claim
#: ``fope.padding``); vLLM @ 151a2c744af6 pads it with **0** ("Channels beyond the retained
#: frequencies keep the zero-frequency component ... pass through unrotated").
FOPE_SIN_PAD: dict[str, float] = {"sglang@0b1fd02d56f0": 1.0, "vllm@c215d1e62d73": 1.0, "vllm@151a2c744af6": 0.0}


def _coefs(name: str, value: Any, kept: int, heads: int | None) -> np.ndarray:
    try:
        arr = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{name} must be an array of real numbers (the checkpoint's FoPE {name}); got "
                        f"{type(value).__name__}") from exc
    if arr.ndim == 2:
        arr = arr[None]
    if arr.ndim != 3 or arr.shape[1:] != (kept, kept):
        raise ValueError(f"{name} has shape {np.shape(value)}; FoPE's coefficients are (num_key_value_heads, {kept}, "
                         f"{kept}) or ({kept}, {kept}) for one head ({kept} = the kept frequencies)")
    if heads is not None and arr.shape[0] != heads:
        raise ValueError(f"{name} has {arr.shape[0]} heads; the other coefficient array has {heads}")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} has non-finite entries")
    return arr


def fope_cos_sin(
    config: Mapping[str, Any] | RopeSpec,
    positions: Any,
    cos_coef: Any,
    sin_coef: Any,
    *,
    sin_pad: float,
    accurate: bool = True,
) -> tuple[np.ndarray, np.ndarray]:
    r"""FoPE's ``(cos, sin)`` tables: ``positions.shape + (heads, head_dim // 2)``, float64.

    Channel ``d`` below the ``D`` kept frequencies :math:`\theta_j` (the first
    ``num_inv_freq``, else those above :math:`2\pi / L`; :func:`rope_frequencies` gives them)
    has :math:`c_d(p) = \sum_j C_{jd} \cos(p\theta_j)` and
    :math:`s_d(p) = \sum_j S_{jd} \sin(p\theta_j)` per key-value head; channels ``D ..
    head_dim/2 - 1`` are padded with cos = 1 and sin = ``sin_pad``. The engines then rotate
    GPT-NeoX style: ``x * cat(cos, cos) + rotate_half(x) * cat(sin, sin)``.

    Parameters
    ----------
    config : mapping or RopeSpec
        A config whose rope dict has FoPE's keys (``fope_init_factor``, ``fope_sep_head``,
        ``num_inv_freq``), as vLLM's and SGLang's Intern-S1-Pro code reads them.
    positions : array_like of int
        Non-negative token positions (any shape).
    cos_coef, sin_coef : array_like
        The checkpoint's ``cos_coef`` / ``sin_coef``: ``(num_key_value_heads, D, D)``, or
        ``(D, D)`` for one head (``fope_sep_head: false`` uses head 0 only).
    sin_pad : {1.0, 0.0}
        What the padded channels' sin holds: 1 in SGLang and vLLM up to c215d1e62d73, 0 in
        vLLM from 151a2c744af6 (``pe_symbolic.numeric.variants.FOPE_SIN_PAD``). Required: the engines disagree, and
        with 1 a padded pair's score is doubled (claim ``fope.padding``).
    accurate : bool, default True
        The kept frequencies' cos and sin from :func:`rope_cos_sin` (``accurate=True``:
        <= 0.8 ulp each); the mixtures are then float64 sums.

    Returns
    -------
    (cos, sin) : tuple of numpy.ndarray

    Examples
    --------
    >>> cfg = {"model_type": "interns1_pro_text", "head_dim": 8, "max_position_embeddings": 64,
    ...        "rope_parameters": {"rope_type": "default", "rope_theta": 100.0, "num_inv_freq": 2}}
    >>> eye = np.eye(2)
    >>> c, s = fope_cos_sin(cfg, [0, 1], eye, eye, sin_pad=1.0)
    >>> c.shape, c[1, 0, 2:].tolist(), s[1, 0, 2:].tolist()
    ((2, 1, 4), [1.0, 1.0], [1.0, 1.0])
    >>> bool(np.allclose(c[1, 0, :2], np.cos([1.0, 100 ** -0.25])))
    True
    """
    spec = config if isinstance(config, RopeSpec) else parse_rope_config(config)
    if not spec.fope:
        raise ValueError("config has no FoPE keys (fope_init_factor / fope_sep_head / num_inv_freq in its rope dict, "
                         "model_type interns1_pro): use rope_cos_sin for plain RoPE")
    if isinstance(sin_pad, bool) or not isinstance(sin_pad, numbers.Real) or float(sin_pad) not in (0.0, 1.0):
        raise ValueError(f"sin_pad={sin_pad!r} is not allowed: 1.0 (SGLang; vLLM up to c215d1e62d73) or 0.0 (vLLM from "
                         "151a2c744af6), the values the engines pad FoPE's sin table with")
    if not isinstance(accurate, bool):
        raise TypeError(f"accurate={accurate!r} must be True or False")
    t = np.asarray(positions)
    if t.dtype.kind not in "iu" or (t.size and t.min() < 0):
        raise ValueError(f"positions must be non-negative integers (FoPE's cache rows); got dtype {t.dtype}"
                         + (f", min {t.min()}" if t.size and t.dtype.kind in "iuf" else ""))
    inv = rope_frequencies(spec).inv_freq
    kept = len(inv)
    cc = _coefs("cos_coef", cos_coef, kept, None)
    sc = _coefs("sin_coef", sin_coef, kept, cc.shape[0])
    if not spec.fope_sep_head:  # vLLM: einsum("tD, Dd -> td", pos_cos, self.cos_coef[0])
        cc, sc = cc[:1], sc[:1]
    c, s = rope_cos_sin(t, inv_freq=inv, layout="split", accurate=accurate)
    c, s = c[..., :kept], s[..., :kept]
    cos = np.einsum("...D,hDd->...hd", c, cc)
    sin = np.einsum("...D,hDd->...hd", s, sc)
    pad = spec.head_dim // 2 - kept
    shape = cos.shape[:-1] + (pad,)
    cos = np.concatenate([cos, np.ones(shape)], axis=-1)
    sin = np.concatenate([sin, np.full(shape, float(sin_pad))], axis=-1)
    return cos, sin


def indexer_layouts(config: Mapping[str, Any]) -> dict[str, str] | None:
    """The pairing of the sparse-attention indexer's RoPE, per engine, or ``None`` (no indexer).

    ``"hf"``: transformers 5.24 hard-codes it per model type in the ``Indexer`` class and
    never reads ``indexer_rope_interleave`` (``pe_symbolic.numeric._variant_readers.INDEXER_LAYOUT``;
    :attr:`RopeSpec.indexer_layout` is this one). ``"vllm"``: ``deepseek_v2.py`` builds the
    indexer when the config has ``index_topk`` and rotates it with ``is_neox_style=not
    getattr(config, "indexer_rope_interleave", False)`` (vllm-project/vllm @ 002d6073aa03):
    split halves unless the key is true. Both rotate the first ``qk_rope_head_dim`` channels
    with the attention's frequencies; the MLA attention itself is interleaved in both.

    Parameters
    ----------
    config : mapping
        A model's ``config.json`` as a dict.

    Returns
    -------
    dict or None
        ``{"hf": layout, "vllm": layout}`` (``"split"`` or ``"interleaved"``; an engine that
        does not build the indexer from this config is left out), ``None`` when neither does.

    Examples
    --------
    >>> indexer_layouts({"model_type": "deepseek_v32", "index_topk": 2048})
    {'hf': 'split', 'vllm': 'split'}
    >>> indexer_layouts({"model_type": "glm_moe_dsa", "index_topk": 2048, "indexer_rope_interleave": True})
    {'hf': 'interleaved', 'vllm': 'interleaved'}
    >>> indexer_layouts({"model_type": "deepseek_v32", "index_topk": 2048, "indexer_rope_interleave": True})
    {'hf': 'split', 'vllm': 'interleaved'}
    >>> indexer_layouts({"model_type": "llama"}) is None
    True
    """
    if not isinstance(config, Mapping):
        raise TypeError(f"config must be a mapping (a model's config.json as a dict); got {type(config).__name__}")
    key = config.get("indexer_rope_interleave")
    if key is not None and not isinstance(key, bool):
        raise TypeError(f"config['indexer_rope_interleave']={key!r} must be true or false")
    mt = config.get("model_type")
    out: dict[str, str] = {}
    if isinstance(mt, str) and mt in INDEXER_LAYOUT:
        out["hf"] = INDEXER_LAYOUT[mt]
    elif isinstance(mt, str) and mt in INDEXER_OTHER and key is not None:
        raise ValueError(f"model_type {mt!r} has an indexer whose RoPE HF places on other channels or with its own "
                         "rotary, which indexer_layouts does not model")
    if "index_topk" in config:  # vLLM: is_v32 = hasattr(config, "index_topk")
        out["vllm"] = "interleaved" if key else "split"
    return out or None

