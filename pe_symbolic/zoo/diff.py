"""What changed between two sweeps of a corpus: :func:`pe_symbolic.diff_cards` (``pe-audit cards --diff OLD NEW``).

Two card files of one corpus -- made by two releases of this package, against two tables of
transformers' config classes, or of two versions of the corpus -- are matched config by
config (by source and name; then by name alone, where it is unique; the rest are added or
removed), and every card field that moved is listed, grouped by cause:

``config`` (the config itself changed: another key), ``status``, ``program`` (per site:
rope type, base, the type's numbers, rotated channels, attention factor, NoPE ...),
``usable context``, ``engine verdicts``, ``support``, ``bound``, ``refused``, ``warnings``,
``crashed``.

The text is stable (causes in that order, configs by name, fields by name) and readable
(``old -> new``); :attr:`pe_symbolic.zoo.CardDiff.exit_code` is 1 when anything changed (a CI job fails on a
changed card), else 0.

>>> a = {"key": "k1", "source": "line 1", "name": "m", "status": "ok", "context": {"admitted": 4095}}
>>> b = dict(a, context={"admitted": 8191})
>>> d = diff_cards([a], [b])
>>> d.exit_code, [(c.cause, c.what, c.old, c.new) for c in d.changes]
(1, [('usable context', 'admitted', '4,095', '8,191')])
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = ["CAUSES", "CardDiff", "Change", "diff_cards"]

#: The causes a change is grouped by, in the order they are printed.
CAUSES = ("config", "status", "program", "usable context", "engine verdicts", "support", "bound", "refused",
          "warnings", "crashed")


@dataclass(frozen=True)
class Change:
    """One field of one config that moved."""

    config: str
    """The config, as ``name [source]``."""
    cause: str
    what: str
    old: str
    new: str


@dataclass
class CardDiff:
    """:func:`pe_symbolic.diff_cards`'s answer; ``str()`` / :meth:`pe_symbolic.zoo.CardDiff.to_text` is what ``pe-audit cards --diff`` prints."""

    matched: int
    changes: list[Change] = field(default_factory=list)
    added: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    made_with: tuple[str, str] = ("", "")
    version_only: list[str] = field(default_factory=list)
    """Configs whose warnings differ only in the transformers version they name (the table's,
    shown in ``made with``): not a change of the card."""

    @property
    def changed(self) -> bool:
        """Whether some card changed, was added or removed."""
        return bool(self.changes or self.added or self.removed)

    @property
    def exit_code(self) -> int:
        """1 when some card changed, was added or removed; 0 otherwise."""
        return 1 if self.changed else 0

    def to_text(self) -> str:
        """The report: what the sweeps were made with, the counts, then each cause's configs and
        their fields, ``old -> new``."""
        configs = {c.config for c in self.changes}
        lines = []
        if self.made_with[0] or self.made_with[1]:
            if self.made_with[0] == self.made_with[1]:
                lines.append(f"made with: {self.made_with[0]} (both)")
            else:
                lines.append(f"made with: {self.made_with[0]} -> {self.made_with[1]}")
        lines.append(f"configs: {self.matched} in both, {len(configs)} changed, {len(self.added)} added, "
                     f"{len(self.removed)} removed")
        for cause in CAUSES:
            mine = [c for c in self.changes if c.cause == cause]
            if not mine:
                continue
            who = sorted({c.config for c in mine})
            lines.append("")
            lines.append(f"{cause} ({len(who)} config{'s' if len(who) != 1 else ''})")
            for name in who:
                lines.append(f"  {name}")
                for c in sorted((c for c in mine if c.config == name), key=lambda c: c.what):
                    lines.append(f"    {c.what}: {c.old} -> {c.new}")
        if self.version_only:
            n = len(self.version_only)
            lines.append(f"(and {n} config{'s' if n != 1 else ''} whose warnings differ only in the transformers "
                         "version they name: the table's, in 'made with'; not counted as changed)")
        for label, items in (("added", self.added), ("removed", self.removed)):
            if items:
                lines.append("")
                lines.append(f"{label} ({len(items)})")
                lines += [f"  {x}" for x in sorted(items)]
        if not self.changed:
            lines.append("no card changed")
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.to_text()


