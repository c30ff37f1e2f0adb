"""Issue 23: the RoPE variants that were refused by name, read as their sources define them.

* ``telechat3-yarn`` (vLLM's ``TeleChat3RoPEScaledRotaryEmbedding``): YaRN's frequencies
  (vLLM's ``extrapolation_factor`` scaling the kept share), attention factor
  ``(0.07 ln s + 1) * attn_factor``;
* vLLM's ``ntk`` with ``mixed_b`` (``NTKScalingRotaryEmbedding``, Su's NTK-RoPE-mixed):
  pair ``i`` of the ladder divided by ``exp(a (i+1)^b)``, ``a = ln s / (d/2)^b``; and without
  it (vLLM's fixed NTK): ``(b s)^(-2i/d) / s^(2/d)``, the mixed NTK at ``mixed_b = 1``;
* DeepSeek-V4 (HF's ``DeepseekV4Config`` / ``modeling_deepseek_v4``): two RoPEs, ``main``
  (sliding-window layers, ``rope_theta``) and ``compress`` (compressed layers,
  ``compress_rope_theta``, YaRN with the cos/sin factor pinned to 1), on the *last*
  ``rotary_dim`` channels of each head, in interleaved pairs.

Each is checked against the independent oracle :func:`pe_symbolic.reference.rope_frequencies`
(written again from the published code) to within 1 ulp of float64, and against HF's own
functions where HF implements it (skipped without torch / transformers).
"""

from __future__ import annotations

import copy
import math
import warnings

import mpmath
import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from strategies import budget

from pe_symbolic import numeric, reference
from pe_symbolic.numeric.config import UnknownConfigKeyWarning


def _ulps(a, b) -> float:
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    return float(np.max(np.abs(a - b) / np.spacing(np.maximum(np.abs(a), np.abs(b))), initial=0.0))


def _agree(cfg, **kw):
    got = numeric.rope_frequencies(cfg, **kw)
    inv, af = reference.rope_frequencies(cfg, **kw)
    inv = reference.to_float(inv)
    assert got.inv_freq.shape == inv.shape
    assert _ulps(got.inv_freq, inv) <= 1.0
    assert _ulps([got.attention_factor], [float(af)]) <= 1.0
    return got


# ----------------------------------------------------------------------------------------
# telechat3-yarn

#: The rope fields of TeleChat3-36B-Thinking's config.json, as quoted field for field from
#: ``mlx-community/Telechat3-36B-Thinking-4bit`` in a public port's unit test.
TELECHAT3_36B_QUOTED = {
    "model_type": "telechat3", "head_dim": 128, "hidden_size": 6144, "num_attention_heads": 48,
    "max_position_embeddings": 32768, "rope_theta": 1000000.0,
    "rope_scaling": {"beta_fast": 32.0, "beta_slow": 1.0, "factor": 4.0, "original_max_position_embeddings": 8192,
                     "rope_type": "telechat3-yarn", "type": "telechat3-yarn"},
}
TELECHAT3_36B = numeric.model_config("telechat3-36b")


def test_the_shipped_telechat3_config_is_the_quoted_one():
    for key, value in TELECHAT3_36B_QUOTED.items():
        assert TELECHAT3_36B[key] == value, key


def test_telechat3_is_yarn_with_a_0_07_attention_slope():
    got = _agree(TELECHAT3_36B)
    plain = dict(TELECHAT3_36B, rope_scaling=dict(TELECHAT3_36B["rope_scaling"], type="yarn", rope_type="yarn"))
    yarn = numeric.rope_frequencies(plain)
    assert np.array_equal(got.inv_freq, yarn.inv_freq)  # the same frequencies
    assert got.attention_factor == pytest.approx(0.07 * math.log(4.0) + 1.0, rel=1e-15)
    assert yarn.attention_factor == pytest.approx(0.1 * math.log(4.0) + 1.0, rel=1e-15)
    assert numeric.parse_rope_config(TELECHAT3_36B).rope_type == "telechat3-yarn"


@settings(max_examples=budget(60), deadline=None)
@given(head=st.sampled_from([32, 64, 96, 128]), base=st.sampled_from([1e4, 5e5, 1e6, 123456.0]),
       factor=st.floats(1.0, 64.0), orig=st.sampled_from([2048, 4096, 8192]),
       keep=st.one_of(st.just(1.0), st.floats(0.0, 2.0)), attn=st.one_of(st.just(1.0), st.floats(0.5, 2.0)),
       truncate=st.booleans())
