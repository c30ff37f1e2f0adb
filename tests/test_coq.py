"""The Coq export: the trusted printer round-trips, statements carry the right hypotheses,
constructs outside the fragment say why, and Coq rejects false claims (where Coq is installed).

The printer is the trusted part of the second kernel, so every construct it prints is read
back here by a small reader of the printed (fully parenthesised) syntax, written
independently of the printer, and compared with the SymPy expression it came from.
"""

from __future__ import annotations

import re
import shutil
import subprocess

import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import budget

from pe_symbolic import check_identity, theorems
from pe_symbolic.proof import Claim, Equation
from pe_symbolic.proof.coq import Env, OutsideFragment, to_coq_ast
from pe_symbolic.proof.coq_syntax import coq_text
from pe_symbolic.proof.coq_export import check, coq_file, export_claim

HAS_COQ = shutil.which("coqtop") is not None and shutil.which("coqc") is not None
needs_coq = pytest.mark.skipif(not HAS_COQ, reason="Coq (coqtop, coqc) is not installed")

x, y = sp.symbols("x y", real=True)
p = sp.Symbol("p", positive=True)
i = sp.Symbol("i", integer=True)
n = sp.Symbol("n", integer=True, nonnegative=True)
j = sp.Symbol("j", integer=True, nonnegative=True)
v = sp.IndexedBase("v", real=True)


# --------------------------------------------------------------------------------------
# A reader of the printed syntax (independent of the printer)
# --------------------------------------------------------------------------------------
_TOKEN = re.compile(r"\s*(%Z|=>|\(|\)|\+|\*|\^|-|/|:|[A-Za-z_][A-Za-z0-9_.']*|\d+)")


def _tokens(text: str) -> list[str]:
    out, pos = [], 0
    while pos < len(text):
        if text[pos:].strip() == "":
            break
        m = _TOKEN.match(text, pos)
        assert m, f"unreadable at {text[pos:pos + 20]!r}"
        out.append(m.group(1))
        pos = m.end()
    return out


class Reader:
    """Reads the printer's Coq syntax back into SymPy: every compound term is parenthesised."""

    FUN = {"sin": sp.sin, "cos": sp.cos, "tan": sp.tan, "exp": sp.exp, "ln": sp.log, "atan": sp.atan,
           "Rabs": sp.Abs, "sgn": sp.sign, "sqrt": sp.sqrt, "Rmax": sp.Max, "Rmin": sp.Min}

    def __init__(self, text: str, names: dict[str, sp.Basic], indices: dict[str, sp.Basic] | None = None) -> None:
        self.t, self.k, self.names, self.bound = _tokens(text), 0, dict(names), {}
        self.indices = dict(indices or {})  # the printer's fresh names of summation indices

    def peek(self) -> str:
        return self.t[self.k] if self.k < len(self.t) else ""

    def take(self, want: str | None = None) -> str:
        tok = self.t[self.k]
        assert want is None or tok == want, f"expected {want!r}, got {tok!r} at {self.t[self.k:self.k + 8]}"
        self.k += 1
        return tok

    def term(self) -> sp.Basic:
        tok = self.take()
        if tok.isdigit():
            return sp.Integer(tok)
        if tok == "PI":
            return sp.pi
        if tok != "(":
            return self.bound.get(tok) or self.names[tok]
        out = self.inner()
        self.take(")")
        if self.peek() == "%Z":
            self.take()
        return out

    def inner(self) -> sp.Basic:
        tok = self.peek()
        if tok == "-":
            self.take()
            return -self.term()
        if tok == "/":
            self.take()
            return 1 / self.term()
        if tok == "if":
            return self.ite()
        if tok in self.FUN:
            self.take()
            args = [self.term()]
            while self.peek() != ")":
                args.append(self.term())
            return self.FUN[tok](*args)
        if tok in ("IZR", "Rpower", "powerRZ", "delta", "sumZ", "prodZ") or isinstance(self.names.get(tok), sp.IndexedBase):
            self.take()
            if tok == "IZR":
                return self.term()
            if tok in ("Rpower", "powerRZ"):
                return self.term() ** self.term()
            if tok == "delta":
                return sp.KroneckerDelta(self.term(), self.term())
            if tok in ("sumZ", "prodZ"):
                lo, hi = self.term(), self.term()
                self.take("(")
                self.take("fun")
                name = self.take()
                self.take(":")
                self.take("Z")
                self.take("=>")
                var = self.indices.get(name) or sp.Symbol(name, integer=True)
                self.bound[name] = var
                body = self.term()
                self.take(")")
                del self.bound[name]
                return (sp.Sum if tok == "sumZ" else sp.Product)(body, (var, lo, hi))
            return self.names[tok][self.term()]
        first = self.term()
        op = self.peek()
        if op == ")":
            return first
        if op == "^":
            self.take()
            return first ** int(self.take())
        if op == "mod":
            self.take()
            return sp.Mod(first, self.term())
        if op == "/":  # a rational number p / q, or Z division
            self.take()
            return first / self.term() if not first.is_integer or first.is_Integer else sp.floor(first / self.term())
        args = [first]
        while self.peek() == op:
            self.take()
            args.append(self.term())
        return sp.Add(*args) if op == "+" else sp.Mul(*args)

    def ite(self) -> sp.Basic:
        self.take("if")
        dec = self.take()
        a, b = self.term(), self.term()
        cond = {"Z_le_dec": sp.Le, "Z_lt_dec": sp.Lt, "Z.eq_dec": sp.Eq, "Rle_dec": sp.Le, "Rlt_dec": sp.Lt,
                "Req_EM_T": sp.Eq}[dec](a, b)
        self.take("then")
        then = self.term()
        self.take("else")
        other = self.term()
        return sp.Piecewise((then, cond), (other, True))


