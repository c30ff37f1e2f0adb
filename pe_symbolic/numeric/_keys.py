"""Which keys of a config the RoPE reader reads, checked in one place.

Every rope type's keys (``TYPE_KEYS``, the required ones), the top-level keys that name
RoPE, the keys of other position schemes, remote-code model types, the rope dict of a
config (``rope_parameters`` or ``rope_scaling``) and its type: a key nothing reads warns
with :class:`~pe_symbolic.numeric.UnknownConfigKeyWarning` (or raises under ``strict``),
naming the key, its value and what is read instead. The per-type readers
(``_rope_readers``) read the values; this module decides which keys
are read at all.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .._hfconfig import NormalizedConfig
from .._validate import check_choice
from ._config_base import _is_number, _unknown
from ._spec import AXIAL_MODEL_TYPES, ROPE_TYPE_ALIASES, ROPE_TYPES, VLLM_DEEPSEEK_NAMES
from ._variant_readers import FOPE_KEYS

__all__ = ["REMOTE_CODE_ROPE", "emit_notices"]

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
                                                  "step3p5": frozenset({"partial_rotary_factors", "yarn_only_types"}),
                                                  "step3p7": frozenset({"partial_rotary_factors", "yarn_only_types"}),
                                                  "molmo2_text": frozenset({"rope_scaling_layers"}),
                                                  "molmo2": frozenset({"rope_scaling_layers"})}
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


