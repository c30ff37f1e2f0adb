r"""Can an engine run this model? :func:`~pe_symbolic.supports` and :func:`~pe_symbolic.usable_context`, decided from source.

An engine supports a model's RoPE when, for every rope entry some layer rotates with, its
recipe (``pe_symbolic.engines.recipes``) knows the rope type, and it serves the positions
the model admits: its own context cap (:data:`CAPS`, each read from the engine's source at a
cited commit) and its cos/sin table (``table_rows``, unless computed on the fly or grown on
demand) reach the largest admitted position. What the recipe says it does not read, or reads
otherwise, is named too (its notes). Whether its angles equal HF's is the proof kernel's
business (:func:`pe_symbolic.engines.engine_report`); this module decides support without it.

>>> from pe_symbolic.numeric import model_config
>>> s = supports(model_config("qwen2.5-7b-yarn"), "tensorrt-llm")
>>> s.ok, s.served
(False, 32768)
>>> supports(model_config("qwen2.5-7b-yarn"), "vllm").ok
True
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..numeric.context import program_context
from ._read import LayerRope, layer_ropes
from .recipes import ENGINES, RECIPES, Recipe, Source, recipe

__all__ = ["CAPS", "DEFAULT_ENGINES", "Support", "UsableContext", "is_variant", "supports", "usable_context"]

_VLLM_CAP = Source("vllm-project/vllm", "vllm/config/model.py", "18ec6629253632af0a384f2ffbb8c6b28af322e7",
                   "_get_and_verify_max_len: max_position_embeddings (original_max_position_embeddings for yarn) "
                   "times factor, except su / longrope / llama3; a larger --max-model-len is refused")
_TRT_CAP = Source("NVIDIA/TensorRT-LLM", "tensorrt_llm/_torch/pyexecutor/model_engine.py",
                  "1a0dc5f70054f66d892df6a964996fc5ead6f81e",
                  "_infer_max_seq_len_from_config / _init_max_seq_len: max_position_embeddings, times factor except "
                  "su / longrope / llama3 / yarn; a larger max_seq_len is capped to it with a warning")


def is_variant(engine: str) -> bool:
    """Whether ``engine`` names a non-default variant of an engine (an older release, a flag nobody
    sets by default): ``"vllm<41277"``, ``"llama.cpp ext=0"``, ``"tensorrt-llm laguna<16379"``.

    >>> is_variant("vllm"), is_variant("llama.cpp ext=0")
    (False, True)
    """
    return " " in engine or "<" in engine


#: The engines as users run them by default (no variant).
DEFAULT_ENGINES: tuple[str, ...] = tuple(e for e in ENGINES if not is_variant(e))


def _num(x: Any) -> float | None:
    return float(x) if isinstance(x, (int, float)) and not isinstance(x, bool) else None


def _vllm_cap(layer: LayerRope) -> tuple[int | None, str]:
    L = _num(layer.config.get("max_position_embeddings"))
    if L is None:
        return None, ""
    kind = layer.rope_type
    if "gemma3" in str(layer.config.get("model_type", "")):
        return int(L), "max_position_embeddings (Gemma 3: already scaled)"
    if kind in ("su", "longrope", "llama3"):
        return int(L), f"max_position_embeddings = {int(L):,} ({kind}: factor not applied)"
    s = _num(layer.rope.get("factor")) or 1.0
    if kind == "yarn":
        L0 = _num(layer.rope.get("original_max_position_embeddings"))
        if L0 is not None:
            return int(L0 * s), f"original_max_position_embeddings x factor = {int(L0):,} x {s:g}"
    return int(L * s), f"max_position_embeddings x factor = {int(L):,} x {s:g}"


def _trt_cap(layer: LayerRope) -> tuple[int | None, str]:
    L = _num(layer.config.get("max_position_embeddings"))
    if L is None:
        return 2048, "no max_position_embeddings: 2048"
    kind = layer.rope_type
    if kind in ("su", "longrope", "llama3", "yarn") or kind == "default":
        why = f"max_position_embeddings = {int(L):,}" + (f" ({kind}: factor not applied)" if kind != "default" else "")
        return int(L), why
    s = _num(layer.rope.get("factor")) or 1.0
    return int(-(-L * s // 1)), f"ceil(max_position_embeddings x factor) = ceil({int(L):,} x {s:g})"


#: engine -> (the most positions it serves for a layer, and why; the source it is read from).
#: Engines without an entry cap nothing of their own here (the table says the rest).
CAPS: dict[str, tuple[Callable[[LayerRope], tuple[int | None, str]], Source]] = {
    "vllm": (_vllm_cap, _VLLM_CAP),
    "vllm<41277": (_vllm_cap, _VLLM_CAP),
    "tensorrt-llm": (_trt_cap, _TRT_CAP),
    "tensorrt-llm laguna<16379": (_trt_cap, _TRT_CAP),
}


@dataclass(frozen=True)
class Limit:
    """How far one engine goes on one rope entry, and where a shortfall comes from."""

    engine: str
    layer_type: str | None
    admitted: int | None
    """The positions the model admits there."""
    cap: int | None
    """The positions the engine serves at most (``None``: no cap of its own)."""
    cap_why: str
    table_rows: int | None
    """Rows of its cos/sin table (``None``: on the fly, or grown on demand)."""
    table: str
    """The table in words: ``"131,072 rows"``, ``"on the fly"``, ``"131,072 rows, grown on demand"``."""
    verdict: str = "ok"
    """``"ok"``, ``"unsupported beyond N"`` (it refuses or caps longer sequences) or
    ``"differs from N on"`` (it serves positions its table does not hold)."""
    why: str = ""
    source: Source | None = None


def limit(engine: str, layer: LayerRope, rec: Recipe | None = None) -> Limit:
    """What ``engine``'s context cap and table do with ``layer``'s admitted positions."""
    rec = rec if rec is not None else recipe(engine, layer)
    n = layer.admitted
    cap, cap_why, src = None, "", None
    if engine in CAPS:
        fn, src = CAPS[engine]
        cap, cap_why = fn(layer)
    rows = None
    if rec.supported and rec.table_rows is not None and not rec.grows and rec.table_rows.is_number:
        rows = int(rec.table_rows)
    if rec.table_rows is None:
        table = "on the fly"
    elif rec.table_rows.is_number:
        table = f"{int(rec.table_rows):,} rows" + (", grown on demand" if rec.grows else "")
    else:
        table = f"{rec.table_rows} rows" + (", grown on demand" if rec.grows else "")
    verdict, why = "ok", ""
    if n is not None and cap is not None and cap < n:
        verdict = f"unsupported beyond {cap - 1:,}"
        why = (f"{engine} serves at most {cap:,} positions ({cap_why}; {src.cite() if src else ''}); the model "
               f"admits {n:,} ({layer.admitted_why})")
    elif n is not None and rows is not None and rows < min(n, cap if cap is not None else n) and \
            layer.rope_type != "dynamic":
        verdict = f"differs from {rows:,} on"
        why = (f"{engine}'s cos/sin table holds {rows:,} rows, but it serves up to "
               f"{min(n, cap if cap is not None else n):,} positions: positions from {rows:,} on are read outside "
               "the table")
    return Limit(engine, layer.layer_type, n, cap, cap_why, rows, table, verdict, why, src)


@dataclass(frozen=True)
class Support:
    """:func:`~pe_symbolic.supports`'s answer: ``ok`` and the reasons (one line each)."""

    engine: str
    ok: bool
    reasons: tuple[str, ...]
    served: int | None = None
    """The most positions the engine serves over every rope entry (``None``: no limit found)."""

    def __bool__(self) -> bool:
        return self.ok

    def __str__(self) -> str:
        head = f"{self.engine}: {'yes' if self.ok else 'no'}"
        return head + "".join(f"\n  {r}" for r in self.reasons)


