r"""What the config parser understood, per layer: :func:`describe`.

After the ``rope_scaling`` -> ``rope_parameters`` migration (HF transformers 5.x) a config
can say less, or something else, than its author meant. :func:`describe` prints, for each
layer type of a config, what :func:`~pe_symbolic.numeric.rope_frequencies` reads from it:
the rope type, the effective base, the factors, the attention factor, the rotary dims, the
channel layout HF applies, the layers HF does not rotate (NoPE) and why, the sub-modules
with a rotation of their own, and the keys it accepted only because HF ignores them too.
It reads the model's RoPE program (:func:`~pe_symbolic.numeric.read_program`); keys it does
not understand warn (or raise under ``strict=True``) exactly as in
:func:`~pe_symbolic.numeric.parse_rope_config`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from .._display import Panel, Section, ShowsItself, Table
from .._hfconfig import NormalizedConfig, normalize, transformers_version
from ._families import DEEPSEEK_V4_LABELS, scaling_layer_groups
from ._frequencies import _exact_frequencies
from ._keys import emit_notices
from ._pairing import (  # noqa: F401  (ConfigLayoutWarning and the tables: documented here)
    INTERLEAVED,
    INTERLEAVED_BY,
    ConfigLayoutWarning,
    warn_config_layout,
)
from ._spec import RopeSpec
from ._sites import deepseek_v4_layer_types, is_other_mixer
from .program import DRAFT_OWN_CONFIG, RopeProgram, RopeSite, _ranges, read_program

__all__ = ["ConfigDescription", "ConfigLayoutWarning", "LayerRope", "describe"]


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
    kinds: tuple[str, ...] = ()
    """The layer types a one-dict row covers when some attention layers are NoPE (EXAONE 4:
    ``sliding_attention``); empty when it covers every layer."""

    @property
    def label(self) -> str:
        """The row's name: the layer type (``"all"``), with its layers when they are listed."""
        name = self.layer_type or (" / ".join(self.kinds) if self.kinds else "all")
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
    program: RopeProgram | None = field(default=None, compare=False)
    """The model's RoPE program the table is read from (:func:`~pe_symbolic.numeric.read_program`)."""

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

    def _rows(self) -> tuple[tuple[str, ...], list[tuple[str, ...]]]:
        """The table's header and rows: one row per layer type (or rope entry)."""
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
                rows.append((e.layer_type or "all",) + count + ("none (NoPE)", "-", "-", "-", "-"))
                continue
            base = f"{e.spec.rope_theta:.6g}"
            if e.effective_base is not None and e.effective_base != e.spec.rope_theta:
                base += f" ({e.effective_base:.6g})"
            rows.append((e.label,) + count + (e.spec.rope_type, base, e.factors or "-",
                                              f"{e.attention_factor:.6g}", e.rotary))
        return head, rows

    def _tail(self) -> list[str]:
        """The lines under the table: layout, NoPE layers, notes, the class defaults used."""
        lines = [f"layout: {self.layout}"]
        if self.nope_layers is not None:
            n = f" of {self.num_hidden_layers}" if self.num_hidden_layers is not None else ""
            shown = ", ".join(map(str, self.nope_layers)) if self.nope_layers else "none"
            lines.append(f"NoPE layers ({len(self.nope_layers)}{n}): {shown}")
        lines += [f"note: {n}" for n in self.notes]
        if self.defaults:
            lines.append(self.defaults)
        return lines

    def __str__(self) -> str:
        head, rows = self._rows()
        widths = [max(len(r[i]) for r in rows + [head]) for i in range(len(head))]
        lines = ["  ".join(c.ljust(w) for c, w in zip(head, widths)).rstrip()]
        lines += ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in rows]
        return "\n".join(lines + self._tail())

    def _panel(self) -> Panel:
        """In Jupyter: the table, then the layout and NoPE lines, the notes folded."""
        head, rows = self._rows()
        tail = self._tail()
        keep = [ln for ln in tail if ln.startswith(("layout:", "NoPE layers"))]
        rest = [ln for ln in tail if ln not in keep]
        sections = (Section(f"notes ({len(rest)})", "\n".join(rest)),) if rest else ()
        return Panel("describe", tables=(Table(head, tuple(rows)),), summary=tuple(keep), sections=sections)


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


