r"""Your implementation, verified: a user's RoPE function against the specification.

:func:`verify_rope` takes the RoPE a user actually wrote -- a NumPy, PyTorch or JAX callable
``fn(x, position_ids) -> x_rotated`` in Hugging Face shapes, or HF's own pair
``(rotary_emb, apply_rotary_pos_emb)`` -- and a model config, and answers three questions:

1. **Structure** (proved by the kernel). ``fn`` is *traced*
   (:mod:`pe_symbolic.audit.trace`): called on NumPy object arrays of SymPy symbols, or,
   for torch, recorded by ``torch.fx`` (``make_fx`` on fake tensors), for JAX by
   ``jax.make_jaxpr``, and interpreted over SymPy. With the positions symbolic too, its output is an exact expression in ``x`` and
   the positions ``m``; the kernel (:func:`pe_symbolic.check_identity`) checks that it
   equals :math:`A\,R(\hat\theta(m))\,x` of the config's layout, pairing and rotary dims,
   for *every* integer ``m`` (``traced``), or refutes it, with the first slot where they
   differ and what usually causes it (a sign flip, halves not swapped, the other layout,
   the wrong partial pairing, rows or heads mixed). Code that needs numeric positions
   (``position_ids.astype(float)``, a cached table indexed by them) is traced with ``x``
   symbolic at numeric positions; code that cannot be traced at all (a data-dependent
   branch, an operation without a symbolic rule, a truncating cast) is *read numerically*: ``fn``
   applied to the basis vectors is its matrix, whose pattern is classified within 64
   roundoffs and then checked by the kernel. The report says which (``method``). A trace
   is always cross-checked against ``fn``'s float output: an ``fn`` that computes
   something else on object arrays than on floats is refused, never proved.
2. **Frequencies and scaling**. From the trace, each pair's angle :math:`\hat\theta_p(m)`
   exactly: its inverse frequency (the coefficient of ``m``), its offset (the value at
   ``m = 0``), its position axis (M-RoPE, axial) and the factor ``A``; from the float
   output, each pair's angle ``atan2(M[b, a], M[a, a])`` at positions ``0, 1, 2, 4, ...``
   unwrapped. Both are compared with the independent oracle
   (:func:`pe_symbolic.reference.rope_frequencies`), in units of the dtype's roundoff, and a
   mismatch is explained by the parameter that reproduces it (the scaling ignored,
   ``rope_theta`` back to 10000, the factor applied the wrong way, a partial-rotary
   exponent over the head dim, a position offset, the wrong M-RoPE axis).
3. **Precision**. ``fn`` on a random ``x`` at adversarial positions up to the context,
   against the oracle at 30 digits, within the error bound of the most accurate recipe
   (angles formed in float64; proved by Gappa where it is installed, else a first-order
   estimate: the report says which), or else within that of HF's reference recipe (angles
   formed in float32; the report says from where the tighter bound is left); the first
   position where it leaves both.

M-RoPE configs (``mrope_section``) give ``fn`` ``position_ids`` of shape ``(3, batch,
seq)`` (t, h, w), axial configs (HF's 2-D vision RoPE) ``(2, batch, seq)`` (h, w). A
config with one rope entry per layer type is checked layer type by layer type.

The :class:`VerifyReport` says ``verified``, ``differs`` (where and why), ``out of bound``
(right structure and frequencies, less accurate than HF's recipe) -- as text, Markdown or JSON.

>>> import numpy as np
>>> import pe_symbolic as pe
>>> cfg = {"rope_theta": 10000.0, "head_dim": 8, "hidden_size": 32, "num_attention_heads": 4,
...        "max_position_embeddings": 2048}
>>> def rope(x, position_ids):       # HF's rotate_half RoPE, float64 tables
...     inv = 10000.0 ** (-np.arange(0, 8, 2) / 8)
...     ang = position_ids[..., None] * inv
...     cos, sin = np.cos(np.concatenate([ang, ang], -1))[:, None], np.sin(np.concatenate([ang, ang], -1))[:, None]
...     x1, x2 = x[..., :4], x[..., 4:]
...     return x * cos + np.concatenate([-x2, x1], -1) * sin
>>> report = pe.verify_rope(rope, cfg, dtype="float64")
>>> report.verdict, report.structure["method"]
('verified', 'traced')
"""

from __future__ import annotations

import functools
import inspect
import json
import math
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import mpmath
import numpy as np
import sympy as sp

from .. import reference
from ..numeric.config import mrope_rule_axes, parse_rope_config
from ..numeric.describe import describe
from ..proof import check_identity
from .gappa import angle_gamma, angle_script, gappa_path, rotation_script, run_gappa
from .trace import TraceError, trace_rope

__all__ = ["VerifyReport", "verify_rope"]

_EPS = {"float64": 2.0**-53, "float32": 2.0**-24, "bfloat16": 2.0**-8, "float16": 2.0**-11}
LAYOUTS = ("split", "interleaved")
#: HF's ``apply_rotary_pos_emb_interleave`` (DeepSeek V3 & co.): interleaved pairs in, split out.
IN_SPLIT_OUT = "interleaved-in-split-out"
_VERDICTS = ("verified", "out of bound", "differs")
#: The float output may depart from the exact trace by this much per radian of angle
#: (4x a bfloat16 angle's rounding): how the float code forms its angles is the precision
#: section's question; the cross-check is after structural divergence (signs, pairs, factors).
_ANGLE_SLACK = 2.0**-5


@dataclass
class VerifyReport:
    """What :func:`pe_symbolic.verify_rope` found.

    ``verdict`` is ``"verified"``, ``"differs"`` or ``"out of bound"``; each section holds its
    findings and a one-line ``summary``; ``structure["method"]`` is ``"traced"``,
    ``"traced at numeric positions"`` or ``"read numerically"``, and ``structure["verdict"]``
    the kernel's (``"proved"``, ``"refuted"``, ``"undecided"``) or ``"refused"`` when a
    proved trace disagrees with ``fn``'s float output. ``precision["bound"]`` says whether
    the bound was proved by Gappa or is a first-order estimate. For a config with one rope
    entry per layer type, ``layers`` holds one report per layer type and ``verdict`` is the
    worst of theirs.

    >>> VerifyReport("verified").to_text()
    'verify_rope: VERIFIED'
    """

    verdict: str
    structure: dict[str, Any] = field(default_factory=dict)
    frequencies: dict[str, Any] = field(default_factory=dict)
    precision: dict[str, Any] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    layers: dict[str, VerifyReport] = field(default_factory=dict)

    def _lines(self, bullet: str, sub: str, indent: str) -> list[str]:
        lines = []
        for name in ("structure", "frequencies", "precision"):
            sec = getattr(self, name)
            if sec:
                lines.append(f"{indent}{bullet}{name}: {sec.get('summary', '')}")
                lines += [f"{indent}{sub}{why}" for why in sec.get("why", [])]
        lines += [f"{indent}{bullet}note: {n}" for n in self.notes]
        return lines

    def to_text(self) -> str:
        """The report as plain text (what ``str()`` gives)."""
        lines = [f"verify_rope: {self.verdict.upper()}"]
        lines += self._lines("", "  - ", "  ")
        for lt, rep in self.layers.items():
            lines.append(f"  layer type {lt!r}: {rep.verdict.upper()}")
            lines += rep._lines("", "  - ", "    ")
        return "\n".join(lines)

    def to_markdown(self) -> str:
        """The report as Markdown (for a PR comment)."""
        out = [f"**verify_rope: {self.verdict}**", ""]
        out += self._lines("- **", "  - ", "").copy()
        out = [ln.replace(": ", "**: ", 1) if ln.startswith("- **") else ln for ln in out]
        for lt, rep in self.layers.items():
            out.append(f"- layer type `{lt}`: **{rep.verdict}**")
            out += ["  " + ln.replace(": ", "**: ", 1) if ln.startswith("- **") else "  " + ln
                    for ln in rep._lines("- **", "  - ", "")]
        return "\n".join(out)

    def to_json(self) -> str:
        """The report as JSON (every section, the layer types' reports nested)."""
        return json.dumps(asdict(self), indent=2, default=str)

    def __str__(self) -> str:
        return self.to_text()


