r"""Tactic scripts for the analysis constructs of the printer (:mod:`pe_symbolic.proof.coq`):
derivatives inside an expression, complex equations split into real and imaginary parts, and
undefined functions. Untrusted search, like :mod:`pe_symbolic.proof.coq_tactics` (which calls
:func:`analysis_script` first): Coq checks every script, so a wrong one makes a lemma fail.

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
>>> "pe_auto_derive" in analysis_script(L, R)
True
"""

from __future__ import annotations

from collections.abc import Callable

import sympy as sp

from .coq import Node, coq_text
from .coq_tactics import _arith, _Atoms, _goal, _map, _walk

__all__ = ["analysis_script"]

_ZERO: Node = ("num", 0, 1)
_TWO: Node = ("num", 2, 1)

#: Closes each side condition ``auto_derive`` leaves: a domain (a conjunction of ``x <> 0``,
#: ``0 < x``, ``True``) or the equation ``computed = witness``.
_DERIVE = ("unfold Rpower in *; pe_auto_derive; repeat (match goal with |- _ /\\ _ => split | |- True => exact I end); "
           "first [pe_nz1 | pe_pos | pe_close | (field_simplify; pe_close) | (unfold Rpower in *; pe_close)]")


def analysis_script(lhs: Node, rhs: Node, goal: Callable[[Node, Node, int], str] = _goal) -> str | None:
    """A script for a goal with derivatives inside it (``dat``), complex sides (``cpair``) or
    an undefined function; ``None`` for any other goal (the caller's search applies)."""
    dats: dict[str, Node] = {}
    for side in (lhs, rhs):
        for n in _walk(side):
            if n[0] == "dat":
                dats.setdefault(n[1], n)
    if dats:
        values = {name: _derivative_value(d) for name, d in dats.items()}
        if any(v is None for v in values.values()):
            return "intros; fail"

        def put(n: Node) -> Node | None:
            return values[n[1]] if n[0] == "dat" else None

        L, R = _map(lhs, put), _map(rhs, put)
        rest = _core(L, R, goal)
        out = rest
        for name in reversed(list(dats)):
            out = f"split; [{_DERIVE} | {out}]"
        wit = ", ".join(coq_text(values[name]) for name in dats)  # type: ignore[arg-type]
        return f"intros; exists {wit}; {out}"
    if lhs[0] == "cpair":
        return "intros; " + _core(lhs, rhs, goal)
    if lhs[0] == rhs[0] == "app" and lhs[1] == rhs[1] and len(lhs[2]) == len(rhs[2]) == 1 and lhs != rhs:
        # one function (an undefined one, say) on both sides: equal arguments will do
        return f"intros; first [(f_equal; {goal(lhs[2][0], rhs[2][0], 0)}) | {goal(lhs, rhs, 0)}]"
    return None


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
    return _map(n, f)


# --------------------------------------------------------------------------------------
# The derivative's value, by SymPy (a search: Coq checks it)
# --------------------------------------------------------------------------------------
_FUNCS: dict[str, Callable[..., sp.Expr]] = {"sin": sp.sin, "cos": sp.cos, "tan": sp.tan, "exp": sp.exp,
                                            "ln": sp.log, "atan": sp.atan, "sqrt": sp.sqrt}


def _derivative_value(d: Node) -> Node | None:
    """SymPy's derivative of ``fun x => f`` at ``p`` (``d`` = ``("dat", name, x, f, p)``), as a term."""
    _, _, x, f, p = d
    atoms = _Atoms()

    def leaf(n: Node) -> sp.Expr | None:
        if n[0] == "pi":
            return sp.pi
        if n[0] == "app":
            args = [_arith(a, atoms, leaf) for a in n[2]]
            if n[1] == "Rpower":
                return sp.Pow(args[0], args[1])
            fn = _FUNCS.get(n[1])
            return fn(*args) if fn is not None else None
        return None

    try:
        fx = _arith(f, atoms, leaf)
        xs = atoms.of(("var", x))
        pv = _arith(p, atoms, leaf)
        value = sp.cancel(sp.diff(fx, xs))
        if value.has(sp.Derivative, sp.Subs):
            return None
        value = value.xreplace({xs: pv})
        return _node(value, atoms)
    except Exception:  # noqa: BLE001 - an untrusted search
        return None


def _node(e: sp.Expr, atoms: _Atoms) -> Node:
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
