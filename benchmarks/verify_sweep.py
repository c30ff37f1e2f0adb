"""Every transformers model family with a text rotary embedding, through ``verify_rope``.

``python -m benchmarks.verify_sweep [--variants] [--family NAME ...] [-v]`` finds each
``*RotaryEmbedding`` class (not ``Vision``, and whose ``forward`` takes ``position_ids``: a
text RoPE) defined in ``transformers.models.*.modeling_*``,
builds it from its config class at the defaults, and runs :func:`pe_symbolic.verify_rope` on
HF's own pair ``(rotary_emb, apply)`` -- the ``apply`` the attention calls
(``apply_rotary_pos_emb_interleave`` where HF interleaves in and splits out, else
``apply_rotary_pos_emb`` / ``apply_rotary_emb``) -- with the config's dict. ``--variants``
adds realistic rope variants (at a 32-channel head, :data:`VARIANT_HEAD`; once per distinct
rotary code -- the class and its apply function, names stripped: most families copy Llama's
-- unless ``--all-variants``) for the families whose rotary embedding reads
``config.rope_parameters`` through HF's ``ROPE_INIT_FUNCTIONS``: ``llama3``, ``dynamic``
(tested past ``max_position_embeddings``), ``yarn``, DeepSeek's ``yarn`` (``mscale`` /
``mscale_all_dim``), ``longrope`` (tested past the original context) and, for the
per-layer-type families, Gemma 3's per-layer rope (linear full attention, default sliding).

It prints the counts per verdict, then every case that is not ``verified`` / ``consistent
(tested)``: ``differs`` (each one a false alarm or a real bug: PhiMoE's ``longrope`` never
switching to ``long_factor`` is one), a refusal (``ValueError`` / ``TypeError`` naming what
and why) or a crash (any other exception: where it was raised). Needs ``torch`` and
``transformers``; a full ``--variants`` run takes a while on two cores.

``--shipped`` runs every shipped config (:func:`pe_symbolic.numeric.model_configs`) in
float32, bfloat16 and float16 through HF's own rotary module (built from the config by
``AutoConfig.for_model``) and pe_symbolic's NumPy, torch and JAX ``apply_rope``, and prints
the counts and the bfloat16 row per config (``--config NAME`` and ``--dtype D``, repeatable,
run a part of it).
"""

from __future__ import annotations

import argparse
import collections
import importlib
import inspect
import os
import pkgutil
import sys
import time
import traceback
import warnings
from dataclasses import dataclass, field
from typing import Any

