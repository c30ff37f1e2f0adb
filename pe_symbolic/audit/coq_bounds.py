r"""The audit's floating-point bounds as Coq theorems over Flocq's formats, checked by Coq.

:mod:`pe_symbolic.audit.bounds` puts a bound beside every measurement of ``pe-audit``. This
module states the **angle**, **table** and **output** bounds of an audited recipe as Coq
theorems over `Flocq <https://flocq.gitlabpages.inria.fr/>`_'s floating-point formats
(``round radix2 (FLT_exp emin prec) ZnearestE``: round to nearest even, subnormals
included, precision ``prec``: float64 53 / -1074, float32 24 / -149, bfloat16 8 / -133,
float16 11 / -24), with the audit's own numbers (every constant is the float64 the audit
computed, printed exactly as ``m * bpow radix2 e``: never copied by hand), and has Coq
check them (:func:`check_bounds`):

* **angle** -- for every integer position ``0 <= t <= t_max`` (``rnd_int T``, the floor of
  a real ``T``), every frequency ``theta`` of a group of pairs (an enclosure of the pairs'
  exact frequencies) and every inverse frequency ``th`` the recipe may hold (relative error
  at most the audit's exact ``eps`` of those pairs), the angle as the recipe forms it
  (positions rounded to their dtype, then to the angle's; the product rounded; cast to the
  dtype of ``cos`` / ``sin``) is within the audit's angle bound of ``t theta``. Proved by
  the ``gappa`` tactic (Coq's Gappa plugin: Gappa finds the proof, Coq's kernel checks
  it). The pairs are grouped so that each group's worst case is within the audit's bound
  (the audit's bound is the maximum over the pairs).
* **table** -- for every angle ``A`` within that bound of the exact ``a`` and every
  library result ``c`` within 2 units of the trig dtype's roundoff of ``cos A`` (the
  audit's model of ``cos`` / ``sin``: a hypothesis, the one thing the library promises),
  the table value (``c`` rounded where the recipe rounds it) is within the audit's table
  bound of ``cos a``, and likewise for ``sin``. Proved from ``|cos x - cos y| <= |x - y|``
  (the mean value theorem, :data:`~pe_symbolic.audit.coq_common.PRELUDE`) and the ``gappa`` tactic.
* **output** -- for every pair ``(xa, xb)`` of norm at most ``1 + u`` (a unit pair rounded
  to the activation dtype, as the audit's) and table values ``c``, ``s`` within the table
  bound of ``cos a``, ``sin a``, the rotated pair as the recipe computes it (each product,
  the sum / difference rounded in the rotation dtype, then a cast to the activation dtype)
  is within the audit's output bound of the exact rotation (the length of the error
  vector, as the audit measures it). Proved from Flocq's ``error_N_FLT`` (``round x =
  x (1 + d) + n``, ``|d| <= 2^-p``, ``|n| <= 2^(emin-1)``) by a lemma of :data:`~pe_symbolic.audit.coq_common.PRELUDE`
  and numeric side conditions proved by ``gappa``.

A theorem counts as ``checked`` only when Coq saved it (``Qed``) **and** ``Print
Assumptions`` lists no axiom beyond :data:`~pe_symbolic.audit.coq_common.ALLOWED_AXIOMS` (those Coq's real numbers and
Flocq themselves rest on); ``Admitted`` or any other axiom makes it ``refused``. A bound
made tighter than the audit's, or stated in the wrong format, is not proved (``failed``):
``tests/test_coq_bounds.py`` checks both for every case.

The formats have no largest exponent (Flocq's FLT): a theorem is about IEEE arithmetic
where nothing overflows, which is exactly where the audit states a finite bound (it
reports ``inf`` and names the overflow otherwise; such a bound is not stated here).

What is stated: the recipes whose angle is one product ``t * theta`` (``inv_freq`` of
``reciprocal``, ``pow``, ``exp``, ``exp2``) without the modulo-2 pi reduction, attention
factor 1, rotations in a dtype at least as wide as the tables and the activations; the
score bound is not stated. :func:`case_theorems` names what it leaves out and why.

>>> th = case_theorems(CASES[0])
>>> [t.kind for t in th.theorems][-2:]
['table', 'output']
>>> print(dyadic(0.75), dyadic(-3.0), dyadic(2.0**-24))
(3 * bpow radix2 (-2)) (- 3) (1 * bpow radix2 (-24))
"""

