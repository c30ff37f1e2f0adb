r"""The printer's term trees (:data:`~pe_symbolic.proof.coq.Node`) as the tactic searches read them:
walks, rebuilding, and the arithmetic of a term in SymPy over its non-arithmetic atoms.

Shared by :mod:`pe_symbolic.proof.coq_tactics` and :mod:`pe_symbolic.proof.coq_analysis`.
Untrusted search, like them: what they generate from these is checked by Coq.

>>> import sympy as sp
>>> from pe_symbolic.proof.coq import Env, to_coq_ast
>>> a = sp.Symbol("a", real=True)
>>> t = to_coq_ast(2 * sp.sin(a) + a, Env())
>>> atoms = Atoms()
>>> arith(t, atoms)
a0 + 2*a1
>>> back_to_term(arith(t, atoms), atoms) == t
True
>>> first_of(t, "app")
('app', 'sin', (('var', 'a_1'),))
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import sympy as sp

from .coq import Node, subterms
from .coq_syntax import coq_text

__all__ = ["Atoms", "arith", "back_to_term", "first_of", "map_term", "replace_term", "subst_z", "walk", "walk_free"]

# --------------------------------------------------------------------------------------
# Tree helpers
# --------------------------------------------------------------------------------------
walk = subterms  # every subterm of a term, the term first (the printer's own walk)


def walk_free(n: Node) -> Iterator[Node]:
    """:func:`walk`, but not into a sum's or product's body (its index is bound there: a
    rewrite naming it could not be stated)."""
    if n[0] in ("sum", "prod"):
        return
    yield n
    for a in n[1:]:
        if isinstance(a, tuple) and a and isinstance(a[0], str):
            yield from walk_free(a)
        elif isinstance(a, tuple):
            for b in a:
                if isinstance(b, tuple) and b and isinstance(b[0], str):
                    yield from walk_free(b)


def map_term(n: Node, f: Callable[[Node], Node | None]) -> Node:
    """Rebuild ``n`` top-down: ``f`` returns a replacement for a subterm, or None to recurse."""
    r = f(n)
    if r is not None:
        return r
    out: list = [n[0]]
    for a in n[1:]:
        if isinstance(a, tuple) and a and isinstance(a[0], str):
            out.append(map_term(a, f))
        elif isinstance(a, tuple):
            out.append(tuple(map_term(b, f) if isinstance(b, tuple) and b and isinstance(b[0], str) else b for b in a))
        else:
            out.append(a)
    return tuple(out)


def replace_term(n: Node, old: Node, new: Node) -> Node:
    """``n`` with every subterm equal to ``old`` replaced by ``new``."""
    return map_term(n, lambda x: new if x == old else None)


def subst_z(n: Node, name: str, value: Node) -> Node:
    """``n`` with the integer variable ``name`` replaced by the integer term ``value``."""
    return map_term(n, lambda x: value if x == ("zvar", name) else None)


def first_of(n: Node, kind: str) -> Node | None:
    """The first subterm of ``n`` (``n`` first, then depth first) of this kind, or ``None``."""
    return next((x for x in walk(n) if x[0] == kind), None)


# --------------------------------------------------------------------------------------
# Arithmetic in SymPy
# --------------------------------------------------------------------------------------
class Atoms:
    """Non-arithmetic subterms as SymPy symbols (what ``ring`` treats as atoms)."""

    def __init__(self) -> None:
        self.sym: dict[str, sp.Symbol] = {}
        self.node: dict[sp.Symbol, Node] = {}

    def of(self, n: Node) -> sp.Symbol:
        key = coq_text(n)
        s = self.sym.get(key)
        if s is None:
            s = sp.Symbol(f"a{len(self.sym)}")
            self.sym[key] = s
            self.node[s] = n
        return s


def arith(n: Node, atoms: Atoms, leaf: Callable[[Node], sp.Expr | None] | None = None) -> sp.Expr:
    """The arithmetic of ``n`` (numbers, sums, products, negation, inverse, natural powers) in
    SymPy, every other subterm an atom of ``atoms``; ``leaf(m)`` may give a subterm's value
    first (``None``: read it as usual)."""
    if leaf is not None:
        r = leaf(n)
        if r is not None:
            return r
    k = n[0]
    if k == "num":
        return sp.Rational(n[1], n[2])
    if k == "add":
        return sp.Add(*(arith(a, atoms, leaf) for a in n[1]))
    if k == "mul":
        return sp.Mul(*(arith(a, atoms, leaf) for a in n[1]))
    if k == "neg":
        return -arith(n[1], atoms, leaf)
    if k == "inv":
        return 1 / arith(n[1], atoms, leaf)
    if k == "pow":
        return arith(n[1], atoms, leaf) ** n[2]
    return atoms.of(n)


def back_to_term(e: sp.Expr, atoms: Atoms) -> Node:
    """A SymPy expression over atoms as a term (arithmetic only)."""
    if e.is_Rational:
        return ("num", int(e.p), int(e.q))
    if isinstance(e, sp.Symbol):
        return atoms.node[e]
    if isinstance(e, sp.Add):
        return ("add", tuple(back_to_term(a, atoms) for a in sorted(e.args, key=sp.default_sort_key)))
    if isinstance(e, sp.Mul):
        c, rest = e.as_coeff_Mul()
        if c == -1:
            return ("neg", back_to_term(rest, atoms))
        fs = ([back_to_term(c, atoms)] if c != 1 else []) + [back_to_term(a, atoms) for a in sp.Mul.make_args(rest)]
        return fs[0] if len(fs) == 1 else ("mul", tuple(fs))
    if isinstance(e, sp.Pow) and e.exp.is_Integer:
        n = int(e.exp)
        base = back_to_term(e.base, atoms)
        if n > 0:
            return ("pow", base, n)
        return ("inv", base if n == -1 else ("pow", base, -n))
    raise ValueError(f"cannot print {e}")