# ---------------------------------------------------------------------------- calling fn


def _framework(fn: Any, framework: str | None) -> str:
    if framework is not None:
        if framework not in ("numpy", "torch", "jax"):
            raise ValueError(f"framework={framework!r} is not allowed; use 'numpy', 'torch', 'jax' or None")
        return framework
    target = fn[0] if isinstance(fn, tuple) else fn
    mod = getattr(type(target), "__module__", "") + " " + getattr(target, "__module__", "")
    if "torch" in mod:
        return "torch"
    if "jax" in mod or "flax" in mod:
        return "jax"
    return "numpy"


def _accepts_layer_type(f: Any) -> bool:
    target = getattr(f, "forward", f)
    try:
        params = inspect.signature(target).parameters.values()
    except (TypeError, ValueError):
        return False
    return any(p.name == "layer_type" or p.kind is inspect.Parameter.VAR_KEYWORD for p in params)


def _call(fn: Any, layer_type: str | None) -> tuple[Callable[[Any, Any], Any], bool]:
    """``fn`` as ``call(x, position_ids)``, and whether it was given ``layer_type=``."""
    if isinstance(fn, tuple):
        if len(fn) != 2 or not all(callable(f) for f in fn):
            raise TypeError("fn as a tuple must be HF's pair (rotary_emb, apply_rotary_pos_emb)")
        rotary_emb, apply = fn
        kw = {"layer_type": layer_type} if layer_type is not None and _accepts_layer_type(rotary_emb) else {}

        def call(x: Any, ids: Any) -> Any:
            cos, sin = rotary_emb(x, ids, **kw)
            return apply(x, x, cos, sin)[0]
        return call, bool(kw)
    if not callable(fn):
        raise TypeError(f"fn={fn!r} is not callable (a function fn(x, position_ids), HF's pair, or a dict of "
                        "them by layer type)")
    if layer_type is not None and _accepts_layer_type(fn):
        return (lambda x, ids: fn(x, ids, layer_type=layer_type)), True
    return fn, False


def _caller(call: Callable[[Any, Any], Any], framework: str,
            dtype: str) -> Callable[[np.ndarray, np.ndarray], np.ndarray]:
    """``call`` as a function of NumPy arrays (x in float64 values, positions int64) returning
    float64: the arrays are converted to the framework and the dtype first."""
    if framework == "torch":
        import torch

        tdtype = getattr(torch, dtype)

        def run(x: np.ndarray, ids: np.ndarray) -> np.ndarray:
            with torch.no_grad():
                out = call(torch.from_numpy(x).to(tdtype), torch.from_numpy(ids))
            return out.detach().to(torch.float64).cpu().numpy()
        return run
    if framework == "jax":
        import jax.numpy as jnp

        def run(x: np.ndarray, ids: np.ndarray) -> np.ndarray:
            out = call(jnp.asarray(x, dtype=dtype), jnp.asarray(ids))
            return np.asarray(out, dtype=np.float64)
        return run
    npdtype = np.dtype(dtype) if dtype != "bfloat16" else __import__("ml_dtypes").bfloat16

    def run(x: np.ndarray, ids: np.ndarray) -> np.ndarray:
        return np.asarray(call(x.astype(npdtype), ids), dtype=np.float64)
    return run


def _interleave_halves(x: Any, r: int, kind: str) -> Any:
    """``Q x``: the first ``r`` channels of ``x`` with slot ``i`` moved to ``2i`` and slot
    ``i + r/2`` to ``2i + 1`` (the rest as they are), in ``x``'s own framework."""
    if kind == "torch":
        import torch

        stack, cat = torch.stack, torch.cat
    elif kind == "jax":
        import jax.numpy as jnp

        stack, cat = jnp.stack, jnp.concatenate
    else:
        stack, cat = np.stack, np.concatenate
    h = r // 2
    inter = stack([x[..., :h], x[..., h:r]], -1).reshape(tuple(x.shape[:-1]) + (r,))
    return cat([inter, x[..., r:]], -1) if r < x.shape[-1] else inter


def _ids(positions: Sequence[int], axes: int, axis: int | None = None) -> np.ndarray:
    """``position_ids`` for one batch row: ``(1, seq)``, or ``(axes, 1, seq)`` with every axis
    at ``positions`` (``axis=None``) or only ``axis`` there and the others at 0."""
    pos = np.asarray(positions, dtype=np.int64)[None, :]
    if axes == 1:
        return pos
    out = np.zeros((axes, 1, pos.shape[1]), dtype=np.int64)
    for k in range(axes):
        if axis is None or k == axis:
            out[k] = pos
    return out


def _matrices(run: Callable, d: int, positions: Sequence[int], axes: int = 1, axis: int | None = None) -> np.ndarray:
    """``M[t]`` (d x d) of ``fn`` at each position: ``fn`` applied to the basis vectors,
    one per head, all positions in one call."""
    x = np.zeros((1, d, len(positions), d))
    for j in range(d):
        x[0, j, :, j] = 1.0
    ids = _ids(positions, axes, axis)
    try:
        out = run(x, ids)
    except Exception as exc:
        what = {1: "", 2: " (an axial config: (2, batch, seq), h and w)", 3: " (an M-RoPE config: (3, batch, seq), t, h, w)"}
        raise ValueError(f"fn failed on x of shape {x.shape} and position_ids of shape {ids.shape}{what[axes]}: "
                         f"{type(exc).__name__}: {exc}") from exc
    if out.shape != x.shape:
        raise ValueError(f"fn returned shape {out.shape} for x of shape {x.shape}; it must return x's shape")
    return np.transpose(out[0], (1, 2, 0))  # [t, row, col]


# ---------------------------------------------------------------------------- what the config means


@dataclass
class _Geometry:
    """What the config asks for: pairs, each pair's position axis and exact frequency."""

    d: int
    r: int
    layout: str
    pairs: list[tuple[int, int]]
    axes: list[int]
    axis_names: tuple[str, ...]
    inv_exact: list[Any]
    want: np.ndarray
    factor_exact: Any
    factor: float
    kind: str

    @property
    def n_axes(self) -> int:
        return len(self.axis_names)

    @property
    def turning(self) -> list[tuple[int, int]]:
        """The pairs whose pattern is R(theta): all but those the config never turns
        (frequency 0, as ``proportional``'s trailing pairs), which are read as passing
        through when the attention factor is 1."""
        if self.factor != 1.0:
            return self.pairs
        return [pq for p, pq in enumerate(self.pairs) if self.want[p] != 0]


def _geometry(config: Mapping[str, Any], spec: Any, layout: str, layer_type: str | None) -> _Geometry:
    inv, factor = reference.rope_frequencies(config, layer_type=layer_type, dps=40)
    inv = list(inv)
    r = spec.rotary_dim
    npairs = r // 2
    pairs = _expected_pairs(r, layout)
    if spec.xdrope_section is not None:
        raise ValueError(f"config's xdrope_section={list(spec.xdrope_section)!r} ({len(spec.xdrope_section)}-axis "
                         "M-RoPE) is not verified yet; verify_rope checks 1-axis RoPE, M-RoPE (3 axes) and axial (2)")
    if spec.rope_type == "axial":
        k = npairs // 2
        if npairs % 2:
            raise ValueError(f"axial RoPE with head_dim={spec.head_dim}: {npairs} pairs cannot be split evenly into "
                             "height and width pairs")
        if len(inv) == npairs:  # Pixtral: its own ladder order, height pairs first
            per = inv
        elif len(inv) == k:  # HF's compute_axial_rope_parameters: one ladder for h and for w
            per = inv + inv
        else:
            raise ValueError(f"axial config: the oracle gives {len(inv)} frequencies for {npairs} pairs")
        axes, names, kind = [0] * k + [1] * (npairs - k), ("h", "w"), "axial"
    elif spec.mrope_section is not None:
        if spec.mrope_rule is not None:  # a model's own placement (Ernie 4.5 VL), from the parser's rule
            axes = list(mrope_rule_axes(spec.mrope_rule, spec.mrope_section))
        else:
            axes = list(reference.mrope_axes(spec.mrope_section, interleaved=spec.mrope_interleaved))
        per, names, kind = inv, ("t", "h", "w"), "mrope"
    else:
        per, axes, names, kind = inv, [0] * npairs, ("m",), "rope"
    if len(per) != npairs:
        raise ValueError(f"the oracle gives {len(per)} frequencies for {npairs} rotated pairs")
    return _Geometry(spec.head_dim, r, layout, pairs, axes, names, per, np.array([float(v) for v in per]),
                     factor, float(factor), kind)