from __future__ import annotations

import dataclasses
import functools
import math
import os
import re
import shutil
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Literal

from .._validate import check_choice
from .bounds import angle_bound, derived_bounds, exact_integer_limit
from .coq_common import ALLOWED_AXIOMS, FORMATS, PRELUDE, THEOREM_TIMEOUT, BoundTheorem, dyadic
from .coq_common import RND as _RND
from .coq_common import bpow as _bpow
from .coq_common import comment as _comment
from .coq_common import down as _down
from .coq_common import eta as _eta
from .coq_common import ident as _ident
from .coq_common import unit_roundoff as _u
from .coq_common import up as _up
from .coq_rotation import output_theorem_for, score_theorem_for
from .emulate import PRECISION, Emulation
from .recipes import ACT_DTYPES, PRESETS

__all__ = [
    "ALLOWED_AXIOMS",
    "CASES",
    "FORMATS",
    "PRELUDE",
    "BoundCase",
    "BoundReport",
    "BoundResult",
    "BoundTheorem",
    "CaseTheorems",
    "angle_theorems",
    "bound_theorems",
    "case_theorems",
    "check_bounds",
    "coq_bounds_available",
    "coq_file",
    "dyadic",
    "output_theorem",
    "table_theorem",
    "tolerance_theorems",
]

@dataclass(frozen=True)
class BoundCase:
    """One audited configuration whose bounds are stated: a model config, a preset recipe,
    the activation dtype and the context (positions ``0 .. context - 1``)."""

    name: str
    config: str
    recipe: str
    dtype: str
    context: int
    what: str = ""

    def __post_init__(self) -> None:
        check_choice("recipe", self.recipe, tuple(PRESETS))
        check_choice("dtype", self.dtype, ACT_DTYPES)
        if not (isinstance(self.context, int) and not isinstance(self.context, bool) and 1 <= self.context <= 2**53):
            raise ValueError(f"context={self.context!r} must be an integer in [1, 2**53]")

    def emulation(self) -> Emulation:
        """The audit's emulation of this case (its frequencies and exact ``eps``)."""
        from .. import numeric
        from .emulate import rope_target

        return Emulation(rope_target(numeric.model_config(self.config), self.config), PRESETS[self.recipe],
                         self.dtype)


#: The cases ``pe-derive check --coq`` states and checks: one per kind of dtype a recipe
#: runs in (Llama-3.1-8B's frequencies, llama3 scaling, as on the docs' accuracy page).
CASES: tuple[BoundCase, ...] = (
    BoundCase("float32", "llama-3.1-8b", "hf", "float32", 131072,
              "HF's recipe in float32: float32 inv_freq, positions, product, cos/sin, tables, rotation"),
    BoundCase("bfloat16", "llama-3.1-8b", "hf-autocast", "bfloat16", 8192,
              "HF under bf16 autocast: inv_freq held, positions and the product in bfloat16, cos/sin "
              "rounded to bfloat16, bfloat16 rotation"),
    BoundCase("float16", "llama-3.1-8b", "hf-autocast", "float16", 8192,
              "HF under fp16 autocast: as bfloat16, in float16 (positions below 65520: no overflow)"),
    BoundCase("mixed", "llama-3.1-8b", "hf", "bfloat16", 131072,
              "HF's recipe with a bfloat16 model: float32 angles and cos/sin, bfloat16 tables and rotation"),
    BoundCase("mixed-fp32-rotation", "llama-3.1-8b", "vllm-fp32", "bfloat16", 131072,
              "vLLM's current kernel with a bfloat16 model: float32 cache and rotation, one cast to bfloat16"),
    BoundCase("float64", "llama-3.1-8b", "pe_symbolic-torch", "float32", 131072,
              "float64 inv_freq, integer positions, float64 product and cos/sin, float32 tables and rotation"),
)


