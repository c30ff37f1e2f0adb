"""`pe-derive`: listing, proving, formats, exit codes and one-line errors."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from pe_symbolic import theorems
from pe_symbolic.cli import main
from pe_symbolic.theorems import recheck_certificate


def test_list_shows_every_id(capsys):
    assert main(["list"]) == 0
    out = capsys.readouterr().out
    for id_ in theorems.ids():
        assert id_ in out


def test_prove_text_and_exit_status(capsys):
    assert main(["prove", "translation.identity", "--d", "4"]) == 0
    out = capsys.readouterr().out
    assert "translation.identity: PROVED" in out
    assert "instantiated for d = 4" in out and "generic pair" in out


def test_prove_latex(capsys):
    assert main(["prove", "rope.efficient_form", "--format", "latex"]) == 0
    out = capsys.readouterr().out
    assert r"\begin{align*}" in out and r"\textbf{proved}" in out


def test_prove_json_is_a_certificate(capsys):
    assert main(["prove", "sinusoidal.dot", "--format", "json"]) == 0
    cert = json.loads(capsys.readouterr().out)
    assert cert["verdict"] == "proved" and cert["d"] is None
    assert recheck_certificate(cert).verdict == "proved"


def test_all_json_carries_every_verdict(capsys):
    assert main(["all", "--format", "json"]) == 0
    certs = json.loads(capsys.readouterr().out)
    assert [c["claim"]["id"] for c in certs] == theorems.ids()
    # registered honest negatives (expect="refuted") must be refuted, everything else proved
    assert [c["verdict"] for c in certs] == [th.expect for th in theorems.all()]


@pytest.mark.parametrize(
    "argv,message",
    [
        (["prove", "translation.identiy"], "nearest: translation.identity"),
        (["prove", "translation.identity", "--d", "7"], "--d='7' must be a positive even integer"),
        (["prove", "translation.identity", "--d", "-2"], "--d='-2' must be a positive even integer"),
        (["prove", "translation.identity", "--d", "eight"], "--d='eight' must be a positive even integer"),
        (["all", "--format", "yaml"], "--format='yaml' is not allowed; use one of 'text', 'latex', 'json'"),
        (["all", "--no-generic"], "--no-generic needs at least one --d N"),
    ],
)
def test_bad_usage_is_one_line_exit_2(argv, message, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err
    assert err.count("\n") == 1 and "Traceback" not in err


def test_unproved_claim_gives_exit_status_1(monkeypatch, capsys):
    import sympy as sp

    from pe_symbolic.proof import Claim, Equation
    from pe_symbolic.encodings.symbols import t

    bogus = theorems.Theorem(
        "test.bogus", "a false claim", "test",
        lambda d: Claim("test.bogus", "sin t = cos t", (Equation(sp.sin(t), sp.cos(t)),)),
        concrete=False,
    )
    monkeypatch.setitem(theorems.registry._REGISTRY, "test.bogus", bogus)
    assert main(["prove", "test.bogus"]) == 1
    assert "REFUTED" in capsys.readouterr().out


def test_console_script_all_exits_0_and_prints_every_proof():
    exe = Path(sys.executable).with_name("pe-derive")
    if not exe.exists():
        pytest.skip("console script not installed next to this interpreter")
    out = subprocess.run([str(exe), "all"], capture_output=True, text=True, timeout=300,
                         env={**os.environ, "PYTHONWARNINGS": "error"})
    assert out.returncode == 0, out.stderr
    for th in theorems.all():
        assert f"{th.id}: {th.expect.upper()}" in out.stdout
    n = len(theorems.ids())
    neg = sum(th.expect == "refuted" for th in theorems.all())
    line = f"summary: {n - neg} of {n - neg} claims proved"
    if neg:
        line += f"; {neg} of {neg} registered negatives refuted as expected"
    assert line in out.stdout


def test_help_explains_commands_and_exit_status():
    with pytest.raises(SystemExit) as exc:
        main(["--help"])
    assert exc.value.code == 0


def test_check_rechecks_a_certificate_file(tmp_path, capsys):
    path = tmp_path / "c.json"
    assert main(["prove", "translation.group", "--format", "json"]) == 0
    path.write_text(capsys.readouterr().out)
    assert main(["check", str(path)]) == 0
    out = capsys.readouterr().out
    assert "re-checked translation.group (registered theorem)" in out and "verdict: proved" in out


def test_check_exits_2_on_a_tampered_or_malformed_file(tmp_path, capsys):
    assert main(["prove", "translation.group", "--format", "json"]) == 0
    cert = json.loads(capsys.readouterr().out)
    cert["claim"]["statement"] = "T(k) is the identity"
    bad = tmp_path / "tampered.json"
    bad.write_text(json.dumps(cert))
    assert main(["check", str(bad)]) == 2
    assert "statement differs" in capsys.readouterr().err
    junk = tmp_path / "junk.json"
    junk.write_text("{not json")
    assert main(["check", str(junk)]) == 2
    assert "malformed JSON" in capsys.readouterr().err
    assert main(["check", str(tmp_path / "missing.json")]) == 2


def test_check_exits_1_when_a_chain_does_not_recheck(tmp_path, capsys):
    assert main(["prove", "rope.relative", "--format", "json"]) == 0
    cert = json.loads(capsys.readouterr().out)
    cert["parts"][0]["steps"][-1]["expr"] = "Integer(1)"
    path = tmp_path / "c.json"
    path.write_text(json.dumps(cert))
    assert main(["check", str(path)]) == 1
    assert "verdict: undecided" in capsys.readouterr().out


def test_timeout_flag_is_validated(capsys):
    assert main(["prove", "rope.relative", "--timeout", "-3"]) == 2
    assert "--timeout" in capsys.readouterr().err
