r"""One definition per binder: what ``Subs``, ``Sum``, ``Product``, ``Derivative``, ``Limit`` and
``KroneckerDelta`` mean, written once.

The kernel's ``evaluate`` rule (:mod:`~pe_symbolic.proof.kernel.evaluation`), the enclosures
that refute (:mod:`~pe_symbolic.proof.kernel.enclosure`) and the Coq printer
(:mod:`pe_symbolic.proof.coq`) all read a binder through the functions here, so the three can
never give one object three meanings (they once did: a merged ``Subs`` was substituted "at
once" by all three while SymPy means "in order"). Each definition is SymPy's own meaning of the
object (what ``doit`` returns where ``doit`` is right), restricted to the cases whose side
conditions are checked here; ``tests/test_kernel_binders.py`` compares the three readings with
``doit`` on random small instances.

``Subs(f, (x_1, ..., x_n), (p_1, ..., p_n))``
    :func:`substitutions`: the single substitutions ``x_1 := p_1``, then ``x_2 := p_2`` in the
    result, ..., in that order. That is what SymPy means: a nested
    ``Subs(Subs(f, x, p), y, q)`` is merged into ``Subs(f, (x, y), (p, q))`` and ``doit``
    substitutes in order (``Subs(Subs(x + y, x, y), y, 2)`` is 4, not ``y + 2``).
    :func:`substitute` applies them, each only where the variable is not bound inside the
    expression and the value mentions no variable bound there (``xreplace`` renames nothing).
``Sum(f, (j, a, b))`` / ``Product(f, (j, a, b))``
    :func:`term_count`: the terms are ``f`` at ``j = a, a + 1, ..., b``, ``b - a + 1`` of them
    when that is a nonnegative integer. (A backward range means Karr's convention in SymPy --
    minus the sum the other way -- which only the constant, geometric and delta rules below
    honour; every other reading refuses it.) :func:`finite_terms` writes the terms out.
``KroneckerDelta(a, b)``
    1 if ``a = b``, else 0 (any values; the printer's ``delta`` takes integers only).
    :func:`delta_sum`: ``Sum(g(j) * KroneckerDelta(j, c), (j, a, b))`` is ``g(c)`` when the
    integer ``c`` lies in the range and 0 otherwise -- with the delta's arguments differing by
    ``+-(j - c)``, ``a`` an integer and the range running forward.
``Derivative(f, x, ...)``
    :func:`derivative`: SymPy's chain rule, when every node of ``f`` is differentiable in ``x``
    where it is defined (:func:`differentiable`).
``Limit(f, x, p)``
    :func:`limit`: by continuity at a finite ``p``, or by the limit laws at ``+-oo``, when every
    step of that argument applies; never SymPy's ``limit``.

>>> import sympy as sp
>>> x, y = sp.symbols("x y")
>>> node = sp.Subs(sp.Subs(x + y, x, y), y, 2)
>>> substitutions(node)
[(x, y), (y, 2)]
>>> substitute(node.expr, substitutions(node))
4
"""

from __future__ import annotations

import sympy as sp

__all__ = [
    "MAX_TERMS",
    "bound_in",
    "captures",
    "delta_sum",
    "derivative",
    "differentiable",
    "finite_terms",
    "geometric_sum",
    "limit",
    "substitute",
    "substitutions",
    "term_count",
]

#: Most terms (or factors) a finite sum (product) is written out with.
MAX_TERMS = 1000


# ---------------------------------------------------------------------------- bound variables


def bound_in(e: sp.Basic) -> set[sp.Symbol]:
    """Every variable bound somewhere in ``e``: the variables of sums, products and integrals,
    of ``Subs`` and ``Lambda``, those a derivative is taken in, and a limit's variable."""
    out: set[sp.Symbol] = set()
    if not isinstance(e, sp.Basic):
        return out
    for node in sp.preorder_traversal(e):
        if isinstance(node, (sp.Sum, sp.Product, sp.Integral)):
            out |= {lim[0] for lim in node.limits}
        elif isinstance(node, sp.Derivative):
            out |= {v for v, _ in node.variable_count if isinstance(v, sp.Symbol)}
        elif isinstance(node, (sp.Subs, sp.Lambda)):
            out |= set(node.variables)
        elif isinstance(node, sp.Limit):
            out.add(node.args[1])
    return out