# ---------------------------------------------------------------------------- tracing


@dataclass
class _Traced:
    """The structure found by a trace (either tier)."""

    how: str
    method: str
    proof: Any
    got: sp.MatrixBase          # group 0's d x d matrix (symbolic), for explanations
    want: sp.MatrixBase
    pattern: list[list[int]]
    matrices: Callable[[Sequence[int]], np.ndarray] | None = None  # the traced map at positions (all axes = m)
    theta: list[sp.Expr] = field(default_factory=list)
    amp: list[sp.Expr] = field(default_factory=list)
    m0: tuple[sp.Symbol, ...] = ()
    angle_dtypes: tuple[str, ...] = ()
    why: list[str] = field(default_factory=list)


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


def _angle_of(entries: Sequence[sp.Expr], allowed: set[sp.Symbol]) -> tuple[sp.Expr, sp.Expr] | None:
    """``(theta, A)`` from the first entry of the form ``A*cos(theta)`` or ``A*sin(theta)``
    (A a number, theta free of ``x``)."""
    for e, f in ((entries[0], sp.cos), (entries[1], sp.cos), (entries[2], sp.sin)):
        atoms = e.atoms(f)
        if len(atoms) != 1:
            continue
        th = next(iter(atoms)).args[0]
        amp = e / f(th)
        if amp.is_number and amp != 0 and th.free_symbols <= allowed:
            return th, amp
    return None


def _trace_symbolic(call: Callable, kind: str, dtype: str, geo: _Geometry, spec: Any) -> _Traced:
    """Tier 1: x and the positions symbolic; the kernel checks fn(x, m) = A R(theta(m)) x."""
    d = geo.d
    shape = (2, 2, 2, d)
    tr = trace_rope(call, kind, shape, axes=geo.n_axes, dtype=dtype)
    m0 = tuple(sp.Symbol(f"m{k}_0_0", integer=True, nonnegative=True) for k in range(geo.n_axes))
    got_rows, odd = _linear(list(tr.out[0, 0, 0]), list(tr.x[0, 0, 0]))
    got = sp.ImmutableMatrix(got_rows)
    thetas, amps = [], []
    for p, (a, b) in enumerate(geo.pairs):
        found = _angle_of([got[a, a], got[b, b], got[b, a]], set(m0))
        if found is None:  # no usable angle: the config's own, so that the kernel can refute
            found = (sp.Rational(float(geo.want[p])) * m0[geo.axes[p]], sp.Rational(geo.factor))
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
    why = []
    if proof.verdict != "proved":
        why = _explain(got, want0, pattern, d, geo.r, geo.layout) if got != want0 else []
        if odd:
            why.insert(0, "fn is not a linear map of each (row, head, position)'s own x: " + odd[0])
        for p, (a, b) in enumerate(geo.pairs):
            cos_amp = _angle_of([got[a, a], got[b, b], sp.Integer(0)], set(m0))
            sin_amp = _angle_of([sp.Integer(0), sp.Integer(0), got[b, a]], set(m0))
            if cos_amp and sin_amp and cos_amp[0] == sin_amp[0] and abs(cos_amp[1]) != abs(sin_amp[1]):
                why.insert(0, f"pair {p}: cos is scaled by {float(cos_amp[1]):.6g} and sin by {float(sin_amp[1]):.6g}: "
                              "the attention factor (mscale) is applied to one table only")
                break
        if not why:
            for q, (u, v) in enumerate(zip(lhs, rhs)):
                if sp.expand(u - v) != 0:
                    r = q % d
                    sym = sorted((str(e) for e in u.free_symbols if str(e).startswith("x_")), key=len)
                    where = sym[0][2:].rsplit("_", 1)[0].split("_") if sym else ["?", "?", "?"]
                    why.append(f"batch row {where[0]}, head {where[1]}, position index {where[2]}, output slot {r}: "
                               f"{sp.sstr(u)} where R(m) gives {sp.sstr(v)} (position_ids mixed between rows or "
                               "positions, or heads mixed?)")
                    break

    def matrices(positions: Sequence[int]) -> np.ndarray:
        out = np.zeros((len(positions), d, d))
        for t, m in enumerate(positions):
            out[t] = np.eye(d)
            sub = {s: sp.Integer(int(m)) for s in m0}
            for p, (a, b) in enumerate(geo.pairs):
                th = float(thetas[p].xreplace(sub))
                A = float(amps[p])
                c, s = A * math.cos(th), A * math.sin(th)
                out[t, a, a], out[t, a, b], out[t, b, a], out[t, b, b] = c, -s, s, c
        return out

    return _Traced(tr.how, "traced", proof, got, want0, pattern, matrices, thetas, amps, m0, tr.angle_dtypes, why)


def _trace_numeric_positions(call: Callable, kind: str, dtype: str, geo: _Geometry,
                             ladder: Sequence[int]) -> tuple[_Traced, np.ndarray]:
    """Tier 2: x symbolic, positions numeric: fn's exact matrices at ``ladder``."""
    d = geo.d
    ids = _ids(ladder, geo.n_axes)
    tr = trace_rope(call, kind, (1, 1, len(ladder), d), axes=geo.n_axes, positions=ids, dtype=dtype)
    ms = np.zeros((len(ladder), d, d))
    odd_all: list[str] = []
    lhs, rhs = [], []
    for t in range(len(ladder)):
        rows, odd = _linear(list(tr.out[0, 0, t]), list(tr.x[0, 0, t]))
        for r in range(d):
            for c in range(d):
                v = rows[r][c]
                if not v.is_number:
                    raise TraceError(f"the traced coefficient of x[{c}] in output slot {r} is {v}, not a number")
                ms[t, r, c] = float(v)
        if odd:
            odd_all += odd
            lhs += list(tr.out[0, 0, t])
            rhs += [sum(rows[r][c] * tr.x[0, 0, t][c] for c in range(d)) for r in range(d)]
    if odd_all:  # not linear in x: the kernel refutes "fn = its linear part"
        proof = check_identity(sp.ImmutableMatrix(lhs), sp.ImmutableMatrix(rhs), timeout=60)
        z = sp.ImmutableMatrix(sp.zeros(d, d))
        return _Traced(tr.how, "traced at numeric positions", proof, z, z, [[] for _ in range(d)],
                       why=["fn is not a linear map of each (row, head, position)'s own x: " + odd_all[0]]), ms
    # the exact matrices classified with no slack beyond float64 rounding of the exact values
    tol = 4 * 2.0**-53 * max(1.0, float(np.abs(ms).max()))
    pattern = _pattern(ms, tol)
    got, theta = _symbolic(ms, d, tol, geo.turning)
    rot = _rotation(d, geo.turning, theta)
    proof = check_identity(got, rot, timeout=30)
    why = [] if proof.verdict == "proved" else _explain(got, rot, pattern, d, geo.r, geo.layout)
    return _Traced(tr.how, "traced at numeric positions", proof, got, rot, pattern, None,
                   angle_dtypes=tr.angle_dtypes, why=why), ms


