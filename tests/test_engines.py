"""Issue 34, engines as recipes of formulas: each engine's RoPE against HF's, by the proof kernel.

The known divergences must be found and explained, and no formula that differs only at one
pair, only past a length or only for a factor != 1 may be reported ``equal (proved)``. The
configs here are small (head_dim 8) so every kernel call is quick; the shipped models run in
``pe-audit --engines`` (the docs show its output).
"""

from __future__ import annotations

import dataclasses
import json
import math

import mpmath
import pytest
import sympy as sp

from pe_symbolic import engines, reference
from pe_symbolic.cli.audit import main as audit_main
from pe_symbolic.engines import compare as C
from pe_symbolic.engines.recipes import M, N, Regime, recipe

BASE = {"head_dim": 8, "max_position_embeddings": 64, "rope_theta": 100.0}


def cfg(**rope):
    return {**BASE, "rope_scaling": rope} if rope else dict(BASE)


def layer(config):
    (lay,) = engines.layer_ropes(config)
    return lay


def check(config, engine, generic=True):
    rep = C.compare_layer(layer(config), [engine], generic=generic, timeout=30, generic_timeout=15)
    (out,) = rep.checks
    return out


# ----------------------------------------------------------------------------------------
# the four known divergences


def test_dynamic_ntk_pre_41277_and_sglang_are_static_ntk_with_base_multiplier_s2_minus_s_plus_1():
    c = cfg(rope_type="dynamic", factor=4.0)
    for engine in ("vllm<41277", "sglang"):
        out = check(c, engine, generic=False)
        assert out.verdict == "differs"
        bad = next(r for r in out.ranges if r.verdict == "refuted")
        assert bad.lo == 1 and bad.first_position == 1 and bad.first_length == 2  # from the first tokens on
        (reg,) = out.recipe.regimes
        # base b (s^2 - s + 1)^(d/(d-2)) = 100 * 13^(4/3): pair 1 is b'^(-2/8)
        assert sp.simplify(reg.omegas[1] - (100 * sp.Integer(13) ** sp.Rational(4, 3)) ** sp.Rational(-1, 4)) == 0
        assert any("s**2 - s + 1" in n and "13" in n for n in out.recipe.notes)


def test_dynamic_ntk_after_41277_differs_only_past_the_original_length():
    out = check(cfg(rope_type="dynamic", factor=4.0), "vllm", generic=False)
    assert out.verdict == "differs"  # not "equal (proved)": it agrees up to n = L only
    proved = [r for r in out.ranges if r.verdict == "proved"]
    refuted = [r for r in out.ranges if r.verdict == "refuted"]
    assert [(r.lo, r.hi) for r in proved] == [(1, 64)]
    assert refuted[0].lo == 65 and refuted[0].first_length == 65


def test_dynamic_ntk_mlx_equals_hf_for_every_config():
    out = check(cfg(rope_type="dynamic", factor=4.0), "mlx-lm")
    assert out.verdict == "equal (proved)" and out.generic_verdict == "proved"


def test_trtllm_laguna_sends_attention_factor_through_the_log_a_second_time():
    c = cfg(rope_type="yarn", factor=4.0, original_max_position_embeddings=16, attention_factor=1.2)
    out = check(c, "tensorrt-llm laguna<16379", generic=False)
    assert out.verdict == "differs"
    (reg,) = out.recipe.regimes
    a = sp.Rational(1.2)
    assert sp.simplify(reg.attention - (sp.Rational(1, 10) * a * sp.log(4) + 1)) == 0
    assert sp.simplify(recipe("hf", layer(c)).regimes[0].attention - a) == 0
    bad = next(r for r in out.ranges if r.verdict == "refuted")
    assert bad.first_position == 0 and "attention factor" in bad.detail
    # without attention_factor the two readers agree with HF at this config
    plain = cfg(rope_type="yarn", factor=4.0, original_max_position_embeddings=16)
    assert check(plain, "tensorrt-llm laguna<16379", generic=False).verdict.startswith("equal here")


def test_llamacpp_ext_factor_zero_drops_the_magnitude_factor_and_the_ramp():
    c = cfg(rope_type="yarn", factor=4.0, original_max_position_embeddings=16)
    out = check(c, "llama.cpp ext=0", generic=False)
    assert out.verdict == "differs"
    (reg,) = out.recipe.regimes
    assert reg.attention == 1
    assert all(sp.simplify(w - 100 ** sp.Rational(-2 * i, 8) / 4) == 0 for i, w in enumerate(reg.omegas))
    hf_att = recipe("hf", layer(c)).regimes[0].attention
    assert sp.simplify(hf_att - (sp.log(4) / 10 + 1)) == 0
    # llama.cpp's default (ext_factor = 1) keeps both, at this config
    assert check(c, "llama.cpp", generic=False).verdict.startswith("equal here")


