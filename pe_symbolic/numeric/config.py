r"""Rotary frequencies from a model's ``config.json``: every ``rope_type`` that real models ship.

:func:`~pe_symbolic.numeric.rope_frequencies` reads the rope fields of a config mapping the way Hugging Face
transformers' current ``ROPE_INIT_FUNCTIONS`` do and returns the float64 inverse
frequencies and the attention factor. The formulas are the SymPy constructions of
:mod:`pe_symbolic.encodings.family`, lowered through :mod:`pe_symbolic.numeric.lower`
under their proved claims and evaluated at 40 significant digits; each frequency is then
rounded once to float64 (so within half an ulp of the truth, and within 1 ulp of the
independent oracle :func:`pe_symbolic.reference.rope_frequencies`). Discrete decisions
(YaRN's floor/ceil and clamp, Llama 3's bands, LongRoPE's switch) are made on the
40-digit values, i.e. exactly, where HF makes them in float32/float64.

Config parsing (what :func:`~pe_symbolic.numeric.parse_rope_config` does, in this order):

* the config as the model's HF config class holds it (``pe_symbolic._hfconfig.normalize``,
  from the shipped table of each ``model_type``'s class defaults, generated from transformers):
  the keys a sparse ``config.json`` leaves out take the class's defaults, ``attribute_map``
  names (``n_embd``, ``n_head``, ...) are read, a legacy ``rope_scaling`` / ``rope_theta`` /
  ``rope_local_base_freq`` goes where the class puts it (Gemma 3: the full-attention layers'
  dict, and the sliding layers' base), ``per_layer_config`` gives per-layer-type overrides;
  keys the class does not read warn. Without a ``model_type`` the config is read as given.
* ``text_config``: multimodal configs (Gemma 3, Qwen-VL on the Hub) keep the text model's
  fields there; it is used when the top level has no rope fields.
* the rope type's own keys: one reader per type (``READERS``, in
  ``pe_symbolic.numeric._rope_readers``, as HF's ``ROPE_INIT_FUNCTIONS``), after the keys
  every type reads (base, partial rotary factor, head dim, required keys, M-RoPE sections).
* ``rope_parameters`` (current layout) or ``rope_scaling`` (older layout; ``type`` is
  accepted for ``rope_type``); giving both with different contents is an error. A dict of
  dicts is per layer type (Gemma 3: ``full_attention`` / ``sliding_attention``), picked by
  ``layer_type=``. Gemma 3's older fields (``rope_local_base_freq`` beside ``rope_theta``
  and ``rope_scaling``) are read as that per-layer layout, as HF does.
* rotary dimension ``int(head_dim * partial_rotary_factor)``; ``head_dim`` from the config
  or ``hidden_size // num_attention_heads``; DeepSeek's ``qk_rope_head_dim`` takes
  precedence (HF sets ``head_dim`` to it), and for ``layer_type="full_attention"`` so does
  Gemma 4's ``global_head_dim`` (HF's ``Gemma4TextConfig`` gives the full-attention layers
  that head dim through ``per_layer_config``, and every rope type reads the layer's).
  ``head_dim`` must be even. GPT-NeoX's ``rotary_pct`` and ``rotary_emb_base`` are read as
  ``partial_rotary_factor`` and ``rope_theta``.
* ``original_max_position_embeddings`` (``llama3``, ``yarn``, ``longrope``): a top-level
  field wins (Phi-3), then the rope dict's, then ``max_position_embeddings``.
* older type names: ``"su"`` (first Phi-3 releases) is ``longrope``; ``"mrope"``
  (Qwen2-VL) is ``default`` with ``mrope_section``.
* engine type names, as vLLM computes them: ``"deepseek_yarn"`` / ``"deepseek_llama_scaling"``
  (YaRN with vLLM's ``mscale`` rule), ``"telechat3-yarn"`` (YaRN, attention factor
  ``0.07 ln s + 1``), ``"ntk"`` (vLLM's ``NTKScalingRotaryEmbedding``: fixed NTK
  :math:`(b s)^{-2i/d} / s^{2/d}`, or mixed NTK with ``mixed_b``; HF has no ``"ntk"`` type).
* DeepSeek-V4 (``model_type`` ``deepseek_v4``): the two RoPEs HF's ``DeepseekV4Config``
  builds, ``layer_type="main"`` (sliding-window layers) and ``"compress"`` (compressed
  layers, ``compress_rope_theta``), on the last channels of the head
  (:attr:`~pe_symbolic.numeric.RopeSpec.rotary_channels`); Molmo2's ``rope_scaling_layers``
  through ``layer=``.

Bad input raises :class:`ValueError` (or :class:`TypeError` for a wrong type) naming the
key, the value and what is allowed; a YaRN ``beta_slow`` above ``beta_fast``, which HF
accepts with a logged warning, gives a :class:`UserWarning`.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import numbers
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from .._hfconfig import NormalizedConfig, normalize
from .._validate import check_choice
from ._config_base import (  # noqa: F401  (_factor_list, _user_stacklevel: kept importable from here)
    UnknownConfigKeyError,
    UnknownConfigKeyWarning,
    _factor_list,
    _int,
    _is_number,
    _real,
    _unknown,
    _user_stacklevel,
)
from ._rope_readers import READERS, VLLM_DEEPSEEK_NAMES, ReadContext
from ._variant_readers import (
    BAILING_MODEL_TYPES,
    CHATGLM_BASE,
    FOPE_KEYS,
    YARN_ENGINES,
    chatglm_2d,
    chatglm_head_dim,
    check_bailing,
    indexer_layout,
)

__all__ = [
    "ROPE_TYPES",
    "RopeFrequencies",
    "RopeSpec",
    "UnknownConfigKeyError",
    "UnknownConfigKeyWarning",
    "llama4_nope_query_scale",
    "llama4_query_scale",
    "model_config",
    "model_configs",
    "parse_rope_config",
    "rope_frequencies",
]

#: The rope types :func:`rope_frequencies` knows: HF's ``ROPE_INIT_FUNCTIONS`` keys, plus
#: ``"default"``, vLLM's ``"ntk"`` (``NTKScalingRotaryEmbedding``: fixed NTK
#: :math:`(b s)^{-2i/d} / s^{2/d}`, mixed NTK with ``mixed_b``; not an HF type), vLLM's
#: ``"telechat3-yarn"`` (YaRN with a 0.07 attention-factor slope) and vLLM's ``"openpangu"``
#: (the default ladder with openPangu's greedy interleave of ``mrope_section``). The static NTK-aware base
#: :math:`b s^{d/(d-2)}` (rotary-embedding-torch's ``theta_rescale_factor``) is not a config
#: type: it is ``family_formula("ntk")`` (claim ``ntk.derive``).
ROPE_TYPES: tuple[str, ...] = ("default", "linear", "ntk", "dynamic", "yarn", "longrope", "llama3", "proportional",
                               "axial", "telechat3-yarn", "openpangu")
#: The YaRN-shaped types (the same frequencies; ``telechat3-yarn`` differs in the attention
#: factor and reads vLLM's ``extrapolation_factor`` / ``attn_factor``).
YARN_TYPES: tuple[str, ...] = ("yarn", "telechat3-yarn")
#: Older or engine names found in published configs, and what they mean today: ``"su"``
#: (first Phi-3 releases) is ``longrope``, ``"mrope"`` (Qwen2-VL) is ``default`` with
#: ``mrope_section``, ``"deepseek_yarn"`` (vLLM's and SGLang's name for DeepSeek's YaRN,
#: the same inverse frequencies and ``mscale``/``mscale_all_dim`` attention factor) is ``yarn``.
ROPE_TYPE_ALIASES: dict[str, str] = {"su": "longrope", "mrope": "default", "deepseek_yarn": "yarn",
                                     "deepseek_llama_scaling": "yarn", "xdrope": "dynamic"}
#: vLLM's names for its ``DeepseekScalingRotaryEmbedding``: YaRN's frequencies (always
#: truncated) with vLLM's attention factor ``m(s, mscale) / m(s, mscale_all_dim) * attn_factor``
#: (defaults 1, 0, 1), which differs from HF's rule when only one of the two mscales is given.
#: HunyuanVL's ``"xdrope"``: HF's ``HunYuanVLTextConfig`` reads it as ``dynamic`` with a fixed
#: ``alpha`` (``ntk_alpha``) and a 4-axis M-RoPE section (``xdrope_section``, alias of
#: ``mrope_section``).
#: Lengths YaRN's correction range may use (``yarn_length=``).
YARN_LENGTHS: tuple[str, ...] = ("original", "max")
#: HF model types whose config class sets ``default_rope_type = "axial"`` (HF 5.23), and the
#: DINOv3 family (``dinov3_vit``, ``eomt_dinov3``, ``sapiens2``), whose 2-D RoPE takes
#: ``1 / base ** arange(0, 1, 4 / head_dim)``, the same ladder over ``head_dim // 2``: a
#: ``default`` (or absent) rope type there is read as ``axial``, as HF's
#: ``standardize_rope_params`` does. All but ``pixtral`` and ``minimax_m3_vl_vision`` compute
#: HF's axial frequencies over the spatial dim ``head_dim // 2`` (``base ** -(arange(0,
#: head_dim/2, 2) / (head_dim/2))``, shared by the height and the width pairs); ``pixtral``
#: takes the ``head_dim`` ladder and reorders it (even pairs for height, odd for width);
#: ``minimax_m3_vl_vision`` has three axes (``AXIAL_3D_MODEL_TYPES``).
AXIAL_MODEL_TYPES: frozenset[str] = frozenset({
    "cohere_compass_vision", "dinov3_vit", "dots3_note_vision_encoder", "eomt_dinov3", "edgetam_video", "ernie4_5_vl_moe_vision",
    "exaone4_5_vision", "gemma4_vision", "glm4v_moe_vision", "glm4v_vision", "glm5_next_vision",
    "glm_image_vision", "glm_ocr_vision", "inkling2_vision", "kimi_k25_vision", "lfm3_vl_vision",
    "minimax_m3_vl_vision", "mlcd_vision_model", "muse_glimmer_vision", "muse_spark_vision", "paddleocr_vl_vision",
    "pixtral",
    "qwen2_5_omni_vision_encoder", "qwen2_5_vl_vision", "qwen2_vl_vision", "qwen3_5_moe_vision", "qwen3_5_vision",
    "qwen3_omni_moe_vision_encoder", "qwen3_vl_moe_vision", "qwen3_vl_vision", "qwen4_exp_vision", "sam2_video",
    "sapiens2",
    "sam3_tracker_video", "sam3_vit_model", "step3p5_vision", "video_llama_3_vision"})
#: HF model types whose axial vision RoPE has three axes (t, h, w), each with the ladder over
#: ``2 * ((head_dim // 3) // 2)`` (``MiniMaxM3VLVisionRotaryEmbedding``).
AXIAL_3D_MODEL_TYPES: frozenset[str] = frozenset({"minimax_m3_vl_vision"})
#: HF 5.24 M-RoPE text models (and the flat form of their VL model type): the
#: ``mrope_section`` their rotary embedding falls back to when the config has none
#: (``config.rope_parameters.get("mrope_section", ...)`` in the modeling code; HY-V4-VL's
#: config class sets ``[12, 10, 10]`` itself), and how it places the axes whatever the
#: config's ``mrope_interleaved`` says (HF never reads that key): ``"contiguous"``
#: (``cat(m[i % 3] for m in freq.split(mrope_section))``, Qwen2-VL's sections),
#: ``"interleaved"`` (``recomposition_frequencies`` with ``slice(offset, 3 * section, 3)``,
#: Qwen3-VL's t, h, w cycle) or ``"ernie4_5_vl"`` (``mrope_rule_axes``). The parser uses the
#: same default and placement, so 3-axis positions are placed as HF places them
#: (``tests/test_config_layouts.py`` reads both from the installed modeling code).
_MROPE_FAMILIES: tuple[tuple[tuple[str, ...], tuple[int, int, int], str], ...] = (
    (("glm4v", "glm4v_text", "glm_ocr", "glm_ocr_text", "glm4v_moe", "glm4v_moe_text", "glm_image",
      "glm_image_text"), (8, 12, 12), "contiguous"),
    (("qwen2_vl", "qwen2_vl_text", "qwen2_5_vl", "qwen2_5_vl_text", "qwen2_5_omni", "qwen2_5_omni_text",
      "paddleocr_vl", "paddleocr_vl_text"), (16, 24, 24), "contiguous"),
    (("qwen3_vl", "qwen3_vl_text", "qwen3_vl_moe", "qwen3_vl_moe_text", "qwen3_omni_moe", "qwen3_omni_moe_text",
      "cosmos3_edge", "cosmos3_edge_text", "cohere_compass", "cohere_compass_text"), (24, 20, 20), "interleaved"),
    (("qwen3_5", "qwen3_5_text", "qwen3_5_moe", "qwen3_5_moe_text", "qwen4_exp", "qwen4_exp_text"), (11, 11, 10),
     "interleaved"),
    (("hy_v4_vl", "hy_v4_vl_text"), (12, 10, 10), "interleaved"),
    (("ernie4_5_vl_moe", "ernie4_5_vl_moe_text"), (22, 22, 20), "ernie4_5_vl"),
)
HF_MROPE_DEFAULT_SECTIONS: dict[str, tuple[int, int, int]] = {mt: sec for mts, sec, _ in _MROPE_FAMILIES for mt in mts}
HF_MROPE_PLACEMENT: dict[str, str] = {mt: rule for mts, _, rule in _MROPE_FAMILIES for mt in mts}


def mrope_rule_axes(rule: str, section: Sequence[int]) -> tuple[int, ...]:
    """The position axis (0 = t, 1 = h, 2 = w) of each pair under a :attr:`RopeSpec.mrope_rule`.

    ``"ernie4_5_vl"``: HF's ``Ernie4_5_VLMoeTextRotaryEmbedding`` permutes the ladder
    (``inv_freq_3d[:hw] = cat(inv_freq[:hw][0::2], inv_freq[:hw][1::2])``, ``hw = section[0] +
    section[1]``), takes h for the first ``section[0]`` entries, w for the next
    ``section[1]``, t for the last ``section[2]``, then interleaves the h and w entries
    (``stack([freq_h, freq_w], -1).flatten(-2)``): pair ``j`` keeps the ladder's frequency
    ``j`` and turns by h (even ``j < hw``), w (odd ``j < hw``) or t (``j >= hw``).

    ``"openpangu"`` and ``"bailing"``: :func:`pe_symbolic.encodings.variants.openpangu_axes`
    and :func:`~pe_symbolic.encodings.variants.bailing_axes` (vLLM's ``openpangu_rope.py`` and
    ``bailing_mrope.py``).

    >>> mrope_rule_axes("ernie4_5_vl", (2, 2, 1))
    (1, 2, 1, 2, 0)
    >>> mrope_rule_axes("openpangu", (2, 3, 3)), mrope_rule_axes("bailing", (2, 2, 2))
    ((0, 1, 2, 1, 2, 1, 2, 0), (1, 2, 1, 2, 0, 0))
    """
    if rule in ("openpangu", "bailing"):
        from ..encodings import variants

        return variants.openpangu_axes(section) if rule == "openpangu" else variants.bailing_axes(section)
    if rule != "ernie4_5_vl":
        raise ValueError(f"unknown M-RoPE rule {rule!r}")
    h, w, t = (int(v) for v in section)
    if h != w:
        raise ValueError(f"mrope_section={list(section)!r}: HF's Ernie 4.5 VL interleaves the h and w sections "
                         "pair by pair, which needs mrope_section[0] == mrope_section[1]")
    return (1, 2) * h + (0,) * t


#: Digits at which the lowered formulas are evaluated before the one rounding to float64.
DPS = 40

_REQUIRED: dict[str, tuple[str, ...]] = {
    "linear": ("factor",),
    "ntk": ("factor",),
    "dynamic": ("factor",),
    "yarn": ("factor",),
    "telechat3-yarn": ("factor",),
    "longrope": ("short_factor", "long_factor"),
    "llama3": ("factor", "low_freq_factor", "high_freq_factor"),
}
#: The keys of a rope dict each type reads (besides ``rope_type``/``type``, ``rope_theta``,
#: ``partial_rotary_factor``, ``mrope_section``, ``mrope_interleaved`` and
#: ``llama_4_scaling_beta``, which every type reads). HF 5.23's ``_validate_*_rope_parameters``
#: plus the model-specific keys real configs carry (Hunyuan's ``alpha``, PhiMoE's
#: ``short_mscale``/``long_mscale``).
_COMMON_KEYS = frozenset({"rope_type", "type", "rope_theta", "partial_rotary_factor", "mrope_section",
                          "mrope_interleaved", "llama_4_scaling_beta"})
_TYPE_KEYS: dict[str, frozenset[str]] = {
    # FoPE's keys (Intern-S1-Pro, read under 'default'; refused on other model types by the reader)
    "default": frozenset(FOPE_KEYS),
    "axial": frozenset(),
    "openpangu": frozenset(),
    "linear": frozenset({"factor"}),
    "ntk": frozenset({"factor", "mixed_b"}),
    "dynamic": frozenset({"factor", "alpha", "xdrope_section"}),
    # extrapolation_factor: HF does not read it (the reader warns), vLLM and llama.cpp do (yarn_engine=)
    "yarn": frozenset({"factor", "original_max_position_embeddings", "attention_factor", "beta_fast", "beta_slow",
                       "mscale", "mscale_all_dim", "truncate", "extrapolation_factor"}),
    # vLLM's DeepseekScalingRotaryEmbedding keywords (deepseek_yarn, deepseek_llama_scaling)
    "deepseek_yarn": frozenset({"factor", "original_max_position_embeddings", "beta_fast", "beta_slow", "mscale",
                                "mscale_all_dim", "extrapolation_factor", "attn_factor"}),
    # vLLM's TeleChat3RoPEScaledRotaryEmbedding keywords (no mscale / attention_factor there)
    "telechat3-yarn": frozenset({"factor", "original_max_position_embeddings", "beta_fast", "beta_slow", "truncate",
                                 "extrapolation_factor", "attn_factor"}),
    "longrope": frozenset({"short_factor", "long_factor", "factor", "original_max_position_embeddings",
                           "attention_factor", "short_mscale", "long_mscale"}),
    "llama3": frozenset({"factor", "low_freq_factor", "high_freq_factor", "original_max_position_embeddings"}),
    "proportional": frozenset({"factor"}),
}
#: Keys HF reads nowhere for the given case and that real configs carry anyway: accepted
#: without a warning because HF ignores them too (and :func:`describe` lists them as
#: ignored). Hunyuan's ``dynamic`` with ``alpha`` (HF's ``ntk_alpha``) carries YaRN leftovers.
_IGNORED_LIKE_HF: dict[str, frozenset[str]] = {
    "ntk_alpha": frozenset({"factor", "mscale", "mscale_all_dim", "beta_fast", "beta_slow"}),
}
#: Top-level keys whose name says RoPE (contains ``rope`` or ``rotary``) that the parser or
#: :func:`describe` reads; any other such key warns (:class:`UnknownConfigKeyWarning`).
_TOP_KEYS_READ = frozenset({"rope_theta", "rope_parameters", "rope_scaling", "rotary_emb_base", "rotary_pct",
                            "partial_rotary_factor", "rope_local_base_freq", "qk_rope_head_dim", "rotary_dim",
                            "no_rope_layers", "no_rope_layer_interval", "rope_interleave", "layer_rope_theta",
                            "indexer_rope_interleave"})
#: Top-level RoPE keys read only for one model type.
_TOP_KEYS_READ_FOR: dict[str, frozenset[str]] = {"deepseek_v4": frozenset({"compress_rope_theta"}),
                                                  "molmo2_text": frozenset({"rope_scaling_layers"}),
                                                  "molmo2": frozenset({"rope_scaling_layers"})}
#: DeepSeek-V4 (HF's ``DeepseekV4Config``): the rope dict is keyed by rope labels, not by
#: layer types; each HF layer type uses one label.
DEEPSEEK_V4_LABELS: dict[str, str] = {"sliding_attention": "main", "compressed_sparse_attention": "compress",
                                      "heavily_compressed_attention": "compress"}
#: HF's ``DeepseekV4Config`` defaults: ``compress_rope_theta`` and the rotated fraction
#: ``qk_rope_head_dim / head_dim`` = 64 / 512 when the config gives neither.
DEEPSEEK_V4_COMPRESS_THETA = 160000.0
DEEPSEEK_V4_PARTIAL = 64 / 512
#: Model types whose ``layer_rope_theta`` only marks NoPE layers (0): every RoPE layer uses the
#: global ``rope_theta`` (HF's MuseSpark / MuseGlimmer build one rotary embedding). Elsewhere
#: (Granite SWA, GraniteMoE SWA) a non-zero entry is that layer's base.
LAYER_THETA_MARKS_ONLY: frozenset[str] = frozenset({"muse_spark", "muse_spark_text", "muse_glimmer",
                                                    "muse_glimmer_text"})
#: Top-level keys whose name says another position scheme (ALiBi, learned or relative
#: positions) or a long-context recipe outside the rope dict (Qwen-1's ``use_dynamic_ntk`` and
#: ``use_logn_attn``, ...): the parser implements none of them, so a set value warns (a false
#: or null one is the scheme switched off: nothing to read). ``position_embedding_type``
#: naming RoPE itself is what the parser computes.
_OTHER_POSITION_WORDS = ("ntk", "yarn", "alibi", "logn", "position_embedding_type")
_ROPE_POSITION_TYPES = frozenset({"rope", "rotary"})
#: Model types of remote code (not in HF transformers) whose RoPE is not what the standard
#: keys say: the parser would read them as HF's Llama does, so they warn (error under strict).
REMOTE_CODE_ROPE: dict[str, str] = {
    "chatglm": "ChatGLM2/3 and GLM-4 (remote code) rotate the first kv_channels // 2 channels in interleaved "
               "pairs, base 10000 * rope_ratio",
    "qwen": "Qwen (1st generation, remote code) stretches the base by its own dynamic NTK (use_dynamic_ntk) "
            "and scales attention by log-n (use_logn_attn)",
    "baichuan": "Baichuan (remote code) uses RoPE in its 7B model and ALiBi in its 13B model, which the same "
                "model_type names",
}
_ROPE_KEYS = ("rope_theta", "rope_parameters", "rope_scaling", "head_dim", "hidden_size",
              "num_attention_heads", "rotary_emb_base", "rotary_pct", "partial_rotary_factor")


class RopeFrequencies(NamedTuple):
    """What :func:`rope_frequencies` returns: the inverse frequencies and the attention factor.

    A named pair: unpack it (``inv_freq, attention_factor = ...``) or use the fields; pass it
    whole as ``inv_freq=`` to :func:`apply_rope` to bring the attention factor along.

    >>> fr = rope_frequencies({"head_dim": 4, "rope_theta": 100.0})
    >>> fr.inv_freq, fr.attention_factor
    (array([1. , 0.1]), 1.0)
    """

    inv_freq: np.ndarray
    """float64 inverse frequencies, one per rotated pair (``rotary_dim/2`` of them; for
    ``proportional`` ``head_dim/2``, the trailing ones zero)."""
    attention_factor: float
    """The factor HF multiplies the cos and sin tables by (1.0 unless ``yarn``/``longrope``)."""


@dataclass(frozen=True)
class RopeSpec:
    """The rope fields of a config, parsed and checked (see :func:`parse_rope_config`).

    Every field is a plain number, string, tuple or ``None``; the object is hashable, and
    :func:`rope_frequencies` and :func:`apply_rope` accept it in place of the config.

    >>> spec = parse_rope_config(model_config("gpt-neox-20b"))
    >>> spec.rope_type, spec.head_dim, spec.rotary_dim, spec.pairs
    ('default', 96, 24, 12)
    """

    rope_type: str
    rope_theta: float
    head_dim: int
    rotary_dim: int
    partial_rotary_factor: float = 1.0
    max_position_embeddings: int | None = None
    factor: float | None = None
    original_max_position_embeddings: int | None = None
    attention_factor: float | None = None
    beta_fast: float = 32.0
    beta_slow: float = 1.0
    mscale: float | None = None
    mscale_all_dim: float | None = None
    truncate: bool = True
    short_factor: tuple[float, ...] | None = None
    long_factor: tuple[float, ...] | None = None
    low_freq_factor: float | None = None
    high_freq_factor: float | None = None
    mrope_section: tuple[int, ...] | None = None
    mrope_interleaved: bool = False
    layer_type: str | None = None
    alpha: float | None = None
    short_mscale: float | None = None
    long_mscale: float | None = None
    llama_4_scaling_beta: float | None = None
    freq_dim: int | None = None
    ignored: tuple[str, ...] = ()
    xdrope_section: tuple[int, ...] | None = None
    mixed_b: float | None = None
    """vLLM's mixed-NTK exponent (``rope_type`` ``ntk``; ``None``: vLLM's fixed NTK, which is
    the mixed NTK at ``mixed_b = 1``, claim ``ntk_mixed.endpoints``)."""
    extrapolation_factor: float = 1.0
    """vLLM's YaRN ``extrapolation_factor`` (``telechat3-yarn``): scales the kept share."""
    attn_factor: float = 1.0
    """vLLM's ``attn_factor`` (``telechat3-yarn``): multiplies the attention factor."""
    mscale_rule: str = "hf"
    """How YaRN's attention factor reads ``mscale`` / ``mscale_all_dim``: ``"hf"`` (the ratio
    when both are given, else :math:`0.1 \\ln s + 1`) or ``"vllm"`` (vLLM's DeepSeek names:
    always the ratio, defaults 1 and 0, times ``attn_factor``)."""
    rotary_channels: str = "leading"
    """Which channels of the head rotate: ``"leading"`` (HF's partial rotary) or
    ``"trailing"`` (DeepSeek-V4: the last ``rotary_dim`` channels, in interleaved pairs)."""
    mrope_rule: str | None = None
    """How M-RoPE assigns position axes to pairs when neither Qwen2-VL's contiguous sections
    nor Qwen3-VL's interleaving (``mrope_interleaved``) is HF's rule: ``"ernie4_5_vl"``
    (HF's ``Ernie4_5_VLMoeTextRotaryEmbedding``: the first ``2 * mrope_section[0]`` pairs
    alternate h, w, the last ``mrope_section[2]`` take t), ``"openpangu"`` (vLLM's
    ``rope_type: "openpangu"``: the greedy interleave of
    :func:`pe_symbolic.encodings.variants.openpangu_axes`, two or three sections) or
    ``"bailing"`` (vLLM's and SGLang's ``BailingMRotaryEmbedding`` for ``bailing_hybrid``: h
    on even, w on odd pairs of the first ``h + w``, then t)."""
    factors: tuple[float, ...] | None = None
    """vLLM's multi-factor linear RoPE (``factor`` a list, ``LinearScalingRotaryEmbedding``):
    every factor of the list; ``factor`` is the one selected (``factor=``)."""
    fope: bool = False
    """FoPE (Intern-S1-Pro; the rope dict's ``fope_init_factor`` / ``fope_sep_head`` /
    ``num_inv_freq``): :func:`rope_frequencies` gives the kept frequencies, each output
    channel mixes their cos / sin with the checkpoint's coefficients, and the channels past
    them are padded with cos = sin = 1 (:func:`pe_symbolic.numeric.fope_cos_sin`)."""
    fope_num_inv_freq: int | None = None
    """FoPE's ``num_inv_freq`` (the first ones kept); ``None``: those above
    :math:`2\\pi/L`, ``L`` = ``max_position_embeddings``."""
    fope_sep_head: bool = True
    """FoPE's ``fope_sep_head``: one coefficient matrix per key-value head."""
    fope_init_factor: float | None = None
    """FoPE's ``fope_init_factor`` (the coefficients' initialisation scale; not used at inference)."""
    indexer_layout: str | None = None
    """The pairing of the sparse-attention indexer's RoPE (``"split"`` or ``"interleaved"``;
    DeepSeek-V3.2 / GLM-5-style DSA indexers, HF's per model type) on the first
    ``rotary_dim`` channels of its q / k, with the attention's frequencies; ``None``: no
    indexer."""
    position_blocks: int = 1
    """ChatGLM-6B's 2-D positions (``position_encoding_2d``): 2 consecutive blocks of
    ``rotary_dim`` channels, block ``k`` turned by position axis ``k`` (token position,
    block position), each in split halves; 1 elsewhere."""
    ext_rule: str = "vllm"
    """How ``extrapolation_factor`` acts: ``"vllm"`` (the kept share times it; the
    attention factor unchanged) or ``"llama.cpp"`` (``ext_factor``: llama.cpp's ramp, always
    floored / ceiled, and no magnitude factor when it is 0)."""

    @property
    def pairs(self) -> int:
        """Number of inverse frequencies (``rotary_dim // 2``)."""
        return self.rotary_dim // 2

    @property
    def exponent_dim(self) -> int:
        """The :math:`d` of the exponents :math:`-2i/d`: ``rotary_dim``, except for an odd
        ``int(head_dim * partial_rotary_factor)``, which HF keeps in the exponent while it
        rotates one more channel (``torch.arange(0, dim, 2)`` has ``ceil(dim/2)`` entries)."""
        return self.freq_dim if self.freq_dim is not None else self.rotary_dim


