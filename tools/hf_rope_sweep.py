"""Every transformers model type with a rotary embedding, at its class defaults: pe_symbolic against HF.

``python tools/hf_rope_sweep.py [-v]`` builds each ``PretrainedConfig`` subclass of the installed
transformers at its defaults, finds the rotary embedding class(es) of its modeling module that
accept that config, and compares, per layer type, HF's ``inv_freq`` buffer and
``attention_scaling`` with :func:`pe_symbolic.numeric.rope_frequencies` read from

* ``sparse``: ``{"model_type": ...}`` alone (every value from the shipped table of class
  defaults, ``pe_symbolic/hf_defaults.json``: what a sparse ``config.json`` relies on), and
* ``dense``: the class's own ``to_dict()``,

and the layer types (HF's rotary embedding's against :func:`pe_symbolic.numeric.describe`'s).
Each (model type, reading) is one of

* ``agree``: every layer type's frequencies within 1e-5 (HF computes in float32) and attention
  factor within 1e-6, the same layer types;
* ``differ``: a difference (``warned`` when the parser warned about the config, ``silent`` when
  it did not: the target is 0 silent);
* ``refused``: the parser raised ``ValueError`` / ``TypeError`` naming why;
* ``crash``: any other exception from pe_symbolic (target 0).

Model types whose rotary embedding cannot be built from the config at its defaults (vision
rotaries built from a dim, classes HF itself refuses to build) are counted apart. Needs
``transformers`` and ``torch``.
"""

from __future__ import annotations

import argparse
import collections
import importlib
import inspect
import logging
import re
import sys
import warnings
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

REL, ATTN = 1e-5, 1e-6


def _classes():
    import transformers.models as tm
    from transformers import PretrainedConfig
    import pkgutil

    for info in sorted(pkgutil.iter_modules(tm.__path__), key=lambda i: i.name):
        try:
            cmod = importlib.import_module(f"transformers.models.{info.name}.configuration_{info.name}")
        except Exception:
            continue
        for name in sorted(dir(cmod)):
            cls = getattr(cmod, name)
            if isinstance(cls, type) and issubclass(cls, PretrainedConfig) and cls.__module__ == cmod.__name__ \
                    and cls.__name__ == name and isinstance(getattr(cls, "model_type", None), str):
                yield info.name, cls


def _rotary_classes(pkg: str) -> list[type]:
    try:
        mod = importlib.import_module(f"transformers.models.{pkg}.modeling_{pkg}")
    except Exception:
        return []
    out = []
    for name in sorted(dir(mod)):
        obj = getattr(mod, name)
        if isinstance(obj, type) and name.endswith(("RotaryEmbedding", "RopePositionEmbedding")) \
                and obj.__module__ == mod.__name__:
            params = list(inspect.signature(obj.__init__).parameters)
            if len(params) > 1 and params[1] == "config":
                out.append(obj)
    return out


def _annotated_for(rcls: type) -> str | None:
    """The config class name the rotary class's ``config`` parameter is annotated with."""
    ann = inspect.signature(rcls.__init__).parameters["config"].annotation
    if ann is inspect.Parameter.empty:
        return None
    name = ann if isinstance(ann, str) else getattr(ann, "__name__", None)
    return None if name in (None, "PretrainedConfig", "PreTrainedConfig") else name.split(".")[-1]


def _hf_tables(rot) -> dict[str | None, tuple[Any, float]]:
    """{layer type (None: one RoPE): (inv_freq as float64 numpy, attention scaling)}."""
    out: dict[str | None, tuple[Any, float]] = {}
    for name, buf in list(rot.named_buffers(recurse=False)):
        m = re.fullmatch(r"(?:(.+)_)?inv_freq", name)
        if m is None or name.endswith("original_inv_freq"):
            continue
        lt = m.group(1)
        scale = getattr(rot, f"{lt}_attention_scaling" if lt else "attention_scaling", 1.0)
        out[lt] = (buf.detach().double().cpu().numpy().reshape(-1), float(scale))
    return out


def _prefix(name: str) -> str:
    return name.lower().replace("config", "").replace("text", "").replace("_", "")


