r"""How wrong is a framework's RoPE or sinusoidal table at long context, in the dtype it runs?

:func:`audit` emulates a :class:`~pe_symbolic.audit.recipes.Recipe` (where each value lives
and where each cast happens; presets for the code real frameworks ship) in NumPy, measures
it band by band against exact references checked by the independent oracle, puts the proved
bound beside every measurement (claims ``precision.angle`` and ``precision.running_product``),
and, for a recipe that breaks a tolerance, finds the smallest change that meets it.

Design rules:

* **Recipes are data** (:mod:`~pe_symbolic.audit.recipes`); contradictory fields are refused.
* **Vectorised by band** (:mod:`~pe_symbolic.audit.measure`): 1M positions x 64 pairs in
  seconds; the mpmath oracle only at each band's worst and a random point.
* **Measured <= bound everywhere** (:mod:`~pe_symbolic.audit.bounds`), and the bound names
  the cast that dominates.
* ``backend="torch"`` (:mod:`~pe_symbolic.audit.torch_backend`) runs the torch presets' real
  operations instead of the emulation, on CPU or CUDA.

>>> import pe_symbolic as pe
>>> rep = pe.audit("llama-3.1-8b", recipe="hf", dtype="bfloat16", context=8192)
>>> r = rep.results[0]
>>> r.measured("angle") <= r.bound("angle"), r.dominant
(True, 'inv_freq (reciprocal in float32)')
"""

from __future__ import annotations

import json
import math
import numbers
import os
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from .._validate import check_choice
from .backends import BACKEND_PRESETS, measure_backend
from .recipes import ACT_DTYPES, PRESETS, Recipe, get_recipe, preset_names
from .report import BOUND_CLAIMS, AuditReport

__all__ = ["PRESETS", "AuditReport", "Recipe", "audit", "load_target", "preset_names"]

#: Largest context: positions must be exact in float64 (as everywhere in pe_symbolic).
MAX_CONTEXT = 2**53
METRICS = ("angle", "table", "output", "score")
BACKENDS = ("numpy", "torch")


def load_target(config: Any, *, seq_len: int | None = None, layer_type: str | None = None,
                factor: float | None = None):
    """What to audit: a shipped model name, a path to a ``config.json``, a config dict, or
    ``"sinusoidal:D[:BASE]"`` for a sinusoidal table of dimension ``D``. ``factor`` picks one
    factor of vLLM's multi-factor linear RoPE (see :func:`~pe_symbolic.audit.emulate.one_factor`).

    >>> load_target("sinusoidal:512").describe()
    'sinusoidal:512 (sinusoidal, d 512, base 10000, vaswani schedule)'
    >>> load_target("lama-3.1-8b")
    Traceback (most recent call last):
    ValueError: config='lama-3.1-8b' is neither a shipped model config (deepseek-v3, ...), a path to a config.json, nor sinusoidal:D[:BASE] (did you mean 'llama-3.1-8b'?)
    """
    from .. import numeric
    from .emulate import rope_target, sinusoidal_target

    if isinstance(config, Mapping):
        return rope_target(config, str(config.get("_name_or_path", "config")), seq_len=seq_len,
                           layer_type=layer_type, factor=factor)
    if not isinstance(config, str):
        raise TypeError(f"config must be a model name, a path, a dict or 'sinusoidal:D'; got {type(config).__name__}")
    if config.startswith("sinusoidal:"):
        parts = config.split(":")
        try:
            d = int(parts[1])
            base = float(parts[2]) if len(parts) > 2 else 10000.0
        except (ValueError, IndexError):
            raise ValueError(f"config={config!r}: write sinusoidal:D or sinusoidal:D:BASE (D an even integer)") from None
        from ..numeric._checks import check_numeric_d

        check_numeric_d(d)
        if not base > 1 or not math.isfinite(base):
            raise ValueError(f"config={config!r}: the base must be a finite number > 1")
        if factor is not None:
            raise ValueError(f"factor={factor!r} applies to vLLM's multi-factor linear RoPE, not to {config!r}")
        return sinusoidal_target(d, base, "vaswani", config)
    names = numeric.model_configs()
    if config in names:
        return rope_target(numeric.model_config(config), config, seq_len=seq_len, layer_type=layer_type,
                           factor=factor)
    if os.path.exists(config):
        data = _read_config(config)
        return rope_target(data, _config_name(data, config), seq_len=seq_len, layer_type=layer_type,
                           factor=factor)
    import difflib

    close = difflib.get_close_matches(config, list(names), n=1)
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    raise ValueError(f"config={config!r} is neither a shipped model config ({', '.join(sorted(names))}), "
                     f"a path to a config.json, nor sinusoidal:D[:BASE]{hint}")


