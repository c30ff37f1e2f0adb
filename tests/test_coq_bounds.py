"""The audit's bounds as Coq theorems (pe_symbolic.audit.coq_bounds).

Attack first: every false statement below is shown false by an explicit witness, computed
here with exact rational arithmetic (the rounding of each format written out below, not the
package's) or mpmath at 40 digits, before Coq is asked: a bound 10% below a witness's error,
the bound in a narrower format, an ``Admitted`` theorem, an ``Axiom``. Coq must prove none of
them; it must prove every bound the audit states. The Coq tests skip where Coq, Gappa or the
Coq libraries (Flocq, the Gappa plugin) are not installed.
"""

from __future__ import annotations

import dataclasses
import math
import re
from fractions import Fraction

import mpmath
import pytest
from hypothesis import given
from hypothesis import strategies as st

from pe_symbolic.audit import coq_bounds as cb
from pe_symbolic.audit.bounds import angle_bound, derived_bounds

MISSING = cb.coq_bounds_available()
needs_coq = pytest.mark.skipif(MISSING is not None, reason=f"{MISSING}")

CASE = {c.name: c for c in cb.CASES}
#: the default run checks one case through and through; the slow run every case
FAST = ("mixed",)
FORMAT = {"float64": (53, -1074), "float32": (24, -149), "bfloat16": (8, -133), "float16": (11, -24)}
#: a narrower format for each case's angle dtype (bfloat16 has none among ours)
NARROWER = {"float32": "bfloat16", "float64": "float32", "float16": "bfloat16", "mixed": "bfloat16",
            "mixed-fp32-rotation": "bfloat16"}


def cases(names=None):
    names = names or [c.name for c in cb.CASES]
    return [pytest.param(n, marks=() if n in FAST else pytest.mark.slow) for n in names]


# ----------------------------------------------------------------------------------------
# the attacker's own arithmetic


def rnd(x: Fraction, fmt: str) -> Fraction:
    """Round to nearest even in FLT(emin, p), exactly."""
    p, emin = FORMAT[fmt]
    if x == 0:
        return Fraction(0)
    a = abs(x)
    e = a.numerator.bit_length() - a.denominator.bit_length()
    if Fraction(2) ** e > a:
        e -= 1
    q = max(e - p + 1, emin)
    n = round(a / Fraction(2) ** q)  # Fraction rounds half to even
    return (n * Fraction(2) ** q) * (1 if x > 0 else -1)


DYADIC = r"\((?:- )?\(?\d+ \* bpow radix2 \(-?\d+\)\)?\)|\(- \d+\)|\b\d+\b"


def read_dyadic(text: str) -> Fraction:
    m = re.fullmatch(r"\((-)? ?\(?(\d+) \* bpow radix2 \((-?\d+)\)\)?\)|(\d+)|\(- (\d+)\)", text)
    assert m, text
    if m.group(4):
        return Fraction(int(m.group(4)))
    if m.group(5):
        return -Fraction(int(m.group(5)))
    v = int(m.group(2)) * Fraction(2) ** int(m.group(3))
    return -v if m.group(1) else v


def frac(x: mpmath.mpf) -> Fraction:
    """An mpf exactly, as a Fraction."""
    sign, man, exp, _ = mpmath.mpf(x)._mpf_
    return (-1) ** sign * Fraction(int(man)) * Fraction(2) ** exp


def angle_witness(name: str, state_as: str | None = None) -> tuple[int, Fraction]:
    """A pair and the largest |angle - t theta| at it over the last 256 positions, with
    ``theta`` the float64 nearest the pair's frequency and ``th = theta (1 + eps)`` (its
    relative error exactly the audit's eps): a lower bound of the true worst case, exactly."""
    em = CASE[name].emulation()
    t_max = CASE[name].context - 1
    P, A, Dt = em.dt["position_dtype"], em.dt["angle_dtype"], em.dt["trig_dtype"]
    f = (lambda d: state_as if state_as and d == A else d)
    cast = FORMAT[Dt][0] < FORMAT[A][0]
    best = (0, Fraction(0))
    for i in range(em.h):
        theta, E = Fraction(float(em.theta_hi[i])), Fraction(float(em.eps[i]))
        th = theta * (1 + E)
        for t in range(max(0, t_max - 255), t_max + 1):
            tt = Fraction(t)
            if P != "int64":
                tt = rnd(tt, f(P))
            if A != P:
                tt = rnd(tt, f(A))
            a = rnd(tt * th, f(A))
            if cast:
                a = rnd(a, Dt)
            if abs(a - t * theta) > best[1]:
                best = (i, abs(a - t * theta))
    return best


