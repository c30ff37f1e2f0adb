"""Sphinx glue for the pe_symbolic docs.

* On ``builder-inited``: write the theory pages (one per registered theorem, proved in its
  generic form) with :mod:`pe_docs_gen`. A theorem that is not proved is a build warning
  (an error under ``-W``). The tutorials are sphinx-gallery's (see ``conf.py``).
* The role ``{claim}`translation.identity``` links to a theorem by its claim id (it
  resolves through sphinx-proof's ``prf:ref``, so an unknown id fails the build).
* The directive ``{pe-shows}`` runs its block of Python (these pages' own code, at build
  time) and shows the value of its last expression as a notebook would: its
  ``_repr_html_()``, else its ``repr`` in a literal block. The reports' HTML (the verdict
  badge, the tables, the folded details) is thus the object's own, never a copy.
"""

from __future__ import annotations

import ast
import os
import re
import time

from docutils import nodes
from docutils.parsers.rst import Directive
from sphinx import addnodes
from sphinx.application import Sphinx
from sphinx.util import logging

import pe_docs_gen as gen

logger = logging.getLogger(__name__)


def claim_role(name, rawtext, text, lineno, inliner, options=None, content=()):
    """``{claim}`id``` -> a link to the theorem block labelled ``thm-<id>``, shown as the id."""
    claim_id = text.strip()
    node = addnodes.pending_xref(
        rawtext, refdomain="prf", reftype="ref", reftarget=gen.label(claim_id),
        refexplicit=True, refwarn=True,
    )
    node["refdoc"] = inliner.document.settings.env.docname
    node += nodes.literal(rawtext, claim_id, classes=["xref", "claim"])
    return [node], []


def _generate(app: Sphinx) -> None:
    t0 = time.perf_counter()
    # each page's Coq status: Coq runs on the registry where it is installed (about a minute on
    # two cores); PE_DOCS_COQ=0 leaves it out (the pages then say how many lemmas are printed)
    theory = gen.write_theory(coq=os.environ.get("PE_DOCS_COQ", "1") != "0")
    for e in theory:
        if e.verdict != e.expect:
            logger.warning("theorem %s is %s in its generic form (expected %s)", e.id, e.verdict,
                           e.expect, location=str(e.path))
    logger.info("pe_docs: %d theory pages in %.1f s", len(theory), time.perf_counter() - t0)
    # the audit's bounds as Coq theorems (docs/howto/generated/, included by the accuracy and
    # Coq how-tos): Coq checks them where Coq, Gappa and Flocq are installed (PE_DOCS_COQ=0: not)
    t0 = time.perf_counter()
    bounds = gen.write_coq_bounds(run=os.environ.get("PE_DOCS_COQ", "1") != "0")
    for name, st in bounds.items():
        if st != "checked":
            logger.warning("the audit bound theorem %s is %s in Coq", name, st)
    logger.info("pe_docs: the audit's bounds in Coq in %.1f s", time.perf_counter() - t0)


_RELATION = re.compile(r"^(=|\\le\b|\\ge\b|\\leq\b|\\geq\b|<|>|\\approx\b)")


def break_math_at_relations(lines: list[str]) -> list[str]:
    r"""In a docstring's ``.. math::`` block, a line that starts with a relation (``=``,
    ``\le``, ...) starts a new display line, aligned at the relation, as its author broke it
    in the source (TeX would join the lines into one, too wide for the page).

    >>> break_math_at_relations([".. math:: a + b", "          = c + d", "", "text"])
    ['.. math:: \\begin{aligned}& a + b \\\\', '          &= c + d \\end{aligned}', '', 'text']
    >>> break_math_at_relations([".. math:: x \\le a + b", "   = c"])[0]
    '.. math:: \\begin{aligned} x &\\le a + b \\\\'
    """
    out = list(lines)
    i = 0
    while i < len(out):
        m = re.match(r"^(\s*)\.\. math::(.*)$", out[i])
        if not m:
            i += 1
            continue
        indent = len(m.group(1))
        j = i + 1
        while j < len(out) and (not out[j].strip() and j + 1 < len(out) and
                                len(out[j + 1]) - len(out[j + 1].lstrip()) > indent
                                or out[j].strip() and len(out[j]) - len(out[j].lstrip()) > indent):
            j += 1
        body = [(k, out[k]) for k in range(i, j)]
        text = [(m.group(2).strip() if k == i else line.strip()) for k, line in body]
        breaks = [n for n, t in enumerate(text) if n and _RELATION.match(t)]
        if breaks and "aligned" not in " ".join(text) and not any(t.startswith(":") for t in text):
            for n in breaks:
                k = body[n][0]
                lead = out[k][: len(out[k]) - len(out[k].lstrip())]
                out[k - 1] = out[k - 1].rstrip() + r" \\"
                out[k] = lead + "&" + out[k].lstrip()
            out[i] = out[i].replace(".. math::", ".. math:: \\begin{aligned}", 1)
            # the first line's relation is the alignment point (else its whole width would
            # come before the other lines' columns)
            k = body[0][0]
            at = _first_relation(out[k], start=out[k].index("aligned}") + len("aligned}"))
            out[k] = out[k][:at] + "&" + out[k][at:] if at >= 0 else out[k].replace(
                "aligned}", "aligned}&", 1)
            last = max(k for k, line in body if line.strip())
            out[last] = out[last].rstrip() + r" \end{aligned}"
        i = j
    return out


def _first_relation(line: str, start: int = 0) -> int:
    """Index of the first relation (``=``, ``\\le``, ...) outside braces in ``line``, or -1."""
    depth = 0
    for i in range(start, len(line)):
        ch = line[i]
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
        elif depth == 0 and _RELATION.match(line[i:]) and line[i - 1:i] != "\\":
            return i
    return -1


class ShowsDirective(Directive):
    """``{pe-shows}``: run the block, show its last expression as Jupyter would."""

    has_content = True

    def run(self) -> list[nodes.Node]:
        source = "\n".join(self.content)
        tree = ast.parse(source, filename=f"<pe-shows in {self.state.document.current_source}>")
        if not tree.body or not isinstance(tree.body[-1], ast.Expr):
            raise self.error("pe-shows: the block must end with an expression (the object to show)")
        last = ast.Expression(tree.body.pop().value)
        scope: dict = {"__name__": "__pe_shows__"}
        exec(compile(tree, "<pe-shows>", "exec"), scope)  # noqa: S102 - the docs' own code
        value = eval(compile(last, "<pe-shows>", "eval"), scope)  # noqa: S307 - the docs' own code
        html = getattr(value, "_repr_html_", None)
        if html is None:
            return [nodes.literal_block(text=repr(value))]
        return [nodes.raw("", f'<div class="pe-shows">{html()}</div>', format="html")]


def _docstring_math(app, what, name, obj, options, lines) -> None:  # noqa: ANN001 - Sphinx's hook
    lines[:] = break_math_at_relations(lines)


def setup(app: Sphinx) -> dict:
    app.add_role("claim", claim_role)
    app.add_directive("pe-shows", ShowsDirective)
    app.connect("autodoc-process-docstring", _docstring_math)
    app.connect("builder-inited", _generate)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
