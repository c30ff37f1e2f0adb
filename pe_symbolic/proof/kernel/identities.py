r"""The named identities of the textbook: quotient forms, Euler, real and imaginary parts, logs of
rationals, products of Kronecker deltas, cyclotomic values and denesting.

Each function here is one rewrite rule of :data:`~pe_symbolic.proof.kernel.rules.RULES`: a
deterministic map from an expression to one **equal** to it (wherever it is defined), applied
everywhere it matches, and leaving the expression alone where its side condition is not known
to hold. Why each is sound:

``quotients`` (``QUOTIENTS``)
    ``tan u = sin u / cos u``, ``cot u = cos u / sin u``, ``sec u = 1 / cos u``,
    ``csc u = 1 / sin u``, and the same for ``tanh``, ``coth``, ``sech``, ``csch`` with
    ``sinh``, ``cosh``: SymPy's definitions, for every complex ``u``; each side is undefined
    exactly where the denominator vanishes, so nothing is added or lost.
``inverse trig`` (``INVERSE_TRIG``)
    on the real domain where the kernel holds each head defined (the fragment's table):
    ``asin u = 2 atan(u/(1 + sqrt(1 - u^2)))`` and ``acos u = pi/2 - asin u`` for
    ``-1 <= u <= 1`` (with ``u = sin t``, ``|t| <= pi/2``: ``u/(1 + cos t) = tan(t/2)``);
    ``acot u = atan(1/u)`` for real ``u != 0``; ``asec u = acos(1/u)``, ``acsc u = asin(1/u)``
    for real ``|u| >= 1`` (SymPy's definitions). Each right side is defined wherever the left
    side is, so no point where a claim is defined is lost on the way.
``inverse hyperbolic`` (``INVERSE_HYPERBOLIC``)
    only where SymPy's assumptions place the argument in the head's real domain (the same test
    as the fragment's, :func:`~pe_symbolic.proof.kernel.fragment.inverse_hyperbolic_domain`;
    elsewhere the node is left alone, and the fragment holds it outside):
    ``asinh u = log(u + sqrt(u^2 + 1))`` for real ``u``;
    ``acosh u = log(u + sqrt(u^2 - 1))`` for real ``u >= 1``;
    ``atanh u = (log(1 + u) - log(1 - u))/2`` for real ``|u| < 1``;
    ``acoth u = (log(u + 1) - log(u - 1))/2`` for real ``|u| > 1``;
    ``asech u = log(1/u + sqrt(1/u^2 - 1))`` for real ``0 < u <= 1``;
    ``acsch u = log(1/u + sqrt(1/u^2 + 1))`` for real ``u != 0``.
    Why: on these domains each head is the real inverse of ``sinh``, ``cosh`` (on
    ``[0, oo)``), ``tanh``, ``coth``, ``sech`` (on ``[0, oo)``), ``csch``, and solving
    ``u = (e^t - e^-t)/2`` (etc.) for ``e^t`` gives the root inside the ``log`` -- the positive
    one: ``u + sqrt(u^2 + 1) > 0`` for every real ``u``; ``u + sqrt(u^2 - 1) >= 1`` for
    ``u >= 1``; ``(1 + u)/(1 - u) > 0`` for ``|u| < 1``; and every ``log`` here is of a positive
    real except in ``acoth`` for ``u < -1``, where ``log(u + 1)`` and ``log(u - 1)`` both have
    imaginary part ``pi`` and their difference is ``log((u + 1)/(u - 1))``, real. SymPy's
    principal values agree there (its own ``rewrite(log)`` is these formulas, up to
    ``sqrt(u - 1) sqrt(u + 1) = sqrt(u^2 - 1)``, equal for ``u >= 1``). Each right side is defined
    wherever the head is, and is real there.
``Euler`` (``EULER``)
    ``exp(a + i b) = exp(a) (cos b + i sin b)`` for every complex ``a, b`` (the terms of the
    exponent that are ``i`` times something form ``i b``).
``re/im`` (``RE_IM``)
    ``re z``, ``im z`` and ``conjugate z`` replaced by ``a``, ``b`` and ``a - i b`` where the
    kernel can write ``z = a + i b`` with ``a``, ``b`` real (:func:`split`): a real expression
    (SymPy's assumptions say so), an imaginary one (``i b``, ``b`` real: SymPy's ``imaginary``),
    ``i``, sums, products, integer powers, ``exp``, ``sin``, ``cos`` and ``conjugate`` of such;
    nothing else.
``arg`` (``ARG``)
    ``arg(c z) = arg(z)`` for ``c`` known positive (a positive factor does not turn a complex
    number), then ``arg(a + i b) = atan2(b, a)`` where :func:`split` writes the argument as
    ``a + i b`` with ``a``, ``b`` real: SymPy's definition of the principal argument in
    ``(-pi, pi]`` (``atan2(y, x)`` is the angle of ``x + i y``, ``pi`` on the negative real
    axis), and both are undefined at 0 (SymPy's ``nan``), which the fragment's rows hold so.

    ``log(p1^e1 ... / q1^f1 ...) = e1 log p1 + ... - f1 log q1 - ...`` for a positive rational
    (the principal logarithm of positive reals is additive).
``delta products`` (``DELTA_PRODUCTS``)
    in a product, ``delta(a, b)^k = delta(a, b)`` (``k`` a positive integer) and
    ``delta(a, b) delta(c, b) = delta(a, b) delta(c, a)``: where ``a != b`` both are 0, where
    ``a = b`` the second factor is the same number.
``cyclotomic`` (``CYCLOTOMIC``)
    a number built from rationals, ``i``, ``sin``/``cos``/``tan``/``cot``/``sec``/``csc`` of
    rational multiples of ``pi``, ``exp(i q pi)`` and square roots of rationals is an element of
    a cyclotomic field ``Q(zeta_N)``: ``cos(k pi/m) = (zeta^a + zeta^-a)/2`` with
    ``zeta = exp(2 pi i/N)``, ``sqrt p`` a Gauss sum (``sqrt 2 = zeta_8 + zeta_8^-1``), and the
    field's arithmetic is exact polynomial arithmetic modulo the cyclotomic polynomial
    ``Phi_N`` (the minimal polynomial of ``zeta``). Where the result is a rational constant, the
    number is replaced by it (Morrie's law, ``tan(pi/12) = 2 - sqrt 3``); a division by an
    element that is 0 in the field leaves the number alone (it is undefined).
``denest`` (``DENEST``)
    ``sqrt(A) = B`` (``A`` a number) where ``B`` is SymPy's ``sqrtdenest`` proposal, checked
    here: ``B**2 - A`` reduces to 0 by ``expand``/``powsimp`` or the cyclotomic rule, and the
    real part of ``B`` is positive by a certified enclosure -- the principal square root of
    ``A`` is the one of its two roots ``+-B`` with positive real part. (``1/sqrt(A) = 1/B``
    likewise.)
``roots`` (``ROOTS``)
    ``A**(k/n) = B**k`` (``A`` a number, ``n`` from 2 to 12) where ``B`` is SymPy's ``nthroot``
    (or ``sqrtdenest``) proposal, checked here: ``B**n - A`` reduces to 0 exactly (as for
    ``denest``), ``B`` is real (SymPy's assumptions) and positive by a certified enclosure.
    Then ``A = B**n`` is a positive real, whose principal ``n``-th root is its one positive real
    ``n``-th root, ``B``. And ``sqrt(A) = i c`` where ``c`` is real, positive by an enclosure,
    and ``c**2 + A`` reduces to 0: ``A = -c**2`` is a negative real, whose principal square root
    is ``i sqrt(-A) = i c``.

>>> import sympy as sp
>>> x = sp.Symbol("x", real=True)
>>> quotients(sp.tan(x) + sp.sech(x))
sin(x)/cos(x) + 1/cosh(x)
>>> re_im(sp.re((x + sp.I) * sp.exp(sp.I * x)))
x*cos(x) - sin(x)
>>> log_primes(sp.log(12))
log(3) + 2*log(2)
>>> cyclotomic(sp.cos(sp.pi/9) * sp.cos(2*sp.pi/9) * sp.cos(4*sp.pi/9))
1/8
>>> denest(sp.sqrt(16 - 2*sp.sqrt(29) + 2*sp.sqrt(55 - 10*sp.sqrt(29))))
sqrt(11 - 2*sqrt(29)) + sqrt(5)
"""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import lru_cache, wraps

