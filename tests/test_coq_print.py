"""The printer's analysis constructs (issue 36): determinants by cofactor expansion, undefined
functions, derivatives inside an expression, limits, complex equations split into real and
imaginary parts, and powers whose base's sign the statement asserts.

Attacks first: a false variant of each construct must not come out ``checked`` (a determinant
with one sign flipped, a wrong derivative, a derivative that does not exist where SymPy still
gives a value, a wrong limit, a complex identity that is false, a function the equation is not
affine in). Then the round trips: every new construct is printed, read back by the reader of
``tests/test_coq.py`` (independent of the printer) and compared with SymPy, and the true
statements are checked by Coq with nothing beyond the standard library's axioms.
"""

from __future__ import annotations

import random

import pytest
import sympy as sp
from sympy.core.function import UndefinedFunction

from pe_symbolic.proof import Claim, Equation
from pe_symbolic.proof.coq import Env, OutsideFragment, to_coq_ast, to_coq_complex, to_coq_equation
from pe_symbolic.proof.coq_preamble import PREAMBLE, PREAMBLE_NO_COQUELICOT, PREAMBLE_NO_INTERVAL
from pe_symbolic.proof.coq_syntax import coq_text, goal_text
from pe_symbolic.proof.coq_export import check, coquelicot_installed, export_claim
from tests.test_coq import HAS_COQ, Reader

needs_coquelicot = pytest.mark.skipif(not HAS_COQ or not coquelicot_installed(),
                                      reason="Coq with Coquelicot (libcoq-coquelicot) is not installed")

x, y = sp.symbols("x y", real=True)
p = sp.Symbol("p", positive=True)
i, j, s = sp.symbols("i j s", integer=True)
K = sp.Symbol("K", integer=True, positive=True)
a, c = sp.symbols("a c")  # complex: not declared real
w = sp.Function("w")


class Reader2(Reader):
    """The reader of tests/test_coq.py, with ``cosh``/``sinh`` and the lemma's function variables."""

    FUN = {**Reader.FUN, "cosh": sp.cosh, "sinh": sp.sinh}

    def inner(self) -> sp.Basic:
        tok = self.peek()
        if isinstance(self.names.get(tok), UndefinedFunction):
            self.take()
            return self.names[tok](self.term())
        return super().inner()


def _names(env: Env) -> dict[str, sp.Basic]:
    return {name: s_ for name, (kind, s_) in env.free.items()}


def read(node: tuple, env: Env, extra: dict | None = None) -> sp.Basic:
    r = Reader2(coq_text(node), {**_names(env), **(extra or {})})
    out = r.term()
    assert r.k == len(r.t)
    return out


def _status(*claims: Claim) -> list[str]:
    report = check([export_claim(cl) for cl in claims], cache=False)
    return [r.status for r in report.results]


# --------------------------------------------------------------------------------------
# Attacks: false variants are never checked
# --------------------------------------------------------------------------------------
M3 = sp.ImmutableMatrix([[2, -1, 3], [1, 4, x], [0, 5, 1]])


@needs_coquelicot
def test_false_variants_are_not_checked() -> None:
    det = sp.expand(M3.det())
    u = sp.Symbol("u", positive=True)
    false = [
        # a determinant with one cofactor's sign flipped, and one off by 2
        Claim("bad.det_sign", "", (Equation(sp.Determinant(M3), det + 2 * (M3[0, 1] * (M3[1, 0] * M3[2, 2] - M3[1, 2] * M3[2, 0]))),)),
        Claim("bad.det_off", "", (Equation(sp.Determinant(M3), det + 2),)),
        # a wrong derivative, a derivative of the wrong sign
        Claim("bad.deriv_value", "", (Equation(sp.Subs(sp.Derivative(x ** 2, x), x, 3), 5),)),
        Claim("bad.deriv_sign", "", (Equation(sp.sign(sp.Derivative(-x ** 3 - x, x)), 1),)),
        # |x| has no derivative at 0: SymPy's sign(0) = 0 there, Coquelicot's Derive 1; neither is
        # a derivative, and the statement says the derivative exists
        Claim("bad.deriv_abs0", "", (Equation(sp.Subs(sp.Derivative(sp.Abs(x), x), x, 0), 0),)),
        Claim("bad.deriv_abs1", "", (Equation(sp.Subs(sp.Derivative(sp.Abs(x), x), x, 0), 1),)),
        # wrong limits
        Claim("bad.lim_inf", "", (Equation(sp.Limit(1 / (u + 1), u, sp.oo), 1),)),
        Claim("bad.lim_atan", "", (Equation(sp.Limit(2 * sp.atan(u), u, sp.oo), 2 * sp.pi),)),
        Claim("bad.lim_right", "", (Equation(sp.Limit(sp.atan(u) + 1, u, 0, "+"), 0),)),
        # complex identities that are false (an identity of sin, cos, exp true for every real
        # argument is true for every complex one: a false one is false somewhere on the reals too;
        # the rules themselves are checked numerically by the round trip below)
        Claim("bad.cx_angle", "", (Equation(sp.sin(a + c), sp.sin(a) * sp.cos(c)),)),
        Claim("bad.cx_conj", "", (Equation(sp.exp(sp.I * a) * sp.exp(sp.I * c), sp.exp(sp.I * (a - c))),)),
        Claim("bad.cx_euler", "", (Equation(sp.exp(sp.I * a), sp.cos(a) + sp.sin(a)),)),
        # an arbitrary function is not shift invariant
        Claim("bad.w_shift", "", (Equation(w(x + 1), w(x)),)),
        # true for complex values, but the statement asserts a base of unknown sign positive
        Claim("bad.guard", "", (Equation((x - 1) ** sp.Rational(3, 2), ((x - 1) ** sp.Rational(1, 2)) ** 3),)),
    ]
    got = _status(*false)
    assert all(g == "failed" for g in got), [(cl.id, g) for cl, g in zip(false, got) if g != "failed"]