def _pattern_note(cfg: Mapping[str, Any], entries: list[LayerRope]) -> str:
    """``"layers: 5 sliding_attention, 1 full_attention, repeated"`` when rows are per layer type."""
    lt = cfg.get("layer_types")
    n = cfg.get("num_hidden_layers")
    if isinstance(lt, list) and isinstance(n, int) and not isinstance(n, bool) and len(lt) > n:
        lt = lt[:n]
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
    types = deepseek_v4_layer_types(cfg)
    if not isinstance(types, list):
        return ("DeepSeek-V4: sliding_attention layers use 'main' (rope_theta), compressed layers 'compress' "
                "(compress_rope_theta); the config lists neither layer_types nor compress_ratios")
    main = tuple(i for i, t in enumerate(types) if DEEPSEEK_V4_LABELS.get(t, "compress") == "main")
    rest = tuple(i for i in range(len(types)) if i not in main)
    return (f"DeepSeek-V4: layers {_ranges(main) or 'none'} (sliding_attention) use 'main', layers "
            f"{_ranges(rest) or 'none'} (compressed) 'compress'")


def describe(config: Mapping[str, Any], *, draft: Mapping[str, Any] | None = None, seq_len: int | None = None,
             strict: bool = False, file: Any = None, quiet: bool = False) -> ConfigDescription:
    r"""What the RoPE config parser understood, per layer type: an object that shows itself.

    Nothing is printed unless asked (``file=``): the returned description's ``repr`` is its
    table, so a REPL line or a notebook cell ``describe(config)`` shows it once, and
    ``print(describe(config))`` prints it.

    Parameters
    ----------
    config : Mapping
        A model's ``config.json`` as a dict.
    draft : Mapping, optional
        A separate draft model's ``config.json`` (speculative decoding): its RoPE is described
        in a ``draft`` note, read from its own config (see
        :func:`~pe_symbolic.numeric.read_program`).
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
    >>> d  # doctest: +ELLIPSIS
    layer type  rope type  base (effective)  factors                          attn factor  rotary dims
    all         llama3     500000            factor=8; low=1, high=4; L=8192  1            128 of 128
    layout: split halves (rotate_half)
    note: usable context: positions 0 .. 131,071 admitted (max_position_embeddings); tables formed in float32 exact to 16,777,216, ...
    >>> d.layers[0].spec.rope_type, d.layers[0].attention_factor
    ('llama3', 1.0)
    """
    if not isinstance(config, Mapping):
        raise TypeError(f"config must be a mapping (a model's config.json as a dict); got {type(config).__name__}")
    if not isinstance(strict, bool):
        raise TypeError(f"strict={strict!r} must be True or False")
    cfg = normalize(config)
    emit_notices(cfg, strict)
    prog = read_program(cfg, draft=draft, strict=strict, seq_len=seq_len)
    entries, type_notes = _rows(cfg, prog)
    nope, notes = _nope(cfg, prog)
    notes = type_notes + notes
    if getattr(cfg, "elsewhere", ""):  # a composite's top-level rope keys that are another module's
        notes.append(cfg.elsewhere)
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
        notes += _spec_notes(e.spec, seq_len)
    for s in prog.attention():
        if s.attention is not None and s.attention.softmax is not None:
            notes.append(f"DeepSeek MLA: the softmax scale is also multiplied by mscale(factor, mscale_all_dim)**2 = "
                         f"{s.attention.softmax:.6g} (not part of the attention factor)")
    notes += _submodule_notes(prog)
    from .context import context_line

    usable = context_line(prog)
    if usable:
        notes.append(usable)
    pattern = _pattern_note(cfg, entries)
    if pattern:
        notes.insert(0, pattern)
    layout = prog.layout if any(e.spec is not None for e in entries) else "none: no layer rotates (NoPE)"
    out = ConfigDescription(tuple(entries), layout, nope,
                            cfg.get("num_hidden_layers") if isinstance(cfg.get("num_hidden_layers"), int) else None,
                            tuple(dict.fromkeys(notes)), _defaults_line(cfg), prog)
    if file is not None and not quiet:
        print(out, file=file)
    return out