def _cross_tolerance(positions: Sequence[int], eps: float, amp: float, omega_max: float) -> np.ndarray:
    m = np.asarray(positions, dtype=np.float64)
    return 64 * eps * max(1.0, amp) + amp * m * omega_max * _ANGLE_SLACK


# ---------------------------------------------------------------------------- structure


def _expected_pairs(rotary_dim: int, layout: str) -> list[tuple[int, int]]:
    h = rotary_dim // 2
    if layout == "split":
        return [(i, i + h) for i in range(h)]
    return [(2 * i, 2 * i + 1) for i in range(h)]


def _pattern(ms: np.ndarray, tol: float) -> list[list[int]]:
    nz = (np.abs(ms) > tol).any(axis=0)
    return [list(np.nonzero(nz[:, j])[0]) for j in range(ms.shape[1])]


def _symbolic(ms: np.ndarray, d: int, tol: float, pairs: list[tuple[int, int]]) -> tuple[sp.ImmutableMatrix, tuple]:
    """The pattern of ``ms`` written with cos(theta_p), sin(theta_p) of the expected pairs
    ``pairs`` (which pair a slot belongs to), or None if an entry fits no such form."""
    theta = sp.symbols(f"theta0:{len(pairs)}", real=True)
    owner = {}
    for p, (a, b) in enumerate(pairs):
        owner[a] = owner[b] = p
    rows = []
    for r in range(d):
        row = []
        for c in range(d):
            v = ms[:, r, c]
            if (np.abs(v) <= tol).all():
                row.append(sp.Integer(0))
                continue
            if r == c and r not in owner:
                row.append(sp.Integer(1) if np.allclose(v, 1, rtol=0, atol=tol) else sp.Symbol(f"m{r}_{c}"))
                continue
            p = owner.get(c, owner.get(r))
            if p is None:
                row.append(sp.Symbol(f"m{r}_{c}"))
                continue
            a, b = pairs[p]
            cos_like, sin_like = ms[:, a, a], ms[:, b, a]
            if np.allclose(v, cos_like, rtol=0, atol=tol) and r == c:
                row.append(sp.cos(theta[p]))
            elif np.allclose(v, sin_like, rtol=0, atol=tol):
                row.append(sp.sin(theta[p]))
            elif np.allclose(v, -sin_like, rtol=0, atol=tol):
                row.append(-sp.sin(theta[p]))
            elif np.allclose(v, cos_like, rtol=0, atol=tol):
                row.append(sp.cos(theta[p]))
            elif np.allclose(v, -cos_like, rtol=0, atol=tol):
                row.append(-sp.cos(theta[p]))
            elif np.allclose(v, cos_like - sin_like, rtol=0, atol=tol):
                row.append(sp.cos(theta[p]) - sp.sin(theta[p]))
            elif np.allclose(v, cos_like + sin_like, rtol=0, atol=tol):
                row.append(sp.cos(theta[p]) + sp.sin(theta[p]))
            else:
                row.append(sp.Symbol(f"m{r}_{c}"))
        rows.append(row)
    return sp.ImmutableMatrix(rows), theta


def _rotation(d: int, pairs: list[tuple[int, int]], theta: Sequence[sp.Symbol]) -> sp.ImmutableMatrix:
    m = sp.eye(d).as_mutable()
    for p, (a, b) in enumerate(pairs):
        c, s = sp.cos(theta[p]), sp.sin(theta[p])
        m[a, a], m[a, b], m[b, a], m[b, b] = c, -s, s, c
    return sp.ImmutableMatrix(m)


def _explain(got: sp.MatrixBase, want: sp.MatrixBase, pattern: list[list[int]], d: int, rotary_dim: int,
             layout: str) -> list[str]:
    why = []
    diag_only = all(len(s) <= 1 for s in pattern[:rotary_dim])
    if diag_only:
        why.append("each slot is mixed only with itself: the rotation's halves are not swapped "
                   "(rotate_half must return cat(-x2, x1))")
        return why
    other = "interleaved" if layout == "split" else "split"
    for lay in (other,):
        pairs = _expected_pairs(rotary_dim, lay)
        if all(sorted(pattern[a]) == sorted([a, b]) and sorted(pattern[b]) == sorted([a, b]) for a, b in pairs):
            why.append(f"it pairs the slots as the {lay} layout ({_pairs_text(pairs)}), where the config's "
                       f"weights expect {layout} ({_pairs_text(_expected_pairs(rotary_dim, layout))}): apply the "
                       "other layout, or permute the q/k weights")
            return why
    if rotary_dim < d:
        for lay in LAYOUTS:
            pairs = _expected_pairs(d, lay)
            if all(sorted(pattern[a]) == sorted([a, b]) for a, b in pairs if a < d and b < d):
                why.append(f"partial rotary: it rotates all {d} dims as pairs {_pairs_text(pairs)}, but the "
                           f"config rotates only the first {rotary_dim} (pairs {_pairs_text(_expected_pairs(rotary_dim, layout))})")
                return why
    if all(x == y for x, y in zip(_flip_sin(got), want)):
        why.append("the rotation turns the wrong way (every sin has the opposite sign): the minus of "
                   "rotate_half is on the wrong half, or sin is negated")
        return why
    for r in range(d):
        for c in range(d):
            if got[r, c] != want[r, c]:
                g = got[r, c]
                shown = ("a value that is none of 0, 1, +-cos, +-sin of a pair's angle (it turns with a pair the "
                         "config does not turn, or mixes slots of different pairs)"
                         if isinstance(g, sp.Symbol) and g.name == f"m{r}_{c}" else sp.sstr(g))
                why.append(f"first difference at output slot {r}, input slot {c}: {shown} where R(m) "
                           f"has {sp.sstr(want[r, c])}")
                return why
    return why


def _flip_sin(m: sp.MatrixBase) -> sp.MatrixBase:
    return m.applyfunc(lambda e: e.replace(sp.sin, lambda a: -sp.sin(a)))


def _pairs_text(pairs: list[tuple[int, int]]) -> str:
    shown = ", ".join(f"({a}, {b})" for a, b in pairs[:2])
    return f"{shown}, ..." if len(pairs) > 2 else shown


# ---------------------------------------------------------------------------- frequencies


def _unwrap(ms: np.ndarray, positions: Sequence[int], a: int, b: int) -> tuple[float, float, float]:
    """(inverse frequency, amplitude, angle at position 0) of the pair (a, b) from its
    angles along ``positions`` (which start 0, 1, then grow), unwrapped step by step."""
    ang = np.arctan2(ms[:, b, a], ms[:, a, a])
    amp = float(np.median(np.hypot(ms[:, a, a], ms[:, b, a])))
    offset = float(ang[0])
    omega = float(ang[1] - ang[0])
    for t in range(2, len(positions)):
        m = positions[t]
        predicted = offset + omega * m
        k = round((predicted - ang[t]) / (2 * math.pi))
        omega = (ang[t] + 2 * math.pi * k - offset) / m
    return omega, amp, offset


