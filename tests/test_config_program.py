"""Issue 41: a config reads into one RoPE program -- every layer's and sub-module's rotation, or its NoPE.

The program (:func:`pe_symbolic.numeric.read_program`) is what :func:`describe`,
:func:`rope_frequencies` and :func:`parse_rope_config` read. Each family below is checked
against what HF's code does (transformers 5.25, cited in ``pe_symbolic/numeric/_sites.py`` and
``_families.py``); where transformers is installed, against HF's own config class and rotary
embedding too. Configs marked "published shape" carry the RoPE fields the model's published
``config.json`` carries (other fields left out).
"""

from __future__ import annotations

import dataclasses
import warnings

import numpy as np
import pytest

from pe_symbolic import numeric, reference
from pe_symbolic.numeric import UnknownConfigKeyWarning, read_program

# ---------------------------------------------------------------------------------- configs

#: Nemotron-3-Nano (published shape): 52 layers, 6 of them attention, a rope_theta HF never reads.
NEMOTRON3_NANO = {
    "model_type": "nemotron_h", "hidden_size": 2688, "num_hidden_layers": 52, "num_attention_heads": 32,
    "num_key_value_heads": 2, "head_dim": 128, "max_position_embeddings": 262144, "rope_theta": 10000,
    "hybrid_override_pattern": "MEMEM*EMEMEM*EMEMEM*EMEMEM*EMEMEM*EMEMEMEM*EMEMEMEME",
}
#: DeepSeek-V4-Flash (published shape, V3-style legacy names).
DSV4_FLASH = {
    "model_type": "deepseek_v4", "hidden_size": 4096, "num_attention_heads": 64, "head_dim": 512,
    "qk_rope_head_dim": 64, "max_position_embeddings": 1048576, "rope_theta": 10000, "compress_rope_theta": 160000,
    "num_hidden_layers": 43, "compress_ratios": [0, 0] + [4, 128] * 20 + [4], "index_head_dim": 128,
    "num_nextn_predict_layers": 1,
    "rope_scaling": {"type": "yarn", "factor": 16, "original_max_position_embeddings": 65536, "beta_fast": 32,
                     "beta_slow": 1},
}
_STEP_TYPES = ((["full_attention"] + ["sliding_attention"] * 3) * 12)[:45] + ["full_attention"] * 3
#: Step-3.7-Flash (published shape): per-layer lists padded with 3 MTP layers, llama3 scaling on
#: the full-attention layers.
STEP3P7_FLASH = {
    "model_type": "step3p7", "text_config": {
        "model_type": "step3p5", "hidden_size": 4096, "num_hidden_layers": 45, "num_nextn_predict_layers": 3,
        "num_attention_heads": 64, "head_dim": 128, "max_position_embeddings": 262144, "sliding_window": 512,
        "layer_types": _STEP_TYPES,
        "rope_theta": [5000000.0 if t == "full_attention" else 10000.0 for t in _STEP_TYPES],
        "partial_rotary_factors": [0.5 if t == "full_attention" else 1.0 for t in _STEP_TYPES],
        "rope_scaling": {"rope_type": "llama3", "factor": 2.0, "original_max_position_embeddings": 131072,
                         "low_freq_factor": 1.0, "high_freq_factor": 32.0},
        "yarn_only_types": ["full_attention"]}}
#: Qwen3.5 (published shape) with YaRN for 1M positions: YaRN x M-RoPE x partial 0.25.
QWEN3_5_YARN = {
    "model_type": "qwen3_5", "text_config": {
        "model_type": "qwen3_5_text", "hidden_size": 5120, "num_hidden_layers": 64, "num_attention_heads": 24,
        "num_key_value_heads": 4, "head_dim": 256, "max_position_embeddings": 1010000, "full_attention_interval": 4,
        "rope_parameters": {"rope_type": "yarn", "rope_theta": 10000000, "partial_rotary_factor": 0.25,
                            "factor": 4.0, "original_max_position_embeddings": 262144,
                            "mrope_section": [11, 11, 10], "mrope_interleaved": True}}}


def test_the_program_is_immutable_and_one_description():
    prog = read_program(numeric.model_config("llama-3.1-8b"))
    site = prog.at(0)
    with pytest.raises(dataclasses.FrozenInstanceError):
        site.nope = "x"  # type: ignore[misc]
    assert (site.module, site.angles.rope_type, site.slice.start, site.slice.pairing) == ("attention", "llama3", 0,
                                                                                         "split")
    # describe and rope_frequencies read the same sites
    d = numeric.describe(numeric.model_config("llama-3.1-8b"))
    assert d.program is not None and d.layers[0].spec == site.spec
    assert numeric.rope_frequencies(numeric.model_config("llama-3.1-8b")).attention_factor == site.attention.value


