r"""Tolerances a kernel test can use, derived from the rounding sequence, and engines' claims checked.

:func:`tolerance` turns the audit's bounds into the number a test compares with: for one model
config, recipe (how the kernel rounds: :mod:`~pe_symbolic.audit.recipes`), activation dtype and
context, the largest error of a rotated element (``metric="output"``), of a score
``<R(m) q, R(n) k> / h`` (``"score"``), of a cos / sin table entry (``"table"``) or of an angle
(``"angle"``), over every position below the context and every input of the given norm --
with the bound in units of the compared quantity's last place and the Coq theorem that states
it (:func:`pe_symbolic.audit.coq_bounds.tolerance_theorems`). It replaces a hand-tuned ``atol``::

    tol = pe.tolerance("llama-3.1-8b", recipe="hf", dtype="bfloat16", context=131072)
    torch.testing.assert_close(out, ref, atol=tol.atol(q), rtol=0)

where ``ref`` is the exact rotation (float64, or :func:`pe_symbolic.reference.apply_rope`) and
``q`` the input (the bound scales with its largest pair norm).

:func:`check_claim` checks what an engine states about its kernel ("within 2 ULP of
``max(|x cos|, |y sin|)``", "one ULP", "bitwise") against the recipes' rounding sequences:
``holds`` when the bound derived from them is within the claim, ``refuted`` with the inputs
that break it, ``undecided`` when neither.

>>> tol = tolerance("llama-3.1-8b", recipe="hf", dtype="bfloat16", context=131072)
>>> f"{tol.value:.3g}", f"{tol.ulps:.2g}", tol.theorem
('0.0229', '2.9', 'pe_tol_llama_3_1_8b_hf_bfloat16_output')
>>> tolerance("llama-3.1-8b", recipe="vllm", dtype="bfloat16", context=131072).value < tol.value
True
"""

from __future__ import annotations

import math
import numbers
import re
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .._validate import check_choice
from .recipes import ACT_DTYPES, Recipe, get_recipe

__all__ = ["CLAIM_KINDS", "METRICS", "ClaimCheck", "Tolerance", "check_claim", "tolerance"]

#: What a tolerance bounds.
METRICS = ("output", "score", "table", "angle")


def _ident(s: str) -> str:
    return re.sub(r"\W", "_", s)


def _ulp(v: float, dtype: str) -> float:
    """The ulp of a value of magnitude ``v`` in ``dtype`` (``2**(floor(log2 v) - p + 1)``)."""
    from .emulate import PRECISION

    return math.ldexp(1.0, math.frexp(max(v, 2.0**-1000))[1] - PRECISION[dtype])


