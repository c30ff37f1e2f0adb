"""The summary of a sweep: one row per group of configs, as text for the terminal and as an HTML page.

Each row is a group (configs that share their RoPE inputs and dtype, so one card's RoPE part):
how many configs, the first one's name, the model type, the attention's rope type and base
(``+N`` more sites; ``NoPE``), the context it admits, the dtype, each engine's verdict in a
short code (the worst over the rope entries), the angle bound, and the status. The
configs that are not ``ok`` follow, with their reasons.

Engine codes (worst first): ``DIFF`` differs from HF at this config; ``DIFF@N`` equal
below ``N``, its table ends there; ``cap N`` serves no more than ``N`` positions;
``unsup`` no support for the rope type; ``?`` undecided; ``eq*`` equal at this config
(for other values of its numbers it differs, is undecided, or was not checked:
``--generic``); ``eq`` equal for every value of the config's
numbers (``--generic``), or at this config; ``-`` no entry (NoPE, or refused).

>>> short_verdict("unsupported beyond 32,767"), short_verdict("equal here (proved); elsewhere undecided")
('cap 32K', 'eq*')
"""

from __future__ import annotations

import html
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["LEGEND", "STATUSES", "group_rows", "short_verdict", "summary_html", "summary_text"]

#: Every status a card can have, in the order the summary counts them.
STATUSES = ("ok", "refused", "unreadable", "crashed", "timeout", "out of memory")
LEGEND = ("engines vs HF: eq equal (proved); eq* equal at this config (for other values of its numbers: differs, "
          "undecided, or not checked without --generic); DIFF differs; "
          "DIFF@N differs from position N on (table ends); cap N serves at most N positions; unsup rope type not "
          "supported; ? undecided; - no entry")
_SEVERITY = ("DIFF", "DIFF@", "cap", "unsup", "?", "eq*", "eq", "-")
_SHORT_ENGINE = {"tensorrt-llm": "trt-llm", "llama.cpp": "llama.cpp", "mlx-lm": "mlx-lm"}


def _k(n: int) -> str:
    """``32768`` -> ``"32K"``, ``1048576`` -> ``"1M"``, ``5000`` -> ``"5000"``."""
    if n % 2**20 == 0:
        return f"{n // 2**20}M"
    if n % 1024 == 0:
        return f"{n // 1024}K"
    return str(n)


def short_verdict(verdict: str) -> str:
    """An engine verdict in a few characters (see the module docstring)."""
    v = verdict.strip()
    digits = "".join(ch for ch in v if ch.isdigit())
    if v.startswith("differs from") and digits:
        return f"DIFF@{_k(int(digits))}"
    if v.startswith("differs"):
        return "DIFF"
    if v.startswith("unsupported beyond") and digits:
        return f"cap {_k(int(digits) + 1)}"
    if v.startswith("unsupported"):
        return "unsup"
    if v.startswith("undecided"):
        return "?"
    if v.startswith("equal here"):
        return "eq*"
    if v.startswith("equal"):
        return "eq"
    return "?"


def _rank(code: str) -> int:
    for i, head in enumerate(_SEVERITY):
        if code == head or (head in ("DIFF@", "cap") and code.startswith(head)):
            return i
    return len(_SEVERITY)


def _engine_codes(card: Mapping[str, Any], engines: Sequence[str]) -> list[str]:
    out = []
    for e in engines:
        codes = [short_verdict(r["verdict"]) for r in card.get("engines") or [] if r.get("engine") == e]
        out.append(min(codes, key=_rank) if codes else "-")
    return out


def _rope(card: Mapping[str, Any]) -> str:
    sites = [s for s in card.get("program") or [] if s.get("module") == "attention"]
    if not sites:
        return "-"
    rot = [s for s in sites if not s.get("nope")]
    if not rot:
        return "NoPE"
    s = rot[0]
    base = s.get("base")
    text = f"{s.get('rope_type')} {base:g}" if isinstance(base, (int, float)) else str(s.get("rope_type"))
    more = len(card.get("program") or []) - 1
    return text + (f" +{more}" if more else "")


def _bound(card: Mapping[str, Any]) -> str:
    vals = [b.get("angle") for b in card.get("bound") or []]
    if not vals:
        return "-"
    if any(v == "inf" for v in vals):
        return "inf"
    return f"{max(v for v in vals if isinstance(v, (int, float))):.1e}"


def engines_of(cards: Sequence[Mapping[str, Any]]) -> list[str]:
    """The engines the cards were made with, in their order."""
    for c in cards:
        eng = ((c.get("made_with") or {}).get("settings") or {}).get("engines")
        if eng:
            return list(eng)
    seen: dict[str, None] = {}
    for c in cards:
        for r in c.get("engines") or []:
            seen.setdefault(r["engine"], None)
    return list(seen)


def group_rows(cards: Sequence[Mapping[str, Any]]) -> tuple[list[str], list[list[str]]]:
    """(the header, one row per group): groups by size, then by the first member's name."""
    engines = engines_of(cards)
    groups: dict[str, list[Mapping[str, Any]]] = {}
    for c in cards:
        groups.setdefault(str(c.get("group") or c["key"]), []).append(c)
    head = ["group", "configs", "first config", "model_type", "rope (attention)", "context", "dtype",
            *[_SHORT_ENGINE.get(e, e) for e in engines], "angle bound", "status"]
    rows = []
    for g, members in groups.items():
        c = members[0]
        ctx = c.get("context") or {}
        context = f"{ctx['admitted'] + 1:,}" if isinstance(ctx.get("admitted"), int) else "-"
        rows.append([g[:8], str(len(members)), str(c.get("name")), str(c.get("model_type") or "-"), _rope(c), context,
                     str(c.get("dtype") or "-"), *_engine_codes(c, engines), _bound(c), str(c.get("status"))])
    rows.sort(key=lambda r: (-int(r[1]), r[2]))
    return head, rows


