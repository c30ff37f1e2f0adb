r"""Tactic scripts for the analysis constructs of the printer (:mod:`pe_symbolic.proof.coq`):
derivatives inside an expression, complex equations split into real and imaginary parts, and
undefined functions. Untrusted search, like :mod:`pe_symbolic.proof.coq_tactics` (which calls
:func:`analysis_script` first, passing its own search for what is left, ``goal``): Coq checks
every script, so a wrong one makes a lemma fail. This module imports nothing of
:mod:`~pe_symbolic.proof.coq_tactics` (the search arrives as an argument), so the two form no
import circle.

* **A derivative** ``f'(p)`` is printed as a name ``d`` introduced by ``exists d,
  derivable_pt_lim (fun x => f) p d``. The script gives SymPy's derivative (``diff``, then
  ``cancel``) as the witness, proves ``derivable_pt_lim`` with Coquelicot's ``auto_derive``
  (through the preamble's ``pe_auto_derive``; Coquelicot is loaded only where it is installed),
  its side conditions with ``pe_nz``/``pe_pos``/``field``, and then the rest of the goal with the
  derivative replaced by the witness (:func:`~pe_symbolic.proof.coq_tactics.script`'s search).
* **Complex sides**: ``split``, ``cosh``/``sinh`` rewritten to exponentials (the preamble's
  ``pe_cosh``/``pe_sinh``), then each part by the trigonometric and power search.
* **An undefined function** on both sides, applied to arguments: ``f_equal``, then the
  arguments.

>>> import sympy as sp
>>> from pe_symbolic.proof.coq import Env, to_coq_equation
>>> x = sp.Symbol("x", real=True)
>>> L, R = to_coq_equation(sp.sign(sp.Derivative(x ** 2 + 1, x).subs(x, 3)), sp.Integer(1), Env())
>>> s = analysis_script(L, R, lambda l, r, depth: "GOAL")  # GOAL: the caller's search
>>> s.startswith("intros; exists (2 * 3);"), "pe_auto_derive" in s, s.endswith("| GOAL]")
(True, True, True)
>>> analysis_script(*to_coq_equation(sp.sin(x), sp.sin(x), Env()), lambda l, r, depth: "GOAL") is None
True
"""

from __future__ import annotations

from collections.abc import Callable

import sympy as sp

from .coq import Node
from .coq_syntax import conjuncts, coq_text
from .coq_terms import Atoms, arith, map_term, walk

__all__ = ["analysis_script"]

_ZERO: Node = ("num", 0, 1)
_TWO: Node = ("num", 2, 1)

#: Closes each side condition ``auto_derive`` leaves: a domain (a conjunction of ``x <> 0``,
#: ``0 < x``, ``True``) or the equation ``computed = witness``.
_DERIVE = ("unfold Rpower in *; pe_auto_derive; repeat (match goal with |- _ /\\ _ => split | |- True => exact I end); "
           "first [pe_nz1 | pe_pos | pe_close | (field_simplify; pe_close) | (unfold Rpower in *; pe_close) | pe_cong]")


#: The same, for a derivative whose value is left to ``auto_derive`` (an existential variable):
#: only continuity is wanted.
_DERIVE_ANY = ("unfold Rpower in *; pe_auto_derive; repeat (match goal with |- _ /\\ _ => split | |- True => exact I end); "
               "first [reflexivity | pe_nz1 | pe_pos]")


