"""Generate ``pe_symbolic/hf_defaults.json``: each transformers ``model_type``'s RoPE-relevant defaults.

``python tools/gen_hf_defaults.py [--check]`` instantiates every ``PretrainedConfig`` subclass
of the installed transformers (``transformers.models.*.configuration_*``) and records, for each
``model_type`` whose defaults carry a RoPE field (a ``rope_parameters`` dict, or a key naming
``rope`` / ``rotary``), what :mod:`pe_symbolic._hfconfig` needs to read a *sparse*
``config.json`` as that class reads it, with no transformers import at run time:

* ``defaults``: the class's values, at no arguments, of the keys the RoPE parser reads
  (``hidden_size``, ``num_attention_heads``, ``num_key_value_heads``, ``head_dim``,
  ``max_position_embeddings``, ``num_hidden_layers``, ``partial_rotary_factor``,
  ``qk_rope_head_dim``, ``global_head_dim``, ``rotary_dim``, ``original_max_position_embeddings``)
  and ``rope_parameters`` as HF holds it (standardised, nested per layer type where the class
  nests it);
* ``head_dim``: ``"fixed"`` (the class's value, whatever else the config says) or
  ``"derived"`` (HF computes it from other keys: ``hidden_size // num_attention_heads``, or
  ``qk_rope_head_dim``), found by instantiating the class with those keys changed;
* ``rope``: how HF routes the legacy keys, found the same way: which entries of the
  rope dict ``rope_theta``, ``rope_local_base_freq``, ``rope_scaling`` and
  ``partial_rotary_factor`` land in (``[""]``: the flat dict; ``[]``: nowhere), each entry's
  default, and whether a ``rope_parameters`` given in the config replaces the default or not;
* ``layer_types``: the period HF repeats when the config gives ``num_hidden_layers`` but not
  ``layer_types`` (``pattern``), and the key that sets the period, where one does
  (``pattern_key``: Gemma 3's ``sliding_window_pattern``), checked at several layer counts;
* ``attribute_map`` (``n_embd`` -> ``hidden_size``, ...) and ``text_config``: the
  ``model_type`` of a composite config's text part.

``--check`` regenerates in memory and exits 1 when the shipped file differs (stale for the
installed transformers). Needs ``transformers`` (torch is not needed for config classes).
"""

from __future__ import annotations

import argparse
import copy
import importlib
import json
import pkgutil
import re
import sys
import warnings
from pathlib import Path
from typing import Any

OUT = Path(__file__).resolve().parents[1] / "pe_symbolic" / "hf_defaults.json"

#: Scalar keys the RoPE parser reads whose class default a sparse config leaves to HF.
SCALARS = ("hidden_size", "num_attention_heads", "num_key_value_heads", "head_dim", "max_position_embeddings",
           "num_hidden_layers", "partial_rotary_factor", "qk_rope_head_dim", "global_head_dim", "rotary_dim",
           "original_max_position_embeddings", "embed_dim", "memory_attention_hidden_size",
           "memory_attention_num_attention_heads", "memory_attention_downsample_rate")
#: Keys the HF attention reads to decide whether a layer rotates (a guard around its
#: ``apply_rotary_pos_emb``), and the MTP layer count: filled when the config leaves them out.
GUARD_KEYS = ("sliding_window", "use_mem_rope", "prefix_dense_sliding_window_pattern", "num_nextn_predict_layers")
#: Model types whose rotary embedding does not read the ``rotary_dim`` their class carries
#: (the parser warns on it; a filled default would warn on a key the user never wrote).
ROTARY_DIM_UNREAD = frozenset({"minimax_m3_vl_text", "minimax_m3_vl"})
#: Keys that may set the period of a derived ``layer_types`` list.
PATTERN_KEYS = ("sliding_window_pattern", "global_attn_every_n_layers", "full_attn_interval", "layer_group_size",
                "sliding_window_ratio", "swa_ratio", "full_attention_interval", "interleave_moe_layer_step")
#: Canonical keys whose attribute-map names are read in a config without a ``model_type``.
ALIASED = ("hidden_size", "num_attention_heads", "num_key_value_heads", "num_hidden_layers", "max_position_embeddings")
MARK_THETA, MARK_LOCAL, MARK_FACTOR, MARK_PRF = 12345.0, 23456.0, 3.0, 0.5
#: Sub-config keys that hold a composite model's language model, in the order looked for.
TEXT_KEYS = ("text_config", "thinker_config", "decoder_config", "decoder", "language_config", "llm_config",
             "vlm_config")