import sympy as sp

from . import budget
from .enclosure import PRECISIONS, Undecidable, enclose, precision
from .fragment import inverse_hyperbolic_domain

__all__ = ["ARG", "CYCLOTOMIC", "DELTA_PRODUCTS", "DENEST", "EULER", "INVERSE_HYPERBOLIC", "INVERSE_TRIG",
           "LOG_PRIMES", "MODULUS", "PARTS", "QUOTIENTS", "RE_IM", "ROOTS", "arg_parts", "cyclotomic", "delta_products", "denest",
           "euler", "inverse_hyperbolic", "inverse_trig", "log_primes", "modulus", "parts", "quotients", "re_im", "roots", "split"]

def _guarded(f: Callable[[sp.Basic], sp.Basic]) -> Callable[[sp.Basic], sp.Basic]:
    """``f``, leaving the expression alone where SymPy fails inside it (an exception is never
    a rewrite; running out of time still stops the check)."""
    @wraps(f)
    def apply(x: sp.Basic) -> sp.Basic:
        try:
            return f(x)
        except budget.BudgetExceeded:
            raise
        except (ArithmeticError, ValueError, TypeError, AttributeError, IndexError, KeyError, RecursionError,
                NotImplementedError, sp.PolynomialError):
            return x
    return apply


QUOTIENTS = "quotients: tan = sin/cos, cot = cos/sin, sec = 1/cos, csc = 1/sin (and tanh, coth, sech, csch)"
INVERSE_TRIG = ("inverse trig: asin u = 2 atan(u/(1 + sqrt(1 - u^2))), acos u = pi/2 - asin u, acot u = atan(1/u), "
                "asec u = acos(1/u), acsc u = asin(1/u) on their real domains")
