"""The foundation derivation scripts run, print their proofs and exit 0."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPTS = {
    "translation_matrix.py": ["translation.derive", "translation.identity", "translation.independent", "translation.group"],
    "dot_product.py": ["sinusoidal.dot"],
    "rope_relative.py": ["rope.relative", "rope.efficient_form", "layout.permutation"],
}


@pytest.mark.parametrize("script", sorted(SCRIPTS))
def test_script_prints_its_proofs_and_exits_0(script):
    out = subprocess.run([sys.executable, str(ROOT / "derivations" / script)],
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    for id_ in SCRIPTS[script]:
        assert f"{id_}: PROVED" in out.stdout
        assert f"-- claim {id_} [d = " in out.stdout  # instantiated too
    assert out.stdout.rstrip().endswith("all claims proved")


def test_script_rejects_odd_d():
    out = subprocess.run([sys.executable, str(ROOT / "derivations" / "dot_product.py"), "--d", "5"],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 2 and "--d=5 must be a positive even integer" in out.stderr
