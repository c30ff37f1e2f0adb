"""Model families whose RoPE the generic reading does not capture: one small reader each.

Each reader is written from the family's HF code (file and class named beside it) and does
one of three things, looked up in a registry the parser walks in one place
(``pe_symbolic.numeric._parse.read_spec``):

* **rope dicts** (``DICT_READERS``): turn what the config holds into one rope dict per
  entry, as the family's HF config class does -- DeepSeek-V4's ``main`` / ``compress``,
  Gemma 3's older ``rope_local_base_freq``, Step3p5 / Step3p7's per-layer ``rope_theta`` and
  ``partial_rotary_factors`` lists, per-layer-type dicts with scalar siblings (Laguna);
* **one layer's spec** (``SPEC_READERS``): Granite SWA's ``layer_rope_theta`` bases,
  Molmo2's ``rope_scaling_layers``;
* a whole other RoPE (ChatGLM-6B's 2-D positions, ``chatglm_6b``).

Which layers rotate at all is :mod:`pe_symbolic.numeric._sites`' business.
"""

from __future__ import annotations

import dataclasses
import numbers
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ._config_base import _int, _real, _unknown, _user_stacklevel
from ._spec import RopeSpec
from ._variant_readers import CHATGLM_BASE, chatglm_head_dim

__all__ = ["DICT_READERS", "SPEC_READERS", "DictReading"]

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


# ----------------------------------------------------------------------------------------
# Step3p5 / Step3p7: per-layer lists of bases and partial rotary factors

#: Model types whose config carries ``rope_theta`` and ``partial_rotary_factors`` as one value
#: per layer (HF's ``Step3p5Config.__post_init__``, transformers 5.25
#: ``models/step3p7/configuration_step3p7.py``): HF builds one rope dict per layer type from
#: the *first* layer of that type, and the lists may carry ``num_nextn_predict_layers``
#: trailing entries for the MTP (draft) layers, which HF trims.
STEP_LIST_TYPES: frozenset[str] = frozenset({"step3p5", "step3p7"})
#: HF's ``Step3p5Config.default_theta``.
STEP_DEFAULT_THETA = 10000.0


def _as_list(cfg: Mapping[str, Any], key: str) -> list | None:
    v = cfg.get(key)
    if v is None or isinstance(v, (str, bytes)) or not isinstance(v, Sequence):
        return None
    return list(v)


def step_layers(cfg: Mapping[str, Any]) -> tuple[list[str], int, int]:
    """(layer types of the model's layers, layer count, MTP layer count) of a Step3p5 config."""
    n = cfg.get("num_hidden_layers")
    k = cfg.get("num_nextn_predict_layers") or 0
    lt = cfg.get("layer_types")
    if not isinstance(n, int) or isinstance(n, bool):
        n = len(lt) if isinstance(lt, list) else len(_as_list(cfg, "rope_theta") or [None])
    if not isinstance(k, int) or isinstance(k, bool) or k < 0:
        k = 0
    types = list(lt[:n]) if isinstance(lt, list) and len(lt) >= n else ["full_attention"] * n
    return types, n, k