# ---------------------------------------------------------------------------------- NoPE


def test_a_model_whose_hf_attention_applies_no_rotary_is_nope_whatever_keys_it_carries():
    prog = read_program(NEMOTRON3_NANO)
    assert prog.nope_layers() == (5, 12, 19, 26, 33, 42)
    assert all(not s.rotates for s in prog.attention())
    with pytest.raises(ValueError, match=r"no RoPE \(NoPE\): HF's model for model_type 'nemotron_h'"):
        numeric.rope_frequencies(NEMOTRON3_NANO)
    d = numeric.describe(NEMOTRON3_NANO)
    assert d.nope_layers == (5, 12, 19, 26, 33, 42) and d.layout.startswith("none")
    assert "none (NoPE)" in str(d) and "base" not in str(d).split("\n")[1]
    for mt in ("jamba", "kimi_linear"):
        with pytest.raises(ValueError, match="NoPE"):
            numeric.parse_rope_config({"model_type": mt, "rope_theta": 10000.0, "head_dim": 64})


def test_exaone4_skips_rope_on_full_attention_layers_when_sliding_window_is_set():
    sparse = {"model_type": "exaone4", "num_hidden_layers": 8}  # HF's default sliding_window 4096
    assert read_program(sparse).nope_layers() == (3, 7)
    assert read_program({**sparse, "sliding_window": None}).nope_layers() == ()
    with pytest.raises(ValueError, match=r"layer 3 has no RoPE \(NoPE\)"):
        numeric.rope_frequencies(sparse, layer=3)
    assert numeric.rope_frequencies(sparse, layer=2).inv_freq.shape == (64,)
    for mt in ("exaone_moe", "kolibri1"):
        assert read_program({"model_type": mt, "num_hidden_layers": 8}).nope_layers()


def test_cohere2_moe_rotates_its_forced_dense_layers():
    lt = ["sliding_attention", "full_attention", "full_attention"]
    cfg = {"model_type": "cohere2_moe", "num_hidden_layers": 3, "layer_types": lt, "head_dim": 64,
           "sliding_window": 128, "mlp_layer_types": ["dense", "dense", "sparse"],
           "prefix_dense_sliding_window_pattern": 1}
    assert read_program(cfg).nope_layers() == (2,)  # layer 1: force_rope (a dense layer, pattern 1)
    assert read_program({**cfg, "prefix_dense_sliding_window_pattern": 4}).nope_layers() == (1, 2)


def test_sparse_configs_take_the_class_default_nope_layers():
    # SmolLM3: no_rope_layers = every 4th layer NoPE (no_rope_layer_interval)
    assert read_program({"model_type": "smollm3", "num_hidden_layers": 8}).nope_layers() == (3, 7)
    assert read_program({"model_type": "smollm3", "num_hidden_layers": 6,
                         "no_rope_layer_interval": 3}).nope_layers() == (2, 5)
    # MuseSpark: layer_rope_theta zeros counted from the last layer
    assert read_program({"model_type": "muse_spark_text", "num_hidden_layers": 9}).nope_layers() == (0, 4, 8)
    # Mistral-Large-4: no_rope_layers default
    assert read_program({"model_type": "mistral_large4_text", "num_hidden_layers": 8}).nope_layers() == (3, 7)


def test_glm5_next_text_is_nope():
    with pytest.raises(ValueError, match="GLM-5.3's DSA attention is NoPE"):
        numeric.rope_frequencies({"model_type": "glm5_next_text"})
    prog = read_program({"model_type": "glm5_next", "text_config": {"num_hidden_layers": 4}})
    assert prog.nope_layers() == (3,) and prog.unrotated_layers() == (0, 1, 2, 3)  # 0-2: linear attention


def test_linear_attention_layers_are_not_rotated():
    prog = read_program({"model_type": "qwen3_5_text", "num_hidden_layers": 8})
    assert prog.unrotated_layers() == (0, 1, 2, 4, 5, 6) and prog.nope_layers() == ()
    assert all("linear_attention" in s.nope for s in prog.attention() if s.nope)


# ---------------------------------------------------------------------------------- families


