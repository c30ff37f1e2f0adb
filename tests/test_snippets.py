"""Every Python snippet of the README and of the docs pages runs.

A page's plain ``python`` blocks run in order in one namespace, as a reader pasting them into
one session would; its ``>>>`` blocks are doctests, run (with their outputs compared) by
``tests/test_docs.py::test_docs_page_examples`` -- :func:`test_every_snippet_is_run` checks
that the two together cover every block. Generated pages (theory, tutorials) are not
hand-written snippets: the tutorials run as scripts (tests/test_derivations.py).
"""

from __future__ import annotations

import contextlib
import importlib.util
import io
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FENCE = re.compile(r"^(?P<fence>```+)(?P<lang>[^\n`]*)\n(?P<body>.*?)^(?P=fence)\s*$", re.M | re.S)
PYTHON = {"python", "py", "python3", "pycon"}


def _pages() -> list[Path]:
    docs = sorted(p for p in (ROOT / "docs").rglob("*.md") if "_build" not in p.parts and "generated" not in p.parts)
    return [ROOT / "README.md", *docs]


def _blocks(page: Path) -> list[str]:
    out = []
    for m in FENCE.finditer(page.read_text(encoding="utf-8")):
        lang = m["lang"].strip().split()[0] if m["lang"].strip() else ""
        if lang in PYTHON:
            out.append(m["body"])
    return out


PLAIN = [(p, [b for b in _blocks(p) if ">>>" not in b]) for p in _pages()]
PLAIN = [(p, bs) for p, bs in PLAIN if bs]


def test_every_snippet_is_run():
    """Each Python block is either plain (run here) or a doctest on a docs page (run there)."""
    from tests import test_docs

    doctest_pages = set(test_docs.PAGES)
    n_plain = n_doctest = 0
    for page in _pages():
        for block in _blocks(page):
            if ">>>" in block:
                assert page in doctest_pages, f"{page}: a doctest block that no test runs"
                n_doctest += 1
            else:
                n_plain += 1
    assert n_plain >= 3 and n_doctest >= 30
    print(f"{n_plain} plain snippets run here, {n_doctest} doctest blocks in tests/test_docs.py")


#: Optional extras a snippet may use: where one is not installed, the page's snippets stop there
#: and the test skips, saying which (CI installs them; the NumPy 1.x run does not).
OPTIONAL = frozenset({"torch", "jax", "jaxlib", "matplotlib", "transformers", "numba"})


#: The pages whose "start here" snippets are written for the reader's own objects: a RoPE
#: function ``my_rope``, a ``config.json`` in the working directory, and ``q``, ``k``,
#: ``position_ids`` in Hugging Face shapes. They run against stand-ins (a correct RoPE for the
#: config, Llama 3.1's config.json, random tensors), and what they promise is checked.
READER_PAGES = {ROOT / "README.md", ROOT / "docs" / "index.md"}


def _reader_objects(directory: Path) -> dict:
    import json

    import numpy as np

    import pe_symbolic as pe

    config = pe.numeric.model_config("llama-3.1-8b")
    (directory / "config.json").write_text(json.dumps(config), encoding="utf-8")
    inv_freq, attention_factor = pe.numeric.rope_frequencies(config)

    def my_rope(x, position_ids):  # HF's rotate_half RoPE, with the config's llama3 scaling
        angles = position_ids[..., None] * inv_freq
        emb = np.concatenate([angles, angles], -1)
        cos, sin = np.cos(emb)[:, None] * attention_factor, np.sin(emb)[:, None] * attention_factor
        half = x.shape[-1] // 2
        return (x * cos + np.concatenate([-x[..., half:], x[..., :half]], -1) * sin).astype(x.dtype)

    objects: dict = {"my_rope": my_rope}
    try:
        import torch
    except ModuleNotFoundError:  # the torch block then skips (OPTIONAL)
        return objects
    objects.update(q=torch.randn(1, 32, 16, 128), k=torch.randn(1, 8, 16, 128),
                   position_ids=torch.arange(16)[None])
    return objects


@pytest.mark.parametrize("page,blocks", PLAIN, ids=[p.relative_to(ROOT).as_posix() for p, _ in PLAIN])
def test_snippets_run(page: Path, blocks: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    namespace: dict = {"__name__": "__snippet__"}
    if page in READER_PAGES:
        monkeypatch.chdir(tmp_path)
        namespace.update(_reader_objects(tmp_path))
    missing = []
    for n, block in enumerate(blocks, start=1):
        code = compile(block, f"{page.name} (Python block {n})", "exec")
        if page in READER_PAGES and "pe_symbolic.torch" in block and importlib.util.find_spec("torch") is None:
            # pe_symbolic.torch imports torch on first use: without torch there are no stand-in tensors
            missing.append(f"{page.name} block {n} needs torch, which is not installed")
            continue
        with contextlib.redirect_stdout(io.StringIO()):
            try:
                exec(code, namespace)  # noqa: S102 - the repository's own documentation
            except ModuleNotFoundError as exc:
                if (exc.name or "").split(".")[0] not in OPTIONAL:
                    raise
                missing.append(f"{page.name} block {n} needs {exc.name}, which is not installed")
                if page not in READER_PAGES:  # later blocks may build on this one: stop here
                    break
                # a "start here" block stands alone: the page's other blocks still run
        if page in READER_PAGES and "verify_rope(my_rope" in block:  # what the snippet promises
            assert namespace["report"].verdict == "verified", namespace["report"].to_text()
    if missing:
        pytest.skip("; ".join(missing))
