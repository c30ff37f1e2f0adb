"""The pe_symbolic-torch / pe_symbolic-jax audit rows: measured through the real backends,
within their bounds, emulated (and said so) without the framework."""

from __future__ import annotations

import pytest

import pe_symbolic as pe
from pe_symbolic.audit import backends


@pytest.mark.parametrize("name", ["pe_symbolic-torch", "pe_symbolic-jax"])
def test_rows_are_measured_through_the_backend(name):
    pytest.importorskip(backends.BACKEND_PRESETS[name])
    rep = pe.audit("llama-3.1-8b", recipe=[name], dtype=["float32", "bfloat16"], context=4096, tol=1e-7)
    assert rep.passed
    for res in rep.results:
        assert res.backend.startswith(f"pe_symbolic.{backends.BACKEND_PRESETS[name]}")
        assert res.measured("angle") <= 1e-7
        for metric in ("angle", "table", "output", "score"):
            assert res.measured(metric) <= res.bound(metric)


def test_without_the_framework_the_row_is_emulated_and_says_so(monkeypatch):
    monkeypatch.setattr(backends, "_framework", lambda name: None)
    rep = pe.audit("llama-3.1-8b", recipe="pe_symbolic-jax", dtype="float32", context=2048)
    (res,) = rep.results
    assert res.backend == "numpy" and "jax not installed: emulated in NumPy" in res.note
    assert res.measured("angle") <= res.bound("angle")
