"""pe.verify_rope: real wrong implementations are caught and explained; correct ones verify.

The attacks of issue 32 (one wrong implementation per class) are in test_verify_attacks.py;
the parts of the package have their own files (test_verify_probe.py, test_verify_calling.py,
test_verify_conventions.py, test_verify_hf.py).
"""

from __future__ import annotations

import numpy as np
import pytest

import pe_symbolic as pe

CFG = {"rope_theta": 10000.0, "head_dim": 16, "hidden_size": 64, "num_attention_heads": 4,
       "max_position_embeddings": 4096}


def _inv(base=10000.0, rotary=16, dtype=np.float64):
    return (base ** (-np.arange(0, rotary, 2, dtype=np.float64) / rotary)).astype(dtype)


def _tables(ids, inv, *, interleaved=False, angle_dtype=np.float64, scale=1.0):
    ang = ids.astype(angle_dtype)[..., None] * inv.astype(angle_dtype)
    ang = np.repeat(ang, 2, -1) if interleaved else np.concatenate([ang, ang], -1)
    return (np.cos(ang.astype(np.float64)) * scale)[:, None], (np.sin(ang.astype(np.float64)) * scale)[:, None]


def _rotate_half(x):
    h = x.shape[-1] // 2
    return np.concatenate([-x[..., h:], x[..., :h]], -1)


def _rotate_pairs(x):
    out = np.empty_like(x)
    out[..., 0::2], out[..., 1::2] = -x[..., 1::2], x[..., 0::2]
    return out


def hf_rope(x, ids, *, base=10000.0, scale=1.0):
    cos, sin = _tables(ids, _inv(base), scale=scale)
    return (x * cos + _rotate_half(x) * sin).astype(x.dtype)


def sign_flip(x, ids):
    cos, sin = _tables(ids, _inv())
    return (x * cos - _rotate_half(x) * sin).astype(x.dtype)


def halves_not_swapped(x, ids):
    cos, sin = _tables(ids, _inv())
    h = x.shape[-1] // 2
    return (x * cos + np.concatenate([-x[..., :h], x[..., h:]], -1) * sin).astype(x.dtype)


def interleaved_on_split_weights(x, ids):
    cos, sin = _tables(ids, _inv(), interleaved=True)
    return (x * cos + _rotate_pairs(x) * sin).astype(x.dtype)


def off_by_one(x, ids):
    return hf_rope(x, ids + 1)


def float16_angles(x, ids):
    cos, sin = _tables(ids, _inv(), angle_dtype=np.float16)
    return (x * cos + _rotate_half(x) * sin).astype(x.dtype)


def theta_back_to_10000(x, ids):
    return hf_rope(x, ids, base=10000.0)


CASES = [
    (sign_flip, CFG, "wrong way"),
    (halves_not_swapped, CFG, "not swapped"),
    (interleaved_on_split_weights, CFG, "interleaved layout"),
    (off_by_one, CFG, "offset"),
    (float16_angles, CFG, "float16"),
    (theta_back_to_10000, {**CFG, "rope_theta": 500000.0}, "10000"),
]


def test_a_correct_implementation_is_verified():
    report = pe.verify_rope(hf_rope, CFG, seed=0)
    assert report.verdict == "verified", report.to_text()
    assert "proved" in report.structure["summary"] and report.structure["method"] == "traced"
    assert report.precision["max_relative_error"] < 1e-6
    assert report.tests["seed"] == 0 and "every position 0..4095" in report.tests["summary"]


@pytest.mark.parametrize("fn,cfg,why", CASES, ids=[c[0].__name__ for c in CASES])
def test_a_wrong_implementation_is_caught_and_explained(fn, cfg, why):
    report = pe.verify_rope(fn, cfg)
    assert report.verdict != "verified", report.to_text()
    assert why in report.to_text(), report.to_text()


def test_angles_in_float32_are_verified_as_hf_recipe_and_said_so_angles_in_float16_are_not():
    def float32_angles(x, ids):
        cos, sin = _tables(ids, _inv(), angle_dtype=np.float32)
        return (x * cos + _rotate_half(x) * sin).astype(x.dtype)

    report = pe.verify_rope(float32_angles, CFG, seed=1)
    assert report.verdict == "verified", report.to_text()
    assert "within the bound of HF's recipe" in report.precision["summary"]
    assert "beyond the float64-angle bound" in report.to_text()
    report = pe.verify_rope(float16_angles, CFG, seed=1)
    assert report.verdict == "out of bound", report.to_text()
    assert "angles are formed in float16" in report.to_text()