def headline(cards: Sequence[Mapping[str, Any]], *, computed: int | None = None, resumed: int = 0,
             seconds: float | None = None) -> list[str]:
    """The lines above the table: counts of configs, groups, programs and statuses."""
    n = len(cards)
    groups = len({c.get("group") or c["key"] for c in cards})
    programs = len({c.get("program_id") for c in cards if c.get("program_id")})
    shared = n - groups
    rate = 100.0 * shared / n if n else 0.0
    first = (f"{n} configs, {groups} groups ({shared} configs shared a group's work: dedup {rate:.1f}%), "
             f"{programs} distinct RoPE programs")
    if computed is not None:
        first += f"; {computed} groups computed, {resumed} cards resumed"
    if seconds is not None:
        first += f"; {seconds:.1f} s"
    counts = Counter(c.get("status") for c in cards)
    second = "status: " + ", ".join(f"{s} {counts.get(s, 0)}" for s in STATUSES)
    return [first, second]


def _problems(cards: Sequence[Mapping[str, Any]]) -> list[str]:
    """One line per group whose cards are not ``ok`` or refused a part, with the reasons (the group's
    first config named, and how many more share it)."""
    groups: dict[Any, list[Mapping[str, Any]]] = {}
    for c in cards:
        refused = c.get("refused") or []
        if c.get("status") != "ok" or refused:
            groups.setdefault(c.get("group") or ("config", c.get("key"), c.get("source")), []).append(c)
    out = []
    for members in groups.values():
        c = members[0]
        refused = "; ".join(f"{r['part']}: {r['reason']}" for r in c.get("refused") or [])
        why = c.get("error") or "; ".join(f"{r['part']}: {r['error']}" for r in c.get("crashed") or []) or refused
        if c.get("status") == "ok":
            why = "refused " + refused
        more = f" and {len(members) - 1} more" if len(members) > 1 else ""
        out.append(f"{c.get('name')} [{c.get('source')}]{more}: {c.get('status')}: {why}")
    return out


def summary_text(cards: Sequence[Mapping[str, Any]], *, computed: int | None = None, resumed: int = 0,
                 seconds: float | None = None, width: int = 100) -> str:
    """The summary as printed by ``pe-audit cards``."""
    head, rows = group_rows(cards)
    widths = [max(len(r[i]) for r in [head, *rows]) for i in range(len(head))]
    widths[2] = min(widths[2], 28)
    widths[4] = min(widths[4], 24)

    def line(r: Sequence[str]) -> str:
        cells = [(c if len(c) <= w else c[: w - 1] + "~").ljust(w) for c, w in zip(r, widths)]
        return "  ".join(cells).rstrip()

    lines = headline(cards, computed=computed, resumed=resumed, seconds=seconds)
    lines += ["", line(head), *[line(r) for r in rows]]
    problems = _problems(cards)
    if problems:
        lines += ["", f"not ok, or a part refused ({len(problems)}):"]
        lines += [("  " + p) if len(p) <= width - 2 else "  " + p[: width - 3] + "~" for p in problems]
    lines += ["", LEGEND]
    return "\n".join(lines)


def summary_html(cards: Sequence[Mapping[str, Any]], *, computed: int | None = None, resumed: int = 0,
                 seconds: float | None = None, title: str = "RoPE cards") -> str:
    """The same table as an HTML page (self-contained: no script, no file beside it)."""
    head, rows = group_rows(cards)
    esc = html.escape
    n_eng = len(head) - 9  # group, configs, first config, model_type, rope, context, dtype | engines | bound, status

    def cell(i: int, text: str) -> str:
        cls = ""
        if 7 <= i < 7 + n_eng:
            cls = {"D": "bad", "c": "warn", "u": "warn", "?": "warn", "e": "good"}.get(text[:1], "")
        if i == len(head) - 1 and text != "ok":
            cls = "bad"
        return f"<td class=\"{cls}\">{esc(text)}</td>" if cls else f"<td>{esc(text)}</td>"

    out = ["<!DOCTYPE html>", "<html lang=\"en\"><head><meta charset=\"utf-8\">", f"<title>{esc(title)}</title>",
           "<style>body{font-family:sans-serif;margin:1.5em}table{border-collapse:collapse}"
           "td,th{border:1px solid #ccc;padding:2px 6px;font-family:monospace;text-align:left;white-space:nowrap}"
           "th{background:#eee}.bad{background:#f8d0d0}.warn{background:#fbefc4}.good{background:#d8f0d8}</style>",
           "</head><body>", f"<h1>{esc(title)}</h1>"]
    out += [f"<p>{esc(x)}</p>" for x in headline(cards, computed=computed, resumed=resumed, seconds=seconds)]
    out.append("<table><thead><tr>" + "".join(f"<th>{esc(h)}</th>" for h in head) + "</tr></thead><tbody>")
    for r in rows:
        out.append("<tr>" + "".join(cell(i, t) for i, t in enumerate(r)) + "</tr>")
    out.append("</tbody></table>")
    problems = _problems(cards)
    if problems:
        out.append(f"<h2>Not ok, or a part refused ({len(problems)})</h2><ul>")
        out += [f"<li>{esc(p)}</li>" for p in problems]
        out.append("</ul>")
    out.append(f"<p><small>{esc(LEGEND)}</small></p></body></html>")
    return "\n".join(out) + "\n"