def _rows(cfg: NormalizedConfig, prog: RopeProgram) -> tuple[list[LayerRope], list[str]]:
    """One row per rope entry (and per-layer base, and factor) the attention layers read, and a
    NoPE row per layer type none of whose layers rotate; notes on entries no layer reads."""
    lt_list = cfg.get("layer_types") if isinstance(cfg.get("layer_types"), list) else None
    n = cfg.get("num_hidden_layers")
    if lt_list is not None and isinstance(n, int) and not isinstance(n, bool) and len(lt_list) > n:
        lt_list = lt_list[:n]  # MTP layers' entries past the model's (Step3p7): not the model's layers
    rows: dict[Any, tuple[RopeSite, list[int] | None]] = {}
    attn = prog.attention()
    every = all(s.layers is None for s in attn)
    for s in attn:
        if s.nope or s.spec is None:
            continue
        sel = dict(s.select)
        key = (s.entry, sel.get("factor"), s.spec)
        layers = list(s.layers) if sel.get("layer") is not None and s.layers else None
        if key in rows:
            got = rows[key][1]
            if got is not None and layers is not None:
                got.extend(layers)
            continue
        rows[key] = (s, layers)
    from ._keys import _per_layer
    from ._parse import rope_entries

    _, params, family = rope_entries(cfg, False)
    order = list(params) if _per_layer(params) else []  # HF's order: its rotary embedding's entries
    out = []
    partial = any(s.nope for s in attn)
    for s, layers in sorted(rows.values(), key=lambda r: (order.index(r[0].entry) if r[0].entry in order
                                                          else len(order), (r[1] or r[0].layers or (0,))[0])):
        indices = tuple(i for i, t in enumerate(lt_list) if t == s.entry) if lt_list and s.entry in lt_list else None
        kinds: tuple[str, ...] = ()
        if s.entry is None and partial and layers is None:
            # one rope dict, but not every attention layer rotates: name the layer types that do
            same = [x for x in attn if not x.nope and x.spec == s.spec and x.layers]
            kinds = tuple(dict.fromkeys(x.layer_type for x in same if x.layer_type))
            if lt_list:
                indices = tuple(sorted(i for x in same for i in x.layers or ()))
        assert s.angles is not None and s.attention is not None
        out.append(LayerRope(s.entry, s.spec, s.angles.effective_base, s.angles.params, s.attention.value,
                             tuple(sorted(layers)) if layers is not None else None, indices, kinds))
    # a layer type none of whose layers rotate (softmax attention): a NoPE row
    rotating = {s.layer_type for s in attn if not s.nope}
    nope_types: dict[str | None, list[int]] = {}
    for s in attn:
        if s.nope and s.attends and s.layer_type not in rotating:
            nope_types.setdefault(s.layer_type, []).extend(s.layers or ())
    for t, idx in nope_types.items():
        if t is not None or not out:
            out.append(LayerRope(t, None, layer_indices=tuple(sorted(idx)) if idx and t is not None else None))
    notes: list[str] = []
    if family is not None and family.labels:
        read = {s.entry for s in attn if not s.nope}
        for t in params:
            if t not in read:
                notes.append(f"rope_parameters[{t!r}] is given, but no layer reads it (layer_types: no "
                             f"{' / '.join(k for k, v in family.labels.items() if v == t)} layer)")
    elif _per_layer(params) and lt_list is not None:
        for t in params:
            if t not in lt_list and not (family is not None and t in family.labels.values()):
                notes.append(f"rope_parameters[{t!r}] is given, but no layer has that type (layer_types): not used "
                             "(HF's rotary embedding computes only the types of layer_types)")
        missing = [t for t in dict.fromkeys(lt_list) if t not in params and any(
            s.layer_type == t and s.attends and "has no entry" in s.nope for s in attn)]
        if missing:
            notes.append(f"layer_types has {', '.join(map(repr, missing))} layers, for which the rope dict has no "
                         "entry (HF's rotary embedding fails on them)")
    if not out:
        out = [LayerRope(None, None)]
    del every
    return out, notes


