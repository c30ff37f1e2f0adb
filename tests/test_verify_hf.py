"""A small, fast subset of benchmarks/verify_sweep.py: HF's own rotary modules and apply
functions through verify_rope, each protocol and rope type once, at small configs (the full
sweep, every family at its defaults and the rope variants, is the benchmark). Skips without
torch / transformers."""

from __future__ import annotations

import importlib
import warnings

import pytest

import pe_symbolic as pe

pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

SMALL = {"hidden_size": 64, "num_attention_heads": 4, "num_key_value_heads": 4, "head_dim": 16,
         "max_position_embeddings": 2048}


def _pair(family, emb_name, cfg_name, apply_name="apply_rotary_pos_emb", text=False, **kw):
    mod = importlib.import_module(f"transformers.models.{family}.modeling_{family}")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        config = getattr(transformers, cfg_name)(**kw)
        if text:
            config = config.get_text_config()
        emb = getattr(mod, emb_name)(config)
    return (emb, getattr(mod, apply_name)), config.to_dict()


CASES = {
    "llama": dict(family="llama", emb_name="LlamaRotaryEmbedding", cfg_name="LlamaConfig", **SMALL),
    "llama3 scaling": dict(family="llama", emb_name="LlamaRotaryEmbedding", cfg_name="LlamaConfig", **SMALL,
                           rope_parameters={"rope_type": "llama3", "rope_theta": 500000.0, "factor": 8.0,
                                            "low_freq_factor": 1.0, "high_freq_factor": 4.0,
                                            "original_max_position_embeddings": 512}),
    "yarn (DeepSeek's mscale)": dict(family="llama", emb_name="LlamaRotaryEmbedding", cfg_name="LlamaConfig", **SMALL,
                                     rope_parameters={"rope_type": "yarn", "rope_theta": 10000.0, "factor": 40.0,
                                                      "mscale": 1.0, "mscale_all_dim": 1.0,
                                                      "original_max_position_embeddings": 256}),
    "gemma3 per layer type": dict(family="gemma3", emb_name="Gemma3RotaryEmbedding", cfg_name="Gemma3TextConfig",
                                  **{**SMALL, "num_hidden_layers": 2,
                                     "layer_types": ["sliding_attention", "full_attention"]}),
    "phi partial rotary": dict(family="phi", emb_name="PhiRotaryEmbedding", cfg_name="PhiConfig",
                               **{k: v for k, v in SMALL.items() if k != "head_dim"}, partial_rotary_factor=0.5),
    "llama4 complex freqs_cis": dict(family="llama4", emb_name="Llama4TextRotaryEmbedding",
                                     cfg_name="Llama4TextConfig", apply_name="apply_rotary_emb", **SMALL),
    "qwen3_vl interleaved M-RoPE": dict(family="qwen3_vl", emb_name="Qwen3VLTextRotaryEmbedding",
                                        cfg_name="Qwen3VLTextConfig", **SMALL,
                                        rope_parameters={"rope_type": "default", "rope_theta": 10000.0,
                                                         "mrope_section": [4, 2, 2], "mrope_interleaved": True}),
}


@pytest.mark.parametrize("name", list(CASES))
def test_hf_rotary_modules_verify(name):
    pair, cfg = _pair(**CASES[name])
    report = pe.verify_rope(pair, cfg, seed=11)
    assert report.verdict == "verified", report.to_text()


def test_phimoe_long_factor_bug_differs_and_phi3_longrope_verifies():
    cfg = {**SMALL, "head_dim": None, "hidden_size": 64, "max_position_embeddings": 2048,
           "original_max_position_embeddings": 256,  # the config classes' own default is 4096
           "rope_parameters": {"rope_type": "longrope", "rope_theta": 10000.0, "original_max_position_embeddings": 256,
                               "short_factor": [1.0 + 0.01 * i for i in range(8)],
                               "long_factor": [1.0 + 0.5 * i for i in range(8)]}}
    cfg.pop("head_dim")
    pair, d = _pair("phi3", "Phi3RotaryEmbedding", "Phi3Config", **cfg)
    report = pe.verify_rope(pair, d, seed=12)
    assert report.verdict == "verified", report.to_text()
    assert report.structure["traced_lengths"] == [256, 2048]  # proved on each side of the switch
    moe = {**cfg, "rope_parameters": {**cfg["rope_parameters"], "short_mscale": 1.0, "long_mscale": 1.2}}
    pair, d = _pair("phimoe", "PhimoeRotaryEmbedding", "PhimoeConfig", **moe)
    report = pe.verify_rope(pair, d, seed=12)
    assert report.verdict == "differs", report.to_text()
    assert "never switch" in report.to_text() and "short_factor" in report.to_text()


def test_hf_dynamic_ntk_is_tested_past_the_switch_and_not_rejected():
    kw = dict(CASES["llama"], rope_parameters={"rope_type": "dynamic", "rope_theta": 10000.0, "factor": 2.0})
    kw["max_position_embeddings"] = 512
    pair, cfg = _pair(**kw)
    report = pe.verify_rope(pair, cfg, seed=13)
    assert report.verdict == "consistent (tested)", report.to_text()  # HF branches on the length in Python
    assert "1023" in report.tests["summary"] and "lengths" in report.tests["summary"]


def test_an_inv_freq_buffer_cast_to_bfloat16_is_out_of_bound_and_named():
    # HF issue 25681: model.to(torch.bfloat16) casts the rotary module's inv_freq buffer too
    import torch

    pair, cfg = _pair(**CASES["llama"])
    pair[0].to(torch.bfloat16)
    report = pe.verify_rope(pair, cfg, dtype="bfloat16", seed=14)
    assert report.verdict == "out of bound", report.to_text()
    assert report.frequencies["held_in"] == "bfloat16"
    assert "inverse frequencies are held in bfloat16" in report.to_text()
