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
# tests/test_backend_torch.py and tests/test_backend_jax.py skip without it.
collect_ignore += [f"pe_symbolic/{fw}.py" for fw in ("torch", "jax") if not _imports(fw)]
