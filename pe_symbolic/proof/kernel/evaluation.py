r"""The kernel's ``evaluate`` rule: unevaluated objects rewritten by named, justified rules.

SymPy's ``doit`` is not a kernel rule: it sums, integrates, takes limits and transforms by
methods that are sometimes wrong (``Sum(KroneckerDelta(i, 2*j), (j, 0, h - 1))`` evaluated as
if the coefficient were 1; ``Sum((-1)**k*binomial(n, k), (k, 0, n))`` as 0 also at n = 0; a
determinant of a symbolic-size zero matrix as 0 also at n = 0). Instead, :func:`evaluate`
rewrites, bottom-up, only these objects, each by a rule whose side condition is checked here:

``finite sum`` / ``finite product``
    ``Sum(f, (j, a, b))`` with a concrete number of terms ``b - a + 1 <= 1000``: the terms
    written out (``f`` at ``j = a, a + 1, ...``), when ``j`` is not bound again inside ``f``.
``constant sum`` / ``constant product``
    ``f`` free of ``j``: ``f * (b - a + 1)`` and ``f**(b - a + 1)``.
``delta sum``
    ``Sum(g(j) * KroneckerDelta(j, c), (j, a, b))`` where the delta's arguments differ by
    ``+-(j - c)`` with ``c`` free of ``j`` and known to be an integer, the lower limit ``a``
    known to be an integer and the range known to run forward (``b - a + 1 >= 0``):
    ``Piecewise((g(c), (a <= c) & (c <= b)), (0, True))``. (Only ``j = c`` contributes, and
    it is a term exactly when the integer ``c`` is in the range.)
``geometric sum``
    ``Sum(r**j, (j, a, b))`` with ``r`` free of ``j``, ``r != 0`` and ``r - 1 != 0`` known:
    ``(r**(b + 1) - r**a) / (r - 1)``.
``linearity``
    a sum of terms summed term by term, a factor free of ``j`` taken out (finite sums).
``derivative``
    ``Derivative(f, x, ...)`` by SymPy's chain rule when every node of ``f`` is differentiable
    in ``x`` where it is defined: sums, products, ``sin``, ``cos``, ``exp`` (entire), integer
    powers, powers with a positive base, ``log`` and ``atan`` of real arguments, finite sums
    whose limits are free of ``x``. (``Abs``, ``sign``, ``Max``, ``Piecewise``, ... are not.)
``substitution``
    ``Subs(f, x, p)``: ``f`` with ``x`` replaced by ``p``, when ``x`` is not bound inside ``f``
    and no derivative in ``x`` is left in it.
``limit``
    ``Limit(f, x, p)`` by continuity at a finite ``p`` or the limit laws at ``+-oo`` (sums and
    products of limits, a rational function's leading terms, ``exp``/``atan``/powers at
    infinity), only when every step of that argument applies; never SymPy's ``limit``.
``determinant``
    of an explicit square matrix: the product of the determinants of its diagonal blocks up
    to a permutation (:func:`components`, each at most 8x8), each by Berkowitz's
    division-free algorithm; of a block-diagonal matrix of explicit blocks, the same.
``automatic evaluation``
    every other node is rebuilt as SymPy builds it (an ``Abs(cos(x)**2)`` held unevaluated
    for real ``x`` becomes ``cos(x)**2``): the evaluation that constructing any expression
    performs, part of the trusted base anyway.

Anything else is left as it is (and a chain that needs it stays ``undecided``).

>>> import sympy as sp
>>> i, j = sp.symbols("i j", integer=True, nonnegative=True)
>>> h = sp.Symbol("h", integer=True, positive=True)
>>> evaluate(sp.Sum(sp.sin(j) * sp.KroneckerDelta(i, j), (j, 0, h - 1)))
Piecewise((sin(i), i <= h - 1), (0, True))
>>> evaluate(sp.Sum(sp.KroneckerDelta(i, 2 * j), (j, 0, h - 1)))   # coefficient 2: no rule
Sum(KroneckerDelta(i, 2*j), (j, 0, h - 1))
"""

from __future__ import annotations

import sympy as sp

__all__ = ["MAX_TERMS", "components", "evaluate", "limit"]

#: Most terms (or factors) a finite sum (product) is written out with.
MAX_TERMS = 1000


def _bound(e: sp.Basic) -> set[sp.Symbol]:
    out: set[sp.Symbol] = set()
    for node in sp.preorder_traversal(e):
        if isinstance(node, (sp.Sum, sp.Product)):
            out |= {lim[0] for lim in node.limits}
        elif isinstance(node, sp.Derivative):
            out |= set(node.variables)
        elif isinstance(node, (sp.Subs, sp.Lambda)):
            out |= set(node.variables)
        elif isinstance(node, sp.Limit):
            out.add(node.args[1])
    return out


