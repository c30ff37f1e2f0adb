"""Generate the docs' theory pages (MyST Markdown) from the project itself.

Pure Python, no Sphinx import, so the test suite can call it directly
(``tests/test_docs.py``) and the Sphinx glue (:mod:`pe_docs`) stays thin.

* :func:`write_theory` proves every theorem in the registry in its generic form
  (``d=None``) and writes one page per theorem with :func:`pe_symbolic.proof.render.myst`, one
  page per chapter (the theorems one module registers: :data:`CHAPTERS`), and a summary, a
  table per chapter, included by ``docs/theory/index.md``. Files are only rewritten when their
  content changes, so incremental builds stay incremental; pages of theorems that no longer
  exist are removed.
* The tutorials are not generated here: they are a sphinx-gallery of ``derivations/``
  (configured in ``conf.py``), which runs each script, captures its output and figures and
  offers it for download. :class:`DerivationOrder` gives the gallery its reading order.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

DOCS = Path(__file__).resolve().parents[1]
ROOT = DOCS.parent
THEORY_DIR = DOCS / "theory" / "generated"
DERIVATIONS = ROOT / "derivations"

#: The summary table's file name (excluded as a page in conf.py; included by the index).
SUMMARY = "_summary.md"
#: The toctree of the generated pages (registration / reading order), included by the index.
TOC = "_toc.md"
#: Scripts that open the tutorials gallery, in reading order; the others follow by name.
TUTORIAL_ORDER = ("translation_matrix", "dot_product", "rope_relative")

#: The theory's chapters, one per module that registers theorems: page stem, title and a
#: sentence saying what the chapter is. The theory section (and its sidebar) lists chapters,
#: each chapter its theorems. A module not named here becomes a chapter named after it.
CHAPTERS: dict[str, tuple[str, str, str]] = {
    "pe_symbolic.theorems.lemmas": (
        "lemmas", "Lemmas: one rotation, one pair",
        "Angle addition, the 2x2 rotation and one sin/cos pair: the statements about a single block "
        "that every proof for all even $d$ cites."),
    "pe_symbolic.theorems.foundation": (
        "foundation", "Foundation: the translation matrix, the dot product, RoPE",
        "The theorems of the sinusoidal encoding and of RoPE, proved for every even $d = 2h$ at once."),
    "pe_symbolic.theorems.chapters.kernes": (
        "kernes", "Kernes: Master Positional Encoding",
        "Kernes' argument from counting to sinusoids (seed 000), claim by claim."),
    "pe_symbolic.theorems.chapters.video": (
        "video", "The video explainer",
        "What a positional encoding must do, as the video states it (seed 001)."),
    "pe_symbolic.theorems.chapters.denk": (
        "denk", "Denk, Kazemnejad and tensor2tensor",
        "Denk's derivation of the translation matrix, Kazemnejad's criteria and tensor2tensor's timing "
        "signal (seed 002)."),
    "pe_symbolic.theorems.chapters.notes": (
        "notes", "Notes: Shaw, RoPE and learned embeddings",
        "Relative positions with clipping, rotary embeddings in 2 and $d$ dimensions, learned tables "
        "(seed 003)."),
    "pe_symbolic.theorems.chapters.sphere": (
        "sphere", "The sphere post and ALiBi",
        "Every position on a sphere, the printed tables, the exponent, ALiBi (seed 004)."),
    "pe_symbolic.theorems.chapters.literature": (
        "literature", "What the literature claims",
        "Claims of papers on RoPE (Men, Liu, Barbero, ComRoPE and LieRE), proved or refuted."),
    "pe_symbolic.theorems.chapters.relative": (
        "relative", "Which research encodings are relative",
        "STRING, ComRoPE, PoPE and VRoPE proved relative; LieRE, FoPE, one-factor PaTH and "
        "Circle-RoPE's axial claim refuted at certified points; FoPE's padding lemma."),
    "pe_symbolic.theorems.chapters.variants": (
        "variants", "RoPE variants inference engines ship",
        "FoPE, openPangu's and Bailing's M-RoPE layouts, an indexer's pairing, ChatGLM's 2-D "
        "positions, multi-factor linear and llama.cpp's YaRN: what each keeps and what breaks."),
    "pe_symbolic.theorems.family": (
        "family", "The RoPE family",
        "The scalings, partial, multimodal and 2-D rotary embeddings and xPos that real models ship, "
        "with the honest negatives where deployments break the relative property."),
    "pe_symbolic.theorems.precision": (
        "precision", "Precision bounds",
        "The angle error of a RoPE or sinusoidal table in floating point, bounded and proved."),
}


def label(theorem_id: str) -> str:
    """The cross-reference label of a theorem, as :func:`pe_symbolic.proof.render.myst` writes it.

    >>> label("translation.identity")
    'thm-translation-identity'
    """
    return "thm-" + theorem_id.replace(".", "-")


def page_name(theorem_id: str) -> str:
    """The generated page's file stem for a theorem id (ids are dotted; stems keep them)."""
    return theorem_id


