"""Refutations in Coq: the negation of a printed lemma, proved at the kernel's counterexample.

What is tested first is what must never happen: a true equation refuted (a bogus point, a
script that cites another lemma or admits, a statement whose negation is not the lemma's), a
refutation counted as a proof, a refuted entry of a claim expected to hold passing quietly.
"""

from __future__ import annotations

import re
import shutil
import types
from dataclasses import replace

import pytest
import sympy as sp

from pe_symbolic.proof import Claim, Equation
from pe_symbolic.proof.coq_export import ALLOWED_AXIOMS, check, coq_file, depends_on_preamble_only, export_claim
from pe_symbolic.proof.coq_refute import Counterexample, negation, script

HAS_COQ = shutil.which("coqtop") is not None
needs_coq = pytest.mark.skipif(not HAS_COQ, reason="Coq (coqtop) is not installed")

x, y = sp.symbols("x y", real=True)
t, k = sp.symbols("t k", real=True)
p = sp.Symbol("p", positive=True)
w = sp.Symbol("omega", positive=True)
m_, q0, q1 = sp.symbols("m q_0 q_1", real=True)
n = sp.Symbol("n", integer=True, positive=True)
v = sp.IndexedBase("v", real=True)

#: False equations (tests/test_coq.py's, and a few with integers, vectors, sign, hypotheses).
FALSE = [
    sp.Eq(sp.sin(t + k), sp.sin(t) + sp.sin(k), evaluate=False),
    sp.Eq(sp.cos(2 * x), 2 * sp.cos(x) ** 2, evaluate=False),
    sp.Eq(sp.cos(m_ * w) * q0 - sp.sin(m_ * w) * q1, sp.cos(m_ * w) * q0 + sp.sin(m_ * w) * q1, evaluate=False),
    sp.Eq(sp.sin(w * (t + k)), sp.sin(w * t) * sp.cos(w * k) - sp.cos(w * t) * sp.sin(w * k), evaluate=False),
    sp.Eq(p ** x * p ** y, p ** (x * y), evaluate=False),
    sp.Eq(sp.cos(n * x), n * sp.cos(x), evaluate=False),
    sp.Eq(v[n] * v[n + 1], v[n] ** 2, evaluate=False),
    sp.Eq(sp.sign(sp.Add(sp.Rational(84147, 100000), -sp.sin(1), evaluate=False), evaluate=False), 1, evaluate=False),
]


def _claim(cid: str, eq: sp.Eq, assumptions: tuple = ()) -> Claim:
    return Claim(cid, "", (Equation(eq.lhs, eq.rhs),), assumptions)


def _angle_addition() -> Claim:
    return Claim("true.add", "", (Equation(sp.sin(x + y), sp.sin(x) * sp.cos(y) + sp.cos(x) * sp.sin(y)),))


# --------------------------------------------------------------------------------------
# Without Coq: what is stated, and what the static checks refuse
# --------------------------------------------------------------------------------------
def test_a_true_equation_gets_no_refutation() -> None:
    lem = export_claim(_angle_addition(), refute=True).lemmas[0]
    assert lem.refutation == "" and lem.counterexample == ""


def test_the_refutation_states_exactly_the_negation_of_the_printed_lemma() -> None:
    ex = export_claim(_claim("false.hyp", sp.Eq(sp.cos(2 * x), 2 * sp.cos(x) ** 2, evaluate=False), (x > 1,)),
                      refute=True)
    lem = ex.lemmas[0]
    assert lem.refutation and lem.counterexample.startswith("x = ")
    text = lem.text(tolerant=True, token=7)
    # the negation of the very proposition the proof question would state, under the run's token
    assert f"Lemma pe_r7 : ~ ({lem.proposition}).\n" in text
    assert lem.proposition == "forall (x_1 : R), 1 < x_1 -> (cos (2 * x_1)) = (2 * ((cos x_1) ^ 2))"
    assert "Definition pe_no_7 := pe_r7." in text and "pe_t7" not in text
    # the .v file states the negation under a readable name, the statement in a comment
    v_text = coq_file([ex])
    assert f"Lemma {lem.name}_refuted : ~ ({lem.proposition})." in v_text


def test_negation_refuses_a_proposition_that_does_not_balance() -> None:
    assert negation("(- 1) = 0") == "~ ((- 1) = 0)"
    for bad in ("0 = 1) \\/ (1 = 1", "(0 = 1", "", "0 = 1)) -> ((1 = 1"):
        with pytest.raises(ValueError, match="do not balance"):
            negation(bad)
    lem = export_claim(_claim("false.c", FALSE[0]), refute=True).lemmas[0]
    forged = replace(lem, proposition="0 = 1) \\/ (1 = 1")
    assert "do not balance" in depends_on_preamble_only(forged)


@pytest.mark.parametrize("bad", ["exact pe_r0", "apply pe_no_3", "exact pe_t1", "admit", "Admitted",
                                 "idtac. Axiom f : False"])
def test_a_refutation_script_may_cite_no_other_lemma_and_admit_nothing(bad: str) -> None:
    lem = export_claim(_claim("false.c", FALSE[0]), refute=True).lemmas[0]
    assert depends_on_preamble_only(lem) == ""
    assert depends_on_preamble_only(replace(lem, refutation=bad)) != ""


