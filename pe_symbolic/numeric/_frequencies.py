"""The inverse frequencies and attention factor of a :class:`RopeSpec`, at 40 digits.

Each formula is lowered from its proved claim by :func:`pe_symbolic.numeric.lower.family_formula`
and evaluated at :data:`~pe_symbolic.numeric._spec.DPS` digits; the discrete decisions (YaRN's
floor / ceil and clamp, Llama 3's bands, LongRoPE's switch) are made on those values.
"""

from __future__ import annotations

import functools
import numbers
from typing import Any

from ._spec import DPS, YARN_TYPES, RopeSpec

__all__: list[str] = []


def _check_seq_len(seq_len: object) -> int | None:
    if seq_len is None:
        return None
    if isinstance(seq_len, bool) or not isinstance(seq_len, numbers.Integral) or int(seq_len) < 1:
        raise ValueError(f"seq_len={seq_len!r} must be a positive integer (the current sequence length) or None")
    return int(seq_len)


def _seq_key(spec: RopeSpec, n: int | None) -> int | bool | None:
    """The part of ``seq_len`` a type depends on (so caching ignores the rest)."""
    if spec.rope_type == "dynamic" and spec.alpha is None:
        assert spec.max_position_embeddings is not None
        return max(n or 0, spec.max_position_embeddings)
    if spec.rope_type == "longrope":
        assert spec.original_max_position_embeddings is not None
        return bool(n is not None and n > spec.original_max_position_embeddings)
    return None