def table_witness(name: str) -> mpmath.mpf:
    """The largest |table - cos a| over 400 angles a, with A = a + d (d = min(angle bound,
    pi)) or a - d and the library's cos A off by its whole allowance either way."""
    au = cb._audit(CASE[name])
    em = au.em
    Dt, Dtab = em.dt["trig_dtype"], em.dt["table_dtype"]
    lib = Dt if Dt in ("float64", "float32") else "float32"
    L = 2 * Fraction(1, 2 ** FORMAT[lib][0])
    best = mpmath.mpf(0)
    with mpmath.workdps(40):
        d = min(mpmath.mpf(au.angle), mpmath.pi)
        Lm = mpmath.mpf(L.numerator) / L.denominator - mpmath.mpf("1e-50")
        for k in range(400):
            a = 2 * mpmath.pi * k / 400 + mpmath.mpf("0.000123")
            for A in (a + d, a - d):
                for c in (mpmath.cos(A) + Lm, mpmath.cos(A) - Lm):
                    v = frac(c)
                    if lib != Dt:
                        v = rnd(v, Dt)
                    if Dtab != Dt:
                        v = rnd(v, Dtab)
                    best = max(best, abs(mpmath.mpf(v.numerator) / v.denominator - mpmath.cos(a)))
    return best


def output_witness(name: str) -> mpmath.mpf:
    """The error vector's length for xa = 1, xb = 0, an angle off by the whole angle bound and the
    library's cos / sin off by its whole allowance, the table and the rotation rounded as the
    recipe does (exactly, with the formats written out here): the largest over 200 angles.
    Every hypothesis of the output theorem holds there, so a bound below it is false."""
    au = cb._audit(CASE[name])
    em = au.em
    R, act, Dt, Dtab = em.rotation, em.act, em.dt["trig_dtype"], em.dt["table_dtype"]
    lib = Dt if Dt in ("float64", "float32") else "float32"
    L = 2 * Fraction(1, 2 ** FORMAT[lib][0])
    V = frac(mpmath.mpf(au.angle)) * (1 - Fraction(1, 2**40))
    best = mpmath.mpf(0)
    with mpmath.workdps(40):
        for k in range(200):
            a = 2 * mpmath.pi * k / 200 + mpmath.mpf("0.000123")
            A = a + mpmath.mpf(V.numerator) / V.denominator
            c = frac(mpmath.cos(A)) + (L if mpmath.cos(A) > mpmath.cos(a) else -L)
            s = frac(mpmath.sin(A)) + (L if mpmath.sin(A) > mpmath.sin(a) else -L)
            if lib != Dt:
                c, s = rnd(c, Dt), rnd(s, Dt)
            if Dtab != Dt:
                c, s = rnd(c, Dtab), rnd(s, Dtab)
            ya, yb = rnd(rnd(c, R), R), rnd(rnd(s, R), R)  # rR(rR(1 c) - rR(0 s)), rR(rR(1 s) + rR(0 c))
            if R != act:
                ya, yb = rnd(ya, act), rnd(yb, act)
            ea = mpmath.mpf(ya.numerator) / ya.denominator - mpmath.cos(a)
            eb = mpmath.mpf(yb.numerator) / yb.denominator - mpmath.sin(a)
            best = max(best, mpmath.sqrt(ea * ea + eb * eb))
    return best


# ----------------------------------------------------------------------------------------
# without Coq: what is stated


