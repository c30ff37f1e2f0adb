"""The derivation scripts: they run from a plain checkout, print their proofs, and say clearly
what they found (claims proved, article claims refuted on purpose) and what they need.

The "plain checkout" tests copy the package and the scripts into a temporary folder (no
install, no ``.venv``) and run them with ``python -S`` (no site-packages, so no installed
``pe_symbolic`` and no matplotlib) and a ``PYTHONPATH`` that holds links to SymPy, NumPy and
mpmath and ml_dtypes only -- or not all of them.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DERIVATIONS = ROOT / "derivations"
SCRIPTS = {
    "translation_matrix.py": ["translation.derive", "translation.identity", "translation.independent", "translation.group"],
    "dot_product.py": ["sinusoidal.dot"],
    "rope_relative.py": ["rope.relative", "rope.efficient_form", "layout.permutation"],
}


def _run(args: list[str], *, env: dict[str, str] | None = None, cwd: Path = ROOT, timeout: int = 300):
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, timeout=timeout,
                          cwd=cwd, env=env)


@pytest.mark.parametrize("script", sorted(SCRIPTS))
def test_script_prints_its_proofs_and_exits_0(script):
    out = _run([str(DERIVATIONS / script)])
    assert out.returncode == 0, out.stderr[-2000:]
    for id_ in SCRIPTS[script]:
        assert f"{id_}: PROVED" in out.stdout
        assert f"-- claim {id_} [d = " in out.stdout  # instantiated too
    n = 2 * len(SCRIPTS[script])
    assert out.stdout.rstrip().endswith(f"{n} claims proved.\nAll as expected.")


def test_the_verify_tutorial_runs_as_expected():
    # the gallery's "Your RoPE, verified" runs verify_rope on purpose-built functions; its
    # checks follow what verify_rope promises (it ran only in `make docs` before, which
    # caught a check that verify's new linearity test had made obsolete)
    out = _run([str(DERIVATIONS / "verify_rope.py")], timeout=600)
    assert out.returncode == 0, (out.stdout[-2000:], out.stderr[-2000:])
    assert out.stdout.rstrip().endswith("All as expected.")
    assert "verify.nonlinear_untraced_fails_the_linearity_test" in out.stdout


def test_script_rejects_odd_d():
    out = _run([str(DERIVATIONS / "dot_product.py"), "--d", "5"], timeout=120)
    assert out.returncode == 2 and "--d=5 must be a positive even integer" in out.stderr


def test_help_names_the_options_and_exit_status():
    out = _run([str(DERIVATIONS / "rope_relative.py"), "--help"], timeout=120)
    assert out.returncode == 0
    assert out.stdout.splitlines()[2] == "RoPE: attention scores depend on positions only through their difference"
    assert "--d N" in out.stdout and "--plot" in out.stdout and "exit status: 0" in out.stdout


# --------------------------------------------------------------------------------------
# A plain checkout, no install
# --------------------------------------------------------------------------------------
def _site(tmp: Path, packages: tuple[str, ...]) -> Path:
    """A folder with links to the given installed packages only (plus NumPy's bundled libraries)."""
    site = tmp / "site"
    site.mkdir()
    for name in packages:
        spec = importlib.util.find_spec(name)
        src = Path(next(iter(spec.submodule_search_locations)))
        (site / name).symlink_to(src, target_is_directory=True)
        for libs in (src.with_name(f"{name}.libs"), src.with_name(f"python_{name}.libs")):
            if libs.is_dir():  # manylinux wheels keep shared libraries here
                (site / libs.name).symlink_to(libs, target_is_directory=True)
    return site


@pytest.fixture(scope="module")
def checkout(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the checkout's package and scripts: never installed, no .venv."""
    root = tmp_path_factory.mktemp("checkout")
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    shutil.copytree(ROOT / "pe_symbolic", root / "pe_symbolic", ignore=ignore)
    shutil.copytree(DERIVATIONS, root / "derivations", ignore=ignore)
    shutil.copy(ROOT / "pyproject.toml", root)
    return root


def _plain(site: Path) -> dict[str, str]:
    return {"PATH": os.environ.get("PATH", ""), "PYTHONPATH": str(site), "PYTHONWARNINGS": "error"}


def test_a_plain_checkout_runs_without_install(checkout, tmp_path):
    env = _plain(_site(tmp_path, ("sympy", "numpy", "mpmath", "ml_dtypes", "flint")))
    # the environment really is bare: neither the package nor matplotlib is importable
    bare = _run(["-S", "-c", "import pe_symbolic"], env=env, cwd=tmp_path)
    assert bare.returncode == 1 and "No module named 'pe_symbolic'" in bare.stderr
    assert _run(["-S", "-c", "import matplotlib"], env=env, cwd=tmp_path).returncode == 1

    out = _run(["-S", "derivations/dot_product.py", "--d", "4"], env=env, cwd=checkout)
    assert out.returncode == 0, out.stderr[-2000:]
    assert "sinusoidal.dot: PROVED" in out.stdout and out.stderr == ""

    # a figure is asked for, matplotlib is missing: one line, exit status 2
    out = _run(["-S", "derivations/kernes.py", "--plot"], env=env, cwd=checkout)
    assert out.returncode == 2 and "--plot needs matplotlib" in out.stderr and out.stdout == ""


@pytest.mark.parametrize("missing", ["sympy", "mpmath", "ml_dtypes", "flint"])
def test_a_missing_package_is_one_line_saying_what_to_install(checkout, tmp_path, missing):
    env = _plain(_site(tmp_path, tuple(p for p in ("sympy", "numpy", "mpmath", "ml_dtypes", "flint") if p != missing)))
    out = _run(["-S", "derivations/kernes.py"], env=env, cwd=checkout)
    assert out.returncode == 2 and out.stdout == ""
    assert out.stderr.count("\n") == 1 and "Traceback" not in out.stderr
    line = out.stderr.strip()
    assert line.startswith(f"kernes.py: needs {missing}, not installed for {sys.executable}")
    assert "`pip install -e .`" in line and "`make prove`" in line
    assert "`.venv/bin/python derivations/kernes.py`" in line


def test_with_a_venv_the_line_names_its_python(checkout, tmp_path):
    venv_python = checkout / ".venv" / "bin" / "python"
    venv_python.parent.mkdir(parents=True)
    venv_python.write_text("")
    try:
        out = _run(["-S", str(checkout / "derivations" / "video.py")], env=_plain(_site(tmp_path, ())),
                   cwd=tmp_path)
    finally:
        shutil.rmtree(checkout / ".venv")
    line = out.stderr.strip()
    assert out.returncode == 2 and line.startswith("video.py: needs sympy, numpy, mpmath, ml_dtypes, flint, not installed")
    assert f"run it with `{venv_python} {checkout / 'derivations' / 'video.py'}`" in line
    assert f"`pip install -e {checkout}`" in line


# --------------------------------------------------------------------------------------
# The summary: proved, refuted on purpose, not as expected
# --------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def common():
    sys.path.insert(0, str(DERIVATIONS))
    try:
        import _common
    finally:
        sys.path.remove(str(DERIVATIONS))
    return _common


def test_summary_counts_an_article_claim_refuted_on_purpose(common):
    rep = common.Report([common.ProofRecord("a", None, "proved"), common.ProofRecord("a", 8, "proved")],
                        [common.CheckRecord("kernes.dot_decay", holds=False, expected=False),
                         common.CheckRecord("kazemnejad.unique", holds=True)])
    assert rep.summary().splitlines() == [
        "2 claims proved; 1 numeric certificate held; 1 article claim refuted by a numeric "
        "certificate, as expected (kernes.dot_decay).",
        "Numeric certificates cover their stated range only; they are not proofs.",
        "All as expected.",
    ]
    assert rep.exit_code() == 0


def test_summary_never_says_all_is_well_when_it_is_not(common, capsys):
    rep = common.Report([common.ProofRecord("a", None, "proved"), common.ProofRecord("b", 8, "undecided")],
                        [common.CheckRecord("c", holds=False, expected=True)])
    assert rep.exit_code() == 1
    out = capsys.readouterr().out
    assert "1 of 2 claims proved." in out
    assert "NOT AS EXPECTED: claim b (d=8): undecided, expected proved" in out
    assert "NOT AS EXPECTED: check c: fails, expected it to hold" in out
    assert out.rstrip().endswith("FAILED: 2 results not as expected.")
    assert "All as expected" not in out and "held" not in out


def test_a_refuted_article_claim_that_holds_after_all_is_a_failure(common):
    rep = common.Report([], [common.CheckRecord("kernes.dot_decay", holds=True, expected=False)])
    assert rep.not_as_expected() == ["check kernes.dot_decay: holds, expected it to fail"]


def test_registered_negatives_are_counted_apart(common):
    rep = common.Report([common.ProofRecord("a", None, "proved"),
                         common.ProofRecord("neg", None, "refuted", expect="refuted")])
    assert rep.summary().splitlines()[0] == "1 claim proved; 1 of 1 registered negative refuted, as expected."
    assert rep.not_as_expected() == []


@pytest.fixture
def shell(monkeypatch):
    """A run from a shell: neither a Jupyter kernel nor the docs build in this process. Other
    test files import ``ipykernel`` / ``sphinx_gallery`` (importorskip), and pytest-xdist may
    run them earlier in this worker: the tutorial would then take itself for embedded."""
    for host in ("ipykernel", "sphinx_gallery"):
        monkeypatch.delitem(sys.modules, host, raising=False)


def test_finish_exits_with_status_1_from_a_shell(common, shell, capsys):
    rep = common.Report([common.ProofRecord("b", None, "refuted")])
    with pytest.raises(SystemExit) as exc:
        rep.finish()
    assert exc.value.code == 1
    assert "FAILED: 1 result not as expected." in capsys.readouterr().out


def test_figures_are_off_from_a_shell_without_plot(common, shell):
    common.parse_args([])
    assert common.figure() is None


def test_in_a_notebook_the_kernel_arguments_are_ignored_and_failures_raise(common, monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "ipykernel", sys.modules["pytest"])  # any module will do
    monkeypatch.setattr(sys, "argv", ["ipykernel_launcher.py", "-f", "/tmp/kernel.json"])
    assert common.parse_args().d == 8
    rep = common.Report([common.ProofRecord("b", None, "undecided")])
    with pytest.raises(RuntimeError, match="not as expected: claim b: undecided, expected proved"):
        rep.finish()
    common.Report([common.ProofRecord("a", None, "proved")]).finish()  # no SystemExit(0) either
    assert "All as expected." in capsys.readouterr().out