def test_a_missing_attention_factor_is_named():
    cfg = {**CFG, "rope_scaling": {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 1024}}
    inv, factor = pe.reference.rope_frequencies(cfg)
    inv = np.array([float(v) for v in inv])

    def no_mscale(x, ids):
        cos, sin = _tables(ids, inv)
        return (x * cos + _rotate_half(x) * sin).astype(x.dtype)

    def with_mscale(x, ids):
        cos, sin = _tables(ids, inv, scale=float(factor))
        return (x * cos + _rotate_half(x) * sin).astype(x.dtype)

    report = pe.verify_rope(no_mscale, cfg)
    assert report.verdict == "differs" and "attention factor" in report.to_text(), report.to_text()
    assert pe.verify_rope(with_mscale, cfg).verdict == "verified"


def test_partial_rotary_with_the_wrong_pairing_is_caught():
    cfg = {**CFG, "partial_rotary_factor": 0.5}

    def right(x, ids):
        rot, rest = x[..., :8], x[..., 8:]
        cos, sin = _tables(ids, _inv(rotary=8))
        return np.concatenate([rot * cos + _rotate_half(rot) * sin, rest], -1).astype(x.dtype)

    def wrong(x, ids):  # pairs (i, i + 8) over the whole head instead of (i, i + 4) in the first 8
        ang = ids.astype(np.float64)[..., None] * _inv(rotary=8)
        ang = np.concatenate([ang, np.zeros_like(ang), ang, np.zeros_like(ang)], -1)
        return (x * np.cos(ang)[:, None] + _rotate_half(x) * np.sin(ang)[:, None]).astype(x.dtype)

    assert pe.verify_rope(right, cfg).verdict == "verified"
    report = pe.verify_rope(wrong, cfg)
    assert report.verdict == "differs", report.to_text()


def test_reports_render_and_bad_arguments_are_named():
    report = pe.verify_rope(hf_rope, CFG, seed=2)
    assert "verified" in report.to_markdown() and '"verdict": "verified"' in report.to_json()
    with pytest.raises(ValueError, match="dtype"):
        pe.verify_rope(hf_rope, CFG, dtype="int8")
    with pytest.raises(ValueError, match="layout"):
        pe.verify_rope(hf_rope, CFG, layout="diagonal")
    with pytest.raises(TypeError, match="callable"):
        pe.verify_rope(42, CFG)


def test_a_torch_implementation_is_verified_too():
    torch = pytest.importorskip("torch")

    def torch_rope(x, ids):
        inv = 1.0 / (10000.0 ** (torch.arange(0, 16, 2, dtype=torch.float64) / 16))
        ang = ids[..., None].to(torch.float64) * inv
        emb = torch.cat([ang, ang], -1)
        cos, sin = emb.cos()[:, None].to(x.dtype), emb.sin()[:, None].to(x.dtype)
        x1, x2 = x[..., :8], x[..., 8:]
        return x * cos + torch.cat([-x2, x1], -1) * sin

    report = pe.verify_rope(torch_rope, CFG, framework="torch")
    assert report.verdict == "verified", report.to_text()


def test_pe_audit_verifies_a_users_function(tmp_path, capsys):
    from pe_symbolic.cli.audit import main

    src = tmp_path / "myrope.py"
    src.write_text(
        "import numpy as np\n"
        "def rope(x, position_ids):\n"
        "    inv = 500000.0 ** (-np.arange(0, 128, 2) / 128)\n"
        "    ang = position_ids[..., None] * inv\n"
        "    emb = np.concatenate([ang, ang], -1)\n"
        "    x1, x2 = x[..., :64], x[..., 64:]\n"
        "    return (x * np.cos(emb)[:, None] + np.concatenate([-x2, x1], -1) * np.sin(emb)[:, None]).astype(x.dtype)\n")
    assert main(["llama-3.1-8b", "--recipe", f"{src}:rope", "--context", "4096"]) == 1
    out = capsys.readouterr().out
    assert "the scaling (rope_type 'llama3') is ignored" in out
    assert main(["llama-3.1-8b", "--recipe", f"{src}:nope"]) == 2


