"""The checker: the small part of the engine that decides whether a chain is a proof.

A strategy may search however it likes (:mod:`pe_symbolic.proof.engine`); what it finds
counts only if :func:`~pe_symbolic.proof.kernel.check_chain` accepts it here. A chain for ``lhs = rhs`` starts at
``lhs - rhs`` (rule :data:`~pe_symbolic.proof.kernel.claims.DIFFERENCE`, and must reach ``0``: only
zero, or a zero matrix, closes it, never ``True``) or at ``lhs`` (rule
:data:`~pe_symbolic.proof.kernel.claims.LHS`, and must reach ``rhs``). The equation and every step
must lie inside the checked fragment (:func:`~pe_symbolic.proof.kernel.fragment.outside_fragment`),
and so must every lemma instance, which must also be known to be finite. Each later step is
checked against the one before it (:func:`~pe_symbolic.proof.kernel.check_transition`):

* a **rule** of :data:`~pe_symbolic.proof.kernel.rules.RULES` whose ``shortcut`` is granted, which
  re-applied to the previous expression reproduces the step exactly: accepted;
* any other step (a heuristic rule, a rule whose result differs, or a free-text *reason*
  such as "angle addition"): accepted only if ``previous - step`` reduces to zero under the
  kernel's ``KERNEL_STRATEGIES``, which use shortcut rules only.

* ``"lemma ID"`` with an ``instance`` (a substitution for the lemma's symbols): the cited
  claim must be proved (the :class:`~pe_symbolic.proof.kernel.Context` resolves it; a claim cannot cite itself, even
  through others), each substituted expression must have every property the lemma's symbol
  declares (positive, integer, ...: SymPy must *know* it) and the lemma's relations must hold
  under the substitution (or be assumptions of the claim being proved). The step is then
  accepted when replacing instances of one side by the other side in the previous expression
  gives this step — anywhere, inside a sum's summand or a matrix entry included (a matrix
  lemma also gives its entrywise equalities). That is the *termwise* rule: a summand is
  rewritten by a lemma proved for every value of the summation variable.
* ``"assumption"``: a condition that is one of the claim's relational assumptions (say
  ``i <= h - 1``) is replaced by True (a piecewise expression then selects its branch).

Where a step and the expression derived from the previous one still differ, they are
compared by **congruence**: equal heads with equal arguments (sums and products with the
same limits and equal summands for every value of the index), and at the leaves the
difference must reduce to zero.

Both sides must have the same shape. Nothing is accepted on numerical evidence.

>>> import sympy as sp
>>> from pe_symbolic.proof.kernel.claims import DIFFERENCE, Equation, Step
>>> x = sp.Symbol("x", real=True)
>>> eq = Equation(sp.cos(2 * x), 1 - 2 * sp.sin(x) ** 2)
>>> check_chain(eq, [Step(eq.difference, DIFFERENCE), Step(0, "expand(trig=True)")])
(True, '')
>>> check_chain(eq, [Step(eq.difference, DIFFERENCE), Step(0, "trust me")])[0]
True
>>> bad = Equation(sp.sqrt(x**2), x)
>>> check_chain(bad, [Step(bad.difference, DIFFERENCE), Step(0, "powdenest")])
(False, 'step 2 (powdenest) does not follow from step 1')
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import sympy as sp

from . import budget
from .claims import DIFFERENCE, LHS, Claim, Equation, Expr, Step, bound_variables, fits, ill_formed
from .fragment import outside_fragment
from .gate import WHEREVER_DEFINED, qualification
from .rules import CLEAR_DENOMINATORS, EVALUATE, PYTHAGORAS, RULES, apply_rule, is_zero

__all__ = [
    "ASSUMPTION",
    "EXPAND_MAX_TERMS",
    "WHEREVER_DEFINED",
    "KERNEL_STRATEGIES",
    "Context",
    "LemmaError",
    "check_chain",
    "check_transition",
    "congruent",
    "instantiate",
    "lemma_instance",
    "qualification",
    "reduce_to_zero",
    "run_strategy",
]

#: Rule of a step that replaces a condition that is one of the claim's assumptions by True.
ASSUMPTION = "assumption"


class LemmaError(ValueError):
    """A cited lemma that cannot be used: unknown, not proved, or citing itself."""


@dataclass(frozen=True)
class Context:
    """What a chain may rely on besides its rules: the claim's relational assumptions, and
    a resolver ``lemmas(id) -> Claim`` that returns a *proved* claim or raises
    :class:`~pe_symbolic.proof.kernel.LemmaError` (or :class:`LookupError`) saying why not."""

    assumptions: tuple[sp.Basic, ...] = ()
    lemmas: Callable[[str], Claim] | None = None

#: Strategies the kernel uses to check a transition: shortcut rules only. Chosen for speed:
#: ``expand(trig=True)`` settles the d = 64 translation identity in well under a second,
#: where ``simplify`` per pair takes ~18 s and ``trigsimp`` on the whole matrix passes 60 s
#: at d = 16 (measured while planning).
KERNEL_STRATEGIES: tuple[tuple[str, ...], ...] = (
    ("expand",),
    (EVALUATE, PYTHAGORAS, "expand(trig=True)", PYTHAGORAS, "expand"),
    (EVALUATE, PYTHAGORAS, "expand(trig=True)", "powsimp", "expand(trig=True)", PYTHAGORAS, "expand"),
    (EVALUATE, "rewrite(exp)", "expand", "powsimp", "expand"),
    (EVALUATE, "together", "cancel", "expand"),
    (EVALUATE, "expand(trig=True)", PYTHAGORAS, "expand"),
)
#: Expanding rules are skipped when the expanded form would have more terms than this.
EXPAND_MAX_TERMS = 100_000
_EXPANDING = {"expand(trig=True)", "expand", "expand_trig", "rewrite(exp)"}
#: Heuristic rules are skipped for expressions with more operations than this.
HEURISTIC_MAX_OPS = 400


def _terms_estimate(e: sp.Basic) -> int:
    """Upper estimate of the number of terms after expanding products and integer powers."""
    if e.is_Add:
        return sum(_terms_estimate(a) for a in e.args)
    if e.is_Mul:
        out = 1
        for a in e.args:
            out *= _terms_estimate(a)
        return out
    if e.is_Pow and e.exp.is_Integer and e.exp > 0:
        return _terms_estimate(e.base) ** min(int(e.exp), 64)
    if isinstance(e, (sp.sin, sp.cos)):
        arg = e.args[0]
        coeff = arg.as_coeff_Mul()[0] if arg.is_Mul else 1
        mult = abs(int(coeff)) if getattr(coeff, "is_Integer", False) else 1
        return 2 * _terms_estimate(arg) * max(mult, 1)  # angle addition doubles the terms
    return 1


def _too_big_to_expand(e: Expr) -> bool:
    entries = e if isinstance(e, sp.MatrixBase) else [e]
    return any(_terms_estimate(x) > EXPAND_MAX_TERMS for x in entries)


def _size(e: Expr) -> int:
    return sum(sp.count_ops(x) for x in e) if isinstance(e, sp.MatrixBase) else sp.count_ops(e)


def run_strategy(e: Expr, strategy: Sequence[str]) -> list[Step]:
    """Apply the rules of ``strategy`` in turn; return the steps that changed something."""
    steps: list[Step] = []
    cur = e
    for rule in strategy:
        budget.check()
        r = RULES[rule]
        if not r.shortcut and _size(cur) > HEURISTIC_MAX_OPS:
            break
        if rule in _EXPANDING and _too_big_to_expand(cur):
            break
        nxt = apply_rule(rule, cur)
        if nxt == cur:
            continue
        steps.append(Step(nxt, rule))
        cur = nxt
        if is_zero(cur):
            break
    return steps


def reduce_to_zero(
    e: Expr, strategies: Sequence[Sequence[str]] = KERNEL_STRATEGIES
) -> tuple[bool, list[Step]]:
    """Try the strategies in order; return (reached zero, the steps of the best try)."""
    if is_zero(e):
        return True, []
    best: list[Step] = []
    for strategy in strategies:
        steps = run_strategy(e, strategy)
        if steps and is_zero(steps[-1].expr):
            return True, steps
        if not best or (steps and _size(steps[-1].expr) < _size(best[-1].expr)):
            best = steps
    return False, best


def _shape(e: Expr) -> tuple[int, ...] | None:
    return e.shape if isinstance(e, sp.MatrixBase) else None


_BINDERS = (sp.Sum, sp.Product, sp.Integral)


def congruent(a: Expr, b: Expr) -> bool:
    """Whether ``a = b`` by congruence: same head and congruent arguments (a binder's limits
    identical, its bodies congruent), and at the leaves a difference that reduces to zero."""
    budget.check()
    if a == b:
        return True
    if isinstance(a, sp.MatrixBase) or isinstance(b, sp.MatrixBase):
        if not (isinstance(a, sp.MatrixBase) and isinstance(b, sp.MatrixBase)) or a.shape != b.shape:
            return False
        return all(congruent(x, y) for x, y in zip(a, b))
    if not (isinstance(a, sp.Basic) and isinstance(b, sp.Basic)):
        return False
    if not (a.has(*_BINDERS) or b.has(*_BINDERS)):
        try:
            return reduce_to_zero(a - b)[0]
        except TypeError:  # booleans and relations have no difference
            return False
    if a.func == b.func and len(a.args) == len(b.args) and not a.is_Atom:
        if isinstance(a, _BINDERS):
            return a.limits == b.limits and congruent(a.function, b.function)
        if all(congruent(x, y) for x, y in zip(a.args, b.args)):
            return True
    try:
        return reduce_to_zero(a - b)[0]
    except TypeError:  # booleans and relations have no difference
        return False


def _sequence_labels(claim: Claim) -> dict[str, sp.Symbol]:
    """The lemma's sequences: labels of ``IndexedBase`` objects (``theta`` in ``theta[j]``)."""
    out: dict[str, sp.Symbol] = {}
    for eq in claim.equations:
        for side in (eq.lhs, eq.rhs):
            for x in (side.atoms(sp.Indexed) if isinstance(side, sp.Basic)
                      else set().union(*(e.atoms(sp.Indexed) for e in side))):
                out[x.base.label.name] = x.base.label
    return out


