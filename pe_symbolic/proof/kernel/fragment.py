r"""The checked fragment: the SymPy heads the kernel understands, and nothing else.

The kernel accepts a claim, a step of a chain or a lemma instance only when **every node**
of it is in :data:`FRAGMENT`, a whitelist: for each head, what it binds, where it is defined
and which named rules may rewrite it. Anything else -- an integral or integral transform, a
determinant of symbolic size, ``floor``, ``gamma``, an undefined function declared with
assumptions, a condition (``x > 0``) where a value is expected, ``nan``, ``oo`` -- is outside,
and :func:`outside_fragment` names it: the verdict is then ``undecided`` with the reason
``"outside the checked fragment: NAME"``, never ``proved``.

Why a whitelist: SymPy objects carry methods (``doit``, the integrator, summation, limits,
transforms) that are not all correct, and a kernel that trusts any object trusts all of them.
Inside the fragment, what rewrites an expression is the kernel's named rules
(:mod:`pe_symbolic.proof.kernel.rules`), SymPy's automatic evaluation on construction, and its
assumption system; each head's row says which of them touch it.

Positions matter as well as heads:

* a **condition** (a relation, ``And``/``Or``/``Not``, ``True``/``False``) only as the
  condition of a ``Piecewise`` branch, never as a value: a chain that reaches ``True`` proves
  nothing;
* ``oo`` and ``-oo`` only as the point a ``Limit`` approaches;
* a ``Tuple`` only as the limits of a binder, an ``IndexedBase`` only as the base of an entry;
* a matrix only as a whole side, or as the argument of ``Determinant`` (then of concrete size).

>>> import sympy as sp
>>> x = sp.Symbol("x", positive=True)
>>> outside_fragment(sp.sin(x)**2 + sp.cos(x)**2)
''
>>> outside_fragment(sp.FourierTransform(sp.log(x), x, sp.Symbol("k")))
'outside the checked fragment: FourierTransform'
>>> outside_fragment(sp.Subs(sp.Symbol("y", real=True) > 0, sp.Symbol("y", real=True), 1))
'outside the checked fragment: a condition (StrictGreaterThan) where a value is expected'
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import sympy as sp
from sympy.core.function import AppliedUndef
from sympy.core.relational import Relational
from sympy.functions.elementary.piecewise import ExprCondPair
from sympy.logic.boolalg import BooleanAtom, BooleanFunction

__all__ = ["FRAGMENT", "Head", "fragment_table", "outside_fragment"]


@dataclass(frozen=True)
class Head:
    """One row of the fragment: a SymPy head, its kind, and why the kernel may hold it."""

    name: str
    cls: type | tuple[type, ...]
    kind: str  # "atom", "arithmetic", "function", "binder", "matrix" or "condition"
    why: str


_NUMBERS = "exact; SymPy's arithmetic on them is exact"
#: The whitelist (see the module notes). The docs print it as a table (:func:`fragment_table`).
FRAGMENT: tuple[Head, ...] = (
    Head("Integer", sp.Integer, "atom", _NUMBERS),
    Head("Rational", sp.Rational, "atom", _NUMBERS),
    Head("pi", type(sp.pi), "atom", "a constant; evaluated only by interval enclosures"),
    Head("E", type(sp.E), "atom", "a constant (exp(1))"),
    Head("I", type(sp.I), "atom", "the imaginary unit"),
    Head("Symbol", sp.Symbol, "atom",
         "a free variable with SymPy assumptions, or a binder's variable; consistent by construction "
         "(contradictory relational assumptions are detected separately)"),
    Head("Indexed", sp.Indexed, "atom", "an entry q[i] of a sequence; its base's assumptions hold for every entry"),
    Head("Add", sp.Add, "arithmetic", "sums; rewritten by expand, together, cancel"),
    Head("Mul", sp.Mul, "arithmetic", "products; rewritten by expand, together, cancel, powsimp"),
    Head("Pow", sp.Pow, "arithmetic",
         "principal powers; bases combined or split only where the assumptions allow (no force=True); "
         "a negative power makes the result hold wherever defined"),
    Head("exp", sp.exp, "function", "entire; angle addition through rewrite(exp) and powsimp"),
    Head("log", sp.log, "function", "the principal logarithm; split only for positive arguments"),
    Head("sin", sp.sin, "function", "entire; angle addition (expand(trig=True)), sin^2 = 1 - cos^2"),
    Head("cos", sp.cos, "function", "entire; angle addition (expand(trig=True))"),
    Head("atan", sp.atan, "function", "principal branch; rewritten only by automatic evaluation"),
    Head("Abs", sp.Abs, "function", "|z|; removed only where the sign is known from the assumptions"),
    Head("sign", sp.sign, "function", "z/|z| (0 at 0); evaluated only where the sign is known"),
    Head("Max", sp.Max, "function", "real arguments; decided only where the order is known"),
    Head("Min", sp.Min, "function", "real arguments; decided only where the order is known"),
    Head("KroneckerDelta", sp.KroneckerDelta, "function",
         "1 if the arguments are equal, else 0; summed by the delta rule (index with coefficient +-1, "
         "integer lower limit, range known to run forward)"),
    Head("Piecewise", (sp.Piecewise, ExprCondPair), "function",
         "the first branch whose condition holds; a condition is replaced only by an assumption of the claim"),
    Head("uninterpreted function", AppliedUndef, "function",
         "f(x) for an undefined f without assumptions: any rewrite valid for every f"),
    Head("Sum", sp.Sum, "binder",
         "a finite sum: index inside its declared range, an integer number of terms (checked); evaluated "
         "only by the finite, constant, geometric and delta rules"),
    Head("Product", sp.Product, "binder", "a finite product, as Sum; evaluated only with concrete bounds or a constant factor"),
    Head("Derivative", sp.Derivative, "binder",
         "in a variable ranging over an open set (checked); evaluated only for entire or explicitly "
         "differentiable heads (chain rule)"),
    Head("Subs", sp.Subs, "binder", "f at a point with the variable's properties (checked); substituted only "
         "where the variable is not bound inside f"),
    Head("Limit", sp.Limit, "binder",
         "evaluated only by continuity at a finite point or by the limit rules at +-oo (rational functions, "
         "atan, exp, powers); never by SymPy's limit"),
    Head("Matrix", sp.ImmutableDenseMatrix, "matrix", "a matrix of fixed shape with entries in the fragment"),
    Head("Determinant", sp.Determinant, "matrix",
         "of an explicit matrix of concrete size: the product of its diagonal blocks' determinants up "
         "to a permutation, each at most 8x8 (Berkowitz, division free); of a block-diagonal matrix, the same"),
    Head("relation", Relational, "condition", "only as a Piecewise condition"),
    Head("And/Or/Not", BooleanFunction, "condition", "only as a Piecewise condition"),
    Head("True/False", BooleanAtom, "condition", "only as a Piecewise condition"),
)

_VALUE_HEADS = tuple(c for h in FRAGMENT if h.kind != "condition" for c in (h.cls if isinstance(h.cls, tuple) else (h.cls,)))
_CONDITIONS = (Relational, BooleanFunction, BooleanAtom)
_RELATIONS = (sp.StrictLessThan, sp.LessThan, sp.StrictGreaterThan, sp.GreaterThan, sp.Equality, sp.Unequality)
_LOGIC = (sp.And, sp.Or, sp.Not)
_EXCLUDED_SYMBOLS = (sp.Dummy, sp.Wild)
#: A determinant is held only for matrices up to this size (and evaluated only when its
#: diagonal blocks, up to a permutation, are at most 8x8).
MAX_DETERMINANT = 256


def _out(what: str) -> str:
    return f"outside the checked fragment: {what}"


def _name(node: sp.Basic) -> str:
    if isinstance(node, AppliedUndef):
        return f"{type(node).__name__} (an undefined function declared with assumptions)"
    return type(node).__name__


def _undef_ok(node: AppliedUndef) -> bool:
    declared = {k: v for k, v in (type(node).default_assumptions or {}).items() if k != "commutative"}
    return not declared


def outside_fragment(e: object) -> str:
    """``''`` if every node of ``e`` (a SymPy expression or matrix) is in the checked fragment,
    else ``"outside the checked fragment: NAME"`` for the first node that is not."""
    if isinstance(e, sp.MatrixBase):
        if not isinstance(e, sp.ImmutableDenseMatrix):
            e = sp.ImmutableDenseMatrix(e)
        for x in e:
            why = _outside(x)
            if why:
                return why
        return ""
    if not isinstance(e, sp.Basic):
        return _out(type(e).__name__)
    return _outside(e)


@functools.lru_cache(maxsize=65536)
def _outside(e: sp.Basic) -> str:
    # an explicit stack: deep trees never reach Python's recursion limit
    stack: list[tuple[sp.Basic, str]] = [(e, "value")]
    seen: set[tuple[int, str]] = set()
    while stack:
        node, role = stack.pop()
        key = (id(node), role)
        if key in seen:
            continue
        seen.add(key)
        why = _check(node, role, stack)
        if why:
            return why
    return ""


def _check(node: sp.Basic, role: str, stack: list) -> str:
    if role == "condition":
        if isinstance(node, BooleanAtom):
            return ""
        if isinstance(node, _RELATIONS):
            stack.extend((a, "value") for a in node.args)
            return ""
        if isinstance(node, _LOGIC):
            stack.extend((a, "condition") for a in node.args)
            return ""
        return _out(f"{_name(node)} where a condition is expected")
    if role == "point" and node in (sp.oo, sp.S.NegativeInfinity):
        return ""
    if isinstance(node, _CONDITIONS):
        return _out(f"a condition ({type(node).__name__}) where a value is expected")
    if isinstance(node, sp.MatrixBase):
        if role != "matrix":
            return _out("a matrix inside an expression")
        stack.extend((x, "value") for x in node)
        return ""
    if isinstance(node, sp.Symbol):
        if isinstance(node, _EXCLUDED_SYMBOLS):
            return _out(type(node).__name__)
        return ""
    if isinstance(node, sp.Number) and not isinstance(node, sp.Rational):
        return _out(type(node).__name__)  # Float, nan, oo, zoo
    if isinstance(node, AppliedUndef):
        if not _undef_ok(node):
            return _out(_name(node))
        stack.extend((a, "value") for a in node.args)
        return ""
    if not isinstance(node, _VALUE_HEADS):
        return _out(_name(node))
    if isinstance(node, sp.Indexed):
        base = node.base
        if not isinstance(base.label, sp.Symbol) or len(base.args) != 1:
            return _out("an IndexedBase with a shape or a non-symbol label")
        stack.extend((a, "value") for a in node.indices)
        return ""
    if isinstance(node, sp.Piecewise):
        for pair in node.args:
            stack.append((pair.expr, "value"))
            stack.append((pair.cond, "condition"))
        return ""
    if isinstance(node, (sp.Sum, sp.Product)):
        stack.append((node.function, "value"))
        for lim in node.limits:
            if len(lim) != 3 or not isinstance(lim[0], sp.Symbol):
                return _out(f"a {type(node).__name__} without explicit limits")
            stack.extend((b, "value") for b in lim[1:])
        return ""
    if isinstance(node, sp.Derivative):
        stack.append((node.expr, "value"))
        for v, n in node.variable_count:
            if not isinstance(v, sp.Symbol) or not isinstance(n, sp.Integer):
                return _out("a derivative in something that is not a symbol")
        return ""
    if isinstance(node, sp.Subs):
        stack.append((node.expr, "value"))
        if not all(isinstance(v, sp.Symbol) for v in node.variables):
            return _out("a Subs of something that is not a symbol")
        stack.extend((p, "value") for p in node.point)
        return ""
    if isinstance(node, sp.Limit):
        body, var, point, _ = node.args
        if not isinstance(var, sp.Symbol):
            return _out("a limit in something that is not a symbol")
        stack.append((body, "value"))
        stack.append((point, "point"))
        return ""
    if isinstance(node, sp.Determinant):
        m = node.arg
        if isinstance(m, sp.BlockDiagMatrix) and all(isinstance(b, sp.MatrixBase) for b in m.args):
            for b in m.args:  # det of a block-diagonal matrix: the product of the blocks' dets
                if b.rows != b.cols or b.rows > MAX_DETERMINANT:
                    return _out(f"Determinant of a block-diagonal matrix with a {b.rows}x{b.cols} block")
                stack.append((b, "matrix"))
            return ""
        if not isinstance(m, sp.MatrixBase):
            return _out("Determinant of a matrix of symbolic size")
        if m.rows != m.cols or m.rows > MAX_DETERMINANT:
            return _out(f"Determinant of a {m.rows}x{m.cols} matrix (square, at most {MAX_DETERMINANT}x{MAX_DETERMINANT})")
        stack.append((m, "matrix"))
        return ""
    if isinstance(node, sp.Tuple):
        return _out("a Tuple where a value is expected")
    stack.extend((a, "value") for a in node.args)
    return ""


def fragment_table() -> str:
    """The fragment as a Markdown table (head, kind, what the kernel relies on); the docs print it."""
    rows = ["| head | kind | binding, domain and the rules that touch it |", "| --- | --- | --- |"]
    rows += [f"| `{h.name}` | {h.kind} | {h.why} |" for h in FRAGMENT]
    return "\n".join(rows)