def test_laguna_per_type_dicts_with_a_scalar_sibling_are_read_as_hf_reads_them():
    cfg = {"model_type": "laguna", "head_dim": 128, "num_hidden_layers": 4, "max_position_embeddings": 131072,
           "layer_types": ["full_attention", "sliding_attention", "sliding_attention", "sliding_attention"],
           "rope_parameters": {
               "full_attention": {"rope_type": "yarn", "rope_theta": 500000.0, "factor": 32.0,
                                  "original_max_position_embeddings": 4096, "partial_rotary_factor": 0.5},
               "sliding_attention": {"rope_type": "default", "rope_theta": 10000.0},
               "original_max_position_embeddings": 4096, "truncate": False}}
    full = numeric.parse_rope_config(cfg, layer_type="full_attention")
    assert (full.rope_type, full.rotary_dim, full.truncate) == ("yarn", 64, False)  # truncate: YaRN reads the top
    sliding = numeric.parse_rope_config(cfg, layer_type="sliding_attention")
    assert sliding.rotary_dim == 128 and "original_max_position_embeddings" in sliding.ignored
    # the oracle reads per-layer-type dicts without siblings: HF reads none of them here
    plain = {**cfg, "rope_parameters": {k: v for k, v in cfg["rope_parameters"].items() if isinstance(v, dict)}}
    want, _ = reference.rope_frequencies(plain, layer_type="sliding_attention")
    assert np.allclose(numeric.rope_frequencies(cfg, layer_type="sliding_attention").inv_freq,
                       [float(v) for v in want], rtol=1e-15)


def test_step3p7_per_layer_lists_are_collapsed_per_type_and_disagreement_warns():
    prog = read_program(STEP3P7_FLASH)
    full, sliding = prog.at(0), prog.at(1)
    assert (full.angles.rope_type, full.angles.base, full.slice.rotary_dim) == ("llama3", 5e6, 64)
    assert (sliding.angles.rope_type, sliding.angles.base, sliding.slice.rotary_dim) == ("default", 1e4, 128)
    drafts = [s for s in prog.sites if s.module == "draft"]
    assert [s.layers for s in drafts] == [(45,), (46,), (47,)]
    assert drafts[0].angles.base == 5e6 and drafts[0].slice.rotary_dim == 64
    bad = {**STEP3P7_FLASH["text_config"]}
    bad["rope_theta"] = list(bad["rope_theta"])
    bad["rope_theta"][4] = 7e6  # another full_attention layer with another base
    with pytest.warns(UserWarning, match=r"gives the 'full_attention' layers different values"):
        got = numeric.parse_rope_config(bad, layer_type="full_attention")
    assert got.rope_theta == 5e6  # HF takes the first layer of the type
    with pytest.warns(UnknownConfigKeyWarning, match="yarn_only_types"):
        numeric.parse_rope_config({**STEP3P7_FLASH["text_config"], "yarn_only_types": ["sliding_attention"]},
                                  layer_type="full_attention")


def test_mimo_v2_truncates_the_partial_factor_as_hf():
    prog = read_program({"model_type": "mimo_v2_flash"})
    site = prog.at(0)
    assert site.slice.rotary_dim == 64 and site.slice.rounding == "int(192 * 0.334) = 64"


def test_deepseek_v4_main_compress_compressed_positions_and_the_output_inverse():
    prog = read_program(DSV4_FLASH)
    main, comp = prog.at(0), prog.at(2)
    assert (main.entry, main.angles.base, comp.entry, comp.angles.base) == ("main", 1e4, "compress", 1.6e5)
    assert comp.angles.rope_type == "yarn" and comp.attention.value == 1.0
    assert main.slice.start == 448 and main.slice.pairing == "interleaved"
    assert main.inverse is not None and main.inverse.prove().verdict == "proved"
    csa = [s for s in prog.sites if s.module == "compressor" and s.positions.stride == 4]
    hca = [s for s in prog.sites if s.module == "compressor" and s.positions.stride == 128]
    idx = [s for s in prog.sites if s.module == "indexer"]
    assert csa[0].layers == tuple(range(2, 43, 2)) and hca[0].layers == tuple(range(3, 42, 2))
    assert idx[0].positions.kind == "compressed" and idx[0].entry == "compress"
    assert not [s for s in prog.sites if s.module == "draft"]  # no MTP RoPE claimed for V4 (HF runs none)
    d = numeric.describe(DSV4_FLASH)
    assert any(n.startswith("inverse (layers") and "rot2.orthogonal" in n for n in d.notes)


def test_qwen3_5_yarn_mrope_and_partial_in_one_config():
    prog = read_program(QWEN3_5_YARN)
    site = prog.at(3)
    assert (site.angles.rope_type, site.slice.rotary_dim, site.slice.head_dim) == ("yarn", 64, 256)
    assert site.positions.kind == "mrope" and site.positions.placement == "interleaved"
    assert site.positions.section == (11, 11, 10)
    inv = numeric.rope_frequencies(QWEN3_5_YARN).inv_freq
    want, attn = reference.rope_frequencies(QWEN3_5_YARN)
    assert np.allclose(inv, [float(v) for v in want], rtol=1e-15)
    assert site.attention.value == pytest.approx(float(attn), rel=1e-15)