def captures(f: sp.Basic, value: sp.Basic) -> bool:
    """Whether substituting ``value`` into ``f`` would put one of its free symbols under a
    binder of ``f`` that binds the same symbol (``Sum(x*j, (j, 0, n))`` with ``x -> j``):
    ``xreplace`` does not rename bound variables, so the substitution would change the value."""
    return bool(getattr(value, "free_symbols", set()) & bound_in(f))


# ---------------------------------------------------------------------------- Subs


def substitutions(node: sp.Subs) -> list[tuple[sp.Basic, sp.Basic]]:
    """The single substitutions ``node`` stands for, in the order they are made (see the
    module notes): ``[(x_1, p_1), (x_2, p_2), ...]``."""
    return list(zip(node.variables, node.point))


def substitute(f: sp.Basic, pairs: list[tuple[sp.Basic, sp.Basic]], *, evaluate: bool = True) -> sp.Basic | None:
    """``f`` with ``pairs`` substituted one after the other (each by ``xreplace``), or ``None``
    when a variable is bound inside the expression it is substituted into, or a value would be
    captured there. ``evaluate=False`` rebuilds nothing by SymPy's automatic evaluation (the
    Coq printer prints the substituted expression node for node)."""
    cur = f
    for v, p in pairs:
        if not isinstance(v, sp.Symbol):
            return None
        if v in bound_in(cur) or captures(cur, p):
            return None
        if evaluate:
            cur = cur.xreplace({v: p})
        else:
            with sp.evaluate(False):
                cur = cur.xreplace({v: p})
    return cur


# ---------------------------------------------------------------------------- sums and products


def term_count(lo: sp.Expr, hi: sp.Expr) -> sp.Expr:
    """The number of terms of a sum from ``lo`` to ``hi``: ``hi - lo + 1`` (meaningful as a
    count when it is a nonnegative integer; see the module notes)."""
    return hi - lo + 1


def finite_terms(f: sp.Expr, j: sp.Symbol, lo: sp.Expr, hi: sp.Expr) -> list[sp.Expr] | None:
    """``[f(lo), f(lo + 1), ..., f(hi)]`` when the number of terms is a concrete integer from 0
    to :data:`MAX_TERMS` and writing them out captures nothing; else ``None``."""
    count = term_count(lo, hi)
    if not (isinstance(count, sp.Integer) and 0 <= count <= MAX_TERMS):
        return None
    if j in bound_in(f) or captures(f, lo):
        return None
    return [f.xreplace({j: lo + t}) for t in range(int(count))]


def delta_sum(f: sp.Expr, j: sp.Symbol, a: sp.Expr, b: sp.Expr) -> sp.Basic | None:
    """The delta rule of the module notes, or ``None`` when its side conditions fail."""
    # j runs over the integers a, a + 1, ..., b only when a is an integer (from a = 1/2 it
    # never meets the integer c) and the range runs forward (SymPy reads b < a - 1 as minus
    # the sum from b + 1 to a - 1, which the Piecewise below does not say)
    if a.is_integer is not True or term_count(a, b).is_nonnegative is not True:
        return None
    factors = sp.Mul.make_args(f)
    for q, d in enumerate(factors):
        if not isinstance(d, sp.KroneckerDelta) or len(d.args) != 2:
            continue
        u, v = d.args
        diff = sp.expand(u - v)
        # the delta's arguments must differ by +-(j - c): coefficient of j exactly +-1
        coeff = diff.coeff(j)
        if coeff not in (1, -1) or j in (diff - coeff * j).free_symbols:
            continue
        c = sp.expand(-(diff - coeff * j) / coeff)
        if c.is_integer is not True or j in bound_in(f) or captures(f, c):
            continue
        rest = sp.Mul(*(factors[:q] + factors[q + 1:]))
        value = rest.xreplace({j: c})
        return sp.Piecewise((value, sp.And(a <= c, c <= b)), (0, True))
    return None


