"""Wrong implementations that must never come back ``verified`` -- and right ones that must.

One wrong implementation per class of issue 32 (each written as a real port could be
wrong), each asserted ``differs`` with its cause named, or ``consistent (tested)`` where no
test can tell it from the right one; then right implementations of the conventions the
field ships (HF dynamic NTK and Phi-3 LongRoPE past their switch, NanoChat's R(-theta), the
Perception Encoder's interleaved pairs, HF's recipe and pe_symbolic's own apply_rope in
bfloat16 / float16 with llama3 and YaRN configs), each asserted not ``differs``.
"""

from __future__ import annotations

import numpy as np
import pytest

import pe_symbolic as pe

CFG = {"rope_theta": 10000.0, "head_dim": 16, "hidden_size": 64, "num_attention_heads": 4,
       "max_position_embeddings": 4096}
INV = 10000.0 ** (-np.arange(0, 16, 2) / 16)


def _rot(x, ang):
    """HF's rotate_half RoPE of x (b, h, s, 16) by angles (b, s, 8)."""
    emb = np.concatenate([ang, ang], -1)
    cos, sin = np.cos(emb)[:, None], np.sin(emb)[:, None]
    return x * cos + np.concatenate([-x[..., 8:], x[..., :8]], -1) * sin


def right(x, ids):
    return _rot(x, ids[..., None] * INV).astype(x.dtype)


def _check(fn, cfg=CFG, *, cause, verdict="differs", **kw):
    report = pe.verify_rope(fn, cfg, seed=kw.pop("seed", 32), **kw)
    text = report.to_text()
    assert report.verdict == verdict, text
    for c in [cause] if isinstance(cause, str) else cause:
        assert c in text, text
    assert "proved" not in report.tests.get("summary", ""), text  # what is sampled is never called proved
    return report


# ------------------------------------------------------------------------ wrong, one per class


def window_1500(x, ids):
    """A wrong angle in a window of positions no fixed ladder probes (1500 .. 1509)."""
    bump = np.where((ids >= 1500) & (ids < 1510), 0.25, 0.0)
    return _rot(x, ids[..., None] * INV + bump[..., None]).astype(x.dtype)


def window_table(x, ids):
    """The same, as a cached table with a corrupted stretch, indexed by position_ids."""
    table = np.arange(4096)[:, None] * INV
    table[1500:1510] += 0.25
    return _rot(x, table[ids]).astype(x.dtype)


def where_pos_10(x, ids):
    """A branch ``np.where(pos == 10, ...)``: position 10 gets position 11's angle."""
    return _rot(x, np.where(ids == 10, 11, ids)[..., None] * INV).astype(x.dtype)


def clip_large(x, ids):
    """Inputs clipped to [-20, 20] before the rotation (nonlinear)."""
    return right(np.clip(x, -20, 20), ids)


def skip_large(x, ids):
    """The rotation skipped when max |x| > 20."""
    return x if np.abs(x).max() > 20 else right(x, ids)


_MEMO: dict = {}


def memo_by_shape(x, ids):
    """Outputs memoised by shape: a new x of a seen shape gets the old output."""
    key = x.shape
    if key not in _MEMO:
        _MEMO[key] = right(x, ids)
    return _MEMO[key]


class Drift:
    """A position counter that drifts by one after 50 calls."""

    def __init__(self):
        self.calls = 0

    def __call__(self, x, ids):
        self.calls += 1
        return right(x, ids + (1 if self.calls > 50 else 0))


def rows_from_2_unrotated(x, ids):
    """Batch rows >= 2 left unrotated."""
    out = right(x, ids)
    out[2:] = x[2:]
    return out


def int16_ids(x, ids):
    """position_ids narrowed to int16."""
    return right(x, ids.astype(np.int16))


def off_by_one_long(x, ids):
    """An off-by-one path for sequences longer than 64."""
    return right(x, ids + 1 if ids.shape[-1] > 64 else ids)


@pytest.mark.parametrize("fn,cause", [
    (window_1500, "wrong only at positions 1500..1509"),
    (window_table, "wrong only at positions 1500..1509"),
    (where_pos_10, "wrong only at positions 10 "),
], ids=["window-where", "window-table", "where-pos-10"])
def test_a_wrong_angle_at_positions_no_ladder_probes_differs(fn, cause):
    report = _check(fn, cause=cause)
    assert report.structure["method"] == "tested", report.to_text()
    assert "needs the value" in report.structure["not_traced"] or "indices" in report.structure["not_traced"]


