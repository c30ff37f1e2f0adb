"""Scan every configuration class of the installed HF transformers at its defaults.

``python -m benchmarks.hf_config_scan [-v]`` instantiates each ``PretrainedConfig`` subclass
defined in ``transformers.models.*.configuration_*`` (``Config()``, then ``to_dict()``) and
hands the dict to :func:`pe_symbolic.numeric.describe` (which parses each layer type's
RoPE, per-layer configs and DeepSeek-V4's two included, and computes its frequencies). It
prints how many classes there are and how many

* could not be instantiated at their defaults (a required argument, an optional dependency),
* carry no RoPE field (no key with ``rope`` or ``rotary`` in its name, at any depth of the
  dict, sub-configs included),
* parse without a warning, warn naming a key the parser does not read (the keys are listed),
  or are refused by name (``ValueError`` / ``TypeError``; the first words of the reasons are
  counted).

It does not compare with HF: whether the frequencies agree with HF's is
``tests/test_config_hf_fuzz.py::test_every_hf_config_class_at_its_defaults``. The figures
are quoted in ``docs/family/configs.md``. Needs ``transformers`` (and ``torch`` for the many
config modules that import it).
"""

from __future__ import annotations

import argparse
import collections
import importlib
import pkgutil
import re
import warnings
from dataclasses import dataclass, field
from typing import Any

ROPE_KEY = re.compile("rope|rotary", re.IGNORECASE)


@dataclass
class ScanResult:
    classes: int = 0
    not_instantiated: list[str] = field(default_factory=list)
    no_rope: list[str] = field(default_factory=list)
    clean: list[str] = field(default_factory=list)
    warned: dict[str, list[str]] = field(default_factory=dict)
    refused: dict[str, str] = field(default_factory=dict)

    def summary(self) -> str:
        reasons = collections.Counter(_reason(m) for m in self.refused.values())
        lines = [
            f"HF config classes: {self.classes} ({len(self.not_instantiated)} not instantiated at their defaults)",
            f"without RoPE fields: {len(self.no_rope)}",
            f"parse without a warning: {len(self.clean)}",
            f"warn naming a key: {len(self.warned)}",
            f"refused by name: {len(self.refused)}",
        ]
        lines += [f"  warns: {name}: {'; '.join(keys)}" for name, keys in sorted(self.warned.items())]
        lines += [f"  refused ({n}): {r}" for r, n in reasons.most_common()]
        return "\n".join(lines)


def _reason(message: str) -> str:
    """A refusal message without its numbers and values, to group like refusals."""
    msg = re.sub(r"=[^ ]+", "=...", message)
    return msg[:110]


def _keys(obj: Any):
    """Every key of a nested dict (sub-configs included)."""
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield str(k)
            yield from _keys(v)
    elif isinstance(obj, list):
        for v in obj:
            yield from _keys(v)


def _has_rope(cfg: dict[str, Any]) -> bool:
    """Some key of the config, at any depth, names RoPE (``rope`` or ``rotary`` in it)."""
    return any(ROPE_KEY.search(k) for k in _keys(cfg))


def _config_classes():
    import transformers.models as tm
    from transformers import PretrainedConfig

    for info in pkgutil.iter_modules(tm.__path__):
        try:
            mod = importlib.import_module(f"transformers.models.{info.name}.configuration_{info.name}")
        except Exception:  # a model whose config needs an optional dependency
            continue
        for name in dir(mod):
            cls = getattr(mod, name)
            if isinstance(cls, type) and issubclass(cls, PretrainedConfig) and cls.__module__ == mod.__name__ \
                    and cls.__name__ == name:
                yield cls


def _at_defaults(cls) -> tuple[Any, dict[str, Any]] | None:
    """``cls()`` and its ``to_dict()`` (HF's own warnings silenced), or ``None`` where the
    class cannot be built without arguments."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            obj = cls()
            return obj, obj.to_dict()
    except Exception:
        return None


def scan() -> ScanResult:
    from pe_symbolic import numeric
    from pe_symbolic.numeric.config import UnknownConfigKeyWarning

    out = ScanResult()
    for cls in _config_classes():
        out.classes += 1
        name = cls.__name__
        built = _at_defaults(cls)
        if built is None:
            out.not_instantiated.append(name)
            continue
        _, cfg = built
        if not _has_rope(cfg):
            out.no_rope.append(name)
            continue
        keys: list[str] = []
        try:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                numeric.describe(cfg, quiet=True)  # every layer type (and layer_rope_theta group)
            keys = [str(w.message).split(" is not ")[0][:100] for w in caught
                    if issubclass(w.category, UnknownConfigKeyWarning)]
        except (ValueError, TypeError) as e:
            out.refused[name] = str(e)
            continue
        if keys:
            out.warned[name] = list(dict.fromkeys(keys))
        else:
            out.clean.append(name)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("-v", "--verbose", action="store_true", help="list the refused classes with their messages")
    args = ap.parse_args(argv)
    import transformers

    res = scan()
    print(f"transformers {transformers.__version__}")
    print(res.summary())
    if args.verbose:
        for name, msg in sorted(res.refused.items()):
            print(f"  refused: {name}: {msg}")
        print("  not instantiated: " + ", ".join(sorted(res.not_instantiated)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
