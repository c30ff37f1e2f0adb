"""Every transformers model type with a rotary embedding or a RoPE key: pe_symbolic against HF.

``python tools/hf_rope_sweep.py [-v] [--only TYPE ...]`` builds each ``PretrainedConfig``
subclass of the installed transformers at its defaults and compares what HF's model does
with what :mod:`pe_symbolic` reads from

* ``sparse``: ``{"model_type": ...}`` alone (every value from the shipped table of class
  defaults, ``pe_symbolic/hf_defaults.json``: what a sparse ``config.json`` relies on), and
* ``dense``: the class's own ``to_dict()``;
* ``keyed``: for a model type whose HF model rotates nothing (the meta run below), ``dense``
  with a ``rope_theta`` beside it, as published configs carry one (Nemotron-3-Nano).

What HF does comes from two places, both of HF's own code:

* **frequencies**: the rotary embedding class(es) of the model's modeling module that accept
  the config -- their ``inv_freq`` buffer and ``attention_scaling`` per layer type;
* **where a rotation is applied**: the text model built on PyTorch's ``meta`` device (no
  memory, no arithmetic) and run once on 8 tokens, with every module-level function of the
  modeling module whose name says it rotates (``*rotary*``, ``*rope*``, ``*rotate*``) wrapped
  to record the ``layer_idx`` of the module that called it, and every attention module's
  forward recorded: an attention layer that called no rotation is a NoPE layer.

Each (model type, reading) is one of

* ``right``: every layer type's frequencies within 1e-5 (HF computes in float32), attention
  factor within 1e-6, and the same layers without RoPE;
* ``NoPE misread``: a layer HF rotates is read as NoPE, or a layer HF does not rotate is read
  with RoPE (target 0);
* ``wrong (warned)`` / ``wrong (silent)``: a difference in the frequencies or layer types,
  with or without a warning from the parser (target: 0 silent);
* ``refused``: the parser raised ``ValueError`` / ``TypeError`` naming why (target 0 for
  configs HF reads);
* ``crash``: any other exception from pe_symbolic (target 0).

A model type counts when HF builds a rotary embedding from its config at its defaults, or
when its config carries a RoPE key (``rope`` / ``rotary`` in a key name) and the meta run
found attention layers; the ``keyed`` reading also covers model types whose modeling code
defines a rotation it never applies (Nemotron-H, Jamba). Needs ``transformers`` and ``torch``. The reading of pe_symbolic is
:func:`pe_symbolic.numeric.read_program` where it exists (else :func:`describe`, so that the
same script measures an older checkout: ``--root`` names its folder).
"""

from __future__ import annotations

import argparse
import collections
import importlib
import inspect
import logging
import re
import sys
import types
import warnings
from pathlib import Path
from typing import Any

REL, ATTN = 1e-5, 1e-6
CATEGORIES = ("right", "NoPE misread", "wrong (warned)", "wrong (silent)", "refused", "crash")


def _classes():
    import pkgutil

    import transformers.models as tm
    from transformers import PretrainedConfig

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


def _quiet_build(cls):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return cls()
    except Exception:
        return None


#: Composites whose own rotary class is not the language model's (read from HF's modeling code,
#: independently of the package's table): the language model is its text part's model.
TEXT_PART_IS_THE_LM = {
    # modeling_musicflamingo.py: MusicFlamingoRotaryEmbedding is the audio time embedding
    # (apply_rotary_time_emb on the audio encoder's output); language_model =
    # AutoModel.from_config(config.text_config)
    "musicflamingo",
}


def _hf(pkg: str, cls, cfg) -> dict[str | None, tuple[Any, float]] | None:
    """HF's tables from the rotary class that takes the config (the one whose name is closest to
    the config class's, when several do)."""
    if cls.model_type in TEXT_PART_IS_THE_LM:
        text = getattr(cfg, "text_config", None)
        return None if text is None else _hf(type(text).__module__.split(".")[-2], type(text), text)
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
    return max(cands, key=lambda c: c[:3])[4]


