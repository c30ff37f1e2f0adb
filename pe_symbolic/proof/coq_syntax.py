r"""Coq syntax: the printer's term trees (:data:`~pe_symbolic.proof.coq.Node`) as Coq text, and the
statement of a printed lemma -- its binders, hypotheses and goal.

The second half of the trusted printer (the first is :func:`pe_symbolic.proof.coq.to_coq_ast`,
SymPy to a term tree): :func:`coq_text` writes a term fully parenthesised, so that it reads back
unambiguously (``tests/test_coq.py`` reads every printed term back and compares it with SymPy).

**Soundness of the statement.** ``forall vars, hyps -> lhs = rhs`` (:func:`lemma_statement`)
implies the SymPy claim when every hypothesis is one of the claim's assumptions
(:func:`hypotheses`: each symbol's sign, the claim's relations; one that cannot be printed is
dropped, never invented). A derivative, a limit or a power of a base of unknown sign inside the
goal is stated by :func:`goal_text` so that the statement still implies the claim
(``docs/howto/coq.md``).

>>> import sympy as sp
>>> from pe_symbolic.proof.coq import Env, to_coq_ast
>>> x, y = sp.symbols("x y", real=True)
>>> env = Env()
>>> lhs, rhs = to_coq_ast(sp.sin(x + y), env), to_coq_ast(sp.sin(y + x), env)
>>> lemma_statement("demo", lhs, rhs, env, [])
'Lemma demo : forall (x_1 y_1 : R), (sin (x_1 + y_1)) = (sin (x_1 + y_1)).'
"""

from __future__ import annotations

import sympy as sp

from .coq import Env, Node, OutsideFragment, subterms, to_coq_ast, to_coq_cond
from .kernel.claims import Claim, plain_text

__all__ = [
    "binders_text",
    "cond_text",
    "conjuncts",
    "coq_text",
    "goal_text",
    "hypotheses",
    "lemma_statement",
    "prop_text",
    "proposition",
    "witness_text",
    "zcoq",
]


# --------------------------------------------------------------------------------------
# Terms
# --------------------------------------------------------------------------------------
def _z(n: Node) -> str:
    k = n[0]
    if k == "zvar":
        return n[1]
    if k == "znum":
        return str(n[1]) if n[1] >= 0 else f"({n[1]})"
    if k == "zadd":
        return "(" + " + ".join(_z(a) for a in n[1]) + ")"
    if k == "zmul":
        return "(" + " * ".join(_z(a) for a in n[1]) + ")"
    if k == "zneg":
        return f"(- {_z(n[1])})"
    if k == "zmod":
        return f"({_z(n[1])} mod {_z(n[2])})"
    if k == "zdiv":
        return f"({_z(n[1])} / {_z(n[2])})"
    raise ValueError(f"not an integer term: {n!r}")


def zcoq(n: Node) -> str:
    """An integer term in ``Z`` scope."""
    return _z(n) if n[0] == "zvar" or (n[0] == "znum" and n[1] >= 0) else f"({_z(n)})%Z"


_DEC = {"zle": ("Z_le_dec", zcoq), "zlt": ("Z_lt_dec", zcoq), "zeq": ("Z.eq_dec", zcoq),
        "rle": ("Rle_dec", None), "rlt": ("Rlt_dec", None), "req": ("Req_EM_T", None)}


def cond_text(c: Node) -> str:
    """A condition as the decision procedure applied to its two sides (for ``if``)."""
    name, zf = _DEC[c[0]]
    pr = zf or coq_text
    return f"{name} {pr(c[1])} {pr(c[2])}"


def prop_text(c: Node) -> str:
    """A condition as a proposition (for hypotheses)."""
    op = {"le": "<=", "lt": "<", "eq": "=", "ne": "<>"}[c[0][1:]]
    if c[0][0] == "z":
        return f"({_z(c[1])} {op} {_z(c[2])})%Z"
    return f"{coq_text(c[1])} {op} {coq_text(c[2])}"