def md_escape(text: str) -> str:
    r"""Backslash-escape the characters that MyST would read as markup (as the theory pages do).

    >>> md_escape("x*cos + rotate(x)*sin; |PE|^2 = d/2")
    'x\\*cos + rotate(x)\\*sin; \\|PE\\|^2 = d/2'
    """
    from pe_symbolic.proof.render.markup_format import _md_escape

    return _md_escape(text)


def _toctree(stems: Sequence[str], hidden: bool = False, prefix: str = "generated/") -> str:
    """A toctree of generated pages (``prefix``: their folder seen from the page that holds it)."""
    opts = [":maxdepth: 1"] + ([":hidden:"] if hidden else [])
    return "\n".join(["```{toctree}", *opts, "", *(f"{prefix}{s}" for s in stems), "```", ""])


@dataclass(frozen=True)
class Chapter:
    """A chapter of the theory section: the theorems one module registers."""

    module: str
    stem: str
    title: str
    intro: str

    @property
    def page(self) -> str:
        """The chapter page's file stem in the generated folder (no dot: never a theorem id)."""
        return f"chapter-{self.stem}"


def chapter_of(theorem) -> Chapter:
    """The chapter a theorem belongs to: the module that registered it, or the package it is part
of (the RoPE family: one module a section, one chapter) (:data:`CHAPTERS`).

    >>> from pe_symbolic import theorems
    >>> chapter_of(theorems.get("rope.relative")).title
    'Foundation: the translation matrix, the dot product, RoPE'
    >>> chapter_of(theorems.get("kazemnejad.bounded")).page
    'chapter-denk'
    >>> chapter_of(theorems.get("yarn.blend")).page  # pe_symbolic.theorems.family.scalings
    'chapter-family'
    """
    module = getattr(theorem.build, "__module__", "") or "pe_symbolic.theorems.other"
    for where in (module, *(module.rsplit(".", k)[0] for k in range(1, module.count(".")))):
        if where in CHAPTERS:
            return Chapter(where, *CHAPTERS[where])
    last = module.rsplit(".", 1)[-1].lstrip("_") or "other"
    return Chapter(module, last, last.replace("_", " ").capitalize(), f"The theorems of `{module}`.")


def chapters(ths: Sequence) -> list[tuple[Chapter, list]]:
    """The theorems grouped by chapter: chapters in order of their first theorem, theorems in
    registration order."""
    groups: dict[str, tuple[Chapter, list]] = {}
    for th in ths:
        ch = chapter_of(th)
        groups.setdefault(ch.page, (ch, []))[1].append(th)
    return list(groups.values())


def _write_if_changed(path: Path, text: str) -> bool:
    if path.exists() and path.read_text(encoding="utf-8") == text:
        return False
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return True


def _remove_stale(directory: Path, keep: Iterable[str]) -> None:
    keep = set(keep)
    for p in directory.iterdir():
        if p.is_file() and p.name not in keep:
            p.unlink()


# ======================================================================================
# Theory
# ======================================================================================
@dataclass(frozen=True)
class TheoryEntry:
    """One theorem's generated page: where it is and what the proof said."""

    id: str
    title: str
    source: str
    verdict: str
    elapsed: float
    path: Path
    expect: str = "proved"