def test_hf_llama_rotary_classes_verify_when_transformers_is_installed():
    torch = pytest.importorskip("torch")
    pytest.importorskip("transformers")
    from transformers import LlamaConfig
    from transformers.models.llama.modeling_llama import LlamaRotaryEmbedding, apply_rotary_pos_emb

    cfg = pe.numeric.model_config("llama-3.1-8b")
    emb = LlamaRotaryEmbedding(LlamaConfig(**{k: v for k, v in cfg.items() if k != "architectures"}))
    report = pe.verify_rope((emb, apply_rotary_pos_emb), cfg, context=8192, seed=3)  # torch: detected
    # the right rotation and frequencies; its float32 angles are within the bound of HF's recipe
    # (which forms them in float32), beyond the tighter float64-angle bound, and the report says so
    assert report.structure["verdict"] == "proved" and "why" not in report.frequencies, report.to_text()
    assert report.verdict == "verified", report.to_text()
    assert report.precision["beyond_float64_angle_bound_from"] > 0
    assert "HF's recipe (angles formed in float32)" in report.precision["summary"]
    assert "131071" in report.tests["summary"]  # the config's largest admitted position, beyond context

    def minus_on_the_wrong_half(q, k, cos, sin):
        h = q.shape[-1] // 2
        return q * cos + torch.cat((q[..., h:], -q[..., :h]), -1) * sin, k

    assert pe.verify_rope((emb, minus_on_the_wrong_half), cfg, context=8192, seed=3).verdict == "differs"


# ------------------------------------------------------------------------------ the trace
# Functions that use position_ids as they come are traced with x *and* m symbolic; the
# kernel then proves (or refutes) fn(x, m) = R(theta(m)) x for every integer m. Each attack
# below must never come out proved.

INV16 = 10000.0 ** (-np.arange(0, 16, 2) / 16)


def _sym_tables(ids, inv=INV16, scale_cos=1.0, scale_sin=1.0):
    ang = ids[..., None] * inv
    emb = np.concatenate([ang, ang], -1)
    return np.cos(emb)[:, None] * scale_cos, np.sin(emb)[:, None] * scale_sin


def traced_right(x, ids):
    cos, sin = _sym_tables(ids)
    return x * cos + _rotate_half(x) * sin


def traced_sign_flip(x, ids):
    cos, sin = _sym_tables(ids)
    return x * cos - _rotate_half(x) * sin


def traced_halves_not_swapped(x, ids):
    cos, sin = _sym_tables(ids)
    return x * cos + np.concatenate([-x[..., :8], x[..., 8:]], -1) * sin


def traced_wrong_pairing(x, ids):
    ang = ids[..., None] * INV16
    emb = np.repeat(ang, 2, -1)
    return x * np.cos(emb)[:, None] + _rotate_pairs(x) * np.sin(emb)[:, None]


def traced_offset(x, ids):
    return traced_right(x, ids + 1)


def object_arrays_only(x, ids):
    """Right on object arrays (the trace), the minus on the wrong half on floats."""
    cos, sin = _sym_tables(ids)
    if x.dtype == object:
        return x * cos + _rotate_half(x) * sin
    return x * cos - _rotate_half(x) * sin


def object_arrays_only_frequency(x, ids):
    """Right on object arrays, rope_theta 10000 instead of 500000 on floats."""
    if x.dtype == object:
        cos, sin = _sym_tables(ids, 500000.0 ** (-np.arange(0, 16, 2) / 16))
    else:
        cos, sin = _sym_tables(ids)
    return x * cos + _rotate_half(x) * sin


def nonlinear(x, ids):
    """On basis vectors x*x == x: the matrix read numerically is R(m); the function is not."""
    return traced_right(x, ids) + 0.5 * (x * x - x)


def first_row_positions(x, ids):
    """Every batch row rotated with the first row's positions."""
    cos, sin = _sym_tables(ids[:1])
    return x * cos + _rotate_half(x) * sin


def mscale_on_cos_only(x, ids):
    cos, sin = _sym_tables(ids, scale_cos=1.25)
    return x * cos + _rotate_half(x) * sin


def test_a_traceable_implementation_is_proved_for_every_position():
    report = pe.verify_rope(traced_right, CFG, seed=4)
    assert report.verdict == "verified", report.to_text()
    assert report.structure["method"] == "traced" and report.structure["verdict"] == "proved"
    assert "for every integer m, at shape (2, 1, 2, 16)" in report.structure["summary"]
    # read exactly from the trace: the error is that of fn's own float64 ladder (np.power,
    # which NumPy 2 rounds correctly here and NumPy 1.26 may not, by an ulp) against the
    # config's correctly rounded one -- nothing added by the reading
    want = pe.numeric.rope_frequencies(CFG)[0]
    assert report.frequencies["max_relative_error"] == float((np.abs(INV16 - want) / want).max())


TRACED_ATTACKS = [
    (traced_sign_flip, "refuted", "wrong way"),
    (traced_halves_not_swapped, "refuted", "not swapped"),
    (traced_wrong_pairing, "refuted", "interleaved layout"),
    (object_arrays_only, "proved", "departs from its traced graph"),
    (nonlinear, "refuted", "not a linear map"),
    (first_row_positions, "refuted", "mixed between rows"),
    (mscale_on_cos_only, "refuted", "one table only"),
]


