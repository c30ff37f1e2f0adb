"""pe-audit for a new user: a model folder works, configs are named by their model, a context
beyond the config's maximum is warned about, --plot without matplotlib fails before any work,
and the table fits the terminal (COLUMNS)."""

from __future__ import annotations

import json

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
    (model_folder / "config.json").write_text(json.dumps(data))
    assert main([str(model_folder), *SMALL]) == 0
    err = capsys.readouterr().err
    assert "warning: --context 2,048 exceeds meta-llama/Llama-3.1-8B's max_position_embeddings (1,024)" in err
    assert main(["llama-3.1-8b", *SMALL]) == 0  # 2048 <= 131072: no warning
    assert "warning" not in capsys.readouterr().err


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


@pytest.mark.parametrize("columns", [80, 100])
def test_the_table_fits_columns(monkeypatch, capsys, columns):
    monkeypatch.setenv("COLUMNS", str(columns))
    assert main(["llama-3.1-8b", "--recipe", "hf", "--recipe", "llama.cpp", "--dtype", "bfloat16",
                 "--context", "2048"]) == 0
    out = capsys.readouterr().out
    assert max(len(line) for line in out.splitlines()) <= columns
    for col in ("angle", "table", "output", "score", "dominant (angle)", "first inexact (inf) pos"):
        assert col in out  # split, not dropped