def _nope(cfg: NormalizedConfig, prog: RopeProgram) -> tuple[tuple[int, ...] | None, list[str]]:
    """The attention layers HF does not rotate, and why (one note per reason)."""
    attn = prog.attention()
    if any(s.layers is None for s in attn):
        whole = [s for s in attn if s.nope]
        return (None, [f"NoPE: {whole[0].nope}"]) if whole and len(whole) == len(attn) else (None, [])
    nope = tuple(sorted(i for s in attn if s.nope and s.attends and s.layers for i in s.layers))
    notes = []
    who = f"HF's {prog.hf_class}" if prog.hf_class else "HF"
    reasons: dict[str, list[int]] = {}
    for s in attn:
        if s.nope and s.layers:
            reasons.setdefault(_reason_kind(s.nope), []).extend(s.layers)
    for why, idx in reasons.items():
        kind = "not attention" if is_other_mixer(why) else "NoPE"
        notes.append(f"{kind} ({who}), layers {_ranges(tuple(sorted(idx)))}: {why}")
    lrt = cfg.get("layer_rope_theta")
    if isinstance(lrt, list) and lrt:
        bases = sorted({float(t) for t in lrt if t})
        notes.append(f"layer_rope_theta: 0 marks NoPE; RoPE layers' bases {bases}"
                     + (" (rope_frequencies(..., layer=i) for each)" if len(bases) > 1 else ""))
    return nope, notes


def _reason_kind(why: str) -> str:
    """A NoPE reason without its layer index (so that one note covers the layers it names)."""
    import re

    return re.sub(r"\[\d+\]", "[i]", why)


def _spec_notes(spec: RopeSpec | None, seq_len: int | None) -> list[str]:
    """What a row's columns cannot say about its spec."""
    if spec is None:
        return []
    out: list[str] = []
    if spec.rope_type == "ntk" and spec.mixed_b is None:
        out.append("ntk: read as vLLM's NTKScalingRotaryEmbedding without mixed_b (fixed NTK): "
                   "(b*s)**(-2i/d) / s**(2/d), its mixed NTK at mixed_b = 1 (HF has no 'ntk' type). Every "
                   "pair is scaled, pair 0 by 1/s**(2/d); not the static NTK-aware base b*s**(d/(d-2)) of "
                   "rotary-embedding-torch, which keeps pair 0 (family_formula('ntk'), claim ntk.derive)")
    if spec.mscale_rule == "vllm":
        out.append("deepseek_yarn (vLLM's name): attention factor m(s, mscale) / m(s, mscale_all_dim) * "
                   "attn_factor with vLLM's defaults 1 and 0 (HF's yarn takes the ratio only when both are "
                   "given); YaRN's bands always truncated")
    if spec.rope_type == "telechat3-yarn":
        out.append("telechat3-yarn: YaRN's frequencies, attention factor (0.07 ln s + 1) * attn_factor as "
                   "vLLM's TeleChat3RoPEScaledRotaryEmbedding (MLX ports read it as plain YaRN: 0.1 ln s + 1)")
    if spec.rope_type == "axial" and spec.freq_dim is None:
        out.append("axial (Pixtral): inv_freq is HF's cat(ladder[0::2], ladder[1::2]) over head_dim "
                   "(height pairs, then width)")
    elif spec.rope_type == "axial" and spec.freq_dim is not None and spec.rotary_dim == 3 * spec.freq_dim:
        out.append(f"axial, 3 axes (MiniMax-M3-VL): {spec.freq_dim // 2} frequencies of the ladder over "
                   f"2 * ((head_dim // 3) // 2) = {spec.freq_dim}, each turning a t, an h and a w pair; the "
                   f"first {spec.rotary_dim} channels rotate, the rest pass through")
    elif spec.rope_type == "axial" and spec.freq_dim is not None:
        out.append(f"axial: {(spec.freq_dim + 1) // 2} frequencies of the ladder over head_dim/2 = "
                   f"{spec.freq_dim}, each turning a height and a width pair")
    if spec.rope_type == "dynamic" and spec.alpha is None:
        out.append("dynamic: the base grows once seq_len exceeds max_position_embeddings (shown at "
                   f"seq_len={seq_len})")
    return out + variant_notes(spec)