INVERSE_HYPERBOLIC = ("inverse hyperbolic: asinh, acosh, atanh, acoth, asech, acsch as logs (asinh u = "
                      "log(u + sqrt(u^2 + 1)), ...) where the argument is known in the real domain")
EULER = "Euler: exp(a + i b) = exp(a) (cos b + i sin b)"
RE_IM = "re/im: re, im and conjugate of a + i b with a, b real"
ARG = "arg: arg(c z) = arg(z) for c > 0, arg(a + i b) = atan2(b, a) with a, b real"
MODULUS = "modulus: |z| = sqrt(re(z)^2 + im(z)^2)"
PARTS = "parts: re(z) = z - i im(z), sign(z) = z/|z| for z != 0"
LOG_PRIMES = "log primes: log of a positive rational by its prime factorization"
DELTA_PRODUCTS = "delta products: delta(a, b) delta(c, b) = delta(a, b) delta(c, a), delta^k = delta"
CYCLOTOMIC = "cyclotomic: trigonometric values at rational multiples of pi and square roots of rationals in Q(zeta_N)"
ROOTS = ("roots: A**(k/n) = B**k where B**n - A reduces to 0 and B > 0 (enclosure); sqrt(A) = i c where c**2 + A "
         "reduces to 0 and c > 0")
DENEST = "denest: sqrt(A) = B where B**2 - A reduces to 0 and re(B) > 0 (enclosure)"


# ---------------------------------------------------------------------------- quotients

def _quotient(e: sp.Basic) -> sp.Basic:
    u = e.args[0]
    if isinstance(e, sp.tan):
        return sp.sin(u) / sp.cos(u)
    if isinstance(e, sp.cot):
        return sp.cos(u) / sp.sin(u)
    if isinstance(e, sp.sec):
        return 1 / sp.cos(u)
    if isinstance(e, sp.csc):
        return 1 / sp.sin(u)
    if isinstance(e, sp.tanh):
        return sp.sinh(u) / sp.cosh(u)
    if isinstance(e, sp.coth):
        return sp.cosh(u) / sp.sinh(u)
    if isinstance(e, sp.sech):
        return 1 / sp.cosh(u)
    return 1 / sp.sinh(u)  # csch


_QUOTIENT_HEADS = (sp.tan, sp.cot, sp.sec, sp.csc, sp.tanh, sp.coth, sp.sech, sp.csch)


@_guarded
def quotients(x: sp.Basic) -> sp.Basic:
    """Every ``tan``, ``cot``, ``sec``, ``csc``, ``tanh``, ``coth``, ``sech``, ``csch`` as its
    quotient (see the module notes)."""
    if not x.has(*_QUOTIENT_HEADS):
        return x
    return x.replace(lambda e: isinstance(e, _QUOTIENT_HEADS), _quotient)


# ---------------------------------------------------------------------------- inverse trigonometric


def _inverse(e: sp.Basic) -> sp.Basic:
    u = e.args[0]
    if isinstance(e, sp.asin):
        return 2 * sp.atan(u / (1 + sp.sqrt(1 - u**2)))
    if isinstance(e, sp.acos):
        return sp.pi / 2 - 2 * sp.atan(u / (1 + sp.sqrt(1 - u**2)))
    if isinstance(e, sp.acot):
        return sp.atan(1 / u)
    if isinstance(e, sp.asec):
        return sp.acos(1 / u)
    return sp.asin(1 / u)  # acsc


_INVERSE_HEADS = (sp.asin, sp.acos, sp.acot, sp.asec, sp.acsc)


@_guarded
def inverse_trig(x: sp.Basic) -> sp.Basic:
    """``asin``, ``acos``, ``acot``, ``asec``, ``acsc`` through ``atan`` (and ``asin``, ``acos``)
    on their real domains (see the module notes)."""
    for _ in range(3):  # acsc(1/u) -> asin(u) -> its atan form
        if not x.has(*_INVERSE_HEADS):
            break
        x = x.replace(lambda e: isinstance(e, _INVERSE_HEADS), _inverse)
    return x


# ---------------------------------------------------------------------------- inverse hyperbolic


def _inverse_hyperbolic(e: sp.Basic) -> sp.Basic:
    if not inverse_hyperbolic_domain(e):
        return e  # a complex or out-of-domain argument: left alone (outside the fragment)
    u = e.args[0]
    if isinstance(e, sp.asinh):
        return sp.log(u + sp.sqrt(u**2 + 1))
    if isinstance(e, sp.acosh):
        return sp.log(u + sp.sqrt(u**2 - 1))
    if isinstance(e, sp.atanh):
        return (sp.log(1 + u) - sp.log(1 - u)) / 2
    if isinstance(e, sp.acoth):
        return (sp.log(u + 1) - sp.log(u - 1)) / 2
    if isinstance(e, sp.asech):
        return sp.log(1 / u + sp.sqrt(1 / u**2 - 1))
    return sp.log(1 / u + sp.sqrt(1 / u**2 + 1))  # acsch


