"""Proofs for every d: lemma citations and termwise rewriting, and what they refuse.

The foundation theorems are proved for d = 2h with a symbolic number of pairs h, by citing
pair lemmas inside sums over the pair index (termwise) and inside Kronecker-delta sums over
blocks. Each rule is tested on a wrong use: a false or unproved lemma, a lemma instance that
breaks the lemma's assumptions, a summand rewrite that holds only for some i, a circular
citation, a sum whose index leaves its declared range.
"""

from __future__ import annotations

import json

import pytest
import sympy as sp

from pe_symbolic import theorems
from pe_symbolic.encodings import pairs as Q
from pe_symbolic.proof import LHS, Claim, Equation, Step, prove
from pe_symbolic.proof.kernel import Context, LemmaError, check_chain
from pe_symbolic.theorems import registry

EVERY_D = [th.id for th in theorems.all() if th.scope == "every even d"]


def test_the_foundation_is_proved_for_every_d():
    assert {"translation.identity", "translation.group", "sinusoidal.dot", "rope.relative",
            "rope.efficient_form", "translation.independent", "layout.permutation"} <= set(EVERY_D)
    for id_ in EVERY_D:
        proof = theorems.get(id_).prove()
        assert proof.verdict == "proved", (id_, proof.notes)
        # every d: the claim speaks of h pairs (or of a symbolic d), not of one 2x2 block
        names = {s.name for s in proof.claim.symbols}
        assert names & {"h", "d"}, id_


@pytest.mark.parametrize("id_,lemma", [
    ("translation.identity", "pair.translation"),
    ("translation.group", "rot2.compose"),
    ("sinusoidal.dot", "pair.dot"),
    ("rope.relative", "rope.pair_relative"),
    ("rot2.compose", "trig.angle_addition"),
])
def test_proofs_cite_their_lemmas(id_, lemma):
    proof = theorems.get(id_).prove()
    assert lemma in proof.lemmas


def test_a_readable_proof_has_a_few_named_steps():
    proof = theorems.get("translation.identity").prove()
    for part in proof.parts:
        assert 3 <= len(part.steps) <= 8
        assert [s.rule for s in part.steps][1:] == ["evaluate", "assumption", "lemma pair.translation"]
        assert all(s.why for s in part.steps)


# ---- the rules on wrong uses --------------------------------------------------------
x = sp.Symbol("x", real=True)
j = Q.j
h = Q.h


@pytest.fixture
def fake_registry(monkeypatch):
    """Register throwaway lemmas: a false one, and two that cite each other."""
    created = []

    def add(id_, claim, chains=None, expect="proved"):
        th = registry.Theorem(id_, id_, "test", lambda d: (claim, chains) if chains else claim, concrete=False,
                              expect=expect)
        monkeypatch.setitem(registry._REGISTRY, id_, th)
        created.append(id_)

    yield add
    registry._prove_cached.cache_clear()
    registry._built_cached.cache_clear()


def _context(claim):
    return Context(claim.assumptions, registry.lemma)


def test_citing_a_false_lemma_is_refused(fake_registry):
    # "sin(y)**2 = sin(y)" is false; a chain citing it must not prove sin(x)**2 + 1 = sin(x) + 1
    y = sp.Symbol("y", real=True)
    fake_registry("test.false_lemma", Claim("test.false_lemma", "false", (Equation(sp.sin(y) ** 2, sp.sin(y)),)),
                  expect="refuted")
    assert theorems.get("test.false_lemma").prove().verdict == "refuted"
    eq = Equation(sp.sin(x) ** 2 + 1, sp.sin(x) + 1)
    steps = [Step(eq.lhs, LHS), Step(eq.rhs, "lemma test.false_lemma", (("y", x),))]
    ok, why = check_chain(eq, steps, Context((), registry.lemma))
    assert not ok and "is refuted, not proved" in why