def test_a_wrong_angle_at_one_position_is_not_called_an_off_by_one_of_position_ids():
    # position 10 gets position 11's angle: the report says so for that position, and does not
    # blame position_ids (an off-by-one there would be wrong at every position)
    text = _check(where_pos_10, cause="wrong only at positions 10 ").to_text()
    assert "position 10 is rotated as 11" in text, text
    assert "off-by-one position_ids" not in text, text


def test_clipping_large_inputs_is_not_linear():
    _check(clip_large, cause="not linear in x")


def test_skipping_the_rotation_for_large_inputs_differs():
    _check(skip_large, cause="not rotated at all")


def test_outputs_memoised_by_shape_are_stateful():
    _MEMO.clear()
    _check(memo_by_shape, cause=["memoised"])


def test_a_counter_that_drifts_after_50_calls_is_stateful():
    _check(Drift(), cause=["stateful", "positions are offset by +1"])


def test_batch_rows_from_2_left_unrotated_differ_though_the_trace_proves_rows_0_and_1():
    report = _check(rows_from_2_unrotated, cause=["batch row 2", "not rotated at all"])
    assert report.structure["verdict"] == "proved"  # at the traced shape (2, 1, 2, d): rows 0 and 1
    assert report.structure["traced_shape"][0] == 2


def test_int16_position_ids_differ_where_positions_reach_32768():
    cfg = {**CFG, "max_position_embeddings": 65536}
    _check(int16_ids, cfg, cause=["int16", "32768"])


def test_int16_position_ids_below_32768_are_only_consistent_tested():
    # no position below 4096 can tell int16 from int64: not proved (a cast to an integer fails the
    # trace), every test passed -- and the report says what was tested
    report = _check(int16_ids, cause=["not proved", "every position 0..4095"], verdict="consistent (tested)")
    assert "astype" in report.structure["not_traced"] or "value" in report.structure["not_traced"]


def test_an_off_by_one_path_for_sequences_longer_than_64_differs():
    report = _check(off_by_one_long, cause=["positions are offset by +1", "sequence of 1"])
    assert report.structure["verdict"] == "proved"  # the trace's 2 positions take the short path


def test_the_wrong_implementations_never_say_proved_for_the_tests():
    for fn in (window_1500, clip_large, int16_ids):
        text = pe.verify_rope(fn, CFG, seed=5).to_text()
        assert "proved" not in text.split("tests:")[1].split("\n")[0]


# ------------------------------------------------------------------------ torch variants


def test_torch_where_on_positions_and_a_table_lookup_fail_the_trace_and_differ():
    torch = pytest.importorskip("torch")
    inv = torch.tensor(INV)

    def rot(x, ang):
        emb = torch.cat([ang, ang], -1)
        return x * emb.cos()[:, None].to(x.dtype) + torch.cat([-x[..., 8:], x[..., :8]], -1) * emb.sin()[:, None].to(
            x.dtype)

    def where10(x, ids):
        return rot(x, torch.where(ids == 10, ids + 1, ids)[..., None].double() * inv)

    table = torch.arange(4096, dtype=torch.float64)[:, None] * inv
    table[1500:1510] += 0.25

    def lookup(x, ids):
        return rot(x, table[ids])

    for fn, where in ((where10, "positions 10 "), (lookup, "1500..1509")):
        report = _check(fn, cause=[where], framework="torch")
        assert report.structure["method"] == "tested", report.to_text()


# ------------------------------------------------------------------------ PhiMoE's bug, HF's right ones


def _hf_pair(module, cfg_cls, cfg, *, drop=("architectures", "auto_map", "quantization_config")):
    mod = pytest.importorskip(f"transformers.models.{module}.modeling_{module}")
    tr = pytest.importorskip("transformers")
    config = getattr(tr, cfg_cls)(**{k: v for k, v in cfg.items() if k not in drop})
    emb = next(getattr(mod, n) for n in dir(mod) if n.endswith("RotaryEmbedding") and "Vision" not in n)
    return emb(config), mod.apply_rotary_pos_emb