_INVERSE_HYPERBOLIC_HEADS = (sp.asinh, sp.acosh, sp.atanh, sp.acoth, sp.asech, sp.acsch)


@_guarded
def inverse_hyperbolic(x: sp.Basic) -> sp.Basic:
    """``asinh``, ``acosh``, ``atanh``, ``acoth``, ``asech``, ``acsch`` of an argument known to
    lie in the head's real domain, in their ``log`` form (see the module notes).

    >>> import sympy as sp
    >>> x = sp.Symbol("x", real=True)
    >>> inverse_hyperbolic(sp.asinh(x))
    log(x + sqrt(x**2 + 1))
    >>> inverse_hyperbolic(sp.acosh(x))  # x may be below 1: left alone
    acosh(x)
    """
    if not x.has(*_INVERSE_HYPERBOLIC_HEADS):
        return x
    return x.replace(lambda e: isinstance(e, _INVERSE_HYPERBOLIC_HEADS), _inverse_hyperbolic)


# ---------------------------------------------------------------------------- Euler


def _imaginary_terms(u: sp.Expr) -> tuple[sp.Expr, sp.Expr]:
    """``u = a + i b``: ``(a, b)`` with the terms of ``u`` that are ``i`` times something in ``b``
    (no claim that ``a`` or ``b`` is real)."""
    a, b = [], []
    for t in sp.Add.make_args(u):
        c = t.as_coefficient(sp.I)
        if c is not None:
            b.append(c)
        else:
            a.append(t)
    return sp.Add(*a), sp.Add(*b)


@_guarded
def euler(x: sp.Basic) -> sp.Basic:
    """``exp(a + i b) -> exp(a) (cos b + i sin b)`` everywhere (see the module notes)."""
    if not x.has(sp.exp):
        return x

    def rewrite(e: sp.exp) -> sp.Basic:
        a, b = _imaginary_terms(e.args[0])
        if b == 0:
            return e
        return sp.exp(a) * (sp.cos(b) + sp.I * sp.sin(b))

    return x.replace(lambda e: isinstance(e, sp.exp), rewrite)


# ---------------------------------------------------------------------------- re / im

#: Largest |n| of an integer power split into its real and imaginary parts.
MAX_SPLIT_POWER = 16


def split(e: sp.Expr) -> tuple[sp.Expr, sp.Expr] | None:
    """``(a, b)`` with ``e = a + i b`` and ``a``, ``b`` real, or ``None`` where the kernel cannot
    say (see the module notes).

    >>> import sympy as sp
    >>> x, y = sp.symbols("x y", real=True)
    >>> split((x + sp.I * y) ** 2)
    (x**2 - y**2, 2*x*y)
    >>> split(sp.Symbol("z")) is None
    True
    """
    budget.check()
    if e.is_extended_real is True:
        return e, sp.Integer(0)
    if e is sp.I:
        return sp.Integer(0), sp.Integer(1)
    if e.is_imaginary is True:  # e = i b with b = -i e real (SymPy's imaginary: a nonzero real times i)
        return sp.Integer(0), sp.expand(-sp.I * e)
    if isinstance(e, sp.Add):
        parts = [split(a) for a in e.args]
        if any(p is None for p in parts):
            return None
        return sp.Add(*[p[0] for p in parts]), sp.Add(*[p[1] for p in parts])
    if isinstance(e, sp.Mul):
        out: tuple[sp.Expr, sp.Expr] = (sp.Integer(1), sp.Integer(0))
        for f in e.args:
            p = split(f)
            if p is None:
                return None
            out = _times(out, p)
        return out
    if isinstance(e, sp.Pow) and e.exp.is_Integer and 0 < abs(int(e.exp)) <= MAX_SPLIT_POWER:
        p = split(e.base)
        if p is None:
            return None
        n = int(e.exp)
        if n < 0:  # 1/(a + i b) = (a - i b)/(a^2 + b^2): undefined exactly where the base is 0
            d = p[0] ** 2 + p[1] ** 2
            p, n = (p[0] / d, -p[1] / d), -n
        out = (sp.Integer(1), sp.Integer(0))
        for _ in range(n):
            out = _times(out, p)
        return out
    if isinstance(e, sp.exp):
        p = split(e.args[0])
        if p is None:
            return None
        a, b = p
        return sp.exp(a) * sp.cos(b), sp.exp(a) * sp.sin(b)
    if isinstance(e, (sp.sin, sp.cos)):
        p = split(e.args[0])
        if p is None:
            return None
        a, b = p
        if isinstance(e, sp.sin):  # sin(a + ib) = sin a cosh b + i cos a sinh b
            return sp.sin(a) * sp.cosh(b), sp.cos(a) * sp.sinh(b)
        return sp.cos(a) * sp.cosh(b), -sp.sin(a) * sp.sinh(b)
    if isinstance(e, sp.conjugate):
        p = split(e.args[0])
        return None if p is None else (p[0], -p[1])
    return None


