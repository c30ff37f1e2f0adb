"""What is claimed: equations, claims, steps.

A :class:`Claim` is one or more :class:`Equation` s (scalars or same-shape matrices) that
must all hold under the symbols' SymPy assumptions and the claim's relational assumptions.
A proof of one equation is a chain of :class:`Step` s.

**One name, one symbol.** A claim whose expressions hold two different symbols with the
same name (``Symbol("x")`` and ``Symbol("x", real=True)``) is refused at construction with
a :class:`ClaimError`: certificates, counterexamples and renderings name symbols by name, so
two symbols behind one name would make them ambiguous (and order-dependent).

**Well-formed claims only** (:func:`ill_formed`). A claim, and every step of a chain, holds
exact numbers only (a ``Float``'s arithmetic rounds: expanding ``(1 + 1e-20 x)(1 + x)`` drops
the ``1e-20 x``), and every bound variable ranges inside what it is declared to be: a sum
runs upward from a lower limit with the index's properties over an integer number of terms,
an integral between limits with its variable's sign, a ``Subs`` evaluates at a point with
its variable's properties, a derivative is taken in a variable that ranges over an open set
(not an integer), a limit approaches from where its variable may go. Otherwise a rewrite
that holds for every admissible value would be used where the variable takes other values.
A relational assumption may not speak of a variable that the equations only bind.

Nothing here evaluates text: sides are SymPy objects, Python numbers or nested lists
(matrices); strings are refused. A side is a value: a condition (``x > 0``) or a matrix
expression (``MatrixSymbol``) is refused with a message saying what to write instead.

>>> import sympy as sp
>>> x = sp.Symbol("x", real=True)
>>> Claim("demo", "x + x = 2x", (Equation(x + x, 2 * x),)).symbols
(x,)
>>> Claim("demo", "two x", (Equation(x, sp.Symbol("x")),))
Traceback (most recent call last):
pe_symbolic.proof.kernel.claims.ClaimError: claim 'demo' uses two different symbols named 'x': ...
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Literal, TypeAlias

import sympy as sp
from sympy.printing.str import StrPrinter

from ...encodings.symbols import as_expr
from .binders import bound_in

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
    "bound_variables",
    "declared_facts",
    "fits",
    "ill_formed",
    "plain_text",
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


def _short(x: Expr, limit: int = 80) -> str:
    text = sp.sstr(x)
    return text if len(text) <= limit else text[: limit - 3] + "..."


_MATRIX_EXPRESSION = "a matrix expression (MatrixSymbol); write the matrix with its entries (sp.Matrix)"


def _is_matrix_expression(x: Expr) -> bool:
    """A ``MatrixSymbol`` or an expression of them (an explicit matrix is not one)."""
    entries = list(x) if isinstance(x, sp.MatrixBase) else [x]
    return any(isinstance(e, sp.Basic) and (e.has(sp.MatrixSymbol) or isinstance(e, sp.MatrixExpr))
               and not isinstance(e, sp.MatrixBase) for e in entries)


def _not_a_value(x: Expr) -> str:
    """'' for a side of an equation the engine can check, else what it is instead."""
    if _is_matrix_expression(x):
        return _MATRIX_EXPRESSION
    for e in (x if isinstance(x, sp.MatrixBase) else [x]):
        if isinstance(e, (sp.core.relational.Relational, sp.logic.boolalg.BooleanAtom,
                          sp.logic.boolalg.BooleanFunction)):
            return "a condition, not a value (state a sign as sp.sign(e) = 1, a bound as an assumption)"
    return ""


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


# ----------------------------------------------------------------------------------------
# well-formed expressions: exact numbers, and bound variables that range where they may


def declared_facts(symbol: sp.Symbol) -> dict[str, bool]:
    """The facts a symbol was declared with (``Symbol("n", integer=True)`` -> integer)."""
    return dict(getattr(symbol, "_assumptions_orig", None) or symbol.assumptions0)


def fits(value: Expr, symbol: sp.Symbol) -> str:
    """'' if ``value`` has every property ``symbol`` declares, else the first one it lacks.

    The properties the symbol was declared with suffice: SymPy deduces the rest for the value
    by the same rules it used for the symbol (a positive value is real and nonzero).

    >>> import sympy as sp
    >>> r = sp.Symbol("r", positive=True)
    >>> fits(sp.Integer(3), r), fits(sp.Integer(-1), r)
    ('', 'positive')
    """
    if value == symbol:
        return ""
    if isinstance(value, sp.MatrixBase):
        return "a matrix cannot stand for a scalar symbol"
    for fact, wanted in sorted(declared_facts(symbol).items()):
        if getattr(value, f"is_{fact}", None) is not bool(wanted):
            return f"{'' if wanted else 'not '}{fact}"
    return ""


#: Facts whose admissible set is open (in the reals or the complex plane): a rewrite that
#: holds at every admissible point holds on a neighbourhood of it, so it may be made under
#: a derivative or a limit in that variable.
_OPEN = frozenset({"commutative", "complex", "finite", "real", "extended_real", "hermitian",
                   "positive", "negative", "nonzero", "extended_positive", "extended_negative",
                   "extended_nonzero"})
#: Facts a summation index may carry: all hold for ``lo, lo + 1, ...`` once they hold for
#: ``lo`` (``nonzero`` needs ``lo > 0``).
_RANGE = frozenset({"commutative", "integer", "nonnegative", "positive", "real", "rational",
                    "algebraic", "complex", "finite", "hermitian", "extended_real",
                    "extended_nonnegative", "extended_positive", "nonzero", "extended_nonzero"})
#: Facts an integration variable may carry: each holds on an interval once it holds at
#: both ends.
_INTERVAL = frozenset({"commutative", "complex", "finite", "real", "extended_real", "hermitian",
                       "positive", "nonnegative", "negative", "nonpositive", "extended_positive",
                       "extended_nonnegative", "extended_negative", "extended_nonpositive"})
#: Facts of a limit variable that hold eventually along a sequence tending to +oo.
_EVENTUALLY = frozenset({"integer", "even", "odd", "prime", "composite", "rational",
                         "algebraic", "nonnegative", "extended_nonnegative", "noninteger"})


def _true_facts(v: sp.Symbol) -> tuple[set[str], set[str]]:
    facts = declared_facts(v)
    return {k for k, b in facts.items() if b}, {k for k, b in facts.items() if not b}


def _range_problem(node: sp.Basic, lim: tuple) -> str:
    kind = type(node).__name__
    var = lim[0]
    if len(lim) != 3:
        return f"the {kind} over {var} has no explicit limits"
    lo, hi = lim[1], lim[2]
    true, false = _true_facts(var)
    if false:
        return f"the {kind} variable {var} is declared {', '.join(sorted(false))} = False, which its range cannot guarantee"
    if isinstance(node, (sp.Sum, sp.Product)):
        if (hi - lo).is_integer is not True:
            return (f"the {kind} over {var} from {lo} to {hi}: the number of terms {hi} - ({lo}) + 1 is "
                    "not known to be an integer (SymPy would count it as one anyway)")
        if true - _RANGE:
            return f"the {kind} index {var} is declared {', '.join(sorted(true - _RANGE))}, which a range of consecutive values cannot guarantee"
        if true - {"commutative"}:
            if (hi - lo + 1).is_nonnegative is not True:
                return (f"the {kind} over {var} from {lo} to {hi} may run backwards (SymPy then sums "
                        f"over other values of {var}, outside what {var} is declared to be)")
            for fact in sorted(true & (_RANGE - {"nonzero", "extended_nonzero", "commutative"})):
                if getattr(lo, f"is_{fact}") is not True:
                    return f"the lower limit {lo} of {var} is not known to be {fact}"
            if true & {"nonzero", "extended_nonzero"} and lo.is_positive is not True:
                return f"the {kind} index {var} is declared nonzero, but its range may reach 0"
        return ""
    # an integral: every point between the two limits
    if true - _INTERVAL:
        return f"the integration variable {var} is declared {', '.join(sorted(true - _INTERVAL))}, which an interval cannot guarantee"
    for end in (lo, hi):
        if true & {"positive", "nonnegative", "extended_positive", "extended_nonnegative"} and end.is_extended_nonnegative is not True:
            return f"the limit {end} of the integral over {var} is not known to be >= 0"
        if true & {"negative", "nonpositive", "extended_negative", "extended_nonpositive"} and end.is_extended_nonpositive is not True:
            return f"the limit {end} of the integral over {var} is not known to be <= 0"
        if true & {"real", "extended_real", "hermitian"} and end.is_extended_real is not True:
            return f"the limit {end} of the integral over {var} is not known to be real"
    return ""


def _limit_problem(node: sp.Limit) -> str:
    _, z, z0, direction = node.args
    true, false = _true_facts(z)
    d = str(direction)
    if false:
        return f"the limit variable {z} is declared {', '.join(sorted(false))} = False"
    extra = true - _OPEN
    if extra:
        if z0 is sp.oo and not (extra - _EVENTUALLY) and not true & {"negative", "extended_negative"}:
            return ""  # a limit along the integers (or a subsequence of them) as z -> oo
        return (f"the limit of {z} -> {z0} needs {z} to range over a neighbourhood of {z0}, "
                f"but {z} is declared {', '.join(sorted(extra))}")
    if true & {"positive", "extended_positive"} and not (
        z0.is_extended_positive or (z0 == 0 and d == "+")
    ):
        return f"{z} is declared positive, but the limit {z} -> {z0} ({d}) approaches from where it is not"
    if true & {"negative", "extended_negative"} and not (
        z0.is_extended_negative or (z0 == 0 and d == "-")
    ):
        return f"{z} is declared negative, but the limit {z} -> {z0} ({d}) approaches from where it is not"
    if true & {"real", "extended_real", "hermitian"} and z0.is_extended_real is not True:
        return f"{z} is declared real, but {z0} is not known to be real"
    return ""


#: Nodes that bind nothing: arithmetic, applied functions, conditions, atoms (the common case,
#: checked first so that a large claim is scanned quickly).
_PLAIN = (sp.Add, sp.Mul, sp.Pow, sp.Function, sp.Indexed, sp.Tuple, sp.Piecewise,
          sp.core.relational.Relational, sp.logic.boolalg.BooleanFunction, sp.MatrixBase)


def _node_problem(n: sp.Basic) -> str:
    if isinstance(n, _PLAIN) and not isinstance(n, sp.Lambda):
        return ""
    if isinstance(n, sp.Float):
        return (f"the inexact number {n} (a Float: its arithmetic rounds, so nothing about it can "
                "be proved by rewriting); write it exactly, e.g. sp.Rational('0.1') or sp.nsimplify(...)")
    if isinstance(n, (sp.Sum, sp.Product, sp.Integral)):
        for lim in n.limits:
            why = _range_problem(n, tuple(lim))
            if why:
                return why
        return ""
    if isinstance(n, sp.Subs):
        for v, point in zip(n.variables, n.point):
            if not isinstance(v, sp.Symbol):
                return f"Subs replaces {v}, which is not a symbol"
            why = fits(point, v)
            if why:
                return f"Subs evaluates at {v} = {point}, which is not known to be {why} as {v} is declared"
        return ""
    if isinstance(n, sp.Derivative):
        for v, _ in n.variable_count:
            if not isinstance(v, sp.Symbol):
                return f"a derivative with respect to {v}, which is not a symbol"
            true, false = _true_facts(v)
            if false or true - _OPEN:
                facts = sorted(true - _OPEN) + [f"{f} = False" for f in sorted(false)]
                return (f"a derivative with respect to {v}, which is declared {', '.join(facts)}: a "
                        f"derivative needs {v} to range over an open set (declare a real symbol for it)")
        return ""
    if isinstance(n, sp.Limit):
        return _limit_problem(n)
    if isinstance(n, sp.Lambda):
        return f"the function {n} (a Lambda is not a value; apply it)"
    if n.args and not isinstance(n, (sp.Indexed, sp.MatrixSymbol, sp.Symbol)):
        inner = set().union(*(a.free_symbols for a in n.args if isinstance(a, sp.Basic)))
        if inner - n.free_symbols:
            return f"{type(n).__name__} binds {', '.join(sorted(map(str, inner - n.free_symbols)))}, and the engine cannot check rewrites under it"
    return ""


def ill_formed(e: Expr) -> str:
    """'' if ``e`` is a well-formed expression for the engine, else what is wrong with it.

    Well-formed: exact numbers only (no ``Float``); every bound variable ranges inside what it
    is declared to be -- a sum's index from a lower limit that has the index's properties,
    upward (``upper >= lower - 1``: SymPy reads a backward range as a sum over other
    values); an integral's variable between limits that have its sign; a ``Subs`` point that
    has the properties of the variable it replaces; a derivative only in a variable that
    ranges over an open set (real, positive, ... -- not an integer); a limit approached from
    where its variable may go (an integer variable only as it tends to ``+oo``). Otherwise a
    rewrite that holds for every admissible value of the variable could be applied where the
    variable takes other values, and "prove" something false. No ``Lambda`` (a function, not
    a value) and no other binder the engine does not know.

    >>> import sympy as sp
    >>> k = sp.Symbol("k", integer=True, nonnegative=True)
    >>> ill_formed(sp.Sum(k, (k, 0, 9)))
    ''
    >>> ill_formed(sp.Sum(k, (k, 0, -5)))
    'the Sum over k from 0 to -5 may run backwards (SymPy then sums over other values of k, outside what k is declared to be)'
    >>> ill_formed(sp.Symbol("x") * sp.Float("0.5"))[:35]
    'the inexact number 0.500000000000000'
    """
    for x in (e if isinstance(e, sp.MatrixBase) else [e]):
        if isinstance(x, sp.Basic):
            why = _ill_formed_entry(x)
            if why:
                return why
    return ""


# Both scans depend on the expression alone (a symbol's assumptions are part of its identity),
# and a proof at a large d asks about the same lemma sides and steps again and again.
@functools.lru_cache(maxsize=65536)
def _ill_formed_entry(x: sp.Basic) -> str:
    for n in sp.preorder_traversal(x):
        why = _node_problem(n)
        if why:
            return why
    return ""


def bound_variables(e: Expr) -> set[sp.Symbol]:
    """Every variable bound somewhere in ``e``: summation and integration variables, the
    variables of ``Subs`` and ``Lambda``, of a limit, and those a derivative is taken in."""
    out: set[sp.Symbol] = set()
    for x in (e if isinstance(e, sp.MatrixBase) else [e]):
        if isinstance(x, sp.Basic):
            out |= _bound_in_entry(x)
    return out


@functools.lru_cache(maxsize=65536)
def _bound_in_entry(x: sp.Basic) -> frozenset[sp.Symbol]:
    return frozenset(bound_in(x))  # the one definition (binders.bound_in)


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
        for name, side in (("lhs", lhs), ("rhs", rhs)):
            why = _not_a_value(side)
            if why:
                raise TypeError(f"{name}={_short(side)} is {why}")
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
    latex: str = ""
    """The statement typeset in LaTeX math by its author (``r"\\langle R(m)q, R(n)k \\rangle
    = \\langle q, R(n-m)k \\rangle"``), shown by every rendering; display lines are
    separated by ``\\\\`` (:func:`pe_symbolic.proof.render.display_lines`). By default (``""``)
    the renderings typeset the equations (:func:`pe_symbolic.proof.render.statement_latex`).
    A registered theorem gives it with ``@theorem(..., latex=...)``. Display only: never used
    by the checker and not part of certificates."""

    def __post_init__(self) -> None:
        for name in ("id", "statement", "source", "latex"):
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
        for e in eqs:
            for side, x in (("lhs", e.lhs), ("rhs", e.rhs)):
                why = ill_formed(x)
                if why:
                    raise ClaimError(f"claim {self.id!r}: the {side} {_short(x)} is not well-formed: {why}")
        sides = [x for e in eqs for x in (e.lhs, e.rhs)]
        free = symbols_of(sides)
        bound = set().union(*(bound_variables(x) for x in sides))
        for a in assumptions:
            why = ill_formed(a)
            if why:
                raise ClaimError(f"claim {self.id!r}: the assumption {a} is not well-formed: {why}")
            stray = sorted(str(v) for v in (a.free_symbols & bound) - free)
            if stray:
                raise ClaimError(
                    f"claim {self.id!r}: the assumption {a} speaks of {', '.join(stray)}, which "
                    "the equations use only as a bound variable (an assumption cannot constrain it)"
                )
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

    @classmethod
    def unbuilt(cls, id: str, lhs: Any, rhs: Any, why: str) -> Claim:
        """A claim that could not be built (its time budget ran out first), for an ``undecided``
        answer only: nothing is checked and no SymPy work is done on the sides, which are kept
        as given where they are SymPy objects (an unbuilt side shows as the symbol ``unbuilt``).
        Never proved, never re-checked: its statement says why."""
        def keep(x: Any) -> Any:
            return x if isinstance(x, (sp.Basic, sp.MatrixBase)) else sp.Symbol("unbuilt")

        l, r = keep(lhs), keep(rhs)
        if isinstance(l, sp.MatrixBase) != isinstance(r, sp.MatrixBase) or (
                isinstance(l, sp.MatrixBase) and l.shape != r.shape):
            l, r = sp.Symbol("unbuilt"), sp.Symbol("unbuilt")
        eq = object.__new__(Equation)
        for k, v in (("lhs", l), ("rhs", r), ("label", "")):
            object.__setattr__(eq, k, v)
        claim = object.__new__(cls)
        for k, v in (("id", str(id)), ("statement", f"(not stated: {why})"), ("equations", (eq,)),
                     ("assumptions", ()), ("source", "user"), ("notation", ()), ("latex", "")):
            object.__setattr__(claim, k, v)
        return claim

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

    ``rule`` is one of: a rewrite rule named in :data:`pe_symbolic.proof.kernel.rules.RULES`
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
        expr = as_sympy(self.expr, "expr")
        if _is_matrix_expression(expr):
            raise TypeError(f"expr={_short(expr)} is {_MATRIX_EXPRESSION}")
        object.__setattr__(self, "expr", expr)
        inst = self.instance.items() if isinstance(self.instance, dict) else self.instance
        pairs = tuple(sorted((str(k), as_sympy(v, f"instance[{k!r}]")) for k, v in inst))
        if pairs and not self.rule.startswith("lemma "):
            raise ValueError(f"instance= is only for lemma steps; rule={self.rule!r}")
        object.__setattr__(self, "instance", pairs)

    @property
    def lemma(self) -> str | None:
        """The cited claim id, for a ``"lemma ID"`` step."""
        return self.rule[len("lemma "):].split()[0] if self.rule.startswith("lemma ") else None


class _PlainPrinter(StrPrinter):
    """SymPy's text printer, made never to evaluate: SymPy orders the terms of a sum by their
    numeric values (``as_ordered_terms`` evaluates every number-valued term, which for
    ``sin(10**(10**6))`` takes minutes), and prints integers in decimal (beyond Python's
    4300-digit limit it raises). Here terms keep SymPy's stored order, positive terms first
    and numbers last (``x + 1``, ``y - x``), factors their stored order, and an integer of more
    than :data:`_MAX_DIGITS_BITS` bits prints as its size."""

    def __init__(self) -> None:
        super().__init__({"order": "none"})

    def _as_ordered_terms(self, expr: Any, order: Any = None) -> list[Any]:
        terms = list(expr.args)
        neg = [_negative_term(t) for t in terms]
        pos = [t for t, n in zip(terms, neg) if not n]
        minus = [t for t, n in zip(terms, neg) if n]
        return (sorted(pos, key=lambda t: bool(t.is_number)) + sorted(minus, key=lambda t: bool(t.is_number)))

    def _print_Integer(self, expr: Any) -> str:
        if int(expr.p).bit_length() > _MAX_DIGITS_BITS:
            return f"<a {int(expr.p).bit_length()}-bit integer>"
        return super()._print_Integer(expr)

    def _print_Rational(self, expr: Any) -> str:
        if max(int(expr.p).bit_length(), int(expr.q).bit_length()) > _MAX_DIGITS_BITS:
            return f"<a rational of {int(expr.p).bit_length()} and {int(expr.q).bit_length()} bits>"
        return super()._print_Rational(expr)


#: Integers longer than this many bits print as their size (Python prints at most 4300 digits).
_MAX_DIGITS_BITS = 13_000


def _negative_term(t: sp.Basic) -> bool:
    c = t.as_coeff_Mul()[0] if isinstance(t, sp.Expr) else None
    return isinstance(c, sp.Number) and c.is_extended_negative is True


def plain_text(e: Any) -> str:
    """``e`` as one-line text by a printer that never evaluates (see ``_PlainPrinter``).

    >>> import sympy as sp
    >>> x, y = sp.symbols("x y")
    >>> plain_text(x + 1), plain_text(y - x), plain_text(sp.sin(10 ** (10**6)) + x)
    ('x + 1', 'y - x', 'x + sin(<a 3321929-bit integer>)')
    """
    return _PlainPrinter().doprint(e)


def render_statement(equations: Iterable[Equation], assumptions: Iterable[sp.Basic] = ()) -> str:
    """The canonical statement of a user's claim: its equations (and conditions) as text.

    A certificate of a claim that is not in the registry must carry exactly this text, so a
    statement can never say more than the equations that were checked (labels included: a
    label is printed with its equation). The text is printed by a printer that never
    evaluates (:func:`plain_text`): printing a statement cannot outrun a time budget.

    >>> import sympy as sp
    >>> x = sp.Symbol("x", positive=True)
    >>> render_statement([Equation(sp.sqrt(x**2), x)], [x < 3])
    'x = x, if x < 3'
    """
    eqs = "; ".join((f"{e.label}: " if e.label else "") + f"{plain_text(e.lhs)} = {plain_text(e.rhs)}"
                    for e in equations)
    conds = ", ".join(plain_text(a) for a in assumptions)
    return f"{eqs}, if {conds}" if conds else eqs
