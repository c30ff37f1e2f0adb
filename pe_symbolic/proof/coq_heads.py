r"""The Coq printing of the textbook's heads (``cot``, ``sec``, ``csc``, the hyperbolic functions,
``asin``, ``acos``, ``acot``, ``asec``, ``acsc``, the inverse hyperbolic functions), called from one line of
:func:`pe_symbolic.proof.coq.to_coq_ast`.

Each is printed as the Coq ``Reals`` term with the same value wherever the kernel holds the
head defined (:mod:`pe_symbolic.proof.kernel.fragment`), and only where the printer can see
that it is:

* ``cot u`` as ``cos u * / sin u``, ``sec u`` as ``/ cos u``, ``csc u`` as ``/ sin u``
  (SymPy's definitions; Coq's ``/ 0 = 0`` is where SymPy's value is undefined, as for
  ``tan``);
* ``sinh``, ``cosh``, ``tanh`` as Coq's own (``Rtrigo_def``: ``(exp x - exp (- x)) / 2``, ...,
  SymPy's definitions for real ``x``), ``coth``, ``sech``, ``csch`` as their quotients;
* ``asin``, ``acos`` as Coq's (``Ratan``) only for an argument SymPy knows to lie in
  ``[-1, 1]`` (outside, Coq's are clamped and SymPy's complex); ``acot u`` as ``atan (/ u)``
  only for ``u`` known nonzero; ``asec u``, ``acsc u`` as ``acos (/ u)``, ``asin (/ u)`` only
  for ``|u| >= 1`` known;
* ``asinh``, ``acosh``, ``atanh``, ``acoth``, ``asech``, ``acsch`` as their ``log`` forms (the
  rule ``inverse hyperbolic`` of :mod:`~pe_symbolic.proof.kernel.identities`, whose module
  notes say why each holds) only where SymPy's assumptions place the argument in the head's
  real domain (the fragment's own test): ``ln (u + sqrt (u ^ 2 + 1))``,
  ``ln (u + sqrt (u ^ 2 - 1))`` for ``u >= 1``, ``(1 / 2) * (ln (1 + u) + - ln (1 - u))`` for
  ``|u| < 1``, ``(1 / 2) * ln ((u + 1) * / (u - 1))`` for ``|u| > 1`` (one ``ln`` of a positive
  number: Coq's ``ln`` is 0 at and below 0, where SymPy's is complex), and ``asech``,
  ``acsch`` as ``acosh``, ``asinh`` of ``/ u``; each ``ln`` and ``sqrt`` is then of a positive
  (nonnegative) real, where Coq's agree with SymPy's;
* ``atan2``, ``re``, ``im``, ``conjugate`` are not printed (:class:`~pe_symbolic.proof.coq.OutsideFragment`).

>>> import sympy as sp
>>> from pe_symbolic.proof.coq import Env, to_coq_ast
>>> from pe_symbolic.proof.coq_syntax import coq_text
>>> x = sp.Symbol("x", real=True)
>>> coq_text(to_coq_ast(sp.cot(x), Env()))
'((cos x_1) * (/ (sin x_1)))'
>>> coq_text(to_coq_ast(sp.sinh(x), Env()))
'(sinh x_1)'
>>> coq_text(to_coq_ast(sp.asinh(x), Env()))
'(ln (x_1 + (sqrt ((x_1 ^ 2) + 1))))'
>>> to_coq_ast(sp.asin(x), Env())
Traceback (most recent call last):
pe_symbolic.proof.coq.OutsideFragment: asin(x): the argument is not known to lie in [-1, 1] (Coq's asin is clamped outside)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import sympy as sp

from .kernel.fragment import inverse_hyperbolic_domain

__all__ = ["print_head"]

Node = tuple


def _app(name: str, *args: Node) -> Node:
    return ("app", name, tuple(args))


def _in_unit(u: sp.Basic) -> bool:
    return u.is_extended_real is True and (1 - u**2).is_nonnegative is True


def _outside_unit(u: sp.Basic) -> bool:
    return u.is_extended_real is True and (u**2 - 1).is_nonnegative is True


_INVERSE_HYPERBOLIC = (sp.asinh, sp.acosh, sp.atanh, sp.acoth, sp.asech, sp.acsch)
_ONE = ("num", 1, 1)
_HALF = ("num", 1, 2)


def _inverse_hyperbolic(e: sp.Basic, a: Node) -> Node:
    """The ``log`` form of an inverse hyperbolic head whose argument (printed ``a``) is known to
    lie in its real domain (see the module notes)."""
    if isinstance(e, (sp.asech, sp.acsch)):
        a = ("inv", a)
    if isinstance(e, (sp.asinh, sp.acsch)):
        return _app("ln", ("add", (a, _app("sqrt", ("add", (("pow", a, 2), _ONE))))))
    if isinstance(e, (sp.acosh, sp.asech)):
        return _app("ln", ("add", (a, _app("sqrt", ("add", (("pow", a, 2), ("neg", _ONE)))))))
    if isinstance(e, sp.atanh):
        plus = _app("ln", ("add", (_ONE, a)))
        minus = _app("ln", ("add", (_ONE, ("neg", a))))
        return ("mul", (_HALF, ("add", (plus, ("neg", minus)))))
    # acoth: one ln of (u + 1)/(u - 1) > 0 (for u < -1 both factors are negative)
    quotient = ("mul", (("add", (a, _ONE)), ("inv", ("add", (a, ("neg", _ONE))))))
    return ("mul", (_HALF, _app("ln", quotient)))


def print_head(e: Any, env: Any, to_ast: Callable[[Any, Any], Node], outside: type[Exception]) -> Node | None:
    """The Coq term of ``e`` when its head is one of this module's, else ``None``; raises
    ``outside`` (the printer's :class:`~pe_symbolic.proof.coq.OutsideFragment`) where the
    head is not printed for this argument."""
    heads = (sp.cot, sp.sec, sp.csc, sp.sinh, sp.cosh, sp.tanh, sp.coth, sp.sech, sp.csch, sp.asin, sp.acos,
             sp.acot, sp.asec, sp.acsc, sp.atan2, sp.re, sp.im, sp.conjugate, *_INVERSE_HYPERBOLIC)
    if not isinstance(e, heads):
        return None
    if isinstance(e, _INVERSE_HYPERBOLIC):
        if not inverse_hyperbolic_domain(e):
            raise outside(f"{e}: the argument is not known to lie in the real domain of {type(e).__name__}")
        return _inverse_hyperbolic(e, to_ast(e.args[0], env))
    if isinstance(e, (sp.atan2, sp.re, sp.im, sp.conjugate)):
        raise outside(f"{type(e).__name__} has no counterpart in the printed fragment")
    u = e.args[0]
    if isinstance(e, (sp.asin, sp.acos)) and not _in_unit(u):
        raise outside(f"{e}: the argument is not known to lie in [-1, 1] (Coq's {type(e).__name__} is clamped outside)")
    if isinstance(e, (sp.asec, sp.acsc)) and not _outside_unit(u):
        raise outside(f"{e}: the argument is not known to satisfy |u| >= 1")
    if isinstance(e, sp.acot) and not (u.is_extended_real is True and u.is_zero is False):
        raise outside(f"{e}: the argument is not known to be a nonzero real")
    a = to_ast(u, env)
    if isinstance(e, sp.cot):
        return ("mul", (_app("cos", a), ("inv", _app("sin", a))))
    if isinstance(e, sp.sec):
        return ("inv", _app("cos", a))
    if isinstance(e, sp.csc):
        return ("inv", _app("sin", a))
    if isinstance(e, (sp.sinh, sp.cosh, sp.tanh, sp.asin, sp.acos)):
        return _app(type(e).__name__, a)
    if isinstance(e, sp.coth):
        return ("mul", (_app("cosh", a), ("inv", _app("sinh", a))))
    if isinstance(e, sp.sech):
        return ("inv", _app("cosh", a))
    if isinstance(e, sp.csch):
        return ("inv", _app("sinh", a))
    if isinstance(e, sp.acot):
        return _app("atan", ("inv", a))
    if isinstance(e, sp.asec):
        return _app("acos", ("inv", a))
    return _app("asin", ("inv", a))  # acsc
