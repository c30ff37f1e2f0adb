"""Objects that show themselves: a result's ``repr`` is its table, in a REPL and in Jupyter.

A report a user asks for (``describe(config)``, ``audit(...)``, ``verify_rope(...)``) is read
by a person first: the last expression of a notebook cell or a REPL line should show the
table the object stands for, not a dataclass repr of a thousand characters, and nothing
should be printed twice. :class:`ShowsItself` gives a class that:

* ``repr(obj)`` and ``str(obj)``: the text table (the class's own ``__str__`` or
  ``to_text()`` where it has one, else :meth:`Table.text` of its ``_table()``);
* ``obj._repr_html_()``: a :class:`Panel` when the class builds one in ``_panel()`` (the
  verdict as a coloured badge at the top, the tables, the details folded), else an HTML
  ``<table>`` when it builds a :class:`Table`, else its text in a ``<pre>`` block (Jupyter
  shows the richest of the two); every string is escaped.

The HTML carries its own inline styles (no ``<style>`` sheet, no script): a notebook exported
by nbconvert (classic and lab templates), or shown in JupyterLab, classic Jupyter or VS Code,
looks the same, whatever that front end's CSS. Numbers are set in a monospace face, right
aligned, and a wide table scrolls sideways instead of wrapping its rows.

Printing stays the caller's choice: an object that shows itself need not print (``print(obj)``
or the REPL shows it once).

Adopting it is two edits to a dataclass: the base class, and ``repr=False`` (a dataclass
otherwise writes its own ``__repr__`` over the mixin's)::

    @dataclass(frozen=True, repr=False)
    class ConfigDescription(ShowsItself):
        ...

This module imports only the standard library (an import-linter contract in ``pyproject.toml``).
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence
from dataclasses import dataclass, field

__all__ = ["Panel", "Section", "ShowsItself", "Table", "badge_colour"]

_NUMBER = re.compile(r"^[-+]?(\d[\d,]*\.?\d*(e[-+]?\d+)?|\.\d+(e[-+]?\d+)?)(\s*(s|ms|x|%|ulp))?$", re.IGNORECASE)
_TABLE = ("border-collapse:collapse;margin:0.3em 0;font-size:0.86em;"
          "font-variant-numeric:tabular-nums")
_CELL = "padding:0.15em 0.4em;white-space:nowrap;text-align:left;vertical-align:top"
_HEAD = _CELL + ";border-bottom:1px solid #999;font-weight:600"
_MONO = "font-family:SFMono-Regular,Menlo,Consolas,'DejaVu Sans Mono',monospace"
_SCROLL = "overflow-x:auto;max-width:100%"


def _is_number(cell: str) -> bool:
    """Whether a cell reads as a number (``1.2e-05``, ``131,072``, ``0.41 s``, ``2.3x``).

    >>> [_is_number(c) for c in ("1.2e-05", "131,072", "0.41 s", "llama3", "128 of 128")]
    [True, True, True, False, False]
    """
    return bool(_NUMBER.match(cell.strip()))


@dataclass(frozen=True)
class Table:
    """A small table: a header, rows of cells (strings), an optional title and notes.

    >>> t = Table(("layer type", "rope type"), (("all", "llama3"),), title="describe", notes=("layout: split",))
    >>> print(t.text())
    describe
    layer type  rope type
    all         llama3
    layout: split
    >>> h = t.html()  # the same table in HTML, styled inline
    >>> h.count("<th "), h.count("<td "), "<caption" in h, h.endswith(">layout: split</p>")
    (2, 2, True, True)
    """

    header: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    title: str = ""
    notes: tuple[str, ...] = field(default=())

    def __post_init__(self) -> None:
        object.__setattr__(self, "header", tuple(str(c) for c in self.header))
        object.__setattr__(self, "rows", tuple(tuple(str(c) for c in r) for r in self.rows))
        object.__setattr__(self, "notes", tuple(str(n) for n in self.notes))
        bad = [i for i, r in enumerate(self.rows) if len(r) != len(self.header)]
        if bad:
            raise ValueError(f"rows={bad} of the table have {len(self.rows[bad[0]])} cells; the header has "
                             f"{len(self.header)} (every row must have one cell per column)")

    def text(self) -> str:
        """Aligned columns (two spaces apart), the title above and the notes below."""
        rows: Sequence[tuple[str, ...]] = (self.header, *self.rows)
        widths = [max(len(r[i]) for r in rows) for i in range(len(self.header))]
        lines = [self.title] if self.title else []
        lines += ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in rows]
        lines += list(self.notes)
        return "\n".join(lines)

    def html(self) -> str:
        """An HTML ``<table>`` (every cell escaped), the title as its caption, the notes as
        paragraphs after it; numbers monospace and right aligned, the table in a box that
        scrolls sideways when it is wider than the page."""
        e = html.escape
        out = [f'<div style="{_SCROLL}"><table class="pe-symbolic" style="{_TABLE}">']
        if self.title:
            out.append(f'<caption style="text-align:left;font-weight:600">{e(self.title)}</caption>')
        out.append("<thead><tr>" + "".join(f'<th style="{_HEAD}">{e(c)}</th>' for c in self.header)
                   + "</tr></thead>")
        out.append("<tbody>" + "".join("<tr>" + "".join(_td(c) for c in r) + "</tr>" for r in self.rows)
                   + "</tbody>")
        out.append("</table></div>")
        out += [f'<p style="margin:0.2em 0">{e(n)}</p>' for n in self.notes]
        return "".join(out)


#: A text cell longer than this wraps (within a column at least 24 characters wide); a number
#: or a shorter cell never does, so that a table of numbers keeps its rows.
_WRAP_AT = 48


def _td(cell: str) -> str:
    if _is_number(cell):
        style = f"{_CELL};{_MONO};text-align:right"
    elif len(cell) > _WRAP_AT:
        style = _CELL.replace("white-space:nowrap", "white-space:normal;min-width:24ch")
    else:
        style = _CELL
    return f'<td style="{style}">{html.escape(cell)}</td>'


#: Badge colours (background, text) by the verdict's first word that names one: green for a
#: proof or a pass, blue for what was sampled, amber for out of bound or undecided, red for a
#: difference or a refutation, grey otherwise.
_COLOURS: tuple[tuple[tuple[str, ...], tuple[str, str]], ...] = (
    (("differs", "refuted", "failed", "fail", "wrong", "error", "unsupported", "exceeded", "non-finite"),
     ("#b42318", "#ffffff")),
    (("out of bound", "undecided", "warning", "partial"), ("#b54708", "#ffffff")),
    (("consistent", "tested"), ("#175cd3", "#ffffff")),
    (("verified", "proved", "pass", "passed", "ok", "equal", "within"), ("#067647", "#ffffff")),
)


def badge_colour(verdict: str) -> tuple[str, str]:
    """(background, text) colour of a verdict's badge: red for a difference, amber for out of
    bound or undecided, blue for tested only, green for verified or proved, grey otherwise.
    The worst word wins ("verified except ... differs" is red).

    >>> badge_colour("VERIFIED"), badge_colour("consistent (tested)"), badge_colour("differs")
    (('#067647', '#ffffff'), ('#175cd3', '#ffffff'), ('#b42318', '#ffffff'))
    >>> badge_colour("described")
    ('#475467', '#ffffff')
    """
    low = verdict.lower()
    for words, colour in _COLOURS:
        if any(re.search(rf"\b{re.escape(w)}\b", low) for w in words):
            return colour
    return ("#475467", "#ffffff")


@dataclass(frozen=True)
class Section:
    """A titled part of a :class:`Panel`: a :class:`Table` or text in a monospace face, folded
    (``<details>``) unless ``folded=False``. Text lines wrap at the panel's width unless
    ``columns=True`` (text laid out in columns: kept as it is, scrolling sideways)."""

    title: str
    body: Table | str
    folded: bool = True
    columns: bool = False

    def html(self) -> str:
        e = html.escape
        space = "white-space:pre" if self.columns else "white-space:pre-wrap;overflow-wrap:anywhere"
        inner = self.body.html() if isinstance(self.body, Table) else (
            f'<pre style="margin:0.2em 0;{space};{_SCROLL};{_MONO}">{e(self.body)}</pre>')
        head = f'<span style="font-weight:600">{e(self.title)}</span>'
        if self.folded:
            return f'<details style="margin:0.25em 0"><summary>{head}</summary>{inner}</details>'
        return f'<div style="margin:0.25em 0">{head}{inner}</div>'


@dataclass(frozen=True)
class Panel:
    """A report at a glance, for Jupyter: a title, the verdict as a coloured badge, a few
    summary lines, the main tables, then sections folded.

    >>> p = Panel("verify_rope", verdict="verified", summary=("q and k checked",),
    ...           tables=(Table(("pairing", "channels"), (("split", "128 of 128"),)),),
    ...           sections=(Section("tests", "81 calls in float32"),))
    >>> h = p.html()
    >>> h.startswith('<div class="pe-symbolic-panel"'), 'VERIFIED</span>' in h, '<details' in h
    (True, True, True)
    """

    title: str
    verdict: str = ""
    summary: tuple[str, ...] = ()
    tables: tuple[Table, ...] = ()
    sections: tuple[Section, ...] = ()

    def html(self) -> str:
        e = html.escape
        out = ['<div class="pe-symbolic-panel" style="font-family:inherit;line-height:1.35;max-width:100%">']
        head = f'<span style="font-weight:600;{_MONO}">{e(self.title)}</span>'
        if self.verdict:
            bg, fg = badge_colour(self.verdict)
            head = (f'<span class="pe-symbolic-badge" style="display:inline-block;padding:0.1em 0.6em;'
                    f'border-radius:0.8em;background:{bg};color:{fg};font-weight:700;letter-spacing:0.03em;'
                    f'margin-right:0.6em">{e(self.verdict.upper())}</span>') + head
        out.append(f'<div style="margin-bottom:0.3em">{head}</div>')
        out += [f'<div style="margin:0.1em 0">{e(line)}</div>' for line in self.summary]
        out += [t.html() for t in self.tables]
        out += [s.html() for s in self.sections]
        out.append("</div>")
        return "".join(out)


class ShowsItself:
    """Mixin: ``repr``, ``str`` and ``_repr_html_`` show the object's table (see the module notes).

    A subclass gives its text by ``__str__`` or ``to_text()`` (as the reports already do), or
    builds a :class:`Table` in ``_table()`` (then the text and the HTML come from it).

    >>> from dataclasses import dataclass
    >>> @dataclass(frozen=True, repr=False)
    ... class Pair(ShowsItself):
    ...     a: int
    ...     b: int
    ...     def _table(self):
    ...         return Table(("a", "b"), ((self.a, self.b),))
    >>> Pair(1, 22)
    a  b
    1  22
    >>> Pair(1, 22)._repr_html_().count("<td")  # the same table, in HTML
    2
    """

    __slots__ = ()

    def _table(self) -> Table | None:
        """The object's table (``None``: the class writes its text itself)."""
        return None

    def _panel(self) -> Panel | None:
        """The object at a glance in HTML (``None``: its table, or its text, is shown)."""
        return None

    def to_text(self) -> str:
        """The text table (from :meth:`_table`)."""
        table = self._table()
        if table is None:
            raise NotImplementedError(f"{type(self).__name__} must define __str__, to_text() or _table() "
                                      "to show itself")
        return table.text()

    def __str__(self) -> str:
        return self.to_text()

    def __repr__(self) -> str:
        return str(self)

    def _repr_html_(self) -> str:
        panel = self._panel()
        if panel is not None:
            return panel.html()
        table = self._table()
        if table is not None:
            return table.html()
        return f'<pre class="pe-symbolic" style="white-space:pre;{_SCROLL};{_MONO}">{html.escape(str(self))}</pre>'
