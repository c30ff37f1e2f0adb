"""pe.audit and pe-audit: recipes as data, the emulation, measured <= bound, the oracle
agrees, the fix is verified, bad input is refused by name, exit codes 0 / 1 / 2.

Tests that test themselves: the naive recipes (bf16 positions, bf16 tables, the running
product) must come out worse than the careful ones, by the amounts the bound predicts.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

import pe_symbolic as pe
from pe_symbolic.audit import Recipe, load_target, recipes
from pe_symbolic.audit.bounds import angle_bound
from pe_symbolic.audit.emulate import Emulation, rnd, rope_target
from pe_symbolic.audit.measure import band_edges, measure
from pe_symbolic.cli.audit import main

LLAMA = "llama-3.1-8b"
ROPE_PRESETS = [n for n, r in recipes.PRESETS.items() if r.kind == "rope"]
SIN_PRESETS = [n for n, r in recipes.PRESETS.items() if r.kind == "sinusoidal"]


@pytest.fixture(scope="module")
def llama():
    return rope_target(pe.numeric.model_config(LLAMA), LLAMA)


# ----------------------------------------------------------------------------------------
# recipes and the emulation's rounding


def test_divide_recipe_refuses_a_scaled_config(llama):
    with pytest.raises(ValueError, match="inv_freq='divide'.*plain ladder only"):
        Emulation(llama, recipes.PRESETS["maxtext"], "bfloat16")


def test_tf32_rounds_positions_above_2048():
    from pe_symbolic.audit.emulate import rnd

    assert rnd(np.arange(2045, 2054, dtype=np.float64), "tf32").tolist() == [
        2045, 2046, 2047, 2048, 2048, 2050, 2052, 2052, 2052]


def test_every_preset_has_a_source_note_and_the_issue_names():
    assert set(recipes.preset_names()) == {
        "hf", "hf-autocast", "gpt-neox", "vllm", "vllm-legacy", "torchtune", "flash-attn", "liger", "llama.cpp", "mlx",
        "rotary-embedding-torch", "t2t", "fairseq", "distilbert", "pe_symbolic",
        "pe_symbolic-torch", "pe_symbolic-jax",
        "hf-tf32", "vllm-fp32", "sglang", "flashinfer", "tensorrt-llm", "maxtext", "keras-hub"}
    for r in recipes.PRESETS.values():
        assert len(r.source) > 40


@pytest.mark.parametrize(("fields", "match"), [
    ({"inv_freq": "running", "angle_dtype": "float64"}, "running.*contradicts"),
    ({"reduce": True}, "reduce=True.*angle_dtype='float32'"),
    ({"kind": "sinusoidal", "rotation_dtype": "float32"}, "rotation_dtype.*sinusoidal table has no rotation"),
    ({"schedule": "tensor2tensor"}, "schedule='tensor2tensor' is for sinusoidal"),
    ({"inv_freq": "exact"}, "inv_freq='exact'.*contradict"),
    ({"angle_dtype": "float8"}, r"angle_dtype='float8' is not allowed; use one of 'float64'"),
])
def test_contradictory_or_unknown_recipe_fields_are_refused(fields, match):
    with pytest.raises(ValueError, match=match):
        Recipe("mine", **fields)


def test_bfloat16_rounding_matches_ml_dtypes_and_is_single_from_float64():
    rng = np.random.default_rng(0)
    x32 = (rng.standard_normal(100000) * 10.0 ** rng.integers(-20, 20, 100000)).astype(np.float32)
    from pe_symbolic.numeric._checks import bfloat16

    np.testing.assert_array_equal(rnd(x32, "bfloat16"), x32.astype(bfloat16()).astype(np.float32))
    assert rnd(np.array([1 + 2**-8 + 2**-30]), "bfloat16")[0] == 1 + 2**-7  # not twice


def test_emulated_inverse_frequencies_match_torchs_float32_formula(llama):
    """HF's 1/(b ** (arange/d)) in float32: pow correctly rounded, as torch's is."""
    em = Emulation(llama.__class__(**{**llama.__dict__}), recipes.PRESETS["hf"], "float32")
    e = (np.arange(0, 128, 2, dtype=np.float32) / np.float32(128)).astype(np.float32)
    ladder = (np.float32(1) / np.power(np.float64(500000.0), e.astype(np.float64)).astype(np.float32))
    kept = np.arange(64) < 29  # pairs 0..28 keep theta (llama3.bands_llama31)
    np.testing.assert_array_equal(em.inv[kept], ladder[kept].astype(np.float64))
    assert np.all(em.eps[kept] <= 2 * 2.0**-24)


# ----------------------------------------------------------------------------------------
# measured <= bound, the oracle agrees, the naive recipes are worse


@pytest.mark.parametrize("name", ROPE_PRESETS)
@pytest.mark.parametrize("dtype", ["bfloat16", "float16", "float32", "float64"])
def test_every_rope_preset_is_within_its_bounds_and_the_oracle_agrees(llama, name, dtype):
    target = llama
    if recipes.PRESETS[name].inv_freq == "divide":  # MaxText: plain ladders only
        target = rope_target(pe.numeric.model_config("mistral-7b"), "mistral-7b")
    em = Emulation(target, recipes.PRESETS[name], dtype)
    res = measure(em, 20000, oracle_points=1)
    for band in res.bands:
        for m, v in band.measured.items():
            assert v <= band.bound[m], (name, dtype, band.start, m, v, band.bound[m])
    assert res.oracle["points"] >= 2 * len(res.bands)
    assert res.oracle["angle_rel"] <= 1e-12
    assert res.oracle["table_abs"] <= 1e-15


@pytest.mark.parametrize("config", ["qwen2.5-7b-yarn", "gemma-3-27b", "phi-3.5-mini", "mistral-7b", "gpt-neox-20b"])
@pytest.mark.parametrize("name", ["hf", "llama.cpp", "mlx", "pe_symbolic"])
def test_scaled_and_partial_configs_within_bounds(config, name):
    layer = "full_attention" if config == "gemma-3-27b" else None
    tg = rope_target(pe.numeric.model_config(config), config, layer_type=layer, seq_len=200000)
    res = measure(Emulation(tg, recipes.PRESETS[name], "bfloat16"), 5000, oracle_points=1)
    assert res.within_bounds
    assert res.oracle["table_abs"] <= 1e-15


@pytest.mark.parametrize("name", SIN_PRESETS)
@pytest.mark.parametrize("dtype", ["float16", "float32"])
def test_sinusoidal_presets_within_bounds(name, dtype):
    rep = pe.audit("sinusoidal:512", recipe=name, dtype=dtype, context=3000)
    r = rep.results[0]
    assert r.within_bounds
    assert r.oracle["table_abs"] <= 1e-15
    assert math.isnan(r.measured("output"))


def test_the_naive_recipes_are_worse_by_what_the_bound_says():
    """A test of the test: bf16 positions, bf16 tables, a running product, each visibly worse."""
    rep = pe.audit(LLAMA, recipe=["hf-autocast", "hf", "llama.cpp", "torchtune", "pe_symbolic"],
                   dtype="bfloat16", context=32768)
    got = {r.recipe.name: r for r in rep.results}
    # positions held in bfloat16 (257 -> 256): hundreds of radians, position 257 first inexact
    assert got["hf-autocast"].measured("angle") > 10
    assert got["hf-autocast"].representability["first_inexact"] == 257
    assert got["hf-autocast"].dominant == "positions held in bfloat16"
    # float32 product: ~ u32 * t at pair 0
    assert 1e-4 < got["hf"].measured("angle") < 32768 * 2 * 2.0**-24 * 1.01
    # llama.cpp's running product accumulates: worse than the direct product
    assert got["llama.cpp"].measured("angle") > 1.3 * got["hf"].measured("angle")
    assert got["llama.cpp"].dominant.startswith("running product")
    # tables cast to bfloat16 and rotation in bfloat16 vs float32 tables and rotation
    assert got["hf"].measured("output") > 1.3 * got["torchtune"].measured("output")
    # ours: the table within half an ulp of float32, the output within one bf16 rounding
    assert got["pe_symbolic"].measured("table") <= 2.0**-24 + 1e-15
    assert got["pe_symbolic"].measured("output") <= math.sqrt(2) * 2.0**-8 * 1.05
    assert got["pe_symbolic"].measured("angle") == 0.0


def test_angle_bound_names_the_dominant_cast(llama):
    # every rounding of the recipe is a part; the label names the largest one. (Which of
    # MLX's two float32 roundings is larger at the worst pair depends on how close the
    # machine's float32 exp2 happens to come there: NumPy's SIMD exp2 differs by CPU.)
    b = angle_bound(Emulation(llama, recipes.PRESETS["mlx"], "bfloat16"), 100000.0)
    assert {"inv_freq (exp2 in float32)", "the float32 product t*theta"} <= set(b.parts)
    assert b.parts[b.dominant] == max(b.parts.values())
    # a cast that dominates by orders of magnitude is named whatever the machine
    em = Emulation(llama, recipes.PRESETS["hf"].replace(name="x", inv_freq_storage="bfloat16"), "float32")
    assert angle_bound(em, 100000.0).dominant.startswith("inv_freq (reciprocal, held in bfloat16)")
    em = Emulation(llama, recipes.PRESETS["hf"].replace(name="x", position_dtype="bfloat16"), "float32")
    assert angle_bound(em, 100000.0).dominant == "positions held in bfloat16"
    em = Emulation(llama, recipes.PRESETS["llama.cpp"], "float32")
    assert angle_bound(em, 100000.0).dominant.startswith("running product")


# ----------------------------------------------------------------------------------------
# tolerance, fixes, large contexts


def test_a_broken_tolerance_gets_the_smallest_verified_fix():
    rep = pe.audit(LLAMA, recipe="hf", dtype="bfloat16", context=131072, tol=1e-3)
    r = rep.results[0]
    assert not rep.passed and rep.exit_code == 1
    assert r.fix is not None and r.fix.verified
    assert r.fix.measured <= 1e-3
    assert "reduce them modulo 2*pi" in r.fix.label
    # a cheaper candidate (float64 angles, then a float32 cast) is not enough: said by running it
    cheaper = r.recipe.replace(name="f64", position_dtype="int64", inv_freq_dtype="float64", angle_dtype="float64")
    rep2 = pe.audit(LLAMA, recipe=cheaper, dtype="bfloat16", context=131072)
    assert rep2.results[0].measured("angle") > 1e-3


def test_tolerance_that_holds_exits_zero():
    # one bfloat16 rounding of a unit pair: sqrt(2) * 2**-9 = 2.8e-3
    rep = pe.audit(LLAMA, recipe="pe_symbolic", dtype="bfloat16", context=8192, tol=3e-3, metric="output")
    assert rep.passed and rep.exit_code == 0 and rep.results[0].fix is None


def test_contexts_up_to_2_53_are_sampled_and_stay_within_bounds():
    rep = pe.audit(LLAMA, recipe=["hf", "pe_symbolic"], dtype="float32", context=2**53)
    for r in rep.results:
        assert r.within_bounds
        assert not r.bands[-1].exhaustive and r.bands[-1].stop == 2**53
        assert "sampled" in r.note
    hf = rep.results[0]
    assert hf.representability["first_inexact"] == 2**24 + 1
    assert hf.measured("angle") > 1e6  # positions of 2**53 in float32: hopeless, and said so


def test_band_edges_cover_the_context():
    e = band_edges(1_000_000)
    assert e[0] == 0 and e[-1] == 1_000_000 and all(a < b for a, b in zip(e, e[1:]))


# ----------------------------------------------------------------------------------------
# bad input


@pytest.mark.parametrize(("kwargs", "err", "match"), [
    (dict(recipe="hugginface"), ValueError, r"recipe='hugginface' is not allowed; use one of 'hf'"),
    (dict(dtype="float8"), ValueError, r"dtype='float8' is not allowed; use one of 'float64', 'float32'"),
    (dict(context=0), ValueError, r"context=0 is not allowed: it must be in 1 \.\. 2\*\*53"),
    (dict(context=2**53 + 1), ValueError, r"context=9007199254740993 is not allowed"),
    (dict(context=1.5), ValueError, r"context=1.5 must be a positive integer"),
    (dict(metric="angel"), ValueError, r"metric='angel' is not allowed.*did you mean 'angle'"),
    (dict(tol=-1.0), ValueError, r"tol=-1.0 must be a positive finite number"),
    (dict(recipe="fairseq"), ValueError,
     r"recipe 'fairseq' builds a sinusoidal table .*'llama-3.1-8b' is a RoPE config \(llama3 RoPE\)\. "
     r"A sinusoidal recipe is audited on a sinusoidal:D\[:BASE\] target \(e\.g\. sinusoidal:128:500000"),
    (dict(recipe={"name": "x", "inv_freq": "running", "angle_dtype": "float64"}), ValueError, "contradicts"),
    (dict(backend="jax"), ValueError, r"backend='jax' is not allowed"),
])
def test_bad_input_is_refused_by_name(kwargs, err, match):
    args = dict(recipe="hf", dtype="bfloat16", context=1024) | kwargs
    with pytest.raises(err, match=match):
        pe.audit(LLAMA, **args)


@pytest.mark.parametrize("config", [{"model_type": "dinov3_vit"}, {"model_type": "glm4v_vision"}, "pixtral-12b-vision"])
def test_an_axial_rope_is_refused_by_name_not_by_numpy(config):
    # 38 vision configs (issue 44's sweep of every model type) reached NumPy's "operands could
    # not be broadcast" or a positions-shape error from deep inside the emulation
    with pytest.raises(ValueError, match=r"its RoPE is axial .* a 1-D RoPE with rope_theta [0-9]+ and head_dim"):
        pe.audit(config, recipe="hf", dtype="bfloat16", context=4096)


def test_unknown_config_lists_the_shipped_ones():
    with pytest.raises(ValueError, match=r"config='lama-3.1-8b' is neither.*llama-3.1-8b.*did you mean"):
        load_target("lama-3.1-8b")


def test_torch_backend_without_torch_says_how_to_install(monkeypatch):
    import builtins

    real = builtins.__import__

    def fake(name, *a, **k):
        if name == "torch" or name.startswith("torch."):
            raise ImportError("no torch")
        return real(name, *a, **k)

    monkeypatch.setattr(builtins, "__import__", fake)
    with pytest.raises(ImportError, match=r"pip install 'pe_symbolic\[torch\]'"):
        pe.audit(LLAMA, recipe="hf", context=64, backend="torch")


# ----------------------------------------------------------------------------------------
# the command line


def test_cli_list_and_table(capsys):
    assert main(["--list"]) == 0
    out = capsys.readouterr().out
    assert "llama.cpp" in out and "theta_scale" in out
    assert main([LLAMA, "--recipe", "vllm", "--dtype", "bfloat16", "--context", "4096"]) == 0
    out = capsys.readouterr().out
    assert "vllm" in out and "bound" in out and "precision.angle: proved" in out


def test_cli_exit_codes_json_and_plot(tmp_path, capsys):
    js, png = tmp_path / "a.json", tmp_path / "a.png"
    code = main([LLAMA, "--recipe", "hf", "--recipe", "pe_symbolic", "--context", "65536", "--tol", "1e-4",
                 "--json", str(js), "--format", "json"] + (["--plot", str(png)] if _has_mpl() else []))
    assert code == 1
    data = json.loads(capsys.readouterr().out)
    assert data == json.loads(js.read_text())
    assert not data["passed"] and data["results"][0]["fix"]["verified"]
    assert data["results"][1]["max"]["angle"] == 0.0
    if _has_mpl():
        assert png.stat().st_size > 1000
    assert main([LLAMA, "--recipe", "hf", "--context", "1024", "--tol", "1"]) == 0


def _has_mpl() -> bool:
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return False
    return True


@pytest.mark.parametrize("argv, match", [
    ([LLAMA, "--recipe", "nope"], "recipe='nope' is not allowed"),
    ([LLAMA, "--dtype", "fp8"], "dtype='fp8' is not allowed"),
    ([LLAMA, "--context", "-5"], "context=-5 is not allowed"),
    ([LLAMA, "--context", "lots"], "--context='lots' is not a number"),
    ([LLAMA, "--format", "yaml"], "--format='yaml' is not allowed"),
    (["no-such-model"], "config='no-such-model' is neither"),
    ([], "CONFIG is required"),
])
def test_cli_bad_input_exits_2_with_one_line(argv, match, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert match in err and err.count("\n") == 1


def test_pe_audit_is_the_function_and_the_package_is_callable_too():
    import pe_symbolic.audit as mod

    rep = mod(LLAMA, recipe="hf", context=256)
    assert pe.audit(LLAMA, recipe="hf", context=256).results[0].measured("angle") == rep.results[0].measured("angle")


# ----------------------------------------------------------------------------------------
# the torch backend (optional: pip install 'pe_symbolic[torch]')


@pytest.mark.parametrize("dtype", ["bfloat16", "float32"])
def test_torch_backend_agrees_with_the_emulation(dtype):
    pytest.importorskip("torch")
    from pe_symbolic.audit.torch_backend import TORCH_PRESETS

    names = [n for n in TORCH_PRESETS if n != "fairseq"]
    torch_rep = pe.audit(LLAMA, recipe=names, dtype=dtype, context=20000, backend="torch")
    numpy_rep = pe.audit(LLAMA, recipe=names, dtype=dtype, context=20000)
    for a, b in zip(torch_rep.results, numpy_rep.results):
        assert a.backend == "torch-cpu" and b.backend == "numpy"
        assert a.within_bounds, a.recipe.name
        # same frequencies and products (pow correctly rounded in both); torch's float32
        # cos/sin may differ from NumPy's by an ulp (6e-8), which a bfloat16 rounding can
        # turn into one bfloat16 ulp of the output
        assert a.measured("angle") == pytest.approx(b.measured("angle"), rel=1e-9), a.recipe.name
        slack = 2.0**-7 if dtype == "bfloat16" else 4 * 2.0**-24
        assert abs(a.measured("table") - b.measured("table")) <= slack, a.recipe.name
        # output and score: the emulation also searches the inputs that make them largest
        # (adversary), the torch backend measures its seeded pairs: never more than the search
        assert not a.search and set(b.search) == {"output", "score"}
        for m in ("output", "score"):
            assert a.measured(m) <= b.measured(m) + slack, (a.recipe.name, m)


def test_torch_backend_runs_fairseq_and_emulates_the_rest():
    pytest.importorskip("torch")
    rep = pe.audit("sinusoidal:512", recipe=["fairseq", "t2t"], dtype="float16", context=4096, backend="torch")
    fs, t2t = rep.results
    assert fs.backend == "torch-cpu" and fs.within_bounds
    assert t2t.backend == "numpy" and "emulated" in t2t.note


# ----------------------------------------------------------------------------------------
# review fixes: rotary-embedding-torch's positions, non-finite values, kinds, torch's bound


def test_rotary_embedding_torch_holds_positions_in_the_activation_dtype():
    """rotate_queries_or_keys builds positions with arange(n, dtype=x.dtype): in bfloat16
    257 becomes 256; forward(t) with float32 positions is the former model."""
    pre = recipes.PRESETS["rotary-embedding-torch"]
    assert pre.position_dtype == "act"
    assert "get_seq_pos" in pre.source and "position_dtype='float32'" in pre.source
    assert "nn.Parameter" in pre.source  # the model.to(dtype) assumption is stated
    r = pe.audit(LLAMA, recipe=pre, dtype="bfloat16", context=4096).results[0]
    assert r.representability["first_inexact"] == 257
    assert r.representability["first_collision"] == [256, 257]
    assert r.dominant == "positions held in bfloat16"
    assert r.measured("angle") >= 1.0  # 257 -> 256 at pair 0 (theta_0 = 1): at least 1 rad
    assert r.within_bounds
    fwd = pe.audit(LLAMA, recipe=pre.replace(name="forward-f32", position_dtype="float32"), dtype="bfloat16",
                   context=4096).results[0]
    assert fwd.measured("angle") < 1e-3 and fwd.representability["first_inexact"] == 2**24 + 1
    # the model.to(bfloat16) variant the note names is a valid recipe, and worse
    cast = pre.replace(name="cast", inv_freq_storage="act", angle_dtype="act", trig_dtype="act",
                       table_dtype="act", rotation_dtype="act")
    assert pe.audit(LLAMA, recipe=cast, dtype="bfloat16", context=4096).results[0].measured("output") > \
        r.measured("output")


def test_gpt_neox_note_names_the_old_code_and_the_current_float32_cache():
    src = recipes.PRESETS["gpt-neox"].source
    assert "before PR 1041" in src and "_prepare_cache" in src and "float32" in src


def test_float16_positions_beyond_65504_are_reported_as_overflow_and_fail_the_tolerance():
    rep = pe.audit(LLAMA, recipe="gpt-neox", dtype="float16", context=65600, metric="output", tol=2.5, fix=False)
    r = rep.results[0]
    assert not rep.passed and rep.exit_code == 1 and not rep.finite and not r.finite
    assert r.measured("output") == math.inf and r.measured("angle") == math.inf
    nf = r.nonfinite
    assert nf["output"]["position"] == 65520 and nf["output"]["value"] == "nan"
    assert nf["angle"]["position"] == 65520 and nf["angle"]["value"] == "inf"
    assert nf["output"]["band"] == [32768, 65536]
    assert nf["output"]["why"] == "overflow: positions >= 65520 are inf in float16"
    assert nf["score"]["position"] + nf["score"]["offset"] == 65520  # a key at 65520
    rep_ = r.representability
    assert (rep_["first_overflow"], rep_["overflow_dtype"], rep_["overflow_within_context"]) == (65520, "float16", True)
    # the bound predicts it: finite before, inf from the band that reaches 65520; never exceeded
    assert r.within_bounds
    assert all(math.isfinite(b.bound["output"]) for b in r.bands if b.stop <= 32768)
    assert r.bands[-2].bound["output"] == math.inf and r.bands[-2].dominant.startswith("overflow")
    assert "overflow: positions >= 65520 are inf in float16" in r.note and "65520" in r.note
    text = rep.to_text()
    assert "NON-FINITE" in text and "output is NaN from position 65,520" in text
    assert "tolerance: output <= 2.5: FAIL" in text and "inf from 65,520 (float16)" in text
    data = json.loads(rep.to_json())  # strict JSON: no bare NaN / Infinity
    res = data["results"][0]
    assert data["passed"] is False and data["finite"] is False and res["finite"] is False
    assert res["max"]["output"] == "inf" and res["bound"]["output"] == "inf"
    assert res["nonfinite"]["output"]["position"] == 65520
    assert res["max"]["angle"] == "inf"

    # below the overflow every value is finite (the last positions before it, keys included)
    em = Emulation(rope_target(pe.numeric.model_config(LLAMA), LLAMA), recipes.PRESETS["gpt-neox"], "float16")
    below = measure(em, 65520, positions=[(61000, 65520)], oracle_points=-1)
    assert below.finite and below.measured("output") < 2.5 and below.within_bounds
    assert below.representability["overflow_within_context"] is False


def test_a_nan_in_any_block_is_measured_not_dropped(llama):
    """A NaN in a block (whatever its cause) makes that quantity inf, with its first place."""
    em = Emulation(llama, recipes.PRESETS["hf"], "float32")

    def chunker(t):
        ch = em.chunk(t, context=3000)
        hit = (t >= 1500) & (t < 1600)
        ch.output[hit, 3] = np.nan
        return ch

    res = measure(em, 3000, chunker=chunker)
    assert res.measured("output") == math.inf and res.measured("angle") < 1
    assert res.nonfinite == {"output": {"position": 1500, "pair": 3, "value": "nan", "band": [1024, 2048],
                                        "why": "non-finite value (not an overflow the bound predicts)"}}
    assert not res.within_bounds  # the bound did not predict it: flagged


def test_rotary_embedding_torch_float16_beyond_65504(tmp_path, capsys):
    js = tmp_path / "r.json"
    code = main([LLAMA, "--recipe", "rotary-embedding-torch", "--dtype", "float16", "--context", "65600",
                 "--metric", "output", "--tol", "2.5", "--no-fix", "--json", str(js)])
    assert code == 1
    out = capsys.readouterr().out
    assert "output is NaN from position 65,520" in out and "FAIL" in out
    data = json.loads(js.read_text())
    assert data["passed"] is False and data["results"][0]["max"]["output"] == "inf"


def test_json_writes_inf_as_a_string_and_not_measured_as_null():
    rep = pe.audit("sinusoidal:64", recipe="fairseq", dtype="float32", context=100)
    data = json.loads(rep.to_json())
    assert data["results"][0]["max"]["output"] is None and data["finite"] is True


def test_sinusoidal_recipe_on_a_rope_config_is_refused_consistently(capsys):
    with pytest.raises(ValueError, match=r"recipe 't2t' builds a sinusoidal table .*'mistral-7b' is a RoPE config "
                                         r"\(default RoPE\).*sinusoidal:128:10000"):
        pe.audit("mistral-7b", recipe="t2t", context=64)
    assert main(["mistral-7b", "--recipe", "t2t", "--context", "64"]) == 2
    err = capsys.readouterr().err
    assert "recipe 't2t' builds a sinusoidal table" in err and err.count("\n") == 1
    with pytest.raises(ValueError, match=r"recipe 'hf' is a RoPE recipe; 'sinusoidal:64' is a sinusoidal table"):
        pe.audit("sinusoidal:64", recipe="hf", context=64)
    with pytest.raises(ValueError, match=r"recipe 'distilbert' builds a sinusoidal table"):
        Emulation(rope_target(pe.numeric.model_config("mistral-7b"), "mistral-7b"), recipes.PRESETS["distilbert"],
                  "float32")
    # the suggested target works
    assert pe.audit("sinusoidal:128:10000", recipe="t2t", context=64).results[0].within_bounds


def test_mixed_sinusoidal_schedules_each_get_their_own_target():
    both = pe.audit("sinusoidal:512", recipe=["fairseq", "distilbert"], dtype="float32", context=3000)
    alone = pe.audit("sinusoidal:512", recipe=["fairseq"], dtype="float32", context=3000)
    assert both.results[0].measured("table") == alone.results[0].measured("table")
    assert both.results[0].measured("angle") == alone.results[0].measured("angle")


@pytest.mark.parametrize("name", ["gpt-neox", "hf-autocast"])
@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
def test_torch_backend_bound_takes_the_frequencies_as_multiplied(name, dtype):
    """gpt-neox casts inv_freq with the model, hf-autocast's matmul takes it in the autocast
    dtype: the bound's inv_freq part is that of the cast frequencies, as in the emulation."""
    pytest.importorskip("torch")
    a = pe.audit(LLAMA, recipe=name, dtype=dtype, context=4096, backend="torch").results[0]
    b = pe.audit(LLAMA, recipe=name, dtype=dtype, context=4096).results[0]
    assert a.backend == "torch-cpu" and b.backend == "numpy"
    assert a.inv_freq_eps == b.inv_freq_eps
    for ba, bb in zip(a.bands, b.bands, strict=True):
        assert ba.parts == pytest.approx(bb.parts, rel=1e-12, abs=0.0)
        assert ba.bound == pytest.approx(bb.bound, rel=1e-12)
    held = f"inv_freq (reciprocal, held in {dtype})"
    if dtype == "bfloat16":
        assert a.bands[-1].parts[held] > 1.0  # 7.3 rad at 4095 (it read 0 before)


