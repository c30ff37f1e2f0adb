r"""Rotary frequencies from a model's ``config.json``: every ``rope_type`` that real models ship.

:func:`~pe_symbolic.numeric.rope_frequencies` reads the rope fields of a config the way Hugging
Face transformers' ``ROPE_INIT_FUNCTIONS`` do and returns the float64 inverse frequencies and
the attention factor. The formulas are the SymPy constructions of
:mod:`pe_symbolic.encodings.family`, lowered through :mod:`pe_symbolic.numeric.lower` under
their proved claims and evaluated at 40 significant digits; each frequency is then rounded
once to float64 (within half an ulp of the truth, within 1 ulp of the independent oracle
:func:`pe_symbolic.reference.rope_frequencies`). Discrete decisions (YaRN's floor/ceil and
clamp, Llama 3's bands, LongRoPE's switch) are made on the 40-digit values.

The reading is one path for every public reader, in modules that import one way:

* the config as its HF config class holds it (``pe_symbolic._hfconfig.normalize``: class
  defaults for the keys a sparse config leaves out, ``attribute_map`` names, legacy keys
  routed as the class routes them, the text part of a composite, ``per_layer_config``);
* which layers and sub-modules rotate, and which rope entry each reads
  (:mod:`~pe_symbolic.numeric._sites`: NoPE models, NoPE layers, indexers, compressors, MTP);
* the keys read, checked in one place (:mod:`~pe_symbolic.numeric._keys`), the family's rope
  dicts (:mod:`~pe_symbolic.numeric._families`: DeepSeek-V4's ``main`` / ``compress``,
  Step3p7's per-layer lists, Gemma 3's older fields, scalar siblings), the head and rotary dims
  (``_geometry``), one reader per rope type
  (``_rope_readers``, as HF's ``ROPE_INIT_FUNCTIONS``) and the engine
  variants (``_variant_readers``);
* the frequencies (``_frequencies``).

:func:`~pe_symbolic.numeric.read_program` gathers every site into one description; this
module's :func:`~pe_symbolic.numeric.parse_rope_config` and :func:`~pe_symbolic.numeric.rope_frequencies` read one site of it, and refuse
a selection HF does not rotate (a NoPE model or layer) with the reason. Bad input raises
:class:`ValueError` (or :class:`TypeError`) naming the key, the value and what is allowed.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping
from typing import Any

import numpy as np

from .._hfconfig import normalize
from .._validate import check_choice
from ._config_base import UnknownConfigKeyError, UnknownConfigKeyWarning
from ._frequencies import _check_seq_len, _exact_frequencies, _seq_key
from ._keys import emit_notices
from ._parse import read_spec
from ._sites import _uses_layer, plan_sites, select
from ._spec import (  # noqa: F401  (kept importable from here: their documented home)
    HF_MROPE_DEFAULT_SECTIONS,
    HF_MROPE_PLACEMENT,
    ROPE_TYPES,
    YARN_LENGTHS,
    RopeFrequencies,
    RopeSpec,
    mrope_rule_axes,
)
from ._variant_readers import YARN_ENGINES

__all__ = [
    "ROPE_TYPES",
    "RopeFrequencies",
    "RopeSpec",
    "UnknownConfigKeyError",
    "UnknownConfigKeyWarning",
    "model_config",
    "model_configs",
    "parse_rope_config",
    "rope_frequencies",
]


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
    if layer is not None and (isinstance(layer, bool) or not isinstance(layer, int) or layer < 0):
        raise ValueError(f"layer={layer!r} must be a non-negative integer (a layer index)")
    chosen = select(plan_sites(normalized, strict), layer_type=layer_type, layer=layer)
    if chosen and all(s.nope for s in chosen):
        what = (f"layer {layer} has" if layer is not None else f"layers of type {layer_type!r} have"
                if layer_type is not None else "the attention layers of this config have")
        why = next((s.nope for s in chosen if s.attends), chosen[0].nope)
        raise ValueError(f"{what} no RoPE (NoPE): {why}; there are no frequencies to compute "
                         "(read_program(config) shows every layer)")
    cfg = normalized.for_layer_type(layer_type)
    return read_spec(cfg, layer_type=layer_type, layer=layer if _uses_layer(normalized) else None, strict=strict,
                     factor=factor, yarn_engine=yarn_engine)


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
        or a :class:`RopeSpec` from :func:`~pe_symbolic.numeric.parse_rope_config`.
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
        :func:`~pe_symbolic.numeric.parse_rope_config`).
    layer : int, optional
        The layer index, for a per-layer ``layer_rope_theta`` whose bases differ, or Molmo2's
        ``rope_scaling_layers`` (see :func:`~pe_symbolic.numeric.parse_rope_config`).
    factor : float, optional
        Which factor of vLLM's multi-factor linear list (see :func:`~pe_symbolic.numeric.parse_rope_config`).
    yarn_engine : {"hf", "vllm", "llama.cpp"}
        Whose reading of YaRN's ``extrapolation_factor`` (see :func:`~pe_symbolic.numeric.parse_rope_config`).

    Returns
    -------
    RopeFrequencies
        ``(inv_freq, attention_factor)``: float64 inverse frequencies of length
        ``rotary_dim/2`` (``head_dim/2`` for ``proportional``) and a float.

    Raises
    ------
    TypeError, ValueError
        Bad config (see :func:`~pe_symbolic.numeric.parse_rope_config`) or keyword.

    Warns
    -----
    UserWarning
        A YaRN ``beta_slow`` greater than ``beta_fast`` (see :func:`~pe_symbolic.numeric.parse_rope_config`).

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
    4's ``llama_4_scaling_beta`` (queries multiplied by :func:`~pe_symbolic.numeric.llama4_query_scale`; the
    parser reads it into ``RopeSpec.llama_4_scaling_beta`` and :func:`~pe_symbolic.numeric.describe` shows
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