@dataclass(frozen=True)
class CaseTheorems:
    """A case's theorems, the audit's bounds they state, and what is not stated (and why)."""

    case: BoundCase
    theorems: tuple[BoundTheorem, ...]
    bounds: dict[str, float]
    not_stated: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class _Audit:
    """What the audit computes for a case: its emulation, the last position and its bounds."""

    em: Emulation
    t_max: int
    angle: float
    dominant: str
    bounds: dict[str, float]


@functools.lru_cache(maxsize=32)
def _audit(case: BoundCase) -> _Audit:
    em = case.emulation()
    t_max = case.context - 1
    ab = angle_bound(em, float(t_max))
    return _Audit(em, t_max, ab.value, ab.dominant, {"angle": ab.value, **derived_bounds(em, ab, float(t_max))})


def _formats(state_as: Mapping[str, str] | None) -> Callable[[str], str]:
    """The format a dtype is stated in (itself, unless ``state_as`` says otherwise)."""
    m = dict(state_as or {})
    for k, v in m.items():
        if k not in FORMATS or v not in FORMATS:
            raise ValueError(f"state_as={state_as!r}: {k!r} -> {v!r}; use dtypes of {', '.join(FORMATS)}")
    return lambda d: m.get(d, d)


def _number(name: str, x: float | None, default: float) -> float:
    x = default if x is None else x
    if not (isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x) and x > 0):
        raise ValueError(f"{name}={x!r} must be a positive finite number")
    return float(x)


def angle_theorems(case: BoundCase, value: float | None = None, *,
                   state_as: Mapping[str, str] | None = None) -> list[BoundTheorem]:
    """``case``'s angle bound (default: the audit's) for every pair, as theorems: the pairs in
    groups whose worst case (largest ``eps``, largest ``theta``, at ``t_max``) is within the
    bound.

    ``state_as`` states a dtype's rounding in another format (``{"float32": "bfloat16"}``):
    with the audit's numbers unchanged, such a theorem is about other arithmetic than the
    recipe's (the tests' wrong-format attack).
    """
    au = _audit(case)
    em, t_max, fmt = au.em, au.t_max, _formats(state_as)
    value = _number("value", value, au.angle)
    dt, r = em.dt, em.recipe
    P, A, Dt = dt["position_dtype"], dt["angle_dtype"], dt["trig_dtype"]
    u_p = max([_u(d) for d in (P, A) if d in FORMATS and t_max > exact_integer_limit(d)], default=Fraction(0))
    u_m = _u(A)
    cast = PRECISION[Dt] < PRECISION[A] and not r.reduce
    u_c = _u(Dt) if cast else Fraction(0)
    pos = "rnd_int T"
    if P != "int64":
        pos = f"{_RND[fmt(P)]} ({pos})"
    if A != P:
        pos = f"{_RND[fmt(A)]} ({pos})"
    angle = f"{_RND[fmt(A)]} ({pos} * th)"
    if cast:
        angle = f"{_RND[fmt(Dt)]} ({angle})"
    V = Fraction(value)
    order = sorted(range(em.h), key=lambda i: -float(em.theta_hi[i]))
    margin = 1 + Fraction(1, 2**40)  # Gappa's own interval arithmetic is outward rounded

    def fits(group: list[int]) -> bool:
        E = max(_up(float(em.eps[i])) for i in group)
        hi = max(_up(float(em.theta_hi[i])) for i in group)
        gamma = (1 + u_p) * (1 + E) * (1 + u_m) * (1 + u_c) - 1
        return gamma * t_max * hi * margin <= V

    groups: list[list[int]] = []
    k = 0
    while k < len(order):
        g = [order[k]]
        while k + len(g) < len(order) and fits(g + [order[k + len(g)]]):
            g.append(order[k + len(g)])
        groups.append(g)
        k += len(g)
    out = []
    for j, g in enumerate(groups):
        E = max(_up(float(em.eps[i])) for i in g)
        lo = min(_down(float(em.theta_hi[i])) for i in g)
        hi = max(_up(float(em.theta_hi[i])) for i in g)
        name = f"pe_bound_{_ident(case.name)}_angle_{j}"
        pairs = ", ".join(map(str, sorted(g))) if len(g) <= 6 else f"{len(g)} pairs, {min(g)} .. {max(g)}"
        statement = (
            f"Theorem {name} : forall T theta th : R,\n"
            f"  0 <= T <= {t_max} ->\n"
            f"  {dyadic(lo)} <= theta <= {dyadic(hi)} ->\n"
            f"  - {dyadic(E)} <= (th - theta) / theta <= {dyadic(E)} ->\n"
            f"  Rabs ({angle} - rnd_int T * theta) <= {dyadic(V)}.")
        out.append(BoundTheorem(name, case.name, "angle", value, statement,
                                "intros T theta th HT Htheta Hth; gappa.",
                                f"pairs {pairs}: |angle - t theta| <= {value:.6g} for t = 0 .. {t_max}",
                                tuple(sorted(g))))
    return out


