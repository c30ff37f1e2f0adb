"""Conventions as data and as inference; several entry points and sub-modules, their agreement."""

from __future__ import annotations

import numpy as np
import pytest

import pe_symbolic as pe
from pe_symbolic.audit.verify import MODEL_CONVENTIONS
from pe_symbolic.audit.verify.conventions import model_convention

CFG = {"rope_theta": 10000.0, "head_dim": 16, "hidden_size": 64, "num_attention_heads": 4,
       "max_position_embeddings": 1024}
INV = 10000.0 ** (-np.arange(0, 16, 2) / 16)


def split(x, ids, inv=INV, sign=1.0):
    emb = np.concatenate([ids[..., None] * inv] * 2, -1)
    return x * np.cos(emb)[:, None] + sign * np.concatenate([-x[..., 8:], x[..., :8]], -1) * np.sin(emb)[:, None]


def interleaved(x, ids):
    emb = np.repeat(ids[..., None] * INV, 2, -1)
    rot = np.stack([-x[..., 1::2], x[..., ::2]], -1).reshape(x.shape)
    return x * np.cos(emb)[:, None] + rot * np.sin(emb)[:, None]


def test_the_table_names_its_source_and_the_hf_layouts_come_from_describe():
    assert all(c.source.startswith("transformers") for c in MODEL_CONVENTIONS.values())
    assert model_convention({"model_type": "nanochat"})[:2] == ("split", -1)
    assert model_convention({"model_type": "llama"}, "split halves (rotate_half)")[:2] == ("split", 1)
    assert model_convention({"model_type": "deepseek_v3"}, "interleaved in, split out (HF ...)")[0] \
        == "interleaved-in-split-out"


def test_what_an_implementation_does_is_inferred_and_the_layout_that_reproduces_it_named():
    report = pe.verify_rope(interleaved, CFG, seed=1)  # interleaved code, split weights: differs ...
    assert report.verdict == "differs"
    conv = report.conventions
    assert conv["pairing"] == "interleaved" and conv["direction"] == "R(theta)", conv
    assert any("layout='interleaved'" in r for r in conv["reproduced_by"]), conv
    report = pe.verify_rope(interleaved, CFG, layout="interleaved", seed=1)  # ... and with its layout, verified
    assert report.verdict == "verified" and report.conventions["reproduced_by"] == [], report.to_text()
    backwards = pe.verify_rope(lambda x, ids: split(x, ids, sign=-1.0), CFG, seed=1)
    assert backwards.conventions["direction"] == "R(-theta)"
    assert any("R(-theta)" in r for r in backwards.conventions["reproduced_by"])


def test_a_model_types_direction_is_its_convention_not_a_difference():
    nano = {**CFG, "model_type": "nanochat"}
    assert pe.verify_rope(lambda x, ids: split(x, ids, sign=-1.0), nano, seed=2).verdict == "verified"
    report = pe.verify_rope(split, nano, seed=2)  # R(theta) where NanoChat trains R(-theta)
    assert report.verdict == "differs" and "wrong way" in report.to_text(), report.to_text()


def test_other_permutations_and_partial_channels_are_inferred():
    perm = np.array([1, 0, *range(2, 16)])  # pairs (1, 8), (0, 9), (2, 10), ...: neither layout

    def permuted(x, ids):  # the split rotation on permuted channels
        return split(x[..., perm], ids)[..., np.argsort(perm)]

    conv = pe.verify_rope(permuted, CFG, seed=3, trace=False).conventions
    assert conv["pairing"].startswith("another permutation"), conv


def test_prefill_and_decode_entry_points_are_each_checked_and_their_disagreement_named():
    llama3 = {**CFG, "rope_scaling": {"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0,
                                      "high_freq_factor": 4.0, "original_max_position_embeddings": 256}}
    inv, _ = pe.reference.rope_frequencies(llama3)
    inv = np.array([float(v) for v in inv])

    def prefill(x, ids):
        return split(x, ids, inv)

    def decode_unscaled(x, ids):  # the decode path forgot the llama3 scaling
        return split(x, ids)

    report = pe.verify_rope({"prefill": prefill, "decode": prefill}, llama3, seed=4)
    assert report.verdict == "verified" and set(report.entries) == {"prefill", "decode"}, report.to_text()
    assert "agree" in report.agreement["summary"]
    assert "sequences of 1;" in report.entries["decode"].tests["summary"]  # decode: one position per row
    report = pe.verify_rope({"prefill": prefill, "decode": decode_unscaled}, llama3, seed=4)
    assert report.verdict == "differs"
    assert report.entries["prefill"].verdict == "verified" and report.entries["decode"].verdict == "differs"
    assert "do not agree" in report.agreement["summary"] and "scaling" in report.to_text(), report.to_text()
    assert "decode" in report.to_markdown() and '"agreement"' in report.to_json()


def test_sub_modules_with_their_own_layouts_are_each_checked():
    # DeepSeek-V3.2: the MLA rotates interleaved pairs, its indexer split halves (NEOX)
    report = pe.verify_rope({"mla": interleaved, "indexer": split}, CFG,
                            layout={"mla": "interleaved", "indexer": "split"}, seed=5)
    assert report.verdict == "verified", report.to_text()
    assert "each entry against its own" in report.agreement["summary"]
    report = pe.verify_rope({"mla": interleaved, "indexer": interleaved}, CFG,
                            layout={"mla": "interleaved", "indexer": "split"}, seed=5)
    assert report.verdict == "differs" and report.entries["indexer"].verdict == "differs"
    with pytest.raises(ValueError, match="layout has entries"):
        pe.verify_rope({"mla": interleaved}, CFG, layout={"attn": "split"})
    # per-entry configs: a dict of configs with the same keys
    text_cfg, vision_cfg = CFG, {**CFG, "rope_theta": 100.0}
    inv100 = 100.0 ** (-np.arange(0, 16, 2) / 16)
    report = pe.verify_rope({"text": split, "vision": lambda x, ids: split(x, ids, inv100)},
                            {"text": text_cfg, "vision": vision_cfg}, seed=5)
    assert report.verdict == "verified", report.to_text()


def test_deepseek_v32s_indexer_is_split_where_its_mla_interleaves():
    # HF 5.24: DeepseekV32Indexer applies rotate_half (split), the MLA interleaves in and splits out
    # (DeepseekV32Config sets head_dim from qk_rope_head_dim, its default 64 where a config leaves
    # it out: the rotated width is given as that key, as in test_verify's deepseek_v3 case)
    v32 = {**CFG, "model_type": "deepseek_v32", "qk_rope_head_dim": CFG["head_dim"]}

    def in_split_out(x, ids):
        emb = ids[..., None] * INV
        cos, sin = np.cos(emb)[:, None], np.sin(emb)[:, None]
        x1, x2 = x[..., 0::2], x[..., 1::2]
        return np.concatenate([x1 * cos - x2 * sin, x2 * cos + x1 * sin], -1)

    report = pe.verify_rope({"mla": in_split_out, "indexer": split}, v32, seed=6)
    assert report.verdict == "verified", report.to_text()
    report = pe.verify_rope({"mla": in_split_out, "indexer": in_split_out}, v32, seed=6)  # the regression
    assert report.entries["indexer"].verdict == "differs", report.to_text()
    # a config that says the indexer interleaves
    report = pe.verify_rope({"indexer": interleaved}, {**v32, "indexer_rope_interleave": True}, seed=6)
    assert report.verdict == "verified", report.to_text()
