"""The RoPE family from model configs: rope_frequencies against the oracle, the shipped
configs, the new apply_rope paths (config, frequency vector, M-RoPE, HF position_ids, q and
k together), and every bad input the issue lists.

Tolerances: inverse frequencies within 1 ulp (float64) of the mpmath oracle (they are
rounded once from 40-digit values, so within 0.5 ulp + 1e-40). Rotated vectors: the bound
of tests/test_numeric_rope.py, ``(4u + 7u64)(|x_a| + |x_b|)``, times the attention factor
plus one more rounding (the factor multiplies the phasors).
"""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from strategies import ROPE_TYPES, U32, U64, abs_errors, layouts, rope_configs

from pe_symbolic import numeric, reference
from pe_symbolic.numeric import config as C

SHIPPED = {
    "llama-3.1-8b": [{}],
    "qwen2.5-7b": [{}],
    "qwen2.5-7b-yarn": [{}],
    "deepseek-v3": [{}],
    "phi-3.5-mini": [{"seq_len": 4096}, {"seq_len": 4097}],
    "phi-3.5-moe": [{"seq_len": 4096}, {"seq_len": 4097}],
    "gpt-oss-20b": [{}],
    "gpt-neox-20b": [{}],
    "qwen2-vl-7b": [{}],
    "mistral-7b": [{}],
    "gemma-3-27b": [{"layer_type": "full_attention"}, {"layer_type": "sliding_attention"}],
    "gemma-3-4b": [{"layer_type": "full_attention"}, {"layer_type": "sliding_attention"}],
    "hunyuan-mt2-1.8b": [{}, {"seq_len": 10 ** 6}],
    "llama-4-scout": [{}],
    "ministral-3-8b": [{}],
    "pixtral-12b-vision": [{}],
    "telechat3-36b": [{}],
    "llama-2-7b-dynamic-ntk": [{}, {"seq_len": 4096}, {"seq_len": 8192}],
}


def ulps(num, ref) -> np.ndarray:
    """|num - ref| in ulps of the true value (a true zero must be computed exactly)."""
    out = np.empty(len(ref))
    with mpmath.workdps(60):
        for q, (a, r) in enumerate(zip(num, ref)):
            diff = abs(mpmath.mpf(float(a)) - r)
            if r == 0:
                out[q] = 0.0 if diff == 0 else np.inf
                continue
            _, e = mpmath.frexp(r)
            out[q] = float(diff / mpmath.ldexp(1, int(e) - 53))
    return out


def _against_oracle(cfg, **kw) -> tuple[float, float]:
    inv, af = numeric.rope_frequencies(cfg, **kw)
    rinv, raf = reference.rope_frequencies(cfg, **kw)
    assert inv.dtype == np.float64 and inv.shape == rinv.shape
    return float(ulps(inv, rinv).max()), float(ulps([af], [raf])[0])


# ----------------------------------------------------------------------------------------
# rope_frequencies against the oracle


def test_every_shipped_config_is_listed_with_its_source():
    names = numeric.model_configs()
    assert set(SHIPPED) == set(names)
    for name, source in names.items():
        assert source.startswith("https://huggingface.co/"), name


@pytest.mark.filterwarnings("ignore:.*no blended band:UserWarning")  # Llama 4 Scout's llama3 low == high
@pytest.mark.parametrize("name,kw", [(n, kw) for n, kws in SHIPPED.items() for kw in kws],
                         ids=lambda v: v if isinstance(v, str) else "-".join(map(str, v.values())) or "plain")
def test_shipped_configs_within_one_ulp_of_the_oracle(name, kw):
    inv_err, af_err = _against_oracle(numeric.model_config(name), **kw)
    assert inv_err <= 1.0 and af_err <= 1.0


@settings(deadline=None)
@given(data=st.data(), rope_type=st.sampled_from(ROPE_TYPES))
def test_every_rope_type_within_one_ulp_of_the_oracle(data, rope_type):
    cfg, seq_len = data.draw(rope_configs(rope_type), label="config")
    inv_err, af_err = _against_oracle(cfg, seq_len=seq_len)
    assert inv_err <= 1.0 and af_err <= 1.0


@given(cfg=rope_configs("yarn"))
def test_yarn_with_the_other_correction_length_matches_the_oracle(cfg):
    inv, _ = numeric.rope_frequencies(cfg[0], yarn_length="max")
    rinv, _ = reference.rope_frequencies(cfg[0], yarn_length="max")
    assert ulps(inv, rinv).max() <= 1.0


def test_rounded_once_beats_the_naive_float64_ladder():
    """A test that tests itself: 1/(b**(2i/d)) in float64 is off by more than half an ulp
    somewhere; the lowered 40-digit values never are."""
    cfg = numeric.model_config("llama-3.1-8b") | {"rope_scaling": None}
    inv, _ = numeric.rope_frequencies(cfg)
    ref, _ = reference.rope_frequencies(cfg)
    naive = 1.0 / (500000.0 ** (np.arange(0, 128, 2) / 128))
    assert ulps(inv, ref).max() <= 0.5 + 1e-9
    assert ulps(naive, ref).max() > 0.5


# ----------------------------------------------------------------------------------------
# what each type does (semantics, against the plain ladder)


def _ladder(cfg_like: dict) -> np.ndarray:
    plain = {k: v for k, v in cfg_like.items() if k not in ("rope_scaling", "rope_parameters")}
    return numeric.rope_frequencies(plain)[0]


def test_llama31_bands():
    cfg = numeric.model_config("llama-3.1-8b")
    inv, af = numeric.rope_frequencies(cfg)
    base = _ladder(cfg)
    assert af == 1.0
    assert np.array_equal(inv[:29], base[:29])  # llama3.bands_llama31: pairs 0..28 kept
    assert ulps(inv[35:] * 8, reference.rope_frequencies(cfg | {"rope_scaling": None})[0][35:]).max() <= 1
    mid = inv[29:35] / base[29:35]
    assert np.all((mid > 1 / 8) & (mid < 1)) and np.all(np.diff(inv) < 0)  # llama3.monotone