def read_back(e: sp.Basic) -> sp.Basic:
    env = Env()
    text = coq_text(to_coq_ast(e, env))
    names = {name: sp.IndexedBase(s.name, real=True) if kind == "F" else s for name, (kind, s) in env.free.items()}
    r = Reader(text, names, {n: s for n, s in env.names.items() if n not in env.free})
    out = r.term()
    assert r.k == len(r.t), f"trailing tokens in {text!r}"
    return out


def same(a: sp.Basic, b: sp.Basic) -> bool:
    return a == b or sp.simplify(a - b) == 0


# --------------------------------------------------------------------------------------
# Round trips
# --------------------------------------------------------------------------------------
CONSTRUCTS = [
    x + y, x * y, x - 2 * y, sp.Rational(3, 7) * x, -x, x / y, x ** 3, y ** -2, sp.pi * x, sp.E,
    sp.sin(x + y), sp.cos(2 * x), sp.tan(x), sp.exp(x * y), sp.atan(x), sp.Abs(x - y), sp.sign(x),
    sp.log(p), p ** x, p ** sp.Rational(1, 3), sp.sqrt(p), sp.Max(x, y), sp.Min(x, y, 1),
    i * x, n ** 2 + i, sp.KroneckerDelta(i, n), sp.KroneckerDelta(i, n + 1) * x,
    sp.Sum(sp.cos(j * x), (j, 0, n)), sp.Product(1 + j * x, (j, 1, n)),
    sp.Sum(sp.KroneckerDelta(i, j) * sp.KroneckerDelta(j, n) * v[2 * j + 1], (j, 0, n)),
    v[i], v[2 * i + 1], v[i - n], (-1) ** i,
    sp.Piecewise((x, sp.Le(i, n - 1)), (y, True)), sp.Piecewise((x, x < y), (y, True)),
    sp.Piecewise((x, sp.Eq(sp.Mod(i, 2), 0)), (y, True)), v[sp.floor(i / 2)],
]


