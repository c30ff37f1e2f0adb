"""Constructions of the symbolic layer, and the errors bad input gets."""

from __future__ import annotations

import pytest
import sympy as sp

from pe_symbolic.encodings import rope as R
from pe_symbolic.encodings import sinusoidal as P
from pe_symbolic.encodings.rot2 import block_diagonal, pair_slots, rot2
from pe_symbolic.encodings.symbols import b, k, m, t, theta, vector


def test_rot2_is_a_rotation():
    Rt = rot2(theta)
    assert sp.simplify(Rt.T * Rt) == sp.eye(2)
    assert sp.simplify(Rt.det()) == 1


@pytest.mark.parametrize("layout,expected", [("interleaved", [(0, 1), (2, 3), (4, 5)]), ("split", [(0, 3), (1, 4), (2, 5)])])
def test_pair_slots(layout, expected):
    assert [pair_slots(p, 6, layout) for p in range(3)] == expected


def test_encoding_matches_vaswani_formula_entry_by_entry():
    d = 6
    pe = P.encoding(t, d)
    for q in range(d // 2):
        w = b ** sp.Rational(-2 * q, d)
        assert pe[2 * q] == sp.sin(w * t) and pe[2 * q + 1] == sp.cos(w * t)


def test_split_layout_is_tensor2tensor_concatenation():
    pe = P.encoding(t, 6, layout="split")
    ws = P.frequencies(6)
    assert list(pe) == [sp.sin(w * t) for w in ws] + [sp.cos(w * t) for w in ws]


def test_cos_sin_order_is_kernes():
    pe = P.encoding(t, 4, order="cos_sin")
    assert pe[0] == sp.cos(t) and pe[1] == sp.sin(t)


def test_tensor2tensor_schedule():
    assert P.frequencies(8, base=10000, schedule="tensor2tensor")[-1] == sp.Rational(1, 10000)
    assert P.frequencies(8, base=10000)[-1] == 10000 ** sp.Rational(-3, 4)
    assert P.frequencies(2, base=10000, schedule="tensor2tensor") == (1,)


def test_layout_permutation_moves_pairs():
    Pm = P.layout_permutation(6)
    x = vector("x", 6)
    assert list(Pm * x) == [x[0], x[2], x[4], x[1], x[3], x[5]]


def test_efficient_form_split_is_rotate_half():
    x = vector("x", 4)
    c, s = R.rope_cos_sin(m, 4, base=100, layout="split")
    assert list(c) == [sp.cos(m), sp.cos(m / 10)] * 2
    assert list(R.rotate(x, "split")) == [-x[2], -x[3], x[0], x[1]]


def test_block_diagonal_rejects_non_2x2_blocks():
    with pytest.raises(ValueError, match=r"blocks\[1\] has shape \(3, 3\)"):
        block_diagonal([rot2(theta), sp.eye(3)], "interleaved")


@pytest.mark.parametrize(
    "call,message",
    [
        (lambda: P.encoding(t, 5), "d=5 must be a positive even integer"),
        (lambda: P.encoding(t, 0), "d=0 must be a positive even integer"),
        (lambda: P.encoding(t, -4), "d=-4 must be a positive even integer"),
        (lambda: P.encoding(t, 4.5), "d=4.5 must be a positive even integer"),
        (lambda: P.encoding(t, True), "d=True must be a positive even integer"),
        (lambda: P.encoding(t, 4, base=1), "base=1 must be a finite real number greater than 1"),
        (lambda: P.encoding(t, 4, base=0.5), "base=0.5 must be a finite real number greater than 1"),
        (lambda: P.encoding(t, 4, base=float("inf")), "base=inf must be a finite real number greater than 1"),
        (lambda: P.encoding(t, 4, layout="blocked"), "layout='blocked' is not allowed; use one of 'interleaved', 'split'"),
        (lambda: P.encoding(t, 4, order="cos"), "order='cos' is not allowed"),
        (lambda: P.encoding(t, 4, schedule="t2t"), "schedule='t2t' is not allowed"),
        (lambda: P.translation_matrix(k, 3), "d=3 must be a positive even integer"),
        (lambda: R.rope_matrix(m, 7), "d=7 must be a positive even integer"),
        (lambda: R.rope_matrix(m, 4, layout="half"), "layout='half' is not allowed"),
        (lambda: R.rotate(vector("x", 3)), "len(x)=3 must be a positive even integer"),
        (lambda: P.encoding(t, 4, omegas=(1,)), "omegas has 1 entries; d=4 needs d/2 = 2"),
        (lambda: pair_slots(2, 4, "split"), "pair=2 must satisfy 0 <= pair < d/2 = 2"),
    ],
)
def test_bad_input_names_parameter_value_and_what_is_allowed(call, message):
    with pytest.raises(ValueError) as exc:
        call()
    assert message in str(exc.value)


def test_unknown_name_suggests_the_closest():
    with pytest.raises(ValueError, match="did you mean 'interleaved'"):
        P.encoding(t, 4, layout="interleave")