def _captures(f: sp.Basic, value: sp.Basic) -> bool:
    """Whether substituting ``value`` into ``f`` would put one of its free symbols under a
    binder of ``f`` that binds the same symbol (``Sum(x*j, (j, 0, n))`` with ``x -> j``):
    ``xreplace`` does not rename bound variables, so the substitution would change the value."""
    return bool(getattr(value, "free_symbols", set()) & _bound(f))


def evaluate(e: sp.Basic) -> sp.Basic:
    """Apply the rules of the module notes bottom-up, once; return the rewritten expression."""
    if isinstance(e, sp.MatrixBase):
        return sp.ImmutableMatrix(e.applyfunc(evaluate))
    if not isinstance(e, sp.Basic) or not e.args or e.is_Atom:
        return e
    if isinstance(e, sp.Determinant):
        m = e.arg
        if isinstance(m, sp.BlockDiagMatrix) and all(isinstance(b, sp.MatrixBase) and b.rows == b.cols <= 8
                                                      for b in m.args):
            return sp.Mul(*[evaluate(sp.Determinant(sp.ImmutableMatrix(b))) for b in m.args])
        if isinstance(m, sp.MatrixBase) and m.rows == m.cols:
            m = sp.ImmutableMatrix(m.applyfunc(evaluate))
            parts = components(m)
            if max(len(c) for c in parts) <= 8:
                return sp.Mul(*[sp.ImmutableMatrix(m.extract(c, c)).det(method="berkowitz") for c in parts])
        return e
    if isinstance(e, (sp.Indexed, sp.Piecewise)) or isinstance(e, sp.core.relational.Relational):
        args = tuple(evaluate(a) if isinstance(a, sp.Basic) else a for a in e.args)
        return e.func(*args) if args != e.args else e
    args = tuple(evaluate(a) if isinstance(a, sp.Basic) and not isinstance(a, sp.Tuple) else
                 (sp.Tuple(*[evaluate(x) for x in a]) if isinstance(a, sp.Tuple) else a) for a in e.args)
    # rebuilt with SymPy's automatic evaluation (what constructing the node does anyway): an
    # object held unevaluated (Abs(cos(x)**2, evaluate=False) for real x) becomes what SymPy
    # makes of it
    node = e.func(*args)
    if isinstance(node, sp.Sum):
        return _sum(node)
    if isinstance(node, sp.Product):
        return _product(node)
    if isinstance(node, sp.Derivative):
        return _derivative(node)
    if isinstance(node, sp.Subs):
        return _subs(node)
    if isinstance(node, sp.Limit):
        body, x, p, direction = node.args
        v = limit(body, x, p)
        return v if v is not None and v.is_finite else node
    return node


def components(m: sp.MatrixBase) -> list[list[int]]:
    """The index sets of a square matrix's diagonal blocks up to a permutation: ``i`` and
    ``j`` are together when ``m[i, j]`` or ``m[j, i]`` is not identically 0. Every nonzero
    entry lies inside one set, so with ``P`` the permutation that sorts the indices by set,
    ``P m P^T`` is block diagonal and ``det m`` is the product of the blocks' determinants."""
    n = m.rows
    parent = list(range(n))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for r in range(n):
        for c in range(n):
            if r != c and m[r, c] != 0:
                parent[find(r)] = find(c)
    groups: dict[int, list[int]] = {}
    for i in range(n):
        groups.setdefault(find(i), []).append(i)
    return sorted(groups.values())


# ---------------------------------------------------------------------------- sums


def _one_limit(node: sp.Basic) -> tuple[sp.Symbol, sp.Expr, sp.Expr] | None:
    if len(node.limits) != 1 or len(node.limits[0]) != 3:
        return None
    j, a, b = node.limits[0]
    return j, a, b


def _sum(node: sp.Sum) -> sp.Basic:
    lim = _one_limit(node)
    if lim is None:
        return node
    j, a, b = lim
    f = node.function
    count = b - a + 1
    if j not in f.free_symbols:  # constant sum
        return f * count
    if (isinstance(count, sp.Integer) and 0 <= count <= MAX_TERMS and j not in _bound(f)
            and not _captures(f, a)):  # finite sum
        return sp.Add(*[f.xreplace({j: a + t}) for t in range(int(count))])
    delta = _delta_sum(f, j, a, b)
    if delta is not None:
        return delta
    geo = _geometric(f, j, a, b)
    if geo is not None:
        return geo
    if f.is_Add:  # linearity: term by term, if that evaluates any term
        parts = [_sum(sp.Sum(t, (j, a, b))) for t in f.args]
        if any(not isinstance(p, sp.Sum) for p in parts):
            return sp.Add(*parts)
    if f.is_Mul:  # a factor free of j comes out, if what remains evaluates
        const = [t for t in f.args if j not in t.free_symbols]
        if const:
            rest = sp.Mul(*[t for t in f.args if j in t.free_symbols])
            inner = _sum(sp.Sum(rest, (j, a, b)))
            if not isinstance(inner, sp.Sum):
                return sp.Mul(*const) * inner
    return node


