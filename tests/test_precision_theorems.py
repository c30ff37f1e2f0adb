"""The proved error bound of issue 12 (``pe_symbolic.theorems.precision``)."""

from __future__ import annotations

import pytest
import sympy as sp

import pe_symbolic as pe
from pe_symbolic.theorems import precision


@pytest.mark.parametrize("id_", precision.IDS)
def test_precision_claims_are_proved_and_recheck(id_):
    proof = pe.theorems.get(id_).prove()
    assert proof.verdict == "proved", [(p.equation.label, p.verdict, p.note) for p in proof.parts]
    assert pe.theorems.recheck_certificate(proof.to_json()).verdict == "proved"


def test_the_claims_follow_the_family_in_the_registry():
    ids = pe.theorems.ids()
    assert ids[-len(precision.IDS):] == list(precision.IDS)


def test_a_bound_without_the_second_order_terms_is_not_proved():
    """A test of the test: |(1+alpha)(1+beta) - 1| <= A + B is false (alpha = A, beta = B)."""
    a1, b1, s1 = sp.symbols("a_1 b_1 s_1", nonnegative=True)
    a2, b2, s2 = sp.symbols("a_2 b_2 s_2", nonnegative=True)
    D = (1 + a1 - b1) * (1 + a2 - b2) - 1
    G = (a1 + b1 + s1) + (a2 + b2 + s2)
    assert pe.check_identity(sp.Abs(G - D), G - D, timeout=30).verdict != "proved"
    # and a sign claim cannot be smuggled in through an unconstrained symbol
    x = sp.Symbol("x", real=True)
    assert pe.check_identity(sp.Abs(1 - x), 1 - x, timeout=30).verdict != "proved"
