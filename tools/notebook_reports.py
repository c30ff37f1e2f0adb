"""The three reports in an exported notebook, and pictures of them.

Usage::

    python tools/notebook_reports.py OUTDIR [--verify-run]

Builds a notebook whose cells end with ``describe(config)``, ``audit(...)`` and a
``VerifyReport`` (by default one made by hand with every kind of section, so that the script
takes seconds; ``--verify-run`` runs ``verify_rope`` on an implementation whose k turns the
wrong way instead), each cell's output the object's own ``_repr_html_()`` and ``repr()`` as
Jupyter stores them; exports it with nbconvert's ``lab`` and ``classic`` templates into
``OUTDIR/reports-{lab,classic}.html``; and, where Chromium is installed, takes a screenshot of
each page (``OUTDIR/reports-{lab,classic}.png``). ``tests/test_notebook_reports.py`` uses the
same functions. Needs the notebook extra (``pip install -e '.[notebook]'``).
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

TEMPLATES = ("lab", "classic")


def hand_verify_report() -> Any:
    """A ``VerifyReport`` with a failed check, reasons, a passed check and notes (no run)."""
    from pe_symbolic.audit.verify import VerifyReport

    return VerifyReport(
        "differs",
        structure={"summary": "differs from A R(theta(m)) x (refuted by the kernel, traced at shape (2, 2, 2, 128))",
                   "why": ["k (head 1 of the trace): the rotation turns the wrong way (every sin has the opposite "
                           "sign): the minus of rotate_half is on the wrong half, or sin is negated"]},
        frequencies={"summary": "64 pairs, inverse frequencies 1 .. 3.06893e-07; max relative error 5.05e-08"},
        tests={"summary": "FAILED -- 81 calls in float32; q: passed (73 calls); k: FAILED at position 1",
               "why": ["k: at position 1 (batch row 0, k head 0, slot 0, pair 0): the output differs from "
                       "R(theta(m)) x by 0.471 (bound 4.53e-06)"]},
        conventions={"summary": "pairing split; rotary channels all; R(theta); attention factor 1"},
        notes=["framework numpy (detected: rotary uses np (module numpy)); HF's pair as apply(q, k, cos, sin)"])


def run_verify_report() -> Any:
    """``verify_rope`` on an HF-style NumPy pair whose k turns the wrong way (about 15 s)."""
    import numpy as np

    import pe_symbolic as pe
    from pe_symbolic import numeric

    config = numeric.model_config("llama-3.1-8b")
    inv = numeric.rope_frequencies(config)[0]

    def rotate_half(x: Any) -> Any:
        return np.concatenate([-x[..., 64:], x[..., :64]], axis=-1)

    def rotary(x: Any, position_ids: Any) -> tuple[Any, Any]:
        emb = np.concatenate([position_ids[..., None] * inv] * 2, axis=-1)
        return np.cos(emb).astype(x.dtype), np.sin(emb).astype(x.dtype)

    def apply(q: Any, k: Any, cos: Any, sin: Any) -> tuple[Any, Any]:
        cos, sin = cos[:, None], sin[:, None]
        return q * cos + rotate_half(q) * sin, k * cos - rotate_half(k) * sin

    return pe.verify_rope((rotary, apply), config, dtype="float32")


def reports(verify_run: bool = False) -> list[tuple[str, Any]]:
    """``(the cell's source, the object it ends with)`` for the three reports."""
    import pe_symbolic as pe
    from pe_symbolic import numeric

    return [
        ('numeric.describe(numeric.model_config("gemma-3-4b"))',
         numeric.describe(numeric.model_config("gemma-3-4b"), quiet=True)),
        ('pe.audit("llama-3.1-8b", recipe=["hf", "vllm"], dtype="bfloat16", context=8192)',
         pe.audit("llama-3.1-8b", recipe=["hf", "vllm"], dtype="bfloat16", context=8192)),
        ("pe.verify_rope((rotary, apply), config)", run_verify_report() if verify_run else hand_verify_report()),
    ]


def notebook(items: list[tuple[str, Any]]) -> Any:
    """A notebook: one code cell a report, its output as Jupyter stores an ``execute_result``."""
    import nbformat

    nb = nbformat.v4.new_notebook()
    for n, (source, obj) in enumerate(items, start=1):
        cell = nbformat.v4.new_code_cell(source, execution_count=n)
        cell.outputs = [nbformat.v4.new_output("execute_result", execution_count=n,
                                               data={"text/html": obj._repr_html_(), "text/plain": repr(obj)})]
        nb.cells.append(cell)
    return nb


def export(nb: Any, template: str) -> str:
    """The notebook as an HTML page, by nbconvert's ``template`` (``lab`` or ``classic``)."""
    from nbconvert import HTMLExporter

    body, _ = HTMLExporter(template_name=template).from_notebook_node(nb)
    return body


def chromium() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome", "chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


def _flags(profile: str) -> list[str]:
    return ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
            "--disable-component-update", "--disable-sync", "--no-first-run", "--allow-file-access-from-files",
            f"--user-data-dir={profile}", "--hide-scrollbars"]


def screenshot(page: Path, png: Path, *, width: int = 1400, height: int = 2200) -> None:
    """A PNG of ``page`` in headless Chromium (``FileNotFoundError`` without Chromium)."""
    exe = chromium()
    if exe is None:
        raise FileNotFoundError("chromium is not installed (apt-get install chromium)")
    with tempfile.TemporaryDirectory() as profile:
        subprocess.run([exe, *_flags(profile), f"--window-size={width},{height}", f"--screenshot={png}",
                        "--virtual-time-budget=5000", page.resolve().as_uri()],
                       capture_output=True, text=True, timeout=180, check=True)


def dump_dom(page: Path, *, width: int = 1400) -> str:
    """The DOM of ``page`` after its scripts ran, as headless Chromium serialises it."""
    exe = chromium()
    if exe is None:
        raise FileNotFoundError("chromium is not installed (apt-get install chromium)")
    with tempfile.TemporaryDirectory() as profile:
        run = subprocess.run([exe, *_flags(profile), f"--window-size={width},1100", "--virtual-time-budget=5000",
                              "--dump-dom", page.resolve().as_uri()],
                             capture_output=True, text=True, timeout=180)
    return run.stdout


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python tools/notebook_reports.py", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("outdir", type=Path, help="where the exported pages (and their screenshots) go")
    ap.add_argument("--verify-run", action="store_true", help="run verify_rope (about 15 s) instead of a hand-made report")
    args = ap.parse_args(argv)
    args.outdir.mkdir(parents=True, exist_ok=True)
    nb = notebook(reports(args.verify_run))
    for template in TEMPLATES:
        page = args.outdir / f"reports-{template}.html"
        page.write_text(export(nb, template), encoding="utf-8")
        print(f"wrote {page}")
        if chromium() is not None:
            png = page.with_suffix(".png")
            screenshot(page, png)
            print(f"wrote {png}")
    if chromium() is None:
        print("no screenshots: chromium is not installed (apt-get install chromium)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