def emit_notices(normalized: NormalizedConfig, strict: bool) -> None:
    """Warn (or raise under ``strict``) with what ``pe_symbolic._hfconfig.normalize`` noticed:
    keys HF's config class does not read, a ``model_type`` the table lacks (not for the remote-code
    types, which warn for themselves)."""
    for msg in normalized.notices:
        _unknown(msg, strict)
    if normalized.unknown_type and normalized.model_type not in REMOTE_CODE_ROPE:
        _unknown(normalized.unknown_type, strict)


# ----------------------------------------------------------------------------------------
# checks


def _rope_dicts(cfg: Mapping[str, Any]) -> tuple[str, Mapping[str, Any]]:
    rp, rs = cfg.get("rope_parameters"), cfg.get("rope_scaling")
    for key, val in (("rope_parameters", rp), ("rope_scaling", rs)):
        if val is not None and not isinstance(val, Mapping):
            raise TypeError(f"config[{key!r}] must be a mapping (or null); got {type(val).__name__}")
    if rp and rs and dict(rp) != dict(rs):
        raise ValueError(
            "config has both 'rope_parameters' (current layout) and 'rope_scaling' (older layout) "
            "with different contents; keep one of them"
        )
    if rp:
        return "config['rope_parameters']", rp
    if rs:
        return "config['rope_scaling']", rs
    return "config['rope_parameters']", {}


