r"""The RoPE program of a model: every place a rotation is applied, read once from its config.

:func:`~pe_symbolic.numeric.read_program` reads a ``config.json`` into one immutable :class:`RopeProgram`: per layer
and per sub-module (attention, sparse-attention indexer, compressor, MTP / draft layers) a
:class:`RopeSite` with

* the **position map** (:class:`PositionMap`): token positions, M-RoPE's ``t, h, w`` with each
  model's placement, compressed positions (``window * stride + first``), ChatGLM's 2-D blocks;
* the **angle schedule** (:class:`AngleSchedule`): the rope type and its numbers, the base as
  it acts;
* the **rotated slice and pairing** (:class:`RotatedSlice`): which channels (leading or
  trailing), HF's integer rounding of a partial factor (``int(192 * 0.334) = 64``), split
  halves or interleaved pairs;
* the **attention factor and where it acts** (:class:`AttentionFactor`): on cos and sin (HF),
  and any extra factor on the softmax scale (DeepSeek's ``mscale_all_dim``) or on the queries
  (Llama 4's ``llama_4_scaling_beta``);
* an **inverse** where the model rotates back (:class:`Inverse`: DeepSeek-V4's output,
  ``R(-theta_m) R(theta_m) = I`` by the proved lemmas ``rot2.transpose`` and
  ``rot2.orthogonal``);

or, for a layer HF does not rotate, the reason (**NoPE** is an entry, never a default).
:func:`~pe_symbolic.numeric.describe`, :func:`~pe_symbolic.numeric.rope_frequencies` (which
refuses a NoPE selection), :func:`~pe_symbolic.usable_context` and ``pe-audit`` read it.

>>> from pe_symbolic.numeric import model_config
>>> prog = read_program(model_config("llama-3.1-8b"))
>>> site = prog.at(0)
>>> site.angles.rope_type, site.slice.rotary_dim, site.slice.pairing, site.attention.placement
('llama3', 128, 'split', 'cos/sin')
>>> read_program({"model_type": "nemotron_h", "rope_theta": 10000.0}).at(0).nope[:40]
"HF's model for model_type 'nemotron_h' ("
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from .._display import ShowsItself
from .._hfconfig import NormalizedConfig, normalize
from .._validate import check_choice
from ._frequencies import _check_seq_len, _exact_frequencies, _seq_key
from ._keys import emit_notices
from ._pairing import hf_layout
from ._parse import _parse_params, read_spec, rope_entries
from ._sites import SitePlan, is_other_mixer, plan_sites
from ._spec import YARN_TYPES, RopeSpec
from ._variant_readers import YARN_ENGINES

__all__ = ["AngleSchedule", "AttentionFactor", "Inverse", "PositionMap", "RopeProgram", "RopeSite", "RotatedSlice",
           "read_program"]


@dataclass(frozen=True)
class PositionMap:
    """Which position turns the pairs of a site."""

    kind: str
    """``"token"``, ``"mrope"`` (``t, h, w``), ``"xdrope"`` (HunyuanVL's 4 axes), ``"axial"``
    (vision ``h, w``; 3 axes for MiniMax-M3-VL), ``"2d-blocks"`` (ChatGLM-6B: token and block
    position), ``"compressed"`` (``window * stride + first``)."""
    axes: tuple[str, ...] = ("m",)
    section: tuple[int, ...] | None = None
    """Pairs per axis (M-RoPE)."""
    placement: str | None = None
    """How the axes are placed over the pairs: ``"contiguous"``, ``"interleaved"``,
    ``"ernie4_5_vl"``, ``"openpangu"``, ``"bailing"``."""
    stride: int | None = None
    """Source tokens per compressed position."""

    def __str__(self) -> str:
        if self.kind == "token":
            return "token positions m"
        if self.kind == "compressed":
            return f"compressed positions w * {self.stride} + first (one per {self.stride} tokens)"
        if self.kind == "2d-blocks":
            return "2-D: block 0 by the token position, block 1 by the block position"
        sec = f" sections {list(self.section)}" if self.section is not None else ""
        how = f", {self.placement}" if self.placement else ""
        return f"{self.kind} ({', '.join(self.axes)}){sec}{how}"


@dataclass(frozen=True)
class AngleSchedule:
    """The frequencies' recipe: rope type, base, and the type's numbers."""

    rope_type: str
    base: float
    effective_base: float
    """The base the ladder acts with (Hunyuan's ``alpha``, vLLM's fixed NTK), else ``base``."""
    params: str
    """The type's numbers, as :func:`~pe_symbolic.numeric.describe` prints them."""
    exponent_dim: int
    """The ``d`` of the exponents ``-2i/d``."""
    pairs: int
    """How many frequencies (rotated pairs)."""


@dataclass(frozen=True)
class RotatedSlice:
    """Which channels of the head rotate, and how they pair."""

    head_dim: int
    rotary_dim: int
    start: int
    """The first rotated channel (0: leading; ``head_dim - rotary_dim``: trailing)."""
    pairing: str
    """``"split"`` (``i``, ``i + rotary_dim/2``), ``"interleaved"`` (``2i``, ``2i + 1``) or
    ``"interleaved-in-split-out"`` (read interleaved, written split: HF's
    ``apply_rotary_pos_emb_interleave``)."""
    rounding: str = ""
    """HF's integer rounding of a partial factor, when there is one."""

    def __str__(self) -> str:
        where = "last " if self.start else ""
        out = f"{where}{self.rotary_dim} of {self.head_dim}, {self.pairing}"
        return out + (f" ({self.rounding})" if self.rounding else "")


@dataclass(frozen=True)
class AttentionFactor:
    """The attention factor and where it acts."""

    value: float
    """What HF multiplies cos and sin by (so queries *and* keys)."""
    placement: str = "cos/sin"
    softmax: float | None = None
    """An extra factor on the softmax scale (DeepSeek MLA: ``mscale(s, mscale_all_dim)**2``)."""
    query_scale: str = ""
    """A per-position scale on the queries alone (Llama 4's ``llama_4_scaling_beta``)."""

    @property
    def logits(self) -> float:
        """The factor on every logit: ``value**2`` (cos/sin on q and k) times ``softmax``."""
        return self.value ** 2 * (1.0 if self.softmax is None else self.softmax)

    def placement_proof(self, *, partial: bool) -> Any:
        r"""Whether multiplying cos and sin by ``a`` (HF's placement: queries *and* keys) gives the same
        logits as multiplying the softmax scale by ``a**2``, decided by the proof kernel on one rotated
        pair :math:`(q_1, q_2), (k_1, k_2)` at positions :math:`m, n`, and -- ``partial`` -- one channel
        :math:`q_3 k_3` that does not rotate:

        .. math:: s\,\big(a^2 \langle R(m\theta) q, R(n\theta) k\rangle + q_3 k_3\big)
                  \overset{?}{=} s\,a^2 \big(\langle R(m\theta) q, R(n\theta) k\rangle + q_3 k_3\big)

        ``proved`` when every channel rotates; ``refuted`` (at a point with :math:`a \ne 1`) when one
        does not: an engine that folds the factor into the softmax scale then scales the
        pass-through channels too.

        >>> af = AttentionFactor(1.13863)
        >>> af.placement_proof(partial=False).verdict, af.placement_proof(partial=True).verdict
        ('proved', 'refuted')
        """
        import sympy as sp

        from ..encodings.rot2 import rot2
        from ..proof import check_identity

        a, sc, th = sp.symbols("a s theta", positive=True)
        m, n, q1, q2, k1, k2, q3, k3 = sp.symbols("m n q_1 q_2 k_1 k_2 q_3 k_3", real=True)
        rq = rot2(m * th) * sp.Matrix([q1, q2])
        rk = rot2(n * th) * sp.Matrix([k1, k2])
        dot = (rq.T * rk)[0, 0]
        rest = q3 * k3 if partial else sp.Integer(0)
        return check_identity(sc * (a**2 * dot + rest), sc * a**2 * (dot + rest), id="rope.attention_placement")

    def placement_text(self, *, partial: bool) -> str:
        """One line on where the factor acts and what folding it into the softmax scale would do."""
        if self.value == 1.0:
            return "attention factor 1: nothing to place"
        verdict = self.placement_proof(partial=partial).verdict
        same = ("the same logits as softmax scale x a**2 = " f"{self.value ** 2:.6g} ({verdict}: every channel rotates)"
                if not partial else
                f"not the same as softmax scale x a**2 = {self.value ** 2:.6g} ({verdict}: the channels that do not "
                "rotate would be scaled too)")
        return f"attention factor a = {self.value:.6g} on cos/sin (q and k): {same}"


@dataclass(frozen=True)
class Inverse:
    """A rotation back: the output turned by ``R(-theta_m)`` at the query position ``m``."""

    what: str
    claims: tuple[str, ...] = ("rot2.transpose", "rot2.orthogonal")
    """The proved lemmas that make it an inverse: ``R(a)^T = R(-a)`` and ``R(a)^T R(a) = I``."""

    def prove(self) -> Any:
        """``R(-a) R(a) = I`` decided by the proof kernel (a :class:`~pe_symbolic.proof.Proof`).

        >>> Inverse("x").prove().verdict
        'proved'
        """
        import sympy as sp

        from ..encodings.rot2 import rot2
        from ..proof import check_identity

        a = sp.Symbol("a", real=True)
        return check_identity(rot2(-a) * rot2(a), sp.eye(2), id="rope.inverse")


@dataclass(frozen=True)
class RopeSite:
    """One place of the program: a module of some layers, and what it does with positions."""

    module: str
    """``"attention"``, ``"indexer"``, ``"compressor"`` or ``"draft"``."""
    layers: tuple[int, ...] | None
    """Layer indices (``None``: every layer; the config does not say how many)."""
    layer_type: str | None
    """The HF layer type of these layers (``None``: not listed)."""
    entry: str | None
    """The rope-dict entry these layers read (``None``: the one dict)."""
    nope: str = ""
    """Why these layers apply no rotation (``""``: they rotate)."""
    spec: RopeSpec | None = None
    positions: PositionMap | None = None
    angles: AngleSchedule | None = None
    slice: RotatedSlice | None = None
    attention: AttentionFactor | None = None
    inverse: Inverse | None = None
    note: str = ""
    select: tuple[tuple[str, Any], ...] = ()
    """The keywords :func:`~pe_symbolic.numeric.rope_frequencies` takes for this site."""

    @property
    def rotates(self) -> bool:
        return not self.nope

    @property
    def attends(self) -> bool:
        """Whether the layers are softmax attention at all (a Mamba or linear-attention layer is not)."""
        return not is_other_mixer(self.nope)


@dataclass(frozen=True, repr=False)
class RopeProgram(ShowsItself):
    """Every place RoPE is applied in one model (see :func:`~pe_symbolic.numeric.read_program`); ``str()`` is the table."""

    model_type: str | None
    hf_class: str | None
    num_hidden_layers: int | None
    sites: tuple[RopeSite, ...]
    layout: str
    """HF's channel pairing of the attention, in words."""
    max_position_embeddings: int | None = None

    def attention(self) -> tuple[RopeSite, ...]:
        """The attention sites (every layer's own rotation, or its NoPE)."""
        return tuple(s for s in self.sites if s.module == "attention")

    def at(self, layer: int, module: str = "attention") -> RopeSite:
        """The site of ``module`` at layer ``layer``.

        Raises
        ------
        ValueError
            No such layer (or module there).
        """
        for s in self.sites:
            if s.module == module and (s.layers is None or layer in s.layers):
                return s
        raise ValueError(f"layer={layer!r}: the program has no {module} site there (layers "
                         f"0 .. {(self.num_hidden_layers or 0) - 1}; modules {sorted({s.module for s in self.sites})})")

    def nope_layers(self) -> tuple[int, ...] | None:
        """The softmax-attention layers HF does not rotate (``None``: the layer count is not known)."""
        if any(s.layers is None for s in self.attention()):
            return None
        return tuple(sorted(i for s in self.attention() if s.nope and s.attends and s.layers for i in s.layers))

    def unrotated_layers(self) -> tuple[int, ...] | None:
        """Every layer HF does not rotate: NoPE attention and the other mixers (Mamba, linear attention)."""
        if any(s.layers is None for s in self.attention()):
            return None
        return tuple(sorted(i for s in self.attention() if s.nope and s.layers for i in s.layers))

    def layer_type_specs(self) -> dict[str | None, RopeSpec]:
        """One spec per rope entry that some attention layer reads (``None``: the one dict)."""
        out: dict[str | None, RopeSpec] = {}
        for s in self.attention():
            if s.spec is not None:
                out.setdefault(s.entry, s.spec)
        return out

    def __str__(self) -> str:
        head = ("module", "layers", "positions", "rope", "rotated channels", "attn factor")
        rows = []
        n = self.num_hidden_layers
        for s in self.sites:
            layers = "all" if s.layers is None else _ranges(s.layers)
            if s.nope:
                rows.append((s.module, layers, "-", "none (NoPE)", "-", s.nope))
                continue
            assert s.angles is not None and s.slice is not None and s.attention is not None
            rope = f"{s.angles.rope_type} {s.angles.base:.6g}" + (f"; {s.angles.params}" if s.angles.params else "")
            att = f"{s.attention.value:.6g} on {s.attention.placement}"
            if s.attention.softmax is not None:
                att += f", softmax x {s.attention.softmax:.6g}"
            rows.append((s.module, layers, str(s.positions), rope, str(s.slice), att))
        widths = [max(len(r[i]) for r in rows + [head]) for i in range(len(head))]
        widths = [min(w, 48) for w in widths]
        lines = [f"RoPE program of model_type {self.model_type!r}"
                 + (f" ({n} layers)" if n is not None else "")]
        lines.append("  ".join(c.ljust(w) for c, w in zip(head, widths)).rstrip())
        for r in rows:
            lines.append("  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip())
        for s in self.sites:
            if s.inverse is not None:
                lines.append(f"inverse ({s.module} {_ranges(s.layers) if s.layers else 'all'}): {s.inverse.what}")
            if s.note:
                lines.append(f"note ({s.module} {_ranges(s.layers) if s.layers else 'all'}): {s.note}")
        return "\n".join(lines)


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


# ----------------------------------------------------------------------------------------
# reading


def read_program(config: Mapping[str, Any], *, draft: Mapping[str, Any] | None = None, strict: bool = False,
                 seq_len: int | None = None, yarn_engine: str = "hf") -> RopeProgram:
    r"""Read a model's ``config.json`` into its RoPE program (see the module docstring).

    Parameters
    ----------
    config : Mapping
        A model's ``config.json`` as a dict (read as its HF config class holds it:
        ``pe_symbolic._hfconfig.normalize``).
    draft : Mapping, optional
        The ``config.json`` of a separate draft model for speculative decoding (an EAGLE head,
        a small draft model), which engines build from its own config: its attention sites
        join the program as ``"draft"`` sites (its own layer indices), at the target's token
        positions. A target that applies no RoPE (NoPE) and a draft that does (YaRN, say) are
        read as such: each from its own config.
    strict : bool, default False
        Raise :class:`~pe_symbolic.numeric.UnknownConfigKeyError` on a key nothing reads,
        instead of warning.
    seq_len : int, optional
        The sequence length for ``dynamic`` / ``longrope`` (see
        :func:`~pe_symbolic.numeric.rope_frequencies`).
    yarn_engine : {"hf", "vllm", "llama.cpp"}
        Whose reading of YaRN's ``extrapolation_factor``.

    Returns
    -------
    RopeProgram
        ``sites`` (attention first, then indexer / compressor / draft sites), ``at(layer)``,
        ``nope_layers()``; ``str()`` is a table.

    Raises
    ------
    TypeError, ValueError
        A config the readers refuse, naming the key, its value and what is allowed.

    Examples
    --------
    >>> prog = read_program({"model_type": "exaone4", "num_hidden_layers": 8, "sliding_window": 4096})
    >>> prog.nope_layers()
    (3, 7)
    >>> prog.at(3).nope
    'HF rotates only when sliding_window is None or the layer slides: sliding_window = 4096, so full_attention layers are NoPE'
    """
    if not isinstance(config, Mapping):
        raise TypeError(f"config must be a mapping (a model's config.json as a dict); got {type(config).__name__}")
    if not isinstance(strict, bool):
        raise TypeError(f"strict={strict!r} must be True or False")
    yarn_engine = check_choice("yarn_engine", yarn_engine, YARN_ENGINES)
    n_seq = _check_seq_len(seq_len)
    cfg = normalize(config)
    if cfg is not config:
        emit_notices(cfg, strict)
    plans = plan_sites(cfg, strict)
    kind, layout = hf_layout(cfg)
    sites: list[RopeSite] = []
    cache: dict[Any, list[RopeSpec]] = {}
    for p in plans:
        if p.nope:
            sites.append(RopeSite(p.module, p.layers, p.layer_type, p.entry, p.nope, note=p.note))
            continue
        key = (p.entry, p.layer, p.layer_type, id(p.own) if p.own is not None else None)
        if key not in cache:
            cache[key] = _specs(cfg, p, strict, yarn_engine)
        for spec, factor in cache[key]:
            sites.append(_site(cfg, p, spec, factor, kind, n_seq))
    if draft is not None:
        sites += _draft_sites(draft, strict, seq_len, yarn_engine)
    n = cfg.get("num_hidden_layers")
    mp = cfg.get("max_position_embeddings")
    return RopeProgram(cfg.model_type, cfg.hf_class, n if isinstance(n, int) and not isinstance(n, bool) else None,
                       tuple(sites), layout, mp if isinstance(mp, int) and not isinstance(mp, bool) else None)


#: How a ``"draft"`` site read from a separate draft config (``read_program(draft=...)``) begins its
#: note (an MTP layer of the model itself says otherwise).
DRAFT_OWN_CONFIG = "the draft model's own config"


def _draft_sites(draft: Any, strict: bool, seq_len: int | None, yarn_engine: str) -> list[RopeSite]:
    """The draft model's attention sites, read from its own config, as ``"draft"`` sites."""
    if not isinstance(draft, Mapping):
        raise TypeError("draft must be a mapping (the draft model's config.json as a dict); got "
                        f"{type(draft).__name__}")
    try:
        prog = read_program(draft, strict=strict, seq_len=seq_len, yarn_engine=yarn_engine)
    except (TypeError, ValueError) as e:
        raise type(e)(f"draft: {e}") from e
    others = sorted({s.module for s in prog.sites if s.module != "attention"})
    if others:
        raise ValueError(f"draft: the draft config has sub-modules of its own ({', '.join(others)}); a draft is "
                         "read as attention layers only -- pass its sub-modules' config as the model instead")
    what = (f"{DRAFT_OWN_CONFIG} (model_type {prog.model_type!r}; speculative decoding: engines build the draft from "
            "it), at the target's token positions; layers are the draft's own")
    return [replace(s, module="draft", note=what + (f"; {s.note}" if s.note else "")) for s in prog.sites]


def _specs(cfg: NormalizedConfig, p: SitePlan, strict: bool, yarn_engine: str) -> list[tuple[RopeSpec, Any]]:
    """The site's spec, one per factor of vLLM's multi-factor linear list."""
    view = cfg.for_layer_type(p.layer_type) if p.layer_type is not None else cfg
    if p.own is not None:
        return [(_parse_params(view, f"config (the MTP layer {p.layers[0] if p.layers else ''})", p.own, None, strict,
                               yarn_engine=yarn_engine), None)]
    out = []
    for factor in _factor_choices(cfg, p.entry, strict):
        out.append((read_spec(view, layer_type=p.entry, layer=p.layer, strict=strict, factor=factor,
                              yarn_engine=yarn_engine), factor))
    return out


def _factor_choices(cfg: Mapping[str, Any], entry: str | None, strict: bool) -> list[Any]:
    _, params, _ = rope_entries(cfg, strict)
    p = params.get(entry) if entry is not None and isinstance(params, Mapping) else params
    if not isinstance(p, Mapping):
        return [None]
    f = p.get("factor")
    if (p.get("rope_type") or p.get("type")) == "linear" and isinstance(f, (list, tuple)) and len(f) > 1:
        return list(f)
    return [None]


def _site(cfg: NormalizedConfig, p: SitePlan, spec: RopeSpec, factor: Any, layout_kind: str,
          n_seq: int | None) -> RopeSite:
    _, attn = _exact_frequencies(spec, _seq_key(spec, n_seq), "original")
    pairing = layout_kind
    if p.module == "indexer" and spec.indexer_layout is not None:
        pairing = spec.indexer_layout
    if pairing == "trailing-interleaved" or (p.module in ("compressor", "indexer") and spec.rotary_channels == "trailing"):
        pairing = "interleaved"
    rounding = ""
    if spec.rope_type not in ("proportional", "axial") and spec.partial_rotary_factor != 1:
        raw = spec.head_dim * spec.partial_rotary_factor
        rounding = f"int({spec.head_dim} * {spec.partial_rotary_factor:g}) = {int(raw)}"
        if spec.freq_dim is not None:
            rounding += f", odd: HF rotates {spec.rotary_dim} channels with exponent d = {spec.freq_dim}"
    start = spec.head_dim - spec.rotary_dim if spec.rotary_channels == "trailing" else 0
    sl = RotatedSlice(spec.head_dim, spec.rotary_dim, start, pairing, rounding)
    softmax = None
    if cfg.get("qk_rope_head_dim") is not None and spec.rope_type == "yarn" and spec.mscale_all_dim:
        assert spec.factor is not None
        m = 0.1 * spec.mscale_all_dim * math.log(spec.factor) + 1 if spec.factor > 1 else 1.0
        softmax = m * m
    qs = ""
    if spec.llama_4_scaling_beta is not None:
        qs = (f"queries x (1 + {spec.llama_4_scaling_beta:g} ln(1 + floor(m / "
              f"{spec.original_max_position_embeddings})))")
    att = AttentionFactor(float(attn), "cos/sin", softmax, qs)
    angles = AngleSchedule(spec.rope_type, spec.rope_theta, _effective_base(spec), _factors(spec), spec.exponent_dim,
                           len(_exact_frequencies(spec, _seq_key(spec, n_seq), "original")[0]))
    inverse = None
    if p.inverse:
        inverse = Inverse(f"the attention output's last {spec.rotary_dim} channels are turned back by R(-theta_m) "
                          "(cos, -sin) at the query position m (K = V carried the keys' rotation)")
    select: list[tuple[str, Any]] = []
    if p.entry is not None:
        select.append(("layer_type", p.entry))
    if p.layer is not None:
        select.append(("layer", p.layer))
    if factor is not None:
        select.append(("factor", factor))
    return RopeSite(p.module, p.layers, p.layer_type, p.entry, "", spec, _positions(spec, p), angles, sl, att,
                    inverse, p.note, tuple(select))


def _positions(spec: RopeSpec, p: SitePlan) -> PositionMap:
    if p.positions == "compressed":
        return PositionMap("compressed", ("w",), stride=p.stride)
    if spec.position_blocks != 1:
        return PositionMap("2d-blocks", ("token", "block"))
    if spec.xdrope_section is not None:
        return PositionMap("xdrope", tuple(f"axis{k}" for k in range(len(spec.xdrope_section))), spec.xdrope_section)
    if spec.mrope_section is not None:
        axes = ("t", "h", "w") if len(spec.mrope_section) == 3 else ("h", "w")
        how = spec.mrope_rule or ("interleaved" if spec.mrope_interleaved else "contiguous")
        return PositionMap("mrope", axes, spec.mrope_section, how)
    if spec.rope_type == "axial":
        three = spec.freq_dim is not None and spec.rotary_dim == 3 * spec.freq_dim
        return PositionMap("axial", ("t", "h", "w") if three else ("h", "w"))
    return PositionMap("token")


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