def table_theorem(case: BoundCase, table: float | None = None, *, angle: float | None = None,
                  state_as: Mapping[str, str] | None = None) -> BoundTheorem:
    """``case``'s table bound (default: the audit's) as a theorem, for angles within ``angle``
    (default: the audit's angle bound) of the exact ones. ``state_as`` as in
    :func:`angle_theorems`."""
    au = _audit(case)
    em, fmt = au.em, _formats(state_as)
    angle = _number("angle", angle, au.angle)
    table = _number("table", table, au.bounds["table"])
    Dt, Dtab = em.dt["trig_dtype"], em.dt["table_dtype"]
    lib = Dt if Dt in ("float64", "float32") else "float32"  # torch evaluates bf16/fp16 cos in float32
    L = 2 * _u(lib)
    cos_v, sin_v = "c", "s"
    if lib != Dt:
        cos_v, sin_v = f"{_RND[fmt(Dt)]} c", f"{_RND[fmt(Dt)]} s"
    elif fmt(Dt) != Dt:  # the library's own format stated otherwise
        cos_v, sin_v = f"{_RND[fmt(Dt)]} c", f"{_RND[fmt(Dt)]} s"
    if Dtab != Dt:
        cos_v, sin_v = f"{_RND[fmt(Dtab)]} ({cos_v})", f"{_RND[fmt(Dtab)]} ({sin_v})"
    name = f"pe_bound_{_ident(case.name)}_table"
    B, Va = dyadic(table), dyadic(angle)
    statement = (
        f"Theorem {name} : forall a A c s : R,\n"
        f"  Rabs (A - a) <= {Va} ->\n"
        f"  Rabs (c - cos A) <= {dyadic(L)} -> Rabs (s - sin A) <= {dyadic(L)} ->\n"
        f"  Rabs ({cos_v} - cos a) <= {B} /\\ Rabs ({sin_v} - sin a) <= {B}.")
    script = ("intros a A c s HA Hc Hs; "
              "assert (H1 : Rabs (cos A - cos a) <= Rabs (A - a)) by apply pe_cos_lip; "
              "assert (H2 : Rabs (sin A - sin a) <= Rabs (A - a)) by apply pe_sin_lip; "
              "assert (H3 := COS_bound a); assert (H4 := SIN_bound a); "
              "assert (H5 := COS_bound A); assert (H6 := SIN_bound A); "
              f"assert (H7 : Rabs (cos A - cos a) <= {Va}) by lra; "
              f"assert (H8 : Rabs (sin A - sin a) <= {Va}) by lra; "
              "clear H1 H2 HA; split; gappa.")
    note = (f"cos/sin within 2 ulp ({lib}) of cos/sin of an angle within {angle:.6g}"
            + (f", rounded to {Dt}" if lib != Dt else "") + (f", held in {Dtab}" if Dtab != Dt else "")
            + f": within {table:.6g}")
    return BoundTheorem(name, case.name, "table", table, statement, script, note)


