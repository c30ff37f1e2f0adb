"""Check the built HTML docs as a reader's browser shows them (headless Chromium).

Every page is loaded at 1400 px wide, MathJax typesets it, and then the page fails when:

* MathJax reports an error (an ``merror`` node: an unknown macro or environment, bad TeX);
* markup is left over in the text a reader sees (``$$``, ``**``, ``\\begin{``, ``:::``,
  ``{prf:``, ``{claim}``): MyST or Markdown that was not parsed;
* a displayed equation, a table, or the page's article, is wider than its column (it would
  need a horizontal scroll bar). A table counts when it is wider than the box that holds it:
  the theme puts tables in a container that scrolls sideways (``overflow-x: auto``), so the
  article itself never grows, and only the table's own width against its container's shows it.

Usage: ``python docs/_ext/check_html.py docs/_build/html [PAGE ...]`` (pages relative to the
site, e.g. ``theory/generated/rope.relative.html``; default: every page). Prints one line a
problem and exits 1 if there is any, 0 if none, 2 without Chromium. ``make docs`` runs it.

One Chromium process checks many pages: a driver page next to the site loads each page in a
1400 px ``iframe`` (``--allow-file-access-from-files``) and writes the findings into its own
DOM, which ``--dump-dom`` prints.
"""

from __future__ import annotations

import html
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

#: Markup that must not reach a reader's eyes outside code (JavaScript regular expressions):
#: math delimiters and environments, bold markers next to a word (``**beyond``; ``2**-24`` is
#: how a docstring writes a power), MyST fences and roles.
LEFTOVER = [r"\$\$", r"(?:^|\s)\*\*(?=\S)|(?<=\S)\*\*(?=\s|$|[,.;:!?])", r"\\begin\{", r"\\end\{", r"^:::|\s:::",
            r"\{prf:", r"\{claim\}", r"\\\[", r"\\\]", r"\\\(", r"\\\)"]

_DRIVER = """<!DOCTYPE html><html><head><meta charset="utf-8"></head><body>
<iframe id="f" style="width:1400px;height:1000px;border:0"></iframe>
<pre id="out"></pre>
<script>
const PAGES = %(pages)s;
const LEFTOVER = %(leftover)s;
const results = [];
const frame = document.getElementById("f");
function check(doc, page) {
  const r = {page: page, merror: [], leftover: [], overflow: []};
  doc.querySelectorAll("mjx-merror, merror").forEach(e =>
      r.merror.push(e.getAttribute("data-mjx-error") || e.textContent.slice(0, 120)));
  const root = doc.querySelector("article") || doc.body;
  const walker = doc.createTreeWalker(root, NodeFilter.SHOW_TEXT, {acceptNode: n => {
      for (let p = n.parentElement; p && p !== root; p = p.parentElement) {
        const t = p.tagName.toLowerCase();
        if (t === "pre" || t === "code" || t === "script" || t === "style" || t === "kbd" ||
            t === "tt" || t.startsWith("mjx-") || p.classList.contains("highlight") ||
            p.classList.contains("math") || p.classList.contains("sphx-glr-script-out") ||
            p.classList.contains("doctest") || p.classList.contains("literal-block") ||
            p.classList.contains("pre") || p.classList.contains("sig")) return NodeFilter.FILTER_REJECT;
      }
      return NodeFilter.FILTER_ACCEPT; }});
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    for (const pattern of LEFTOVER) {
      const m = new RegExp(pattern).exec(n.textContent);
      if (m) r.leftover.push(m[0] + " in: " + n.textContent.slice(Math.max(0, m.index - 40), m.index + 40)
                             .replace(/\\s+/g, " "));
    }
  }
  doc.querySelectorAll('mjx-container[display="true"]').forEach(e => {
    if (e.scrollWidth > e.clientWidth + 1)
      r.overflow.push(e.scrollWidth + " px in a " + e.clientWidth + " px column: " +
                      (e.textContent || "").slice(0, 60));
  });
  doc.querySelectorAll("table").forEach(t => {
    // the box that holds the table: the nearest ancestor that clips or scrolls sideways
    // (the theme's table container), else the article
    let box = t.parentElement;
    while (box && box !== root) {
      const o = doc.defaultView.getComputedStyle(box).overflowX;
      if (o === "auto" || o === "scroll" || o === "hidden" || o === "clip") break;
      box = box.parentElement;
    }
    box = box || root;
    const wide = Math.max(t.scrollWidth, t.getBoundingClientRect().width);
    if (wide > box.clientWidth + 1 || box.scrollWidth > box.clientWidth + 1) {
      const head = t.querySelector("th, td");
      r.overflow.push("a table is " + Math.round(wide) + " px wide in a " + box.clientWidth + " px column: " +
                      ((head && head.textContent) || "").trim().slice(0, 60));
    }
  });
  if (root.scrollWidth > root.clientWidth + 1)
    r.overflow.push("the article is " + root.scrollWidth + " px wide in " + root.clientWidth + " px");
  return r;
}
async function next(i) {
  if (i >= PAGES.length) {
    document.getElementById("out").textContent = "PE-CHECK " + JSON.stringify(results);
    return;
  }
  frame.onload = async () => {
    const w = frame.contentWindow;
    try {
      for (let k = 0; k < 200 && !(w.MathJax && w.MathJax.startup && w.MathJax.startup.promise); k++)
        await new Promise(res => setTimeout(res, 50));
      if (w.MathJax && w.MathJax.startup && w.MathJax.startup.promise) await w.MathJax.startup.promise;
      results.push(check(frame.contentDocument, PAGES[i]));
    } catch (err) {
      results.push({page: PAGES[i], merror: [], leftover: [], overflow: [], error: String(err)});
    }
    next(i + 1);
  };
  frame.src = PAGES[i];
}
next(0);
</script></body></html>
"""


