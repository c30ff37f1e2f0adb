r"""Certified enclosures: what an expression is worth at an exact point, rigorously.

A refutation is a point where the two sides of a claim **cannot** be equal: their enclosures
(balls guaranteed to contain the true values, from Arb through python-flint) are disjoint.
Two precisions that agree are no such guarantee: a cancellation of huge terms or a jump at the
point fools them both. Here:

* exact rational arithmetic is kept exact (``Fraction``) as long as it can be: sums,
  products, integer powers, ``floor``, ``Mod``, comparisons, ``KroneckerDelta`` of rational
  numbers; ``floor(997 * x)`` at ``x = 503/997`` is exactly 503, not "502 or 503";
* everything else is an Arb complex ball (``acb``) at the working precision: the constants,
  ``sin``, ``cos``, ``exp``, principal ``log`` and powers, ``atan``, ``Abs``, ...;
* the expression is evaluated **as written**: a ``Sum`` with bounds that are integers at the
  point is summed term by term, a ``Subs`` evaluates its body at its point, a ``Piecewise``
  takes the branch whose condition is *certainly* true; no SymPy ``doit``, ``limit`` or
  integrator is on the path (a derivative is expanded by the kernel's chain rule first, a
  limit by the kernel's limit laws; every binder means what
  :mod:`~pe_symbolic.proof.kernel.binders` says, a merged ``Subs`` substitutes in order);
* whatever cannot be decided -- a condition the balls cannot settle, a division by a ball
  that contains 0, a branch cut inside a ball, an unknown head (``Integral``, an undefined
  function), a limit the kernel's laws do not evaluate -- raises :class:`Undecidable`, and the point refutes nothing.

>>> import sympy as sp
>>> x = sp.Symbol("x", real=True)
>>> separated(enclose(sp.floor(997 * x), {x: sp.Rational(503, 997)}), enclose(sp.Integer(503), {}))
False
>>> separated(enclose(sp.sin(x + 1), {x: sp.Integer(2)}), enclose(sp.sin(x) + sp.sin(1), {x: sp.Integer(2)}))
True
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from fractions import Fraction
from typing import Any

import flint
import sympy as sp
from flint import acb, arb, fmpq

from .binders import derivative, limit, substitutions, term_count
from .evaluation import components

__all__ = ["PRECISIONS", "Undecidable", "Value", "decide", "describe", "enclose", "precision",
           "separated", "upper_abs"]

Value = Any  # Fraction (exact real rational) or flint.acb (a complex ball)

#: Working precisions (bits) tried in turn when the balls at the first one do not separate.
PRECISIONS = (128, 512)
#: Most terms a sum (or factors a product) is evaluated with at a point.
MAX_TERMS = 20_000
#: Largest |exponent| of an exact integer power, and digits of an exact number kept exact.
MAX_EXACT_EXPONENT = 4096
MAX_EXACT_BITS = 20_000

_lock = threading.RLock()


class Undecidable(ArithmeticError):
    """The enclosure cannot say anything certain here (the message says why)."""


@contextmanager
def precision(bits: int) -> Iterator[None]:
    """Arb's working precision for the block (Arb's context is global: one block at a time)."""
    with _lock:
        old = flint.ctx.prec
        flint.ctx.prec = bits
        try:
            yield
        finally:
            flint.ctx.prec = old


# ---------------------------------------------------------------------------- conversions


def _ball(v: Value) -> acb:
    if isinstance(v, Fraction):
        if v.denominator == 1:
            return acb(v.numerator)
        return acb(arb(fmpq(v.numerator, v.denominator)))
    return v


def _exact_ok(v: Fraction) -> Fraction:
    if v.numerator.bit_length() > MAX_EXACT_BITS or v.denominator.bit_length() > MAX_EXACT_BITS:
        raise Undecidable("an exact number too large to keep exact")
    return v


def _real(v: Value) -> arb:
    """The value as a real ball; Undecidable if it may have a nonzero imaginary part."""
    if isinstance(v, Fraction):
        return _ball(v).real
    if not v.imag.is_zero():
        raise Undecidable("a real number was needed, and the value may be complex")
    return v.real


def _finite(v: Value) -> Value:
    if isinstance(v, Fraction):
        return v
    if not (v.real.is_finite() and v.imag.is_finite()):
        raise Undecidable("an enclosure is not finite (a pole, an overflow or a branch point)")
    return v


# ---------------------------------------------------------------------------- decisions


def separated(a: Value, b: Value) -> bool:
    """Whether ``a != b`` is certain: unequal exact numbers, or disjoint enclosures."""
    if isinstance(a, Fraction) and isinstance(b, Fraction):
        return a != b
    ba, bb = _ball(a), _ball(b)
    if not (ba.real.is_finite() and ba.imag.is_finite() and bb.real.is_finite() and bb.imag.is_finite()):
        return False
    return not ba.overlaps(bb)


def _sign(v: Value) -> int:
    """-1, 0 or 1 for a real value, certainly; Undecidable otherwise."""
    if isinstance(v, Fraction):
        return (v > 0) - (v < 0)
    r = _real(v)
    if r > 0:
        return 1
    if r < 0:
        return -1
    if r.is_zero():
        return 0
    raise Undecidable("the sign of a ball that contains 0")


def _less(a: Value, b: Value, strict: bool) -> bool:
    if isinstance(a, Fraction) and isinstance(b, Fraction):
        return a < b if strict else a <= b
    ra, rb = _real(a), _real(b)
    if strict:
        if ra < rb:
            return True
        if ra >= rb:
            return False
    else:
        if ra <= rb:
            return True
        if ra > rb:
            return False
    raise Undecidable("a comparison the balls cannot settle")


def _equal(a: Value, b: Value) -> bool:
    if isinstance(a, Fraction) and isinstance(b, Fraction):
        return a == b
    if separated(a, b):
        return False
    raise Undecidable("an equality of inexact values")


# ---------------------------------------------------------------------------- arithmetic


def _add(a: Value, b: Value) -> Value:
    if isinstance(a, Fraction) and isinstance(b, Fraction):
        return _exact_ok(a + b)
    return _ball(a) + _ball(b)


def _mul(a: Value, b: Value) -> Value:
    if isinstance(a, Fraction) and isinstance(b, Fraction):
        return _exact_ok(a * b)
    if isinstance(a, Fraction) and a == 0 or isinstance(b, Fraction) and b == 0:
        return Fraction(0)
    return _ball(a) * _ball(b)


def _inv(a: Value) -> Value:
    if isinstance(a, Fraction):
        if a == 0:
            raise Undecidable("a division by zero")
        return 1 / a
    if a.contains(acb(0)):
        raise Undecidable("a division by a ball that contains 0")
    return 1 / a


def _pow(base: Value, ex: Value) -> Value:
    if isinstance(ex, Fraction) and ex.denominator == 1:
        n = ex.numerator
        if abs(n) > MAX_EXACT_EXPONENT and isinstance(base, Fraction) and abs(base) != 1 and base != 0:
            base = _ball(base)
        if isinstance(base, Fraction):
            if base == 0 and n < 0:
                raise Undecidable("0 to a negative power")
            return _exact_ok(base**n) if n >= 0 else _exact_ok(1 / base ** (-n))
        if n < 0:
            return _inv(base ** (-n))
        return base**n
    # a non-integer power: principal value exp(ex * log(base)), 0**positive = 0
    if isinstance(base, Fraction) and base == 0:
        if _sign(_real(_ball(ex)) if not isinstance(ex, Fraction) else ex) > 0:
            return Fraction(0)
        raise Undecidable("0 to a power that is not positive")
    b = _ball(base)
    if b.contains(acb(0)):
        raise Undecidable("a non-integer power of a ball that contains 0")
    if isinstance(base, Fraction) and base > 0 and isinstance(ex, Fraction):
        return _finite(acb(arb(fmpq(base.numerator, base.denominator)) ** arb(fmpq(ex.numerator, ex.denominator))))
    return _finite((_log(base) * _ball(ex)).exp())


def _log(v: Value) -> acb:
    b = _ball(v)
    if b.contains(acb(0)):
        raise Undecidable("log of a ball that contains 0")
    if not b.imag.is_zero() and b.real < 0 and b.imag.contains(0):
        raise Undecidable("log of a ball on its branch cut")
    if isinstance(v, Fraction) and v < 0:  # exactly on the cut: the principal value, as SymPy's
        return acb(arb(fmpq(-v.numerator, v.denominator)).log(), arb.pi())
    return _finite(b.log())


def _log_base(ev: "_Evaluator", e: sp.Basic) -> Value:
    """``log(x, b) = log(x)/log(b)`` (SymPy's definition); undefined where ``log(b)`` may be 0
    (a base of 1) and wherever either logarithm is."""
    den = _log(ev.ev(e.args[1]))
    if den.contains(acb(0)):
        raise Undecidable("log with a base whose logarithm may be 0 (a base of 1)")
    return _finite(_log(ev.ev(e.args[0])) / den)


# ---------------------------------------------------------------------------- the evaluator

Entry = Callable[[sp.Indexed], sp.Expr]


class _Evaluator:
    def __init__(self, env: Mapping[sp.Basic, Any], entry: Entry | None) -> None:
        self.env: dict[sp.Basic, Value] = {}
        self.raw = dict(env)
        self.entry = entry

    def value_of(self, key: sp.Basic) -> Value:
        if key in self.env:
            return self.env[key]
        if key in self.raw:
            raw = self.raw[key]
            if isinstance(raw, (Fraction, acb)):
                v = raw
            elif isinstance(raw, int):
                v = Fraction(raw)
            elif isinstance(raw, sp.Basic):
                v = self.ev(raw)
            else:
                raise Undecidable(f"the value of {key} is not a number")
            self.env[key] = v
            return v
        raise Undecidable(f"no value for {key}")

    def ev(self, e: sp.Basic) -> Value:  # noqa: C901 - one dispatch table
        if isinstance(e, sp.Integer):
            return Fraction(int(e))
        if isinstance(e, sp.Rational):
            return Fraction(int(e.p), int(e.q))
        if isinstance(e, sp.Float):  # a binary number, exactly
            r = sp.Rational(e)
            return Fraction(int(r.p), int(r.q))
        if e is sp.pi:
            return acb.pi()
        if e is sp.E:
            return acb(1).exp()
        if e is sp.I:
            return acb(0, 1)
        if isinstance(e, sp.Symbol):
            return self.value_of(e)
        if isinstance(e, sp.Indexed):
            idx = tuple(self._integer(self.ev(i)) for i in e.indices)
            key = sp.Indexed(e.base, *idx)
            if key not in self.raw and key not in self.env:
                if self.entry is None:
                    raise Undecidable(f"no value for {key}")
                self.raw[key] = self.entry(key)
            return self.value_of(key)
        if isinstance(e, sp.Add):
            out: Value = Fraction(0)
            for a in e.args:
                out = _add(out, self.ev(a))
            return out
        if isinstance(e, sp.Mul):
            out = Fraction(1)
            for a in e.args:
                out = _mul(out, self.ev(a))
            return out
        if isinstance(e, sp.Pow):
            if e.base is sp.E:
                return _finite(_ball(self.ev(e.exp)).exp())
            return _finite(_pow(self.ev(e.base), self.ev(e.exp)))
        handler = _FUNCTIONS.get(type(e))
        if handler is not None:
            return handler(self, e)
        raise Undecidable(f"no enclosure for {type(e).__name__}")

    def _integer(self, v: Value) -> int:
        if isinstance(v, Fraction) and v.denominator == 1:
            return v.numerator
        raise Undecidable("an index or bound that is not an exact integer")

    def cond(self, c: sp.Basic) -> bool:
        if c is sp.true:
            return True
        if c is sp.false:
            return False
        if isinstance(c, sp.And):
            vals = []
            for a in c.args:
                try:
                    if not self.cond(a):
                        return False
                    vals.append(True)
                except Undecidable:
                    vals.append(None)
            if None in vals:
                raise Undecidable("an And the balls cannot settle")
            return True
        if isinstance(c, sp.Or):
            undecided = False
            for a in c.args:
                try:
                    if self.cond(a):
                        return True
                except Undecidable:
                    undecided = True
            if undecided:
                raise Undecidable("an Or the balls cannot settle")
            return False
        if isinstance(c, sp.Not):
            return not self.cond(c.args[0])
        if isinstance(c, (sp.StrictLessThan, sp.LessThan, sp.StrictGreaterThan, sp.GreaterThan)):
            a, b = self.ev(c.lhs), self.ev(c.rhs)
            if isinstance(c, (sp.StrictGreaterThan, sp.GreaterThan)):
                a, b = b, a
            return _less(a, b, strict=isinstance(c, (sp.StrictLessThan, sp.StrictGreaterThan)))
        if isinstance(c, sp.Equality):
            return _equal(self.ev(c.lhs), self.ev(c.rhs))
        if isinstance(c, sp.Unequality):
            return not _equal(self.ev(c.lhs), self.ev(c.rhs))
        raise Undecidable(f"no decision for the condition {type(c).__name__}")

    def bind(self, var: sp.Symbol, value: Value) -> Value | None:
        old = self.env.get(var)
        self.env[var] = value
        return old

    def unbind(self, var: sp.Symbol, old: Value | None) -> None:
        if old is None:
            self.env.pop(var, None)
        else:
            self.env[var] = old


def _unary(method: str, real_only: bool = False) -> Callable[[_Evaluator, sp.Basic], Value]:
    def fn(ev: _Evaluator, e: sp.Basic) -> Value:
        v = ev.ev(e.args[0])
        if real_only:
            return _finite(acb(getattr(_real(v), method)()))
        return _finite(getattr(_ball(v), method)())
    return fn


def _abs(ev: _Evaluator, e: sp.Basic) -> Value:
    v = ev.ev(e.args[0])
    if isinstance(v, Fraction):
        return abs(v)
    return acb(abs(v))


def _sign_fn(ev: _Evaluator, e: sp.Basic) -> Value:
    v = ev.ev(e.args[0])
    if isinstance(v, Fraction) or v.imag.is_zero():
        return Fraction(_sign(v))
    if v.contains(acb(0)):
        raise Undecidable("sign of a ball that contains 0")
    return v / acb(abs(v))


def _floor_fn(ceiling: bool) -> Callable[[_Evaluator, sp.Basic], Value]:
    def fn(ev: _Evaluator, e: sp.Basic) -> Value:
        v = ev.ev(e.args[0])
        if isinstance(v, Fraction):
            return Fraction(math.ceil(v) if ceiling else math.floor(v))
        r = _real(v)
        out = r.ceil() if ceiling else r.floor()
        n = out.unique_fmpz()
        return Fraction(int(n)) if n is not None else acb(out)
    return fn


def _frac(ev: _Evaluator, e: sp.Basic) -> Value:
    v = ev.ev(e.args[0])
    if isinstance(v, Fraction):
        return v - math.floor(v)
    r = _real(v)
    n = r.floor().unique_fmpz()
    if n is None:
        raise Undecidable("frac of a ball that contains an integer")
    return acb(r - arb(n))


def _mod(ev: _Evaluator, e: sp.Basic) -> Value:
    a, b = ev.ev(e.args[0]), ev.ev(e.args[1])
    if isinstance(a, Fraction) and isinstance(b, Fraction) and b != 0:
        return a % b
    raise Undecidable("Mod of inexact values")


def _minmax(ev: _Evaluator, e: sp.Basic) -> Value:
    vals = [ev.ev(a) for a in e.args]
    pick_max = isinstance(e, sp.Max)
    if all(isinstance(v, Fraction) for v in vals):
        return max(vals) if pick_max else min(vals)
    out = _real(vals[0])
    for v in vals[1:]:
        out = out.max(_real(v)) if pick_max else out.min(_real(v))
    return acb(out)


def _delta(ev: _Evaluator, e: sp.Basic) -> Value:
    a, b = ev.ev(e.args[0]), ev.ev(e.args[1])
    return Fraction(1 if _equal(a, b) else 0)


def _piecewise(ev: _Evaluator, e: sp.Basic) -> Value:
    for pair in e.args:
        if ev.cond(pair.cond):
            return ev.ev(pair.expr)
    raise Undecidable("a Piecewise with no branch that holds")


def _atan(ev: _Evaluator, e: sp.Basic) -> Value:
    v = ev.ev(e.args[0])
    if isinstance(v, Fraction) and v == 0:
        return Fraction(0)
    b = _ball(v)
    if b.imag.is_zero():
        return acb(b.real.atan())
    raise Undecidable("atan of a complex value (branch cuts)")


def _asin_acos(name: str) -> Callable[[_Evaluator, sp.Basic], Value]:
    def fn(ev: _Evaluator, e: sp.Basic) -> Value:
        r = _real(ev.ev(e.args[0]))
        if not (r >= -1 and r <= 1):
            raise Undecidable(f"{name} outside [-1, 1] (branch cuts)")
        return _finite(acb(getattr(r, name)()))
    return fn


def _inverse_real(name: str) -> Callable[[_Evaluator, sp.Basic], Value]:
    """``acot``, ``asec``, ``acsc`` on the real line, as SymPy defines them: ``atan(1/x)``,
    ``acos(1/x)``, ``asin(1/x)``. Held undefined at 0 (SymPy's ``acot(0) = pi/2`` contradicts
    its own ``acot(-x) = -acot(x)`` there; ``asec(0)``, ``acsc(0)`` are ``zoo``) and, for
    ``asec``/``acsc``, inside (-1, 1), where the value is complex."""
    def fn(ev: _Evaluator, e: sp.Basic) -> Value:
        r = _real(ev.ev(e.args[0]))
        if not (r > 0 or r < 0):
            raise Undecidable(f"{name} at a ball that contains 0")
        inv = 1 / r
        if name == "acot":
            return _finite(acb(inv.atan()))
        if not (inv >= -1 and inv <= 1):
            raise Undecidable(f"{name} of a value in (-1, 1) or too close to it (complex there)")
        return _finite(acb(inv.acos() if name == "asec" else inv.asin()))
    return fn


def _inverse_hyperbolic(name: str) -> Callable[[_Evaluator, sp.Basic], Value]:
    """``asinh``, ``acosh``, ``atanh``, ``acoth``, ``asech``, ``acsch`` on their real domains
    (the fragment's table), by Arb's ``asinh``, ``acosh``, ``atanh`` (``acoth x = atanh(1/x)``,
    ``asech x = acosh(1/x)``, ``acsch x = asinh(1/x)``, SymPy's definitions). Undefined -- an
    ``Undecidable`` -- at a value that may be complex, and at a ball not certainly inside the
    domain: ``acosh`` below 1, ``atanh`` at or beyond +-1 (its poles), ``acoth`` in [-1, 1],
    ``asech`` outside (0, 1], ``acsch`` at 0; there SymPy's values are complex or infinite."""
    def fn(ev: _Evaluator, e: sp.Basic) -> Value:
        r = _real(ev.ev(e.args[0]))
        if name in ("acoth", "asech", "acsch"):
            if not (r > 0 or r < 0):
                raise Undecidable(f"{name} at a ball that contains 0")
            if name == "asech" and not r > 0:
                raise Undecidable("asech of a negative value (complex there)")
            r = 1 / r
        if name == "asinh" or name == "acsch":
            return _finite(acb(r.asinh()))
        if name in ("acosh", "asech"):
            if not r >= 1:
                raise Undecidable(f"{name} outside its real domain or too close to its edge (complex there)")
            return _finite(acb(r.acosh()))
        if not (r > -1 and r < 1):  # atanh, acoth (of 1/x)
            raise Undecidable(f"{name} at or beyond its poles, or too close to them (complex there)")
        return _finite(acb(r.atanh()))
    return fn


def _atan2(ev: _Evaluator, e: sp.Basic) -> Value:
    """``atan2(y, x)`` for real ``y, x``, the angle of ``x + i y`` in (-pi, pi] (SymPy's
    principal branch); undefined at ``(0, 0)``; on the cut (``x < 0``, ``y`` near 0) only for
    ``y`` exactly 0 (``pi``)."""
    yv, xv = ev.ev(e.args[0]), ev.ev(e.args[1])
    y, x = _real(yv), _real(xv)
    if y > 0:
        return _finite(acb(arb.pi() / 2 - (x / y).atan()))
    if y < 0:
        return _finite(acb(-arb.pi() / 2 - (x / y).atan()))
    if x > 0:
        return _finite(acb((y / x).atan()))
    if x < 0 and y.is_zero():
        return acb(arb.pi())
    raise Undecidable("atan2 at (0, 0) or on its branch cut")


def _re_im(part: str) -> Callable[[_Evaluator, sp.Basic], Value]:
    def fn(ev: _Evaluator, e: sp.Basic) -> Value:
        v = ev.ev(e.args[0])
        if isinstance(v, Fraction):
            return v if part == "real" else Fraction(0)
        return acb(getattr(v, part))
    return fn


def _conjugate(ev: _Evaluator, e: sp.Basic) -> Value:
    v = ev.ev(e.args[0])
    return v if isinstance(v, Fraction) else v.conjugate()


def _arg(ev: _Evaluator, e: sp.Basic) -> Value:
    v = ev.ev(e.args[0])
    b = _ball(v)
    if b.contains(acb(0)):
        raise Undecidable("arg of a ball that contains 0")
    if isinstance(v, Fraction):
        return Fraction(0) if v > 0 else acb(arb.pi())
    if b.real < 0 and b.imag.contains(0) and not b.imag.is_zero():
        raise Undecidable("arg on its branch cut")
    return acb(b.arg())


def _factorial(ev: _Evaluator, e: sp.Basic) -> Value:
    n = ev.ev(e.args[0])
    if isinstance(n, Fraction) and n.denominator == 1 and 0 <= n.numerator <= 2000:
        return Fraction(math.factorial(n.numerator))
    raise Undecidable("factorial of something other than a small nonnegative integer")


def _binomial(ev: _Evaluator, e: sp.Basic) -> Value:
    n, k = ev.ev(e.args[0]), ev.ev(e.args[1])
    if all(isinstance(v, Fraction) and v.denominator == 1 for v in (n, k)) and 0 <= n.numerator <= 5000:
        nn, kk = n.numerator, k.numerator
        return Fraction(math.comb(nn, kk) if 0 <= kk <= nn else 0)
    raise Undecidable("binomial of something other than small nonnegative integers")


def _sum_product(ev: _Evaluator, e: sp.Basic) -> Value:
    is_sum = isinstance(e, sp.Sum)
    if len(e.limits) != 1 or len(e.limits[0]) != 3:
        raise Undecidable("a sum without one explicit range")
    j, lo, hi = e.limits[0]
    lo_v, hi_v = ev.ev(lo), ev.ev(hi)
    if not (isinstance(lo_v, Fraction) and isinstance(hi_v, Fraction)):
        raise Undecidable("a bound that is not an exact number")
    count = term_count(lo_v, hi_v)  # the terms at lo, lo + 1, ..., hi (binders.term_count; lo = 1/2 too)
    if count.denominator != 1:
        raise Undecidable("a range whose number of terms is not an integer")
    if count > MAX_TERMS:
        raise Undecidable(f"a sum of more than {MAX_TERMS} terms")
    out: Value = Fraction(0 if is_sum else 1)
    if count < 0:  # SymPy's convention for a backward range (Karr) is not what is written; refuse
        raise Undecidable("a sum over a backward range")
    for t in range(int(count)):
        old = ev.bind(j, _exact_ok(lo_v + t))
        try:
            term = ev.ev(e.function)
        finally:
            ev.unbind(j, old)
        out = _add(out, term) if is_sum else _mul(out, term)
    return out


def _subs(ev: _Evaluator, e: sp.Subs) -> Value:
    # the substitutions in order (binders.substitutions): f[x1 := p1][x2 := p2] is f evaluated
    # with x1 bound to p1's value where x2 is already bound to p2's, so the last pair is bound
    # first, each point evaluated where the later ones are bound (an environment captures nothing)
    olds = []
    try:
        for v, p in reversed(substitutions(e)):
            olds.append((v, ev.bind(v, ev.ev(p))))
        return ev.ev(e.expr)
    finally:
        for v, old in reversed(olds):
            ev.unbind(v, old)


def _derivative(ev: _Evaluator, e: sp.Derivative) -> Value:
    ev.ev(e.expr)  # a function has a derivative only where it is defined (asin(2): none)
    out = derivative(e)  # the kernel's chain rule (binders.derivative), nothing else
    if isinstance(out, sp.Derivative) or out.has(sp.Derivative):
        raise Undecidable("a derivative the kernel's chain rule does not expand")
    return ev.ev(out)


def _limit(ev: _Evaluator, e: sp.Limit) -> Value:
    body, x, p, _ = e.args
    out = limit(body, x, p)  # the kernel's limit laws (binders.limit), never SymPy's limit
    if out is None or out.is_finite is not True:
        raise Undecidable("a limit the kernel's limit laws do not evaluate")
    return ev.ev(out)


def _determinant(ev: _Evaluator, e: sp.Determinant) -> Value:
    m = e.arg
    if isinstance(m, sp.BlockDiagMatrix):
        out: Value = Fraction(1)
        for b in m.args:
            out = _mul(out, _determinant(ev, sp.Determinant(b)))
        return out
    if not isinstance(m, sp.MatrixBase) or m.rows != m.cols:
        raise Undecidable("a determinant of symbolic size")
    out: Value = Fraction(1)
    for c in components(m):
        if len(c) > 6:
            raise Undecidable("a determinant with a diagonal block larger than 6x6")
        out = _mul(out, _det([[ev.ev(m[r, q]) for q in c] for r in c]))
    return out


def _det(rows: list[list[Value]]) -> Value:
    n = len(rows)
    if n == 0:
        return Fraction(1)
    if n == 1:
        return rows[0][0]
    out: Value = Fraction(0)
    for c in range(n):
        minor = [r[:c] + r[c + 1:] for r in rows[1:]]
        term = _mul(rows[0][c], _det(minor))
        out = _add(out, term if c % 2 == 0 else _mul(Fraction(-1), term))
    return out


_FUNCTIONS: dict[type, Callable[[_Evaluator, Any], Value]] = {
    sp.sin: _unary("sin"), sp.cos: _unary("cos"), sp.tan: _unary("tan"), sp.exp: _unary("exp"),
    sp.cot: _unary("cot"), sp.sec: _unary("sec"), sp.csc: _unary("csc"),
    sp.sinh: _unary("sinh"), sp.cosh: _unary("cosh"), sp.tanh: _unary("tanh"),
    sp.coth: _unary("coth"), sp.sech: _unary("sech"), sp.csch: _unary("csch"),
    sp.acot: _inverse_real("acot"), sp.asec: _inverse_real("asec"), sp.acsc: _inverse_real("acsc"),
    sp.atan2: _atan2,
    sp.asinh: _inverse_hyperbolic("asinh"), sp.acosh: _inverse_hyperbolic("acosh"),
    sp.atanh: _inverse_hyperbolic("atanh"), sp.acoth: _inverse_hyperbolic("acoth"),
    sp.asech: _inverse_hyperbolic("asech"), sp.acsch: _inverse_hyperbolic("acsch"),
    sp.log: lambda ev, e: _log(ev.ev(e.args[0])) if len(e.args) == 1 else _log_base(ev, e),
    sp.atan: _atan, sp.asin: _asin_acos("asin"), sp.acos: _asin_acos("acos"),
    sp.Abs: _abs, sp.sign: _sign_fn, sp.floor: _floor_fn(False), sp.ceiling: _floor_fn(True),
    sp.frac: _frac, sp.Mod: _mod, sp.Max: _minmax, sp.Min: _minmax, sp.KroneckerDelta: _delta,
    sp.Piecewise: _piecewise, sp.re: _re_im("real"), sp.im: _re_im("imag"), sp.conjugate: _conjugate,
    sp.arg: _arg, sp.factorial: _factorial, sp.binomial: _binomial,
    sp.Sum: _sum_product, sp.Product: _sum_product, sp.Subs: _subs, sp.Derivative: _derivative, sp.Limit: _limit,
    sp.Determinant: _determinant,
}


def _raise(why: str) -> Value:
    raise Undecidable(why)


def enclose(e: sp.Basic, env: Mapping[sp.Basic, Any], *, entry: Entry | None = None) -> Value:
    """An enclosure of the scalar ``e`` with the symbols (and vector entries) of ``env``
    replaced by their exact values: an exact ``Fraction`` or an Arb ball. Call inside
    :func:`precision` to choose the working precision. Raises :class:`Undecidable`.

    ``entry(q[i])``, if given, supplies a value for a vector entry the first time it is met.
    """
    try:
        return _Evaluator(env, entry).ev(e)
    except (ZeroDivisionError, OverflowError, ValueError, TypeError, RecursionError) as exc:
        raise Undecidable(f"{type(exc).__name__}: {exc}") from None


def decide(cond: sp.Basic, env: Mapping[sp.Basic, Any], *, entry: Entry | None = None) -> bool:
    """Whether the condition certainly holds at ``env`` (False when it certainly does not);
    raises :class:`Undecidable` when the balls cannot settle it. ``entry`` as for
    :func:`enclose`."""
    try:
        return _Evaluator(env, entry).cond(cond)
    except (ZeroDivisionError, OverflowError, ValueError, TypeError, RecursionError) as exc:
        raise Undecidable(f"{type(exc).__name__}: {exc}") from None


def upper_abs(a: Value, b: Value) -> float:
    """An upper bound of ``|a - b|`` (informative, for spot checks)."""
    try:
        if isinstance(a, Fraction) and isinstance(b, Fraction):
            return float(abs(a - b))
        d = abs(_ball(a) - _ball(b))
        if not d.is_finite():
            return math.inf
        return float(d.upper().mid())
    except OverflowError:  # a difference beyond the largest float
        return math.inf


def describe(v: Value) -> list[str]:
    """The enclosure as text: ``[lo, hi]`` of the real part (and of the imaginary part when it
    is not exactly 0), endpoints rounded outward to 20 digits; an exact number of at most
    about 1,000 digits as it is. Never raises (it runs in the refuter's path): a longer exact
    number, which ``str`` refuses past 4,300 digits, is shown as its 20-digit ball."""
    if isinstance(v, Fraction):
        if max(v.numerator.bit_length(), v.denominator.bit_length()) <= _SHOWN_EXACT_BITS:
            return [str(v)] if v.denominator != 1 else [str(v.numerator)]
        v = _ball(v)
    out = [_interval(v.real)]
    if not v.imag.is_zero():
        out.append(_interval(v.imag) + "i")
    return out


#: Exact numbers up to this many bits (about 1,000 digits) are shown exactly by :func:`describe`.
_SHOWN_EXACT_BITS = 3_300


def _interval(r: arb) -> str:
    return f"[{r.lower().str(20, radius=False)}, {r.upper().str(20, radius=False)}]"