def output_theorem(case: BoundCase, output: float | None = None, *, angle: float | None = None,
                   state_as: Mapping[str, str] | None = None) -> BoundTheorem:
    """``case``'s output bound (default: the audit's) as a theorem
    (:func:`pe_symbolic.audit.coq_rotation.output_theorem_for`): pairs of norm at most ``1 + u``
    (a unit pair rounded to the activation dtype, as the audit's), angles within ``angle``
    (default: the audit's angle bound) of the exact ones, the table built and the pair rotated
    as the recipe does. ``state_as`` as in :func:`angle_theorems` (the constants of the proof
    follow the stated formats)."""
    au = _audit(case)
    stated = output is None and angle is None and not state_as  # the audit's own: checked against the lemmas
    angle = _number("angle", angle, au.angle)
    output = _number("output", output, au.bounds["output"])
    X = 1 + _u(au.em.act)
    return output_theorem_for(au.em, f"pe_bound_{_ident(case.name)}_output", case.name, X=X, angle=angle,
                              output=output, fmt=_formats(state_as), check=stated)


@functools.lru_cache(maxsize=32)
def case_theorems(case: BoundCase) -> CaseTheorems:
    """The theorems stating ``case``'s angle, table and output bounds (those of
    :mod:`pe_symbolic.audit.bounds`, ``angle_bound`` and ``derived_bounds`` at ``t_max =
    context - 1``: the bounds ``pe-audit`` prints), and what is not stated, with the reason.

    >>> ct = case_theorems(CASES[0])
    >>> [t.name for t in ct.theorems if t.kind != "angle"]
    ['pe_bound_float32_table', 'pe_bound_float32_output']
    >>> ct.not_stated
    {'score': 'the score bound is not stated in Coq'}
    """
    au = _audit(case)
    em = au.em
    r, tg = em.recipe, em.target
    skip: dict[str, str] = {"score": "the score bound is not stated in Coq"}
    used = {em.dt[k] for k in ("position_dtype", "angle_dtype", "trig_dtype", "table_dtype")} - {"int64"}
    why = ""
    if r.inv_freq not in ("reciprocal", "pow", "exp", "exp2"):
        why = f"inv_freq={r.inv_freq!r} does not form the angle as one product t * theta"
    elif r.reduce:
        why = "the reduction modulo 2 pi is not modelled"
    elif not used <= set(FORMATS) or (em.storage is not None and em.storage not in FORMATS):
        why = f"a dtype without a Flocq format here ({', '.join(sorted(used - set(FORMATS)))})"
    elif not math.isfinite(au.angle):
        why = f"no finite bound ({au.dominant})"
    if why:
        return CaseTheorems(case, (), au.bounds, {"angle": why, "table": why, "output": why} | skip)
    out = angle_theorems(case)
    if tg.attention != 1.0:  # the output theorem builds the table, factor included; this one does not
        skip["table"] = "an attention factor other than 1 is not modelled (the output theorem models it)"
    else:
        out.append(table_theorem(case))
    if tg.kind == "rope":
        R = em.rotation
        if R not in FORMATS or PRECISION[R] < max(PRECISION[em.act], PRECISION[em.dt["table_dtype"]]):
            skip["output"] = (f"the rotation in {R} is narrower than the activations ({em.act}) or the "
                              f"tables ({em.dt['table_dtype']}): their rounding into it is not modelled")
        elif r.rounding != "nearest":
            skip["output"] = "a rotation that rounds toward zero is not modelled (Flocq's ZnearestE here)"
        else:
            out.append(output_theorem(case))
    return CaseTheorems(case, tuple(out), au.bounds, skip)