def test_torch_backend_rotary_embedding_torch_positions_and_arange_note():
    torch = pytest.importorskip("torch")
    a = pe.audit(LLAMA, recipe="rotary-embedding-torch", dtype="bfloat16", context=5000, backend="torch").results[0]
    b = pe.audit(LLAMA, recipe="rotary-embedding-torch", dtype="bfloat16", context=5000).results[0]
    assert a.measured("angle") == b.measured("angle") >= 1.0
    assert a.representability["first_inexact"] == 257
    real = torch.arange(5000, dtype=torch.bfloat16)
    differs = not torch.equal(real, torch.arange(5000).to(torch.bfloat16))
    assert ("is not correctly rounded from position" in a.note) == differs


def test_score_bound_covers_the_keys_beyond_the_band(llama):
    """A band's scores pair its queries with keys up to 4096 positions further: float16
    positions are exact below 2049 but not the keys at 1023 + 4096, and the bound says so."""
    r = recipes.PRESETS["torchtune"].replace(name="f16-positions", position_dtype="float16")
    res = measure(Emulation(llama, r, "float16"), 5200, oracle_points=-1)
    first = res.bands[0]
    assert first.measured["score"] > 10 * first.bound["output"]  # the keys' error, not the queries'
    assert res.within_bounds


def test_a_length_dependent_config_is_audited_at_the_length_its_positions_imply():
    """LongRoPE past its original length: the oracle's frequencies and the tables audited use
    the same (long) factors, as HF does for a prefill of `context` tokens; pe_symbolic's own
    table is then within a float32 rounding of the oracle."""
    rep = pe.audit("phi-3.5-mini", recipe="pe_symbolic", dtype="float32", context=8192)
    r = rep.results[0]
    assert r.measured("table") < 1e-7
    short = pe.audit("phi-3.5-mini", recipe="pe_symbolic", dtype="float32", context=8192, seq_len=4096)
    assert short.results[0].measured("table") < 1e-7  # consistent with an explicit length too


