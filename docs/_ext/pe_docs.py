"""Sphinx glue for the pe_symbolic docs.

* On ``builder-inited``: write the theory pages (one per registered theorem, proved in its
  generic form) with :mod:`pe_docs_gen`. A theorem that is not proved is a build warning
  (an error under ``-W``). The tutorials are sphinx-gallery's (see ``conf.py``).
* The role ``{claim}`translation.identity``` links to a theorem by its claim id (it
  resolves through sphinx-proof's ``prf:ref``, so an unknown id fails the build).
"""

from __future__ import annotations

import os
import time

from docutils import nodes
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


def setup(app: Sphinx) -> dict:
    app.add_role("claim", claim_role)
    app.connect("builder-inited", _generate)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