def analysis_script(lhs: Node, rhs: Node, goal: Callable[[Node, Node, int], str]) -> str | None:
    """A script for a goal with derivatives inside it (``dat``), complex sides (``cpair``) or
    an undefined function; ``None`` for any other goal (the caller's search applies).

    ``goal(L, R, depth)`` is the caller's script for what is left once the analysis is done
    (:mod:`~pe_symbolic.proof.coq_tactics`' search)."""
    dats, guards = conjuncts(lhs, rhs)
    if dats or guards:
        values = {d[1]: _derivative_value(d) for d in dats}
        if any(v is None for v in values.values()):
            return "intros; fail"

        def put(n: Node) -> Node | None:
            if n[0] == "dat":
                return values[n[1]]
            if n[0] == "gpow":
                return ("app", "Rpower", (map_term(n[1], put), map_term(n[2], put)))
            if n[0] == "gsqrt":
                return ("app", "sqrt", (map_term(n[1], put),))
            return None

        L, R = map_term(lhs, put), map_term(rhs, put)
        out = _bases(L, R) + _core(L, R, goal)
        for g in reversed(guards):
            out = f"split; [{_guard(map_term(g[1], put))} | {out}]"
        for d in reversed(dats):
            out = f"split; [{_DERIVE} | {out}]"
        if not dats:
            return f"intros; {out}"
        wit = ", ".join(coq_text(values[d[1]]) for d in dats)  # type: ignore[arg-type]
        return f"intros; exists {wit}; {out}"
    if lhs[0] == "deriv":  # the whole left side: the affine script, else auto_derive
        return f"intros; first [{goal(lhs, rhs, 0)} | ({_DERIVE})]"
    if lhs[0] == "limit":
        return _limit_script(lhs, rhs, goal)
    if lhs[0] == "cpair":
        return "intros; " + _core(lhs, rhs, goal)
    if lhs[0] == rhs[0] == "app" and lhs[1] == rhs[1] and len(lhs[2]) == len(rhs[2]) == 1 and lhs != rhs:
        # one function (an undefined one, say) on both sides: equal arguments will do
        return f"intros; first [(f_equal; {goal(lhs[2][0], rhs[2][0], 0)}) | {goal(lhs, rhs, 0)}]"
    return None


_U = "pe_u"
_LIM = {"right": "pe_lim_right", "left": "pe_lim_left", "both": "pe_lim_at"}


def _limit_script(lim: Node, l: Node, goal: Callable[[Node, Node, int], str]) -> str:
    """A limit as the value at the point of a function ``g`` continuous there (by a derivative)
    and equal to the body near it: ``g`` is the body itself at a real point, and SymPy's
    simplification of ``f(1/u)`` at infinity (``atan(1/u)`` as ``pi/2 - atan u``)."""
    _, kind, x, body, point, _, _ = lim
    u = ("var", _U)
    if kind in ("pinf", "minf"):
        fu = map_term(body, lambda n: ("inv", u) if n == ("var", x) else None)
        g = _simplified(fu, _U, kind == "pinf")
        if g is None:
            return "intros; fail"
        p: Node = _ZERO
        head = f"apply (pe_lim_{'infty' if kind == 'pinf' else 'minfty'} (fun {x} : R => {coq_text(body)})); "
        lemma = "pe_lim_right" if kind == "pinf" else "pe_lim_left"
        fun = f"(fun {_U} : R => {coq_text(fu)})"
    else:
        g, p, head, lemma = map_term(body, lambda n: u if n == ("var", x) else None), point, "", _LIM[kind]
        fun = f"(fun {_U} : R => {coq_text(g)})"
    gp = map_term(g, lambda n: p if n == u else None)
    ext = (f"intros {_U} H{_U}; cbv beta; rewrite ?(atan_inv {_U}) by lra; "
           f"first [{goal(fu, g, 0)} | pe_cong]" if kind in ("pinf", "minf") else f"intros {_U} H{_U}; reflexivity")
    value = f"cbv beta; {_values(gp)}first [{goal(gp, l, 0)} | pe_cong]"
    body3 = (f"apply ({lemma} {fun} (fun {_U} : R => {coq_text(g)})); "
             f"[{ext} | eapply pe_cont_deriv; {_DERIVE_ANY} | {value}")
    # after intros, eps and 0 < eps are hypotheses: the lemma's last premise is the latter
    if head:
        return f"intros; {head}[{body3}] | assumption]"
    return f"intros; {body3} | assumption]"


