"""``pe-audit``: how wrong is a framework's RoPE or sinusoidal table at long context, in the
dtype it runs? Prints the audit table (each measurement beside its bound), writes JSON and a
plot, and exits 1 when ``--tol`` is broken, so a model repository can run it in CI.

Exit status: 0 every result within ``--tol`` (or no ``--tol``); 1 some result breaks it, or
produced a non-finite value (``inf`` / NaN, e.g. float16 positions from 65520 on) in any
measured quantity (the smallest verified fix is printed); 2 bad input (unknown preset,
dtype, config or metric, context outside 1 .. 2**53, a sinusoidal recipe on a RoPE config or
the reverse, torch backend without torch), with a one-line message. In the JSON a
non-finite measurement is the string ``"inf"`` (``null``: not measured).

With ``--recipe MODULE:FUNCTION`` (your own implementation, :func:`pe_symbolic.verify_rope`;
``--framework``, ``--layout``, ``--length``, ``--seed`` and ``--layer-type`` are passed on):
0 ``verified``, or ``consistent (tested)`` (nothing proved, every test passed) unless
``--strict``; 1 ``differs`` or ``out of bound``; 2 bad input.

``pe-audit cards CORPUS`` (a subcommand: RoPE cards for every config of a corpus, and
``pe-audit cards --diff OLD NEW``) is :mod:`pe_symbolic.cli.cards`; its exit status is said there.

With ``--engines``: 0 every default engine equal to HF (or not applicable); 1 a default engine
``differs``, or -- only under ``--strict`` -- a non-default variant (an older release, a flag
nobody sets) differs or an engine does not serve the positions the model admits
(``unsupported beyond N``); 2 bad input.
"""

from __future__ import annotations

import argparse
import importlib.util
import shutil
import sys
import warnings
from collections.abc import Sequence

__all__ = ["main"]