def test_an_instance_that_breaks_the_lemma_assumptions_is_refused():
    # pair.translation holds for omega > 0; omega = -1 is not admissible (sin/cos order swap)
    lemma = theorems.get("pair.translation").claim()
    eq = lemma.equations[0]
    inst = {lemma.symbol_table["omega"]: sp.Integer(-1)}
    e = Equation(eq.lhs.xreplace(inst), eq.rhs.xreplace(inst))
    steps = [Step(e.lhs, LHS), Step(e.rhs, "lemma pair.translation", (("omega", sp.Integer(-1)),))]
    ok, why = check_chain(e, steps, Context((), registry.lemma))
    assert not ok and "not known to be positive" in why
    # an unknown symbol name in the instance is refused too
    steps = [Step(e.lhs, LHS), Step(e.rhs, "lemma pair.translation", (("w", sp.Integer(2)),))]
    assert "no free symbol 'w'" in check_chain(e, steps, Context((), registry.lemma))[1]


def test_a_summand_rewrite_that_holds_only_for_some_i_is_refused():
    # sin(pi j / 2) = 0 holds for even j only: rewriting the summand is refused
    lhs = sp.Sum(sp.sin(sp.pi * j / 2), (j, 0, h - 1))
    eq = Equation(lhs, 0)
    steps = [Step(lhs, LHS), Step(sp.Sum(0, (j, 0, h - 1)), "termwise: sin(pi j/2) = 0"), Step(0, "doit")]
    assert not check_chain(eq, steps)[0]
    # ... while one that holds for every integer j is accepted, termwise
    lhs = sp.Sum(sp.sin(sp.pi * j), (j, 0, h - 1))
    steps = [Step(lhs, LHS), Step(sp.Sum(0, (j, 0, h - 1)), "termwise: sin(pi j) = 0"), Step(0, "doit")]
    assert check_chain(Equation(lhs, 0), steps) == (True, "")


def test_a_termwise_lemma_on_a_sum_outside_its_index_range_is_refused():
    # j is declared nonnegative; a sum from -3 would let the lemma's instance leave its range
    w = sp.Symbol("w", positive=True)
    bad = sp.Sum(sp.sin(w * j) ** 2 + sp.cos(w * j) ** 2, (j, -3, h))
    steps = [Step(bad, LHS), Step(sp.Sum(1, (j, -3, h)), "lemma rot2.det", (("a", w * j),))]
    ok, why = check_chain(Equation(bad, sp.Sum(1, (j, -3, h))), steps, Context((), registry.lemma))
    assert not ok


def test_a_circular_citation_is_refused(fake_registry):
    y = sp.Symbol("y", real=True)
    eq = Equation(sp.cos(y) ** 2 + sp.sin(y) ** 2, 1)
    claim_a = Claim("test.a", "a", (eq,))
    claim_b = Claim("test.b", "b", (eq,))
    fake_registry("test.a", claim_a, {0: [Step(eq.lhs, LHS), Step(1, "lemma test.b", (("y", y),))]})
    fake_registry("test.b", claim_b, {0: [Step(eq.lhs, LHS), Step(1, "lemma test.a", (("y", y),))]})
    proof = theorems.get("test.a").prove()
    assert proof.verdict != "proved"
    # a cites b, which cites a: b is refused the citation as circular, so a is not proved
    assert "'test.b' is undecided" in " ".join(proof.notes)
    assert "circular (test.a -> test.b -> test.a)" in " ".join(theorems.get("test.b").prove().notes)


def test_a_lemma_step_without_a_registry_does_not_check():
    lemma = theorems.get("trig.angle_addition").claim()
    eq = lemma.equations[0]
    steps = [Step(eq.lhs, LHS), Step(eq.rhs, "lemma trig.angle_addition")]
    ok, why = check_chain(eq, steps)
    assert not ok and "no lemma registry" in why


def test_every_d_certificates_recheck_with_their_lemmas():
    for id_ in ("translation.identity", "rope.relative", "translation.group"):
        cert = theorems.get(id_).prove().to_json()
        assert "lemma" in json.loads(cert)["parts"][0]["steps"][-1]["kind"] or id_ == "translation.group"
        assert theorems.recheck_certificate(cert).verdict == "proved"


