"""Issue 23: no config key ever ignored, and the RoPE variants shipped configs ask for.

Every computed result is checked against the independent oracle
(:func:`pe_symbolic.reference.rope_frequencies`, written from the published formulas and
HF transformers 5.23's code) to within 1 ulp of float64, and against the closed form the
model's code states where there is one.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

from pe_symbolic import numeric, reference
from pe_symbolic.numeric.config import UnknownConfigKeyError, UnknownConfigKeyWarning


def _ulps(a: np.ndarray, b: np.ndarray) -> float:
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    return float(np.max(np.abs(a - b) / np.spacing(np.maximum(np.abs(a), np.abs(b))), initial=0.0))


def _oracle(cfg, **kw):
    inv, af = reference.rope_frequencies(cfg, **kw)
    return reference.to_float(inv), float(af)


def _agree(cfg, **kw):
    got = numeric.rope_frequencies(cfg, **kw)
    inv, af = _oracle(cfg, **kw)
    assert got.inv_freq.shape == inv.shape
    assert _ulps(got.inv_freq, inv) <= 1.0
    assert _ulps(np.array([got.attention_factor]), np.array([af])) <= 1.0
    return got


# ----------------------------------------------------------------------------------------
# unknown keys: a warning naming the key and the rope type, an error under strict=True

TYPO = {"head_dim": 64, "rope_theta": 10000.0, "max_position_embeddings": 8192,
        "rope_scaling": {"rope_type": "yarn", "factor": 4.0, "beta_fsat": 16}}


def test_unknown_rope_key_warns_naming_key_and_type():
    with pytest.warns(UnknownConfigKeyWarning, match=r"\['beta_fsat'\]=16 is not understood for rope_type 'yarn'"):
        numeric.rope_frequencies(TYPO)


def test_unknown_rope_key_raises_under_strict():
    with pytest.raises(UnknownConfigKeyError, match=r"\['beta_fsat'\]=16 is not understood for rope_type 'yarn'"):
        numeric.rope_frequencies(TYPO, strict=True)
    assert issubclass(UnknownConfigKeyError, ValueError) and issubclass(UnknownConfigKeyWarning, UserWarning)


def test_a_key_of_another_type_is_not_understood():
    cfg = {"head_dim": 64, "rope_parameters": {"rope_type": "linear", "factor": 2.0, "low_freq_factor": 1.0}}
    with pytest.warns(UnknownConfigKeyWarning, match=r"'low_freq_factor'.* rope_type 'linear'"):
        numeric.parse_rope_config(cfg)


def test_unknown_top_level_rope_key_warns():
    cfg = {"head_dim": 64, "rope_theta": 10000.0, "rotary_emb_interleaved": True}
    with pytest.warns(UnknownConfigKeyWarning, match=r"config\['rotary_emb_interleaved'\]=True is not understood"):
        numeric.parse_rope_config(cfg)
    with pytest.raises(UnknownConfigKeyError):
        numeric.parse_rope_config(cfg, strict=True)


@pytest.mark.parametrize("key, value", [
    ("use_dynamic_ntk", True),           # Qwen-1 (remote code): its own dynamic NTK
    ("use_logn_attn", True),             # Qwen-1: log-n attention scaling
    ("alibi", True),                     # Falcon-RW: ALiBi instead of RoPE
    ("position_embedding_type", "absolute"),  # learned positions, no RoPE
    ("yarn_factor", 4.0),
])
def test_a_set_key_of_another_position_scheme_warns_naming_it(key, value):
    cfg = {"head_dim": 64, "rope_theta": 10000.0, key: value}
    with pytest.warns(UnknownConfigKeyWarning, match=rf"config\['{key}'\]={value!r} names a position scheme"):
        numeric.parse_rope_config(cfg)
    with pytest.raises(UnknownConfigKeyError, match=key):
        numeric.parse_rope_config(cfg, strict=True)


@pytest.mark.parametrize("model_type", ["chatglm", "qwen", "baichuan"])
def test_remote_code_model_types_whose_rope_differs_warn(model_type):
    # ChatGLM3-6B's config says nothing about its interleaved half-head RoPE: only the type does
    cfg = {"model_type": model_type, "hidden_size": 4096, "num_attention_heads": 32, "kv_channels": 128}
    with pytest.warns(UnknownConfigKeyWarning, match=rf"config\['model_type'\]='{model_type}' is not a transformers"):
        numeric.parse_rope_config(cfg)
    with pytest.raises(UnknownConfigKeyError):
        numeric.parse_rope_config(cfg, strict=True)


def test_mpt_attn_config_alibi_warns_one_level_down():
    cfg = {"head_dim": 64, "rope_theta": 10000.0, "attn_config": {"alibi": True, "attn_pdrop": 0.0}}
    with pytest.warns(UnknownConfigKeyWarning, match=r"config\['attn_config'\]\['alibi'\]=True"):
        numeric.parse_rope_config(cfg)


@pytest.mark.parametrize("key, value", [("use_dynamic_ntk", False), ("alibi", False), ("alibi", None),
                                        ("position_embedding_type", "rotary"), ("use_logn_attn", 0)])
def test_another_scheme_switched_off_or_rope_itself_is_silent(key, value):
    cfg = {"head_dim": 64, "rope_theta": 10000.0, key: value, "attn_config": {"alibi": False}}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        numeric.parse_rope_config(cfg, strict=True)


def test_unknown_key_in_a_per_layer_entry_names_the_layer():
    cfg = {"head_dim": 64, "rope_parameters": {
        "full_attention": {"rope_type": "default", "rope_theta": 1e6, "scaling": 2},
        "sliding_attention": {"rope_type": "default", "rope_theta": 1e4}}}
    with pytest.warns(UnknownConfigKeyWarning, match=r"\['full_attention'\]\['scaling'\]=2"):
        numeric.parse_rope_config(cfg, layer_type="full_attention")


@pytest.mark.parametrize("name", sorted(numeric.model_configs()))
def test_every_shipped_config_parses_without_unknown_keys(name):
    cfg = numeric.model_config(name)
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*no blended band", category=UserWarning)  # Llama 4 Scout
        for lt in numeric.describe(cfg, quiet=True, strict=True).layer_types_with_rope():
            spec = numeric.parse_rope_config(cfg, layer_type=lt, strict=True)
            _agree(spec and cfg, layer_type=lt)


def test_strict_must_be_a_bool():
    with pytest.raises(TypeError, match=r"strict='yes' must be True or False"):
        numeric.parse_rope_config({"head_dim": 64}, strict="yes")  # type: ignore[arg-type]


# ----------------------------------------------------------------------------------------
# the three silent wrong answers

HUNYUAN = {"head_dim": 128, "hidden_size": 2048, "num_attention_heads": 16, "rope_theta": 10000.0,
           "max_position_embeddings": 32768,
           "rope_scaling": {"type": "dynamic", "alpha": 1000.0, "factor": 1.0, "mscale": 1.0}}


def test_hunyuan_alpha_stretches_the_base():
    """HF's ntk_alpha: base = rope_theta * alpha ** (dim / (dim - 2)), static in seq_len."""
    got = _agree(HUNYUAN)
    d = 128
    base = mpmath_base = 10000.0 * 1000.0 ** (d / (d - 2))
    closed = base ** -(np.arange(0, d, 2) / d)
    assert np.allclose(got.inv_freq, closed, rtol=1e-13, atol=0)
    assert mpmath_base > 1e7 and got.attention_factor == 1.0
    # not the plain ladder any more, and the same at any length
    assert got.inv_freq[1] != numeric.rope_frequencies({"head_dim": 128}).inv_freq[1]
    assert np.array_equal(numeric.rope_frequencies(HUNYUAN, seq_len=10 ** 6).inv_freq, got.inv_freq)
    assert numeric.parse_rope_config(HUNYUAN).ignored == ("factor", "mscale")