def geometric_sum(f: sp.Expr, j: sp.Symbol, a: sp.Expr, b: sp.Expr) -> sp.Basic | None:
    """``Sum(r**j, (j, a, b)) = (r**(b + 1) - r**a) / (r - 1)`` for ``r`` free of ``j`` with
    ``r != 0`` and ``r != 1`` known (Karr's convention included); else ``None``."""
    if not (f.is_Pow and f.exp == j and j not in f.base.free_symbols):
        return None
    r = f.base
    if r.is_zero is not False or (r - 1).is_zero is not False:
        return None
    return (r ** (b + 1) - r**a) / (r - 1)


# ---------------------------------------------------------------------------- derivatives


def differentiable(f: sp.Basic, x: sp.Symbol) -> bool:
    """Every node of ``f`` that depends on ``x`` is differentiable in ``x`` where defined."""
    if x not in f.free_symbols:
        return True
    if f == x:
        return True
    if isinstance(f, (sp.Add, sp.Mul)):
        return all(differentiable(a, x) for a in f.args)
    if isinstance(f, (sp.sin, sp.cos, sp.exp, sp.sinh, sp.cosh)):
        return differentiable(f.args[0], x)
    if isinstance(f, (sp.tan, sp.cot, sp.sec, sp.csc, sp.tanh, sp.coth, sp.sech, sp.csch)):
        return differentiable(f.args[0], x)  # meromorphic: differentiable wherever defined
    if isinstance(f, (sp.asin, sp.acos, sp.acot, sp.asec, sp.acsc, sp.asinh, sp.acosh, sp.atanh, sp.acoth, sp.asech,
                      sp.acsch)):
        # on the real domain the kernel holds them on, differentiable inside it (the derivative,
        # e.g. 1/sqrt(1 - u^2), is undefined at its ends)
        arg = f.args[0]
        return arg.is_extended_real is True and differentiable(arg, x)
    if isinstance(f, sp.Pow):
        base, ex = f.args
        if ex.is_Integer:
            return differentiable(base, x)
        if base.is_positive is True:  # exp(ex * log(base)), smooth in both
            return differentiable(base, x) and differentiable(ex, x)
        return False
    if isinstance(f, (sp.log, sp.atan)):
        arg = f.args[0]
        return arg.is_extended_real is True and differentiable(arg, x)
    if isinstance(f, sp.Sum):
        lims = f.limits
        if any(x in set().union(*(b.free_symbols for b in lim[1:])) for lim in lims):
            return False
        if x in {lim[0] for lim in lims}:
            return False
        return differentiable(f.function, x)
    return False


def derivative(node: sp.Derivative) -> sp.Basic:
    """``node`` by the chain rule (SymPy's ``diff``) when :func:`differentiable` holds for each
    variable; else ``node`` itself."""
    f = node.expr
    for v, _ in node.variable_count:
        if not isinstance(v, sp.Symbol) or not differentiable(f, v):
            return node
        if any(isinstance(n, sp.Indexed) and v in n.free_symbols for n in sp.preorder_traversal(f)):
            return node
    return sp.diff(f, *node.variable_count)


# ---------------------------------------------------------------------------- limits

_INF = (sp.oo, sp.S.NegativeInfinity)


def limit(f: sp.Expr, x: sp.Symbol, p: sp.Expr) -> sp.Expr | None:
    """The limit of ``f`` as ``x -> p`` by the limit laws of the module notes, or ``None``.

    The result may be ``oo`` or ``-oo`` (the ``evaluate`` rule rewrites only finite ones).

    >>> import sympy as sp
    >>> r = sp.Symbol("r", positive=True)
    >>> limit(2 * sp.atan(r / (r + 1)), r, sp.oo)
    pi/2
    >>> limit(sp.sin(1 / r), r, 0) is None
    True
    """
    p = sp.Integer(p) if isinstance(p, int) else p
    try:
        return _lim(f, x, p)
    except (TypeError, ValueError, sp.PolynomialError):
        return None


def _finite(v: sp.Expr | None) -> bool:
    return v is not None and v not in _INF and v.is_finite is True


