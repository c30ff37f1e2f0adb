r"""Refutations in Coq: the negation of a printed lemma, proved at the kernel's counterexample.

A registered honest negative (a theorem with ``expect="refuted"``) is a claim the registry says
is **false**. Coq cannot prove its false entries -- and must not -- but it can do better than
fail: it can prove their *negation*. For a printed lemma ``forall vars, hyps -> lhs = rhs``
(:func:`~pe_symbolic.proof.coq_syntax.proposition`, the text :mod:`~pe_symbolic.proof.coq_export`
states), the refutation is

.. code-block:: coq

    ~ (forall vars, hyps -> lhs = rhs)

-- the very proposition, under ``~ ( )``, never restated (:func:`negation`) -- proved by a
generated script (:func:`script`) that specializes the statement at one point, proves every
hypothesis there (``lra``/``lia``/``nra``, or Coq's Interval through the preamble's
``pe_interval``), and proves ``lhs <> rhs`` there (``lhs < rhs`` or ``lhs > rhs`` by
``pe_interval``, Interval instantiated over Coq's integers: ``Print Assumptions`` lists the
standard axioms only).

**What is trusted.** Nothing here: the point and the direction come from the kernel's refuter
(:func:`pe_symbolic.proof.sampler.refute`: a point admissible for the claim's assumptions where
the two sides' enclosures are disjoint), but Coq checks the whole refutation, so a wrong point
or a wrong direction can only make the refutation *fail*. A true equation can never be refuted:
Coq would then prove ``False``.

>>> import sympy as sp
>>> from pe_symbolic.proof.coq import Env, to_coq_ast
>>> x = sp.Symbol("x", positive=True)
>>> env = Env()
>>> lhs, rhs = to_coq_ast(sp.sin(2 * x), env), to_coq_ast(2 * sp.sin(x), env)  # names the variables
>>> found = counterexample(sp.sin(2 * x), 2 * sp.sin(x), (x,), (), env)
>>> found.values, found.order, found.point
('(27562 / 997)', -1, 'x = 27562/997')
>>> negation("forall (x_1 : R), 0 < x_1 -> (sin (2 * x_1)) = (2 * (sin x_1))")
'~ (forall (x_1 : R), 0 < x_1 -> (sin (2 * x_1)) = (2 * (sin x_1)))'
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import sympy as sp
from flint import acb, arb, fmpq

from .coq import Env, OutsideFragment
from .coq_syntax import coq_text
from .kernel.enclosure import PRECISIONS, Undecidable, enclose, precision
from .kernel.points import evaluate_at
from .sampler import refute

__all__ = ["Counterexample", "counterexample", "negation", "script"]

#: Admissible points the kernel's refuter evaluates before it gives an entry up (the entry is
#: then tried as a proof, as any other).
POINTS = 6
#: The refuter's seed (fixed: the same claim gives the same point, so the same Coq question).
SEED = 0


@dataclass(frozen=True)
class Counterexample:
    """Where an equation is false: the lemma's variables' values (the arguments of its
    ``forall``, in binder order, as Coq terms separated by spaces) and the order of the sides there (``-1``:
    ``lhs < rhs``, ``1``: ``lhs > rhs``), as the kernel's enclosures certify it."""

    values: str
    order: int
    point: str
    """The point, readable (``x = 1, n = 3``), for the reports."""
    signs: frozenset[int] = frozenset({-1, 0, 1})
    """The signs the arguments of ``sign`` take at the point (the script tries only those)."""


def negation(proposition: str) -> str:
    """``~ (proposition)``: the negation of a lemma's statement, exactly (the printer's
    proposition under one pair of parentheses). Raises ``ValueError`` when the text's
    parentheses do not balance (the negation would then not be the proposition's).

    >>> negation("(- 1) = 0")
    '~ ((- 1) = 0)'
    >>> negation("0 = 1) -> (1 = 1")
    Traceback (most recent call last):
    ValueError: the proposition's parentheses do not balance: '0 = 1) -> (1 = 1'
    """
    depth = 0
    for ch in proposition:
        depth += (ch == "(") - (ch == ")")
        if depth < 0:
            break
    if depth != 0 or not proposition.strip():
        raise ValueError(f"the proposition's parentheses do not balance: {proposition!r}")
    return f"~ ({proposition})"