def test_the_assumption_rule_only_uses_the_claims_assumptions():
    i = Q.i
    e = sp.Piecewise((x, sp.Le(i, h - 1)), (0, True))
    eq = Equation(e, x)
    steps = [Step(e, LHS), Step(x, "assumption")]
    assert check_chain(eq, steps, Context((sp.Le(i, h - 1),))) == (True, "")
    assert not check_chain(eq, steps, Context(()))[0]
    assert not check_chain(eq, steps, Context((sp.Le(i, h),)))[0]


def test_concrete_d_is_checked_block_by_block_in_linear_time():
    proof = theorems.get("rope.relative").prove(64)
    assert proof.verdict == "proved"
    assert len(proof.parts) == 32  # one block identity per pair, no 64 x 64 simplification
    assert all(p.steps[-1].rule == "lemma rope.pair_relative" for p in proof.parts)


def test_prove_reports_a_claim_whose_chain_is_not_an_instance():
    # a "lemma" step that does not match the lemma is reported with the reason
    lemma = theorems.get("rot2.det").claim()
    c = Claim("test.det", "det", (Equation(sp.Determinant(sp.eye(2) * 2), 1),))
    steps = [Step(c.equations[0].lhs, LHS), Step(1, "lemma rot2.det", (("a", x),))]
    proof = prove(c, chains={0: steps}, lemmas=registry.lemma)
    assert proof.verdict == "refuted"  # det(2 I) = 4
    assert "no instance of lemma" in proof.parts[0].note or "does not follow" in proof.parts[0].note
    assert lemma.id == "rot2.det"


def test_lemma_errors_name_the_reason():
    with pytest.raises(LookupError):
        registry.lemma("no.such.lemma")
    assert issubclass(LemmaError, ValueError)


def test_a_sequence_instance_must_keep_the_sequences_properties():
    # family.relative holds for every real frequency sequence theta[j]; citing it with a
    # sequence that is not real, or with a Lambda over a variable that may be negative, fails
    from pe_symbolic.proof.kernel import LemmaError, lemma_instance

    claim = theorems.get("family.relative").claim()
    with pytest.raises(LemmaError, match="not known to be real"):
        lemma_instance(claim, (("theta", sp.Lambda(Q.j, sp.I * Q.j)),))
    v = sp.Symbol("v", integer=True)
    with pytest.raises(LemmaError, match="nonnegative integer"):
        lemma_instance(claim, (("theta", sp.Lambda(v, v)),))
    with pytest.raises(LemmaError, match="one-variable Lambda"):
        lemma_instance(claim, (("theta", sp.Integer(3)),))
    mapping, seqs = lemma_instance(claim, (("theta", sp.Lambda(Q.j, 2 * Q.j + 1)),))
    assert not mapping and len(seqs) == 1


def test_a_lemma_instance_that_would_be_captured_by_its_sum_is_refused():
    """``translation.identity`` binds ``j`` in its sum over blocks; ``i -> j`` would turn the
    block ``i`` it speaks of into the summation variable (a sum over every block = one block)."""
    lem = registry.lemma("translation.identity")
    with pytest.raises(LemmaError, match="would be captured"):
        from pe_symbolic.proof.kernel import lemma_instance

        lemma_instance(lem, (("i", Q.j),))


def test_a_delta_sum_of_a_non_integer_is_not_evaluated():
    """SymPy sums ``delta(x, j)`` over ``j < h`` to 1 for ``0 <= x <= h-1`` also at ``x = 1/2``."""
    x = sp.Symbol("x", real=True)
    lhs = sp.Sum(sp.KroneckerDelta(x, Q.j), (Q.j, 0, Q.h - 1))
    steps = [Step(lhs, LHS), Step(lhs.doit(), "doit"), Step(1, "assumption")]
    ok, _ = check_chain(Equation(lhs, 1), steps, Context((sp.Ge(x, 0), sp.Le(x, Q.h - 1))))
    assert not ok
    i = sp.Symbol("i", integer=True, nonnegative=True)  # an integer: evaluated as before
    assert sp.Sum(sp.KroneckerDelta(i, Q.j), (Q.j, 0, Q.h - 1)).doit() != lhs


