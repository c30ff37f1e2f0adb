r"""What the config parser understood, per layer: :func:`describe`.

After the ``rope_scaling`` -> ``rope_parameters`` migration (HF transformers 5.x) a config
can say less, or something else, than its author meant. :func:`describe` prints, for each
layer type of a config, what :func:`~pe_symbolic.numeric.rope_frequencies` reads from it:
the rope type, the effective base, the factors, the attention factor, the rotary dims, the
channel layout HF applies, the NoPE layers, and the keys it accepted only because HF
ignores them too. Keys it does not understand warn (or raise under ``strict=True``) exactly
as in :func:`~pe_symbolic.numeric.parse_rope_config`.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from .._display import ShowsItself
from .._hfconfig import NormalizedConfig, normalize, transformers_version
from .config import (
    DEEPSEEK_V4_LABELS,
    LAYER_THETA_MARKS_ONLY,
    YARN_TYPES,
    RopeSpec,
    _per_layer,
    _rope_dicts,
    _ROPE_KEYS,
    emit_notices,
    parse_rope_config,
    rope_frequencies,
    scaling_layer_groups,
)

__all__ = ["ConfigDescription", "ConfigLayoutWarning", "LayerRope", "describe"]

#: HF model types whose attention applies ``apply_rotary_pos_emb_interleave`` by default
#: (their config class defaults ``rope_interleave`` to true): channels come in interleaved
#: pairs ``(x0, x1), (x2, x3), ...`` and the output is in the split (``rotate_half``) layout.
INTERLEAVE_IN_SPLIT_OUT: frozenset[str] = frozenset({"deepseek_v3", "axk1", "glm4_moe_lite", "mistral4", "youtu"})
#: HF model types that call ``apply_rotary_pos_emb_interleave`` unconditionally (HF 5.24;
#: ``dots3_note`` is the flat form of ``dots3_note_text``).
ALWAYS_INTERLEAVE_IN_SPLIT_OUT: frozenset[str] = frozenset({
    "axk2", "bailing_hybrid", "deepseek_v32", "dots3_note", "dots3_note_text", "glm_moe_dsa", "longcat_flash",
    "mistral_large4", "mistral_large4_text"})

_EVERY_TWO = "rotate_every_two on x[..., ::2] / x[..., 1::2], cos/sin repeat_interleave'd"
_HALF = "{fn} on x[..., 0::2] / x[..., 1::2] (stack((-x2, x1), dim=-1)), {tables}"
_OWN_TABLES = "cos/sin repeat_interleave'd by the rotary embedding"
_GLM_TABLES = "apply_rotary_pos_emb repeat_interleaves the first half of cos/sin"
_MROPE_TABLES = "the M-RoPE tables repeat_interleave'd after the section placement"
#: HF model types whose text attention rotates interleaved pairs in and out (HF 5.24), with
#: the HF function that does it (the ``layout`` :func:`describe` prints names it).
INTERLEAVED_BY: dict[str, str] = {
    "gptj": _EVERY_TWO,
    "codegen": _EVERY_TWO,
    "llama4": "apply_rotary_emb: torch.view_as_complex on (..., -1, 2) pairs",
    "llama4_text": "apply_rotary_emb: torch.view_as_complex on (..., -1, 2) pairs",
    "deepseek_v2": "apply_rotary_emb: torch.view_as_complex on (..., -1, 2) pairs times freqs_cis",
    "openai_privacy_filter": "_apply_rotary_emb on x[..., ::2] / x[..., 1::2], stacked back in pairs",
    "roformer": "apply_rotary_position_embeddings: stack([-x[..., 1::2], x[..., ::2]], -1), sinusoidal "
                "positions repeated per pair",
    **{mt: _HALF.format(fn="rotate_half", tables=_OWN_TABLES)
       for mt in ("cohere", "cohere2", "cohere2_moe", "blt", "blt_local_encoder", "blt_local_decoder",
                  "blt_global_transformer", "blt_patcher")},
    **{mt: _HALF.format(fn="rotate_half", tables=_GLM_TABLES)
       for mt in ("glm", "glm4", "helium", "ernie4_5", "ernie4_5_moe", "moonshine", "moonshine_streaming")},
    **{mt: _HALF.format(fn="rotate_half", tables=_GLM_TABLES + " (HYV4VLRotaryEmbedding's interleaved M-RoPE)")
       for mt in ("hy_v4_vl", "hy_v4_vl_text")},
    **{mt: _HALF.format(fn="rotate_half_llm", tables=_MROPE_TABLES)
       for mt in ("glm4v", "glm4v_text", "glm_ocr", "glm_ocr_text")},
    **{mt: _HALF.format(fn="rotate_half_text", tables=_MROPE_TABLES)
       for mt in ("ernie4_5_vl_moe", "ernie4_5_vl_moe_text")},
}
#: HF model types that rotate interleaved pairs in and out (the keys of :data:`INTERLEAVED_BY`).
INTERLEAVED: frozenset[str] = frozenset(INTERLEAVED_BY)


@dataclass(frozen=True)
class LayerRope:
    """What the parser understood for one layer type (``spec is None``: no RoPE there)."""

    layer_type: str | None
    spec: RopeSpec | None
    effective_base: float | None = None
    factors: str = ""
    attention_factor: float | None = None
    layers: tuple[int, ...] | None = None
    """The layer indices this row covers, when ``layer_rope_theta`` gives layers different
    bases (``rope_frequencies(config, layer=layers[0])`` computes it)."""
    layer_indices: tuple[int, ...] | None = None
    """The layers of this row's layer type (from ``layer_types``; ``None`` when the config does
    not list them or the row is for every layer)."""

    @property
    def label(self) -> str:
        """The row's name: the layer type (``"all"``), with its layers when they are listed."""
        name = self.layer_type or "all"
        if self.layers is not None:
            name = ("" if self.layer_type is None else f"{self.layer_type} ") + "layers " + _ranges(self.layers)
        return name

    @property
    def rotary(self) -> str:
        """``"64 of 128"`` (rotated channels of the head; ``"last 64 of 512"`` when they are the
        trailing ones, DeepSeek-V4), with the exponent's d when it differs."""
        if self.spec is None:
            return "-"
        s = self.spec
        out = ("last " if s.rotary_channels == "trailing" else "") + f"{s.rotary_dim} of {s.head_dim}"
        if s.exponent_dim != s.rotary_dim and s.rope_type == "axial":
            out += f" (ladder over d={s.exponent_dim})"
        elif s.exponent_dim != s.rotary_dim:
            out += f" (exponent d={s.exponent_dim}, HF rounds up)"
        return out