def _has_rope_key(d: Any) -> bool:
    if isinstance(d, dict):
        return any(("rope" in str(k).lower() or "rotary" in str(k).lower()) or _has_rope_key(v) for k, v in d.items())
    return False


def _mentions_rope(pkg: str) -> bool:
    """Whether the model's modeling code defines RoPE machinery (a rotary function or class), used
    or not: Nemotron-H and Jamba carry ``apply_rotary_pos_emb`` / ``rotate_half`` and never call
    them, and their published configs carry a ``rope_theta``."""
    import transformers

    path = Path(transformers.__file__).parent / "models" / pkg / f"modeling_{pkg}.py"
    try:
        src = path.read_text(encoding="utf-8")
    except OSError:
        return False
    return re.search(r"def (apply_rotary\w*|rotate_half)\(", src) is not None


def _meta_run(cls) -> tuple[set[int], set[int]] | None:
    """(attention layers, layers that called a rotation) of HF's text model at the class defaults,
    from one forward pass on the meta device; ``None`` when it cannot be built or run."""
    import torch
    from transformers import AutoModel

    cfg = _quiet_build(cls)
    if cfg is None:
        return None
    text = getattr(cfg, "text_config", None) if "text_config" in (getattr(cls, "sub_configs", None) or {}) else None
    text = text or cfg
    try:
        mcls = AutoModel._model_mapping[type(text)]
    except Exception:
        return None
    mod = sys.modules.get(mcls.__module__) or importlib.import_module(mcls.__module__)
    rotating = {n: f for n, f in vars(mod).items()
                if isinstance(f, types.FunctionType) and re.search("rotar|rope|rotat", n.lower())
                and n not in ("dynamic_rope_update",)}
    called: set[int] = set()
    attention: set[int] = set()

    def layer_of(frame) -> int | None:
        while frame is not None:
            obj = frame.f_locals.get("self")
            li = getattr(obj, "layer_idx", None)
            if isinstance(li, int):
                return li
            frame = frame.f_back
        return None

    def wrap(f):
        def g(*a, **k):
            li = layer_of(sys._getframe(1))
            if li is not None:
                called.add(li)
            return f(*a, **k)
        return g

    for n, f in rotating.items():
        setattr(mod, n, wrap(f))
    hooks = []
    try:
        text._attn_implementation = "eager"
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with torch.device("meta"):
                model = AutoModel.from_config(text, dtype=torch.bfloat16)
        for m in model.modules():
            name = type(m).__name__
            if "Attention" in name and "Vision" not in name and isinstance(getattr(m, "layer_idx", None), int):
                hooks.append(m.register_forward_pre_hook(lambda mod_, _a, li=m.layer_idx: attention.add(li)))
        ids = torch.zeros(1, 8, dtype=torch.long, device="meta")
        with torch.no_grad(), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model(input_ids=ids)
    except Exception:
        return None
    finally:
        for h in hooks:
            h.remove()
        for n, f in rotating.items():
            setattr(mod, n, f)
    return (attention, called) if attention else None


