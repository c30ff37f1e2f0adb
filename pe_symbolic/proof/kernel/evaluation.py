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
    ``Subs(f, (x_1, ...), (p_1, ...))``: the substitutions made one after the other, in SymPy's
    order (a merged ``Subs(Subs(x + y, x, y), y, 2)`` is 4), each where its variable is not
    bound inside the expression and its value would not be captured.
``limit``
    ``Limit(f, x, p)`` by continuity at a finite ``p`` or the limit laws at ``+-oo`` (sums and
    products of limits, a rational function's leading terms, ``exp``/``atan``/powers at
    infinity), only when every step of that argument applies; never SymPy's ``limit``.
``determinant``
    of the empty (0x0) matrix: 1; of an explicit square matrix: the product of the determinants of its diagonal blocks up
    to a permutation (:func:`components`, each at most 8x8), each by Berkowitz's
    division-free algorithm; of a block-diagonal matrix of explicit blocks, the same.
``automatic evaluation``
    every other node is rebuilt as SymPy builds it (an ``Abs(cos(x)**2)`` held unevaluated
    for real ``x`` becomes ``cos(x)**2``): the evaluation that constructing any expression
    performs, part of the trusted base anyway.

Anything else is left as it is (and a chain that needs it stays ``undecided``). What each
binder means is written once, in :mod:`~pe_symbolic.proof.kernel.binders`, and read from
there by this rule, by the enclosures and by the Coq printer.

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

from .binders import MAX_TERMS, delta_sum, derivative, finite_terms, geometric_sum, limit, substitute, substitutions

__all__ = ["MAX_TERMS", "components", "evaluate", "limit"]

#: Largest diagonal block (up to a permutation) whose determinant is expanded.
MAX_BLOCK = 8


def evaluate(e: sp.Basic) -> sp.Basic:
    """Apply the rules of the module notes bottom-up, once; return the rewritten expression."""
    if isinstance(e, sp.MatrixBase):
        return sp.ImmutableMatrix(e.applyfunc(evaluate))
    if not isinstance(e, sp.Basic) or not e.args or e.is_Atom:
        return e
    if isinstance(e, sp.Determinant):
        return _determinant(e)
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
        return derivative(node)
    if isinstance(node, sp.Subs):
        out = substitute(node.expr, substitutions(node))
        return node if out is None else out
    if isinstance(node, sp.Limit):
        body, x, p, direction = node.args
        v = limit(body, x, p)
        return v if v is not None and v.is_finite else node
    return node


def _determinant(e: sp.Determinant) -> sp.Basic:
    m = e.arg
    if isinstance(m, sp.BlockDiagMatrix) and all(isinstance(b, sp.MatrixBase) and b.rows == b.cols <= MAX_BLOCK
                                                  for b in m.args):
        return sp.Mul(*[_determinant(sp.Determinant(sp.ImmutableMatrix(b))) for b in m.args])
    if isinstance(m, sp.MatrixBase) and m.rows == m.cols:
        if m.rows == 0:
            return sp.Integer(1)  # the empty product: det of the 0x0 matrix
        m = sp.ImmutableMatrix(m.applyfunc(evaluate))
        parts = components(m)
        if max(len(c) for c in parts) <= MAX_BLOCK:
            return sp.Mul(*[sp.ImmutableMatrix(m.extract(c, c)).det(method="berkowitz") for c in parts])
    return e


def components(m: sp.MatrixBase) -> list[list[int]]:
    """The index sets of a square matrix's diagonal blocks up to a permutation: ``i`` and
    ``j`` are together when ``m[i, j]`` or ``m[j, i]`` is not identically 0. Every nonzero
    entry lies inside one set, so with ``P`` the permutation that sorts the indices by set,
    ``P m P^T`` is block diagonal and ``det m`` is the product of the blocks' determinants
    (empty for the 0x0 matrix, whose determinant is 1)."""
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
    if j not in f.free_symbols:  # constant sum (Karr's convention included)
        return f * (b - a + 1)
    terms = finite_terms(f, j, a, b)
    if terms is not None:
        return sp.Add(*terms)
    delta = delta_sum(f, j, a, b)
    if delta is not None:
        return delta
    geo = geometric_sum(f, j, a, b)
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


def _product(node: sp.Product) -> sp.Basic:
    lim = _one_limit(node)
    if lim is None:
        return node
    j, a, b = lim
    f = node.function
    if j not in f.free_symbols:
        return f ** (b - a + 1)
    terms = finite_terms(f, j, a, b)
    if terms is not None:
        return sp.Mul(*terms)
    return node
