"""The one line at the end of a test run: which skipped tests which extra (or tool) would run."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def root_conftest():
    spec = importlib.util.spec_from_file_location("_root_conftest", ROOT / "conftest.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_reasons_are_counted_by_what_would_run_them(root_conftest):
    line = root_conftest.skip_summary(
        ["could not import 'torch': No module named 'torch'"] * 3
        + ["could not import 'transformers': No module named 'transformers'"] * 2
        + ["could not import 'jax': No module named 'jax'", "slow: run with `make test-slow` (PE_SLOW=1)",
           "pdflatex is not installed (apt-get install texlive-latex-extra)", "POSIX ownership only"])
    assert line == ("9 skipped: 3 need torch (pip install torch --index-url https://download.pytorch.org/whl/cpu), "
                    "2 need transformers (pip install transformers), 1 need jax (pip install -e '.[jax]'), "
                    "1 need pdflatex (apt-get install texlive-latex-extra), 1 slow (make test-slow), 1 other")


def test_transformers_is_not_counted_as_torch(root_conftest):
    line = root_conftest.skip_summary(["could not import 'transformers.models.deepseek_v3.modeling_deepseek_v3'"])
    assert line == "1 skipped: 1 need transformers (pip install transformers)"


def test_nothing_skipped_says_nothing(root_conftest):
    assert root_conftest.skip_summary([]) == ""


def test_every_extra_named_exists(root_conftest):
    import tomllib

    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    for _, _, how in root_conftest.SKIP_CAUSES:
        if "-e '.[" in how:
            assert how.split("[", 1)[1].split("]", 1)[0] in extras, how


def test_the_line_ends_the_run(tmp_path):
    import subprocess
    import sys
    import textwrap

    (tmp_path / "conftest.py").write_text((ROOT / "conftest.py").read_text())
    (tmp_path / "test_a.py").write_text(textwrap.dedent("""
        import pytest
        def test_ok(): pass
        def test_absent(): pytest.importorskip("zz_absent_module")
        @pytest.mark.skip(reason="slow: run with `make test-slow`")
        def test_slow(): pass
    """))
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-rs"], cwd=tmp_path,
                         capture_output=True, text=True, timeout=120)
    lines = [x for x in run.stdout.splitlines() if x.strip()]
    assert lines[-1] == "2 skipped: 1 slow (make test-slow), 1 other", lines[-4:]
    assert "1 passed, 2 skipped" in lines[-2]