def test_phimoe_never_switching_to_long_factor_differs():
    pytest.importorskip("torch")
    cfg = pe.numeric.model_config("phi-3.5-moe")
    pair = _hf_pair("phimoe", "PhimoeConfig", cfg)
    report = _check(pair, cfg, cause=["short_factor", "never switch"], context=8192)
    assert report.verdict == "differs"


# Phi-3's LongRoPE past the original context: tests/test_verify_hf.py (proved on each side of the switch).


def test_hf_dynamic_ntk_past_max_position_embeddings_is_not_rejected():
    pytest.importorskip("torch")
    cfg = {**pe.numeric.model_config("llama-3.1-8b"), "max_position_embeddings": 4096,
           "rope_scaling": {"rope_type": "dynamic", "factor": 2.0}}
    pair = _hf_pair("llama", "LlamaConfig", cfg)
    report = pe.verify_rope(pair, cfg, seed=4)
    assert report.verdict in ("verified", "consistent (tested)"), report.to_text()
    assert "8191" in report.to_text()  # past the switch: positions up to twice max_position_embeddings


def test_nanochat_r_minus_theta_is_its_convention():
    pytest.importorskip("torch")
    tr = pytest.importorskip("transformers")
    from transformers.models.nanochat import modeling_nanochat as m

    config = tr.NanoChatConfig(hidden_size=64, num_attention_heads=4, max_position_embeddings=2048)
    cfg = config.to_dict()
    report = pe.verify_rope((m.NanoChatRotaryEmbedding(config), m.apply_rotary_pos_emb), cfg, seed=5)
    assert report.verdict != "differs", report.to_text()
    assert "R(-theta)" in report.to_text()
    # the same code against a config without that convention turns the wrong way
    report = pe.verify_rope((m.NanoChatRotaryEmbedding(config), m.apply_rotary_pos_emb),
                            {**cfg, "model_type": "llama"}, seed=5)
    assert report.verdict == "differs" and "wrong way" in report.to_text(), report.to_text()


def test_the_perception_encoder_ports_interleaved_pairs_verify():
    pytest.importorskip("torch")
    tr = pytest.importorskip("transformers")
    from transformers.models.pe_audio import modeling_pe_audio as m

    config = tr.PeAudioEncoderConfig(hidden_size=64, num_attention_heads=4, num_key_value_heads=4)
    cfg = config.to_dict()
    report = pe.verify_rope((m.PeAudioEncoderRotaryEmbedding(config), m.apply_rotary_pos_emb), cfg, seed=6)
    assert report.verdict != "differs", report.to_text()
    assert "interleaved" in report.structure["layout"]


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
@pytest.mark.parametrize("scaling", [
    {"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
     "original_max_position_embeddings": 1024},
    {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 1024},
], ids=["llama3", "yarn"])
def test_hf_and_pe_symbolic_apply_rope_verify_in_16_bit_with_scaled_configs(dtype, scaling):
    torch = pytest.importorskip("torch")
    cfg = {"rope_theta": 500000.0, "head_dim": 32, "hidden_size": 128, "num_attention_heads": 4,
           "max_position_embeddings": 4096, "rope_scaling": scaling}
    import pe_symbolic.torch as pt

    def ours(x, ids):
        return pt.apply_rope(x, ids, config=cfg)

    def ours_np(x, ids):
        return pe.numeric.apply_rope(x, ids[:, None, :], config=cfg)

    hf = _hf_pair("llama", "LlamaConfig", cfg)
    for fn in (ours, ours_np, hf):
        report = pe.verify_rope(fn, cfg, dtype=dtype, seed=7)
        assert report.verdict != "differs", report.to_text()
        assert report.verdict in ("verified", "consistent (tested)"), report.to_text()
    del torch


def test_a_special_case_by_dict_lookup_beyond_the_tested_positions_is_never_verified():
    # {700001: ...}.get(p) on a traced position would silently take the default: refused, so
    # not proved; no sampled position meets 700001: consistent (tested), and said so
    special = {700001: 0.25}

    def lookup(x, ids):
        bump = np.array([[special.get(p, 0.0) for p in row] for row in ids])
        return _rot(x, ids[..., None] * INV + bump[..., None]).astype(x.dtype)

    cfg = {**CFG, "max_position_embeddings": 2**20}
    report = pe.verify_rope(lookup, cfg, context=4096, seed=9)
    assert report.verdict == "consistent (tested)", report.to_text()
    assert "dict or set lookup" in report.structure["not_traced"]