def coq_text(n: Node) -> str:
    """The Coq syntax of a term (fully parenthesised, so that it reads back unambiguously)."""
    k = n[0]
    if k == "var":
        return n[1]
    if k == "num":
        p, q = n[1], n[2]
        a = str(abs(p)) if q == 1 else f"({abs(p)} / {q})"
        return a if p >= 0 else f"(- {a})"
    if k == "pi":
        return "PI"
    if k == "add":
        return "(" + " + ".join(coq_text(a) for a in n[1]) + ")"
    if k == "mul":
        return "(" + " * ".join(coq_text(a) for a in n[1]) + ")"
    if k == "neg":
        return f"(- {coq_text(n[1])})"
    if k == "inv":
        return f"(/ {coq_text(n[1])})"
    if k == "pow":
        return f"({coq_text(n[1])} ^ {n[2]})"
    if k == "app":
        return f"({n[1]} " + " ".join(coq_text(a) for a in n[2]) + ")"
    if k == "izr":
        return f"(IZR {zcoq(n[1])})"
    if k == "powz":
        return f"(powerRZ {coq_text(n[1])} {zcoq(n[2])})"
    if k == "delta":
        return f"(delta {zcoq(n[1])} {zcoq(n[2])})"
    if k in ("sum", "prod"):
        f = "sumZ" if k == "sum" else "prodZ"
        return f"({f} {zcoq(n[2])} {zcoq(n[3])} (fun {n[1]} : Z => {coq_text(n[4])}))"
    if k == "idx":
        return f"({n[1]} {zcoq(n[2])})"
    if k == "ite":
        return f"(if {cond_text(n[1])} then {coq_text(n[2])} else {coq_text(n[3])})"
    if k == "dat":  # a derivative's value: the name the statement introduces (goal_text)
        return n[1]
    if k == "gpow":  # a power whose base's sign the statement asserts (goal_text)
        return f"(Rpower {coq_text(n[1])} {coq_text(n[2])})"
    if k == "gsqrt":
        return f"(sqrt {coq_text(n[1])})"
    if k == "pyth":  # sin u ^ 2 + cos u ^ 2 - 1, exactly as the lemma pe_pyth states it
        u = coq_text(n[1])
        return f"(sin {u} ^ 2 + cos {u} ^ 2 - 1)"
    raise ValueError(f"not a real term: {n!r}")


# --------------------------------------------------------------------------------------
# Statements
# --------------------------------------------------------------------------------------
def hypotheses(claim: Claim, env: Env) -> tuple[list[str], list[str]]:
    """The hypotheses of ``claim``'s lemmas for the variables in ``env``: each symbol's sign
    and the claim's relations. Returns ``(hypotheses, dropped)``: an assumption that cannot
    be printed is dropped (a weaker hypothesis: sound) and named in ``dropped``."""
    hyps: list[str] = []
    dropped: list[str] = []
    for rel in claim.assumptions:
        parts = rel.args if isinstance(rel, sp.And) else (rel,)
        for a in parts:
            try:
                if isinstance(a, sp.Unequality):
                    c = to_coq_cond(sp.Eq(a.lhs, a.rhs), env)
                    c = (c[0][0] + "ne", c[1], c[2])
                else:
                    c = to_coq_cond(a, env)
                hyps.append(prop_text(c))
            except OutsideFragment:
                dropped.append(plain_text(a))
    signs = []
    for name, (kind, s) in sorted(env.free.items()):
        if kind in ("F", "W"):
            continue
        z = kind == "Z"
        v, zero = (name, "0")
        for prop, text in (("positive", f"{zero} < {v}"), ("negative", f"{v} < {zero}"),
                           ("nonnegative", f"{zero} <= {v}"), ("nonpositive", f"{v} <= {zero}"),
                           ("nonzero", f"{v} <> {zero}")):
            if getattr(s, f"is_{prop}") is True:
                signs.append(f"({text})%Z" if z else text)
                break
    return signs + hyps, dropped


def binders_text(env: Env) -> str:
    """The lemma's variables as Coq binders, ``(x_1 y_1 : R) (n_1 : Z) (v_1 : Z -> R)``."""
    groups: dict[str, list[str]] = {"R": [], "Z": [], "F": [], "W": []}
    for v, (kind, _) in sorted(env.free.items()):
        groups[kind].append(v)
    return " ".join(f"({' '.join(vs)} : {t})" for t, vs in (("R", groups["R"]), ("Z", groups["Z"]),
                                                            ("Z -> R", groups["F"]), ("R -> R", groups["W"])) if vs)


def goal_text(lhs: Node, rhs: Node) -> str:
    """``lhs = rhs``; for a derivative as the left side, ``derivable_pt_lim (fun x => f) x
    rhs``; for complex sides (``cpair``), ``re lhs = re rhs /\\ im lhs = im rhs``. Each
    derivative inside the sides (``dat``: ``f'(p)`` printed as ``d``) is introduced first:
    ``exists d, derivable_pt_lim (fun x => f) p d /\\ ...`` (the derivative exists at ``p``
    and its value is ``d``)."""
    if lhs[0] == "limit":
        core = _limit_text(lhs, rhs)
    elif lhs[0] == "deriv":
        core = f"derivable_pt_lim (fun {lhs[1]} : R => {coq_text(lhs[2])}) {lhs[1]} {coq_text(rhs)}"
    elif lhs[0] == "cpair":
        core = f"{coq_text(lhs[1])} = {coq_text(rhs[1])} /\\ {coq_text(lhs[2])} = {coq_text(rhs[2])}"
    else:
        core = f"{coq_text(lhs)} = {coq_text(rhs)}"
    dats, guards = conjuncts(lhs, rhs)
    facts = [f"derivable_pt_lim (fun {x} : R => {coq_text(f)}) {coq_text(p)} {d}" for _, d, x, f, p in dats]
    facts += [f"0 {'<' if g[0] == 'gpow' else '<='} {coq_text(g[1])}" for g in guards]
    if not facts:
        return core
    out = " /\\ ".join([*facts, core])
    return f"exists {' '.join(d[1] for d in dats)} : R, {out}" if dats else out


