r"""The second kernel's door: claims printed as Coq lemmas over the reals, checked by ``coqc``.

However careful the SymPy kernel is, it is one program checking itself. Coq is an independent
kernel: each equation of a :class:`~pe_symbolic.proof.kernel.claims.Claim` (each entry of a matrix
equation) becomes a ``Lemma`` over Coq's ``Reals``, with the claim's hypotheses, closed by a
generated tactic script (:mod:`pe_symbolic.proof.coq_tactics`). Coq's kernel then re-checks
the proof term at ``Qed``.

The printer is three modules: this one (SymPy to a small term tree, :func:`to_coq_ast`), then
:mod:`pe_symbolic.proof.coq_syntax` (the tree to Coq syntax, :func:`~pe_symbolic.proof.coq_syntax.coq_text`,
and the lemma's statement: binders, hypotheses, goal), and :mod:`pe_symbolic.proof.coq_preamble`
(the prelude every file starts with).

**What is trusted.** Only the *printer*: :func:`to_coq_ast` (SymPy to a small term tree) and
:func:`~pe_symbolic.proof.coq_syntax.coq_text` (the tree to Coq syntax), and the short
definitions of :data:`~pe_symbolic.proof.coq_preamble.PREAMBLE` (``delta``, ``sumZ``, ``prodZ``,
``sgn``: the Kronecker delta, a sum and a product over an integer range, the sign). Everything
else -- the tactic scripts, the lemmas of the preamble -- is checked by Coq, so a wrong script
can only make a lemma *fail*, never pass.
The printer is round-trip tested (``tests/test_coq.py``: printed, read back by a reader in
the tests, compared with SymPy).

**Soundness of the statement.** A Coq lemma ``forall vars, hyps -> lhs = rhs`` implies the
SymPy claim when every hypothesis is one of the claim's assumptions: symbols declared
``integer`` are ``Z`` variables (``IZR n`` where a real is needed), real symbols are ``R``
variables with their sign (``0 < x``, ``x <> 0``, ...), a real ``IndexedBase`` is a function
``Z -> R``; the claim's relations become hypotheses (over ``Z`` when both sides are integers).
An assumption the printer cannot state is *dropped* (a weaker hypothesis makes a stronger
lemma, so a proof of it still proves the claim), never invented. ``b**x`` is ``Rpower b x``
only for a base SymPy knows to be positive (where the two agree); ``log`` is ``ln`` only for
a positive argument. Coq's division is total (``/ 0 = 0``): where a side of a claim divides
by zero SymPy's value is undefined, so a lemma proved there says nothing false about a
defined value.

**Analysis and complex values.** A derivative inside an expression, a limit, a complex symbol,
an undefined function and a power of a base of unknown sign are printed by small rules of
their own (:func:`to_coq_equation`, :func:`to_coq_complex`,
:func:`~pe_symbolic.proof.coq_syntax.goal_text`), each
statement implying the claim: see ``docs/howto/coq.md``.

**Outside the fragment.** A construct the printer does not handle (a second derivative, a
limit inside an expression, ``Abs`` of a complex value, ...) raises :class:`OutsideFragment`
with the reason; the export then says ``outside the exported fragment: <why>`` for that
equation, never prints something else.

>>> import sympy as sp
>>> from pe_symbolic.proof.coq_syntax import coq_text, goal_text
>>> x, y = sp.symbols("x y", real=True)
>>> coq_text(to_coq_ast(sp.sin(x + y) - 2 * x / y, Env()))
'(((- 2) * x_1 * (/ y_1)) + (sin (x_1 + y_1)))'
>>> to_coq_ast(sp.Derivative(sp.sin(x), x, 2), Env())
Traceback (most recent call last):
pe_symbolic.proof.coq.OutsideFragment: Derivative(sin(x), (x, 2)) is not a first derivative in one variable
>>> goal_text(*to_coq_equation(sp.Derivative(sp.sin(x), x) * y, y, Env()))
'exists d_1 : R, derivable_pt_lim (fun x_2 : R => (sin x_2)) x_1 d_1 /\\ (y_1 * d_1) = y_1'
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from collections.abc import Iterator
from typing import Any

import sympy as sp

from sympy.core.function import AppliedUndef

from .coq_heads import print_head
from .coq_preamble import RESERVED
from .kernel.binders import substitute, substitutions, term_count
from .kernel.claims import plain_text

__all__ = [
    "Env",
    "Node",
    "OutsideFragment",
    "subterms",
    "to_coq_ast",
    "to_coq_cond",
    "to_coq_complex",
    "to_coq_derivative",
    "to_coq_equation",
    "to_coq_z",
]

Node = tuple
"""A Coq term: ``(kind, *args)``. Real terms: ``var``, ``num`` (p, q), ``pi``, ``add``, ``mul``
(tuples of terms), ``neg``, ``inv``, ``pow`` (term, natural number), ``app`` (function name,
tuple of terms), ``izr`` (an integer term), ``powz`` (base, integer exponent), ``delta`` (two
integer terms), ``sum``/``prod`` (index name, two integer bounds, body), ``idx`` (function
name, integer term), ``ite`` (condition, then, else). Integer terms: ``zvar``, ``znum``,
``zadd``, ``zmul``, ``zneg``, ``zmod``, ``zdiv``. Conditions: ``zle``, ``zlt``, ``zeq``,
``rle``, ``rlt``, ``req`` (two terms each)."""


class OutsideFragment(ValueError):
    """A construct the printer does not translate; the message says which and why."""

_UNSAFE = re.compile(r"[^A-Za-z0-9_]")


@dataclass
class Env:
    """The variables a printed term uses, every one named by a fresh-name supply.

    No source name is used verbatim: a symbol ``x`` is printed as ``x_1`` (its name made an
    identifier, then a counter that makes it unique within the lemma and keeps it off every
    reserved word), a summation index as a name of its own while its body is printed. Two
    symbols can therefore never share a Coq name, and a bound index can never capture a free
    variable (a free ``sin`` and an index named ``pe_v_sin`` once printed as one name).

    ``free``: ``coq name -> (kind, symbol)`` with kind ``R``, ``Z`` (an integer symbol) or
    ``F`` (a real ``IndexedBase``, a function ``Z -> R``) or ``W`` (an undefined function,
    ``R -> R``). ``bound``: the summation indices in
    scope, innermost last, ``symbol -> coq name`` (``names`` records every bound name too).
    """

    free: dict[str, tuple[str, Any]] = field(default_factory=dict)
    bound: dict[Any, str] = field(default_factory=dict)
    names: dict[str, Any] = field(default_factory=dict)
    _of: dict[Any, str] = field(default_factory=dict)
    rbound: dict[Any, str] = field(default_factory=dict)
    """The real variables bound by a derivative (``fun x => ...``) in scope: ``symbol -> name``."""
    undefined_ok: bool = False
    """Whether an undefined function may be printed (:func:`to_coq_equation` sets it after
    checking that the equation is affine in the function's values)."""
    parts: dict[Any, tuple[Any, Any]] = field(default_factory=dict)
    """A complex symbol's real and imaginary parts (two real symbols of their own)."""

    def fresh(self, s: Any) -> str:
        """A new name for ``s``, used by nothing else (see the class notes)."""
        raw = str(s.name if hasattr(s, "name") else s)
        base = _UNSAFE.sub("_", raw)[:40] or "v"
        if not base[0].isalpha():
            base = "v" + base
        n = 1
        while f"{base}_{n}" in self.names or f"{base}_{n}" in RESERVED:
            n += 1
        name = f"{base}_{n}"
        self.names[name] = s
        return name

    def name(self, s: sp.Basic, kind: str) -> str:
        """The Coq name of ``s``: the innermost bound index of that symbol in scope, else the
        symbol's free name (fresh the first time), recorded as ``kind``."""
        if s in self.bound:
            return self.bound[s]
        if s in self.rbound:
            return self.rbound[s]
        name = self._of.get(s)
        if name is None:
            name = self._of[s] = self.fresh(s)
        old = self.free.get(name)
        if old is not None and old[0] != kind:
            raise OutsideFragment(f"{s} is used as two kinds of thing ({old[0]} and {kind})")
        self.free[name] = (kind, s)
        return name

    def bind(self, s: sp.Basic) -> tuple[str, str | None]:
        """Bring a summation index into scope under a fresh name; returns ``(name, previous)``
        for :meth:`unbind`."""
        previous = self.bound.get(s)
        name = self.fresh(s)
        self.bound[s] = name
        return name, previous

    def unbind(self, s: sp.Basic, previous: str | None) -> None:
        """Take the index out of scope again (restoring an outer index of the same symbol)."""
        if previous is None:
            self.bound.pop(s, None)
        else:
            self.bound[s] = previous


def _num(q: sp.Rational) -> Node:
    if max(int(q.p).bit_length(), int(q.q).bit_length()) > 13_000:  # beyond Python's 4300 digits
        raise OutsideFragment(f"a number of {int(q.p).bit_length()} bits is not printed")
    return ("num", int(q.p), int(q.q))


def _is_int_symbol(s: sp.Basic) -> bool:
    return isinstance(s, sp.Symbol) and s.is_integer is True


def to_coq_z(e: sp.Basic, env: Env) -> Node:
    """An integer-valued SymPy expression as a Coq ``Z`` term (integer symbols, integers,
    ``+``, ``*``, ``Mod``, ``floor(a/q)``); anything else is :class:`OutsideFragment`."""
    if isinstance(e, sp.Integer):
        if int(e).bit_length() > 13_000:  # beyond Python's 4300 digits
            raise OutsideFragment(f"an integer of {int(e).bit_length()} bits is not printed")
        return ("znum", int(e))
    if isinstance(e, sp.Symbol):
        if e in env.bound:
            return ("zvar", env.bound[e])
        if e in env.rbound:
            raise OutsideFragment(f"{e} is used as an integer inside a derivative in it, where it ranges over the reals")
        if e.is_integer is not True:
            raise OutsideFragment(f"{e} is used as an integer but not declared integer")
        return ("zvar", env.name(e, "Z"))
    if isinstance(e, sp.Add):
        return ("zadd", tuple(to_coq_z(a, env) for a in e.args))
    if isinstance(e, sp.Mul):
        if e.args[0] == -1:
            rest = sp.Mul(*e.args[1:])
            return ("zneg", to_coq_z(rest, env))
        return ("zmul", tuple(to_coq_z(a, env) for a in e.args))
    if isinstance(e, sp.Mod) and e.args[1].is_Integer and e.args[1] > 0:
        return ("zmod", to_coq_z(e.args[0], env), to_coq_z(e.args[1], env))
    if isinstance(e, sp.floor):
        num, den = sp.fraction(sp.together(e.args[0]))
        if den.is_Integer and den > 0:
            return ("zdiv", to_coq_z(sp.expand(num), env), ("znum", int(den)))
    raise OutsideFragment(f"{_short(e)} is not printed as an integer term (only integer symbols, +, *, Mod, floor(a/q))")


def _z_able(e: sp.Basic) -> bool:
    try:
        to_coq_z(e, Env())
        return True
    except OutsideFragment:
        return False


def to_coq_cond(c: sp.Basic, env: Env) -> Node:
    """A relation as a Coq condition: over ``Z`` when both sides are integer terms, else ``R``."""
    flip = {sp.GreaterThan: sp.LessThan, sp.StrictGreaterThan: sp.StrictLessThan}
    if type(c) in flip:
        c = flip[type(c)](c.rhs, c.lhs)
    kinds = {sp.LessThan: "le", sp.StrictLessThan: "lt", sp.Equality: "eq"}
    if type(c) not in kinds:
        raise OutsideFragment(f"the condition {_short(c)} is not printed (only <=, <, >=, >, ==)")
    k = kinds[type(c)]
    if _z_able(c.lhs) and _z_able(c.rhs):
        return ("z" + k, to_coq_z(c.lhs, env), to_coq_z(c.rhs, env))
    return ("r" + k, to_coq_ast(c.lhs, env), to_coq_ast(c.rhs, env))


_FUNCS = {sp.sin: "sin", sp.cos: "cos", sp.tan: "tan", sp.exp: "exp", sp.atan: "atan", sp.Abs: "Rabs",
          sp.sign: "sgn"}


def to_coq_ast(e: Any, env: Env) -> Node:
    """A real-valued SymPy expression as a Coq ``R`` term; :class:`OutsideFragment` if not printable."""
    if isinstance(e, (int, sp.Integer, sp.Rational)) and not isinstance(e, bool):
        return _num(sp.Rational(e))
    if e is sp.pi:
        return ("pi",)
    if e is sp.E:
        return ("app", "exp", (("num", 1, 1),))
    if isinstance(e, sp.Symbol):
        if e in env.bound:
            return ("izr", ("zvar", env.bound[e]))
        if e in env.rbound:
            return ("var", env.rbound[e])
        if e.is_integer is True:
            return ("izr", ("zvar", env.name(e, "Z")))
        if e.is_real is True:
            return ("var", env.name(e, "R"))
        raise OutsideFragment(f"the symbol {e} is not declared real")
    if isinstance(e, sp.Add):
        return ("add", tuple(to_coq_ast(a, env) for a in e.args))
    if isinstance(e, sp.Mul):
        return _mul(e, env)
    if isinstance(e, sp.Pow):
        return _pow(e, env)
    for f, name in _FUNCS.items():
        if isinstance(e, f):
            return ("app", name, (to_coq_ast(e.args[0], env),))
    if isinstance(e, sp.log) and len(e.args) == 1:
        if e.args[0].is_positive is not True:
            raise OutsideFragment(f"log of {_short(e.args[0])}, which is not known to be positive")
        return ("app", "ln", (to_coq_ast(e.args[0], env),))
    if isinstance(e, (sp.Max, sp.Min)):
        name = "Rmax" if isinstance(e, sp.Max) else "Rmin"
        args = [to_coq_ast(a, env) for a in e.args]
        out = args[0]
        for a in args[1:]:
            out = ("app", name, (out, a))
        return out
    if isinstance(e, sp.KroneckerDelta):
        return ("delta", to_coq_z(e.args[0], env), to_coq_z(e.args[1], env))
    if isinstance(e, (sp.Sum, sp.Product)):
        return _sum(e, env)
    if isinstance(e, sp.Indexed):
        if e.is_real is not True or len(e.indices) != 1:
            raise OutsideFragment(f"{_short(e)} is not a real vector entry with one index")
        return ("idx", env.name(e.base.label, "F"), to_coq_z(e.indices[0], env))
    if isinstance(e, sp.Piecewise):
        return _piecewise(e, env)
    if isinstance(e, sp.Determinant):
        return _determinant(e.args[0], lambda x: to_coq_ast(x, env), _real_ops)
    if isinstance(e, sp.Subs):
        if isinstance(e.expr, sp.Derivative):
            return _derivative_at(e.expr, env, e)
        return to_coq_ast(_substituted(e), env)
    if isinstance(e, sp.Derivative):
        return _derivative_at(e, env, None)
    if isinstance(e, AppliedUndef):
        return _undefined(e, env)
    head = print_head(e, env, to_coq_ast, OutsideFragment)  # the textbook's heads: coq_heads.py
    if head is not None:
        return head
    raise OutsideFragment(f"{type(e).__name__} ({_short(e)}) has no counterpart in the printed fragment")


_ZERO: Node = ("num", 0, 1)
_ONE: Node = ("num", 1, 1)


def _radd(terms: list[Node]) -> Node:
    """A sum of real terms; a term that is the number 0 is left out (``x + 0 = x``)."""
    terms = [t for t in terms if t != _ZERO]
    return _ZERO if not terms else terms[0] if len(terms) == 1 else ("add", tuple(terms))


def _rmul(a: Node, b: Node) -> Node:
    """A product of two real terms; ``0 * x = 0`` and ``1 * x = x`` (Coq's reals, total division
    included: ``0 * / 0 = 0``)."""
    if _ZERO in (a, b):
        return _ZERO
    return b if a == _ONE else a if b == _ONE else ("mul", (a, b))


def _rneg(a: Node) -> Node:
    return _ZERO if a == _ZERO else ("neg", a)


#: A determinant is printed for explicit square matrices up to this size.
MAX_DETERMINANT = 6
_real_ops = (_radd, _rmul, _rneg)


def _determinant(m: Any, entry: Any, ops: tuple) -> Any:
    """``det m`` by cofactor (Laplace) expansion along the first row, ``sum_j (-1)^j m[0, j]
    det(minor(0, j))``, down to 1x1; an entry that is the number 0 adds nothing and is left
    out. Written out here (never SymPy's ``det``) so that it can be read: ``entry`` prints an
    entry, ``ops`` are ``(add, mul, neg)`` of the values (real terms, or complex pairs)."""
    if not isinstance(m, sp.MatrixBase) or m.rows != m.cols or not 1 <= m.rows <= MAX_DETERMINANT:
        raise OutsideFragment(f"a determinant of {_short(m)} (only explicit square matrices up to "
                              f"{MAX_DETERMINANT}x{MAX_DETERMINANT} are printed)")
    add, mul, neg = ops

    def expand(rows: list[list[Any]]) -> Any:
        if len(rows) == 1:
            return entry(rows[0][0])
        terms = []
        for j, a in enumerate(rows[0]):
            if isinstance(a, sp.Expr) and a.is_Number and a == 0:
                continue
            minor = [r[:j] + r[j + 1:] for r in rows[1:]]
            t = mul(entry(a), expand(minor))
            terms.append(t if j % 2 == 0 else neg(t))
        return add(terms)

    return expand([[m[r, c] for c in range(m.cols)] for r in range(m.rows)])


def _first_derivative_variable(e: Any) -> sp.Symbol:
    """The variable of a first derivative in one real (non-integer) symbol, else :class:`OutsideFragment`."""
    if not isinstance(e, sp.Derivative) or len(e.variable_count) != 1 or e.variable_count[0][1] != 1:
        raise OutsideFragment(f"{_short(e)} is not a first derivative in one variable")
    x = e.variable_count[0][0]
    if not isinstance(x, sp.Symbol) or x.is_integer is True or x.is_real is not True:
        raise OutsideFragment(f"a derivative in {x}, which is not a real (non-integer) symbol")
    return x


def _derivative_at(d: sp.Derivative, env: Env, subs: sp.Subs | None) -> Node:
    """A derivative inside an expression, ``f'(p)``: the node ``("dat", name, x, f, p)``, printed
    as the fresh real ``name`` that the statement introduces with ``exists name,
    derivable_pt_lim (fun x => f) p name`` (:func:`~pe_symbolic.proof.coq_syntax.goal_text`): the derivative exists at ``p`` and
    is ``name`` (a limit is unique), so the statement says of ``f'(p)`` what the claim says. ``p``
    is ``x`` itself, or the value of ``Subs(Derivative(f, x), x, p)``. Refused inside a sum, a
    product or another derivative (the point would name a bound variable)."""
    x = _first_derivative_variable(d)
    if env.bound or env.rbound:
        raise OutsideFragment(f"a derivative ({_short(d)}) inside a sum, a product or another derivative")
    if subs is None:
        point = to_coq_ast(x, env)
    else:
        if tuple(subs.variables) != (x,):
            raise OutsideFragment(f"{_short(subs)}: only the derivative's own variable may be substituted")
        point = to_coq_ast(subs.point[0], env)
    name = env.fresh("d")
    xname = env.fresh(x)
    env.rbound[x] = xname
    try:
        body = to_coq_ast(d.expr, env)
    finally:
        del env.rbound[x]
    return ("dat", name, xname, body, point)


def _undefined(e: Any, env: Env) -> Node:
    """``w(u)``, an undefined function of one real argument: ``w_1 u`` with ``w_1 : R -> R`` a
    variable of the lemma (printed only where :func:`to_coq_equation` allows it)."""
    if not env.undefined_ok:
        raise OutsideFragment(f"the undefined function {e.func} (printed only where the equation is affine in its values)")
    if len(e.args) != 1:
        raise OutsideFragment(f"the undefined function {e.func} of {len(e.args)} arguments (only one is printed)")
    name = env.name(e.func, "W")
    return ("app", name, (to_coq_ast(e.args[0], env),))


def _affine_in_undefined(e: Any) -> bool:
    """Whether ``e`` is affine in the values of its undefined functions, with real coefficients
    free of them: a sum of such terms, a product with one factor that mentions them, a derivative
    or a substitution (both linear) of such an expression, an application to arguments free of
    them. Then the claim for every complex-valued ``w = u + i v`` is its real part for ``u``
    and for ``v``, each an instance of the lemma for every real-valued function."""
    if not isinstance(e, sp.Basic) or not e.atoms(AppliedUndef):
        return True
    if isinstance(e, AppliedUndef):
        return not any(a.atoms(AppliedUndef) for a in e.args)
    if isinstance(e, sp.Add):
        return all(_affine_in_undefined(a) for a in e.args)
    if isinstance(e, sp.Mul):
        inner = [a for a in e.args if a.atoms(AppliedUndef)]
        return len(inner) == 1 and _affine_in_undefined(inner[0])
    if isinstance(e, sp.Derivative):
        return _affine_in_undefined(e.expr)
    if isinstance(e, sp.Subs):
        return _affine_in_undefined(e.expr) and not any(v.atoms(AppliedUndef) for v in e.point)
    return False


def _complex_symbols(e: sp.Basic) -> set:
    labels = {x.base.label for x in e.atoms(sp.Indexed)}
    return {s for s in e.free_symbols if isinstance(s, sp.Symbol) and s.is_real is not True and s not in labels}


def _is_complex(e: sp.Basic) -> bool:
    return bool(e.has(sp.I) or _complex_symbols(e))


def to_coq_equation(lhs: sp.Basic, rhs: sp.Basic, env: Env) -> tuple[Node, Node]:
    """The two sides of an equation, as :func:`~pe_symbolic.proof.coq_syntax.goal_text` states them: terms
    (:func:`to_coq_ast`), a first derivative as the whole left side
    (:func:`to_coq_derivative`), or, where a side has a complex symbol or ``I``, the
    ``("cpair", re, im)`` of each side (:func:`to_coq_complex`; the statement is then that the
    real parts are equal and the imaginary parts are). An undefined function is printed (as a
    variable ``R -> R``) only when both sides are affine in its values
    (``_affine_in_undefined``)."""
    if _is_complex(lhs) or _is_complex(rhs):
        re_l, im_l = to_coq_complex(lhs, env)
        re_r, im_r = to_coq_complex(rhs, env)
        return ("cpair", re_l, im_l), ("cpair", re_r, im_r)
    if isinstance(rhs, sp.Limit) and not isinstance(lhs, sp.Limit):
        lhs, rhs = rhs, lhs
    if isinstance(lhs, sp.Limit):
        return _limit(lhs, env), to_coq_ast(rhs, env)
    if lhs.atoms(AppliedUndef) or rhs.atoms(AppliedUndef):
        if not (_affine_in_undefined(lhs) and _affine_in_undefined(rhs)):
            fs = sorted({str(f.func) for f in (lhs.atoms(AppliedUndef) | rhs.atoms(AppliedUndef))})
            raise OutsideFragment(f"the undefined function {', '.join(fs)}: the equation is not affine in its values")
        env.undefined_ok = True
    L = to_coq_derivative(lhs, env) if isinstance(lhs, sp.Derivative) else to_coq_ast(lhs, env)
    return L, to_coq_ast(rhs, env)


def _limit(e: sp.Limit, env: Env) -> Node:
    """``Limit(f, x, p, dir)`` as the whole left side: ``("limit", kind, x, f, p, eps, bound)``,
    stated by :func:`~pe_symbolic.proof.coq_syntax.goal_text` with epsilons (Cauchy's definition, over the reals). ``kind`` is
    ``right``/``left``/``both`` at a real point (``dir`` ``+``, ``-``, ``+-``), ``pinf``/``minf``
    at ``oo``/``-oo``. The variable ranges over the reals, also where SymPy declares it an
    integer: the limit over the reals gives the limit along the integers (a stronger lemma); a
    body that uses it as an integer (an index, a power of -1) is refused."""
    f, x, p, d = e.args
    if not isinstance(x, sp.Symbol) or x.is_real is not True:
        raise OutsideFragment(f"{_short(e)}: the limit's variable {x} is not a real symbol")
    if p is sp.oo or p is sp.S.Infinity:
        kind, point = "pinf", None
    elif p is sp.S.NegativeInfinity:
        kind, point = "minf", None
    else:
        kind = {"+": "right", "-": "left", "+-": "both"}.get(str(d))
        if kind is None:
            raise OutsideFragment(f"{_short(e)}: the direction {d} is not printed")
        point = to_coq_ast(p, env)
    xname = env.fresh(x)
    env.rbound[x] = xname
    try:
        body = to_coq_ast(f, env)
    finally:
        del env.rbound[x]
    return ("limit", kind, xname, body, point, env.fresh("eps"), env.fresh("delta" if point is not None else "M"))


def _cadd(zs: list[tuple[Node, Node]]) -> tuple[Node, Node]:
    return _radd([z[0] for z in zs]), _radd([z[1] for z in zs])


def _cmul(z: tuple[Node, Node], w: tuple[Node, Node]) -> tuple[Node, Node]:
    """``(a + i b)(c + i d) = (a c - b d) + i (a d + b c)``."""
    (a, b), (c, d) = z, w
    return _radd([_rmul(a, c), _rneg(_rmul(b, d))]), _radd([_rmul(a, d), _rmul(b, c)])


def _cneg(z: tuple[Node, Node]) -> tuple[Node, Node]:
    return _rneg(z[0]), _rneg(z[1])


def _app1(name: str, a: Node) -> Node:
    return ("app", name, (a,))


#: At most this power of a complex base is multiplied out.
MAX_COMPLEX_POWER = 8


def to_coq_complex(e: sp.Basic, env: Env) -> tuple[Node, Node]:
    """A complex SymPy expression as two real terms, its real and imaginary parts.

    A subexpression with no complex symbol and no ``I`` is real (:func:`to_coq_ast`, imaginary
    part 0); a complex symbol ``a`` (one not declared real; one with no assumptions is read as a
    complex number, one that may be infinite is refused) is ``a_re + i a_im``, two real
    variables of its own (any other assumption of ``a`` is dropped: a stronger lemma); ``I`` is ``0 + i 1``. Sums and products
    are componentwise, ``(a + ib)(c + id) = (ac - bd) + i(ad + bc)``; an integer power
    ``0 <= n <= 8`` is ``n`` products; and, for ``z = x + i y``:

    * ``sin z = sin x cosh y + i cos x sinh y``,
    * ``cos z = cos x cosh y - i sin x sinh y``,
    * ``exp z = exp x cos y + i exp x sin y``

    (with ``cosh 0 = 1``, ``sinh 0 = 0``, ``exp 0 = 1`` where a part is the number 0); a
    determinant by its cofactor expansion (``_determinant``); a substitution made in order. Nothing else is printed (:class:`OutsideFragment`),
    and SymPy's ``as_real_imag``/``expand_complex`` are never called: the rules are these.

    >>> from pe_symbolic.proof.coq_syntax import coq_text
    >>> a = sp.Symbol("a")
    >>> re, im = to_coq_complex(sp.exp(sp.I * a), Env())
    >>> coq_text(re), coq_text(im)
    ('((exp (- a_im_1)) * (cos a_re_1))', '((exp (- a_im_1)) * (sin a_re_1))')
    """
    if not _is_complex(e):
        return to_coq_ast(e, env), _ZERO
    if e is sp.I:
        return _ZERO, _ONE
    if isinstance(e, sp.Symbol):
        if not e.is_commutative or e.is_finite is False or (e.is_extended_real is True and e.is_real is not True):
            # a complex number is finite: a symbol that may be infinite is not two reals
            raise OutsideFragment(f"the symbol {e} is not a (finite) complex number")
        if e not in env.parts:
            env.parts[e] = (sp.Dummy(f"{e.name}_re", real=True), sp.Dummy(f"{e.name}_im", real=True))
        re, im = env.parts[e]
        return ("var", env.name(re, "R")), ("var", env.name(im, "R"))
    if isinstance(e, sp.Add):
        return _cadd([to_coq_complex(a, env) for a in e.args])
    if isinstance(e, sp.Mul):
        out = to_coq_complex(e.args[0], env)
        for a in e.args[1:]:
            out = _cmul(out, to_coq_complex(a, env))
        return out
    if isinstance(e, sp.Pow) and e.exp.is_Integer and 0 <= int(e.exp) <= MAX_COMPLEX_POWER:
        z = to_coq_complex(e.base, env)
        out = (_ONE, _ZERO)
        for _ in range(int(e.exp)):
            out = _cmul(out, z)
        return out
    if isinstance(e, (sp.sin, sp.cos, sp.exp)):
        x, y = to_coq_complex(e.args[0], env)
        if isinstance(e, sp.exp):
            ex = _ONE if x == _ZERO else _app1("exp", x)
            return (ex, _ZERO) if y == _ZERO else (_rmul(ex, _app1("cos", y)), _rmul(ex, _app1("sin", y)))
        ch, sh = (_ONE, _ZERO) if y == _ZERO else (_app1("cosh", y), _app1("sinh", y))
        if isinstance(e, sp.sin):
            return _rmul(_app1("sin", x), ch), _rmul(_app1("cos", x), sh)
        return _rmul(_app1("cos", x), ch), _rneg(_rmul(_app1("sin", x), sh))
    if isinstance(e, sp.Determinant):
        return _determinant(e.args[0], lambda a: to_coq_complex(a, env), (_cadd, _cmul, _cneg))
    if isinstance(e, sp.Subs) and not isinstance(e.expr, sp.Derivative):
        return to_coq_complex(_substituted(e), env)  # in order, as the real printer does
    raise OutsideFragment(f"{type(e).__name__} ({_short(e)}) of a complex argument is not printed "
                          "(only +, *, powers 0..8, sin, cos, exp, determinants, substitutions)")


def subterms(n: Node) -> Iterator[Node]:
    """Every subterm of a term, ``n`` first."""
    yield n
    for a in n[1:]:
        if isinstance(a, tuple) and a and isinstance(a[0], str):
            yield from subterms(a)
        elif isinstance(a, tuple):
            for b in a:
                if isinstance(b, tuple) and b and isinstance(b[0], str):
                    yield from subterms(b)


def _substituted(e: sp.Subs) -> sp.Basic:
    """``Subs(f, (x_1, ...), (p_1, ...))`` printed as ``f`` with the substitutions made in order
    (:func:`~pe_symbolic.proof.kernel.binders.substitutions`, the meaning the kernel and the
    enclosures give it too), node for node and with evaluation off (nothing is simplified on
    the way); refused when a variable is bound inside the expression or a value would be
    captured there."""
    out = substitute(e.expr, substitutions(e), evaluate=False)
    if out is None:
        raise OutsideFragment(f"{_short(e)}: a substituted symbol is bound inside the expression")
    return out


def to_coq_derivative(e: sp.Derivative, env: Env) -> Node:
    """A first derivative ``d f / d x`` as ``("deriv", x, f)``: printed only as the left side of
    a statement, ``derivable_pt_lim (fun x => f) x rhs`` (the derivative of ``f`` at ``x`` is
    ``rhs``), for a real, non-integer symbol ``x``."""
    x = _first_derivative_variable(e)
    return ("deriv", env.name(x, "R"), to_coq_ast(e.expr, env))


def _short(e: Any) -> str:
    s = plain_text(e)  # a printer that never evaluates
    return s if len(s) <= 60 else s[:57] + "..."


def _mul(e: sp.Mul, env: Env) -> Node:
    coeff, rest = e.as_coeff_mul()
    if coeff == -1:
        return ("neg", to_coq_ast(sp.Mul(*rest), env))
    deltas = [a for a in e.args if isinstance(a, sp.KroneckerDelta)]
    others = [a for a in e.args if not isinstance(a, sp.KroneckerDelta)]
    body: Node | None = None
    if others:
        body = to_coq_ast(others[0], env) if len(others) == 1 else ("mul", tuple(to_coq_ast(a, env) for a in others))
    # the deltas first, each applied to the rest: delta i j * (delta j l * (rest))
    for dl in reversed(deltas):
        node = to_coq_ast(dl, env)
        body = node if body is None else ("mul", (node, body))
    assert body is not None
    return body


def _pow(e: sp.Pow, env: Env) -> Node:
    b, x = e.args
    if x.is_Integer:
        n = int(x)
        if n >= 0:
            return ("pow", to_coq_ast(b, env), n)
        inner = to_coq_ast(b, env) if n == -1 else ("pow", to_coq_ast(b, env), -n)
        return ("inv", inner)
    if b.is_positive is True:
        return ("app", "Rpower", (to_coq_ast(b, env), to_coq_ast(x, env)))
    if x == sp.S.Half and b.is_nonnegative is True:
        return ("app", "sqrt", (to_coq_ast(b, env),))
    if x.is_integer is True and b == -1:
        return ("powz", to_coq_ast(b, env), to_coq_z(x, env))
    if b.is_extended_real is True and b.is_nonpositive is not True and not (env.bound or env.rbound):
        # a base of unknown sign: printed with its sign as part of the statement (goal_text:
        # 0 < b, or 0 <= b for sqrt), a stronger lemma, where the two powers agree
        if x == sp.S.Half:
            return ("gsqrt", to_coq_ast(b, env))
        return ("gpow", to_coq_ast(b, env), to_coq_ast(x, env))
    raise OutsideFragment(f"the power {_short(e)}: its base is not known to be positive")


def _sum(e: sp.Sum | sp.Product, env: Env) -> Node:
    kind = "sum" if isinstance(e, sp.Sum) else "prod"
    if len(e.limits) != 1:
        inner = type(e)(e.function, *e.limits[:-1])
        return _sum(type(e)(inner, e.limits[-1]), env)
    j, lo, hi = e.limits[0]
    if not _is_int_symbol(j):
        raise OutsideFragment(f"the index {j} of {type(e).__name__} is not an integer symbol")
    if term_count(lo, hi).is_nonnegative is not True:
        # sumZ/prodZ run over lo <= j <= hi (empty when hi < lo); SymPy reads a backward range
        # by Karr's convention (minus, or one over, the sum the other way): not the same
        raise OutsideFragment(f"the {type(e).__name__} over {j} from {_short(lo)} to {_short(hi)} may run backwards")
    zlo, zhi = to_coq_z(lo, env), to_coq_z(hi, env)  # the bounds, outside the index's scope
    name, previous = env.bind(j)
    try:
        body = to_coq_ast(e.function, env)
    finally:
        env.unbind(j, previous)
    return (kind, name, zlo, zhi, body)


def _piecewise(e: sp.Piecewise, env: Env) -> Node:
    pieces = list(e.args)
    if pieces[-1].cond is not sp.true:
        raise OutsideFragment(f"a Piecewise without an otherwise branch ({_short(e)}) is undefined somewhere")
    out = to_coq_ast(pieces[-1].expr, env)
    for expr, cond in reversed(pieces[:-1]):
        then = to_coq_ast(expr, env)
        if isinstance(cond, sp.Unequality):
            c = to_coq_cond(sp.Eq(cond.lhs, cond.rhs), env)
            out = ("ite", c, out, then)
        else:
            out = ("ite", to_coq_cond(cond, env), then, out)
    return out
