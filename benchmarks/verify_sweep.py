"""Every transformers model family with a text rotary embedding, through ``verify_rope``.

``python -m benchmarks.verify_sweep [--variants] [--family NAME ...] [-v]`` finds each
``*RotaryEmbedding`` class (not ``Vision``) defined in ``transformers.models.*.modeling_*``,
builds it from its config class at the defaults, and runs :func:`pe_symbolic.verify_rope` on
HF's own pair ``(rotary_emb, apply)`` -- the ``apply`` the attention calls
(``apply_rotary_pos_emb_interleave`` where HF interleaves in and splits out, else
``apply_rotary_pos_emb`` / ``apply_rotary_emb``) -- with the config's dict. ``--variants``
adds realistic rope variants for the families whose rotary embedding reads
``config.rope_parameters`` through HF's ``ROPE_INIT_FUNCTIONS``: ``llama3``, ``dynamic``
(tested past ``max_position_embeddings``), ``yarn``, DeepSeek's ``yarn`` (``mscale`` /
``mscale_all_dim``), ``longrope`` (tested past the original context) and, for the
per-layer-type families, Gemma 3's per-layer rope (linear full attention, default sliding).

It prints the counts per verdict, then every case that is not ``verified`` / ``consistent
(tested)``: ``differs`` (each one a false alarm or a real bug: PhiMoE's ``longrope`` never
switching to ``long_factor`` is one), a refusal (``ValueError`` / ``TypeError`` naming what
and why) or a crash (any other exception: where it was raised). Needs ``torch`` and
``transformers``; a full ``--variants`` run takes a while on two cores.
"""

from __future__ import annotations

import argparse
import collections
import importlib
import inspect
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

    def summary(self) -> str:
        counts = collections.Counter(c.verdict for c in self.cases)
        fams = {c.family for c in self.cases}
        lines = [f"families with a text rotary embedding: {len(fams | {k.split()[0] for k in self.skipped})} "
                 f"({len(self.skipped)} modules not built by HF at these configs)",
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
               and issubclass(c, torch.nn.Module) and c.__module__ == mod.__name__ and "Vision" not in n]
        if rot:
            out.append((m.name, mod, rot))
    return out


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


def _variant_config(config: Any, name: str, head_dim: int) -> Any | None:
    """``config`` with the variant's rope parameters (None when the family cannot take it)."""
    import copy

    rp = getattr(config, "rope_parameters", None)
    if not isinstance(rp, dict):
        return None
    c = copy.deepcopy(config)
    per_type = all(isinstance(v, dict) for v in rp.values()) and rp
    theta = _theta(config)
    if name == "gemma3-per-layer":
        if not per_type:
            return None
        new = {}
        for lt in rp:
            new[lt] = ({"rope_type": "linear", "factor": 8.0, "rope_theta": 1000000.0} if lt == "full_attention"
                       else {"rope_type": "default", "rope_theta": 10000.0})
        c.rope_parameters = new
        return c
    params, max_pos, _ = VARIANTS[name]
    params = dict(params, rope_theta=theta)
    if name == "longrope":
        pairs = head_dim // 2
        params["short_factor"] = [1.0 + 0.01 * i for i in range(pairs)]
        params["long_factor"] = [1.0 + 0.5 * i for i in range(pairs)]
    if per_type:
        c.rope_parameters = {lt: dict(params, rope_theta=float(v.get("rope_theta", theta))) for lt, v in rp.items()}
    else:
        keep = {k: v for k, v in rp.items() if k in ("partial_rotary_factor", "mrope_section", "mrope_interleaved")}
        c.rope_parameters = {**params, **keep}
    c.max_position_embeddings = max_pos
    return c


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

        try:
            head = parse_rope_config(config.to_dict()).head_dim
        except Exception:  # noqa: BLE001
            head = getattr(config, "head_dim", None) or config.hidden_size // config.num_attention_heads
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
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            cfg = config.to_dict()
            apply = _apply(mod, cfg)
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


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.verify_sweep", description=__doc__.splitlines()[0])
    p.add_argument("--variants", action="store_true", help="also the realistic rope variants")
    p.add_argument("--only-variants", action="store_true", help="the variants only")
    p.add_argument("--family", action="append", help="only these families (repeatable)")
    p.add_argument("--seed", type=int, default=32)
    p.add_argument("-v", "--verbose", action="store_true", help="one line per case as it runs")
    args = p.parse_args(argv)
    sweep = Sweep()
    variants = ([] if args.only_variants else ["defaults"]) + (
        [*VARIANTS, "gemma3-per-layer"] if args.variants or args.only_variants else [])
    for family, mod, classes in _families(args.family):
        for cls_name in classes:
            for v in variants:
                try:
                    cases = _one(family, mod, cls_name, v, args.seed)
                except Exception as exc:  # noqa: BLE001 - the config class itself failed
                    if v == "defaults":
                        sweep.skipped[family] = f"{type(exc).__name__}: {str(exc)[:120]}"
                    break
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
