r"""Each engine's recipe against Hugging Face's, decided by the proof kernel.

For one layer of one config, an engine's outputs equal HF's at every position :math:`m`,
for every pair and every sequence length :math:`n` when, on every range of :math:`n` where
both recipes are fixed, the vectors :math:`(m\,\omega_0, \dots, m\,\omega_{h-1}, a)` agree
(:math:`a` the factor on cos and sin). Each range is one
:func:`~pe_symbolic.check_identity` call with :math:`m` and :math:`n` symbolic and the range
as an assumption: ``proved`` covers every position and length in it; ``refuted`` comes
with a point certified by disjoint enclosures.

That is the **config-level** verdict. It is repeated **generically**: the same recipes
with each config number read as a symbol (:class:`~pe_symbolic.engines.recipes.Reader`),
so that an engine that agrees with HF here only because this config's factor is 1, or its
original context happens to be 8192, is not reported ``equal (proved)``:

==============================================  ===============================================
verdict                                         meaning
==============================================  ===============================================
``equal (proved)``                              equal at this config **and** for every value of
                                                the config's numbers (both proved)
``equal here (proved); differs elsewhere``      equal at this config (proved); refuted for other
                                                values, with a counterexample config
``equal here (proved); elsewhere undecided``    equal at this config (proved); the generic form
                                                is outside what the kernel decides (``floor``)
``differs``                                     refuted at this config: the simplified
                                                difference, where outputs first part
``undecided``                                   neither, said why
``unsupported``                                 the engine refuses this config
==============================================  ===============================================
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import sympy as sp

from ..proof import check_identity
from ._read import LayerRope, exact, layer_ropes
from .recipes import ENGINES, M, N, RECIPES, Recipe, Regime, _SYMBOLS, generic_assumptions, recipe
from .support import Limit, is_variant, limit

__all__ = ["EngineCheck", "EngineReport", "LayerReport", "RangeCheck", "compare_layer", "engine_report"]

#: Seconds each kernel check may take at the config (a timeout is ``undecided``, said so).
CHECK_TIMEOUT = 60.0
#: Seconds each generic check may take (every value of the config's numbers).
GENERIC_TIMEOUT = 20.0
_KEY_OF = {name: key for key, (name, _) in _SYMBOLS.items()}


@dataclass(frozen=True)
class RangeCheck:
    """One range of sequence lengths and the kernel's verdict on it."""

    lo: sp.Expr
    hi: sp.Expr | None
    verdict: str
    detail: str = ""
    first_length: sp.Expr | None = None
    first_position: int | None = None
    counterexample: Mapping[str, str] = field(default_factory=dict)

    def span(self) -> str:
        if self.hi is None:
            return f"n >= {sp.sstr(self.lo)}"
        if sp.simplify(self.hi - self.lo) == 0:
            return f"n = {sp.sstr(self.lo)}"
        return f"n = {sp.sstr(self.lo)} .. {sp.sstr(self.hi)}"


@dataclass(frozen=True)
class EngineCheck:
    """One engine against HF for one layer: the config-level and the generic verdicts."""

    engine: str
    recipe: Recipe
    verdict: str
    ranges: tuple[RangeCheck, ...] = ()
    generic: tuple[RangeCheck, ...] = ()
    generic_verdict: str = ""
    generic_explanation: str = ""
    explanation: str = ""
    limit: Limit | None = None
    """The engine's context cap and table against the positions the model admits
    (:func:`pe_symbolic.engines.support.limit`); a shortfall replaces an ``equal`` verdict."""

    @property
    def variant(self) -> bool:
        """Whether the engine is a non-default variant (an older release, a flag nobody sets)."""
        return is_variant(self.engine)

    @property
    def equal_here(self) -> bool:
        return bool(self.ranges) and all(r.verdict == "proved" for r in self.ranges)


@dataclass(frozen=True)
class LayerReport:
    layer_type: str | None
    rope_type: str
    hf: Recipe
    checks: tuple[EngineCheck, ...]
    head_dim: int | None = None
    """The head dim (the attention factor's placement depends on whether every channel rotates)."""