def test_a_complex_identity_that_needs_conjugates_is_not_printed() -> None:
    """|e^{ia}| = 1 holds for real a only; Abs of a complex value is never printed."""
    ex = export_claim(Claim("cx.abs", "", (Equation(sp.Abs(sp.exp(sp.I * a)), 1),)))
    assert ex.lemmas[0].outside


def test_a_symbol_that_may_be_infinite_is_not_split() -> None:
    for sym in (sp.Symbol("q", extended_real=True), sp.Symbol("q", infinite=True)):
        with pytest.raises(OutsideFragment):
            to_coq_equation(sym * sp.I, sp.I * sym, Env())


def test_an_undefined_function_is_printed_only_affinely() -> None:
    for lhs, rhs in [(w(x) ** 2, w(x) * w(x)), (w(w(x)), w(x)), (sp.sin(w(x)), sp.sin(w(x)))]:
        with pytest.raises(OutsideFragment, match="not affine"):
            to_coq_equation(lhs, rhs, Env())
    with pytest.raises(OutsideFragment, match="undefined function"):
        to_coq_ast(w(x), Env())  # never outside an equation checked for affinity
    L, R = to_coq_equation(3 * w(x + y) - 2, w(y + x) * 3 - 2, Env())
    assert L[0] == "add"


def test_derivatives_refused_where_the_point_would_name_a_bound_variable() -> None:
    n = sp.Symbol("n", integer=True, nonnegative=True)
    for e in (sp.Sum(sp.Derivative(sp.sin(j * x), x), (j, 0, n)),
              sp.Derivative(sp.Derivative(x ** 3, x) * x, x) + 1,
              sp.Subs(sp.Derivative(x * y, x), (x, y), (1, 2))):
        with pytest.raises(OutsideFragment):
            to_coq_ast(e, Env())


# --------------------------------------------------------------------------------------
# Round trips of the new constructs
# --------------------------------------------------------------------------------------
@pytest.mark.parametrize("size", [1, 2, 3, 4, 5, 6])
def test_determinants_round_trip(size: int) -> None:
    rng = random.Random(size)
    pool = [0, 0, 1, -1, 2, sp.Rational(1, 3), x, y, sp.sin(x), p]
    for _ in range(3):
        m = sp.ImmutableMatrix(size, size, [rng.choice(pool) for _ in range(size * size)])
        env = Env()
        assert sp.expand(read(to_coq_ast(sp.Determinant(m), env), env) - m.det()) == 0, m


def test_a_permutation_determinant_is_its_sign() -> None:
    perm = sp.ImmutableMatrix([[0, 1, 0, 0], [0, 0, 0, 1], [1, 0, 0, 0], [0, 0, 1, 0]])
    env = Env()
    assert read(to_coq_ast(sp.Determinant(perm), env), env) == perm.det() == -1


def test_an_undefined_function_round_trips() -> None:
    e = w(sp.Max(-K, sp.Min(K, j - i)))
    env = Env()
    L, R = to_coq_equation(e, e, env)
    assert read(L, env) == e
    text = export_claim(Claim("w.demo", "", (Equation(e, e),))).lemmas[0].statement
    assert "(w_1 : R -> R)" in text