def _simplified(fu: Node, u: str, positive: bool) -> Node | None:
    """``f(1/u)`` simplified by SymPy for ``u > 0`` (``u < 0``), as a term; ``None`` if not printable."""
    atoms = Atoms()
    us = sp.Symbol("u", positive=True) if positive else sp.Symbol("u", negative=True)
    atoms.sym[u] = us
    atoms.node[us] = ("var", u)
    try:
        e = _sympy(fu, atoms)
        if positive:
            e = e.replace(lambda t: isinstance(t, sp.atan) and t.args[0] == 1 / us, lambda t: sp.pi / 2 - sp.atan(us))
        e = sp.simplify(e)
        return _node(e, atoms)
    except Exception:  # noqa: BLE001 - an untrusted search
        return None


def _values(n: Node) -> str:
    """Steps that turn ``atan``, ``exp``, ``Rpower`` of arguments SymPy finds to be 0 or 1 into
    their values (``atan_0``, ``atan_1``, ``exp_0``, ``Rpower_O``, ``Rpower_1``)."""
    steps = []
    for a in sorted({x for x in walk(n) if x[0] == "app" and x[1] in ("atan", "exp", "Rpower", "ln")}, key=coq_text):
        arg = a[2][-1]
        try:
            v = sp.simplify(_sympy(arg, Atoms()))
        except Exception:  # noqa: BLE001 - an untrusted search
            continue
        if v in (0, 1) and arg != ("num", int(v), 1):
            steps.append(f"replace {coq_text(arg)} with {int(v)} by pe_close")
    steps.sort(key=lambda t: -len(t))
    return "".join(f"{t}; " for t in steps) + ("rewrite ?atan_0, ?atan_1, ?exp_0, ?ln_1; "
                                                "rewrite ?Rpower_O, ?Rpower_1 by pe_pos; ")


def _guard(b: Node) -> str:
    """``0 < b`` (or ``0 <= b``): by the sign search, or as the number SymPy simplifies ``b`` to."""
    steps = ""
    try:
        v = sp.simplify(_sympy(b, Atoms()))
        if v.is_Rational:
            steps = f"replace {coq_text(b)} with {coq_text(('num', int(v.p), int(v.q)))} by pe_close; "
    except Exception:  # noqa: BLE001 - an untrusted search
        pass
    return f"first [pe_sign | ({steps}lra) | (rewrite ?ln_1; lra)]" if steps else "first [pe_sign | (rewrite ?ln_1; lra)]"


def _bases(L: Node, R: Node) -> str:
    """Steps that write a power's base SymPy simplifies to 1 as 1 (``Rpower 1 x = 1``)."""
    steps = []
    for n in {x for side in (L, R) for x in walk(side) if x[0] == "app" and x[1] in ("Rpower", "sqrt")}:
        try:
            v = sp.simplify(_sympy(n[2][0], Atoms()))
        except Exception:  # noqa: BLE001 - an untrusted search
            continue
        if v == 1 and n[2][0] != ("num", 1, 1):
            steps.append(f"replace {coq_text(n[2][0])} with 1 by pe_close")
    steps.sort(key=lambda t: -len(t))
    return "".join(f"{t}; " for t in steps) + ("rewrite ?pe_Rpower_base1, ?sqrt_1; " if steps else "")


def _core(L: Node, R: Node, goal: Callable[[Node, Node, int], str]) -> str:
    if L[0] == "cpair":
        parts = []
        for k in (1, 2):
            a, b = _hyperbolic(L[k]), _hyperbolic(R[k])
            parts.append(f"(rewrite ?pe_cosh, ?pe_sinh; {goal(a, b, 0)})")
        return f"split; [{parts[0]} | {parts[1]}]"
    return goal(L, R, 0)