def tolerance_theorems(tol: Any) -> list[BoundTheorem]:
    """The theorems behind a :class:`~pe_symbolic.audit.tolerance.Tolerance`: its case's angle
    theorems (the hypothesis ``|A - a| <= angle`` of the others) and, for ``metric="output"``,
    the output theorem named ``tol.theorem`` for pairs of norm ``tol.norm`` (``"table"``: the
    table theorem; ``"angle"``: the angle theorems; ``"score"``: one pair's score for any
    difference ``D`` of the two positions' angle errors, ``slope D + base``, of which the
    tolerance is the mean at the pairs' ``d_i`` -- the ``d_i`` themselves derived, not stated).
    A shipped model and a preset recipe only.

    Raises
    ------
    ValueError
        A config that is not a shipped model, a recipe that is not a preset, or a recipe whose
        angle is not one product (the angle theorems' form).
    """
    from .. import numeric

    if tol.config not in numeric.model_configs() or PRESETS.get(tol.recipe.name) != tol.recipe:
        raise ValueError(f"Coq states tolerances of shipped models and preset recipes; got {tol.config!r}, "
                         f"{tol.recipe.name!r}")
    case = BoundCase(_ident(f"tol_{tol.config}_{tol.recipe.name}_{tol.dtype}"), tol.config, tol.recipe.name, tol.dtype,
                     tol.context)
    ct = case_theorems(case)
    angles = [t for t in ct.theorems if t.kind == "angle"]
    if not angles:
        raise ValueError(f"no angle theorem for {tol.recipe.name!r}: {ct.not_stated['angle']}")
    if tol.metric == "angle":
        return angles
    if tol.metric == "table":
        return angles + [t for t in ct.theorems if t.kind == "table"]
    au = _audit(case)
    if tol.metric == "score":  # one pair, for any difference D of the angle errors: slope D + base
        return angles + [score_theorem_for(au.em, tol.theorem, case.name, X=Fraction(tol.norm),
                                           slope=tol.parts["score slope"], base=tol.parts["score base"])]
    out = output_theorem_for(au.em, tol.theorem, case.name, X=Fraction(tol.norm), angle=au.angle, output=tol.value)
    return angles + [out]


def bound_theorems(cases: Iterable[BoundCase] = CASES) -> list[BoundTheorem]:
    """Every theorem of every case, in order."""
    return [th for c in cases for th in case_theorems(c).theorems]


def _preludes(theorems: Iterable[BoundTheorem]) -> str:
    """:data:`~pe_symbolic.audit.coq_common.PRELUDE` and, once each, the lemmas the theorems add to it."""
    return PRELUDE + "".join(dict.fromkeys(th.prelude for th in theorems if th.prelude))


def coq_file(theorems: Iterable[BoundTheorem]) -> str:
    """The ``.v`` text: :data:`~pe_symbolic.audit.coq_common.PRELUDE` (and the lemmas the theorems add), then each theorem with
    its proof (``coqc`` compiles it)."""
    theorems = list(theorems)
    return _preludes(theorems) + "\n" + "\n".join(th.text() for th in theorems)


# --------------------------------------------------------------------------------------
# checking


@functools.lru_cache(maxsize=1)
def coq_bounds_available() -> str | None:
    """``None`` when Coq, Gappa and the Coq libraries (Flocq, the Gappa plugin) are
    installed; else what is missing, in words."""
    coqc = shutil.which("coqc")
    if shutil.which("coqtop") is None or coqc is None:
        return "Coq is not installed (apt-get install coq)"
    if shutil.which("gappa") is None:
        return "Gappa is not installed (apt-get install gappa)"
    try:
        where = subprocess.run([coqc, "-where"], capture_output=True, text=True, timeout=30).stdout.strip()
    except (OSError, subprocess.SubprocessError) as exc:  # pragma: no cover - a broken install
        return f"coqc -where failed: {exc}"
    for lib, pkg in (("Flocq/Core/Core.vo", "libcoq-flocq"), ("Gappa/Gappa_tactic.vo", "libcoq-gappa")):
        if not os.path.exists(os.path.join(where, "user-contrib", lib)):
            return f"the Coq library {lib.split('/')[0]} is not installed (apt-get install {pkg})"
    return None


BoundStatus = Literal["checked", "failed", "refused"]


