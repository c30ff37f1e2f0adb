r"""Each engine's RoPE formulas, transcribed as SymPy expressions beside Hugging Face's.

One function per engine (:data:`~pe_symbolic.engines.recipes.RECIPES`) takes a layer's rope dict
(:class:`~pe_symbolic.engines._read.LayerRope`) and returns a :class:`Recipe`: for every
range of the current sequence length :math:`n` (a :class:`Regime`), the angle per unit
position :math:`\omega_i` of each pair (pair ``i`` of a query or key at position :math:`m`
turns by :math:`m\,\omega_i`) and the factor that multiplies cos and sin (the *attention
factor*; every logit then carries its square), plus the table the engine builds (its
length bounds the positions it admits) and its pairing.

Every formula is written from the engine's code at a cited file and commit
(:class:`Source`), never from another engine's or from this package's constructions; the
Hugging Face recipe is transcribed from ``transformers`` 5.24.0
``src/transformers/modeling_rope_utils.py`` the same way. What an engine *reads* from the
config (which key, which default) is part of its recipe, because that is where engines
part ways as often as in the formulas.

Numbers come through a :class:`Reader`: at a config, exact values (:func:`~pe_symbolic.engines._read.exact`);
*generic*, one positive symbol per config key (``rope_theta`` is :math:`b`, ``factor`` is
:math:`s`, ``max_position_embeddings`` is :math:`L`, ...), shared by every engine, with the
engine's own defaults for keys the config lacks. The same recipe code then gives the
formula for every value of the config's numbers, which is what lets
:mod:`pe_symbolic.engines.compare` prove two engines equal for *every* factor, base and
length, or refute them at a concrete counterexample config.

Known divergences found this way (each a kernel verdict in ``pe-audit --engines``):

* vLLM's ``DynamicNTKScalingRotaryEmbedding`` before vLLM PR 41277 and SGLang's: the base
  multiplier is :math:`(s\cdot sL/L - (s-1))^{d/(d-2)} = (s^2 - s + 1)^{d/(d-2)}` at every
  length (13 for :math:`s = 4`), a static NTK; HF's is 1 up to :math:`L` and
  :math:`s n/L - (s-1)` beyond. After PR 41277 vLLM's multiplier is
  :math:`(sL/L - (s-1)) = 1`: plain RoPE, equal to HF up to :math:`L` and not past it.
* TensorRT-LLM's Laguna reader (before PR 16379) puts ``attention_factor`` into ``mscale``,
  which ``create_sinusoidal_positions_yarn`` sends through :math:`0.1\,\mu\ln s + 1`: the
  factor becomes :math:`0.1\,a\ln s + 1` instead of :math:`a`.
* llama.cpp with ``ext_factor = 0`` on a YaRN model: every pair interpolated
  (:math:`\theta/s`) and the magnitude factor dropped (``rope_yarn`` multiplies ``mscale``
  by :math:`1 + 0.1\ln s` only when ``ext_factor != 0``).
* vLLM's (and SGLang's) ``Gemma4RotaryEmbedding`` never reads ``factor``: HF divides the
  proportional ladder by it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import sympy as sp

from ._read import LayerRope, exact

__all__ = [
    "ENGINES",
    "M",
    "N",
    "RECIPES",
    "Reader",
    "Recipe",
    "Regime",
    "Source",
    "recipe",
]

N = sp.Symbol("n", integer=True, positive=True)
"""The current sequence length (the largest position id + 1)."""
M = sp.Symbol("m", integer=True, nonnegative=True)
"""A position."""

#: A thousandth, the YaRN ramp's guard against ``low == high`` (``high += 0.001``).
_MILLI = sp.Rational(1, 1000)
_TENTH = sp.Rational(1, 10)


# ----------------------------------------------------------------------------------------
# sources


@dataclass(frozen=True)
class Source:
    """A transcribed file: repository, path, commit and what in it.

    >>> Source("vllm-project/vllm", "a.py", "0123456789abcdef", "f").cite()
    'vllm-project/vllm a.py @ 0123456789ab (f)'
    """

    repo: str
    path: str
    commit: str
    what: str = ""

    def cite(self) -> str:
        at = f" @ {self.commit[:12]}" if self.commit else ""
        return f"{self.repo} {self.path}{at}" + (f" ({self.what})" if self.what else "")


_HF = "huggingface/transformers"
_HF_FILE = "src/transformers/modeling_rope_utils.py"
# the release the recipe was checked against (a tag, not a hash): transcribed from v5.24.0; v5.25.0's
# file differs only in YaRN's get_mscale, moved to module level as yarn_get_mscale (same formula),
# and a new yarn_apply_mscale that MLA attention uses for its softmax scale (not a frequency)
_HF_V = "v5.25.0"
_VLLM = "vllm-project/vllm"
_VDIR = "vllm/model_executor/layers/rotary_embedding/"
_SGL = "sgl-project/sglang"
_SDIR = "python/sglang/srt/layers/rotary_embedding/"
_LCPP = "ggml-org/llama.cpp"
_TRT = "NVIDIA/TensorRT-LLM"
_MLX = "ml-explore/mlx-lm"

SOURCES: dict[str, Source] = {
    "hf": Source(_HF, _HF_FILE, _HF_V, "ROPE_INIT_FUNCTIONS, dynamic_rope_update"),
    "vllm.get_rope": Source(_VLLM, _VDIR + "__init__.py", "926c71f6f25f8fe0a71ba4b168205e64bef24a36", "get_rope"),
    "vllm.base": Source(_VLLM, _VDIR + "base.py", "04458da08417899fc04046216c986d28abeb85af",
                        "RotaryEmbedding._compute_inv_freq / _compute_cos_sin_cache"),
    "vllm.linear": Source(_VLLM, _VDIR + "linear_scaling_rope.py", "0f17ee061e413bf8ab7927f926f69cdff24dc63e",
                          "LinearScalingRotaryEmbedding"),
    "vllm.dynamic_old": Source(_VLLM, _VDIR + "dynamic_ntk_scaling_rope.py",
                               "50feac95f9e53a97d6ed27fee6bfe3b163d18594",
                               "DynamicNTKScalingRotaryEmbedding, before PR 41277"),
    "vllm.dynamic": Source(_VLLM, _VDIR + "dynamic_ntk_scaling_rope.py", "3cfbaf333d800badc12fad1f138ab01178d35ab8",
                           "DynamicNTKScalingRotaryEmbedding, after PR 41277"),
    "vllm.yarn": Source(_VLLM, _VDIR + "yarn_scaling_rope.py", "0cd5784803d83f81fac0794b82cb592d4317d4bf",
                        "YaRNScalingRotaryEmbedding"),
    "vllm.llama3": Source(_VLLM, _VDIR + "llama3_rope.py", "045d7575500e01e0f4a7ff84e039a9f7f7dc3bd0",
                          "Llama3RotaryEmbedding"),
    "vllm.longrope": Source(_VLLM, _VDIR + "phi3_long_rope_scaled_rope.py", "17d618b0f944610b73e79e6726983fbe7679f613",
                            "Phi3LongRoPEScaledRotaryEmbedding"),
    "vllm.gemma4": Source(_VLLM, _VDIR + "gemma4_rope.py", "41c5903d049b80b83a6e570f52f0f55e31316e49",
                          "Gemma4RotaryEmbedding"),
    "sglang.factory": Source(_SGL, _SDIR + "factory.py", "108c36c008291c3a1ea524342837056c503c5724", "get_rope"),
    "sglang.base": Source(_SGL, _SDIR + "base.py", "0099dee6aa65cb084e4b97956dd547519f3d8053",
                          "RotaryEmbedding, _ensure_cos_sin_cache_length"),
    "sglang.variant": Source(_SGL, _SDIR + "rope_variant.py", "0b1fd02d56f010c589968aa6e05534e10c2d4bf3",
                             "DynamicNTKScaling, Llama3, Phi3LongRoPE, Gemma4RotaryEmbedding"),
    "sglang.yarn": Source(_SGL, _SDIR + "yarn.py", "0b1fd02d56f010c589968aa6e05534e10c2d4bf3",
                          "YaRNScalingRotaryEmbedding"),
    "llama.cpp.context": Source(_LCPP, "src/llama-context.cpp", "001d906a6d86e2490e394361e7cc6f478b100088",
                                "llama_context: yarn_ext_factor, yarn_attn_factor"),
    "llama.cpp.rope": Source(_LCPP, "ggml/src/ggml-cpu/ops.cpp", "1f08e2d662715ead7987c365eced4f273d90e431",
                             "rope_yarn, rope_yarn_ramp; ggml_rope_yarn_corr_dims"),
    "llama.cpp.convert": Source(_LCPP, "convert_hf_to_gguf.py", "",
                                "LlamaModel.generate_extra_tensors: rope_freqs for llama3"),
    "trt.functional": Source(_TRT, "tensorrt_llm/functional.py", "2340c776201e4dba9aa625b8615e3e6ca9d7a7f6",
                             "RopeEmbeddingUtils"),
    "trt.params": Source(_TRT, "tensorrt_llm/_torch/attention_backend/interface.py",
                         "51ea5c963794a4818ad8396a77d147fa901435d9", "RopeParams.from_config / create_rope_const_params"),
    "trt.laguna": Source(_TRT, "tensorrt_llm/_torch/models/modeling_laguna.py", "9289d06912850c676c9024347e0dfabe16b20d28",
                         "LagunaAttention._build_rope_from_flat_dict, before PR 16379"),
    "trt.kernel": Source(_TRT, "cpp/tensorrt_llm/kernels/decoderMaskedMultiheadAttentionUtils.h",
                         "5955b8afbad2ddcc3156202b16c567e94c52248f", "update_rotary_base_n_scale"),
    "mlx": Source(_MLX, "mlx_lm/models/rope_utils.py", "d78bf58e217c904ec282ed8da9b947491f78c022",
                  "initialize_rope and its classes"),
}


# ----------------------------------------------------------------------------------------
# the objects


@dataclass(frozen=True)
class Regime:
    r"""One range of the sequence length :math:`n` and what the engine does there.

    Attributes
    ----------
    lo, hi : sympy expression
        First and last length of the range (``hi`` ``None``: unbounded).
    omegas : tuple of sympy expressions
        :math:`\omega_i`, the angle per unit position of pair ``i`` (may contain ``N``).
    attention : sympy expression
        The factor on cos and sin.
    """

    lo: sp.Expr
    hi: sp.Expr | None
    omegas: tuple[sp.Expr, ...]
    attention: sp.Expr


@dataclass(frozen=True)
class Recipe:
    """What one engine does with one layer's rope dict.

    ``regimes`` is empty and ``unsupported`` says why when the engine refuses the config (or
    has no such rope type). ``table_rows`` is the number of positions the engine's cos/sin
    table holds (``None``: computed on the fly, no table); ``grows`` says whether it is
    extended on demand. ``pairing`` is ``"split"`` (GPT-NeoX / ``rotate_half``) or
    ``"interleaved"`` (GPT-J), with how the checkpoint is made to fit in ``pairing_note``.
    """

    engine: str
    name: str
    regimes: tuple[Regime, ...]
    rotary_dim: int | None
    base: sp.Expr | None
    pairing: str
    table_rows: sp.Expr | None
    grows: bool
    sources: tuple[Source, ...]
    notes: tuple[str, ...] = ()
    unsupported: str = ""
    pairing_note: str = ""
    applies: bool = True

    @property
    def supported(self) -> bool:
        return not self.unsupported

    def max_position(self) -> sp.Expr | None:
        """The largest position the table admits (``None``: no table, or it grows)."""
        if self.table_rows is None or self.grows:
            return None
        return self.table_rows - 1


# ----------------------------------------------------------------------------------------
# reading numbers, concrete or generic

#: The symbol each config key stands for in a generic recipe, and its assumptions.
_SYMBOLS: dict[str, tuple[str, dict[str, bool]]] = {
    "rope_theta": ("b", {"positive": True}),
    "factor": ("s", {"positive": True}),
    "max_position_embeddings": ("L", {"integer": True, "positive": True}),
    "original_max_position_embeddings": ("L_0", {"integer": True, "positive": True}),
    "attention_factor": ("a", {"positive": True}),
    "mscale": ("mu", {"positive": True}),
    "mscale_all_dim": ("mu_all", {"positive": True}),
    "beta_fast": ("beta_f", {"positive": True}),
    "beta_slow": ("beta_s", {"positive": True}),
    "low_freq_factor": ("f_lo", {"positive": True}),
    "high_freq_factor": ("f_hi", {"positive": True}),
    "alpha": ("alpha", {"positive": True}),
    "attn_factor": ("a_attn", {"positive": True}),
    "extrapolation_factor": ("e_x", {"positive": True}),
}


def _symbol(key: str) -> sp.Symbol:
    name, assumptions = _SYMBOLS[key]
    return sp.Symbol(name, **assumptions)


def generic_assumptions(symbols: set[sp.Symbol]) -> tuple[sp.Basic, ...]:
    """The relations a generic comparison assumes for the symbols it meets.

    ``b > 1`` (a RoPE base), ``s > 1`` (a context-extension factor), ``f_hi > f_lo``
    (Llama 3's bands), ``L_0 <= L`` is *not* assumed (configs break it).

    >>> generic_assumptions({_symbol("rope_theta")})
    (b > 1,)
    """
    names = {s.name: s for s in symbols}
    out: list[sp.Basic] = []
    if "b" in names:
        out.append(names["b"] > 1)
    if "s" in names:
        out.append(names["s"] > 1)
    if "f_lo" in names and "f_hi" in names:
        out.append(names["f_hi"] > names["f_lo"])
    return tuple(out)


class Reader:
    """Reads a layer's numbers for a recipe: exact values, or (``generic=True``) symbols.

    ``num(key, ...)`` returns the config's value of ``key`` (from the rope dict, else the
    top-level config where ``where="both"``) or the engine's ``default`` when it is absent;
    generic, a present key is its symbol (:data:`_SYMBOLS`) and an absent one the default,
    so two recipes that read the same key read the same symbol.
    """

    def __init__(self, layer: LayerRope, *, generic: bool = False) -> None:
        self.layer = layer
        self.generic = generic
        self.rope = layer.rope
        self.config = layer.config

    def raw(self, key: str, where: str = "rope") -> Any:
        if where in ("rope", "both") and self.rope.get(key) is not None:
            return self.rope[key]
        if where in ("config", "both") and self.config.get(key) is not None:
            return self.config[key]
        return None

    def has(self, key: str, where: str = "rope") -> bool:
        return self.raw(key, where) is not None

    def num(self, key: str, default: Any = None, *, where: str = "rope") -> sp.Expr | None:
        value = self.raw(key, where)
        if value is None:
            return None if default is None else sp.sympify(default, strict=True)
        if self.generic and key in _SYMBOLS and not isinstance(value, bool):
            return _symbol(key)
        return exact(value, name=key)

    def truthy(self, key: str, where: str = "rope") -> bool:
        """Python truthiness of the raw value, as engines test ``if mscale and ...``."""
        return bool(self.raw(key, where))

    def head_dim(self) -> int:
        cfg = self.config
        if cfg.get("head_dim") is not None:
            return int(cfg["head_dim"])
        if cfg.get("hidden_size") is None or cfg.get("num_attention_heads") is None:
            raise ValueError("config needs head_dim, or hidden_size and num_attention_heads, to size the rotary dim")
        return int(cfg["hidden_size"]) // int(cfg["num_attention_heads"])

    def partial(self) -> float:
        frac = self.raw("partial_rotary_factor", "both")
        return 1.0 if frac is None else float(frac)

    def rotary_dim(self) -> int:
        return int(self.head_dim() * self.partial())

    def max_pos(self) -> sp.Expr:
        value = self.num("max_position_embeddings", where="config")
        if value is None:
            raise ValueError("config needs max_position_embeddings")
        return value


# ----------------------------------------------------------------------------------------
# shared pieces, each engine's own copy written where it differs


def _symbolic(*args: Any) -> bool:
    return any(sp.sympify(a, strict=True).free_symbols for a in args)


def _min(*args: Any) -> sp.Expr:
    """``Min``, left unevaluated when symbolic (SymPy's ordering search is slow there; a
    substitution of numbers evaluates it)."""
    return sp.Min(*args, evaluate=not _symbolic(*args))


def _max(*args: Any) -> sp.Expr:
    return sp.Max(*args, evaluate=not _symbolic(*args))


def _pw(*pairs: tuple[Any, Any]) -> sp.Expr:
    """``Piecewise``, unevaluated when symbolic (as :func:`_min`)."""
    return sp.Piecewise(*pairs, evaluate=not _symbolic(*(e for e, _ in pairs), *(c for _, c in pairs)))


def _ladder(base: sp.Expr, d: int, count: int | None = None) -> list[sp.Expr]:
    """``1 / base ** (arange(0, d, 2) / d)``: the ladder every engine starts from."""
    return [1 / base ** sp.Rational(2 * i, d) for i in range(d // 2 if count is None else count)]


def _get_mscale(scale: sp.Expr, mscale: sp.Expr = sp.Integer(1)) -> sp.Expr:
    """``get_mscale`` / ``yarn_get_mscale``: 1 for ``scale <= 1``, else ``0.1 mscale ln scale + 1``."""
    return _pw((sp.Integer(1), scale <= 1), (_TENTH * mscale * sp.log(scale) + 1, True))


def _correction_dim(rotations: sp.Expr, d: int, base: sp.Expr, length: sp.Expr) -> sp.Expr:
    return d * sp.log(length / (rotations * 2 * sp.pi)) / (2 * sp.log(base))


def _correction_range(fast: sp.Expr, slow: sp.Expr, d: int, base: sp.Expr, length: sp.Expr,
                      truncate: bool) -> tuple[sp.Expr, sp.Expr]:
    low, high = _correction_dim(fast, d, base, length), _correction_dim(slow, d, base, length)
    if truncate:
        low, high = sp.floor(low), sp.ceiling(high)
    return _max(low, 0), _min(high, d - 1)


def _ramp(i: int, low: sp.Expr, high: sp.Expr) -> sp.Expr:
    """``clamp((i - low) / (high - low), 0, 1)`` with ``high += 0.001`` when ``low == high``."""
    high = _pw((high + _MILLI, sp.Eq(low, high, evaluate=not _symbolic(low, high))), (high, True))
    return _min(_max((i - low) / (high - low), 0), 1)


def _yarn_blend(extrap: sp.Expr, factor: sp.Expr, keep: sp.Expr) -> sp.Expr:
    """``inv_freq_interpolation * (1 - keep) + inv_freq_extrapolation * keep``."""
    return extrap / factor * (1 - keep) + extrap * keep


def _one(lo: sp.Expr, omegas: Sequence[sp.Expr], attention: sp.Expr = sp.Integer(1)) -> Regime:
    return Regime(sp.sympify(lo, strict=True), None, tuple(omegas), sp.sympify(attention, strict=True))


def _static(omegas: Sequence[sp.Expr], attention: sp.Expr = sp.Integer(1)) -> tuple[Regime, ...]:
    return (_one(1, omegas, attention),)


def _unsupported(engine: str, name: str, why: str, sources: Sequence[Source], *, applies: bool = True) -> Recipe:
    """A refusal (``applies=False``: a variant that has nothing to say about this rope type)."""
    return Recipe(engine, name, (), None, None, "", None, False, tuple(sources), unsupported=why, applies=applies)


#: Model types whose attention the engines run with GPT-J (interleaved) pairs in llama.cpp:
#: ``convert_hf_to_gguf.py`` permutes the q/k rows (``LlamaModel.permute``) so llama.cpp's
#: ``LLAMA_ROPE_TYPE_NORM`` sees the pairs HF's ``rotate_half`` rotates.
_LLAMACPP_NORM = frozenset({"llama", "mistral", "mixtral", "ministral", "ministral3", "granite", "deci",
                            "internlm2", None})


def _pairing_hf(layer: LayerRope) -> str:
    return "interleaved" if layer.config.get("rope_interleave") else "split"


# ----------------------------------------------------------------------------------------
# Hugging Face transformers 5.24.0


def hf(layer: LayerRope, *, generic: bool = False) -> Recipe:
    """Hugging Face ``transformers`` 5.24.0 (``ROPE_INIT_FUNCTIONS``; the reference)."""
    r = Reader(layer, generic=generic)
    kind = layer.rope_type
    src = (SOURCES["hf"],)
    d = r.rotary_dim()
    b = r.num("rope_theta")
    pairs = (d + 1) // 2  # torch.arange(0, dim, 2) has ceil(dim / 2) entries
    ladder = _ladder(b, d, pairs)
    L = r.max_pos()
    notes: list[str] = []
    table = None
    if kind == "default":
        regimes = _static(ladder)
    elif kind == "linear":
        s = r.num("factor")
        regimes = _static([w / s for w in ladder])
    elif kind == "dynamic" and r.has("alpha"):
        return _unsupported("hf", "dynamic (alpha)", "HF 5.24 has no alpha in _compute_dynamic_ntk_parameters "
                            "(Hunyuan's checkpoints carry their own code)", src)
    elif kind == "dynamic":
        s = r.num("factor")
        grown = b * (s * N / L - (s - 1)) ** sp.Rational(d, d - 2)
        regimes = (Regime(sp.Integer(1), L, tuple(ladder), sp.Integer(1)),
                   Regime(L + 1, None, tuple(_ladder(grown, d, pairs)), sp.Integer(1)))
        notes.append("dynamic_rope_update: inv_freq recomputed from seq_len = max(position_ids) + 1 when it "
                     "exceeds the cached length; reset to the original below max_position_embeddings")
    elif kind == "yarn":
        s = r.num("factor")
        L0 = r.num("original_max_position_embeddings", where="both")
        if L0 is None:
            raise ValueError("yarn needs original_max_position_embeddings (HF reads it without a default)")
        if s is None:
            s = L / L0
        fast = r.num("beta_fast") if r.truthy("beta_fast") else sp.Integer(32)
        slow = r.num("beta_slow") if r.truthy("beta_slow") else sp.Integer(1)
        truncate = bool(layer.rope.get("truncate", True))
        low, high = _correction_range(fast, slow, d, b, L0, truncate)
        omegas = [_yarn_blend(w, s, 1 - _ramp(i, low, high)) for i, w in enumerate(_ladder(b, d, d // 2))]
        if r.has("attention_factor"):
            att = r.num("attention_factor")
        elif r.truthy("mscale") and r.truthy("mscale_all_dim"):
            att = _get_mscale(s, r.num("mscale")) / _get_mscale(s, r.num("mscale_all_dim"))
        else:
            att = _get_mscale(s)
        regimes = _static(omegas, att)
    elif kind == "longrope":
        L0 = r.num("original_max_position_embeddings", where="both")
        s = r.num("factor")
        if s is None:
            s = L / L0
        short = [exact(v, name="short_factor") for v in layer.rope["short_factor"]]
        long = [exact(v, name="long_factor") for v in layer.rope["long_factor"]]
        if r.has("attention_factor"):
            att = r.num("attention_factor")
        else:
            att = _pw((sp.Integer(1), s <= 1), (sp.sqrt(1 + sp.log(s) / sp.log(L0)), True))
        regimes = (Regime(sp.Integer(1), L0, tuple(w / f for w, f in zip(ladder, short)), att),
                   Regime(L0 + 1, None, tuple(w / f for w, f in zip(ladder, long)), att))
        notes.append("longrope_frequency_update: long factors when seq_len > original_max_position_embeddings")
    elif kind == "llama3":
        s = r.num("factor")
        lo, hi = r.num("low_freq_factor"), r.num("high_freq_factor")
        old = r.num("original_max_position_embeddings")
        omegas = []
        for w in ladder:
            lam = 2 * sp.pi / w
            smooth = (old / lam - lo) / (hi - lo)
            omegas.append(_pw((w, lam < old / hi), (w / s, lam > old / lo),
                                       ((1 - smooth) * w / s + smooth * w, True)))
        regimes = _static(omegas)
    elif kind == "proportional":
        head = r.head_dim()
        s = r.num("factor", 1)
        angles = int(r.partial() * head // 2)
        omegas = [w / s for w in _ladder(b, head, angles)] + [sp.Integer(0)] * (head // 2 - angles)
        d = head
        regimes = _static(omegas)
    else:
        return _unsupported("hf", kind, f"rope_type {kind!r} is not compared across engines here", src)
    return Recipe("hf", f"{kind} ({_HF_FILE})", regimes, d, b, _pairing_hf(layer), table, False, src, tuple(notes))


# ----------------------------------------------------------------------------------------
# vLLM


def _vllm_family(layer: LayerRope, generic: bool, engine: str) -> Recipe:
    """vLLM's ``get_rope`` classes (``engine="vllm"``) or SGLang's copies (``"sglang"``)."""
    r = Reader(layer, generic=generic)
    kind = layer.rope_type
    d = r.rotary_dim()
    b = r.num("rope_theta")
    L = r.max_pos()
    ladder = _ladder(b, d)
    sgl = engine == "sglang"
    pairing = _pairing_hf(layer)
    notes: list[str] = []
    grows = sgl  # SGLang's RotaryEmbedding extends its cache on demand (_ensure_cos_sin_cache_length)
    if kind == "default":
        src = (SOURCES["sglang.factory" if sgl else "vllm.get_rope"], SOURCES["sglang.base" if sgl else "vllm.base"])
        return Recipe(engine, "RotaryEmbedding", _static(ladder), d, b, pairing, L, grows, src)
    if kind == "linear":
        s = r.num("factor")
        src = (SOURCES["sglang.base" if sgl else "vllm.linear"],)
        notes.append("the table holds t / s for t < L s (one block per LoRA factor); the angle is (m / s) theta")
        if sgl:
            notes.append("rows grown past L s (_ensure_cos_sin_cache_length) use t, not t / s")
        return Recipe(engine, "LinearScalingRotaryEmbedding", _static([w / s for w in ladder]), d, b, pairing,
                      sp.ceiling(L * s), grows, src, tuple(notes))
    if kind == "dynamic" and r.has("alpha"):
        alpha = r.num("alpha")
        src = (SOURCES["sglang.variant" if sgl else "vllm.get_rope"],)
        return Recipe(engine, "DynamicNTKAlphaRotaryEmbedding",
                      _static(_ladder(b * alpha ** sp.Rational(d, d - 2), d)), d, b, pairing, L, False, src)
    if kind == "dynamic":
        s = r.num("factor")
        max_len = L * s
        if sgl or engine == "vllm-pre41277":
            # (scaling_factor * max_len / max_position_embeddings) - (scaling_factor - 1), max_len = L s
            grown = b * (s * max_len / L - (s - 1)) ** sp.Rational(d, d - 2)
            src = (SOURCES["sglang.variant"] if sgl else SOURCES["vllm.dynamic_old"],)
            name = "DynamicNTKScalingRotaryEmbedding (base b (s * (L s) / L - (s - 1))^(d/(d-2)))"
        else:
            # after PR 41277: (max_len / max_position_embeddings) - (scaling_factor - 1)
            grown = b * (max_len / L - (s - 1)) ** sp.Rational(d, d - 2)
            src = (SOURCES["vllm.dynamic"],)
            name = "DynamicNTKScalingRotaryEmbedding (base b (L s / L - (s - 1))^(d/(d-2)))"
        ss, ls = sp.symbols("s L", positive=True)
        mult = sp.factor(sp.simplify((ss * (ls * ss) / ls - (ss - 1)) if (sgl or engine == "vllm-pre41277")
                                     else (ls * ss / ls - (ss - 1))))
        if mult == 1:
            notes.append("one table of L s rows built at load time with the multiplier L s / L - (s - 1) = 1: "
                         "plain RoPE at every length; HF: b up to n = L, b * (s n/L - (s - 1))^(d/(d-2)) beyond")
        else:
            here = mult.subs(ss, s) if not generic else mult
            notes.append(f"one table of L s rows built at load time, base b * ({sp.sstr(mult)})^(d/(d-2)) at every "
                         f"length ({sp.sstr(here)} at this factor); HF: b up to n = L, b * (s n/L - (s - 1))^(d/(d-2)) "
                         "beyond")
        if sgl:
            notes.append("rows grown past L s (_ensure_cos_sin_cache_length) use _compute_inv_freq(self.base), "
                         "the unscaled base")
        return Recipe(engine, name, _static(_ladder(grown, d)), d, b, pairing, sp.ceiling(max_len), grows, src,
                      tuple(notes))
    if kind == "yarn":
        s = r.num("factor")
        L0 = r.num("original_max_position_embeddings")
        if L0 is None or s is None:
            return _unsupported(engine, "YaRNScalingRotaryEmbedding", "get_rope reads rope_parameters['factor'] and "
                                "['original_max_position_embeddings'] without defaults (KeyError)",
                                (SOURCES["vllm.get_rope"],))
        fast = r.num("beta_fast", 32)
        slow = r.num("beta_slow", 1)
        truncate = bool(layer.rope.get("truncate", True))
        low, high = _correction_range(fast, slow, d, b, L0, truncate)
        extra = r.num("extrapolation_factor", 1)
        keep = [(1 - _ramp(i, low, high)) * (extra if sgl else 1) for i in range(d // 2)]
        omegas = [_yarn_blend(w, s, k) for w, k in zip(ladder, keep)]
        attn = r.num("attn_factor", 1)
        if sgl:
            src = (SOURCES["sglang.factory"], SOURCES["sglang.yarn"])
            if r.has("mscale") and r.has("mscale_all_dim"):
                att = _get_mscale(s, r.num("mscale")) / _get_mscale(s, r.num("mscale_all_dim")) * attn
            else:
                att = _get_mscale(s) * attn
            if r.has("attention_factor"):
                notes.append("attention_factor is not read (get_rope does not pass it)")
        else:
            src = (SOURCES["vllm.get_rope"], SOURCES["vllm.yarn"])
            # get_rope passes extrapolation_factor, attn_factor, beta_fast, beta_slow, apply_yarn_scaling,
            # truncate: never mscale, mscale_all_dim or attention_factor
            att = _get_mscale(s)
            if any(r.has(k) for k in ("mscale", "mscale_all_dim", "attention_factor")):
                notes.append("mscale / mscale_all_dim / attention_factor are not passed by get_rope: "
                             "the class uses yarn_get_mscale(factor)")
        # vLLM: num_positions = ceil(L0 * s) (get_rope passes no max_position); SGLang: arange(L0 * s)
        rows = sp.ceiling(L0 * s)
        return Recipe(engine, "YaRNScalingRotaryEmbedding", _static(omegas, att), d, b, pairing, rows, grows, src,
                      tuple(notes))
    if kind == "llama3":
        s = r.num("factor")
        lo, hi = r.num("low_freq_factor"), r.num("high_freq_factor")
        old = r.num("original_max_position_embeddings")
        omegas = []
        for w in ladder:
            lam = 2 * sp.pi / w
            smooth = (old / lam - lo) / (hi - lo)  # the code sets smooth = 0 when low == high (HF divides by 0)
            omegas.append(_pw((w, lam < old / hi), (w / s, lam > old / lo),
                                       ((1 - smooth) * w / s + smooth * w, True)))
        src = (SOURCES["sglang.variant" if sgl else "vllm.llama3"],)
        return Recipe(engine, "Llama3RotaryEmbedding", _static(omegas), d, b, pairing, L, grows, src)
    if kind == "longrope":
        L0 = r.num("original_max_position_embeddings", L if sgl else None, where="both")
        short = [exact(v, name="short_factor") for v in layer.rope["short_factor"]]
        long = [exact(v, name="long_factor") for v in layer.rope["long_factor"]]
        scale = L / L0
        default = _pw((sp.Integer(1), scale <= 1), (sp.sqrt(1 + sp.log(scale) / sp.log(L0)), True))
        att_s = r.num("short_mscale") if r.has("short_mscale") else default
        att_l = r.num("long_mscale") if r.has("long_mscale") else default
        om_s = tuple(w / f for w, f in zip(ladder, short))
        om_l = tuple(w / f for w, f in zip(ladder, long))
        if sgl:
            # long_prompt_offset = any(positions > original) * original: long rows once a position
            # exceeds original_max_position_embeddings, i.e. from length original + 2
            regimes = (Regime(sp.Integer(1), L0 + 1, om_s, att_s), Regime(L0 + 2, None, om_l, att_l))
            notes.append("long factors when any position in the batch is > original_max_position_embeddings "
                         "(HF: when seq_len > original, one length earlier)")
            src = (SOURCES["sglang.variant"],)
        else:
            # use_long_rope = max_model_len > original: decided once; max_model_len defaults to the config's
            # max_position_embeddings
            use_long = (L > L0) == sp.true if not generic else True
            regimes = _static(om_l, att_l) if use_long else _static(om_s, att_s)
            notes.append("use_long_rope = max_model_len > original_max_position_embeddings, fixed at load time "
                         "(max_model_len taken as max_position_embeddings)")
            src = (SOURCES["vllm.longrope"],)
        if r.has("attention_factor"):
            notes.append("attention_factor is not read")
        notes.append("one cache of L0 short rows then L long rows; a position indexes the long rows at "
                     "position + L0, so positions below L are admitted")
        return Recipe(engine, "Phi3LongRoPEScaledRotaryEmbedding", regimes, d, b, pairing, L, False, src,
                      tuple(notes))
    if kind == "proportional":
        head = r.head_dim()
        angles = d // 2
        omegas = _ladder(b, head, angles) + [sp.Integer(0)] * (head // 2 - angles)
        src = (SOURCES["sglang.variant" if sgl else "vllm.gemma4"],)
        if r.has("factor"):
            notes.append("factor is not read: the ladder is never divided by it")
        return Recipe(engine, "Gemma4RotaryEmbedding", _static(omegas), head, b, pairing, L, grows, src, tuple(notes))
    return _unsupported(engine, kind, f"no transcription of rope_type {kind!r}",
                        (SOURCES["sglang.factory" if sgl else "vllm.get_rope"],))


def vllm(layer: LayerRope, *, generic: bool = False) -> Recipe:
    """vLLM (``get_rope`` and the rotary_embedding classes at the cited commits)."""
    return _vllm_family(layer, generic, "vllm")


def vllm_pre41277(layer: LayerRope, *, generic: bool = False) -> Recipe:
    """vLLM before PR 41277 (only the dynamic-NTK class differs from :func:`vllm`)."""
    out = _vllm_family(layer, generic, "vllm-pre41277" if layer.rope_type == "dynamic" else "vllm")
    return dataclasses.replace(out, engine="vllm<41277")


def sglang(layer: LayerRope, *, generic: bool = False) -> Recipe:
    """SGLang (``srt/layers/rotary_embedding`` at the cited commits)."""
    return _vllm_family(layer, generic, "sglang")


# ----------------------------------------------------------------------------------------
# llama.cpp


def _llamacpp(layer: LayerRope, generic: bool, ext_factor: sp.Expr | None) -> Recipe:
    r = Reader(layer, generic=generic)
    kind = layer.rope_type
    d = r.rotary_dim()
    b = r.num("rope_theta")
    L = r.max_pos()
    ladder = _ladder(b, d)
    mt = layer.config.get("model_type")
    norm = mt in _LLAMACPP_NORM and _pairing_hf(layer) == "split"
    pairing = "interleaved" if norm else _pairing_hf(layer)
    pnote = ("LLAMA_ROPE_TYPE_NORM on q/k rows permuted by convert_hf_to_gguf (LlamaModel.permute): the same "
             "scores as HF's rotate_half (theorem partial.permutation)") if norm else ""
    ctx, rope_src = SOURCES["llama.cpp.context"], SOURCES["llama.cpp.rope"]
    name = "ggml_rope_ext"
    notes: list[str] = []
    # n_ctx defaults to n_ctx_train (= max_position_embeddings); positions are not tabulated
    if kind == "default":
        return Recipe("llama.cpp", name, _static(ladder), d, b, pairing, None, False, (rope_src,), (), "", pnote)
    if kind == "linear":
        s = r.num("factor")
        # LLAMA_ROPE_SCALING_TYPE_LINEAR: freq_scale = 1/factor; ext_factor defaults to 0 (not YaRN)
        return Recipe("llama.cpp", name + " (freq_scale = 1/factor)", _static([w / s for w in ladder]), d, b,
                      pairing, None, False, (ctx, rope_src), (), "", pnote)
    if kind == "yarn":
        s = r.num("factor")
        L0 = r.num("original_max_position_embeddings", where="both")
        if L0 is None:
            L0 = L
        fast = r.num("beta_fast", 32)
        slow = r.num("beta_slow", 1)
        ext = sp.Integer(1) if ext_factor is None else sp.sympify(ext_factor, strict=True)
        # ggml_rope_yarn_corr_dims: floorf / ceilf always (no truncate), clamped to [0, n_dims - 1]
        low, high = _correction_range(fast, slow, d, b, L0, True)
        omegas = []
        for i, w in enumerate(ladder):
            # rope_yarn_ramp: y = (i0/2 - low) / MAX(0.001f, high - low); return 1 - MIN(1, MAX(0, y))
            y = (i - low) / _max(_MILLI, high - low)
            ramp_mix = (1 - _min(1, _max(0, y))) * ext
            omegas.append(w / s * (1 - ramp_mix) + w * ramp_mix)
        if ext != 0:
            # llama_context: yarn_attn_factor = get_mscale(factor[, mscale]) [/ get_mscale(factor, mscale_all_dim)]
            # * 1 / (1 + 0.1 ln factor); the kernel multiplies by 1 + 0.1 ln(1/freq_scale)
            kernel = 1 + _TENTH * sp.log(s)  # rope_yarn: mscale *= 1 + 0.1 ln(1 / freq_scale)
            if r.truthy("mscale_all_dim"):  # hparams.rope_yarn_log_mul = mscale_all_dim, mscale taken as 1
                host = _get_mscale(s) / _get_mscale(s, r.num("mscale_all_dim"))
            else:
                host = _get_mscale(s)
            att = host / kernel * kernel  # yarn_attn_factor *= 1 / (1 + 0.1 ln factor), then the kernel's factor
            if r.has("attention_factor"):
                notes.append("attention_factor is not read by the transcribed path (rope_attn_factor defaults to 1)")
        else:
            att = sp.Integer(1)  # yarn_attn_factor keeps its default 1; rope_yarn skips the mscale update
            notes.append("ext_factor = 0: rope_yarn takes theta_interp for every pair and leaves mscale alone")
        if not bool(layer.rope.get("truncate", True)):
            notes.append("truncate = false is not read: ggml_rope_yarn_corr_dims always floors / ceils")
        label = name + (" (YaRN, ext_factor = 1)" if ext_factor is None else f" (YaRN, ext_factor = {ext})")
        return Recipe("llama.cpp" if ext_factor is None else f"llama.cpp ext={ext}", label, _static(omegas, att), d,
                      b, pairing, None, False, (ctx, rope_src), tuple(notes), "", pnote)
    if kind == "llama3":
        s = r.num("factor", 8)
        lo, hi = r.num("low_freq_factor", 1), r.num("high_freq_factor", 4)
        # convert_hf_to_gguf reads self.hparams.get("original_max_position_embeddings", 8192): the TOP-LEVEL key
        old = r.num("original_max_position_embeddings", 8192, where="config")
        omegas = []
        for w in ladder:
            lam = 2 * sp.pi / w
            smooth = (old / lam - lo) / (hi - lo)
            ff = _pw((sp.Integer(1), lam < old / hi), (s, lam > old / lo),
                              (1 / ((1 - smooth) / s + smooth), True))
            omegas.append(w / ff)  # rope_yarn: theta_extrap = theta / freq_factors[i]
        if r.has("original_max_position_embeddings") and not r.has("original_max_position_embeddings", "config"):
            notes.append("original_max_position_embeddings read from the top level of config.json (default 8192), "
                         "not from rope_scaling")
        return Recipe("llama.cpp", name + " (rope_freqs from convert_hf_to_gguf)", _static(omegas), d, b, pairing,
                      None, False, (SOURCES["llama.cpp.convert"], rope_src), tuple(notes), "", pnote)
    return _unsupported("llama.cpp", kind, {
        "dynamic": "llama.cpp has no dynamic-NTK scaling type (llama_rope_scaling_type: none, linear, yarn, longrope)",
    }.get(kind, f"no transcription of rope_type {kind!r}"), (ctx,))


def llamacpp(layer: LayerRope, *, generic: bool = False) -> Recipe:
    """llama.cpp (defaults: ``ext_factor`` 1 for YaRN models, 0 otherwise)."""
    return _llamacpp(layer, generic, None)


def llamacpp_ext0(layer: LayerRope, *, generic: bool = False) -> Recipe:
    """llama.cpp run with ``--yarn-ext-factor 0`` (shown for YaRN configs only)."""
    if layer.rope_type != "yarn":
        return _unsupported("llama.cpp ext=0", layer.rope_type, "ext_factor only matters for YaRN",
                            (SOURCES["llama.cpp.rope"],), applies=False)
    return _llamacpp(layer, generic, sp.Integer(0))


# ----------------------------------------------------------------------------------------
# TensorRT-LLM (PyTorch backend)


def _trt(layer: LayerRope, generic: bool, laguna: bool) -> Recipe:
    r = Reader(layer, generic=generic)
    kind = layer.rope_type
    engine = "tensorrt-llm laguna<16379" if laguna else "tensorrt-llm"
    d = r.rotary_dim()
    b = r.num("rope_theta")
    L = r.max_pos()
    ladder = _ladder(b, d)
    src = (SOURCES["trt.laguna"] if laguna else SOURCES["trt.params"], SOURCES["trt.functional"])
    pairing = "split"
    notes: list[str] = []
    if laguna and kind not in ("yarn",):
        return _unsupported(engine, kind, "the Laguna reader differs from RopeParams.from_config for YaRN only", src,
                            applies=False)
    if kind == "default":
        return Recipe(engine, "create_sinusoidal_positions_for_attention_plugin", _static(ladder), d, b, pairing,
                      L, False, src)
    if kind == "linear":
        s = r.num("factor", 1)
        return Recipe(engine, "create_sinusoidal_positions_for_attention_plugin (scale = 1/factor)",
                      _static([w / s for w in ladder]), d, b, pairing, L, False, src)
    if kind == "dynamic":
        alpha = r.num("alpha", 1)
        s = r.num("factor", 1)
        table = _ladder(b * alpha ** sp.Rational(d, d - 2), d)
        if r.has("alpha"):
            return Recipe(engine, "RotaryScalingType.dynamic (alpha)", _static(table), d, b, pairing, L, False, src)
        # from_config sets alpha = rope_scaling.get("alpha", 1.0): the table is the plain ladder; the attention
        # kernel's update_rotary_base_n_scale raises the base when seq_len > max_positions
        grown = b * (s * N / L - (s - 1)) ** sp.Rational(d, d - 2)
        regimes = (Regime(sp.Integer(1), L, tuple(table), sp.Integer(1)),
                   Regime(L + 1, None, tuple(_ladder(grown, d)), sp.Integer(1)))
        notes.append("table built with alpha = 1 (plain ladder); beyond max_positions the kernel's "
                     "update_rotary_base_n_scale grows the base per sequence length")
        return Recipe(engine, "RotaryScalingType.dynamic", regimes, d, b, pairing, L, False,
                      src + (SOURCES["trt.kernel"],), tuple(notes))
    if kind == "yarn":
        s = r.num("factor", 1)
        if laguna:
            L0 = r.num("original_max_position_embeddings", L)
            fast, slow = r.num("beta_fast", 32), r.num("beta_slow", 1)
            mu = r.num("attention_factor", 1)  # rp.mscale = float(rp_dict.get("attention_factor", 1.0))
            mu_all = sp.Integer(0)
            notes.append("attention_factor stored as mscale, then sent through 0.1 mscale ln(factor) + 1 by "
                         "create_sinusoidal_positions_yarn")
        else:
            L0 = r.num("original_max_position_embeddings", where="config")
            if L0 is None:
                L0 = r.num("original_max_position_embeddings", 1024)
            fast, slow = r.num("beta_fast", 32), r.num("beta_slow", 1)
            mu, mu_all = r.num("mscale", 1), r.num("mscale_all_dim", 0)
            if r.has("attention_factor"):
                notes.append("attention_factor is not read (RopeParams has mscale and mscale_all_dim only)")
        low, high = _correction_range(fast, slow, d, b, L0, True)
        omegas = [_yarn_blend(w, s, 1 - _ramp(i, low, high)) for i, w in enumerate(ladder)]
        att = _get_mscale(s, mu) / _get_mscale(s, mu_all)
        if not bool(layer.rope.get("truncate", True)):
            notes.append("truncate = false is not read: the correction range is always floored / ceiled")
        return Recipe(engine, "create_sinusoidal_positions_yarn", _static(omegas, att), d, b, pairing, L, False, src,
                      tuple(notes))
    if kind == "llama3":
        s = r.num("factor", 8)
        lo, hi = r.num("low_freq_factor", 1), r.num("high_freq_factor", 4)
        old = r.num("original_max_position_embeddings", where="config")
        if old is None:
            old = r.num("original_max_position_embeddings", 1024)
        omegas = []
        for w in ladder:
            lam = 2 * sp.pi / w
            smooth = (old / lam - lo) / (hi - lo)
            omegas.append(_pw((w, lam < old / hi), (w / s, lam > old / lo),
                                       ((1 - smooth) * w / s + smooth * w, True)))
        return Recipe(engine, "apply_llama3_scaling", _static(omegas), d, b, pairing, L, False, src)
    if kind == "longrope":
        L0 = r.num("original_max_position_embeddings", where="config")
        if L0 is None:
            L0 = r.num("original_max_position_embeddings", 1024)
        long = [exact(v, name="long_factor") for v in layer.rope["long_factor"]]
        short = [exact(v, name="short_factor") for v in layer.rope["short_factor"]]
        max_seq_len = layer.config.get("max_seq_len")
        use_long = max_seq_len is None or max_seq_len > int(layer.config.get("original_max_position_embeddings",
                                                                              layer.rope.get(
                                                                                  "original_max_position_embeddings",
                                                                                  1024)))
        scale = L / L0
        att = _pw((sp.Integer(1), scale <= 1), (sp.sqrt(1 + sp.log(scale) / sp.log(L0)), True))
        om = [w / f for w, f in zip(ladder, long if use_long else short)]
        notes.append("long or short factors chosen once from max_seq_len (None: long)")
        return Recipe(engine, "create_sinusoidal_positions_long_rope", _static(om, att), d, b, pairing,
                      _max(L, L0), False, src, tuple(notes))
    return _unsupported(engine, kind, f"RotaryScalingType.from_string({kind!r}) raises ValueError"
                        if kind not in ("mrope",) else "not transcribed", src)


def trtllm(layer: LayerRope, *, generic: bool = False) -> Recipe:
    """TensorRT-LLM's PyTorch backend (``RopeParams.from_config``)."""
    return _trt(layer, generic, False)