def _ranges(idx: tuple[int, ...]) -> str:
    """``(0, 2, 3, 4)`` -> ``"0,2-4"``."""
    out, start = [], None
    for q, v in enumerate(idx):
        if start is None:
            start = v
        if q + 1 == len(idx) or idx[q + 1] != v + 1:
            out.append(str(start) if start == v else f"{start}-{v}")
            start = None
    return ",".join(out)


@dataclass(frozen=True, repr=False)
class ConfigDescription(ShowsItself):
    """The structured result of :func:`describe`; ``str()`` and ``repr()`` give the text table
    (a REPL or a notebook shows it once), ``_repr_html_()`` the same in HTML."""

    layers: tuple[LayerRope, ...]
    layout: str
    nope_layers: tuple[int, ...] | None
    num_hidden_layers: int | None
    notes: tuple[str, ...] = field(default=())
    defaults: str = ""
    """The keys the config left out and the values HF's config class gives them (one line;
    empty when nothing was taken from the class)."""

    def layer_types_with_rope(self) -> list[str | None]:
        """The ``layer_type=`` values :func:`rope_frequencies` accepts for this config."""
        return list(dict.fromkeys(e.layer_type for e in self.layers if e.spec is not None))

    def effective_context(self) -> tuple[int | None, str]:
        """The context the model is configured for, and why: the largest of
        ``max_position_embeddings`` and, for ``yarn`` / ``llama3`` / ``longrope``, ``factor`` times
        ``original_max_position_embeddings`` (over every layer type); ``(None, "")`` when the
        config says neither.

        >>> from pe_symbolic.numeric import model_config
        >>> describe(model_config("qwen2.5-7b-yarn"), quiet=True).effective_context()
        (131072, 'yarn factor 4 x original_max_position_embeddings 32,768')
        >>> describe(model_config("llama-3.1-8b"), quiet=True).effective_context()
        (131072, 'max_position_embeddings')
        """
        best: int | None = None
        why = ""
        for e in self.layers:
            s = e.spec
            if s is None:
                continue
            cands: list[tuple[int, str]] = []
            if s.max_position_embeddings:
                cands.append((s.max_position_embeddings, "max_position_embeddings"))
            if s.rope_type in ("yarn", "telechat3-yarn", "llama3", "longrope") and s.factor \
                    and s.original_max_position_embeddings:
                cands.append((int(round(s.factor * s.original_max_position_embeddings)),
                              f"{s.rope_type} factor {s.factor:g} x original_max_position_embeddings "
                              f"{s.original_max_position_embeddings:,}"))
            for n, w in cands:
                if best is None or n > best:
                    best, why = n, w
        return best, why

    def __str__(self) -> str:
        per_type = any(e.layer_indices is not None for e in self.layers)
        head: tuple[str, ...] = ("layer type", "rope type", "base (effective)", "factors", "attn factor", "rotary dims")
        if per_type:
            head = head[:1] + ("layers",) + head[1:]
        rows = []
        for e in self.layers:
            count: tuple[str, ...] = ()
            if per_type:
                n = f" of {self.num_hidden_layers}" if self.num_hidden_layers is not None else ""
                count = (f"{len(e.layer_indices)}{n}" if e.layer_indices is not None else "-",)
            if e.spec is None:
                rows.append((str(e.layer_type),) + count + ("none (NoPE)", "-", "-", "-", "-"))
                continue
            base = f"{e.spec.rope_theta:.6g}"
            if e.effective_base is not None and e.effective_base != e.spec.rope_theta:
                base += f" ({e.effective_base:.6g})"
            rows.append((e.label,) + count + (e.spec.rope_type, base, e.factors or "-",
                                              f"{e.attention_factor:.6g}", e.rotary))
        widths = [max(len(r[i]) for r in rows + [head]) for i in range(len(head))]
        lines = ["  ".join(c.ljust(w) for c, w in zip(head, widths)).rstrip()]
        lines += ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in rows]
        lines.append(f"layout: {self.layout}")
        if self.nope_layers is not None:
            n = f" of {self.num_hidden_layers}" if self.num_hidden_layers is not None else ""
            shown = ", ".join(map(str, self.nope_layers)) if self.nope_layers else "none"
            lines.append(f"NoPE layers ({len(self.nope_layers)}{n}): {shown}")
        lines += [f"note: {n}" for n in self.notes]
        if self.defaults:
            lines.append(self.defaults)
        return "\n".join(lines)