def lemma_instance(claim: Claim, instance: Sequence[tuple[str, Expr]]) -> tuple[dict, dict]:
    """Check an instance of ``claim`` and split it into symbol values and sequence values.

    A symbol of the lemma may be given any expression that has every property the symbol
    declares. A *sequence* of the lemma (``theta`` in ``theta[j]``, an ``IndexedBase`` whose
    entries have the label's properties) may be given a one-variable ``Lambda(v, f(v))`` with
    ``v`` a nonnegative integer symbol: then every ``theta[idx]`` of the lemma becomes
    ``f(idx)``. That is sound when ``f(v)`` has the entries' properties for every nonnegative
    integer ``v`` (SymPy must know it) and every index ``idx`` the lemma uses is a nonnegative
    integer. Raises :class:`~pe_symbolic.proof.kernel.LemmaError` saying what does not fit.
    """
    table = claim.symbol_table
    free = {s.name for s in claim.symbols}
    labels = _sequence_labels(claim)
    # the lemma's own bound variables: a value that mentions one would be captured by the
    # lemma's sum (i -> j in "sum over j of delta(i, j) ..." changes what is summed)
    captured = set().union(*(bound_variables(x) for eq in claim.equations for x in (eq.lhs, eq.rhs)))
    mapping: dict[sp.Symbol, Expr] = {}
    sequences: dict[sp.Symbol, sp.Lambda] = {}
    for name, value in instance:
        clash = sorted(str(v) for v in (value.free_symbols if isinstance(value, sp.Basic) else set()) & captured)
        if clash:
            raise LemmaError(f"{name} = {sp.sstr(value)} mentions {', '.join(clash)}, a variable the lemma "
                             "binds (it would be captured); rename it")
        if name in labels:
            if not (isinstance(value, sp.Lambda) and len(value.variables) == 1):
                raise LemmaError(f"the sequence {name} needs a one-variable Lambda, not {sp.sstr(value)}")
            (v,) = value.variables
            if not (v.is_integer and v.is_nonnegative):
                raise LemmaError(f"the variable {v} of {name}'s Lambda must be a nonnegative integer symbol")
            why = ill_formed(value.expr) or outside_fragment(value.expr)
            if why:
                raise LemmaError(f"{name}[{v}] = {sp.sstr(value.expr)} is not well-formed: {why}")
            # theta[j] becomes f(j) by xreplace, which renames nothing: a variable bound inside
            # f that is also the lemma's (theta[j] under the lemma's sum over j) would capture it
            inner = bound_variables(value.expr) - {v}
            if inner & captured:
                raise LemmaError(f"{name}[{v}] = {sp.sstr(value.expr)} binds "
                                 f"{', '.join(sorted(map(str, inner & captured)))}, a variable the lemma "
                                 "binds too (it would be captured); rename it")
            if value.expr.is_finite is not True:
                raise LemmaError(f"{name}[{v}] = {sp.sstr(value.expr)} is not known to be finite")
            why = fits(value.expr, labels[name])
            if why:
                raise LemmaError(f"{name}[{v}] = {sp.sstr(value.expr)} is not known to be {why}")
            for eq in claim.equations:
                for side in (eq.lhs, eq.rhs):
                    for x in (side.atoms(sp.Indexed) if isinstance(side, sp.Basic)
                              else set().union(*(e.atoms(sp.Indexed) for e in side))):
                        if x.base.label == labels[name]:
                            for ix in x.indices:
                                if not (ix.is_integer and ix.is_nonnegative):
                                    raise LemmaError(f"the lemma uses {x}, whose index is not a nonnegative integer")
            sequences[labels[name]] = value
            continue
        if name not in free:
            raise LemmaError(f"no free symbol {name!r}")
        why = ill_formed(value) or outside_fragment(value)
        if why:
            raise LemmaError(f"{name} = {sp.sstr(value)} is not well-formed: {why}")
        if getattr(value, "is_finite", None) is not True:
            raise LemmaError(f"{name} = {sp.sstr(value)} is not known to be finite (a lemma is proved for "
                             "finite values only)")
        why = fits(value, table[name])
        if why:
            raise LemmaError(f"{name} = {sp.sstr(value)} is not known to be {why}")
        mapping[table[name]] = value
    return mapping, sequences