@pytest.mark.parametrize("e", CONSTRUCTS, ids=[sp.sstr(c)[:40] for c in CONSTRUCTS])
def test_every_construct_round_trips(e: sp.Basic) -> None:
    assert same(read_back(e), e)


def test_determinant_prints_as_ad_minus_bc() -> None:
    m = sp.ImmutableMatrix([[x, y], [sp.sin(x), 2]])
    assert read_back(sp.Determinant(m)) == sp.expand(m.det())


_ATOMS = st.sampled_from([x, y, p, i, n, sp.Integer(2), sp.Rational(-1, 3), sp.pi])


def _grow(children: st.SearchStrategy) -> st.SearchStrategy:
    return st.one_of(
        st.tuples(children, children).map(lambda t: t[0] + t[1]),
        st.tuples(children, children).map(lambda t: t[0] * t[1]),
        st.tuples(children, st.integers(-3, 3)).map(lambda t: t[0] ** t[1] if t[0] != 0 else t[0]),
        children.map(sp.sin), children.map(sp.cos), children.map(sp.exp), children.map(sp.Abs),
        children.map(lambda c: p ** c),
        st.tuples(children, children).map(lambda t: sp.Piecewise((t[0], sp.Le(i, n)), (t[1], True))),
        children.map(lambda c: sp.KroneckerDelta(i, n) * c),
    )


@settings(max_examples=budget(60), deadline=None)
@given(st.recursive(_ATOMS, _grow, max_leaves=8))
def test_random_expressions_round_trip(e: sp.Basic) -> None:
    if e.has(sp.zoo, sp.nan, sp.oo, -sp.oo):
        return
    try:
        back = read_back(e)
    except OutsideFragment:
        return
    assert same(back, e)


OUTSIDE = [
    (sp.Derivative(sp.sin(x), x, 2), "not a first derivative"),
    (sp.Sum(sp.Derivative(sp.sin(j * x), x), (j, 0, n)), "inside a sum"),
    (sp.Limit(1 / x, x, sp.oo), "Limit"),
    (sp.Symbol("z") + 1, "not declared real"),
    (sp.log(x), "not known to be positive"),
    ((-p) ** sp.Rational(1, 3), "not known to be positive"),
    (sp.Sum(x ** (j + sp.Rational(1, 3)), (j, 0, n)), "not known to be positive"),
    (sp.Piecewise((x, x > 0)), "otherwise"),
    (sp.Determinant(sp.ImmutableMatrix(7, 7, list(range(49)))), "up to 6x6"),
    (sp.Function("w")(x), "undefined function"),
    (sp.KroneckerDelta(x, y), "integer"),
    (sp.Sum(j, (j, 0, i)), "may run backwards"),
]


@pytest.mark.parametrize("e, why", OUTSIDE, ids=[w for _, w in OUTSIDE])
def test_outside_the_fragment_says_why(e: sp.Basic, why: str) -> None:
    with pytest.raises(OutsideFragment, match=why):
        to_coq_ast(e, Env())


def test_an_export_lists_what_is_outside_and_never_prints_it() -> None:
    c = Claim("demo.mixed", "two", (Equation(sp.sin(x) ** 2 + sp.cos(x) ** 2, 1),
                                    Equation(sp.Derivative(x ** 2, x, 2), 2)))
    ex = export_claim(c)
    assert ex.lemmas[0].statement and not ex.lemmas[0].outside
    assert ex.lemmas[1].outside.startswith("Derivative(x**2, (x, 2)) is not a first derivative")
    assert "outside the exported fragment" in coq_file([ex])


def test_statements_carry_the_assumptions() -> None:
    b = sp.Symbol("b", positive=True)
    h = sp.Symbol("h", integer=True, positive=True)
    c = Claim("demo.hyp", "", (Equation(b ** (n / h) * b ** (-n / h), 1),), (b > 1, sp.Le(n, h - 1), sp.Ne(x, 2)))
    stmt = export_claim(c).lemmas[0].statement
    assert "forall (b_1 x_1 : R) (h_1 n_1 : Z)," in stmt
    for hyp in ("0 < b_1", "(0 < h_1)%Z", "(0 <= n_1)%Z", "1 < b_1", "(n_1 <= ((-1) + h_1))%Z", "x_1 <> 2"):
        assert hyp in stmt, (hyp, stmt)