@example(head=128, base=1e6, factor=4.0, orig=8192, keep=1.0, attn=1.0, truncate=True)  # TeleChat3-36B
@example(head=64, base=1e4, factor=1.0, orig=4096, keep=0.0, attn=1.0, truncate=True)  # s = 1, nothing kept
def test_telechat3_matches_the_oracle(head, base, factor, orig, keep, attn, truncate):
    rope = {"rope_type": "telechat3-yarn", "factor": factor, "original_max_position_embeddings": orig,
            "extrapolation_factor": keep, "attn_factor": attn, "truncate": truncate}
    _agree({"head_dim": head, "rope_theta": base, "max_position_embeddings": orig * 4, "rope_parameters": rope})


def test_telechat3_matches_hf_yarn_with_vllms_attention_factor():
    """vLLM itself normalises ``telechat3-yarn`` to HF ``yarn`` with
    ``attention_factor = 0.07 ln s + 1``; HF's function computes those frequencies (float32)."""
    torch = pytest.importorskip("torch")
    mru = pytest.importorskip("transformers.modeling_rope_utils")

    class Cfg:
        head_dim, max_position_embeddings = 128, 32768
        hidden_size, num_attention_heads = 6144, 48
        rope_parameters = {"rope_type": "yarn", "rope_theta": 1e6, "factor": 4.0, "beta_fast": 32.0, "beta_slow": 1.0,
                           "original_max_position_embeddings": 8192, "attention_factor": 0.07 * math.log(4.0) + 1}

        def standardize_rope_params(self):
            pass

    inv, af = mru.ROPE_INIT_FUNCTIONS["yarn"](Cfg(), "cpu")
    got = numeric.rope_frequencies(TELECHAT3_36B)
    hf = inv.to(torch.float64).numpy()
    assert float(np.max(np.abs(got.inv_freq - hf) / hf)) < 2e-6  # HF's float32 pipeline
    assert got.attention_factor == pytest.approx(af, rel=1e-15)


@pytest.mark.parametrize("key, value", [("mscale", 1.0), ("attention_factor", 1.2), ("mscale_all_dim", 1.0)])
def test_telechat3_warns_on_a_key_vllm_does_not_read(key, value):
    cfg = dict(TELECHAT3_36B, rope_scaling=dict(TELECHAT3_36B["rope_scaling"], **{key: value}))
    with pytest.warns(UnknownConfigKeyWarning, match=rf"\['{key}'\]={value!r} is not understood for rope_type "
                                                     r"'telechat3-yarn'"):
        numeric.rope_frequencies(cfg)


@pytest.mark.parametrize("key, value, err, match", [
    ("attn_factor", 0.0, ValueError, r"\['attn_factor'\]=0.0 is not allowed: it must be > 0"),
    ("extrapolation_factor", -1.0, ValueError, r"\['extrapolation_factor'\]=-1.0 is not allowed: it must be >= 0"),
    ("attn_factor", "1", TypeError, r"\['attn_factor'\]='1' must be a real number"),
    ("factor", 0.5, ValueError, r"\['factor'\]=0.5 is not allowed: it must be >= 1"),
])
def test_telechat3_bad_values_are_named(key, value, err, match):
    cfg = dict(TELECHAT3_36B, rope_scaling=dict(TELECHAT3_36B["rope_scaling"], **{key: value}))
    with pytest.raises(err, match=match):
        numeric.rope_frequencies(cfg)


def test_describe_names_telechat3_and_the_mlx_disagreement():
    d = numeric.describe(TELECHAT3_36B, quiet=True)
    assert d.layers[0].spec.rope_type == "telechat3-yarn"
    assert any("0.07 ln s + 1" in n and "MLX" in n for n in d.notes)


# ----------------------------------------------------------------------------------------
# vLLM's mixed NTK (rope_type "ntk" with mixed_b)


def _mixed(head=64, factor=8.0, b=0.625, base=10000.0):
    return {"head_dim": head, "rope_theta": base, "rope_scaling": {"rope_type": "ntk", "factor": factor, "mixed_b": b}}


@settings(max_examples=budget(60), deadline=None)
@given(head=st.sampled_from([8, 32, 64, 128, 256]), base=st.sampled_from([1e4, 5e5, 1e6, 2.5]),
       factor=st.floats(1.0, 64.0), b=st.floats(0.05, 4.0))