@given(st.floats(allow_nan=False, allow_infinity=False))
def test_every_float_prints_as_its_exact_dyadic(x: float) -> None:
    assert read_dyadic(cb.dyadic(x)) == Fraction(x)


def test_dyadic_refuses_what_it_cannot_state_exactly() -> None:
    with pytest.raises(ValueError, match="not a dyadic rational"):
        cb.dyadic(Fraction(1, 10))
    with pytest.raises(ValueError, match="not finite"):
        cb.dyadic(math.inf)


@pytest.mark.parametrize("name", [c.name for c in cb.CASES])
def test_each_theorem_states_the_audits_own_number(name: str) -> None:
    case = CASE[name]
    em = case.emulation()
    ab = angle_bound(em, float(case.context - 1))
    bounds = {"angle": ab.value, **derived_bounds(em, ab, float(case.context - 1))}
    ths = cb.case_theorems(case).theorems
    assert {t.kind for t in ths} == {"angle", "table", "output"}
    for t in ths:
        assert t.value == bounds[t.kind]
        stated = re.findall(DYADIC, t.statement.rsplit("<=", 1)[1])
        assert stated and all(read_dyadic(x) == Fraction(bounds[t.kind]) for x in stated), t.name


def test_the_numbers_are_those_pe_audit_prints() -> None:
    import pe_symbolic as pe

    case = CASE["bfloat16"]
    r = pe.audit(case.config, recipe=case.recipe, dtype=case.dtype, context=case.context).results[0]
    ct = cb.case_theorems(case)
    for kind in ("angle", "table", "output"):
        assert r.bound(kind) == ct.bounds[kind]
        assert all(t.value == r.bound(kind) for t in ct.theorems if t.kind == kind)


@pytest.mark.parametrize("name", [c.name for c in cb.CASES])
def test_the_angle_theorems_cover_every_pair_with_its_frequency_and_eps(name: str) -> None:
    em = CASE[name].emulation()
    angle = [t for t in cb.case_theorems(CASE[name]).theorems if t.kind == "angle"]
    assert sorted(i for t in angle for i in t.pairs) == list(range(em.h))
    for t in angle:
        line = t.statement.splitlines()
        lo, hi = (read_dyadic(c) for c in re.findall(DYADIC, line[2]))
        E = read_dyadic(re.findall(DYADIC, line[3])[-1])
        for i in t.pairs:
            assert lo < Fraction(float(em.theta_hi[i])) < hi
            assert Fraction(float(em.eps[i])) <= E
        assert f"0 <= T <= {CASE[name].context - 1}" in t.statement


def test_what_is_not_stated_is_named() -> None:
    running = cb.BoundCase("running", "llama-3.1-8b", "llama.cpp", "float32", 4096)
    assert "running" in cb.case_theorems(running).not_stated["angle"]
    assert cb.case_theorems(running).theorems == ()
    overflow = cb.BoundCase("overflow", "llama-3.1-8b", "gpt-neox", "float16", 70000)
    assert "overflow" in cb.case_theorems(overflow).not_stated["angle"]
    tf32 = cb.BoundCase("tf32", "llama-3.1-8b", "hf-tf32", "float32", 4096)
    assert "Flocq format" in cb.case_theorems(tf32).not_stated["angle"]
    assert "score" in cb.case_theorems(CASE["float32"]).not_stated


def test_bad_arguments_are_named() -> None:
    with pytest.raises(ValueError, match="recipe='hugginface' is not allowed"):
        cb.BoundCase("x", "llama-3.1-8b", "hugginface", "float32", 4096)
    with pytest.raises(ValueError, match="context=0 must be an integer"):
        cb.BoundCase("x", "llama-3.1-8b", "hf", "float32", 0)
    with pytest.raises(ValueError, match="value=-1.0 must be a positive finite number"):
        cb.angle_theorems(CASE["float32"], -1.0)
    with pytest.raises(ValueError, match="state_as="):
        cb.table_theorem(CASE["float32"], state_as={"float32": "float8"})
    th = cb.case_theorems(CASE["float32"]).theorems[0]
    with pytest.raises(ValueError, match="must begin"):
        cb.BoundTheorem("other", th.case, th.kind, th.value, th.statement, th.script)