def _per_layer(params: Mapping[str, Any]) -> bool:
    """A dict of dicts (one per layer type); a ``null`` entry is a layer type without RoPE
    (HF 5.x skips it: NoPE)."""
    return (bool(params) and all(isinstance(v, Mapping) or v is None for v in params.values())
            and any(isinstance(v, Mapping) for v in params.values()))


def _check_top_keys(cfg: Mapping[str, Any], strict: bool) -> None:
    """Warn (or raise under ``strict``) on every top-level key naming RoPE that nothing reads."""
    mt = cfg.get("model_type")
    if isinstance(mt, str) and mt in REMOTE_CODE_ROPE:
        _unknown(f"config['model_type']={mt!r} is not a transformers model: {REMOTE_CODE_ROPE[mt]}; the parser "
                 "reads the standard keys as HF's Llama does, which is not this model's RoPE", strict)
    extra = _TOP_KEYS_READ_FOR.get(cfg.get("model_type"), frozenset())  # type: ignore[arg-type]
    for key in cfg:
        if not isinstance(key, str) or key in _TOP_KEYS_READ or key in extra:
            continue
        low = key.lower()
        if "rope" in low or "rotary" in low:
            _unknown(f"config[{key!r}]={cfg[key]!r} is not understood by the RoPE config parser and is not used "
                     f"(the top-level RoPE keys it reads: {', '.join(sorted(_TOP_KEYS_READ))})", strict)
        elif any(w in low for w in _OTHER_POSITION_WORDS):
            _other_position_key(f"config[{key!r}]", cfg[key], strict)
        elif isinstance(cfg[key], Mapping) and key not in ("text_config", "vision_config"):
            # MPT's attn_config = {"alibi": true, ...}: one level down, the same words
            for sub, v in cfg[key].items():
                if isinstance(sub, str) and any(w in sub.lower() for w in _OTHER_POSITION_WORDS):
                    _other_position_key(f"config[{key!r}][{sub!r}]", v, strict)


def _other_position_key(where: str, value: object, strict: bool) -> None:
    """Warn (or raise) on a set key of a position scheme the parser does not implement."""
    if value is None or value is False or (_is_number(value) and value == 0) or value in ("", [], {}):
        return
    if isinstance(value, str) and value.lower() in _ROPE_POSITION_TYPES:
        return
    _unknown(f"{where}={value!r} names a position scheme or long-context recipe the RoPE config parser does "
             "not implement, and is not used: the tables computed are plain RoPE from the config's RoPE keys, "
             "which may not be what this model applies", strict)


def _check_rope_keys(cfg: Mapping[str, Any], where: str, p: Mapping[str, Any], rope_type: str, raw_type: object,
                     case: str, strict: bool) -> tuple[str, ...]:
    """Warn (or raise) on the rope dict's keys this ``rope_type`` does not read; return the
    keys accepted only because HF ignores them too (``case``: ``rope_type`` or ``ntk_alpha``)."""
    known = _COMMON_KEYS | _TYPE_KEYS["deepseek_yarn" if raw_type in VLLM_DEEPSEEK_NAMES else rope_type]
    like_hf = _IGNORED_LIKE_HF.get(case, frozenset())
    ignored = []
    for key in p:
        if key in like_hf:
            ignored.append(key)
        elif key == "max_position_embeddings" and p[key] == cfg.get("max_position_embeddings"):
            ignored.append(key)  # a copy of the top-level value (Ministral 3); HF reads the top level
        elif key not in known:
            shown = f"{raw_type!r}" + (f" (read as {rope_type!r})" if raw_type != rope_type else "")
            allowed = ", ".join(sorted(known - {"type"}))
            _unknown(f"{where}[{key!r}]={p[key]!r} is not understood for rope_type {shown} and is not used; "
                     f"the keys this type reads: {allowed}", strict)
    return tuple(ignored)


def _gemma_layers(cfg: Mapping[str, Any], params: Mapping[str, Any]) -> dict[str, Mapping[str, Any]]:
    """Gemma 3's older fields as HF's per-layer layout: local layers use rope_local_base_freq."""
    full = dict(params)
    full.setdefault("rope_theta", cfg.get("rope_theta", 10000.0))
    return {
        "full_attention": full,
        "sliding_attention": {"rope_type": "default", "rope_theta": cfg["rope_local_base_freq"]},
    }


