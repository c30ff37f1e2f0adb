"""Reading the RoPE variants inference engines ship from a ``config.json`` (issue 34).

Each variant is read from the keys the shipping code reads, cited beside the reader:

* **FoPE** (Intern-S1-Pro): the rope dict's ``fope_init_factor``, ``fope_sep_head``,
  ``num_inv_freq`` (any of them given switches FoPE on);
* **openPangu's interleaved M-RoPE**: ``rope_type: "openpangu"`` with ``mrope_section`` (two
  or three entries) and ``mrope_interleaved: true``;
* **Bailing's M-RoPE**: ``mrope_section`` on a ``bailing_hybrid`` config (h and w alternate
  pair by pair, t last);
* **per-sub-module pairing**: the sparse-attention indexer of DeepSeek-V3.2-style models
  (``indexer_rope_interleave``);
* **ChatGLM-6B's 2-D positions**: ``position_encoding_2d: true`` on a ``chatglm`` config;
* **multi-factor linear** (vLLM's ``LinearScalingRotaryEmbedding``): ``factor`` a list;
* **YaRN's ``extrapolation_factor``** as vLLM and llama.cpp (``ext_factor``) read it.

What HF transformers does with each key is said where it differs; a key no engine reads for
the config's model type is refused with the key, its value and what is allowed, never read
silently. The oracle (:mod:`pe_symbolic.reference`) reads the same normalized config with its
own formulas.
"""

from __future__ import annotations

import numbers
from collections.abc import Mapping, Sequence
from typing import Any

from ._config_base import _int, _real, _unknown

__all__ = [
    "CHATGLM_2D_TYPES",
    "FOPE_KEYS",
    "FOPE_MODEL_TYPES",
    "INDEXER_LAYOUT",
    "SOURCES",
    "YARN_ENGINES",
]

#: Where each variant's reading comes from (repository, path, commit, what in it).
SOURCES: dict[str, str] = {
    "fope.vllm": "vllm-project/vllm vllm/model_executor/models/interns1_pro.py @ 451898465db0 "
                 "(use_fope = any(rope_scaling.get(k) is not None for k in fope_keys)); "
                 "vllm/model_executor/layers/rotary_embedding/fope.py @ c215d1e62d73 (FourierRotaryEmbedding)",
    "fope.sglang": "sgl-project/sglang python/sglang/srt/layers/rotary_embedding/factory.py @ eb047c169815 "
                   "(rope_type 'default' with use_fope: FourierRotaryEmbedding, fope_sep_head default True)",
    "openpangu": "vllm-project/vllm vllm/model_executor/layers/rotary_embedding/openpangu_rope.py @ 098d12c28e93 "
                 "(MRotaryEmbeddingInterleaved.get_mrope_interleaved_id_list); get_rope's rope_type 'openpangu' "
                 "branch (mrope_section and mrope_interleaved: true, else 'Pangu mrope lacks necessary parameters')",
    "bailing": "vllm-project/vllm vllm/model_executor/layers/rotary_embedding/bailing_mrope.py @ 9c5b71639542 "
               "(BailingMRotaryEmbedding.select_cos_sin: h on even, w on odd pairs of the first h + w, then t; "
               "rope_type 'default' only, h == w)",
    "indexer.vllm": "vllm-project/vllm vllm/model_executor/models/deepseek_v2.py @ 002d6073aa03 "
                    "(DeepseekV2MLAAttention: indexer_rope_emb = get_rope(..., is_neox_style=not getattr(config, "
                    "'indexer_rope_interleave', False)); the attention's own get_rope has is_neox_style=False)",
    "indexer.hf": "huggingface/transformers 5.24 models/*/modeling_*.py, the Indexer classes (apply_rotary_pos_emb "
                  "or apply_rotary_pos_emb_interleave on the first qk_rope_head_dim channels)",
    "chatglm": "THUDM/chatglm-6b modeling_chatglm.py (SelfAttention: RotaryEmbedding(hidden_size // "
               "(num_attention_heads * 2) if position_encoding_2d ..., base=10000); q1 turned by position_ids, q2 "
               "by block_position_ids, rotate_half in each)",
    "linear_multi": "vllm-project/vllm vllm/model_executor/layers/rotary_embedding/linear_scaling_rope.py @ "
                    "9ba5ac5152d2 (LinearScalingRotaryEmbedding(scaling_factors: list | float): one cos/sin block "
                    "per factor, scaling_factor_to_offset)",
    "yarn.vllm": "vllm-project/vllm vllm/model_executor/layers/rotary_embedding/yarn_scaling_rope.py @ ffdc985737c9 "
                 "(YaRNScalingRotaryEmbedding(extrapolation_factor=1, attn_factor=1, ...): inv_freq_mask = (1 - ramp) "
                 "* extrapolation_factor, mscale = yarn_get_mscale(factor) * attn_factor); at 0cd5784803d8 the class "
                 "takes no extrapolation_factor (pe_symbolic.engines' 'vllm' recipe follows that one)",
    "yarn.llama.cpp": "ggml-org/llama.cpp convert_hf_to_gguf.py @ a458664fc83b (rope_type 'yarn': "
                      "rope_params['extrapolation_factor'] -> rope.scaling.yarn_ext_factor); "
                      "ggml/src/ggml-cpu/ops.cpp @ 1f08e2d66271 (rope_yarn: mscale *= 1 + 0.1 ln(1/freq_scale) "
                      "only when ext_factor != 0)",
}