def instantiate(e: Expr, mapping: dict, sequences: dict) -> Expr:
    """``e`` with the lemma's symbols and sequences replaced (see :func:`~pe_symbolic.proof.kernel.lemma_instance`).

    The replacement is ``xreplace``, except that a ``sin`` or ``cos`` whose new argument is
    plain (see ``_plain_argument``) is rebuilt without re-running SymPy's automatic
    simplification, which would leave it as it is anyway after asking dozens of assumption
    queries of the new argument (most of the cost of instantiating a rotation block at a
    large d). Either way the result has the same value as the instance, which is all that
    soundness needs. Cached: a proof built with a lemma and its check instantiate the same
    statement alike (SymPy expressions are immutable; the cache is keyed by their values).
    """
    if isinstance(e, sp.MatrixBase):
        e = sp.ImmutableMatrix(e)
    return _instantiate(e, tuple(sorted(mapping.items(), key=lambda kv: kv[0].name)),
                        tuple(sorted(sequences.items(), key=lambda kv: kv[0].name)))


@functools.lru_cache(maxsize=16384)
def _instantiate(e: Expr, mapping_items: tuple, sequence_items: tuple) -> Expr:
    return _instantiate_now(e, dict(mapping_items), dict(sequence_items))


def _instantiate_now(e: Expr, mapping: dict, sequences: dict) -> Expr:
    if isinstance(e, sp.MatrixBase):
        return sp.ImmutableMatrix(e.applyfunc(lambda x: _instantiate_now(x, mapping, sequences)))
    out = _replace(e, mapping, {}) if mapping else e
    if sequences:
        out = out.replace(lambda x: isinstance(x, sp.Indexed) and x.base.label in sequences,
                          lambda x: sequences[x.base.label](*x.indices))
    return out


