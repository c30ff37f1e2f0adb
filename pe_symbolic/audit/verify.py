r"""Your implementation, verified: a user's RoPE function against the specification.

:func:`verify_rope` takes the RoPE a user actually wrote -- a NumPy, PyTorch or JAX callable
``fn(x, position_ids) -> x_rotated`` in Hugging Face shapes, or HF's own pair
``(rotary_emb, apply_rotary_pos_emb)`` -- and a model config, and answers three questions:

1. **Structure** (proved by the kernel). RoPE is linear in ``x``, so ``fn`` applied to the
   basis vectors at a position ``m`` *is* its matrix ``M(m)``. Which slots it mixes (the
   pairing), with which signs, and which slots it passes through are read from ``M`` at
   several positions; that pattern, written with symbolic ``cos(theta_p)``, ``sin(theta_p)``,
   is checked by :func:`pe_symbolic.check_identity` against :math:`R(m)` of the config's
   layout and rotary dims (``proved``), or refuted, with the first slot where they differ and
   what usually causes it (a sign flip, halves not swapped, the other layout, the wrong
   partial pairing).
2. **Frequencies and scaling**. Each pair's angle ``atan2(M[b, a], M[a, a])`` at positions
   ``0, 1, 2, 4, ...`` unwrapped gives the callable's effective inverse frequency, its
   length the attention factor; both are compared with the independent oracle
   (:func:`pe_symbolic.reference.rope_frequencies`), in units of the dtype's roundoff, and a
   mismatch is explained by the parameter that reproduces it (the scaling ignored,
   ``rope_theta`` back to 10000, the factor applied the wrong way, a partial-rotary
   exponent over the head dim, a position offset).
3. **Precision**. ``fn`` on a random ``x`` at adversarial positions up to the context,
   against the oracle at 30 digits, within a first-order bound for its dtype; the first
   position where it leaves the bound.

The :class:`VerifyReport` says ``verified``, ``differs`` (where and why), ``out of bound``
(right structure and frequencies, too inaccurate) -- as text, Markdown or JSON.

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
>>> pe.verify_rope(rope, cfg, dtype="float64").verdict
'verified'
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import mpmath
import numpy as np
import sympy as sp

from .. import reference
from ..numeric.config import parse_rope_config
from ..proof import check_identity

__all__ = ["VerifyReport", "verify_rope"]

_EPS = {"float64": 2.0**-53, "float32": 2.0**-24, "bfloat16": 2.0**-8, "float16": 2.0**-11}
LAYOUTS = ("split", "interleaved")


@dataclass
class VerifyReport:
    """What :func:`pe_symbolic.verify_rope` found. ``verdict`` is ``"verified"``, ``"differs"`` or
    ``"out of bound"``; each section holds its findings and a one-line ``summary``."""

    verdict: str
    structure: dict[str, Any] = field(default_factory=dict)
    frequencies: dict[str, Any] = field(default_factory=dict)
    precision: dict[str, Any] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    def to_text(self) -> str:
        lines = [f"verify_rope: {self.verdict.upper()}"]
        for name in ("structure", "frequencies", "precision"):
            sec = getattr(self, name)
            if sec:
                lines.append(f"  {name}: {sec.get('summary', '')}")
                for why in sec.get("why", []):
                    lines.append(f"    - {why}")
        lines += [f"  note: {n}" for n in self.notes]
        return "\n".join(lines)

    def to_markdown(self) -> str:
        out = [f"**verify_rope: {self.verdict}**", ""]
        for name in ("structure", "frequencies", "precision"):
            sec = getattr(self, name)
            if sec:
                out.append(f"- **{name}**: {sec.get('summary', '')}")
                out += [f"  - {why}" for why in sec.get("why", [])]
        out += [f"- note: {n}" for n in self.notes]
        return "\n".join(out)

    def to_json(self) -> str:
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


def _caller(fn: Any, framework: str, dtype: str) -> Callable[[np.ndarray, np.ndarray], np.ndarray]:
    """``fn`` as a function of NumPy arrays (x in float64 values, positions int64) returning
    float64: the arrays are converted to the framework and the dtype first."""
    if isinstance(fn, tuple):
        if len(fn) != 2 or not all(callable(f) for f in fn):
            raise TypeError("fn as a tuple must be HF's pair (rotary_emb, apply_rotary_pos_emb)")
        rotary_emb, apply = fn

        def call(x: Any, ids: Any) -> Any:
            cos, sin = rotary_emb(x, ids)
            return apply(x, x, cos, sin)[0]
    elif callable(fn):
        call = fn
    else:
        raise TypeError(f"fn={fn!r} is not callable (a function fn(x, position_ids), or HF's pair)")
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


def _matrices(run: Callable, d: int, positions: Sequence[int]) -> np.ndarray:
    """``M[t]`` (d x d) of ``fn`` at each position: ``fn`` applied to the basis vectors,
    one per head, all positions in one call."""
    x = np.zeros((1, d, len(positions), d))
    for j in range(d):
        x[0, j, :, j] = 1.0
    ids = np.asarray(positions, dtype=np.int64)[None, :]
    out = run(x, ids)
    if out.shape != x.shape:
        raise ValueError(f"fn returned shape {out.shape} for x of shape {x.shape}; it must return x's shape")
    return np.transpose(out[0], (1, 2, 0))  # [t, row, col]


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
                row.append(sp.Integer(1) if np.allclose(v, 1, atol=tol) else sp.Symbol(f"m{r}_{c}"))
                continue
            p = owner.get(c, owner.get(r))
            if p is None:
                row.append(sp.Symbol(f"m{r}_{c}"))
                continue
            a, b = pairs[p]
            cos_like, sin_like = ms[:, a, a], ms[:, b, a]
            if np.allclose(v, cos_like, atol=tol) and r == c:
                row.append(sp.cos(theta[p]))
            elif np.allclose(v, sin_like, atol=tol):
                row.append(sp.sin(theta[p]))
            elif np.allclose(v, -sin_like, atol=tol):
                row.append(-sp.sin(theta[p]))
            elif np.allclose(v, cos_like, atol=tol):
                row.append(sp.cos(theta[p]))
            elif np.allclose(v, -cos_like, atol=tol):
                row.append(-sp.cos(theta[p]))
            elif np.allclose(v, cos_like - sin_like, atol=tol):
                row.append(sp.cos(theta[p]) - sp.sin(theta[p]))
            elif np.allclose(v, cos_like + sin_like, atol=tol):
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
                why.append(f"first difference at output slot {r}, input slot {c}: {sp.sstr(got[r, c])} where R(m) "
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


def _oracle(x: np.ndarray, positions: np.ndarray, pairs: list[tuple[int, int]], inv: Sequence[Any],
            factor: Any) -> np.ndarray:
    out = np.array(x, dtype=np.float64)
    with mpmath.workdps(30):
        for t, m in enumerate(positions):
            for p, (a, b) in enumerate(pairs):
                th = mpmath.mpf(int(m)) * inv[p]
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
) -> VerifyReport:
    """Verify a user's RoPE implementation against a model config (see the module notes).

    Parameters
    ----------
    fn : callable or (callable, callable)
        ``fn(x, position_ids) -> x_rotated`` with ``x`` of shape ``(batch, heads, seq,
        head_dim)`` and ``position_ids`` of shape ``(batch, seq)`` (NumPy, PyTorch or JAX),
        or HF's pair ``(rotary_emb, apply_rotary_pos_emb)`` (``cos, sin = rotary_emb(x,
        position_ids)``; ``q, k = apply_rotary_pos_emb(x, x, cos, sin)``).
    config : Mapping
        The model's ``config.json`` as a dict (:func:`pe_symbolic.numeric.model_config`).
    layout : {"split", "interleaved"}, optional
        The pairing the model's weights expect; default ``"split"`` (HF ``rotate_half``).
    dtype : {"float32", "bfloat16", "float16", "float64"}
        The dtype ``x`` is given to ``fn`` in.
    context : int, optional
        The largest position checked (default: the config's ``max_position_embeddings``,
        else 4096).
    framework : {"numpy", "torch", "jax"}, optional
        Detected from ``fn``'s module by default.
    layer_type : str, optional
        For per-layer-type configs.

    Returns
    -------
    VerifyReport
    """
    if dtype not in _EPS:
        raise ValueError(f"dtype={dtype!r} is not allowed; use one of {', '.join(_EPS)}")
    layout = "split" if layout is None else layout
    if layout not in LAYOUTS:
        raise ValueError(f"layout={layout!r} is not allowed; use 'split' or 'interleaved'")
    spec = parse_rope_config(config, layer_type=layer_type)
    d, r = spec.head_dim, spec.rotary_dim
    if context is None:
        context = int(config.get("max_position_embeddings") or 4096)
    if not (isinstance(context, int) and context >= 4):
        raise ValueError(f"context={context!r} must be an integer >= 4")
    kind = _framework(fn, framework)
    run = _caller(fn, kind, dtype)
    eps = _EPS[dtype]
    inv_exact, factor_exact = reference.rope_frequencies(config, layer_type=layer_type, dps=40)
    want = np.array([float(v) for v in inv_exact])
    factor = float(factor_exact)
    report = VerifyReport("verified")

    # 1. structure ------------------------------------------------------------------------
    ladder = [0, 1, 2, 3]
    m = 4
    while m < context:
        ladder.append(m)
        m *= 2
    ladder.append(context - 1)
    ms = _matrices(run, d, ladder)
    tol = max(64 * eps, 1e-12) * max(1.0, float(np.abs(ms).max()))
    pattern = _pattern(ms, tol)
    pairs = _expected_pairs(r, layout)
    got, theta = _symbolic(ms, d, tol, pairs)
    rot = _rotation(d, pairs, theta)
    proof = check_identity(got, rot, timeout=30)
    struct = {"layout": layout, "rotary_dim": r, "head_dim": d, "verdict": proof.verdict}
    if proof.verdict == "proved":
        struct["summary"] = (f"proved: fn(x, m) = R(theta(m)) x with pairs {_pairs_text(pairs)} ({layout}, {r} of {d} dims "
                             "rotated; the angles are checked next), its matrix read at positions " + ", ".join(map(str, ladder[:5])) + ", ...")
    else:
        struct["why"] = _explain(got, rot, pattern, d, r, layout)
        struct["summary"] = f"differs from R(m) ({proof.verdict} by the kernel)"
        report.verdict = "differs"
    report.structure = struct

    # 2. frequencies and scaling ------------------------------------------------------------
    if proof.verdict == "proved":
        omegas, amps, offsets = [], [], []
        for a, b in pairs:
            w, A, off = _unwrap(ms, ladder, a, b)
            omegas.append(w)
            amps.append(A)
            offsets.append(off)
        omegas_a = np.array(omegas)
        rel = np.abs(omegas_a - want) / np.maximum(np.abs(want), 1e-300)
        # a correct table's angle is within ~eps of m*omega (rounded tables) and the inverse
        # frequency itself may be stored in the dtype: 16 roundoffs of the dtype, relative
        ftol = 16 * eps
        why = []
        if max(abs(o) for o in offsets) > 8 * eps * math.pi:
            why.append("at position 0 the rotation is not the identity: positions are offset "
                       f"(angle {offsets[int(np.argmax(np.abs(offsets)))]:.3g} at m = 0; off-by-one position_ids?)")
        bad = np.nonzero(rel > ftol)[0]
        if len(bad):
            why.append(f"pair {int(bad[0])}: inverse frequency {omegas_a[bad[0]]:.9g} where the config means "
                       f"{want[bad[0]]:.9g} ({rel[bad[0]] / eps:.3g} roundoffs of {dtype} off)")
            why += _diagnose(omegas_a, config, spec, want, ftol)
        amp = float(np.median(amps))
        if abs(amp - factor) > 16 * eps * max(1.0, factor):
            why.append(f"attention factor: the rotation is scaled by {amp:.6g}, the config means {factor:.6g} "
                       f"(rope_type {spec.rope_type!r}: mscale / attention_factor)")
        freq = {"max_relative_error": float(rel.max()), "roundoffs": float(rel.max() / eps),
                "attention_factor": amp, "expected_attention_factor": factor}
        if why:
            freq["why"] = why
            freq["summary"] = "differ from the config's"
            report.verdict = "differs"
        else:
            freq["summary"] = (f"match the oracle: max relative error {rel.max():.3g} ({rel.max() / eps:.3g} "
                               f"roundoffs of {dtype}); attention factor {amp:.6g}")
        report.frequencies = freq

    # 3. precision ----------------------------------------------------------------------------
    if report.verdict == "verified":
        positions = _adversarial(context)
        rng = np.random.default_rng(1)
        x = rng.standard_normal((len(positions), d))
        x = _cast(x, dtype)
        out = run(x[None, None], positions[None, :])[0, 0]
        exact = _oracle(x, positions, pairs, inv_exact, factor_exact)
        err = np.abs(out - exact).max(axis=1)
        scale = np.abs(x).max(axis=1) * max(factor, 1.0)
        # first order: cos/sin rounded to the dtype, a product and a sum in it, the angle
        # formed in float64 (2**-52 relative)
        bound = scale * (6 * eps + positions * float(want.max()) * 2.0**-51) + 1e-300
        over = np.nonzero(err > bound)[0]
        prec = {"positions": int(len(positions)), "max_error": float(err.max()), "context": context}
        if len(over):
            t = int(over[0])
            prec["first_position_out_of_bound"] = int(positions[t])
            prec["summary"] = (f"out of bound from position {int(positions[t])}: error {err[t]:.3g} > bound "
                               f"{bound[t]:.3g} ({dtype}); max error {err.max():.3g} up to {context - 1}")
            prec["why"] = ["angles formed in a low precision (float16/bfloat16/float32 position x frequency) "
                           "lose digits as the position grows; form them in float64 and round the tables once"]
            report.verdict = "out of bound"
        else:
            prec["summary"] = (f"within bound at {len(positions)} adversarial positions up to {context - 1}: max "
                               f"error {err.max():.3g}")
        report.precision = prec
    return report


def _cast(x: np.ndarray, dtype: str) -> np.ndarray:
    """``x`` rounded to ``dtype`` (kept as float64 values), so the oracle sees the input ``fn`` sees."""
    if dtype == "bfloat16":
        import ml_dtypes

        return x.astype(ml_dtypes.bfloat16).astype(np.float64)
    return x.astype(dtype).astype(np.float64)
