"""Objects that show themselves: a result's ``repr`` is its table, in a REPL and in Jupyter.

A report a user asks for (``describe(config)``, ``audit(...)``, ``verify_rope(...)``) is read
by a person first: the last expression of a notebook cell or a REPL line should show the
table the object stands for, not a dataclass repr of a thousand characters, and nothing
should be printed twice. :class:`ShowsItself` gives a class that:

* ``repr(obj)`` and ``str(obj)``: the text table (the class's own ``__str__`` or
  ``to_text()`` where it has one, else :meth:`Table.text` of its ``_table()``);
* ``obj._repr_html_()``: an HTML ``<table>`` when the class builds a :class:`Table`, else its
  text in a ``<pre>`` block (Jupyter shows the richest of the two); every string is escaped.

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
from collections.abc import Sequence
from dataclasses import dataclass, field

__all__ = ["ShowsItself", "Table"]


@dataclass(frozen=True)
class Table:
    """A small table: a header, rows of cells (strings), an optional title and notes.

    >>> t = Table(("layer type", "rope type"), (("all", "llama3"),), title="describe", notes=("layout: split",))
    >>> print(t.text())
    describe
    layer type  rope type
    all         llama3
    layout: split
    >>> print(t.html())  # doctest: +NORMALIZE_WHITESPACE
    <table class="pe-symbolic"><caption>describe</caption><thead><tr><th>layer type</th><th>rope type</th></tr></thead><tbody><tr><td>all</td><td>llama3</td></tr></tbody></table><p>layout: split</p>
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
        paragraphs after it."""
        e = html.escape
        out = ['<table class="pe-symbolic">']
        if self.title:
            out.append(f"<caption>{e(self.title)}</caption>")
        out.append("<thead><tr>" + "".join(f"<th>{e(c)}</th>" for c in self.header) + "</tr></thead>")
        out.append("<tbody>" + "".join("<tr>" + "".join(f"<td>{e(c)}</td>" for c in r) + "</tr>"
                                       for r in self.rows) + "</tbody>")
        out.append("</table>")
        out += [f"<p>{e(n)}</p>" for n in self.notes]
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
    >>> Pair(1, 22)._repr_html_()
    '<table class="pe-symbolic"><thead><tr><th>a</th><th>b</th></tr></thead><tbody><tr><td>1</td><td>22</td></tr></tbody></table>'
    """

    __slots__ = ()

    def _table(self) -> Table | None:
        """The object's table (``None``: the class writes its text itself)."""
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
        table = self._table()
        if table is not None:
            return table.html()
        return f'<pre class="pe-symbolic">{html.escape(str(self))}</pre>'