#: What SymPy's sin/cos simplification acts on: pi, e and i, infinities, NaN, inverse
#: trigonometric functions (sin(asin x) = x), inexact numbers; and a sum as the whole argument
#: (peeling off multiples of pi), which _plain_argument refuses by its type.
_EVAL_TRIGGERS = (sp.NumberSymbol, sp.Float, sp.core.numbers.ImaginaryUnit, sp.core.numbers.Infinity,
                  sp.core.numbers.NegativeInfinity, sp.core.numbers.ComplexInfinity, sp.core.numbers.NaN,
                  sp.asin, sp.acos, sp.atan, sp.acot, sp.asec, sp.acsc, sp.atan2)


def _plain_argument(arg: sp.Basic) -> bool:
    """Whether SymPy's simplification leaves ``sin(arg)`` and ``cos(arg)`` as they are, for
    certain: a symbol, an indexed entry, a product or a power, with no minus sign to extract
    and none of the constants and functions that simplification looks for. (Deciding this
    wrongly costs a failed match, never soundness: the unevaluated node has the same value.)"""
    if not isinstance(arg, (sp.Symbol, sp.Mul, sp.Pow, sp.Indexed)) or arg.could_extract_minus_sign():
        return False
    return not any(isinstance(n, _EVAL_TRIGGERS) for n in sp.preorder_traversal(arg))