PHIMOE_F = [1.0 + 0.01 * (i % 7) for i in range(64)]
PHIMOE = {"hidden_size": 4096, "num_attention_heads": 32, "rope_theta": 10000.0, "max_position_embeddings": 131072,
          "rope_scaling": {"type": "longrope", "short_factor": PHIMOE_F, "long_factor": PHIMOE_F[::-1],
                           "short_mscale": 1.243163121016122, "long_mscale": 1.243163121016122,
                           "original_max_position_embeddings": 4096}}


def test_phimoe_mscale_is_the_attention_factor():
    """PhimoeRotaryEmbedding.forward multiplies cos/sin by short_mscale/long_mscale."""
    plain = math.sqrt(1 + math.log(32) / math.log(4096))
    assert round(plain, 3) == 1.190
    for seq_len in (None, 4096, 4097):
        got = _agree(PHIMOE, seq_len=seq_len)
        assert got.attention_factor == 1.243163121016122
    cfg = {**PHIMOE, "rope_scaling": {**PHIMOE["rope_scaling"], "long_mscale": 1.5}}
    assert _agree(cfg, seq_len=5000).attention_factor == 1.5
    assert _agree(cfg, seq_len=4000).attention_factor == 1.243163121016122


def test_phimoe_needs_both_mscales():
    cfg = {**PHIMOE, "rope_scaling": {k: v for k, v in PHIMOE["rope_scaling"].items() if k != "long_mscale"}}
    with pytest.raises(ValueError, match="only one of 'short_mscale' and 'long_mscale'"):
        numeric.parse_rope_config(cfg)


