"""The one door to ``lambdify``: proved claims only, element formulas, cached, documented."""

from __future__ import annotations

import pathlib
import subprocess
import sys
import types

import mpmath
import numpy as np
import pytest
import sympy as sp

import pe_symbolic
from pe_symbolic.numeric import lower

x, y, w = sp.symbols("x y w", real=True)


@pytest.fixture
def registry(monkeypatch):
    """A stub theorem registry with one claim of each verdict; counts proofs asked for."""
    verdicts = {"demo.proved": "proved", "demo.refuted": "refuted",
                "demo.undecided": "undecided"}
    calls: list[str] = []

    class Theorem:
        def __init__(self, cid):
            self.id = cid

        def prove(self, **kwargs):
            calls.append(self.id)
            return types.SimpleNamespace(verdict=verdicts[self.id])

    def get(cid):
        if cid not in verdicts:
            raise LookupError(f"no claim with id {cid!r}")
        return Theorem(cid)

    fake = types.ModuleType("pe_symbolic.theorems")
    fake.get = get
    monkeypatch.setitem(sys.modules, "pe_symbolic.theorems", fake)
    monkeypatch.setattr(pe_symbolic, "theorems", fake, raising=False)
    lower.claim_verdict.cache_clear()
    lower._lower_cached.cache_clear()
    yield calls
    lower.claim_verdict.cache_clear()
    lower._lower_cached.cache_clear()


@pytest.mark.parametrize("claim", ["demo.refuted", "demo.undecided"])
def test_refuses_claims_that_are_not_proved(registry, claim):
    with pytest.raises(lower.NotProvedError, match=f"{claim}.*verdict '{claim[5:]}'"):
        lower.lower(claim, sp.sin(x), (x,))
    assert issubclass(lower.NotProvedError, ValueError)


def test_unknown_claim_is_a_lookup_error(registry):
    with pytest.raises(LookupError, match="demo.missing"):
        lower.lower("demo.missing", sp.sin(x), (x,))


def test_lowers_a_broadcasting_element_formula(registry):
    f = lower.lower("demo.proved", sp.sin(w * x) + sp.cos(w * x), (x, w))
    t = np.arange(3.0)[:, None]
    ws = np.array([1.0, 0.5])
    np.testing.assert_allclose(f(t, ws), np.sin(t * ws) + np.cos(t * ws), rtol=0, atol=1e-15)
    assert f(t, ws).shape == (3, 2)


def test_docstring_names_claim_and_expression(registry):
    f = lower.lower("demo.proved", x * sp.cos(y), (x, y))
    assert "demo.proved" in f.__doc__ and "x*cos(y)" in f.__doc__
    assert f.claim_id == "demo.proved"


def test_cached_per_claim_expression_and_args(registry):
    f1 = lower.lower("demo.proved", sp.sin(x), (x,))
    f2 = lower.lower("demo.proved", sp.sin(x), [x])
    assert f1 is f2
    assert lower.lower("demo.proved", sp.cos(x), (x,)) is not f1
    assert registry == ["demo.proved"]  # the proof was asked for once


def test_tuple_of_formulas(registry):
    f = lower.lower("demo.proved", (x * sp.cos(y), x * sp.sin(y)), (x, y))
    a, b = f(2.0, 0.0)
    assert (a, b) == (2.0, 0.0)


def test_missing_symbols_are_named(registry):
    with pytest.raises(ValueError, match="symbol.*y.*missing"):
        lower.lower("demo.proved", x + y, (x,))


def test_only_numpy_or_mpmath(registry):
    with pytest.raises(ValueError, match="modules='math'"):
        lower.lower("demo.proved", x, (x,), modules="math")
    g = lower.lower("demo.proved", sp.exp(x), (x,), modules="mpmath")
    with mpmath.workdps(40):
        assert abs(g(mpmath.mpf(1)) - mpmath.e) < mpmath.mpf(10) ** -38