def _deepseek_v4_params(cfg: Mapping[str, Any], where: str, params: Mapping[str, Any],
                        strict: bool) -> tuple[dict[str, Mapping[str, Any]], tuple[str, ...]]:
    """DeepSeek-V4's rope dicts as HF's ``DeepseekV4Config.__post_init__`` builds them.

    ``main`` (sliding-window layers): ``default`` at the top-level ``rope_theta``;
    ``compress`` (compressed layers): the config's rope dict at ``compress_rope_theta``, with
    ``attention_factor`` 1.0 unless given when it is YaRN. Both rotate
    ``partial_rotary_factor`` (else ``qk_rope_head_dim / head_dim``) of ``head_dim``.
    Returns the two dicts and the keys HF does not use (``mscale``, ``mscale_all_dim`` beside
    the injected attention factor).
    """
    if cfg.get("head_dim") is None:
        raise ValueError("config is missing the key 'head_dim', which DeepSeek-V4 (model_type 'deepseek_v4') needs: "
                         "RoPE turns the last head_dim * partial_rotary_factor channels of each head (HF's "
                         "DeepseekV4Config defaults head_dim to 512; give it)")
    if isinstance(params.get("main"), Mapping) and isinstance(params.get("compress"), Mapping):
        for key in params:
            if key not in ("main", "compress"):
                _unknown(f"{where}[{key!r}]={params[key]!r} is not used: HF's DeepseekV4Config keeps only the "
                         "'main' and 'compress' entries of a nested rope dict", strict)
        for top, label in (("rope_theta", "main"), ("compress_rope_theta", "compress")):
            nested = params[label].get("rope_theta")
            if cfg.get(top) is not None and nested is not None and cfg[top] != nested:
                _unknown(f"config[{top!r}]={cfg[top]!r} is not used: the nested {where}[{label!r}]['rope_theta']="
                         f"{nested!r} is (HF's DeepseekV4Config keeps a nested rope dict as it is)", strict)
        return {"main": params["main"], "compress": params["compress"]}, ()
    head = _int("config", "head_dim", cfg["head_dim"], minimum=2)
    if cfg.get("partial_rotary_factor") is not None:
        prf = cfg["partial_rotary_factor"]
    elif cfg.get("qk_rope_head_dim") is not None:
        prf = _int("config", "qk_rope_head_dim", cfg["qk_rope_head_dim"]) / head
    else:
        prf = DEEPSEEK_V4_PARTIAL
    theta = cfg.get("rope_theta", 10000.0)
    flat = {k: v for k, v in params.items() if k not in ("main", "compress")}
    for key, used in (("rope_theta", cfg.get("compress_rope_theta", DEEPSEEK_V4_COMPRESS_THETA)),
                      ("partial_rotary_factor", prf)):
        if flat.get(key) is not None and flat[key] != used:
            _unknown(f"{where}[{key!r}]={flat[key]!r} is not used: HF's DeepseekV4Config sets the compressed "
                     f"layers' {key} to {used!r} (sliding layers: rope_theta={theta!r})", strict)
    rt = flat.get("rope_type", flat.get("type", "default")) or "default"
    compress = {**flat, "rope_theta": cfg.get("compress_rope_theta", DEEPSEEK_V4_COMPRESS_THETA),
                "partial_rotary_factor": prf, "rope_type": rt}
    compress.pop("type", None)
    ignored: tuple[str, ...] = ()
    if rt in ("yarn", "deepseek_yarn") and compress.get("attention_factor") is None:
        # HF: the V4 reference does not multiply cos/sin by YaRN's mscale
        compress["attention_factor"] = 1.0
        ignored = tuple(k for k in ("mscale", "mscale_all_dim") if compress.pop(k, None) is not None)
    main = {"rope_type": "default", "rope_theta": theta, "partial_rotary_factor": prf}
    return {"main": main, "compress": compress}, ignored


# ----------------------------------------------------------------------------------------
# parsing


def parse_rope_config(config: Mapping[str, Any], *, layer_type: str | None = None,
                      strict: bool = False, layer: int | None = None, factor: float | None = None,
                      yarn_engine: str = "hf") -> RopeSpec:
    r"""Read and check the rope fields of a model config (HF ``config.json`` as a dict).

    Parameters
    ----------
    config : Mapping
        The config (or its ``text_config``); see the module docstring for the keys read.
    layer_type : str, optional
        For per-layer-type configs (Gemma 3: ``"full_attention"``, ``"sliding_attention"``):
        which entry to read. Required there, not allowed elsewhere. ``"full_attention"``
        also makes a ``global_head_dim`` in the config the head dim (Gemma 4).
    strict : bool, default False
        What to do with a key the parser does not understand (in the rope dict, for its
        ``rope_type``; or at the top level, a key naming ``rope``/``rotary`` that nothing
        reads): warn with :class:`UnknownConfigKeyWarning` (default) or raise
        :class:`UnknownConfigKeyError`. Either way the key is named with its rope type.
    layer : int, optional
        For configs with a per-layer ``layer_rope_theta`` (Granite SWA: each layer's base,
        0 for NoPE): which layer. Needed only when the non-zero bases differ. Likewise for
        Molmo2's ``rope_scaling_layers`` (the listed layers use the rope dict's scaling, the
        others HF's unscaled ``default`` ladder at the same base): needed when some layers are
        unscaled.
    factor : float, optional
        For vLLM's multi-factor linear RoPE (a ``linear`` rope dict whose ``factor`` is a list:
        one cos/sin block per LoRA scaling factor): which of the listed factors. Required
        there, not allowed elsewhere.
    yarn_engine : {"hf", "vllm", "llama.cpp"}, default "hf"
        Whose reading of a ``yarn`` dict's ``extrapolation_factor`` to follow: HF's ``yarn``
        does not read it (it warns when it is not 1); vLLM's ``YaRNScalingRotaryEmbedding``
        (``yarn_scaling_rope.py`` @ ffdc985737c9; later versions take no such argument)
        scales the kept share of each pair by it; llama.cpp (``ext_factor``, written by
        ``convert_hf_to_gguf.py``) does too, with its own ramp, and drops YaRN's magnitude
        factor when it is 0. It must be in [0, 1].

    Returns
    -------
    RopeSpec

    Raises
    ------
    TypeError, ValueError
        Naming the key, the value and what is allowed: unknown ``rope_type``, missing
        required key, factor < 1, ``high_freq_factor <= low_freq_factor``, factor lists of
        the wrong length, ``mrope_section`` not summing to ``rotary_dim/2``, an odd head dim
        (naming ``head_dim``, ``qk_rope_head_dim``, ``global_head_dim`` or ``hidden_size //
        num_attention_heads``, whichever gave it), a ``partial_rotary_factor`` giving an odd
        or zero rotary dim, non-finite values (integer fields included).

    UnknownConfigKeyError
        Under ``strict=True``, a key not understood (a subclass of :class:`ValueError`).

    Warns
    -----
    UnknownConfigKeyWarning
        A key not understood (see ``strict``); the result does not use it.
    UserWarning
        A YaRN ``beta_slow`` greater than ``beta_fast`` (the ramp runs backwards; HF logs a
        warning and computes on, and so does this); a ``llama3`` ``low_freq_factor ==
        high_freq_factor`` (no blended band: HF warns and computes the two-band step, and so
        does this).

    Examples
    --------
    >>> spec = parse_rope_config({"head_dim": 128, "rope_theta": 500000.0,
    ...     "max_position_embeddings": 131072,
    ...     "rope_scaling": {"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0,
    ...                      "high_freq_factor": 4.0, "original_max_position_embeddings": 8192}})
    >>> spec.rope_type, spec.rotary_dim, spec.factor
    ('llama3', 128, 8.0)
    >>> parse_rope_config({"head_dim": 64, "rope_scaling": {"type": "yarnn", "factor": 4}})
    Traceback (most recent call last):
    ValueError: config['rope_scaling']['rope_type']='yarnn' is not allowed; use one of 'default', 'linear', 'ntk', 'dynamic', 'yarn', 'longrope', 'llama3', 'proportional', 'axial', 'telechat3-yarn', 'openpangu' (did you mean 'yarn'?)
    >>> parse_rope_config({"head_dim": 64, "rope_scaling": {"type": "linear", "factor": 2,
    ...                    "low_freq_factor": 1}}, strict=True)
    Traceback (most recent call last):
    pe_symbolic.numeric.config.UnknownConfigKeyError: config['rope_scaling']['low_freq_factor']=1 is not understood for rope_type 'linear' and is not used; the keys this type reads: factor, llama_4_scaling_beta, mrope_interleaved, mrope_section, partial_rotary_factor, rope_theta, rope_type
    """
    if not isinstance(config, Mapping):
        raise TypeError(f"config must be a mapping (a model's config.json as a dict); got {type(config).__name__}")
    if not isinstance(strict, bool):
        raise TypeError(f"strict={strict!r} must be True or False")
    yarn_engine = check_choice("yarn_engine", yarn_engine, YARN_ENGINES)
    normalized = normalize(config)
    if normalized is not config:  # a NormalizedConfig passed in (describe) has said its notices already
        emit_notices(normalized, strict)
    cfg: Mapping[str, Any] = normalized.for_layer_type(layer_type)
    if chatglm_2d(cfg, strict):
        return _chatglm_6b(cfg, layer_type, layer, factor)
    _check_top_keys(cfg, strict)
    where, params = _rope_dicts(cfg)
    v4 = cfg.get("model_type") == "deepseek_v4"
    v4_ignored: tuple[str, ...] = ()
    if v4:
        params, v4_ignored = _deepseek_v4_params(cfg, where, params, strict)
        where = f"{where} (as HF's DeepseekV4Config reads it)"
        if layer_type in DEEPSEEK_V4_LABELS:
            layer_type = DEEPSEEK_V4_LABELS[layer_type]
        elif layer_type is None:
            raise ValueError("DeepSeek-V4 (model_type 'deepseek_v4') has two RoPEs: pass layer_type='main' "
                             "(sliding_attention layers, rope_theta) or 'compress' (compressed_sparse_attention / "
                             "heavily_compressed_attention layers, compress_rope_theta); HF's layer types are "
                             "accepted too")
    if "rope_local_base_freq" in cfg and not _per_layer(params):
        params = _gemma_layers(cfg, params)
        where = "config (Gemma 3 fields)"
    if _per_layer(params):
        types = ", ".join(repr(t) for t in params)
        if layer_type is None:
            raise ValueError(f"{where} has one entry per layer type ({types}); pass layer_type= one of them")
        if layer_type not in params:
            raise ValueError(f"layer_type={layer_type!r} is not in {where}; the config's layer types are {types}")
        where = f"{where}[{layer_type!r}]"
        params = params[layer_type]
        if params is None:
            raise ValueError(
                f"{where} is null: layers of type {layer_type!r} have no RoPE (NoPE), so there are no "
                "frequencies to compute"
            )
    elif layer_type is not None:
        raise ValueError(
            f"layer_type={layer_type!r} was given, but {where} is one dict for every layer "
            "(no per-layer-type entries); omit layer_type"
        )
    spec = _parse_params(cfg, where, params, layer_type, strict, factor=factor, yarn_engine=yarn_engine)
    ix = indexer_layout(cfg, strict)
    if ix is not None:
        spec = dataclasses.replace(spec, indexer_layout=ix)
    if v4:
        # HF's DeepSeek-V4 apply_rotary_pos_emb: interleaved pairs on the last rotary_dim channels
        spec = dataclasses.replace(spec, rotary_channels="trailing",
                                   ignored=spec.ignored + (v4_ignored if layer_type == "compress" else ()))
    if cfg.get("rope_scaling_layers") is not None and cfg.get("model_type") in ("molmo2_text", "molmo2"):
        return _scaling_layers(cfg, spec, layer)
    return _layer_theta(cfg, spec, layer)


