"""describe(), audit() and verify_rope()'s reports in an exported notebook: nbconvert's lab and
classic templates keep each report's HTML as the object made it, and in headless Chromium the
verdict badge is coloured, numbers are set in a monospace face and a table of numbers keeps
its rows (nothing wraps). Skipped without the notebook extra; the browser part without
Chromium. The pages are built by ``tools/notebook_reports.py`` (which also takes their
screenshots)."""

from __future__ import annotations

import html
import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
try:
    import notebook_reports as NR
finally:
    sys.path.remove(str(ROOT / "tools"))


@pytest.fixture(scope="module")
def made():
    pytest.importorskip("nbformat")
    pytest.importorskip("nbconvert")
    items = NR.reports()
    return items, NR.notebook(items)


@pytest.mark.parametrize("template", NR.TEMPLATES)
def test_the_exported_page_keeps_each_reports_html_as_made(made, template):
    items, nb = made
    page = NR.export(nb, template)
    for _, obj in items:
        # as made, up to how entities are spelled (nbconvert writes &#x27; as ')
        assert html.unescape(obj._repr_html_()) in html.unescape(page)
    assert page.count('class="pe-symbolic-badge"') == 2  # the audit's and verify's verdicts


#: Read off the exported page in the browser: each badge's colours, each table cell's font and
#: whether a row of a numbers-only table is taller than one line.
_PROBE = """<script>
window.addEventListener("load", () => {
  const out = {badges: [], numberCells: 0, monoNumberCells: 0, wrappedNumberRows: 0, rows: 0};
  document.querySelectorAll(".pe-symbolic-badge").forEach(b => {
    const st = getComputedStyle(b);
    out.badges.push([b.textContent, st.backgroundColor, st.color]);
  });
  const number = /^[-+]?(\\d[\\d,]*\\.?\\d*(e[-+]?\\d+)?)$/i;
  document.querySelectorAll("table.pe-symbolic").forEach(t => {
    t.querySelectorAll("tbody tr").forEach(tr => {
      out.rows += 1;
      const cells = [...tr.children];
      cells.forEach(td => {
        if (number.test(td.textContent.trim())) {
          out.numberCells += 1;
          if (/mono/i.test(getComputedStyle(td).fontFamily)) out.monoNumberCells += 1;
        }
      });
      const line = parseFloat(getComputedStyle(cells[0]).lineHeight) || 20;
      if (cells.every(td => td.textContent.length <= 48) && tr.getBoundingClientRect().height > 1.8 * line)
        out.wrappedNumberRows += 1;
    });
  });
  const pre = document.createElement("pre");
  pre.id = "pe-probe";
  pre.textContent = "PE-" + "PROBE " + JSON.stringify(out);  // the marker, not in this source
  document.body.appendChild(pre);
});
</script>"""


@pytest.mark.parametrize("template", NR.TEMPLATES)
def test_in_a_browser_the_badges_are_coloured_numbers_monospace_rows_unwrapped(made, template, tmp_path):
    if NR.chromium() is None:
        pytest.skip("chromium is not installed (apt-get install chromium)")
    _, nb = made
    page = tmp_path / f"reports-{template}.html"
    page.write_text(NR.export(nb, template).replace("</body>", _PROBE + "</body>"), encoding="utf-8")
    dom = html.unescape(NR.dump_dom(page, width=900))  # narrower than the widest table
    assert "PE-PROBE " in dom, dom[-2000:]
    got = json.loads(dom.split("PE-PROBE ", 1)[1].split("</pre>", 1)[0])
    badges = {text: (bg, fg) for text, bg, fg in got["badges"]}
    assert badges == {"WITHIN BOUNDS": ("rgb(6, 118, 71)", "rgb(255, 255, 255)"),
                      "DIFFERS": ("rgb(180, 35, 24)", "rgb(255, 255, 255)")}
    assert got["numberCells"] >= 16 and got["monoNumberCells"] == got["numberCells"]
    assert got["rows"] >= 6 and got["wrappedNumberRows"] == 0