def conjuncts(lhs: Node, rhs: Node) -> tuple[list[Node], list[Node]]:
    """What :func:`goal_text` states before the equation: the derivatives (``dat`` nodes, one per
    name) and the powers whose base's sign it asserts (``gpow``, ``gsqrt``: ``0 < b``, ``0 <= b``,
    once per base), in the order they occur."""
    dats: dict[str, Node] = {}
    guards: dict[Node, Node] = {}
    for side in (lhs, rhs):
        for n in subterms(side):
            if n[0] == "dat":
                dats.setdefault(n[1], n)
            elif n[0] in ("gpow", "gsqrt"):
                guards.setdefault((n[0] == "gpow", n[1]), n)
    return list(dats.values()), list(guards.values())


def _limit_text(lim: Node, rhs: Node) -> str:
    """The limit ``lim`` (a ``limit`` node) is ``rhs``, with epsilons:

    * at a real point ``p`` from the right: ``forall eps, 0 < eps -> exists delta, 0 < delta /\\
      forall x, p < x < p + delta -> Rabs (f - l) < eps`` (from the left: ``p - delta < x < p``;
      from both sides: ``0 < Rabs (x - p) < delta``);
    * at ``oo``: ``forall eps, 0 < eps -> exists M, forall x, M < x -> Rabs (f - l) < eps``
      (at ``-oo``: ``x < M``)."""
    _, kind, x, body, point, eps, bnd = lim
    close = f"Rabs ({coq_text(body)} - {coq_text(rhs)}) < {eps}"
    head = f"forall {eps} : R, 0 < {eps} -> exists {bnd} : R, "
    if kind in ("pinf", "minf"):
        near = f"{bnd} < {x}" if kind == "pinf" else f"{x} < {bnd}"
        return head + f"forall {x} : R, {near} -> {close}"
    p = coq_text(point)
    near = {"right": f"{p} < {x} < {p} + {bnd}", "left": f"{p} - {bnd} < {x} < {p}",
            "both": f"0 < Rabs ({x} - {p}) < {bnd}"}[kind]
    return head + f"0 < {bnd} /\\ forall {x} : R, {near} -> {close}"


def proposition(binders: str, hyps: list[str], goal: str) -> str:
    """``forall binders, hyps -> goal`` (the parts that are present)."""
    body = " -> ".join([*hyps, goal])
    return (f"forall {binders}, " if binders else "") + body


def lemma_statement(name: str, lhs: Node, rhs: Node, env: Env, hyps: list[str]) -> str:
    """``Lemma name : forall vars, hyps -> lhs = rhs.``"""
    return f"Lemma {name} : {proposition(binders_text(env), hyps, goal_text(lhs, rhs))}."


def witness_text(env: Env, point: dict) -> str | None:
    """The values of a point for the lemma's variables, in binder order, as the arguments of
    Coq's ``exists`` tactic (``(5 / 2), 3%Z, (fun _ : Z => 0)``); ``None`` when a variable has
    no value that prints. A value that is not rational is replaced by a nearby rational, and a
    variable the point does not give (one the claim binds, a derivative's) gets 1, 0 or -1 by
    its sign: the witness only has to satisfy the printed hypotheses, which Coq checks."""
    groups: dict[str, list[str]] = {"R": [], "Z": [], "F": [], "W": []}
    for name, (kind, s) in sorted(env.free.items()):
        if kind in ("F", "W"):
            groups[kind].append("(fun _ : Z => 0)" if kind == "F" else "(fun _ : R => 0)")
            continue
        v = point.get(s)
        if v is None:  # a variable the claim binds (a derivative's): a value with its sign will do
            v = sp.Integer(-1 if s.is_negative else 0 if (s.is_zero or s.is_nonpositive) else 1)
        if not getattr(v, "is_number", False) or v.is_real is not True:
            return None
        if kind == "Z":
            if not v.is_Integer or int(v).bit_length() > 13_000:
                return None
            groups["Z"].append(f"({int(v)})%Z")
        else:
            q = v if v.is_Rational else sp.Rational(sp.N(v, 30))
            try:
                groups["R"].append(coq_text(to_coq_ast(q, env)))
            except OutsideFragment:
                return None
    values = groups["R"] + groups["Z"] + groups["F"] + groups["W"]
    return ", ".join(values)