@pytest.mark.parametrize("fn,verdict,why", TRACED_ATTACKS, ids=[c[0].__name__ for c in TRACED_ATTACKS])
def test_a_traced_wrong_implementation_is_never_proved(fn, verdict, why):
    # object_arrays_only: its traced graph IS R(m) (proved); its float code is not -- differs
    report = pe.verify_rope(fn, CFG, seed=5)
    assert report.verdict == "differs", report.to_text()
    assert report.structure["method"] == "traced", report.to_text()
    assert report.structure["verdict"] == verdict, report.to_text()
    assert why in report.to_text(), report.to_text()


def test_a_traced_offset_is_named_exactly():
    report = pe.verify_rope(traced_offset, CFG)
    assert report.structure["verdict"] == "proved" and report.verdict == "differs", report.to_text()
    assert "positions are offset by 1 " in report.to_text(), report.to_text()


def test_a_function_right_only_on_object_arrays_is_not_verified():
    report = pe.verify_rope(object_arrays_only_frequency, {**CFG, "rope_theta": 500000.0})
    assert report.verdict != "verified", report.to_text()


def test_what_cannot_be_traced_symbolically_says_so_and_is_only_consistent_tested():
    def branchy(x, ids):  # a data-dependent branch on the positions
        if (ids > 10**9).any():
            raise AssertionError
        return traced_right(x, ids)

    report = pe.verify_rope(branchy, CFG, seed=6)
    assert report.verdict == "consistent (tested)", report.to_text()
    assert report.structure["method"] == "tested" and report.structure["verdict"] == "not proved"
    assert "needs the value" in report.structure["not_traced"]
    assert "not proved" in report.to_text() and "every position 0..4095" in report.tests["summary"]

    def opaque(x, ids):  # object arrays refused outright
        return traced_right(np.asarray(x, dtype=np.float64), ids)

    report = pe.verify_rope(opaque, CFG, seed=6)
    assert report.verdict == "consistent (tested)" and report.structure["method"] == "tested", report.to_text()
    report = pe.verify_rope(traced_right, CFG, trace=False, seed=6)
    assert report.verdict == "consistent (tested)" and report.structure["not_traced"] == "trace=False"


def test_a_nonlinear_function_is_caught_by_the_linearity_test_and_by_the_trace():
    # on basis vectors x*x == x: a matrix read from them would be R(m); the function is not
    report = pe.verify_rope(nonlinear, CFG, trace=False, seed=7)
    assert report.verdict == "differs" and "not linear in x" in report.to_text(), report.to_text()
    assert pe.verify_rope(nonlinear, CFG, seed=7).structure["verdict"] == "refuted"


def test_torch_code_is_traced_through_fx():
    torch = pytest.importorskip("torch")

    def rope(x, ids, sign=1.0):
        inv = 1.0 / (10000.0 ** (torch.arange(0, 16, 2, dtype=torch.float64) / 16))
        ang = ids[..., None].double() * inv  # float64 angles: float32 ones are out of bound
        emb = torch.cat([ang, ang], -1)
        cos, sin = emb.cos()[:, None].to(x.dtype), emb.sin()[:, None].to(x.dtype)
        return x * cos + sign * torch.cat([-x[..., 8:], x[..., :8]], -1) * sin

    report = pe.verify_rope(rope, CFG, seed=8)  # torch: detected from the code
    assert report.verdict == "verified" and report.structure["method"] == "traced", report.to_text()
    assert "framework torch" in report.to_text()
    report = pe.verify_rope(lambda x, ids: rope(x, ids, -1.0), CFG, framework="torch", seed=8)
    assert report.structure["verdict"] == "refuted" and "wrong way" in report.to_text(), report.to_text()

    def fake_tensor_detector(x, ids):  # right while traced, wrong on real tensors
        from torch._subclasses.fake_tensor import FakeTensor

        return rope(x, ids, 1.0 if isinstance(x, FakeTensor) else -1.0)

    report = pe.verify_rope(fake_tensor_detector, CFG, framework="torch", seed=8)
    assert report.verdict == "differs" and "departs from its traced graph" in report.to_text(), report.to_text()


# ------------------------------------------------------------------ M-RoPE, axial, per layer

MCFG = {**CFG, "rope_scaling": {"rope_type": "mrope", "mrope_section": [2, 3, 3]}}
ACFG = {"model_type": "qwen2_vl_vision", "head_dim": 16, "rope_theta": 10000.0}