MINISTRAL3 = {"head_dim": 128, "hidden_size": 5120, "num_attention_heads": 32, "max_position_embeddings": 262144,
              "rope_parameters": {"rope_type": "yarn", "rope_theta": 1000000000.0, "factor": 16.0,
                                  "original_max_position_embeddings": 16384, "beta_fast": 32.0, "beta_slow": 1.0,
                                  "mscale": 1.0, "mscale_all_dim": 1.0, "llama_4_scaling_beta": 0.1}}


def test_llama_4_scaling_beta_is_read_and_its_query_scale_given():
    spec = numeric.parse_rope_config(MINISTRAL3, strict=True)
    assert spec.llama_4_scaling_beta == 0.1
    _agree(MINISTRAL3)
    pos = np.array([0, 16383, 16384, 50000, 262143])
    want = 1 + 0.1 * np.log(1 + np.floor(pos / 16384))  # HF's get_llama_4_attn_scale
    assert np.array_equal(numeric.llama4_query_scale(MINISTRAL3, pos), want)
    with pytest.raises(ValueError, match="no 'llama_4_scaling_beta'"):
        numeric.llama4_query_scale({"head_dim": 64}, [0])


# ----------------------------------------------------------------------------------------
# what HF accepts and we used to refuse

SCOUT = {"head_dim": 128, "hidden_size": 5120, "num_attention_heads": 40, "rope_theta": 500000.0,
         "max_position_embeddings": 10485760,
         "rope_scaling": {"rope_type": "llama3", "factor": 16.0, "low_freq_factor": 1.0, "high_freq_factor": 1.0,
                          "original_max_position_embeddings": 8192}}


def test_llama3_equal_band_factors_warn_and_step():
    with pytest.warns(UserWarning, match="no blended band"):
        got = _agree(SCOUT)
    theta = 500000.0 ** -(np.arange(0, 128, 2) / 128)
    long_wave = 2 * np.pi / theta > 8192
    assert long_wave.any() and (~long_wave).any()
    assert np.allclose(got.inv_freq, np.where(long_wave, theta / 16, theta), rtol=1e-14, atol=0)


def test_axial_pixtral_is_the_default_ladder_even_then_odd():
    cfg = {"model_type": "pixtral", "head_dim": 64, "rope_parameters": {"rope_type": "axial", "rope_theta": 10000.0}}
    got = _agree(cfg)
    ladder = numeric.rope_frequencies({"head_dim": 64}).inv_freq
    assert np.array_equal(got.inv_freq, np.concatenate([ladder[0::2], ladder[1::2]]))
    # HF's default_rope_type: a Pixtral vision config without a rope type is axial too
    plain = {"model_type": "pixtral", "head_dim": 64, "rope_theta": 10000.0}
    assert numeric.parse_rope_config(plain).rope_type == "axial"
    assert np.array_equal(_agree(plain).inv_freq, got.inv_freq)