# --------------------------------------------------------------------------------------
# Coq (few runs: each loads the preamble, seconds)
# --------------------------------------------------------------------------------------
@needs_coq
def test_false_equations_are_refuted_true_ones_never() -> None:
    """Every false equation is refuted (the kernel's point, Coq's proof); a true one, forced
    with bogus points in both directions, a script that proves something else, or one that
    cites another lemma's refutation, is never. One statement asked both ways in the run: each
    answer is read back by its own token, so a refutation lends nothing to a proof."""
    false = [export_claim(_claim(f"false.c{q}", eq), refute=True) for q, eq in enumerate(FALSE)]
    true = export_claim(_angle_addition(), refute=True).lemmas[0]
    forced = [replace(true, refutation=script(Counterexample(vals, order, "bogus"), binders=True),
                      counterexample="bogus")
              for vals in ("1 2", "(1 / 3) (- 5)") for order in (-1, 1)]
    forced.append(replace(true, refutation="intro H; exact I", counterexample="bogus"))
    forced.append(replace(true, refutation="exact pe_r0", counterexample="bogus"))
    as_proof = replace(false[1].lemmas[0], refutation="", counterexample="")  # the same statement, proof asked
    others = [types.SimpleNamespace(claim_id=lem.claim_id, lemmas=(lem,)) for lem in (*forced, as_proof, true)]
    report = check(false + others)
    got = [(r.lemma.claim_id, r.status, r.why) for r in report.results]
    n = len(FALSE)
    assert [s for _, s, _ in got[:n]] == ["refuted"] * n, got
    assert [s for _, s, _ in got[n:]] == ["failed"] * (len(forced) + 1) + ["checked"], got
    assert "pe_r0" in got[n + len(forced) - 1][2]
    assert report.counts() == {"checked": 1, "refuted": n, "vacuous": 0, "failed": len(forced) + 1, "outside": 0}


@needs_coq
def test_a_negatives_true_entries_are_proved_and_the_false_ones_refuted_on_the_standard_axioms() -> None:
    claim = Claim("neg.matrix", "", (Equation(sp.Matrix([sp.sin(2 * x), sp.cos(x) ** 2 + sp.sin(x) ** 2]),
                                              sp.Matrix([2 * sp.sin(x), 1])),))
    pw = export_claim(_claim("false.pow", FALSE[4]), refute=True)
    report = check([export_claim(claim, refute=True), pw], assumptions=True)  # Print Assumptions too
    assert [r.status for r in report.results] == ["refuted", "checked", "refuted"], [
        (r.status, r.why) for r in report.results]
    assert report.results[0].why.startswith("Coq proved the printed equation false at x = ")


@needs_coq
def test_refutations_are_cached_by_their_text(tmp_path, monkeypatch) -> None:
    from pe_symbolic.proof import coq_export

    monkeypatch.setenv("PE_SYMBOLIC_CACHE_DIR", str(tmp_path))
    ex = export_claim(_claim("false.cache", FALSE[1]), refute=True)
    assert [r.status for r in check([ex]).results] == ["refuted"]

    def no_coq(*args, **kwargs):
        raise AssertionError("Coq was asked again")

    monkeypatch.setattr(coq_export.subprocess, "Popen", no_coq)
    assert [r.status for r in check([ex]).results] == ["refuted"]
    lem = ex.lemmas[0]
    other = replace(lem, refutation=lem.refutation.replace("apply R", "idtac; apply R"))
    with pytest.raises(AssertionError, match="asked again"):
        check([types.SimpleNamespace(claim_id=lem.claim_id, lemmas=(other,))])
    # the proof question of the same statement is another key: a cached refutation is no proof
    with pytest.raises(AssertionError, match="asked again"):
        check([export_claim(_claim("false.cache", FALSE[1]))])


@needs_coq
def test_cli_refuted_as_registered_or_loudly(capsys, monkeypatch) -> None:
    """A negative refuted is as registered; a refuted entry of a claim expected to hold, and a
    negative Coq proves entirely, are listed and fail the run."""
    from pe_symbolic.cli import _coq
    from pe_symbolic.cli.derive import main

    two = Equation(sp.Matrix([sp.sin(2 * x), 1]), sp.Matrix([2 * sp.sin(x), 1]))
    cases = [("neg.ok", "refuted", two), ("pair.dot", "proved", two),
             ("neg.true", "refuted", Equation(sp.sin(2 * x), 2 * sp.sin(x) * sp.cos(x)))]
    ths, exps = [], []
    for cid, expect, eq in cases:
        claim = Claim(cid, "", (eq,))
        ths.append(types.SimpleNamespace(id=cid, expect=expect, claim=lambda claim=claim: claim))
        exps.append(export_claim(claim, refute=True))
    monkeypatch.setattr(_coq, "_exports", lambda ids: (ths, exps))
    assert main(["check", "--coq", "neg.ok"]) == 1
    out = capsys.readouterr().out
    assert "neg.ok: coq: refuted, as registered (1 refuted, 1 proved)" in out
    assert "pair.dot: 1 checked, 1 refuted (of 2) -- REFUTED, although registered to hold" in out
    assert re.search(r"equation 0 entry \(0, 0\) \[pe_pair_dot_e0_0_0\]: coq: refuted \(Coq proved the printed "
                     r"equation false at x = ", out), out
    assert "neg.true: coq: PROVED (1 of 1), although registered as an honest negative" in out
    assert re.search(r"summary: 4 of 5 equations checked by Coq \(80\.0%\): 3 proved, 1 refuted \(registered "
                     r"honest negatives\), 0 vacuous \(.*\), 0 failed, 1 REFUTED although registered to hold, 0 "
                     r"outside .*coqtop \d", out), out


def test_the_allowed_axioms_are_the_reals_only() -> None:
    assert all(a.startswith(("Classical", "FunctionalExtensionality")) for a in ALLOWED_AXIOMS)