def test_a_sum_whose_number_of_terms_is_not_an_integer_is_refused():
    from pe_symbolic.proof import ClaimError

    with pytest.raises(ClaimError, match="not known to be an integer"):
        Claim("t.half", "sum to 1/2", (Equation(sp.Sum(1, (Q.j, 0, sp.Rational(1, 2))), sp.Rational(3, 2)),))


# ---- the layouts over the whole vector (rotate_half, the permutation P) ----------------
m_ = sp.Symbol("m", real=True)


def _pair_i_of_R_x(layout):
    from pe_symbolic.encodings import rope as R

    return Q.apply_blocks(lambda idx: R.rope_block(m_, Q.omega(idx)), lambda idx: Q.vector_pair("x", idx, layout),
                          Q.i)


def test_efficient_form_models_rotate_half_over_the_whole_vector():
    proof = theorems.get("rope.efficient_form").prove()
    assert proof.verdict == "proved"
    split = next(p for p in proof.parts if p.equation.label.startswith("split"))
    # the right-hand side is the framework's formula at slots i and i + h, not a pair formula
    rhs = split.equation.rhs
    assert rhs[0].has(sp.Piecewise) and rhs[1] == Q.efficient_slot("x", Q.i + h, m_, "split")
    assert [s.rule for s in split.steps][1:] == ["evaluate", "assumption"]


@pytest.mark.parametrize("layout,wrong", [
    # rotate_half with the signs swapped: cat(x[h:], -x[:h]) (the rotation by -m theta)
    ("split", lambda s: sp.Piecewise((Q.vector_pair("x", s, "split")[1], sp.Le(s, h - 1)),
                                     (-sp.IndexedBase("x", real=True)[s - h], True))),
    # the halves not exchanged: cat(-x[:h], x[h:])
    ("split", lambda s: sp.Piecewise((-sp.IndexedBase("x", real=True)[s], sp.Le(s, h - 1)),
                                     (sp.IndexedBase("x", real=True)[s], True))),
    # rotate_every_two read as rotate_half on an interleaved vector
    ("interleaved", lambda s: Q.rotate_slot("x", s, "split")),
])
def test_a_wrong_rotate_is_refuted(layout, wrong):
    i = Q.i
    slots = (i, i + h) if layout == "split" else (2 * i, 2 * i + 1)
    xb = sp.IndexedBase("x", real=True)
    ang = lambda s: m_ * Q.frequency_slot(s, layout)  # noqa: E731
    rhs = sp.ImmutableMatrix([xb[s] * sp.cos(ang(s)) + wrong(s) * sp.sin(ang(s)) for s in slots])
    claim = Claim("test.rotate", "wrong rotate", (Equation(_pair_i_of_R_x(layout), rhs),),
                  (sp.Gt(sp.Symbol("b", positive=True), 1), sp.Le(i, h - 1)))
    assert prove(claim, lemmas=registry.lemma).verdict == "refuted"


def test_the_efficient_form_chain_needs_the_pair_to_exist():
    claim = theorems.get("rope.efficient_form").claim()
    proof = theorems.get("rope.efficient_form").prove()
    part = next(p for p in proof.parts if p.equation.label.startswith("split"))
    # the same chain under a claim without i <= h - 1: the assumption step has nothing to use
    ok, why = check_chain(part.equation, list(part.steps), Context(claim.assumptions[:1], registry.lemma))
    assert not ok and "step 3" in why


def test_layout_permutation_moves_every_pair_for_every_d():
    proof = theorems.get("layout.permutation").prove()
    assert proof.verdict == "proved"
    labels = " ".join(p.equation.label for p in proof.parts)
    assert "P R_interleaved = R_split P" in labels and "P T_interleaved = T_split P" in labels
    # a permutation that takes the odd slots first is not the layout change
    i = Q.i
    v = sp.IndexedBase("v", real=True)
    wrong = sp.ImmutableMatrix([sp.Piecewise((v[2 * s + 1], sp.Le(s, h - 1)), (v[2 * (s - h)], True))
                                for s in (i, i + h)])
    claim = Claim("test.perm", "wrong P", (Equation(wrong, Q.vector_pair("v", i)),), (sp.Le(i, h - 1),))
    assert prove(claim).verdict == "refuted"


