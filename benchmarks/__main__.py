"""Entry point: ``python -m benchmarks [--quick]``."""

import os

# many thousands of small expressions in a concrete-d proof: SymPy's default cache (1000) is small
os.environ.setdefault("SYMPY_CACHE_SIZE", "50000")

from .run import main  # noqa: E402

raise SystemExit(main())
