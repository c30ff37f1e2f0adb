"""The "What the literature claims" chapter: each paper's claim gets its registered verdict."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from pe_symbolic import theorems
from pe_symbolic.theorems.chapters import LITERATURE_IDS, literature

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("id", LITERATURE_IDS)
def test_literature_claims_get_their_registered_verdict(id):
    th = theorems.get(id)
    assert th.prove().verdict == th.expect == literature.EXPECT.get(id, "proved")


def test_men_index_figures():
    assert round(float(literature.men_index(28259, 128, 10 ** 6)), 3) == -0.775
    ok, at, low = literature.men_admissible(128, 32768, literature.MEN_ADMISSIBLE_BASE)
    assert ok and low > 0.4
    ok, at, low = literature.men_admissible(128, 32768, 10 ** 6)
    assert not ok and at == 28259 and round(low, 4) == -0.7753


def test_literature_script_runs_and_says_all_as_expected():
    env = {**os.environ, "PYTHONWARNINGS": "error"}
    res = subprocess.run([sys.executable, str(ROOT / "derivations" / "literature.py")], cwd=ROOT,
                         capture_output=True, text=True, timeout=300, env=env)
    assert res.returncode == 0, res.stdout[-3000:] + res.stderr[-3000:]
    assert res.stdout.rstrip().endswith("All as expected.")
    assert "2 of 2 registered negatives refuted, as expected" in res.stdout
    for id in LITERATURE_IDS:
        verdict = "REFUTED" if literature.EXPECT.get(id) == "refuted" else "PROVED"
        assert f"{id}: {verdict}" in res.stdout