def _times(p: tuple[sp.Expr, sp.Expr], q: tuple[sp.Expr, sp.Expr]) -> tuple[sp.Expr, sp.Expr]:
    return p[0] * q[0] - p[1] * q[1], p[0] * q[1] + p[1] * q[0]


@_guarded
def re_im(x: sp.Basic) -> sp.Basic:
    """``re``, ``im`` and ``conjugate`` of what :func:`split` splits, replaced by the parts."""
    if not x.has(sp.re, sp.im, sp.conjugate):
        return x

    def rewrite(e: sp.Basic) -> sp.Basic:
        p = split(e.args[0])
        if p is None:
            return e
        if isinstance(e, sp.re):
            return p[0]
        if isinstance(e, sp.im):
            return p[1]
        return p[0] - sp.I * p[1]

    return x.replace(lambda e: isinstance(e, (sp.re, sp.im, sp.conjugate)), rewrite)


def _arg(e: sp.arg) -> sp.Basic:
    z = e.args[0]
    if isinstance(z, sp.Mul):
        kept = [f for f in z.args if f.is_positive is not True]
        if len(kept) < len(z.args):  # arg(c z) = arg(z) for c > 0
            z = sp.Mul(*kept)
    p = split(z)
    if p is None:
        return sp.arg(z) if z != e.args[0] else e
    return sp.atan2(p[1], p[0])


@_guarded
def arg_parts(x: sp.Basic) -> sp.Basic:
    """``arg`` of what :func:`split` splits as ``atan2`` of the parts, positive factors first
    removed (see the module notes).

    >>> import sympy as sp
    >>> x, p = sp.Symbol("x", real=True), sp.Symbol("p", positive=True)
    >>> arg_parts(sp.arg((x + sp.I * x) / p))
    atan2(x, x)
    """
    if not x.has(sp.arg):
        return x
    return x.replace(lambda e: isinstance(e, sp.arg), _arg)


@_guarded
def modulus(x: sp.Basic) -> sp.Basic:
    """Every ``Abs(z)`` as ``sqrt(re(z)**2 + im(z)**2)`` (see the module notes).

    >>> import sympy as sp
    >>> modulus(sp.Abs(sp.Symbol("z")))
    sqrt(re(z)**2 + im(z)**2)
    """
    if not x.has(sp.Abs):
        return x
    return x.replace(lambda e: isinstance(e, sp.Abs), lambda e: sp.sqrt(sp.re(e.args[0]) ** 2 + sp.im(e.args[0]) ** 2))


@_guarded
def parts(x: sp.Basic) -> sp.Basic:
    """``re(z)`` as ``z - i im(z)`` where :func:`split` cannot split ``z``, and ``sign(z)`` as
    ``z/|z|`` for ``z`` known nonzero (see the module notes).

    >>> import sympy as sp
    >>> y = sp.Symbol("y")
    >>> parts(sp.re(y))
    y - I*im(y)
    >>> parts(sp.sign(2 + 2 * sp.I))
    sqrt(2)*(2 + 2*I)/4
    """
    if not x.has(sp.re, sp.sign):
        return x

    def rewrite(e: sp.Basic) -> sp.Basic:
        z = e.args[0]
        if isinstance(e, sp.re):
            return e if split(z) is not None else z - sp.I * sp.im(z)
        return z / sp.Abs(z) if z.is_zero is False else e

    return x.replace(lambda e: isinstance(e, (sp.re, sp.sign)), rewrite)


# ---------------------------------------------------------------------------- logs

#: Largest numerator or denominator (bits) of a rational whose logarithm is factorized.
MAX_LOG_BITS = 64


@_guarded
def log_primes(x: sp.Basic) -> sp.Basic:
    """``log(r)`` of a positive rational ``r`` (not 1, not a prime) as the sum over its prime
    factorization (see the module notes)."""
    if not x.has(sp.log):
        return x

    def rewrite(e: sp.log) -> sp.Basic:
        if len(e.args) != 1:
            return e
        r = e.args[0]
        if not (isinstance(r, sp.Rational) and r > 0 and r != 1):
            return e
        p, q = int(r.p), int(r.q)
        if max(p.bit_length(), q.bit_length()) > MAX_LOG_BITS:
            return e
        terms = [m * sp.log(sp.Integer(f)) for f, m in sp.factorint(p).items()]
        terms += [-m * sp.log(sp.Integer(f)) for f, m in sp.factorint(q).items()]
        if len(terms) == 1 and terms[0] == e:
            return e
        return sp.Add(*terms)

    return x.replace(lambda e: isinstance(e, sp.log), rewrite)


# ---------------------------------------------------------------------------- Kronecker deltas


