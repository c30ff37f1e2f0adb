"""Issue 34 item 3: the variants engines ship, read from a config.json and computed by the
numeric core, each against the independent mpmath oracle (pe_symbolic.reference, with the
engine's published formula composed here where the oracle has only the pieces), plus the
refusals that keep a wrong reading from passing silently."""

from __future__ import annotations

import warnings

import mpmath
import numpy as np
import pytest

from pe_symbolic import reference
from pe_symbolic.numeric import apply_rope, parse_rope_config, rope_cos_sin, rope_frequencies
from pe_symbolic.numeric.config import UnknownConfigKeyWarning
from pe_symbolic.numeric.variants import fope_cos_sin

def _ladder(d: int, base: float, dps: int = 40) -> list[mpmath.mpf]:
    return [reference.frequency(i, d, base=base, schedule="vaswani", dps=dps) for i in range(d // 2)]


def _max_err(got: np.ndarray, want) -> float:
    w = np.array([[float(v) for v in row] for row in np.atleast_2d(want)])
    return float(np.max(np.abs(np.atleast_2d(got) - w)))


# ---------------------------------------------------------------------------------- FoPE

FOPE = {"model_type": "interns1_pro_text", "head_dim": 16, "max_position_embeddings": 64,
        "rope_parameters": {"rope_type": "default", "rope_theta": 10000.0, "fope_init_factor": 0.1,
                            "fope_sep_head": True}}


def test_fope_keeps_the_frequencies_that_turn_within_the_context():
    spec = parse_rope_config(FOPE)
    assert spec.fope and spec.fope_sep_head and spec.fope_num_inv_freq is None
    inv = rope_frequencies(FOPE).inv_freq
    ladder = _ladder(16, 10000.0)
    with mpmath.workdps(40):
        want = [float(w) for w in ladder if w > 2 * mpmath.pi / 64]
    assert len(want) == 3 and len(inv) == 3  # 1, 0.1, 0.01 > 2 pi / 64 ~ 0.098 ... 0.1 only just
    assert np.max(np.abs(inv - want)) == 0.0
    cfg = {**FOPE, "rope_parameters": {**FOPE["rope_parameters"], "num_inv_freq": 5}}
    assert len(rope_frequencies(cfg).inv_freq) == 5


@pytest.mark.parametrize("sin_pad", [1.0, 0.0])
def test_fope_tables_match_the_oracle(sin_pad):
    rng = np.random.default_rng(7)
    heads, kept = 2, 3
    cc = np.eye(kept) + rng.normal(0, 0.1, (heads, kept, kept))
    sc = np.eye(kept) + rng.normal(0, 0.1, (heads, kept, kept))
    pos = np.array([0, 1, 17, 63, 4095, 2**20 + 3])
    cos, sin = fope_cos_sin(FOPE, pos, cc, sc, sin_pad=sin_pad)
    assert cos.shape == sin.shape == (len(pos), heads, 8)
    inv = rope_frequencies(FOPE).inv_freq
    worst = 0.0
    for a, p in enumerate(pos):
        for h in range(heads):
            rc, rs = reference.fope_cos_sin(int(p), inv.tolist(), cc[h].tolist(), sc[h].tolist(), 16, dps=40)
            rs = rs[:kept] + [mpmath.mpf(sin_pad)] * (8 - kept)  # the oracle pads with 1; the engine's choice
            worst = max(worst, _max_err(cos[a, h], [rc]), _max_err(sin[a, h], [rs]))
    assert worst < 4e-15, worst
    assert np.all(cos[..., kept:] == 1.0) and np.all(sin[..., kept:] == sin_pad)


def test_fope_sin_padding_with_1_doubles_the_padded_score_and_0_keeps_it():
    """The lemma fope.padding, numerically: q, k rotated GPT-NeoX style with FoPE's tables; the
    padded channels' score is 2 <q, k> with sin padded by 1 and <q, k> with 0, at any position."""
    eye = np.eye(3)
    rng = np.random.default_rng(3)
    q, k = rng.normal(size=16), rng.normal(size=16)
    pad = [i for i in range(16) if i % 8 >= 3]  # the padded pairs' channels (i, i + 8), i >= 3

    def rotate(x, c, s):
        c2, s2 = np.concatenate([c, c]), np.concatenate([s, s])
        return x * c2 + np.concatenate([-x[8:], x[:8]]) * s2

    for sin_pad, ratio in ((1.0, 2.0), (0.0, 1.0)):
        cos, sin = fope_cos_sin(FOPE, np.array([5, 900]), eye, eye, sin_pad=sin_pad)
        qr, kr = rotate(q, cos[0, 0], sin[0, 0]), rotate(k, cos[1, 0], sin[1, 0])
        assert qr[pad] @ kr[pad] == pytest.approx(ratio * (q[pad] @ k[pad]), rel=1e-13)


def test_fope_refusals():
    with pytest.raises(ValueError, match="sin_pad=0.5 is not allowed"):
        fope_cos_sin(FOPE, [0], np.eye(3), np.eye(3), sin_pad=0.5)
    with pytest.raises(ValueError, match=r"cos_coef has shape \(2, 2\)"):
        fope_cos_sin(FOPE, [0], np.eye(2), np.eye(3), sin_pad=1.0)
    with pytest.raises(ValueError, match="non-negative integers"):
        fope_cos_sin(FOPE, [-1], np.eye(3), np.eye(3), sin_pad=1.0)
    with pytest.raises(ValueError, match="for model_type"):
        parse_rope_config({**FOPE, "model_type": "llama"})
    with pytest.raises(ValueError, match="num_inv_freq"):
        parse_rope_config({**FOPE, "rope_parameters": {**FOPE["rope_parameters"], "num_inv_freq": 9}})
    with pytest.raises(ValueError, match="FoPE"):
        rope_cos_sin(np.arange(4), config=FOPE)  # config= alone cannot rotate: the coefficients are weights
    with pytest.raises(ValueError, match="no FoPE keys"):
        fope_cos_sin({"head_dim": 8, "rope_theta": 100.0}, [0], np.eye(1), np.eye(1), sin_pad=1.0)


# --------------------------------------------------------------------- openPangu / Bailing


def _mrope_oracle(pos: np.ndarray, axes: tuple[int, ...], d: int, base: float):
    ladder = _ladder(d, base)
    with mpmath.workdps(40):
        cos = [[mpmath.cos(int(pos[axes[j], n]) * ladder[j]) for j in range(d // 2)] for n in range(pos.shape[1])]
        sin = [[mpmath.sin(int(pos[axes[j], n]) * ladder[j]) for j in range(d // 2)] for n in range(pos.shape[1])]
    return cos, sin


@pytest.mark.parametrize("section", [(2, 3, 3), (3, 2, 3), (1, 4, 3), (2, 2), (3, 5)])
def test_openpangu_config_matches_the_oracle(section):
    d = 2 * sum(section)
    cfg = {"model_type": "openpangu_vl", "head_dim": d,
           "rope_parameters": {"rope_type": "openpangu", "rope_theta": 10000.0, "mrope_section": list(section),
                               "mrope_interleaved": True}}
    rng = np.random.default_rng(sum(section))
    pos = rng.integers(0, 50_000, size=(len(section), 6))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UnknownConfigKeyWarning)  # openpangu_vl: not in HF 5.24's config table
        cos, sin = rope_cos_sin(pos, config=cfg)
    axes = reference.openpangu_axes(section)
    rc, rs = _mrope_oracle(pos, axes, d, 10000.0)
    assert _max_err(cos[:, : d // 2], rc) < 2e-15 and _max_err(sin[:, : d // 2], rs) < 2e-15


def test_openpangu_refusals():
    base = {"model_type": "openpangu_vl", "head_dim": 16, "rope_theta": 10000.0}
    with pytest.raises(ValueError, match="lacks necessary parameters"):
        parse_rope_config({**base, "rope_parameters": {"rope_type": "openpangu", "mrope_section": [2, 3, 3]}})
    with pytest.raises(ValueError, match="t section must be >= 1"):
        parse_rope_config({**base, "rope_parameters": {"rope_type": "openpangu", "mrope_section": [0, 4, 4],
                                                       "mrope_interleaved": True}})
    with pytest.raises(ValueError, match="sums to 9"):
        parse_rope_config({**base, "rope_parameters": {"rope_type": "openpangu", "mrope_section": [3, 3, 3],
                                                       "mrope_interleaved": True}})


def test_bailing_config_matches_the_oracle():
    cfg = {"model_type": "bailing_hybrid", "qk_rope_head_dim": 16,
           "rope_parameters": {"rope_type": "default", "rope_theta": 600000.0, "mrope_section": [2, 3, 3]}}
    spec = parse_rope_config(cfg)
    assert spec.mrope_rule == "bailing"
    pos = np.random.default_rng(5).integers(0, 100_000, size=(3, 5))
    cos, sin = rope_cos_sin(pos, config=cfg, layout="interleaved")  # HF's Bailing attention: interleaved pairs
    rc, rs = _mrope_oracle(pos, reference.bailing_axes((2, 3, 3)), 16, 600000.0)
    assert _max_err(cos[:, ::2], rc) < 2e-15 and _max_err(sin[:, ::2], rs) < 2e-15
    with pytest.raises(ValueError, match="h and w sections must be equal"):
        parse_rope_config({**cfg, "rope_parameters": {**cfg["rope_parameters"], "mrope_section": [2, 2, 4]}})


# ------------------------------------------------------------------ per-sub-module pairing


@pytest.mark.parametrize("model_type,layout", [("deepseek_v32", "split"), ("glm_moe_dsa", "interleaved")])
def test_indexer_layout_is_on_the_spec(model_type, layout):
    cfg = {"model_type": model_type, "head_dim": 64, "qk_rope_head_dim": 64, "rope_theta": 10000.0,
           "rope_interleave": True}
    assert parse_rope_config(cfg).indexer_layout == layout


def test_indexer_key_disagreeing_with_hf_warns_and_elsewhere_is_refused():
    cfg = {"model_type": "deepseek_v32", "qk_rope_head_dim": 64, "head_dim": 64, "rope_theta": 10000.0,
           "indexer_rope_interleave": True}
    with pytest.warns(UnknownConfigKeyWarning, match="engines disagree"):
        assert parse_rope_config(cfg).indexer_layout == "split"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert parse_rope_config({**cfg, "indexer_rope_interleave": False}).indexer_layout == "split"
    with pytest.raises(ValueError, match="no sparse-attention indexer"):
        parse_rope_config({"model_type": "llama", "head_dim": 64, "rope_theta": 1e4, "indexer_rope_interleave": True})
    assert parse_rope_config({"model_type": "llama", "head_dim": 64, "rope_theta": 1e4}).indexer_layout is None


# ------------------------------------------------------------------------- ChatGLM-6B 2-D

CHATGLM = {"model_type": "chatglm", "hidden_size": 256, "num_attention_heads": 16, "position_encoding_2d": True}


def test_chatglm_2d_matches_the_oracle():
    spec = parse_rope_config(CHATGLM)
    assert (spec.head_dim, spec.rotary_dim, spec.position_blocks) == (16, 8, 2)
    rng = np.random.default_rng(11)
    x = rng.normal(size=(5, 16))
    pos = np.array([[0, 1, 2, 3, 3], [0, 0, 0, 1, 2]])  # context, then generation: position frozen, block counts
    got = apply_rope(x, config=CHATGLM, positions=pos)
    want = [reference.chatglm_rope(x[n], int(pos[0, n]), int(pos[1, n]), dps=40) for n in range(5)]
    assert _max_err(got, want) < 4e-15
    ids = pos[None]  # THUDM's position_ids (batch, 2, seq); x as (batch, heads, seq, d)
    np.testing.assert_array_equal(apply_rope(x[None, None], config=CHATGLM, position_ids=ids)[0, 0], got)


def test_chatglm_refusals():
    with pytest.raises(ValueError, match="leading axis of 2"):
        apply_rope(np.zeros((3, 16)), config=CHATGLM, positions=np.arange(3))
    with pytest.raises(ValueError, match="layout='split'"):
        apply_rope(np.zeros((3, 16)), config=CHATGLM, positions=np.zeros((2, 3), int), layout="interleaved")
    with pytest.raises(ValueError, match="model_type 'chatglm'"):
        parse_rope_config({**CHATGLM, "model_type": "llama"})
    with pytest.warns(UnknownConfigKeyWarning, match="rope_ratio"):
        parse_rope_config({**CHATGLM, "rope_ratio": 4})


# ---------------------------------------------------------------------- multi-factor linear

MULTI = {"head_dim": 16, "rope_theta": 10000.0, "max_position_embeddings": 4096,
         "rope_scaling": {"rope_type": "linear", "factor": [1.0, 2.5, 8.0]}}


@pytest.mark.parametrize("s", [1.0, 2.5, 8.0])
def test_multi_factor_linear_matches_the_oracle(s):
    inv = rope_frequencies(MULTI, factor=s).inv_freq
    with mpmath.workdps(40):
        want = [w / mpmath.mpf(s) for w in _ladder(16, 10000.0)]
    assert np.max(np.abs(inv - [float(w) for w in want]) / inv) <= 2**-53
    spec = parse_rope_config(MULTI, factor=s)
    assert spec.factors == (1.0, 2.5, 8.0) and spec.factor == s
    assert reference.linear_multi_offsets(4096, spec.factors) == {1.0: 0, 2.5: 4096, 8.0: 4096 + 10240}


def test_multi_factor_refusals():
    with pytest.raises(ValueError, match="pass factor= one of them"):
        parse_rope_config(MULTI)
    with pytest.raises(ValueError, match="factor=3.0 is not one of"):
        parse_rope_config(MULTI, factor=3.0)
    with pytest.raises(ValueError, match="lists 2 twice"):
        parse_rope_config({**MULTI, "rope_scaling": {"rope_type": "linear", "factor": [2, 2]}})
    with pytest.raises(ValueError, match="no factor list"):
        parse_rope_config({**MULTI, "rope_scaling": {"rope_type": "linear", "factor": 2.0}}, factor=2.0)
    with pytest.raises(TypeError, match="read for rope_type 'linear' only"):
        parse_rope_config({**MULTI, "rope_scaling": {"rope_type": "dynamic", "factor": [2.0]}})


# ------------------------------------------------------------- YaRN's extrapolation_factor


def _corr_dim(beta, d, base, length):
    # YaRN's correction dimension (Peng et al. 2023, eq. 17; ggml_rope_yarn_corr_dim)
    return d * mpmath.log(length / (beta * 2 * mpmath.pi)) / (2 * mpmath.log(base))


@pytest.mark.parametrize("ext", [0.0, 0.25, 1.0])
def test_llamacpp_ext_factor_matches_the_oracle(ext):
    d, base, s, orig = 128, 10000.0, 4.0, 4096
    cfg = {"head_dim": d, "rope_theta": base, "max_position_embeddings": orig * 4,
           "rope_scaling": {"rope_type": "yarn", "factor": s, "original_max_position_embeddings": orig,
                            "extrapolation_factor": ext}}
    got = rope_frequencies(cfg, yarn_engine="llama.cpp")
    with mpmath.workdps(40):
        low = max(0, mpmath.floor(_corr_dim(32, d, base, orig)))
        high = min(d - 1, mpmath.ceil(_corr_dim(1, d, base, orig)))
    worst = 0.0
    for i, w in enumerate(_ladder(d, base)):  # the oracle works at dps=40 itself
        th, ms = reference.llamacpp_rope_yarn(w, 1 / s, low, high, i, ext, dps=40)
        worst = max(worst, abs(got.inv_freq[i] - float(th)) / float(th))
    assert worst <= 2**-52, worst
    assert got.attention_factor == pytest.approx(float(ms), rel=1e-15)
    if ext == 0.0:
        assert got.attention_factor == 1.0  # the magnitude factor dropped (claim llamacpp.ext_factor_zero)
        np.testing.assert_allclose(got.inv_freq, [float(w) / s for w in _ladder(d, base)], rtol=2**-52)


def test_yarn_engine_readings():
    cfg = {"head_dim": 64, "rope_theta": 10000.0, "max_position_embeddings": 16384,
           "rope_scaling": {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 4096,
                            "extrapolation_factor": 0.0}}
    with pytest.warns(UnknownConfigKeyWarning, match="not read by HF's yarn"):
        hf = rope_frequencies(cfg)
    vllm = rope_frequencies(cfg, yarn_engine="vllm")
    assert vllm.attention_factor == hf.attention_factor > 1  # vLLM keeps the magnitude factor
    np.testing.assert_allclose(vllm.inv_freq, rope_frequencies(cfg, yarn_engine="llama.cpp").inv_freq, rtol=1e-15)
    with pytest.raises(ValueError, match="must be in \\[0, 1\\]"):
        rope_frequencies({**cfg, "rope_scaling": {**cfg["rope_scaling"], "extrapolation_factor": 1.5}},
                         yarn_engine="vllm")
    with pytest.raises(ValueError, match="yarn_engine='sglang' is not allowed"):
        rope_frequencies(cfg, yarn_engine="sglang")
    with pytest.raises(ValueError, match="attention_factor"):
        rope_frequencies({**cfg, "rope_scaling": {**cfg["rope_scaling"], "attention_factor": 1.0}},
                         yarn_engine="llama.cpp")


def test_indexer_layouts_match_the_installed_hf_modeling_code():
    """Cross-check (source text, no torch): each INDEXER_LAYOUT entry is the pairing the installed
    transformers' Indexer class calls first (apply_rotary_pos_emb: split; ..._interleave)."""
    import ast
    import importlib.util
    import pathlib

    transformers = pytest.importorskip("transformers")
    from pe_symbolic.numeric._variant_readers import INDEXER_LAYOUT

    root = pathlib.Path(transformers.__file__).parent / "models"
    checked = 0
    for mt, layout in INDEXER_LAYOUT.items():
        path = root / mt / f"modeling_{mt}.py"
        if not path.exists():
            continue
        tree = ast.parse(path.read_text())
        calls = [n.func.id for c in tree.body if isinstance(c, ast.ClassDef) and c.name.endswith("Indexer")
                 for n in ast.walk(c) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
                 and n.func.id.startswith("apply_rotary_pos_emb")]
        assert calls, (mt, "no rotary call in an Indexer class")
        want = "apply_rotary_pos_emb_interleave" if layout == "interleaved" else "apply_rotary_pos_emb"
        assert set(calls) == {want}, (mt, calls)
        checked += 1
    assert checked >= 2 or importlib.util.find_spec("transformers.models.deepseek_v32") is None


def test_indexer_layouts_per_engine():
    from pe_symbolic.numeric import indexer_layouts

    v32 = {"model_type": "deepseek_v32", "index_topk": 2048, "qk_rope_head_dim": 64, "rope_interleave": True}
    assert indexer_layouts(v32) == {"hf": "split", "vllm": "split"}
    assert indexer_layouts({**v32, "indexer_rope_interleave": True}) == {"hf": "split", "vllm": "interleaved"}
    glm5 = {"model_type": "glm_moe_dsa", "index_topk": 2048, "indexer_rope_interleave": True}
    assert indexer_layouts(glm5) == {"hf": "interleaved", "vllm": "interleaved"}
    assert indexer_layouts({"model_type": "glm_moe_dsa", "index_topk": 2048}) == {"hf": "interleaved",
                                                                                   "vllm": "split"}
    assert indexer_layouts({"model_type": "llama"}) is None
    with pytest.raises(TypeError, match="must be true or false"):
        indexer_layouts({**v32, "indexer_rope_interleave": "yes"})


@pytest.mark.parametrize("ext,engine", [(None, "llama.cpp"), (0.0, "llama.cpp ext=0"), (None, "vllm"), (0.5, "vllm"),
                                        (0.0, "vllm")])
def test_yarn_engine_reading_matches_the_engine_recipes(ext, engine):
    """Cross-check: the config reading yarn_engine= against pe_symbolic.engines' SymPy transcription
    of the engine's code (llama.cpp ops.cpp rope_yarn / ggml_rope_yarn_corr_dims; vLLM
    YaRNScalingRotaryEmbedding), two transcriptions of the same source. vLLM's class read
    extrapolation_factor at ffdc985737c9 (yarn_engine='vllm' follows it) and takes none at
    0cd5784803d8 (the engines' recipe follows that one): with e != 1 they must part exactly by
    the kept share, the recipe's frequencies being those of e = 1."""
    import sympy as sp

    from pe_symbolic.engines import recipe
    from pe_symbolic.engines._read import layer_ropes

    rs = {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 4096}
    if ext is not None:
        rs["extrapolation_factor"] = ext
    cfg = {"head_dim": 128, "rope_theta": 10000.0, "max_position_embeddings": 16384, "rope_scaling": rs}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UnknownConfigKeyWarning)
        rec = recipe(engine, layer_ropes(cfg)[0])
    reg = rec.regimes[0]
    reading = "llama.cpp" if engine.startswith("llama.cpp") else "vllm"
    got = rope_frequencies(cfg, yarn_engine=reading)
    want = np.array([float(sp.N(w, 30)) for w in reg.omegas])
    assert got.attention_factor == pytest.approx(float(sp.N(reg.attention, 30)), rel=1e-15)
    if engine == "vllm" and ext not in (None, 1.0):
        e1 = rope_frequencies({**cfg, "rope_scaling": {**rs, "extrapolation_factor": 1.0}}, yarn_engine="vllm")
        assert np.max(np.abs(e1.inv_freq - want) / want) <= 2**-52  # the recipe: e read as 1
        interp = np.array([float(w) for w in _ladder(128, 10000.0)]) / 4.0  # blend(e) = interp + e (blend(1) - interp)
        assert np.max(np.abs(got.inv_freq - (interp + ext * (want - interp))) / want) <= 2**-51
        assert np.max(np.abs(got.inv_freq - want) / want) > 0.1
        return
    assert np.max(np.abs(got.inv_freq - want) / want) <= 2**-52


# ------------------------------------------- engine code, transcribed to NumPy (no torch)
# Each function below follows one engine file line by line (float64 instead of the engine's
# float32, so what is compared is the layout and the formula, not the engine's rounding).


def _vllm_cache(inv: np.ndarray, rows: int) -> np.ndarray:
    # vllm base.py RotaryEmbedding._compute_cos_sin_cache: cat(cos, sin) of einsum("i,j -> ij", t, inv_freq)
    freqs = np.einsum("i,j->ij", np.arange(rows, dtype=np.float64), inv)
    return np.concatenate([np.cos(freqs), np.sin(freqs)], axis=-1)


def test_bailing_against_vllm_select_cos_sin():
    # vllm-project/vllm vllm/model_executor/layers/rotary_embedding/bailing_mrope.py @ 9c5b71639542
    cfg = {"model_type": "bailing_hybrid", "qk_rope_head_dim": 32,
           "rope_parameters": {"rope_type": "default", "rope_theta": 600000.0, "mrope_section": [6, 5, 5]}}
    inv = rope_frequencies(cfg).inv_freq
    pos = np.random.default_rng(1).integers(0, 500, size=(3, 7))
    cos, sin = np.split(_vllm_cache(inv, 500)[pos], 2, axis=-1)  # (3, T, 16) each
    spatial = 10
    mask = (np.arange(spatial) % 2 == 0)[None]
    vcos = np.concatenate([np.where(mask, cos[1, :, :spatial], cos[2, :, :spatial]), cos[0, :, spatial:16]], -1)
    vsin = np.concatenate([np.where(mask, sin[1, :, :spatial], sin[2, :, :spatial]), sin[0, :, spatial:16]], -1)
    got_c, got_s = rope_cos_sin(pos, config=cfg, layout="interleaved")
    np.testing.assert_allclose(got_c[:, ::2], vcos, rtol=0, atol=1e-12)
    np.testing.assert_allclose(got_s[:, ::2], vsin, rtol=0, atol=1e-12)


@pytest.mark.parametrize("section", [(2, 3, 3), (4, 4)])
def test_openpangu_against_vllm_rebuild_pos_emb(section):
    # vllm-project/vllm vllm/model_executor/layers/rotary_embedding/openpangu_rope.py @ 098d12c28e93:
    # get_mrope_interleaved_id_list, mrope_dim * 2, _rebuild_pos_emb (channel i of cat(cos, sin) from axis mrope_dim[i])
    def id_list(a, b, c, force_last=False):
        if force_last:
            a -= 1
        counts = {0: a, 1: b, 2: c}
        placed = {k: 0 for k in counts}
        rem = counts.copy()
        seq, last = [], None
        for _ in range(a + b + c):
            cands = [k for k in rem if rem[k] > 0 and k != last] or [k for k in rem if rem[k] > 0]
            best = min(cands, key=lambda k: (placed[k] / counts[k], k))
            seq.append(best)
            placed[best] += 1
            rem[best] -= 1
            last = best
        if force_last:
            seq.append(0)
        return seq

    dim = (id_list(*section, force_last=True) if len(section) == 3 else id_list(*section, 0)) * 2
    d = 2 * sum(section)
    cfg = {"model_type": "openpangu_vl", "head_dim": d, "rope_theta": 10000.0,
           "rope_parameters": {"rope_type": "openpangu", "rope_theta": 10000.0, "mrope_section": list(section),
                               "mrope_interleaved": True}}
    pos = np.random.default_rng(2).integers(0, 300, size=(len(section), 5))
    cs = _vllm_cache(rope_frequencies(cfg).inv_freq, 300)[pos]  # (axes, T, d)
    v = np.stack([cs[dim[i], :, i] for i in range(d)], axis=-1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UnknownConfigKeyWarning)
        got_c, got_s = rope_cos_sin(pos, config=cfg)
    np.testing.assert_allclose(got_c[:, : d // 2], v[:, : d // 2], rtol=0, atol=1e-12)
    np.testing.assert_allclose(got_s[:, : d // 2], v[:, d // 2:], rtol=0, atol=1e-12)


@pytest.mark.parametrize("sin_pad,commit", [(1.0, "c215d1e62d73"), (0.0, "151a2c744af6")])
def test_fope_against_vllm_compute_cos_sin_cache(sin_pad, commit):
    # vllm-project/vllm vllm/model_executor/layers/rotary_embedding/fope.py @ {commit}: _compute_inv_freq
    # (mask inv_freq > 2 pi / max_position_embeddings), einsum("htD, hDd -> thd"), F.pad(sin, value=sin_pad),
    # F.pad(cos, value=1)
    rotary_dim, L = 16, 64
    base = 10000.0 ** (np.arange(0, rotary_dim, 2, dtype=np.float64) / rotary_dim)
    inv = 1.0 / base
    inv = inv[inv > 2.0 * np.pi / L]
    rng = np.random.default_rng(4)
    cc = np.eye(len(inv)) + rng.normal(0, 0.1, (2, len(inv), len(inv)))
    sc = np.eye(len(inv)) + rng.normal(0, 0.1, (2, len(inv), len(inv)))
    freqs = np.einsum("j,i->ji", np.arange(L, dtype=np.float64), inv)
    sin = np.einsum("htD,hDd->thd", np.broadcast_to(np.sin(freqs), (2,) + freqs.shape), sc)
    cos = np.einsum("htD,hDd->thd", np.broadcast_to(np.cos(freqs), (2,) + freqs.shape), cc)
    pad = 16 // 2 - sin.shape[-1]
    sin = np.pad(sin, ((0, 0), (0, 0), (0, pad)), constant_values=sin_pad)
    cos = np.pad(cos, ((0, 0), (0, 0), (0, pad)), constant_values=1)
    pos = np.array([0, 3, 40, 63])
    got_c, got_s = fope_cos_sin(FOPE, pos, cc, sc, sin_pad=sin_pad)
    np.testing.assert_allclose(got_c, cos[pos], rtol=0, atol=1e-12)
    np.testing.assert_allclose(got_s, sin[pos], rtol=0, atol=1e-12)


def test_multi_factor_linear_against_vllm_cache():
    # vllm-project/vllm vllm/model_executor/layers/rotary_embedding/linear_scaling_rope.py @ 9ba5ac5152d2:
    # per factor s: t = arange(L * s) / s, one cat(cos, sin) block, blocks concatenated; offsets in order
    L = 64
    inv0 = 1.0 / (10000.0 ** (np.arange(0, 16, 2, dtype=np.float64) / 16))
    blocks, offsets, off = [], {}, 0
    for s in (1.0, 2.5, 8.0):
        t = np.arange(L * s, dtype=np.float64) / s
        freqs = np.einsum("i,j->ij", t, inv0)
        blocks.append(np.concatenate([np.cos(freqs), np.sin(freqs)], -1))
        offsets[s] = off
        off += len(t)
    cache = np.concatenate(blocks)
    cfg = {**MULTI, "max_position_embeddings": L}
    assert offsets == reference.linear_multi_offsets(L, [1.0, 2.5, 8.0])
    for s in (1.0, 2.5, 8.0):
        t = np.array([0, 1, 63, int(L * s) - 1])
        c, sn = rope_cos_sin(t, inv_freq=rope_frequencies(cfg, factor=s))
        np.testing.assert_allclose(c[:, :8], cache[offsets[s] + t, :8], rtol=0, atol=1e-12)
        np.testing.assert_allclose(sn[:, :8], cache[offsets[s] + t, 8:], rtol=0, atol=1e-12)


def test_describe_says_what_the_table_cannot():
    from pe_symbolic.numeric import describe

    fope = str(describe({**FOPE, "num_attention_heads": 2, "hidden_size": 32}))
    assert "FoPE" in fope and "keeps 3 (those above 2*pi / 64) of the 8 frequencies" in fope and "fope.padding" in fope
    glm = str(describe(CHATGLM))
    assert "2 blocks of 8 channels (all 16 rotate)" in glm and "block position" in glm
    v32 = {"model_type": "deepseek_v32", "qk_rope_head_dim": 64, "head_dim": 64, "hidden_size": 7168,
           "num_attention_heads": 128, "rope_theta": 10000.0, "index_topk": 2048, "rope_interleave": True}
    assert "sparse-attention indexer: split pairs on its first 64 channels" in str(describe(v32))
    plain = str(describe({"head_dim": 64, "rope_theta": 1e4, "num_attention_heads": 8, "hidden_size": 512}))
    assert "FoPE" not in plain and "indexer" not in plain and "ChatGLM" not in plain


def test_readings_refuse_what_no_engine_reads():
    """Attacks: each variant's keys where its engine would not read them, or values it would
    not accept, refused with the key and value named (never read as something else)."""
    fp = FOPE["rope_parameters"]
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        assert not parse_rope_config({**FOPE, "rope_parameters": {**fp, "rope_type": "linear", "factor": 2.0}}).fope
    said = " ".join(str(w.message) for w in seen)  # get_rope's linear branch builds no FoPE: said, not read
    assert "fope_init_factor" in said and "fope_sep_head" in said and "not understood for rope_type 'linear'" in said
    with pytest.raises(ValueError, match="rotates the whole head"):
        parse_rope_config({**FOPE, "rope_parameters": {**fp, "partial_rotary_factor": 0.5}})
    with pytest.raises(TypeError, match="fope_sep_head"):
        parse_rope_config({**FOPE, "rope_parameters": {**fp, "fope_sep_head": "yes"}})
    bailing = {"model_type": "bailing_hybrid", "qk_rope_head_dim": 16,
               "rope_parameters": {"rope_type": "linear", "factor": 2.0, "rope_theta": 1e4, "mrope_section": [2, 3, 3]}}
    with pytest.raises(ValueError, match="only supports rope_type='default'"):
        parse_rope_config(bailing)
    with pytest.raises((TypeError, ValueError), match="factor"):
        parse_rope_config({**MULTI, "rope_scaling": {"rope_type": "linear", "factor": [True, 2.0]}}, factor=2.0)
    with pytest.raises(ValueError, match="at least one"):
        parse_rope_config({**MULTI, "rope_scaling": {"rope_type": "linear", "factor": []}})
    with pytest.raises(ValueError, match="factor=True is not one of"):
        parse_rope_config(MULTI, factor=True)
    with pytest.raises(TypeError, match="position_encoding_2d"):
        parse_rope_config({**CHATGLM, "position_encoding_2d": "true"})
    yarn = {"head_dim": 64, "rope_theta": 1e4, "max_position_embeddings": 16384,
            "rope_scaling": {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 4096,
                             "extrapolation_factor": -1.0}}
    with pytest.raises(ValueError, match="extrapolation_factor"):
        rope_frequencies(yarn, yarn_engine="llama.cpp")


def test_fope_one_coefficient_pair_without_sep_head():
    cfg = {**FOPE, "rope_parameters": {**FOPE["rope_parameters"], "fope_sep_head": False}}
    rng = np.random.default_rng(9)
    cc, sc = rng.normal(size=(2, 3, 3)), rng.normal(size=(2, 3, 3))
    c, s = fope_cos_sin(cfg, [5], cc, sc, sin_pad=0.0)
    c0, s0 = fope_cos_sin(FOPE, [5], cc[:1], sc[:1], sin_pad=0.0)
    assert c.shape == (1, 1, 8)  # vLLM: einsum("tD, Dd -> td", pos_cos, self.cos_coef[0])
    np.testing.assert_array_equal(c, c0)
    np.testing.assert_array_equal(s, s0)


def test_describe_shows_one_row_per_factor_of_a_multi_factor_list():
    from pe_symbolic.numeric import describe

    d = describe({**MULTI, "num_attention_heads": 2, "hidden_size": 32})
    assert [e.spec.factor for e in d.layers] == [1.0, 2.5, 8.0]
    assert str(d).count("multi-factor linear") == 1