_EPILOG = """\
examples:
  pe-audit llama-3.1-8b --recipe hf --dtype bfloat16 --context 131072
  pe-audit llama-3.1-8b --recipe hf --recipe vllm --recipe llama.cpp --recipe pe_symbolic \\
           --dtype bfloat16 --dtype float32 --context 1048576 --tol 1e-3 --plot angle.png
  pe-audit path/to/config.json --recipe torchtune --metric output --tol 5e-3 --format json
  pe-audit ~/models/Llama-3.1-8B --recipe hf --context 262144   a model folder (its config.json)
  pe-audit sinusoidal:512 --recipe fairseq --recipe t2t --dtype float16 --context 8192
  pe-audit llama-3.1-8b --recipe my_model/rope.py:apply_rope --dtype float32   your own RoPE, verified
  pe-audit llama-3.1-8b --recipe my_model/modeling.py:RotaryEmbedding,apply_rotary_pos_emb   an HF pair: q and k
  pe-audit phi-3.5-mini --recipe rope.py:rope --framework torch --layout split --length 8192 --seed 7
  pe-audit llama-3.1-8b --recipe hf --backend torch --device cuda     (pip install pe_symbolic[torch])
  pe-audit --list                                   the presets and their source notes
  pe-audit llama-3.1-8b --engines                   vLLM, SGLang, llama.cpp, TensorRT-LLM, MLX-LM vs HF, by proof
  pe-audit cards models/ --out cards.jsonl           a card for every config of a corpus (pe-audit cards --help)

exit status: 0 within --tol (or no --tol); 1 --tol broken, or a value not finite (inf/NaN,
e.g. float16 positions >= 65520) with --tol; 2 bad input. JSON: a non-finite measurement is
"inf" (a string), null is "not measured".
"""


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="pe-audit",
        description="Measure the precision of a RoPE / sinusoidal recipe against an exact oracle, "
        "band by band up to the context, with the proved error bound beside each measurement "
        "and the smallest fix for a broken tolerance.",
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("config", nargs="?", metavar="CONFIG",
                   help="a shipped model (llama-3.1-8b, qwen2.5-7b, mistral-7b, gemma-3-27b, phi-3.5-mini, "
                   "...), a model folder (with its config.json), a path to a config.json, or sinusoidal:D[:BASE]")
    p.add_argument("--recipe", action="append", metavar="NAME",
                   help="preset name (repeatable; default hf), see --list")
    p.add_argument("--dtype", action="append", metavar="D",
                   help="activation dtype: bfloat16 (default), float16, float32, float64 (repeatable); with "
                   "--recipe FILE.py:FN, one dtype (default: the config's torch_dtype / dtype, else float32)")
    p.add_argument("--context", default=None, metavar="N",
                   help="positions 0 .. N-1 (default: the model's effective context, factor x "
                   "original_max_position_embeddings for yarn / llama3 / longrope, else max_position_embeddings; "
                   "131072 for a sinusoidal table or a config that says neither)")
    p.add_argument("--tol", default=None, metavar="X",
                   help="largest allowed error of --metric; exit 1 beyond it, or when any value is not finite")
    p.add_argument("--metric", default="angle", metavar="M",
                   help="what --tol bounds: angle (rad, default), table, output or score")
    p.add_argument("--format", default="text", metavar="FMT", help="text (default) or json, on stdout")
    p.add_argument("--json", default=None, metavar="FILE", help="also write the JSON report to FILE")
    p.add_argument("--plot", default=None, metavar="FILE.png",
                   help="error of --metric against position, one curve per recipe (needs matplotlib)")
    p.add_argument("--backend", default="numpy", metavar="B",
                   help="numpy (emulation, default) or torch (the torch presets' real operations)")
    p.add_argument("--device", default="cpu", metavar="DEV", help="torch device for --backend torch (cpu, cuda)")
    p.add_argument("--layer-type", default=None, metavar="T",
                   help="audit only this layer type of a per-layer-type config (default: every layer type); with "
                   "--recipe FILE.py:FN, the layer type the implementation computes")
    p.add_argument("--factor", default=None, metavar="F",
                   help="for vLLM's multi-factor linear RoPE (a linear rope dict whose factor is a list): the "
                   "factor whose cache block is audited (that block is linear RoPE of factor F)")
    p.add_argument("--wide", action="store_true",
                   help="every column (each bound, the dominant term, the first inexact position), fitted to the "
                   "terminal; default: the short table, 100 columns or fewer, with headlines")
    # --recipe MODULE:FUNCTION (your implementation, verified) only
    p.add_argument("--framework", default=None, metavar="F",
                   help="with --recipe FILE.py:FN: numpy, torch or jax (default: detected from the function)")
    p.add_argument("--layout", default=None, metavar="L",
                   help="with --recipe FILE.py:FN: split, interleaved or interleaved-in-split-out (default: the "
                   "model type's convention)")
    p.add_argument("--length", default=None, metavar="N",
                   help="with --recipe FILE.py:FN: the sequence length the implementation sees, for a dynamic / "
                   "longrope config (default: max(position_ids) + 1 of each call)")
    p.add_argument("--seed", default=None, metavar="S",
                   help="with --recipe FILE.py:FN: the seed of the randomized tests (default: drawn, and printed)")
    p.add_argument("--strict", action="store_true",
                   help="fail on a config key the RoPE parser does not understand (default: warn and go on); with "
                   "--recipe FILE.py:FN, exit 1 unless verified (consistent (tested) too); with --engines, exit 1 "
                   "also when a non-default engine variant differs or an engine does not serve the admitted positions")
    p.add_argument("--no-fix", action="store_true", help="do not search a fix for a broken --tol")
    p.add_argument("--progress", action="store_true", help="a progress bar on stderr (default: when stderr is a terminal)")
    p.add_argument("--list", action="store_true", help="print the presets with their source notes and exit")
    p.add_argument("--engines", action="store_true",
                   help="compare each inference engine's RoPE formulas (vLLM, SGLang, llama.cpp, TensorRT-LLM, "
                   "MLX-LM) with HF's by proof, per layer type, and print a card side by side; exit 1 if a default "
                   "engine differs (a variant, or a context an engine does not serve: only with --strict)")
    return p


def _fail(msg: str) -> int:
    print(f"pe-audit: error: {msg}", file=sys.stderr)
    return 2


def _number(name: str, text: str, kind: type) -> int | float:
    try:
        value = kind(float(text)) if kind is int and "e" in text.lower() else kind(text)
    except ValueError:
        raise ValueError(f"--{name}={text!r} is not a number") from None
    return value


