"""The RoPE family's theorems: each verdict is the registered one, chains re-check, the
honest negatives come with admissible counterexamples, and wrong variants are not proved."""

from __future__ import annotations

import pytest
import sympy as sp

from pe_symbolic import check_identity, theorems
from pe_symbolic.encodings import family as F
from pe_symbolic.encodings import symbols as S
from pe_symbolic.proof import check_chain
from pe_symbolic.proof.kernel import Context
from pe_symbolic.theorems import family as TF

NEGATIVES = ("dynamic.mixed_bases", "longrope.switch")
#: Concrete dimensions checked in the default run (64 and 128 are slow).
DIMS = (2, 4, 8, 16)


def test_family_theorems_are_registered_after_the_chapters_in_order():
    ids = theorems.ids()
    first = ids.index(TF.IDS[0])
    assert ids[first:first + len(TF.IDS)] == list(TF.IDS)  # (the precision claims follow them)
    for id_ in NEGATIVES:
        assert theorems.get(id_).expect == "refuted"
    assert all(theorems.get(i).expect == "proved" for i in TF.IDS if i not in NEGATIVES)


@pytest.mark.parametrize("id_", [i for i in TF.IDS if i not in NEGATIVES])
def test_generic_form_is_proved_and_rechecks(id_):
    proof = theorems.get(id_).prove()
    bad = [(p.equation.label, p.verdict, p.note) for p in proof.parts if p.verdict != "proved"]
    assert proof.verdict == "proved", bad
    context = Context(proof.claim.assumptions, theorems.lemma)
    for part in proof.parts:
        assert check_chain(part.equation, part.steps, context) == (True, "")


@pytest.mark.parametrize("id_", ["linear.interpolation", "yarn.relative", "longrope.relative"])
def test_members_relative_theorems_cite_family_relative(id_):
    assert "family.relative" in theorems.get(id_).prove().lemmas


@pytest.mark.parametrize("d", DIMS)
@pytest.mark.parametrize("id_", [i for i in TF.IDS if i not in NEGATIVES and theorems.get(i).concrete])
def test_concrete_form_is_proved(id_, d):
    assert theorems.get(id_).prove(d).verdict == "proved"


@pytest.mark.slow
@pytest.mark.parametrize("d", (64, 128))
@pytest.mark.parametrize("id_", ["family.relative", "mrope.homomorphism", "partial.permutation", "xpos.relative"])
def test_concrete_form_is_proved_at_real_head_dims(id_, d):
    assert theorems.get(id_).prove(d).verdict == "proved"


@pytest.mark.parametrize("id_", NEGATIVES)
def test_honest_negatives_are_refuted_at_an_admissible_point(id_):
    th = theorems.get(id_)
    proof = th.prove()
    assert proof.verdict == "refuted"
    cex = proof.counterexample
    assert cex is not None and float(cex["|lhs - rhs|"]) > 1e-6
    claim = th.claim()
    point = {s: sp.Rational(cex[s.name]) for s in claim.symbols}
    assert all(bool(a.subs(point)) for a in claim.assumptions)
    diff = claim.equations[0].difference.subs(point)
    assert abs(complex(diff.evalf(30))) > 1e-6  # the printed point really breaks the claim


def test_negatives_hold_when_the_two_sides_agree():
    """The negatives fail only because of the mismatch: with one base (one set of factors)
    the same shift equation is proved (rope.relative / longrope.relative)."""
    eq = theorems.get("dynamic.mixed_bases").claim().equations[0]
    b_q, b_k = sp.Symbol("b_q", positive=True), sp.Symbol("b_k", positive=True)
    same = check_identity(eq.lhs.subs(b_k, b_q), eq.rhs.subs(b_k, b_q), [sp.Gt(b_q, 1)])
    assert same.verdict == "proved"


# ----------------------------------------------------------------------------------------
# wrong variants are not proved (the claims can fail)


def test_ntk_with_another_exponent_is_refuted():
    k = sp.Symbol("k", integer=True, positive=True)
    dd = 2 * k + 2
    wrong_base = S.b * F.s ** (dd / (dd - 1))  # exponent d/(d-1) instead of d/(d-2)
    p = check_identity(F.default_theta(k, dd, base=wrong_base), F.default_theta(k, dd) / F.s, [S.BASE_GT_1])
    assert p.verdict == "refuted"