def _factors(s: RopeSpec) -> str:
    t, parts = s.rope_type, []
    if s.alpha is not None:
        parts.append(f"alpha={s.alpha:g}")
    elif s.factor is not None and t != "default":
        parts.append(f"factor={s.factor:g}")
    if s.mixed_b is not None:
        parts.append(f"mixed_b={s.mixed_b:g} (vLLM's mixed NTK)")
    elif t == "ntk":
        parts.append("vLLM's fixed NTK: (b*s)**(-2i/d) / s**(2/d)")
    if t in YARN_TYPES:
        parts.append(f"beta_fast={s.beta_fast:g}, beta_slow={s.beta_slow:g}")
        if s.mscale is not None or s.mscale_all_dim is not None:
            parts.append(f"mscale={s.mscale}, mscale_all_dim={s.mscale_all_dim}")
        if not s.truncate:
            parts.append("truncate=false")
        if s.extrapolation_factor != 1:
            parts.append(f"extrapolation_factor={s.extrapolation_factor:g}")
        if s.attn_factor != 1:
            parts.append(f"attn_factor={s.attn_factor:g}")
    if t == "llama3":
        parts.append(f"low={s.low_freq_factor:g}, high={s.high_freq_factor:g}")
    if t == "longrope":
        assert s.short_factor is not None and s.long_factor is not None
        parts.append(f"short {min(s.short_factor):.4g}..{max(s.short_factor):.4g}, "
                     f"long {min(s.long_factor):.4g}..{max(s.long_factor):.4g}")
        if s.short_mscale is not None:
            parts.append(f"short_mscale={s.short_mscale:.6g}, long_mscale={s.long_mscale:.6g}")
    if t in ("llama3", "longrope") + YARN_TYPES and s.original_max_position_embeddings is not None:
        parts.append(f"L={s.original_max_position_embeddings}")
    if s.xdrope_section is not None:
        parts.append(f"xdrope_section={list(s.xdrope_section)} ({len(s.xdrope_section)}-axis M-RoPE)")
    if s.mrope_section is not None:
        parts.append(f"mrope_section={list(s.mrope_section)}" + (" interleaved" if s.mrope_interleaved else "")
                     + (" (HF's Ernie 4.5 VL placement: h, w pair by pair, then t)" if s.mrope_rule == "ernie4_5_vl"
                        else ""))
    if s.llama_4_scaling_beta is not None:
        parts.append(f"llama_4_scaling_beta={s.llama_4_scaling_beta:g} (query scale, "
                     f"L={s.original_max_position_embeddings})")
    if s.ignored:
        parts.append("ignored as HF does: " + ", ".join(s.ignored))
    return "; ".join(parts)