@functools.lru_cache(maxsize=256)
def _exact_frequencies(spec: RopeSpec, seq_key: int | bool | None, yarn_length: str = "original") -> tuple[tuple, Any]:
    """The inverse frequencies and attention factor at :data:`DPS` digits (mpmath), cached.

    ``seq_key`` is the clamped length for ``dynamic``, whether the long factors apply for
    ``longrope``, else ``None``. Each formula is lowered from its proved claim by
    :func:`pe_symbolic.numeric.lower.family_formula`.
    """
    import mpmath

    from .lower import family_formula

    t = spec.rope_type
    with mpmath.workdps(DPS):
        mp = mpmath.mpf
        b, d = mp(spec.rope_theta), spec.exponent_dim
        idx = [mp(q) for q in range(spec.pairs)]
        dm = mp(d)
        one = mp(1)
        attn: Any = one
        if t in ("default", "openpangu"):
            f = family_formula("default")
            vals = [f(q, dm, b) for q in idx]
            if spec.fope:
                vals = _fope_kept(spec, vals)
        elif t == "axial" and spec.freq_dim is not None:
            # HF's compute_axial_rope_parameters (all but Pixtral): the ladder over the spatial
            # dim head_dim/2, ceil(head_dim/4) entries, each turning a height and a width pair
            f = family_formula("default")
            vals = [f(mp(q), dm, b) for q in range((spec.freq_dim + 1) // 2)]
        elif t == "axial":
            # Pixtral's compute_axial_rope_parameters: the head_dim ladder, even pairs (height)
            # first, then odd pairs (width)
            f = family_formula("default")
            ladder = [f(q, dm, b) for q in idx]
            vals = ladder[0::2] + ladder[1::2]
        elif t == "dynamic" and spec.alpha is not None:
            # Hunyuan's fixed-alpha NTK (HF's ntk_alpha): the static NTK ladder with s = alpha
            f = family_formula("ntk")
            vals = [f(q, dm, b, mp(spec.alpha)) for q in idx]
        elif t == "linear":
            f = family_formula("linear")
            vals = [f(q, dm, b, mp(spec.factor)) for q in idx]
        elif t == "ntk":
            # vLLM's NTKScalingRotaryEmbedding (vllm/model_executor/layers/rotary_embedding/
            # ntk_scaling_rope.py, _compute_inv_freq; get_rope passes mixed_b=rope_scaling.get("mixed_b")).
            # With mixed_b: the ladder over the rotary dim, pair i divided by exp(a (i+1)^beta). Without:
            # base b*s, every inv_freq divided by s**(2/rotary_dim), i.e. (b s)^(-2i/d) / s^(2/d), which
            # ntk_mixed.endpoints proves is the mixed NTK at beta = 1: one lowered formula for both.
            # (Not the static NTK-aware base b s^(d/(d-2)), family_formula("ntk"), which keeps pair 0.)
            f = family_formula("ntk_mixed")
            beta = one if spec.mixed_b is None else mp(spec.mixed_b)
            vals = [f(q, dm, b, mp(spec.factor), beta) for q in idx]
        elif t == "dynamic":
            f = family_formula("dynamic")
            n, lmax = mp(seq_key), mp(spec.max_position_embeddings)
            vals = [f(q, dm, b, mp(spec.factor), n, lmax) for q in idx]
        elif t in YARN_TYPES:
            vals, attn = _yarn(spec, idx, dm, b, yarn_length)
        elif t == "longrope":
            f = family_formula("longrope")
            lam = spec.long_factor if seq_key else spec.short_factor
            assert lam is not None
            vals = [f(q, dm, b, mp(x)) for q, x in zip(idx, lam)]
            if spec.short_mscale is not None:
                attn = mp(spec.long_mscale if seq_key else spec.short_mscale)
            elif spec.attention_factor is not None:
                attn = mp(spec.attention_factor)
            else:
                attn = family_formula("longrope_attention")(mp(spec.factor), mp(spec.original_max_position_embeddings))
        elif t == "llama3" and spec.low_freq_factor == spec.high_freq_factor:
            # no blended band (Llama 4 Scout): divided by factor above L/low, kept below
            f = family_formula("default")
            s = mp(spec.factor)
            edge = 2 * mpmath.pi * mp(spec.low_freq_factor) / mp(spec.original_max_position_embeddings)
            vals = []
            for q in idx:
                v = f(q, dm, b)
                if v == edge:  # wavelength exactly L/low: HF's smooth factor is 0/0
                    raise ValueError("llama3 with low_freq_factor == high_freq_factor: a pair's wavelength equals "
                                     "original_max_position_embeddings / low_freq_factor exactly (HF gives NaN)")
                vals.append(v / s if v < edge else v)
        elif t == "llama3":
            f = family_formula("llama3")
            args = (mp(spec.factor), mp(spec.original_max_position_embeddings),
                    mp(spec.low_freq_factor), mp(spec.high_freq_factor))
            vals = [f(q, dm, b, *args) for q in idx]
        else:  # proportional
            f = family_formula("proportional")
            angles = int(spec.partial_rotary_factor * spec.head_dim // 2)
            s = mp(spec.factor if spec.factor is not None else 1.0)
            vals = [f(q, mp(spec.head_dim), b, s) if int(q) < angles else mp(0) for q in idx]
        return tuple(+v for v in vals), +attn


def _fope_kept(spec: RopeSpec, vals: list) -> list:
    """FoPE's kept frequencies (vLLM's / SGLang's ``FourierRotaryEmbedding._compute_inv_freq``):
    the first ``num_inv_freq``, else those above :math:`2\\pi / L` (decided on the 40-digit
    values; the engines decide in float32)."""
    import mpmath

    if spec.fope_num_inv_freq is not None:
        return vals[: spec.fope_num_inv_freq]
    assert spec.max_position_embeddings is not None
    bound = 2 * mpmath.pi / spec.max_position_embeddings
    kept = [v for v in vals if v > bound]
    if not kept:
        raise ValueError(f"FoPE keeps no frequency: none of the {len(vals)} exceeds 2*pi / max_position_embeddings "
                         f"= 2*pi / {spec.max_position_embeddings}")
    return kept


def _yarn(spec: RopeSpec, idx: list, dm: Any, b: Any, yarn_length: str) -> tuple[list, Any]:
    import mpmath

    from .lower import family_formula

    mp = mpmath.mpf
    s = mp(spec.factor)
    length = spec.original_max_position_embeddings if yarn_length == "original" else spec.max_position_embeddings
    if length is None:
        raise ValueError("yarn_length='max' needs 'max_position_embeddings' in the config")
    jr = family_formula("yarn_correction_dim")
    low = jr(mp(spec.beta_fast), dm, b, mp(length))
    high = jr(mp(spec.beta_slow), dm, b, mp(length))
    llamacpp = spec.ext_rule == "llama.cpp"
    if spec.truncate or llamacpp:  # llama.cpp's ggml_rope_yarn_corr_dims always floors / ceils
        low, high = mpmath.floor(low), mpmath.ceil(high)
    low, high = max(low, mp(0)), min(high, dm - 1)
    if llamacpp:
        # llama.cpp's rope_yarn_ramp: y = (i - low) / MAX(0.001, high - low)
        high = low + max(mp("0.001"), high - low)
    elif low == high:
        high += mp("0.001")  # HF's guard against a zero-width ramp
    ramp = family_formula("yarn_ramp")
    blend = family_formula("yarn")
    if spec.extrapolation_factor == 1:
        vals = [blend(q, dm, b, s, ramp(q, low, high)) for q in idx]
    else:
        # vLLM's YaRN: the kept share 1 - gamma is scaled by extrapolation_factor, so the blend's
        # interpolated share is 1 - e (1 - gamma)
        e = mp(spec.extrapolation_factor)
        vals = [blend(q, dm, b, s, 1 - e * (1 - ramp(q, low, high))) for q in idx]
    if llamacpp and spec.extrapolation_factor == 0:
        # llama.cpp's rope_yarn multiplies mscale by 1 + 0.1 ln(1/freq_scale) only when ext_factor != 0
        attn = mp(1)
    elif spec.rope_type == "telechat3-yarn":
        # vLLM's TeleChat3 get_mscale: 0.07 ln s + 1 (YaRN's 0.1 mu ln s + 1 with mu = 0.7), times attn_factor
        attn = family_formula("yarn_mscale")(s, mp(7) / 10) * mp(spec.attn_factor)
    elif spec.mscale_rule == "vllm":
        # vLLM's DeepseekScalingRotaryEmbedding: m(s, mscale) / m(s, mscale_all_dim) * attn_factor, defaults 1, 0
        ms = family_formula("yarn_mscale")
        num = mp(spec.mscale if spec.mscale is not None else 1)
        den = mp(spec.mscale_all_dim if spec.mscale_all_dim is not None else 0)
        attn = ms(s, num) / ms(s, den) * mp(spec.attn_factor)
    elif spec.attention_factor is not None:
        attn = mp(spec.attention_factor)
    elif spec.mscale and spec.mscale_all_dim:
        ms = family_formula("yarn_mscale")
        attn = ms(s, mp(spec.mscale)) / ms(s, mp(spec.mscale_all_dim))
    else:
        attn = family_formula("yarn_mscale")(s, mp(1))
    return vals, attn
