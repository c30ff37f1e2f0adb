"""The disk cache of verdicts and lowered formulas: a warm process imports no SymPy and
proves nothing; a cache that cannot be written or read is no error; the key moves."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from pe_symbolic import _store
from pe_symbolic.numeric import _diskcache as D

PROBE = textwrap.dedent("""
    import sys, time, json
    t0 = time.perf_counter()
    import numpy as np
    import pe_symbolic.numeric as N
    t1 = time.perf_counter()
    table = N.sinusoidal_table(np.arange(64), 32)
    t2 = time.perf_counter()
    rope = N.apply_rope(np.ones((1, 2, 8, 128)), position_ids=np.arange(8)[None],
                        config=N.model_config("llama-3.1-8b"), layout="interleaved")
    f32 = N.apply_rope(np.ones((1, 2, 8, 64), np.float32), position_ids=np.arange(8)[None])
    f16 = N.sinusoidal_table(np.arange(8), 16, dtype=np.float16)
    print(json.dumps({"sympy": "sympy" in sys.modules, "ml_dtypes": "ml_dtypes" in sys.modules,
                      "import_ms": (t1 - t0) * 1e3,
                      "table_ms": (t2 - t1) * 1e3, "sum": float(table.sum() + rope.sum())}))
""")


def _run(cache: str) -> dict:
    env = dict(os.environ, PE_SYMBOLIC_CACHE_DIR=cache)
    res = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, env=env, timeout=300)
    assert res.returncode == 0, res.stderr[-3000:]
    return json.loads(res.stdout.strip().splitlines()[-1])


def test_a_warm_process_imports_no_sympy(tmp_path):
    cold = _run(str(tmp_path))
    assert cold["sympy"]  # proved and lowered in-process
    entries = list(tmp_path.rglob("*.json"))
    names = {p.name.split("-")[0] for p in entries}
    assert {"verdict", "phasor_product", "rope_product", "schedule", "family"} <= names
    warm = _run(str(tmp_path))
    assert not warm["sympy"]
    assert warm["sum"] == cold["sum"]  # the same code ran (cold loads back what it stored)


def test_the_float_paths_never_import_ml_dtypes(tmp_path):
    """ml_dtypes 0.7 takes about a second to import: float64/float32/float16 tables and
    rotations, cold (proofs, lowering) and warm, run without it; bfloat16 imports it."""
    for _ in range(2):  # cold, then warm
        assert not _run(str(tmp_path))["ml_dtypes"]
    code = ("import sys, pe_symbolic.numeric as N; N.sinusoidal_table([0, 1], 8, dtype='bfloat16'); "
            "print('ml_dtypes' in sys.modules)")
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300,
                         env=dict(os.environ, PE_SYMBOLIC_CACHE_DIR=str(tmp_path)))
    assert res.stdout.strip() == "True", res.stderr[-2000:]


def test_an_unwritable_or_corrupt_cache_is_no_error(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    res = _run(str(blocker / "cache"))  # cannot be created: computed in-process
    assert res["sympy"]
    good = _run(str(tmp_path / "c"))
    for p in (tmp_path / "c").rglob("*.json"):
        p.write_text(p.read_text()[:-7])  # truncated: unreadable JSON
    again = _run(str(tmp_path / "c"))
    assert again["sympy"] and again["sum"] == good["sum"]
    for p in (tmp_path / "c").rglob("*.json"):  # valid JSON, wrong checksum
        try:
            entry = json.loads(p.read_text())
        except json.JSONDecodeError:  # an entry the last run did not need, still truncated
            continue
        if "source" in entry["body"]:
            entry["body"]["source"] = entry["body"]["source"].replace("return", "return -1 *")
            p.write_text(json.dumps(entry))
    third = _run(str(tmp_path / "c"))
    assert third["sum"] == good["sum"]


def test_the_cache_can_be_turned_off(monkeypatch):
    for off in ("", "0", "off", "none", "OFF"):
        monkeypatch.setenv(D.ENV, off)
        assert D.cache_dir() is None
    monkeypatch.delenv(D.ENV)
    monkeypatch.setenv("XDG_CACHE_HOME", "/x/y")
    if sys.platform.startswith("linux"):
        assert str(D.cache_dir()) == "/x/y/pe_symbolic"


def test_the_key_moves_with_python_sympy_and_the_kernel(monkeypatch):
    D.cache_key.cache_clear()
    k0 = D.cache_key()
    monkeypatch.setattr(sys, "version", sys.version + " (another build)")
    D.cache_key.cache_clear()
    k1 = D.cache_key()
    monkeypatch.undo()
    monkeypatch.setattr(_store, "dist_fingerprint", lambda name: b"__version__ = '9.9'")
    D.cache_key.cache_clear()
    k2 = D.cache_key()
    monkeypatch.undo()
    # a kernel source edited (its size or mtime changes; proof/kernel/checker.py), simulated through Path.stat
    class Moved:
        def __init__(self, st):
            self.st_size, self.st_mtime_ns = st.st_size + 1, st.st_mtime_ns

    import pathlib

    orig = pathlib.Path.stat

    def stat(self, *a, **k):
        st = orig(self, *a, **k)
        return Moved(st) if self.name == "checker.py" and self.parent.name == "kernel" else st

    monkeypatch.setattr(pathlib.Path, "stat", stat)
    D.cache_key.cache_clear()
    k3 = D.cache_key()
    monkeypatch.undo()
    D.cache_key.cache_clear()
    assert D.cache_key() == k0
    assert len({k0, k1, k2, k3}) == 4


def test_only_allowed_globals_are_stored_and_loaded(tmp_path, monkeypatch):
    monkeypatch.setenv(D.ENV, str(tmp_path))

    def fn(a):
        return os.getcwd() + a  # a global from a module outside ALLOWED_MODULES

    assert D.entry_of("x", (), fn) is None
    body = {"name": "x", "function": "f", "source": "def f(a):\n    return np.add(a, 1)\n",
            "globals": {"np": ["subprocess"]}, "doc": "", "claim_id": "c", "expression": "", "ufunc": None}
    assert D.build(body) is None  # a module outside the list is refused
    body["globals"] = {"np": ["numpy"]}
    assert D.build(body)(np.float64(1.0)) == 2.0


def test_an_entry_others_may_write_is_never_executed(tmp_path):
    if not hasattr(os, "getuid"):
        pytest.skip("POSIX ownership only")
    good = _run(str(tmp_path / "c"))
    for d in [p for p in (tmp_path / "c").rglob("*") if p.is_dir()]:
        d.chmod(0o777)  # a folder anyone may write: its entries are not trusted
    again = _run(str(tmp_path / "c"))
    assert again["sympy"] and again["sum"] == good["sum"]  # recomputed in-process, not loaded