def _chatglm_6b(cfg: Mapping[str, Any], layer_type: str | None, layer: int | None, factor: object) -> RopeSpec:
    """ChatGLM-6B (``position_encoding_2d``): two blocks of ``head_dim / 2`` channels, each plain
    RoPE (base 10000, the ladder over ``head_dim / 2``, split halves), block 0 turned by the
    token position, block 1 by the block position (THUDM ``modeling_chatglm.py``)."""
    for name, value in (("layer_type", layer_type), ("layer", layer), ("factor", factor)):
        if value is not None:
            raise ValueError(f"{name}={value!r} was given, but ChatGLM-6B (position_encoding_2d) has one RoPE for "
                             f"every layer; omit {name}")
    head_dim, _ = chatglm_head_dim(cfg)
    return RopeSpec(rope_type="default", rope_theta=CHATGLM_BASE, head_dim=head_dim, rotary_dim=head_dim // 2,
                    position_blocks=2)


def scaling_layer_groups(cfg: Mapping[str, Any]) -> tuple[tuple[int, ...], tuple[int, ...]] | None:
    """Molmo2's ``rope_scaling_layers``: (scaled layers, unscaled layers), or ``None`` when the
    config has none, or does not say how many layers it has (``num_hidden_layers``)."""
    rsl, n = cfg.get("rope_scaling_layers"), cfg.get("num_hidden_layers")
    if rsl is None or cfg.get("model_type") not in ("molmo2_text", "molmo2"):
        return None
    if isinstance(rsl, (str, bytes)) or not isinstance(rsl, Sequence):
        raise TypeError(f"config['rope_scaling_layers']={rsl!r} must be a list of layer indices")
    idx = tuple(_int("config", "rope_scaling_layers", v, minimum=0, index=q) for q, v in enumerate(rsl))
    if not isinstance(n, numbers.Integral) or isinstance(n, bool):
        return None
    bad = [v for v in idx if v >= n]
    if bad:
        raise ValueError(f"config['rope_scaling_layers'] names layer {bad[0]}, but num_hidden_layers = {n}")
    return tuple(sorted(set(idx))), tuple(i for i in range(int(n)) if i not in idx)


def _scaling_layers(cfg: Mapping[str, Any], spec: RopeSpec, layer: int | None) -> RopeSpec:
    """Molmo2 (HF's ``Molmo2TextModel``): layers in ``rope_scaling_layers`` use the rope dict's
    scaling, the others ``Molmo2RotaryEmbedding(scaled=False)``, the default ladder over
    ``head_dim`` at the same base."""
    groups = scaling_layer_groups(cfg)
    rsl = [int(v) for v in cfg["rope_scaling_layers"]]
    if layer is None:
        if spec.rope_type == "default" or (groups is not None and not groups[1]):
            return spec  # every layer scaled, or nothing to scale
        shown = "the others" if groups is None else f"layers {list(groups[1])}"
        raise ValueError(f"config['rope_scaling_layers'] scales only layers {rsl} (rope_type {spec.rope_type!r}); "
                         f"{shown} use HF's unscaled default ladder: pass layer= (the layer index) to say which")
    if isinstance(layer, bool) or not isinstance(layer, numbers.Integral) or layer < 0:
        raise ValueError(f"layer={layer!r} must be a non-negative integer (a layer index)")
    n = cfg.get("num_hidden_layers")
    if isinstance(n, numbers.Integral) and not isinstance(n, bool) and layer >= n:
        raise ValueError(f"layer={layer!r} must be < num_hidden_layers = {n}")
    if int(layer) in rsl or spec.rope_type == "default":
        return spec
    if spec.freq_dim is not None or spec.rotary_dim != spec.head_dim:
        raise ValueError(f"layer {layer} is outside config['rope_scaling_layers']: HF's unscaled table rotates the "
                         f"whole head_dim = {spec.head_dim}, but the config rotates {spec.rotary_dim} channels; "
                         "not supported")
    return RopeSpec(rope_type="default", rope_theta=spec.rope_theta, head_dim=spec.head_dim,
                    rotary_dim=spec.head_dim, max_position_embeddings=spec.max_position_embeddings,
                    layer_type=spec.layer_type, ignored=spec.ignored)


def _layer_theta(cfg: Mapping[str, Any], spec: RopeSpec, layer: int | None) -> RopeSpec:
    """Apply ``layer_rope_theta`` (HF's Granite SWA / MuseSpark: one base per layer, 0 = NoPE)."""
    lrt = cfg.get("layer_rope_theta")
    if lrt is None:
        if layer is not None:
            raise ValueError(f"layer={layer!r} was given, but the config has no 'layer_rope_theta' (nor Molmo2's "
                             "'rope_scaling_layers'); omit layer")
        return spec
    if isinstance(lrt, (str, bytes)) or not isinstance(lrt, Sequence) or not lrt:
        raise TypeError(f"config['layer_rope_theta']={lrt!r} must be a non-empty list of bases (0 for NoPE)")
    thetas = [_real("config", "layer_rope_theta", v, minimum=0.0, index=q) for q, v in enumerate(lrt)]
    marks_only = cfg.get("model_type") in LAYER_THETA_MARKS_ONLY
    if layer is not None:
        if isinstance(layer, bool) or not isinstance(layer, numbers.Integral) or not 0 <= layer < len(thetas):
            raise ValueError(f"layer={layer!r} must be an integer in [0, {len(thetas)}) "
                             "(an index into config['layer_rope_theta'])")
        th = thetas[int(layer)]
        if th == 0:
            raise ValueError(f"config['layer_rope_theta'][{layer}] = 0: layer {layer} has no RoPE (NoPE), so there "
                             "are no frequencies to compute")
        if marks_only or th == spec.rope_theta:
            return spec
        if th <= 1:
            raise ValueError(f"config['layer_rope_theta'][{layer}]={lrt[layer]!r} must be 0 (NoPE) or > 1")
        return dataclasses.replace(spec, rope_theta=th)
    bases = sorted({t for t in thetas if t})
    if not marks_only and bases and bases != [spec.rope_theta]:
        raise ValueError(f"config['layer_rope_theta'] gives the layers different bases {bases} (0 = NoPE): "
                         "pass layer= (the layer index) to say which")
    return spec


def _rope_type_of(cfg: Mapping[str, Any], where: str, p: Mapping[str, Any]) -> tuple[str, object]:
    """(the rope type read, the type as written): aliases resolved, HF's axial default applied."""
    raw_rt = rt = p.get("rope_type", p.get("type", "default"))
    if "rope_type" in p and "type" in p and p["type"] != p["rope_type"]:
        raise ValueError(f"{where} has rope_type={p['rope_type']!r} and type={p['type']!r}; they must agree")
    if rt is None:
        rt = "default"
    rt = ROPE_TYPE_ALIASES.get(rt, rt) if isinstance(rt, str) else rt
    rope_type = check_choice(f"{where}['rope_type']", rt, ROPE_TYPES)
    model_type = cfg.get("model_type")
    if rope_type == "default" and model_type in AXIAL_MODEL_TYPES and p.get("mrope_section") is None:
        rope_type = "axial"  # HF's default_rope_type for these vision configs
    return rope_type, raw_rt


