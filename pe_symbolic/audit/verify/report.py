"""What :func:`pe_symbolic.verify_rope` found, and the words it may use for it.

The verdicts, from the best to the worst:

``verified``
    the structure is **proved** by a symbolic trace for every position (at the shape, and
    for a length-dependent rule at the lengths, it was traced at) **and** every randomized
    test passed: frequencies, attention factor and precision against the oracle at the
    positions, shapes, dtypes and calls the report lists.
``consistent (tested)``
    nothing proved (the code is not branch-free, or tracing was turned off); every test
    passed -- the report says what was tested.
``out of bound``
    the right rotation and frequencies, less accurate than HF's reference recipe.
``differs``
    a test or the trace found a difference: the first position / slot and the cause.

The wording never says "proved" for something sampled.

>>> VerifyReport("verified").to_text()
'verify_rope: VERIFIED'
>>> worst(["verified", "consistent (tested)"])
'consistent (tested)'
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from typing import Any

from ..._display import Panel, Section, ShowsItself, Table

__all__ = ["VERDICTS", "AttentionReport", "VerifyReport", "worst"]

#: The verdicts, best first (a combined report takes the worst of its parts).
VERDICTS: tuple[str, ...] = ("verified", "consistent (tested)", "out of bound", "differs")

_SECTIONS = ("structure", "frequencies", "precision", "tests", "conventions")


def worst(verdicts: Iterable[str]) -> str:
    """The worst of ``verdicts`` (``"verified"`` for none)."""
    return max(verdicts, key=VERDICTS.index, default="verified")


@dataclass(repr=False)
class VerifyReport(ShowsItself):
    """What :func:`pe_symbolic.verify_rope` found.

    It shows itself (``pe_symbolic._display.ShowsItself``): ``repr()`` and ``str()`` are
    :meth:`to_text`; in Jupyter ``_repr_html_()`` is a panel: the verdict as a coloured badge
    at the top, one row per check (and per layer type or entry) with its one-line summary,
    and the reasons and notes folded under it.

    ``verdict`` is one of ``VERDICTS`` (``"verified"``, ``"consistent (tested)"``, ``"out of bound"``, ``"differs"``). Each section is a dict with a one-line
    ``summary`` and, where something is wrong, ``why`` (a list of sentences):

    - ``structure``: ``method`` (``"traced"``: ``x`` and the positions symbolic, or
      ``"tested"``: not traced, and ``not_traced`` says why), ``verdict`` (the kernel's
      ``"proved"``, ``"refuted"``, ``"undecided"``; ``"not proved"`` when untraced),
      ``traced_shape`` and, for a length-dependent rule, ``traced_lengths``;
    - ``frequencies``: each pair's inverse frequency and the attention factor against the
      oracle (exact from the trace, else read from the float output);
    - ``precision``: the largest error against the oracle and the bound it is held to;
    - ``tests``: the randomized cross-checks -- ``seed`` (pass it back as ``seed=`` to
      re-run them), positions, shapes, position dtypes, calls, linearity, lengths;
    - ``conventions``: what the implementation does, inferred (pairing, direction, rotary
      channels, attention factor) and the layout / config that reproduces it.

    ``notes`` are sentences about the run (the framework detected and why, the calling
    protocol found, a config key read or left out).

    For a config with one rope entry per layer type, ``layers`` holds one report per layer
    type; for several entry points (``{"prefill": f, "decode": g}``), ``entries`` holds
    one per entry and ``agreement`` says whether they agree. ``verdict`` is then the
    worst of theirs.

    >>> VerifyReport("consistent (tested)").to_text()
    'verify_rope: CONSISTENT (TESTED)'
    >>> VerifyReport("differs", notes=["x < y"])
    verify_rope: DIFFERS
      note: x < y
    >>> page = VerifyReport("differs", notes=["x < y"])._repr_html_()
    >>> ">DIFFERS</span>" in page, "x &lt; y" in page
    (True, True)
    """

    verdict: str
    structure: dict[str, Any] = field(default_factory=dict)
    frequencies: dict[str, Any] = field(default_factory=dict)
    precision: dict[str, Any] = field(default_factory=dict)
    tests: dict[str, Any] = field(default_factory=dict)
    conventions: dict[str, Any] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    layers: dict[str, VerifyReport] = field(default_factory=dict)
    entries: dict[str, VerifyReport] = field(default_factory=dict)
    agreement: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.verdict not in VERDICTS:
            raise ValueError(f"verdict={self.verdict!r} is not one of {VERDICTS}")

    def _lines(self, bullet: str, sub: str, indent: str) -> list[str]:
        lines = []
        for name in _SECTIONS:
            sec = getattr(self, name)
            if sec:
                lines.append(f"{indent}{bullet}{name}: {sec.get('summary', '')}")
                lines += [f"{indent}{sub}{why}" for why in sec.get("why", [])]
        lines += [f"{indent}{bullet}note: {n}" for n in self.notes]
        return lines

    def to_text(self) -> str:
        """The report as plain text (what ``str()`` gives)."""
        lines = [f"verify_rope: {self.verdict.upper()}"]
        lines += self._lines("", "  - ", "  ")
        for kind, subs in (("layer type", self.layers), ("entry", self.entries)):
            for name, rep in subs.items():
                lines.append(f"  {kind} {name!r}: {rep.verdict.upper()}")
                lines += rep._lines("", "  - ", "    ")
                for lt, sub in rep.layers.items():
                    lines.append(f"    layer type {lt!r}: {sub.verdict.upper()}")
                    lines += sub._lines("", "  - ", "      ")
        if self.agreement:
            lines.append(f"  agreement: {self.agreement.get('summary', '')}")
            lines += [f"    - {w}" for w in self.agreement.get("why", [])]
        return "\n".join(lines)

    def _rows(self, prefix: str = "") -> list[tuple[str, str, str]]:
        rows = []
        for name in _SECTIONS:
            sec = getattr(self, name)
            if sec:
                failed = bool(sec.get("why")) and name != "conventions"
                rows.append((prefix + name, "see below" if failed else "", sec.get("summary", "")))
        return rows

    def _panel(self) -> Panel:
        """The report at a glance: the verdict badge, one row per check, the reasons folded."""
        rows = self._rows()
        for kind, subs in (("layer type", self.layers), ("entry", self.entries)):
            for name, rep in subs.items():
                rows.append((f"{kind} {name}", rep.verdict, ""))
                rows += rep._rows("  ")
        table = Table(("check", "", "summary"), tuple((a, b, c) for a, b, c in rows))
        sections = []
        why = [f"{name}: {w}" for name in _SECTIONS for w in getattr(self, name).get("why", [])]
        for kind, subs in (("layer type", self.layers), ("entry", self.entries)):
            for nm, rep in subs.items():
                why += [f"{kind} {nm}: {ln.strip()}" for ln in rep._lines("", "- ", "") if ln.startswith("- ")]
        if why:
            sections.append(Section("why", "\n".join(why), folded=False))
        if self.agreement:
            sections.append(Section("agreement", "\n".join([self.agreement.get("summary", "")]
                                                            + self.agreement.get("why", []))))
        if self.notes:
            sections.append(Section(f"notes ({len(self.notes)})", "\n".join(self.notes)))
        sections.append(Section("the whole report as text", self.to_text(), columns=True))
        return Panel("verify_rope", verdict=self.verdict, tables=(table,), sections=tuple(sections))

    def to_markdown(self) -> str:
        """The report as Markdown (for a PR comment)."""
        def md(rep: VerifyReport, pad: str) -> list[str]:
            out = []
            for ln in rep._lines("- **", "  - ", ""):
                out.append(pad + (ln.replace(": ", "**: ", 1) if ln.startswith("- **") else ln))
            return out

        out = [f"**verify_rope: {self.verdict}**", ""] + md(self, "")
        for kind, subs in (("layer type", self.layers), ("entry", self.entries)):
            for name, rep in subs.items():
                out.append(f"- {kind} `{name}`: **{rep.verdict}**")
                out += md(rep, "  ")
        if self.agreement:
            out.append(f"- **agreement**: {self.agreement.get('summary', '')}")
            out += [f"  - {w}" for w in self.agreement.get("why", [])]
        return "\n".join(out)

    def to_json(self) -> str:
        """The report as JSON (every section; the layer types' and entries' reports nested)."""
        return json.dumps(asdict(self), indent=2, default=str)


_ATTENTION_SECTIONS = ("cache", "scores", "relative", "output", "compile", "scenarios")


@dataclass(repr=False)
class AttentionReport(ShowsItself):
    """What :func:`pe_symbolic.verify_attention` found.

    ``verdict`` is ``"consistent (tested)"`` (every check that ran passed: the attention path
    is data-dependent -- a cache, a mask, a softmax -- and is tested, never traced, so it is
    never ``"verified"``) or ``"differs"``. Each section is a dict with a one-line ``summary``
    and, where something is wrong, ``why`` (sentences: where, then the cause):

    - ``cache``: (a) the keys stored after each call, each against the oracle's rotation at
      its own position;
    - ``scores``: (b) the pre-softmax scores (or the step's probabilities) against the
      oracle's;
    - ``relative``: (c) the scores and outputs of a scenario shifted by a common offset
      against the unshifted one's (no oracle);
    - ``output``: (d) the output against the values weighted by the step's own
      probabilities, rotated back at the query's position where the config says so;
    - ``compile``: the ``torch.compile`` path against the eager one (or why it did not run);
    - ``scenarios``: one line per scenario (``lines``).

    >>> AttentionReport("differs", cache={"summary": "FAILED", "why": ["rotated twice"]}).to_text()
    'verify_attention: DIFFERS\\n  cache: FAILED\\n    - rotated twice'
    """

    verdict: str
    cache: dict[str, Any] = field(default_factory=dict)
    scores: dict[str, Any] = field(default_factory=dict)
    relative: dict[str, Any] = field(default_factory=dict)
    output: dict[str, Any] = field(default_factory=dict)
    compile: dict[str, Any] = field(default_factory=dict)
    scenarios: dict[str, Any] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    seed: int | None = None

    def __post_init__(self) -> None:
        if self.verdict not in VERDICTS:
            raise ValueError(f"verdict={self.verdict!r} is not one of {VERDICTS}")

    def _lines(self) -> list[tuple[str, str, list[str]]]:
        out = []
        for name in _ATTENTION_SECTIONS:
            sec = getattr(self, name)
            if sec:
                out.append((name, sec.get("summary", ""), list(sec.get("why", [])) + list(sec.get("lines", []))))
        return out

    def to_text(self) -> str:
        """The report as plain text (what ``str()`` gives)."""
        lines = [f"verify_attention: {self.verdict.upper()}"]
        for name, summ, why in self._lines():
            lines.append(f"  {name}: {summ}")
            lines += [f"    - {w}" for w in why]
        lines += [f"  note: {n}" for n in self.notes]
        return "\n".join(lines)

    def to_markdown(self) -> str:
        """The report as Markdown (for a PR comment)."""
        out = [f"**verify_attention: {self.verdict}**", ""]
        for name, summ, why in self._lines():
            out.append(f"- **{name}**: {summ}")
            out += [f"  - {w}" for w in why]
        out += [f"- note: {n}" for n in self.notes]
        return "\n".join(out)

    def to_json(self) -> str:
        """The report as JSON (every section)."""
        return json.dumps(asdict(self), indent=2, default=str)
