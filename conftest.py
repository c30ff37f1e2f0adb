"""Collection settings for the whole checkout (the tests' own configuration is tests/conftest.py).

The compiled kernels of the optional ``fast`` extra import numba at module level (their
importers fall back to NumPy when that fails): ``--doctest-modules`` would report the
failed import as a collection error, so those modules are left out when numba does not
import. (They hold no doctests; tests/test_rope_fast.py and tests/test_accurate_fast.py
cover them, and skip without numba.)
"""

from __future__ import annotations

import os

# The disk cache of proved verdicts and lowered formulas (pe_symbolic.numeric._diskcache) is
# off for the tests, so that a test that stubs the registry or a verdict sees its stub; the
# cache's own tests point $PE_SYMBOLIC_CACHE_DIR at a temporary directory.
os.environ["PE_SYMBOLIC_CACHE_DIR"] = "off"


def _numba_imports() -> bool:
    try:
        import numba  # noqa: F401
    except Exception:  # absent, or built for another NumPy
        return False
    return True


collect_ignore = [] if _numba_imports() else [
    "pe_symbolic/numeric/_rope_fused.py",
    "pe_symbolic/numeric/_rope_fused16.py",
    "pe_symbolic/numeric/_accurate_fused.py",
]


def _imports(name: str) -> bool:
    import importlib.util

    return importlib.util.find_spec(name) is not None


# The tensor backends' doctests need their framework (the optional extras torch and jax);
# tests/test_backend_torch.py and tests/test_backend_jax.py skip without it. (pe_symbolic.torch
# is a package, pe_symbolic.jax a module: whichever path exists is left out.)
collect_ignore += [path for fw in ("torch", "jax") if not _imports(fw)
                   for path in (f"pe_symbolic/{fw}", f"pe_symbolic/{fw}.py")]


# ---- the end of a test run: one line saying which skipped tests which extra would run -----
#: (pattern in a skip reason, what it needs, how to get it), first match wins. The optional
#: extras of pyproject.toml, then tools outside Python, then `make test-slow`.
SKIP_CAUSES: list[tuple[str, str, str]] = [
    (r"'transformers|transformers\b|vllm", "transformers", "pip install transformers"),
    (r"'torch|\btorch\b|cuda", "torch", "pip install torch --index-url https://download.pytorch.org/whl/cpu"),
    (r"'jax|\bjax\b", "jax", "pip install -e '.[jax]'"),
    (r"numba|fused kernel|compiled loop|16-bit kernels", "numba", "pip install -e '.[fast]'"),
    (r"nbformat|nbclient|ipykernel|nbconvert", "notebook", "pip install -e '.[notebook]'"),
    (r"sphinx|docs extras|mathjax", "docs", "pip install -e '.[docs]'"),
    (r"matplotlib", "matplotlib", "pip install -e '.[plot]'"),
    (r"'ray'", "ray", "pip install -e '.[ray]'"),
    (r"pyarrow", "pyarrow", "pip install -e '.[parquet]'"),
    (r"pdflatex", "pdflatex", "apt-get install texlive-latex-extra"),
    (r"chromium", "chromium", "apt-get install chromium"),
    (r"coq", "Coq", "apt-get install coq"),
    (r"gappa", "Gappa", "apt-get install gappa"),
    (r"slow", "slow", "make test-slow"),
]


def skip_summary(reasons: list[str]) -> str:
    """One line: how many tests were skipped, and what would run them, most first
    (``tests/test_skip_summary.py``)."""
    import re
    from collections import Counter

    counts: Counter[tuple[str, str]] = Counter()
    for reason in reasons:
        for pattern, what, how in SKIP_CAUSES:
            if re.search(pattern, reason, re.IGNORECASE):
                counts[(what, how)] += 1
                break
        else:
            counts[("other", "")] += 1
    if not counts:
        return ""
    parts = []
    for (what, how), n in sorted(counts.items(), key=lambda kv: (kv[0][0] == "other", -kv[1], kv[0][0])):
        if what == "other":
            parts.append(f"{n} other")
        elif what == "slow":
            parts.append(f"{n} slow ({how})")
        else:
            parts.append(f"{n} need {what} ({how})")
    return f"{sum(counts.values())} skipped: " + ", ".join(parts)


def pytest_unconfigure(config):  # noqa: ANN001 - pytest's hook
    """At the very end of the run, after pytest's own last line: :func:`skip_summary` of the
    skipped tests (``-ra`` lists each skip above)."""
    reporter = config.pluginmanager.get_plugin("terminalreporter")
    if reporter is None:
        return
    reasons = []
    for rep in reporter.stats.get("skipped", []):
        longrepr = getattr(rep, "longrepr", None)
        reasons.append(str(longrepr[2]) if isinstance(longrepr, tuple) and len(longrepr) == 3 else str(longrepr))
    line = skip_summary(reasons)
    if line:
        reporter.write_line(line)