def mrope(x, ids, section=(2, 3, 3), cast=False):
    """Qwen2-VL's M-RoPE: ids (3, batch, seq); pair chunks take t, h, w in turn."""
    ids = ids.astype(np.float64) if cast else ids
    ang = ids[..., None] * INV16
    chunks = np.split(ang, np.cumsum(section)[:-1], -1)
    a = np.concatenate([c[i % 3] for i, c in enumerate(chunks)], -1)
    emb = np.concatenate([a, a], -1)
    return x * np.cos(emb)[:, None] + _rotate_half(x) * np.sin(emb)[:, None]


def axial(x, ids, swap=False, cast=False):
    """HF's 2-D vision RoPE: ids (2, batch, seq); the ladder over head_dim/2 for h, then w."""
    ids = ids.astype(np.float64) if cast else ids
    inv = 10000.0 ** (-np.arange(0, 8, 2) / 8)
    h, w = ids[0][..., None] * inv, ids[1][..., None] * inv
    a = np.concatenate([w, h] if swap else [h, w], -1)
    emb = np.concatenate([a, a], -1)
    return x * np.cos(emb)[:, None] + _rotate_half(x) * np.sin(emb)[:, None]


@pytest.mark.parametrize("cast", [False, True], ids=["traced", "positions cast to float"])
def test_mrope_gets_three_position_axes_and_each_pair_its_axis(cast):
    report = pe.verify_rope(lambda x, ids: mrope(x, ids, cast=cast), MCFG, seed=9)
    assert report.verdict == "verified", report.to_text()
    assert report.structure["method"] == "traced"  # a float cast of the positions is exact in the trace
    assert "(3, batch, seq)" in report.structure["position_axes"]
    report = pe.verify_rope(lambda x, ids: mrope(x, ids, (3, 3, 2), cast=cast), MCFG, seed=9)
    assert report.verdict == "differs", report.to_text()
    assert "pair 2 turns with position axis t where the config assigns h" in report.to_text(), report.to_text()


@pytest.mark.parametrize("cast", [False, True], ids=["traced", "positions cast to float"])
def test_axial_gets_height_and_width(cast):
    assert pe.verify_rope(lambda x, ids: axial(x, ids, cast=cast), ACFG, seed=10).verdict == "verified"
    report = pe.verify_rope(lambda x, ids: axial(x, ids, swap=True, cast=cast), ACFG, seed=10)
    assert report.verdict == "differs" and "turns with position axis w where the config assigns h" in report.to_text()


GCFG = {"model_type": "gemma3_text", "head_dim": 16, "hidden_size": 64, "num_attention_heads": 4,
        "max_position_embeddings": 4096, "layer_types": ["sliding_attention", "full_attention"], "num_hidden_layers": 2,
        "rope_parameters": {"sliding_attention": {"rope_type": "default", "rope_theta": 10000.0},
                            "full_attention": {"rope_type": "linear", "factor": 8.0, "rope_theta": 1000000.0}}}


def _rope(x, ids, base=10000.0, factor=1.0):
    inv = base ** (-np.arange(0, 16, 2) / 16) / factor
    ang = ids[..., None] * inv
    emb = np.concatenate([ang, ang], -1)
    return x * np.cos(emb)[:, None] + _rotate_half(x) * np.sin(emb)[:, None]


def test_per_layer_configs_are_checked_layer_type_by_layer_type():
    def per_layer(x, ids, layer_type):
        return _rope(x, ids, 1e6, 8.0) if layer_type == "full_attention" else _rope(x, ids)

    report = pe.verify_rope(per_layer, GCFG)
    assert report.verdict == "verified" and set(report.layers) == {"sliding_attention", "full_attention"}
    assert all(r.verdict == "verified" for r in report.layers.values()), report.to_text()
    # one function for both: the full-attention layers lose their base and scaling
    report = pe.verify_rope(_rope, GCFG)
    assert report.verdict == "differs" and report.layers["sliding_attention"].verdict == "verified"
    assert "rope_theta fell back to 10000" in report.layers["full_attention"].to_text()
    assert "layer type 'full_attention': DIFFERS" in report.to_text() and "full_attention" in report.to_json()
    by_type = {"full_attention": lambda x, ids: _rope(x, ids, 1e6, 8.0), "sliding_attention": _rope}
    assert pe.verify_rope(by_type, GCFG).verdict == "verified"
    assert pe.verify_rope(by_type, GCFG, layer_type="full_attention").verdict == "verified"
    with pytest.raises(ValueError, match="layer_type='global'"):
        pe.verify_rope(by_type, GCFG, layer_type="global")
    with pytest.raises(ValueError, match="no entry for layer_type='full_attention'"):
        pe.verify_rope({"sliding_attention": _rope}, GCFG)


def test_a_function_given_the_wrong_position_shape_is_named():
    report = pe.verify_rope(lambda x, ids: traced_right(x, ids[0, :, :, None]), MCFG, trace=False, seed=11)
    assert report.verdict == "differs" and "M-RoPE config: position_ids (3, batch, seq)" in report.to_text()