def _submodule_notes(prog: RopeProgram) -> list[str]:
    """One line per sub-module site (indexer, compressor, draft) and one per inverse rotation."""
    out = []
    inverse: dict[Any, list[int]] = {}
    for s in prog.sites:
        where = _ranges(s.layers) if s.layers else "all"
        if s.module != "attention":
            what = "no RoPE" if s.nope else (f"{s.positions}; {s.angles.rope_type if s.angles else '-'} base "
                                             f"{s.angles.base:.6g}; {s.slice}" if s.angles else str(s.positions))
            if s.note.startswith(DRAFT_OWN_CONFIG) and s.angles is not None and s.attention is not None:  # say all
                what += (f"; {s.angles.params}" if s.angles.params else "") + (
                    f"; attention factor {s.attention.value:.6g} on {s.attention.placement}"
                    if s.attention.value != 1.0 else "")
            out.append(f"{s.module} (layers {where}): {what}" + (f" -- {s.note}" if s.note else ""))
        if s.inverse is not None:
            inverse.setdefault(s.inverse, []).extend(s.layers or ())
    for inv, idx in inverse.items():
        out.append(f"inverse (layers {_ranges(tuple(sorted(idx))) or 'all'}): {inv.what}; R(-a) R(a) = I by the "
                   f"proved lemmas {', '.join(inv.claims)}")
    return list(dict.fromkeys(out))


# ----------------------------------------------------------------------------------------
# describe()'s notes


def variant_notes(spec: Any) -> list[str]:
    """The lines :func:`pe_symbolic.numeric.describe` adds for a :class:`RopeSpec` of one of
    these variants (what the table's columns cannot say)."""
    out: list[str] = []
    if spec.fope:
        n = len(_exact_frequencies(spec, None)[0])
        kept = (f"the first {n}" if spec.fope_num_inv_freq is not None else
                f"{n} (those above 2*pi / {spec.max_position_embeddings})")
        out.append(f"FoPE (Intern-S1-Pro): keeps {kept} of the {spec.rotary_dim // 2} frequencies; each channel's cos "
                   "/ sin mix them with the checkpoint's cos_coef / sin_coef"
                   + (" (one pair per key-value head)" if spec.fope_sep_head else "")
                   + "; the channels past them are padded with cos = 1 and sin = 1 (SGLang, vLLM up to c215d1e62d73: a "
                   "padded pair's score doubled, claim fope.padding) or 0 (vLLM from 151a2c744af6): fope_cos_sin")
    if spec.position_blocks != 1:
        out.append(f"ChatGLM-6B 2-D positions: {spec.position_blocks} blocks of {spec.rotary_dim} channels (all "
                   f"{spec.position_blocks * spec.rotary_dim} rotate), block 0 turned by the token position, block 1 "
                   "by the block position, each in split halves (positions with a leading axis of 2)")
    if spec.mrope_rule in ("openpangu", "bailing"):
        name = "openPangu's greedy interleave" if spec.mrope_rule == "openpangu" else \
            "Bailing's layout (h even, w odd pairs of the first h + w, then t)"
        out.append(f"M-RoPE sections {list(spec.mrope_section or ())}: {name} (vLLM; HF has none)")
    if spec.factors is not None:
        out.append(f"multi-factor linear (vLLM's LinearScalingRotaryEmbedding): one cos/sin block per factor "
                   f"{[float(f) for f in spec.factors]}, a row each (rope_frequencies(config, factor=...))")
    if spec.indexer_layout is not None:
        out.append(f"sparse-attention indexer: {spec.indexer_layout} pairs on its first {spec.rotary_dim} channels "
                   "(HF's, hard-coded per model type; vLLM reads indexer_rope_interleave: indexer_layouts(config))")
    if spec.ext_rule == "llama.cpp" and spec.rope_type == "yarn" and spec.extrapolation_factor == 0:
        out.append("llama.cpp ext_factor = 0: every pair interpolated, YaRN's magnitude factor dropped (attention "
                   "factor 1; claim llamacpp.ext_factor_zero)")
    return out