def test_voxtral_realtime_sparse_takes_the_wrapper_s_head_dim():
    spec = numeric.parse_rope_config({"model_type": "voxtral_realtime"})
    assert spec.head_dim == 128 and spec.pairs == 64


def test_ergo_rotates_interleaved_pairs():
    assert read_program({"model_type": "ergo"}).at(0).slice.pairing == "interleaved"
    with pytest.warns(numeric.ConfigLayoutWarning, match="ergo"):
        numeric.apply_rope(np.ones((1, 128)), np.arange(1), config={"model_type": "ergo"},
                           layer_type="sliding_attention")


def test_composite_text_parts_nested_deeper_and_in_encoder_decoders():
    for mt in ("qwen2_5_omni", "t5gemma", "dia"):
        prog = read_program({"model_type": mt})
        assert any(s.rotates for s in prog.attention()), mt


def test_the_program_prints_every_site():
    text = str(read_program(DSV4_FLASH))
    assert "compressor" in text and "indexer" in text and "inverse" in text
    assert "draft" in str(read_program(STEP3P7_FLASH))


# ---------------------------------------------------------------------------------- against HF


def _hf_config(cls_name: str, **kw):
    pytest.importorskip("transformers")
    import importlib

    module = {"Step3p7TextConfig": "step3p7.configuration_step3p7",
              "VoxtralRealtimeConfig": "voxtral_realtime.configuration_voxtral_realtime"}[cls_name]
    cls = getattr(importlib.import_module(f"transformers.models.{module}"), cls_name)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return cls(**kw)


def test_step3p7_per_type_dicts_are_hf_s():
    hf = _hf_config("Step3p7TextConfig", **{k: v for k, v in STEP3P7_FLASH["text_config"].items() if k != "model_type"})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for lt, entry in hf.rope_parameters.items():
            spec = numeric.parse_rope_config(STEP3P7_FLASH, layer_type=lt)
            assert spec.rope_theta == entry["rope_theta"] and spec.rope_type == entry["rope_type"]
            assert spec.partial_rotary_factor == entry.get("partial_rotary_factor", 1.0)


def test_voxtral_realtime_head_dim_is_hf_s():
    hf = _hf_config("VoxtralRealtimeConfig")
    assert numeric.parse_rope_config({"model_type": "voxtral_realtime"}).head_dim == hf.text_config.head_dim


@pytest.mark.parametrize("model_type", ["gemma3_text", "laguna"])
def test_per_type_dicts_with_scalar_siblings_agree_with_hf_s_rotary(model_type):
    """Gemma 3 text and Laguna with YaRN on the full-attention layers and a ``truncate`` sibling:
    HF's own config class and rotary embedding against rope_frequencies, per layer type."""
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    import importlib

    mod = {"gemma3_text": "gemma3", "laguna": "laguna"}[model_type]
    cfgs = importlib.import_module(f"transformers.models.{mod}.configuration_{mod}")
    modeling = importlib.import_module(f"transformers.models.{mod}.modeling_{mod}")
    cls = cfgs.Gemma3TextConfig if mod == "gemma3" else cfgs.LagunaConfig
    rot_cls = modeling.Gemma3RotaryEmbedding if mod == "gemma3" else modeling.LagunaRotaryEmbedding
    rp = {"full_attention": {"rope_type": "yarn", "rope_theta": 1e6, "factor": 8.0,
                             "original_max_position_embeddings": 16384},
          "sliding_attention": {"rope_type": "default", "rope_theta": 1e4}, "truncate": False}
    kw = {"num_hidden_layers": 4, "head_dim": 128, "max_position_embeddings": 131072,
          "layer_types": ["full_attention", "sliding_attention", "sliding_attention", "sliding_attention"]}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rot = rot_cls(cls(rope_parameters={k: dict(v) if isinstance(v, dict) else v for k, v in rp.items()}, **kw))
    cfg = {"model_type": model_type, **kw, "rope_parameters": rp}
    for lt in ("full_attention", "sliding_attention"):
        hf = getattr(rot, f"{lt}_inv_freq").double().numpy()
        ours = numeric.rope_frequencies(cfg, layer_type=lt)
        assert hf.shape == ours.inv_freq.shape
        assert np.max(np.abs(hf - ours.inv_freq) / ours.inv_freq) < 1e-6  # HF computes in float32
        assert abs(getattr(rot, f"{lt}_attention_scaling") - ours.attention_factor) < 1e-9
    assert numeric.parse_rope_config(cfg, layer_type="full_attention").truncate is False