def _effective_base(s: RopeSpec) -> float:
    d = s.exponent_dim
    if s.alpha is not None:
        return s.rope_theta * s.alpha ** (d / (d - 2))
    if s.rope_type == "ntk" and s.mixed_b is None:
        # vLLM's fixed NTK: the ladder of base b*s (then every frequency divided by s**(2/d))
        assert s.factor is not None
        return s.rope_theta * s.factor
    return s.rope_theta


def _text(config: Mapping[str, Any]) -> Mapping[str, Any]:
    tc = config.get("text_config")
    if isinstance(tc, Mapping) and not any(k in config for k in _ROPE_KEYS):
        return tc
    return config


def _layer_types(cfg: Mapping[str, Any]) -> tuple[list[str | None], list[str]]:
    """The rows (layer types with a rope entry that some layer has; ``[None]`` for one RoPE)
    and notes on the entries no layer has and the layer types no entry covers."""
    if cfg.get("model_type") == "deepseek_v4":
        return ["main", "compress"], []
    _, params = _rope_dicts(cfg)
    if "rope_local_base_freq" in cfg and not _per_layer(params):
        return ["full_attention", "sliding_attention"], []
    if not _per_layer(params):
        return [None], []
    present = cfg.layer_types_present() if isinstance(cfg, NormalizedConfig) else None
    if present is None:
        return list(params), []
    rows = [t for t in params if t in present]
    notes = [f"rope_parameters[{t!r}] is given, but no layer has that type (layer_types): not used (HF's rotary "
             "embedding computes only the types of layer_types)" for t in params if t not in present]
    missing = [t for t in present if t not in params]
    if missing and rows:
        notes.append(f"layer_types has {', '.join(map(repr, missing))} layers, for which the rope dict has no entry "
                     "(HF's rotary embedding fails on them)")
    return rows or list(params), notes


def _layer_indices(cfg: Mapping[str, Any], layer_type: str | None) -> tuple[int, ...] | None:
    lt = cfg.get("layer_types")
    if layer_type is None or not isinstance(lt, list) or layer_type not in lt:
        return None
    return tuple(i for i, t in enumerate(lt) if t == layer_type)


def _defaults_line(cfg: Mapping[str, Any]) -> str:
    """One line naming the keys taken from HF's config class, with their values."""
    if not isinstance(cfg, NormalizedConfig) or not cfg.filled:
        return ""
    parts: list[str] = []
    for key, v in cfg.filled.items():
        if key in ("num_key_value_heads", "num_hidden_layers"):
            continue  # not RoPE (the layer count shows in the NoPE line)
        if key == "layer_types":
            kinds = list(dict.fromkeys(v))
            counts = ", ".join(f"{v.count(k)} {k}" for k in kinds)
            parts.append(f"layer_types ({counts})")
        elif isinstance(v, float):
            parts.append(f"{key}={v:g}")
        elif isinstance(v, (list, tuple)) and len(v) > 4:
            parts.append(f"{key}=[{len(v)} values]")
        else:
            parts.append(f"{key}={v!r}" if isinstance(v, str) else f"{key}={v}")
    if not parts:
        return ""
    return (f"defaults of HF's {cfg.hf_class} (transformers {transformers_version()}) for the keys the config leaves "
            f"out: {', '.join(parts)}")