def test_evaluation_form_must_be_proved_equal_to_proof_form(registry):
    pytest.importorskip("pe_symbolic.proof")
    f = lower.lower("demo.proved", sp.sin(x + sp.pi / 2), (x,), proof_form=sp.cos(x))
    assert "proof form" in f.__doc__
    with pytest.raises(lower.NotProvedError, match="evaluation form"):
        lower.lower("demo.proved", sp.sin(x), (x,), proof_form=sp.cos(x))


def test_frequency_constants_are_forty_digits(registry, monkeypatch):
    monkeypatch.setattr(lower, "SCHEDULE_CLAIM", "demo.proved")
    lower.frequency_constants.cache_clear()
    try:
        ws = lower.frequency_constants(8, 10000.0, "vaswani")
        with mpmath.workdps(40):
            assert abs(ws[1] - mpmath.mpf(10) ** -1) < mpmath.mpf(10) ** -39
        t2t = lower.frequency_constants(2, 10000.0, "tensor2tensor")
        assert t2t == (1,)
    finally:
        lower.frequency_constants.cache_clear()


def test_nothing_is_lambdified_at_import():
    code = (
        "import pe_symbolic.numeric.lower as L, pe_symbolic.numeric;"
        "print(L._lower_cached.cache_info().currsize, L.claim_verdict.cache_info().currsize)"
    )
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert res.stdout.split() == ["0", "0"]


def test_lower_is_the_only_caller_of_lambdify():
    pkg = pathlib.Path(pe_symbolic.__file__).parent
    callers = [p.name for p in pkg.rglob("*.py")
               if "lambdify(" in p.read_text() and p.name != "lower.py"]
    assert callers == []


# ----------------------------------------------------------------------------------------
# the numeric core's formulas, from the real registry


def _clear_numeric_caches():
    from pe_symbolic import numeric

    for fn in (lower.claim_verdict, lower._lower_cached, lower.phasor_product,
               lower.rope_product, lower.rope_pair, lower.frequency_constants,
               numeric._core._phasor_product, numeric._core._rope_product, numeric._core._omega_dd):
        fn.cache_clear()


def test_numeric_formulas_are_lowered_from_proved_claims():
    pytest.importorskip("pe_symbolic.theorems")
    pp, rp, pair = lower.phasor_product(), lower.rope_product(), lower.rope_pair()
    assert pp.claim_id == "translation.identity" and pp.ufunc is np.multiply
    assert rp.claim_id == "rope.efficient_form" and rp.ufunc is np.multiply
    assert pair.claim_id == "rope.efficient_form" and pair.ufunc is None
    for f in (pp, rp, pair):
        assert "Proved equal to the proof form" in f.__doc__


def test_numeric_refuses_to_run_on_an_unproved_claim(monkeypatch):
    pytest.importorskip("pe_symbolic.theorems")
    from pe_symbolic import numeric

    real = lower.claim_verdict

    def verdict(cid):
        return "undecided" if cid == "translation.identity" else real(cid)

    _clear_numeric_caches()
    monkeypatch.setattr(lower, "claim_verdict", verdict)
    try:
        with pytest.raises(lower.NotProvedError, match="translation.identity.*undecided"):
            numeric.sinusoidal_table(np.arange(100), 8)
    finally:
        monkeypatch.undo()
        _clear_numeric_caches()
    assert numeric.sinusoidal_table(np.arange(100), 8).shape == (100, 8)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_split_kernel_evaluates_the_lowered_pair_formula(dtype):
    pytest.importorskip("pe_symbolic.theorems")
    from pe_symbolic import numeric

    rng = np.random.default_rng(7)
    x = rng.standard_normal((3, 150, 16)).astype(dtype)
    pos = np.arange(150.0)
    cos, sin = numeric.rope_cos_sin(pos, 16, dtype=dtype)
    a, b = lower.rope_pair()(x[..., :8], x[..., 8:], cos[:, :8], sin[:, :8])
    got = numeric.apply_rope(x, pos, layout="split")
    u = np.finfo(dtype).eps / 2
    mag = np.abs(x[..., :8]) + np.abs(x[..., 8:])
    assert (np.abs(got[..., :8] - a) <= 3 * u * mag).all()
    assert (np.abs(got[..., 8:] - b) <= 3 * u * mag).all()