# ----------------------------------------------------------------------------------------
# FoPE

#: The rope-dict keys whose presence switches FoPE on (vLLM's and SGLang's Intern-S1-Pro code:
#: ``use_fope = any(rope_scaling.get(key) is not None for key in fope_keys)``).
FOPE_KEYS: tuple[str, ...] = ("fope_init_factor", "fope_sep_head", "num_inv_freq")
#: Model types whose engine code reads :data:`FOPE_KEYS` (vLLM's ``interns1_pro.py``, SGLang's
#: ``interns1pro.py``: the ``InternS1ProForConditionalGeneration`` architecture).
FOPE_MODEL_TYPES: frozenset[str] = frozenset({"interns1_pro", "interns1_pro_text"})


def read_fope(cfg: Mapping[str, Any], where: str, p: Mapping[str, Any], rope_type: str, rotary_dim: int,
              head_dim: int, kw: dict[str, Any]) -> None:
    """FoPE's keys into ``kw`` (``fope_*``), or nothing when the dict has none of them.

    Raises naming the key, the value and what is allowed: FoPE keys on a model type whose
    engine code does not read them, under another rope type than ``default``, beside an
    ``mrope_section`` (get_rope takes the M-RoPE branch first), a partial rotary dim, or a
    ``num_inv_freq`` outside ``1 .. rotary_dim/2``.
    """
    given = [k for k in FOPE_KEYS if p.get(k) is not None]
    if not given:
        return
    shown = ", ".join(f"{where}[{k!r}]={p[k]!r}" for k in given)
    mt = cfg.get("model_type")
    if mt is not None and mt not in FOPE_MODEL_TYPES:
        raise ValueError(
            f"{shown}: FoPE keys on model_type {mt!r}, whose engine code does not read them (vLLM and SGLang read "
            f"{', '.join(FOPE_KEYS)} for model_type {' / '.join(sorted(FOPE_MODEL_TYPES))} only; every other "
            "model's get_rope builds plain RoPE from this dict): remove them, or give the model_type that reads them")
    if rope_type != "default":
        raise ValueError(f"{shown}: FoPE is read under rope_type 'default' only (vLLM's and SGLang's get_rope build "
                         f"FourierRotaryEmbedding in the 'default' branch); this dict has rope_type {rope_type!r}")
    if p.get("mrope_section") is not None:
        raise ValueError(f"{shown} beside {where}['mrope_section']={p['mrope_section']!r}: get_rope takes the M-RoPE "
                         "branch first and never builds FoPE; keep one of them")
    if rotary_dim != head_dim:
        raise ValueError(f"{shown}: FoPE rotates the whole head (Intern-S1-Pro's get_rope gets no partial rotary "
                         f"factor and pads cos/sin to head_dim // 2); this config rotates {rotary_dim} of {head_dim}")
    pairs = rotary_dim // 2
    if p.get("num_inv_freq") is not None:
        n = _int(where, "num_inv_freq", p["num_inv_freq"], minimum=1)
        if n > pairs:
            raise ValueError(f"{where}['num_inv_freq']={p['num_inv_freq']!r} is not allowed: FoPE keeps the first "
                             f"num_inv_freq of the rotary_dim/2 = {pairs} frequencies, so it must be in 1 .. {pairs} "
                             "(vLLM's mask would keep all of them silently)")
        kw["fope_num_inv_freq"] = n
    elif cfg.get("max_position_embeddings") is None:
        raise ValueError(f"{shown}: without num_inv_freq FoPE keeps the frequencies above 2*pi / "
                         "max_position_embeddings, and config has no 'max_position_embeddings'")
    sep = p.get("fope_sep_head", True)
    if not isinstance(sep, bool):
        raise TypeError(f"{where}['fope_sep_head']={sep!r} must be true or false")
    kw["fope_sep_head"] = sep
    if p.get("fope_init_factor") is not None:
        kw["fope_init_factor"] = _real(where, "fope_init_factor", p["fope_init_factor"], minimum=0.0, strict=True,
                                       what=" (FoPE's coefficient initialisation scale, > 0)")
    kw["fope"] = True