def test_matrix_equations_give_one_lemma_per_entry() -> None:
    ex = export_claim(theorems.get("rot2.orthogonal").claim())
    assert [lem.entry for lem in ex.lemmas] == [(0, 0), (0, 1), (1, 0), (1, 1)]


def test_every_d_foundation_is_printed_with_sums_over_pairs() -> None:
    ex = export_claim(theorems.get("translation.identity").claim())
    assert all(not lem.outside for lem in ex.lemmas)
    assert "sumZ 0 (((-1) + h_1))%Z (fun j_1 : Z => ((delta i_1 j_1) *" in ex.lemmas[0].statement
    assert "pe_sumZ_delta" in ex.lemmas[0].script


# --------------------------------------------------------------------------------------
# Coq itself
# --------------------------------------------------------------------------------------
t, k, w = sp.Symbol("t", real=True), sp.Symbol("k", real=True), sp.Symbol("omega", positive=True)
q0, q1, m_ = sp.symbols("q_0 q_1 m", real=True)

FALSE_CLAIMS = [
    ("sin(t + k) = sin t + sin k", sp.sin(t + k), sp.sin(t) + sp.sin(k)),
    ("cos(2x) = 2 cos(x)^2", sp.cos(2 * x), 2 * sp.cos(x) ** 2),
    ("RoPE with the wrong sign: first entry of R(m) q as q0 cos + q1 sin",
     sp.cos(m_ * w) * q0 - sp.sin(m_ * w) * q1, sp.cos(m_ * w) * q0 + sp.sin(m_ * w) * q1),
    ("a pair translated the wrong way: sin(w(t + k)) = sin(wt) cos(wk) - cos(wt) sin(wk)",
     sp.sin(w * (t + k)), sp.sin(w * t) * sp.cos(w * k) - sp.cos(w * t) * sp.sin(w * k)),
    ("b^x b^y = b^(x y)", p ** x * p ** y, p ** (x * y)),
]


@needs_coq
def test_coq_rejects_false_claims() -> None:
    exports = [export_claim(Claim(f"false.c{q}", what, (Equation(lhs, rhs),))) for q, (what, lhs, rhs) in
               enumerate(FALSE_CLAIMS)]
    report = check(exports)
    assert [r.status for r in report.results] == ["failed"] * len(FALSE_CLAIMS)


@needs_coq
def test_coq_checks_true_claims_and_an_every_d_theorem() -> None:
    exports = [export_claim(theorems.get(tid).claim()) for tid in ("pair.translation", "translation.identity")]
    exports.append(export_claim(Claim("true.double", "", (Equation(sp.cos(2 * x), 2 * sp.cos(x) ** 2 - 1),))))
    report = check(exports)
    assert report.counts() == {"checked": 9, "refuted": 0, "vacuous": 0, "failed": 0, "outside": 0}, [
        (r.lemma.name, r.status) for r in report.results]


@needs_coq
def test_a_registered_honest_negative_fails_in_coq() -> None:
    report = check([export_claim(theorems.get("dynamic.mixed_bases").claim())])
    assert {r.status for r in report.results} == {"failed"}