VARIANTS: dict[str, tuple[dict[str, Any], int, int]] = {
    # name: (rope_parameters without rope_theta, max_position_embeddings, context)
    "llama3": ({"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
                "original_max_position_embeddings": 8192}, 131072, 8192),
    "dynamic": ({"rope_type": "dynamic", "factor": 2.0}, 4096, 8192),
    "yarn": ({"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 4096}, 16384, 8192),
    "deepseek-yarn": ({"rope_type": "yarn", "factor": 40.0, "mscale": 1.0, "mscale_all_dim": 1.0, "beta_fast": 32,
                       "beta_slow": 1, "original_max_position_embeddings": 4096}, 163840, 8192),
    "longrope": ({"rope_type": "longrope", "original_max_position_embeddings": 4096}, 131072, 8192),
}


@dataclass
class Case:
    family: str
    cls: str
    variant: str
    verdict: str = ""
    detail: str = ""
    seconds: float = 0.0


@dataclass
class Sweep:
    cases: list[Case] = field(default_factory=list)
    skipped: dict[str, str] = field(default_factory=dict)
    groups: dict[str, list[str]] = field(default_factory=dict)

    def summary(self) -> str:
        counts = collections.Counter(c.verdict for c in self.cases)
        fams = {c.family for c in self.cases}
        lines = [f"families with a text rotary embedding: {len(fams | {k.split()[0] for k in self.skipped})} "
                 f"({len(self.skipped)} modules not built by HF at these configs); {len(self.groups)} distinct "
                 "rotary codes (class + apply, names stripped)",
                 f"cases: {len(self.cases)} ({', '.join(sorted({c.variant for c in self.cases}))})"]
        for v in ("verified", "consistent (tested)", "out of bound", "differs", "refused", "crash"):
            lines.append(f"  {v}: {counts.get(v, 0)}")
        for c in self.cases:
            if c.verdict in ("differs", "out of bound", "refused", "crash"):
                lines.append(f"  {c.verdict}: {c.family} {c.cls} [{c.variant}]: {c.detail}")
        for f, why in sorted(self.skipped.items()):
            lines.append(f"  not built: {f}: {why}")
        return "\n".join(lines)


def _config_class(emb_cls: type, mod: Any) -> Any:
    ann = inspect.signature(emb_cls.__init__).parameters.get("config")
    ann = ann.annotation if ann is not None else None
    if isinstance(ann, str):
        ann = getattr(mod, ann.strip("'\""), None)
    if isinstance(ann, type):
        return ann
    return None


def _families(only: list[str] | None) -> list[tuple[str, Any, list[str]]]:
    import torch
    import transformers.models as models

    out = []
    for m in pkgutil.iter_modules(models.__path__):
        if only and m.name not in only:
            continue
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                mod = importlib.import_module(f"transformers.models.{m.name}.modeling_{m.name}")
        except Exception:  # noqa: BLE001 - an optional dependency
            continue
        rot = [n for n, c in vars(mod).items() if n.endswith("RotaryEmbedding") and isinstance(c, type)
               and issubclass(c, torch.nn.Module) and c.__module__ == mod.__name__ and "Vision" not in n
               and "position_ids" in inspect.signature(c.forward).parameters]  # a text RoPE: (x, position_ids)
        if rot:
            out.append((m.name, mod, rot))
    return out


def _code_key(mod: Any, cls_name: str) -> str:
    """The rotary class's and its apply function's source, names and comments stripped: two
    families with the same key run the same code (most families copy Llama's)."""
    import hashlib
    import re

    src = inspect.getsource(getattr(mod, cls_name))
    for name in ("apply_rotary_pos_emb_interleave", "apply_rotary_pos_emb", "apply_rotary_emb"):
        if hasattr(mod, name):
            obj = getattr(mod, name)
            try:  # transformers 5.25 wraps some applies (a kernel hub "Func"): its source, where it has one
                src += inspect.getsource(getattr(obj, "__wrapped__", obj))
            except (TypeError, OSError):
                src += f"<{name} of {mod.__name__}>"
            break
    src = re.sub(r"\b\w*(Config|RotaryEmbedding)\b", "X", src)
    src = re.sub(r'"""[\s\S]*?"""|#.*', "", src)
    return hashlib.sha1(re.sub(r"\s+", " ", src).encode()).hexdigest()


def _apply(mod: Any, cfg: dict) -> Any:
    from pe_symbolic.numeric import describe

    try:
        layout = describe(cfg, quiet=True).layout
    except Exception:  # noqa: BLE001
        layout = ""
    if layout.startswith("interleaved in, split out") and hasattr(mod, "apply_rotary_pos_emb_interleave"):
        return mod.apply_rotary_pos_emb_interleave
    for name in ("apply_rotary_pos_emb", "apply_rotary_emb"):
        if hasattr(mod, name):
            return getattr(mod, name)
    return None


def _theta(config: Any) -> float:
    rp = getattr(config, "rope_parameters", None) or {}
    if isinstance(rp, dict):
        if "rope_theta" in rp:
            return float(rp["rope_theta"])
        for v in rp.values():
            if isinstance(v, dict) and "rope_theta" in v:
                return float(v["rope_theta"])
    return float(getattr(config, "rope_theta", 10000.0) or 10000.0)


#: The variants run at a head of this width (the family's rotary code and the variant's
#: rope parameters are what they check; a 32-wide head keeps the whole sweep under an hour).
VARIANT_HEAD = 32


def _shrink(c: Any) -> None:
    """A head of :data:`VARIANT_HEAD` channels (``head_dim``, DeepSeek's ``qk_rope_head_dim``,
    ``hidden_size`` over the heads), where the config has those fields."""
    def get(name: str) -> Any:
        try:
            return getattr(c, name, None)
        except Exception:  # noqa: BLE001 - transformers 5.x per-layer attributes refuse a global read
            return None

    if get("per_layer_config"):
        return  # head dims per layer (Gemma 4): kept as they are
    heads = get("num_attention_heads")
    if isinstance(get("head_dim"), int):
        c.head_dim = VARIANT_HEAD
    if isinstance(get("qk_rope_head_dim"), int):
        c.qk_rope_head_dim = VARIANT_HEAD
    if isinstance(heads, int) and isinstance(get("hidden_size"), int):
        c.hidden_size = VARIANT_HEAD * heads


def _variant_config(config: Any, name: str, head_dim: int) -> Any | None:
    """``config`` with the variant's rope parameters (None when the family cannot take it)."""
    import copy

    rp = getattr(config, "rope_parameters", None)
    if not isinstance(rp, dict):
        return None
    c = copy.deepcopy(config)
    _shrink(c)
    per_type = all(isinstance(v, dict) for v in rp.values()) and rp
    theta = _theta(config)
    def keep(d: dict) -> dict:  # what a variant does not replace: the rotary dims, the M-RoPE sections
        return {k: v for k, v in d.items() if k in ("partial_rotary_factor", "mrope_section", "mrope_interleaved")}

    if name == "gemma3-per-layer":
        if not per_type:
            return None
        new = {}
        for lt in rp:
            new[lt] = {**keep(rp[lt]), **({"rope_type": "linear", "factor": 8.0, "rope_theta": 1000000.0}
                                          if lt == "full_attention" else {"rope_type": "default", "rope_theta": 10000.0})}
        c.rope_parameters = new
        return c
    params, max_pos, _ = VARIANTS[name]
    params = dict(params, rope_theta=theta)
    if name == "longrope":
        from pe_symbolic.numeric.config import parse_rope_config

        try:
            pairs = parse_rope_config(c.to_dict(), layer_type=next(iter(rp)) if per_type else None).rotary_dim // 2
        except Exception:  # noqa: BLE001
            pairs = head_dim // 2
        params["short_factor"] = [1.0 + 0.01 * i for i in range(pairs)]
        params["long_factor"] = [1.0 + 0.5 * i for i in range(pairs)]
        if getattr(c, "model_type", "") == "phimoe":  # PhimoeRotaryEmbedding reads them for every scaled type
            params.update(short_mscale=1.0, long_mscale=1.243163121016122)
    if per_type:
        c.rope_parameters = {lt: {**keep(v), **params, "rope_theta": float(v.get("rope_theta", theta))}
                             for lt, v in rp.items()}
    else:
        c.rope_parameters = {**params, **keep(rp)}
    c.max_position_embeddings = max_pos
    return c


def _head_dim(config: Any) -> int:
    """The config's (global) head dim, as HF's default rope init reads it."""
    d = config.to_dict()
    return int(d.get("head_dim") or d["hidden_size"] // d["num_attention_heads"])


def _hf_runs(emb: Any, apply: Any, config: Any) -> str:
    """'' when HF's module and apply run on HF's own inputs (x of the config's head dim,
    position_ids (1, 2), each layer type), else the error."""
    import torch

    head = _head_dim(config)
    rp = getattr(config, "rope_parameters", None) or {}
    types = [k for k, v in rp.items() if isinstance(v, dict)] if isinstance(rp, dict) else []
    mrope = isinstance(rp, dict) and "mrope_section" in rp
    ids = torch.zeros((3, 1, 2) if mrope else (1, 2), dtype=torch.long)
    try:
        for lt in types or [None]:
            kw = {"layer_type": lt} if lt is not None else {}
            x = torch.zeros(1, 2, 2, head)
            tables = emb(x, ids, **kw)
            if isinstance(tables, tuple) and apply is not None:
                # HF's own inputs: the whole head, or (where the attention splits partial rotary
                # off itself: Phi, StableLM, Persimmon, Mistral 4) the tables' width only
                w = tables[0].shape[-1]
                errs = []
                for width in dict.fromkeys((max(w, head), w)):
                    xx = torch.zeros(1, 2, 2, width)
                    try:
                        try:
                            apply(xx, xx, *tables)
                        except TypeError:
                            apply(xx, *tables)
                        break
                    except Exception as exc:  # noqa: BLE001
                        errs.append(exc)
                else:
                    raise errs[0]
    except Exception as exc:  # noqa: BLE001
        return f"{type(exc).__name__}: {str(exc)[:150]}"
    return ""


def _one(family: str, mod: Any, cls_name: str, variant: str, seed: int) -> list[Case]:
    import pe_symbolic as pe

    emb_cls = getattr(mod, cls_name)
    cfg_cls = _config_class(emb_cls, mod)
    if cfg_cls is None:
        return [Case(family, cls_name, variant, "skipped", "no config class in its signature")]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        config = cfg_cls()
        if hasattr(config, "get_text_config") and not hasattr(config, "rope_parameters"):
            config = config.get_text_config()
    context = None
    if variant != "defaults":
        from pe_symbolic.numeric.config import parse_rope_config

        head = _head_dim(config)
        config = _variant_config(config, variant, head)
        if config is None:
            return []
        context = VARIANTS[variant][2] if variant in VARIANTS else None
    case = Case(family, cls_name, variant)
    t0 = time.perf_counter()
    with warnings.catch_warnings():  # HF's own module at these defaults (not verify_rope's business)
        warnings.simplefilter("ignore")
        built = None
        errors = []
        for c in (config, getattr(config, "get_text_config", lambda: config)()):
            try:
                built = emb_cls(c), c
                break
            except Exception as exc:  # noqa: BLE001
                errors.append(f"{type(exc).__name__}: {str(exc)[:120]}")
        if built is None:
            return [Case(family, cls_name, variant, "skipped", "HF's module not built: " + errors[0])]
        emb, config = built
    with warnings.catch_warnings():  # HF's own module on its own inputs: a failure there is HF's
        warnings.simplefilter("ignore")
        cfg = config.to_dict()
        apply = _apply(mod, cfg)
        if apply is None:  # MLCD: a vision tower (apply_rotary_pos_emb_vision only), no text RoPE
            names = sorted(n for n in vars(mod) if n.startswith("apply_rotary"))
            return [Case(family, cls_name, variant, "skipped", "no text apply (apply_rotary_pos_emb / "
                         f"apply_rotary_emb) in its module, only {', '.join(names) or 'none'}: not a text RoPE")]
        own = _hf_runs(emb, apply, config)
    if own:
        return [Case(family, cls_name, variant, "skipped", "HF's module raised on its own inputs: " + own)]
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if context is None:
                mp = cfg.get("max_position_embeddings") or 4096
                context = min(int(mp), 8192)
            report = pe.verify_rope((emb, apply), cfg, context=context, seed=seed)
        case.verdict = report.verdict
        if report.verdict in ("differs", "out of bound"):
            text = report.to_text().splitlines()
            case.detail = " | ".join(ln.strip() for ln in text[1:] if ln.strip().startswith("-"))[:600]
    except (ValueError, TypeError) as exc:
        case.verdict, case.detail = "refused", f"{type(exc).__name__}: {exc}"[:400]
    except Exception as exc:  # noqa: BLE001 - a crash: where it came from
        tb = traceback.extract_tb(exc.__traceback__)
        where = tb[-1] if tb else None
        case.verdict = "crash"
        case.detail = (f"{type(exc).__name__}: {str(exc)[:200]} at {where.filename.split('site-packages/')[-1]}:"
                       f"{where.lineno}" if where else str(exc))
    case.seconds = time.perf_counter() - t0
    return [case]


#: The transformers model type of each shipped config that does not name one (its config.json's).
SHIPPED_MODEL_TYPE = {"gemma-3-27b": "gemma3_text", "gpt-neox-20b": "gpt_neox", "gpt-oss-20b": "gpt_oss",
                      "llama-3.1-8b": "llama", "llama-4-scout": "llama4_text", "mistral-7b": "mistral",
                      "phi-3.5-mini": "phi3", "qwen2-vl-7b": "qwen2_vl_text", "qwen2.5-7b-yarn": "qwen2",
                      "qwen2.5-7b": "qwen2"}


def _shipped_impls(name: str, cfg: dict) -> dict[str, tuple[Any, str | None]]:
    """HF's own rotary module (where transformers has the model type) and pe_symbolic's NumPy,
    torch and JAX ``apply_rope`` for a shipped config: name -> (fn, layout for verify_rope)."""
    import pe_symbolic as pe
    import pe_symbolic.jax as pj
    import pe_symbolic.torch as pt
    from pe_symbolic.numeric import describe

    layout = describe(cfg, quiet=True).layout
    ours = "interleaved" if layout.startswith("interleaved pairs") else "split"
    def jax_x64(x: Any, ids: Any, layer_type: str | None = None) -> Any:
        import jax

        with jax.enable_x64(True):
            return pj.apply_rope(x, ids, config=cfg, layout=ours, layer_type=layer_type)

    impls: dict[str, tuple[Any, str | None]] = {
        "pe_symbolic numpy": (lambda x, ids, layer_type=None: pe.numeric.apply_rope(
            x, position_ids=ids, config=cfg, layout=ours, layer_type=layer_type), ours),
        "pe_symbolic torch": (lambda x, ids, layer_type=None: pt.apply_rope(
            x, ids, config=cfg, layout=ours, layer_type=layer_type), ours),
        "pe_symbolic jax": (lambda x, ids, layer_type=None: pj.apply_rope(
            x, ids, config=cfg, layout=ours, layer_type=layer_type), ours),
        "pe_symbolic jax (x64)": (jax_x64, ours),
    }
    try:
        import transformers

        src = cfg.get("text_config") if isinstance(cfg.get("text_config"), dict) else cfg  # the text model's
        mt = src.get("model_type") or cfg.get("model_type") or SHIPPED_MODEL_TYPE.get(name)
        if "vision" in str(mt) or mt == "pixtral":
            raise ValueError("a vision encoder: HF's module takes flattened patch ids, not (h, w) position_ids")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            import copy

            kwargs = {k: v for k, v in src.items() if k not in ("model_type", "architectures", "auto_map",
                                                                   "quantization_config")}
            for _ in range(5):  # a field HF's strict config class refuses (none of them RoPE's): left out, said
                try:
                    config = transformers.AutoConfig.for_model(mt, **copy.deepcopy(kwargs))  # HF edits nested dicts
                    break
                except Exception as exc:  # noqa: BLE001
                    import re

                    m = re.search(r"field '(\w+)'", str(exc))
                    if not m or m.group(1) not in kwargs or "rope" in m.group(1):
                        raise
                    kwargs.pop(m.group(1))
            if hasattr(config, "get_text_config"):
                text = config.get_text_config()
                config = text if isinstance(text, transformers.PretrainedConfig) else config
            fam = type(config).__module__.split(".")[-2]
            mod = importlib.import_module(f"transformers.models.{fam}.modeling_{fam}")
            cls = next(n for n, c in vars(mod).items() if n.endswith("RotaryEmbedding") and isinstance(c, type)
                       and c.__module__ == mod.__name__ and "Vision" not in n) if "vision" not in str(mt) else next(
                n for n, c in vars(mod).items() if n.endswith("RotaryEmbedding") and "Vision" in n)
            emb = getattr(mod, cls)(config)
            apply = _apply(mod, cfg) if "vision" not in str(mt) else getattr(mod, "apply_rotary_pos_emb_vision", None)
        if apply is not None:
            impls[f"HF {cls}"] = ((emb, apply), None, {**cfg, "model_type": mt})  # type: ignore[assignment]
    except Exception as exc:  # noqa: BLE001 - no HF module for it: said in the table
        tb = traceback.extract_tb(exc.__traceback__)
        impls["HF"] = (None, f"not built: {type(exc).__name__}: {str(exc)[:100]} at "
                             f"{tb[-1].filename.split('site-packages/')[-1]}:{tb[-1].lineno}" if tb else "")
    return impls


def shipped(dtypes: list[str], seed: int, verbose: bool, only: list[str] | None = None) -> str:
    """Every shipped config x dtypes: HF's module and pe_symbolic's NumPy / torch / JAX."""
    import pe_symbolic as pe

    rows = collections.Counter()
    lines = []
    bf16 = {}
    for name in pe.numeric.model_configs():
        if only and name not in only:
            continue
        cfg = pe.numeric.model_config(name)
        for impl, (fn, layout, *own) in _shipped_impls(name, cfg).items():
            vcfg = own[0] if own else cfg  # HF's module: the config.json with its model type (HF's layout)
            for dt in dtypes:
                if fn is None:
                    verdict, detail = "not built", layout or ""
                else:
                    t0 = time.perf_counter()
                    try:
                        with warnings.catch_warnings():
                            warnings.simplefilter("ignore")
                            rep = pe.verify_rope(fn, vcfg, dtype=dt, layout=layout,
                                                 context=min(4096, int(cfg.get("max_position_embeddings") or 4096)),
                                                 seed=seed)
                        verdict = rep.verdict
                        detail = "" if verdict in ("verified", "consistent (tested)") else " | ".join(
                            ln.strip() for ln in rep.to_text().splitlines() if ln.strip().startswith("-"))[:300]
                    except Exception as exc:  # noqa: BLE001
                        verdict, detail = ("refused" if isinstance(exc, (ValueError, TypeError)) else "crash",
                                           f"{type(exc).__name__}: {str(exc)[:200]}")
                    detail = f"{time.perf_counter() - t0:5.1f}s {detail}"
                rows[(impl.split()[0] if impl.startswith("HF") else impl, verdict)] += 1
                line = f"{name:20} {impl:44} {dt:9} {verdict:20} {detail}"
                lines.append(line)
                if dt == "bfloat16":
                    bf16.setdefault(name, []).append(f"{impl}: {verdict}")
                if verbose:
                    print(line, flush=True)
    out = ["shipped configs x dtypes:"]
    out += [f"  {impl}: {v}: {n}" for (impl, v), n in sorted(rows.items())]
    if bf16:  # a run without bfloat16 (--dtype float16) has no such row
        out += ["bfloat16 row per shipped config:"] + [f"  {n}: {'; '.join(v)}" for n, v in bf16.items()]
    out += [ln for ln in lines if not any(f" {v} " in ln for v in ("verified", "consistent (tested)"))]
    return "\n".join(out)


def bench(repeat: int = 3) -> str:
    """The benchmark row: a verify of HF's Llama rotary pair (8 heads of 128, context 4096)
    -- the median of ``repeat`` runs, with its parts -- beside one forward of the same pair on
    a (1, 8, 4096, 128) input (float32), measured in the same run."""
    import statistics

    import torch

    import pe_symbolic as pe

    mod = importlib.import_module("transformers.models.llama.modeling_llama")
    import transformers

    config = transformers.LlamaConfig(hidden_size=1024, num_attention_heads=8, num_key_value_heads=8, head_dim=128,
                                      max_position_embeddings=4096, rope_parameters={"rope_type": "default",
                                                                                      "rope_theta": 500000.0})
    pair = (mod.LlamaRotaryEmbedding(config), mod.apply_rotary_pos_emb)
    cfg = config.to_dict()
    x = torch.randn(1, 8, 4096, 128)
    ids = torch.arange(4096)[None]
    fwd = []
    for _ in range(5):
        t0 = time.perf_counter()
        with torch.no_grad():
            cos, sin = pair[0](x, ids)
            pair[1](x, x, cos, sin)
        fwd.append(time.perf_counter() - t0)
    runs = []
    for k in range(repeat):
        t0 = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            rep = pe.verify_rope(pair, cfg, seed=k)
        runs.append((time.perf_counter() - t0, rep))
    total = statistics.median(t for t, _ in runs)
    rep = min(runs, key=lambda r: abs(r[0] - total))[1]
    return (f"verify (1, 8, 4096, 128) HF Llama pair, float32: {total:.2f} s median of {repeat} "
            f"({rep.verdict}; trace {rep.structure['seconds']:.2f} s, {rep.tests['calls']} test calls "
            f"{rep.tests['seconds']:.2f} s, conventions {rep.conventions['seconds']:.2f} s); one forward of the pair "
            f"on (1, 8, 4096, 128): {1e3 * statistics.median(fwd):.1f} ms; torch threads "
            f"{torch.get_num_threads()}, {os.cpu_count()} CPUs")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.verify_sweep", description=__doc__.splitlines()[0])
    p.add_argument("--variants", action="store_true", help="also the realistic rope variants")
    p.add_argument("--only-variants", action="store_true", help="the variants only")
    p.add_argument("--all-variants", action="store_true",
                   help="the variants for every family (default: once per distinct rotary code)")
    p.add_argument("--family", action="append", help="only these families (repeatable)")
    p.add_argument("--seed", type=int, default=32)
    p.add_argument("-v", "--verbose", action="store_true", help="one line per case as it runs")
    p.add_argument("--shipped", action="store_true",
                   help="instead: every shipped config x float32, bfloat16, float16 with HF's module and "
                   "pe_symbolic's NumPy / torch / JAX apply_rope")
    p.add_argument("--config", action="append", help="--shipped: only these shipped configs (repeatable)")
    p.add_argument("--dtype", action="append", choices=("float32", "bfloat16", "float16"),
                   help="--shipped: only these dtypes (repeatable; default: float32, bfloat16 and float16)")
    p.add_argument("--bench", action="store_true", help="instead: the benchmark row, a (1, 8, 4096, 128) verify")
    args = p.parse_args(argv)
    if args.bench:
        print(bench())
        return 0
    if args.shipped:
        print(shipped(args.dtype or ["float32", "bfloat16", "float16"], args.seed, args.verbose, args.config))
        return 0
    sweep = Sweep()
    variants = ([] if args.only_variants else ["defaults"]) + (
        [*VARIANTS, "gemma3-per-layer"] if args.variants or args.only_variants else [])
    seen_code: dict[str, str] = {}
    for family, mod, classes in _families(args.family):
        for cls_name in classes:
            key = _code_key(mod, cls_name)
            first = seen_code.setdefault(key, f"{family}.{cls_name}")
            sweep.groups.setdefault(first, []).append(f"{family}.{cls_name}")
            for v in variants:
                if v != "defaults" and first != f"{family}.{cls_name}" and not args.all_variants:
                    continue  # the same code as an earlier family: its variants were run there
                try:
                    cases = _one(family, mod, cls_name, v, args.seed)
                except Exception as exc:  # noqa: BLE001 - the config class itself failed
                    sweep.skipped[f"{family} {cls_name} [{v}]"] = (f"HF's config not built: {type(exc).__name__}: "
                                                                   f"{str(exc)[:120]}")
                    continue
                for c in cases:
                    if c.verdict == "skipped":
                        sweep.skipped[f"{family} {cls_name} [{v}]"] = c.detail
                        continue
                    sweep.cases.append(c)
                    if args.verbose:
                        print(f"{c.family:28} {c.cls:44} {c.variant:16} {c.verdict:20} {c.seconds:6.1f}s "
                              f"{c.detail[:160]}", flush=True)
    print(sweep.summary())
    return 0


if __name__ == "__main__":
    sys.exit(main())