#: Per-layer lists that say which layers rotate (HF derives them from ``num_hidden_layers``).
ROPE_MASK_KEYS = ("no_rope_layers", "layer_rope_theta")


def _classes():
    import transformers.models as tm
    from transformers import PretrainedConfig

    for info in sorted(pkgutil.iter_modules(tm.__path__), key=lambda i: i.name):
        try:
            mod = importlib.import_module(f"transformers.models.{info.name}.configuration_{info.name}")
        except Exception:  # a model whose config needs an optional dependency
            continue
        for name in sorted(dir(mod)):
            cls = getattr(mod, name)
            if isinstance(cls, type) and issubclass(cls, PretrainedConfig) and cls.__module__ == mod.__name__ \
                    and cls.__name__ == name and isinstance(getattr(cls, "model_type", None), str) and cls.model_type:
                yield cls


def _build(cls, *, validate: bool = True, **kw) -> Any:
    """``cls(**kw)`` (HF's warnings and logs silenced), or ``None`` when it raises.

    ``validate=False`` skips HF's ``validate_rope`` (a probe's marker dict, e.g. a ``linear``
    type where Phi-3's class accepts only ``longrope``, must still show where it goes)."""
    saved = []
    if not validate:  # huggingface_hub's strict dataclasses keep the validators in a list per class
        for klass in cls.__mro__:
            vals = klass.__dict__.get("__class_validators__")
            if vals is not None:
                saved.append((klass, vals))
                klass.__class_validators__ = [v for v in vals if v.__name__ != "validate_rope"]
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return cls(**copy.deepcopy(kw))
    except Exception:
        return None
    finally:
        for klass, vals in saved:
            klass.__class_validators__ = vals


def _dict(obj) -> dict[str, Any] | None:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return obj.to_dict()
    except Exception:
        return None


def _has_rope(d: Any) -> bool:
    if isinstance(d, dict):
        return any(("rope" in str(k).lower() or "rotary" in str(k).lower()) or _has_rope(v) for k, v in d.items())
    if isinstance(d, list):
        return any(_has_rope(v) for v in d)
    return False


def _nested(rp: Any) -> bool:
    return isinstance(rp, dict) and bool(rp) and all(isinstance(v, dict) or v is None for v in rp.values()) \
        and any(isinstance(v, dict) for v in rp.values())


def _landing(rp: Any, key: str, value: Any) -> list[str] | None:
    """Where ``rp[...][key] == value``: entry names, ``[""]`` for the flat dict, ``[]``."""
    if not isinstance(rp, dict):
        return None
    if _nested(rp):
        return sorted(k for k, v in rp.items() if isinstance(v, dict) and v.get(key) == value)
    return [""] if rp.get(key) == value else []