def _ours(config: dict[str, Any]) -> tuple[dict[str | None, tuple[Any, float]], set[int] | None, bool, dict]:
    """({layer type: (inv_freq, attention factor)}, the layers read as NoPE (``None``: not said;
    every layer when the config reads as no RoPE at all), whether the parser warned). Frequencies
    in the order HF's buffer holds them: ERNIE 4.5 VL's rotary embedding stores its ladder permuted
    (``cat(inv_freq[:hw][0::2], inv_freq[:hw][1::2])``, placed by ``mrope_rule_axes``)."""
    import numpy as np

    from pe_symbolic import numeric

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out: dict[str | None, tuple[Any, float]] = {}
        unread: dict[str | None, tuple[Any, float]] = {}
        if hasattr(numeric, "read_program"):
            prog = numeric.read_program(config)
            un = prog.unrotated_layers()
            nope = set(un) if un is not None else None
            for lt, spec in prog.layer_type_specs().items():
                fr = numeric.rope_frequencies(spec)
                out[lt] = (_hf_order(spec, fr.inv_freq, np), fr.attention_factor)
            # entries no layer reads (DeepSeek-V4's 'main' when every layer is compressed): compared
            # where HF builds a table for them anyway, from the parser's reading of the entry
            for lt in _unread_entries(config, prog):
                spec = numeric.parse_rope_config(config, layer_type=lt)
                fr = numeric.rope_frequencies(spec)
                unread[lt] = (_hf_order(spec, fr.inv_freq, np), fr.attention_factor)
        else:  # an older checkout: describe
            desc = numeric.describe(config, quiet=True)
            nope = set(desc.nope_layers) if desc.nope_layers is not None else None
            for lt in desc.layer_types_with_rope():
                spec = numeric.parse_rope_config(config, layer_type=lt)
                fr = numeric.rope_frequencies(spec)
                out[lt] = (_hf_order(spec, fr.inv_freq, np), fr.attention_factor)
    return out, nope, any(issubclass(w.category, UserWarning) for w in caught), unread


def _unread_entries(config, prog) -> list[str]:
    from pe_symbolic._hfconfig import normalize
    from pe_symbolic.numeric._keys import _per_layer
    from pe_symbolic.numeric._parse import rope_entries

    _, params, _ = rope_entries(normalize(config), False)
    if not _per_layer(params):
        return []
    read = {s.entry for s in prog.attention()}
    return [t for t, v in params.items() if t not in read and isinstance(v, dict)]


def _hf_order(spec, inv, np):
    if spec.mrope_rule == "ernie4_5_vl" and spec.mrope_section is not None:
        hw = spec.mrope_section[0] + spec.mrope_section[1]
        return np.concatenate([inv[:hw][0::2], inv[:hw][1::2], inv[hw:]])
    return inv


def _compare(hf: dict, ours: dict) -> str | None:
    import numpy as np

    if set(hf) != set(ours):
        if set(hf) == {None} and len(ours) == 1:
            ours = {None: next(iter(ours.values()))}
        elif len(hf) == 1 and len(ours) == 1:
            ours = {next(iter(hf)): next(iter(ours.values()))}
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


def _nope_diff(meta: tuple[set[int], set[int]] | None, ours_rope: dict, ours_nope: set[int] | None) -> str | None:
    """Where HF's rotated layers and ours part (only the layers HF runs attention on)."""
    if meta is None:
        return None
    attn, rot = meta
    hf_nope = attn - rot
    if not ours_rope:  # read as no RoPE at all
        mine = set(attn)
    else:
        mine = set() if ours_nope is None else set(ours_nope)
    missed = sorted((hf_nope - mine) & attn)
    extra = sorted((mine & rot))
    if missed or extra:
        parts = []
        if missed:
            parts.append(f"HF applies no rotation on {len(missed)} attention layer(s) {missed[:6]} read with RoPE")
        if extra:
            parts.append(f"{len(extra)} layer(s) {extra[:6]} HF rotates read as NoPE")
        return "; ".join(parts)
    return None