def _deltas(m: sp.Mul) -> sp.Basic:
    factors = list(m.args)
    # delta^k = delta for a positive integer k (delta is 0 or 1)
    factors = [f.base if (f.is_Pow and isinstance(f.base, sp.KroneckerDelta) and f.exp.is_Integer and f.exp > 0)
               else f for f in factors]
    deltas = [q for q, f in enumerate(factors) if isinstance(f, sp.KroneckerDelta)]
    for q in deltas:
        if not isinstance(factors[q], sp.KroneckerDelta):  # became 0 or 1 on the way
            continue
        a, b = factors[q].args
        for r in deltas:
            if r == q or not isinstance(factors[r], sp.KroneckerDelta):
                continue
            c, d = factors[r].args
            # delta(a, b) * delta(c, d): where a != b both sides are 0; where a = b, replacing
            # b by a (an argument equal to b) in the other delta changes nothing
            if b in (c, d) and a not in (c, d):
                factors[r] = sp.KroneckerDelta(a if c == b else c, a if d == b else d)
            elif a in (c, d) and b not in (c, d):
                factors[r] = sp.KroneckerDelta(b if c == a else c, b if d == a else d)
    return sp.Mul(*factors)


@_guarded
def delta_products(x: sp.Basic) -> sp.Basic:
    """Products of Kronecker deltas that share an argument (see the module notes)."""
    if not x.has(sp.KroneckerDelta):
        return x
    return x.replace(lambda e: isinstance(e, sp.Mul) and e.has(sp.KroneckerDelta), _deltas)


# ---------------------------------------------------------------------------- cyclotomic fields

#: Largest degree phi(N) of a cyclotomic field the rule computes in.
MAX_FIELD_DEGREE = 192
_Z = sp.Symbol("zeta")


class _NotInField(Exception):
    pass


def _rational_pi_multiple(u: sp.Expr) -> sp.Rational | None:
    q = u / sp.pi
    return q if isinstance(q, sp.Rational) else None


