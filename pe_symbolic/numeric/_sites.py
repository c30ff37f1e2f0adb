"""Where a model applies RoPE: which layers and sub-modules rotate, and which rope entry each reads.

``plan_sites`` reads a normalized config into ``SitePlan`` s -- no frequency is
computed here, so the decision is cheap and every reader shares it: the program
(:func:`pe_symbolic.numeric.read_program`), :func:`~pe_symbolic.numeric.parse_rope_config` and
:func:`~pe_symbolic.numeric.rope_frequencies` (which refuse a selection HF does not rotate).

What decides, in this order, each written from HF's code (transformers 5.25):

* the model: a model type whose HF modeling code calls no rotation (``rotary_applied: false``
  in the shipped table, found by ``tools/gen_hf_defaults.py``: Nemotron-H, Jamba, Zamba) is
  NoPE whatever RoPE keys its config carries; GLM-5.3's text model (``glm5_next``) with
  ``qk_rope_head_dim`` 0 (HF's config raises on anything else);
* a layer: ``LAYER_RULES`` (the guard around HF's ``apply_rotary_pos_emb`` call, per model
  type), ``no_rope_layers`` (1 rotates), ``layer_rope_theta`` (0 is NoPE), a ``null`` entry of
  a per-layer-type rope dict, a layer type that is not softmax attention (``linear_attention``,
  ``mamba``, ...);
* sub-modules: the sparse-attention indexer, DeepSeek-V4's compressors (keys at compressed
  positions) and indexer, MTP / draft layers.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from .._hfconfig import model_entry
from ._families import DEEPSEEK_V4_LABELS, LAYER_THETA_MARKS_ONLY, STEP_LIST_TYPES, step_layers, step_mtp_entries
from ._keys import _per_layer
from ._parse import rope_entries
from ._variant_readers import INDEXER_LAYOUT

__all__ = ["LAYER_RULES", "SitePlan", "model_nope", "plan_sites"]


@dataclass(frozen=True)
class SitePlan:
    """One place RoPE is (or is not) applied, before any frequency is read."""

    module: str
    """``"attention"``, ``"indexer"``, ``"compressor"`` or ``"draft"``."""
    layers: tuple[int, ...] | None
    """The layer indices (``None``: every layer, the config does not say how many)."""
    layer_type: str | None = None
    """The HF layer type of these layers (``None``: not listed, or one RoPE for all)."""
    entry: str | None = None
    """The rope-dict entry these layers read (``None``: the one dict)."""
    layer: int | None = None
    """The layer whose per-layer values (``layer_rope_theta``, Molmo2's scaling) stand for all."""
    nope: str = ""
    """Why these layers apply no rotation (``""``: they rotate)."""
    positions: str = "token"
    """``"token"``, or ``"compressed"`` (keys at ``window * stride + first``, DeepSeek-V4)."""
    stride: int | None = None
    """The compression rate of ``"compressed"`` positions."""
    inverse: bool = False
    """Whether the output is rotated back at the query position (DeepSeek-V4, K = V)."""
    own: Mapping[str, Any] | None = None
    """A rope dict of the site's own (Step3p7's MTP layers: the per-layer lists' tail)."""
    note: str = ""

    @property
    def attends(self) -> bool:
        """Whether the layers are softmax attention (a Mamba or linear-attention layer is not)."""
        return not is_other_mixer(self.nope)


def is_other_mixer(why: str) -> bool:
    """Whether a NoPE reason says the layer is no softmax attention at all."""
    return why.startswith("a ") and "no softmax attention" in why


# ----------------------------------------------------------------------------------------
# the whole model

#: GLM-5.3's text model types: NoPE attention (``qk_rope_head_dim`` 0, HF's
#: ``Glm5NextTextConfig`` raises "Expecting NoPE for the DSA attention layers" otherwise).
GLM5_NEXT_TYPES: frozenset[str] = frozenset({"glm5_next", "glm5_next_text"})


def model_nope(cfg: Mapping[str, Any]) -> str:
    """Why no layer of this model applies RoPE (``""``: some may)."""
    mt = cfg.get("model_type")
    entry = model_entry(mt)
    if entry is not None and entry.get("rotary_applied") is False:
        return (f"HF's model for model_type {mt!r} ({entry['class']}) applies no rotary embedding: its modeling code "
                "calls no rotation, whatever RoPE keys the config carries")
    if entry is not None and entry.get("no_rope") and "text_config" not in entry:
        return (f"HF's {entry['class']} (model_type {mt!r}) has no RoPE field: its attention reads no rotary "
                "settings (NoPE), whatever RoPE keys the config carries")
    if mt in GLM5_NEXT_TYPES and cfg.get("qk_rope_head_dim") in (0, None):
        return ("GLM-5.3's DSA attention is NoPE: qk_rope_head_dim = 0 (HF's Glm5NextTextConfig refuses any other "
                "value); only its vision tower rotates")
    return ""


# ----------------------------------------------------------------------------------------
# one layer


def _sliding_or_unset(cfg: Mapping[str, Any], i: int, lt: str | None) -> str:
    if cfg.get("sliding_window") is not None and lt != "sliding_attention":
        return ("HF rotates only when sliding_window is None or the layer slides: sliding_window = "
                f"{cfg.get('sliding_window')!r}, so {lt} layers are NoPE")
    return ""


def _window_set(cfg: Mapping[str, Any], i: int, lt: str | None) -> str:
    if lt == "sliding_attention" and cfg.get("sliding_window") is not None:
        return ""
    if cfg.get("model_type") == "cohere2_moe":
        mlp, pattern = cfg.get("mlp_layer_types"), cfg.get("prefix_dense_sliding_window_pattern")
        if isinstance(mlp, list) and i < len(mlp) and mlp[i] == "dense" and pattern == 1:
            return ""  # HF's force_rope
    if lt == "sliding_attention":
        return "HF rotates only where the layer's sliding_window is set; config['sliding_window'] is null"
    return f"HF rotates only the sliding-window layers: {lt} layers are NoPE"


def _local_type(cfg: Mapping[str, Any], i: int, lt: str | None) -> str:
    return "" if lt == "sliding_attention" else f"HF rotates only the sliding_attention layers: {lt} layers are NoPE"


def _kolibri1_1(cfg: Mapping[str, Any], i: int, lt: str | None) -> str:
    if lt != "sliding_attention":
        return f"HF's indexed-attention ({lt}) layers are NoPE"
    modes = cfg.get("kv_sharing_modes")
    if isinstance(modes, list) and i < len(modes) and modes[i] == "reuse":
        return ("a KV-sharing layer: HF rotates neither its queries nor its keys here (the keys come rotated from "
                "their source layer)")
    return ""


def _mem_rope(cfg: Mapping[str, Any], i: int, lt: str | None) -> str:
    return "" if cfg.get("use_mem_rope") else "HF's shared attention rotates only with use_mem_rope: it is false"


_EXAONE = "if self.sliding_window is None or self.is_sliding: apply_rotary_pos_emb"
#: model_type -> (the rule, HF's guard around its rotation): which layers of the model rotate.
LAYER_RULES: dict[str, tuple[Callable[[Mapping[str, Any], int, str | None], str], str]] = {
    **{mt: (_sliding_or_unset, f"models/{mod}/modeling_{mod}.py: {_EXAONE}")
       for mt, mod in (("exaone4", "exaone4"), ("exaone4_5", "exaone4_5"), ("exaone_moe", "exaone_moe"),
                       ("kolibri1", "kolibri1"))},
    "cohere2": (_window_set, "models/cohere2/modeling_cohere2.py: if self.sliding_window is not None"),
    "cohere2_moe": (_window_set, "models/cohere2_moe/modeling_cohere2_moe.py: if self.sliding_window is not None or "
                                 "self.force_rope"),
    "flint": (_window_set, "models/flint/modeling_flint.py: if self.sliding_window is not None"),
    "afmoe": (_local_type, "models/afmoe/modeling_afmoe.py: if self.is_local_attention"),
    "lara_mini": (_local_type, "models/lara_mini/modeling_lara_mini.py: position_embeddings only for "
                               "sliding_attention layers"),
    "kolibri1_1": (_kolibri1_1, "models/kolibri1_1/modeling_kolibri1_1.py: if self.is_sliding and not "
                                "self.is_kv_shared_layer"),
    "zamba2": (_mem_rope, "models/zamba2/modeling_zamba2.py: if self.config.use_mem_rope"),
}
#: Model types whose MTP layers (``num_nextn_predict_layers``) engines build as one more decoder
#: layer each, with the main model's rotary embedding (vLLM ``deepseek_mtp.py`` /
#: ``glm4_moe_mtp.py``).
MTP_AS_DECODER_LAYER: frozenset[str] = frozenset({"deepseek_v3", "deepseek_v32", "glm4_moe", "glm_moe_dsa",
                                                  "mistral_large4", "mistral_large4_text"})
#: Words in a layer type that name a mixer other than softmax attention (no RoPE there).
NOT_ATTENTION = ("linear", "mamba", "conv", "ssm", "recurrent", "delta", "gdn", "rwkv", "lightning", "mlp", "moe",
                 "kda", "short")


def _not_attention(lt: str) -> bool:
    return any(w in lt.lower() for w in NOT_ATTENTION) and "attention" not in lt.replace("linear_attention", "")


def layer_nope(cfg: Mapping[str, Any], i: int, lt: str | None) -> str:
    """Why layer ``i`` (HF layer type ``lt``) applies no rotation (``""``: it rotates)."""
    if isinstance(lt, str) and _not_attention(lt):
        return f"a {lt} layer: no softmax attention, no RoPE"
    rule = LAYER_RULES.get(cfg.get("model_type"))  # type: ignore[arg-type]
    if rule is not None:
        why = rule[0](cfg, i, lt)
        if why:
            return why
    flags = cfg.get("no_rope_layers")
    if isinstance(flags, list) and flags and i < len(flags) and not flags[i]:
        return f"no_rope_layers[{i}] = 0 (HF: use_rope = no_rope_layers[layer_idx])"
    lrt = cfg.get("layer_rope_theta")
    if isinstance(lrt, list) and i < len(lrt) and not lrt[i]:
        return f"layer_rope_theta[{i}] = 0"
    return ""


# ----------------------------------------------------------------------------------------
# the plan


def _layer_types(cfg: Mapping[str, Any]) -> list[str] | None:
    mt = cfg.get("model_type")
    if mt == "deepseek_v4":
        return deepseek_v4_layer_types(cfg)
    if mt in STEP_LIST_TYPES:
        return step_layers(cfg)[0]
    lt = cfg.get("layer_types")
    n = cfg.get("num_hidden_layers")
    if not isinstance(lt, list):
        lt = cfg.get("layers_block_type")  # Nemotron-H's mixers
    pattern = cfg.get("hybrid_override_pattern")
    if not isinstance(lt, list) and isinstance(pattern, str) and pattern and set(pattern) <= set(HYBRID_PATTERN):
        lt = [HYBRID_PATTERN[c] for c in pattern]  # Nemotron-H: M mamba, * attention, E moe, - mlp
    if isinstance(lt, list) and all(isinstance(t, str) for t in lt):
        if mt == "dory" and "mlp" in lt:
            # HF's DoryConfig reads a serialized list of attention / mlp sub-layers as its attention
            # layers alone (its to_dict writes them interleaved; reloading drops the "mlp" entries)
            lt = [t for t in lt if t != "mlp"]
            return lt
        return list(lt[:n]) if isinstance(n, int) and not isinstance(n, bool) and len(lt) > n else list(lt)
    return None


#: Nemotron-H's ``hybrid_override_pattern`` letters (HF's ``NemotronHConfig``): the mixer of each layer.
HYBRID_PATTERN: dict[str, str] = {"M": "mamba", "*": "attention", "E": "moe", "-": "mlp"}


def deepseek_v4_layer_types(cfg: Mapping[str, Any]) -> list[str] | None:
    """DeepSeek-V4's layer types as HF's config derives them: ``layer_types``, else the legacy
    ``compress_ratios`` (0 sliding, 4 CSA, 128 HCA), else two HCA layers then CSA / HCA in turn."""
    n = cfg.get("num_hidden_layers")
    lt = cfg.get("layer_types")
    ratios = cfg.get("compress_ratios")
    filled = "layer_types" in (getattr(cfg, "filled", None) or {})
    if isinstance(lt, list) and not (filled and isinstance(ratios, list)):
        return list(lt[:n]) if isinstance(n, int) else list(lt)
    names = {0: "sliding_attention", 4: "compressed_sparse_attention", 128: "heavily_compressed_attention"}
    if isinstance(ratios, list):
        out = [names.get(r, "compressed_sparse_attention" if r else "sliding_attention") for r in ratios]
        return out[:n] if isinstance(n, int) else out
    if not isinstance(n, int) or isinstance(n, bool):
        return None
    inter = ["compressed_sparse_attention" if i % 2 else "heavily_compressed_attention" for i in range(max(n - 2, 0))]
    return ["heavily_compressed_attention"] * min(n, 2) + inter


def _uses_layer(cfg: Mapping[str, Any]) -> bool:
    """Whether a per-layer reader needs the layer index (``layer_rope_theta`` bases, Molmo2)."""
    lrt = cfg.get("layer_rope_theta")
    if isinstance(lrt, list) and cfg.get("model_type") not in LAYER_THETA_MARKS_ONLY and len({t for t in lrt if t}) > 1:
        return True
    return cfg.get("rope_scaling_layers") is not None and cfg.get("model_type") in ("molmo2_text", "molmo2")


def _group_key(cfg: Mapping[str, Any], i: int) -> Any:
    lrt = cfg.get("layer_rope_theta")
    if isinstance(lrt, list) and i < len(lrt) and cfg.get("model_type") not in LAYER_THETA_MARKS_ONLY:
        return ("theta", lrt[i])
    rsl = cfg.get("rope_scaling_layers")
    if isinstance(rsl, list):
        return ("scaled", i in rsl)
    return None


def plan_sites(cfg: Mapping[str, Any], strict: bool = False) -> tuple[SitePlan, ...]:
    """The sites of a normalized config (see the module docstring), attention first."""
    n = cfg.get("num_hidden_layers")
    n = n if isinstance(n, int) and not isinstance(n, bool) and n >= 0 else None
    types = _layer_types(cfg)
    if types is not None:
        n = len(types)
    whole = model_nope(cfg)
    if whole and n is None:
        return (SitePlan("attention", None, nope=whole),)
    if whole:
        groups_w: dict[str, list[int]] = {}
        for i in range(n):
            lt = types[i] if types is not None else None
            groups_w.setdefault(layer_nope(cfg, i, lt) if lt and _not_attention(lt) else whole, []).append(i)
        return tuple(SitePlan("attention", tuple(idx), types[idx[0]] if types is not None else None, nope=why)
                     for why, idx in groups_w.items())
    _, params, family = rope_entries(cfg, strict)
    per_layer = _per_layer(params)
    labels = family.labels if family is not None else {}
    mt = cfg.get("model_type")
    v4 = mt == "deepseek_v4"
    if n is None:
        if per_layer:
            return tuple(SitePlan("attention", None, t, t, nope="" if params[t] is not None else
                                  f"rope_parameters[{t!r}] is null") for t in params)
        return (SitePlan("attention", None),)
    groups: dict[Any, list[int]] = {}
    info: dict[Any, tuple[str | None, str | None, str]] = {}
    for i in range(n):
        lt = types[i] if types is not None else None
        why = layer_nope(cfg, i, lt)
        entry: str | None = None
        if per_layer and not why:
            entry = labels.get(lt, lt) if lt is not None else None
            if entry is None or entry not in params:
                if entry is None:
                    entry = next(iter(params))  # layer types not listed: the parser asks for one
                else:
                    why = (f"layer type {lt!r} has no entry in the rope dict (entries: {', '.join(map(repr, params))}); "
                           "HF's rotary embedding has no table for it")
            elif params[entry] is None:
                why = f"rope_parameters[{entry!r}] is null (HF skips RoPE for {lt} layers)"
        why = re.sub(r"\[\d+\]", "[i]", why)  # one reason for every layer it names
        key = (lt, entry, why, None if why else _group_key(cfg, i))
        groups.setdefault(key, []).append(i)
        info[key] = (lt, entry, why)
    uses_layer = _uses_layer(cfg)
    sites: list[SitePlan] = []
    for key, idx in groups.items():
        lt, entry, why = info[key]
        sites.append(SitePlan("attention", tuple(idx), lt, entry, idx[0] if uses_layer and not why else None, why,
                              inverse=v4 and not why))
    sites += _submodules(cfg, sites, types, n)
    return tuple(sites)


def _submodules(cfg: Mapping[str, Any], attn: list[SitePlan], types: list[str] | None, n: int) -> list[SitePlan]:
    mt = cfg.get("model_type")
    out: list[SitePlan] = []
    if mt == "deepseek_v4" and types is not None:
        rates = cfg.get("compress_rates") if isinstance(cfg.get("compress_rates"), Mapping) else {}
        csa = rates.get("compressed_sparse_attention", cfg.get("compress_rate_csa", 4))
        hca = rates.get("heavily_compressed_attention", cfg.get("compress_rate_hca", 128))
        for lt, rate in (("compressed_sparse_attention", csa), ("heavily_compressed_attention", hca)):
            idx = tuple(i for i, t in enumerate(types) if t == lt)
            if idx:
                out.append(SitePlan("compressor", idx, lt, DEEPSEEK_V4_LABELS[lt], positions="compressed",
                                    stride=int(rate), note=f"compressed keys at window * {rate} + first window"))
        idx = tuple(i for i, t in enumerate(types) if t == "compressed_sparse_attention")
        if idx:
            out.append(SitePlan("indexer", idx, "compressed_sparse_attention", "compress", positions="compressed",
                                stride=int(csa), note=f"queries at token positions, keys at window * {csa} + first "
                                                      "window (its own compressor at index_head_dim)"))
    elif mt in INDEXER_LAYOUT:
        rot = tuple(i for s in attn if not s.nope and s.layers for i in s.layers)
        if rot:
            out.append(SitePlan("indexer", rot, None, attn[0].entry if attn else None,
                                note=f"the attention's cos/sin, {INDEXER_LAYOUT[mt]} pairs (HF's, per model type)"))
    tail = cfg.get("layer_types") if isinstance(cfg.get("layer_types"), list) else []
    for k, e in enumerate(step_mtp_entries(cfg)):
        lt = tail[n + k] if len(tail) > n + k else "full_attention"
        out.append(SitePlan("draft", (n + k,), lt, None, own=e,
                            note="an MTP layer: the per-layer lists' trailing entry (HF does not run MTP layers)"))
    k = cfg.get("num_nextn_predict_layers")
    if mt in MTP_AS_DECODER_LAYER and isinstance(k, int) and not isinstance(k, bool) and k > 0 and attn:
        first = next((s for s in attn if not s.nope), None)
        if first is not None:
            out.append(SitePlan("draft", tuple(range(n, n + k)), first.layer_type, first.entry, first.layer,
                                note="MTP layers: engines run each as a decoder layer with the main model's RoPE "
                                     "(vLLM's deepseek_mtp.py; HF does not run MTP layers)"))
    return out


def select(plans: tuple[SitePlan, ...], *, layer_type: str | None, layer: int | None) -> list[SitePlan]:
    """The attention sites a ``layer_type=`` / ``layer=`` selection covers."""
    attn = [s for s in plans if s.module == "attention"]
    if layer is not None:
        got = [s for s in attn if s.layers is not None and layer in s.layers]
        return got or attn
    if layer_type is not None:
        got = [s for s in attn if layer_type in (s.layer_type, s.entry)]
        return got or attn
    return attn