# ------------------------------------------------------------------ a draft of its own (issue 41)

#: An EAGLE-style draft head for a Kimi-Linear-style target (illustrative sizes): YaRN where the
#: target's attention applies no RoPE at all.
YARN_DRAFT = {"model_type": "llama", "hidden_size": 2304, "num_attention_heads": 32, "head_dim": 128,
              "num_hidden_layers": 1, "max_position_embeddings": 131072, "rope_theta": 50000.0,
              "rope_scaling": {"rope_type": "yarn", "factor": 32.0, "original_max_position_embeddings": 4096}}


def test_a_nope_target_with_a_yarn_draft_reads_each_from_its_own_config():
    target = {"model_type": "kimi_linear"}
    alone, both = read_program(target), read_program(target, draft=YARN_DRAFT)
    assert both.nope_layers() == alone.nope_layers() == (4, 8, 12, 16, 20, 24)
    assert all(s.nope for s in both.attention())  # the draft turns no target layer into a rotating one
    d = both.at(0, module="draft")
    assert d.angles.rope_type == "yarn" and d.angles.base == 50000.0 and str(d.positions) == "token positions m"
    assert d.attention.value == pytest.approx(0.1 * np.log(32.0) + 1, rel=1e-14)  # YaRN's sqrt(1/t), paper eq. 21
    assert d.note.startswith("the draft model's own config (model_type 'llama'")
    text = str(numeric.describe(target, draft=YARN_DRAFT))
    assert "NoPE layers (6 of 27): 4, 8, 12, 16, 20, 24" in text
    assert "note: draft (layers 0): token positions m; yarn base 50000; 128 of 128, split; factor=32" in text
    assert "attention factor 1.34657 on cos/sin" in text
    assert "draft" not in str(numeric.describe(target))


def test_a_bad_draft_is_refused_by_name():
    with pytest.raises(TypeError, match=r"draft must be a mapping .*got list"):
        read_program({"model_type": "kimi_linear"}, draft=[YARN_DRAFT])
    bad = dict(YARN_DRAFT, rope_scaling={"rope_type": "nonsense", "factor": 2.0})
    with pytest.raises(ValueError, match=r"^draft: config\['rope_scaling'\]\['rope_type'\]='nonsense' is not allowed"):
        read_program({"model_type": "kimi_linear"}, draft=bad)
    with pytest.raises(ValueError, match=r"draft: the draft config has sub-modules of its own \(draft\)"):
        read_program({"model_type": "kimi_linear"}, draft=STEP3P7_FLASH)


# ------------------------------------------------- a composite's top-level rope of another module

#: MusicFlamingo (published shape): top-level rope keys for the audio time embedding, a Qwen2
#: language model in text_config.
MUSIC_FLAMINGO = {"model_type": "musicflamingo", "rope_parameters": {"rope_type": "default", "rope_theta": 1200.0,
                                                                     "partial_rotary_factor": 0.2},
                  "text_config": {"model_type": "qwen2", "hidden_size": 3584, "num_attention_heads": 28,
                                  "num_key_value_heads": 4, "num_hidden_layers": 28, "rope_theta": 1000000.0,
                                  "max_position_embeddings": 32768}}


@pytest.mark.parametrize("config", [MUSIC_FLAMINGO, {"model_type": "musicflamingo"}], ids=["published", "sparse"])
def test_musicflamingo_s_language_model_is_its_text_part(config):
    # its top-level rope_parameters are MusicFlamingoRotaryEmbedding's (audio time), which the
    # package read as the language model's: base 1200 on 256 of 1280 channels
    prog = read_program(config)
    (site,) = prog.attention()
    expect_base = 1e6 if "text_config" in config else 10000.0
    assert prog.model_type == "qwen2" and site.spec.rotary_dim == 128 and site.angles.base == expect_base
    text = str(numeric.describe(config))
    assert "128 of 128" in text and "256 of 1280" not in text
    assert "configure the audio time embedding (HF's MusicFlamingoRotaryEmbedding" in text
    assert "rope_theta=1200.0" in text


def test_musicflamingo_agrees_with_hf_s_text_config():
    transformers = pytest.importorskip("transformers")
    hf = transformers.MusicFlamingoConfig(**{k: v for k, v in MUSIC_FLAMINGO.items() if k != "model_type"}).text_config
    spec = read_program(MUSIC_FLAMINGO).attention()[0].spec
    assert spec.rope_theta == hf.rope_parameters["rope_theta"]
    assert spec.rotary_dim == hf.hidden_size // hf.num_attention_heads