@pytest.mark.parametrize("model_type", [None, "qwen2_vl_vision", "glm4v_vision"])
def test_axial_spatial_ladder_over_half_the_head(model_type):
    """Qwen2-VL / GLM-4V / Gemma 4 vision: base ** -(arange(0, D/2, 2) / (D/2)), D/4 entries."""
    cfg = {"head_dim": 80, "rope_theta": 10000.0}
    if model_type is None:
        cfg["rope_parameters"] = {"rope_type": "axial"}
    else:
        cfg["model_type"] = model_type
    got = _agree(cfg)
    want = 10000.0 ** -(np.arange(0, 40, 2) / 40)
    assert got.inv_freq.shape == (20,) and np.allclose(got.inv_freq, want, rtol=1e-14, atol=0)
    with pytest.raises(ValueError, match="'axial'.*'mrope_section'"):
        numeric.parse_rope_config({"head_dim": 64, "rope_parameters": {"rope_type": "axial",
                                                                       "mrope_section": [16, 8, 8]}})


@pytest.mark.parametrize("head,frac", [(40, 0.375), (80, 0.4125), (128, 0.39)])
def test_odd_partial_rotary_dim_matches_the_oracle(head, frac):
    cfg = {"head_dim": head, "partial_rotary_factor": frac, "rope_theta": 10000.0}
    got = _agree(cfg)
    dim = int(head * frac)
    assert dim % 2 and got.inv_freq.shape == ((dim + 1) // 2,)


def test_engine_name_deepseek_yarn_is_yarn():
    rope = {"factor": 40, "original_max_position_embeddings": 4096, "mscale": 1.0, "mscale_all_dim": 1.0}
    base = {"qk_rope_head_dim": 64, "max_position_embeddings": 163840, "rope_theta": 10000}
    a = _agree({**base, "rope_scaling": {**rope, "type": "deepseek_yarn"}})
    b = numeric.rope_frequencies({**base, "rope_scaling": {**rope, "type": "yarn"}})
    assert np.array_equal(a.inv_freq, b.inv_freq) and a.attention_factor == b.attention_factor


def test_gpt_j_rotary_dim_is_read():
    cfg = {"n_embd": 4096, "n_head": 16, "head_dim": 256, "rotary_dim": 64, "rope_theta": 10000.0}
    spec = numeric.parse_rope_config(cfg, strict=True)
    assert spec.rotary_dim == 64
    _agree(cfg)


def test_null_layer_type_is_nope():
    cfg = {"head_dim": 64, "layer_types": ["sliding_attention", "full_attention"], "rope_parameters": {
        "sliding_attention": {"rope_type": "default", "rope_theta": 1e4}, "full_attention": None}}
    _agree(cfg, layer_type="sliding_attention")
    with pytest.raises(ValueError, match="have no RoPE \\(NoPE\\)"):
        numeric.rope_frequencies(cfg, layer_type="full_attention")


def test_known_configs_stay_silent():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for name in ("llama-3.1-8b", "deepseek-v3", "qwen2-vl-7b", "phi-3.5-mini", "gpt-neox-20b"):
            numeric.parse_rope_config(numeric.model_config(name))


def test_pe_audit_strict_refuses_an_unknown_key(tmp_path, capsys):
    from pe_symbolic.cli.audit import main

    path = tmp_path / "config.json"
    path.write_text('{"head_dim": 64, "rope_theta": 10000.0, "max_position_embeddings": 4096, '
                    '"rope_scaling": {"rope_type": "linear", "factor": 2.0, "scale": 3}}')
    assert main([str(path), "--strict", "--context", "64"]) == 2
    assert "['scale']=3 is not understood for rope_type 'linear'" in capsys.readouterr().err


HUNYUAN_VL = {"head_dim": 128, "hidden_size": 1024, "num_attention_heads": 16, "rope_theta": 10000.0,
              "max_position_embeddings": 32768,
              "rope_scaling": {"alpha": 1000.0, "beta_fast": 32, "beta_slow": 1, "factor": 1.0, "mscale": 1.0,
                               "mscale_all_dim": 1.0, "type": "xdrope", "xdrope_section": [16, 16, 16, 16]}}


def test_xdrope_is_ntk_alpha_with_four_axes():
    """HunYuanVLTextConfig: 'xdrope' is read as dynamic + alpha (ntk_alpha), xdrope_section as mrope_section."""
    spec = numeric.parse_rope_config(HUNYUAN_VL, strict=True)
    assert spec.rope_type == "dynamic" and spec.alpha == 1000.0 and spec.xdrope_section == (16, 16, 16, 16)
    got = _agree(HUNYUAN_VL)
    assert np.array_equal(got.inv_freq, numeric.rope_frequencies(HUNYUAN).inv_freq)
    bad = {**HUNYUAN_VL, "rope_scaling": {**HUNYUAN_VL["rope_scaling"], "xdrope_section": [16, 16, 16, 8]}}
    with pytest.raises(ValueError, match=r"sums to 56; it must sum to rotary_dim/2 = 64"):
        numeric.parse_rope_config(bad)
    with pytest.raises(ValueError, match="4-axis M-RoPE"):
        numeric.apply_rope(np.ones((2, 128)), np.arange(2.0), config=HUNYUAN_VL)


def test_axial_config_rotates_pixtral_and_refuses_the_model_specific_placements():
    """Pixtral's placement is read (positions (row, col)); the other axial vision configs place
    their frequencies in model code that differs between models: refused, saying so."""
    pix = numeric.model_config("pixtral-12b-vision")
    with pytest.raises(ValueError, match=r"axial \(2-D\) positions need a leading axis of 2 \(row, col\)"):
        numeric.apply_rope(np.ones((3, 64)), np.arange(3.0), config=pix)
    assert numeric.apply_rope(np.ones((2, 64)), np.array([[0.0, 1.0], [2.0, 3.0]]), config=pix).shape == (2, 64)
    with pytest.raises(ValueError, match="2-D vision RoPE.*differs between models"):
        numeric.apply_rope(np.ones((2, 80)), np.arange(2.0),
                           config={"model_type": "qwen2_vl_vision", "head_dim": 80, "rope_theta": 10000.0})


# ----------------------------------------------------------------------------------------
# describe: what the parser understood, per layer


def test_describe_nope_layers():
    smol = {"model_type": "smollm3", "head_dim": 128, "num_hidden_layers": 8, "rope_theta": 5e6,
            "no_rope_layers": [1, 1, 1, 0, 1, 1, 1, 0]}
    assert numeric.describe(smol, quiet=True).nope_layers == (3, 7)
    cohere = {"model_type": "cohere2", "head_dim": 128, "num_hidden_layers": 4, "rope_theta": 50000.0,
              "layer_types": ["sliding_attention", "sliding_attention", "sliding_attention", "full_attention"]}
    d = numeric.describe(cohere, quiet=True)
    assert d.nope_layers == (3,) and "Cohere2" in str(d)
    nulls = {"head_dim": 64, "num_hidden_layers": 3, "layer_types": ["sliding_attention", "full_attention",
                                                                     "sliding_attention"],
             "rope_parameters": {"sliding_attention": {"rope_type": "default", "rope_theta": 1e4},
                                 "full_attention": None}}
    d = numeric.describe(nulls, quiet=True)
    assert d.nope_layers == (1,) and d.layer_types_with_rope() == ["sliding_attention"]
    assert "none (NoPE)" in str(d)


def test_describe_reports_what_was_read():
    with pytest.warns(UserWarning, match="no blended band"):
        d = numeric.describe(numeric.model_config("llama-4-scout"), quiet=True)
    assert d.nope_layers == tuple(range(3, 48, 4)) and "interleaved" in d.layout
    d = numeric.describe(numeric.model_config("deepseek-v3"), quiet=True)
    assert d.layout.startswith("interleaved in, split out")
    d = numeric.describe(numeric.model_config("hunyuan-mt2-1.8b"), quiet=True)
    (e,) = d.layers
    assert e.spec.alpha == 1000.0 and e.effective_base == pytest.approx(10000 * 1000 ** (128 / 126), rel=1e-15)
    assert "ignored as HF does: factor, mscale" in str(d)
    with pytest.warns(UnknownConfigKeyWarning):
        numeric.describe(TYPO, quiet=True)
    with pytest.raises(UnknownConfigKeyError):
        numeric.describe(TYPO, quiet=True, strict=True)


GRANITE_SWA = {"model_type": "granite_swa", "head_dim": 64, "rope_theta": 1e4, "num_hidden_layers": 5,
               "layer_rope_theta": [1e4, 0, 5e5, 1e4, 1e4]}


def test_layer_rope_theta_per_layer_bases_and_nope():
    """GraniteSWAModel: one rotary embedding per non-zero theta, layer_rope_theta[i] == 0 is NoPE."""
    assert np.array_equal(_agree(GRANITE_SWA, layer=2).inv_freq,
                          numeric.rope_frequencies({"head_dim": 64, "rope_theta": 5e5}).inv_freq)
    _agree(GRANITE_SWA, layer=0)
    with pytest.raises(ValueError, match=r"different bases \[10000.0, 500000.0\].*pass layer="):
        numeric.rope_frequencies(GRANITE_SWA)
    with pytest.raises(ValueError, match=r"layer 1 has no RoPE \(NoPE\)"):
        numeric.rope_frequencies(GRANITE_SWA, layer=1)
    d = numeric.describe(GRANITE_SWA, quiet=True)
    assert d.nope_layers == (1,) and [e.layers for e in d.layers] == [(0, 3, 4), (2,)]
    # MuseSpark: the entries only mark NoPE layers; every RoPE layer uses the global base
    muse = {"model_type": "muse_spark_text", "head_dim": 64, "rope_theta": 5e5, "layer_rope_theta": [5e5, 0, 1e4]}
    assert numeric.rope_frequencies(muse, layer=2).inv_freq[1] == numeric.rope_frequencies(muse).inv_freq[1]
    assert numeric.describe(muse, quiet=True).nope_layers == (1,)


def test_head_dim_as_hf_reads_it():
    # Mistral 4: HF keeps head_dim = nope + rope = 128 and rotates head_dim * partial_rotary_factor
    mistral4 = {"model_type": "mistral4", "hidden_size": 4096, "num_attention_heads": 32, "head_dim": 128,
                "qk_rope_head_dim": 64, "qk_nope_head_dim": 64, "max_position_embeddings": 1048576,
                "rope_parameters": {"type": "yarn", "rope_theta": 10000.0, "factor": 128.0,
                                    "original_max_position_embeddings": 8192, "partial_rotary_factor": 0.5,
                                    "mscale": 1.0, "mscale_all_dim": 1.0, "llama_4_scaling_beta": 0.1}}
    assert numeric.parse_rope_config(mistral4, strict=True).rotary_dim == 64
    _agree(mistral4)
    # DeepSeek-V3: HF sets head_dim = qk_rope_head_dim, whatever head_dim says
    ds = {"model_type": "deepseek_v3", "head_dim": 128, "qk_rope_head_dim": 64, "rope_theta": 1e4,
          "rope_parameters": {"rope_type": "default", "partial_rotary_factor": 1.0}}
    assert numeric.parse_rope_config(ds).rotary_dim == 64
    # JetMoE: HF's attribute_map reads head_dim from kv_channels
    jet = {"model_type": "jetmoe", "hidden_size": 2048, "num_attention_heads": 32, "kv_channels": 128,
           "rope_parameters": {"rope_type": "default", "rope_theta": 1e4}}
    assert numeric.parse_rope_config(jet, strict=True).head_dim == 128
    _agree(jet)
    with pytest.warns(UnknownConfigKeyWarning, match=r"\['kv_channels'\]=128 may be the head dim"):
        numeric.parse_rope_config({**jet, "model_type": "other"})
    # MiniMax-M3-VL text: HF's rotary ignores rotary_dim and rotates the whole head
    mm = {"model_type": "minimax_m3_vl_text", "head_dim": 128, "rotary_dim": 64, "rope_theta": 5e6}
    with pytest.warns(UnknownConfigKeyWarning, match=r"\['rotary_dim'\]=64 is not read by HF"):
        assert numeric.parse_rope_config(mm).rotary_dim == 128