@dataclass(frozen=True)
class EngineReport:
    """``pe-audit --engines``: per layer type, the card and every engine's verdict."""

    name: str
    layers: tuple[LayerReport, ...]
    nope: str = ""
    """Why no layer rotates (a NoPE model: no card), else ``""``."""

    def failures(self, *, strict: bool = False) -> list[tuple[str | None, str, str]]:
        """``(layer_type, engine, verdict)`` of the checks that fail ``pe-audit --engines``: a default
        engine that differs from HF; under ``strict`` also a variant that differs, and an engine that
        does not serve the admitted positions (``unsupported beyond``)."""
        out = []
        for lay in self.layers:
            for c in lay.checks:
                bad = c.verdict == "differs" or c.verdict.startswith("differs from")
                if strict:
                    bad = bad or c.verdict.startswith("unsupported beyond")
                elif c.variant:
                    bad = False
                if bad:
                    out.append((lay.layer_type, c.engine, c.verdict))
        return out

    def to_text(self, width: int = 100) -> str:
        from ._render import render_report

        return render_report(self, width=width)

    def verdicts(self) -> dict[tuple[str | None, str], str]:
        """``(layer_type, engine) -> verdict``."""
        return {(lay.layer_type, c.engine): c.verdict for lay in self.layers for c in lay.checks}


# ----------------------------------------------------------------------------------------
# ranges of the sequence length


def _order(bounds: Sequence[sp.Expr], assumptions: Sequence[sp.Basic]) -> list[sp.Expr] | None:
    """The distinct bounds sorted, or ``None`` when some pair cannot be ordered."""
    uniq: list[sp.Expr] = []
    for b in bounds:
        if not any(sp.simplify(b - u) == 0 for u in uniq):
            uniq.append(b)

    def less(a: sp.Expr, b: sp.Expr) -> bool | None:
        diff = sp.simplify(b - a)
        if diff.is_positive:
            return True
        if diff.is_negative:
            return False
        return None

    out: list[sp.Expr] = []
    for b in uniq:
        pos = 0
        for k, o in enumerate(out):
            rel = less(o, b)
            if rel is None:
                return None
            if rel:
                pos = k + 1
        out.insert(pos, b)
    for a, b in zip(out, out[1:]):
        if less(a, b) is not True:
            return None
    return out


def _active(regimes: Sequence[Regime], lo: sp.Expr) -> Regime | None:
    for reg in regimes:
        starts = sp.simplify(lo - reg.lo)
        ends = True if reg.hi is None else sp.simplify(reg.hi - lo).is_nonnegative
        if (starts == 0 or starts.is_positive) and ends:
            return reg
    return None


def _ranges(a: Sequence[Regime], b: Sequence[Regime], assumptions: Sequence[sp.Basic]):
    bounds = [r.lo for r in a] + [r.lo for r in b]
    order = _order(bounds, assumptions)
    if order is None:
        return None
    out = []
    for k, lo in enumerate(order):
        hi = order[k + 1] - 1 if k + 1 < len(order) else None
        out.append((lo, hi, _active(a, lo), _active(b, lo)))
    return out


# ----------------------------------------------------------------------------------------
# one range


def _vector(reg: Regime) -> list[sp.Expr]:
    return [M * w for w in reg.omegas] + [reg.attention]


def _short(e: sp.Expr) -> str:
    """An exact value when it prints short (SymPy's automatic evaluation only: ``simplify`` can
    take minutes on the binary fractions a config carries), else 9 digits."""
    text = sp.sstr(e)
    if len(text) <= 40:
        return text
    return format(float(sp.N(e, 20)), ".9g")


def _describe(hf_reg: Regime, eng_reg: Regime, at: Mapping[sp.Symbol, sp.Expr]) -> tuple[str, int | None]:
    """Which entries differ at the point ``at`` (30-digit values: description only), and the
    first position where outputs part (0 when the factor on cos and sin differs, else 1)."""
    parts = []
    first_pos = None
    ah = sp.N(hf_reg.attention.subs(at), 30)
    ae = sp.N(eng_reg.attention.subs(at), 30)
    if abs(ah - ae) > sp.Float("1e-25"):
        parts.append(f"attention factor: HF {float(ah):.6g}, engine {float(ae):.6g} "
                     f"(engine - HF = {_short(eng_reg.attention.xreplace(at) - hf_reg.attention.xreplace(at))})")
        first_pos = 0
    pairs = [i for i, (wh, we) in enumerate(zip(hf_reg.omegas, eng_reg.omegas))
             if abs(sp.N((wh - we).subs(at), 30)) > sp.Float("1e-25") * (1 + abs(sp.N(wh.subs(at), 30)))]
    if pairs:
        i = pairs[0]
        wh, we = hf_reg.omegas[i].xreplace(at), eng_reg.omegas[i].xreplace(at)
        ratio = we / wh if wh != 0 else None
        shown = f"{len(pairs)} of {len(hf_reg.omegas)} pairs differ, first pair {i}: HF omega = {float(sp.N(wh, 20)):.6e}, " \
                f"engine {float(sp.N(we, 20)):.6e}"
        if ratio is not None:
            shown += f" (engine / HF = {_short(ratio)})"
        parts.append(shown)
        if first_pos is None:
            first_pos = 1
    return "; ".join(parts), first_pos