def theorem_page(theorem, proof, coq: str = "") -> str:
    """The MyST page of one theorem: heading, title, how to reproduce, then the proof
    (``coq``: a line with the theorem's Coq status and its generated Coq text, see
    :func:`coq_badges`)."""
    from pe_symbolic.proof import render

    body = render.myst(proof, heading="#")  # escapes free text; unnumbered theorems
    heading, _, rest = body.partition("\n")
    cert = f"{theorem.id}.json"
    scope = getattr(theorem, "scope", "as stated")
    if scope == "every even d":
        how = ("Proved for every even $d = 2h$ at once, pair by pair: the sums over the pair "
               "index and the Kronecker-delta sums over blocks are evaluated by the engine, and "
               "each pair is rewritten by a cited lemma. A concrete $d$ checks each of its "
               f"$d/2$ blocks: `pe-derive prove {theorem.id} --d 512`.")
    elif scope == "lemma":
        how = ("A lemma about one 2x2 block or one pair, cited by the proofs for every $d$. "
               f"Reproduce it with `pe-derive prove {theorem.id}`.")
    elif theorem.concrete:
        how = (f"Reproduce it with `pe-derive prove {theorem.id}`; instantiate it for a concrete $d$ "
               f"with `pe-derive prove {theorem.id} --d 8`.")
    else:
        how = f"Reproduce it with `pe-derive prove {theorem.id}`."
    if getattr(theorem, "expect", "proved") == "refuted":
        how = ("**A registered honest negative**: a claim people make (or a bug they ship) that "
               "is false; the engine must refute it and print the counterexample below. " + how)
    intro = [
        heading,
        "",
        f"*{md_escape(render.prose_math(theorem.title))}*",
        "",
        how,
        f"Machine-readable certificate: {{download}}`{cert} <{cert}>`.",
        *(["", coq] if coq else []),
        "",
        "",
    ]
    return "\n".join(intro) + rest.lstrip("\n").rstrip("\n") + "\n"


def _table(entries: Sequence[TheoryEntry]) -> list[str]:
    """The claims' table: id, what it says, verdict, time. (The source is on each theorem's
    page: a fifth column of long citations made the table wider than the text column.)"""
    from pe_symbolic.proof import render

    rows = [
        "| Claim | What it says | Verdict | Time (s) |",
        "| --- | --- | --- | --- |",
    ]
    for e in entries:
        verdict = e.verdict + (" (honest negative)" if e.expect == "refuted" else "")
        rows.append(f"| {{claim}}`{e.id}` | {md_escape(render.prose_math(e.title))} | {verdict} | {e.elapsed:.2f} |")
    return rows


def _summary(entries: Sequence[TheoryEntry], groups: Sequence[tuple[Chapter, list]] = ()) -> str:
    """The theory index's table, one section per chapter (``groups``; none: one table)."""
    by_id = {e.id: e for e in entries}
    rows: list[str] = []
    for ch, ths in groups or [(None, [by_id[e.id] for e in entries])]:
        mine = [by_id[th.id] for th in ths]
        if ch is not None:
            link = f"{{doc}}`generated/{ch.page}`"
            rows += [f"## {ch.title}", "", f"{ch.intro} {len(mine)} theorem(s); the chapter: {link}.", ""]
        rows += _table(mine) + [""]
    total = sum(e.elapsed for e in entries)
    negatives = sum(1 for e in entries if e.expect == "refuted")
    what = f" ({negatives} of them registered honest negatives, refuted)" if negatives else ""
    rows += [f"{len(entries)} theorems{what}, checked in {total:.2f} s in total while these pages were built.", ""]
    return "\n".join(rows)


def chapter_page(ch: Chapter, entries: Sequence[TheoryEntry]) -> str:
    """A chapter's page: its title, what it is, its claims' table and (for the sidebar and the
    previous/next links) a hidden toctree of its theorems' pages."""
    return "\n".join([f"# {ch.title}", "", ch.intro, "", *_table(entries), "",
                      _toctree([e.path.stem for e in entries], hidden=True, prefix="")])