@dataclass(frozen=True)
class BoundResult:
    """What Coq said about one theorem: ``checked`` (saved, only :data:`~pe_symbolic.audit.coq_common.ALLOWED_AXIOMS`),
    ``failed`` (not proved) or ``refused`` (saved, but on another axiom or ``Admitted``)."""

    theorem: BoundTheorem
    status: BoundStatus
    axioms: tuple[str, ...] = ()
    why: str = ""


@dataclass(frozen=True)
class BoundReport:
    """The statuses of a :func:`check_bounds` run and Coq's wall time."""

    results: tuple[BoundResult, ...]
    elapsed: float
    jobs: int

    def counts(self) -> dict[str, int]:
        """``{"checked": n, "failed": n, "refused": n}``."""
        return {s: sum(r.status == s for r in self.results) for s in ("checked", "failed", "refused")}


_PROMPT = re.compile(r"^(?:\S+ <(?: |$))+")


def _assumptions(segment: str) -> tuple[tuple[str, ...], str]:
    """The axioms ``Print Assumptions`` listed, and '' or what could not be read."""
    lines = []
    for raw in segment.splitlines():
        line = _PROMPT.sub("", raw.rstrip()).rstrip()
        if not line.strip() or line.startswith("Fetching opaque proofs"):
            continue
        lines.append(line)
    if lines == ["Closed under the global context"]:
        return (), ""
    if not lines or lines[0] != "Axioms:":
        return (), "Print Assumptions said: " + " / ".join(lines[:3])
    names = [ln.split()[0] for ln in lines[1:] if not ln[0].isspace()]
    return tuple(names), ""


def _printed(text: str, key: str) -> tuple[tuple[str, ...], str] | None:
    """What ``Print Assumptions`` said between the markers ``pe_bound_begin_KEY`` and
    ``pe_bound_end_KEY`` (``None`` when Coq did not get there)."""
    begin = re.search(rf"pe_bound_begin_{key} is defined\n", text)
    end = re.search(rf"pe_bound_end_{key} is defined", text)
    if begin is None or end is None or end.start() < begin.end():
        return None
    return _assumptions(text[begin.end():end.start()])


def _print(target: str, key: str) -> str:
    return (f"Definition pe_bound_begin_{key} := 0.\nPrint Assumptions {target}.\n"
            f"Definition pe_bound_end_{key} := 0.\n")


def _chunk_text(chunk: Sequence[BoundTheorem], *, per_theorem: bool) -> str:
    """A chunk for ``coqtop``: each theorem (tolerant), then ``Print Assumptions`` of each
    saved theorem (``per_theorem``) or, cheaper (one walk through the libraries), of a pair
    of all of them, built so that a theorem Coq did not save is left out."""
    parts = [_preludes(chunk), "\n"]
    acc = "tt"
    for k, th in enumerate(chunk):
        parts.append(th.text(tolerant=True))
        if per_theorem:
            parts.append(_print(th.name, th.name))
        else:  # the first line fails when the theorem was not saved, the second when it was
            parts.append(f"Definition pe_bound_acc_{k} := ({acc}, pe_bound_ok_{th.name}).\n"
                         f"Definition pe_bound_acc_{k} := {acc}.\n")
            acc = f"pe_bound_acc_{k}"
    if not per_theorem:
        parts.append(_print(acc, "all"))
    return "".join(parts)


def _run(chunks: Sequence[Sequence[BoundTheorem]], exe: str, *, per_theorem: bool,
         deadline: float) -> tuple[list[str], bool]:
    """Each chunk in its own ``coqtop``, side by side; their outputs, and whether time ran out."""
    outputs: list[str] = []
    timed_out = False
    with tempfile.TemporaryDirectory(prefix="pe_coq_bounds_") as tmp:
        procs = []
        for k, chunk in enumerate(chunks):
            path = os.path.join(tmp, f"bounds{k}.v")
            with open(path, "w", encoding="utf-8") as fh:
                fh.write(_chunk_text(chunk, per_theorem=per_theorem))
            fin = open(path, encoding="utf-8")  # noqa: SIM115 - closed below
            procs.append((subprocess.Popen([exe, "-q"], stdin=fin, stdout=subprocess.PIPE,
                                           stderr=subprocess.STDOUT, text=True, cwd=tmp), fin))
        for p, fin in procs:
            try:
                out, _ = p.communicate(timeout=max(1.0, deadline - time.perf_counter()))
            except subprocess.TimeoutExpired:
                p.kill()
                out, _ = p.communicate()
                timed_out = True
            fin.close()
            outputs.append(out or "")
    return outputs, timed_out


