"""The tutorials' downloads run on their own: a copy of a script (or the notebook that
sphinx-gallery makes of it) outside the checkout, with only the installed package, runs to
its end as expected (before: ``No module named '_common'``)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

DERIVATIONS = Path(__file__).resolve().parent.parent / "derivations"
#: The quickest tutorial (~4 s); every tutorial imports its helpers the same way
#: (tests/test_docs.py::test_derivation_is_a_gallery_example checks that).
SCRIPT = "video.py"


def test_a_downloaded_script_runs_without_the_checkout(tmp_path):
    shutil.copy(DERIVATIONS / SCRIPT, tmp_path / SCRIPT)
    out = subprocess.run([sys.executable, SCRIPT], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    assert "All as expected." in out.stdout


def test_a_downloaded_notebook_runs_without_the_checkout(tmp_path):
    pytest.importorskip("sphinx_gallery")
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    pytest.importorskip("ipykernel")
    import ast
    import copy

    from sphinx_gallery.gen_gallery import DEFAULT_GALLERY_CONF
    from sphinx_gallery.notebook import jupyter_notebook, save_notebook
    from sphinx_gallery.py_source_parser import split_code_and_text_blocks

    conf = copy.deepcopy(DEFAULT_GALLERY_CONF)
    # as docs/conf.py configures the gallery's notebooks
    tree = ast.parse((DERIVATIONS.parent / "docs" / "conf.py").read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and [t.id for t in node.targets] == ["sphinx_gallery_conf"]:
            conf.update(ast.literal_eval(node.value))
    shutil.copy(DERIVATIONS / SCRIPT, tmp_path / SCRIPT)
    _, blocks = split_code_and_text_blocks(str(tmp_path / SCRIPT))[:2]
    save_notebook(jupyter_notebook(blocks, conf, tmp_path), tmp_path / "video.ipynb")
    nb = nbformat.read(tmp_path / "video.ipynb", as_version=4)
    nbclient.NotebookClient(nb, timeout=300, kernel_name="python3",
                            resources={"metadata": {"path": str(tmp_path)}}).execute()
    text = "".join(o.get("text", "") for c in nb.cells if c.cell_type == "code" for o in c.outputs)
    assert "All as expected." in text


def test_a_notebook_without_matplotlib_draws_nothing_and_says_so(monkeypatch, capsys):
    from pe_symbolic import tutorial

    monkeypatch.setattr(tutorial, "_embedded", lambda: True)
    monkeypatch.setattr(tutorial, "_NOTED_NO_MATPLOTLIB", [])
    monkeypatch.setitem(sys.modules, "matplotlib.pyplot", None)  # import fails: not installed
    assert tutorial.figure() is None
    assert tutorial.figure() is None
    out = capsys.readouterr().out
    assert out.count("pip install matplotlib") == 1  # said once a run


def test_plot_asked_for_without_matplotlib_is_a_clear_error(monkeypatch):
    from pe_symbolic import tutorial

    monkeypatch.setattr(tutorial, "_embedded", lambda: False)
    monkeypatch.setitem(tutorial._OPTIONS, "plot", True)
    monkeypatch.setitem(sys.modules, "matplotlib.pyplot", None)
    with pytest.raises(ModuleNotFoundError, match="--plot draws with matplotlib"):
        tutorial.figure()