# ----------------------------------------------------------------------------------------
# M-RoPE placements engines define: openPangu, Bailing

#: Model types whose engines place ``mrope_section`` with Bailing's rule (vLLM
#: ``bailing_moe_v3.py`` / ``bailing_mrope.py``, SGLang ``bailing_mrope.py``); HF's
#: ``BailingHybridRotaryEmbedding`` reads no ``mrope_section``.
BAILING_MODEL_TYPES: frozenset[str] = frozenset({"bailing_hybrid"})


def openpangu_sections(where: str, p: Mapping[str, Any], rotary_dim: int) -> tuple[int, ...]:
    """openPangu's ``mrope_section`` (2 or 3 entries) and ``mrope_interleaved`` (must be true)."""
    sec, inter = p.get("mrope_section"), p.get("mrope_interleaved", False)
    if sec is None or inter is not True:
        raise ValueError(f"{where} has rope_type 'openpangu' with mrope_section={sec!r}, mrope_interleaved={inter!r}: "
                         "vLLM's get_rope builds MRotaryEmbeddingInterleaved only with an mrope_section and "
                         "mrope_interleaved: true, and refuses otherwise ('Pangu mrope lacks necessary parameters')")
    if isinstance(sec, (str, bytes)) or not isinstance(sec, Sequence) or len(sec) not in (2, 3):
        raise ValueError(f"{where}['mrope_section']={sec!r} must be two (h, w) or three (t, h, w) integers for "
                         "rope_type 'openpangu'")
    vals = tuple(_int(where, "mrope_section", v, minimum=0, index=q) for q, v in enumerate(sec))
    if sum(vals) != rotary_dim // 2:
        raise ValueError(f"{where}['mrope_section']={list(sec)!r} sums to {sum(vals)}; it must sum to rotary_dim/2 "
                         f"= {rotary_dim // 2}")
    if len(vals) == 3 and vals[0] < 1:
        raise ValueError(f"{where}['mrope_section']={list(sec)!r}: with three sections openPangu keeps one t pair for "
                         "the end (force_last), so the t section must be >= 1 (vLLM would place a t pair anyway)")
    return vals


def check_bailing(where: str, raw_type: object, rope_type: str, section: tuple[int, int, int]) -> None:
    """Bailing's M-RoPE: rope type ``default`` only, equal h and w sections (vLLM's checks)."""
    if rope_type != "default":
        raise ValueError(f"{where}['rope_type']={raw_type!r}: Bailing's M-RoPE (vLLM's _build_mla_rotary_embedding) "
                         "only supports rope_type='default' with an mrope_section")
    if section[1] != section[2]:
        raise ValueError(f"{where}['mrope_section']={list(section)!r}: Bailing's M-RoPE alternates h and w pair by "
                         "pair, so the h and w sections must be equal (vLLM refuses otherwise)")


# ----------------------------------------------------------------------------------------
# per-sub-module pairing: the sparse-attention indexer

#: HF 5.24 model types whose sparse-attention indexer rotates the first ``qk_rope_head_dim``
#: channels of its own q/k with the attention's cos/sin, and the pairing it uses there
#: (``"split"``: ``apply_rotary_pos_emb``, rotate_half; ``"interleaved"``:
#: ``apply_rotary_pos_emb_interleave``). HF hard-codes it per model type and never reads
#: ``indexer_rope_interleave``; ``tests/test_variant_configs.py`` checks each entry against the
#: installed modeling code's ``Indexer`` class (transformers 5.24).
INDEXER_LAYOUT: dict[str, str] = {
    "deepseek_v32": "split",
    "axk2": "split",
    "glm_moe_dsa": "interleaved",
    "dots3_note": "interleaved",
    "dots3_note_text": "interleaved",
    "mistral_large4": "interleaved",
    "mistral_large4_text": "interleaved",
}
#: HF model types with an indexer whose RoPE is placed otherwise (the last channels, its own
#: rotary, per-layer switches): ``indexer_rope_interleave`` is not read for them here.
INDEXER_OTHER: frozenset[str] = frozenset({"deepseek_v4", "glm5_next", "glm5_next_text", "hy_v4", "hy_v4_vl",
                                           "hy_v4_vl_text", "minimax_m3_vl", "minimax_m3_vl_text"})