@pytest.mark.parametrize("d", [2, 8, 64])
def test_the_block_diagonal_determinant_is_checked_as_a_whole(d):
    proof = theorems.get("translation.group").prove(d)
    part = next(p for p in proof.parts if "det diag(" in p.equation.label)
    assert part.verdict == "proved"
    assert isinstance(part.equation.lhs.args[0], sp.BlockDiagMatrix)
    assert [s.rule for s in part.steps][1:] == ["evaluate", "sin(u)**2 -> 1 - cos(u)**2"]


def test_a_block_diagonal_determinant_with_a_wrong_block_is_refuted():
    from pe_symbolic.encodings import sinusoidal as P

    k = sp.Symbol("k", real=True)
    blocks = [P.translation_block(k, sp.Integer(1)), 2 * P.translation_block(k, sp.Rational(1, 2))]
    det = sp.Determinant(sp.BlockDiagMatrix(*blocks))
    assert prove(Claim("test.det", "wrong block", (Equation(det, 1),))).verdict == "refuted"


def test_concrete_blocks_are_the_constructors_blocks():
    # the concrete claims build each block by instantiating the pair lemma (fast, and the same
    # construction the kernel checks); it must be the expression the constructors build
    from pe_symbolic._validate import ORDERS
    from pe_symbolic.encodings import rope as R
    from pe_symbolic.encodings import sinusoidal as P
    from pe_symbolic.encodings import symbols as S

    d = 64
    ident = theorems.get("translation.identity").claim(d).equations
    for n, (order, (q, om)) in enumerate((o, qo) for o in ORDERS for qo in enumerate(P.frequencies(d))):
        assert ident[n].lhs == P.translation_block(S.k, om, order) * P.pair(S.t, om, order), (order, q)
        assert ident[n].rhs == P.pair(S.t + S.k, om, order)
    rel = theorems.get("rope.relative").claim(d).equations
    for q, th in enumerate(R.thetas(d)):
        assert rel[q].lhs == R.rope_block(S.m, th).T * R.rope_block(S.n, th)
        assert rel[q].rhs == R.rope_block(S.n - S.m, th)


def test_a_quick_instance_has_the_value_of_the_evaluated_one():
    from pe_symbolic.proof.kernel import _plain_argument, instantiate

    a_, y = sp.Symbol("a"), sp.Symbol("y", positive=True)
    e = sp.cos(a_) + sp.sin(a_)
    for value in (y, -y, sp.pi * y, y + sp.pi, sp.asin(y), sp.I * y, 2 * y, y * (y - 1), sp.Integer(0)):
        quick = instantiate(e, {a_: value}, {})
        assert quick == e.xreplace({a_: value}) or sp.simplify(quick - e.xreplace({a_: value})) == 0
        # where SymPy's simplification would fire, the node is evaluated as usual
        assert _plain_argument(value) == (value in (y, 2 * y, y * (y - 1)))


@pytest.mark.parametrize("d", [64, 512])
@pytest.mark.parametrize("layout", ["interleaved", "split"])
def test_the_constructors_are_block_diagonal_beyond_the_dense_checks(d, layout):
    # a concrete d > 16 is checked block by block: that covers the d x d matrices only if
    # they are block-diagonal with exactly those blocks, which is checked here entry by entry
    from pe_symbolic.encodings import rope as R
    from pe_symbolic.encodings import sinusoidal as P
    from pe_symbolic.encodings import symbols as S
    from pe_symbolic.encodings.rot2 import pair_slots

    for M, blocks in ((R.rope_matrix(S.m, d, layout=layout), [R.rope_block(S.m, th) for th in R.thetas(d)]),
                      (P.translation_matrix(S.k, d, layout=layout),
                       [P.translation_block(S.k, om) for om in P.frequencies(d)])):
        expected = {}
        for q, B in enumerate(blocks):
            slots = pair_slots(q, d, layout)
            for r in range(2):
                for c in range(2):
                    expected[slots[r], slots[c]] = B[r, c]
        nonzero = {key: v for key, v in M.todok().items() if v != 0}
        assert nonzero == {key: v for key, v in expected.items() if v != 0}
