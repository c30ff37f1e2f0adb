"""The seed-article chapters: scripts run, new theorems prove, certificates say what they are.

Every chapter script is run in a subprocess (exit 0, its own proofs printed); every theorem
the chapters register proves (generic, and at d = 8 where it has a concrete form); numeric
certificates are labelled as certificates with their range and never as proofs; and false
variants of the new claims are not proved.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import sympy as sp

from pe_symbolic.encodings import sinusoidal as P
from pe_symbolic.encodings import symbols as S
from pe_symbolic import theorems
from pe_symbolic.theorems.chapters import CHAPTER_IDS, certificates, denk, kernes, notes, sphere
from pe_symbolic.theorems.chapters._common import half_angle, quarter_angle, sgn
from pe_symbolic.proof import check_chain, check_identity

ROOT = Path(__file__).resolve().parents[1]
NEW_IDS = [i for ids in CHAPTER_IDS.values() for i in ids]


# --------------------------------------------------------------------------- scripts
@pytest.fixture(scope="module")
def script_runs() -> dict[str, subprocess.CompletedProcess]:
    """Run every chapter script once, all at the same time; keep exit status and output."""
    env = {**os.environ, "PYTHONWARNINGS": "error"}
    procs = {
        chapter: subprocess.Popen([sys.executable, str(ROOT / "derivations" / f"{chapter}.py")], cwd=ROOT,
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
        for chapter in CHAPTER_IDS
    }
    out = {}
    for chapter, proc in procs.items():
        stdout, stderr = proc.communicate(timeout=300)
        out[chapter] = subprocess.CompletedProcess(proc.args, proc.returncode, stdout, stderr)
    return out


@pytest.mark.parametrize("chapter", sorted(CHAPTER_IDS))
def test_chapter_script_runs_and_prints_its_proofs(chapter: str, script_runs) -> None:
    res = script_runs[chapter]
    assert res.returncode == 0, res.stdout[-3000:] + res.stderr[-3000:]
    assert res.stdout.rstrip().endswith("All as expected.")
    for id in CHAPTER_IDS[chapter]:
        assert f"{id}: PROVED" in res.stdout, f"{chapter}.py does not print the proof of {id}"
    assert "UNDECIDED" not in res.stdout and "REFUTED" not in res.stdout


def test_chapters_print_certificates_as_certificates(script_runs) -> None:
    out = script_runs["denk_kazemnejad"].stdout
    assert "kazemnejad.unique: HOLDS -- certificate (numeric, 256 positions 0..255, d=8, base=10000)" in out
    assert "not a symbolic proof" in out
    assert "kazemnejad.unique: PROVED" not in out
    out = script_runs["kernes"].stdout
    assert "kernes.dot_decay: FAILS -- certificate (numeric, offsets -128..127 around position 128" in out
    assert "kernes.dot_decay: PROVED" not in out
    # the failure is the finding: said where it is printed, and counted apart in the summary
    assert "as expected: the numbers refute the article's claim over this range" in out
    summary = out.split("\nSummary\n")[1]
    assert "1 article claim refuted by a numeric certificate, as expected (kernes.dot_decay)" in summary
    assert "all claims proved" not in out.lower()


def test_report_exit_code_fails_on_an_unproved_claim_or_unexpected_certificate() -> None:
    sys.path.insert(0, str(ROOT / "derivations"))
    try:
        from _common import CheckRecord, ProofRecord, Report
    finally:
        sys.path.remove(str(ROOT / "derivations"))
    rep = Report(proofs=[ProofRecord("a", None, "proved")], checks=[CheckRecord("c", False, False)])
    assert rep.exit_code() == 0
    rep.proofs.append(ProofRecord("b", 8, "undecided"))
    assert rep.exit_code() == 1
    rep = Report(proofs=[ProofRecord("a", None, "proved")], checks=[CheckRecord("c", False, True)])
    assert rep.exit_code() == 1


@pytest.mark.slow
@pytest.mark.parametrize("chapter", sorted(CHAPTER_IDS))
def test_chapter_script_at_another_d(chapter: str) -> None:
    res = subprocess.run([sys.executable, str(ROOT / "derivations" / f"{chapter}.py"), "--d", "16"],
                         cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert res.returncode == 0, res.stdout[-3000:] + res.stderr[-3000:]


def test_chapter_script_rejects_odd_d() -> None:
    res = subprocess.run([sys.executable, str(ROOT / "derivations" / "video.py"), "--d", "7"],
                         cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert res.returncode == 2 and "--d=7 must be a positive even integer" in res.stderr


def test_every_chapter_has_a_script() -> None:
    for chapter in CHAPTER_IDS:
        assert (ROOT / "derivations" / f"{chapter}.py").is_file()


# --------------------------------------------------------------------------- theorems
def test_new_ids_are_registered_and_listed() -> None:
    registered = theorems.ids()
    assert len(NEW_IDS) == len(set(NEW_IDS))
    for id in NEW_IDS:
        assert id in registered


@pytest.mark.parametrize("id", NEW_IDS)
def test_new_theorem_is_proved(id: str) -> None:
    th = theorems.get(id)
    dims = [None, 8] if th.concrete else [None]
    for d in dims:
        proof = th.prove(d)
        assert proof.verdict == "proved", (id, d, [(p.equation.label, p.verdict, p.note) for p in proof.parts])
        assert proof.elapsed < 10, (id, d, proof.elapsed)
        # the verdict stands on chains that re-check, not on the engine's word
        for part in proof.parts:
            assert check_chain(part.equation, part.steps) == (True, "")


@pytest.mark.parametrize("id", [i for i in NEW_IDS if theorems.get(i).concrete])
@pytest.mark.parametrize("d", [2, 4])
def test_concrete_forms_small_d(id: str, d: int) -> None:
    assert theorems.get(id).prove(d).verdict == "proved"


def test_non_concrete_theorems_refuse_d() -> None:
    with pytest.raises(ValueError, match="no concrete-d form"):
        theorems.get("sphere.tables").prove(8)


# --------------------------------------------------------------------------- certificates
def test_unique_encoding_certificate_is_labelled_with_its_range() -> None:
    cert = certificates.unique_encoding(200, 16, base=10000)
    assert cert.holds
    assert cert.verdict == "certificate" and cert.verdict != "proved"
    assert cert.label == "certificate (numeric, 200 positions 0..199, d=16, base=10000) - not a symbolic proof"
    text = cert.to_text()
    assert cert.label in text and "PROVED" not in text
    assert "offset t - s = 1" in cert.values["smallest distance"]


def test_certificate_record_is_not_a_proof_certificate() -> None:
    import json

    rec = certificates.unique_encoding(32, 4).to_dict()
    json.dumps(rec)
    assert rec["kind"] == "certificate" and "verdict" not in rec
    assert rec["format"] != "pe_symbolic.certificate/1"  # the proof engine's format
    assert "not a symbolic proof" in rec["label"] and rec["range"] == "32 positions 0..31, d=4, base=10000"


def test_unique_encoding_minimum_matches_mpmath_independently() -> None:
    import mpmath

    cert = certificates.unique_encoding(64, 4, base=100)
    # brute force in mpmath over every pair, straight from the table's definition
    with mpmath.workdps(30):
        def pe(x: int) -> list:
            return [f(mpmath.mpf(100) ** (-mpmath.mpf(2 * i) / 4) * x)
                    for i in range(2) for f in (mpmath.sin, mpmath.cos)]
        rows = [pe(x) for x in range(64)]
        best = min(mpmath.sqrt(sum((a - c) ** 2 for a, c in zip(rows[s], rows[t])))
                   for s in range(64) for t in range(s + 1, 64))
    got = float(cert.values["smallest distance"].split()[0])
    assert abs(got - float(best)) < 1e-12


def test_dot_decay_certificate_reports_the_first_rise() -> None:
    cert = certificates.dot_decay(128, 256, 128)
    assert not cert.holds  # "steadily decreases" is not strictly true
    assert cert.values["strictly decreasing on offsets"] == "0..11"
    assert cert.label.startswith("certificate (numeric, offsets -128..127 around position 128, d=128")


@pytest.mark.parametrize("kw", [dict(n_positions=1, d=8), dict(n_positions=10, d=7),
                                dict(n_positions=10, d=8, base=1.0)])
def test_certificate_arguments_are_checked(kw: dict) -> None:
    with pytest.raises(ValueError):
        certificates.unique_encoding(**kw)


# --------------------------------------------------------------------------- false variants
def _not_proved(lhs, rhs, assumptions=()) -> str:
    verdict = check_identity(lhs, rhs, assumptions).verdict
    assert verdict != "proved"
    return verdict


def test_false_monotone_range_beyond_a_quarter_period() -> None:
    w, t = S.omega, S.t
    q, _ = quarter_angle()
    beyond = (sp.pi / 2 + q) / w  # omega t in (pi/2, pi): the sine falls there
    assert _not_proved(sgn(sp.Subs(sp.Derivative(sp.sin(w * t), t), t, beyond)), 1) == "refuted"


def test_false_resolution_direction() -> None:
    w = S.omega
    h, _ = half_angle()
    # claiming the step distance *falls* with omega on (0, pi)
    assert _not_proved(sgn(sp.Subs(sp.Derivative(4 * sp.sin(w / 2) ** 2, w), w, h)), -1) == "refuted"


def test_false_vaswani_wavelength_reaches_10000_2pi() -> None:
    assert _not_proved(denk.wavelength(3, 8, base=10000), 2 * sp.pi * 10000) == "refuted"


def test_false_sine_only_distance_is_shift_invariant() -> None:
    t, k = S.t, S.k
    sines = sp.Matrix([sp.sin(w * t) for w in P.frequencies(4)])
    diff = sines.subs(t, t + k) - sines
    assert _not_proved(sp.Derivative((diff.T * diff)[0], t), 0, (S.BASE_GT_1,)) == "refuted"


def test_false_shaw_absolute_clipping_is_not_shift_invariant() -> None:
    i, j, s = sp.symbols("i j s", integer=True)
    lhs = notes.clip(j + s, 2) - notes.clip(i + s, 2)
    assert _not_proved(lhs, notes.clip(j, 2) - notes.clip(i, 2)) == "refuted"


def test_false_t2t_without_the_permutation() -> None:
    t = S.t
    assert _not_proved(denk.timing_signal_1d(t, 8), P.encoding(t, 8, base=S.b ** sp.Rational(4, 3)),
                       (S.BASE_GT_1,)) == "refuted"


def test_false_t2t_same_base_as_vaswani() -> None:
    t = S.t
    assert _not_proved(denk.timing_signal_1d(t, 8), P.encoding(t, 8, layout="split"),
                       (S.BASE_GT_1,)) == "refuted"


def test_false_sphere_radius_d() -> None:
    p = sphere.post_encoding(S.t, 8)
    assert _not_proved((p.T * p)[0], 8) == "refuted"


def test_false_exact_rounding_of_the_float32_entry() -> None:
    exact = sp.sin(sp.Rational(3, 100))
    claim = sgn(sp.Rational(5, 10**7) - sp.Abs(exact - sp.Rational("2.9995e-02")))
    assert _not_proved(claim, 1) == "refuted"


def test_false_alibi_last_slope() -> None:
    assert _not_proved(sphere.alibi_slopes(8)[-1], sp.Rational(1, 128)) == "refuted"


def test_false_bonus_dot_larger_away_from_zero() -> None:
    k = sp.Symbol("k", integer=True, nonzero=True)
    f = sum(sp.cos(w * k) for w in P.frequencies(8, base=10000))
    assert _not_proved(sgn(f - 4), 1) == "refuted"


def test_false_normalized_positions_agree() -> None:
    assert _not_proved(sp.Rational(4, 5), sp.Rational(16, 25)) == "refuted"


def test_false_dials_do_not_collide_at_half_period() -> None:
    x = sp.Symbol("x", real=True)
    figure = [sp.pi / 2, sp.pi / 4, sp.pi / 8]
    assert _not_proved(sp.Matrix([sp.sin(w * (x + 8)) for w in figure]),
                       sp.Matrix([sp.sin(w * x) for w in figure])) == "refuted"


# --------------------------------------------------------------------------- chapter data
def test_printed_tables_against_exact_and_float32() -> None:
    assert sphere.printed_digits_mismatches() == [("encodings", 3, 4, "2.9995e-02", "2.9996e-02")]
    assert sphere.printed_digits_mismatches("float32") == []
    with pytest.raises(ValueError, match="angles"):
        sphere.printed_digits_mismatches("float16")


def test_float32_angles_match_numpy_float32() -> None:
    rad32, _ = sphere.float32_tables()
    coeffs = (np.float32(10000.0) ** -(((np.arange(8) >> 1) << 1) / np.float32(8))).astype(np.float32)
    want = np.arange(4, dtype=np.float32)[:, None] * coeffs[None, :]
    got = np.array(rad32.tolist(), dtype=np.float64)
    assert np.array_equal(got, want.astype(np.float64))


@pytest.mark.skipif(not list(Path("/work/shared/seeds").glob("004_*.txt")), reason="seed text not present")
def test_transcribed_tables_match_the_seed_text() -> None:
    import re

    text = next(Path("/work/shared/seeds").glob("004_*.txt")).read_text(encoding="utf-8")
    for name, kept in (("radians", sphere.PRINTED_RADIANS), ("encodings", sphere.PRINTED_ENCODINGS)):
        printed = re.search(name + r"=tensor\((\[\[.*?\]\])\)", text, flags=re.S).group(1)
        assert sphere.parse_printed(printed, 8) == sphere.parse_printed(kept, 8)


def test_binary_vector_and_dials() -> None:
    assert list(kernes.binary_vector(35, 8)) == [0, 0, 1, 0, 0, 0, 1, 1]
    assert kernes.dial(5, 1) == 0
    with pytest.raises(ValueError):
        kernes.binary_vector(3, 0)


def test_timing_signal_and_slopes_reject_bad_arguments() -> None:
    with pytest.raises(ValueError, match="channels"):
        denk.timing_signal_1d(S.t, 1)
    with pytest.raises(ValueError, match="power of two"):
        sphere.alibi_slopes(6)
    with pytest.raises(ValueError, match="even"):
        notes.notes_rope_matrix(S.m, 3)
