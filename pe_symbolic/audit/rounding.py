r"""The rounding sequence of a recipe: every operation, in order, and how its result is rounded.

A :class:`~pe_symbolic.audit.recipes.Recipe` says where values live; :func:`rounding_sequence`
spells out what that means operation by operation for one target and activation dtype --
the inverse frequencies (their exact error, known), the positions, the product that forms
the angle (or llama.cpp's running product and YaRN mix), the cast to the dtype ``cos`` /
``sin`` receive, the library's ``cos`` / ``sin`` (IEEE or fast-math), the attention factor,
the table's dtype, and the rotation: the loads into its dtype, the products (which one an
FMA rounds first), the sum, the store -- each with the dtype it rounds to, the rounding
(``nearest``, ``truncate``, ``library``, ``fast``, ``exact``) and the relative and absolute
error that rounding may add. The output and score bounds of
:mod:`pe_symbolic.audit.bounds` read their constants from here, so two recipes that round
differently get different bounds.

>>> import pe_symbolic as pe
>>> from pe_symbolic.audit.emulate import Emulation, rope_target
>>> from pe_symbolic.audit.recipes import PRESETS
>>> tg = rope_target(pe.numeric.model_config("llama-3.1-8b"), "llama")
>>> seq = rounding_sequence(Emulation(tg, PRESETS["hf"], "bfloat16"))
>>> [s.name for s in seq.steps]
['inv_freq', 'positions', 'angle', 'cos/sin', 'table', 'products', 'sum']
>>> seq.step("products").unit == 2.0**-8, seq.products_rounded
(True, 2)
>>> vllm = rounding_sequence(Emulation(tg, PRESETS["vllm"], "bfloat16"))
>>> [s.name for s in vllm.steps][-4:], vllm.step("store").dtype
(['rotation load', 'products', 'sum', 'store'], 'bfloat16')
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from .emulate import PRECISION, UNIT_ROUNDOFF, Emulation

__all__ = ["FAST_TRIG_ERROR", "ROUNDINGS", "RoundingSequence", "Step", "rounding_sequence", "unit", "underflow"]

#: What a step may do to its result.
ROUNDINGS = ("exact", "known", "nearest", "truncate", "library", "fast")
#: The error allowed ``__sinf`` / ``__cosf`` on the reduced range ``|x| <= pi``: CUDA documents
#: ``2**-21.41``; the bounds (and their Coq statements) take the power of two above it.
FAST_TRIG_ERROR = 2.0**-21
#: Smallest exponent of each format's subnormals (Flocq's ``emin``): half of ``2**emin`` is the
#: absolute part of a rounding's error.
EMIN = {"float64": -1074, "float32": -149, "float16": -24, "bfloat16": -133, "tf32": -149}


def unit(dtype: str, rounding: str = "nearest") -> float:
    """The relative error of one rounding to ``dtype``: ``2**-p`` to nearest, ``2**(1-p)``
    toward zero (a whole ulp), 0 for ``int64`` (exact).

    >>> unit("bfloat16"), unit("bfloat16", "truncate"), unit("int64")
    (0.00390625, 0.0078125, 0.0)
    """
    if dtype == "int64":
        return 0.0
    u = UNIT_ROUNDOFF[dtype]
    return 2 * u if rounding == "truncate" else u


def underflow(dtype: str, rounding: str = "nearest") -> float:
    """The absolute part of one rounding's error in ``dtype`` (where the result is subnormal):
    half the smallest subnormal to nearest, all of it toward zero."""
    if dtype == "int64":
        return 0.0
    e = 2.0 ** EMIN[dtype]
    return e if rounding == "truncate" else e / 2


@dataclass(frozen=True)
class Step:
    """One operation: what it computes, the dtype its result is rounded to, how, and the error
    that rounding may add (``unit``: relative to the result; ``absolute``: on top of it)."""

    name: str
    formula: str
    dtype: str
    rounding: str
    unit: float = 0.0
    absolute: float = 0.0
    note: str = ""

    def to_dict(self) -> dict[str, object]:
        """JSON-ready."""
        return {"name": self.name, "formula": self.formula, "dtype": self.dtype, "rounding": self.rounding,
                "unit": self.unit, "absolute": self.absolute, "note": self.note}


@dataclass(frozen=True)
class RoundingSequence:
    """The steps of one recipe for one target and activation dtype, in order."""

    recipe: str
    act: str
    steps: tuple[Step, ...]
    fma: str = "none"
    """``"none"``, ``"cos"``, ``"sin"``: the rotation's contraction the bound assumes (``"any"``
    is bounded as ``"none"``, its worst case)."""
    fma_declared: str = "none"
    """The recipe's own ``fma`` field (``"any"`` kept: a compiler's choice)."""

    def step(self, name: str) -> Step:
        """The step called ``name``; a step the recipe does not have is an exact one."""
        for s in self.steps:
            if s.name == name:
                return s
        return Step(name, "(none)", "", "exact")

    @property
    def products_rounded(self) -> int:
        """How many of the two products of each output coordinate are rounded (2 without an
        FMA, 1 with one)."""
        return 2 if self.fma == "none" else 1

    def text(self) -> str:
        """The sequence as a table, one step a line.

        >>> import pe_symbolic as pe
        >>> from pe_symbolic.audit.emulate import Emulation, rope_target
        >>> from pe_symbolic.audit.recipes import PRESETS
        >>> tg = rope_target(pe.numeric.model_config("llama-3.1-8b"), "llama")
        >>> print(rounding_sequence(Emulation(tg, PRESETS["hf"], "float32")).text().splitlines()[-2])
        products     fl(x*cos), fl(x*sin)                            float32   nearest   u 6.0e-08, abs 7.0e-46
        """
        lines = [f"{self.recipe} ({self.act}): the rounding sequence",
                 f"{'step':12} {'operation':47} {'dtype':9} {'rounding':9} error"]
        for s in self.steps:
            err = []
            if s.unit:
                err.append(f"u {s.unit:.1e}")
            if s.absolute:
                err.append(f"abs {s.absolute:.1e}")
            if s.note and not err:
                err.append(s.note)
            lines.append(f"{s.name:12} {s.formula[:47]:47} {s.dtype or '-':9} {s.rounding:9} {', '.join(err)}".rstrip())
        return "\n".join(lines)

    def to_dict(self) -> dict[str, object]:
        """JSON-ready."""
        return {"recipe": self.recipe, "act": self.act, "fma": self.fma, "steps": [s.to_dict() for s in self.steps]}


def _angle_steps(em: Emulation) -> list[Step]:
    r, dt = em.recipe, em.dt
    out = []
    if r.inv_freq == "exact":
        return [Step("angle", "t * theta as a double-double (40-digit theta)", "float64", "exact",
                     2.0**-100, note="relative 2**-100")]
    how = {"reciprocal": "1 / b**(2i/d)", "pow": "b**(-2i/d)", "exp": "exp(-i ln b / n)", "exp2": "exp2(-(i/h) log2 b)",
           "divide": "b**(2i/d) (a divisor)", "running": "s = b**(-2/d); s**i by products"}[r.inv_freq]
    out.append(Step("inv_freq", how + (f", held in {em.storage}" if em.storage else ""), dt["inv_freq_dtype"], "known",
                    note=f"exact error per pair, max {float(max(em.eps_bound)):.1e} (pow faithful)"))
    pd, ad = dt["position_dtype"], dt["angle_dtype"]
    out.append(Step("positions", f"t -> {pd}" + (f" -> {ad}" if ad != pd else ""), pd, "nearest" if pd != "int64" else "exact",
                    note="exact below 2**p"))
    if r.inv_freq == "running":
        out.append(Step("angle", "theta = t; theta *= s (per pair)" + (" / freq_factors" if em.factor is not None else ""),
                        ad, "nearest", unit(ad), note="i roundings for pair i"))
        if em.yarn is not None:
            out.append(Step("yarn mix", "fl(fl(fs*theta)*fl(1-r)) + fl(theta*r)", ad, "nearest", unit(ad),
                            note="3 roundings on the ramp's pairs"))
    elif r.inv_freq == "divide":
        out.append(Step("angle", "fl(t / divisor)", ad, "nearest", unit(ad)))
    else:
        out.append(Step("angle", "fl(t * inv_freq)", ad, "nearest", unit(ad)))
    T = dt["trig_dtype"]
    if r.reduce:
        out.append(Step("reduction", "fmod(angle, 2 pi) in float64, cast", T, "nearest", 0.0,
                        2 * math.pi * UNIT_ROUNDOFF[T]))
    elif PRECISION[T] < PRECISION[ad]:
        out.append(Step("angle cast", f"{ad} -> {T}", T, "nearest", unit(T)))
    return out


def rounding_sequence(em: Emulation) -> RoundingSequence:
    """Every rounding ``em``'s recipe does, in order (see the module docstring)."""
    r, dt, act = em.recipe, em.dt, em.act
    steps = _angle_steps(em)
    T, tab = dt["trig_dtype"], dt["table_dtype"]
    if r.inv_freq == "exact":
        steps.append(Step("cos/sin", "float64 cos / sin of the double-double angle", "float64", "library",
                          0.0, 7 * 2.0**-53))
    elif r.trig == "fast":
        steps.append(Step("cos/sin", "__cosf / __sinf: x * fl(1/(2 pi)) in float32, fraction, polynomial",
                          "float32", "fast", 2 * UNIT_ROUNDOFF["float32"], FAST_TRIG_ERROR,
                          note="unit: the reduction's error relative to the angle"))
    else:
        lib = T if T in ("float64", "float32") else "float32"
        steps.append(Step("cos/sin", f"the library's cos / sin in {lib}" + (f", rounded to {T}" if lib != T else ""),
                          T, "library", unit(T) if lib != T else 0.0, 2 * UNIT_ROUNDOFF[lib]))
    if em.af != 1.0 or em.target.attention != 1.0:
        steps.append(Step("attention", f"fl(cos * fl(af)), af = {em.af:.9g}", T, "nearest", unit(T),
                          abs(em.af - em.target.attention), note="absolute: |fl(af) - af|"))
    if tab != T or r.inv_freq == "exact":
        steps.append(Step("table", f"{T} -> {tab}", tab, "nearest" if tab != "float64" else "exact",
                          unit(tab) if tab != "float64" else 0.0))
    if em.target.kind != "rope":
        return RoundingSequence(r.name, act, tuple(steps))
    R = "float32" if r.inv_freq == "exact" else em.rotation
    mode = r.rounding
    loads = []
    if PRECISION[R] < PRECISION[act]:
        loads.append(f"x {act} -> {R}")
    if PRECISION[R] < PRECISION[tab]:
        loads.append(f"table {tab} -> {R}")
    if R != act or loads:
        steps.append(Step("rotation load", ", ".join(loads) or f"x, cos, sin upcast to {R} (exact)", R,
                          "nearest" if loads else "exact", unit(R) if loads else 0.0))
    fma = r.fma if r.fma in ("cos", "sin") else "none"
    what = {"none": "fl(x*cos), fl(x*sin)", "cos": "fl(x*cos); the sin products fused (FMA)",
            "sin": "fl(x*sin); the cos products fused (FMA)"}[fma]
    if r.fma == "any":
        what += " (FMA as the compiler picks: bounded as none)"
    steps.append(Step("products", what, R, mode, unit(R, mode), underflow(R, mode)))
    steps.append(Step("sum", "fl(x*cos - y*sin), fl(y*cos + x*sin)", R, mode, unit(R, mode), underflow(R, mode)))
    if R != act:
        steps.append(Step("store", f"{R} -> {act}", act, mode, unit(act, mode), underflow(act, mode)))
    return RoundingSequence(r.name, act, tuple(steps), fma, r.fma)