def test_hf_gemma3_and_qwen2_vl_rotary_classes_verify_when_transformers_is_installed():
    torch = pytest.importorskip("torch")
    pytest.importorskip("transformers")
    from transformers import Gemma3TextConfig, Qwen2VLConfig
    from transformers.models.gemma3.modeling_gemma3 import Gemma3RotaryEmbedding
    from transformers.models.gemma3.modeling_gemma3 import apply_rotary_pos_emb as gemma_apply
    from transformers.models.qwen2_vl.modeling_qwen2_vl import Qwen2VLRotaryEmbedding
    from transformers.models.qwen2_vl.modeling_qwen2_vl import apply_rotary_pos_emb as qwen_apply

    hf = Gemma3RotaryEmbedding(Gemma3TextConfig(**{k: v for k, v in GCFG.items() if k != "model_type"}))
    report = pe.verify_rope((hf, gemma_apply), GCFG, seed=12)
    assert report.verdict == "verified", report.to_text()
    for rep in report.layers.values():
        assert rep.structure["method"] == "traced" and rep.structure["verdict"] == "proved", report.to_text()
        assert "why" not in rep.frequencies, report.to_text()
    rope = {"rope_type": "default", "rope_theta": 1000000.0, "mrope_section": [2, 3, 3]}
    qcfg = {"hidden_size": 64, "num_attention_heads": 4, "head_dim": 16, "max_position_embeddings": 4096,
            "rope_parameters": rope}
    hq = Qwen2VLRotaryEmbedding(Qwen2VLConfig(**qcfg).get_text_config())
    report = pe.verify_rope((hq, qwen_apply), qcfg, seed=12)
    assert report.verdict == "verified", report.to_text()
    assert report.structure["method"] == "traced" and "why" not in report.frequencies, report.to_text()
    del torch


def test_the_precision_bound_says_whether_gappa_proved_it(monkeypatch):
    from pe_symbolic.audit import gappa
    from pe_symbolic.audit.verify import probe

    report = pe.verify_rope(traced_right, CFG, seed=13)
    if gappa.gappa_path() is not None:
        assert report.precision["bound"].startswith("rounding proved by Gappa"), report.to_text()
    monkeypatch.setattr(probe, "gappa_path", lambda: None)
    probe.gappa_rotation_units.cache_clear()
    try:
        report = pe.verify_rope(traced_right, CFG, seed=13)
    finally:
        probe.gappa_rotation_units.cache_clear()
    assert report.verdict == "verified" and report.precision["bound"].startswith("first-order estimate")
    assert "gappa is not installed" in report.precision["bound"]


def test_a_truncating_cast_is_never_read_as_exact_by_the_torch_trace():
    torch = pytest.importorskip("torch")

    def quantised_angles(x, ids):  # angles truncated to 1/64 rad through an integer cast
        inv = 1.0 / (10000.0 ** (torch.arange(0, 16, 2, dtype=torch.float64) / 16))
        ang = (ids[..., None].double() * inv * 64).long().double() / 64
        emb = torch.cat([ang, ang], -1)
        cos, sin = emb.cos()[:, None].to(x.dtype), emb.sin()[:, None].to(x.dtype)
        return x * cos + torch.cat([-x[..., 8:], x[..., :8]], -1) * sin

    report = pe.verify_rope(quantised_angles, CFG, seed=14)
    assert report.structure["method"] == "tested", report.to_text()
    assert "truncates" in report.structure["not_traced"]
    assert report.verdict == "differs", report.to_text()


def test_metas_complex_rope_is_traced_and_its_conjugate_refuted():
    torch = pytest.importorskip("torch")

    def meta(x, ids, conj=False):  # Meta's Llama: interleaved pairs as complex numbers times e^{i m theta}
        inv = 1.0 / (10000.0 ** (torch.arange(0, 16, 2, dtype=torch.float64) / 16))
        freqs = ids[..., None].double() * inv
        cis = torch.polar(torch.ones_like(freqs), freqs)[:, None]
        xc = torch.view_as_complex(x.double().reshape(*x.shape[:-1], -1, 2))
        return torch.view_as_real(xc * (cis.conj() if conj else cis)).flatten(3).to(x.dtype)

    report = pe.verify_rope(meta, CFG, layout="interleaved", framework="torch")
    assert report.verdict == "verified" and report.structure["method"] == "traced", report.to_text()
    report = pe.verify_rope(lambda x, ids: meta(x, ids, conj=True), CFG, layout="interleaved", framework="torch")
    assert report.structure["method"] == "traced" and report.structure["verdict"] == "refuted", report.to_text()
    assert "wrong way" in report.to_text()


