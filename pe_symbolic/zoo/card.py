r"""The RoPE part of a card: what one config's RoPE is, how far it goes, who runs it, how wrong in its dtype.

:func:`rope_card` computes, from a config and the dtype it runs in, a plain JSON-ready dict
(no timings: two runs give equal dicts, and :func:`pe_symbolic.cards` writes them
byte for byte alike):

* ``program`` -- the RoPE program (:func:`pe_symbolic.numeric.read_program`), one entry per
  site (layer range and sub-module): positions, rope type and base, the type's numbers, the
  rotated channels and pairing, the attention factor and where it acts, an inverse; or why
  the layers are NoPE;
* ``context`` -- the usable context (:mod:`pe_symbolic.numeric.context`): the positions the
  model admits and why, and per dtype where a table formed in it stops being meaningful;
* ``engines`` -- each engine's verdict against HF per rope entry, decided by the proof kernel
  (:func:`pe_symbolic.engines.engine_report`, at the config unless ``generic``), with the
  reason for every verdict that is not ``equal``;
* ``support`` -- :func:`pe_symbolic.supports` per engine (yes / no, the positions it serves,
  the reasons);
* ``bound`` -- the audit's proved angle bound (claims ``precision.angle`` and
  ``precision.running_product``) of HF's recipe in the config's dtype over the model's
  effective context (what ``pe-audit CONFIG`` audits by default), with the derived table and
  output bounds and the dominant rounding; with ``measure``, the audit's measurement and
  headline beside it;
* ``refused`` -- every part a reader refused, with its reason; ``warnings`` -- what the readers
  warned (keys not understood, a layout note), once each; ``crashed`` -- a part that raised
  anything else (a defect of this package: the card says where).

``status`` is ``"ok"``, ``"refused"`` (the program itself was refused: nothing else can be
said) or ``"crashed"``.

>>> from pe_symbolic.numeric import model_config
>>> card = rope_card(model_config("qwen2.5-7b-yarn"), "bfloat16", engines=["vllm", "tensorrt-llm"])
>>> card["status"], card["context"]["admitted"], card["program"][0]["rope_type"]
('ok', 131071, 'yarn')
>>> [(e["engine"], e["verdict"]) for e in card["engines"]]
[('vllm', 'equal here (proved); elsewhere undecided'), ('tensorrt-llm', 'unsupported beyond 32,767')]
>>> card["bound"][0]["dtype"], card["bound"][0]["context"], f'{card["bound"][0]["angle"]:.2e}'
('bfloat16', 131072, '1.25e-02')
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Mapping, Sequence
from typing import Any

__all__ = ["PARTS", "compute", "rope_card"]

#: The parts of a card, in the order they are computed.
PARTS = ("program", "context", "engines", "support", "bound")
#: The context audited when the config says none (as ``pe-audit``).
DEFAULT_CONTEXT = 131072


def _ranges(idx: tuple[int, ...] | None) -> str:
    """``None`` -> ``"all"``; ``(0, 2, 3, 4)`` -> ``"0,2-4"``; ``()`` -> ``"none"``."""
    from ..numeric.program import _ranges as ranges

    return "all" if idx is None else ranges(idx) or "none"


def _num(x: Any) -> Any:
    """A float as JSON takes it: ``inf`` / ``nan`` as strings (strict JSON has neither)."""
    if isinstance(x, float) and not math.isfinite(x):
        return "nan" if math.isnan(x) else ("inf" if x > 0 else "-inf")
    return x


def _site(s: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"module": s.module, "layers": _ranges(s.layers), "layer_type": s.layer_type,
                           "entry": s.entry}
    if s.nope:
        out["nope"] = s.nope
    else:
        a, sl, af = s.angles, s.slice, s.attention
        out.update({
            "positions": str(s.positions), "rope_type": a.rope_type, "base": _num(a.base),
            "effective_base": _num(a.effective_base), "params": a.params, "pairs": a.pairs,
            "exponent_dim": a.exponent_dim, "rotated": str(sl), "attention_factor": _num(af.value),
            "placement": af.placement, "softmax_factor": _num(af.softmax), "query_scale": af.query_scale or None,
            "inverse": s.inverse.what if s.inverse is not None else None,
        })
    if s.note:
        out["note"] = s.note
    return out


def _program(cfg: Mapping[str, Any], state: dict[str, Any]) -> dict[str, Any]:
    from ..numeric import read_program

    prog = read_program(cfg)
    state["program"] = prog
    nope = prog.nope_layers()
    return {"model_type": prog.model_type, "num_hidden_layers": prog.num_hidden_layers, "layout": prog.layout,
            "nope_layers": None if nope is None else _ranges(nope),
            "program": [_site(s) for s in prog.sites]}


def _context(cfg: Mapping[str, Any], state: dict[str, Any]) -> dict[str, Any]:
    from ..numeric.context import program_context

    sites = program_context(state["program"])
    if not sites:
        if not any(s.rotates for s in state["program"].sites):
            return {"context": None}
        raise ValueError("the config gives neither max_position_embeddings nor a scaling's original length: the "
                         "context it admits is not said")
    rows = []
    for c in sites:
        limits: dict[str, dict[str, int]] = {}
        for lim in c.limits:
            limits.setdefault(lim.dtype, {})[lim.kind] = lim.position
        rows.append({"module": c.module, "layers": _ranges(c.layers), "admitted": c.admitted, "why": c.why,
                     "limits": limits})
    att = [r for r in rows if r["module"] == "attention"] or rows
    top = max(att, key=lambda r: r["admitted"])
    return {"context": {"admitted": top["admitted"], "why": top["why"], "sites": rows}}


def _engines(cfg: Mapping[str, Any], state: dict[str, Any]) -> dict[str, Any]:
    from ..engines import engine_report

    rep = engine_report(cfg, state["engine_names"], generic=state["generic"], name="config")
    rows = []
    for lay in rep.layers:
        for c in lay.checks:
            row = {"layer_type": lay.layer_type, "engine": c.engine, "verdict": c.verdict}
            if not c.verdict.startswith("equal"):
                row["why"] = c.explanation
            rows.append(row)
    return {"engines": rows}


def _support(cfg: Mapping[str, Any], state: dict[str, Any]) -> dict[str, Any]:
    from ..engines import supports

    out = {}
    for e in state["engine_names"]:
        s = supports(cfg, e)
        out[e] = {"ok": s.ok, "served": s.served, "reasons": list(s.reasons)}
    return {"support": out}


def _bound(cfg: Mapping[str, Any], state: dict[str, Any]) -> dict[str, Any]:
    from ..audit.bounds import angle_bound, derived_bounds
    from ..audit.emulate import Emulation, rope_target
    from ..audit.recipes import PRESETS
    from ..audit.report import BOUND_CLAIMS
    from ..numeric import describe

    dtype = state["dtype"]
    desc = describe(cfg, quiet=True)
    context, why = desc.effective_context()
    if context is None:
        context, why = DEFAULT_CONTEXT, "the default: the config gives no max_position_embeddings"
    rows = []
    for lt in desc.layer_types_with_rope():
        em = Emulation(rope_target(cfg, "config", seq_len=context, layer_type=lt), PRESETS["hf"], dtype)
        t_max = float(context - 1)
        ab = angle_bound(em, t_max)
        d = derived_bounds(em, ab, t_max)
        row = {"layer_type": lt, "recipe": "hf", "dtype": dtype, "context": context, "context_why": why,
               "angle": _num(ab.value), "table": _num(d["table"]), "output": _num(d.get("output", math.nan)),
               "dominant": ab.dominant, "claims": list(BOUND_CLAIMS)}
        if state["measure"]:
            from ..audit import audit

            rep = audit(cfg, "hf", dtype=dtype, context=context, layer_type=lt, fix=False)
            r = rep.results[0]
            row["measured"] = {"angle": _num(r.measured("angle")), "table": _num(r.measured("table"))}
            row["headline"] = rep.headlines()
        rows.append(row)
    return {"bound": rows}


_STEPS: dict[str, Callable[[Mapping[str, Any], dict[str, Any]], dict[str, Any]]] = {
    "program": _program, "context": _context, "engines": _engines, "support": _support, "bound": _bound,
}
#: What a part's result is when it was not computed.
_EMPTY: dict[str, dict[str, Any]] = {
    "program": {"model_type": None, "num_hidden_layers": None, "layout": None, "nope_layers": None, "program": []},
    "context": {"context": None}, "engines": {"engines": []}, "support": {"support": {}}, "bound": {"bound": []},
}


def rope_card(config: Mapping[str, Any], dtype: str = "bfloat16", *, engines: Sequence[str] | None = None,
              generic: bool = False, measure: bool = False) -> dict[str, Any]:
    """The RoPE part of a card (see the module docstring).

    Parameters
    ----------
    config : Mapping
        A model's ``config.json`` as a dict.
    dtype : {"bfloat16", "float16", "float32", "float64"}
        The dtype the model runs in (the bound's).
    engines : sequence of str, optional
        Engines to compare and ask (default: ``pe_symbolic.engines.DEFAULT_ENGINES``).
    generic : bool, default False
        Also compare each engine with HF for every value of the config's numbers (seconds to
        tens of seconds per config, and time-budgeted: a check out of time is ``undecided``).
    measure : bool, default False
        Also run the audit's measurement (seconds per config) beside the bound.

    Returns
    -------
    dict
        ``status``, ``model_type``, ``program``, ``context``, ``engines``, ``support``,
        ``bound``, ``refused``, ``warnings`` and, for a part that crashed, ``crashed``.

    Raises
    ------
    ValueError
        An unknown dtype or engine.
    """
    from ..audit.recipes import ACT_DTYPES
    from ..engines import DEFAULT_ENGINES, ENGINES

    if dtype not in ACT_DTYPES:
        raise ValueError(f"dtype={dtype!r} is not one of {', '.join(map(repr, ACT_DTYPES))}")
    names = list(DEFAULT_ENGINES if engines is None else engines)
    bad = [e for e in names if e not in ENGINES]
    if bad:
        raise ValueError(f"engines={names!r}: {bad[0]!r} is not one of {', '.join(map(repr, ENGINES))}")
    state: dict[str, Any] = {"dtype": dtype, "engine_names": names, "generic": bool(generic),
                             "measure": bool(measure)}
    card: dict[str, Any] = {"status": "ok", "dtype": dtype, "refused": [], "warnings": []}
    for part in PARTS:
        card.update(_EMPTY[part])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for part in PARTS:
            try:
                card.update(_STEPS[part](config, state))
            except MemoryError:
                raise
            except (ValueError, TypeError) as exc:
                card["refused"].append({"part": part, "reason": _message(exc)})
                if part == "program":
                    card["status"] = "refused"
                    break
            except Exception as exc:  # noqa: BLE001 - a defect: the card says where, the sweep goes on
                card["status"] = "crashed"
                card.setdefault("crashed", []).append({"part": part, "error": f"{type(exc).__name__}: {exc}"})
                if part == "program":
                    break
    card["program_id"] = _program_id(card["program"])
    seen: dict[str, None] = {}
    for w in caught:
        seen.setdefault(f"{w.category.__name__}: {w.message}", None)
    card["warnings"] = list(seen)
    return card


def _program_id(program: Sequence[Mapping[str, Any]]) -> str | None:
    """The first 12 hex digits of the SHA-256 of the program's canonical JSON (``None``: no program)."""
    if not program:
        return None
    import hashlib

    from .corpus import canonical_json

    return hashlib.sha256(canonical_json(list(program)).encode()).hexdigest()[:12]


def _message(exc: BaseException) -> str:
    return str(exc) or type(exc).__name__


def compute(task: Mapping[str, Any]) -> dict[str, Any]:
    """A worker's entry point: :func:`rope_card` of ``task["config"]`` with the task's settings
    (``dtype``, ``engines``, ``generic``, ``measure``)."""
    return rope_card(task["config"], task["dtype"], engines=task.get("engines"), generic=task.get("generic", False),
                     measure=task.get("measure", False))