def coq_badges(ths: Sequence, outdir: Path, *, run: bool) -> dict[str, str]:
    """Write each theorem's Coq export (``ID.v``) into ``outdir`` and return its badge line:
    what Coq said (``run`` and Coq installed: ``pe-derive check --coq``), else how many
    lemmas are printed. See the how-to :doc:`/howto/coq`."""
    from pe_symbolic.proof.coq_export import STATUSES, check, coq_file, coqtop_path, export_claim

    # a registered honest negative's false entries are refuted in Coq (as `check --coq` does)
    exports = [export_claim(th.claim(), refute=getattr(th, "expect", "proved") == "refuted") for th in ths]
    for e in exports:
        _write_if_changed(outdir / f"{e.claim_id}.v", coq_file([e]))
    report = check(exports) if run and coqtop_path() is not None else None
    out = {}
    for th, e in zip(ths, exports):
        link = f"{{download}}`the Coq text <{e.claim_id}.v>`"
        n = len(e.lemmas)
        if report is None:
            printed = sum(1 for lem in e.lemmas if not lem.outside)
            status = f"{printed} of {n} equations printed as Coq lemmas (not run by Coq in this build)"
        else:
            c = {s: sum(r.status == s for r in report.by_claim()[e.claim_id]) for s in STATUSES}
            status = (f"**checked**, {n} of {n} lemmas" if c["checked"] == n else
                      ", ".join(f"{v} {k}" for k, v in c.items() if v) + f" of {n} lemmas")
            if getattr(th, "expect", "proved") == "refuted":
                status += " (a registered honest negative: Coq refutes its false entries, never proves them all)"
        out[th.id] = f"Coq: {status}; {link} (`pe-derive check --coq {th.id}`)."
    return out


def write_theory(outdir: Path = THEORY_DIR, theorems: Sequence | None = None, *, coq: bool = False
                 ) -> list[TheoryEntry]:
    """Prove every registered theorem (generic form) and write its page into ``outdir``.

    Returns one :class:`TheoryEntry` per theorem, in registration order. Also writes the
    JSON certificate and the Coq export next to each page (``coq``: and runs Coq on them
    where it is installed, :func:`coq_badges`), one page per chapter (:func:`chapters`: the
    module that registered the theorems) with its table and the toctree of its theorems, the
    summary :data:`SUMMARY` (a table per chapter) and the toctree :data:`TOC` of the chapters.
    """
    from pe_symbolic.proof import render
    from pe_symbolic import theorems as registry

    outdir = Path(outdir)
    outdir.mkdir(parents=True, exist_ok=True)
    ths = list(registry.all() if theorems is None else theorems)
    entries, keep = [], {SUMMARY, TOC}
    badges = coq_badges(ths, outdir, run=coq)
    for th in ths:
        proof = th.prove()
        name = page_name(th.id)
        path = outdir / f"{name}.md"
        _write_if_changed(path, theorem_page(th, proof, badges[th.id]))
        _write_if_changed(outdir / f"{th.id}.json", render.json_text(proof) + "\n")
        keep |= {path.name, f"{th.id}.json", f"{th.id}.v"}
        entries.append(TheoryEntry(th.id, th.title, th.source, proof.verdict, proof.elapsed, path,
                                   getattr(th, "expect", "proved")))
    groups = chapters(ths)
    by_id = {e.id: e for e in entries}
    for ch, members in groups:
        _write_if_changed(outdir / f"{ch.page}.md", chapter_page(ch, [by_id[th.id] for th in members]))
        keep.add(f"{ch.page}.md")
    _write_if_changed(outdir / SUMMARY, _summary(entries, groups))
    _write_if_changed(outdir / TOC, _toctree([ch.page for ch, _ in groups], hidden=True))
    _remove_stale(outdir, keep)
    return entries


# ======================================================================================
# The audit's bounds as Coq theorems (included by the accuracy and Coq how-tos)
# ======================================================================================
#: Where the bounds' table and example are written (files starting with ``_``: included, not pages).
BOUNDS_DIR = DOCS / "howto" / "generated"
#: The theorem shown in full on the Coq how-to: (case, kind).
BOUNDS_EXAMPLE = ("float32", "angle")


def angle_pair(audit) -> int:
    """The pair at which the audit's angle bound is attained."""
    from pe_symbolic.audit.bounds import angle_bound

    return angle_bound(audit.em, float(audit.t_max)).pair