@dataclass(frozen=True)
class Tolerance:
    """A proved bound a test can compare with (see the module docstring).

    ``value`` is the bound for inputs of pair norm ``norm`` (output: the length of a rotated
    pair's error vector, so also any one element's error); ``ulps`` is ``value`` in units of
    ``ulp``, the last place of the largest value compared (output: ``attention factor * norm``
    in ``dtype``; score: its square; table: the attention factor; angle: the largest angle in
    float32). ``theorem`` names the Coq theorem that states it
    (:func:`pe_symbolic.audit.coq_bounds.tolerance_theorems` states it,
    :func:`~pe_symbolic.audit.coq_bounds.check_bounds` has Coq check it). The score's theorem
    bounds one pair by ``slope * D + base`` for a difference ``D`` of the two positions' angle
    errors (``parts``); the tolerance is its mean over pairs at each pair's ``d_i``, and the
    ``d_i`` are derived (:func:`pe_symbolic.audit.bounds.score_bound`), not stated in Coq.
    """

    value: float
    metric: str
    config: str
    recipe: Recipe
    dtype: str
    context: int
    norm: float
    max_offset: int
    ulp: float
    ulps: float
    theorem: str
    parts: dict[str, float] = field(default_factory=dict)
    sequence: Any = field(default=None, repr=False, compare=False)

    def __float__(self) -> float:
        return self.value

    def atol(self, x: Any = None, *, layout: str = "split") -> float:
        """The tolerance for the input ``x`` (a NumPy / torch array whose last axis holds
        ``2 h`` rotary channels in ``layout``): ``value`` scaled by ``x``'s largest pair norm
        over ``norm`` (the bound is linear in the input's norm; its subnormal part is not, and
        is kept). Without ``x``, ``value``.

        >>> tol = tolerance("llama-3.1-8b", recipe="hf", dtype="float32", context=4096)
        >>> tol.atol(np.full((2, 128), 0.5)) == tol.value * (0.5 * 2**0.5)
        True
        """
        if x is None:
            return self.value
        check_choice("layout", layout, ("split", "interleaved"))
        a = np.asarray(x.detach().float().cpu().numpy() if hasattr(x, "detach") else x, dtype=np.float64)
        if a.ndim == 0 or a.shape[-1] % 2:
            raise ValueError(f"x must have an even last axis (rotary channels in pairs); got shape {a.shape}")
        h = a.shape[-1] // 2
        if layout == "split":
            xa, xb = a[..., :h], a[..., h:]
        else:
            xa, xb = a[..., 0::2], a[..., 1::2]
        n = float(np.max(np.hypot(xa, xb))) if a.size else 0.0
        if not math.isfinite(n):
            raise ValueError("x holds a non-finite value: no tolerance bounds its rotation")
        return self.value * (n / self.norm) if self.metric in ("output", "table", "angle") else \
            self.value * (n / self.norm) ** 2

    def __str__(self) -> str:
        what = {"output": "a rotated element", "score": "a score <R(m)q, R(n)k>/h", "table": "a cos/sin entry",
                "angle": "an angle"}[self.metric]
        return (f"{self.metric} tolerance {self.value:.4g} ({self.ulps:.3g} ulp of {self.ulp:.3g}, {self.dtype}) for "
                f"{what}: {self.config}, recipe {self.recipe.name}, positions 0 .. {self.context - 1:,}"
                + (f", pair norm <= {self.norm:g}" if self.metric in ("output", "score") else "")
                + (f", |n - m| <= {self.max_offset:,}" if self.metric == "score" else "")
                + f"; Coq theorem {self.theorem}")

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready."""
        return {"value": self.value, "metric": self.metric, "config": self.config, "recipe": self.recipe.name,
                "dtype": self.dtype, "context": self.context, "norm": self.norm, "max_offset": self.max_offset,
                "ulp": self.ulp, "ulps": self.ulps, "theorem": self.theorem, "parts": self.parts,
                "sequence": None if self.sequence is None else self.sequence.to_dict()}


def tolerance(config: Any, recipe: str | Recipe | dict = "hf", *, dtype: str = "bfloat16", context: int = 131072,
              metric: str = "output", norm: float = 1.0, max_offset: int | None = None,
              seq_len: int | None = None, layer_type: str | None = None) -> Tolerance:
    """The proved tolerance of ``metric`` for ``recipe`` in ``dtype`` over positions
    ``0 .. context - 1`` (see the module docstring).

    Parameters
    ----------
    config : str or dict
        A shipped model name, a path to a ``config.json`` or a config dict (as :func:`pe_symbolic.audit`).
    recipe : str, Recipe or dict
        How the kernel rounds (a preset name: ``"hf"``, ``"vllm"``, ``"llama.cpp"``, ...).
    dtype : {"bfloat16", "float16", "float32", "float64"}
        The activation dtype (the dtype of ``q``, ``k`` and the output).
    context : int
        Positions ``0 .. context - 1``.
    metric : {"output", "score", "table", "angle"}
        What the test compares.
    norm : float
        The largest pair norm of the inputs the value is stated for (``atol(x)`` rescales).
    max_offset : int, optional
        ``score``: the largest ``|n - m|`` between query and key (default ``context - 1``).
    seq_len, layer_type : optional
        As in :func:`pe_symbolic.audit`.

    Raises
    ------
    ValueError
        A metric, dtype or number outside what is allowed (named); a sinusoidal recipe for a
        rotation metric; a context whose angles overflow in the recipe's dtypes (no finite bound).
    """
    from . import _check_context, load_target
    from .bounds import angle_bound, derived_bounds
    from .emulate import PRECISION, Emulation
    from .rounding import rounding_sequence

    metric = check_choice("metric", metric, METRICS)
    dtype = check_choice("dtype", dtype, ACT_DTYPES)
    context = _check_context(context)
    if isinstance(norm, bool) or not isinstance(norm, numbers.Real) or not (0 < float(norm) < math.inf):
        raise ValueError(f"norm={norm!r} must be a positive finite number (the inputs' largest pair norm)")
    norm = float(norm)
    if max_offset is None:
        max_offset = context - 1
    if isinstance(max_offset, bool) or not isinstance(max_offset, numbers.Integral) or not 0 <= max_offset < context:
        raise ValueError(f"max_offset={max_offset!r} must be an integer in 0 .. context - 1 = {context - 1}")
    rec = get_recipe(recipe)
    target = load_target(config, seq_len=context if seq_len is None else seq_len, layer_type=layer_type)
    if rec.kind != target.kind:
        from .emulate import _kind_mismatch

        raise ValueError(_kind_mismatch(rec, target))
    if rec.kind != "rope" and metric in ("output", "score"):
        raise ValueError(f"metric={metric!r} is a RoPE rotation's; recipe {rec.name!r} builds a sinusoidal table "
                         "(use metric='table' or 'angle')")
    em = Emulation(target, rec, dtype, offsets=(int(max_offset),))
    t = float(context - 1)
    ab = angle_bound(em, t)
    if math.isinf(ab.value):
        raise ValueError(f"no finite bound: {ab.dominant} within positions < {context} (recipe {rec.name!r}, {dtype})")
    db = derived_bounds(em, ab, t, t_key=t, max_offset=int(max_offset), norm=norm)
    value = {"angle": ab.value, **db}[metric]
    af = max(target.attention, 1.0)
    if metric == "output":
        ulp = _ulp(af * norm, dtype)
    elif metric == "score":
        ulp = _ulp(af * af * norm * norm, dtype)
    elif metric == "table":
        ulp = _ulp(af, em.dt["table_dtype"] if PRECISION[em.dt["table_dtype"]] < 53 else dtype)
    else:
        ulp = _ulp(t * float(np.max(em.theta_hi)), em.dt["angle_dtype"])
    name = getattr(target, "name", str(config))
    theorem = f"pe_tol_{_ident(str(name))}_{_ident(rec.name)}_{dtype}_{metric}"
    parts = {"angle (worst pair)": ab.value, **{k: v for k, v in db.items()}}
    if metric == "score" and rec.kind == "rope":
        from .bounds import pair_constants, rotation_error, score_terms

        seq = rounding_sequence(em)
        pc = pair_constants(em, seq)
        slope, base = score_terms(em, norm, pc, rotation_error(seq, norm, pc.c_max))
        parts |= {"score slope": slope, "score base": base}
    return Tolerance(float(value), metric, str(name), rec, dtype, context, norm, int(max_offset), ulp, value / ulp,
                     theorem, parts, rounding_sequence(em))


# --------------------------------------------------------------------------------------------
# engines' claims

#: ``of`` in :func:`check_claim`: the quantity whose ulp a claim counts in.
CLAIM_KINDS = ("max_products", "output")


@dataclass(frozen=True)
class ClaimCheck:
    """An engine's claim about its rotation, checked: ``verdict`` is ``holds`` (the bound the
    rounding sequences give is within the claim), ``refuted`` (``counterexample`` breaks it) or
    ``undecided``; ``bound`` the derived bound and ``found`` the largest deviation the search
    found, both in the claim's ulps."""

    claim: str
    verdict: str
    bound: float
    found: float
    counterexample: dict[str, float] | None
    why: str

    def __str__(self) -> str:
        s = f"{self.claim}: {self.verdict} (derived bound {self.bound:g} ulp, largest found {self.found:g} ulp)"
        if self.counterexample:
            s += "; counterexample " + ", ".join(f"{k}={v:.9g}" for k, v in self.counterexample.items())
        return s + f". {self.why}"