def trtllm_laguna(layer: LayerRope, *, generic: bool = False) -> Recipe:
    """TensorRT-LLM's Laguna reader before PR 16379 (YaRN configs only)."""
    return _trt(layer, generic, True)


# ----------------------------------------------------------------------------------------
# MLX-LM


def mlx(layer: LayerRope, *, generic: bool = False) -> Recipe:
    """MLX-LM (``mlx_lm/models/rope_utils.py`` ``initialize_rope``)."""
    r = Reader(layer, generic=generic)
    kind = layer.rope_type
    d = r.rotary_dim()
    b = r.num("rope_theta")
    L = r.max_pos()
    ladder = _ladder(b, d)
    src = (SOURCES["mlx"],)
    pairing = "interleaved" if layer.config.get("rope_traditional") else "split"
    notes: list[str] = []
    if kind in ("default", "linear"):
        s = r.num("factor") if kind == "linear" else sp.Integer(1)
        return Recipe("mlx-lm", "nn.RoPE (scale = 1/factor)" if kind == "linear" else "nn.RoPE",
                      _static([w / s for w in ladder]), d, b, pairing, None, False, src)
    if kind == "dynamic":
        s = r.num("factor")
        grown = b * (s * N / L - (s - 1)) ** sp.Rational(d, d - 2)
        regimes = (Regime(sp.Integer(1), L, tuple(ladder), sp.Integer(1)),
                   Regime(L + 1, None, tuple(_ladder(grown, d)), sp.Integer(1)))
        notes.append("DynamicNTKScalingRoPE: base from seq_len = max(x.shape[-2] + offset, max_position_embeddings) "
                     "at every call")
        return Recipe("mlx-lm", "DynamicNTKScalingRoPE", regimes, d, b, pairing, None, False, src, tuple(notes))
    if kind == "llama3":
        s = r.num("factor")
        lo, hi = r.num("low_freq_factor", 1), r.num("high_freq_factor", 4)
        old = r.num("original_max_position_embeddings", 8192)
        omegas = []
        for w in ladder:
            lam = 2 * sp.pi / w  # wavelens = 2 pi * base ** (arange(0, dims, 2) / dims)
            smooth = (old / lam - lo) / (hi - lo)
            # freqs * factor where wavelen > low_wavelen; smooth where high_wavelen < wavelen < low_wavelen
            omegas.append(_pw((w / s, lam > old / lo),
                                       ((1 - smooth) * w / s + smooth * w, (lam > old / hi) & (lam < old / lo)),
                                       (w, True)))
        notes.append("where a wavelength equals L / low_freq_factor exactly MLX keeps theta and HF takes theta / s; "
                     "no binary64 config reaches it (2 pi b^(2i/d) is transcendental), which the kernel does not "
                     "know: the generic comparison stays undecided")
        return Recipe("mlx-lm", "Llama3RoPE", _static(omegas), d, b, pairing, None, False, src, tuple(notes))
    if kind == "yarn":
        s = r.num("factor")
        L0 = r.num("original_max_position_embeddings", 4096)
        fast, slow = r.num("beta_fast", 32), r.num("beta_slow", 1)
        low, high = _correction_range(fast, slow, d, b, L0, True)
        omegas = [_yarn_blend(w, s, 1 - _ramp(i, low, high)) for i, w in enumerate(ladder)]
        att = _get_mscale(s, r.num("mscale", 1)) / _get_mscale(s, r.num("mscale_all_dim", 0))
        if r.has("attention_factor"):
            notes.append("attention_factor is not read")
        if not bool(layer.rope.get("truncate", True)):
            notes.append("truncate = false is not read: yarn_find_correction_range always floors / ceils")
        return Recipe("mlx-lm", "YarnRoPE", _static(omegas, att), d, b, pairing, None, False, src, tuple(notes))
    if kind == "longrope":
        L0 = r.num("original_max_position_embeddings", where="both")
        long = [exact(v, name="long_factor") for v in layer.rope["long_factor"]]
        scale = L / L0
        att = r.num("long_mscale") if r.truthy("long_mscale") else _pw(
            (sp.Integer(1), scale <= 1), (sp.sqrt(1 + sp.log(scale) / sp.log(L0)), True))
        notes.append("SuScaledRoPE: long_factor at every length")
        return Recipe("mlx-lm", "SuScaledRoPE", _static([w / f for w, f in zip(ladder, long)], att), d, b, pairing,
                      None, False, src, tuple(notes))
    if kind == "proportional":
        head = r.head_dim()
        s = r.num("factor", 1)
        rotated = int(head * r.partial())
        omegas = [1 / (s * b ** sp.Rational(2 * i, head)) for i in range(rotated // 2)]
        omegas += [sp.Integer(0)] * ((head - rotated) // 2)  # freqs padded with inf: angle 0
        return Recipe("mlx-lm", "ProportionalRoPE", _static(omegas), head, b, pairing, None, False, src)
    return _unsupported("mlx-lm", kind, f"initialize_rope raises ValueError('Unsupported RoPE type {kind}')", src)


#: The recipes, HF first; :func:`pe_symbolic.engines.engine_report` compares each to HF.
RECIPES: dict[str, Callable[..., Recipe]] = {
    "hf": hf,
    "vllm": vllm,
    "vllm<41277": vllm_pre41277,
    "sglang": sglang,
    "llama.cpp": llamacpp,
    "llama.cpp ext=0": llamacpp_ext0,
    "tensorrt-llm": trtllm,
    "tensorrt-llm laguna<16379": trtllm_laguna,
    "mlx-lm": mlx,
}
#: The engines (every recipe but HF's).
ENGINES: tuple[str, ...] = tuple(k for k in RECIPES if k != "hf")


def recipe(engine: str, layer: LayerRope, *, generic: bool = False) -> Recipe:
    """The recipe of ``engine`` (a key of :data:`~pe_symbolic.engines.recipes.RECIPES`) for ``layer``.

    >>> from pe_symbolic.engines._read import layer_ropes
    >>> lay = layer_ropes({"head_dim": 4, "max_position_embeddings": 64, "rope_theta": 100.0})[0]
    >>> recipe("vllm", lay).regimes[0].omegas
    (1, 1/10)
    >>> recipe("hugging", lay)
    Traceback (most recent call last):
    ValueError: engine='hugging' is not one of 'hf', 'vllm', 'vllm<41277', 'sglang', 'llama.cpp', 'llama.cpp ext=0', 'tensorrt-llm', 'tensorrt-llm laguna<16379', 'mlx-lm'
    """
    if engine not in RECIPES:
        raise ValueError(f"engine={engine!r} is not one of {', '.join(map(repr, RECIPES))}")
    return RECIPES[engine](layer, generic=generic)

