r"""The traced proof: ``fn(x, m) = A\,R(\hat\theta(m))\,x`` for every integer ``m``, by the kernel.

``fn`` is traced with ``x`` **and** the positions symbolic (:func:`pe_symbolic.audit.symbolic_trace.trace_rope`:
NumPy object arrays, ``torch.fx`` on fake tensors, ``jax.make_jaxpr``), so only branch-free
code gets here: a comparison, a truth value, a cast to an integer, an index or a table
lookup by a position fails the trace, and :func:`~pe_symbolic.verify_rope` falls back to
testing and says so. Each pair's angle :math:`\hat\theta_p(m)` and factor ``A`` are read
from the traced output; the kernel (:func:`pe_symbolic.check_identity`) then checks the
whole output against :math:`A R(\hat\theta(m)) x` in the config's pairs, in the
direction the model's convention says -- or refutes it, and :func:`explain` names the
usual cause. The proof holds at the shape traced (``(2, 1, 2, head_dim)``: two batch rows,
one head, two positions, each with its own symbols) and, for a length-dependent rule, at
the length the trace was pinned to; the report states both.

>>> import numpy as np
>>> from pe_symbolic.audit.verify.geometry import Oracle
>>> from pe_symbolic.numeric.config import parse_rope_config
>>> cfg = {"head_dim": 4, "rope_theta": 100.0}
>>> def rope(x, ids):
...     ang = ids[..., None] * np.array([1.0, 0.1])
...     c, s = np.cos(np.concatenate([ang, ang], -1))[:, None], np.sin(np.concatenate([ang, ang], -1))[:, None]
...     return x * c + np.concatenate([-x[..., 2:], x[..., :2]], -1) * s
>>> geo = Oracle(cfg, parse_rope_config(cfg), "split", None).at()
>>> prove_structure(rope, "numpy", "float64", geo).proof.verdict
'proved'
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import sympy as sp

from ...proof import check_identity
from ..symbolic_trace import trace_rope
from .geometry import Geometry, expected_pairs

__all__ = ["TRACE_SHAPE", "TracedProof", "explain", "pairs_text", "prove_structure"]

#: (batch, heads, seq) of the symbolic trace: every (row, head, position) its own symbols. Two
#: rows and two positions (rows given each other's positions, positions mixed, are refuted);
#: one head (heads >= 3 are tested: a second traced head doubled the trace's time, 3.7 s -> 8.4 s
#: for a 128-dim head).
TRACE_SHAPE: tuple[int, int, int] = (2, 1, 2)


@dataclass
class TracedProof:
    """What the symbolic trace found (see the module notes)."""

    how: str
    proof: Any
    got: sp.MatrixBase           # group 0's d x d matrix (symbolic), for explanations
    want: sp.MatrixBase
    pattern: list[list[int]]
    theta: list[sp.Expr]
    amp: list[sp.Expr]
    m0: tuple[sp.Symbol, ...]
    shape: tuple[int, ...]
    length: int | None = None
    length_used: bool = False
    angle_dtypes: tuple[str, ...] = ()
    why: list[str] = field(default_factory=list)

    @property
    def proved(self) -> bool:
        """Whether the kernel proved the structure."""
        return self.proof.verdict == "proved"


def _linear(exprs: Sequence[sp.Expr], xs: Sequence[sp.Symbol]) -> tuple[list[list[sp.Expr]], list[str]]:
    """The coefficient matrix of ``exprs`` in ``xs``, and what is not linear in them."""
    index = {s: j for j, s in enumerate(xs)}
    zero = sp.Integer(0)
    rows = [[zero] * len(xs) for _ in exprs]
    odd: list[str] = []
    for r, e in enumerate(exprs):
        for term in sp.Add.make_args(sp.expand(e)):
            own = [s for s in term.free_symbols if s in index]
            other = [s for s in term.free_symbols if s.name.startswith("x_") and s not in index]
            if len(own) == 1 and not other:
                coef, dep = term.as_independent(own[0], as_Add=False)
                if dep == own[0]:
                    rows[r][index[own[0]]] += coef
                    continue
            if term != 0:
                odd.append(f"output slot {r} has the term {sp.sstr(term)}")
    return rows, odd


def _angle_of(entries: Sequence[sp.Expr], allowed: set[sp.Symbol], direction: int,
              axis_symbol: sp.Symbol) -> tuple[sp.Expr, sp.Expr] | None:
    """``(theta, A)`` from the first entry of the form ``A*cos(theta)`` or ``A*sin(theta)``
    (A a number, theta free of ``x``); theta's sign is the model's direction (cos is even:
    a rotation the wrong way is then refuted, not read as the right one)."""
    for e, f in ((entries[0], sp.cos), (entries[1], sp.cos), (entries[2], sp.sin)):
        atoms = e.atoms(f)
        if len(atoms) != 1:
            continue
        th = next(iter(atoms)).args[0]
        amp = e / f(th)
        if amp.is_number and amp != 0 and th.free_symbols <= allowed:
            if f is sp.cos:
                slope = sp.diff(th, axis_symbol)
                if slope.is_number and slope * direction < 0:
                    th = -th
            return th, amp
    return None


def prove_structure(call: Callable, kind: str, dtype: str, geo: Geometry, length: int | None = None,
                    heads: int = TRACE_SHAPE[1], side_names: Sequence[str] | None = None) -> TracedProof:
    """Trace ``call`` with ``x`` and the positions symbolic (pinned to ``length`` when
    given) and have the kernel check ``fn(x, m) = A R(theta(m)) x``. ``heads``: the traced
    heads (HF's pair: 2, head 0 its q and head 1 its k, each with its own symbols);
    ``side_names``: what each head is, for the explanation.

    Raises :class:`~pe_symbolic.audit.symbolic_trace.TraceError` when ``call`` is not branch-free.
    """
    d = geo.d
    shape = (TRACE_SHAPE[0], heads, TRACE_SHAPE[2], d)
    tr = trace_rope(call, kind, shape, axes=geo.n_axes, dtype=dtype, length=length)
    m0 = tuple(sp.Symbol(f"m{k}_0_0", integer=True, nonnegative=True) for k in range(geo.n_axes))
    got_rows, odd = _linear(list(tr.out[0, 0, 0]), list(tr.x[0, 0, 0]))
    got = sp.ImmutableMatrix(got_rows)
    thetas, amps = [], []
    for p, (a, b) in enumerate(geo.pairs):
        found = _angle_of([got[a, a], got[b, b], got[b, a]], set(m0), geo.direction, m0[geo.axes[p]])
        if found is None:  # no usable angle: the config's own, so that the kernel can refute
            found = (geo.direction * sp.Rational(float(geo.want[p])) * m0[geo.axes[p]], sp.Rational(geo.factor))
        thetas.append(found[0])
        amps.append(found[1])

    def expected(bb: int, hh: int, ss: int) -> list[sp.Expr]:
        sub = {m0[k]: sp.Symbol(f"m{k}_{bb}_{ss}", integer=True, nonnegative=True) for k in range(geo.n_axes)}
        x = tr.x[bb, hh, ss]
        want = list(x)
        for p, (a, b) in enumerate(geo.pairs):
            th = thetas[p].xreplace(sub)
            c, s = amps[p] * sp.cos(th), amps[p] * sp.sin(th)
            want[a], want[b] = c * x[a] - s * x[b], s * x[a] + c * x[b]
        return want

    # The kernel checks (row 0, head 0, position 0). Every other (row, head, position) is that
    # claim with its own symbols renamed (a bijection): where its traced output *is* group 0's
    # under the renaming, group 0's proof covers it; otherwise the kernel checks it too.
    lhs, rhs = list(tr.out[0, 0, 0]), expected(0, 0, 0)
    groups = [(bb, hh, ss) for bb, hh, ss in np.ndindex(*shape[:3]) if (bb, hh, ss) != (0, 0, 0)]
    for bb, hh, ss in groups:
        ren = {tr.x[bb, hh, ss][j]: tr.x[0, 0, 0][j] for j in range(d)}
        ren.update({sp.Symbol(f"m{k}_{bb}_{ss}", integer=True, nonnegative=True): m0[k] for k in range(geo.n_axes)})
        out = list(tr.out[bb, hh, ss])
        own = set(ren)  # a renaming proves nothing about a symbol it does not rename (another row's m)
        if any(not e.free_symbols <= own or e.xreplace(ren) != e0 for e, e0 in zip(out, tr.out[0, 0, 0])):
            lhs += out
            rhs += expected(bb, hh, ss)
    proof = check_identity(sp.ImmutableMatrix(lhs), sp.ImmutableMatrix(rhs), timeout=60)
    want0 = sp.eye(d).as_mutable()
    for p, (a, b) in enumerate(geo.pairs):
        c, s = amps[p] * sp.cos(thetas[p]), amps[p] * sp.sin(thetas[p])
        want0[a, a], want0[a, b], want0[b, a], want0[b, b] = c, -s, s, c
    want0 = sp.ImmutableMatrix(want0)
    pattern = [[r for r in range(d) if got[r, c] != 0] for c in range(d)]
    why: list[str] = []
    if proof.verdict != "proved":
        why = explain(got, want0, pattern, d, geo.r, geo.layout) if got != want0 else []
        if odd:
            why.insert(0, "fn is not a linear map of each (row, head, position)'s own x: " + odd[0])
        for p, (a, b) in enumerate(geo.pairs):
            cos_amp = _angle_of([got[a, a], got[b, b], sp.Integer(0)], set(m0), geo.direction, m0[geo.axes[p]])
            sin_amp = _angle_of([sp.Integer(0), sp.Integer(0), got[b, a]], set(m0), geo.direction, m0[geo.axes[p]])
            if cos_amp and sin_amp and abs(cos_amp[1]) != abs(sin_amp[1]) and (
                    cos_amp[0] == sin_amp[0] or cos_amp[0] == -sin_amp[0]):
                why.insert(0, f"pair {p}: cos is scaled by {float(cos_amp[1]):.6g} and sin by {float(sin_amp[1]):.6g}: "
                              "the attention factor (mscale) is applied to one table only")
                break
        if not why and side_names:  # group 0 (q) is right: another head's own matrix, explained
            for hh in range(1, heads):
                rows_h, odd_h = _linear(list(tr.out[0, hh, 0]), list(tr.x[0, hh, 0]))
                got_h = sp.ImmutableMatrix(rows_h)
                if not odd_h and got_h != want0:
                    pat_h = [[r for r in range(d) if got_h[r, c] != 0] for c in range(d)]
                    why_h = explain(got_h, want0, pat_h, d, geo.r, geo.layout)
                    amp_h = [_angle_of([got_h[a, a], got_h[b, b], got_h[b, a]], set(m0), geo.direction,
                                       m0[geo.axes[p]]) for p, (a, b) in enumerate(geo.pairs)]
                    if all(t is not None for t in amp_h) and all(
                            sp.simplify(t[0] - th) == 0 for t, th in zip(amp_h, thetas)) and any(
                            t[1] != a for t, a in zip(amp_h, amps)):
                        a_h = next(t[1] for t, a in zip(amp_h, amps) if t[1] != a)
                        why_h = [f"its attention factor is {float(a_h):.6g} where {side_names[0]}'s is "
                                 f"{float(amps[0]):.6g}: the factor (mscale) is applied to one side only"]
                    why = [f"{side_names[hh]} (head {hh} of the trace): {w}" for w in why_h]
                    break
        if not why:
            for q, (u, v) in enumerate(zip(lhs, rhs)):
                if sp.expand(u - v) != 0:
                    r = q % d
                    sym = sorted((str(e) for e in u.free_symbols if str(e).startswith("x_")), key=len)
                    where = sym[0][2:].rsplit("_", 1)[0].split("_") if sym else ["?", "?", "?"]
                    heads_in = sorted({str(e)[2:].rsplit("_", 1)[0].split("_")[1] for e in u.free_symbols
                                       if str(e).startswith("x_")})
                    if side_names and len(heads_in) > 1 and where[1].isdigit():
                        own_side = side_names[int(where[1])]
                        others = [side_names[int(h)] for h in heads_in if h.isdigit() and int(h) != int(where[1])]
                        why.append(f"{own_side}'s output (batch row {where[0]}, position index {where[2]}, slot {r}) "
                                   f"depends on {', '.join(dict.fromkeys(others))}'s input: {sp.sstr(u)} where R(m) "
                                   f"gives {sp.sstr(v)} ({own_side} computed from {others[0]}: a copy-paste such as "
                                   "k_embed = k * cos + rotate_half(q) * sin?)")
                    else:
                        who = (f"{side_names[int(where[1])]} (head {where[1]})" if side_names and where[1].isdigit()
                               else f"head {where[1]}")
                        why.append(f"batch row {where[0]}, {who}, position index {where[2]}, output slot {r}: "
                                   f"{sp.sstr(u)} where R(m) gives {sp.sstr(v)} (position_ids mixed between rows or "
                                   "positions, or heads mixed?)")
                    break
    return TracedProof(tr.how, proof, got, want0, pattern, thetas, amps, m0, shape, tr.length, tr.length_used,
                       tr.angle_dtypes, why)


def explain(got: sp.MatrixBase, want: sp.MatrixBase, pattern: list[list[int]], d: int, rotary_dim: int,
            layout: str) -> list[str]:
    """The usual cause of a structure that is not ``want``: halves not swapped, the other
    layout, the wrong partial pairing, the wrong direction, else the first slot that differs."""
    why = []
    if all(got[j, j] == 1 and len(pattern[j]) == 1 for j in range(rotary_dim)):
        return ["it is not rotated at all (the output is x itself)"]
    if all(len(s) <= 1 for s in pattern[:rotary_dim]):
        return ["each slot is mixed only with itself: the rotation's halves are not swapped "
                "(rotate_half must return cat(-x2, x1))"]
    other = "interleaved" if layout == "split" else "split"
    pairs = expected_pairs(rotary_dim, other)
    if all(sorted(pattern[a]) == sorted([a, b]) and sorted(pattern[b]) == sorted([a, b]) for a, b in pairs):
        return [f"it pairs the slots as the {other} layout ({pairs_text(pairs)}), where the config's weights expect "
                f"{layout} ({pairs_text(expected_pairs(rotary_dim, layout))}): apply the other layout, or permute the "
                "q/k weights"]
    if rotary_dim < d:
        for lay in ("split", "interleaved"):
            full = expected_pairs(d, lay)
            if all(sorted(pattern[a]) == sorted([a, b]) for a, b in full if a < d and b < d):
                return [f"partial rotary: it rotates all {d} dims as pairs {pairs_text(full)}, but the config "
                        f"rotates only the first {rotary_dim} (pairs {pairs_text(expected_pairs(rotary_dim, layout))})"]
    for r in range(d):  # an entry equal to R(m)'s up to sign (its square the same): sin's sign lost
        for c in range(d):
            g, w = got[r, c], want[r, c]
            if g != w and any(p.exp == sp.Rational(1, 2) for p in g.atoms(sp.Pow)) and w.has(sp.sin) and sp.simplify(sp.expand(g**2 - w**2)) == 0:
                return [f"output slot {r}, input slot {c}: {sp.sstr(g)} where R(m) has {sp.sstr(w)} -- equal in size, "
                        "not in sign: sin computed as sqrt(1 - cos^2) has lost its sign (it is never negative past "
                        "pi); take sin from the angle itself"]
    if all(x == y for x, y in zip(_flip_sin(got), want)):
        return ["the rotation turns the wrong way (every sin has the opposite sign): the minus of rotate_half is on "
                "the wrong half, or sin is negated"]
    for r in range(d):
        for c in range(d):
            if got[r, c] != want[r, c]:
                g = got[r, c]
                shown = ("a value that is none of 0, 1, +-cos, +-sin of a pair's angle (it turns with a pair the "
                         "config does not turn, or mixes slots of different pairs)"
                         if isinstance(g, sp.Symbol) and g.name == f"m{r}_{c}" else sp.sstr(g))
                why.append(f"first difference at output slot {r}, input slot {c}: {shown} where R(m) has "
                           f"{sp.sstr(want[r, c])}")
                return why
    return why


def _flip_sin(m: sp.MatrixBase) -> sp.MatrixBase:
    return m.applyfunc(lambda e: e.replace(sp.sin, lambda a: -sp.sin(a)))


def pairs_text(pairs: list[tuple[int, int]]) -> str:
    """The first two pairs, ``(0, 64), (1, 65), ...``."""
    shown = ", ".join(f"({a}, {b})" for a, b in pairs[:2])
    return f"{shown}, ..." if len(pairs) > 2 else shown


def traced_frequencies(tp: TracedProof, geo: Geometry) -> tuple[list[float], list[float], list[str]]:
    """Each pair's traced inverse frequency (signed, the coefficient of its position symbol)
    and offset (the angle at ``m = 0``, in positions), and what is not of that form."""
    omegas: list[float] = []
    offsets: list[float] = []
    why: list[str] = []
    for p, th in enumerate(tp.theta):
        syms = [s for s in tp.m0 if s in th.free_symbols]
        if not syms and th.is_number:  # a pair that does not turn (frequency 0, e.g. proportional)
            omegas.append(0.0)
            offsets.append(float(th))
            continue
        if not syms:
            why.append(f"pair {p}: its angle {sp.sstr(th)} does not depend on position_ids")
            break
        if len(syms) > 1:
            why.append(f"pair {p}: its angle {sp.sstr(th)} mixes position axes")
            break
        k = tp.m0.index(syms[0])
        if k != geo.axes[p]:
            why.append(f"pair {p} turns with position axis {geo.axis_names[k]} where the config assigns "
                       f"{geo.axis_names[geo.axes[p]]}")
            break
        w = sp.diff(th, syms[0])
        if not w.is_number:
            why.append(f"pair {p}: its angle {sp.sstr(th)} is not linear in the position")
            break
        omegas.append(float(w))
        off = float(th.xreplace({syms[0]: 0}))
        offsets.append(off / float(w) if float(w) else math.inf)
    return omegas, offsets, why