def sweep(verbose: bool = False, only: list[str] | None = None) -> dict[str, Any]:
    logging.disable(logging.WARNING)
    counts: dict[str, collections.Counter] = {"sparse": collections.Counter(), "dense": collections.Counter(),
                                              "keyed": collections.Counter()}
    details: dict[str, list[str]] = collections.defaultdict(list)
    seen: set[str] = set()
    skipped = 0
    meta_failed = []
    for pkg, cls in _classes():
        mt = cls.model_type
        if mt in seen or (only and mt not in only):
            continue
        seen.add(mt)
        cfg = _quiet_build(cls)
        if cfg is None:
            skipped += 1
            continue
        hf = _hf(pkg, cls, cfg)
        try:
            dense = cfg.to_dict()
        except Exception:
            dense = None
        rope_key = _has_rope_key(dense) if dense is not None else False
        carries = rope_key or _mentions_rope(pkg)
        if hf is None and not carries:
            skipped += 1
            continue
        meta = _meta_run(cls)
        if hf is None and meta is None:
            skipped += 1  # a RoPE key, no rotary embedding and no attention HF runs here: nothing to compare
            continue
        if meta is None:
            meta_failed.append(mt)
        readings = [("sparse", {"model_type": mt}), ("dense", dense)] if (hf is not None or rope_key) else []
        if meta is not None and not meta[1] and dense is not None:
            # HF rotates nothing here: a published config may still carry a rope_theta (Nemotron-3-Nano)
            keyed = dict(dense)
            part = next((k for k in ("text_config", "llm_config") if isinstance(keyed.get(k), dict)), None)
            if part is not None:
                keyed[part] = {**keyed[part], "rope_theta": 10000.0}
            else:
                keyed["rope_theta"] = 10000.0
            readings.append(("keyed", keyed))
        for reading, config in readings:
            if config is None:
                continue
            try:
                ours, nope, warned, unread = _ours(config)
                if hf is not None:
                    ours.update({k: v for k, v in unread.items() if k in hf})
            except (ValueError, TypeError) as exc:
                if meta is not None and not meta[1] and hf is None:
                    kind = "refused"  # a NoPE model refused: still not read as HF reads it
                else:
                    kind = "refused"
                counts[reading][kind] += 1
                details[f"{reading} {kind}"].append(f"{mt}: {str(exc)[:200]}")
                continue
            except Exception as exc:  # noqa: BLE001 - a crash is what is counted here
                counts[reading]["crash"] += 1
                details[f"{reading} crash"].append(f"{mt}: {type(exc).__name__}: {str(exc)[:200]}")
                continue
            why = _nope_diff(meta, ours, nope)
            if why is not None:
                counts[reading]["NoPE misread"] += 1
                details[f"{reading} NoPE misread"].append(f"{mt}: {why}")
                continue
            why = _compare(hf, ours) if hf is not None and ours else None
            if why is None:
                counts[reading]["right"] += 1
            else:
                kind = "wrong (warned)" if warned else "wrong (silent)"
                counts[reading][kind] += 1
                details[f"{reading} {kind}"].append(f"{mt}: {why}")
    return {"counts": counts, "details": details, "skipped": skipped, "types": len(seen),
            "meta_failed": meta_failed}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("-v", "--verbose", action="store_true", help="list every model type that is not right")
    ap.add_argument("--only", nargs="*", help="these model types only")
    ap.add_argument("--root", default=str(Path(__file__).resolve().parents[1]),
                    help="the checkout whose pe_symbolic is measured (default: this one)")
    args = ap.parse_args(argv)
    sys.path.insert(0, args.root)
    import transformers

    res = sweep(args.verbose, args.only)
    n = res["types"] - res["skipped"]
    print(f"transformers {transformers.__version__}: {res['types']} config model types, {n} with a rotary "
          f"embedding built from the config at its defaults or a RoPE key and attention layers "
          f"(meta run failed for {len(res['meta_failed'])}: NoPE not checked there)")
    for reading in ("sparse", "dense", "keyed"):
        c = res["counts"][reading]
        print(f"{reading:>6}: " + ", ".join(f"{k} {c[k]}" for k in CATEGORIES))
    for key, items in sorted(res["details"].items()):
        if args.verbose or "silent" in key or "crash" in key or "NoPE" in key:
            print(f"  {key} ({len(items)}):")
            for it in items:
                print(f"    {it}")
    if args.verbose and res["meta_failed"]:
        print(f"  meta run failed: {', '.join(res['meta_failed'])}")
    bad = sum(res["counts"][r][k] for r in res["counts"] for k in ("wrong (silent)", "crash", "NoPE misread"))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
