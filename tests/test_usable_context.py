"""Issue 41 items 3 and 4: the usable context of a model, and each engine's support decided.

``pe.usable_context`` gives, per rotating site, the largest admitted position, where tables
formed in each dtype stop being meaningful (``precision.angle``), and each engine's table and
context cap read from its source; ``pe.supports`` answers yes / no with the reasons; an
engine card never says ``equal`` where the engine does not serve the admitted positions, and a
non-default engine variant fails ``pe-audit --engines`` only under ``--strict``.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

import pe_symbolic as pe
from pe_symbolic import engines, numeric
from pe_symbolic.cli.audit import main as audit_main
from pe_symbolic.numeric.context import dtype_limits, site_context

QWEN_YARN = numeric.model_config("qwen2.5-7b-yarn")
#: a small YaRN config shaped like Qwen2.5-7B-YaRN (max_position_embeddings below factor x original)
SMALL_YARN = {"head_dim": 8, "max_position_embeddings": 64, "rope_theta": 100.0,
              "rope_scaling": {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 64}}


def test_usable_context_of_qwen2_5_yarn():
    u = pe.usable_context(QWEN_YARN)
    (site,) = u.sites
    assert site.admitted == 131071 and "yarn factor 4" in site.why
    by = {e.engine: e for e in u.engines}
    assert by["vllm"].verdict == "ok" and by["vllm"].cap == 131072 and by["vllm"].table_rows == 131072
    trt = by["tensorrt-llm"]
    assert (trt.verdict, trt.cap, trt.table_rows) == ("unsupported beyond 32,767", 32768, 32768)
    assert "model_engine.py @ 1a0dc5f70054" in trt.why and "capped" in trt.why
    assert by["sglang"].table.endswith("grown on demand") and by["llama.cpp"].table == "on the fly"
    assert "unsupported beyond 32,767" in str(u) and "precision.angle" in str(u)


def test_the_dtype_limits_are_where_the_arithmetic_says():
    lims = {(lim.dtype, lim.kind): lim.position for lim in dtype_limits(1.0)}
    for dt, np_dt in (("float32", np.float32), ("float16", np.float16)):
        first = lims[(dt, "inexact positions")]
        assert float(np_dt(first - 1)) == first - 1 and float(np_dt(first)) != first
    with np.errstate(over="ignore"):
        assert lims[("float16", "overflow")] == 65520 and np.isinf(np.float16(65520.0))
    assert np.isfinite(np.float16(65519.0))
    # the angle bound: Gamma t theta_max with Gamma = (1+u)^2 - 1 below 2**p reaches 1 rad there
    u = 2.0 ** -24
    t = lims[("float32", "angle error 1 rad")]
    assert ((1 + u) ** 2 - 1) * t >= 1 > ((1 + u) ** 2 - 1) * (t - 1)
    with pytest.raises(ValueError, match="dtype='int8'"):
        dtype_limits(1.0, ("int8",))


def test_describe_has_a_usable_context_line():
    d = numeric.describe(QWEN_YARN)
    (line,) = [n for n in d.notes if n.startswith("usable context")]
    assert "0 .. 131,071 admitted" in line and "float32 exact to 16,777,216" in line


def test_a_nope_site_has_no_table():
    prog = numeric.read_program({"model_type": "exaone4", "num_hidden_layers": 4})
    with pytest.raises(ValueError, match="has no RoPE"):
        site_context(prog.at(3))


def test_supports_says_yes_or_no_with_the_reason():
    assert pe.supports(QWEN_YARN, "vllm").ok
    trt = pe.supports(QWEN_YARN, "tensorrt-llm")
    assert not trt and trt.served == 32768 and "unsupported beyond 32,767" in trt.reasons[0]
    dyn = pe.supports({**SMALL_YARN, "rope_scaling": {"rope_type": "dynamic", "factor": 4.0}}, "llama.cpp")
    assert not dyn.ok and "no dynamic-NTK" in dyn.reasons[0]
    with pytest.raises(ValueError, match="engine='hf'"):
        pe.supports(QWEN_YARN, "hf")
    assert pe.supports(numeric.model_config("llama-3.1-8b"), "tensorrt-llm").ok  # llama3: 131,072 both


def test_an_engine_that_does_not_serve_the_admitted_positions_is_never_equal():
    rep = engines.engine_report(SMALL_YARN, ["vllm", "tensorrt-llm"], generic=False)
    v = rep.verdicts()
    assert v[(None, "tensorrt-llm")] == "unsupported beyond 63"  # 64 positions served, 256 admitted
    assert v[(None, "vllm")].startswith("equal here")
    (lay,) = rep.layers
    trt = next(c for c in lay.checks if c.engine == "tensorrt-llm")
    assert "below: equal here (proved)" in trt.explanation and trt.limit.cap == 64
    assert not rep.failures() and rep.failures(strict=True) == [(None, "tensorrt-llm", "unsupported beyond 63")]


def test_a_variant_differing_fails_only_under_strict(tmp_path, capsys):
    path = tmp_path / "config.json"
    path.write_text(json.dumps({**SMALL_YARN, "max_position_embeddings": 256}))
    rep = engines.engine_report(json.loads(path.read_text()), ["llama.cpp ext=0"], generic=False)
    assert rep.verdicts()[(None, "llama.cpp ext=0")] == "differs"
    assert not rep.failures() and rep.failures(strict=True)
    assert audit_main([str(path), "--engines"]) == 0
    out = capsys.readouterr().out
    assert "llama.cpp ext=0 (a variant, not the default): differs" in out
    assert audit_main([str(path), "--engines", "--strict"]) == 1


def test_a_nope_model_gets_no_engine_card():
    rep = engines.engine_report({"model_type": "nemotron_h", "rope_theta": 10000.0, "num_hidden_layers": 2,
                                 "hybrid_override_pattern": "M*"}, ["vllm"], generic=False)
    assert rep.layers == () and "nemotron_h" in rep.nope
    assert "no card: no layer of this model rotates (NoPE)" in rep.to_text()


def test_the_attention_factor_placement_is_decided_by_the_kernel():
    af = numeric.read_program(SMALL_YARN).at(0).attention
    assert af.placement_proof(partial=False).verdict == "proved"
    refuted = af.placement_proof(partial=True)
    assert refuted.verdict == "refuted" and refuted.counterexample
    text = engines.engine_report(SMALL_YARN, ["vllm"], generic=False).to_text()
    assert "placement: attention factor a = 1.13863 on cos/sin (q and k): the same logits as softmax scale x" in text
    partial = {**SMALL_YARN, "partial_rotary_factor": 0.5}
    assert "not the same as softmax scale" in engines.engine_report(partial, ["vllm"], generic=False).to_text()
