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
    assert page.startswith('<table class="pe-symbolic"><caption>demo</caption>')
    assert "<script>" not in page and "&lt;script&gt;" in page
    assert "<p>note: &lt;b&gt;x&lt;/b&gt;</p>" in page


def test_html_without_a_table_is_the_text_preformatted_and_escaped():
    page = _OwnStr(("x < y & z", "<img src=x>"))._repr_html_()
    assert page == '<pre class="pe-symbolic">x &lt; y &amp; z\n&lt;img src=x&gt;</pre>'


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
    assert page.startswith(("<table", "<pre")) and "<script" not in page