def _theta_groups(cfg: Mapping[str, Any]) -> list[tuple[int, ...] | None]:
    """``[None]``, or the layers of each distinct non-zero base of a ``layer_rope_theta``
    whose bases differ (Granite SWA), or Molmo2's scaled and unscaled layers."""
    scaling = scaling_layer_groups(cfg)
    if scaling is not None and scaling[1]:  # Molmo2 with unscaled layers: one row each, unless all read alike
        try:
            parse_rope_config(cfg)
            return [None]  # a default rope type: scaled and unscaled layers are the same
        except ValueError:
            return [g for g in scaling if g]
    lrt = cfg.get("layer_rope_theta")
    if not isinstance(lrt, list) or cfg.get("model_type") in LAYER_THETA_MARKS_ONLY:
        return [None]
    groups: dict[float, list[int]] = {}
    for i, t in enumerate(lrt):
        if isinstance(t, (int, float)) and t:
            groups.setdefault(float(t), []).append(i)
    if len(groups) <= 1:
        return [None]
    return [tuple(v) for _, v in sorted(groups.items())]


def _hf_layout(cfg: Mapping[str, Any]) -> tuple[str, str]:
    """HF's channel layout for ``cfg`` (the text config): a kind (``"split"``,
    ``"interleaved"``, ``"interleaved-in-split-out"``, ``"trailing-interleaved"``) and the
    sentence :func:`describe` prints."""
    mt = cfg.get("model_type")
    inter = cfg.get("rope_interleave")
    if mt == "deepseek_v4":
        return "trailing-interleaved", (
            "interleaved pairs on the LAST rotary_dim channels of each head (HF's DeepSeek-V4 "
            "apply_rotary_pos_emb; the leading channels are not rotated); the attention output's last "
            "rotary_dim channels are rotated back by the conjugate (-sin) at the query position")
    if mt in ALWAYS_INTERLEAVE_IN_SPLIT_OUT:
        return "interleaved-in-split-out", (
            f"interleaved in, split out (HF apply_rotary_pos_emb_interleave, always for model_type {mt!r})")
    if inter is True or (inter is None and mt in INTERLEAVE_IN_SPLIT_OUT):
        why = "config['rope_interleave']" if inter is not None else f"HF's default for model_type {mt!r}"
        return "interleaved-in-split-out", f"interleaved in, split out (HF apply_rotary_pos_emb_interleave; {why})"
    if mt in INTERLEAVED:
        return "interleaved", f"interleaved pairs (HF {INTERLEAVED_BY[mt]}, for model_type {mt!r})"
    return "split", "split halves (rotate_half)"


def _layout(cfg: Mapping[str, Any]) -> str:
    return _hf_layout(cfg)[1]


class ConfigLayoutWarning(UserWarning):
    """``config=`` names a model type whose HF attention pairs the channels differently from
    the call's ``layout="split"`` (the default): the result would differ from HF's. The
    message names the model type, HF's layout and the argument to pass."""


def warn_config_layout(config: object, layout: str, stacklevel: int = 3) -> None:
    """Warn (:class:`ConfigLayoutWarning`) when ``layout`` is ``"split"`` and ``config`` (a
    mapping with a ``model_type``; a :class:`~pe_symbolic.numeric.RopeSpec` carries none)
    is a model type whose HF attention rotates interleaved pairs. ``stacklevel`` as in
    :func:`warnings.warn`, counted from this function (3: the caller's caller); a fixed
    count, not a frame walk, so that ``torch.compile`` can trace it."""
    if layout != "split" or not isinstance(config, Mapping):
        return
    cfg = _text(config)
    kind, _ = _hf_layout(cfg)
    mt = cfg.get("model_type")
    if kind == "interleaved":
        msg = (f"config= has model_type {mt!r}, whose HF attention rotates interleaved pairs (x0, x1), (x2, x3), ... "
               f"(HF {INTERLEAVED_BY[mt]}); layout='split' (the default) pairs "
               "channel i with i + rotary_dim/2 instead, so the result differs from HF's: pass layout='interleaved'")
    elif kind == "interleaved-in-split-out":
        msg = (f"config= has model_type {mt!r}, whose HF attention reads interleaved pairs (x0, x1), (x2, x3), ... "
               "and returns the rotated pairs in the split layout (apply_rotary_pos_emb_interleave); "
               "layout='split' (the default) pairs channel i of x with i + rotary_dim/2 instead, so the result "
               "differs from HF's: pass layout='interleaved' (the same rotation of the same pairs, left in "
               "interleaved order: HF's output is out[..., p] with p = [0, 2, 4, ..., 1, 3, 5, ...] over the rotated "
               "channels), or de-interleave x that way first and keep layout='split'")
    else:
        return
    warnings.warn(msg, ConfigLayoutWarning, stacklevel=stacklevel)


