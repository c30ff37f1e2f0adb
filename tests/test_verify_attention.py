"""verify_attention: the attention path with its KV cache (issue 40, item 5) -- stored keys,
scores against the oracle, the relative property, the output's de-rotation, eager and compiled."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest

import pe_symbolic as pe

CFG = {"model_type": "llama", "rope_theta": 10000.0, "head_dim": 16, "hidden_size": 64, "num_attention_heads": 4,
       "num_key_value_heads": 2, "max_position_embeddings": 8192, "torch_dtype": "float32"}
INV = 10000.0 ** (-np.arange(0, 16, 2) / 16)


def _rope(x, pos, freq=INV):
    ang = np.concatenate([pos[..., None] * freq] * 2, -1)[:, None]
    return (x * np.cos(ang) + np.concatenate([-x[..., 8:], x[..., :8]], -1) * np.sin(ang)).astype(x.dtype)


def _step(bug="", out="scores", freq=INV):
    """A NumPy attention step with a seeded ``bug`` (a dict cache: keys, values, their positions)."""

    def step(q, k, v, position_ids, cache, attention_mask=None):
        s = q.shape[2]
        past = 0 if cache is None else cache["k"].shape[2]
        pos = position_ids
        if bug == "no-offset":
            pos = np.broadcast_to(np.arange(s), pos.shape)
        elif bug == "decode+1" and s == 1:
            pos = pos + 1
        elif bug == "chunk-reuse" and cache is not None and s > 1:
            pos = cache["first"][:, :s]
        elif bug == "from-pad" and attention_mask is not None and (attention_mask == 0).any():
            pos = np.broadcast_to(np.arange(past, past + s), pos.shape)
        elif bug == "no-reset":
            pos = pos[:, :1] + np.arange(s)
        kr = _rope(k, pos, freq) if bug != "unrotated-cache" else k
        vr = _rope(v, pos, freq) if bug == "values-rotated" else v
        if cache is None:
            keys, vals, kpos, first = kr, vr, pos, pos
        else:
            old = _rope(cache["k"], cache["pos"], freq) if bug == "again" else cache["k"]
            keys, vals = np.concatenate([old, kr], 2), np.concatenate([cache["v"], vr], 2)
            kpos, first = np.concatenate([cache["pos"], pos], 1), cache["first"]
        read = _rope(keys, kpos, freq) if bug == "unrotated-cache" else keys
        if bug == "again-on-read" and cache is not None:
            read = np.concatenate([_rope(cache["k"], cache["pos"], freq), kr], 2)
        sc = _rope(q, pos, freq) @ np.repeat(read, 2, 1).transpose(0, 1, 3, 2) / 4.0
        new = {"k": keys, "v": vals, "pos": kpos, "first": first}
        if out == "scores":
            return sc, new
        n = keys.shape[2]
        allow = np.arange(n)[None, :] <= np.arange(past, past + s)[:, None]
        p = np.exp(np.where(allow, sc, -np.inf) - sc.max(-1, keepdims=True))
        p /= p.sum(-1, keepdims=True)
        return (p @ np.repeat(vals, 2, 1)).astype(q.dtype), new
    return step


def _check(step, config=CFG, **kw):
    kw.setdefault("seed", 5)
    kw.setdefault("compile", False)
    return pe.verify_attention(step, config, **kw)


def test_a_correct_step_is_consistent_tested_never_verified():
    r = _check(_step())
    assert r.verdict == "consistent (tested)"
    for sec in (r.cache, r.scores, r.relative):
        assert sec["summary"].startswith("passed"), sec
    assert r.output["summary"].startswith("not checked: the step returns scores only")
    assert "compile=False" in r.compile["summary"]
    lines = r.scenarios["lines"]
    assert [ln.split(":")[0] for ln in lines[:4]] == ["prefill + decode", "chunked prefill", "left padding",
                                                       "packed sequences"]
    assert all(ln.endswith("passed") for ln in lines) and len(lines) == 6
    text = r.to_text()
    assert text.startswith("verify_attention: CONSISTENT (TESTED)") and "VERIFIED" not in text
    assert json.loads(r.to_json())["seed"] == 5 and "**verify_attention" in r.to_markdown()


BUGS = {
    "again": ("cache", r"rotated again by call 2"),
    "again-on-read": ("scores", r"rotated again when read"),
    "decode+1": ("cache", r"decode offset off by one: each decode step's key is stored rotated at its position \+ 1"),
    "no-offset": ("cache", r"cache extended without its offset"),
    "chunk-reuse": ("cache", r"chunked prefill reusing the first chunk's position_ids"),
    "from-pad": ("cache", r"left padding with positions counted from the pad"),
    "no-reset": ("cache", r"packed sequences without position reset"),
}


@pytest.mark.parametrize("bug", list(BUGS))
def test_seeded_bugs_are_caught_with_their_cause(bug):
    section, cause = BUGS[bug]
    r = _check(_step(bug))
    assert r.verdict == "differs"
    sec = getattr(r, section)
    assert sec["summary"].startswith("FAILED")
    assert any(re.search(cause, w) for w in sec["why"]), sec["why"]


def test_each_bug_fails_only_the_scenarios_that_show_it():
    by = {ln.split(":")[0]: ln.rsplit("-- ", 1)[1] for ln in _check(_step("chunk-reuse")).scenarios["lines"]}
    assert by["chunked prefill"].startswith("FAILED") and by["prefill + decode"] == "passed"
    assert by["left padding"] == "passed" and by["packed sequences"] == "passed"
    by = {ln.split(":")[0]: ln.rsplit("-- ", 1)[1] for ln in _check(_step("from-pad")).scenarios["lines"]}
    assert by["left padding"].startswith("FAILED") and all(v == "passed" for k, v in by.items() if k != "left padding")


def test_output_only_step_has_its_probabilities_read():
    r = _check(_step(out="output"))
    assert r.verdict == "consistent (tested)", r.to_text()
    assert "read from its output" in r.scores["summary"] and r.output["summary"].startswith("passed")
    assert "values not rotated" in r.output["summary"]
    r = _check(_step("values-rotated", out="output"))
    assert r.verdict == "differs"
    assert any("values are rotated at their keys' positions (RoPE applied to v)" in w for w in r.output["why"])
    r = _check(_step("decode+1", out="output"))
    assert r.verdict == "differs" and r.scores["summary"].startswith("FAILED")


def test_keys_cached_unrotated_and_rotated_when_read_pass():
    r = _check(_step("unrotated-cache"))
    assert r.verdict == "consistent (tested)", r.to_text()
    assert "stored unrotated" in r.cache["summary"] and r.scores["summary"].startswith("passed")


def test_the_relative_check_is_the_step_against_itself():
    wrong_theta = _step(freq=500000.0 ** (-np.arange(0, 16, 2) / 16))  # relative, but not the config's RoPE
    r = _check(wrong_theta)
    assert r.verdict == "differs" and r.scores["summary"].startswith("FAILED")
    assert r.relative["summary"].startswith("passed")
    r = _check(_step("again"))  # absolute positions leak in: not a function of n - m
    assert r.relative["summary"].startswith("FAILED")
    assert any("shifted by" in w and "not on n - m alone" in w for w in r.relative["why"])


def test_a_softmax_scale_other_than_assumed_is_named():
    r = _check(_step(), scale=0.5)
    assert r.verdict == "differs"
    assert any("times the oracle's: a softmax scale of 0.25" in w for w in r.scores["why"]), r.scores["why"]


def test_bad_arguments_are_refused_by_name():
    with pytest.raises(ValueError, match="dtype='int8' is not allowed"):
        _check(_step(), dtype="int8")
    with pytest.raises(ValueError, match="layout='zigzag' is not allowed"):
        _check(_step(), layout="zigzag")
    with pytest.raises(ValueError, match="returns='probs' is not allowed"):
        _check(_step(), returns="probs")
    with pytest.raises(ValueError, match="seed=-1 is not allowed"):
        _check(_step(), seed=-1)
    with pytest.raises(ValueError, match="compile=0 is not allowed|compile='' is not allowed"):
        _check(_step(), compile="")
    with pytest.raises(TypeError, match="config must be a mapping"):
        pe.verify_attention(_step(), [1, 2])
    with pytest.raises(TypeError, match="attn=3 is not callable"):
        pe.verify_attention(3, CFG)
    with pytest.raises(ValueError, match="verify_attention checks 1-axis RoPE"):
        _check(_step(), dict(CFG, rope_scaling={"rope_type": "default", "mrope_section": [2, 3, 3]}))


def test_a_step_that_returns_what_is_not_accepted_is_told_so():
    def no_cache(q, k, v, position_ids, cache):
        return q

    with pytest.raises(ValueError, match=r"first call .* it must return \(result, cache\)"):
        _check(no_cache, framework="numpy")

    def odd(q, k, v, position_ids, cache):
        return q[..., :3], {"k": k}

    with pytest.raises(ValueError, match=r"result has shape \(1, 4, 5, 3\); accepted: scores"):
        _check(odd, framework="numpy")

    def unreadable(q, k, v, position_ids, cache):
        return q, {"v": v}

    with pytest.raises(ValueError, match="cannot read the keys from the step's cache .*cache_keys="):
        _check(unreadable, framework="numpy")


# ---------------------------------------------------------------------------- torch: de-rotation, HF, compile


def _seeded():
    pytest.importorskip("torch")
    from benchmarks import verify_seeded

    return verify_seeded


@pytest.mark.parametrize("out", ["output+weights", "output"])
def test_deepseek_v4_output_rotated_back_at_the_query(out):
    vs = _seeded()
    kw = {"layer_type": "compress"}
    r = _check(vs.attn_step(vs.V4, out=out), vs.V4, **kw)
    assert r.verdict == "consistent (tested)", r.to_text()
    assert "R(-m) sum_j p_j R(n_j) v_j" in r.output["summary"] and r.output["summary"].startswith("passed")
    assert any("output rotated back at the query position" in n for n in r.notes)
    r = _check(vs.attn_step(vs.V4, "derotation-missing", out), vs.V4, **kw)
    assert r.verdict == "differs" and any("de-rotation missing" in w for w in r.output["why"])
    r = _check(vs.attn_step(vs.V4, "derotation-at-key", out), vs.V4, **kw)
    assert r.verdict == "differs"
    assert any("at a key's position instead of the query's" in w for w in r.output["why"]), r.output["why"]
    r = _check(vs.attn_step(vs.V4, out=out), vs.V4, derotate=False, **kw)  # told there is no de-rotation
    assert r.verdict == "differs" and r.output["summary"].startswith("FAILED")


def _llama(**kw):
    pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    from transformers.models.llama.modeling_llama import LlamaAttention, LlamaRotaryEmbedding

    config = transformers.LlamaConfig(hidden_size=64, num_attention_heads=4, num_key_value_heads=2, head_dim=16,
                                      num_hidden_layers=1, max_position_embeddings=8192, **kw)
    return LlamaAttention(config, layer_idx=0), LlamaRotaryEmbedding(config), config


def test_hf_llama_attention_with_its_dynamic_cache():
    attn, rotary, config = _llama()
    r = pe.verify_attention(attn, seed=2, compile=False)  # the module's own config and rotary class
    assert r.verdict == "consistent (tested)", r.to_text()
    assert "its weights" in r.scores["summary"] and "the module's scaling" in r.scores["summary"]
    assert "LlamaAttention(hidden_states, position_embeddings" in r.notes[0]
    assert attn.q_proj.__class__.__name__ == "Linear"  # the projections are put back

    def off_by_one(x, position_ids):  # glue that offsets the decode step's positions
        return rotary(x, position_ids + (position_ids.shape[1] == 1))

    r = pe.verify_attention((attn, off_by_one), config, seed=2, compile=False)
    assert r.verdict == "differs"
    assert any("decode offset off by one" in w for w in r.cache["why"]), r.cache["why"]


FAMILIES = {  # transformers' attention classes: separate, fused (Phi-3) and per-head (GPT-NeoX) projections
    "qwen3": ("Qwen3Attention", "Qwen3Config", {}),  # q_norm / k_norm
    "phi3": ("Phi3Attention", "Phi3Config", {}),
    "gpt_neox": ("GPTNeoXAttention", "GPTNeoXConfig", {"rotary_pct": 0.25}),
    "gemma2": ("Gemma2Attention", "Gemma2Config", {}),  # attn_logit_softcapping
}


@pytest.mark.parametrize("family", list(FAMILIES))
def test_hf_attention_families(family):
    pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    import importlib

    cls, ccls, extra = FAMILIES[family]
    mod = importlib.import_module(f"transformers.models.{family}.modeling_{family}")
    small = {"hidden_size": 64, "num_attention_heads": 4, "num_hidden_layers": 1, "max_position_embeddings": 4096}
    if family != "gpt_neox":
        small.update(num_key_value_heads=2, head_dim=16)
    attn = getattr(mod, cls)(getattr(transformers, ccls)(**small, **extra), layer_idx=0)
    r = pe.verify_attention(attn, seed=4, compile=False)
    assert r.verdict == "consistent (tested)", r.to_text()


def test_hf_llama_sdpa_has_its_probabilities_read():
    attn, _, config = _llama()
    config._attn_implementation = "sdpa"
    r = pe.verify_attention(attn, config, seed=2, compile=False)
    assert r.verdict == "consistent (tested)", r.to_text()
    assert "read from its output" in r.scores["summary"]


def test_eager_and_compiled_paths_are_compared():
    vs = _seeded()
    c = dict(CFG, head_dim=16)
    r = _check(vs.attn_step(c, out="output+weights"), c, compile="aot_eager")
    assert r.verdict == "consistent (tested)", r.to_text()
    assert r.compile["summary"].startswith("passed -- torch.compile (aot_eager): a prefill of 5 and 3 decode steps")
    r = _check(_step(), compile=True)
    assert r.compile["summary"].startswith("not run: the step is numpy code")


def test_interleaved_in_split_out_layout():
    torch = pytest.importorskip("torch")
    vs = _seeded()
    base = vs.attn_step(CFG)

    def deinterleave(x):  # HF's apply_rotary_pos_emb_interleave reads pairs (2i, 2i + 1) into split halves
        b, h, s, d = x.shape
        return x.view(b, h, s, d // 2, 2).transpose(4, 3).reshape(b, h, s, d)

    def step(q, k, v, position_ids, cache):
        return base(deinterleave(q), deinterleave(k), v, position_ids, cache)

    r = _check(step, dict(CFG, model_type="deepseek_v3", rope_interleave=True, qk_rope_head_dim=16))
    assert r.verdict == "consistent (tested)", r.to_text()
    assert any("interleaved-in-split-out" in n for n in r.notes)
    assert torch.is_tensor(torch.zeros(1))


def test_a_compiled_path_that_departs_from_eager_is_named():
    torch = pytest.importorskip("torch")
    vs = _seeded()
    base = vs.attn_step(CFG)

    def step(q, k, v, position_ids, cache):  # an offset only the compiled graph takes
        return base(q, k, v, position_ids + int(torch.compiler.is_compiling()), cache)

    r = _check(step, compile="aot_eager")
    assert r.verdict == "differs" and r.compile["summary"].startswith("FAILED -- torch.compile (aot_eager)")
    assert r.compile["why"][0].startswith("compiled and eager disagree")
    assert any(w.startswith("the eager path: held to the oracle") for w in r.compile["why"])
    assert r.cache["summary"].startswith("passed")  # the eager path is right