def _rational(v: Any) -> Fraction | None:
    if isinstance(v, (int, sp.Integer, sp.Rational)) and not isinstance(v, bool):
        r = sp.Rational(v)
        return Fraction(int(r.p), int(r.q))
    return None


def _real_text(q: Fraction) -> str:
    return coq_text(("num", q.numerator, q.denominator))


def _values(env: Env, point: Mapping[sp.Basic, Any], entries: Mapping[sp.Indexed, Any]) -> tuple[str, str] | None:
    """The lemma's variables' values in binder order (as :func:`~pe_symbolic.proof.coq_syntax.binders_text`
    lists them), and the point as text; ``None`` when a variable has no exact value."""
    groups: dict[str, list[str]] = {"R": [], "Z": [], "F": []}
    shown: list[str] = []
    for name, (kind, s) in sorted(env.free.items()):
        if kind == "F":  # a vector: a function of its index, with the entries' values
            cases = []
            for a, v in sorted(entries.items(), key=lambda kv: sp.default_sort_key(kv[0])):
                q = _rational(v)
                if a.base.label != s or len(a.indices) != 1 or not a.indices[0].is_Integer or q is None:
                    if a.base.label == s:
                        return None
                    continue
                cases.append((int(a.indices[0]), q))
            body = "0"
            for idx, q in reversed(cases):
                body = f"if Z.eq_dec pe_j {idx if idx >= 0 else f'({idx})'}%Z then {_real_text(q)} else {body}"
            groups["F"].append(f"(fun pe_j : Z => {body})")
            shown += [f"{s}[{idx}] = {q}" for idx, q in cases]
            continue
        q = _rational(point.get(s))
        if q is None:
            return None
        if kind == "Z":
            if q.denominator != 1:
                return None
            groups["Z"].append(f"({q.numerator})%Z")
        else:
            groups["R"].append(_real_text(q))
        shown.append(f"{s} = {q}")
    return " ".join(groups["R"] + groups["Z"] + groups["F"]), ", ".join(shown)


def _order(a: Any, b: Any) -> int | None:
    """-1 or 1: the order of two separated real values, certainly; ``None`` when they are not
    both real or their real parts overlap."""
    if isinstance(a, Fraction) and isinstance(b, Fraction):
        return None if a == b else (-1 if a < b else 1)
    ba = a if isinstance(a, acb) else acb(arb(fmpq(a.numerator, a.denominator)))
    bb = b if isinstance(b, acb) else acb(arb(fmpq(b.numerator, b.denominator)))
    if not (ba.imag.is_zero() and bb.imag.is_zero()):
        return None
    if ba.real < bb.real:
        return -1
    if ba.real > bb.real:
        return 1
    return None


def counterexample(lhs: sp.Basic, rhs: sp.Basic, symbols: Sequence[sp.Symbol], assumptions: Sequence[sp.Basic],
                   env: Env) -> Counterexample | None:
    """A point where ``lhs = rhs`` is false, for the lemma whose variables ``env`` names: the
    kernel's refuter (:func:`~pe_symbolic.proof.sampler.refute`) looks for an admissible point
    with disjoint enclosures of the two sides, with exact (rational, integer) values. ``None``
    when none is found (a true equation, or one the refuter cannot separate), or when the point
    does not give every variable of the lemma an exact value. Search only: Coq checks it."""
    try:
        found = refute(lhs, rhs, symbols, assumptions, seed=SEED, points=POINTS)
    except (Undecidable, ValueError, OutsideFragment):
        return None
    if found.point is None:
        return None
    entries = dict(found.entries or {})
    vals = _values(env, found.point, entries)
    if vals is None:
        return None
    try:
        ev = evaluate_at(lhs, rhs, None, {**dict(found.point), **entries}, None)
    except (Undecidable, ValueError):
        return None
    if ev.separated is None:
        return None
    order = _order(ev.separated[1], ev.separated[2])
    if order is None:
        return None
    return Counterexample(vals[0], order, vals[1], _signs((lhs, rhs), {**dict(found.point), **entries}))