def test_gemma4_proportional_ignores_factor_equal_here_only_when_factor_is_1():
    g = {**BASE, "head_dim": 16, "rope_parameters": {"rope_type": "proportional", "partial_rotary_factor": 0.5,
                                                       "factor": 1.0, "rope_theta": 100.0}}
    for engine in ("vllm", "sglang"):
        out = check(g, engine)
        assert out.verdict == "equal here (proved); differs elsewhere"
        assert "factor" in out.generic_explanation
    g2 = json.loads(json.dumps(g))
    g2["rope_parameters"]["factor"] = 8.0
    assert check(g2, "vllm", generic=False).verdict == "differs"
    assert check(g2, "mlx-lm").verdict == "equal (proved)"  # MLX's ProportionalRoPE divides by factor


# ----------------------------------------------------------------------------------------
# more engine divergences found on the way


def test_yarn_truncate_false_is_read_by_vllm_and_sglang_only():
    c = {"head_dim": 32, "max_position_embeddings": 131072, "rope_theta": 10000.0,
         "rope_scaling": {"rope_type": "yarn", "factor": 32.0, "original_max_position_embeddings": 4096,
                          "truncate": False}}
    for engine in ("vllm", "sglang"):
        assert check(c, engine, generic=False).verdict.startswith("equal")
    for engine in ("llama.cpp", "tensorrt-llm", "mlx-lm"):
        assert check(c, engine, generic=False).verdict == "differs"


def test_vllm_yarn_ignores_mscale_and_mscale_all_dim():
    c = cfg(rope_type="yarn", factor=16.0, original_max_position_embeddings=16, mscale=1.0, mscale_all_dim=1.0)
    assert recipe("hf", layer(c)).regimes[0].attention == 1
    out = check(c, "vllm", generic=False)
    assert out.verdict == "differs" and out.ranges[0].first_position == 0
    assert check(c, "sglang", generic=False).verdict.startswith("equal here")


def test_sglang_longrope_switches_one_length_later_than_hf():
    c = {**BASE, "original_max_position_embeddings": 16,
         "rope_scaling": {"rope_type": "longrope", "short_factor": [1.0, 1.0, 1.0, 1.0],
                          "long_factor": [1.0, 2.0, 4.0, 8.0]}}
    out = check(c, "sglang", generic=False)
    assert out.verdict == "differs"
    bad = [r for r in out.ranges if r.verdict == "refuted"]
    assert [(r.lo, r.hi) for r in bad] == [(17, 17)]  # exactly one length: original + 1
    # vLLM and MLX use the long factors at every length (max_model_len > original): differ below it
    for engine in ("vllm", "mlx-lm"):
        r = check(c, engine, generic=False)
        assert r.verdict == "differs" and next(x for x in r.ranges if x.verdict == "refuted").hi == 16


def test_llamacpp_llama3_reads_original_context_from_the_top_level_default_8192():
    c = cfg(rope_type="llama3", factor=8.0, low_freq_factor=1.0, high_freq_factor=4.0,
            original_max_position_embeddings=8192)
    assert check(c, "llama.cpp", generic=False).verdict.startswith("equal here")
    c2 = cfg(rope_type="llama3", factor=8.0, low_freq_factor=1.0, high_freq_factor=4.0,
             original_max_position_embeddings=4096)
    d = {**c2, "rope_theta": 10000.0, "head_dim": 64}
    assert check(d, "llama.cpp", generic=False).verdict == "differs"
    top = {**d, "original_max_position_embeddings": 4096}
    assert check(top, "llama.cpp", generic=False).verdict.startswith("equal here")


# ----------------------------------------------------------------------------------------
# attacks: what must never read "equal (proved)"


def _fake(rec, **change):
    return dataclasses.replace(rec, **change)


def test_an_engine_off_at_one_pair_only_is_refuted_at_that_pair():
    lay = layer(cfg())
    hf = recipe("hf", lay)
    (reg,) = hf.regimes
    om = list(reg.omegas)
    om[3] = om[3] * (1 + sp.Rational(1, 10**12))
    fake = _fake(hf, engine="fake", regimes=(Regime(reg.lo, None, tuple(om), reg.attention),))
    (r,) = C._compare(hf, fake, (), 30)
    assert r.verdict == "refuted" and "1 of 4 pairs differ, first pair 3" in r.detail


def test_an_engine_off_past_a_length_only_is_refuted_past_it():
    lay = layer(cfg())
    hf = recipe("hf", lay)
    (reg,) = hf.regimes
    late = Regime(sp.Integer(1000), None, tuple(w * 2 for w in reg.omegas), reg.attention)
    fake = _fake(hf, engine="fake", regimes=(Regime(reg.lo, sp.Integer(999), reg.omegas, reg.attention), late))
    out = C._compare(hf, fake, (), 30)
    assert [r.verdict for r in out] == ["proved", "refuted"]
    assert out[1].first_length == 1000


def test_an_engine_off_in_the_attention_factor_only_parts_at_position_0():
    lay = layer(cfg())
    hf = recipe("hf", lay)
    (reg,) = hf.regimes
    fake = _fake(hf, engine="fake", regimes=(Regime(reg.lo, None, reg.omegas, sp.Integer(1) + sp.Rational(1, 10**9)),))
    (r,) = C._compare(hf, fake, (), 30)
    assert r.verdict == "refuted" and r.first_position == 0


