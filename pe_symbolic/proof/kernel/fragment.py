r"""The checked fragment: the SymPy heads **and the facts** the kernel understands, and nothing else.

The kernel accepts a claim, a step of a chain, a lemma instance or a certificate only when
**every node** of it is in :data:`FRAGMENT`, a whitelist: for each head, what it binds, where
it is defined and which named rules may rewrite it; and when **every symbol** (free or bound,
and every function and sequence) carries only facts of :data:`FACTS`, a second whitelist:
for each SymPy assumption, the values the kernel holds and what they mean. Anything else -- an
integral or integral transform, a determinant of symbolic size, ``floor``, ``gamma``, an
undefined function declared with assumptions, a condition (``x > 0``) where a value is
expected, ``nan``, ``oo``; a non-commutative or polar symbol, one that may be infinite -- is
outside, and :func:`outside_fragment` names it: the verdict is then ``undecided`` with the
reason ``"outside the checked fragment: NAME"``, never ``proved``.

**Facts.** Every symbol stands for a finite complex number that commutes with everything
(SymPy's default), narrowed by its facts: real, positive, integer, prime, ... The rules the
kernel relies on (angle addition, ``expand``, Berkowitz's determinant, ``powsimp``) assume
commuting values, so ``commutative=False`` is out (with it, angle addition "proved"
``cos(A + B) = cos A cos B - sin A sin B``); ``polar=True`` gives ``log`` another semantics
(``log(x y) = log x + log y`` on the Riemann surface), which the kernel does not model; a fact
that admits an infinite value (``extended_real`` without ``finite``, ``infinite``) is out,
since ``x - x = 0`` is not true at ``oo``; ``hermitian`` and ``antihermitian`` are held only
where the other facts imply them (they speak of operators).

**Adding a head** is one row of :data:`FRAGMENT` (its class, kind, what the kernel relies on
and, for a head with poles or branch points, ``defined``: when a node is certainly defined
wherever its arguments are), plus its enclosure (:mod:`~pe_symbolic.proof.kernel.enclosure`),
its evaluation if it binds (:mod:`~pe_symbolic.proof.kernel.binders`) and its Coq printing
(:mod:`pe_symbolic.proof.coq`); the docs print the table (:func:`fragment_table`).

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
>>> outside_fragment(sp.cos(sp.Symbol("A", commutative=False)))
'outside the checked fragment: the symbol A is declared commutative=False (the kernel holds commutative=True only)'
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass

import sympy as sp
from sympy.core.function import AppliedUndef
from sympy.core.relational import Relational
from sympy.functions.elementary.piecewise import ExprCondPair
from sympy.logic.boolalg import BooleanAtom, BooleanFunction

from .binders import differentiable, limit

__all__ = ["FACTS", "FRAGMENT", "Fact", "Head", "defined_here", "fact_problem", "facts_table", "fragment_table",
           "inverse_hyperbolic_domain", "outside_fragment"]


@dataclass(frozen=True)
class Head:
    """One row of the fragment: a SymPy head, its kind, why the kernel may hold it, and where
    it is defined.

    ``defined(node)`` is ``True`` when the node is certainly defined wherever its arguments
    are (``None``: always, an entire function or an operation defined everywhere). The
    definedness analysis (:func:`defined_here`) reads it: a proof of an equation with a node
    that may be undefined holds *wherever both sides are defined*, and is called proved only
    with a point where they are (:mod:`~pe_symbolic.proof.kernel.gate`).
    """

    name: str
    cls: type | tuple[type, ...]
    kind: str  # "atom", "arithmetic", "function", "binder", "matrix" or "condition"
    why: str
    defined: Callable[[sp.Basic], bool] | None = None
    domain: str = "everywhere"


_NUMBERS = "exact; SymPy's arithmetic on them is exact"
_QUOTIENT = ("{} for every complex u (rule 'quotients'); addition and multiple angles by expand(trig=True); values "
             "at rational multiples of pi by automatic evaluation and the cyclotomic rule")
_HYPERBOLIC = "{} for every complex u (rule 'quotients'); exp form by rewrite(exp)"
_INVERSE = ("principal branch, values in {}; rewritten only by automatic evaluation ({}, special values, "
            "inverses of numbers) and the inverse-trigonometric rules")
_PARTS = ("z = a + i b with a, b real, split by the rule 're/im' where the kernel knows the parts (real expressions, "
          "i, sums, products, integer powers, exp, sin, cos); gives {}; automatic evaluation")


#: Heads the kernel holds defined on part of the real line only (their derivative formulas
#: extend beyond it: a derivative of them is defined only where they are).
_REAL_DOMAIN = (sp.asin, sp.acos, sp.acot, sp.asec, sp.acsc, sp.asinh, sp.acosh, sp.atanh, sp.acoth, sp.asech,
                sp.acsch)


def _nonzero(e: sp.Basic) -> bool:
    return e.is_zero is False


def _real(e: sp.Basic) -> bool:
    return e.is_extended_real is True


def _in_unit(u: sp.Basic) -> bool:
    """``u`` is known real with ``-1 <= u <= 1`` (the real domain of asin and acos)."""
    return _real(u) and (1 - u**2).is_nonnegative is True


def _outside_unit(u: sp.Basic) -> bool:
    """``u`` is known real with ``|u| >= 1`` (the real domain of asec and acsc)."""
    return _real(u) and (u**2 - 1).is_nonnegative is True


#: The inverse hyperbolic heads and their real domains: in the fragment only where SymPy's
#: assumptions place the argument there (complex or out-of-domain arguments are outside,
#: where SymPy's values are complex and its log formulas change branch).
_INVERSE_HYPERBOLIC_DOMAINS: dict[type, tuple[str, Callable[[sp.Basic], bool]]] = {
    sp.asinh: ("real u", _real),
    sp.acosh: ("real u >= 1", lambda u: _real(u) and (u - 1).is_nonnegative is True),
    sp.atanh: ("real u with |u| < 1", lambda u: _real(u) and (1 - u**2).is_positive is True),
    sp.acoth: ("real u with |u| > 1", lambda u: _real(u) and (u**2 - 1).is_positive is True),
    sp.asech: ("real u with 0 < u <= 1", lambda u: _real(u) and u.is_positive is True
               and (1 - u).is_nonnegative is True),
    sp.acsch: ("real u != 0", lambda u: _real(u) and u.is_zero is False),
}


def inverse_hyperbolic_domain(node: sp.Basic) -> bool:
    """Whether ``node`` (an ``asinh``, ``acosh``, ``atanh``, ``acoth``, ``asech`` or ``acsch``)
    has an argument known (by SymPy's assumptions) to lie in the head's real domain.

    >>> import sympy as sp
    >>> x, p = sp.Symbol("x", real=True), sp.Symbol("p", positive=True)
    >>> inverse_hyperbolic_domain(sp.asinh(x)), inverse_hyperbolic_domain(sp.acosh(x))
    (True, False)
    >>> inverse_hyperbolic_domain(sp.acosh(p + 1)), inverse_hyperbolic_domain(sp.atanh(sp.Rational(1, 2)))
    (True, True)
    """
    _, known = _INVERSE_HYPERBOLIC_DOMAINS[type(node)]
    try:
        return bool(known(node.args[0]))
    except (AttributeError, TypeError, ValueError, RecursionError):
        return False


_INVERSE_HYPERBOLIC = ("principal branch on the real domain only, {}; rewritten by automatic evaluation ({}, special "
                       "values) and the rule 'inverse hyperbolic' (log form); a complex or out-of-domain argument is "
                       "outside the fragment")
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
         "a negative power makes the result hold wherever defined",
         lambda n: n.exp.is_nonnegative is True or n.base.is_zero is False,
         "where the base is nonzero or the exponent nonnegative"),
    Head("exp", sp.exp, "function", "entire; angle addition through rewrite(exp) and powsimp"),
    Head("log", sp.log, "function",
         "the principal logarithm; split only for positive arguments; log(x, b) = log(x)/log(b) (SymPy's definition, "
         "by automatic evaluation)",
         lambda n: all(a.is_zero is False for a in n.args) and (len(n.args) == 1 or (n.args[1] - 1).is_zero is False),
         "where the argument is nonzero (and a base is neither 0 nor 1)"),
    Head("sin", sp.sin, "function", "entire; angle addition (expand(trig=True)), sin^2 = 1 - cos^2"),
    Head("cos", sp.cos, "function", "entire; angle addition (expand(trig=True))"),
    Head("tan", sp.tan, "function", _QUOTIENT.format("sin(u)/cos(u)"),
         lambda n: _nonzero(sp.cos(n.args[0])), "where cos(u) != 0"),
    Head("cot", sp.cot, "function", _QUOTIENT.format("cos(u)/sin(u)"),
         lambda n: _nonzero(sp.sin(n.args[0])), "where sin(u) != 0"),
    Head("sec", sp.sec, "function", _QUOTIENT.format("1/cos(u)"),
         lambda n: _nonzero(sp.cos(n.args[0])), "where cos(u) != 0"),
    Head("csc", sp.csc, "function", _QUOTIENT.format("1/sin(u)"),
         lambda n: _nonzero(sp.sin(n.args[0])), "where sin(u) != 0"),
    Head("sinh", sp.sinh, "function", "entire; (exp(u) - exp(-u))/2 by rewrite(exp); addition by expand(trig=True)"),
    Head("cosh", sp.cosh, "function", "entire; (exp(u) + exp(-u))/2 by rewrite(exp); addition by expand(trig=True)"),
    Head("tanh", sp.tanh, "function", _HYPERBOLIC.format("sinh(u)/cosh(u)"),
         lambda n: _real(n.args[0]) or _nonzero(sp.cosh(n.args[0])), "where cosh(u) != 0 (every real u)"),
    Head("coth", sp.coth, "function", _HYPERBOLIC.format("cosh(u)/sinh(u)"),
         lambda n: _nonzero(sp.sinh(n.args[0])), "where sinh(u) != 0"),
    Head("sech", sp.sech, "function", _HYPERBOLIC.format("1/cosh(u)"),
         lambda n: _real(n.args[0]) or _nonzero(sp.cosh(n.args[0])), "where cosh(u) != 0 (every real u)"),
    Head("csch", sp.csch, "function", _HYPERBOLIC.format("1/sinh(u)"),
         lambda n: _nonzero(sp.sinh(n.args[0])), "where sinh(u) != 0"),
    Head("asin", sp.asin, "function", _INVERSE.format("[-pi/2, pi/2]", "asin(-u) = -asin(u)"),
         lambda n: _in_unit(n.args[0]), "for real u in [-1, 1]"),
    Head("acos", sp.acos, "function", _INVERSE.format("[0, pi]", "acos(-u) = pi - acos(u)"),
         lambda n: _in_unit(n.args[0]), "for real u in [-1, 1]"),
    Head("atan", sp.atan, "function", "principal branch; rewritten only by automatic evaluation",
         lambda n: n.args[0].is_extended_real is True, "for real arguments (poles at +-i)"),
    Head("acot", sp.acot, "function",
         _INVERSE.format("(-pi/2, pi/2], atan(1/u)", "acot(-u) = -acot(u)")
         + "; held undefined at 0, where SymPy's acot(0) = pi/2 contradicts its own acot(-u) = -acot(u)",
         lambda n: _real(n.args[0]) and n.args[0].is_zero is False, "for real u != 0"),
    Head("asec", sp.asec, "function", _INVERSE.format("[0, pi], acos(1/u)", "special values"),
         lambda n: _outside_unit(n.args[0]), "for real u with |u| >= 1"),
    Head("acsc", sp.acsc, "function", _INVERSE.format("[-pi/2, pi/2], asin(1/u)", "acsc(-u) = -acsc(u)"),
         lambda n: _outside_unit(n.args[0]), "for real u with |u| >= 1"),
    Head("atan2", sp.atan2, "function",
         "atan2(y, x): the angle of x + i y in (-pi, pi], SymPy's principal branch; rewritten only by automatic "
         "evaluation (atan(y/x) and +-pi where the signs are known)",
         lambda n: _real(n.args[0]) and _real(n.args[1]) and (n.args[0].is_zero is False or n.args[1].is_zero is False),
         "for real y, x, not both 0"),
    Head("asinh", sp.asinh, "function", _INVERSE_HYPERBOLIC.format("log(u + sqrt(u^2 + 1))", "asinh(-u) = -asinh(u)"),
         inverse_hyperbolic_domain, "for real u (else outside)"),
    Head("acosh", sp.acosh, "function",
         _INVERSE_HYPERBOLIC.format("log(u + sqrt(u^2 - 1)), values >= 0", "acosh(1) = 0"),
         inverse_hyperbolic_domain, "for real u >= 1 (else outside)"),
    Head("atanh", sp.atanh, "function",
         _INVERSE_HYPERBOLIC.format("(log(1 + u) - log(1 - u))/2", "atanh(-u) = -atanh(u)"),
         inverse_hyperbolic_domain, "for real u with |u| < 1 (else outside)"),
    Head("acoth", sp.acoth, "function",
         _INVERSE_HYPERBOLIC.format("log((u + 1)/(u - 1))/2 = atanh(1/u)", "acoth(-u) = -acoth(u)"),
         inverse_hyperbolic_domain, "for real u with |u| > 1 (else outside)"),
    Head("asech", sp.asech, "function",
         _INVERSE_HYPERBOLIC.format("log(1/u + sqrt(1/u^2 - 1)) = acosh(1/u), values >= 0", "asech(1) = 0"),
         inverse_hyperbolic_domain, "for real u with 0 < u <= 1 (else outside)"),
    Head("acsch", sp.acsch, "function",
         _INVERSE_HYPERBOLIC.format("log(1/u + sqrt(1/u^2 + 1)) = asinh(1/u)", "acsch(-u) = -acsch(u)"),
         inverse_hyperbolic_domain, "for real u != 0 (else outside)"),
    Head("Abs", sp.Abs, "function", "|z|; removed only where the sign is known from the assumptions"),
    Head("re", sp.re, "function", _PARTS.format("a")),
    Head("im", sp.im, "function", _PARTS.format("b")),
    Head("conjugate", sp.conjugate, "function", _PARTS.format("a - i b")),
    Head("arg", sp.arg, "function",
         "the principal argument, in (-pi, pi]: atan2(im z, re z) for z != 0 (SymPy's definition); rewritten by "
         "automatic evaluation (numbers through atan2, arg(exp(i b)) reduced mod 2 pi exactly) and the rule 'arg' "
         "(positive factors removed, then atan2 of the parts where the rule 're/im' splits z)",
         lambda n: n.args[0].is_zero is False, "where z != 0"),
    Head("sign", sp.sign, "function", "z/|z| (0 at 0); evaluated only where the sign is known"),
    Head("Max", sp.Max, "function", "real arguments; decided only where the order is known"),
    Head("Min", sp.Min, "function", "real arguments; decided only where the order is known"),
    Head("KroneckerDelta", sp.KroneckerDelta, "function",
         "1 if the arguments are equal, else 0; summed by the delta rule (index with coefficient +-1, "
         "integer lower limit, range known to run forward)"),
    Head("Piecewise", (sp.Piecewise, ExprCondPair), "function",
         "the first branch whose condition holds; a condition is replaced only by an assumption of the claim",
         lambda n: not isinstance(n, sp.Piecewise) or n.args[-1].cond is sp.true,
         "where a branch holds (everywhere with an otherwise branch)"),
    Head("uninterpreted function", AppliedUndef, "function",
         "f(x) for an undefined f without assumptions: any rewrite valid for every f"),
    Head("Sum", sp.Sum, "binder",
         "a finite sum: index inside its declared range, an integer number of terms (checked); evaluated "
         "only by the finite, constant, geometric and delta rules"),
    Head("Product", sp.Product, "binder", "a finite product, as Sum; evaluated only with concrete bounds or a constant factor"),
    Head("Derivative", sp.Derivative, "binder",
         "in a variable ranging over an open set (checked); evaluated only for entire or explicitly "
         "differentiable heads (chain rule)",
         lambda n: all(isinstance(v, sp.Symbol) and differentiable(n.expr, v) for v, _ in n.variable_count)
         and not n.expr.has(*_REAL_DOMAIN),
         "where the chain rule applies (and, for asin, acos, acot, asec, acsc and the inverse hyperbolic heads, where "
         "they are defined)"),
    Head("Subs", sp.Subs, "binder", "f at a point with the variable's properties (checked); several "
         "variables are substituted in order, as SymPy merges and means them; substituted only where the "
         "variable is not bound inside f"),
    Head("Limit", sp.Limit, "binder",
         "evaluated only by continuity at a finite point or by the limit rules at +-oo (rational functions, "
         "atan, exp, powers); never by SymPy's limit",
         lambda n: _finite_limit(n), "where the limit laws give a finite value"),
    Head("Matrix", sp.ImmutableDenseMatrix, "matrix", "a matrix of fixed shape with entries in the fragment"),
    Head("Determinant", sp.Determinant, "matrix",
         "of an explicit matrix of concrete size (1 for the 0x0 matrix): the product of its diagonal blocks' determinants up "
         "to a permutation, each at most 8x8 (Berkowitz, division free); of a block-diagonal matrix, the same"),
    Head("relation", Relational, "condition", "only as a Piecewise condition"),
    Head("And/Or/Not", BooleanFunction, "condition", "only as a Piecewise condition"),
    Head("True/False", BooleanAtom, "condition", "only as a Piecewise condition"),
)



def _finite_limit(n: sp.Limit) -> bool:
    v = limit(n.args[0], n.args[1], n.args[2])
    return v is not None and v.is_finite is True


@dataclass(frozen=True)
class Fact:
    """One row of the facts whitelist: a SymPy assumption, the values the kernel holds, and
    what they mean here."""

    name: str
    values: tuple[bool, ...]
    why: str


_SIGN = "the sign, as SymPy decides it for the values (checked at every sampled point)"
_CLASS = "a number class; a rewrite that needs it asks SymPy's assumption system"
#: The facts a symbol (free or bound), an undefined function or a sequence may carry. A fact
#: not listed, or a value not listed, is outside the fragment (see the module notes).
FACTS: tuple[Fact, ...] = (
    Fact("commutative", (True,), "values commute: angle addition, expand, powsimp and Berkowitz's "
         "determinant rely on it (commutative=False is out)"),
    Fact("infinite", (False,), "as finite"),
    Fact("finite", (True,), "finite: x - x = 0 holds (an infinite symbol is out)"),
    Fact("complex", (True,), "a finite complex number, the default range of a symbol"),
    Fact("real", (True, False), "real, or (False) a non-real complex number"),
    Fact("extended_real", (True, False), "as real; True only together with finite (else the value may be +-oo)"),
    Fact("imaginary", (True, False), "a purely imaginary number"),
    Fact("zero", (True, False), _SIGN),
    Fact("nonzero", (True, False), _SIGN),
    Fact("positive", (True, False), _SIGN),
    Fact("negative", (True, False), _SIGN),
    Fact("nonnegative", (True, False), _SIGN),
    Fact("nonpositive", (True, False), _SIGN),
    Fact("extended_positive", (True, False), _SIGN + "; True only together with finite"),
    Fact("extended_negative", (True, False), _SIGN + "; True only together with finite"),
    Fact("extended_nonnegative", (True, False), _SIGN + "; True only together with finite"),
    Fact("extended_nonpositive", (True, False), _SIGN + "; True only together with finite"),
    Fact("extended_nonzero", (True, False), _SIGN + "; True only together with finite"),
    Fact("integer", (True, False), _CLASS),
    Fact("noninteger", (True, False), _CLASS),
    Fact("rational", (True, False), _CLASS),
    Fact("irrational", (True, False), _CLASS),
    Fact("algebraic", (True, False), _CLASS),
    Fact("transcendental", (True, False), _CLASS),
    Fact("even", (True, False), _CLASS),
    Fact("odd", (True, False), _CLASS),
    Fact("prime", (True, False), _CLASS),
    Fact("composite", (True, False), _CLASS),
    Fact("polar", (False,), "polar=True (a point of log's Riemann surface) gives log another semantics: out"),
    Fact("hermitian", (True, False), "only where the other facts imply it (real); declared alone it speaks "
         "of operators: out"),
    Fact("antihermitian", (True, False), "only where the other facts imply it (imaginary); declared alone: out"),
)
_FACTS = {f.name: f for f in FACTS}
_IMPLIED_ONLY = ("hermitian", "antihermitian")


@functools.lru_cache(maxsize=4096)
def _facts_of(items: tuple[tuple[str, bool], ...], what: str) -> str:
    facts = dict(items)
    for k in sorted(facts):
        if k not in _FACTS:
            return f"{what} is declared {k}={facts[k]}, a fact the kernel does not hold"
    for row in FACTS:  # in the table's order: the most telling fact first
        k = row.name
        if k not in facts:
            continue
        v = facts[k]
        if v not in row.values:
            held = " or ".join(str(b) for b in row.values)
            return f"{what} is declared {k}={v} (the kernel holds {k}={held} only)"
        if k.startswith("extended_") and v is True and facts.get("finite") is not True:
            return f"{what} is declared {k}=True without finite=True: it may be infinite"
    implied = {k: v for k, v in facts.items() if k not in _IMPLIED_ONLY}
    try:
        closure = sp.Symbol("_", **implied).assumptions0
    except Exception:  # noqa: BLE001 - inconsistent: SymPy would have refused the symbol itself
        return f"{what} has facts SymPy cannot close"
    for k in _IMPLIED_ONLY:
        if k in facts and closure.get(k) != facts[k]:
            return f"{what} is declared {k}={facts[k]}, which its other facts do not imply"
    return ""


def fact_problem(s: sp.Basic) -> str:
    """``''`` when the symbol (or undefined function, or sequence label) ``s`` carries only the
    facts of :data:`FACTS` with values held there; else what is wrong (see the module notes).

    >>> import sympy as sp
    >>> fact_problem(sp.Symbol("x", positive=True)), fact_problem(sp.Symbol("z", polar=True))
    ('', 'the symbol z is declared polar=True (the kernel holds polar=False only)')
    """
    if isinstance(s, sp.Symbol):
        facts = s.assumptions0
        what = f"the symbol {s.name}"
    elif isinstance(s, AppliedUndef):
        facts = {k: v for k, v in (type(s).default_assumptions or {}).items()}
        if facts and facts != {"commutative": True}:
            declared = ", ".join(f"{k}={v}" for k, v in sorted(facts.items()) if k == "commutative" or v)
            return f"the function {type(s).__name__} is declared with assumptions ({declared})"
        return ""
    else:
        return ""
    return _facts_of(tuple(sorted((str(k), bool(v)) for k, v in facts.items())), what)


def defined_here(node: sp.Basic) -> bool:
    """Whether ``node`` is certainly defined wherever its arguments are (its row's ``defined``;
    ``True`` for a head without one).

    >>> import sympy as sp
    >>> x = sp.Symbol("x", real=True)
    >>> defined_here(1 / x), defined_here(1 / (x**2 + 1)), defined_here(sp.log(x))
    (False, True, False)
    """
    row = _ROW.get(type(node))
    if row is None:
        row = next((h for h in FRAGMENT if isinstance(node, h.cls)), None)
    # a node without a row (a binder's Tuple of limits) holds no value of its own; a head
    # outside the fragment never reaches a proof (outside_fragment refuses it first)
    if row is None or row.defined is None:
        return True
    try:
        return bool(row.defined(node))
    except (AttributeError, TypeError, ValueError, RecursionError):
        # SymPy's assumption system can fail inside (sec(u).is_real asks cos(u), which may have
        # evaluated to a number without the method): not known, so the node may be undefined
        return False


_INVERSE_HYPERBOLIC_HEADS = tuple(_INVERSE_HYPERBOLIC_DOMAINS)
_VALUE_HEADS = tuple(c for h in FRAGMENT if h.kind != "condition" for c in (h.cls if isinstance(h.cls, tuple) else (h.cls,)))
_CONDITIONS = (Relational, BooleanFunction, BooleanAtom)
_RELATIONS = (sp.StrictLessThan, sp.LessThan, sp.StrictGreaterThan, sp.GreaterThan, sp.Equality, sp.Unequality)
_LOGIC = (sp.And, sp.Or, sp.Not)
_EXCLUDED_SYMBOLS = (sp.Dummy, sp.Wild)
#: A determinant is held only for matrices up to this size (and evaluated only when its
#: diagonal blocks, up to a permutation, are at most 8x8).
MAX_DETERMINANT = 256


_ROW: dict[type, Head] = {}
for _h in FRAGMENT:
    for _c in (_h.cls if isinstance(_h.cls, tuple) else (_h.cls,)):
        _ROW[_c] = _h


def _out(what: str) -> str:
    return f"outside the checked fragment: {what}"


def _name(node: sp.Basic) -> str:
    if isinstance(node, AppliedUndef):
        return f"{type(node).__name__} (an undefined function declared with assumptions)"
    return type(node).__name__


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
        why = fact_problem(node)
        return _out(why) if why else ""
    if role == "variable":
        return _out(f"a binder's variable {node} that is not a symbol")
    if isinstance(node, sp.Number) and not isinstance(node, sp.Rational):
        return _out(type(node).__name__)  # Float, nan, oo, zoo
    if isinstance(node, AppliedUndef):
        why = fact_problem(node)
        if why:
            return _out(why)
        stack.extend((a, "value") for a in node.args)
        return ""
    if not isinstance(node, _VALUE_HEADS):
        return _out(_name(node))
    if isinstance(node, sp.Indexed):
        base = node.base
        if not isinstance(base.label, sp.Symbol) or len(base.args) != 1:
            return _out("an IndexedBase with a shape or a non-symbol label")
        why = fact_problem(base.label)
        if why or node.is_commutative is not True:
            return _out(why or f"the sequence {base.label} is not commutative")
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
            stack.append((lim[0], "variable"))
            stack.extend((b, "value") for b in lim[1:])
        return ""
    if isinstance(node, sp.Derivative):
        stack.append((node.expr, "value"))
        for v, n in node.variable_count:
            if not isinstance(v, sp.Symbol) or not isinstance(n, sp.Integer):
                return _out("a derivative in something that is not a symbol")
            stack.append((v, "variable"))
        return ""
    if isinstance(node, sp.Subs):
        stack.append((node.expr, "value"))
        if not all(isinstance(v, sp.Symbol) for v in node.variables):
            return _out("a Subs of something that is not a symbol")
        stack.extend((v, "variable") for v in node.variables)
        stack.extend((p, "value") for p in node.point)
        return ""
    if isinstance(node, sp.Limit):
        body, var, point, _ = node.args
        if not isinstance(var, sp.Symbol):
            return _out("a limit in something that is not a symbol")
        stack.append((var, "variable"))
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
    if isinstance(node, _INVERSE_HYPERBOLIC_HEADS) and not inverse_hyperbolic_domain(node):
        what, _ = _INVERSE_HYPERBOLIC_DOMAINS[type(node)]
        return _out(f"{type(node).__name__} of {node.args[0]}, which is not known to be a {what} (the head is held "
                    "on its real domain only)")
    stack.extend((a, "value") for a in node.args)
    return ""


def fragment_table() -> str:
    """The fragment as a Markdown table (head, kind, what the kernel relies on, where it is
    defined); the docs print it."""
    rows = ["| head | kind | binding, domain and the rules that touch it | defined |", "| --- | --- | --- | --- |"]
    rows += [f"| `{h.name}` | {h.kind} | {h.why} | {h.domain} |" for h in FRAGMENT]
    return "\n".join(rows)


def facts_table() -> str:
    """The facts whitelist as a Markdown table (fact, values held, meaning); the docs print it."""
    rows = ["| fact | values held | meaning here |", "| --- | --- | --- |"]
    rows += [f"| `{f.name}` | {', '.join(str(v) for v in f.values)} | {f.why} |" for f in FACTS]
    return "\n".join(rows)