def _progress_printer():
    last = {"label": "", "pct": -1}

    def show(label: str, done: int, total: int) -> None:
        pct = int(100 * done / max(total, 1))
        if label == last["label"] and pct == last["pct"]:
            return
        last.update(label=label, pct=pct)
        bar = "#" * (pct // 4)
        end = "\n" if done >= total else ""
        print(f"\r{label:<34} [{bar:<25}] {pct:3d}%", end=end, file=sys.stderr, flush=True)

    return show


#: The context audited when neither ``--context`` nor the config says one.
DEFAULT_CONTEXT = 131072


def _model_plan(config: str) -> tuple[str | None, list[str | None], int | None, str]:
    """(the model's name, its layer types with RoPE (``[None]``: one RoPE), its effective
    context and why) for a shipped model name or a config path; ``(None, [None], None, "")``
    for anything else (a sinusoidal table; a name :func:`~pe_symbolic.audit.audit` refuses)."""
    import os

    from .. import numeric
    from ..audit import _config_name, _read_config

    if config in numeric.model_configs():
        data, name = numeric.model_config(config), config
    elif os.path.exists(config):
        data = _read_config(config)
        name = _config_name(data, config)
    else:
        return None, [None], None, ""
    with warnings.catch_warnings():  # the audit itself says what the parser warns
        warnings.simplefilter("ignore")
        desc = numeric.describe(data, quiet=True)
    context, why = desc.effective_context()
    return name, desc.layer_types_with_rope() or [None], context, why


def _warn_beyond(name: str, context: int, effective: int | None, why: str) -> None:
    """One line on stderr when ``context`` exceeds the model's effective context (the audit still
    runs: how a recipe behaves beyond it is often the question)."""
    if effective is not None and context > effective:
        print(f"pe-audit: warning: --context {context:,} exceeds {name}'s effective context {effective:,} ({why}); "
              "positions from there on are beyond what the model is configured for", file=sys.stderr)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``pe-audit`` console script; returns the exit status."""
    rest = list(sys.argv[1:] if argv is None else argv)
    if rest[:1] == ["cards"]:  # the subcommand (a config folder named cards: ./cards)
        from .cards import main as cards_main

        return cards_main(rest[1:])
    parser = _parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse: --help (0) or bad usage (2)
        return int(exc.code or 0)
    from ..audit import audit
    from ..audit.recipes import PRESETS

    if args.list:
        for name, r in PRESETS.items():
            print(f"{name:<24}{r.source}")
        return 0
    if args.config is None:
        return _fail("CONFIG is required (a shipped model name, a config.json path or sinusoidal:D); "
                     "see pe-audit --help")
    if args.format not in ("text", "json"):
        return _fail(f"--format={args.format!r} is not allowed; use 'text' or 'json'")
    if args.engines:
        return _engines(args)
    try:
        context = None if args.context is None else _number("context", args.context, int)
        tol = None if args.tol is None else _number("tol", args.tol, float)
        factor = None if args.factor is None else _number("factor", args.factor, float)
    except ValueError as exc:
        return _fail(str(exc))
    if args.plot and importlib.util.find_spec("matplotlib") is None:  # before any work, not after it
        return _fail("--plot needs matplotlib, which is not installed: pip install 'pe_symbolic[plot]' "
                     "(or leave out --plot)")
    try:
        name, layer_types, effective, why = _model_plan(args.config)
    except (ValueError, TypeError) as exc:
        return _fail(str(exc))
    context_note = ""
    if context is None:
        context = effective or DEFAULT_CONTEXT
        context_note = (f"context {context:,}: the model's effective context ({why})" if effective else
                        f"context {context:,} (the default; the config gives no max_position_embeddings)"
                        if name else "")
    elif name is not None:
        _warn_beyond(name, context, effective, why)
    if args.layer_type is not None:
        layer_types = [args.layer_type]
    user = [r for r in (args.recipe or []) if ":" in r]
    if user:  # MODULE:FUNCTION -- the user's own implementation, verified (pe.verify_rope)
        if len(user) != len(args.recipe):
            return _fail("--recipe MODULE:FUNCTION (your implementation) cannot be mixed with preset recipes")
        return _verify(args, user, context)
    only = [f"--{n.replace('_', '-')}" for n in ("framework", "layout", "length", "seed") if getattr(args, n) is not None]
    if only:
        return _fail(f"{', '.join(only)} apply to --recipe MODULE:FUNCTION (your own implementation, verified) only")
    show = _progress_printer() if (args.progress or sys.stderr.isatty()) else None
    from ..numeric import UnknownConfigKeyWarning

    reports = []
    try:
        for lt in layer_types:  # every layer type of a per-layer-type config (Gemma 3: sliding and full)
            with warnings.catch_warnings():
                if args.strict:  # the parser's strict=True: an unknown key stops the audit, named
                    warnings.simplefilter("error", UnknownConfigKeyWarning)
                elif reports:
                    warnings.simplefilter("ignore", UnknownConfigKeyWarning)  # said once, for the first type
                reports.append(audit(args.config, recipe=args.recipe or ["hf"], dtype=args.dtype or ["bfloat16"],
                                     context=context, tol=tol, metric=args.metric, backend=args.backend,
                                     device=args.device, fix=not args.no_fix, layer_type=lt, factor=factor,
                                     progress=show))
    except UnknownConfigKeyWarning as exc:
        return _fail(f"{exc} (--strict)")
    except ImportError as exc:
        return _fail(str(exc))
    except (ValueError, TypeError) as exc:
        return _fail(str(exc))
    _print_reports(args, reports, layer_types, context_note)
    if args.plot:
        try:
            for lt, report in zip(layer_types, reports):
                report.plot(_per_type_path(args.plot, lt, len(reports)), metric=args.metric)
        except ImportError as exc:
            return _fail(str(exc))
    return max(r.exit_code for r in reports)


def _per_type_path(path: str, layer_type: str | None, n: int) -> str:
    """``angle.png`` -> ``angle-full_attention.png`` when several layer types are audited."""
    if n == 1 or layer_type is None:
        return path
    stem, dot, ext = path.rpartition(".")
    return f"{stem}-{layer_type}.{ext}" if dot else f"{path}-{layer_type}"


def _print_reports(args: argparse.Namespace, reports: list, layer_types: list, context_note: str) -> None:
    """Text (the short table unless ``--wide``; one report per layer type) or JSON (one report;
    ``{"layer_types": [...], "reports": [...]}`` for several)."""
    import json

    if len(reports) == 1:
        as_json = reports[0].to_json()
    else:
        as_json = json.dumps({"layer_types": layer_types, "reports": [json.loads(r.to_json()) for r in reports]},
                             indent=2, allow_nan=False)
    if args.format == "json":
        print(as_json)
    else:
        # the short table in 100 columns (fewer on a narrower terminal); --wide: every column,
        # fitted to the terminal (COLUMNS where set): a wider table is split, never cut
        columns = max(60, shutil.get_terminal_size((200, 24)).columns)
        width = columns if args.wide else min(100, columns)
        if context_note:
            print(f"pe-audit: {context_note}")
        for n, (lt, report) in enumerate(zip(layer_types, reports)):
            if len(reports) > 1:
                print(("\n" if n else "") + f"== layer type {lt} ({n + 1} of {len(reports)}) ==")
            print(report.to_text(width=width, wide=args.wide))
    if args.json:
        with open(args.json, "w", encoding="utf-8") as fh:
            fh.write(as_json)


def _load_callable(spec: str) -> object:
    """``pkg.module:function``, ``path/to/file.py:function``, ``FILE.py:ROTARY,APPLY`` (HF's
    pair: the rotary module -- a class is built from the config -- and its apply) or
    ``FILE.py:NAME`` where NAME is such a tuple -> what :func:`pe_symbolic.verify_rope` takes
    (the user's own code, imported as they asked). A class named alone is built from the
    config too (an ``nn.Module`` taking ``(x, position_ids)``)."""
    import importlib
    import importlib.util
    from pathlib import Path

    target, _, names = spec.rpartition(":")
    parts = names.split(",")
    if not target or not all(p.isidentifier() for p in parts) or len(parts) > 2:
        raise ValueError(f"--recipe {spec!r}: expected MODULE:FUNCTION, FILE.py:FUNCTION or FILE.py:ROTARY,APPLY "
                         "(HF's pair)")
    if target.endswith(".py"):
        path = Path(target)
        if not path.is_file():
            raise ValueError(f"--recipe {spec!r}: no file {target}")
        mod_spec = importlib.util.spec_from_file_location(path.stem, path)
        module = importlib.util.module_from_spec(mod_spec)
        mod_spec.loader.exec_module(module)
    else:
        module = importlib.import_module(target)
    found = [getattr(module, n, None) for n in parts]
    accepted = ("accepted: a function fn(x, position_ids), a tuple (rotary_emb, apply), or ROTARY,APPLY naming the "
                "rotary module (an instance, or a class built from the config) and apply_rotary_pos_emb")
    for n, obj in zip(parts, found):
        if obj is None:
            have = sorted(k for k, v in vars(module).items() if not k.startswith("_") and (callable(v) or isinstance(
                v, tuple)) and getattr(v, "__module__", module.__name__) == module.__name__)[:12]
            raise ValueError(f"--recipe {spec!r}: {target} has no {n!r} (it defines {', '.join(have) or 'nothing'}); "
                             f"{accepted}")
    if len(found) == 2:
        if not all(callable(f) for f in found):
            raise ValueError(f"--recipe {spec!r}: {', '.join(f'{n} is a {type(f).__name__}' for n, f in zip(parts, found))}"
                             f"; {accepted}")
        return tuple(found)
    fn = found[0]
    if isinstance(fn, tuple):
        if len(fn) != 2 or not all(callable(f) for f in fn):
            raise ValueError(f"--recipe {spec!r}: {names} is a tuple of {len(fn)} "
                             f"({', '.join(type(f).__name__ for f in fn)}); {accepted}")
        return fn
    if not callable(fn):
        raise ValueError(f"--recipe {spec!r}: {names} is a {type(fn).__name__}, not callable; {accepted}")
    return fn


def _built(fn: object, config: dict) -> object:
    """A rotary module named by its class: built from the config (HF's ``Cls(config)``, with
    the config as transformers' ``PretrainedConfig`` where the class needs one)."""
    if isinstance(fn, tuple):
        return tuple(_built(f, config) for f in fn[:1]) + tuple(fn[1:])
    if not isinstance(fn, type):
        return fn
    try:
        return fn(config)
    except Exception:  # noqa: BLE001 - an HF class wants a PretrainedConfig, not a dict
        try:
            from transformers import PretrainedConfig
        except ImportError as exc:
            raise ValueError(f"{fn.__name__} is a class; it could not be built from the config dict, and "
                             "transformers is not installed to build it from a PretrainedConfig") from exc
        return fn(PretrainedConfig(**config))


def _config_dict(arg: str) -> dict:
    import json
    from pathlib import Path

    from ..numeric import model_config

    path = Path(arg)
    if path.is_dir():
        path = path / "config.json"
    if path.is_file():
        with open(path, encoding="utf-8") as fh:
            return json.load(fh)
    return model_config(arg)


def _verify(args: argparse.Namespace, specs: Sequence[str], context: int) -> int:
    from ..audit.verify import verify_rope

    status = 0
    try:
        length = None if args.length is None else _number("length", args.length, int)
        seed = None if args.seed is None else _number("seed", args.seed, int)
    except ValueError as exc:
        return _fail(str(exc))
    for spec in specs:
        try:
            fn = _load_callable(spec)
            config = _config_dict(args.config)
            fn = _built(fn, config)
            report = verify_rope(fn, config, dtype=(args.dtype or [None])[0], context=context,
                                 layer_type=args.layer_type, framework=args.framework, layout=args.layout,
                                 length=length, seed=seed)
        except (ImportError, OSError, ValueError, TypeError) as exc:
            return _fail(str(exc))
        print(f"== {spec} ==")
        print(report.to_json() if args.format == "json" else report.to_text())
        # consistent (tested): nothing wrong found, nothing proved -- passes unless --strict
        ok = report.verdict == "verified" or (report.verdict == "consistent (tested)" and not args.strict)
        status = max(status, 0 if ok else 1)
    return status


def _engines(args: argparse.Namespace) -> int:
    """``pe-audit --engines CONFIG``: :func:`pe_symbolic.engines.engine_report` printed (exit 1
    when a default engine differs from HF at this config; a non-default variant -- an older
    release, a flag nobody sets -- or an engine that does not serve the admitted positions is
    reported and fails only under ``--strict``; 0 otherwise)."""
    import json

    from ..engines import engine_report

    try:
        config = _config_dict(args.config)
        report = engine_report(config, name=args.config)
    except (OSError, ValueError, TypeError, KeyError) as exc:
        return _fail(str(exc))
    if args.format == "json":
        print(json.dumps({f"{lay or ''}:{eng}": v for (lay, eng), v in report.verdicts().items()}, indent=1))
    else:
        width = max(60, min(100, shutil.get_terminal_size((100, 24)).columns))
        print(report.to_text(width=width), end="")
    return 1 if report.failures(strict=args.strict) else 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
