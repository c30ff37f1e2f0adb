r"""The error bounds shown beside each measurement.

**Angle** (proved: claims ``precision.angle`` and ``precision.running_product`` of
:mod:`pe_symbolic.theorems.precision`). A recipe forms the angle of pair ``i`` at position
``t`` as :math:`\hat a = \mathrm{fl}(\hat t\,\hat\theta_i)` with :math:`\hat t = t(1+\delta_p)`,
:math:`\hat\theta_i = \theta_i(1+\varepsilon_i)` and one rounding of the product,
:math:`|\delta_p| \le u_{pos}`, :math:`|\delta_m| \le u_{mul}`. Then

.. math:: |\hat a - t\theta_i| \le \big((1+u_{pos})(1+|\varepsilon_i|)(1+u_{mul}) - 1\big)\,|t\theta_i|
          = (u_{pos} + |\varepsilon_i| + u_{mul})\,|t\theta_i| + O(u^2).

``u_pos`` is the unit roundoff of the dtype the position passes through when it is not an
exact integer there (``0`` while ``t < 2**p``), ``eps_i`` the *exact* relative error of the
recipe's inverse frequency (known: the vector is small), ``u_mul`` the unit roundoff of the
angle's dtype. For a running product (llama.cpp) pair ``i`` has ``i`` products by
:math:`\hat s = s(1+\varepsilon_s)`, so
:math:`(1+u_{pos})(1+|\varepsilon_s|)^i(1+u_{mul})^i(1+|\varepsilon_{f,i}|)(1+u_{mul}) - 1`
(the last two factors for llama3's ``freq_factors`` division).

**Table, output, score** (derived from the angle bound; not claims of the engine):
:math:`|\cos\hat a - \cos a| \le |\hat a - a|` (and at most 2), plus the library's
``cos`` / ``sin`` (2 ulp of the trig dtype), plus one unit roundoff (absolute, values
<= 1) for each rounding of the table; the rotation of a unit pair adds 2 table errors and
:math:`(\sqrt2 + 1)\sqrt2\,u_R` for its products and sum, and a final cast :math:`\sqrt2\,u_{act}`;
the score of unit-pair vectors ``q, k`` (normalised by ``h``) is within
:math:`2\,af\,O + O^2` for an output bound ``O`` (for RoPE, the bound at the furthest key
``m + offset`` the band's queries are paired with: ``pe_symbolic.audit.measure.measure``
evaluates it there). Comparisons against float64 references
add ``1e-15``.

**Overflow.** The model :math:`|\delta| \le u` holds only while no value overflows. Where a
position (in its dtype or the angle's) or an angle (in the angle's or the trig dtype) may
reach the dtype's overflow limit (float16: 65520 rounds to ``inf``) within a band, no finite
bound holds there: every bound of the band is ``inf`` and the part that overflows is named
(``"overflow: positions >= 65520 are inf in float16"``), as the measurement is.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .emulate import PRECISION, UNIT_ROUNDOFF, Emulation, overflow_limit

__all__ = ["AngleBound", "angle_bound", "derived_bounds", "exact_integer_limit", "overflow", "position_overflow"]

#: gamma = prod(1 + u_k) - 1 is evaluated as expm1(sum(log1p(u_k))) (within a few ulp):
#: this factor keeps the float64 evaluation above the exact value.
_SAFETY = 1 + 1e-12
#: Added to bounds compared against float64 references (their own error, ~3u).
REFERENCE_SLACK = 1e-15


def exact_integer_limit(dtype: str) -> int:
    """Integers up to ``2**p`` are exact in a dtype of ``p`` bits; ``2**p + 1`` is the first not.

    >>> exact_integer_limit("bfloat16"), exact_integer_limit("float32")
    (256, 16777216)
    """
    return 2 ** PRECISION[dtype]


def position_overflow(em: Emulation) -> tuple[int, str] | None:
    """The first position that becomes ``inf`` on its way to the multiply (held in the
    positions' dtype, then in the angle's), with that dtype; ``None`` when none up to 2**53 does.

    >>> from pe_symbolic import numeric
    >>> from pe_symbolic.audit.emulate import rope_target
    >>> from pe_symbolic.audit.recipes import PRESETS
    >>> tg = rope_target(numeric.model_config("llama-3.1-8b"), "l")
    >>> position_overflow(Emulation(tg, PRESETS["gpt-neox"], "float16"))
    (65520, 'float16')
    >>> position_overflow(Emulation(tg, PRESETS["gpt-neox"], "bfloat16")) is None
    True
    """
    if em.recipe.inv_freq == "exact":
        return None
    found = [(lim, dt) for dt in (em.dt["position_dtype"], em.dt["angle_dtype"])
             if (lim := overflow_limit(dt)) is not None and lim <= 2**53]
    return min(found) if found else None


def overflow(em: Emulation, t_max: float) -> str:
    """What may overflow to ``inf`` at positions ``<= t_max`` (``""``: nothing), in words.

    Positions are checked exactly (:func:`position_overflow`); an angle ``t * theta_i``
    conservatively (the largest exact angle, enlarged by 1 %, against the overflow limit of
    the angle's dtype and of the dtype ``cos`` / ``sin`` receive it in).
    """
    pos = position_overflow(em)
    if pos is not None and t_max >= pos[0]:
        return f"overflow: positions >= {pos[0]} are inf in {pos[1]}"
    if em.recipe.inv_freq == "exact":
        return ""
    a_max = t_max * float(np.max(np.abs(em.theta_hi))) * 1.01
    dts = [em.dt["angle_dtype"]] + ([] if em.recipe.reduce else [em.dt["trig_dtype"]])
    for dt in dts:
        lim = overflow_limit(dt)
        if lim is not None and a_max >= lim:
            return f"overflow: angles t*theta >= {lim} are inf in {dt}"
    return ""


@dataclass(frozen=True)
class AngleBound:
    """The angle bound over positions ``< t_max`` and its parts at the worst pair."""

    value: float
    pair: int
    parts: dict[str, float]
    dominant: str


def _position_roundoff(em: Emulation, t_max: float) -> tuple[float, str]:
    """Unit roundoff the positions suffer on their way to the multiply (0 while exact)."""
    worst, where = 0.0, ""
    for field in ("position_dtype", "angle_dtype"):
        dt = em.dt[field]
        if em.recipe.inv_freq == "exact":
            continue
        if t_max > exact_integer_limit(dt) and UNIT_ROUNDOFF[dt] > worst:
            worst, where = UNIT_ROUNDOFF[dt], dt
    return worst, where


def angle_bound(em: Emulation, t_max: float) -> AngleBound:
    """The proved first-order-exact bound for every position ``0 <= t <= t_max``.

    >>> from pe_symbolic import numeric
    >>> from pe_symbolic.audit.emulate import rope_target
    >>> from pe_symbolic.audit.recipes import PRESETS
    >>> em = Emulation(rope_target(numeric.model_config("llama-3.1-8b"), "llama"), PRESETS["hf"], "bfloat16")
    >>> b = angle_bound(em, 131071.0)
    >>> b.dominant, f"{b.value:.2g}"
    ('inv_freq (reciprocal in float32)', '0.011')
    """
    r = em.recipe
    theta = em.theta_hi
    a = t_max * theta  # |t theta_i| at the band's largest position
    if r.inv_freq == "exact":
        val = a * 2.0**-100
        i = int(np.argmax(val))
        return AngleBound(float(val[i]), i, {"double-double angle": float(val[i])}, "double-double angle")
    over = overflow(em, t_max)
    u_p, pos_dt = _position_roundoff(em, t_max)
    Da, Dt = em.dt["angle_dtype"], em.dt["trig_dtype"]
    u_m = UNIT_ROUNDOFF[Da]
    # the cast of the angle to the trig dtype (none when reducing: added below, absolutely)
    u_c = UNIT_ROUNDOFF[Dt] if PRECISION[Dt] < PRECISION[Da] and not r.reduce else 0.0
    h = em.h
    if r.inv_freq == "running":
        idx = np.arange(h, dtype=np.float64)
        # logarithms: (1+x)(1+y) - 1 in float64 would round 1 + 1e-16 to 1
        log_growth = idx * (np.log1p(em.eps_step) + np.log1p(u_m))
        if em.factor is not None:
            log_div = np.where(em.factor == 1, 0.0, np.log1p(em.eps_factor) + np.log1p(u_m))
        else:
            log_div = np.zeros(h)
        gamma = np.expm1(np.log1p(u_p) + log_growth + log_div + np.log1p(u_c)) * _SAFETY
        val = gamma * a
        i = int(np.argmax(val))
        parts = {
            f"positions ({pos_dt})" if pos_dt else "positions (exact)": u_p * a[i],
            f"running product ({i} roundings of s, |eps_s| = {em.eps_step:.1e})": float(np.expm1(log_growth[i]) * a[i]),
            "freq_factors division": float(np.expm1(log_div[i]) * a[i]),
            f"angle cast to {Dt}": u_c * a[i],
        }
    else:
        gamma = np.expm1(np.log1p(u_p) + np.log1p(em.eps) + np.log1p(u_m) + np.log1p(u_c)) * _SAFETY
        val = gamma * a
        i = int(np.argmax(val))
        what = r.inv_freq + (f", held in {em.storage}" if em.storage else f" in {em.dt['inv_freq_dtype']}")
        parts = {
            f"positions ({pos_dt})" if pos_dt else "positions (exact)": u_p * a[i],
            f"inv_freq ({what})": float(em.eps[i] * a[i]),
            f"the {Da} product t*theta" if r.inv_freq != "divide" else f"the {Da} division t/b**(2i/d)": u_m * a[i],
            f"angle cast to {Dt}": u_c * a[i],
        }
    if r.reduce:  # fmod by float64 2 pi (exact, but 2 pi is rounded), then the cast of r < 2 pi
        extra = a * 2.0**-53 + 2 * math.pi * UNIT_ROUNDOFF[Dt]
        val = val + extra
        i = int(np.argmax(val))
        parts["reduction modulo 2 pi, then the cast to " + Dt] = float(extra[i])
    if over:  # no finite bound: the first-order model assumes no overflow
        parts[over] = math.inf
        return AngleBound(math.inf, i, {k: float(v) for k, v in parts.items()}, over)
    dominant = max(parts, key=lambda k: parts[k])
    short = dominant
    if dominant.startswith("positions"):
        short = f"positions held in {pos_dt}"
    elif dominant.startswith("running"):
        short = f"running product ({i} roundings)"
    elif dominant.startswith("reduction"):
        short = f"cast of the reduced angle to {Dt}"
    return AngleBound(float(val[i]), i, {k: float(v) for k, v in parts.items()}, short)


def derived_bounds(em: Emulation, angle: AngleBound, t_max: float) -> dict[str, float]:
    """Table, output and score bounds from the angle bound (see the module docstring)."""
    r, tg = em.recipe, em.target
    if math.isinf(angle.value):  # overflow: cos(inf) is NaN, nothing downstream is bounded
        return {"table": math.inf} | ({"output": math.inf, "score": math.inf} if tg.kind == "rope"
                                      else {"score": math.inf})
    af = max(tg.attention, 1.0)
    Dt, Dtab = em.dt["trig_dtype"], em.dt["table_dtype"]
    u_t, u_tab = UNIT_ROUNDOFF[Dt], UNIT_ROUNDOFF[Dtab]
    if r.inv_freq == "exact":
        table = af * 7 * 2.0**-53 + (af * u_tab if Dtab != "float64" else 0.0)
    else:
        a_err = min(angle.value, 2.0)
        trig = 2 * (u_t if Dt in ("float64", "float32") else UNIT_ROUNDOFF["float32"]) + (
            u_t if Dt not in ("float64", "float32") else 0.0)
        table = af * (a_err + trig) + (af * u_t if tg.attention != 1.0 else 0.0) + (
            af * u_tab if Dtab != Dt else 0.0)
    table = min(table, 2 * af) + REFERENCE_SLACK
    out: dict[str, float] = {"table": table}
    if tg.kind == "rope":
        act = em.act
        R = "float32" if r.inv_freq == "exact" else em.rotation
        u_r, u_a = UNIT_ROUNDOFF[R], UNIT_ROUNDOFF[act]
        o = 2 * table + (math.sqrt(2) + 1) * math.sqrt(2) * af * u_r * 1.01
        if R != act:
            o += math.sqrt(2) * af * u_a * 1.01
        o += REFERENCE_SLACK
        out["output"] = o
        out["score"] = 2 * af * o + o * o + REFERENCE_SLACK
    else:
        out["score"] = 2 * table + table * table + REFERENCE_SLACK
    return out
