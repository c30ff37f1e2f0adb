"""What is claimed: equations, claims, steps.

A :class:`Claim` is one or more :class:`Equation` s (scalars or same-shape matrices) that
must all hold under the symbols' SymPy assumptions and the claim's relational assumptions.
A proof of one equation is a chain of :class:`Step` s.

**One name, one symbol.** A claim whose expressions hold two different symbols with the
same name (``Symbol("x")`` and ``Symbol("x", real=True)``) is refused at construction with
a :class:`ClaimError`: certificates, counterexamples and renderings name symbols by name, so
two symbols behind one name would make them ambiguous (and order-dependent).

Nothing here evaluates text: sides are SymPy objects, Python numbers or nested lists
(matrices); strings are refused.

>>> import sympy as sp
>>> x = sp.Symbol("x", real=True)
>>> Claim("demo", "x + x = 2x", (Equation(x + x, 2 * x),)).symbols
(x,)
>>> Claim("demo", "two x", (Equation(x, sp.Symbol("x")),))
Traceback (most recent call last):
pe_symbolic.proof.claims.ClaimError: claim 'demo' uses two different symbols named 'x': ...
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Literal, TypeAlias

import sympy as sp

from ..encodings.symbols import as_expr

__all__ = [
    "DIFFERENCE",
    "LHS",
    "Claim",
    "ClaimError",
    "Equation",
    "Expr",
    "Step",
    "Verdict",
    "as_sympy",
    "render_statement",
    "symbols_of",
]

Verdict = Literal["proved", "refuted", "undecided"]
Expr: TypeAlias = Any  # a SymPy scalar expression or an immutable matrix (SymPy is untyped)

#: Rule of the first step of a difference chain: ``lhs - rhs``.
DIFFERENCE = "difference of the two sides"
#: Rule of the first step of an equational chain: ``lhs``.
LHS = "left-hand side"


class ClaimError(ValueError):
    """A claim that cannot be stated soundly (ambiguous symbols, bad sides, ...)."""


def as_sympy(x: Any, name: str) -> Expr:
    """Convert a side of an equation to SymPy without evaluating any text.

    Accepted: SymPy objects, Python/NumPy numbers, ``fractions.Fraction``, and
    (nested) lists, tuples or SymPy matrices, which become an immutable matrix.

    >>> as_sympy([[1, 0], [0, 1]], "lhs").shape
    (2, 2)
    >>> as_sympy("x", "lhs")
    Traceback (most recent call last):
    TypeError: lhs='x' is not a SymPy expression or matrix (strings are never parsed)
    """
    if isinstance(x, sp.MatrixBase):
        return sp.ImmutableMatrix(x)
    if isinstance(x, (list, tuple)):
        try:
            rows = [[as_sympy(v, name) for v in r] if isinstance(r, (list, tuple)) else [as_sympy(r, name)]
                    for r in x]
            return sp.ImmutableMatrix(rows)
        except (ValueError, sp.ShapeError) as exc:
            raise TypeError(f"{name}={x!r} is not a rectangular matrix") from exc
    try:
        return as_expr(x, name)
    except TypeError:
        suffix = " (strings are never parsed)" if isinstance(x, str) else ""
        raise TypeError(f"{name}={x!r} is not a SymPy expression or matrix{suffix}") from None


def symbols_of(exprs: Iterable[Expr]) -> set[sp.Symbol]:
    """Free symbols of several expressions or matrices (bound variables excluded)."""
    out: set[sp.Symbol] = set()
    for e in exprs:
        out |= {s for s in e.free_symbols if isinstance(s, sp.Symbol)}
    return out


def _all_symbols(exprs: Iterable[Expr]) -> set[sp.Symbol]:
    """Every Symbol appearing anywhere, bound ones (summation indices) included."""
    out: set[sp.Symbol] = set()
    for e in exprs:
        out |= e.atoms(sp.Symbol)
    return out


@dataclass(frozen=True)
class Equation:
    """One equation ``lhs = rhs`` (scalars or same-shape matrices), with a short label."""

    lhs: Expr
    rhs: Expr
    label: str = ""

    def __post_init__(self) -> None:
        lhs, rhs = as_sympy(self.lhs, "lhs"), as_sympy(self.rhs, "rhs")
        lm, rm = isinstance(lhs, sp.MatrixBase), isinstance(rhs, sp.MatrixBase)
        if lm != rm or (lm and lhs.shape != rhs.shape):
            ls = lhs.shape if lm else "scalar"
            rs = rhs.shape if rm else "scalar"
            raise ValueError(f"lhs and rhs must have the same shape; got lhs {ls} and rhs {rs}")
        if not isinstance(self.label, str):
            raise TypeError(f"label={self.label!r} must be a string")
        object.__setattr__(self, "lhs", lhs)
        object.__setattr__(self, "rhs", rhs)

    @property
    def difference(self) -> Expr:
        """``lhs - rhs`` (as an immutable matrix for matrices)."""
        diff = self.lhs - self.rhs
        return sp.ImmutableMatrix(diff) if isinstance(diff, sp.MatrixBase) else diff

    @property
    def is_matrix(self) -> bool:
        """Whether the two sides are matrices."""
        return isinstance(self.lhs, sp.MatrixBase)


@dataclass(frozen=True)
class Claim:
    """A named statement: equations that must all hold under the assumptions.

    ``assumptions`` are relations beyond the symbols' own SymPy assumptions (such as
    ``b > 1``); symbol assumptions travel with the symbols. Every symbol name stands for
    exactly one symbol across the equations and the assumptions.
    """

    id: str
    statement: str
    equations: tuple[Equation, ...]
    assumptions: tuple[sp.Basic, ...] = ()
    source: str = ""
    notation: tuple[tuple[sp.Basic, str], ...] = ()
    """Names for long subexpressions in renderings only (``(b**(-i/h), "ω_i")``); never used
    by the checker and not part of certificates."""

    def __post_init__(self) -> None:
        for name in ("id", "statement", "source"):
            if not isinstance(getattr(self, name), str):
                raise ClaimError(f"{name}={getattr(self, name)!r} must be a string")
        eqs = tuple(self.equations)
        if not eqs:
            raise ClaimError(f"claim {self.id!r} has no equations")
        for e in eqs:
            if not isinstance(e, Equation):
                raise ClaimError(f"claim {self.id!r}: {e!r} is not an Equation")
        assumptions = tuple(as_sympy(a, "assumption") for a in self.assumptions)
        for a in assumptions:
            if not isinstance(a, (sp.core.relational.Relational, sp.logic.boolalg.Boolean)):
                raise ClaimError(
                    f"claim {self.id!r}: assumption {a} is not a relation or a logical condition; "
                    "declare symbol properties on the symbols (Symbol('n', integer=True))"
                )
            if a is sp.false:
                raise ClaimError(f"claim {self.id!r}: an assumption is False (nothing could be claimed)")
        object.__setattr__(self, "equations", eqs)
        object.__setattr__(self, "assumptions", assumptions)
        object.__setattr__(self, "notation", tuple((as_sympy(e, "notation"), str(n)) for e, n in self.notation))
        self._check_names()

    def _exprs(self) -> list[Expr]:
        return [x for eq in self.equations for x in (eq.lhs, eq.rhs)] + list(self.assumptions)

    def _check_names(self) -> None:
        by_name: dict[str, sp.Symbol] = {}
        for s in sorted(_all_symbols(self._exprs()), key=sp.default_sort_key):
            other = by_name.setdefault(s.name, s)
            if other != s:
                raise ClaimError(
                    f"claim {self.id!r} uses two different symbols named {s.name!r}: "
                    f"{sp.srepr(other)} and {sp.srepr(s)}; give them different names"
                )

    @property
    def symbols(self) -> tuple[sp.Symbol, ...]:
        """Free symbols of the claim, sorted by name (names are unique)."""
        if "_symbols" not in self.__dict__:
            object.__setattr__(self, "_symbols", tuple(sorted(symbols_of(self._exprs()), key=lambda s: s.name)))
        return self.__dict__["_symbols"]

    @property
    def symbol_table(self) -> dict[str, sp.Symbol]:
        """``{name: symbol}`` for every symbol of the claim, bound ones included."""
        if "_table" not in self.__dict__:
            table = {s.name: s for s in sorted(_all_symbols(self._exprs()), key=lambda s: s.name)}
            object.__setattr__(self, "_table", table)
        return dict(self.__dict__["_table"])


@dataclass(frozen=True)
class Step:
    """An expression and the rule (or reason, or cited lemma) that produced it.

    ``rule`` is one of: a rewrite rule named in :data:`pe_symbolic.proof.rules.RULES`
    (re-applied when checked); ``"lemma ID"`` (an instance of a proved claim, see
    :mod:`pe_symbolic.proof.kernel`), with ``instance`` mapping the lemma's symbol names to
    the expressions they stand for here; ``"assumption"`` (a condition that is one of the
    claim's assumptions is replaced by True); or any other text, a *reason* for the reader
    ("angle addition", "definition of T(k)"), which the checker does not trust: the step is
    accepted only if the difference to the previous expression reduces to zero.
    """

    expr: Expr
    rule: str
    instance: tuple[tuple[str, Expr], ...] = ()
    why: str = ""
    """What the step does, for the reader (never checked, never trusted)."""

    def __post_init__(self) -> None:
        if not isinstance(self.rule, str) or not self.rule.strip():
            raise TypeError(f"rule={self.rule!r} must be a non-empty string")
        if not isinstance(self.why, str):
            raise TypeError(f"why={self.why!r} must be a string")
        object.__setattr__(self, "expr", as_sympy(self.expr, "expr"))
        inst = self.instance.items() if isinstance(self.instance, dict) else self.instance
        pairs = tuple(sorted((str(k), as_sympy(v, f"instance[{k!r}]")) for k, v in inst))
        if pairs and not self.rule.startswith("lemma "):
            raise ValueError(f"instance= is only for lemma steps; rule={self.rule!r}")
        object.__setattr__(self, "instance", pairs)

    @property
    def lemma(self) -> str | None:
        """The cited claim id, for a ``"lemma ID"`` step."""
        return self.rule[len("lemma "):].split()[0] if self.rule.startswith("lemma ") else None


def render_statement(equations: Iterable[Equation], assumptions: Iterable[sp.Basic] = ()) -> str:
    """The canonical statement of a user's claim: its equations (and conditions) as text.

    A certificate of a claim that is not in the registry must carry exactly this text, so a
    statement can never say more than the equations that were checked (labels included: a
    label is printed with its equation).

    >>> import sympy as sp
    >>> x = sp.Symbol("x", positive=True)
    >>> render_statement([Equation(sp.sqrt(x**2), x)], [x < 3])
    'x = x, if x < 3'
    """
    eqs = "; ".join((f"{e.label}: " if e.label else "") + f"{sp.sstr(e.lhs)} = {sp.sstr(e.rhs)}"
                    for e in equations)
    conds = ", ".join(sp.sstr(a) for a in assumptions)
    return f"{eqs}, if {conds}" if conds else eqs