def _hf(pkg: str, cls) -> tuple[Any, dict[str | None, tuple[Any, float]]] | None:
    """The config at its defaults and HF's tables from the rotary class that takes it (the one
    whose name is closest to the config class's, when several do)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            cfg = cls()
    except Exception:
        return None
    cands = []
    # a composite config's rotary embedding is built from its text part (HF's model does the same)
    text = getattr(cfg, "text_config", None) if "text_config" in (getattr(cls, "sub_configs", None) or {}) else None
    for rcls in _rotary_classes(pkg):
        ann = _annotated_for(rcls)
        target = cfg
        if ann is not None and ann != cls.__name__ and not any(ann == b.__name__ for b in cls.__mro__):
            if text is None or not any(ann == b.__name__ for b in type(text).__mro__):
                continue  # the rotary embedding of another config of the model (Qwen2-VL's text vs vision)
            target = text
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                rot = rcls(target)
        except Exception:
            continue
        tables = _hf_tables(rot)
        if tables:
            a, b = _prefix(cls.__name__), _prefix(rcls.__name__.replace("RotaryEmbedding", ""))
            common = len(next((a[:i] for i in range(min(len(a), len(b)), 0, -1) if a[:i] == b[:i]), ""))
            cands.append((common == len(b) and len(b) > 0, common, -len(rcls.__name__), rcls.__name__, tables))
    if not cands:
        return None
    best = max(cands, key=lambda c: c[:3])
    return cfg, best[4]


def _ours(config: dict[str, Any]) -> tuple[dict[str | None, tuple[Any, float]], bool]:
    """({layer type: (inv_freq, attention factor)}, whether the parser warned). Frequencies in
    the order HF's buffer holds them: ERNIE 4.5 VL's rotary embedding stores its ladder permuted
    (``cat(inv_freq[:hw][0::2], inv_freq[:hw][1::2])``, placed by ``mrope_rule_axes``)."""
    import numpy as np

    from pe_symbolic import numeric

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        desc = numeric.describe(config, quiet=True)
        out = {}
        for lt in desc.layer_types_with_rope():
            spec = numeric.parse_rope_config(config, layer_type=lt)
            fr = numeric.rope_frequencies(spec)
            inv = fr.inv_freq
            if spec.mrope_rule == "ernie4_5_vl" and spec.mrope_section is not None:
                hw = spec.mrope_section[0] + spec.mrope_section[1]
                inv = np.concatenate([inv[:hw][0::2], inv[:hw][1::2], inv[hw:]])
            out[lt] = (inv, fr.attention_factor)
    return out, any(issubclass(w.category, UserWarning) for w in caught)


def _compare(hf: dict, ours: dict, deepseek_v4: bool = False) -> str | None:
    import numpy as np

    if deepseek_v4:  # HF's labels are main/compress too
        pass
    if set(hf) != set(ours):
        if set(hf) == {None} and len(ours) == 1:
            ours = {None: next(iter(ours.values()))}
        else:
            return f"layer types: HF {sorted(map(str, hf))}, ours {sorted(map(str, ours))}"
    for lt, (inv, af) in hf.items():
        o_inv, o_af = ours[lt]
        if inv.shape != o_inv.shape:
            return f"{lt or 'rope'}: {inv.shape[0]} frequencies in HF, {o_inv.shape[0]} here"
        scale = np.maximum(np.abs(o_inv), 1e-30)
        rel = np.abs(inv - o_inv) / scale
        ok = (rel <= REL) | ((o_inv == 0) & (np.abs(inv) <= 1e-30))
        if not ok.all():
            q = int(np.argmax(~ok))
            return f"{lt or 'rope'}: inv_freq[{q}] HF {inv[q]:.9g}, ours {o_inv[q]:.9g}"
        if abs(af - o_af) > ATTN:
            return f"{lt or 'rope'}: attention factor HF {af:.9g}, ours {o_af:.9g}"
    return None


def sweep(verbose: bool = False) -> dict[str, Any]:
    logging.disable(logging.WARNING)
    counts: dict[str, collections.Counter] = {"sparse": collections.Counter(), "dense": collections.Counter()}
    details: dict[str, list[str]] = collections.defaultdict(list)
    seen: set[str] = set()
    no_hf = 0
    for pkg, cls in _classes():
        mt = cls.model_type
        if mt in seen:
            continue
        seen.add(mt)
        got = _hf(pkg, cls)
        if got is None:
            no_hf += 1
            continue
        cfg, hf = got
        try:
            dense = cfg.to_dict()
        except Exception:
            dense = None
        for reading, config in (("sparse", {"model_type": mt}), ("dense", dense)):
            if config is None:
                continue
            try:
                ours, warned = _ours(config)
            except (ValueError, TypeError) as exc:
                counts[reading]["refused"] += 1
                details[f"{reading} refused"].append(f"{mt}: {str(exc)[:160]}")
                continue
            except Exception as exc:  # noqa: BLE001 - a crash is what is counted here
                counts[reading]["crash"] += 1
                details[f"{reading} crash"].append(f"{mt}: {type(exc).__name__}: {str(exc)[:160]}")
                continue
            why = _compare(hf, ours, mt == "deepseek_v4")
            if why is None:
                counts[reading]["agree"] += 1
            else:
                kind = "differ (warned)" if warned else "differ (silent)"
                counts[reading][kind] += 1
                details[f"{reading} {kind}"].append(f"{mt}: {why}")
    return {"counts": counts, "details": details, "no_hf": no_hf, "types": len(seen)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("-v", "--verbose", action="store_true", help="list every model type that does not agree")
    args = ap.parse_args(argv)
    import transformers

    res = sweep(args.verbose)
    print(f"transformers {transformers.__version__}: {res['types']} config model types, "
          f"{res['types'] - res['no_hf']} with a rotary embedding built from the config at its defaults")
    for reading in ("sparse", "dense"):
        c = res["counts"][reading]
        print(f"{reading:>6}: " + ", ".join(f"{k} {c[k]}" for k in ("agree", "differ (warned)", "differ (silent)",
                                                                      "refused", "crash")))
    for key, items in sorted(res["details"].items()):
        if args.verbose or "silent" in key or "crash" in key:
            print(f"  {key} ({len(items)}):")
            for it in items:
                print(f"    {it}")
    bad = sum(res["counts"][r]["differ (silent)"] + res["counts"][r]["crash"] for r in res["counts"])
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
