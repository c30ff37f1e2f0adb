"""Writing chains the way a derivation reads: start, rewrite, cite, conclude.

A :class:`Derivation` builds the steps of a hand-written chain by *doing* each step (applying
the rule, instantiating the cited lemma, replacing an assumption), so the expressions in a
proof are computed, never typed in; the kernel re-checks every step independently.

>>> import sympy as sp
>>> x = sp.Symbol("x", real=True)
>>> dv = Derivation(sp.cos(x) ** 2 + sp.sin(x) ** 2)
>>> dv.rule("expand(trig=True)", "nothing to expand").rule("sin(u)**2 -> 1 - cos(u)**2").rule("expand").expr
1
"""

from __future__ import annotations

from typing import Any

import sympy as sp

from ..proof import LHS, Step, apply_rule
from ..proof.kernel import ASSUMPTION, instantiate, lemma_instance
from .registry import get

__all__ = ["Derivation", "at", "call", "instance_of"]


class Derivation:
    """A chain under construction, starting at ``start`` (by default the left-hand side)."""

    def __init__(self, start: Any, rule: str = LHS, why: str = "") -> None:
        self.steps: list[Step] = [Step(start, rule, why=why)]

    @property
    def expr(self) -> Any:
        """The current expression."""
        return self.steps[-1].expr

    def _push(self, expr: Any, rule: str, why: str, instance: dict[str, Any] | None = None) -> Derivation:
        if isinstance(expr, sp.MatrixBase):
            expr = sp.ImmutableMatrix(expr)
        self.steps.append(Step(expr, rule, tuple((instance or {}).items()), why))
        return self

    def rule(self, name: str, why: str = "") -> Derivation:
        """Apply the rewrite rule ``name`` (the kernel re-applies it)."""
        return self._push(apply_rule(name, self.expr), name, why)

    def assume(self, *conditions: sp.Basic, why: str = "") -> Derivation:
        """Replace conditions that are assumptions of the claim by True."""
        repl: dict[sp.Basic, sp.Basic] = {}
        for c in conditions:
            repl[c] = sp.true
            repl[c.negated] = sp.false
        e = self.expr
        new = (e.applyfunc(lambda x: x.xreplace(repl)) if isinstance(e, sp.MatrixBase) else e.xreplace(repl))
        return self._push(new, ASSUMPTION, why)

    def lemma(self, id: str, why: str = "", *, backwards: bool = False, result: Any = None,
              **instance: Any) -> Derivation:
        """Rewrite by an instance of the generic claim ``id`` (left side to right side, or
        right to left with ``backwards=True``), as the kernel will. When the ``result`` is
        already known (a block's right-hand side), it is recorded as it is and the kernel
        alone does the rewriting, once."""
        if result is not None:
            return self._push(result, f"lemma {id}", why, instance)
        claim = get(id).claim()
        mapping, sequences = lemma_instance(claim, tuple(instance.items()))
        repl: dict[Any, Any] = {}
        whole: dict[Any, Any] = {}
        for eq in claim.equations:
            lhs, rhs = instantiate(eq.lhs, mapping, sequences), instantiate(eq.rhs, mapping, sequences)
            if backwards:
                lhs, rhs = rhs, lhs
            whole[lhs] = rhs
            if isinstance(lhs, sp.MatrixBase):
                repl.update({x: y for x, y in zip(lhs, rhs) if x != y})
            else:
                repl[lhs] = rhs
        e = self.expr
        if e in whole:
            new = whole[e]
        elif isinstance(e, sp.MatrixBase):
            new = e.applyfunc(lambda x: x.xreplace(repl))
        else:
            new = e.xreplace(repl)
        if new == e:
            raise ValueError(f"lemma {id!r} with {instance} does not rewrite {sp.sstr(e)[:200]}")
        return self._push(new, f"lemma {id}", why, instance)

    def to(self, expr: Any, why: str) -> Derivation:
        """A step the reader is told how to take (``why``); the kernel checks the equality."""
        return self._push(expr, why, "")


def instance_of(id: str, index: int, **values: Any) -> tuple[Any, Any]:
    """Both sides of equation ``index`` of the generic claim ``id`` with its symbols (by name)
    replaced by ``values``, built exactly as the kernel instantiates a lemma: a claim made of
    such instances (one per block of a concrete d) is checked by citing ``id`` at the cost of
    one construction, which the kernel's instantiation cache then serves."""
    claim = get(id).claim()
    eq = claim.equations[index]
    mapping = {claim.symbol_table[name]: value for name, value in values.items()}
    return instantiate(eq.lhs, mapping, {}), instantiate(eq.rhs, mapping, {})


def at(expr: Any, values: dict[Any, Any]) -> Any:
    """``expr`` with the symbols of ``values`` replaced, *left unevaluated* (``Subs``), so a
    statement reads as written ("sigma at lambda = L/high is 1") and its proof shows the
    substitution being carried out, instead of SymPy evaluating it before the proof begins.

    Only the symbols ``expr`` contains are kept; an entry of a matrix that contains none of
    them is left as it is (a matrix becomes the matrix of its entries at the point).

    >>> import sympy as sp
    >>> i, b = sp.symbols("i b", positive=True)
    >>> at(b ** (-i), {i: 0})
    Subs(b**(-i), i, 0)
    >>> at(b ** (-i), {i: 0}).doit()
    1
    >>> at(sp.Matrix([[i, 1]]), {i: 2})
    Matrix([[Subs(i, i, 2), 1]])
    """
    if isinstance(expr, sp.MatrixBase):
        return sp.ImmutableMatrix(expr.rows, expr.cols, [at(x, values) for x in expr])
    expr = sp.sympify(expr, strict=True)  # a number or expression, never text
    keep = [(v, sp.sympify(p, strict=True)) for v, p in values.items() if v in expr.free_symbols]
    if not keep:
        return expr
    return sp.Subs(expr, tuple(v for v, _ in keep), tuple(p for _, p in keep))


def call(f: sp.Lambda, *args: Any) -> Any:
    """``f(*args)`` for a ``Lambda`` ``f``, written as ``f``'s body at the point (:func:`at`),
    so that the statement keeps the application and the proof shows it evaluated.

    >>> import sympy as sp
    >>> n = sp.Symbol("n", integer=True)
    >>> call(sp.Lambda(n, n**2 + 1), 3)
    Subs(n**2 + 1, n, 3)
    """
    return at(f.expr, dict(zip(f.variables, args)))