#: DeepSeek-V4-Flash's RoPE fields (as tests/test_config_engines.py quotes them)
DEEPSEEK_V4 = {
    "_name_or_path": "deepseek-ai/DeepSeek-V4-Flash", "model_type": "deepseek_v4", "hidden_size": 4096,
    "num_attention_heads": 64, "head_dim": 512, "qk_rope_head_dim": 64, "max_position_embeddings": 1048576,
    "rope_theta": 10000, "compress_rope_theta": 160000, "compress_ratios": [0, 0, 4, 128, 4, 0],
    "num_hidden_layers": 6,
    "rope_scaling": {"type": "yarn", "factor": 16, "original_max_position_embeddings": 65536, "beta_fast": 32,
                     "beta_slow": 1},
}


@pytest.mark.parametrize("layer_type, which", [
    (None, "both of its RoPEs"),
    ("main", "its 'main' RoPE turns the LAST 64 of the 512 channels"),
    ("compressed_sparse_attention", "its 'compress' RoPE"),
])
def test_deepseek_v4_is_refused_by_the_audit_naming_why(layer_type, which, tmp_path, capsys):
    """The audit's recipes rotate the leading channels and leave the output alone; DeepSeek-V4
    rotates the trailing ones and the output back by the conjugate: refused by the audit itself
    (not apply_rope's message from deep inside the emulation), what and why."""
    with pytest.raises(ValueError) as err:
        pe.audit(DEEPSEEK_V4, recipe="hf", dtype="bfloat16", context=8192, layer_type=layer_type)
    msg = str(err.value)
    assert msg.startswith("pe.audit does not support 'deepseek-ai/DeepSeek-V4-Flash' (DeepSeek-V4")
    assert which in msg and "LAST" in msg and "conjugate" in msg and "leading channels" in msg
    assert "config=" not in msg  # not apply_rope's refusal
    path = tmp_path / "config.json"
    path.write_text(json.dumps(DEEPSEEK_V4))
    argv = [str(path), "--recipe", "hf", "--context", "4096"] + ([] if layer_type is None else
                                                                 ["--layer-type", layer_type])
    assert main(argv) == 2
    cli = capsys.readouterr().err
    assert "pe.audit does not support" in cli and "conjugate" in cli and cli.count("\n") == 1


def test_deepseek_v4_audit_refusal_suggests_a_config_that_audits_the_same_frequencies():
    rope = dict(DEEPSEEK_V4["rope_scaling"], attention_factor=1.0)
    plain = {"head_dim": 64, "max_position_embeddings": 1048576, "rope_theta": 160000, "rope_scaling": rope}
    a = pe.numeric.rope_frequencies(plain)
    b = pe.numeric.rope_frequencies(DEEPSEEK_V4, layer_type="compress")
    assert np.array_equal(a.inv_freq, b.inv_freq) and a.attention_factor == b.attention_factor == 1.0
    assert pe.audit(plain, recipe="hf", dtype="bfloat16", context=4096).results[0].within_bounds