def _nope(cfg: Mapping[str, Any], layers: list[LayerRope]) -> tuple[tuple[int, ...] | None, list[str]]:
    n = cfg.get("num_hidden_layers")
    n = n if isinstance(n, int) and not isinstance(n, bool) else None
    notes: list[str] = []
    mt = cfg.get("model_type")
    lrt = cfg.get("layer_rope_theta")
    if isinstance(lrt, list) and lrt:  # Granite SWA, MuseSpark: 0 = NoPE
        bases = sorted({float(t) for t in lrt if t})
        return tuple(i for i, t in enumerate(lrt) if not t), [
            f"layer_rope_theta: 0 marks NoPE; RoPE layers' bases {bases}"
            + (" (rope_frequencies(..., layer=i) for each)" if len(bases) > 1 else "")]
    flags = cfg.get("no_rope_layers")
    if flags:  # Llama 4, SmolLM3: use_rope = no_rope_layers[i] (1 rotates, 0 is NoPE)
        return tuple(i for i, f in enumerate(flags) if not f), ["no_rope_layers[i] = 0 marks NoPE (HF: use_rope = "
                                                                 "no_rope_layers[i])"]
    if "no_rope_layers" in cfg or "no_rope_layer_interval" in cfg or (isinstance(mt, str) and mt.startswith("llama4")):
        k = cfg.get("no_rope_layer_interval", 4)
        if n is None:
            return None, [f"a NoPE layer every {k} layers (num_hidden_layers not given)"]
        return tuple(i for i in range(n) if (i + 1) % k == 0), [
            f"no_rope_layers empty: HF's Llama 4 default, a NoPE layer every no_rope_layer_interval={k} layers"]
    types = cfg.get("layer_types")
    if mt == "cohere2" and isinstance(types, list):
        notes.append("Cohere2 rotates only its sliding-window layers: full_attention layers are NoPE")
        return tuple(i for i, t in enumerate(types) if t == "full_attention"), notes
    nope_types = {e.layer_type for e in layers if e.spec is None}
    if nope_types and isinstance(types, list):
        return tuple(i for i, t in enumerate(types) if t in nope_types), notes
    return (() if n is not None else None), notes


def _pattern_note(cfg: Mapping[str, Any], entries: list[LayerRope]) -> str:
    """``"layers: 5 sliding_attention, 1 full_attention, repeated"`` when rows are per layer type."""
    lt = cfg.get("layer_types")
    if not isinstance(lt, list) or not lt or not any(e.layer_indices is not None for e in entries):
        return ""
    for p in range(1, len(lt) + 1):
        if all(lt[i] == lt[i % p] for i in range(len(lt))):
            break
    runs: list[list[Any]] = []
    for t in lt[:p]:
        if runs and runs[-1][1] == t:
            runs[-1][0] += 1
        else:
            runs.append([1, t])
    shown = ", ".join(f"{n} {t}" for n, t in runs)
    return f"layer_types: {shown}" + (", repeated" if p < len(lt) else "") + f" ({len(lt)} layers)"