def _geometry(cfg: Mapping[str, Any], where: str, p: Mapping[str, Any], rope_type: str, layer_type: str | None,
              strict: bool) -> tuple[float, float, int, int, int | None]:
    """(base, partial rotary factor, head dim, rotary dim, exponent d when it differs): the
    keys every rope type reads, with GPT-J's ``rotary_dim``, axial and odd partial dims."""
    model_type = cfg.get("model_type")
    def pick(key: str, *top: str, default: Any = None) -> tuple[str, str, Any]:
        """(where, key, value): the rope dict's value, else the first top-level one, else default."""
        if p.get(key) is not None:
            return where, key, p[key]
        for t in top:
            if cfg.get(t) is not None:
                return "config", t, cfg[t]
        return where, key, default

    theta = _real(*pick("rope_theta", "rope_theta", "rotary_emb_base", default=10000.0),
                  minimum=1.0, strict=True, what=" (the RoPE base, > 1)")
    top_prf = cfg.get("partial_rotary_factor", cfg.get("rotary_pct"))
    if p.get("partial_rotary_factor") is not None and top_prf is not None and top_prf != p["partial_rotary_factor"]:
        raise ValueError(
            f"config['partial_rotary_factor']={top_prf!r} and {where}['partial_rotary_factor']="
            f"{p['partial_rotary_factor']!r} disagree; keep one"
        )
    prf_where, prf_key, prf_raw = pick("partial_rotary_factor", "partial_rotary_factor", "rotary_pct", default=1.0)
    prf = _real(prf_where, prf_key, prf_raw, minimum=0.0, strict=True,
                what=" (the fraction of each head that rotates, in (0, 1])")
    if prf > 1:
        raise ValueError(f"{prf_where}[{prf_key!r}]={prf_raw!r} is not allowed: it must be in (0, 1]")
    prf_given = any(x is not None for x in (p.get("partial_rotary_factor"), cfg.get("partial_rotary_factor"),
                                            cfg.get("rotary_pct")))
    head_dim, head_src = _head_dim(cfg, layer_type, prf_given=prf_given, strict=strict)
    if head_dim < 2 or head_dim % 2:
        raise ValueError(f"{head_src} must be a positive even number (RoPE turns pairs of channels)")
    freq_dim: int | None = None
    top_rd = cfg.get("rotary_dim")
    if top_rd is not None and cfg.get("model_type") in ROTARY_DIM_IGNORED_BY_HF:
        _unknown(f"config['rotary_dim']={top_rd!r} is not read by HF's rotary embedding for model_type "
                 f"{cfg.get('model_type')!r} (it rotates int(head_dim * partial_rotary_factor) channels); the parser "
                 "follows HF and does not use it", strict)
        top_rd = None
    if top_rd is not None and prf_raw != 1.0:
        raise ValueError(
            f"config['rotary_dim']={top_rd!r} and {prf_where}[{prf_key!r}]={prf_raw!r} both set the rotary "
            "dim; keep one"
        )
    if rope_type in ("proportional", "axial"):
        rotary_dim = head_dim
        if rope_type == "axial" and model_type in AXIAL_3D_MODEL_TYPES:
            # MiniMax-M3-VL's vision tower: one ladder over spatial = 2 * ((head_dim // 3) // 2) for
            # each of t, h, w; the first 3 * spatial channels rotate, the rest pass through
            freq_dim = 2 * ((head_dim // 3) // 2)
            if freq_dim < 2:
                raise ValueError(f"{head_src} is too small for a 3-axis (t, h, w) axial RoPE: "
                                 "2 * ((head_dim // 3) // 2) must be >= 2")
            rotary_dim = 3 * freq_dim
        elif rope_type == "axial" and model_type != "pixtral":
            freq_dim = head_dim // 2  # HF's spatial_dim: the ladder is shared by height and width
        if top_rd is not None:
            raise ValueError(f"config['rotary_dim']={top_rd!r} is not allowed with rope_type {rope_type!r}")
    elif top_rd is not None:
        # GPT-J: the first rotary_dim channels rotate, with exponents -2i/rotary_dim
        rotary_dim = _int("config", "rotary_dim", top_rd, minimum=2)
        if rotary_dim % 2 or rotary_dim > head_dim:
            raise ValueError(f"config['rotary_dim']={top_rd!r} must be an even number <= head_dim = {head_dim}")
    else:
        # head_dim is even, so only a partial_rotary_factor < 1 the config gives can land here
        rotary_dim = int(head_dim * prf)
        if rotary_dim <= 0:
            raise ValueError(
                f"{prf_where}[{prf_key!r}]={prf_raw!r} gives rotary dim int({head_dim} * {prf_raw!r}) = "
                f"{rotary_dim}; it must be positive"
            )
        if rotary_dim % 2:
            # HF: inv_freq = base ** -(arange(0, dim, 2) / dim) has ceil(dim/2) entries, so the
            # odd dim stays in the exponent and one more channel rotates (rounded up)
            freq_dim, rotary_dim = rotary_dim, rotary_dim + 1
    return theta, prf, head_dim, rotary_dim, freq_dim


def _sections(cfg: Mapping[str, Any], where: str, p: Mapping[str, Any], rope_type: str, raw_rt: object,
              rotary_dim: int, kw: dict[str, Any], strict: bool) -> None:
    """M-RoPE (``mrope_section``, each model's placement) and HunyuanVL's ``xdrope_section``, into ``kw``."""
    model_type = cfg.get("model_type")
    if rope_type == "openpangu":
        return  # its reader placed the sections (openPangu's greedy interleave)
    section = p.get("mrope_section")
    xd = p.get("xdrope_section")
    if xd is not None or (raw_rt == "xdrope" and section is not None):
        # HunyuanVL: 4 axes; xdrope_section is HF's legacy alias of mrope_section
        if xd is not None and section is not None and [float(v) for v in xd] != [float(v) for v in section]:
            raise ValueError(f"{where} has xdrope_section={xd!r} and mrope_section={section!r}; they must agree")
        sec = xd if xd is not None else section
        key = "xdrope_section" if xd is not None else "mrope_section"
        if isinstance(sec, (str, bytes)) or not isinstance(sec, Sequence) or len(sec) < 2:
            raise ValueError(f"{where}[{key!r}]={sec!r} must be a list of pair counts, one per axis")
        vals = tuple(_int(where, key, v, minimum=0, index=q) for q, v in enumerate(sec))
        if sum(vals) != rotary_dim // 2:
            raise ValueError(f"{where}[{key!r}]={list(sec)!r} sums to {sum(vals)}; it must sum to rotary_dim/2 = "
                             f"{rotary_dim // 2}")
        kw["xdrope_section"] = vals
        section = None
    if section is not None and rope_type == "axial":
        raise ValueError(f"{where} has rope_type 'axial' (HF's 2-D vision RoPE) and an 'mrope_section'; "
                         "an M-RoPE text config uses rope_type 'default'")
    placement = HF_MROPE_PLACEMENT.get(model_type) if rope_type != "axial" else None  # type: ignore[arg-type]
    if placement == "ernie4_5_vl" and rope_type != "default":
        raise ValueError(f"{where}['rope_type']={raw_rt!r}: HF's Ernie 4.5 VL (model_type {model_type!r}) accepts only "
                         "the 'default' rope type (Ernie4_5_VLMoeTextRotaryEmbedding raises on any other)")
    if section is None and placement is not None and model_type in HF_MROPE_DEFAULT_SECTIONS:
        default = HF_MROPE_DEFAULT_SECTIONS[model_type]  # type: ignore[index]
        if sum(default) == rotary_dim // 2:
            section = default
        else:  # HF's split fails there (contiguous), or leaves the extra pairs to t (interleaved): not placed here
            _unknown(f"{where} has no 'mrope_section', and the default of HF's rotary embedding for model_type "
                     f"{model_type!r}, {list(default)} ({placement} placement), sums to {sum(default)}, not "
                     f"rotary_dim/2 = {rotary_dim // 2}: the parser reads no M-RoPE sections (positions of one axis "
                     "only; the frequencies are HF's); give the config's mrope_section", strict)
    if section is not None:
        kw["mrope_section"] = _mrope_section(where, section, rotary_dim)
        inter = p.get("mrope_interleaved", False)
        if not isinstance(inter, bool):
            raise TypeError(f"{where}['mrope_interleaved']={inter!r} must be true or false")
        if model_type in BAILING_MODEL_TYPES and placement is None:
            # vLLM's and SGLang's BailingMRotaryEmbedding (HF's BailingHybridRotaryEmbedding reads no
            # mrope_section): h on even, w on odd pairs of the first h + w, then t
            check_bailing(where, raw_rt, rope_type, kw["mrope_section"])
            if inter:
                kw["ignored"] = kw["ignored"] + ("mrope_interleaved",)  # Bailing's placement does not read it
            kw["mrope_rule"], kw["mrope_interleaved"] = "bailing", False
            return
        if placement is not None:
            if "mrope_interleaved" in p and inter != (placement == "interleaved"):
                kw["ignored"] = kw["ignored"] + ("mrope_interleaved",)  # HF's code for this model never reads it
            inter = placement == "interleaved"
            if placement == "ernie4_5_vl":
                try:
                    mrope_rule_axes(placement, kw["mrope_section"])
                except ValueError as exc:
                    raise ValueError(f"{where}: {exc}") from None
                kw["mrope_rule"] = placement
        kw["mrope_interleaved"] = inter
        if inter:
            _check_interleavable(where, kw["mrope_section"])


def _parse_params(cfg: Mapping[str, Any], where: str, p: Mapping[str, Any], layer_type: str | None,
                  strict: bool = False, *, factor: object = None, yarn_engine: str = "hf") -> RopeSpec:
    """The shared part of every rope type (type, unread keys, base, dims, required keys, Llama 4's
    query scale, M-RoPE sections) around the type's own reader (``READERS``)."""
    rope_type, raw_rt = _rope_type_of(cfg, where, p)
    ntk_alpha = rope_type == "dynamic" and bool(p.get("alpha"))
    ignored = _check_rope_keys(cfg, where, p, rope_type, raw_rt, "ntk_alpha" if ntk_alpha else rope_type, strict)
    theta, prf, head_dim, rotary_dim, freq_dim = _geometry(cfg, where, p, rope_type, layer_type, strict)
    from ._checks import MAX_D

    if head_dim > MAX_D:
        raise ValueError(f"head_dim={head_dim} is too large: the numeric core accepts head dims <= {MAX_D} (MAX_D)")
    max_pos = cfg.get("max_position_embeddings")
    if max_pos is not None:
        max_pos = _int("config", "max_position_embeddings", max_pos)

    for key in _REQUIRED.get(rope_type, ()):
        if ntk_alpha and key == "factor":
            continue
        if p.get(key) is None:
            raise ValueError(f"{where} is missing the key {key!r}, which rope_type {rope_type!r} requires")

    kw: dict[str, Any] = {"ignored": ignored}
    if freq_dim is not None:
        kw["freq_dim"] = freq_dim
    if p.get("llama_4_scaling_beta") is not None:
        kw["llama_4_scaling_beta"] = _real(where, "llama_4_scaling_beta", p["llama_4_scaling_beta"], minimum=0.0,
                                           what=" (the query scale 1 + beta*log(1 + floor(pos/L)))")
        if p.get("original_max_position_embeddings") is None:
            raise ValueError(f"{where} has 'llama_4_scaling_beta' but no 'original_max_position_embeddings' "
                             "(the L of the query scale 1 + beta*log(1 + floor(pos/L)), which HF reads from there)")
        kw["original_max_position_embeddings"] = _int(where, "original_max_position_embeddings",
                                                      p["original_max_position_embeddings"])
    # the type's own keys: one small reader per rope type (HF's ROPE_INIT_FUNCTIONS is the model)
    READERS[rope_type](ReadContext(cfg=cfg, where=where, p=p, rope_type=rope_type, raw_type=raw_rt,
                                   head_dim=head_dim, rotary_dim=rotary_dim, freq_dim=freq_dim, max_pos=max_pos,
                                   ntk_alpha=ntk_alpha, kw=kw, factor_choice=factor, yarn_engine=yarn_engine,
                                   strict=strict))
    if factor is not None and "factors" not in kw:
        raise ValueError(f"factor={factor!r} was given, but {where} has no factor list (vLLM's multi-factor linear "
                         "RoPE); omit factor")
    _sections(cfg, where, p, rope_type, raw_rt, rotary_dim, kw, strict)
    return RopeSpec(rope_type=rope_type, rope_theta=theta, head_dim=head_dim, rotary_dim=rotary_dim,
                    partial_rotary_factor=prf, max_position_embeddings=max_pos, layer_type=layer_type, **kw)


#: The layer type whose head dim Gemma 4-style configs give as ``global_head_dim`` (HF's
#: ``Gemma4TextConfig`` overrides ``head_dim`` with it for the ``full_attention`` layers).
GLOBAL_HEAD_DIM_LAYER = "full_attention"


#: HF config classes that set ``head_dim = qk_rope_head_dim`` (DeepSeek-style MLA, HF 5.24):
#: there ``qk_rope_head_dim`` wins over a ``head_dim`` key. Elsewhere (Mistral 4, DeepSeek-V4,
#: LongCat-Flash) HF keeps ``head_dim`` and a ``partial_rotary_factor`` picks the rotated part.
QK_ROPE_IS_HEAD_DIM: frozenset[str] = frozenset({
    "axk1", "axk2", "bailing_hybrid", "deepseek_v2", "deepseek_v3", "deepseek_v32", "glm5_next", "glm_moe_dsa",
    "hy_v4", "hy_v4_vl", "kimi_linear", "minicpm3", "mistral_large4", "mistral_large4_text", "sarvam_mla", "youtu"})
#: Model types whose HF rotary embedding ignores a ``rotary_dim`` their config carries
#: (HF 5.24 MiniMax-M3-VL text: ``compute_default_rope_parameters`` reads only
#: ``partial_rotary_factor``); elsewhere ``rotary_dim`` is the rotated width (GPT-J, CodeGen,
#: MiniMax-M2's legacy field, read as ``partial_rotary_factor = rotary_dim / head_dim``).
ROTARY_DIM_IGNORED_BY_HF: frozenset[str] = frozenset({"minimax_m3_vl_text", "minimax_m3_vl"})
#: Model types whose HF config keeps ``head_dim`` beside ``qk_rope_head_dim`` and rotates
#: ``int(head_dim * partial_rotary_factor)`` channels.
KEEP_HEAD_DIM: frozenset[str] = frozenset({"mistral4", "deepseek_v4", "longcat_flash"})
#: Model types whose HF config maps ``head_dim`` to another key (``attribute_map``).
HEAD_DIM_ALIASES: dict[str, str] = {"jetmoe": "kv_channels", "zamba": "attention_head_dim",
                                    "zamba2": "attention_head_dim"}
#: Model types whose HF rotary embedding divides another width than ``hidden_size`` by the heads
#: (HF 5.24 ``Qwen2VLVisionRotaryEmbedding``: ``config.embed_dim // config.num_attention_heads``;
#: its ``hidden_size`` is the language model's, the merger's output).
HEAD_DIM_WIDTH: dict[str, str] = {"qwen2_vl_vision": "embed_dim"}
#: Keys some configs use for the head dim: when one is present, ``head_dim`` is not, and its
#: value differs from ``hidden_size // num_attention_heads``, the parser warns (it cannot know).
_HEAD_DIM_LOOKALIKES = ("kv_channels", "attention_head_dim", "head_size", "hidden_size_per_head", "d_head",
                        "dim_head")


def _head_dim(cfg: Mapping[str, Any], layer_type: str | None = None, *, prf_given: bool = False,
              strict: bool = False) -> tuple[int, str]:
    """The head dim and where it comes from (``"config['head_dim']=64"``), for error messages."""
    mt = cfg.get("model_type")
    keys: tuple[str, ...] = ("qk_rope_head_dim", "head_dim")
    both = cfg.get("head_dim") is not None and cfg.get("qk_rope_head_dim") is not None
    rule = getattr(cfg, "head_dim_from", None)  # HF's class, from the shipped table
    if both and rule is not None:
        if rule != "qk_rope_head_dim":
            keys = ("head_dim",)  # the class keeps its head_dim beside qk_rope_head_dim (Dots3, Mistral 4)
    elif both and prf_given and mt in KEEP_HEAD_DIM:
        keys = ("head_dim",)  # Mistral 4, DeepSeek-V4: head_dim * partial_rotary_factor, as HF
    elif both and prf_given and mt not in QK_ROPE_IS_HEAD_DIM and cfg["head_dim"] != cfg["qk_rope_head_dim"]:
        _unknown(f"config has head_dim={cfg['head_dim']!r}, qk_rope_head_dim={cfg['qk_rope_head_dim']!r} and a "
                 f"partial_rotary_factor, and model_type {mt!r} is not one whose HF class the parser knows: it "
                 "takes qk_rope_head_dim as the head dim (DeepSeek's rule); Mistral 4 / DeepSeek-V4 take head_dim",
                 strict)
    if mt in HEAD_DIM_ALIASES and cfg.get("head_dim") is None:
        keys = keys + (HEAD_DIM_ALIASES[mt],)
    if layer_type == GLOBAL_HEAD_DIM_LAYER:
        keys = ("global_head_dim",) + keys
    for key in keys:
        if cfg.get(key) is not None:
            src = f"config[{key!r}]={cfg[key]!r}"
            if key == "global_head_dim":
                src += f" (the head dim of {GLOBAL_HEAD_DIM_LAYER!r} layers)"
            return _int("config", key, cfg[key]), src
    width = HEAD_DIM_WIDTH.get(mt, "hidden_size")  # type: ignore[arg-type]
    hidden, heads = cfg.get(width), cfg.get("num_attention_heads")
    if hidden is None or heads is None:
        missing = [k for k, v in ((width, hidden), ("num_attention_heads", heads)) if v is None]
        raise ValueError(
            f"config is missing the key(s) {', '.join(map(repr, missing))}: the head dimension comes "
            f"from 'head_dim' or {width} // num_attention_heads"
        )
    h, n = _int("config", width, hidden), _int("config", "num_attention_heads", heads)
    for key in _HEAD_DIM_LOOKALIKES:
        v = cfg.get(key)
        if _is_number(v) and v != h // n:
            _unknown(f"config[{key!r}]={v!r} may be the head dim, but the parser does not read it (model_type "
                     f"{mt!r}); it uses hidden_size // num_attention_heads = {h // n}: give 'head_dim' to say which",
                     strict)
    return h // n, f"head_dim = config[{width!r}] // config['num_attention_heads'] = {h} // {n} = {h // n}"


def _mrope_section(where: str, section: object, rotary_dim: int) -> tuple[int, int, int]:
    name = f"{where}['mrope_section']"
    if isinstance(section, (str, bytes)) or not isinstance(section, Sequence) or len(section) != 3:
        raise ValueError(f"{name}={section!r} must be three integers (pairs for t, h, w)")
    out = tuple(_int(where, "mrope_section", v, minimum=0, index=q) for q, v in enumerate(section))
    if sum(out) != rotary_dim // 2:
        raise ValueError(f"{name}={list(section)!r} sums to {sum(out)}; it must sum to rotary_dim/2 = {rotary_dim // 2}")
    return out  # type: ignore[return-value]


def _check_interleavable(where: str, sec: tuple[int, int, int]) -> None:
    from ..encodings.family import mrope_axes

    try:
        mrope_axes(sec, interleaved=True)
    except ValueError as exc:
        raise ValueError(f"{where}['mrope_section']={list(sec)!r} with mrope_interleaved: {exc}") from None


# ----------------------------------------------------------------------------------------
# frequencies


def _check_seq_len(seq_len: object) -> int | None:
    if seq_len is None:
        return None
    if isinstance(seq_len, bool) or not isinstance(seq_len, numbers.Integral) or int(seq_len) < 1:
        raise ValueError(f"seq_len={seq_len!r} must be a positive integer (the current sequence length) or None")
    return int(seq_len)


def rope_frequencies(
    config: Mapping[str, Any] | RopeSpec,
    *,
    seq_len: int | None = None,
    layer_type: str | None = None,
    yarn_length: str = "original",
    strict: bool = False,
    layer: int | None = None,
    factor: float | None = None,
    yarn_engine: str = "hf",
) -> RopeFrequencies:
    r"""Inverse frequencies and attention factor of a model's RoPE, from its config.

    Parameters
    ----------
    config : Mapping or RopeSpec
        A model's ``config.json`` as a dict (see the module docstring for the keys read),
        or a :class:`RopeSpec` from :func:`parse_rope_config`.
    seq_len : int, optional
        The current sequence length, for the types that depend on it: ``dynamic`` (the
        base grows once ``seq_len`` exceeds ``max_position_embeddings``) and ``longrope``
        (``long_factor`` once ``seq_len`` exceeds ``original_max_position_embeddings``,
        else ``short_factor``). Ignored by the other types. Default: no growth, short
        factors (HF's frequencies at initialisation); :func:`apply_rope` and
        :func:`rope_cos_sin` instead default it to the largest position + 1, the length
        HF's ``dynamic_rope_update`` uses.
    layer_type : str, optional
        Which entry of a per-layer-type config (Gemma 3, Gemma 4) to use; for
        ``"full_attention"`` a ``global_head_dim`` in the config is the head dim (Gemma 4).
    yarn_length : {"original", "max"}
        The length YaRN's correction range :math:`j(r)` is computed from:
        ``original_max_position_embeddings`` (current HF, the YaRN paper, default) or
        ``max_position_embeddings`` (some earlier HF releases, which computed the range from
        the extended length).
    strict : bool, default False
        Raise :class:`UnknownConfigKeyError` on a key the parser does not understand,
        instead of warning with :class:`UnknownConfigKeyWarning` (see
        :func:`parse_rope_config`).
    layer : int, optional
        The layer index, for a per-layer ``layer_rope_theta`` whose bases differ, or Molmo2's
        ``rope_scaling_layers`` (see :func:`parse_rope_config`).
    factor : float, optional
        Which factor of vLLM's multi-factor linear list (see :func:`parse_rope_config`).
    yarn_engine : {"hf", "vllm", "llama.cpp"}
        Whose reading of YaRN's ``extrapolation_factor`` (see :func:`parse_rope_config`).

    Returns
    -------
    RopeFrequencies
        ``(inv_freq, attention_factor)``: float64 inverse frequencies of length
        ``rotary_dim/2`` (``head_dim/2`` for ``proportional``) and a float.

    Raises
    ------
    TypeError, ValueError
        Bad config (see :func:`parse_rope_config`) or keyword.

    Warns
    -----
    UserWarning
        A YaRN ``beta_slow`` greater than ``beta_fast`` (see :func:`parse_rope_config`).

    Notes
    -----
    With :math:`\theta_i = b^{-2i/d}` (``b = rope_theta``, ``d`` the rotary dim,
    ``s = factor``, ``L = original_max_position_embeddings``):

    ========================  =================================================================
    ``rope_type``             :math:`\theta'_i`; attention factor
    ========================  =================================================================
    ``default``               :math:`\theta_i`; 1
    ``linear``                :math:`\theta_i/s`; 1
    ``ntk``                   :math:`(b s)^{-2i/d} / s^{2/d}` (vLLM's fixed NTK,
                              ``NTKScalingRotaryEmbedding`` without ``mixed_b``; not an
                              HF type); 1
    ``dynamic``               ladder of :math:`b' = b (s n/L' - (s-1))^{d/(d-2)}`,
                              :math:`n = \max(` ``seq_len``, :math:`L')`,
                              :math:`L'` = ``max_position_embeddings``; 1
    ``dynamic`` + ``alpha``   ladder of :math:`b' = b \alpha^{d/(d-2)}` (Hunyuan, HF's
                              ``ntk_alpha``: static, ``factor`` not read); 1
    ``axial``                 HF's 2-D vision RoPE: the ladder over :math:`D/2`
                              (``head_dim/4`` entries, each for a height and a width
                              pair); for Pixtral :math:`\theta_0, \theta_2, \dots` then
                              :math:`\theta_1, \theta_3, \dots` over :math:`D`; 1
    ``yarn``                  :math:`(\theta_i/s)\gamma_i + \theta_i(1-\gamma_i)`,
                              :math:`\gamma_i = \mathrm{clamp}((i-lo)/(hi-lo), 0, 1)`,
                              :math:`lo = \max(\lfloor j(\beta_{fast})\rfloor, 0)`,
                              :math:`hi = \min(\lceil j(\beta_{slow})\rceil, d-1)` (no
                              floor/ceil when ``truncate`` is false); :math:`0.1\ln s + 1`,
                              or the ``mscale`` ratio, or ``attention_factor``
    ``longrope``              :math:`\theta_i/\lambda_i`;
                              :math:`\sqrt{1 + \ln s/\ln L}` or ``attention_factor``,
                              or PhiMoE's ``short_mscale`` (``long_mscale`` with the
                              long factors)
    ``llama3``                by wavelength :math:`2\pi/\theta_i`: kept below
                              :math:`L/high`, :math:`/s` above :math:`L/low`, blended
                              between (no blend when ``low == high``: Llama 4); 1
    ``ntk`` + ``mixed_b``     :math:`\theta_i / e^{a (i+1)^\beta}`, :math:`a = \ln s/(d/2)^\beta`
                              (vLLM's mixed NTK; :math:`\beta = 1` is the fixed NTK
                              above); 1
    ``telechat3-yarn``        YaRN's :math:`\theta'_i` (vLLM's ``extrapolation_factor``
                              scaling :math:`1-\gamma_i`); :math:`(0.07\ln s + 1)` times
                              ``attn_factor``
    ``proportional``          :math:`b^{-2i/D}/s` for the first
                              ``int(partial_rotary_factor * D // 2)`` pairs, 0 after
                              (:math:`D` = head_dim, Gemma 4's
                              ``global_head_dim`` on full-attention layers); 1
    ========================  =================================================================

    Differences from HF worth knowing: HF computes in float32 and decides YaRN's and
    Llama 3's bands on float values; here every decision is exact. HF reads YaRN's
    ``truncate`` from the top-level rope dict even for per-layer configs; here it is read
    from the layer's own dict. HF's ``dynamic`` keeps the base of the longest length seen
    (until a length below ``max_position_embeddings`` resets it); here each call's base
    comes from its own ``seq_len``. A config with a ``model_type`` is first read as its HF
    config class holds it (class defaults for the keys it leaves out, ``attribute_map`` names,
    ``per_layer_config`` per layer type: ``pe_symbolic._hfconfig``); one without is read as
    given. DeepSeek's extra logit scale
    (``get_mscale(factor, mscale_all_dim)**2`` on the softmax scale) is not part of the
    attention factor: it belongs to the attention layer, and so does Ministral 3 / Mistral
    4's ``llama_4_scaling_beta`` (queries multiplied by :func:`llama4_query_scale`; the
    parser reads it into ``RopeSpec.llama_4_scaling_beta`` and :func:`describe` shows
    it). An odd ``int(head_dim * partial_rotary_factor)`` keeps the odd :math:`d` in the
    exponents and rotates one more channel, as HF does (:attr:`RopeSpec.exponent_dim`);
    ``ntk``, which HF does not have, is read as vLLM reads it and refuses an odd rotary dim.
    DeepSeek-V4 rotates the *last* ``rotary_dim`` channels in interleaved pairs
    (:attr:`RopeSpec.rotary_channels`); the frequencies here are its, and
    :func:`apply_rope` refuses ``config=`` for it (naming how to rotate the trailing slice).

    Examples
    --------
    >>> inv, af = rope_frequencies(model_config("llama-3.1-8b"))
    >>> inv.shape, float(inv[0]), af
    ((64,), 1.0, 1.0)
    >>> float(inv[-1] / (500000.0 ** (-126 / 128)))  # the lowest band is divided by 8
    0.125
    >>> rope_frequencies(model_config("qwen2.5-7b-yarn")).attention_factor
    1.1386294361119...
    """
    yarn_length = check_choice("yarn_length", yarn_length, YARN_LENGTHS)
    spec = config if isinstance(config, RopeSpec) else parse_rope_config(config, layer_type=layer_type,
                                                                         strict=strict, layer=layer, factor=factor,
                                                                         yarn_engine=yarn_engine)
    n = _check_seq_len(seq_len)
    values, attn = _exact_frequencies(spec, _seq_key(spec, n), yarn_length)
    inv = np.array([float(v) for v in values], dtype=np.float64)
    return RopeFrequencies(inv, float(attn))


def _seq_key(spec: RopeSpec, n: int | None) -> int | bool | None:
    """The part of ``seq_len`` a type depends on (so caching ignores the rest)."""
    if spec.rope_type == "dynamic" and spec.alpha is None:
        assert spec.max_position_embeddings is not None
        return max(n or 0, spec.max_position_embeddings)
    if spec.rope_type == "longrope":
        assert spec.original_max_position_embeddings is not None
        return bool(n is not None and n > spec.original_max_position_embeddings)
    return None


@functools.lru_cache(maxsize=256)
def _exact_frequencies(spec: RopeSpec, seq_key: int | bool | None, yarn_length: str = "original") -> tuple[tuple, Any]:
    """The inverse frequencies and attention factor at :data:`DPS` digits (mpmath), cached.

    ``seq_key`` is the clamped length for ``dynamic``, whether the long factors apply for
    ``longrope``, else ``None``. Each formula is lowered from its proved claim by
    :func:`pe_symbolic.numeric.lower.family_formula`.
    """
    import mpmath

    from .lower import family_formula

    t = spec.rope_type
    with mpmath.workdps(DPS):
        mp = mpmath.mpf
        b, d = mp(spec.rope_theta), spec.exponent_dim
        idx = [mp(q) for q in range(spec.pairs)]
        dm = mp(d)
        one = mp(1)
        attn: Any = one
        if t in ("default", "openpangu"):
            f = family_formula("default")
            vals = [f(q, dm, b) for q in idx]
            if spec.fope:
                vals = _fope_kept(spec, vals)
        elif t == "axial" and spec.freq_dim is not None:
            # HF's compute_axial_rope_parameters (all but Pixtral): the ladder over the spatial
            # dim head_dim/2, ceil(head_dim/4) entries, each turning a height and a width pair
            f = family_formula("default")
            vals = [f(mp(q), dm, b) for q in range((spec.freq_dim + 1) // 2)]
        elif t == "axial":
            # Pixtral's compute_axial_rope_parameters: the head_dim ladder, even pairs (height)
            # first, then odd pairs (width)
            f = family_formula("default")
            ladder = [f(q, dm, b) for q in idx]
            vals = ladder[0::2] + ladder[1::2]
        elif t == "dynamic" and spec.alpha is not None:
            # Hunyuan's fixed-alpha NTK (HF's ntk_alpha): the static NTK ladder with s = alpha
            f = family_formula("ntk")
            vals = [f(q, dm, b, mp(spec.alpha)) for q in idx]
        elif t == "linear":
            f = family_formula("linear")
            vals = [f(q, dm, b, mp(spec.factor)) for q in idx]
        elif t == "ntk":
            # vLLM's NTKScalingRotaryEmbedding (vllm/model_executor/layers/rotary_embedding/
            # ntk_scaling_rope.py, _compute_inv_freq; get_rope passes mixed_b=rope_scaling.get("mixed_b")).
            # With mixed_b: the ladder over the rotary dim, pair i divided by exp(a (i+1)^beta). Without:
            # base b*s, every inv_freq divided by s**(2/rotary_dim), i.e. (b s)^(-2i/d) / s^(2/d), which
            # ntk_mixed.endpoints proves is the mixed NTK at beta = 1: one lowered formula for both.
            # (Not the static NTK-aware base b s^(d/(d-2)), family_formula("ntk"), which keeps pair 0.)
            f = family_formula("ntk_mixed")
            beta = one if spec.mixed_b is None else mp(spec.mixed_b)
            vals = [f(q, dm, b, mp(spec.factor), beta) for q in idx]
        elif t == "dynamic":
            f = family_formula("dynamic")
            n, lmax = mp(seq_key), mp(spec.max_position_embeddings)
            vals = [f(q, dm, b, mp(spec.factor), n, lmax) for q in idx]
        elif t in YARN_TYPES:
            vals, attn = _yarn(spec, idx, dm, b, yarn_length)
        elif t == "longrope":
            f = family_formula("longrope")
            lam = spec.long_factor if seq_key else spec.short_factor
            assert lam is not None
            vals = [f(q, dm, b, mp(x)) for q, x in zip(idx, lam)]
            if spec.short_mscale is not None:
                attn = mp(spec.long_mscale if seq_key else spec.short_mscale)
            elif spec.attention_factor is not None:
                attn = mp(spec.attention_factor)
            else:
                attn = family_formula("longrope_attention")(mp(spec.factor), mp(spec.original_max_position_embeddings))
        elif t == "llama3" and spec.low_freq_factor == spec.high_freq_factor:
            # no blended band (Llama 4 Scout): divided by factor above L/low, kept below
            f = family_formula("default")
            s = mp(spec.factor)
            edge = 2 * mpmath.pi * mp(spec.low_freq_factor) / mp(spec.original_max_position_embeddings)
            vals = []
            for q in idx:
                v = f(q, dm, b)
                if v == edge:  # wavelength exactly L/low: HF's smooth factor is 0/0
                    raise ValueError("llama3 with low_freq_factor == high_freq_factor: a pair's wavelength equals "
                                     "original_max_position_embeddings / low_freq_factor exactly (HF gives NaN)")
                vals.append(v / s if v < edge else v)
        elif t == "llama3":
            f = family_formula("llama3")
            args = (mp(spec.factor), mp(spec.original_max_position_embeddings),
                    mp(spec.low_freq_factor), mp(spec.high_freq_factor))
            vals = [f(q, dm, b, *args) for q in idx]
        else:  # proportional
            f = family_formula("proportional")
            angles = int(spec.partial_rotary_factor * spec.head_dim // 2)
            s = mp(spec.factor if spec.factor is not None else 1.0)
            vals = [f(q, mp(spec.head_dim), b, s) if int(q) < angles else mp(0) for q in idx]
        return tuple(+v for v in vals), +attn


def _fope_kept(spec: RopeSpec, vals: list) -> list:
    """FoPE's kept frequencies (vLLM's / SGLang's ``FourierRotaryEmbedding._compute_inv_freq``):
    the first ``num_inv_freq``, else those above :math:`2\\pi / L` (decided on the 40-digit
    values; the engines decide in float32)."""
    import mpmath

    if spec.fope_num_inv_freq is not None:
        return vals[: spec.fope_num_inv_freq]
    assert spec.max_position_embeddings is not None
    bound = 2 * mpmath.pi / spec.max_position_embeddings
    kept = [v for v in vals if v > bound]
    if not kept:
        raise ValueError(f"FoPE keeps no frequency: none of the {len(vals)} exceeds 2*pi / max_position_embeddings "
                         f"= 2*pi / {spec.max_position_embeddings}")
    return kept


def _yarn(spec: RopeSpec, idx: list, dm: Any, b: Any, yarn_length: str) -> tuple[list, Any]:
    import mpmath

    from .lower import family_formula

    mp = mpmath.mpf
    s = mp(spec.factor)
    length = spec.original_max_position_embeddings if yarn_length == "original" else spec.max_position_embeddings
    if length is None:
        raise ValueError("yarn_length='max' needs 'max_position_embeddings' in the config")
    jr = family_formula("yarn_correction_dim")
    low = jr(mp(spec.beta_fast), dm, b, mp(length))
    high = jr(mp(spec.beta_slow), dm, b, mp(length))
    llamacpp = spec.ext_rule == "llama.cpp"
    if spec.truncate or llamacpp:  # llama.cpp's ggml_rope_yarn_corr_dims always floors / ceils
        low, high = mpmath.floor(low), mpmath.ceil(high)
    low, high = max(low, mp(0)), min(high, dm - 1)
    if llamacpp:
        # llama.cpp's rope_yarn_ramp: y = (i - low) / MAX(0.001, high - low)
        high = low + max(mp("0.001"), high - low)
    elif low == high:
        high += mp("0.001")  # HF's guard against a zero-width ramp
    ramp = family_formula("yarn_ramp")
    blend = family_formula("yarn")
    if spec.extrapolation_factor == 1:
        vals = [blend(q, dm, b, s, ramp(q, low, high)) for q in idx]
    else:
        # vLLM's YaRN: the kept share 1 - gamma is scaled by extrapolation_factor, so the blend's
        # interpolated share is 1 - e (1 - gamma)
        e = mp(spec.extrapolation_factor)
        vals = [blend(q, dm, b, s, 1 - e * (1 - ramp(q, low, high))) for q in idx]
    if llamacpp and spec.extrapolation_factor == 0:
        # llama.cpp's rope_yarn multiplies mscale by 1 + 0.1 ln(1/freq_scale) only when ext_factor != 0
        attn = mp(1)
    elif spec.rope_type == "telechat3-yarn":
        # vLLM's TeleChat3 get_mscale: 0.07 ln s + 1 (YaRN's 0.1 mu ln s + 1 with mu = 0.7), times attn_factor
        attn = family_formula("yarn_mscale")(s, mp(7) / 10) * mp(spec.attn_factor)
    elif spec.mscale_rule == "vllm":
        # vLLM's DeepseekScalingRotaryEmbedding: m(s, mscale) / m(s, mscale_all_dim) * attn_factor, defaults 1, 0
        ms = family_formula("yarn_mscale")
        num = mp(spec.mscale if spec.mscale is not None else 1)
        den = mp(spec.mscale_all_dim if spec.mscale_all_dim is not None else 0)
        attn = ms(s, num) / ms(s, den) * mp(spec.attn_factor)
    elif spec.attention_factor is not None:
        attn = mp(spec.attention_factor)
    elif spec.mscale and spec.mscale_all_dim:
        ms = family_formula("yarn_mscale")
        attn = ms(s, mp(spec.mscale)) / ms(s, mp(spec.mscale_all_dim))
    else:
        attn = family_formula("yarn_mscale")(s, mp(1))
    return vals, attn


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


# ----------------------------------------------------------------------------------------
# shipped model configs


@functools.lru_cache(maxsize=1)
def _model_files() -> dict[str, Mapping[str, Any]]:
    from importlib import resources  # (here: 8 ms of imports a numeric first call does not need)

    out: dict[str, Mapping[str, Any]] = {}
    folder = resources.files("pe_symbolic.numeric") / "models"
    for entry in sorted(folder.iterdir(), key=lambda e: e.name):
        if entry.name.endswith(".json"):
            data = json.loads(entry.read_text(encoding="utf-8"))
            out[data["name"]] = data
    return out


def model_configs() -> dict[str, str]:
    """The shipped model configs: name -> where the fields come from.

    >>> "llama-3.1-8b" in model_configs()
    True
    """
    return {name: data["source"] for name, data in _model_files().items()}


def model_config(name: str) -> dict[str, Any]:
    """The rope-relevant fields of a real model's ``config.json`` (a fresh dict).

    Parameters
    ----------
    name : str
        One of :func:`model_configs` (e.g. ``"llama-3.1-8b"``, ``"qwen2-vl-7b"``).

    Returns
    -------
    dict
        The fields, in the layout the model publishes them.

    Examples
    --------
    >>> model_config("gpt-neox-20b")["rotary_pct"]
    0.25
    >>> model_config("llama-3")
    Traceback (most recent call last):
    ValueError: name='llama-3' is not allowed; use one of ... (did you mean 'llama-3.1-8b'?)
    """
    files = _model_files()
    name = check_choice("name", name, tuple(files))
    return json.loads(json.dumps(files[name]["config"]))