def _screen(lhs: sp.Matrix, rhs: sp.Matrix, lo: sp.Expr, hi: sp.Expr | None,
            assumptions: Sequence[sp.Basic]) -> list[int]:
    """Entries that look different at a few admissible lengths (30-digit values; a screen that
    picks which entry the kernel is asked to refute, never a verdict)."""
    syms = (lhs.free_symbols | rhs.free_symbols) - {M, N}
    if syms:  # generic: let the kernel search the whole vector
        return []
    lengths = [lo] if not lo.is_number else [lo, lo + 1, lo + 7]
    if hi is not None and hi.is_number:
        lengths = [x for x in lengths if x <= hi] + [hi]
    if not all(x.is_number for x in lengths):
        return []
    out = []
    for k in range(len(lhs)):
        for n_ in lengths:
            at = {M: sp.Integer(1), N: n_}
            v = sp.N((lhs[k] - rhs[k]).xreplace(at), 30)
            if v.is_number and abs(v) > sp.Float("1e-20") * (1 + abs(sp.N(rhs[k].xreplace(at), 30))):
                out.append(k)
                break
    # the attention factor (last entry) first: it parts the outputs at position 0
    return sorted(out, key=lambda k: (k != len(lhs) - 1, k))


def _check_range(lo, hi, hf_reg: Regime | None, eng_reg: Regime | None, assumptions: Sequence[sp.Basic],
                 timeout: float) -> RangeCheck:
    if hf_reg is None or eng_reg is None:
        return RangeCheck(lo, hi, "undecided", "a recipe has no regime for these lengths")
    if len(hf_reg.omegas) != len(eng_reg.omegas):
        return RangeCheck(lo, hi, "refuted", f"{len(eng_reg.omegas)} rotated pairs, HF {len(hf_reg.omegas)}",
                          lo, 1)
    lhs, rhs = sp.Matrix(_vector(eng_reg)), sp.Matrix(_vector(hf_reg))
    conds = list(assumptions)
    if N in lhs.free_symbols | rhs.free_symbols:
        conds.append(N >= lo)
        if hi is not None:
            conds.append(N <= hi)
    proof = check_identity(lhs, rhs, conds, timeout=timeout, id="engines.range")
    if proof.verdict == "proved":
        return RangeCheck(lo, hi, "proved")
    if proof.verdict != "refuted":
        # the kernel samples 16 entries of a large vector: ask it about each suspect entry alone
        for k in _screen(lhs, rhs, lo, hi, assumptions):
            one = check_identity(lhs[k], rhs[k], conds, timeout=timeout, id="engines.entry")
            if one.verdict == "refuted":
                proof = one
                break
    if proof.verdict != "refuted":
        why = "; ".join(str(n) for n in getattr(proof, "notes", ()) or ()) or "the kernel decided nothing"
        return RangeCheck(lo, hi, "undecided", why[:300])
    return _refuted(lo, hi, hf_reg, eng_reg, lhs, rhs, proof)


def _refuted(lo, hi, hf_reg: Regime, eng_reg: Regime, lhs: sp.Matrix, rhs: sp.Matrix, proof) -> RangeCheck:
    cex = {str(k): str(v) for k, v in (proof.counterexample or {}).items()}
    at: dict[sp.Symbol, sp.Expr] = {}
    syms = {s.name: s for s in lhs.free_symbols | rhs.free_symbols}
    for name, val in cex.items():
        if name in syms:
            try:
                at[syms[name]] = sp.Rational(val)
            except (TypeError, ValueError):
                pass
    at.setdefault(M, sp.Integer(1))
    # the first length where outputs part: the range's first length if they differ there
    first_len = lo
    if N in lhs.free_symbols | rhs.free_symbols and lo.is_number:
        at_lo = {**at, N: lo}
        diff = [sp.N((x - y).subs(at_lo), 30) for x, y in zip(lhs, rhs)]
        if all(abs(v) < sp.Float("1e-25") for v in diff):
            first_len = at.get(N, lo)
        else:
            at = at_lo
    elif N not in at:
        at[N] = lo
    detail, first_pos = _describe(hf_reg, eng_reg, at)
    if first_pos == 1 and first_len is not None and first_len.is_number and first_len < 2:
        first_len = sp.Integer(2)  # a sequence holds position 1 from length 2 on
    return RangeCheck(lo, hi, "refuted", detail, first_len, first_pos, cex)