def supports(config: Mapping[str, Any], engine: str) -> Support:
    """Whether ``engine`` runs this model's RoPE as HF does over the positions the model admits.

    Parameters
    ----------
    config : Mapping
        A model's ``config.json`` as a dict.
    engine : str
        A key of :data:`~pe_symbolic.engines.recipes.RECIPES` (not ``"hf"``).

    Returns
    -------
    Support
        ``ok`` (also its truth value) and ``reasons``: a rope type the engine lacks, a key it
        does not read, a context cap or table shorter than the admitted positions, each with
        its source; ``served`` the most positions it serves.

    Raises
    ------
    ValueError
        An unknown engine, or a config the reader refuses.

    Examples
    --------
    >>> s = supports({"head_dim": 8, "max_position_embeddings": 64, "rope_theta": 100.0,
    ...               "rope_scaling": {"rope_type": "dynamic", "factor": 4.0}}, "llama.cpp")
    >>> s.ok, s.reasons[0][:58]
    (False, 'rope_type dynamic: llama.cpp has no dynamic-NTK scaling ty')
    """
    if engine not in ENGINES:
        raise ValueError(f"engine={engine!r} is not one of {', '.join(map(repr, ENGINES))}")
    reasons: list[str] = []
    ok = True
    served: int | None = None
    for lay in layer_ropes(config):
        rec = recipe(engine, lay)
        where = f"layer type {lay.layer_type}: " if lay.layer_type else ""
        if not rec.applies:
            continue
        if not rec.supported:
            ok = False
            reasons.append(f"{where}rope_type {lay.rope_type}: {rec.unsupported}")
            continue
        lim = limit(engine, lay, rec)
        cand = [x for x in (lim.cap, lim.table_rows) if x is not None]
        if cand:
            served = min(cand) if served is None else min(served, *cand)
        if lim.verdict != "ok":
            ok = False
            reasons.append(f"{where}{lim.verdict}: {lim.why}")
        reasons += [f"{where}{n}" for n in rec.notes if "not read" in n]
    if ok and not reasons:
        reasons.append("every rope entry: a recipe for its type, and the admitted positions served")
    return Support(engine, ok, tuple(reasons), served)