def _json_safe(x: Any) -> Any:
    if isinstance(x, dict):
        return {str(k): _json_safe(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_json_safe(v) for v in x]
    if isinstance(x, (bool, int, float, str)) or x is None:
        return x
    return repr(x)


def _period(seq: list) -> list | None:
    for p in range(1, len(seq) // 2 + 1):
        if all(seq[i] == seq[i % p] for i in range(len(seq))):
            return seq[:p]
    return None


def _layer_types(cls, d0: dict[str, Any]) -> dict[str, Any] | None:
    """How HF derives ``layer_types`` from ``num_hidden_layers`` (a repeated pattern), checked."""
    if not isinstance(d0.get("layer_types"), list) or "num_hidden_layers" not in d0:
        return None
    lists = {}
    for n in (24, 13, 7, 36):
        obj = _build(cls, num_hidden_layers=n)
        lt = getattr(obj, "layer_types", None) if obj is not None else None
        if not isinstance(lt, list) or len(lt) != n:
            return {"pattern": None}
        lists[n] = list(lt)
    pat = _period(lists[36])
    if pat is None or any(lists[n] != [pat[i % len(pat)] for i in range(n)] for n in lists):
        return {"pattern": None}
    out: dict[str, Any] = {"pattern": pat}
    for key in PATTERN_KEYS:
        if key in d0 and not isinstance(d0[key], int):
            continue
        for k in (3, 4):
            obj = _build(cls, num_hidden_layers=24, **{key: k})
            lt = getattr(obj, "layer_types", None) if obj is not None else None
            if isinstance(lt, list) and lt != lists[24]:
                p = _period(lt)
                # the form "k - 1 of the first kind, then one of the last", as Gemma's pattern
                if p is None or len(p) != k or p != [pat[0]] * (k - 1) + [pat[-1]] or \
                        pat != [pat[0]] * (len(pat) - 1) + [pat[-1]]:
                    out["pattern_key_unsupported"] = key
                    break
                out["pattern_key"] = key
        if "pattern_key" in out or "pattern_key_unsupported" in out:
            break
    return out


def _rope_mask_rule(cls, d0: dict[str, Any], key: str) -> dict[str, Any] | None:
    """How HF derives a per-layer RoPE list (``no_rope_layers``: 1 rotates; ``layer_rope_theta``:
    0 is NoPE) from ``num_hidden_layers`` when the config gives none: ``{"rope": [0/1 ...],
    "align": "start" | "end"}`` (layer ``i`` rotates when ``rope[i % p]``, counted from the first
    layer or from the last), with ``pattern_key`` (the key that sets the period, SmolLM3's
    ``no_rope_layer_interval``) where one does; checked at several layer counts."""
    if not isinstance(d0.get(key), list) or "num_hidden_layers" not in d0:
        return None
    masks = {}
    for n in (24, 13, 7, 36):
        obj = _build(cls, num_hidden_layers=n)
        v = getattr(obj, key, None) if obj is not None else None
        if not isinstance(v, list) or len(v) != n:
            return {"rope": None}
        masks[n] = [1 if x else 0 for x in v]
    for align in ("start", "end"):
        def at(m: list, i: int) -> int:
            return m[i] if align == "start" else m[len(m) - 1 - i]
        seq = [at(masks[36], i) for i in range(36)]
        pat = _period(seq) or (seq if all(seq) or not any(seq) else None)
        if pat is None or len(pat) > 12:
            continue
        if all(at(masks[n], i) == pat[i % len(pat)] for n in masks for i in range(n)):
            out: dict[str, Any] = {"rope": pat[:1] if len(set(pat)) == 1 else pat, "align": align}
            for pk in ("no_rope_layer_interval",):
                obj = _build(cls, num_hidden_layers=24, **{pk: 3})
                v = getattr(obj, key, None) if obj is not None else None
                if isinstance(v, list) and [1 if x else 0 for x in v] == [int((i + 1) % 3 != 0) for i in range(24)]:
                    out["pattern_key"] = pk
            return out
    return {"rope": None}


def _text_sub(cls) -> dict[str, Any] | None:
    """The language model's part of a composite config: the path of sub-config keys to it
    (``["thinker_config", "text_config"]`` for Qwen2.5-Omni, ``["decoder"]`` for T5Gemma), its
    ``model_type``, and the values the wrapper builds it with where they differ from the text
    class's own defaults (Voxtral-Realtime: ``head_dim`` 128), plus whether a text dict the
    config gives is merged over them (``merged``)."""
    path: list[str] = []
    cur = cls
    init: dict[str, Any] = {}
    for _ in range(3):
        specs = getattr(cur, "sub_configs_defaults", None) or {}
        inst = _build(cur)
        enc_dec = bool(getattr(inst, "is_encoder_decoder", False)) if inst is not None else False
        # a decoder is the language model only in an encoder-decoder (BLT's decoder_config is a byte decoder)
        key = next((k for k in TEXT_KEYS if k in specs and (enc_dec or not k.startswith("decoder"))), None)
        if key is None:
            break
        spec = specs[key]
        sub = getattr(spec, "config_class", spec)
        mt_ = getattr(spec, "model_type", None) or getattr(sub, "model_type", None)
        if not (isinstance(sub, type) and issubclass(sub, _pretrained())):
            try:
                from transformers.models.auto.configuration_auto import CONFIG_MAPPING

                sub = CONFIG_MAPPING[mt_]
            except Exception:
                break
        path.append(key)
        cur = sub
        init = dict(getattr(spec, "init_kwargs", None) or {})
    if not path:
        return None
    obj = _build(cls)
    part = obj
    for key in path:
        part = getattr(part, key, None) if part is not None else None
    own = _build(cur)
    d_part, d_own = (_dict(part) if part is not None else None), (_dict(own) if own is not None else None)
    out: dict[str, Any] = {"path": path, "model_type": getattr(cur, "model_type", None)}
    if d_part is not None and d_own is not None:
        keys = SCALARS + ("rope_parameters", "layer_types", "sliding_window")
        # what the wrapper passes (its init kwargs) and what it holds otherwise than the text class
        diff = {k: d_part[k] for k in keys if k in d_part and (k in init or d_part.get(k) != d_own.get(k))}
        if diff:
            out["defaults"] = diff
            if len(path) == 1:
                probe = _build(cls, **{path[0]: {"model_type": out["model_type"]}})
                held = getattr(probe, path[0], None) if probe is not None else None
                d_held = _dict(held) if held is not None else None
                out["merged"] = bool(d_held) and all(d_held.get(k) == v for k, v in diff.items())
    return out


def _pretrained():
    from transformers import PretrainedConfig

    return PretrainedConfig


#: Modeling-code functions that apply a rotation (called from an attention's forward).
_ROTATING_CALL = re.compile(r"(apply_rotary|apply_rope|rotate_half|rotate_every_two|rotate_pairwise|apply_rotary_emb"
                            r"|_apply_rotary)", re.I)


def _applies_rotary(cls) -> bool | None:
    """Whether the model's modeling module calls a rotation anywhere outside the rotary
    embedding classes and the rotation functions themselves (``None``: no modeling module).
    ``False`` means HF's model applies no RoPE, whatever RoPE keys its config carries
    (Nemotron-H, Jamba: the attention takes no position embeddings)."""
    import ast

    mod = importlib.import_module(cls.__module__)
    path = Path(mod.__file__).with_name(Path(mod.__file__).name.replace("configuration_", "modeling_"))
    if not path.exists():
        return None
    tree = ast.parse(path.read_text(encoding="utf-8"))

    def calls(node) -> bool:
        for n in ast.walk(node):
            if isinstance(n, ast.Call):
                f = n.func
                name = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""
                if _ROTATING_CALL.search(name):
                    return True
        return False

    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            if node.name.endswith(("RotaryEmbedding", "RotaryPositionalEmbedding")):
                continue
            for item in node.body:
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and calls(item):
                    return True
    return False


def _head_dim_rule(cls, d0: dict[str, Any]) -> dict[str, Any] | None:
    """Where HF's class takes ``head_dim`` from: ``{"from": ..., "kept": bool}``.

    ``from``: ``"fixed"`` (the class default, whatever else the config says), ``"hidden_size //
    num_attention_heads"``, ``"qk_nope_head_dim + qk_rope_head_dim"`` (Mistral 4),
    ``"qk_rope_head_dim"`` (DeepSeek-style MLA) or a copied key; ``kept``: whether a ``head_dim``
    the config gives is kept (``False``: the class overwrites it)."""
    stored = (getattr(cls, "attribute_map", {}) or {}).get("head_dim", "head_dim")  # JetMoE: kv_channels
    hd = d0.get(stored)
    if not isinstance(hd, int) or isinstance(hd, bool):
        return None

    def head(**kw) -> Any:
        obj = _build(cls, **kw)
        d = _dict(obj) if obj is not None else None
        return None if d is None else d.get(stored, "absent")

    out: dict[str, Any] = {"from": "fixed"}
    h, n = d0.get("hidden_size"), d0.get("num_attention_heads")
    nope, rope = d0.get("qk_nope_head_dim"), d0.get("qk_rope_head_dim")
    if isinstance(nope, int) and isinstance(rope, int) and nope > 0 and rope > 0 and \
            head(qk_nope_head_dim=nope + 16) == hd + 16 and head(qk_rope_head_dim=rope + 16) == hd + 16:
        out["from"] = "qk_nope_head_dim + qk_rope_head_dim"
    elif isinstance(rope, int) and rope > 0 and head(qk_rope_head_dim=3 * rope) == 3 * rope:
        out["from"] = "qk_rope_head_dim"
    elif isinstance(h, int) and isinstance(n, int) and n > 0 and all(
            head(hidden_size=m * h) == m * h // n != hd for m in (3, 5)):
        out["from"] = "hidden_size // num_attention_heads"
    else:
        for key in ("kv_channels", "attention_head_dim"):
            v = d0.get(key)
            if isinstance(v, int) and v > 0 and head(**{key: 3 * v}) == 3 * v:
                out["from"] = key
                break
    out["kept"] = head(head_dim=3 * hd) == 3 * hd
    return out


def _copies(cls, d0: dict[str, Any]) -> dict[str, str]:
    """Scalar keys HF's class sets from another key (MusicFlamingo: ``max_position_embeddings``
    is ``rope_theta``)."""
    obj = _build(cls, rope_theta=MARK_THETA)
    d = _dict(obj) if obj is not None else None
    if d is None:
        return {}
    return {k: "rope_theta" for k in SCALARS if d.get(k) == MARK_THETA and d0.get(k) != MARK_THETA}


def _rope_of(cls, **kw) -> Any:
    """``cls(**kw).to_dict()["rope_parameters"]``; ``"error"`` where HF raises."""
    obj = _build(cls, validate=False, **kw)
    d = _dict(obj) if obj is not None else None
    return "error" if d is None else d.get("rope_parameters")


def _rope_rules(cls, d0: dict[str, Any]) -> dict[str, Any]:
    """How HF's class turns a config's rope keys into the ``rope_parameters`` it holds.

    Routings (lists of entries, ``""`` the flat dict) say where a legacy top-level key lands;
    templates are what HF holds for a marker rope dict (``{"rope_type": "linear", "factor":
    3.0}``): the entries carrying the marker show where a given dict goes and what HF
    completes it with (``rope_theta``, ``partial_rotary_factor``, ...).
    """
    rp0 = d0.get("rope_parameters")
    nested = _nested(rp0)
    marker = {"rope_type": "linear", "factor": MARK_FACTOR}
    out: dict[str, Any] = {"nested": nested}
    if nested:
        out["keys"] = sorted(rp0)  # HF builds some from set(layer_types): sorted, so the file is reproducible

    def route(kw: dict[str, Any], key: str, mark: float, base: Any) -> list[str] | None:
        rp = _rope_of(cls, **kw)
        land = _landing(rp, key, mark) if rp != "error" else None
        if land is None:
            return None
        already = (_landing(base, key, mark) or []) if base not in (None, "error") else []
        return [x for x in land if x not in already]

    # legacy keys without a rope dict
    out["theta"] = route({"rope_theta": MARK_THETA}, "rope_theta", MARK_THETA, rp0)
    out["local"] = route({"rope_local_base_freq": MARK_LOCAL}, "rope_theta", MARK_LOCAL, rp0)
    out["prf"] = route({"partial_rotary_factor": MARK_PRF}, "partial_rotary_factor", MARK_PRF, rp0)
    out["base_alias"] = route({"rotary_emb_base": MARK_THETA}, "rope_theta", MARK_THETA, rp0)
    out["pct_alias"] = route({"rotary_pct": MARK_PRF}, "partial_rotary_factor", MARK_PRF, rp0)
    # a legacy rope_scaling, alone and with rope_theta / partial_rotary_factor beside it
    scaling = _rope_of(cls, rope_scaling=marker)
    out["scaling"] = None if scaling == "error" else scaling
    out["theta_with_scaling"] = route({"rope_scaling": marker, "rope_theta": MARK_THETA}, "rope_theta", MARK_THETA,
                                      scaling)
    out["prf_with_scaling"] = route({"rope_scaling": marker, "partial_rotary_factor": MARK_PRF},
                                    "partial_rotary_factor", MARK_PRF, scaling)
    # a rope_parameters given flat; for nested classes also given nested (every entry, or the
    # first only: does HF complete the others?)
    flat = _rope_of(cls, rope_parameters=marker)
    out["given_flat"] = None if flat == "error" else flat
    out["theta_with_flat"] = route({"rope_parameters": marker, "rope_theta": MARK_THETA}, "rope_theta", MARK_THETA,
                                   flat)
    if nested:
        every = {k: dict(marker) for k in rp0}
        full = _rope_of(cls, rope_parameters=every)
        out["given_nested"] = None if full == "error" else full
        out["theta_with_nested"] = route({"rope_parameters": every, "rope_theta": MARK_THETA}, "rope_theta",
                                         MARK_THETA, full)
        out["local_with_nested"] = route({"rope_parameters": every, "rope_local_base_freq": MARK_LOCAL},
                                         "rope_theta", MARK_LOCAL, full)
        first = out["keys"][0]
        part = _rope_of(cls, rope_parameters={first: dict(marker)})
        out["given_first_only"] = None if part == "error" else part
    # a partial_rotary_factor the class derives as qk_rope_head_dim / head_dim (Mistral 4, Dots3)
    q, h = d0.get("qk_rope_head_dim"), d0.get("head_dim")
    if isinstance(q, int) and isinstance(h, int) and q > 0 and h > 0:
        rp = _rope_of(cls, qk_rope_head_dim=q // 2)
        obj = _build(cls, validate=False, qk_rope_head_dim=q // 2)
        held = (_dict(obj) or {}).get("head_dim", h) if obj is not None else h
        out["prf_from_qk"] = sorted(n for n, v in (rp.items() if _nested(rp) else [("", rp)])
                                    if isinstance(v, dict) and isinstance(held, int) and held
                                    and v.get("partial_rotary_factor") == (q // 2) / held) \
            if isinstance(rp, dict) else []
    # a legacy dict naming its type "type" (not "rope_type"): the type HF holds per marked entry
    typed = _rope_of(cls, rope_scaling={"type": "linear", "factor": MARK_FACTOR})
    if isinstance(typed, dict):
        held = {k: v.get("rope_type") for k, v in (typed.items() if _nested(typed) else [("", typed)])
                if isinstance(v, dict) and v.get("factor") == MARK_FACTOR}
        if any(t != "linear" for t in held.values()):
            out["type_key_ignored"] = sorted(k for k, t in held.items() if t != "linear")
    # rope types the class renames (Phi-3: a legacy "yarn" or "su" is "longrope")
    renames = {}
    for rt in ("su", "yarn", "linear", "dynamic", "llama3", "longrope", "mrope", "default"):
        rp = _rope_of(cls, rope_scaling={"rope_type": rt, "factor": MARK_FACTOR})
        entries = [v for v in (rp.values() if _nested(rp) else [rp]) if isinstance(v, dict)] \
            if isinstance(rp, dict) else []
        got = {v.get("rope_type") for v in entries if v.get("factor") == MARK_FACTOR}
        if len(got) == 1 and got != {rt}:
            renames[rt] = got.pop()
    if renames:
        out["renames"] = renames
    return out


def _per_layer(cls, d0: dict[str, Any]) -> dict[str, Any] | None:
    """HF 5.x ``per_layer_config`` at the defaults, as overrides per layer type, and the
    top-level key (Gemma 4's ``global_head_dim``) that sets the full-attention head dim."""
    plc, lt = d0.get("per_layer_config"), d0.get("layer_types")
    if not plc or not isinstance(lt, list):
        return None
    by_type: dict[str, Any] = {}
    for idx, over in plc.items():
        t = lt[int(idx)]
        if by_type.setdefault(t, over) != over:
            return {"by_layer_type": None}
    out: dict[str, Any] = {"by_layer_type": by_type}
    for key in ("global_head_dim",):
        hd = next((o.get("head_dim") for o in by_type.values() if "head_dim" in o), None)
        if hd is None:
            continue
        obj = _build(cls, **{key: 2 * hd})
        d = _dict(obj) if obj is not None else None
        if d and any(o.get("head_dim") == 2 * hd for o in (d.get("per_layer_config") or {}).values()):
            out["head_dim_from"] = key
    return out


def _entry(cls) -> dict[str, Any] | None:
    obj = _build(cls)
    if obj is None:
        return None
    d0 = _dict(obj)
    if d0 is None:
        return None
    mt = cls.model_type
    e: dict[str, Any] = {"class": cls.__name__}
    subs = getattr(cls, "sub_configs", None) or {}
    text = subs.get("text_config")
    text_mt = getattr(getattr(text, "config_class", text), "model_type", None)
    if isinstance(text_mt, str) and text_mt and text_mt != mt:
        e["text_config"] = text_mt
    sub = _text_sub(cls)
    if sub is not None and isinstance(sub.get("model_type"), str) and sub["model_type"] != mt:
        e["text_config"] = sub["model_type"]
        if sub["path"] != ["text_config"] or sub.get("defaults"):
            e["text"] = sub
    if "text_config" not in e and _applies_rotary(cls) is False:
        e["rotary_applied"] = False  # its modeling code calls no rotation: NoPE whatever the keys say
    if not _has_rope(d0):
        if "text_config" not in e:
            e["no_rope"] = True  # known, and without a RoPE field at its defaults
        return _json_safe(e)
    am = dict(getattr(cls, "attribute_map", {}) or {})
    if am:
        e["attribute_map"] = am
    defaults = {}
    for key in SCALARS:
        if key == "rotary_dim" and mt in ROTARY_DIM_UNREAD:
            continue
        stored = am.get(key, key)
        if d0.get(stored) is not None:
            defaults[key] = d0[stored]
    for key in GUARD_KEYS:
        stored = am.get(key, key)
        if isinstance(d0.get(stored), (bool, int, float)):
            defaults[key] = d0[stored]
    for key in ("position_embedding_type",):  # ESM: "absolute" unless the config says "rotary"
        if isinstance(d0.get(key), str):
            defaults[key] = d0[key]
    rp0 = d0.get("rope_parameters")
    if not rp0 and isinstance(d0.get("rope_theta"), (int, float)):
        defaults["rope_theta"] = d0["rope_theta"]  # a class without rope_parameters (DINOv3's rope_theta 100)
    if isinstance(rp0, dict) and rp0:
        defaults["rope_parameters"] = rp0
        e["rope"] = _rope_rules(cls, d0)
        drt = getattr(cls, "default_rope_type", "default")
        if drt != "default":
            e["default_rope_type"] = drt
    held = getattr(obj, "layer_types", None)  # the list HF holds (to_dict may write another: Dory's "mlp"s)
    if isinstance(d0.get("layer_types"), list) and isinstance(held, list):
        e["layer_types"] = _layer_types(cls, d0)
        pat = (e["layer_types"] or {}).get("pattern")
        n = d0.get("num_hidden_layers")
        if not (pat and isinstance(n, int) and held == [pat[i % len(pat)] for i in range(n)]):
            defaults["layer_types"] = list(held)  # not the repeated pattern: kept as it is
    for key in ROPE_MASK_KEYS:
        rule = _rope_mask_rule(cls, d0, key)
        if rule is not None:
            e.setdefault("rope_masks", {})[key] = rule
    plc = _per_layer(cls, d0)
    if plc is not None:
        e["per_layer_config"] = plc
    e["defaults"] = defaults
    if "head_dim" in defaults:
        e["head_dim"] = _head_dim_rule(cls, d0)
        if e["head_dim"] is not None and am.get("head_dim", "head_dim") != "head_dim" \
                and e["head_dim"]["from"] == am["head_dim"]:
            e["head_dim"]["from"] = "fixed"  # the stored key is the head dim itself
    copies = _copies(cls, d0)
    if copies:
        e["copies"] = copies
    for key in ("qk_nope_head_dim",):
        if (e.get("head_dim") or {}).get("from", "").startswith(key) and d0.get(key) is not None:
            defaults[key] = d0[key]
    return _json_safe(e)


def generate() -> dict[str, Any]:
    import transformers
    from transformers import configuration_utils as cu

    models: dict[str, Any] = {}
    for cls in _classes():
        e = _entry(cls)
        if e is not None and cls.model_type not in models:
            models[cls.model_type] = e
    # attribute-map names that mean the same key in every class that has them: used for a
    # config without a model_type (n_embd, n_head, ...)
    seen: dict[str, set[str]] = {}
    for e in models.values():
        for canon, stored in e.get("attribute_map", {}).items():
            seen.setdefault(stored, set()).add(canon)
    aliases = {stored: next(iter(c)) for stored, c in sorted(seen.items())
               if len(c) == 1 and next(iter(c)) in ALIASED and stored not in SCALARS}
    return {
        "transformers_version": transformers.__version__,
        "generated_by": "tools/gen_hf_defaults.py",
        "marker": {"rope_type": "linear", "factor": MARK_FACTOR},
        "legacy_layer_types": dict(getattr(cu, "_LEGACY_LAYER_TYPE_REMAP", {})),
        "aliases": aliases,
        "models": dict(sorted(models.items())),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--check", action="store_true", help="exit 1 when the shipped file is stale")
    ap.add_argument("--out", default=str(OUT), help=f"where to write (default {OUT})")
    args = ap.parse_args(argv)
    import logging

    logging.disable(logging.WARNING)
    data = generate()
    text = json.dumps(data, indent=1, sort_keys=True) + "\n"  # reproducible (HF builds some dicts from sets)
    if args.check:
        old = Path(args.out).read_text(encoding="utf-8") if Path(args.out).exists() else ""
        if old != text:
            print(f"{args.out} is stale for transformers {data['transformers_version']}: run tools/gen_hf_defaults.py")
            return 1
        print(f"{args.out}: up to date ({len(data['models'])} model types)")
        return 0
    Path(args.out).write_text(text, encoding="utf-8")
    print(f"wrote {args.out}: {len(data['models'])} model types, transformers {data['transformers_version']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