def test_derivatives_inside_an_expression_print_as_named_values() -> None:
    env = Env()
    e = sp.sign(sp.Subs(sp.Derivative(sp.sin(x * p) + x ** 2, x), x, 2 * sp.atan(p)))
    L, R = to_coq_equation(e, sp.Integer(1), env)
    goal = goal_text(L, R)
    head, rest = goal.split(" : R, ", 1)
    assert head == "exists d_1"
    fact, core = rest.split(" /\\ ")
    assert core == "(sgn d_1) = 1"
    assert fact.startswith("derivable_pt_lim (fun x_1 : R => ")
    body_text = fact[len("derivable_pt_lim (fun x_1 : R => "):]
    r = Reader2(body_text, {**_names(env), "x_1": x})
    body = r.term()
    r.take(")")
    point = r.term()
    assert r.t[r.k:] == ["d_1"]
    assert sp.simplify(body - (sp.sin(x * p) + x ** 2)) == 0
    assert sp.simplify(point - 2 * sp.atan(p)) == 0


def test_limits_print_with_epsilons() -> None:
    u = sp.Symbol("u", positive=True)
    cases = {
        sp.Limit(1 / (u + 1), u, sp.oo): "forall eps_1 : R, 0 < eps_1 -> exists M_1 : R, forall u_1 : R, M_1 < u_1 -> Rabs ((/ (1 + u_1)) - 0) < eps_1",
        sp.Limit(1 / (u + 1), u, -sp.oo): "forall eps_1 : R, 0 < eps_1 -> exists M_1 : R, forall u_1 : R, u_1 < M_1 -> Rabs ((/ (1 + u_1)) - 0) < eps_1",
        sp.Limit(sp.atan(u), u, 1, "+"): "forall eps_1 : R, 0 < eps_1 -> exists delta_1 : R, 0 < delta_1 /\\ forall u_1 : R, 1 < u_1 < 1 + delta_1 -> Rabs ((atan u_1) - 0) < eps_1",
        sp.Limit(sp.atan(u), u, 1, "-"): "forall eps_1 : R, 0 < eps_1 -> exists delta_1 : R, 0 < delta_1 /\\ forall u_1 : R, 1 - delta_1 < u_1 < 1 -> Rabs ((atan u_1) - 0) < eps_1",
        sp.Limit(sp.atan(u), u, 1, "+-"): "forall eps_1 : R, 0 < eps_1 -> exists delta_1 : R, 0 < delta_1 /\\ forall u_1 : R, 0 < Rabs (u_1 - 1) < delta_1 -> Rabs ((atan u_1) - 0) < eps_1",
    }
    for lim, want in cases.items():
        L, R = to_coq_equation(lim, sp.Integer(0), Env())
        assert goal_text(L, R) == want


def test_a_limit_variable_used_as_an_integer_is_refused() -> None:
    n = sp.Symbol("n", integer=True, positive=True)
    with pytest.raises(OutsideFragment, match="integer"):
        to_coq_equation(sp.Limit((-1) ** n / n, n, sp.oo), sp.Integer(0), Env())


COMPLEX = [a, sp.I * a, a * c, a ** 3, sp.sin(a), sp.cos(a + c), sp.exp(sp.I * a * x), sp.exp(a) * sp.sin(c),
           sp.Determinant(sp.ImmutableMatrix([[sp.cos(a), -sp.sin(a)], [sp.sin(a), sp.cos(a)]])),
           sp.Determinant(sp.ImmutableMatrix([[a, 1, 0], [c, sp.I, 2], [x, a * c, 1]])),
           3 * a * sp.exp(sp.I * x) + c ** 2 - x, sp.Subs(a * c + x, c, a + 1)]


@pytest.mark.parametrize("e", COMPLEX, ids=[sp.sstr(e)[:40] for e in COMPLEX])
def test_complex_expressions_round_trip(e: sp.Basic) -> None:
    """The printed real and imaginary parts, read back and evaluated at random points, are
    SymPy's value of the expression there (evaluated by SymPy, not by the printer's rules)."""
    env = Env()
    re, im = to_coq_complex(e, env)
    rng = random.Random(sp.sstr(e))
    for _ in range(4):
        vals = {s_: rng.uniform(-2, 2) for s_ in (a, c, x)}
        point = {a: vals[a] + sp.I * rng.uniform(-1, 1), c: vals[c] + sp.I * rng.uniform(-1, 1), x: vals[x]}
        extra = {}
        for sym, (pr, pi_) in env.parts.items():
            extra[pr], extra[pi_] = sp.re(point[sym]), sp.im(point[sym])
        subs = {s_: v for s_, v in extra.items()}
        subs[x] = point[x]
        want = complex(sp.N(e.doit().subs(point), 30))
        got_re = complex(sp.N(read(re, env).subs(subs), 30))
        got_im = complex(sp.N(read(im, env).subs(subs), 30))
        assert abs(got_re - want.real) < 1e-9 and abs(got_im - want.imag) < 1e-9, (e, point)