def _signs(sides: Sequence[sp.Basic], env: Mapping) -> frozenset[int]:
    """The signs of the arguments of ``sign`` in ``sides`` at ``env`` (all three where one is
    not decided: the script then tries each)."""
    out: set[int] = set()
    for arg in {a.args[0] for side in sides for a in side.atoms(sp.sign)}:
        try:
            with precision(PRECISIONS[-1]):
                v = enclose(arg, env)
        except (Undecidable, ValueError):
            return frozenset({-1, 0, 1})
        o = _order(v, Fraction(0)) if v != 0 else 0
        if o is None:
            return frozenset({-1, 0, 1})
        out.add(o)
    return frozenset(out)


#: Proves one hypothesis at the point (closed, numeric).
_HYP = ("first [ lra | lia | nra | (pe_zr; lra) | (pe_zr; nra) | pe_interval "
        "| (apply Rlt_not_eq; first [lra | pe_interval]) | (apply Rgt_not_eq; first [lra | pe_interval]) ]")
#: Decides a condition of an ``if`` at the point.
_COND = "first [ lia | lra | nra | pe_interval | (apply Rlt_not_le; pe_interval) | (apply Rle_not_lt; pe_interval) ]"
#: The closed sides made what Interval reads: the signs, deltas and branches decided.
_SGN = {1: "rewrite (pe_sgn_pos a) in E by pe_interval", -1: "rewrite (pe_sgn_neg a) in E by pe_interval",
        0: "rewrite (pe_sgn_zero a) in E by lra"}
_NORMALIZE = (
    "cbv beta in E; try unfold delta in E; "
    "repeat match type of E with "
    "| context [sgn ?a] => first [ {SGN} ] "
    "| context [if Z.eq_dec ?a ?b then _ else _] => first [ rewrite (pe_if_zeq_t a b) in E by lia "
    "| rewrite (pe_if_zeq_f a b) in E by lia ] "
    "| context [if Z_le_dec ?a ?b then _ else _] => first [ rewrite (pe_if_zle_t a b) in E by lia "
    "| rewrite (pe_if_zle_f a b) in E by lia ] "
    "| context [if Z_lt_dec ?a ?b then _ else _] => first [ rewrite (pe_if_zlt_t a b) in E by lia "
    "| rewrite (pe_if_zlt_f a b) in E by lia ] "
    f"| context [if Rle_dec ?a ?b then _ else _] => first [ rewrite (pe_if_rle_t a b) in E by {_COND} "
    f"| rewrite (pe_if_rle_f a b) in E by {_COND} ] "
    f"| context [if Rlt_dec ?a ?b then _ else _] => first [ rewrite (pe_if_rlt_t a b) in E by {_COND} "
    f"| rewrite (pe_if_rlt_f a b) in E by {_COND} ] "
    "end")


def script(found: Counterexample, *, binders: bool) -> str:
    """The tactic script that proves the negation of a lemma (:func:`negation`) at ``found``:
    the statement specialized at the point (``E``), each hypothesis proved there and discharged,
    the closed sides normalized (signs, Kronecker deltas, branches decided), then ``lhs < rhs``
    (or ``>``) by ``pe_interval``. ``binders``: whether the lemma has variables.

    >>> print(script(Counterexample("", 1, ""), binders=False)[:40])
    intro E; repeat match type of E with ?A
    """
    head = (f"intro H; pose proof (H {found.values}) as E; clear H; " if binders else "intro E; ")
    side = "Rlt_not_eq" if found.order < 0 else "Rgt_not_eq"
    return (f"{head}repeat match type of E with ?A -> _ => let h := fresh \"h\" in "
            f"assert (h : A) by {_HYP}; specialize (E h) end; "
            f"{_NORMALIZE.replace('{SGN}', ' | '.join(_SGN[o] for o in (1, -1, 0) if o in found.signs))}; "
            f"revert E; apply {side}; first [ pe_interval | lra | (unfold Rpower; pe_interval) ]")