def test_yarn_correction_dim_without_two_pi_is_refuted():
    r = sp.Symbol("r", positive=True)
    wrong = S.d * sp.log(F.L / r) / (2 * sp.log(S.b))
    p = check_identity(F.wavelength(F.default_theta(wrong, S.d)), F.L / r, [S.BASE_GT_1])
    assert p.verdict == "refuted"


def test_llama31_bands_off_by_one_are_refuted():
    lam29 = F.wavelength(F.default_theta(29, 128, base=500000))
    assert check_identity(sp.sign(lam29 - 2048), -1).verdict == "refuted"
    lam35 = F.wavelength(F.default_theta(35, 128, base=500000))
    assert check_identity(sp.sign(lam35 - 8192), -1).verdict == "refuted"


def test_full_width_permutation_does_not_conjugate_partial_rotary():
    from pe_symbolic.encodings.sinusoidal import layout_permutation

    th = (sp.Symbol("theta_0", positive=True), sp.Symbol("theta_1", positive=True))
    P = layout_permutation(6)  # the full-d permutation, not the partial one
    lhs = P.T * F.partial_rope_matrix(S.m, 6, th, layout="split") * P
    rhs = F.partial_rope_matrix(S.m, 6, th, layout="interleaved")
    assert check_identity(lhs, rhs).verdict != "proved"


def test_mrope_contiguous_and_interleaved_differ():
    th = tuple(sp.Symbol(f"theta_{q}", positive=True) for q in range(4))
    p = sp.symbols("p_t p_h p_w", real=True)
    a = F.mrope_matrix(p, th, (2, 1, 1))
    b = F.mrope_matrix(p, th, (2, 1, 1), interleaved=True)
    assert check_identity(a, b).verdict == "refuted"


def test_xpos_without_the_key_downscale_is_not_relative():
    z, g, th = sp.Symbol("zeta", positive=True), sp.Symbol("gamma", positive=True), sp.Symbol("theta", positive=True)
    q, kv, a = S.vector("q", 2), S.vector("k", 2), sp.Symbol("a", real=True)

    def score(mm, nn):
        return (F.xpos_scale(mm, (z,), gamma=g) * F.rope_matrix(mm, (th,)) * q).dot(
            F.xpos_scale(nn, (z,), gamma=g) * F.rope_matrix(nn, (th,)) * kv)

    assert check_identity(score(S.m, S.n), score(S.m + a, S.n + a)).verdict == "refuted"


# ----------------------------------------------------------------------------------------
# the RoFormer decay certificate


def test_roformer_decay_certificate():
    cert = TF.roformer_decay(128, 4096)
    assert cert.verdict == "certificate" and cert.holds
    assert "not a symbolic proof" in cert.label and "distances 0..4096, d=128" in cert.label
    assert cert.values["B(0) (= (d/2 + 1)/2)"] == "32.5"
    assert "MISMATCH" not in cert.values["mpmath confirmation at 30 digits"]


@pytest.mark.parametrize("kw,match", [
    ({"d": 7}, "d=7 must be a positive even integer"),
    ({"max_distance": 2}, "max_distance=2 must be an integer >= 4"),
    ({"base": 1.0}, "base=1.0 must be > 1"),
])
def test_roformer_decay_bad_input(kw, match):
    with pytest.raises(ValueError, match=match):
        TF.roformer_decay(**kw)


@pytest.mark.slow
def test_derivation_script_prints_every_family_verdict_and_the_config_table():
    import subprocess
    import sys
    from pathlib import Path

    script = Path(__file__).resolve().parents[1] / "derivations" / "rope_family.py"
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-2000:]
    for id_ in TF.IDS:
        assert f"{id_}: {theorems.get(id_).expect.upper()}" in out.stdout
    assert "llama-3.1-8b                           llama3" in out.stdout
    assert out.stdout.rstrip().endswith("all claims proved")


@pytest.mark.parametrize("id_", TF.IDS)
def test_no_two_symbols_of_a_claim_share_a_name(id_):
    th = theorems.get(id_)
    for d in ((None, 4, 8) if th.concrete else (None,)):
        names = [s.name for s in th.claim(d).symbols]
        assert len(names) == len(set(names)), (id_, d, names)