def _replace(e: sp.Basic, rule: dict, memo: dict) -> sp.Basic:
    """``e.xreplace(rule)``, rebuilding ``sin``/``cos`` of a plain argument unevaluated."""
    if e in rule:
        return rule[e]
    if not e.args:
        return e
    if e in memo:
        return memo[e]
    args = tuple(_replace(a, rule, memo) if isinstance(a, sp.Basic) else a for a in e.args)
    if all(a is b for a, b in zip(args, e.args)):
        out = e
    elif isinstance(e, (sp.sin, sp.cos)) and _plain_argument(args[0]):
        out = e.func(args[0], evaluate=False)
    else:
        out = e.func(*args)
    memo[e] = out
    return out


def _lemma_step(prev: Expr, cur: Expr, step: Step, context: Context) -> tuple[bool, str]:
    lemma_id = step.lemma
    if context.lemmas is None:
        return False, f"cites lemma {lemma_id!r}, but no lemma registry was given"
    try:
        claim = context.lemmas(lemma_id or "")
    except (LemmaError, LookupError, ValueError) as exc:
        return False, f"lemma {lemma_id!r} cannot be used: {exc}"
    try:
        mapping, sequences = lemma_instance(claim, step.instance)
    except LemmaError as exc:
        return False, f"lemma {lemma_id!r}: {exc}"
    bound = bound_variables(prev) | bound_variables(cur)
    for a in claim.assumptions:
        inst = instantiate(a, mapping, sequences)
        if inst is not sp.true and inst not in context.assumptions:
            return False, f"lemma {lemma_id!r}: its assumption {sp.sstr(inst)} does not hold here"
        if inst is not sp.true and inst.free_symbols & bound:
            return False, (f"lemma {lemma_id!r}: its assumption {sp.sstr(inst)} speaks of a bound "
                           "variable, which ranges beyond it")
    why = ill_formed(prev) or ill_formed(cur)  # every bound variable inside its declared range
    if why:
        return False, why
    for eq in claim.equations:  # one equation at a time: most steps use the first that fits
        lhs, rhs = instantiate(eq.lhs, mapping, sequences), instantiate(eq.rhs, mapping, sequences)
        pairs = [(lhs, rhs)]
        if isinstance(lhs, sp.MatrixBase):  # a matrix equation gives its entrywise equalities
            pairs += [(x, y) for x, y in zip(lhs, rhs) if x != y]
        for forward in (True, False):
            repl = {(x if forward else y): (y if forward else x) for x, y in pairs}
            if prev in repl:
                candidate = repl[prev]
            else:
                scalar = {k: v for k, v in repl.items() if not isinstance(k, sp.MatrixBase)}
                if isinstance(prev, sp.MatrixBase):
                    candidate = sp.ImmutableMatrix(prev.applyfunc(lambda e: e.xreplace(scalar)))
                else:
                    candidate = prev.xreplace(scalar)
            if candidate != prev and _shape(candidate) == _shape(cur) and congruent(candidate, cur):
                return True, ""
    return False, f"no instance of lemma {lemma_id!r} rewrites the previous expression into this one"


def _assumption_step(prev: Expr, cur: Expr, context: Context) -> tuple[bool, str]:
    if not context.assumptions:
        return False, "the claim has no relational assumptions to use"
    bound = bound_variables(prev) | bound_variables(cur)
    repl: dict[sp.Basic, sp.Basic] = {}
    for a in context.assumptions:
        if a.free_symbols & bound:
            return False, f"assumption {sp.sstr(a)} speaks of a bound variable"
        repl[a] = sp.true
        if isinstance(a, sp.core.relational.Relational):
            repl[a.negated] = sp.false
    candidate = (sp.ImmutableMatrix(prev.applyfunc(lambda e: e.xreplace(repl))) if isinstance(prev, sp.MatrixBase)
                 else prev.xreplace(repl))
    if candidate != prev and congruent(candidate, cur):
        return True, ""
    return False, "replacing the claim's assumptions by True does not give this step"