def _diagnose(got: np.ndarray, config: Mapping[str, Any], spec: Any, want: np.ndarray, tol: float) -> list[str]:
    """Which parameter reproduces the callable's frequencies."""
    r = spec.rotary_dim
    i = np.arange(len(got))
    candidates: list[tuple[str, np.ndarray]] = [
        (f"its frequencies are the plain ladder of rope_theta = {spec.rope_theta:g}: the scaling (rope_type "
         f"{spec.rope_type!r}) is ignored", spec.rope_theta ** (-2.0 * i / r)),
        ("its frequencies are the ladder of base 10000: rope_theta fell back to 10000 (a config migration "
         "that lost it?)", 10000.0 ** (-2.0 * i / r)),
    ]
    if spec.head_dim != r:
        candidates.append((f"the partial-rotary exponent uses head_dim = {spec.head_dim} instead of rotary_dim = {r}",
                           spec.rope_theta ** (-2.0 * i / spec.head_dim)))
    if spec.factor:
        candidates += [(f"the factor {spec.factor:g} is applied the wrong way (multiplied, not divided)",
                        want * spec.factor**2),
                       (f"the factor {spec.factor:g} is applied twice", want / spec.factor)]
    out = []
    if np.all(np.abs(got + want) <= tol * np.abs(want) + 1e-300):
        return ["the rotation turns the wrong way (every sin has the opposite sign): the minus of rotate_half "
                "is on the wrong half, or sin is negated"]
    rel = np.abs(got - want) / np.maximum(np.abs(want), 1e-300)
    for name, eps in (("float32", 2.0**-24), ("float16", 2.0**-11), ("bfloat16", 2.0**-8)):
        if rel.max() <= 4 * eps and rel.max() > tol:
            return [f"its frequencies are the config's to {name} precision (relative error {rel.max():.2g}): the "
                    f"angles or the inverse frequencies are formed in {name}; form them in float64 and round the "
                    "tables once"]
    for why, cand in candidates:
        if len(cand) == len(got) and np.all(np.abs(got - cand) <= tol * np.maximum(np.abs(cand), 1e-300) + 1e-300):
            out.append(why)
    if not out and len(got) > 1 and got[0] > 0 and got[1] > 0:
        base = (got[0] / got[1]) ** (r / 2.0)
        out.append(f"its effective base is {base:.6g} where the config's frequencies start at ratio "
                   f"{(want[0] / want[1]) ** (r / 2.0):.6g}")
    return out


# ---------------------------------------------------------------------------- precision


def _oracle(x: np.ndarray, positions: np.ndarray, geo: _Geometry) -> np.ndarray:
    """RoPE of ``x`` (rows t) at 30 digits; ``positions`` is ``(axes, T)``."""
    out = np.array(x, dtype=np.float64)
    with mpmath.workdps(30):
        factor = mpmath.mpf(geo.factor_exact)
        for t in range(x.shape[0]):
            for p, (a, b) in enumerate(geo.pairs):
                th = mpmath.mpf(int(positions[geo.axes[p], t])) * geo.inv_exact[p]
                c, s = mpmath.cos(th) * factor, mpmath.sin(th) * factor
                xa, xb = mpmath.mpf(float(x[t, a])), mpmath.mpf(float(x[t, b]))
                out[t, a] = float(xa * c - xb * s)
                out[t, b] = float(xa * s + xb * c)
    return out


