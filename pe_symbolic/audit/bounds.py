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
from dataclasses import dataclass, field

import numpy as np

from .emulate import PRECISION, UNIT_ROUNDOFF, Emulation, overflow_limit
from .rounding import FAST_TRIG_ERROR, RoundingSequence, rounding_sequence, underflow

__all__ = ["AngleBound", "PairConstants", "angle_bound", "derived_bounds", "exact_integer_limit", "half_ulp",
           "overflow", "pair_constants", "position_overflow", "rotation_error", "score_bound", "score_terms"]

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
    """The angle bound over positions ``<= t_max`` and its parts at the worst pair;
    ``per_pair`` the bound of each pair and ``systematic`` the part of it that is the
    inverse frequency's own error, ``|eps_i| t_max theta_i`` (the same sign at every position:
    it cancels in a difference of positions but for the offset)."""

    value: float
    pair: int
    parts: dict[str, float]
    dominant: str
    per_pair: np.ndarray | None = field(default=None, compare=False, repr=False)
    systematic: np.ndarray | None = field(default=None, compare=False, repr=False)


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
    ('inv_freq (reciprocal in float32)', '0.0095')
    """
    r = em.recipe
    theta = em.theta_hi
    a = t_max * theta  # |t theta_i| at the band's largest position
    if r.inv_freq == "exact":
        val = a * 2.0**-100
        i = int(np.argmax(val))
        return AngleBound(float(val[i]), i, {"double-double angle": float(val[i])}, "double-double angle",
                          val, np.zeros_like(val))
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
        log_growth = idx * (np.log1p(em.eps_step_bound) + np.log1p(u_m))
        log_div = np.zeros(h)
        if em.factor is not None:
            # the factors as a GGUF stores them: any float32 within an ulp of the exact 1/ratio
            eps_f = np.where(em.eps_factor == 0, 0.0, em.eps_factor + 2 * UNIT_ROUNDOFF[em.dt["inv_freq_dtype"]])
            log_div = np.where(em.factor == 1, 0.0, np.log1p(eps_f) + np.log1p(u_m))
        elif em.yarn is not None:  # rope_yarn's mix: the exact error of the mixed frequency, then
            fs, rm = em.yarn       # fl(fs*theta) (exact for a power of two), two products and the sum
            fs_round = 0.0 if math.frexp(fs)[0] == 0.5 else np.log1p(u_m)
            mix = np.where((rm > 0) & (rm < 1), 2 * np.log1p(u_m) + fs_round, np.where(rm == 0, fs_round, 0.0))
            log_growth = idx * np.log1p(u_m) + np.log1p(em.eps_bound) + mix
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
        gamma = np.expm1(np.log1p(u_p) + np.log1p(em.eps_bound) + np.log1p(u_m) + np.log1p(u_c)) * _SAFETY
        val = gamma * a
        i = int(np.argmax(val))
        what = r.inv_freq + (f", held in {em.storage}" if em.storage else f" in {em.dt['inv_freq_dtype']}")
        parts = {
            f"positions ({pos_dt})" if pos_dt else "positions (exact)": u_p * a[i],
            f"inv_freq ({what})": float(em.eps_bound[i] * a[i]),
            f"the {Da} product t*theta" if r.inv_freq != "divide" else f"the {Da} division t/b**(2i/d)": u_m * a[i],
            f"angle cast to {Dt}": u_c * a[i],
        }
    sharp = _binade_bound(em, t_max)
    if sharp is not None and not over:  # the same roundings, each at most half an ulp of its binade
        val = np.minimum(val, sharp["total"])
        i = int(np.argmax(val))
        if sharp["total"][i] <= val[i]:  # the worst pair's bound is the binade one: its parts
            named = dict(parts)
            keys = list(named)
            if r.inv_freq == "running":
                named[keys[1]] = float(sharp["running"][i])
                named[keys[2]] = 0.0
            else:
                named[keys[0]] = float(sharp["positions"][i])
                named[keys[1]] = float(em.eps_bound[i] * a[i])
                named[keys[2]] = float(sharp["product"][i])
            named[keys[3]] = float(sharp["cast"][i])
            parts = named
    if r.reduce:  # fmod by float64 2 pi (exact, but 2 pi is rounded), then the cast of r < 2 pi
        extra = a * 2.0**-53 + 2 * math.pi * UNIT_ROUNDOFF[Dt]
        val = val + extra
        i = int(np.argmax(val))
        parts["reduction modulo 2 pi, then the cast to " + Dt] = float(extra[i])
    if r.trig == "fast":  # __sinf's float32 reduction: fl(x * fl(1/(2 pi))), about 2 u |x|
        red = 2 * UNIT_ROUNDOFF["float32"] * (a + val) * (1 + 2 * UNIT_ROUNDOFF["float32"]) * _SAFETY
        val = val + red
        i = int(np.argmax(val))
        parts["fast-math reduction (x * fl(1/(2 pi)) in float32)"] = float(red[i])
    sys_part = np.minimum(em.eps_bound * a, val)
    if over:  # no finite bound: the first-order model assumes no overflow
        parts[over] = math.inf
        return AngleBound(math.inf, i, {k: float(v) for k, v in parts.items()}, over,
                          np.full_like(val, math.inf), sys_part)
    dominant = max(parts, key=lambda k: parts[k])
    short = dominant
    if dominant.startswith("positions"):
        short = f"positions held in {pos_dt}"
    elif dominant.startswith("running"):
        short = f"running product ({i} roundings)"
    elif dominant.startswith("reduction"):
        short = f"cast of the reduced angle to {Dt}"
    elif dominant.startswith("fast"):
        short = "fast-math reduction"
    return AngleBound(float(val[i]), i, {k: float(v) for k, v in parts.items()}, short, val, sys_part)


def half_ulp(v: np.ndarray | float, dtype: str) -> np.ndarray:
    """The largest error of rounding to nearest, in ``dtype``, any value of magnitude at most
    ``v``: half an ulp of ``v``'s binade, ``2**(floor(log2 v) - p)``; at a power of two, whose
    own rounding is exact, the binade below's; never below half the smallest subnormal.

    >>> float(half_ulp(3.0, "bfloat16")), float(half_ulp(4.0, "bfloat16")), float(half_ulp(0.0, "float32"))
    (0.0078125, 0.0078125, 7.006492321624085e-46)
    """
    v = np.abs(np.asarray(v, np.float64))
    m, k = np.frexp(v)  # v = m 2**k, 0.5 <= m < 1: floor(log2 v) = k - 1
    from .rounding import EMIN

    tiny = 2.0 ** (EMIN[dtype] - 1)
    k = np.where(m == 0.5, k - 1, k)
    return np.where(v > 0, np.maximum(np.ldexp(1.0, k - 1 - PRECISION[dtype]), tiny), tiny)


def _binade_bound(em: Emulation, t_max: float) -> dict[str, np.ndarray] | None:
    """The angle bound with each rounding taken as half an ulp of the binade its result lies
    in (at most ``u |x|``, as little as half of it): for the product recipes and llama.cpp's
    running product (with its freq_factors or YaRN mix), rounding to nearest; ``None`` for the
    others. The inverse frequency's own error is ``eps_i t theta_i`` as in the first-order
    bound."""
    r = em.recipe
    if r.inv_freq in ("exact", "divide") or r.reduce:
        return None
    dt = em.dt
    P, A, Dt = dt["position_dtype"], dt["angle_dtype"], dt["trig_dtype"]
    theta = em.theta_hi
    T = float(t_max)
    e_pos = 0.0
    for d in (P, A):
        if d != "int64" and T + e_pos > exact_integer_limit(d):
            e_pos += float(half_ulp(T + e_pos, d))
    T1 = T + e_pos
    sys_part = em.eps_bound * T * theta
    if r.inv_freq == "running":
        s_hat = float(em.step)
        h = em.h
        err = np.empty(h)
        mag = np.empty(h)
        E, V = e_pos, T1
        for k in range(h):
            if k > 0:
                V = V * s_hat * (1 + UNIT_ROUNDOFF[A])
                E = E * s_hat + float(half_ulp(V, A))
            err[k], mag[k] = E, V
        if em.factor is not None:
            ff = em.factor
            q = np.where(ff == 1, 1.0, 1 / np.where(ff == 0, 1, ff))
            err = np.where(ff == 1, err, err * q + half_ulp(mag * q * (1 + UNIT_ROUNDOFF[A]), A))
            mag = mag * q * (1 + UNIT_ROUNDOFF[A])
        elif em.yarn is not None:
            fs, rm = em.yarn
            om = (np.float32(1) - rm).astype(np.float64)
            e_ti = fs * err + (0.0 if math.frexp(fs)[0] == 0.5 else half_ulp(fs * mag, A))
            ramp = (rm > 0) & (rm < 1)
            mixed = (om * e_ti + half_ulp(fs * om * mag, A) + rm * err + half_ulp(rm * mag, A)
                     + half_ulp((fs * om + rm) * mag * (1 + UNIT_ROUNDOFF[A]), A))
            err = np.where(ramp, mixed, np.where(rm == 0, e_ti, err))
            mag = np.where(rm == 0, fs * mag, np.where(ramp, (fs * om + rm) * mag, mag)) * (1 + 2 * UNIT_ROUNDOFF[A])
        rounding = err
        parts = {"running": err}
    else:
        V = T1 * theta * (1 + em.eps_bound)
        pos = e_pos * theta * (1 + em.eps_bound)
        rounding = pos + half_ulp(V, A)
        mag = V * (1 + UNIT_ROUNDOFF[A])
        parts = {"positions": pos, "product": rounding - pos}
    cast = half_ulp(mag + rounding, Dt) if PRECISION[Dt] < PRECISION[A] else np.zeros_like(rounding)
    parts |= {"cast": cast, "total": (sys_part + rounding + cast) * _SAFETY}
    return parts


def derived_bounds(em: Emulation, angle: AngleBound, t_max: float, *, t_key: float | None = None,
                   max_offset: int | None = None, norm: float | None = None) -> dict[str, float]:
    """Table, output and score bounds from the angle bound and the rounding sequence (see the
    module docstring): ``table`` the largest error of a cos / sin entry, ``output`` the length
    of a rotated pair's error vector (input pairs of norm at most ``norm``, default a unit pair
    rounded to the activation dtype), ``score`` the error of ``<R(m) q, R(n) k> / h`` for pairs
    of that norm, queries ``m <= t_max``, keys ``n <= t_key`` (default ``t_max + max_offset``),
    ``|n - m| <= max_offset`` (default the emulation's largest offset)."""
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
        lib = UNIT_ROUNDOFF["float32"] if Dt not in ("float64", "float32") else u_t
        trig = 2 * lib + (u_t if Dt not in ("float64", "float32") else 0.0)
        if r.trig == "fast":
            trig = FAST_TRIG_ERROR
        table = af * (a_err + trig) + (af * u_t if tg.attention != 1.0 else 0.0) + (
            af * u_tab if Dtab != Dt else 0.0) + abs(em.af - tg.attention)
    table = min(table, 2 * af) + REFERENCE_SLACK
    out: dict[str, float] = {"table": table}
    if tg.kind != "rope":
        out["score"] = 2 * table + table * table + REFERENCE_SLACK
        return out
    seq = rounding_sequence(em)
    X = (1 + UNIT_ROUNDOFF[em.act]) if norm is None else float(norm)
    pc = pair_constants(em, seq)
    rot = rotation_error(seq, X, pc.c_max)
    A = angle.per_pair if angle.per_pair is not None else np.full(em.h, angle.value)
    tv = pc.k * np.minimum(A, 2.0) + pc.tau
    out["output"] = float(np.max(X * tv) + rot) * _SAFETY + REFERENCE_SLACK
    D = max(em.offsets, default=0) if max_offset is None else int(max_offset)
    tk = t_max + D if t_key is None else float(t_key)
    key = angle if tk <= t_max else angle_bound(em, tk)
    if math.isinf(key.value):
        out["score"] = math.inf
        return out
    out["score"] = score_bound(em, angle, key, D, X, pc, rot)
    return out


@dataclass(frozen=True)
class PairConstants:
    """What the rounding sequence adds to a table entry beside the angle's error:
    ``tau`` bounds ``|C_hat - af e^(i a_hat)|`` (the library's cos / sin, the attention
    factor's rounding and multiply, the cast to the table's dtype: as a vector, per pair),
    ``c_max`` bounds ``|C_hat|``."""

    tau: float
    c_max: float
    k: float = 1.0
    """The attention factor as the recipe multiplies by it (the angle error is scaled by it)."""


def pair_constants(em: Emulation, seq: RoundingSequence) -> PairConstants:
    """:class:`PairConstants` of ``em``, from its rounding sequence: the library's ``cos`` /
    ``sin`` within ``L`` (per component), then the chain of roundings the table goes through --
    the cast to the trig dtype, the product by the attention factor ``k`` (as the recipe holds
    it), the cast to the table's dtype -- composed into ``|T x - k x| <= w |k x| + eta``; as a
    vector: ``tau = |k - af| + k sqrt2 L + w k (1 + sqrt2 L) + sqrt2 eta`` beside the angle's
    ``k min(A, 2)``, and ``|C_hat| <= k (1 + sqrt2 L)(1 + w) + sqrt2 eta``
    (:mod:`~pe_symbolic.audit.coq_rotation` proves both, with these constants)."""
    af = em.target.attention
    k = em.af if em.recipe.inv_freq != "exact" else af
    cs = seq.step("cos/sin")
    L = cs.absolute
    w, eta = 0.0, 0.0
    chain = [(cs.unit, cs.dtype, 1.0)] if cs.rounding == "library" and cs.unit else []
    if seq.step("attention").rounding != "exact":
        st = seq.step("attention")
        chain.append((st.unit, st.dtype, k))
    if seq.step("table").rounding == "nearest":
        st = seq.step("table")
        chain.append((st.unit, st.dtype, 1.0))
    for u2, dt, kk in chain:
        e2 = underflow(dt)
        w, eta = w + u2 + w * u2, eta * abs(kk) * (1 + u2) + e2
    root2 = math.sqrt(2)
    tau = abs(k - af) + k * root2 * L + w * k * (1 + root2 * L) + root2 * eta
    return PairConstants(tau * _SAFETY, (k * (1 + root2 * L) * (1 + w) + root2 * eta) * _SAFETY, k)


def rotation_error(seq: RoundingSequence, X: float, c_max: float) -> float:
    """The length of the error vector the rotation's own arithmetic adds, for an input pair
    of norm ``<= X`` and table entries of modulus ``<= c_max``: the loads into the rotation's
    dtype, the products (``sqrt 2 u |x||C|`` for two rounded products a coordinate, ``u |x||C|``
    with an FMA), the sum, the store; each rounding also adds its absolute part (subnormals)."""
    root2 = math.sqrt(2)
    load = seq.step("rotation load")
    u_l = load.unit
    P = X * c_max * (1 + u_l) ** 2  # |x_R| |C_R| after the loads
    err = 2 * u_l * X * c_max * (1 + u_l)  # x's and the table's rounding into the rotation dtype
    prod, total = seq.step("products"), seq.step("sum")
    k = seq.products_rounded
    e_prod = (root2 if k == 2 else 1.0) * prod.unit * P + root2 * k * prod.absolute
    e_sum = total.unit * (P + e_prod) + root2 * total.absolute
    err += e_prod + e_sum
    store = seq.step("store")
    if store.rounding != "exact":
        err += store.unit * (P + e_prod + e_sum) + root2 * store.absolute
    return err * _SAFETY


def score_terms(em: Emulation, X: float, pc: PairConstants, rot: float) -> tuple[float, float]:
    """One pair's score bound as ``slope * d + base`` for a difference ``d`` of the two
    positions' angle errors: ``slope = X^2 k^2``, ``base = X^2 (2 k tau + tau^2) + 2 X c_max rho
    + rho^2`` (``k`` the larger of the attention factor and the recipe's; lemma
    ``pe_score_pair`` of :mod:`~pe_symbolic.audit.coq_rotation`)."""
    k = max(em.target.attention, pc.k)
    return X * X * k * k, X * X * (2 * k * pc.tau + pc.tau**2) + 2 * X * pc.c_max * rot + rot**2


def score_bound(em: Emulation, query: AngleBound, key: AngleBound, max_offset: int, X: float,
                pc: PairConstants, rot: float) -> float:
    r"""The score bound: the mean over pairs of

    .. math:: X^2\big(k^2 d_i + 2 k \tau + \tau^2\big) + 2 X c_{max} \rho + \rho^2
              \quad (:func:`score_terms`),

    with ``d_i`` the bound of the difference of pair ``i``'s angle errors at the key and the
    query: ``|eps_i| theta_i max_offset`` (the inverse frequency's error, the same sign at
    both positions) plus the rest of both positions' angle bounds (their roundings, which do
    not cancel); ``tau``, ``c_max`` of :func:`pair_constants`; ``rho`` the rotation's own error
    (:func:`rotation_error`)."""
    theta = em.theta_hi
    q_sys = query.systematic if query.systematic is not None else np.zeros(em.h)
    k_sys = key.systematic if key.systematic is not None else np.zeros(em.h)
    rounding = (query.per_pair - q_sys) + (key.per_pair - k_sys)
    d = em.eps_bound * theta * max_offset * (1 + 2.0**-40) + rounding
    slope, base = score_terms(em, X, pc, rot)
    return float(np.mean(slope * d + base)) * _SAFETY + REFERENCE_SLACK