def _coordinate_ulps(seq: Any) -> float:
    """How many ulps of ``M = max(|x cos|, |y sin|)`` (in the activation dtype) one output
    coordinate of a rotation may be off the exact ``x cos - y sin`` of the same operands:
    each rounded product half an ulp of ``M`` (a whole one toward zero); the sum, of magnitude
    below ``2 M (1 + u)``, half an ulp of ``2 M`` (one ulp of ``M``; two toward zero); the
    store to the activation dtype likewise -- the rotation's own ulps converted to the
    activation's."""
    from .emulate import PRECISION

    R = seq.step("products").dtype
    scale = 2.0 ** (PRECISION[seq.act] - PRECISION[R])  # one ulp of R in ulps of the activation dtype
    half = 1.0 if seq.step("products").rounding == "truncate" else 0.5
    err = seq.products_rounded * half * scale + 2 * half * scale
    if seq.step("store").rounding != "exact":
        err += 2 * half
    return err


def _pair_ulps(a: Any, b: Any) -> float:
    """How many ulps of ``M`` two rotations of the same operands may differ by. Where both end
    with the same rounding to nearest in the activation dtype (no store), their results are
    ``fl(S_a)``, ``fl(S_b)`` of two sums that differ only where one rounds a product the other
    fuses (half an ulp of ``M`` each): ``|S_a - S_b| <= D``. The results lie on the grid of the
    binade they land in -- spacing 2 ulps of ``M`` above ``2 M``'s binade start, 1 in ``M``'s,
    1/2 or finer below -- so their difference is at most ``D`` plus half of each spacing,
    rounded down to a multiple of the finer spacing. Elsewhere, the two bounds added."""
    plain = (a.step("store").rounding == "exact" and b.step("store").rounding == "exact"
             and a.step("products").dtype == b.step("products").dtype == a.act
             and a.step("products").rounding == b.step("products").rounding == "nearest")
    if not plain:
        return _coordinate_ulps(a) + _coordinate_ulps(b)
    rounded = {"none": {"cos", "sin"}, "cos": {"cos"}, "sin": {"sin"}}
    D = 0.5 * len(rounded[a.fma] ^ rounded[b.fma])
    best = 0.0
    for ga in (2.0, 1.0, 0.5):
        for gb in (2.0, 1.0, 0.5):
            g = min(ga, gb)
            best = max(best, math.floor((D + ga / 2 + gb / 2) / g) * g)
    return best


