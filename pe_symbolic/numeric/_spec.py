"""The vocabulary of the RoPE config reader: rope types, HF's per-model-type tables, :class:`RopeSpec`.

Data only (and :func:`mrope_rule_axes`): every other module of the reader imports from here,
and this module imports none of them, so the readers form no import circle.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

__all__ = ["ROPE_TYPES", "RopeFrequencies", "RopeSpec", "mrope_rule_axes"]

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
#: vLLM's names for its ``DeepseekScalingRotaryEmbedding`` (YaRN with vLLM's mscale rule).
VLLM_DEEPSEEK_NAMES: tuple[str, ...] = ("deepseek_yarn", "deepseek_llama_scaling")

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
#: Model types whose HF rotary embedding is the memory attention's (SAM2-style video trackers:
#: ``memory_attention_hidden_size // (memory_attention_downsample_rate *
#: memory_attention_num_attention_heads)``, transformers 5.25 ``Sam2VideoVisionRotaryEmbedding``).
MEMORY_ATTENTION_TYPES: frozenset[str] = frozenset({"sam2_video", "edgetam_video", "sam3_tracker_video"})
#: Keys some configs use for the head dim: when one is present, ``head_dim`` is not, and its
#: value differs from ``hidden_size // num_attention_heads``, the parser warns (it cannot know).
_HEAD_DIM_LOOKALIKES = ("kv_channels", "attention_head_dim", "head_size", "hidden_size_per_head", "d_head",
                        "dim_head")



class RopeFrequencies(NamedTuple):
    """What :func:`rope_frequencies` returns: the inverse frequencies and the attention factor.

    A named pair: unpack it (``inv_freq, attention_factor = ...``) or use the fields; pass it
    whole as ``inv_freq=`` to :func:`apply_rope` to bring the attention factor along.

    >>> from pe_symbolic.numeric import rope_frequencies
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

    >>> from pe_symbolic.numeric import model_config, parse_rope_config
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