@dataclass(frozen=True)
class UsableContext:
    """:func:`~pe_symbolic.usable_context`'s answer: per site the admitted positions and the dtypes' limits, per
    engine and rope entry its cap and table; ``str()`` is a table with the reason beside each number."""

    sites: tuple[Any, ...]
    """``pe_symbolic.numeric.context.SiteContext`` per rotating site."""
    engines: tuple[Limit, ...]

    def __str__(self) -> str:
        lines = ["usable context"]
        for c in self.sites:
            where = "all layers" if c.layers is None else f"layers {_ranges(c.layers)}"
            lines.append(f"  {c.module} ({where}): positions 0 .. {c.admitted:,} admitted -- {c.why}")
            for lim in c.limits:
                inside = "" if lim.position <= c.admitted else " (beyond the admitted positions)"
                lines.append(f"    {lim.dtype:<9} {lim.kind:<18} from {lim.position:,}{inside} -- {lim.lemma}")
        for e in self.engines:
            where = f" [{e.layer_type}]" if e.layer_type else ""
            cap = "no cap of its own" if e.cap is None else f"at most {e.cap:,} ({e.cap_why})"
            lines.append(f"  {e.engine}{where}: table {e.table}; serves {cap}; {e.verdict}"
                         + (f" -- {e.why}" if e.why else ""))
        return "\n".join(lines)


def _ranges(idx: tuple[int, ...]) -> str:
    from ..numeric.program import _ranges as r

    return r(idx)


def usable_context(config: Mapping[str, Any], engines: Sequence[str] = DEFAULT_ENGINES) -> UsableContext:
    """Per layer and sub-module the largest position the model admits, where each dtype's tables
    stop being meaningful, and each engine's table size and context cap -- with the reason behind
    each number.

    Parameters
    ----------
    config : Mapping
        A model's ``config.json`` as a dict.
    engines : sequence of str
        Keys of :data:`~pe_symbolic.engines.recipes.RECIPES` (default: the engines as run by
        default, ``DEFAULT_ENGINES``).

    Returns
    -------
    UsableContext
        ``sites`` (``pe_symbolic.numeric.context.SiteContext``: ``admitted``, ``why``,
        ``limits``) and ``engines`` (one ``Limit`` per engine and rope entry); ``str()``
        prints them with their reasons.

    Examples
    --------
    >>> from pe_symbolic.numeric import model_config
    >>> u = usable_context(model_config("qwen2.5-7b-yarn"), ["vllm", "tensorrt-llm"])
    >>> u.sites[0].admitted, [(e.engine, e.verdict) for e in u.engines]
    (131071, [('vllm', 'ok'), ('tensorrt-llm', 'unsupported beyond 32,767')])
    """
    from ..numeric import read_program

    unknown = [e for e in engines if e not in ENGINES]
    if unknown:
        raise ValueError(f"engines={list(engines)!r}: {unknown[0]!r} is not one of {', '.join(map(repr, ENGINES))}")
    sites = program_context(read_program(config))
    limits = []
    for lay in layer_ropes(config):
        for e in engines:
            rec = RECIPES[e](lay)
            if rec.applies and rec.supported:
                limits.append(limit(e, lay, rec))
    return UsableContext(sites, tuple(limits))