def indexer_layout(cfg: Mapping[str, Any], strict: bool) -> str | None:
    """The indexer's pairing for ``cfg`` (``None``: no indexer), warning where the config's
    ``indexer_rope_interleave`` disagrees with HF's; refusing the key on a model type
    without an indexer."""
    mt = cfg.get("model_type")
    key = cfg.get("indexer_rope_interleave")
    if mt in INDEXER_LAYOUT:
        hf = INDEXER_LAYOUT[mt]  # type: ignore[index]
        if key is not None:
            if not isinstance(key, bool):
                raise TypeError(f"config['indexer_rope_interleave']={key!r} must be true or false")
            said = "interleaved" if key else "split"
            if said != hf:
                _unknown(f"config['indexer_rope_interleave']={key!r} is not read by HF, whose indexer for model_type "
                         f"{mt!r} rotates {hf} pairs (hard-coded); vLLM reads it ({SOURCES['indexer.vllm']}) and "
                         f"rotates {said} pairs there: the engines disagree; the indexer layout here is HF's ({hf})",
                         strict)
        return hf
    if key is None:
        return None
    if mt in INDEXER_OTHER:
        _unknown(f"config['indexer_rope_interleave']={key!r} is not read: model_type {mt!r} has an indexer whose RoPE "
                 "HF places on other channels or with its own rotary, which the parser does not model", strict)
        return None
    known = ", ".join(sorted(INDEXER_LAYOUT))
    raise ValueError(
        f"config['indexer_rope_interleave']={key!r} on model_type {mt!r}, which has no sparse-attention indexer: the "
        f"key sets the pairing of a DSA indexer's RoPE (vLLM's deepseek_v2.py reads it when the config has "
        f"index_topk); it is read for model types {known}. Remove it, or give the model_type of an indexer model")


# ----------------------------------------------------------------------------------------
# ChatGLM-6B's 2-D positions

#: ``model_type`` of THUDM's ChatGLM family (remote code): ChatGLM-6B sets
#: ``position_encoding_2d``; ChatGLM2/3 and GLM-4 share the model type without it.
CHATGLM_2D_TYPES: frozenset[str] = frozenset({"chatglm"})
#: ChatGLM-6B's base (``RotaryEmbedding(..., base=10000)``, not read from the config).
CHATGLM_BASE = 10000.0


def chatglm_2d(cfg: Mapping[str, Any], strict: bool) -> bool:
    """Whether ``cfg`` is ChatGLM-6B's 2-D RoPE; refuses ``position_encoding_2d`` elsewhere."""
    flag = cfg.get("position_encoding_2d")
    if flag is None or flag is False:
        return False
    mt = cfg.get("model_type")
    if not isinstance(flag, bool):
        raise TypeError(f"config['position_encoding_2d']={flag!r} must be true or false")
    if mt not in CHATGLM_2D_TYPES:
        raise ValueError(f"config['position_encoding_2d']={flag!r} on model_type {mt!r}: the key is ChatGLM-6B's "
                         "(model_type 'chatglm', THUDM's remote code), which turns half of each head with the token "
                         "position and half with the block position; no other model reads it. Remove it, or give "
                         "model_type 'chatglm'")
    for key in ("rope_theta", "rope_scaling", "rope_parameters", "rope_ratio", "partial_rotary_factor"):
        if cfg.get(key) is not None:
            _unknown(f"config[{key!r}]={cfg[key]!r} is not read by ChatGLM-6B's code (position_encoding_2d: its "
                     "RotaryEmbedding has base 10000 and no scaling) and is not used", strict)
    return True


def chatglm_head_dim(cfg: Mapping[str, Any]) -> tuple[int, str]:
    """ChatGLM-6B's head dim ``hidden_size // num_attention_heads`` (a multiple of 4)."""
    missing = [k for k in ("hidden_size", "num_attention_heads") if cfg.get(k) is None]
    if missing:
        raise ValueError(f"config is missing {', '.join(map(repr, missing))}: ChatGLM-6B's head dim is "
                         "hidden_size // num_attention_heads")
    h = _int("config", "hidden_size", cfg["hidden_size"])
    n = _int("config", "num_attention_heads", cfg["num_attention_heads"])
    d = h // n
    if d % 4:
        raise ValueError(f"head_dim = hidden_size // num_attention_heads = {h} // {n} = {d} must be a multiple of 4: "
                         "ChatGLM-6B's 2-D RoPE turns two halves of the head, each in pairs")
    return d, f"head_dim = config['hidden_size'] // config['num_attention_heads'] = {h} // {n} = {d}"


# ----------------------------------------------------------------------------------------
# multi-factor linear, YaRN's extrapolation_factor