def _lim(f: sp.Expr, x: sp.Symbol, p: sp.Expr) -> sp.Expr | None:  # noqa: C901 - one case per law
    if x not in f.free_symbols:
        return f if f.is_finite is True else None
    if f == x:
        return p
    rational = _rational_limit(f, x, p)
    if rational is not None:
        return rational
    if isinstance(f, sp.Add):
        vals = [_lim(a, x, p) for a in f.args]
        if any(v is None for v in vals):
            return None
        if all(_finite(v) for v in vals):
            return sp.Add(*vals)
        signs = {v for v in vals if v in _INF}
        return signs.pop() if len(signs) == 1 else None
    if isinstance(f, sp.Mul):
        vals = [_lim(a, x, p) for a in f.args]
        if any(v is None for v in vals):
            return None
        if all(_finite(v) for v in vals):
            return sp.Mul(*vals)
        sign = 1
        for v in vals:
            if v in _INF:
                sign *= 1 if v == sp.oo else -1
            elif v.is_positive is True:
                continue
            elif v.is_negative is True:
                sign = -sign
            else:
                return None
        return sp.oo if sign > 0 else sp.S.NegativeInfinity
    if isinstance(f, sp.Pow):
        base, ex = f.args
        B = _lim(base, x, p)
        if B is None:
            return None
        if ex.is_Integer and x not in ex.free_symbols:
            n = int(ex)
            if _finite(B):
                return B**n if (n >= 0 or B.is_zero is False) else None
            if n < 0:
                return sp.Integer(0)
            if n == 0:
                return sp.Integer(1)
            return sp.oo if (B == sp.oo or n % 2 == 0) else sp.S.NegativeInfinity
        E = _lim(ex, x, p)
        if E is None:
            return None
        if _finite(B) and B.is_positive is True and _finite(E):
            return B**E
        if B == sp.oo and _finite(E) and x not in ex.free_symbols:
            if E.is_positive is True:
                return sp.oo
            if E.is_negative is True:
                return sp.Integer(0)
        return None
    if isinstance(f, (sp.sin, sp.cos)):
        U = _lim(f.args[0], x, p)
        return f.func(U) if _finite(U) else None
    if isinstance(f, sp.exp):
        U = _lim(f.args[0], x, p)
        if _finite(U):
            return sp.exp(U)
        return {sp.oo: sp.oo, sp.S.NegativeInfinity: sp.Integer(0)}.get(U)
    if isinstance(f, sp.log):
        U = _lim(f.args[0], x, p)
        if _finite(U) and U.is_positive is True:
            return sp.log(U)
        return sp.oo if U == sp.oo else None
    if isinstance(f, sp.atan):
        U = _lim(f.args[0], x, p)
        if _finite(U) and U.is_extended_real is True:
            return sp.atan(U)
        return {sp.oo: sp.pi / 2, sp.S.NegativeInfinity: -sp.pi / 2}.get(U)
    return None


def _rational_limit(f: sp.Expr, x: sp.Symbol, p: sp.Expr) -> sp.Expr | None:
    """A rational function of ``x``: leading terms at +-oo, the value where the denominator
    is known nonzero at a finite point."""
    if not (f.is_Mul or f.is_Pow or f.is_Add) or not f.is_rational_function(x):
        return None
    num, den = sp.fraction(sp.cancel(sp.together(f)))
    if p in _INF:
        pn, pd = sp.Poly(num, x), sp.Poly(den, x)
        dn, dd = pn.degree(), pd.degree()
        ln, ld = pn.LC(), pd.LC()
        if ld.is_zero is not False or ln.is_zero is not False:
            return None
        if dn < dd:
            return sp.Integer(0)
        if dn == dd:
            return ln / ld
        ratio = ln / ld
        sign = 1 if ratio.is_positive else -1 if ratio.is_negative else 0
        if sign == 0:
            return None
        if p == sp.S.NegativeInfinity and (dn - dd) % 2:
            sign = -sign
        return sp.oo if sign > 0 else sp.S.NegativeInfinity
    if den.xreplace({x: p}).is_zero is False:
        return (num / den).xreplace({x: p})
    return None
