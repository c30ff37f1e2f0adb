"""The Coq printing of the textbook's heads (:mod:`pe_symbolic.proof.coq_heads`).

Each head is printed as the Coq ``Reals`` term with its value where the kernel holds it
defined, and refused (``OutsideFragment``, with the reason) where the printer cannot see that
the argument lies in the head's real domain -- Coq's ``asin`` is clamped outside ``[-1, 1]``
and ``/ 0 = 0``, so printing there could let Coq "check" a claim SymPy means otherwise.
"""

from __future__ import annotations

import shutil

import pytest
import sympy as sp

from pe_symbolic.proof import Claim, Equation
from pe_symbolic.proof.coq import Env, OutsideFragment, to_coq_ast
from pe_symbolic.proof.coq_syntax import coq_text

x = sp.Symbol("x", real=True)
u = sp.Symbol("u", real=True)
big = sp.Symbol("b", real=True)
HAS_COQ = shutil.which("coqtop") is not None and shutil.which("coqc") is not None


def _text(e: sp.Basic) -> str:
    return coq_text(to_coq_ast(e, Env()))


@pytest.mark.parametrize("e, text", [
    (sp.cot(x), "((cos x_1) * (/ (sin x_1)))"),
    (sp.sec(x), "(/ (cos x_1))"),
    (sp.csc(x), "(/ (sin x_1))"),
    (sp.sinh(x), "(sinh x_1)"),
    (sp.cosh(x), "(cosh x_1)"),
    (sp.tanh(x), "(tanh x_1)"),
    (sp.coth(x), "((cosh x_1) * (/ (sinh x_1)))"),
    (sp.sech(x), "(/ (cosh x_1))"),
    (sp.csch(x), "(/ (sinh x_1))"),
    (sp.asin(sp.Rational(1, 3)), "(asin (1 / 3))"),
    (sp.acos(sp.Rational(-1, 3)), "(acos (- (1 / 3)))"),
    (sp.acot(sp.exp(x)), "(atan (/ (exp x_1)))"),
    (sp.asec(3), "(acos (/ 3))"),
    (sp.acsc(-3), "(- (asin (/ 3)))"),
    # the inverse hyperbolic heads as their log forms (identities.py says why each holds)
    (sp.asinh(x), "(ln (x_1 + (sqrt ((x_1 ^ 2) + 1))))"),
    (sp.acosh(x**2 + 1), "(ln ((1 + (x_1 ^ 2)) + (sqrt (((1 + (x_1 ^ 2)) ^ 2) + (- 1)))))"),
    (sp.atanh(sp.Rational(1, 3)), "((1 / 2) * ((ln (1 + (1 / 3))) + (- (ln (1 + (- (1 / 3)))))))"),
    (sp.acoth(3), "((1 / 2) * (ln ((3 + 1) * (/ (3 + (- 1))))))"),
    (sp.asech(sp.Rational(1, 3)), "(ln ((/ (1 / 3)) + (sqrt (((/ (1 / 3)) ^ 2) + (- 1)))))"),
    (sp.acsch(x**2 + 1), "(ln ((/ (1 + (x_1 ^ 2))) + (sqrt (((/ (1 + (x_1 ^ 2))) ^ 2) + 1))))"),
])
def test_each_head_prints_as_its_coq_term(e: sp.Basic, text: str) -> None:
    assert _text(e).replace(" ", "") == text.replace(" ", "")


@pytest.mark.parametrize("e, why", [
    (sp.asin(sp.sin(x) / 3), "not known to lie in \\[-1, 1\\]"),
    (sp.acos(x), "not known to lie in \\[-1, 1\\]"),
    (sp.acot(x), "not known to be a nonzero real"),
    (sp.asec(x), "\\|u\\| >= 1"),
    (sp.acsc(sp.sin(x)), "\\|u\\| >= 1"),
    (sp.atan2(x, u), "atan2"),
    (sp.asec(2 + x**2), "\\|u\\| >= 1"),  # true, but SymPy's assumptions cannot see it: not printed
    (sp.re(sp.Symbol("z")), "re"),
    (sp.im(sp.Symbol("z")), "im"),
    (sp.conjugate(sp.Symbol("z")), "conjugate"),
    (sp.asinh(sp.Symbol("z")), "real domain of asinh"),
    (sp.arg(sp.Symbol("z")), "arg"),
    (sp.acosh(x), "real domain of acosh"),
    (sp.acosh(sp.Rational(1, 2), evaluate=False), "real domain of acosh"),
    (sp.atanh(x), "real domain of atanh"),
    (sp.atanh(sp.Integer(2), evaluate=False), "real domain of atanh"),
    (sp.acoth(sp.Rational(1, 2), evaluate=False), "real domain of acoth"),
    (sp.asech(sp.Integer(2), evaluate=False), "real domain of asech"),
    (sp.acsch(x), "real domain of acsch"),
])
def test_outside_their_real_domain_they_are_not_printed(e: sp.Basic, why: str) -> None:
    with pytest.raises(OutsideFragment, match=why):
        to_coq_ast(e, Env())


@pytest.mark.skipif(not HAS_COQ, reason="Coq (coqtop, coqc) is not installed")
def test_coq_checks_no_false_claim_on_the_new_heads() -> None:
    # failed (the tactics do not close them) or outside (acos of a value not known in [-1, 1]),
    # never checked
    from pe_symbolic.proof.coq_export import check, export_claim

    false = [(sp.sinh(2 * x), 2 * sp.sinh(x)), (sp.cot(x), 2 * sp.cot(x)), (sp.sech(x), sp.cosh(x)),
             (sp.acos(sp.cos(x)), x)]
    report = check([export_claim(Claim(f"false.h{q}", "", (Equation(lhs, rhs),))) for q, (lhs, rhs) in
                    enumerate(false)])
    assert [r.status for r in report.results] == ["failed", "failed", "failed", "outside"]


@pytest.mark.skipif(not HAS_COQ, reason="Coq (coqtop, coqc) is not installed")
def test_coq_on_the_inverse_hyperbolic_heads() -> None:
    # false claims failed (the tactics do not close them) or outside (acosh of a value not known
    # to be >= 1: Coq's ln and sqrt are 0 off their domains), never checked; the definition
    # acsch u = asinh(1/u), printed as the same log form on both sides, checked
    from pe_symbolic.proof.coq_export import check, export_claim

    claims = [(sp.asinh(x), 2 * sp.asinh(x)), (sp.acsch(x**2 + 1), sp.asinh(x**2 + 1)),
              (sp.atanh(sp.Rational(1, 2)), sp.log(3)), (sp.acosh(x), sp.log(x + sp.sqrt(x**2 - 1))),
              (sp.acsch(x**2 + 1), sp.asinh(1 / (x**2 + 1)))]
    report = check([export_claim(Claim(f"ih.h{q}", "", (Equation(lhs, rhs),))) for q, (lhs, rhs) in
                    enumerate(claims)])
    assert [r.status for r in report.results] == ["failed", "failed", "failed", "outside", "checked"]
