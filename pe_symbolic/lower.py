"""The one door from proved SymPy expressions to numeric code (``sympy.lambdify``).

Rules (nothing else in the package calls ``lambdify``):

* **Only proved claims are lowered.** :func:`lower` asks the theorem registry for the
  claim's proof and refuses, with a :class:`ValueError` naming the claim id and its
  verdict, anything that is not ``"proved"``. Verdicts are cached per claim id.
* **Element formulas, never matrices of entries.** The expression is a scalar (or a small
  tuple of scalars) in broadcastable arguments; NumPy broadcasting does the rest. A whole
  ``T x d`` symbolic matrix is hopeless to lambdify (35 s for 65k entries, measured).
* ``modules="numpy"`` and ``cse=True`` by default; ``modules="mpmath"`` is allowed for the
  high-precision constants (the double-double frequencies of :mod:`pe_symbolic.numeric`),
  evaluated in a local :func:`mpmath.workdps` context.
* **Cached** (:func:`functools.lru_cache`) per (claim id, expression, arguments, modules);
  nothing is lambdified at import time. Each generated function's ``__doc__`` names its
  claim and expression.
* **The evaluation form may differ from the proof form** (``proof_form=``): the equality
  of the two is itself checked with :func:`pe_symbolic.check_identity` and must be proved.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

import sympy as sp

__all__ = ["NotProvedError", "claim_verdict", "frequency_constants", "lower"]

#: Claim ids whose proofs gate the numeric core (see :mod:`pe_symbolic.theorems`).
TRANSLATION_CLAIM = "translation.identity"
ROPE_CLAIM = "rope.efficient_form"


class NotProvedError(ValueError):
    """Raised when asked to lower an expression whose claim is not proved."""


@functools.lru_cache(maxsize=None)
def claim_verdict(claim_id: str) -> str:
    """The verdict of the registry's proof of ``claim_id`` (cached per process).

    Raises :class:`LookupError` for an unknown id (from the registry).
    """
    from . import theorems

    th = theorems.get(claim_id)
    return str(th.prove().verdict)


def _require_proved(claim_id: str) -> None:
    verdict = claim_verdict(claim_id)
    if verdict != "proved":
        raise NotProvedError(
            f"claim {claim_id!r} has verdict {verdict!r}; only proved claims are lowered"
        )


def _check_free_symbols(expr: Any, args: tuple[sp.Symbol, ...], claim_id: str) -> None:
    free = set()
    for e in expr if isinstance(expr, tuple) else (expr,):
        free |= sp.sympify(e).free_symbols
    missing = free - set(args)
    if missing:
        names = ", ".join(sorted(str(s) for s in missing))
        raise ValueError(
            f"lowering for claim {claim_id!r}: symbol(s) {names} of the expression are "
            f"missing from args {tuple(str(a) for a in args)}"
        )


def lower(
    claim_id: str,
    expr: sp.Expr | tuple[sp.Expr, ...],
    args: Sequence[sp.Symbol],
    *,
    modules: str = "numpy",
    proof_form: sp.Expr | tuple[sp.Expr, ...] | None = None,
) -> Callable[..., Any]:
    """Lambdify ``expr`` (an element formula of the proved claim ``claim_id``).

    Parameters
    ----------
    claim_id : str
        Registry id of the claim the formula comes from; it must be proved.
    expr : sympy.Expr or tuple of sympy.Expr
        The evaluation form (broadcastable scalar formula(s)).
    args : sequence of sympy.Symbol
        Argument order of the generated function; must cover ``expr``'s free symbols.
    modules : {"numpy", "mpmath"}
        Target namespace.
    proof_form : sympy.Expr or tuple, optional
        The form the claim was proved in, if different: ``expr == proof_form`` is proved
        first (:func:`pe_symbolic.check_identity`), and refused if not proved.

    Returns
    -------
    callable
        ``f(*args)`` evaluating ``expr``; ``f.__doc__`` names the claim and expression.

    Raises
    ------
    NotProvedError
        If the claim (or the evaluation/proof-form equality) is not proved.
    """
    args_t = tuple(args)
    if isinstance(expr, list):
        expr = tuple(expr)
    if isinstance(proof_form, list):
        proof_form = tuple(proof_form)
    return _lower_cached(claim_id, expr, args_t, modules, proof_form)


@functools.lru_cache(maxsize=256)
def _lower_cached(claim_id, expr, args, modules, proof_form):
    if modules not in ("numpy", "mpmath"):
        raise ValueError(f"modules={modules!r} is not allowed; use 'numpy' or 'mpmath'")
    _require_proved(claim_id)
    _check_free_symbols(expr, args, claim_id)
    if proof_form is not None:
        from .proof import check_identity

        lhs = sp.Matrix(expr) if isinstance(expr, tuple) else expr
        rhs = sp.Matrix(proof_form) if isinstance(proof_form, tuple) else proof_form
        verdict = str(check_identity(lhs, rhs).verdict)
        if verdict != "proved":
            raise NotProvedError(
                f"claim {claim_id!r}: the evaluation form {expr} equals the proof form "
                f"{proof_form} has verdict {verdict!r}; refusing to lower it"
            )
    fn = sp.lambdify(args, expr, modules=modules, cse=True, docstring_limit=0)
    fn.__doc__ = (
        f"Lowered from claim {claim_id!r} (modules={modules!r}).\n\n"
        f"Expression: {expr}\nArguments: {', '.join(str(a) for a in args)}\n"
        + (f"Proved equal to the proof form: {proof_form}\n" if proof_form is not None else "")
    )
    fn.claim_id = claim_id  # type: ignore[attr-defined]
    fn.expression = expr  # type: ignore[attr-defined]
    return fn


@functools.lru_cache(maxsize=128)
def frequency_constants(d: int, base: float, schedule: str, dps: int = 40) -> tuple[Any, ...]:
    """The ``d/2`` frequencies as ``dps``-digit mpmath numbers, lowered from the SymPy schedule.

    The schedule expression is :func:`pe_symbolic.sinusoidal.frequency` with a symbolic pair
    index ``i`` and base ``b`` (concrete ``d``), lowered with ``modules="mpmath"`` under the
    translation claim (the frequencies are the ``omega`` of its statement) and evaluated in
    a local ``workdps(dps)`` context.

    >>> [float(w) for w in frequency_constants(4, 100.0, "vaswani")]
    [1.0, 0.1]
    """
    import mpmath

    from . import sinusoidal
    from .symbols import b, i

    expr = sinusoidal.frequency(i, d, base=b, schedule=schedule)
    fn = lower(TRANSLATION_CLAIM, expr, (i, b), modules="mpmath")
    with mpmath.workdps(dps):
        mb = mpmath.mpf(base)
        return tuple(+fn(mpmath.mpf(p), mb) for p in range(d // 2))