def test_yarn_keeps_high_and_interpolates_low_frequencies():
    cfg = numeric.model_config("qwen2.5-7b-yarn")
    inv, af = numeric.rope_frequencies(cfg)
    base = _ladder(cfg)
    # j(32) = 23.6 -> low = 23, j(1) = 39.6 -> high = 40 (yarn.correction_dim)
    assert np.array_equal(inv[:24], base[:24])
    assert np.allclose(inv[40:] * 4, base[40:], rtol=2 * U64, atol=0)
    assert af == pytest.approx(0.1 * math.log(4) + 1, rel=1e-15)


def test_deepseek_v3_has_attention_factor_one_and_32_pairs():
    inv, af = numeric.rope_frequencies(numeric.model_config("deepseek-v3"))
    assert inv.shape == (32,) and af == 1.0  # yarn.attention_factor: mscale == mscale_all_dim


def test_gpt_oss_does_not_truncate():
    cfg = numeric.model_config("gpt-oss-20b")
    truncated = cfg | {"rope_scaling": cfg["rope_scaling"] | {"truncate": True}}
    a, b = numeric.rope_frequencies(cfg)[0], numeric.rope_frequencies(truncated)[0]
    assert not np.array_equal(a, b)


def test_dynamic_equals_default_up_to_max_position_and_grows_after():
    cfg = {"head_dim": 64, "rope_theta": 10000.0, "max_position_embeddings": 4096,
           "rope_scaling": {"rope_type": "dynamic", "factor": 2.0}}
    base = _ladder(cfg)
    for n in (None, 1, 4096):
        assert np.array_equal(numeric.rope_frequencies(cfg, seq_len=n)[0], base)  # dynamic.continuity
    longer = numeric.rope_frequencies(cfg, seq_len=8192)[0]
    assert longer[0] == 1.0 and np.all(longer[1:] < base[1:])


def test_longrope_switches_after_the_original_length():
    cfg = numeric.model_config("phi-3.5-mini")
    short = numeric.rope_frequencies(cfg, seq_len=4096)
    long_ = numeric.rope_frequencies(cfg, seq_len=4097)
    assert np.array_equal(numeric.rope_frequencies(cfg)[0], short[0])
    assert not np.array_equal(short[0], long_[0])  # longrope.switch: a jump in theta
    assert short[1] == long_[1] == pytest.approx(math.sqrt(1 + math.log(32) / math.log(4096)), rel=1e-15)


def test_partial_rotary_and_proportional():
    neox = numeric.rope_frequencies(numeric.model_config("gpt-neox-20b"))[0]
    assert neox.shape == (12,)  # 0.25 * 96 = 24 channels
    cfg = {"head_dim": 16, "rope_parameters": {"rope_type": "proportional", "rope_theta": 10000.0,
                                               "partial_rotary_factor": 0.5, "factor": 2.0}}
    inv = numeric.rope_frequencies(cfg)[0]
    assert inv.shape == (8,) and np.all(inv[4:] == 0) and inv[0] == 0.5
    assert inv[1] == pytest.approx(10000.0 ** (-2 / 16) / 2, rel=2 * U64)  # denominator head_dim


def test_gemma3_has_two_bases_and_both_layouts_agree():
    old = numeric.model_config("gemma-3-27b")
    tc = old["text_config"]
    new = {"head_dim": 128, "rope_parameters": {
        "full_attention": {"rope_type": "linear", "factor": 8.0, "rope_theta": 1000000.0},
        "sliding_attention": {"rope_type": "default", "rope_theta": 10000.0}}}
    for lt in ("full_attention", "sliding_attention"):
        assert np.array_equal(numeric.rope_frequencies(old, layer_type=lt)[0],
                              numeric.rope_frequencies(new, layer_type=lt)[0])
    assert numeric.rope_frequencies(old, layer_type="full_attention")[0][0] == 1 / 8
    assert tc["rope_local_base_freq"] == 10000.0


def test_config_ntk_is_vllms_fixed_ntk_and_the_static_base_is_family_formula_ntk():
    # a config's "ntk" is vLLM's NTKScalingRotaryEmbedding without mixed_b: every pair scaled,
    # pair 0 by s**(-2/d), the lowest pair by exactly s
    cfg = {"head_dim": 32, "rope_theta": 10000.0, "rope_scaling": {"rope_type": "ntk", "factor": 4.0}}
    inv = numeric.rope_frequencies(cfg)[0]
    assert inv[0] == pytest.approx(4.0 ** (-2 / 32), rel=4 * U64)
    lowest = 10000.0 ** (-30 / 32) / 4
    assert inv[-1] == pytest.approx(lowest, rel=4 * U64)
    # the static NTK-aware base (ntk.derive) stays available by its own name, not through a config
    from pe_symbolic.numeric.lower import family_formula

    f = family_formula("ntk")
    assert f.claim_id == "ntk.derive"
    with mpmath.workdps(40):
        static = [float(f(i, 32, 10000, 4)) for i in range(16)]
    assert static[0] == 1.0  # ntk.derive: highest frequency unchanged
    assert static[-1] == pytest.approx(lowest, rel=4 * U64)  # ... and the lowest divided by s
    assert not np.allclose(static, inv)


def test_results_are_fresh_arrays_and_cached_values():
    cfg = numeric.model_config("mistral-7b")
    a, b = numeric.rope_frequencies(cfg), numeric.rope_frequencies(cfg)
    a.inv_freq[0] = 7.0
    assert b.inv_freq[0] == 1.0 and a.inv_freq is not b.inv_freq


# ----------------------------------------------------------------------------------------
# bad input: the key, the value and what is allowed


def _cfg(**rope) -> dict:
    return {"head_dim": 64, "rope_theta": 10000.0, "max_position_embeddings": 4096, "rope_scaling": rope}


