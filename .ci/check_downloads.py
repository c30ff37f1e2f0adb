"""Run every tutorial download the way a reader does: outside the checkout, in a brand-new
virtual environment that has only the installed package (``pip install '.[notebook]'``, not
editable).

For each ``derivations/*.py`` (the gallery's tutorials):

* the ``.py`` download is copied into an empty folder and run there with ``--python``;
* the ``.ipynb`` download is made from it exactly as the docs make it (sphinx-gallery, with
  ``docs/conf.py``'s gallery settings; this needs sphinx-gallery in the interpreter running
  this script) and executed with nbclient in that same environment.

Each must exit cleanly and print the tutorial's closing line ``All as expected.``. The
environment must import ``pe_symbolic`` from its own site-packages, never from the checkout
(checked first). Exit status 0 when every download runs, 1 otherwise.

Usage (``make downloads`` creates the environment)::

    python .ci/check_downloads.py --python .venv-fresh/bin/python
"""

from __future__ import annotations

import argparse
import ast
import copy
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DERIVATIONS = ROOT / "derivations"
DONE = "All as expected."


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    env["MPLBACKEND"] = "Agg"
    return env


def _installed_from(python: str, folder: Path) -> str:
    out = subprocess.run([python, "-c", "import pe_symbolic; print(pe_symbolic.__file__)"], cwd=folder,
                         capture_output=True, text=True, env=_env(), timeout=120)
    if out.returncode != 0:
        raise SystemExit(f"check_downloads: {python} cannot import pe_symbolic:\n{out.stderr[-2000:]}")
    where = Path(out.stdout.strip()).resolve()
    if where == (ROOT / "pe_symbolic" / "__init__.py").resolve():
        raise SystemExit(f"check_downloads: {python} imports pe_symbolic from the checkout ({where}); "
                         "install the package non-editable into a fresh environment")
    return str(where)


def _notebook(script: Path, folder: Path) -> Path:
    from sphinx_gallery.gen_gallery import DEFAULT_GALLERY_CONF
    from sphinx_gallery.notebook import jupyter_notebook, save_notebook
    from sphinx_gallery.py_source_parser import split_code_and_text_blocks

    conf = copy.deepcopy(DEFAULT_GALLERY_CONF)
    tree = ast.parse((ROOT / "docs" / "conf.py").read_text(encoding="utf-8"))
    for node in tree.body:  # the gallery settings docs/conf.py gives (a literal dict)
        if isinstance(node, ast.Assign) and [getattr(t, "id", None) for t in node.targets] == ["sphinx_gallery_conf"]:
            conf.update(ast.literal_eval(node.value))
    _, blocks = split_code_and_text_blocks(str(script))[:2]
    path = folder / (script.stem + ".ipynb")
    save_notebook(jupyter_notebook(blocks, conf, folder), path)
    return path


_RUN_NOTEBOOK = """
import sys, nbformat, nbclient
nb = nbformat.read(sys.argv[1], as_version=4)
nbclient.NotebookClient(nb, timeout=600, kernel_name="python3",
                        resources={"metadata": {"path": sys.argv[2]}}).execute()
print("".join(o.get("text", "") for c in nb.cells if c.cell_type == "code" for o in c.outputs))
"""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--python", required=True, help="the fresh environment's interpreter")
    parser.add_argument("--no-notebooks", action="store_true", help="run the .py downloads only")
    args = parser.parse_args(argv)
    python = str(Path(args.python).absolute())
    scripts = sorted(p for p in DERIVATIONS.glob("*.py") if not p.name.startswith("_"))
    failures = []
    with tempfile.TemporaryDirectory(prefix="pe-downloads-") as tmp:
        print(f"pe_symbolic from {_installed_from(python, Path(tmp))}")
        for script in scripts:
            kinds = [".py"] if args.no_notebooks else [".py", ".ipynb"]
            for kind in kinds:
                folder = Path(tmp) / f"{script.stem}{kind.replace('.', '-')}"
                folder.mkdir()
                shutil.copy(script, folder / script.name)
                start = time.perf_counter()
                if kind == ".py":
                    cmd = [python, script.name]
                else:
                    nb = _notebook(folder / script.name, folder)
                    (folder / script.name).unlink()  # the notebook alone, as downloaded
                    cmd = [python, "-c", _RUN_NOTEBOOK, str(nb), str(folder)]
                out = subprocess.run(cmd, cwd=folder, capture_output=True, text=True, env=_env(), timeout=900)
                ok = out.returncode == 0 and DONE in out.stdout
                print(f"  {'ok  ' if ok else 'FAIL'} {script.stem + kind:28s} {time.perf_counter() - start:6.1f} s")
                if not ok:
                    failures.append(f"{script.stem}{kind}")
                    print((out.stdout[-1500:] + out.stderr[-3000:]).rstrip(), file=sys.stderr)
    total = len(scripts) * (1 if args.no_notebooks else 2)
    print(f"downloads: {total - len(failures)} of {total} ran to '{DONE}'"
          + (f"; failed: {', '.join(failures)}" if failures else ""))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