def test_complex_equations_state_both_parts() -> None:
    stmt = export_claim(Claim("cx.demo", "", (Equation(sp.exp(sp.I * a), sp.cos(a) + sp.I * sp.sin(a)),))).lemmas[0]
    assert stmt.binders == "(a_im_1 a_re_1 : R)"
    assert stmt.proposition.count(" = ") == 2 and " /\\ " in stmt.proposition


def test_guarded_powers_state_the_base_sign() -> None:
    L, R = to_coq_equation(x * (y ** 2 + x) ** sp.Rational(1, 3), sp.sqrt(x - y), Env())
    assert goal_text(L, R) == ("0 < (x_1 + (y_1 ^ 2)) /\\ 0 <= (x_1 + (- y_1)) /\\ "
                               "(x_1 * (Rpower (x_1 + (y_1 ^ 2)) (1 / 3))) = (sqrt (x_1 + (- y_1)))")


def test_the_preambles_without_coquelicot() -> None:
    assert "Require Import Coquelicot" in PREAMBLE and "Require Import Coquelicot" in PREAMBLE_NO_INTERVAL
    assert "Require Import Coquelicot" not in PREAMBLE_NO_COQUELICOT and "Ltac pe_auto_derive := fail." in PREAMBLE_NO_COQUELICOT


# --------------------------------------------------------------------------------------
# True statements are checked, with the standard library's axioms only
# --------------------------------------------------------------------------------------
@needs_coquelicot
def test_true_statements_are_checked_with_the_standard_axioms_only() -> None:
    u = sp.Symbol("u", positive=True)
    true = [
        Claim("ok.det", "", (Equation(sp.Determinant(M3), sp.expand(M3.det())),)),
        Claim("ok.deriv", "", (Equation(sp.sign(sp.Subs(sp.Derivative(x ** 2 + sp.exp(x), x), x, p)), 1),)),
        Claim("ok.lim", "", (Equation(sp.Limit(2 * sp.atan(u), u, sp.oo), sp.pi),)),
        Claim("ok.cx", "", (Equation(sp.exp(sp.I * a) * sp.exp(-sp.I * a), 1),)),
        Claim("ok.w", "", (Equation(w(j + s - (i + s)), w(j - i)),)),
        Claim("ok.guard", "", (Equation(p * (x * p / p + 1 - x) ** sp.Rational(2, 3), p),)),
    ]
    report = check([export_claim(cl) for cl in true], assumptions=True, cache=False)
    assert [r.status for r in report.results] == ["checked"] * len(true), [
        (r.lemma.name, r.status, r.why) for r in report.results]


@needs_coquelicot
def test_the_registry_constructs_that_were_outside() -> None:
    """The determinants, the undefined function, the complex claims and a derivative and a limit
    of the registry: every equation checked."""
    from pe_symbolic import theorems

    ids = ("learned.no_translation", "shaw.clipped_shift_invariant", "rot2.det", "trig.angle_addition",
           "kernes.counting_unbounded", "kernes.slowed_dials")
    report = check([export_claim(theorems.get(t).claim()) for t in ids], cache=False)
    bad = [(r.lemma.name, r.status, r.why) for r in report.results if r.status != "checked"]
    assert not bad



@pytest.mark.skipif(not HAS_COQ, reason="Coq (coqc) is not installed")
def test_the_preamble_without_interval_and_without_coquelicot_compiles(tmp_path) -> None:
    import subprocess

    texts = [PREAMBLE_NO_COQUELICOT] + ([PREAMBLE_NO_INTERVAL] if coquelicot_installed() else [])
    for k, text in enumerate(texts):
        path = tmp_path / f"pre{k}.v"
        path.write_text(text)
        done = subprocess.run(["coqc", str(path)], capture_output=True, text=True, timeout=300, cwd=tmp_path)
        assert done.returncode == 0, done.stdout + done.stderr
