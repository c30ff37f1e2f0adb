r"""How far a model's positions go: the context it admits, and where a dtype's tables stop being meaningful.

For every rotating site of a model's RoPE program (:func:`~pe_symbolic.numeric.read_program`):

* **admitted**: the largest position the config is made for -- ``factor x
  original_max_position_embeddings`` for the scalings fitted to an extension (``yarn``,
  ``llama3``, ``longrope``), else ``max_position_embeddings`` (the larger of the two when both
  apply), minus one;
* per dtype a table may be formed in (positions, inverse frequencies and the product all in
  that dtype -- HF forms them in float32 whatever the model's dtype), the first position where

  - positions are no longer exact integers: :math:`2^p` for :math:`p` significand bits (24,
    8, 11 for float32, bfloat16, float16);
  - the angle bound of claim ``precision.angle`` for the fastest pair,
    :math:`\Gamma\, t\,\theta_{max}` with :math:`\Gamma = (1+u)^3 - 1` (the position's, the
    frequency's and the product's roundings, :math:`u = 2^{-p}`; the position's is 0 below
    :math:`2^p`), reaches one radian: past it a table entry does not say which position it is;
  - float16 overflows: positions :math:`\ge 65520` round to ``inf``.

Engines' table sizes are the engines floor's (:func:`pe_symbolic.usable_context`).

>>> from pe_symbolic.numeric import model_config, read_program
>>> ctx = site_context(read_program(model_config("qwen2.5-7b-yarn")).at(0))
>>> ctx.admitted, ctx.why
(131071, 'yarn factor 4 x original_max_position_embeddings 32,768')
>>> [(lim.dtype, lim.position) for lim in ctx.limits if lim.kind == "inexact positions"]
[('float32', 16777217), ('bfloat16', 257), ('float16', 2049)]
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ._spec import RopeSpec
from .program import RopeProgram, RopeSite

__all__ = ["DTYPES", "DtypeLimit", "SiteContext", "admitted_context", "dtype_limits", "program_context",
           "site_context"]

#: dtype -> (significand bits p, the first position that overflows to inf, or None).
DTYPES: dict[str, tuple[int, int | None]] = {"float32": (24, None), "bfloat16": (8, None), "float16": (11, 65520)}
#: The claim the angle bound is (:mod:`pe_symbolic.theorems.precision`).
ANGLE_CLAIM = "precision.angle"


@dataclass(frozen=True)
class DtypeLimit:
    """Where a table formed in ``dtype`` stops being meaningful, and why."""

    dtype: str
    kind: str
    """``"inexact positions"``, ``"angle error 1 rad"`` or ``"overflow"``."""
    position: int
    """The first position concerned."""
    lemma: str
    """What says so."""


@dataclass(frozen=True)
class SiteContext:
    """The usable context of one site."""

    module: str
    layers: tuple[int, ...] | None
    admitted: int
    """The largest position the model admits there."""
    why: str
    limits: tuple[DtypeLimit, ...]

    def first_limit(self, dtype: str) -> DtypeLimit | None:
        """The first of ``dtype``'s limits that falls within the admitted positions (``None``: none)."""
        inside = [lim for lim in self.limits if lim.dtype == dtype and lim.position <= self.admitted]
        return min(inside, key=lambda lim: lim.position) if inside else None


def admitted_context(spec: RopeSpec) -> tuple[int | None, str]:
    """(the number of positions the config admits, why); ``(None, "")`` when it says nothing.

    >>> from pe_symbolic.numeric import parse_rope_config
    >>> admitted_context(parse_rope_config({"head_dim": 8, "max_position_embeddings": 4096}))
    (4096, 'max_position_embeddings')
    """
    best: tuple[int | None, str] = (None, "")
    cands: list[tuple[int, str]] = []
    if spec.max_position_embeddings:
        cands.append((spec.max_position_embeddings, "max_position_embeddings"))
    if spec.rope_type in ("yarn", "telechat3-yarn", "llama3", "longrope") and spec.factor \
            and spec.original_max_position_embeddings:
        cands.append((int(round(spec.factor * spec.original_max_position_embeddings)),
                      f"{spec.rope_type} factor {spec.factor:g} x original_max_position_embeddings "
                      f"{spec.original_max_position_embeddings:,}"))
    for n, why in cands:
        if best[0] is None or n > best[0]:
            best = (n, why)
    return best


