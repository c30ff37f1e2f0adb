"""The shape of a rotation: head dim, rotated dim, exponent dim, and M-RoPE sections.

What every rope type reads before its own keys (:func:`_geometry`): the base, the partial
rotary factor and HF's integer rounding (``int(head_dim * partial_rotary_factor)``; an odd
result keeps the odd ``d`` in the exponent and rotates one more channel), the head dim and
where it comes from (``head_dim``, ``qk_rope_head_dim``, ``global_head_dim``, ``hidden_size
// num_attention_heads``, per HF's config class), GPT-J's ``rotary_dim``, the axial vision
dims; and M-RoPE's sections with each model's placement (:func:`_sections`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ._config_base import _int, _is_number, _real, _unknown
from ._spec import (
    AXIAL_3D_MODEL_TYPES,
    GLOBAL_HEAD_DIM_LAYER,
    HEAD_DIM_ALIASES,
    HEAD_DIM_WIDTH,
    HF_MROPE_DEFAULT_SECTIONS,
    HF_MROPE_PLACEMENT,
    KEEP_HEAD_DIM,
    MEMORY_ATTENTION_TYPES,
    QK_ROPE_IS_HEAD_DIM,
    ROTARY_DIM_IGNORED_BY_HF,
    _HEAD_DIM_LOOKALIKES,
    mrope_rule_axes,
)
from ._variant_readers import BAILING_MODEL_TYPES, check_bailing

__all__: list[str] = []

def _geometry(cfg: Mapping[str, Any], where: str, p: Mapping[str, Any], rope_type: str, layer_type: str | None,
              strict: bool) -> tuple[float, float, int, int, int | None]:
    """(base, partial rotary factor, head dim, rotary dim, exponent d when it differs): the
    keys every rope type reads, with GPT-J's ``rotary_dim``, axial and odd partial dims."""
    model_type = cfg.get("model_type")
    def pick(key: str, *top: str, default: Any = None) -> tuple[str, str, Any]:
        """(where, key, value): the rope dict's value, else the first top-level one, else default."""
        if p.get(key) is not None:
            return where, key, p[key]
        for t in top:
            if cfg.get(t) is not None:
                return "config", t, cfg[t]
        return where, key, default

    theta = _real(*pick("rope_theta", "rope_theta", "rotary_emb_base", default=10000.0),
                  minimum=1.0, strict=True, what=" (the RoPE base, > 1)")
    top_prf = cfg.get("partial_rotary_factor", cfg.get("rotary_pct"))
    if p.get("partial_rotary_factor") is not None and top_prf is not None and top_prf != p["partial_rotary_factor"]:
        raise ValueError(
            f"config['partial_rotary_factor']={top_prf!r} and {where}['partial_rotary_factor']="
            f"{p['partial_rotary_factor']!r} disagree; keep one"
        )
    prf_where, prf_key, prf_raw = pick("partial_rotary_factor", "partial_rotary_factor", "rotary_pct", default=1.0)
    prf = _real(prf_where, prf_key, prf_raw, minimum=0.0, strict=True,
                what=" (the fraction of each head that rotates, in (0, 1])")
    if prf > 1:
        raise ValueError(f"{prf_where}[{prf_key!r}]={prf_raw!r} is not allowed: it must be in (0, 1]")
    prf_given = any(x is not None for x in (p.get("partial_rotary_factor"), cfg.get("partial_rotary_factor"),
                                            cfg.get("rotary_pct")))
    head_dim, head_src = _head_dim(cfg, layer_type, prf_given=prf_given, strict=strict)
    if head_dim < 2 or head_dim % 2:
        raise ValueError(f"{head_src} must be a positive even number (RoPE turns pairs of channels)")
    freq_dim: int | None = None
    top_rd = cfg.get("rotary_dim")
    if top_rd is not None and cfg.get("model_type") in ROTARY_DIM_IGNORED_BY_HF:
        _unknown(f"config['rotary_dim']={top_rd!r} is not read by HF's rotary embedding for model_type "
                 f"{cfg.get('model_type')!r} (it rotates int(head_dim * partial_rotary_factor) channels); the parser "
                 "follows HF and does not use it", strict)
        top_rd = None
    if top_rd is not None and prf_raw != 1.0:
        raise ValueError(
            f"config['rotary_dim']={top_rd!r} and {prf_where}[{prf_key!r}]={prf_raw!r} both set the rotary "
            "dim; keep one"
        )
    if rope_type in ("proportional", "axial"):
        rotary_dim = head_dim
        if rope_type == "axial" and model_type in AXIAL_3D_MODEL_TYPES:
            # MiniMax-M3-VL's vision tower: one ladder over spatial = 2 * ((head_dim // 3) // 2) for
            # each of t, h, w; the first 3 * spatial channels rotate, the rest pass through
            freq_dim = 2 * ((head_dim // 3) // 2)
            if freq_dim < 2:
                raise ValueError(f"{head_src} is too small for a 3-axis (t, h, w) axial RoPE: "
                                 "2 * ((head_dim // 3) // 2) must be >= 2")
            rotary_dim = 3 * freq_dim
        elif rope_type == "axial" and model_type != "pixtral":
            freq_dim = head_dim // 2  # HF's spatial_dim: the ladder is shared by height and width
        if top_rd is not None:
            raise ValueError(f"config['rotary_dim']={top_rd!r} is not allowed with rope_type {rope_type!r}")
    elif top_rd is not None:
        # GPT-J: the first rotary_dim channels rotate, with exponents -2i/rotary_dim
        rotary_dim = _int("config", "rotary_dim", top_rd, minimum=2)
        if rotary_dim % 2 or rotary_dim > head_dim:
            raise ValueError(f"config['rotary_dim']={top_rd!r} must be an even number <= head_dim = {head_dim}")
    else:
        # head_dim is even, so only a partial_rotary_factor < 1 the config gives can land here
        rotary_dim = int(head_dim * prf)
        if rotary_dim <= 0:
            raise ValueError(
                f"{prf_where}[{prf_key!r}]={prf_raw!r} gives rotary dim int({head_dim} * {prf_raw!r}) = "
                f"{rotary_dim}; it must be positive"
            )
        if rotary_dim % 2:
            # HF: inv_freq = base ** -(arange(0, dim, 2) / dim) has ceil(dim/2) entries, so the
            # odd dim stays in the exponent and one more channel rotates (rounded up)
            freq_dim, rotary_dim = rotary_dim, rotary_dim + 1
    return theta, prf, head_dim, rotary_dim, freq_dim


def _sections(cfg: Mapping[str, Any], where: str, p: Mapping[str, Any], rope_type: str, raw_rt: object,
              rotary_dim: int, kw: dict[str, Any], strict: bool) -> None:
    """M-RoPE (``mrope_section``, each model's placement) and HunyuanVL's ``xdrope_section``, into ``kw``."""
    model_type = cfg.get("model_type")
    if rope_type == "openpangu":
        return  # its reader placed the sections (openPangu's greedy interleave)
    section = p.get("mrope_section")
    xd = p.get("xdrope_section")
    if xd is not None or (raw_rt == "xdrope" and section is not None):
        # HunyuanVL: 4 axes; xdrope_section is HF's legacy alias of mrope_section
        if xd is not None and section is not None and [float(v) for v in xd] != [float(v) for v in section]:
            raise ValueError(f"{where} has xdrope_section={xd!r} and mrope_section={section!r}; they must agree")
        sec = xd if xd is not None else section
        key = "xdrope_section" if xd is not None else "mrope_section"
        if isinstance(sec, (str, bytes)) or not isinstance(sec, Sequence) or len(sec) < 2:
            raise ValueError(f"{where}[{key!r}]={sec!r} must be a list of pair counts, one per axis")
        vals = tuple(_int(where, key, v, minimum=0, index=q) for q, v in enumerate(sec))
        if sum(vals) != rotary_dim // 2:
            raise ValueError(f"{where}[{key!r}]={list(sec)!r} sums to {sum(vals)}; it must sum to rotary_dim/2 = "
                             f"{rotary_dim // 2}")
        kw["xdrope_section"] = vals
        section = None
    if section is not None and rope_type == "axial":
        raise ValueError(f"{where} has rope_type 'axial' (HF's 2-D vision RoPE) and an 'mrope_section'; "
                         "an M-RoPE text config uses rope_type 'default'")
    placement = HF_MROPE_PLACEMENT.get(model_type) if rope_type != "axial" else None  # type: ignore[arg-type]
    if placement == "ernie4_5_vl" and rope_type != "default":
        raise ValueError(f"{where}['rope_type']={raw_rt!r}: HF's Ernie 4.5 VL (model_type {model_type!r}) accepts only "
                         "the 'default' rope type (Ernie4_5_VLMoeTextRotaryEmbedding raises on any other)")
    if section is None and placement is not None and model_type in HF_MROPE_DEFAULT_SECTIONS:
        default = HF_MROPE_DEFAULT_SECTIONS[model_type]  # type: ignore[index]
        if sum(default) == rotary_dim // 2:
            section = default
        else:  # HF's split fails there (contiguous), or leaves the extra pairs to t (interleaved): not placed here
            _unknown(f"{where} has no 'mrope_section', and the default of HF's rotary embedding for model_type "
                     f"{model_type!r}, {list(default)} ({placement} placement), sums to {sum(default)}, not "
                     f"rotary_dim/2 = {rotary_dim // 2}: the parser reads no M-RoPE sections (positions of one axis "
                     "only; the frequencies are HF's); give the config's mrope_section", strict)
    if section is not None:
        kw["mrope_section"] = _mrope_section(where, section, rotary_dim)
        inter = p.get("mrope_interleaved", False)
        if not isinstance(inter, bool):
            raise TypeError(f"{where}['mrope_interleaved']={inter!r} must be true or false")
        if model_type in BAILING_MODEL_TYPES and placement is None:
            # vLLM's and SGLang's BailingMRotaryEmbedding (HF's BailingHybridRotaryEmbedding reads no
            # mrope_section): h on even, w on odd pairs of the first h + w, then t
            check_bailing(where, raw_rt, rope_type, kw["mrope_section"])
            if inter:
                kw["ignored"] = kw["ignored"] + ("mrope_interleaved",)  # Bailing's placement does not read it
            kw["mrope_rule"], kw["mrope_interleaved"] = "bailing", False
            return
        if placement is not None:
            if "mrope_interleaved" in p and inter != (placement == "interleaved"):
                kw["ignored"] = kw["ignored"] + ("mrope_interleaved",)  # HF's code for this model never reads it
            inter = placement == "interleaved"
            if placement == "ernie4_5_vl":
                try:
                    mrope_rule_axes(placement, kw["mrope_section"])
                except ValueError as exc:
                    raise ValueError(f"{where}: {exc}") from None
                kw["mrope_rule"] = placement
        kw["mrope_interleaved"] = inter
        if inter:
            _check_interleavable(where, kw["mrope_section"])


def _head_dim(cfg: Mapping[str, Any], layer_type: str | None = None, *, prf_given: bool = False,
              strict: bool = False) -> tuple[int, str]:
    """The head dim and where it comes from (``"config['head_dim']=64"``), for error messages."""
    mt = cfg.get("model_type")
    keys: tuple[str, ...] = ("qk_rope_head_dim", "head_dim")
    both = cfg.get("head_dim") is not None and cfg.get("qk_rope_head_dim") is not None
    rule = getattr(cfg, "head_dim_from", None)  # HF's class, from the shipped table
    if both and rule is not None:
        if rule != "qk_rope_head_dim":
            keys = ("head_dim",)  # the class keeps its head_dim beside qk_rope_head_dim (Dots3, Mistral 4)
    elif both and prf_given and mt in KEEP_HEAD_DIM:
        keys = ("head_dim",)  # Mistral 4, DeepSeek-V4: head_dim * partial_rotary_factor, as HF
    elif both and prf_given and mt not in QK_ROPE_IS_HEAD_DIM and cfg["head_dim"] != cfg["qk_rope_head_dim"]:
        _unknown(f"config has head_dim={cfg['head_dim']!r}, qk_rope_head_dim={cfg['qk_rope_head_dim']!r} and a "
                 f"partial_rotary_factor, and model_type {mt!r} is not one whose HF class the parser knows: it "
                 "takes qk_rope_head_dim as the head dim (DeepSeek's rule); Mistral 4 / DeepSeek-V4 take head_dim",
                 strict)
    if mt in HEAD_DIM_ALIASES and cfg.get("head_dim") is None:
        keys = keys + (HEAD_DIM_ALIASES[mt],)
    if layer_type == GLOBAL_HEAD_DIM_LAYER:
        keys = ("global_head_dim",) + keys
    for key in keys:
        if cfg.get(key) is not None:
            src = f"config[{key!r}]={cfg[key]!r}"
            if key == "global_head_dim":
                src += f" (the head dim of {GLOBAL_HEAD_DIM_LAYER!r} layers)"
            return _int("config", key, cfg[key]), src
    if mt in MEMORY_ATTENTION_TYPES and cfg.get("memory_attention_hidden_size") is not None:
        h = _int("config", "memory_attention_hidden_size", cfg["memory_attention_hidden_size"])
        n = _int("config", "memory_attention_num_attention_heads", cfg.get("memory_attention_num_attention_heads", 1))
        r = _int("config", "memory_attention_downsample_rate", cfg.get("memory_attention_downsample_rate", 1))
        d = h // (r * n)
        return d, (f"head_dim = memory_attention_hidden_size // (memory_attention_downsample_rate * "
                   f"memory_attention_num_attention_heads) = {h} // ({r} * {n}) = {d}")
    width = HEAD_DIM_WIDTH.get(mt, "hidden_size")  # type: ignore[arg-type]
    hidden, heads = cfg.get(width), cfg.get("num_attention_heads")
    if hidden is None or heads is None:
        missing = [k for k, v in ((width, hidden), ("num_attention_heads", heads)) if v is None]
        raise ValueError(
            f"config is missing the key(s) {', '.join(map(repr, missing))}: the head dimension comes "
            f"from 'head_dim' or {width} // num_attention_heads"
        )
    h, n = _int("config", width, hidden), _int("config", "num_attention_heads", heads)
    for key in _HEAD_DIM_LOOKALIKES:
        v = cfg.get(key)
        if _is_number(v) and v != h // n:
            _unknown(f"config[{key!r}]={v!r} may be the head dim, but the parser does not read it (model_type "
                     f"{mt!r}); it uses hidden_size // num_attention_heads = {h // n}: give 'head_dim' to say which",
                     strict)
    return h // n, f"head_dim = config[{width!r}] // config['num_attention_heads'] = {h} // {n} = {h // n}"


def _mrope_section(where: str, section: object, rotary_dim: int) -> tuple[int, int, int]:
    name = f"{where}['mrope_section']"
    if isinstance(section, (str, bytes)) or not isinstance(section, Sequence) or len(section) != 3:
        raise ValueError(f"{name}={section!r} must be three integers (pairs for t, h, w)")
    out = tuple(_int(where, "mrope_section", v, minimum=0, index=q) for q, v in enumerate(section))
    if sum(out) != rotary_dim // 2:
        raise ValueError(f"{name}={list(section)!r} sums to {sum(out)}; it must sum to rotary_dim/2 = {rotary_dim // 2}")
    return out  # type: ignore[return-value]


def _check_interleavable(where: str, sec: tuple[int, int, int]) -> None:
    from ..encodings.family import mrope_axes

    try:
        mrope_axes(sec, interleaved=True)
    except ValueError as exc:
        raise ValueError(f"{where}['mrope_section']={list(sec)!r} with mrope_interleaved: {exc}") from None
