r"""Tactic scripts for the printed lemmas (:mod:`pe_symbolic.proof.coq`): untrusted search.

A script is generated from the printed terms (the :data:`~pe_symbolic.proof.coq.Node` trees)
and checked by Coq, so nothing here is trusted: a wrong script makes a lemma fail, never pass.
The script follows the shape of the goal:

* a ``Piecewise`` whose condition the hypotheses decide: rewrite it to the branch (``lia``,
  ``lra``), trying the true branch, then the false one;
* a sum ``sumZ lo hi (fun j => delta i j * f j)`` (pair ``i`` of a block-diagonal matrix
  times a vector): the term ``f i`` (lemma ``pe_sumZ_delta``, proved by induction in the
  preamble); two sums over the same range: termwise (``pe_sumZ_ext``); a sum of a term equal
  to a constant: ``(hi - lo + 1) c`` (``pe_sumZ_const``);
* a Kronecker delta left on both sides: the two cases ``i = l`` and ``i <> l``;
* then the scalar identity: every ``sin``/``cos`` argument is rewritten (by ``ring``/``field``)
  as a sum of units, angle addition expands it, and the difference of the two sides is
  written as a combination of ``sin u ^ 2 + cos u ^ 2 - 1`` (the coefficients found by SymPy's
  polynomial division, and checked by Coq's ``ring``); powers ``Rpower b (x + y)`` and
  ``exp (x + y)`` are split the same way; ``ring`` or ``field`` closes the goal.

>>> import sympy as sp
>>> from pe_symbolic.proof.coq import Env, to_coq_ast
>>> a, c = sp.symbols("a c", real=True)
>>> env = Env()
>>> s = script(to_coq_ast(sp.sin(2 * a), env), to_coq_ast(2 * sp.sin(a) * sp.cos(a), env))
>>> "sin_plus" in s
True
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterator

import sympy as sp

from .coq import Env, Node, OutsideFragment, to_coq_ast
from .coq_analysis import analysis_script
from .coq_syntax import coq_text, zcoq
from .coq_terms import Atoms, arith, back_to_term, first_of, map_term, replace_term, subst_z, walk, walk_free

__all__ = ["script"]

_TRIG = ("sin", "cos")
_EXPAND_POW = ("repeat (first [rewrite Rpower_plus | rewrite Rpower_Ropp | rewrite exp_plus "
               "| rewrite exp_Ropp | rewrite exp_0 | (rewrite Rpower_O by pe_sign) | (rewrite Rpower_1 by pe_sign)])")


def script(lhs: Node, rhs: Node) -> str:
    """A tactic (one Ltac expression) that should prove ``lhs = rhs`` after ``intros``."""
    special = analysis_script(lhs, rhs, _goal)  # derivatives inside, complex sides (issue 36)
    if special is not None:
        return special
    return "intros; " + _goal(lhs, rhs, 0)


# --------------------------------------------------------------------------------------
# Structure: Piecewise, sums, deltas
# --------------------------------------------------------------------------------------
def _goal(L: Node, R: Node, depth: int) -> str:
    if L[0] == "deriv":
        return _derivative(L[1], L[2], R, depth)
    if L == R:
        return "reflexivity"
    if depth > 8:
        return "fail"
    heads = _unfold_heads(L, R)
    if heads is not None:
        steps, L2, R2 = heads
        return steps + _goal(L2, R2, depth + 1)
    root = _root(L, R, depth)
    if root is not None:
        return root
    ints = _integer_powers(L, R)
    if ints is not None:
        steps, L2, R2 = ints
        return steps + _goal(L2, R2, depth + 1)
    for fn, cases in _CASES.items():
        app = next((x for side in (L, R) for x in walk(side) if x[0] == "app" and x[1] == fn), None)
        if app is not None:
            return _branch(L, R, app, cases, depth)
    ite = first_of(L, "ite") or first_of(R, "ite")
    if ite is not None:
        return _ite(L, R, ite[1], depth)
    if L[0] in ("sum", "prod") or R[0] in ("sum", "prod"):
        return _sums(L, R, depth)
    delta = next((x for side in (L, R) for x in walk(side) if x[0] == "delta" and x[1] != x[2]), None)
    if delta is not None and not any(x[0] in ("sum", "prod") for side in (L, R) for x in walk(side)):
        return _cases(L, R, delta, depth)
    return _scalar(L, R)


def _derivative(x: str, f: Node, slope: Node, depth: int) -> str:
    """``derivable_pt_lim (fun x => f) x slope`` for ``f`` constant or affine in ``x``: every
    difference quotient ``(f(x + h) - f(x)) / h`` is then exactly the slope."""
    zero = ("num", 0, 1)
    if ("var", x) not in walk(f):
        return "apply derivable_pt_lim_const" if slope == zero else "fail"
    quotient = "intros eps Heps; exists (mkposreal 1 Rlt_0_1); intros hh Hh Hlt; cbv beta; "
    close = ("match goal with |- Rabs ?e < _ => replace e with 0 by (field; pe_nz) end; "
             "rewrite Rabs_R0; assumption")
    if slope != zero:
        return quotient + close if _affine_with_slope(f, x, slope) else "fail"
    # f depends on x only in form: f(x) = f(0) for every x, proved as an equation
    f0 = map_term(f, lambda n: zero if n == ("var", x) else None)
    return (f"assert (Hc : forall {x} : R, {coq_text(f)} = {coq_text(f0)}) by (clear dependent {x}; "
            f"intros {x}; {_goal(f, f0, depth + 1)}); " + quotient
            + f"rewrite (Hc ({x} + hh)), (Hc {x}); " + close)


def _affine_with_slope(f: Node, x: str, slope: Node) -> bool:
    """Whether ``f`` is ``a + slope * x`` with ``a``, ``slope`` free of ``x`` (SymPy's opinion)."""
    try:
        e, atoms = _to_sympy(("add", (f, ("neg", ("mul", (slope, ("var", x)))))))
        xs = atoms.sym.get(x)
        return xs is not None and sp.simplify(sp.diff(e, xs)) == 0
    except Exception:  # noqa: BLE001 - an untrusted search
        return False


def _app1(f: str, a: Node) -> Node:
    return ("app", f, (a,))


#: The textbook's heads as Coq defines them (``Rtrigo1``, ``Rtrigo_def``), each as the preamble's
#: lemma states it: (lemma, the term an application becomes).
_HEADS: dict[str, tuple[str, Callable[[Node], Node]]] = {
    "tan": ("pe_tan_def", lambda a: ("mul", (_app1("sin", a), ("inv", _app1("cos", a))))),
    "sinh": ("pe_sinh_def", lambda a: ("mul", (("add", (_app1("exp", a), ("neg", _app1("exp", ("neg", a))))),
                                              ("inv", ("num", 2, 1))))),
    "cosh": ("pe_cosh_def", lambda a: ("mul", (("add", (_app1("exp", a), _app1("exp", ("neg", a)))),
                                              ("inv", ("num", 2, 1))))),
    "tanh": ("pe_tanh_def", lambda a: ("mul", (_app1("sinh", a), ("inv", _app1("cosh", a))))),
}


def _unfold_heads(L: Node, R: Node) -> tuple[str, Node, Node] | None:
    """``tan``, ``sinh``, ``cosh``, ``tanh`` unfolded to Coq's definitions (in the goal and the
    hypotheses, where their definedness is stated): ``tan u`` is ``sin u * / cos u``, ``sinh u``
    is ``(exp u - exp (- u)) / 2``, ... The quotients are then proved by ``field``, with the
    nonzero denominators from the hypotheses (``pe_nz_hyp``)."""
    apps = sorted({n for side in (L, R) for n in walk_free(side) if n[0] == "app" and n[1] in _HEADS},
                  key=lambda n: (-len(coq_text(n)), coq_text(n)))
    if not apps:
        return None
    n = next((a for a in apps if a[1] == "tanh"), apps[0])  # tanh first: it unfolds to sinh / cosh
    lemma, body = _HEADS[n[1]]
    new = body(n[2][0])
    return (f"rewrite ?({lemma} {coq_text(n[2][0])}) in *; ", replace_term(L, n, new), replace_term(R, n, new))


def _joined_powers(L: Node, R: Node) -> tuple[str, Node, Node] | None:
    """A product with factors ``Rpower b e1``, ``Rpower b e2`` whose exponents add up to an
    integer ``k`` (SymPy's opinion): the two joined (``Rpower_plus``) into ``b ^ k``."""
    for side in (L, R):
        for n in walk_free(side):
            if n[0] != "mul":
                continue
            pw = [f for f in n[1] if f[0] == "app" and f[1] == "Rpower"]
            for a in range(len(pw)):
                for c in range(a + 1, len(pw)):
                    f1, f2 = pw[a], pw[c]
                    if f1[2][0] != f2[2][0]:
                        continue
                    try:
                        e, _ = _to_sympy(("add", (f1[2][1], f2[2][1])))
                    except Exception:  # noqa: BLE001 - an untrusted search
                        continue
                    if not (e.is_Integer and abs(int(e)) <= 64):
                        continue
                    k = int(e)
                    b = f1[2][0]
                    powk = ("pow", b, k) if k >= 0 else ("inv", ("pow", b, -k))
                    kz = str(k) if k >= 0 else f"({k})"
                    rest = list(n[1])
                    rest.remove(f1)
                    rest.remove(f2)
                    new = ("mul", (*rest, powk))
                    sum_e = f"({coq_text(f1[2][1])} + {coq_text(f2[2][1])})"
                    step = (f"assert (pe_H : {coq_text(f1)} * {coq_text(f2)} = {coq_text(powk)}) by "
                            f"(rewrite <- Rpower_plus, (pe_Rpower_IZR {coq_text(b)} {sum_e} {kz}%Z) by "
                            f"first [pe_pos | pe_close_div]; reflexivity); "
                            f"replace {coq_text(n)} with {coq_text(new)} by (rewrite <- pe_H; ring); clear pe_H; ")
                    return step, replace_term(L, n, new), replace_term(R, n, new)
    return None


def _is_half(n: Node) -> bool:
    return n == ("num", 1, 2)


def _root(L: Node, R: Node, depth: int) -> str | None:
    """``sqrt x = y`` and ``Rpower x (1/2) = y``: ``x = y ^ 2`` with ``y`` nonnegative (positive
    for ``Rpower``, where ``x = 0`` gives ``exp 0 = 1``), lemmas ``pe_sqrt_eq`` and
    ``pe_Rpower_half_eq`` of the preamble. The square's side is proved by the scripts, an
    absolute value in it by ``|a| |a| = a a`` (``pe_Rabs_sqr``, handed to ``nra``)."""
    for A, B, sym in ((L, R, ""), (R, L, "symmetry; ")):
        if A[0] != "app":
            continue
        if A[1] == "sqrt":
            lemma, sign = "pe_sqrt_eq", "pe_nonneg"
        elif A[1] == "Rpower" and _is_half(A[2][1]):
            lemma, sign = "pe_Rpower_half_eq", "pe_sign"
        else:
            continue
        if any(n[0] == "app" and n[1] in ("sqrt", "Rpower", "exp", "ln") for n in walk(B)):
            return None  # roots or powers on the other side too: the power scripts
        x, sq = A[2][0], ("pow", B, 2)
        absv = sorted({coq_text(n[2][0]) for n in walk(B) if n[0] == "app" and n[1] == "Rabs"})
        hint = "".join(f"pose proof (pe_Rabs_sqr {a}); " for a in absv)
        square = f"first [({hint}nra) | ({_goal(x, sq, depth + 1)})]" if absv else _goal(x, sq, depth + 1)
        return f"{sym}apply {lemma}; [{sign} | {square}]"
    return None


def _integer_powers(L: Node, R: Node) -> tuple[str, Node, Node] | None:
    """``Rpower b e`` whose exponent is an integer ``k`` (SymPy's opinion, ``-8 n / n``; Coq
    checks ``e = IZR k``, which for a quotient needs its denominator nonzero) rewritten as
    ``b ^ k`` or ``/ b ^ -k`` (``pe_Rpower_IZR``, then ``powerRZ`` computed by ``change``)."""
    found = []
    for side in (L, R):
        for n in walk_free(side):
            if n[0] == "app" and n[1] == "Rpower" and n not in found and n[2][1][0] != "num":
                try:
                    e, _ = _to_sympy(n[2][1])
                except Exception:  # noqa: BLE001 - an untrusted search
                    continue
                if e.is_Integer and abs(int(e)) <= 64:
                    found.append((n, int(e)))
    steps = []
    if not found:
        joined = _joined_powers(L, R)
        if joined is None:
            return None
        return joined

    for n, k in found:
        b, e = n[2]
        new = ("pow", b, k) if k >= 0 else ("inv", ("pow", b, -k))
        kz = str(k) if k >= 0 else f"({k})"
        steps.append(f"rewrite (pe_Rpower_IZR {coq_text(b)} {coq_text(e)} {kz}%Z) by "
                     f"first [pe_pos | pe_close_div]; change (powerRZ {coq_text(b)} {kz}%Z) with {coq_text(new)}; ")
        L, R = replace_term(L, n, new), replace_term(R, n, new)
    return "".join(steps), L, R


_ONE, _ZERO = ("num", 1, 1), ("num", 0, 1)
#: Functions decided by the sign of their argument: (lemma, what the application becomes).
_CASES: dict[str, tuple[tuple[str, Callable[[Node], Node]], ...]] = {
    "sgn": (("pe_sgn_pos", lambda a: _ONE), ("pe_sgn_neg", lambda a: ("num", -1, 1)),
            ("pe_sgn_zero", lambda a: _ZERO)),
    "Rabs": (("Rabs_pos_eq", lambda a: a), ("Rabs_left1", lambda a: ("neg", a))),
}


def _branch(L: Node, R: Node, app: Node, cases: tuple[tuple[str, Callable[[Node], Node]], ...], depth: int) -> str:
    arg = app[2][0]
    out = []
    sign = _numeric_sign(arg)
    if sign is not None:  # a number: only the case it is in (the search may pick; Coq checks)
        cases = tuple(c for c in cases if c[0] in _SIGN_LEMMAS[sign])
    # a logarithm or a quotient in the argument: also factor by factor (pe_sign_struct)
    tac = "pe_sign" if sign is not None or not any(x[0] == "inv" or (x[0] == "app" and x[1] == "ln")
                                                    for x in walk(arg)) else "first [pe_sign | pe_sign_struct]"
    for lemma, value in cases:
        new = value(arg)
        L2, R2 = replace_term(L, app, new), replace_term(R, app, new)
        out.append(f"(rewrite ({lemma} {coq_text(arg)}) by {tac}; {_goal(L2, R2, depth + 1)})")
    return "first [" + " | ".join(out) + "]"


_SIGN_LEMMAS = {1: ("pe_sgn_pos", "Rabs_pos_eq"), -1: ("pe_sgn_neg", "Rabs_left1"),
                0: ("pe_sgn_zero", "Rabs_pos_eq")}


def _numeric_sign(n: Node) -> int | None:
    """The sign of a closed term (no variables), by SymPy at 30 digits; None if not closed."""
    try:
        e, atoms = _to_sympy(n)
        if e.free_symbols:
            return None
        v = sp.N(e, 30)
        if not v.is_number or not v.is_real:
            return None
        if v == 0:
            return 0 if sp.simplify(e) == 0 else None
        return 1 if v > 0 else -1
    except Exception:  # noqa: BLE001 - an untrusted search
        return None


def _ite(L: Node, R: Node, cond: Node, depth: int) -> str:
    kind = cond[0]
    dec = "lia" if kind[0] == "z" else "(first [lra | nra])"
    pr = zcoq if kind[0] == "z" else coq_text
    args = f"{pr(cond[1])} {pr(cond[2])}"
    branches = []
    for which, pick in (("t", 2), ("f", 3)):
        def take(x: Node, pick: int = pick) -> Node | None:
            return x[pick] if x[0] == "ite" and x[1] == cond else None
        L2, R2 = map_term(L, take), map_term(R, take)
        branches.append(f"(rewrite !(pe_if_{kind}_{which} {args}) by {dec}; {_goal(L2, R2, depth + 1)})")
    return "first [" + " | ".join(branches) + "]"


def _sums(L: Node, R: Node, depth: int) -> str:
    if L[0] not in ("sum", "prod"):
        return "symmetry; " + _sums(R, L, depth)
    kind, j, lo, hi, body = L
    jz = ("zvar", j)
    pre = "pe_sumZ" if kind == "sum" else "pe_prodZ"
    geom = _geometric(L)
    if geom is not None:  # sum of b^q, 0 <= q <= n - 1, times (b - 1) is b^n - 1 (pe_sumZ_geom)
        b, n = geom
        bm1 = f"({coq_text(b)} - 1)"
        return (f"apply (Rmult_eq_reg_r {bm1}); [rewrite (pe_sumZ_geom {coq_text(b)} {zcoq(n)}) "
                f"by first [pe_pos | lia]; pe_close | pe_nz]")
    if kind == "sum" and body[0] == "mul" and len(body[1]) == 2 and body[1][0][0] == "delta":
        d, rest = body[1]
        lemma, i = None, None
        if d[2] == jz and jz not in walk(d[1]):
            lemma, i = "pe_sumZ_delta", d[1]
        elif d[1] == jz and jz not in walk(d[2]):
            lemma, i = "pe_sumZ_delta_r", d[2]
        if lemma is not None:
            assert i is not None
            if rest[0] == "mul" and len(rest[1]) == 2 and rest[1][0][0] == "delta" and rest[1][0][1] == jz \
                    and jz not in walk(rest[1][0][2]):
                l_ = rest[1][0][2]
                new = ("mul", (("delta", i, l_), subst_z(rest[1][1], j, i)))
                lemma += "2" if lemma == "pe_sumZ_delta" else ""
                if lemma == "pe_sumZ_delta_r":
                    lemma = "pe_sumZ_delta2_r"
            else:
                new = subst_z(rest, j, i)
            return (f"rewrite ({lemma} {zcoq(lo)} {zcoq(hi)} {zcoq(i)}) by lia; cbv beta; "
                    + _goal(new, R, depth + 1))
    if R[0] == kind and R[2] == lo and R[3] == hi:
        rbody = R[4] if R[1] == j else subst_z(R[4], R[1], jz)
        return f"apply {pre}_ext; intros {j} H{j}; cbv beta; " + _goal(body, rbody, depth + 1)
    const = _constant(body, j)
    if const is not None:
        fn = f"(fun {j} : Z => {coq_text(body)})"
        cf = f"(fun _ : Z => {coq_text(const)})"
        inner = f"intros {j} H{j}; cbv beta; " + _goal(body, const, depth + 1)
        ext = "" if body == const else f"rewrite ({pre}_ext {zcoq(lo)} {zcoq(hi)} {fn} {cf}) by ({inner}); "
        if kind == "sum":
            return ext + "rewrite pe_sumZ_const by lia; rewrite ?plus_IZR, ?minus_IZR, ?opp_IZR, ?mult_IZR; pe_close"
        if const == ("num", 1, 1):
            return ext + "rewrite pe_prodZ_one; pe_close"
    return "fail"


def _geometric(S: Node) -> tuple[Node, Node] | None:
    """``(b, n)`` when ``S`` is ``sumZ 0 (-1 + n) (fun q => Rpower b (IZR q))``."""
    kind, j, lo, hi, body = S
    if kind != "sum" or lo != ("znum", 0) or hi[0] != "zadd" or len(hi[1]) != 2 or hi[1][0] != ("znum", -1):
        return None
    if body[0] == "app" and body[1] == "Rpower" and body[2][1] == ("izr", ("zvar", j)) \
            and ("zvar", j) not in walk(body[2][0]) and ("zvar", j) not in walk(hi[1][1]):
        return body[2][0], hi[1][1]
    return None


def _constant(body: Node, j: str) -> Node | None:
    """The constant a summand equals (found by SymPy, checked by Coq), if it is one: the
    summand itself when it does not mention the index."""
    if ("zvar", j) not in walk(body):
        return body

    try:
        e, back = _to_sympy(body)
        c = sp.simplify(e)
    except Exception:  # noqa: BLE001 - an untrusted search: no constant found
        return None
    if c.free_symbols or not c.is_Rational:
        return None
    try:
        return to_coq_ast(c, Env())
    except OutsideFragment:
        return None


def _cases(L: Node, R: Node, delta: Node, depth: int) -> str:
    a, b = delta[1], delta[2]
    if b[0] == "zvar":
        var, val = b[1], a
    elif a[0] == "zvar":
        var, val = a[1], b
    else:
        return _scalar(L, R)
    one, zero = ("num", 1, 1), ("num", 0, 1)

    def eq_branch(x: Node) -> Node | None:
        return one if x[0] == "delta" and x[1] == x[2] else None

    L1, R1 = (map_term(subst_z(s, var, val), eq_branch) for s in (L, R))
    L0, R0 = (replace_term(replace_term(s, ("delta", a, b), zero), ("delta", b, a), zero) for s in (L, R))
    subst = f"subst {var}"
    eq = f"({subst}; rewrite ?pe_delta_eq; {_goal(L1, R1, depth + 1)})"
    neq = (f"(rewrite ?(pe_delta_neq {zcoq(a)} {zcoq(b)} He), ?(pe_delta_neq {zcoq(b)} {zcoq(a)} (not_eq_sym He)); "
           f"{_goal(L0, R0, depth + 1)})")
    return f"destruct (Z.eq_dec {zcoq(a)} {zcoq(b)}) as [He|He]; [{eq} | {neq}]"


# --------------------------------------------------------------------------------------
# Scalar identities: angle addition, Pythagoras, power rules
# --------------------------------------------------------------------------------------
def _units(args: list[sp.Expr], pi: sp.Symbol | None = None, numbers: bool = False) -> dict[sp.Expr, sp.Rational]:
    """For each monomial of the arguments, the largest rational that divides all its
    coefficients: every argument is then an integer combination of ``g * monomial``
    (``PI`` itself, with integer coefficients, is its own unit: ``sin PI = 0``, ``cos PI = -1``).
    A number (unless ``numbers``: the arguments were divided by a common factor), and a
    monomial that would need more than :data:`MAX_MULTIPLE` copies of its unit, is left whole
    (no entry)."""
    coeffs: dict[sp.Expr, list[sp.Rational]] = {}
    for a in args:
        for m, c in sp.expand(a).as_coefficients_dict().items():
            if (m != 1 or numbers) and m != 0 and c != 0:
                coeffs.setdefault(m, []).append(sp.Rational(abs(c)))
    g: dict[sp.Expr, sp.Rational] = {}
    for m, cs in coeffs.items():
        if m == pi and all(c.is_Integer for c in cs):
            unit = sp.Integer(1)
        else:
            unit = cs[0]
            for c in cs[1:]:
                unit = sp.Rational(sp.igcd(unit.p * c.q, c.p * unit.q), unit.q * c.q)
        if all(c / unit <= MAX_MULTIPLE for c in cs):
            g[m] = unit
    return g


#: At most this many copies of one unit in an argument (sin(3x) is sin(x + x + x)).
MAX_MULTIPLE = 8


def _decompose(a: sp.Expr, g: dict[sp.Expr, sp.Rational]) -> list[tuple[int, sp.Expr]]:
    out = []
    for m, c in sorted(sp.expand(a).as_coefficients_dict().items(), key=lambda mc: sp.default_sort_key(mc[0])):
        c = sp.Rational(c)
        if m == 0 or c == 0:
            continue
        if m not in g:
            out.append((1 if c > 0 else -1, abs(c) * m))
            continue
        n = c / g[m]
        assert n.is_Integer
        out.extend([(1 if n > 0 else -1, g[m] * m)] * abs(int(n)))
    return out


def _common_factor(args: list[sp.Expr], pi: sp.Symbol | None = None) -> sp.Expr:
    """A factor common to every argument (``theta`` in ``m theta``, ``n theta``, ``(n - m) theta``),
    so that units are ``m theta`` and ``n theta`` rather than the expanded monomials."""
    g = sp.Integer(0)
    for a in args:
        if a != 0:
            g = sp.gcd(g, sp.together(a)) if g != 0 else sp.together(a)
    if g == 0 or g.is_number:
        return sp.Integer(1)
    g = sp.factor(g.as_coeff_Mul()[1]).as_coeff_Mul()[1]  # no sign: sin (- u) would be rewritten
    # PI stays in the units (sin PI = 0 and cos PI = -1 are rewritten by name)
    return sp.Mul(*[f for f in sp.Mul.make_args(g) if f != pi])


def _sum_node(terms: list[tuple[int, Node]]) -> Node:
    if not terms:
        return ("num", 0, 1)
    parts = [u if s > 0 else ("neg", u) for s, u in terms]
    return parts[0] if len(parts) == 1 else ("add", tuple(parts))


def _scalar(L: Node, R: Node) -> str:
    try:
        return _scalar_script(L, R)
    except Exception:  # noqa: BLE001 - untrusted search: fall back to the plain closers
        return "pe_close"


def _scalar_script(L: Node, R: Node) -> str:
    trig = sorted({x for side in (L, R) for x in walk(side) if x[0] == "app" and x[1] in _TRIG}, key=coq_text)
    if trig:
        plain = _trig_script(L, R, trig, [])
        top = sorted({x for side in (L, R) for x in _walk_outside_trig(side)
                      if x[0] == "app" and x[1] in ("Rpower", "exp")}, key=coq_text)
        if not top:
            return plain
        return f"first [({plain}) | ({_trig_script(L, R, trig, top)})]"
    pw = sorted({x for side in (L, R) for x in walk(side) if x[0] == "app" and x[1] in ("Rpower", "exp")},
                key=coq_text)
    if pw:
        return _power_script(L, R, pw)
    if any(x[0] == "app" and x[1] == "ln" for side in (L, R) for x in walk(side)):
        return "first [pe_close | pe_explog]"  # logarithms of products, inverses, exponentials split
    return "pe_close"


def _walk_outside_trig(n: Node) -> Iterator[Node]:
    yield n
    if n[0] == "app" and n[1] in _TRIG:
        return
    for a in n[1:]:
        if isinstance(a, tuple) and a and isinstance(a[0], str):
            yield from _walk_outside_trig(a)
        elif isinstance(a, tuple):
            for b in a:
                if isinstance(b, tuple) and b and isinstance(b[0], str):
                    yield from _walk_outside_trig(b)


def _pow_group(x: Node) -> str:
    return "exp" if x[1] == "exp" else "Rpower " + coq_text(x[2][0])


def _pow_rebuild(x: Node, a: Node) -> Node:
    return ("app", x[1], (*x[2][:-1], a))


def _replace_args(apps: list[Node], group: Callable[[Node], str], arg: Callable[[Node], Node],
                  rebuild: Callable[[Node, Node], Node], atoms: Atoms | None = None
                  ) -> tuple[list[str], dict[Node, Node], Atoms, dict[Node, list[tuple[int, Node]]]]:
    """Rewrite each application's argument as an integer combination of units (per group)."""
    atoms = atoms or Atoms()
    by_group: dict[str, list[Node]] = {}
    for x in apps:
        by_group.setdefault(group(x), []).append(x)
    steps: list[str] = []
    new: dict[Node, Node] = {}
    terms_of: dict[Node, list[tuple[int, Node]]] = {}
    for xs in by_group.values():
        syms = [arith(arg(x), atoms) for x in xs]
        common = _common_factor(syms, atoms.sym.get("PI"))
        syms = [sp.cancel(a / common) for a in syms]
        g = _units(syms, atoms.sym.get("PI"), numbers=common != 1)
        for x, s in zip(xs, syms):
            terms = [(sg, back_to_term(u * common, atoms)) for sg, u in _decompose(s, g)]
            terms_of[x] = terms
            y = rebuild(x, _sum_node(terms))
            new[x] = y
            if y != x:
                steps.append(f"replace {coq_text(x)} with {coq_text(y)} by (f_equal; pe_close)")
    # larger terms first, so that a term inside another is replaced after it
    steps.sort(key=lambda s: -len(s))
    return steps, new, atoms, terms_of


def _expand(terms_of: dict[Node, list[tuple[int, Node]]]) -> str:
    """Angle addition on the rewritten arguments, then each negated unit's sign and the special
    values, rewritten by instances of the lemmas (``sin_neg u``: a closed pattern, matched
    syntactically) and only those that occur: a pattern with a hole (``sin (- ?x)``) is tried
    against every subterm of the goal, which in the large lemmas cost more than the rest of the
    script. The search may be wrong about what occurs; Coq checks (``?`` rewrites what is there)."""
    steps: list[str] = []
    # sin (p1 + ... + pk) is sin ((p1 + ... + p(k-1)) + pk): the outer sums first
    pairs: set[tuple[int, str, str]] = set()
    for t in terms_of.values():
        parts = [u if sg > 0 else ("neg", u) for sg, u in t]
        for k in range(len(parts), 1, -1):
            pairs.add((k, coq_text(_sum_node(t[:k - 1])), coq_text(parts[k - 1])))
    for _, a, b in sorted(pairs, key=lambda p: (-p[0], p[1], p[2])):
        steps.append(f"rewrite ?(sin_plus {a} {b}), ?(cos_plus {a} {b})")
    if pairs:  # anything the instances missed
        steps.append("repeat (first [rewrite sin_plus | rewrite cos_plus])")
    negs = sorted({coq_text(u) for t in terms_of.values() for sg, u in t if sg < 0})
    steps += [f"rewrite ?(sin_neg {u}), ?(cos_neg {u})" for u in negs]
    units = {u for t in terms_of.values() for _, u in t}
    for u in sorted(units, key=coq_text):
        k = _kpi(u)
        if k is not None:
            steps.append(f"rewrite ?(pe_sin_kPI {zcoq(k)} {coq_text(u)}), ?(pe_cos_kPI {zcoq(k)} {coq_text(u)}) by ring")
    special = []
    if any(not t for t in terms_of.values()):
        special += ["?sin_0", "?cos_0"]
    if ("pi",) in units:
        special += ["?sin_PI", "?cos_PI"]
    if ("mul", (("num", 1, 2), ("pi",))) in units:
        special += ["?pe_sin_PI2", "?pe_cos_PI2"]
    if special:
        steps.append("rewrite " + ", ".join(special))
    return "; ".join(steps) or "idtac"


def _trig_quotient(L: Node, R: Node) -> bool:
    """Whether a side divides by a term with ``sin`` or ``cos`` in it."""
    return any(x[0] == "inv" and any(y[0] == "app" and y[1] in _TRIG for y in walk(x[1]))
               for side in (L, R) for x in walk(side))


def _kpi(u: Node) -> Node | None:
    """The integer ``k`` of a unit ``PI * IZR k`` (either order), else None."""
    if u[0] == "mul" and len(u[1]) == 2 and ("pi",) in u[1]:
        other = u[1][0] if u[1][1] == ("pi",) else u[1][1]
        if other[0] == "izr":
            return other[1]
    return None


def _closer(L: Node, R: Node) -> str:
    """``pe_close`` (``ring`` first), or ``pe_close_div`` (``field`` first) when a side divides:
    a ``ring`` that fails on a large goal costs as much as the ``field`` that then succeeds."""
    def divides(n: Node) -> bool:  # arithmetic only: a quotient inside an atom is not ring's business
        k = n[0]
        if k == "inv" or (k == "num" and n[2] != 1):
            return True
        if k in ("add", "mul"):
            return any(divides(a) for a in n[1])
        return k in ("neg", "pow") and divides(n[1])

    return "pe_close_div" if divides(L) or divides(R) else "pe_close"


def _trig_script(L: Node, R: Node, trig: list[Node], powers: list[Node]) -> str:
    steps, _, atoms, terms_of = _replace_args(trig, lambda x: "trig", lambda x: x[2][0],
                                              lambda x, a: ("app", x[1], (a,)))
    pw_steps, _, _, pw_terms = _replace_args(powers, _pow_group, lambda x: x[2][-1], _pow_rebuild, atoms)
    return _trig_cert(L, R, trig, powers, steps, atoms, terms_of, pw_steps, pw_terms)


def _trig_cert(L: Node, R: Node, trig: list[Node], powers: list[Node], steps: list[str], atoms: Atoms,
               terms_of: dict[Node, list[tuple[int, Node]]], pw_steps: list[str],
               pw_terms: dict[Node, list[tuple[int, Node]]]) -> str:
    pw_steps, _, _, pw_terms = _replace_args(powers, _pow_group, lambda x: x[2][-1], _pow_rebuild, atoms)
    units: dict[str, tuple[Node, sp.Symbol, sp.Symbol]] = {}

    def sc(u: Node) -> tuple[sp.Expr, sp.Expr]:
        if u == ("pi",):
            return sp.Integer(0), sp.Integer(-1)
        k = _kpi(u)
        if k is not None:  # sin (k PI) = 0, cos (k PI) = (-1)^k for an integer k
            return sp.Integer(0), atoms.of(("powz", ("num", -1, 1), k))
        if u == ("mul", (("num", 1, 2), ("pi",))):
            return sp.Integer(1), sp.Integer(0)
        key = coq_text(u)
        if key not in units:
            s_, c_ = sp.Symbol(f"S{len(units)}"), sp.Symbol(f"C{len(units)}")
            units[key] = (u, s_, c_)
            atoms.node[s_] = ("app", "sin", (u,))
            atoms.node[c_] = ("app", "cos", (u,))
        return units[key][1], units[key][2]

    def leaf(n: Node) -> sp.Expr | None:
        if n[0] == "app" and n[1] in _TRIG:
            terms = terms_of[n]
            s, c = sp.Integer(0), sp.Integer(1)
            for sg, u in terms:
                su, cu = sc(u)
                su = su if sg > 0 else -su
                s, c = s * cu + c * su, c * cu - s * su
            return s if n[1] == "sin" else c
        if n in pw_terms:  # Rpower b (u1 + u2 + - u3) = Rpower b u1 * Rpower b u2 * / Rpower b u3
            out = sp.Integer(1)
            for sg, u in pw_terms[n]:
                a = atoms.of(_pow_rebuild(n, u))
                out = out * (a if sg > 0 else 1 / a)
            return out
        return None

    D = arith(L, atoms, leaf) - arith(R, atoms, leaf)
    num, den = sp.fraction(sp.together(D))
    num = sp.expand(num)
    head = "; ".join([*steps, *pw_steps, _expand(terms_of)] + ([_EXPAND_POW] if powers else []))
    close = _closer(L, R)
    if _trig_quotient(L, R):  # tan u, cot u: the hypotheses say where the denominators are nonzero
        head = head.replace(" by (f_equal; pe_close)", " in * by (f_equal; pe_close)").replace(") by ring", ") in * by ring")
        head = re.sub(r"rewrite (\?\([^;]*?\))((, \?\([^;]*?\))*)(?=;|$)", lambda m: m.group(0) + " in *", head)
        close = "pe_close_hyp"
    if num == 0 or not units:
        return head + "; " + close
    gens = [u[2] for u in units.values()] + [u[1] for u in units.values()]
    others = sorted(num.free_symbols - set(gens), key=str)
    pyth = [u[2] ** 2 + u[1] ** 2 - 1 for u in units.values()]
    qs, r = sp.reduced(num, pyth, *gens, *others, order="lex")
    if sp.expand(r) != 0:
        return head + "; " + close
    parts = []
    for q, (u, _, _) in zip(qs, units.values()):
        q = sp.expand(q)
        if q != 0:
            parts.append(("mul", (back_to_term(sp.factor_terms(q / den), atoms), ("pyth", u))))
    cert = parts[0] if len(parts) == 1 else ("add", tuple(parts))
    return (head + f"; apply Rminus_diag_uniq; transitivity {coq_text(cert)}; "
            "[pe_close | rewrite ?pe_pyth; ring]")


def _power_script(L: Node, R: Node, pw: list[Node]) -> str:
    steps, _, _, _ = _replace_args(pw, _pow_group, lambda x: x[2][-1], _pow_rebuild)
    split = "; ".join([*steps, _EXPAND_POW, "pe_close"])
    # or the other way: products of powers of one base joined, then the exponents compared
    # (no denominator to clear: b^(i/c) b^(-(i+1)/c) = b^(-1/c) holds for c = 0 too)
    join = "repeat rewrite <- Rpower_plus; repeat rewrite <- exp_plus; f_equal; pe_close"
    return f"first [({split}) | ({join}) | pe_explog]"


@functools.lru_cache(maxsize=None)
def _sympy_fn(name: str) -> Callable[..., sp.Expr] | None:
    return {"sin": sp.sin, "cos": sp.cos, "tan": sp.tan, "exp": sp.exp, "ln": sp.log, "atan": sp.atan,
            "Rabs": sp.Abs, "sqrt": sp.sqrt, "Rmax": sp.Max, "Rmin": sp.Min}.get(name)


def _to_sympy(n: Node) -> tuple[sp.Expr, Atoms]:
    """A term back in SymPy (functions as SymPy's, other heads as atoms), for searching only."""
    atoms = Atoms()

    def leaf(x: Node) -> sp.Expr | None:
        if x[0] == "app":
            args = [arith(a, atoms, leaf) for a in x[2]]
            if x[1] == "Rpower":
                return args[0] ** args[1]
            f = _sympy_fn(x[1])
            return f(*args) if f is not None else None
        if x[0] == "pi":
            return sp.pi
        return None

    return arith(n, atoms, leaf), atoms