@needs_coq
def test_to_coq_compiles_with_coqc(tmp_path) -> None:
    proof = check_identity(sp.sin(x) ** 2 + sp.cos(x) ** 2, 1)
    path = tmp_path / "identity.v"
    path.write_text(proof.to_coq())
    done = subprocess.run(["coqc", str(path)], capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr


@needs_coq
def test_coqc_rejects_the_strict_file_of_a_false_claim(tmp_path) -> None:
    ex = export_claim(Claim("false.strict", "", (Equation(sp.sin(2 * x), 2 * sp.sin(x)),)))
    path = tmp_path / "false.v"
    path.write_text(coq_file([ex]))
    done = subprocess.run(["coqc", str(path)], capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert done.returncode != 0


FOUNDATION = ("translation.identity", "translation.independent", "translation.group", "sinusoidal.dot",
              "rope.relative", "rope.efficient_form", "layout.permutation", "schedule.geometric", "family.relative")


@needs_coq
@pytest.mark.slow
def test_the_registry_in_coq() -> None:
    ths = theorems.all()
    report = check([export_claim(th.claim(), refute=th.expect == "refuted") for th in ths])
    by = report.by_claim()
    for tid in FOUNDATION:
        assert {r.status for r in by[tid]} == {"checked"}, tid
    c = report.counts()
    assert c["checked"] + c["refuted"] >= 0.9 * sum(c.values()), c
    negatives = {th.id for th in ths if th.expect == "refuted"}
    # every honest negative is refuted in Coq; nothing expected to hold is
    assert all(any(r.status == "refuted" for r in by[tid]) for tid in negatives)
    assert not [r.lemma.name for tid, rs in by.items() if tid not in negatives for r in rs if r.status == "refuted"]


def test_the_preamble_names_each_lemma_and_tactic_once() -> None:
    """Two blocks of the preamble declaring one name (two lemmas ``pe_mul_pn`` with their
    hypotheses swapped were merged once): coqtop goes on after the error, the first statement
    wins and the scripts written for the second fail. ``Ltac name ::=`` redefines on purpose."""
    import re
    from collections import Counter

    from pe_symbolic.proof.coq_preamble import PREAMBLE, PREAMBLE_NO_COQUELICOT, PREAMBLE_NO_INTERVAL

    for text in (PREAMBLE, PREAMBLE_NO_INTERVAL, PREAMBLE_NO_COQUELICOT):
        names = re.findall(r"^(?:Lemma|Theorem|Corollary|Definition|Fixpoint|Ltac)\s+(\w+)\s*(?!::=)\S", text, re.M)
        twice = sorted(n for n, c in Counter(names).items() if c > 1)
        assert not twice, twice


@needs_coq
def test_the_preamble_compiles_on_its_own(tmp_path) -> None:
    """A preamble that does not compile would make every lemma fail (never pass): caught here."""
    from pe_symbolic.proof.coq_preamble import PREAMBLE, PREAMBLE_NO_INTERVAL
    from pe_symbolic.proof.coq_export import interval_installed

    assert "From Interval" not in PREAMBLE_NO_INTERVAL and "Import PeI" not in PREAMBLE_NO_INTERVAL
    assert "Ltac pe_interval := fail." in PREAMBLE_NO_INTERVAL
    for name, text in (("preamble.v", PREAMBLE), ("preamble_no_interval.v", PREAMBLE_NO_INTERVAL)):
        if text is PREAMBLE and not interval_installed():
            continue  # Coq without libcoq-interval: check() uses the other one
        path = tmp_path / name
        path.write_text(text)
        done = subprocess.run(["coqc", str(path)], capture_output=True, text=True, timeout=120, cwd=tmp_path)
        assert done.returncode == 0, done.stdout + done.stderr


# --------------------------------------------------------------------------------------
# Command line
# --------------------------------------------------------------------------------------
def test_cli_export_writes_one_file_per_theorem(tmp_path, capsys) -> None:
    from pe_symbolic.cli.derive import main

    assert main(["export", "--coq", "pair.dot", "sphere.radius", "-o", str(tmp_path)]) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pair_dot.v", "sphere_radius.v"]
    assert "Lemma pe_pair_dot_e0" in (tmp_path / "pair_dot.v").read_text()
    assert ("outside the exported fragment: 1/2 is not printed as an integer term"
            in (tmp_path / "sphere_radius.v").read_text())
    assert "4 lemma(s) printed, 1 outside" in capsys.readouterr().err


@pytest.mark.parametrize("argv, msg", [
    (["export", "pair.dot"], "export needs --coq"),
    (["check"], "check needs exactly one certificate FILE"),
    (["check", "--coq", "--jobs", "0", "pair.dot"], "--jobs='0' must be a positive integer"),
    (["check", "--coq", "no.such.theorem"], "no.such.theorem"),
])
def test_cli_usage_errors_exit_2(argv: list[str], msg: str, capsys, monkeypatch) -> None:
    from pe_symbolic.cli.derive import main
    from pe_symbolic.proof import coq_export

    monkeypatch.setattr(coq_export, "coqtop_path", lambda: "/usr/bin/coqtop")
    assert main(argv) == 2
    assert msg in capsys.readouterr().err


def test_cli_check_without_coq_exits_3(capsys, monkeypatch) -> None:
    from pe_symbolic.cli.derive import main
    from pe_symbolic.proof import coq_export

    monkeypatch.setattr(coq_export, "coqtop_path", lambda: None)
    assert main(["check", "--coq", "pair.dot"]) == 3
    assert "Coq is not installed" in capsys.readouterr().err


@needs_coq
def test_cli_check_reports_per_claim_and_equation(capsys) -> None:
    from pe_symbolic.cli.derive import main

    assert main(["check", "--coq", "pair.dot", "sphere.radius", "dynamic.mixed_bases"]) == 0
    out = capsys.readouterr().out
    assert "pair.dot: coq: checked (2 of 2)" in out
    assert ("equation 1 [pe_sphere_radius_e1]: coq: outside the exported fragment (1/2 is not printed as an "
            "integer term" in out)
    assert "dynamic.mixed_bases: coq: refuted, as registered (1 refuted, 0 proved)" in out
    assert re.search(r"summary: 5 of 6 equations checked by Coq \(83\.3%\): 4 proved, 1 refuted \(registered honest "
                     r"negatives\), 0 vacuous \(.*\), 0 failed, 1 outside .*coqtop \d", out)


def test_a_substitution_is_printed_without_capture_or_refused() -> None:
    j, n = sp.symbols("j n", integer=True, nonnegative=True)
    xr = sp.Symbol("x", real=True)
    # x := j inside a sum over j would capture the index: refused, never printed
    with pytest.raises(OutsideFragment, match="bound inside"):
        to_coq_ast(sp.Subs(sp.Sum(xr * j, (j, 0, n)), xr, j), Env())
    # otherwise the expression with x replaced, node for node (nothing evaluated on the way)
    assert coq_text(to_coq_ast(sp.Subs(xr**2 + 1, xr, 3), Env())) == "(1 + (3 ^ 2))"  # not 10: Coq computes


@needs_coq
def test_coq_rejects_a_false_substitution_and_a_false_max() -> None:
    xr = sp.Symbol("x", real=True)
    false = [Equation(sp.Subs(xr**2, xr, 3), 8), Equation(sp.Max(-3, sp.Min(3, xr)), 3)]
    true = [Equation(sp.Subs(xr**2, xr, 3), 9), Equation(sp.Subs(sp.Max(-3, sp.Min(3, xr)), xr, -8), -3)]
    bad = check([export_claim(Claim(f"false.s{q}", "", (e,))) for q, e in enumerate(false)])
    assert [r.status for r in bad.results] == ["failed", "failed"]
    good = check([export_claim(Claim(f"true.s{q}", "", (e,))) for q, e in enumerate(true)])
    assert [r.status for r in good.results] == ["checked", "checked"]


# --------------------------------------------------------------------------------------
# Interval and the power/log rules; vacuous in the reports; the cache of Coq's answers
# --------------------------------------------------------------------------------------
def _sign_claim(cid: str, bound: sp.Rational, f: sp.Basic) -> Claim:
    """``sign(bound - f) = 1`` as the registry writes it: unevaluated, for Coq to decide."""
    return Claim(cid, "", (Equation(sp.sign(sp.Add(bound, -f, evaluate=False), evaluate=False), sp.Integer(1)),))


@needs_coq
def test_interval_proves_numeric_bounds_with_the_standard_axioms_only() -> None:
    from pe_symbolic.proof.coq_export import interval_installed

    if not interval_installed():
        pytest.skip("Coq's Interval package (libcoq-interval) is not installed")
    # sin 1 = 0.8414709848...: Interval (floats over Coq's integers, never the primitive
    # floats) proves the true bounds and none of the false ones; Print Assumptions lists only
    # the axioms of Coq's reals.
    true = [_sign_claim("num.sin1", sp.Rational(21037, 25000), sp.sin(1)),
            _sign_claim("num.cos1", sp.Rational(54031, 100000), sp.cos(1)),
            _sign_claim("num.ln2", sp.Rational(6932, 10000), sp.log(2))]
    false = [_sign_claim("num.sin1_low", sp.Rational(84147, 100000), sp.sin(1)),
             _sign_claim("num.cos1_low", sp.Rational(54030, 100000), sp.cos(1)),
             _sign_claim("num.ln2_low", sp.Rational(6931, 10000), sp.log(2))]
    report = check([export_claim(c) for c in true + false], assumptions=True)
    assert [r.status for r in report.results] == ["checked"] * 3 + ["failed"] * 3, [
        (r.lemma.name, r.status, r.why) for r in report.results]


def test_a_lemma_may_not_call_interval_itself() -> None:
    """The bare tactic may compute with the kernel's primitive floats (axioms beyond the reals'):
    a lemma reaches Interval only through the preamble's pe_interval."""
    from dataclasses import replace

    from pe_symbolic.proof.coq_export import depends_on_preamble_only

    lem = export_claim(_sign_claim("num.sin1", sp.Rational(21037, 25000), sp.sin(1))).lemmas[0]
    assert depends_on_preamble_only(lem) == ""
    for tac in ("interval", "interval with (i_prec 53)", "integral", "interval with (i_native_compute)"):
        assert depends_on_preamble_only(replace(lem, script=f"intros; {tac}")), tac


@needs_coq
def test_powers_of_powers_and_logs_of_products() -> None:
    b = sp.Symbol("b", positive=True)
    s = sp.Symbol("s", positive=True)
    pp = sp.Pow(sp.Pow(b, x, evaluate=False), y, evaluate=False)
    lg = sp.log(sp.Mul(b, s, evaluate=False), evaluate=False)
    true = [Equation(pp, b ** (x * y)), Equation(lg, sp.log(b) + sp.log(s)),
            Equation(sp.exp(x * sp.log(s), evaluate=False), s ** x)]
    false = [Equation(pp, b ** (x + y)), Equation(lg, sp.log(b) * sp.log(s)),
             Equation(sp.exp(x * sp.log(s), evaluate=False), s ** (x + 1))]
    report = check([export_claim(Claim(f"pow.t{q}", "", (e,))) for q, e in enumerate(true)]
                   + [export_claim(Claim(f"pow.f{q}", "", (e,))) for q, e in enumerate(false)])
    assert [r.status for r in report.results] == ["checked"] * 3 + ["failed"] * 3, [
        (r.lemma.statement, r.status) for r in report.results]


@needs_coq
def test_cli_check_counts_and_shows_vacuous(capsys, monkeypatch) -> None:
    """A lemma proved from contradictory hypotheses is counted as vacuous, never as checked,
    and `check --coq` exits 1 for it."""
    import types

    from pe_symbolic.cli import _coq
    from pe_symbolic.cli.derive import main

    pt = sp.Symbol("pt", real=True)
    claim = Claim("pair.dot", "", (Equation(pt, pt),), (pt > 2, pt < 1))
    th = types.SimpleNamespace(id="pair.dot", expect="proved", claim=lambda: claim)
    monkeypatch.setattr(_coq, "_exports", lambda ids: ([th], [export_claim(claim)]))
    assert main(["check", "--coq", "pair.dot"]) == 1
    out = capsys.readouterr().out
    assert "pair.dot: 1 vacuous (of 1)" in out
    assert "equation 0 [pe_pair_dot_e0]: coq: vacuous (" in out
    assert re.search(r"summary: 0 of 1 equations checked by Coq \(0\.0%\): 0 proved, 0 refuted \(registered honest "
                     r"negatives\), 1 vacuous \(", out)


@needs_coq
def test_coq_answers_are_cached_by_content(tmp_path, monkeypatch) -> None:
    """A second run answers from the cache without Coq; a statement that differs (a false
    variant) is a different key, asked again; a cache folder others may write is not read."""
    import os

    from pe_symbolic.proof import coq_export

    monkeypatch.setenv("PE_SYMBOLIC_CACHE_DIR", str(tmp_path))
    good = export_claim(Claim("cache.good", "", (Equation(sp.cos(2 * x), 2 * sp.cos(x) ** 2 - 1),)))
    bad = export_claim(Claim("cache.bad", "", (Equation(sp.sin(2 * x), 2 * sp.sin(x)),)))
    assert [r.status for r in check([good, bad]).results] == ["checked", "failed"]
    assert len(list((tmp_path / "coq").rglob("*.json"))) == 2

    def no_coq(*args, **kwargs):
        raise AssertionError("Coq was asked again")

    monkeypatch.setattr(coq_export.subprocess, "Popen", no_coq)
    assert [r.status for r in check([good, bad]).results] == ["checked", "failed"]
    variant = export_claim(Claim("cache.good", "", (Equation(sp.cos(2 * x), 2 * sp.cos(x) ** 2),)))
    with pytest.raises(AssertionError, match="asked again"):
        check([variant])
    with pytest.raises(AssertionError, match="asked again"):
        check([good], cache=False)
    os.chmod(tmp_path / "coq", 0o777)
    with pytest.raises(AssertionError, match="asked again"):
        check([good])


def test_coq_output_is_cut_at_the_markers() -> None:
    """What Coq said about each question is read between its marker and the next one: a
    timeout in one question's output is that question's (and is never stored)."""
    from pe_symbolic.proof.coq_export import _segments

    out = ("pe_m0 is defined\npe_ok_0 is defined\npe_m1 is defined\nError: Timeout!\n"
           "pe_m2 is defined\n")
    segs = _segments(out)
    assert sorted(segs) == [0, 1, 2]
    assert "pe_ok_0" in segs[0] and "Timeout!" not in segs[0]
    assert "Timeout!" in segs[1] and segs[2].strip() == ""


@needs_coq
def test_the_preamble_shadows_no_name_the_printer_uses(tmp_path) -> None:
    """Importing Interval's tactic module must not change what a printed statement means: every
    function and constant the printer writes still names Coq's own (Reals, ZArith)."""
    from pe_symbolic.proof.coq_export import preamble

    names = ("sin cos tan exp ln sqrt Rabs Rmax Rmin Rpower atan PI IZR powerRZ Rle_dec Rlt_dec Req_EM_T cosh sinh "
             "Z_le_dec Z_lt_dec derivable_pt_lim R Z Rplus Rmult Ropp Rminus Rdiv pow").split()
    path = tmp_path / "names.v"
    path.write_text(preamble() + "\n" + "".join(f"Check tt.\nLocate {n}.\n" for n in names))
    done = subprocess.run(["coqc", str(path)], capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    first = [block.splitlines()[0] for block in done.stdout.split("tt\n     : unit\n")[1:]]
    assert len(first) == len(names), done.stdout[:2000]
    for n, line in zip(names, first):
        assert re.match(rf"(Constant|Inductive) Coq\.(Reals|ZArith|Numbers)\.[\w.]*\b{n}$", line), (n, line)