def check_transition(
    prev: Expr, cur: Expr, rule: str, *, step: Step | None = None, context: Context | None = None
) -> bool:
    """Re-check one step: ``cur`` follows from ``prev`` by ``rule`` (see the module notes)."""
    return _transition(prev, cur, rule, step, context or Context())[0]


def _transition(prev: Expr, cur: Expr, rule: str, step: Step | None, context: Context) -> tuple[bool, str]:
    budget.check()
    if _shape(prev) != _shape(cur):
        return False, "the two expressions have different shapes"
    if rule.startswith("lemma "):
        return _lemma_step(prev, cur, step if step is not None else Step(cur, rule), context)
    if rule == ASSUMPTION:
        return _assumption_step(prev, cur, context)
    if rule == CLEAR_DENOMINATORS:  # checked in check_chain, where the chain's kind is known
        return False, "clearing denominators is checked as a step of a difference chain"
    r = RULES.get(rule)
    if r is not None and r.shortcut and apply_rule(rule, prev) == cur:
        return True, ""
    if _has_binders(prev) or _has_binders(cur):
        return congruent(prev, cur), ""
    try:
        diff = prev - cur
    except TypeError:  # a condition has no difference with anything
        return False, "these expressions have no difference (a condition is not a value)"
    if isinstance(diff, sp.MatrixBase):
        diff = sp.ImmutableMatrix(diff)
    return reduce_to_zero(diff)[0], ""


def _has_binders(e: Expr) -> bool:
    return any(x.has(*_BINDERS) for x in e) if isinstance(e, sp.MatrixBase) else e.has(*_BINDERS)


def check_chain(
    equation: Equation, steps: Sequence[Step], context: Context | None = None
) -> tuple[bool, str]:
    """Re-check a whole chain for ``equation``; return (ok, what failed if not)."""
    context = context or Context()
    if not steps:
        return False, "empty chain"
    for side, x in (("lhs", equation.lhs), ("rhs", equation.rhs)):
        why = ill_formed(x) or outside_fragment(x)
        if why:  # (a Claim refuses ill-formed sides at construction; an Equation alone does not)
            return False, f"the equation's {side} is not well-formed: {why}"
    first = steps[0]
    if first.rule == DIFFERENCE:
        if first.expr != equation.difference:
            return False, "step 1 is not lhs - rhs"
        target_zero = True
    elif first.rule == LHS:
        if first.expr != equation.lhs:
            return False, "step 1 is not the left-hand side"
        target_zero = False
    else:
        return False, f"step 1 must be {DIFFERENCE!r} or {LHS!r}, not {first.rule!r}"
    for n, (a, b) in enumerate(zip(steps, steps[1:]), start=2):
        if b.rule in (DIFFERENCE, LHS):
            return False, f"step {n} may not restart the chain ({b.rule!r})"
        if b.rule == CLEAR_DENOMINATORS:
            # not an equality: only "is zero" is kept, so only where the chain must reach 0,
            # and only as the exact numerator of the previous expression
            if not target_zero:
                return False, f"step {n} ({b.rule}) keeps only being zero: it is allowed in a difference chain only"
            if apply_rule(CLEAR_DENOMINATORS, a.expr) != b.expr:
                return False, f"step {n} ({b.rule}) is not the numerator of step {n - 1} over a common denominator"
            continue
        why = ill_formed(b.expr) or outside_fragment(b.expr)
        if why:
            return False, f"step {n} ({b.rule}) is not well-formed: {why}"
        ok, why = _transition(a.expr, b.expr, b.rule, b, context)
        if not ok:
            return False, f"step {n} ({b.rule}) does not follow from step {n - 1}" + (f": {why}" if why else "")
    last = steps[-1].expr
    if target_zero and not is_zero(last):
        return False, "the chain does not reach 0"
    if not target_zero and last != equation.rhs:
        return False, "the chain does not reach the right-hand side"
    return True, ""
