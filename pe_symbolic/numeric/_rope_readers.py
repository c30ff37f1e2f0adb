"""One reader per ``rope_type``: the keys that type reads, checked, into :class:`RopeSpec` fields.

Modelled on HF transformers' ``ROPE_INIT_FUNCTIONS`` (one small function per type, looked up
by name). The shared part -- which rope dict, which type, the keys a type does not read, the
required keys, the base, the rotary dims, ``max_position_embeddings``, Llama 4's query scale,
M-RoPE sections -- is done once by :func:`pe_symbolic.numeric._parse.read_spec`; a
reader gets a :class:`ReadContext` with those already read and adds its own fields to
``ctx.kw``.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ._config_base import _factor_list, _int, _real, _user_stacklevel
from ._spec import VLLM_DEEPSEEK_NAMES
from ._variant_readers import factor_list, openpangu_sections, read_extrapolation, read_fope, select_factor

__all__ = ["READERS", "ReadContext", "reader"]


@dataclass
class ReadContext:
    """What a reader sees: the config (normalized), the rope dict ``p`` and where it is, the type,
    what the shared part has read, and ``kw`` (the :class:`RopeSpec` fields so far)."""

    cfg: Mapping[str, Any]
    where: str
    p: Mapping[str, Any]
    rope_type: str
    raw_type: object
    head_dim: int
    rotary_dim: int
    freq_dim: int | None
    max_pos: int | None
    ntk_alpha: bool = False
    kw: dict[str, Any] = field(default_factory=dict)
    factor_choice: object = None
    """``factor=`` of :func:`parse_rope_config` (a multi-factor linear list's selection)."""
    yarn_engine: str = "hf"
    """``yarn_engine=`` of :func:`parse_rope_config` (whose ``extrapolation_factor`` reading)."""
    strict: bool = False

    def real(self, key: str, **kw: Any) -> float:
        """``p[key]`` as a checked float (see :func:`_real`)."""
        return _real(self.where, key, self.p[key], **kw)

    def read_factor(self) -> None:
        """The context-extension ``factor`` (>= 1), when the dict gives one."""
        f = self.p.get("factor")
        if isinstance(f, (list, tuple)):
            raise TypeError(f"{self.where}['factor']={f!r} is a list: a factor list is read for rope_type 'linear' "
                            f"only (vLLM's multi-factor LinearScalingRotaryEmbedding); rope_type {self.rope_type!r} "
                            "takes one number >= 1")
        if f is not None:
            self.kw["factor"] = self.real("factor", minimum=1.0, what=" (a context-extension factor, >= 1)")

    def read_original_max(self) -> None:
        """``original_max_position_embeddings``: a top-level value wins (Phi-3), then the rope
        dict's, then ``max_position_embeddings``."""
        if self.cfg.get("original_max_position_embeddings") is not None:
            o_where, omax = "config", self.cfg["original_max_position_embeddings"]
        elif self.p.get("original_max_position_embeddings") is not None:
            o_where, omax = self.where, self.p["original_max_position_embeddings"]
        else:
            o_where, omax = "config", self.max_pos
        if omax is None:
            raise ValueError(
                f"{self.where} is missing the key 'original_max_position_embeddings' (and config has no "
                f"'max_position_embeddings' to fall back to), which rope_type {self.rope_type!r} requires"
            )
        self.kw["original_max_position_embeddings"] = _int(o_where, "original_max_position_embeddings", omax)

    def read_attention_factor(self) -> None:
        """An explicit ``attention_factor`` (> 0; vLLM's DeepSeek names compute their own)."""
        if self.p.get("attention_factor") is not None and self.raw_type not in VLLM_DEEPSEEK_NAMES:
            self.kw["attention_factor"] = self.real("attention_factor", minimum=0.0, strict=True)


#: ``rope_type`` -> its reader (``"default"`` and ``"axial"`` read nothing beyond the shared part).
READERS: dict[str, Callable[[ReadContext], None]] = {}


def reader(*types: str) -> Callable[[Callable[[ReadContext], None]], Callable[[ReadContext], None]]:
    """Register a reader for ``types``."""
    def register(fn: Callable[[ReadContext], None]) -> Callable[[ReadContext], None]:
        for t in types:
            READERS[t] = fn
        return fn
    return register


@reader("default", "axial")
def _plain(ctx: ReadContext) -> None:
    """The ladder ``b ** (-2i/d)``: nothing beyond the base and the rotary dims; under
    ``default``, FoPE's keys (Intern-S1-Pro) when the dict gives them."""
    if ctx.rope_type == "default":
        read_fope(ctx.cfg, ctx.where, ctx.p, ctx.rope_type, ctx.rotary_dim, ctx.head_dim, ctx.kw)


@reader("openpangu")
def _openpangu(ctx: ReadContext) -> None:
    """vLLM's ``rope_type: "openpangu"``: the default ladder, the pairs' position axes by
    openPangu's greedy interleave of ``mrope_section`` (two or three sections), which
    ``mrope_interleaved: true`` must confirm."""
    ctx.kw["mrope_section"] = openpangu_sections(ctx.where, ctx.p, ctx.rotary_dim)
    ctx.kw["mrope_interleaved"] = True
    ctx.kw["mrope_rule"] = "openpangu"


@reader("linear", "proportional")
def _linear(ctx: ReadContext) -> None:
    """``theta_i / s`` (``proportional``: Gemma 4's partial ladder over the head dim, / s);
    for ``linear``, vLLM's multi-factor list (one table block per factor), of which
    ``factor=`` picks one."""
    f = ctx.p.get("factor")
    if ctx.rope_type == "linear" and isinstance(f, (list, tuple)):
        factors = factor_list(ctx.where, f)
        if len(factors) == 1:
            ctx.kw["factor"] = factors[0]
            if ctx.factor_choice is not None:
                select_factor(ctx.where, factors, ctx.factor_choice)
            return
        ctx.kw["factors"] = factors
        ctx.kw["factor"] = select_factor(ctx.where, factors, ctx.factor_choice)
        return
    ctx.read_factor()


@reader("ntk")
def _ntk(ctx: ReadContext) -> None:
    """vLLM's ``NTKScalingRotaryEmbedding``: fixed NTK, or mixed NTK with ``mixed_b``."""
    ctx.read_factor()
    if ctx.p.get("mixed_b") is not None:
        # vLLM's NTKScalingRotaryEmbedding with mixed_b: theta_i / exp(a (i+1)^beta), a = ln s / (d/2)^beta
        ctx.kw["mixed_b"] = ctx.real("mixed_b", minimum=0.0, strict=True, what=" (vLLM's mixed-NTK exponent, > 0)")
        if ctx.freq_dim is not None:
            raise ValueError(f"{ctx.where}['mixed_b'] (vLLM's mixed NTK) needs an even rotary dim: vLLM's lambda has "
                             f"rotary_dim // 2 entries and its ladder ceil(rotary_dim / 2); got int(head_dim * "
                             f"partial_rotary_factor) = {ctx.freq_dim}")
    elif ctx.freq_dim is not None:
        # vLLM's fixed NTK (no mixed_b): HF has no 'ntk' type, so HF's round-up of an odd dim does not
        # apply, and vLLM's rotation splits rotary_dim channels into two equal halves
        raise ValueError(f"rope_type 'ntk' (vLLM's NTKScalingRotaryEmbedding, fixed NTK) needs an even rotary dim: "
                         f"vLLM rotates rotary_dim // 2 pairs (HF, which rounds an odd dim up, has no 'ntk' type); "
                         f"got int(head_dim * partial_rotary_factor) = {ctx.freq_dim}")


@reader("dynamic")
def _dynamic(ctx: ReadContext) -> None:
    """HF's dynamic NTK (the base grows past ``max_position_embeddings``), or Hunyuan's fixed
    ``alpha`` (HF's ``ntk_alpha``: ``b * alpha**(d/(d-2))``, ``factor`` not read)."""
    if ctx.ntk_alpha:
        ctx.kw["alpha"] = ctx.real("alpha", minimum=0.0, strict=True, what=" (Hunyuan's NTK alpha, > 0)")
        if ctx.freq_dim is not None or ctx.rotary_dim != ctx.head_dim:
            raise ValueError(f"{ctx.where}['alpha'] (Hunyuan's NTK alpha) is only defined for a full rotary dim "
                             f"(HF uses config.head_dim = {ctx.head_dim}); got rotary dim {ctx.rotary_dim}")
        return
    ctx.read_factor()
    if ctx.rotary_dim < 4:
        raise ValueError(f"rope_type 'dynamic' needs a rotary dim >= 4 (the exponent is d/(d-2)); got {ctx.rotary_dim}")
    if ctx.max_pos is None:
        raise ValueError("config is missing the key 'max_position_embeddings', which rope_type 'dynamic' requires")


@reader("yarn", "telechat3-yarn")
def _yarn(ctx: ReadContext) -> None:
    """YaRN (HF's, vLLM's DeepSeek names, vLLM's TeleChat3): factor, the original length, the
    ramp's ``beta_fast`` / ``beta_slow``, ``truncate``, the attention factor's inputs."""
    p, where, kw = ctx.p, ctx.where, ctx.kw
    ctx.read_factor()
    ctx.read_original_max()
    if ctx.rope_type == "yarn":
        ctx.read_attention_factor()
        if ctx.raw_type not in VLLM_DEEPSEEK_NAMES:
            # HF does not read extrapolation_factor; vLLM and llama.cpp do (yarn_engine=)
            read_extrapolation(where, p, ctx.yarn_engine, ctx.strict, kw)
    kw["beta_fast"] = _real(where, "beta_fast", p.get("beta_fast") or 32)
    kw["beta_slow"] = _real(where, "beta_slow", p.get("beta_slow") or 1)
    for key in ("beta_fast", "beta_slow"):
        if kw[key] <= 0:
            raise ValueError(f"{where}[{key!r}]={p.get(key)!r} must be > 0 (a number of rotations)")
    if kw["beta_slow"] > kw["beta_fast"]:
        # HF only logs a warning and computes on: the ramp then runs backwards
        shown = {k: f"{p.get(k)!r}" + ("" if p.get(k) else f" (default {d})")
                 for k, d in (("beta_fast", 32), ("beta_slow", 1))}
        warnings.warn(
            f"{where}['beta_slow']={shown['beta_slow']} is greater than {where}['beta_fast']="
            f"{shown['beta_fast']}: YaRN's ramp runs backwards (low = j(beta_fast) > high = "
            "j(beta_slow)); beta_fast (pairs turning more often over the original length are kept) "
            "should exceed beta_slow (pairs turning less often are interpolated). Computed as HF does.",
            UserWarning,
            stacklevel=_user_stacklevel(),
        )
    for key in ("mscale", "mscale_all_dim"):
        if p.get(key) is not None and ctx.rope_type == "yarn":
            kw[key] = _real(where, key, p[key])
    vllm_deepseek = ctx.raw_type in VLLM_DEEPSEEK_NAMES
    if vllm_deepseek:
        kw["mscale_rule"] = "vllm"
        for key in ("mscale", "mscale_all_dim"):
            if p.get(key) is not None:
                kw[key] = _real(where, key, p[key])
    if ctx.rope_type == "telechat3-yarn" or vllm_deepseek:
        # vLLM's TeleChat3RoPEScaledRotaryEmbedding (a YaRNScalingRotaryEmbedding): the kept share
        # times extrapolation_factor, the attention factor (0.07 ln s + 1) times attn_factor
        if p.get("extrapolation_factor") is not None:
            kw["extrapolation_factor"] = _real(where, "extrapolation_factor", p["extrapolation_factor"],
                                               minimum=0.0, what=" (vLLM's YaRN extrapolation_factor)")
        if p.get("attn_factor") is not None:
            kw["attn_factor"] = _real(where, "attn_factor", p["attn_factor"], minimum=0.0, strict=True,
                                      what=" (vLLM's attn_factor, multiplies the attention factor)")
    trunc = True if vllm_deepseek else p.get("truncate", True)  # vLLM's DeepSeek class always truncates
    if not isinstance(trunc, bool):
        raise TypeError(f"{where}['truncate']={trunc!r} must be true or false")
    kw["truncate"] = trunc


@reader("longrope")
def _longrope(ctx: ReadContext) -> None:
    """LongRoPE (Phi-3): per-pair short and long factors, the original length, the attention
    factor (or PhiMoE's ``short_mscale`` / ``long_mscale``)."""
    p, where, kw = ctx.p, ctx.where, ctx.kw
    ctx.read_factor()
    ctx.read_original_max()
    ctx.read_attention_factor()
    kw["short_factor"] = _factor_list(where, "short_factor", p["short_factor"], ctx.rotary_dim // 2, "longrope")
    kw["long_factor"] = _factor_list(where, "long_factor", p["long_factor"], ctx.rotary_dim // 2, "longrope")
    if "factor" not in kw:
        if ctx.max_pos is None:
            raise ValueError(f"{where} has no 'factor' and config no 'max_position_embeddings' to derive it from "
                             "(rope_type 'longrope')")
        kw["factor"] = ctx.max_pos / kw["original_max_position_embeddings"]
    ms = [p.get(k) is not None for k in ("short_mscale", "long_mscale")]
    if any(ms):
        if not all(ms):
            raise ValueError(f"{where} has only one of 'short_mscale' and 'long_mscale' (PhiMoE); give both")
        # PhiMoE: the cos/sin tables are multiplied by short_mscale, or long_mscale past
        # original_max_position_embeddings, in place of the longrope attention factor
        for key in ("short_mscale", "long_mscale"):
            kw[key] = _real(where, key, p[key], minimum=0.0, strict=True, what=" (PhiMoE's attention factor)")


@reader("llama3")
def _llama3(ctx: ReadContext) -> None:
    """Llama 3.1's bands by wavelength: factor, the original length, ``low_freq_factor`` and
    ``high_freq_factor`` (equal: Llama 4 Scout's two-band step, with a warning as HF's)."""
    p, where = ctx.p, ctx.where
    ctx.read_factor()
    ctx.read_original_max()
    lo = ctx.real("low_freq_factor", minimum=0.0, strict=True)
    hi = ctx.real("high_freq_factor", minimum=0.0, strict=True)
    if hi < lo:
        raise ValueError(
            f"{where}['high_freq_factor']={p['high_freq_factor']!r} must be greater than "
            f"{where}['low_freq_factor']={p['low_freq_factor']!r} (rope_type 'llama3')"
        )
    if hi == lo:
        warnings.warn(
            f"{where}['high_freq_factor']={p['high_freq_factor']!r} equals {where}['low_freq_factor']="
            f"{p['low_freq_factor']!r} (rope_type 'llama3'): there is no blended band; pairs whose wavelength "
            "exceeds original_max_position_embeddings / low_freq_factor are divided by factor, the others kept "
            "(Llama 4 Scout ships this; HF warns and computes the same step)",
            UserWarning,
            stacklevel=_user_stacklevel(),
        )
    ctx.kw["low_freq_factor"], ctx.kw["high_freq_factor"] = lo, hi