def _delta_sum(f: sp.Expr, j: sp.Symbol, a: sp.Expr, b: sp.Expr) -> sp.Basic | None:
    # j runs over the integers a, a + 1, ..., b only when a is an integer (from a = 1/2 it
    # never meets the integer c) and the range runs forward (SymPy reads b < a - 1 as minus
    # the sum from b + 1 to a - 1, which the Piecewise below does not say)
    if a.is_integer is not True or (b - a + 1).is_nonnegative is not True:
        return None
    factors = sp.Mul.make_args(f)
    for q, d in enumerate(factors):
        if not isinstance(d, sp.KroneckerDelta):
            continue
        u, v = d.args
        diff = sp.expand(u - v)
        # the delta's arguments must differ by +-(j - c): coefficient of j exactly +-1
        coeff = diff.coeff(j)
        if coeff not in (1, -1) or j in (diff - coeff * j).free_symbols:
            continue
        c = sp.expand(-(diff - coeff * j) / coeff)
        if c.is_integer is not True or j in _bound(f) or _captures(f, c):
            continue
        rest = sp.Mul(*(factors[:q] + factors[q + 1:]))
        value = rest.xreplace({j: c})
        return sp.Piecewise((value, sp.And(a <= c, c <= b)), (0, True))
    return None


def _geometric(f: sp.Expr, j: sp.Symbol, a: sp.Expr, b: sp.Expr) -> sp.Basic | None:
    if not (f.is_Pow and f.exp == j and j not in f.base.free_symbols):
        return None
    r = f.base
    if r.is_zero is not False or (r - 1).is_zero is not False:
        return None
    return (r ** (b + 1) - r**a) / (r - 1)


def _product(node: sp.Product) -> sp.Basic:
    lim = _one_limit(node)
    if lim is None:
        return node
    j, a, b = lim
    f = node.function
    count = b - a + 1
    if j not in f.free_symbols:
        return f**count
    if (isinstance(count, sp.Integer) and 0 <= count <= MAX_TERMS and j not in _bound(f)
            and not _captures(f, a)):
        return sp.Mul(*[f.xreplace({j: a + t}) for t in range(int(count))])
    return node


# ---------------------------------------------------------------------------- derivatives


def _differentiable(f: sp.Basic, x: sp.Symbol) -> bool:
    """Every node of ``f`` that depends on ``x`` is differentiable in ``x`` where defined."""
    if x not in f.free_symbols:
        return True
    if f == x:
        return True
    if isinstance(f, (sp.Add, sp.Mul)):
        return all(_differentiable(a, x) for a in f.args)
    if isinstance(f, (sp.sin, sp.cos, sp.exp)):
        return _differentiable(f.args[0], x)
    if isinstance(f, sp.Pow):
        base, ex = f.args
        if ex.is_Integer:
            return _differentiable(base, x)
        if base.is_positive is True:  # exp(ex * log(base)), smooth in both
            return _differentiable(base, x) and _differentiable(ex, x)
        if x not in base.free_symbols and base.is_positive is True:
            return _differentiable(ex, x)
        return False
    if isinstance(f, (sp.log, sp.atan)):
        arg = f.args[0]
        return arg.is_extended_real is True and _differentiable(arg, x)
    if isinstance(f, sp.Sum):
        lims = f.limits
        if any(x in set().union(*(b.free_symbols for b in lim[1:])) for lim in lims):
            return False
        if x in {lim[0] for lim in lims}:
            return False
        return _differentiable(f.function, x)
    return False


def _derivative(node: sp.Derivative) -> sp.Basic:
    f = node.expr
    for v, _ in node.variable_count:
        if not isinstance(v, sp.Symbol) or not _differentiable(f, v):
            return node
        if any(isinstance(n, sp.Indexed) and v in n.free_symbols for n in sp.preorder_traversal(f)):
            return node
    return sp.diff(f, *node.variable_count)


# ---------------------------------------------------------------------------- substitution


def _subs(node: sp.Subs) -> sp.Basic:
    f = node.expr
    variables = set(node.variables)
    if variables & _bound(f) or any(_captures(f, p) for p in node.point):
        return node
    return f.xreplace(dict(zip(node.variables, node.point)))


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


def _lim(f: sp.Expr, x: sp.Symbol, p: sp.Expr) -> sp.Expr | None:
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
