"""The proof engine: true claims proved, false claims never proved, certificates re-checkable."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
import sympy as sp

from pe_symbolic.encodings import rope as R
from pe_symbolic.encodings import sinusoidal as P
from pe_symbolic.proof import (
    DIFFERENCE,
    LHS,
    Step,
    check_identity,
    check_transition,
)
from pe_symbolic.theorems import recheck_certificate
from pe_symbolic.encodings.symbols import BASE_GT_1, b, k, m, n, omega, t, vector

x = sp.Symbol("x", real=True)
j_real = sp.Symbol("j", real=True)
n_int = sp.Symbol("n", integer=True)
n_real = sp.Symbol("n", real=True)


def _dot(u, v):
    return (u.T * v)[0, 0]


def _false_claims():
    """(name, lhs, rhs, assumptions): each is false somewhere its assumptions allow."""
    d = 4
    pe = lambda s, **kw: P.encoding(s, d, **kw)  # noqa: E731
    T = lambda s, **kw: P.translation_matrix(s, d, **kw)  # noqa: E731
    i_over_d = tuple(b ** sp.Rational(-q, d) for q in range(d // 2))  # exponent i/d, not 2i/d
    q, kv, xv = vector("q", d), vector("k", d), vector("x", d)
    P8 = P.layout_permutation(8)
    return [
        ("sign flip: T(k) PE(t) = PE(t - k)", T(k) * pe(t), pe(t - k), [BASE_GT_1]),
        ("T(-k) in place of T(k)", T(-k) * pe(t), pe(t + k), [BASE_GT_1]),
        ("sin/cos swapped: sin_cos block on a cos_sin pair",
         P.translation_block(k, omega, "sin_cos") * P.pair(t, omega, "cos_sin"), P.pair(t + k, omega, "cos_sin"), []),
        ("exponent i/d instead of 2i/d in the table",
         T(k) * pe(t, omegas=i_over_d), pe(t + k), [BASE_GT_1]),
        ("schedule i/d: frequency(i=1, d=4) = b**(-1/4)", P.frequency(1, 4), b ** sp.Rational(-1, 4), [BASE_GT_1]),
        ("wrong layout pairing: split T on an interleaved PE",
         T(k, layout="split") * pe(t), pe(t + k), [BASE_GT_1]),
        ("rotation by the wrong angle: rot2(2 w k) block",
         R.rope_block(-2 * k, omega) * P.pair(t, omega), P.pair(t + k, omega), []),
        ("RoPE relative with m - n instead of n - m",
         _dot(R.rope_matrix(m, d) * q, R.rope_matrix(n, d) * kv), _dot(q, R.rope_matrix(m - n, d) * kv), [BASE_GT_1]),
        ("R(m)^T R(n) = R(n + m)", R.rope_block(m, omega).T * R.rope_block(n, omega), R.rope_block(n + m, omega), []),
        ("efficient form with the split rotate on the interleaved layout",
         xv.multiply_elementwise(R.rope_cos_sin(m, d, layout="interleaved")[0])
         + R.rotate(xv, "split").multiply_elementwise(R.rope_cos_sin(m, d, layout="interleaved")[1]),
         R.rope_matrix(m, d, layout="interleaved") * xv, [BASE_GT_1]),
        ("dot product = sum sin(w_i k)", _dot(pe(t), pe(t + k)),
         sum(sp.sin(w * k) for w in P.frequencies(d)), [BASE_GT_1]),
        ("|PE(t)|^2 = d", _dot(pe(t), pe(t)), sp.Integer(d), []),
        ("det T(k) = -1", sp.Determinant(T(k)), -1, [BASE_GT_1]),
        ("T(a) T(c) = T(a - c)", T(m) * T(n), T(m - n), [BASE_GT_1]),
        ("P maps split to interleaved (d=8, P is not an involution)",
         P8 * P.encoding(t, 8, layout="split"), P.encoding(t, 8, layout="interleaved"), [BASE_GT_1]),
        ("sine-only: lambda = cos(w k) translates", sp.cos(omega * k) * sp.sin(omega * t),
         sp.sin(omega * (t + k)), []),
        ("|R(m) x|^2 = |x|^2 + m^2", _dot(R.rope_block(m, omega) * vector("x", 2), R.rope_block(m, omega) * vector("x", 2)),
         _dot(vector("x", 2), vector("x", 2)) + m**2, []),
        ("dropped assumption: sqrt(x^2) = x for real x", sp.sqrt(x**2), x, []),
        ("dropped assumption: sin(pi n) = 0 for real n", sp.sin(sp.pi * n_real), 0, []),
        ("dropped assumption: cos(pi j) = (-1)^j for real j", sp.cos(sp.pi * j_real), (-1) ** j_real, []),
    ]


FALSE = _false_claims()


def test_there_are_at_least_15_false_claims():
    assert len(FALSE) >= 15


@pytest.mark.parametrize("name,lhs,rhs,assumptions", FALSE, ids=[c[0] for c in FALSE])
def test_false_claim_is_never_proved(name, lhs, rhs, assumptions):
    proof = check_identity(lhs, rhs, assumptions, id="false." + name)
    assert proof.verdict in ("refuted", "undecided")
    if proof.verdict == "refuted":
        cex = proof.counterexample
        assert cex is not None and float(cex["|lhs - rhs|"]) > 1e-10
        # the reported point satisfies the assumptions
        point = proof.parts[0].point
        assert set(point) == set(proof.claim.symbols)
        for a in assumptions:
            assert a.xreplace(point) is sp.true


def test_most_false_claims_are_refuted_with_a_counterexample():
    verdicts = [check_identity(lhs, rhs, a).verdict for _, lhs, rhs, a in FALSE]
    assert verdicts.count("refuted") >= 15


@pytest.mark.parametrize(
    "lhs,rhs",
    [
        (sp.sin(sp.pi * n_int), 0),
        (sp.cos(sp.pi * n_int), (-1) ** n_int),
        (sp.sin(omega * t + sp.pi * n_int), (-1) ** n_int * sp.sin(omega * t)),
    ],
)
def test_integer_only_claims_are_never_refuted_for_integer_symbols(lhs, rhs):
    assert check_identity(lhs, rhs).verdict == "proved"


def test_sqrt_square_is_proved_once_the_assumption_is_restored():
    y = sp.Symbol("y", positive=True)
    assert check_identity(sp.sqrt(y**2), y).verdict == "proved"


def test_relational_assumption_restricts_the_counterexample_search():
    # |b - 1| = b - 1 holds exactly when b >= 1: with the assumption b > 1, never refuted
    assert check_identity(sp.Abs(b - 1), b - 1, [BASE_GT_1]).verdict in ("proved", "undecided")
    assert check_identity(sp.Abs(b - 1), b - 1).verdict in ("refuted", "undecided")


def test_matrix_claims_and_shape_mismatch():
    assert check_identity(R.rope_block(0, omega), sp.eye(2)).verdict == "proved"
    with pytest.raises(ValueError, match="same shape"):
        check_identity(sp.eye(2), sp.eye(3))
    with pytest.raises(ValueError, match="same shape"):
        check_identity(sp.eye(2), 1)


def test_non_sympy_input_is_a_type_error():
    with pytest.raises(TypeError, match="lhs"):
        check_identity(object(), 1)


# ---- hand-written chains: every transition re-checked --------------------------------
def _angle_addition_chain():
    lhs = sp.sin(omega * (t + k))
    rhs = sp.sin(omega * t) * sp.cos(omega * k) + sp.cos(omega * t) * sp.sin(omega * k)
    steps = [
        Step(lhs, LHS),
        Step(sp.sin(omega * t + omega * k), "distribute omega"),
        Step(rhs, "angle addition: sin(a + b) = sin a cos b + cos a sin b"),
    ]
    return lhs, rhs, steps


def test_a_correct_hand_written_chain_is_proved():
    lhs, rhs, steps = _angle_addition_chain()
    proof = check_identity(lhs, rhs, steps=steps)
    assert proof.verdict == "proved"
    assert [s.rule for s in proof.steps][-1].startswith("angle addition")


def test_a_wrong_step_in_a_chain_is_caught_even_though_the_claim_is_true():
    lhs, rhs, steps = _angle_addition_chain()
    steps[1] = Step(sp.sin(omega * t - omega * k), "distribute omega")  # wrong
    proof = check_identity(lhs, rhs, steps=steps)
    assert proof.verdict == "undecided"
    assert "step 2" in proof.parts[0].note


def test_a_named_rule_must_reproduce_its_result():
    e = sp.sin(omega * (t + k))
    assert check_transition(e, sp.expand(e, trig=True), "expand(trig=True)")
    # a wrong result labelled with a real rule is rejected
    assert not check_transition(e, sp.sin(omega * t), "expand(trig=True)")


def test_difference_chain_must_start_from_lhs_minus_rhs():
    proof = check_identity(sp.Integer(1), sp.Integer(1), steps=[Step(sp.Integer(0), "trust me")])
    assert proof.verdict == "undecided"


# ---- certificates --------------------------------------------------------------------
def test_certificate_round_trips_and_rechecks():
    from pe_symbolic import theorems

    proof = theorems.get("translation.identity").prove(4)
    data = json.loads(proof.to_json())
    assert data["verdict"] == "proved" and data["claim"]["id"] == "translation.identity"
    back = recheck_certificate(data)
    assert back.verdict == "proved"
    assert back.claim.equations == proof.claim.equations
    assert [s.expr for s in back.steps] == [s.expr for s in proof.steps]


def test_tampered_certificates_do_not_recheck():
    from pe_symbolic import theorems

    data = json.loads(theorems.get("rope.relative").prove().to_json())
    forged = json.loads(json.dumps(data))
    forged["parts"][0]["steps"][-1]["expr"] = "Integer(0)"
    forged["parts"][0]["steps"][0]["expr"] = "Integer(0)"  # no longer lhs - rhs
    assert recheck_certificate(forged).verdict == "undecided"
    # a refuted claim whose verdict is edited to "proved" does not re-check either
    refuted = json.loads(check_identity(sp.sin(t + k), sp.sin(t) + sp.sin(k)).to_json())
    refuted["verdict"] = refuted["parts"][0]["verdict"] = "proved"
    assert recheck_certificate(refuted).verdict == "undecided"


def test_certificate_rechecks_in_a_fresh_process(tmp_path):
    """The JSON alone is enough: a new interpreter re-checks every step."""
    from pe_symbolic import theorems

    path = tmp_path / "cert.json"
    path.write_text(theorems.get("translation.group").prove(4).to_json())
    code = (
        "import json, sys\n"
        "from pe_symbolic.theorems import recheck_certificate\n"
        "print(recheck_certificate(json.load(open(sys.argv[1]))).verdict)\n"
    )
    out = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "proved"


def test_difference_rule_name_is_stable():
    # certificates written by this version name their first step like this
    assert DIFFERENCE == "difference of the two sides"