def _read_config(path: str) -> dict[str, Any]:
    """The model config at ``path``: a ``config.json`` file, or a model folder holding one
    (a Hugging Face checkpoint folder).

    Raises
    ------
    ValueError
        When the folder has no ``config.json`` or the file is not a JSON object.
    """
    file = os.path.join(path, "config.json") if os.path.isdir(path) else path
    if not os.path.isfile(file):
        raise ValueError(f"config={path!r} is a folder without a config.json")
    try:
        with open(file, encoding="utf-8") as fh:
            data = json.load(fh)
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ValueError(f"config={path!r} could not be read as JSON: {exc}") from None
    if not isinstance(data, dict):
        raise ValueError(f"config={path!r} is not a JSON object (a model config.json)")
    return data


def _config_name(data: Mapping[str, Any], path: str) -> str:
    """How a config read from ``path`` is named in reports: by its model.

    The model's own name (``_name_or_path``, which ``transformers`` writes) when it has one;
    else its ``model_type`` with the path it was read from; else the path.

    >>> _config_name({"_name_or_path": "meta-llama/Llama-3.1-8B", "model_type": "llama"}, "x/config.json")
    'meta-llama/Llama-3.1-8B'
    >>> _config_name({"model_type": "llama"}, "downloads/config.json")
    'llama (downloads/config.json)'
    """
    name = data.get("_name_or_path")
    if isinstance(name, str) and name.strip():
        return name.strip()
    kind = data.get("model_type")
    return f"{kind} ({path})" if isinstance(kind, str) and kind else path


def _check_context(context: object) -> int:
    if isinstance(context, bool) or not isinstance(context, numbers.Integral):
        if isinstance(context, float) and context.is_integer():
            context = int(context)
        else:
            raise ValueError(f"context={context!r} must be a positive integer (the number of positions)")
    context = int(context)
    if context <= 0 or context > MAX_CONTEXT:
        raise ValueError(f"context={context!r} is not allowed: it must be in 1 .. 2**53 = {MAX_CONTEXT} "
                         "(positions beyond 2**53 are not exact in float64)")
    return context


def _listify(x: Any) -> list:
    return list(x) if isinstance(x, (list, tuple)) else [x]