@example(head=128, base=1e4, factor=16.0, b=0.625, )  # Su's NTK-RoPE-mixed example exponent
@example(head=64, base=1e4, factor=1.0, b=1.0)  # s = 1: the plain ladder
def test_mixed_ntk_matches_the_oracle(head, base, factor, b):
    _agree(_mixed(head, factor, b, base))


def test_mixed_ntk_divides_the_last_pair_by_s_and_b_1_is_vllms_fixed_ntk():
    d, s, base = 64, 8.0, 10000.0
    plain = numeric.rope_frequencies({"head_dim": d, "rope_theta": base}).inv_freq
    for b in (0.5, 1.0, 2.0):
        inv = numeric.rope_frequencies(_mixed(d, s, b, base)).inv_freq
        assert inv[-1] == pytest.approx(plain[-1] / s, rel=1e-15)
    # mixed_b = 1: vLLM's fixed NTK (no mixed_b), (b s)^(-2i/d) / s^(2/d) = b^(-2i/d) s^(-2(i+1)/d)
    inv = numeric.rope_frequencies(_mixed(d, s, 1.0, base)).inv_freq
    with mpmath.workdps(40):
        closed = [float(mpmath.mpf(base) ** (-mpmath.mpf(2 * i) / d) * mpmath.mpf(s) ** (-mpmath.mpf(2 * (i + 1)) / d))
                  for i in range(d // 2)]
    assert _ulps(inv, closed) <= 1.0


@pytest.mark.parametrize("value, err, match", [
    (0, ValueError, r"\['mixed_b'\]=0 is not allowed: it must be > 0"),
    (-1.5, ValueError, r"\['mixed_b'\]=-1.5 is not allowed"),
    ("0.5", TypeError, r"\['mixed_b'\]='0.5' must be a real number"),
    (float("inf"), ValueError, r"\['mixed_b'\]=inf must be finite"),
])
def test_mixed_b_bad_values_are_named(value, err, match):
    with pytest.raises(err, match=match):
        numeric.rope_frequencies(_mixed(b=value))


def test_mixed_b_with_an_odd_rotary_dim_is_refused():
    cfg = {"head_dim": 64, "partial_rotary_factor": 0.3,
           "rope_scaling": {"rope_type": "ntk", "factor": 4.0, "mixed_b": 0.5}}
    with pytest.raises(ValueError, match=r"mixed_b.*needs an even rotary dim.*19"):
        numeric.rope_frequencies(cfg)


def test_mixed_b_is_a_key_of_ntk_only():
    cfg = {"head_dim": 64, "max_position_embeddings": 4096,
           "rope_scaling": {"rope_type": "dynamic", "factor": 4.0, "mixed_b": 0.5}}
    with pytest.warns(UnknownConfigKeyWarning, match=r"\['mixed_b'\]=0.5 is not understood for rope_type 'dynamic'"):
        numeric.rope_frequencies(cfg)


def _vllm_fixed_ntk(head_dim, base, factor):
    """vLLM's NTKScalingRotaryEmbedding._compute_inv_freq with mixed_b None, written out by
    hand in float64 as vLLM's code reads (no torch): base * factor, the default ladder
    1 / base' ** (arange(0, d, 2) / d), then divided by factor ** (2 / d)."""
    d = head_dim
    b = base * factor
    ladder = 1.0 / (b ** (np.arange(0, d, 2, dtype=np.float64) / d))
    return ladder / factor ** (2 / d)


@settings(max_examples=budget(60), deadline=None)
@given(head=st.sampled_from([2, 4, 8, 32, 64, 128, 256]), base=st.sampled_from([1e4, 5e5, 1e6, 2.5]),
       factor=st.floats(1.0, 64.0))
@example(head=128, base=1e4, factor=4.0)
@example(head=64, base=1e4, factor=1.0)  # s = 1: the plain ladder
def test_fixed_ntk_is_vllms_formula_and_its_mixed_ntk_at_b_1(head, base, factor):
    cfg = {"head_dim": head, "rope_theta": base, "rope_scaling": {"rope_type": "ntk", "factor": factor}}
    got = _agree(cfg)  # the oracle, written from (b s)^(-2i/d) / s^(2/d), within 1 ulp
    # the oracle against vLLM's formula computed by hand in float64: a few roundings there, and
    # the rounded exponent 2i/d moves b**x by up to |ln b**x| / 2 ulps
    inv = reference.to_float(reference.rope_frequencies(cfg)[0])
    hand = _vllm_fixed_ntk(head, base, factor)
    assert np.all(np.abs(hand - inv) <= (4 + np.abs(np.log(inv))) * np.spacing(inv))
    # exact at 40 digits: the oracle is (b s)^(-2i/d) / s^(2/d) to <= 1 ulp, not only near it
    with mpmath.workdps(60):
        b, s = mpmath.mpf(base), mpmath.mpf(factor)
        closed = [float((b * s) ** (-mpmath.mpf(2 * i) / head) / s ** (mpmath.mpf(2) / head)) for i in range(head // 2)]
    assert _ulps(inv, closed) <= 1.0
    # ... and it is vLLM's mixed NTK with mixed_b = 1, bit for bit (one lowered formula)
    mixed = numeric.rope_frequencies(dict(cfg, rope_scaling=dict(cfg["rope_scaling"], mixed_b=1.0)))
    assert np.array_equal(got.inv_freq, mixed.inv_freq) and got.attention_factor == mixed.attention_factor == 1.0


def test_fixed_ntk_against_vllm_itself():
    torch = pytest.importorskip("torch")
    ntk = pytest.importorskip("vllm.model_executor.layers.rotary_embedding.ntk_scaling_rope")
    for head, base, factor in ((128, 10000.0, 4.0), (64, 1e6, 8.0)):
        emb = ntk.NTKScalingRotaryEmbedding(head, head, 4096, base, True, factor, torch.float32)
        want = emb._compute_inv_freq(base).double().numpy()  # vLLM computes in float32
        cfg = {"head_dim": head, "rope_theta": base, "rope_scaling": {"rope_type": "ntk", "factor": factor}}
        got = numeric.rope_frequencies(cfg).inv_freq
        np.testing.assert_allclose(got, want, rtol=2e-6)


def test_fixed_ntk_with_an_odd_rotary_dim_is_refused():
    cfg = {"head_dim": 64, "partial_rotary_factor": 0.3, "rope_scaling": {"rope_type": "ntk", "factor": 4.0}}
    with pytest.raises(ValueError, match=r"rope_type 'ntk'.*fixed NTK.*needs an even rotary dim.*19"):
        numeric.rope_frequencies(cfg)


def test_describe_reads_ntk_as_vllms_fixed_ntk():
    d = numeric.describe({"head_dim": 64, "rope_scaling": {"rope_type": "ntk", "factor": 4.0}}, quiet=True)
    (row,) = d.layers
    assert row.effective_base == 40000.0  # vLLM's base b * s (then every frequency / s**(2/d))
    assert "vLLM's fixed NTK: (b*s)**(-2i/d) / s**(2/d)" in row.factors
    (note,) = [n for n in d.notes if n.startswith("ntk:")]
    assert "read as vLLM's NTKScalingRotaryEmbedding without mixed_b" in note and "mixed_b = 1" in note
    assert "HF has no 'ntk' type" in note and "static NTK-aware base b*s**(d/(d-2))" in note
    assert "(40000)" in str(d) and "vLLM's fixed NTK" in str(d)
    d = numeric.describe(_mixed(), quiet=True)
    assert "mixed_b=0.625" in d.layers[0].factors and not d.notes
    assert d.layers[0].effective_base == 10000.0  # not a base change


# ----------------------------------------------------------------------------------------
# DeepSeek-V4: two RoPEs on the trailing channels

V4_LEGACY = {  # the fields DeepSeek-V4-Flash's config.json carries for RoPE (V3-style names)
    "model_type": "deepseek_v4", "hidden_size": 4096, "num_attention_heads": 64, "head_dim": 512,
    "qk_rope_head_dim": 64, "max_position_embeddings": 1048576, "rope_theta": 10000, "compress_rope_theta": 160000,
    "compress_ratios": [0, 0, 4, 128, 4, 0], "num_hidden_layers": 6,
    "rope_scaling": {"type": "yarn", "factor": 16, "original_max_position_embeddings": 65536, "beta_fast": 32,
                     "beta_slow": 1},
}


@pytest.mark.parametrize("label, theta, kind", [("main", 10000.0, "default"), ("compress", 160000.0, "yarn")])
def test_deepseek_v4_two_ropes_as_hf_builds_them(label, theta, kind):
    spec = numeric.parse_rope_config(V4_LEGACY, layer_type=label, strict=True)  # compress_rope_theta is read
    assert (spec.rope_type, spec.rope_theta, spec.head_dim, spec.rotary_dim) == (kind, theta, 512, 64)
    assert spec.rotary_channels == "trailing"
    got = _agree(V4_LEGACY, layer_type=label)
    assert got.attention_factor == 1.0  # HF pins YaRN's cos/sin factor to 1 for V4


@settings(max_examples=40, deadline=None)
@given(head=st.sampled_from([64, 128, 256, 512]), rope=st.sampled_from([16, 32, 64]),
       theta=st.sampled_from([1e4, 5e5]), compress=st.sampled_from([1.6e5, 1e6, 12345.0]),
       factor=st.one_of(st.none(), st.floats(1.0, 64.0)), layer_type=st.sampled_from(["main", "compress"]),
       hf_layout=st.booleans())
@example(head=512, rope=64, theta=1e4, compress=1.6e5, factor=16.0, layer_type="compress", hf_layout=False)
def test_deepseek_v4_matches_the_oracle(head, rope, theta, compress, factor, layer_type, hf_layout):
    rope_dict = {"type": "default"} if factor is None else {
        "type": "yarn", "factor": factor, "original_max_position_embeddings": 4096, "beta_fast": 32, "beta_slow": 1}
    cfg = {"model_type": "deepseek_v4", "head_dim": head, "max_position_embeddings": 4096 * 64,
           "rope_theta": theta, "compress_rope_theta": compress, "rope_scaling": rope_dict}
    if hf_layout:
        cfg["partial_rotary_factor"] = rope / head
    else:
        cfg["qk_rope_head_dim"] = rope
    got = _agree(cfg, layer_type=layer_type)
    assert got.inv_freq.shape == (rope // 2,) and got.attention_factor == 1.0


@pytest.mark.parametrize("layer_type, label", [("sliding_attention", "main"), ("compressed_sparse_attention", "compress"),
                                               ("heavily_compressed_attention", "compress")])
def test_deepseek_v4_hf_layer_types_pick_their_rope(layer_type, label):
    a = numeric.rope_frequencies(V4_LEGACY, layer_type=layer_type)
    b = numeric.rope_frequencies(V4_LEGACY, layer_type=label)
    assert np.array_equal(a.inv_freq, b.inv_freq)
    _agree(V4_LEGACY, layer_type=layer_type)


def test_deepseek_v4_needs_a_layer_type_and_a_head_dim():
    with pytest.raises(ValueError, match=r"two RoPEs: pass layer_type='main'"):
        numeric.rope_frequencies(V4_LEGACY)
    # without head_dim: HF's DeepseekV4Config default (512), as HF reads it (the shipped table)
    cfg = {k: v for k, v in V4_LEGACY.items() if k != "head_dim"}
    assert numeric.parse_rope_config(cfg, layer_type="main").head_dim == 512
    # a config that says no model type cannot take a class default: refused, naming the key
    bare = {k: v for k, v in cfg.items() if k != "model_type"}
    bare["compress_ratios"] = V4_LEGACY.get("compress_ratios")
    with pytest.raises(ValueError, match=r"missing the key 'head_dim'.*defaults head_dim to 512"):
        from pe_symbolic.numeric._families import _deepseek_v4_params

        _deepseek_v4_params(bare, "config['rope_scaling']", bare["rope_scaling"], False)


def test_deepseek_v4_keys_hf_does_not_use_are_named():
    cfg = dict(V4_LEGACY, rope_scaling=dict(V4_LEGACY["rope_scaling"], rope_theta=5000.0, mscale=1.0,
                                            mscale_all_dim=1.0))
    with pytest.warns(UnknownConfigKeyWarning, match=r"\['rope_theta'\]=5000.0 is not used.*160000"):
        spec = numeric.parse_rope_config(cfg, layer_type="compress")
    assert spec.ignored == ("mscale", "mscale_all_dim") and spec.attention_factor == 1.0
    nested = {"model_type": "deepseek_v4", "head_dim": 512, "compress_rope_theta": 320000, "rope_parameters": {
        "main": {"rope_type": "default", "rope_theta": 10000, "partial_rotary_factor": 0.125},
        "compress": {"rope_type": "default", "rope_theta": 160000, "partial_rotary_factor": 0.125}}}
    with pytest.warns(UnknownConfigKeyWarning, match=r"config\['compress_rope_theta'\]=320000 is not used"):
        assert numeric.parse_rope_config(nested, layer_type="compress").rope_theta == 160000.0
    # compress_rope_theta is read for DeepSeek-V4 only
    with pytest.warns(UnknownConfigKeyWarning, match=r"config\['compress_rope_theta'\]"):
        numeric.parse_rope_config({"head_dim": 64, "compress_rope_theta": 1e5})


def test_deepseek_v4_rotation_is_refused_by_config_and_names_the_way():
    x = np.zeros((2, 512))
    with pytest.raises(ValueError, match=r"LAST 64 channels.*x\[\.\.\., -64:\].*layout='interleaved'"):
        numeric.apply_rope(x, [0, 1], config=V4_LEGACY, layer_type="main")


def test_describe_deepseek_v4():
    d = numeric.describe(V4_LEGACY, quiet=True)
    assert [e.layer_type for e in d.layers] == ["main", "compress"]
    assert "LAST rotary_dim channels" in d.layout and "conjugate" in d.layout
    assert "DeepSeek-V4: layers 0-1,5 (sliding_attention) use 'main', layers 2-4 (compressed) 'compress'" in d.notes


def _hf_v4():
    pytest.importorskip("torch")
    return pytest.importorskip("transformers.models.deepseek_v4.modeling_deepseek_v4")


def test_deepseek_v4_matches_hf_config_and_rotary_embedding():
    mod = _hf_v4()
    import torch
    from transformers import DeepseekV4Config

    # HF's config class edits the dicts it is given: hand it a copy
    hf_cfg = DeepseekV4Config(**copy.deepcopy({k: v for k, v in V4_LEGACY.items() if k != "model_type"}))
    saved = hf_cfg.to_dict()
    emb = mod.DeepseekV4RotaryEmbedding(hf_cfg)
    for label in ("main", "compress"):
        ours = numeric.rope_frequencies(V4_LEGACY, layer_type=label)
        again = numeric.rope_frequencies(saved, layer_type=label)  # the config HF saves reads the same
        assert np.array_equal(ours.inv_freq, again.inv_freq) and ours.attention_factor == again.attention_factor
        hf = getattr(emb, f"{label}_inv_freq").to(torch.float64).numpy()
        assert float(np.max(np.abs(ours.inv_freq - hf) / hf)) < 2e-6  # HF's float32 buffers
        assert ours.attention_factor == getattr(emb, f"{label}_attention_scaling")


def test_deepseek_v4_trailing_rotation_and_its_conjugate_match_hf():
    """HF's V4 ``apply_rotary_pos_emb`` = interleaved RoPE on ``x[..., -rd:]``; with ``-sin``
    (the output's conjugate rotation) = the same at negated positions. HF rotates in float32
    (``rope.float()``), so agreement is to float32 rounding; a wrong channel, pairing or sign
    would be off by O(1)."""
    mod = _hf_v4()
    import torch

    cfg = dict(V4_LEGACY, head_dim=48, qk_rope_head_dim=16)
    rng = np.random.default_rng(4)
    x = rng.standard_normal((2, 3, 5, 48))  # (batch, heads, seq, head_dim)
    pos = np.array([[0, 1, 7, 300, 65537], [3, 4, 5, 6, 100000]])
    for label in ("main", "compress"):
        inv = numeric.rope_frequencies(cfg, layer_type=label).inv_freq
        ang = torch.tensor(pos, dtype=torch.float64)[..., None] * torch.tensor(inv)
        xt = torch.tensor(x)
        for sign in (1, -1):
            hf = mod.apply_rotary_pos_emb(xt, ang.cos(), sign * ang.sin()).numpy()
            ours = np.concatenate([x[..., :-16], numeric.apply_rope(x[..., -16:], inv_freq=inv, layout="interleaved",
                                                                    position_ids=sign * pos)], axis=-1)
            assert np.array_equal(ours[..., :-16], hf[..., :-16])
            assert np.max(np.abs(ours - hf)) < 4 * 2.0 ** -24 * np.max(np.abs(x))


def test_hf_saved_deepseek_v4_config_parses_without_warnings():
    _hf_v4()
    from transformers import DeepseekV4Config

    saved = DeepseekV4Config().to_dict()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        d = numeric.describe(saved, quiet=True)
    # HF's defaults make every layer compressed (two HCA layers, then CSA / HCA in turn): only the
    # 'compress' entry is read by a layer; 'main' is named as unused
    assert [(e.layer_type, e.spec.rope_theta) for e in d.layers] == [("compress", 160000.0)]
    assert any("['main'] is given, but no layer reads it" in n for n in d.notes)
    both = numeric.describe({**saved, "layer_types": ["sliding_attention"] + saved["layer_types"][1:]}, quiet=True)
    assert [(e.layer_type, e.spec.rope_theta) for e in both.layers] == [("main", 10000.0), ("compress", 160000.0)]


# ----------------------------------------------------------------------------------------
# Molmo2: rope_scaling_layers (scaled layers use the rope dict, the others the plain ladder)

MOLMO2 = {"model_type": "molmo2_text", "head_dim": 128, "num_hidden_layers": 4, "max_position_embeddings": 65536,
          "rope_parameters": {"rope_type": "yarn", "rope_theta": 1e6, "factor": 8.0,
                              "original_max_position_embeddings": 8192},
          "rope_scaling_layers": [1, 3]}


def test_molmo2_scaling_layers_pick_the_scaled_or_the_plain_ladder():
    scaled = _agree(MOLMO2, layer=1)
    plain = _agree(MOLMO2, layer=2)
    assert numeric.parse_rope_config(MOLMO2, layer=3, strict=True).rope_type == "yarn"
    assert numeric.parse_rope_config(MOLMO2, layer=0).rope_type == "default"
    assert plain.attention_factor == 1.0 and scaled.attention_factor > 1.0
    with pytest.raises(ValueError, match=r"scales only layers \[1, 3\].*layers \[0, 2\].*pass layer="):
        numeric.rope_frequencies(MOLMO2)
    with pytest.raises(ValueError, match=r"layer=4 must be < num_hidden_layers = 4"):
        numeric.rope_frequencies(MOLMO2, layer=4)
    d = numeric.describe(MOLMO2, quiet=True)
    assert [(e.label, e.spec.rope_type) for e in d.layers] == [("layers 0,2", "default"), ("layers 1,3", "yarn")]
    # every layer scaled: no layer= needed
    assert numeric.parse_rope_config(dict(MOLMO2, rope_scaling_layers=[0, 1, 2, 3])).rope_type == "yarn"
    # elsewhere the key is not read, and says so
    with pytest.warns(UnknownConfigKeyWarning, match=r"config\['rope_scaling_layers'\]"):
        numeric.parse_rope_config(dict(MOLMO2, model_type="llama"))


def test_molmo2_matches_hf_scaled_and_unscaled_rotary_embeddings():
    pytest.importorskip("torch")
    mod = pytest.importorskip("transformers.models.molmo2.modeling_molmo2")
    import torch
    from transformers.models.molmo2.configuration_molmo2 import Molmo2TextConfig

    hf_cfg = Molmo2TextConfig(**copy.deepcopy({k: v for k, v in MOLMO2.items() if k != "model_type"}))
    for scaled, layer in ((True, 1), (False, 0)):
        emb = mod.Molmo2RotaryEmbedding(hf_cfg, scaled=scaled)
        ours = numeric.rope_frequencies(MOLMO2, layer=layer)
        hf = emb.inv_freq.to(torch.float64).numpy()
        assert float(np.max(np.abs(ours.inv_freq - hf) / hf)) < 2e-6
        assert ours.attention_factor == pytest.approx(emb.attention_scaling, rel=1e-12)


# ----------------------------------------------------------------------------------------
# vLLM's DeepSeek names: its attention-factor rule, which HF's differs from with one mscale


@pytest.mark.parametrize("name", ["deepseek_yarn", "deepseek_llama_scaling"])
def test_vllm_deepseek_names_use_vllms_mscale_rule(name):
    base = {"qk_rope_head_dim": 64, "max_position_embeddings": 163840, "rope_theta": 10000}
    rope = {"type": name, "factor": 40, "original_max_position_embeddings": 4096, "mscale": 0.707}
    got = _agree({**base, "rope_scaling": rope})
    hf = numeric.rope_frequencies({**base, "rope_scaling": {**rope, "type": "yarn"}})
    assert np.array_equal(got.inv_freq, hf.inv_freq)
    assert got.attention_factor == pytest.approx(0.0707 * math.log(40) + 1, rel=1e-15)  # vLLM: m(s, 0.707) / 1
    assert hf.attention_factor == pytest.approx(0.1 * math.log(40) + 1, rel=1e-15)  # HF: one mscale is ignored
    both = {**rope, "mscale": 1.0, "mscale_all_dim": 1.0, "attn_factor": 1.5, "extrapolation_factor": 0.5}
    _agree({**base, "rope_scaling": both})
    with pytest.warns(UnknownConfigKeyWarning, match=rf"\['truncate'\]=False is not understood for rope_type '{name}'"):
        t = numeric.rope_frequencies({**base, "rope_scaling": {**rope, "truncate": False}})
    assert np.array_equal(t.inv_freq, got.inv_freq)  # not used: vLLM's class always truncates


# ----------------------------------------------------------------------------------------
# Llama 4: the NoPE layers' query temperature (not RoPE, computed as HF does)


def test_llama4_nope_query_scale_matches_hf_formula():
    cfg = numeric.model_config("llama-4-scout")
    pos = np.array([0, 1, 8190, 8191, 8192, 16383, 10 ** 6])
    got = numeric.llama4_nope_query_scale(cfg, pos)
    # HF Llama4TextAttention: log1p(floor((positions.float() + 1.0) / floor_scale)) * attn_scale + 1.0
    want = np.log1p(np.floor((pos + 1.0) / 8192)) * 0.1 + 1.0
    assert np.array_equal(got, want)
    text = cfg["text_config"]
    with pytest.raises(ValueError, match=r"attn_temperature_tuning'\]=False: the NoPE layers' queries are not scaled"):
        numeric.llama4_nope_query_scale(dict(text, attn_temperature_tuning=False), pos)
    with pytest.raises(ValueError, match=r"read for Llama 4 configs only"):
        numeric.llama4_nope_query_scale({"model_type": "llama"}, pos)
    with pytest.raises(ValueError, match=r"config\['floor_scale'\]=0 must be an integer >= 1"):
        numeric.llama4_nope_query_scale(dict(text, floor_scale=0), pos)
    with pytest.raises(ValueError, match=r"non-negative integers"):
        numeric.llama4_nope_query_scale(cfg, [-1])


# ----------------------------------------------------------------------------------------
# MiniMax-M3-VL's vision tower: axial RoPE with three axes (t, h, w)

MINIMAX_VISION = {"model_type": "minimax_m3_vl_vision", "hidden_size": 1280, "num_attention_heads": 16,
                  "rope_parameters": {"rope_theta": 10000.0, "rope_type": "axial"}}


@pytest.mark.parametrize("cfg", [MINIMAX_VISION, {k: v for k, v in MINIMAX_VISION.items() if k != "rope_parameters"},
                                 dict(MINIMAX_VISION, head_dim=64)])
def test_minimax_m3_vl_vision_is_a_three_axis_axial_ladder(cfg):
    spec = numeric.parse_rope_config(cfg, strict=True)
    head = spec.head_dim
    spatial = 2 * ((head // 3) // 2)
    assert (spec.rope_type, spec.freq_dim, spec.rotary_dim) == ("axial", spatial, 3 * spatial)
    got = _agree(cfg)
    assert got.inv_freq.shape == (spatial // 2,)
    d = numeric.describe(cfg, quiet=True)
    assert any("3 axes" in n for n in d.notes)
    with pytest.raises(ValueError, match="axial"):
        numeric.apply_rope(np.zeros((2, head)), [0, 1], config=cfg)


def test_minimax_m3_vl_vision_matches_hf():
    pytest.importorskip("torch")
    mod = pytest.importorskip("transformers.models.minimax_m3_vl.modeling_minimax_m3_vl")
    import torch
    from transformers.models.minimax_m3_vl.configuration_minimax_m3_vl import MiniMaxM3VLVisionConfig

    hf_cfg = MiniMaxM3VLVisionConfig()
    emb = mod.MiniMaxM3VLVisionRotaryEmbedding(hf_cfg)
    ours = numeric.rope_frequencies(hf_cfg.to_dict())
    hf = emb.inv_freq.to(torch.float64).numpy()
    assert ours.inv_freq.shape == hf.shape and float(np.max(np.abs(ours.inv_freq - hf) / hf)) < 2e-6
    # the rotated width: HF's cos table has 3 * spatial channels (t, h, w, then duplicated)
    cos, _ = emb(torch.zeros(1), torch.zeros((5, 3), dtype=torch.long))
    assert cos.shape[-1] == numeric.parse_rope_config(hf_cfg.to_dict()).rotary_dim