def test_print_assumptions_is_read_strictly() -> None:
    ok = "Axioms:\nClassical_Prop.classic : forall P : Prop, P \\/ ~ P\nCoq < \n"
    assert cb._assumptions(ok) == (("Classical_Prop.classic",), "")
    assert cb._assumptions("Closed under the global context\n") == ((), "")
    two_lines = "Axioms:\npe_bound_x\n  : forall x : R, x = x\n"
    assert cb._assumptions(two_lines)[0] == ("pe_bound_x",)
    other = "Axioms:\nClassical_Prop.classic : forall P, P\nConstants relying on type-in-type:\nfoo\n"
    assert "Constants" in cb._assumptions(other)[0]  # then refused: not an allowed axiom
    assert cb._assumptions("Error: something\n")[1]  # unreadable: refused


# ----------------------------------------------------------------------------------------
# with Coq


def _run(ths):
    return {r.theorem.name: r for r in cb.check_bounds(ths, jobs=2).results}


@needs_coq
@pytest.mark.parametrize("name", cases())
def test_coq_checks_every_bound_and_refuses_each_attack(name: str) -> None:
    case = CASE[name]
    au = cb._audit(case)
    good = list(cb.case_theorems(case).theorems)
    attacks = []
    # 10% below an explicit witness's error: a false statement
    i, wa = angle_witness(name)
    assert 0 < wa <= Fraction(au.angle)  # the audit's bound holds at the witness
    tight = [t for t in cb.angle_theorems(case, float(wa * Fraction(9, 10))) if i in t.pairs]
    attacks.append(tight[0].renamed(tight[0].name + "_tight"))
    wt = table_witness(name)
    assert wt <= au.bounds["table"]
    t = cb.table_theorem(case, float(wt * mpmath.mpf("0.9")))
    attacks.append(t.renamed(t.name + "_tight"))
    wo = output_witness(name)
    assert wo <= au.bounds["output"]
    t = cb.output_theorem(case, float(wo * mpmath.mpf("0.9")))
    attacks.append(t.renamed(t.name + "_tight"))
    # the audit's own angle bound, in a narrower format than the recipe's: false (witness)
    A = au.em.dt["angle_dtype"]
    if name in NARROWER:
        j, wn = angle_witness(name, NARROWER[name])
        assert wn > Fraction(au.angle)
        wrong = [t for t in cb.angle_theorems(case, state_as={A: NARROWER[name]}) if j in t.pairs]
        attacks.append(wrong[0].renamed(wrong[0].name + "_narrow"))
    res = _run(good + attacks)
    for t in good:
        assert res[t.name].status == "checked", (t.name, res[t.name].why)
        assert set(res[t.name].axioms) <= cb.ALLOWED_AXIOMS
    for t in attacks:
        assert res[t.name].status == "failed", t.name


@needs_coq
def test_an_admitted_theorem_or_an_axiom_is_refused_and_only_that_one(monkeypatch) -> None:
    monkeypatch.setattr(cb, "PRELUDE", cb.PRELUDE + "Axiom pe_cheat : forall P : Prop, P.\n")
    base = cb.table_theorem(CASE["float64"])
    adm = base.renamed("pe_bound_admitted")
    admitted = dataclasses.replace(adm, statement=adm.statement + "\nAdmitted.", script="exact I.")
    axiom = dataclasses.replace(base.renamed("pe_bound_axiom"), script="apply pe_cheat.")
    by = {r.theorem.name: r for r in cb.check_bounds([base, admitted, axiom], jobs=1).results}
    assert by[base.name].status == "checked", by[base.name].why
    assert by["pe_bound_admitted"].status == "refused" and "pe_bound_admitted" in by["pe_bound_admitted"].why
    assert by["pe_bound_axiom"].status == "refused" and "pe_cheat" in by["pe_bound_axiom"].why