def _deepseek_v4_note(cfg: Mapping[str, Any]) -> str:
    """Which layers use DeepSeek-V4's ``main`` and ``compress`` RoPE (HF: sliding-window
    layers ``main``, compressed layers ``compress``)."""
    types = cfg.get("layer_types")
    ratios = cfg.get("compress_ratios")
    if not isinstance(types, list) and isinstance(ratios, list):
        types = ["sliding_attention" if not r else "compressed" for r in ratios]
        n = cfg.get("num_hidden_layers")
        if isinstance(n, int) and not isinstance(n, bool):
            types = types[:n]
    if not isinstance(types, list):
        return ("DeepSeek-V4: sliding_attention layers use 'main' (rope_theta), compressed layers 'compress' "
                "(compress_rope_theta); the config lists neither layer_types nor compress_ratios")
    main = tuple(i for i, t in enumerate(types) if DEEPSEEK_V4_LABELS.get(t, "compress") == "main")
    rest = tuple(i for i in range(len(types)) if i not in main)
    return (f"DeepSeek-V4: layers {_ranges(main) or 'none'} (sliding_attention) use 'main', layers "
            f"{_ranges(rest) or 'none'} (compressed) 'compress'")


def describe(config: Mapping[str, Any], *, seq_len: int | None = None, strict: bool = False,
             file: Any = None, quiet: bool = False) -> ConfigDescription:
    r"""What the RoPE config parser understood, per layer type: an object that shows itself.

    Nothing is printed unless asked (``file=``): the returned description's ``repr`` is its
    table, so a REPL line or a notebook cell ``describe(config)`` shows it once, and
    ``print(describe(config))`` prints it.

    Parameters
    ----------
    config : Mapping
        A model's ``config.json`` as a dict.
    seq_len : int, optional
        Passed to :func:`~pe_symbolic.numeric.rope_frequencies` (``dynamic``,
        ``longrope``).
    strict : bool, default False
        Raise on a key the parser does not understand instead of warning.
    file : file-like, optional
        Print the table there too (``file=sys.stdout`` for the terminal); by default nothing
        is printed.
    quiet : bool, default False
        Do not print even where ``file`` is given (kept for older calls; printing is now
        asked for with ``file``).

    Returns
    -------
    ConfigDescription
        ``layers`` (one :class:`LayerRope` per layer type: the parsed
        :class:`~pe_symbolic.numeric.RopeSpec`, effective base, factors, attention factor),
        ``layout``, ``nope_layers`` (layer indices, ``None`` when the config does not say
        how many layers it has), ``notes``; ``str()`` is the printed table.

    Warns
    -----
    UnknownConfigKeyWarning
        A key not understood (see :func:`~pe_symbolic.numeric.parse_rope_config`).

    Examples
    --------
    >>> from pe_symbolic.numeric import model_config
    >>> d = describe(model_config("llama-3.1-8b"))
    >>> d
    layer type  rope type  base (effective)  factors                          attn factor  rotary dims
    all         llama3     500000            factor=8; low=1, high=4; L=8192  1            128 of 128
    layout: split halves (rotate_half)
    >>> d.layers[0].spec.rope_type, d.layers[0].attention_factor
    ('llama3', 1.0)
    """
    if not isinstance(config, Mapping):
        raise TypeError(f"config must be a mapping (a model's config.json as a dict); got {type(config).__name__}")
    if not isinstance(strict, bool):
        raise TypeError(f"strict={strict!r} must be True or False")
    cfg = normalize(config)
    emit_notices(cfg, strict)
    entries = []
    row_types, type_notes = _layer_types(cfg)
    for lt in row_types:
        _, params = _rope_dicts(cfg)
        indices = _layer_indices(cfg, lt)
        if lt is not None and _per_layer(params) and lt in params and params.get(lt) is None:
            entries.append(LayerRope(lt, None, layer_indices=indices))
            continue
        for layers in _theta_groups(cfg):
            spec = parse_rope_config(cfg, layer_type=lt, strict=strict,
                                     layer=None if layers is None else layers[0])
            fr = rope_frequencies(spec, seq_len=seq_len)
            entries.append(LayerRope(lt, spec, _effective_base(spec), _factors(spec), fr.attention_factor, layers,
                                     indices))
    nope, notes = _nope(cfg, entries)
    notes = type_notes + notes
    if cfg.get("attn_temperature_tuning"):
        notes.append(f"attn_temperature_tuning: HF's Llama 4 scales the queries of NoPE layers by "
                     f"log(floor((pos + 1) / floor_scale) + 1) * attn_scale + 1 (floor_scale="
                     f"{cfg.get('floor_scale', 8192)}, attn_scale={cfg.get('attn_scale', 0.1)}); not part of RoPE: "
                     "llama4_nope_query_scale(config, positions)")
    if cfg.get("model_type") == "deepseek_v4":
        notes.append(_deepseek_v4_note(cfg))
    if cfg.get("rope_scaling_layers") is not None and cfg.get("model_type") in ("molmo2_text", "molmo2"):
        notes.append("rope_scaling_layers (Molmo2): the listed layers use the rope dict's scaling, the others HF's "
                     "unscaled default ladder at the same base (rope_frequencies(..., layer=i) for each)")
    for e in entries:
        if e.spec is not None and e.spec.rope_type == "ntk" and e.spec.mixed_b is None:
            notes.append("ntk: read as vLLM's NTKScalingRotaryEmbedding without mixed_b (fixed NTK): "
                         "(b*s)**(-2i/d) / s**(2/d), its mixed NTK at mixed_b = 1 (HF has no 'ntk' type). Every "
                         "pair is scaled, pair 0 by 1/s**(2/d); not the static NTK-aware base b*s**(d/(d-2)) of "
                         "rotary-embedding-torch, which keeps pair 0 (family_formula('ntk'), claim ntk.derive)")
        if e.spec is not None and e.spec.mscale_rule == "vllm":
            notes.append("deepseek_yarn (vLLM's name): attention factor m(s, mscale) / m(s, mscale_all_dim) * "
                         "attn_factor with vLLM's defaults 1 and 0 (HF's yarn takes the ratio only when both are "
                         "given); YaRN's bands always truncated")
        if e.spec is not None and e.spec.rope_type == "telechat3-yarn":
            notes.append("telechat3-yarn: YaRN's frequencies, attention factor (0.07 ln s + 1) * attn_factor as "
                         "vLLM's TeleChat3RoPEScaledRotaryEmbedding (MLX ports read it as plain YaRN: 0.1 ln s + 1)")
        if e.spec is not None and e.spec.rope_type == "axial" and e.spec.freq_dim is None:
            notes.append("axial (Pixtral): inv_freq is HF's cat(ladder[0::2], ladder[1::2]) over head_dim "
                         "(height pairs, then width)")
        elif e.spec is not None and e.spec.rope_type == "axial" and e.spec.rotary_dim == 3 * e.spec.freq_dim:
            notes.append(f"axial, 3 axes (MiniMax-M3-VL): {e.spec.freq_dim // 2} frequencies of the ladder over "
                         f"2 * ((head_dim // 3) // 2) = {e.spec.freq_dim}, each turning a t, an h and a w pair; the "
                         f"first {e.spec.rotary_dim} channels rotate, the rest pass through")
        elif e.spec is not None and e.spec.rope_type == "axial":
            notes.append(f"axial: {(e.spec.freq_dim + 1) // 2} frequencies of the ladder over head_dim/2 = "
                         f"{e.spec.freq_dim}, each turning a height and a width pair")
        if e.spec is not None and e.spec.rope_type == "dynamic" and e.spec.alpha is None:
            notes.append("dynamic: the base grows once seq_len exceeds max_position_embeddings (shown at "
                         f"seq_len={seq_len})")
        if cfg.get("qk_rope_head_dim") is not None and e.spec is not None and e.spec.rope_type == "yarn" \
                and e.spec.mscale_all_dim:
            assert e.spec.factor is not None
            m = 0.1 * e.spec.mscale_all_dim * math.log(e.spec.factor) + 1 if e.spec.factor > 1 else 1.0
            notes.append(f"DeepSeek MLA: the softmax scale is also multiplied by mscale(factor, mscale_all_dim)**2 = "
                         f"{m * m:.6g} (not part of the attention factor)")
    pattern = _pattern_note(cfg, entries)
    if pattern:
        notes.insert(0, pattern)
    out = ConfigDescription(tuple(entries), _layout(cfg), nope,
                            cfg.get("num_hidden_layers") if isinstance(cfg.get("num_hidden_layers"), int) else None,
                            tuple(dict.fromkeys(notes)), _defaults_line(cfg))
    if file is not None and not quiet:
        print(out, file=file)
    return out