def _fmt(v: Any) -> str:
    if v is None:
        return "-"
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, int):
        return f"{v:,}"
    if isinstance(v, float):
        return repr(v)
    if isinstance(v, (list, tuple)):
        return "; ".join(_fmt(x) for x in v) or "(none)"
    return str(v)


def _pair(a: Any, b: Any) -> tuple[str, str]:
    """``old, new`` as printed: two floats to 6 digits with the relative change (in full where 6
    digits do not tell them apart), anything else as :func:`_fmt` writes it."""
    num = (int, float)
    if isinstance(a, float) and isinstance(b, num) and not isinstance(b, bool) and a and a == a and b == b:
        x, y = f"{a:.6g}", f"{b:.6g}"
        if x == y:
            x, y = repr(a), repr(float(b))
        return x, f"{y} ({100 * (b - a) / abs(a):+.3g}%)"
    return _fmt(a), _fmt(b)


def _site_label(s: Mapping[str, Any]) -> str:
    entry = f" [{s['entry']}]" if s.get("entry") else ""
    return f"{s.get('module')} {s.get('layers')}{entry}"


def _flat(card: Mapping[str, Any]) -> dict[tuple[str, str], Any]:
    """``(cause, what) -> value`` of every compared field of a card."""
    out: dict[tuple[str, str], Any] = {("config", "key"): str(card.get("key")),
                                       ("status", "status"): str(card.get("status")),
                                       ("status", "dtype"): _fmt(card.get("dtype"))}
    if card.get("error"):
        out[("status", "error")] = str(card["error"])
    for s in card.get("program") or []:
        label = _site_label(s)
        for k, v in s.items():
            if k not in ("module", "layers", "entry"):
                out[("program", f"{label}: {k}")] = v
    if card.get("nope_layers") is not None:
        out[("program", "NoPE layers")] = _fmt(card.get("nope_layers"))
    ctx = card.get("context")
    if isinstance(ctx, Mapping):
        out[("usable context", "admitted")] = _fmt(ctx.get("admitted"))
        for s in ctx.get("sites") or []:
            label = f"{s.get('module')} {s.get('layers')}"
            if (s.get("admitted"), s.get("why")) != (ctx.get("admitted"), ctx.get("why")):
                out[("usable context", f"{label}: admitted")] = f"{_fmt(s.get('admitted'))} ({s.get('why')})"
            for dt, lims in sorted((s.get("limits") or {}).items()):
                for kind, pos in sorted(lims.items()):
                    out[("usable context", f"{label}: {dt} {kind} from")] = _fmt(pos)
    for r in card.get("engines") or []:
        out[("engine verdicts", f"{r.get('engine')} [{r.get('layer_type') or 'all'}]")] = str(r.get("verdict"))
    for eng, s in sorted((card.get("support") or {}).items()):
        text = ("yes" if s.get("ok") else "no") + (f", serves {_fmt(s.get('served'))}" if s.get("served") else "")
        out[("support", eng)] = text
    for b in card.get("bound") or []:
        label = f"{b.get('layer_type') or 'all'} ({b.get('recipe')}, {b.get('dtype')})"
        out[("bound", f"{label}: context")] = _fmt(b.get("context"))
        for k in ("angle", "table", "output"):
            out[("bound", f"{label}: {k}")] = b.get(k)
        out[("bound", f"{label}: dominant")] = _fmt(b.get("dominant"))
        if "measured" in b:
            for k, v in sorted(b["measured"].items()):
                out[("bound", f"{label}: measured {k}")] = v
    for r in card.get("refused") or []:
        out[("refused", str(r.get("part")))] = str(r.get("reason"))
    for w in card.get("warnings") or []:
        out[("warnings", _unversioned(w))] = "warned"
    for r in card.get("crashed") or []:
        out[("crashed", str(r.get("part")))] = str(r.get("error"))
    return out