def chromium() -> str | None:
    """The Chromium executable, or ``None``."""
    for name in ("chromium", "chromium-browser", "google-chrome", "chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


def check_pages(site: Path, pages: list[str], *, timeout: float = 600.0) -> list[dict]:
    """Load ``pages`` (paths relative to ``site``) in headless Chromium; one finding a page.

    Raises
    ------
    FileNotFoundError
        Without Chromium.
    RuntimeError
        When Chromium does not report back.
    """
    exe = chromium()
    if exe is None:
        raise FileNotFoundError("chromium is not installed (apt-get install chromium)")
    site = site.resolve()
    with tempfile.NamedTemporaryFile("w", suffix=".html", dir=site, prefix="_pe_check_", delete=False,
                                     encoding="utf-8") as fh:
        fh.write(_DRIVER % {"pages": json.dumps(pages), "leftover": json.dumps(LEFTOVER)})
        driver = Path(fh.name)
    try:
        with tempfile.TemporaryDirectory() as profile:
            run = subprocess.run(
                [exe, "--headless", "--no-sandbox", "--disable-gpu", "--allow-file-access-from-files",
                 f"--user-data-dir={profile}", "--window-size=1440,1100",
                 f"--virtual-time-budget={int(1000 * timeout)}", "--dump-dom", driver.as_uri()],
                capture_output=True, text=True, timeout=timeout + 120)
    finally:
        driver.unlink()
    out = html.unescape(run.stdout)
    if "PE-CHECK " not in out:
        raise RuntimeError(f"chromium reported nothing (exit {run.returncode}): {run.stderr[-500:]}")
    return json.loads(out.split("PE-CHECK ", 1)[1].split("</pre>", 1)[0])


def problems(findings: list[dict]) -> list[str]:
    """One line a problem (empty: every page is clean)."""
    lines = []
    for r in findings:
        for kind in ("merror", "leftover", "overflow"):
            lines += [f"{r['page']}: {kind}: {x}" for x in r[kind]]
        if r.get("error"):
            lines.append(f"{r['page']}: not checked: {r['error']}")
    return lines


def site_pages(site: Path) -> list[str]:
    """The reader's pages of a built site, relative to it (not the index, search or assets)."""
    return sorted(str(p.relative_to(site)) for p in site.rglob("*.html")
                  if not p.name.startswith(("_pe_check_", "genindex", "search", "py-modindex"))
                  and "_static" not in p.parts and "_sources" not in p.parts and "_modules" not in p.parts)


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if not args:
        print(__doc__)
        return 2
    site = Path(args[0])
    pages = args[1:] or site_pages(site)
    if chromium() is None:
        print("check_html: chromium is not installed; the rendered pages were not checked")
        return 2
    bad = problems(check_pages(site, pages))
    for line in bad:
        print(line)
    print(f"check_html: {len(pages)} pages, {len(bad)} problem(s)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