def test_an_angle_that_depends_on_length_inside_a_range_is_not_proved_equal():
    lay = layer(cfg())
    hf = recipe("hf", lay)
    (reg,) = hf.regimes
    drift = tuple(w * (1 + (N - 1) / 10**6) for w in reg.omegas)  # equal at n = 1 only
    fake = _fake(hf, engine="fake", regimes=(Regime(reg.lo, None, drift, reg.attention),))
    (r,) = C._compare(hf, fake, (), 30)
    assert r.verdict == "refuted"


def test_report_verdict_strings_and_exit_status(tmp_path, capsys):
    path = tmp_path / "config.json"
    path.write_text(json.dumps(cfg(rope_type="dynamic", factor=4.0)))
    code = audit_main([str(path), "--engines"])
    out = capsys.readouterr().out
    assert code == 1  # an engine differs
    assert "sglang: differs" in out and "mlx-lm: equal (proved)" in out
    assert "llama.cpp: unsupported" in out
    assert "50feac95f9e5 (DynamicNTKScalingRotaryEmbedding, before PR 41277)" in out  # the cited commit
    assert max(len(line) for line in out.splitlines()) <= 100
    path.write_text(json.dumps(cfg(rope_type="linear", factor=2.0)))
    code = audit_main([str(path), "--engines", "--format", "json"])
    verdicts = json.loads(capsys.readouterr().out)
    assert code == 0 and verdicts[":vllm"] == "equal (proved)"


def test_engine_report_refuses_unknown_engines_and_configs():
    with pytest.raises(ValueError, match="'vlm' is not one of"):
        engines.engine_report(cfg(), ["vlm"])
    with pytest.raises(TypeError, match="config must be a mapping"):
        engines.layer_ropes([1, 2])
    with pytest.raises(TypeError, match="must be a number"):
        engines.exact("8")


# ----------------------------------------------------------------------------------------
# HF's recipe against the independent oracle (written from the same published code, no SymPy)


@pytest.mark.parametrize("name", ["llama-3.1-8b", "qwen2.5-7b-yarn", "gpt-oss-20b", "ministral-3-8b",
                                  "phi-3.5-mini", "llama-2-7b-dynamic-ntk", "mistral-7b"])
def test_hf_recipe_matches_the_oracle(name):
    from pe_symbolic.numeric import model_config

    config = model_config(name)
    (lay,) = engines.layer_ropes(config)
    rec = recipe("hf", lay)
    for reg in rec.regimes:
        n = int(reg.lo) if reg.hi is None else int(reg.hi)
        inv, att = reference.rope_frequencies(config, seq_len=n, dps=40)
        got = [sp.N(w.subs(N, n), 40) for w in reg.omegas]
        assert len(got) == len(inv)
        with mpmath.workdps(40):
            for g, want in zip(got, inv):
                assert abs(mpmath.mpf(str(g)) - want) <= mpmath.mpf(10) ** -30 * (1 + abs(want))
            assert abs(mpmath.mpf(str(sp.N(reg.attention.subs(N, n), 40))) - att) <= mpmath.mpf(10) ** -30


def test_hf_recipe_matches_transformers_rope_init_functions():
    torch = pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    from transformers.modeling_rope_utils import ROPE_INIT_FUNCTIONS

    config = transformers.LlamaConfig(head_dim=8, hidden_size=32, num_attention_heads=4, max_position_embeddings=64,
                                      rope_parameters={"rope_type": "yarn", "factor": 4.0, "rope_theta": 100.0,
                                                       "original_max_position_embeddings": 16})
    inv, att = ROPE_INIT_FUNCTIONS["yarn"](config, "cpu")
    rec = recipe("hf", layer(cfg(rope_type="yarn", factor=4.0, original_max_position_embeddings=16)))
    (reg,) = rec.regimes
    assert [float(sp.N(w)) for w in reg.omegas] == pytest.approx(inv.to(torch.float64).tolist(), rel=1e-6)
    assert float(sp.N(reg.attention)) == pytest.approx(att, rel=1e-12)


def test_recipes_cite_a_file_and_commit_for_every_engine():
    lay = layer(cfg(rope_type="yarn", factor=4.0, original_max_position_embeddings=16))
    for name in engines.ENGINES:
        rec = recipe(name, lay)
        assert rec.sources and all(s.repo and s.path for s in rec.sources)
        assert any(len(s.commit) == 40 for s in rec.sources), name


def test_every_pair_and_position_is_covered():
    """The kernel sees m * omega_i for every pair i and the symbolic position m."""
    lay = layer(cfg(rope_type="linear", factor=2.0))
    (reg,) = recipe("vllm", lay).regimes
    vec = C._vector(reg)
    assert len(vec) == 4 + 1 and all(M in v.free_symbols for v in vec[:-1])
    assert math.isclose(float(vec[1].subs(M, 1)), 100 ** -0.25 / 2)