def write_coq_bounds(outdir: Path = BOUNDS_DIR, *, run: bool) -> dict[str, str]:
    """Write the table of the audit's bounds as Coq theorems (``_coq_bounds.md``: each case's
    angle, table and output bound and its Coq status) and one theorem in full
    (``_coq_bounds_example.md``), from :mod:`pe_symbolic.audit.coq_bounds`; ``run`` (and Coq,
    Gappa and the Coq libraries installed): Coq checks them, as ``pe-derive check --coq
    audit.bounds`` does. Returns each theorem's status."""
    from pe_symbolic.audit import coq_bounds as cb

    stated = [cb.case_theorems(c) for c in cb.CASES]
    missing = cb.coq_bounds_available() if run else "not run in this build"
    status: dict[str, str] = {}
    elapsed = None
    if missing is None:
        report = cb.check_bounds([th for ct in stated for th in ct.theorems])
        status = {r.theorem.name: r.status for r in report.results}
        elapsed = report.elapsed
    rows = ["| case | recipe, dtype | context | bound | value | Coq |", "|---|---|---:|---|---:|---|"]
    for ct in stated:
        c = ct.case
        for kind in ("angle", "table", "output"):
            if kind in ct.not_stated:
                coq = f"not stated ({md_escape(ct.not_stated[kind])})"
            else:
                ths = [th for th in ct.theorems if th.kind == kind]
                got = [status.get(th.name) for th in ths]
                names = (f"`{ths[0].name}`" if len(ths) == 1 else
                         f"`{ths[0].name.rsplit('_', 1)[0]}_*` ({len(ths)} theorems)")
                if missing is not None:
                    coq = f"stated: {names}"
                elif all(g == "checked" for g in got):
                    coq = f"**checked**: {names}"
                else:
                    coq = ", ".join(f"`{th.name}` {g}" for th, g in zip(ths, got))
            first = kind == "angle"
            rows.append(f"| {c.name if first else ''} | {f'`{c.recipe}`, {c.dtype}' if first else ''} | "
                        f"{c.context if first else ''} | {kind} | {ct.bounds[kind]:.6g} | {coq} |")
    n = sum(len(ct.theorems) for ct in stated)
    done = sum(v == "checked" for v in status.values())
    foot = (f"{done} of {n} theorems checked by Coq in {elapsed:.1f} s while these pages were built "
            "(every one depends on no axiom beyond Coq's real numbers and Flocq's: `Print Assumptions`)."
            if elapsed is not None else f"{n} theorems stated; Coq did not check them in this build "
                                        f"({md_escape(missing or '')}).")
    _write_if_changed(outdir / "_coq_bounds.md", "\n".join(rows) + "\n\n" + foot + "\n")
    case = next(ct for ct in stated if ct.case.name == BOUNDS_EXAMPLE[0])
    worst = cb._audit(case.case)
    th = next(t for t in case.theorems if t.kind == BOUNDS_EXAMPLE[1]
              and (t.kind != "angle" or angle_pair(worst) in t.pairs))
    st = status.get(th.name, "not checked in this build")
    example = ["```coq", th.text().rstrip(), "```", "",
               f"Its status as `pe-derive check --coq audit.bounds` prints it: `{th.name}`: **coq: {st}**.", ""]
    _write_if_changed(outdir / "_coq_bounds_example.md", "\n".join(example))
    return status


# ======================================================================================
# Tutorials: a sphinx-gallery of derivations/ (configured in conf.py); only their order here
# ======================================================================================
class DerivationOrder:
    """sphinx-gallery's ``within_subsection_order``: :data:`TUTORIAL_ORDER` first, then by name.

    >>> sorted(["video.py", "kernes.py", "rope_relative.py", "translation_matrix.py"],
    ...        key=DerivationOrder(DERIVATIONS))
    ['translation_matrix.py', 'rope_relative.py', 'kernes.py', 'video.py']
    """

    def __init__(self, src_dir: str | Path) -> None:
        self.src_dir = src_dir

    def __call__(self, filename: str | Path) -> tuple[int, str]:
        stem = Path(filename).stem
        rank = TUTORIAL_ORDER.index(stem) if stem in TUTORIAL_ORDER else len(TUTORIAL_ORDER)
        return rank, stem

    def __repr__(self) -> str:  # sphinx-gallery caches the configuration by its repr
        return f"<{type(self).__name__}: {', '.join(TUTORIAL_ORDER)}, then by name>"


def scripts(directory: Path = DERIVATIONS) -> list[Path]:
    """The derivation scripts, in the gallery's reading order (helpers like ``_common.py`` excluded)."""
    found = [p for p in Path(directory).glob("*.py") if not p.name.startswith("_")]
    return sorted(found, key=lambda p: DerivationOrder(directory)(p.name))


def main(argv: Sequence[str] | None = None) -> int:
    """``python docs/_ext/pe_docs_gen.py``: write the theory pages and print their verdicts."""
    th = write_theory()
    print(json.dumps({e.id: e.verdict for e in th}, indent=1))
    return 0 if all(e.verdict == "proved" for e in th) else 1


if __name__ == "__main__":
    sys.exit(main())
