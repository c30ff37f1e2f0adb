"""Objects that show themselves (pe_symbolic._display): repr is the table, HTML is escaped."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from pe_symbolic._display import ShowsItself, Table


@dataclass(frozen=True, repr=False)
class _Tabled(ShowsItself):
    name: str
    value: float

    def _table(self) -> Table:
        return Table(("name", "value"), ((self.name, f"{self.value:.3g}"),), title="demo", notes=("note: <b>x</b>",))


@dataclass(frozen=True, repr=False)
class _OwnStr(ShowsItself):  # as ConfigDescription: its text is its __str__
    rows: tuple[str, ...]

    def __str__(self) -> str:
        return "\n".join(self.rows)


@dataclass(repr=False)
class _OwnToText(ShowsItself):  # as the audit and verify reports: to_text(), and __str__ from it
    verdict: str

    def to_text(self) -> str:
        return f"verify_rope: {self.verdict.upper()}"


def test_repr_and_str_are_the_table():
    obj = _Tabled("base", 500000.0)
    assert repr(obj) == str(obj) == "demo\nname  value\nbase  5e+05\nnote: <b>x</b>"
    assert len(repr(obj)) < 60  # not the dataclass' field-by-field repr


def test_a_class_keeps_its_own_text():
    assert repr(_OwnStr(("a  b", "1  2"))) == "a  b\n1  2"
    assert repr(_OwnToText("verified")) == str(_OwnToText("verified")) == "verify_rope: VERIFIED"


def test_html_is_a_table_and_every_string_is_escaped():
    page = _Tabled("<script>alert(1)</script>", 1.0)._repr_html_()
    assert '<table class="pe-symbolic"' in page and ">demo</caption>" in page
    assert "<script>" not in page and "&lt;script&gt;" in page
    assert ">note: &lt;b&gt;x&lt;/b&gt;</p>" in page


def test_html_without_a_table_is_the_text_preformatted_and_escaped():
    page = _OwnStr(("x < y & z", "<img src=x>"))._repr_html_()
    assert page.startswith('<pre class="pe-symbolic"') and page.endswith(">x &lt; y &amp; z\n&lt;img src=x&gt;</pre>")
    assert "white-space:pre" in page  # columns kept, never re-wrapped


def test_a_class_that_gives_no_text_says_what_it_needs():
    class Bare(ShowsItself):
        pass

    with pytest.raises(NotImplementedError, match="Bare must define __str__, to_text.. or _table"):
        str(Bare())


def test_a_dataclass_without_repr_false_keeps_its_own_repr():
    """Why the adoption needs ``repr=False``: a dataclass writes ``__repr__`` over the mixin's."""

    @dataclass(frozen=True)
    class Forgot(ShowsItself):
        x: int

        def _table(self) -> Table:
            return Table(("x",), ((self.x,),))

    assert repr(Forgot(1)).endswith("Forgot(x=1)")
    assert str(Forgot(1)) == "x\n1"  # str and HTML still come from the mixin


def test_a_row_with_the_wrong_number_of_cells_is_refused():
    with pytest.raises(ValueError, match=r"rows=\[1\] of the table have 1 cells; the header has 2"):
        Table(("a", "b"), (("1", "2"), ("3",)))


def test_cells_are_text_whatever_they_were():
    t = Table(("n", "x"), ((1, 2.5), (None, "-")))
    assert t.rows == (("1", "2.5"), ("None", "-")) and t.text() == "n     x\n1     2.5\nNone  -"


def _describe():
    from pe_symbolic.numeric import describe, model_config

    return describe(model_config("llama-3.1-8b"), quiet=True)


def _audit():
    import pe_symbolic as pe

    return pe.audit("llama-3.1-8b", ["hf"], dtype="float32", context=4096)


def _verify():
    from pe_symbolic.audit.verify import VerifyReport

    return VerifyReport("verified")


@pytest.mark.parametrize("make", [
    _describe, _audit, _verify,
], ids=["describe", "audit", "verify"])
def test_the_reports_show_themselves(make):
    obj = make()
    assert isinstance(obj, ShowsItself)
    assert repr(obj) == str(obj)
    page = obj._repr_html_()
    assert page.startswith(("<div", "<table", "<pre")) and "<script" not in page
    _parse(page)  # well formed: every tag closed in order


@pytest.mark.parametrize("make, badge", [(_audit, "WITHIN BOUNDS"), (_verify, "VERIFIED")], ids=["audit", "verify"])
def test_the_reports_with_a_verdict_show_it_first(make, badge):
    tree = _parse(make()._repr_html_())
    assert tree.text[0] == ("span", badge)


# ---- panels: the verdict at a glance, details folded, numbers monospace --------------------
from html.parser import HTMLParser  # noqa: E402

from pe_symbolic._display import Panel, Section, badge_colour  # noqa: E402


class _Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict]] = []
        self.open: list[str] = []
        self.text: list[tuple[str, str]] = []  # (innermost tag, text)

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))
        if tag not in ("br", "img"):
            self.open.append(tag)

    def handle_endtag(self, tag):
        assert self.open and self.open[-1] == tag, f"</{tag}> closes <{self.open[-1] if self.open else None}>"
        self.open.pop()

    def handle_data(self, data):
        if data.strip():
            self.text.append((self.open[-1] if self.open else "", data))


def _parse(page: str) -> _Tags:
    p = _Tags()
    p.feed(page)
    p.close()
    assert not p.open, f"unclosed tags: {p.open}"
    return p


def test_a_panel_puts_the_verdict_first_as_a_coloured_badge_and_folds_the_details():
    t = Table(("recipe", "output", "bound"), (("hf", "7.39e-03", "2.26e-02"),))
    page = Panel("verify_rope", verdict="differs", summary=("k: FAILED at position 1",), tables=(t,),
                 sections=(Section("tests", "81 calls <b>"), Section("conventions", t, folded=False))).html()
    tree = _parse(page)
    first_text = tree.text[0]
    assert first_text == ("span", "DIFFERS")  # the first thing a reader sees
    badge = next(a for tag, a in tree.tags if a.get("class") == "pe-symbolic-badge")
    assert "background:#b42318" in badge["style"]  # red
    assert sum(tag == "details" for tag, _ in tree.tags) == 1  # tests folded, conventions open
    assert "81 calls &lt;b&gt;" in page and "<b>" not in page
    cells = [a["style"] for tag, a in tree.tags if tag == "td"]
    assert sum("monospace" in c for c in cells) == 4  # the numbers (twice two), not "hf"
    assert not any(tag in ("script", "style") for tag, _ in tree.tags)  # inline styles only


@pytest.mark.parametrize("verdict, colour", [
    ("VERIFIED", "#067647"), ("verified (proved)", "#067647"), ("consistent (tested)", "#175cd3"),
    ("out of bound", "#b54708"), ("undecided", "#b54708"), ("differs", "#b42318"),
    ("refuted", "#b42318"), ("described", "#475467"), ("proved, one part differs", "#b42318"),
])
def test_a_badge_takes_the_colour_of_the_worst_word(verdict, colour):
    assert badge_colour(verdict)[0] == colour


def test_a_wide_table_scrolls_instead_of_wrapping():
    t = Table(tuple(f"column {i}" for i in range(30)), (tuple("1.0e-05" for _ in range(30)),))
    page = t.html()
    assert page.startswith('<div style="overflow-x:auto') and "white-space:nowrap" in page