_ROTATION_STEPS = ("rotation load", "products", "sum", "store")


def _same_rotation(a: Any, b: Any) -> bool:
    """Whether two sequences round the rotation identically, step for step (an FMA the
    compiler picks, ``"any"``, is never the same twice for certain)."""
    if a.act != b.act or "any" in (a.fma_declared, b.fma_declared) or a.fma != b.fma:
        return False
    return all(a.step(n) == b.step(n) for n in _ROTATION_STEPS)


def check_claim(recipe: str | Recipe | dict, *, ulps: float, against: str | Recipe | dict = "exact",
                of: str = "max_products", dtype: str = "float16", trials: int = 200000,
                seed: int = 0) -> ClaimCheck:
    """Check an engine's claim about its rotation against the recipes' rounding sequences.

    The claim: for every input pair ``(x, y)`` in ``dtype`` and table entries ``(cos, sin)``
    (in the recipe's table dtype), the kernel's output coordinate is within ``ulps`` ulps of
    the quantity ``of`` (``"max_products"``: ``max(|x cos|, |y sin|)``; ``"output"``: the
    exact coordinate) from ``against`` -- ``"exact"`` (``x cos - y sin`` in exact arithmetic, on
    the same operands) or another recipe (two kernels: which product an FMA rounds first, or
    a fused kernel against its reference); ``ulps=0`` is a bitwise claim.

    The bound is derived per coordinate from the rounding sequences (each rounding at most half
    an ulp of its result's binade; see ``_coordinate_ulps``); the search evaluates
    ``trials`` seeded random operands and the operands an FMA disagreement is largest at
    (products of nearly equal size and opposite sign).

    >>> r = check_claim("vllm-legacy", ulps=1, of="output", dtype="bfloat16")
    >>> r.verdict
    'refuted'
    """
    from .emulate import PRECISION, Emulation, rnd
    from .rounding import rounding_sequence

    dtype = check_choice("dtype", dtype, ACT_DTYPES[1:])
    of = check_choice("of", of, CLAIM_KINDS)
    if isinstance(ulps, bool) or not isinstance(ulps, numbers.Real) or not (ulps >= 0) or math.isinf(ulps):
        raise ValueError(f"ulps={ulps!r} must be a finite number >= 0 (0: a bitwise claim)")
    a = get_recipe(recipe)
    b = None if isinstance(against, str) and against == "exact" else get_recipe(against)
    from . import load_target

    tg = load_target("sinusoidal:8") if a.kind != "rope" else load_target(
        {"rope_theta": 10000.0, "head_dim": 8, "hidden_size": 32, "num_attention_heads": 4})
    ems = [Emulation(tg, r, dtype) for r in ([a] if b is None else [a, b])]
    seqs = [rounding_sequence(e) for e in ems]
    same = b is not None and _same_rotation(*seqs)
    rng = np.random.default_rng(seed)
    n = int(trials)
    tab = ems[0].dt["table_dtype"]
    phi = rng.uniform(0, 2 * np.pi, n)
    c = rnd(np.cos(phi), tab).astype(np.float64)
    s = rnd(np.sin(phi), tab).astype(np.float64)
    # besides random operands, products of nearly equal size: x cos ~ +-y sin (the difference
    # cancels, or the magnitudes add up into the next binade: where FMAs and sums disagree most)
    x = rnd(rng.uniform(-1, 1, n), dtype).astype(np.float64)
    kind = rng.integers(0, 3, n)
    near = x * c / np.where(s == 0, 1, s) * (1 + rng.normal(0, 2.0 ** -PRECISION[dtype], n))
    y = np.where(kind == 0, rng.uniform(-1, 1, n), np.where(kind == 1, near, -near))
    y = rnd(np.clip(y, -1, 1), dtype).astype(np.float64)
    outs = [e.rotate((x, y), c, s)[0].astype(np.float64) for e in ems]
    ref = x * c - y * s if b is None else outs[1]
    dev = np.abs(outs[0] - ref)
    M = np.maximum(np.abs(x * c), np.abs(y * s)) if of == "max_products" else np.abs(x * c - y * s)
    from .rounding import EMIN

    unit = np.maximum(np.ldexp(1.0, np.frexp(np.maximum(M, 2.0**-1000))[1] - PRECISION[dtype]), 2.0 ** EMIN[dtype])
    ratio = np.where(M > 0, dev / unit, np.where(dev > 0, np.inf, 0.0))
    k = int(np.argmax(ratio))
    found = float(ratio[k])
    if same:
        bound = 0.0
    elif of == "max_products":
        bound = _coordinate_ulps(seqs[0]) if b is None else _pair_ulps(*seqs)
    else:
        bound = math.inf  # relative to the output itself: cancellation leaves no bound
    claim = (f"{a.name} ({dtype}) within {ulps:g} ulp of {'max(|x cos|, |y sin|)' if of == 'max_products' else 'the output'}"
             f" of {'the exact rotation' if b is None else b.name}")
    if found > ulps:
        why = "the search found operands beyond the claim"
        return ClaimCheck(claim, "refuted", bound, found, {"x": x[k], "y": y[k], "cos": c[k], "sin": s[k],
                                                           "kernel": outs[0][k], "reference": ref[k]}, why)
    if bound <= ulps:
        why = ("the two recipes round identically, step for step" if same else
               "derived from the rounding sequence: every rounding at most half an ulp of its binade")
        return ClaimCheck(claim, "holds", bound, found, None, why)
    return ClaimCheck(claim, "undecided", bound, found, None,
                      f"the derived bound ({bound:g} ulp) exceeds the claim and {n} operands found none beyond it")