def _adversarial(context: int, n: int = 24) -> np.ndarray:
    pts = {context - 1, context // 2, context // 2 + 1}
    k = 1
    while k < context:
        pts |= {k, k - 1, k + 1}
        k *= 2
    rng = np.random.default_rng(0)
    pts |= set(int(v) for v in rng.integers(0, context, n))
    return np.array(sorted(p for p in pts if 0 <= p < context), dtype=np.int64)


# ---------------------------------------------------------------------------- the entry point


def verify_rope(
    fn: Any,
    config: Mapping[str, Any],
    *,
    layout: str | None = None,
    dtype: str = "float32",
    context: int | None = None,
    framework: str | None = None,
    layer_type: str | None = None,
    trace: bool = True,
) -> VerifyReport:
    """Verify a user's RoPE implementation against a model config (see the module notes).

    Parameters
    ----------
    fn : callable, (callable, callable), or dict of them by layer type
        ``fn(x, position_ids) -> x_rotated`` with ``x`` of shape ``(batch, heads, seq,
        head_dim)`` and ``position_ids`` of shape ``(batch, seq)`` -- ``(3, batch, seq)``
        (t, h, w) for an M-RoPE config, ``(2, batch, seq)`` (h, w) for an axial one --
        in NumPy, PyTorch or JAX; or HF's pair ``(rotary_emb, apply_rotary_pos_emb)``
        (``cos, sin = rotary_emb(x, position_ids)``; ``q, k = apply_rotary_pos_emb(x, x,
        cos, sin)``). For a config with one rope entry per layer type, ``fn`` (or
        ``rotary_emb``) is given ``layer_type=`` when its signature takes it, or ``fn`` is
        a dict ``{layer_type: fn}``.
    config : Mapping
        The model's ``config.json`` as a dict (:func:`pe_symbolic.numeric.model_config`).
    layout : {"split", "interleaved", "interleaved-in-split-out"}, optional
        The pairing the model's weights expect: ``"split"`` (HF ``rotate_half``),
        ``"interleaved"`` (GPT-J, Meta's complex RoPE), ``"interleaved-in-split-out"`` (HF's
        ``apply_rotary_pos_emb_interleave``, DeepSeek V3 & co.). Default: what HF applies for
        the config's model type (:func:`pe_symbolic.numeric.describe`), else ``"split"``.
    dtype : {"float32", "bfloat16", "float16", "float64"}
        The dtype ``x`` is given to ``fn`` in.
    context : int, optional
        The largest position checked (default: the config's ``max_position_embeddings``,
        else 4096).
    framework : {"numpy", "torch", "jax"}, optional
        Detected from ``fn``'s module by default.
    layer_type : str, optional
        Check only this layer type of a per-layer-type config (default: every layer type
        with RoPE, one after the other).
    trace : bool, default True
        Trace ``fn`` symbolically (:mod:`pe_symbolic.audit.trace`); ``False`` reads its
        matrix numerically only.

    Returns
    -------
    VerifyReport

    Raises
    ------
    ValueError
        A bad ``dtype``, ``layout``, ``framework``, ``context`` or ``layer_type``, or a
        config the parser refuses (the message names the key, the value and what is
        allowed).
    TypeError
        ``fn`` is not callable (nor a pair or a dict of callables).

    Examples
    --------
    >>> import numpy as np
    >>> cfg = {"rope_theta": 10000.0, "head_dim": 4, "hidden_size": 16, "num_attention_heads": 4}
    >>> def wrong(x, position_ids):  # the minus on the wrong half
    ...     ang = position_ids[..., None] * np.array([1.0, 0.01])
    ...     c, s = np.cos(np.concatenate([ang, ang], -1)), np.sin(np.concatenate([ang, ang], -1))
    ...     return x * c[:, None] + np.concatenate([x[..., 2:], -x[..., :2]], -1) * s[:, None]
    >>> r = verify_rope(wrong, cfg, dtype="float64")
    >>> r.verdict, r.structure["method"], r.structure["verdict"]
    ('differs', 'traced', 'refuted')
    """
    if dtype not in _EPS:
        raise ValueError(f"dtype={dtype!r} is not allowed; use one of {', '.join(_EPS)}")
    if layout is not None and layout not in (*LAYOUTS, IN_SPLIT_OUT):
        raise ValueError(f"layout={layout!r} is not allowed; use 'split', 'interleaved', '{IN_SPLIT_OUT}' or None "
                         "(HF's layout for the config's model type)")
    if not isinstance(trace, bool):
        raise TypeError(f"trace={trace!r} must be True or False")
    if context is not None and not (isinstance(context, int) and not isinstance(context, bool) and context >= 4):
        raise ValueError(f"context={context!r} is not allowed; use an integer >= 4")
    if not isinstance(config, Mapping):
        raise TypeError(f"config must be a mapping (a model's config.json as a dict); got {type(config).__name__}")
    with warnings.catch_warnings():  # a key the parser does not know warns once, from parse_rope_config below
        warnings.simplefilter("ignore")
        try:
            described = describe(config, quiet=True)
        except (ValueError, TypeError):  # parse_rope_config below says what is wrong, for the layer type asked
            described = None
    if layout is None:
        hf = described.layout if described is not None else ""
        layout = (IN_SPLIT_OUT if hf.startswith("interleaved in, split out") else
                  "interleaved" if hf.startswith("interleaved pairs") else "split")
    if isinstance(fn, Mapping):
        if not fn or not all(callable(f) or isinstance(f, tuple) for f in fn.values()):
            raise TypeError("fn as a dict must map layer types to callables (or HF pairs)")
    kw = dict(layout=layout, dtype=dtype, context=context, framework=framework, trace=trace)
    if layer_type is None and described is not None:
        types = [lt for lt in described.layer_types_with_rope() if lt is not None]
        if types:
            subs = {lt: _verify_one(_pick(fn, lt), config, layer_type=lt, picked=isinstance(fn, Mapping), **kw)
                    for lt in types}
            verdict = max((r.verdict for r in subs.values()), key=_VERDICTS.index)
            notes = [f"per-layer-type config: layer types {', '.join(map(repr, types))} checked one by one"]
            skipped = [e.layer_type for e in described.layers if e.spec is None]
            if skipped:
                notes.append("no RoPE (NoPE), not checked: " + ", ".join(map(repr, skipped)))
            return VerifyReport(verdict, notes=notes, layers=subs)
    picked = isinstance(fn, Mapping)
    if picked:
        if layer_type is None:
            raise ValueError("fn is a dict by layer type, but the config has one rope entry for every layer; pass "
                             "a single fn")
        fn = _pick(fn, layer_type)
    return _verify_one(fn, config, layer_type=layer_type, picked=picked, **kw)


def _pick(fn: Any, layer_type: str) -> Any:
    if isinstance(fn, Mapping):
        if layer_type not in fn:
            raise ValueError(f"fn has no entry for layer_type={layer_type!r}; its keys are {sorted(fn)!r}")
        return fn[layer_type]
    return fn


def _verify_one(fn: Any, config: Mapping[str, Any], *, layout: str, dtype: str, context: int | None,
                framework: str | None, layer_type: str | None, trace: bool, picked: bool = False) -> VerifyReport:
    spec = parse_rope_config(config, layer_type=layer_type)
    if getattr(spec, "rotary_channels", None) == "trailing":
        # the structure below is R(theta) on the LEADING rotary_dim channels; checking a model that
        # rotates the last ones against it would prove or refute the wrong thing
        raise ValueError(f"config: layer type {spec.layer_type!r} rotates the LAST {spec.rotary_dim} of "
                         f"{spec.head_dim} channels (DeepSeek-V4), which verify_rope does not check yet; "
                         f"verify the rotation of x[..., -{spec.rotary_dim}:] with a config of rotary dim "
                         f"{spec.rotary_dim} (head_dim={spec.rotary_dim}) and the same frequencies")
    geo = _geometry(config, spec, "split" if layout == IN_SPLIT_OUT else layout, layer_type)
    d, r, pairs = geo.d, geo.r, geo.pairs
    if context is None:
        context = int(spec.max_position_embeddings or config.get("max_position_embeddings") or 4096)
    kind = _framework(fn, framework)
    call, given_lt = _call(fn, layer_type)
    if layout == IN_SPLIT_OUT:  # fn(Q x) against the split layout, Q interleaving the halves
        inner = call

        def call(x: Any, ids: Any) -> Any:
            return inner(_interleave_halves(x, geo.r, kind), ids)
    run = _caller(call, kind, dtype)
    eps = _EPS[dtype]
    want = geo.want
    report = VerifyReport("verified")
    if layout == IN_SPLIT_OUT:
        report.notes.append(f"layout {IN_SPLIT_OUT!r} (HF's apply_rotary_pos_emb_interleave): fn(Q x) is checked "
                            "against the split layout, Q putting slot i at 2i and slot i + r/2 at 2i + 1")
    if layer_type is not None and not given_lt and not picked:
        report.notes.append(f"layer type {layer_type!r}: fn takes no layer_type argument; it is called as it is")

    # 1. structure ------------------------------------------------------------------------
    ladder = [0, 1, 2, 3]
    m = 4
    while m < context:
        ladder.append(m)
        m *= 2
    ladder.append(context - 1)
    ms = _matrices(run, d, ladder, geo.n_axes)
    tol = max(64 * eps, 1e-12) * max(1.0, float(np.abs(ms).max()))
    pattern = _pattern(ms, tol)
    traced: _Traced | None = None
    trace_ms: np.ndarray | None = None
    fallbacks = []
    if trace:
        try:
            traced = _trace_symbolic(call, kind, dtype, geo, spec)
        except TraceError as exc:
            fallbacks.append(f"positions not symbolic: {exc}")
        if traced is None:
            try:
                traced, trace_ms = _trace_numeric_positions(call, kind, dtype, geo, ladder)
            except TraceError as exc:
                fallbacks.append(f"not traced at numeric positions either: {exc}")
    # the float output read numerically, with the pairs the trace found turning (a pair the
    # config never turns but fn does is then the frequency section's finding, not this one's)
    turning = geo.turning
    if traced is not None and traced.method == "traced" and traced.proof.verdict == "proved" and geo.factor == 1.0:
        turning = [pq for pq, th in zip(pairs, traced.theta) if not th.is_number]
    got, theta = _symbolic(ms, d, tol, turning)
    rot = _rotation(d, turning, theta)
    numeric_proof = check_identity(got, rot, timeout=30)
    struct: dict[str, Any] = {"layout": layout, "rotary_dim": r, "head_dim": d}
    if geo.n_axes > 1:
        struct["position_axes"] = f"{geo.kind}: position_ids of shape ({geo.n_axes}, batch, seq) ({', '.join(geo.axis_names)})"
    why: list[str] = []
    if traced is not None:
        struct["method"] = traced.method
        struct["traced_with"] = traced.how
        if fallbacks:
            struct["not_traced_symbolically"] = fallbacks[0]
        struct["verdict"] = traced.proof.verdict
        if traced.proof.verdict != "proved":
            why = traced.why or [f"the kernel: {traced.proof.verdict}"]
        else:
            # the trace is bound to fn's float behaviour: its matrices against the float reading
            tm = traced.matrices(ladder) if traced.matrices is not None else trace_ms
            assert tm is not None
            amp = float(max((abs(float(a)) for a in traced.amp), default=1.0)) if traced.amp else 1.0
            omega_max = float(np.max(np.abs(want))) if len(want) else 0.0
            bound = _cross_tolerance(ladder, eps, amp, omega_max)
            dev = np.abs(tm - ms).max(axis=(1, 2))
            off = np.nonzero(dev > bound)[0]
            if len(off):
                t = int(off[0])
                struct["verdict"] = "refused"
                why = [f"fn's float output departs from its traced graph at position {ladder[t]} (by {dev[t]:.3g} > "
                       f"{bound[t]:.3g}): fn computes something else on floats than on symbolic input"]
                if numeric_proof.verdict != "proved":
                    why += ["read numerically: " + w for w in _explain(got, rot, pattern, d, r, layout)]
            elif numeric_proof.verdict != "proved":
                struct["verdict"] = "refused"
                why = ["its traced graph is R(m) but its float output, read numerically, is not: "
                       + "; ".join(_explain(got, rot, pattern, d, r, layout))]
    else:
        struct["method"] = "read numerically"
        struct["verdict"] = numeric_proof.verdict
        if fallbacks:
            struct["not_traced"] = "; ".join(fallbacks)
        elif not trace:
            struct["not_traced"] = "trace=False"
        if numeric_proof.verdict != "proved":
            why = _explain(got, rot, pattern, d, r, layout)
    how = {"traced": "traced: fn(x, m) with x and m symbolic, for every integer m",
           "traced at numeric positions": "traced with x symbolic at positions " + ", ".join(map(str, ladder[:5])) + ", ...",
           "read numerically": "read numerically: its matrix at positions " + ", ".join(map(str, ladder[:5])) + ", ..."}
    how_text = how[struct["method"]]
    if struct["verdict"] == "proved":
        struct["summary"] = (f"proved: fn(x, m) = R(theta(m)) x with pairs {_pairs_text(pairs)} ({layout}, {r} of {d} "
                             f"dims rotated; the angles are checked next) -- {how_text}")
        if struct["method"] != "traced" and fallbacks:
            struct["summary"] += f" ({fallbacks[-1]})"
    else:
        if layout == IN_SPLIT_OUT:
            why = why + [f"layout {IN_SPLIT_OUT!r}: the rotation must read pairs (2i, 2i + 1) and write them to "
                         "(i, i + r/2), as HF's apply_rotary_pos_emb_interleave does; plain rotate_half reads "
                         "(i, i + r/2) (pass layout='split' if the weights are in that order)"]
        struct["why"] = why
        by = ("its float output is not its traced graph" if struct["verdict"] == "refused"
              else f"{struct['verdict']} by the kernel")
        struct["summary"] = f"differs from R(m) ({by}; {how_text})"
        report.verdict = "differs"
    report.structure = struct

    # 2. frequencies and scaling ------------------------------------------------------------
    if struct["verdict"] == "proved":
        report.frequencies = _frequencies(ms, ladder, geo, spec, config, eps, dtype, traced, run)
        if report.frequencies.get("why"):
            report.verdict = "differs"

    # 3. precision ----------------------------------------------------------------------------
    if report.verdict == "verified":
        report.precision = _precision(run, geo, context, dtype, eps, traced)
        if "first_position_out_of_bound" in report.precision:
            report.verdict = "out of bound"
    return report


def _frequencies(ms: np.ndarray, ladder: Sequence[int], geo: _Geometry, spec: Any, config: Mapping[str, Any],
                 eps: float, dtype: str, traced: _Traced | None, run: Callable) -> dict[str, Any]:
    want, factor = geo.want, geo.factor
    # a correct table's angle is within ~eps of m*omega (rounded tables) and the inverse
    # frequency itself may be stored in the dtype: 16 roundoffs of the dtype, relative
    ftol = 16 * eps
    why: list[str] = []
    freq: dict[str, Any] = {}
    exact = traced is not None and traced.method == "traced"
    if exact:
        assert traced is not None
        omegas, offsets = [], []
        for p, th in enumerate(traced.theta):
            syms = [s for s in traced.m0 if s in th.free_symbols]
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
            k = traced.m0.index(syms[0])
            if k != geo.axes[p]:
                why.append(f"pair {p} turns with position axis {geo.axis_names[k]} where the config assigns "
                           f"{geo.axis_names[geo.axes[p]]} ({_axes_text(spec)})")
                break
            w = sp.diff(th, syms[0])
            if not w.is_number:
                why.append(f"pair {p}: its angle {sp.sstr(th)} is not linear in the position")
                break
            omegas.append(float(w))
            offsets.append(float(th.xreplace({syms[0]: 0})))
        if not why:
            om = np.array(omegas)
            rel = np.abs(om - want) / np.maximum(np.abs(want), 1e-300)
            freq.update({"method": "traced: each pair's angle as an exact expression of m",
                         "max_relative_error": float(rel.max()) if len(rel) else 0.0,
                         "roundoffs": float(rel.max() / eps) if len(rel) else 0.0})
            off = [o / w if w else math.inf for o, w in zip(offsets, omegas)]
            if any(o != 0 for o in offsets):
                p = int(np.argmax(np.abs(offsets)))
                why.append(f"at position 0 the rotation is not the identity: the angle of pair {p} is "
                           f"{sp.sstr(traced.theta[p])}, positions are offset by {off[p]:.6g} (off-by-one position_ids?)")
            bad = np.nonzero(rel > ftol)[0]
            if len(bad):
                why.append(_freq_text(int(bad[0]), om, want, rel, eps, dtype))
                why += _diagnose(om, config, spec, want, ftol)
            amps = [float(a) for a in traced.amp]
            if max(abs(a - factor) for a in amps) > 16 * eps * max(1.0, factor):
                a = amps[int(np.argmax([abs(a - factor) for a in amps]))]
                why.append(f"attention factor: the rotation is scaled by {a:.6g}, the config means {factor:.6g} "
                           f"(rope_type {spec.rope_type!r}: mscale / attention_factor)")
            freq["attention_factor"] = float(np.median(amps)) if amps else 1.0
            freq["expected_attention_factor"] = factor
    # the float output: angles unwrapped along the ladder (every axis at m)
    omegas_f, amps_f, offsets_f = [], [], []
    for a, b in geo.pairs:
        w, A, off0 = _unwrap(ms, ladder, a, b)
        omegas_f.append(w)
        amps_f.append(A)
        offsets_f.append(off0)
    om_f = np.array(omegas_f)
    rel_f = np.abs(om_f - want) / np.maximum(np.abs(want), 1e-300)
    why_f: list[str] = []
    if max((abs(o) for o in offsets_f), default=0.0) > 8 * eps * math.pi:
        why_f.append("at position 0 the rotation is not the identity: positions are offset "
                     f"(angle {offsets_f[int(np.argmax(np.abs(offsets_f)))]:.3g} at m = 0; off-by-one position_ids?)")
    bad = np.nonzero(rel_f > ftol)[0]
    if len(bad):
        why_f.append(_freq_text(int(bad[0]), om_f, want, rel_f, eps, dtype))
        why_f += _diagnose(om_f, config, spec, want, ftol)
    amp_f = float(np.median(amps_f)) if amps_f else 1.0
    if abs(amp_f - factor) > 16 * eps * max(1.0, factor):
        why_f.append(f"attention factor: the rotation is scaled by {amp_f:.6g}, the config means {factor:.6g} "
                     f"(rope_type {spec.rope_type!r}: mscale / attention_factor)")
    if geo.n_axes > 1 and not why and not why_f and not exact:
        why_f += _axes_numeric(run, geo, spec, ladder, eps)
    if not exact:
        freq.update({"method": "read from the float output", "max_relative_error": float(rel_f.max()),
                     "roundoffs": float(rel_f.max() / eps), "attention_factor": amp_f,
                     "expected_attention_factor": factor})
        why += why_f
    elif not why and why_f:
        why += ["read from its float output (its traced graph matches): " + w for w in why_f]
    freq["float_output_max_relative_error"] = float(rel_f.max())
    if why:
        freq["why"] = why
        freq["summary"] = "differ from the config's"
    else:
        src = "traced exactly, and" if exact else ""
        freq["summary"] = (f"match the oracle ({src} read from the float output: max relative error "
                           f"{rel_f.max():.3g}, {rel_f.max() / eps:.3g} roundoffs of {dtype}); attention factor "
                           f"{freq['attention_factor']:.6g}").replace("( read", "(read")
        if exact:
            freq["summary"] += f"; traced frequencies within {freq['roundoffs']:.3g} roundoffs"
        if geo.n_axes > 1:
            freq["summary"] += f"; every pair turns with its {geo.kind} axis ({_axes_text(spec)})"
    return freq


def _freq_text(p: int, got: np.ndarray, want: np.ndarray, rel: np.ndarray, eps: float, dtype: str) -> str:
    if want[p] == 0:
        return f"pair {p}: inverse frequency {got[p]:.9g} where the config means 0 (this pair must not turn)"
    return (f"pair {p}: inverse frequency {got[p]:.9g} where the config means {want[p]:.9g} "
            f"({rel[p] / eps:.3g} roundoffs of {dtype} off)")


def _axes_text(spec: Any) -> str:
    if spec.rope_type == "axial":
        return "axial: the first half of the pairs with h, the second with w"
    return f"mrope_section {list(spec.mrope_section)}" + (", interleaved" if spec.mrope_interleaved else "")


def _axes_numeric(run: Callable, geo: _Geometry, spec: Any, ladder: Sequence[int], eps: float) -> list[str]:
    """Which position axis turns each pair, read from the float output with one axis moved
    at a time (the others at 0)."""
    probe = [1, ladder[-1]]
    moves = np.zeros((len(geo.pairs), geo.n_axes), dtype=bool)
    for k in range(geo.n_axes):
        mk = _matrices(run, geo.d, probe, geo.n_axes, axis=k)
        for p, (a, b) in enumerate(geo.pairs):
            block = mk[:, [a, b]][:, :, [a, b]]
            moves[p, k] = bool((np.abs(block - geo.factor * np.eye(2)) > 64 * eps * max(1.0, geo.factor)).any())
    for p in range(len(geo.pairs)):
        turned = [geo.axis_names[k] for k in range(geo.n_axes) if moves[p, k]]
        if turned != [geo.axis_names[geo.axes[p]]]:
            return [f"pair {p} turns with position axis {', '.join(turned) or 'none'} where the config assigns "
                    f"{geo.axis_names[geo.axes[p]]} ({_axes_text(spec)})"]
    return []


def _precision(run: Callable, geo: _Geometry, context: int, dtype: str, eps: float,
               traced: _Traced | None) -> dict[str, Any]:
    positions = _adversarial(context)
    rng = np.random.default_rng(1)
    x = _cast(rng.standard_normal((len(positions), geo.d)), dtype)
    per_axis = np.stack([positions] + [rng.permutation(positions) for _ in range(geo.n_axes - 1)])
    ids = per_axis[:, None, :] if geo.n_axes > 1 else per_axis
    out = run(x[None, None], ids)[0, 0]
    exact = _oracle(x, per_axis, geo)
    err = np.abs(out - exact).max(axis=1)
    biggest = per_axis.max(axis=0)
    bound, how = _bound(x, biggest, geo, dtype, eps, context)
    order = np.argsort(biggest, kind="stable")  # first in the order of the largest position
    over = [int(t) for t in order if err[t] > bound[t]]
    prec: dict[str, Any] = {"positions": int(len(positions)), "max_error": float(err.max()), "context": context,
                            "bound": how}
    def at(t: int) -> str:
        return (str(int(positions[t])) if geo.n_axes == 1 else
                f"({', '.join(geo.axis_names)}) = ({', '.join(str(int(v)) for v in per_axis[:, t])})")

    if over and eps >= _EPS["float32"]:
        # HF's reference recipe forms the angles in float32 (autocast off) for every model dtype:
        # an implementation within that recipe's bound is as accurate as the reference
        hf_bound, hf_how = _bound(x, biggest, geo, dtype, eps, context, angle_dtype="float32")
        if not any(err[t] > hf_bound[t] for t in order):
            t = over[0]
            prec["bound"] = hf_how
            prec["float64_angle_bound"] = how
            prec["beyond_float64_angle_bound_from"] = (int(positions[t]) if geo.n_axes == 1
                                                       else [int(v) for v in per_axis[:, t]])
            prec["summary"] = (f"within the bound of HF's recipe (angles formed in float32) at {len(positions)} "
                               f"adversarial positions up to {context - 1}: max error {err.max():.3g}; beyond "
                               f"the float64-angle bound from position {at(t)} (error {err[t]:.3g} > "
                               f"{bound[t]:.3g})")
            prec["why"] = ["as accurate as HF's reference (its angles in float32); forming the angles in float64 "
                           "and rounding the tables once would keep the error within "
                           f"{float(bound[order[-1]]):.3g} up to position {context - 1}"]
            return prec
    if over:
        t = over[0]
        where = at(t)
        prec["first_position_out_of_bound"] = int(positions[t]) if geo.n_axes == 1 else [int(v) for v in per_axis[:, t]]
        prec["summary"] = (f"out of bound from position {where}: error {err[t]:.3g} > bound "
                           f"{bound[t]:.3g} ({dtype}); max error {err.max():.3g} up to {context - 1}")
        low = [dt for dt in (traced.angle_dtypes if traced is not None else ()) if dt != "float64"]
        if low:
            prec["why"] = [f"its traced graph takes cos/sin of angles in {', '.join(low)}: the angle position x "
                           "frequency loses digits as the position grows; form it in float64 and round the tables once"]
        else:
            prec["why"] = ["angles formed in a low precision (float16/bfloat16/float32 position x frequency) "
                           "lose digits as the position grows; form them in float64 and round the tables once"]
    else:
        prec["summary"] = (f"within bound at {len(positions)} adversarial positions up to {context - 1}: max "
                           f"error {err.max():.3g} (bound {how.split(' (')[0]})")
    return prec


def _pow2(v: float) -> float:
    """The smallest power of two >= v (rounding bounds scale exactly by powers of two)."""
    return 2.0 ** math.ceil(math.log2(v)) if v > 0 else 1.0


@functools.lru_cache(maxsize=64)
def _gappa_rotation(dtype: str, x_max: float, table_max: float, u: float) -> float | None:
    """The smallest of 3, 4, 6 units of ``u * x_max * table_max`` that Gappa proves bounds
    one rotated coordinate (:func:`~pe_symbolic.audit.gappa.rotation_script`), else None."""
    for k in (3 * (1 + 1e-9), 4, 6):  # 3u (a hair above: the script's decimals must not round below it)
        b = k * u * x_max * table_max
        if run_gappa(rotation_script(dtype, x_max, table_max, b)).proved:
            return b
    return None


def _bound(x: np.ndarray, positions: np.ndarray, geo: _Geometry, dtype: str, eps: float,
           context: int, angle_dtype: str = "float64") -> tuple[np.ndarray, str]:
    """The error bound of a recipe for each row: tables rounded once to the dtype, one
    product each and one difference in it, the angle ``position x frequency`` formed in
    ``angle_dtype`` (float64: the most accurate recipe; float32: HF's reference recipe, which
    forms its angles in float32 whatever the model's dtype). With Gappa: the rounding part
    proved by Gappa for each row's power-of-two range of ``x`` and of the tables, the angle's
    relative error ``gamma`` proved by Gappa (:func:`~pe_symbolic.audit.gappa.angle_script`),
    joined by ``|cos a - cos b|, |sin a - sin b| <= |a - b|``. Without Gappa, the first-order
    estimate."""
    omega = float(np.max(geo.want, initial=0.0))
    table = max(geo.factor, 1.0)
    rows = np.abs(x).max(axis=1)
    t_max = max(context - 1, 1)
    gamma = angle_gamma(angle_dtype, angle_dtype, t_max)
    recipe = (f"tables rounded once to the dtype, one product and one difference in it, angles formed in "
              f"{angle_dtype}")
    first = rows * table * (6 * eps + 2 * gamma * positions * omega) + 1e-300
    if gappa_path() is None:
        return first, f"first-order estimate ({recipe}; gappa is not installed)"
    omin = float(np.min(geo.want[geo.want > 0], initial=1.0))
    angle_ok = 0 < omin <= omega <= 1 and run_gappa(angle_script(angle_dtype, angle_dtype, t_max, omin,
                                                                  gamma)).proved
    out = np.empty(len(rows))
    for t, r in enumerate(rows):
        xp, tp = _pow2(float(r)), _pow2(table)
        rb = _gappa_rotation(dtype, xp, tp, eps)
        if rb is None or not angle_ok:
            return first, f"first-order estimate ({recipe}; Gappa did not prove it)"
        out[t] = rb + 2 * xp * tp * gamma * positions[t] * omega
    return out + 1e-300, (f"proved by Gappa ({recipe}, for each row's power-of-two range of x; the angle's "
                          "relative error; joined by |cos a - cos b| <= |a - b|)")


def _cast(x: np.ndarray, dtype: str) -> np.ndarray:
    """``x`` rounded to ``dtype`` (kept as float64 values), so the oracle sees the input ``fn`` sees."""
    if dtype == "bfloat16":
        import ml_dtypes

        return x.astype(ml_dtypes.bfloat16).astype(np.float64)
    return x.astype(dtype).astype(np.float64)