BAD = [
    (_cfg(rope_type="yarnn", factor=4.0), ValueError, r"\['rope_type'\]='yarnn' is not allowed; use one of 'default', .*'proportional', 'axial', 'telechat3-yarn' \(did you mean 'yarn'\?\)"),
    (_cfg(rope_type="linear"), ValueError, r"missing the key 'factor', which rope_type 'linear' requires"),
    (_cfg(rope_type="llama3", factor=8.0, low_freq_factor=1.0), ValueError, r"missing the key 'high_freq_factor', which rope_type 'llama3'"),
    (_cfg(rope_type="longrope", short_factor=[1.0] * 32), ValueError, r"missing the key 'long_factor', which rope_type 'longrope'"),
    (_cfg(rope_type="linear", factor=0.5), ValueError, r"\['factor'\]=0.5 is not allowed: it must be >= 1"),
    (_cfg(rope_type="llama3", factor=8.0, low_freq_factor=4.0, high_freq_factor=2.0), ValueError,
     r"\['high_freq_factor'\]=2.0 must be greater than .*\['low_freq_factor'\]=4.0"),
    (_cfg(rope_type="longrope", short_factor=[1.0] * 31, long_factor=[1.0] * 32), ValueError,
     r"\['short_factor'\] has 31 entries; rope_type 'longrope' needs one per rotated pair, rotary_dim/2 = 32"),
    (_cfg(rope_type="longrope", short_factor=[1.0] * 32, long_factor=[1.0] * 33), ValueError, r"\['long_factor'\] has 33 entries"),
    (_cfg(rope_type="default", mrope_section=[16, 24, 24]), ValueError, r"\['mrope_section'\]=\[16, 24, 24\] sums to 64; it must sum to rotary_dim/2 = 32"),
    ({"head_dim": 64, "partial_rotary_factor": 0.01}, ValueError, r"\['partial_rotary_factor'\]=0.01 gives rotary dim int\(64 \* 0.01\) = 0; it must be positive"),
    (_cfg(rope_type="linear", factor=float("nan")), ValueError, r"\['factor'\]=nan must be finite"),
    ({"head_dim": 64, "rope_theta": float("inf")}, ValueError, r"config\['rope_theta'\]=inf must be finite"),
    (_cfg(rope_type="llama3", factor=8.0, low_freq_factor=1.0, high_freq_factor=float("inf")), ValueError, r"\['high_freq_factor'\]=inf must be finite"),
    (_cfg(rope_type="longrope", short_factor=[1.0] * 31 + [float("nan")], long_factor=[1.0] * 32), ValueError, r"\['short_factor'\]\[31\]=nan must be finite"),
    (_cfg(rope_type="linear", factor="4"), TypeError, r"\['factor'\]='4' must be a real number"),
    ({"head_dim": 64, "rope_theta": 1.0}, ValueError, r"config\['rope_theta'\]=1.0 is not allowed: it must be > 1"),
    ({"rope_theta": 10000.0}, ValueError, r"missing the key\(s\) 'hidden_size', 'num_attention_heads'"),
    ({"head_dim": 64, "rope_parameters": {"rope_type": "linear", "factor": 2.0},
      "rope_scaling": {"rope_type": "linear", "factor": 4.0}}, ValueError, r"both 'rope_parameters' .* and 'rope_scaling'"),
    ({"head_dim": 64, "rope_scaling": {"type": "dynamic", "factor": 2.0}}, ValueError, r"'max_position_embeddings', which rope_type 'dynamic' requires"),
    (_cfg(rope_type="yarn", factor=4.0, truncate="no"), TypeError, r"\['truncate'\]='no' must be true or false"),
    (_cfg(rope_type="default", mrope_section=[8, 8, 16], mrope_interleaved=True), ValueError, r"cannot be interleaved"),
    ([("rope_theta", 1)], TypeError, r"config must be a mapping"),
]


@pytest.mark.parametrize("cfg,exc,match", BAD, ids=range(len(BAD)))
def test_bad_configs_name_key_value_and_what_is_allowed(cfg, exc, match):
    with pytest.raises(exc, match=match):
        numeric.rope_frequencies(cfg)


def test_layer_type_errors_list_the_types():
    cfg = numeric.model_config("gemma-3-27b")
    with pytest.raises(ValueError, match=r"one entry per layer type \('full_attention', 'sliding_attention'\); pass layer_type="):
        numeric.rope_frequencies(cfg)
    with pytest.raises(ValueError, match=r"layer_type='global' is not in .*'full_attention', 'sliding_attention'"):
        numeric.rope_frequencies(cfg, layer_type="global")
    with pytest.raises(ValueError, match=r"layer_type='full_attention' was given, but .* omit layer_type"):
        numeric.rope_frequencies(numeric.model_config("mistral-7b"), layer_type="full_attention")


@pytest.mark.parametrize("kw,match", [
    ({"seq_len": 0}, r"seq_len=0 must be a positive integer"),
    ({"seq_len": 2.5}, r"seq_len=2.5 must be a positive integer"),
    ({"yarn_length": "long"}, r"yarn_length='long' is not allowed; use one of 'original', 'max'"),
])
def test_bad_keywords(kw, match):
    with pytest.raises(ValueError, match=match):
        numeric.rope_frequencies(numeric.model_config("llama-3.1-8b"), **kw)


def test_unknown_model_name_suggests_the_nearest():
    with pytest.raises(ValueError, match=r"name='llama-3.1' is not allowed; .*did you mean 'llama-3.1-8b'"):
        numeric.model_config("llama-3.1")


# ----------------------------------------------------------------------------------------
# apply_rope / rope_cos_sin with configs, frequency vectors and M-RoPE


def _bound(x: np.ndarray, layout: str, rd: int, factor: float = 1.0) -> np.ndarray:
    u = U32 if x.dtype == np.float32 else U64
    xa = np.abs(np.asarray(x, np.float64))
    mag = xa.copy()
    if layout == "interleaved":
        s_ = xa[..., 0:rd:2] + xa[..., 1:rd:2]
        mag[..., 0:rd:2], mag[..., 1:rd:2] = s_, s_
    else:
        h = rd // 2
        s_ = xa[..., :h] + xa[..., h:rd]
        mag[..., :h], mag[..., h:rd] = s_, s_
    eta = float(np.finfo(x.dtype).smallest_subnormal)
    return (4 * u + 9 * U64) * factor * mag + 2 * eta


def _x(draw, shape, dtype=np.float64):
    return draw(hnp.arrays(dtype, shape, elements=st.floats(-4, 4, allow_nan=False, width=np.dtype(dtype).itemsize * 8)))