#: A warning's "(transformers 5.25.0)": the version of the config-class table it was read with.
_TRANSFORMERS_VERSION = re.compile(r"\(transformers [0-9][0-9A-Za-z.+-]*\)")


def _unversioned(warning: str) -> str:
    """``warning`` with the transformers version it names replaced by ``*``.

    >>> _unversioned("HF's AlbertConfig (transformers 5.24.0) has no RoPE field")
    "HF's AlbertConfig (transformers *) has no RoPE field"
    """
    return _TRANSFORMERS_VERSION.sub("(transformers *)", warning)


def _compare(name: str, old: Mapping[str, Any], new: Mapping[str, Any]) -> list[Change]:
    a, b = _flat(old), _flat(new)
    out = []
    for k in sorted(set(a) | set(b), key=lambda k: (CAUSES.index(k[0]), k[1])):
        va, vb = a.get(k, "(none)"), b.get(k, "(none)")
        if va != vb or type(va) is not type(vb):
            out.append(Change(name, k[0], k[1], *_pair(va, vb)))
    return out


def _made_with(cards: Sequence[Mapping[str, Any]]) -> str:
    seen: dict[str, None] = {}
    for c in cards:
        m = c.get("made_with") or {}
        st = m.get("settings") or {}
        text = (f"pe_symbolic {m.get('pe_symbolic')}, HF config table {m.get('hf_table')}, engines "
                f"{','.join(st.get('engines') or [])}" + (", generic" if st.get("generic") else "")
                + (", measured" if st.get("measure") else ""))
        seen.setdefault(text, None)
    return " | ".join(seen)


def _load(x: str | os.PathLike | Iterable[Mapping[str, Any]], label: str) -> list[Mapping[str, Any]]:
    from .store import load_cards

    if isinstance(x, (str, os.PathLike)):
        if not os.path.isfile(x):
            raise ValueError(f"{label}={str(x)!r} is not a card file (pe-audit cards --out FILE writes one)")
        cards, _ = load_cards(x)
        return cards
    return list(x)


def diff_cards(old: str | os.PathLike | Iterable[Mapping[str, Any]],
               new: str | os.PathLike | Iterable[Mapping[str, Any]]) -> CardDiff:
    """What changed from the sweep ``old`` to the sweep ``new`` (see the module docstring).

    Parameters
    ----------
    old, new : path or iterable of dict
        Card files (``pe-audit cards --out``) or the cards themselves (``Sweep.cards``).

    Returns
    -------
    CardDiff
        ``changes`` (one :class:`~pe_symbolic.zoo.diff.Change` per field that moved), ``added``, ``removed``,
        ``exit_code``; ``str()`` is the report.

    Raises
    ------
    ValueError
        A path that is not a file.
    """
    a, b = _load(old, "old"), _load(new, "new")
    diff = CardDiff(0, made_with=(_made_with(a), _made_with(b)))

    def label(c: Mapping[str, Any]) -> str:
        return f"{c.get('name')} [{c.get('source')}]" if c.get("name") != c.get("source") else str(c.get("source"))

    rest_b = {(c.get("source"), c.get("name")): c for c in b}
    pairs, left = [], []
    for c in a:
        k = (c.get("source"), c.get("name"))
        if k in rest_b:
            pairs.append((c, rest_b.pop(k)))
        else:
            left.append(c)
    by_name: dict[Any, list[Mapping[str, Any]]] = {}
    for c in rest_b.values():
        by_name.setdefault(c.get("name"), []).append(c)
    left_names = [c.get("name") for c in left]
    unmatched_a = []
    for c in left:
        got = by_name.get(c.get("name"))
        if got and len(got) == 1 and left_names.count(c.get("name")) == 1:
            pairs.append((c, got.pop()))
        else:
            unmatched_a.append(c)
    diff.matched = len(pairs)
    for x, y in pairs:
        found = _compare(label(y), x, y)
        diff.changes += found
        if not found and list(x.get("warnings") or []) != list(y.get("warnings") or []):
            diff.version_only.append(label(y))
    diff.removed = [label(c) for c in unmatched_a]
    diff.added = [label(c) for cs in by_name.values() for c in cs]
    return diff