def _compare(hf_rec: Recipe, eng_rec: Recipe, assumptions: Sequence[sp.Basic], timeout: float):
    ranges = _ranges(hf_rec.regimes, eng_rec.regimes, assumptions)
    if ranges is None:
        return None
    return tuple(_check_range(lo, hi, h, e, assumptions, timeout) for lo, hi, h, e in ranges)


def _free(rec: Recipe) -> set[sp.Symbol]:
    out: set[sp.Symbol] = set()
    for reg in rec.regimes:
        for e in (*reg.omegas, reg.attention, reg.lo, *(() if reg.hi is None else (reg.hi,))):
            out |= sp.sympify(e, strict=True).free_symbols
    return out - {M, N}


def _config_point(cex: Mapping[str, str]) -> str:
    keys = []
    for name, val in cex.items():
        if name in _KEY_OF:
            keys.append(f"{_KEY_OF[name]} = {val}")
        elif name == "n":
            keys.append(f"length n = {val}")
    return ", ".join(keys)


_FLOOR_KEYS = ("rope_theta", "original_max_position_embeddings", "beta_fast", "beta_slow",
               "max_position_embeddings")


def _config_values(layer: LayerRope, syms: set[sp.Symbol]) -> dict[sp.Symbol, sp.Expr] | None:
    """The config's own value of every symbol (``None`` if a symbol has none)."""
    out = {}
    for sym in syms:
        key = _KEY_OF.get(sym.name)
        value = None if key is None else layer.rope.get(key, layer.config.get(key))
        if value is None or isinstance(value, bool):
            return None
        out[sym] = exact(value, name=key)
    return out


def _subs_recipe(rec: Recipe, values: Mapping[sp.Symbol, sp.Expr]) -> Recipe:
    def put(e):
        return sp.sympify(e, strict=True).xreplace(dict(values))

    regs = tuple(Regime(put(r.lo), None if r.hi is None else put(r.hi), tuple(put(w) for w in r.omegas),
                        put(r.attention)) for r in rec.regimes)
    return dataclasses.replace(rec, regimes=regs)


def _suspects(h: Recipe, e: Recipe) -> list[int] | None:
    """Entries (of ``m omega_0 .. m omega_{h-1}, a``) whose generic expressions are not
    identical in some range: where a screen need look (``None``: the ranges do not line up).
    At most 12 spread over them plus the attention factor, to keep the screen quick."""
    ranges = _ranges(h.regimes, e.regimes, ())
    if ranges is None:
        return None
    out: set[int] = set()
    for _lo, _hi, rh, re_ in ranges:
        if rh is None or re_ is None or len(rh.omegas) != len(re_.omegas):
            return None
        out |= {k for k, (x, y) in enumerate(zip(_vector(rh), _vector(re_))) if x != y}
    picks = sorted(out)
    if len(picks) > 13:
        last = len(h.regimes[0].omegas)
        step = len(picks) / 12
        picks = sorted({picks[int(k * step)] for k in range(12)} | ({last} & out))
    return picks


def _looks_different(h: Recipe, e: Recipe, entries: Sequence[int] | None = None) -> bool:
    """A 30-digit screen of two concrete recipes at a few lengths of every range, on
    ``entries`` (default all): picks where to ask the kernel, never a verdict."""
    ranges = _ranges(h.regimes, e.regimes, ())
    if ranges is None:
        return True
    for lo, hi, rh, re_ in ranges:
        if rh is None or re_ is None or len(rh.omegas) != len(re_.omegas):
            return True
        lv, rv = _vector(re_), _vector(rh)
        keep = range(len(lv)) if entries is None else entries
        lhs, rhs = sp.Matrix([lv[k] for k in keep]), sp.Matrix([rv[k] for k in keep])
        if len(lhs) and _screen(lhs, rhs, lo, hi, ()):
            return True
    return False