def step_mtp_entries(cfg: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The rope dicts of a Step3p5 config's MTP (draft) layers: the lists' trailing entries."""
    if cfg.get("model_type") not in STEP_LIST_TYPES:
        return []
    _, n, k = step_layers(cfg)
    theta, prf = _as_list(cfg, "rope_theta"), _as_list(cfg, "partial_rotary_factors")
    out = []
    for i in range(n, n + k):
        e: dict[str, Any] = {"rope_type": "default"}
        if theta is not None and len(theta) > i:
            e["rope_theta"] = theta[i]
        if prf is not None and len(prf) > i:
            e["partial_rotary_factor"] = prf[i]
        if len(e) > 1:
            out.append(e)
    return out


def _step_lists(cfg: Mapping[str, Any], where: str, params: Mapping[str, Any], strict: bool) -> DictReading | None:
    """Step3p5 / Step3p7: one rope dict per layer type, from the first layer of the type (HF's
    rule); a warning when the other layers of the type say otherwise (HF takes the first
    silently)."""
    if cfg.get("model_type") not in STEP_LIST_TYPES:
        return None
    types, n, k = step_layers(cfg)
    if params and all(isinstance(params.get(t), Mapping) for t in set(types)):
        return DictReading(where, {t: params[t] for t in dict.fromkeys(types)})  # already per type: HF keeps it
    theta = _as_list(cfg, "rope_theta")
    prf = _as_list(cfg, "partial_rotary_factors")
    for key, vals in (("rope_theta", theta), ("partial_rotary_factors", prf)):
        if vals is not None and len(vals) not in (n, n + k):
            raise ValueError(f"config[{key!r}] has {len(vals)} entries; HF's {cfg.get('model_type')} config needs one "
                             f"per layer (num_hidden_layers = {n}"
                             + (f", or {n + k} with num_nextn_predict_layers = {k} MTP layers" if k else "") + ")")
    scalar_theta = cfg.get("rope_theta", STEP_DEFAULT_THETA) if theta is None else None
    out: dict[str, dict[str, Any]] = {}
    for t in dict.fromkeys(types):
        idx = [i for i, x in enumerate(types) if x == t]
        i = idx[0]
        e: dict[str, Any] = {"rope_type": "default", "rope_theta": theta[i] if theta is not None else scalar_theta}
        if prf is not None:
            e["partial_rotary_factor"] = prf[i]
        for key, vals in (("rope_theta", theta), ("partial_rotary_factors", prf)):
            if vals is None:
                continue
            other = sorted({repr(vals[j]) for j in idx if vals[j] != vals[i]})
            if other:
                warnings.warn(
                    f"config[{key!r}] gives the {t!r} layers different values ({vals[i]!r} at layer {i}, and "
                    f"{', '.join(other)} elsewhere): HF's {cfg.get('model_type')} config builds one rope dict per layer "
                    f"type from its first layer, so layers {[j for j in idx if vals[j] != vals[i]][:8]} run with "
                    f"{vals[i]!r}; read as HF does", UserWarning, stacklevel=_user_stacklevel())
        out[t] = e
    legacy = cfg.get("rope_scaling")
    if isinstance(legacy, Mapping) and legacy and "full_attention" in out:
        out["full_attention"].update(legacy)  # HF: rope_parameters["full_attention"].update(rope_scaling)
        only = cfg.get("yarn_only_types")
        if only is not None and list(only) != ["full_attention"]:
            _unknown(f"config['yarn_only_types']={only!r} is not read by HF's {cfg.get('model_type')} config, which "
                     "scales the full_attention layers only (rope_parameters['full_attention'].update(rope_scaling)); "
                     "vLLM reads it: the engines disagree; read as HF does", strict)
    return DictReading(f"{where} (as HF's {cfg.get('model_type')} config builds it from the per-layer lists)", out)


# ----------------------------------------------------------------------------------------
# per-layer-type dicts with scalar siblings (Laguna, Gemma 3 text with YaRN)

#: Scalar keys beside per-layer-type dicts that HF reads for every entry: YaRN's
#: ``_compute_yarn_parameters`` reads ``config.rope_parameters.get("truncate", True)`` from the
#: top of the rope dict, even when the dict is nested per layer type (transformers 5.25
#: ``modeling_rope_utils.py``).
SIBLINGS_READ: tuple[str, ...] = ("truncate",)


def _siblings(cfg: Mapping[str, Any], where: str, params: Mapping[str, Any], strict: bool) -> DictReading | None:
    """A rope dict of per-layer-type dicts with scalar keys beside them: HF's rotary embedding
    reads each layer type's own dict (``config.rope_parameters[layer_type]``), so a sibling is
    not read -- except ``truncate``, which YaRN reads from the top (:data:`SIBLINGS_READ`)."""
    if not isinstance(params, Mapping) or not any(isinstance(v, Mapping) for v in params.values()):
        return None
    scalars = {k: v for k, v in params.items() if not isinstance(v, Mapping) and v is not None}
    if not scalars:
        return None
    lt = cfg.get("layer_types")
    entries = {k: v for k, v in params.items() if isinstance(v, Mapping) or v is None}
    if isinstance(lt, list) and not any(k in lt for k in entries):
        return None  # no entry is a layer type: HF holds one flat dict (the parser names what is wrong)
    out: dict[str, Any] = {}
    ignored: dict[str, tuple[str, ...]] = {}
    for name, e in entries.items():
        if e is None:
            out[name] = None
            continue
        e = dict(e)
        kind = e.get("rope_type", e.get("type", "default"))
        unread = []
        for key, v in scalars.items():
            if key in SIBLINGS_READ and kind in ("yarn", "deepseek_yarn") and key not in e:
                e[key] = v
            elif key not in SIBLINGS_READ or kind not in ("yarn", "deepseek_yarn"):
                unread.append(key)
                if key in e or key not in ("original_max_position_embeddings", "factor", "rope_theta"):
                    continue
                if kind != "default" or key == "rope_theta":
                    _unknown(f"{where}[{key!r}]={v!r} sits beside the per-layer-type dicts, where HF's rotary embedding "
                             f"does not read it: the {name!r} layers read their own dict, which has no {key!r} "
                             "(HF uses its default there, and so does this reading)", strict)
        out[name] = e
        if unread:
            ignored[name] = tuple(unread)
    return DictReading(where, out, ignored=ignored)


# ----------------------------------------------------------------------------------------
# the registry


@dataclass(frozen=True)
class DictReading:
    """A family's rope dicts as its HF config class holds them."""

    where: str
    """Where they come from (for messages)."""
    params: Mapping[str, Any]
    """One rope dict, or one per entry (layer type or label)."""
    labels: Mapping[str, str] = dataclasses.field(default_factory=dict)
    """HF layer type -> entry, where the entries are not layer types (DeepSeek-V4)."""
    ignored: Mapping[str, tuple[str, ...]] = dataclasses.field(default_factory=dict)
    """Entry -> keys HF does not read there (listed as ignored, not warned)."""
    entry_needed: str = ""
    """The message when ``layer_type=`` is needed and missing ("" : the generic one)."""


def _deepseek_v4(cfg: Mapping[str, Any], where: str, params: Mapping[str, Any], strict: bool) -> DictReading | None:
    if cfg.get("model_type") != "deepseek_v4":
        return None
    nested, ignored = _deepseek_v4_params(cfg, where, params, strict)
    return DictReading(f"{where} (as HF's DeepseekV4Config reads it)", nested, DEEPSEEK_V4_LABELS,
                       {"compress": ignored} if ignored else {},
                       "DeepSeek-V4 (model_type 'deepseek_v4') has two RoPEs: pass layer_type='main' "
                       "(sliding_attention layers, rope_theta) or 'compress' (compressed_sparse_attention / "
                       "heavily_compressed_attention layers, compress_rope_theta); HF's layer types are accepted too")


def _gemma3_legacy(cfg: Mapping[str, Any], where: str, params: Mapping[str, Any], strict: bool) -> DictReading | None:
    if "rope_local_base_freq" not in cfg or any(isinstance(v, Mapping) for v in (params or {}).values()):
        return None
    return DictReading("config (Gemma 3 fields)", _gemma_layers(cfg, params))


#: The rope-dict readers, in the order the parser tries them (the first that applies reads).
DICT_READERS: tuple[tuple[str, Callable[..., DictReading | None]], ...] = (
    ("deepseek_v4", _deepseek_v4),
    ("step3p5 per-layer lists", _step_lists),
    ("gemma3 legacy fields", _gemma3_legacy),
    ("per-layer-type dicts with scalar siblings", _siblings),
)


def _molmo2(cfg: Mapping[str, Any], spec: RopeSpec, layer: int | None) -> RopeSpec | None:
    if cfg.get("rope_scaling_layers") is None or cfg.get("model_type") not in ("molmo2_text", "molmo2"):
        return None
    return _scaling_layers(cfg, spec, layer)


#: Per-layer readers of a parsed spec (the first that applies reads; else ``layer_rope_theta``).
SPEC_READERS: tuple[tuple[str, Callable[[Mapping[str, Any], RopeSpec, int | None], RopeSpec | None]], ...] = (
    ("molmo2 rope_scaling_layers", _molmo2),
    ("layer_rope_theta", _layer_theta),
)