@needs_coq
def test_the_strict_file_compiles_with_coqc(tmp_path) -> None:
    import subprocess

    path = tmp_path / "bounds.v"
    path.write_text(cb.coq_file([cb.output_theorem(CASE["float64"])]))
    done = subprocess.run(["coqc", str(path)], capture_output=True, text=True, cwd=tmp_path, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr


# ----------------------------------------------------------------------------------------
# pe-derive export --coq / check --coq


def test_cli_export_writes_the_bounds_beside_the_registry(tmp_path, capsys) -> None:
    from pe_symbolic.cli.derive import main

    assert main(["export", "--coq", "pair.dot", "audit.bounds", "-o", str(tmp_path)]) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["audit_bounds.v", "pair_dot.v"]
    text = (tmp_path / "audit_bounds.v").read_text()
    n = len(cb.bound_theorems())
    assert text.count("\nTheorem pe_bound_") == n and text.count("Qed.") >= n
    assert "Admitted" not in text and "Axiom" not in text
    assert f"{n} audit bound theorem(s) printed" in capsys.readouterr().err


def test_cli_check_of_the_bounds_without_gappa_exits_3(capsys, monkeypatch) -> None:
    from pe_symbolic.cli.derive import main

    monkeypatch.setattr(cb, "coq_bounds_available", lambda: "Gappa is not installed (apt-get install gappa)")
    assert main(["check", "--coq", "audit.bounds"]) == 3
    assert "the audit's bounds were not checked: Gappa is not installed" in capsys.readouterr().err


@needs_coq
@pytest.mark.slow
def test_cli_check_of_the_bounds(capsys) -> None:
    from pe_symbolic.cli.derive import main

    assert main(["check", "--coq", "audit.bounds"]) == 0
    out = capsys.readouterr().out
    n = len(cb.bound_theorems())
    assert "audit.bounds float32 (hf, float32, llama-3.1-8b, context 131072): coq: checked (5 of 5" in out
    assert re.search(rf"summary \(audit bounds\): {n} of {n} bound theorems checked by Coq, 0 failed, 0 refused", out)


# ----------------------------------------------------------------------------------------
# the docs' table and example (docs/_ext/pe_docs_gen.py, without Coq)


def test_the_docs_show_each_bound_with_its_coq_status(tmp_path) -> None:
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "docs" / "_ext"))
    import pe_docs_gen as gen

    assert gen.write_coq_bounds(tmp_path, run=False) == {}
    table = (tmp_path / "_coq_bounds.md").read_text()
    for c in cb.CASES:
        assert f"| {c.name} | `{c.recipe}`, {c.dtype} | {c.context} | angle |" in table
    assert table.count("| table |") == table.count("| output |") == len(cb.CASES)
    assert "stated: `pe_bound_float32_table`" in table and "not stated (the score bound" not in table
    example = (tmp_path / "_coq_bounds_example.md").read_text()
    assert example.startswith("```coq\n(* float32, angle") and "Theorem pe_bound_float32_angle_" in example
    assert "gappa. Qed." in example


@pytest.mark.parametrize("name", [c.name for c in cb.CASES])
def test_the_theorems_chain_with_the_same_constants(name: str) -> None:
    """The table theorem assumes exactly what the angle theorems prove, the output theorem
    exactly what the table theorem proves: angle => table => output by modus ponens."""
    ths = cb.case_theorems(CASE[name]).theorems
    angle = {t.statement.rsplit("<=", 1)[1].strip().rstrip(".") for t in ths if t.kind == "angle"}
    table = next(t for t in ths if t.kind == "table")
    output = next(t for t in ths if t.kind == "output")
    bound = angle.pop()
    assert len(angle) == 0 and f"Rabs (A - a) <= {bound} ->" in table.statement
    # the output theorem assumes what the angle theorems prove and the library's allowance the
    # table theorem assumes; the table is built inside it, as the recipe builds it
    assert f"Rabs (A - a) <= {bound} ->" in output.statement
    lib = re.search(r"Rabs \(c - cos A\) <= (.*?) ->", table.statement).group(1)
    assert f"Rabs (cl - cos A) <= {lib} -> Rabs (sl - sin A) <= {lib} ->" in output.statement
