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


def test_list_json_has_ids_titles_sources_concrete_expect(capsys):
    assert main(["list", "--format", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [r["id"] for r in rows] == theorems.ids()
    for row, th in zip(rows, theorems.all()):
        assert row == {"id": th.id, "title": th.title, "source": th.source,
                       "concrete": th.concrete, "expect": th.expect, "scope": th.scope}


def test_version_names_the_package_and_sympy(capsys):
    import pe_symbolic

    with pytest.raises(SystemExit) as exc:
        main(["--version"])
    assert exc.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith(f"pe-derive {pe_symbolic.__version__} (SymPy ")


def test_prove_several_ids_ignoring_case_then_one_summary(capsys):
    assert main(["prove", "ROPE.Relative", "translation.identity", "rope.relative"]) == 0
    out = capsys.readouterr().out
    assert out.count("== rope.relative -- for every even d") == 1  # the same id twice: proved once
    assert "== translation.identity -- for every even d" in out
    assert "summary: 2 of 2 claims proved; all as expected" in out
    assert out.index("rope.relative: PROVED") < out.index("translation.identity: PROVED")


def test_prove_several_ids_as_json_is_a_list_of_certificates(capsys):
    assert main(["prove", "rope.relative", "sinusoidal.dot", "--format", "json"]) == 0
    certs = json.loads(capsys.readouterr().out)
    assert [c["claim"]["id"] for c in certs] == ["rope.relative", "sinusoidal.dot"]


def test_prove_a_prefix_lists_every_id_under_it_and_proves_nothing(capsys):
    for prefix in ("rope", "ROPE", "rope.", "rope.*"):
        assert main(["prove", prefix]) == 0
        out, err = capsys.readouterr()
        assert err == "" and "PROVED" not in out and "summary" not in out
        listed = [line.split()[0] for line in out.splitlines()[1:] if line.startswith("rope.")]
        assert listed == [i for i in theorems.ids() if i.startswith("rope.")]  # every one, in order
        assert "longrope" not in out and "mrope" not in out  # whole dotted parts only


def test_a_prefix_beside_an_id_proves_nothing_and_is_an_error(capsys):
    assert main(["prove", "rope.relative", "rope"]) == 2
    out, err = capsys.readouterr()
    assert "PROVED" not in out and "rope.pair_relative" in out
    assert "nothing was proved" in err and "rope.relative" in err


def test_list_takes_a_prefix(capsys):
    assert main(["list", "family"]) == 0
    out = capsys.readouterr().out
    assert [line.split()[0] for line in out.splitlines()] == [i for i in theorems.ids() if i.startswith("family.")]
    assert main(["list", "ropx"]) == 2
    assert "unknown theorem id 'ropx'" in capsys.readouterr().err


def test_prove_an_unknown_id_names_every_id_it_may_mean(capsys):
    assert main(["prove", "rope.rel"]) == 2  # not a whole dotted part: not a prefix
    err = capsys.readouterr().err
    assert err.startswith("pe-derive: error: unknown theorem id 'rope.rel'; nearest: ")
    named = err.split("nearest: ", 1)[1].strip().split(", ")
    assert named[0] == "rope.relative"


def test_unknown_ids_are_reported_before_anything_is_proved(capsys):
    assert main(["prove", "rope.relative", "translation.identiy"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and "nearest: translation.identity" in err


def test_prove_text_and_exit_status(capsys):
    assert main(["prove", "translation.identity", "--d", "4"]) == 0
    out = capsys.readouterr().out
    assert "translation.identity: PROVED" in out
    assert "instantiated for d = 4" in out and "for every even d" in out


def test_prove_latex(capsys):
    assert main(["prove", "rope.efficient_form", "--format", "latex"]) == 0
    out = capsys.readouterr().out
    assert r"\begin{align*}" in out and r"\textbf{proved}" in out


def test_prove_json_is_a_certificate(capsys):
    assert main(["prove", "sinusoidal.dot", "--format", "json"]) == 0
    cert = json.loads(capsys.readouterr().out)
    assert cert["verdict"] == "proved" and cert["claim"]["d"] is None
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
        (["list", "--format", "latex"], "--format='latex' is not allowed for `list`; use one of 'text', 'json'"),
        (["prove", "sphere.tables", "--d", "8"], "--d=8 is not allowed: theorem 'sphere.tables' has no concrete-d form"),
    ],
)
def test_bad_usage_is_one_line_exit_2(argv, message, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err
    assert err.count("\n") == 1 and "Traceback" not in err


def _false_theorem(expect: str = "proved") -> theorems.Theorem:
    import sympy as sp

    from pe_symbolic.encodings.symbols import t
    from pe_symbolic.proof import Claim, Equation

    return theorems.Theorem(
        "test.bogus", "a false claim", "test",
        lambda d: Claim("test.bogus", "sin t = cos t", (Equation(sp.sin(t), sp.cos(t)),)),
        concrete=False, expect=expect,
    )


def test_unproved_claim_gives_exit_status_1(monkeypatch, capsys):
    monkeypatch.setitem(theorems.registry._REGISTRY, "test.bogus", _false_theorem())
    assert main(["prove", "test.bogus"]) == 1
    assert "REFUTED" in capsys.readouterr().out


def test_summary_tells_a_failure_from_a_registered_negative(monkeypatch, capsys):
    monkeypatch.setitem(theorems.registry._REGISTRY, "test.bogus", _false_theorem())
    assert main(["prove", "translation.identity", "test.bogus"]) == 1
    out = capsys.readouterr().out
    summary = out.rstrip().splitlines()[-1]  # the last line, after the table of results
    assert summary.startswith("summary: 1 of 2 claims proved; 1 NOT AS EXPECTED")
    assert "all as expected" not in summary
    results = out.split("results:")[1]
    assert "test.bogus" in results and "<- NOT AS EXPECTED (expected proved)" in results


def test_a_registered_negative_that_is_refuted_succeeds(monkeypatch, capsys):
    monkeypatch.setitem(theorems.registry._REGISTRY, "test.bogus", _false_theorem("refuted"))
    assert main(["prove", "translation.identity", "test.bogus"]) == 0
    out = capsys.readouterr().out
    assert "summary: 1 of 1 claims proved; 1 of 1 registered negatives refuted, as expected; all as expected" in out
    assert "NOT AS EXPECTED" not in out
    assert main(["list"]) == 0
    assert "a false claim  [expected: refuted]" in capsys.readouterr().out


def test_a_registered_negative_that_is_not_refuted_is_not_called_expected(capsys):
    from pe_symbolic.cli.derive import _summary

    _summary([("a.true", None, "proved", 0.1, "proved"), ("a.neg", None, "undecided", 0.1, "refuted")],
             latex=False)
    line = capsys.readouterr().out.splitlines()[-1]
    assert line == ("summary: 1 of 1 claims proved; 0 of 1 registered negatives refuted; "
                    "1 NOT AS EXPECTED (marked above)")


def test_one_registered_negative_says_its_refutation_is_expected(capsys):
    assert main(["prove", "dynamic.mixed_bases"]) == 0
    assert "a registered honest negative" in capsys.readouterr().out


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
        line += f"; {neg} of {neg} registered negatives refuted, as expected"
    assert out.stdout.rstrip().splitlines()[-1] == line + "; all as expected"  # it ends with its summary


def test_help_shows_examples_and_exit_status(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["--help"])
    assert exc.value.code == 0
    out = capsys.readouterr().out
    assert "pe-derive prove rope.relative translation.identity" in out
    assert "pe-derive list --format json" in out and "--version" in out
    for code in "012":
        assert f"\n  {code}  " in out.split("exit status:")[1]


def test_ids_are_unique_ignoring_case():
    th = theorems.get("rope.relative")
    with pytest.raises(ValueError, match="'ROPE.relative' is already registered .as 'rope.relative'"):
        theorems.register(theorems.Theorem("ROPE.relative", th.title, th.source, th.build))
    assert theorems.get("Rope.Relative") is th


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


def test_check_takes_the_list_that_prove_writes_for_several_jobs(tmp_path, capsys):
    assert main(["prove", "translation.identity", "--d", "4", "--format", "json"]) == 0
    path = tmp_path / "certs.json"
    path.write_text(capsys.readouterr().out)
    assert isinstance(json.loads(path.read_text()), list)
    assert main(["check", str(path)]) == 0
    out = capsys.readouterr().out
    assert "summary: 2 of 2 certificates re-checked as proved" in out and "d = 4" in out
    bad = json.loads(path.read_text())
    bad[1]["claim"]["d"] = 8  # tampered: the whole file is refused
    path.write_text(json.dumps(bad))
    assert main(["check", str(path)]) == 2
    assert "[1]: not a valid certificate" in capsys.readouterr().err


def _timeless(text: str) -> str:
    import re

    return re.sub(r"\d+\.\d+ s\b", "T s", text)


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_jobs_prove_in_worker_processes_with_the_same_output_in_the_same_order(capsys, monkeypatch, fmt):
    from pe_symbolic.cli import derive

    if not derive._can_fork() or "jax" in sys.modules:
        # JAX's runtime threads are not Python threads: once JAX is loaded (by an earlier test
        # in this process, e.g. in the same xdist worker) it warns at every fork
        pytest.skip("no fork here (or this process runs several threads, or a runtime that warns at fork "
                    "is loaded): --jobs proves in this process")
    real = derive._outcome

    def spy(n, live=False):  # runs in whichever process proves job n: says which
        verdict, elapsed, shown = real(n, live)
        return verdict, elapsed, shown + f"\n<pid {os.getpid()}>" if fmt == "text" else shown

    monkeypatch.setattr(derive, "_outcome", spy)
    ids = ["rot2.compose", "rope.relative", "dynamic.mixed_bases", "pair.dot"]  # a registered negative too
    assert main(["prove", *ids, "--format", fmt, "--jobs", "1"]) == 0
    alone = capsys.readouterr().out
    assert main(["prove", *ids, "--format", fmt, "--jobs", "2"]) == 0
    side_by_side = capsys.readouterr().out
    if fmt == "json":
        strip = lambda certs: [{**c, "elapsed_s": 0} for c in json.loads(certs)]  # noqa: E731
        assert strip(side_by_side) == strip(alone)
        assert [c["claim"]["id"] for c in json.loads(side_by_side)] == ids
        return
    pids = {int(p) for p in __import__("re").findall(r"<pid (\d+)>", side_by_side)}
    assert pids and os.getpid() not in pids  # proved by the workers, not here
    assert set(__import__("re").findall(r"<pid (\d+)>", alone)) == {str(os.getpid())}
    drop = lambda out: __import__("re").sub(r"\n<pid \d+>", "", _timeless(out))  # noqa: E731
    assert drop(side_by_side) == drop(alone)
    assert [line.split()[1] for line in side_by_side.splitlines() if line.startswith("== ")] == ids


@pytest.mark.parametrize("value", ["0", "-1", "two"])
def test_jobs_flag_is_validated(capsys, value):
    assert main(["prove", "rope.relative", "--jobs", value]) == 2
    assert f"--jobs={value!r} must be a positive integer" in capsys.readouterr().err


@pytest.mark.parametrize("cpus,load,expected", [(2, 0.1, 2), (2, 1.4, 1), (2, 7.0, 1), (16, 2.0, 4), (1, 0.0, 1)])
def test_jobs_default_is_one_process_per_idle_cpu(monkeypatch, cpus, load, expected):
    from pe_symbolic.cli import derive

    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: set(range(cpus)), raising=False)
    monkeypatch.setattr(os, "getloadavg", lambda: (load, load, load), raising=False)
    assert derive._workers(None) == expected
    assert derive._workers("3") == 3