def _squarefree(n: int) -> tuple[int, int]:
    """``n = m**2 * s`` with ``s`` square-free: ``(m, s)``."""
    m, s = 1, 1
    for p, k in sp.factorint(n).items():
        m *= p ** (k // 2)
        if k % 2:
            s *= p
    return m, s


def _conductor(e: sp.Basic) -> int:
    """The order ``N`` of a root of unity ``zeta`` such that ``e`` lies in ``Q(zeta)`` (a multiple
    of 4, so that ``i`` does); raises :class:`_NotInField`."""
    n = 4
    for node in sp.preorder_traversal(e):
        if isinstance(node, (sp.sin, sp.cos, sp.tan, sp.cot, sp.sec, sp.csc)):
            q = _rational_pi_multiple(node.args[0])
            if q is None:
                raise _NotInField()
            n = math.lcm(n, 2 * int(q.q))
        elif isinstance(node, sp.exp):
            q = _rational_pi_multiple(node.args[0] / sp.I)
            if q is None:
                raise _NotInField()
            n = math.lcm(n, 2 * int(q.q))
        elif isinstance(node, sp.Pow) and isinstance(node.base, sp.Rational) and not node.exp.is_Integer:
            if not (isinstance(node.exp, sp.Rational) and node.exp.q == 2):
                raise _NotInField()
            r = node.base
            if int(r.p).bit_length() > 64 or int(r.q).bit_length() > 64:
                raise _NotInField()
            _, s = _squarefree(abs(int(r.p)) * int(r.q))
            for p in sp.factorint(s):
                n = math.lcm(n, 8 if p == 2 else 4 * p)
        if sp.totient(n) > MAX_FIELD_DEGREE:
            raise _NotInField()
    return n


class _Field:
    """``Q(zeta_N)`` as polynomials in ``zeta`` modulo ``Phi_N`` (exact rational arithmetic)."""

    def __init__(self, n: int):
        self.n = n
        self.phi = sp.Poly(sp.cyclotomic_poly(n, _Z), _Z, domain=sp.QQ)

    def poly(self, p: sp.Poly) -> sp.Poly:
        return p.rem(self.phi)

    def power(self, k: int) -> sp.Poly:  # zeta**k, any integer k
        return self.poly(sp.Poly(_Z ** (k % self.n), _Z, domain=sp.QQ))

    def const(self, c: sp.Rational) -> sp.Poly:
        return sp.Poly(c, _Z, domain=sp.QQ)

    def inverse(self, p: sp.Poly) -> sp.Poly:
        if p.is_zero:
            raise _NotInField()  # a division by 0: the number is undefined
        s, _, h = p.gcdex(self.phi)  # s p + t phi = h = 1 (phi is irreducible, p != 0 mod phi)
        if h != self.const(sp.Integer(1)):
            raise _NotInField()
        return self.poly(s)

    def sqrt_prime(self, p: int) -> sp.Poly:
        """The positive square root of the prime ``p``: ``zeta_8 + zeta_8^-1`` for 2, else the
        quadratic Gauss sum ``g = sum (k|p) zeta_p^k``, which is ``sqrt p`` for ``p = 1 (mod 4)``
        and ``i sqrt p`` for ``p = 3 (mod 4)`` (Gauss)."""
        if p == 2:
            return self.poly(self.power(self.n // 8) + self.power(-(self.n // 8)))
        g = self.const(sp.Integer(0))
        for k in range(1, p):
            g = g + sp.Integer(sp.jacobi_symbol(k, p)) * self.power(k * (self.n // p))
        g = self.poly(g)
        if p % 4 == 1:
            return g
        return self.poly(g * self.power(-(self.n // 4)))  # g / i


def _element(e: sp.Basic, f: _Field) -> sp.Poly:  # noqa: C901 - one case per head
    budget.check()
    if isinstance(e, sp.Rational):
        return f.const(e)
    if e is sp.I:
        return f.power(f.n // 4)
    if isinstance(e, sp.Add):
        out = f.const(sp.Integer(0))
        for a in e.args:
            out = out + _element(a, f)
        return f.poly(out)
    if isinstance(e, sp.Mul):
        out = f.const(sp.Integer(1))
        for a in e.args:
            out = f.poly(out * _element(a, f))
        return out
    if isinstance(e, sp.Pow):
        b, x = e.args
        if x.is_Integer:
            k = int(x)
            if abs(k) > 64:
                raise _NotInField()
            base = _element(b, f)
            if k < 0:
                base, k = f.inverse(base), -k
            out = f.const(sp.Integer(1))
            for _ in range(k):
                out = f.poly(out * base)
            return out
        if isinstance(b, sp.Rational) and isinstance(x, sp.Rational) and x.q == 2:
            # r**(k/2) = sqrt(r)**k; sqrt(r) = sqrt(|num| den) / den, times i for r < 0
            num, den = int(b.p), int(b.q)
            m, s = _squarefree(abs(num) * den)
            root = f.const(sp.Rational(m, den))
            for p in sp.factorint(s):
                root = f.poly(root * f.sqrt_prime(int(p)))
            if num < 0:
                root = f.poly(root * f.power(f.n // 4))
            return _element_power(root, int(x.p), f)
        raise _NotInField()
    if isinstance(e, (sp.sin, sp.cos, sp.tan, sp.cot, sp.sec, sp.csc)):
        q = _rational_pi_multiple(e.args[0])
        if q is None:
            raise _NotInField()
        k = int(q * (f.n // 2))  # e.args[0] = 2 pi k / N
        w, winv = f.power(k), f.power(-k)
        cos = f.poly((w + winv) * sp.Rational(1, 2))
        sin = f.poly((w - winv) * f.inverse(f.poly(f.const(sp.Integer(2)) * f.power(f.n // 4))))
        if isinstance(e, sp.sin):
            return sin
        if isinstance(e, sp.cos):
            return cos
        if isinstance(e, sp.tan):
            return f.poly(sin * f.inverse(cos))
        if isinstance(e, sp.cot):
            return f.poly(cos * f.inverse(sin))
        if isinstance(e, sp.sec):
            return f.inverse(cos)
        return f.inverse(sin)
    if isinstance(e, sp.exp):
        q = _rational_pi_multiple(e.args[0] / sp.I)
        if q is None:
            raise _NotInField()
        return f.power(int(q * (f.n // 2)))
    raise _NotInField()


def _element_power(p: sp.Poly, k: int, f: _Field) -> sp.Poly:
    if k < 0:
        p, k = f.inverse(p), -k
    out = f.const(sp.Integer(1))
    for _ in range(k):
        out = f.poly(out * p)
    return out


@lru_cache(maxsize=4096)
def _cyclotomic_value(e: sp.Expr) -> sp.Rational | None:
    """The rational value of the number ``e``, computed in ``Q(zeta_N)``, or ``None``."""
    try:
        f = _Field(_conductor(e))
        p = _element(e, f)
    except (_NotInField, sp.PolynomialError, ValueError, ZeroDivisionError):
        return None
    if p.degree() <= 0:
        return sp.Rational(p.as_expr())
    return None


_CYCLO_HEADS = (sp.sin, sp.cos, sp.tan, sp.cot, sp.sec, sp.csc, sp.exp, sp.Pow)


def _cyclo_candidate(e: sp.Basic) -> bool:
    return (isinstance(e, sp.Expr) and not isinstance(e, sp.Rational) and not e.free_symbols
            and e.has(*_CYCLO_HEADS) and not e.has(sp.Float))


@_guarded
def cyclotomic(x: sp.Basic) -> sp.Basic:
    """Every number (free of symbols) whose value in a cyclotomic field is a rational constant,
    replaced by that constant (see the module notes); the largest such subexpression first."""
    if isinstance(x, sp.Expr) and _cyclo_candidate(x):
        v = _cyclotomic_value(x)
        if v is not None:
            return v
    if not isinstance(x, sp.Basic) or not x.args or x.is_Atom:
        return x
    if not any(isinstance(n, _CYCLO_HEADS) for n in sp.preorder_traversal(x)):
        return x
    if isinstance(x, sp.Add):  # the terms free of symbols, together (a constant may be their sum only)
        numbers = [a for a in x.args if not a.free_symbols]
        if len(numbers) > 1 and len(numbers) < len(x.args):
            together = sp.Add(*numbers)
            v = _cyclotomic_value(together) if _cyclo_candidate(together) else None
            if v is not None:
                return sp.Add(v, *[cyclotomic(a) for a in x.args if a.free_symbols])
    args = tuple(cyclotomic(a) if isinstance(a, sp.Expr) else a for a in x.args)
    return x if args == x.args else x.func(*args)


# ---------------------------------------------------------------------------- denesting


def _is_zero_exactly(d: sp.Expr) -> bool:
    """``d`` reduces to 0 by expand, powsimp, expand, or has the value 0 in a cyclotomic field."""
    if d == 0:
        return True
    if sp.expand(sp.powsimp(sp.expand(d))) == 0:
        return True
    return _cyclotomic_value(d) == 0


def _positive_real_part(b: sp.Expr) -> bool:
    try:
        with precision(PRECISIONS[0]):
            v = enclose(b, {})
    except Undecidable:
        return False
    if not hasattr(v, "real"):
        return v > 0  # an exact rational
    return bool(v.real > 0)


@lru_cache(maxsize=4096)
def _denested(a: sp.Expr) -> sp.Expr | None:
    """``B`` with ``sqrt(a) = B`` checked (see the module notes), or ``None``."""
    from sympy.simplify.sqrtdenest import sqrtdenest

    root = sp.sqrt(a)
    try:
        b = sqrtdenest(root)
    except (RecursionError, ValueError, TypeError, NotImplementedError, sp.PolynomialError):
        return None
    if b == root or b.free_symbols or b.has(sp.Float):
        return None
    if not _is_zero_exactly(b**2 - a) or not _positive_real_part(b):
        return None
    return b


@_guarded
def denest(x: sp.Basic) -> sp.Basic:
    """Every ``sqrt(A)`` (and ``1/sqrt(A)``) of a number ``A`` replaced by a denested ``B``
    checked by squaring, its sign fixed by an enclosure (see the module notes)."""
    if not isinstance(x, sp.Basic) or not x.has(sp.Pow):
        return x

    def target(e: sp.Basic) -> bool:
        return (isinstance(e, sp.Pow) and e.exp in (sp.S.Half, -sp.S.Half) and not e.base.free_symbols
                and not isinstance(e.base, sp.Rational) and e.base.has(sp.Pow))

    def rewrite(e: sp.Pow) -> sp.Basic:
        b = _denested(e.base)
        if b is None:
            return e
        return b if e.exp == sp.S.Half else 1 / b

    return x.replace(target, rewrite)


#: Largest index n of a root A**(k/n) the roots rule takes.
MAX_ROOT_INDEX = 12


def _real_positive(b: sp.Expr) -> bool:
    """``b`` is real by SymPy's assumptions and positive by a certified enclosure."""
    return b.is_extended_real is True and _positive_real_part(b)


@lru_cache(maxsize=4096)
def _root_of(a: sp.Expr, n: int) -> sp.Expr | None:
    """``B`` with ``a**(1/n) = B`` checked (see the module notes), or ``None``."""
    from sympy.simplify.simplify import nthroot
    from sympy.simplify.sqrtdenest import sqrtdenest

    try:
        b = nthroot(a, n) if n > 2 else sqrtdenest(sp.sqrt(a))
    except (RecursionError, ValueError, TypeError, NotImplementedError, sp.PolynomialError):
        return None
    if b is None or not isinstance(b, sp.Expr) or b.free_symbols or b.has(sp.Float):
        return None
    if isinstance(b, sp.Pow) and b.base == a:
        return None
    if _real_positive(b) and _is_zero_exactly(b**n - a):
        return b
    if n == 2:  # a negative radicand: B = i c with c > 0
        c = sp.expand(b / sp.I)
        if _real_positive(c) and _is_zero_exactly(c**2 + a):
            return b
    return None


@_guarded
def roots(x: sp.Basic) -> sp.Basic:
    """Every ``A**(k/n)`` of a number ``A`` (``2 <= n <= 12``) with a checked root ``B`` replaced
    by ``B**k`` (see the module notes).

    >>> import sympy as sp
    >>> roots((41 + 29 * sp.sqrt(2)) ** sp.Rational(1, 5))
    1 + sqrt(2)
    >>> roots(sp.sqrt(-2107 - 98 * sp.sqrt(345) - 98 * sp.sqrt(115) - 490 * sp.sqrt(3)))
    I*(7*sqrt(5) + 7*sqrt(15) + 7*sqrt(23))
    """
    if not isinstance(x, sp.Basic) or not x.has(sp.Pow):
        return x

    def target(e: sp.Basic) -> bool:
        return (isinstance(e, sp.Pow) and isinstance(e.exp, sp.Rational) and 2 <= e.exp.q <= MAX_ROOT_INDEX
                and not e.base.free_symbols and not isinstance(e.base, sp.Rational) and e.base.has(sp.Pow)
                and not e.base.has(sp.Float))

    def rewrite(e: sp.Pow) -> sp.Basic:
        b = _root_of(e.base, int(e.exp.q))
        if b is None:
            return e
        return b ** int(e.exp.p)

    return x.replace(target, rewrite)