def test_pairs_the_config_never_turns_must_not_turn():
    cfg = {"head_dim": 16, "hidden_size": 64, "num_attention_heads": 4, "max_position_embeddings": 4096,
           "rope_parameters": {"rope_type": "proportional", "rope_theta": 10000.0, "partial_rotary_factor": 0.5}}
    inv = np.array([float(v) for v in pe.reference.rope_frequencies(cfg)[0]])  # four ladder values, four zeros

    def proportional(x, ids, inv=inv):
        ang = ids[..., None] * inv
        emb = np.concatenate([ang, ang], -1)
        return x * np.cos(emb)[:, None] + _rotate_half(x) * np.sin(emb)[:, None]

    for trace, verdict in ((True, "verified"), (False, "consistent (tested)")):
        assert pe.verify_rope(proportional, cfg, trace=trace, seed=15).verdict == verdict
        report = pe.verify_rope(lambda x, ids: proportional(x, ids, INV16), cfg, trace=trace, seed=15)
        assert report.verdict == "differs", report.to_text()
        if trace:
            assert "where the config means 0 (this pair must not turn)" in report.to_text() or \
                report.structure["verdict"] != "proved", report.to_text()


def test_a_missing_attention_factor_is_named_from_the_trace():
    cfg = {**CFG, "rope_scaling": {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 1024}}
    inv, factor = pe.reference.rope_frequencies(cfg)
    inv = np.array([float(v) for v in inv])

    def yarn(x, ids, scale):
        cos, sin = _sym_tables(ids, inv, scale, scale)
        return x * cos + _rotate_half(x) * sin

    report = pe.verify_rope(lambda x, ids: yarn(x, ids, 1.0), cfg)
    assert report.structure["method"] == "traced" and report.verdict == "differs", report.to_text()
    assert f"scaled by 1, the config means {float(factor):.6g}" in report.to_text(), report.to_text()
    report = pe.verify_rope(lambda x, ids: yarn(x, ids, float(factor)), cfg)
    assert report.verdict == "verified" and report.structure["method"] == "traced", report.to_text()


def test_bad_arguments_of_the_new_keywords_are_named():
    with pytest.raises(TypeError, match="trace='yes'"):
        pe.verify_rope(traced_right, CFG, trace="yes")
    with pytest.raises(ValueError, match="seed=-1"):
        pe.verify_rope(traced_right, CFG, seed=-1)
    with pytest.raises(ValueError, match="length=0"):
        pe.verify_rope(traced_right, CFG, length=0)
    with pytest.raises(TypeError, match="fn=3 is not callable"):
        pe.verify_rope({"full_attention": 3}, GCFG)
    with pytest.raises(ValueError, match="context=2"):
        pe.verify_rope(traced_right, CFG, context=2)


def test_jax_code_is_traced_through_its_jaxpr():
    jax = pytest.importorskip("jax")
    jnp = jax.numpy

    def rope(x, ids, sign=1.0):
        inv = 1.0 / (10000.0 ** (jnp.arange(0, 16, 2, dtype=jnp.float32) / 16))
        emb = jnp.concatenate([ids[..., None] * inv] * 2, -1)
        return x * jnp.cos(emb)[:, None] + sign * jnp.concatenate([-x[..., 8:], x[..., :8]], -1) * jnp.sin(emb)[:, None]

    report = pe.verify_rope(rope, CFG, framework="jax", context=1024, seed=19)  # JAX compiles per shape
    assert report.structure["method"] == "traced" and report.structure["verdict"] == "proved", report.to_text()
    assert "angles in float32" in report.to_text()  # float32 angles: out of bound, and said why
    report = pe.verify_rope(lambda x, ids: rope(x, ids, -1.0), CFG, framework="jax", context=1024, seed=19)
    assert report.structure["verdict"] == "refuted" and "wrong way" in report.to_text(), report.to_text()


def test_interleaved_in_split_out_is_the_layout_deepseek_weights_need():
    def in_split_out(x, ids):  # HF's apply_rotary_pos_emb_interleave, in NumPy
        cos, sin = _sym_tables(ids)
        cos, sin = cos[..., :8], sin[..., :8]
        x1, x2 = x[..., 0::2], x[..., 1::2]
        return np.concatenate([x1 * cos - x2 * sin, x2 * cos + x1 * sin], -1)

    report = pe.verify_rope(in_split_out, CFG, layout="interleaved-in-split-out")
    assert report.verdict == "verified" and report.structure["method"] == "traced", report.to_text()
    assert pe.verify_rope(in_split_out, CFG).verdict == "differs"  # against split weights
    # HF's default layout for this model type; DeepseekV3Config sets head_dim = qk_rope_head_dim
    # (its default 64 where a config leaves it out), so the rotated width is given as that key
    deepseek = {**CFG, "model_type": "deepseek_v3", "qk_rope_head_dim": CFG["head_dim"]}
    assert pe.verify_rope(in_split_out, deepseek).verdict == "verified"
    report = pe.verify_rope(traced_right, deepseek)
    assert report.verdict == "differs" and "apply_rotary_pos_emb_interleave" in report.to_text(), report.to_text()