def audit(
    config: Any,
    recipe: str | Recipe | Mapping[str, Any] | Sequence[str | Recipe | Mapping[str, Any]] = "hf",
    *,
    dtype: str | Sequence[str] = "bfloat16",
    context: int = 131072,
    tol: float | None = None,
    metric: str = "angle",
    backend: str = "numpy",
    device: str = "cpu",
    exhaustive: bool | None = None,
    fix: bool = True,
    seq_len: int | None = None,
    layer_type: str | None = None,
    factor: float | None = None,
    progress: Callable[[str, int, int], None] | None = None,
) -> AuditReport:
    r"""Audit the precision of RoPE / sinusoidal recipes at long context.

    Parameters
    ----------
    config : str, dict
        A shipped model (:func:`pe_symbolic.numeric.model_configs`, e.g. ``"llama-3.1-8b"``),
        a path to a ``config.json``, a config dict, or ``"sinusoidal:D[:BASE]"``.
    recipe : str, Recipe, dict, or a list of them
        Preset names (:data:`~pe_symbolic.audit.recipes.PRESETS`), recipes, or dicts of recipe fields.
    dtype : str or list of str
        Activation dtype(s): ``"bfloat16"``, ``"float16"``, ``"float32"``, ``"float64"``.
    context : int
        Positions ``0 .. context-1``; ``1 <= context <= 2**53`` (contexts beyond 2**21 are
        sampled per band, and the report says so).
    tol : float, optional
        Largest allowed ``metric`` error; the report's :attr:`~pe_symbolic.audit.report.AuditReport.passed` and, for
        every failing recipe, the smallest verified fix (``fix=True``). A recipe that
        produces a non-finite value (``inf`` / NaN: float16 positions or angles from 65520
        on) in any measured quantity fails any tolerance; the measurement is ``inf`` and
        :attr:`~pe_symbolic.audit.measure.RecipeAudit.nonfinite` says where and why.
    metric : {"angle", "table", "output", "score"}
        Max angle error (rad), max cos/sin table error, error of the rotated unit pairs, or
        the relative-property violation :math:`|\langle \hat R(m)q, \hat R(m+\Delta)k\rangle -
        \langle q, R(\Delta)k\rangle|` (per pair, offsets 1, 16, 256, 4096).
    backend : {"numpy", "torch"}
        ``"torch"`` runs the torch presets' real operations (others stay emulated, said so).
        The ``pe_symbolic-torch`` and ``pe_symbolic-jax`` presets always run the package's
        own tensor backends (:mod:`pe_symbolic.audit.backends`), with either value.
    device : str
        torch device for ``backend="torch"`` (``"cpu"``, ``"cuda"``; also the device of the
        ``pe_symbolic-torch`` rows then).
    exhaustive : bool, optional
        Evaluate every position (default: when ``context <= 2**21``).
    fix : bool
        Search the smallest fix for recipes that break ``tol``.
    seq_len, layer_type : optional
        As in :func:`pe_symbolic.numeric.rope_frequencies` (dynamic / longrope; Gemma 3).
        ``seq_len`` defaults to ``context``: the current length a framework sees when it
        runs all ``context`` positions (HF takes the largest position id + 1).
    factor : float, optional
        For vLLM's multi-factor linear RoPE (``factor`` a list): the factor whose cache block
        is audited (required there, refused elsewhere).
    progress : callable, optional
        ``progress(label, done, total)`` as positions are evaluated.

    Returns
    -------
    AuditReport

    Raises
    ------
    ValueError, TypeError
        Unknown preset or dtype (the known ones listed), contradictory recipe fields, a
        context outside 1 .. 2**53, a sinusoidal recipe (``t2t``, ``fairseq``,
        ``distilbert``) for a RoPE model config, or a RoPE recipe for a ``sinusoidal:D``
        target (the message names the recipe, the target's kind and what it takes).
    ImportError
        ``backend="torch"`` without torch installed (how to install it is said).

    Examples
    --------
    >>> rep = audit("llama-3.1-8b", recipe=["hf", "pe_symbolic"], dtype="float32", context=4096, tol=1e-3)
    >>> [(r.recipe.name, r.measured("angle") < 1e-3) for r in rep.results]
    [('hf', True), ('pe_symbolic', True)]
    >>> rep.exit_code
    0
    """
    from .emulate import Emulation
    from .fixes import smallest_fix
    from .measure import measure

    start = time.perf_counter()
    recipes = [get_recipe(r) for r in _listify(recipe)]
    if not recipes:
        raise ValueError("recipe= is empty; give one or more preset names or recipes")
    dtypes = [check_choice("dtype", d, ACT_DTYPES) for d in _listify(dtype)]
    context = _check_context(context)
    metric = check_choice("metric", metric, METRICS)
    backend = check_choice("backend", backend, BACKENDS)
    if tol is not None:
        if isinstance(tol, bool) or not isinstance(tol, numbers.Real) or not (float(tol) > 0) or math.isinf(tol):
            raise ValueError(f"tol={tol!r} must be a positive finite number")
        tol = float(tol)
    if seq_len is None:  # what the framework sees in a prefill of `context` tokens (HF: max id + 1)
        seq_len = context
    target = load_target(config, seq_len=seq_len, layer_type=layer_type, factor=factor)
    from .emulate import _kind_mismatch, sinusoidal_target

    targets = []  # each recipe's target: a sinusoidal table takes the recipe's schedule
    for r in recipes:
        if r.kind != target.kind:
            raise ValueError(_kind_mismatch(r, target))
        if r.kind == "sinusoidal" and r.schedule != target.schedule:
            targets.append(sinusoidal_target(target.rotary_dim, target.base, r.schedule, target.name))
        else:
            targets.append(target)
    torch_mod = None
    if backend == "torch":
        from . import torch_backend

        torch_mod = torch_backend
        torch_backend.require_torch(device)
    results = []
    for r, tg in zip(recipes, targets):
        for dt in dtypes:
            label = f"{r.name} {dt}"
            cb = None if progress is None else (lambda done, total, label=label: progress(label, done, total))
            em = Emulation(tg, r, dt)
            if r.name in BACKEND_PRESETS and PRESETS.get(r.name) == r:  # the package's own backends, run
                res = measure_backend(em, context, device=device if backend == "torch" else "cpu",
                                      exhaustive=exhaustive, progress=cb)
            elif torch_mod is not None and torch_mod.supports(r):
                res = torch_mod.measure_torch(em, context, device=device, exhaustive=exhaustive, progress=cb)
            else:
                res = measure(em, context, exhaustive=exhaustive, progress=cb)
                if torch_mod is not None:
                    res.note = "; ".join(x for x in ("no torch implementation of this recipe: emulated in NumPy",
                                                     res.note) if x)
            if not all(b.exhaustive for b in res.bands):
                res.note = (res.note + "; " if res.note else "") + "sampled bands (context > 2**21)"
            if tol is not None and fix and (not res.finite or res.measured(metric) > tol):
                res.fix = smallest_fix(tg, r, dt, metric, tol, context, exhaustive=exhaustive)
            results.append(res)
    described = " / ".join(dict.fromkeys(tg.describe() for tg in targets))
    return AuditReport(described, context, results, metric, tol, time.perf_counter() - start,
                       _bound_verdicts())


def _bound_verdicts() -> dict[str, str]:
    from .. import theorems

    out = {}
    for cid in BOUND_CLAIMS:
        try:
            out[cid] = theorems.get(cid).prove().verdict
        except LookupError:
            out[cid] = "not registered"
    return out


class _CallableModule(__import__("types").ModuleType):
    """``import pe_symbolic.audit`` binds the package to ``pe_symbolic.audit``; calling it
    calls :func:`audit`, so ``pe.audit(...)`` works whichever of the two it names."""

    def __call__(self, *args: Any, **kwargs: Any) -> AuditReport:
        return audit(*args, **kwargs)


__import__("sys").modules[__name__].__class__ = _CallableModule