def _perturbations(value: sp.Expr, integer: bool) -> list[sp.Expr]:
    """Other values to try for one config number: halved and doubled, and 2 (a factor of 2
    where the config has 1)."""
    if integer:
        v = int(value)
        return [sp.Integer(x) for x in (v // 2, 2 * v) if x > 0]
    out = [value / 2, value * 2]
    return out + ([sp.Integer(2)] if sp.Integer(2) not in out and value != 2 else [])


def _generic(layer: LayerRope, hf_gen: Recipe, erec: Recipe, timeout: float):
    """(verdict, explanation, ranges) of the generic comparison (see the module notes)."""
    syms = _free(hf_gen) | _free(erec)
    assumptions = generic_assumptions(syms)
    point = _config_values(layer, syms)
    # 1. one config number changed at a time: a concrete counterexample config, refuted by the kernel
    suspects = _suspects(hf_gen, erec)
    if point is not None and suspects != []:
        for sym in sorted(syms, key=lambda x: x.name):
            for value in _perturbations(point[sym], bool(sym.is_integer)):
                trial = {**point, sym: value}
                if not all(bool(c.subs(trial)) for c in assumptions):
                    continue
                h, e = _subs_recipe(hf_gen, trial), _subs_recipe(erec, trial)
                if not _looks_different(h, e, suspects):
                    continue
                checks = _compare(h, e, (), timeout)
                bad = [r for r in checks or () if r.verdict == "refuted"]
                if bad:
                    key = _KEY_OF.get(sym.name, sym.name)
                    return ("refuted", f"differs when {key} = {sp.sstr(value)} (the rest as in this config): "
                            f"{bad[0].detail}", tuple(checks))
    # 2. every value at once: the kernel proves, or refutes at a point of its choosing
    ranges = _compare(hf_gen, erec, assumptions, timeout)
    if ranges is None:
        return "undecided", "the length ranges cannot be ordered for every config", ()
    if all(r.verdict == "proved" for r in ranges):
        return "proved", "", ranges
    bad = [r for r in ranges if r.verdict == "refuted"]
    if bad:
        return "refuted", f"differs at {_config_point(bad[0].counterexample) or 'another config'}: {bad[0].detail}", \
            ranges
    why = next(r.detail for r in ranges if r.verdict != "proved")
    # 3. floor / ceil (YaRN's correction range) are outside the kernel: fix the numbers they read
    if "outside the checked fragment" in why and point is not None:
        fixed = {s_: v for s_, v in point.items() if _KEY_OF.get(s_.name) in _FLOOR_KEYS}
        free = sorted((_KEY_OF.get(s_.name, s_.name) for s_ in syms if s_ not in fixed))
        if fixed and free:
            part = _compare(_subs_recipe(hf_gen, fixed), _subs_recipe(erec, fixed),
                            generic_assumptions(set(syms) - set(fixed)), timeout)
            if part is not None and all(r.verdict == "proved" for r in part):
                keys = ", ".join(sorted(_KEY_OF.get(s_.name, s_.name) for s_ in fixed))
                return ("undecided", f"proved for every {', '.join(free)} with {keys} as in this config; "
                        f"for other values of those: {why}", part)
    return "undecided", why, ranges


def compare_layer(layer: LayerRope, engines: Sequence[str] = ENGINES, *, generic: bool = True,
                  timeout: float = CHECK_TIMEOUT, generic_timeout: float = GENERIC_TIMEOUT) -> LayerReport:
    """Every engine in ``engines`` against HF for one layer (see the module notes)."""
    hf_rec = recipe("hf", layer)
    hf_gen = recipe("hf", layer, generic=True) if generic and hf_rec.supported else None
    checks = []
    for name in engines:
        rec = recipe(name, layer)
        if not rec.applies:
            continue
        if not rec.supported:
            checks.append(EngineCheck(name, rec, "unsupported", explanation=rec.unsupported))
            continue
        if not hf_rec.supported:
            checks.append(EngineCheck(name, rec, "undecided", explanation=f"HF: {hf_rec.unsupported}"))
            continue
        here = _compare(hf_rec, rec, (), timeout)
        if here is None:
            checks.append(EngineCheck(name, rec, "undecided", explanation="length ranges cannot be ordered"))
            continue
        if any(r.verdict == "refuted" for r in here):
            bad = next(r for r in here if r.verdict == "refuted")
            where = f"outputs part at position m = {bad.first_position} from length n = {sp.sstr(bad.first_length)}"
            same = [r.span() for r in here if r.verdict == "proved"]
            also = f"; equal (proved) for {', '.join(same)}" if same else ""
            checks.append(EngineCheck(name, rec, "differs", here,
                                      explanation=f"{bad.detail}; {where} ({bad.span()}){also}"))
            continue
        if any(r.verdict != "proved" for r in here):
            checks.append(EngineCheck(name, rec, "undecided", here,
                                      explanation=next(r.detail for r in here if r.verdict != "proved")))
            continue
        gen: tuple[RangeCheck, ...] = ()
        gverdict, gexpl = "not checked", ""
        if hf_gen is not None and hf_gen.supported:
            erec = recipe(name, layer, generic=True)
            if erec.supported:
                gverdict, gexpl, gen = _generic(layer, hf_gen, erec, generic_timeout)
        if gverdict == "proved":
            verdict = "equal (proved)"
        elif gverdict == "refuted":
            verdict = "equal here (proved); differs elsewhere"
        else:
            verdict = "equal here (proved); elsewhere undecided"
        checks.append(EngineCheck(name, rec, verdict, here, gen, gverdict, gexpl))
    return LayerReport(layer.layer_type, layer.rope_type, hf_rec, tuple(_with_limit(c, layer) for c in checks),
                       layer.head_dim)


def _with_limit(check: EngineCheck, layer: LayerRope) -> EngineCheck:
    """The check with the engine's cap and table against the admitted positions: an engine that does
    not serve them is ``unsupported beyond N`` (it refuses or caps longer sequences) or ``differs from
    N on`` (it serves positions its table lacks), never ``equal`` -- what was proved below stays in
    the explanation."""
    if not check.recipe.supported:
        return check
    lim = limit(check.engine, layer, check.recipe)
    if lim.verdict == "ok":
        return dataclasses.replace(check, limit=lim)
    below = f"below: {check.verdict}" + (f" ({check.explanation})" if check.explanation else "")
    return dataclasses.replace(check, verdict=lim.verdict, explanation=f"{lim.why}; {below}", limit=lim)


def engine_report(config: Mapping[str, Any] | str, engines: Sequence[str] = ENGINES, *, generic: bool = True,
                  timeout: float = CHECK_TIMEOUT, generic_timeout: float = GENERIC_TIMEOUT,
                  name: str | None = None) -> EngineReport:
    """``pe-audit --engines``: every engine's RoPE against HF's, per layer type.

    Parameters
    ----------
    config : dict or str
        A ``config.json`` as a dict, or a shipped model name
        (:func:`pe_symbolic.numeric.model_configs`).
    engines : sequence of str
        Keys of :data:`~pe_symbolic.engines.recipes.RECIPES` (default: every engine).
    generic : bool, default True
        Also compare the recipes for every value of the config's numbers.
    timeout, generic_timeout : float
        Seconds per kernel check at the config, and per generic check.

    Returns
    -------
    EngineReport
        ``.to_text()`` is what ``pe-audit --engines`` prints; ``.verdicts()`` the verdicts.

    Examples
    --------
    >>> cfg = {"head_dim": 8, "max_position_embeddings": 64, "rope_theta": 100.0,
    ...        "rope_scaling": {"rope_type": "dynamic", "factor": 4.0}}
    >>> rep = engine_report(cfg, ["sglang", "mlx-lm"], generic=False)
    >>> rep.verdicts()[(None, "sglang")], rep.verdicts()[(None, "mlx-lm")]
    ('differs', 'equal here (proved); elsewhere undecided')
    """
    if isinstance(config, str):
        from ..numeric import model_config

        label = config
        config = model_config(config)
    else:
        label = name or str(config.get("model_type") or config.get("_name_or_path") or "config")
    unknown = [e for e in engines if e not in RECIPES or e == "hf"]
    if unknown:
        raise ValueError(f"engines={list(engines)!r}: {unknown[0]!r} is not one of {', '.join(map(repr, ENGINES))}")
    ropes = layer_ropes(config)
    layers = tuple(compare_layer(lay, engines, generic=generic, timeout=timeout, generic_timeout=generic_timeout)
                   for lay in ropes)
    nope = ""
    if not ropes:
        from ..numeric import read_program

        sites = [s for s in read_program(config).attention() if s.nope and s.attends]
        nope = sites[0].nope if sites else "no layer rotates"
    return EngineReport(name or label, layers, nope)