def factor_list(where: str, value: object) -> tuple[float, ...]:
    """vLLM's multi-factor linear ``factor`` list: non-empty, each >= 1, no repeats."""
    if isinstance(value, (str, bytes)) or not isinstance(value, Sequence):
        raise TypeError(f"{where}['factor']={value!r} must be a number or a list of numbers")
    if len(value) == 0:
        raise ValueError(f"{where}['factor']=[] has no entries: vLLM's multi-factor linear RoPE builds one cos/sin "
                         "block per factor, so the list needs at least one (a number >= 1 each)")
    out = tuple(_real(where, "factor", v, minimum=1.0, what=" (a linear scaling factor, >= 1)", index=q)
                for q, v in enumerate(value))
    seen: dict[float, int] = {}
    for q, v in enumerate(out):
        if v in seen:
            raise ValueError(f"{where}['factor'] lists {v:g} twice (entries {seen[v]} and {q}): vLLM keys its cache "
                             "blocks by factor (scaling_factor_to_offset), so the earlier block would never be "
                             "used; list each factor once")
        seen[v] = q
    return out


def select_factor(where: str, factors: tuple[float, ...], factor: object) -> float:
    """The factor ``factor=`` picks from a multi-factor list."""
    if factor is None:
        raise ValueError(f"{where}['factor']={list(factors)!r} lists {len(factors)} factors (vLLM's multi-factor "
                         "linear RoPE: one cos/sin block per LoRA scaling factor); pass factor= one of them (pe-audit: --factor F)")
    if isinstance(factor, bool) or not isinstance(factor, numbers.Real) or float(factor) not in factors:
        raise ValueError(f"factor={factor!r} is not one of {where}['factor'] = {list(factors)!r}")
    return float(factor)


#: Whose reading of YaRN's ``extrapolation_factor`` to follow (``yarn_engine=``): ``"hf"``
#: (HF's ``yarn`` does not read it), ``"vllm"`` (``YaRNScalingRotaryEmbedding``: the kept
#: share times it, the attention factor unchanged), ``"llama.cpp"`` (``ext_factor``: the same
#: frequencies with llama.cpp's ramp, and no magnitude factor when it is 0).
YARN_ENGINES: tuple[str, ...] = ("hf", "vllm", "llama.cpp")
#: YaRN keys whose reading by vLLM's / llama.cpp's YaRN differs from HF's in ways the
#: ``yarn_engine`` reading does not model: refused there (``pe-audit --engines`` compares them).
_YARN_ENGINE_UNMODELLED = ("attention_factor", "mscale", "mscale_all_dim", "attn_factor")


def read_extrapolation(where: str, p: Mapping[str, Any], engine: str, strict: bool, kw: dict[str, Any]) -> None:
    """YaRN's ``extrapolation_factor`` under ``yarn_engine=engine`` (``rope_type`` ``yarn``)."""
    e = p.get("extrapolation_factor")
    if engine == "hf":
        if e is not None and e != 1:
            _unknown(f"{where}['extrapolation_factor']={e!r} is not read by HF's yarn (computed with 1, HF's "
                     "frequencies); vLLM (YaRNScalingRotaryEmbedding) and llama.cpp (convert_hf_to_gguf -> "
                     "yarn_ext_factor) read it: pass yarn_engine='vllm' or 'llama.cpp' for theirs", strict)
        return
    other = [k for k in _YARN_ENGINE_UNMODELLED if p.get(k) is not None]
    if other:
        raise ValueError(f"yarn_engine={engine!r} with {where} giving {', '.join(other)}: {engine}'s YaRN reads these "
                         "differently from HF (vLLM's get_rope passes only extrapolation_factor / attn_factor / "
                         "beta_fast / beta_slow / truncate; llama.cpp turns them into yarn_attn_factor / "
                         "yarn_log_multiplier), which this reading does not model: compare with pe-audit --engines")
    if engine == "llama.cpp":
        kw["ext_rule"] = "llama.cpp"  # llama.cpp's ramp and corr dims, ext_factor 1 unless given
    if e is None:
        return
    v = _real(where, "extrapolation_factor", e, minimum=0.0,
              what=" (YaRN's extrapolation share, llama.cpp's ext_factor, in [0, 1])")
    if v > 1:
        raise ValueError(f"{where}['extrapolation_factor']={e!r} is not allowed: it must be in [0, 1] (the share of "
                         "each pair's ramp kept at its original frequency; above 1 the blend extrapolates past it, "
                         "and llama.cpp's negative values mean 'use the default')")
    kw["extrapolation_factor"] = v
