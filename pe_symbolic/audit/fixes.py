"""The smallest change to a failing recipe that meets the tolerance, verified by re-running it.

Candidates are tried in order of cost, each alone first, then accumulated in that order;
each is measured on a quick set of positions (the first and last positions of the context
and runs at every power of two, where the errors peak), and the first that meets the
tolerance, with every value finite, is verified by a full audit of the changed recipe.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .emulate import PRECISION, Emulation, Target
from .measure import RUN, measure
from .recipes import PRESETS, Recipe

__all__ = ["CANDIDATES", "Fix", "smallest_fix"]

LOW = ("float16", "bfloat16")


def _res(r: Recipe, field: str, act: str) -> str:
    v = getattr(r, field)
    return act if v == "act" else v


def _positions(r: Recipe, act: str) -> dict[str, Any] | None:
    if r.inv_freq in ("exact", "running") or _res(r, "position_dtype", act) not in LOW:
        return None
    return {"position_dtype": "int64"}


def _inv_freq_storage(r: Recipe, act: str) -> dict[str, Any] | None:
    if r.inv_freq_storage is None or PRECISION.get(_res(r, "inv_freq_storage", act), 53) >= 24:
        return None
    return {"inv_freq_storage": None}


def _product_float32(r: Recipe, act: str) -> dict[str, Any] | None:
    if r.inv_freq in ("exact", "running") or PRECISION[_res(r, "angle_dtype", act)] >= 24:
        return None
    return {"position_dtype": "int64", "inv_freq_storage": None, "angle_dtype": "float32",
            "inv_freq_dtype": "float32", "trig_dtype": "float32"}


def _trig_float32(r: Recipe, act: str) -> dict[str, Any] | None:
    if PRECISION[_res(r, "trig_dtype", act)] >= 24:
        return None
    return {"trig_dtype": "float32"}


def _table_float32(r: Recipe, act: str) -> dict[str, Any] | None:
    if r.inv_freq == "exact":
        return None
    if PRECISION[_res(r, "table_dtype", act)] >= 24 and (r.kind == "sinusoidal" or r.rotation != "act"
                                                          or PRECISION[act] >= 24):
        return None
    return {"table_dtype": "float32"} | ({"rotation_dtype": "float32"} if r.kind == "rope" else {})


def _direct_powers(r: Recipe, act: str) -> dict[str, Any] | None:
    if r.inv_freq != "running":
        return None
    return {"inv_freq": "pow"}


def _angles_float64(r: Recipe, act: str) -> dict[str, Any] | None:
    if r.inv_freq in ("exact", "divide") or _res(r, "angle_dtype", act) == "float64":
        return None
    return {"position_dtype": "int64", "inv_freq": "pow" if r.inv_freq == "running" else r.inv_freq,
            "inv_freq_dtype": "float64", "inv_freq_storage": None, "angle_dtype": "float64"}


def _reduce(r: Recipe, act: str) -> dict[str, Any] | None:
    base = _angles_float64(r, act)
    if base is None or r.reduce:
        return None
    return base | {"reduce": True, "trig_dtype": "float32"}


def _trig_float64(r: Recipe, act: str) -> dict[str, Any] | None:
    base = _angles_float64(r, act) or {}
    if r.inv_freq == "exact" or _res(r, "trig_dtype", act) == "float64":
        return None
    return base | {"trig_dtype": "float64"}


def _pe_symbolic(r: Recipe, act: str) -> dict[str, Any] | None:
    if r.inv_freq == "exact":
        return None
    p = PRESETS["pe_symbolic"]
    out = {f: getattr(p, f) for f in ("inv_freq", "inv_freq_dtype", "position_dtype", "angle_dtype",
                                      "trig_dtype", "table_dtype")}
    out |= {"inv_freq_storage": None, "reduce": False}
    if r.kind == "rope":
        out["rotation_dtype"] = "float32"
    return out


#: (label, cost rank, change function): the function returns the fields to change, or
#: ``None`` when the change does not apply to the recipe.
CANDIDATES: tuple[tuple[str, int, Callable[[Recipe, str], dict[str, Any] | None]], ...] = (
    ("keep positions in int64 (or float32 below 2**24) until the multiply", 1, _positions),
    ("keep inv_freq in float32 (do not cast the buffer with the model)", 1, _inv_freq_storage),
    ("form t*theta in float32 (positions and inv_freq in float32, autocast off)", 2, _product_float32),
    ("evaluate cos/sin in float32", 2, _trig_float32),
    ("hold cos/sin in float32 and rotate in float32, rounding the output once", 3, _table_float32),
    ("compute theta_i = p * s**i directly, not as a running product", 3, _direct_powers),
    ("form angles in float64 (int64 positions, float64 inv_freq), then float32 cos/sin", 4, _angles_float64),
    ("form angles in float64 and reduce them modulo 2*pi before float32 cos/sin", 5, _reduce),
    ("form angles and cos/sin in float64, cast once", 6, _trig_float64),
    ("use pe_symbolic.numeric.rope_cos_sin / apply_rope", 7, _pe_symbolic),
)


@dataclass
class Fix:
    """The change that meets the tolerance: what to do, the changed recipe, and its audit."""

    label: str
    recipe: Recipe
    measured: float
    bound: float
    verified: bool
    tried: int

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready."""
        return {"change": self.label, "recipe": self.recipe.to_dict(), "measured": self.measured,
                "bound": self.bound, "verified": self.verified, "candidates_tried": self.tried}


def quick_positions(context: int) -> list[tuple[int, int]]:
    """Runs where errors peak: the start, the end, and around every power of two.

    >>> quick_positions(5000)[:3]
    [(0, 1024), (904, 5000), (1024, 1025)]
    """
    runs = [(0, min(1024, context))]
    p = 1024
    while p < context:
        runs.append((p, min(p + 1, context)))
        p *= 2
    runs.append((max(0, context - RUN), context))
    return sorted(set(runs))


def smallest_fix(target: Target, recipe: Recipe, act: str, metric: str, tol: float, context: int,
                 *, exhaustive: bool | None = None) -> Fix | None:
    """The cheapest candidate change that brings ``metric`` within ``tol`` (see the module docstring)."""
    singles = []
    for label, cost, fn in CANDIDATES:
        ch = fn(recipe, act)
        if ch is not None:
            singles.append((cost, label, ch))
    singles.sort(key=lambda x: x[0])
    options: list[tuple[str, dict[str, Any]]] = [(label, ch) for _, label, ch in singles]
    acc: dict[str, Any] = {}
    labels: list[str] = []
    for _, label, ch in singles:
        acc = acc | ch
        labels.append(label)
        if len(labels) > 1:
            options.append(("; ".join(labels), dict(acc)))
    quick = quick_positions(context)
    tried = 0
    for label, ch in options:
        try:
            cand = recipe.replace(name=f"{recipe.name}+fix", **ch)
        except ValueError:
            continue
        tried += 1
        em = Emulation(target, cand, act)
        quick_res = measure(em, context, positions=quick, oracle_points=-1, search=False)
        if quick_res.finite and quick_res.measured(metric) <= tol:
            full = measure(Emulation(target, cand, act), context, exhaustive=exhaustive, oracle_points=-1)
            if full.finite and full.measured(metric) <= tol:
                return Fix(label, cand, full.measured(metric), full.bound(metric), True, tried)
    return None
