"""pe-audit for a new user: a model folder works, configs are named by their model, a context
beyond the config's maximum is warned about, --plot without matplotlib fails before any work,
and the table fits the terminal (COLUMNS)."""

from __future__ import annotations

import json
import sys

import pytest

import pe_symbolic as pe
from pe_symbolic.cli.audit import main

SMALL = ["--recipe", "hf", "--dtype", "float32", "--context", "2048"]


@pytest.fixture
def model_folder(tmp_path):
    folder = tmp_path / "downloads" / "Llama-3.1-8B"
    folder.mkdir(parents=True)
    config = dict(pe.numeric.model_config("llama-3.1-8b"), _name_or_path="meta-llama/Llama-3.1-8B",
                  model_type="llama")
    (folder / "config.json").write_text(json.dumps(config), encoding="utf-8")
    return folder


def test_a_model_folder_is_read_and_named_by_its_model(model_folder, capsys):
    assert main([str(model_folder), *SMALL]) == 0
    out = capsys.readouterr().out
    assert out.startswith("pe-audit  meta-llama/Llama-3.1-8B (llama3")
    # the file itself: the same name, not its parent folder's
    assert main([str(model_folder / "config.json"), *SMALL]) == 0
    assert capsys.readouterr().out.startswith("pe-audit  meta-llama/Llama-3.1-8B")


def test_a_config_without_a_name_is_named_by_its_type_and_path(model_folder, capsys):
    data = json.loads((model_folder / "config.json").read_text())
    del data["_name_or_path"]
    (model_folder / "config.json").write_text(json.dumps(data))
    assert main([str(model_folder), *SMALL]) == 0
    assert capsys.readouterr().out.startswith(f"pe-audit  llama ({model_folder})")


def test_a_folder_without_config_json_is_a_usage_error(tmp_path, capsys):
    assert main([str(tmp_path), *SMALL]) == 2
    assert "is a folder without a config.json" in capsys.readouterr().err


def test_a_context_beyond_the_configs_maximum_is_warned_about(model_folder, capsys):
    data = json.loads((model_folder / "config.json").read_text())
    data["max_position_embeddings"] = 1024
    del data["rope_scaling"]  # llama3 x8 over 8192 would make the effective context 65,536
    (model_folder / "config.json").write_text(json.dumps(data))
    assert main([str(model_folder), *SMALL]) == 0
    err = capsys.readouterr().err
    assert ("warning: --context 2,048 exceeds meta-llama/Llama-3.1-8B's effective context 1,024 "
            "(max_position_embeddings)") in err
    assert main(["llama-3.1-8b", *SMALL]) == 0  # 2048 <= 131072: no warning
    assert "warning" not in capsys.readouterr().err


def test_the_default_context_is_the_models_effective_context(capsys, monkeypatch):
    """Qwen2.5 with YaRN x4 is configured for 4 x 32,768 = 131,072 positions: audited there by
    default, and not warned about there (issue 34: it was, at max_position_embeddings 32,768)."""
    import pe_symbolic.cli.audit as cli

    seen = {}
    real = sys.modules["pe_symbolic.audit"].audit

    def spy(*a, **k):
        seen.setdefault("context", []).append(k["context"])
        return real(*a, **dict(k, context=2048))  # the run itself kept short

    monkeypatch.setattr(sys.modules["pe_symbolic.audit"], "audit", spy)
    assert main(["qwen2.5-7b-yarn", "--dtype", "float32"]) == 0
    out, err = capsys.readouterr()
    assert seen["context"] == [131072] and "warning" not in err
    assert "context 131,072: the model's effective context (yarn factor 4 x original_max_position_embeddings" in out
    assert main(["qwen2.5-7b-yarn", "--dtype", "float32", "--context", "131072"]) == 0
    assert "warning" not in capsys.readouterr().err
    assert cli._model_plan("llama-3.1-8b")[2:] == (131072, "max_position_embeddings")
    assert cli._model_plan("sinusoidal:64")[1:] == ([None], None, "")