@pytest.mark.filterwarnings("ignore:.*no blended band:UserWarning")  # Llama 4 Scout's llama3 low == high
# both layouts for every config on purpose (the oracle's rotation, not HF's layout choice)
@pytest.mark.filterwarnings("ignore::pe_symbolic.numeric.ConfigLayoutWarning")
@given(data=st.data(), name=st.sampled_from(sorted(SHIPPED)), layout=layouts)
@settings(deadline=None, max_examples=20)
def test_apply_rope_with_a_config_matches_the_oracle(data, name, layout):
    cfg = numeric.model_config(name)
    kw = data.draw(st.sampled_from(SHIPPED[name]), label="kw")
    spec = numeric.parse_rope_config(cfg, layer_type=kw.get("layer_type"))
    d = spec.head_dim
    seq = data.draw(st.integers(1, 3), label="seq")
    x = _x(data.draw, (1, seq, d))
    rinv, raf = reference.rope_frequencies(cfg, **kw)
    if spec.rope_type == "axial":
        # Pixtral (HF's PixtralVisionRotaryEmbedding): positions (row, col); the first half of
        # the pairs turns by the row, the second by the column: M-RoPE sections (0, d/4, d/4)
        pos = data.draw(hnp.arrays(np.float64, (2, seq), elements=st.integers(0, 64).map(float)), label="pos")
        ref_pos, extra = np.concatenate([np.zeros((1, seq)), pos]), {"mrope_section": (0, d // 4, d // 4)}
    elif spec.mrope_section is not None:
        pos = data.draw(hnp.arrays(np.float64, (3, seq), elements=st.integers(0, 40000).map(float)), label="pos")
        ref_pos, extra = pos, {"mrope_section": spec.mrope_section}
    else:
        pos = data.draw(hnp.arrays(np.float64, (seq,), elements=st.integers(0, 200000).map(float)), label="pos")
        ref_pos, extra = pos, {}
    if "seq_len" not in kw and spec.rope_type in ("dynamic", "longrope"):
        # no seq_len given: the length is HF's dynamic_rope_update's, max(position_ids) + 1
        # (the oracle is told it; at 4096 the Llama 2 dynamic NTK base already grows)
        rinv, raf = reference.rope_frequencies(cfg, **kw, seq_len=int(np.max(pos)) + 1)
    got = numeric.apply_rope(x, pos, config=cfg, layout=layout, **kw)
    ref = reference.apply_rope(x, ref_pos, inv_freq=rinv, attention_factor=raf, layout=layout, **extra)
    assert (abs_errors(got, ref) <= _bound(x, layout, spec.rotary_dim, float(raf))).all()


@pytest.mark.parametrize("last", [4095, 4096, 8191, 20000])
def test_dynamic_ntk_without_seq_len_takes_the_length_from_the_positions(last):
    # CI found it: at position 4096 (length 4097 > max_position_embeddings) HF's dynamic NTK
    # base has grown; apply_rope must use max(positions) + 1, as dynamic_rope_update does
    cfg = numeric.model_config("llama-2-7b-dynamic-ntk")
    x = np.ones((1, 1, 128))
    pos = np.array([float(last)])
    rinv, raf = reference.rope_frequencies(cfg, seq_len=last + 1)
    ref = reference.apply_rope(x, pos, inv_freq=rinv, attention_factor=raf, layout="split")
    got = numeric.apply_rope(x, pos, config=cfg, layout="split")
    assert (abs_errors(got, ref) <= _bound(x, "split", 128, float(raf))).all()
    if last >= 4096:  # and it is not the static table
        s_inv, s_af = reference.rope_frequencies(cfg)
        static = reference.apply_rope(x, pos, inv_freq=s_inv, attention_factor=s_af, layout="split")
        assert np.abs(got - static).max() > 1e-3


@given(data=st.data(), interleaved=st.booleans(), layout=layouts)
@settings(deadline=None, max_examples=25)
def test_mrope_matches_the_oracle_in_both_section_layouts(data, interleaved, layout):
    h = data.draw(st.integers(3, 12), label="pairs")
    if interleaved:
        w = data.draw(st.integers(0, h // 3), label="w")  # 3 w <= total
        hh = data.draw(st.integers(0, (h + 1) // 3), label="h")  # 3 h <= total + 1
        sec = (h - hh - w, hh, w)
    else:
        a = data.draw(st.integers(0, h), label="a")
        b = data.draw(st.integers(0, h - a), label="b")
        sec = (a, b, h - a - b)
    inv = data.draw(hnp.arrays(np.float64, (h,), elements=st.floats(1e-6, 2.0)), label="inv_freq")
    seq = data.draw(st.integers(1, 4), label="seq")
    x = _x(data.draw, (2, seq, 2 * h))
    pos = data.draw(hnp.arrays(np.float64, (3, seq), elements=st.integers(-1000, 100000).map(float)), label="pos")
    got = numeric.apply_rope(x, pos, inv_freq=inv, mrope_section=sec, mrope_interleaved=interleaved, layout=layout)
    ref = reference.apply_rope(x, pos, inv_freq=list(inv), mrope_section=sec, mrope_interleaved=interleaved, layout=layout)
    assert (abs_errors(got, ref) <= _bound(x, layout, 2 * h)).all()


def test_mrope_axes_agree_with_the_oracle_and_the_symbolic_layer():
    from pe_symbolic.encodings.family import mrope_axes

    for sec in ((16, 24, 24), (24, 20, 20), (2, 1, 1), (5, 0, 0), (3, 3, 2)):
        assert mrope_axes(sec) == reference.mrope_axes(sec)
    for sec in ((24, 20, 20), (2, 1, 1), (5, 0, 0), (3, 3, 2)):
        assert mrope_axes(sec, interleaved=True) == reference.mrope_axes(sec, interleaved=True)
    with pytest.raises(ValueError, match="cannot be interleaved"):
        mrope_axes((16, 24, 24), interleaved=True)
    axes = mrope_axes((24, 20, 20), interleaved=True)
    assert axes[:6] == (0, 1, 2, 0, 1, 2) and axes[60:] == (0, 0, 0, 0)


@given(data=st.data(), layout=layouts, dtype=st.sampled_from((np.float32, np.float64)))
@settings(deadline=None, max_examples=20)
def test_mrope_with_equal_axes_is_one_d_rope(data, layout, dtype):
    """mrope.reduces_to_rope, numerically: bit for bit the same rotation."""
    cfg = numeric.model_config("qwen2-vl-7b")
    seq = data.draw(st.integers(1, 80), label="seq")
    x = _x(data.draw, (2, seq, 128), dtype)
    pos = data.draw(hnp.arrays(np.float64, (seq,), elements=st.integers(0, 2**20).map(float)), label="pos")
    spec = numeric.parse_rope_config(cfg)
    via_spec = numeric.apply_rope(x, np.stack([pos] * 3), config=spec, layout=layout)
    plain = numeric.apply_rope(x, pos, config=cfg | {"rope_scaling": None}, layout=layout)
    np.testing.assert_array_equal(via_spec, plain)
    inv = numeric.rope_frequencies(cfg).inv_freq
    one_d = numeric.apply_rope(x, np.stack([pos] * 3), inv_freq=inv, mrope_section=(16, 24, 24), layout=layout)
    ref = reference.apply_rope(x, pos, inv_freq=list(inv), layout=layout, dps=30)
    assert (abs_errors(one_d, ref) <= _bound(x, layout, 128)).all()


@given(data=st.data(), interleaved=st.booleans())
@settings(deadline=None, max_examples=20)
def test_mrope_scores_depend_on_the_position_difference(data, interleaved):
    """mrope.homomorphism, numerically: <R(p)q, R(p')k> = <q, R(p'-p)k>."""
    sec = (4, 2, 2)
    inv = numeric.rope_frequencies({"head_dim": 16, "rope_theta": 100.0})
    q = _x(data.draw, (16,))
    k = _x(data.draw, (16,))
    p = data.draw(hnp.arrays(np.float64, (3, 1), elements=st.integers(0, 5000).map(float)), label="p")
    u = data.draw(hnp.arrays(np.float64, (3, 1), elements=st.integers(0, 5000).map(float)), label="u")
    kw = {"inv_freq": inv, "mrope_section": sec, "mrope_interleaved": interleaved}
    lhs = numeric.apply_rope(q[None], p, **kw) @ numeric.apply_rope(k[None], u, **kw).T
    rhs = q[None] @ numeric.apply_rope(k[None], u - p, **kw).T
    scale = np.abs(q).sum() * np.abs(k).sum()
    assert abs(lhs - rhs).max() <= 64 * U64 * scale + 1e-300


@given(data=st.data(), layout=layouts)
@settings(deadline=None, max_examples=25)
def test_hf_position_ids_and_q_k_in_one_call(data, layout):
    batch, heads, kv_heads, seq = (data.draw(st.integers(1, 3), label=n) for n in ("batch", "heads", "kv", "seq"))
    cfg = numeric.model_config("llama-3.1-8b") | {"hidden_size": 16 * 32}  # head_dim 16: small
    q = _x(data.draw, (batch, heads, seq, 16))
    k = _x(data.draw, (batch, kv_heads, seq, 16))
    ids = data.draw(hnp.arrays(np.int64, (batch, seq), elements=st.integers(0, 131071)), label="ids")
    qr, kr = numeric.apply_rope((q, k), position_ids=ids, config=cfg, layout=layout)
    np.testing.assert_array_equal(qr, numeric.apply_rope(q, ids[:, None, :], config=cfg, layout=layout))
    np.testing.assert_array_equal(kr, numeric.apply_rope(k, position_ids=ids, config=cfg, layout=layout))
    rinv, raf = reference.rope_frequencies(cfg)
    ref = reference.apply_rope(k, ids[:, None, :], inv_freq=rinv, attention_factor=raf, layout=layout, dps=30)
    assert (abs_errors(kr, ref) <= _bound(k, layout, 16)).all()


def test_mrope_position_ids_of_shape_3_batch_seq():
    cfg = numeric.model_config("qwen2-vl-7b")
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 4, 5, 128))
    ids = rng.integers(0, 1000, size=(3, 2, 5))
    got = numeric.apply_rope(x, position_ids=ids, config=cfg)
    want = numeric.apply_rope(x, ids[:, :, None, :], config=cfg)
    np.testing.assert_array_equal(got, want)
    c, s = numeric.rope_cos_sin(ids, config=cfg)
    assert c.shape == (2, 5, 128)


@pytest.mark.parametrize("name", ["gpt-oss-20b", "phi-3.5-mini", "gpt-neox-20b"])
def test_cos_sin_tables_of_a_config_apply_its_rope(name):
    """HF's recipe q*cos + rotate_half(q)*sin with our tables (attention factor included)."""
    cfg = numeric.model_config(name)
    spec = numeric.parse_rope_config(cfg)
    rd = spec.rotary_dim
    x = np.random.default_rng(1).standard_normal((3, 7, spec.head_dim))
    pos = np.arange(7) * 613.0
    c, s = numeric.rope_cos_sin(pos, config=cfg)
    xr = x[..., :rd]
    rot = np.concatenate([-xr[..., rd // 2:], xr[..., : rd // 2]], axis=-1)
    by_tables = xr * c + rot * s
    got = numeric.apply_rope(x, pos, config=cfg)
    assert np.abs(got[..., :rd] - by_tables).max() <= 16 * U64 * np.abs(x).max() * 2
    np.testing.assert_array_equal(got[..., rd:], x[..., rd:])  # partial: pass-through


def test_inv_freq_and_config_paths_agree_and_frequencies_carry_the_attention_factor():
    cfg = numeric.model_config("qwen2.5-7b-yarn")
    fr = numeric.rope_frequencies(cfg)
    x = np.random.default_rng(2).standard_normal((4, 128))
    pos = np.arange(4.0)
    a = numeric.apply_rope(x, pos, config=cfg)
    b = numeric.apply_rope(x, pos, inv_freq=fr)
    c = numeric.apply_rope(x, pos, inv_freq=fr.inv_freq)
    assert np.abs(a - b).max() <= 32 * U64 * np.abs(x).max()
    np.testing.assert_allclose(b / fr.attention_factor, c, rtol=0, atol=8 * U64 * np.abs(x).max())


def test_plain_calls_and_a_default_config_agree_bit_for_bit():
    x = np.random.default_rng(3).standard_normal((2, 9, 16))
    pos = np.arange(9.0) * 1000.5
    for layout in ("split", "interleaved"):
        np.testing.assert_array_equal(numeric.apply_rope(x, pos, layout=layout),
                                      numeric.apply_rope(x, pos, config={"head_dim": 16}, layout=layout))
    np.testing.assert_array_equal(numeric.rope_cos_sin(pos, 16)[1], numeric.rope_cos_sin(pos, config={"head_dim": 16})[1])


@pytest.mark.parametrize("kwargs,exc,match", [
    ({"config": {"head_dim": 8}, "inv_freq": [1.0, 0.1]}, ValueError, "pass config= or inv_freq=, not both"),
    ({"config": {"head_dim": 8}, "base": 500.0}, ValueError, r"base=500.0 conflicts with config="),
    ({"inv_freq": [1.0, -0.1, 0.1, 0.0]}, ValueError, r"inv_freq must be finite and >= 0; got -0.1 at index 1"),
    ({"inv_freq": [[1.0]]}, TypeError, r"inv_freq must be a non-empty 1-D array"),
    ({"inv_freq": [1.0, 0.1, 0.01, 0.001], "rotary_dim": 4}, ValueError, r"rotary_dim=4 conflicts with the 8 rotated channels"),
    ({"inv_freq": [1.0, 0.1, 0.01, 0.001], "mrope_section": [2, 1, 2]}, ValueError, r"mrope_section=\[2, 1, 2\] sums to 5; it must sum to rotary_dim/2 = 4"),
    ({"inv_freq": [1.0, 0.1, 0.01, 0.001], "attention_factor": 0.0}, ValueError, r"attention_factor=0.0 must be a finite number > 0"),
    ({"seq_len": 10}, ValueError, r"layer_type= and seq_len= need config="),
    ({"config": {"head_dim": 8}, "positions": None, "position_ids": None}, ValueError, "pass exactly one of positions"),
    ({"config": {"head_dim": 8}, "position_ids": [[0, 1, 2, 3]]}, ValueError, r"position_ids of shape \(1, 4\) need x of shape \(batch, heads, seq, d\)"),
    ({"config": {"head_dim": 8, "rope_scaling": {"type": "mrope", "mrope_section": [2, 1, 1]}}}, ValueError,
     r"M-RoPE positions need a leading axis of 3 \(t, h, w\), e.g. shape \(3, seq\) or \(3, batch, seq\); got shape \(4,\)"),
    ({"config": {"head_dim": 16}}, ValueError, r"config= rotates 16 channels, which must be <= d=8 \(the last axis of x\)"),
    ({"config": {"head_dim": 8}, "out": (np.empty((2, 4, 8)),)}, TypeError, r"out must be a numpy.ndarray or None; got tuple"),
])
def test_apply_rope_new_bad_input(kwargs, exc, match):
    kwargs = dict(kwargs)
    x = np.ones((2, 4, 8))
    positions = kwargs.pop("positions", np.arange(4.0))
    if "position_ids" in kwargs:
        positions = None
    with pytest.raises(exc, match=match):
        numeric.apply_rope(x, positions, **kwargs)


def test_apply_rope_tuple_errors_and_hint_for_hf_ids():
    q, k = np.ones((1, 2, 3, 8)), np.ones((1, 2, 3, 6))
    with pytest.raises(ValueError, match="x\\[1\\] has last axis 6; x\\[0\\] has 8"):
        numeric.apply_rope((q, k), np.arange(3.0))
    with pytest.raises(ValueError, match=r"out must be a tuple of 2 arrays"):
        numeric.apply_rope((q, q), np.arange(3.0), out=np.empty_like(q))
    with pytest.raises(ValueError, match=r"for Hugging Face position_ids of shape \(batch, seq\) pass position_ids="):
        numeric.apply_rope(np.ones((2, 4, 3, 8)), np.zeros((2, 3)))


# ----------------------------------------------------------------------------------------
# review of the RoPE family against HF transformers 5.23 (issue 10): non-finite integer
# fields, the key an odd head_dim is blamed on, Gemma 4's global_head_dim, the current
# length taken from the positions, inverted YaRN betas

INF, NAN = float("inf"), float("nan")

NON_FINITE_INTEGERS = [
    ({"head_dim": 64, "max_position_embeddings": INF}, r"config\['max_position_embeddings'\]=inf must be a finite integer >= 1"),
    ({"head_dim": INF}, r"config\['head_dim'\]=inf must be a finite integer >= 1"),
    ({"head_dim": NAN}, r"config\['head_dim'\]=nan must be a finite integer >= 1"),
    ({"qk_rope_head_dim": NAN, "head_dim": 64}, r"config\['qk_rope_head_dim'\]=nan must be a finite integer"),
    ({"hidden_size": INF, "num_attention_heads": 8}, r"config\['hidden_size'\]=inf must be a finite integer >= 1"),
    ({"hidden_size": 512, "num_attention_heads": -INF}, r"config\['num_attention_heads'\]=-inf must be a finite integer >= 1"),
    ({"head_dim": 64, "max_position_embeddings": 4096, "original_max_position_embeddings": INF,
      "rope_scaling": {"rope_type": "yarn", "factor": 4.0}},
     r"^config\['original_max_position_embeddings'\]=inf must be a finite integer >= 1"),
    ({"head_dim": 64, "max_position_embeddings": 4096,
      "rope_scaling": {"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
                       "original_max_position_embeddings": NAN}},
     r"^config\['rope_scaling'\]\['original_max_position_embeddings'\]=nan must be a finite integer >= 1"),
    ({"head_dim": 64, "rope_scaling": {"type": "mrope", "mrope_section": [16, NAN, 8]}},
     r"config\['rope_scaling'\]\['mrope_section'\]\[1\]=nan must be a finite integer >= 0"),
    ({"head_dim": 64, "rope_theta": 10**400}, r"config\['rope_theta'\]=1000.* must be finite"),
]


@pytest.mark.parametrize("cfg,match", NON_FINITE_INTEGERS, ids=range(len(NON_FINITE_INTEGERS)))
def test_non_finite_integer_fields_are_clear_value_errors(cfg, match):
    """Before: int(inf) raised a bare OverflowError (int(nan) a ValueError naming no key)."""
    with pytest.raises(ValueError, match=match):
        numeric.rope_frequencies(cfg)


@pytest.mark.parametrize("cfg,match", [
    ({"head_dim": 65}, r"^config\['head_dim'\]=65 must be a positive even number"),
    ({"qk_rope_head_dim": 33, "hidden_size": 7168, "num_attention_heads": 128}, r"^config\['qk_rope_head_dim'\]=33 must be a positive even number"),
    ({"hidden_size": 1040, "num_attention_heads": 16},
     r"^head_dim = config\['hidden_size'\] // config\['num_attention_heads'\] = 1040 // 16 = 65 must be a positive even number"),
    ({"head_dim": 65, "rope_parameters": {"rope_type": "proportional", "partial_rotary_factor": 0.5}}, r"^config\['head_dim'\]=65 must be a positive even number"),
    ({"hidden_size": 8, "num_attention_heads": 16}, r"^head_dim = .* = 8 // 16 = 0 must be a positive even number"),
])
def test_an_odd_head_dim_is_blamed_on_the_key_that_gives_it(cfg, match):
    """Before: 'config['rope_parameters']['partial_rotary_factor']=1.0 gives rotary dim ... = 65'
    for a config without that key."""
    with pytest.raises(ValueError, match=match) as info:
        numeric.rope_frequencies(cfg)
    assert "partial_rotary_factor" not in str(info.value)


def test_an_odd_rotary_dim_from_a_given_partial_factor_rounds_up_as_hf_does():
    """HF: inv_freq = base ** -(arange(0, 15, 2) / 15), 8 entries; 16 channels rotate."""
    cfg = {"head_dim": 40, "partial_rotary_factor": 0.375}
    spec = numeric.parse_rope_config(cfg)
    assert (spec.rotary_dim, spec.exponent_dim, spec.pairs) == (16, 15, 8)
    inv = numeric.rope_frequencies(cfg).inv_freq
    want = reference.to_float(reference.rope_frequencies(cfg)[0])
    assert inv.shape == (8,) and np.array_equal(inv, want)
    with pytest.raises(ValueError, match=r"^config\['rope_parameters'\]\['partial_rotary_factor'\]=0.01 gives rotary dim"):
        numeric.rope_frequencies({"head_dim": 64, "rope_parameters": {"partial_rotary_factor": 0.01}})


GEMMA4 = {"head_dim": 256, "global_head_dim": 512, "rope_parameters": {
    "sliding_attention": {"rope_type": "default", "rope_theta": 1e4},
    "full_attention": {"rope_type": "proportional", "partial_rotary_factor": 0.25, "rope_theta": 1e6}}}


def _mp_ladder(base: float, count: int, width: int) -> np.ndarray:
    """base**(-2i/width), i < count, correctly rounded (hand-computed values)."""
    with mpmath.workdps(50):
        return np.array([float(mpmath.mpf(base) ** (-mpmath.mpf(2 * i) / width)) for i in range(count)])


def test_gemma4_full_attention_layers_use_global_head_dim():
    """HF 5.23 (configuration_gemma4.py): full-attention layers get head_dim = global_head_dim
    through per_layer_config, and every rope init function reads the layer's config. Before:
    128 frequencies, 32 non-zero, denominator 256."""
    full = numeric.rope_frequencies(GEMMA4, layer_type="full_attention")
    assert full.inv_freq.shape == (256,) and np.count_nonzero(full.inv_freq) == 64  # int(0.25 * 512 // 2)
    np.testing.assert_array_equal(full.inv_freq[:64], _mp_ladder(1e6, 64, 512))  # denominator 512
    assert np.all(full.inv_freq[64:] == 0) and full.attention_factor == 1.0
    sliding = numeric.rope_frequencies(GEMMA4, layer_type="sliding_attention").inv_freq
    np.testing.assert_array_equal(sliding, _mp_ladder(1e4, 128, 256))  # head_dim stays 256 there
    spec = numeric.parse_rope_config(GEMMA4, layer_type="full_attention")
    assert (spec.head_dim, spec.rotary_dim) == (512, 512)
    for lt in ("full_attention", "sliding_attention"):
        for cfg in (GEMMA4, {"text_config": GEMMA4}):
            inv_err, af_err = _against_oracle(cfg, layer_type=lt)
            assert inv_err <= 0.5 + 1e-9 and af_err == 0.0
    # every rope type of a full-attention layer (HF's default init reads the layer config too)
    default_full = GEMMA4 | {"rope_parameters": GEMMA4["rope_parameters"] | {"full_attention": {"rope_theta": 1e6}}}
    np.testing.assert_array_equal(numeric.rope_frequencies(default_full, layer_type="full_attention").inv_freq,
                                  _mp_ladder(1e6, 256, 512))
    assert _against_oracle(default_full, layer_type="full_attention")[0] <= 0.5 + 1e-9
    # without global_head_dim nothing changes
    plain = {k: v for k, v in GEMMA4.items() if k != "global_head_dim"}
    assert numeric.rope_frequencies(plain, layer_type="full_attention").inv_freq.shape == (128,)
    # the tables follow: a full-attention layer rotates 512 channels
    x = np.ones((1, 2, 512))
    assert numeric.apply_rope(x, [0, 1], config=GEMMA4, layer_type="full_attention").shape == x.shape
    with pytest.raises(ValueError, match=r"config= rotates 512 channels, which must be <= d=256"):
        numeric.apply_rope(np.ones((1, 2, 256)), [0, 1], config=GEMMA4, layer_type="full_attention")


def test_global_head_dim_is_checked():
    with pytest.raises(ValueError, match=r"config\['global_head_dim'\]=inf must be a finite integer >= 1"):
        numeric.rope_frequencies(GEMMA4 | {"global_head_dim": INF}, layer_type="full_attention")
    with pytest.raises(ValueError, match=r"^config\['global_head_dim'\]=511 \(the head dim of .full_attention. layers\) must be a positive even number"):
        numeric.rope_frequencies(GEMMA4 | {"global_head_dim": 511}, layer_type="full_attention")


def test_longrope_in_apply_rope_takes_the_length_from_the_positions():
    """HF's dynamic_rope_update: seq_len = max(position_ids) + 1. Phi-3.5 at positions
    4990..4996 is past original_max_position_embeddings = 4096: long factors. Before: short."""
    cfg = numeric.model_config("phi-3.5-mini")
    x = np.random.default_rng(4).standard_normal((2, 7, 96))
    pos = np.arange(4990, 4997)
    got = numeric.apply_rope(x, pos, config=cfg)
    np.testing.assert_array_equal(got, numeric.apply_rope(x, pos, config=cfg, seq_len=4997))
    long_, short_ = (numeric.rope_frequencies(cfg, seq_len=n) for n in (4997, 4096))
    # the inv_freq path rounds the frequencies to float64 (angle errors ~ position * ulp):
    # close to the long factors' rotation, far from the short ones'
    assert np.abs(got - numeric.apply_rope(x, pos, inv_freq=long_)).max() <= 1e-9 * np.abs(x).max()
    assert np.abs(got - numeric.apply_rope(x, pos, inv_freq=short_)).max() > 1e-3
    assert not np.array_equal(got, numeric.apply_rope(x, pos, config=cfg, seq_len=4096))  # explicit override wins
    c, s = numeric.rope_cos_sin(pos, config=cfg)
    c_long, s_long = numeric.rope_cos_sin(pos, config=cfg, seq_len=4997)
    np.testing.assert_array_equal(c, c_long)
    np.testing.assert_array_equal(s, s_long)
    # HF position_ids: the max over the whole batch; positions inside the original length: short
    ids = np.stack([np.arange(7), np.arange(4990, 4997)])
    xb = np.random.default_rng(5).standard_normal((2, 3, 7, 96))
    np.testing.assert_array_equal(numeric.apply_rope(xb, position_ids=ids, config=cfg),
                                  numeric.apply_rope(xb, position_ids=ids, config=cfg, seq_len=4997))
    short = np.arange(4089, 4096)
    np.testing.assert_array_equal(numeric.apply_rope(x, short, config=cfg),
                                  numeric.apply_rope(x, short, config=cfg, seq_len=4096))


def test_dynamic_in_apply_rope_takes_the_length_from_the_positions():
    cfg = {"head_dim": 16, "rope_theta": 10000.0, "max_position_embeddings": 4096,
           "rope_scaling": {"rope_type": "dynamic", "factor": 2.0}}
    x = np.random.default_rng(6).standard_normal((1, 8000, 16))
    pos = np.arange(8000)
    got = numeric.apply_rope(x, pos, config=cfg)
    np.testing.assert_array_equal(got, numeric.apply_rope(x, pos, config=cfg, seq_len=8000))
    assert not np.array_equal(got, numeric.apply_rope(x, pos, config=cfg, seq_len=4096))
    c, _ = numeric.rope_cos_sin(pos, config=cfg)
    np.testing.assert_array_equal(c, numeric.rope_cos_sin(pos, config=cfg, seq_len=8000)[0])
    # real positions: the largest, rounded down, plus one
    np.testing.assert_array_equal(numeric.rope_cos_sin([0.5, 7998.5], config=cfg)[1],
                                  numeric.rope_cos_sin([0.5, 7998.5], config=cfg, seq_len=7999)[1])
    # M-RoPE ids (3, seq): HF takes the max over all three axes
    mcfg = {"head_dim": 16, "max_position_embeddings": 100,
            "rope_scaling": {"rope_type": "dynamic", "factor": 2.0, "mrope_section": [2, 3, 3]}}
    ids = np.array([[0, 1, 2], [0, 250, 3], [0, 1, 2]])
    np.testing.assert_array_equal(numeric.rope_cos_sin(ids, config=mcfg)[0],
                                  numeric.rope_cos_sin(ids, config=mcfg, seq_len=251)[0])
    assert not np.array_equal(numeric.rope_cos_sin(ids, config=mcfg)[0], numeric.rope_cos_sin(ids, config=mcfg, seq_len=3)[0])


def test_yarn_with_beta_slow_above_beta_fast_warns():
    """HF warns (beta_fast must be greater than beta_slow); the ramp runs backwards."""
    cfg = _cfg(rope_type="yarn", factor=4.0, beta_fast=1.0, beta_slow=32.0)
    with pytest.warns(UserWarning, match=r"\['beta_slow'\]=32.0 is greater than .*\['beta_fast'\]=1.0"):
        inv, _ = numeric.rope_frequencies(cfg)
    assert inv.shape == (32,)
    with pytest.warns(UserWarning, match=r"\['beta_slow'\]=64 is greater than .*\['beta_fast'\]=None \(default 32\)"):
        numeric.parse_rope_config(_cfg(rope_type="yarn", factor=4.0, beta_slow=64))


def test_shipped_phi_3_5_moe_matches_hf():
    # the real 64-entry factor lists. Up to the original context HF's PhimoeRotaryEmbedding is the
    # reference (short factors, short_mscale 1.243163121016122 where plain longrope gives 1.19);
    # beyond it, HF's longrope init (long factors) with long_mscale: transformers 5.24's
    # PhimoeRotaryEmbedding.forward recomputes inv_freq without seq_len, so it never switches to
    # the long factors itself (its cos at position 1 beyond 4096 is still the short one)
    torch = pytest.importorskip("torch")
    pytest.importorskip("transformers")
    from transformers import PhimoeConfig
    from transformers.modeling_rope_utils import ROPE_INIT_FUNCTIONS
    from transformers.models.phimoe import modeling_phimoe

    cfg = numeric.model_config("phi-3.5-moe")
    assert len(cfg["rope_scaling"]["long_factor"]) == len(cfg["rope_scaling"]["short_factor"]) == 64
    hf_cfg = PhimoeConfig(**cfg)
    emb = modeling_phimoe.PhimoeRotaryEmbedding(hf_cfg)
    n = 64
    cos, _ = emb(torch.zeros(1, 1, 128, dtype=torch.float32), torch.arange(n)[None])
    short = numeric.rope_frequencies(cfg, seq_len=n)
    assert float(short.attention_factor) == 1.243163121016122
    ang = np.arange(n, dtype=np.float64)[:, None] * np.asarray(short.inv_freq, dtype=np.float64)[None]
    want = np.concatenate([np.cos(ang), np.cos(ang)], -1) * float(short.attention_factor)
    assert np.max(np.abs(cos[0].double().numpy() - want)) <= 8 * 2.0**-24 * n  # float32 angles and tables
    long = numeric.rope_frequencies(cfg, seq_len=4097)
    hf_long, _ = ROPE_INIT_FUNCTIONS["longrope"](hf_cfg, "cpu", seq_len=4097)
    ours = np.asarray(long.inv_freq, dtype=np.float64)
    # HF forms inv_freq in float32: a power, a product and a division, each rounded (4 units of 2**-24)
    assert np.max(np.abs(hf_long.double().numpy() - ours) / ours) <= 4 * 2.0**-24
    assert float(long.attention_factor) == hf_cfg.rope_parameters["long_mscale"]