def dtype_limits(theta_max: float, dtypes: tuple[str, ...] = tuple(DTYPES)) -> tuple[DtypeLimit, ...]:
    """The limits of tables formed in each of ``dtypes`` for a fastest frequency ``theta_max``.

    >>> [(lim.kind, lim.position) for lim in dtype_limits(1.0, ("float32",))]
    [('inexact positions', 16777217), ('angle error 1 rad', 8388608)]
    """
    out = []
    for dt in dtypes:
        if dt not in DTYPES:
            raise ValueError(f"dtype={dt!r} is not one of {', '.join(map(repr, DTYPES))}")
        p, inf_at = DTYPES[dt]
        u = 2.0 ** -p
        exact = 2 ** p
        out.append(DtypeLimit(dt, "inexact positions", exact + 1,
                              f"integers up to 2**{p} = {exact:,} are exact in {dt} ({p} significand bits); "
                              f"{exact + 1:,} is not: past it the position's rounding u_p = 2**-{p} enters "
                              f"{ANGLE_CLAIM}"))
        if theta_max > 0:
            # below 2**p the position is exact: Gamma = (1+u)^2 - 1; past it (1+u)^3 - 1
            t = math.ceil(1.0 / (((1 + u) ** 2 - 1) * theta_max))
            if t > exact:
                t = math.ceil(1.0 / (((1 + u) ** 3 - 1) * theta_max))
            out.append(DtypeLimit(dt, "angle error 1 rad", t,
                                  f"{ANGLE_CLAIM}: |a_hat - t theta| <= Gamma t theta with Gamma = (1+u)^k - 1, u = "
                                  f"2**-{p} (k = 2 for exact positions, 3 past 2**{p}); the fastest pair (theta = "
                                  f"{theta_max:.6g}) reaches 1 rad at t = {t:,}"))
        if inf_at is not None:
            out.append(DtypeLimit(dt, "overflow", inf_at,
                                  f"{dt}'s largest finite value is 65504: positions >= {inf_at:,} round to inf"))
    return tuple(out)


def site_context(site: RopeSite, dtypes: tuple[str, ...] = tuple(DTYPES)) -> SiteContext:
    """The usable context of one rotating site (see the module docstring).

    Raises
    ------
    ValueError
        The site is NoPE (no table), or the config says nothing about its context.
    """
    if site.spec is None:
        raise ValueError(f"the {site.module} site of layers {site.layers} has no RoPE ({site.nope}): no table")
    n, why = admitted_context(site.spec)
    if n is None:
        raise ValueError("the config gives neither max_position_embeddings nor a scaling's original length: the "
                         "context it admits is not said")
    from ._frequencies import _exact_frequencies, _seq_key

    values, _ = _exact_frequencies(site.spec, _seq_key(site.spec, None))
    theta_max = max((float(v) for v in values), default=0.0)
    return SiteContext(site.module, site.layers, n - 1, why, dtype_limits(theta_max, dtypes))


def program_context(program: RopeProgram, dtypes: tuple[str, ...] = tuple(DTYPES)) -> tuple[SiteContext, ...]:
    """:func:`site_context` of every rotating site whose config says its context."""
    out = []
    for s in program.sites:
        if s.spec is None:
            continue
        try:
            out.append(site_context(s, dtypes))
        except ValueError:
            continue
    return tuple(out)


def context_line(program: RopeProgram) -> str:
    """The line :func:`~pe_symbolic.numeric.describe` prints (``""`` when nothing is said)."""
    ctxs = [c for c in program_context(program) if c.module == "attention"]
    if not ctxs:
        return ""
    c = max(ctxs, key=lambda c: c.admitted)
    parts = []
    for dt in DTYPES:
        got = {lim.kind: lim.position for lim in c.limits if lim.dtype == dt}
        text = f"{dt} exact to {got['inexact positions'] - 1:,}"
        if "angle error 1 rad" in got:
            text += f", angle error 1 rad from {got['angle error 1 rad']:,}"
        if "overflow" in got:
            text += f", inf from {got['overflow']:,}"
        parts.append(text)
    return (f"usable context: positions 0 .. {c.admitted:,} admitted ({c.why}); tables formed in " + "; ".join(parts)
            + f" ({ANGLE_CLAIM}; HF forms them in float32); engines: pe_symbolic.usable_context(config)")
