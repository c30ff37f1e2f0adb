"""The house rules the import graph and the file sizes can show (issue 43): no import circle in
pe_symbolic, no module over 1,000 lines, no module that only re-exports.

The circles are counted over every import grimp finds in ``pe_symbolic`` -- at module level,
inside functions (lazy imports) and under ``TYPE_CHECKING`` -- between the package's own
modules; import-linter's ``acyclic_siblings`` contract (pyproject.toml) checks the same without
the ``TYPE_CHECKING`` imports, and packages as wholes too. A known exception is listed with the
issue that removes it; once it is gone, its entry fails here until it is deleted, so the rule
tightens by itself.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

grimp = pytest.importorskip("grimp")  # (installed with import-linter, the test extra)

PACKAGE = Path(__file__).resolve().parents[1] / "pe_symbolic"
MAX_LINES = 1000

#: Circles another change removes, as sets of modules (one strongly connected component each).
KNOWN_CIRCLES: set[frozenset[str]] = set()
#: Modules over MAX_LINES that another change splits.
KNOWN_LONG: dict[str, str] = {}


def _circles(edges: dict[str, set[str]]) -> list[frozenset[str]]:
    """The strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    out: list[frozenset[str]] = []
    counter = 0
    for root in sorted(edges):
        if root in index:
            continue
        work = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            v, children = work[-1]
            for w in children:
                if w not in index:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(sorted(edges[w]))))
                    break
                if w in on_stack:
                    low[v] = min(low[v], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    comp = set()
                    while True:
                        w = stack.pop()
                        on_stack.discard(w)
                        comp.add(w)
                        if w == v:
                            break
                    if len(comp) > 1:
                        out.append(frozenset(comp))
    return out


def test_the_circle_finder_finds_circles_and_only_circles():
    edges = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": {"e"}, "f": set()}
    assert _circles(edges) == [frozenset("abc")]
    assert _circles({"a": {"b"}, "b": set()}) == []


def test_no_import_circle_in_pe_symbolic():
    graph = grimp.build_graph("pe_symbolic", exclude_type_checking_imports=False, cache_dir=None)
    edges = {m: {t for t in graph.find_modules_directly_imported_by(m) if t.startswith("pe_symbolic")}
             for m in graph.modules if m.startswith("pe_symbolic")}
    found = set(_circles(edges))
    new = found - KNOWN_CIRCLES
    assert not new, "import circles: " + "; ".join(
        " <-> ".join(sorted(c)) + " (" + ", ".join(
            f"{a} -> {b} line {d['line_number']}" for a in sorted(c) for b in sorted(edges[a] & c)
            for d in graph.get_import_details(importer=a, imported=b)[:1]) + ")"
        for c in sorted(new, key=sorted))
    gone = KNOWN_CIRCLES - found
    assert not gone, f"no longer circles: delete them from KNOWN_CIRCLES: {[sorted(c) for c in gone]}"


def _modules() -> list[Path]:
    return sorted(p for p in PACKAGE.rglob("*.py") if "__pycache__" not in p.parts)


def test_no_module_over_a_thousand_lines():
    sizes = {p.relative_to(PACKAGE).as_posix(): len(p.read_text(encoding="utf-8").splitlines()) for p in _modules()}
    long = {name: n for name, n in sizes.items() if n > MAX_LINES}
    assert set(long) <= set(KNOWN_LONG), {name: n for name, n in long.items() if name not in KNOWN_LONG}
    done = [name for name in KNOWN_LONG if sizes.get(name, 0) <= MAX_LINES]
    assert not done, f"no longer over {MAX_LINES} lines: delete them from KNOWN_LONG: {done}"


def _only_imports(tree: ast.Module) -> bool:
    """Whether a module's body is a docstring, imports, ``__all__`` and ``if TYPE_CHECKING:``
    imports, and nothing else (it defines nothing of its own)."""
    body = tree.body
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]
    for node in body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            continue
        if isinstance(node, ast.Assign) and all(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets):
            continue
        if isinstance(node, ast.If) and all(isinstance(m, (ast.Import, ast.ImportFrom)) for m in node.body):
            continue
        return False
    return True


def _re_exports_only(path: Path) -> bool:
    """A module that only re-exports: it defines nothing, and it is not a package's
    ``__init__`` gathering the package's own API (imports from its own submodules only)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    if not _only_imports(tree):
        return False
    if path.name != "__init__.py":
        return True
    package = ".".join(path.parent.relative_to(PACKAGE.parent).parts)
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module != "__future__":
            own = node.level == 1 or (node.level == 0 and (node.module or "").startswith(package + "."))
            if not own:
                return True
        elif isinstance(node, ast.Import) and not all(a.name.startswith(package + ".") for a in node.names):
            return True
    return False


def test_the_re_export_check_tells_a_shim_from_a_package_api(tmp_path):
    shim = tmp_path / "old.py"
    shim.write_text('"""Moved."""\nfrom .kernel.rules import *  # noqa\nfrom .kernel.rules import __all__\n')
    assert _re_exports_only(shim)
    real = tmp_path / "real.py"
    real.write_text("from .kernel.rules import RULES\n\nNAMES = sorted(RULES)\n")
    assert not _re_exports_only(real)


def test_no_module_only_re_exports():
    shims = [p.relative_to(PACKAGE).as_posix() for p in _modules() if _re_exports_only(p)]
    assert not shims, f"modules that only re-export (import from the real module instead): {shims}"