def test_hf_deepseek_v3_rotary_with_its_interleave_verifies_when_transformers_is_installed():
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    from transformers import DeepseekV3Config
    from transformers.models.deepseek_v3.modeling_deepseek_v3 import (
        DeepseekV3RotaryEmbedding,
        apply_rotary_pos_emb,
        apply_rotary_pos_emb_interleave,
    )

    cfg = pe.numeric.model_config("deepseek-v3")
    emb = DeepseekV3RotaryEmbedding(DeepseekV3Config(**{k: v for k, v in cfg.items()
                                                        if k not in ("architectures", "auto_map", "quantization_config")}))
    report = pe.verify_rope((emb, apply_rotary_pos_emb_interleave), cfg, framework="torch", context=8192)
    assert report.structure["verdict"] == "proved" and "why" not in report.frequencies, report.to_text()
    report = pe.verify_rope((emb, apply_rotary_pos_emb), cfg, framework="torch", context=8192)
    assert report.structure["verdict"] == "refuted", report.to_text()


def test_with_its_positions_cast_too_a_function_right_only_on_object_arrays_differs():
    def object_only_cast(x, ids):  # a float cast of the positions is exact in the trace
        return object_arrays_only(x, ids.astype(np.float64))

    report = pe.verify_rope(object_only_cast, CFG, seed=16)
    assert report.structure["method"] == "traced", report.to_text()
    assert report.verdict == "differs" and "departs from its traced graph" in report.to_text(), report.to_text()


def test_a_cached_table_indexed_by_position_ids_is_tested_not_proved():
    torch = pytest.importorskip("torch")
    inv = 1.0 / (10000.0 ** (torch.arange(0, 16, 2, dtype=torch.float64) / 16))
    emb = torch.cat([torch.outer(torch.arange(4096, dtype=torch.float64), inv)] * 2, -1)
    cos_cached, sin_cached = emb.cos(), emb.sin()

    def cached(x, ids):  # the pre-4.38 HF pattern: tables built once, indexed by position_ids
        cos, sin = cos_cached[ids][:, None].to(x.dtype), sin_cached[ids][:, None].to(x.dtype)
        return x * cos + torch.cat([-x[..., 8:], x[..., :8]], -1) * sin

    report = pe.verify_rope(cached, CFG, seed=17)
    # a table lookup by position is not branch-free: not proved, every position of the table tested
    assert report.verdict == "consistent (tested)" and report.structure["method"] == "tested", report.to_text()
    assert "every position 0..4095" in report.tests["summary"]


def test_a_trailing_channel_rope_is_checked_on_its_trailing_channels():
    # DeepSeek-V4 rotates the LAST rotary_dim channels, in interleaved pairs: checked there, and
    # the same rotation on the leading channels differs
    config = {"model_type": "deepseek_v4", "hidden_size": 256, "num_attention_heads": 8, "head_dim": 32,
              "qk_rope_head_dim": 8, "max_position_embeddings": 4096, "rope_theta": 10000,
              "compress_rope_theta": 160000, "compress_ratios": [0, 0, 4, 128, 4, 0], "num_hidden_layers": 6}
    inv = 10000.0 ** (-np.arange(0, 8, 2) / 8)

    def v4(x, ids, trailing=True):
        emb = np.repeat(ids[..., None] * inv, 2, -1)[:, None]
        part = x[..., -8:] if trailing else x[..., :8]
        rot = np.stack([-part[..., 1::2], part[..., ::2]], -1).reshape(part.shape)
        out = part * np.cos(emb) + rot * np.sin(emb)
        return np.concatenate([x[..., :-8], out], -1) if trailing else np.concatenate([out, x[..., 8:]], -1)

    report = pe.verify_rope(v4, config, layer_type="main", seed=18)
    assert report.verdict == "verified", report.to_text()
    assert "the last 8 of 32 dims rotated" in report.structure["summary"]
    assert report.conventions["rotary_channels"] == "trailing 8 of 32"
    report = pe.verify_rope(lambda x, ids: v4(x, ids, trailing=False), config, layer_type="main", seed=18)
    assert report.verdict == "differs", report.to_text()
