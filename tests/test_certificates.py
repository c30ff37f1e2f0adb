"""Certificates are data: the srepr parser and the re-checker, fuzzed.

Whatever text or JSON comes in, the outcome is a clear :class:`CertificateError` or a correct
parse / an honest verdict; nothing is executed, no other exception escapes, and a mutated
certificate that still comes back ``proved`` proves exactly the original claim.
"""

from __future__ import annotations

import copy
import json

import pytest
import sympy as sp
from hypothesis import example, given, settings
from hypothesis import strategies as st
from strategies import budget

from pe_symbolic import check_identity, theorems
from pe_symbolic.proof import CertificateError, parse_srepr
from pe_symbolic.theorems import recheck_certificate

x = sp.Symbol("x", real=True)
i = sp.Symbol("i", integer=True, nonnegative=True)
d = sp.Symbol("d", integer=True, positive=True, even=True)

ROUND_TRIP = [
    sp.Piecewise((x, x > 0), (0, True)),
    sp.Min(x, 1) + sp.Max(x, -1),
    sp.sign(x**2 + 1, evaluate=False),
    sp.Derivative(sp.sin(x), x),
    sp.Determinant(sp.ImmutableMatrix([[x, 1], [2, x]])),
    sp.Sum(sp.Function("f")(i), (i, 0, d / 2 - 1)),
    sp.ImmutableMatrix([[sp.cos(x), -sp.sin(x)], [sp.sin(x), sp.cos(x)]]),
    sp.Float("1e-30", 50) * x + sp.pi * sp.I - sp.oo * 0 + sp.Rational(-3, 7),
    sp.And(x > 0, x < 1),
    sp.Eq(x, 1),
    sp.sqrt(2) * x ** sp.Rational(3, 2) / (1 + sp.exp(-x)),
    sp.atan2(x, 1) + sp.floor(x) + sp.Mod(x, 2),
    sp.BlockDiagMatrix(sp.MatrixSymbol("A", 2, 2), sp.MatrixSymbol("B", 2, 2)),
]


@pytest.mark.parametrize("expr", ROUND_TRIP, ids=range(len(ROUND_TRIP)))
def test_srepr_round_trips(expr):
    assert parse_srepr(sp.srepr(expr)) == expr


def test_every_registered_certificate_round_trips_through_the_parser():
    for th in theorems.all():
        proof = th.prove()
        back = recheck_certificate(proof.to_json())
        assert back.verdict == proof.verdict == th.expect, th.id
        assert back.claim.equations == proof.claim.equations, th.id


@given(st.text(max_size=200))
@example("__import__('os').system('true')")
@example("Add(" * 400 + ")" * 400)
@example("Integer(" + "9" * 5000 + ")")
@example("Symbol('x', real=1)")
@example("Rational(1, 0)")
@example("Pow(Integer(2), Integer(10**9))")
@example("Float('inf')")
def test_parser_on_any_text_is_a_parse_or_a_clear_error(text):
    try:
        out = parse_srepr(text, field="fuzz")
    except CertificateError as exc:
        assert str(exc).startswith("fuzz")
    else:
        assert isinstance(out, sp.Basic)


_NAMES = st.sampled_from(["Add", "Mul", "Pow", "Symbol", "Integer", "sin", "exp", "Function", "eval",
                          "getattr", "Tuple", "Rational", "Float", "ImmutableDenseMatrix", "os"])
_ATOMS = st.one_of(st.integers(-10**6, 10**6).map(str), st.sampled_from(["'x'", "pi", "I", "oo", "True", "x",
                                                                          "''", "'a b'", "1.5", "None"]))


@st.composite
def _calls(draw, depth=3):
    if depth == 0 or draw(st.booleans()):
        return draw(_ATOMS)
    name = draw(_NAMES)
    args = draw(st.lists(_calls(depth=depth - 1), max_size=3))
    kw = draw(st.sampled_from(["", ", real=True", ", precision=53", ", evaluate=True", ", **{}"]))
    return f"{name}({', '.join(args)}{kw})"


@given(_calls())
def test_parser_on_call_shaped_text_is_a_parse_or_a_clear_error(text):
    try:
        out = parse_srepr(text, field="fuzz")
    except CertificateError:
        pass
    else:
        assert isinstance(out, sp.Basic)


@pytest.fixture(scope="module")
def genuine():
    y = sp.Symbol("y", positive=True)
    proof = check_identity(sp.cos(2 * y), 1 - 2 * sp.sin(y) ** 2)
    assert proof.verdict == "proved"
    return json.loads(proof.to_json()), proof.claim


def _paths(obj, prefix=()):
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield prefix + (k,)
            yield from _paths(v, prefix + (k,))
    elif isinstance(obj, list):
        for q, v in enumerate(obj):
            yield prefix + (q,)
            yield from _paths(v, prefix + (q,))


_REPLACEMENTS = st.one_of(
    st.none(), st.booleans(), st.integers(-3, 3), st.text(max_size=30),
    st.sampled_from(["Integer(0)", "Integer(1)", "Symbol('y')", "Symbol('y', positive=True)", "proved",
                     "refuted", "rule", "lemma", "expand", "__import__('os')", [], {}]),
)


@settings(max_examples=budget(150))
@given(data=st.data())
def test_a_mutated_certificate_is_refused_or_proves_exactly_the_original(genuine, data):
    cert, claim = genuine
    paths = list(_paths(cert))
    forged = copy.deepcopy(cert)
    for _ in range(data.draw(st.integers(1, 3))):
        path = data.draw(st.sampled_from(paths))
        parent = forged
        try:
            for key in path[:-1]:
                parent = parent[key]
            if data.draw(st.booleans()) and isinstance(parent, dict):
                parent.pop(path[-1], None)
            else:
                parent[path[-1]] = data.draw(_REPLACEMENTS)
        except (KeyError, IndexError, TypeError):
            continue
    text = json.dumps(forged)
    if data.draw(st.booleans()):  # and sometimes a byte-level flip
        pos = data.draw(st.integers(0, len(text) - 1))
        text = text[:pos] + data.draw(st.sampled_from(["{", "\"", "0", "x", "]", "\\"])) + text[pos + 1:]
    try:
        back = recheck_certificate(text)
    except CertificateError:
        return
    if back.verdict == "proved":
        assert back.claim.equations == claim.equations
        assert back.claim.assumptions == claim.assumptions
        assert {s.name: s for s in back.claim.symbols} == {s.name: s for s in claim.symbols}