def _hyperbolic(n: Node) -> Node:
    """``cosh y`` as ``(exp y + exp (- y)) * / 2`` and ``sinh y`` as ``(exp y - exp (- y)) * / 2``,
    exactly as the preamble's ``pe_cosh``/``pe_sinh`` rewrite them."""
    def f(x: Node) -> Node | None:
        if x[0] == "app" and x[1] in ("cosh", "sinh"):
            y = _hyperbolic(x[2][0])
            e, em = ("app", "exp", (y,)), ("app", "exp", (("neg", y),))
            return ("mul", (("add", (e, em if x[1] == "cosh" else ("neg", em))), ("inv", _TWO)))
        return None
    return map_term(n, f)


# --------------------------------------------------------------------------------------
# The derivative's value, by SymPy (a search: Coq checks it)
# --------------------------------------------------------------------------------------
_FUNCS: dict[str, Callable[..., sp.Expr]] = {"sin": sp.sin, "cos": sp.cos, "tan": sp.tan, "exp": sp.exp,
                                            "ln": sp.log, "atan": sp.atan, "sqrt": sp.sqrt}


def _derivative_value(d: Node) -> Node | None:
    """SymPy's derivative of ``fun x => f`` at ``p`` (``d`` = ``("dat", name, x, f, p)``), as a term."""
    _, _, x, f, p = d
    atoms = Atoms()

    try:
        fx = _sympy(f, atoms)
        xs = atoms.of(("var", x))
        value = sp.cancel(sp.diff(fx, xs))
        if value.has(sp.Derivative, sp.Subs):
            return None
        # the point put in as a term (no SymPy evaluation): Coq's derivative has the same shape
        out = _node(value, atoms)
        return map_term(out, lambda n: p if n == ("var", x) else None)
    except Exception:  # noqa: BLE001 - an untrusted search
        return None


def _sympy(n: Node, atoms: Atoms) -> sp.Expr:
    """A term in SymPy: arithmetic, ``pi``, ``Rpower`` and the functions SymPy has; anything
    else an atom."""
    def leaf(m: Node) -> sp.Expr | None:
        if m[0] == "pi":
            return sp.pi
        if m[0] == "app":
            args = [arith(a, atoms, leaf) for a in m[2]]
            if m[1] == "Rpower":
                return sp.Pow(args[0], args[1])
            fn = _FUNCS.get(m[1])
            return fn(*args) if fn is not None else None
        return None

    return arith(n, atoms, leaf)


def _node(e: sp.Expr, atoms: Atoms) -> Node:
    """A SymPy expression over the atoms (and ``sin cos tan exp log atan pi``, powers) as a term."""
    if e.is_Rational:
        return ("num", int(e.p), int(e.q))
    if e is sp.pi:
        return ("pi",)
    if isinstance(e, sp.Symbol):
        return atoms.node[e]
    if isinstance(e, sp.Add):
        return ("add", tuple(_node(a, atoms) for a in sorted(e.args, key=sp.default_sort_key)))
    if isinstance(e, sp.Mul):
        c, rest = e.as_coeff_Mul()
        if c == -1:
            return ("neg", _node(rest, atoms))
        fs = ([_node(c, atoms)] if c != 1 else []) + [_node(a, atoms) for a in sp.Mul.make_args(rest)]
        return fs[0] if len(fs) == 1 else ("mul", tuple(fs))
    if isinstance(e, sp.Pow):
        if e.exp.is_Integer:
            n = int(e.exp)
            base = _node(e.base, atoms)
            return ("pow", base, n) if n > 0 else ("inv", base if n == -1 else ("pow", base, -n))
        if e.base is sp.E:
            return ("app", "exp", (_node(e.exp, atoms),))
        return ("app", "Rpower", (_node(e.base, atoms), _node(e.exp, atoms)))
    if isinstance(e, sp.exp):
        return ("app", "exp", (_node(e.args[0], atoms),))
    if isinstance(e, sp.log):
        return ("app", "ln", (_node(e.args[0], atoms),))
    for name, fn in _FUNCS.items():
        if isinstance(e, fn):  # type: ignore[arg-type]
            return ("app", name, tuple(_node(a, atoms) for a in e.args))
    raise ValueError(f"cannot print {e}")
