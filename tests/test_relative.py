"""Issue 34, ``pe.is_relative``: a proof or a certified refuting (m, n, m', n'); the registered
results decided with each paper's expected answer."""

from __future__ import annotations

import pytest
import sympy as sp

import pe_symbolic as pe
from pe_symbolic import theorems
from pe_symbolic.theorems.chapters import RELATIVE_IDS
from pe_symbolic.theorems.chapters import relative as R
from pe_symbolic.theorems.relative import FrequencyMap, Generators, PositionMap, _sides, exp_scaled

J2 = sp.Matrix([[0, -1], [1, 0]])


@pytest.mark.parametrize("id", RELATIVE_IDS)
def test_registered_verdict_is_the_papers(id):
    th = theorems.get(id)
    assert th.prove().verdict == th.expect == R.EXPECT.get(id, "proved")


@pytest.mark.parametrize("id", sorted(R.ENCODINGS))
def test_is_relative_agrees_with_the_registry(id):
    got = pe.is_relative(R.ENCODINGS[id])
    want = "not relative" if R.EXPECT.get(id) == "refuted" else "relative"
    assert got.verdict == want, str(got)
    if got.verdict == "not relative":
        _check_witness(R.ENCODINGS[id], got.witness, got.proof)


def _check_witness(enc, witness, proof=None):
    """The witness has equal offsets and sides that differ (re-evaluated at 50 digits, free
    frequencies at the kernel's point)."""
    m, n, m2, n2 = witness
    assert [b - a for a, b in zip(m, n)] == [b - a for a, b in zip(m2, n2)]
    key = enc.key_matrix if isinstance(enc, PositionMap) else enc.matrix
    lhs = enc.matrix(m).T * key(n)
    rhs = enc.matrix(m2).T * key(n2)
    free = {s.name: s for s in (lhs - rhs).free_symbols}
    point = {free[k]: sp.Rational(v) for k, v in ((proof.counterexample or {}) if proof is not None else {}).items() if k in free}
    assert set(point) == set(free.values())
    assert max(abs(sp.N((x - y).subs(point), 50)) for x, y in zip(lhs, rhs)) > sp.Float("1e-30")


def test_commuting_on_a_subset_only_is_not_relative():
    a = sp.Matrix([[0, -1, 0], [1, 0, 0], [0, 0, 0]])
    b = sp.Matrix([[0, 0, 0], [0, 0, -1], [0, 1, 0]])
    r = pe.is_relative(Generators([a, 2 * a, b]))  # the first two commute, the third does not
    assert r.verdict == "not relative"
    _check_witness(Generators([a, 2 * a, b]), r.witness)


def test_commuting_generators_are_relative():
    r = pe.is_relative(Generators([sp.diag(J2, sp.zeros(2)), sp.diag(sp.zeros(2), 3 * J2)]))
    assert r.verdict == "relative" and "commute" in r.method


def test_a_scaling_like_xpos_is_not_relative():
    zeta = sp.Rational(9, 10)
    enc = PositionMap(lambda p: sp.diag(zeta ** p[0], zeta ** p[0]))
    r = pe.is_relative(enc)
    assert r.verdict == "not relative"
    _check_witness(enc, r.witness)


def test_rope_with_a_position_dependent_frequency_is_not_relative():
    th = sp.Symbol("theta", positive=True)
    enc = PositionMap(lambda p: sp.Matrix([[sp.cos(th * p[0] ** 2), -sp.sin(th * p[0] ** 2)],
                                           [sp.sin(th * p[0] ** 2), sp.cos(th * p[0] ** 2)]]))
    assert pe.is_relative(enc).verdict == "not relative"


def test_a_finite_search_never_proves():
    enc = PositionMap(lambda p: sp.eye(2), positions=[(0,), (1,), (2,)])
    r = pe.is_relative(enc)
    assert r.verdict == "undecided" and "proves nothing" in r.reason


def test_frequency_map_with_mixed_axes_is_relative_and_its_sides_are_exact():
    th = sp.symbols("theta_0:2", positive=True)
    enc = FrequencyMap(th, coefficients=((1, 1), (1, -1)))
    assert pe.is_relative(enc).verdict == "relative"
    m, n = (sp.Integer(2), sp.Integer(5)), (sp.Integer(7), sp.Integer(1))
    lhs, rhs = _sides(enc, m, n)
    at = {th[0]: sp.Rational(1, 3), th[1]: sp.Rational(2, 7)}
    assert max(abs(sp.N((x - y).subs(at), 50)) for x, y in zip(lhs, rhs)) < sp.Float("1e-45")


def test_exp_scaled_is_the_exponential():
    x = sp.Symbol("x", real=True)
    a = R._P4 * sp.diag(J2, 2 * J2) * R._P4.T
    e = exp_scaled(a, x)
    assert sp.simplify(e.subs(x, 0) - sp.eye(4)) == sp.zeros(4)
    assert sp.simplify(sp.diff(e, x).subs(x, 0) - a) == sp.zeros(4)
    assert sp.simplify(e.T * e - sp.eye(4)) == sp.zeros(4)


def test_is_relative_refuses_what_it_cannot_read():
    with pytest.raises(TypeError, match="must be a FrequencyMap, Generators or PositionMap"):
        pe.is_relative(sp.eye(2))
    with pytest.raises(ValueError, match="square matrices of one shape"):
        pe.is_relative(Generators([sp.zeros(2, 3)]))


def test_fope_padding_doubles_the_padded_score():
    p = theorems.get("fope.padding").prove()
    assert p.verdict == "proved"
    b = sp.Matrix([[1, -1], [1, 1]])
    assert b.T * b == 2 * sp.eye(2)