def test_every_layer_type_is_audited_by_default(capsys):
    assert main(["gemma-3-4b", "--dtype", "float32", "--context", "1024"]) == 0
    out = capsys.readouterr().out
    # in HF's order (its rotary embedding: sorted(set(layer_types)))
    assert "== layer type full_attention (1 of 2) ==" in out and "== layer type sliding_attention (2 of 2) ==" in out
    assert "layer_type=" not in out
    assert "rope_theta 10000" in out and "linear, factor 8, rope_theta 1e+06" in out
    assert main(["gemma-3-4b", "--dtype", "float32", "--context", "1024", "--layer-type", "full_attention"]) == 0
    out = capsys.readouterr().out
    assert "== layer type" not in out and "rope_theta 1e+06" in out
    assert main(["gemma-3-4b", "--dtype", "float32", "--context", "1024", "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["layer_types"] == ["full_attention", "sliding_attention"] and len(data["reports"]) == 2


def test_headlines_say_where_tables_stop_meaning_anything(capsys):
    assert main(["llama-3.1-8b", "--recipe", "hf-autocast", "--recipe", "hf", "--dtype", "bfloat16",
                 "--context", "4096"]) == 0
    out = " ".join(capsys.readouterr().out.split())  # the prose wraps at 100 columns
    assert ("headline: hf-autocast (bfloat16): tables meaningless in bfloat16 by position 642 (the cos/sin table "
            "is off by 2 there;") in out
    assert "positions collide from 257 (256 and 257 are one bfloat16 number)" in out
    assert "headline: hf (bfloat16)" not in out
    assert main(["llama-3.1-8b", "--recipe", "hf", "--dtype", "float32", "--context", "4096"]) == 0
    assert "headline: no table is meaningless within the context" in capsys.readouterr().out


def test_plot_without_matplotlib_fails_before_any_work(monkeypatch, capsys):
    import importlib.util

    import pe_symbolic.cli.audit as cli

    real = importlib.util.find_spec
    monkeypatch.setattr(cli.importlib.util, "find_spec",
                        lambda name, *a: None if name == "matplotlib" else real(name, *a))
    import sys

    audit_module = sys.modules["pe_symbolic.audit"]  # pe.audit may be the function of that name
    monkeypatch.setattr(audit_module, "audit", lambda *a, **k: pytest.fail("the audit ran before --plot was checked"))
    assert main(["llama-3.1-8b", *SMALL, "--plot", "x.png"]) == 2
    assert "--plot needs matplotlib" in capsys.readouterr().err


@pytest.mark.parametrize("columns", [80, 100, 200])
def test_the_table_fits_columns(monkeypatch, capsys, columns):
    argv = ["llama-3.1-8b", "--recipe", "hf", "--recipe", "llama.cpp", "--recipe", "pe_symbolic-torch",
            "--dtype", "bfloat16", "--context", "2048"]
    monkeypatch.setenv("COLUMNS", str(columns))
    assert main(argv) == 0
    out = capsys.readouterr().out
    # the short table: 100 columns at most (fewer on a narrower terminal), one table when it fits
    assert max(len(line) for line in out.splitlines()) <= min(100, columns)
    for col in ("angle", "table", "output", "score"):
        assert col in out
    assert "dominant (angle)" not in out and "the angle bound is dominated by" in out
    if columns >= 100:
        assert out.count("recipe ") == 1
    # --wide: every column, fitted to the terminal (split, not dropped)
    assert main(argv + ["--wide"]) == 0
    out = capsys.readouterr().out
    assert max(len(line) for line in out.splitlines()) <= columns
    for col in ("angle", "table", "output", "score", "dominant (angle)", "first inexact (inf) pos"):
        assert col in out


MULTI = {"model_type": "llama", "hidden_size": 512, "num_attention_heads": 8, "max_position_embeddings": 4096,
         "rope_theta": 10000.0, "rope_scaling": {"rope_type": "linear", "factor": [1.0, 2.0, 4.0]}}


def test_a_multi_factor_linear_config_needs_factor_and_names_the_flag(tmp_path, capsys):
    path = tmp_path / "config.json"
    path.write_text(json.dumps(MULTI))
    assert main([str(path), *SMALL]) == 2
    err = capsys.readouterr().err
    assert "lists 3 factors" in err and "--factor" in err, err
    assert main([str(path), *SMALL, "--factor", "3"]) == 2
    assert "factor=3.0 is not one of" in capsys.readouterr().err


@pytest.mark.parametrize("factor", [1.0, 2.0, 4.0])
def test_factor_audits_that_block_as_linear_rope_of_that_factor(factor):
    # theorem linear.multi_factor: vLLM's block for factor s is linear RoPE of factor s
    one = {**MULTI, "rope_scaling": {"rope_type": "linear", "factor": factor}}
    got = pe.audit(MULTI, dtype="float32", context=2048, factor=factor)
    want = pe.audit(one, dtype="float32", context=2048)
    assert got.results[0].measured("angle") == want.results[0].measured("angle")
    assert got.results[0].bound("angle") == want.results[0].bound("angle")
    assert got.results[0].measured("angle") > 0


def test_factor_is_refused_where_there_is_no_factor_list():
    with pytest.raises(ValueError, match="has no factor list"):
        pe.audit("llama-3.1-8b", dtype="float32", context=64, factor=2.0)
    with pytest.raises(ValueError, match="applies to vLLM's multi-factor linear RoPE"):
        pe.audit("sinusoidal:64", recipe="t2t", dtype="float32", context=64, factor=2.0)