def check_bounds(theorems: Sequence[BoundTheorem], *, jobs: int | None = None, timeout: float = 600.0,
                 coqtop: str | None = None) -> BoundReport:
    """Run Coq on every theorem; a status per theorem (:class:`BoundResult`).

    A theorem is ``checked`` when Coq saved it and ``Print Assumptions`` lists only
    :data:`~pe_symbolic.audit.coq_common.ALLOWED_AXIOMS`. Each process prints the assumptions of all its saved theorems
    at once; where that lists another axiom, the process runs again with a ``Print
    Assumptions`` per theorem, so that only the theorems that depend on it are ``refused``.

    Parameters
    ----------
    theorems : sequence of BoundTheorem
        What :func:`case_theorems` stated (or any theorems of that shape).
    jobs : int, optional
        Coq processes side by side (default: the number of CPUs, at most 4).
    timeout : float
        Seconds the whole run may take; theorems not reached count as ``failed``.
    coqtop : str, optional
        The ``coqtop`` executable (default: found on ``PATH``).

    Raises
    ------
    FileNotFoundError
        When Coq, Gappa or the Coq libraries are not installed (:func:`coq_bounds_available`).
    """
    exe = coqtop or shutil.which("coqtop")
    missing = coq_bounds_available() if coqtop is None else None
    if exe is None or missing:
        raise FileNotFoundError(missing or "Coq is not installed (apt-get install coq)")
    if not timeout > 0:
        raise ValueError(f"timeout={timeout!r} must be positive")
    names = [th.name for th in theorems]
    if len(set(names)) != len(names):
        raise ValueError("theorem names must be distinct")
    jobs = max(1, min(jobs or min(os.cpu_count() or 1, 4), len(theorems) or 1))
    chunks = [list(theorems[k::jobs]) for k in range(jobs)]
    t0 = time.perf_counter()
    deadline = t0 + timeout
    outputs, timed_out = _run(chunks, exe, per_theorem=False, deadline=deadline)
    status: dict[str, BoundResult] = {}
    again: list[list[BoundTheorem]] = []
    for chunk, out in zip(chunks, outputs):
        saved = [th for th in chunk if re.search(rf"pe_bound_ok_{re.escape(th.name)} is defined\n", out)]
        for th in chunk:
            if th not in saved:
                status[th.name] = BoundResult(th, "failed", why="the run timed out" if timed_out else
                                              "Coq did not accept the proof")
        said = _printed(out, "all")
        if said is not None and not said[1] and all(a in ALLOWED_AXIOMS for a in said[0]):
            for th in saved:
                status[th.name] = BoundResult(th, "checked", said[0])
        elif saved:
            again.append(saved)
    if again:
        outputs, timed_out = _run(again, exe, per_theorem=True, deadline=deadline)
        for chunk, out in zip(again, outputs):
            for th in chunk:
                said = _printed(out, re.escape(th.name))
                if said is None:
                    status[th.name] = BoundResult(th, "failed", why="the run timed out" if timed_out else
                                                  "Coq did not accept the proof on the second run")
                    continue
                axioms, unread = said
                bad = [a for a in axioms if a not in ALLOWED_AXIOMS]
                status[th.name] = (BoundResult(th, "refused", axioms, unread or f"depends on {', '.join(bad)}")
                                   if unread or bad else BoundResult(th, "checked", axioms))
    return BoundReport(tuple(status[th.name] for th in theorems), time.perf_counter() - t0, jobs)
